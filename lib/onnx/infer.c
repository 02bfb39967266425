/* infer.c: the element type and shape rules of the ONNX ops (the `infer`
 * column of onnxops.def), over the type model of onnx.h.
 *
 * A rule reads its node's attributes, its inputs' types and, through the
 * caller, constant int inputs; it hands each output it can say something
 * about to put().  The rules are the simple ones: elementwise ops and
 * broadcasting, casts, layout ops with constant arguments, MatMul/Gemm,
 * reductions and the fused ops the optimizer makes.  Anything else stays
 * unknown.  Symbolic dims carry their dim_param names, so two dims are equal
 * when their names are; arithmetic on two symbols gives an unknown dim. */
#include "onnx/onnx.h"

#include <string.h>

typedef void (*InferFn)(const OnnxInfer *f);

/* ---- reading the node ---- */

static const Onnx__AttributeProto *
attr(const OnnxInfer *f, const char *name)
{
	for (size_t i = 0; i < f->n->n_attribute; i++)
		if (strcmp(f->n->attribute[i]->name, name) == 0)
			return f->n->attribute[i];
	return NULL;
}

static int64_t
attr_i(const OnnxInfer *f, const char *name, int64_t def)
{
	const Onnx__AttributeProto *at = attr(f, name);

	return at && at->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT ? at->i : def;
}

/* The ints attribute: count (at most max stored), or -1 when absent. */
static int
attr_ints(const OnnxInfer *f, const char *name, int64_t *buf, int max)
{
	const Onnx__AttributeProto *at = attr(f, name);

	if (!at || at->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS)
		return -1;
	for (size_t i = 0; i < at->n_ints && (int)i < max; i++)
		buf[i] = at->ints[i];
	return (int)at->n_ints;
}

static const OnnxType *
in(const OnnxInfer *f, int k)
{
	return k < f->nin ? f->in[k] : NULL;
}

static int rank_of(const OnnxInfer *f, int k) { return in(f, k) ? in(f, k)->rank : -1; }
static int elem_of(const OnnxInfer *f, int k) { return in(f, k) ? in(f, k)->elem : 0; }
static const OnnxDim *dims_of(const OnnxInfer *f, int k) { return in(f, k) ? in(f, k)->dims : NULL; }

static int
const_ints(const OnnxInfer *f, int k, int64_t *buf, int max)
{
	return in(f, k) ? f->const_ints(f->ctx, k, buf, max) : -1;
}

static void
put(const OnnxInfer *f, int k, int elem, int rank, const OnnxDim *dims)
{
	if (k < f->nout)
		f->put(f->ctx, k, elem, rank, dims);
}

/* Product of input k's dims; -1 when one is not static. */
static int64_t
numel_of(const OnnxInfer *f, int k)
{
	int64_t n = 1;

	if (rank_of(f, k) < 0)
		return -1;
	for (int i = 0; i < rank_of(f, k); i++) {
		if (dims_of(f, k)[i].v < 0)
			return -1;
		n *= dims_of(f, k)[i].v;
	}
	return n;
}

/* ---- dims ---- */

int
onnx_dim_eq(OnnxDim a, OnnxDim b)
{
	if (a.v >= 0 || b.v >= 0)
		return a.v == b.v;
	return a.sym && b.sym && strcmp(a.sym, b.sym) == 0;
}

int
onnx_broadcast(int ra, const OnnxDim *a, int rb, const OnnxDim *b, OnnxDim *out)
{
	int r = ra > rb ? ra : rb;

	if (ra < 0 || rb < 0 || r > ONNX_MAX_RANK)
		return -1;
	for (int i = 0; i < r; i++) {
		int ia = i - (r - ra), ib = i - (r - rb);
		OnnxDim x = ia >= 0 ? a[ia] : (OnnxDim){1, NULL};
		OnnxDim y = ib >= 0 ? b[ib] : (OnnxDim){1, NULL};
		if (x.v == 1)
			out[i] = y;
		else if (y.v == 1)
			out[i] = x;
		else if (x.v >= 0)
			out[i] = x;
		else if (y.v >= 0)
			out[i] = y;
		else if (onnx_dim_eq(x, y))
			out[i] = x;
		else
			out[i] = (OnnxDim){-1, NULL};
	}
	return r;
}

