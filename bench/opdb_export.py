# bench/opdb_export.py: the first float32 sample of every op_db and module_db
# entry, exported for bench/opdb.sh (run in the torch chroot:
# ../shared/tools/torch-env.sh run sid python3 bench/opdb_export.py OUT [FILTER...]).
#
# Each case OUT/NAME/ gets model.pt2 (torch.export.export(strict=False),
# training IR), io/ (a run.mjs manifest: the sample's tensors and torch's
# outputs as .npy) and, with DYNAMO=1, dynamo.onnx (torch.onnx.export(dynamo=True),
# PYTHONPATH=/src/bench/out/py/onnxscript:/src/bench/out/py/ir-py/src).  OUT/cases.tsv lists one line per
# entry: NAME, then "ok" or the stage that failed (export, save, dynamo) and why.
# FILTER words keep the entries whose name contains one of them.
# The conformance suite (test/conformance) replaces this; it stays simple.
import os
import sys
import traceback
import warnings

import numpy as np
import torch
from torch.testing._internal.common_methods_invocations import op_db
from torch.testing._internal.common_modules import module_db

warnings.filterwarnings("ignore")
OUT = sys.argv[1]
FILTER = sys.argv[2:]
DYNAMO = os.environ.get("DYNAMO") == "1"


def flat(x, acc):
    if isinstance(x, torch.Tensor):
        acc.append(x)
    elif isinstance(x, (list, tuple)):
        for y in x:
            flat(y, acc)
    elif isinstance(x, dict):
        for y in x.values():
            flat(y, acc)
    return acc


def npy_dtype(t):
    return str(t.dtype).replace("torch.", "")


def save_io(d, ins, outs):
    os.makedirs(d + "/io", exist_ok=True)
    man = {"torch": torch.__version__, "cases": [{"name": "case0", "inputs": [], "outputs": []}]}
    for kind, ts in (("inputs", ins), ("outputs", outs)):
        for i, t in enumerate(ts):
            t = t.detach().contiguous()
            name = "%s_%d.npy" % (kind[:-1], i)
            np.save(d + "/io/" + name, t.numpy())
            man["cases"][0][kind].append({"file": name, "dtype": npy_dtype(t), "shape": list(t.shape)})
    import json
    with open(d + "/io/manifest.json", "w") as f:
        json.dump(man, f)


class Wrap(torch.nn.Module):
    """forward(*tensors) rebuilds the sample's arguments and calls fn."""

    def __init__(self, fn, args, kwargs, sub=None):
        super().__init__()
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.sub = sub
        self.slots = []
        self.args_t = self._mark(args)
        self.kwargs_t = self._mark(kwargs)

    def _mark(self, x):
        if isinstance(x, torch.Tensor):
            self.slots.append(x)
            return ("__T", len(self.slots) - 1)
        if isinstance(x, tuple):
            return tuple(self._mark(y) for y in x)
        if isinstance(x, list):
            return [self._mark(y) for y in x]
        if isinstance(x, dict):
            return {k: self._mark(v) for k, v in x.items()}
        return x

    def _fill(self, x, ts):
        if isinstance(x, tuple) and len(x) == 2 and x[0] == "__T":
            return ts[x[1]]
        if isinstance(x, tuple):
            return tuple(self._fill(y, ts) for y in x)
        if isinstance(x, list):
            return [self._fill(y, ts) for y in x]
        if isinstance(x, dict):
            return {k: self._fill(v, ts) for k, v in x.items()}
        return x

    def forward(self, *ts):
        a = self._fill(self.args_t, ts)
        k = self._fill(self.kwargs_t, ts)
        r = self.fn(*a, **k)
        return tuple(flat(r, []))


def cases():
    for op in op_db:
        name = op.name + ("." + op.variant_test_name if op.variant_test_name else "")
        if FILTER and not any(w in name for w in FILTER):
            continue
        try:
            if torch.float32 not in op.supported_dtypes("cpu"):
                continue
            s = next(iter(op.sample_inputs("cpu", torch.float32, requires_grad=False)))
        except Exception as e:  # noqa: BLE001
            yield name, None, "sample: %s" % str(e).splitlines()[0][:100] if str(e) else type(e).__name__
            continue
        fn = op.op
        yield "op." + name, Wrap(fn, (s.input,) + tuple(s.args), dict(s.kwargs)), None
    for mi in module_db:
        name = mi.module_cls.__name__ + ("." + mi.variant_name if getattr(mi, "variant_name", "") else "")
        if FILTER and not any(w in name for w in FILTER):
            continue
        try:
            if torch.float32 not in mi.dtypes:
                continue
            mis = mi.module_inputs_func(mi, device="cpu", dtype=torch.float32, requires_grad=False, training=False)
            s = mis[0]
            m = mi.module_cls(*s.constructor_input.args, **s.constructor_input.kwargs).eval()
        except Exception as e:  # noqa: BLE001
            yield "mod." + name, None, "sample: %s" % (str(e).splitlines()[0][:100] if str(e) else type(e).__name__)
            continue
        yield "mod." + name, Wrap(m, tuple(s.forward_input.args), dict(s.forward_input.kwargs), sub=m), None


def one(name, w, log):
    d = OUT + "/" + name
    os.makedirs(d, exist_ok=True)
    ins = list(w.slots)
    try:
        with torch.no_grad():
            torch.manual_seed(0)
            ref = w(*ins)
            ref2 = w(*ins)          # a second draw: a random op differs
        if any(not torch.equal(a, b) for a, b in zip(ref, ref2) if not a.is_complex()):
            return "random"
        if any(t.is_complex() for t in list(ref) + ins):
            return "complex"
        if not ref:
            return "no tensor output"
    except Exception as e:  # noqa: BLE001
        return "eager: %s" % (str(e).splitlines()[0][:100] if str(e) else type(e).__name__)
    try:
        ep = torch.export.export(w, tuple(ins), strict=False)
    except Exception as e:  # noqa: BLE001
        return "export: %s" % (str(e).splitlines()[0][:100] if str(e) else type(e).__name__)
    try:
        torch.export.save(ep, d + "/model.pt2")
    except Exception as e:  # noqa: BLE001
        return "save: %s" % (str(e).splitlines()[0][:100] if str(e) else type(e).__name__)
    try:
        save_io(d, ins, ref)
    except Exception as e:  # noqa: BLE001
        return "io: %s" % type(e).__name__   # numpy has no bfloat16
    if DYNAMO:
        try:
            torch.onnx.export(ep, (), d + "/dynamo.onnx", dynamo=True, verbose=False, opset_version=18)
        except Exception as e:  # noqa: BLE001
            return "dynamo: %s" % (str(e).splitlines()[0][:100] if str(e) else type(e).__name__)
    return "ok"


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(OUT + "/cases.tsv", "w") as log:
        for name, w, why in cases():
            if w is None:
                r = why
            else:
                try:
                    r = one(name, w, log)
                except Exception as e:  # noqa: BLE001
                    r = "crash: %s" % type(e).__name__
                    traceback.print_exc()
            log.write("%s\t%s\n" % (name, r.replace("\t", " ").replace("\n", " ")))
            log.flush()


main()
