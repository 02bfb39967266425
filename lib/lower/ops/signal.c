/* signal.c: lowerings of the signal family (signal.def: Fourier
 * transforms, stft / istft, windows, unfold, complex values: conj, real /
 * imag, complex / polar, angle).  A complex tensor is its (real, imag)
 * parts in a trailing dim of 2, built and taken apart with complex.h's
 * helpers; complex.c lowers the other families' ops on complex operands
 * (complex.def).  Results are bound with lower_out(), never through
 * lower_result()/lower_finish(), which would cast to a complex ONNX type. */
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "lower/lower.h"
#include "complex.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* conj(x): the imaginary part negated (a product by (1, -1)). */
static const char *
cx_conj(LowerCtx *c, const char *x, DType part, const char *out)
{
	return lower_op(c, "Mul", out, 2, x, cx_vec_const(c, part, 2, (const double[]){1, -1}));
}

/* ---- signal.def: complex values ---- */

/* _conj / conj_physical(self): the imaginary part negated; a real self is
 * itself. */
int
lower_conj(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");

	(void)row;
	if (!cx_is(sv))
		lower_bind(c, n, 0, lower_input(c, n, "self"));
	else
		cx_conj(c, lower_input(c, n, "self"), cx_part_type(sv), lower_out(c, n, 0));
	return 0;
}

/* real(self) / imag(self): one part (real of a real self is self). */
int
lower_real(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");

	if (!cx_is(sv)) {
		if (row->variant == OPV_IMAG)
			return lower_fail(c, n, "imag of a real tensor (torch rejects it too)");
		lower_bind(c, n, 0, lower_input(c, n, "self"));
		return 0;
	}
	cx_part(c, lower_input(c, n, "self"), row->variant == OPV_IMAG, lower_out(c, n, 0));
	return 0;
}

/* complex(real, imag) and polar(abs, angle) = abs (cos angle, sin angle). */
int
lower_complex(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *ov = lower_out_tensor(c, n, 0);
	DType part = cx_part_type(ov);
	int polar = row->variant == OPV_POLAR;
	const char *a = lower_operand(c, n, polar ? "abs" : "real", part);
	const char *b = lower_operand(c, n, polar ? "angle" : "imag", part);

	if (!a || !b || !cx_is(ov))
		return lower_fail(c, n, "needs two real tensors");
	if (polar) {
		const char *r = a;
		a = lower_op(c, "Mul", NULL, 2, r, lower_op(c, "Cos", NULL, 1, b));
		b = lower_op(c, "Mul", NULL, 2, r, lower_op(c, "Sin", NULL, 1, b));
	}
	if (lower_static(ov) && ov->rank <= MAXR) {     /* torch broadcasts the two; dynamic: same shapes */
		int64_t dims[MAXR];
		for (int i = 0; i < ov->rank && i < MAXR; i++)
			dims[i] = ov->dims[i].v;
		const char *shape = lower_i64s(c, ov->rank, dims);
		a = lower_op(c, "Expand", NULL, 2, a, shape);
		b = lower_op(c, "Expand", NULL, 2, b, shape);
	}
	cx_join(c, a, b, lower_out(c, n, 0));
	return 0;
}

/* atan2(y, x) with torch's quadrants: atan(y / x), plus or minus pi for
 * x < 0 (by the sign bit of y; Atan of +-inf is +-pi/2 at x = 0). */
static const char *
atan2_of(LowerCtx *c, const char *y, const char *x, DType t)
{
	const char *zero = lower_scalar(c, t, 0);
	const char *r = lower_op(c, "Atan", NULL, 1, lower_op(c, "Div", NULL, 2, y, x));
	const char *neg_y = lower_op(c, "Or", NULL, 2, lower_op(c, "Less", NULL, 2, y, zero),
	                             lower_op(c, "Less", NULL, 2, lower_op(c, "Reciprocal", NULL, 1, y), zero));
	const char *turn = lower_op(c, "Where", NULL, 3, neg_y, lower_scalar(c, t, -M_PI), lower_scalar(c, t, M_PI));
	const char *x0 = lower_op(c, "Equal", NULL, 2, x, zero);
	const char *y0 = lower_op(c, "Equal", NULL, 2, y, zero);
	const char *x_neg = lower_op(c, "Or", NULL, 2, lower_op(c, "Less", NULL, 2, x, zero),
	                             lower_op(c, "And", NULL, 2, x0, lower_op(c, "Less", NULL, 2,
	                                      lower_op(c, "Reciprocal", NULL, 1, x), zero)));
	/* y = 0, x = 0: atan(0/0) is nan where torch gives 0 or +-pi */
	r = lower_op(c, "Where", NULL, 3, lower_op(c, "And", NULL, 2, x0, y0), zero, r);
	return lower_op(c, "Where", NULL, 3, x_neg, lower_op(c, "Add", NULL, 2, r, turn), r);
}

