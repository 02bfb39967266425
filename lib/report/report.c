/* report.c: the Report's arena-backed row arrays, and report_write(), which
 * lays them out as model.xlsx with libxlsxwriter (book.c).
 *
 * Every sheet is an Excel table (header row, autofilter, banded rows) with a
 * bold, frozen header and column widths taken from the longest cell.  The
 * file must be byte-identical for the same Report, so the workbook's creation
 * time is fixed (book.c), and numbers are printed under the C locale
 * (libxlsxwriter prints doubles with snprintf("%.16G"), which follows
 * LC_NUMERIC).  The workbook is written to a durable temporary file renamed
 * into place with the ONNX files (core's durable_*), so a reader never sees
 * half a workbook and a failure leaves nothing behind. */
#include "report/report.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/internal.h"

/* ---- appenders ---------------------------------------------------------- */

void
report_init(Report *r, Arena *a)
{
	memset(r, 0, sizeof *r);
	r->a = a;
}

/* Makes room for one more element of size `size` in *arr (n used, *cap
 * allocated).  Doubling in the arena: the old array stays there, so the waste
 * is at most the final size. */
static void *
grow(Arena *a, void *arr, int n, int *cap, size_t size)
{
	void *p;

	if (n < *cap)
		return arr;
	if (*cap > (1 << 29))
		die("report: too many rows");
	*cap = *cap ? *cap * 2 : 16;
	p = arena_alloc(a, size * (size_t)*cap);
	if (n)
		memcpy(p, arr, size * (size_t)n);
	return p;
}

#define REPORT_PUSH(r, arr, n, cap) \
	((r)->arr = grow((r)->a, (r)->arr, (r)->n, &(r)->cap, sizeof *(r)->arr), \
	 &(r)->arr[(r)->n++])

void
report_text(Report *r, const char *key, const char *text)
{
	ReportKV *kv = REPORT_PUSH(r, kv, nkv, cap_kv);

	kv->key = key;
	kv->text = text ? text : "";
}

void
report_num(Report *r, const char *key, double num)
{
	ReportKV *kv = REPORT_PUSH(r, kv, nkv, cap_kv);

	kv->key = key;
	kv->text = NULL;
	kv->num = num;
}

void
report_stat(Report *r, const ReportStat *s)
{
	*REPORT_PUSH(r, stat, nstat, cap_stat) = *s;
}

void
report_opt_stat(void *ctx, const OptStat *s)
{
	report_stat(ctx, s);
}

void
report_node_stat(Report *r, const ReportNodeStat *s)
{
	*REPORT_PUSH(r, node_stat, nnode_stat, cap_node_stat) = *s;
}

void
report_flops(Report *r, const ReportFlops *f)
{
	*REPORT_PUSH(r, flops, nflops, cap_flops) = *f;
}

void
report_unsupported(Report *r, const ReportUnsupported *u)
{
	*REPORT_PUSH(r, unsupported, nunsupported, cap_unsupported) = *u;
}

void
report_capture(Report *r, const ReportCapture *c)
{
	*REPORT_PUSH(r, capture, ncapture, cap_capture) = *c;
}

void
report_axis(Report *r, const ReportAxis *x)
{
	*REPORT_PUSH(r, axis, naxis, cap_axis) = *x;
}

void
report_discrepancy(Report *r, const ReportDiscrepancy *x)
{
	*REPORT_PUSH(r, discrepancy, ndiscrepancy, cap_discrepancy) = *x;
}

void
report_functions(Report *r, const OutlineResult *res)
{
	r->functions = res ? arena_dup(r->a, res, sizeof *res) : NULL;
}

/* ---- the sheets -------------------------------------------------------- */

/* numbers among text (symbolic_flops) */
static const XlsxFormat left_format[NUM_KINDS] = {
	[NUM_GENERAL] = XLSX_LEFT, [NUM_INT] = XLSX_INT_LEFT, [NUM_SECONDS] = XLSX_SECONDS_LEFT,
	[NUM_MS] = XLSX_LEFT,
};

