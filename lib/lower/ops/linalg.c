/* linalg.c: lowerings of matrix products (linalg.def).
 * float16/bfloat16 products compute in float32 and round back. */
#include <string.h>

#include "lower/lower.h"

static DType
cdt_of(const Node *n)
{
	const Value *v = lower_out_value(n, 0);

	return lower_opmath(v ? v->dtype : DT_FLOAT32);
}

/* addmm(self, mat1, mat2, beta=1, alpha=1) = beta self + alpha mat1 @ mat2
 * (Gemm); baddbmm(self, batch1, batch2, beta=1, alpha=1) the same with
 * batched products (MatMul, scaled, added).  beta = 0 ignores self, NaNs
 * included, as torch. */
int
lower_addmm(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = cdt_of(n);
	double beta = lower_float(c, n, "beta", 1.0), alpha = lower_float(c, n, "alpha", 1.0);
	OnnxNode *nd;

	/* Gemm has no integer kernel on onnxruntime's CPU provider: integer
	 * addmm is MatMul, Mul and Add, as baddbmm/addbmm are (exact) */
	int gemm = strcmp(row->onnx, "Gemm") == 0;
	const LegalRow *lg = gemm ? lower_legalize(c, "Gemm", cdt) : NULL;

	if (lg && lg->action != LA_MATMUL)
		return lower_fail(c, n, "%s operands: ONNX's Gemm takes no such type (%s)", dtype_name(cdt), lg->how);
	if (!gemm || lg) {
		const char *p = lower_op(c, gemm ? "MatMul" : row->onnx, NULL, 2,
		                         lower_operand(c, n, gemm ? "mat1" : "batch1", cdt),
		                         lower_operand(c, n, gemm ? "mat2" : "batch2", cdt));
		const char *s = lower_operand(c, n, "self", cdt);
		if (alpha != 1.0)
			p = lower_op(c, "Mul", NULL, 2, p, lower_operand(c, n, "alpha", cdt));
		if (beta == 0.0) {
			lower_finish_typed(c, n, 0, p, cdt);
			return 0;
		}
		if (beta != 1.0)
			s = lower_op(c, "Mul", NULL, 2, s, lower_operand(c, n, "beta", cdt));
		lower_result(c, n, "Add", cdt, 2, s, p);
		return 0;
	}
	nd = lower_result(c, n, row->onnx, cdt, 3, lower_operand(c, n, "mat1", cdt),
	                  lower_operand(c, n, "mat2", cdt), lower_operand(c, n, "self", cdt));

	if (alpha != 1.0)
		onnx_attr_float(c->a, nd, "alpha", (float)alpha);
	if (beta != 1.0)
		onnx_attr_float(c->a, nd, "beta", (float)beta);
	return 0;
}

/* linear(input, weight, bias=None) = input @ weight^T + bias: one Gemm for
 * a 2-D input, else MatMul with the transposed weight. */
int
lower_linear(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = cdt_of(n);
	const Value *in = lower_arg_value(n, "input");
	const char *x = lower_operand(c, n, "input", cdt), *w = lower_operand(c, n, "weight", cdt);
	const char *b = lower_operand(c, n, "bias", cdt);
	const Value *wv = lower_arg_value(n, "weight");

	if (!in || !wv)
		return lower_fail(c, n, "needs tensors 'input' and 'weight'");
	if (in->rank == 2 && wv->rank == 2) {
		OnnxNode *nd = lower_result(c, n, row->onnx, cdt, b ? 3 : 2, x, w, b);
		onnx_attr_int(c->a, nd, "transB", 1);
		return 0;
	}
	if (wv->rank == 2) {
		w = lower_op(c, "Transpose", NULL, 1, w);
		onnx_attr_ints(c->a, c->last, "perm", 2, (int64_t[]){1, 0});
	}
	if (b)
		lower_result(c, n, "Add", cdt, 2, lower_op(c, "MatMul", NULL, 2, x, w), b);
	else
		lower_result(c, n, "MatMul", cdt, 2, x, w);
	return 0;
}

