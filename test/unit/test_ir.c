/* test_ir.c: reading real .pt2 fixtures into the IR (pt2.c, serde.c,
 * torchsave.c, ir.c) and the string map.  Runs from the repo root. */
#include <string.h>

#include "ir/ir.h"
#include "read/read.h"
#include "core/core.h"
#include "diagtext.h"
#include "testutil.h"

typedef struct Loaded {
	Arena a;
	Program p;
	Diag d;
} Loaded;

static Loaded *
load(const char *path)
{
	Loaded *l = calloc(1, sizeof *l);

	arena_init(&l->a);
	l->p.arena = &l->a;
	if (pt2_load(&l->p, path, &l->d))
		ck_abort_msg("%s: %s", path, test_diag_text(&l->d));
	return l;
}

static void
unload(Loaded *l)
{
	pt2_close(&l->p);
	arena_free(&l->a);
	diag_free(&l->d);
	free(l);
}

static const Node *
find_node(const Graph *g, const char *op)
{
	for (int i = 0; i < g->nnode; i++)
		if (strcmp(g->nodes[i]->op, op) == 0)
			return g->nodes[i];
	return NULL;
}

static float
weight_f32(const Value *v, int64_t i)
{
	return (float)dtype_decode_f64(DT_FLOAT32, v->data->storage + (v->data->offset + i) * 4);
}

/* The same MLP read from the three containers gives the same IR and weights. */
static void
check_mlp(const char *path, const char *container)
{
	Loaded *l = load(path);
	const Program *p = &l->p;
	const Graph *g = p->graph;
	const Node *lin;

	ck_assert_str_eq(p->container, container);
	ck_assert_int_eq(p->schema_major, 8);
	ck_assert_int_eq(g->ninput, 5);
	ck_assert_int_eq(p->input_specs[0].kind, IN_PARAMETER);
	ck_assert_str_eq(p->input_specs[0].target, "fc1.weight");
	ck_assert_int_eq(p->input_specs[4].kind, IN_USER_INPUT);
	ck_assert_str_eq(g->inputs[4].u.v->name, "x");
	ck_assert_int_eq(p->output_specs[0].kind, OUT_USER_OUTPUT);
	/* weights are bound, with the graph's dtype and shape, bytes in the file */
	const Value *w = g->inputs[0].u.v;
	ck_assert_ptr_nonnull(w->data);
	ck_assert_int_eq(w->dtype, DT_FLOAT32);
	ck_assert_int_eq(w->rank, 2);
	ck_assert_int_eq(w->dims[0].v, 16);
	ck_assert_int_eq(w->data->sizes[1], 8);
	ck_assert(tensor_in_bounds(w->data));
	/* training IR: aten.linear with named arguments resolved to values */
	lin = find_node(g, "aten.linear.default");
	ck_assert_ptr_nonnull(lin);
	ck_assert_ptr_eq(ir_arg(lin, "weight")->u.v, w);
	ck_assert_ptr_eq(ir_arg(lin, "input")->u.v, g->inputs[4].u.v);
	ck_assert_ptr_null(ir_arg(lin, "nonexistent"));
	ck_assert_ptr_eq(lin->out[0].u.v->def, lin);
	ck_assert_ptr_nonnull(lin->frame);
	ck_assert_msg(strstr(lin->frame, "make_fixtures.py:") != NULL, "frame %s", lin->frame);
	/* one sample input, a float32[2,8] tensor */
	ck_assert_int_eq(p->nsample, 1);
	ck_assert_ptr_nonnull(p->samples[0].t);
	ck_assert_int_eq(p->samples[0].t->rank, 2);
	ck_assert_int_eq(p->samples[0].t->sizes[1], 8);
	ck_assert(tensor_in_bounds(p->samples[0].t));
	ck_assert_ptr_eq(ir_lookup(g, "x"), g->inputs[4].u.v);
	ck_assert_msg(weight_f32(w, 0) == weight_f32(w, 0) && weight_f32(w, 127) != 0.0f, "weights readable");
	unload(l);
}

START_TEST(mlp_three_containers)
{
	check_mlp("test/models/torch-2.14/mlp.pt2", "pt2 archive, raw weights (torch 2.9+)");
	check_mlp("test/models/torch-2.8/mlp.pt2", "pt2 archive, pickled weights (torch 2.8)");
	check_mlp("test/models/torch-2.6/mlp.pt2", "flat zip (torch 2.6/2.7)");
}
END_TEST

START_TEST(same_weights_every_container)
{
	/* 2.8 is emulated from the 2.14 file: identical bytes through both paths */
	Loaded *a = load("test/models/torch-2.14/cnn.pt2"), *b = load("test/models/torch-2.8/cnn.pt2");
	ck_assert_int_eq(a->p.ninput_spec, b->p.ninput_spec);
	for (int i = 0; i < a->p.ninput_spec; i++) {
		const Value *va = a->p.graph->inputs[i].u.v, *vb = b->p.graph->inputs[i].u.v;
		if (!va->data)
			continue;
		ck_assert_ptr_nonnull(vb->data);
		int64_t n = tensor_numel(va->data) * dtype_size(va->dtype);
		ck_assert_int_eq(memcmp(va->data->storage + va->data->offset * dtype_size(va->dtype),
		                        vb->data->storage + vb->data->offset * dtype_size(vb->dtype), (size_t)n), 0);
	}
	unload(a);
	unload(b);
}
END_TEST