static void
write_extra(Writer *w, const Report *r)
{
	static const char *const head[] = {"key", "value"};
	Sheet s;

	if (sheet_begin(w, &s, "extra", head, 2) < 0)
		return;
	note_cut(w, &s, "stats", r->nstat);
	note_cut(w, &s, "node_stats", r->nnode_stat);
	note_cut(w, &s, "symbolic_flops", r->nflops);
	note_cut(w, &s, "unsupported", r->nunsupported);
	note_cut(w, &s, "captures", r->ncapture);
	note_cut(w, &s, "discrepancies", r->ndiscrepancy);
	for (int i = 0; i < r->nkv && (int)s.row < REPORT_MAXROWS; i++) {
		const ReportKV *kv = &r->kv[i];
		s.row++;
		put_text(w, &s, 0, kv->key, XLSX_PLAIN);
		if (kv->text)
			put_text(w, &s, 1, kv->text, XLSX_PLAIN);
		else
			put_num(w, &s, 1, kv->num, NUM_GENERAL);
	}
	sheet_end(w, &s);
}

static void
write_stats(Writer *w, const Report *r)
{
	static const char *const head[] = {"pattern", "removed", "added", "time_in",
	                                   "iteration", "match_index", "instances"};
	Sheet s;

	if (sheet_begin(w, &s, "stats", head, 7) < 0)
		return;
	for (int i = 0; i < shown(r->nstat); i++) {
		const ReportStat *st = &r->stat[i];
		s.row = (uint32_t)i + 1;
		put_text(w, &s, 0, st->pattern, XLSX_PLAIN);
		put_num(w, &s, 1, (double)st->removed, NUM_INT);
		put_num(w, &s, 2, (double)st->added, NUM_INT);
		put_num(w, &s, 3, st->time_in, NUM_SECONDS);
		put_num(w, &s, 4, st->iteration, NUM_INT);
		put_num(w, &s, 5, st->match_index, NUM_INT);
		put_num(w, &s, 6, (double)st->instances, NUM_INT);
	}
	sheet_end(w, &s);
}

/* One pattern's events summed; `first` is its first event, which makes the
 * grouping sort a total order. */
typedef struct Agg {
	const char *pattern;
	int64_t removed, added, instances, events;
	double time_in;
	int first;
} Agg;

static int
cmp_by_pattern(const void *x, const void *y)
{
	const Agg *a = x, *b = y;
	int c = strcmp(a->pattern, b->pattern);

	return c ? c : (a->first > b->first) - (a->first < b->first);
}

static int
cmp_by_removed(const void *x, const void *y)
{
	const Agg *a = x, *b = y;

	if (a->removed != b->removed)
		return a->removed > b->removed ? -1 : 1;
	return cmp_by_pattern(x, y);
}

/* Sums r->stat per pattern into an arena array sorted by removed descending,
 * then pattern name; returns the number of patterns.  Events are summed in
 * insertion order, so the time sums do not depend on the sort. */
static int
aggregate(Arena *a, const Report *r, Agg **out)
{
	Agg *ev = ARENA_ARRAY(a, Agg, r->nstat ? r->nstat : 1);
	int n = 0;

	for (int i = 0; i < r->nstat; i++) {
		const ReportStat *st = &r->stat[i];
		ev[i] = (Agg){nz(st->pattern), st->removed, st->added, st->instances, 1,
		              st->time_in, i};
	}
	qsort(ev, (size_t)r->nstat, sizeof *ev, cmp_by_pattern);
	for (int i = 0; i < r->nstat; i++) {
		if (n && strcmp(ev[n - 1].pattern, ev[i].pattern) == 0) {
			ev[n - 1].removed += ev[i].removed;
			ev[n - 1].added += ev[i].added;
			ev[n - 1].instances += ev[i].instances;
			ev[n - 1].events++;
			ev[n - 1].time_in += ev[i].time_in;
		} else
			ev[n++] = ev[i];
	}
	qsort(ev, (size_t)n, sizeof *ev, cmp_by_removed);
	*out = ev;
	return n;
}

