/* lower.c: the driver from the IR's main graph to an ONNX ModelProto.
 *
 * Requires a loaded Program (pt2_load); builds everything in the Program's
 * arena.  Steps, in order:
 *   1. every node whose target has no row is listed (subgraphs included),
 *      and the run fails once;
 *   2. size symbols get their dim_param names (dimname.h, options
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
#include "lower.h"

#include <stdint.h>
#include <string.h>

#include "strmap.h"

#ifndef VERSION
#define VERSION "0.1.0"
#endif

/* ---- aliases ---- */

static Alias *
alias_new(LowerCtx *c, Alias *parent, const Node *view, const OpRow *row, const char *name)
{
	Alias *al = ARENA_NEW(c->a, Alias);

	al->parent = parent;
	al->view = view;
	al->row = row;
	al->name = name;
	return al;
}

static Alias *
alias_base(Alias *al)
{
	while (al->parent)
		al = al->parent;
	return al;
}

/* Runs n's lowering in its own context; returns the name bound to output 0
 * (the view, or with update set, the new parent), or NULL on error. */
static const char *
run_view(LowerCtx *c, const Node *n, const OpRow *row, const char *update)
{
	const Node *node = c->node;
	const char **out = c->out, *upd = c->update, *res;
	int rc;

	c->node = n;
	c->out = ARENA_ARRAY(c->a, const char *, lower_nout(n) + 1);
	c->update = update;
	rc = row->fn(c, n, row);
	res = rc ? NULL : c->out[0];
	if (!rc && !res)
		lower_fail(c, n, update ? "writing through this view is not supported"
		                        : "the lowering bound no output");
	c->node = node;
	c->out = out;
	c->update = upd;
	return res;
}

/* The current contents of al: a view whose base was written since it was
 * computed is lowered again from its parent's current contents. */
static const char *
alias_read(LowerCtx *c, Alias *al)
{
	Alias *base = alias_base(al);
	const char *name;

	if (!al->parent || al->version == base->version)
		return al->name;
	if (!alias_read(c, al->parent) || !(name = run_view(c, al->view, al->row, NULL)))
		return NULL;
	al->name = name;
	al->version = base->version;
	return name;
}

/* Makes name the new contents of al, rebuilding every parent up to the base. */
static int
alias_write(LowerCtx *c, Alias *al, const char *name)
{
	const char *cur = alias_read(c, al), *pnew;

	if (!cur)
		return DIAG_CONVERT;
	if (strcmp(cur, name) == 0)
		return 0;
	if (!al->parent) {
		al->name = name;
		al->version++;
		return 0;
	}
	if (!(pnew = run_view(c, al->view, al->row, name)) || alias_write(c, al->parent, pnew))
		return DIAG_CONVERT;
	al->name = name;
	al->version = alias_base(al)->version;
	return 0;
}

/* A value read but never bound.  ir_validate() rejects reads before the
 * definition, so this is an output the producing lowering left unnamed
 * because its own graph does not read it, read by a subgraph (an outer
 * read torch did not lift).  The node fails; the name is never written. */
static const char *
unbound(LowerCtx *c, const Value *v)
{
	if (c->node)
		lower_fail(c, c->node, "value '%s' has no ONNX value here (its producer did not compute it)", v->name);
	else
		diag_error(c->d, DIAG_CONVERT, "%s: value '%s' has no ONNX value", c->prog->path, v->name);
	return v->name;
}

const char *
lower_value(LowerCtx *c, const Value *v)
{
	Alias *al = NULL;
	const char *name;

	if (!v->graph)                  /* lower_tensor_arg()'s stand-in: the node fails */
		return v->name;
	if (v->graph != c->ir) {
		/* a value of an enclosing graph, read by name (ONNX outer scope);
		 * torch lifts what a subgraph reads into operands, so this is rare */
		for (const LowerCtx *k = c->outer; k && !al; k = k->outer)
			if (k->ir == v->graph)
				al = k->alias[v->id];
		if (!al)
			return unbound(c, v);
		return al->name;
	}
	if (!(al = c->alias[v->id]))
		return unbound(c, v);
	name = alias_read(c, al);
	return name ? name : al->name;
}

int
lower_write_arg(LowerCtx *c, const Node *n, const char *name, const char *contents)
{
	const Value *v = lower_arg_value(n, name);

	if (!v || v->graph != c->ir || !c->alias[v->id])
		return lower_fail(c, n, "argument '%s' is written in place but is not a tensor of this graph", name);
	return alias_write(c, c->alias[v->id], contents);
}

