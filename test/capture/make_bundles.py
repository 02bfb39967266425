#!/usr/bin/env python3
"""make_bundles.py [OUTDIR] [NAME ...]: captures the models of test/capture/models.py with
cmd/yobx_capture.py into OUTDIR/NAME.yxc (default test/models/bundles), the committed
capture-bundle fixtures. Run in the torch chroot (torch 2.14), from the checkout:

    ../shared/tools/torch-env.sh run sid env PYTHONPATH=/src/bench/out/py/onnxscript:/src/bench/out/py/ir-py/src \\
        python3 test/capture/make_bundles.py

(onnxscript and onnx_ir on PYTHONPATH give every_strategy its onnxscript capture; without
them that attempt records the ImportError, as it would for a user.)"""

import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "cmd"))
sys.path.insert(0, here)

import json  # noqa: E402
import shutil  # noqa: E402
import zipfile  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
import yobx_capture  # noqa: E402
import models  # noqa: E402

BUNDLES = {
    "strict_fails": yobx_capture.STRATEGIES,
    "only_decomposed": yobx_capture.STRATEGIES,
    "only_tracing": yobx_capture.STRATEGIES,
    "every_strategy": yobx_capture.STRATEGIES,
    "output_mismatch": ["nostrict", "nostrict-dec"],
}
# output_mismatch is every_strategy's model with its recorded eager output TAMPERED after the
# capture (shape [4, 3] rewritten as [4, 2], its bytes cut to match), so that every capture
# converts but none passes the converter's output check: the check's fixture.
FACTORY = {"output_mismatch": "every_strategy"}

NPY_DTYPE = {"float32": "<f4", "float64": "<f8", "float16": "<f2", "bfloat16": "<u2",
             "int64": "<i8", "int32": "<i4", "int16": "<i2", "int8": "|i1", "uint8": "|u1",
             "bool": "|b1"}


def write_io(path, io_dir):
    """NAME.io beside the bundle, in test/models' layout (manifest.json and .npy files), from
    the bundle's own inputs and outputs: what test/ort/run.mjs compares against."""
    if os.path.isdir(io_dir):
        shutil.rmtree(io_dir)
    os.makedirs(os.path.join(io_dir, "case0"))
    with zipfile.ZipFile(path) as z:
        cap = json.loads(z.read("capture.json"))
        case = {"name": "case0", "desc": "the bundle's example inputs", "inputs": [], "outputs": []}
        for kind, key in (("in", "inputs"), ("out", "outputs")):
            for i, t in enumerate(cap[key]):
                a = np.frombuffer(z.read(t["file"]), dtype=NPY_DTYPE[t["dtype"]]).reshape(t["shape"])
                f = "case0/%s_%d.npy" % (kind, i)
                np.save(os.path.join(io_dir, f), a)
                case[key].append({"file": f, "dtype": t["dtype"], "shape": t["shape"]})
    with open(os.path.join(io_dir, "manifest.json"), "w") as f:
        json.dump({"torch": cap["torch"], "fixture": os.path.basename(path), "cases": [case]},
                  f, indent=1)
        f.write("\n")


def tamper_output(path):
    """Rewrites the bundle's first recorded output as shape [4, 2] (see output_mismatch)."""
    with zipfile.ZipFile(path) as z:
        entries = [(i.filename, z.read(i.filename)) for i in z.infolist()]
    cap = json.loads(dict(entries)["capture.json"])
    out = cap["outputs"][0]
    out["shape"] = [4, 2]
    cap["note"] = "output 0 tampered after capture (was [4, 3]): the output check's fixture"
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as z:
        for name, data in entries:
            if name == "capture.json":
                data = (json.dumps(cap, indent=1) + "\n").encode()
            elif name == out["file"]:
                data = data[:4 * 2 * 4]
            yobx_capture._aligned_write(z, name, data)
    os.replace(tmp, path)


def main(argv):
    out = argv[0] if argv else os.path.join(here, "..", "models", "bundles")
    names = argv[1:] or list(BUNDLES)
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    for name in names:
        got = getattr(models, FACTORY.get(name, name))()
        model, args = got[0], got[1]
        ds = got[2] if len(got) > 2 else None
        path = os.path.join(out, name + ".yxc")
        print("%s:" % name)
        s = yobx_capture.capture(model, args, path, dynamic_shapes=ds, strategies=BUNDLES[name],
                                 verbose=True)
        if name == "output_mismatch":
            tamper_output(path)
        write_io(path, os.path.join(out, name + ".io"))
        print("  -> %s, %d bytes, %d captures" % (path, os.path.getsize(path),
                                                  sum(a["ok"] for a in s["attempts"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
