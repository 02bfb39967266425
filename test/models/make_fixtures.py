#!/usr/bin/env python3
"""Generate the .pt2 test fixtures of yobx-export, with torch's own reference outputs.

Usage (run inside a torch chroot, see test/models/README.md):

    make_fixtures.py OUTDIR [NAME...]          export fixtures into OUTDIR
    make_fixtures.py --verify DIR [NAME...]    torch.export.load every DIR/*.pt2 and compare
                                               with DIR/NAME.io (all cases)
    make_fixtures.py --emulate-2.8 SRC DST [NAME...]
                                               rewrite torch>=2.9 archives of SRC into the
                                               torch 2.8 layout in DST (default names:
                                               mlp cnn inplace attention)
    make_fixtures.py --list                    list the fixtures

For every fixture NAME the generator writes:

    OUTDIR/NAME.pt2                 torch.export.save(ep)
    OUTDIR/NAME.io/manifest.json    {"torch": ..., "cases": [{"name", "inputs", "outputs"}]}
    OUTDIR/NAME.io/caseK/in_I.npy   user inputs (tensors only, pytree order)
    OUTDIR/NAME.io/caseK/out_I.npy  ep.module()(*inputs), flattened in pytree order

bfloat16 arrays are stored as their uint16 bit pattern ("dtype": "bfloat16" in the
manifest); python ints / SymInts become 0-d int64 arrays, python floats 0-d float64.

When OUTDIR is a folder named torch-X.Y and torch >= 2.9, the torch 2.8 emulations of
mlp/cnn/inplace/attention are also written to the sibling folder torch-2.8
(disable with --no-2.8).

The script has to run under torch 2.6 (Debian trixie) and torch 2.14 (Debian sid).
"""

import argparse
import copy
import importlib
import json
import os
import random
import re
import shutil
import sys
import tempfile
import traceback
import warnings
import zipfile
import zlib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim
from torch.utils import _pytree as pytree

torch.set_num_threads(1)

TORCH_VERSION = torch.__version__
TV = tuple(int(p) for p in TORCH_VERSION.split("+")[0].split(".")[:2])

# Fixtures the torch 2.8 emulation is made of.
EMULATE_28_DEFAULT = ["mlp", "cnn", "inplace", "attention"]


class Skip(Exception):
    """This torch version cannot build/export a fixture; the message says why."""


def seed_all(name):
    seed = zlib.crc32(name.encode()) & 0x7FFFFFFF
    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)
    return seed


class Fixture:
    """What to export: a module, its example args, and optional extra test cases."""

    def __init__(self, model, args, dynamic_shapes=None, decompose=False, cases=(),
                 strict=False, allow_strict_fallback=False, case0_desc="example inputs"):
        self.model = model
        self.args = tuple(args)
        self.dynamic_shapes = dynamic_shapes
        self.decompose = decompose
        self.cases = list(cases)  # [(desc, args_tuple)]
        self.strict = strict
        self.allow_strict_fallback = allow_strict_fallback
        self.case0_desc = case0_desc
        self.notes = []


# --------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------

class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 8, 3, stride=2)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 4)
        with torch.no_grad():  # non-trivial BatchNorm statistics and affine parameters
            self.bn.running_mean.copy_(torch.randn(8) * 0.2)
            self.bn.running_var.copy_(torch.rand(8) + 0.5)
            self.bn.weight.copy_(1.0 + 0.2 * torch.randn(8))
            self.bn.bias.copy_(0.1 * torch.randn(8))
            self.bn.num_batches_tracked.fill_(7)

    def forward(self, x):
        x = self.pool(self.relu(self.bn(self.conv1(x))))
        x = self.gap(self.conv2(x))
        return self.fc(torch.flatten(x, 1))


class AttentionBlock(nn.Module):
    """Pre-LN transformer block: causal SDPA attention + GELU MLP, both with residuals."""

    def __init__(self, d=16, heads=2, ff=32):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.v = nn.Linear(d, d)
        self.o = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, ff)
        self.fc2 = nn.Linear(ff, d)
        with torch.no_grad():
            for ln in (self.ln1, self.ln2):
                ln.weight.copy_(1.0 + 0.1 * torch.randn(d))
                ln.bias.copy_(0.1 * torch.randn(d))

    def forward(self, x):
        b, t, d = x.shape
        hd = d // self.heads
        h = self.ln1(x)
        q = self.q(h).reshape(b, t, self.heads, hd).transpose(1, 2)
        k = self.k(h).reshape(b, t, self.heads, hd).transpose(1, 2)
        v = self.v(h).reshape(b, t, self.heads, hd).transpose(1, 2)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        a = a.transpose(1, 2).reshape(b, t, d)
        x = x + self.o(a)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class InplaceOps(nn.Module):
    """In-place ops as they appear in the training IR (user-input and buffer mutations,
    index_put_, copy_ into a slice, view mutation)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("steps", torch.zeros((), dtype=torch.int64))        # mutated
        self.register_buffer("scale", 1.0 + 0.5 * torch.rand(6), persistent=False)  # constant

    def forward(self, x, y, mask, val):
        # x (4, 6) f32, y (4, 2) f32, mask (4, 6) bool, val (6,) f32
        self.steps.add_(1)                      # buffer mutation
        x.add_(1)                               # user-input mutation
        x.mul_(self.scale)
        x.masked_fill_(mask, -1.5)
        idx = torch.tensor([0, 2])              # lifted tensor constant
        x[idx] = val                            # index_put_
        x2 = x.clone()
        x2[:, :2].copy_(y)                      # copy_ into a slice of a clone
        x2.relu_()
        v = x.view(2, 12)
        v.mul_(2)                               # must update x through the view
        x2.add_(self.steps)                     # uses the mutated buffer (steps == 1 on first call)
        return x, x2, v.sum(dim=1)


class DerivedDyn(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(3))

    def forward(self, x, y):
        # x (B, 2*S), y (B, S)
        b, s = y.shape
        xr = x.reshape(b, s, 2)
        z = torch.cat([xr, y.unsqueeze(-1)], dim=-1) * self.w      # (B, S, 3)
        w = torch.cat([x, y], dim=1)                                # (B, 3*S)
        pairs = x.view(b, 2, s) + y.unsqueeze(1)                    # (B, 2, S)
        return z, w, pairs.flatten(1)


class CondModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.w = nn.Parameter(torch.randn(4))

    def forward(self, x):
        def true_fn(x):
            return self.lin(x) * self.w          # closure over parameters

        def false_fn(x):
            return x.cos() - self.w

        return torch.cond(x.sum() > 0, true_fn, false_fn, (x,))


def _hop(name):
    """torch._higher_order_ops.<name>.<name>, the function (same path in 2.6 and 2.14).
    Resolved at import time: strict (dynamo) export cannot trace importlib."""
    try:
        mod = importlib.import_module("torch._higher_order_ops." + name)
        return getattr(mod, name)
    except (ImportError, AttributeError):
        return None


while_loop = _hop("while_loop")
scan = _hop("scan")


class WhileModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(0.5 * torch.randn(4))

    def forward(self, x, n):
        # x (2, 4) f32, n () int64: loop n times, count iterations and accumulate.

        def cond_fn(i, acc):
            return i < n

        def body_fn(i, acc):
            return i + 1, acc * torch.tanh(self.w) + x

        i0 = torch.zeros((), dtype=torch.int64)
        i, acc = while_loop(cond_fn, body_fn, (i0, x.clone()))
        return i, acc


class ScanModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(3))

    def forward(self, xs):
        # xs (5, 3): running sum over dim 0, carry_t = carry_{t-1} + xs[t];
        # returns the final carry and ys_t = carry_t * w (closure over a parameter).
        # (torch 2.6 requires the carry to keep init's requires_grad, so w only enters ys.)

        def combine(carry, x):
            nc = carry + x
            return nc, nc * self.w

        init = torch.zeros_like(xs[0])
        return scan(combine, init, xs, dim=0)


class Dtypes(nn.Module):
    """bfloat16 / float16 / int / bool inputs and outputs."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4).to(torch.bfloat16))

    def forward(self, x, xb):
        # x (2, 4) f32, xb (2, 4) bf16
        b = xb * self.w + x.to(torch.bfloat16)
        h = x.half() * 0.5 + 1.0
        i = (x * 10).to(torch.int32)
        return b, h, i, x > 0


# --------------------------------------------------------------------------------------
# Fixture builders: each is called right after seed_all(name)
# --------------------------------------------------------------------------------------

def r(*shape):
    return torch.randn(*shape)


def fx_mlp():
    return Fixture(MLP().eval(), (r(2, 8),))


def fx_mlp_decomp():
    f = fx_mlp()
    f.decompose = True
    return f


def fx_cnn():
    return Fixture(CNN().eval(), (r(2, 3, 16, 16),))


def fx_cnn_decomp():
    f = fx_cnn()
    f.decompose = True
    return f


def fx_attention():
    return Fixture(AttentionBlock().eval(), (r(2, 6, 16),))


def fx_attention_decomp():
    f = fx_attention()
    f.decompose = True
    return f


def fx_inplace():
    x = r(4, 6)
    mask = torch.rand(4, 6) < 0.3
    f = Fixture(InplaceOps().eval(), (x, r(4, 2), mask, r(6)))
    return f


def fx_mlp_dyn():
    batch = Dim("batch", min=1, max=1024)
    cases = [("min batch=1", (r(1, 8),)), ("mid batch=37", (r(37, 8),)),
             ("large batch=64", (r(64, 8),))]
    return Fixture(MLP().eval(), (r(2, 8),), dynamic_shapes={"x": {0: batch}}, cases=cases)


def fx_attention_dyn():
    batch = Dim("batch", min=1, max=1024)
    seq = Dim("seq", min=2, max=128)
    cases = [("min batch=1 seq=2", (r(1, 2, 16),)), ("mid batch=3 seq=37", (r(3, 37, 16),)),
             ("large batch=4 seq=128", (r(4, 128, 16),))]
    return Fixture(AttentionBlock().eval(), (r(2, 6, 16),),
                   dynamic_shapes={"x": {0: batch, 1: seq}}, cases=cases)


def fx_derived_dyn():
    batch = Dim("batch", min=1, max=1024)
    s = Dim("s", min=1, max=64)
    ds = {"x": {0: batch, 1: 2 * s}, "y": {0: batch, 1: s}}
    cases = [("min batch=1 s=1", (r(1, 2), r(1, 1))), ("mid batch=5 s=11", (r(5, 22), r(5, 11))),
             ("large batch=64 s=64", (r(64, 128), r(64, 64)))]
    return Fixture(DerivedDyn().eval(), (r(2, 6), r(2, 3)), dynamic_shapes=ds, cases=cases)


def fx_cond():
    x = r(2, 4).abs() + 0.1           # sum > 0: true branch
    cases = [("false branch (negated input)", (-x,)),
             ("true branch (random)", ((r(2, 4).abs() + 0.1),)),
             ("false branch (random)", (-(r(2, 4).abs() + 0.1),))]
    return Fixture(CondModel().eval(), (x,), cases=cases, allow_strict_fallback=True,
                   case0_desc="example inputs (true branch)")


def fx_while_loop():
    n = lambda k: torch.tensor(k, dtype=torch.int64)  # noqa: E731
    cases = [("n=0 (no iteration)", (r(2, 4), n(0))), ("n=1", (r(2, 4), n(1))),
             ("n=7", (r(2, 4), n(7)))]
    return Fixture(WhileModel().eval(), (r(2, 4), n(3)), cases=cases, allow_strict_fallback=True,
                   case0_desc="example inputs (n=3)")


def fx_scan():
    return Fixture(ScanModel().eval(), (r(5, 3),), cases=[("random", (r(5, 3),))],
                   allow_strict_fallback=True)


def fx_dtypes():
    x = r(2, 4)
    xb = r(2, 4).to(torch.bfloat16)
    return Fixture(Dtypes().eval(), (x, xb), cases=[("random", (r(2, 4), r(2, 4).to(torch.bfloat16)))])


def _require_transformers():
    try:
        import transformers  # noqa: F401
    except ImportError as e:
        raise Skip("transformers is not installed in this chroot (%s)" % e)
    return transformers


def _token_inputs(vocab, b=2, t=8):
    ids = torch.randint(0, vocab, (b, t), dtype=torch.int64)
    mask = torch.ones(b, t, dtype=torch.int64)
    mask[1, t - 3:] = 0                    # right padding in the second sequence
    return ids, mask


def fx_tiny_bert():
    transformers = _require_transformers()
    cfg = transformers.BertConfig(
        vocab_size=100, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=32, type_vocab_size=2,
        hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    cfg.return_dict = False
    try:
        model = transformers.BertModel(cfg, add_pooling_layer=True)
    except TypeError:
        model = transformers.BertModel(cfg)
    model.eval()
    ids, mask = _token_inputs(100)
    ids2, mask2 = _token_inputs(100)
    f = Fixture(model, (ids, mask), cases=[("random ids, padded", (ids2, mask2))])
    f.notes.append("transformers %s, attn_implementation=%s" % (
        transformers.__version__, getattr(cfg, "_attn_implementation", "?")))
    return f


class _LlamaWrapper(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, attention_mask):
        out = self.m(input_ids=input_ids, attention_mask=attention_mask, use_cache=False,
                     return_dict=False)
        return out[0]


def fx_tiny_llama():
    transformers = _require_transformers()
    cfg = transformers.LlamaConfig(
        vocab_size=100, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
        num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=32,
        use_cache=False, tie_word_embeddings=False)
    model = transformers.LlamaForCausalLM(cfg).eval()
    ids, mask = _token_inputs(100)
    mask[1, :] = 1                         # causal LM: no padding in the example
    ids2, mask2 = _token_inputs(100)
    mask2[1, :] = 1
    f = Fixture(_LlamaWrapper(model).eval(), (ids, mask), cases=[("random ids", (ids2, mask2))])
    f.notes.append("transformers %s, logits only" % transformers.__version__)
    return f


# --------------------------------------------------------------------------------------
# Op-coverage fixtures: helpers
#
# The fixtures below exist to put every ATen op the converter has to cover into a graph
# that onnxruntime can check. They are SlimFixtures (no debugging metadata, see README),
# and most of them have a _decomp twin (core ATen, ep.run_decompositions()).
# --------------------------------------------------------------------------------------

class SlimFixture(Fixture):
    """A Fixture saved without debugging node metadata (strip_metadata: it is a third to
    a half of the JSON of the bigger fixtures, see README "Size"). fallback: (note,
    builder) tried when this fixture does not export; the note and the error go to the
    manifest's "notes"."""

    def __init__(self, model, args, fallback=None, **kw):
        super().__init__(model, args, **kw)
        self.slim = True
        self.fallback = fallback


def liven(model):
    """Re-initialize the weights of linear and conv layers with randn / sqrt(fan_in)
    (the models' own inits, e.g. std 0.01 classifier heads, leave outputs that hardly
    depend on the input), and replace the constant initializations that would hide
    mistakes (zero biases and heads, unit norm weights, tiny layer scales, BatchNorm
    running stats 0/1) by seeded random values, so that every parameter and buffer
    affects the outputs."""
    convs = (nn.Linear, nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.ConvTranspose1d,
             nn.ConvTranspose2d, nn.ConvTranspose3d)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, convs):
                m.weight.copy_(torch.randn(m.weight.shape) * max(1, m.weight[0].numel()) ** -0.5)
        for _, p in model.named_parameters():
            if not p.is_floating_point() or p.numel() == 0:
                continue
            flat = p.detach().reshape(-1)
            if p.numel() > 1 and not bool((flat == flat[0]).all()):
                continue
            v = float(flat[0])
            if v == 0.0:
                if p.dim() >= 2:
                    p.copy_(torch.randn(p.shape) * max(1, p[0].numel()) ** -0.5)
                else:
                    p.copy_(0.1 * torch.randn(p.shape))
            elif abs(v) < 1e-3:                                   # layer scale 1e-6
                p.copy_(0.5 + 0.2 * torch.randn(p.shape))
            else:
                p.copy_(v * (1.0 + 0.2 * torch.randn(p.shape)))
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm) and m.running_mean is not None:
                m.running_mean.copy_(0.1 * torch.randn(m.running_mean.shape))
                m.running_var.copy_(0.5 + torch.rand(m.running_var.shape))
    return model


