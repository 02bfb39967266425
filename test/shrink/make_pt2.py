"""make_pt2.py: a large .pt2 without torch, for the truncation test.

Builds, from test/models/torch-2.14/mlp.pt2 as a template, a stack of
LAYERS x (Linear(WIDTH, WIDTH), ReLU), its weights a repeating pattern of
small floats, every entry stored (uncompressed) in torch.export.save's
order (weights first, the graph's JSON near the end), so a truncation
anywhere takes the graph away from a reader still parsing it.
Usage: python3 make_pt2.py OUT.pt2 LAYERS WIDTH
"""
import copy
import json
import struct
import sys
import zipfile

SRC = "test/models/torch-2.14/mlp.pt2"


def meta(m, sizes):
    strides, s = [], 1
    for d in reversed(sizes):
        strides.insert(0, s)
        s *= d
    m = copy.deepcopy(m)
    m["sizes"] = [{"as_int": d} for d in sizes]
    m["strides"] = [{"as_int": d} for d in strides]
    return m


def main():
    out, layers, width = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    src = zipfile.ZipFile(SRC)
    cfg = json.loads(src.read("mlp/data/weights/model_weights_config.json"))
    model = json.loads(src.read("mlp/models/model.json"))
    g = model["graph_module"]["graph"]
    tv, nodes = g["tensor_values"], g["nodes"]
    linear, relu = nodes[0], nodes[1]
    wmeta, bmeta = cfg["config"]["fc1.weight"], cfg["config"]["fc1.bias"]
    act = tv["x"]
    params, config, values, new_nodes, specs = [], {}, {}, [], []
    prev = "x"
    for i in range(layers):
        for kind, shape, m in (("weight", [width, width], wmeta), ("bias", [width], bmeta)):
            fqn, arg = "fc%d.%s" % (i, kind), "p_fc%d_%s" % (i, kind)
            row = copy.deepcopy(m)
            row["path_name"] = "weight_%d" % len(params)
            row["tensor_meta"] = meta(m["tensor_meta"], shape)
            config[fqn] = row
            values[arg] = meta(m["tensor_meta"], shape)
            params.append((fqn, arg, shape))
            specs.append({"parameter": {"arg": {"name": arg}, "parameter_name": fqn}})
        lin = copy.deepcopy(linear)
        lin["inputs"][0]["arg"]["as_tensor"]["name"] = prev
        lin["inputs"][1]["arg"]["as_tensor"]["name"] = "p_fc%d_weight" % i
        lin["inputs"][2]["arg"]["as_tensor"]["name"] = "p_fc%d_bias" % i
        lin["outputs"][0]["as_tensor"]["name"] = lin["name"] = "linear_%d" % i
        rel = copy.deepcopy(relu)
        rel["inputs"][0]["arg"]["as_tensor"]["name"] = "linear_%d" % i
        rel["outputs"][0]["as_tensor"]["name"] = rel["name"] = prev = "relu_%d" % i
        values["linear_%d" % i] = values[prev] = meta(act, [2, width])
        new_nodes += [lin, rel]
    values["x"] = meta(act, [2, width])
    g["nodes"], g["tensor_values"] = new_nodes, values
    g["inputs"] = [{"as_tensor": {"name": a}} for _, a, _ in params] + [{"as_tensor": {"name": "x"}}]
    g["outputs"] = [{"as_tensor": {"name": prev}}]
    sig = model["graph_module"]["signature"]
    sig["input_specs"] = specs + [sig["input_specs"][-1]]
    sig["output_specs"][0]["user_output"]["arg"]["as_tensor"]["name"] = prev
    model["graph_module"]["module_call_graph"] = model["graph_module"]["module_call_graph"][:1]
    block = struct.pack("<256f", *[((k % 17) - 8) / 64.0 for k in range(256)]) * 4096
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for i, (_, _, shape) in enumerate(params):
            n = 4
            for d in shape:
                n *= d
            with z.open(zipfile.ZipInfo("mlp/data/weights/weight_%d" % i), "w", force_zip64=True) as f:
                while n > 0:
                    f.write(block[:n])
                    n -= len(block)
        z.writestr("mlp/data/weights/model_weights_config.json", json.dumps({"config": config}))
        for info in src.infolist():
            name = info.filename
            if name.endswith("models/model.json"):
                z.writestr(name, json.dumps(model))
            elif "/data/weights/" not in name:
                z.writestr(name, src.read(name))


main()