/* angle(self): atan2(imag, real) of a complex self; of a real one, pi
 * where it is negative, else 0 (nan stays nan). */
int
lower_angle(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self"), *ov = lower_out_tensor(c, n, 0);
	const char *x = lower_input(c, n, "self");
	DType t = lower_compute(ov->dtype);

	(void)row;
	if (cx_is(sv)) {
		lower_finish(c, n, 0, atan2_of(c, cx_part(c, x, 1, NULL), cx_part(c, x, 0, NULL), cx_part_type(sv)), cx_part_type(sv));
		return 0;
	}
	x = lower_cast(c, x, sv->dtype, t);
	{
		const char *neg = lower_op(c, "Less", NULL, 2, x, lower_scalar(c, t, 0));
		const char *r = lower_op(c, "Where", NULL, 3, neg, lower_scalar(c, t, M_PI), lower_scalar(c, t, 0));
		r = lower_op(c, "Where", NULL, 3, lower_op(c, "IsNaN", NULL, 1, x), x, r);
		lower_finish(c, n, 0, r, t);
	}
	return 0;
}

/* ---- Fourier transforms ---- */

/* DFT of x along IR axis `axis`: x real with a trailing dim of 1 or
 * complex; onesided for rfft; inverse scales by 1 / n (ONNX).  The axis is
 * an attribute up to opset 19, an input from 20. */
static const char *
dft(LowerCtx *c, const char *x, int64_t axis, int inverse, int onesided)
{
	if (c->opset >= 20) {
		lower_op(c, "DFT", NULL, 3, x, "", lower_i64(c, axis));
	} else {
		lower_op(c, "DFT", NULL, 1, x);
		onnx_attr_int(c->a, c->last, "axis", axis);
	}
	if (inverse)
		onnx_attr_int(c->a, c->last, "inverse", 1);
	if (onesided)
		onnx_attr_int(c->a, c->last, "onesided", 1);
	return c->last->output[0];
}

/* x (ONNX rank `rank`) cut or zero-padded along axis from size have to
 * size want, as torch does for n and s. */
static const char *
fit(LowerCtx *c, const char *x, int rank, int64_t axis, int64_t have, int64_t want)
{
	int64_t pads[2 * (MAXR + 1)] = {0}, b = 0, e = want;

	if (want == have)
		return x;
	if (want < have)
		return lower_op(c, "Slice", NULL, 4, x, lower_i64s(c, 1, &b), lower_i64s(c, 1, &e), lower_i64s(c, 1, &axis));
	pads[rank + axis] = want - have;
	return lower_op(c, "Pad", NULL, 2, x, lower_i64s(c, 2 * rank, pads));
}

/* The inverse real DFT along axis of complex x (IR rank r) to `len`
 * points: bins 0..len/2 (cut or zero-padded to them), then the
 * conjugated mirror of bins len - len/2 - 1 .. 1, the complex inverse
 * DFT, and its real part (a real tensor of rank r). */
static const char *
c2r(LowerCtx *c, const char *x, int r, int64_t axis, int64_t have, int64_t len, DType part)
{
	int64_t m = len / 2 + 1, st = len - m, en = 0, step = -1;
	const char *in[2], *full;

	x = fit(c, x, r + 1, axis, have, m);
	if (st > 0) {
		in[0] = x;
		in[1] = cx_conj(c, lower_op(c, "Slice", NULL, 5, x, lower_i64s(c, 1, &st), lower_i64s(c, 1, &en),
		                            lower_i64s(c, 1, &axis), lower_i64s(c, 1, &step)), part, NULL);
		full = lower_tmp(c);
		lower_emit(c, "Concat", 2, in, 1, &full);
		onnx_attr_int(c->a, c->last, "axis", axis);
	} else {
		full = x;
	}
	return cx_part(c, dft(c, full, axis, 1, 0), 0, NULL);
}

