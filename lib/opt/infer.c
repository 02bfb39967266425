/* optinfer.c: element types and shapes of the values the optimizer meets
 * without a value_info (helper values of the lowering, nodes patterns add).
 *
 * opt_infer() fills only what is unknown, from the node's inputs, for the
 * ops whose rule is simple: elementwise ops and broadcasting, casts,
 * layout ops with constant arguments, MatMul/Gemm, reductions and the
 * fused ops the patterns make.  Anything else stays unknown, which makes
 * the patterns that need it decline.  Symbolic dims carry their dim_param
 * names, so two dims are equal when their names are. */
#include "opt/opt.h"

#include <string.h>

enum {
	K_NONE, K_UNARY, K_BINARY, K_CMP, K_WHERE, K_CAST, K_CASTLIKE, K_SHAPE, K_SIZE,
	K_TRANSPOSE, K_MATMUL, K_GEMM, K_RESHAPE, K_UNSQUEEZE, K_SQUEEZE, K_CONCAT, K_GATHER,
	K_EXPAND, K_CONSTOFSHAPE, K_RANGE, K_REDUCE, K_SLICE, K_FLATTEN, K_SAME_ELEM, K_NORM,
	K_ATTENTION, K_FUSEDMATMUL, K_CONV, K_TEST, K_NONZERO, K_RNN
};

static const struct InferRow {
	const char *op;
	int kind;
} rows[] = {
	{"Abs", K_UNARY}, {"Neg", K_UNARY}, {"Relu", K_UNARY}, {"Sqrt", K_UNARY}, {"Exp", K_UNARY},
	{"Log", K_UNARY}, {"Erf", K_UNARY}, {"Tanh", K_UNARY}, {"Sigmoid", K_UNARY},
	{"Reciprocal", K_UNARY}, {"Identity", K_UNARY}, {"Softmax", K_UNARY}, {"LogSoftmax", K_UNARY},
	{"Dropout", K_UNARY}, {"Not", K_UNARY}, {"Sin", K_UNARY}, {"Cos", K_UNARY}, {"Floor", K_UNARY},
	{"Ceil", K_UNARY}, {"Round", K_UNARY}, {"Sign", K_UNARY}, {"Gelu", K_UNARY},
	{"HardSigmoid", K_UNARY}, {"LeakyRelu", K_UNARY}, {"Elu", K_UNARY}, {"Selu", K_UNARY},
	{"Softplus", K_UNARY}, {"Clip", K_UNARY}, {"Celu", K_UNARY}, {"Mish", K_UNARY},
	{"HardSwish", K_UNARY}, {"Trilu", K_UNARY}, {"CumSum", K_UNARY}, {"Atan", K_UNARY},
	{"Asin", K_UNARY}, {"Tan", K_UNARY}, {"Sinh", K_UNARY}, {"Cosh", K_UNARY},
	{"BitwiseNot", K_UNARY}, {"com.microsoft:Gelu", K_UNARY}, {"com.microsoft:FastGelu", K_UNARY},
	{"com.microsoft:BiasGelu", K_UNARY}, {"com.microsoft:FusedConv", K_CONV},
	{"com.microsoft:QuickGelu", K_UNARY}, {"SimplifiedLayerNormalization", K_NORM},
	{"IsNaN", K_TEST}, {"IsInf", K_TEST}, {"NonZero", K_NONZERO}, {"TopK", K_SAME_ELEM}, {"LSTM", K_RNN}, {"GRU", K_RNN},
	{"RNN", K_RNN},
	{"LayerNormalization", K_NORM}, {"RMSNormalization", K_NORM},
	{"BatchNormalization", K_UNARY}, {"InstanceNormalization", K_UNARY},
	{"GroupNormalization", K_UNARY}, {"com.microsoft:SkipLayerNormalization", K_NORM},
	{"Add", K_BINARY}, {"Sub", K_BINARY}, {"Mul", K_BINARY}, {"Div", K_BINARY}, {"Pow", K_BINARY},
	{"Max", K_BINARY}, {"Min", K_BINARY}, {"Mod", K_BINARY}, {"And", K_BINARY}, {"Or", K_BINARY},
	{"Xor", K_BINARY}, {"BitwiseAnd", K_BINARY}, {"BitwiseOr", K_BINARY}, {"BitwiseXor", K_BINARY},
	{"PRelu", K_BINARY}, {"Equal", K_CMP}, {"Less", K_CMP}, {"Greater", K_CMP},
	{"LessOrEqual", K_CMP}, {"GreaterOrEqual", K_CMP}, {"Where", K_WHERE}, {"Cast", K_CAST},
	{"CastLike", K_CASTLIKE}, {"Shape", K_SHAPE}, {"Size", K_SIZE}, {"Transpose", K_TRANSPOSE},
	{"MatMul", K_MATMUL}, {"Gemm", K_GEMM}, {"Reshape", K_RESHAPE}, {"Unsqueeze", K_UNSQUEEZE},
	{"Squeeze", K_SQUEEZE}, {"Concat", K_CONCAT}, {"Gather", K_GATHER}, {"Expand", K_EXPAND},
	{"ConstantOfShape", K_CONSTOFSHAPE}, {"Range", K_RANGE}, {"ReduceSum", K_REDUCE},
	{"ReduceMean", K_REDUCE}, {"ReduceMax", K_REDUCE}, {"ReduceMin", K_REDUCE},
	{"ReduceProd", K_REDUCE}, {"ReduceL2", K_REDUCE}, {"ReduceSumSquare", K_REDUCE},
	{"Slice", K_SLICE}, {"Flatten", K_FLATTEN}, {"GatherElements", K_SAME_ELEM},
	{"GatherND", K_SAME_ELEM}, {"ScatterND", K_UNARY}, {"ScatterElements", K_UNARY},
	{"Tile", K_SAME_ELEM}, {"Pad", K_SAME_ELEM}, {"Resize", K_SAME_ELEM}, {"Split", K_SAME_ELEM},
	{"Attention", K_ATTENTION}, {"com.microsoft:FusedMatMul", K_FUSEDMATMUL},
	{"Conv", K_CONV}, {"MaxPool", K_SAME_ELEM}, {"AveragePool", K_SAME_ELEM},
	{"GlobalAveragePool", K_SAME_ELEM}, {"GlobalMaxPool", K_SAME_ELEM},
};

