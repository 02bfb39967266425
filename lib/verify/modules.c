/* modules.c: a bundle's recorded module outputs, mapped to ONNX values.
 *
 * The capture helper's forward hooks record each submodule call's outputs
 * in the order the calls end (docs/capture.md, "modules").  In the
 * exported program every node carries nn_module_stack, the calls it was
 * traced in (torch's key, unique per call, the module's path, its class).
 * A call's outputs are then the values its nodes compute that a node
 * outside it reads, or that the graph returns; in graph order they pair
 * with the recorded outputs when there are as many.  Lowering names each
 * ONNX value after the IR value it computes, so a value the optimizer kept
 * is found by name; one it removed or fused leaves that call unmapped.
 * The k-th recorded call of a path is the k-th call of that path in graph
 * order (a module called twice has keys "...", "...@1").
 * Only the main graph is read: nodes inside cond/while bodies are their
 * HOP node's. */
#include "verify/internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct Call {
	const char *key, *path, *cls, *frame;
	int n, cap;
	const Value **out;      /* values leaving the call, deduplicated */
} Call;

typedef struct Calls {
	Arena *a;
	StrMap *by_key;         /* key -> index + 1 */
	int n, cap;
	Call *v;
} Calls;

/* "L['self'].layer1[0]" -> "layer1.0"; "layer1.0" as it is. */
static const char *
norm_path(Arena *a, const char *p)
{
	char *s, *o;

	if (strncmp(p, "L['self']", 9) == 0)
		p += 9 + (p[9] == '.');
	o = s = arena_strdup(a, p);
	for (; *p; p++) {
		if (*p == '[')
			*o++ = '.';
		else if (*p != ']' && *p != '\'')
			*o++ = *p;
	}
	*o = 0;
	return s;
}

static Call *
call_of(Calls *cs, const IrModule *m)
{
	intptr_t k = (intptr_t)strmap_get(cs->by_key, m->key);
	Call *c;

	if (k)
		return &cs->v[k - 1];
	if (cs->n == cs->cap) {
		Call *nv = ARENA_ARRAY(cs->a, Call, cs->cap ? cs->cap * 2 : 16);
		if (cs->n)
			memcpy(nv, cs->v, sizeof *nv * (size_t)cs->n);
		cs->v = nv;
		cs->cap = cs->cap ? cs->cap * 2 : 16;
	}
	c = &cs->v[cs->n++];
	memset(c, 0, sizeof *c);
	c->key = m->key;
	c->path = norm_path(cs->a, m->path);
	c->cls = m->cls;
	strmap_put(cs->by_key, m->key, (void *)(intptr_t)cs->n);
	return c;
}

static void
add_out(Calls *cs, Call *c, const Value *v)
{
	for (int i = 0; i < c->n; i++)
		if (c->out[i] == v)
			return;
	if (c->n == c->cap) {
		const Value **nv = ARENA_ARRAY(cs->a, const Value *, c->cap ? c->cap * 2 : 4);
		if (c->n)
			memcpy(nv, c->out, sizeof *nv * (size_t)c->n);
		c->out = nv;
		c->cap = c->cap ? c->cap * 2 : 4;
	}
	c->out[c->n++] = v;
}

static int
in_stack(const IrModule *st, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (strcmp(st[i].key, key) == 0)
			return 1;
	return 0;
}

/* v, read by a node of stack (st, nst) (NULL: the graph's output), leaves
 * every call of its defining node that is not in that stack. */
static void
leaves(Calls *cs, IrModule **stacks, int *nstack, const Value *v, const IrModule *st, int nst)
{
	const Node *def = v ? v->def : NULL;

	if (!def || v->kind != VAL_TENSOR)
		return;
	for (int i = 0; i < nstack[def->id]; i++) {
		const IrModule *m = &stacks[def->id][i];
		if (*m->path && !in_stack(st, nst, m->key))
			add_out(cs, call_of(cs, m), v);
	}
}

static void
each_value(Calls *cs, IrModule **stacks, int *nstack, const Arg *arg, const IrModule *st, int nst)
{
	if (arg->kind == ARG_TENSOR || arg->kind == ARG_OPT_TENSOR)
		leaves(cs, stacks, nstack, arg->u.v, st, nst);
	else if (arg->kind == ARG_TENSORS || arg->kind == ARG_OPT_TENSORS)
		for (int i = 0; i < arg->n; i++)
			each_value(cs, stacks, nstack, &arg->u.list[i], st, nst);
}

