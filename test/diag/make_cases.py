#!/usr/bin/env python3
"""make_cases.py OUTDIR: the inputs test/diag/run.sh converts.  Standard
library only.

  unsupported.pt2  torch-2.14/cnn.pt2 with its first node's target renamed
                   to aten.frobnicate.default: one unsupported-op error at
                   a node that has a user frame (stack_trace)"""
import json
import os
import sys
import zipfile

SRC = os.path.join(os.path.dirname(__file__), "..", "models", "torch-2.14", "cnn.pt2")


def main(out):
    os.makedirs(out, exist_ok=True)
    with zipfile.ZipFile(SRC) as zin, zipfile.ZipFile(os.path.join(out, "unsupported.pt2"), "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.endswith("models/model.json"):
                doc = json.loads(data)
                nodes = doc["graph_module"]["graph"]["nodes"]
                node = next(n for n in nodes if "stack_trace" in (n.get("metadata") or {}))
                node["target"] = "torch.ops.aten.frobnicate.default"
                data = json.dumps(doc).encode()
            zout.writestr(info, data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
