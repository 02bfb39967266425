/* report/internal.h: the report layer's own parts, for its files only.
 *
 * The workbook is written with libxlsxwriter (book.c wraps it): a sheet is
 * begun with sheet_begin(), filled row by row with put_text() / put_num()
 * / put_flops() at s->row (the header is row 0), and closed with
 * sheet_end(), which makes it one Excel table with an autofilter, a frozen
 * bold header, column widths fitted to its cells and a landscape print
 * setup one page wide.  report.c writes the data sheets, overview.c the
 * overview and chart.c the charts beside their tables. */
#ifndef REPORT_INTERNAL_H
#define REPORT_INTERNAL_H

#include <stdint.h>

#include <xlsxwriter.h>

#include "report/report.h"

#if LXW_VERSION_ID < 100
#error "libxlsxwriter 1.0 or newer is needed (worksheet tables, workbook_new_opt)"
#endif

/* The library's functions, loaded at run time (xlsxload.c): a report's
 * file calls XL(workbook_close)(wb).  The header gives each pointer its
 * type; the binary keeps no link to the library, whose dependencies
 * (libcrypto, minizip) cost every process millions of instructions of
 * relocation even when no report is written. */
typedef struct XlsxApi {
#define X(name) __typeof__(name) *name;
#include "report/xlsxapi.def"
#undef X
} XlsxApi;
extern XlsxApi xlsx_api;
#define XL(name) (xlsx_api.name)

/* Cell formats, one row each: X(enum, bold, number format, horizontal
 * alignment, underlined blue: a link). */
#define XLSX_FORMATS(X) \
	X(XLSX_PLAIN,        0, NULL,        LXW_ALIGN_NONE,  0) \
	X(XLSX_BOLD,         1, NULL,        LXW_ALIGN_NONE,  0) \
	X(XLSX_RIGHT,        0, NULL,        LXW_ALIGN_RIGHT, 0) \
	X(XLSX_LEFT,         0, NULL,        LXW_ALIGN_LEFT,  0) \
	X(XLSX_INT,          0, "#,##0",     LXW_ALIGN_NONE,  0) \
	X(XLSX_INT_LEFT,     0, "#,##0",     LXW_ALIGN_LEFT,  0) \
	X(XLSX_SECONDS,      0, "0.000000",  LXW_ALIGN_NONE,  0) \
	X(XLSX_SECONDS_LEFT, 0, "0.000000",  LXW_ALIGN_LEFT,  0) \
	X(XLSX_MS,           0, "#,##0.000", LXW_ALIGN_NONE,  0) \
	X(XLSX_PERCENT,      0, "0.0%",      LXW_ALIGN_NONE,  0) \
	X(XLSX_LINK,         0, NULL,        LXW_ALIGN_NONE,  1)

typedef enum XlsxFormat {
#define X(e, bold, numfmt, align, link) e,
	XLSX_FORMATS(X)
#undef X
	XLSX_NFORMAT
} XlsxFormat;

/* How a number column shows and sizes its numbers. */
enum { NUM_GENERAL, NUM_INT, NUM_SECONDS, NUM_MS, NUM_KINDS };

#define REPORT_MAXCOL 9          /* columns A..I: all a sheet of the report has */
#ifndef REPORT_MAXROWS           /* data rows per sheet; -D for testing the cut */
#define REPORT_MAXROWS (LXW_ROW_MAX - 1)
#endif
#define REPORT_MAXWIDTH 80.0
#define REPORT_STR_MAX 32767     /* Excel's cell limit */

typedef struct Writer {
	lxw_workbook *wb;
	Arena *a;
	lxw_format *fmt[XLSX_NFORMAT];
	lxw_error err;       /* first library error; LXW_NO_ERROR while all is well */
	const char *sheets[16];   /* the sheets begun, in order (overview's links) */
	int nsheet;
} Writer;

typedef struct Sheet {
	lxw_worksheet *ws;
	const char *name;
	const char *const *head;        /* column headers */
	int ncol;
	int col0;                       /* first column of the table (0: A) */
	uint32_t row;                   /* row being written; the header is 0 */
	double width[REPORT_MAXCOL];    /* widest cell so far, in characters */
} Sheet;

static inline const char *
nz(const char *s)
{
	return s ? s : "";
}

/* Rows beyond Excel's 1,048,576 are not written (libxlsxwriter would fail
 * the whole file); the extra sheet opens with how many were left out. */
static inline int
shown(int n)
{
	return n < REPORT_MAXROWS ? n : REPORT_MAXROWS;
}

/* ---- book.c: the workbook and the per-sheet helpers ---- */

/* Opens the workbook at path (an existing, empty file); returns 0, or an
 * lxw_error with nothing to close. */
lxw_error book_open(Writer *w, Arena *a, const char *path);
/* Writes the file and frees the workbook; returns the first error. */
lxw_error book_close(Writer *w);
/* Notes a library error (the first one wins). */
void note(Writer *w, lxw_error e);

/* Adds the worksheet name with the ncol column headers head (not copied);
 * returns 0, or -1 when the library failed (noted in w). */
int sheet_begin(Writer *w, Sheet *s, const char *name, const char *const *head, int ncol);
/* Cells of row s->row.  An empty text writes no cell; text is made valid
 * UTF-8 and cut at Excel's 32,767 characters. */
void put_text(Writer *w, Sheet *s, int col, const char *text, XlsxFormat fmt);
/* A number of the given NUM_ kind, in its usual format or in fmt; NaN and
 * infinities are written as the text "nan", "inf", "-inf". */
void put_num(Writer *w, Sheet *s, int col, double v, int kind);
void put_num_fmt(Writer *w, Sheet *s, int col, double v, int kind, XlsxFormat fmt);
/* A FLOPs count: negative means unknown (the text "unknown"). */
void put_flops(Writer *w, Sheet *s, int col, double v);
/* A link to cell A1 of the sheet `sheet`, shown as text. */
void put_link(Writer *w, Sheet *s, int col, const char *sheet, const char *text);
/* Makes rows 0..s->row a table named "<sheet>_table" (a blank data row
 * when there is none), sets the widths and the print setup. */
void sheet_end(Writer *w, Sheet *s);
/* A row "<sheet>_rows_not_shown" with how many rows of sheet were cut,
 * when n is over the limit. */
void note_cut(Writer *w, Sheet *s, const char *sheet, int n);

/* ---- chart.c ---- */

/* A bar chart (horizontal bars, categories top down) of the rows
 * first..last (0-based, inclusive) of the sheet s, categories from column
 * cat, one series per column of vals (nval of them, stacked when more than
 * one), placed at column `at` of row 1. */
void chart_bars(Writer *w, Sheet *s, const char *title, uint32_t first, uint32_t last,
                int cat, const int *vals, int nval, int at);

/* ---- overview.c ---- */

/* The overview sheet, first in the workbook: overview_begin() adds it
 * before the other sheets; write_overview() fills it once they are all
 * written: the facts of r->kv a person looks for first, and links to every
 * other sheet (w->sheets, filled as the sheets are begun). */
int overview_begin(Writer *w, Sheet *s);
void write_overview(Writer *w, Sheet *s, const Report *r);

#endif
