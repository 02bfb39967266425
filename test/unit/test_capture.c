/* test_capture.c: capture bundles end to end, on the committed bundles of
 * test/models/bundles (written by test/capture/make_bundles.py): which
 * capture wins for each strategy/fallback choice, the captures rows, the
 * all-fail error, the output check, the strategy table against
 * cmd/yobx_capture.py, malformed bundles, and ONNX files as input.
 * onnxruntime checks the written models (test/capture/check.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/pipeline.h"
#include "diagtext.h"
#include "zipwrite.h"
#include "pipelinerun.h"
#include "testutil.h"

#define BUNDLE(name) TEST_PATH("models/bundles/" name ".yxc")

/* The strategies of the captures rows, space-separated. */
static const char *
tried(Run *r)
{
	const char *s = "";

	for (int i = 0; i < r->pl.report.ncapture; i++)
		s = arena_printf(&r->a, "%s%s%s", s, i ? " " : "", r->pl.report.capture[i].strategy);
	return s;
}

static const ReportCapture *
row(Run *r, const char *strategy)
{
	for (int i = 0; i < r->pl.report.ncapture; i++)
		if (strcmp(r->pl.report.capture[i].strategy, strategy) == 0)
			return &r->pl.report.capture[i];
	return NULL;
}

/* The winner for each strategy/fallback combination. */
static const struct {
	const char *bundle, *options, *winner, *tried;
} winners[] = {
	{"strict_fails", "", "nostrict", "nostrict"},
	{"strict_fails", "strategy: strict\nfallback: [nostrict-dec]\n", "nostrict-dec", "strict nostrict-dec"},
	{"strict_fails", "fallback: [strict, tracing, nostrict]\n", "tracing", "strict tracing"},
	{"only_decomposed", "", "nostrict-dec", "nostrict strict nostrict-dec"},
	{"only_decomposed", "fallback: [nostrict-decall, nostrict-dec]\n", "nostrict-decall", "nostrict-decall"},
	{"only_decomposed", "strategy: nostrict-dec\n", "nostrict-dec", "nostrict-dec"},
	{"only_tracing", "", "tracing", "nostrict strict nostrict-dec nostrict-decall tracing"},
	{"only_tracing", "strategy: tracing\n", "tracing", "tracing"},
	{"every_strategy", "", "nostrict", "nostrict"},
	{"every_strategy", "strategy: onnxscript\n", "onnxscript", "onnxscript"},
	{"every_strategy", "strategy: jit\nfallback: [onnxscript, strict]\n", "jit", "jit"},
	{"every_strategy", "fallback: [nostrict-decall]\n", "nostrict-decall", "nostrict-decall"},
};

START_TEST(winner_per_strategy_and_fallback)
{
	Run r;

	for (size_t i = 0; i < sizeof winners / sizeof winners[0]; i++) {
		const char *bundle = winners[i].bundle;
		char path[128];
		snprintf(path, sizeof path, "test/models/bundles/%s.yxc", bundle);
		test_run(&r, path, winners[i].options);
		ck_assert_msg(r.rc == 0, "%s [%s]: rc %d: %s", bundle, winners[i].options, r.rc, test_diag_text(&r.d));
		ck_assert_msg(strcmp(r.pl.strategy, winners[i].winner) == 0, "%s [%s]: won %s, want %s", bundle,
		              winners[i].options, r.pl.strategy, winners[i].winner);
		ck_assert_msg(strcmp(tried(&r), winners[i].tried) == 0, "%s [%s]: tried '%s', want '%s'", bundle,
		              winners[i].options, tried(&r), winners[i].tried);
		ck_assert(r.pl.winner && strcmp(r.pl.winner->name, winners[i].winner) == 0);
		ck_assert(test_run_has(&r, "m.onnx") && test_run_has(&r, "m.xlsx"));
		test_run_done(&r);
	}
}
END_TEST

