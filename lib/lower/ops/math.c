/* math.c: lowerings of scans and orderings (math.def).
 *
 * cumsum is CumSum; cumprod, which ONNX lacks, is a chain of products
 * over the slices of its (static) dim.  topk, sort and argsort are TopK:
 * sort takes the whole dim, argsort keeps only the indices.  Ties: TopK
 * puts the lower index first, as torch's stable sort does. */
#include <stdint.h>
#include <string.h>

#include "lower/lower.h"

/* cumsum(self, dim, dtype=None); integer inputs sum in int64 (the result
 * dtype torch gives them). */
int
lower_cumsum(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType cdt = lower_opmath(lower_out_dtype(n, 0));
	const char *x = lower_operand(c, n, "self", cdt);

	if (sv && sv->rank == 0) {   /* the sum of one element; ONNX's CumSum refuses a scalar */
		lower_finish_typed(c, n, 0, x, cdt);
		return 0;
	}
	lower_result(c, n, row->onnx, cdt, 2, x, lower_i64(c, lower_int(c, n, "dim", 0)));
	return 0;
}

/* cumprod(self, dim, dtype=None): out[i] = out[i-1] * x[i] along dim: ONNX's
 * CumProd from opset 26, before it (the OPV_FORMULA row) a Mul chain over
 * the slices, which needs the dim static. */
int
lower_cumprod(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType cdt = lower_opmath(lower_out_dtype(n, 0));
	int64_t dim = lower_axis(lower_int(c, n, "dim", 0), sv->rank), len;
	const char *x = lower_operand(c, n, "self", cdt), **part, *out;

	if (sv->rank == 0) {
		lower_finish_typed(c, n, 0, x, cdt);
		return 0;
	}
	if (row->variant != OPV_FORMULA) {
		/* cdt is one of CumProd's types: lower_opmath computes the 8 and
		 * 16-bit ints in int32, float16 and bfloat16 in float32 */
		if (dim < 0 || dim >= sv->rank)
			return lower_fail(c, n, "dim out of range");
		lower_finish_typed(c, n, 0, lower_op(c, row->onnx, NULL, 2, x, lower_i64(c, dim)), cdt);
		return 0;
	}
	if (dim < 0 || dim >= sv->rank || sv->dims[dim].e || sv->dims[dim].v > 1024)
		return lower_fail(c, n, "needs a static dim of at most 1024 below opset 26 (a Mul per "
		                  "position); `opset: 26` has ONNX's CumProd, for any dim");
	len = sv->dims[dim].v;
	part = ARENA_ARRAY(c->a, const char *, len + 1);
	for (int64_t i = 0; i < len; i++) {
		int64_t e = i + 1;
		part[i] = lower_op(c, "Slice", NULL, 4, x, lower_i64s(c, 1, &i), lower_i64s(c, 1, &e), lower_i64s(c, 1, &dim));
		if (i)
			part[i] = lower_op(c, row->onnx, NULL, 2, part[i - 1], part[i]);
	}
	out = lower_tmp(c);
	lower_emit(c, "Concat", (int)len, part, 1, &out);
	onnx_attr_int(c->a, c->last, "axis", dim);
	lower_finish_typed(c, n, 0, out, cdt);
	return 0;
}

/* topk(self, k, dim=-1, largest=True, sorted=True), sort(self, dim=-1,
 * descending=False), argsort(self, dim=-1, descending=False). */
int
lower_topk(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self");
	DType cdt = lower_opmath(sv ? sv->dtype : DT_FLOAT32);
	int is_topk = lower_arg(n, "k") != NULL, argsort = row->variant == OPV_INDICES;
	int64_t dim = lower_int(c, n, "dim", -1), k;
	int largest = is_topk ? (int)lower_int(c, n, "largest", 1) : (int)lower_int(c, n, "descending", 0);
	const char *x = lower_operand(c, n, "self", cdt), *kk, *out[2];
	OnnxNode *nd;

	if (!sv || sv->rank == 0)
		return lower_fail(c, n, "needs a tensor 'self' of rank 1 or more");
	dim = lower_axis(dim, sv->rank);
	if (is_topk && lower_arg(n, "k")->kind == ARG_SYM_INT) {      /* k known at run time */
		kk = lower_unsqueeze(c, lower_value(c, lower_arg(n, "k")->u.v), 1, (int64_t[]){0}, NULL);
	} else if (is_topk) {
		k = lower_int(c, n, "k", 1);
		kk = lower_i64s(c, 1, &k);
	} else if (!sv->dims[dim].e) {
		kk = lower_i64s(c, 1, &sv->dims[dim].v);
	} else {
		kk = lower_op(c, "Shape", NULL, 1, x);
		onnx_attr_int(c->a, c->last, "start", dim);
		onnx_attr_int(c->a, c->last, "end", dim + 1);
	}
	/* TopK always has both outputs; values computed in cdt are cast back */
	if (argsort) {
		out[0] = lower_tmp(c);
		out[1] = lower_out(c, n, 0);
	} else {
		out[0] = sv->dtype == cdt ? lower_out(c, n, 0) : lower_tmp(c);
		out[1] = lower_out_used(c, n, 1) ? lower_out(c, n, 1) : lower_tmp(c);
	}
	nd = lower_emit(c, row->onnx, 2, (const char *[]){x, kk}, 2, out);
	onnx_attr_int(c->a, nd, "axis", dim);
	onnx_attr_int(c->a, nd, "largest", largest);
	onnx_attr_int(c->a, nd, "sorted", 1);
	if (!argsort && sv->dtype != cdt)
		lower_finish_typed(c, n, 0, out[0], cdt);
	return 0;
}

/* diff(self, n=1, dim=-1, prepend=None, append=None): prepend and append
 * are concatenated along dim, then n times x[1:] - x[:-1] (logical xor for
 * bool, as torch does).  Slices are clamped by ONNX, so dim may be dynamic. */
int
lower_diff(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType t = lower_out_dtype(n, 0);
	DType cdt = t == DT_BOOL ? DT_BOOL : lower_opmath(t);
	int64_t dim = lower_axis(lower_int(c, n, "dim", -1), sv->rank), times = lower_int(c, n, "n", 1);
	int64_t zero = 0, one = 1, minus1 = -1, end = INT64_MAX;
	const char *x = lower_operand(c, n, "self", cdt);
	const char *pre = lower_operand(c, n, "prepend", cdt), *app = lower_operand(c, n, "append", cdt);
	const char *ax = lower_i64s(c, 1, &dim);

	(void)row;
	if (pre || app) {
		const char *parts[3];
		int k = 0;
		if (pre)
			parts[k++] = pre;
		parts[k++] = x;
		if (app)
			parts[k++] = app;
		x = k == 2 ? lower_op(c, "Concat", NULL, 2, parts[0], parts[1])
		           : lower_op(c, "Concat", NULL, 3, parts[0], parts[1], parts[2]);
		onnx_attr_int(c->a, c->last, "axis", dim);
	}
	for (int64_t i = 0; i < times; i++) {
		const char *hi = lower_op(c, "Slice", NULL, 4, x, lower_i64s(c, 1, &one), lower_i64s(c, 1, &end), ax);
		const char *lo = lower_op(c, "Slice", NULL, 4, x, lower_i64s(c, 1, &zero), lower_i64s(c, 1, &minus1), ax);
		x = lower_op(c, cdt == DT_BOOL ? "Xor" : "Sub", NULL, 2, hi, lo);
	}
	lower_finish(c, n, 0, x, cdt);
	return 0;
}
