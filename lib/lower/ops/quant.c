/* quant.c: lowerings of quant.def: torch's quantized_decomposed ops and torchao's
 * affine ops as QuantizeLinear / DequantizeLinear, their parameter choice in
 * arithmetic, and aten._int_mm as MatMulInteger.
 *
 * Every quantize and dequantize is first given a layout (QLayout): one scale for the
 * whole tensor, one per index of an axis, or one per row of the tensor viewed as
 * (rows, block), the reduced (blocked) dims of torchao's block_size being the trailing
 * ones.  The ONNX node then has its scale and zero point in that layout: a scalar, a
 * 1-D tensor with `axis`, or a 1-D tensor of `rows` with axis 0 on the reshaped
 * tensor.  Zero points become the quantized element type (QuantizeLinear's output type
 * is its zero point's); a range narrower than that type is a Clip after
 * QuantizeLinear, which saturates to the type's own range only. */
#include <math.h>
#include <string.h>

#include "lower/lower.h"

typedef enum { Q_TENSOR, Q_AXIS, Q_ROWS } QKind;

/* The parameter layout each family of ops states (its lowering's name). */
typedef enum { QF_TENSOR, QF_CHANNEL, QF_TOKEN, QF_GROUP, QF_AFFINE } QForm;

typedef struct QLayout {
	QKind kind;
	int64_t axis;           /* Q_AXIS */
	int64_t rows, block;    /* Q_ROWS: x viewed as (rows, block) */
} QLayout;

/* The static dims of v into d; 0, or lower_fail() naming the node. */
static int
q_static(LowerCtx *c, const Node *n, const Value *v, int64_t *d)
{
	if (!lower_static(v) || v->rank > MAX_RANK)
		return lower_fail(c, n, "quantization of a tensor with dynamic dims is not supported");
	for (int i = 0; i < v->rank; i++)
		d[i] = v->dims[i].v;
	return 0;
}

/* torchao's block_size on dims d (rank r): the view of _get_reduction_params, whose
 * reduced dims must be a suffix (one parameter per row of (rows, block)). */
static int
q_blocks(LowerCtx *c, const Node *n, int r, const int64_t *d, QLayout *L)
{
	int64_t b[MAX_RANK];
	int nb = lower_ints(c, n, "block_size", b, MAX_RANK), seen_reduced = 0;

	if (nb != r)
		return lower_fail(c, n, "block_size has %d entries for a tensor of rank %d", nb, r);
	L->rows = 1, L->block = 1;
	for (int i = 0; i < r; i++) {
		if (b[i] <= 0 || d[i] % b[i])
			return lower_fail(c, n, "block_size[%d] = %lld does not divide dim %lld", i,
			                  (long long)b[i], (long long)d[i]);
		if (b[i] != 1 && b[i] != d[i]) {          /* split: (d/b, b), b reduced */
			if (seen_reduced)
				goto bad;
			L->rows *= d[i] / b[i];
			L->block *= b[i];
			seen_reduced = 1;
		} else if (b[i] == d[i] && d[i] != 1) {   /* the whole dim reduced */
			L->block *= d[i];
			seen_reduced = 1;
		} else {                                  /* kept (or size 1) */
			if (seen_reduced && d[i] != 1)
				goto bad;
			L->rows *= d[i];
		}
	}
	L->kind = L->rows == 1 ? Q_TENSOR : Q_ROWS;
	return 0;
bad:
	return lower_fail(c, n, "block_size reduces dims that are not the trailing ones (not supported)");
}

/* The layout of node n (of form f) over its input x. */
static int
q_layout(LowerCtx *c, const Node *n, QForm f, const Value *x, QLayout *L)
{
	int64_t d[MAX_RANK], numel = 1;

	memset(L, 0, sizeof *L);
	if (f == QF_TENSOR) {
		L->kind = Q_TENSOR;
		return 0;
	}
	if (f == QF_CHANNEL) {
		L->kind = Q_AXIS;
		L->axis = lower_axis(lower_int(c, n, "axis", 0), x->rank);
		return 0;
	}
	if (q_static(c, n, x, d))
		return DIAG_CONVERT;
	for (int i = 0; i < x->rank; i++)
		numel *= d[i];
	if (f == QF_TOKEN) {
		L->kind = Q_ROWS;
		L->block = x->rank ? d[x->rank - 1] : 1;
		L->rows = L->block ? numel / L->block : 0;
		return 0;
	}
	if (f == QF_GROUP) {
		L->kind = Q_ROWS;
		L->block = lower_int(c, n, "group_size", 0);
		if (L->block <= 0 || numel % L->block)
			return lower_fail(c, n, "group_size %lld does not divide the tensor", (long long)L->block);
		L->rows = numel / L->block;
		return 0;
	}
	return q_blocks(c, n, x->rank, d, L);
}

