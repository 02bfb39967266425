/* index.c: building the optimizer's index from a GraphProto (opt_index),
 * writing it back (opt_writeback), and the checker run between passes
 * (opt_verify). */
#include "opt/opt.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "onnx/onnx.h"
#include "internal.h"

/* ---- the index ---- */

/* Marks the values of the outer graph that nodes of g read without
 * defining them (a subgraph reads outer values by name). */
static void
pin_subgraph_refs(Opt *o, const Onnx__GraphProto *g, StrMap *local)
{
	for (size_t i = 0; i < g->n_input; i++)
		strmap_put(local, g->input[i]->name, local);
	for (size_t i = 0; i < g->n_initializer; i++)
		strmap_put(local, g->initializer[i]->name, local);
	for (size_t i = 0; i < g->n_node; i++) {
		const OnnxNode *m = g->node[i];
		for (size_t k = 0; k < m->n_input; k++) {
			intptr_t id;
			if (!*m->input[k] || strmap_get(local, m->input[k]))
				continue;
			if ((id = (intptr_t)strmap_get(o->byname, m->input[k])))
				o->val[id - 1].pinned = 1;
		}
		for (size_t a = 0; a < m->n_attribute; a++) {
			const Onnx__AttributeProto *at = m->attribute[a];
			if (at->g)
				pin_subgraph_refs(o, at->g, local);
			for (size_t j = 0; j < at->n_graphs; j++)
				pin_subgraph_refs(o, at->graphs[j], local);
		}
		for (size_t k = 0; k < m->n_output; k++)
			strmap_put(local, m->output[k], local);
	}
}

/* Marks value v, read but not defined here, as a value of an enclosing
 * graph when one defines it (type and constant bytes come along, so
 * folding sees outer constants).  1 when found. */
static int
outer_ref(Opt *o, int v)
{
	OptValue *x = &o->val[v];

	for (Opt *p = o->parent; p; p = p->parent) {
		intptr_t id = (intptr_t)strmap_get(p->byname, x->name);
		const OptValue *y = id ? &p->val[id - 1] : NULL;
		if (!y || !(y->producer >= 0 || y->init || opt_from_outside(y)))
			continue;
		x->outer = 1;
		x->init = opt_const_tensor(p, (int)id - 1);
		if (y->elem || y->rank >= 0)
			opt_set_type(o, v, y->elem, y->rank, y->dims);
		return 1;
	}
	return 0;
}

static int
has_subgraph(const OnnxNode *m)
{
	for (size_t a = 0; a < m->n_attribute; a++)
		if (m->attribute[a]->g || m->attribute[a]->n_graphs)
			return 1;
	return 0;
}

int
opt_index(Opt *o, const Onnx__GraphProto *g)
{
	size_t nout = 0;

	for (size_t i = 0; i < g->n_node; i++)
		nout += g->node[i]->n_output;
	/* room for the graph's values (the value_info names outputs) and half
	 * as many again for what rewrites add, before regrowing */
	o->capval = (int)(g->n_initializer + g->n_input + g->n_output + nout);
	o->capval += o->capval / 2 + 16;
	o->byname = strmap_new(o->a, (size_t)o->capval);
	o->hits = ARENA_ARRAY(o->a, OptNameHit, OPT_NAME_HITS);
	o->ophits = ARENA_ARRAY(o->a, OptNameHit, OPT_OP_HITS);
	o->head = o->tail = -1;
	o->val = ARENA_ARRAY(o->a, OptValue, o->capval);
	o->capnode = (int)(g->n_node + g->n_node / 2 + 16);
	o->node = ARENA_ARRAY(o->a, OptNode, o->capnode);
	for (size_t i = 0; i < g->n_initializer; i++) {
		OnnxTensor *t = g->initializer[i];
		int v = opt_val_intern(o, t->name);
		onnx_vec_push(o->a, &o->inits, (void *)(intptr_t)v);
		if (v < 0 || o->val[v].init)
			return diag_report(o->d, YE_OPT_GRAPH, NULL,
				"optimizer: initializer '%s' is given twice", t->name);
		o->val[v].init = t;
		opt_type_from_tensor(o, v, t);
	}
	o->ninit_orig = (int)o->inits.n;
	for (size_t i = 0; i < g->n_input; i++) {
		int v = opt_val_intern(o, g->input[i]->name);
		if (v < 0)
			continue;
		o->val[v].is_input = 1;
		opt_type_from_vi(o, v, g->input[i]);
	}
	for (size_t i = 0; i < g->n_value_info; i++) {
		int v = opt_val_intern(o, g->value_info[i]->name);
		onnx_vec_push(o->a, &o->vinfo, g->value_info[i]);
		if (v < 0)
			continue;
		o->val[v].vi = g->value_info[i];
		if (o->val[v].rank < 0 && !o->val[v].elem)
			opt_type_from_vi(o, v, g->value_info[i]);
	}
	for (size_t i = 0; i < g->n_node; i++) {
		OnnxNode *m = g->node[i];
		int n;
		if (!m->name || !*m->name)
			m->name = arena_printf(o->a, "%s_%zu", m->op_type, i);   /* made unique if a rewrite names nodes */
		if ((n = opt_node_index(o, m, -1, NULL)) < 0)
			return diag_report(o->d, YE_OPT_GRAPH, NULL, "optimizer: value '%s' is defined twice",
			                  o->val[-1 - n].name);
		for (int k = 0; k < o->node[n].nin; k++) {  /* nodes come in order: producers are earlier */
			const OptValue *v = o->node[n].in[k] >= 0 ? &o->val[o->node[n].in[k]] : NULL;
			if (v && !v->init && !opt_from_outside(v) && !(v->producer >= 0 && v->producer < n) &&
			    !outer_ref(o, o->node[n].in[k]))
				return diag_report(o->d, YE_OPT_GRAPH, NULL,
					"optimizer: node '%s' reads '%s' before it is "
				                  "defined (the graph is not in topological order)", m->name, m->input[k]);
		}
	}
	for (size_t i = 0; i < g->n_output; i++) {
		int v = opt_val_intern(o, g->output[i]->name);
		if (v >= 0)
			o->val[v].is_output = 1;
	}
	for (size_t i = 0; i < g->n_node; i++)
		if (has_subgraph(g->node[i])) {
			for (size_t a = 0; a < g->node[i]->n_attribute; a++) {
				const Onnx__AttributeProto *at = g->node[i]->attribute[a];
				if (at->g)
					pin_subgraph_refs(o, at->g, strmap_new(o->a, 64));
				for (size_t j = 0; j < at->n_graphs; j++)
					pin_subgraph_refs(o, at->graphs[j], strmap_new(o->a, 64));
			}
		}
	for (int n = o->head; n >= 0; n = o->node[n].next) {
		int typed = 1;          /* the lowering's value_info usually has them all */
		for (int k = 0; k < o->node[n].nout && typed; k++) {
			const OptValue *v = o->node[n].out[k] >= 0 ? &o->val[o->node[n].out[k]] : NULL;
			typed = !v || (v->elem && v->rank >= 0);
		}
		if (!typed)
			opt_infer(o, n);
	}
	return 0;
}

