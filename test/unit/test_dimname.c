/* test_dimname.c: names for dynamic dimensions on real fixtures. */
#include <string.h>

#include "ir/ir.h"
#include "read/read.h"
#include "diagtext.h"
#include "testutil.h"

static Arena arena;
static Program prog;
static Diag diag;

static void
setup(void)
{
	arena_init(&arena);
	memset(&prog, 0, sizeof prog);
	memset(&diag, 0, sizeof diag);
	prog.arena = &arena;
	if (pt2_load(&prog, "test/models/torch-2.14/derived_dyn.pt2", &diag))
		ck_abort_msg("%s", test_diag_text(&diag));
}

static void
teardown(void)
{
	pt2_close(&prog);
	arena_free(&arena);
	diag_free(&diag);
}

static const Value *
input(const char *name)
{
	return ir_lookup(prog.graph, name);
}

START_TEST(defaults_follow_inputs)
{
	DimNames *dn = dimnames_build(&prog, NULL, 0, "o.yaml", &arena, &diag);
	const Value *x = input("x"), *y = input("y");
	ck_assert_ptr_nonnull(dn);
	/* x: [B, 2*S], y: [B, S] -> S is named after y's axis 1 */
	ck_assert_str_eq(dimnames_expr(dn, x->dims[0].e), "x_dim_0");
	ck_assert_str_eq(dimnames_expr(dn, y->dims[0].e), "x_dim_0");
	ck_assert_str_eq(dimnames_expr(dn, y->dims[1].e), "y_dim_1");
	ck_assert_str_eq(dimnames_expr(dn, x->dims[1].e), "2*y_dim_1");
}
END_TEST

START_TEST(user_names)
{
	DimRequest req[] = {{"x", 0, "batch", 2, 3}, {"y", 1, "seq", 3, 3}, {"y", 0, "batch", 4, 3}};
	DimNames *dn = dimnames_build(&prog, req, 3, "o.yaml", &arena, &diag);
	const Value *x = input("x");
	ck_assert_ptr_nonnull(dn);
	ck_assert_str_eq(dimnames_expr(dn, x->dims[0].e), "batch");
	ck_assert_str_eq(dimnames_expr(dn, x->dims[1].e), "2*seq");
	/* every intermediate uses the same names */
	for (int i = 0; i < prog.graph->nvalue; i++) {
		const Value *v = prog.graph->values[i];
		for (int k = 0; v->kind == VAL_TENSOR && k < v->rank; k++)
			if (v->dims[k].e)
				ck_assert_msg(!strstr(dimnames_expr(dn, v->dims[k].e), "s17") &&
				              !strstr(dimnames_expr(dn, v->dims[k].e), "s94"), "%s", dimnames_expr(dn, v->dims[k].e));
	}
}
END_TEST

static void
expect_error(DimRequest r, const char *text)
{
	ck_assert_ptr_null(dimnames_build(&prog, &r, 1, "o.yaml", &arena, &diag));
	ck_assert_msg(strstr(test_diag_text(&diag), text) && strstr(test_diag_text(&diag), "o.yaml:7:5:"), "%s", test_diag_text(&diag));
	diag_free(&diag);
}

START_TEST(bad_requests)
{
	expect_error((DimRequest){"z", 0, "batch", 7, 5}, "no tensor input named 'z'");
	expect_error((DimRequest){"x", 5, "batch", 7, 5}, "has 2 axes, not axis 5");
	expect_error((DimRequest){"x", 1, "twice", 7, 5}, "not a dynamic dimension of its own");
	DimRequest two[] = {{"x", 0, "batch", 7, 5}, {"y", 1, "batch", 7, 5}};
	ck_assert_ptr_null(dimnames_build(&prog, two, 2, "o.yaml", &arena, &diag));
	ck_assert_msg(strstr(test_diag_text(&diag), "both named 'batch'"), "%s", test_diag_text(&diag));
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("dimname");
	TCase *tc = tcase_create("names");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, defaults_follow_inputs);
	tcase_add_test(tc, user_names);
	tcase_add_test(tc, bad_requests);
	suite_add_tcase(s, tc);
	return s;
}
