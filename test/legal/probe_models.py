#!/usr/bin/env python3
"""probe_models.py: one-node ONNX models for probing which element types
onnxruntime's CPU provider has a kernel for (probe.sh runs it in the torch
chroot, then probe.mjs loads each model in onnxruntime-node).

    python3 test/legal/probe_models.py OUTDIR

For every ai.onnx operator version in force at opsets 18 and 23 and every
element type its first type parameter allows (the other parameters at a
type onnxruntime's kernel list gives them), one model: required inputs
and outputs only, no shapes, no attributes.  Session creation looks the
kernel up before it runs anything, so a model that fails for another reason
(a required attribute, a shape rule) says nothing, and probe.mjs says so.
OUTDIR/list.tsv: file, op, opset, how many type parameters, type."""
import os
import sys

import onnx
import onnx.defs
from onnx import helper, TensorProto

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
ELEMS = {'float': TensorProto.FLOAT, 'double': TensorProto.DOUBLE, 'float16': TensorProto.FLOAT16,
         'bfloat16': TensorProto.BFLOAT16, 'int8': TensorProto.INT8, 'int16': TensorProto.INT16,
         'int32': TensorProto.INT32, 'int64': TensorProto.INT64, 'uint8': TensorProto.UINT8,
         'uint16': TensorProto.UINT16, 'uint32': TensorProto.UINT32, 'uint64': TensorProto.UINT64,
         'bool': TensorProto.BOOL}


def tname(t):
    return t[len('tensor('):-1] if t.startswith('tensor(') else None


rows = []
for opset in (18, 23):
    for name in sorted({s.name for s in onnx.defs.get_all_schemas() if s.domain == ''}):
        try:
            s = onnx.defs.get_schema(name, opset, '')
        except Exception:
            continue
        if s.deprecated or not s.type_constraints:
            continue
        allowed = {c.type_param_str: [t for t in map(tname, c.allowed_type_strs) if t in ELEMS]
                   for c in s.type_constraints}
        first = s.type_constraints[0].type_param_str
        for t in allowed[first]:
            bind = {p: (t if p == first else (('float' if 'float' in a else a[0]) if a else None))
                    for p, a in allowed.items()}

            def vi(prefix, i, f):
                ty = bind.get(f.type_str) if f.type_str in bind else tname(f.type_str)
                if ty is None or ty not in ELEMS:
                    return None
                return helper.make_tensor_value_info('%s%d' % (prefix, i), ELEMS[ty], None)
            fo = onnx.defs.OpSchema.FormalParameterOption
            ins = [vi('x', i, f) for i, f in enumerate(s.inputs) if f.option != fo.Optional]
            outs = [vi('y', i, f) for i, f in enumerate(s.outputs) if f.option != fo.Optional]
            if None in ins or None in outs or not outs:
                continue
            node = helper.make_node(name, [v.name for v in ins], [v.name for v in outs])
            g = helper.make_graph([node], 'probe', ins, outs)
            m = helper.make_model(g, opset_imports=[helper.make_opsetid('', opset)])
            m.ir_version = 8 if opset <= 18 else 11
            f = '%s-%d-%s.onnx' % (name, opset, t)
            onnx.save(m, os.path.join(out, f))
            rows.append((f, name, opset, len(allowed), t))
with open(os.path.join(out, 'list.tsv'), 'w') as fh:
    for r in rows:
        fh.write('\t'.join(map(str, r)) + '\n')
print('%d models' % len(rows))
