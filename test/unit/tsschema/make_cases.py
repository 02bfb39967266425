"""make_cases.py: what torch picks for TorchScript calls, for test_tsschema.

Run in the sid chroot (torch 2.14), from the worktree:

    ../shared/tools/torch-env.sh run sid python3 test/unit/tsschema/make_cases.py

Writes test/unit/tsschema/cases.txt, one call a line:

    aten::add(Tensor, int, alpha=int) -> aten::add.Scalar

the call's argument kinds (TsKind names, keywords as name=kind) and the
overload torch chose, "builtin NS::NAME.OVERLOAD" when one of
TorchScript's builtin functions matched (the op is the one its body
calls), "!" when torch rejects the call.  A trailing " conv" says torch
inserted an implicit conversion (IntImplicit, aten::Int, aten::device...)
for it.  Two sources:

- direct calls: each pattern of CALLS is compiled as
  `torch.ops.NS.NAME(p0, p1, ...)` over typed parameters (literals only
  for None and []), which is the path printed code takes when torch loads
  it (emitBuiltinCall, then schema matching);
- printed calls: traced, scripted and frozen models are saved and loaded
  back, and every op node of the loaded graphs is written as the printer
  writes its call (trailing arguments left at their defaults dropped,
  keyword-only ones by name): loading re-chose that node's overload from
  exactly those arguments.

With --printed it writes only the printed calls, into printed-X.Y.txt for
the running torch X.Y: run so with torch 1.13 (Debian 12's python3-torch,
/usr/bin/python3) and 2.6 (the trixie chroot), their printed code must
bind to the same overloads in the 2.14 table.

It also checks that every name's schemas come in the order
lib/read/ts/tsschema.def keeps (torch._C._jit_get_schemas_for_operator).
"""
import io
import os
import sys
from typing import List, Optional, Tuple  # noqa: F401  (the compiled sources use them)

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "lib", "read"))
import tsschema  # noqa: E402  (also imports torchvision, registering its ops)

# Names that are only TorchScript builtin functions: torch.ops cannot reach
# them from Python, so a direct call says nothing about them.
BUILTIN_ONLY = {ns + "::" + name for ns, name, _, _, _ in tsschema.builtin_functions()
                if not torch._C._jit_get_schemas_for_operator(ns + "::" + name)}

# kind -> (annotation of a parameter holding it, or a literal)
PARAM = {
    "Tensor": "Tensor", "int": "int", "float": "float", "bool": "bool", "str": "str",
    "complex": "complex", "Device": "Device", "int[]": "List[int]", "float[]": "List[float]",
    "bool[]": "List[bool]", "Tensor[]": "List[Tensor]", "Tensor?[]": "List[Optional[Tensor]]",
    "other": "Tuple[int, Tensor]",
}
LITERAL = {"None": "None", "[]": "[]"}

