// npy.test.mjs: the .npy reader on hand-made headers of each format version
// and dtype, and on the files it must refuse. Run: node --test test/ort/
import assert from 'node:assert/strict';
import test from 'node:test';

import { formatNpy, parseNpy } from './npy.mjs';

// An npy file of format `major` with the given header text, padded as
// numpy pads it, followed by `data`.
function npy(major, header, data) {
  const pre = major === 1 ? 10 : 12;
  const enc = major === 3 ? 'utf8' : 'latin1';
  let h = header;
  while ((pre + Buffer.byteLength(h, enc) + 1) % 64) h += ' ';
  h += '\n';
  const hb = Buffer.from(h, enc);
  const b = Buffer.alloc(pre);
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, major, 0]).copy(b);
  if (major === 1) b.writeUInt16LE(hb.length, 8);
  else b.writeUInt32LE(hb.length, 8);
  return Buffer.concat([b, hb, Buffer.from(data)]);
}

const bytesOf = (t) => new Uint8Array(t.buffer, t.byteOffset, t.byteLength);

test('every dtype reads back', () => {
  const cases = [
    ['<f8', Float64Array.from([1.5, -2, NaN])],
    ['<f4', Float32Array.from([0.25, -1e30, Infinity])],
    ['<f2', Uint16Array.from([0x3c00, 0x7e00])],
    ['<i8', BigInt64Array.from([-(2n ** 62n), 5n])],
    ['<i4', Int32Array.from([-7, 2 ** 30])],
    ['<i2', Int16Array.from([-32768, 3])],
    ['|i1', Int8Array.from([-128, 127])],
    ['<u8', BigUint64Array.from([2n ** 64n - 1n])],
    ['<u4', Uint32Array.from([2 ** 32 - 1])],
    ['<u2', Uint16Array.from([0xffff, 1])],
    ['|u1', Uint8Array.from([255, 0])],
    ['|b1', Uint8Array.from([1, 0, 1])],
  ];
  for (const [descr, t] of cases) {
    const a = parseNpy(formatNpy(descr, [t.length], t));
    assert.equal(a.descr, descr);
    assert.deepEqual(a.shape, [t.length]);
    assert.equal(a.data.constructor, t.constructor, descr);
    assert.deepEqual(Array.from(a.data), Array.from(t), descr);
  }
});

test('header versions 1, 2 and 3', () => {
  const t = Float32Array.from([1, 2, 3, 4, 5, 6]);
  for (const major of [1, 2, 3]) {
    const a = parseNpy(npy(major, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", bytesOf(t)));
    assert.deepEqual(a.shape, [2, 3]);
    assert.deepEqual(Array.from(a.data), [1, 2, 3, 4, 5, 6]);
  }
});

test('scalar, empty and one-dimensional shapes', () => {
  assert.deepEqual(parseNpy(npy(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (), }",
    bytesOf(BigInt64Array.from([9n])))).shape, []);
  assert.deepEqual(parseNpy(npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4), }", [])).shape, [0, 4]);
  assert.deepEqual(parseNpy(npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
    bytesOf(Float32Array.from([3])))).shape, [1]);
});

test('refuses what it cannot read', () => {
  const f4 = bytesOf(Float32Array.from([1, 2]));
  assert.throws(() => parseNpy(Buffer.from('not npy at all')), /not an npy file/);
  assert.throws(() => parseNpy(npy(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", f4)), /dtype '>f4'/);
  assert.throws(() => parseNpy(npy(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", f4)), /fortran_order/);
  assert.throws(() => parseNpy(npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", f4)), /8 data bytes, expected 12/);
  assert.throws(() => parseNpy(npy(4, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", f4)), /version 4/);
  assert.throws(() => parseNpy(npy(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", f4)), /'<c8' is not supported/);
});
