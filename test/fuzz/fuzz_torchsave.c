/* fuzz_torchsave.c: libFuzzer target for torchsave_load, the nested
 * torch.save zip reader (zip + pickle + tensor rebuild calls).
 *
 * Contract checked: NULL comes with a DIAG_INPUT message; every tensor in a
 * successful result lies inside its storage, whose bytes are touched. */
#include <stdint.h>
#include <stdlib.h>

#include "core/core.h"
#include "read/read.h"
#include "pytree.h"

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
	pytree_budget = 100000;
	pytree_walk(o, 0);
	arena_free(&a);
	diag_free(&d);
	return 0;
}