def decomposed(builder):
    """The _decomp twin of a fixture builder (fallbacks decomposed too)."""
    def build():
        fx = builder()
        fx.decompose = True
        if getattr(fx, "fallback", None) is not None:
            note, fb = fx.fallback
            fx.fallback = (note, decomposed(fb))
        return fx
    return build


def flat_cat(*ts):
    """All tensors flattened and concatenated: one output instead of many (every output
    file costs a 4 KB block); the order of the pieces is documented at each use."""
    return torch.cat([t.reshape(-1) for t in ts])


def _tvm(mod):
    try:
        return importlib.import_module("torchvision.models." + mod)
    except ImportError as e:
        raise Skip("torchvision is not installed (%s)" % e)


def _tv_fixture(model, size=16):
    return SlimFixture(liven(model).eval(), (r(2, 3, size, size),))


# --------------------------------------------------------------------------------------
# torchvision classification (tiny widths, torchvision's own classes and blocks)
# --------------------------------------------------------------------------------------

def _tiny_resnet(layers):
    """torchvision ResNet (its _make_layer and forward) with small widths. layers: one
    (block class name, planes, stride, groups) per stage; the unused stages (of 4) are
    identities."""
    resnet = _tvm("resnet")

    class TinyResNet(resnet.ResNet):
        def __init__(self):
            nn.Module.__init__(self)
            self._norm_layer = nn.BatchNorm2d
            self.inplanes = 4
            self.dilation = 1
            self.base_width = 64
            self.conv1 = nn.Conv2d(3, 4, kernel_size=7, stride=2, padding=3, bias=False)
            self.bn1 = nn.BatchNorm2d(4)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
            for i in range(4):
                if i < len(layers):
                    block, planes, stride, groups = layers[i]
                    self.groups = groups
                    layer = self._make_layer(getattr(resnet, block), planes, 1, stride=stride)
                else:
                    layer = nn.Identity()
                setattr(self, "layer%d" % (i + 1), layer)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(self.inplanes, 10)

    return TinyResNet()


def fx_tv_resnet():
    # a BasicBlock, then a ResNeXt-style Bottleneck (groups=2 in its 3x3 conv) with a
    # strided downsample; layer3 and layer4 are identities
    return _tv_fixture(_tiny_resnet([("BasicBlock", 4, 1, 1), ("Bottleneck", 4, 2, 2)]), 16)


def fx_tv_mobilenet_v2():
    mv2 = _tvm("mobilenetv2")
    misc = importlib.import_module("torchvision.ops.misc")
    # one inverted residual block: expansion 6, depthwise, residual connection
    m = mv2.MobileNetV2(num_classes=10, width_mult=0.25, round_nearest=4,
                        inverted_residual_setting=[[6, 32, 1, 1]])
    # the last 1x1 conv is 1280 wide whatever width_mult is: make it 16
    m.features[-1] = misc.Conv2dNormActivation(8, 16, kernel_size=1, norm_layer=nn.BatchNorm2d,
                                               activation_layer=nn.ReLU6)
    m.classifier[1] = nn.Linear(16, 10)
    m.last_channel = 16
    return _tv_fixture(m, 16)


def fx_tv_mobilenet_v3():
    mv3 = _tvm("mobilenetv3")
    C = mv3.InvertedResidualConfig
    setting = [C(8, 3, 8, 8, True, "RE", 2, 1, 1.0),      # SE, ReLU, no expansion, stride 2
               C(8, 5, 16, 8, True, "HS", 1, 2, 1.0)]     # hardswish, SE, dilation 2, residual
    return _tv_fixture(mv3.MobileNetV3(setting, last_channel=32, num_classes=10), 16)


def fx_tv_efficientnet():
    ef = _tvm("efficientnet")
    import functools
    # FusedMBConv with expansion and residual (stochastic depth), MBConv 5x5 stride 2
    # with SE; SiLU everywhere
    setting = [ef.FusedMBConvConfig(2, 3, 1, 8, 8, 1), ef.MBConvConfig(2, 5, 2, 8, 16, 1)]
    m = ef.EfficientNet(setting, dropout=0.2, stochastic_depth_prob=0.2, num_classes=10,
                        norm_layer=functools.partial(nn.BatchNorm2d, eps=1e-3), last_channel=32)
    return _tv_fixture(m, 16)


def fx_tv_regnet():
    rg = _tvm("regnet")
    # one RegNetY block: grouped 3x3 conv, SE, strided projection shortcut
    bp = rg.BlockParams(depths=[1], widths=[8], group_widths=[4],
                        bottleneck_multipliers=[1.0], strides=[2], se_ratio=0.25)
    return _tv_fixture(rg.RegNet(bp, num_classes=10, stem_width=8), 16)


def fx_tv_shufflenet():
    sh = _tvm("shufflenetv2")
    # stage2 = a stride-2 unit and a stride-1 unit (chunk + channel_shuffle); stage3 and
    # stage4 are identities
    m = sh.ShuffleNetV2([2, 1, 1], [8, 16, 16, 16, 16], num_classes=10)
    m.stage3 = nn.Identity()
    m.stage4 = nn.Identity()
    return _tv_fixture(m, 16)


def fx_tv_squeezenet():
    sq = _tvm("squeezenet")
    m = sq.SqueezeNet(version="1_1", num_classes=10)   # its forward, small Fire modules
    m.features = nn.Sequential(
        nn.Conv2d(3, 8, kernel_size=3, stride=2, padding=1), nn.ReLU(inplace=True),
        nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
        sq.Fire(8, 4, 8, 8), sq.Fire(16, 4, 8, 8),
        nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
        sq.Fire(16, 4, 8, 8))
    m.classifier = nn.Sequential(nn.Dropout(p=0.5), nn.Conv2d(16, 10, kernel_size=1),
                                 nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d((1, 1)))
    return _tv_fixture(m, 16)


def fx_tv_densenet():
    dn = _tvm("densenet")
    return _tv_fixture(dn.DenseNet(growth_rate=4, block_config=(1, 1), num_init_features=8,
                                   bn_size=2, num_classes=10), 16)


def fx_tv_googlenet():
    gn = _tvm("googlenet")
    C, I = gn.BasicConv2d, gn.Inception

    class TinyGoogLeNet(gn.GoogLeNet):
        """torchvision GoogLeNet's forward (transform_input, eval, no aux heads) over
        small BasicConv2d blocks and one Inception block; the other Inception blocks are
        identities, the max pools are all there."""

        def __init__(self):
            nn.Module.__init__(self)
            self.aux_logits = False
            self.transform_input = True
            self.conv1 = C(3, 8, kernel_size=7, stride=2, padding=3)
            self.maxpool1 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
            self.conv2 = C(8, 8, kernel_size=1)
            self.conv3 = C(8, 12, kernel_size=3, padding=1)
            self.maxpool2 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
            self.inception3a = I(12, 4, 4, 6, 2, 3, 3)
            self.inception3b = nn.Identity()
            self.maxpool3 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
            self.inception4a = nn.Identity()
            self.inception4b = nn.Identity()
            self.inception4c = nn.Identity()
            self.inception4d = nn.Identity()
            self.inception4e = nn.Identity()
            self.maxpool4 = nn.MaxPool2d(2, stride=2, ceil_mode=True)
            self.inception5a = nn.Identity()
            self.inception5b = nn.Identity()
            self.aux1 = None
            self.aux2 = None
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.dropout = nn.Dropout(p=0.2)
            self.fc = nn.Linear(16, 10)

    return _tv_fixture(TinyGoogLeNet(), 24)


def fx_tv_vit():
    vt = _tvm("vision_transformer")
    m = vt.VisionTransformer(image_size=16, patch_size=4, num_layers=1, num_heads=2,
                             hidden_dim=16, mlp_dim=32, num_classes=10)
    return _tv_fixture(m, 16)


def fx_tv_convnext():
    cn = _tvm("convnext")
    m = cn.ConvNeXt([cn.CNBlockConfig(8, 16, 1), cn.CNBlockConfig(16, None, 1)],
                    stochastic_depth_prob=0.1, layer_scale=0.5, num_classes=10)
    return _tv_fixture(m, 16)


def _tiny_swin(v2, depths, heads):
    sw = _tvm("swin_transformer")
    kw = {}
    if v2:
        kw = dict(block=sw.SwinTransformerBlockV2, downsample_layer=sw.PatchMergingV2)
    return sw.SwinTransformer(patch_size=[2, 2], embed_dim=8, depths=depths, num_heads=heads,
                              window_size=[4, 4], stochastic_depth_prob=0.1, num_classes=10, **kw)


def fx_tv_swin():
    # 16x16 image, patch 2: 8x8 tokens in 4 windows of 4x4; the second block shifts the
    # windows (roll + attention mask). One stage: patch merging is in tv_swin_v2.
    return _tv_fixture(_tiny_swin(False, [2], [2]), 16)


def fx_tv_swin_v2():
    # one block per stage (the shifted windows are in tv_swin), PatchMergingV2 between
    return _tv_fixture(_tiny_swin(True, [1, 1], [1, 2]), 16)


class TinySegHead(nn.Module):
    """Conv backbone (stride 4), torchvision's DeepLabV3 ASPP (rates 1 and 2; its pooling
    branch is adaptive_avg_pool2d(1) + bilinear upsampling) and FCNHead, then upsampling
    back to the input size like the segmentation models do."""

    def __init__(self):
        super().__init__()
        dl = _tvm("segmentation.deeplabv3")
        fcn = _tvm("segmentation.fcn")
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
            nn.Conv2d(8, 8, 3, stride=2, padding=1), nn.ReLU())
        self.aspp = dl.ASPP(8, [1, 2], out_channels=8)
        self.head = fcn.FCNHead(8, 2)

    def forward(self, x):
        size = x.shape[-2:]
        y = self.head(self.aspp(self.backbone(x)))                    # (B, 2, H/4, W/4)
        up = torch.stack([F.interpolate(y, size=size, mode="bilinear", align_corners=False),
                          F.interpolate(y, size=size, mode="bilinear", align_corners=True),
                          F.interpolate(y, size=size, mode="nearest")])
        # by scale factor: bilinear x2 and nearest x2, concatenated on channels
        sc = torch.cat([F.interpolate(y, scale_factor=2.0, mode="bilinear", align_corners=False),
                        F.interpolate(y, scale_factor=2.0, mode="nearest")], dim=1)
        return up, sc


def fx_tv_seghead():
    _tvm("segmentation.deeplabv3")
    return _tv_fixture(TinySegHead(), 16)


TV_FIXTURES = ["tv_resnet", "tv_mobilenet_v2", "tv_mobilenet_v3",
               "tv_efficientnet", "tv_regnet", "tv_shufflenet", "tv_squeezenet", "tv_densenet",
               "tv_googlenet", "tv_vit", "tv_convnext", "tv_swin", "tv_swin_v2", "tv_seghead"]


# --------------------------------------------------------------------------------------
# tv_resnet18: torchvision's resnet18 at full width (11.2M parameters, 44.7 MB), for the
# optimizer's targets on a real model (test_opt: at most 49 nodes with static shapes;
# BatchNorm folding at scale). Its weights are short periodic sequences, so that the
# archive's weight records, re-deflated after torch.export.save (README "tv_resnet18"),
# take a few KB each instead of 44.7 MB.
# --------------------------------------------------------------------------------------

def _periodic(n, period, lo, hi):
    """n values cycling through `period` evenly spaced values in [lo, hi], visited in a
    scrambled order (step 5, coprime with the periods used)."""
    k = (torch.arange(n) * 5) % period
    return lo + (hi - lo) * k.float() / (period - 1)


def fx_tv_resnet18():
    """resnet18(num_classes=10) on one 32x32 image. Conv and linear weights repeat 13
    values scaled by fan_in ** -0.5: 13 divides no fan-in, so output channel c has the
    kernel of channel c % 13 and no other. BatchNorm weight and bias cycle with periods 5
    and 7 over the channels; the running statistics are those of a batch of 16 random
    images (a forward in training mode), which are the same for channels c and c + 13,
    stored as exactly 13-periodic and rounded to float16 precision. The logits are then
    of order 1 and depend on the input."""
    m = _tvm("resnet").resnet18(num_classes=10)
    bns = [mod for mod in m.modules() if isinstance(mod, nn.BatchNorm2d)]
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, (nn.Conv2d, nn.Linear)):
                w, g = mod.weight, 1.7 if isinstance(mod, nn.Conv2d) else 0.3
                w.copy_(_periodic(w.numel(), 13, -g, g).reshape(w.shape) * w[0].numel() ** -0.5)
                if mod.bias is not None:
                    mod.bias.copy_(_periodic(mod.bias.numel(), 7, -0.1, 0.1))
        for mod in bns:
            mod.weight.copy_(_periodic(mod.num_features, 5, 0.8, 1.2))
            mod.bias.copy_(_periodic(mod.num_features, 7, -0.1, 0.1))
            mod.reset_running_stats()
            mod.momentum = None                   # running stats = this batch's
        m.train()(torch.randn(16, 3, 32, 32))
        for mod in bns:
            idx = torch.arange(mod.num_features) % 13
            mod.running_mean.copy_(mod.running_mean[idx].half().float())
            mod.running_var.copy_(mod.running_var[idx].half().float())
            mod.momentum = 0.1
    fx = SlimFixture(m.eval(), (r(1, 3, 32, 32),))
    fx.deflate_min = 64
    return fx