# (op, kinds): calls traced and scripted code makes, and the edges of the rules.
CALLS = """
aten::add Tensor, Tensor
aten::add Tensor, Tensor, alpha=int
aten::add Tensor, Tensor, alpha=float
aten::add Tensor, Tensor, int
aten::add Tensor, int
aten::add Tensor, float
aten::add Tensor, int, int
aten::add Tensor, int, alpha=int
aten::add Tensor, bool
aten::add Tensor, complex
aten::add Tensor, str
aten::add int, Tensor
aten::add float, Tensor
aten::add complex, Tensor
aten::add bool, Tensor
aten::add int, int
aten::add int, float
aten::add float, int
aten::add float, float
aten::add bool, bool
aten::add int, bool
aten::add str, str
aten::add int[], int[]
aten::add Tensor[], Tensor[]
aten::add Tensor
aten::add Tensor, Tensor, beta=int
aten::add input=Tensor, other=Tensor
aten::add self=Tensor, other=int
aten::add_ Tensor, Tensor
aten::add_ Tensor, int
aten::sub Tensor, Tensor
aten::sub Tensor, int
aten::sub int, Tensor
aten::sub float, Tensor
aten::sub int, int
aten::rsub Tensor, int
aten::rsub Tensor, Tensor
aten::mul Tensor, Tensor
aten::mul Tensor, float
aten::mul int, Tensor
aten::mul float, Tensor
aten::mul complex, Tensor
aten::lt complex, Tensor
aten::ge complex, Tensor
aten::eq complex, Tensor
aten::ne complex, Tensor
aten::sub complex, Tensor
aten::ne float, Tensor
aten::le float, Tensor
aten::div float, Tensor
aten::div complex, Tensor
aten::mul int, int
aten::mul int[], int
aten::mul Tensor, bool
aten::div Tensor, Tensor
aten::div Tensor, int
aten::div Tensor, int, rounding_mode=str
aten::div Tensor, Tensor, rounding_mode=None
aten::div Tensor, Tensor, rounding_mode=str
aten::div int, Tensor
aten::div int, int
aten::div float, float
aten::floordiv int, int
aten::floordiv Tensor, int
aten::floordiv Tensor, Tensor
aten::floor_divide Tensor, int
aten::remainder Tensor, int
aten::remainder int, int
aten::pow Tensor, int
aten::pow Tensor, float
aten::pow Tensor, Tensor
aten::pow int, Tensor
aten::pow float, Tensor
aten::pow int, int
aten::pow float, int
aten::eq Tensor, Tensor
aten::eq Tensor, int
aten::eq int, Tensor
aten::eq int, int
aten::eq int, float
aten::eq str, str
aten::eq int[], int[]
aten::eq Device, Device
aten::eq Tensor, None
aten::ne Tensor, int
aten::ne int, int
aten::ne str, str
aten::ne int[], int[]
aten::lt Tensor, int
aten::lt int, Tensor
aten::lt float, float
aten::lt int, int
aten::gt int, Tensor
aten::gt Tensor, float
aten::le int, Tensor
aten::ge float, Tensor
aten::__and__ bool, bool
aten::__and__ Tensor, Tensor
aten::__and__ Tensor, bool
aten::__or__ int, int
aten::__not__ bool
aten::__is__ Tensor, None
aten::__isnot__ Tensor, None
aten::__contains__ int[], int
aten::__getitem__ int[], int
aten::__getitem__ Tensor[], int
aten::__getitem__ str, int
aten::len int[]
aten::len Tensor[]
aten::len Tensor
aten::len str
aten::len []
aten::append int[], int
aten::append Tensor[], Tensor
aten::append int[], Tensor
aten::append int[], float
aten::append Tensor[], None
aten::append Tensor?[], Tensor
aten::append Tensor?[], None
aten::append [], int
aten::add int[], float[]
aten::add int[], []
aten::insert int[], int, int
aten::insert int[], int, float
aten::extend int[], int[]
aten::extend Tensor[], Tensor?[]
aten::_set_item int[], int, int
aten::_set_item int[], int, bool
aten::__is__ int, None
aten::__isnot__ Tensor, int
aten::__getitem__ Tensor?[], int
prim::unchecked_cast None
aten::list int[]
aten::size Tensor, int
aten::size Tensor
aten::size Tensor, dim=int
aten::dim Tensor
aten::numel Tensor
aten::Int Tensor
aten::Int float
aten::Int bool
aten::Int str
aten::Int int
aten::Float Tensor
aten::Float int
aten::Float str
aten::Bool Tensor
aten::Bool int
aten::ScalarImplicit Tensor
aten::IntImplicit Tensor
aten::FloatImplicit Tensor
aten::format str, Tensor, int
aten::format str
aten::str int
aten::device str
aten::device str, int
aten::max Tensor
aten::max Tensor, int
aten::max Tensor, int, bool
aten::max Tensor, dim=int, keepdim=bool
aten::max Tensor, Tensor
aten::max int, int
aten::max int, float
aten::max int[]
aten::min Tensor, int
aten::min float, float
aten::sum Tensor
aten::sum Tensor, int
aten::sum Tensor, int[]
aten::sum Tensor, int[], bool
aten::sum Tensor, None
aten::sum Tensor, []
aten::sum Tensor, dtype=int
aten::sum Tensor, int, dtype=int
aten::sum Tensor, int, bool, dtype=int
aten::sum int[]
aten::sum float[]
aten::sum Tensor, int, int
aten::mean Tensor
aten::mean Tensor, int[]
aten::mean Tensor, int, bool
aten::mean Tensor, []
aten::mean Tensor, int[], keepdim=bool
aten::softmax Tensor, int
aten::softmax Tensor, int, None
aten::softmax Tensor, int, int
aten::softmax Tensor, dim=int
aten::softmax input=Tensor, dim=int
aten::softmax Tensor, Tensor
aten::softmax Tensor, float
aten::softmax Tensor, bool
aten::log_softmax Tensor, int, dtype=int
aten::relu Tensor
aten::relu int
aten::relu_ Tensor
aten::gelu Tensor
aten::gelu Tensor, approximate=str
aten::gelu Tensor, str
aten::hardtanh Tensor, float, float
aten::hardtanh_ Tensor, int, int
aten::leaky_relu Tensor, float
aten::leaky_relu Tensor, int
aten::clamp Tensor, int
aten::clamp Tensor, float, float
aten::clamp Tensor, None, float
aten::clamp Tensor, Tensor
aten::clamp Tensor, Tensor, Tensor
aten::clamp Tensor, int, Tensor
aten::clamp Tensor, min=int
aten::clamp Tensor, max=Tensor
aten::clamp_min Tensor, int
aten::where Tensor, Tensor, Tensor
aten::where Tensor, Tensor, float
aten::where Tensor, float, Tensor
aten::where Tensor, float, float
aten::where Tensor, int, int
aten::where Tensor
aten::dropout Tensor, float, bool
aten::dropout Tensor, int, bool
aten::dropout Tensor, Tensor, bool
aten::dropout Tensor, float, int
aten::dropout Tensor, float
aten::dropout_ Tensor, float, bool
aten::feature_dropout Tensor, float, bool
aten::linear Tensor, Tensor, Tensor
aten::linear Tensor, Tensor, None
aten::linear Tensor, Tensor
aten::matmul Tensor, Tensor
aten::mm Tensor, Tensor
aten::bmm Tensor, Tensor
aten::addmm Tensor, Tensor, Tensor
aten::addmm Tensor, Tensor, Tensor, beta=int, alpha=int
aten::addmm Tensor, Tensor, Tensor, int, int
aten::conv2d Tensor, Tensor, Tensor, int[], int[], int[], int
aten::conv2d Tensor, Tensor, None, int, int, int, int
aten::conv2d Tensor, Tensor, None, int[], str, int[], int
aten::conv2d Tensor, Tensor, None, int, str, int, int
aten::conv2d Tensor, Tensor
aten::conv1d Tensor, Tensor, Tensor, int[], int[], int[], int
aten::conv_transpose2d Tensor, Tensor, Tensor, int[], int[], int[], int, int[]
aten::_convolution Tensor, Tensor, Tensor, int[], int[], int[], bool, int[], int, bool, bool, bool, bool
aten::_convolution Tensor, Tensor, None, int[], int[], int[], bool, int[], int, bool, bool, bool
aten::batch_norm Tensor, Tensor, Tensor, Tensor, Tensor, bool, float, float, bool
aten::batch_norm Tensor, None, None, Tensor, Tensor, bool, float, float, bool
aten::layer_norm Tensor, int[], Tensor, Tensor, float, bool
aten::layer_norm Tensor, int[]
aten::layer_norm Tensor, int
aten::group_norm Tensor, int, Tensor, Tensor, float, bool
aten::instance_norm Tensor, Tensor, Tensor, None, None, bool, float, float, bool
aten::max_pool2d Tensor, int[], int[], int[], int[], bool
aten::max_pool2d Tensor, int
aten::max_pool2d Tensor, int, int
aten::max_pool2d Tensor, int[]
aten::max_pool2d Tensor, int, []
aten::max_pool2d Tensor, float
aten::max_pool2d_with_indices Tensor, int[], int[], int[], int[], bool
aten::avg_pool2d Tensor, int[], int[], int[], bool, bool, None
aten::avg_pool2d Tensor, int, int, int, bool, bool, None
aten::adaptive_avg_pool2d Tensor, int[]
aten::adaptive_avg_pool2d Tensor, int
aten::adaptive_avg_pool1d Tensor, int[]
aten::adaptive_max_pool2d Tensor, int[]
aten::upsample_nearest2d Tensor, int[], None
aten::upsample_nearest2d Tensor, None, float[]
aten::upsample_nearest2d Tensor, int[], float, float
aten::upsample_bilinear2d Tensor, int[], bool, None
aten::upsample_bilinear2d Tensor, None, bool, float[]
aten::__interpolate Tensor, int, None, str, None
aten::embedding Tensor, Tensor, int, bool, bool
aten::embedding Tensor, Tensor
aten::lstm Tensor, Tensor[], Tensor[], bool, int, float, bool, bool, bool
aten::lstm Tensor, Tensor, Tensor[], Tensor[], bool, int, float, bool, bool
aten::gru Tensor, Tensor, Tensor[], bool, int, float, bool, bool, bool
aten::scaled_dot_product_attention Tensor, Tensor, Tensor, None, float, bool
aten::scaled_dot_product_attention Tensor, Tensor, Tensor, Tensor, float, bool, scale=float
aten::scaled_dot_product_attention Tensor, Tensor, Tensor, is_causal=bool
aten::scaled_dot_product_attention Tensor, Tensor, Tensor, None, int, bool
aten::view Tensor, int[]
aten::view Tensor, int
aten::view Tensor, int, int
aten::view Tensor, Tensor
aten::reshape Tensor, int[]
aten::reshape Tensor, int, int
aten::reshape Tensor, int
aten::reshape Tensor, Tensor, int
aten::flatten Tensor, int
aten::flatten Tensor, int, int
aten::flatten Tensor
aten::flatten Tensor, int, int, str
aten::unflatten Tensor, int, int[]
aten::permute Tensor, int[]
aten::permute Tensor, int, int
aten::transpose Tensor, int, int
aten::t Tensor
aten::contiguous Tensor
aten::contiguous Tensor, memory_format=int
aten::contiguous Tensor, int
aten::unsqueeze Tensor, int
aten::squeeze Tensor
aten::squeeze Tensor, int
aten::squeeze Tensor, int[]
aten::expand Tensor, int[]
aten::expand Tensor, int[], implicit=bool
aten::expand Tensor, int, int
aten::expand_as Tensor, Tensor
aten::repeat Tensor, int[]
aten::repeat Tensor, int, int
aten::slice Tensor, int, int, int, int
aten::slice Tensor, int, None, None, int
aten::slice Tensor, int, int
aten::slice Tensor
aten::slice int[], int, int, int
aten::slice str, int, int
aten::select Tensor, int, int
aten::select Tensor, int, Tensor
aten::index_select Tensor, int, Tensor
aten::index Tensor, Tensor?[]
aten::index Tensor, Tensor[]
aten::index Tensor, []
aten::index int[], int
aten::index_put_ Tensor, Tensor?[], Tensor, bool
aten::index_put_ Tensor, Tensor[], Tensor
aten::narrow Tensor, int, int, int
aten::narrow Tensor, int, Tensor, int
aten::chunk Tensor, int, int
aten::split Tensor, int, int
aten::split Tensor, int[], int
aten::split Tensor, int
aten::split str, str
aten::unbind Tensor, int
aten::cat Tensor[], int
aten::cat Tensor[]
aten::cat Tensor[], dim=int
aten::cat Tensor, Tensor
aten::cat []
aten::stack Tensor[], int
aten::stack Tensor[], dim=int
aten::gather Tensor, int, Tensor
aten::scatter Tensor, int, Tensor, Tensor
aten::scatter Tensor, int, Tensor, float
aten::masked_fill Tensor, Tensor, float
aten::masked_fill Tensor, Tensor, Tensor
aten::masked_fill Tensor, Tensor, int
aten::masked_fill_ Tensor, Tensor, float
aten::to Tensor, int
aten::to Tensor, int, bool, bool
aten::to Tensor, Device
aten::to Tensor, str
aten::to Tensor, Device, int
aten::to Tensor, Device, int, bool, bool
aten::to Tensor, str, int
aten::to Tensor, Tensor
aten::to Tensor, None
aten::to Tensor, dtype=int
aten::to Tensor, device=str
aten::to Tensor, device=Device
aten::to Tensor, dtype=int, device=Device
aten::to Tensor, Tensor, bool
aten::to Tensor, None, int, bool, bool
aten::to Tensor, bool, bool
aten::type_as Tensor, Tensor
aten::zeros int[]
aten::zeros int[], dtype=int
aten::zeros int[], dtype=int, layout=None, device=Device, pin_memory=bool
aten::zeros int[], dtype=None, device=str
aten::zeros int, int
aten::zeros int
aten::zeros Tensor
aten::zeros int, Tensor
aten::zeros int[], int
aten::zeros []
aten::ones int[], dtype=int
aten::ones int, int, int
aten::zeros_like Tensor
aten::zeros_like Tensor, dtype=int
aten::full int[], int
aten::full int[], float, dtype=int
aten::full int[], bool
aten::full int[], Tensor
aten::full int, int
aten::full_like Tensor, float
aten::arange int
aten::arange float
aten::arange int, int
aten::arange int, float
aten::arange int, int, int
aten::arange int, dtype=int
aten::arange int, int, dtype=int, device=Device
aten::arange Tensor
aten::tensor int[]
aten::tensor float
aten::tensor int
aten::tensor bool
aten::tensor float[], dtype=int
aten::tensor int[], dtype=int, device=None, requires_grad=bool
aten::empty int[], dtype=int
aten::new_zeros Tensor, int[]
aten::new_ones Tensor, int[], dtype=int
aten::einsum str, Tensor[]
aten::einsum str, Tensor, Tensor
aten::topk Tensor, int
aten::topk Tensor, int, int, bool, bool
aten::sort Tensor, int, bool
aten::argmax Tensor, int, bool
aten::argmax Tensor
aten::argmax Tensor, None
aten::cumsum Tensor, int
aten::cumsum Tensor, int, dtype=int
aten::norm Tensor
aten::norm Tensor, int
aten::norm Tensor, float, int[], bool
aten::norm Tensor, None, int[], bool
aten::norm Tensor, str
aten::std Tensor, int[], bool, bool
aten::var Tensor, int[], unbiased=bool, keepdim=bool
aten::var Tensor, int, correction=int
aten::any Tensor
aten::any Tensor, int
aten::any bool[]
aten::all Tensor
aten::abs Tensor
aten::abs int
aten::neg Tensor
aten::neg int
aten::neg float
aten::exp Tensor
aten::exp float
aten::sqrt Tensor
aten::sqrt int
aten::log Tensor
aten::log float, float
aten::floor Tensor
aten::floor float
aten::ceil float
aten::round Tensor
aten::round Tensor, decimals=int
aten::round float
aten::sigmoid Tensor
aten::tanh Tensor
aten::tanh float
aten::erf Tensor
aten::sin float
aten::isnan Tensor
aten::type_as Tensor, int
aten::numpy_T Tensor
aten::ndim Tensor
prim::NumToTensor int
prim::NumToTensor float
prim::NumToTensor bool
prim::NumToTensor Tensor
prim::device Tensor
prim::dtype Tensor
prim::layout Tensor
prim::shape Tensor
prim::is_cuda Tensor
prim::requires_grad Tensor
prim::data Tensor
prim::min int, int
prim::min int[]
prim::max float, float
prim::max int[], int[]
prim::abs int
prim::abs Tensor
prim::unchecked_cast Tensor
prim::unchecked_cast int
prim::TupleIndex other, int
prim::Uninitialized
prim::rangelist int
prim::NumToTensor str
prim::device int
prim::is_nested Tensor
torchvision::nms Tensor, Tensor, float
torchvision::nms Tensor, Tensor, int
torchvision::roi_align Tensor, Tensor, float, int, int, int, bool
aten::no_such_op Tensor
aten::dropout Tensor, p=float, train=bool
aten::dropout input=Tensor, p=float, train=bool
aten::dropout Tensor, float, bool, bool
aten::dropout Tensor, train=bool, p=float
aten::relu self=Tensor
aten::relu input=Tensor
aten::cat tensors=Tensor[], dim=int
aten::conv2d input=Tensor, weight=Tensor
aten::conv2d Tensor, weight=Tensor, bias=Tensor, stride=int
"""


