"""make_cases.py: torch's own answers for lib/ir/meta.c, as test/unit/meta/cases.txt.

Runs every ATen overload meta.def covers on several argument sets (dtypes,
broadcasting, negative dims, keepdim, -1 sizes, empty lists, the errors torch
raises) and writes one line per call: the op, every schema argument by name
(defaults filled in, as the TorchScript reader hands them over), and torch's
result dtypes and shapes, or `error` when torch raises.  test_meta.c builds a
Node from each line, runs ir_infer_outputs and compares.

    ../shared/tools/torch-env.sh run sid python3 test/unit/meta/make_cases.py   (torch 2.14)
    ... make_cases.py OUT       writes OUT instead (another torch version, to compare)

Calls run on CPU tensors (random floats; integers 1, indices 0, so that
divisions and lookups succeed): the meta kernels check less than the real
ones (a dim out of range, mixed dtypes in matmul).  Where the CPU kernel
only lacks a dtype another backend has (float16, bfloat16), the meta
device answers instead.  Ops whose result shape depends on the data
(nonzero, a bool mask index) are recorded as errors: no rule can say.

Line format (whitespace separated, `#` starts a comment):
    OP NAME=VALUE ... -> RESULT ...
VALUE: T:dtype[d0,d1] a tensor, N None, I:5 int, F:0.5 float, B:1 bool,
C:re,im complex, S:text string, D:dtype a ScalarType, L:[1,2] int list,
FL:[0.5] float list, BL:[1,0] bool list, TL:[float32[2];N] tensor list (N
for None), M:name memory format, Y:name layout, V:cpu device.
RESULT: dtype[dims] a tensor, I:5 an int; or the single word `error`.
"""
import os
import re
import sys

import torch

A = torch.ops.aten
f16, bf16, f32, f64 = torch.float16, torch.bfloat16, torch.float32, torch.float64
i8, u8, i16, i32, i64, b = torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64, torch.bool
c64 = torch.complex64


class T:
    """A tensor argument: its shape and dtype (and for CPU, what to fill it with)."""

    def __init__(self, *shape, dtype=f32):
        self.shape, self.dtype = tuple(shape), dtype

    def make(self, device, name):
        if device == "meta":
            return torch.empty(self.shape, dtype=self.dtype, device="meta")
        if self.dtype.is_floating_point or self.dtype.is_complex:
            return torch.randn(self.shape).to(self.dtype)
        # indices at 0 are in range of any non-empty dim; other integers at 1 divide
        fill = 0 if name in ("index", "indices", "hx") else 1
        return torch.full(self.shape, fill, dtype=self.dtype)

    def enc(self):
        return "%s[%s]" % (dname(self.dtype), ",".join(str(d) for d in self.shape))


def dname(dt):
    return str(dt).replace("torch.", "")


def enc(v):
    if v is None:
        return "N"
    if isinstance(v, T):
        return "T:" + v.enc()
    if isinstance(v, bool):
        return "B:%d" % v
    if isinstance(v, int):
        return "I:%d" % v
    if isinstance(v, float):
        return "F:" + repr(v)
    if isinstance(v, complex):
        return "C:%r,%r" % (v.real, v.imag)
    if isinstance(v, str):
        assert " " not in v and "#" not in v
        return "S:" + v
    if isinstance(v, torch.dtype):
        return "D:" + dname(v)
    if isinstance(v, torch.memory_format):
        return "M:" + str(v).replace("torch.", "")
    if isinstance(v, torch.layout):
        return "Y:" + str(v).replace("torch.", "")
    if isinstance(v, torch.device):
        return "V:" + str(v)
    if isinstance(v, (list, tuple)):
        if any(isinstance(x, T) for x in v) or (v and all(x is None for x in v)):
            return "TL:[%s]" % ";".join("N" if x is None else x.enc() for x in v)
        if all(isinstance(x, bool) for x in v) and v:
            return "BL:[%s]" % ",".join(str(int(x)) for x in v)
        if all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            return "L:[%s]" % ",".join(str(x) for x in v)
        if all(isinstance(x, (int, float)) for x in v):
            return "FL:[%s]" % ",".join(repr(float(x)) for x in v)
    raise ValueError("cannot encode %r" % (v,))


def materialize(v, device, name):
    if isinstance(v, T):
        return v.make(device, name)
    if isinstance(v, list):
        return [materialize(x, device, name) for x in v]
    return v


def result(r):
    if isinstance(r, torch.Tensor):
        return ["%s[%s]" % (dname(r.dtype), ",".join(str(d) for d in r.shape))]
    if isinstance(r, (tuple, list)):
        return [x for y in r for x in result(y)]
    if isinstance(r, bool):
        raise ValueError("bool result")
    if isinstance(r, int):
        return ["I:%d" % r]
    raise ValueError("result %r" % (type(r),))


def run(op, bound, device):
    """(result, None) or (None, the exception torch raised)."""
    try:
        with torch.no_grad():
            return op(*[materialize(v, device, n) for n, v, k in bound if not k],
                      **{n: materialize(v, device, n) for n, v, k in bound if k}), None
    except Exception as e:
        return None, e


def cpu_gap(err, op, bound):
    """1 when the CPU kernel lacks what another backend has: a kernel at
    all, or a 16-bit float dtype the op takes as float32 (bitwise ops take
    neither).  A kernel refusing a dtype it computes in is torch's rule."""
    m = re.search(r"not implemented for '(\w+)'", str(err))
    if m:
        if m.group(1) not in ("Half", "BFloat16", "ComplexHalf"):
            return False
        wide = [(n, widen(v), k) for n, v, k in bound]
        _, e2 = run(op, wide, "cpu")
        return e2 is None or not re.search(r"not implemented for '(\w+)'", str(e2))
    return isinstance(err, NotImplementedError) or "does not have a CPU" in str(err)


def widen(v):
    if isinstance(v, T) and v.dtype in (f16, bf16):
        return T(*v.shape, dtype=f32)
    if isinstance(v, T) and v.dtype == torch.complex32:
        return T(*v.shape, dtype=c64)
    if isinstance(v, list):
        return [widen(x) for x in v]
    return v


# Results whose shape depends on the values: the rule must fail.
DATA_DEPENDENT = {("nonzero", ""), ("masked_select", ""), ("argwhere", ""), ("_unique", ""), ("_unique2", ""),
                  ("unique_consecutive", ""), ("unique_dim", ""), ("item", ""), ("_local_scalar_dense", ""),
                  ("Int", "Tensor"), ("Float", "Tensor"), ("ScalarImplicit", "")}


def kw_data_dependent(base, bound):
    vals = dict((n, v) for n, v, _ in bound)
    if base == "index":
        return any(isinstance(t, T) and t.dtype in (b, u8) for t in vals["indices"] if t is not None)
    if base == "repeat_interleave":
        return isinstance(vals.get("repeats", vals.get("self")), T) and vals.get("output_size") is None
    if base == "one_hot":
        return vals.get("num_classes", -1) == -1
    return False


C10_DTYPES = [u8, i8, i16, i32, i64, f16, f32, f64, torch.complex32, c64, torch.complex128, b, bf16]
LINES = []
SEEN = set()


def case(name, *args, **kw):
    """One call of aten::NAME (NAME is "base.overload"; "base" alone is .default)."""
    base, _, ov = name.partition(".")
    try:
        op = getattr(getattr(A, base), ov or "default")
    except (AttributeError, RuntimeError):
        print("skip %s: not in torch %s" % (name, torch.__version__), file=sys.stderr)
        return
    schema = op._schema
    bound, pos = [], list(args)
    for a in schema.arguments:
        if a.name in kw:
            v = kw.pop(a.name)
        elif pos and not a.kwarg_only:
            v = pos.pop(0)
        elif a.has_default_value():
            v = a.default_value
        else:        # another torch version's schema
            print("skip %s: no default for %s in torch %s" % (name, a.name, torch.__version__), file=sys.stderr)
            return
        if isinstance(v, int) and not isinstance(v, bool) and a.name == "dtype":
            v = C10_DTYPES[v]        # a schema default: c10's ScalarType number
        bound.append((a.name, v, a.kwarg_only))
    if pos or kw:
        print("skip %s: extra arguments %r %r in torch %s" % (name, pos, kw, torch.__version__), file=sys.stderr)
        return
    line = "aten.%s.%s %s ->" % (base, ov or "default", " ".join("%s=%s" % (n, enc(v)) for n, v, _ in bound))
    if line in SEEN:
        return
    SEEN.add(line)
    if (base, ov) in DATA_DEPENDENT or kw_data_dependent(base, bound):
        LINES.append(line + " error  # the result's shape depends on the data")
        return
    r, err = run(op, bound, "cpu")
    if err is not None and cpu_gap(err, op, bound):
        r, err = run(op, bound, "meta")        # a CPU kernel's gap, not torch's rule
    if err is None:
        try:
            out = " ".join(result(r))
        except ValueError:
            return
    else:
        msg = str(err).strip().splitlines()[0][:90] if str(err).strip() else type(err).__name__
        out = "error  # " + msg.replace("#", "")
    LINES.append(line + " " + out)


