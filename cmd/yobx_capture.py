#!/usr/bin/env python3
"""yobx_capture: capture a PyTorch model every way torch can, into one capture bundle.

The one part of yobx-export that runs where the model lives (it needs torch 2.6 or
later, nothing else). `yobx-export model.yxc` then picks among the captures, in the order
its options give, and converts the first that works (docs/capture.md).

    python3 yobx_capture.py pkg.module:factory -o model.yxc [--strategies a,b,...]
    yobx-capture pkg.module:factory -o model.yxc        (installed by make install)

factory() returns (model, args), (model, args, dynamic_shapes) or (model, args,
dynamic_shapes, kwargs). From Python:

    import yobx_capture
    summary = yobx_capture.capture(model, args, "model.yxc", kwargs=None,
                                   dynamic_shapes=None, strategies=None,
                                   module_outputs=256 << 20)

Strategies, in the default order:
    nostrict        torch.export.export(strict=False)
    strict          torch.export.export(strict=True)
    nostrict-dec    nostrict, then run_decompositions() with torch's default table (core ATen)
    nostrict-decall nostrict, then run_decompositions({}) with an empty table (no
                    decomposition: the training IR made functional)
    tracing         torch.fx.symbolic_trace, then the traced GraphModule exported with
                    strict=False (what tracing sees, e.g. Python control flow on
                    non-tensor values, is kept)
    jit             torch.jit.trace, saved with torch.jit.save (a TorchScript archive)
    onnxscript      torch.onnx.export(dynamo=True), the .onnx it writes (needs onnxscript)

A strategy that raises never stops the others; each attempt is recorded (ok, or the
exception's type and message, and its seconds).

The bundle is one zip whose entries are all stored (not deflated), each entry's data
64-byte aligned:
    capture.json            {"format": "yobx-capture", "version": 1, "torch": ...,
                             "transformers": ... or null, "model_class": ...,
                             "attempts": [{"strategy", "ok", "file" | "error": {"type",
                             "message"}, "seconds"}], "inputs": [...], "outputs": [...]}
    captures/STRATEGY.EXT   .pt2 (torch.export.save), .pt (torch.jit.save), .onnx
    inputs/N.bin            the example inputs, flattened (pytree order), raw
    outputs/N.bin           torch's eager outputs for them, flattened, raw
    modules/N_K.bin         output K of the N-th submodule call of that eager run
                            (forward hooks, in the order the calls end), listed in
                            capture.json "modules": [{"name", "class", "outputs"}]; at most
                            module_outputs bytes in all (--module-outputs MiB, default 256;
                            0: none), the calls past it counted in "modules_skipped":
                            yobx-export --verify names the first module that diverges
Tensor entries are {"file", "dtype" (torch's name: float32, bfloat16, int64, bool, ...),
"shape"}, the bytes little-endian in row-major order (bfloat16: its 16-bit pattern).
A Python int output is stored as a 0-d int64, a float as a 0-d float64; None is dropped.
"""

import argparse
import importlib
import io
import json
import os
import re
import sys
import tempfile
import time
import zipfile

FORMAT_VERSION = 1
STRATEGIES = ["nostrict", "strict", "nostrict-dec", "nostrict-decall", "tracing", "jit",
              "onnxscript"]
ALIGN = 64


# ---- the captures: each returns (file extension, bytes) or raises ----

def _export(model, args, kwargs, dynamic_shapes, strict):
    import torch
    return torch.export.export(model, tuple(args), kwargs=kwargs or None,
                               dynamic_shapes=dynamic_shapes, strict=strict)


def _save_ep(ep):
    import torch
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    return ".pt2", buf.getvalue()


def _nostrict(model, args, kwargs, ds):
    return _save_ep(_export(model, args, kwargs, ds, False))


def _strict(model, args, kwargs, ds):
    return _save_ep(_export(model, args, kwargs, ds, True))


def _nostrict_dec(model, args, kwargs, ds):
    return _save_ep(_export(model, args, kwargs, ds, False).run_decompositions())


def _nostrict_decall(model, args, kwargs, ds):
    return _save_ep(_export(model, args, kwargs, ds, False).run_decompositions({}))


def _tracing(model, args, kwargs, ds):
    import torch
    gm = torch.fx.symbolic_trace(model)
    return _save_ep(_export(gm, args, kwargs, ds, False))


def _jit(model, args, kwargs, ds):
    import torch
    if kwargs:
        traced = torch.jit.trace(model, example_kwarg_inputs=dict(kwargs))
    else:
        traced = torch.jit.trace(model, tuple(args))
    buf = io.BytesIO()
    torch.jit.save(traced, buf)
    return ".pt", buf.getvalue()


