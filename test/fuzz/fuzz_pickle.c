/* fuzz_pickle.c: libFuzzer target for pickle_load.
 *
 * Each input runs in a fresh arena.  Besides not crashing, the loader must
 * keep its contract: NULL comes with a DIAG_INPUT message, a value comes
 * with no message.  The result is walked (bounded, since the memo can make
 * cycles) so that every pointer it hands out is touched under ASan. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read/read.h"
#include "../unit/diagtext.h"

static size_t budget;

static void
walk(const PyObj *o, int depth)
{
	if (!o || depth > 64 || budget == 0)
		return;
	budget--;
	switch (o->kind) {
	case PY_STR:
	case PY_BYTES:
		if (o->s[o->n] != 0)
			abort();
		break;
	case PY_GLOBAL:
		if (strlen(o->s) > o->n || !o->name)
			abort();
		break;
	case PY_TUPLE:
	case PY_LIST:
	case PY_DICT:
		for (size_t i = 0; i < o->n; i++) {
			walk(o->items[i], depth + 1);
			if (o->kind == PY_DICT)
				walk(o->values[i], depth + 1);
		}
		break;
	case PY_CALL:
		walk(o->func, depth + 1);
		walk(o->args, depth + 1);
		walk(o->state, depth + 1);
		break;
	case PY_PERSID:
		walk(o->args, depth + 1);
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Arena a;
	Diag d = {0};
	PyObj *o;

	arena_init(&a);
	o = pickle_load(&a, "fuzz", data, size, &d);
	if (o ? d.code != DIAG_OK : d.code != DIAG_INPUT || !test_diag_text(&d))
		abort();
	budget = 100000;
	walk(o, 0);
	arena_free(&a);
	diag_free(&d);
	return 0;
}