/* x (ONNX name) seen in layout L: reshaped to (rows, block) for Q_ROWS. */
static const char *
q_view(LowerCtx *c, const QLayout *L, const char *x)
{
	if (L->kind != Q_ROWS)
		return x;
	return lower_op(c, "Reshape", NULL, 2, x, lower_i64s(c, 2, (int64_t[]){L->rows, L->block}));
}

/* A parameter tensor p (dtype from) as the node wants it, of dtype to: a scalar for
 * Q_TENSOR, 1-D for the others. */
static const char *
q_param(LowerCtx *c, const QLayout *L, const char *p, DType from, DType to)
{
	p = lower_cast(c, p, from, to);
	if (L->kind == Q_TENSOR)
		return lower_op(c, "Reshape", NULL, 2, p, lower_i64s(c, 0, NULL));
	return lower_op(c, "Reshape", NULL, 2, p, lower_i64s(c, 1, (int64_t[]){-1}));
}

/* The scale and zero point of n, of dtypes float32 and qt, in layout L; *zp NULL when
 * the node has none (a dequantize without one). rows: zeros when a quantize has none. */
static void
q_params(LowerCtx *c, const Node *n, const QLayout *L, DType qt, int need_zp, const char **s, const char **zp)
{
	const char *sname = lower_arg(n, "scales") ? "scales" : "scale";
	const char *zname = lower_arg(n, "zero_points") ? "zero_points" : "zero_point";
	const Value *sv = lower_arg_value(n, sname), *zv = lower_arg_value(n, zname);

	if (sv)
		*s = q_param(c, L, lower_value(c, sv), sv->dtype, DT_FLOAT32);
	else
		*s = lower_scalar(c, DT_FLOAT32, lower_float(c, n, sname, 1.0));
	if (zv) {
		*zp = q_param(c, L, lower_value(c, zv), zv->dtype, qt);
	} else if (lower_arg(n, zname) && lower_arg(n, zname)->kind != ARG_NONE) {
		*zp = lower_scalar(c, qt, (double)lower_int(c, n, zname, 0));
	} else if (need_zp) {
		int64_t k = L->kind == Q_ROWS ? L->rows : 0;
		if (L->kind == Q_AXIS) {
			const Value *x = lower_arg_value(n, "input");
			k = x && lower_static(x) ? x->dims[L->axis].v : -1;
		}
		if (L->kind == Q_TENSOR) {
			*zp = lower_scalar(c, qt, 0);
		} else if (k < 0) {
			*zp = NULL;
		} else {
			uint8_t *z = ARENA_ARRAY(c->a, uint8_t, k + 1);
			memset(z, 0, (size_t)k + 1);
			*zp = lower_const(c, qt, 1, &k, z);
		}
	} else {
		*zp = NULL;
	}
}

static void
q_axis_attr(LowerCtx *c, const QLayout *L)
{
	if (L->kind != Q_TENSOR)
		onnx_attr_int(c->a, c->last, "axis", L->kind == Q_AXIS ? L->axis : 0);
}

static int
q_type_ok(LowerCtx *c, const Node *n, DType t)
{
	if (t == DT_INT8 || t == DT_UINT8)
		return 0;
	return lower_fail(c, n, "quantized element type %s is not supported (int8 and uint8 are)", dtype_name(t));
}

/* 1 when n's scale is computed in the graph (dynamic quantization), not stored. */
static int
q_runtime_scale(const Node *n)
{
	const Value *sv = lower_arg_value(n, lower_arg(n, "scales") ? "scales" : "scale");

	return sv && !sv->data;
}

/* 1 / scale in the scale's own dtype (torch: 1.0 / scale, a float64 scale's
 * inverse rounded to float32 when it multiplies), float32, shaped to broadcast
 * against the view of layout L (a scalar, or (rows, 1)). */
static const char *
q_inverse(LowerCtx *c, const Node *n, const QLayout *L)
{
	const Value *sv = lower_arg_value(n, lower_arg(n, "scales") ? "scales" : "scale");
	const char *r = lower_op(c, "Reciprocal", NULL, 1, lower_value(c, sv));

	r = lower_cast(c, r, sv->dtype, DT_FLOAT32);
	if (L->kind == Q_TENSOR)
		return lower_op(c, "Reshape", NULL, 2, r, lower_i64s(c, 0, NULL));
	return lower_op(c, "Reshape", NULL, 2, r, lower_i64s(c, 2, (int64_t[]){-1, 1}));
}