/* The row kind of node n's op.  A scan of the rows (the first two letters
 * rule out most), remembered per op_type pointer in o->kindhits: a graph
 * has few op types, and building a map of every row would cost more than
 * the lookups a small graph makes. */
static int
kind_of(Opt *o, int n)
{
	const OnnxNode *m = opt_msg(o, n);
	const char *key = m->op_type;
	int plain = !m->domain || !*m->domain || strcmp(m->domain, "ai.onnx") == 0;
	OptNameHit *h = NULL;
	int k = K_NONE;

	if (plain) {
		if (!o->kindhits)
			o->kindhits = ARENA_ARRAY(o->a, OptNameHit, OPT_OP_HITS);
		h = &o->kindhits[((uintptr_t)key >> 4) & (OPT_OP_HITS - 1)];
		if (h->name == key)
			return h->id;
	} else {
		key = arena_printf(o->a, "%s:%s", m->domain, m->op_type);
	}
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		if (rows[i].op[0] == key[0] && rows[i].op[1] == key[1] && strcmp(rows[i].op, key) == 0) {
			k = rows[i].kind;
			break;
		}
	if (h)
		*h = (OptNameHit){key, k};
	return k;
}

int
opt_broadcast(int ra, const OptDim *a, int rb, const OptDim *b, OptDim *out)
{
	int r = ra > rb ? ra : rb;

	if (ra < 0 || rb < 0 || r > OPT_MAX_RANK)
		return -1;
	for (int i = 0; i < r; i++) {
		int ia = i - (r - ra), ib = i - (r - rb);
		OptDim x = ia >= 0 ? a[ia] : (OptDim){1, NULL};
		OptDim y = ib >= 0 ? b[ib] : (OptDim){1, NULL};
		if (x.v == 1)
			out[i] = y;
		else if (y.v == 1)
			out[i] = x;
		else if (x.v >= 0)
			out[i] = x;
		else if (y.v >= 0)
			out[i] = y;
		else if (opt_dim_eq(x, y))
			out[i] = x;
		else
			out[i] = (OptDim){-1, NULL};
	}
	return r;
}