# ---- elementwise -----------------------------------------------------------
BIN_SHAPES = [((2, 3), (3,)), ((2, 1), (1, 4)), ((3,), (2, 3)), ((), (2,)), ((2, 3), (2, 3))]
DT_PAIRS = [(f32, f32), (i64, f32), (i32, i64), (f16, f32), (b, i64), (u8, i8), (bf16, f16), (f64, f32),
            (b, b), (i16, u8), (c64, f64)]
for op in ["add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor", "maximum", "minimum", "remainder.Tensor",
           "eq.Tensor", "ne.Tensor", "lt.Tensor", "le.Tensor", "gt.Tensor", "ge.Tensor", "pow.Tensor_Tensor",
           "atan2", "floor_divide", "fmod.Tensor", "logical_and", "logical_or", "bitwise_and.Tensor",
           "bitwise_or.Tensor", "bitwise_xor.Tensor", "__and__.Tensor", "hypot", "xlogy.Tensor", "copysign.Tensor",
           "fmax", "fmin", "logaddexp", "heaviside", "gcd", "max.other", "min.other"]:
    for x, y in BIN_SHAPES:
        case(op, T(*x), T(*y))
    for p, q in DT_PAIRS:
        case(op, T(2, 3, dtype=p), T(3, dtype=q))
    case(op, T(2, 3), T(4))
    case(op, T(2, 3, dtype=i32), T(dtype=f64))
    case(op, T(dtype=f64), T(2, dtype=i64))
for op, vals in [("add.Scalar", [2, 2.5, True]), ("mul.Scalar", [2, 0.5]), ("div.Scalar", [2, 0.5]),
                 ("sub.Scalar", [1, 1.5]), ("eq.Scalar", [1, 0.5]), ("gt.Scalar", [0, 0.5]), ("ge.Scalar", [0]),
                 ("ne.Scalar", [0]), ("lt.Scalar", [0.5]), ("le.Scalar", [3]), ("pow.Tensor_Scalar", [2, 0.5, -1]),
                 ("remainder.Scalar", [2, 1.5]), ("fmod.Scalar", [2]), ("rsub.Scalar", [1, 2.5]),
                 ("bitwise_and.Scalar", [1]), ("floor_divide.Scalar", [2])]:
    for v in vals:
        for dt in (f32, i64, i32, f16, b, u8):
            case(op, T(2, 3, dtype=dt), v)
for dt in (f32, i64, f16, c64):
    case("float_power.Tensor_Tensor", T(2, 3, dtype=dt), T(3))
    case("float_power.Tensor_Scalar", T(2, 3, dtype=dt), 2)
    case("float_power.Scalar", 2, T(3, dtype=dt))
    case("frexp.Tensor", T(2, 3, dtype=dt))
case("pow.Scalar", 2, T(3, dtype=i64))
case("pow.Scalar", 2.5, T(3, dtype=i64))
case("pow.Scalar", 2, T(3, dtype=f16))
for dt in (f32, i64, i32):
    for al in (1, 2, 0.5):
        case("add.Tensor", T(2, dtype=dt), T(2, dtype=dt), alpha=al)
        case("sub.Tensor", T(2, dtype=dt), T(2, dtype=i64), alpha=al)
for rm in (None, "trunc", "floor"):
    for dt in (f32, i64, i32, u8):
        case("div.Tensor_mode", T(2, 3, dtype=dt), T(3, dtype=dt), rounding_mode=rm)
        case("div.Scalar_mode", T(2, 3, dtype=dt), 2, rounding_mode=rm)
for op in ["neg", "abs", "sqrt", "rsqrt", "exp", "log", "log1p", "log2", "sin", "cos", "tan", "tanh", "sigmoid",
           "erf", "erfinv", "reciprocal", "floor", "ceil", "round", "trunc", "sign", "sgn", "square",
           "logical_not", "bitwise_not", "isnan", "isinf", "isfinite", "exp2", "expm1", "asin", "acos", "atan",
           "sinh", "cosh", "asinh", "acosh", "atanh", "frac", "lgamma", "angle", "signbit", "positive", "deg2rad",
           "sinc", "logit", "erfc", "log10", "isposinf", "isneginf"]:
    for dt in (f32, i64, b, f16, i32, u8, c64, bf16):
        case(op, T(2, 3, dtype=dt))
    case(op, T(dtype=f64))
for dt in (f32, i64, b, f16):
    case("i0", T(2, 3, dtype=dt))
    case("ldexp.Tensor", T(2, 3, dtype=dt), T(3, dtype=i64))
    case("isclose", T(2, 3, dtype=dt), T(3, dtype=dt))
for x, k in [((4,), 0), ((4,), 2), ((4,), -1), ((3, 5), 0), ((3, 5), 2), ((3, 5), -2), ((3, 5), 7), ((2, 3, 4), 0)]:
    for dt in (f32, i64, b):
        case("diag", T(*x, dtype=dt), k)
for x, ix, d in [((7, 3), [2, 5], 0), ((7, 3), [5, 2], 0), ((7, 3), [-2], 0), ((4, 6), [1, 9], 1), ((4, 6), [], 1)]:
    case("tensor_split.indices", T(*x), ix, d)
for x, n, d in [((7, 3), 3, 0), ((4, 6), 4, 1), ((2, 3), 5, 1), ((2, 3), 0, 0)]:
    case("tensor_split.sections", T(*x), n, d)
for op in ("grid_sampler", "grid_sampler_2d", "grid_sampler_3d"):
    for x, g in [((2, 3, 5, 6), (2, 4, 7, 2)), ((1, 2, 3, 4, 5), (1, 2, 3, 6, 3)), ((2, 3, 5, 6), (2, 4, 7, 3))]:
        case(op, T(*x), T(*g), 0, 0, False)
for nf, g in [(False, False), (True, True)]:
    case("_transformer_encoder_layer_fwd", T(2, 5, 8), 8, 2, T(24, 8), T(24), T(8, 8), T(8), g, nf, 1e-5,
         T(8), T(8), T(8), T(8), T(16, 8), T(16), T(8, 16), T(8), None, None)
for red in (0, 1, 2):
    case("nll_loss_nd", T(4, 3), T(4, dtype=i64), None, red)
    case("nll_loss_nd", T(2, 3, 5), T(2, 5, dtype=i64), None, red)
    case("nll_loss_nd", T(3), T(dtype=i64), None, red)
    case("cross_entropy_loss", T(4, 3), T(4, dtype=i64), None, red)
    case("cross_entropy_loss", T(2, 3, 5), T(2, 5, dtype=i64), None, red)
    case("cross_entropy_loss", T(2, 3, 5), T(2, 3, 5), None, red)
    case("cross_entropy_loss", T(3), T(3), None, red)
for dt in (f32, i64, b):
    case("where.self", T(2, 1, dtype=b), T(3, dtype=dt), T(2, 3))
    case("where.self", T(2, 1, dtype=b), T(3, dtype=dt), T(2, 3, dtype=i32))
    case("where.ScalarOther", T(2, 3, dtype=b), T(3, dtype=dt), 0.5)
    case("where.ScalarSelf", T(2, 3, dtype=b), 1, T(3, dtype=dt))
    case("where.Scalar", T(2, 3, dtype=b), 1, 0.5)
