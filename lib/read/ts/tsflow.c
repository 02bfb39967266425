/* tsflow.c: control flow on tensors: an `if` on a tensor's contents as
 * higher_order.cond (both branches subgraphs, the values they read
 * lifted into operands) and a loop whose trip count is not known now as
 * higher_order.while_loop (the variables the body assigns carried)
 * (internal.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- an `if` on a tensor's contents: higher_order.cond ---- */

typedef struct Saved {
	Graph *g;
	int nnode, capnode;
	Node **nodes;
} Saved;

static Graph *
sub_begin(Build *b, const char *name, Saved *sv)
{
	Graph *g = ARENA_NEW(b->a, Graph);

	g->name = tb_fresh_name(b, name);
	g->parent = b->g;
	g->index = strmap_new(b->a, 64);
	sv->g = b->g, sv->nnode = b->nnode, sv->capnode = b->capnode, sv->nodes = b->nodes;
	b->g = g, b->nnode = b->capnode = 0, b->nodes = NULL;
	return g;
}

static void
sub_end(Build *b, Graph *g, const Saved *sv)
{
	g->nnode = b->nnode;
	g->nodes = b->nodes;
	b->g = sv->g, b->nnode = sv->nnode, b->capnode = sv->capnode, b->nodes = sv->nodes;
}

/* The values a subgraph reads from enclosing graphs, in first-use order. */
typedef struct Lift {
	int n, cap;
	Value **outer;
	StrMap *seen;
} Lift;

static int
arg_is_value(ArgKind k)
{
	return k == ARG_TENSOR || k == ARG_OPT_TENSOR || k == ARG_SYM_INT || k == ARG_SYM_BOOL ||
	       k == ARG_SYM_FLOAT;
}

static void
lift_arg(Build *b, const Graph *g, Arg *a, Lift *l, StrMap *map)
{
	char key[32];

	if (a->kind != ARG_GRAPH && !arg_is_value(a->kind) && a->n > 0 && a->u.list) {
		for (int i = 0; i < a->n; i++)
			lift_arg(b, g, &a->u.list[i], l, map);
		return;
	}
	if (!arg_is_value(a->kind) || !a->u.v || a->u.v->graph == g)
		return;
	snprintf(key, sizeof key, "%p", (void *)a->u.v);
	if (map) {              /* second pass: point at the placeholder */
		Value *ph = strmap_get(map, key);
		if (ph)
			a->u.v = ph;
		return;
	}
	if (strmap_get(l->seen, key))
		return;
	strmap_put(l->seen, arena_strdup(b->a, key), a->u.v);
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 8;
		Value **nv = ARENA_ARRAY(b->a, Value *, cap);
		if (l->n)
			memcpy(nv, l->outer, sizeof *nv * (size_t)l->n);
		l->outer = nv, l->cap = cap;
	}
	l->outer[l->n++] = a->u.v;
}

static void
lift_graph(Build *b, Graph *g, Lift *l, StrMap *map)
{
	for (int i = 0; i < g->nnode; i++)
		for (int k = 0; k < g->nodes[i]->nin; k++)
			lift_arg(b, g, &g->nodes[i]->in[k].arg, l, map);
	for (int i = 0; i < g->noutput; i++)
		lift_arg(b, g, &g->outputs[i], l, map);
}

/* Placeholders of g for the lifted values, after the first ones g has
 * (operand i is placeholder i). */
static void
lift_bind(Build *b, Graph *g, const Lift *l)
{
	StrMap *map = strmap_new(b->a, (size_t)l->n * 2 + 1);
	int first = g->ninput;
	Arg *in = ARENA_ARRAY(b->a, Arg, first + l->n + 1);

	if (first)
		memcpy(in, g->inputs, sizeof *in * (size_t)first);
	g->ninput = first + l->n;
	g->inputs = in + first;
	for (int i = 0; i < l->n; i++) {
		const Value *o = l->outer[i];
		Value *ph = ir_new_value(b->a, g, tb_fresh_name(b, o->name), o->kind);
		char key[32];
		ph->dtype = o->dtype, ph->rank = o->rank, ph->dims = o->dims, ph->expr = o->expr;
		g->inputs[i].kind = o->kind == VAL_TENSOR ? ARG_TENSOR : ARG_SYM_INT;
		g->inputs[i].u.v = ph;
		snprintf(key, sizeof key, "%p", (const void *)o);
		strmap_put(map, arena_strdup(b->a, key), ph);
	}
	g->inputs = in;
	lift_graph(b, g, NULL, map);
}