/* The unit scale of layout L (Q_TENSOR or Q_ROWS). */
static const char *
q_ones(LowerCtx *c, const QLayout *L)
{
	int64_t k = L->rows;
	float *one;

	if (L->kind == Q_TENSOR)
		return lower_scalar(c, DT_FLOAT32, 1.0);
	one = ARENA_ARRAY(c->a, float, k + 1);
	for (int64_t i = 0; i < k; i++)
		one[i] = 1.0f;
	return lower_const(c, DT_FLOAT32, 1, &k, one);
}

/* quantize_per_tensor.tensor2: quant_min and quant_max are tensors, so the Clip to
 * them is always there (QuantizeLinear, then the bounds as the quantized type). */
static int
quantize_tensor2(LowerCtx *c, const Node *n, const Value *x, DType qt, const QLayout *L)
{
	const char *s, *zp, *y, *b[2];
	const char *names[2] = {"quant_min", "quant_max"};

	q_params(c, n, L, qt, 1, &s, &zp);
	for (int k = 0; k < 2; k++) {
		const Value *v = lower_arg_value(n, names[k]);
		if (!v)
			return lower_fail(c, n, "%s is not a tensor", names[k]);
		b[k] = lower_op(c, "Reshape", NULL, 2, lower_cast(c, lower_value(c, v), v->dtype, qt),
		                lower_i64s(c, 0, NULL));
	}
	y = lower_cast(c, lower_value(c, x), x->dtype, DT_FLOAT32);
	y = lower_op(c, "QuantizeLinear", NULL, 3, y, s, zp);
	y = lower_op(c, "Clip", NULL, 3, y, b[0], b[1]);
	lower_finish_typed(c, n, 0, y, qt);
	return 0;
}

static int
quantize(LowerCtx *c, const Node *n, QForm f)
{
	const Value *x = lower_tensor_arg(c, n, "input");
	const char *dtn = lower_arg(n, "output_dtype") ? "output_dtype" : "dtype";
	DType qt = dtype_from_torch((long)lower_int(c, n, dtn, 7)), xt = x->dtype;
	int64_t lo = qt == DT_INT8 ? -128 : 0, hi = qt == DT_INT8 ? 127 : 255, qmin, qmax;
	const char *y, *s, *zp;
	QLayout L;

	if (q_type_ok(c, n, qt) || q_layout(c, n, f, x, &L))
		return DIAG_CONVERT;
	if (lower_arg_value(n, "quant_min") || lower_arg_value(n, "quant_max"))
		return quantize_tensor2(c, n, x, qt, &L);
	qmin = lower_int(c, n, "quant_min", lo);
	qmax = lower_int(c, n, "quant_max", hi);
	if (qmin < lo || qmax > hi || qmin > qmax)
		return lower_fail(c, n, "quant_min %lld / quant_max %lld outside %s", (long long)qmin,
		                  (long long)qmax, dtype_name(qt));
	q_params(c, n, &L, qt, 1, &s, &zp);
	if (!zp)
		return lower_fail(c, n, "the zero points' length is not static");
	y = q_view(c, &L, lower_cast(c, lower_value(c, x), xt, DT_FLOAT32));
	if (q_runtime_scale(n) && L.kind != Q_AXIS) {
		/* Dynamic quantization: x times 1/scale as torch computes it, then a unit
		 * scale.  A symmetric scale maps the largest magnitude to exactly 127.5, a
		 * tie that x / scale and x * (1/scale) round apart (torch's _choose_qparams
		 * and QuantizeLinear's division); no QDQ fusion needs this scale. */
		y = lower_op(c, "Mul", NULL, 2, y, q_inverse(c, n, &L));
		s = q_ones(c, &L);
	}
	y = lower_op(c, "QuantizeLinear", NULL, 3, y, s, zp);
	q_axis_attr(c, &L);
	if (qmin > lo || qmax < hi)     /* reduced range: QuantizeLinear saturates to the type only */
		y = lower_op(c, "Clip", NULL, 3, y, lower_scalar(c, qt, (double)qmin), lower_scalar(c, qt, (double)qmax));
	if (L.kind == Q_ROWS)
		y = lower_op(c, "Reshape", NULL, 2, y, lower_shape(c, x, lower_value(c, x)));
	lower_finish_typed(c, n, 0, y, qt);
	return 0;
}

