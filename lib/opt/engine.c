/* engine.c: the optimizer's driver (opt_model): the dispatch of patterns
 * by root op, the order of the passes, the opset and domain imports.
 *
 * opt_model() runs RemoveUnused, DedupInitializers and CommonSubexpressions
 * once (merging first, repeated layers fold once), then repeats Rewrite,
 * DedupInitializers and CommonSubexpressions while the last two change
 * something (at most OPT_MAX_ROUNDS times; a pass is skipped while the
 * graph is as its last run left it); the checker runs after each
 * step that changed the graph.  Rewrite pops nodes from the worklist in order; one sweep through
 * the list is an iteration, and nodes a rewrite touches go on the list of
 * the next one, so the work is proportional to the rewrites, not to the
 * graph size times the iterations. */
#include "opt/opt.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/core.h"
#include "onnx/onnx.h"
#include "internal.h"

#define OPT_MAX_ROUNDS 8
/* Constant folding makes new buffers no larger than this: enough for shape
 * arithmetic, masks and rotary tables, but it never rewrites (and so never
 * copies) a model's weights, which would make the cost of a conversion grow
 * with the bytes of weights instead of the number of nodes. */
#define OPT_FOLD_MAX_BYTES ((int64_t)64 << 10)


static void
build_dispatch(Opt *o)
{
	o->root_of = strmap_new(o->a, OPT_NROW);
	for (int i = 0; i < OPT_NROW; i++) {
		const OptRow *row = &opt_rows[i];
		intptr_t r;
		OptRoot *rt;
		if (!o->on[i] || !row->pat || strcmp(row->root, "*") == 0 ||
		    o->opset < row->opset_min || o->opset > row->opset_max)
			continue;
		if (!(r = (intptr_t)strmap_get(o->root_of, row->root))) {
			OptRoot *nr = ARENA_ARRAY(o->a, OptRoot, o->nroot + 1);
			if (o->nroot)
				memcpy(nr, o->roots, sizeof *nr * (size_t)o->nroot);
			o->roots = nr;
			r = ++o->nroot;
			strmap_put(o->root_of, row->root, (void *)r);
		}
		rt = &o->roots[r - 1];
		if (rt->n == rt->cap) {
			int *nrows = ARENA_ARRAY(o->a, int, rt->cap = rt->cap ? rt->cap * 2 : 8);
			if (rt->n)
				memcpy(nrows, rt->rows, sizeof *nrows * (size_t)rt->n);
			rt->rows = nrows;
		}
		rt->rows[rt->n++] = i;
	}
}

static int
model_opset(const Onnx__ModelProto *m)
{
	for (size_t i = 0; i < m->n_opset_import; i++)
		if (!m->opset_import[i]->domain || !*m->opset_import[i]->domain ||
		    strcmp(m->opset_import[i]->domain, "ai.onnx") == 0)
			return (int)m->opset_import[i]->version;
	return 1;
}

/* Adds to m an opset import for domain dom when it lacks one. */
static void
import_domain(Arena *a, Onnx__ModelProto *m, const char *dom)
{
	Onnx__OperatorSetIdProto *op, **ni;

	if (!dom || !*dom || strcmp(dom, "ai.onnx") == 0)
		return;
	for (size_t i = 0; i < m->n_opset_import; i++)
		if (m->opset_import[i]->domain && strcmp(m->opset_import[i]->domain, dom) == 0)
			return;
	op = ARENA_NEW(a, Onnx__OperatorSetIdProto);
	*op = (Onnx__OperatorSetIdProto)ONNX__OPERATOR_SET_ID_PROTO__INIT;
	op->domain = (char *)dom;
	op->has_version = 1;
	op->version = 1;
	ni = ARENA_ARRAY(a, Onnx__OperatorSetIdProto *, m->n_opset_import + 1);
	memcpy(ni, m->opset_import, sizeof *ni * m->n_opset_import);
	ni[m->n_opset_import++] = op;
	m->opset_import = ni;
}

/* The same for every domain the nodes of g and its subgraphs use. */
static void
import_domains(Arena *a, Onnx__ModelProto *m, const Onnx__GraphProto *g)
{
	for (size_t i = 0; i < g->n_node; i++) {
		const OnnxNode *n = g->node[i];
		import_domain(a, m, n->domain);
		for (size_t k = 0; k < n->n_attribute; k++) {
			if (n->attribute[k]->g)
				import_domains(a, m, n->attribute[k]->g);
			for (size_t j = 0; j < n->attribute[k]->n_graphs; j++)
				import_domains(a, m, n->attribute[k]->graphs[j]);
		}
	}
}

/* Optimizes g with o (settings filled, index empty), then each subgraph of
 * its nodes with a child index whose parent is o: a body sees the values
 * and constants of the graphs around it.  Returns 0 or DIAG_CONVERT. */
