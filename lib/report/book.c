/* book.c: the workbook through libxlsxwriter, and the per-sheet helpers
 * every sheet of the report is written with (internal.h).
 *
 * Determinism: libxlsxwriter 1.1.4 dates every zip entry 1980-01-01 and
 * names them by part, so the file's only clock is docProps/core.xml's
 * created/modified time, set here to REPORT_CREATED (never time(NULL));
 * its temporary files (one per part, unlinked at once) leave no name in
 * the zip.  Numbers are printed with snprintf("%.16G"), which follows
 * LC_NUMERIC: report.c builds the workbook under the C locale. */
#include "report/internal.h"

#include <linux/magic.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

/* 2000-01-01 00:00:00 UTC; libxlsxwriter formats it with gmtime(), so the
 * stamp does not depend on TZ. */
#define REPORT_CREATED ((time_t)946684800)

void
note(Writer *w, lxw_error e)
{
	if (e != LXW_NO_ERROR && w->err == LXW_NO_ERROR)
		w->err = e;
}

/* Where libxlsxwriter puts its temporary files (one per part, each
 * created, written, read back into the zip and closed): a memory file
 * system when there is one.  In /tmp on a disk each create and unlink is a
 * journal update, and on a busy disk they waited behind other processes'
 * fsyncs: 100-250 ms of a small model's conversion, for files that never
 * need to reach the disk.  NULL: the library's default (tmpfile()). */
static const char *
book_tmpdir(void)
{
	static const char *const dirs[] = {"/dev/shm", "/run/shm"};
	struct statfs fs;

	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
		if (statfs(dirs[i], &fs) == 0 && fs.f_type == TMPFS_MAGIC &&
		    access(dirs[i], W_OK | X_OK) == 0)
			return dirs[i];
	return NULL;
}

lxw_error
book_open(Writer *w, Arena *a, const char *path)
{
	static const struct {
		uint8_t bold;
		const char *numfmt;
		uint8_t align, link;
	} spec[XLSX_NFORMAT] = {
#define X(e, bold, numfmt, align, link) [e] = {bold, numfmt, align, link},
		XLSX_FORMATS(X)
#undef X
	};
	lxw_workbook_options opt = {0};   /* cells in memory: tables need it */
	lxw_doc_properties props = {0};

	memset(w, 0, sizeof *w);
	w->a = a;
	w->err = LXW_NO_ERROR;
	opt.tmpdir = (char *)book_tmpdir();
	if (!(w->wb = XL(workbook_new_opt)(path, &opt)))
		return LXW_ERROR_CREATING_XLSX_FILE;
	props.title = "yobx-export conversion report";
	props.author = "yobx-export";
	props.created = REPORT_CREATED;
	note(w, XL(workbook_set_properties)(w->wb, &props));
	for (int f = 0; f < XLSX_NFORMAT; f++) {
		lxw_format *x = XL(workbook_add_format)(w->wb);
		if (!x) {
			note(w, LXW_ERROR_MEMORY_MALLOC_FAILED);
			break;
		}
		if (spec[f].bold)
			XL(format_set_bold)(x);
		if (spec[f].numfmt)
			XL(format_set_num_format)(x, spec[f].numfmt);
		if (spec[f].align != LXW_ALIGN_NONE)
			XL(format_set_align)(x, spec[f].align);
		if (spec[f].link) {
			XL(format_set_underline)(x, LXW_UNDERLINE_SINGLE);
			XL(format_set_font_color)(x, LXW_COLOR_BLUE);
		}
		w->fmt[f] = x;
	}
	return LXW_NO_ERROR;
}

lxw_error
book_close(Writer *w)
{
	lxw_error err = XL(workbook_close)(w->wb);   /* frees wb whatever happened */

	w->wb = NULL;
	return w->err != LXW_NO_ERROR ? w->err : err;
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
 * file with bad bytes or longer cells corrupt, and libxlsxwriter refuses
 * the longer ones).  Sets *chars to the length in characters. */
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

/* ---- the per-sheet helpers ----------------------------------------------- */

static void
widen(Sheet *s, int col, double chars)
{
	if (chars > s->width[col])
		s->width[col] = chars;
}