def call_text(op, kinds):
    return "%s(%s)" % (op, ", ".join(kinds))


def direct_case(op, kinds):
    """Compiles torch.ops.NS.NAME over kinds; returns the expected choice."""
    ns, name = op.split("::")
    params, args = [], []
    for i, k in enumerate(kinds):
        kw, _, kind = k.rpartition("=")
        if kind in LITERAL:
            v = LITERAL[kind]
        else:
            params.append("p%d: %s" % (i, PARAM[kind]))
            v = "p%d" % i
        args.append(kw + "=" + v if kw else v)
    src = "def f(%s):\n    return torch.ops.%s.%s(%s)\n" % (", ".join(params), ns, name, ", ".join(args))
    try:
        cu = torch.jit.CompilationUnit(src)
    except RuntimeError as e:
        if "object has no attribute" in str(e) and op in BUILTIN_ONLY:
            return None
        return "!"
    nodes = list(cu.f.graph.nodes())
    mine = [n for n in nodes if n.kind() == op and "torch.ops." in repr(n.sourceRange())]
    conv = any(n.kind() in ("aten::IntImplicit", "aten::FloatImplicit", "aten::ScalarImplicit",
                            "aten::ComplexImplicit", "aten::Int", "aten::Float", "aten::device")
               and "torch.ops." in repr(n.sourceRange()) and n.kind() != op for n in nodes)
    conv_s = " conv" if conv else ""
    if mine:
        if node_schema(mine[-1]) is None:
            raise SystemExit("make_cases.py: %s: its node has no schema: %s"
                             % (call_text(op, kinds), mine[-1]))
        return full_name(node_schema(mine[-1])) + conv_s
    ops = [n for n in nodes if n.kind() not in ("prim::Constant", "prim::ListConstruct")
           and "torch.ops." not in repr(n.sourceRange())]
    if not ops:
        return None     # a cleanup pass replaced or folded the node (rsub by sub): no choice to see
    return "builtin " + full_name(node_schema(ops[-1])) + conv_s


