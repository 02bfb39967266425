/* test_report.c: the Report appenders and report_write(): the sample
 * workbook that test/report/check_xlsx.py reads, byte-identical rewrites,
 * and failures that name the path and leave no temporary file behind.
 *
 * Files go to $REPORT_OUT_DIR, or build/test by default:
 *   report_sample.xlsx  a few rows in every sheet, unsupported included
 *   report_empty.xlsx   an empty Report: header-only sheets, no unsupported
 *   report_odd.xlsx     NaN, invalid UTF-8, a 40000-character string
 * check_xlsx.py knows the values written here; change both together. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report/report.h"

#include "diagtext.h"
#include "testutil.h"

static const char *
out_dir(void)
{
	const char *d = getenv("REPORT_OUT_DIR");

	if (d && *d)
		return d;
	mkdir("build", 0777);
	mkdir("build/test", 0777);
	return "build/test";
}

static char *
out_path(Arena *a, const char *name)
{
	return arena_printf(a, "%s/%s", out_dir(), name);
}

static void
fill_sample(Report *r)
{
	static const ReportStat stats[] = {
		{"fuse_matmul_add", 4, 2, 0.0012, 0, 0, 2},
		{"remove_identity", 3, 0, 0.0003, 0, 1, 3},
		{"fuse_matmul_add", 2, 1, 0.0008, 1, 0, 1},
		{"constant_folding", 10, 1, 0.0100, 0, 2, 5},
		{"remove_identity", 1, 0, 0.0001, 1, 1, 1},
		{"cast_elim", 6, 0, 0.0002, 1, 2, 3},
		{"cast_cast", 0, 0, 0.00005, 2, 0, 0},
	};
	static const ReportNodeStat nodes[] = {
		{"MatMul", 12, 1.5e9},
		{"Add", 12, 3e6},
		{"Relu", 4, 1e5},
		{"com.microsoft:FusedMatMul", 2, -1},
		{"Shape", 30, 0},
	};
	static const ReportFlops flops[] = {
		{"MatMul", "matmul_1", "2*batch*seq*64*64", 1048576},
		{"Add", "add_3", "batch*seq*64", 8192},
		{"Shape", "shape_0", "0", 0},
		{"com.microsoft:FusedMatMul", "fused_2", NULL, -1},
		{"Relu", "relu_4", "4096", 4096},
	};
	static const ReportUnsupported un[] = {
		{"scatter_reduce_1", "aten.scatter_reduce.two", "model.py:42",
		 "reduce='mean' has no ONNX equivalent"},
		{"nonzero_7", "aten.nonzero.default", NULL, "data-dependent output shape"},
	};

	report_text(r, "model", "tiny_llm.pt2");
	report_num(r, "opset", 18);
	report_num(r, "conversion_seconds", 1.25);
	report_text(r, "torch_version", "2.6.0");
	report_num(r, "nodes_in", 412);
	report_num(r, "nodes_out", 298);
	for (size_t i = 0; i < sizeof stats / sizeof *stats; i++)
		report_stat(r, &stats[i]);
	for (size_t i = 0; i < sizeof nodes / sizeof *nodes; i++)
		report_node_stat(r, &nodes[i]);
	for (size_t i = 0; i < sizeof flops / sizeof *flops; i++)
		report_flops(r, &flops[i]);
	for (size_t i = 0; i < sizeof un / sizeof *un; i++)
		report_unsupported(r, &un[i]);
}

/* Returns the whole file in the arena, its size in *n. */
static char *
slurp(Arena *a, const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = arena_alloc(a, (size_t)len + 1);
	ck_assert_uint_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*n = (size_t)len;
	return buf;
}

static int
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

START_TEST(appenders_grow_and_keep_order)
{
	Arena a;
	Report r;

	arena_init(&a);
	report_init(&r, &a);
	ck_assert_ptr_eq(r.a, &a);
	for (int i = 0; i < 1000; i++) {
		ReportStat s = {arena_printf(&a, "p%d", i % 7), i, 1, 0.5, i / 100, i % 100, 1};
		report_stat(&r, &s);
		report_num(&r, "k", i);
	}
	report_text(&r, "null", NULL);
	ck_assert_int_eq(r.nstat, 1000);
	ck_assert_int_ge(r.cap_stat, 1000);
	ck_assert_int_eq(r.nkv, 1001);
	for (int i = 0; i < 1000; i++) {
		ck_assert_int_eq(r.stat[i].removed, i);
		ck_assert_int_eq(r.stat[i].match_index, i % 100);
		ck_assert_ptr_null(r.kv[i].text);
		ck_assert(r.kv[i].num == i);
	}
	ck_assert_str_eq(r.kv[1000].text, "");
	ck_assert_int_eq(r.nunsupported, 0);
	ck_assert_ptr_null(r.unsupported);
	arena_free(&a);
}
END_TEST

