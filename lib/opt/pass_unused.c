/* pass_unused.c: RemoveUnused (patterns.def). */
#include "opt/opt.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/core.h"
#include "onnx/onnx.h"
#include "internal.h"

/* Requires the index; removes every node no graph output depends on (the
 * initializers no node reads are dropped by opt_writeback()). */
int
opt_pass_unused(Opt *o)
{
	int64_t before = o->removed;

	/* every node is a candidate; the sweep pops them last first */
	for (int n = o->head; n >= 0; n = opt_node(o, n)->next) {
		if (o->nsweep == o->capsweep) {
			int cap = o->capsweep ? o->capsweep * 2 : 64;
			int *s = ARENA_ARRAY(o->a, int, cap);
			if (o->nsweep)
				memcpy(s, o->sweep, sizeof *s * (size_t)o->nsweep);
			o->sweep = s;
			o->capsweep = cap;
		}
		o->sweep[o->nsweep++] = n;
	}
	opt_sweep(o);
	return (int)(o->removed - before);
}
