#!/usr/bin/env python3
"""Generate the TorchScript test fixtures of yobx-export, with torch's own reference outputs.

Usage (torch 2.14 in the sid chroot, 2.6 in trixie, 1.13 on the host; see
test/models/README.md, "TorchScript fixtures"):

    make_jit.py OUTDIR [NAME...]       make fixtures into OUTDIR (default: the committed set)
    make_jit.py --bad BADDIR           make the bad inputs and BADDIR/cases.txt
    make_jit.py --verify DIR [NAME...] torch.jit.load every DIR/*.pt and compare with DIR/NAME.io
    make_jit.py --list                 list the fixtures (and which a full run makes)

A fixture is a model and a kind: NAME = MODEL_KIND, KIND one of
    trace   torch.jit.trace(model, example inputs)
    freeze  torch.jit.freeze of the trace (everything inlined into forward, conv+bn folded)
    script  torch.jit.script(model)
For every fixture NAME the generator writes:

    OUTDIR/NAME.pt                  torch.jit.save (records of at least 64 bytes re-deflated
                                    for the models that say so)
    OUTDIR/NAME.io/manifest.json    {"torch", "fixture", "kind", "cases": [{"name", "inputs", "outputs"}]}
    OUTDIR/NAME.io/caseK/in_I.npy   forward's tensor arguments
    OUTDIR/NAME.io/caseK/out_I.npy  what torch.jit.load(NAME.pt) returns for them, flattened
    OUTDIR/NAME.io/options.yaml     the `inputs:` option (a name in a shape is a dynamic
                                    dimension; such fixtures have cases at two sizes)

The .io folders are those of the .pt2 fixtures (make_fixtures.py), written by the same
functions (see _borrow). Each model is made in a child process of its own, so that the
class names torch mangles (___torch_mangle_N) do not depend on what else the run makes.
"""

import argparse
import ast
import inspect
import json
import math
import os
import random
import re
import shutil
import sys
import tempfile
import threading
import traceback
import warnings
import zipfile
import zlib

# The archives record this script's file name (the models' forward lines, in their debug
# records) and torch.jit.script writes a class's Final constants in the order of a set of
# strings. So the script runs under the name the chroots mount it at, whatever the
# checkout (the host's torch 1.13 too), with fixed string hashes: the same files on every
# run. The source goes into linecache under that name, where inspect (torch.jit.script,
# user_line) finds it.
NAME = "/src/test/models/jit/make_jit.py"
BOOT = ("import linecache, sys; p = sys.argv.pop(1); src = open(p).read(); "
        "linecache.cache[%r] = (len(src), None, src.splitlines(True), %r); "
        "exec(compile(src, %r, 'exec'), {'__name__': '__main__', '__file__': %r, 'PATH': p})"
        % ((NAME,) * 4))
if __name__ == "__main__" and (os.environ.get("PYTHONHASHSEED") != "0" or __file__ != NAME):
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable, "-c", BOOT, os.path.abspath(__file__)] + sys.argv[1:])

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
warnings.filterwarnings("ignore")  # 2.14 on Python 3.14: "torch.jit.* is not supported"

HERE = os.path.dirname(globals().get("PATH", os.path.abspath(__file__)))   # the real folder
TORCH_VERSION = torch.__version__
TV = tuple(int(p) for p in TORCH_VERSION.split("+")[0].split(".")[:2])
HAS_SDPA = hasattr(F, "scaled_dot_product_attention")   # torch >= 2.0


def _borrow(names):
    """The functions of make_fixtures.py with these names, compiled from its source.

    make_fixtures.py cannot be imported under torch 1.13 (it imports torch.export and its
    family files register torch 2 custom ops at import time), but its writer (numpy files,
    manifest layout), seeding, weight init and re-deflation are what these fixtures must
    share with the .pt2 ones. So its top-level defs of these names are taken from its
    syntax tree and run here, against this module's imports."""
    path = os.path.join(os.path.dirname(HERE), "make_fixtures.py")
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in names]
    missing = set(names) - {d.name for d in defs}
    if missing:
        raise SystemExit("make_jit.py: make_fixtures.py defines no %s" % ", ".join(sorted(missing)))
    ns = {"np": np, "torch": torch, "nn": nn, "json": json, "re": re, "os": os,
          "random": random, "zlib": zlib, "zipfile": zipfile}
    exec(compile(ast.Module(body=defs, type_ignores=[]), path, "exec"), ns)
    return [ns[n] for n in names]


(seed_all, write_json, write_arrays, redeflate, liven, load_arrays, compare_outputs) = _borrow(
    ["seed_all", "write_json", "write_arrays", "redeflate", "liven", "load_arrays",
     "compare_outputs", "to_numpy", "dtype_name", "from_numpy", "compare"])[:7]


class Skip(Exception):
    """This torch version cannot make a fixture; the message says why."""


def r(*shape):
    return torch.randn(*shape)


# --------------------------------------------------------------------------------------
# Models. Their forward() lines are what the .debug_pkl records point at: the bad inputs'
# expected messages (cases.txt) quote them, so regenerate jit-bad after editing them.
# --------------------------------------------------------------------------------------