START_TEST(sample_workbooks)
{
	Arena a;
	Report r, empty;
	Diag d = {0};
	size_t n;
	char *path;

	arena_init(&a);
	report_init(&r, &a);
	fill_sample(&r);
	path = out_path(&a, "report_sample.xlsx");
	ck_assert_msg(report_write(&r, path, &d) == DIAG_OK, "%s", test_diag_text(&d));
	ck_assert_int_eq(memcmp(slurp(&a, path, &n), "PK\3\4", 4), 0);
	ck_assert(!exists(arena_printf(&a, "%s.tmp.%ld", path, (long)getpid())));

	report_init(&empty, &a);
	path = out_path(&a, "report_empty.xlsx");
	ck_assert_msg(report_write(&empty, path, &d) == DIAG_OK, "%s", test_diag_text(&d));
	ck_assert_ptr_null(test_diag_text(&d));
	arena_free(&a);
}
END_TEST

START_TEST(odd_values_still_write)
{
	Arena a;
	Report r;
	Diag d = {0};
	char *big;

	arena_init(&a);
	report_init(&r, &a);
	big = arena_alloc(&a, 40001);
	memset(big, 'x', 40000);
	report_num(&r, "nan", NAN);
	report_num(&r, "inf", INFINITY);
	report_num(&r, "-inf", -INFINITY);
	report_text(&r, "bad_utf8", "a\xff" "b\xc3");
	report_text(&r, "control", "tab\there\x01");
	report_text(&r, "long", big);
	report_text(&r, "utf8", "h\xc3\xa9llo \xe2\x86\x92 \xf0\x9f\x99\x82");
	ck_assert_msg(report_write(&r, out_path(&a, "report_odd.xlsx"), &d) == DIAG_OK,
	              "%s", test_diag_text(&d));
	arena_free(&a);
}
END_TEST

/* Same Report, two paths, another second and another time zone: same
 * bytes. */
START_TEST(rewrite_is_byte_identical)
{
	Arena a;
	Report r;
	Diag d = {0};
	char *p1, *p2, *b1, *b2;
	size_t n1, n2;

	arena_init(&a);
	report_init(&r, &a);
	fill_sample(&r);
	p1 = out_path(&a, "report_det_1.xlsx");
	p2 = out_path(&a, "report_det_2.xlsx");
	ck_assert_int_eq(report_write(&r, p1, &d), DIAG_OK);
	b1 = slurp(&a, p1, &n1);
	sleep(1);
	setenv("TZ", "Pacific/Kiritimati", 1);
	tzset();
	ck_assert_int_eq(report_write(&r, p2, &d), DIAG_OK);
	ck_assert_int_eq(report_write(&r, p2, &d), DIAG_OK);   /* over an existing file */
	b2 = slurp(&a, p2, &n2);
	ck_assert_uint_eq(n1, n2);
	ck_assert_msg(memcmp(b1, b2, n1) == 0, "%s and %s differ", p1, p2);
	/* The first zip entry is stamped 1980-01-01 00:00 (DOS date 0x0021),
	 * not the clock; check_xlsx.py checks the created property. */
	ck_assert_int_eq(memcmp(b1 + 10, "\0\0\x21\0", 4), 0);
	unlink(p1);
	unlink(p2);
	arena_free(&a);
}
END_TEST

START_TEST(missing_directory_fails)
{
	Arena a;
	Report r;
	Diag d = {0};
	char *path, *tmp;

	arena_init(&a);
	report_init(&r, &a);
	fill_sample(&r);
	path = out_path(&a, "no_such_dir/model.xlsx");
	tmp = arena_printf(&a, "%s.tmp.%ld", path, (long)getpid());
	ck_assert_int_eq(report_write(&r, path, &d), DIAG_INPUT);
	ck_assert_int_eq(d.code, DIAG_INPUT);
	ck_assert_str_eq(test_diag_text(&d), arena_printf(&a, "%s: cannot write the report "
	                 "(No such file or directory)\n", path));
	ck_assert(!exists(tmp));
	ck_assert(!exists(path));
	diag_free(&d);
	arena_free(&a);
}
END_TEST

/* The workbook is written, then rename() fails (the target is a
 * directory): the temporary file must go. */
START_TEST(failed_rename_removes_temp)
{
	Arena a;
	Report r;
	Diag d = {0};
	char *path, *tmp;
	struct stat st;

	arena_init(&a);
	report_init(&r, &a);
	fill_sample(&r);
	path = out_path(&a, "report_is_a_dir");
	tmp = arena_printf(&a, "%s.tmp.%ld", path, (long)getpid());
	ck_assert(mkdir(path, 0777) == 0 || errno == EEXIST);
	ck_assert_int_eq(report_write(&r, path, &d), DIAG_INPUT);
	ck_assert_msg(strstr(test_diag_text(&d), path) == test_diag_text(&d), "%s", test_diag_text(&d));
	ck_assert_ptr_nonnull(strstr(test_diag_text(&d), ": cannot write the report ("));
	ck_assert(!exists(tmp));
	ck_assert(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
	rmdir(path);
	diag_free(&d);
	arena_free(&a);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("report");
	TCase *core = tcase_create("core");
	TCase *sample = tcase_create("sample");

	tcase_add_test(core, appenders_grow_and_keep_order);
	tcase_add_test(core, rewrite_is_byte_identical);
	tcase_add_test(core, missing_directory_fails);
	tcase_add_test(core, failed_rename_removes_temp);
	tcase_add_test(sample, sample_workbooks);
	tcase_add_test(sample, odd_values_still_write);
	tcase_set_timeout(core, 20);
	suite_add_tcase(s, core);
	suite_add_tcase(s, sample);
	return s;
}
