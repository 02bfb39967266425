/* dtype.c: lookups over the rows of dtype.def, and the element codec: every
 * element type to and from double and int64 (dtype_decode_f64 and co.), the
 * only code that reads an element's bytes as a number (facts check). */
#include "core/core.h"

#include <math.h>
#include <string.h>

static const struct {
	int code;
	int c10;
	const char *name;
	int size;
	int onnx;
	DTypeKind kind;
} rows[DT_COUNT] = {
	[DT_UNKNOWN] = {0, -1, "unknown", 0, 0, DK_OTHER},
#define X(e, code, c10, name, size, onnx, oname, kind) [e] = {code, c10, name, size, onnx, DK_##kind},
#include "dtype.def"
#undef X
};

DTypeKind
dtype_kind(DType t)
{
	return t > DT_UNKNOWN && t < DT_COUNT ? rows[t].kind : DK_OTHER;
}

int
dtype_is_float(DType t)
{
	return dtype_kind(t) == DK_FLOAT;
}

int
dtype_onnx_is_float(int elem)
{
	return dtype_is_float(dtype_from_onnx(elem));
}

DType
dtype_from_torch(long code)
{
	for (int t = 1; t < DT_COUNT; t++)
		if (rows[t].code == code)
			return (DType)t;
	return DT_UNKNOWN;
}

DType
dtype_from_c10(long code)
{
	for (int t = 1; t < DT_COUNT; t++)
		if (code >= 0 && rows[t].c10 == code)
			return (DType)t;
	return DT_UNKNOWN;
}

int
dtype_c10(DType t)
{
	return t > DT_UNKNOWN && t < DT_COUNT ? rows[t].c10 : -1;
}

DType
dtype_from_name(const char *name)
{
	for (int t = 1; t < DT_COUNT; t++)
		if (strcmp(rows[t].name, name) == 0)
			return (DType)t;
	if (strcmp(name, "float") == 0) return DT_FLOAT32;
	if (strcmp(name, "half") == 0) return DT_FLOAT16;
	if (strcmp(name, "double") == 0) return DT_FLOAT64;
	if (strcmp(name, "long") == 0) return DT_INT64;
	if (strcmp(name, "int") == 0) return DT_INT32;
	return DT_UNKNOWN;
}

DType
dtype_from_storage(const char *cls)
{
	static const struct { const char *cls; DType t; } map[] = {
		{"DoubleStorage", DT_FLOAT64}, {"FloatStorage", DT_FLOAT32},
		{"HalfStorage", DT_FLOAT16}, {"BFloat16Storage", DT_BFLOAT16},
		{"LongStorage", DT_INT64}, {"IntStorage", DT_INT32},
		{"ShortStorage", DT_INT16}, {"CharStorage", DT_INT8},
		{"ByteStorage", DT_UINT8}, {"BoolStorage", DT_BOOL},
		{"ComplexFloatStorage", DT_COMPLEX64}, {"ComplexDoubleStorage", DT_COMPLEX128},
		{"UntypedStorage", DT_UINT8},
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcmp(map[i].cls, cls) == 0)
			return map[i].t;
	return DT_UNKNOWN;
}

const char *dtype_name(DType t) { return t < DT_COUNT ? rows[t].name : "unknown"; }
int dtype_size(DType t) { return t < DT_COUNT ? rows[t].size : 0; }
int dtype_onnx(DType t) { return t < DT_COUNT ? rows[t].onnx : 0; }

DType
dtype_complex_part(DType t)
{
	switch (t) {
	case DT_COMPLEX32: return DT_FLOAT16;
	case DT_COMPLEX64: return DT_FLOAT32;
	case DT_COMPLEX128: return DT_FLOAT64;
	default: return DT_UNKNOWN;
	}
}

DType
dtype_from_onnx(int elem)
{
	for (int t = 1; elem && t < DT_COUNT; t++)
		if (rows[t].onnx == elem)
			return (DType)t;
	return DT_UNKNOWN;
}

/* ---- the element codec ----
 *
 * The one place that turns an element's bytes into a number and back.  The
 * narrow floats are described by their bit layout (ONNX's IR spec and
 * torch's c10 types): exponent and mantissa widths, bias, and how they spell
 * infinity and NaN.  Encoding rounds to nearest, ties to even, straight from
 * the double (no double rounding through float); a magnitude past the
 * largest finite value becomes infinity where the format has one, else NaN
 * (torch's and ONNX's non-saturating conversion). */

enum { SP_IEEE, SP_FN, SP_FNUZ };   /* inf and NaN as IEEE; NaN only at S.1111.111; NaN at 0x80 */

typedef struct SmallFloat {
	int ebits, mbits, bias, special;
} SmallFloat;

static const SmallFloat F16 = {5, 10, 15, SP_IEEE}, BF16 = {8, 7, 127, SP_IEEE},
	E4M3FN = {4, 3, 7, SP_FN}, E5M2 = {5, 2, 15, SP_IEEE},
	E4M3FNUZ = {4, 3, 8, SP_FNUZ}, E5M2FNUZ = {5, 2, 16, SP_FNUZ};