static int
dequantize(LowerCtx *c, const Node *n, QForm f)
{
	const Value *x = lower_tensor_arg(c, n, "input");
	const char *y, *s, *zp, *in[3];
	QLayout L;

	if (q_type_ok(c, n, x->dtype) || q_layout(c, n, f, x, &L))
		return DIAG_CONVERT;
	q_params(c, n, &L, x->dtype, 0, &s, &zp);
	in[0] = q_view(c, &L, lower_value(c, x)), in[1] = s, in[2] = zp;
	lower_emit(c, "DequantizeLinear", zp ? 3 : 2, in, 1, (const char *[]){y = lower_tmp(c)});
	q_axis_attr(c, &L);
	if (L.kind == Q_ROWS)
		y = lower_op(c, "Reshape", NULL, 2, y, lower_shape(c, x, lower_value(c, x)));
	lower_finish_typed(c, n, 0, y, DT_FLOAT32);
	return 0;
}

/* choose_qparams.tensor, choose_qparams_symmetric.tensor (per tensor, torch's
 * determine_qparams) and torchao's choose_qparams_affine (per block): min and max
 * with 0, then the scale of the range and the zero point, in float32 as torch
 * computes them; outputs cast to their recorded dtypes. */
static int
choose_qparams(LowerCtx *c, const Node *n, QForm f, int sym)
{
	const Value *x = lower_tensor_arg(c, n, "input");
	int affine = f == QF_AFFINE;
	const char *dtn = affine ? "target_dtype" : "dtype";
	DType qt = dtype_from_torch((long)lower_int(c, n, dtn, 7));
	int64_t lo = qt == DT_INT8 ? -128 : 0, hi = qt == DT_INT8 ? 127 : 255, qmin, qmax, zp0 = 0;
	double eps;
	const char *v, *mn, *mx, *s, *zp, *zero = lower_scalar(c, DT_FLOAT32, 0);
	QLayout L;

	if (q_type_ok(c, n, qt) || q_layout(c, n, f, x, &L))
		return DIAG_CONVERT;
	qmin = lower_int(c, n, "quant_min", lo);
	qmax = lower_int(c, n, "quant_max", hi);
	eps = lower_float(c, n, "eps", affine ? ldexp(1.0, -126) : 1.1920928955078125e-07);
	if (affine) {
		const char *m = lower_str(c, n, "mapping_type", "");
		if (strcmp(m, "ASYMMETRIC") && strcmp(m, "SYMMETRIC"))
			return lower_fail(c, n, "mapping_type %s is not supported (ASYMMETRIC and SYMMETRIC are)", m);
		sym = strcmp(m, "SYMMETRIC") == 0;
		zp0 = (int64_t)((double)(qmax + qmin + 1) / 2);   /* python int((qmax + qmin + 1) / 2) */
	} else if (sym) {
		zp0 = qt == DT_UINT8 ? 128 : 0;
	}
	v = q_view(c, &L, lower_cast(c, lower_value(c, x), x->dtype, DT_FLOAT32));
	mn = lower_reduce(c, "ReduceMin", v, L.kind == Q_ROWS, (int64_t[]){1}, 0, NULL);
	mx = lower_reduce(c, "ReduceMax", v, L.kind == Q_ROWS, (int64_t[]){1}, 0, NULL);
	mn = lower_op(c, "Min", NULL, 2, mn, zero);
	mx = lower_op(c, "Max", NULL, 2, mx, zero);
	if (sym) {
		mx = lower_op(c, "Max", NULL, 2, lower_op(c, "Neg", NULL, 1, mn), mx);
		s = lower_op(c, "Div", NULL, 2, mx, lower_scalar(c, DT_FLOAT32, (double)(qmax - qmin) / 2));
		s = lower_op(c, "Max", NULL, 2, s, lower_scalar(c, DT_FLOAT32, eps));
		zp = lower_op(c, "Expand", NULL, 2, lower_scalar(c, DT_FLOAT32, (double)zp0),
		              lower_op(c, "Shape", NULL, 1, s));
	} else {
		s = lower_op(c, "Div", NULL, 2, lower_op(c, "Sub", NULL, 2, mx, mn),
		             lower_scalar(c, DT_FLOAT32, (double)(qmax - qmin)));
		s = lower_op(c, "Max", NULL, 2, s, lower_scalar(c, DT_FLOAT32, eps));
		zp = lower_op(c, "Round", NULL, 1, lower_op(c, "Div", NULL, 2, mn, s));
		zp = lower_op(c, "Sub", NULL, 2, lower_scalar(c, DT_FLOAT32, (double)qmin), zp);
		zp = lower_op(c, "Clip", NULL, 3, zp, lower_scalar(c, DT_FLOAT32, (double)qmin),
		              lower_scalar(c, DT_FLOAT32, (double)qmax));
	}
	for (int k = 0; k < 2; k++) {
		const Value *o = lower_out_tensor(c, n, k);
		const char *r = k ? zp : s;
		int64_t d[MAX_RANK];
		if (!lower_out_used(c, n, k))
			continue;
		if (q_static(c, n, o, d))
			return DIAG_CONVERT;
		r = lower_op(c, "Reshape", NULL, 2, r, lower_i64s(c, o->rank, d));
		lower_finish_typed(c, n, k, r, DT_FLOAT32);
	}
	return 0;
}

