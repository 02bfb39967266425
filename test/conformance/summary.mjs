#!/usr/bin/env node
// summary.mjs: the verdict of a conformance run (see run.sh).
//
//   node test/conformance/summary.mjs OUT EXPECTED [DOC]
//
// Reads what run.sh left in OUT (convert.list, each ONNX.rc, ONNX.err,
// ONNX.ort, ONNX.ort.rc; samples.list), gives every conversion its status
// letter (M R U W C, see run.sh), prints the counts and every W and C, and
// compares with EXPECTED: one line per sample,
//
//   ENTRY SAMPLE LETTERS [| REASON]
//
// LETTERS being the training IR at opsets 18 and 23, then core ATen at 18
// and 23 ('-' when the core graph is the training one), then the traced
// TorchScript archive at 18 and 23 ('-' when none is stored), REASON the
// first refusal's message. Exit 1 on any C or W (a wrong model is never
// expected: EXPECTED may list none), on an M of EXPECTED that is no longer M,
// and on a sample of EXPECTED with an M that is no longer stored. With UPDATE=1 (env), EXPECTED is
// rewritten from this run and DOC (default docs/conformance.md) from it.
// Without UPDATE, DOC must be what this run would write (else exit 1: run
// with UPDATE=1). ONLY=IR (env: train, core or jit) says the run converted
// that IR's graphs alone (run.sh ONLY=IR): the other letters and the reason
// they gave are EXPECTED's, so UPDATE=1 rewrites that IR's letters only.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

import { renderDoc } from './doc.mjs';

const OPSETS = ['18', '23'];
const IRS = ['train', 'core', 'jit'];

