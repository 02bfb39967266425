/* functional.c: functionalization, the aliases behind in-place ops and views.
 *
 * Each IR tensor has an Alias (lower.h): a base owns its storage, a view
 * remembers its parent and the view node.  Writing into an alias lowers the
 * view chain backwards to rebuild the base; reading a view whose base was
 * written since lowers the view forwards again.  Only this file knows how;
 * everything else asks lower_value() for a value's current ONNX name. */
#include "lower/lower.h"

#include <string.h>

#include "core/core.h"
#include "internal.h"

/* ---- aliases ---- */

Alias *
lower_alias_new(LowerCtx *c, Alias *parent, const Node *view, const OpRow *row, const char *name)
{
	Alias *al = ARENA_NEW(c->a, Alias);

	al->parent = parent;
	al->view = view;
	al->row = row;
	al->name = name;
	return al;
}

Alias *
lower_alias_base(Alias *al)
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
	Alias *base = lower_alias_base(al);
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
int
lower_alias_write(LowerCtx *c, Alias *al, const char *name)
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
	if (!(pnew = run_view(c, al->view, al->row, name)) || lower_alias_write(c, al->parent, pnew))
		return DIAG_CONVERT;
	al->name = name;
	al->version = lower_alias_base(al)->version;
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
		diag_report(c->d, YE_LOWERING_FAILED, &(DiagAt){.file = c->prog->path},
		            "value '%s' has no ONNX value", v->name);
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
	return lower_alias_write(c, c->alias[v->id], contents);
}
