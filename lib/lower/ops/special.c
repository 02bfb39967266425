/* special.c: lowerings of the special functions (special.def).
 *
 * ONNX has Erf but no erfc, erfinv, gamma-family or Bessel function, so
 * these are written out as series.  They run in float64 whatever the
 * input dtype (every operator used has double kernels in onnxruntime; Erf
 * has not, so erf is a series here too) and are rounded to the result's
 * dtype at the end: float32 results then come out within an ulp or two of
 * torch's own.  A series is a Horner chain of constants, and where a
 * function needs two expansions (erfc's Taylor series and continued
 * fraction, the Bessel power and asymptotic series) both run on inputs
 * clamped into their own range and a Where picks one, so neither sees an
 * argument it would overflow on.  The coefficients were checked against
 * torch's float64 kernels over the ranges given in special.def. */
#include <math.h>
#include <string.h>

#include "lower/lower.h"

#define D DT_FLOAT64

static DType
out_dtype(const Node *n)
{
	const Value *v = lower_out_value(n, 0);

	return v ? v->dtype : DT_FLOAT32;
}

static const char *k_(LowerCtx *c, double v) { return lower_scalar(c, D, v); }
static const char *op1(LowerCtx *c, const char *op, const char *a) { return lower_op(c, op, NULL, 1, a); }
static const char *op2(LowerCtx *c, const char *op, const char *a, const char *b) { return lower_op(c, op, NULL, 2, a, b); }
static const char *add(LowerCtx *c, const char *a, const char *b) { return op2(c, "Add", a, b); }
static const char *sub(LowerCtx *c, const char *a, const char *b) { return op2(c, "Sub", a, b); }
static const char *mul(LowerCtx *c, const char *a, const char *b) { return op2(c, "Mul", a, b); }
static const char *dv(LowerCtx *c, const char *a, const char *b) { return op2(c, "Div", a, b); }
static const char *where(LowerCtx *c, const char *k, const char *a, const char *b) { return lower_op(c, "Where", NULL, 3, k, a, b); }

/* sum of cf[i] t^i, i < k (Horner) */
static const char *
poly(LowerCtx *c, const char *t, int k, const double *cf)
{
	const char *acc = k_(c, cf[k - 1]);

	for (int i = k - 2; i >= 0; i--)
		acc = add(c, mul(c, acc, t), k_(c, cf[i]));
	return acc;
}

/* self (or `name`) in float64 */
static const char *
in_d(LowerCtx *c, const Node *n, const char *name)
{
	return lower_operand(c, n, name, D);
}

static int
finish(LowerCtx *c, const Node *n, const char *r)
{
	lower_finish(c, n, 0, r, D);
	return 0;
}

/* ---- the error function family ---- */

#define ERF_TERMS 36    /* Taylor terms of erf on [0, 2]: the last is below 1e-20 of the sum */
#define CF_DEPTH 40     /* continued fraction of erfc on [2, inf): 5e-14 relative at 2 */

/* erf(z) for 0 <= z <= 2: 2/sqrt(pi) e^(-z^2) z sum (2 z^2)^n / (2n+1)!!,
 * a series of positive terms (no cancellation). */
static const char *
erf_small(LowerCtx *c, const char *z)
{
	double cf[ERF_TERMS];

	cf[0] = 1;
	for (int i = 1; i < ERF_TERMS; i++)
		cf[i] = cf[i - 1] / (2 * i + 1);
	const char *s = poly(c, mul(c, k_(c, 2), mul(c, z, z)), ERF_TERMS, cf);
	return mul(c, mul(c, k_(c, M_2_SQRTPI), op1(c, "Exp", op1(c, "Neg", mul(c, z, z)))), mul(c, z, s));
}

/* erfcx(z) = e^(z^2) erfc(z) for z >= 2, by Laplace's continued fraction
 * 1 / (sqrt(pi) (z + (1/2) / (z + 1 / (z + (3/2) / (z + ...))))). */
static const char *
erfcx_big(LowerCtx *c, const char *z)
{
	const char *t = z;

	for (int k = CF_DEPTH; k >= 1; k--)
		t = add(c, z, dv(c, k_(c, k / 2.0), t));
	return op1(c, "Reciprocal", mul(c, k_(c, sqrt(M_PI)), t));
}