static int
optimize(Opt *o, Onnx__GraphProto *g, int patterns)
{
	int rc, dedup_clean = 1, cse_clean = 1;

	if ((rc = opt_index(o, g)))
		return rc;
	if (o->verify_each)
		opt_verify(o, "indexing");
	if (o->on[OPT_RemoveUnused])
		opt_run_pass(o, OPT_RemoveUnused);
	/* merging first means repeated subgraphs (one per layer) fold once */
	if (o->on[OPT_DedupInitializers])
		opt_run_pass(o, OPT_DedupInitializers);
	if (o->on[OPT_CommonSubexpressions] && opt_run_pass(o, OPT_CommonSubexpressions))
		dedup_clean = 0;
	for (int n = o->head; n >= 0; n = opt_node(o, n)->next)
		opt_enqueue(o, n);
	/* Dedup and CSE each leave a fixed point (every equal pair merged in
	 * one sweep), so a run on the graph its last run left finds nothing:
	 * it is skipped until a rewrite or the other pass changes the graph. */
	for (int round = 0; round < OPT_MAX_ROUNDS; round++) {
		int changed = 0, n;
		o->rounds = round + 1;
		if (patterns && ((n = opt_rewrite(o)) || o->verify_each)) {
			opt_verify(o, "Rewrite");
			if (n)
				dedup_clean = cse_clean = 0;
		}
		if (o->on[OPT_DedupInitializers] && !dedup_clean) {
			changed += n = opt_run_pass(o, OPT_DedupInitializers);
			dedup_clean = 1;
			cse_clean &= !n;
		}
		if (o->on[OPT_CommonSubexpressions] && !cse_clean) {
			changed += n = opt_run_pass(o, OPT_CommonSubexpressions);
			cse_clean = 1;
			dedup_clean &= !n;
		}
		if (!changed || !patterns)
			break;
	}
	o->nqueue = 0;
	opt_writeback(o, g);
	for (int n = o->head; n >= 0; n = opt_node(o, n)->next) {
		const OnnxNode *m = opt_msg(o, n);
		for (size_t k = 0; k < m->n_attribute; k++) {
			Onnx__AttributeProto *at = m->attribute[k];
			for (size_t j = 0; j < (at->g ? 1 : at->n_graphs); j++) {
				Opt *c = ARENA_NEW(o->a, Opt);
				*c = (Opt){.parent = o, .a = o->a, .d = o->d, .log = o->log, .opset = o->opset, .on = o->on,
				           .root_of = o->root_of, .roots = o->roots, .nroot = o->nroot,
				           .verify_each = o->verify_each, .keep_inits = o->keep_inits,
				           .fold_max_bytes = o->fold_max_bytes,
				           .fresh_from = INT_MAX, .count = o->count, .iter = o->iter,
				           .iteration = o->iteration, .kindhits = o->kindhits};
				if ((rc = optimize(c, at->g ? at->g : at->graphs[j], patterns)))
					return rc;
				o->iteration = c->iteration;
			}
		}
	}
	return 0;
}

static int
run(Onnx__ModelProto *m, Arena *a, const OptSelect *sel, const OptLog *log, OptResult *res, Diag *d, int checked)
{
	Opt o = {0};
	unsigned char *on = ARENA_ARRAY(a, unsigned char, OPT_NROW);
	double t0 = opt_now();
	int any = 0, patterns = 0, rc;
	OptResult dummy;

	res = res ? res : &dummy;
	memset(res, 0, sizeof *res);
	res->nodes_in = res->nodes_out = (int64_t)m->graph->n_node;
	res->inits_in = res->inits_out = (int64_t)m->graph->n_initializer;
	o.a = a;
	o.d = d;
	o.log = log;
	o.opset = model_opset(m);
	o.on = on;
	o.verify_each = checked;
	o.fold_max_bytes = OPT_FOLD_MAX_BYTES;
	o.fresh_from = INT_MAX;
	o.count = ARENA_ARRAY(a, OptCount, OPT_NROW);
	o.iter = ARENA_ARRAY(a, OptIter, OPT_NROW);
	for (int i = 0; i < OPT_NROW; i++) {
		on[i] = (unsigned char)opt_select_has(sel, i);
		any |= on[i];
		patterns |= on[i] && opt_rows[i].pat;
	}
	/* `patterns: none` changes nothing, but still indexes the graph, so
	 * that every intermediate gets its value_info (opt_writeback) */
	o.keep_inits = !any;
	build_dispatch(&o);
	if ((rc = optimize(&o, m->graph, patterns)))
		return rc;
	import_domains(a, m, m->graph);
	res->nodes_out = (int64_t)m->graph->n_node;
	res->inits_out = (int64_t)m->graph->n_initializer;
	res->iterations = o.iteration;
	res->seconds = opt_now() - t0;
	return 0;
}

int
opt_model(Onnx__ModelProto *m, Arena *a, const OptSelect *sel, const OptLog *log, OptResult *res, Diag *d)
{
	return run(m, a, sel, log, res, d, 0);
}

int
opt_model_checked(Onnx__ModelProto *m, Arena *a, const OptSelect *sel, const OptLog *log, OptResult *res, Diag *d)
{
	return run(m, a, sel, log, res, d, 1);
}