class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        h = self.act(self.fc1(x))
        return self.fc2(h)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1, stride=2, bias=False)
        self.bn2 = nn.BatchNorm2d(8)
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn1(self.conv1(x))))
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.head(x)


class Attention(nn.Module):
    """Self-attention with a key padding mask (bool, True = keep) and a causal mask,
    written out: matmul, masked_fill, softmax."""

    def __init__(self, d=16, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)

    def split(self, x):
        b, t, c = x.size(0), x.size(1), x.size(2)
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        h = self.heads
        return (q.view(b, t, h, c // h).transpose(1, 2), k.view(b, t, h, c // h).transpose(1, 2),
                v.view(b, t, h, c // h).transpose(1, 2))

    def keep(self, x, mask):
        t = x.size(1)
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        return causal[None, None, :, :] & mask[:, None, None, :]

    def written(self, q, k, v, keep):
        att = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.size(-1))
        att = att.masked_fill(~keep, float("-inf"))
        return torch.matmul(torch.softmax(att, dim=-1), v)

    def merge(self, x, y):
        y = y.transpose(1, 2).reshape(x.size(0), x.size(1), x.size(2))
        return self.norm(x + self.proj(y))

    def forward(self, x, mask):
        q, k, v = self.split(x)
        return self.merge(x, self.written(q, k, v, self.keep(x, mask)))


class AttentionSdpa(Attention):
    """The same, plus F.scaled_dot_product_attention on the same mask (torch >= 2.0)."""

    def forward(self, x, mask):
        q, k, v = self.split(x)
        keep = self.keep(x, mask)
        y = self.written(q, k, v, keep) + F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
        return self.merge(x, y)


class LSTMModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 8, num_layers=2, batch_first=True)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        y, (h, c) = self.lstm(x)
        return self.fc(y), h, c


class DynBatch(nn.Module):
    """The batch is dynamic: a flatten by x.size(0) and a mean over the batch, so a size
    baked in by the trace would show in the second case."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.fc = nn.Linear(4 * 4 * 4, 5)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        y = self.fc(y.reshape(y.size(0), -1))
        return y - y.mean(0, keepdim=True)


class CfIf(nn.Module):
    """if on a tensor condition (prim::If): the cases take each branch."""

    def forward(self, x):
        if bool(x.sum() > 0):
            y = x * 2.0 + 1.0
        else:
            y = torch.tanh(x) - 1.0
        return y


class CfFor(nn.Module):
    """for over range(n), n the size of a dynamic dimension (prim::Loop)."""

    def forward(self, x):
        acc = torch.zeros_like(x[0])
        for i in range(x.size(0)):
            acc = acc * 0.5 + x[i] * float(i + 1)
        return acc


class CfWhile(nn.Module):
    """while on a tensor condition and a counter: the cases run it 0 and 3 times."""

    def forward(self, x):
        y = x
        n = 0
        while bool(y.abs().max() > 1.0) and n < 20:
            y = y * 0.5
            n += 1
        return y, torch.full([1], n, dtype=torch.int64)


class DictOut(nn.Module):
    """Outputs as structures: a dict built, read, updated and returned (torchvision's
    segmentation models return {"out": ..., "aux": ...}); traced, the dict literal is
    printed as is. Outputs flatten in torch's order (a dict's values in insertion order)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.aux = nn.Conv2d(4, 2, 1)

    def forward(self, x):
        y = self.conv(x)
        d = {"out": torch.relu(y), "aux": self.aux(y)}
        d["out"] = d["out"] * 2.0
        return d


class NestedOut(nn.Module):
    """Nested tuples and lists of outputs, and a dict only inside (scripted)."""

    def forward(self, x):
        d = {"a": x + 1.0, "b": x * 3.0}
        d["c"] = d["a"] - d["b"]
        return (d["c"], [d["a"], (d["b"], x * float(len(d)))])