case("where.self", T(2, 3, dtype=b), T(4), T(2, 3))
for dt in (f32, i64, f16):
    case("masked_fill.Scalar", T(2, 3, dtype=dt), T(2, 3, dtype=b), 0.5)
    case("masked_fill.Scalar", T(2, 3, dtype=dt), T(3, dtype=b), float("-inf"))
    case("masked_fill.Scalar", T(1, 3, dtype=dt), T(2, 3, dtype=b), 1)
    case("masked_fill.Tensor", T(2, 3, dtype=dt), T(2, 1, dtype=b), T(dtype=f32))
    case("clamp", T(2, 3, dtype=dt), 0, 1)
    case("clamp", T(2, 3, dtype=dt), 0.5, None)
    case("clamp", T(2, 3, dtype=dt), None, None)
    case("clamp.Tensor", T(2, 3, dtype=dt), T(3), None)
    case("clamp_min", T(2, 3, dtype=dt), 0)
    case("clamp_max", T(2, 3, dtype=dt), 0.5)
    case("addcmul", T(2, 3, dtype=dt), T(3, dtype=dt), T(2, 1, dtype=dt), value=0.5)
    case("addcdiv", T(2, 3, dtype=dt), T(3, dtype=dt), T(2, 1, dtype=dt))
    case("lerp.Scalar", T(2, 3, dtype=dt), T(3, dtype=dt), 0.5)
    case("lerp.Tensor", T(2, 3, dtype=dt), T(3, dtype=dt), T(2, 1, dtype=dt))
    case("nan_to_num", T(2, 3, dtype=dt))
case("masked_fill.Scalar", T(2, 3), T(4, dtype=b), 0.5)
# in-place forms: the result is self, a promotion self cannot hold raises
for op in ["add_.Tensor", "mul_.Tensor", "div_.Tensor", "sub_.Tensor"]:
    case(op, T(2, 3), T(3))
    case(op, T(3), T(2, 3))
    case(op, T(2, 3, dtype=i64), T(3))
    case(op, T(2, 3, dtype=f16), T(3))
    case(op, T(2, 3), T(3, dtype=i64))
case("relu_", T(2, 3))
case("hardswish_", T(2, 3))
case("masked_fill_.Scalar", T(2, 3), T(2, 3, dtype=b), 0.0)
case("masked_fill_.Scalar", T(3), T(2, 3, dtype=b), 0.0)
case("add_.Scalar", T(2, dtype=i64), 1.5)
case("dropout_", T(2, 3), 0.1, False)

# ---- shaped like the input --------------------------------------------------
for op, extra in [("relu", ()), ("gelu", ()), ("silu", ()), ("hardswish", ()), ("hardsigmoid", ()),
                  ("elu", ()), ("leaky_relu", ()), ("hardtanh", ()), ("relu6", ()), ("mish", ()),
                  ("softplus", ()), ("log_sigmoid", ()), ("clone", ()), ("contiguous", ()), ("detach", ()),
                  ("alias", ()), ("dropout", (0.1, False)), ("feature_dropout", (0.1, False)),
                  ("alpha_dropout", (0.1, False)), ("triu", ()), ("tril", (-1,)), ("selu", ()), ("celu", ()),
                  ("threshold", (0.5, 0.0)), ("hardshrink", ()), ("softshrink", ()), ("fill.Scalar", (2,)),
                  ("zero", ()), ("bernoulli.p", (0.5,)), ("lift_fresh", ()), ("resolve_conj", ()), ("resolve_neg", ())]:
    for shape in ((2, 3), (4,), (), (2, 0, 3)):
        for dt in (f32, f16):
            case(op, T(*shape, dtype=dt), *extra)
    case(op, T(2, 3, dtype=i64), *extra)
case("gelu", T(2, 3), approximate="tanh")
case("fill.Tensor", T(2, 3), T(dtype=i64))
case("prelu", T(2, 3, 4), T(3))
case("native_dropout", T(2, 3), 0.5, False)
case("native_dropout", T(2, 3), 0.5, True)
for d in (0, 1, -1, 2, -3):
    for dt in (f32, i64, b, i32, f16):
        case("cumsum", T(2, 3, dtype=dt), d)
        case("cumprod", T(2, 3, dtype=dt), d)
    case("cumsum", T(2, 3, dtype=i32), d, dtype=f64)
    case("logcumsumexp", T(2, 3), d)
    case("cummax", T(2, 3), d)
    case("cummin", T(2, 3, dtype=i32), d)
    case("sort", T(2, 3), d)
    case("sort.stable", T(2, 3, dtype=i64), stable=True, dim=d)
    case("argsort", T(2, 3), d)
    case("flip", T(2, 3), [d])
    case("roll", T(2, 3), [1], [d])
case("cumsum", T(), 0)
case("cumsum", T(), -1)
case("flip", T(2, 3, 4), [0, 2])
case("roll", T(2, 3), [1, 2], [0, 1])
case("triu", T(3))
case("index_put", T(4, 3), [T(2, dtype=i64)], T(3))
case("index_fill.int_Scalar", T(4, 3), 0, T(2, dtype=i64), 1.0)
case("index_copy", T(4, 3), 0, T(2, dtype=i64), T(2, 3))
case("index_add", T(4, 3), 0, T(2, dtype=i64), T(2, 3))
case("scatter.src", T(4, 3), 1, T(2, 2, dtype=i64), T(2, 2))
case("scatter.value", T(4, 3), 1, T(2, 2, dtype=i64), 1.0)
case("scatter_add", T(4, 3), 0, T(2, 2, dtype=i64), T(2, 2))
case("scatter_reduce.two", T(4, 3), 0, T(2, 2, dtype=i64), T(2, 2), "sum")
case("masked_scatter", T(2, 3), T(2, 3, dtype=b), T(6))
case("copy", T(2, 3), T(3, dtype=i64))

# ---- reductions ----------------------------------------------------------------
RED_DIMS = [None, [1], [-1], [0, 1], [], [0, -1], [2], [1, 1], [-3]]
for op in ["sum.dim_IntList", "mean.dim", "amax", "amin", "nansum", "logsumexp", "any.dims", "nanmean",
           "std.correction", "var.correction", "var_mean.correction", "std_mean.correction", "count_nonzero.dim_IntList"]:
    for dims in RED_DIMS:
        if op in ("amax", "amin", "logsumexp") and dims is None:
            continue
        if op == "count_nonzero.dim_IntList" and dims is None:
            continue
        for keep in (False, True):
            kw = {} if op == "count_nonzero.dim_IntList" else {"keepdim": keep}
            if op == "count_nonzero.dim_IntList" and keep:
                continue
            case(op, T(2, 3), dims, **kw)
    for dt in (f32, i64, b, f16, i32, u8, bf16, c64):
        case(op, T(2, 3, dtype=dt), [1])
    case(op, T(), [0])
    case(op, T(), [])
    case(op, T(2, 0), [1])
    case(op, T(2, 0), [0])
for dt in (f32, i64, b, f16, i32):
    case("sum", T(2, 3, dtype=dt))
    case("sum", T(2, 3, dtype=dt), dtype=f64)
    case("sum.dim_IntList", T(2, 3, dtype=dt), [0], dtype=i32)
    case("prod", T(2, 3, dtype=dt))
    case("prod.dim_int", T(2, 3, dtype=dt), 1, True)
    case("mean", T(2, 3, dtype=dt))
    case("mean", T(2, 3, dtype=dt), dtype=f64)
    case("mean.dim", T(2, 3, dtype=dt), [1], dtype=f32)
    case("any", T(2, 3, dtype=dt))
    case("all", T(2, 3, dtype=dt))
    case("any.dim", T(2, 3, dtype=dt), 1)
    case("all.dim", T(2, 3, dtype=dt), 0, True)
    case("max", T(2, 3, dtype=dt))
    case("min", T(2, 3, dtype=dt))
    case("median", T(2, 3, dtype=dt))
    case("std", T(2, 3, dtype=dt))
    case("var.dim", T(2, 3, dtype=dt), [1])
    case("norm.Scalar", T(2, 3, dtype=dt))
    case("norm.ScalarOpt_dim", T(2, 3, dtype=dt), 2, [1], True)
    case("linalg_vector_norm", T(2, 3, dtype=dt), 2, [1])
    case("count_nonzero", T(2, 3, dtype=dt))
    case("aminmax", T(2, 3, dtype=dt))
    case("aminmax", T(2, 3, dtype=dt), dim=1, keepdim=True)
