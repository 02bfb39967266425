"""check.py: facts written in one place stay there (issue 20).

Each check scans lib/ (and cmd/) for a fact written again outside its
table, and is first shown to catch a made-up instance, so a check that
stopped matching fails too.  Run from the repository root:
    python3 test/facts/check.py
"""
import glob
import os
import re
import sys

FLOATS_DT = ("DT_FLOAT16", "DT_BFLOAT16", "DT_FLOAT32", "DT_FLOAT64")
FLOATS_ONNX = ("ONNX_FLOAT16", "ONNX_BFLOAT16", "ONNX_FLOAT", "ONNX_DOUBLE")


def is_float_again(path, text):
    """'is this dtype a float': dtype.def's kind column, dtype_is_float()."""
    if path.endswith(("core/dtype.c", "core/dtype.def")):
        return []
    out = []
    for n, line in enumerate(text.split("\n"), 1):
        if re.match(r"^[a-z_]*is_float[a-z_]*\(", line):
            out.append((n, "defines its own float test: use dtype_is_float()"))
        tested = set(re.findall(r"(?:==|case)\s*([A-Z_0-9]+)\b", line))
        for names in (FLOATS_DT, FLOATS_ONNX):
            if len(tested & set(names)) >= 3:
                out.append((n, "lists the float dtypes: use dtype_is_float() / dtype_onnx_is_float()"))
    return out


def missing_test_paths(path, text):
    """A comment that cites a script of test/ names one that exists."""
    out = []
    for n, line in enumerate(text.split("\n"), 1):
        for m in re.finditer(r"\btest/[A-Za-z0-9_./-]+\.(?:sh|py|mjs|c)\b", line):
            if not os.path.exists(m.group(0)):
                out.append((n, "cites %s, which does not exist" % m.group(0)))
    return out


def norm(t):
    return re.sub(r"\s+", " ", t).strip()


def pattern_contracts():
    """{function: contract} from the rows of lib/opt/patterns.def."""
    text = open("lib/opt/patterns.def").read()
    rows = {}
    for m in re.finditer(r"^(?:PATTERN|PATTERN_FROM|PATTERN_OPSETS|PASS)\((\w+),(.*?)\)\n", text, re.M | re.S):
        fn = re.search(r"\b((?:pat|opt_pass)_\w+)\b", m.group(2))
        doc = norm("".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(2))))
        if fn and len(doc) > 40:
            rows[fn.group(1)] = doc
    return rows


CONTRACTS = None


def contract_copied(path, text):
    """A pattern's contract lives in its patterns.def row, not again above its function."""
    global CONTRACTS
    if not re.search(r"lib/opt/(pat|pass)_\w+\.c$", path):
        return []
    if CONTRACTS is None:
        CONTRACTS = pattern_contracts()
    out = []
    for m in re.finditer(r"(/\*(?:[^*]|\*(?!/))*\*/)\n(?:int|static int)\n(\w+)\(", text):
        doc = CONTRACTS.get(m.group(2))
        comment = norm(m.group(1)[2:-2].replace("\n *", " "))
        if doc and (doc in comment or (len(comment) > 40 and comment in doc)):
            out.append((text[:m.start()].count("\n") + 1, "repeats the contract of %s from patterns.def" % m.group(2)))
    return out


def opset_sentinel(path, text):
    """'any opset' is patterns.def's PATTERN form, not bounds written out."""
    if not path.endswith("patterns.def"):
        return []
    return [(n, "writes the any-opset bounds: use PATTERN or PATTERN_FROM")
            for n, line in enumerate(text.split("\n"), 1)
            if re.match(r"^(PATTERN\w*)\(.*, \d+, 99,\s*$", line)]


def rank_limit_again(path, text):
    """The rank limit is core.h's MAX_RANK, never a number of its own."""
    if path.endswith("core/core.h"):
        return []
    out = []
    for n, line in enumerate(text.split("\n"), 1):
        if re.search(r"#define \w*(RANK|DIMS)\w* \d+|\b\w*(RANK|DIMS)\w* = \d{2,}", line):
            out.append((n, "defines a rank limit of its own: use MAX_RANK"))
        m = re.search(r"\b(rank|ndim|n_dims) >=? (\d+)\b", line)
        if m and int(m.group(2)) >= 8:
            out.append((n, "compares a rank with %s: use MAX_RANK" % m.group(2)))
    return out


