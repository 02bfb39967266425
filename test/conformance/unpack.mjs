#!/usr/bin/env node
// unpack.mjs: the stored conformance suite (test/conformance/data/*.bin, made
// by make_suite.py) as files test/ort/run.mjs and yobx-export take.
//
//   node test/conformance/unpack.mjs DATA OUT [OPSET ...]
//
// For every stored sample it writes OUT/s/N/train.txt (and core.txt when the
// core ATen graph differs), OUT/s/N/io/ (manifest.json, in_K.npy, out_K.npy)
// and, with --jit data, OUT/s/N/model.pt (--dynamo: dynamo.onnx); then OUT/convert.list, one
// conversion a line: KEY<TAB>GRAPH<TAB>OPSET<TAB>ONNX<TAB>IODIR, KEY being
// "ENTRY SAMPLE IR OPSET" (IR: train or core); and OUT/samples.list, one
// stored sample a line: ENTRY SAMPLE FAMILY HAS_CORE (1 or 0).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { inflateSync } from 'node:zlib';

import { formatNpy } from '../ort/npy.mjs';

const DESCR = {
  float32: ['<f4', Float32Array], float64: ['<f8', Float64Array], float16: ['<f2', Uint16Array],
  bfloat16: ['<u2', Uint16Array], int64: ['<i8', BigInt64Array], int32: ['<i4', Int32Array],
  int16: ['<i2', Int16Array], int8: ['|i1', Int8Array], uint8: ['|u1', Uint8Array],
  bool: ['|b1', Uint8Array], uint16: ['<u2', Uint16Array], uint32: ['<u4', Uint32Array],
  uint64: ['<u8', BigUint64Array],
};

export function readBlob(file) {
  const raw = inflateSync(readFileSync(file));
  if (raw.subarray(0, 8).toString('latin1') !== 'YXCONF1\n') throw new Error(`${file}: not a conformance blob`);
  const n = raw.readUInt32LE(8);
  return { head: JSON.parse(raw.subarray(12, 12 + n).toString('utf8')), data: raw.subarray(12 + n) };
}

function npy(t, data) {
  const [descr, Ctor] = DESCR[t.dtype];
  const bytes = new Uint8Array(t.len);
  bytes.set(data.subarray(t.at, t.at + t.len));
  return formatNpy(descr, t.shape, new Ctor(bytes.buffer, 0, t.len / Ctor.BYTES_PER_ELEMENT));
}

function main() {
  const [dataDir, out, ...opsets] = process.argv.slice(2);
  if (!dataDir || !out) {
    console.error('usage: node test/conformance/unpack.mjs DATA OUT [OPSET ...]');
    return 2;
  }
  const conv = [], list = [];
  let n = 0;
  for (const f of readdirSync(dataDir).filter((x) => x.endsWith('.bin')).sort()) {
    const { head, data } = readBlob(path.join(dataDir, f));
    for (const s of head.samples) {
      if (s.status !== 'ok') continue;
      const dir = path.join(out, 's', String(n++));
      mkdirSync(path.join(dir, 'io'), { recursive: true });
      const manifest = { cases: [{ name: `${head.entry} ${s.id}`, inputs: [], outputs: [] }] };
      for (const k of ['inputs', 'outputs']) {
        s[k].forEach((t, i) => {
          const file = `${k === 'inputs' ? 'in' : 'out'}_${i}.npy`;
          writeFileSync(path.join(dir, 'io', file), npy(t, data));
          manifest.cases[0][k].push({ file, dtype: t.dtype, shape: t.shape });
        });
      }
      writeFileSync(path.join(dir, 'io', 'manifest.json'), JSON.stringify(manifest));
      const irs = [['train', s.train]];
      if (s.core) irs.push(['core', s.core]);
      for (const [ir, text] of irs) {
        writeFileSync(path.join(dir, `${ir}.txt`), text);
        for (const o of opsets) {
          conv.push([`${head.entry} ${s.id} ${ir} ${o}`, path.join(dir, `${ir}.txt`), path.join(out, `o${o}.yaml`),
            path.join(dir, `${ir}${o}.onnx`), path.join(dir, 'io')].join('\t'));
        }
      }
      if (s.jit) {
        writeFileSync(path.join(dir, 'model.pt'), data.subarray(s.jit[0], s.jit[0] + s.jit[1]));
        const inputs = s.inputs.map((t) => `  - {dtype: ${t.dtype}, shape: [${t.shape.join(', ')}]}\n`).join('');
        for (const o of opsets) {
          writeFileSync(path.join(dir, `jit${o}.yaml`), `opset: ${o}\nreport: false\ninputs:${inputs ? `\n${inputs}` : ' []\n'}`);
          conv.push([`${head.entry} ${s.id} jit ${o}`, path.join(dir, 'model.pt'), path.join(dir, `jit${o}.yaml`),
            path.join(dir, `jit${o}.onnx`), path.join(dir, 'io')].join('\t'));
        }
      }
      if (s.dynamo) writeFileSync(path.join(dir, 'dynamo.onnx'), data.subarray(s.dynamo[0], s.dynamo[0] + s.dynamo[1]));
      list.push(`${head.entry} ${s.id} ${head.family}`);
    }
  }
  for (const o of opsets) writeFileSync(path.join(out, `o${o}.yaml`), `opset: ${o}\nreport: false\n`);
  writeFileSync(path.join(out, 'convert.list'), conv.join('\n') + (conv.length ? '\n' : ''));
  writeFileSync(path.join(out, 'samples.list'), list.join('\n') + (list.length ? '\n' : ''));
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('unpack.mjs')) {
  process.exitCode = main();
}
