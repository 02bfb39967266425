# custom_ops: custom operators (torch.library.custom_op) mapped by the `custom_ops` option,
# and the ops torch.onnx writes (torch.onnx.ops.symbolic, torch.ops.onnx.*), built in.
#
# op_custom_nodes    yobx::fused_gelu and yobx::scaled_pair, mapped to ai.onnx nodes (`nodes:`
#                    in NAME.io/options.yaml): onnxruntime must match torch
# op_custom_domain   yobx::scaled_tanh, mapped to one node of domain com.example (version 2):
#                    no runtime has the kernel; test_custom.c checks the node, its attributes
#                    and the opset imports structurally
# op_custom_symbolic torch.onnx.ops.symbolic / symbolic_multi_out of ai.onnx ops (HardSigmoid,
#                    Transpose, TopK), torch 2.14 only (2.6 has no torch.onnx.ops)
# op_custom_onnx23   torch.onnx.ops.rotary_embedding and attention (onnx.RotaryEmbedding.opset23,
#                    onnx.Attention.opset23), at `opset: 23` (test/ort/opsets/23.txt), torch 2.14
import torch as _t
from torch import Tensor as _Tensor
from typing import Optional as _Optional


@_t.library.custom_op("yobx::fused_gelu", mutates_args=())
def _yobx_fused_gelu(x: _Tensor) -> _Tensor:
    return 0.5 * x * (1.0 + _t.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))


@_yobx_fused_gelu.register_fake
def _(x):
    return _t.empty_like(x)


@_t.library.custom_op("yobx::scaled_pair", mutates_args=())
def _yobx_scaled_pair(x: _Tensor, k: int) -> tuple[_Tensor, _Tensor]:
    return x * k, x + k


@_yobx_scaled_pair.register_fake
def _(x, k):
    return _t.empty_like(x), _t.empty_like(x)


@_t.library.custom_op("yobx::scaled_tanh", mutates_args=())
def _yobx_scaled_tanh(x: _Tensor, alpha: float = 1.0, bias: _Optional[_Tensor] = None) -> _Tensor:
    y = _t.tanh(x) * alpha
    return y if bias is None else y + bias


@_yobx_scaled_tanh.register_fake
def _(x, alpha=1.0, bias=None):
    return _t.empty_like(x)