/* What one transform node asks for, in _fft_* terms. */
typedef struct FftPlan {
	int kind;               /* 0 c2c, 1 r2c, 2 c2r */
	int forward;            /* c2c: forward, else inverse */
	int onesided;           /* r2c */
	int norm;               /* 0 none, 1 by 1/sqrt(n), 2 by 1/n (torch's fft_norm_mode) */
	int conj_in, conj_out;  /* hfft conjugates its input, ihfft its result */
	int nd;
	int64_t dims[MAXR];     /* transformed IR dims (non-negative), the c2r / r2c one last */
	int64_t size[MAXR];     /* signal size per dim (c2r: output size of the last), -1: as given */
} FftPlan;

/* norm="backward" | "ortho" | "forward" of a transform in direction
 * forward as an fft_norm_mode; -1 for another string. */
static int
norm_mode(const char *s, int forward)
{
	if (!s || strcmp(s, "backward") == 0)
		return forward ? 0 : 2;
	if (strcmp(s, "ortho") == 0)
		return 1;
	if (strcmp(s, "forward") == 0)
		return forward ? 2 : 0;
	return -1;
}

/* Fills p from a training-IR fft_* node of the form nd (1: n, dim, norm;
 * 2: s, dim=(-2, -1), norm; 0, n-d: s, dim=None, norm) and the row's
 * variant (0 fft, OPV_IFFT, OPV_RFFT, OPV_IRFFT, OPV_HFFT, OPV_IHFFT). */
static int
plan_fft_op(LowerCtx *c, const Node *n, const Value *sv, FftPlan *p, int form, int variant)
{
	int two = form == 2, many = form == 0, r = sv->rank;
	int inv = variant == OPV_IFFT || variant == OPV_IRFFT || variant == OPV_IHFFT;
	int64_t s[MAXR];
	int ns;

	if (variant == OPV_HFFT || variant == OPV_IHFFT) {      /* hfft: c2r of conj; ihfft: conj of r2c */
		p->kind = inv ? 1 : 2;
		p->onesided = 1;
		p->conj_in = !inv;
		p->conj_out = inv;
	} else if (variant == OPV_RFFT || variant == OPV_IRFFT) {
		p->kind = inv ? 2 : 1;
		p->onesided = 1;
	} else {
		p->kind = 0;                            /* fft, ifft: a real input gets a zero imag part */
	}
	p->forward = !inv;
	p->norm = norm_mode(lower_str(c, n, "norm", NULL), !inv);
	if (p->norm < 0)
		return lower_fail(c, n, "norm must be \"backward\", \"ortho\" or \"forward\"");
	if (!two && !many) {
		p->nd = 1;
		p->dims[0] = lower_axis(lower_int(c, n, "dim", -1), r);
		p->size[0] = lower_arg(n, "n") && lower_arg(n, "n")->kind != ARG_NONE ? lower_int(c, n, "n", 0) : -1;
		return 0;
	}
	ns = lower_ints(c, n, "s", s, MAXR);
	p->nd = lower_ints(c, n, "dim", p->dims, MAXR);
	if (p->nd < 0 && two) {
		p->nd = 2;
		p->dims[0] = -2;
		p->dims[1] = -1;
	} else if (p->nd < 0) {                 /* fftn: the last len(s) dims, or all */
		p->nd = ns >= 0 ? ns : r;
		for (int i = 0; i < p->nd; i++)
			p->dims[i] = r - p->nd + i;
	}
	if (ns >= 0 && ns != p->nd)
		return lower_fail(c, n, "'s' and 'dim' differ in length");
	for (int i = 0; i < p->nd; i++) {
		p->dims[i] = lower_axis(p->dims[i], r);
		p->size[i] = ns >= 0 ? s[i] : -1;
	}
	return 0;
}

/* Fills p from a core-ATen _fft_r2c (OPV_RFFT) / _fft_c2r (OPV_IRFFT) /
 * _fft_c2c node. */
static int
plan_fft_core(LowerCtx *c, const Node *n, const Value *sv, FftPlan *p, int variant)
{
	p->kind = variant == OPV_RFFT ? 1 : variant == OPV_IRFFT ? 2 : 0;
	p->nd = lower_ints(c, n, "dim", p->dims, MAXR);
	p->norm = (int)lower_int(c, n, "normalization", 0);
	p->forward = p->kind == 0 ? (int)lower_int(c, n, "forward", 1) : p->kind == 1;
	p->onesided = p->kind == 1 && lower_int(c, n, "onesided", 1);
	if (p->nd < 0)
		return lower_fail(c, n, "needs 'dim'");
	for (int i = 0; i < p->nd; i++) {
		p->dims[i] = lower_axis(p->dims[i], sv->rank);
		p->size[i] = -1;
	}
	if (p->kind == 2 && p->nd > 0)
		p->size[p->nd - 1] = lower_int(c, n, "last_dim_size", 0);
	return 0;
}

