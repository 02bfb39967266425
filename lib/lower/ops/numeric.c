/* numeric.c: lowerings of the integer and floating-point representation
 * ops (numeric.def).
 *
 * Integer work (shift counts, Euclid's steps, the tests around them) runs
 * in int64, where onnxruntime has every kernel (its Where, Less and Mod
 * lack most small integer types), and the result is cast back to the
 * result dtype; a cast between integer types wraps, which is what torch's
 * fixed-width arithmetic does.  Only BitShift itself runs in an unsigned
 * type, the one of the operand's width (uint32 for 16-bit operands, which
 * onnxruntime's BitShift lacks: the low 16 bits come out the same). */
#include <math.h>
#include <string.h>

#include "lower/lower.h"

static int
is_unsigned(DType t)
{
	return t == DT_UINT8 || t == DT_UINT16 || t == DT_UINT32 || t == DT_UINT64 || t == DT_BOOL;
}

static const char *i64(LowerCtx *c, int64_t v) { return lower_i64(c, v); }
static const char *op2(LowerCtx *c, const char *op, const char *a, const char *b) { return lower_op(c, op, NULL, 2, a, b); }
static const char *where(LowerCtx *c, const char *k, const char *a, const char *b) { return lower_op(c, "Where", NULL, 3, k, a, b); }

/* The unsigned dtype BitShift runs in for an operand of `bits` bits. */
static DType
shift_dtype(int bits)
{
	return bits == 8 ? DT_UINT8 : bits == 64 ? DT_UINT64 : DT_UINT32;
}

/* 1 where count is outside 0 .. max - 1 */
static const char *
out_of_range(LowerCtx *c, const char *cnt, int64_t max)
{
	return op2(c, "Or", op2(c, "Less", cnt, i64(c, 0)), op2(c, "GreaterOrEqual", cnt, i64(c, max)));
}

static const char *
bitshift(LowerCtx *c, const char *x, const char *cnt, DType u, const char *dir)
{
	lower_op(c, "BitShift", NULL, 2, lower_cast(c, x, DT_INT64, u), lower_cast(c, cnt, DT_INT64, u));
	onnx_attr_string(c->a, c->last, "direction", dir);
	return c->last->output[0];
}

/* Checks that a shift's result dtype is an integer type; returns its width, or 0. */
static int
shift_width(LowerCtx *c, const Node *n, DType t)
{
	if (dtype_is_float(t) || t == DT_BOOL || dtype_size(t) == 0) {
		lower_fail(c, n, "shifts integers only (torch has no %s kernel)", dtype_name(t));
		return 0;
	}
	return dtype_size(t) * 8;
}

/* bitwise_left_shift / __lshift__ (self, other): the bits of self moved
 * left, 0 for a count outside 0 .. width - 1. */
int
lower_lshift(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType t = lower_out_dtype(n, 0);
	int bits = shift_width(c, n, t);
	const char *a, *b, *bad, *r;

	if (!bits)
		return DIAG_CONVERT;
	a = lower_operand(c, n, "self", DT_INT64);
	b = lower_operand(c, n, "other", DT_INT64);
	bad = out_of_range(c, b, bits);
	r = bitshift(c, where(c, bad, i64(c, 0), a), where(c, bad, i64(c, 0), b), shift_dtype(bits), "LEFT");
	(void)row;
	lower_finish(c, n, 0, r, shift_dtype(bits));
	return 0;
}

/* bitwise_right_shift / __rshift__ (self, other): arithmetic for signed
 * types (~(~x >> k) for negative x), logical for unsigned ones; a count
 * outside the range shifts by width - 1 (signed: the sign fill) or gives 0
 * (unsigned), as torch's kernel. */
