#!/usr/bin/env python3
"""make.py: the TorchScript code files test_tsparse parses.

Builds small modules in the running torch, saves each traced, traced then
frozen, and scripted (where the model allows) with torch.jit.save, and
extracts every code/**.py of the archives into test/unit/tsparse/<torch>/,
named <model>-<mode>.<path with dots>.py.  A file equal to one already
kept (this run, or the folder of a torch version before this one in
ORDER; digit runs such as mangled class numbers ignored) is dropped, and
so is one that adds too few lines to those kept, except for the ALWAYS
models, so the folders hold only distinct printer output.  Run it once per
torch version, in ORDER, from the repository root:

    ../shared/tools/torch-env.sh run sid python3 test/unit/tsparse/make.py      # torch 2.14
    ../shared/tools/torch-env.sh run trixie python3 test/unit/tsparse/make.py   # torch 2.6
    /usr/bin/python3 test/unit/tsparse/make.py                      # torch 1.13 (host)

A version's run rewrites its own folder only.  With TSPARSE_ALL=DIR it also
writes every code file, kept or not, under DIR/<torch>/ (to try the parser
on all of them; not committed).  The files must stay under 300 KB in all
(the run prints the total)."""
import enum
import glob
import hashlib
import io
import math
import os
import re
import sys
import warnings
import zipfile
from typing import Dict, List, NamedTuple, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

# Python's string hashes order the sets torch fills a class's constants
# from: a fixed seed makes the files the same on every run.
if os.environ.get("PYTHONHASHSEED") != "0":
    os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, PYTHONHASHSEED="0"))

warnings.filterwarnings("ignore")
torch.manual_seed(0)

HERE = os.path.dirname(os.path.abspath(__file__))
TAG = "torch-" + ".".join(torch.__version__.split("+")[0].split(".")[:2])
OUT = os.path.join(HERE, TAG)
BUDGET = 300 * 1024
# A version's files are compared with those of the versions before it here:
# after running one, run the ones after it again.
ORDER = ["torch-2.14", "torch-2.6", "torch-1.13"]
# The models whose every distinct file each version keeps, for test_tsparse's
# checks of known trees; the others' files are kept when they add lines.
ALWAYS = ("mlp", "flow", "ctx")


# ---- models ----

class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2)
        self.head = nn.Linear(4, 2)

    def forward(self, x):
        y = self.pool(F.relu(self.bn(self.conv(x))))
        y = F.adaptive_avg_pool2d(y, 1).flatten(1)
        return self.head(y)


class Attention(nn.Module):
    def __init__(self, d=8, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d, eps=1e-05)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        a = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d // self.heads), dim=-1)
        y = (a @ v).transpose(1, 2).reshape(b, t, d)
        return self.norm(x + self.out(y))


class MHA(nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x):
        return self.mha(x, x, x, need_weights=False)[0]


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)

    def forward(self, x):
        return self.layer(x)


class LSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 6, num_layers=2, batch_first=True)
        self.fc = nn.Linear(6, 2)

    def forward(self, x):
        y, (h, c) = self.lstm(x)
        return self.fc(y[:, -1]) + h.sum() + c.mean()


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Pair(NamedTuple):
    lo: Tensor
    hi: Tensor


@torch.jit.script
def clamp_pair(x: Tensor, lo: float = -1.5, hi: float = 1e-05) -> Pair:
    return Pair(x.clamp(min=lo), x.clamp(max=hi))


def helper(x: Tensor, scale: float = 2.0, names: Optional[List[str]] = None) -> Tensor:
    if names is not None and len(names) > 0:
        x = x * len(names)
    return x * scale


