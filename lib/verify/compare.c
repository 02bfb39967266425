/* compare.c: one tensor onnxruntime computed against torch's.
 *
 * A tensor passes when its dtype and shape are torch's and, value by
 * value, max |onnx - torch| <= max(abs, rel * M), M the largest |torch|
 * value of the tensor (its own magnitude), with (abs, rel) the dtype's
 * (verify_tolerance) or verify_tolerance's; integers and bools must be
 * equal.  NaN must meet NaN and an infinity the same infinity.  Without
 * torch's values (a .pt2 without saved outputs) dtype and shape are
 * checked, and a float output must hold no NaN nor infinity. */
#include "verify/internal.h"

#include <math.h>
#include <string.h>

int64_t
verify_numel(const VerifyTensor *t)
{
	int64_t n = 1;

	for (int i = 0; i < t->rank; i++)
		n *= t->shape[i];
	return n;
}

void
verify_tolerance(DType t, double *abs, double *rel)
{
	switch (t) {
	case DT_FLOAT32: case DT_COMPLEX64: *abs = 1e-4, *rel = 1e-5; break;
	case DT_FLOAT16: case DT_COMPLEX32: *abs = 1e-2, *rel = 1e-3; break;
	case DT_BFLOAT16: *abs = 5e-2, *rel = 1e-2; break;
	case DT_FLOAT64: case DT_COMPLEX128: *abs = 1e-7, *rel = 1e-9; break;
	default: *abs = 0, *rel = 0; break;   /* integers, bool, float8: exact */
	}
}

/* Compared within a tolerance: the floats and the complex types (dtype.def's kinds). */
static int
inexact(DType t)
{
	return dtype_kind(t) == DK_FLOAT || dtype_kind(t) == DK_COMPLEX;
}

/* Element i of t as a double (complex: its parts are elements). */
static double
value(const VerifyTensor *t, int64_t i)
{
	DType part = dtype_kind(t->dtype) == DK_COMPLEX ? dtype_complex_part(t->dtype) : t->dtype;

	if (dtype_kind(part) == DK_OTHER)          /* float8: compared as bytes */
		return ((const uint8_t *)t->data)[i];
	return dtype_decode_f64(part, (const uint8_t *)t->data + i * dtype_size(part));
}

/* Exact comparison of 64-bit integers (a double loses their low bits). */
static int
int64_equal(const VerifyTensor *a, const VerifyTensor *b, int64_t n)
{
	return (a->dtype == DT_INT64 || a->dtype == DT_UINT64) &&
	       memcmp(a->data, b->data, (size_t)n * 8) == 0;
}

static const char *
shape_text(Arena *a, const VerifyTensor *t)
{
	const char *s = "[";

	if (t->rank < 0)
		return "any";
	for (int i = 0; i < t->rank; i++)
		s = t->shape[i] < 0 ? arena_printf(a, "%s%s?", s, i ? ", " : "")
		    : arena_printf(a, "%s%s%lld", s, i ? ", " : "", (long long)t->shape[i]);
	return arena_printf(a, "%s]", s);
}

/* want's rank -1 or size -1 match anything. */
static int
same_shape(const VerifyTensor *got, const VerifyTensor *want)
{
	if (want->rank < 0)
		return 1;
	if (got->rank != want->rank)
		return 0;
	for (int i = 0; i < got->rank; i++)
		if (want->shape[i] >= 0 && got->shape[i] != want->shape[i])
			return 0;
	return 1;
}

/* The NaN and infinities of got where want has none at the same place;
 * counts them in *nan and *inf. */
static void
scan_values(const VerifyTensor *got, const VerifyTensor *want, int64_t n, VerifyRow *row,
            int64_t *nan, int64_t *inf)
{
	double worst = 0, mag = 0;

	*nan = *inf = 0;
	for (int64_t i = 0; i < n; i++) {
		double g = value(got, i), w = want->data ? value(want, i) : 0, e;
		if (!want->data || !isfinite(w)) {
			if (want->data && (isnan(w) ? isnan(g) : g == w))
				continue;       /* the same NaN or infinity */
			if (isnan(g))
				++*nan;
			else if (isinf(g))
				++*inf;
			else if (want->data)
				++*nan;         /* torch has NaN/inf here, onnx a number: count as a fault */
			continue;
		}
		if (!isfinite(g)) {
			isnan(g) ? ++*nan : ++*inf;
			continue;
		}
		e = fabs(g - w);
		if (e > worst)
			worst = e;
		if (fabs(w) > mag)
			mag = fabs(w);
	}
	row->max_abs = want->data ? worst : -1;
	row->max_rel = want->data ? (mag > 0 ? worst / mag : worst > 0 ? INFINITY : 0) : -1;
	row->tol = mag;   /* the magnitude, turned into the bound by the caller */
}

int
verify_compare(Arena *a, const VerifyTensor *got, const VerifyTensor *want, double tol_abs,
               int nan_allowed, VerifyRow *row)
{
	double abs, rel, mag;
	int64_t n = verify_numel(got), nan, inf;

	row->problem = NULL;
	row->dtype = got->dtype;
	row->shape = shape_text(a, got);
	row->max_abs = row->max_rel = -1;
	verify_tolerance(want->dtype, &abs, &rel);
	if (tol_abs > 0 && inexact(want->dtype))
		abs = tol_abs, rel = tol_abs / 10;
	row->tol = abs;
	row->ok = 0;
	if (got->dtype != want->dtype) {
		row->problem = arena_printf(a, "dtype %s, torch's is %s", dtype_name(got->dtype), dtype_name(want->dtype));
		return 0;
	}
	if (!same_shape(got, want)) {
		row->problem = arena_printf(a, "shape %s, torch's is %s", row->shape, shape_text(a, want));
		return 0;
	}
	if (want->data && want->nbytes && want->nbytes != (uint64_t)n * (uint64_t)dtype_size(want->dtype)) {
		row->problem = arena_printf(a, "torch's file holds %llu bytes, the output %llu",
		                            (unsigned long long)want->nbytes,
		                            (unsigned long long)n * (unsigned long long)dtype_size(want->dtype));
		return 0;
	}
	if (want->dtype == DT_COMPLEX32 || want->dtype == DT_COMPLEX64 || want->dtype == DT_COMPLEX128)
		n *= 2;   /* compared part by part */
	if (want->data && !inexact(want->dtype) && (int64_equal(got, want, n) ||
	    memcmp(got->data, want->data, (size_t)n * (size_t)dtype_size(want->dtype)) == 0)) {
		row->max_abs = row->max_rel = 0;
		return row->ok = 1;
	}
	if (!want->data && !inexact(want->dtype))
		return row->ok = 1;
	scan_values(got, want, n, row, &nan, &inf);
	mag = row->tol;
	row->tol = abs > rel * mag ? abs : rel * mag;
	if ((nan || inf) && !(nan_allowed && !want->data))
		row->problem = arena_printf(a, "%lld NaN and %lld infinite value%s where torch has %s", (long long)nan,
		                            (long long)inf, nan + inf == 1 ? "" : "s",
		                            want->data ? "numbers" : "none in the program");
	else if (!inexact(want->dtype) && row->max_abs > 0)
		row->problem = "values differ (an integer or bool output must be exact)";
	row->ok = !row->problem && (row->max_abs < 0 || row->max_abs <= row->tol);
	return row->ok;
}
