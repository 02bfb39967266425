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

def do_export(fx):
    kw = {}
    if fx.dynamic_shapes is not None:
        kw["dynamic_shapes"] = fx.dynamic_shapes
    try:
        ep = torch.export.export(fx.model, clone_tree(fx.args), strict=fx.strict, **kw)
    except Exception as e:
        if fx.strict or not fx.allow_strict_fallback:
            raise
        first = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")
        print("    strict=False failed (%s); retrying with strict=True" % first)
        ep = torch.export.export(fx.model, clone_tree(fx.args), strict=True, **kw)
        fx.strict = True
        fx.notes.append("exported with strict=True (strict=False failed: %s)" % first[:300])
    if fx.decompose:
        ep = ep.run_decompositions()
    return ep


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


def save_ep(ep, path):
    """torch.export.save into path; keep an existing file whose records are identical
    (torch 2.6 writes zip timestamps, so its bytes change on every run)."""
    tmpdir = tempfile.mkdtemp(prefix=".tmp-", dir=os.path.dirname(path))
    try:
        tmp = os.path.join(tmpdir, os.path.basename(path))  # same basename = same zip root
        torch.export.save(ep, tmp)
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
    ep = do_export(fx)
    path = os.path.join(outdir, name + ".pt2")
    status = save_ep(ep, path)

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
                ins = [from_numpy(np.load(os.path.join(d, name + ".io", e["file"])), e["dtype"])
                       for e in case["inputs"]]
                args, kwargs = pytree.tree_unflatten(ins, in_spec)
                with torch.no_grad():
                    outs = output_leaves(copy.deepcopy(ep).module()(*args, **kwargs))
                refs = [from_numpy(np.load(os.path.join(d, name + ".io", e["file"])), e["dtype"])
                        for e in case["outputs"]]
                if len(outs) != len(refs):
                    raise AssertionError("%s: %d outputs, manifest has %d" % (
                        case["name"], len(outs), len(refs)))
                for i, (ref, got) in enumerate(zip(refs, outs)):
                    ok, md = compare(ref, got)
                    if not ok:
                        raise AssertionError("%s out_%d mismatch (%s)" % (case["name"], i, md))
                    worst = max(worst, md)
            print("  %-18s OK    %d cases, max |diff| %.3g (file written by torch %s)%s" % (
                name, len(man["cases"]), worst, man.get("torch"),
                "\n%20s(torch<2.7 workaround: deserialized while_loop args turned from lists "
                "into tuples)" % "" if patched else ""))
        except Exception as e:
            failures += 1
            print("  %-18s FAIL  %s: %s" % (name, type(e).__name__, str(e).strip()[:500]))
    return failures


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
    opts = ap.parse_args(argv)

    if opts.list:
        print("\n".join(FIXTURES))
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
    names = opts.names or list(FIXTURES)
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
