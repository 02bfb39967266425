/* xlsx.c: a workbook of string and number cells written as .xlsx in
 * memory (internal.h says what it covers, and why it replaced
 * libxlsxwriter).
 *
 * Cells are kept per sheet in the order written; shared strings get their
 * index when first written, as in libxlsxwriter (a table's headers when the
 * table is added, after the sheet's data).  xlsx_bytes() then prints every
 * XML part into memory, in zip order (a format's style index is given as
 * the sheets are printed, before styles.xml, as in libxlsxwriter), deflates
 * them (on two threads for a large workbook), and lays out the zip, so
 * nothing touches the disk until the caller writes the finished file.  The
 * markup below is libxlsxwriter 1.1.4's, as its packager, worksheet,
 * styles, table, app and core writers emit it for what this file supports;
 * test/report/run.sh compares the workbooks test_report writes with the
 * ones libxlsxwriter wrote. */
#include "report/internal.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include <zlib.h>

static const struct {
	int bold;
	const char *numfmt, *align;
} formats[XLSX_NFORMAT] = {
#define X(e, bold, numfmt, align) [e] = {bold, numfmt, align},
	XLSX_FORMATS(X)
#undef X
};

typedef struct Cell {
	uint32_t row;
	uint8_t col, fmt, is_num;
	union {
		uint32_t sst;       /* shared string index */
		double num;
	} u;
} Cell;

struct XlsxSheet {
	Xlsx *x;
	const char *name, *table;       /* table: NULL until xlsx_table() */
	const char *const *head;
	int ncol, index;
	uint32_t table_last;            /* the table's last row */
	uint32_t head_sst[XLSX_MAXCOL];
	double width[XLSX_MAXCOL];      /* 0: not set */
	Cell *cell;
	size_t ncell, cap;
};

struct Xlsx {
	Arena *a;
	const char *title, *author;
	time_t created;
	XlsxSheet **sheet;
	int nsheet, cap, active;
	StrMap *sst_index;              /* text -> index + 1 */
	const char **sst;               /* texts by index */
	uint32_t nsst, cap_sst, sst_count;   /* sst_count: string cells written */
	int xf[XLSX_NFORMAT];           /* style index, given on first use; 0: not yet */
	int nxf;
	XlsxFormat xf_format[XLSX_NFORMAT];  /* formats by style index */
};

/* ---- building ---- */

Xlsx *
xlsx_new(Arena *a, const char *title, const char *author, time_t created)
{
	Xlsx *x = ARENA_NEW(a, Xlsx);

	x->a = a;
	x->title = title;
	x->author = author;
	x->created = created;
	x->sst_index = strmap_new(a, 256);
	return x;
}

/* Room for one more element in *arr (n used, *cap allocated), doubling in
 * the arena. */
static void *
grow(Arena *a, void *arr, size_t n, size_t *cap, size_t size)
{
	void *p;

	if (n < *cap)
		return arr;
	*cap = *cap ? *cap * 2 : 64;
	p = arena_alloc(a, size * *cap);
	if (n)
		memcpy(p, arr, size * n);
	return p;
}

XlsxSheet *
xlsx_sheet(Xlsx *x, const char *name, int ncol, const char *const *head)
{
	XlsxSheet *s = ARENA_NEW(x->a, XlsxSheet);
	size_t cap = (size_t)x->cap;

	if (ncol < 1 || ncol > XLSX_MAXCOL)
		die("xlsx: sheet %s has %d columns", name, ncol);
	x->sheet = grow(x->a, x->sheet, (size_t)x->nsheet, &cap, sizeof *x->sheet);
	x->cap = (int)cap;
	s->x = x, s->name = name, s->ncol = ncol, s->head = head, s->index = x->nsheet;
	x->sheet[x->nsheet++] = s;
	return s;
}

static uint32_t
sst_add(Xlsx *x, const char *text)
{
	intptr_t k = (intptr_t)strmap_get(x->sst_index, text);
	size_t cap = x->cap_sst;

	x->sst_count++;
	if (k)
		return (uint32_t)(k - 1);
	x->sst = grow(x->a, x->sst, x->nsst, &cap, sizeof *x->sst);
	x->cap_sst = (uint32_t)cap;
	x->sst[x->nsst] = text;
	strmap_put(x->sst_index, text, (void *)(intptr_t)(x->nsst + 1));
	return x->nsst++;
}

static Cell *
add_cell(XlsxSheet *s, uint32_t row, int col, XlsxFormat fmt)
{
	const Cell *last = s->ncell ? &s->cell[s->ncell - 1] : NULL;
	Cell *c;

	if (row < 1 || row >= XLSX_ROWS || col < 0 || col >= s->ncol || (unsigned)fmt >= XLSX_NFORMAT ||
	    (last && (row < last->row || (row == last->row && col <= last->col))))
		die("xlsx: sheet %s: cell (%u, %d) out of order or range", s->name, (unsigned)row, col);
	s->cell = grow(s->x->a, s->cell, s->ncell, &s->cap, sizeof *s->cell);
	c = &s->cell[s->ncell++];
	c->row = row, c->col = (uint8_t)col, c->fmt = (uint8_t)fmt;
	return c;
}

