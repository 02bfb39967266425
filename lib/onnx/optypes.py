#!/usr/bin/env python3
"""optypes.py: writes lib/onnx/optypes.def, the element types every formal
input and output of every ai.onnx operator version allows (its schema's type
constraints, from onnx's own schemas), beside the ones onnxruntime's CPU
provider registers a kernel for (lib/onnx/ortkernels.txt, transcribed from
onnxruntime's docs/OperatorKernels.md), and the com.microsoft operators the
optimizer writes (their signature and types from the same file).

    ../shared/tools/torch-env.sh run sid python3 /src/lib/onnx/optypes.py >lib/onnx/optypes.def

Element types are named by dtype.def's onnx.proto names; the types it has no
row for (string, int4, uint4, int2, uint2, float4e2m1) are left out: the
converter writes none, and lib/onnx/legal.c skips a value of a type it cannot
name.  Each schema version gets onnxruntime's kernel for the opsets it spans;
the script stops if onnxruntime's ranges split one of those spans (the table
could not say it).  Versions that end below opset 17 (the lowest target)
get ANY: ortkernels.txt leaves those ranges out.  An operator onnxruntime has
no kernel for at all runs through its schema's function body when it has
one (ANY: the body's operators are checked as written by onnxruntime, not
here) or is Constant (an initializer to onnxruntime); otherwise NONE.
Where onnxruntime-node 1.30 itself disagrees with the kernel list for the
first type parameter (ortprobe.txt, written by test/legal/probe.sh), the
probe wins (probed() says how)."""
import os
import re
import sys

import onnx
import onnx.defs

HERE = os.path.dirname(os.path.abspath(__file__))
MIN_OPSET, MAX_OPSET = 17, 26

# onnx.proto names dtype.def gives an ONNX_* name (its 7th column)
NAMES = set()
for line in open(os.path.join(HERE, '..', 'core', 'dtype.def')):
    m = re.match(r'X\(([^)]*)\)', line)
    if m:
        NAMES.add(m.group(1).split(',')[6].strip())
NAMES.discard('UNDEFINED')


def elem(t):
    """'tensor(float)' or 'float' -> 'FLOAT'; None for a type dtype.def lacks."""
    m = re.fullmatch(r'(?:tensor|seq|optional)\((.*)\)', t)
    if m:
        return elem(m.group(1))
    name = t.upper()
    return name if name in NAMES else None


def mask(types):
    return sorted({e for e in map(elem, types) if e})


# ---- ortkernels.txt ----
sets, ort, ms = {}, {}, {}
prev = None
for line in open(os.path.join(HERE, 'ortkernels.txt')):
    line = line.strip()
    if not line or line.startswith('#'):
        continue
    if line.startswith('= '):
        _, name, types = line.split()
        sets[name] = types.split(',')
        continue
    sig = None
    if ' sig: ' in line:
        line, sig = line.split(' sig: ')
    words = line.split()
    domain = ''
    if words[0].startswith('@'):
        domain = words.pop(0)[1:]
    op, rng, cons = words[0], words[1], words[2:]
    if rng.endswith('+'):
        lo, hi = int(rng[:-1]), 10 ** 6
    elif '-' in rng:
        lo, hi = map(int, rng.split('-'))
    else:
        lo = hi = int(rng)
    if cons == ['same']:
        c = prev
    else:
        c = {}
        for w in cons:
            p, types = w.split('=')
            c[p] = [x for t in types.split(',') for x in sets.get(t, [t])]
    prev = c
    ort.setdefault((domain, op), []).append((lo, hi, c))
    if sig:
        ms[(domain, op)] = sig


# ---- ortprobe.txt: what onnxruntime-node itself loads (test/legal/probe.sh) ----
probe = {}
for line in open(os.path.join(HERE, 'ortprobe.txt')):
    if line.startswith('#'):
        continue
    op, opset, nparam, t, verdict = line.split()
    probe.setdefault((op, int(opset)), []).append((int(nparam), elem(t), verdict))


def probed(op, span, es):
    """es (the first type parameter's CPU types over span) corrected by the
    probes in span: a type every probe there loads is added (the kernel list
    is older than onnxruntime 1.30, or onnxruntime runs the schema's function
    body, or casts float16 to float around a float kernel); a type a probe
    finds no kernel for is removed when the operator has one type parameter
    (with more, the probe's choice for the others may be what failed)."""
    es = set(es)
    found = [p for v in span for p in probe.get((op, v), [])]
    for t in {t for _, t, _ in found if t}:
        vs = [(n, v) for n, tt, v in found if tt == t]
        probes = {v for v in span if (op, v) in probe}
        if all(v == 'kernel' for _, v in vs) and len(vs) == len(probes):
            es.add(t)
        elif any(v == 'none' and n == 1 for n, v in vs):
            es.discard(t)
    return sorted(es)


