/* legal.c: does every node of a graph take element types its operator
 * allows?
 *
 * The rows of optypes.def (generated from onnx's schemas and onnxruntime's
 * CPU kernel list) give, per operator version, the element types of each
 * formal input and output: the ones the schema allows and the ones
 * onnxruntime's CPU provider has a kernel for.  A node is legal when each
 * of its values' element types is in its formal's schema set (and, for the
 * default target, in its CPU set), and the formals of one type parameter
 * agree.  A model that breaks this fails to load in onnxruntime, or is not
 * ONNX: the pipeline runs onnx_model_legal() on every model before writing
 * it (a violation is the converter's bug, reported by node), the optimizer
 * runs onnx_node_legal() after each rewrite in its checked mode.
 * Operators the table does not know (custom domains, local functions) and
 * values whose element type is unknown or has no dtype.def name (string)
 * are not checked. */
#include "onnx/onnx.h"

#include <stdint.h>
#include <string.h>

#include "core/core.h"

enum { SINGLE, OPTIONAL, VARIADIC, VARIADIC_MIXED };

typedef struct TypeRow {
	const char *domain, *op;
	int since;
	unsigned char out;      /* 1: an output */
	unsigned char index;    /* formal position */
	unsigned char option;   /* SINGLE ... VARIADIC_MIXED */
	unsigned char param;    /* type parameter number, 0: fixed */
	uint64_t schema, cpu;   /* bit ONNX_x: allowed */
} TypeRow;

#define E(x) (UINT64_C(1) << ONNX_##x)
#define NONE UINT64_C(0)
#define ANY (~UINT64_C(0))
#define IN 0
#define OUT 1
static const TypeRow rows[] = {
#define TY(dom, op, since, dir, index, option, param, schema, cpu) \
	{dom, op, since, dir, index, option, param, schema, (cpu) & (schema)},
#include "onnx/optypes.def"
#undef TY
};
#undef E
#undef NONE
#undef ANY
#undef IN
#undef OUT

enum { NROWS = (int)(sizeof rows / sizeof rows[0]) };

static int
key_cmp(const char *dom, const char *op, const TypeRow *r)
{
	int c = strcmp(dom, r->domain);

	return c ? c : strcmp(op, r->op);
}

/* The first row of the version of domain:op in force at opset, and how
 * many rows it has; 0 when the table does not know the op (or the opset
 * precedes its first version). */
static int
version_rows(const char *domain, const char *op, int opset, const TypeRow **first)
{
	int lo = 0, hi = NROWS - 1, at = -1, since = -1, n = 0;

	if (!domain || strcmp(domain, "ai.onnx") == 0)
		domain = "";
	while (lo <= hi) {   /* the first row of domain:op */
		int mid = (lo + hi) / 2, c = key_cmp(domain, op, &rows[mid]);
		if (c <= 0) {
			if (c == 0)
				at = mid;
			hi = mid - 1;
		} else {
			lo = mid + 1;
		}
	}
	if (at < 0)
		return 0;
	for (int i = at; i < NROWS && key_cmp(domain, op, &rows[i]) == 0; i++)
		if (rows[i].since <= opset && rows[i].since > since)
			since = rows[i].since;
	for (int i = at; i < NROWS && key_cmp(domain, op, &rows[i]) == 0; i++)
		if (rows[i].since == since) {
			if (!n)
				*first = &rows[i];
			n++;
		}
	return n;
}

/* The row of the formal value k (input or output) binds to, or NULL. */
static const TypeRow *
formal(const TypeRow *r, int n, int out, int k)
{
	const TypeRow *last = NULL;

	for (int i = 0; i < n; i++) {
		if (r[i].out != out)
			continue;
		if (r[i].index == k)
			return &r[i];
		last = &r[i];
	}
	return last && (last->option == VARIADIC || last->option == VARIADIC_MIXED) ? last : NULL;
}

static int
nameable(int elem)
{
	return elem > 0 && elem < 64 && dtype_from_onnx(elem) != DT_UNKNOWN;
}

static const char *
elem_name(int elem)
{
	return dtype_name(dtype_from_onnx(elem));
}

int
onnx_node_legal(const char *domain, const char *op, int opset, int cpu, int nin, const int *in, int nout,
                const int *out, OnnxIllegal *why)
{
	const TypeRow *r = NULL;
	int n = version_rows(domain, op, opset, &r);
	int bound[32] = {0}, where[32];   /* by type parameter: its element type, and which value set it */

	if (!n)
		return -1;
	for (int side = 0; side < 2; side++) {
		int nv = side ? nout : nin;
		const int *ev = side ? out : in;
		for (int k = 0; k < nv; k++) {
			const TypeRow *f = formal(r, n, side, k);
			int e = ev[k];
			if (!f || !nameable(e))
				continue;
			*why = (OnnxIllegal){0, side, k, e, -1, r->since};
			if (!(f->schema & (UINT64_C(1) << e)))
				return why->what = ONNX_ILLEGAL_SCHEMA, 1;
			if (cpu && !(f->cpu & (UINT64_C(1) << e)))
				return why->what = ONNX_ILLEGAL_CPU, 1;
			if (!f->param || f->option == VARIADIC_MIXED || f->param >= 32)
				continue;
			if (bound[f->param] && bound[f->param] != e) {
				why->other = where[f->param];
				return why->what = ONNX_ILLEGAL_MIXED, 1;
			}
			bound[f->param] = e;
			where[f->param] = side ? 1000 + k : k;
		}
	}
	return 0;
}

