/* size.c: sizes computed from input, with overflow checked.
 *
 * A count of elements or bytes that an input file gives (dims, a shape in
 * options, a record's length) must never wrap: a product that wraps to a
 * small number lets a tiny buffer pass for a huge tensor, and every later
 * read runs past it.  Every such product and sum goes through these, which
 * refuse a result that does not fit instead of returning it modulo 2^64. */
#include "core/core.h"

int
size_mul(uint64_t a, uint64_t b, uint64_t *out)
{
	uint64_t r;

	if (__builtin_mul_overflow(a, b, &r))
		return -1;
	*out = r;
	return 0;
}

int
size_add(uint64_t a, uint64_t b, uint64_t *out)
{
	uint64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return -1;
	*out = r;
	return 0;
}

int
size_numel(const int64_t *dims, size_t n, int64_t *out)
{
	int64_t r = 1;

	for (size_t i = 0; i < n; i++)
		if (dims[i] < 0 || __builtin_mul_overflow(r, dims[i], &r))
			return -1;
	*out = r;
	return 0;
}

int
size_bytes(int64_t numel, int elem_size, uint64_t *out)
{
	int64_t r;

	if (numel < 0 || elem_size < 0 || __builtin_mul_overflow(numel, (int64_t)elem_size, &r))
		return -1;
	*out = (uint64_t)r;
	return 0;
}