int
lower_rshift(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType t = lower_out_dtype(n, 0), u;
	int bits = shift_width(c, n, t), uns = is_unsigned(t);
	const char *a, *b, *bad, *neg, *na, *r;

	(void)row;
	if (!bits)
		return DIAG_CONVERT;
	u = shift_dtype(bits);
	a = lower_operand(c, n, "self", DT_INT64);
	b = lower_operand(c, n, "other", DT_INT64);
	if (uns) {
		bad = out_of_range(c, b, bits);
		r = bitshift(c, where(c, bad, i64(c, 0), a), where(c, bad, i64(c, 0), b), u, "RIGHT");
		lower_finish(c, n, 0, r, u);
		return 0;
	}
	bad = out_of_range(c, b, bits - 1);
	neg = op2(c, "Less", a, i64(c, 0));
	na = where(c, neg, op2(c, "Sub", i64(c, -1), a), a);
	r = lower_cast(c, bitshift(c, na, where(c, bad, i64(c, bits - 1), b), u, "RIGHT"), u, DT_INT64);
	r = where(c, neg, op2(c, "Sub", i64(c, -1), r), r);
	lower_finish(c, n, 0, r, DT_INT64);
	return 0;
}

/* Euclid's steps for the largest operands of a `bits`-bit type: the
 * longest chain is for consecutive Fibonacci numbers. */
static int
euclid_steps(int bits)
{
	return bits >= 64 ? 93 : bits >= 32 ? 47 : bits >= 16 ? 25 : 13;
}

/* gcd(|a|, |b|) in int64: while a != 0: (a, b) = (b mod a, a); the answer
 * is b (torch's calc_gcd). */
static const char *
gcd64(LowerCtx *c, const char *a, const char *b, int bits)
{
	a = lower_op(c, "Abs", NULL, 1, a);
	b = lower_op(c, "Abs", NULL, 1, b);
	for (int i = 0, steps = euclid_steps(bits); i < steps; i++) {
		const char *nz = lower_op(c, "Not", NULL, 1, op2(c, "Equal", a, i64(c, 0)));
		const char *r = op2(c, "Mod", b, where(c, nz, a, i64(c, 1)));
		const char *na = where(c, nz, r, i64(c, 0));
		b = where(c, nz, a, b);
		a = na;
	}
	return b;
}

static int
int_operands(LowerCtx *c, const Node *n, DType t)
{
	if (dtype_is_float(t) || dtype_size(t) == 0)
		return lower_fail(c, n, "needs integer operands (torch has no %s kernel)", dtype_name(t));
	return 0;
}

int
lower_gcd(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType t = lower_out_dtype(n, 0);

	(void)row;
	if (int_operands(c, n, t))
		return DIAG_CONVERT;
	lower_finish(c, n, 0, gcd64(c, lower_operand(c, n, "self", DT_INT64), lower_operand(c, n, "other", DT_INT64),
	                            dtype_size(t) * 8), DT_INT64);
	return 0;
}

/* lcm(a, b) = |a / gcd * b|, 0 when gcd is 0 */
int
lower_lcm(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType t = lower_out_dtype(n, 0);
	const char *a, *b, *g, *z, *r;

	(void)row;
	if (int_operands(c, n, t))
		return DIAG_CONVERT;
	a = lower_operand(c, n, "self", DT_INT64);
	b = lower_operand(c, n, "other", DT_INT64);
	g = gcd64(c, a, b, dtype_size(t) * 8);
	z = op2(c, "Equal", g, i64(c, 0));
	r = op2(c, "Mul", op2(c, "Div", a, where(c, z, i64(c, 1), g)), b);
	lower_finish(c, n, 0, where(c, z, i64(c, 0), lower_op(c, "Abs", NULL, 1, r)), DT_INT64);
	return 0;
}

/* fmax / fmin(self, other): Max / Min, the other operand where one is NaN */
int
lower_fmax(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType t = lower_out_dtype(n, 0), cdt = lower_opmath_nobool(t);
	const char *a = lower_operand(c, n, "self", cdt), *b = lower_operand(c, n, "other", cdt);
	const char *r = op2(c, row->onnx, a, b);

	if (dtype_is_float(cdt)) {
		r = where(c, lower_op(c, "IsNaN", NULL, 1, b), a, r);
		r = where(c, lower_op(c, "IsNaN", NULL, 1, a), b, r);
	}
	lower_finish(c, n, 0, r, cdt);
	return 0;
}

