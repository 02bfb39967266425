/* node.c: an IR node as its lowering reads it: its outputs (lists
 * flattened), its arguments by schema name, and lower_fail(), which reports
 * a diagnostic naming the node, its graph, its ATen target and the user's
 * frame.  The bottom of lib/lower/:
 * it calls nothing else of the layer. */
#include "lower/lower.h"

#include <stdarg.h>
#include <string.h>

#include "core/core.h"

static int
vfail(LowerCtx *c, const Node *n, DiagCode code, const char *fmt, va_list ap)
{
	char *what;

	if (c->d->code == DIAG_INPUT)   /* after bad_node(): the stand-in's consequences */
		return DIAG_CONVERT;
	what = arena_vprintf(c->a, fmt, ap);
	return diag_report(c->d, code, &(DiagAt){.file = c->prog->path, .graph = ir_graph_path(c->a, n->graph),
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

static const Value missing = {.name = "", .kind = VAL_TENSOR, .dtype = DT_FLOAT32};

/* A graph torch would not write (a mutated or hand-edited file): the node
 * lacks a tensor where its op has one; DIAG_INPUT. */
static void
bad_node(LowerCtx *c, const Node *n, const char *what, const char *name)
{
	diag_report(c->d, YE_GRAPH_INVALID, &(DiagAt){.file = c->prog->path, .entry = c->prog->json_entry,
	                                              .graph = ir_graph_path(c->a, n->graph), .node = n->name,
	                                              .target = n->op, .frame = n->frame},
	            "%s %s is not a tensor", what, name);
}

const Value *
lower_tensor_arg(LowerCtx *c, const Node *n, const char *name)
{
	const Value *v = lower_arg_value(n, name);

	if (v)
		return v;
	bad_node(c, n, "argument", arena_printf(c->a, "'%s'", name));
	return &missing;
}

const Value *
lower_out_tensor(LowerCtx *c, const Node *n, int k)
{
	const Value *v = lower_out_value(n, k);

	if (v)
		return v;
	bad_node(c, n, "output", arena_printf(c->a, "%d", k));
	return &missing;
}