static void
write_stats_agg(Writer *w, const Report *r)
{
	static const char *const head[] = {"pattern", "removed", "added", "time_in",
	                                   "instances", "events"};
	Sheet s;
	Agg *g;
	int n = aggregate(w->a, r, &g);

	if (sheet_begin(w, &s, "stats_agg", head, 6) < 0)
		return;
	for (int i = 0; i < shown(n); i++) {
		s.row = (uint32_t)i + 1;
		put_text(w, &s, 0, g[i].pattern, XLSX_PLAIN);
		put_num(w, &s, 1, (double)g[i].removed, NUM_INT);
		put_num(w, &s, 2, (double)g[i].added, NUM_INT);
		put_num(w, &s, 3, g[i].time_in, NUM_SECONDS);
		put_num(w, &s, 4, (double)g[i].instances, NUM_INT);
		put_num(w, &s, 5, (double)g[i].events, NUM_INT);
	}
	sheet_end(w, &s);
	chart_bars(w, &s, "nodes removed and added per pattern", 1, s.row, 0,
	           (const int[]){1, 2}, 2, 7);
}

typedef struct NodeRef {
	const ReportNodeStat *p;
	int i;          /* insertion index: the last tie-break */
} NodeRef;

static int
cmp_node(const void *x, const void *y)
{
	const NodeRef *a = x, *b = y;
	int c;

	if (a->p->count != b->p->count)
		return a->p->count > b->p->count ? -1 : 1;
	if ((c = strcmp(nz(a->p->op_type), nz(b->p->op_type))))
		return c;
	return (a->i > b->i) - (a->i < b->i);
}

static void
write_node_stats(Writer *w, const Report *r)
{
	static const char *const head[] = {"op_type", "count", "flops"};
	NodeRef *ref = ARENA_ARRAY(w->a, NodeRef, r->nnode_stat ? r->nnode_stat : 1);
	Sheet s;

	for (int i = 0; i < r->nnode_stat; i++)
		ref[i] = (NodeRef){&r->node_stat[i], i};
	qsort(ref, (size_t)r->nnode_stat, sizeof *ref, cmp_node);
	if (sheet_begin(w, &s, "node_stats", head, 3) < 0)
		return;
	for (int i = 0; i < shown(r->nnode_stat); i++) {
		s.row = (uint32_t)i + 1;
		put_text(w, &s, 0, ref[i].p->op_type, XLSX_PLAIN);
		put_num(w, &s, 1, (double)ref[i].p->count, NUM_INT);
		put_flops(w, &s, 2, ref[i].p->flops);
	}
	sheet_end(w, &s);
	chart_bars(w, &s, "nodes by op type", 1, s.row, 0, (const int[]){1}, 1, 4);
}

static int
cmp_flops(const void *x, const void *y)
{
	const NodeRef *a = x, *b = y;
	double fa = a->p->flops, fb = b->p->flops;
	int c;

	if (fa != fb)
		return fa > fb ? -1 : 1;     /* unknown (-1) last */
	if ((c = strcmp(nz(a->p->op_type), nz(b->p->op_type))))
		return c;
	return (a->i > b->i) - (a->i < b->i);
}

/* node_stats sorted by FLOPs, largest first (unknown last), with each op
 * type's share of the known total, and the chart of the known ones. */
static void
write_flops_by_op(Writer *w, const Report *r)
{
	static const char *const head[] = {"op_type", "flops", "share", "count"};
	NodeRef *ref = ARENA_ARRAY(w->a, NodeRef, r->nnode_stat ? r->nnode_stat : 1);
	double total = 0;
	uint32_t known = 0;
	Sheet s;

	for (int i = 0; i < r->nnode_stat; i++) {
		ref[i] = (NodeRef){&r->node_stat[i], i};
		if (r->node_stat[i].flops > 0)
			total += r->node_stat[i].flops;
	}
	qsort(ref, (size_t)r->nnode_stat, sizeof *ref, cmp_flops);
	if (sheet_begin(w, &s, "flops_by_op", head, 4) < 0)
		return;
	for (int i = 0; i < shown(r->nnode_stat); i++) {
		double f = ref[i].p->flops;
		s.row = (uint32_t)i + 1;
		put_text(w, &s, 0, ref[i].p->op_type, XLSX_PLAIN);
		put_flops(w, &s, 1, f);
		if (f >= 0 && total > 0)
			put_num_fmt(w, &s, 2, f / total, NUM_GENERAL, XLSX_PERCENT);
		put_num(w, &s, 3, (double)ref[i].p->count, NUM_INT);
		if (f > 0)
			known = s.row;
	}
	sheet_end(w, &s);
	chart_bars(w, &s, "FLOPs by op type", 1, known, 0, (const int[]){1}, 1, 5);
}