def node_schema(n):
    """The node's FunctionSchema (Node.schema() gives its text), or None."""
    text = n.schema()
    return None if text == "(no schema)" else torch._C.parse_schema(text)


def full_name(schema):
    return schema.name + ("." + schema.overload_name if schema.overload_name else "")


def kind_of_type(t):
    s = str(t)
    if isinstance(t, torch._C.TensorType):
        return "Tensor"
    table = {"int": "int", "float": "float", "bool": "bool", "str": "str", "NoneType": "None",
             "Device": "Device", "complex": "complex", "List[int]": "int[]",
             "List[float]": "float[]", "List[bool]": "bool[]", "List[Tensor]": "Tensor[]",
             "List[Optional[Tensor]]": "Tensor?[]"}
    if s in table:
        return table[s]
    if s.startswith("Optional[") or s in ("number", "Scalar") or s.startswith("List["):
        return None     # no TsKind says "maybe None" or "some number"
    if s.startswith("Tuple[") or s.startswith("__torch__"):
        return "other"
    return None


def printed_call(n):
    """The node's call as printed code writes it, or None."""
    schema = node_schema(n)
    if schema is None:
        return None
    ns = schema.name.split("::")[0]
    if ns not in ("aten", "prim", "torchvision"):
        return None
    args, inputs = schema.arguments, list(n.inputs())
    need = len(inputs)
    if len(args) >= len(inputs):
        need = len(args)
        while need > 0:     # CalculateNecessaryArgs: trailing defaults left out
            a = args[need - 1]
            if not a.has_default_value() or need > len(inputs):
                break
            v = inputs[need - 1]
            if v.node().kind() != "prim::Constant":
                break
            if v.toIValue() != a.default_value:
                break
            need -= 1
    kinds = []
    for i in range(need):
        k = kind_of_type(inputs[i].type())
        if k is None:
            return None
        if i < len(args) and args[i].kwarg_only:
            k = args[i].name + "=" + k
        kinds.append(k)
    return schema.name, kinds, full_name(schema)


