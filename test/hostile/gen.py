"""gen.py: writes the hostile inputs of test/hostile/run.sh into a folder.

    python3 test/hostile/gen.py OUTDIR

Each input is built here from the wire format (no onnx package needed), so
the suite commits the generator, not the megabytes some inputs take.  The
files are named after the case of run.sh that reads them; the small ones
are copied to the fuzz corpora as well (test/fuzz/corpus/onnx/hostile_*).
"""
import os
import struct
import sys
import zipfile


def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def f_int(field, v):
    return key(field, 0) + varint(v)


def f_bytes(field, b):
    if isinstance(b, str):
        b = b.encode()
    return key(field, 2) + varint(len(b)) + b


FLOAT = 1


def tensor_type(elem, dims):
    shape = b"".join(f_bytes(1, f_int(1, d)) for d in dims)
    return f_bytes(1, f_int(1, elem) + f_bytes(2, shape))      # TypeProto.tensor_type


def value_info(name, elem, dims):
    return f_bytes(1, name) + f_bytes(2, tensor_type(elem, dims))


def node(op, inputs, outputs, attrs=b"", name=""):
    b = b"".join(f_bytes(1, i) for i in inputs) + b"".join(f_bytes(2, o) for o in outputs)
    if name:
        b += f_bytes(3, name)
    return b + f_bytes(4, op) + attrs


def graph(nodes, name, inputs=(), outputs=(), inits=()):
    b = b"".join(f_bytes(1, n) for n in nodes) + f_bytes(2, name)
    b += b"".join(f_bytes(5, t) for t in inits)
    b += b"".join(f_bytes(11, v) for v in inputs) + b"".join(f_bytes(12, v) for v in outputs)
    return b


def model(g, opset=17):
    return f_int(1, 8) + f_bytes(8, f_bytes(1, "") + f_int(2, opset)) + f_bytes(7, g)