def redeflate(path, min_bytes):
    """Rewrites the zip at path with DEFLATE (level 9) for the records of at least min_bytes,
    keeping every record's name, order and bytes (torch.export.load and lib/read/zip.c read
    deflated records; torch writes them stored, 64-byte aligned)."""
    with zipfile.ZipFile(path) as z:
        records = [(i, z.read(i.filename)) for i in z.infolist()]
    tmp = path + ".deflate"
    with zipfile.ZipFile(tmp, "w") as z:
        for info, data in records:
            zi = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            zi.compress_type = zipfile.ZIP_DEFLATED if len(data) >= min_bytes else zipfile.ZIP_STORED
            z.writestr(zi, data, compresslevel=9 if len(data) >= min_bytes else None)
    os.replace(tmp, path)


# --------------------------------------------------------------------------------------
# transformers (tiny configs; torch 2.14 only: the trixie chroot has no transformers)
# --------------------------------------------------------------------------------------

class _HFWrapper(nn.Module):
    """Calls the model with keyword arguments named `keys` (plus fixed `extra` ones) and
    returns its tensor outputs as a tuple (return_dict=False, no cache)."""

    def __init__(self, m, keys, **extra):
        super().__init__()
        self.m = m
        self.keys = tuple(keys)
        self.extra = extra

    def forward(self, *args):
        out = self.m(**dict(zip(self.keys, args)), **self.extra)
        if isinstance(out, torch.Tensor):
            return out
        return tuple(o for o in out if isinstance(o, torch.Tensor))


def _hf(config_cls, attn, **kw):
    transformers = _require_transformers()
    cfg = getattr(transformers, config_cls)(**kw)
    cfg._attn_implementation = attn
    return transformers, cfg


def _hf_fixture(transformers, model, keys, args, attn, extra_cases=(), **extra):
    model = liven(model).eval()
    got = getattr(model.config, "_attn_implementation", None)
    if got != attn:
        raise Skip("attn_implementation %r was asked, the model uses %r" % (attn, got))
    f = SlimFixture(_HFWrapper(model, keys, **extra).eval(), args, cases=list(extra_cases))
    f.notes.append("transformers %s, %s, attn_implementation=%s" % (
        transformers.__version__, type(model).__name__, attn))
    return f


def _ids(vocab, b=2, t=8, low=0, pad=None):
    """input_ids (b, t) and an attention mask whose second row is right-padded by 3
    (the padded positions get token `pad` when given)."""
    ids, mask = _token_inputs(vocab, b, t)
    if low:
        ids = ids % (vocab - low) + low
    if pad is not None:
        ids[mask == 0] = pad
    return ids, mask


# One layer: the layers of a model are identical graphs, and every layer costs ~40 KB.
HF_LAYERS = 1
HF_COMMON = dict(vocab_size=100, initializer_range=0.1, use_cache=False)


def fx_hf_distilbert(attn="eager"):
    transformers, cfg = _hf("DistilBertConfig", attn, vocab_size=100, dim=16, n_layers=HF_LAYERS,
                            n_heads=2, hidden_dim=32, max_position_embeddings=32, dropout=0.0,
                            attention_dropout=0.0, initializer_range=0.1)
    ids, mask = _ids(100)
    return _hf_fixture(transformers, transformers.DistilBertModel(cfg), ("input_ids", "attention_mask"),
                       (ids, mask), attn, return_dict=False)


def fx_hf_roberta(attn="eager"):
    # pad_token_id=1: position ids come from input_ids.ne(1).cumsum() (padded ids are 1)
    transformers, cfg = _hf("RobertaConfig", attn, vocab_size=100, hidden_size=16,
                            num_hidden_layers=HF_LAYERS, num_attention_heads=2, intermediate_size=32,
                            max_position_embeddings=40, type_vocab_size=1, pad_token_id=1,
                            hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                            initializer_range=0.1)
    ids, mask = _ids(100, low=3, pad=1)
    return _hf_fixture(transformers, transformers.RobertaModel(cfg), ("input_ids", "attention_mask"),
                       (ids, mask), attn, return_dict=False)


def fx_hf_gpt2(attn="eager"):
    transformers, cfg = _hf("GPT2Config", attn, vocab_size=100, n_embd=16, n_layer=HF_LAYERS, n_head=2,
                            n_positions=32, n_inner=32, resid_pdrop=0.0, embd_pdrop=0.0,
                            attn_pdrop=0.0, bos_token_id=0, eos_token_id=0,
                            initializer_range=0.1, use_cache=False)
    ids, mask = _ids(100)
    return _hf_fixture(transformers, transformers.GPT2LMHeadModel(cfg), ("input_ids", "attention_mask"),
                       (ids, mask), attn, use_cache=False, return_dict=False)


def _causal_lm(config_cls, model_cls, attn, **kw):
    transformers, cfg = _hf(config_cls, attn, hidden_size=16, intermediate_size=32,
                            num_hidden_layers=HF_LAYERS, max_position_embeddings=32,
                            tie_word_embeddings=False, bos_token_id=1, eos_token_id=2,
                            pad_token_id=0, **HF_COMMON, **kw)
    ids, mask = _ids(100)
    mask[1, :] = 1                          # causal LM: no padding
    return _hf_fixture(transformers, getattr(transformers, model_cls)(cfg),
                       ("input_ids", "attention_mask"), (ids, mask), attn,
                       use_cache=False, return_dict=False)


def fx_hf_mistral(attn="eager"):
    # GQA (4 heads, 2 KV heads) and a sliding window of 4 over 8 tokens
    def no_window():
        return _causal_lm("MistralConfig", "MistralForCausalLM", attn, num_attention_heads=4,
                          num_key_value_heads=2, sliding_window=None)
    f = _causal_lm("MistralConfig", "MistralForCausalLM", attn, num_attention_heads=4,
                   num_key_value_heads=2, sliding_window=4)
    f.fallback = ("exported without sliding window", no_window)
    return f


def fx_hf_qwen2(attn="eager"):
    return _causal_lm("Qwen2Config", "Qwen2ForCausalLM", attn, num_attention_heads=4,
                      num_key_value_heads=2)


def fx_hf_phi3(attn="eager"):
    return _causal_lm("Phi3Config", "Phi3ForCausalLM", attn, num_attention_heads=2,
                      num_key_value_heads=2, original_max_position_embeddings=32,
                      resid_pdrop=0.0, embd_pdrop=0.0, attention_dropout=0.0)


def _t5_config(attn, ff):
    return _hf("T5Config", attn, vocab_size=100, d_model=16, d_kv=8, d_ff=32, num_layers=HF_LAYERS,
               num_decoder_layers=HF_LAYERS, num_heads=2, relative_attention_num_buckets=8,
               relative_attention_max_distance=16, dropout_rate=0.0, feed_forward_proj=ff,
               use_cache=False)


def fx_hf_t5_encoder(attn="eager"):
    transformers, cfg = _t5_config(attn, "gated-gelu")   # T5 v1.1 feed-forward
    ids, mask = _ids(100)
    return _hf_fixture(transformers, transformers.T5EncoderModel(cfg),
                       ("input_ids", "attention_mask"), (ids, mask), attn, return_dict=False)


def fx_hf_t5_decoder(attn="eager"):
    transformers, cfg = _t5_config(attn, "relu")        # original T5 feed-forward
    decoder = transformers.T5Model(cfg).decoder          # T5Stack, is_decoder=True
    ids, _ = _ids(100, t=6)
    enc = r(2, 8, 16)
    _, enc_mask = _ids(100)
    f = _hf_fixture(transformers, decoder,
                    ("input_ids", "encoder_hidden_states", "encoder_attention_mask"),
                    (ids, enc, enc_mask), attn, use_cache=False, return_dict=False)
    f.notes.append("T5Model(cfg).decoder: decoder stack with causal self-attention and "
                   "cross-attention over encoder_hidden_states (2, 8, 16)")
    return f


def fx_hf_whisper_encoder(attn="eager"):
    transformers, cfg = _hf("WhisperConfig", attn, vocab_size=100, num_mel_bins=8, d_model=16,
                            encoder_layers=HF_LAYERS, encoder_attention_heads=2, encoder_ffn_dim=32,
                            decoder_layers=1, decoder_attention_heads=2, decoder_ffn_dim=32,
                            max_source_positions=8, max_target_positions=8, dropout=0.0,
                            attention_dropout=0.0, activation_dropout=0.0, init_std=0.1,
                            use_cache=False)
    wm = importlib.import_module("transformers.models.whisper.modeling_whisper")
    feats = r(2, 8, 16)                     # (batch, num_mel_bins, 2 * max_source_positions)
    return _hf_fixture(transformers, wm.WhisperEncoder(cfg), ("input_features",), (feats,), attn,
                       return_dict=False)


def sdpa(builder):
    return lambda: builder("sdpa")


HF_FIXTURES = ["hf_distilbert", "hf_roberta", "hf_gpt2", "hf_mistral", "hf_qwen2", "hf_phi3",
               "hf_t5_encoder", "hf_t5_decoder", "hf_whisper_encoder"]


# --------------------------------------------------------------------------------------
# Op families (tiny modules; outputs concatenated with flat_cat or stacked, in the order
# written in each forward)
# --------------------------------------------------------------------------------------

class OpRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm1 = nn.LSTM(4, 5, batch_first=True)
        self.lstm2 = nn.LSTM(4, 3, num_layers=2, bidirectional=True)
        self.gru1 = nn.GRU(4, 5)
        self.gru2 = nn.GRU(4, 3, num_layers=2, bidirectional=True, batch_first=True)

    def forward(self, x, hc):
        # x (2, 5, 4) batch-first; hc (2, 4, 2, 3) = initial h and c, each
        # (layers * directions, batch, hidden)
        h0, c0 = hc[0], hc[1]
        xt = x.transpose(0, 1)                               # (5, 2, 4) seq-first
        y1, (h1, c1) = self.lstm1(x)                          # 1 layer, zero state
        y2, (h2, c2) = self.lstm2(xt, (h0, c0))               # 2 layers, bidirectional
        y3, h3 = self.gru1(xt)                                # 1 layer, seq-first
        y4, h4 = self.gru2(x, h0)                             # 2 layers, bidirectional
        return flat_cat(y1, h1, c1, y2, h2, c2, y3, h3, y4, h4)


def fx_op_rnn():
    return SlimFixture(liven(OpRNN()).eval(), (r(2, 5, 4), r(2, 4, 2, 3)))


