#!/usr/bin/env python3
# make_suite.py: the conformance suite from torch's own operator databases.
#
#   ../shared/tools/torch-env.sh run sid python3 test/conformance/make_suite.py [--first] [--dtypes f32,i64,b8]
#       [--ops REGEX] [--shard I/N] [--jit] [--dynamo] [--data DIR] [--resume] [--bench DIR]
#       [--max N] [--like DIR]
#   ../shared/tools/torch-env.sh run sid python3 test/conformance/make_suite.py --index
#
# Takes every OpInfo of op_db and ModuleInfo of module_db that supports
# float32 on CPU, and every sample of each (--first: the first only), plus
# its int64 and bool samples where the entry supports those dtypes; wraps
# each sample in a module whose forward takes the sample's tensors (the
# other arguments baked in), exports it with torch.export.export(strict=
# False) -- the training IR -- and runs run_decompositions() -- core ATen --,
# and stores per entry one deflated file test/conformance/data/ENTRY.bin:
# both graphs in the text form yobx-export reads (textgraph.py), the
# inputs and torch's outputs. --jit also stores, per sample, the graph as a
# torch.jit.trace'd and frozen archive (for the TorchScript front end);
# --dynamo the ONNX model torch.onnx's dynamo exporter makes of it (for
# bench/conformance.sh; run with PYTHONPATH=/src/bench/out/py/onnxscript:/src/bench/out/py/ir-py/src).
# --max N keeps the first N samples of each entry and dtype (a time cap).
# --bench DIR writes there too the files with dynamo's ONNX (so one run
# makes the suite and the bench's data: bench/conformance.sh KEEP=1).
# --data DIR writes there instead of test/conformance/data; --resume
# leaves the entries that already have a file there (made with --first,
# when this run is not --first: it has only the first sample).
# --like DIR remakes only the entries stored in DIR, each as it was made
# there: --first where its file says so, else --max 4 (the stored suite's
# shape; with --jit, how the archives were added to it).
#
# A sample that is random (two runs under different seeds differ),
# complex-valued, sparse, or whose outputs hold no tensor is stored as
# skipped with the reason; one torch cannot run, export or decompose is
# stored with torch's error class. --index rewrites test/conformance/
# samples.txt, the list of every sample and what became of it, from the
# stored files.
#
# ENTRY.bin is zlib-deflated: "YXCONF1\n", a 4-byte little-endian length,
# that many bytes of JSON header, then the raw tensor bytes the header's
# inputs and outputs point into (identical tensors stored once):
#   {"entry": NAME, "family": F, "first": BOOL, "samples": [{"id": "f32/0", "status":
#    "ok" | "skip" | "torch", "reason": TEXT, "train": TEXT, "core": TEXT or
#    null (same as train), "jit"/"dynamo": [offset, length] or absent,
#    "inputs": [{"dtype", "shape", "at", "len"}], "outputs": [...]}]}
import argparse
import hashlib
import io
import json
import os
import re
import signal
import struct
import sys
import warnings
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
warnings.filterwarnings("ignore")

import torch  # noqa: E402
from torch.utils._pytree import tree_flatten, tree_unflatten  # noqa: E402

from textgraph import Unwritable, text_graph  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
MAGIC = b"YXCONF1\n"
DTYPES = {"f32": torch.float32, "i64": torch.int64, "b8": torch.bool}
NPY = {torch.float32: "float32", torch.float64: "float64", torch.float16: "float16",
       torch.bfloat16: "bfloat16", torch.int64: "int64", torch.int32: "int32",
       torch.int16: "int16", torch.int8: "int8", torch.uint8: "uint8", torch.bool: "bool",
       torch.uint16: "uint16", torch.uint32: "uint32", torch.uint64: "uint64"}
SAMPLE_SECONDS = 60


class Skip(Exception):
    """A sample the suite cannot check, with the reason."""


class TorchError(Exception):
    """torch itself could not run, export or decompose the sample."""


class Timeout(Exception):
    pass


def on_alarm(signum, frame):
    raise Timeout()


class Wrap(torch.nn.Module):
    """forward(*tensors) = fn(the sample's arguments), tensor outputs flat."""

    def __init__(self, fn, leaves, spec, where, module=None):
        super().__init__()
        self.fn, self.leaves, self.spec, self.where = fn, leaves, spec, where
        if module is not None:
            self.m = module

    def forward(self, *tensors):
        leaves = list(self.leaves)
        for i, t in zip(self.where, tensors):
            leaves[i] = t
        args, kwargs = tree_unflatten(leaves, self.spec)
        out = (self.m if hasattr(self, "m") else self.fn)(*args, **kwargs)
        return tuple(t for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor))


