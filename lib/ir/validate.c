/* validate.c: the structural checks a Program passes before anything lowers it.
 *
 * serde.c resolves every name to a Value through the graph's tables, which
 * list values whether or not a node defines them, so the IR it builds can
 * still read a value before (or without) its definition, define one twice,
 * or bind a subgraph placeholder to a value of the enclosing graph.  The
 * lowering indexes per-graph arrays by Value id and binds each value when
 * its producer is lowered; it relies on the rules below and would otherwise
 * abort.  Each rule broken is a DIAG_INPUT message naming the file, the zip
 * entry, the node (name, ATen target, user frame) and the value:
 *
 *   - a graph's placeholders are values of that graph, each listed once;
 *   - every value a node or a graph output reads is defined before it: a
 *     placeholder that is bound to something (for the main graph, every
 *     input spec but constant_input; for a subgraph, the tensors and
 *     symbols), or an output of an earlier node of that graph; a subgraph
 *     also sees what its enclosing graph defined before the node holding it;
 *   - a node does not read its own output;
 *   - a node defines only values of its own graph, each once.
 *
 * Walks each graph once, with one "defined" flag per value. */
#include "ir/ir.h"

#include "core/core.h"

#include <stdarg.h>
#include <string.h>

typedef struct Scope Scope;
struct Scope {
	const Graph *g;
	unsigned char *defined;     /* by Value id */
	const Scope *up;            /* the enclosing graph's scope, as of the node holding g */
};

typedef struct Check {
	const Program *p;
	Arena *a;
	Diag *d;
	const char *label;          /* "model.pt2:archive/models/model.json" */
} Check;

