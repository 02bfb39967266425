/* complex.h: complex values as (real, imag) pairs, the helpers complex.c
 * defines and signal.c uses too.  A complex tensor of IR rank r is an ONNX
 * tensor of rank r + 1 whose last dim (2) holds the real and imaginary
 * parts, in the part's float type (dtype_complex_part). */
#ifndef LOWER_OPS_COMPLEX_H
#define LOWER_OPS_COMPLEX_H

#include "core/core.h"
#include "lower/lower.h"

#define MAXR 16

/* 1 when v is a complex tensor. */
int cx_is(const Value *v);
/* The float type of v's parts (v's own dtype when it is real). */
DType cx_part_type(const Value *v);
/* Part k (0 real, 1 imag) of a complex ONNX value x: Gather on the last
 * axis, which drops it. */
const char *cx_part(LowerCtx *c, const char *x, int k, const char *out);
/* The complex value with parts re and im (same shape). */
const char *cx_join(LowerCtx *c, const char *re, const char *im, const char *out);
/* A real ONNX value x of IR rank r as a complex one: a trailing dim of 1,
 * padded with a zero imaginary part (Pad keeps inf and nan of x, which a
 * product by 0 would not). */
const char *cx_from_real(LowerCtx *c, const char *x, int r);
/* A constant of dtype t and shape [k]. */
const char *cx_vec_const(LowerCtx *c, DType t, int k, const double *v);

#endif
