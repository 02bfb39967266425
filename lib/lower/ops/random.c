/* random.c: lowerings of random ops, training-mode dropout and weight norm
 * (random.def).
 *
 * Every draw is one ONNX random node with no seed attribute: the model file
 * is the same on every conversion, and each run draws new numbers.  Draws
 * come in the dtype ONNX and onnxruntime generate (float32, or float64 for a
 * float64 result) and are cast to the result's dtype.  Where torch's
 * distribution is a function of uniform draws (randint, exponential,
 * randperm, masks of dropout) the lowering computes that function, so the
 * distribution is exactly torch's. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lower/lower.h"
#include "random.h"

#define MAXR 16

/* The dtype a draw for a result of dtype t is made in. */
static DType
draw_dtype(DType t)
{
	return t == DT_FLOAT64 ? DT_FLOAT64 : DT_FLOAT32;
}

/* One draw of op ("RandomUniform" or "RandomNormal", parameters a and b:
 * low and high, or mean and scale) in dtype t, shaped like the ONNX value
 * like when given, else like v (static: the shape attribute; dynamic: the
 * 1-D int64 shape `shape`). */
static const char *
draw(LowerCtx *c, const char *op, DType t, double a, double b, const char *like, const Value *v, const char *shape)
{
	int normal = op[6] == 'N';
	int64_t dims[MAXR];

	if (!like && v && lower_static(v) && v->rank <= MAXR) {
		for (int i = 0; i < v->rank; i++)
			dims[i] = v->dims[i].v;
		lower_op(c, op, NULL, 0);
		onnx_attr_ints(c->a, c->last, "shape", v->rank, dims);
	} else {
		if (!like)      /* a dynamic shape: a tensor of it to draw like */
			like = lower_op(c, "ConstantOfShape", NULL, 1, shape ? shape : lower_shape(c, v, NULL));
		lower_op(c, normal ? "RandomNormalLike" : "RandomUniformLike", NULL, 1, like);
	}
	onnx_attr_int(c->a, c->last, "dtype", dtype_onnx(t));
	onnx_attr_float(c->a, c->last, normal ? "mean" : "low", (float)a);
	onnx_attr_float(c->a, c->last, normal ? "scale" : "high", (float)b);
	return c->last->output[0];
}

/* A uniform draw in [0, 1) of dtype t shaped like tensor argument `name`. */
static const char *
uniform_like(LowerCtx *c, const Node *n, const char *name, DType t)
{
	return draw(c, "RandomUniform", t, 0, 1, lower_input(c, n, name), lower_arg_value(n, name), NULL);
}

/* rand(size), rand_like(self), uniform(self, from, to), uniform_, randn,
 * randn_like, normal(mean, std, size) with floats, normal_(self, mean, std):
 * one draw of the row's operator shaped like `self` or the result. */
int
lower_random_fill(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *ov = lower_out_tensor(c, n, 0);
	int normal = strcmp(row->onnx, "RandomNormal") == 0;
	double a = normal ? lower_float(c, n, "mean", 0) : lower_float(c, n, "from", 0);
	double b = normal ? lower_float(c, n, "std", 1) : lower_float(c, n, "to", 1);
	const char *like = lower_arg_value(n, "self") ? lower_input(c, n, "self") : NULL;
	DType t = draw_dtype(ov->dtype);

	if (!dtype_is_float(ov->dtype))
		return lower_fail(c, n, "a %s draw into %s: only floating dtypes", row->onnx, dtype_name(ov->dtype));
	lower_finish(c, n, 0, draw(c, row->onnx, t, a, b, like, ov, like ? NULL : lower_size_arg(c, n, "size")), t);
	return 0;
}

/* normal(mean, std) with a tensor mean or std (or both): mean + std * z,
 * z standard normal in the broadcast shape of the two. */
int
lower_normal(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *ov = lower_out_tensor(c, n, 0);
	const Value *mv = lower_arg_value(n, "mean"), *sv = lower_arg_value(n, "std");
	DType t = draw_dtype(ov->dtype);
	const char *mean = lower_operand(c, n, "mean", t), *std = lower_operand(c, n, "std", t);
	const char *like = mv && sv ? lower_op(c, "Add", NULL, 2, mean, std) : mv ? mean : std;
	const char *z;

	(void)row;
	if (!mean || !std)
		return lower_fail(c, n, "needs 'mean' and 'std'");
	z = draw(c, "RandomNormal", t, 0, 1, like, NULL, NULL);
	lower_finish(c, n, 0, lower_op(c, "Add", NULL, 2, mean, lower_op(c, "Mul", NULL, 2, std, z)), t);
	return 0;
}