case("any", T(2, 3, dtype=u8))
case("all.dim", T(2, 3, dtype=u8), 1)
case("max", T(0))
case("amax", T(2, 0), [1])
case("amax", T(2, 0), [0])
case("aminmax", T(2, 0), dim=1)
for d in (0, 1, -1, 2, -2):
    for keep in (False, True):
        case("max.dim", T(2, 3), d, keep)
        case("min.dim", T(2, 3, dtype=i64), d, keep)
        case("argmax", T(2, 3), d, keep)
        case("argmin", T(2, 3, dtype=i32), d, keep)
        case("median.dim", T(2, 3), d, keep)
        case("nanmedian.dim", T(2, 3), d, keep)
        case("kthvalue", T(2, 3), 1, d, keep)
        case("mode", T(2, 3), d, keep)
    case("topk", T(2, 5), 2, d)
    case("topk", T(2, 5, dtype=i64), 6, d)
case("argmax", T(2, 3))
case("argmax", T(2, 3), None, True)
case("argmax", T())
case("argmax", T(), 0)
case("argmax", T(0))
case("argmax", T(2, 0), 1)
case("argmax", T(2, 0), 0)
case("max.dim", T(), 0)
case("max.dim", T(), 0, True)
case("max.dim", T(2, 0), 1)
case("max.dim", T(2, 0), 0)
case("topk", T(), 1)
case("topk", T(3), 0)

# ---- matrix products ---------------------------------------------------------
MM = [((2, 3), (3, 4)), ((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)),
      ((5, 2, 3), (5, 3, 4)), ((1, 2, 3), (5, 3, 4)), ((6, 1, 2, 3), (5, 3, 4)), ((3,), (5, 3, 4)),
      ((5, 2, 3), (3,)), ((2, 3), (4, 4)), ((), (3,)), ((2, 2, 3), (3, 3, 4)), ((0, 3), (3, 2))]
for x, y in MM:
    case("matmul", T(*x), T(*y))
case("matmul", T(2, 3, dtype=f16), T(3, 4, dtype=f16))
case("matmul", T(2, 3, dtype=i64), T(3, 4, dtype=i64))
case("matmul", T(2, 3), T(3, 4, dtype=f64))
for x, y in [((2, 3), (3, 4)), ((2, 3), (4, 4)), ((3,), (3, 4)), ((2, 2, 3), (3, 4))]:
    case("mm", T(*x), T(*y))