class OpRNNSmall(nn.Module):
    """The decomposition unrolls every time step of every layer and direction, so the
    _decomp fixture has a smaller RNN: 2 steps, one bidirectional LSTM, one GRU layer."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 3, bidirectional=True, batch_first=True)
        self.gru = nn.GRU(4, 3)

    def forward(self, x, hc):
        # x (2, 2, 4) batch-first; hc (2, 2, 2, 3) = initial h and c
        h0, c0 = hc[0], hc[1]
        y1, (h1, c1) = self.lstm(x, (h0, c0))
        y2, h2 = self.gru(x.transpose(0, 1), h0[:1])
        return flat_cat(y1, h1, c1, y2, h2)


def fx_op_rnn_small():
    return SlimFixture(liven(OpRNNSmall()).eval(), (r(2, 2, 4), r(2, 2, 2, 3)))


class OpConvTranspose(nn.Module):
    def __init__(self):
        super().__init__()
        self.t1 = nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)
        self.t1b = nn.ConvTranspose1d(4, 3, 2, dilation=2, bias=False)
        self.t2 = nn.ConvTranspose2d(4, 6, (3, 2), stride=(2, 3), padding=(1, 0),
                                     output_padding=(1, 2), groups=2)
        self.t2b = nn.ConvTranspose2d(4, 2, 3, stride=2, padding=2, dilation=2, bias=False)
        self.t3 = nn.ConvTranspose3d(2, 2, 2, stride=2, padding=(0, 1, 0))

    def forward(self, x2, x3):
        # x2 (2, 4, 4, 5), x3 (2, 2, 2, 3, 3); x1 (2, 4, 5) is a row of x2
        x1 = x2[:, :, 1]
        return flat_cat(self.t1(x1), self.t1b(x1), self.t2(x2), self.t2b(x2), self.t3(x3))


def fx_op_convtranspose():
    return SlimFixture(liven(OpConvTranspose()).eval(), (r(2, 4, 4, 5), r(2, 2, 2, 3, 3)))


class OpConvVariants(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(4, 6, 3, padding="same", dilation=2, groups=2)
        self.c1b = nn.Conv1d(4, 4, 3, stride=2, groups=4, bias=False)          # depthwise
        self.c2 = nn.Conv2d(4, 6, 3, padding="same", dilation=2, bias=False)
        self.c2b = nn.Conv2d(4, 4, 3, stride=2, padding=1, groups=4)            # depthwise
        self.c2c = nn.Conv2d(4, 2, (2, 4), padding="same")                       # even kernel
        self.c2d = nn.Conv2d(4, 2, (1, 3), padding=(0, 1), padding_mode="reflect")
        self.c2e = nn.Conv2d(4, 2, 3, stride=(1, 2), padding=(2, 0), padding_mode="zeros")
        self.c3 = nn.Conv3d(2, 4, 3, stride=(1, 2, 2), padding=1)
        self.c3b = nn.Conv3d(2, 2, (1, 2, 2), groups=2, bias=False)

    def forward(self, x2, x3):
        # x2 (2, 4, 6, 6), x3 (2, 2, 3, 4, 4); x1 (2, 4, 7) from x2
        x1 = x2.flatten(2)[:, :, 3:10]
        return flat_cat(self.c1(x1), self.c1b(x1), self.c2(x2), self.c2b(x2), self.c2c(x2),
                        self.c2d(x2), self.c2e(x2), self.c3(x3), self.c3b(x3))


def fx_op_conv_variants():
    return SlimFixture(liven(OpConvVariants()).eval(), (r(2, 4, 6, 6), r(2, 2, 3, 4, 4)))


class OpPool(nn.Module):
    def forward(self, x2, x3):
        # x2 (2, 3, 7, 7), x3 (2, 2, 5, 5, 5); x1 (2, 3, 9) from x2
        x1 = x2.flatten(2)[:, :, 20:29]
        m2, i2 = F.max_pool2d(x2, 3, stride=2, padding=1, ceil_mode=True, return_indices=True)
        return flat_cat(
            F.max_pool1d(x1, 3, stride=2, ceil_mode=True),
            F.avg_pool1d(x1, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
            m2,
            F.max_pool2d(x2, 2, stride=1, dilation=2),
            F.avg_pool2d(x2, 3, stride=2, padding=1, count_include_pad=False),
            F.avg_pool2d(x2, 2, stride=2, ceil_mode=True),
            F.avg_pool2d(x2, 3, stride=1, padding=1, divisor_override=4),
            F.max_pool3d(x3, 2, stride=2, ceil_mode=True),
            F.avg_pool3d(x3, 3, stride=2, padding=1, count_include_pad=False),
            F.adaptive_avg_pool1d(x1, 4),
            F.adaptive_max_pool1d(x1, 4),
            F.adaptive_avg_pool2d(x2, (3, 2)),
            F.adaptive_max_pool2d(x2, (2, 3)),
            F.adaptive_avg_pool3d(x3, (2, 3, 2)),
            F.adaptive_avg_pool2d(x2, 1)), i2


def fx_op_pool():
    return SlimFixture(OpPool().eval(), (r(2, 3, 7, 7), r(2, 2, 5, 5, 5)))


class OpEmbedding(nn.Module):
    def __init__(self, bag=True):
        super().__init__()
        self.emb = nn.Embedding(20, 4, padding_idx=0)
        self.emb2 = nn.Embedding(10, 3)
        self.bag = nn.EmbeddingBag(20, 4, mode="mean") if bag else None
        self.bag_sum = nn.EmbeddingBag(20, 4, mode="sum") if bag else None
        self.bag_max = nn.EmbeddingBag(20, 4, mode="max") if bag else None

    def forward(self, ids, w):
        # ids (2, 5) int64 in [0, 10) with zeros (padding_idx); w (2, 5) per-sample weights
        outs = [self.emb(ids), self.emb2(ids), F.embedding(ids + 3, self.emb.weight)]
        if self.bag is not None:
            outs += [self.bag(ids), self.bag_sum(ids, per_sample_weights=w), self.bag_max(ids)]
        return flat_cat(*outs)


def fx_op_embedding(bag=True):
    ids = torch.randint(0, 10, (2, 5))
    ids[0, 1] = ids[1, 4] = 0
    f = SlimFixture(liven(OpEmbedding(bag)).eval(), (ids, torch.rand(2, 5)))
    if bag:
        f.fallback = ("exported without EmbeddingBag", lambda: fx_op_embedding(False))
    return f


class OpSDPA(nn.Module):
    def __init__(self, gqa=True):
        super().__init__()
        self.gqa = gqa

    def forward(self, qkv, kv2, bmask):
        # qkv (2, 4, 5, 24) = q|k|v, 4 heads; kv2 (2, 2, 7, 16) = k|v: 2 KV heads, 7 keys;
        # bmask (2, 1, 5, 5) bool (True = attend); the additive float mask (5, 5) is a
        # slice of kv2
        q, k, v = qkv[..., :8], qkv[..., 8:16], qkv[..., 16:]
        k2, v2 = kv2[..., :8], kv2[..., 8:]
        fmask = kv2[0, 0, :5, :5]
        outs = [F.scaled_dot_product_attention(q, k, v),
                F.scaled_dot_product_attention(q, k, v, is_causal=True),
                F.scaled_dot_product_attention(q, k, v, attn_mask=fmask),
                F.scaled_dot_product_attention(q, k, v, attn_mask=bmask),
                F.scaled_dot_product_attention(q, k, v, scale=0.3),
                F.scaled_dot_product_attention(q, k2.repeat_interleave(2, dim=1),
                                               v2.repeat_interleave(2, dim=1), scale=0.5)]
        if self.gqa:
            outs.append(F.scaled_dot_product_attention(q, k2, v2, enable_gqa=True))
        return flat_cat(*outs)


def fx_op_sdpa(gqa=True):
    bmask = torch.rand(2, 1, 5, 5) < 0.6
    bmask[..., 0] = True                    # every query sees at least one key
    f = SlimFixture(OpSDPA(gqa).eval(), (r(2, 4, 5, 24), r(2, 2, 7, 16), bmask))
    if gqa:
        f.fallback = ("exported without enable_gqa=True (grouped-query attention only via "
                      "repeat_interleave)", lambda: fx_op_sdpa(False))
    return f


class OpNorms(nn.Module):
    def __init__(self, rms=True):
        super().__init__()
        self.ln = nn.LayerNorm(6, elementwise_affine=False)
        self.ln2 = nn.LayerNorm([5, 6], eps=1e-3)
        self.gn = nn.GroupNorm(2, 4)
        self.bn = nn.BatchNorm2d(4)
        self.bn_noaffine = nn.BatchNorm1d(4, affine=False)
        self.inorm = nn.InstanceNorm2d(4)
        self.inorm_affine = nn.InstanceNorm1d(4, affine=True)
        self.rms = nn.RMSNorm(6) if rms else None
        self.rms_noaffine = nn.RMSNorm([5, 6], eps=None, elementwise_affine=False) if rms else None

    def forward(self, x):
        # x (2, 4, 5, 6)
        x1 = x.flatten(2)                                  # (2, 4, 30)
        outs = [self.ln(x), self.ln2(x), self.gn(x), self.bn(x), self.bn_noaffine(x1),
                self.inorm(x), self.inorm_affine(x1),
                F.normalize(x, dim=1), F.normalize(x, p=1.0, dim=-1),
                F.batch_norm(x, self.bn.running_mean, self.bn.running_var, training=False)]
        if self.rms is not None:
            outs += [self.rms(x), self.rms_noaffine(x)]
        return flat_cat(*outs)


def fx_op_norms():
    if not hasattr(nn, "RMSNorm"):
        raise Skip("torch.nn.RMSNorm needs torch 2.4")
    return SlimFixture(liven(OpNorms()).eval(), (r(2, 4, 5, 6) * 2 + 0.5,))


class OpActivations(nn.Module):
    def __init__(self):
        super().__init__()
        self.prelu = nn.PReLU(3)

    def forward(self, x):
        # x (2, 3, 8); the rows of the first output are the activations in this order
        same = [F.gelu(x), F.gelu(x, approximate="tanh"), F.silu(x), F.mish(x),
                F.elu(x, alpha=0.7), F.selu(x), F.celu(x, alpha=1.3), F.leaky_relu(x, 0.1),
                F.hardtanh(x, -0.5, 1.5), F.relu6(x), F.softplus(x, beta=2.0, threshold=3.0),
                torch.sigmoid(x), torch.tanh(x), F.log_softmax(x, dim=-1), F.log_softmax(x, dim=1),
                F.softmax(x, dim=0), F.softmax(x, dim=-1), self.prelu(x), F.logsigmoid(x),
                F.hardswish(x), F.hardsigmoid(x), F.softsign(x), F.tanhshrink(x),
                F.hardshrink(x, 0.5), F.softshrink(x, 0.5), F.threshold(x, 0.2, -1.0), F.relu(x),
                # in-place forms (nn.ReLU6(inplace=True), ... in torchvision models)
                F.relu(x.clone(), inplace=True), F.relu6(x.clone(), inplace=True),
                F.hardswish(x.clone(), inplace=True), F.silu(x.clone(), inplace=True),
                F.hardsigmoid(x.clone(), inplace=True), F.elu(x.clone(), inplace=True),
                F.leaky_relu(x.clone(), 0.2, inplace=True),
                F.dropout(x.clone(), 0.3, training=False, inplace=True), F.dropout(x, 0.3, training=False)]
        return torch.stack(same), F.glu(x, dim=-1)


def fx_op_activations():
    return SlimFixture(liven(OpActivations()).eval(), (r(2, 3, 8) * 3,))


class OpElementwise(nn.Module):
    def forward(self, xyp):
        # xyp (3, 3, 4) = x, y, p: x, y float with |y| >= 0.5, p positive
        x, y, p = xyp.unbind(0)
        xr, yr = x.round(), y.round()
        lg = torch.log(x)                                   # NaN where x < 0
        f = [torch.add(x, y, alpha=2), torch.sub(x, y, alpha=0.5), x * y, x / y,
             torch.div(x, y, rounding_mode="floor"), torch.div(x, y, rounding_mode="trunc"),
             x + 1.5, 2 - x, x * 3, x / 4, torch.pow(p, y), x ** 2, torch.pow(2.0, x), p ** 0.5,
             torch.sqrt(p), torch.rsqrt(p), torch.exp(x), torch.log(p), torch.log1p(p),
             torch.log2(p), torch.abs(x), -x, torch.sign(x), torch.floor(x), torch.ceil(x),
             torch.round(x), torch.round(x, decimals=1), torch.trunc(x), torch.frac(x),
             torch.clamp(x, -1.0, 1.0), torch.clamp(x, min=-y.abs(), max=y.abs()),
             torch.clamp_min(x, 0.2), torch.clamp_max(x, 0.3), torch.clamp(x, min=0.1),
             torch.maximum(x, y), torch.minimum(x, y), torch.fmod(x, y), torch.fmod(x, 1.5),
             torch.remainder(x, y), torch.remainder(x, 1.5), torch.reciprocal(p), torch.erf(x),
             torch.sin(x), torch.cos(x), torch.tan(torch.tanh(x)), torch.atan2(x, y),
             torch.atan(x), torch.asin(torch.tanh(x)), torch.acos(torch.tanh(x)),
             torch.sinh(x), torch.cosh(x), torch.asinh(x), torch.expm1(x), torch.square(x),
             torch.where(x > y, x, y), torch.where(x > 0, x, 0.0),
             torch.nan_to_num(lg, nan=0.0, posinf=5.0, neginf=-5.0),
             torch.nan_to_num(x / (xr * 0.0)), torch.lerp(x, y, 0.3), torch.lerp(x, y, p / 5),
             torch.addcmul(x, y, p, value=0.5), torch.addcdiv(x, y, p, value=2.0),
             torch.hypot(x, y), torch.logit(p / 7), torch.copysign(p, x), torch.min(x, y),
             torch.max(x, y), xr.type_as(p)]
        a, b = x > 0, y > 0
        bl = [xr == 1.0, xr == yr, xr != 0.0, xr != yr, x < 0.5, x < y, x <= 0.5, xr <= yr,
              x > -0.5, x > y, x >= 0.5, xr >= yr, a & b, a | b, a ^ b, ~a,
              torch.bitwise_and(a, b), torch.bitwise_or(a, b), torch.bitwise_xor(a, b),
              torch.bitwise_not(a),
              torch.logical_and(a, b), torch.logical_or(a, b), torch.logical_xor(a, b),
              torch.logical_not(a), torch.logical_and(x, yr), torch.isnan(lg),
              torch.isinf(x / xr), torch.isfinite(x / xr), torch.eq(xr, 0), torch.ne(x, y)]
        return torch.stack(f), torch.stack(bl)


def fx_op_elementwise():
    x = r(3, 4) * 2
    x[0, :2] = torch.tensor([0.5, -2.5])       # ties for round and exact values for floor
    y = torch.sign(r(3, 4)) * (0.5 + 2 * torch.rand(3, 4))
    return SlimFixture(OpElementwise().eval(), (torch.stack([x, y, 0.1 + 3 * torch.rand(3, 4)]),))


class OpReduce(nn.Module):
    def forward(self, x, b):
        # x (2, 3, 4) float, b (2, 3, 4) bool
        mx, imx = x.max(dim=1)
        mn, imn = x.min(dim=2, keepdim=True)
        f = flat_cat(
            x.sum(), x.sum(dim=1), x.sum(dim=(0, 2), keepdim=True), x.mean(), x.mean(dim=-1),
            x.mean(dim=(1, 2), keepdim=True), x.amax(dim=-1), x.amin(dim=(1, 2), keepdim=True),
            x.amax(), mx, mn, x.max(), x.min(), x.prod(dim=1), x.prod(),
            x.var(dim=1, correction=0), x.var(dim=(1, 2), keepdim=True), x.var(),
            x.std(dim=-1), x.std(dim=0, correction=0, keepdim=True),
            torch.logsumexp(x, dim=2), torch.logsumexp(x, dim=(0, 1), keepdim=True),
            x.norm(), x.norm(p=1, dim=-1), torch.linalg.vector_norm(x, ord=2, dim=(1, 2)),
            torch.linalg.vector_norm(x, ord=float("inf"), dim=1), x.sum(dim=-1, dtype=torch.float64).float(),
            torch.nansum(x, dim=0), x.abs().sum(dim=2, keepdim=True))
        i = flat_cat(imx, imn, x.argmax(dim=1), x.argmax(), x.argmin(dim=-1, keepdim=True),
                     x.argmin(), b.sum(dim=1), b.long().sum(), torch.count_nonzero(b, dim=2))
        bo = flat_cat(b.all(dim=1), b.any(dim=-1, keepdim=True), b.all(), b.any(),
                      (x > 0).all(dim=(0, 2)), (x > 1).any(dim=0))
        return f, i, bo


def fx_op_reduce():
    return SlimFixture(OpReduce().eval(), (r(2, 3, 4), torch.rand(2, 3, 4) < 0.7))


class OpShape(nn.Module):
    def forward(self, z):
        # z (2, 3, 4, 5); x, y (2, 3, 4) are contiguous pieces of it
        x = z.flatten()[:24].view(2, 3, 4)
        y = z.flatten()[24:48].view(2, 3, 4)
        a, b = x.split(2, dim=2)
        c, d = x.split_with_sizes([1, 2], dim=1)
        e, g = x.chunk(2, dim=2)
        u0, u1, u2 = x.unbind(1)
        xt = x.transpose(1, 2)
        return flat_cat(
            x.view(6, 4), x.reshape(-1), x.flatten(1), x.unflatten(2, (2, 2)),
            x.unsqueeze(1).squeeze(1), x[:, :1].squeeze(1), x[:, :1].squeeze(), x.unsqueeze(-1),
            x.permute(2, 0, 1), x.transpose(0, 2), x[0].t(), x[:, :1].expand(2, 3, 4),
            x[:1].expand_as(y), x.repeat(1, 2, 1), x.tile((2,)), torch.cat([x, y], dim=1),
            torch.cat([x, y], dim=-1), torch.stack([x, y]), torch.stack([x, y], dim=2),
            a, b, c, d, e, g, u0, u1, u2, x.narrow(2, 1, 2), x[:, ::2, 1::2], x[:, 1],
            x[..., -1], x[:, -2:], x.flip(dims=(0, 2)), x.roll(1, dims=2),
            x.roll((2, -1), dims=(1, 2)), x.roll(3), F.pad(x, (1, 2), value=0.5),
            F.pad(x, (1, 1, 2, 0)), torch.constant_pad_nd(x, (0, 1, 1, 0), -1.0),
            F.pad(x, (2, 1), mode="reflect"),
            F.pad(z, (1, 2, 2, 1), mode="reflect"), F.pad(x, (1, 2), mode="replicate"),
            F.pad(z, (2, 0, 1, 1), mode="replicate"), F.pad(z, (1, 1, 1, 1), mode="circular"),
            xt.contiguous().view(2, 12), x.movedim(0, -1), x.movedim((0, 1), (2, 0)),
            z.swapaxes(1, 3), x.view(2, -1, 2).transpose(0, 1).reshape(4, 6),
            x.new_zeros(1) + x.size(2) * x.shape[0], x.expand(3, 2, 3, 4), x.view(-1, 4)[1:5:2])


def fx_op_shape():
    return SlimFixture(OpShape().eval(), (r(2, 3, 4, 5),))


class OpIndex(nn.Module):
    def __init__(self, one_hot=True):
        super().__init__()
        self.one_hot = one_hot

    def forward(self, x, ints, mask):
        # x (4, 5) float; mask (4, 5) bool; ints (17,) int64 = idx (3,) in [0, 4) with a
        # repeat, gidx (4, 2) in [0, 5), distinct in each row, labels (2, 3) in [0, 6)
        idx, gidx, labels = ints[:3], ints[3:11].view(4, 2), ints[11:].view(2, 3)
        src = x * 10
        j = torch.tensor([4, 0, 2])                             # lifted constant index
        f = flat_cat(
            x[idx], x[:, j], x[idx, j], x[None, idx], x[idx, None, 1:3], x[idx.view(3, 1), j],
            x[1:3, [0, 2]], x[mask.any(dim=1).logical_not().long()],
            x.index_select(1, j), x.index_select(0, idx),
            x.gather(1, gidx), x.scatter(1, gidx, src), x.scatter(1, gidx, 2.0),
            x.scatter_add(1, gidx, src), x.scatter_reduce(1, gidx, src, reduce="sum"),
            x.scatter_reduce(1, gidx, src, reduce="prod", include_self=False),
            x.scatter_reduce(1, gidx, src, reduce="mean"),
            x.scatter_reduce(1, gidx, src, reduce="amax"),
            x.scatter_reduce(1, gidx, src, reduce="amin", include_self=False),
            x.index_put((idx,), x[0] * 3, accumulate=True),
            x.index_put((idx, j), torch.tensor(7.0)),
            x.masked_fill(mask, -3.0), x.masked_fill(mask, x[0, 0]),
            torch.take_along_dim(x, gidx, dim=1), x.index_add(0, idx, src[:3]),
            x.index_copy(1, j, src[:, :3]), x.index_fill(1, j, -1.0), x[:, mask.long().argmax(1)])
        if self.one_hot:
            return f, F.one_hot(labels, num_classes=6)
        return f, (labels.unsqueeze(-1) == torch.arange(6)).long()


def fx_op_index(one_hot=True):
    idx = torch.tensor([2, 0, 2])
    gidx = torch.stack([torch.randperm(5)[:2] for _ in range(4)])
    ints = torch.cat([idx, gidx.reshape(-1), torch.randint(0, 6, (6,))])
    f = SlimFixture(OpIndex(one_hot).eval(), (r(4, 5), ints, torch.rand(4, 5) < 0.4))
    if one_hot:
        f.fallback = ("one_hot written as a comparison with arange", lambda: fx_op_index(False))
    return f


class OpCreation(nn.Module):
    def forward(self, x):
        # x (2, 3); everything created is combined with x
        n = x.shape[1]
        f = flat_cat(
            x + torch.arange(3), x * torch.arange(1, 7, 2), torch.arange(0.0, 1.0, 0.25),
            torch.arange(n, dtype=torch.float32) + x, torch.arange(-1.0, 1.0, 0.5, dtype=torch.float64).float(),
            torch.full((2, 3), 1.5) + x, torch.zeros(2, 3) + x, torch.ones(3) * x,
            torch.ones_like(x) - x, torch.zeros_like(x, dtype=torch.int64) + 2,
            torch.empty_like(x).fill_(3.0), torch.empty(2, 3).zero_() + x,
            torch.full_like(x, 7.0), x.new_full((2, 2), -2.0), x.new_zeros(3), x.new_ones((2, 3)) + x,
            torch.triu(x.repeat(2, 1)), torch.triu(x.repeat(2, 1), diagonal=1),
            torch.tril(x.repeat(2, 1), diagonal=-1), torch.tril(torch.ones(3, 3)) @ x.t(),
            torch.eye(3) * x[0], torch.eye(2, 3) + x, torch.linspace(0, 1, 5),
            torch.linspace(-1.0, 1.0, steps=4) * x[0, 0], torch.scalar_tensor(2.5) * x,
            torch.tensor([1.0, 2.0, 3.0]) * x, torch.zeros(2, 3, dtype=torch.bool).logical_or(x > 0))
        i = flat_cat(torch.arange(5), torch.arange(2, 11, 3), torch.arange(n) * 2,
                     torch.full((2,), 4, dtype=torch.int64), torch.ones(3, dtype=torch.int32).long())
        return f, i


def fx_op_creation():
    return SlimFixture(OpCreation().eval(), (r(2, 3),))


class OpMath(nn.Module):
    def forward(self, t):
        # t (85,) = a (2, 3, 4), b (2, 4, 5), c (4, 2), sq (3, 3), v (4,)
        a, b, c, sq, v = t.split([24, 40, 8, 9, 4])
        a, b, c, sq = a.view(2, 3, 4), b.view(2, 4, 5), c.view(4, 2), sq.view(3, 3)
        q = a.view(2, 1, 3, 4)
        vals, idx = torch.topk(a, 2, dim=-1)
        svals, sidx = torch.topk(a, 3, dim=1, largest=False, sorted=True)
        so, sio = torch.sort(a, dim=-1, descending=True)
        f = flat_cat(
            torch.einsum("bij,bjk->bik", a, b), torch.einsum("bhqd,bhkd->bhqk", q, q),
            torch.einsum("ii->i", sq), torch.einsum("i,j->ij", v, v[:3]),
            torch.einsum("bij->bji", a), torch.einsum("bij,jk->bik", a, c), torch.bmm(a, b),
            torch.matmul(q, b), torch.matmul(a.view(2, 1, 3, 4), b.view(1, 2, 4, 5)),
            torch.matmul(a, v), torch.matmul(v, b), torch.matmul(v, v), a @ c,
            torch.mm(a[0], b[0]), torch.addmm(v[:2], a[1], c, beta=0.5, alpha=2.0),
            torch.addmm(v, sq, a[0]), torch.baddbmm(a[:, :, :3], a, a.transpose(1, 2)[:, :, :3]),
            torch.outer(v, v), torch.mv(c.t(), v), torch.dot(v, v), a.cumsum(dim=1),
            a.cumsum(-1), a.cumprod(dim=2), vals, svals, so, torch.clamp(a, -0.5, 0.5),
            torch.linalg.matmul(sq, sq), torch.diagonal(sq), torch.trace(sq))
        i = flat_cat(idx, sidx, sio, torch.argsort(a, dim=1), torch.argsort(a, dim=-1, descending=True),
                     (a > 0).long().cumsum(dim=-1))
        return f, i


def fx_op_math():
    return SlimFixture(OpMath().eval(), (r(85),))


class OpInplace(nn.Module):
    def forward(self, x, yv, mask):
        # x (4, 6), mask (4, 6) bool; yv (14,) = y (4, 2), vals (6,)
        y, vals = yv[:8].view(4, 2), yv[8:]
        z = x.clone()
        z.add_(1.0)
        z.add_(y.sum(dim=1, keepdim=True), alpha=0.5)
        z.sub_(0.25)
        z.mul_(1.5)
        z.div_(y.abs()[:, :1] + 1)
        z[:, 1:3] = y                                    # slice assignment
        z[mask] = 0.0                                    # index_put_ with a bool mask
        z.masked_fill_(mask.roll(1, dims=1), -1.0)
        idx = torch.tensor([1, 3, 1])
        z.index_put_((idx,), vals, accumulate=True)      # repeated row: accumulates twice
        z[2] = vals                                      # select + copy_
        zt = z.t()
        zt[0].copy_(vals[:4])                            # copy_ into a transposed view
        z.relu_()
        w = z.clone()
        w.sigmoid_()
        w.tanh_()
        v = w.view(2, 12)
        v[:, ::3].mul_(2.0)                              # in-place on a strided view
        w.clamp_(max=0.9)                                # then read the base
        w.exp_()
        w.fill_diagonal_(0.5)
        w[0].fill_(x[0, 0])                              # fill_ with a 0-d tensor
        x.add_(1.0)                                      # mutation of a user input
        return z, w, v.sum(dim=1), x


def fx_op_inplace():
    return SlimFixture(OpInplace().eval(), (r(4, 6), r(14), torch.rand(4, 6) < 0.3))


class OpDtypes(nn.Module):
    def forward(self, xh, xb, xd, xl, xi, xs, xu, xbool):
        # xh float16, xb bfloat16, xd float64 (2, 4); xl int64, xi int32, xs int8, xu uint8
        # (2, 4), small values; xbool bool (2, 4)
        f16 = flat_cat(xh * 2 + 1, xh.exp(), xh.sum(dim=1), xh @ xh.t(), xb.to(torch.float16),
                       torch.softmax(xh, dim=-1), (xh > 0).half())
        bf16 = flat_cat(xb * xb + 1, xb.sigmoid(), xb.mean(dim=0), xh.to(torch.bfloat16),
                        xb.abs().sqrt())
        f64 = flat_cat(xd * xd - 1, xd.sqrt().nan_to_num(), xd @ xd.t(), xh + xd, xl / xd,
                       xd.sum(), xd.to(torch.float32).double())
        f32 = flat_cat(xd.float(), xh.float(), xb.float(), xl.float() / 2, xi + 1.5, xl * 0.5,
                       xu.float() / 255, xbool.float() * 3, torch.true_divide(xi, 4), xl / 3,
                       xh.float() + xb.float())
        i64 = flat_cat(xl // 3, xl % 4, torch.div(xl, 3, rounding_mode="trunc"),
                       torch.div(xl, -3, rounding_mode="floor"), xl * 2 + 1, xl.abs(), xl & 6,
                       xl | 1, xl ^ 5, torch.bitwise_and(xl, 3), torch.bitwise_or(xl, 2),
                       torch.bitwise_xor(xl, 7), xl & xi, ~xl, xl << 1, xl >> 1, xi + xl,
                       xl.sum(), xl.prod(dim=1),
                       xbool.sum(), xl.clamp(-2, 3), torch.maximum(xl, xi.long()),
                       xd.to(torch.int64), xs.long() * xu.long(), xl.argmax(dim=1),
                       torch.remainder(xl, -3), torch.fmod(xl, 3), xl.neg(), xl.sign())
        i32 = flat_cat(xi * 3, xi // 2, xi - xs, xi.abs(), xl.to(torch.int32), xh.to(torch.int32),
                       torch.cumsum(xi, dim=1, dtype=torch.int32), xi.max(dim=0).values)
        i8 = flat_cat(xs * 2, -xs, xs.abs(), xs // 2, xi.to(torch.int8), xs.clamp(min=0))
        u8 = flat_cat(xu + 10, xu // 3, xu & 0x0F, xu.to(torch.int16).to(torch.uint8),
                      torch.maximum(xu, torch.tensor(7, dtype=torch.uint8)), xbool.to(torch.uint8))
        bo = flat_cat(xbool & (xl > 0), ~xbool, xbool | (xu > 100), xbool ^ (xs < 0),
                      xl == xi, xh > 0, xb < 0.5, xd >= 0, xs != 1, xu <= 3, xbool.any(dim=1),
                      xl.bool(), torch.where(xbool, xl > 0, xi < 0))
        return f16, bf16, f64, f32, i64, i32, i8, u8, bo


def fx_op_dtypes():
    args = (r(2, 4).half(), r(2, 4).to(torch.bfloat16), r(2, 4).double(),
            torch.randint(-5, 6, (2, 4)), torch.randint(-5, 6, (2, 4), dtype=torch.int32),
            torch.randint(-20, 20, (2, 4), dtype=torch.int8),
            torch.randint(0, 200, (2, 4), dtype=torch.uint8), torch.rand(2, 4) < 0.5)
    return SlimFixture(OpDtypes().eval(), args)


class OpOverloads(nn.Module):
    """Overloads the other op families never reach: torch picks them only in some
    spellings (direct torch.ops.aten calls, a 0-d tensor fill value, torch.diff,
    var_mean) or in training mode (the BatchNorm is put in train() by the builder)."""

    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(3)
        self.register_buffer("rm", 0.1 * torch.randn(3))
        self.register_buffer("rv", 0.5 + torch.rand(3))

    def forward(self, x, mask):
        # x (2, 3, 4, 4) float, mask (2, 3, 4, 4) bool
        A = torch.ops.aten
        z = x.clone()
        A.add_.Scalar(z, 1.5)
        A.mul_.Scalar(z, 2.0)
        w = x.clone()
        w.masked_fill_(mask, x[0, 0, 0, 0])                  # masked_fill_.Tensor
        sq = x[0, 0].clone()
        sq.diagonal().copy_(x[1, 1, 0])                      # diagonal_scatter in core ATen
        v, m = torch.var_mean(x, dim=1)                      # .dim; core ATen: .correction
        v2, m2 = A.var_mean.dim(x, [1, 2], True, True)
        bn = self.bn(x)                                      # batch stats, updates running stats
        nb = A.native_batch_norm.default(x, None, None, self.rm, self.rv, True, 0.2, 1e-3)[0]
        f = flat_cat(
            torch.diff(x, dim=-1), torch.diff(x, n=2, dim=1, prepend=x[:, :1], append=x[:, 2:]),
            z, A.sub.Scalar(x, 0.5), A.div.Scalar(x, 4.0), torch.rsub(x, z),
            A.rsub.Tensor(x, z, alpha=2), w, v, m, v2, m2, x.detach() * 3,
            A._unsafe_view.default(x, [6, 16]), A.diagonal_scatter.default(x[1, 2], x[0, 1, 0, :3], 1),
            sq, bn, nb, self.bn.running_mean, self.bn.running_var, self.rm, self.rv)
        i = flat_cat(torch.arange(1, 4), torch.diff(mask, dim=2).long(),
                     self.bn.num_batches_tracked.reshape(1))
        return f, i


def fx_op_overloads():
    m = liven(OpOverloads()).eval()
    m.bn.train()
    return SlimFixture(m, (r(2, 3, 4, 4), torch.rand(2, 3, 4, 4) < 0.4))


OP_FIXTURES = ["op_rnn", "op_convtranspose", "op_conv_variants", "op_pool", "op_embedding",
               "op_sdpa", "op_norms", "op_activations", "op_elementwise", "op_reduce",
               "op_shape", "op_index", "op_creation", "op_math", "op_inplace", "op_dtypes",
               "op_overloads"]


# --------------------------------------------------------------------------------------
# Dynamic shapes and control flow (SlimFixtures, one output each: every output file
# costs a 4 KB block; pieces concatenated with flat_cat in the order written). The
# example inputs are the middle size; the other cases are the smallest and a large one.
# --------------------------------------------------------------------------------------

def _n(v):
    """A python int / SymInt as a 1-element float tensor (for flat_cat)."""
    return torch.ones(1) * v


class SymOps(nn.Module):
    def forward(self, x):
        b, s = x.shape
        n = b * s
        flat = x.reshape(n)                          # mul
        half = s // 2                                # floordiv
        left = x[:, :s - 1]                          # slice with a symbolic end
        m = torch.sym_max(b, s)
        ar = torch.arange(m, dtype=torch.float32) + torch.arange(half).sum()    # arange(SymInt)
        full = torch.full((b, s + 1), 2.0)           # full with a symbolic size
        nz = x.new_zeros(b, 2 * s)                   # new_zeros
        e = x[:, :1].expand(b, s - 1 + 1)            # expand
        md = (s % 3) + (b - 1)
        v = flat.view(s, b)
        return flat_cat(flat, left, ar, full, nz, e, v, _n(n), _n(md))


class SymBools(nn.Module):
    def forward(self, x, y):
        b = x.shape[0]
        c = y.shape[0]
        t = torch.sym_ite(b > c, b, c)
        f = torch.sym_float(b) / 2
        i = torch.sym_int(f) if TV >= (2, 8) else b // 2
        mn = torch.sym_min(b, c)
        return flat_cat(x[:mn] * 2, torch.zeros(t, 3), torch.ones(i + 1), _n(b * c - t))


class SymSum(nn.Module):
    def forward(self, x, y):
        n = x.shape[0] + y.shape[0] + 3
        k = x.shape[0] * 4
        st = x.stride(0) * y.numel()
        return flat_cat(torch.ones(n) * 2, x.reshape(k), torch.zeros(st), _n(-x.shape[0]),
                        _n((x.shape[0] - 5) // 3), _n((x.shape[0] - 5) % 3))


class SymIndex(nn.Module):
    def forward(self, x):
        s = x.shape[1]
        last = x.select(1, s - 1)             # x[:, s - 1] specializes s in torch 2.6 (__index__)
        third = x.select(1, 2 - s)            # a negative symbolic index: column 2
        return flat_cat(last * 2, third)


class NonZero(nn.Module):
    def forward(self, x):
        idx = torch.nonzero(x > 0)                   # (k, 2) int64, k data-dependent
        return torch.cat([idx.reshape(-1), idx.new_ones(1) * idx.shape[0]])


class ItemModel(nn.Module):
    def forward(self, x, k):
        n = k.item()
        torch._check(n >= 1)
        torch._check(n <= 8)
        return flat_cat(x[:n] * 2, torch.zeros(n))


class CondDyn(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4))

    def forward(self, x):
        def t(x):
            return x * self.w + 1

        def f(x):
            return x.sin() - self.w
        return torch.cond(x.shape[0] > 4, t, f, (x,))


class CondNested(nn.Module):
    def forward(self, x, y):
        def inner_t(x, y):
            return x + y, y * 2

        def inner_f(x, y):
            return x - y, y.cos()

        def t(x, y):
            a, b = torch.cond(y.sum() > 0, inner_t, inner_f, (x, y))
            return a * 2, b

        def f(x, y):
            return x * y, y + 1
        a, b = torch.cond(x.sum() > 0, t, f, (x, y))
        return flat_cat(a, b)


class GradWrap(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        with torch.no_grad():
            y = self.lin(x) * 2
        return y + x


class AutocastWrap(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        with torch.autocast("cpu", enabled=False):
            y = self.lin(x).relu()
        return y - 1


class WhileDyn(nn.Module):
    def forward(self, x, n):
        def cond_fn(i, acc):
            return i < n

        def body_fn(i, acc):
            return i + 1, acc * 0.5 + x.sum(0)
        i, acc = while_loop(cond_fn, body_fn, (torch.zeros((), dtype=torch.int64), x[0].clone()))
        return flat_cat(acc, i.to(acc.dtype))


class ScanRev(nn.Module):
    def forward(self, xs, h):
        def combine(c, x):
            nc = c * 0.9 + x
            return nc, nc.sum(0, keepdim=True) + c[:1]
        carry, ys = scan(combine, h, xs, dim=1, reverse=True)
        return flat_cat(carry, ys)


class SymArith(nn.Module):
    """The size arithmetic sym_ops and sym_bools leave out, the size queries, item() with
    its checks, and a range constraint in a cond branch. abs(), math.floor and math.ceil
    on sizes trace but torch.export.save (2.6 and 2.14) cannot serialize them, nor can
    2.6 serialize and_, or_ and math.trunc."""

    def forward(self, x, y, k):
        st = x.stride(0)                      # sym_stride: s*t, no size is that product
        so = y.storage_offset()               # sym_storage_offset in 2.6 (y exported as a view)
        b, s, t = x.shape
        c = y.shape[0]
        q = s / b                             # truediv, a SymFloat
        lt, ge = b < c, s >= 4
        if TV > (2, 6):
            i1 = torch.sym_ite((b == c) | (lt & ge), b, c)
            tq = torch.sym_int(q)             # traced as math.trunc
        else:
            i1 = torch.sym_ite(b == c, b, torch.sym_ite(lt, torch.sym_ite(ge, b, c), c))
            tq = s // b
        i2 = torch.sym_ite(torch.sym_not(lt), s, t) + torch.sym_ite(b != c, 1, 2)
        i3 = torch.sym_ite(b <= s, 1, 2)
        m = k.item()
        torch._check_is_size(m)
        torch._check(m <= 8)
        torch._assert_async(k >= 0)
        d = torch.ops.aten._local_scalar_dense.default(k * 2)
        torch._check(d >= 0)                  # bounded (the manifest's range_constraints)
        torch._check(d <= 16)

        def big(x):
            torch.ops.aten.sym_constrain_range.default(x.shape[0], min=2, max=16)
            return x.sum((0, 1)) * 2

        def small(x):
            return x.sum((0, 1)) - 1
        w = torch.cond(b > 3, big, small, (x,))
        return flat_cat(torch.zeros(b ** 2), _n(-c), _n(q), _n(tq), _n(st), _n(so), _n(i1), _n(i2),
                        _n(i3), torch.zeros(m), _n(d), w)


def fx_sym_ops():
    b, s = Dim("b", min=2, max=64), Dim("s", min=4, max=64)
    return SlimFixture(SymOps(), (r(7, 11),), dynamic_shapes={"x": {0: b, 1: s}},
                       cases=[("min b=2 s=4", (r(2, 4),)), ("large b=64 s=6", (r(64, 6),))],
                       case0_desc="example inputs, mid b=7 s=11")


def fx_sym_bools():
    b, c = Dim("b", min=1, max=64), Dim("c", min=1, max=64)
    return SlimFixture(SymBools(), (r(6, 3), r(4, 3)), dynamic_shapes={"x": {0: b}, "y": {0: c}},
                       cases=[("min b=1 c=1", (r(1, 3), r(1, 3))),
                              ("large b=3 c=64 (b<c)", (r(3, 3), r(64, 3)))],
                       case0_desc="example inputs, mid b=6 c=4 (b>c)")


def fx_sym_sum():
    b, c = Dim("b", min=1, max=64), Dim("c", min=1, max=64)
    return SlimFixture(SymSum(), (r(9, 4), r(2, 3)), dynamic_shapes={"x": {0: b}, "y": {0: c}},
                       cases=[("min b=1 c=1", (r(1, 4), r(1, 3))),
                              ("large b=64 c=64", (r(64, 4), r(64, 3)))],
                       case0_desc="example inputs, mid b=9 c=2")


def fx_sym_index():
    b, s = Dim("b", min=1, max=64), Dim("s", min=4, max=64)
    return SlimFixture(SymIndex(), (r(5, 9),), dynamic_shapes={"x": {0: b, 1: s}},
                       cases=[("min b=1 s=4", (r(1, 4),)), ("large b=8 s=64", (r(8, 64),))],
                       case0_desc="example inputs, mid b=5 s=9")


def fx_nonzero():
    return SlimFixture(NonZero(), (r(3, 4),), cases=[("none positive", (-r(3, 4).abs(),))])


def fx_item():
    k = lambda v: torch.tensor(v)  # noqa: E731
    return SlimFixture(ItemModel(), (r(8, 3), k(3)),
                       cases=[("min k=1", (r(8, 3), k(1))), ("max k=8", (r(8, 3), k(8)))],
                       case0_desc="example inputs, mid k=3")


def fx_cond_dyn():
    b = Dim("b", min=1, max=64)
    return SlimFixture(CondDyn(), (r(6, 4),), dynamic_shapes={"x": {0: b}},
                       cases=[("min b=1 (false branch)", (r(1, 4),)),
                              ("large b=64 (true branch)", (r(64, 4),))],
                       case0_desc="example inputs, mid b=6 (true branch)")


def fx_cond_nested():
    x = r(2, 3).abs()
    return SlimFixture(CondNested(), (x, r(2, 3).abs()),
                       cases=[("outer true, inner false", (x, -r(2, 3).abs())),
                              ("outer false", (-x, r(2, 3)))],
                       case0_desc="example inputs (both true)")


def fx_grad_wrap():
    return SlimFixture(GradWrap(), (r(2, 4),))


def fx_autocast_wrap():
    return SlimFixture(AutocastWrap(), (r(2, 4),))


def fx_while_dyn():
    n = lambda k: torch.tensor(k, dtype=torch.int64)  # noqa: E731
    b = Dim("b", min=2, max=64)
    return SlimFixture(WhileDyn(), (r(9, 4), n(3)), dynamic_shapes={"x": {0: b}, "n": None},
                       cases=[("min b=2 n=0", (r(2, 4), n(0))), ("large b=64 n=5", (r(64, 4), n(5)))],
                       allow_strict_fallback=True, case0_desc="example inputs, mid b=9 n=3")


def fx_scan_rev():
    return SlimFixture(ScanRev(), (r(2, 5, 3), r(2, 3)), allow_strict_fallback=True)


def fx_sym_arith():
    """SymArith. torch 2.6 keeps aten.sym_storage_offset only for an input that is a view
    with a storage offset, in a strict export: so y is exported as one (the cases, like
    ONNX, have offset 0), strictly in 2.6. torch 2.14 makes the offset a constant."""
    b, s, t, c = (Dim(n, min=2, max=16) for n in "bstc")
    k = lambda v: torch.tensor(v)  # noqa: E731
    f = SlimFixture(SymArith(), (r(5, 6, 3), r(4), k(3)),
                    dynamic_shapes={"x": {0: b, 1: s, 2: t}, "y": {0: c}, "k": None},
                    cases=[("min b=s=t=c=2 k=0 (b == c)", (r(2, 2, 2), r(2), k(0))),
                           ("large b=12 s=9 t=4 c=16 k=8 (b < c)", (r(12, 9, 4), r(16), k(8)))],
                    case0_desc="example inputs, mid b=5 s=6 t=3 c=4 k=3", strict=TV < (2, 7))
    f.as_view = lambda args: (args[0], torch.cat([torch.zeros(7), args[1]])[7:].view(-1), args[2])
    return f


def fx_hf_llama_dyn():
    """Tiny LlamaForCausalLM (tiny_llama's shape, one layer, vocab 16 to keep the logits
    small) with dynamic batch (1..8) and sequence (2..64); no padding."""
    transformers, cfg = _hf("LlamaConfig", "eager", vocab_size=16, hidden_size=16,
                            intermediate_size=32, num_hidden_layers=HF_LAYERS,
                            num_attention_heads=2, num_key_value_heads=1,
                            max_position_embeddings=64, use_cache=False,
                            tie_word_embeddings=False, initializer_range=0.1,
                            bos_token_id=1, eos_token_id=2, pad_token_id=0)

    def ids(b, t):
        return torch.randint(0, 16, (b, t)), torch.ones(b, t, dtype=torch.int64)
    f = _hf_fixture(transformers, transformers.LlamaForCausalLM(cfg),
                    ("input_ids", "attention_mask"), ids(4, 23), "eager",
                    extra_cases=[("min batch=1 seq=2", ids(1, 2)),
                                 ("large batch=3 seq=64", ids(3, 64))],
                    use_cache=False, return_dict=False)
    b, s = Dim("batch", min=1, max=8), Dim("seq", min=2, max=64)
    f.dynamic_shapes = (({0: b, 1: s}, {0: b, 1: s}),)    # _HFWrapper.forward(*args)
    f.case0_desc = "example inputs, mid batch=4 seq=23"
    return f


class SigContract(nn.Module):
    """The interface the signature (--signature, docs/signature.md) describes: x dynamic
    in batch and seq, y's axis 0 merged with x's batch by the add (Dim.AUTO), z's axis 0
    specialized to 3 by the add of a (3, 5) constant (Dim.AUTO), w static (no dynamic
    shape given)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 4)
        self.register_buffer("scale", torch.linspace(0.5, 2.0, 4))

    def forward(self, x, y, z, w):
        h = self.lin(x) * self.scale + y.unsqueeze(1)
        return h, z + torch.ones(3, 5), w @ w


