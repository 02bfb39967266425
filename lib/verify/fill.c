/* fill.c: inputs made from shapes alone, for a model whose file keeps no
 * example inputs (a TorchScript archive, an ONNX model, a .pt2 saved
 * without them): the same values for the same seed on every machine
 * (splitmix64), so a failure can be replayed.  Floats are uniform in
 * [-1, 1), integers in [0, 4), bools all true (the usual attention mask,
 * which keeps every position: a row masked out entirely gives NaN in
 * torch too). */
#include "verify/verify.h"

#include <string.h>

static uint64_t
next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void
verify_fill(Arena *a, VerifyTensor *t, uint64_t seed)
{
	int64_t n = 1;
	int size = dtype_size(t->dtype);
	uint8_t *p;

	for (int i = 0; i < t->rank; i++)
		n *= t->shape[i];
	p = arena_alloc(a, (size_t)(n * size) + 1);
	for (int64_t i = 0; i < n; i++) {
		double u = (double)(next(&seed) >> 11) / 9007199254740992.0 * 2 - 1;   /* [-1, 1) */
		uint8_t *q = p + i * size;
		int64_t k = (int64_t)((u + 1) * 2);                                      /* 0..3 */
		if (t->dtype == DT_BOOL)
			*q = 1;                     /* all true: a mask that masks nothing */
		else if (dtype_is_float(t->dtype))
			dtype_encode_f64(t->dtype, q, (float)u);
		else                            /* integers: k in the element's own width */
			dtype_encode_i64(t->dtype, q, k);
	}
	t->data = p;
}