void
xlsx_string(XlsxSheet *s, uint32_t row, int col, const char *text, XlsxFormat fmt)
{
	Cell *c;

	if (!text || !*text)
		return;
	c = add_cell(s, row, col, fmt);
	c->is_num = 0;
	c->u.sst = sst_add(s->x, text);
}

void
xlsx_number(XlsxSheet *s, uint32_t row, int col, double v, XlsxFormat fmt)
{
	Cell *c;

	if (!isfinite(v))
		die("xlsx: sheet %s: a number that is not finite", s->name);
	c = add_cell(s, row, col, fmt);
	c->is_num = 1;
	c->u.num = v;
}

void
xlsx_width(XlsxSheet *s, int col, double chars)
{
	if (col < 0 || col >= s->ncol || !(chars >= 1))
		die("xlsx: sheet %s: bad width for column %d", s->name, col);
	s->width[col] = chars;
}

void
xlsx_table(XlsxSheet *s, uint32_t last_row, const char *name)
{
	if (s->table || last_row < 1 || last_row >= XLSX_ROWS)
		die("xlsx: sheet %s: bad table", s->name);
	s->table = name;
	s->table_last = last_row;
	for (int c = 0; c < s->ncol; c++)
		s->head_sst[c] = sst_add(s->x, s->head[c]);
}

void
xlsx_activate(XlsxSheet *s)
{
	s->x->active = s->index;
}

/* ---- printing ---- */

typedef struct Buf {
	char *p;
	size_t n, cap;
} Buf;

static void
buf_room(Buf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 1 << 14;
	char *p;

	if (b->n + more <= b->cap)
		return;
	while (cap < b->n + more)
		cap *= 2;
	if (!(p = realloc(b->p, cap)))
		die("out of memory");
	b->p = p;
	b->cap = cap;
}

static void
put(Buf *b, const void *s, size_t n)
{
	buf_room(b, n);
	memcpy(b->p + b->n, s, n);
	b->n += n;
}

static void
puts_(Buf *b, const char *s)
{
	put(b, s, strlen(s));
}

static void
put_uint(Buf *b, uint64_t v)
{
	char d[24];
	int n = 0;

	do
		d[sizeof d - 1 - n++] = (char)('0' + v % 10);
	while ((v /= 10));
	put(b, d + sizeof d - n, (size_t)n);
}

/* A number as libxlsxwriter prints it: "%.16G" under the C locale.  Whole
 * numbers below 1e15 (nearly every cell) print as their digits, which is
 * what %.16G gives them, without going through printf. */
static void
put_num(Buf *b, double v)
{
	char s[40];
	int n;

	if (v == floor(v) && fabs(v) < 1e15 && !(v == 0 && signbit(v))) {
		if (v < 0)
			put(b, "-", 1);
		put_uint(b, (uint64_t)fabs(v));
		return;
	}
	n = snprintf(s, sizeof s, "%.16G", v);
	put(b, s, (size_t)n);
}

/* Text in element content: & < > escaped (libxlsxwriter leaves " as is). */
static void
put_esc(Buf *b, const char *s)
{
	const char *run = s;

	for (; *s; s++) {
		const char *e = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : NULL;
		if (!e)
			continue;
		put(b, run, (size_t)(s - run));
		puts_(b, e);
		run = s + 1;
	}
	put(b, run, (size_t)(s - run));
}

/* "A1" for (row, col), 0-based; col < 26. */
static void
put_cellref(Buf *b, uint32_t row, int col)
{
	char c = (char)('A' + col);

	put(b, &c, 1);
	put_uint(b, (uint64_t)row + 1);
}

static void
put_range(Buf *b, uint32_t r0, int c0, uint32_t r1, int c1)
{
	put_cellref(b, r0, c0);
	if (r0 != r1 || c0 != c1) {
		put(b, ":", 1);
		put_cellref(b, r1, c1);
	}
}

#define XML_DECL "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
#define NS_MAIN "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
#define NS_REL "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
#define NS_PKG_REL "http://schemas.openxmlformats.org/package/2006/relationships"
#define CT_OFFICE "application/vnd.openxmlformats-officedocument."

/* ---- the zip ---- */

/* The container, as libxlsxwriter's minizip writes it: every entry
 * deflated (level 6, raw, 15-bit window), dated 1980-01-01 00:00, no
 * data descriptors or extra fields, "version made by" 0, and the text bit
 * of the internal attributes set when zlib saw text. */
