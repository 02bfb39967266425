#!/usr/bin/env node
// llm.mjs: the node half of bench/llm.sh: correctness, session creation and
// latency of several ONNX exports of one Llama (bench/make_llm.py), in
// onnxruntime-node, one thread (intra and inter op), sequential execution,
// onnxruntime's default graph optimizations (as a user gets them).
//
//   node bench/llm.mjs RUNS DIR JOBS
//
// DIR is bench/out/llm/SIZE (its cases/manifest.json holds the cases and
// torch's outputs).  JOBS holds one variant a line, tab separated:
//   LABEL<TAB>PREFILL.onnx<TAB>DECODE.onnx<TAB>STYLE
// STYLE `pt2`: the inputs of the exported program by position (input_ids,
// attention_mask, position_ids, the past keys and values of each layer in
// turn), outputs likewise (logits, present keys and values).  STYLE
// `builder`: onnxruntime-genai's single model, fed by name (input_ids,
// attention_mask, past_key_values.L.key/value, an empty past for the
// prefill; it takes no position_ids, it derives them from the mask).  The
// first variant is the baseline of every ratio.
//
// Prints, per variant: the max abs error against torch over the valid
// positions (logits at unmasked queries, the cache at unmasked keys; NaN
// counts as infinite) of each case (prefill and decode: batch 1, batch 2
// left-padded, batch 2 right-padded: a hole in the decode cache); the
// median session-creation time (the decode model, interleaved rounds); and
// the median latency of the prefill (batch 1, 64 tokens) and of one decode
// step (batch 1, 64 cached), each as the median of per-round ratios to the
// baseline: a round runs every variant once, in an order rotating from
// round to round, so a slow spell of the shared machine hits all alike.

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { readNpy } from '../test/ort/npy.mjs';

const OPTS = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', logSeverityLevel: 3 };
const WARMUP = 5;
const CREATE_ROUNDS = 5;