def entry_name(info, module):
    if module:
        return "nn." + info.module_cls.__name__ + ("." + info.variant_name if getattr(info, "variant_name", "") else "")
    return info.name + ("." + info.variant_test_name if info.variant_test_name else "")


def family(info, module):
    if module:
        return "nn.Module"
    if "." in info.name:
        return info.name.rsplit(".", 1)[0]
    return type(info).__name__


def samples_of(info, module, dtype):
    """[(fn, args, kwargs, module or None)] of every sample at dtype."""
    if module:
        out = []
        for mi in info.module_inputs_func(info, device="cpu", dtype=dtype, requires_grad=False, training=False):
            if mi.forward_input is None:
                continue
            out.append((mi, None))
        return out
    return [(s, None) for s in info.sample_inputs("cpu", dtype, requires_grad=False)]


def build(info, module, sample):
    """(Wrap module, input tensors) of one sample."""
    if module:
        ci, fi = sample.constructor_input, sample.forward_input
        torch.manual_seed(0)
        m = info.module_cls(*ci.args, **ci.kwargs)
        m.eval()
        leaves, spec = tree_flatten((tuple(fi.args), dict(fi.kwargs)))
        fn = None
    else:
        m = None
        fn = info.op
        leaves, spec = tree_flatten(((sample.input,) + tuple(sample.args), dict(sample.kwargs)))
    where = [i for i, x in enumerate(leaves) if isinstance(x, torch.Tensor)]
    tensors = [leaves[i] for i in where]
    const = [None if isinstance(x, torch.Tensor) else x for x in leaves]
    return Wrap(fn, const, spec, where, m), tensors


def check_tensor(t, what):
    if t.layout != torch.strided:
        raise Skip(f"{what} is {t.layout}")
    if t.is_complex():
        raise Skip(f"complex-valued {what}")
    if t.dtype not in NPY:
        raise Skip(f"{what} of dtype {t.dtype}")


def run(mod, tensors, seed):
    torch.manual_seed(seed)
    with torch.no_grad():
        return mod(*[t.clone() for t in tensors])


def same(a, b):
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x.shape != y.shape or x.dtype != y.dtype:
            return False
        if not torch.equal(x, y) and not (x.is_floating_point() and torch.allclose(x, y, equal_nan=True, rtol=0, atol=0)):
            return False
    return True


def all_core(ep):
    """1 when every op of ep is core ATen already: run_decompositions() (the
    slowest step by far) would give the same graph."""
    for n in ep.graph.nodes:
        if n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload) \
                and torch.Tag.core not in n.target.tags:
            return False
    return True


def seeded_ops(ep):
    """The random ops of ep's graph: torch tags them nondeterministic_seeded
    (an OpInfo may reseed the generator inside its op, so that two runs
    agree), but an op whose only randomness is a dropout argument (the
    dropouts, the RNNs, scaled_dot_product_attention) is random only when
    that probability is above 0 (and, where it has one, train is true)."""
    found = set()
    for n in ep.graph.nodes:
        tags = getattr(n.target, "tags", ()) if n.op == "call_function" else ()
        if torch.Tag.nondeterministic_seeded not in tags:
            continue
        names = [a.name for a in n.target._schema.arguments]
        vals = dict(zip(names, n.args))
        vals.update(n.kwargs)
        p = next((vals[k] for k in ("p", "dropout", "dropout_p") if k in vals), None)
        if isinstance(p, (int, float)) and (p == 0 or not vals.get("train", True)):
            continue
        found.add(str(n.target))
    return ", ".join(sorted(found))


def err_class(e):
    return type(e).__name__