def tensor(name, elem, dims, raw):
    return b"".join(f_int(1, d) for d in dims) + f_int(2, elem) + f_bytes(8, name) + f_bytes(9, raw)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)

    def write(name, data):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)

    # a graph holding an If nested 3000 deep (the main graph is level 0),
    # and 65 deep, one past the limit: the fuzz corpus' seed
    for depth, name in ((3000, "deep_if.onnx"), (65, "deep_if65.onnx")):
        inner = graph([node("Identity", ["x"], ["y"])], "leaf", outputs=[value_info("y", FLOAT, [1])])
        for lvl in range(depth - 1):
            attr = f_bytes(1, "then_branch") + f_int(20, 5) + f_bytes(6, inner)
            n = node("If", ["c"], ["y"], f_bytes(5, attr))
            inner = graph([n], "g%d" % lvl, outputs=[value_info("y", FLOAT, [1])])
        attr = f_bytes(1, "then_branch") + f_int(20, 5) + f_bytes(6, inner)
        main_g = graph([node("If", ["c"], ["y"], f_bytes(5, attr))], "main",
                       inputs=[value_info("c", 9, []), value_info("x", FLOAT, [1])],
                       outputs=[value_info("y", FLOAT, [1])])
        write(name, model(main_g))
    # sequence types nested 3000 deep in a graph input, and 65 deep
    for depth, name in ((3000, "deep_type.onnx"), (65, "deep_type65.onnx")):
        t = tensor_type(FLOAT, [1])
        for _ in range(depth):
            t = f_bytes(4, f_bytes(1, t))            # TypeProto.sequence_type.elem_type
        vi = f_bytes(1, "s") + f_bytes(2, t)
        write(name, model(graph([node("Identity", ["s"], ["y"])], "main", inputs=[vi],
                                outputs=[value_info("y", FLOAT, [1])])))
    # an initializer of 2^62+6 float32 elements holding 24 bytes: the bytes
    # its dims want wrap to 24 modulo 2^64
    big = tensor("w", FLOAT, [(1 << 62) + 6], b"\0" * 24)
    write("wrap_init.onnx", model(graph([node("Identity", ["w"], ["y"])], "main", inits=[big],
                                        outputs=[value_info("y", FLOAT, [(1 << 62) + 6])])))
    # dims [2^61, 2] float32 and no data: 2^64 bytes wrap to 0
    big = tensor("w", FLOAT, [1 << 61, 2], b"")
    write("wrap_dims.onnx", model(graph([node("Identity", ["w"], ["y"])], "main", inits=[big],
                                        outputs=[value_info("y", FLOAT, [1 << 61, 2])])))
    # a plain model that converts: y = x + w
    w = tensor("w", FLOAT, [2], struct.pack("<2f", 1.0, 2.0))
    write("ok.onnx", model(graph([node("Add", ["x", "w"], ["y"], name="add")], "main", inits=[w],
                                 inputs=[value_info("x", FLOAT, [2])], outputs=[value_info("y", FLOAT, [2])])))
    # the same at opset 6, older than the upgrader reads
    write("opset6.onnx", model(graph([node("Add", ["x", "w"], ["y"], name="add")], "main", inits=[w],
                                     inputs=[value_info("x", FLOAT, [2])], outputs=[value_info("y", FLOAT, [2])]),
                               opset=6))
    # a dynamic input (dim_param "n"), which --verify cannot make values for
    # without `inputs:`; huge.yaml gives it 2^40 elements
    dyn = f_bytes(1, "x") + f_bytes(2, f_bytes(1, f_int(1, FLOAT) + f_bytes(2, f_bytes(1, f_bytes(2, "n")))))
    write("dyn.onnx", model(graph([node("Relu", ["x"], ["y"], name="relu")], "main", inputs=[dyn],
                                  outputs=[f_bytes(1, "y") + f_bytes(2, f_bytes(1, f_int(1, FLOAT) + f_bytes(
                                      2, f_bytes(1, f_bytes(2, "n")))))])))
    write("bad.json", b'{"bad')
    # ok.onnx's signature (as --signature writes it), which dyn.onnx breaks
    write("gold.json", b"""{
  "format": "yobx-export signature",
  "version": 1,
  "producer": {"name": "", "version": ""},
  "ir_version": 8,
  "opset_import": [{"domain": "", "version": 18}],
  "source": {"capture_strategy": "onnx"},
  "inputs": [
    {"name": "x", "source": "graph_input", "dtype": "float32", "dims": [2]}
  ],
  "outputs": [
    {"name": "y", "source": "graph_output", "dtype": "float32", "dims": [2]}
  ],
  "symbols": []
}
""")
    write("huge.yaml", b"inputs:\n  - {dtype: float32, shape: [1099511627776]}\n")
    # a model whose initializer lives in external data "data.bin"
    ext = (f_int(1, 2) + f_int(2, FLOAT) + f_bytes(8, "w")
           + f_bytes(13, f_bytes(1, "location") + f_bytes(2, "data.bin")) + f_int(14, 1))
    write("ext.onnx", model(graph([node("Add", ["x", "w"], ["y"], name="add")], "main", inits=[ext],
                                  inputs=[value_info("x", FLOAT, [2])], outputs=[value_info("y", FLOAT, [2])])))
    write("data.bin", struct.pack("<2f", 1.0, 2.0))

    # options: aliases nesting nine levels of ten (10^9 values in 1 KB)
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for k in range(1, 10):
        lines.append("a%d: &a%d [%s]" % (k, k, ", ".join(["*a%d" % (k - 1)] * 10)))
    lines.append("output_names: *a9")
    write("laughs.yaml", ("\n".join(lines) + "\n").encode())
    # options: one list of 2^18 names (about 2.4 MB, past the 1 MiB cap), and
    # one of 19,000 (under the caps: it must be read in linear time)
    for n, name in ((1 << 18, "biglist.yaml"), (19000, "longlist.yaml")):
        write(name, ("output_names: [" + ", ".join("out_%d" % i for i in range(n)) + "]\n").encode())
    # options: lists nested 100 deep
    write("deep.yaml", ("output_names: " + "[" * 100 + "]" * 100 + "\n").encode())

    # a capture bundle whose onnxscript capture is deep_if.onnx
    bundle(os.path.join(out, "deep_if.yxc"), {
        "capture.json": b'{"format": "yobx-capture", "version": 1, "attempts": [{"strategy": "onnxscript", '
                        b'"ok": true, "file": "captures/onnxscript.onnx", "seconds": 0.1}], '
                        b'"inputs": [], "outputs": []}',
        "captures/onnxscript.onnx": open(os.path.join(out, "deep_if.onnx"), "rb").read()})

    # classes that held: external data leaving the folder by its text
    for loc, name in (("../data.bin", "ext_dotdot.onnx"), ("/etc/passwd", "ext_abs.onnx")):
        ext = (f_int(1, 2) + f_int(2, FLOAT) + f_bytes(8, "w")
               + f_bytes(13, f_bytes(1, "location") + f_bytes(2, loc)) + f_int(14, 1))
        write(name, model(graph([node("Add", ["x", "w"], ["y"], name="add")], "main", inits=[ext],
                                inputs=[value_info("x", FLOAT, [2])], outputs=[value_info("y", FLOAT, [2])])))
    # mutants of ok.onnx: 40 with bytes flipped (a fixed LCG, so the set is
    # the same everywhere), and every truncation
    ok = open(os.path.join(out, "ok.onnx"), "rb").read()
    seed = 31
    for k in range(40):
        b = bytearray(ok)
        for _ in range(1 + k % 4):
            seed = (seed * 6364136223846793005 + 1442695040888963407) % (1 << 64)
            b[(seed >> 33) % len(b)] ^= 1 << ((seed >> 20) % 8)
        write("mut_%02d.onnx" % k, bytes(b))
    for n in range(0, len(ok), 7):
        write("cut_%03d.onnx" % n, ok[:n])
    # a TorchScript archive whose data.pkl calls os.system: ts_ints.pt with
    # that record replaced (the pickle's globals are held to torch's own)
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "ts_ints.pt")
    with zipfile.ZipFile(here) as z:
        entries = {i.filename: z.read(i.filename) for i in z.infolist()}
    for name in entries:
        if name.endswith("/data.pkl"):
            entries[name] = b"\x80\x02cos\nsystem\nX\x02\x00\x00\x00id\x85R."
    bundle(os.path.join(out, "ts_global.pt"), entries)
    # and one whose data.pkl nests a million lists (the pickle machine's own
    # limit refuses it before any walk of the tree recurses)
    for name in entries:
        if name.endswith("/data.pkl"):
            entries[name] = b"\x80\x02" + b"]" * 1000000 + b"a" * 999999 + b"."
    bundle(os.path.join(out, "ts_deep.pt"), entries)


def bundle(path, entries):
    """A zip of stored entries, each one's data 64-byte aligned (docs/capture.md)
    by an extra field of padding in its local header."""
    with open(path, "wb") as f, zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as z:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name, (2024, 1, 1, 0, 0, 0))
            start = f.tell() + 30 + len(name.encode()) + 4
            pad = -start % 64
            info.extra = struct.pack("<HH", 0xCAFE, pad) + b"\0" * pad
            z.writestr(info, data)


if __name__ == "__main__":
    main()