/* ---- uses ---- */

static void
count_uses(int *uses, const Graph *g, const Arg *a)
{
	switch (a->kind) {
	case ARG_TENSOR: case ARG_OPT_TENSOR: case ARG_SYM_INT: case ARG_SYM_BOOL:
	case ARG_SYM_FLOAT: case ARG_CUSTOM_OBJ:
		if (a->u.v->graph == g)
			uses[a->u.v->id]++;
		break;
	case ARG_TENSORS: case ARG_OPT_TENSORS: case ARG_SYM_INTS: case ARG_SYM_BOOLS:
	case ARG_SYM_FLOATS: case ARG_NESTED_TENSORS: case ARG_STRING_TO_ARG:
		for (int i = 0; i < a->n; i++)
			count_uses(uses, g, &a->u.list[i]);
		break;
	default:
		break;
	}
}

/* Points c at IR graph g: fresh aliases, and how often g's values are
 * read by its nodes (and by its outputs when outputs is set). */
static void
enter_graph(LowerCtx *c, const Graph *g, int outputs)
{
	c->ir = g;
	c->alias = ARENA_ARRAY(c->a, Alias *, g->nvalue + 1);
	c->uses = ARENA_ARRAY(c->a, int, g->nvalue + 1);
	for (int i = 0; i < g->nnode; i++)
		for (int k = 0; k < g->nodes[i]->nin; k++)
			count_uses(c->uses, g, &g->nodes[i]->in[k].arg);
	for (int i = 0; outputs && i < g->noutput; i++)
		count_uses(c->uses, g, &g->outputs[i]);
}

/* ---- inputs ---- */

/* The bytes of t, contiguous: the mapped bytes themselves when the view is
 * contiguous, else a copy gathered into the arena. */
static const uint8_t *
tensor_bytes(Arena *a, const TensorData *t, size_t *len)
{
	int64_t numel = tensor_numel(t), es = dtype_size(t->dtype);
	uint8_t *out;

	*len = (size_t)(numel * es);
	if (tensor_is_contiguous(t))
		return t->storage + t->offset * es;
	out = arena_alloc(a, *len + 1);
	for (int64_t i = 0; i < numel; i++) {
		int64_t rest = i, off = t->offset;
		for (int d = t->rank - 1; d >= 0; d--) {
			off += rest % t->sizes[d] * t->strides[d];
			rest /= t->sizes[d];
		}
		memcpy(out + i * es, t->storage + off * es, (size_t)es);
	}
	return out;
}

static Onnx__ValueInfoProto *
value_info_of(LowerCtx *c, const char *name, const Value *v)
{
	int64_t *dims = ARENA_ARRAY(c->a, int64_t, v->rank + 1);
	const char **params = ARENA_ARRAY(c->a, const char *, v->rank + 1);

	if (v->kind != VAL_TENSOR)
		return onnx_value_info(c->a, name, v->kind == VAL_SYM_INT ? ONNX__TENSOR_PROTO__DATA_TYPE__INT64
		                                   : v->kind == VAL_SYM_BOOL ? ONNX__TENSOR_PROTO__DATA_TYPE__BOOL
		                                   : ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE, 0, NULL, NULL);
	for (int i = 0; i < v->rank; i++) {
		dims[i] = v->dims[i].e ? -1 : v->dims[i].v;
		params[i] = v->dims[i].e ? lower_dim_param(c, v->dims[i].e) : NULL;
	}
	return onnx_value_info(c->a, name, dtype_onnx(v->dtype), v->rank, dims, params);
}

const char *
lower_dim_param(LowerCtx *c, const SymExpr *e)
{
	return c->dn ? dimnames_expr(c->dn, e) : sym_print(c->a, e);
}

