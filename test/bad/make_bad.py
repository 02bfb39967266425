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

    # Graphs torch would not write (ir_validate, lower_tensor_arg): each a
    # structural mutation test/fuzz/fuzz_graph.c makes at random.
    COND = os.path.join(MODELS, "torch-2.14", "cond.pt2")

    def graph(doc):
        return doc["graph_module"]["graph"]

    def node(g, name):
        return next(n for n in g["nodes"] if n["name"] == name)

    def arg(n, name):
        return next(a for a in n["inputs"] if a["name"] == name)

    def graph_case(name, src, fn):
        rewrite(src, p(name), lambda n, d: edit_json(n, d, lambda doc: fn(graph(doc))))

    def swap_nodes(g):          # relu now reads linear before linear runs
        g["nodes"][0], g["nodes"][1] = g["nodes"][1], g["nodes"][0]
    graph_case("read_before_def", NEW, swap_nodes)
    graph_case("never_defined", NEW, lambda g: g["nodes"].pop(0))
    graph_case("own_output", NEW, lambda g: arg(node(g, "relu"), "self")["arg"].update(as_tensor={"name": "relu"}))
    graph_case("defines_input", NEW, lambda g: node(g, "linear")["outputs"].append({"as_tensor": {"name": "x"}}))
    graph_case("defined_twice", NEW, lambda g: node(g, "relu")["outputs"].append({"as_tensor": {"name": "linear"}}))
    graph_case("output_undefined", NEW, lambda g: g["outputs"][0]["as_tensor"].update(name="relu_unknown") or
               g["tensor_values"].update(relu_unknown=g["tensor_values"]["relu"]))
    SYM = os.path.join(MODELS, "torch-2.14", "nonzero.pt2")    # sym_size.int(self, dim) reads self's shape
    graph_case("arg_kind", SYM, lambda g: arg(node(g, "sym_size_int_1"), "self").update(arg={"as_int": 3}))
    graph_case("arg_missing", SYM, lambda g: node(g, "sym_size_int_1")["inputs"].pop(0))

    def branch(g):
        return next(a["arg"]["as_graph"]["graph"] for a in node(g, "cond")["inputs"] if "as_graph" in a["arg"])

    def sub_reads_later(g):     # a branch reads the cond's own result
        arg(node(branch(g), "mul"), "other")["arg"] = {"as_tensor": {"name": "getitem"}}
    graph_case("subgraph_reads_later", COND, sub_reads_later)

    def sub_outer_input(g):     # a branch placeholder bound to an outer value
        branch(g)["inputs"][0] = {"as_tensor": {"name": "sum_1"}}
    graph_case("subgraph_outer_input", COND, sub_outer_input)

    # An entry whose size in the central directory runs past the end of the file.
    data = bytearray(open(p("notzip"), "rb").read() if False else raw)
    cd = data.rfind(b"PK\x01\x02")
    while cd > 0 and not data[cd + 46: cd + 46 + 200].split(b"/", 1)[-1].startswith(b"data/weights/weight_0"):
        cd = data.rfind(b"PK\x01\x02", 0, cd)
    struct.pack_into("<II", data, cd + 20, 0x7fff0000, 0x7fff0000)
    open(p("past_end"), "wb").write(bytes(data))


if __name__ == "__main__":
    main(sys.argv[1])