int
sheet_begin(Writer *w, Sheet *s, const char *name, const char *const *head, int ncol)
{
	if (ncol > REPORT_MAXCOL)
		die("report: sheet %s has %d columns", name, ncol);
	memset(s, 0, sizeof *s);
	s->name = name, s->head = head, s->ncol = ncol;
	if (!(s->ws = XL(workbook_add_worksheet)(w->wb, name))) {
		note(w, LXW_ERROR_MEMORY_MALLOC_FAILED);
		return -1;
	}
	if (w->nsheet < (int)(sizeof w->sheets / sizeof *w->sheets))
		w->sheets[w->nsheet++] = name;
	XL(worksheet_freeze_panes)(s->ws, 1, 0);
	/* printed: landscape, one page wide, the header on every page */
	XL(worksheet_set_landscape)(s->ws);
	XL(worksheet_set_paper)(s->ws, 9);    /* A4 */
	XL(worksheet_fit_to_pages)(s->ws, 1, 0);
	note(w, XL(worksheet_repeat_rows)(s->ws, 0, 0));
	for (int c = 0; c < ncol; c++)
		widen(s, c, (double)strlen(head[c]) + 3);   /* room for the filter button */
	return 0;
}

void
put_text(Writer *w, Sheet *s, int col, const char *text, XlsxFormat fmt)
{
	size_t chars;

	if (!text || !*text)
		return;       /* a blank cell */
	text = cell_text(w->a, text, &chars);
	note(w, XL(worksheet_write_string)(s->ws, s->row, (lxw_col_t)(s->col0 + col), text,
	                               fmt == XLSX_PLAIN ? NULL : w->fmt[fmt]));
	widen(s, col, (double)chars + 1);
}

void
put_num_fmt(Writer *w, Sheet *s, int col, double v, int kind, XlsxFormat fmt)
{
	char buf[64];
	int len;

	if (!isfinite(v)) {
		/* xlsx has no number cell for these (Excel rejects "nan" in <v>) */
		put_text(w, s, col, isnan(v) ? "nan" : v > 0 ? "inf" : "-inf", XLSX_RIGHT);
		return;
	}
	note(w, XL(worksheet_write_number)(s->ws, s->row, (lxw_col_t)(s->col0 + col), v,
	                               fmt == XLSX_PLAIN ? NULL : w->fmt[fmt]));
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
	else if (kind == NUM_MS && fabs(v) < 1e15) {
		len = snprintf(buf, sizeof buf, "%.3f", fabs(v));
		len += (len - 5) / 3 + (v < 0);      /* "1,234.567" */
	} else
		len = snprintf(buf, sizeof buf, "%.10g", v);  /* about what General shows */
	widen(s, col, (double)len + 1);
}

void
put_num(Writer *w, Sheet *s, int col, double v, int kind)
{
	static const XlsxFormat num_format[NUM_KINDS] = {
		[NUM_GENERAL] = XLSX_PLAIN, [NUM_INT] = XLSX_INT,
		[NUM_SECONDS] = XLSX_SECONDS, [NUM_MS] = XLSX_MS,
	};

	put_num_fmt(w, s, col, v, kind, num_format[kind]);
}

void
put_flops(Writer *w, Sheet *s, int col, double v)
{
	if (v < 0)
		put_text(w, s, col, "unknown", XLSX_RIGHT);
	else
		put_num(w, s, col, v, NUM_INT);
}

void
put_link(Writer *w, Sheet *s, int col, const char *sheet, const char *text)
{
	char *url = arena_printf(w->a, "internal:'%s'!A1", sheet);

	note(w, XL(worksheet_write_url_opt)(s->ws, s->row, (lxw_col_t)(s->col0 + col), url,
	                                w->fmt[XLSX_LINK], text, NULL));
	widen(s, col, (double)strlen(text) + 1);
}

/* A table needs a data row, so an empty sheet gets a table over its header
 * and one blank row (what Excel itself shows for an emptied table). */
void
sheet_end(Writer *w, Sheet *s)
{
	lxw_table_column col[REPORT_MAXCOL], *colp[REPORT_MAXCOL + 1];
	lxw_table_options opt = {0};

	for (int c = 0; c < s->ncol; c++) {
		double width = s->width[c] < REPORT_MAXWIDTH ? s->width[c] : REPORT_MAXWIDTH;
		col[c] = (lxw_table_column){0};
		col[c].header = (char *)s->head[c];
		col[c].header_format = w->fmt[XLSX_BOLD];
		colp[c] = &col[c];
		note(w, XL(worksheet_set_column)(s->ws, (lxw_col_t)(s->col0 + c),
		                             (lxw_col_t)(s->col0 + c), width, NULL));
	}
	colp[s->ncol] = NULL;
	opt.name = arena_printf(w->a, "%s_table", s->name);
	opt.columns = colp;
	note(w, XL(worksheet_add_table)(s->ws, 0, (lxw_col_t)s->col0, s->row ? s->row : 1,
	                            (lxw_col_t)(s->col0 + s->ncol - 1), &opt));
}

void
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
