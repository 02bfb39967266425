/* vmap.c: lowerings of the torch.vmap markers (vmap.def) that the vmap pass
 * (lib/lower/vmap.c) leaves: those of subgraphs, which it does not rewrite. */
#include "lower/lower.h"

/* The nesting markers have no outputs and emit nothing; a batch dim marker
 * here is inside a subgraph, where batched values are not tracked. */
int
lower_vmap_marker(LowerCtx *c, const Node *n, const OpRow *row)
{
	(void)row;
	if (lower_nout(n) == 0 || !lower_out_value(n, 0))
		return 0;
	return lower_fail(c, n, "torch.vmap inside a subgraph (cond, while_loop, ...) is not supported: "
	                  "the vmap pass rewrites the main graph only; move the vmap out of the branch or body");
}