/* erfc(z) for any z (float64): the series below 2, the fraction above,
 * 2 - erfc(-z) for negative z. */
static const char *
erfc_d(LowerCtx *c, const char *z)
{
	const char *a = op1(c, "Abs", z), *two = k_(c, 2);
	const char *lo = op2(c, "Min", a, two), *hi = op2(c, "Max", a, two);
	const char *rs = sub(c, k_(c, 1), erf_small(c, lo));
	const char *rb = mul(c, op1(c, "Exp", op1(c, "Neg", mul(c, hi, hi))), erfcx_big(c, hi));
	const char *r = where(c, op2(c, "Less", a, two), rs, rb);

	return where(c, op2(c, "Less", z, k_(c, 0)), sub(c, two, r), r);
}

/* erfc(self) */
int
lower_erfc(LowerCtx *c, const Node *n, const OpRow *row)
{
	(void)row;
	return finish(c, n, erfc_d(c, in_d(c, n, "self")));
}

/* special_erfcx(self) = e^(x^2) erfc(x): the fraction itself from 2 up, so
 * it never overflows there. */
int
lower_erfcx(LowerCtx *c, const Node *n, const OpRow *row)
{
	const char *x = in_d(c, n, "self"), *two = k_(c, 2);
	const char *lo = op2(c, "Min", x, two), *hi = op2(c, "Max", x, two);
	const char *rl = mul(c, op1(c, "Exp", mul(c, lo, lo)), erfc_d(c, lo));

	(void)row;
	return finish(c, n, where(c, op2(c, "Less", x, two), rl, erfcx_big(c, hi)));
}

/* ndtr(x) = erfc(-x / sqrt 2) / 2, in float64 */
static const char *
ndtr_d(LowerCtx *c, const char *x)
{
	return mul(c, k_(c, 0.5), erfc_d(c, mul(c, x, k_(c, -M_SQRT1_2))));
}

int
lower_ndtr(LowerCtx *c, const Node *n, const OpRow *row)
{
	(void)row;
	return finish(c, n, ndtr_d(c, in_d(c, n, "self")));
}

/* special_log_ndtr(x): log(erfc(z) / 2), z = -x / sqrt 2; from z = 2 on
 * log(erfcx(z) / 2) - z^2, which does not underflow. */
int
lower_log_ndtr(LowerCtx *c, const Node *n, const OpRow *row)
{
	const char *z = mul(c, in_d(c, n, "self"), k_(c, -M_SQRT1_2)), *two = k_(c, 2);
	const char *lo = op2(c, "Min", z, two), *hi = op2(c, "Max", z, two);
	const char *rl = op1(c, "Log", mul(c, k_(c, 0.5), erfc_d(c, lo)));
	const char *rh = sub(c, op1(c, "Log", mul(c, k_(c, 0.5), erfcx_big(c, hi))), mul(c, hi, hi));

	(void)row;
	return finish(c, n, where(c, op2(c, "Less", z, two), rl, rh));
}

/* Giles' erfinv ("Approximating the erfinv function", GPU Computing Gems,
 * 2011, single precision): w = -log((1 - y)(1 + y)) = -log(omy * opy),
 * a polynomial in w - 2.5 below 5 and in sqrt(w) - 3 above, times y. */
static const char *
giles(LowerCtx *c, const char *y, const char *omy, const char *opy)
{
	static const double central[] = {1.50140941, 0.246640727, -0.00417768164, -0.00125372503, 0.00021858087,
	                                 -4.39150654e-06, -3.5233877e-06, 3.43273939e-07, 2.81022636e-08};
	static const double tail[] = {2.83297682, 1.00167406, 0.00943887047, -0.0076224613, 0.00573950773,
	                              -0.00367342844, 0.00134934322, 0.000100950558, -0.000200214257};
	const char *w = op1(c, "Neg", op1(c, "Log", mul(c, omy, opy))), *five = k_(c, 5);
	const char *wc = sub(c, op2(c, "Min", w, five), k_(c, 2.5));
	const char *wt = sub(c, op1(c, "Sqrt", op2(c, "Max", w, five)), k_(c, 3));
	const char *p = where(c, op2(c, "Less", w, five), poly(c, wc, 9, central), poly(c, wt, 9, tail));

	return mul(c, p, y);
}