def walk(block):
    for n in block.nodes():
        yield n
        for b in n.blocks():
            yield from walk(b)


def models():
    torch.manual_seed(0)

    class Att(nn.Module):
        def __init__(self):
            super().__init__()
            self.q = nn.Linear(8, 8)
            self.ln = nn.LayerNorm(8)

        def forward(self, x):
            q = self.q(x).view(x.size(0), -1, 2, 4).transpose(1, 2)
            a = F.scaled_dot_product_attention(q, q, q, is_causal=True)
            y = a.transpose(1, 2).reshape(x.shape) + x
            return F.gelu(self.ln(y)).softmax(-1)[:, 0] * 2

    class Ctl(nn.Module):
        def forward(self, x, n: int = 2):
            y = x
            for i in range(n):
                y = y + i
            if x.sum() > 0:
                y = y * 2.0
            z = torch.zeros(2, 3, dtype=torch.float32)
            s = [d for d in x.shape]
            return (y.to(torch.float16).float(), z, torch.cat([y, y], 1), y.max(1)[0],
                    torch.where(y > 0, y, 0.), x.view(s[0], -1).clamp(min=0.5), y[:, 1:] - 1,
                    torch.arange(3) // 2, F.pad(x, [1, 1]), x.new_zeros([2]), x.mean([0], keepdim=True))

    class Up(nn.Module):
        def __init__(self):
            super().__init__()
            self.e = nn.Embedding(10, 4)
            self.c = nn.ConvTranspose2d(4, 2, 3, stride=2)
            self.g = nn.GRU(4, 3)

        def forward(self, i):
            e = self.e(i)
            u = F.interpolate(e.permute(0, 2, 1).unsqueeze(-1), scale_factor=2.0, mode="nearest")
            v = self.c(u)
            o, h = self.g(e)
            return v.flatten(1).sum(1, keepdim=True), o.mean(), torch.stack([h, h]).amax(0), e.chunk(2, -1)[0]

    out = {
        "mlp": (nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.1), nn.Linear(8, 2), nn.Softmax(-1)),
                (torch.randn(2, 4),)),
        "cnn": (nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU6(), nn.MaxPool2d(2),
                              nn.Conv2d(4, 4, 3, padding="same", groups=2), nn.AvgPool2d(2), nn.Hardswish(),
                              nn.AdaptiveAvgPool2d(1), nn.Flatten()), (torch.randn(1, 3, 8, 8),)),
        "att": (Att(), (torch.randn(2, 3, 8),)),
        "lstm": (nn.LSTM(4, 5, batch_first=True), (torch.randn(2, 3, 4),)),
        "ctl": (Ctl(), (torch.randn(2, 3),)),
        "up": (Up(), (torch.tensor([[1, 2, 3, 4]]),)),
        "tfm": (nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), (torch.randn(2, 3, 8),)),
    }
    try:
        from transformers import BertConfig, BertModel, GPT2Config, GPT2LMHeadModel

        class Hf(nn.Module):    # tuple outputs: the tracer refuses dicts
            def __init__(self, m):
                super().__init__()
                self.m = m

            def forward(self, ids, mask):
                return self.m(input_ids=ids, attention_mask=mask, return_dict=False)[0]

        ids = torch.tensor([[1, 2, 3, 4]])
        out["bert"] = (Hf(BertModel(BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1,
                                                num_attention_heads=2, intermediate_size=32))),
                       (ids, torch.ones_like(ids)))
        out["gpt2"] = (Hf(GPT2LMHeadModel(GPT2Config(vocab_size=50, n_embd=16, n_layer=1, n_head=2,
                                                     n_positions=16))), (ids, torch.ones_like(ids)))
    except ImportError:
        pass
    try:
        import torchvision
        out["resnet18"] = (torchvision.models.resnet18(), (torch.randn(1, 3, 64, 64),))
        out["mobilenet_v2"] = (torchvision.models.mobilenet_v2(), (torch.randn(1, 3, 64, 64),))
    except ImportError:
        pass
    return out


