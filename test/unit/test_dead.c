/* test_dead.c: dead-node removal before lowering (lib/lower/dead.c): which
 * nodes are dead (nothing needs them and they have no side effect), and that
 * a dead node without an ONNX lowering does not stop a conversion while a
 * live one still does. */
#include <string.h>

#include "core/core.h"
#include "lower/lower.h"
#include "pipeline/pipeline.h"
#include "testutil.h"
#include "minigraph.h"
#include "diagtext.h"

static const int64_t d2[] = {2};

/* x -> relu -> output, plus: a rand([]) compared with 0.1 (LayerDrop's draw,
 * unread), a frobnicate of x (no row) read only by a dead add, an in-place
 * add_ on a buffer-like input, an assert, a custom op and a node whose
 * output list is empty. */
static void
layerdrop(Mini *m, int frob_used)
{
	Value *x, *y, *r, *lt, *f, *g, *b, *b2, *cu;

	mini_init(m);
	x = mini_input(m, "x", DT_FLOAT32, 1, d2);
	b = mini_input(m, "buf", DT_FLOAT32, 1, d2);
	r = tensor(m, m->g, "rand", DT_FLOAT32, 0, NULL, NULL);
	node(m, m->g, "aten.rand.default", r, 1, (const char *[]){"size"}, (Arg[]){ints_arg(m, 0, NULL)});
	lt = tensor(m, m->g, "lt", DT_BOOL, 0, NULL, NULL);
	node(m, m->g, "aten.lt.Scalar", lt, 2, (const char *[]){"self", "other"},
	     (Arg[]){varg(r), {.kind = ARG_FLOAT, .u.f = 0.1}});
	f = tensor(m, m->g, "frob", DT_FLOAT32, 1, d2, NULL);
	node(m, m->g, "aten.frobnicate.default", f, 1, (const char *[]){"self"}, (Arg[]){varg(x)});
	g = tensor(m, m->g, "add", DT_FLOAT32, 1, d2, NULL);
	node(m, m->g, "aten.add.Tensor", g, 2, (const char *[]){"self", "other"}, (Arg[]){varg(f), varg(x)});
	b2 = tensor(m, m->g, "add_", DT_FLOAT32, 1, d2, NULL);
	node(m, m->g, "aten.add_.Scalar", b2, 2, (const char *[]){"self", "other"}, (Arg[]){varg(b), iarg(1)});
	node(m, m->g, "aten._assert_scalar.default", NULL, 1, (const char *[]){"self"}, (Arg[]){iarg(1)});
	cu = tensor(m, m->g, "foo", DT_FLOAT32, 1, d2, NULL);
	node(m, m->g, "mylib.foo.default", cu, 1, (const char *[]){"x"}, (Arg[]){varg(x)});
	y = tensor(m, m->g, "relu", DT_FLOAT32, 1, d2, NULL);
	node(m, m->g, "aten.relu.default", y, 1, (const char *[]){"self"}, (Arg[]){varg(frob_used ? g : x)});
	output(m, m->g, y);
}

START_TEST(test_dead_flags)
{
	Mini m;
	int ndead = -1;
	const unsigned char *dead;

	layerdrop(&m, 0);
	dead = lower_dead_nodes(&m.a, m.g, &ndead);
	/* rand, lt, frobnicate, add: dead; add_, assert, custom op, relu: live */
	ck_assert_int_eq(ndead, 4);
	ck_assert_int_eq(dead[0], 1);
	ck_assert_int_eq(dead[1], 1);
	ck_assert_int_eq(dead[2], 1);
	ck_assert_int_eq(dead[3], 1);
	ck_assert_int_eq(dead[4], 0);
	ck_assert_int_eq(dead[5], 0);
	ck_assert_int_eq(dead[6], 0);
	ck_assert_int_eq(dead[7], 0);
	arena_free(&m.a);

	/* relu reading add makes add and frobnicate live; rand and lt stay dead */
	layerdrop(&m, 1);
	dead = lower_dead_nodes(&m.a, m.g, &ndead);
	ck_assert_int_eq(ndead, 2);
	ck_assert_int_eq(dead[2], 0);
	ck_assert_int_eq(dead[3], 0);
	arena_free(&m.a);
}
END_TEST

/* A dead node without a row converts; the same node live fails as before. */
START_TEST(test_dead_unsupported)
{
	Mini m;
	Options o;
	Diag d = {0};
	Onnx__ModelProto *mp = NULL;
	Value *x, *f, *y;

	mini_init(&m);
	x = mini_input(&m, "x", DT_FLOAT32, 1, d2);
	f = tensor(&m, m.g, "frob", DT_FLOAT32, 1, d2, NULL);
	node(&m, m.g, "aten.frobnicate.default", f, 1, (const char *[]){"self"}, (Arg[]){varg(x)});
	y = tensor(&m, m.g, "relu", DT_FLOAT32, 1, d2, NULL);
	node(&m, m.g, "aten.relu.default", y, 1, (const char *[]){"self"}, (Arg[]){varg(x)});
	output(&m, m.g, y);
	options_default(&o);
	ck_assert_int_eq(lower_program(&m.p, options_lower(&o, &(LowerOptions){0}), &m.a, &mp, &d), 0);
	ck_assert_ptr_nonnull(mp);
	ck_assert_int_eq((int)mp->graph->n_node, 1);
	ck_assert_str_eq(mp->graph->node[0]->op_type, "Relu");
	diag_free(&d);

	m.g->nodes[1]->in[0].arg = varg(f);       /* now relu reads frob */
	memset(&d, 0, sizeof d);
	mp = NULL;
	ck_assert_int_eq(lower_program(&m.p, options_lower(&o, &(LowerOptions){0}), &m.a, &mp, &d), DIAG_CONVERT);
	ck_assert_msg(strstr(test_diag_text(&d), "node 'frob' (aten.frobnicate.default) at model.py:7 in forward: y = f(x): no ONNX lowering"),
	              "%s", test_diag_text(&d));
	diag_free(&d);
	arena_free(&m.a);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("dead");
	TCase *tc = tcase_create("dead");

	tcase_add_test(tc, test_dead_flags);
	tcase_add_test(tc, test_dead_unsupported);
	suite_add_tcase(s, tc);
	return s;
}
