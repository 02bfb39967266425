/* reduce.c: lowerings of reductions (reduce.def).  An absent or empty dim
 * list reduces every dim, as in torch; lower_reduce() puts the axes where
 * the target opset wants them.  Integer sums and products compute in
 * their int64 result dtype; small integer inputs of max/min and the
 * arg-reductions are widened to int32 (lower_opmath). */
#include <math.h>
#include <string.h>

#include "lower/lower.h"

#define MAXR 16

/* Wraps the k axes of a reduction of v into [0, rank): onnxruntime keeps
 * the reduced dims of an empty tensor named by a negative axis.  Returns
 * k, or 0 for a 0-d v (torch's dim 0 or -1 there: ONNX reduces all of
 * it, which is itself). */
static int
wrap_axes(const Value *v, int k, int64_t *axes)
{
	if (v && v->rank == 0 && k > 0)
		return 0;
	for (int i = 0; v && i < k; i++)
		axes[i] = lower_axis(axes[i], v->rank);
	return k;
}

/* sum / mean / amax / amin / prod / max / min (self, dim=None,
 * keepdim=False, dtype=None) */
int
lower_reduction(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType odt = lower_out_dtype(n, 0), cdt = lower_opmath_nobool(odt);
	int64_t axes[MAXR];
	int k = lower_ints(c, n, "dim", axes, MAXR);
	const char *r;

	k = wrap_axes(lower_arg_value(n, "self"), k, axes);
	r = lower_reduce(c, row->onnx, lower_operand(c, n, "self", cdt), k < 0 ? 0 : k, axes,
	                 (int)lower_int(c, n, "keepdim", 0), odt == cdt ? lower_out(c, n, 0) : NULL);
	if (odt != cdt)
		lower_finish_typed(c, n, 0, r, cdt);
	return 0;
}

/* any / all (self, dim, keepdim=False): ReduceMax / ReduceMin over 0/1. */
int
lower_any_all(LowerCtx *c, const Node *n, const OpRow *row)
{
	int64_t axes[MAXR];
	int k = wrap_axes(lower_arg_value(n, "self"), lower_ints(c, n, "dim", axes, MAXR), axes);
	const char *x = lower_cast(c, lower_operand(c, n, "self", DT_BOOL), DT_BOOL, DT_INT32);
	const char *r = lower_reduce(c, row->onnx, x, k < 0 ? 0 : k, axes, (int)lower_int(c, n, "keepdim", 0), NULL);

	lower_finish_typed(c, n, 0, r, DT_INT32);
	return 0;
}

/* var_mean / var / std (self, dim=None, correction=None (1),
 * keepdim=False); var.dim / std.dim (self, dim, unbiased=True, keepdim=False) */
int
lower_var_mean(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *xv = lower_arg_value(n, "self");
	DType cdt = lower_compute(lower_out_dtype(n, 0));
	int64_t axes[MAXR], cnt = 1;
	int k = lower_ints(c, n, "dim", axes, MAXR), keep = (int)lower_int(c, n, "keepdim", 0);
	double corr = lower_arg(n, "unbiased") ? (double)lower_int(c, n, "unbiased", 1)
	            : lower_float(c, n, "correction", 1.0);
	int std = row->variant == OPV_STD;
	const char *x = lower_operand(c, n, "self", cdt), *mean, *d, *var;

	if (!xv || xv->rank > MAXR)
		return lower_fail(c, n, "needs a tensor 'self' of rank %d or less", MAXR);
	if (k <= 0)
		for (k = 0; k < xv->rank; k++)
			axes[k] = k;
	for (int i = 0; i < k; i++) {
		int64_t a = lower_axis(axes[i], xv->rank);
		if (a < 0 || a >= xv->rank || xv->dims[a].e)
			return lower_fail(c, n, "needs static reduced dims");
		cnt *= xv->dims[a].v;
		axes[i] = a;
	}
	if (cnt == 0)           /* torch's mean of nothing is NaN; onnxruntime's is 0 */
		return lower_fail(c, n, "reduces an empty tensor (torch gives NaN there)");
	mean = lower_reduce(c, row->onnx, x, k, axes, 1, NULL);
	d = lower_op(c, "Sub", NULL, 2, x, mean);
	var = lower_reduce(c, row->onnx, lower_op(c, "Mul", NULL, 2, d, d), k, axes, keep, NULL);
	if (corr != 0 && (double)cnt - corr > 0)
		var = lower_op(c, "Mul", NULL, 2, var, lower_scalar(c, cdt, (double)cnt / ((double)cnt - corr)));
	else if (corr != 0)     /* torch divides the sum of squares by max(0, N - correction): 0/0 is NaN */
		var = lower_op(c, "Div", NULL, 2, lower_op(c, "Mul", NULL, 2, var, lower_scalar(c, cdt, (double)cnt)),
		               lower_scalar(c, cdt, 0.0));
	if (std)
		var = lower_op(c, "Sqrt", NULL, 1, var);
	lower_finish_typed(c, n, 0, var, cdt);
	if (lower_nout(n) > 1 && lower_out_used(c, n, 1))
		lower_finish_typed(c, n, 1, keep ? mean : lower_reduce(c, row->onnx, x, k, axes, 0, NULL), cdt);
	return 0;
}