def printed_cases():
    cases, clash = {}, set()
    for name, (m, args) in models().items():
        m.eval()
        variants = {}
        try:
            variants["traced"] = torch.jit.trace(m, args)
        except Exception as e:
            print("make_cases.py: %s: trace: %s" % (name, str(e).splitlines()[0][:100]), file=sys.stderr)
        try:
            variants["scripted"] = torch.jit.script(m)
        except Exception as e:
            print("make_cases.py: %s: script: %s" % (name, str(e)[:100]), file=sys.stderr)
        if "scripted" in variants:
            variants["frozen"] = torch.jit.freeze(torch.jit.script(m).eval())
        elif "traced" in variants:
            variants["frozen"] = torch.jit.freeze(variants["traced"])
        for v, sm in variants.items():
            buf = io.BytesIO()
            torch.jit.save(sm, buf)
            buf.seek(0)
            loaded = torch.jit.load(buf)
            graphs = [loaded.inlined_graph] if hasattr(loaded, "inlined_graph") else []
            graphs += [meth.graph for meth in [getattr(loaded, "forward", None)] if meth is not None]
            for g in graphs:
                for n in walk(g):
                    c = printed_call(n)
                    if c is None:
                        continue
                    key = call_text(c[0], c[1])
                    if key in cases and cases[key] != c[2]:
                        clash.add(key)
                    cases[key] = c[2]
    for key in sorted(clash):
        print("make_cases.py: %s chose two overloads; left out" % key, file=sys.stderr)
        del cases[key]
    return cases