class Flow(nn.Module):
    """Every construct the printer writes for scripted control flow."""
    __constants__ = ["mode", "widths"]
    mode: torch.jit.Final[str]
    counts: Dict[str, int]
    maybe: Optional[Tensor]

    def __init__(self):
        super().__init__()
        self.mode = "sum"
        self.widths = [1, 2, 3]
        self.eps = 1e-05
        self.big = float("inf")
        self.tag = "a\"b\\c\n\t'd"
        self.counts = {"x": 1, "y": 2}
        self.maybe = None
        self.blocks = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 4)])
        self.named = nn.ModuleDict({"p": nn.ReLU(), "q": nn.Tanh()})
        self.seq = nn.Sequential(nn.Linear(4, 4), nn.Sigmoid())
        self.register_buffer("steps", torch.zeros(1))

    def pick(self, x: Tensor, k: int = 1, c: Color = Color.RED) -> Tuple[Tensor, Tensor]:
        if c == Color.GREEN:
            return x, x * 2
        elif k > 2:
            return x + 1, x
        else:
            return x - 1, x[:, 1:3]

    def forward(self, x: Tensor, n: int = 3, opt: Optional[Tensor] = None) -> Tensor:
        y = x
        for blk in self.blocks:
            y = blk(y)
        for name, m in self.named.items():
            if name != "q":
                y = m(y)
        y = self.seq(y)
        for i in range(n):
            if i == 1:
                continue
            if i >= 5:
                break
            y = y + i
        j = 0
        while j < n and not bool(y.sum() > 1e6):
            j += 1
            y *= 1.5
        for w in self.widths:
            y = y + w
        if opt is not None:
            y = y + opt
        if isinstance(opt, Tensor):
            y = y - 1
        if self.maybe is None:
            y = y / 2
        if self.tag == "a\"b\\c\n\t'd\x01":
            y = y.clamp(min=-math.inf, max=math.inf) + 1e20 * 0
        if 0 < n <= 10:
            y = y * 0.5
        assert n >= 0, "n must be non-negative"
        if n > 100:
            raise RuntimeError("too many: " + str(n))
        a, b = self.pick(y, k=n)
        d: Dict[str, Tensor] = {"a": a, "b": b}
        lst: List[int] = [v for v in self.widths]
        s = torch.jit.annotate(List[Tensor], [])
        s.append(d["a"])
        z = s[0] if len(s) > 0 else b
        z = z + self.counts["x"] + (self.eps if self.mode == "sum" else -self.big)
        z = z + len(self.tag) + len(lst) + (1 if "x" in self.counts else 0)
        z = z + float("nan") * 0 if z.dim() > 99 else z
        t = (1, 2.5, True)
        z = z * t[1] + (~torch.tensor([1], dtype=torch.int32)).float()
        z = helper(z, names=["u"]) + clamp_pair(z).lo
        p = clamp_pair(z)
        with torch.no_grad():
            z = z + p.hi * 0
        return z.abs() ** 2 % 7 // 1 + (x @ x.t()).sum()


class Ctx(nn.Module):
    """Loops over tensors, annotated empty containers, string formats."""
    def forward(self, x: Tensor, xs: List[Tensor]) -> Tuple[Tensor, List[int]]:
        out: List[int] = []
        acc = torch.zeros_like(x)
        for t in xs:
            acc = acc + t
            out.append(int(t.numel()))
        k = 0
        while bool(acc.max() < 10.0) and k < 4:
            acc = acc * 2.0
            k = k + 1
        fut = torch.jit.fork(torch.neg, acc)
        acc = torch.jit.wait(fut)
        msg = "got {} tensors".format(len(xs))
        if len(msg) == 0:
            print(msg)
        out2 = out[1:] + out[:1]
        del out2[0]
        return acc, out2


def models():
    """(name, module, example inputs, modes) with modes from trace, freeze, script."""
    import importlib.util
    m = [
        ("mlp", MLP(), (torch.randn(2, 4),), "trace freeze script"),
        ("cnn", CNN(), (torch.randn(1, 3, 8, 8),), "trace freeze script"),
        ("attn", Attention(), (torch.randn(2, 5, 8),), "trace freeze script"),
        ("mha", MHA(), (torch.randn(2, 5, 8),), "trace script"),
        ("encoder", Encoder(), (torch.randn(2, 5, 8),), "trace freeze script"),
        ("lstm", LSTM(), (torch.randn(2, 5, 4),), "trace freeze script"),
        ("flow", Flow(), (torch.randn(3, 4),), "script freeze"),
        ("ctx", Ctx(), (torch.randn(3), [torch.randn(3), torch.randn(3)]), "script"),
    ]
    if importlib.util.find_spec("torchvision"):
        import torchvision
        m += [
            ("resnet18", torchvision.models.resnet18(num_classes=10), (torch.randn(1, 3, 32, 32),),
             "trace freeze script"),
            ("mobilenet", torchvision.models.mobilenet_v3_small(num_classes=10),
             (torch.randn(1, 3, 32, 32),), "trace freeze script"),
        ]
    if TAG == "torch-2.14" and importlib.util.find_spec("transformers"):
        import transformers as tf
        bert = tf.BertModel(tf.BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=2,
                                          num_attention_heads=2, intermediate_size=24,
                                          max_position_embeddings=32, torchscript=True))
        gpt2 = tf.GPT2Model(tf.GPT2Config(vocab_size=50, n_embd=16, n_layer=2, n_head=2,
                                          n_positions=32, torchscript=True))
        gpt2.config.return_dict = False
        gpt2.config.use_cache = False
        bert.config.return_dict = False
        ids = torch.randint(0, 50, (1, 6))
        m += [("bert", bert, (ids,), "trace freeze"), ("gpt2", gpt2, (ids,), "trace freeze")]
    return m


