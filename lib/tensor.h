/* tensor.h: a tensor whose bytes live in the mapped input file.
 *
 * Weights, constants and sample inputs are views into a storage: the raw
 * bytes of a whole storage record, plus sizes, strides (in elements) and a
 * storage offset (in elements), as torch's as_strided.  Nothing is copied. */
#ifndef TENSOR_H
#define TENSOR_H

#include <stdint.h>

#include "dtype.h"

typedef struct TensorData {
	DType dtype;
	int rank;
	int64_t *sizes;            /* rank entries (arena) */
	int64_t *strides;          /* rank entries, in elements (arena) */
	int64_t offset;            /* storage offset, in elements */
	const uint8_t *storage;    /* first byte of the storage (mapped file or arena) */
	uint64_t storage_bytes;    /* bytes in the storage */
	const char *entry;         /* the zip entry holding the storage, for messages */
} TensorData;

/* Number of elements (product of sizes; 1 for rank 0). */
int64_t tensor_numel(const TensorData *t);
/* 1 when the view is row-major contiguous, so its bytes are one run. */
int tensor_is_contiguous(const TensorData *t);
/* Returns 1 when every element the view addresses lies inside the storage. */
int tensor_in_bounds(const TensorData *t);

#endif
