/* elementwise.c: lowerings of the pointwise rows (elementwise.def).
 *
 * Shared lowerings emit row->onnx.  Dtypes follow torch: arithmetic
 * computes in the output's dtype (float16/bfloat16 in float32, rounded
 * back), comparisons in the promoted dtype of their operands, python
 * numbers become constants of the compute dtype. */
#include <math.h>
#include <string.h>

#include "lower.h"

static DType
out_dtype(const Node *n)
{
	const Value *v = lower_out_value(n, 0);

	return v ? v->dtype : DT_FLOAT32;
}

/* The second operand's schema name: "other" for most, "exponent" for pow. */
static const char *
second(const Node *n)
{
	return lower_arg(n, "other") ? "other" : "exponent";
}

int
lower_unary(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_compute(out_dtype(n));

	lower_result(c, n, row->onnx, cdt, 1, lower_operand(c, n, "self", cdt));
	return 0;
}

int
lower_rsqrt(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_compute(out_dtype(n));
	const char *s = lower_op(c, row->onnx, NULL, 1, lower_operand(c, n, "self", cdt));

	lower_result(c, n, "Reciprocal", cdt, 1, s);
	return 0;
}

int
lower_silu(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_compute(out_dtype(n));
	const char *x = lower_operand(c, n, "self", cdt);

	lower_result(c, n, "Mul", cdt, 2, x, lower_op(c, row->onnx, NULL, 1, x));
	return 0;
}

/* gelu(x) = x * Phi(x); Gelu exists from opset 20, earlier targets get the
 * formula: 0.5 x (1 + erf(x / sqrt 2)), or with approximate='tanh'
 * 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))). */
int
lower_gelu(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_compute(out_dtype(n));
	const char *x = lower_operand(c, n, "self", cdt);
	const char *approx = lower_str(c, n, "approximate", "none");
	int tanh_form = strcmp(approx, "tanh") == 0;
	const char *t;

	if (!tanh_form && strcmp(approx, "none") != 0)
		return lower_fail(c, n, "approximate='%s' is not 'none' or 'tanh'", approx);
	if (c->opset >= 20) {
		OnnxNode *nd = lower_result(c, n, row->onnx, cdt, 1, x);
		if (tanh_form)
			onnx_attr_string(c->a, nd, "approximate", "tanh");
		return 0;
	}
	if (tanh_form) {
		const char *x3 = lower_op(c, "Mul", NULL, 2, lower_op(c, "Mul", NULL, 2, x, x), x);
		t = lower_op(c, "Add", NULL, 2, x, lower_op(c, "Mul", NULL, 2, x3, lower_scalar(c, cdt, 0.044715)));
		t = lower_op(c, "Tanh", NULL, 1, lower_op(c, "Mul", NULL, 2, t, lower_scalar(c, cdt, sqrt(2.0 / M_PI))));
	} else {
		t = lower_op(c, "Erf", NULL, 1, lower_op(c, "Mul", NULL, 2, x, lower_scalar(c, cdt, M_SQRT1_2)));
	}
	t = lower_op(c, "Add", NULL, 2, t, lower_scalar(c, cdt, 1.0));
	t = lower_op(c, "Mul", NULL, 2, x, t);
	lower_result(c, n, "Mul", cdt, 2, t, lower_scalar(c, cdt, 0.5));
	return 0;
}

int
lower_clamp(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_compute(out_dtype(n));
	const char *x = lower_operand(c, n, "self", cdt);
	const char *lo = lower_operand(c, n, "min", cdt), *hi = lower_operand(c, n, "max", cdt);

	lower_result(c, n, row->onnx, cdt, 3, x, lo ? lo : "", hi ? hi : "");
	return 0;
}

/* add/sub/mul/div/pow/maximum/minimum and rsub; alpha scales `other`. */
int
lower_binary(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_compute(out_dtype(n));
	const char *a = lower_operand(c, n, "self", cdt);
	const char *b = lower_operand(c, n, second(n), cdt);
	double alpha = lower_float(c, n, "alpha", 1.0);

	if (!b)
		return lower_fail(c, n, "no second operand");
	if (alpha != 1.0)
		b = lower_op(c, "Mul", NULL, 2, b, lower_scalar(c, cdt, alpha));
	if (strncmp(n->op, "aten.rsub.", 10) == 0) {
		const char *t = a;
		a = b;
		b = t;
	}
	lower_result(c, n, row->onnx, cdt, 2, a, b);
	return 0;
}

int
lower_compare(LowerCtx *c, const Node *n, const OpRow *row)
{
	int sa, sb;
	DType da = lower_arg_dtype(n, "self", &sa), db = lower_arg_dtype(n, "other", &sb);
	DType cdt = lower_compute(lower_promote(da, sa, db, sb));
	const char *a = lower_operand(c, n, "self", cdt), *b = lower_operand(c, n, "other", cdt);

	if (!b)
		return lower_fail(c, n, "no second operand");
	if (strcmp(row->onnx, "NotEqual") == 0)
		lower_result(c, n, "Not", DT_BOOL, 1, lower_op(c, "Equal", NULL, 2, a, b));
	else
		lower_result(c, n, row->onnx, DT_BOOL, 2, a, b);
	return 0;
}

int
lower_logical(LowerCtx *c, const Node *n, const OpRow *row)
{
	const char *a = lower_operand(c, n, "self", DT_BOOL);
	const char *b = lower_operand(c, n, "other", DT_BOOL);

	if (b)
		lower_result(c, n, row->onnx, DT_BOOL, 2, a, b);
	else
		lower_result(c, n, row->onnx, DT_BOOL, 1, a);
	return 0;
}

/* bitwise_and/or/xor/not and the &, | operators: And/Or/Xor/Not on bool,
 * BitwiseAnd/Or/Xor/Not (opset 18) on integers. */
int
lower_bitwise(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType dt = out_dtype(n);
	const char *a = lower_operand(c, n, "self", dt), *b = lower_operand(c, n, "other", dt);
	const char *op = row->onnx;

	if (dt != DT_BOOL) {
		if (c->opset < 18)
			return lower_fail(c, n, "bitwise ops on integers need opset 18 or later");
		op = arena_printf(c->a, "Bitwise%s", row->onnx);
	}
	if (b)
		lower_result(c, n, op, dt, 2, a, b);
	else
		lower_result(c, n, op, dt, 1, a);
	return 0;
}

int
lower_where(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_compute(out_dtype(n));
	const char *cond = lower_operand(c, n, "condition", DT_BOOL);

	lower_result(c, n, row->onnx, cdt, 3, cond, lower_operand(c, n, "self", cdt),
	             lower_operand(c, n, "other", cdt));
	return 0;
}

int
lower_masked_fill(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_compute(out_dtype(n));
	const char *mask = lower_operand(c, n, "mask", DT_BOOL);

	lower_result(c, n, row->onnx, cdt, 3, mask, lower_operand(c, n, "value", cdt),
	             lower_operand(c, n, "self", cdt));
	return 0;
}

/* to.dtype, _to_copy, type_as: a Cast to the output's dtype (none when equal). */
int
lower_to(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *x = lower_arg_value(n, "self");

	(void)row;
	if (!x)
		return lower_fail(c, n, "no tensor 'self'");
	lower_finish(c, n, 0, lower_value(c, x), x->dtype);
	return 0;
}
