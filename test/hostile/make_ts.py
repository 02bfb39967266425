"""make_ts.py: the TorchScript archives of test/hostile/run.sh (issue 31).

    ../shared/tools/torch-env.sh run sid python3 /src/test/hostile/make_ts.py /src/test/hostile/data

torch is needed, so the archives are committed (test/hostile/data/*.pt, a
few KB each) and this script only remakes them:
  ts_names.pt    nine nested modules under 30-character attribute names, each
                 called twice, the innermost holding two weights: their
                 names pass 255 characters and agree on the first 255
                 (tb_fresh_name looped forever on them)
  ts_ints.pt     int attributes whose +, *, <<, // and % wrap or round as
                 TorchScript's int64 does (forward returns x + those ints)
  ts_divzero.pt  an int attribute divided by another that is 0
"""
import os
import sys

import torch

LONG = "attribute_with_a_long_name_%02d"   # 30 characters


class Leaf(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(3))
        self.v = torch.nn.Parameter(torch.full((3,), 2.0))

    def forward(self, x):
        return x * self.w + self.v


def nested(out):
    """Wrap0 .. Wrap8 around Leaf, each holding the next under its own
    30-character name and calling it twice; torch.jit.script needs their
    source in a file, so they are written to one and imported."""
    src = ["import torch", ""]
    for k in range(9):
        src += ["class Wrap%d(torch.nn.Module):" % k,
                "    def __init__(self, leaf):",
                "        super().__init__()",
                "        self.%s = %s" % (LONG % k, "leaf" if k == 0 else "Wrap%d(leaf)" % (k - 1)),
                "",
                "    def forward(self, x):",
                "        return self.%s(self.%s(x))" % (LONG % k, LONG % k),
                ""]
    path = os.path.join(out, "_nested_src.py")
    with open(path, "w") as f:
        f.write("\n".join(src))
    sys.path.insert(0, out)
    mod = __import__("_nested_src")
    return mod.Wrap8(Leaf())


class Ints(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.big = 2 ** 62
        self.mn = -2 ** 63
        self.m1 = -1
        self.neg = -7

    def forward(self, x):
        a = self.big * 4 + self.big * 4 + 5            # wraps to 5
        b = self.mn // self.m1                          # wraps to INT64_MIN
        c = self.neg // 2                               # -4
        d = self.neg % 2                                # 1
        e = (self.big + self.big) - 1                   # INT64_MAX... via wrap
        return x + float(a) + float(b == self.mn) + float(c) + float(d) + float(e > 0)


class DivZero(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = 5
        self.z = 0

    def forward(self, x):
        return x + float(self.a // self.z)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    x = torch.ones(3)
    torch.jit.save(torch.jit.script(nested(out)), os.path.join(out, "ts_names.pt"))
    os.remove(os.path.join(out, "_nested_src.py"))
    torch.jit.save(torch.jit.script(Ints()), os.path.join(out, "ts_ints.pt"))
    torch.jit.save(torch.jit.script(DivZero()), os.path.join(out, "ts_divzero.pt"))


if __name__ == "__main__":
    main()