typedef struct Zip {
	Buf out, cd;        /* the file so far; the central directory */
	int n;
} Zip;

static void
put16(Buf *b, unsigned v)
{
	uint8_t p[2] = {(uint8_t)v, (uint8_t)(v >> 8)};

	put(b, p, 2);
}

static void
put32(Buf *b, uint32_t v)
{
	uint8_t p[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};

	put(b, p, 4);
}

/* The local header of an entry: usize bytes, csize deflated. */
static void
local_header(Zip *zip, const char *name, uint32_t crc, uint32_t csize, uint32_t usize)
{
	size_t nlen = strlen(name);

	put32(&zip->out, 0x04034b50);
	put16(&zip->out, 20);           /* version needed */
	put16(&zip->out, 0);            /* flags */
	put16(&zip->out, 8);            /* deflated */
	put16(&zip->out, 0);            /* 00:00:00 */
	put16(&zip->out, 0x21);         /* 1980-01-01 */
	put32(&zip->out, crc);
	put32(&zip->out, csize);
	put32(&zip->out, usize);
	put16(&zip->out, (unsigned)nlen);
	put16(&zip->out, 0);
	put(&zip->out, name, nlen);
}

/* The central directory's record of the entry at offset at. */
static void
central_record(Zip *zip, const char *name, uint32_t crc, uint32_t csize, uint32_t usize, int text,
               size_t at)
{
	size_t nlen = strlen(name);

	put32(&zip->cd, 0x02014b50);
	put16(&zip->cd, 0);             /* version made by */
	put16(&zip->cd, 20);
	put16(&zip->cd, 0);
	put16(&zip->cd, 8);
	put16(&zip->cd, 0);
	put16(&zip->cd, 0x21);
	put32(&zip->cd, crc);
	put32(&zip->cd, csize);
	put32(&zip->cd, usize);
	put16(&zip->cd, (unsigned)nlen);
	put16(&zip->cd, 0);             /* extra */
	put16(&zip->cd, 0);             /* comment */
	put16(&zip->cd, 0);             /* disk */
	put16(&zip->cd, text ? 1 : 0);
	put32(&zip->cd, 0);             /* external attributes */
	put32(&zip->cd, (uint32_t)at);
	put(&zip->cd, name, nlen);
	zip->n++;
}

/* Appends the entry name holding the deflated part p. */
static void
zip_add_deflated(Zip *zip, const char *name, const XlsxPart *p)
{
	size_t at = zip->out.n;

	local_header(zip, name, p->crc, (uint32_t)p->zlen, (uint32_t)p->len);
	put(&zip->out, p->z, p->zlen);
	central_record(zip, name, p->crc, (uint32_t)p->zlen, (uint32_t)p->len, p->text, at);
}

static void
zip_finish(Zip *zip)
{
	uint32_t at = (uint32_t)zip->out.n;

	put(&zip->out, zip->cd.p, zip->cd.n);
	put32(&zip->out, 0x06054b50);
	put16(&zip->out, 0);
	put16(&zip->out, 0);
	put16(&zip->out, (unsigned)zip->n);
	put16(&zip->out, (unsigned)zip->n);
	put32(&zip->out, (uint32_t)zip->cd.n);
	put32(&zip->out, at);
	put16(&zip->out, 0);
	free(zip->cd.p);
}

/* ---- the parts ---- */

static void
content_types(const Xlsx *x, Buf *b)
{
	puts_(b, XML_DECL "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">"
	      "<Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>"
	      "<Default Extension=\"xml\" ContentType=\"application/xml\"/>"
	      "<Override PartName=\"/docProps/app.xml\" ContentType=\"" CT_OFFICE "extended-properties+xml\"/>"
	      "<Override PartName=\"/docProps/core.xml\" ContentType=\"application/vnd.openxmlformats-package.core-properties+xml\"/>"
	      "<Override PartName=\"/xl/styles.xml\" ContentType=\"" CT_OFFICE "spreadsheetml.styles+xml\"/>"
	      "<Override PartName=\"/xl/theme/theme1.xml\" ContentType=\"" CT_OFFICE "theme+xml\"/>"
	      "<Override PartName=\"/xl/workbook.xml\" ContentType=\"" CT_OFFICE "spreadsheetml.sheet.main+xml\"/>");
	for (int i = 0; i < x->nsheet; i++) {
		puts_(b, "<Override PartName=\"/xl/worksheets/sheet");
		put_uint(b, (uint64_t)i + 1);
		puts_(b, ".xml\" ContentType=\"" CT_OFFICE "spreadsheetml.worksheet+xml\"/>");
	}
	for (int i = 0, t = 0; i < x->nsheet; i++)
		if (x->sheet[i]->table) {
			puts_(b, "<Override PartName=\"/xl/tables/table");
			put_uint(b, (uint64_t)++t);
			puts_(b, ".xml\" ContentType=\"" CT_OFFICE "spreadsheetml.table+xml\"/>");
		}
	if (x->nsst)
		puts_(b, "<Override PartName=\"/xl/sharedStrings.xml\" ContentType=\"" CT_OFFICE
		      "spreadsheetml.sharedStrings+xml\"/>");
	puts_(b, "</Types>");
}