/* randint(high, size), randint(low, high, size), randint_like(self, high),
 * randint_like(self, low, high): floor(U[low, high)) drawn in float64, kept
 * below high (a float64 rounding of a draw just under high could reach it). */
int
lower_randint(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *ov = lower_out_tensor(c, n, 0);
	int64_t lo = lower_int(c, n, "low", 0), hi = lower_int(c, n, "high", 0);
	const char *like = lower_arg_value(n, "self") ? lower_input(c, n, "self") : NULL;
	const char *u, *x;

	(void)row;
	if (hi <= lo)
		return lower_fail(c, n, "randint needs low < high (got %lld, %lld)", (long long)lo, (long long)hi);
	if (hi - lo > (INT64_C(1) << 53))
		return lower_fail(c, n, "a randint range wider than 2^53 cannot be drawn exactly through float64");
	u = draw(c, "RandomUniform", DT_FLOAT64, (double)lo, (double)hi, like, ov, like ? NULL : lower_size_arg(c, n, "size"));
	/* RandomUniform's low and high are float attributes: bounds above 2^24
	 * would round, so draw [0, 1) scaled instead */
	if ((double)(float)lo != (double)lo || (double)(float)hi != (double)hi) {
		onnx_attr_float(c->a, c->last, "low", 0);
		onnx_attr_float(c->a, c->last, "high", 1);
		u = lower_op(c, "Add", NULL, 2, lower_op(c, "Mul", NULL, 2, u, lower_scalar(c, DT_FLOAT64, (double)(hi - lo))),
		             lower_scalar(c, DT_FLOAT64, (double)lo));
	}
	x = lower_op(c, "Min", NULL, 2, lower_op(c, "Floor", NULL, 1, u), lower_scalar(c, DT_FLOAT64, (double)(hi - 1)));
	lower_finish(c, n, 0, x, DT_FLOAT64);
	return 0;
}

/* U < p as the result's dtype: 1 with probability p. */
static const char *
coin(LowerCtx *c, const char *u, const char *p, DType t, DType to)
{
	return lower_cast(c, lower_op(c, "Less", NULL, 2, u, p), DT_BOOL, to == DT_UNKNOWN ? t : to);
}

/* bernoulli(self) with probabilities self, bernoulli(self, p) and
 * bernoulli_(self, p): U < p shaped like self.  Not ONNX's Bernoulli: with
 * onnxruntime 1.30 its draws failed op_random's mean check (0.3 +- 0.035). */
int
lower_bernoulli(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self"), *ov = lower_out_tensor(c, n, 0);
	DType t = draw_dtype(sv->dtype);

	(void)row;
	if (!lower_arg(n, "p")) {          /* bernoulli(self): self holds the probabilities */
		const char *p = lower_cast(c, lower_input(c, n, "self"), sv->dtype, t);
		lower_finish(c, n, 0, coin(c, uniform_like(c, n, "self", t), p, t, DT_UNKNOWN), t);
		return 0;
	}
	lower_finish(c, n, 0, coin(c, uniform_like(c, n, "self", t), lower_scalar(c, t, lower_float(c, n, "p", 0.5)), t,
	                           DT_UNKNOWN), t);
	(void)ov;
	return 0;
}

/* exponential(self, lambd): -log(1 - U) / lambd (1 - U is in (0, 1]). */
int
lower_exponential(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType t = draw_dtype(sv->dtype);
	double lambd = lower_float(c, n, "lambd", 1);
	const char *u = uniform_like(c, n, "self", t);
	const char *l = lower_op(c, "Log", NULL, 1, lower_op(c, "Sub", NULL, 2, lower_scalar(c, t, 1), u));

	(void)row;
	if (!(lambd > 0))
		return lower_fail(c, n, "exponential needs lambd > 0 (got %g)", lambd);
	lower_finish(c, n, 0, lower_op(c, "Div", NULL, 2, l, lower_scalar(c, t, -lambd)), t);
	return 0;
}