const char *
onnx_illegal_text(Arena *a, const char *op, const OnnxIllegal *w)
{
	const char *side = w->output ? "output" : "input";

	switch (w->what) {
	case ONNX_ILLEGAL_SCHEMA:
		return arena_printf(a, "%s-%d does not take %s for %s %d (its ONNX schema)", op, w->since,
		                    elem_name(w->elem), side, w->index);
	case ONNX_ILLEGAL_CPU:
		return arena_printf(a, "%s-%d on %s (%s %d) has no onnxruntime CPU kernel", op, w->since,
		                    elem_name(w->elem), side, w->index);
	default:
		return arena_printf(a, "%s-%d: %s %d is %s, unlike %s %d of the same type parameter", op, w->since,
		                    side, w->index, elem_name(w->elem), w->other >= 1000 ? "output" : "input",
		                    w->other >= 1000 ? w->other - 1000 : w->other);
	}
}

/* ---- a whole model ---- */

typedef struct Scope {
	StrMap *elem;           /* name -> element type + 1 */
	const struct Scope *up;
} Scope;

typedef struct Walk {
	Arena *a;
	Diag *d;
	const char *label;
	int cpu;
	const OnnxOrigin *origin;
	const Onnx__ModelProto *m;
	int bad;
} Walk;

static void
put_vi(StrMap *s, const Onnx__ValueInfoProto *v)
{
	if (v && v->name && v->type && v->type->tensor_type && v->type->tensor_type->elem_type)
		strmap_put(s, v->name, (void *)(intptr_t)(v->type->tensor_type->elem_type + 1));
}

static int
elem_of(const Scope *s, const char *name)
{
	for (; s; s = s->up) {
		intptr_t e = (intptr_t)strmap_get(s->elem, name);
		if (e)
			return (int)e - 1;
	}
	return 0;
}

static int
opset_of(const Onnx__ModelProto *m, const char *domain)
{
	if (!domain || !strcmp(domain, "ai.onnx"))
		domain = "";
	for (size_t i = 0; i < m->n_opset_import; i++) {
		const char *d = m->opset_import[i]->domain ? m->opset_import[i]->domain : "";
		if (!strcmp(d, "ai.onnx") ? !*domain : !strcmp(d, domain))
			return (int)m->opset_import[i]->version;
	}
	return 0;
}

static void walk_graph(Walk *w, const Onnx__GraphProto *g, const Scope *up);

static void
check_node(Walk *w, const Onnx__GraphProto *g, const OnnxNode *n, const Scope *s)
{
	int in[64], out[64], nin = (int)(n->n_input < 64 ? n->n_input : 64);
	int nout = (int)(n->n_output < 64 ? n->n_output : 64);
	OnnxIllegal why;
	DiagAt at;

	for (int k = 0; k < nin; k++)
		in[k] = *n->input[k] ? elem_of(s, n->input[k]) : 0;
	for (int k = 0; k < nout; k++)
		out[k] = *n->output[k] ? elem_of(s, n->output[k]) : 0;
	if (onnx_node_legal(n->domain, n->op_type, opset_of(w->m, n->domain), w->cpu, nin, in, nout, out, &why) != 1)
		return;
	at = (DiagAt){.file = w->label, .graph = g->name, .node = n->name, .target = n->op_type};
	if (w->origin && w->origin->fn)
		w->origin->fn(w->origin->ctx, n, &at);
	diag_report(w->d, YE_ILLEGAL_NODE, &at, "ONNX node '%s': %s", n->name ? n->name : "",
	            onnx_illegal_text(w->a, n->op_type, &why));
	w->bad++;
}

static void
walk_graph(Walk *w, const Onnx__GraphProto *g, const Scope *up)
{
	Scope s = {strmap_new(w->a, 64), up};

	for (size_t i = 0; i < g->n_input; i++)
		put_vi(s.elem, g->input[i]);
	for (size_t i = 0; i < g->n_output; i++)
		put_vi(s.elem, g->output[i]);
	for (size_t i = 0; i < g->n_value_info; i++)
		put_vi(s.elem, g->value_info[i]);
	for (size_t i = 0; i < g->n_initializer; i++)
		if (g->initializer[i]->data_type)
			strmap_put(s.elem, g->initializer[i]->name, (void *)(intptr_t)(g->initializer[i]->data_type + 1));
	for (size_t i = 0; i < g->n_node; i++) {
		const OnnxNode *n = g->node[i];
		check_node(w, g, n, &s);
		for (size_t k = 0; k < n->n_attribute; k++) {
			const Onnx__AttributeProto *at = n->attribute[k];
			if (at->g)
				walk_graph(w, at->g, &s);
			for (size_t j = 0; j < at->n_graphs; j++)
				walk_graph(w, at->graphs[j], &s);
		}
	}
}

int
onnx_model_legal(const Onnx__ModelProto *m, int cpu, Arena *a, const char *label, const OnnxOrigin *origin,
                 Diag *d)
{
	Walk w = {a, d, label, cpu, origin, m, 0};

	if (m && m->graph)
		walk_graph(&w, m->graph, NULL);
	return w.bad ? DIAG_CONVERT : 0;
}