/* erfinv(y): +-inf at +-1, NaN beyond (the log of a negative number). */
int
lower_erfinv(LowerCtx *c, const Node *n, const OpRow *row)
{
	const char *y = in_d(c, n, "self"), *one = k_(c, 1);
	const char *r = giles(c, y, sub(c, one, y), add(c, one, y));

	(void)row;
	r = where(c, op2(c, "Equal", op1(c, "Abs", y), one), mul(c, y, k_(c, INFINITY)), r);
	return finish(c, n, r);
}

/* special_ndtri(p): the lower-tail point y <= 0 of q = min(p, 1 - p) from
 * Abramowitz & Stegun 26.2.23 (4.5e-4), then two Newton steps on
 * ndtr(y) = q (each squares the error); negated for p > 1/2. */
int
lower_ndtri(LowerCtx *c, const Node *n, const OpRow *row)
{
	static const double num[] = {2.515517, 0.802853, 0.010328}, den[] = {1, 1.432788, 0.189269, 0.001308};
	const char *p = in_d(c, n, "self"), *one = k_(c, 1), *half = k_(c, 0.5);
	const char *upper = op2(c, "Greater", p, half), *q = where(c, upper, sub(c, one, p), p), *t, *y;

	(void)row;
	/* q in (0, 1/2]; 0 and NaN are mended at the end */
	q = where(c, op2(c, "Greater", q, k_(c, 0)), q, half);
	t = op1(c, "Sqrt", mul(c, k_(c, -2), op1(c, "Log", q)));
	y = sub(c, dv(c, poly(c, t, 3, num), poly(c, t, 4, den)), t);
	for (int i = 0; i < 2; i++) {
		const char *phi = mul(c, k_(c, 1 / sqrt(2 * M_PI)), op1(c, "Exp", mul(c, k_(c, -0.5), mul(c, y, y))));
		y = sub(c, y, dv(c, sub(c, ndtr_d(c, y), q), phi));
	}
	y = where(c, upper, op1(c, "Neg", y), y);
	y = where(c, op2(c, "Equal", p, k_(c, 0)), k_(c, -INFINITY), y);
	y = where(c, op2(c, "Equal", p, one), k_(c, INFINITY), y);
	y = where(c, op1(c, "Not", op2(c, "And", op2(c, "GreaterOrEqual", p, k_(c, 0)), op2(c, "LessOrEqual", p, one))),
	          k_(c, NAN), y);
	return finish(c, n, y);
}

/* ---- gamma and its derivatives ---- */

/* lgamma(x) for x >= 1/2: Lanczos, g = 7, nine terms (1e-15 relative). */
static const char *
lgamma_pos(LowerCtx *c, const char *x)
{
	static const double lz[] = {0.99999999999980993, 676.5203681218851, -1259.1392167224028,
	                            771.32342877765313, -176.61502916214059, 12.507343278686905,
	                            -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};
	const char *xm = sub(c, x, k_(c, 1)), *a = k_(c, lz[0]), *t = add(c, xm, k_(c, 7.5));

	for (int i = 1; i < 9; i++)
		a = add(c, a, dv(c, k_(c, lz[i]), add(c, xm, k_(c, i))));
	return add(c, add(c, k_(c, 0.5 * log(2 * M_PI)), sub(c, mul(c, add(c, xm, k_(c, 0.5)), op1(c, "Log", t)), t)),
	           op1(c, "Log", a));
}

/* 1 where x is 0 or a negative integer (the poles of gamma) */
static const char *
at_pole(LowerCtx *c, const char *x)
{
	return op2(c, "And", op2(c, "LessOrEqual", x, k_(c, 0)), op2(c, "Equal", x, op1(c, "Floor", x)));
}

/* lgamma(x): below 1/2 by reflection, log(pi / |sin(pi x)|) - lgamma(1 - x);
 * +inf at the poles. */