function read(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

// The first diagnostic of a refusal: its message with the ATen target,
// without the program's name, the node's name and the sample's folder (so
// it reads the same in every run).
function reason(err) {
  const lines = (err ?? '').split('\n').filter((l) => l.trim());
  const d = lines.find((l) => l.startsWith('yobx-export: ')) ?? lines[0] ?? '';
  return d.replace(/^yobx-export: /, '').replace(/^node '[^']*' \(([^)]*)\)/, '$1')
    .replace(/[^\s:'"]*\/s\/\d+\//g, '').replace(/\s+/g, ' ').slice(0, 200);
}

function status(onnx) {
  const rc = (read(`${onnx}.rc`) ?? '').trim();
  const err = read(`${onnx}.err`);
  if (rc === '1') return { s: 'R', why: reason(err) };
  if (rc === '2') return { s: 'U', why: reason(err) };
  if (rc !== '0') return { s: 'C', why: `exit status ${rc || 'unknown'}: ${reason(err)}` };
  const ort = read(`${onnx}.ort`) ?? '';
  const ortRc = (read(`${onnx}.ort.rc`) ?? '').trim();
  if (ortRc === '0') return { s: 'M', why: '' };
  const bad = ort.split('\n').find((l) => /FAIL|cannot load|run\.mjs:/.test(l)) ?? `onnxruntime check exited ${ortRc || 'unfinished'}`;
  return { s: 'W', why: bad.replace(/^\S+ \S+: /, '').slice(0, 240) };
}

function main() {
  const [out, expectedFile, docFile = 'docs/conformance.md'] = process.argv.slice(2);
  const only = process.env.ONLY ?? '';
  const kept = new Map();
  if (only) {
    for (const line of (read(expectedFile) ?? '').split('\n')) {
      const m = /^(\S+) (\S+) (\S{6})(?: \| (.*))?/.exec(line);
      if (m) kept.set(`${m[1]} ${m[2]}`, { letters: m[3], why: m[4] ?? '' });
    }
  }
  const samples = new Map();
  for (const line of (read(`${out}/samples.list`) ?? '').split('\n').filter(Boolean)) {
    const [entry, id, family] = line.split(' ');
    const k = kept.get(`${entry} ${id}`), letters = ['-', '-', '-', '-', '-', '-'];
    if (k) IRS.forEach((ir, i) => { if (ir !== only) letters.splice(2 * i, 2, k.letters[2 * i], k.letters[2 * i + 1]); });
    samples.set(`${entry} ${id}`, { entry, id, family, letters, why: k ? k.why : '', bad: [] });
  }
  for (const line of (read(`${out}/convert.list`) ?? '').split('\n').filter(Boolean)) {
    const [key, , , onnx] = line.split('\t');
    const [entry, id, ir, opset] = key.split(' ');
    const smp = samples.get(`${entry} ${id}`);
    const st = status(onnx);
    smp.letters[2 * IRS.indexOf(ir) + OPSETS.indexOf(opset)] = st.s;
    if ((st.s === 'R' || st.s === 'U') && !smp.why) smp.why = st.why;
    if (st.s === 'W' || st.s === 'C') smp.bad.push(`${ir} opset ${opset}: ${st.s === 'W' ? 'WRONG' : 'CRASH'}: ${st.why} (${onnx})`);
  }
  const lines = [...samples.values()].map((s) => `${s.entry} ${s.id} ${s.letters.join('')}${s.why ? ` | ${s.why}` : ''}`);
  const counts = {};
  for (const s of samples.values()) for (const l of s.letters) counts[l] = (counts[l] ?? 0) + 1;
  const matched = [...samples.values()].filter((s) => s.letters.every((l) => l === 'M' || l === '-')).length;
  console.log(`conformance: ${samples.size} samples, ${matched} matched in every conversion; conversions: ` +
    ['M', 'R', 'U', 'W', 'C'].map((l) => `${counts[l] ?? 0} ${l}`).join(', ') +
    ' (M matched, R refused by name, U text graph unread, W WRONG, C crash)');

  const expected = new Map();
  for (const line of (read(expectedFile) ?? '').split('\n')) {
    const m = /^(\S+) (\S+) (\S{6})/.exec(line);
    if (m) expected.set(`${m[1]} ${m[2]}`, m[3]);
  }
  let fail = 0, wrong = 0;
  const improved = [];
  for (const s of samples.values()) {
    const key = `${s.entry} ${s.id}`, want = expected.get(key) ?? '------', got = s.letters.join('');
    for (let i = 0; i < 6; i++) {
      if (got[i] === 'C' || got[i] === 'W') {
        console.log(`conformance: FAIL ${key}: ${s.bad.join('; ')}`);
        fail++;
        wrong++;
        break;
      }
      if (want[i] === 'M' && got[i] !== 'M') {
        console.log(`conformance: FAIL ${key}: was matched, now ${got} (${s.why})`);
        fail++;
        break;
      }
    }
    if (got !== want && got.split('').every((l, i) => l === want[i] || l === 'M')) improved.push(key);
  }
  // SLICE above 1 (make check's quick tier) stores every sample but runs a
  // share: the others are not lost
  const sliced = (process.env.SLICE ?? '1') !== '1';
  for (const [key, want] of expected) {
    if (want.includes('W')) {
      console.log(`conformance: FAIL ${expectedFile} lists ${key} as WRONG (${want}): it may list none`);
      fail++;
    }
    if (samples.has(key) || sliced) continue;
    if (want.includes('M')) {
      console.log(`conformance: FAIL ${key} (${want}) is in ${expectedFile} but no longer stored: a lost match`);
      fail++;
    } else {
      console.log(`conformance: note: ${key} is in ${expectedFile} but no longer stored`);
    }
  }
  const doc = renderDoc(lines);
  if (process.env.UPDATE === '1') {
    if (wrong) {
      console.log(`conformance: ${wrong} samples WRONG or crashing: ${expectedFile} not rewritten (fix them, or refuse them by name)`);
      return 1;
    }
    writeFileSync(expectedFile, `${lines.join('\n')}\n`);
    writeFileSync(docFile, doc);
    console.log(`conformance: wrote ${expectedFile} and ${docFile}`);
    return fail ? 1 : 0;
  }
  if (improved.length) {
    console.log(`conformance: ${improved.length} samples do better than ${expectedFile} says (e.g. ${improved[0]}): run with UPDATE=1 to record it`);
  }
  if (!existsSync(docFile) || read(docFile) !== renderDoc(
    (read(expectedFile) ?? '').split('\n').filter(Boolean))) {
    console.log(`conformance: FAIL ${docFile} is not what ${expectedFile} gives: run with UPDATE=1`);
    fail++;
  }
  return fail ? 1 : 0;
}

process.exitCode = main();
