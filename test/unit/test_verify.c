/* test_verify.c: --verify's parts that need no onnxruntime: the comparison
 * rules (tolerances, NaN, shapes), the seeded inputs, the module records of
 * a bundle mapped onto its converted graph, and the refusals before any
 * conversion (no library, bad options).  test/verify/run.sh runs the real
 * thing with onnxruntime. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/pipeline.h"
#include "verify/internal.h"
#include "diagtext.h"
#include "pipelinerun.h"
#include "testutil.h"

static VerifyTensor
f32(const float *v, int rank, const int64_t *shape)
{
	return (VerifyTensor){"y", DT_FLOAT32, rank, shape, v, 0};
}

START_TEST(tolerances)
{
	Arena a;
	VerifyRow r;
	static const int64_t s4[] = {4}, s22[] = {2, 2}, any[] = {-1};
	float want[] = {1, 2, 3, 4}, near[] = {1.00005f, 2, 3, 4}, far[] = {1.001f, 2, 3, 4};
	float big[] = {100, 200, 300, 400}, bignear[] = {100.0005f, 200, 300, 400};
	float nan1[] = {NAN, 2, 3, 4}, inf1[] = {INFINITY, 2, 3, 4};
	int64_t iw[] = {1, 2}, ig[] = {1, 3};
	static const int64_t s2[] = {2};
	VerifyTensor w, g;

	arena_init(&a);
	w = f32(want, 1, s4);
	g = f32(near, 1, s4);
	ck_assert(verify_compare(&a, &g, &w, 0, 0, &r));
	ck_assert(r.max_abs > 0 && r.max_abs < 1e-4 && r.tol == 1e-4);
	g = f32(far, 1, s4);
	ck_assert(!verify_compare(&a, &g, &w, 0, 0, &r) && !r.problem);
	ck_assert(verify_compare(&a, &g, &w, 1e-2, 0, &r));          /* verify_tolerance */
	/* 1e-5 of the output's magnitude (400) beats 1e-4 */
	w = f32(big, 1, s4), g = f32(bignear, 1, s4);
	ck_assert(verify_compare(&a, &g, &w, 0, 0, &r));
	ck_assert(fabs(r.tol - 4e-3) < 1e-9);
	/* NaN meets NaN; NaN or inf where torch has a number fails */
	w = f32(nan1, 1, s4), g = f32(nan1, 1, s4);
	ck_assert(verify_compare(&a, &g, &w, 0, 0, &r));
	w = f32(want, 1, s4), g = f32(inf1, 1, s4);
	ck_assert(!verify_compare(&a, &g, &w, 0, 0, &r) && strstr(r.problem, "infinite"));
	/* no reference values: dtype and shape, and no NaN unless the program has some */
	w = (VerifyTensor){"y", DT_FLOAT32, 1, any, NULL, 0};
	g = f32(nan1, 1, s4);
	ck_assert(!verify_compare(&a, &g, &w, 0, 0, &r) && strstr(r.problem, "NaN"));
	ck_assert(verify_compare(&a, &g, &w, 0, 1, &r) && r.max_abs < 0);
	/* shape and dtype */
	w = f32(want, 2, s22), g = f32(want, 1, s4);
	ck_assert(!verify_compare(&a, &g, &w, 0, 0, &r) && strstr(r.problem, "shape [4], torch's is [2, 2]"));
	w = (VerifyTensor){"y", DT_INT64, 1, s2, iw, 0};
	g = (VerifyTensor){"y", DT_INT64, 1, s2, ig, 0};
	ck_assert(!verify_compare(&a, &g, &w, 1, 0, &r) && strstr(r.problem, "exact"));
	g = f32(want, 1, s4);
	ck_assert(!verify_compare(&a, &g, &w, 0, 0, &r) && strstr(r.problem, "dtype float32, torch's is int64"));
	arena_free(&a);
}
END_TEST

START_TEST(seeded_inputs_repeat)
{
	Arena a;
	static const int64_t shape[] = {3, 5};
	VerifyTensor x = {"x", DT_FLOAT32, 2, shape, NULL, 0}, y = x, z = {"z", DT_INT64, 2, shape, NULL, 0};

	arena_init(&a);
	verify_fill(&a, &x, 7);
	verify_fill(&a, &y, 7);
	verify_fill(&a, &z, 7);
	ck_assert(memcmp(x.data, y.data, 15 * 4) == 0);
	for (int i = 0; i < 15; i++) {
		float f = ((const float *)x.data)[i];
		int64_t k = ((const int64_t *)z.data)[i];
		ck_assert(f >= -1 && f < 1);
		ck_assert(k >= 0 && k < 4);
	}
	arena_free(&a);
}
END_TEST

/* The nested bundle's eight recorded calls map onto its graph, in order. */
START_TEST(modules_map_through_nn_module_stack)
{
	static const char *const want[] = {"blocks.0.fc", "blocks.0.act", "blocks.0", "blocks.1.fc",
	                                   "blocks.1.act", "blocks.1", "blocks", "head"};
	Run r;
	VerifyModule *m;
	const char *why;
	int skipped, n;

	test_run(&r, TEST_PATH("models/bundles/verify_nested.yxc"), "report: false\n");
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(r.pl.bundle.nmodule, 8);
	n = verify_map_modules(&r.a, &r.pl.bundle, &r.pl.prog, r.pl.model, &m, &skipped, &why);
	ck_assert_msg(n == 8 && skipped == 0, "%d mapped, %d skipped: %s", n, skipped, why ? why : "");
	for (int i = 0; i < n; i++) {
		ck_assert_str_eq(m[i].name, want[i]);
		ck_assert_int_eq(m[i].nout, 1);
		ck_assert(m[i].frame != NULL);
	}
	ck_assert_str_eq(m[5].cls, "Block");
	test_run_done(&r);
}
END_TEST

/* No library: exit status 2 before converting, nothing written. */
START_TEST(no_library_is_an_input_error)
{
	Run r;

	test_run(&r, TEST_PATH("models/torch-2.14/cnn.pt2"),
	         "verify: true\nonnxruntime_library: /nonexistent/libonnxruntime.so.1\n");
	ck_assert_int_eq(r.rc, DIAG_INPUT);
	ck_assert(r.d.n == 1 && r.d.items[0].code == YE_VERIFY_NO_RUNTIME);
	ck_assert(strstr(test_diag_text(&r.d), "onnxruntime-node"));
	ck_assert(!test_run_has(&r, "m.onnx") && !test_run_has(&r, "m.xlsx"));
	test_run_done(&r);
}
END_TEST

START_TEST(options_are_checked)
{
	static const char *const bad[] = {"verify_tolerance: 0\n", "verify_tolerance: abc\n", "verify: maybe\n",
	                                  "onnxruntime_library: ''\n", "verify_outputs: [a]\n"};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		Run r;
		test_run(&r, TEST_PATH("models/torch-2.14/cnn.pt2"), bad[i]);
		ck_assert_msg(r.rc == DIAG_INPUT, "%s", bad[i]);
		test_run_done(&r);
	}
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("verify");
	TCase *c = tcase_create("core");

	tcase_set_timeout(c, 60);
	tcase_add_test(c, tolerances);
	tcase_add_test(c, seeded_inputs_repeat);
	tcase_add_test(c, modules_map_through_nn_module_stack);
	tcase_add_test(c, no_library_is_an_input_error);
	tcase_add_test(c, options_are_checked);
	suite_add_tcase(s, c);
	return s;
}
