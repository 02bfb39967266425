/* dtype.h: element types, generated from dtype.def. */
#ifndef DTYPE_H
#define DTYPE_H

#include <stdint.h>

typedef enum DType {
	DT_UNKNOWN = 0,
#define X(e, code, name, size, onnx) e,
#include "dtype.def"
#undef X
	DT_COUNT
} DType;

/* Returns the DType for torch's ScalarType code, DT_UNKNOWN if none. */
DType dtype_from_torch(long code);
/* Returns the DType for a torch.save storage class ("FloatStorage"), DT_UNKNOWN if none. */
DType dtype_from_storage(const char *cls);
/* Returns the DType for a torch dtype attribute name ("float32", "bfloat16"), DT_UNKNOWN if none. */
DType dtype_from_name(const char *name);
const char *dtype_name(DType t);      /* "float32"; "unknown" for DT_UNKNOWN */
int dtype_size(DType t);              /* bytes per element; 0 for DT_UNKNOWN */
int dtype_onnx(DType t);              /* ONNX TensorProto.DataType; 0 if none */

/* 16-bit float encodings, rounded to nearest even. */
uint16_t dtype_f16_bits(float f);
float dtype_f16_value(uint16_t h);
uint16_t dtype_bf16_bits(float f);

#endif