def _onnxscript(model, args, kwargs, ds):
    import torch
    prog = torch.onnx.export(model, tuple(args), kwargs=kwargs or None, dynamic_shapes=ds,
                             dynamo=True, verbose=False)
    if prog is None:
        raise RuntimeError("torch.onnx.export returned no program")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model.onnx")
        prog.save(path, external_data=False)
        with open(path, "rb") as f:
            return ".onnx", f.read()


CAPTURES = {"nostrict": _nostrict, "strict": _strict, "nostrict-dec": _nostrict_dec,
            "nostrict-decall": _nostrict_decall, "tracing": _tracing, "jit": _jit,
            "onnxscript": _onnxscript}


# ---- tensors ----

def _leaves(obj):
    """Tensors of obj in pytree order; ints as 0-d int64, floats as 0-d float64, bools
    as 0-d bool; None dropped."""
    import torch
    from torch.utils import _pytree as pytree
    out = []
    for x in pytree.tree_leaves(obj):
        if isinstance(x, torch.Tensor):
            out.append(x.detach())
        elif isinstance(x, bool):
            out.append(torch.tensor(x, dtype=torch.bool))
        elif isinstance(x, int):
            out.append(torch.tensor(x, dtype=torch.int64))
        elif isinstance(x, float):
            out.append(torch.tensor(x, dtype=torch.float64))
        elif x is None:
            continue
        else:
            raise TypeError("cannot store a %s output" % type(x).__name__)
    return out


def _dtype_name(t):
    return str(t.dtype).replace("torch.", "")


def _raw(t):
    """The bytes of tensor t, little-endian, row-major (bfloat16: its bit pattern)."""
    import torch
    t = t.contiguous().cpu()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    if t.dtype == torch.bool:
        t = t.to(torch.uint8)
    if sys.byteorder != "little":
        raise RuntimeError("big-endian hosts are not supported")
    return t.numpy().tobytes() if t.numel() else b""


# ---- the zip ----

