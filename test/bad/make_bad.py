#!/usr/bin/env python3
"""make_bad.py OUTDIR: write broken variants of real fixtures, one per way
a .pt2 can be bad, for test/run-cli.sh.  Standard library only.

Each case is a file OUTDIR/<case>.pt2; test/bad/cases.txt says what the
error message must contain."""
import io
import json
import os
import struct
import sys
import zipfile

MODELS = os.path.join(os.path.dirname(__file__), "..", "models")
NEW = os.path.join(MODELS, "torch-2.14", "mlp.pt2")   # PT2 archive, raw weights
OLD = os.path.join(MODELS, "torch-2.6", "mlp.pt2")    # flat zip, pickled weights


def rewrite(src, dst, edit):
    """Copy the zip src to dst (stored), passing each (name, bytes) through
    edit, which returns new bytes or None to drop the entry."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = edit(info.filename, zin.read(info.filename))
            if data is not None:
                zout.writestr(info.filename, data)


def edit_json(name, data, fn):
    if name.endswith("models/model.json") or name == "serialized_exported_program.json":
        doc = json.loads(data)
        fn(doc)
        return json.dumps(doc).encode()
    return data


def main(out):
    os.makedirs(out, exist_ok=True)
    raw = open(NEW, "rb").read()
    p = lambda n: os.path.join(out, n + ".pt2")

    open(p("truncated"), "wb").write(raw[: len(raw) * 6 // 10])
    open(p("notzip"), "wb").write(b"this is not a zip archive\n" * 10)
    open(p("empty"), "wb").write(b"")
    rewrite(NEW, p("missing_json"), lambda n, d: None if n.endswith("models/model.json") else d)
    rewrite(NEW, p("missing_weight"), lambda n, d: None if n.endswith("data/weights/weight_0") else d)

    def schema9(doc):
        doc["schema_version"] = {"major": 9, "minor": 0}
    rewrite(NEW, p("schema9"), lambda n, d: edit_json(n, d, schema9))

    def bad_dtype(doc):
        tv = doc["graph_module"]["graph"]["tensor_values"]
        tv[sorted(tv)[0]]["dtype"] = 99
    rewrite(NEW, p("bad_dtype"), lambda n, d: edit_json(n, d, bad_dtype))

    rewrite(NEW, p("bad_json"), lambda n, d: d[:-40] + b"}}" if n.endswith("models/model.json") else d)
    rewrite(NEW, p("short_weight"), lambda n, d: d[: len(d) // 2] if n.endswith("data/weights/weight_0") else d)

    def wrong_shape(doc):
        g = doc["graph_module"]["graph"]
        g["tensor_values"]["p_fc1_weight"]["sizes"][0] = {"as_int": 17}
    rewrite(NEW, p("wrong_shape"), lambda n, d: edit_json(n, d, wrong_shape))

    def corrupt_pickle(name, data):
        if name != "serialized_state_dict.pt":
            return data
        buf = io.BytesIO()
        with zipfile.ZipFile(io.BytesIO(data)) as zin, zipfile.ZipFile(buf, "w") as zout:
            for info in zin.infolist():
                d = zin.read(info.filename)
                if info.filename.endswith("data.pkl"):
                    d = d[:2] + b"\xff" + d[3:]
                zout.writestr(info.filename, d)
        return buf.getvalue()
    rewrite(OLD, p("corrupt_pickle"), corrupt_pickle)

    # An entry whose size in the central directory runs past the end of the file.
    data = bytearray(open(p("notzip"), "rb").read() if False else raw)
    cd = data.rfind(b"PK\x01\x02")
    while cd > 0 and not data[cd + 46: cd + 46 + 200].split(b"/", 1)[-1].startswith(b"data/weights/weight_0"):
        cd = data.rfind(b"PK\x01\x02", 0, cd)
    struct.pack_into("<II", data, cd + 20, 0x7fff0000, 0x7fff0000)
    open(p("past_end"), "wb").write(bytes(data))


if __name__ == "__main__":
    main(sys.argv[1])