static int
declare_inputs(LowerCtx *c)
{
	const Program *p = c->prog;

	for (int i = 0; i < p->ninput_spec; i++) {
		const InputSpec *s = &p->input_specs[i];
		const Value *v = s->arg->kind == ARG_TENSOR || s->arg->kind == ARG_SYM_INT ||
		                 s->arg->kind == ARG_SYM_BOOL || s->arg->kind == ARG_SYM_FLOAT ||
		                 s->arg->kind == ARG_CUSTOM_OBJ ? s->arg->u.v : NULL;
		if (!v || s->kind == IN_CONSTANT_INPUT)
			continue;
		strmap_put(c->names, v->name, (void *)v->name);
		c->alias[v->id] = alias_new(c, NULL, NULL, NULL, v->name);
		if (s->kind == IN_USER_INPUT && v->kind != VAL_CUSTOM_OBJ) {
			if (v->kind == VAL_TENSOR && !dtype_onnx(v->dtype))
				return diag_error(c->d, DIAG_CONVERT, "%s: input '%s' is %s, which ONNX has no type for",
				                  p->path, v->name, dtype_name(v->dtype));
			onnx_vec_push(c->a, &c->g.inputs, value_info_of(c, v->name, v));
		} else if (v->data && c->uses[v->id]) {
			const TensorData *t = v->data;
			size_t len;
			const uint8_t *b = tensor_bytes(c->a, t, &len);
			if (!dtype_onnx(t->dtype))
				return diag_error(c->d, DIAG_CONVERT, "%s: weight '%s' is %s, which ONNX has no type for",
				                  p->path, s->target, dtype_name(t->dtype));
			onnx_vec_push(c->a, &c->g.inits, onnx_tensor(c->a, v->name, dtype_onnx(t->dtype),
			                                             t->rank, t->sizes, b, len));
		} else if (c->uses[v->id]) {
			return diag_error(c->d, DIAG_CONVERT, "%s: input '%s' (%s) is not supported yet",
			                  p->path, v->name, s->target ? s->target : "custom object or token");
		}
	}
	return 0;
}

/* ---- outputs ---- */

typedef struct OutSlot {
	const Arg *arg;         /* the user output */
	const char *final;      /* its ONNX graph output name */
	const char *cur;        /* the ONNX name holding it after lowering */
} OutSlot;

/* 1 for an output that is a graph value (tensor or SymInt/SymBool/SymFloat). */
static int
is_value_arg(const Arg *g)
{
	return g->kind == ARG_TENSOR || g->kind == ARG_SYM_INT || g->kind == ARG_SYM_BOOL ||
	       g->kind == ARG_SYM_FLOAT;
}

/* Collects the user outputs and reserves their final names. */
static int
plan_outputs(LowerCtx *c, OutSlot **slots, int *nslot)
{
	const Program *p = c->prog;
	const Options *o = c->opt;
	static const char renamed[] = "output";
	int n = 0;

	*slots = ARENA_ARRAY(c->a, OutSlot, p->noutput_spec + 1);
	for (int i = 0; i < p->noutput_spec; i++) {
		const OutputSpec *s = &p->output_specs[i];
		OutSlot *sl = &(*slots)[n];
		if (s->kind != OUT_USER_OUTPUT && s->kind != OUT_LOSS_OUTPUT)
			continue;
		if (s->arg->kind == ARG_NONE)
			continue;
		sl->arg = s->arg;
		if (n < o->noutput_name) {
			sl->final = o->output_names[n];
			if (strmap_get(c->names, sl->final))
				return diag_error(c->d, DIAG_INPUT, "options: output name '%s' is already the name of an input",
				                  sl->final);
			strmap_put(c->names, sl->final, (void *)renamed);
		} else if (is_value_arg(s->arg)) {
			const Value *v = s->arg->u.v;
			void *cur = strmap_get(c->names, v->name);
			for (int j = 0; j < n; j++)    /* an earlier output of the same value */
				if ((*slots)[j].arg->u.v == v && (*slots)[j].arg->kind == s->arg->kind)
					cur = (void *)renamed;
			if (cur && cur != (void *)v)   /* an input, or the same value again */
				sl->final = lower_name(c, v->name);
			else
				strmap_put(c->names, sl->final = v->name, (void *)v);
		} else {
			sl->final = lower_name(c, arena_printf(c->a, "output_%d", n));
		}
		n++;
	}
	if (o->noutput_name > n)
		return diag_error(c->d, DIAG_INPUT, "options: output_names has %d names but the program has %d outputs",
		                  o->noutput_name, n);
	*nslot = n;
	return 0;
}