for x, y in [((5, 2, 3), (5, 3, 4)), ((5, 2, 3), (4, 3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (5, 4, 4))]:
    case("bmm", T(*x), T(*y))
for s in [(2, 4), (4,), (1, 4), (2, 1), (), (3, 4), (2, 4, 1)]:
    case("addmm", T(*s), T(2, 3), T(3, 4))
    case("addmm", T(*s), T(2, 3), T(3, 4), beta=0.5, alpha=2)
for s in [(5, 2, 4), (2, 4), (4,), (1, 1, 1), (3, 2, 4)]:
    case("baddbmm", T(*s), T(5, 2, 3), T(5, 3, 4))
case("addbmm", T(2, 4), T(5, 2, 3), T(5, 3, 4))
case("addmv", T(2), T(2, 3), T(3))
case("addmv", T(), T(2, 3), T(3))
case("addr", T(2, 3), T(2), T(3))
case("mv", T(2, 3), T(3))
case("mv", T(2, 3), T(4))
case("dot", T(3), T(3))
case("dot", T(3), T(4))
case("dot", T(3), T(3, dtype=f64))
case("vdot", T(3), T(3))
case("outer", T(2), T(3))
case("ger", T(2), T(3))
for x, w, bias in [((2, 3), (4, 3), (4,)), ((5, 2, 3), (4, 3), None), ((3,), (4, 3), (4,)), ((2, 3), (3,), None),
                   ((2, 3), (4, 5), None), ((2, 3), (4, 3), (5,)), ((2, 3), (4, 3), (2, 4)), ((2, 3), (4, 3), ()),
                   ((2, 7, 3), (4, 3), (1, 4))]:
    case("linear", T(*x), T(*w), None if bias is None else T(*bias))
case("linear", T(2, 3, dtype=f16), T(4, 3, dtype=f16), T(4, dtype=f16))
case("linear", T(2, 3), T(4, 3, dtype=f64))

# ---- convolution, pooling ------------------------------------------------------
for x, w, st, pd, dl, g in [((1, 3, 8, 8), (4, 3, 3, 3), [1, 1], [0, 0], [1, 1], 1),
                            ((2, 3, 8, 9), (4, 3, 3, 3), [2, 2], [1, 1], [1, 1], 1),
                            ((2, 4, 8, 8), (4, 1, 3, 3), [1, 2], [1, 0], [2, 1], 4),
                            ((3, 8, 8), (4, 3, 3, 3), [1, 1], [0, 0], [1, 1], 1),
                            ((1, 3, 8, 8), (4, 3, 5, 1), [3, 1], [2, 0], [1, 1], 1),
                            ((1, 3, 2, 2), (4, 3, 3, 3), [1, 1], [0, 0], [1, 1], 1),
                            ((1, 2, 8, 8), (4, 3, 3, 3), [1, 1], [0, 0], [1, 1], 1),
                            ((1, 6, 8, 8), (4, 3, 3, 3), [1, 1], [0, 0], [1, 1], 2),
                            ((1, 3, 8, 8), (4, 3, 3, 3), [1], [1], [1], 1),
                            ((1, 3, 8, 8), (4, 3, 3, 3), [1, 1], [0, 0], [1, 1], 1)]:
    case("conv2d", T(*x), T(*w), T(w[0]), st, pd, dl, g)
    case("convolution", T(*x), T(*w), None, st, pd, dl, False, [0, 0], g)
case("conv2d", T(1, 3, 8, 8), T(4, 3, 3, 3), T(5))
case("conv2d", T(1, 3, 8, 8, dtype=f16), T(4, 3, 3, 3, dtype=f16))
case("conv2d", T(1, 3, 8, 8), T(4, 3, 3, 3, dtype=f64))
case("conv2d.padding", T(1, 3, 8, 8), T(4, 3, 3, 3), None, [1, 1], "same")
case("conv2d.padding", T(1, 3, 8, 8), T(4, 3, 3, 2), None, [1, 1], "same")
case("conv2d.padding", T(1, 3, 8, 8), T(4, 3, 3, 3), None, [1, 1], "valid")
case("conv2d.padding", T(1, 3, 8, 8), T(4, 3, 3, 3), None, [2, 2], "same")
case("conv1d", T(2, 3, 10), T(4, 3, 3), None, [2], [1])
case("conv1d", T(3, 10), T(4, 3, 3))
case("conv3d", T(1, 2, 5, 6, 7), T(3, 2, 3, 3, 3), None, [1, 2, 1], [1, 0, 1])
case("conv_transpose2d.input", T(1, 4, 5, 5), T(4, 3, 3, 3), None, [2, 2], [1, 1], [1, 1])
case("conv_transpose2d.input", T(1, 4, 5, 5), T(4, 2, 3, 3), None, [1, 1], [0, 0], [0, 0], 2)
case("conv_transpose1d", T(1, 4, 5), T(4, 3, 3), None, [3], [0], [2], 1, [2])
case("convolution", T(1, 4, 5, 5), T(4, 3, 3, 3), None, [2, 2], [1, 1], [1, 1], True, [1, 1], 1)
case("_convolution", T(1, 3, 8, 8), T(4, 3, 3, 3), T(4), [1, 1], [1, 1], [1, 1], False, [0, 0], 1, False, False,
     True, True)
case("_convolution", T(1, 4, 5, 5), T(4, 3, 3, 3), None, [2, 2], [1, 1], [1, 1], True, [1, 1], 1, False, False,
     True, True)
for x, k, s, p, d, cm in [((1, 3, 8, 8), [2, 2], [], [0, 0], [1, 1], False), ((1, 3, 9, 9), [3, 3], [2, 2], [1, 1], [1, 1], False),
                          ((1, 3, 9, 9), [3, 3], [2, 2], [1, 1], [1, 1], True), ((1, 3, 8, 8), [3, 3], [2, 2], [0, 0], [1, 1], True),
                          ((3, 10, 7), [2, 3], [2, 1], [1, 0], [2, 1], False), ((1, 3, 5, 5), [3, 3], [3, 3], [1, 1], [1, 1], True),
                          ((1, 3, 8, 8), [3], [], [0], [1], False), ((1, 3, 8, 8), [3, 3], [1, 1], [2, 2], [1, 1], False),
                          ((1, 3, 2, 2), [3, 3], [1, 1], [0, 0], [1, 1], False), ((1, 3, 6, 6), [2, 2], [4, 4], [1, 1], [1, 1], True)]:
    case("max_pool2d", T(*x), k, s, p, d, cm)
    case("max_pool2d_with_indices", T(*x), k, s, p, d, cm)
    case("avg_pool2d", T(*x), k, s, p, cm)
case("max_pool1d", T(1, 3, 10), [3], [2], [1])
case("max_pool3d", T(1, 3, 4, 6, 8), [2, 2, 2])
case("avg_pool1d", T(1, 3, 10), [3], [2], [1], True)
case("avg_pool3d", T(1, 3, 4, 6, 8), [2, 2, 2], [1, 2, 2])
case("max_pool2d", T(1, 3, 8, 8, dtype=f16), [2, 2])
for x, o in [((1, 3, 8, 8), [1, 1]), ((2, 3, 7, 5), [3, 2]), ((3, 8, 8), [4, 4]), ((1, 3, 8, 8), [1]),
             ((1, 3, 8, 8), [10, 12])]:
    case("adaptive_avg_pool2d", T(*x), o)
    case("_adaptive_avg_pool2d", T(*x), o)
    case("adaptive_max_pool2d", T(*x), o)
case("adaptive_avg_pool1d", T(1, 3, 8), [2])
case("adaptive_avg_pool3d", T(1, 3, 4, 4, 4), [2, 1, 2])
case("adaptive_max_pool1d", T(1, 3, 8), [2])

# ---- views and shape changes ---------------------------------------------------
for x, s in [((2, 3, 4), [6, 4]), ((2, 3, 4), [-1]), ((2, 3, 4), [2, -1]), ((2, 3, 4), [-1, 2, 2]), ((2, 3, 4), [5, -1]),
             ((2, 3, 4), [-1, -1]), ((2, 3, 4), [24, 1]), ((2, 3, 4), [7, 3]), ((), [1]), ((), [-1]), ((1,), []),
             ((0, 3), [-1, 3]), ((0, 3), [0, -1]), ((2, 3), [-2, 3]), ((4,), [1, 1, 4, 1])]:
    case("view", T(*x), s)
    case("reshape", T(*x), s)
    case("_unsafe_view", T(*x), s)
case("view_as", T(2, 3), T(3, 2))
case("view_as", T(2, 3), T(3, 3))
case("reshape_as", T(2, 3), T(6))
for x, s in [((3, 1), [3, 4]), ((3, 1), [-1, 4]), ((3, 1), [2, 3, 4]), ((3,), [2, 3]), ((3, 1), [3]), ((3, 2), [3, 4]),
             ((3, 1), [-1, 3, 4]), ((), [2, 2]), ((1,), [0]), ((3, 1), [3, -1]), ((2, 1), [1, 2, 5])]:
    case("expand", T(*x), s)
    case("broadcast_to", T(*x), s)
    case("expand_copy", T(*x), s)
case("expand_as", T(3, 1), T(2, 3, 4))
case("expand_as", T(3, 2), T(3, 4))
for x, a, e in [((2, 3, 4), 0, -1), ((2, 3, 4), 1, 2), ((2, 3, 4), 1, -1), ((2, 3, 4), 2, 1), ((), 0, -1), ((2, 3, 4), -2, -1),
                ((2, 3, 4), 0, 0), ((2, 3, 4), 3, 3), ((5,), 0, 0)]:
    case("flatten.using_ints", T(*x), a, e)
for x, d, s in [((2, 12), 1, [3, 4]), ((2, 12), -1, [-1, 4]), ((2, 12), 0, [2, 1]), ((2, 12), 1, [5, -1]),
                ((2, 12), 1, [-1, -1]), ((2, 12), 2, [1]), ((6,), 0, [2, 3])]:
    case("unflatten.int", T(*x), d, s)
for x in [(2, 1, 3, 1), (1,), (), (1, 1)]:
    case("squeeze", T(*x))
    for d in (0, 1, -1, 3, 4):
        case("squeeze.dim", T(*x), d)
    case("squeeze.dims", T(*x), [0, -1])
    case("squeeze.dims", T(*x), [])
    for d in (0, 1, -1, 2, -5, 5):
        case("unsqueeze", T(*x), d)
for x, p in [((2, 3, 4), [2, 0, 1]), ((2, 3, 4), [-1, 0, 1]), ((2, 3, 4), [0, 1]), ((2, 3, 4), [0, 0, 1]), ((), []),
             ((2, 3, 4), [0, 1, 3])]:
    case("permute", T(*x), p)
for x, a, c in [((2, 3, 4), 0, 2), ((2, 3, 4), -1, -2), ((2, 3, 4), 1, 1), ((2, 3, 4), 0, 3), ((), 0, -1), ((3,), 0, 0)]:
    case("transpose.int", T(*x), a, c)
    case("swapaxes", T(*x), a, c)
    case("swapdims", T(*x), a, c)
for x in [(2, 3), (3,), (), (2, 3, 4)]:
    case("t", T(*x))
    case("numpy_T", T(*x))
for x, s, d in [((2, 3, 4), [0], [2]), ((2, 3, 4), [0, 1], [2, 0]), ((2, 3, 4), [-1], [0]), ((2, 3, 4), [0, 0], [1, 2]),
                ((2, 3, 4), [0], [1, 2])]:
    case("movedim.intlist", T(*x), s, d)
case("movedim.int", T(2, 3, 4), 0, -1)
case("moveaxis.int", T(2, 3, 4), 2, 0)
for x, r in [((2, 3), [2, 2]), ((2, 3), [1, 2, 3]), ((2, 3), [2]), ((), [3]), ((2, 3), [0, 1]), ((3,), [2, 1, 1])]:
    case("repeat", T(*x), r)
    case("tile", T(*x), r)

# ---- joins and splits ------------------------------------------------------------
for ts, d in [([(2, 3), (4, 3)], 0), ([(2, 3), (2, 5)], 1), ([(2, 3), (2, 5)], -1), ([(2, 3), (3, 3)], 1),
              ([(2, 3), (0,)], 1), ([(0,), (2, 3)], 0), ([(2, 3)], 2), ([(2, 3), (2, 3, 1)], 0), ([(), ()], 0),
              ([(0,), (0,)], 0), ([(2, 3), (4, 3), (1, 3)], -2)]:
    case("cat", [T(*s) for s in ts], d)
    case("concat", [T(*s) for s in ts], d)
    case("stack", [T(*s) for s in ts], d)
case("cat", [T(2, 3), T(4, 3, dtype=i64)], 0)
case("cat", [T(2, 3, dtype=i32), T(4, 3, dtype=i64)], 0)
case("cat", [T(2, 3, dtype=f16), T(4, 3, dtype=bf16)], 0)
case("cat", [T(2, 3, dtype=b), T(1, 3, dtype=u8)], 0)
case("stack", [T(2, 3, dtype=i32), T(2, 3, dtype=f64)], 0)
case("stack", [T(2, 3), T(2, 3)], 2)
case("stack", [T(2, 3), T(2, 3)], -3)
case("stack", [T(2, 3), T(2, 3)], 3)
for x, s, d in [((5, 2), 2, 0), ((5, 2), 5, 0), ((5, 2), 1, 1), ((5, 2), 3, -2), ((6, 2), 2, 0), ((5, 2), 7, 0),
                ((0, 2), 2, 0), ((5, 2), 0, 0), ((0, 2), 0, 0), ((5, 2), 2, 2)]:
    case("split.Tensor", T(*x), s, d)
    case("unsafe_split.Tensor", T(*x), s, d)
for x, c, d in [((5, 2), 2, 0), ((5, 2), 5, 0), ((6, 2), 4, 0), ((5, 2), 3, 1), ((5, 2), 1, -1), ((5, 2), 0, 0),
                ((0, 2), 2, 0), ((7, 2), 3, 0), ((5, 2), 10, 0), ((), 1, 0)]:
    case("chunk", T(*x), c, d)
for x, s, d in [((5, 2), [2, 3], 0), ((5, 2), [5], 0), ((5, 2), [1, 1], 1), ((5, 2), [2, 2], 0), ((5, 2), [0, 5], 0),
                ((5, 2), [6, -1], 0), ((5, 2), [2, 3], -2)]:
    case("split_with_sizes", T(*x), s, d)
    case("split.sizes", T(*x), s, d)
for x, d in [((3, 2), 0), ((3, 2), 1), ((3, 2), -1), ((3, 2), 2), ((0, 2), 0), ((4,), 0), ((), 0)]:
    case("unbind.int", T(*x), d)

# ---- indexing ----------------------------------------------------------------------
for x, d, i in [((4, 3), 0, 1), ((4, 3), 1, -1), ((4, 3), -1, 2), ((4, 3), 0, 4), ((4, 3), 0, -5), ((4, 3), 2, 0),
                ((), 0, 0), ((4,), 0, 3)]:
    case("select.int", T(*x), d, i)
for x, d, s, e, st in [((5, 3), 0, 1, 3, 1), ((5, 3), 0, None, None, 1), ((5, 3), 0, -2, None, 1), ((5, 3), 1, 0, 10, 1),
                       ((5, 3), 0, 1, 9223372036854775807, 2), ((5, 3), 0, 3, 1, 1), ((5, 3), -1, -10, 2, 1),
                       ((5, 3), 0, 0, -1, 1), ((5, 3), 0, 0, 5, 3), ((5, 3), 0, 1, 4, 0), ((5, 3), 2, 0, 1, 1),
                       ((0, 3), 0, 0, 2, 1), ((5, 3), 0, 6, 8, 1), ((5, 3), 0, -1, -2, 1)]:
    case("slice.Tensor", T(*x), d, s, e, st)
for x, d, s, l in [((5, 3), 0, 1, 3), ((5, 3), 1, -2, 2), ((5, 3), 0, 4, 2), ((5, 3), 0, 5, 0), ((5, 3), 0, -6, 1),
                   ((5, 3), 0, 0, -1), ((5, 3), 3, 0, 1)]:
    case("narrow", T(*x), d, s, l)
for x, d, i in [((5, 3), 0, (4,)), ((5, 3), 1, (2,)), ((5, 3), -1, ()), ((5, 3), 0, (2, 2)), ((), 0, (1,)), ((5, 3), 2, (2,)),
                ((), 0, ())]:
    case("index_select", T(*x), d, T(*i, dtype=i64))
case("index_select", T(5, 3), 0, T(4, dtype=i32))
case("index_select", T(5, 3), 0, T(4))
for x, d, i in [((5, 3), 0, (2, 3)), ((5, 3), 1, (5, 2)), ((5, 3), -1, (1, 1)), ((5, 3), 0, (6, 3)), ((5, 3), 0, (2,)),
                ((5, 3), 1, (2, 4)), ((4,), 0, (3,)), ((), 0, ())]:
    case("gather", T(*x), d, T(*i, dtype=i64))
case("gather", T(5, 3), 0, T(2, 3, dtype=i32))
for w, i, dt in [((10, 4), (2, 3), i64), ((10, 4), (5,), i64), ((10, 4), (), i64), ((10, 4), (2, 3), i32),
                 ((10, 4), (2,), f32), ((10,), (2,), i64)]:
    case("embedding", T(*w), T(*i, dtype=dt))
case("embedding", T(10, 4, dtype=f16), T(2, 3, dtype=i64), 0)
for x, idx in [((5, 4, 3), [(2,)]), ((5, 4, 3), [None, (2, 2)]), ((5, 4, 3), [(2, 1), (3,)]), ((5, 4, 3), [(2,), None, (2,)]),
               ((5, 4, 3), [None, (2,), (2,)]), ((5, 4, 3), [None, None, (6,)]), ((5, 4, 3), [(2,), (3,)]),
               ((5, 4, 3), [(), None]), ((5,), [(2, 2)]), ((5, 4, 3), [(1,), (1,), (1,), (1,)]), ((5, 4), [None, None])]:
    case("index.Tensor", T(*x), [None if s is None else T(*s, dtype=i64) for s in idx])
case("index.Tensor", T(5, 4), [T(2, dtype=i32)])
case("index.Tensor", T(5, 4), [T(2)])
case("nonzero", T(3, 4))
case("masked_select", T(3, 4), T(3, 4, dtype=b))
case("index.Tensor", T(5, 4), [T(5, dtype=b)])

# ---- factories, conversions ---------------------------------------------------------
for op in ["zeros", "ones", "empty.memory_format", "rand", "randn"]:
    case(op, [2, 3])
    case(op, [2, 3], dtype=i64)
    case(op, [], dtype=f16)
    case(op, [0, 4])
    case(op, [2, -1])
case("full", [2, 3], 1.5)
case("full", [2, 3], 2)
case("full", [2, 3], True)
case("full", [2, 3], 2, dtype=f16)
case("full", [2, -3], 2)
case("empty_strided", [2, 3], [3, 1])
case("randint", 10, [2, 3])
case("randint.low", 2, 10, [4])
case("randint", 10, [2], dtype=f32)
for op in ["zeros_like", "ones_like", "empty_like", "rand_like", "randn_like"]:
    case(op, T(2, 3))
    case(op, T(2, 3, dtype=i64))
    case(op, T(2, 3), dtype=f64)
case("randint_like", T(2, 3, dtype=i32), 5)
case("full_like", T(2, 3, dtype=i64), 1.5)
case("full_like", T(2, 3), 2, dtype=i32)
for op in ["new_zeros", "new_ones", "new_empty"]:
    case(op, T(2, 3, dtype=i64), [4])
    case(op, T(2, 3), [4, 5], dtype=f16)
case("new_full", T(2, dtype=i32), [3], 1.5)
case("new_full", T(2, dtype=i32), [3], 1, dtype=f32)
for args in [(5,), (5.0,), (2.5,), (0,), (-3,)]:
    case("arange", *args)
    case("arange", *args, dtype=f32)
for args in [(1, 5), (1, 5.5), (5, 1), (0.0, 1.0), (-4, 4)]:
    case("arange.start", *args)
for args in [(0, 10, 3), (10, 0, -3), (0, 1, 0.25), (0, 10, 0), (0, 10, -1), (1.0, 2.0, 0.3), (0, 0, 1)]:
    case("arange.start_step", *args)
case("arange.start_step", 0, 10, 3, dtype=f64)
for w in ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]:
    case(w, 8)
    case(w, 0)
    case(w + ".periodic", 5, False, dtype=f64)
    case(w, 4, dtype=i64)
