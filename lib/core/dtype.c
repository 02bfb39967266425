/* dtype.c: lookups over the rows of dtype.def. */
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

/* IEEE half from float, rounded to nearest even (a carry into the exponent
 * is right); NaN stays NaN, overflow goes to infinity. */
uint16_t
dtype_f16_bits(float f)
{
	uint32_t x, sign, mant, h, rem, mid;
	int32_t e;
	int shift;

	memcpy(&x, &f, 4);
	sign = (x >> 16) & 0x8000;
	mant = x & 0x7fffff;
	if (((x >> 23) & 0xff) == 0xff)
		return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 : 0));
	e = (int32_t)((x >> 23) & 0xff) - 127 + 15;
	if (e >= 31)
		return (uint16_t)(sign | 0x7c00);
	if (e <= 0) {
		if (e < -10)
			return (uint16_t)sign;
		mant |= 0x800000;
		shift = 14 - e;
		h = mant >> shift;
		rem = mant & ((1u << shift) - 1);
		mid = 1u << (shift - 1);
		if (rem > mid || (rem == mid && (h & 1)))
			h++;
		return (uint16_t)(sign | h);
	}
	h = ((uint32_t)e << 10) | (mant >> 13);
	rem = mant & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
		h++;
	return (uint16_t)(sign | h);
}

/* The float a half's bits hold. */
float
dtype_f16_value(uint16_t h)
{
	int e = (h >> 10) & 31, m = h & 1023;
	float s = (h & 0x8000) ? -1.0f : 1.0f;

	if (e == 0)
		return s * (float)m * (1.0f / 16777216.0f);
	if (e == 31)
		return m ? NAN : s * INFINITY;
	return s * (1.0f + (float)m / 1024.0f) * ldexpf(1.0f, e - 15);
}

/* bfloat16 from float: the top 16 bits, rounded to nearest even; NaN stays NaN. */
uint16_t
dtype_bf16_bits(float f)
{
	uint32_t x;

	memcpy(&x, &f, 4);
	if ((x & 0x7fffffff) > 0x7f800000)
		return (uint16_t)((x >> 16) | 0x40);
	return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
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
