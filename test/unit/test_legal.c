/* test_legal.c: the element-type legality check (lib/onnx/legal.c, its
 * table lib/onnx/optypes.def): a node the schema or onnxruntime's CPU
 * provider refuses is caught, named with its ATen origin, and a legal one
 * passes. */
#include <string.h>

#include "core/core.h"
#include "onnx/onnx.h"
#include "diagtext.h"
#include "testutil.h"

/* One node: op at opset over inputs x, y (elem each, y omitted when 0)
 * writing z of zelem, as a whole model. */
static Onnx__ModelProto *
one_node(Arena *a, const char *op, int opset, int xelem, int yelem, int zelem)
{
	OnnxGraph g = {0};
	const char *in[] = {"x", "y"}, *out[] = {"z"};

	g.a = a;
	g.name = "g";
	onnx_vec_push(a, &g.inputs, onnx_value_info(a, "x", xelem, 1, (int64_t[]){3}, NULL));
	if (yelem)
		onnx_vec_push(a, &g.inputs, onnx_value_info(a, "y", yelem, 1, (int64_t[]){3}, NULL));
	onnx_vec_push(a, &g.outputs, onnx_value_info(a, "z", zelem, 1, (int64_t[]){3}, NULL));
	onnx_vec_push(a, &g.nodes, onnx_node(a, op, "n0", yelem ? 2 : 1, in, 1, out));
	return onnx_model(a, onnx_graph_finish(&g), opset, "test");
}

/* what the pipeline's origin hook does: the ATen node behind an ONNX one */
static void
origin(void *ctx, const OnnxNode *n, DiagAt *at)
{
	(void)ctx;
	if (!strcmp(n->name, "n0")) {
		at->node = "lt_3";
		at->target = "aten.lt.Tensor";
		at->frame = "model.py:12 in forward: return x < y";
	}
}

START_TEST(test_made_up_illegal_node)
{
	Arena a;
	Diag d = {0};
	OnnxOrigin o = {origin, NULL};
	const char *text;

	arena_init(&a);
	/* Less on bool: not in Less-13's type constraint */
	ck_assert_int_eq(onnx_model_legal(one_node(&a, "Less", 18, ONNX_BOOL, ONNX_BOOL, ONNX_BOOL), 1, &a, "m.pt2", &o,
	                                  &d), DIAG_CONVERT);
	ck_assert_int_eq(d.n, 1);
	ck_assert_int_eq(d.items[0].code, YE_ILLEGAL_NODE);
	text = test_diag_text(&d);
	ck_assert_msg(strstr(text, "lt_3") && strstr(text, "aten.lt.Tensor") && strstr(text, "model.py:12") &&
	              strstr(text, "ONNX node 'n0'") && strstr(text, "Less-13 does not take bool for input 0"),
	              "%s", text);
	diag_free(&d);
	/* the same on int64 is legal */
	ck_assert_int_eq(onnx_model_legal(one_node(&a, "Less", 18, ONNX_INT64, ONNX_INT64, ONNX_BOOL), 1, &a, "m.pt2",
	                                  &o, &d), 0);
	ck_assert_int_eq(d.n, 0);
	arena_free(&a);
}
END_TEST

START_TEST(test_schema_cpu_and_params)
{
	OnnxIllegal w;
	int f32 = ONNX_FLOAT, i64 = ONNX_INT64, b = ONNX_BOOL, f64 = ONNX_DOUBLE;

	/* Relu-14 allows int64 (schema) but onnxruntime's CPU provider has no kernel at opset 23 */
	ck_assert_int_eq(onnx_node_legal("", "Relu", 23, 0, 1, &i64, 1, &i64, &w), 0);
	ck_assert_int_eq(onnx_node_legal("", "Relu", 23, 1, 1, &i64, 1, &i64, &w), 1);
	ck_assert_int_eq(w.what, ONNX_ILLEGAL_CPU);
	ck_assert_int_eq(w.since, 14);
	/* Floor: float only; Gemm on int64: schema yes (since 11), CPU no */
	ck_assert_int_eq(onnx_node_legal("", "Floor", 18, 0, 1, &i64, 1, &i64, &w), 1);
	ck_assert_int_eq(w.what, ONNX_ILLEGAL_SCHEMA);
	ck_assert_int_eq(onnx_node_legal("", "Gemm", 18, 1, 2, (int[]){i64, i64}, 1, &i64, &w), 1);
	ck_assert_int_eq(w.what, ONNX_ILLEGAL_CPU);
	/* one type parameter, two element types */
	ck_assert_int_eq(onnx_node_legal("", "Add", 18, 1, 2, (int[]){f32, f64}, 1, &f32, &w), 1);
	ck_assert_int_eq(w.what, ONNX_ILLEGAL_MIXED);
	ck_assert_int_eq(w.index, 1);
	/* Where: a bool condition and T; Cast takes anything to anything */
	ck_assert_int_eq(onnx_node_legal("", "Where", 18, 1, 3, (int[]){b, f32, f32}, 1, &f32, &w), 0);
	ck_assert_int_eq(onnx_node_legal("", "Where", 18, 1, 3, (int[]){f32, f32, f32}, 1, &f32, &w), 1);
	ck_assert_int_eq(onnx_node_legal("", "Cast", 18, 1, 1, &b, 1, &f64, &w), 0);
	/* variadic: Concat of many int64, Max of three bools (no) */
	ck_assert_int_eq(onnx_node_legal("", "Concat", 23, 1, 3, (int[]){i64, i64, i64}, 1, &i64, &w), 0);
	ck_assert_int_eq(onnx_node_legal("", "Max", 18, 0, 3, (int[]){b, b, b}, 1, &b, &w), 1);
	/* unknown element types (0) are not checked; unknown ops are not known */
	ck_assert_int_eq(onnx_node_legal("", "Floor", 18, 1, 1, (int[]){0}, 1, (int[]){0}, &w), 0);
	ck_assert_int_eq(onnx_node_legal("custom", "Thing", 1, 1, 1, &i64, 1, &i64, &w), -1);
	/* com.microsoft rows: FusedMatMul is float only on CPU */
	ck_assert_int_eq(onnx_node_legal("com.microsoft", "FusedMatMul", 1, 1, 2, (int[]){f32, f32}, 1, &f32, &w), 0);
	ck_assert_int_eq(onnx_node_legal("com.microsoft", "FusedMatMul", 1, 1, 2, (int[]){f64, f64}, 1, &f64, &w), 1);
	/* an opset before the first version */
	ck_assert_int_eq(onnx_node_legal("", "Gelu", 18, 1, 1, &f32, 1, &f32, &w), -1);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("legal");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_made_up_illegal_node);
	tcase_add_test(tc, test_schema_cpu_and_params);
	suite_add_tcase(s, tc);
	return s;
}
