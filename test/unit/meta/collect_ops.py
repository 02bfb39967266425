"""collect_ops.py: the ATen schemas TorchScript versions of the target models call.

lib/ir/meta.c must give the dtype and shape of every ATen call the
TorchScript reader emits.  This script builds the models issue 11 aims at
(MLP, CNN with batch norm, attention with scaled_dot_product_attention,
LSTM, GRU, torchvision resnet18 and mobilenet_v3_small, tiny BERT and GPT-2
with torchscript=True, a dynamic-batch model), turns each into TorchScript
three ways (traced, traced then frozen, scripted where torch can script it),
inlines the graphs and prints the schema of every aten:: node, once, sorted.

    python3 test/unit/meta/collect_ops.py > out.txt     (any torch >= 1.13)
    python3 test/unit/meta/collect_ops.py --cases OUT   (torch 2.14: sid)

With --cases it writes instead every aten:: call of the traced and frozen
graphs, with the dtypes and shapes tracing recorded for its tensors, as
cases in cases.txt's format (make_cases.py's header): models.txt, which
test_meta checks like cases.txt.  A call whose scalar arguments are not
constants in the graph (sizes read at run time) is left out.

Whatever a torch version cannot build or script is reported on stderr and
skipped.  test/unit/meta/ops-collected.txt is the union over torch 1.13
(/usr/bin/python3), 2.6 (trixie) and 2.14 (sid); test_meta checks that
meta.def has a rule for each line.
"""
import sys
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(8, 16)
        self.l2 = nn.Linear(16, 4)

    def forward(self, x):
        return torch.softmax(self.l2(F.gelu(self.l1(x)).relu()), dim=-1)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.c2 = nn.Conv2d(8, 8, 3, stride=2)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        y = self.pool(F.relu(self.bn(self.c1(x))))
        y = F.avg_pool2d(self.c2(y), 1)
        y = F.adaptive_avg_pool2d(y, 1).flatten(1)
        return self.fc(torch.dropout(y, 0.1, self.training))