/* The reduced axes of n ("dim": absent, None or [] is every axis of a
 * rank-r self) into axes; returns their number.  A 0-d self takes dim 0
 * or -1 and has no axis: none (ONNX reduces a 0-d tensor to itself). */
static int
reduced_axes(LowerCtx *c, const Node *n, int r, int64_t *axes)
{
	int k = lower_ints(c, n, "dim", axes, MAXR);

	if (r == 0)
		return 0;
	if (k <= 0)
		for (k = 0; k < r && k < MAXR; k++)
			axes[k] = k;
	for (int i = 0; i < k; i++)
		axes[i] = lower_axis(axes[i], r);
	return k;
}

/* max.dim / min.dim (self, dim, keepdim=False): values (ReduceMax/Min)
 * and indices (ArgMax/ArgMin: the first extreme, as torch); argmax /
 * argmin (self, dim=None, keepdim=False): without dim, of the flattened
 * self. */
int
lower_arg_reduce(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self");
	DType cdt = lower_opmath_nobool(sv ? sv->dtype : DT_FLOAT32);
	const Arg *d = lower_arg(n, "dim");
	int keep = (int)lower_int(c, n, "keepdim", 0), two = lower_nout(n) > 1, ismax = row->variant == OPV_MAX;
	int64_t dim = d && d->kind != ARG_NONE ? lower_int(c, n, "dim", 0) : 0, minus1 = -1;
	const char *x = lower_operand(c, n, "self", cdt), *r;

	if (!sv)
		return lower_fail(c, n, "no tensor 'self'");
	if (!d || d->kind == ARG_NONE) {
		if (keep)
			return lower_fail(c, n, "keepdim without dim is not supported");
		x = lower_op(c, "Reshape", NULL, 2, x, lower_i64s(c, 1, &minus1));
	}
	if (sv->rank == 0) {                    /* a 0-d self: itself, index 0 */
		if (two)
			lower_finish_typed(c, n, 0, x, cdt);
		lower_bind(c, n, two, lower_i64(c, 0));
		return 0;
	}
	dim = lower_axis(dim, sv->rank);
	if (two) {
		r = lower_reduce(c, ismax ? "ReduceMax" : "ReduceMin", x, 1, &dim, keep, NULL);
		lower_finish_typed(c, n, 0, r, cdt);
	}
	if (!two || lower_out_used(c, n, 1)) {
		lower_op(c, ismax ? "ArgMax" : "ArgMin", lower_out(c, n, two), 1, x);
		onnx_attr_int(c->a, c->last, "axis", dim);
		onnx_attr_int(c->a, c->last, "keepdims", keep);
	}
	(void)row;
	return 0;
}

/* logsumexp(self, dim, keepdim=False) = m + log(sum(exp(x - m))), m the
 * max over dim (ReduceLogSumExp would overflow) */