/* mm/bmm(self, mat2), matmul/linalg_matmul(self, other), mv(self, vec),
 * dot(self, tensor): MatMul's numpy rules are torch's.  A vector times a
 * matrix (or the reverse) is made a matrix product and squeezed back:
 * onnxruntime 1.30's Transpose+MatMul fusion gets a 1-D operand wrong. */
int
lower_matmul(LowerCtx *c, const Node *n, const OpRow *row)
{
	static const char *const second[] = {"mat2", "other", "vec", "tensor"};
	DType cdt = cdt_of(n);
	const char *a, *b = NULL;
	const Value *av = lower_arg_value(n, "self"), *bv = NULL;
	int64_t axis;

	for (size_t i = 0; i < sizeof second / sizeof second[0] && !b; i++)
		if ((b = lower_operand(c, n, second[i], cdt)))
			bv = lower_arg_value(n, second[i]);
	if (!b || !av || !bv)
		return lower_fail(c, n, "needs two tensors");
	if ((av->rank == 1) != (bv->rank == 1)) {
		a = lower_operand(c, n, "self", cdt);
		axis = av->rank == 1 ? -2 : -1;
		if (av->rank == 1)
			a = lower_unsqueeze(c, a, 1, &axis, NULL);
		else
			b = lower_unsqueeze(c, b, 1, &axis, NULL);
		lower_finish_typed(c, n, 0, lower_squeeze(c, lower_op(c, row->onnx, NULL, 2, a, b), 1, &axis, NULL), cdt);
		return 0;
	}

	lower_result(c, n, row->onnx, cdt, 2, lower_operand(c, n, "self", cdt), b);
	return 0;
}

/* outer(self, vec2) = self[:, None] * vec2[None, :] */
int
lower_outer(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = cdt_of(n);
	int64_t one = 1, zero = 0;

	lower_result(c, n, row->onnx, cdt, 2, lower_unsqueeze(c, lower_operand(c, n, "self", cdt), 1, &one, NULL),
	             lower_unsqueeze(c, lower_operand(c, n, "vec2", cdt), 1, &zero, NULL));
	return 0;
}

/* einsum(equation, tensors, path=None): ONNX Einsum takes torch's
 * equations (explicit "->", repeated labels for diagonals). */
int
lower_einsum(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = cdt_of(n);
	const Arg *ts = lower_arg(n, "tensors");
	const char **in;

	if (!ts || ts->kind != ARG_TENSORS || ts->n < 1)
		return lower_fail(c, n, "needs a list of tensors");
	in = ARENA_ARRAY(c->a, const char *, ts->n + 1);
	for (int i = 0; i < ts->n; i++) {
		const Value *v = ts->u.list[i].u.v;
		in[i] = lower_cast(c, lower_value(c, v), v->dtype, cdt);
	}
	{
		const Value *ov = lower_out_value(n, 0);
		const char *out = ov && ov->dtype == cdt ? lower_out(c, n, 0) : lower_tmp(c);
		OnnxNode *nd = lower_emit(c, row->onnx, ts->n, in, 1, &out);
		onnx_attr_string(c->a, nd, "equation", lower_str(c, n, "equation", ""));
		if (ov && ov->dtype != cdt)
			lower_finish_typed(c, n, 0, out, cdt);
	}
	return 0;
}

/* trace(self): the sum of a static matrix's diagonal, a Gather of its
 * flat positions i * (cols + 1). */
int
lower_trace(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self");
	DType cdt = cdt_of(n);
	int64_t len, *pos, minus1 = -1;
	const char *x;

	if (!sv || sv->rank != 2 || !lower_static(sv))
		return lower_fail(c, n, "needs a static matrix");
	len = sv->dims[0].v < sv->dims[1].v ? sv->dims[0].v : sv->dims[1].v;
	pos = ARENA_ARRAY(c->a, int64_t, len + 1);
	for (int64_t i = 0; i < len; i++)
		pos[i] = i * (sv->dims[1].v + 1);
	x = lower_op(c, "Reshape", NULL, 2, lower_operand(c, n, "self", cdt), lower_i64s(c, 1, &minus1));
	x = lower_op(c, "Gather", NULL, 2, x, lower_i64s(c, (int)len, pos));
	lower_finish_typed(c, n, 0, lower_reduce(c, row->onnx, x, 0, NULL, 0, NULL), cdt);
	return 0;
}