static const char *
lgamma_d(LowerCtx *c, const char *x)
{
	const char *half = k_(c, 0.5), *refl = op2(c, "Less", x, half);
	const char *r = lgamma_pos(c, where(c, refl, sub(c, k_(c, 1), x), x));
	const char *s = op1(c, "Abs", op1(c, "Sin", mul(c, k_(c, M_PI), x)));

	r = where(c, refl, sub(c, sub(c, k_(c, log(M_PI)), op1(c, "Log", s)), r), r);
	return where(c, at_pole(c, x), k_(c, INFINITY), r);
}

int
lower_lgamma(LowerCtx *c, const Node *n, const OpRow *row)
{
	(void)row;
	return finish(c, n, lgamma_d(c, in_d(c, n, "self")));
}

/* mvlgamma(self, p) = sum_i<p lgamma(x - i/2) + p (p - 1) / 4 log(pi) */
int
lower_mvlgamma(LowerCtx *c, const Node *n, const OpRow *row)
{
	const char *x = in_d(c, n, "self");
	int64_t p = lower_int(c, n, "p", 1);
	const char *r = k_(c, (double)p * (double)(p - 1) / 4 * log(M_PI));

	(void)row;
	if (p < 1 || p > 64)
		return lower_fail(c, n, "p=%lld is not in 1..64", (long long)p);
	for (int64_t i = 0; i < p; i++)
		r = add(c, r, lgamma_d(c, sub(c, x, k_(c, (double)i / 2))));
	return finish(c, n, r);
}

/* digamma(x): for x > 0, psi(x + 6) by its asymptotic series less
 * sum 1/(x + k), k < 6; below 0 by reflection psi(1 - x) - pi / tan(pi x)
 * (cos / sin: onnxruntime's Tan has no float64 kernel).
 * As torch: -inf at +0 (+inf at -0), NaN at negative integers. */
int
lower_digamma(LowerCtx *c, const Node *n, const OpRow *row)
{
	static const double as[] = {1.0 / 12, -1.0 / 120, 1.0 / 252, -1.0 / 240, 1.0 / 132};
	const char *x = in_d(c, n, "self"), *zero = k_(c, 0);
	const char *refl = op2(c, "Less", x, zero), *xp = where(c, refl, sub(c, k_(c, 1), x), x);
	const char *acc = zero, *y, *y2, *r, *px = mul(c, k_(c, M_PI), x);

	(void)row;
	for (int k = 0; k < 6; k++)
		acc = add(c, acc, op1(c, "Reciprocal", add(c, xp, k_(c, k))));
	y = add(c, xp, k_(c, 6));
	y2 = op1(c, "Reciprocal", mul(c, y, y));
	r = sub(c, sub(c, op1(c, "Log", y), dv(c, k_(c, 0.5), y)), mul(c, y2, poly(c, y2, 5, as)));
	r = sub(c, r, acc);
	r = where(c, refl, sub(c, r, mul(c, k_(c, M_PI), dv(c, op1(c, "Cos", px), op1(c, "Sin", px)))), r);
	r = where(c, op2(c, "And", refl, op2(c, "Equal", x, op1(c, "Floor", x))), k_(c, NAN), r);
	r = where(c, op2(c, "Equal", x, zero),
	          where(c, op2(c, "Less", op1(c, "Reciprocal", x), zero), k_(c, INFINITY), k_(c, -INFINITY)), r);
	return finish(c, n, r);
}

/* Hurwitz zeta(s, q) for an integer s >= 2: nine terms of the sum, then
 * Euler-Maclaurin at a = q + 9 with six Bernoulli terms. */
