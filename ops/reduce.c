/* reduce.c: lowerings of reductions (reduce.def).  An absent or empty dim
 * list reduces every dim, as in torch; lower_reduce() puts the axes where
 * the target opset wants them. */
#include "lower.h"

#define MAXR 16

static DType
out_dtype(const Node *n, int k)
{
	const Value *v = lower_out_value(n, k);

	return v ? v->dtype : DT_FLOAT32;
}

/* sum / mean / amax / amin (self, dim=None, keepdim=False, dtype=None) */
int
lower_reduction(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType odt = out_dtype(n, 0), cdt = lower_compute(odt);
	int64_t axes[MAXR];
	int k = lower_ints(c, n, "dim", axes, MAXR);
	const char *r;

	r = lower_reduce(c, row->onnx, lower_operand(c, n, "self", cdt), k < 0 ? 0 : k, axes,
	                 (int)lower_int(c, n, "keepdim", 0), odt == cdt ? lower_out(c, n, 0) : NULL);
	if (odt != cdt)
		lower_finish(c, n, 0, r, cdt);
	return 0;
}

/* any / all (self, dim, keepdim=False): ReduceMax / ReduceMin over 0/1. */
int
lower_any_all(LowerCtx *c, const Node *n, const OpRow *row)
{
	int64_t axes[MAXR];
	int k = lower_ints(c, n, "dim", axes, MAXR);
	const char *x = lower_cast(c, lower_operand(c, n, "self", DT_BOOL), DT_BOOL, DT_INT32);
	const char *r = lower_reduce(c, row->onnx, x, k < 0 ? 0 : k, axes, (int)lower_int(c, n, "keepdim", 0), NULL);

	lower_finish(c, n, 0, r, DT_INT32);
	return 0;
}

/* var_mean / var (self, dim=None, correction=None (1), keepdim=False) */
int
lower_var_mean(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *xv = lower_arg_value(n, "self");
	DType cdt = lower_compute(out_dtype(n, 0));
	int64_t axes[MAXR], cnt = 1;
	int k = lower_ints(c, n, "dim", axes, MAXR), keep = (int)lower_int(c, n, "keepdim", 0);
	double corr = lower_float(c, n, "correction", 1.0);
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
	}
	mean = lower_reduce(c, row->onnx, x, k, axes, 1, NULL);
	d = lower_op(c, "Sub", NULL, 2, x, mean);
	var = lower_reduce(c, row->onnx, lower_op(c, "Mul", NULL, 2, d, d), k, axes, keep, NULL);
	if (corr != 0)
		var = lower_op(c, "Mul", NULL, 2, var, lower_scalar(c, cdt, (double)cnt / ((double)cnt - corr)));
	lower_finish(c, n, 0, var, cdt);
	if (lower_nout(n) > 1 && lower_out_used(c, n, 1))
		lower_finish(c, n, 1, keep ? mean : lower_reduce(c, row->onnx, x, k, axes, 0, NULL), cdt);
	return 0;
}
