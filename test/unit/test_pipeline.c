/* test_pipeline.c: lib/pipeline/pipeline.c without the command line: the report
 * path, the optimizer's top patterns for the summary, and whole runs on a
 * fixture (phases timed, counts, the report written or not, no report after
 * an input error).  test/report/e2e.sh checks the workbooks themselves. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/pipeline.h"
#include "diagtext.h"
#include "testutil.h"

START_TEST(report_path_replaces_the_extension)
{
	Arena a;

	arena_init(&a);
	ck_assert_str_eq(pipeline_report_path(&a, "model.onnx"), "model.xlsx");
	ck_assert_str_eq(pipeline_report_path(&a, "out/m.v2.onnx"), "out/m.v2.xlsx");
	ck_assert_str_eq(pipeline_report_path(&a, "dir.d/model"), "dir.d/model.xlsx");
	ck_assert_str_eq(pipeline_report_path(&a, ".hidden"), ".hidden.xlsx");
	ck_assert_str_eq(pipeline_report_path(&a, "x.xlsx"), "x.xlsx.xlsx");   /* never the ONNX file itself */
	arena_free(&a);
}
END_TEST

START_TEST(top_patterns_sum_per_pattern)
{
	static const ReportStat ev[] = {
		{"B", 2, 1, 0.1, 0, 0, 1},
		{"A", 3, 0, 0.1, 0, 1, 1},
		{"B", 2, 0, 0.1, 1, 0, 1},
		{"C", 1, 0, 0.1, 1, 1, 1},
		{"D", 4, 2, 0.1, 1, 2, 2},
	};
	Arena a;
	Pipeline pl = {0};
	ReportStat top[3];
	int n;

	arena_init(&a);
	pipeline_init(&pl, &a);
	ck_assert_int_eq(pipeline_top_patterns(&pl, top, 3), 0);
	for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++)
		report_stat(&pl.report, &ev[i]);
	n = pipeline_top_patterns(&pl, top, 3);
	ck_assert_int_eq(n, 3);
	/* B and D both removed 4: ties by name */
	ck_assert_str_eq(top[0].pattern, "B");
	ck_assert_int_eq(top[0].removed, 4);
	ck_assert_int_eq(top[0].added, 1);
	ck_assert_int_eq(top[0].instances, 2);
	ck_assert_str_eq(top[1].pattern, "D");
	ck_assert_str_eq(top[2].pattern, "A");
	arena_free(&a);
}
END_TEST

/* A scratch directory with an options file holding text. */
static char *
scratch(Arena *a, const char *options)
{
	char tmpl[] = "/tmp/test_pipeline.XXXXXX";
	char *dir = mkdtemp(tmpl);
	FILE *f;

	ck_assert(dir != NULL);
	dir = arena_strdup(a, dir);
	f = fopen(arena_printf(a, "%s/opts.yaml", dir), "w");
	ck_assert(f != NULL);
	fputs(options, f);
	fclose(f);
	return dir;
}

static void
cleanup(Arena *a, const char *dir)
{
	static const char *const names[] = {"opts.yaml", "m.onnx", "m.xlsx", "m.onnx.data"};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		unlink(arena_printf(a, "%s/%s", dir, names[i]));
	rmdir(dir);
}

static int
run(Arena *a, const char *dir, const char *input, Pipeline *pl, Diag *d)
{
	int rc;

	pl->input = input;
	pl->options = arena_printf(a, "%s/opts.yaml", dir);
	pl->out = arena_printf(a, "%s/m.onnx", dir);
	pipeline_init(pl, a);
	rc = pipeline_run(pl, d);
	pipeline_close(pl);
	return rc;
}

START_TEST(run_writes_model_and_report)
{
	Arena a;
	Pipeline pl = {0};
	Diag d = {0};
	char *dir;

	arena_init(&a);
	dir = scratch(&a, "report_timings: false\n");
	ck_assert_int_eq(run(&a, dir, TEST_PATH("models/torch-2.14/mlp.pt2"), &pl, &d), 0);
	ck_assert_msg(test_diag_text(&d) == NULL, "%s", test_diag_text(&d));
	for (int i = 0; i < PHASE_COUNT; i++)
		ck_assert_msg(pl.ran[i] && pl.seconds[i] >= 0, "phase %s", phase_name[i]);
	ck_assert_int_eq(pl.aten_nodes, 3);
	ck_assert_int_eq(pl.onnx_nodes, 3);
	ck_assert_int_eq(pl.initializers, 4);
	ck_assert_int_eq(pl.initializer_bytes, (16 * 8 + 16 + 4 * 16 + 4) * 4);
	ck_assert_double_eq(pl.flops, (2 * 16 * 8 + 16) * 2 + 16 * 2 + (2 * 4 * 16 + 4) * 2);
	ck_assert_str_eq(pl.report_path, arena_printf(&a, "%s/m.xlsx", dir));
	ck_assert_int_eq(access(pl.report_path, R_OK), 0);
	ck_assert_int_eq(pl.report.nflops, 3);
	ck_assert_int_eq(pl.report.nunsupported, 0);
	cleanup(&a, dir);
	diag_free(&d);
	arena_free(&a);
}
END_TEST

START_TEST(run_without_report)
{
	Arena a;
	Pipeline pl = {0};
	Diag d = {0};
	char *dir;

	arena_init(&a);
	dir = scratch(&a, "report: false\n");
	ck_assert_int_eq(run(&a, dir, TEST_PATH("models/torch-2.14/mlp.pt2"), &pl, &d), 0);
	ck_assert_ptr_null(pl.report_path);
	ck_assert(!pl.ran[PHASE_REPORT]);
	ck_assert_int_ne(access(arena_printf(&a, "%s/m.xlsx", dir), F_OK), 0);
	ck_assert_int_eq(access(arena_printf(&a, "%s/m.onnx", dir), R_OK), 0);
	cleanup(&a, dir);
	diag_free(&d);
	arena_free(&a);
}
END_TEST

START_TEST(no_report_after_an_input_error)
{
	Arena a;
	Pipeline pl = {0};
	Diag d = {0};
	char *dir;

	arena_init(&a);
	dir = scratch(&a, "");
	ck_assert_int_eq(run(&a, dir, "/nonexistent/model.pt2", &pl, &d), DIAG_INPUT);
	ck_assert(test_diag_text(&d) && strstr(test_diag_text(&d), "/nonexistent/model.pt2"));
	ck_assert_ptr_null(pl.report_path);
	ck_assert(pl.ran[PHASE_READ] && !pl.ran[PHASE_LOWER]);
	ck_assert_int_ne(access(arena_printf(&a, "%s/m.xlsx", dir), F_OK), 0);
	cleanup(&a, dir);
	diag_free(&d);
	arena_free(&a);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("pipeline");
	TCase *c = tcase_create("core");

	tcase_add_test(c, report_path_replaces_the_extension);
	tcase_add_test(c, top_patterns_sum_per_pattern);
	tcase_add_test(c, run_writes_model_and_report);
	tcase_add_test(c, run_without_report);
	tcase_add_test(c, no_report_after_an_input_error);
	suite_add_tcase(s, c);
	return s;
}