/* Renames value `from` to `to` in every node and value_info. */
static void
rename_value(LowerCtx *c, const char *from, const char *to)
{
	intptr_t vi = (intptr_t)strmap_get(c->vinfo, from);

	for (size_t i = 0; i < c->g.nodes.n; i++) {
		OnnxNode *nd = c->g.nodes.v[i];
		for (size_t k = 0; k < nd->n_input; k++)
			if (strcmp(nd->input[k], from) == 0)
				nd->input[k] = (char *)to;
		for (size_t k = 0; k < nd->n_output; k++)
			if (strcmp(nd->output[k], from) == 0)
				nd->output[k] = (char *)to;
	}
	strmap_put(c->producer, to, strmap_get(c->producer, from));
	strmap_put(c->producer, from, NULL);
	strmap_put(c->vinfo, from, NULL);
	if (vi) {
		Onnx__ValueInfoProto *v = c->g.value_info.v[vi - 1];
		v->name = (char *)to;
		strmap_put(c->vinfo, to, (void *)vi);
	}
}

static void
drop_value_info(LowerCtx *c, const char *name)
{
	intptr_t vi = (intptr_t)strmap_get(c->vinfo, name);

	if (vi)
		c->g.value_info.v[vi - 1] = NULL;
	strmap_put(c->vinfo, name, NULL);
}

/* ONNX has no assertion operator: the check is a Reshape of the int64
 * [0] to the shape [2 - cond], which the runtime rejects when cond is false
 * ("cannot reshape"); its result compared with [0] gates the outputs.
 * (Reshaping cond itself, after an Unsqueeze, trips an onnxruntime graph
 * optimizer, hence the constant.) */
void
lower_assert(LowerCtx *c, const char *cond, const char *msg)
{
	static const int64_t zero = 0, two = 2;
	const char *shape, *zero1 = lower_i64s(c, 1, &zero);
	OnnxNode *check;

	shape = lower_op(c, "Sub", NULL, 2, lower_i64s(c, 1, &two), lower_cast(c, cond, DT_BOOL, DT_INT64));
	lower_op(c, "Reshape", NULL, 2, zero1, shape);
	check = c->last;
	if (msg)
		check->doc_string = (char *)msg;
	lower_op(c, "Equal", NULL, 2, check->output[0], zero1);
	onnx_vec_push(c->a, &c->asserts, (void *)lower_squeeze(c, c->last->output[0], 1, &zero, NULL));
}

/* keep_assertions: a bool 0-d that is true once every kept assertion of
 * c's graph passed its check, or NULL when there is none. */
static const char *
assert_gate(LowerCtx *c)
{
	const char *ok;

	if (!c->asserts.n)
		return NULL;
	ok = c->asserts.v[0];
	for (size_t i = 1; i < c->asserts.n; i++)
		ok = lower_op(c, "And", NULL, 2, ok, (const char *)c->asserts.v[i]);
	c->asserts.n = 0;
	return ok;
}

static int
emit_outputs(LowerCtx *c, OutSlot *s, int n)
{
	const char *ok;

	c->node = NULL;
	for (int i = 0; i < n; i++) {
		const Arg *g = s[i].arg;
		if (is_value_arg(g))
			s[i].cur = lower_value(c, g->u.v);
		else if (g->kind == ARG_INT || g->kind == ARG_BOOL)
			s[i].cur = lower_scalar(c, g->kind == ARG_BOOL ? DT_BOOL : DT_INT64, (double)g->u.i);
		else if (g->kind == ARG_FLOAT)
			s[i].cur = lower_scalar(c, DT_FLOAT64, g->u.f);
		else
			return diag_error(c->d, DIAG_CONVERT, "%s: output %d is a %s, which is not supported yet",
			                  c->prog->path, i, arg_kind_key[g->kind]);
	}
	if ((ok = assert_gate(c)))
		for (int i = 0; i < n; i++)      /* outputs depend on the check, values unchanged */
			s[i].cur = lower_op(c, "Where", NULL, 3, ok, s[i].cur, s[i].cur);
	for (int i = 0; i < n; i++) {
		const char *cur = s[i].cur, *fin = s[i].final;
		int shared = 0;
		if (strcmp(cur, fin) != 0) {
			if (strmap_get(c->producer, fin)) {
				/* an earlier version of this value took the name */
				const char *moved = lower_name(c, fin);
				rename_value(c, fin, moved);
				for (int j = 0; j < n; j++)
					if (strcmp(s[j].cur, fin) == 0)
						s[j].cur = moved;
			}
			for (int j = 0; j < i; j++)
				shared |= strcmp(s[j].final, cur) == 0;
			if (strmap_get(c->producer, cur) && !shared) {
				rename_value(c, cur, fin);
				for (int j = i + 1; j < n; j++)
					if (strcmp(s[j].cur, cur) == 0)
						s[j].cur = fin;
			} else {
				lower_op(c, "Identity", fin, 1, cur);
			}
		}
		drop_value_info(c, fin);
		if (is_value_arg(s[i].arg))
			onnx_vec_push(c->a, &c->g.outputs, value_info_of(c, fin, s[i].arg->u.v));
		else
			onnx_vec_push(c->a, &c->g.outputs, onnx_value_info(c->a, fin,
			              s[i].arg->kind == ARG_BOOL ? ONNX__TENSOR_PROTO__DATA_TYPE__BOOL
			              : s[i].arg->kind == ARG_FLOAT ? ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE
			              : ONNX__TENSOR_PROTO__DATA_TYPE__INT64, 0, NULL, NULL));
	}
	return 0;
}

