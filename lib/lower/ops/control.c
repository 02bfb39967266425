/* control.c: lowerings of the higher-order ops (control.def).
 *
 * torch passes a HOP's subgraphs inline as ARG_GRAPH arguments and lifts
 * everything they read into operands, so subgraph placeholder i is always
 * operand i.  Each lowering binds the placeholders to ONNX names and calls
 * lower_graph() (lower.h), which runs the subgraph's nodes through the same
 * op table:
 *   cond        If; the branches read the operands from the outer scope
 *   while_loop  Loop with no trip count; the condition graph runs once
 *               before the loop and again at the end of each body
 *   scan        Scan; the combine graph is the body, additional inputs
 *               are outer-scope values
 *   wrap_with_set_grad_enabled, wrap_with_autocast
 *               inlined: grad mode means nothing in ONNX, and autocast
 *               already shows in the dtypes the subgraph records. */
#include <string.h>

#include "lower/lower.h"

/* The ONNX types of a Loop's iteration counter and condition. */
static const Value i64_scalar = {.name = "iter", .kind = VAL_TENSOR, .dtype = DT_INT64};
static const Value bool_scalar = {.name = "cond", .kind = VAL_TENSOR, .dtype = DT_BOOL};

/* The ONNX name of one operand: a graph value, or a constant. */
static const char *
operand(LowerCtx *c, const Arg *a)
{
	switch (a->kind) {
	case ARG_TENSOR: case ARG_OPT_TENSOR: case ARG_SYM_INT: case ARG_SYM_BOOL: case ARG_SYM_FLOAT:
		return lower_value(c, a->u.v);
	case ARG_INT: return lower_i64(c, a->u.i);
	case ARG_BOOL: return lower_scalar(c, DT_BOOL, (double)a->u.i);
	case ARG_FLOAT: return lower_scalar(c, DT_FLOAT64, a->u.f);
	default: return "";
	}
}

/* 1 for a list argument (a HOP's operand lists; an empty list may come
 * with any list kind). */
static int
is_list(const Arg *a)
{
	switch (a->kind) {
	case ARG_TENSORS: case ARG_OPT_TENSORS: case ARG_SYM_INTS: case ARG_SYM_BOOLS: case ARG_SYM_FLOATS:
	case ARG_INTS: case ARG_FLOATS: case ARG_BOOLS:
		return 1;
	default:
		return 0;
	}
}

/* Appends the ONNX names of a list argument (or of one value) to v at *n. */
static void
add_operands(LowerCtx *c, const Arg *a, const char **v, int *n)
{
	if (!is_list(a)) {
		v[(*n)++] = operand(c, a);
		return;
	}
	for (int i = 0; i < a->n; i++)
		v[(*n)++] = operand(c, &a->u.list[i]);
}

/* The number of names add_operands() appends for a. */
static int
count_operands(const Arg *a)
{
	return is_list(a) ? a->n : 1;
}

/* The k-th positional argument, or NULL. */
static const Arg *
pos(const Node *n, int k)
{
	return k < n->nin ? &n->in[k].arg : NULL;
}

static const Graph *
graph_at(const Node *n, int k)
{
	const Arg *a = pos(n, k);

	return a && a->kind == ARG_GRAPH ? a->u.g : NULL;
}

/* The IR type of subgraph g's output k (for an ONNX subgraph output). */
static const Value *
out_type(const Graph *g, int k)
{
	return k < g->noutput && g->outputs[k].kind != ARG_NONE && g->outputs[k].kind != ARG_INT &&
	       g->outputs[k].kind != ARG_FLOAT && g->outputs[k].kind != ARG_BOOL ? g->outputs[k].u.v : NULL;
}

/* Binds every output of n to a fresh name; returns the names. */
static const char **
bind_outputs(LowerCtx *c, const Node *n, int nout)
{
	const char **outs = ARENA_ARRAY(c->a, const char *, nout + 1);

	for (int k = 0; k < nout; k++) {
		outs[k] = lower_out(c, n, k);
		if (!outs[k][0])
			outs[k] = lower_tmp(c);
	}
	return outs;
}

/* One If branch: g with its placeholders reading in[], its outputs typed
 * like the cond node's (so both branches agree). */
static Onnx__GraphProto *
branch(LowerCtx *c, const Node *n, const Graph *g, const char *const *in, int nout)
{
	LowerCtx *s = lower_nested(c, lower_name(c, g->name));
	const char **outs = ARENA_ARRAY(c->a, const char *, g->noutput + 1);
	const Value **types = ARENA_ARRAY(c->a, const Value *, nout + 1);

	if (lower_graph(s, g, in, outs))
		return NULL;
	for (int k = 0; k < nout; k++) {
		types[k] = lower_out_value(n, k) ? lower_out_value(n, k) : out_type(g, k);
		if (!types[k])
			return lower_fail(c, n, "branch '%s' output %d is not a tensor", g->name, k), NULL;
	}
	lower_graph_outputs(s, nout, outs, types);
	return lower_nested_end(s);
}