def one_sample(info, module, sample, title, want_jit, want_dynamo):
    """The stored record of one sample (without tensor bytes placed)."""
    try:
        mod, tensors = build(info, module, sample)
    except Skip:
        raise
    except Exception as e:
        raise TorchError(f"build: {err_class(e)}")
    for i, t in enumerate(tensors):
        check_tensor(t, f"input {i}")
    try:
        out = run(mod, tensors, 0)
    except Exception as e:
        raise TorchError(f"run: {err_class(e)}")
    if not out:
        raise Skip("no tensor output")
    for i, t in enumerate(out):
        check_tensor(t, f"output {i}")
    try:
        again = run(mod, tensors, 1)
    except Exception as e:
        raise TorchError(f"run: {err_class(e)}")
    if not same(out, again):
        raise Skip("random (two runs under different seeds differ)")
    rec = {"inputs": [t.contiguous() for t in tensors], "outputs": [t.detach().contiguous() for t in out]}
    args = tuple(t.clone() for t in tensors)
    try:
        ep = torch.export.export(mod, args, strict=False)
    except Exception as e:
        raise TorchError(f"export: {err_class(e)}")
    random = seeded_ops(ep)
    if random:
        raise Skip(f"random ({random})")
    try:
        rec["train"] = text_graph(ep, f"{title} training IR")
    except Unwritable as e:
        raise Skip(f"text form: {e}")
    except Exception as e:
        raise TorchError(f"serialize: {err_class(e)}")
    if all_core(ep):
        rec["core"] = None
        return with_extras(rec, mod, args, want_jit, want_dynamo)
    try:
        core = ep.run_decompositions()
        t = text_graph(core, f"{title} core ATen")
        rec["core"] = None if t.split("\n", 1)[1] == rec["train"].split("\n", 1)[1] else t
    except Unwritable as e:
        rec["core_error"] = f"text form: {e}"
    except Exception as e:
        rec["core_error"] = f"run_decompositions: {err_class(e)}"
    return with_extras(rec, mod, args, want_jit, want_dynamo)


def with_extras(rec, mod, args, want_jit, want_dynamo):
    """rec with the TorchScript archive and dynamo's ONNX asked for."""
    if want_jit:
        try:
            with torch.no_grad():
                tr = torch.jit.freeze(torch.jit.trace(mod.eval(), args, check_trace=False))
            buf = io.BytesIO()
            torch.jit.save(tr, buf)
            rec["jit_bytes"] = buf.getvalue()
        except Exception as e:
            rec["jit_error"] = f"trace: {err_class(e)}"
    if want_dynamo:
        try:
            prog = torch.onnx.export(mod, args, dynamo=True, opset_version=18, verbose=False)
            path = f"/tmp/dynamo-{os.getpid()}.onnx"
            prog.save(path)
            rec["dynamo_bytes"] = open(path, "rb").read()
            os.unlink(path)
        except Exception as e:
            rec["dynamo_error"] = f"dynamo: {err_class(e)}"
    return rec


class Blob:
    """The raw bytes of one entry's file, identical tensors stored once."""

    def __init__(self):
        self.parts, self.size, self.seen = [], 0, {}

    def put(self, raw):
        key = hashlib.sha1(raw).digest()
        if key not in self.seen:
            self.seen[key] = self.size
            self.parts.append(raw)
            self.size += len(raw)
        return self.seen[key], len(raw)

    def tensor(self, t):
        raw = t.numpy().tobytes() if t.dtype != torch.bfloat16 else t.view(torch.uint16).numpy().tobytes()
        at, n = self.put(raw)
        return {"dtype": NPY[t.dtype], "shape": list(t.shape), "at": at, "len": n}


def place(recs, with_dynamo):
    """(header samples, Blob) of recs, dynamo's ONNX bytes included or not."""
    blob, out = Blob(), []
    for r in recs:
        r = dict(r)
        raw = r.pop("raw", None)
        if raw:
            for k in ("jit", "dynamo"):
                if k + "_bytes" in raw and (k == "jit" or with_dynamo):
                    r[k] = list(blob.put(raw[k + "_bytes"]))
                elif k + "_error" in raw and (k == "jit" or with_dynamo):
                    r[k + "_error"] = raw[k + "_error"]
            r["inputs"] = [blob.tensor(t) for t in raw["inputs"]]
            r["outputs"] = [blob.tensor(t) for t in raw["outputs"]]
        out.append(r)
    return out, blob


def write_blob(folder, name, fam, first, recs, with_dynamo):
    samples, blob = place(recs, with_dynamo)
    head = json.dumps({"entry": name, "family": fam, "first": first, "samples": samples},
                      separators=(",", ":")).encode()
    raw = MAGIC + struct.pack("<I", len(head)) + head + b"".join(blob.parts)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, file_name(name) + ".bin"), "wb") as f:
        f.write(zlib.compress(raw, 9))