ELEM_TYPES = r"(?:DT|ONNX)_(?:U?INT(?:8|16|32|64)|FLOAT(?:16|32|64)?|BFLOAT16|DOUBLE|BOOL|COMPLEX\w*|FLOAT8\w*)"
HALF_BITS = [
    (r"\(uint32_t\)\s*[\w.>-]+\s*<<\s*16\b", "widens a bfloat16 by hand"),
    (r"\b0x7c00\b|\b0x7fff\s*\+|&\s*0x7fffff\b|>>\s*23\)\s*&\s*(?:0xff|255)\b|>>\s*10\)\s*&\s*(?:31|0x1f)\b",
     "takes a float's bits apart by hand"),
]


def declared_type(lines, name):
    """The type of name's nearest declaration above, or None."""
    for line in reversed(lines):
        m = re.search(r"^\s*(?:const\s+)?(\w+)\s+(?:[\w\s,*=()\[\]-]*?[\s,*])?" + name + r"\s*[;,=[)]", line)
        if m and m.group(1) not in ("return", "case", "else", "goto"):
            return m.group(1)
    return None


def elements_decoded(path, text):
    """An element's bytes become a number (and back) only in core/dtype.c's
    codec: no float or double memcpy'd from or to bytes, no switch over
    element types that memcpys, no half-float or bfloat16 bit twiddling."""
    if path.endswith(("core/dtype.c", "unit/test_dtype.c")):
        return []
    out = []
    lines = text.split("\n")
    for n, line in enumerate(lines, 1):
        for rx, what in HALF_BITS:
            if re.search(rx, line):
                out.append((n, what + ": use dtype_decode_f64() / dtype_encode_f64()"))
    start = 0
    for n, line in enumerate(lines + ["}"], 1):
        if line != "}":
            continue
        body = "\n".join(lines[start:n])
        for k, bl in enumerate(lines[start:n], start + 1):
            m = re.search(r"memcpy\(\s*&(\w+)\s*,|memcpy\([^,]+,\s*&(\w+)\s*,", bl)
            if m and declared_type(lines[start:k], m.group(1) or m.group(2)) in ("float", "double"):
                out.append((k, "copies a float element's bytes: use dtype_decode_f64() / dtype_encode_f64()"))
        cases = set(re.findall(r"case\s+(" + ELEM_TYPES + r")\s*:", body))
        if len(cases) >= 3 and "memcpy(" in body:
            out.append((start + 1, "a switch over %d element types that copies bytes: use the codec" % len(cases)))
        start = n
    return out



def unchecked_size(path, text):
    """Bytes computed from an input's counts go through core's size_bytes()
    and size_mul() (lib/core/size.c), which refuse a product that wraps."""
    if not re.match(r"lib/(read|onnx|pipeline)/", path):
        return []
    return [(n, "multiplies by an element size unchecked: use size_bytes() / size_mul()")
            for n, line in enumerate(text.split("\n"), 1)
            if re.search(r"\*\s*(\([a-z0-9_ ]+\)\s*)?dtype_size\(|dtype_size\([^()]*\)\s*\*", line)]


CHECKS = [is_float_again, missing_test_paths, contract_copied, opset_sentinel, rank_limit_again, elements_decoded,
          unchecked_size]