/* The expression column holds text; an expression that is just a number
 * ("4096") is written as a number, so that Excel does not flag a number
 * stored as text, but aligned left like the expressions around it. */
static void
put_expr(Writer *w, Sheet *s, int col, const char *expr)
{
	char *end;
	double v;

	if (!expr || !*expr) {
		put_text(w, s, col, "unknown", XLSX_PLAIN);
		return;
	}
	errno = 0;
	v = strtod(expr, &end);
	if (*end == 0 && errno == 0 && isfinite(v) && !strchr(expr, ' ') &&
	    !strpbrk(expr, "xXpP"))   /* strtod also reads hex floats */
		put_num_fmt(w, s, col, v, v == floor(v) ? NUM_INT : NUM_GENERAL,
		            left_format[v == floor(v) ? NUM_INT : NUM_GENERAL]);
	else
		put_text(w, s, col, expr, XLSX_PLAIN);
}

static void
write_symbolic_flops(Writer *w, const Report *r)
{
	static const char *const head[] = {"op_type", "node_name", "symbolic_flops", "flops"};
	Sheet s;

	if (sheet_begin(w, &s, "symbolic_flops", head, 4) < 0)
		return;
	for (int i = 0; i < shown(r->nflops); i++) {
		const ReportFlops *f = &r->flops[i];
		s.row = (uint32_t)i + 1;
		put_text(w, &s, 0, f->op_type, XLSX_PLAIN);
		put_text(w, &s, 1, f->node_name, XLSX_PLAIN);
		put_expr(w, &s, 2, f->expr);
		put_flops(w, &s, 3, f->value);
	}
	sheet_end(w, &s);
}

/* What was tried: one row per capture, in the order tried; a time or a
 * node count that is not known is an empty cell. */
static void
write_captures(Writer *w, const Report *r)
{
	static const char *const head[] = {"strategy", "captured", "converted", "nodes",
	                                   "capture_seconds", "convert_seconds"};
	Sheet s;

	if (!r->ncapture || sheet_begin(w, &s, "captures", head, 6) < 0)
		return;
	for (int i = 0; i < shown(r->ncapture); i++) {
		const ReportCapture *c = &r->capture[i];
		s.row = (uint32_t)i + 1;
		put_text(w, &s, 0, c->strategy, XLSX_PLAIN);
		put_text(w, &s, 1, c->captured, XLSX_PLAIN);
		put_text(w, &s, 2, c->converted, XLSX_PLAIN);
		if (c->nodes >= 0)
			put_num(w, &s, 3, (double)c->nodes, NUM_INT);
		if (c->capture_seconds >= 0)
			put_num(w, &s, 4, c->capture_seconds, NUM_SECONDS);
		if (c->convert_seconds >= 0)
			put_num(w, &s, 5, c->convert_seconds, NUM_SECONDS);
	}
	sheet_end(w, &s);
}