/* Rebuilds the node, initializer and value_info lists of g. */
void
opt_writeback(Opt *o, Onnx__GraphProto *g)
{
	size_t k = 0;

	g->node = ARENA_ARRAY(o->a, OnnxNode *, o->live + 1);
	for (int n = o->head; n >= 0; n = o->node[n].next)
		g->node[k++] = o->node[n].n;
	g->n_node = k;
	g->initializer = ARENA_ARRAY(o->a, OnnxTensor *, o->inits.n + 1);
	k = 0;
	for (size_t i = 0; i < o->inits.n; i++) {
		const OptValue *v = &o->val[(intptr_t)o->inits.v[i]];
		if (v->init && v->name && (o->keep_inits || v->nuse || v->is_output || v->is_input || v->pinned))
			g->initializer[k++] = v->init;
	}
	g->n_initializer = k;
	k = o->vinfo.n;
	for (int n = o->head; n >= 0; n = o->node[n].next)
		k += (size_t)o->node[n].nout;
	g->value_info = ARENA_ARRAY(o->a, Onnx__ValueInfoProto *, k + 1);
	k = 0;
	for (size_t i = 0; i < o->vinfo.n; i++) {
		Onnx__ValueInfoProto *vi = o->vinfo.v[i];
		const OptNameHit *h = opt_hit_slot(o->hits, OPT_NAME_HITS, vi->name);
		intptr_t id = h->name == vi->name && o->val[h->id].name == vi->name ? h->id + 1
		              : (intptr_t)strmap_get(o->byname, vi->name);
		const OptValue *v = id ? &o->val[id - 1] : NULL;
		if (v && v->vi == vi && v->producer >= 0 && !v->is_output)
			g->value_info[k++] = vi;
	}
	/* Every other value a node makes (the steps of a lowering, what the
	 * rewrites add) gets one from its inferred type, in node order, so each
	 * intermediate of the written graph has its dtype and shape. */
	for (int n = o->head; n >= 0; n = o->node[n].next)
		for (int j = 0; j < o->node[n].nout; j++) {
			OptValue *v = o->node[n].out[j] >= 0 ? &o->val[o->node[n].out[j]] : NULL;
			int64_t *dims;
			const char **params;
			if (!v || !v->name || v->vi || v->is_output || !v->elem)
				continue;   /* (rank < 0: the dtype alone, as ONNX allows) */
			dims = ARENA_ARRAY(o->a, int64_t, v->rank + 1);
			params = ARENA_ARRAY(o->a, const char *, v->rank + 1);
			for (int i = 0; i < v->rank; i++) {
				dims[i] = v->dims[i].sym ? -1 : v->dims[i].v;
				params[i] = v->dims[i].sym;
			}
			v->vi = onnx_value_info(o->a, v->name, v->elem, v->rank, dims, params);
			g->value_info[k++] = v->vi;
		}
	g->n_value_info = k;
}

