#!/usr/bin/env node
// run.mjs: runs an ONNX model under onnxruntime on reference inputs and
// compares its outputs with reference outputs (made by torch).
//
//   node test/ort/run.mjs MODEL.onnx [MORE.onnx ...] IODIR [--atol 1e-4] [--atol16 1e-2]
//   node test/ort/run.mjs --print-io MODEL.onnx
//   node test/ort/run.mjs --batch JOBS [--atol 1e-4] [--atol16 1e-2]
//
// IODIR/manifest.json lists cases; each has the inputs, fed by position
// (session.inputNames[i] gets inputs[i]), and the expected outputs, compared
// by position, as .npy files with paths relative to IODIR:
//
//   {"torch": "2.6.0", "cases": [{"name": "case0",
//     "inputs":  [{"file": "case0/in_0.npy",  "dtype": "float32", "shape": [2, 4]}],
//     "outputs": [{"file": "case0/out_0.npy", "dtype": "float32", "shape": [2, 4]}]}]}
//
// A case passes when every output has the expected dtype and exact shape and
// its values match: float32/float64 within --atol, float16/bfloat16 within
// --atol16 (absolute error; NaN matches NaN, an infinity only itself), and
// integers and bools exactly. dtype "bfloat16" means the .npy holds the
// uint16 bit patterns. A reference value beyond 10 in magnitude may also be
// off by 1e-5 of itself (float32/float64; float rounding grows with it).
// A fixture whose ONNX op is itself approximate states its own looser bound
// in its manifest, with the reason: "tolerance": {"atol": 1e-3, "atol16":
// 5e-2, "why": "..."} (either key; it replaces that bound for this
// fixture's cases).
//
// Prints one line per case and a closing "ort: N passed, N failed" line.
// Further models (the same conversion made another way, e.g. unoptimized)
// run on the same cases in the same process; their lines start with the
// model's file name, and their cases count in the closing line.
// Exit status: 0 all cases pass, 1 some case failed, 2 usage error, bad
// IODIR, or a model onnxruntime will not load.
//
// --batch runs many such checks in one process, so onnxruntime loads once
// (starting node and loading it costs more than running most fixtures).
// JOBS holds one job a line, its fields separated by tabs:
//
//   OUT<TAB>MODEL.onnx[<TAB>MORE.onnx ...]<TAB>IODIR
//
// A job writes exactly what the standalone run would print (stdout and
// stderr, in order) into OUT, and its exit status (0, 1 or 2 as above) into
// OUT.rc. A job whose OUT exists is skipped: a job is claimed by creating OUT
// (O_EXCL), so several --batch processes given the same JOBS share the work,
// each taking the next unclaimed job. A job whose OUT.rc is missing afterwards
// never finished (its process died): the caller must count it as failed.
// The batch process itself exits 0 once every job is done or claimed, 2 when
// JOBS cannot be read.

import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';

import { readNpy } from './npy.mjs';
import { ELEM, graphIo, wrapBfloat16 } from './onnxwire.mjs';

const USAGE = `usage: node test/ort/run.mjs MODEL.onnx [MORE.onnx ...] IODIR [--atol 1e-4] [--atol16 1e-2]
       node test/ort/run.mjs --print-io MODEL.onnx
       node test/ort/run.mjs --batch JOBS [--atol 1e-4] [--atol16 1e-2]`;

// Manifest dtype -> npy descr, onnxruntime-node tensor type, ONNX elem type,
// and which tolerance applies ('atol', 'atol16', or null for exact).
// bfloat16 has no onnxruntime-node tensor type: it crosses as float32 (see
// onnxwire.mjs).
const DTYPES = {
  float32: { descr: '<f4', ort: 'float32', elem: ELEM.FLOAT, tol: 'atol' },
  float64: { descr: '<f8', ort: 'float64', elem: ELEM.DOUBLE, tol: 'atol' },
  float16: { descr: '<f2', ort: 'float16', elem: ELEM.FLOAT16, tol: 'atol16' },
  bfloat16: { descr: '<u2', ort: 'float32', elem: ELEM.BFLOAT16, tol: 'atol16' },
  int64: { descr: '<i8', ort: 'int64', elem: ELEM.INT64, tol: null },
  int32: { descr: '<i4', ort: 'int32', elem: ELEM.INT32, tol: null },
  int16: { descr: '<i2', ort: 'int16', elem: ELEM.INT16, tol: null },
  int8: { descr: '|i1', ort: 'int8', elem: ELEM.INT8, tol: null },
  uint64: { descr: '<u8', ort: 'uint64', elem: ELEM.UINT64, tol: null },
  uint32: { descr: '<u4', ort: 'uint32', elem: ELEM.UINT32, tol: null },
  uint16: { descr: '<u2', ort: 'uint16', elem: ELEM.UINT16, tol: null },
  uint8: { descr: '|u1', ort: 'uint8', elem: ELEM.UINT8, tol: null },
  bool: { descr: '|b1', ort: 'bool', elem: ELEM.BOOL, tol: null },
};

