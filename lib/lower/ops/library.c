/* library.c: lowerings of library.def: aten._grouped_mm in its four forms
 * and the library custom ops that are one of them.
 *
 * The group of a row (or of a column, or a K index) is the number of group
 * ends (offs) at or before it, so the groups need no loop: the 2-D x 3-D
 * form gathers each row's weight matrix (rows x K x N, fine at the sizes
 * of a MoE layer's sorted tokens) and multiplies row by row; the other
 * offs forms mask the operand or the result per group.  Operands are read
 * by position: aten names them self, mat2 and transformers input, weight. */
#include <string.h>

#include "lower/lower.h"

/* The group of each index 0..len-1 (len a 1-D int64 of one value): the
 * number of ends <= it, int64 [len]. */
static const char *
group_of(LowerCtx *c, const char *offs, const char *len)
{
	const char *idx = lower_op(c, "Range", NULL, 3, lower_i64(c, 0), lower_squeeze(c, len, 0, NULL, NULL), lower_i64(c, 1));
	const char *le = lower_op(c, "LessOrEqual", NULL, 2, lower_unsqueeze(c, offs, 1, (int64_t[]){0}, NULL),
	                          lower_unsqueeze(c, idx, 1, (int64_t[]){1}, NULL));
	return lower_reduce(c, "ReduceSum", lower_cast(c, le, DT_BOOL, DT_INT64), 1, (int64_t[]){1}, 0, NULL);
}

/* 0..ng-1, int64. */
static const char *
groups(LowerCtx *c, int64_t ng)
{
	int64_t *v = ARENA_ARRAY(c->a, int64_t, ng);

	for (int64_t i = 0; i < ng; i++)
		v[i] = i;
	return lower_i64s(c, (int)ng, v);
}

/* The size of dim k of x as a 1-D int64 of one value. */
static const char *
dim_of(LowerCtx *c, const char *x, int64_t k)
{
	return lower_op(c, "Slice", NULL, 3, lower_op(c, "Shape", NULL, 1, x), lower_i64s(c, 1, &k),
	                lower_i64s(c, 1, (int64_t[]){k + 1}));
}

/* _grouped_mm(self, mat2, offs=None, bias=None, out_dtype=None) and
 * grouped_mm_fallback(input, weight, offs) (see library.def). */
int
lower_grouped_mm(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *av = n->nin > 0 ? lower_arg_value(n, n->in[0].name) : NULL;
	const Value *bv = n->nin > 1 ? lower_arg_value(n, n->in[1].name) : NULL;
	const Value *ov = lower_arg_value(n, "offs"), *out = lower_out_value(n, 0);
	DType cdt;
	const char *a, *b, *offs, *g, *y, *zero;
	int64_t ng;

	if (!av || !bv || !out)
		return lower_fail(c, n, "needs two tensor operands");
	if (lower_arg_value(n, "bias"))
		return lower_fail(c, n, "a bias is not supported (torch's grouped_mm kernels take none)");
	cdt = lower_compute(out->dtype);
	a = lower_cast(c, lower_value(c, av), av->dtype, cdt);
	b = lower_cast(c, lower_value(c, bv), bv->dtype, cdt);
	if (av->rank == 3 && bv->rank == 3) {
		if (ov)
			return lower_fail(c, n, "3-D x 3-D takes no offs");
		lower_finish(c, n, 0, lower_op(c, row->onnx, NULL, 2, a, b), cdt);
		return 0;
	}
	if (!ov || ov->rank != 1 || ov->dims[0].e || av->rank < 2 || av->rank > 3 || bv->rank < 2 || bv->rank > 3)
		return lower_fail(c, n, "needs offs (a 1-D tensor of static size) with 2-D or 3-D operands");
	ng = ov->dims[0].v;
	offs = lower_cast(c, lower_value(c, ov), ov->dtype, DT_INT64);
	zero = lower_scalar(c, cdt, 0.0);
	if (av->rank == 2 && bv->rank == 3) {          /* rows grouped: (M, K) x (G, K, N) */
		const char *valid;
		g = group_of(c, offs, dim_of(c, a, 0));
		valid = lower_op(c, "Less", NULL, 2, g, lower_i64(c, ng));
		g = lower_op(c, "Min", NULL, 2, g, lower_i64(c, ng - 1));
		y = lower_op(c, row->onnx, NULL, 2, lower_unsqueeze(c, a, 1, (int64_t[]){1}, NULL),
		             lower_op(c, "Gather", NULL, 2, b, g));
		y = lower_squeeze(c, y, 1, (int64_t[]){1}, NULL);
		y = lower_op(c, "Where", NULL, 3, lower_unsqueeze(c, valid, 1, (int64_t[]){1}, NULL), y, zero);
	} else if (av->rank == 2 && bv->rank == 2) {   /* K grouped: (M, K) x (K, N) -> (G, M, N) */
		/* mask (G, K): K index k is in group g */
		const char *mask = lower_op(c, "Equal", NULL, 2, lower_unsqueeze(c, groups(c, ng), 1, (int64_t[]){1}, NULL),
		                            lower_unsqueeze(c, group_of(c, offs, dim_of(c, a, 1)), 1, (int64_t[]){0}, NULL));
		y = lower_op(c, "Where", NULL, 3, lower_unsqueeze(c, mask, 1, (int64_t[]){1}, NULL),
		             lower_unsqueeze(c, a, 1, (int64_t[]){0}, NULL), zero);
		y = lower_op(c, row->onnx, NULL, 2, y, b);
	} else if (av->rank == 3 && bv->rank == 2) {   /* N grouped: (G, M, K) x (K, N) -> (M, N) */
		const char *mask = lower_op(c, "Equal", NULL, 2, lower_unsqueeze(c, groups(c, ng), 2, (int64_t[]){1, 2}, NULL),
		                            lower_unsqueeze(c, group_of(c, offs, dim_of(c, b, 1)), 2, (int64_t[]){0, 1}, NULL));
		y = lower_op(c, "Where", NULL, 3, mask, lower_op(c, row->onnx, NULL, 2, a, b), zero);
		y = lower_reduce(c, "ReduceSum", y, 1, (int64_t[]){0}, 0, NULL);
	} else {
		return lower_fail(c, n, "needs 2-D or 3-D operands");
	}
	lower_finish(c, n, 0, y, cdt);
	return 0;
}