/* With the option `functions`: what became of the listed classes. */
static void
write_functions(Writer *w, const Report *r)
{
	static const char *const head[] = {"domain", "function", "class", "instances", "calls", "nodes",
	                                   "inputs", "outputs", "attributes"};
	const OutlineResult *f = r->functions;
	Sheet s;

	if (!f || sheet_begin(w, &s, "functions", head, 9) < 0)
		return;
	for (int i = 0; i < f->nfunction; i++) {
		const OutlineFunction *fn = &f->functions[i];
		const char *calls = "";
		for (int k = 0; k < fn->ninstance; k++)
			calls = arena_printf(w->a, "%s%s%s", calls, k ? ", " : "", fn->instances[k]);
		s.row++;
		put_text(w, &s, 0, fn->domain, XLSX_PLAIN);
		put_text(w, &s, 1, fn->name, XLSX_PLAIN);
		put_text(w, &s, 2, fn->cls, XLSX_PLAIN);
		put_num(w, &s, 3, fn->ninstance, NUM_INT);
		put_text(w, &s, 4, calls, XLSX_PLAIN);
		put_num(w, &s, 5, (double)fn->nodes, NUM_INT);
		put_num(w, &s, 6, fn->ninput, NUM_INT);
		put_num(w, &s, 7, fn->noutput, NUM_INT);
		put_num(w, &s, 8, fn->nattr, NUM_INT);
	}
	for (int i = 0; i < f->ninline; i++) {
		s.row++;
		put_text(w, &s, 1, "(left inline: YE0702)", XLSX_PLAIN);
		put_text(w, &s, 4, f->inlined[i], XLSX_PLAIN);
	}
	for (int i = 0; i < f->nunused; i++) {
		s.row++;
		put_text(w, &s, 1, "(no instance: YE0701)", XLSX_PLAIN);
		put_text(w, &s, 2, f->unused[i], XLSX_PLAIN);
		put_num(w, &s, 3, 0, NUM_INT);
	}
	sheet_end(w, &s);
}

/* Each axis of the user inputs: symbolic (with its symbol's range) or
 * fixed, and why, as far as the dump says (docs/signature.md). */
static void
write_signature(Writer *w, const Report *r)
{
	static const char *const head[] = {"input", "axis", "dim", "kind", "torch", "min", "max", "why"};
	Sheet s;

	if (!r->naxis || sheet_begin(w, &s, "signature", head, 8) < 0)
		return;
	for (int i = 0; i < shown(r->naxis); i++) {
		const ReportAxis *x = &r->axis[i];
		s.row = (uint32_t)i + 1;
		put_text(w, &s, 0, x->input, XLSX_PLAIN);
		put_num(w, &s, 1, x->axis, NUM_INT);
		put_text(w, &s, 2, x->dim, XLSX_PLAIN);
		put_text(w, &s, 3, x->kind, XLSX_PLAIN);
		put_text(w, &s, 4, x->torch, XLSX_PLAIN);
		if (x->has_min)
			put_num(w, &s, 5, (double)x->min, NUM_INT);
		if (x->has_max)
			put_num(w, &s, 6, (double)x->max, NUM_INT);
		put_text(w, &s, 7, x->why, XLSX_PLAIN);
	}
	sheet_end(w, &s);
}

/* With --verify: one row per tensor compared; an error not measured (no
 * reference values) is an empty cell; ok is "yes", "no", or "no: " and
 * what failed besides the numbers (a dtype, a shape, NaN). */
static void
write_discrepancies(Writer *w, const Report *r)
{
	static const char *const head[] = {"kind", "name", "module_class", "dtype", "shape", "max_abs_err",
	                                   "max_rel_err", "tolerance", "ok"};
	Sheet s;

	if (!r->ndiscrepancy || sheet_begin(w, &s, "discrepancies", head, 9) < 0)
		return;
	for (int i = 0; i < shown(r->ndiscrepancy); i++) {
		const ReportDiscrepancy *x = &r->discrepancy[i];
		s.row = (uint32_t)i + 1;
		put_text(w, &s, 0, x->kind, XLSX_PLAIN);
		put_text(w, &s, 1, x->name, XLSX_PLAIN);
		put_text(w, &s, 2, x->cls, XLSX_PLAIN);
		put_text(w, &s, 3, x->dtype, XLSX_PLAIN);
		put_text(w, &s, 4, x->shape, XLSX_PLAIN);
		if (x->max_abs >= 0)
			put_num(w, &s, 5, x->max_abs, NUM_GENERAL);
		if (x->max_rel >= 0)
			put_num(w, &s, 6, x->max_rel, NUM_GENERAL);
		put_num(w, &s, 7, x->tol, NUM_GENERAL);
		put_text(w, &s, 8, x->ok ? "yes" : x->problem ? arena_printf(w->a, "no: %s", x->problem) : "no",
		         XLSX_PLAIN);
	}
	sheet_end(w, &s);
}