class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(16, 48)
        self.o = nn.Linear(16, 16)
        self.mha = nn.MultiheadAttention(16, 2, batch_first=True)
        self.ln = nn.LayerNorm(16)

    def forward(self, x, mask):
        b, t, c = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.view(b, t, 2, c // 2).transpose(1, 2)
        k = k.view(b, t, 2, c // 2).transpose(1, 2)
        v = v.view(b, t, 2, c // 2).transpose(1, 2)
        s = torch.matmul(q, k.transpose(-2, -1)) / (c // 2) ** 0.5
        s = s.masked_fill(mask == 0, float("-inf"))
        y1 = torch.matmul(torch.softmax(s, dim=-1), v)
        y2 = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = (y1 + y2).transpose(1, 2).contiguous().view(b, t, c)
        z, _ = self.mha(x, x, x, need_weights=False)
        return self.ln(self.o(y) + z)


class RNN(nn.Module):
    def __init__(self, kind):
        super().__init__()
        cls = nn.LSTM if kind == "lstm" else nn.GRU
        self.rnn = cls(8, 12, num_layers=2, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(24, 3)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


class Dyn(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.fc = nn.Linear(8, 4)

    def forward(self, ids):
        e = self.emb(ids)
        n = ids.size(0)
        y = self.fc(e).reshape(n, -1)
        pos = torch.arange(y.size(1), dtype=torch.float32)
        m = (ids > 3).to(torch.float32).sum(dim=1, keepdim=True)
        y = y + pos.unsqueeze(0) * m
        idx = torch.argmax(y, dim=1)
        z = torch.cat([y, torch.zeros(n, 2)], dim=1)
        return z.max(dim=1)[0] + idx.float() + torch.where(z > 0, z, -z).mean()


class First(nn.Module):
    """A transformers model's first output: recent versions return a dict
    (or a ModelOutput) even with torchscript=True, which tracing rejects."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, ids, mask=None):
        kw = {"attention_mask": mask} if mask is not None else {}
        out = self.m(ids, use_cache=False, return_dict=False, **kw) if "GPT2" in type(self.m).__name__ \
            else self.m(ids, return_dict=False, **kw)
        return out[0]


def models():
    x = torch.randn(2, 8)
    yield "mlp", MLP, (x,), True
    yield "cnn", CNN, (torch.randn(2, 3, 16, 16),), True
    mask = torch.ones(2, 2, 5, 5).tril()
    yield "attn", Attn, (torch.randn(2, 5, 16), mask), True
    yield "lstm", lambda: RNN("lstm"), (torch.randn(2, 5, 8),), True
    yield "gru", lambda: RNN("gru"), (torch.randn(2, 5, 8),), True
    yield "dyn", Dyn, (torch.randint(0, 20, (3, 5)),), True
    try:
        import torchvision
        img = (torch.randn(1, 3, 64, 64),)
        yield "resnet18", lambda: torchvision.models.resnet18(), img, True
        yield "mobilenet_v3_small", lambda: torchvision.models.mobilenet_v3_small(), img, True
    except ImportError as e:
        print("skip torchvision:", e, file=sys.stderr)
    try:
        import transformers
        ids = torch.randint(0, 100, (2, 7))
        am = torch.ones(2, 7, dtype=torch.long)

        def bert():
            cfg = transformers.BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2,
                                          num_attention_heads=2, intermediate_size=37,
                                          max_position_embeddings=64, torchscript=True)
            return transformers.BertModel(cfg)

        def gpt2():
            cfg = transformers.GPT2Config(vocab_size=100, n_embd=32, n_layer=2, n_head=2,
                                          n_positions=64, torchscript=True)
            return transformers.GPT2LMHeadModel(cfg)
        yield "bert", lambda: First(bert()), (ids, am), False
        yield "gpt2", lambda: First(gpt2()), (ids,), False
    except ImportError as e:
        print("skip transformers:", e, file=sys.stderr)


def walk(block, seen):
    for n in block.nodes():
        if n.kind().startswith("aten::"):
            try:
                s = str(n.schema())
            except Exception:
                s = "(no schema)"
            if s == "(no schema)":
                s = n.kind() + " (no schema)"
            seen.add(s)
        for b in n.blocks():
            walk(b, seen)


def graph_of(m):
    g = m.graph if hasattr(m, "graph") else m.forward.graph
    g = g.copy()
    torch._C._jit_pass_inline(g)
    return g


DTYPES = {"Float": "float32", "Half": "float16", "BFloat16": "bfloat16", "Double": "float64", "Long": "int64",
          "Int": "int32", "Short": "int16", "Char": "int8", "Byte": "uint8", "Bool": "bool",
          "ComplexFloat": "complex64", "ComplexDouble": "complex128"}
C10 = ["uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex32", "complex64",
       "complex128", "bool", "bfloat16"]


def tensor_type(v):
    """'float32[2,3]' for a value whose traced type is complete, else None."""
    t = v.type()
    if not isinstance(t, torch._C.TensorType):
        return None
    st, sizes = t.scalarType(), t.sizes()
    if st not in DTYPES or sizes is None or any(d is None for d in sizes):
        return None
    return "%s[%s]" % (DTYPES[st], ",".join(str(d) for d in sizes))


def constant(v, depth=0):
    """(True, value) for a value known before running: a constant, or a
    size (aten::size of a tensor of known shape, and the arithmetic and
    wrapping tracing records around sizes); else (False, None)."""
    n = v.node()
    k = n.kind()
    ins = list(n.inputs())
    if k == "prim::Constant":
        return True, v.toIValue()
    if depth > 20:
        return False, None
    if k == "aten::size" and len(ins) == 2:
        t = ins[0].type()
        ok, d = constant(ins[1], depth + 1)
        if ok and isinstance(t, torch._C.TensorType) and t.sizes() is not None and None not in t.sizes():
            return True, t.sizes()[d]
    if k in ("prim::NumToTensor", "aten::Int", "aten::ScalarImplicit") and len(ins) == 1:
        return constant(ins[0], depth + 1)
    ops = {"aten::mul": lambda a, b: a * b, "aten::add": lambda a, b: a + b, "aten::sub": lambda a, b: a - b,
           "aten::floor_divide": lambda a, b: a // b, "aten::floordiv": lambda a, b: a // b}
    if k in ops and len(ins) >= 2:
        (oa, a), (ob, b) = constant(ins[0], depth + 1), constant(ins[1], depth + 1)
        if oa and ob and isinstance(a, int) and isinstance(b, int) and not (k.endswith("div") and b == 0):
            return True, ops[k](a, b)
    return False, None


def encode(name, v):
    """An argument in cases.txt's syntax, or None when it is not known here."""
    tt = tensor_type(v)
    if tt:
        return "T:" + tt
    n = v.node()
    if n.kind() == "prim::Constant" and isinstance(v.toIValue(), torch.Tensor):
        x = v.toIValue()        # a frozen weight
        if str(x.dtype).replace("torch.", "") in DTYPES.values():
            return "T:%s[%s]" % (str(x.dtype).replace("torch.", ""), ",".join(str(d) for d in x.shape))
        return None
    if n.kind() == "prim::ListConstruct":
        items = [encode(name, x) for x in n.inputs()]
        if any(i is None for i in items):
            return None
        if all(i.startswith("T:") or i == "N" for i in items) and items:
            return "TL:[%s]" % ";".join(i[2:] if i != "N" else "N" for i in items)
        if all(i.startswith("I:") for i in items):
            return "L:[%s]" % ",".join(i[2:] for i in items)
        if all(i.startswith("F:") for i in items):
            return "FL:[%s]" % ",".join(i[2:] for i in items)
        if all(i.startswith("B:") for i in items):
            return "BL:[%s]" % ",".join(i[2:] for i in items)
        if not items:
            return "L:[]"
        return None
    ok, val = constant(v)
    if not ok:
        return None
    if val is None:
        return "N"
    if isinstance(val, bool):
        return "B:%d" % val
    if isinstance(val, int):
        if name == "dtype":
            return "D:" + C10[val]
        if name == "memory_format":
            return "M:%d" % val
        if name == "layout":
            return "Y:%d" % val
        return "I:%d" % val
    if isinstance(val, float):
        return "F:" + repr(val)
    if isinstance(val, str):
        return "S:" + val if val and " " not in val and "#" not in val else None
    if isinstance(val, torch.device):
        return "V:" + str(val)
    if isinstance(val, torch.Tensor):
        return None
    if isinstance(val, (list, tuple)) and all(isinstance(x, int) and not isinstance(x, bool) for x in val):
        return "L:[%s]" % ",".join(str(x) for x in val)
    if isinstance(val, (list, tuple)) and all(isinstance(x, bool) for x in val):
        return "BL:[%s]" % ",".join(str(int(x)) for x in val)
    if isinstance(val, (list, tuple)) and all(isinstance(x, float) for x in val):
        return "FL:[%s]" % ",".join(repr(x) for x in val)
    if isinstance(val, torch.Tensor) and val.dim() == 0 and not val.dtype.is_complex:
        return None
    return None


def results(n):
    out = []
    for o in n.outputs():
        tt = tensor_type(o)
        if tt:
            out.append(tt)
            continue
        if isinstance(o.type(), torch._C.ListType):
            unpack = [u.user for u in o.uses() if u.user.kind() == "prim::ListUnpack"]
            if len(unpack) == 1:
                items = [tensor_type(x) for x in unpack[0].outputs()]
                if all(items):
                    out += items
                    continue
        return None
    return out


def call_cases(block, lines):
    for n in block.nodes():
        for b in n.blocks():
            call_cases(b, lines)
        if not n.kind().startswith("aten::"):
            continue
        try:
            text = n.schema()
            if text == "(no schema)":
                continue
            sch = torch._C.parse_schema(text)
        except Exception:
            continue
        args = []
        for a, v in zip(sch.arguments, n.inputs()):
            e = encode(a.name, v)
            if e is None:
                break
            args.append("%s=%s" % (a.name, e))
        else:
            res = results(n)
            if res:
                op = "aten.%s.%s" % (n.kind()[6:], sch.overload_name or "default")
                lines.add("%s %s -> %s" % (op, " ".join(args), " ".join(res)))


def typed_graph(sm, args):
    """sm's inlined graph with the types tracing left out filled in: the
    forward's inputs from the example arguments, the parameters and
    buffers (prim::GetAttr chains from self) from the module."""
    g = graph_of(sm)
    ins = list(g.inputs())
    for v, a in zip(ins[1:], args):
        v.setType(torch._C.TensorType.create_from_tensor(a))
    objs = {ins[0].debugName(): sm}
    for n in g.nodes():
        if n.kind() != "prim::GetAttr":
            continue
        owner = objs.get(list(n.inputs())[0].debugName())
        if owner is None:
            continue
        x = getattr(owner, n.s("name"), None)
        out = n.output()
        if isinstance(x, torch.Tensor):
            out.setType(torch._C.TensorType.create_from_tensor(x))
        elif x is not None:
            objs[out.debugName()] = x
    return g


def cases(path):
    lines = set()
    for name, make, args, _ in models():
        torch.manual_seed(0)
        try:
            m = make().eval()
            with torch.no_grad():
                t = torch.jit.trace(m, args, check_trace=False)
            for sm in (t, torch.jit.freeze(t)):
                call_cases(typed_graph(sm, args), lines)
        except Exception as e:
            print("skip %s: %s" % (name, str(e).splitlines()[0]), file=sys.stderr)
    with open(path, "w") as f:
        f.write("# collect_ops.py --cases (torch %s): the aten calls of the traced and frozen target models\n"
                "# with the dtypes and shapes tracing recorded; same format as cases.txt.\n" % torch.__version__)
        for line in sorted(lines):
            f.write(line + "\n")
    print("%d calls -> %s" % (len(lines), path), file=sys.stderr)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--cases":
        return cases(sys.argv[2])
    seen = set()
    for name, make, args, scriptable in models():
        torch.manual_seed(0)
        try:
            m = make().eval()
        except Exception as e:
            print("skip %s: %s" % (name, e), file=sys.stderr)
            continue
        forms = []
        try:
            with torch.no_grad():
                t = torch.jit.trace(m, args, check_trace=False)
            forms.append(("traced", t))
            forms.append(("frozen", torch.jit.freeze(t)))
        except Exception as e:
            print("skip %s traced: %s" % (name, str(e).splitlines()[0]), file=sys.stderr)
        if scriptable:
            try:
                s = torch.jit.script(m)
                forms.append(("scripted", s))
                forms.append(("scripted+frozen", torch.jit.freeze(s)))
            except Exception as e:
                print("skip %s scripted: %s" % (name, str(e).splitlines()[0]), file=sys.stderr)
        for form, sm in forms:
            try:
                walk(graph_of(sm), seen)
            except Exception as e:
                print("skip %s %s: %s" % (name, form, e), file=sys.stderr)
    for s in sorted(seen):
        print(s)


if __name__ == "__main__":
    main()