static OnnxDim
dim_static(int64_t v)
{
	return (OnnxDim){v, NULL};
}

static OnnxDim
dim_mul(OnnxDim a, OnnxDim b)
{
	if (a.v >= 0 && b.v >= 0)
		return dim_static(a.v * b.v);
	if (a.v == 1)
		return b;
	if (b.v == 1)
		return a;
	return (OnnxDim){-1, NULL};
}

/* Reads the axes of a Squeeze/Unsqueeze/Reduce: the input from opset 13
 * (18 for reductions but Sum), else the attribute.  Count, or -1. */
static int
axes_of(const OnnxInfer *f, int64_t *axes)
{
	if (in(f, 1))
		return const_ints(f, 1, axes, ONNX_MAX_RANK);
	return attr_ints(f, "axes", axes, ONNX_MAX_RANK);
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

/* ---- the rules ---- */

/* Elementwise with one data input, normalizations, scatters: x's type. */
static void
infer_unary(const OnnxInfer *f)
{
	put(f, 0, elem_of(f, 0), rank_of(f, 0), dims_of(f, 0));
}

/* Convolutions, pools, gathers, Pad, Tile, Resize: x's element type. */
static void
infer_elem(const OnnxInfer *f)
{
	put(f, 0, elem_of(f, 0), -1, NULL);
}

/* MaxPool, TopK: x's element type, and int64 indices. */
static void
infer_elem_indices(const OnnxInfer *f)
{
	put(f, 0, elem_of(f, 0), -1, NULL);
	put(f, 1, ONNX_INT64, -1, NULL);
}

static void
infer_split(const OnnxInfer *f)
{
	for (int k = 0; k < f->nout; k++)
		put(f, k, elem_of(f, 0), -1, NULL);
}

/* IsNaN, IsInf: a bool per element. */
static void
infer_test(const OnnxInfer *f)
{
	put(f, 0, ONNX_BOOL, rank_of(f, 0), dims_of(f, 0));
}

/* int64 [rank, number of non-zeros]. */
static void
infer_nonzero(const OnnxInfer *f)
{
	OnnxDim d[2] = {dim_static(rank_of(f, 0)), {-1, NULL}};

	put(f, 0, ONNX_INT64, rank_of(f, 0) >= 0 ? 2 : -1, d);
}

/* Y, Y_h (and LSTM's Y_c): X's type. */
static void
infer_rnn(const OnnxInfer *f)
{
	for (int k = 0; k < f->nout; k++)
		put(f, k, elem_of(f, 0), -1, NULL);
}

static void
binary(const OnnxInfer *f, int elem)
{
	OnnxDim d[ONNX_MAX_RANK];
	int r = in(f, 1) ? onnx_broadcast(rank_of(f, 0), dims_of(f, 0), rank_of(f, 1), dims_of(f, 1), d) : -1;

	put(f, 0, elem, r, d);
}

static void infer_binary(const OnnxInfer *f) { binary(f, elem_of(f, 0)); }
static void infer_compare(const OnnxInfer *f) { binary(f, ONNX_BOOL); }

static void
infer_where(const OnnxInfer *f)
{
	OnnxDim t[ONNX_MAX_RANK], d[ONNX_MAX_RANK];
	int r;

	if (!in(f, 1) || !in(f, 2))
		return;
	r = onnx_broadcast(rank_of(f, 0), dims_of(f, 0), rank_of(f, 1), dims_of(f, 1), t);
	r = r >= 0 ? onnx_broadcast(r, t, rank_of(f, 2), dims_of(f, 2), d) : -1;
	put(f, 0, elem_of(f, 1) ? elem_of(f, 1) : elem_of(f, 2), r, d);
}

static void
infer_cast(const OnnxInfer *f)
{
	put(f, 0, (int)attr_i(f, "to", 0), rank_of(f, 0), dims_of(f, 0));
}

static void
infer_castlike(const OnnxInfer *f)
{
	put(f, 0, elem_of(f, 1), rank_of(f, 0), dims_of(f, 0));
}

static void
infer_shape(const OnnxInfer *f)
{
	int rx = rank_of(f, 0);
	int64_t start = attr_i(f, "start", 0), end = attr_i(f, "end", rx);
	OnnxDim d;

	if (rx < 0) {
		put(f, 0, ONNX_INT64, 1, NULL);
		return;
	}
	start = start < 0 ? start + rx : start;
	end = end < 0 ? end + rx : end;
	start = start < 0 ? 0 : start > rx ? rx : start;
	end = end < start ? start : end > rx ? rx : end;
	d = dim_static(end - start);
	put(f, 0, ONNX_INT64, 1, &d);
}

static void
infer_size(const OnnxInfer *f)
{
	put(f, 0, ONNX_INT64, 0, NULL);
}

static void
infer_transpose(const OnnxInfer *f)
{
	int64_t p[ONNX_MAX_RANK];
	int k = attr_ints(f, "perm", p, ONNX_MAX_RANK), rx = rank_of(f, 0);
	OnnxDim d[ONNX_MAX_RANK];

	if (rx < 0 || (k >= 0 && k != rx)) {
		put(f, 0, elem_of(f, 0), -1, NULL);
		return;
	}
	for (int i = 0; i < rx; i++) {
		int64_t j = k < 0 ? rx - 1 - i : p[i];
		if (j < 0 || j >= rx)
			return;
		d[i] = dims_of(f, 0)[j];
	}
	put(f, 0, elem_of(f, 0), rx, d);
}

/* MatMul, and FusedMatMul with its transA/transB. */
static void
infer_matmul(const OnnxInfer *f)
{
	int rx = rank_of(f, 0), ry = rank_of(f, 1), r, ta = 0, tb = 0;
	OnnxDim a[ONNX_MAX_RANK], b[ONNX_MAX_RANK], d[ONNX_MAX_RANK];

	if (f->op == ONNXOP_MS_FUSED_MAT_MUL) {
		ta = (int)attr_i(f, "transA", 0);
		tb = (int)attr_i(f, "transB", 0);
	}
	if (rx < 2 || ry < 2) {     /* 1-D operands: leave the shape unknown */
		put(f, 0, elem_of(f, 0), -1, NULL);
		return;
	}
	memcpy(a, dims_of(f, 0), sizeof *a * (size_t)rx);
	memcpy(b, dims_of(f, 1), sizeof *b * (size_t)ry);
	if (ta) {
		OnnxDim t = a[rx - 1];
		a[rx - 1] = a[rx - 2];
		a[rx - 2] = t;
	}
	if (tb) {
		OnnxDim t = b[ry - 1];
		b[ry - 1] = b[ry - 2];
		b[ry - 2] = t;
	}
	r = onnx_broadcast(rx - 2, a, ry - 2, b, d);
	if (r < 0 || r + 2 > ONNX_MAX_RANK)
		return;
	d[r] = a[rx - 2];
	d[r + 1] = b[ry - 1];
	put(f, 0, elem_of(f, 0), r + 2, d);
}

static void
infer_gemm(const OnnxInfer *f)
{
	OnnxDim d[2];

	if (rank_of(f, 0) != 2 || rank_of(f, 1) != 2) {
		put(f, 0, elem_of(f, 0), -1, NULL);
		return;
	}
	d[0] = dims_of(f, 0)[attr_i(f, "transA", 0) ? 1 : 0];
	d[1] = dims_of(f, 1)[attr_i(f, "transB", 0) ? 0 : 1];
	put(f, 0, elem_of(f, 0), 2, d);
}

static void
infer_reshape(const OnnxInfer *f)
{
	int64_t s[ONNX_MAX_RANK], total = numel_of(f, 0), known = 1;
	int k = const_ints(f, 1, s, ONNX_MAX_RANK), neg = -1;
	OnnxDim d[ONNX_MAX_RANK];

	if (k < 0) {
		put(f, 0, elem_of(f, 0), -1, NULL);   /* a shape computed in the graph */
		return;
	}
	for (int i = 0; i < k; i++) {
		if (s[i] == 0 && !attr_i(f, "allowzero", 0))
			d[i] = i < rank_of(f, 0) ? dims_of(f, 0)[i] : (OnnxDim){-1, NULL};
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
		d[neg] = total >= 0 && known > 0 ? dim_static(total / known) : (OnnxDim){-1, NULL};
	put(f, 0, elem_of(f, 0), k, d);
}

static void
infer_unsqueeze(const OnnxInfer *f)
{
	int64_t ax[ONNX_MAX_RANK];
	int k = axes_of(f, ax), rx = rank_of(f, 0), out, j = 0;
	unsigned mark = 0;
	OnnxDim d[ONNX_MAX_RANK];

	if (k < 0 || rx < 0 || (out = rx + k) > ONNX_MAX_RANK) {
		put(f, 0, elem_of(f, 0), -1, NULL);
		return;
	}
	if (axis_mask(ax, k, out, &mark))
		return;
	for (int i = 0; i < out; i++)
		d[i] = mark >> i & 1 ? dim_static(1) : dims_of(f, 0)[j++];
	put(f, 0, elem_of(f, 0), out, d);
}

static void
infer_squeeze(const OnnxInfer *f)
{
	int64_t ax[ONNX_MAX_RANK];
	int k = axes_of(f, ax), rx = rank_of(f, 0), j = 0;
	const OnnxDim *dx = dims_of(f, 0);
	unsigned mark = 0;
	OnnxDim d[ONNX_MAX_RANK];

	if (rx < 0) {
		put(f, 0, elem_of(f, 0), -1, NULL);
		return;
	}
	if (k < 0 && !in(f, 1) && !attr(f, "axes")) {
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
	put(f, 0, elem_of(f, 0), j, d);
}

static void
infer_concat(const OnnxInfer *f)
{
	int rx = rank_of(f, 0);
	int64_t axis = attr_i(f, "axis", 0);
	OnnxDim d[ONNX_MAX_RANK];

	axis = axis < 0 ? axis + rx : axis;
	if (rx < 0 || axis < 0 || axis >= rx) {
		put(f, 0, elem_of(f, 0), -1, NULL);
		return;
	}
	memcpy(d, dims_of(f, 0), sizeof *d * (size_t)rx);
	for (int i = 1; i < f->nin; i++) {
		if (rank_of(f, i) != rx) {
			put(f, 0, elem_of(f, 0), -1, NULL);
			return;
		}
		d[axis] = d[axis].v >= 0 && dims_of(f, i)[axis].v >= 0
		          ? dim_static(d[axis].v + dims_of(f, i)[axis].v) : (OnnxDim){-1, NULL};
	}
	put(f, 0, elem_of(f, 0), rx, d);
}

static void
infer_gather(const OnnxInfer *f)
{
	int rx = rank_of(f, 0), ry = rank_of(f, 1), j = 0;
	int64_t axis = attr_i(f, "axis", 0);
	OnnxDim d[ONNX_MAX_RANK];

	if (rx < 0 || ry < 0 || rx - 1 + ry > ONNX_MAX_RANK) {
		put(f, 0, elem_of(f, 0), -1, NULL);
		return;
	}
	axis = axis < 0 ? axis + rx : axis;
	for (int i = 0; i < rx; i++) {
		if (i == axis)
			for (int t = 0; t < ry; t++)
				d[j++] = dims_of(f, 1)[t];
		else
			d[j++] = dims_of(f, 0)[i];
	}
	put(f, 0, elem_of(f, 0), j, d);
}

static void
infer_expand(const OnnxInfer *f)
{
	int64_t s[ONNX_MAX_RANK];
	OnnxDim sd[ONNX_MAX_RANK], d[ONNX_MAX_RANK];
	int k = const_ints(f, 1, s, ONNX_MAX_RANK);

	if (k < 0 || rank_of(f, 0) < 0) {
		put(f, 0, elem_of(f, 0), -1, NULL);
		return;
	}
	for (int i = 0; i < k; i++)
		sd[i] = dim_static(s[i]);
	put(f, 0, elem_of(f, 0), onnx_broadcast(rank_of(f, 0), dims_of(f, 0), k, sd, d), d);
}

static void
infer_constant_of_shape(const OnnxInfer *f)
{
	int64_t s[ONNX_MAX_RANK];
	OnnxDim d[ONNX_MAX_RANK];
	const Onnx__AttributeProto *at = attr(f, "value");
	int e = at && at->t ? at->t->data_type : ONNX_FLOAT;
	int k = const_ints(f, 0, s, ONNX_MAX_RANK);

	for (int i = 0; i < k; i++)
		d[i] = dim_static(s[i]);
	put(f, 0, e, k, d);
}

static void
infer_range(const OnnxInfer *f)
{
	put(f, 0, elem_of(f, 0), 1, NULL);
}

static void
infer_reduce(const OnnxInfer *f)
{
	int64_t ax[ONNX_MAX_RANK];
	int keep = (int)attr_i(f, "keepdims", 1), j = 0, k = axes_of(f, ax), rx = rank_of(f, 0);
	unsigned mark = 0;
	OnnxDim d[ONNX_MAX_RANK];

	if (rx < 0 || (k < 0 && (in(f, 1) || attr(f, "axes")))) {
		put(f, 0, elem_of(f, 0), -1, NULL);
		return;
	}
	if (k <= 0 && !attr_i(f, "noop_with_empty_axes", 0))
		mark = (1u << rx) - 1;
	if (axis_mask(ax, k, rx, &mark))
		return;
	for (int i = 0; i < rx; i++)
		if (!(mark >> i & 1))
			d[j++] = dims_of(f, 0)[i];
		else if (keep)
			d[j++] = dim_static(1);
	put(f, 0, elem_of(f, 0), j, d);
}

/* The rank only: the bounds are seldom all constant where it matters. */
static void
infer_slice(const OnnxInfer *f)
{
	put(f, 0, elem_of(f, 0), rank_of(f, 0), NULL);
}

static void
infer_flatten(const OnnxInfer *f)
{
	int64_t axis = attr_i(f, "axis", 1);
	int rx = rank_of(f, 0);
	OnnxDim d[2];

	if (rx < 0)
		return;
	axis = axis < 0 ? axis + rx : axis;
	d[0] = d[1] = dim_static(1);
	for (int i = 0; i < rx; i++)
		d[i >= axis] = dim_mul(d[i >= axis], dims_of(f, 0)[i]);
	put(f, 0, elem_of(f, 0), 2, d);
}

/* The 4-D layout: Q's [B, H, L] and V's head size. */
static void
infer_attention(const OnnxInfer *f)
{
	OnnxDim d[4];

	if (rank_of(f, 0) == 4 && rank_of(f, 2) == 4) {
		memcpy(d, dims_of(f, 0), sizeof *d * 4);
		d[3] = dims_of(f, 2)[3];
		put(f, 0, elem_of(f, 0), 4, d);
	} else {
		put(f, 0, elem_of(f, 0), -1, NULL);
	}
}

/* ---- the column ---- */

static const InferFn rules[ONNXOP_COUNT] = {
#define OP(id, name, dom, lo, hi, infer, fold, fold_in, fl, fl_k, fl_shape) [ONNXOP_##id] = infer,
#include "onnx/onnxops.def"
#undef OP
};

void
onnx_infer(const OnnxInfer *f)
{
	if (f->op >= 0 && f->op < ONNXOP_COUNT && rules[f->op])
		rules[f->op](f);
}

int
onnx_infer_known(int op)
{
	return op >= 0 && op < ONNXOP_COUNT && rules[op] != NULL;
}