class OpCustomNodes(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        # x (2, 3, 4); out: a (2, 3, 4), b - 1 (2, 3, 4), flattened
        h = _t.ops.yobx.fused_gelu(self.lin(x))
        a, b = _t.ops.yobx.scaled_pair(h, 3)
        return flat_cat(a, b - 1)


CUSTOM_NODES_OPTIONS = """\
custom_ops:
  yobx.fused_gelu.default:
    nodes:
      - {op_type: Mul, inputs: [x, x], outputs: [x2]}
      - {op_type: Mul, inputs: [x2, x], outputs: [x3]}
      - {op_type: Mul, inputs: [x3, 0.044715], outputs: [a]}
      - {op_type: Add, inputs: [x, a], outputs: [b]}
      - {op_type: Mul, inputs: [b, 0.7978845608], outputs: [c]}
      - {op_type: Tanh, inputs: [c], outputs: [t]}
      - {op_type: Add, inputs: [t, 1], outputs: [u]}
      - {op_type: Mul, inputs: [x, u], outputs: [v]}
      - {op_type: Mul, inputs: [v, 0.5], outputs: [y]}
    outputs: [y]
  yobx.scaled_pair.default:
    nodes:
      - {op_type: Mul, inputs: [x, k], outputs: [p]}
      - {op_type: Add, inputs: [x, k], outputs: [q]}
    outputs: [p, q]
"""


def fx_op_custom_nodes():
    fx = SlimFixture(liven(OpCustomNodes()).eval(), (r(2, 3, 4),))
    fx.options = CUSTOM_NODES_OPTIONS
    return fx


class OpCustomDomain(nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = nn.Parameter(0.1 * _t.randn(4))

    def forward(self, x):
        # two calls: with every argument, and with alpha and bias left at their default
        y = _t.ops.yobx.scaled_tanh(x * 2, 0.5, self.bias)
        return _t.ops.yobx.scaled_tanh(y) + 1


def fx_op_custom_domain():
    fx = SlimFixture(OpCustomDomain().eval(), (r(2, 4),))
    fx.options = """\
custom_ops:
  yobx.scaled_tanh.default:
    domain: com.example
    version: 2
    op_type: ScaledTanh
    inputs: [x, bias?]
    attributes: {alpha: alpha?, mode: "fast", axes: [0, 1], gamma: 1.5}
"""
    return fx


def _onnx_ops():
    try:
        import torch.onnx.ops as ops
    except ImportError:
        raise Skip("torch %s has no torch.onnx.ops" % _t.__version__)
    return ops


def _symbolic_reference():
    """torch.onnx.ops.symbolic's kernel returns zeros (it only stands for the ONNX node); for
    the fixture's reference outputs, the CPU kernels below compute the ONNX ops it names in
    torch (HardSigmoid, Transpose, TopK: ONNX's definitions)."""
    def attrs(keys, types, pos, ints, floats, strs):
        out = {}
        for k, t, (lo, hi) in zip(keys, types, pos):
            src = ints if t[0] == "i" else floats if t[0] == "f" else strs
            out[k] = src[lo] if len(t) == 1 else list(src[lo:hi])
        return out

    def one(inputs, op_type, onnx_dtype, *, shape, attr_keys, attr_types, attr_pos, attr_ints,
            attr_floats, attr_strs, metadata_props_keys=(), metadata_props_values=(), domain="",
            version=None):
        a = attrs(attr_keys, attr_types, attr_pos, attr_ints, attr_floats, attr_strs)
        x = inputs[0]
        if op_type == "HardSigmoid":
            return _t.clamp(a.get("alpha", 0.2) * x + a.get("beta", 0.5), 0, 1)
        if op_type == "Transpose":
            return x.permute(*a["perm"]).contiguous()
        raise NotImplementedError(op_type)

    def multi(inputs, op_type, onnx_dtypes, *, shapes, attr_keys, attr_types, attr_pos, attr_ints,
              attr_floats, attr_strs, metadata_props_keys=(), metadata_props_values=(), domain="",
              version=None):
        a = attrs(attr_keys, attr_types, attr_pos, attr_ints, attr_floats, attr_strs)
        if op_type == "TopK":
            v, i = _t.topk(inputs[0], int(inputs[1][0]), dim=a.get("axis", -1),
                           largest=bool(a.get("largest", 1)), sorted=True)
            return [v, i]
        raise NotImplementedError(op_type)

    _t.library.register_kernel("onnx_symbolic::_symbolic", "cpu", one)
    _t.library.register_kernel("onnx_symbolic::_symbolic_multi_out", "cpu", multi)


class OpCustomSymbolic(nn.Module):
    def forward(self, x):
        # x (2, 3, 5); out: HardSigmoid(x) (2, 3, 5), Transpose(x, perm [2, 0, 1]) (5, 2, 3),
        # TopK(x, 2) values (2, 3, 2) and indices as float (2, 3, 2), flattened
        ops = _onnx_ops()
        h = ops.symbolic("HardSigmoid", [x], attrs={"alpha": 0.25, "beta": 0.4}, dtype=x.dtype,
                         shape=x.shape, version=6)
        p = ops.symbolic("Transpose", [x], attrs={"perm": [2, 0, 1]}, dtype=x.dtype,
                         shape=(x.shape[2], x.shape[0], x.shape[1]), version=13)
        k = _t.tensor([2], dtype=_t.int64)
        v, i = ops.symbolic_multi_out("TopK", [x, k], attrs={"axis": -1, "largest": 1, "sorted": 1},
                                      dtypes=(x.dtype, _t.int64),
                                      shapes=((2, 3, 2), (2, 3, 2)), version=11)
        return flat_cat(h, p, v, i.float())


def fx_op_custom_symbolic():
    _onnx_ops()
    _symbolic_reference()
    return SlimFixture(OpCustomSymbolic().eval(), (r(2, 3, 5),))


class OpCustomOnnx23(nn.Module):
    def forward(self, x, cos, sin, q, k, v):
        # x (2, 2, 3, 8) = (batch, heads, seq, head): rotary with caches (2, 3, 4);
        # q (2, 4, 3, 8), k and v (2, 2, 5, 8): causal attention, grouped-query heads;
        # out: rotary (2, 2, 3, 8), attention (2, 4, 3, 8), flattened
        ops = _onnx_ops()
        rot = ops.rotary_embedding(x, cos, sin)
        y, _, _, _ = ops.attention(q, k, v, is_causal=True, scale=0.3)
        return flat_cat(rot, y)


def fx_op_custom_onnx23():
    _onnx_ops()
    ang = _t.rand(2, 3, 4) * 3
    fx = SlimFixture(OpCustomOnnx23().eval(), (r(2, 2, 3, 8), _t.cos(ang), _t.sin(ang), r(2, 4, 3, 8),
                                                r(2, 2, 5, 8), r(2, 2, 5, 8)))
    return fx   # converted at opset 23 only: +torch-2.14/op_custom_onnx23 in test/ort/opsets/23.txt


family(["op_custom_nodes"], versions=("2.14", "2.6"), decomp=True)
family(["op_custom_domain"], versions=("2.14", "2.6"), decomp=False)
family(["op_custom_symbolic", "op_custom_onnx23"], versions=("2.14",), decomp=False)