static void
relationship(Buf *b, int id, const char *type, const char *target)
{
	puts_(b, "<Relationship Id=\"rId");
	put_uint(b, (uint64_t)id);
	puts_(b, "\" Type=\"");
	puts_(b, type);
	puts_(b, "\" Target=\"");
	puts_(b, target);
	puts_(b, "\"/>");
}

static void
root_rels(Buf *b)
{
	puts_(b, XML_DECL "<Relationships xmlns=\"" NS_PKG_REL "\">");
	relationship(b, 1, NS_REL "/officeDocument", "xl/workbook.xml");
	relationship(b, 2, "http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties",
	             "docProps/core.xml");
	relationship(b, 3, NS_REL "/extended-properties", "docProps/app.xml");
	puts_(b, "</Relationships>");
}

static void
workbook_rels(const Xlsx *x, Buf *b)
{
	char target[64];
	int id = 1;

	puts_(b, XML_DECL "<Relationships xmlns=\"" NS_PKG_REL "\">");
	for (int i = 0; i < x->nsheet; i++) {
		snprintf(target, sizeof target, "worksheets/sheet%d.xml", i + 1);
		relationship(b, id++, NS_REL "/worksheet", target);
	}
	relationship(b, id++, NS_REL "/theme", "theme/theme1.xml");
	relationship(b, id++, NS_REL "/styles", "styles.xml");
	if (x->nsst)
		relationship(b, id++, NS_REL "/sharedStrings", "sharedStrings.xml");
	puts_(b, "</Relationships>");
}

/* A format's style index, given on first use. */
static int
xf_index(Xlsx *x, XlsxFormat f)
{
	if (f == XLSX_PLAIN)
		return 0;
	if (!x->xf[f]) {
		x->xf_format[x->nxf] = f;
		x->xf[f] = ++x->nxf;
	}
	return x->xf[f];
}

static void
put_cell(Xlsx *x, Buf *b, uint32_t row, int col, XlsxFormat fmt, int is_num, uint32_t sst, double num)
{
	int s = xf_index(x, fmt);

	puts_(b, "<c r=\"");
	put_cellref(b, row, col);
	if (s) {
		puts_(b, "\" s=\"");
		put_uint(b, (uint64_t)s);
	}
	if (is_num) {
		puts_(b, "\"><v>");
		put_num(b, num);
	} else {
		puts_(b, "\" t=\"s\"><v>");
		put_uint(b, sst);
	}
	puts_(b, "</v></c>");
}

/* The <col> width: characters to Excel's stored width, as libxlsxwriter
 * rounds it (to whole pixels of a 7-pixel digit, plus 5 pixels padding). */
static double
col_width(double chars)
{
	return (uint16_t)(((uint16_t)(chars * 7.0 + 0.5) + 5.0) / 7.0 * 256.0) / 256.0;
}