case("hamming_window.periodic_alpha", 6, True, 0.5)
case("hamming_window.periodic_alpha_beta", 6, True, 0.5, 0.4)
case("kaiser_window.beta", 6, True, 10.0)
for x in [(2, 3), (5,), ()]:
    case("bucketize.Tensor", T(*x), T(4))
    case("bucketize.Tensor", T(*x, dtype=i64), T(4, dtype=i64), out_int32=True)
    case("searchsorted.Tensor", T(6), T(*x))
    case("searchsorted.Tensor", T(6, dtype=i64), T(*x, dtype=i64), out_int32=True, right=True)
case("searchsorted.Tensor", T(2, 6), T(2, 3))
case("_weight_norm", T(4, 3), T(4, 1), 0)
case("_weight_norm", T(4, 3, 2), T(1, 1, 2), 2)
case("_weight_norm", T(4, 3, dtype=f64), T(4, 1, dtype=f64), 0)
case("linspace", 0, 1, 5)
case("linspace", 0, 1, 0)
case("linspace", 0, 10, 3, dtype=i64)
case("logspace", 0, 1, 4)
case("eye", 3)
case("eye.m", 2, 4)
case("eye", 3, dtype=i64)
case("eye", -1)
case("scalar_tensor", 2.5)
case("scalar_tensor", 2, dtype=i64)
case("randperm", 5)
for dt in (f32, i64, b, f16):
    case("to.dtype", T(2, 3), dt)
    case("to.dtype", T(2, 3, dtype=i64), dt, False, True)
    case("_to_copy", T(2, 3), dtype=dt)
    case("to.other", T(2, 3), T(1, dtype=dt))
    case("type_as", T(2, 3, dtype=i32), T(dtype=dt))
    case("to.dtype_layout", T(2, 3), dtype=dt)
case("_to_copy", T(2, 3, dtype=i64))
case("to.dtype_layout", T(2, 3, dtype=i64))
case("to.device", T(2, 3), torch.device("cpu"), f16)
for d in (0, 1, -1, 2):
    for dt in (f32, f16, bf16):
        case("softmax.int", T(2, 3, dtype=dt), d)
        case("log_softmax.int", T(2, 3, dtype=dt), d, dtype=f32)
        case("_softmax", T(2, 3, dtype=dt), d, False)
        case("_log_softmax", T(2, 3, dtype=dt), d, False)