/* A higher-order node (cond, while_loop): four positional arguments, as
 * torch writes them. */
static Node *
hop_node(Build *b, Frame *f, const char *op, uint32_t ofs)
{
	Node *n = tb_new_node(b, op, f->code, ofs);

	n->nin = 4;
	n->in = ARENA_ARRAY(b->a, NamedArg, 4);
	for (int i = 0; i < 4; i++)
		n->in[i].name = "", n->in[i].kind = 1;
	return n;
}

static Arg
graph_arg(Graph *g)
{
	Arg a = {0};

	a.kind = ARG_GRAPH;
	a.u.g = g;
	return a;
}

/* A list of values (a HOP's operands). */
static Arg
values_arg(Build *b, int n, Value *const *v)
{
	Arg a = {0};

	a.kind = ARG_TENSORS;
	a.n = n;
	a.u.list = ARENA_ARRAY(b->a, Arg, n + 1);
	for (int i = 0; i < n; i++)
		a.u.list[i] = tb_value_arg(v[i]);
	return a;
}

static int
is_number(const TsVal *v)
{
	return (v->k == V_INT || v->k == V_FLOAT || v->k == V_BOOL) && !v->numtensor;
}

static int
same_number(const TsVal *x, const TsVal *y)
{
	return is_number(x) && is_number(y) && x->k == y->k && tb_num(x) == tb_num(y);
}

/* A Python number read from a tensor at run time: the 0-d tensor v. */
static TsVal *
data_scalar(Build *b, Value *v)
{
	TsVal *r = tb_mk(b, V_TENSOR);

	r->v = v;
	r->numtensor = NT_DATA;
	return r;
}

/* The variables the branches of an `if` on a tensor change: the tensors
 * (and Python numbers made 0-d tensors) that differ are the cond's
 * outputs (names, vt, vf; their count returned); values equal in both go
 * back to pre as they are, any other difference is refused. */
static int
merge_branches(Build *b, Frame *f, const TsStmt *s, Env *pre, const Env *et, const Env *ef,
               const char **names, TsVal **vt, TsVal **vf)
{
	int nout = 0;

	for (int i = 0; i < et->n; i++) {
		const char *name = et->names[i];
		TsVal *x = et->vals[i], *y = tb_env_get(ef, name), *z = tb_env_get(pre, name);
		if (!y || (x == z && y == z))
			continue;
		if (x->k == V_ERR || y->k == V_ERR) {
			tb_env_set(b->a, pre, name, &tb_poison);
			continue;
		}
		if ((is_number(x) || is_number(y)) && (x->k == V_TENSOR || y->k == V_TENSOR || !same_number(x, y))) {
			/* a Python number that differs between the branches: a 0-d tensor */
			DType dt = x->k == V_TENSOR ? x->v->dtype : y->k == V_TENSOR ? y->v->dtype
			           : x->k == V_FLOAT || y->k == V_FLOAT ? DT_FLOAT64
			           : x->k == V_BOOL && y->k == V_BOOL ? DT_BOOL : DT_INT64;
			if (is_number(x))
				x = data_scalar(b, tb_number_tensor_as(b, x, dt));
			if (is_number(y))
				y = data_scalar(b, tb_number_tensor_as(b, y, dt));
		}
		if (x->k == V_TENSOR && y->k == V_TENSOR) {
			if (x->v->dtype != y->v->dtype || x->v->rank != y->v->rank) {
				FAIL(b, f, s->value, "'%s' is %s[rank %d] in one branch and %s[rank %d] in the other",
				     name, dtype_name(x->v->dtype), x->v->rank, dtype_name(y->v->dtype), y->v->rank);
				tb_env_set(b->a, pre, name, &tb_poison);
				continue;
			}
			names[nout] = name, vt[nout] = x, vf[nout] = y, nout++;
			continue;
		}
		if (x->k == y->k && (x->k == V_INT || x->k == V_BOOL) && x->i == y->i) {
			tb_env_set(b->a, pre, name, x);
			continue;
		}
		if (x->k == V_NONE && y->k == V_NONE) {
			tb_env_set(b->a, pre, name, x);
			continue;
		}
		FAIL(b, f, s->value, "'%s' gets %s in one branch and %s in the other: only tensors may differ "
		     "between the branches of an `if` on a tensor", name, tb_kind_name(x), tb_kind_name(y));
		tb_env_set(b->a, pre, name, &tb_poison);
	}
	return nout;
}