static void
sheet_xml(Xlsx *x, const XlsxSheet *s, Buf *b)
{
	uint32_t rowmin = s->table ? 0 : s->ncell ? s->cell[0].row : 0;
	uint32_t rowmax = s->ncell ? s->cell[s->ncell - 1].row : 0;
	int colmin = s->table ? 0 : XLSX_MAXCOL, colmax = s->table ? s->ncol - 1 : -1, anyw = 0;
	size_t i = 0;
	int32_t block = -1;
	int span0 = 0, span1 = 0;

	for (size_t k = 0; k < s->ncell; k++) {
		colmin = s->cell[k].col < colmin ? s->cell[k].col : colmin;
		colmax = s->cell[k].col > colmax ? s->cell[k].col : colmax;
	}
	puts_(b, XML_DECL "<worksheet xmlns=\"" NS_MAIN "\" xmlns:r=\"" NS_REL "\"><dimension ref=\"");
	if (colmax < 0)
		puts_(b, "A1");
	else
		put_range(b, rowmin, colmin, rowmax, colmax);
	puts_(b, "\"/><sheetViews><sheetView ");
	if (s->index == x->active)
		puts_(b, "tabSelected=\"1\" ");
	puts_(b, "workbookViewId=\"0\"><pane ySplit=\"1\" topLeftCell=\"A2\" activePane=\"bottomLeft\" "
	      "state=\"frozen\"/><selection pane=\"bottomLeft\"/></sheetView></sheetViews>"
	      "<sheetFormatPr defaultRowHeight=\"15\"/>");
	for (int c = 0; c < s->ncol; c++)
		anyw |= s->width[c] > 0;
	if (anyw) {
		puts_(b, "<cols>");
		for (int c = 0; c < s->ncol; c++) {
			if (!(s->width[c] > 0))
				continue;
			puts_(b, "<col min=\"");
			put_uint(b, (uint64_t)c + 1);
			puts_(b, "\" max=\"");
			put_uint(b, (uint64_t)c + 1);
			puts_(b, "\" width=\"");
			put_num(b, col_width(s->width[c]));
			puts_(b, "\" customWidth=\"1\"/>");
		}
		puts_(b, "</cols>");
	}
	if (!s->table && !s->ncell) {
		puts_(b, "<sheetData/>");
	} else {
		puts_(b, "<sheetData>");
		/* row by row: the header row first, then the cells; the spans
		 * attribute gives the columns used in each block of 16 rows */
		for (uint32_t row = s->table ? 0 : s->cell[0].row;;) {
			if ((int32_t)(row / 16) > block) {
				block = (int32_t)(row / 16);
				span0 = row == 0 ? 0 : s->cell[i].col;
				span1 = row == 0 ? s->ncol - 1 : s->cell[i].col;
				for (size_t k = i; k < s->ncell && s->cell[k].row / 16 == (uint32_t)block; k++) {
					span0 = s->cell[k].col < span0 ? s->cell[k].col : span0;
					span1 = s->cell[k].col > span1 ? s->cell[k].col : span1;
				}
			}
			puts_(b, "<row r=\"");
			put_uint(b, (uint64_t)row + 1);
			puts_(b, "\" spans=\"");
			put_uint(b, (uint64_t)span0 + 1);
			puts_(b, ":");
			put_uint(b, (uint64_t)span1 + 1);
			puts_(b, "\">");
			if (row == 0)
				for (int c = 0; c < s->ncol; c++)
					put_cell(x, b, 0, c, XLSX_BOLD, 0, s->head_sst[c], 0);
			for (; i < s->ncell && s->cell[i].row == row; i++) {
				const Cell *c = &s->cell[i];
				put_cell(x, b, row, c->col, (XlsxFormat)c->fmt, c->is_num, c->u.sst, c->u.num);
			}
			puts_(b, "</row>");
			if (i == s->ncell)
				break;
			row = s->cell[i].row;
		}
		puts_(b, "</sheetData>");
	}
	puts_(b, "<pageMargins left=\"0.7\" right=\"0.7\" top=\"0.75\" bottom=\"0.75\" header=\"0.3\" footer=\"0.3\"/>");
	if (s->table)
		puts_(b, "<tableParts count=\"1\"><tablePart r:id=\"rId1\"/></tableParts>");
	puts_(b, "</worksheet>");
}

static void
workbook_xml(const Xlsx *x, Buf *b)
{
	puts_(b, XML_DECL "<workbook xmlns=\"" NS_MAIN "\" xmlns:r=\"" NS_REL "\">"
	      "<fileVersion appName=\"xl\" lastEdited=\"4\" lowestEdited=\"4\" rupBuild=\"4505\"/>"
	      "<workbookPr defaultThemeVersion=\"124226\"/><bookViews>"
	      "<workbookView xWindow=\"240\" yWindow=\"15\" windowWidth=\"16095\" windowHeight=\"9660\"");
	if (x->active) {
		puts_(b, " activeTab=\"");
		put_uint(b, (uint64_t)x->active);
		puts_(b, "\"");
	}
	puts_(b, "/></bookViews><sheets>");
	for (int i = 0; i < x->nsheet; i++) {
		puts_(b, "<sheet name=\"");
		puts_(b, x->sheet[i]->name);
		puts_(b, "\" sheetId=\"");
		put_uint(b, (uint64_t)i + 1);
		puts_(b, "\" r:id=\"rId");
		put_uint(b, (uint64_t)i + 1);
		puts_(b, "\"/>");
	}
	puts_(b, "</sheets><calcPr calcId=\"124519\" fullCalcOnLoad=\"1\"/></workbook>");
}

static void
table_xml(const XlsxSheet *s, int id, Buf *b)
{
	puts_(b, XML_DECL "<table xmlns=\"" NS_MAIN "\" id=\"");
	put_uint(b, (uint64_t)id);
	puts_(b, "\" name=\"");
	puts_(b, s->table);
	puts_(b, "\" displayName=\"");
	puts_(b, s->table);
	puts_(b, "\" ref=\"");
	put_range(b, 0, 0, s->table_last, s->ncol - 1);
	puts_(b, "\" totalsRowShown=\"0\"><autoFilter ref=\"");
	put_range(b, 0, 0, s->table_last, s->ncol - 1);
	puts_(b, "\"/><tableColumns count=\"");
	put_uint(b, (uint64_t)s->ncol);
	puts_(b, "\">");
	for (int c = 0; c < s->ncol; c++) {
		puts_(b, "<tableColumn id=\"");
		put_uint(b, (uint64_t)c + 1);
		puts_(b, "\" name=\"");
		puts_(b, s->head[c]);
		puts_(b, "\"/>");
	}
	puts_(b, "</tableColumns><tableStyleInfo name=\"TableStyleMedium9\" showFirstColumn=\"0\" "
	      "showLastColumn=\"0\" showRowStripes=\"1\" showColumnStripes=\"0\"/></table>");
}

