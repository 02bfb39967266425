#!/usr/bin/env node
// conformance.mjs: the figures of bench/conformance.sh from what it left.
//   node bench/conformance.mjs DATA UNPACKED
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

import { readBlob } from '../test/conformance/unpack.mjs';
import { fields } from '../test/ort/onnxwire.mjs';

const [dataDir, u] = process.argv.slice(2);
const rc = (f) => (existsSync(f) ? readFileSync(f, 'utf8').trim() : null);
const pct = (a, b) => (b ? `${(100 * a / b).toFixed(1)}%` : '-');

// Top-level nodes of a model's graph.
function nodes(file) {
  const graph = fields(readFileSync(file)).find((f) => f.num === 7);
  return graph ? fields(graph.value).filter((f) => f.num === 1).length : 0;
}

const all = [];  // {entry, id, family, stored, ours, dyn, dir}
let n = 0;
for (const f of readdirSync(dataDir).filter((x) => x.endsWith('.bin')).sort()) {
  const { head } = readBlob(path.join(dataDir, f));
  for (const s of head.samples) {
    const r = { entry: head.entry, id: s.id, family: head.family, stored: s.status === 'ok', why: s.reason ?? '' };
    if (r.stored) {
      const d = path.join(u, 's', String(n++));
      r.dir = d;
      r.ours = rc(`${d}/train18.onnx.rc`) === '0' && rc(`${d}/train18.onnx.ort.rc`) === '0';
      r.dyn = existsSync(`${d}/dynamo.onnx`) && rc(`${d}/dynamo.onnx.ort.rc`) === '0';
      r.dynWhy = s.dynamo_error ?? (existsSync(`${d}/dynamo.onnx`) ? 'mismatch or load failure' : '');
      r.oursWhy = rc(`${d}/train18.onnx.rc`) === '0' ? 'WRONG' : (readFileSync(`${d}/train18.onnx.err`, 'utf8').split('\n').find((l) => /Y[EW]\d{4}/.test(l)) ?? '').replace(/^.*?(Y[EW]\d{4})/, '$1').slice(0, 100);
    }
    all.push(r);
  }
}
const stored = all.filter((r) => r.stored);
const ours = stored.filter((r) => r.ours).length, dyn = stored.filter((r) => r.dyn).length;
console.log(`samples: ${all.length}, of which torch exported and saved ${stored.length}`);
console.log(`yobx-export converts and matches ${ours} (${pct(ours, stored.length)}); torch.onnx dynamo ${dyn} (${pct(dyn, stored.length)})`);
const gap = stored.filter((r) => r.dyn && !r.ours);
console.log(`\ndynamo converts and matches, yobx-export does not (${gap.length}):`);
for (const r of gap) console.log(`  ${r.entry} ${r.id}: ${r.oursWhy}`);
const fam = new Map();
for (const r of stored) {
  const x = fam.get(r.family) ?? { n: 0, ours: 0, dyn: 0 };
  x.n++, x.ours += r.ours, x.dyn += r.dyn;
  fam.set(r.family, x);
}
console.log('\nper op family: samples, yobx-export, dynamo');
for (const [k, x] of [...fam].sort()) console.log(`  ${k.padEnd(34)} ${String(x.n).padStart(5)} ${pct(x.ours, x.n).padStart(7)} ${pct(x.dyn, x.n).padStart(7)}`);
let both = 0, more = 0, less = 0, sumO = 0, sumD = 0;
const worse = [];
for (const r of stored.filter((x) => x.ours && x.dyn)) {
  const a = nodes(`${r.dir}/train18.onnx`), b = nodes(`${r.dir}/dynamo.onnx`);
  both++, sumO += a, sumD += b;
  if (a > b) more++, worse.push(`${r.entry} ${r.id}: ${a} vs ${b}`);
  if (a < b) less++;
}
console.log(`\nnode counts on the ${both} samples both match: yobx-export ${sumO}, dynamo ${sumD}; fewer nodes than dynamo in ${less}, more in ${more}:`);
for (const w of worse) console.log(`  ${w}`);