/* The cond node n's outputs, one per changed variable, set in pre (the
 * branches must agree on every size). */
static void
cond_outputs(Build *b, Frame *f, const TsStmt *s, Node *n, Env *pre, const char **names,
             TsVal **vt, TsVal **vf)
{
	int nout = n->nout;

	for (int i = 0; i < nout; i++) {
		const Value *x = vt[i]->v, *y = vf[i]->v;
		Value *v = ir_new_value(b->a, b->g, tb_fresh_name(b, names[i]), VAL_TENSOR);
		TsVal *tv = tb_mk(b, V_TENSOR);
		v->dtype = x->dtype, v->rank = x->rank, v->def = n;
		v->dims = ARENA_ARRAY(b->a, Dim, x->rank + 1);
		for (int k = 0; k < x->rank; k++) {
			v->dims[k] = x->dims[k];
			if (!(x->dims[k].e ? y->dims[k].e && sym_equal(x->dims[k].e, y->dims[k].e)
			                   : !y->dims[k].e && x->dims[k].v == y->dims[k].v)) {
				FAIL(b, f, s->value, "'%s' has a different size at dim %d in each branch of an `if` on a "
				     "tensor (not supported yet)", names[i], k);
				break;
			}
		}
		n->out[i] = tb_value_arg(v);
		tv->v = v;
		tv->numtensor = vt[i]->numtensor == NT_DATA || vf[i]->numtensor == NT_DATA ? NT_DATA : NT_NONE;
		tb_env_set(b->a, pre, names[i], tv);
		if (i == 0)
			n->name = v->name;
	}
}

int
tb_exec_if_tensor(Build *b, Frame *f, const TsStmt *s, TsVal *cv)
{
	Env *pre = f->vars, *et = tb_env_copy(b->a, pre), *ef = tb_env_copy(b->a, pre);
	Saved sv;
	Graph *tg, *fg;
	int rt, rf, nout, cap;
	const char **names;
	TsVal **vt, **vf;
	Lift l = {0};
	Value *pred = cv->v;
	Node *n;

	if (pred->dtype != DT_BOOL || pred->rank != 0) {
		TsVal x = *cv, *zero = tb_mk_int(b, 0), *args[2], *r;
		x.numtensor = NT_NONE;
		args[0] = &x, args[1] = zero;
		if (pred->rank != 0) {
			FAIL(b, f, s->value, "a condition on a tensor of rank %d (torch needs one element)", pred->rank);
			return 0;
		}
		r = tb_call_op(b, f, s->value, "aten", "ne", 2, args, 0, NULL, NULL);
		if (r->k != V_TENSOR)
			return 0;
		pred = r->v;
	}
	tg = sub_begin(b, "true_graph", &sv);
	f->vars = et;
	rt = b->exec_body(b, f, s->body, s->nbody);
	sub_end(b, tg, &sv);
	fg = sub_begin(b, "false_graph", &sv);
	f->vars = ef;
	rf = b->exec_body(b, f, s->orelse, s->norelse);
	sub_end(b, fg, &sv);
	f->vars = pre;
	if (rt || rf) {
		FAIL(b, f, s->value, "return, break or continue inside an `if` on a tensor's contents is not supported yet");
		return 0;
	}
	cap = et->n + ef->n;
	names = ARENA_ARRAY(b->a, const char *, cap + 1);
	vt = ARENA_ARRAY(b->a, TsVal *, cap + 1);
	vf = ARENA_ARRAY(b->a, TsVal *, cap + 1);
	nout = merge_branches(b, f, s, pre, et, ef, names, vt, vf);
	tg->noutput = fg->noutput = nout;
	tg->outputs = ARENA_ARRAY(b->a, Arg, nout + 1);
	fg->outputs = ARENA_ARRAY(b->a, Arg, nout + 1);
	for (int i = 0; i < nout; i++) {
		tg->outputs[i] = tb_value_arg(vt[i]->v);
		fg->outputs[i] = tb_value_arg(vf[i]->v);
	}
	l.seen = strmap_new(b->a, 16);
	lift_graph(b, tg, &l, NULL);
	lift_graph(b, fg, &l, NULL);
	lift_bind(b, tg, &l);
	lift_bind(b, fg, &l);
	n = hop_node(b, f, "higher_order.cond", s->ofs);
	n->in[0].arg = tb_value_arg(pred);
	n->in[1].arg = graph_arg(tg);
	n->in[2].arg = graph_arg(fg);
	n->in[3].arg = values_arg(b, l.n, l.outer);
	n->nout = nout;
	n->out = ARENA_ARRAY(b->a, Arg, nout + 1);
	cond_outputs(b, f, s, n, pre, names, vt, vf);
	if (!nout)
		n->name = tb_fresh_name(b, "cond");
	tb_push_node(b, n);
	return 0;
}