/* The fft_* (form 1, 2 or 0: n-d) and _fft_* (form -1) transforms (see
 * signal.def). */
static int
fft_lower(LowerCtx *c, const Node *n, const OpRow *row, int form)
{
	const Value *sv = lower_tensor_arg(c, n, "self"), *ov = lower_out_tensor(c, n, 0);
	FftPlan p = {0};
	DType part = cx_part_type(sv);
	const char *x = lower_input(c, n, "self");
	int r = sv->rank, rc, last;
	double total = 1, scale;

	rc = form < 0 ? plan_fft_core(c, n, sv, &p, row->variant) : plan_fft_op(c, n, sv, &p, form, row->variant);
	if (rc)
		return rc;
	if (part != DT_FLOAT32 && part != DT_FLOAT64)
		return lower_fail(c, n, "transforms take float32 and float64 (and complex64, complex128) only, not %s",
		                  dtype_name(sv->dtype));
	if (p.nd < 1)
		return lower_fail(c, n, "no dims to transform");
	if (r > MAXR)
		return lower_fail(c, n, "rank above %d", MAXR);
	for (int i = 0; i < p.nd; i++)
		if (p.dims[i] < 0 || p.dims[i] >= r || sv->dims[p.dims[i]].e)
			return lower_fail(c, n, "transformed dim %lld must be in range and static",
			                  (long long)p.dims[i]);
	if (p.kind == 1 && cx_is(sv))
		return lower_fail(c, n, "a real-input transform of a complex tensor");
	if (p.kind != 1 && !cx_is(sv)) {            /* c2c / c2r of a real tensor (ifft, irfft of real) */
		x = cx_from_real(c, lower_cast(c, x, sv->dtype, part), r);
	}
	if (p.conj_in)
		x = cx_conj(c, x, part, NULL);
	last = p.nd - 1;
	if (p.kind == 1) {                          /* r2c on the last dim, then c2c on the others */
		int64_t d = p.dims[last], have = sv->dims[d].v, want = p.size[last] < 0 ? have : p.size[last];
		int64_t tail = r;
		x = lower_unsqueeze(c, lower_cast(c, x, sv->dtype, part), 1, &tail, NULL);
		x = fit(c, x, r + 1, d, have, want);
		x = dft(c, x, d, 0, p.onesided);
		total *= (double)want;
		for (int i = 0; i < last; i++) {
			int64_t dd = p.dims[i], h = sv->dims[dd].v, w = p.size[i] < 0 ? h : p.size[i];
			x = dft(c, fit(c, x, r + 1, dd, h, w), dd, 0, 0);
			total *= (double)w;
		}
	} else {
		int ncc = p.kind == 2 ? last : p.nd;
		for (int i = 0; i < ncc; i++) {
			int64_t dd = p.dims[i], h = sv->dims[dd].v, w = p.size[i] < 0 ? h : p.size[i];
			x = dft(c, fit(c, x, r + 1, dd, h, w), dd, !p.forward, 0);
			total *= (double)w;
		}
		if (p.kind == 2) {
			int64_t d = p.dims[last], h = sv->dims[d].v;
			int64_t len = p.size[last] < 0 ? 2 * (h - 1) : p.size[last];
			if (len < 1)
				return lower_fail(c, n, "the output signal size must be positive (torch: n or s)");
			x = c2r(c, x, r, d, h, len, part);
			total *= (double)len;
		}
	}
	/* DFT is unnormalized forward and 1/n inverse; the mode wants 1, 1/sqrt(n) or 1/n */
	scale = p.norm == 0 ? 1 : p.norm == 1 ? 1 / sqrt(total) : 1 / total;
	if (p.kind == 2 || (p.kind == 0 && !p.forward))
		scale *= total;
	if (p.conj_out)
		x = cx_conj(c, x, part, NULL);
	if (scale != 1)
		x = lower_op(c, "Mul", NULL, 2, x, lower_scalar(c, part, scale));
	if (cx_is(ov))
		lower_op(c, "Identity", lower_out(c, n, 0), 1, x);
	else
		lower_finish_typed(c, n, 0, x, part);
	return 0;
}

/* fft_fft, fft_ifft, fft_rfft, ... (self, n=None, dim=-1, norm=None) */
int
lower_fft(LowerCtx *c, const Node *n, const OpRow *row)
{
	return fft_lower(c, n, row, 1);
}