static OptDim
dim_static(int64_t v)
{
	return (OptDim){v, NULL};
}

static OptDim
dim_mul(OptDim a, OptDim b)
{
	if (a.v >= 0 && b.v >= 0)
		return dim_static(a.v * b.v);
	if (a.v == 1)
		return b;
	if (b.v == 1)
		return a;
	return (OptDim){-1, NULL};
}

/* Reads the axes of a Squeeze/Unsqueeze/Reduce: the input from opset 13
 * (18 for reductions but Sum), else the attribute.  Count, or -1. */
static int
axes_of(Opt *o, int n, int64_t *axes)
{
	int v = opt_in(o, n, 1);

	if (v >= 0)
		return opt_const_ints(o, v, axes, OPT_MAX_RANK);
	return opt_attr_ints(o, n, "axes", axes, OPT_MAX_RANK);
}

/* Sets output k's unknown parts. */
static void
put(Opt *o, int n, int k, int elem, int rank, const OptDim *dims)
{
	int v = opt_out(o, n, k);
	OptValue *x;

	if (v < 0)
		return;
	x = opt_val(o, v);
	if (!x->elem && elem)
		x->elem = elem;
	if (x->rank < 0 && rank >= 0)
		opt_set_type(o, v, x->elem, rank, dims);
}

static void
infer_reshape(Opt *o, int n, int elem)
{
	int64_t s[OPT_MAX_RANK];
	int k = opt_const_ints(o, opt_in(o, n, 1), s, OPT_MAX_RANK), x = opt_in(o, n, 0), neg = -1;
	OptDim d[OPT_MAX_RANK];
	int64_t total = opt_numel(o, x), known = 1;

	if (k < 0) {
		put(o, n, 0, elem, -1, NULL);   /* a shape computed in the graph */
		return;
	}
	for (int i = 0; i < k; i++) {
		if (s[i] == 0 && !opt_attr_i(o, n, "allowzero", 0))
			d[i] = i < opt_rank(o, x) ? opt_val(o, x)->dims[i] : (OptDim){-1, NULL};
		else if (s[i] == -1) {
			neg = i;
			continue;
		} else
			d[i] = dim_static(s[i]);
		if (d[i].v >= 0)
			known *= d[i].v;
		else
			known = -1;
	}
	if (neg >= 0)
		d[neg] = total >= 0 && known > 0 ? dim_static(total / known) : (OptDim){-1, NULL};
	put(o, n, 0, elem, k, d);
}

/* Adds to *mark the bit of each of the k axes (negative ones counted from
 * rank); -1 when one is out of range. */
static int
axis_mask(const int64_t *ax, int k, int rank, unsigned *mark)
{
	for (int i = 0; i < k; i++) {
		int64_t a = ax[i] < 0 ? ax[i] + rank : ax[i];
		if (a < 0 || a >= rank)
			return -1;
		*mark |= 1u << a;
	}
	return 0;
}

