/* test_upgrade.c: raising an ONNX model's opset (lib/onnx/upgrade.c).
 * The numbers come from test/onnx-node (ONNX's node tests and one case per
 * row of upgrade.def, run in onnxruntime before and after); here: every
 * row has its case there, a row with no exact upgrade refuses by name, an
 * attribute that became an input becomes a Constant feeding it, subgraphs
 * are raised with their graph, and models older than 7 are refused. */
#include "testutil.h"

#include "core/core.h"
#include "onnx/onnx.h"

static Onnx__ModelProto *
model_of(Arena *a, int opset, OnnxNode *n, const char *x)
{
	OnnxGraph g = {.a = a, .name = "g"};
	int64_t dims[2] = {2, 1};
	Onnx__ModelProto *m;

	onnx_vec_push(a, &g.nodes, n);
	onnx_vec_push(a, &g.inputs, onnx_value_info(a, x, ONNX_FLOAT, 2, dims, NULL));
	onnx_vec_push(a, &g.outputs, onnx_value_info(a, n->output[0], ONNX_FLOAT, -1, NULL, NULL));
	m = onnx_model(a, onnx_graph_finish(&g), opset, "test");
	return m;
}

START_TEST(every_row_has_a_case)
{
	size_t len;
	char *list = test_slurp("test/onnx-node/rows.txt", &len);

	ck_assert_ptr_nonnull(list);
	for (int i = 0; i < onnx_upgrade_rows(); i++) {
		int v, exact;
		const char *op = onnx_upgrade_row(i, &v, &exact);
		char want[128];
		if (!exact)
			continue;       /* refused: no_exact_upgrade_is_refused_by_name */
		snprintf(want, sizeof want, "row_%s_%d\n", op, v);
		ck_assert_msg(strstr(list, want), "no case %s in test/onnx-node/rows.txt", want);
	}
	free(list);
}
END_TEST

START_TEST(squeeze_axes_become_an_input)
{
	Arena a;
	Diag d = {0};
	const char *x = "x", *y = "y";
	OnnxNode *n;
	Onnx__ModelProto *m;
	OnnxUpgradeStats st;
	int64_t axes[1] = {1};

	arena_init(&a);
	n = onnx_node(&a, "Squeeze", "sq", 1, &x, 1, &y);
	onnx_attr_ints(&a, n, "axes", 1, axes);
	m = model_of(&a, 12, n, x);
	ck_assert_int_eq(onnx_upgrade(m, 18, &a, "m.onnx", &st, &d), 0);
	ck_assert_int_eq((int)m->graph->n_node, 2);
	ck_assert_str_eq(m->graph->node[0]->op_type, "Constant");
	ck_assert_str_eq(m->graph->node[1]->op_type, "Squeeze");
	ck_assert_int_eq((int)m->graph->node[1]->n_input, 2);
	ck_assert_str_eq(m->graph->node[1]->input[1], m->graph->node[0]->output[0]);
	ck_assert_int_eq((int)m->graph->node[1]->n_attribute, 0);
	ck_assert_int_eq((int)m->opset_import[0]->version, 18);
	ck_assert_int_eq(st.nodes, 1);
	ck_assert_str_eq(onnx_upgrade_summary(&a, &st), "Squeeze-13: 1");
	diag_free(&d);
	arena_free(&a);
}
END_TEST

START_TEST(no_exact_upgrade_is_refused_by_name)
{
	Arena a;
	Diag d = {0};
	const char *x = "x", *y = "y";
	OnnxUpgradeStats st;

	arena_init(&a);
	ck_assert_int_eq(onnx_upgrade(model_of(&a, 8, onnx_node(&a, "Scan", "loop", 1, &x, 1, &y), x),
	                              18, &a, "m.onnx", &st, &d), DIAG_CONVERT);
	ck_assert_int_eq(d.n, 1);
	ck_assert_int_eq(d.items[0].code, YE_ONNX_UPGRADE);
	ck_assert_ptr_nonnull(strstr(d.items[0].message, "node 'loop' (Scan)"));
	ck_assert_ptr_nonnull(strstr(d.items[0].message, "batch axis"));
	diag_free(&d);
	d = (Diag){0};
	ck_assert_int_eq(onnx_upgrade(model_of(&a, 12, onnx_node(&a, "Crop", "c", 1, &x, 1, &y), x),
	                              18, &a, "m.onnx", &st, &d), DIAG_CONVERT);
	ck_assert_ptr_nonnull(strstr(d.items[0].message, "not an ai.onnx operator"));
	diag_free(&d);
	d = (Diag){0};
	ck_assert_int_eq(onnx_upgrade(model_of(&a, 6, onnx_node(&a, "Relu", "r", 1, &x, 1, &y), x),
	                              18, &a, "m.onnx", &st, &d), DIAG_INPUT);
	ck_assert_ptr_nonnull(strstr(d.items[0].message, "opsets before 7"));
	diag_free(&d);
	arena_free(&a);
}
END_TEST

START_TEST(upsample_becomes_resize)
{
	Arena a;
	Diag d = {0};
	const char *x = "x", *y = "y";
	OnnxNode *n;
	Onnx__ModelProto *m;
	OnnxUpgradeStats st;
	float scales[2] = {1, 2};

	arena_init(&a);
	n = onnx_node(&a, "Upsample", "up", 1, &x, 1, &y);
	onnx_attr_floats(&a, n, "scales", 2, scales);
	m = model_of(&a, 8, n, x);
	ck_assert_int_eq(onnx_upgrade(m, 18, &a, "m.onnx", &st, &d), 0);
	n = m->graph->node[m->graph->n_node - 1];
	ck_assert_str_eq(n->op_type, "Resize");
	ck_assert_int_eq((int)n->n_input, 3);      /* X, roi, scales */
	ck_assert_str_eq(onnx_upgrade_summary(&a, &st), "Resize-11: 1, Upsample-9: 1, Upsample-10: 1");
	diag_free(&d);
	arena_free(&a);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("upgrade");
	TCase *tc = tcase_create("rows");

	tcase_add_test(tc, every_row_has_a_case);
	tcase_add_test(tc, squeeze_axes_become_an_input);
	tcase_add_test(tc, no_exact_upgrade_is_refused_by_name);
	tcase_add_test(tc, upsample_becomes_resize);
	suite_add_tcase(s, tc);
	return s;
}
