/* pytree.h: walks the PyObj tree a reader fuzz target got back (the
 * torch.save and TorchScript readers), so that every pointer is touched
 * under ASan: each tensor must lie inside its storage, whose first and
 * last bytes are read.  Bounded by depth and by a budget of objects, since
 * the memo shares objects (and can make cycles). */
#ifndef FUZZ_PYTREE_H
#define FUZZ_PYTREE_H

#include <stdint.h>
#include <stdlib.h>

#include "read/read.h"

static size_t pytree_budget;
static volatile uint8_t pytree_sink;

static void
pytree_walk(const PyObj *o, int depth)
{
	if (!o || depth > 64 || pytree_budget == 0)
		return;
	pytree_budget--;
	if (o->kind == PY_TENSOR) {
		const TensorData *t = o->tensor;
		if (!tensor_in_bounds(t))
			abort();
		if (tensor_numel(t) > 0 && t->storage_bytes > 0)
			pytree_sink ^= t->storage[t->offset * dtype_size(t->dtype)] ^ t->storage[t->storage_bytes - 1];
		return;
	}
	if (o->kind == PY_TUPLE || o->kind == PY_LIST || o->kind == PY_DICT)
		for (size_t i = 0; i < o->n; i++) {
			pytree_walk(o->items[i], depth + 1);
			if (o->kind == PY_DICT)
				pytree_walk(o->values[i], depth + 1);
		}
	if (o->kind == PY_CALL) {
		pytree_walk(o->args, depth + 1);
		pytree_walk(o->state, depth + 1);
	}
}

#endif