/* randperm(n): the order of n uniform draws, largest first (TopK). */
int
lower_randperm(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *ov = lower_out_tensor(c, n, 0);
	int64_t k = lower_int(c, n, "n", -1);
	const char *out[2], *in[2];

	(void)row;
	if (k < 0 || c->bad_arg)
		return lower_fail(c, n, "randperm needs a constant n >= 0");
	in[0] = lower_op(c, "RandomUniform", NULL, 0);
	onnx_attr_ints(c->a, c->last, "shape", 1, &k);
	onnx_attr_int(c->a, c->last, "dtype", dtype_onnx(DT_FLOAT32));
	in[1] = lower_i64s(c, 1, &k);
	out[0] = lower_tmp(c);
	out[1] = ov->dtype == DT_INT64 ? lower_out(c, n, 0) : lower_tmp(c);
	lower_emit(c, "TopK", 2, in, 2, out);
	if (ov->dtype != DT_INT64)
		lower_finish(c, n, 0, out[1], DT_INT64);
	return 0;
}

/* multinomial(self, num_samples, replacement=False): self holds weights
 * (1-D or 2-D).  With replacement, or for one sample, ONNX's Multinomial of
 * their logs; without, the top num_samples of log(w) + Gumbel noise. */
int
lower_multinomial(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self"), *ov = lower_out_tensor(c, n, 0);
	int64_t k = lower_int(c, n, "num_samples", 1), zero = 0;
	int repl = (int)lower_int(c, n, "replacement", 0);
	const char *w = lower_cast(c, lower_input(c, n, "self"), sv->dtype, DT_FLOAT32);
	const char *logw, *x;

	(void)row;
	if (sv->rank != 1 && sv->rank != 2)
		return lower_fail(c, n, "multinomial needs 1-D or 2-D weights (rank %d)", sv->rank);
	if (k < 1 || c->bad_arg)
		return lower_fail(c, n, "multinomial needs a constant num_samples >= 1");
	if (sv->rank == 1)
		w = lower_unsqueeze(c, w, 1, &zero, NULL);
	logw = lower_op(c, "Log", NULL, 1, w);
	if (repl || k == 1) {
		x = lower_op(c, "Multinomial", NULL, 1, logw);
		onnx_attr_int(c->a, c->last, "sample_size", k);
		onnx_attr_int(c->a, c->last, "dtype", dtype_onnx(DT_INT64));
	} else {
		const char *u = draw(c, "RandomUniform", DT_FLOAT32, 0, 1, w, NULL, NULL);
		const char *g = lower_op(c, "Neg", NULL, 1, lower_op(c, "Log", NULL, 1,
		                         lower_op(c, "Neg", NULL, 1, lower_op(c, "Log", NULL, 1, u))));
		const char *in[2] = {lower_op(c, "Add", NULL, 2, logw, g), lower_i64s(c, 1, &k)};
		const char *out[2] = {lower_tmp(c), lower_tmp(c)};
		lower_emit(c, "TopK", 2, in, 2, out);
		x = out[1];
	}
	if (sv->rank == 1)
		x = lower_squeeze(c, x, 1, &zero, NULL);
	lower_finish(c, n, 0, x, DT_INT64);
	(void)ov;
	return 0;
}

/* ---- dropout ---- */

/* x * (keep / (1 - p)) with keep ~ Bernoulli(1 - p) drawn like `like`, as
 * torch computes dropout; the bool mask into *mask when mask is not NULL.
 * Not ONNX's Dropout: onnxruntime's graph optimizer (1.30) drops a Dropout
 * node whose mask is unread even with training_mode true. */
static const char *
drop(LowerCtx *c, const char *x, const char *like, double p, DType t, const char **mask)
{
	const char *u = draw(c, "RandomUniform", t, 0, 1, like, NULL, NULL);
	const char *keep = lower_op(c, "Less", NULL, 2, u, lower_scalar(c, t, 1 - p));

	if (mask)
		*mask = keep;
	return lower_op(c, "Mul", NULL, 2, x, lower_op(c, "Div", NULL, 2, lower_cast(c, keep, DT_BOOL, t),
	                                              lower_scalar(c, t, 1 - p)));
}