/* ---- the checker ---- */

/* Is node n's element types legal (lib/onnx/legal.c: schema and
 * onnxruntime's CPU kernels)?  1 when not. */
static int
node_illegal(const Opt *o, const OptNode *x, OnnxIllegal *why)
{
	int in[64], out[64], nin = x->nin < 64 ? x->nin : 64, nout = x->nout < 64 ? x->nout : 64;
	const char *dom = x->n->domain;

	for (int k = 0; k < nin; k++)
		in[k] = x->in[k] >= 0 ? o->val[x->in[k]].elem : 0;
	for (int k = 0; k < nout; k++)
		out[k] = x->out[k] >= 0 ? o->val[x->out[k]].elem : 0;
	return onnx_node_legal(dom, x->n->op_type, dom && *dom && strcmp(dom, "ai.onnx") ? 1 : o->opset, 1, nin, in,
	                       nout, out, why) == 1;
}

/* The legality of every node: the graph as indexed may hold illegal nodes
 * (an ONNX input's own, or a lowering's, which the pipeline reports by
 * name); a rewrite must not make one. */
static void
verify_legal(Opt *o, const char *after)
{
	OnnxIllegal why;

	if (!strcmp(after, "indexing")) {
		o->illegal0 = arena_alloc(o->a, (size_t)o->nnode + 1);
		o->nillegal0 = o->nnode;
		memset(o->illegal0, 0, (size_t)o->nnode + 1);
		for (int n = o->head; n >= 0; n = o->node[n].next)
			o->illegal0[n] = (unsigned char)node_illegal(o, &o->node[n], &why);
		return;
	}
	for (int n = o->head; n >= 0; n = o->node[n].next)
		if ((n >= o->nillegal0 || !o->illegal0[n]) && node_illegal(o, &o->node[n], &why))
			die("optimizer, after %s: node '%s': %s", after, o->node[n].n->name,
			    onnx_illegal_text(o->a, o->node[n].n->op_type, &why));
}

void
opt_verify(Opt *o, const char *after)
{
	unsigned char *def = calloc((size_t)o->nval + 1, 1);
	int live = 0, prev = -1;

	if (!def)
		die("out of memory");
	for (int v = 0; v < o->nval; v++)
		def[v] = o->val[v].init || opt_from_outside(&o->val[v]);
	for (int n = o->head; n >= 0; prev = n, n = o->node[n].next) {
		const OptNode *x = &o->node[n];
		live++;
		if (x->dead || x->prev != prev)
			die("optimizer, after %s: node list broken at '%s'", after, x->n->name);
		for (int k = 0; k < x->nin; k++) {
			int v = x->in[k];
			if (v < 0) {
				if (*x->n->input[k])
					die("optimizer, after %s: node '%s' input %d is '%s' but not indexed", after,
					    x->n->name, k, x->n->input[k]);
				continue;
			}
			if (!o->val[v].name || (o->val[v].name != x->n->input[k] && strcmp(o->val[v].name, x->n->input[k]) != 0))
				die("optimizer, after %s: node '%s' input %d names '%s', index says '%s'", after,
				    x->n->name, k, x->n->input[k], o->val[v].name ? o->val[v].name : "(merged)");
			if (!def[v])
				die("optimizer, after %s: node '%s' reads '%s' before it is defined", after,
				    x->n->name, o->val[v].name);
			if (x->upos[k] >= o->val[v].nuse || o->val[v].use[x->upos[k]].node != n ||
			    o->val[v].use[x->upos[k]].slot != k)
				die("optimizer, after %s: use of '%s' by '%s' not recorded", after, o->val[v].name,
				    x->n->name);
		}
		for (int k = 0; k < x->nout; k++) {
			int v = x->out[k];
			if (v < 0)
				continue;
			if (def[v] || o->val[v].producer != n || o->val[v].slot != k ||
			    (o->val[v].name != x->n->output[k] && strcmp(o->val[v].name, x->n->output[k]) != 0))
				die("optimizer, after %s: output %d '%s' of '%s' is inconsistent", after, k,
				    x->n->output[k], x->n->name);
			def[v] = 1;
		}
	}
	if (live != o->live || prev != o->tail)
		die("optimizer, after %s: %d nodes listed, %d counted", after, live, o->live);
	if (o->verify_each)   /* a rewrite may pass through an illegal node a later one removes (folding) */
		verify_legal(o, after);
	for (int v = 0; v < o->nval; v++) {
		const OptValue *x = &o->val[v];
		for (int i = 0; i < x->nuse; i++)
			if (o->node[x->use[i].node].dead || o->node[x->use[i].node].in[x->use[i].slot] != v)
				die("optimizer, after %s: stale use of '%s'", after, x->name);
		if ((x->is_output || x->pinned) && !def[v])
			die("optimizer, after %s: output '%s' is not defined", after, x->name);
	}
	free(def);
}
