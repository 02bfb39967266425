/* elementwise.c: lowerings of the pointwise rows (elementwise.def).
 *
 * Shared lowerings emit row->onnx.  Dtypes follow torch: arithmetic
 * computes in the output's dtype (float16/bfloat16 in float32, the small
 * integer types in int32, rounded or wrapped back: lower_opmath),
 * comparisons in the promoted dtype of their operands, python numbers
 * become constants of the compute dtype.  Ops ONNX lacks (trunc, atan2,
 * floor division, Python's remainder, ...) are short formulas, written the
 * way torch's CPU kernels compute them where rounding could differ. */
#include <math.h>
#include <string.h>

#include "lower/lower.h"

/* The second operand's schema name: "other" for most, "exponent" for pow. */
static const char *
second(const Node *n)
{
	return lower_arg(n, "other") ? "other" : "exponent";
}

int
lower_unary(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath(lower_out_dtype(n, 0));
	const LegalRow *lg = lower_legalize(c, row->onnx, cdt);   /* a type the operator refuses (legalize.def) */
	const char *x;

	if (lg && lg->action == LA_WIDEN)
		cdt = lower_exact(c, row->onnx, 0, cdt);
	x = lower_operand(c, n, "self", cdt);
	if (!lg || lg->action == LA_WIDEN)
		lower_result(c, n, row->onnx, cdt, 1, x);
	else if (lg->action == LA_IDENTITY)
		lower_finish_typed(c, n, 0, x, cdt);
	else if (lg->action == LA_MAX0)
		lower_result(c, n, "Max", cdt, 2, x, lower_scalar(c, cdt, 0));
	else
		return lower_fail(c, n, "%s input: ONNX's %s takes no such type on onnxruntime's CPU provider (%s)",
		                  dtype_name(cdt), row->onnx, lg->how);
	return 0;
}

int
lower_rsqrt(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath(lower_out_dtype(n, 0));
	const char *s = lower_op(c, row->onnx, NULL, 1, lower_operand(c, n, "self", cdt));

	lower_result(c, n, "Reciprocal", cdt, 1, s);
	return 0;
}

/* The last opset silu is written as ONNX's Swish at: onnxruntime (1.30) has
 * no Swish kernel, it expands ONNX's function body, which is defined with
 * the opset-24 Constant and CastLike; from opset 25, which replaced both,
 * it finds no implementation ("Could not find an implementation for
 * Swish(24)"), so later opsets keep x * Sigmoid(x). */
#define SWISH_BODY_OPSET 24

int
lower_silu(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath(lower_out_dtype(n, 0));
	const char *x = lower_operand(c, n, "self", cdt);

	if (row->variant != OPV_FORMULA && c->opset <= SWISH_BODY_OPSET)
		lower_result(c, n, row->onnx, cdt, 1, x); /* Swish's alpha is 1 by default */
	else
		lower_result(c, n, "Mul", cdt, 2, x, lower_op(c, "Sigmoid", NULL, 1, x));
	return 0;
}

/* gelu(x) = x * Phi(x); Gelu exists from opset 20, the OPV_FORMULA row of
 * earlier targets gets the formula: 0.5 x (1 + erf(x / sqrt 2)), or with
 * approximate='tanh' 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))). */
