/* report/internal.h: the report layer's own parts, for its files only.
 *
 * xlsx.c writes a SpreadsheetML workbook (.xlsx) in memory: worksheets of
 * string and number cells, one table per sheet, a frozen header row,
 * column widths, and the document properties.  It writes the bytes that
 * libxlsxwriter 1.1.4 (the library the report used before) writes for the
 * same calls, part for part and, with the same zlib, byte for byte: the
 * same XML, the same zip entries in the same order, deflated at zlib's
 * default level.  It does only what report.c needs; what it does not know
 * is an internal error (die()), never a silently different file.
 *
 * Why not libxlsxwriter itself: it cost about 16 ms of a 100-node
 * conversion's 20 (docs/report.md, "The file"): loading it with libcrypto
 * and minizip, one temporary file per part (each created and unlinked in
 * /tmp, then copied into the zip), and fprintf for every cell. */
#ifndef REPORT_INTERNAL_H
#define REPORT_INTERNAL_H

#include <stdint.h>
#include <time.h>

#include "core/core.h"

/* Cell formats, one row each: X(enum, bold, number format, horizontal
 * alignment).  A format's style index is given the first time a cell uses
 * it, in the order the sheets' XML is written, as libxlsxwriter does;
 * XLSX_PLAIN is style 0. */
#define XLSX_FORMATS(X) \
	X(XLSX_PLAIN,        0, NULL,       NULL) \
	X(XLSX_BOLD,         1, NULL,       NULL) \
	X(XLSX_RIGHT,        0, NULL,       "right") \
	X(XLSX_LEFT,         0, NULL,       "left") \
	X(XLSX_INT,          0, "#,##0",    NULL) \
	X(XLSX_INT_LEFT,     0, "#,##0",    "left") \
	X(XLSX_SECONDS,      0, "0.000000", NULL) \
	X(XLSX_SECONDS_LEFT, 0, "0.000000", "left")

typedef enum XlsxFormat {
#define X(e, bold, numfmt, align) e,
	XLSX_FORMATS(X)
#undef X
	XLSX_NFORMAT
} XlsxFormat;

#define XLSX_MAXCOL 9        /* columns A..I: all a sheet of the report has */
#define XLSX_ROWS 1048576    /* Excel's rows per sheet, the header included */

typedef struct Xlsx Xlsx;
typedef struct XlsxSheet XlsxSheet;

/* A workbook in the arena a, with the document's title, author and
 * creation time (also its modification time). */
Xlsx *xlsx_new(Arena *a, const char *title, const char *author, time_t created);
/* Adds a sheet whose row 0 will hold the ncol column headers head (not
 * copied), in bold, once xlsx_table() is called. */
XlsxSheet *xlsx_sheet(Xlsx *x, const char *name, int ncol, const char *const *head);
/* Cells, in increasing (row, col) order, rows from 1 (row 0 is the
 * header).  Text must be valid UTF-8 without NUL, at most 32,767
 * characters, and is not copied; an empty text writes no cell. */
void xlsx_string(XlsxSheet *s, uint32_t row, int col, const char *text, XlsxFormat fmt);
/* v must be finite (xlsx has no cell for NaN or infinities). */
void xlsx_number(XlsxSheet *s, uint32_t row, int col, double v, XlsxFormat fmt);
/* Column col's width in characters (>= 1). */
void xlsx_width(XlsxSheet *s, int col, double chars);
/* Makes rows 0..last_row a table named name (not copied; a valid Excel
 * table name), with an autofilter and banded rows, and writes the headers
 * in row 0.  last_row >= 1: a table needs a data row, even a blank one. */
void xlsx_table(XlsxSheet *s, uint32_t last_row, const char *name);
/* The sheet the workbook opens on (the first one by default). */
void xlsx_activate(XlsxSheet *s);
/* The whole file: a malloc'ed buffer of *len bytes, for the caller to free. */
uint8_t *xlsx_bytes(Xlsx *x, size_t *len);

/* A part stored already deflated: its length, CRC-32 and zip text bit,
 * then the deflated bytes. */
typedef struct XlsxPart {
	size_t len;
	uint32_t crc;
	int text;
	size_t zlen;
	const uint8_t *z;
} XlsxPart;

/* xl/theme/theme1.xml (theme.c): the text, and the same deflated once, for
 * the 7 KB every workbook carries (a fifth of a small report's deflating). */
extern const char xlsx_theme[];
extern const XlsxPart xlsx_theme_z;

#endif