/* fft_fft2, ... (self, s=None, dim=(-2, -1), norm=None) */
int
lower_fft2(LowerCtx *c, const Node *n, const OpRow *row)
{
	return fft_lower(c, n, row, 2);
}

/* fft_fftn, ... (self, s=None, dim=None, norm=None) */
int
lower_fftn(LowerCtx *c, const Node *n, const OpRow *row)
{
	return fft_lower(c, n, row, 0);
}

/* _fft_r2c(self, dim, normalization, onesided), _fft_c2r(self, dim,
 * normalization, last_dim_size), _fft_c2c(self, dim, normalization, forward) */
int
lower_fft_core(LowerCtx *c, const Node *n, const OpRow *row)
{
	return fft_lower(c, n, row, -1);
}

/* fft_fftshift / fft_ifftshift (OPV_IFFT)(self, dim=None): a roll by size / 2 (ifft:
 * by (size + 1) / 2 back) along each dim (all by default). */
int
lower_fftshift(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	int64_t dims[MAXR];
	int k = lower_ints(c, n, "dim", dims, MAXR), inv = row->variant == OPV_IFFT;
	const char *x = lower_input(c, n, "self");

	if (k < 0)
		for (k = 0; k < sv->rank && k < MAXR; k++)
			dims[k] = k;
	for (int i = 0; i < k; i++) {
		int64_t d = lower_axis(dims[i], sv->rank), size, sh, z = 0, mid, end = INT64_MAX;
		if (d < 0 || d >= sv->rank || sv->dims[d].e)
			return lower_fail(c, n, "shifted dims must be in range and static");
		size = sv->dims[d].v;
		sh = inv ? size - size / 2 : size / 2;      /* elements moved from the back to the front */
		if (!size || !(sh % size))
			continue;
		mid = size - sh;
		const char *in[2] = {
			lower_op(c, "Slice", NULL, 4, x, lower_i64s(c, 1, &mid), lower_i64s(c, 1, &end), lower_i64s(c, 1, &d)),
			lower_op(c, "Slice", NULL, 4, x, lower_i64s(c, 1, &z), lower_i64s(c, 1, &mid), lower_i64s(c, 1, &d)),
		};
		x = lower_tmp(c);
		lower_emit(c, "Concat", 2, in, 1, &x);
		onnx_attr_int(c->a, c->last, "axis", d);
	}
	lower_op(c, "Identity", lower_out(c, n, 0), 1, x);
	return 0;
}

/* A 1-D constant of n's output dtype from v[0..k) (computed in double). */
static int
bind_values(LowerCtx *c, const Node *n, int64_t k, const double *v)
{
	const Value *ov = lower_out_tensor(c, n, 0);
	DType t = ov->dtype;
	uint8_t *b = arena_alloc(c->a, (size_t)(k + 1) * 8);

	for (int64_t i = 0; i < k; i++)
		if (lower_encode(t, v[i], b + (size_t)i * (size_t)dtype_size(t)))
			return lower_fail(c, n, "no constants of %s", dtype_name(t));
	lower_op(c, "Identity", lower_out(c, n, 0), 1, lower_const(c, t, 1, &k, b));
	return 0;
}

/* fft_fftfreq(n, d=1.0) and fft_rfftfreq (OPV_RFFT)(n, d=1.0): the sample
 * frequencies, a constant. */
int
lower_fftfreq(LowerCtx *c, const Node *n, const OpRow *row)
{
	int64_t len = lower_int(c, n, "n", 0), k;
	double d = lower_float(c, n, "d", 1.0), *v;
	int rfft = row->variant == OPV_RFFT;

	if (len < 0 || len > (1 << 24))
		return lower_fail(c, n, "n out of range");
	k = rfft ? len / 2 + 1 : len;
	v = ARENA_ARRAY(c->a, double, k + 1);
	for (int64_t i = 0; i < k; i++)
		v[i] = (double)(rfft || i < (len + 1) / 2 ? i : i - len) / ((double)len * d);
	return bind_values(c, n, k, v);
}

/* ---- windows ---- */

/* I0(x), the modified Bessel function of order 0: its power series
 * sum (x^2/4)^k / (k!)^2, to double precision. */
static double
bessel_i0(double x)
{
	double q = x * x / 4, term = 1, sum = 1;

	for (int k = 1; k < 500 && term > sum * 1e-17; k++) {
		term *= q / ((double)k * (double)k);
		sum += term;
	}
	return sum;
}

enum { W_HANN, W_HAMMING, W_BLACKMAN, W_BARTLETT, W_KAISER };

