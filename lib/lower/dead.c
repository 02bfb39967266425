/* dead.c: the nodes of a graph that nothing needs, found before lowering so
 * that a dead node never stops a conversion (transformers' LayerDrop draws
 * torch.rand([]) even in eval mode and never reads it; a dead node of an op
 * without an ONNX lowering must not fail as "no ONNX lowering").
 *
 * Requires a graph in topological order; reads it only.  A node is live when
 * a graph output (user outputs and the buffer and input mutations alike)
 * or a live node reads one of its outputs, or when it has a side effect:
 *  - it writes into an argument: an OPF_INPLACE row, or an ATen overload
 *    whose base name ends in '_' (add_, copy_, uniform_), so that ops on
 *    mutated buffers stay;
 *  - it checks something: asserts and range constraints (_assert_scalar,
 *    _assert_async, _assert_tensor_metadata, sym_constrain_range*);
 *  - it has no outputs at all, or is not an ATen op (higher-order ops,
 *    custom ops, torch._functorch markers, _operator.*): their effects are
 *    not ours to judge, so they stay with what they read;
 *  - it holds a subgraph.
 * What a live node reads is live, and so is every value of this graph that
 * a node of one of its subgraphs reads by name. */
#include "lower/lower.h"

#include <string.h>

#include "core/core.h"

/* ATen ops that check something (their results, if any, go unread). */
static const char *const checks[] = {
	"aten._assert_async.default", "aten._assert_async.msg", "aten._assert_scalar.default",
	"aten._assert_tensor_metadata.default", "aten.sym_constrain_range.default",
	"aten.sym_constrain_range_for_size.default",
};

/* 1 when op is an ATen overload; *base then points at its base name. */
static int
aten_base(const char *op, const char **base)
{
	*base = op + 5;
	return strncmp(op, "aten.", 5) == 0 && strchr(*base, '.');
}

/* 1 when an ATen overload's base name says it writes into an argument
 * (torch's convention: one trailing '_', as in add_; not __and__). */
static int
inplace_name(const char *base)
{
	size_t k = (size_t)(strchr(base, '.') - base);
	return k >= 2 && base[k - 1] == '_' && base[k - 2] != '_';
}

static int
is_side_effect(const Node *n)
{
	const OpRow *row = ops_find(n->op);
	const char *base;

	if (row && (row->flags & OPF_INPLACE))
		return 1;
	if (!aten_base(n->op, &base) || inplace_name(base))
		return 1;
	for (size_t i = 0; i < sizeof checks / sizeof *checks; i++)
		if (!strcmp(checks[i], n->op))
			return 1;
	for (int k = 0; k < n->nin; k++)
		if (n->in[k].arg.kind == ARG_GRAPH)
			return 1;
	return 0;
}

/* Marks the values of g that a reads (items of lists too). */
static void
mark_arg(unsigned char *live, const Graph *g, const Arg *a)
{
	switch (a->kind) {
	case ARG_TENSOR: case ARG_OPT_TENSOR: case ARG_SYM_INT: case ARG_SYM_BOOL:
	case ARG_SYM_FLOAT: case ARG_CUSTOM_OBJ:
		if (a->u.v && a->u.v->graph == g)
			live[a->u.v->id] = 1;
		break;
	case ARG_TENSORS: case ARG_OPT_TENSORS: case ARG_SYM_INTS: case ARG_SYM_BOOLS: case ARG_SYM_FLOATS:
		for (int i = 0; i < a->n; i++)
			mark_arg(live, g, &a->u.list[i]);
		break;
	case ARG_GRAPH:
		/* a subgraph may read values of g by name */
		for (int i = 0; a->u.g && i < a->u.g->nnode; i++)
			for (int k = 0; k < a->u.g->nodes[i]->nin; k++)
				mark_arg(live, g, &a->u.g->nodes[i]->in[k].arg);
		for (int i = 0; a->u.g && i < a->u.g->noutput; i++)
			mark_arg(live, g, &a->u.g->outputs[i]);
		break;
	default:
		break;
	}
}

unsigned char *
lower_dead_nodes(Arena *a, const Graph *g, int *ndead)
{
	unsigned char *live = ARENA_ARRAY(a, unsigned char, g->nvalue + 1);
	unsigned char *dead = ARENA_ARRAY(a, unsigned char, g->nnode + 1);
	int count = 0;

	memset(live, 0, (size_t)g->nvalue + 1);
	memset(dead, 0, (size_t)g->nnode + 1);
	for (int i = 0; i < g->noutput; i++)
		mark_arg(live, g, &g->outputs[i]);
	for (int i = g->nnode - 1; i >= 0; i--) {
		const Node *n = g->nodes[i];
		int used = is_side_effect(n), nval = 0;
		for (int k = 0; k < lower_nout(n); k++) {
			const Value *v = lower_out_value(n, k);
			if (!v)
				continue;
			nval++;
			used |= v->graph != g || live[v->id];
		}
		used |= nval == 0;      /* no outputs: kept for whatever it does */
		if (!used) {
			dead[i] = 1;
			count++;
			continue;
		}
		for (int k = 0; k < n->nin; k++)
			mark_arg(live, g, &n->in[k].arg);
	}
	if (ndead)
		*ndead = count;
	return dead;
}