def do_entry(info, module, args):
    name = entry_name(info, module)
    old = os.path.join(args.data, file_name(name) + ".bin")
    if args.resume and os.path.exists(old) and (args.first or not read_blob(old)[0].get("first", True)):
        return
    first, cap = args.first, args.max
    if args.like:
        prev = os.path.join(args.like, file_name(name) + ".bin")
        if not os.path.exists(prev):
            return
        first = read_blob(prev)[0].get("first", True)
        cap = 0 if first else 4
    recs = []
    supported = info.supported_dtypes("cpu") if not module else info.dtypes
    for tag in args.dtypes:
        dtype = DTYPES[tag]
        if dtype not in supported:
            continue
        try:
            samples = samples_of(info, module, dtype)
        except Exception as e:
            recs.append({"id": f"{tag}/*", "status": "torch", "reason": f"samples: {err_class(e)}"})
            continue
        for k, (s, _) in enumerate(samples):
            if (first and k) or (cap and k >= cap):
                break
            sid = f"{tag}/{k}"
            r = {"id": sid}
            signal.alarm(SAMPLE_SECONDS)
            try:
                rec = one_sample(info, module, s, f"{name} {sid}", args.jit, args.dynamo or args.bench)
                r["status"], r["train"], r["core"] = "ok", rec.pop("train"), rec.pop("core", None)
                if "core_error" in rec:
                    r["core_error"] = rec.pop("core_error")
                r["raw"] = rec
            except Skip as e:
                r["status"], r["reason"] = "skip", str(e)
            except TorchError as e:
                r["status"], r["reason"] = "torch", str(e)
            except Timeout:
                r["status"], r["reason"] = "torch", f"over {SAMPLE_SECONDS} s"
            finally:
                signal.alarm(0)
            recs.append(r)
    if not recs:
        return
    fam = family(info, module)
    write_blob(args.data, name, fam, first, recs, args.dynamo)
    if args.bench:
        write_blob(args.bench, name, fam, first, recs, True)
    ok = sum(r["status"] == "ok" for r in recs)
    print(f"{name}: {ok} of {len(recs)} stored", flush=True)


def file_name(name):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def read_blob(path):
    raw = zlib.decompress(open(path, "rb").read())
    assert raw[:8] == MAGIC, path
    n = struct.unpack("<I", raw[8:12])[0]
    return json.loads(raw[12:12 + n]), raw[12 + n:]


def index():
    """samples.txt: every sample and what became of it."""
    lines = ["# samples.txt: every sample of the conformance suite (make_suite.py --index).",
             "# ENTRY SAMPLE STATUS [REASON]: ok = stored (training IR and core ATen,",
             "# core-error: only the training IR), skip = not checkable, with why,",
             "# torch = torch cannot build, run, export or decompose it (its error class)."]
    for fn in sorted(os.listdir(DATA)):
        if not fn.endswith(".bin"):
            continue
        head, _ = read_blob(os.path.join(DATA, fn))
        for r in head["samples"]:
            st = r["status"]
            why = r.get("reason") or r.get("core_error", "")
            if st == "ok" and "core_error" in r:
                st = "core-error"
            lines.append(f"{head['entry']} {r['id']} {st}" + (f" {why}" if why else ""))
    with open(os.path.join(HERE, "samples.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--first", action="store_true")
    ap.add_argument("--dtypes", default="f32,i64,b8")
    ap.add_argument("--ops", default="")
    ap.add_argument("--shard", default="0/1")
    ap.add_argument("--jit", action="store_true")
    ap.add_argument("--dynamo", action="store_true")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--bench", default="")
    ap.add_argument("--max", type=int, default=0)
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--like", default="")
    ap.add_argument("--index", action="store_true")
    args = ap.parse_args()
    if args.index:
        return index()
    args.dtypes = args.dtypes.split(",")
    signal.signal(signal.SIGALRM, on_alarm)
    from torch.testing._internal.common_methods_invocations import op_db
    from torch.testing._internal.common_modules import module_db
    i, n = (int(x) for x in args.shard.split("/"))
    entries = [(o, False) for o in op_db if torch.float32 in o.supported_dtypes("cpu")]
    entries += [(m, True) for m in module_db if torch.float32 in m.dtypes]
    pat = re.compile(args.ops) if args.ops else None
    for k, (info, module) in enumerate(entries):
        if k % n != i or (pat and not pat.search(entry_name(info, module))):
            continue
        try:
            do_entry(info, module, args)
        except Exception as e:
            print(f"{entry_name(info, module)}: generator failed: {err_class(e)}: {e}", flush=True)


if __name__ == "__main__":
    main()