static int
cmp_value(const void *x, const void *y)
{
	const Value *a = *(const Value *const *)x, *b = *(const Value *const *)y;

	if (a->def->id != b->def->id)
		return a->def->id < b->def->id ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

/* Every call of the main graph, in the order of its first node, with the
 * values leaving it. */
static void
find_calls(Calls *cs, const Graph *g)
{
	IrModule **stacks = ARENA_ARRAY(cs->a, IrModule *, g->nnode + 1);
	int *nstack = ARENA_ARRAY(cs->a, int, g->nnode + 1);

	for (int i = 0; i < g->nnode; i++) {
		const Node *n = g->nodes[i];
		nstack[i] = ir_module_stack(cs->a, n, &stacks[i]);
		for (int k = 0; k < nstack[i]; k++) {
			Call *c = call_of(cs, &stacks[i][k]);
			if (!c->frame)
				c->frame = n->frame;
		}
	}
	for (int i = 0; i < g->nnode; i++)
		for (int j = 0; j < g->nodes[i]->nin; j++)
			each_value(cs, stacks, nstack, &g->nodes[i]->in[j].arg, stacks[i], nstack[i]);
	for (int i = 0; i < g->noutput; i++)
		each_value(cs, stacks, nstack, &g->outputs[i], NULL, 0);
	for (int i = 0; i < cs->n; i++)
		if (cs->v[i].n > 1)
			qsort(cs->v[i].out, (size_t)cs->v[i].n, sizeof *cs->v[i].out, cmp_value);
}

/* The names the ONNX graph computes (node outputs), but not its inputs or
 * initializers: those need no run. */
static StrMap *
computed_names(Arena *a, const Onnx__GraphProto *g)
{
	StrMap *m = strmap_new(a, 2 * g->n_node + 16);

	for (size_t i = 0; i < g->n_node; i++)
		for (size_t k = 0; k < g->node[i]->n_output; k++)
			if (*g->node[i]->output[k])
				strmap_put(m, g->node[i]->output[k], (void *)1);
	return m;
}

/* The short class name: "torch.nn.modules.conv.Conv2d" -> "Conv2d". */
static const char *
short_class(const char *cls)
{
	const char *dot = cls ? strrchr(cls, '.') : NULL;

	return dot ? dot + 1 : cls;
}

/* Maps recorded call bm (the nth of its path) onto call c; NULL or why not. */
static const char *
map_one(Arena *a, const BundleModule *bm, const Call *c, StrMap *names, VerifyModule *vm)
{
	if (c->n != bm->noutput)
		return arena_printf(a, "%s: %d value%s leave%s it in the graph, torch recorded %d output%s",
		                    bm->name, c->n, c->n == 1 ? "" : "s", c->n == 1 ? "s" : "", bm->noutput,
		                    bm->noutput == 1 ? "" : "s");
	vm->name = bm->name;
	vm->cls = short_class(bm->cls ? bm->cls : c->cls);
	vm->frame = c->frame;
	vm->nout = bm->noutput;
	vm->out = ARENA_ARRAY(a, VerifyTensor, bm->noutput + 1);
	for (int i = 0; i < bm->noutput; i++) {
		const BundleTensor *t = &bm->outputs[i];
		if (!strmap_get(names, c->out[i]->name))
			return arena_printf(a, "%s: its output '%s' is not a value of the optimized graph", bm->name,
			                    c->out[i]->name);
		vm->out[i] = (VerifyTensor){c->out[i]->name, t->dtype, t->rank, t->shape, t->data, 0};
	}
	return NULL;
}

int
verify_map_modules(Arena *a, const Bundle *b, const Program *prog, const Onnx__ModelProto *m,
                   VerifyModule **out, int *skipped, const char **why)
{
	Calls cs = {a, strmap_new(a, 64), 0, 0, NULL};
	StrMap *names, *seen = strmap_new(a, 64);
	int n = 0;

	*out = ARENA_ARRAY(a, VerifyModule, b->nmodule + 1);
	*skipped = 0;
	*why = NULL;
	if (!b->nmodule)
		return 0;
	if (!prog->graph || !m || !m->graph) {
		*skipped = b->nmodule;
		*why = "the capture converted has no ATen graph (nn_module_stack) to map modules through";
		return 0;
	}
	find_calls(&cs, prog->graph);
	names = computed_names(a, m->graph);
	for (int i = 0; i < b->nmodule; i++) {
		const BundleModule *bm = &b->modules[i];
		intptr_t nth = (intptr_t)strmap_get(seen, bm->name), k = 0;
		const Call *c = NULL;
		const char *e;
		strmap_put(seen, bm->name, (void *)(nth + 1));
		for (int j = 0; j < cs.n && !c; j++)
			if (strcmp(cs.v[j].path, bm->name) == 0 && k++ == nth)
				c = &cs.v[j];
		e = c ? map_one(a, bm, c, names, &(*out)[n])
		      : arena_printf(a, "%s: no node of the graph was traced in it", bm->name);
		if (e) {
			if (!*why)
				*why = e;
			++*skipped;
		} else {
			n++;
		}
	}
	return n;
}