def ort_at(domain, op, opset):
    for lo, hi, c in ort.get((domain, op), []):
        if lo <= opset <= hi:
            return c
    return None


OPT = {onnx.defs.OpSchema.FormalParameterOption.Single: 'SINGLE',
       onnx.defs.OpSchema.FormalParameterOption.Optional: 'OPTIONAL',
       onnx.defs.OpSchema.FormalParameterOption.Variadic: 'VARIADIC'}


def fmt(es):
    return '|'.join('E(%s)' % e for e in es) if es else 'NONE'


rows = []
schemas = [s for s in onnx.defs.get_all_schemas_with_history() if s.domain in ('', 'ai.onnx')]
versions = {}
for s in schemas:
    versions.setdefault(s.name, []).append(s.since_version)
for s in sorted(schemas, key=lambda s: (s.name.encode(), s.since_version)):
    later = [v for v in versions[s.name] if v > s.since_version]
    last = min(later) - 1 if later else MAX_OPSET
    params = {t.type_param_str: i + 1 for i, t in enumerate(s.type_constraints)}
    allowed = {t.type_param_str: mask(t.allowed_type_strs) for t in s.type_constraints}
    # onnxruntime's kernel for each opset of the span this version covers
    span = range(max(s.since_version, MIN_OPSET), last + 1)
    if not span:
        cpu = 'ANY'
    else:
        ks = [ort_at('', s.name, v) for v in span]
        if any(k != ks[0] for k in ks):
            sys.exit('optypes.py: onnxruntime splits %s-%d (opsets %d-%d)' % (s.name, s.since_version, span[0], last))
        cpu = ks[0]
        if cpu is None and (s.name == 'Constant' or s.has_function or s.has_context_dependent_function):
            cpu = 'ANY'
    for d, formals in (('IN', s.inputs), ('OUT', s.outputs)):
        for i, f in enumerate(formals):
            opt = OPT[f.option]
            if opt == 'VARIADIC' and not f.is_homogeneous:
                opt = 'VARIADIC_MIXED'
            if f.type_str in params:
                p, sch = params[f.type_str], allowed[f.type_str]
            else:
                p, sch = 0, mask([f.type_str])
            if cpu == 'ANY':
                c = 'ANY'
            elif cpu is None:
                c = 'NONE'
            elif f.type_str in cpu:
                c = [e for e in mask(cpu[f.type_str]) if e in sch]
                if p == 1:
                    c = [e for e in probed(s.name, span, c) if e in sch]
                c = fmt(c)
            else:
                c = 'ANY'
            rows.append(('""', s.name, s.since_version, d, i, opt, p, fmt(sch), c))

# the com.microsoft operators: their signature from ortkernels.txt
for (domain, op), sig in sorted(ms.items()):
    lo, hi, c = ort[(domain, op)][0]
    d, i, ps = None, 0, {}
    for w in sig.split():
        if w in ('in', 'out'):
            d, i = w.upper(), 0
            continue
        name, p = w.split(':')
        ps.setdefault(p, len(ps) + 1)
        es = mask(c[p]) if p in c else sorted(NAMES)
        rows.append(('"%s"' % domain, op, lo, d, i, 'OPTIONAL' if i else 'SINGLE', ps[p], fmt(es),
                     fmt(es) if p in c else 'ANY'))
        i += 1

print("""/* optypes.def: the element types of every formal input and output of every
 * version of every ai.onnx operator, generated by optypes.py from onnx %s's
 * schemas and onnxruntime's CPU kernel list (ortkernels.txt); do not edit.
 *
 * TY(domain, op type, since, dir, index, option, param, schema, cpu)
 *   since    the opset that introduced this version (1 for com.microsoft)
 *   dir      IN or OUT; index: the formal parameter's position
 *   option   SINGLE, OPTIONAL, VARIADIC (the last formal repeats, every
 *            repeat of one type) or VARIADIC_MIXED (each repeat its own)
 *   param    formals of one nonzero number take one element type (the
 *            schema's type parameter); 0: a fixed type
 *   schema   the types the schema allows, E(onnx.proto name) or'ed
 *   cpu      the ones onnxruntime's CPU provider has a kernel for at the
 *            opsets this version spans; ANY: every type the schema allows
 *            (no constraint, a function body, or a version below opset 17);
 *            NONE: no kernel
 * Rows are sorted by domain, op type (strcmp order), then version. */""" % onnx.__version__)
rows.sort(key=lambda r: (r[0].encode(), r[1].encode(), r[2]))
for r in rows:
    print('TY(%s, %-24s %2d, %-3s %d, %-14s %d, %s, %s)' % (r[0], '"%s",' % r[1], r[2], r[3] + ',', r[4],
                                                         r[5] + ',', r[6], r[7], r[8]))
