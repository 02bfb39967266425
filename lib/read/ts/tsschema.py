"""tsschema.py: writes lib/read/ts/tsschema.def, torch's operator schemas as rows.

Run from the worktree: the older torch versions dump their schemas, then
torch 2.14 (the sid chroot) writes the table with theirs added:

    /usr/bin/python3 lib/read/ts/tsschema.py --dump /tmp/ts-1.13.txt   # Debian 12's torch 1.13
    ../shared/tools/torch-env.sh run trixie python3 lib/read/ts/tsschema.py --dump ts-2.6.txt
    mv ts-2.6.txt /tmp/ && cp /tmp/ts-1.13.txt /tmp/ts-2.6.txt .
    ../shared/tools/torch-env.sh run sid python3 lib/read/ts/tsschema.py --old ts-2.6.txt ts-1.13.txt
    rm ts-2.6.txt ts-1.13.txt

(the chroots see only the worktree, hence the copies).  An overload the
older printed code can call but torch 2.14 no longer has (aten::qr,
aten::cholesky, 1.13's aten::frobenius_norm) is kept as an O row after
2.14's rows of its name, marked with the newest version that had it.

TorchScript chooses an overload by trying every schema of a name in the
order torch registered them (torch/csrc/jit/frontend/schema_matching.cpp),
so the rows keep that order within a name; names are sorted (ns, then
name, byte order) so tsschema.c can search them.  Kept: every aten:: and
prim:: schema and torchvision:: (the ops detection models print as
ops.torchvision.nms), the namespaces printed TorchScript code calls.
Left out: out= variants (overload `out` or `*_out`, or a keyword-only
`Tensor(a!) out` argument: printed code never passes out=) and Dimname
overloads (named tensors: printed code never calls them).

Defaults are written as TorchScript sees them, not as the schema text
abbreviates them: `int[2] padding=0` is "[0, 0]", ScalarType, Layout and
MemoryFormat defaults are their integer codes, strings are Python's repr
('none').  The file holds only facts the matcher or the IR builder reads:
argument names, types, keyword-only flags, defaults, fixed list lengths,
the return types as written, whether the op aliases or writes an argument,
and whether it takes `...`.
"""
import os
import re
import sys

import torch

try:
    import torchvision  # noqa: F401  (registers the torchvision:: ops)
except ImportError:
    pass

NAMESPACES = ("aten", "prim", "torchvision")

# real_type as torch prints it -> TsArgType suffix (ts.h).
TYPES = {
    "Tensor": "TENSOR", "Optional[Tensor]": "OPT_TENSOR",
    "List[Tensor]": "TENSORS", "List[Optional[Tensor]]": "OPT_TENSORS",
    "int": "INT", "SymInt": "INT", "Optional[int]": "OPT_INT",
    "List[int]": "INTS", "Optional[List[int]]": "OPT_INTS",
    "float": "FLOAT", "Optional[float]": "OPT_FLOAT",
    "List[float]": "FLOATS", "Optional[List[float]]": "OPT_FLOATS",
    "bool": "BOOL", "Optional[bool]": "OPT_BOOL", "List[bool]": "BOOLS",
    "number": "SCALAR", "Optional[number]": "OPT_SCALAR",
    "complex": "COMPLEX",
    "str": "STR", "Optional[str]": "OPT_STR",
    "ScalarType": "SCALAR_TYPE", "Optional[ScalarType]": "OPT_SCALAR_TYPE",
    "Layout": "LAYOUT", "Optional[Layout]": "OPT_LAYOUT",
    "MemoryFormat": "MEMORY_FORMAT", "Optional[MemoryFormat]": "OPT_MEMORY_FORMAT",
    "Device": "DEVICE", "Optional[Device]": "OPT_DEVICE",
    "Generator": "GENERATOR", "Optional[Generator]": "OPT_GENERATOR",
    # The type variable t (the same type wherever it stands in a schema);
    # Any, t? and the variables of __is__ (t1, t2) constrain nothing.
    "t": "ANY", "List[t]": "ANY_LIST", "List[Any]": "ANY_LIST",
    "t1": "FREE", "t2": "FREE", "Any": "FREE", "Optional[t]": "FREE",
}