int
lower_logsumexp(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType cdt = lower_compute(lower_out_dtype(n, 0));
	int64_t axes[MAXR];
	int k = reduced_axes(c, n, sv->rank, axes), keep = (int)lower_int(c, n, "keepdim", 0);
	const char *x = lower_operand(c, n, "self", cdt), *m, *s;

	m = lower_reduce(c, "ReduceMax", x, k, axes, 1, NULL);
	/* an all -inf row keeps m finite: exp(-inf - 0) = 0, log 0 = -inf */
	m = lower_op(c, "Where", NULL, 3, lower_op(c, "IsInf", NULL, 1, m), lower_scalar(c, cdt, 0), m);
	s = lower_reduce(c, "ReduceSum", lower_op(c, "Exp", NULL, 1, lower_op(c, "Sub", NULL, 2, x, m)), k, axes, keep, NULL);
	if (!keep)
		m = lower_squeeze(c, m, k, axes, NULL);
	lower_result(c, n, "Add", cdt, 2, lower_op(c, row->onnx, NULL, 1, s), m);
	return 0;
}

/* linalg_vector_norm(self, ord=2, dim=None, keepdim=False, dtype=None):
 * ReduceL2 / ReduceL1, max / min of |x| for +-inf, the count of nonzeros
 * for 0, else (sum |x|^p)^(1/p). */
int
lower_vector_norm(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType cdt = lower_compute(lower_out_dtype(n, 0));
	int64_t axes[MAXR];
	int k = reduced_axes(c, n, sv->rank, axes), keep = (int)lower_int(c, n, "keepdim", 0);
	double p = lower_float(c, n, "ord", 2.0);
	const char *x = lower_operand(c, n, "self", cdt), *a, *r;

	if (k == 0) {                       /* a 0-d self */
		x = lower_unsqueeze(c, x, 1, (int64_t[]){0}, NULL);
		axes[k++] = 0;
	}
	a = lower_op(c, "Abs", NULL, 1, x);
	if (p == 2)
		r = lower_reduce(c, row->onnx, x, k, axes, keep, NULL);
	else if (p == 1)
		r = lower_reduce(c, "ReduceL1", x, k, axes, keep, NULL);
	else if (isinf(p))
		r = lower_reduce(c, p > 0 ? "ReduceMax" : "ReduceMin", a, k, axes, keep, NULL);
	else if (p == 0)
		r = lower_reduce(c, "ReduceSum", lower_cast(c, lower_op(c, "Not", NULL, 1, lower_op(c, "Equal", NULL, 2, x,
		                 lower_scalar(c, cdt, 0))), DT_BOOL, cdt), k, axes, keep, NULL);
	else
		r = lower_op(c, "Pow", NULL, 2, lower_reduce(c, "ReduceSum", lower_op(c, "Pow", NULL, 2, a,
		             lower_scalar(c, cdt, p)), k, axes, keep, NULL), lower_scalar(c, cdt, 1 / p));
	if (sv->rank == 0 && keep)
		r = lower_squeeze(c, r, 1, (int64_t[]){0}, NULL);
	lower_finish_typed(c, n, 0, r, cdt);
	return 0;
}

/* nansum(self, dim=None, keepdim=False, dtype=None): NaNs count as 0. */
int
lower_nansum(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType cdt = lower_opmath(lower_out_dtype(n, 0));
	int64_t axes[MAXR];
	int k = reduced_axes(c, n, sv->rank, axes);
	const char *x = lower_operand(c, n, "self", cdt);

	if (dtype_is_float(cdt))
		x = lower_op(c, "Where", NULL, 3, lower_op(c, "IsNaN", NULL, 1, x), lower_scalar(c, cdt, 0), x);
	lower_finish_typed(c, n, 0, lower_reduce(c, row->onnx, x, k, axes, (int)lower_int(c, n, "keepdim", 0), NULL), cdt);
	return 0;
}

/* count_nonzero(self, dim=None): the sum of self != 0, as int64. */
int
lower_count_nonzero(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType cdt = lower_opmath(sv->dtype);
	int64_t axes[MAXR];
	int k = reduced_axes(c, n, sv->rank, axes);
	const char *x = lower_operand(c, n, "self", cdt == DT_BOOL ? DT_INT32 : cdt), *nz;

	nz = lower_op(c, "Not", NULL, 1, lower_op(c, "Equal", NULL, 2, x, lower_scalar(c, cdt == DT_BOOL ? DT_INT32 : cdt, 0)));
	lower_finish_typed(c, n, 0, lower_reduce(c, row->onnx, lower_cast(c, nz, DT_BOOL, DT_INT64), k, axes, 0, NULL), DT_INT64);
	return 0;
}
