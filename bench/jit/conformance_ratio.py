#!/usr/bin/env python3
"""The archive path against the .pt2 path on the conformance suite (issue 33).

    ONLY=jit sh test/conformance/run.sh [BINARY]     (leaves $(dirname BINARY)/conformance)
    python3 bench/jit/conformance_ratio.py OUT [EXPECTED]

OUT is the folder run.sh left (convert.list, each ONNX.rc and ONNX.ort.rc),
EXPECTED test/conformance/expected.txt (its first two letters: the training
IR at opsets 18 and 23). A sample matches on a path when both opsets match.
Prints the samples, the matches of each path, the W and C of the archives,
and the causes of the samples the .pt2 path matches and the archive does
not, by count (the first refusal's ATen op and reason)."""
import collections
import re
import sys


def read(p):
    try:
        return open(p).read()
    except OSError:
        return None


def main(out, exp="test/conformance/expected.txt"):
    want = {}
    for line in open(exp):
        m = re.match(r"(\S+) (\S+) (\S{6})", line)
        if m:
            want[m[1] + " " + m[2]] = m[3]
    got, why = collections.defaultdict(dict), {}
    for line in open(out + "/convert.list"):
        key, _, _, onnx, _ = line.rstrip("\n").split("\t")
        entry, sid, ir, opset = key.split()
        if ir != "jit":
            continue
        rc = (read(onnx + ".rc") or "").strip()
        s = {"0": "M" if (read(onnx + ".ort.rc") or "").strip() == "0" else "W", "1": "R", "2": "U"}.get(rc, "C")
        k = entry + " " + sid
        got[k][opset] = s
        if s in "RU" and k not in why:
            m = re.search(r"(aten\.[A-Za-z0-9_.]+): (.*)", read(onnx + ".err") or "")
            why[k] = m[1] + ": " + m[2][:80] if m else (read(onnx + ".err") or "").split("\n")[0][-90:]
    pt2 = jit = only = bad = 0
    causes = collections.Counter()
    for k, letters in want.items():
        p = letters[:2] == "MM"
        j = got[k].get("18") == "M" and got[k].get("23") == "M"
        bad += sum(v in "WC" for v in got[k].values())
        pt2, jit, only = pt2 + p, jit + j, only + (j and not p)
        if p and not j:
            causes[why.get(k, "no archive (torch.jit.trace failed)" if not got[k] else "?")] += 1
    print(f"samples {len(want)}: .pt2 matches {pt2}, archive matches {jit} ({100 * jit / max(pt2, 1):.1f}% of "
          f".pt2; {only} only the archive); archive W or C: {bad}")
    for c, v in causes.most_common():
        print(f"{v:5d} {c}")


if __name__ == "__main__":
    main(*sys.argv[1:])
