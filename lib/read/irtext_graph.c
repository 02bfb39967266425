/* irtext_graph.c: the graph blocks of a text graph (internal.h): types,
 * arguments (their kind inferred from the spelling, docs/text-graph.md),
 * nodes, and nested graph blocks, each value declared where it is defined
 * and every later name resolved to it (ir_lookup). */
#include "read/read.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "ir/ir.h"
#include "read/internal.h"

/* ---- types ---- */

SymExpr *
irt_parse_expr(Lex *L, const char *at, const char *s)
{
	const char *label = arena_printf(L->a, "%s:%d:%d: expression '%s'", L->label, L->line,
	                                 (int)(at - L->bol) + 1, s);

	return sym_parse_infix(L->a, label, s, strlen(s), L->d);
}

/* "float32[2,s77]", "SymInt(s0)", "SymBool", "object FQN", "token" into t. */
int
irt_parse_type(Lex *L, Value *t)
{
	const char *at, *s, *name;
	DType dt;

	irt_skip_ws(L);
	at = L->p;
	if (!(name = irt_ident(L, 0)))
		return irt_err(L, at, "expected a type (float32[2,3], SymInt, ...)");
	if (strcmp(name, "SymInt") == 0 || strcmp(name, "SymBool") == 0 || strcmp(name, "SymFloat") == 0) {
		t->kind = name[3] == 'I' ? VAL_SYM_INT : name[3] == 'B' ? VAL_SYM_BOOL : VAL_SYM_FLOAT;
		if (L->p < L->eol && *L->p == '(') {
			L->p++;
			s = irt_span_until(L, ")", &at);
			if (irt_expect(L, ")", "after the symbolic expression"))
				return DIAG_INPUT;
			if (!(t->expr = irt_parse_expr(L, at, s)))
				return DIAG_INPUT;
		}
		return 0;
	}
	if (strcmp(name, "object") == 0) {
		t->kind = VAL_CUSTOM_OBJ;
		if (!(t->class_fqn = irt_ident(L, 1)))
			return irt_err(L, L->p, "expected a class name after 'object'");
		return 0;
	}
	if (strcmp(name, "token") == 0) {
		t->kind = VAL_TOKEN;
		return 0;
	}
	if ((dt = dtype_from_name(name)) == DT_UNKNOWN)
		return irt_err(L, at, "unknown dtype '%s'", name);
	t->kind = VAL_TENSOR;
	t->dtype = dt;
	if (L->p >= L->eol || *L->p != '[')
		return irt_err(L, L->p, "expected '[' and the dims after '%s'", name);
	L->p++;
	t->dims = ARENA_ARRAY(L->a, Dim, 1);
	t->rank = 0;
	irt_skip_ws(L);
	if (irt_accept(L, "]"))
		return 0;
	for (;;) {
		Dim dim = {0};
		int64_t i;
		double f;
		s = irt_span_until(L, ",])", &at);
		if (!*s)
			return irt_err(L, at, "expected a dim");
		if (irt_number_value(s, &i, &f) == 1) {
			if (i < 0)
				return irt_err(L, at, "negative dim %lld", (long long)i);
			dim.v = i;
		} else {
			if (!(dim.e = irt_parse_expr(L, at, s)))
				return DIAG_INPUT;
			dim.v = -1;
			if (dim.e->op == SYM_INT)
				dim.v = dim.e->i, dim.e = NULL;
		}
		PUSH(L->a, t->dims, t->rank, dim);
		if (irt_accept(L, "]"))
			return 0;
		if (irt_expect(L, ",", "or ']' between dims"))
			return DIAG_INPUT;
	}
}

/* A new value of g named name, typed as t; an error when g has it already. */
static Value *
declare(Lex *L, Graph *g, const char *at, const char *name, const Value *t)
{
	Value *v;

	if (strmap_get(g->index, name)) {
		irt_err(L, at, "value '%s' is defined twice", name);
		return NULL;
	}
	if (g->nvalue >= MAX_VALUES) {
		irt_err(L, at, "more than %d values", MAX_VALUES);
		return NULL;
	}
	v = ir_new_value(L->a, g, name, t->kind);
	v->dtype = t->dtype;
	v->rank = t->rank;
	v->dims = t->dims;
	v->expr = t->expr;
	v->class_fqn = t->class_fqn;
	return v;
}