function median(a) {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function tensor(ort, dir, t) {
  const x = readNpy(path.join(dir, t.file));
  return new ort.Tensor(t.dtype === 'int64' ? 'int64' : 'float32', x.data, x.shape);
}

// The feeds of a case for one variant, and the order its outputs are read in
// (ours: [logits, k0, v0, k1, v1, ..]).
function feeds(ort, v, session, man, dir, c, kind) {
  const ins = c.inputs.map((t) => tensor(ort, dir, t));
  const L = man.layers;
  if (v.style === 'pt2') {
    const f = {};
    session.inputNames.forEach((n, i) => { f[n] = ins[i]; });
    return { f, outs: session.outputNames };
  }
  const f = { input_ids: ins[0], attention_mask: ins[1] };
  const b = ins[0].dims[0];
  for (let l = 0; l < L; l++) {
    for (const [j, kv] of [[0, 'key'], [1, 'value']]) {
      f[`past_key_values.${l}.${kv}`] = kind === 'prefill'
        ? new ort.Tensor('float32', new Float32Array(0), [b, man.kv_heads, 0, man.head_dim])
        : ins[3 + 2 * l + j];
    }
  }
  if (session.inputNames.includes('position_ids')) f.position_ids = ins[2];
  const outs = ['logits'];
  for (let l = 0; l < L; l++) outs.push(`present.${l}.key`, `present.${l}.value`);
  return { f, outs };
}

// max |a - b| over the valid positions: dim `axis` (the sequence) indexed by
// mask[batch][pos] (the mask of the output's positions).
function maxErr(got, want, shape, axis, mask) {
  let inner = 1;
  for (let d = axis + 1; d < shape.length; d++) inner *= shape[d];
  const len = shape[axis];
  let mid = 1;
  for (let d = 1; d < axis; d++) mid *= shape[d];
  let e = 0;
  for (let bi = 0; bi < shape[0]; bi++) {
    for (let m = 0; m < mid; m++) {
      for (let p = 0; p < len; p++) {
        if (!mask[bi][p]) continue;
        const o = ((bi * mid + m) * len + p) * inner;
        for (let k = 0; k < inner; k++) {
          const d = Math.abs(got[o + k] - want[o + k]);
          if (!(d <= e)) e = Number.isNaN(d) ? Infinity : d;
        }
      }
    }
  }
  return e;
}

async function check(ort, v, session, man, dir, c, kind) {
  const { f, outs } = feeds(ort, v, session, man, dir, c, kind);
  const r = await session.run(f);
  let e = 0;
  c.outputs.forEach((t, i) => {
    const want = readNpy(path.join(dir, t.file));
    const got = r[outs[i]];
    if (!got || got.dims.join() !== want.shape.join()) {
      e = Infinity;
      return;
    }
    const mask = i === 0 ? c.qmask : c.kvmask;
    e = Math.max(e, maxErr(got.data, want.data, want.shape, i === 0 ? 1 : 2, mask));
  });
  return e;
}

async function timeRun(session, f) {
  const t0 = process.hrtime.bigint();
  await session.run(f);
  return Number(process.hrtime.bigint() - t0) / 1000;
}

// Latency of one phase: every variant's session of that phase open at once.
async function latency(ort, vs, man, dir, kind, runs) {
  const c = man.cases.find((x) => x.name === `lat_${kind}`);
  const ss = [];
  for (const v of vs) {
    const s = await ort.InferenceSession.create(v[kind], OPTS);
    ss.push({ s, f: feeds(ort, v, s, man, dir, c, kind).f });
  }
  for (let i = 0; i < WARMUP; i++) for (const x of ss) await x.s.run(x.f);
  const t = vs.map(() => []);
  for (let r = 0; r < runs; r++) {
    for (let k = 0; k < ss.length; k++) {
      const j = (k + r) % ss.length;
      t[j].push(await timeRun(ss[j].s, ss[j].f));
    }
  }
  for (const x of ss) await x.s.release();
  return vs.map((_, j) => ({ us: median(t[j]), ratio: median(t[j].map((x, r) => x / t[0][r])) }));
}

async function creation(ort, vs) {
  const t = vs.map(() => []);
  for (let r = 0; r < CREATE_ROUNDS; r++) {
    for (let k = 0; k < vs.length; k++) {
      const j = (k + r) % vs.length;
      const t0 = process.hrtime.bigint();
      const s = await ort.InferenceSession.create(vs[j].decode, OPTS);
      t[j].push(Number(process.hrtime.bigint() - t0) / 1e6);
      await s.release();
    }
  }
  return vs.map((_, j) => ({ ms: median(t[j]), ratio: median(t[j].map((x, r) => x / t[0][r])) }));
}

async function main() {
  const [runsArg, dir, jobs] = process.argv.slice(2);
  const runs = Number(runsArg);
  const ort = await import('onnxruntime-node');
  const cdir = path.join(dir, 'cases');
  const man = JSON.parse(readFileSync(path.join(cdir, 'manifest.json'), 'utf8'));
  const vs = readFileSync(jobs, 'utf8').split('\n').filter((l) => l.trim()).map((l) => {
    const [label, prefill, decode, style] = l.split('\t');
    return { label, prefill, decode, style };
  });
  const names = man.cases.filter((c) => !c.name.startsWith('lat_')).map((c) => c.name);
  console.log(`# ${man.size}: ${man.layers} layers; max abs error vs torch per case; ` +
    `creation (decode model) and latency: medians, ratio = median of per-round ratios to ${vs[0].label}`);
  console.log(['variant', ...names.map((n) => n.replace('prefill', 'pre').replace('decode', 'dec'))].join('\t'));
  const ok = [];
  for (const v of vs) {
    const errs = [];
    for (const kind of ['prefill', 'decode']) {
      let s;
      try {
        s = await ort.InferenceSession.create(v[kind], OPTS);
      } catch (e) {
        errs.push(...names.filter((n) => n.startsWith(kind)).map(() => 'noload'));
        console.error(`${v.label} ${kind}: ${e.message.split('\n')[0]}`);
        continue;
      }
      for (const c of man.cases.filter((x) => x.kind === kind && !x.name.startsWith('lat_'))) {
        try {
          errs.push((await check(ort, v, s, man, cdir, c, kind)).toExponential(1));
        } catch (e) {
          errs.push('fail');
          console.error(`${v.label} ${c.name}: ${e.message.split('\n')[0]}`);
        }
      }
      await s.release();
    }
    console.log([v.label, ...errs].join('\t'));
    if (!errs.some((x) => x === 'noload')) ok.push(v);
  }
  const cr = await creation(ort, ok);
  const pre = await latency(ort, ok, man, cdir, 'prefill', runs);
  const dec = await latency(ort, ok, man, cdir, 'decode', runs);
  console.log(['variant', 'create_ms', 'create_x', 'prefill_us', 'prefill_x', 'decode_us', 'decode_x'].join('\t'));
  ok.forEach((v, j) => {
    console.log([v.label, cr[j].ms.toFixed(1), cr[j].ratio.toFixed(3), pre[j].us.toFixed(0), pre[j].ratio.toFixed(3),
      dec[j].us.toFixed(0), dec[j].ratio.toFixed(3)].join('\t'));
  });
}

main().catch((e) => { console.error(e); process.exit(1); });