case("softmax.int", T(2, 3, dtype=i64), 1)
case("softmax.int", T(2, 3, dtype=i64), 1, dtype=f32)
case("softmax.int", T(2, 3), 1, dtype=f64)
case("softmax.int", T(), 0)

# ---- normalization, attention, recurrent --------------------------------------------
for x, ns, w in [((2, 3, 4), [4], (4,)), ((2, 3, 4), [3, 4], (3, 4)), ((2, 3, 4), [3], (3,)), ((4,), [4], None),
                 ((2, 3, 4), [2, 3, 4], None), ((2, 3, 4), [5, 2, 3, 4], None), ((2, 3, 4), [4], (5,))]:
    wt = None if w is None else T(*w)
    case("layer_norm", T(*x), ns, wt, wt)
    case("native_layer_norm", T(*x), ns, wt, wt, 1e-5)
case("layer_norm", T(2, 3, 4, dtype=f16), [4], T(4, dtype=f16), T(4, dtype=f16))
case("native_layer_norm", T(2, 3, 4, dtype=bf16), [4], None, None, 1e-5)
case("rms_norm", T(2, 3, 4), [4], T(4))
case("rms_norm", T(2, 3, 4), [3, 4], None)
for x in [(2, 3, 5, 5), (2, 3), (2, 3, 7), (1, 3, 2, 2, 2)]:
    c = T(3)
    case("batch_norm", T(*x), c, c, c, c, False, 0.1, 1e-5, True)
    case("native_batch_norm", T(*x), c, c, c, c, False, 0.1, 1e-5)
    case("_native_batch_norm_legit_no_training", T(*x), c, c, c, c, 0.1, 1e-5)
    case("instance_norm", T(*x), c, c, None, None, True, 0.1, 1e-5, True)
case("batch_norm", T(2, 4, 5, 5), T(3), T(3), T(3), T(3), False, 0.1, 1e-5, True)
case("batch_norm", T(3), T(3), T(3), T(3), T(3), False, 0.1, 1e-5, True)
case("native_batch_norm", T(2, 3, 5, dtype=f16), None, None, T(3), T(3), False, 0.1, 1e-5)
case("group_norm", T(2, 6, 5), 3, T(6), T(6))
case("group_norm", T(2, 6, 5, 5), 4, None, None)
case("native_group_norm", T(2, 6, 5), T(6), T(6), 2, 6, 5, 3, 1e-5)
for q, k, v, m, causal in [((2, 4, 5, 8), (2, 4, 7, 8), (2, 4, 7, 6), None, False),
                           ((2, 4, 5, 8), (2, 4, 5, 8), (2, 4, 5, 8), None, True),
                           ((2, 4, 5, 8), (2, 4, 7, 8), (2, 4, 7, 8), ((5, 7), b), False),
                           ((2, 4, 5, 8), (2, 4, 7, 8), (2, 4, 7, 8), ((2, 1, 5, 7), f32), False),
                           ((4, 5, 8), (4, 7, 8), (4, 7, 3), None, False),
                           ((2, 4, 5, 8), (2, 4, 7, 6), (2, 4, 7, 8), None, False)]:
    case("scaled_dot_product_attention", T(*q), T(*k), T(*v), None if m is None else T(*m[0], dtype=m[1]), 0.0,
         causal)
case("scaled_dot_product_attention", T(2, 4, 5, 8, dtype=f16), T(2, 4, 7, 8, dtype=f16), T(2, 4, 7, 8, dtype=f16))
case("scaled_dot_product_attention", T(2, 4, 5, 8), T(2, 4, 7, 8, dtype=f16), T(2, 4, 7, 8))
case("scaled_dot_product_attention", T(2, 4, 5, 8), T(2, 4, 7, 8), T(2, 4, 7, 8), T(5, 7, dtype=i64))
case("scaled_dot_product_attention", T(2, 4, 5, 8), T(2, 4, 7, 8), T(2, 4, 7, 8), scale=0.5)


def rnn_params(kind, isz, h, layers, bidir, bias=True):
    g = {"lstm": 4, "gru": 3, "rnn": 1}[kind]
    ps = []
    for layer in range(layers):
        for _ in range(2 if bidir else 1):
            i = isz if layer == 0 else h * (2 if bidir else 1)
            ps += [T(g * h, i), T(g * h, h)]
            if bias:
                ps += [T(g * h), T(g * h)]
    return ps


for isz, h, layers, bidir, bf, x in [(8, 12, 1, False, False, (5, 2, 8)), (8, 12, 2, True, True, (2, 5, 8)),
                                     (8, 12, 1, True, False, (5, 8)), (8, 12, 2, False, False, (5, 2, 8)),
                                     ]:
    d = 2 if bidir else 1
    hs = (d * layers, x[0 if bf else 1], h) if len(x) == 3 else (d * layers, h)
    case("lstm.input", T(*x), [T(*hs), T(*hs)], rnn_params("lstm", isz, h, layers, bidir), True, layers, 0.0, False,
         bidir, bf)
    case("gru.input", T(*x), T(*hs), rnn_params("gru", isz, h, layers, bidir), True, layers, 0.0, False, bidir, bf)
    case("rnn_tanh.input", T(*x), T(*hs), rnn_params("rnn", isz, h, layers, bidir), True, layers, 0.0, False, bidir,
         bf)
case("gru.input", T(5, 2, 8), T(2, 2, 12), rnn_params("gru", 8, 12, 1, False), True, 1, 0.0, False, False, False)
case("lstm.input", T(5, 2, 8), [T(1, 2, 12), T(1, 2, 12)], rnn_params("lstm", 8, 12, 1, False, False), False, 1, 0.0,
     False, False, False)

# ---- padding, resizing, other shapes ---------------------------------------------------
for x, p in [((2, 3, 4), [1, 2]), ((2, 3, 4), [1, 1, 2, 2]), ((2, 3, 4), [-1, 0]), ((2, 3, 4), [1]), ((2, 3, 4), [0] * 8),
             ((2, 3, 4), [-3, -2]), ((2, 3, 4), [0, 0, 0, 0, 1, 1])]:
    case("constant_pad_nd", T(*x), p, 0.5)
    case("pad", T(*x), p)
case("pad", T(1, 2, 5), [2, 1], "reflect")
case("reflection_pad1d", T(1, 2, 5), [2, 1])
case("reflection_pad2d", T(1, 2, 5, 5), [2, 1, 0, 3])
case("replication_pad2d", T(1, 2, 5, 5), [1, 1, 1, 1])
case("replication_pad1d", T(2, 5), [1, 3])
for x, n in [((3,), 5), ((2, 3), 4), ((), 3)]:
    case("one_hot", T(*x, dtype=i64), n)
case("one_hot", T(3, dtype=i32), 5)
case("one_hot", T(3, dtype=i64))
case("upsample_nearest2d.vec", T(1, 3, 4, 5), [8, 10], None)
case("upsample_nearest2d.vec", T(1, 3, 4, 5), None, [2.0, 3.0])
case("upsample_nearest2d.vec", T(1, 3, 4, 5), None, [1.5, 1.5])
case("upsample_bilinear2d.vec", T(1, 3, 4, 5), None, True, [2.0, 2.0])
case("upsample_bilinear2d.vec", T(1, 3, 4, 5), [3, 3], False, None)
case("upsample_nearest2d", T(1, 3, 4, 5), [8, 10])
case("upsample_nearest1d.vec", T(1, 3, 4), None, [2.0])
case("upsample_bicubic2d.vec", T(1, 3, 4, 5), [6, 7], False, None)
for x, n, d, pre, app in [((5,), 1, -1, None, None), ((5, 4), 2, 0, None, None), ((5, 4), 1, 1, (5, 2), (5, 1)),
                          ((5,), 7, 0, None, None), ((), 1, 0, None, None), ((5,), 1, 0, (), None)]:
    case("diff", T(*x), n, d, None if pre is None else T(*pre), None if app is None else T(*app))
for x, d in [((4, 6), -1), ((4, 6), 0), ((3, 5), 1), ((4,), 0)]:
    case("glu", T(*x), d)