static const char *
zeta_d(LowerCtx *c, int64_t s, const char *q)
{
	static const double b2j[] = {1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730};
	const char *acc = k_(c, 0), *a, *ms = k_(c, (double)-s);
	double coef = (double)s, fact = 2;

	for (int k = 0; k < 9; k++)
		acc = add(c, acc, op2(c, "Pow", add(c, q, k_(c, k)), ms));
	a = add(c, q, k_(c, 9));
	acc = add(c, acc, dv(c, op2(c, "Pow", a, k_(c, (double)(1 - s))), k_(c, (double)(s - 1))));
	acc = add(c, acc, mul(c, k_(c, 0.5), op2(c, "Pow", a, ms)));
	for (int j = 1; j <= 6; j++) {
		acc = add(c, acc, mul(c, k_(c, b2j[j - 1] / fact * coef), op2(c, "Pow", a, k_(c, (double)(-s - 2 * j + 1)))));
		coef *= (double)(s + 2 * j - 1) * (double)(s + 2 * j);
		fact *= (double)(2 * j + 1) * (double)(2 * j + 2);
	}
	return acc;
}

#define PG_MAXN 20         /* the largest order n polygamma takes */

/* polygamma(n, self): digamma for n = 0, else (-1)^(n+1) n! zeta(n + 1, x)
 * for x >= 1/2.  Below, zeta_d's nine terms would leave its asymptotic
 * series too close to 0, so the reflection formula, differentiated n
 * times, gives psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi^(n+1) P_n(cot(pi x)),
 * P_0(t) = t, P_(k+1)(t) = -(1 + t^2) P_k'(t) (d^n/du^n cot u = P_n(cot u));
 * at a pole (x a non-positive integer) torch's zeta is inf: +-inf.  torch's
 * trigamma (n = 1) takes sin(pi * x) of pi * x rounded to float32, which
 * is off by 1e-5 of the result for |x| near 8: so is this one. */
int
lower_polygamma(LowerCtx *c, const Node *n, const OpRow *row)
{
	int64_t k = lower_int(c, n, "n", 0);
	double f = 1, p[PG_MAXN + 3] = {0, 1}, dp[PG_MAXN + 3];
	const char *x, *refl, *y, *r, *rr, *px;

	if (k == 0)
		return lower_digamma(c, n, row);
	if (k < 0 || k > PG_MAXN)
		return lower_fail(c, n, "n=%lld is not in 0..%d", (long long)k, PG_MAXN);
	for (int64_t i = 2; i <= k; i++)
		f *= (double)i;
	for (int64_t j = 0; j < k; j++) {       /* P_j (degree j + 1) -> P_(j+1) */
		for (int i = 0; i <= j + 2; i++)
			dp[i] = i <= j ? (double)(i + 1) * p[i + 1] : 0;
		for (int i = 0; i <= j + 2; i++)
			p[i] = -dp[i] - (i >= 2 ? dp[i - 2] : 0);
	}
	x = in_d(c, n, "self");
	refl = op2(c, "Less", x, k_(c, 0.5));
	y = where(c, refl, sub(c, k_(c, 1), x), x);
	r = mul(c, k_(c, (k % 2 ? 1 : -1) * f), zeta_d(c, k + 1, y));
	px = mul(c, k_(c, M_PI), x);
	if (k == 1 && lower_compute(out_dtype(n)) == DT_FLOAT32)   /* torch's trigamma rounds pi * x to float */
		px = lower_cast(c, op2(c, "Mul", lower_operand(c, n, "self", DT_FLOAT32), lower_scalar(c, DT_FLOAT32, M_PI)),
		                DT_FLOAT32, D);
	rr = mul(c, k_(c, pow(M_PI, (double)(k + 1))), poly(c, dv(c, op1(c, "Cos", px), op1(c, "Sin", px)), (int)k + 2, p));
	rr = sub(c, k % 2 ? op1(c, "Neg", r) : r, rr);
	r = where(c, refl, rr, r);
	if (k > 1)      /* trigamma's sin(pi * x) is not 0 at a float pole: torch's value is finite there */
		r = where(c, op2(c, "And", refl, op2(c, "Equal", x, op1(c, "Floor", x))), k_(c, k % 2 ? INFINITY : -INFINITY), r);
	return finish(c, n, r);
}

/* ---- modified Bessel functions of the first kind, orders 0 and 1 ---- */

#define BESSEL_SWITCH 15.0  /* power series below, asymptotic series above */
#define BESSEL_POWER 41     /* power-series terms: 1e-16 relative at 15 */
#define BESSEL_ASYM 26      /* asymptotic terms: 1e-13 relative at 15 */