void
opt_infer(Opt *o, int n)
{
	int x = opt_in(o, n, 0), rx = opt_rank(o, x), elem = opt_elem(o, x);
	const OptDim *dx = x >= 0 ? opt_val(o, x)->dims : NULL;
	OptDim d[OPT_MAX_RANK];
	int64_t ax[OPT_MAX_RANK];
	int r, k;

	switch (kind_of(o, n)) {
	case K_UNARY:
		put(o, n, 0, elem, rx, dx);
		break;
	case K_NORM:
		put(o, n, 0, elem, rx, dx);
		break;
	case K_SAME_ELEM: case K_CONV:
		put(o, n, 0, elem, -1, NULL);
		if (opt_is(o, n, "MaxPool") || opt_is(o, n, "TopK"))
			put(o, n, 1, ONNX_INT64, -1, NULL);      /* the indices, int64 */
		for (k = 1; opt_is(o, n, "Split") && k < opt_node(o, n)->nout; k++)
			put(o, n, k, elem, -1, NULL);
		break;
	case K_TEST:      /* IsNaN, IsInf: a bool per element */
		put(o, n, 0, ONNX_BOOL, rx, dx);
		break;
	case K_NONZERO:   /* int64 [rank, number of non-zeros] */
		d[0] = dim_static(rx);
		d[1] = (OptDim){-1, NULL};
		put(o, n, 0, ONNX_INT64, rx >= 0 ? 2 : -1, d);
		break;
	case K_RNN:       /* Y, Y_h (and LSTM's Y_c): X's type */
		for (k = 0; k < opt_node(o, n)->nout; k++)
			put(o, n, k, elem, -1, NULL);
		break;
	case K_BINARY: case K_CMP: {
		int y = opt_in(o, n, 1);
		r = y >= 0 ? opt_broadcast(rx, dx, opt_rank(o, y), opt_val(o, y)->dims, d) : -1;
		put(o, n, 0, kind_of(o, n) == K_CMP ? ONNX_BOOL : elem, r, d);
		break;
	}
	case K_WHERE: {
		int a = opt_in(o, n, 1), b = opt_in(o, n, 2);
		OptDim t[OPT_MAX_RANK];
		if (a < 0 || b < 0)
			break;
		r = opt_broadcast(rx, dx, opt_rank(o, a), opt_val(o, a)->dims, t);
		r = r >= 0 ? opt_broadcast(r, t, opt_rank(o, b), opt_val(o, b)->dims, d) : -1;
		put(o, n, 0, opt_elem(o, a) ? opt_elem(o, a) : opt_elem(o, b), r, d);
		break;
	}
	case K_CAST:
		put(o, n, 0, (int)opt_attr_i(o, n, "to", 0), rx, dx);
		break;
	case K_CASTLIKE:
		put(o, n, 0, opt_elem(o, opt_in(o, n, 1)), rx, dx);
		break;
	case K_SHAPE: {
		int64_t start = opt_attr_i(o, n, "start", 0), end = opt_attr_i(o, n, "end", rx);
		if (rx < 0) {
			put(o, n, 0, ONNX_INT64, 1, NULL);
			break;
		}
		start = start < 0 ? start + rx : start;
		end = end < 0 ? end + rx : end;
		start = start < 0 ? 0 : start > rx ? rx : start;
		end = end < start ? start : end > rx ? rx : end;
		d[0] = dim_static(end - start);
		put(o, n, 0, ONNX_INT64, 1, d);
		break;
	}
	case K_SIZE:
		put(o, n, 0, ONNX_INT64, 0, NULL);
		break;
	case K_TRANSPOSE: {
		int64_t p[OPT_MAX_RANK];
		k = opt_attr_ints(o, n, "perm", p, OPT_MAX_RANK);
		if (rx < 0 || (k >= 0 && k != rx)) {
			put(o, n, 0, elem, -1, NULL);
			break;
		}
		for (int i = 0; i < rx; i++) {
			int64_t j = k < 0 ? rx - 1 - i : p[i];
			if (j < 0 || j >= rx)
				return;
			d[i] = dx[j];
		}
		put(o, n, 0, elem, rx, d);
		break;
	}
	case K_MATMUL: case K_FUSEDMATMUL: {
		int y = opt_in(o, n, 1), ry = opt_rank(o, y), ta = 0, tb = 0;
		OptDim a[OPT_MAX_RANK], b[OPT_MAX_RANK];
		if (kind_of(o, n) == K_FUSEDMATMUL) {
			ta = (int)opt_attr_i(o, n, "transA", 0);
			tb = (int)opt_attr_i(o, n, "transB", 0);
		}
		if (rx < 2 || ry < 2) {     /* 1-D operands: leave the shape unknown */
			put(o, n, 0, elem, -1, NULL);
			break;
		}
		memcpy(a, dx, sizeof *a * (size_t)rx);
		memcpy(b, opt_val(o, y)->dims, sizeof *b * (size_t)ry);
		if (ta) {
			OptDim t = a[rx - 1];
			a[rx - 1] = a[rx - 2];
			a[rx - 2] = t;
		}
		if (tb) {
			OptDim t = b[ry - 1];
			b[ry - 1] = b[ry - 2];
			b[ry - 2] = t;
		}
		r = opt_broadcast(rx - 2, a, ry - 2, b, d);
		if (r < 0 || r + 2 > OPT_MAX_RANK)
			break;
		d[r] = a[rx - 2];
		d[r + 1] = b[ry - 1];
		put(o, n, 0, elem, r + 2, d);
		break;
	}
	case K_GEMM: {
		int y = opt_in(o, n, 1);
		if (rx != 2 || opt_rank(o, y) != 2) {
			put(o, n, 0, elem, -1, NULL);
			break;
		}
		d[0] = dx[opt_attr_i(o, n, "transA", 0) ? 1 : 0];
		d[1] = opt_val(o, y)->dims[opt_attr_i(o, n, "transB", 0) ? 0 : 1];
		put(o, n, 0, elem, 2, d);
		break;
	}
	case K_RESHAPE:
		infer_reshape(o, n, elem);
		break;
	case K_UNSQUEEZE: {
		int out, j = 0;
		unsigned mark = 0;
		k = axes_of(o, n, ax);
		if (k < 0 || rx < 0 || (out = rx + k) > OPT_MAX_RANK) {
			put(o, n, 0, elem, -1, NULL);
			break;
		}
		if (axis_mask(ax, k, out, &mark))
			return;
		for (int i = 0; i < out; i++)
			d[i] = mark >> i & 1 ? dim_static(1) : dx[j++];
		put(o, n, 0, elem, out, d);
		break;
	}
	case K_SQUEEZE: {
		unsigned mark = 0;
		int j = 0;
		k = axes_of(o, n, ax);
		if (rx < 0) {
			put(o, n, 0, elem, -1, NULL);
			break;
		}
		if (k < 0 && opt_in(o, n, 1) < 0 && !opt_attr(o, n, "axes")) {
			for (int i = 0; i < rx; i++) {
				if (dx[i].v < 0)
					return;
				if (dx[i].v == 1)
					mark |= 1u << i;
			}
		} else if (k < 0) {
			return;
		}
		if (axis_mask(ax, k, rx, &mark))
			return;
		for (int i = 0; i < rx; i++)
			if (!(mark >> i & 1))
				d[j++] = dx[i];
		put(o, n, 0, elem, j, d);
		break;
	}
	case K_CONCAT: {
		int64_t axis = opt_attr_i(o, n, "axis", 0);
		axis = axis < 0 ? axis + rx : axis;
		if (rx < 0 || axis < 0 || axis >= rx) {
			put(o, n, 0, elem, -1, NULL);
			break;
		}
		memcpy(d, dx, sizeof *d * (size_t)rx);
		for (int i = 1; i < opt_node(o, n)->nin; i++) {
			int y = opt_in(o, n, i);
			if (opt_rank(o, y) != rx) {
				put(o, n, 0, elem, -1, NULL);
				return;
			}
			d[axis] = d[axis].v >= 0 && opt_val(o, y)->dims[axis].v >= 0
			          ? dim_static(d[axis].v + opt_val(o, y)->dims[axis].v) : (OptDim){-1, NULL};
		}
		put(o, n, 0, elem, rx, d);
		break;
	}
	case K_GATHER: {
		int y = opt_in(o, n, 1), ry = opt_rank(o, y), j = 0;
		int64_t axis = opt_attr_i(o, n, "axis", 0);
		if (rx < 0 || ry < 0 || rx - 1 + ry > OPT_MAX_RANK) {
			put(o, n, 0, elem, -1, NULL);
			break;
		}
		axis = axis < 0 ? axis + rx : axis;
		for (int i = 0; i < rx; i++) {
			if (i == axis)
				for (int t = 0; t < ry; t++)
					d[j++] = opt_val(o, y)->dims[t];
			else
				d[j++] = dx[i];
		}
		put(o, n, 0, elem, j, d);
		break;
	}
	case K_EXPAND: {
		int64_t s[OPT_MAX_RANK];
		OptDim sd[OPT_MAX_RANK];
		k = opt_const_ints(o, opt_in(o, n, 1), s, OPT_MAX_RANK);
		if (k < 0 || rx < 0) {
			put(o, n, 0, elem, -1, NULL);
			break;
		}
		for (int i = 0; i < k; i++)
			sd[i] = dim_static(s[i]);
		put(o, n, 0, elem, opt_broadcast(rx, dx, k, sd, d), d);
		break;
	}
	case K_CONSTOFSHAPE: {
		int64_t s[OPT_MAX_RANK];
		const Onnx__AttributeProto *at = opt_attr(o, n, "value");
		int e = at && at->t ? at->t->data_type : ONNX_FLOAT;
		k = opt_const_ints(o, x, s, OPT_MAX_RANK);
		for (int i = 0; i < k; i++)
			d[i] = dim_static(s[i]);
		put(o, n, 0, e, k, d);
		break;
	}
	case K_RANGE:
		put(o, n, 0, elem, 1, NULL);
		break;
	case K_REDUCE: {
		int keep = (int)opt_attr_i(o, n, "keepdims", 1), j = 0;
		unsigned mark = 0;
		k = axes_of(o, n, ax);
		if (rx < 0 || (k < 0 && (opt_in(o, n, 1) >= 0 || opt_attr(o, n, "axes")))) {
			put(o, n, 0, elem, -1, NULL);
			break;
		}
		if (k <= 0 && !opt_attr_i(o, n, "noop_with_empty_axes", 0))
			mark = (1u << rx) - 1;
		if (axis_mask(ax, k, rx, &mark))
			return;
		for (int i = 0; i < rx; i++)
			if (!(mark >> i & 1))
				d[j++] = dx[i];
			else if (keep)
				d[j++] = dim_static(1);
		put(o, n, 0, elem, j, d);
		break;
	}
	case K_SLICE:
		put(o, n, 0, elem, rx, NULL);
		break;
	case K_FLATTEN: {
		int64_t axis = opt_attr_i(o, n, "axis", 1);
		if (rx < 0)
			break;
		axis = axis < 0 ? axis + rx : axis;
		d[0] = d[1] = dim_static(1);
		for (int i = 0; i < rx; i++)
			d[i >= axis] = dim_mul(d[i >= axis], dx[i]);
		put(o, n, 0, elem, 2, d);
		break;
	}
	case K_ATTENTION: {
		int v = opt_in(o, n, 2);
		if (rx == 4 && opt_rank(o, v) == 4) {
			memcpy(d, dx, sizeof *d * 4);
			d[3] = opt_val(o, v)->dims[3];
			put(o, n, 0, elem, 4, d);
		} else {
			put(o, n, 0, elem, -1, NULL);
		}
		break;
	}
	default:
		break;
	}
}