int
lower_gelu(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath(lower_out_dtype(n, 0));
	const char *x = lower_operand(c, n, "self", cdt);
	const char *approx = lower_str(c, n, "approximate", "none");
	int tanh_form = strcmp(approx, "tanh") == 0;
	const char *t;

	if (!tanh_form && strcmp(approx, "none") != 0)
		return lower_fail(c, n, "approximate='%s' is not 'none' or 'tanh'", approx);
	if (row->variant != OPV_FORMULA) {
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

/* clamp(self, min=None, max=None) and clamp_min/clamp_max with scalar
 * bounds: Clip; clamp.Tensor: Max then Min, as torch applies them. */
int
lower_clamp(LowerCtx *c, const Node *n, const OpRow *row)
{
	/* bool clamps as int32: Clip, Max and Min take no bool */
	DType cdt = lower_widen(c, n, strcmp(row->onnx, "Clip") == 0 ? "Clip" : "Max", lower_opmath(lower_out_dtype(n, 0)));
	const char *x, *lo, *hi;

	if (cdt == DT_UNKNOWN)
		return DIAG_CONVERT;
	x = lower_operand(c, n, "self", cdt);
	lo = lower_operand(c, n, "min", cdt);
	hi = lower_operand(c, n, "max", cdt);

	if (strcmp(row->onnx, "Clip") == 0) {
		lower_result(c, n, row->onnx, cdt, 3, x, lo ? lo : "", hi ? hi : "");
		return 0;
	}
	/* clamp.Tensor: Clip wants scalar bounds, so min(max(x, lo), hi) */
	if (lo)
		x = hi ? lower_op(c, "Max", NULL, 2, x, lo) : lower_result(c, n, "Max", cdt, 2, x, lo)->output[0];
	if (hi)
		lower_result(c, n, "Min", cdt, 2, x, hi);
	if (!lo && !hi)
		lower_finish_typed(c, n, 0, x, cdt);
	return 0;
}

/* add/sub/mul/div/pow/maximum/minimum and rsub; alpha scales `other`,
 * except in rsub (other - alpha * self), where it scales `self`. */
int
lower_binary(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath_nobool(lower_out_dtype(n, 0));
	const char *a = lower_operand(c, n, "self", cdt);
	const char *b = lower_operand(c, n, second(n), cdt);
	double alpha = lower_float(c, n, "alpha", 1.0);

	if (!b)
		return lower_fail(c, n, "no second operand");
	if (row->variant == OPV_REVERSED) {
		const char *t = a;
		a = b;
		b = t;
	}
	if (alpha != 1.0)
		b = lower_op(c, "Mul", NULL, 2, b, lower_scalar(c, cdt, alpha));
	lower_result(c, n, row->onnx, cdt, 2, a, b);
	return 0;
}

int
lower_compare(LowerCtx *c, const Node *n, const OpRow *row)
{
	int sa, sb;
	DType da = lower_arg_dtype(n, "self", &sa), db = lower_arg_dtype(n, "other", &sb);
	/* bool operands compare as int32 (ONNX's Less & co. take no bool) */
	DType cdt = lower_widen(c, n, row->onnx, lower_opmath(lower_promote(da, sa, db, sb)));
	const char *a, *b;

	if (cdt == DT_UNKNOWN)
		return DIAG_CONVERT;
	a = lower_operand(c, n, "self", cdt);
	b = lower_operand(c, n, "other", cdt);
	if (!b)
		return lower_fail(c, n, "no second operand");
	if (row->variant == OPV_NOT)
		lower_result(c, n, "Not", DT_BOOL, 1, lower_op(c, row->onnx, NULL, 2, a, b));
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

/* bitwise_and/or/xor/not and the &, |, ^ operators: And/Or/Xor/Not on
 * bool, BitwiseAnd/Or/Xor/Not on integers (opset 18; the rows are
 * OPF_INT18, so the driver has rejected integers at lower opsets). */
int
lower_bitwise(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType dt = lower_out_dtype(n, 0);
	const char *a = lower_operand(c, n, "self", dt), *b = lower_operand(c, n, "other", dt);
	const char *op = row->onnx;

	if (dt != DT_BOOL) {
		if (c->opset < 18)
			return lower_fail(c, n, "%s operands need `opset: 18` or later (ONNX's Bitwise%s)",
			                  dtype_name(dt), row->onnx);
		op = arena_printf(c->a, "Bitwise%s", row->onnx);
	}
	if (b)
		lower_result(c, n, op, dt, 2, a, b);
	else
		lower_result(c, n, op, dt, 1, a);
	return 0;
}

/* where(condition, self, other), self or other possibly a python number */
int
lower_where(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath_nobool(lower_out_dtype(n, 0));
	const char *cond = lower_operand(c, n, "condition", DT_BOOL);

	lower_result(c, n, row->onnx, cdt, 3, cond, lower_operand(c, n, "self", cdt),
	             lower_operand(c, n, "other", cdt));
	return 0;
}

int
lower_masked_fill(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath_nobool(lower_out_dtype(n, 0));
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
	lower_finish_typed(c, n, 0, lower_value(c, x), x->dtype);
	return 0;
}

/* ---- formulas for what ONNX has no operator for ---- */

static const char *
self_in(LowerCtx *c, const Node *n, DType cdt)
{
	return lower_operand(c, n, "self", cdt);
}

static const char *
bool_to(LowerCtx *c, const char *b, DType t)
{
	return lower_cast(c, b, DT_BOOL, t);
}

/* expm1(x) = exp(x) - 1 */
int
lower_expm1(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath(lower_out_dtype(n, 0));

	lower_result(c, n, "Sub", cdt, 2, lower_op(c, row->onnx, NULL, 1, self_in(c, n, cdt)),
	             lower_scalar(c, cdt, 1));
	return 0;
}

/* log1p(x) = log(1 + x) */
int
lower_log1p(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath(lower_out_dtype(n, 0));

	lower_result(c, n, row->onnx, cdt, 1, lower_op(c, "Add", NULL, 2, self_in(c, n, cdt),
	                                               lower_scalar(c, cdt, 1)));
	return 0;
}

/* log2(x) = log(x) / log(2) */
int
lower_log2(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath(lower_out_dtype(n, 0));

	lower_result(c, n, "Div", cdt, 2, lower_op(c, row->onnx, NULL, 1, self_in(c, n, cdt)),
	             lower_scalar(c, cdt, M_LN2));
	return 0;
}

int
lower_square(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath(lower_out_dtype(n, 0));
	const char *x = self_in(c, n, cdt);

	lower_result(c, n, row->onnx, cdt, 2, x, x);
	return 0;
}

/* trunc(x) = sign(x) floor(|x|); frac(x) = x - trunc(x).  Integers are
 * their own trunc. */
int
lower_trunc(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath(lower_out_dtype(n, 0));
	const char *x = self_in(c, n, cdt), *t = x;
	int frac = row->variant == OPV_FRAC;

	if (dtype_is_float(cdt))
		t = lower_op(c, "Mul", NULL, 2, lower_op(c, "Sign", NULL, 1, x),
		             lower_op(c, row->onnx, NULL, 1, lower_op(c, "Abs", NULL, 1, x)));
	if (frac)
		lower_result(c, n, "Sub", cdt, 2, x, t);
	else
		lower_finish_typed(c, n, 0, t, cdt);
	return 0;
}

/* round.decimals(self, decimals): as torch, round(x * 10^d) / 10^d, or
 * for d < 0 round(x / 10^-d) * 10^-d; Round is half-to-even like torch. */
int
lower_round(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath(lower_out_dtype(n, 0));
	int64_t d = lower_int(c, n, "decimals", 0);
	const char *p = lower_scalar(c, cdt, pow(10.0, (double)(d < 0 ? -d : d)));
	const char *r;

	r = lower_op(c, row->onnx, NULL, 1, lower_op(c, d < 0 ? "Div" : "Mul", NULL, 2, self_in(c, n, cdt), p));
	lower_result(c, n, d < 0 ? "Mul" : "Div", cdt, 2, r, p);
	return 0;
}

/* logit(self, eps=None) = log(x / (1 - x)), x clamped to [eps, 1 - eps]. */
int
lower_logit(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath(lower_out_dtype(n, 0));
	const char *x = self_in(c, n, cdt);
	const Arg *eps = lower_arg(n, "eps");

	if (eps && eps->kind != ARG_NONE) {
		double e = lower_float(c, n, "eps", 0);
		x = lower_op(c, "Clip", NULL, 3, x, lower_scalar(c, cdt, e), lower_scalar(c, cdt, 1 - e));
	}
	lower_result(c, n, row->onnx, cdt, 1,
	             lower_op(c, "Div", NULL, 2, x, lower_op(c, "Sub", NULL, 2, lower_scalar(c, cdt, 1), x)));
	return 0;
}

/* isnan / isinf / isfinite.  Integers are never NaN or infinite: x == x
 * is their all-true tensor. */
int
lower_isnan(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self");
	DType cdt = lower_opmath(sv ? sv->dtype : DT_FLOAT32);
	const char *x = self_in(c, n, cdt), *r;
	int finite = row->variant == OPV_FINITE;

	if (!dtype_is_float(cdt)) {
		r = lower_op(c, "Equal", NULL, 2, x, x);
		lower_result(c, n, finite ? "Identity" : "Not", DT_BOOL, 1, r);
		return 0;
	}
	if (!finite) {
		lower_result(c, n, row->onnx, DT_BOOL, 1, x);
		return 0;
	}
	r = lower_op(c, "Or", NULL, 2, lower_op(c, "IsNaN", NULL, 1, x), lower_op(c, "IsInf", NULL, 1, x));
	lower_result(c, n, "Not", DT_BOOL, 1, r);
	return 0;
}

/* The largest finite value of a floating dtype. */
static double
dtype_max(DType t)
{
	switch (t) {
	case DT_FLOAT16: return 65504.0;
	case DT_BFLOAT16: return 3.3895313892515355e38;
	case DT_FLOAT32: return 3.4028234663852886e38;
	default: return 1.7976931348623157e308;
	}
}

/* nan_to_num(self, nan=None (0), posinf=None, neginf=None (the dtype's
 * largest finite values)); integers pass through. */
int
lower_nan_to_num(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType odt = lower_out_dtype(n, 0), cdt = lower_opmath(odt);
	const char *x = self_in(c, n, cdt), *inf;
	double big = dtype_max(odt);

	if (!dtype_is_float(cdt)) {
		lower_finish_typed(c, n, 0, x, cdt);
		return 0;
	}
	x = lower_op(c, row->onnx, NULL, 3, lower_op(c, "IsNaN", NULL, 1, x),
	             lower_scalar(c, cdt, lower_float(c, n, "nan", 0)), x);
	inf = lower_op(c, "IsInf", NULL, 1, x);
	onnx_attr_int(c->a, c->last, "detect_negative", 0);
	x = lower_op(c, row->onnx, NULL, 3, inf, lower_scalar(c, cdt, lower_float(c, n, "posinf", big)), x);
	inf = lower_op(c, "IsInf", NULL, 1, x);
	onnx_attr_int(c->a, c->last, "detect_positive", 0);
	lower_result(c, n, row->onnx, cdt, 3, inf, lower_scalar(c, cdt, lower_float(c, n, "neginf", -big)), x);
	return 0;
}

/* v < 0, or v is -0 (1 / -0 = -inf) */
static const char *
negative(LowerCtx *c, const char *v, const char *zero)
{
	return lower_op(c, "Or", NULL, 2, lower_op(c, "Less", NULL, 2, v, zero),
	                lower_op(c, "Less", NULL, 2, lower_op(c, "Reciprocal", NULL, 1, v), zero));
}

/* atan2(self, other) = atan(self / other), moved by +-pi into the left
 * half plane (other < 0) on the side of self's sign. */
int
lower_atan2(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath(lower_out_dtype(n, 0));
	const char *y = self_in(c, n, cdt), *x = lower_operand(c, n, "other", cdt), *zero = lower_scalar(c, cdt, 0);
	const char *q = lower_op(c, "Div", NULL, 2, y, x), *r, *turn, *both0;

	/* 0 / 0 is NaN, where atan2(+-0, +-0) is +-0 or +-pi: the quotient
	 * becomes 0 there, and the signs come from 1 / v (-0 gives -inf) */
	both0 = lower_op(c, "And", NULL, 2, lower_op(c, "Equal", NULL, 2, x, zero), lower_op(c, "Equal", NULL, 2, y, zero));
	r = lower_op(c, row->onnx, NULL, 1, lower_op(c, "Where", NULL, 3, both0, y, q));
	turn = lower_op(c, "Where", NULL, 3, negative(c, y, zero), lower_scalar(c, cdt, -M_PI), lower_scalar(c, cdt, M_PI));
	lower_result(c, n, "Where", cdt, 3, negative(c, x, zero), lower_op(c, "Add", NULL, 2, r, turn), r);
	return 0;
}

/* hypot(self, other) = sqrt(self^2 + other^2) */
int
lower_hypot(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath(lower_out_dtype(n, 0));
	const char *a = self_in(c, n, cdt), *b = lower_operand(c, n, "other", cdt);

	lower_result(c, n, row->onnx, cdt, 1, lower_op(c, "Add", NULL, 2, lower_op(c, "Mul", NULL, 2, a, a),
	                                               lower_op(c, "Mul", NULL, 2, b, b)));
	return 0;
}

/* copysign(self, other) = |self| with other's sign bit: other < 0, or
 * other is -0 (1 / -0 = -inf). */
int
lower_copysign(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath(lower_out_dtype(n, 0));
	const char *a = lower_op(c, "Abs", NULL, 1, self_in(c, n, cdt));
	const char *b = lower_operand(c, n, "other", cdt), *zero = lower_scalar(c, cdt, 0), *neg;

	neg = lower_op(c, "Or", NULL, 2, lower_op(c, "Less", NULL, 2, b, zero),
	               lower_op(c, "Less", NULL, 2, lower_op(c, "Reciprocal", NULL, 1, b), zero));
	lower_result(c, n, row->onnx, cdt, 3, neg, lower_op(c, "Neg", NULL, 1, a), a);
	return 0;
}

/* lerp(self, end, weight) = self + weight (end - self) */
int
lower_lerp(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath(lower_out_dtype(n, 0));
	const char *a = self_in(c, n, cdt), *b = lower_operand(c, n, "end", cdt);
	const char *w = lower_operand(c, n, "weight", cdt);

	lower_result(c, n, row->onnx, cdt, 2, a, lower_op(c, "Mul", NULL, 2, w, lower_op(c, "Sub", NULL, 2, b, a)));
	return 0;
}

/* addcmul / addcdiv(self, tensor1, tensor2, value=1) = self + value (t1 op t2) */
int
lower_addcmul(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath(lower_out_dtype(n, 0));
	const char *t = lower_op(c, row->onnx, NULL, 2, lower_operand(c, n, "tensor1", cdt),
	                         lower_operand(c, n, "tensor2", cdt));
	double v = lower_float(c, n, "value", 1.0);

	if (v != 1.0)
		t = lower_op(c, "Mul", NULL, 2, t, lower_operand(c, n, "value", cdt));
	lower_result(c, n, "Add", cdt, 2, self_in(c, n, cdt), t);
	return 0;
}

/* 1 (as a bool tensor) where a nonzero remainder r and the divisor b have
 * different signs: there truncating and flooring division differ. */
static const char *
signs_differ(LowerCtx *c, const char *r, const char *b, DType cdt)
{
	const char *zero = lower_scalar(c, cdt, 0);

	return lower_op(c, "And", NULL, 2, lower_op(c, "Not", NULL, 1, lower_op(c, "Equal", NULL, 2, r, zero)),
	                lower_op(c, "Xor", NULL, 2, lower_op(c, "Less", NULL, 2, r, zero),
	                         lower_op(c, "Less", NULL, 2, b, zero)));
}

/* a / b rounded towards minus infinity.  Integers: the truncating Div,
 * less one where the remainder's sign differs from b's.  Floats: torch's
 * div_floor: (a - fmod(a, b)) / b, corrected the same way, then rounded
 * to the nearest integer. */
static const char *
floor_div(LowerCtx *c, const char *a, const char *b, DType cdt)
{
	const char *q, *r, *fl;

	if (!dtype_is_float(cdt)) {
		q = lower_op(c, "Div", NULL, 2, a, b);
		r = lower_op(c, "Sub", NULL, 2, a, lower_op(c, "Mul", NULL, 2, q, b));
		return lower_op(c, "Sub", NULL, 2, q, bool_to(c, signs_differ(c, r, b, cdt), cdt));
	}
	r = lower_op(c, "Mod", NULL, 2, a, b);
	onnx_attr_int(c->a, c->last, "fmod", 1);
	q = lower_op(c, "Div", NULL, 2, lower_op(c, "Sub", NULL, 2, a, r), b);
	q = lower_op(c, "Sub", NULL, 2, q, bool_to(c, signs_differ(c, r, b, cdt), cdt));
	fl = lower_op(c, "Floor", NULL, 1, q);
	return lower_op(c, "Add", NULL, 2, fl, bool_to(c, lower_op(c, "Greater", NULL, 2,
	                lower_op(c, "Sub", NULL, 2, q, fl), lower_scalar(c, cdt, 0.5)), cdt));
}

/* div.Tensor_mode(self, other, rounding_mode=None), floor_divide(self, other) */
int
lower_div_mode(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath(lower_out_dtype(n, 0));
	const char *a = self_in(c, n, cdt), *b = lower_operand(c, n, "other", cdt), *q;
	const char *mode = lower_str(c, n, "rounding_mode", lower_arg(n, "rounding_mode") ? NULL : "floor");

	if (!mode || (dtype_is_float(cdt) ? 0 : strcmp(mode, "trunc") == 0)) {
		lower_result(c, n, row->onnx, cdt, 2, a, b);   /* true division; Div truncates integers */
		return 0;
	}
	if (strcmp(mode, "trunc") == 0) {
		q = lower_op(c, row->onnx, NULL, 2, a, b);
		lower_result(c, n, "Mul", cdt, 2, lower_op(c, "Sign", NULL, 1, q),
		             lower_op(c, "Floor", NULL, 1, lower_op(c, "Abs", NULL, 1, q)));
	} else if (strcmp(mode, "floor") == 0) {
		lower_finish_typed(c, n, 0, floor_div(c, a, b, cdt), cdt);
	} else {
		return lower_fail(c, n, "rounding_mode '%s' is not 'trunc' or 'floor'", mode);
	}
	return 0;
}

/* fmod(self, other): C's fmod (the dividend's sign), Mod with fmod=1.
 * remainder(self, other): Python's % (the divisor's sign): Mod with
 * fmod=0 for integers; for floats fmod plus other where the signs
 * differ, as torch computes it. */
int
lower_fmod(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath(lower_out_dtype(n, 0));
	const char *a = self_in(c, n, cdt), *b = lower_operand(c, n, "other", cdt), *r;
	int python = row->variant == OPV_PYTHON;

	if (python && !dtype_is_float(cdt)) {
		onnx_attr_int(c->a, lower_result(c, n, row->onnx, cdt, 2, a, b), "fmod", 0);
		return 0;
	}
	if (!python) {
		onnx_attr_int(c->a, lower_result(c, n, row->onnx, cdt, 2, a, b), "fmod", 1);
		return 0;
	}
	r = lower_op(c, row->onnx, NULL, 2, a, b);
	onnx_attr_int(c->a, c->last, "fmod", 1);
	lower_result(c, n, "Where", cdt, 3, signs_differ(c, r, b, cdt), lower_op(c, "Add", NULL, 2, r, b), r);
	return 0;
}

/* __lshift__ / __rshift__(self, other: a constant count k): x * 2^k and
 * x floor-divided by 2^k (an arithmetic shift; ONNX BitShift is for
 * unsigned types only). */
int
lower_shift(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath(lower_out_dtype(n, 0));
	int64_t k = lower_int(c, n, "other", 0);
	const char *x = self_in(c, n, cdt), *p;

	if (k < 0 || k > 62 || dtype_is_float(cdt))
		return lower_fail(c, n, "shifts integers by a constant count from 0 to 62");
	p = lower_scalar(c, cdt, (double)((int64_t)1 << k));
	if (strcmp(row->onnx, "Mul") == 0)
		lower_result(c, n, "Mul", cdt, 2, x, p);
	else
		lower_finish_typed(c, n, 0, floor_div(c, x, p, cdt), cdt);
	return 0;
}