// A usage or input-data problem: exit 2.
class UsageError extends Error {}
// A problem that fails one case only.
class CaseFailure extends Error {}

function parseArgs(argv) {
  const a = { atol: 1e-4, atol16: 1e-2, printIo: false, batch: null, pos: [] };
  for (let i = 0; i < argv.length; i++) {
    const s = argv[i];
    if (s === '--print-io') {
      a.printIo = true;
    } else if (s === '--batch') {
      if (argv[i + 1] === undefined) throw new UsageError('--batch needs a JOBS file');
      a.batch = argv[++i];
    } else if (s === '--atol' || s === '--atol16') {
      const v = Number(argv[++i]);
      if (!(v >= 0)) throw new UsageError(`${s} needs a number >= 0, got '${argv[i] ?? ''}'`);
      a[s.slice(2)] = v;
    } else if (s === '-h' || s === '--help') {
      console.log(USAGE);
      process.exit(0);
    } else if (s.startsWith('-')) {
      throw new UsageError(`unknown option '${s}'`);
    } else {
      a.pos.push(s);
    }
  }
  if (a.batch !== null ? a.printIo || a.pos.length : a.printIo ? a.pos.length !== 1 : a.pos.length < 2) {
    throw new UsageError('wrong number of arguments');
  }
  return a;
}

// ---- numbers ----

