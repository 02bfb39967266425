// gen.mjs: writes the hand-made IODIRs (and the small dtypes model) that
// test/ort/selftest.sh feeds to run.mjs. The outputs are checked in; run
// `node test/ort/selftest/gen.mjs` again only after changing this file.
//
//   tiny_add/            passes on build/test/tiny_add.onnx (made by
//                        test/unit/test_onnxproto.c): Y = X + W, W = [[1.5], [-2]]
//   tiny_add_perturbed/  must fail on it: one value off by 1e-3, one wrong shape
//   tiny_add_big/        values beyond 10: off by 1e-5 of the value passes, more fails
//   tiny_add_tolerance/  the perturbed value under a manifest's stated "tolerance"
//   dtypes.onnx, dtypes/ float16, bfloat16, int64 and bool through onnxruntime

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { formatNpy } from '../npy.mjs';
import { ELEM, castNode, enc, tensorValueInfo } from '../onnxwire.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

function write(rel, bytes) {
  const p = path.join(here, rel);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, bytes);
}

const json = (o) => `${JSON.stringify(o, null, 1)}\n`;

// Writes an npy file under dir and returns its manifest entry.
function tensor(dir, file, dtype, descr, shape, typed) {
  write(path.join(dir, file), formatNpy(descr, shape, typed));
  return { file, dtype, shape };
}

// ---- tiny_add: the unit test's model ----

const W = [1.5, -2.0]; // test_onnxproto.c's W_VALUES, one per row
function addW(x, cols) {
  return Float32Array.from(x, (v, i) => v + W[Math.floor(i / cols)]);
}

{
  const x0 = Float32Array.from([1, 2, 3, 4, 5, 6]);
  const x1 = Float32Array.from([0.25, -0.75]);
  const f32 = (dir, file, shape, data) => tensor(dir, file, 'float32', '<f4', shape, data);
  write('tiny_add/manifest.json', json({
    torch: 'none (hand-made for test/ort/selftest.sh)',
    cases: [
      { name: 'case0', inputs: [f32('tiny_add', 'case0/in_0.npy', [2, 3], x0)],
        outputs: [f32('tiny_add', 'case0/out_0.npy', [2, 3], addW(x0, 3))] },
      { name: 'batch1', inputs: [f32('tiny_add', 'batch1/in_0.npy', [2, 1], x1)],
        outputs: [f32('tiny_add', 'batch1/out_0.npy', [2, 1], addW(x1, 1))] },
    ],
  }));

  const bad = addW(x0, 3);
  bad[5] += 1e-3;
  write('tiny_add_perturbed/manifest.json', json({
    torch: 'none (hand-made for test/ort/selftest.sh; every case must fail)',
    cases: [
      { name: 'value', inputs: [{ file: '../tiny_add/case0/in_0.npy', dtype: 'float32', shape: [2, 3] }],
        outputs: [f32('tiny_add_perturbed', 'value/out_0.npy', [2, 3], bad)] },
      { name: 'shape', inputs: [{ file: '../tiny_add/case0/in_0.npy', dtype: 'float32', shape: [2, 3] }],
        outputs: [f32('tiny_add_perturbed', 'shape/out_0.npy', [3, 2], addW(x0, 3))] },
    ],
  }));

  // Values beyond 10 may be off by 1e-5 of themselves: 0.005 on 1001.5 passes,
  // 0.02 fails.
  const xb = Float32Array.from([1000, 2, 3, -4000, 5, 6]);
  const near = addW(xb, 3), far = addW(xb, 3);
  near[0] += 5e-3;
  far[3] += 0.05;
  write('tiny_add_big/manifest.json', json({
    torch: 'none (hand-made for test/ort/selftest.sh; case near passes, case far fails)',
    cases: [
      { name: 'near', inputs: [f32('tiny_add_big', 'in_0.npy', [2, 3], xb)],
        outputs: [f32('tiny_add_big', 'near/out_0.npy', [2, 3], near)] },
      { name: 'far', inputs: [{ file: 'in_0.npy', dtype: 'float32', shape: [2, 3] }],
        outputs: [f32('tiny_add_big', 'far/out_0.npy', [2, 3], far)] },
    ],
  }));

  // A fixture's own stated bound: the perturbed value passes at atol 1e-2.
  write('tiny_add_tolerance/manifest.json', json({
    torch: 'none (hand-made for test/ort/selftest.sh)',
    tolerance: { atol: 1e-2, why: 'selftest of a stated per-fixture bound' },
    cases: [
      { name: 'value', inputs: [{ file: '../tiny_add/case0/in_0.npy', dtype: 'float32', shape: [2, 3] }],
        outputs: [{ file: '../tiny_add_perturbed/value/out_0.npy', dtype: 'float32', shape: [2, 3] }] },
    ],
  }));
}

