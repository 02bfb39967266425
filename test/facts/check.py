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


CHECKS = [is_float_again, missing_test_paths]

SELFTEST = [
    (is_float_again, "lib/x/y.c", "static int\nis_float(DType t)\n{\n"),
    (is_float_again, "lib/x/y.c", "\treturn t == DT_FLOAT16 || t == DT_FLOAT32 || t == DT_BFLOAT16;\n"),
    (is_float_again, "lib/x/y.c", "\treturn e == ONNX_FLOAT || e == ONNX_DOUBLE || e == ONNX_FLOAT16;\n"),
    (is_float_again, "lib/x/y.c", "\tcase DT_FLOAT16: case DT_BFLOAT16: case DT_FLOAT32:\n"),
    (missing_test_paths, "lib/x/y.h", " * (test/layers/rawcodes.sh). */\n"),
]


def main():
    bad = 0
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
