/* node.c: an IR node as its lowering reads it: its outputs (lists
 * flattened), its arguments by schema name, and lower_fail(), which reports
 * a diagnostic naming the node, its graph, its ATen target and the user's
 * frame.  The bottom of lib/lower/:
 * it calls nothing else of the layer. */
#include "lower/lower.h"

#include <stdarg.h>
#include <string.h>

#include "core/core.h"

/* "main_graph" or "main_graph/true_graph_0": the graphs holding g, outermost first. */
static const char *
graph_path(Arena *a, const Graph *g)
{
	if (!g)
		return NULL;
	if (!g->parent)
		return "main_graph";
	return arena_printf(a, "%s/%s", graph_path(a, g->parent), g->name);
}

static int
vfail(LowerCtx *c, const Node *n, DiagCode code, const char *fmt, va_list ap)
{
	char *what = arena_vprintf(c->a, fmt, ap);

	return diag_report(c->d, code, &(DiagAt){.file = c->prog->path, .graph = graph_path(c->a, n->graph),
	                                         .node = n->name, .target = n->op, .frame = n->frame},
	                   "%s", what);
}

int
lower_fail(LowerCtx *c, const Node *n, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(c, n, YE_LOWERING_FAILED, fmt, ap);
	va_end(ap);
	return rc;
}

int
lower_fail_as(LowerCtx *c, const Node *n, DiagCode code, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(c, n, code, fmt, ap);
	va_end(ap);
	return rc;
}

/* The k-th tensor slot of an output Arg list, flattened; *k counts down. */
static const Arg *
out_slot(const Arg *o, int n, int *k)
{
	for (int i = 0; i < n; i++) {
		const Arg *g = &o[i];
		if (g->kind == ARG_TENSORS || g->kind == ARG_OPT_TENSORS || g->kind == ARG_SYM_INTS) {
			const Arg *r = out_slot(g->u.list, g->n, k);
			if (r)
				return r;
		} else if ((*k)-- == 0) {
			return g;
		}
	}
	return NULL;
}

int
lower_nout(const Node *n)
{
	int k = 1 << 30;

	out_slot(n->out, n->nout, &k);
	return (1 << 30) - k;
}

const Value *
lower_out_value(const Node *n, int k)
{
	const Arg *g = out_slot(n->out, n->nout, &k);

	if (!g || !(g->kind == ARG_TENSOR || g->kind == ARG_OPT_TENSOR || g->kind == ARG_SYM_INT ||
	            g->kind == ARG_SYM_BOOL || g->kind == ARG_SYM_FLOAT))
		return NULL;
	return g->u.v;
}

const Arg *
lower_arg(const Node *n, const char *name)
{
	return ir_arg(n, name);
}

const Value *
lower_arg_value(const Node *n, const char *name)
{
	const Arg *g = ir_arg(n, name);

	if (!g || !(g->kind == ARG_TENSOR || g->kind == ARG_OPT_TENSOR || g->kind == ARG_SYM_INT ||
	            g->kind == ARG_SYM_BOOL || g->kind == ARG_SYM_FLOAT))
		return NULL;
	return g->u.v;
}