static ArgKind
ref_kind(const Value *v)
{
	switch (v->kind) {
	case VAL_SYM_INT: return ARG_SYM_INT;
	case VAL_SYM_BOOL: return ARG_SYM_BOOL;
	case VAL_SYM_FLOAT: return ARG_SYM_FLOAT;
	case VAL_CUSTOM_OBJ: return ARG_CUSTOM_OBJ;
	default: return ARG_TENSOR;
	}
}

/* ---- arguments ---- */

/* The kind a list of items takes (docs/text-graph.md, "Lists"). */
static int
list_kind(Lex *L, const char *at, Arg *g)
{
	int cnt[ARG_KIND_COUNT] = {0};

	for (int i = 0; i < g->n; i++)
		cnt[g->u.list[i].kind]++;
	if (g->n == 0 || cnt[ARG_INT] == g->n)
		g->kind = ARG_INTS;
	else if (cnt[ARG_INT] + cnt[ARG_SYM_INT] == g->n)
		g->kind = ARG_SYM_INTS;
	else if (cnt[ARG_INT] + cnt[ARG_FLOAT] == g->n) {
		g->kind = ARG_FLOATS;
		for (int i = 0; i < g->n; i++)
			if (g->u.list[i].kind == ARG_INT)
				g->u.list[i] = (Arg){.kind = ARG_FLOAT, .u.f = (double)g->u.list[i].u.i};
	} else if (cnt[ARG_FLOAT] + cnt[ARG_SYM_FLOAT] + cnt[ARG_INT] == g->n && cnt[ARG_SYM_FLOAT])
		g->kind = ARG_SYM_FLOATS;
	else if (cnt[ARG_BOOL] == g->n)
		g->kind = ARG_BOOLS;
	else if (cnt[ARG_BOOL] + cnt[ARG_SYM_BOOL] == g->n)
		g->kind = ARG_SYM_BOOLS;
	else if (cnt[ARG_STRING] == g->n)
		g->kind = ARG_STRINGS;
	else if (cnt[ARG_TENSOR] == g->n)
		g->kind = ARG_TENSORS;
	else if (cnt[ARG_TENSOR] + cnt[ARG_NONE] == g->n)
		g->kind = ARG_OPT_TENSORS;
	else if (cnt[ARG_INTS] == g->n)
		g->kind = ARG_INT_LISTS;
	else if (cnt[ARG_FLOATS] + cnt[ARG_INTS] == g->n)
		g->kind = ARG_FLOAT_LISTS;
	else if (cnt[ARG_TENSORS] == g->n)
		g->kind = ARG_NESTED_TENSORS;
	else
		return irt_err(L, at, "a list mixes items of kinds torch never puts in one list");
	return 0;
}

static int
parse_list(Lex *L, Graph *g, Arg *out, const char *at)
{
	out->n = 0;
	out->u.list = ARENA_ARRAY(L->a, Arg, 1);
	if (irt_accept(L, "]"))
		return list_kind(L, at, out);
	for (;;) {
		Arg item;
		if (irt_parse_arg(L, g, &item))
			return DIAG_INPUT;
		PUSH(L->a, out->u.list, out->n, item);
		if (irt_accept(L, "]"))
			return list_kind(L, at, out);
		if (irt_expect(L, ",", "or ']' in a list"))
			return DIAG_INPUT;
	}
}

/* A quoted string: up to the next quote that closes it (followed by a
 * delimiter), since --print does not escape quotes inside. */
static const char *
quoted(Lex *L)
{
	const char *s = ++L->p, *q;

	for (q = s; q < L->eol; q++) {
		const char *r = q + 1;
		if (*q != '\'')
			continue;
		while (r < L->eol && *r == ' ')
			r++;
		if (r >= L->eol || strchr(",)]}:", *r)) {
			L->p = q + 1;
			return arena_strndup(L->a, s, (size_t)(q - s));
		}
	}
	irt_err(L, s - 1, "unterminated string");
	return NULL;
}

