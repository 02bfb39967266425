/* tensor.c: arithmetic on views. */
#include "core/core.h"

int64_t
tensor_numel(const TensorData *t)
{
	int64_t n = 1;

	for (int i = 0; i < t->rank; i++)
		n *= t->sizes[i];
	return n;
}

int
tensor_is_contiguous(const TensorData *t)
{
	int64_t expect = 1;

	for (int i = t->rank - 1; i >= 0; i--) {
		if (t->sizes[i] != 1 && t->strides[i] != expect)
			return 0;
		expect *= t->sizes[i];
	}
	return 1;
}

int
tensor_in_bounds(const TensorData *t)
{
	int64_t esz = dtype_size(t->dtype), last = t->offset;

	int64_t n;
	uint64_t bytes;

	if (esz <= 0 || t->offset < 0)
		return 0;
	/* a view repeating its storage (stride 0) may not claim more elements
	 * or bytes than an int64 counts: tensor_numel() is then exact */
	if (size_numel(t->sizes, (size_t)t->rank, &n) || size_bytes(n, (int)esz, &bytes))
		return 0;
	for (int i = 0; i < t->rank; i++) {
		if (t->sizes[i] < 0 || t->strides[i] < 0)
			return 0;
		if (t->sizes[i] == 0)
			return 1;   /* empty view addresses nothing */
		if (t->sizes[i] > 1 && t->strides[i] > (INT64_MAX / 2) / t->sizes[i])
			return 0;
		last += (t->sizes[i] - 1) * t->strides[i];
		if (last > INT64_MAX / 16)
			return 0;
	}
	return (uint64_t)((last + 1) * esz) <= t->storage_bytes;
}