static const SmallFloat *
small_float(DType t)
{
	switch (t) {
	case DT_FLOAT16: case DT_COMPLEX32: return &F16;
	case DT_BFLOAT16: return &BF16;
	case DT_FLOAT8E4M3FN: return &E4M3FN;
	case DT_FLOAT8E5M2: return &E5M2;
	case DT_FLOAT8E4M3FNUZ: return &E4M3FNUZ;
	case DT_FLOAT8E5M2FNUZ: return &E5M2FNUZ;
	default: return NULL;
	}
}

static double
sf_decode(const SmallFloat *f, uint32_t bits)
{
	uint32_t sign = bits >> (f->ebits + f->mbits) & 1;
	uint32_t e = bits >> f->mbits & ((1u << f->ebits) - 1), m = bits & ((1u << f->mbits) - 1);
	uint32_t emax = (1u << f->ebits) - 1;
	double v;

	if (f->special == SP_FNUZ && sign && !e && !m)
		return NAN;
	if (f->special == SP_IEEE && e == emax)
		return m ? NAN : sign ? -INFINITY : INFINITY;
	if (f->special == SP_FN && e == emax && m == (1u << f->mbits) - 1)
		return NAN;
	if (e == 0)
		v = ldexp((double)m, 1 - f->bias - f->mbits);
	else
		v = ldexp((double)(m | 1u << f->mbits), (int)e - f->bias - f->mbits);
	return sign ? -v : v;
}

/* q rounded to an integer, ties to even (q >= 0 and below 2^53). */
static double
round_even(double q)
{
	double fl = floor(q), r = q - fl;

	if (r > 0.5 || (r == 0.5 && fmod(fl, 2) != 0))
		fl += 1;
	return fl;
}

static uint32_t
sf_encode(const SmallFloat *f, double x)
{
	int sbit = f->ebits + f->mbits, e, emin = 1 - f->bias;
	uint32_t neg = signbit(x) ? 1u << sbit : 0, nan, inf, code;
	double a = fabs(x), q;

	if (f->special == SP_FNUZ) {
		nan = 1u << sbit;                  /* the pattern of -0, which these formats lack */
		inf = nan;
	} else if (f->special == SP_FN) {
		nan = (1u << sbit) - 1;            /* S.1111.111; no infinity */
		inf = neg | nan;
	} else {
		inf = ((1u << f->ebits) - 1) << f->mbits;
		nan = neg | inf | 1u << (f->mbits - 1);
		inf |= neg;
	}
	if (isnan(x))
		return f->special == SP_FN ? neg | nan : nan;
	if (isinf(x))
		return inf;
	if (a == 0)
		return f->special == SP_FNUZ ? 0 : neg;
	frexp(a, &e);
	e -= 1;                                    /* a = 1.m * 2^e */
	if (e < emin) {                            /* subnormal: multiples of 2^(emin - mbits) */
		code = (uint32_t)round_even(ldexp(a, f->mbits - emin));
	} else {                                   /* 2^mbits, the smallest normal, carries into the exponent */
		q = round_even(ldexp(a, f->mbits - e));
		if (q >= ldexp(1, f->mbits + 1))
			q /= 2, e += 1;
		if (e + f->bias >= (1 << f->ebits))
			return inf;
		code = (uint32_t)(e + f->bias) << f->mbits | ((uint32_t)q - (1u << f->mbits));
	}
	if ((f->special == SP_IEEE && code >= (((1u << f->ebits) - 1) << f->mbits)) ||
	    (f->special == SP_FN && code >= nan) || (f->special == SP_FNUZ && code >= nan))
		return inf;
	return code || f->special != SP_FNUZ ? code | neg : 0;
}

/* float8_e8m0fnu: a power of two 2^(bits - 127); 0xff is NaN; no zero, no sign. */
static double
e8m0_decode(uint8_t bits)
{
	return bits == 0xff ? NAN : ldexp(1, bits - 127);
}

static uint8_t
e8m0_encode(double x)
{
	int e, code;
	double m;

	if (isnan(x) || x < 0 || isinf(x))
		return 0xff;
	if (x == 0)
		return 0;                          /* the smallest it holds, 2^-127 */
	m = 2 * frexp(x, &e);                      /* x = m * 2^(e-1), m in [1, 2) */
	code = e - 1 + 127;
	if (m > 1.5 || (m == 1.5 && (code & 1)))
		code++;
	return code < 0 ? 0 : code > 254 ? 0xff : (uint8_t)code;
}

/* A double's integer part, saturated to int64's range; NaN is 0. */
static int64_t
sat_i64(double x)
{
	if (isnan(x))
		return 0;
	if (x >= 9223372036854775808.0)
		return INT64_MAX;
	if (x < -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)x;
}