START_TEST(captures_rows_say_why)
{
	Run r;
	const ReportCapture *c;

	test_run(&r, BUNDLE("only_tracing"), "report_timings: false\n");
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(r.pl.report.ncapture, 5);
	c = row(&r, "nostrict");
	ck_assert_str_eq(c->captured, "RuntimeError: this model refuses torch.export");
	ck_assert_str_eq(c->converted, "not tried");
	ck_assert_int_eq(c->nodes, -1);
	ck_assert(c->capture_seconds >= 0);     /* as the bundle records it */
	c = row(&r, "strict");
	ck_assert(strncmp(c->captured, "Unsupported: ", 13) == 0);
	c = row(&r, "tracing");
	ck_assert_str_eq(c->captured, "yes");
	ck_assert_str_eq(c->converted, "yes");
	ck_assert_int_eq(c->nodes, (int64_t)r.pl.model->graph->n_node);
	ck_assert(c->convert_seconds == 0);     /* report_timings: false */
	/* the rejected captures are notes: exit status 0 */
	ck_assert_int_eq(r.d.code, DIAG_OK);
	ck_assert(strstr(test_diag_text(&r.d), "capture 'nostrict': not captured: RuntimeError: this model refuses torch.export"));
	test_run_done(&r);

	/* a capture that does not convert names its first diagnostic */
	test_run(&r, BUNDLE("only_decomposed"), "");
	c = row(&r, "nostrict");
	ck_assert_msg(strstr(c->converted, "no ONNX lowering") && strstr(c->converted, "multi_margin_loss"), "%s",
	              c->converted);
	ck_assert(strstr(c->converted, "models.py:"));  /* the user's source line */
	test_run_done(&r);
}
END_TEST

START_TEST(all_fail_lists_every_strategy)
{
	Run r;
	const char *text;

	test_run(&r, BUNDLE("only_tracing"), "fallback: [nostrict, strict, onnxscript]\n");
	ck_assert_int_eq(r.rc, DIAG_CONVERT);
	text = test_diag_text(&r.d);
	ck_assert_msg(strstr(text, "capture 'nostrict': not captured: RuntimeError") &&
	              strstr(text, "capture 'strict': not captured: Unsupported") &&
	              strstr(text, "capture 'onnxscript': not captured: TorchExportError") &&
	              strstr(text, "none of the 3 captures tried converts"), "%s", text);
	ck_assert(!test_run_has(&r, "m.onnx"));          /* nothing written but the report */
	ck_assert(test_run_has(&r, "m.xlsx"));
	ck_assert_int_eq(r.pl.report.ncapture, 3);
	ck_assert_ptr_null(r.pl.model);
	test_run_done(&r);

	test_run(&r, BUNDLE("output_mismatch"), "fallback: [strict]\n");
	ck_assert_int_eq(r.rc, DIAG_CONVERT);
	text = test_diag_text(&r.d);
	ck_assert_msg(strstr(text, "capture 'strict': not in the bundle") &&
	              strstr(text, "the one capture tried, 'strict', does not convert"), "%s", text);
	ck_assert_str_eq(r.pl.report.capture[0].captured, "no (not in the bundle)");
	test_run_done(&r);

	test_run(&r, BUNDLE("only_tracing"), "fallback: []\n");
	ck_assert_int_eq(r.rc, DIAG_CONVERT);
	ck_assert(strstr(test_diag_text(&r.d), "no capture to try"));
	test_run_done(&r);
}
END_TEST

START_TEST(output_check_rejects_a_mismatch)
{
	Run r;
	const char *text;

	test_run(&r, BUNDLE("output_mismatch"), "");
	ck_assert_int_eq(r.rc, DIAG_CONVERT);
	text = test_diag_text(&r.d);
	ck_assert_msg(strstr(text, "capture 'nostrict': not converted: outputs differ from torch's: output 0") &&
	              strstr(text, "has size 3 at axis 1 (static), torch's has 2"), "%s", text);
	ck_assert(!test_run_has(&r, "m.onnx"));
	test_run_done(&r);
	/* the same model, untampered, passes with its dynamic batch evaluated */
	test_run(&r, BUNDLE("every_strategy"), "strategy: onnxscript\n");
	ck_assert_int_eq(r.rc, 0);
	test_run_done(&r);
}
END_TEST

