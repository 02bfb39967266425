/* overview.c: the overview sheet, first in the workbook: what a person
 * looks for first, read from the extra sheet's facts (r->kv), the time of
 * each phase with its chart, and a link to every other sheet.
 *
 * It is one table (fact, value, note).  A fact whose key the Report does
 * not have is left out (an ONNX input has no torch version, a failed
 * conversion no ONNX counts), so the rows below are what can show. */
#include "report/internal.h"

#include <stdio.h>
#include <string.h>

enum { OV_TEXT, OV_INT, OV_FLOPS };

/* The facts, in order: X(label, extra's key, kind).  `verification` is the
 * hook for the outputs' check against torch: a Report with a
 * "verification" fact (its status as text) shows it here. */
#define OVERVIEW_FACTS(X) \
	X("input file",         "input",                  OV_TEXT) \
	X("torch version",      "torch_version",          OV_TEXT) \
	X("container",          "container",              OV_TEXT) \
	X("capture strategy",   "capture_strategy",       OV_TEXT) \
	X("result",             "result",                 OV_TEXT) \
	X("output",             "output",                 OV_TEXT) \
	X("unsupported nodes",  "unsupported_nodes",      OV_INT) \
	X("verification",       "verification",           OV_TEXT) \
	X("ATen nodes",         "aten_nodes",             OV_INT) \
	X("ONNX nodes",         "onnx_nodes",             OV_INT) \
	X("weights",            "onnx_initializers",      OV_INT) \
	X("weight bytes",       "onnx_initializer_bytes", OV_INT) \
	X("external data file", "onnx_external_data",     OV_TEXT) \
	X("FLOPs at the sample sizes", "flops_total",     OV_FLOPS) \
	X("nodes of unknown FLOPs", "flops_unknown_nodes", OV_INT) \
	X("ONNX opset",         "onnx_opset",             OV_INT) \
	X("IR version",         "onnx_ir_version",        OV_INT)

/* What each sheet holds, for its link; a sheet not listed links with its
 * name alone. */
#define OVERVIEW_SHEETS(X) \
	X("extra",          "every fact, option and ATen op count") \
	X("stats",          "one row per optimizer event") \
	X("stats_agg",      "optimizer events summed per pattern, with a chart") \
	X("node_stats",     "ONNX nodes per op type, with a chart") \
	X("flops_by_op",    "FLOPs per ONNX op type, largest first, with a chart") \
	X("symbolic_flops", "FLOPs of every node, as a formula and a number") \
	X("functions",      "the local functions made") \
	X("captures",       "the captures tried") \
	X("unsupported",    "the nodes not converted")

static const ReportKV *
fact(const Report *r, const char *key)
{
	for (int i = 0; i < r->nkv; i++)
		if (strcmp(r->kv[i].key, key) == 0)
			return &r->kv[i];
	return NULL;
}

static void
put_fact(Writer *w, Sheet *s, const ReportKV *kv, int kind)
{
	if (kv->text)
		put_text(w, s, 1, kv->text, kind == OV_TEXT ? XLSX_PLAIN : XLSX_RIGHT);
	else if (kind == OV_FLOPS)
		put_flops(w, s, 1, kv->num);
	else
		put_num(w, s, 1, kv->num, kind == OV_INT ? NUM_INT : NUM_GENERAL);
}

/* One row per phase, "time <phase> (ms)", then the total; returns the row
 * of the first phase (the chart's), or 0 when the Report has no times or
 * they are all 0 (report_timings: false). */
static uint32_t
put_times(Writer *w, Sheet *s, const Report *r)
{
	const ReportKV *opt = fact(r, "option:report_timings");
	const char *why = opt && (opt->text ? strcmp(opt->text, "true") != 0 : opt->num == 0)
	                  ? "0: the option report_timings is false" : NULL;
	uint32_t first = 0;
	int any = 0;

	for (int i = 0; i < r->nkv; i++) {
		const ReportKV *kv = &r->kv[i];
		size_t n = strlen(kv->key);
		if (kv->text || strncmp(kv->key, "time_", 5) || n < 13 ||
		    strcmp(kv->key + n - 8, "_seconds"))
			continue;
		s->row++;
		if (!first)
			first = s->row;
		put_text(w, s, 0, arena_printf(w->a, "time %.*s (ms)", (int)(n - 13), kv->key + 5),
		         XLSX_PLAIN);
		put_num(w, s, 1, kv->num * 1e3, NUM_MS);
		put_text(w, s, 2, why, XLSX_PLAIN);
		any |= kv->num != 0;
	}
	return any ? first : 0;   /* no chart of zeros */
}

int
overview_begin(Writer *w, Sheet *s)
{
	static const char *const head[] = {"fact", "value", "note"};

	return sheet_begin(w, s, "overview", head, 3);
}

void
write_overview(Writer *w, Sheet *s, const Report *r)
{
	static const struct { const char *label, *key; int kind; } facts[] = {
#define X(label, key, kind) {label, key, kind},
		OVERVIEW_FACTS(X)
#undef X
	};
	static const struct { const char *sheet, *what; } about[] = {
#define X(sheet, what) {sheet, what},
		OVERVIEW_SHEETS(X)
#undef X
	};
	uint32_t times, last;

	for (size_t i = 0; i < sizeof facts / sizeof *facts; i++) {
		const ReportKV *kv = fact(r, facts[i].key);
		if (!kv)
			continue;
		s->row++;
		put_text(w, s, 0, facts[i].label, XLSX_PLAIN);
		put_fact(w, s, kv, facts[i].kind);
	}
	times = put_times(w, s, r);
	last = s->row - 1;         /* the total is not a phase */
	for (int i = 0; i < w->nsheet; i++) {
		const char *what = w->sheets[i];
		if (strcmp(w->sheets[i], "overview") == 0)
			continue;
		for (size_t k = 0; k < sizeof about / sizeof *about; k++)
			if (strcmp(about[k].sheet, w->sheets[i]) == 0)
				what = about[k].what;
		s->row++;
		put_text(w, s, 0, "sheet", XLSX_PLAIN);
		put_link(w, s, 1, w->sheets[i], w->sheets[i]);
		put_text(w, s, 2, what, XLSX_PLAIN);
	}
	sheet_end(w, s);
	if (times)
		chart_bars(w, s, "time per phase (ms)", times, last, 0, (const int[]){1}, 1, 4);
}
