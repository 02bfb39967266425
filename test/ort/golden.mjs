#!/usr/bin/env node
// golden.mjs: the numeric checks of the lowering goldens (test/lower/*.txt).
//
//   node test/ort/golden.mjs MODELDIR GOLDEN.txt [GOLDEN.txt ...] [--atol 1e-4]
//
// A golden may hold, between its graph and its "=== onnx" part, a part
//
//   === check
//   x: float32[2,3] = [0.5, 1, 1.5, 2, 2.5, 3]
//   add: float32[2,3] = [2.5, 5, 7.5, 0, -1.5, -3]
//
// one line per tensor, NAME: DTYPE[SHAPE] = [VALUES] (flat, row-major; bools
// as True/False or 1/0; nan, inf, -inf). Lines naming a graph input of the
// model are fed to it; every other line is an expected graph output, and
// each graph output must have one. The model is MODELDIR/NAME.onnx, written
// by build/test/test_irtext from test/lower/NAME.txt. Goldens without a
// check part are skipped. All run in this one node process.
//
// A check passes when every output has the expected dtype, exact shape and
// values: float32/float64 within --atol (absolute; NaN matches NaN, an
// infinity only itself), integers and bools exactly (float16 and bfloat16
// are not supported here: test/ort/run.mjs handles them, from .npy files).
// Prints one line per golden and "golden-ort: N passed, N failed".
// Exit status: 0 all pass, 1 some failed, 2 usage error or unreadable file.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const USAGE = 'usage: node test/ort/golden.mjs MODELDIR GOLDEN.txt [GOLDEN.txt ...] [--atol 1e-4]';

// dtype -> [typed array constructor, tolerance kind]
const TYPES = {
  float32: [Float32Array, 'atol'], float64: [Float64Array, 'atol'],
  int64: [BigInt64Array, null], int32: [Int32Array, null], int16: [Int16Array, null],
  int8: [Int8Array, null], uint8: [Uint8Array, null], bool: [Uint8Array, null],
};

class CheckError extends Error {}

function parseValue(tok, dtype, where) {
  const t = tok.trim();
  if (dtype === 'bool') {
    if (t === 'True' || t === 'true' || t === '1') return 1;
    if (t === 'False' || t === 'false' || t === '0') return 0;
    throw new CheckError(`${where}: '${t}' is not a bool`);
  }
  if (dtype.startsWith('int') || dtype.startsWith('uint')) {
    if (!/^[-+]?\d+$/.test(t)) throw new CheckError(`${where}: '${t}' is not an integer`);
    return dtype === 'int64' ? BigInt(t) : Number(t);
  }
  const v = t === 'nan' ? NaN : t === 'inf' ? Infinity : t === '-inf' ? -Infinity : Number(t);
  if (Number.isNaN(v) && t !== 'nan') throw new CheckError(`${where}: '${t}' is not a number`);
  return v;
}

// The check lines of a golden: [{name, dtype, shape, data, line}] or null.
export function parseChecks(file, text) {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l === '=== check');
  if (start < 0) return null;
  const out = [];
  for (let i = start + 1; i < lines.length && !lines[i].startsWith('==='); i++) {
    const l = lines[i];
    const where = `${file}:${i + 1}`;
    if (!l.trim() || l.trim().startsWith('#')) continue;
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*): ([a-z0-9]+)\[([0-9,]*)\] = \[(.*)\]\s*$/.exec(l);
    if (!m) throw new CheckError(`${where}: expected 'NAME: DTYPE[SHAPE] = [VALUES]'`);
    const [, name, dtype, dims, vals] = m;
    if (!TYPES[dtype]) throw new CheckError(`${where}: dtype ${dtype} is not supported here`);
    const shape = dims === '' ? [] : dims.split(',').map(Number);
    const numel = shape.reduce((a, b) => a * b, 1);
    const toks = vals.trim() === '' ? [] : vals.split(',');
    if (toks.length !== numel) throw new CheckError(`${where}: ${toks.length} values for shape [${dims}] (${numel})`);
    const [Ctor] = TYPES[dtype];
    const data = Ctor.from(toks.map((t) => parseValue(t, dtype, where)));
    out.push({ name, dtype, shape, data, line: i + 1 });
  }
  return out;
}

function compare(want, got, atol) {
  if (got.type !== want.dtype) return `dtype ${got.type}, expected ${want.dtype}`;
  const gs = `[${got.dims.join(',')}]`, ws = `[${want.shape.join(',')}]`;
  if (gs !== ws) return `shape ${gs}, expected ${ws}`;
  const kind = TYPES[want.dtype][1];
  const data = got.data;
  let worst = 0, at = -1;
  for (let i = 0; i < want.data.length; i++) {
    const a = want.data[i], b = data[i];
    if (kind === null) {
      if (a !== (typeof a === 'bigint' ? BigInt(b) : Number(b))) return `value ${b} at ${i}, expected ${a}`;
      continue;
    }
    if (Number.isNaN(a) && Number.isNaN(b)) continue;
    if (!Number.isFinite(a) || !Number.isFinite(b)) {
      if (a !== b) return `value ${b} at ${i}, expected ${a}`;
      continue;
    }
    const e = Math.abs(a - b);
    if (e > worst || Number.isNaN(e)) worst = e, at = i;
  }
  if (worst > atol || (at >= 0 && Number.isNaN(worst))) return `max abs err ${worst.toExponential(1)} > atol ${atol} at ${at}`;
  return null;
}

async function main(argv) {
  let atol = 1e-4;
  const args = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--atol') atol = Number(argv[++i]);
    else args.push(argv[i]);
  }
  if (args.length < 2 || !(atol >= 0)) {
    console.error(USAGE);
    return 2;
  }
  const [dir, ...goldens] = args;
  const ort = (await import('onnxruntime-node')).default;
  let passed = 0, failed = 0;
  for (const file of goldens) {
    const name = path.basename(file, '.txt');
    let checks;
    try {
      checks = parseChecks(file, readFileSync(file, 'utf8'));
    } catch (e) {
      console.log(`${name}: FAIL ${e.message}`);
      failed++;
      continue;
    }
    if (!checks) continue;
    const model = path.join(dir, `${name}.onnx`);
    try {
      if (!existsSync(model)) throw new CheckError(`${model} is missing (build/test/test_irtext writes it)`);
      const session = await ort.InferenceSession.create(model, { logSeverityLevel: 3 });
      const byName = new Map(checks.map((c) => [c.name, c]));
      const feeds = {};
      for (const n of session.inputNames) {
        const c = byName.get(n);
        if (!c) throw new CheckError(`no values for input '${n}'`);
        feeds[n] = new ort.Tensor(c.dtype, c.data, c.shape);
      }
      for (const c of checks) {
        if (!session.inputNames.includes(c.name) && !session.outputNames.includes(c.name)) {
          throw new CheckError(`line ${c.line}: '${c.name}' is neither an input nor an output of the model`);
        }
      }
      const results = await session.run(feeds);
      const bad = [];
      for (const n of session.outputNames) {
        const c = byName.get(n);
        if (!c) {
          bad.push(`no expected values for output '${n}'`);
          continue;
        }
        const why = compare(c, results[n], atol);
        if (why) bad.push(`output '${n}': ${why}`);
      }
      if (bad.length) throw new CheckError(bad.join('; '));
      console.log(`${name}: ok (${session.outputNames.length} output${session.outputNames.length > 1 ? 's' : ''})`);
      passed++;
    } catch (e) {
      console.log(`${name}: FAIL ${e.message}`);
      failed++;
    }
  }
  console.log(`golden-ort: ${passed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