/* ---- loops whose trip count is not known now: higher_order.while_loop ---- */

/* The names a block assigns, nested blocks included, in order. */
static void
assigned_names(Build *b, const TsExpr *t, Env *out)
{
	if (!t)
		return;
	if (t->kind == TE_NAME) {
		if (!tb_env_get(out, t->s))
			tb_env_set(b->a, out, t->s, &tb_none);
	} else if (t->kind == TE_TUPLE || t->kind == TE_LIST) {
		for (int i = 0; i < t->nitem; i++)
			assigned_names(b, t->items[i], out);
	}
}

static void
assigned_in(Build *b, TsStmt *const *body, int n, Env *out)
{
	for (int i = 0; i < n; i++) {
		const TsStmt *s = body[i];
		if (s->kind == TS_ASSIGN || s->kind == TS_AUGASSIGN || s->kind == TS_ANNASSIGN || s->kind == TS_FOR)
			assigned_names(b, s->target, out);
		assigned_in(b, s->body, s->nbody, out);
		assigned_in(b, s->orelse, s->norelse, out);
	}
}

/* A placeholder of g typed like v, as the TsVal a loop body reads. */
static TsVal *
placeholder(Build *b, Graph *g, const char *base, const TsVal *like)
{
	Value *ph = ir_new_value(b->a, g, tb_fresh_name(b, base), VAL_TENSOR);
	TsVal *r = tb_mk(b, V_TENSOR);
	Arg *in = ARENA_ARRAY(b->a, Arg, g->ninput + 2);

	ph->dtype = like->v->dtype, ph->rank = like->v->rank, ph->dims = like->v->dims;
	if (g->ninput)
		memcpy(in, g->inputs, sizeof *in * (size_t)g->ninput);
	in[g->ninput++] = tb_value_arg(ph);
	g->inputs = in;
	r->v = ph;
	r->numtensor = like->numtensor;
	return r;
}

/* A 0-d bool tensor of a condition value (ne(x, 0) when x is not bool). */
static Value *
bool_pred(Build *b, Frame *f, const TsExpr *at, const TsVal *cv)
{
	TsVal x = *cv, *args[2], *r;

	if (cv->k != V_TENSOR)
		return NULL;
	if (cv->v->rank != 0) {
		FAIL(b, f, at, "a condition on a tensor of rank %d (torch needs one element)", cv->v->rank);
		return NULL;
	}
	if (cv->v->dtype == DT_BOOL)
		return cv->v;
	x.numtensor = NT_NONE;
	args[0] = &x, args[1] = tb_mk_int(b, 0);
	r = tb_call_op(b, f, at, "aten", "ne", 2, args, 0, NULL, NULL);
	return r->k == V_TENSOR ? r->v : NULL;
}

static TsVal *
op2(Build *b, Frame *f, const TsExpr *at, const char *name, TsVal *x, TsVal *y)
{
	TsVal *args[2] = {x, y};
	return tb_call_op(b, f, at, "aten", name, 2, args, 0, NULL, NULL);
}

/* A range loop's counter (a 0-d int64 zero) and its limit (the count as a
 * 0-d tensor); -1 when either fails. */