/* An ONNX capture is optimized at its own opset; a .pt2 capture tried after
 * it is lowered at the options' opset, not the ONNX capture's. */
START_TEST(onnx_capture_opset_does_not_leak)
{
	Run r;

	test_run(&r, BUNDLE("every_strategy"), "strategy: onnxscript\nfallback: [nostrict]\nopset: 17\n");
	ck_assert_int_eq(r.rc, 0);
	ck_assert_str_eq(r.pl.strategy, "nostrict");
	ck_assert_int_eq(r.pl.opt.opset, 17);
	ck_assert(strstr(test_diag_text(&r.d), "is written for opset 20"));
	test_run_done(&r);
	test_run(&r, BUNDLE("every_strategy"), "strategy: onnxscript\n");
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(r.pl.opt.opset, 20);
	test_run_done(&r);
}
END_TEST

/* The onnxscript capture, optimized, has no more nodes than the .pt2 path. */
START_TEST(onnxscript_converges)
{
	static const struct {
		const char *bundle, *pt2;
	} pairs[] = {
		{"every_strategy", "strategy: nostrict\n"},
		{"strict_fails", "strategy: nostrict\n"},
		{"only_decomposed", "strategy: nostrict-dec\n"},
	};

	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		Run r;
		char path[128];
		int64_t pt2, ox;
		snprintf(path, sizeof path, "test/models/bundles/%s.yxc", pairs[i].bundle);
		test_run(&r, path, pairs[i].pt2);
		ck_assert_int_eq(r.rc, 0);
		pt2 = (int64_t)r.pl.model->graph->n_node;
		test_run_done(&r);
		test_run(&r, path, "strategy: onnxscript\n");
		ck_assert_msg(r.rc == 0, "%s: %s", pairs[i].bundle, test_diag_text(&r.d));
		ox = (int64_t)r.pl.model->graph->n_node;
		ck_assert_msg(ox <= pt2, "%s: onnxscript %lld nodes, .pt2 %lld", pairs[i].bundle, (long long)ox,
		              (long long)pt2);
		ck_assert_str_eq(r.pl.strategy, "onnxscript");
		ck_assert(r.pl.winner->dynamo && !r.pl.winner->jit);
		test_run_done(&r);
	}
}
END_TEST

/* cmd/yobx_capture.py's STRATEGIES lists strategy.def's rows, in order. */
START_TEST(helper_lists_the_same_strategies)
{
	size_t len;
	char *py = test_slurp("cmd/yobx_capture.py", &len), *p, *end;
	Arena a;
	const char *want = "", *got = "";

	arena_init(&a);
	ck_assert(py != NULL);
	p = strstr(py, "\nSTRATEGIES = [");
	ck_assert(p != NULL);
	end = strchr(p, ']');
	for (p = strchr(p, '"'); p && p < end; p = strchr(strchr(p + 1, '"') + 1, '"')) {
		char *q = strchr(p + 1, '"');
		got = arena_printf(&a, "%s%s%.*s", got, *got ? " " : "", (int)(q - p - 1), p + 1);
	}
	for (int i = 0; i < pipeline_strategy_count(); i++)
		want = arena_printf(&a, "%s%s%s", want, i ? " " : "", pipeline_strategies[i].name);
	ck_assert_str_eq(got, want);
	free(py);
	arena_free(&a);
}
END_TEST