def fx_sig_contract():
    b, s, auto = Dim("batch", min=1, max=32), Dim("seq", min=2, max=64), Dim.AUTO
    ds = {"x": {0: b, 1: s}, "y": {0: auto}, "z": {0: auto}, "w": None}
    return Fixture(SigContract().eval(), (r(2, 6, 8), r(2, 4), r(3, 5), r(2, 2)),
                   dynamic_shapes=ds,
                   cases=[("min batch=1 seq=2", (r(1, 2, 8), r(1, 4), r(3, 5), r(2, 2))),
                          ("max batch=32, seq=3", (r(32, 3, 8), r(32, 4), r(3, 5), r(2, 2))),
                          ("max seq=64, batch=2", (r(2, 64, 8), r(2, 4), r(3, 5), r(2, 2)))],
                   case0_desc="example inputs, batch=2 seq=6")


DYN_FIXTURES = ["sym_ops", "sym_bools", "sym_sum", "sym_index", "nonzero", "item", "cond_dyn",
                "cond_nested", "grad_wrap", "autocast_wrap", "while_dyn", "scan_rev",
                "sym_arith", "hf_llama_dyn", "sig_contract"]


FIXTURES = {
    "mlp": fx_mlp,
    "mlp_decomp": fx_mlp_decomp,
    "cnn": fx_cnn,
    "cnn_decomp": fx_cnn_decomp,
    "attention": fx_attention,
    "attention_decomp": fx_attention_decomp,
    "inplace": fx_inplace,
    "mlp_dyn": fx_mlp_dyn,
    "attention_dyn": fx_attention_dyn,
    "derived_dyn": fx_derived_dyn,
    "cond": fx_cond,
    "while_loop": fx_while_loop,
    "scan": fx_scan,
    "dtypes": fx_dtypes,
    "tiny_bert": fx_tiny_bert,
    "tiny_llama": fx_tiny_llama,
}