int
lower_dropout_train(LowerCtx *c, const Node *n, const char *arg)
{
	const Value *xv = lower_tensor_arg(c, n, arg);
	DType t = draw_dtype(xv->dtype);
	double p = lower_float(c, n, "p", 0.5);
	const char *x = lower_cast(c, lower_input(c, n, arg), xv->dtype, t);

	if (p < 0 || p > 1)
		return lower_fail(c, n, "dropout probability %g is not in [0, 1]", p);
	if (p == 1) {                      /* torch: input * 0 */
		lower_finish(c, n, 0, lower_op(c, "Mul", NULL, 2, x, lower_scalar(c, t, 0)), t);
		return 0;
	}
	lower_finish(c, n, 0, drop(c, x, x, p, t, NULL), t);
	return 0;
}

/* native_dropout(input, p, train): (output, bool mask); train False or
 * None... None means train for native_dropout. */
int
lower_native_dropout(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *xv = lower_tensor_arg(c, n, "input");
	const Arg *tr = lower_arg(n, "train");
	int train = !tr || tr->kind == ARG_NONE || lower_int(c, n, "train", 1);
	DType t = draw_dtype(xv->dtype);
	double p = lower_float(c, n, "p", 0.5);
	const char *x = lower_cast(c, lower_input(c, n, "input"), xv->dtype, t);
	const char *mask;

	(void)row;
	if (p < 0 || p > 1)
		return lower_fail(c, n, "dropout probability %g is not in [0, 1]", p);
	if (!train || p == 0 || p == 1) {
		lower_finish(c, n, 0, !train || p == 0 ? x : lower_op(c, "Mul", NULL, 2, x, lower_scalar(c, t, 0)), t);
		if (lower_out_used(c, n, 1))
			lower_op(c, "Expand", lower_out(c, n, 1), 2, lower_scalar(c, DT_BOOL, !train || p == 0),
			         lower_shape(c, xv, x));
		return 0;
	}
	lower_finish(c, n, 0, drop(c, x, x, p, t, &mask), t);
	if (lower_out_used(c, n, 1))
		lower_bind(c, n, 1, mask);
	return 0;
}

/* The shape (N, C, 1, ..., 1) of a channel mask for x (rank r >= 2). */
static const char *
channel_shape(LowerCtx *c, const Value *xv, const char *x)
{
	int64_t ones[MAXR], start = 0, two = 2;
	const char *nc;

	for (int i = 0; i < xv->rank; i++)
		ones[i] = 1;
	if (lower_static(xv)) {
		ones[0] = xv->dims[0].v;
		ones[1] = xv->dims[1].v;
		return lower_i64s(c, xv->rank, ones);
	}
	nc = lower_op(c, "Slice", NULL, 3, lower_op(c, "Shape", NULL, 1, x), lower_i64s(c, 1, &start), lower_i64s(c, 1, &two));
	if (xv->rank == 2)
		return nc;
	return lower_op(c, "Concat", NULL, 2, nc, lower_i64s(c, xv->rank - 2, ones));
}

/* feature_dropout(input, p, train): one keep-or-drop per (sample, channel),
 * the kept ones scaled by 1 / (1 - p): a mask of shape (N, C, 1, ...). */
int
lower_feature_dropout(LowerCtx *c, const Node *n, const OpRow *row)
{
	const char *arg = lower_arg(n, "input") ? "input" : "self";
	const Value *xv = lower_tensor_arg(c, n, arg);
	DType t = draw_dtype(xv->dtype);
	double p = lower_float(c, n, "p", 0.5);
	const char *x = lower_cast(c, lower_input(c, n, arg), xv->dtype, t);

	(void)row;
	if (!lower_int(c, n, "train", 0) || p == 0) {
		lower_finish(c, n, 0, x, t);
		return 0;
	}
	if (xv->rank < 2 || xv->rank > MAXR)
		return lower_fail(c, n, "feature dropout needs an input of rank 2 to %d (N, C, ...)", MAXR);
	if (p < 0 || p >= 1)
		return lower_fail(c, n, "feature dropout probability %g is not in [0, 1)", p);
	lower_finish(c, n, 0, drop(c, x, lower_op(c, "ConstantOfShape", NULL, 1, channel_shape(c, xv, x)), p, t, NULL), t);
	return 0;
}