/* The window `kind` (window_length, periodic=True, [alpha, beta | beta],
 * dtype): see signal.def. */
static int
window(LowerCtx *c, const Node *n, const OpRow *row, int kind)
{
	const Value *ov = lower_out_tensor(c, n, 0);
	int64_t len = lower_int(c, n, "window_length", 0);
	int periodic = (int)lower_int(c, n, "periodic", 1);
	double N, *v;

	if (len < 0 || len > (1 << 24))
		return lower_fail(c, n, "window_length out of range");
	if (!dtype_is_float(ov->dtype))
		return lower_fail(c, n, "windows of %s are not supported", dtype_name(ov->dtype));
	if (row->onnx[0] && len > 1) {              /* HannWindow, BlackmanWindow: torch's coefficients */
		DType t = lower_compute(ov->dtype);
		lower_op(c, row->onnx, NULL, 1, lower_i64(c, len));
		onnx_attr_int(c->a, c->last, "periodic", periodic);
		onnx_attr_int(c->a, c->last, "output_datatype", dtype_onnx(t));
		lower_finish(c, n, 0, c->last->output[0], t);
		return 0;
	}
	v = ARENA_ARRAY(c->a, double, len + 1);
	N = (double)(periodic ? len : len - 1);         /* the period */
	for (int64_t i = 0; i < len; i++) {
		double x = (double)i, t = len > 1 ? 2 * x / N - 1 : 0;
		switch (len == 1 ? -1 : kind) {
		case -1: v[i] = 1; break;
		case W_HANN: v[i] = 0.5 - 0.5 * cos(2 * M_PI * x / N); break;
		case W_HAMMING:
			v[i] = lower_float(c, n, "alpha", 0.54) - lower_float(c, n, "beta", 0.46) * cos(2 * M_PI * x / N);
			break;
		case W_BLACKMAN: v[i] = 0.42 - 0.5 * cos(2 * M_PI * x / N) + 0.08 * cos(4 * M_PI * x / N); break;
		case W_BARTLETT: v[i] = 1 - fabs(t); break;
		default: {
			double beta = lower_float(c, n, "beta", 12.0);
			v[i] = bessel_i0(beta * sqrt(fmax(0, 1 - t * t))) / bessel_i0(beta);
		}
		}
	}
	return bind_values(c, n, len, v);
}

int
lower_hann_window(LowerCtx *c, const Node *n, const OpRow *row)
{
	return window(c, n, row, W_HANN);
}

int
lower_hamming_window(LowerCtx *c, const Node *n, const OpRow *row)
{
	return window(c, n, row, W_HAMMING);
}

int
lower_blackman_window(LowerCtx *c, const Node *n, const OpRow *row)
{
	return window(c, n, row, W_BLACKMAN);
}

int
lower_bartlett_window(LowerCtx *c, const Node *n, const OpRow *row)
{
	return window(c, n, row, W_BARTLETT);
}

int
lower_kaiser_window(LowerCtx *c, const Node *n, const OpRow *row)
{
	return window(c, n, row, W_KAISER);
}

/* ---- stft / istft ---- */

/* The window of stft/istft as an ONNX value of dtype t and length n_fft:
 * `window` (or ones) of length win_length zero-padded in the middle. */
static const char *
stft_window(LowerCtx *c, const Node *n, DType t, int64_t n_fft, int64_t win)
{
	const Value *wv = lower_arg_value(n, "window");
	const char *w;
	int64_t left = (n_fft - win) / 2, pads[2] = {left, n_fft - win - left};

	if (wv) {
		w = lower_cast(c, lower_input(c, n, "window"), wv->dtype, t);
	} else {
		double *one = ARENA_ARRAY(c->a, double, win + 1);
		for (int64_t i = 0; i < win; i++)
			one[i] = 1;
		w = cx_vec_const(c, t, (int)win, one);
	}
	if (win != n_fft)
		w = lower_op(c, "Pad", NULL, 2, w, lower_i64s(c, 2, pads));
	return w;
}

/* stft(self, n_fft, hop_length=None, win_length=None, window=None,
 * normalized=False, onesided=None, return_complex=None) of a real 1-D or
 * 2-D self: STFT, its (frames, bins) swapped to torch's (bins, frames).
 * torch.stft pads a centered signal itself (aten.pad before the node);
 * stft.center, the overload that pads, only TorchScript calls. */