/* One shared string: control characters other than tab and newline as
 * _xHHHH_ (libxlsxwriter escapes every string so), xml:space="preserve"
 * when it starts or ends with white space, & < > escaped. */
static void
put_si(Buf *b, const char *s)
{
	size_t n = strlen(s), k = 0;
	char small[1024], *esc = n * 7 < sizeof small ? small : malloc(n * 7 + 1);

	if (!esc)
		die("out of memory");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 && *p != '\t' && *p != '\n')
			k += (size_t)snprintf(esc + k, 8, "_x%04X_", *p);
		else
			esc[k++] = (char)*p;
	esc[k] = 0;
	puts_(b, "<si><t");
	if (k && (strchr(" \t\n\v\f\r", esc[0]) || strchr(" \t\n\v\f\r", esc[k - 1])))
		puts_(b, " xml:space=\"preserve\"");
	puts_(b, ">");
	put_esc(b, esc);
	puts_(b, "</t></si>");
	if (esc != small)
		free(esc);
}

static void
shared_strings(const Xlsx *x, Buf *b)
{
	puts_(b, XML_DECL "<sst xmlns=\"" NS_MAIN "\" count=\"");
	put_uint(b, x->sst_count);
	puts_(b, "\" uniqueCount=\"");
	put_uint(b, x->nsst);
	puts_(b, "\">");
	for (uint32_t i = 0; i < x->nsst; i++)
		put_si(b, x->sst[i]);
	puts_(b, "</sst>");
}

#define FONT_REST "<sz val=\"11\"/><color theme=\"1\"/><name val=\"Calibri\"/><family val=\"2\"/><scheme val=\"minor\"/></font>"

/* The styles of the formats used, in style-index order: number formats
 * numbered from 164 in order of first use, the bold font when used. */
static void
styles_xml(const Xlsx *x, Buf *b)
{
	const char *numfmt[XLSX_NFORMAT];
	int nnum = 0, numid[XLSX_NFORMAT + 1] = {0}, bold = 0;

	for (int i = 0; i < x->nxf; i++) {
		const char *f = formats[x->xf_format[i]].numfmt;
		int k = 0;
		bold |= formats[x->xf_format[i]].bold;
		if (!f)
			continue;
		while (k < nnum && strcmp(numfmt[k], f))
			k++;
		if (k == nnum)
			numfmt[nnum++] = f;
		numid[i + 1] = 164 + k;
	}
	puts_(b, XML_DECL "<styleSheet xmlns=\"" NS_MAIN "\">");
	if (nnum) {
		puts_(b, "<numFmts count=\"");
		put_uint(b, (uint64_t)nnum);
		puts_(b, "\">");
		for (int k = 0; k < nnum; k++) {
			puts_(b, "<numFmt numFmtId=\"");
			put_uint(b, 164 + (uint64_t)k);
			puts_(b, "\" formatCode=\"");
			puts_(b, numfmt[k]);
			puts_(b, "\"/>");
		}
		puts_(b, "</numFmts>");
	}
	puts_(b, bold ? "<fonts count=\"2\"><font>" FONT_REST "<font><b/>" FONT_REST "</fonts>"
	              : "<fonts count=\"1\"><font>" FONT_REST "</fonts>");
	puts_(b, "<fills count=\"2\"><fill><patternFill patternType=\"none\"/></fill><fill><patternFill "
	      "patternType=\"gray125\"/></fill></fills><borders count=\"1\"><border><left/><right/><top/>"
	      "<bottom/><diagonal/></border></borders><cellStyleXfs count=\"1\"><xf numFmtId=\"0\" "
	      "fontId=\"0\" fillId=\"0\" borderId=\"0\"/></cellStyleXfs><cellXfs count=\"");
	put_uint(b, (uint64_t)x->nxf + 1);
	puts_(b, "\">");
	for (int i = 0; i <= x->nxf; i++) {
		XlsxFormat f = i ? x->xf_format[i - 1] : XLSX_PLAIN;
		puts_(b, "<xf numFmtId=\"");
		put_uint(b, (uint64_t)numid[i]);
		puts_(b, formats[f].bold ? "\" fontId=\"1\"" : "\" fontId=\"0\"");
		puts_(b, " fillId=\"0\" borderId=\"0\" xfId=\"0\"");
		if (numid[i])
			puts_(b, " applyNumberFormat=\"1\"");
		if (formats[f].bold)
			puts_(b, " applyFont=\"1\"");
		if (formats[f].align) {
			puts_(b, " applyAlignment=\"1\"><alignment horizontal=\"");
			puts_(b, formats[f].align);
			puts_(b, "\"/></xf>");
		} else
			puts_(b, "/>");
	}
	puts_(b, "</cellXfs><cellStyles count=\"1\"><cellStyle name=\"Normal\" xfId=\"0\" builtinId=\"0\"/>"
	      "</cellStyles><dxfs count=\"0\"/><tableStyles count=\"0\" defaultTableStyle=\"TableStyleMedium9\" "
	      "defaultPivotStyle=\"PivotStyleLight16\"/></styleSheet>");
}