/* I_nu(|x|) scaled by e^-|x| (scaled) or not, nu 0 or 1, for |x| = a. */
static const char *
bessel_i(LowerCtx *c, const char *a, int nu, int scaled)
{
	double pc[BESSEL_POWER], ac[BESSEL_ASYM], t = 1;
	const char *sw = k_(c, BESSEL_SWITCH), *lo = op2(c, "Min", a, sw), *hi = op2(c, "Max", a, sw), *rs, *ra;

	/* power series: (x/2)^nu sum (x^2/4)^k / (k! (k + nu)!) */
	for (int k = 0; k < BESSEL_POWER; k++) {
		pc[k] = 1 / t;
		t *= (double)(k + 1) * (double)(k + 1 + nu);
	}
	rs = poly(c, mul(c, k_(c, 0.25), mul(c, lo, lo)), BESSEL_POWER, pc);
	if (nu)
		rs = mul(c, rs, mul(c, k_(c, 0.5), lo));
	if (scaled)
		rs = mul(c, rs, op1(c, "Exp", op1(c, "Neg", lo)));
	/* asymptotic: e^x / sqrt(2 pi x) sum_k a_k x^-k,
	 * a_k+1 = -a_k (4 nu^2 - (2k + 1)^2) / (8 (k + 1)) */
	ac[0] = 1;
	for (int k = 0; k + 1 < BESSEL_ASYM; k++)
		ac[k + 1] = -ac[k] * (4.0 * nu * nu - (2.0 * k + 1) * (2.0 * k + 1)) / (8.0 * (k + 1));
	ra = dv(c, poly(c, op1(c, "Reciprocal", hi), BESSEL_ASYM, ac), op1(c, "Sqrt", mul(c, k_(c, 2 * M_PI), hi)));
	if (!scaled)
		ra = mul(c, ra, op1(c, "Exp", hi));
	return where(c, op2(c, "Less", a, sw), rs, ra);
}

static int
bessel(LowerCtx *c, const Node *n, int nu, int scaled)
{
	const char *x = in_d(c, n, "self"), *r = bessel_i(c, op1(c, "Abs", x), nu, scaled);

	if (nu)     /* I_1 is odd */
		r = where(c, op2(c, "Less", x, k_(c, 0)), op1(c, "Neg", r), r);
	return finish(c, n, r);
}

int lower_i0(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return bessel(c, n, 0, 0); }
int lower_i0e(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return bessel(c, n, 0, 1); }
int lower_i1(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return bessel(c, n, 1, 0); }
int lower_i1e(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return bessel(c, n, 1, 1); }

/* ---- pointwise formulas, in the result's compute dtype as torch ---- */

/* xlogy(self, other) / special_xlog1py: NaN where other is NaN, 0 where
 * self is 0, else self * log(other) (log1p: log(1 + other) in float64). */
static int
xlog(LowerCtx *c, const Node *n, int one_p)
{
	DType cdt = lower_compute(out_dtype(n));
	const char *x = lower_operand(c, n, "self", cdt), *y = lower_operand(c, n, "other", cdt), *l, *r;

	if (one_p)
		l = lower_cast(c, op1(c, "Log", add(c, lower_cast(c, y, cdt, D), k_(c, 1))), D, cdt);
	else
		l = op1(c, "Log", y);
	r = where(c, op2(c, "Equal", x, lower_scalar(c, cdt, 0)), lower_scalar(c, cdt, 0), mul(c, x, l));
	lower_finish(c, n, 0, where(c, op1(c, "IsNaN", y), lower_scalar(c, cdt, NAN), r), cdt);
	return 0;
}

int lower_xlogy(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return xlog(c, n, 0); }
int lower_xlog1py(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return xlog(c, n, 1); }

/* special_entr(x): -x log x for x > 0, 0 at 0, -inf below, NaN for NaN */
int
lower_entr(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_compute(out_dtype(n));
	const char *x = lower_operand(c, n, "self", cdt), *zero = lower_scalar(c, cdt, 0), *r;

	(void)row;
	r = op1(c, "Neg", mul(c, x, op1(c, "Log", x)));
	r = where(c, op2(c, "Equal", x, zero), zero, r);
	r = where(c, op2(c, "Less", x, zero), lower_scalar(c, cdt, -INFINITY), r);
	lower_finish(c, n, 0, r, cdt);
	return 0;
}