START_TEST(core_aten_and_buffers)
{
	Loaded *l = load("test/models/torch-2.14/cnn_decomp.pt2");
	const Program *p = &l->p;
	int mutations = 0, buffers = 0;

	ck_assert_str_eq(p->verifiers[0], "ATEN");
	ck_assert_ptr_nonnull(find_node(p->graph, "aten.convolution.default"));
	for (int i = 0; i < p->noutput_spec; i++)
		mutations += p->output_specs[i].kind == OUT_BUFFER_MUTATION;
	for (int i = 0; i < p->ninput_spec; i++)
		buffers += p->input_specs[i].kind == IN_BUFFER && p->input_specs[i].arg->u.v->data != NULL;
	ck_assert_int_ge(buffers, 2);
	(void)mutations;
	unload(l);
}
END_TEST

START_TEST(symbols_and_ranges)
{
	Loaded *l = load("test/models/torch-2.14/derived_dyn.pt2");
	const Program *p = &l->p;
	const Value *x = NULL, *y = NULL;
	int64_t v;

	for (int i = 0; i < p->ninput_spec; i++)
		if (p->input_specs[i].kind == IN_USER_INPUT) {
			if (!x) x = p->input_specs[i].arg->u.v;
			else y = p->input_specs[i].arg->u.v;
		}
	ck_assert_ptr_nonnull(y);
	/* x is [B, 2*S], y is [B, S]: the same symbols in both */
	ck_assert_ptr_nonnull(x->dims[0].e);
	ck_assert(sym_equal(x->dims[0].e, y->dims[0].e));
	ck_assert_int_eq(x->dims[1].e->op, SYM_MUL);
	ck_assert_int_eq(p->nrange, 3);
	for (int i = 0; i < p->nrange; i++)
		if (p->ranges[i].expr->op == SYM_SYMBOL && sym_equal(p->ranges[i].expr, y->dims[1].e)) {
			ck_assert(p->ranges[i].has_max);
			ck_assert_int_eq(p->ranges[i].max, 64);
		}
	/* sym_size nodes define SymInt values with the symbol as expression */
	const Node *ss = find_node(p->graph, "aten.sym_size.int");
	ck_assert_ptr_nonnull(ss);
	ck_assert_int_eq(ss->out[0].kind, ARG_SYM_INT);
	ck_assert_int_eq(ss->out[0].u.v->kind, VAL_SYM_INT);
	ck_assert(ss->out[0].u.v->has_hint);
	(void)v;
	unload(l);
}
END_TEST

START_TEST(hop_subgraphs)
{
	const char *files[] = {"test/models/torch-2.14/cond.pt2", "test/models/torch-2.6/cond.pt2"};
	for (int f = 0; f < 2; f++) {
		Loaded *l = load(files[f]);
		const Node *c = find_node(l->p.graph, "higher_order.cond");
		int graphs = 0;
		ck_assert_ptr_nonnull(c);
		for (int i = 0; i < c->nin; i++)
			if (c->in[i].arg.kind == ARG_GRAPH) {
				const Graph *sg = c->in[i].arg.u.g;
				graphs++;
				ck_assert_ptr_eq(sg->parent, l->p.graph);
				ck_assert_int_gt(sg->nnode, 0);
				ck_assert_int_eq(sg->noutput, 1);
			}
		ck_assert_int_eq(graphs, 2);
		unload(l);
	}
	Loaded *l = load("test/models/torch-2.14/while_loop.pt2");
	const Node *w = find_node(l->p.graph, "higher_order.while_loop");
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(w->in[0].arg.kind, ARG_GRAPH);
	ck_assert(w->in[0].arg.u.g->is_single_tensor_return);
	unload(l);
}
END_TEST

START_TEST(strmap_basics)
{
	Arena a;
	arena_init(&a);
	StrMap *m = strmap_new(&a, 0);
	char *keys[2000];
	for (int i = 0; i < 2000; i++) {
		keys[i] = arena_printf(&a, "key%d", i);
		ck_assert_ptr_null(strmap_put(m, keys[i], keys[i]));
	}
	ck_assert_uint_eq(strmap_count(m), 2000);
	for (int i = 0; i < 2000; i++)
		ck_assert_ptr_eq(strmap_get(m, arena_printf(&a, "key%d", i)), keys[i]);
	ck_assert_ptr_null(strmap_get(m, "key2000"));
	ck_assert_ptr_eq(strmap_put(m, "key5", NULL), keys[5]);
	ck_assert_uint_eq(strmap_count(m), 2000);
	arena_free(&a);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("ir");
	TCase *tc = tcase_create("read");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, mlp_three_containers);
	tcase_add_test(tc, same_weights_every_container);
	tcase_add_test(tc, core_aten_and_buffers);
	tcase_add_test(tc, symbols_and_ranges);
	tcase_add_test(tc, hop_subgraphs);
	tcase_add_test(tc, strmap_basics);
	suite_add_tcase(s, tc);
	return s;
}
