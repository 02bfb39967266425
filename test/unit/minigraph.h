/* minigraph.h: small hand-built programs for the unit tests (test_lower,
 * test_control): a Program with a main graph and subgraphs, tensors of
 * static or symbolic dims, SymInt/SymBool values, nodes with named
 * arguments, each node at the user frame "model.py:7 in forward: y = f(x)".
 * Everything lives in the Mini's arena. */
#ifndef MINIGRAPH_H
#define MINIGRAPH_H

#include <string.h>

#include "core/core.h"
#include "ir/ir.h"
#include "read/read.h"

typedef struct Mini {
	Arena a;
	Program p;
	Graph *g;
} Mini;

static inline Graph *
mini_graph(Mini *m, const char *name, Graph *parent)
{
	Graph *g = ARENA_NEW(&m->a, Graph);

	g->name = name;
	g->parent = parent;
	g->index = strmap_new(&m->a, 64);
	g->inputs = ARENA_ARRAY(&m->a, Arg, 8);
	g->outputs = ARENA_ARRAY(&m->a, Arg, 8);
	g->nodes = ARENA_ARRAY(&m->a, Node *, 32);
	return g;
}

static inline void
mini_init(Mini *m)
{
	memset(m, 0, sizeof *m);
	arena_init(&m->a);
	m->p.arena = &m->a;
	m->p.path = "mini.pt2";
	m->g = m->p.graph = mini_graph(m, "", NULL);
	m->p.input_specs = ARENA_ARRAY(&m->a, InputSpec, 8);
	m->p.output_specs = ARENA_ARRAY(&m->a, OutputSpec, 8);
}

static inline SymExpr *
sym(Mini *m, const char *name)
{
	SymExpr *e = ARENA_NEW(&m->a, SymExpr);

	e->op = SYM_SYMBOL;
	e->name = name;
	return e;
}

/* A tensor value; dims[i] < 0 is the symbol syms[i]. */
static inline Value *
tensor(Mini *m, Graph *g, const char *name, DType dt, int rank, const int64_t *dims, const char *const *syms)
{
	Value *v = ir_new_value(&m->a, g, name, VAL_TENSOR);

	v->dtype = dt;
	v->rank = rank;
	v->dims = ARENA_ARRAY(&m->a, Dim, rank + 1);
	for (int i = 0; i < rank; i++) {
		v->dims[i].v = dims[i];
		if (dims[i] < 0)
			v->dims[i].e = sym(m, syms[i]);
	}
	return v;
}

static inline Value *
symval(Mini *m, Graph *g, const char *name, ValueKind kind)
{
	return ir_new_value(&m->a, g, name, kind);
}

static inline Arg
varg(Value *v)
{
	return (Arg){.kind = v->kind == VAL_SYM_INT ? ARG_SYM_INT : v->kind == VAL_SYM_BOOL ? ARG_SYM_BOOL
	             : v->kind == VAL_SYM_FLOAT ? ARG_SYM_FLOAT : ARG_TENSOR, .u.v = v};
}

static inline Arg
iarg(int64_t i)
{
	return (Arg){.kind = ARG_INT, .u.i = i};
}

static inline Arg
garg(Graph *g)
{
	return (Arg){.kind = ARG_GRAPH, .u.g = g};
}

static inline void
input(Mini *m, Graph *g, Value *v)
{
	g->inputs[g->ninput++] = varg(v);
	if (g == m->g)
		m->p.input_specs[m->p.ninput_spec++] = (InputSpec){.kind = IN_USER_INPUT, .arg = &g->inputs[g->ninput - 1]};
}

static inline void
output(Mini *m, Graph *g, Value *v)
{
	g->outputs[g->noutput++] = varg(v);
	if (g == m->g)
		m->p.output_specs[m->p.noutput_spec++] = (OutputSpec){.kind = OUT_USER_OUTPUT, .arg = &g->outputs[g->noutput - 1]};
}

/* The name torch gives a node without an output value: its target without
 * "aten." and with '.' as '_' ("aten._assert_scalar.default" ->
 * "_assert_scalar_default"). */
static inline const char *
node_name(Mini *m, const char *op)
{
	char *s = arena_strdup(&m->a, strncmp(op, "aten.", 5) == 0 ? op + 5 : op);

	for (char *p = s; *p; p++)
		if (*p == '.')
			*p = '_';
	return s;
}

/* A node op(names = args) -> out in g (out may be NULL); "" names are positional. */
static inline Node *
node(Mini *m, Graph *g, const char *op, Value *out, int nin, const char *const *names, const Arg *args)
{
	Node *n = ARENA_NEW(&m->a, Node);

	n->target = op;
	n->op = op;
	n->name = out ? out->name : node_name(m, op);
	n->nin = nin;
	n->in = ARENA_ARRAY(&m->a, NamedArg, nin + 1);
	for (int i = 0; i < nin; i++) {
		n->in[i].name = names[i];
		n->in[i].arg = args[i];
	}
	if (out) {
		n->nout = 1;
		n->out = ARENA_ARRAY(&m->a, Arg, 1);
		n->out[0] = varg(out);
		out->def = n;
	}
	n->graph = g;
	n->id = g->nnode;
	n->frame = "model.py:7 in forward: y = f(x)";
	g->nodes[g->nnode++] = n;
	return n;
}

/* A user input of static shape in the main graph. */
static inline Value *
mini_input(Mini *m, const char *name, DType dt, int rank, const int64_t *dims)
{
	Value *v = tensor(m, m->g, name, dt, rank, dims, NULL);

	input(m, m->g, v);
	return v;
}

/* A list of ints argument. */
static inline Arg
ints_arg(Mini *m, int k, const int64_t *v)
{
	Arg g = {.kind = ARG_INTS, .n = k, .u.list = ARENA_ARRAY(&m->a, Arg, k + 1)};

	for (int i = 0; i < k; i++)
		g.u.list[i] = (Arg){.kind = ARG_INT, .u.i = v[i]};
	return g;
}

#endif
