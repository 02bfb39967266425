// npy.mjs: reads the .npy files numpy.save writes (format versions 1, 2
// and 3), little-endian or single-byte dtypes, C order only.
//
// readNpy(path) returns {descr, shape, data}, where data is a typed array
// over a copy of the payload (so it is aligned): Float32Array for '<f4',
// Uint16Array holding the raw bits for '<f2', BigInt64Array for '<i8',
// Uint8Array of 0/1 for '|b1', and so on.

import { readFileSync } from 'node:fs';

// descr -> [typed array constructor, item size]. numpy spells single-byte
// types with '|' and multi-byte ones with '<' on little-endian hosts.
const DESCRS = {
  '<f8': [Float64Array, 8], '<f4': [Float32Array, 4], '<f2': [Uint16Array, 2],
  '<i8': [BigInt64Array, 8], '<i4': [Int32Array, 4], '<i2': [Int16Array, 2], '|i1': [Int8Array, 1],
  '<u8': [BigUint64Array, 8], '<u4': [Uint32Array, 4], '<u2': [Uint16Array, 2], '|u1': [Uint8Array, 1],
  '|b1': [Uint8Array, 1],
};

const MAGIC = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]); // \x93NUMPY

// Parses the header dict, e.g. "{'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 4), }". numpy always writes these three keys in this form.
function parseHeader(text, where) {
  const descr = /'descr':\s*'([^']*)'/.exec(text);
  const fortran = /'fortran_order':\s*(True|False)/.exec(text);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(text);
  if (!descr || !fortran || !shape) throw new Error(`${where}: cannot parse npy header ${text.trim()}`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s !== '').map((s) => {
    if (!/^\d+L?$/.test(s)) throw new Error(`${where}: bad shape entry '${s}'`);
    return Number.parseInt(s, 10);
  });
  return { descr: descr[1], fortran: fortran[1] === 'True', shape: dims };
}

export function parseNpy(buf, where = 'npy') {
  if (buf.length < 10 || !buf.subarray(0, 6).equals(MAGIC)) throw new Error(`${where}: not an npy file`);
  const major = buf[6];
  let hlen, hstart;
  if (major === 1) {
    hlen = buf.readUInt16LE(8); hstart = 10;
  } else if (major === 2 || major === 3) {
    if (buf.length < 12) throw new Error(`${where}: truncated header`);
    hlen = buf.readUInt32LE(8); hstart = 12;
  } else {
    throw new Error(`${where}: npy format version ${major} is not supported`);
  }
  if (hstart + hlen > buf.length) throw new Error(`${where}: truncated header`);
  // Version 3 allows UTF-8 in the header (field names); 1 and 2 are latin1.
  const text = buf.toString(major === 3 ? 'utf8' : 'latin1', hstart, hstart + hlen);
  const h = parseHeader(text, where);
  if (h.fortran) throw new Error(`${where}: fortran_order arrays are not supported (save a C-contiguous copy)`);
  const kind = DESCRS[h.descr];
  if (!kind) throw new Error(`${where}: dtype '${h.descr}' is not supported`);
  const [Ctor, size] = kind;
  const numel = h.shape.reduce((a, b) => a * b, 1);
  const off = hstart + hlen;
  if (buf.length - off !== numel * size) {
    throw new Error(`${where}: ${buf.length - off} data bytes, expected ${numel * size} for shape [${h.shape}] ${h.descr}`);
  }
  // Copy so the typed array starts on an aligned offset.
  const bytes = new Uint8Array(numel * size);
  bytes.set(buf.subarray(off, off + numel * size));
  return { descr: h.descr, shape: h.shape, data: new Ctor(bytes.buffer, 0, numel) };
}

export function readNpy(path) {
  return parseNpy(readFileSync(path), path);
}

// Writes an npy version 1.0 file's bytes; used to make test data.
export function formatNpy(descr, shape, typed) {
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  // numpy pads with spaces so that the data starts on a multiple of 64.
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const pre = Buffer.alloc(10);
  MAGIC.copy(pre, 0);
  pre[6] = 1; pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const data = Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength);
  return Buffer.concat([pre, Buffer.from(header, 'latin1'), data]);
}