/* sinc(x) = sin(pi x) / (pi x), 1 at 0 */
int
lower_sinc(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_compute(out_dtype(n));
	const char *x = lower_operand(c, n, "self", cdt), *px = mul(c, x, lower_scalar(c, cdt, M_PI));

	lower_finish(c, n, 0, where(c, op2(c, "Equal", x, lower_scalar(c, cdt, 0)), lower_scalar(c, cdt, 1),
	                            dv(c, op1(c, row->onnx, px), px)), cdt);
	return 0;
}

/* logaddexp(a, b) = max + log1p(exp(-|a - b|)), and a itself when both are
 * the same infinity (torch's kernel); logaddexp2 the same in base 2. */
static int
logaddexp(LowerCtx *c, const Node *n, int base2)
{
	DType cdt = lower_compute(out_dtype(n));
	const char *a = lower_operand(c, n, "self", cdt), *b = lower_operand(c, n, "other", cdt);
	const char *m = op2(c, "Max", a, b), *d = op1(c, "Neg", op1(c, "Abs", sub(c, a, b))), *e, *r;

	e = base2 ? op2(c, "Pow", lower_scalar(c, cdt, 2), d) : op1(c, "Exp", d);
	e = lower_cast(c, op1(c, "Log", add(c, lower_cast(c, e, cdt, D), k_(c, 1))), D, cdt);
	if (base2)
		e = mul(c, e, lower_scalar(c, cdt, 1 / M_LN2));
	r = add(c, m, e);
	r = where(c, op2(c, "And", op1(c, "IsInf", a), op2(c, "Equal", a, b)), a, r);
	lower_finish(c, n, 0, r, cdt);
	return 0;
}

int lower_logaddexp(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return logaddexp(c, n, 0); }
int lower_logaddexp2(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return logaddexp(c, n, 1); }

/* ---- orthogonal polynomials of a constant degree (the .n_scalar rows) ---- */

enum { POLY_T, POLY_U, POLY_V, POLY_W, POLY_H, POLY_HE, POLY_L, POLY_P };

#define POLY_MAX_DEGREE 256     /* the recurrence is unrolled: 3 to 5 nodes a step */

/* torch's *_polynomial_*_forward(x, n) in the result's compute dtype: the
 * three-term recurrence from p0 = 1 and p1, then the kernel's special
 * cases (|x| == 1, and for T beyond degree 6, U, V, W beyond 8, the
 * trigonometric closed forms on |x| < 1), each a Where over the rest. */