/* Marks every name the nodes of g and of its subgraphs read: an If branch
 * or a Loop body reads outer values without listing them as inputs. */
static void
mark_graph_reads(StrMap *live, const Onnx__GraphProto *g)
{
	for (size_t i = 0; i < g->n_node; i++) {
		const OnnxNode *nd = g->node[i];
		for (size_t j = 0; j < nd->n_input; j++)
			strmap_put(live, nd->input[j], live);
		for (size_t j = 0; j < nd->n_attribute; j++)
			if (nd->attribute[j]->g)
				mark_graph_reads(live, nd->attribute[j]->g);
	}
}

/* Drops nodes whose outputs nothing reads (a view lowered only to locate
 * a write, a value a later in-place write replaced), then initializers no
 * node reads.  One backward sweep: the nodes are in topological order. */
static void
prune(LowerCtx *c)
{
	StrMap *live = strmap_new(c->a, c->g.nodes.n * 2 + 64);
	size_t k = 0;

	for (size_t i = 0; i < c->g.outputs.n; i++)
		strmap_put(live, ((Onnx__ValueInfoProto *)c->g.outputs.v[i])->name, live);
	for (size_t i = c->g.nodes.n; i-- > 0;) {
		OnnxNode *nd = c->g.nodes.v[i];
		int used = 0;
		for (size_t j = 0; j < nd->n_output; j++)
			used |= nd->output[j][0] && strmap_get(live, nd->output[j]) != NULL;
		if (!used) {
			for (size_t j = 0; j < nd->n_output; j++)
				drop_value_info(c, nd->output[j]);
			c->g.nodes.v[i] = NULL;
			continue;
		}
		for (size_t j = 0; j < nd->n_input; j++)
			strmap_put(live, nd->input[j], live);
		for (size_t j = 0; j < nd->n_attribute; j++)
			if (nd->attribute[j]->g)
				mark_graph_reads(live, nd->attribute[j]->g);
	}
	for (size_t i = 0; i < c->g.inits.n; i++) {
		OnnxTensor *t = c->g.inits.v[i];
		if (strmap_get(live, t->name))
			c->g.inits.v[k++] = t;
	}
	c->g.inits.n = k;
}

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
	int bad = 0;

	for (int i = 0; i < g->nnode; i++) {
		const Node *n = g->nodes[i];
		const OpRow *row = ops_find(n->op);
		for (int k = 0; k < n->nin; k++)
			if (n->in[k].arg.kind == ARG_GRAPH)
				bad += count_unsupported(c, n->in[k].arg.u.g);
		if (row && row->opset <= c->opset && !needs_int18(c, n, row))
			continue;
		bad++;
		if (!row)
			lower_fail(c, n, "no ONNX lowering");
		else if (row->opset > c->opset)
			lower_fail(c, n, "needs `opset: %d` or later (the target is opset %d)", row->opset, c->opset);
		else
			lower_fail(c, n, "%s operands need `opset: 18` or later (ONNX's Bitwise%s); the target is opset %d",
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

	if (bad)
		return diag_error(c->d, DIAG_CONVERT, "%s: %d node%s cannot be converted (see docs/ops.md for the supported ops)",
		                  c->prog->path, bad, bad == 1 ? "" : "s");
	return 0;
}

static int
lower_node(LowerCtx *c, const Node *n)
{
	const OpRow *row = ops_find(n->op);
	int nout = lower_nout(n), rc;
	const Value *self = lower_arg_value(n, "self");
	size_t reported = c->d->len;       /* lowerings report through lower_fail() */

	c->node = n;
	c->out = ARENA_ARRAY(c->a, const char *, nout + 1);
	c->update = NULL;
	c->bad_arg = NULL;
	if ((row->flags & (OPF_VIEW | OPF_INPLACE)) &&
	    (!self || self->graph != c->ir || !c->alias[self->id]))
		return lower_fail(c, n, "a view or in-place op needs a tensor 'self' of this graph");
	rc = row->fn(c, n, row);
	if (c->d->code == DIAG_INPUT && c->d->len != reported)
		return DIAG_INPUT;              /* lower_tensor_arg() & co: a graph torch would not write */
	if (rc)
		return rc;
	if (c->bad_arg)
		return lower_fail(c, n, "argument '%s' must be a constant here", c->bad_arg);
	if (c->d->len != reported)
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
			if (alias_write(c, al, c->out[0]))
				return DIAG_CONVERT;
		} else if (k == 0 && (row->flags & OPF_VIEW)) {
			Alias *parent = c->alias[self->id];
			if (!c->out[0])
				return lower_fail(c, n, "the lowering bound no output");
			al = alias_new(c, parent, n, row, c->out[0]);
			al->version = alias_base(parent)->version;
		} else if (c->out[k]) {
			al = alias_new(c, NULL, NULL, NULL, c->out[k]);
		} else if (c->uses[v->id]) {
			return lower_fail(c, n, "output %d ('%s') is used but the lowering does not produce it", k, v->name);
		} else {
			continue;
		}
		c->alias[v->id] = al;
	}
	return c->d->len != reported ? DIAG_CONVERT : 0;
}