/* sgn(self) for real tensors: Sign, and 0 for NaN as torch's (0 < x) - (x < 0) */
int
lower_sgn(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_opmath(lower_out_dtype(n, 0));
	const char *x = lower_operand(c, n, "self", cdt), *r = lower_op(c, row->onnx, NULL, 1, x);

	if (dtype_is_float(cdt))
		r = where(c, lower_op(c, "IsNaN", NULL, 1, x), lower_scalar(c, cdt, 0), r);
	lower_finish(c, n, 0, r, cdt);
	return 0;
}

/* heaviside(self, values): values where self is 0, else (self > 0) */
int
lower_heaviside(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType t = lower_out_dtype(n, 0), cdt = lower_opmath_nobool(t);
	const char *x = lower_operand(c, n, "self", cdt), *zero = lower_scalar(c, cdt, 0);
	const char *step = where(c, op2(c, "Greater", x, zero), lower_scalar(c, cdt, 1), zero);

	lower_finish(c, n, 0, lower_op(c, row->onnx, NULL, 3, op2(c, "Equal", x, zero),
	                               lower_operand(c, n, "values", cdt), step), cdt);
	return 0;
}

/* The input's compute dtype for the predicates below. */
static DType
in_dtype(const Node *n)
{
	const Value *v = lower_arg_value(n, "self");
	DType t = v ? v->dtype : DT_FLOAT32;

	return lower_opmath_nobool(t);
}

/* An all-false bool tensor shaped like x. */
static const char *
all_false(LowerCtx *c, const char *x)
{
	return lower_op(c, "Not", NULL, 1, op2(c, "Equal", x, x));
}

/* signbit(self): x < 0, or 1/x < 0 for -0.0 */
int
lower_signbit(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = in_dtype(n);
	const char *x = lower_operand(c, n, "self", cdt), *zero = lower_scalar(c, cdt, 0), *r;

	r = op2(c, row->onnx, x, zero);
	if (dtype_is_float(cdt))
		r = op2(c, "Or", r, op2(c, row->onnx, lower_op(c, "Reciprocal", NULL, 1, x), zero));
	lower_finish(c, n, 0, r, DT_BOOL);
	return 0;
}

static int
inf_side(LowerCtx *c, const Node *n, const OpRow *row, int pos)
{
	DType cdt = in_dtype(n);
	const char *x = lower_operand(c, n, "self", cdt);

	if (!dtype_is_float(cdt)) {
		lower_finish(c, n, 0, all_false(c, x), DT_BOOL);
		return 0;
	}
	lower_op(c, row->onnx, NULL, 1, x);
	onnx_attr_int(c->a, c->last, pos ? "detect_negative" : "detect_positive", 0);
	lower_finish(c, n, 0, c->last->output[0], DT_BOOL);
	return 0;
}

int lower_isposinf(LowerCtx *c, const Node *n, const OpRow *row) { return inf_side(c, n, row, 1); }
int lower_isneginf(LowerCtx *c, const Node *n, const OpRow *row) { return inf_side(c, n, row, 0); }

/* isreal(self): true everywhere for a real tensor */
int
lower_isreal(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *v = lower_tensor_arg(c, n, "self");
	const char *x = lower_value(c, v);

	if (v->dtype == DT_COMPLEX64 || v->dtype == DT_COMPLEX128 || v->dtype == DT_COMPLEX32)
		return lower_fail(c, n, "complex tensors are not supported");
	lower_finish(c, n, 0, lower_op(c, row->onnx, NULL, 2, lower_scalar(c, DT_BOOL, 1), lower_shape(c, v, x)), DT_BOOL);
	return 0;
}