/* cond(pred, true_graph, false_graph, operands) */
int
lower_cond(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Arg *pred = pos(n, 0), *ops = pos(n, 3);
	const Graph *tg = graph_at(n, 1), *fg = graph_at(n, 2);
	int nout = lower_nout(n), nin = 0;
	const char **in, **outs, *cond;
	Onnx__GraphProto *tb, *fb;

	if (!pred || !tg || !fg || !ops)
		return lower_fail(c, n, "expected (pred, true graph, false graph, operands)");
	if (tg->noutput != nout || fg->noutput != nout)
		return lower_fail(c, n, "the branches return %d and %d values for %d outputs",
		                  tg->noutput, fg->noutput, nout);
	in = ARENA_ARRAY(c->a, const char *, count_operands(ops) + 1);
	add_operands(c, ops, in, &nin);
	if (pred->kind == ARG_BOOL) {       /* decided at export time: inline the branch taken */
		const Graph *g = pred->u.i ? tg : fg;
		outs = ARENA_ARRAY(c->a, const char *, nout + 1);
		if (lower_graph(c, g, in, outs))
			return DIAG_CONVERT;
		for (int k = 0; k < nout; k++)
			lower_bind(c, n, k, outs[k]);
		return 0;
	}
	cond = operand(c, pred);
	if (!cond[0] || (pred->kind == ARG_TENSOR && pred->u.v->dtype != DT_BOOL))
		return lower_fail(c, n, "the predicate must be a bool tensor or SymBool");
	if (!(tb = branch(c, n, tg, in, nout)) || !(fb = branch(c, n, fg, in, nout)))
		return DIAG_CONVERT;
	outs = bind_outputs(c, n, nout);
	lower_emit(c, row->onnx, 1, &cond, nout, outs);
	onnx_attr_graph(c->a, c->last, "then_branch", tb);
	onnx_attr_graph(c->a, c->last, "else_branch", fb);
	return 0;
}

/* while_loop(cond_graph, body_graph, carried, additional): Loop(M="", cond0,
 * carried...) whose body computes the next carried values, then the next
 * condition from them. */
int
lower_while_loop(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Graph *cg = graph_at(n, 0), *bg = graph_at(n, 1);
	const Arg *carried = pos(n, 2), *extra = pos(n, 3);
	int nc, na, k = 0;
	const char **in, **bin, **bout, **outs, *cond0, *cond1, **lin;
	const Value **types;
	LowerCtx *s;

	if (!cg || !bg || !carried || !is_list(carried) || (extra && !is_list(extra)))
		return lower_fail(c, n, "expected (cond graph, body graph, carried values, additional inputs)");
	nc = carried->n;
	na = extra ? extra->n : 0;
	if (lower_nout(n) != nc || bg->noutput != nc || cg->noutput != 1 ||
	    cg->ninput != nc + na || bg->ninput != nc + na)
		return lower_fail(c, n, "the cond and body graphs do not match the %d carried values", nc);
	in = ARENA_ARRAY(c->a, const char *, nc + na + 1);
	add_operands(c, carried, in, &k);
	if (extra)
		add_operands(c, extra, in, &k);
	if (lower_graph(c, cg, in, &cond0))          /* the first test, before the loop */
		return DIAG_CONVERT;

	s = lower_nested(c, lower_name(c, bg->name));
	bin = ARENA_ARRAY(c->a, const char *, nc + na + 1);
	bout = ARENA_ARRAY(c->a, const char *, nc + 2);
	types = ARENA_ARRAY(c->a, const Value *, nc + 2);
	lower_graph_input(s, "iter", &i64_scalar);
	lower_graph_input(s, "cond_in", &bool_scalar);
	for (int i = 0; i < nc + na; i++)
		bin[i] = i < nc ? lower_graph_input(s, bg->inputs[i].u.v->name, bg->inputs[i].u.v) : in[i];
	if (lower_graph(s, bg, bin, bout + 1))
		return DIAG_CONVERT;
	memcpy(bin, bout + 1, sizeof *bin * (size_t)nc);  /* the test, on the new values */
	if (lower_graph(s, cg, bin, &cond1))
		return DIAG_CONVERT;
	bout[0] = cond1;
	types[0] = &bool_scalar;
	for (int i = 0; i < nc; i++)
		if (!(types[i + 1] = out_type(bg, i)))
			return lower_fail(c, n, "body output %d is not a tensor", i);
	lower_graph_outputs(s, nc + 1, bout, types);

	lin = ARENA_ARRAY(c->a, const char *, nc + 3);
	lin[0] = "";
	lin[1] = cond0;
	memcpy(lin + 2, in, sizeof *in * (size_t)nc);
	outs = bind_outputs(c, n, nc);
	lower_emit(c, row->onnx, nc + 2, lin, nc, outs);
	onnx_attr_graph(c->a, c->last, "body", lower_nested_end(s));
	return 0;
}

/* scan(combine_graph, init, xs, additional) (torch 2.14) or scan(combine_graph,
 * init, xs, dim, reverse, additional) (torch 2.6): Scan over axis dim, backwards
 * when reverse.  torch 2.6 stacks the ys on dim 0 whatever dim is. */