int
lower_program(const Program *p, const Options *o, Arena *a, Onnx__ModelProto **out, Diag *d)
{
	LowerCtx ctx = {0}, *c = &ctx;
	const Graph *g = p->graph;
	OutSlot *slots = NULL;
	int nslot = 0, rc;
	size_t reported = d->len;

	c->a = a;
	c->d = d;
	c->prog = p;
	c->opt = o;
	c->opset = o->opset;
	c->g.a = a;
	c->g.name = "main_graph";
	c->names = strmap_new(a, (size_t)g->nvalue * 2 + 64);
	c->node_names = strmap_new(a, (size_t)g->nnode * 2 + 64);
	c->consts = strmap_new(a, 64);
	c->vinfo = strmap_new(a, (size_t)g->nvalue + 64);
	c->producer = strmap_new(a, (size_t)g->nvalue * 2 + 64);
	enter_graph(c, g, 0);
	for (int i = 0; i < p->noutput_spec; i++)
		if (p->output_specs[i].kind == OUT_USER_OUTPUT || p->output_specs[i].kind == OUT_LOSS_OUTPUT)
			count_uses(c->uses, g, p->output_specs[i].arg);

	if ((rc = check_supported(c)))
		return rc;
	if (!(c->dn = dimnames_build(p, o->dim_requests, o->ndim_request, o->label, a, d)))
		return DIAG_INPUT;
	if ((rc = declare_inputs(c)) || (rc = plan_outputs(c, &slots, &nslot)))
		return rc;
	for (int i = 0; i < g->nnode; i++)
		if ((rc = lower_node(c, g->nodes[i])))
			return rc;
	if ((rc = emit_outputs(c, slots, nslot)))
		return rc;
	if (d->len != reported)             /* a view lowered again failed */
		return DIAG_CONVERT;
	prune(c);
	*out = onnx_model(a, onnx_graph_finish(&c->g), c->opset, VERSION);
	return 0;
}

/* ---- subgraphs ---- */