static void
sheet_rels(Buf *b, int table)
{
	char target[64];

	snprintf(target, sizeof target, "../tables/table%d.xml", table);
	puts_(b, XML_DECL "<Relationships xmlns=\"" NS_PKG_REL "\">");
	relationship(b, 1, NS_REL "/table", target);
	puts_(b, "</Relationships>");
}

static void
core_xml(const Xlsx *x, Buf *b)
{
	char when[32];
	struct tm tm;

	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&x->created, &tm));
	puts_(b, XML_DECL "<cp:coreProperties xmlns:cp=\"http://schemas.openxmlformats.org/package/2006/metadata/"
	      "core-properties\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\" xmlns:dcterms=\"http://purl.org/dc/"
	      "terms/\" xmlns:dcmitype=\"http://purl.org/dc/dcmitype/\" xmlns:xsi=\"http://www.w3.org/2001/"
	      "XMLSchema-instance\"><dc:title>");
	put_esc(b, x->title);
	puts_(b, "</dc:title><dc:creator>");
	put_esc(b, x->author);
	puts_(b, "</dc:creator><cp:lastModifiedBy>");
	put_esc(b, x->author);
	puts_(b, "</cp:lastModifiedBy><dcterms:created xsi:type=\"dcterms:W3CDTF\">");
	puts_(b, when);
	puts_(b, "</dcterms:created><dcterms:modified xsi:type=\"dcterms:W3CDTF\">");
	puts_(b, when);
	puts_(b, "</dcterms:modified></cp:coreProperties>");
}

static void
app_xml(const Xlsx *x, Buf *b)
{
	puts_(b, XML_DECL "<Properties xmlns=\"http://schemas.openxmlformats.org/officeDocument/2006/"
	      "extended-properties\" xmlns:vt=\"http://schemas.openxmlformats.org/officeDocument/2006/"
	      "docPropsVTypes\"><Application>Microsoft Excel</Application><DocSecurity>0</DocSecurity>"
	      "<ScaleCrop>false</ScaleCrop><HeadingPairs><vt:vector size=\"2\" baseType=\"variant\"><vt:variant>"
	      "<vt:lpstr>Worksheets</vt:lpstr></vt:variant><vt:variant><vt:i4>");
	put_uint(b, (uint64_t)x->nsheet);
	puts_(b, "</vt:i4></vt:variant></vt:vector></HeadingPairs><TitlesOfParts><vt:vector size=\"");
	put_uint(b, (uint64_t)x->nsheet);
	puts_(b, "\" baseType=\"lpstr\">");
	for (int i = 0; i < x->nsheet; i++) {
		puts_(b, "<vt:lpstr>");
		puts_(b, x->sheet[i]->name);
		puts_(b, "</vt:lpstr>");
	}
	puts_(b, "</vt:vector></TitlesOfParts><Company></Company><LinksUpToDate>false</LinksUpToDate>"
	      "<SharedDoc>false</SharedDoc><HyperlinksChanged>false</HyperlinksChanged>"
	      "<AppVersion>12.0000</AppVersion></Properties>");
}

/* ---- deflating, on two cores ---- */

/* A part of the file: its XML, then deflated. */
typedef struct Part {
	const char *name;
	Buf xml;
	XlsxPart z;         /* z.z points into out */
	Buf out;
} Part;

typedef struct Deflater {
	Part *part;
	const int *order;   /* parts by size, largest first */
	int n;
	atomic_int next;    /* the next entry of order to take */
} Deflater;

/* Deflates the parts of d not taken yet, one at a time, with the settings
 * of libxlsxwriter's minizip (level 6, raw, 15-bit window, memLevel 8). */