int
lower_scan(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Graph *g = graph_at(n, 0);
	const Arg *init = pos(n, 1), *xs = pos(n, 2), *extra = NULL;
	int64_t dim = 0, reverse = 0, *axes, *dirs;
	int nc, nx, na, ny, k = 3, m = 0;
	const char **in, **bin, **bout, **outs;
	const Value **types;
	LowerCtx *s;

	if (!g || !init || !xs || !is_list(init) || !is_list(xs))
		return lower_fail(c, n, "expected (combine graph, init, xs, ...)");
	if (pos(n, k) && pos(n, k)->kind == ARG_INT)
		dim = pos(n, k++)->u.i;
	if (pos(n, k) && pos(n, k)->kind == ARG_BOOL)
		reverse = pos(n, k++)->u.i;
	if (pos(n, k))
		extra = pos(n, k);
	if (extra && !is_list(extra))
		return lower_fail(c, n, "argument %d should be the additional inputs", k);
	nc = init->n;
	nx = xs->n;
	na = extra ? extra->n : 0;
	ny = lower_nout(n) - nc;
	if (ny < 0 || g->noutput != nc + ny || g->ninput != nc + nx + na || nx < 1)
		return lower_fail(c, n, "the combine graph does not match %d carries and %d scanned inputs", nc, nx);
	in = ARENA_ARRAY(c->a, const char *, nc + nx + na + 1);
	add_operands(c, init, in, &m);
	add_operands(c, xs, in, &m);
	if (extra)
		add_operands(c, extra, in, &m);
	if (dim < 0)
		dim += xs->u.list[0].kind == ARG_TENSOR ? xs->u.list[0].u.v->rank : 0;

	s = lower_nested(c, lower_name(c, g->name));
	bin = ARENA_ARRAY(c->a, const char *, nc + nx + na + 1);
	bout = ARENA_ARRAY(c->a, const char *, nc + ny + 1);
	types = ARENA_ARRAY(c->a, const Value *, nc + ny + 1);
	for (int i = 0; i < nc + nx + na; i++)
		bin[i] = i < nc + nx ? lower_graph_input(s, g->inputs[i].u.v->name, g->inputs[i].u.v) : in[i];
	if (lower_graph(s, g, bin, bout))
		return DIAG_CONVERT;
	for (int i = 0; i < nc + ny; i++)
		if (!(types[i] = out_type(g, i)))
			return lower_fail(c, n, "combine output %d is not a tensor", i);
	lower_graph_outputs(s, nc + ny, bout, types);

	outs = bind_outputs(c, n, nc + ny);
	lower_emit(c, row->onnx, nc + nx, in, nc + ny, outs);
	onnx_attr_graph(c->a, c->last, "body", lower_nested_end(s));
	onnx_attr_int(c->a, c->last, "num_scan_inputs", nx);
	axes = ARENA_ARRAY(c->a, int64_t, nx + ny + 1);
	dirs = ARENA_ARRAY(c->a, int64_t, nx + ny + 1);
	for (int i = 0; i < nx + ny; i++) {
		axes[i] = dim;
		dirs[i] = reverse;
	}
	if (dim)
		onnx_attr_ints(c->a, c->last, "scan_input_axes", nx, axes);
	if (reverse) {
		onnx_attr_ints(c->a, c->last, "scan_input_directions", nx, dirs);
		if (ny)
			onnx_attr_ints(c->a, c->last, "scan_output_directions", ny, dirs);
	}
	return 0;
}

/* wrap_with_set_grad_enabled(enabled, graph, *operands),
 * wrap_with_autocast(device_type, dtype, enabled, cache_enabled, graph,
 * *operands): the graph, inlined, reading the operands after it. */
int
lower_wrapped(LowerCtx *c, const Node *n, const OpRow *row)
{
	int at = 0, nin = 0, nout = lower_nout(n);
	const Graph *g = NULL;
	const char **in, **outs;

	(void)row;
	while (at < n->nin && !(g = graph_at(n, at)))
		at++;
	if (!g)
		return lower_fail(c, n, "no subgraph argument");
	for (int i = at + 1; i < n->nin; i++)
		nin += count_operands(&n->in[i].arg);
	in = ARENA_ARRAY(c->a, const char *, nin + 1);
	nin = 0;
	for (int i = at + 1; i < n->nin; i++)
		add_operands(c, &n->in[i].arg, in, &nin);
	if (nin != g->ninput || g->noutput != nout)
		return lower_fail(c, n, "subgraph '%s' takes %d inputs and returns %d values, not %d and %d",
		                  g->name, g->ninput, g->noutput, nin, nout);
	outs = ARENA_ARRAY(c->a, const char *, g->noutput + 1);
	if (lower_graph(c, g, in, outs))
		return DIAG_CONVERT;
	for (int k = 0; k < nout; k++)
		lower_bind(c, n, k, outs[k]);
	return 0;
}
