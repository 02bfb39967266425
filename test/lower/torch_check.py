# test/lower/torch_check.py GOLDEN.txt...: rewrites the output lines of each
# golden's "=== check" part with what torch computes for its graph on the
# inputs given there (run in the torch chroot:
# ../shared/tools/torch-env.sh run sid python3 test/lower/torch_check.py test/lower/decomp_*.txt).
#
# Reads only simple graphs: one node a line, `OUT: TYPE = aten.OP.OVERLOAD(k=v, ...)`
# (or `(A: T, B: T) = ...` / `[A: T, B: T] = ...` for several outputs), arguments
# being names, numbers, lists, True/False/None and 'strings'; the check part's
# inputs (lines naming a graph input) are kept, the output lines rewritten.
# The goldens' `=== onnx` parts are then refreshed by UPDATE=1 build/test/test_irtext.
import ast
import re
import sys

import torch

DT = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64, "int32": torch.int32,
      "bool": torch.bool}


def parse_type(t):
    m = re.match(r"(\w+)\[(.*)\]", t.strip())
    return m.group(1), [int(x) for x in m.group(2).split(",") if x.strip()]


def value(tok, env):
    tok = tok.strip()
    if tok in env:
        return env[tok]
    if tok.startswith("dtype:"):
        return DT[tok[6:]]
    if tok.startswith("["):
        inner = tok[1:-1].strip()
        return [value(x, env) for x in split(inner)] if inner else []
    return ast.literal_eval(tok)


def split(s):
    out, depth, cur, q = [], 0, "", False
    for ch in s:
        if ch == "'" and depth >= 0:
            q = not q
        if not q and ch in "[(":
            depth += 1
        if not q and ch in "])":
            depth -= 1
        if not q and ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


def fmt(t):
    t = t.detach()
    vals = t.reshape(-1).tolist()
    if t.dtype == torch.bool:
        s = ", ".join("True" if v else "False" for v in vals)
    elif t.is_floating_point():
        s = ", ".join(repr(float(v)) for v in vals)
    else:
        s = ", ".join(str(int(v)) for v in vals)
    dt = str(t.dtype).replace("torch.", "")
    return "%s[%s] = [%s]" % (dt, ",".join(str(d) for d in t.shape), s)


def run(path):
    text = open(path).read()
    head, _, rest = text.partition("\n=== check\n")
    check, sep, onnx = rest.partition("\n=== onnx")
    env, outs, inputs = {}, [], set()
    for line in check.splitlines():
        m = re.match(r"(\w+): (\w+\[[^\]]*\]) = \[(.*)\]$", line.strip())
        if m:
            dt, shape = parse_type(m.group(2))
            vals = [x.strip() == "True" if x.strip() in ("True", "False") else float(x) for x in split(m.group(3))]
            env[m.group(1)] = torch.tensor(vals, dtype=DT[dt]).reshape(shape)
    g = re.search(r"graph main\((.*)\) \{", head)
    for d in split(g.group(1)):
        inputs.add(d.split(":")[0].strip())
    for line in head.splitlines():
        line = re.sub(r" @\w+$", "", line.split("  #")[0].strip())
        m = re.match(r"(.+?) = (aten\.[\w.]+)\((.*)\)$", line)
        if not m or line.startswith("graph"):
            r = re.match(r"return \((.*)\)", line)
            if r:
                outs = [x.strip() for x in r.group(1).split(",") if x.strip()]
            continue
        lhs, target, args = m.groups()
        names = [x.split(":")[0].strip(" ([") for x in split(lhs[1:-1] if lhs.startswith("(") else lhs)]
        _, op, ov = target.split(".")
        fn = getattr(getattr(torch.ops.aten, op), ov)
        kw = {}
        for a in split(args):
            k, _, v = a.partition("=")
            kw[k.strip()] = value(v, env)
        r = fn(**kw)
        if isinstance(r, torch.Tensor):
            r = [r]
        for n, t in zip(names, r):
            env[n] = t
    lines = [l for l in check.splitlines() if l.split(":")[0].strip() in inputs or l.startswith("#")]
    lines += ["%s: %s" % (o, fmt(env[o])) for o in outs]
    with open(path, "w") as f:
        f.write(head + "\n=== check\n" + "\n".join(l for l in lines if l.strip()) + "\n" + sep + onnx)


for p in sys.argv[1:]:
    run(p)
