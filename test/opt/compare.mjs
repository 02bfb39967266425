#!/usr/bin/env node
// compare.mjs: runs pairs of ONNX models (before and after the optimizer)
// in onnxruntime on the same inputs and checks they agree.
//
//   node test/opt/compare.mjs MANIFEST.json
//
// MANIFEST lists cases, paths relative to the manifest's folder:
//   {"cases": [{"name": "CastCast-1", "before": "CastCast-1-before.onnx",
//     "after": "CastCast-1-after.onnx", "atol": 1e-4, "rtol": 1e-4,
//     "inputs": [{"name": "x", "file": "CastCast-1/in_0.npy"}]}]}
// Inputs are fed by name.  Outputs are compared by name: same dtype, same
// shape, values within atol + rtol * |before| (NaN matches NaN), integers
// and bools exactly.  Prints one line per case and "opt-ort: N passed, N
// failed"; exits 1 when a case fails, 2 on a usage error.

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { readNpy } from '../ort/npy.mjs';

const ORT_TYPE = {
  '<f4': 'float32', '<f8': 'float64', '<f2': 'float16', '<i8': 'int64', '<i4': 'int32',
  '|i1': 'int8', '|u1': 'uint8', '|b1': 'bool',
};

function fail(msg) {
  console.error(`compare.mjs: ${msg}`);
  process.exit(2);
}

function num(v) {
  return typeof v === 'bigint' ? Number(v) : Number(v);
}

function compare(a, b, atol, rtol) {
  if (a.type !== b.type) return `dtype ${b.type}, before ${a.type}`;
  if (a.dims.join(',') !== b.dims.join(',')) return `shape [${b.dims}], before [${a.dims}]`;
  const exact = !a.type.startsWith('float');
  let worst = 0;
  for (let i = 0; i < a.data.length; i++) {
    const x = num(a.data[i]), y = num(b.data[i]);
    if (Number.isNaN(x) && Number.isNaN(y)) continue;
    if (exact) {
      if (a.data[i] !== b.data[i]) return `element ${i}: ${b.data[i]}, before ${a.data[i]}`;
      continue;
    }
    if (x === y) continue;
    const err = Math.abs(x - y);
    if (!(err <= atol + rtol * Math.abs(x))) return `element ${i}: ${y}, before ${x} (err ${err})`;
    worst = Math.max(worst, err);
  }
  return worst;
}

async function main() {
  const file = process.argv[2];
  if (!file) fail('usage: node test/opt/compare.mjs MANIFEST.json');
  let ort;
  try {
    ort = await import('onnxruntime-node');
  } catch {
    fail('onnxruntime-node is not installed (npm ci --ignore-scripts at the repo root)');
  }
  const dir = path.dirname(file);
  const manifest = JSON.parse(readFileSync(file, 'utf8'));
  let pass = 0, failed = 0;
  const opts = { logSeverityLevel: 3, graphOptimizationLevel: 'disabled' };
  for (const c of manifest.cases) {
    try {
      const feeds = {};
      for (const inp of c.inputs) {
        const t = readNpy(path.join(dir, inp.file));
        feeds[inp.name] = new ort.Tensor(ORT_TYPE[t.descr], t.data, t.shape);
      }
      const s0 = await ort.InferenceSession.create(path.join(dir, c.before), opts);
      const s1 = await ort.InferenceSession.create(path.join(dir, c.after), opts);
      const r0 = await s0.run(feeds), r1 = await s1.run(feeds);
      let worst = 0, bad = null;
      for (const name of s0.outputNames) {
        if (!(name in r1)) {
          bad = `output '${name}' is missing after`;
          break;
        }
        const res = compare(r0[name], r1[name], c.atol ?? 1e-4, c.rtol ?? 1e-4);
        if (typeof res === 'string') {
          bad = `output '${name}': ${res}`;
          break;
        }
        worst = Math.max(worst, res);
      }
      if (bad) {
        failed++;
        console.log(`FAIL ${c.name}: ${bad}`);
      } else {
        pass++;
        console.log(`${c.name}: ok (max abs err ${worst.toExponential(1)})`);
      }
    } catch (e) {
      failed++;
      console.log(`FAIL ${c.name}: ${e.message.split('\n')[0]}`);
    }
  }
  console.log(`opt-ort: ${pass} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main();