int
lower_stft(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	int64_t n_fft = lower_int(c, n, "n_fft", 0), hop = lower_int(c, n, "hop_length", n_fft / 4);
	int64_t win = lower_int(c, n, "win_length", n_fft), zero = 0;
	int onesided = (int)lower_int(c, n, "onesided", 1);
	DType t = sv->dtype;
	const char *x = lower_input(c, n, "self"), *y;

	(void)row;
	if (cx_is(sv) || (t != DT_FLOAT32 && t != DT_FLOAT64))
		return lower_fail(c, n, "stft takes a real float32 or float64 signal (ONNX STFT of a complex one is not used)");
	if (sv->rank < 1 || sv->rank > 2 || sv->dims[sv->rank - 1].e)
		return lower_fail(c, n, "the signal must be 1-D or 2-D with a static length");
	if (n_fft < 1 || hop < 1 || win < 1 || win > n_fft)
		return lower_fail(c, n, "needs 0 < win_length <= n_fft and hop_length > 0");
	if (sv->rank == 1)
		x = lower_unsqueeze(c, x, 1, &zero, NULL);
	x = lower_unsqueeze(c, x, 1, (int64_t[]){2}, NULL);
	y = lower_op(c, "STFT", NULL, 4, x, lower_i64(c, hop), stft_window(c, n, t, n_fft, win), lower_i64(c, n_fft));
	onnx_attr_int(c->a, c->last, "onesided", onesided);
	if (lower_int(c, n, "normalized", 0))
		y = lower_op(c, "Mul", NULL, 2, y, lower_scalar(c, t, 1 / sqrt((double)n_fft)));
	y = lower_perm(c, y, 4, (const int64_t[]){0, 2, 1, 3}, NULL);
	if (sv->rank == 1)
		y = lower_squeeze(c, y, 1, &zero, NULL);
	lower_op(c, "Identity", lower_out(c, n, 0), 1, y);
	return 0;
}

/* istft(self, n_fft, hop_length=None, win_length=None, window=None,
 * center=True, normalized=False, onesided=None, length=None,
 * return_complex=False) of a complex (bins, frames) or (batch, bins,
 * frames) self, to a real signal. */
int
lower_istft(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	int64_t n_fft = lower_int(c, n, "n_fft", 0), hop = lower_int(c, n, "hop_length", n_fft / 4);
	int64_t win = lower_int(c, n, "win_length", n_fft), zero = 0, nf, bins, olen, start, end, len;
	int center = (int)lower_int(c, n, "center", 1), onesided;
	DType t = cx_part_type(sv);
	const char *x = lower_input(c, n, "self"), *w, *fr, *y, *env;

	(void)row;
	if (!cx_is(sv) || (t != DT_FLOAT32 && t != DT_FLOAT64))
		return lower_fail(c, n, "istft takes a complex64 or complex128 spectrum");
	if (lower_int(c, n, "return_complex", 0))
		return lower_fail(c, n, "return_complex=True is not supported (a real signal is)");
	if (sv->rank < 2 || sv->rank > 3 || !lower_static(sv))
		return lower_fail(c, n, "the spectrum must be 2-D or 3-D and static");
	if (n_fft < 1 || hop < 1 || win < 1 || win > n_fft)
		return lower_fail(c, n, "needs 0 < win_length <= n_fft and hop_length > 0");
	bins = sv->dims[sv->rank - 2].v;
	nf = sv->dims[sv->rank - 1].v;
	onesided = (int)lower_int(c, n, "onesided", bins != n_fft);
	if (sv->rank == 2)
		x = lower_unsqueeze(c, x, 1, &zero, NULL);
	/* (batch, bins, frames, 2) -> (batch, frames, bins, 2), each frame's inverse DFT */
	x = lower_perm(c, x, 4, (const int64_t[]){0, 2, 1, 3}, NULL);
	if (onesided) {
		fr = c2r(c, x, 3, 2, bins, n_fft, t);
	} else {
		if (bins != n_fft)
			return lower_fail(c, n, "a two-sided spectrum must have n_fft bins");
		fr = cx_part(c, dft(c, x, 2, 1, 0), 0, NULL);
	}
	if (lower_int(c, n, "normalized", 0))
		fr = lower_op(c, "Mul", NULL, 2, fr, lower_scalar(c, t, sqrt((double)n_fft)));
	w = stft_window(c, n, t, n_fft, win);
	fr = lower_op(c, "Mul", NULL, 2, fr, w);
	/* overlap-add: Col2Im of (batch, n_fft, frames) into (batch, 1, 1, olen) */
	olen = n_fft + hop * (nf - 1);
	{
		int64_t img[2] = {1, olen}, blk[2] = {1, n_fft}, strides[2] = {1, hop}, reps[3] = {1, 1, nf};
		const char *wsq = lower_op(c, "Mul", NULL, 2, w, w);
		fr = lower_perm(c, fr, 3, (const int64_t[]){0, 2, 1}, NULL);
		y = lower_op(c, "Col2Im", NULL, 3, fr, lower_i64s(c, 2, img), lower_i64s(c, 2, blk));
		onnx_attr_ints(c->a, c->last, "strides", 2, strides);
		wsq = lower_op(c, "Tile", NULL, 2, lower_unsqueeze(c, wsq, 2, (int64_t[]){0, 2}, NULL), lower_i64s(c, 3, reps));
		env = lower_op(c, "Col2Im", NULL, 3, wsq, lower_i64s(c, 2, img), lower_i64s(c, 2, blk));
		onnx_attr_ints(c->a, c->last, "strides", 2, strides);
		y = lower_op(c, "Div", NULL, 2, y, env);
		y = lower_op(c, "Reshape", NULL, 2, y, lower_i64s(c, 2, (int64_t[]){sv->rank == 2 ? 1 : sv->dims[0].v, olen}));
	}
	start = center ? n_fft / 2 : 0;
	end = center ? olen - n_fft / 2 : olen;
	len = lower_int(c, n, "length", -1);
	if (len >= 0)
		end = start + len;
	if (end > olen)                             /* torch pads with zeros past the frames */
		y = lower_op(c, "Pad", NULL, 2, y, lower_i64s(c, 4, (int64_t[]){0, 0, 0, end - olen}));
	y = lower_op(c, "Slice", NULL, 4, y, lower_i64s(c, 1, &start), lower_i64s(c, 1, &end),
	             lower_i64s(c, 1, (int64_t[]){1}));
	if (sv->rank == 2)
		y = lower_squeeze(c, y, 1, &zero, NULL);
	lower_finish_typed(c, n, 0, y, t);
	return 0;
}