def _register():
    for n in TV_FIXTURES + HF_FIXTURES + OP_FIXTURES:
        b = globals()["fx_" + n]
        FIXTURES[n] = b
        FIXTURES[n + "_decomp"] = decomposed(globals()[DECOMP_BUILDER.get(n, "fx_" + n)])
        NEW_FIXTURES.extend([n, n + "_decomp"])
    for n in HF_SDPA:
        FIXTURES[n + "_sdpa"] = sdpa(globals()["fx_" + n])
        NEW_FIXTURES.append(n + "_sdpa")


DECOMP_BUILDER = {"op_rnn": "fx_op_rnn_small"}
HF_SDPA = ["hf_distilbert", "hf_roberta", "hf_gpt2", "hf_mistral", "hf_qwen2", "hf_phi3",
           "hf_whisper_encoder"]
NEW_FIXTURES = []
_register()
for _n_ in DYN_FIXTURES:
    FIXTURES[_n_] = globals()["fx_" + _n_]
    NEW_FIXTURES.append(_n_)

# What a full run (no NAME given) makes of the fixtures registered by _register(). All
# of them, for both torch versions, take 16.5 MB, and test/models must stay under 10 MB
# (README "Size"), so a full run makes this selection; the others are made when they are
# named on the command line.
DEFAULT_SET = {
    "2.14": set(OP_FIXTURES + TV_FIXTURES + HF_FIXTURES) | {
        n + "_decomp" for n in ["op_activations", "op_creation", "op_embedding", "op_index",
                                "op_inplace", "op_norms", "op_overloads", "op_pool",
                                # no new target, but real models in core ATen: rotary, RMS
                                # norm, GQA; relative position buckets; shifted windows
                                "hf_mistral", "hf_t5_encoder", "tv_swin"]},
    "2.6": set(OP_FIXTURES) - {"op_dtypes"} | {"op_norms_decomp", "op_overloads_decomp"},
}
# All of DYN_FIXTURES, in both versions (hf_llama_dyn in 2.6 when transformers is found,
# see README "hf_llama_dyn in torch 2.6").
DEFAULT_SET["2.14"] |= set(DYN_FIXTURES)
DEFAULT_SET["2.6"] |= set(DYN_FIXTURES)
FIXTURES["tv_resnet18"] = fx_tv_resnet18      # a full run makes it in 2.14 only: one is enough
NEW_FIXTURES.append("tv_resnet18")
DEFAULT_SET["2.14"].add("tv_resnet18")


