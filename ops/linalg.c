/* linalg.c: lowerings of matrix products (linalg.def).
 * float16/bfloat16 products compute in float32 and round back. */
#include "lower.h"

static DType
cdt_of(const Node *n)
{
	const Value *v = lower_out_value(n, 0);

	return lower_compute(v ? v->dtype : DT_FLOAT32);
}

/* addmm(self, mat1, mat2, beta=1, alpha=1) = beta self + alpha mat1 @ mat2 */
int
lower_addmm(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = cdt_of(n);
	double beta = lower_float(c, n, "beta", 1.0), alpha = lower_float(c, n, "alpha", 1.0);
	OnnxNode *nd = lower_result(c, n, row->onnx, cdt, 3, lower_operand(c, n, "mat1", cdt),
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

/* mm/bmm(self, mat2), matmul(self, other) */
int
lower_matmul(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = cdt_of(n);
	const char *b = lower_arg(n, "mat2") ? lower_operand(c, n, "mat2", cdt) : lower_operand(c, n, "other", cdt);

	lower_result(c, n, row->onnx, cdt, 2, lower_operand(c, n, "self", cdt), b);
	return 0;
}
