/* fuzz_torchsave.c: libFuzzer target for torchsave_load, the nested
 * torch.save zip reader (zip + pickle + tensor rebuild calls).
 *
 * Contract checked: NULL comes with a DIAG_INPUT message; every tensor in a
 * successful result lies inside its storage, whose bytes are touched. */
#include <stdint.h>
#include <stdlib.h>

#include "core/core.h"
#include "read/read.h"

static size_t budget;
static volatile uint8_t sink;

static void
walk(const PyObj *o, int depth)
{
	if (!o || depth > 64 || budget == 0)
		return;
	budget--;
	if (o->kind == PY_TENSOR) {
		const TensorData *t = o->tensor;
		if (!tensor_in_bounds(t))
			abort();
		if (tensor_numel(t) > 0 && t->storage_bytes > 0)
			sink ^= t->storage[t->offset * dtype_size(t->dtype)] ^ t->storage[t->storage_bytes - 1];
		return;
	}
	if (o->kind == PY_TUPLE || o->kind == PY_LIST || o->kind == PY_DICT)
		for (size_t i = 0; i < o->n; i++) {
			walk(o->items[i], depth + 1);
			if (o->kind == PY_DICT)
				walk(o->values[i], depth + 1);
		}
	if (o->kind == PY_CALL)
		walk(o->args, depth + 1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Arena a;
	Diag d = {0};
	PyObj *o;

	arena_init(&a);
	o = torchsave_load(&a, "fuzz.pt", data, size, &d);
	if (!o != (d.code == DIAG_INPUT))
		abort();
	budget = 100000;
	walk(o, 0);
	arena_free(&a);
	diag_free(&d);
	return 0;
}
