/* driver.c: the driver from the IR's main graph to an ONNX ModelProto.
 *
 * Requires a loaded Program (pt2_load); builds everything in the Program's
 * arena.  Steps, in order:
 *   0. torch.vmap regions become ordinary ops on whole batches (vmap.c);
 *   1. every node whose target has no row is listed (subgraphs included),
 *      and the run fails once; dead nodes (dead.c) are skipped here and
 *      in step 4, so they need no row;
 *   2. size symbols get their dim_param names (lib/ir/dimname.c, options
 *      dynamic_dimensions);
 *   3. graph inputs (user inputs) and initializers (parameters, buffers,
 *      constants; raw_data points into the mapped file) are declared, and
 *      the final output names reserved;
 *   4. nodes are lowered in order; in-place and view results are tracked
 *      as aliases (functionalization, see lower.h); higher-order ops lower
 *      their subgraphs through lower_graph() (the second half of this file);
 *   5. user outputs become graph outputs, gated by the kept assertions
 *      (keep_assertions); other outputs (buffer and input mutations) are
 *      dropped, since ONNX has no state. */
#include "lower/lower.h"

#include <stdint.h>

#include "core/core.h"
#include "internal.h"

#ifndef VERSION
#error "VERSION comes from configure.ac (AC_INIT), through config.mk and -DVERSION"
#endif

/* ---- nodes ---- */

/* 1 when n's row is OPF_INT18, the target opset is below 18 and n works
 * on integers (its result is a tensor that is not bool, or a SymInt). */
static int
needs_int18(const LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *v = (row->flags & OPF_INT18) && c->opset < 18 ? lower_out_value(n, 0) : NULL;

	return v && ((v->kind == VAL_TENSOR && v->dtype != DT_BOOL) || v->kind == VAL_SYM_INT);
}

/* Reports every node of g and its subgraphs without a usable row; returns their number. */
static int
count_unsupported(LowerCtx *c, const Graph *g)
{
	const unsigned char *dead = lower_dead_nodes(c->a, g, NULL);
	int bad = 0;

	for (int i = 0; i < g->nnode; i++) {
		const Node *n = g->nodes[i];
		const OpRow *row = ops_find_opset(n->op, c->opset);
		int lo, hi;
		if (dead[i])
			continue;
		if (!row)
			row = lower_custom_row(c, n);
		for (int k = 0; k < n->nin; k++)
			if (n->in[k].arg.kind == ARG_GRAPH)
				bad += count_unsupported(c, n->in[k].arg.u.g);
		if (row && !needs_int18(c, n, row))
			continue;
		bad++;
		if (ops_opsets(n->op, &lo, &hi) && lower_is_custom(n->op))
			lower_custom_unmapped(c, n);
		else if (ops_opsets(n->op, &lo, &hi))
			lower_fail_as(c, n, YE_UNSUPPORTED_OP, "no ONNX lowering");
		else if (c->opset < lo)
			lower_fail_as(c, n, YE_NEEDS_OPSET, "needs `opset: %d` or later (the target is opset %d)",
			              lo, c->opset);
		else if (!row)
			lower_fail_as(c, n, YE_NEEDS_OPSET, "needs `opset: %d` or earlier (the target is opset %d)",
			              hi, c->opset);
		else
			lower_fail_as(c, n, YE_NEEDS_OPSET_18_INT, "%s operands need `opset: 18` or later (ONNX's Bitwise%s); the target is opset %d",
			           lower_out_value(n, 0)->kind == VAL_SYM_INT ? "SymInt" :
			           dtype_name(lower_out_value(n, 0)->dtype), row->onnx, c->opset);
	}
	return bad;
}

/* Lists every node without a usable row; returns DIAG_CONVERT if any. */
static int
check_supported(LowerCtx *c)
{
	int bad = count_unsupported(c, c->prog->graph);

	if (!bad)
		return 0;
	/* a note: the nodes are the errors, reported above */
	diag_report(c->d, YE_NOT_CONVERTED, &(DiagAt){.file = c->prog->path},
	            "%d node%s cannot be converted (see docs/ops.md for the supported ops)", bad, bad == 1 ? "" : "s");
	return DIAG_CONVERT;
}

static int
arg_complex(const Arg *a)
{
	switch (a->kind) {
	case ARG_TENSOR: case ARG_OPT_TENSOR:
		return a->u.v && a->u.v->kind == VAL_TENSOR && dtype_complex_part(a->u.v->dtype);
	case ARG_TENSORS: case ARG_OPT_TENSORS:
		for (int i = 0; i < a->n; i++)
			if (arg_complex(&a->u.list[i]))
				return 1;
		return 0;
	default:
		return 0;
	}
}

