/* ir.c: small queries and edits on the IR shared by every stage. */
#include "ir/ir.h"

#include <string.h>

#include "core/core.h"

const char *const arg_kind_key[ARG_KIND_COUNT] = {
#define X(e, key) [e] = key,
#include "arg.def"
#undef X
};

Value *
ir_lookup(const Graph *g, const char *name)
{
	for (; g; g = g->parent) {
		Value *v = strmap_get(g->index, name);
		if (v)
			return v;
	}
	return NULL;
}

const Arg *
ir_arg(const Node *n, const char *name)
{
	for (int i = 0; i < n->nin; i++)
		if (strcmp(n->in[i].name, name) == 0)
			return &n->in[i].arg;
	return NULL;
}

const char *
ir_meta(const Node *n, const char *key)
{
	for (int i = 0; i < n->nmeta; i++)
		if (strcmp(n->meta[i].key, key) == 0)
			return n->meta[i].val;
	return NULL;
}

int
ir_module_stack(Arena *a, const Node *n, IrModule **out)
{
	const char *s = n->nn_module_stack, *p;
	int k = 0, cap = 1;

	*out = NULL;
	if (!s || !*s)
		return 0;
	for (p = s; *p; p++)
		cap += *p == ';';
	*out = ARENA_ARRAY(a, IrModule, cap);
	for (p = s; *p;) {
		const char *end = strchr(p, ';'), *c1, *c2;
		size_t len;
		if (!end)
			end = p + strlen(p);
		len = (size_t)(end - p);
		c1 = memchr(p, ',', len);
		c2 = c1 ? c1 : NULL;
		for (const char *q = c1 ? c1 + 1 : NULL; q && q < end; q++)
			if (*q == ',')
				c2 = q;     /* the class is after the last comma: a path may hold commas */
		if (c1 && c2 > c1) {
			IrModule *m = &(*out)[k++];
			m->key = arena_strndup(a, p, (size_t)(c1 - p));
			m->path = arena_strndup(a, c1 + 1, (size_t)(c2 - c1 - 1));
			m->cls = arena_strndup(a, c2 + 1, (size_t)(end - c2 - 1));
		}
		p = *end ? end + 1 : end;
	}
	return k;
}

const char *
ir_op(const Node *n)
{
	return n->op;
}

const char *
ir_graph_path(Arena *a, const Graph *g)
{
	if (!g)
		return NULL;
	if (!g->parent)
		return "main_graph";
	return arena_printf(a, "%s/%s", ir_graph_path(a, g->parent), g->name);
}

Value *
ir_new_value(Arena *a, Graph *g, const char *name, ValueKind kind)
{
	Value *v = ARENA_NEW(a, Value);

	v->name = name;
	v->kind = kind;
	v->graph = g;
	v->id = g->nvalue;
	if (g->nvalue == 0 || (g->nvalue >= 8 && (g->nvalue & (g->nvalue - 1)) == 0)) {
		/* capacity: 8, then doubling whenever the count reaches a power of two */
		Value **nv = ARENA_ARRAY(a, Value *, g->nvalue ? g->nvalue * 2 : 8);
		if (g->nvalue)
			memcpy(nv, g->values, sizeof *nv * (size_t)g->nvalue);
		g->values = nv;
	}
	g->values[g->nvalue++] = v;
	strmap_put(g->index, name, v);
	return v;
}
