"""make.py: the TorchScript archives test/unit/test_tsarchive.c reads.

Writes torch-X.Y/NAME.pt with the torch that runs it (1.13 as the host's
/usr/bin/python3, 2.6 and 2.14 through ../shared/tools/torch-env.sh run trixie|sid):

  linear.pt     torch.jit.trace(nn.Linear(3, 2))
  tree.pt       traced: submodules (Sequential, a custom one), float and
                int64 buffers, a tensor the trace captures (CONSTANTS.c0)
  scripted.pt   torch.jit.script: int, float, str, list and dict attributes,
                a Final constant, if and for
  frozen.pt     torch.jit.freeze of a scripted conv + batch norm + linear:
                everything in forward, weights in constants.pkl
  inline.pt     scripted.pt's module saved with the older debug format
                (text inline, no string table)
  versioned.pt  scripted gelu: format 10 in .data/version, an extra file
  truncated.pt  linear.pt cut short
  global.pt     linear.pt with a data.pkl that calls os.system

The tests find the lines they expect spans at through the `# SPAN:`
markers below, so edits here only need the archives made again:
  python3 test/models/jit-unit/make.py    (from the repository root)
"""
import io
import os
import sys
import zipfile
from typing import Dict, List

import torch
from torch import nn

try:
    from typing import Final
except ImportError:  # older Pythons
    from torch.jit import Final

here = os.path.dirname(os.path.abspath(__file__))
ver = ".".join(torch.__version__.split(".")[:2])
out = os.path.join(here, "torch-" + ver)


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.register_buffer("scale", torch.full((4,), 2.0))
        self.register_buffer("steps", torch.arange(3))

    def forward(self, x):
        return self.fc(x) * self.scale  # SPAN: tree-scale


class Tree(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Scale()
        self.b = nn.Sequential(nn.ReLU(), nn.Linear(4, 2))
        self.offset = torch.tensor([0.5, -0.5])   # not a buffer: the trace makes it a constant

    def forward(self, x):
        return self.b(self.a(x)) + self.offset  # SPAN: tree-add


class Scripted(nn.Module):
    k: Final[int] = 2

    def __init__(self):
        super().__init__()
        self.alpha = 0.25
        self.name = "scripted"
        self.sizes: List[int] = [1, 2, 3]
        self.table: Dict[str, int] = {"a": 1, "b": 2}
        self.register_buffer("bias", torch.ones(3))

    def forward(self, x):
        y = x * self.alpha + self.bias  # SPAN: scripted-first
        if bool(x.sum() > 0):
            y = y * self.k
        for i in range(len(self.sizes)):
            y = y + self.sizes[i] + self.table["a"]
        return y


class ConvBn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 1)
        self.bn = nn.BatchNorm2d(2)
        self.fc = nn.Linear(2, 2)

    def forward(self, x):
        y = self.bn(self.conv(x))
        return self.fc(y.mean([2, 3]))  # SPAN: frozen-fc


class Gelu(nn.Module):
    def forward(self, x):
        return nn.functional.gelu(x, approximate="tanh")


def save(m, name):
    path = os.path.join(out, name)
    torch.jit.save(m, path)
    return path


def rezip(src, name, replace):
    """src's entries into out/name (root folder renamed), some replaced."""
    dst = os.path.join(out, name)
    root = name[:-3] + "/"
    with zipfile.ZipFile(src) as zi, zipfile.ZipFile(dst, "w") as zo:
        for info in zi.infolist():
            rel = info.filename.split("/", 1)[1]
            data = replace.get(rel, zi.read(info.filename))
            zo.writestr(root + rel, data, zipfile.ZIP_STORED)


def main():
    torch.manual_seed(0)
    os.makedirs(out, exist_ok=True)
    linear = nn.Linear(3, 2)
    with torch.no_grad():   # values the test knows: weight[i][j] = (3i + j) / 8, bias 0.5, -1
        linear.weight.copy_(torch.arange(6.0).reshape(2, 3) / 8)
        linear.bias.copy_(torch.tensor([0.5, -1.0]))
    lin = save(torch.jit.trace(linear, torch.randn(1, 3)), "linear.pt")
    save(torch.jit.trace(Tree(), torch.randn(2, 4)), "tree.pt")
    scripted = torch.jit.script(Scripted())
    save(scripted, "scripted.pt")
    conv = ConvBn().eval()
    with torch.no_grad():
        conv.bn.running_mean.copy_(torch.tensor([0.1, -0.2]))
        conv.bn.running_var.copy_(torch.tensor([1.5, 0.5]))
    save(torch.jit.freeze(torch.jit.script(conv)), "frozen.pt")
    torch._C._set_should_use_format_with_string_table(False)
    save(scripted, "inline.pt")
    torch._C._set_should_use_format_with_string_table(True)
    torch.jit.save(torch.jit.script(Gelu()), os.path.join(out, "versioned.pt"),
                   _extra_files={"meta.txt": "made by make.py"})

    with open(lin, "rb") as f:
        whole = f.read()
    with open(os.path.join(out, "truncated.pt"), "wb") as f:
        f.write(whole[: len(whole) // 2])
    # os.system(("true",)): GLOBAL at offset 2, which the reader must refuse
    evil = b"\x80\x02cos\nsystem\nq\x00X\x04\x00\x00\x00trueq\x01\x85q\x02Rq\x03."
    rezip(lin, "global.pt", {"data.pkl": evil})
    print(out, sorted(os.listdir(out)))


if __name__ == "__main__":
    sys.exit(main())