static int
parse_dict(Lex *L, Graph *g, Arg *out)
{
	out->kind = ARG_STRING_TO_ARG;
	out->n = 0;
	out->u.list = ARENA_ARRAY(L->a, Arg, 1);
	if (irt_accept(L, "}"))
		return 0;
	for (;;) {
		const char *key;
		Arg item;
		irt_skip_ws(L);
		if (L->p >= L->eol || *L->p != '\'')
			return irt_err(L, L->p, "expected a quoted key in a dict");
		if (!(key = quoted(L)) || irt_expect(L, ":", "after a dict key") || irt_parse_arg(L, g, &item))
			return DIAG_INPUT;
		item.key = key;
		PUSH(L->a, out->u.list, out->n, item);
		if (irt_accept(L, "}"))
			return 0;
		if (irt_expect(L, ",", "or '}' in a dict"))
			return DIAG_INPUT;
	}
}

/* prefix:REST arguments: op:, device:, dtype:, memory_format:, layout:, graph:. */
static int
parse_tagged(Lex *L, Graph *g, const char *tag, const char *at, Arg *out)
{
	const char *s = L->p, *name;
	int64_t i;
	DType dt;

	while (L->p < L->eol && !strchr(",)]} \t\r", *L->p))
		L->p++;
	name = arena_strndup(L->a, s, (size_t)(L->p - s));
	if (!*name)
		return irt_err(L, s, "expected a value after '%s:'", tag);
	if (strcmp(tag, "op") == 0 || strcmp(tag, "device") == 0) {
		out->kind = tag[0] == 'o' ? ARG_OPERATOR : ARG_DEVICE;
		out->u.s = name;
		return 0;
	}
	if (strcmp(tag, "dtype") == 0) {
		if ((dt = dtype_from_name(name)) == DT_UNKNOWN)
			return irt_err(L, s, "unknown dtype '%s'", name);
		out->kind = ARG_SCALAR_TYPE;
		out->u.i = dtype_torch(dt);
		return 0;
	}
	if (strcmp(tag, "memory_format") == 0 || strcmp(tag, "layout") == 0) {
		double f;
		if (irt_number_value(name, &i, &f) != 1)
			return irt_err(L, s, "expected an integer after '%s:'", tag);
		out->kind = tag[0] == 'm' ? ARG_MEMORY_FORMAT : ARG_LAYOUT;
		out->u.i = i;
		return 0;
	}
	if (strcmp(tag, "graph") == 0) {
		/* filled when its block follows the node (irt_parse_graph_body) */
		Graph *sub = ARENA_NEW(L->a, Graph);
		if (!g)
			return irt_err(L, at, "a subgraph argument outside a node");
		sub->name = name;
		sub->parent = g;
		out->kind = ARG_GRAPH;
		out->u.g = sub;
		return 0;
	}
	return irt_err(L, at, "unknown argument prefix '%s:'", tag);
}

