/* dtype.c: lookups over the rows of dtype.def. */
#include "dtype.h"

#include <string.h>

static const struct {
	int code;
	const char *name;
	int size;
	int onnx;
} rows[DT_COUNT] = {
	[DT_UNKNOWN] = {0, "unknown", 0, 0},
#define X(e, code, name, size, onnx) [e] = {code, name, size, onnx},
#include "dtype.def"
#undef X
};

DType
dtype_from_torch(long code)
{
	for (int t = 1; t < DT_COUNT; t++)
		if (rows[t].code == code)
			return (DType)t;
	return DT_UNKNOWN;
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