static int
fail(Check *k, const Node *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int
fail(Check *k, const Node *n, const char *fmt, ...)
{
	va_list ap;
	char *what;

	va_start(ap, fmt);
	what = arena_vprintf(k->a, fmt, ap);
	va_end(ap);
	if (!n)
		return diag_report(k->d, YE_GRAPH_INVALID, &(DiagAt){.file = k->label}, "%s", what);
	return diag_report(k->d, YE_GRAPH_INVALID, &(DiagAt){.file = k->p->path ? k->p->path : "program",
	                                                     .entry = k->p->json_entry,
	                                                     .graph = ir_graph_path(k->a, n->graph),
	                                                     .node = n->name, .target = n->op, .frame = n->frame},
	                   "%s", what);
}

/* The Value an Arg names directly (not through a list), or NULL. */
static const Value *
arg_value(const Arg *a)
{
	switch (a->kind) {
	case ARG_TENSOR: case ARG_OPT_TENSOR: case ARG_SYM_INT: case ARG_SYM_BOOL:
	case ARG_SYM_FLOAT: case ARG_CUSTOM_OBJ:
		return a->u.v;
	default:
		return NULL;
	}
}

static int
is_list(const Arg *a)
{
	switch (a->kind) {
	case ARG_TENSORS: case ARG_OPT_TENSORS: case ARG_SYM_INTS: case ARG_SYM_BOOLS:
	case ARG_SYM_FLOATS: case ARG_NESTED_TENSORS: case ARG_STRING_TO_ARG:
		return 1;
	default:
		return 0;
	}
}

/* The scope of v's graph, or NULL when v is not visible from s. */
static const Scope *
scope_of(const Scope *s, const Value *v)
{
	while (s && s->g != v->graph)
		s = s->up;
	return s;
}

static int check_graph(Check *k, const Graph *g, const Scope *up, const Node *holder);

/* Checks the values a (an input of n, or a graph output when n is NULL) reads. */
static int
check_read(Check *k, const Scope *s, const Node *n, const Arg *a, const char *what)
{
	const Value *v = arg_value(a);
	const Scope *vs;

	if (is_list(a)) {
		for (int i = 0; i < a->n; i++)
			if (check_read(k, s, n, &a->u.list[i], what))
				return DIAG_INPUT;
		return 0;
	}
	if (a->kind == ARG_GRAPH)
		return a->u.g ? check_graph(k, a->u.g, s, n) : 0;
	if (!v)
		return 0;
	if (!(vs = scope_of(s, v)))
		return fail(k, n, "%s '%s' belongs to a graph this one cannot see", what, v->name);
	if (vs->defined[v->id])
		return 0;
	if (n && v->def == n)
		return fail(k, n, "%s '%s' is its own output", what, v->name);
	if (v->def && v->def->graph == v->graph)
		return fail(k, n, "%s '%s' is read before it is defined (by node '%s')", what, v->name, v->def->name);
	return fail(k, n, "%s '%s' is never defined", what, v->name);
}

/* Marks the values output a of n defines. */
static int
check_def(Check *k, Scope *s, const Node *n, const Arg *a)
{
	const Value *v = arg_value(a);

	if (is_list(a)) {
		for (int i = 0; i < a->n; i++)
			if (check_def(k, s, n, &a->u.list[i]))
				return DIAG_INPUT;
		return 0;
	}
	if (!v)
		return 0;
	if (v->graph != s->g)
		return fail(k, n, "output '%s' is a value of an enclosing graph", v->name);
	if (s->defined[v->id])
		return fail(k, n, "output '%s' is already defined%s", v->name,
		            v->def && v->def != n ? " by another node" : " (a graph input, or listed twice)");
	s->defined[v->id] = 1;
	return 0;
}

/* 1 when placeholder i of g is bound before g's nodes run (see lib/lower/scope.c:
 * lower_declare_inputs for the main graph, lower_graph for a subgraph). */
static int
bound_input(const Check *k, const Graph *g, int i)
{
	const Arg *a = &g->inputs[i];

	if (!g->parent)
		return arg_value(a) && !(i < k->p->ninput_spec && k->p->input_specs[i].kind == IN_CONSTANT_INPUT);
	return a->kind == ARG_TENSOR || a->kind == ARG_SYM_INT || a->kind == ARG_SYM_BOOL || a->kind == ARG_SYM_FLOAT;
}

static int
check_graph(Check *k, const Graph *g, const Scope *up, const Node *holder)
{
	Scope s = {g, ARENA_ARRAY(k->a, unsigned char, g->nvalue + 1), up};
	const char *sub = g->parent ? arena_printf(k->a, "subgraph '%s' ", g->name) : "";

	for (int i = 0; i < g->ninput; i++) {
		const Value *v = arg_value(&g->inputs[i]);
		if (!v)
			continue;
		if (v->graph != g)
			return fail(k, holder, "%sinput '%s' is a value of an enclosing graph", sub, v->name);
		if (s.defined[v->id])
			return fail(k, holder, "%sinput '%s' is listed twice", sub, v->name);
		s.defined[v->id] = bound_input(k, g, i);
	}
	for (int i = 0; i < g->nnode; i++) {
		const Node *n = g->nodes[i];
		for (int j = 0; j < n->nin; j++)
			if (check_read(k, &s, n, &n->in[j].arg, "input"))
				return DIAG_INPUT;
		for (int j = 0; j < n->nout; j++)
			if (check_def(k, &s, n, &n->out[j]))
				return DIAG_INPUT;
	}
	for (int i = 0; i < g->noutput; i++)
		if (check_read(k, &s, holder, &g->outputs[i], g->parent ? arena_printf(k->a, "%soutput", sub) : "graph output"))
			return DIAG_INPUT;
	return 0;
}

int
ir_validate(const Program *p, Diag *d)
{
	const char *path = p->path ? p->path : "program";
	Check k = {p, p->arena, d, NULL};

	k.label = p->json_entry ? arena_printf(p->arena, "%s:%s", path, p->json_entry) : path;
	return p->graph ? check_graph(&k, p->graph, NULL, NULL) : 0;
}