/* x * k in the result's compute dtype (k rounded to it, as torch's scalar) */
static int
scale(LowerCtx *c, const Node *n, const OpRow *row, double k)
{
	DType cdt = lower_opmath(lower_out_dtype(n, 0));

	lower_finish(c, n, 0, op2(c, row->onnx, lower_operand(c, n, "self", cdt), lower_scalar(c, cdt, k)), cdt);
	return 0;
}

int lower_deg2rad(LowerCtx *c, const Node *n, const OpRow *row) { return scale(c, n, row, M_PI / 180); }
int lower_rad2deg(LowerCtx *c, const Node *n, const OpRow *row) { return scale(c, n, row, 180 / M_PI); }

/* exp2(x) = 2^x */
int
lower_exp2(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_compute(lower_out_dtype(n, 0));

	lower_finish(c, n, 0, op2(c, row->onnx, lower_scalar(c, cdt, 2), lower_operand(c, n, "self", cdt)), cdt);
	return 0;
}

/* log10(x) = log(x) / log(10) */
int
lower_log10(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_compute(lower_out_dtype(n, 0));
	const char *l = lower_op(c, row->onnx, NULL, 1, lower_operand(c, n, "self", cdt));

	lower_finish(c, n, 0, op2(c, "Div", l, lower_scalar(c, cdt, M_LN10)), cdt);
	return 0;
}

/* ldexp(self, other) = self * 2^other, in the floating result dtype */
int
lower_ldexp(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_compute(lower_out_dtype(n, 0));
	const char *p = op2(c, row->onnx, lower_scalar(c, cdt, 2), lower_operand(c, n, "other", cdt));

	lower_finish(c, n, 0, op2(c, "Mul", lower_operand(c, n, "self", cdt), p), cdt);
	return 0;
}

/* frexp(self) -> (mantissa, exponent): in float64, e = floor(log2 |x|) + 1
 * corrected by one either way where the log rounded across a power of 2,
 * m = x / 2^e; 0, inf and NaN give (x, 0). */
int
lower_frexp(LowerCtx *c, const Node *n, const OpRow *row)
{
	const DType d = DT_FLOAT64;
	DType t = lower_out_dtype(n, 0);
	const char *x = lower_operand(c, n, "self", d), *a = lower_op(c, "Abs", NULL, 1, x), *one = lower_scalar(c, d, 1);
	const char *ok, *e, *m, *am, *hi, *lo, *z = lower_scalar(c, d, 0);

	(void)row;
	if (!dtype_is_float(t))
		return lower_fail(c, n, "needs a floating tensor");
	ok = op2(c, "And", lower_op(c, "Not", NULL, 1, op2(c, "Equal", a, z)),
	         lower_op(c, "Not", NULL, 1, op2(c, "Or", lower_op(c, "IsNaN", NULL, 1, x), lower_op(c, "IsInf", NULL, 1, x))));
	a = where(c, ok, a, one);
	e = op2(c, "Add", lower_op(c, "Floor", NULL, 1, op2(c, "Div", lower_op(c, "Log", NULL, 1, a), lower_scalar(c, d, M_LN2))), one);
	am = op2(c, "Div", a, op2(c, "Pow", lower_scalar(c, d, 2), e));
	hi = op2(c, "GreaterOrEqual", am, one);
	lo = op2(c, "Less", am, lower_scalar(c, d, 0.5));
	e = op2(c, "Add", e, op2(c, "Sub", lower_cast(c, hi, DT_BOOL, d), lower_cast(c, lo, DT_BOOL, d)));
	m = op2(c, "Div", x, op2(c, "Pow", lower_scalar(c, d, 2), e));
	lower_finish(c, n, 0, where(c, ok, m, x), d);
	lower_finish(c, n, 1, where(c, ok, e, z), d);
	return 0;
}

/* float_power(self, exponent): both in float64, Pow */
int
lower_float_power(LowerCtx *c, const Node *n, const OpRow *row)
{
	const DType d = DT_FLOAT64;

	lower_finish(c, n, 0, op2(c, row->onnx, lower_operand(c, n, "self", d), lower_operand(c, n, "exponent", d)), d);
	return 0;
}