START_TEST(options_check_strategy_names)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{"strategy: nostrictt\n", "opts.yaml:1:11: 'strategy' needs auto or a strategy name (nostrict, strict"},
		{"fallback: nostrict\n", "opts.yaml:1:11: 'fallback' needs a list of strategy names"},
		{"fallback: [strict, bogus]\n", "opts.yaml:1:20: 'fallback': unknown strategy 'bogus'"},
		{"fallback: [strict, strict]\n", "opts.yaml:1:20: 'fallback': 'strict' is listed twice"},
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		Run r;
		test_run(&r, BUNDLE("every_strategy"), bad[i].text);
		ck_assert_int_eq(r.rc, DIAG_INPUT);
		ck_assert_msg(strstr(test_diag_text(&r.d), bad[i].want), "%s: %s", bad[i].text, test_diag_text(&r.d));
		ck_assert(!test_run_has(&r, "m.onnx") && !test_run_has(&r, "m.xlsx"));
		test_run_done(&r);
	}
}
END_TEST

/* A malformed bundle is bad input with capture.json's line and column. */
START_TEST(malformed_bundles)
{
	static const struct {
		const char *json, *want;
	} bad[] = {
		{"{\"format\": \"other\", \"version\": 1}", "capture.json:1:12: \"format\" must be \"yobx-capture\""},
		{"{\"format\": \"yobx-capture\", \"version\": 9}", "format version 9 is newer than this reader's (1)"},
		{"{\"format\": \"yobx-capture\", \"version\": 1, \"attempts\": [{\"strategy\": \"strict\", "
		 "\"ok\": true, \"file\": \"captures/none.pt2\"}], \"inputs\": [], \"outputs\": []}",
		 "captures/none.pt2: the bundle has no entry by that name"},
		{"{\"format\": \"yobx-capture\", \"version\": 1, \"attempts\": [], \"inputs\": "
		 "[{\"file\": \"capture.json\", \"dtype\": \"float32\", \"shape\": [2]}], \"outputs\": []}",
		 "capture.json: "},
		{"{\"format\": \"yobx-capture\", \"version\": 1, \"attempts\": [], \"inputs\": "
		 "[{\"file\": \"capture.json\", \"dtype\": \"complexx\", \"shape\": [2]}], \"outputs\": []}",
		 "dtype 'complexx': not a torch dtype name"},
		{"{\"format\": \"yobx-capture\", \"version\": 1, \"attempts\": [{\"strategy\": \"a\", \"ok\": false},"
		 " {\"strategy\": \"a\", \"ok\": false}], \"inputs\": [], \"outputs\": []}",
		 "strategy 'a' is recorded twice"},
		{"{\"format\": \"yobx-capture\", \"version\": 1", "capture.json:1:"},
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		Run r;
		char dir[] = "/tmp/test_capture_in.XXXXXX", path[64];
		ck_assert(mkdtemp(dir) != NULL);
		snprintf(path, sizeof path, "%s/b.yxc", dir);
		test_write_zip(path, "capture.json", bad[i].json, strlen(bad[i].json));
		test_run(&r, path, "");
		ck_assert_int_eq(r.rc, DIAG_INPUT);
		ck_assert_msg(strstr(test_diag_text(&r.d), bad[i].want), "%zu: %s", i, test_diag_text(&r.d));
		ck_assert(!test_run_has(&r, "m.onnx") && !test_run_has(&r, "m.xlsx"));
		unlink(path);
		rmdir(dir);
		test_run_done(&r);
	}
}
END_TEST

/* An ONNX file as input: optimized, written, reported; its opset kept, or
 * raised when the options ask, never lowered. */