static int
range_start(Build *b, Frame *f, const TsStmt *s, const TsVal *count, TsVal **counter0, TsVal **limit)
{
	TsVal *sz = tb_mk_seq(b, V_LIST, 0), *kw[1] = {tb_mk_int(b, 4)};
	const char *kwn[1] = {"dtype"};
	TsVal *cnt = arena_dup(b->a, count, sizeof *count);
	cnt->numtensor = NT_NONE;
	*counter0 = tb_call_op(b, f, s->value, "aten", "zeros", 1, &sz, 1, kwn, kw);
	*limit = cnt->k == V_TENSOR ? cnt : tb_mk(b, V_TENSOR);
	if (cnt->k == V_SYM && !((*limit)->v = tb_emit_scalar_tensor(b, f, s->value, cnt)))
		return -1;
	if ((*counter0)->k != V_TENSOR)
		return -1;
	return 0;
}

/* The body graph's outputs: each carried variable's value after one
 * iteration (same dtype and rank); a Python value the body changes is
 * refused.  -1 when one fails. */
static int
body_outputs(Build *b, Frame *f, const TsStmt *s, Graph *bg, const Env *eb, const Env *pre,
             const Env *asg, const char **cn, TsVal **init, int nc, int range)
{
	for (int i = range; i < nc; i++) {
		TsVal *v = tb_env_get(eb, cn[i]);
		if (is_number(v))
			v = data_scalar(b, tb_number_tensor_as(b, v, init[i]->v->dtype));
		if (v->k != V_TENSOR || v->v->dtype != init[i]->v->dtype || v->v->rank != init[i]->v->rank) {
			FAIL(b, f, s->value, "loop variable '%s' changes kind, dtype or rank across iterations", cn[i]);
			return -1;
		}
		bg->outputs[i] = tb_value_arg(v->v);
	}
	for (int i = 0; i < asg->n; i++) {
		TsVal *v0 = tb_env_get(pre, asg->names[i]), *v1 = tb_env_get(eb, asg->names[i]);
		int carried = 0;
		for (int k = 0; k < nc; k++)
			carried |= strcmp(cn[k], asg->names[i]) == 0;
		if (!carried && v0 && v0->k != V_TENSOR && v1 != v0 && v1->k != V_ERR &&
		    !(v1->k == v0->k && (v0->k == V_INT || v0->k == V_BOOL) && v1->i == v0->i))
			FAIL(b, f, s->value, "'%s' (%s) changes in a loop whose trip count is not known at "
			     "conversion time: only tensors may be loop-carried", asg->names[i], tb_kind_name(v0));
	}
	return 0;
}

/* The while_loop node of cg and bg over the carried values, its outputs
 * set in pre (the counter of a range loop excepted). */
static void
loop_node(Build *b, Frame *f, const TsStmt *s, Graph *cg, Graph *bg, const char **cn, TsVal **init,
          int nc, int range, Env *pre)
{
	Lift l = {0};
	Node *n;

	l.seen = strmap_new(b->a, 16);
	lift_graph(b, cg, &l, NULL);
	lift_graph(b, bg, &l, NULL);
	lift_bind(b, cg, &l);
	lift_bind(b, bg, &l);
	n = hop_node(b, f, "higher_order.while_loop", s->ofs);
	n->name = tb_fresh_name(b, "while_loop");
	n->in[0].arg = graph_arg(cg);
	n->in[1].arg = graph_arg(bg);
	{
		Value **iv = ARENA_ARRAY(b->a, Value *, nc + 1);
		for (int i = 0; i < nc; i++)
			iv[i] = init[i]->v;
		n->in[2].arg = values_arg(b, nc, iv);
	}
	n->in[3].arg = values_arg(b, l.n, l.outer);
	n->nout = nc;
	n->out = ARENA_ARRAY(b->a, Arg, nc + 1);
	for (int i = 0; i < nc; i++) {
		const Value *x = init[i]->v, *y = bg->outputs[i].u.v;
		Value *v = ir_new_value(b->a, b->g, tb_fresh_name(b, cn[i]), VAL_TENSOR);
		TsVal *tv = tb_mk(b, V_TENSOR);
		v->dtype = x->dtype, v->rank = x->rank, v->dims = x->dims, v->def = n;
		for (int k = 0; k < x->rank; k++)
			if (!(x->dims[k].e ? y->dims[k].e && sym_equal(x->dims[k].e, y->dims[k].e)
			                   : !y->dims[k].e && x->dims[k].v == y->dims[k].v)) {
				FAIL(b, f, s->value, "loop variable '%s' changes its size at dim %d across iterations "
				     "(not supported yet)", cn[i], k);
				break;
			}
		n->out[i] = tb_value_arg(v);
		tv->v = v;
		tv->numtensor = init[i]->numtensor;
		if (!(range && i == 0))
			tb_env_set(b->a, pre, cn[i], tv);
	}
	tb_push_node(b, n);
}

