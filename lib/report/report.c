/* report.c: the Report's arena-backed row arrays, and report_write(), which
 * lays them out as model.xlsx through xlsx.c.
 *
 * Every sheet is an Excel table (header row, autofilter, banded rows) with a
 * bold, frozen header and column widths taken from the longest cell.  The
 * file must be byte-identical for the same Report, so the workbook's creation
 * time is fixed (zip entries are dated 1980-01-01), and numbers are printed
 * under the C locale (xlsx.c prints doubles with snprintf("%.16G"), which
 * follows LC_NUMERIC).  The workbook is built in memory and written in one
 * piece through a durable temporary file renamed into place (core's
 * durable_*), so a reader never sees half a workbook and a failure leaves
 * nothing behind. */
#include "report/report.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/internal.h"

/* 2000-01-01 00:00:00 UTC; xlsx.c formats it with gmtime(), so the stamp
 * does not depend on TZ. */
#define REPORT_CREATED ((time_t)946684800)
#define REPORT_MAXCOL XLSX_MAXCOL
#ifndef REPORT_MAXROWS      /* data rows per sheet; -D for testing the cut */
#define REPORT_MAXROWS (XLSX_ROWS - 1)
#endif
#define REPORT_MAXWIDTH 80.0
#define REPORT_STR_MAX 32767   /* Excel's cell limit */

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
report_discrepancy(Report *r, const ReportDiscrepancy *x)
{
	*REPORT_PUSH(r, discrepancy, ndiscrepancy, cap_discrepancy) = *x;
}

void
report_functions(Report *r, const OutlineResult *res)
{
	r->functions = res ? arena_dup(r->a, res, sizeof *res) : NULL;
}

/* ---- text that Excel accepts -------------------------------------------- */

/* Returns the length of the well-formed UTF-8 sequence at s that XML 1.0
 * allows, or 0 when s does not start with one. */
static int
utf8_seq(const unsigned char *s)
{
	unsigned c = s[0], cp, min;
	int n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)   /* also stops at the NUL */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
	    cp == 0xfffe || cp == 0xffff)
		return 0;
	return n;
}

/* Returns s, or an arena copy in which each byte that is not valid UTF-8
 * became U+FFFD and that stops at Excel's 32767 characters (Excel calls a
 * file with bad bytes or longer cells corrupt).  Sets *chars to the length in characters. */
static const char *
cell_text(Arena *a, const char *s, size_t *chars)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;
	int clean = 1, k;
	char *out, *o;

	for (; *p; p += k ? k : 1, n++)
		if (!(k = utf8_seq(p)))
			clean = 0;
	if (clean && n <= REPORT_STR_MAX) {
		*chars = n;
		return s;
	}
	o = out = arena_alloc(a, 3 * strlen(s) + 1);
	p = (const unsigned char *)s;
	for (n = 0; *p && n < REPORT_STR_MAX; n++) {
		if ((k = utf8_seq(p))) {
			memcpy(o, p, (size_t)k);
			o += k, p += k;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3, p++;
		}
	}
	*o = 0;
	*chars = n;
	return out;
}

/* ---- sheets -------------------------------------------------------------- */

enum { NUM_GENERAL, NUM_INT, NUM_SECONDS, NUM_KINDS };
/* numbers in number columns, and numbers among text (symbolic_flops) */
static const XlsxFormat num_format[NUM_KINDS] = {
	[NUM_GENERAL] = XLSX_PLAIN, [NUM_INT] = XLSX_INT, [NUM_SECONDS] = XLSX_SECONDS,
};
static const XlsxFormat left_format[NUM_KINDS] = {
	[NUM_GENERAL] = XLSX_LEFT, [NUM_INT] = XLSX_INT_LEFT, [NUM_SECONDS] = XLSX_SECONDS_LEFT,
};

typedef struct Writer {
	Xlsx *x;
	Arena *a;
} Writer;

typedef struct Sheet {
	XlsxSheet *ws;
	const char *name;
	const char *const *head;        /* column headers */
	int ncol;
	uint32_t row;                   /* row being written; the header is 0 */
	double width[REPORT_MAXCOL];    /* widest cell so far, in characters */
} Sheet;

static void
widen(Sheet *s, int col, double chars)
{
	if (chars > s->width[col])
		s->width[col] = chars;
}

static int
sheet_begin(Writer *w, Sheet *s, const char *name, const char *const *head, int ncol)
{
	if (ncol > REPORT_MAXCOL)
		die("report: sheet %s has %d columns", name, ncol);
	memset(s, 0, sizeof *s);
	s->name = name, s->head = head, s->ncol = ncol;
	s->ws = xlsx_sheet(w->x, name, ncol, head);
	for (int c = 0; c < ncol; c++)
		widen(s, c, (double)strlen(head[c]) + 3);   /* room for the filter button */
	return 0;
}

static void
put_text(Writer *w, Sheet *s, int col, const char *text, XlsxFormat fmt)
{
	size_t chars;

	if (!text || !*text)
		return;       /* a blank cell */
	text = cell_text(w->a, text, &chars);
	xlsx_string(s->ws, s->row, col, text, fmt);
	widen(s, col, (double)chars + 1);
}

