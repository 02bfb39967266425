#!/usr/bin/env node
// probe.mjs: loads each one-node model probe_models.py wrote in
// onnxruntime-node (CPU) and prints, per model, whether the CPU provider has
// a kernel for it:
//
//   node test/legal/probe.mjs DIR    -> OP OPSET NPARAMS TYPE kernel|none|other
//
// "none" is onnxruntime's "Could not find an implementation" (no kernel for
// that type); "other" is any other refusal, which says nothing of kernels.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ort from 'onnxruntime-node';

const dir = process.argv[2];
const list = readFileSync(path.join(dir, 'list.tsv'), 'utf8').trim().split('\n');
for (const line of list) {
  const [file, op, opset, nparam, type] = line.split('\t');
  let verdict = 'kernel';
  try {
    await ort.InferenceSession.create(path.join(dir, file), { executionProviders: ['cpu'], logSeverityLevel: 4 });
  } catch (e) {
    verdict = /Could not find an implementation/.test(String(e)) ? 'none' : 'other';
  }
  console.log(`${op} ${opset} ${nparam} ${type} ${verdict}`);
}
