# textgraph.py: an ExportedProgram as the ATen text graph yobx-export reads
# (docs/text-graph.md), written from torch's own serialized form (the JSON of
# torch._export.serde.serialize, whose Argument kinds the text spells), with
# every weight's values inline, so the file converts without torch.
import json
import math

import torch
from torch._export.serde.serialize import serialize

# torch's serialized ScalarType codes -> the names of lib/core/dtype.def.
DTYPE = {1: "uint8", 2: "int8", 3: "int16", 4: "int32", 5: "int64", 6: "float16", 7: "float32",
         8: "float64", 9: "complex32", 10: "complex64", 11: "complex128", 12: "bool",
         13: "bfloat16", 28: "uint16", 29: "float8_e4m3fn", 30: "float8_e5m2",
         31: "float8_e4m3fnuz", 32: "float8_e5m2fnuz", 34: "uint32", 35: "uint64"}


class Unwritable(Exception):
    """What the text form cannot say (a subgraph, a custom object)."""


def fnum(x):
    """A float that reads back as the same double, and as a float (2.0)."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(float(x))


def union(j):
    (k, v), = j.items()
    return k, v


class Writer:
    def __init__(self, js):
        self.g = js["graph_module"]["graph"]
        self.ranges = js.get("range_constraints") or {}
        self.sig = js["graph_module"]["signature"]

    def dims(self, sizes):
        out = []
        for s in sizes:
            k, v = union(s)
            out.append(str(v) if k == "as_int" else v["expr_str"])
        return "[" + ",".join(out) + "]"

    def ttype(self, name):
        m = self.g["tensor_values"][name]
        dt = DTYPE.get(m["dtype"])
        if dt is None:
            raise Unwritable(f"dtype code {m['dtype']}")
        return dt + self.dims(m["sizes"])

    def symtype(self, table, kind, name):
        m = self.g.get(table, {}).get(name)
        if m is None:
            return kind
        k, v = union(m)
        return f"{kind}({v['expr_str']})" if k == "as_expr" else kind

    def sym(self, v, lit):
        k, x = union(v)
        if k == "as_name":
            return x
        return lit(x)

    def arg(self, j):
        k, v = union(j)
        if k == "as_none":
            return "None"
        if k == "as_tensor":
            return v["name"]
        if k == "as_tensors":
            return "[" + ", ".join(t["name"] for t in v) + "]"
        if k == "as_optional_tensor":
            return self.arg(v)
        if k == "as_optional_tensors":
            return "[" + ", ".join(self.arg(t) for t in v) + "]"
        if k == "as_int":
            return str(v)
        if k == "as_ints":
            return "[" + ", ".join(str(i) for i in v) + "]"
        if k == "as_float":
            return fnum(v)
        if k == "as_floats":
            return "[" + ", ".join(fnum(f) for f in v) + "]"
        if k == "as_string":
            return f"'{v}'"
        if k == "as_strings":
            return "[" + ", ".join(f"'{s}'" for s in v) + "]"
        if k == "as_bool":
            return str(bool(v))
        if k == "as_bools":
            return "[" + ", ".join(str(bool(b)) for b in v) + "]"
        if k == "as_sym_int":
            return self.sym(v, str)
        if k == "as_sym_ints":
            return "[" + ", ".join(self.sym(s, str) for s in v) + "]"
        if k == "as_sym_bool":
            return self.sym(v, lambda b: str(bool(b)))
        if k == "as_sym_bools":
            return "[" + ", ".join(self.sym(s, lambda b: str(bool(b))) for s in v) + "]"
        if k == "as_sym_float":
            return self.sym(v, fnum)
        if k == "as_sym_floats":
            return "[" + ", ".join(self.sym(s, fnum) for s in v) + "]"
        if k == "as_scalar_type":
            if v not in DTYPE:
                raise Unwritable(f"dtype code {v}")
            return "dtype:" + DTYPE[v]
        if k == "as_memory_format":
            return f"memory_format:{v}"
        if k == "as_layout":
            return f"layout:{v}"
        if k == "as_device":
            return "device:" + v["type"] + (f":{v['index']}" if v.get("index") is not None else "")
        if k == "as_complex":
            return f"complex({fnum(v['real'])}, {fnum(v['imag'])})"
        if k == "as_int_lists":
            return "[" + ", ".join("[" + ", ".join(str(i) for i in l) + "]" for l in v) + "]"
        if k == "as_float_lists":
            return "[" + ", ".join("[" + ", ".join(fnum(f) for f in l) + "]" for l in v) + "]"
        if k == "as_string_to_argument":
            return "{" + ", ".join(f"'{key}': {self.arg(a)}" for key, a in v.items()) + "}"
        if k == "as_operator":
            return "op:" + v
        raise Unwritable(f"argument kind {k}")

    def out(self, j):
        k, v = union(j)
        if k == "as_tensor":
            return f"{v['name']}: {self.ttype(v['name'])}"
        if k == "as_none":
            return "_"
        if k in ("as_tensors", "as_optional_tensors"):
            if not v:
                return "[]"
            items = [self.out({"as_tensor": t} if k == "as_tensors" else t) for t in v]
            return "(" + ", ".join(items) + ")"
        if k == "as_sym_int" and "as_name" in v:
            return f"{v['as_name']}: {self.symtype('sym_int_values', 'SymInt', v['as_name'])}"
        if k == "as_sym_bool" and "as_name" in v:
            return f"{v['as_name']}: {self.symtype('sym_bool_values', 'SymBool', v['as_name'])}"
        if k == "as_sym_float" and "as_name" in v:
            return f"{v['as_name']}: {self.symtype('sym_float_values', 'SymFloat', v['as_name'])}"
        return self.arg(j)

    def decl(self, j):
        k, v = union(j)
        if k == "as_tensor":
            return f"{v['name']}: {self.ttype(v['name'])}"
        if k in ("as_sym_int", "as_sym_bool", "as_sym_float") and "as_name" in v:
            return self.out(j)
        if k == "as_custom_obj":
            raise Unwritable("custom object input")
        return self.arg(j)

    def node(self, n):
        target = n["target"]
        if target.startswith("torch.ops."):
            target = target[len("torch.ops."):]
        for a in n["inputs"]:
            if "as_graph" in a["arg"]:
                raise Unwritable(f"subgraph argument of {target}")
        outs = ", ".join(self.out(o) for o in n["outputs"]) or "_"
        args = ", ".join((a["name"] + "=" if a.get("name") else "") + self.arg(a["arg"]) for a in n["inputs"])
        return f"  {outs} = {target}({args})"


def values(t):
    """A weight's values as the text's '= [...]' (exact floats)."""
    t = t.detach().contiguous().reshape(-1)
    if t.dtype.is_floating_point:
        return "[" + ", ".join(fnum(x) for x in t.double().tolist()) + "]"
    if t.dtype == torch.bool:
        return "[" + ", ".join("1" if x else "0" for x in t.tolist()) + "]"
    if t.dtype.is_complex:
        raise Unwritable("complex weight")
    return "[" + ", ".join(str(x) for x in t.tolist()) + "]"


INPUT_TARGET = {"parameter": "parameter_name", "buffer": "buffer_name",
                "tensor_constant": "tensor_constant_name"}
OUTPUT_TARGET = {"buffer_mutation": "buffer_name", "user_input_mutation": "user_input_name",
                 "parameter_mutation": "parameter_name", "gradient_to_parameter": "parameter_name",
                 "gradient_to_user_input": "user_input_name"}


def text_graph(ep, title):
    """The text of ep; raises Unwritable for what the text cannot hold."""
    js = json.loads(serialize(ep).exported_program)
    w = Writer(js)
    weights = dict(ep.state_dict)
    weights.update(ep.constants)
    lines = [f"# {title}"]
    if w.ranges:
        lines.append("symbols")
        for key, r in w.ranges.items():
            lo, hi = r.get("min_val"), r.get("max_val")
            lo = "-inf" if lo is None or lo <= -(1 << 62) else str(lo)
            hi = "inf" if hi is None or hi >= (1 << 62) else str(hi)
            lines.append(f"  {key} in [{lo}, {hi}]")
    lines.append("inputs")
    for spec in w.sig["input_specs"]:
        kind, v = union(spec)
        if kind == "constant_input":
            lines.append(f"  constant_input {v['name']} = {w.arg(v['value'])}")
            continue
        if kind in ("custom_obj", "token"):
            raise Unwritable(f"{kind} input")
        line = f"  {kind} {w.decl(v['arg'] if 'as_tensor' in v['arg'] or kind == 'user_input' else {'as_tensor': v['arg']})}"
        if kind in INPUT_TARGET:
            fqn = v[INPUT_TARGET[kind]]
            line += f" <- {fqn}"
            if kind == "buffer" and v.get("persistent") is False:
                line += " (not persistent)"
            if fqn not in weights:
                raise Unwritable(f"no value for {fqn}")
            line += " = " + values(weights[fqn])
        lines.append(line)
    lines.append("outputs")
    for spec in w.sig["output_specs"]:
        kind, v = union(spec)
        line = f"  {kind} {w.arg(v['arg'])}"
        if kind in OUTPUT_TARGET:
            line += f" -> {v[OUTPUT_TARGET[kind]]}"
        lines.append(line)
    decls = ", ".join(w.decl(i) for i in w.g["inputs"])
    lines.append(f"graph main({decls}) {{")
    lines.extend(w.node(n) for n in w.g["nodes"])
    lines.append("  return (" + ", ".join(w.arg(o) for o in w.g["outputs"]) + ")")
    lines.append("}")
    return "\n".join(lines) + "\n"
