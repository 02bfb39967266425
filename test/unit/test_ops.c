/* test_ops.c: the op table (the ops/ .def files, through ops/all.def).
 *
 * Every row names a unique ATen overload of the form "ns.op.overload", has
 * a lowering, a sensible opset and flags, is found by ops_find(), and
 * docs/ops.md is what `make docs` would write now. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"
#include "pipeline/pipeline.h"
#include "ops.h"
#include "testutil.h"

START_TEST(test_unique_names)
{
	for (int i = 0; i < OP_COUNT; i++)
		for (int j = i + 1; j < OP_COUNT; j++)
			ck_assert_msg(strcmp(op_table[i].aten, op_table[j].aten) != 0,
			              "'%s' has two rows", op_table[i].aten);
}
END_TEST

/* Python-level targets have no overload: size arithmetic ("_operator.add",
 * "torch.sym_max", "math.trunc") and higher-order ops ("higher_order.cond"). */
static int
is_python_target(const char *name)
{
	static const char *const ns[] = {"_operator.", "torch.", "math.", "higher_order."};

	for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
		if (strncmp(name, ns[i], strlen(ns[i])) == 0)
			return 1;
	return 0;
}

START_TEST(test_rows_well_formed)
{
	for (int i = 0; i < OP_COUNT; i++) {
		const OpRow *r = &op_table[i];
		const char *dot1 = strchr(r->aten, '.'), *dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
		if (is_python_target(r->aten))
			ck_assert_msg(dot1 && !dot2 && dot1[1], "'%s' is not namespace.function", r->aten);
		else
			ck_assert_msg(dot1 && dot2 && !strchr(dot2 + 1, '.') && dot2[1],
			              "'%s' is not namespace.op.overload", r->aten);
		ck_assert_msg(r->fn != NULL, "'%s' has no lowering", r->aten);
		ck_assert_msg(strncmp(r->fn_name, "lower_", 6) == 0, "'%s': lowering '%s' lacks the lower_ prefix",
		              r->aten, r->fn_name);
		ck_assert_msg(r->onnx != NULL && r->family != NULL, "'%s': missing column", r->aten);
		ck_assert_msg(r->opset >= OPTIONS_OPSET_MIN && r->opset <= OPTIONS_OPSET_MAX,
		              "'%s': opset %d outside %d..%d", r->aten, r->opset, OPTIONS_OPSET_MIN, OPTIONS_OPSET_MAX);
		ck_assert_msg((r->flags & ~(OPF_VIEW | OPF_INPLACE | OPF_INT18)) == 0 &&
		              (r->flags & (OPF_VIEW | OPF_INPLACE)) != (OPF_VIEW | OPF_INPLACE),
		              "'%s': bad flags %d", r->aten, r->flags);
	}
}
END_TEST

/* ATen's in-place overloads end in '_'; they must be flagged so the driver
 * writes the result back into self (detach_ writes self's own contents). */
START_TEST(test_inplace_rows_flagged)
{
	for (int i = 0; i < OP_COUNT; i++) {
		const OpRow *r = &op_table[i];
		const char *op = strchr(r->aten, '.') + 1;
		const char *end = strchr(op, '.');
		if (is_python_target(r->aten))        /* "_operator.and_" is not in-place */
			continue;
		int dunder = op[0] == '_' && op[1] == '_' && end - op > 4 && end[-2] == '_';   /* __and__ */
		int trailing = end[-1] == '_' && !dunder;
		ck_assert_msg(trailing == !!(r->flags & OPF_INPLACE), "'%s': in-place flag %s the name",
		              r->aten, trailing ? "missing for" : "contradicts");
	}
}
END_TEST

START_TEST(test_lookup)
{
	for (int i = 0; i < OP_COUNT; i++)
		ck_assert_ptr_eq(ops_find(op_table[i].aten), &op_table[i]);
	ck_assert_ptr_null(ops_find("aten.no_such_op.default"));
	ck_assert_ptr_null(ops_find(""));
	ck_assert_ptr_null(ops_find("aten.relu"));
}
END_TEST

/* The ops every first-coverage fixture needs (mlp, cnn, attention, inplace,
 * dtypes, in training IR and core ATen) stay in the table. */
START_TEST(test_fixture_ops_present)
{
	static const char *const need[] = {
		"aten.linear.default", "aten.conv2d.default", "aten.batch_norm.default", "aten.softmax.int",
		"aten.scaled_dot_product_attention.default", "aten.layer_norm.default", "aten.gelu.default",
		"aten.view.default", "aten.reshape.default", "aten.transpose.int", "aten.permute.default",
		"aten.flatten.using_ints", "aten.add_.Tensor", "aten.mul_.Tensor", "aten.masked_fill_.Scalar",
		"aten.index_put_.default", "aten.copy_.default", "aten.addmm.default", "aten.convolution.default",
		"aten._native_batch_norm_legit_no_training.default",
		"aten._native_batch_norm_legit_functional.default", "aten._softmax.default",
		"aten.max_pool2d_with_indices.default", "aten.mean.dim", "aten.var_mean.correction",
		"aten.rsqrt.default", "aten.expand.default", "aten.clone.default", "aten._to_copy.default",
		"aten.native_layer_norm.default", "aten.bmm.default", "aten.where.self", "aten.full.default",
		"aten.arange.start_step", "aten.any.dim", "aten._assert_tensor_metadata.default",
	};
	for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
		ck_assert_msg(ops_find(need[i]) != NULL, "'%s' has no row", need[i]);
}
END_TEST

START_TEST(test_docs_up_to_date)
{
	char *want = NULL, *have;
	size_t wlen = 0, hlen = 0;
	FILE *f = open_memstream(&want, &wlen);

	ops_write_doc(f);
	fclose(f);
	have = test_slurp("docs/ops.md", &hlen);
	ck_assert_msg(have != NULL, "docs/ops.md is missing (run make docs)");
	ck_assert_msg(hlen == wlen && memcmp(have, want, wlen) == 0,
	              "docs/ops.md is stale: run make docs");
	free(want);
	free(have);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("ops");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, test_unique_names);
	tcase_add_test(tc, test_rows_well_formed);
	tcase_add_test(tc, test_inplace_rows_flagged);
	tcase_add_test(tc, test_lookup);
	tcase_add_test(tc, test_fixture_ops_present);
	tcase_add_test(tc, test_docs_up_to_date);
	suite_add_tcase(s, tc);
	return s;
}
