"""Models for the capture-bundle tests: each factory returns what yobx_capture's CLI wants,
(model, args[, dynamic_shapes[, kwargs]]), and is named after what its bundle proves.
make_bundles.py captures them into test/models/bundles/NAME.yxc."""

import torch
import torch.nn as nn


def _seeded(m, seed=0):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.randn(p.shape, generator=g) / max(1, p.shape[-1]) ** 0.5)
    return m.eval()


def _x(*shape, seed=1):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


@torch._dynamo.disable
def _doubled(x):
    return x * 2


class StrictFails(nn.Module):
    """Calls a function dynamo must not trace: strict export fails, non-strict works."""
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return _doubled(self.fc(x)) + 1


def strict_fails():
    return _seeded(StrictFails()), (_x(2, 4),)


class LossModel(nn.Module):
    """multi_margin_loss stays one ATen op in the training IR (no ONNX lowering, no
    declared decomposition) and decomposes into gather/clamp/mean in core ATen: only the
    decomposed captures convert."""
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, y):
        return torch.nn.functional.multi_margin_loss(self.fc(x), y, reduction="none")


def only_decomposed():
    return _seeded(LossModel()), (_x(3, 4), torch.tensor([0, 3, 1]))


def _exporting():
    """torch.compiler.is_exporting() (torch 2.7+); is_compiling() before, which
    torch.export also sets while it traces."""
    f = getattr(torch.compiler, "is_exporting", None)
    return f() if f else torch.compiler.is_compiling()


class RefusesExport(nn.Module):
    """Raises under torch.export; torch.fx tracing evaluates that Python check once, at
    tracing time, so the traced module exports: only `tracing` captures."""
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        if _exporting():
            raise RuntimeError("this model refuses torch.export")
        return torch.tanh(self.fc(x))


def only_tracing():
    return _seeded(RefusesExport()), (_x(2, 4),)


class SmallMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))

    def forward(self, x):
        return self.net(x)


def every_strategy():
    """Every capture succeeds (jit and onnxscript too, when onnxscript is installed); the
    batch is dynamic."""
    batch = torch.export.Dim("batch", min=1, max=64)
    return _seeded(SmallMLP()), (_x(4, 6),), ({0: batch},)


class Block(nn.Module):
    """Linear then GELU: one level of nesting for the module records."""
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(n, n)
        self.act = nn.GELU()

    def forward(self, x):
        return self.act(self.fc(x))


class Nested(nn.Module):
    """Two Blocks in a Sequential, then a head: --verify's module fixtures (verify_*)."""
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(Block(6), Block(6))
        self.head = nn.Linear(6, 3)

    def forward(self, x):
        return self.head(self.blocks(x)) * 2


def verify_nested():
    return _seeded(Nested()), (_x(2, 6),)