# TorchScript's builtin functions (torch/csrc/jit/frontend/builtin_functions.cpp):
# functions written in TorchScript that a call may match after every operator
# schema of the name, in the order torch loads them.  Each is (ns, name, body,
# returns, args): body is what the function returns, in printed-code syntax
# over its argument names.  torch._C gives no list of them: these are facts
# from that file (torch 2.14 also loads the arithmetic ones for complex, not
# the comparisons), checked by test/unit/tsschema/make_cases.py's cases.
def builtin_functions():
    out = []
    swapped = [("mul", "torch.mul(b, a)"), ("add", "torch.add(b, a)"),
               ("ne", "torch.ne(b, a)"), ("eq", "torch.eq(b, a)"),
               ("sub", "torch.add(torch.neg(b), a)"),
               ("div", "torch.mul(torch.reciprocal(b), a)")]
    ordered = [("lt", "torch.gt(b, a)"), ("le", "torch.ge(b, a)"),
               ("gt", "torch.lt(b, a)"), ("ge", "torch.le(b, a)")]
    for scalars, ops in ((("FLOAT", "INT", "COMPLEX"), swapped), (("FLOAT", "INT"), ordered)):
        for scalar in scalars:
            for name, body in ops:
                out.append(("aten", name, body, ["Tensor"], "A(a, %s) A(b, TENSOR)" % scalar))
    for scalar, lname in (("FLOAT", "float"), ("INT", "int")):
        for name, n in (("single", 1), ("pair", 2), ("triple", 3), ("quadruple", 4)):
            out.append(("aten", "_" + name, "x", [lname + "[]"],
                        "N(x, %sS, %d)" % (scalar, n)))
    for rhs in ("SCALAR", "TENSOR"):
        out.append(("aten", "floordiv", "torch.floor_divide(self, other)", ["Tensor"],
                    "A(self, TENSOR) A(other, %s)" % rhs))
    out.append(("prim", "ndim", "torch.dim(a)", ["int"], "A(a, TENSOR)"))
    out.append(("prim", "T", "torch.numpy_T(a)", ["Tensor"], "A(a, TENSOR)"))
    return out


HEADER = """\
/* tsschema.def: torch's operator schemas, the rows TorchScript chooses an
 * overload from.  GENERATED by lib/read/ts/tsschema.py from torch %s's
 * torch._C._jit_get_all_schemas(): do not edit, rerun it.
 *
 * S(NS, NAME, OVERLOAD, ALIAS, VARARG, R(returns...), args...)
 *   ALIAS   0, 1 when a result is a view of an argument (Tensor(a)), 2 when
 *           an argument is written (Tensor(a!))
 *   VARARG  1 when the schema ends in `...` (extra positional arguments)
 *   R       the return types as written ("Tensor(a)", "int[]"; "..." for
 *           a variable count); R() for none
 * O("VERSION", NS, NAME, ...) as S, an overload torch 2.14 no longer has
 * but older printed code may call: VERSION is the newest torch that had it.
 * F(NS, NAME, "body", R(returns...), args...) is one of TorchScript's
 * builtin functions (builtin_functions.cpp: add(int a, Tensor b) returns
 * torch.add(b, a)), tried after the operators of its name.
 * Arguments, in schema order, are
 *   A(name, TYPE)              positional            D(name, TYPE, "default")
 *   N(name, TYPE, len)         positional int[len]   ND(name, TYPE, len, "default")
 *   K(name, TYPE)              keyword-only          KD(name, TYPE, "default")
 * TYPE names a TsArgType (TA_TENSOR ...) without its prefix.  Defaults are
 * the values TorchScript uses ("[0, 0]" for `int[2] padding=0`, integer
 * codes for ScalarType, Layout and MemoryFormat, strings as Python's repr).
 * Rows are sorted by namespace and name; one name's rows keep torch's
 * registration order, the order TorchScript tries them in. */
"""