/* One argument; g resolves names (NULL: constants only). */
int
irt_parse_arg(Lex *L, Graph *g, Arg *out)
{
	const char *at, *name;
	Value *v;

	memset(out, 0, sizeof *out);
	irt_skip_ws(L);
	at = L->p;
	if (at >= L->eol)
		return irt_err(L, at, "expected an argument");
	switch (*at) {
	case '[':
		L->p++;
		return parse_list(L, g, out, at);
	case '{':
		L->p++;
		return parse_dict(L, g, out);
	case '\'':
		out->kind = ARG_STRING;
		return (out->u.s = quoted(L)) ? 0 : DIAG_INPUT;
	default:
		break;
	}
	if ((*at >= '0' && *at <= '9') || *at == '-' || *at == '+' || *at == '.') {
		const char *s, *tok = irt_number_token(L, &s);
		int k = irt_number_value(tok, &out->u.i, &out->u.f);
		if (!k)
			return irt_err(L, s, "bad number '%s'", tok);
		out->kind = k == 1 ? ARG_INT : ARG_FLOAT;
		return 0;
	}
	if (!(name = irt_ident(L, 0)))
		return irt_err(L, at, "unexpected '%c' where an argument should be", *at);
	if (strcmp(name, "None") == 0) {
		out->kind = ARG_NONE;
		return 0;
	}
	if (strcmp(name, "True") == 0 || strcmp(name, "False") == 0) {
		out->kind = ARG_BOOL;
		out->u.i = name[0] == 'T';
		return 0;
	}
	if (strcmp(name, "inf") == 0 || strcmp(name, "nan") == 0) {
		out->kind = ARG_FLOAT;
		out->u.f = name[0] == 'i' ? INFINITY : NAN;
		return 0;
	}
	if (strcmp(name, "complex") == 0 && L->p < L->eol && *L->p == '(') {
		L->p++;
		out->kind = ARG_COMPLEX;
		if (irt_parse_number(L, &out->u.c[0], "(real part)") || irt_expect(L, ",", "in complex(re, im)") ||
		    irt_parse_number(L, &out->u.c[1], "(imaginary part)") || irt_expect(L, ")", "closing complex("))
			return DIAG_INPUT;
		return 0;
	}
	if (L->p + 1 < L->eol && *L->p == ':' && L->p[1] != ' ') {   /* "name: type" is no prefix */
		L->p++;
		return parse_tagged(L, g, name, at, out);
	}
	if (!g)
		return irt_err(L, at, "'%s' names a value where only a constant can be", name);
	if (!(v = ir_lookup(g, name)))
		return irt_err(L, at, "unknown value '%s' (not defined above, nor an input of this graph or an enclosing one)", name);
	out->kind = ref_kind(v);
	out->u.v = v;
	return 0;
}

/* ---- nodes and graphs ---- */

/* One output item: "name: type", "_", "(item, ...)", or a constant. */
static int
parse_out(Lex *L, Graph *g, Node *n, Arg *out)
{
	const char *at, *name, *save;
	Value t = {0}, *v;

	memset(out, 0, sizeof *out);
	irt_skip_ws(L);
	at = L->p;
	if (at < L->eol && *at == '(') {
		L->p++;
		out->u.list = ARENA_ARRAY(L->a, Arg, 1);
		for (;;) {
			Arg item;
			if (parse_out(L, g, n, &item))
				return DIAG_INPUT;
			PUSH(L->a, out->u.list, out->n, item);
			if (irt_accept(L, ")"))
				break;
			if (irt_expect(L, ",", "or ')' in a list of outputs"))
				return DIAG_INPUT;
		}
		return list_kind(L, at, out);
	}
	save = L->p;
	if ((name = irt_ident(L, 0))) {
		if (strcmp(name, "_") == 0) {
			out->kind = ARG_NONE;
			return 0;
		}
		if (irt_accept(L, ":")) {
			if (irt_parse_type(L, &t) || !(v = declare(L, g, at, name, &t)))
				return DIAG_INPUT;
			v->def = n;
			out->kind = ref_kind(v);
			out->u.v = v;
			return 0;
		}
		L->p = save;
	}
	return irt_parse_arg(L, NULL, out);
}

/* "torch.ops." + op, except for Python operators (_operator.mul, math.*). */
static const char *
full_target(Arena *a, const char *op)
{
	if (strncmp(op, "_operator.", 10) == 0 || strncmp(op, "math.", 5) == 0 ||
	    strncmp(op, "builtins.", 9) == 0 || strncmp(op, "torch.", 6) == 0)
		return op;
	return arena_printf(a, "torch.ops.%s", op);
}

/* torch's name for a node without a value: "aten._assert_scalar.default" ->
 * "_assert_scalar_default", then _1, _2 ... as torch numbers repeats. */
static const char *
node_name(Lex *L, Graph *g, StrMap *used, const Node *n)
{
	const Arg *o = n->nout ? &n->out[0] : NULL;
	char *s;
	const char *name;

	if (o && o->kind != ARG_NONE && o->kind >= 0 && (o->kind == ARG_TENSOR || o->kind == ARG_SYM_INT ||
	                                                  o->kind == ARG_SYM_BOOL || o->kind == ARG_SYM_FLOAT))
		return o->u.v->name;
	if (o && (o->kind == ARG_TENSORS || o->kind == ARG_OPT_TENSORS) && o->n && o->u.list[0].kind == ARG_TENSOR)
		return o->u.list[0].u.v->name;
	s = arena_strdup(L->a, strncmp(n->op, "aten.", 5) == 0 ? n->op + 5 : n->op);
	for (char *q = s; *q; q++)
		if (*q == '.')
			*q = '_';
	name = s;
	for (int k = 1; strmap_get(used, name) || strmap_get(g->index, name); k++)
		name = arena_printf(L->a, "%s_%d", s, k);
	strmap_put(used, name, (void *)name);
	return name;
}