static int
deflate_parts(void *arg)
{
	Deflater *d = arg;
	z_stream z = {0};
	int i, ready = 0;

	while ((i = atomic_fetch_add(&d->next, 1)) < d->n) {
		Part *p = &d->part[d->order[i]];
		uLong bound;
		if (!ready) {
			if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
				die("out of memory");
			ready = 1;
		} else if (deflateReset(&z) != Z_OK)
			die("xlsx: deflateReset failed");
		bound = deflateBound(&z, (uLong)p->xml.n);
		buf_room(&p->out, bound);
		z.next_in = (Bytef *)p->xml.p;
		z.avail_in = (uInt)p->xml.n;
		z.next_out = (Bytef *)p->out.p;
		z.avail_out = (uInt)bound;
		if (deflate(&z, Z_FINISH) != Z_STREAM_END)
			die("xlsx: deflate did not finish");
		p->z = (XlsxPart){p->xml.n, (uint32_t)crc32(0, (const Bytef *)p->xml.p, (uInt)p->xml.n),
		                  z.data_type == Z_TEXT, z.total_out, (const uint8_t *)p->out.p};
	}
	if (ready)
		deflateEnd(&z);
	return 0;
}

/* 1 when part a goes before part b: larger first, then in file order. */
static int
larger(const Part *part, int a, int b)
{
	return part[a].xml.n != part[b].xml.n ? part[a].xml.n > part[b].xml.n : a < b;
}

/* Below this much XML a second thread costs more than it saves. */
#define PARALLEL_MIN ((size_t)24 << 10)

/* Deflates every part not stored deflated already: on this thread and, for
 * a workbook large enough, on a second one, each taking the largest part
 * left.  Which thread deflates which part does not change a byte. */
static void
deflate_all(Part *part, int n)
{
	int *order = malloc(sizeof *order * (size_t)n), k = 0;
	Deflater d = {part, order, 0, 0};
	size_t total = 0;
	thrd_t worker;
	int two;

	if (!order)
		die("out of memory");
	for (int i = 0; i < n; i++)
		if (!part[i].z.z) {
			int j = k++;
			for (; j > 0 && larger(part, i, order[j - 1]); j--)   /* insertion: a few dozen parts */
				order[j] = order[j - 1];
			order[j] = i;
			total += part[i].xml.n;
		}
	d.n = k;
	two = total >= PARALLEL_MIN && thrd_create(&worker, deflate_parts, &d) == thrd_success;
	deflate_parts(&d);
	if (two)
		thrd_join(worker, NULL);
	free(order);
}

/* ---- the file ---- */

#define MAXPART (8 + 3 * 64)

static Part *
part(Part *p, int *n, const char *name)
{
	if (*n == MAXPART)
		die("xlsx: too many parts");
	p[*n] = (Part){.name = name};
	return &p[(*n)++];
}

uint8_t *
xlsx_bytes(Xlsx *x, size_t *len)
{
	Part *p = calloc(MAXPART, sizeof *p);
	Zip zip = {0};
	int n = 0, t = 0;

	if (!p)
		die("out of memory");
	if (!x->nsheet || x->nsheet > 64)
		die("xlsx: a workbook of %d sheets", x->nsheet);
	/* the XML in zip order (style indices are given as the sheets are
	 * printed, before styles.xml), then deflated, then laid out */
	content_types(x, &part(p, &n, "[Content_Types].xml")->xml);
	root_rels(&part(p, &n, "_rels/.rels")->xml);
	workbook_rels(x, &part(p, &n, "xl/_rels/workbook.xml.rels")->xml);
	for (int i = 0; i < x->nsheet; i++)
		sheet_xml(x, x->sheet[i], &part(p, &n, arena_printf(x->a, "xl/worksheets/sheet%d.xml", i + 1))->xml);
	workbook_xml(x, &part(p, &n, "xl/workbook.xml")->xml);
	for (int i = 0; i < x->nsheet; i++)
		if (x->sheet[i]->table) {
			t++;
			table_xml(x->sheet[i], t, &part(p, &n, arena_printf(x->a, "xl/tables/table%d.xml", t))->xml);
		}
	if (x->nsst)
		shared_strings(x, &part(p, &n, "xl/sharedStrings.xml")->xml);
	part(p, &n, "xl/theme/theme1.xml")->z = xlsx_theme_z;
	styles_xml(x, &part(p, &n, "xl/styles.xml")->xml);
	for (int i = 0, k = 0; i < x->nsheet; i++)
		if (x->sheet[i]->table)
			sheet_rels(&part(p, &n, arena_printf(x->a, "xl/worksheets/_rels/sheet%d.xml.rels", i + 1))->xml, ++k);
	core_xml(x, &part(p, &n, "docProps/core.xml")->xml);
	app_xml(x, &part(p, &n, "docProps/app.xml")->xml);

	deflate_all(p, n);

	for (int i = 0; i < n; i++) {
		zip_add_deflated(&zip, p[i].name, &p[i].z);
		free(p[i].xml.p);
		free(p[i].out.p);
	}
	free(p);
	zip_finish(&zip);
	*len = zip.out.n;
	return (uint8_t *)zip.out.p;
}