/* choose_qparams_per_token (symmetric: max |x| over the last dim, at least 1e-5, over
 * 127; zero points 0) and choose_qparams_per_token_asymmetric (the range with 0 over
 * 255, at least float32 eps; the zero point from whichever end errs less, clamped,
 * rounded), both kept-dim over the last dim, in float32 as torch computes them. */
static int
choose_qparams_token(LowerCtx *c, const Node *n, int asym)
{
	const Value *x = lower_tensor_arg(c, n, "input");
	DType qt = dtype_from_torch((long)lower_int(c, n, "dtype", 1));
	const char *v = lower_cast(c, lower_value(c, x), x->dtype, DT_FLOAT32), *s, *zp;
	const char *zero = lower_scalar(c, DT_FLOAT32, 0);
	int64_t last = -1;

	if (qt != DT_INT8)
		return lower_fail(c, n, "per-token parameters for %s are not supported (int8 is)", dtype_name(qt));
	if (!asym) {
		s = lower_reduce(c, "ReduceMax", lower_op(c, "Abs", NULL, 1, v), 1, &last, 1, NULL);
		s = lower_op(c, "Max", NULL, 2, s, lower_scalar(c, DT_FLOAT32, 1e-5));
		s = lower_op(c, "Div", NULL, 2, s, lower_scalar(c, DT_FLOAT32, 127));
		zp = lower_op(c, "Mul", NULL, 2, s, zero);
	} else {
		const char *mn = lower_reduce(c, "ReduceMin", v, 1, &last, 1, NULL);
		const char *mx = lower_reduce(c, "ReduceMax", v, 1, &last, 1, NULL);
		const char *dmin, *dmax, *lo = lower_scalar(c, DT_FLOAT32, -128), *hi = lower_scalar(c, DT_FLOAT32, 127);
		mn = lower_op(c, "Min", NULL, 2, mn, zero);
		mx = lower_op(c, "Max", NULL, 2, mx, zero);
		s = lower_op(c, "Div", NULL, 2, lower_op(c, "Sub", NULL, 2, mx, mn), lower_scalar(c, DT_FLOAT32, 255));
		s = lower_op(c, "Max", NULL, 2, s, lower_scalar(c, DT_FLOAT32, ldexp(1.0, -23)));
		dmin = lower_op(c, "Div", NULL, 2, mn, s);
		dmax = lower_op(c, "Div", NULL, 2, mx, s);
		zp = lower_op(c, "Where", NULL, 3,
		              lower_op(c, "Greater", NULL, 2, lower_op(c, "Add", NULL, 2, lower_op(c, "Add", NULL, 2, lo, dmin),
		                                                      lower_op(c, "Add", NULL, 2, hi, dmax)), zero),
		              lower_op(c, "Sub", NULL, 2, lo, dmin), lower_op(c, "Sub", NULL, 2, hi, dmax));
		zp = lower_op(c, "Round", NULL, 1, lower_op(c, "Clip", NULL, 3, zp, lo, hi));
	}
	if (lower_out_used(c, n, 0))
		lower_finish_typed(c, n, 0, s, DT_FLOAT32);
	if (lower_out_used(c, n, 1))
		lower_finish_typed(c, n, 1, zp, DT_FLOAT32);
	return 0;
}

/* fake_quant_per_channel: quantize and dequantize in float, as torch writes it:
 * (clamp(round(x * (1/s)) + zp, qmin, qmax) - zp) * s, s and zp along axis. */
