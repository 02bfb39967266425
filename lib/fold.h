/* fold.h: the constant-folding evaluator.
 *
 * fold_eval() computes one ONNX node on constant inputs, in C, for the ops
 * constant folding needs (shape computations, casts, layout ops,
 * arithmetic and comparisons, Range, ConstantOfShape, Where, Expand,
 * Trilu, reductions, small MatMuls, the usual unary functions).  Floating
 * point is computed in double and rounded once to the output type, which
 * for + - * / and sqrt gives the bits a float32 kernel gives (libm's
 * transcendental functions and MatMul's sums may differ in the last bit).  Inputs may point into the mapped weight file (any
 * alignment); outputs are new arena buffers, or share the input's bytes
 * for ops that only reshape. */
#ifndef FOLD_H
#define FOLD_H

#include <stdint.h>

#include "arena.h"
#include "onnx.h"

#define FOLD_MAX_RANK 8

typedef struct FoldTensor {
	int elem;               /* ONNX element type */
	int rank;
	int64_t dims[FOLD_MAX_RANK];
	int64_t numel;
	const void *data;       /* numel elements, packed, little-endian, maybe unaligned */
} FoldTensor;

/* 1 when fold_eval knows op (an ai.onnx op type). */
int fold_supported(const char *op);
/* Evaluates node n on in[0..nin) (NULL for an omitted input) into
 * out[0..n->n_output).  New buffers larger than max_bytes are refused.
 * Returns 0, or -1 when an op, a type, an attribute or a size is not
 * supported (the graph keeps the node then). */
int fold_eval(Arena *a, const OnnxNode *n, int nin, const FoldTensor *const *in,
              FoldTensor *out, int64_t max_bytes);
/* The tensor's raw bytes as a FoldTensor; -1 when not in memory as raw_data. */
int fold_from_tensor(const OnnxTensor *t, FoldTensor *out);
/* Size in bytes of one element of type elem (0: unsupported). */
int fold_elem_size(int elem);

#endif