/* Only when the conversion failed; the workbook then opens on this sheet. */
static void
write_unsupported(Writer *w, const Report *r)
{
	static const char *const head[] = {"node", "target", "frame", "reason"};
	Sheet s;

	if (!r->nunsupported || sheet_begin(w, &s, "unsupported", head, 4) < 0)
		return;
	for (int i = 0; i < shown(r->nunsupported); i++) {
		const ReportUnsupported *u = &r->unsupported[i];
		s.row = (uint32_t)i + 1;
		put_text(w, &s, 0, u->node, XLSX_PLAIN);
		put_text(w, &s, 1, u->target, XLSX_PLAIN);
		put_text(w, &s, 2, u->frame, XLSX_PLAIN);
		put_text(w, &s, 3, u->reason, XLSX_PLAIN);
	}
	sheet_end(w, &s);
	XL(worksheet_activate)(s.ws);
}

/* ---- the file ------------------------------------------------------------ */

/* Builds the workbook at path (an existing, empty file) under the C
 * locale; returns the first library error.  Reads r, never writes it. */
static lxw_error
workbook(const Report *r, const char *path)
{
	Writer w;
	Sheet ov;
	locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	locale_t old = c ? uselocale(c) : (locale_t)0;
	Arena a;
	lxw_error err;

	/* an arena of its own: the pipeline streams the ONNX file, which
	 * allocates in r->a, while this runs on its report thread */
	arena_init(&a);
	err = book_open(&w, &a, path);

	if (err == LXW_NO_ERROR) {
		int have_ov = overview_begin(&w, &ov) == 0;
		write_extra(&w, r);
		write_stats(&w, r);
		write_stats_agg(&w, r);
		write_node_stats(&w, r);
		write_flops_by_op(&w, r);
		write_symbolic_flops(&w, r);
		write_functions(&w, r);
		write_captures(&w, r);
		write_signature(&w, r);
		write_discrepancies(&w, r);
		write_unsupported(&w, r);
		if (have_ov)
			write_overview(&w, &ov, r);
		err = book_close(&w);
	}
	if (c) {
		uselocale(old);
		freelocale(c);
	}
	arena_free(&a);
	return err;
}

/* libxlsxwriter writes to a file name: it is the durable temporary file,
 * created (and kept open for the commit's fsync) by durable_open(), so a
 * missing directory reads as strerror(errno) and the library never prints
 * its own error line. */
int
report_write_to(const Report *r, Durable *out, const char *path, Diag *d)
{
	const char *why;
	lxw_error err;
	int fd;

	if (report_load(&why))
		return diag_report(d, YE_REPORT_WRITE, &(DiagAt){.file = path}, "cannot write the report: %s", why);
	if ((fd = durable_open(out, path)) < 0)
		return diag_report(d, YE_REPORT_WRITE, &(DiagAt){.file = path},
			"cannot write the report (%s)", strerror(errno));
	if ((err = workbook(r, out->f[out->n - 1].tmp)) != LXW_NO_ERROR) {
		durable_drop(out, fd);
		return diag_report(d, YE_REPORT_WRITE, &(DiagAt){.file = path},
			"cannot write the report (%s)", XL(lxw_strerror)(err));
	}
	return DIAG_OK;
}

int
report_write(const Report *r, const char *path, Diag *d)
{
	Durable out;
	int rc, err;

	durable_init(&out);
	if ((rc = report_write_to(r, &out, path, d)))
		return rc;
	if ((err = durable_commit(&out, NULL)))
		return diag_report(d, YE_REPORT_WRITE, &(DiagAt){.file = path},
			"cannot write the report (%s)", strerror(err));
	return DIAG_OK;
}