class CfAttr(nn.Module):
    """Python attributes known at conversion time: a bool and an int (evaluated away), a
    ModuleList iterated (unrolled by the compiler) and a float."""

    def __init__(self):
        super().__init__()
        self.use_gelu = False
        self.depth = 3
        self.scale = 0.5
        self.layers = nn.ModuleList([nn.Linear(8, 8), nn.Linear(8, 8)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        if self.use_gelu:
            x = F.gelu(x)
        else:
            x = torch.relu(x)
        for _ in range(self.depth):
            x = x * self.scale + 1.0
        return x


class Rare(nn.Module):
    """The bad input "no_row": an ATen op with neither a lowering (ops/*.def, decomp.def)
    nor a dtype and shape rule (meta.def), so the reader cannot type it."""

    def forward(self, x):
        return torch.nextafter(x, x + 1.0) + 1.0


class DataDep(nn.Module):
    """Results whose sizes depend on the data (unbacked sizes in the .pt2 path): nonzero,
    masked_select, unique (sorted, inverse, counts; over a dim; consecutive) and a
    boolean-mask index, each read by a later op typed with the size."""

    def forward(self, x, m, rows):
        nz = torch.nonzero(x > 0.5)
        sel = torch.masked_select(x, m) * 2.0 + 1.0
        r = torch.round(x * 2.0)
        u, inv, cnt = torch.unique(r, return_inverse=True, return_counts=True)
        ud = torch.unique(r[:, :2], dim=0)
        uc, ucnt = torch.unique_consecutive(r.flatten(), return_counts=True)
        picked = torch.relu(x[rows]).sum(0)
        return nz + 1, sel, u * 3.0, inv, cnt, ud, uc, ucnt, picked


class Encoder(nn.Module):
    """nn.TransformerEncoder in eval mode: each layer one _transformer_encoder_layer_fwd
    (the fast path); with a key padding mask the layers run on a nested tensor
    (_nested_tensor_from_mask ... to_padded_tensor), with a causal mask too they take the
    merged mask (mask_type 2)."""

    def __init__(self, norm_first=False, activation="relu", mode="none"):
        super().__init__()
        layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, activation=activation,
                                           batch_first=True, norm_first=norm_first)
        self.mode = mode
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=mode != "causal")

    def forward(self, x, pad):
        if self.mode == "none":
            return self.enc(x) + pad.sum()
        if self.mode == "pad":
            return self.enc(x, src_key_padding_mask=pad)
        causal = nn.Transformer.generate_square_subsequent_mask(x.size(1))
        return self.enc(x, mask=causal, src_key_padding_mask=pad)


class Mha(nn.Module):
    """nn.MultiheadAttention in eval mode on self-attention: _native_multi_head_attention,
    with a key padding mask, and its weights averaged and per head."""

    def __init__(self):
        super().__init__()
        self.att = nn.MultiheadAttention(16, 2, batch_first=True)

    def forward(self, x, pad):
        y, w = self.att(x, x, x, key_padding_mask=pad)
        y2, w2 = self.att(x, x, x, average_attn_weights=False)
        y3 = self.att(x, x, x, need_weights=False)[0]
        return y, w, y2, w2, y3


class Tf(nn.Module):
    """nn.Transformer in eval mode with a causal target mask."""

    def __init__(self):
        super().__init__()
        self.t = nn.Transformer(16, 2, 1, 1, 32, dropout=0.0, batch_first=True)

    def forward(self, src, tgt):
        mask = nn.Transformer.generate_square_subsequent_mask(tgt.size(1))
        return self.t(src, tgt, tgt_mask=mask)


def pad_bool(b, t):
    """True = padded: row k has its last k positions padded (every row keeps position 0)."""
    return pad_mask(b, t) == 0


def _tvm(mod):
    try:
        import importlib
        return importlib.import_module("torchvision.models." + mod)
    except ImportError as e:
        raise Skip("torchvision is not installed (%s)" % e)


def tiny_resnet():
    """torchvision's ResNet (its forward and _make_layer) with 4 and 8 channels: a
    BasicBlock, then a strided one with a downsample; layer3 and layer4 are identities."""
    resnet = _tvm("resnet")
    m = resnet.ResNet(resnet.BasicBlock, [1, 1, 1, 1], num_classes=10)
    m.inplanes = 4
    m.conv1 = nn.Conv2d(3, 4, kernel_size=7, stride=2, padding=3, bias=False)
    m.bn1 = nn.BatchNorm2d(4)
    m.layer1 = m._make_layer(resnet.BasicBlock, 4, 1)
    m.layer2 = m._make_layer(resnet.BasicBlock, 8, 1, stride=2)
    m.layer3 = nn.Identity()
    m.layer4 = nn.Identity()
    m.fc = nn.Linear(8, 10)
    return m


def coarse(model, levels=16):
    """Rounds every floating parameter and buffer to one of 2 * levels + 1 steps of its
    largest magnitude: the values still differ, but a deflated archive holds them in a
    fraction of the bytes (the model's outputs still depend on every weight)."""
    with torch.no_grad():
        for t in list(model.parameters()) + list(model.buffers()):
            if t.is_floating_point() and t.numel():
                step = float(t.abs().max()) / levels or 1.0
                t.copy_(torch.round(t / step) * step)
    return model


def tiny_mobilenet():
    """torchvision's mobilenet_v3_small at width 0.25 with the reduced tail: depthwise
    convs, squeeze-excitation, hardswish and hardsigmoid."""
    return _tvm("mobilenetv3").mobilenet_v3_small(width_mult=0.25, reduced_tail=True, num_classes=10)


def tiny_swin_v2():
    """torchvision's SwinTransformer V2 with 8 channels, one block per stage and
    PatchMergingV2 between: traced code takes torch.numel of the qkv bias, floor-divides
    it as a tensor and slices with int() of that (a SIGSEGV once: issue 21)."""
    sw = _tvm("swin_transformer")
    return sw.SwinTransformer(patch_size=[2, 2], embed_dim=8, depths=[1, 1], num_heads=[1, 2],
                              window_size=[4, 4], num_classes=10, block=sw.SwinTransformerBlockV2,
                              downsample_layer=sw.PatchMergingV2)


def _transformers():
    try:
        import transformers
    except ImportError as e:
        raise Skip("transformers is not installed (%s)" % e)
    return transformers