int
lower_graph(LowerCtx *c, const Graph *g, const char *const *in, const char **out)
{
	LowerCtx *up = arena_dup(c->a, c, sizeof *c);   /* the enclosing scope, as it is */
	const Node *hop = c->node;
	int rc = 0;

	c->outer = up;
	enter_graph(c, g, 1);
	for (int i = 0; i < g->ninput && !rc; i++) {
		const Arg *a = &g->inputs[i];
		if (!is_value_arg(a))
			continue;
		if (in[i] && in[i][0])
			c->alias[a->u.v->id] = alias_new(c, NULL, NULL, NULL, in[i]);
		else if (c->uses[a->u.v->id])
			rc = lower_fail(c, hop, "subgraph '%s': input '%s' has no value", g->name, a->u.v->name);
	}
	for (int i = 0; i < g->nnode && !rc; i++)
		rc = lower_node(c, g->nodes[i]);
	for (int i = 0; i < g->noutput && !rc; i++) {
		const Arg *a = &g->outputs[i];
		if (is_value_arg(a))
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

LowerCtx *
lower_nested(LowerCtx *c, const char *name)
{
	LowerCtx *s = arena_dup(c->a, c, sizeof *c);

	memset(&s->g, 0, sizeof s->g);
	s->g.a = c->a;
	s->g.name = name;
	s->consts = strmap_new(c->a, 64);
	s->vinfo = strmap_new(c->a, 64);
	s->producer = strmap_new(c->a, 256);
	memset(&s->asserts, 0, sizeof s->asserts);
	s->ir = NULL;                   /* c's values are outer values here */
	s->alias = NULL;
	s->uses = NULL;
	s->outer = c;
	return s;
}

const char *
lower_graph_input(LowerCtx *s, const char *base, const Value *v)
{
	const char *name = lower_name(s, base);

	onnx_vec_push(s->a, &s->g.inputs, value_info_of(s, name, v));
	return name;
}

void
lower_graph_outputs(LowerCtx *s, int n, const char *const *names, const Value *const *types)
{
	const char **fin = ARENA_ARRAY(s->a, const char *, n + 1);
	const char *ok = assert_gate(s);

	for (int i = 0; i < n; i++) {
		const char *x = ok ? lower_op(s, "Where", NULL, 3, ok, names[i], names[i]) : names[i];
		int again = 0;
		for (int j = 0; j < i; j++)
			again |= strcmp(fin[j], x) == 0;
		if (again || !strmap_get(s->producer, x))
			x = lower_op(s, "Identity", NULL, 1, x);
		fin[i] = x;
		drop_value_info(s, x);
		onnx_vec_push(s->a, &s->g.outputs, value_info_of(s, x, types[i]));
	}
}

Onnx__GraphProto *
lower_nested_end(LowerCtx *s)
{
	prune(s);
	s->outer->nconst = s->nconst;
	return onnx_graph_finish(&s->g);
}

/* ---- failures as data ---- */

/* Every node of g and of the graphs its nodes hold, in order. */
static void
collect_nodes(const Graph *g, const Node ***v, int *n, int *cap, Arena *a)
{
	for (int i = 0; i < g->nnode; i++) {
		const Node *nd = g->nodes[i];
		if (*n == *cap) {
			const Node **nv = ARENA_ARRAY(a, const Node *, *cap = *cap ? *cap * 2 : 64);
			if (*n)
				memcpy(nv, *v, sizeof *nv * (size_t)*n);
			*v = nv;
		}
		(*v)[(*n)++] = nd;
		for (int k = 0; k < nd->nin; k++)
			if (nd->in[k].arg.kind == ARG_GRAPH && nd->in[k].arg.u.g)
				collect_nodes(nd->in[k].arg.u.g, v, n, cap, a);
	}
}

int
lower_failures(const Program *p, Arena *a, const char *text, LowerFailFn fn, void *ctx)
{
	const Node **nodes = NULL;
	int n = 0, cap = 0, calls = 0;

	if (!text || !p->graph)
		return 0;
	collect_nodes(p->graph, &nodes, &n, &cap, a);
	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		for (int i = 0; i < n && strncmp(line, "node '", 6) == 0; i++) {
			/* the prefix lower_fail() writes: ir_where() up to its first newline */
			size_t k = strlen(nodes[i]->name), w;
			char *where, *nl;
			if (len < k + 9 || strncmp(line + 6, nodes[i]->name, k) != 0 || strncmp(line + 6 + k, "' (", 3) != 0)
				continue;
			where = ir_where(a, nodes[i]);
			if ((nl = strchr(where, '\n')))
				*nl = 0;
			w = strlen(where);
			if (w + 2 <= len && strncmp(line, where, w) == 0 && strncmp(line + w, ": ", 2) == 0) {
				fn(ctx, nodes[i], arena_strndup(a, line + w + 2, len - w - 2));
				calls++;
				break;
			}
		}
		line += len + (end != NULL);
	}
	return calls;
}