START_TEST(onnx_input_round_trip)
{
	Run r, re;
	char *onnx;
	int64_t nodes;

	test_run(&r, TEST_PATH("models/torch-2.14/cnn.pt2"), "patterns: none\nexternal_data_threshold: 64\n");
	ck_assert_int_eq(r.rc, 0);
	nodes = (int64_t)r.pl.model->graph->n_node;
	ck_assert(test_run_has(&r, "m.onnx.data"));      /* external data, read back below */
	onnx = arena_printf(&r.a, "%s/m.onnx", r.dir);
	test_run(&re, onnx, "report_timings: false\n");
	ck_assert_msg(re.rc == 0, "%s", test_diag_text(&re.d));
	ck_assert_int_eq(re.pl.kind, INPUT_ONNX);
	ck_assert_str_eq(re.pl.strategy, "onnx");
	ck_assert((int64_t)re.pl.model->graph->n_node < nodes);   /* the patterns ran */
	ck_assert_int_eq(re.pl.report.ncapture, 1);
	ck_assert_str_eq(re.pl.report.capture[0].strategy, "onnx");
	ck_assert(re.pl.report.nflops > 0);
	ck_assert(!re.pl.ran[PHASE_LOWER] && re.pl.ran[PHASE_OPTIMIZE]);
	test_run_done(&re);

	/* a later opset asked for: raised (nothing in cnn changed from 18 to 21) */
	test_run(&re, onnx, "opset: 21\n");
	ck_assert_msg(re.rc == 0, "%s", test_diag_text(&re.d));
	ck_assert_int_eq(re.pl.upgrade.from, 18);
	ck_assert_int_eq(re.pl.upgrade.to, 21);
	ck_assert_int_eq((int)re.pl.model->opset_import[0]->version, 21);
	test_run_done(&re);

	/* an earlier one: an error, nothing written */
	test_run(&re, onnx, "opset: 17\n");
	ck_assert_int_eq(re.rc, DIAG_INPUT);
	ck_assert(strstr(test_diag_text(&re.d), "is written for opset 18"));
	ck_assert(strstr(test_diag_text(&re.d), "never lowered"));
	ck_assert(!test_run_has(&re, "m.onnx"));
	test_run_done(&re);
	test_run_done(&r);
}
END_TEST

START_TEST(onnx_input_errors)
{
	static const struct {
		const char *bytes;
		size_t len;
		const char *want;
	} bad[] = {
		{"\x08\x08\x3a\xff\xff", 5, "not an ONNX model: the bytes do not parse"},
		{"\x08\x08", 2, "the ModelProto has no graph"},
		/* ir 8, opset 18, a graph whose Relu 'r1' reads 'nope' */
		{"\x08\x08\x42\x02\x10\x12\x3a\x1a\x0a\x13\x0a\x04nope\x12\x01y\x1a\x02r1\x22\x04Relu\x62\x03\x0a\x01y",
		 34, "bad.onnx:graph: node 'r1' (Relu): reads 'nope', which no graph input, initializer or "
		 "earlier node defines"},
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		Run r;
		char dir[] = "/tmp/test_capture_in.XXXXXX", path[64];
		FILE *f;
		ck_assert(mkdtemp(dir) != NULL);
		snprintf(path, sizeof path, "%s/bad.onnx", dir);
		ck_assert((f = fopen(path, "wb")) != NULL);
		fwrite(bad[i].bytes, 1, bad[i].len, f);
		fclose(f);
		test_run(&r, path, "");
		ck_assert_int_eq(r.rc, DIAG_INPUT);
		ck_assert_msg(strstr(test_diag_text(&r.d), bad[i].want), "%s", test_diag_text(&r.d));
		ck_assert(!test_run_has(&r, "m.onnx") && !test_run_has(&r, "m.xlsx"));
		unlink(path);
		rmdir(dir);
		test_run_done(&r);
	}
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("capture");
	TCase *c = tcase_create("core");

	tcase_set_timeout(c, 120);
	tcase_add_test(c, winner_per_strategy_and_fallback);
	tcase_add_test(c, captures_rows_say_why);
	tcase_add_test(c, all_fail_lists_every_strategy);
	tcase_add_test(c, output_check_rejects_a_mismatch);
	tcase_add_test(c, onnxscript_converges);
	tcase_add_test(c, onnx_capture_opset_does_not_leak);
	tcase_add_test(c, helper_lists_the_same_strategies);
	tcase_add_test(c, options_check_strategy_names);
	tcase_add_test(c, malformed_bundles);
	tcase_add_test(c, onnx_input_round_trip);
	tcase_add_test(c, onnx_input_errors);
	suite_add_tcase(s, c);
	return s;
}
