/* dimname.c: symbol -> name, assigned in a fixed order (requests, then user
 * inputs in forward order, then every other symbol as first met in the
 * graph), so the names are deterministic. */
#include "ir/ir.h"

#include <stdio.h>
#include <string.h>

#include "core/core.h"

struct DimNames {
	Arena *a;
	StrMap *name;       /* symbol -> name */
	StrMap *taken;      /* name -> symbol, to keep names unique */
	int nfree, nunbacked;
};

/* Gives sym the name nm unless it has one; keeps names unique by suffixing. */
static void
assign(DimNames *dn, const char *sym, const char *nm)
{
	const char *base = nm;

	if (strmap_get(dn->name, sym))
		return;
	for (int k = 2; strmap_get(dn->taken, nm); k++)
		nm = arena_printf(dn->a, "%s_%d", base, k);
	strmap_put(dn->name, sym, (void *)nm);
	strmap_put(dn->taken, nm, (void *)sym);
}

/* Every symbol of e, named by the fallback rules when not yet named. */
static void
assign_rest(DimNames *dn, const SymExpr *e, int depth)
{
	if (!e || depth > SYM_MAX_DEPTH)
		return;
	if (e->op == SYM_SYMBOL && !strmap_get(dn->name, e->name)) {
		if (e->name[0] == 'u')
			assign(dn, e->name, arena_printf(dn->a, "unbacked_%d", dn->nunbacked++));
		else
			assign(dn, e->name, arena_printf(dn->a, "dim_%d", dn->nfree++));
	}
	for (int i = 0; i < e->n; i++)
		assign_rest(dn, e->args[i], depth + 1);
}

static void
assign_graph(DimNames *dn, const Graph *g)
{
	for (int i = 0; i < g->nvalue; i++) {
		const Value *v = g->values[i];
		if (v->kind == VAL_TENSOR)
			for (int k = 0; k < v->rank; k++)
				assign_rest(dn, v->dims[k].e, 0);
		else
			assign_rest(dn, v->expr, 0);
	}
	for (int i = 0; i < g->nnode; i++)
		for (int k = 0; k < g->nodes[i]->nin; k++)
			if (g->nodes[i]->in[k].arg.kind == ARG_GRAPH)
				assign_graph(dn, g->nodes[i]->in[k].arg.u.g);
}

static const Value *
user_input(const Program *p, const char *name)
{
	for (int i = 0; i < p->ninput_spec; i++) {
		const Arg *g = p->input_specs[i].arg;
		if (p->input_specs[i].kind == IN_USER_INPUT && g->kind == ARG_TENSOR &&
		    strcmp(g->u.v->name, name) == 0)
			return g->u.v;
	}
	return NULL;
}

DimNames *
dimnames_build(const Program *p, const DimRequest *req, int nreq, const char *label, Arena *a, Diag *d)
{
	DimNames *dn = ARENA_NEW(a, DimNames);

	dn->a = a;
	dn->name = strmap_new(a, 16);
	dn->taken = strmap_new(a, 16);
	for (int i = 0; i < nreq; i++) {
		const DimRequest *r = &req[i];
		const Value *v = user_input(p, r->input);
		const char *had;
		if (!v)
			return diag_report(d, YE_DIM_UNKNOWN_INPUT, &(DiagAt){.file = label, .line = r->line, .column = r->col},
				"dynamic_dimensions: no tensor input named '%s'", r->input), NULL;
		if (r->axis < 0 || r->axis >= v->rank)
			return diag_report(d, YE_DIM_BAD_AXIS, &(DiagAt){.file = label, .line = r->line, .column = r->col},
				"dynamic_dimensions: input '%s' has %d axes, not axis %d", r->input, v->rank, r->axis), NULL;
		if (!v->dims[r->axis].e || v->dims[r->axis].e->op != SYM_SYMBOL)
			return diag_report(d, YE_DIM_NOT_DYNAMIC, &(DiagAt){.file = label, .line = r->line, .column = r->col},
				"dynamic_dimensions: axis %d of '%s' is %s, not a dynamic dimension of its own", r->axis, r->input,
			                  v->dims[r->axis].e ? sym_print(a, v->dims[r->axis].e)
			                                     : arena_printf(a, "static (%lld)", (long long)v->dims[r->axis].v)), NULL;
		had = strmap_get(dn->name, v->dims[r->axis].e->name);
		if (had && strcmp(had, r->name) != 0)
			return diag_report(d, YE_DIM_NAMED_TWICE, &(DiagAt){.file = label, .line = r->line, .column = r->col},
				"dynamic_dimensions: axis %d of '%s' is the same dimension as one already named '%s'", r->axis, r->input, had), NULL;
		if (!had && strmap_get(dn->taken, r->name))
			return diag_report(d, YE_DIM_NAME_TAKEN, &(DiagAt){.file = label, .line = r->line, .column = r->col},
				"dynamic_dimensions: two different dimensions are both named '%s'", r->name), NULL;
		assign(dn, v->dims[r->axis].e->name, r->name);
	}
	for (int i = 0; i < p->ninput_spec; i++) {
		const Arg *g = p->input_specs[i].arg;
		if (p->input_specs[i].kind != IN_USER_INPUT || g->kind != ARG_TENSOR)
			continue;
		for (int k = 0; k < g->u.v->rank; k++) {
			const SymExpr *e = g->u.v->dims[k].e;
			if (e && e->op == SYM_SYMBOL)
				assign(dn, e->name, arena_printf(a, "%s_dim_%d", g->u.v->name, k));
		}
	}
	assign_graph(dn, p->graph);
	return dn;
}

const char *
dimnames_symbol(const DimNames *dn, const char *symbol)
{
	const char *n = strmap_get(dn->name, symbol);

	return n ? n : symbol;
}

static SymExpr *
renamed(const DimNames *dn, const SymExpr *e, int depth)
{
	SymExpr *c = arena_dup(dn->a, e, sizeof *e);

	if (depth > SYM_MAX_DEPTH)
		return c;
	if (e->op == SYM_SYMBOL)
		c->name = dimnames_symbol(dn, e->name);
	if (e->n) {
		c->args = ARENA_ARRAY(dn->a, SymExpr *, e->n);
		for (int i = 0; i < e->n; i++)
			c->args[i] = renamed(dn, e->args[i], depth + 1);
	}
	return c;
}

const char *
dimnames_expr(const DimNames *dn, const SymExpr *e)
{
	return sym_print(dn->a, renamed(dn, e, 0));
}