# ---- archives to code files ----

def archive(model, inputs, mode):
    model.eval()
    if mode == "script":
        s = torch.jit.script(model)
    else:
        with torch.no_grad():
            s = torch.jit.trace(model, inputs, check_trace=False, strict=False)
        if mode == "freeze":
            s = torch.jit.freeze(s)
    if mode == "freeze" and isinstance(model, (Flow,)):
        s = torch.jit.freeze(torch.jit.script(model).eval())
    buf = io.BytesIO()
    torch.jit.save(s, buf)
    return zipfile.ZipFile(io.BytesIO(buf.getvalue()))


def lines(data):
    """A file's lines with every digit run blanked (mangled class numbers,
    temporaries _0, _1, constants): files that differ only there exercise
    the parser alike."""
    return set(re.sub(rb"[0-9]+", b"0", data).splitlines())


def novel(data, seen):
    """1 when data brings lines the kept files lack (a fifth of its own)."""
    ls = lines(data)
    new = len(ls - seen)
    return new * 5 >= len(ls) and new > 0


def shape(data):
    """The file with digit runs blanked, for an exact comparison."""
    return hashlib.sha256(re.sub(rb"[0-9]+", b"0", data)).hexdigest()


def others(root):
    """The lines and shapes of the files the versions before this one in
    ORDER hold (so a version's folder depends on those only)."""
    seen, shapes = set(), set()
    for tag in ORDER[:ORDER.index(TAG)]:
        for path in sorted(glob.glob(os.path.join(root, tag, "*.py"))):
            with open(path, "rb") as f:
                data = f.read()
            seen |= lines(data)
            shapes.add(shape(data))
    return seen, shapes


def main():
    os.makedirs(OUT, exist_ok=True)
    for old in glob.glob(os.path.join(OUT, "*.py")):
        os.remove(old)
    seen, shapes = others(HERE)
    kept = read = archives = 0
    for name, model, inputs, modes in models():
        for mode in modes.split():
            try:
                z = archive(model, inputs, mode)
            except Exception as e:  # a model this torch cannot script: said, not hidden
                if os.environ.get("MAKE_DEBUG"):
                    raise
                print(f"{TAG} {name}-{mode}: skipped ({type(e).__name__}: {str(e).splitlines()[0]})")
                continue
            archives += 1
            for info in z.infolist():
                parts = info.filename.split("/")
                if len(parts) < 3 or parts[1] != "code" or not info.filename.endswith(".py"):
                    continue
                read += 1
                data = z.read(info)
                rel = ".".join(parts[2:])
                if os.environ.get("TSPARSE_ALL"):
                    every = os.path.join(os.environ["TSPARSE_ALL"], TAG)
                    os.makedirs(every, exist_ok=True)
                    with open(os.path.join(every, f"{name}-{mode}.{rel}"), "wb") as f:
                        f.write(data)
                if shape(data) in shapes or not (name in ALWAYS or novel(data, seen)):
                    continue
                seen |= lines(data)
                shapes.add(shape(data))
                with open(os.path.join(OUT, f"{name}-{mode}.{rel}"), "wb") as f:
                    f.write(data)
                kept += 1
    total = sum(os.path.getsize(p) for p in glob.glob(os.path.join(HERE, "torch-*", "*.py")))
    print(f"{TAG}: {kept} of {read} files kept; all versions {total} bytes (budget {BUDGET})")
    # What each version's run read and kept, one line each, in ORDER: a
    # version whose output all equals its elders' leaves an empty folder.
    record = os.path.join(HERE, "versions.txt")
    runs = {}
    if os.path.exists(record):
        with open(record) as f:
            runs = dict(line.split(": ", 1) for line in f.read().splitlines() if ": " in line)
    runs[TAG] = f"torch {torch.__version__}, {archives} archives, {read} code files, {kept} kept"
    with open(record, "w") as f:
        f.writelines(f"{tag}: {runs[tag]}\n" for tag in ORDER if tag in runs)
    if total > BUDGET:
        sys.exit("over budget")


if __name__ == "__main__":
    main()
