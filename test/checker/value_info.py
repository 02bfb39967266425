"""value_info.py MODEL.onnx...: does every node output (subgraphs included)
have a value_info, and how many of those carry no shape?  Issue 3 asks for
a value_info with dtype and shape for every intermediate; a shape is left
out only when the sizes are computed at run time.  Prints the counts by op
type; exit 1 when some output has no value_info.  The bodies of local
functions (option `functions`) count too.  Needs the onnx package."""
import collections
import sys

import onnx

missing = collections.Counter()
no_shape = collections.Counter()
total = 0


def walk(g):
    global total
    vis = {v.name: v for v in g.value_info}
    outputs = {v.name for v in g.output}
    for n in g.node:
        for o in n.output:
            if not o:
                continue
            total += 1
            if o not in vis and o not in outputs:
                missing[n.op_type] += 1
            elif o in vis and not vis[o].type.tensor_type.HasField("shape"):
                no_shape[n.op_type] += 1
        for a in n.attribute:
            if a.HasField("g"):
                walk(a.g)
            for sg in a.graphs:
                walk(sg)


class _Body:
    """A FunctionProto as walk() reads a graph: its outputs are names there."""
    def __init__(self, f):
        self.node, self.value_info = f.node, f.value_info
        self.output = [onnx.ValueInfoProto(name=n) for n in f.output if n not in {v.name for v in f.value_info}]


for f in sys.argv[1:]:
    m = onnx.load(f, load_external_data=False)
    walk(m.graph)
    for fn in m.functions:   # local functions (option `functions`): their value_info
        walk(_Body(fn))
print("value_info: %d node outputs, %d without value_info %s, %d without shape %s"
      % (total, sum(missing.values()), dict(missing.most_common(8)),
         sum(no_shape.values()), dict(no_shape.most_common(8))))
sys.exit(1 if missing else 0)