def check_order():
    """The .def keeps each name's schemas in this order (tsschema.py)."""
    order = {}
    for s in torch._C._jit_get_all_schemas():
        order.setdefault(s.name, []).append(s.overload_name)
    for name, ovls in order.items():
        got = [s.overload_name for s in torch._C._jit_get_schemas_for_operator(name)]
        if got != ovls:
            raise SystemExit("make_cases.py: %s: _jit_get_all_schemas order %s, operator order %s"
                             % (name, ovls, got))


def main_printed():
    """--printed: the printed calls of an older torch, into printed-X.Y.txt."""
    version = ".".join(torch.__version__.split("+")[0].split(".")[:2])
    lines = ["# GENERATED by test/unit/tsschema/make_cases.py --printed from torch %s: do not edit."
             % torch.__version__.split("+")[0],
             "# CALL -> CHOICE: the op nodes of traced, scripted and frozen models as torch %s"
             % version,
             "# prints and loads them; the 2.14 table must choose the same overloads."]
    cases = printed_cases()
    lines += ["%s -> %s" % (key, choice) for key, choice in sorted(cases.items())]
    with open(os.path.join(HERE, "printed-%s.txt" % version), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("make_cases.py: %d printed cases from torch %s" % (len(cases), version), file=sys.stderr)


def main():
    if sys.argv[1:] == ["--printed"]:
        main_printed()
        return
    check_order()
    lines = ["# GENERATED by test/unit/tsschema/make_cases.py from torch %s: do not edit."
             % torch.__version__.split("+")[0],
             "# CALL -> CHOICE [conv]: what torch picks for the call's argument kinds (see the script)",
             "# direct calls (torch.ops.NS.NAME(...) over typed parameters)"]
    seen = set()
    for line in CALLS.strip().splitlines():
        op, _, rest = line.partition(" ")
        kinds = [k.strip() for k in rest.split(",")] if rest.strip() else []
        key = call_text(op, kinds)
        if key in seen:
            raise SystemExit("make_cases.py: %s listed twice" % key)
        seen.add(key)
        choice = direct_case(op, kinds)
        if choice is None:
            print("make_cases.py: %s: no choice to see (torch replaced or folded the node, or torch.ops cannot call it); left out" % key, file=sys.stderr)
            continue
        lines.append("%s -> %s" % (key, choice))
    lines.append("# printed calls (the op nodes of traced, scripted and frozen models, loaded back)")
    for key, choice in sorted(printed_cases().items()):
        if key not in seen:
            lines.append("%s -> %s" % (key, choice))
    with open(os.path.join(HERE, "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("make_cases.py: %d cases" % (len(lines) - 4), file=sys.stderr)


if __name__ == "__main__":
    main()