double
dtype_decode_f64(DType t, const void *p)
{
	const uint8_t *b = p;
	union { float f; double d; uint64_t u64; } u;
	const SmallFloat *f = small_float(t);

	if (f)
		return sf_decode(f, f->ebits + f->mbits < 8 ? b[0] : (uint32_t)b[0] | (uint32_t)b[1] << 8);
	switch (t) {
	case DT_FLOAT32: case DT_COMPLEX64: memcpy(&u.f, b, 4); return u.f;
	case DT_FLOAT64: case DT_COMPLEX128: memcpy(&u.d, b, 8); return u.d;
	case DT_FLOAT8E8M0FNU: return e8m0_decode(b[0]);
	case DT_UINT64: memcpy(&u.u64, b, 8); return (double)u.u64;
	default:                /* the other integers and bool exactly as int64 */
		return dtype_kind(t) == DK_INT || t == DT_BOOL ? (double)dtype_decode_i64(t, p) : 0;
	}
}

int64_t
dtype_decode_i64(DType t, const void *p)
{
	const uint8_t *b = p;
	union { int16_t i16; int32_t i32; int64_t i64; uint16_t u16; uint32_t u32; } u;

	switch (t) {
	case DT_BOOL: return b[0] != 0;
	case DT_UINT8: return b[0];
	case DT_INT8: return (int8_t)b[0];
	case DT_INT16: memcpy(&u.i16, b, 2); return u.i16;
	case DT_UINT16: memcpy(&u.u16, b, 2); return u.u16;
	case DT_INT32: memcpy(&u.i32, b, 4); return u.i32;
	case DT_UINT32: memcpy(&u.u32, b, 4); return u.u32;
	case DT_INT64: case DT_UINT64: memcpy(&u.i64, b, 8); return u.i64;
	default: return sat_i64(dtype_decode_f64(t, p));
	}
}

/* The low bytes of x (two's complement, little-endian) into an integer of size bytes. */
static void
put_int(void *p, int64_t x, int size)
{
	uint64_t u = (uint64_t)x;

	for (int i = 0; i < size; i++, u >>= 8)
		((uint8_t *)p)[i] = (uint8_t)u;
}

int
dtype_encode_f64(DType t, void *p, double x)
{
	const SmallFloat *f = small_float(t);
	uint8_t *b = p;
	float x32;

	if (f) {
		uint32_t bits = sf_encode(f, x);
		put_int(b, bits, f->ebits + f->mbits < 8 ? 1 : 2);
		if (t == DT_COMPLEX32)
			memset(b + 2, 0, 2);
		return 0;
	}
	switch (t) {
	case DT_FLOAT32: case DT_COMPLEX64:
		/* beyond float's range (and not rounding down into it): infinity, not UB */
		x32 = fabs(x) >= 0x1.ffffffp127 && !isinf(x) ? (x > 0 ? INFINITY : -INFINITY) : (float)x;
		memcpy(b, &x32, 4);
		if (t == DT_COMPLEX64)
			memset(b + 4, 0, 4);
		return 0;
	case DT_FLOAT64: case DT_COMPLEX128:
		memcpy(b, &x, 8);
		if (t == DT_COMPLEX128)
			memset(b + 8, 0, 8);
		return 0;
	case DT_FLOAT8E8M0FNU: b[0] = e8m0_encode(x); return 0;
	case DT_BOOL: b[0] = x != 0; return 0;
	case DT_UINT64:
		if (x >= 9223372036854775808.0) {
			uint64_t u = x >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)x;
			memcpy(b, &u, 8);
			return 0;
		}
		put_int(b, sat_i64(x), 8);
		return 0;
	default:
		if (dtype_kind(t) != DK_INT)
			return -1;
		put_int(b, sat_i64(x), dtype_size(t));
		return 0;
	}
}

int
dtype_encode_i64(DType t, void *p, int64_t x)
{
	switch (dtype_kind(t)) {
	case DK_INT: put_int(p, x, dtype_size(t)); return 0;
	case DK_BOOL: *(uint8_t *)p = x != 0; return 0;
	default: return dtype_encode_f64(t, p, (double)x);
	}
}

void
dtype_decode_array(DType t, const void *p, int64_t n, double *out)
{
	const uint8_t *b = p;
	int size = dtype_size(t);

	if (t == DT_FLOAT32) {                     /* the common case, a tight loop */
		for (int64_t i = 0; i < n; i++) {
			float f;
			memcpy(&f, b + 4 * i, 4);
			out[i] = f;
		}
		return;
	}
	for (int64_t i = 0; i < n; i++)
		out[i] = dtype_decode_f64(t, b + i * size);
}

void
dtype_encode_array(DType t, void *p, int64_t n, const double *v)
{
	uint8_t *b = p;
	int size = dtype_size(t);

	for (int64_t i = 0; i < n; i++)
		dtype_encode_f64(t, b + i * size, v[i]);
}

int
dtype_torch(DType t)
{
	switch (t) {
#define X(e, code, c10, name, size, onnx, oname, kind) case e: return code;
#include "dtype.def"
#undef X
	default: return -1;
	}
}