// float16 bits -> number.
function halfToNumber(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

// bfloat16 bits (Uint16Array) -> the same values as a Float32Array.
function bf16ToFloat32(bits) {
  const u = new Uint32Array(bits.length);
  for (let i = 0; i < bits.length; i++) u[i] = bits[i] << 16;
  return new Float32Array(u.buffer);
}

// Formats like C's %.1e ("3.1e-07"), so error columns line up.
function fmtErr(x) {
  if (!Number.isFinite(x)) return String(x);
  const [m, e] = x.toExponential(1).split('e');
  const n = Number(e);
  return `${m}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
}

// Shortest decimal that reads back as the same float32 (float16 and
// bfloat16 values are float32 values too); float64 and ints print as is.
function fmtVal(v, dtype) {
  if (typeof v !== 'number' || dtype === 'float64' || !Number.isFinite(v)) return String(v);
  for (let p = 1; p < 9; p++) {
    const t = Number(v.toPrecision(p));
    if (Math.fround(t) === v) return String(t);
  }
  return String(v);
}

const fmtShape = (s) => `[${s.join(',')}]`;

function unravel(i, shape) {
  const idx = [];
  for (let d = shape.length - 1; d >= 0; d--) {
    idx.unshift(i % shape[d]);
    i = Math.floor(i / shape[d]);
  }
  return fmtShape(idx);
}

// ---- IODIR ----

function loadManifest(iodir) {
  const file = path.join(iodir, 'manifest.json');
  let m;
  try {
    m = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`${file}: ${e.message}`);
  }
  if (!m || !Array.isArray(m.cases)) throw new UsageError(`${file}: no "cases" list`);
  if (m.tolerance !== undefined) {
    const t = m.tolerance, keys = Object.keys(t ?? {});
    const bad = keys.filter((k) => k !== 'why' && !((k === 'atol' || k === 'atol16') && typeof t[k] === 'number' && t[k] >= 0));
    if (!keys.length || bad.length || typeof t.why !== 'string' || !t.why) {
      throw new UsageError(`${file}: "tolerance" wants {"atol" and/or "atol16": number >= 0, "why": "reason"}`);
    }
    m.tolerance = { ...t };
    delete m.tolerance.why;
  }
  m.cases.forEach((c, i) => {
    const where = `${file}: case ${i}`;
    if (typeof c.name !== 'string') throw new UsageError(`${where}: no "name"`);
    for (const k of ['inputs', 'outputs']) {
      if (!Array.isArray(c[k])) throw new UsageError(`${where} '${c.name}': no "${k}" list`);
      for (const t of c[k]) {
        if (typeof t.file !== 'string') throw new UsageError(`${where} '${c.name}': ${k} entry without "file"`);
        if (!DTYPES[t.dtype]) {
          throw new UsageError(`${where} '${c.name}': ${t.file}: unknown dtype '${t.dtype}' (known: ${Object.keys(DTYPES).join(' ')})`);
        }
      }
    }
  });
  return m;
}

// Reads one manifest tensor entry and checks the file agrees with it.
function loadTensor(iodir, t) {
  const file = path.join(iodir, t.file);
  let a;
  try {
    a = readNpy(file);
  } catch (e) {
    throw new UsageError(e.message);
  }
  const want = DTYPES[t.dtype].descr;
  if (a.descr !== want) throw new UsageError(`${file}: npy dtype '${a.descr}', manifest says ${t.dtype} ('${want}')`);
  if (Array.isArray(t.shape) && fmtShape(t.shape) !== fmtShape(a.shape)) {
    throw new UsageError(`${file}: npy shape ${fmtShape(a.shape)}, manifest says ${fmtShape(t.shape)}`);
  }
  return { dtype: t.dtype, shape: a.shape, data: a.data, file: t.file };
}

// ---- session ----

const SESSION_OPTIONS = { logSeverityLevel: 3 };

// Opens the model. onnxruntime-node 1.30 refuses to open a model whose
// graph inputs or outputs are bfloat16 ("Unsupported data type: 16"): then
// open a copy with those wrapped to float32 (see onnxwire.mjs). Returns
// {session, io}, io being the original graph's inputs and outputs as read
// from the file, or null when the file was opened as it is.
async function openModel(ort, model) {
  let firstError;
  try {
    return { session: await ort.InferenceSession.create(model, SESSION_OPTIONS), io: null };
  } catch (e) {
    firstError = e;
  }
  let bytes, io, wrapped = null;
  try {
    bytes = readFileSync(model);
    io = graphIo(bytes);
    wrapped = wrapBfloat16(bytes);
  } catch {
    // Not readable or not parseable: onnxruntime's own message says more.
  }
  if (!wrapped) throw new UsageError(`${model}: onnxruntime cannot load it: ${firstError.message}`);
  // A model loaded from memory has no folder, so external data paths,
  // relative to the model file, need the folder passed as a config entry.
  const folder = path.dirname(path.resolve(model));
  const opts = { ...SESSION_OPTIONS, extra: { session: { model_external_initializers_file_folder_path: folder } } };
  try {
    return { session: await ort.InferenceSession.create(wrapped, opts), io };
  } catch (e) {
    throw new UsageError(`${model}: onnxruntime cannot load it (${firstError.message}), nor its copy with bfloat16 inputs/outputs wrapped to float32: ${e.message}`);
  }
}

function printIo(session, io) {
  const show = (title, names, meta, vis) => {
    console.log(`${title}:`);
    names.forEach((n, i) => {
      const m = meta?.[i];
      let type = m ? (m.isTensor ? m.type : 'non-tensor') : '?';
      let shape = m?.isTensor ? fmtShape(m.shape.map((d) => (d === undefined || d === null ? '?' : d))) : '';
      if (vis && vis[i] && vis[i].elemType === ELEM.BFLOAT16) {
        type = 'bfloat16 (fed/read as float32)';
        shape = vis[i].shape ? fmtShape(vis[i].shape.map((d) => d ?? '?')) : shape;
      }
      console.log(`  ${i} ${vis?.[i]?.name ?? n} ${type} ${shape}`.trimEnd());
    });
  };
  show('inputs', session.inputNames, session.inputMetadata, io?.inputs);
  show('outputs', session.outputNames, session.outputMetadata, io?.outputs);
}

// ---- one case ----

function makeFeed(ort, t) {
  if (t.dtype === 'bfloat16') return new ort.Tensor('float32', bf16ToFloat32(t.data), t.shape);
  // float16 goes in as its raw bits in a Uint16Array; onnxruntime-common
  // takes that as 'float16' data with or without a Float16Array global.
  return new ort.Tensor(DTYPES[t.dtype].ort, t.data, t.shape);
}

// Element i of a tensor's data as a number or bigint, decoding float16 bits.
function valueReader(type, data) {
  if (type === 'float16' && data instanceof Uint16Array) return (i) => halfToNumber(data[i]);
  if (type === 'bool') return (i) => Boolean(data[i]);
  return (i) => data[i];
}

// The manifest-style dtype of input or output i of the model: what the
// session reports, except for bfloat16 values that cross as float32.
function boundaryDtype(session, io, kind, i) {
  const vi = io?.[kind]?.[i];
  if (vi && vi.elemType === ELEM.BFLOAT16) return 'bfloat16';
  const m = (kind === 'inputs' ? session.inputMetadata : session.outputMetadata)?.[i];
  return m?.isTensor ? m.type : undefined;
}

// The error a reference value b may have: the flat bound, or rel of |b|
// when |b| is beyond 10 and that is more.
function allowed(bound, rel, b) {
  return Math.abs(b) > 10 ? Math.max(bound, rel * Math.abs(b)) : bound;
}

// Compares one output (gotDtype: its dtype in the model) with its reference;
// returns {err, problem} where err is the max abs error (0 for exact types)
// and problem a message or null.
function compareOutput(got, gotDtype, ref, atol) {
  const spec = DTYPES[ref.dtype];
  if (gotDtype !== ref.dtype) {
    return { err: Infinity, problem: `dtype ${gotDtype ?? 'unknown'}, expected ${ref.dtype}` };
  }
  if (fmtShape(got.dims) !== fmtShape(ref.shape)) {
    return { err: Infinity, problem: `shape ${fmtShape(got.dims)}, expected ${fmtShape(ref.shape)}` };
  }
  const n = ref.data.length;
  const g = valueReader(got.type, got.data);
  if (!spec.tol) {
    const w = valueReader(ref.dtype, ref.data);
    let bad = 0, firstBad = -1;
    for (let i = 0; i < n; i++) {
      if (g(i) !== w(i)) { bad++; if (firstBad < 0) firstBad = i; }
    }
    if (!bad) return { err: 0, problem: null };
    return { err: Infinity, problem: `${bad} of ${n} values differ, first at ${unravel(firstBad, ref.shape)} (got ${g(firstBad)}, want ${w(firstBad)})` };
  }
  const refData = ref.dtype === 'bfloat16' ? bf16ToFloat32(ref.data) : ref.data;
  const w = valueReader(ref.dtype === 'float16' ? 'float16' : 'float32', refData);
  // max: the largest abs error; over: the largest excess over a value's own
  // bound (the flat bound, or 1e-5 of a 32/64-bit reference beyond 10).
  const bound = atol[spec.tol], rel = spec.tol === 'atol' ? 1e-5 : 0;
  let max = 0, at = -1, over = 0, overAt = -1;
  for (let i = 0; i < n; i++) {
    const a = g(i), b = w(i);
    let e;
    if (Number.isNaN(a) || Number.isNaN(b)) e = Number.isNaN(a) && Number.isNaN(b) ? 0 : Infinity;
    else e = a === b ? 0 : Math.abs(a - b);
    if (e > max || (at < 0 && e === max && e > 0)) { max = e; at = i; }
    const x = e - allowed(bound, rel, b);
    if (x > over) { over = x; overAt = i; }
  }
  if (overAt < 0) return { err: max, problem: null };
  const a = g(overAt), b = w(overAt);
  return {
    err: max,
    problem: `max abs err ${fmtErr(Math.abs(a - b))} > ${spec.tol} ${bound}${allowed(bound, rel, b) > bound ? ' or 1e-5 of the value' : ''} at ${unravel(overAt, ref.shape)} (got ${fmtVal(a, ref.dtype)}, want ${fmtVal(b, ref.dtype)})`,
  };
}

async function runCase(ort, session, io, iodir, c, atol) {
  const names = session.inputNames;
  // Names as the model file has them (wrapping renames bfloat16 ones).
  const shownIn = io ? io.inputs.map((v) => v.name) : names;
  const shownOut = io ? io.outputs.map((v) => v.name) : session.outputNames;
  if (c.inputs.length !== names.length) {
    return `FAIL ${c.inputs.length} inputs given, model takes ${names.length} (${shownIn.join(', ')})`;
  }
  if (c.outputs.length !== session.outputNames.length) {
    return `FAIL ${c.outputs.length} reference outputs, model has ${shownOut.length} (${shownOut.join(', ')})`;
  }
  const feeds = {};
  c.inputs.forEach((t, i) => {
    const dt = boundaryDtype(session, io, 'inputs', i);
    if (dt && dt !== t.dtype) {
      throw new CaseFailure(`input ${i} '${shownIn[i]}' is ${dt} in the model, manifest gives ${t.dtype}`);
    }
    feeds[names[i]] = makeFeed(ort, loadTensor(iodir, t));
  });
  let results;
  try {
    results = await session.run(feeds);
  } catch (e) {
    return `FAIL run: ${e.message.trim()}`;
  }
  let max = 0;
  const problems = [];
  c.outputs.forEach((t, i) => {
    const name = session.outputNames[i], shown = shownOut[i];
    const gotDtype = boundaryDtype(session, io, 'outputs', i) ?? results[name].type;
    const r = compareOutput(results[name], gotDtype, loadTensor(iodir, t), atol);
    if (r.problem) problems.push(`output ${i} '${shown}': ${r.problem}`);
    else max = Math.max(max, r.err);
  });
  if (problems.length) return `FAIL ${problems.join('; ')}`;
  return `ok (max abs err ${fmtErr(max)})`;
}

// ---- one check: models on the cases of IODIR ----

// Runs every model on the cases of iodir, printing each case's line and the
// closing line through out.log and a usage or load problem through out.err.
// Returns the exit status: 0 all cases pass, 1 some failed, 2 UsageError.
async function checkModels(ort, models, iodir, atol, out) {
  try {
    const manifest = loadManifest(iodir);
    if (manifest.tolerance) atol = { ...atol, ...manifest.tolerance };
    let passed = 0, failed = 0;
    for (const [k, model] of models.entries()) {
      const { session, io } = await openModel(ort, model);
      const prefix = k ? `${path.basename(model)} ` : '';
      try {
        for (const c of manifest.cases) {
          let line;
          try {
            line = await runCase(ort, session, io, iodir, c, atol);
          } catch (e) {
            if (!(e instanceof CaseFailure)) throw e;
            line = `FAIL ${e.message}`;
          }
          if (line.startsWith('ok')) passed++;
          else failed++;
          out.log(`${prefix}${c.name}: ${line}`);
        }
      } finally {
        // A batch opens hundreds of models: free each one's memory now.
        await session.release();
      }
    }
    out.log(`ort: ${passed} passed, ${failed} failed`);
    return failed ? 1 : 0;
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    out.err(`run.mjs: ${e.message}`);
    return 2;
  }
}

// The jobs of a --batch file: [{out, models, iodir}].
function loadJobs(file) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`${file}: ${e.message}`);
  }
  return text.split('\n').filter((l) => l !== '').map((l, i) => {
    const f = l.split('\t');
    if (f.length < 3 || f.some((x) => x === '')) {
      throw new UsageError(`${file}:${i + 1}: want OUT<TAB>MODEL.onnx[<TAB>MORE.onnx ...]<TAB>IODIR`);
    }
    return { out: f[0], models: f.slice(1, -1), iodir: f[f.length - 1] };
  });
}

// Runs the unclaimed jobs of a --batch file (see the top of this file).
async function runBatch(ort, jobs, atol) {
  for (const job of jobs) {
    let fd;
    try {
      fd = openSync(job.out, 'wx');
    } catch (e) {
      if (e.code === 'EEXIST') continue; // another process took it
      throw new UsageError(`${job.out}: ${e.message}`);
    }
    // Line by line, so a job that kills the process leaves what it printed.
    const write = (line) => writeSync(fd, `${line}\n`);
    let status;
    try {
      status = await checkModels(ort, job.models, job.iodir, atol, { log: write, err: write });
    } catch (e) {
      // What would have ended a standalone run with a stack trace and exit 1.
      write(`run.mjs: ${e.stack ?? e}`);
      status = 1;
    }
    closeSync(fd);
    writeFileSync(`${job.out}.rc`, `${status}\n`);
  }
  return 0;
}

async function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`run.mjs: ${e.message}\n${USAGE}`);
    return 2;
  }
  let jobs = null;
  try {
    // Before loading onnxruntime, which takes longer than reading the list.
    if (args.batch !== null) jobs = loadJobs(args.batch);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(`run.mjs: ${e.message}`);
    return 2;
  }
  let ort;
  try {
    ort = (await import('onnxruntime-node')).default;
  } catch (e) {
    console.error(`run.mjs: cannot load onnxruntime-node (run 'npm ci --ignore-scripts' at the repo root): ${e.message}`);
    return 2;
  }
  try {
    if (args.printIo) {
      const { session, io } = await openModel(ort, args.pos[0]);
      printIo(session, io);
      return 0;
    }
    if (jobs !== null) return await runBatch(ort, jobs, args);
    return await checkModels(ort, args.pos.slice(0, -1), args.pos[args.pos.length - 1], args,
      { log: (l) => console.log(l), err: (l) => console.error(l) });
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(`run.mjs: ${e.message}`);
    return 2;
  }
}

process.exitCode = await main();