def _aligned_write(z, name, data):
    """Writes a stored entry whose data starts at a multiple of ALIGN in the file (a
    padding extra field in the local header): the converter maps the bundle and reads
    tensors in place."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    info.external_attr = 0o644 << 16
    start = z.fp.tell() + 30 + len(name.encode())
    pad = (-(start + 4)) % ALIGN
    info.extra = b"\x79\x66" + pad.to_bytes(2, "little") + b"\0" * pad  # id "yf": padding
    z.writestr(info, data)


def _versions():
    import torch
    try:
        import transformers
        tv = transformers.__version__
    except Exception:
        tv = None
    return torch.__version__, tv


class _ModuleRecorder:
    """Forward hooks on every submodule: each call's outputs (leaves, cloned, since a later
    in-place op may change them), in the order the calls end, up to cap bytes in all."""

    def __init__(self, model, cap):
        self.cap, self.used, self.calls, self.skipped, self.why = cap, 0, [], 0, None
        self.handles = []
        if cap <= 0:
            return
        for name, m in model.named_modules():
            if name:
                self.handles.append(m.register_forward_hook(self._hook(name)))

    def _hook(self, name):
        def hook(m, args, out):
            try:
                leaves = [t.clone() for t in _leaves(out)]
            except TypeError as e:
                self.skipped += 1
                self.why = self.why or "%s: %s" % (name, e)
                return
            size = sum(t.numel() * t.element_size() for t in leaves)
            if self.used + size > self.cap:
                self.skipped += 1
                self.why = self.why or "over the %d-byte cap" % self.cap
                return
            self.used += size
            cls = type(m).__module__ + "." + type(m).__qualname__
            self.calls.append((name, cls, leaves))
        return hook

    def close(self):
        for h in self.handles:
            h.remove()


def capture(model, args, path, kwargs=None, dynamic_shapes=None, strategies=None, verbose=False,
            module_outputs=256 << 20):
    """Captures model(*args, **kwargs) with each strategy (default: all, in STRATEGIES
    order) and writes the bundle at path. Returns the summary written as capture.json.
    module_outputs caps the bytes of submodule outputs recorded (0: none)."""
    import torch
    strategies = list(strategies or STRATEGIES)
    unknown = [s for s in strategies if s not in CAPTURES]
    if unknown:
        raise ValueError("unknown strategies %s (known: %s)" % (unknown, ", ".join(STRATEGIES)))
    args = tuple(args)
    kwargs = dict(kwargs or {})
    model.eval()
    mods = _ModuleRecorder(model, module_outputs)
    try:
        with torch.no_grad():
            outputs = _leaves(model(*args, **kwargs))
    finally:
        mods.close()
    inputs = _leaves((args, kwargs))
    tv, hv = _versions()
    summary = {"format": "yobx-capture", "version": FORMAT_VERSION, "torch": tv,
               "transformers": hv,
               "model_class": type(model).__module__ + "." + type(model).__qualname__,
               "attempts": [], "inputs": [], "outputs": []}
    files = []
    for s in strategies:
        t = time.perf_counter()
        try:
            ext, data = CAPTURES[s](model, args, kwargs, dynamic_shapes)
            entry = "captures/%s%s" % (s, ext)
            files.append((entry, data))
            rec = {"strategy": s, "ok": True, "file": entry}
        except Exception as e:  # a strategy that raises never stops the others
            msg = re.sub(r"\x1b\[[0-9;]*m", "", str(e)).strip().splitlines()  # no terminal colors
            rec = {"strategy": s, "ok": False,
                   "error": {"type": type(e).__name__, "message": (msg[0] if msg else "")[:2000]}}
        rec["seconds"] = round(time.perf_counter() - t, 3)
        summary["attempts"].append(rec)
        if verbose:
            print("  %-16s %s (%.2f s)" % (s, "ok" if rec["ok"] else "%s: %s" % (
                rec["error"]["type"], rec["error"]["message"][:200]), rec["seconds"]))
    for kind, ts in (("inputs", inputs), ("outputs", outputs)):
        for i, x in enumerate(ts):
            entry = "%s/%d.bin" % (kind, i)
            files.append((entry, _raw(x)))
            summary[kind].append({"file": entry, "dtype": _dtype_name(x), "shape": list(x.shape)})
    if mods.calls or mods.skipped:
        summary["modules"] = []
        for n, (name, cls, leaves) in enumerate(mods.calls):
            outs = []
            for k, x in enumerate(leaves):
                entry = "modules/%d_%d.bin" % (n, k)
                files.append((entry, _raw(x)))
                outs.append({"file": entry, "dtype": _dtype_name(x), "shape": list(x.shape)})
            summary["modules"].append({"name": name, "class": cls, "outputs": outs})
        summary["modules_skipped"] = mods.skipped
        if mods.skipped:
            summary["modules_skipped_why"] = mods.why
            print("yobx-capture: %d module call(s) not recorded (%s)" % (mods.skipped, mods.why),
                  file=sys.stderr)
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as z:
        _aligned_write(z, "capture.json", (json.dumps(summary, indent=1) + "\n").encode())
        for entry, data in files:
            _aligned_write(z, entry, data)
    os.replace(tmp, path)
    return summary


def _factory(spec):
    if ":" not in spec:
        raise SystemExit("yobx-capture: want MODULE:FACTORY, got %r" % spec)
    mod, fn = spec.split(":", 1)
    sys.path.insert(0, os.getcwd())
    got = getattr(importlib.import_module(mod), fn)()
    if not isinstance(got, tuple) or not 2 <= len(got) <= 4:
        raise SystemExit("yobx-capture: %s() must return (model, args[, dynamic_shapes[, kwargs]])" % spec)
    model, args = got[0], got[1]
    ds = got[2] if len(got) > 2 else None
    kw = got[3] if len(got) > 3 else None
    return model, args, ds, kw


def main(argv=None):
    ap = argparse.ArgumentParser(prog="yobx-capture", description=__doc__.split("\n")[0])
    ap.add_argument("factory", help="MODULE:FACTORY, factory() returning (model, args[, dynamic_shapes[, kwargs]])")
    ap.add_argument("-o", "--output", required=True, help="the bundle to write (model.yxc)")
    ap.add_argument("--strategies", help="comma-separated, in order (default: %s)" % ",".join(STRATEGIES))
    ap.add_argument("--module-outputs", type=float, default=256, metavar="MIB",
                    help="record submodule outputs up to MIB MiB in all (default 256; 0: none)")
    ap.add_argument("-v", "--verbose", action="store_true")
    o = ap.parse_args(argv)
    model, args, ds, kw = _factory(o.factory)
    s = capture(model, args, o.output, kwargs=kw, dynamic_shapes=ds,
                strategies=o.strategies.split(",") if o.strategies else None, verbose=o.verbose,
                module_outputs=int(o.module_outputs * (1 << 20)))
    ok = [a["strategy"] for a in s["attempts"] if a["ok"]]
    print("%s: %d of %d captures (%s)" % (o.output, len(ok), len(s["attempts"]), ", ".join(ok) or "none"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
