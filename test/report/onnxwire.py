"""onnxwire.py: reads the parts of an ONNX file the report tests compare
against, straight from the protobuf wire format (the onnx package is not
on the host; test/ort/onnxwire.mjs is the JavaScript counterpart).

    read_model(path) -> Graph

Graph.nodes are Node(name, op_type, domain, inputs, outputs, attrs), in
file order; Graph.inits maps a name to Init(dims, data_type, nbytes) where
nbytes counts raw_data or, for external data, its "length"; Graph.types
maps every value with a declared type (inputs, value_info, outputs) to its
dims: ints for static dims, strings for dim_params, None for unknown; None
instead of a list when the rank is unknown.  Field numbers follow
proto/onnx.proto.
"""
import struct
from collections import namedtuple

Node = namedtuple("Node", "name op_type domain inputs outputs attrs")
Init = namedtuple("Init", "dims data_type nbytes")


class Graph:
    def __init__(self):
        self.nodes = []
        self.inits = {}
        self.inputs = []      # names, in order
        self.outputs = []
        self.types = {}
        self.functions = []   # Function, in file order


def _varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return v, i


def fields(b):
    """(field number, wire type, value) for each field of message b; value
    is an int (varint), bytes (length-delimited) or raw bytes (fixed)."""
    i = 0
    while i < len(b):
        key, i = _varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _varint(b, i)
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 2:
            n, i = _varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        yield num, wt, v


def _int64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def _ints(wt, v):
    """A repeated int64 field occurrence, packed or not."""
    if wt == 0:
        return [_int64(v)]
    out, i = [], 0
    while i < len(v):
        x, i = _varint(v, i)
        out.append(_int64(x))
    return out


def _attr(b):
    name, val, ints, floats = None, None, [], []
    for num, wt, v in fields(b):
        if num == 1:
            name = v.decode()
        elif num == 2:
            val = struct.unpack("<f", v)[0]
        elif num == 3:
            val = _int64(v)
        elif num == 4:
            val = v.decode(errors="replace")
        elif num == 7:
            floats += [struct.unpack("<f", v)[0]] if wt == 5 else \
                list(struct.unpack("<%df" % (len(v) // 4), v))
        elif num == 8:
            ints += _ints(wt, v)
    if ints:
        val = ints
    elif floats:
        val = floats
    return name, val


def _node(b):
    name, op, dom, ins, outs, attrs = "", "", "", [], [], {}
    for num, wt, v in fields(b):
        if num == 1:
            ins.append(v.decode())
        elif num == 2:
            outs.append(v.decode())
        elif num == 3:
            name = v.decode()
        elif num == 4:
            op = v.decode()
        elif num == 7:
            dom = v.decode()
        elif num == 5:
            k, a = _attr(v)
            attrs[k] = a
    return Node(name, op, dom, ins, outs, attrs)


def _tensor(b):
    dims, dt, name, nbytes = [], 0, "", 0
    for num, wt, v in fields(b):
        if num == 1:
            dims += _ints(wt, v)
        elif num == 2:
            dt = v
        elif num == 8:
            name = v.decode()
        elif num == 9:
            nbytes = len(v)
        elif num == 13:
            kv = {k: val.decode() for k, _, val in fields(v)}
            if kv.get(1) == "length":
                nbytes = int(kv[2])
    return name, Init(dims, dt, nbytes)


def _dims(type_bytes):
    """The dims of a tensor TypeProto, None when it has no shape."""
    for num, _, tt in fields(type_bytes):
        if num != 1:
            continue
        for n2, _, shape in fields(tt):
            if n2 != 2:
                continue
            dims = []
            for n3, _, d in fields(shape):
                if n3 != 1:
                    continue
                dim = None
                for n4, _, v in fields(d):
                    dim = _int64(v) if n4 == 1 else v.decode() if n4 == 2 else dim
                dims.append(dim)
            return dims
    return None


def _value_info(b):
    name, dims = "", None
    for num, _, v in fields(b):
        if num == 1:
            name = v.decode()
        elif num == 2:
            dims = _dims(v)
    return name, dims


class Function:
    def __init__(self):
        self.name = self.domain = ""
        self.inputs, self.outputs, self.attributes, self.nodes = [], [], [], []


def _function(b):
    f = Function()
    for num, _, v in fields(b):
        if num == 1:
            f.name = v.decode()
        elif num == 10:
            f.domain = v.decode()
        elif num == 4:
            f.inputs.append(v.decode())
        elif num == 5:
            f.outputs.append(v.decode())
        elif num == 6:
            f.attributes.append(v.decode())
        elif num == 7:
            f.nodes.append(_node(v))
    return f


def read_model(path):
    data = open(path, "rb").read()
    g = Graph()
    for num, _, v in fields(data):
        if num == 25:                 # ModelProto.functions
            g.functions.append(_function(v))
        if num != 7:
            continue
        for n2, _, x in fields(v):
            if n2 == 1:
                g.nodes.append(_node(x))
            elif n2 == 5:
                name, t = _tensor(x)
                g.inits[name] = t
            elif n2 in (11, 12, 13):
                name, dims = _value_info(x)
                g.types[name] = dims
                if n2 == 11:
                    g.inputs.append(name)
                elif n2 == 12:
                    g.outputs.append(name)
    return g