# --------------------------------------------------------------------------------------
# Family files: test/models/families/NAME.py, one per op family, each run in this
# module's namespace (so it uses r, SlimFixture, liven, flat_cat, ... directly) in name
# order. A family file defines its fx_* builders and registers them with family(); its
# fixtures are made by a full run for the torch versions it names.
# --------------------------------------------------------------------------------------

def family(names, versions=("2.14", "2.6"), decomp=True):
    """Registers fx_NAME for each NAME (and NAME_decomp, its core-ATen twin, when decomp),
    made by a full run of each torch version in versions."""
    for n in names:
        made = [n]
        FIXTURES[n] = globals()["fx_" + n]
        if decomp:
            FIXTURES[n + "_decomp"] = decomposed(globals()[DECOMP_BUILDER.get(n, "fx_" + n)])
            made.append(n + "_decomp")
        NEW_FIXTURES.extend(made)
        for v in versions:
            DEFAULT_SET[v].update(made)


_FAMILY_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "families")
for _fam in sorted(os.listdir(_FAMILY_DIR)) if os.path.isdir(_FAMILY_DIR) else []:
    if _fam.endswith(".py"):
        _path = os.path.join(_FAMILY_DIR, _fam)
        with open(_path) as _f:
            exec(compile(_f.read(), _path, "exec"), globals())


def default_names():
    """Fixtures a full run makes with the running torch."""
    sel = DEFAULT_SET["2.14" if TV >= (2, 9) else "2.6"]
    return [n for n in FIXTURES if n not in NEW_FIXTURES or n in sel]


# --------------------------------------------------------------------------------------
# numpy I/O
# --------------------------------------------------------------------------------------

def dtype_name(dt):
    return str(dt).replace("torch.", "")


def to_numpy(v):
    """Tensor / python scalar -> (np.ndarray, manifest dtype name)."""
    if isinstance(v, torch.Tensor):
        t = v.detach().cpu().contiguous()
        if t.dtype == torch.bfloat16:
            return t.view(torch.int16).numpy().view(np.uint16).copy(), "bfloat16"
        return t.numpy().copy(), dtype_name(t.dtype)
    if isinstance(v, (bool, torch.SymBool)):
        return np.array(bool(v), dtype=np.bool_), "bool"
    if isinstance(v, (int, torch.SymInt)):
        return np.array(int(v), dtype=np.int64), "int64"
    if isinstance(v, (float, torch.SymFloat)):
        return np.array(float(v), dtype=np.float64), "float64"
    raise TypeError("cannot store %r" % type(v))