class HF(nn.Module):
    """A transformers model called with positional tensors and returning a tuple: what
    config.torchscript=True did for tracing before transformers 5 dropped it (5.12's
    return_dict=False breaks GPT2LMHeadModel, so the output is made a tuple here)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, *args):
        return self.model(*args).to_tuple()


def hf_model(cls_name, config_name, **kw):
    transformers = _transformers()
    config = getattr(transformers, config_name)(**kw)
    config._attn_implementation = "eager"
    return liven(getattr(transformers, cls_name)(config))


# --------------------------------------------------------------------------------------
# The fixture table
# --------------------------------------------------------------------------------------

def ids(vocab, b, t):
    return torch.randint(0, vocab, (b, t))


def pad_mask(b, t, dtype=torch.bool):
    """1 = keep; row k has its last k positions padded (every row keeps position 0)."""
    m = torch.ones(b, t, dtype=dtype)
    for k in range(1, b):
        m[k, t - min(k, t - 1):] = 0
    return m


class Model:
    """A model and its inputs: build() -> nn.Module; inputs: one (name, dtype, shape) per
    tensor argument of forward, a str in shape naming a dynamic dimension; cases() ->
    [(desc, args)], the first one the example the trace records; kinds: which of trace,
    freeze and script; deflate: re-deflate the archive's records of >= 64 bytes;
    coarse: round the weights (coarse()) for a smaller deflated archive; full: {kind: torch
    version} the kinds a full run makes only from that torch version on (for size; named,
    they are made by any); real: a real-size model (test/jit/models.sh), made only when
    named."""

    def __init__(self, name, build, inputs, cases, kinds=("trace", "freeze", "script"),
                 deflate=False, coarse=False, full=None, real=False, notes=()):
        self.name, self.build, self.inputs, self.cases = name, build, inputs, cases
        self.kinds, self.deflate, self.real, self.notes = kinds, deflate, real, list(notes)
        self.coarse, self.full = coarse, full or {}

    def in_full_run(self, kind):
        return not self.real and TV >= self.full.get(kind, (0, 0))


def _image(*shape):
    return lambda: [("example inputs", (r(*shape),))]


TRACE_FREEZE = ("trace", "freeze")
ATTN = AttentionSdpa if HAS_SDPA else Attention
MODELS = [
    Model("mlp", MLP, [("x", "float32", [2, 8])], lambda: [("example inputs", (r(2, 8),))]),
    Model("cnn", CNN, [("x", "float32", [2, 3, 16, 16])], _image(2, 3, 16, 16)),
    Model("attention", ATTN, [("x", "float32", [2, 6, 16]), ("mask", "bool", [2, 6])],
          lambda: [("example inputs", (r(2, 6, 16), pad_mask(2, 6)))],
          notes=["written-out attention plus F.scaled_dot_product_attention on the same mask"
                 if HAS_SDPA else "written-out attention only (torch 1.13 has no "
                 "scaled_dot_product_attention)"]),
    Model("lstm", LSTMModel, [("x", "float32", [2, 5, 6])], lambda: [("example inputs", (r(2, 5, 6),))]),
    Model("dyn", DynBatch, [("x", "float32", ["batch", 3, 4, 4])],
          lambda: [("batch=2", (r(2, 3, 4, 4),)), ("batch=5", (r(5, 3, 4, 4),))]),
    Model("cf_if", CfIf, [("x", "float32", [2, 4])],
          lambda: [("sum > 0: then", (r(2, 4).abs() + 0.1,)), ("sum < 0: else", (-r(2, 4).abs() - 0.1,))],
          kinds=("script",)),
    Model("cf_for", CfFor, [("x", "float32", ["n", 4])],
          lambda: [("n=3", (r(3, 4),)), ("n=6", (r(6, 4),))], kinds=("script",)),
    Model("cf_while", CfWhile, [("x", "float32", [2, 4])],
          lambda: [("3 halvings", (torch.tensor([[5.0, -3.0, 1.0, 0.5], [2.0, 7.5, -6.0, 0.0]]),)),
                   ("none", (r(2, 4).clamp(-0.9, 0.9),))], kinds=("script",)),
    Model("cf_attr", CfAttr, [("x", "float32", [2, 8])], lambda: [("example inputs", (r(2, 8),))],
          kinds=("script",)),
    Model("dict_out", DictOut, [("x", "float32", [2, 3, 8, 8])], _image(2, 3, 8, 8)),
    Model("nested_out", NestedOut, [("x", "float32", [2, 5])], lambda: [("example inputs", (r(2, 5),))],
          kinds=("script",)),
    Model("tv_resnet", tiny_resnet, [("x", "float32", [2, 3, 32, 32])], _image(2, 3, 32, 32),
          kinds=TRACE_FREEZE, deflate=True),
    Model("tv_mobilenet", tiny_mobilenet, [("x", "float32", [1, 3, 32, 32])], _image(1, 3, 32, 32),
          kinds=TRACE_FREEZE, deflate=True, coarse=True, full={"trace": (2, 14)}),   # 205 code files, 0.36 MB
    Model("tv_swin_v2", tiny_swin_v2, [("x", "float32", [1, 3, 16, 16])], _image(1, 3, 16, 16),
          kinds=TRACE_FREEZE, deflate=True, coarse=True),
    Model("bert", lambda: HF(hf_model("BertModel", "BertConfig", vocab_size=100, hidden_size=32,
                                      num_hidden_layers=1, num_attention_heads=2,
                                      intermediate_size=64, max_position_embeddings=16)),
          [("input_ids", "int64", [2, 8]), ("attention_mask", "int64", [2, 8])],
          lambda: [("example inputs", (ids(100, 2, 8), pad_mask(2, 8, torch.int64)))],
          kinds=TRACE_FREEZE),
    Model("gpt2", lambda: HF(hf_model("GPT2LMHeadModel", "GPT2Config", vocab_size=100, n_positions=16,
                                      n_embd=32, n_layer=1, n_head=2, use_cache=False)),
          [("input_ids", "int64", [2, 8])], lambda: [("example inputs", (ids(100, 2, 8),))],
          kinds=TRACE_FREEZE, deflate=True),
    Model("datadep", DataDep, [("x", "float32", [4, 5]), ("m", "bool", [4, 5]), ("rows", "bool", [4])],
          lambda: [("example inputs", (r(4, 5), r(4, 5) > 0, torch.tensor([True, False, True, True])))],
          kinds=TRACE_FREEZE),
    Model("encoder", Encoder, [("x", "float32", [2, 6, 16]), ("pad", "bool", [2, 6])],
          lambda: [("example inputs", (r(2, 6, 16), pad_bool(2, 6)))], kinds=("freeze",), deflate=True, coarse=True),
    Model("encoder_gelu_pre", lambda: Encoder(True, "gelu"), [("x", "float32", [2, 6, 16]), ("pad", "bool", [2, 6])],
          lambda: [("example inputs", (r(2, 6, 16), pad_bool(2, 6)))], kinds=("freeze",), deflate=True, coarse=True),
    Model("encoder_pad", lambda: Encoder(mode="pad"), [("x", "float32", [2, 6, 16]), ("pad", "bool", [2, 6])],
          lambda: [("example inputs", (r(2, 6, 16), pad_bool(2, 6)))], kinds=("freeze",), deflate=True, coarse=True),
    Model("encoder_gelu_pre_pad", lambda: Encoder(True, "gelu", "pad"),
          [("x", "float32", [2, 6, 16]), ("pad", "bool", [2, 6])],
          lambda: [("example inputs", (r(2, 6, 16), pad_bool(2, 6)))], kinds=("freeze",), deflate=True, coarse=True),
    Model("encoder_causal", lambda: Encoder(mode="causal"), [("x", "float32", [2, 6, 16]), ("pad", "bool", [2, 6])],
          lambda: [("example inputs", (r(2, 6, 16), pad_bool(2, 6)))], kinds=("freeze",), deflate=True, coarse=True),
    Model("mha", Mha, [("x", "float32", [2, 6, 16]), ("pad", "bool", [2, 6])],
          lambda: [("example inputs", (r(2, 6, 16), pad_bool(2, 6)))], kinds=TRACE_FREEZE, deflate=True, coarse=True),
    Model("transformer", Tf, [("src", "float32", [2, 6, 16]), ("tgt", "float32", [2, 5, 16])],
          lambda: [("example inputs", (r(2, 6, 16), r(2, 5, 16)))], kinds=("freeze",), deflate=True, coarse=True),
    # real-size models (test/jit/models.sh): random weights, made only when named
    Model("resnet18", lambda: liven(_tvm("resnet").resnet18()), [("x", "float32", [1, 3, 224, 224])],
          _image(1, 3, 224, 224), kinds=TRACE_FREEZE, real=True),
    Model("mobilenet_v3_small", lambda: liven(_tvm("mobilenetv3").mobilenet_v3_small()),
          [("x", "float32", [1, 3, 224, 224])], _image(1, 3, 224, 224), kinds=TRACE_FREEZE, real=True),
    Model("bert_base", lambda: HF(hf_model("BertModel", "BertConfig")),
          [("input_ids", "int64", [2, 32]), ("attention_mask", "int64", [2, 32])],
          lambda: [("example inputs", (ids(30522, 2, 32), pad_mask(2, 32, torch.int64)))],
          kinds=TRACE_FREEZE, real=True),
    Model("gpt2_base", lambda: HF(hf_model("GPT2LMHeadModel", "GPT2Config", use_cache=False)),
          [("input_ids", "int64", [1, 32])], lambda: [("example inputs", (ids(50257, 1, 32),))],
          kinds=TRACE_FREEZE, real=True),
]
MODEL = {m.name: m for m in MODELS}
FIXTURES = {"%s_%s" % (m.name, k): (m, k) for m in MODELS for k in m.kinds}


# --------------------------------------------------------------------------------------
# Making one model's fixtures
# --------------------------------------------------------------------------------------

def options_yaml(model):
    """NAME.io/options.yaml: the `inputs:` option, one line per tensor argument."""
    lines = ["inputs:                      # forward's tensor arguments, in order"]
    for name, dtype, shape in model.inputs:
        lines.append("  - {dtype: %s, shape: [%s]}   # %s" % (dtype, ", ".join(str(s) for s in shape), name))
    return "\n".join(lines) + "\n"


def check_inputs(model, cases):
    """The cases agree with model.inputs, and every dynamic dimension takes two sizes."""
    sizes = {}
    for desc, args in cases:
        if len(args) != len(model.inputs):
            raise AssertionError("%s: case '%s' has %d inputs, inputs: %d" % (
                model.name, desc, len(args), len(model.inputs)))
        for t, (name, dtype, shape) in zip(args, model.inputs):
            if str(t.dtype).replace("torch.", "") != dtype or t.dim() != len(shape):
                raise AssertionError("%s: %s is %s %s" % (model.name, name, t.dtype, tuple(t.shape)))
            for s, n in zip(shape, t.shape):
                if isinstance(s, str):
                    sizes.setdefault(s, set()).add(int(n))
                elif s != n:
                    raise AssertionError("%s: %s has size %d where inputs: says %d" % (
                        model.name, name, n, s))
    for s, seen in sizes.items():
        if len(seen) < 2:
            raise AssertionError("%s: dynamic dimension %s takes one size only" % (model.name, s))


# A trace's debug records hold the whole Python stack of the torch.jit.trace call. Run in a
# thread of its own through this function, compiled under a name of its own, that stack is
# torch's and Python's frames and the models' forward lines only: editing the rest of this
# script leaves the traced archives as they are.
_TRACE = compile("""
def trace(out, module, example):
    try:
        with torch.no_grad():
            out.append(torch.jit.trace(module, example, check_trace=False, strict=False))
    except BaseException as e:
        out.append(e)