static int
parse_node(Lex *L, Graph *g, StrMap *used, Node *n)
{
	const char *at;
	Arg o;

	n->graph = g;
	n->id = g->nnode;
	n->out = ARENA_ARRAY(L->a, Arg, 1);
	for (;;) {
		if (parse_out(L, g, n, &o))
			return DIAG_INPUT;
		PUSH(L->a, n->out, n->nout, o);
		if (irt_accept(L, "="))
			break;
		if (irt_expect(L, ",", "or '=' after an output"))
			return DIAG_INPUT;
	}
	if (n->nout == 1 && n->out[0].kind == ARG_NONE)
		n->nout = 0;   /* "_ = op(...)": a node without outputs */
	irt_skip_ws(L);
	at = L->p;
	if (!(n->op = irt_ident(L, 1)))
		return irt_err(L, at, "expected the node's target (aten.add.Tensor, ...)");
	n->target = full_target(L->a, n->op);
	if (irt_expect(L, "(", "after the target"))
		return DIAG_INPUT;
	n->in = ARENA_ARRAY(L->a, NamedArg, 1);
	if (!irt_accept(L, ")")) {
		for (;;) {
			NamedArg na = {.name = "", .kind = 1};
			const char *save = L->p, *name = irt_ident(L, 0);
			if (name && L->p < L->eol && *L->p == '=' && (L->p + 1 >= L->eol || L->p[1] != '=')) {
				L->p++;
				na.name = name;
				na.kind = 2;
			} else {
				L->p = save;
			}
			if (irt_parse_arg(L, g, &na.arg))
				return DIAG_INPUT;
			PUSH(L->a, n->in, n->nin, na);
			if (irt_accept(L, ")"))
				break;
			if (irt_expect(L, ",", "or ')' between arguments"))
				return DIAG_INPUT;
		}
	}
	if (irt_accept(L, "@")) {   /* the node's own name (IR_PRINT_NAMES) */
		if (!(n->name = irt_ident(L, 0)))
			return irt_err(L, L->p, "expected the node's name after '@'");
	}
	if (irt_accept(L, "#")) {
		irt_skip_ws(L);
		const char *e = L->eol;
		while (e > L->p && e[-1] == '\r')
			e--;
		n->frame = arena_strndup(L->a, L->p, (size_t)(e - L->p));
		L->p = L->eol;
	}
	if (!irt_at_line_end(L))
		return irt_err(L, L->p, "unexpected text after the node's arguments");
	if (n->name)
		strmap_put(used, n->name, (void *)n->name);
	else
		n->name = node_name(L, g, used, n);
	return 0;
}

/* "NAME(decl, ...) {" after "graph": declares g's inputs. */
int
irt_parse_graph_head(Lex *L, Graph *g)
{
	const char *at;

	g->index = strmap_new(L->a, 64);
	g->inputs = ARENA_ARRAY(L->a, Arg, 1);
	g->nodes = ARENA_ARRAY(L->a, Node *, 1);
	g->outputs = ARENA_ARRAY(L->a, Arg, 1);
	if (irt_expect(L, "(", "after the graph's name"))
		return DIAG_INPUT;
	if (!irt_accept(L, ")")) {
		for (;;) {
			Arg in;
			const char *save;
			irt_skip_ws(L);
			at = save = L->p;
			const char *name = irt_ident(L, 0);
			Value t = {0}, *v;
			if (name && irt_accept(L, ":")) {
				if (irt_parse_type(L, &t) || !(v = declare(L, g, at, name, &t)))
					return DIAG_INPUT;
				in = (Arg){.kind = ref_kind(v), .u.v = v};
			} else {
				L->p = save;
				if (irt_parse_arg(L, NULL, &in))
					return DIAG_INPUT;
			}
			PUSH(L->a, g->inputs, g->ninput, in);
			if (irt_accept(L, ")"))
				break;
			if (irt_expect(L, ",", "or ')' between graph inputs"))
				return DIAG_INPUT;
		}
	}
	if (irt_expect(L, "{", "opening the graph's body") || !irt_at_line_end(L))
		return L->d->code ? DIAG_INPUT : irt_err(L, L->p, "unexpected text after '{'");
	return 0;
}

