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


def unchecked_size(path, text):
    """Bytes computed from an input's counts go through core's size_bytes()
    and size_mul() (lib/core/size.c), which refuse a product that wraps."""
    if not re.match(r"lib/(read|onnx|pipeline)/", path):
        return []
    return [(n, "multiplies by an element size unchecked: use size_bytes() / size_mul()")
            for n, line in enumerate(text.split("\n"), 1)
            if re.search(r"\*\s*(\([a-z0-9_ ]+\)\s*)?dtype_size\(|dtype_size\([^()]*\)\s*\*", line)]


CHECKS = [is_float_again, missing_test_paths, contract_copied, opset_sentinel, rank_limit_again, unchecked_size]

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
    (unchecked_size, "lib/onnx/check.c", "\tif (len != (uint64_t)n * (uint64_t)dtype_size(dt))\n"),
    (unchecked_size, "lib/read/x.c", "\tt->storage_bytes = (uint64_t)(n * dtype_size(t->dtype));\n"),
]


def main():
    bad = 0
    some = sorted(pattern_contracts().items())[0]
    SELFTEST.append((contract_copied, "lib/opt/pat_x.c", "/* %s */\nint\n%s(Opt *o, int r)\n" % (some[1], some[0])))
    for check, path, text in SELFTEST:
        if not check(path, text):
            print("facts: %s does not catch its made-up case: %r" % (check.__name__, text))
            bad += 1
    files = sorted(glob.glob("lib/*/*.[ch]") + glob.glob("lib/*/*.def") + glob.glob("lib/lower/ops/*.[ch]") +
                   glob.glob("lib/lower/ops/*.def") + glob.glob("cmd/*.c") + glob.glob("cmd/*/*.c"))
    for path in files:
        text = open(path, encoding="utf-8", errors="replace").read()
        for check in CHECKS:
            for n, what in check(path, text):
                print("%s:%d: %s" % (path, n, what))
                bad += 1
    print("facts: %d files, %d checks: %s" % (len(files), len(CHECKS), "ok" if not bad else "%d found" % bad))
    return 1 if bad else 0


sys.exit(main())