/* The row to lower n by: row itself, or for a node reading or writing a
 * complex tensor through a row that is not OPF_COMPLEX, a copy whose fn is
 * the op's complex lowering (ops_find_complex; a view re-lowered later
 * runs it too); NULL when the op has none. */
static const OpRow *
complex_row(LowerCtx *c, const Node *n, const OpRow *row)
{
	int cx = 0;
	LowerFn fn;
	OpRow *r;

	if (row->flags & OPF_COMPLEX)
		return row;
	for (int k = 0; k < n->nin && !cx; k++)
		cx = arg_complex(&n->in[k].arg);
	for (int k = 0; k < n->nout && !cx; k++)
		cx = arg_complex(&n->out[k]);
	if (!cx)
		return row;
	if (!(fn = ops_find_complex(n->op)))
		return NULL;
	r = arena_dup(c->a, row, sizeof *row);
	r->fn = fn;
	return r;
}

static int
lower_node(LowerCtx *c, const Node *n)
{
	const OpRow *row = ops_find_opset(n->op, c->opset);
	int nout = lower_nout(n), rc;
	const Value *self = lower_arg_value(n, "self");
	int reported = c->d->n;            /* lowerings report through lower_fail() */

	if (!row)
		row = lower_custom_row(c, n);
	c->node = n;
	c->out = ARENA_ARRAY(c->a, const char *, nout + 1);
	c->update = NULL;
	c->bad_arg = NULL;
	if ((row->flags & (OPF_VIEW | OPF_INPLACE)) &&
	    (!self || self->graph != c->ir || !c->alias[self->id]))
		return lower_fail(c, n, "a view or in-place op needs a tensor 'self' of this graph");
	if (!(row = complex_row(c, n, row)))
		return lower_fail(c, n, "no lowering takes complex tensors here (the ops that do are listed "
		                  "in docs/ops.md, \"complex operands\"); make the complex values real first "
		                  "(torch.view_as_real) or compute on real and imaginary parts");
	rc = row->fn(c, n, row);
	if (c->d->code == DIAG_INPUT && c->d->n != reported)
		return DIAG_INPUT;              /* lower_tensor_arg() & co: a graph torch would not write */
	if (rc)
		return rc;
	if (c->bad_arg)
		return lower_fail(c, n, "argument '%s' must be a constant here", c->bad_arg);
	if (c->d->n != reported)
		return DIAG_CONVERT;
	for (int k = 0; k < nout; k++) {
		const Value *v = lower_out_value(n, k);
		Alias *al;
		if (!v)
			continue;
		if (k == 0 && (row->flags & OPF_INPLACE)) {
			al = c->alias[self->id];
			if (!c->out[0])
				return lower_fail(c, n, "the lowering bound no output");
			if (lower_alias_write(c, al, c->out[0]))
				return DIAG_CONVERT;
		} else if (k == 0 && (row->flags & OPF_VIEW)) {
			Alias *parent = c->alias[self->id];
			if (!c->out[0])
				return lower_fail(c, n, "the lowering bound no output");
			al = lower_alias_new(c, parent, n, row, c->out[0]);
			al->version = lower_alias_base(parent)->version;
		} else if (c->out[k]) {
			al = lower_alias_new(c, NULL, NULL, NULL, c->out[k]);
		} else if (c->uses[v->id]) {
			return lower_fail(c, n, "output %d ('%s') is used but the lowering does not produce it", k, v->name);
		} else {
			continue;
		}
		c->alias[v->id] = al;
	}
	return c->d->n != reported ? DIAG_CONVERT : 0;
}

static int walk_graph(LowerCtx *c, const Graph *g, const char *const *in, const char **out);

