#!/usr/bin/env node
// latency.mjs: the node half of bench/latency.sh: onnxruntime latency of two
// ONNX files of the same model (ours and torch.onnx dynamo's) on the same
// inputs, single-threaded, interleaved.
//
//   node bench/latency.mjs RUNS JOBS
//
// JOBS holds one job a line, tab separated: NAME<TAB>A.onnx<TAB>B.onnx<TAB>IODIR.
// For each job both models are opened with intraOpNumThreads 1,
// interOpNumThreads 1 and sequential execution (onnxruntime's default graph
// optimizations, as a user gets them), fed IODIR's case0 inputs by position,
// warmed up (10 runs each), then run RUNS times each, alternately A B, B A,
// A B ... so that a slow spell of the shared machine hits both alike.  Each
// run is timed alone (process.hrtime around session.run).  Prints one line
// per job: NAME, the median microseconds of A and of B, A/B, and the
// quartiles' ratio spread; a job that cannot run prints why.  The last line
// is the geometric mean of A/B over the jobs that ran.

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { readNpy } from '../test/ort/npy.mjs';
import { wrapBfloat16 } from '../test/ort/onnxwire.mjs';

const ORT_TYPE = {
  float32: 'float32', float64: 'float64', float16: 'float16', int64: 'int64', int32: 'int32',
  int16: 'int16', int8: 'int8', uint8: 'uint8', bool: 'bool',
};
const OPTS = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', logSeverityLevel: 3 };
const WARMUP = 10;

function median(a) {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function quantile(a, q) {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

function feeds(ort, session, inputs) {
  if (session.inputNames.length !== inputs.length) {
    throw new Error(`${session.inputNames.length} inputs, the case has ${inputs.length}`);
  }
  const f = {};
  session.inputNames.forEach((n, i) => { f[n] = inputs[i]; });
  return f;
}

// bfloat16 bits -> the same values as float32 (what a wrapped model takes).
function bf16ToFloat32(bits) {
  const u = new Uint32Array(bits.length);
  for (let i = 0; i < bits.length; i++) u[i] = bits[i] << 16;
  return new Float32Array(u.buffer);
}

// onnxruntime-node will not open a model with bfloat16 inputs or outputs:
// then its copy with those wrapped to float32 (test/ort/onnxwire.mjs), as
// test/ort/run.mjs does; the Casts it adds are the same for both models.
async function open(ort, file) {
  try {
    return await ort.InferenceSession.create(file, OPTS);
  } catch (e) {
    const wrapped = wrapBfloat16(readFileSync(file));
    if (!wrapped) throw e;
    const folder = path.dirname(path.resolve(file));
    return ort.InferenceSession.create(wrapped, { ...OPTS, extra: { session: { model_external_initializers_file_folder_path: folder } } });
  }
}

async function timeOnce(session, feed) {
  const t0 = process.hrtime.bigint();
  await session.run(feed);
  return Number(process.hrtime.bigint() - t0) / 1000;
}

async function job(ort, runs, name, a, b, iodir) {
  const m = JSON.parse(readFileSync(path.join(iodir, 'manifest.json'), 'utf8'));
  const c = m.cases[0];
  const inputs = c.inputs.map((t) => {
    const x = readNpy(path.join(iodir, t.file));
    if (t.dtype === 'bfloat16') return new ort.Tensor('float32', bf16ToFloat32(x.data), x.shape);
    if (!ORT_TYPE[t.dtype]) throw new Error(`input dtype ${t.dtype} not fed here`);
    return new ort.Tensor(ORT_TYPE[t.dtype], x.data, x.shape);
  });
  const who = async (file, label) => {
    try {
      return await open(ort, file);
    } catch (e) {
      throw new Error(`${label} does not load: ${e.message}`);
    }
  };
  const sa = await who(a, 'ours'), sb = await who(b, 'dynamo\'s');
  const fa = feeds(ort, sa, inputs), fb = feeds(ort, sb, inputs);
  for (let i = 0; i < WARMUP; i++) {
    await sa.run(fa);
    await sb.run(fb);
  }
  const ta = [], tb = [];
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      ta.push(await timeOnce(sa, fa));
      tb.push(await timeOnce(sb, fb));
    } else {
      tb.push(await timeOnce(sb, fb));
      ta.push(await timeOnce(sa, fa));
    }
  }
  await sa.release();
  await sb.release();
  return { ma: median(ta), mb: median(tb), lo: quantile(ta, 0.25) / quantile(tb, 0.25),
           hi: quantile(ta, 0.75) / quantile(tb, 0.75) };
}

async function main() {
  const [runsArg, jobsFile] = process.argv.slice(2);
  const runs = Number(runsArg);
  if (!(runs > 0) || !jobsFile) {
    console.error('usage: node bench/latency.mjs RUNS JOBS');
    process.exit(2);
  }
  const ort = await import('onnxruntime-node');
  const lines = readFileSync(jobsFile, 'utf8').split('\n').filter((l) => l.trim());
  let logsum = 0, n = 0;
  console.log(`${'fixture'.padEnd(32)} ${'ours us'.padStart(10)} ${'dynamo us'.padStart(10)} ${'ratio'.padStart(6)}  q1..q3 ratio`);
  for (const l of lines) {
    const [name, a, b, iodir] = l.split('\t');
    try {
      const r = await job(ort, runs, name, a, b, iodir);
      const ratio = r.ma / r.mb;
      logsum += Math.log(ratio);
      n++;
      console.log(`${name.padEnd(32)} ${r.ma.toFixed(1).padStart(10)} ${r.mb.toFixed(1).padStart(10)} ${ratio.toFixed(3).padStart(6)}  ${r.lo.toFixed(2)}..${r.hi.toFixed(2)}`);
    } catch (e) {
      console.log(`${name.padEnd(32)} ${'-'.padStart(10)} ${'-'.padStart(10)} ${'-'.padStart(6)}  ${String(e.message).split('\n')[0].slice(0, 120)}`);
    }
  }
  if (n) console.log(`${'geometric mean'.padEnd(32)} ${''.padStart(10)} ${''.padStart(10)} ${Math.exp(logsum / n).toFixed(3).padStart(6)}  (${n} fixtures, ${runs} runs each)`);
}

main();