""", "<make_jit trace>", "exec")


def trace(module, example):
    ns = {"torch": torch}
    exec(_TRACE, ns)
    out = []
    t = threading.Thread(target=ns["trace"], args=(out, module, example))
    t.start()
    t.join()
    if isinstance(out[0], BaseException):
        raise out[0]
    return out[0]


def script_module(module, kind, example):
    if kind == "script":
        return torch.jit.script(module)
    traced = trace(module, example)
    return torch.jit.freeze(traced) if kind == "freeze" else traced


def flat_outputs(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in flat_outputs(o)]
    if isinstance(out, dict):   # torch's order: the values in insertion order
        return [t for o in out.values() for t in flat_outputs(o)]
    if out is None:
        return []
    raise TypeError("cannot store an output of type %s" % type(out).__name__)


def zip_records(path):
    with zipfile.ZipFile(path) as z:
        return [(i.filename, i.compress_type, z.read(i.filename)) for i in z.infolist()]


def same_archive(a, b):
    """True when a and b hold the same records, apart from .data/serialization_id (a hash
    torch writes anew on every save)."""
    try:
        ra, rb = zip_records(a), zip_records(b)
    except (zipfile.BadZipFile, OSError):
        return False
    return [x for x in ra if not x[0].endswith(".data/serialization_id")] == \
        [x for x in rb if not x[0].endswith(".data/serialization_id")]


def save(sm, path, deflate):
    """torch.jit.save into path; an existing file with the same records is kept."""
    tmpdir = tempfile.mkdtemp(prefix=".tmp-", dir=os.path.dirname(path))
    try:
        tmp = os.path.join(tmpdir, os.path.basename(path))   # same basename: same zip root
        torch.jit.save(sm, tmp)
        if deflate:
            redeflate(tmp, 64)
        if os.path.exists(path) and same_archive(path, tmp):
            return "unchanged"
        os.replace(tmp, path)
        return "written"
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def reference_kernels():
    """The context the references are computed in: oneDNN (mkldnn) off. torch 2.6's oneDNN
    LSTM (its default on CPU) is 0.05 away from its own native LSTM, which agrees with
    torch 1.13 and 2.14 on the same weights and inputs; the native kernels are what the
    ONNX operators compute."""
    return torch.backends.mkldnn.flags(enabled=False)


def make_fixture(model, kind, module, cases, outdir):
    name = "%s_%s" % (model.name, kind)
    path = os.path.join(outdir, name + ".pt")
    with torch.no_grad():
        sm = script_module(module, kind, cases[0][1])   # trace() runs no_grad in its thread
    status = save(sm, path, model.deflate)
    loaded = torch.jit.load(path)   # the references come from the file itself
    io_dir = os.path.join(outdir, name + ".io")
    if os.path.isdir(io_dir):
        shutil.rmtree(io_dir)
    os.makedirs(io_dir)
    manifest = {"torch": TORCH_VERSION, "fixture": name, "kind": kind, "cases": []}
    if model.notes:
        manifest["notes"] = model.notes
    worst = 0.0
    for k, (desc, args) in enumerate(cases):
        case = "case%d" % k
        os.makedirs(os.path.join(io_dir, case))
        with torch.no_grad(), reference_kernels():
            outs = flat_outputs(loaded(*[a.clone() for a in args]))
            eager = flat_outputs(module(*[a.clone() for a in args]))
        # the TorchScript file must compute what the Python module does (a trace that
        # baked in a size or took one branch would not)
        worst = max(worst, compare_outputs(
            eager, outs, "%s %s: torch.jit.load(%s.pt) against the Python module" % (name, case, name)))
        manifest["cases"].append({
            "name": case, "desc": desc,
            "inputs": write_arrays(io_dir, case, "in", list(args)),
            "outputs": write_arrays(io_dir, case, "out", outs)})
    write_json(os.path.join(io_dir, "manifest.json"), manifest)
    with open(os.path.join(io_dir, "options.yaml"), "w") as f:
        f.write(options_yaml(model))
    print("  %-26s %-9s %7d B  %d cases  |jit - eager| %.2g" % (
        name, status, os.path.getsize(path), len(cases), worst))


def make_model(model, kind, outdir):
    seed_all(model.name)   # the same weights and inputs for every kind
    module = model.build().eval()
    liven(module)
    if model.coarse:
        coarse(module)
    cases = model.cases()
    check_inputs(model, cases)
    make_fixture(model, kind, module, cases, outdir)


def in_child(fn, *args):
    """Runs fn(*args) in a forked child (a fresh TorchScript compilation unit: class names
    are mangled as in a run of this fixture alone); returns its exit status."""
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            fn(*args)
        except Skip as e:
            print("  %-26s SKIPPED: %s" % ("%s_%s" % (args[0].name, args[1]), e))
            code = 3
        except Exception as e:
            print("  %-26s FAILED: %s: %s" % ("%s_%s" % (args[0].name, args[1]), type(e).__name__, str(e).strip()[:600]))
            if os.environ.get("FIXTURES_TRACEBACK"):
                traceback.print_exc()
            code = 1
        sys.stdout.flush()
        os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) if hasattr(os, "waitstatus_to_exitcode") \
        else os.waitpid(pid, 0)[1] >> 8


# --------------------------------------------------------------------------------------
# Bad inputs
# --------------------------------------------------------------------------------------

def rewrite_zip(src, dst, edit):
    """Copies the zip src to dst with edit(rel, data) -> data applied to every record (rel:
    the name after the root folder); the records keep their names, order and methods."""
    with zipfile.ZipFile(src) as z:
        infos = [(i, z.read(i.filename)) for i in z.infolist()]
    with zipfile.ZipFile(dst, "w") as z:
        for info, data in infos:
            rel = info.filename.split("/", 1)[1]
            zi = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            zi.compress_type = info.compress_type
            z.writestr(zi, edit(rel, data))


def user_line(fn, text):
    """The line of fn's source holding text, stripped (what the messages must quote)."""
    lines, _ = inspect.getsourcelines(fn)
    hits = [l.strip() for l in lines if text in l]
    if len(hits) != 1:
        raise AssertionError("%r is on %d lines of %s" % (text, len(hits), fn.__qualname__))
    return hits[0]


