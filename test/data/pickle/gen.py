#!/usr/bin/env python3
"""gen.py: writes the small pickles test_pickle.c reads (run from this directory).

The torch ones (state_dict_2_6.pkl, constants_2_6.pkl, sample_inputs_2_14.pkl)
are archive/data.pkl of the torch.save zips inside
shared/specimens/torch-{2.6.0,2.14.1}/rich_train.pt2; they are copied, not made
here.  Python 3.11 wrote the committed files; the tests never run Python."""
import collections
import io
import pickle


class PidPickler(pickle.Pickler):
    """Writes objects of class Ref as persistent ids, as torch does storages."""
    def persistent_id(self, obj):
        if isinstance(obj, Ref):
            return obj.pid
        return None


class Point:
    """A plain class: NEWOBJ (protocol 2) or copyreg._reconstructor (0), then BUILD."""
    def __init__(self, x):
        self.x = x


class Ref:
    def __init__(self, pid):
        self.pid = pid


def dump(obj, proto):
    f = io.BytesIO()
    PidPickler(f, protocol=proto).dump(obj)
    return f.getvalue()


def write(name, data):
    with open(name, "wb") as f:
        f.write(data)


def main():
    shared = [1, 2]
    od = collections.OrderedDict([("w", 1), ("b", 2)])
    od._metadata = collections.OrderedDict([("", {"version": 1})])
    scalars = [0, 255, 256, 65535, 65536, -1, -2**31, 2**31 - 1, 2**31,
               2**63 - 1, -2**63, True, False, None, 1.5, -0.25, "h\u00e9llo \u20ac",
               "", (), (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4)]
    obj = {"scalars": scalars, "shared": (shared, shared), "od": od,
           "bytes": b"xy", "point": Point(3), "pid": Ref(("storage", "0", 4))}
    # Protocol 2: what torch.save writes; LONG1 for the int64 extremes.
    write("proto2.pkl", dump(obj, 2))
    # Protocol 0: the text opcodes (INT, LONG, FLOAT, UNICODE, PUT/GET,
    # GLOBAL, DICT, LIST, SETITEM, APPEND, PERSID with a str id).
    write("proto0.pkl", dump({"scalars": scalars, "shared": (shared, shared), "od": od,
                              "point": Point(3), "pid": Ref("storage_0")}, 0))
    # Protocol 4: FRAME, MEMOIZE, SHORT_BINUNICODE, SHORT_BINBYTES,
    # STACK_GLOBAL, EMPTY_SET/ADDITEMS, FROZENSET, BINBYTES.
    write("proto4.pkl", dump({"scalars": scalars, "shared": (shared, shared),
                              "od": od, "bytes": b"\x00\x01xy",
                              "long_bytes": bytes(300), "set": {7},
                              "frozen": frozenset([8]), "pid": Ref(("storage", "0", 4))}, 4))
    # Protocol 5: BYTEARRAY8.
    write("proto5.pkl", dump(bytearray(b"ab"), 5))
    # More than 256 memo entries: LONG_BINPUT and LONG_BINGET.
    strs = ["s%d" % i for i in range(300)]
    write("memo_long.pkl", dump([strs, strs[299]], 2))


if __name__ == "__main__":
    main()