static int
orth_poly(LowerCtx *c, const Node *n, int kind)
{
	DType cdt = lower_compute(out_dtype(n));
	const char *x = lower_operand(c, n, "x", cdt), *one, *two_x, *p, *q, *r, *ax, *unit, *ac;
	int64_t deg = (int64_t)lower_float(c, n, "n", 0);
	double m = (double)deg, odd = deg % 2 ? -1 : 1;
#define K(v) lower_scalar(c, cdt, (v))

	if (!dtype_is_float(cdt))
		return lower_fail(c, n, "needs a floating tensor");
	if (deg > POLY_MAX_DEGREE)
		return lower_fail(c, n, "degree %lld is above %d (the recurrence is unrolled)", (long long)deg,
		                  POLY_MAX_DEGREE);
	one = lower_op(c, "Expand", NULL, 2, K(1), lower_op(c, "Shape", NULL, 1, x));
	if (deg < 0) {
		lower_finish(c, n, 0, mul(c, one, K(0)), cdt);
		return 0;
	}
	two_x = add(c, x, x);
	p = one;
	q = kind == POLY_T || kind == POLY_HE || kind == POLY_P ? x
	  : kind == POLY_U || kind == POLY_H ? two_x
	  : kind == POLY_V ? sub(c, two_x, K(1))
	  : kind == POLY_W ? add(c, two_x, K(1))
	  : sub(c, K(1), x);
	r = deg == 0 ? one : q;
	for (int64_t k = 1 + (kind <= POLY_H); deg >= 2 && k <= deg - (kind > POLY_H); k++) {
		double kk = (double)k;
		switch (kind) {
		case POLY_H:    /* torch's k runs 2, 4, ..: k * p with k = 2 (step - 1) */
			r = sub(c, mul(c, two_x, q), mul(c, K(2 * (kk - 1)), p));
			break;
		case POLY_HE:
			r = sub(c, mul(c, x, q), mul(c, K(kk), p));
			break;
		case POLY_L:
			r = dv(c, sub(c, mul(c, add(c, K(2 * kk), sub(c, K(1), x)), q), mul(c, K(kk), p)), K(kk + 1));
			break;
		case POLY_P:
			r = dv(c, sub(c, mul(c, mul(c, K(2 * kk + 1), x), q), mul(c, K(kk), p)), K(kk + 1));
			break;
		default:
			r = sub(c, mul(c, two_x, q), p);
		}
		p = q;
		q = r;
	}
	ax = op1(c, "Abs", x);
	unit = op2(c, "Equal", ax, K(1));
	ac = op1(c, "Acos", x);
	{
		const char *inside = op2(c, "Less", ax, K(1)), *pos = op2(c, "Greater", x, K(0)), *t;
		switch (kind) {
		case POLY_T:
			if (deg > 6)
				r = where(c, inside, op1(c, "Cos", mul(c, K(m), ac)), r);
			r = where(c, unit, where(c, pos, K(1), K(odd)), r);
			break;
		case POLY_U:
			if (deg > 8) {
				const char *s = op1(c, "Sin", ac), *a1 = mul(c, K(m + 1), ac);
				t = where(c, op2(c, "Equal", s, K(0)), dv(c, mul(c, K(m + 1), op1(c, "Cos", a1)), x),
				          dv(c, op1(c, "Sin", a1), s));
				r = where(c, inside, t, r);
			}
			r = where(c, unit, where(c, pos, K(m + 1), K(odd * (m + 1))), r);
			break;
		case POLY_V:
			if (deg > 8) {
				const char *h = mul(c, ac, K(0.5));
				t = where(c, op2(c, "Equal", op1(c, "Sin", h), K(1)), K(odd * (2 * m + 1)),
				          dv(c, op1(c, "Cos", mul(c, K(m + 0.5), ac)), op1(c, "Cos", h)));
				r = where(c, inside, t, r);
			}
			r = where(c, unit, where(c, pos, K(1), K(odd * (2 * m + 1))), r);
			break;
		case POLY_W:
			if (deg > 8) {
				const char *h = mul(c, ac, K(0.5));
				t = where(c, op2(c, "Equal", op1(c, "Cos", h), K(1)), where(c, pos, K(2 * m + 1), K(odd)),
				          dv(c, op1(c, "Sin", mul(c, K(m + 0.5), ac)), op1(c, "Sin", h)));
				r = where(c, inside, t, r);
			}
			r = where(c, unit, where(c, pos, K(2 * m + 1), K(odd)), r);
			break;
		case POLY_L:
			r = where(c, op2(c, "Equal", ax, K(0)), K(1), r);
			break;
		case POLY_P:
			r = where(c, unit, where(c, pos, K(1), K(odd)), r);
			break;
		}
	}
#undef K
	lower_finish(c, n, 0, r, cdt);
	return 0;
}

int lower_chebyshev_t(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return orth_poly(c, n, POLY_T); }
int lower_chebyshev_u(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return orth_poly(c, n, POLY_U); }
int lower_chebyshev_v(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return orth_poly(c, n, POLY_V); }
int lower_chebyshev_w(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return orth_poly(c, n, POLY_W); }
int lower_hermite_h(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return orth_poly(c, n, POLY_H); }
int lower_hermite_he(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return orth_poly(c, n, POLY_HE); }
int lower_laguerre(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return orth_poly(c, n, POLY_L); }
int lower_legendre(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return orth_poly(c, n, POLY_P); }