/* alpha_dropout: with keep ~ Bernoulli(1 - p) and alpha' = 1.7580993408473766
 * (SELU's -scale * alpha), a = 1 / sqrt((alpha'^2 p + 1)(1 - p)):
 * a * (x * keep + alpha' * (keep - 1 + p)), torch's formula; per element
 * or, for feature_alpha_dropout, per (sample, channel). */
static int
alpha_dropout(LowerCtx *c, const Node *n, int feature)
{
	const char *arg = lower_arg(n, "input") ? "input" : "self";
	const Value *xv = lower_tensor_arg(c, n, arg);
	DType t = draw_dtype(xv->dtype);
	double p = lower_float(c, n, "p", 0.5), al = 1.7580993408473766, a;
	const char *x = lower_cast(c, lower_input(c, n, arg), xv->dtype, t), *u, *keep, *y;

	if (!lower_int(c, n, "train", 0) || p == 0) {
		lower_finish(c, n, 0, x, t);
		return 0;
	}
	if (p < 0 || p >= 1)
		return lower_fail(c, n, "alpha dropout probability %g is not in [0, 1)", p);
	if (feature && (xv->rank < 2 || xv->rank > MAXR))
		return lower_fail(c, n, "feature alpha dropout needs an input of rank 2 to %d (N, C, ...)", MAXR);
	a = 1 / sqrt((al * al * p + 1) * (1 - p));
	u = feature ? draw(c, "RandomUniform", t, 0, 1, lower_op(c, "ConstantOfShape", NULL, 1, channel_shape(c, xv, x)),
	                   NULL, NULL)
	            : draw(c, "RandomUniform", t, 0, 1, x, NULL, NULL);
	keep = coin(c, u, lower_scalar(c, t, 1 - p), t, DT_UNKNOWN);
	y = lower_op(c, "Add", NULL, 2, lower_op(c, "Mul", NULL, 2, x, keep),
	             lower_op(c, "Mul", NULL, 2, lower_op(c, "Add", NULL, 2, keep, lower_scalar(c, t, p - 1)),
	                      lower_scalar(c, t, al)));
	lower_finish(c, n, 0, lower_op(c, "Mul", NULL, 2, y, lower_scalar(c, t, a)), t);
	return 0;
}

int
lower_alpha_dropout(LowerCtx *c, const Node *n, const OpRow *row)
{
	(void)row;
	return alpha_dropout(c, n, 0);
}

int
lower_feature_alpha_dropout(LowerCtx *c, const Node *n, const OpRow *row)
{
	(void)row;
	return alpha_dropout(c, n, 1);
}

/* ---- weight norm ---- */

/* _weight_norm(v, g, dim=0) = v * (g / ||v||), the 2-norm over every dim
 * of v but dim (keeping them as 1s), or over all of v when dim is -1;
 * _weight_norm_interface returns (w, the norms) */
int
lower_weight_norm(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *vv = lower_tensor_arg(c, n, "v"), *ov = lower_out_tensor(c, n, 0);
	int64_t dim = lower_int(c, n, "dim", 0), axes[MAXR];
	DType t = lower_compute(ov->dtype);
	const char *v = lower_operand(c, n, "v", t), *g = lower_operand(c, n, "g", t), *norm;
	int k = 0;

	(void)row;
	if (!v || !g)
		return lower_fail(c, n, "needs 'v' and 'g'");
	if (vv->rank > MAXR || dim < -1 || dim >= (vv->rank ? vv->rank : 1))
		return lower_fail(c, n, "dim %lld out of range for rank %d", (long long)dim, vv->rank);
	for (int i = 0; i < vv->rank; i++)
		if (i != dim)
			axes[k++] = i;
	if (dim == -1)                  /* a 0-d norm, as torch's norm_except_dim */
		norm = lower_reduce(c, "ReduceL2", v, 0, NULL, 0, NULL);
	else if (k)
		norm = lower_reduce(c, "ReduceL2", v, k, axes, 1, NULL);
	else                            /* 1-D v along dim: each element its own norm */
		norm = lower_op(c, "Abs", NULL, 1, v);
	lower_finish(c, n, 0, lower_op(c, "Mul", NULL, 2, v, lower_op(c, "Div", NULL, 2, g, norm)), t);
	if (lower_nout(n) > 1 && lower_out_used(c, n, 1))
		lower_finish(c, n, 1, norm, t);
	return 0;
}