/* ---- layout ---- */

/* unfold(self, dimension, size, step): the windows of `size` elements
 * every `step` along dimension, as a new last dim (before the parts' dim
 * of a complex self): Gather of the window indices, then that dim moved
 * behind the others. */
int
lower_unfold(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	int r = sv->rank, cx = cx_is(sv), onnx_rank;
	int64_t d = lower_axis(lower_int(c, n, "dimension", 0), r ? r : 1);
	int64_t size = lower_int(c, n, "size", 1), step = lower_int(c, n, "step", 1), len, m, *idx;
	int64_t perm[MAXR + 3], dims[2];
	const char *x = lower_input(c, n, "self");
	int k = 0;

	(void)row;
	if (r == 0 && !cx && (size == 0 || size == 1)) {   /* a 0-d self: one window of itself, or none */
		static const int64_t zero[1] = {0};
		x = lower_unsqueeze(c, x, 1, zero, NULL);
		if (size == 0)
			x = lower_op(c, "Slice", NULL, 3, x, lower_i64s(c, 1, zero), lower_i64s(c, 1, zero));
		lower_finish_typed(c, n, 0, x, sv->dtype);
		return 0;
	}
	if (r == 0)
		return lower_fail(c, n, "unfold of a 0-d tensor needs size 0 or 1");
	if (d < 0 || d >= r || sv->dims[d].e || r > MAXR || size < 0 || step < 1)
		return lower_fail(c, n, "needs a static, in-range dimension, size >= 0 and step >= 1");
	len = sv->dims[d].v;
	if (size > len)
		return lower_fail(c, n, "size %lld exceeds the dim's %lld", (long long)size, (long long)len);
	m = (len - size) / step + 1;
	idx = ARENA_ARRAY(c->a, int64_t, m * size + 1);
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < size; j++)
			idx[i * size + j] = i * step + j;
	dims[0] = m;
	dims[1] = size;
	lower_op(c, "Gather", NULL, 2, x, lower_const(c, DT_INT64, 2, dims, idx));
	onnx_attr_int(c->a, c->last, "axis", d);
	x = c->last->output[0];
	/* x: pre..., m, size, post... (, 2); the size dim goes after post */
	onnx_rank = r + 1 + cx;
	for (int i = 0; i <= d; i++)
		perm[k++] = i;
	for (int i = (int)d + 2; i < r + 1; i++)
		perm[k++] = i;
	perm[k++] = d + 1;
	if (cx)
		perm[k++] = r + 1;
	lower_perm(c, x, onnx_rank, perm, lower_out(c, n, 0));
	return 0;
}