static int
fake_quant_channel(LowerCtx *c, const Node *n)
{
	const Value *x = lower_tensor_arg(c, n, "input"), *sv = lower_tensor_arg(c, n, "scales");
	const Value *zv = lower_tensor_arg(c, n, "zero_points");
	int64_t axis = lower_axis(lower_int(c, n, "axis", 0), x->rank), shape[MAX_RANK];
	double qmin = (double)lower_int(c, n, "quant_min", 0), qmax = (double)lower_int(c, n, "quant_max", 255);
	const char *s, *zp, *t;

	if (axis < 0 || axis >= x->rank)
		return lower_fail(c, n, "axis out of range");
	shape[0] = -1;
	for (int i = 1; i < x->rank - axis; i++)
		shape[i] = 1;
	s = lower_op(c, "Reshape", NULL, 2, lower_cast(c, lower_value(c, sv), sv->dtype, DT_FLOAT32),
	             lower_i64s(c, (int)(x->rank - axis), shape));
	zp = lower_cast(c, lower_cast(c, lower_value(c, zv), zv->dtype, DT_INT32), DT_INT32, DT_FLOAT32);
	zp = lower_op(c, "Reshape", NULL, 2, zp, lower_i64s(c, (int)(x->rank - axis), shape));
	t = lower_op(c, "Mul", NULL, 2, lower_cast(c, lower_value(c, x), x->dtype, DT_FLOAT32),
	             lower_op(c, "Reciprocal", NULL, 1, s));
	t = lower_op(c, "Add", NULL, 2, lower_op(c, "Round", NULL, 1, t), zp);
	t = lower_op(c, "Clip", NULL, 3, t, lower_scalar(c, DT_FLOAT32, qmin), lower_scalar(c, DT_FLOAT32, qmax));
	t = lower_op(c, "Mul", NULL, 2, lower_op(c, "Sub", NULL, 2, t, zp), s);
	lower_finish_typed(c, n, 0, t, DT_FLOAT32);
	return 0;
}

/* convert_element_type.no_fuse: a Cast pt2e keeps out of its fusions. */
static int
convert_element(LowerCtx *c, const Node *n)
{
	const Value *x = lower_tensor_arg(c, n, "input");

	lower_finish(c, n, 0, lower_value(c, x), x->dtype);
	return 0;
}

#define Q_ROW(fn, call) \
	int fn(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return call; }
Q_ROW(lower_quantize_tensor, quantize(c, n, QF_TENSOR))
Q_ROW(lower_quantize_channel, quantize(c, n, QF_CHANNEL))
Q_ROW(lower_quantize_token, quantize(c, n, QF_TOKEN))
Q_ROW(lower_quantize_group, quantize(c, n, QF_GROUP))
Q_ROW(lower_quantize_affine, quantize(c, n, QF_AFFINE))
Q_ROW(lower_dequantize_tensor, dequantize(c, n, QF_TENSOR))
Q_ROW(lower_dequantize_channel, dequantize(c, n, QF_CHANNEL))
Q_ROW(lower_dequantize_token, dequantize(c, n, QF_TOKEN))
Q_ROW(lower_dequantize_group, dequantize(c, n, QF_GROUP))
Q_ROW(lower_dequantize_affine, dequantize(c, n, QF_AFFINE))
Q_ROW(lower_choose_qparams, choose_qparams(c, n, QF_TENSOR, 0))
Q_ROW(lower_choose_qparams_sym, choose_qparams(c, n, QF_TENSOR, 1))
Q_ROW(lower_choose_qparams_affine, choose_qparams(c, n, QF_AFFINE, 0))
Q_ROW(lower_choose_qparams_token, choose_qparams_token(c, n, 0))
Q_ROW(lower_choose_qparams_token_asym, choose_qparams_token(c, n, 1))
Q_ROW(lower_fake_quant_channel, fake_quant_channel(c, n))
Q_ROW(lower_convert_element_no_fuse, convert_element(c, n))
#undef Q_ROW

/* aten._int_mm(self, mat2): int8 x int8 -> int32, MatMulInteger without zero points. */
int
lower_int_mm(LowerCtx *c, const Node *n, const OpRow *row)
{
	const char *a = lower_input(c, n, "self"), *b = lower_input(c, n, "mat2");

	(void)row;
	if (!a || !b)
		return lower_fail(c, n, "needs self and mat2");
	lower_finish_typed(c, n, 0, lower_op(c, "MatMulInteger", NULL, 2, a, b), DT_INT32);
	return 0;
}