/* 1 when the line (after its indent) is "graph NAME(": a subgraph block. */
static int
line_is_graph(Lex *L)
{
	const char *save = L->p;
	int yes = irt_accept(L, "graph ") && irt_ident(L, 0) && L->p < L->eol && *L->p == '(';

	L->p = save;
	return yes;
}

/* The subgraph block for the node n: its graph: argument of that name. */
static int
parse_subgraph(Lex *L, Graph *g, Node *n)
{
	const char *at, *name;
	Graph *sub = NULL;

	irt_accept(L, "graph ");
	irt_skip_ws(L);
	at = L->p;
	name = irt_ident(L, 0);
	for (int i = 0; n && i < n->nin && !sub; i++)
		if (n->in[i].arg.kind == ARG_GRAPH && !n->in[i].arg.u.g->index &&
		    strcmp(n->in[i].arg.u.g->name, name) == 0)
			sub = n->in[i].arg.u.g;
	if (!sub)
		return irt_err(L, at, "graph '%s' follows a node that has no argument graph:%s", name, name);
	if (L->depth >= MAX_DEPTH)
		return irt_err(L, at, "subgraphs nested more than %d deep", MAX_DEPTH);
	sub->parent = g;
	L->depth++;
	if (irt_parse_graph_head(L, sub) || irt_parse_graph_body(L, sub))
		return DIAG_INPUT;
	L->depth--;
	return 0;
}

/* The node lines, subgraph blocks and "return (...)" up to "}". */
int
irt_parse_graph_body(Lex *L, Graph *g)
{
	StrMap *used = strmap_new(L->a, 16);
	Node *last = NULL;
	int returned = 0;

	for (;;) {
		irt_next_line(L);
		if (!irt_skip_empty_lines(L))
			return irt_err(L, L->p, "graph '%s' is not closed with '}'", g->name[0] ? g->name : "main");
		irt_skip_ws(L);
		if (irt_accept(L, "}")) {
			if (!irt_at_line_end(L))
				return irt_err(L, L->p, "unexpected text after '}'");
			if (!returned)
				return irt_err(L, L->bol, "graph '%s' ends without 'return (...)'", g->name[0] ? g->name : "main");
			for (int i = 0; i < g->nnode; i++)
				for (int k = 0; k < g->nodes[i]->nin; k++)
					if (g->nodes[i]->in[k].arg.kind == ARG_GRAPH && !g->nodes[i]->in[k].arg.u.g->index) {
						L->p = L->bol;
						return irt_err(L, L->bol, "node '%s' names graph:%s but no such graph block follows it",
						           g->nodes[i]->name, g->nodes[i]->in[k].arg.u.g->name);
					}
			return 0;
		}
		if (returned)
			return irt_err(L, L->p, "text after 'return (...)': expected '}'");
		if (line_is_graph(L)) {
			if (parse_subgraph(L, g, last))
				return DIAG_INPUT;
			continue;
		}
		if (irt_accept(L, "return (")) {
			if (!irt_accept(L, ")")) {
				for (;;) {
					Arg o;
					if (irt_parse_arg(L, g, &o))
						return DIAG_INPUT;
					PUSH(L->a, g->outputs, g->noutput, o);
					if (irt_accept(L, ")"))
						break;
					if (irt_expect(L, ",", "or ')' between returned values"))
						return DIAG_INPUT;
				}
			}
			if (!irt_at_line_end(L))
				return irt_err(L, L->p, "unexpected text after 'return (...)'");
			returned = 1;
			continue;
		}
		last = ARENA_NEW(L->a, Node);
		if (parse_node(L, g, used, last))
			return DIAG_INPUT;
		PUSH(L->a, g->nodes, g->nnode, last);
	}
}