/* `for target in range(count)` (count a dynamic size or a tensor's value)
 * or `while cond` (cond read from a tensor): carried values are the
 * variables the body assigns that exist before it; a range loop carries
 * its counter first. */
int
tb_exec_loop(Build *b, Frame *f, const TsStmt *s, TsVal *count)
{
	Env *pre = f->vars, *asg = tb_env_new(b->a, 16), *eb, *ec;
	int nc = 0, rc, range = count != NULL;
	const char **cn;
	TsVal **init, *counter0 = NULL, *limit = NULL, *cv = NULL;
	Saved sv;
	Graph *cg, *bg;
	Value *pred;

	assigned_in(b, s->body, s->nbody, asg);
	if (range && range_start(b, f, s, count, &counter0, &limit))
		return 0;
	cn = ARENA_ARRAY(b->a, const char *, asg->n + 2);
	init = ARENA_ARRAY(b->a, TsVal *, asg->n + 2);
	if (range)
		cn[nc] = "i", init[nc++] = counter0;
	for (int i = 0; i < asg->n; i++) {
		TsVal *v = tb_env_get(pre, asg->names[i]);
		if (!v || (range && s->target->kind == TE_NAME && strcmp(asg->names[i], s->target->s) == 0))
			continue;
		if (is_number(v))       /* a Python number the body changes: carried as a 0-d tensor */
			v = data_scalar(b, tb_number_tensor(b, v));
		if (v->k == V_TENSOR)
			cn[nc] = asg->names[i], init[nc++] = v;
	}
	/* the condition graph */
	cg = sub_begin(b, "while_loop_cond_graph", &sv);
	ec = tb_env_copy(b->a, pre);
	for (int i = 0; i < nc; i++) {
		TsVal *ph = placeholder(b, cg, cn[i], init[i]);
		if (!(range && i == 0))
			tb_env_set(b->a, ec, cn[i], ph);
		else
			cv = ph;
	}
	f->vars = ec;
	if (range) {
		cv = op2(b, f, s->value, "lt", cv, limit);
	} else {
		cv = tb_eval(b, f, s->value);
	}
	pred = bool_pred(b, f, s->value, cv);
	sub_end(b, cg, &sv);
	f->vars = pre;
	if (!pred)
		return 0;
	cg->noutput = 1;
	cg->outputs = ARENA_NEW(b->a, Arg);
	cg->outputs[0] = tb_value_arg(pred);
	/* the body */
	bg = sub_begin(b, "while_loop_body_graph", &sv);
	eb = tb_env_copy(b->a, pre);
	{
		TsVal *ctr = NULL;
		for (int i = 0; i < nc; i++) {
			TsVal *ph = placeholder(b, bg, cn[i], init[i]);
			if (range && i == 0)
				ctr = ph;
			else
				tb_env_set(b->a, eb, cn[i], ph);
		}
		f->vars = eb;
		if (range)
			tb_assign(b, f, s->target, ctr);
		rc = b->exec_body(b, f, s->body, s->nbody);
		bg->noutput = nc;
		bg->outputs = ARENA_ARRAY(b->a, Arg, nc + 1);
		if (range) {
			TsVal *next = op2(b, f, s->value, "add", ctr, tb_mk_int(b, 1));
			if (next->k == V_TENSOR)
				bg->outputs[0] = tb_value_arg(next->v);
		}
	}
	if (body_outputs(b, f, s, bg, eb, pre, asg, cn, init, nc, range)) {
		sub_end(b, bg, &sv);
		f->vars = pre;
		return 0;
	}
	sub_end(b, bg, &sv);
	f->vars = pre;
	if (rc) {
		FAIL(b, f, s->value, "return, break or continue inside a loop whose trip count is not known at "
		     "conversion time is not supported yet");
		return 0;
	}
	for (int i = 0; i < nc; i++)
		if (!bg->outputs[i].u.v)
			return 0;
	if (!nc) {
		FAIL(b, f, s->value, "the loop's body changes nothing its condition reads: it never ends, or never runs");
		return 0;
	}
	loop_node(b, f, s, cg, bg, cn, init, nc, range, pre);
	return 0;
}