def from_numpy(arr, dtype):
    if dtype == "bfloat16":
        return torch.from_numpy(arr.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(arr.copy())


def tensor_leaves(tree):
    return [x for x in pytree.tree_flatten(tree)[0] if isinstance(x, torch.Tensor)]


def output_leaves(tree):
    return [x for x in pytree.tree_flatten(tree)[0] if x is not None]


def clone_tree(tree):
    return pytree.tree_map(lambda x: x.clone() if isinstance(x, torch.Tensor) else x, tree)


def write_json(path, obj):
    text = json.dumps(obj, indent=1)
    # one line per list of numbers ("shape": [2, 8])
    text = re.sub(r"\[\s+([-0-9.,\s]*?)\s+\]", lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)
    with open(path, "w") as f:
        f.write(text + "\n")


def write_arrays(io_dir, case, prefix, values):
    entries = []
    for i, v in enumerate(values):
        arr, dt = to_numpy(v)
        rel = "%s/%s_%d.npy" % (case, prefix, i)
        np.save(os.path.join(io_dir, rel), arr, allow_pickle=False)
        entries.append({"file": rel, "dtype": dt, "shape": list(arr.shape)})
    return entries


# --------------------------------------------------------------------------------------
# Export and save
# --------------------------------------------------------------------------------------

def export_args(fx):
    """A fresh copy of the example inputs; fx.as_view, if set, turns it into views
    (fx_sym_arith)."""
    args = clone_tree(fx.args)
    return fx.as_view(args) if getattr(fx, "as_view", None) else args


def do_export(fx):
    kw = {}
    if fx.dynamic_shapes is not None:
        kw["dynamic_shapes"] = fx.dynamic_shapes
    try:
        ep = torch.export.export(fx.model, export_args(fx), strict=fx.strict, **kw)
    except Exception as e:
        if fx.strict or not fx.allow_strict_fallback:
            raise
        first = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")
        print("    strict=False failed (%s); retrying with strict=True" % first)
        ep = torch.export.export(fx.model, export_args(fx), strict=True, **kw)
        fx.strict = True
        fx.notes.append("exported with strict=True (strict=False failed: %s)" % first[:300])
    if fx.decompose:
        ep = ep.run_decompositions()
    if getattr(fx, "slim", False):
        strip_metadata(ep, getattr(fx, "slim_keep", ()))
    return ep


SLIM_DROPPED_META = ("stack_trace", "from_node", "nn_module_stack", "torch_fn", "source_fn_stack")


def strip_metadata(ep, keep=()):
    """Drop the node metadata that only serves debugging (source stack traces, module
    paths, from_node provenance) in all (sub)graphs: it is a third to a half of the
    bytes of a .pt2. keep: entries to keep all the same (a builder's fx.slim_keep, e.g.
    nn_module_stack for the fixtures of modules written as functions)."""
    for gm in ep.graph_module.modules():
        if isinstance(gm, torch.fx.GraphModule):
            for node in gm.graph.nodes:
                for k in SLIM_DROPPED_META:
                    if k not in keep:
                        node.meta.pop(k, None)


def export_with_fallbacks(name, fx):
    """do_export(fx); when it fails and fx has a fallback, build and export that instead
    (re-seeded like the first try), and record why in the notes."""
    notes = []
    while True:
        try:
            ep = do_export(fx)
            fx.notes = notes + fx.notes
            return fx, ep
        except Skip:
            raise
        except Exception as e:
            if getattr(fx, "fallback", None) is None:
                raise
            first = "%s: %s" % (type(e).__name__,
                                str(e).strip().splitlines()[0] if str(e).strip() else "")
            note, builder = fx.fallback
            print("    %s: export failed (%s); %s" % (name, first[:200], note))
            if os.environ.get("FIXTURES_TRACEBACK"):
                traceback.print_exc()
            notes.append("%s (the first form failed to export with torch %s: %s)" % (
                note, TORCH_VERSION, first[:300]))
            seed_all(name)
            fx = builder()


def zip_contents(path):
    with zipfile.ZipFile(path) as z:
        return [(i.filename, z.read(i.filename)) for i in z.infolist()]


_GRAPH_ID = re.compile(rb'(graph_id\\*"): -?[0-9]+')


def same_records(a, b):
    """True if the zips a and b hold the same records, ignoring what torch cannot make
    reproducible: zip timestamps (2.6), the "graph_id" in from_node metadata (an id() of a
    Python object) and .data/serialization_id (a hash of the rest)."""
    try:
        ra, rb = zip_contents(a), zip_contents(b)
    except (zipfile.BadZipFile, OSError):
        return False
    if [n for n, _ in ra] != [n for n, _ in rb]:
        return False
    for (n, x), (_, y) in zip(ra, rb):
        if n.endswith(".data/serialization_id") or x == y:
            continue
        if _GRAPH_ID.sub(rb"\1: 0", x) != _GRAPH_ID.sub(rb"\1: 0", y):
            return False
    return True


def save_ep(ep, path, deflate_min=None):
    """torch.export.save into path; keep an existing file whose records are identical
    (torch 2.6 writes zip timestamps, so its bytes change on every run). deflate_min:
    re-deflate the records of at least that many bytes (redeflate())."""
    tmpdir = tempfile.mkdtemp(prefix=".tmp-", dir=os.path.dirname(path))
    try:
        tmp = os.path.join(tmpdir, os.path.basename(path))  # same basename = same zip root
        torch.export.save(ep, tmp)
        if deflate_min:
            redeflate(tmp, deflate_min)
        if os.path.exists(path) and same_records(path, tmp):
            return "unchanged"
        os.replace(tmp, path)
        return "written"
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def run_program(ep, args):
    """ep.module() on a fresh copy of the program (buffer mutations must not leak between
    cases) and on cloned inputs (user-input mutations must not alter the stored inputs)."""
    try:
        prog = copy.deepcopy(ep)
    except Exception:
        prog = ep
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch 2.6 warns about get_attr of lifted constants
        return prog.module()(*clone_tree(args))


def graph_summary(ep):
    ops = {}
    for node in ep.graph.nodes:
        if node.op == "call_function":
            name = str(node.target)
            ops[name] = ops.get(name, 0) + 1
    return ops


def generate_one(name, outdir):
    seed_all(name)
    fx = FIXTURES[name]()
    fx, ep = export_with_fallbacks(name, fx)
    if getattr(fx, "after_export", None):   # a family's look at the program (quant.py: tolerance)
        fx.after_export(fx, ep, [(fx.case0_desc, fx.args)] + fx.cases)
    path = os.path.join(outdir, name + ".pt2")
    status = save_ep(ep, path, getattr(fx, "deflate_min", None))

    io_dir = os.path.join(outdir, name + ".io")
    if os.path.isdir(io_dir):
        shutil.rmtree(io_dir)
    os.makedirs(io_dir)
    cases = [(fx.case0_desc, fx.args)] + fx.cases
    manifest = {"torch": TORCH_VERSION, "fixture": name, "strict": bool(fx.strict),
                "decomposed": bool(fx.decompose), "cases": []}
    if fx.dynamic_shapes is not None:
        manifest["range_constraints"] = {
            str(k): [int(v.lower) if v.lower.is_integer else str(v.lower),
                     int(v.upper) if v.upper.is_integer else str(v.upper)]
            for k, v in ep.range_constraints.items()}
    if fx.notes:
        manifest["notes"] = fx.notes
    # A builder may set fx.tolerance ({"atol": X, "why": "..."}: the ONNX op is itself
    # approximate, test/ort/run.mjs) and fx.options (the text of NAME.io/options.yaml,
    # the fixture's own conversion options, test/run-ort.sh).
    if getattr(fx, "tolerance", None):
        manifest["tolerance"] = fx.tolerance
    if getattr(fx, "options", None):
        with open(os.path.join(io_dir, "options.yaml"), "w") as f:
            f.write(fx.options)
    for k, (desc, args) in enumerate(cases):
        case = "case%d" % k
        os.makedirs(os.path.join(io_dir, case))
        ins = tensor_leaves(args)
        outs = output_leaves(run_program(ep, args))
        manifest["cases"].append({
            "name": case, "desc": desc,
            "inputs": write_arrays(io_dir, case, "in", ins),
            "outputs": write_arrays(io_dir, case, "out", outs)})
    write_json(os.path.join(io_dir, "manifest.json"), manifest)
    ops = graph_summary(ep)
    print("  %-18s %s  %6d B  %d cases  %d nodes%s" % (
        name, status, os.path.getsize(path), len(cases), sum(ops.values()),
        "  [strict]" if fx.strict else ""))
    return fx


# --------------------------------------------------------------------------------------
# torch 2.8 layout emulation
# --------------------------------------------------------------------------------------

def emulate_28(src_pt2, dst_pt2):
    """Rewrite a torch>=2.9 PT2 archive into the torch 2.8 layout.

    torch 2.8 wrote the same archive but with the state dict as ONE torch.save pickle at
    data/weights/model.pt and the constants at data/constants/model.pt (no weight_N /
    tensor_N files, no *_config.json), and schema_version 8.8 in models/model.json.
    Records keep the 2.14 order, the two pickles taking the place of the configs; the zip
    is written by torch's own torch._C.PyTorchFileWriter (64-byte aligned stored records,
    root folder = basename, .data/version, byteorder, .data/serialization_id added by it).
    """
    import io
    if TV < (2, 9):
        raise Skip("the emulation needs a torch>=2.9 archive and loader")
    contents = zip_contents(src_pt2)
    root = contents[0][0].split("/", 1)[0] + "/"
    records = [(n[len(root):], d) for n, d in contents]
    names = [n for n, _ in records]
    if "archive_format" not in names or "models/model.json" not in names:
        raise ValueError("%s is not a PT2 archive" % src_pt2)
    if any(n.startswith("models/") and n != "models/model.json" for n in names):
        raise ValueError("only single-model archives are supported")

    ep = torch.export.load(src_pt2)

    def pickled(d):
        buf = io.BytesIO()
        torch.save(d, buf, pickle_protocol=2)
        return buf.getvalue()

    state_dict = dict(ep.state_dict)
    constants = dict(ep.constants)
    for k, v in constants.items():
        if not isinstance(v, torch.Tensor):
            raise ValueError("constant %s is a %s; only tensors are supported" % (k, type(v)))

    writer_added = {".data/version", "byteorder", ".data/serialization_id", "version"}
    out = []
    for n, d in records:
        if n in writer_added:
            continue
        if n.startswith("data/weights/"):
            if n == "data/weights/model_weights_config.json":
                out.append(("data/weights/model.pt", pickled(state_dict)))
            continue
        if n.startswith("data/constants/"):
            if n == "data/constants/model_constants_config.json":
                out.append(("data/constants/model.pt", pickled(constants)))
            continue
        if n == "models/model.json":
            text = d.decode("utf-8")
            obj = json.loads(text)
            old = obj["schema_version"]
            pat = '"schema_version": {"major": %d, "minor": %d}' % (old["major"], old["minor"])
            if text.count(pat) != 1:
                raise ValueError("schema_version not found once in model.json")
            d = text.replace(pat, '"schema_version": {"major": 8, "minor": 8}').encode("utf-8")
        out.append((n, d))

    tmpdir = tempfile.mkdtemp(prefix=".tmp-", dir=os.path.dirname(dst_pt2))
    try:
        tmp = os.path.join(tmpdir, os.path.basename(dst_pt2))
        w = torch._C.PyTorchFileWriter(tmp)
        w.set_min_version(6)
        for n, d in out:
            w.write_record(n, d, len(d))
        w.write_end_of_file()
        del w
        if os.path.exists(dst_pt2) and same_records(dst_pt2, tmp):
            return "unchanged"
        os.replace(tmp, dst_pt2)
        return "written"
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def emulate_28_dir(src_dir, dst_dir, names):
    os.makedirs(dst_dir, exist_ok=True)
    print("torch 2.8 emulation: %s -> %s" % (src_dir, dst_dir))
    done = []
    for name in names:
        src = os.path.join(src_dir, name + ".pt2")
        if not os.path.exists(src):
            print("  %-18s SKIPPED: %s does not exist" % (name, src))
            continue
        dst = os.path.join(dst_dir, name + ".pt2")
        status = emulate_28(src, dst)
        io_src, io_dst = os.path.join(src_dir, name + ".io"), os.path.join(dst_dir, name + ".io")
        if os.path.isdir(io_dst):
            shutil.rmtree(io_dst)
        shutil.copytree(io_src, io_dst)
        with open(os.path.join(io_dst, "manifest.json")) as f:
            man = json.load(f)
        man["emulated"] = ("torch 2.8 layout rewritten from the torch %s archive by "
                           "make_fixtures.py emulate_28()" % man["torch"])
        write_json(os.path.join(io_dst, "manifest.json"), man)
        print("  %-18s %s  %6d B" % (name, status, os.path.getsize(dst)))
        done.append(name)
    return done


# --------------------------------------------------------------------------------------
# Verification
# --------------------------------------------------------------------------------------

def compare(ref, got):
    """-> (ok, max_abs_diff)"""
    if isinstance(got, torch.Tensor):
        g = got.detach().cpu()
    else:
        g = torch.tensor(got)
    if g.dtype == torch.bfloat16:
        g = g.float()
    if ref.dtype == torch.bfloat16:
        ref = ref.float()
    if tuple(g.shape) != tuple(ref.shape):
        return False, "shape %s != %s" % (tuple(g.shape), tuple(ref.shape))
    if g.dtype in (torch.bool,) or not (g.is_floating_point() or ref.is_floating_point()):
        ok = bool(torch.equal(g.to(ref.dtype), ref))
        return ok, 0.0 if ok else "values differ"
    diff = (g.double() - ref.double()).abs()
    md = float(diff.max()) if diff.numel() else 0.0
    ok = bool(torch.allclose(g.double(), ref.double(), rtol=1e-5, atol=1e-5))
    return ok, md


def load_arrays(io_dir, entries):
    """The tensors of a case's "inputs" or "outputs" entries, read from io_dir."""
    return [from_numpy(np.load(os.path.join(io_dir, e["file"])), e["dtype"]) for e in entries]


def compare_outputs(refs, outs, what):
    """-> the largest |diff| of outs against refs; AssertionError naming what when they
    differ in number or value (shared with jit/make_jit.py)."""
    if len(outs) != len(refs):
        raise AssertionError("%s: %d outputs, manifest has %d" % (what, len(outs), len(refs)))
    worst = 0.0
    for i, (ref, got) in enumerate(zip(refs, outs)):
        ok, md = compare(ref, got)
        if not ok:
            raise AssertionError("%s out_%d mismatch (%s)" % (what, i, md))
        worst = max(worst, md)
    return worst


def _patch_while_loop_lists(ep):
    """torch 2.6 deserializes while_loop's carried/additional inputs as lists, and its
    own WhileLoopOp then refuses them ("carried_inputs must be a tuple"): a bug of the
    2.6 loader, not of the file. Turn them into tuples in the loaded graph."""
    if TV >= (2, 7):
        return False
    wl = getattr(torch.ops.higher_order, "while_loop", None)
    changed = False
    for gm in ep.graph_module.modules():
        if not isinstance(gm, torch.fx.GraphModule):
            continue
        for node in gm.graph.nodes:
            if node.op == "call_function" and node.target is wl:
                args = tuple(tuple(a) if isinstance(a, list) else a for a in node.args)
                if args != node.args:
                    node.args = args
                    changed = True
        if changed:
            gm.recompile()
    return changed


def verify_dir(d, names):
    files = sorted(f[:-4] for f in os.listdir(d) if f.endswith(".pt2"))
    if names:
        files = [f for f in files if f in names]
    failures = 0
    print("verify %s with torch %s" % (d, TORCH_VERSION))
    for name in files:
        path = os.path.join(d, name + ".pt2")
        man_path = os.path.join(d, name + ".io", "manifest.json")
        try:
            with open(man_path) as f:
                man = json.load(f)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ep = torch.export.load(path)
            in_spec = ep.call_spec.in_spec
            patched = _patch_while_loop_lists(ep)
            worst = 0.0
            for case in man["cases"]:
                ins = load_arrays(os.path.join(d, name + ".io"), case["inputs"])
                args, kwargs = pytree.tree_unflatten(ins, in_spec)
                with torch.no_grad():
                    outs = output_leaves(copy.deepcopy(ep).module()(*args, **kwargs))
                worst = max(worst, compare_outputs(
                    load_arrays(os.path.join(d, name + ".io"), case["outputs"]), outs, case["name"]))
            print("  %-18s OK    %d cases, max |diff| %.3g (file written by torch %s)%s" % (
                name, len(man["cases"]), worst, man.get("torch"),
                "\n%20s(torch<2.7 workaround: deserialized while_loop args turned from lists "
                "into tuples)" % "" if patched else ""))
        except Exception as e:
            failures += 1
            print("  %-18s FAIL  %s: %s" % (name, type(e).__name__, str(e).strip()[:500]))
    return failures


# --------------------------------------------------------------------------------------
# ATen targets used by the fixtures (for the converter's coverage test)
#
#     make_fixtures.py --ops-used [DIR...]   write ops-used.txt next to this script: one
#                                            line "aten.X.overload folder/fixture ..." per
#                                            ATen target of the fixtures of DIR (default:
#                                            all torch-* folders)
#
# (The module docstring is not the place for it: the format fixtures' stack traces hold
# line numbers of this file, and test/golden/print has them, so lines must not be added
# above the "Op-coverage fixtures" section.)
# --------------------------------------------------------------------------------------

_MODEL_JSON = re.compile(r"(^|/)(models/[^/]+\.json|serialized_exported_program\.json)$")


def pt2_targets(path):
    """Every node target of a .pt2, in its top graph and in all subgraphs (cond branches,
    loop bodies, ...), read from the archive's JSON with zipfile/json only: works for the
    torch 2.6 flat zip and the 2.8+ PT2 archive."""
    targets = set()

    def walk(o):
        if isinstance(o, dict):
            t = o.get("target")
            if isinstance(t, str) and "inputs" in o and "outputs" in o:
                targets.add(t)
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)

    with zipfile.ZipFile(path) as z:
        for n in z.namelist():
            if _MODEL_JSON.search(n) and "config" not in n.rsplit("/", 1)[-1]:
                walk(json.loads(z.read(n)))
    return targets


def ops_used(dirs, out_path):
    """Write out_path: one line per ATen target, "aten.X.overload FIX1 FIX2 ...", where
    FIXk = folder/name of each fixture whose graphs use it; lines and fixtures sorted."""
    users = {}
    for d in dirs:
        ver = os.path.basename(os.path.normpath(d))
        for f in sorted(os.listdir(d)):
            if not f.endswith(".pt2"):
                continue
            fix = "%s/%s" % (ver, f[:-4])
            for t in pt2_targets(os.path.join(d, f)):
                if t.startswith("torch.ops."):
                    t = t[len("torch.ops."):]
                if t.startswith("aten."):
                    users.setdefault(t, set()).add(fix)
    with open(out_path, "w") as f:
        for t in sorted(users):
            f.write("%s %s\n" % (t, " ".join(sorted(users[t]))))
    print("%s: %d ATen targets used by the fixtures of %s" % (
        out_path, len(users), " ".join(dirs)))
    return users


# --------------------------------------------------------------------------------------

def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", nargs="?", help="output folder (default: torch-X.Y next to this script)")
    ap.add_argument("names", nargs="*", help="fixtures to make (default: all)")
    ap.add_argument("--verify", metavar="DIR", help="load every DIR/*.pt2 and compare with DIR/*.io")
    ap.add_argument("--emulate-2.8", dest="emulate", nargs=2, metavar=("SRC", "DST"),
                    help="rewrite SRC/NAME.pt2 (torch>=2.9) into the torch 2.8 layout in DST")
    ap.add_argument("--no-2.8", dest="no28", action="store_true",
                    help="do not write the torch 2.8 emulations next to OUTDIR")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--ops-used", dest="ops_used", action="store_true",
                    help="write the ATen targets of the fixtures of the given folders "
                         "(default: all torch-* folders next to this script) to OPS_OUT")
    ap.add_argument("--ops-out", dest="ops_out", metavar="OPS_OUT",
                    help="output of --ops-used (default: ops-used.txt next to this script)")
    opts = ap.parse_args(argv)

    if opts.list:
        default = set(default_names())
        for n in FIXTURES:
            print(n if n in default else "%s  (only when named)" % n)
        return 0
    if opts.ops_used:
        here = os.path.dirname(os.path.abspath(__file__))
        dirs = [n for n in [opts.outdir] + opts.names if n] or sorted(
            os.path.join(here, d) for d in os.listdir(here)
            if d.startswith("torch-") and os.path.isdir(os.path.join(here, d)))
        ops_used(dirs, opts.ops_out or os.path.join(here, "ops-used.txt"))
        return 0
    if opts.verify:
        names = [n for n in [opts.outdir] + opts.names if n]
        return 1 if verify_dir(opts.verify, names) else 0
    if opts.emulate:
        names = [n for n in [opts.outdir] + opts.names if n] or EMULATE_28_DEFAULT
        emulate_28_dir(opts.emulate[0], opts.emulate[1], names)
        return 0

    here = os.path.dirname(os.path.abspath(__file__))
    outdir = opts.outdir or os.path.join(here, "torch-%d.%d" % TV)
    base = os.path.basename(os.path.normpath(outdir))
    if base.startswith("torch-") and base != "torch-%d.%d" % TV:
        print("warning: writing torch %s fixtures into %s" % (TORCH_VERSION, outdir))
    names = opts.names or default_names()
    unknown = [n for n in names if n not in FIXTURES]
    if unknown:
        ap.error("unknown fixture(s): %s" % " ".join(unknown))
    os.makedirs(outdir, exist_ok=True)

    print("torch %s -> %s" % (TORCH_VERSION, outdir))
    made, skipped = [], []
    for name in names:
        try:
            generate_one(name, outdir)
            made.append(name)
        except Skip as e:
            skipped.append((name, str(e)))
            print("  %-18s SKIPPED: %s" % (name, e))
        except Exception as e:
            msg = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")
            skipped.append((name, msg))
            print("  %-18s SKIPPED (export failed): %s" % (name, msg[:400]))
            if os.environ.get("FIXTURES_TRACEBACK"):
                traceback.print_exc()

    if TV >= (2, 9) and not opts.no28 and base.startswith("torch-"):
        todo = [n for n in EMULATE_28_DEFAULT if n in made]
        if todo:
            emulate_28_dir(outdir, os.path.join(os.path.dirname(os.path.normpath(outdir)), "torch-2.8"), todo)

    if skipped:
        print("not exported with torch %s:" % TORCH_VERSION)
        for n, why in skipped:
            print("  %s: %s" % (n, why[:400]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