// ---- dtypes: a model with float16, bfloat16, int64 and bool at its boundary ----

function node(op, inputs, outputs, extra = Buffer.alloc(0)) {
  return enc.bytes(1, Buffer.concat([...inputs.map((s) => enc.string(1, s)),
    ...outputs.map((s) => enc.string(2, s)), enc.string(3, outputs[0]), enc.string(4, op), extra]));
}
const shape = (dims) => Buffer.concat(dims.map((d) => enc.bytes(1, enc.varint(1, d))));
const io = (num, name, elem, dims) => enc.bytes(num, tensorValueInfo(name, elem, shape(dims)));

{
  const graph = Buffer.concat([
    node('Add', ['A', 'A'], ['A2']),
    enc.bytes(1, castNode('B', 'Bf', ELEM.FLOAT)),
    node('Add', ['Bf', 'Bf'], ['Bf2']),
    enc.bytes(1, castNode('Bf2', 'B2', ELEM.BFLOAT16)),
    node('Add', ['I', 'I'], ['I2']),
    node('Less', ['I', 'I2'], ['M']),
    enc.string(2, 'dtypes'),
    io(11, 'A', ELEM.FLOAT16, [4]), io(11, 'B', ELEM.BFLOAT16, [3]), io(11, 'I', ELEM.INT64, [3]),
    io(12, 'A2', ELEM.FLOAT16, [4]), io(12, 'B2', ELEM.BFLOAT16, [3]),
    io(12, 'I2', ELEM.INT64, [3]), io(12, 'M', ELEM.BOOL, [3]),
  ]);
  const opset = Buffer.concat([enc.string(1, ''), enc.varint(2, 18)]);
  write('dtypes.onnx', Buffer.concat([enc.varint(1, 8), enc.string(2, 'test/ort/selftest/gen.mjs'),
    enc.bytes(7, graph), enc.bytes(8, opset)]));

  // float16 bits: 0.5, -1.25, 1000, NaN -> 1, -2.5, 2000, NaN.
  // bfloat16 bits: 1.5, -3, 2^-7 -> 3, -6, 2^-6.
  const d = 'dtypes';
  write('dtypes/manifest.json', json({
    torch: 'none (hand-made for test/ort/selftest.sh)',
    cases: [{
      name: 'case0',
      inputs: [
        tensor(d, 'case0/in_0.npy', 'float16', '<f2', [4], Uint16Array.from([0x3800, 0xbd00, 0x63d0, 0x7e00])),
        tensor(d, 'case0/in_1.npy', 'bfloat16', '<u2', [3], Uint16Array.from([0x3fc0, 0xc040, 0x3c00])),
        tensor(d, 'case0/in_2.npy', 'int64', '<i8', [3], BigInt64Array.from([-2n, 0n, 7n])),
      ],
      outputs: [
        tensor(d, 'case0/out_0.npy', 'float16', '<f2', [4], Uint16Array.from([0x3c00, 0xc100, 0x67d0, 0x7e00])),
        tensor(d, 'case0/out_1.npy', 'bfloat16', '<u2', [3], Uint16Array.from([0x4040, 0xc0c0, 0x3c80])),
        tensor(d, 'case0/out_2.npy', 'int64', '<i8', [3], BigInt64Array.from([-4n, 0n, 14n])),
        tensor(d, 'case0/out_3.npy', 'bool', '|b1', [3], Uint8Array.from([0, 0, 1])),
      ],
    }],
  }));
}
