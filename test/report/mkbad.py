#!/usr/bin/env python3
"""mkbad.py SRC DST: copy the .pt2 SRC to DST with every aten.relu node
renamed to aten.yobx_unknown_relu.default and every aten.linear node after
the first renamed to aten.yobx_unknown_linear.default, ops no converter
knows, so that converting DST fails on those nodes (test/report/e2e.sh).
Standard library only, like test/bad/make_bad.py."""
import json
import sys
import zipfile


def edit(doc):
    seen = 0
    for node in doc["graph_module"]["graph"]["nodes"]:
        if node["target"] == "torch.ops.aten.relu.default":
            node["target"] = "torch.ops.aten.yobx_unknown_relu.default"
        elif node["target"] == "torch.ops.aten.linear.default":
            seen += 1
            if seen > 1:
                node["target"] = "torch.ops.aten.yobx_unknown_linear.default"


def main(src, dst):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.endswith("models/model.json") or info.filename == "serialized_exported_program.json":
                doc = json.loads(data)
                edit(doc)
                data = json.dumps(doc).encode()
            zout.writestr(info.filename, data)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