int
lower_program(const Program *p, const LowerOptions *o, Arena *a, Onnx__ModelProto **out, Diag *d)
{
	LowerCtx ctx = {0}, *c = &ctx;
	const Graph *g = p->graph;
	OutSlot *slots = NULL;
	const unsigned char *dead;
	int nslot = 0, rc;
	int reported = d->n;

	c->a = a;
	c->d = d;
	c->prog = p;
	c->opt = o;
	c->opset = o->opset;
	c->graph_fn = walk_graph;
	c->g.a = a;
	c->g.name = "main_graph";
	/* Sized for what they end up holding (a map doubles past half full,
	 * and the old table stays in the arena): about one name per value and
	 * one ONNX node, value_info and producer per ATen node, plus a margin
	 * for decompositions.  Twice that was 18 MiB of the 8,192-layer MLP. */
	c->names = strmap_new(a, (size_t)g->nvalue + (size_t)g->nvalue / 2 + 64);
	c->node_names = strmap_new(a, (size_t)g->nnode + (size_t)g->nnode / 4 + 64);
	c->consts = strmap_new(a, 64);
	c->vinfo = strmap_new(a, (size_t)g->nnode + (size_t)g->nnode / 4 + 64);
	c->producer = strmap_new(a, (size_t)g->nnode + (size_t)g->nnode / 4 + 64);
	c->imports = lower_imports_new(a);
	if ((rc = lower_vmap(c, p->graph)) || (rc = lower_decompose(c, p->graph)))
		return rc;
	lower_enter_graph(c, g, 0);
	for (int i = 0; i < p->noutput_spec; i++)
		if (p->output_specs[i].kind == OUT_USER_OUTPUT || p->output_specs[i].kind == OUT_LOSS_OUTPUT)
			lower_count_uses(c->uses, g, p->output_specs[i].arg);

	if ((rc = check_supported(c)))
		return rc;
	if (!(c->dn = dimnames_build(p, o->dim_requests, o->ndim_request, o->label, a, d)))
		return DIAG_INPUT;
	if ((rc = lower_declare_inputs(c)) || (rc = lower_plan_outputs(c, &slots, &nslot)))
		return rc;
	dead = lower_dead_nodes(a, g, NULL);
	for (int i = 0; i < g->nnode; i++) {
		size_t from = c->g.nodes.n;
		if (dead[i])
			continue;
		if ((rc = lower_node(c, g->nodes[i])))
			return rc;
		for (size_t k = from; o->origin && k < c->g.nodes.n; k++)   /* for the outlining (functions) */
			strmap_put(o->origin, ((OnnxNode *)c->g.nodes.v[k])->name, (void *)g->nodes[i]);
	}
	if ((rc = lower_emit_outputs(c, slots, nslot)))
		return rc;
	if (d->n != reported)               /* a view lowered again failed */
		return DIAG_CONVERT;
	lower_prune(c);
	*out = onnx_model(a, onnx_graph_finish(&c->g), c->opset, VERSION);
	lower_custom_imports(c, *out);
	return 0;
}

/* ---- subgraphs ---- */

/* LowerCtx.graph_fn: what lower_graph() calls (see lower.h). */
static int
walk_graph(LowerCtx *c, const Graph *g, const char *const *in, const char **out)
{
	LowerCtx *up = arena_dup(c->a, c, sizeof *c);   /* the enclosing scope, as it is */
	const Node *hop = c->node;
	const unsigned char *dead;
	int rc = 0;

	c->outer = up;
	lower_enter_graph(c, g, 1);
	for (int i = 0; i < g->ninput && !rc; i++) {
		const Arg *a = &g->inputs[i];
		if (!lower_is_value_arg(a))
			continue;
		if (in[i] && in[i][0])
			c->alias[a->u.v->id] = lower_alias_new(c, NULL, NULL, NULL, in[i]);
		else if (c->uses[a->u.v->id])
			rc = lower_fail(c, hop, "subgraph '%s': input '%s' has no value", g->name, a->u.v->name);
	}
	dead = lower_dead_nodes(c->a, g, NULL);
	for (int i = 0; i < g->nnode && !rc; i++)
		if (!dead[i])
			rc = lower_node(c, g->nodes[i]);
	for (int i = 0; i < g->noutput && !rc; i++) {
		const Arg *a = &g->outputs[i];
		if (lower_is_value_arg(a))
			out[i] = lower_value(c, a->u.v);
		else if (a->kind == ARG_INT || a->kind == ARG_BOOL)
			out[i] = lower_scalar(c, a->kind == ARG_BOOL ? DT_BOOL : DT_INT64, (double)a->u.i);
		else if (a->kind == ARG_FLOAT)
			out[i] = lower_scalar(c, DT_FLOAT64, a->u.f);
		else
			out[i] = "";
	}
	/* back to the enclosing scope, keeping what was emitted */
	up->g = c->g;
	up->nconst = c->nconst;
	up->asserts = c->asserts;
	up->last = c->last;
	*c = *up;
	return rc;
}