SELFTEST = [
    (is_float_again, "lib/x/y.c", "static int\nis_float(DType t)\n{\n"),
    (is_float_again, "lib/x/y.c", "\treturn t == DT_FLOAT16 || t == DT_FLOAT32 || t == DT_BFLOAT16;\n"),
    (is_float_again, "lib/x/y.c", "\treturn e == ONNX_FLOAT || e == ONNX_DOUBLE || e == ONNX_FLOAT16;\n"),
    (is_float_again, "lib/x/y.c", "\tcase DT_FLOAT16: case DT_BFLOAT16: case DT_FLOAT32:\n"),
    (missing_test_paths, "lib/x/y.h", " * (test/layers/rawcodes.sh). */\n"),
    (opset_sentinel, "lib/opt/patterns.def", 'PATTERN_OPSETS(X, "Mul", pat_x, DEFAULT, 1, 99,\n'),
    (opset_sentinel, "lib/opt/patterns.def", 'PATTERN_OPSETS(X, "Mul", pat_x, DEFAULT, 17, 99,\n'),
    (rank_limit_again, "lib/x/y.h", "#define FOLD_MAX_RANK 8\n"),
    (rank_limit_again, "lib/x/y.h", "enum { META_MAX_RANK = 64 };\n"),
    (rank_limit_again, "lib/x/y.c", "\tif (!sv || sv->rank < 2 || sv->rank > 16)\n"),
    (elements_decoded, "lib/x/y.c", "\tuint32_t w = (uint32_t)h << 16;\n"),
    (elements_decoded, "lib/x/y.c", "\tsign = (x >> 16) & 0x8000;\n\te = ((x >> 23) & 0xff) - 127 + 15;\n"),
    (elements_decoded, "test/unit/y.c", "static float\nat(const uint8_t *p)\n{\n\tfloat f;\n\tmemcpy(&f, p, 4);\n\treturn f;\n}\n"),
    (elements_decoded, "lib/x/y.c", "static void\nput(uint8_t *p, double x)\n{\n\tdouble d = x;\n\tmemcpy(p, &d, 8);\n}\n"),
    (elements_decoded, "lib/x/y.c", "static double\nget(int t, const uint8_t *p)\n{\n\tint32_t i;\n\tswitch (t) {\n"
     "\tcase DT_INT8: return (int8_t)*p;\n\tcase DT_UINT8: return *p;\n\tcase DT_INT32: memcpy(&i, p, 4); return i;\n\t}\n}\n"),
    (unchecked_size, "lib/onnx/check.c", "\tif (len != (uint64_t)n * (uint64_t)dtype_size(dt))\n"),
    (unchecked_size, "lib/read/x.c", "\tt->storage_bytes = (uint64_t)(n * dtype_size(t->dtype));\n"),
]


MACHINE_PATH = re.compile(rb"(?<![A-Za-z0-9_.~-])/(?:work|root|home|mnt|Users)/[A-Za-z0-9_.-]")


def machine_paths(path, data):
    """No file of the tree (scripts, docs, fixtures alike) names a path of one
    machine: generators reach the torch chroot by ../shared/tools/torch-env.sh
    (relative), and what they record is seen from the chroot's /src."""
    return [(data.count(b"\n", 0, m.start()) + 1, "names a path of one machine: %s" % m.group(0).decode("latin-1"))
            for m in MACHINE_PATH.finditer(data)]


def tree_files():
    """The files git tracks (the tree a fresh clone has)."""
    import subprocess
    out = subprocess.run(["git", "ls-files", "-z"], capture_output=True, check=True).stdout
    return sorted(f for f in out.decode().split("\0") if f and os.path.isfile(f))


def main():
    bad = 0
    # (made up from pieces, so that this file names no such path itself)
    for text in (b"torchrun=/" + b"work/wt/torchrun.sh\n", b'  File "/' + b'home/u/gen.py", line 3\n'):
        if not machine_paths("x.sh", text):
            print("facts: machine_paths does not catch its made-up case: %r" % text)
            bad += 1
    tree = tree_files()
    for path in tree:
        for n, what in machine_paths(path, open(path, "rb").read()):
            print("%s:%d: %s" % (path, n, what))
            bad += 1
    some = sorted(pattern_contracts().items())[0]
    SELFTEST.append((contract_copied, "lib/opt/pat_x.c", "/* %s */\nint\n%s(Opt *o, int r)\n" % (some[1], some[0])))
    for check, path, text in SELFTEST:
        if not check(path, text):
            print("facts: %s does not catch its made-up case: %r" % (check.__name__, text))
            bad += 1
    files = sorted(glob.glob("lib/*/*.[ch]") + glob.glob("lib/*/*.def") + glob.glob("lib/lower/ops/*.[ch]") +
                   glob.glob("lib/lower/ops/*.def") + glob.glob("cmd/*.c") + glob.glob("cmd/*/*.c"))
    files += [(f, [elements_decoded]) for f in sorted(glob.glob("lib/*/*/*.c") + glob.glob("test/unit/*.[ch]") +
                                                      glob.glob("test/fuzz/*.c") + glob.glob("test/*.c"))
              if not f.startswith("lib/lower/ops/")]
    files = [f if isinstance(f, tuple) else (f, CHECKS) for f in files]
    for path, checks in files:
        text = open(path, encoding="utf-8", errors="replace").read()
        for check in checks:
            for n, what in check(path, text):
                print("%s:%d: %s" % (path, n, what))
                bad += 1
    print("facts: %d files, %d checks, %d files of the tree for machine paths: %s" %
          (len(files), len(CHECKS), len(tree), "ok" if not bad else "%d found" % bad))
    return 1 if bad else 0


sys.exit(main())