def c_str(text):
    """text as a C string literal."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= ord(ch) < 127:
            out.append(ch)
        else:
            out.append("\\%03o" % ord(ch))
    return '"' + "".join(out) + '"'


def py_text(v):
    """A default value as TorchScript holds it, in Python's syntax."""
    if v is None or isinstance(v, (bool, int)):
        return repr(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(py_text(x) for x in v) + "]"
    raise SystemExit("tsschema.py: unexpected default %r" % (v,))


def returns_of(schema):
    """The return types as the schema text writes them, names dropped."""
    text = str(schema)
    ret = text[text.rindex(") -> ") + 5:]
    if ret.startswith("(") and ret.endswith(")"):
        ret = ret[1:-1]
    parts, depth, cur = [], 0, ""
    for ch in ret:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    out = []
    for p in parts:
        # "Tensor values" -> "Tensor"; "Tensor(a -> *) x" keeps its annotation.
        depth, cut = 0, len(p)
        for i, ch in enumerate(p):
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            elif ch == " " and depth == 0:
                cut = i
                break
        out.append(p[:cut])
    return out


NAMED = re.compile(r"[Dd]imname|names|named")
NAMED_OPS = ("align_as", "align_tensors", "align_to", "refine_names", "rename", "rename_")


def kept(schema):
    ns, name = schema.name.split("::")
    if ns not in NAMESPACES:
        return False
    if schema.overload_name == "out" or schema.overload_name.endswith("_out"):
        return False
    if any(a.is_out for a in schema.arguments):
        return False
    # Named tensors: torch 2.14 no longer registers these; 2.6 and 1.13 do,
    # with a Dimname written as str, so their overload names tell them.
    if "Dimname" in str(schema) or NAMED.search(schema.overload_name) or name in NAMED_OPS:
        return False
    return True


def arg_row(a):
    # torch 1.13 has no real_type: its ScalarType arguments read as int.
    t = TYPES.get(str(getattr(a, "real_type", a.type)), "OTHER")
    name = a.name
    if a.has_default_value():
        d = c_str(py_text(a.default_value))
        if a.kwarg_only:
            return "KD(%s, %s, %s)" % (name, t, d)
        if a.N:
            return "ND(%s, %s, %d, %s)" % (name, t, a.N, d)
        return "D(%s, %s, %s)" % (name, t, d)
    if a.kwarg_only:
        return "K(%s, %s)" % (name, t)
    if a.N:
        return "N(%s, %s, %d)" % (name, t, a.N)
    return "A(%s, %s)" % (name, t)


def alias_of(schema):
    if any(a.alias_info is not None and a.alias_info.is_write for a in schema.arguments):
        return 2
    return 1 if any(r.alias_info is not None for r in schema.returns) else 0


def schema_rows():
    """((ns, name, overload), S row) for the running torch's kept schemas."""
    out = []
    for s in torch._C._jit_get_all_schemas():
        if not kept(s):
            continue
        ns, name = s.name.split("::")
        text = str(s)
        vararg = 1 if ", ...)" in text or "(...)" in text else 0
        rets = returns_of(s)
        args = " ".join(arg_row(a) for a in s.arguments)
        if rets == ["()"] or rets == [""]:
            rets = []
        row = "S(%s, %s, %s, %d, %d, R(%s), %s)" % (
            ns, name, s.overload_name, alias_of(s), vararg,
            "".join(c_str(r) + ", " for r in rets), args)
        out.append(((ns, name, s.overload_name), row))
    return out


def main():
    args = sys.argv[1:]
    version = torch.__version__.split("+")[0]
    if args[:1] == ["--dump"] and len(args) == 2:
        with open(args[1], "w") as f:
            f.write("# torch %s\n" % ".".join(version.split(".")[:2]))
            f.write("".join(row + "\n" for _, row in schema_rows()))
        return
    if any(a.startswith("-") and a != "--old" for a in args) or (args and args[0] != "--old"):
        raise SystemExit("usage: tsschema.py [--dump FILE | --old DUMP...]")
    rows = []
    seen = set()
    for key, row in schema_rows():
        assert key not in seen, key
        seen.add(key)
        rows.append(((key[0], key[1], 0), row))
    nold = 0
    for path in args[1:]:   # newest first: a row keeps the newest version that has it
        with open(path) as f:
            lines = f.read().splitlines()
        old = lines[0].split()[-1]
        for line in lines[1:]:
            ns, name, ovl = [p.strip() for p in line[2:].split(",")[:3]]
            if (ns, name, ovl) not in seen:
                seen.add((ns, name, ovl))
                rows.append(((ns, name, 1), 'O("%s", %s' % (old, line[2:])))
                nold += 1
    for ns, name, body, rets, args in builtin_functions():
        row = "F(%s, %s, %s, R(%s), %s)" % (ns, name, c_str(body),
                                          "".join(c_str(r) + ", " for r in rets), args)
        rows.append(((ns, name, 2), row))
    # _jit_get_all_schemas lists each name's schemas in registration order,
    # old rows and builtins are kept in their order: a stable sort keeps it.
    rows.sort(key=lambda r: r[0])
    lines = [HEADER % version] + [r for _, r in rows]
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tsschema.def")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("%s: %d schemas of torch %s, %d of older ones, %d builtin functions"
          % (out, len(seen) - nold, version, nold, len(builtin_functions())), file=sys.stderr)


if __name__ == "__main__":
    main()