/* Numbers are numeric cells.  NaN and infinities have no cell type in
 * xlsx (Excel would reject "nan" in a number cell), so they are written as
 * the text "nan", "inf", "-inf". */
static void
put_num_fmt(Writer *w, Sheet *s, int col, double v, int kind, XlsxFormat fmt)
{
	char buf[64];
	int len;

	if (!isfinite(v)) {
		put_text(w, s, col, isnan(v) ? "nan" : v > 0 ? "inf" : "-inf", XLSX_RIGHT);
		return;
	}
	xlsx_number(s->ws, s->row, col, v, fmt);
	if (kind == NUM_INT && fabs(v) < 1e15) {
		/* the digits of %.0f, counted: most cells are counts */
		uint64_t k = (uint64_t)nearbyint(fabs(v));
		for (len = 1; k >= 10; k /= 10)
			len++;
		len += (len - 1) / 3 + (v < 0);      /* thousands separators */
	} else if (kind == NUM_SECONDS && v == 0)
		len = signbit(v) ? 9 : 8;            /* "0.000000", the default timings */
	else if (kind == NUM_SECONDS && fabs(v) < 1e15)
		len = snprintf(buf, sizeof buf, "%.6f", v);
	else
		len = snprintf(buf, sizeof buf, "%.10g", v);  /* about what General shows */
	widen(s, col, (double)len + 1);
}

static void
put_num(Writer *w, Sheet *s, int col, double v, int kind)
{
	put_num_fmt(w, s, col, v, kind, num_format[kind]);
}

/* A FLOPs count: negative means unknown. */
static void
put_flops(Writer *w, Sheet *s, int col, double v)
{
	if (v < 0)
		put_text(w, s, col, "unknown", XLSX_RIGHT);
	else
		put_num(w, s, col, v, NUM_INT);
}

/* Turns rows 0..s->row into a table named "<sheet>_table" and sets the
 * column widths.  A table needs a data row, so an empty sheet gets a table
 * over its header and one blank row (what Excel itself shows for an
 * emptied table). */
static void
sheet_end(Writer *w, Sheet *s)
{
	char *name = arena_printf(w->a, "%s_table", s->name);

	for (int c = 0; c < s->ncol; c++)
		xlsx_width(s->ws, c, s->width[c] < REPORT_MAXWIDTH ? s->width[c] : REPORT_MAXWIDTH);
	xlsx_table(s->ws, s->row ? s->row : 1, name);
}

/* ---- the six sheets ------------------------------------------------------ */

static const char *
nz(const char *s)
{
	return s ? s : "";
}

/* Rows beyond Excel's 1,048,576 are not written (libxlsxwriter would fail
 * the whole file); the extra sheet opens with how many were left out. */
static int
shown(int n)
{
	return n < REPORT_MAXROWS ? n : REPORT_MAXROWS;
}

static void
note_cut(Writer *w, Sheet *s, const char *sheet, int n)
{
	char key[64];

	if (n <= REPORT_MAXROWS)
		return;
	snprintf(key, sizeof key, "%s_rows_not_shown", sheet);
	s->row++;
	put_text(w, s, 0, key, XLSX_PLAIN);
	put_num(w, s, 1, n - REPORT_MAXROWS, NUM_GENERAL);
}

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
aggregate(const Report *r, Agg **out)
{
	Agg *ev = ARENA_ARRAY(r->a, Agg, r->nstat ? r->nstat : 1);
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
	int n = aggregate(r, &g);

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
	NodeRef *ref = ARENA_ARRAY(r->a, NodeRef, r->nnode_stat ? r->nnode_stat : 1);
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
			calls = arena_printf(r->a, "%s%s%s", calls, k ? ", " : "", fn->instances[k]);
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
		put_text(w, &s, 8, x->ok ? "yes" : x->problem ? arena_printf(r->a, "no: %s", x->problem) : "no",
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
	xlsx_activate(s.ws);
}

/* ---- the file ------------------------------------------------------------ */

/* The workbook's bytes (malloc'ed), built under the C locale. */
static uint8_t *
workbook(const Report *r, size_t *len)
{
	Writer w = {xlsx_new(r->a, "yobx-export conversion report", "yobx-export", REPORT_CREATED), r->a};
	locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	locale_t old = c ? uselocale(c) : (locale_t)0;
	uint8_t *bytes;

	write_extra(&w, r);
	write_stats(&w, r);
	write_stats_agg(&w, r);
	write_node_stats(&w, r);
	write_symbolic_flops(&w, r);
	write_functions(&w, r);
	write_captures(&w, r);
	write_discrepancies(&w, r);
	write_unsupported(&w, r);
	bytes = xlsx_bytes(w.x, len);
	if (c) {
		uselocale(old);
		freelocale(c);
	}
	return bytes;
}

int
report_write_to(const Report *r, Durable *out, const char *path, Diag *d)
{
	size_t len;
	uint8_t *bytes = workbook(r, &len);
	int err = durable_write(out, path, bytes, len);

	free(bytes);
	if (err)
		return diag_report(d, YE_REPORT_WRITE, &(DiagAt){.file = path},
			"cannot write the report (%s)", strerror(err));
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