def make_bad(bad):
    """bad/NAME.pt (and bad/NAME.yaml, its options) for each bad input, and bad/cases.txt:
    one line per input, "NAME|OPTIONS|exit status|text|text..." (OPTIONS "-": none), the
    texts what the message must hold besides the file's name. A file whose records are
    the same as those of the existing one is kept (torch writes a new serialization_id
    on every save)."""
    os.makedirs(bad, exist_ok=True)
    cases = []
    tmp = tempfile.mkdtemp(prefix=".tmp-", dir=bad)

    def case(name, yaml, status, *texts):
        """Installs tmp/NAME.pt as bad/NAME.pt, yaml (text, or None) as bad/NAME.yaml."""
        path = os.path.join(bad, name + ".pt")
        made = os.path.join(tmp, name + ".pt")
        with open(made, "rb") as f:
            data = f.read()
        if os.path.exists(path):
            with open(path, "rb") as f:
                old = f.read()
            if old == data or same_archive(path, made):
                os.remove(made)
        if os.path.exists(made):
            os.replace(made, path)
        if yaml is not None:
            with open(os.path.join(bad, name + ".yaml"), "w") as f:
                f.write(yaml)
        cases.append("|".join([name, name + ".yaml" if yaml is not None else "-", str(status)]
                              + list(texts)))

    try:
        seed_all("mlp")
        mlp = liven(MLP().eval())
        traced = os.path.join(tmp, "mlp_trace.pt")
        torch.jit.save(trace(mlp, (r(2, 8),)), traced)
        scripted = os.path.join(tmp, "mlp_script.pt")
        torch.jit.save(torch.jit.script(mlp), scripted)
        inputs = options_yaml(MODEL["mlp"])

        # the first 60 % of a good archive: no end of central directory
        with open(traced, "rb") as f:
            data = f.read()
        with open(os.path.join(tmp, "truncated.pt"), "wb") as f:
            f.write(data[:len(data) * 6 // 10])
        case("truncated", inputs, 2, "not a zip")

        # data.pkl's top class comes from a module TorchScript never writes
        def unknown(rel, d):
            if rel != "data.pkl":
                return d
            assert d.count(b"c__torch__\nMLP\n") == 1
            return d.replace(b"c__torch__\nMLP\n", b"cmymodels.net\nMLP\n")
        rewrite_zip(traced, os.path.join(tmp, "unknown_class.pt"), unknown)
        case("unknown_class", inputs, 2, "data.pkl", "mymodels.net.MLP")

        # the scripted forward's `(fc2).forward(h, )` loses its opening parenthesis (one
        # byte for another: the debug records still map the code to the user's lines)
        where = []

        def bad_code(rel, d):
            mark = b"return (fc2).forward("   # in MLP's class (mangled: the trace made one)
            if not (rel.startswith("code/") and rel.endswith(".py") and mark in d):
                return d
            text = d.decode()
            at = text.index(mark.decode()) + len(mark) - 1
            where.append("%s:%d:" % (rel, text.count("\n", 0, at) + 1))
            return (text[:at] + " " + text[at + 1:]).encode()
        rewrite_zip(scripted, os.path.join(tmp, "bad_code.pt"), bad_code)
        assert len(where) == 1
        case("bad_code", inputs, 2, where[0], user_line(MLP.forward, "return self.fc2(h)"))

        # an ATen op with no row, called from scripted code
        seed_all("rare")
        torch.jit.save(torch.jit.script(Rare()), os.path.join(tmp, "no_row.pt"))
        case("no_row", "inputs:\n  - {dtype: float32, shape: [4, 3]}\n", 1, "nextafter",
             user_line(Rare.forward, "torch.nextafter(x"))

        # a good archive without `inputs:`, then with two inputs for forward's one
        shutil.copy(traced, os.path.join(tmp, "no_inputs.pt"))
        case("no_inputs", None, 2, "inputs:", "x")
        shutil.copy(traced, os.path.join(tmp, "two_inputs.pt"))
        case("two_inputs", inputs + "  - {dtype: float32, shape: [2, 8]}\n", 2, "inputs:", "x")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    with open(os.path.join(bad, "cases.txt"), "w") as f:
        f.write("# made by test/models/jit/make_jit.py --bad with torch %s\n" % TORCH_VERSION)
        f.write("# NAME|OPTIONS|exit status|texts the message must hold (besides NAME.pt)\n")
        f.write("\n".join(cases) + "\n")
    print("%s: %d bad inputs" % (bad, len(cases)))


# --------------------------------------------------------------------------------------
# Verification (e.g. that torch 2.14 loads and runs the 1.13 files)
# --------------------------------------------------------------------------------------

def verify_dir(d, names):
    failures = 0
    print("verify %s with torch %s" % (d, TORCH_VERSION))
    for f in sorted(os.listdir(d)):
        name = f[:-3]
        if not f.endswith(".pt") or (names and name not in names):
            continue
        try:
            io_dir = os.path.join(d, name + ".io")
            with open(os.path.join(io_dir, "manifest.json")) as fh:
                man = json.load(fh)
            m = torch.jit.load(os.path.join(d, f))
            worst = 0.0
            for case in man["cases"]:
                with torch.no_grad(), reference_kernels():
                    outs = flat_outputs(m(*load_arrays(io_dir, case["inputs"])))
                worst = max(worst, compare_outputs(
                    load_arrays(io_dir, case["outputs"]), outs, case["name"]))
            print("  %-26s OK    %d cases, max |diff| %.3g (written by torch %s)" % (
                name, len(man["cases"]), worst, man["torch"]))
        except Exception as e:
            failures += 1
            print("  %-26s FAIL  %s: %s" % (name, type(e).__name__, str(e).strip()[:500]))
    return failures


# --------------------------------------------------------------------------------------

def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", nargs="?")
    ap.add_argument("names", nargs="*")
    ap.add_argument("--bad", metavar="BADDIR")
    ap.add_argument("--verify", metavar="DIR")
    ap.add_argument("--list", action="store_true")
    opts = ap.parse_args(argv)
    if opts.list:
        for n, (m, k) in FIXTURES.items():
            print(n + ("  (real size: only when named)" if m.real else
                       "" if m.in_full_run(k) else "  (only when named in torch %s)" % TORCH_VERSION))
        return 0
    if opts.bad:
        make_bad(opts.bad)
        return 0
    if opts.verify:
        return 1 if verify_dir(opts.verify, [n for n in [opts.outdir] + opts.names if n]) else 0
    if not opts.outdir:
        ap.error("OUTDIR is required")
    names = opts.names or [n for n, (m, k) in FIXTURES.items() if m.in_full_run(k)]
    unknown = [n for n in names if n not in FIXTURES and n not in MODEL]
    if unknown:
        ap.error("unknown fixture(s): %s" % " ".join(unknown))
    os.makedirs(opts.outdir, exist_ok=True)
    print("torch %s -> %s" % (TORCH_VERSION, opts.outdir))
    failed = 0
    for model in MODELS:   # a model name stands for all its kinds
        for kind in model.kinds:
            if model.name in names or "%s_%s" % (model.name, kind) in names:
                failed += in_child(make_model, model, kind, opts.outdir) == 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