# ---- Python ints ---------------------------------------------------------------------
for x, d in [((2, 3), 0), ((2, 3), -1), ((2, 3), 2), ((), 0)]:
    case("size.int", T(*x), d)
    case("sym_size.int", T(*x), d)
case("numel", T(2, 3, 4))
case("numel", T())
case("dim", T(2, 3, 4))
case("dim", T())
case("sym_numel", T(2, 3))
for op in ["add.int", "sub.int", "mul.int", "floordiv.int", "remainder.int"]:
    for a, c in [(7, 2), (-7, 2), (7, -2), (3, 3)]:
        case(op, a, c)
case("neg.int", 5)

# ---- aliases and rarer forms: every meta.def row has a case ------------------------
for op in ["absolute", "negative", "rad2deg"]:
    for dt in (f32, i64, b):
        case(op, T(2, 3, dtype=dt))
for op in ["divide.Tensor", "true_divide.Tensor", "multiply.Tensor", "subtract.Tensor", "greater.Tensor",
           "greater_equal.Tensor", "less.Tensor", "less_equal.Tensor", "not_equal.Tensor", "logical_xor",
           "bitwise_left_shift.Tensor", "bitwise_right_shift.Tensor", "__lshift__.Tensor", "__rshift__.Tensor",
           "__or__.Tensor", "__xor__.Tensor", "lcm"]:
    for p, q in [(f32, f32), (i64, i32), (b, b), (u8, i64)]:
        case(op, T(2, 3, dtype=p), T(3, dtype=q))
    case(op, T(2, 3), T(4))
case("clip", T(2, 3), 0, 1)
case("clip", T(2, 3, dtype=i64), 0.5, None)
case("feature_alpha_dropout", T(2, 3, 4), 0.1, False)
case("lift_fresh_copy", T(2, 3))
case("nanmedian", T(2, 3))
case("nanmedian", T(0))
case("_adaptive_avg_pool3d", T(1, 3, 4, 4, 4), [2, 2, 1])
case("adaptive_max_pool3d", T(1, 3, 4, 4, 4), [2, 2, 1])
case("conv_transpose3d.input", T(1, 4, 3, 3, 3), T(4, 2, 2, 2, 2), None, [2, 2, 2])
case("max_pool1d_with_indices", T(1, 3, 10), [3], [2], [1])
case("max_pool3d_with_indices", T(1, 3, 4, 6, 8), [2, 2, 2])
case("_reshape_alias", T(2, 3, 4), [6, 4], [4, 1])
case("concatenate", [T(2, 3), T(1, 3)], 0)
case("unsafe_chunk", T(5, 2), 2, 0)
case("unsafe_split_with_sizes", T(5, 2), [2, 3], 0)
for op in ["_local_scalar_dense", "item", "argwhere", "unique_consecutive", "Int.Tensor", "Float.Tensor",
           "ScalarImplicit"]:
    case(op, T(1))
case("_unique", T(3))
case("_unique2", T(3))
case("unique_dim", T(3, 2), 0)
case("_native_batch_norm_legit", T(2, 3, 5), T(3), T(3), T(3), T(3), True, 0.1, 1e-5)
case("_native_batch_norm_legit", T(2, 3, 5), T(3), T(3), T(3), T(3), False, 0.1, 1e-5)
for need, avg in [(True, True), (True, False), (False, True)]:
    case("_native_multi_head_attention", T(2, 5, 8), T(2, 5, 8), T(2, 5, 8), 8, 2, T(24, 8), T(24), T(8, 8), T(8),
         None, need, avg)
case("_native_multi_head_attention", T(2, 5, 8), T(2, 7, 8), T(2, 7, 8), 8, 2, T(24, 8), T(24), T(8, 8), T(8))
case("rnn_relu.input", T(5, 2, 8), T(1, 2, 12), rnn_params("rnn", 8, 12, 1, False), True, 1, 0.0, False, False, False)
case("reflection_pad3d", T(1, 2, 4, 4, 4), [1, 1, 1, 1, 1, 1])
case("replication_pad3d", T(1, 2, 4, 4, 4), [1, 0, 1, 0, 2, 2])
case("upsample_linear1d.vec", T(1, 3, 4), [7], False, None)
case("upsample_nearest3d.vec", T(1, 3, 2, 3, 4), None, [2.0, 2.0, 2.0])
case("upsample_trilinear3d.vec", T(1, 3, 2, 3, 4), [4, 4, 4], False, None)
case("_upsample_nearest_exact1d.vec", T(1, 3, 4), [7], None)
case("_upsample_nearest_exact2d.vec", T(1, 3, 4, 5), None, [2.0, 2.0])
case("_upsample_nearest_exact3d.vec", T(1, 3, 2, 3, 4), [3, 3, 3], None)

# ---- einsum, repeat_interleave, pixel shuffles, unfold, meshgrid --------------------
for eq, shapes in [("ij,jk->ik", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(5, 2, 3), (5, 3, 4)]), ("ij,jk", [(2, 3), (3, 4)]),
                   ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("i,i->", [(3,), (3,)]), ("i,j->ij", [(2,), (3,)]),
                   ("...ij,...jk->...ik", [(7, 2, 3), (3, 4)]), ("b...d,bd->b...", [(2, 5, 6, 4), (2, 4)]),
                   ("bhqd,bhkd->bhqk", [(2, 4, 5, 8), (2, 4, 7, 8)]), ("ij,jk->ik", [(2, 3), (4, 4)]),
                   ("ij,jk->ik", [(2, 1), (3, 4)]), ("ij->ji", [(2, 3)]), ("ij->jj", [(2, 3)]), ("ij,jk->il", [(2, 3), (3, 4)]),
                   ("ijk->ij", [(2, 3)]), ("ba", [(2, 3)]), ("ij,jk->ik", [(2, 3)]), ("...,...->...", [(2, 1), (3,)])]:
    case("einsum", eq, [T(*x) for x in shapes])
case("einsum", "ij,jk->ik", [T(2, 3), T(3, 4, dtype=f64)])
case("einsum", "ij,jk->ik", [T(2, 3, dtype=f16), T(3, 4, dtype=f16)])
for x, r, d in [((2, 3), 2, None), ((2, 3), 2, 0), ((2, 3), 3, -1), ((2, 3), 0, 1), ((), 3, None), ((2, 3), 2, 2)]:
    case("repeat_interleave.self_int", T(*x), r, d)
case("repeat_interleave.self_Tensor", T(2, 3), T(3, dtype=i64), 1)
case("repeat_interleave.self_Tensor", T(2, 3), T(3, dtype=i64), 1, output_size=3)
case("repeat_interleave.Tensor", T(3, dtype=i64))
for x, r in [((1, 8, 3, 4), 2), ((8, 3, 4), 2), ((1, 6, 3, 4), 2), ((2, 3), 2), ((1, 9, 2, 2), 3)]:
    case("pixel_shuffle", T(*x), r)
for x, r in [((1, 2, 6, 4), 2), ((2, 6, 4), 2), ((1, 2, 5, 4), 2)]:
    case("pixel_unshuffle", T(*x), r)
for x, d, sz, st in [((10,), 0, 3, 2), ((2, 10), 1, 4, 4), ((2, 10), -1, 10, 1), ((2, 10), 1, 11, 1), ((2, 10), 0, 2, 1),
                     ((), 0, 1, 1), ((2, 10), 1, 3, 0)]:
    case("unfold", T(*x), d, sz, st)
for ts, ix in [([(2,), (3,)], "ij"), ([(2,), (3,)], "xy"), ([(2,), (), (4,)], "ij"), ([(2, 2)], "ij"), ([(2,), (3,)], "ab")]:
    case("meshgrid.indexing", [T(*s) for s in ts], indexing=ix)
case("meshgrid", [T(2), T(3)])
for ts in [[(3, 1), (4,), (2, 1, 1)], [(3, 1), (5, 4)], [(2, 3)], [(), (2, 3)]]:
    case("broadcast_tensors", [T(*s) for s in ts])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases.txt")
    with open(out, "w") as f:
        f.write("# make_cases.py's output (torch %s): one ATen call per line, torch's result after '->'.\n"
                % torch.__version__)
        f.write("# Regenerate with: ../shared/tools/torch-env.sh run sid python3 test/unit/meta/make_cases.py\n")
        for line in LINES:
            f.write(line + "\n")
    print("%d cases, %d errors -> %s" % (len(LINES), sum(" -> error" in x for x in LINES), out))


if __name__ == "__main__":
    main()
