/* diag.c: diagnostics as values.  The rows of diag.def (kind, severity,
 * exit status, help), the items a Diag collects (each owns copies of its
 * strings, since callers pass arena text, strerror() and stack buffers
 * alike), their one-line text form, and docs/diagnostics.md. */
#include "core/core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x)

static const DiagInfo rows[YE_COUNT] = {
#define X(e, num, name, sev, exit, help, what) [e] = {num, "YE0" STR(num), name, sev, exit, help, what},
#include "diag.def"
#undef X
};

/* The id is "YE0" and the row's number pasted together, which is right for
 * numbers 100 to 999 only. */
#define X(e, num, name, sev, exit, help, what) \
	_Static_assert((num) >= 100 && (num) <= 999, "diag.def: " #e "'s number must have three digits");
#include "diag.def"
#undef X

static char *
dup(const char *s)
{
	char *r;

	if (!s)
		return NULL;
	if (!(r = strdup(s)))
		die("out of memory");
	return r;
}

static char *
dupn(const char *s, size_t n)
{
	char *r = malloc(n + 1);

	if (!r)
		die("out of memory");
	memcpy(r, s, n);
	r[n] = 0;
	return r;
}

static void *
grow(void *p, int *cap, size_t size)
{
	*cap = *cap ? *cap * 2 : 8;
	if (!(p = realloc(p, (size_t)*cap * size)))
		die("out of memory");
	return p;
}

const DiagInfo *
diag_info(DiagCode code)
{
	return code > YE_NONE && code < YE_COUNT ? &rows[code] : NULL;
}

DiagCode
diag_lookup(const char *s)
{
	for (int i = 1; s && i < YE_COUNT; i++)
		if (strcmp(rows[i].id, s) == 0 || strcmp(rows[i].name, s) == 0)
			return (DiagCode)i;
	return YE_NONE;
}

const char *
diag_severity_name(DiagSeverity s)
{
	return s == DIAG_SEV_ERROR ? "error" : s == DIAG_SEV_WARNING ? "warning" : "note";
}

void
diag_input(Diag *d, const char *path)
{
	size_t n = strlen(path);

	if (n < sizeof d->input)
		memcpy(d->input, path, n + 1);
	else
		d->input[0] = 0;
}

/* Splits a label "INPUT:ENTRY[:more]" into *entry (copied) and returns 1,
 * or returns 0 when s does not start with the input and a colon. */
static int
split_label(const Diag *d, const char *s, char **entry)
{
	size_t k = strlen(d->input);
	const char *e;

	if (!k || !s || strncmp(s, d->input, k) != 0 || s[k] != ':' || !s[k + 1])
		return 0;
	e = s + k + 1;
	*entry = dupn(e, strcspn(e, ":"));
	return 1;
}

/* "path:N in fn: code", "path:N: code" or "path:N" (serde.c's user_frame);
 * the path is what comes before the first ":N" that ends there or goes on
 * with " in " or ": ", so a path holding colons is kept whole. */
static DiagFrame
parse_frame(const char *s)
{
	DiagFrame f = {0};

	for (const char *p = s ? strchr(s, ':') : NULL; p; p = strchr(p + 1, ':')) {
		size_t nd = strspn(p + 1, "0123456789");
		const char *after = p + 1 + nd, *fn, *end;
		if (!nd || !(*after == 0 || *after == '\n' || strncmp(after, " in ", 4) == 0 ||
		             strncmp(after, ": ", 2) == 0))
			continue;
		f.file = dupn(s, (size_t)(p - s));
		f.line = (unsigned)strtoul(p + 1, NULL, 10);
		if (strncmp(after, " in ", 4) == 0) {
			fn = after + 4;
			end = fn + strcspn(fn, ":\n");
			f.function = dupn(fn, (size_t)(end - fn));
		}
		break;
	}
	return f;
}

void
diag_set_frame(Diag *d, int i, const char *frame)
{
	DiagItem *it;

	if (i < 0 || i >= d->n || !frame)
		return;
	it = &d->items[i];
	free((char *)it->at.frame);
	free(it->frame.file);
	free(it->frame.function);
	it->at.frame = dup(frame);
	it->frame = parse_frame(it->at.frame);
}

int
diag_report(Diag *d, DiagCode code, const DiagAt *at, const char *fmt, ...)
{
	const DiagInfo *row = diag_info(code);
	DiagItem *it;
	va_list ap;
	int n;

	if (!row)
		die("diag_report: no row for code %d", (int)code);
	if (d->n == d->cap)
		d->items = grow(d->items, &d->cap, sizeof *d->items);
	it = &d->items[d->n++];
	memset(it, 0, sizeof *it);
	it->code = code;
	if (at) {
		it->at = *at;
		it->at.file = dup(at->file);
		it->at.entry = dup(at->entry);
		it->at.graph = dup(at->graph);
		it->at.node = dup(at->node);
		it->at.target = dup(at->target);
		it->at.frame = dup(at->frame);
	}
	if (split_label(d, it->at.file, &it->entry)) {
		it->file = dup(d->input);
		if (it->at.entry) {
			free(it->entry);
			it->entry = dup(it->at.entry);
		}
	} else {
		it->file = dup(it->at.file);
		it->entry = dup(it->at.entry);
	}
	it->frame = parse_frame(it->at.frame);

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("vsnprintf failed");
	if (!(it->message = malloc((size_t)n + 1)))
		die("out of memory");
	va_start(ap, fmt);
	vsnprintf(it->message, (size_t)n + 1, fmt, ap);
	va_end(ap);
	if (row->exit > d->code)
		d->code = row->exit;
	return row->exit;
}

void
diag_move(Diag *to, Diag *from)
{
	for (int i = 0; i < from->n; i++) {
		if (to->n == to->cap)
			to->items = grow(to->items, &to->cap, sizeof *to->items);
		to->items[to->n++] = from->items[i];
	}
	if (from->code > to->code)
		to->code = from->code;
	free(from->items);
	from->items = NULL;
	from->n = from->cap = 0;
	from->code = DIAG_OK;
}

/* snprintf onto the end of what buf holds so far; *len counts what was
 * needed, so the result is right even when buf is too small. */
static void
put(char *buf, size_t size, size_t *len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void
put(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*len < size ? buf + *len : NULL, *len < size ? size - *len : 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("vsnprintf failed");
	*len += (size_t)n;
}

size_t
diag_format(const DiagItem *it, char *buf, size_t size)
{
	const DiagAt *at = &it->at;
	size_t len = 0;

	if (size)
		buf[0] = 0;
	if (at->node) {
		/* a reader's finding names the file and entry first; a lowering's
		 * names the node alone (the file is the one being converted) */
		if (at->file && at->entry)
			put(buf, size, &len, "%s:%s: ", at->file, at->entry);
		/* then the node, and its frame up to the frame's first line end */
		put(buf, size, &len, "node '%s' (%s)", at->node, at->target ? at->target : "");
		if (at->frame)
			put(buf, size, &len, " at %.*s", (int)strcspn(at->frame, "\n"), at->frame);
		put(buf, size, &len, ": ");
	} else if (at->file) {
		put(buf, size, &len, "%s", at->file);
		if (at->line)
			put(buf, size, &len, ":%u:%u", at->line, at->column);
		else if (at->column)
			put(buf, size, &len, ": column %u", at->column);
		if (at->has_offset)
			put(buf, size, &len, ": offset %llu", at->offset);
		put(buf, size, &len, ": ");
		/* a reader's finding in code the user did not write (TorchScript's
		 * printed code): the user's own line it comes from */
		if (at->frame)
			put(buf, size, &len, "at %.*s: ", (int)strcspn(at->frame, "\n"), at->frame);
	}
	put(buf, size, &len, "%s", it->message);
	return len;
}

void
diag_write_doc(FILE *f)
{
	static const char *const area[] = {
		[1] = "Options", [2] = "Conversion", [3] = "Reading the dump",
		[4] = "Files and output", [5] = "The report", [6] = "The optimizer",
	};
	int last = 0;

	fputs("# Diagnostics\n\n"
	      "<!-- Generated from lib/core/diag.def by `make docs`; do not edit. -->\n\n"
	      "Every message yobx-export prints has a stable code (`YE0201`) and name\n"
	      "(`unsupported-op`). The text on stderr is unchanged by them; "
	      "`--diagnostics=json`\nand `--sarif FILE` give the code, the name, the severity, "
	      "the file, the zip entry,\nthe node, its ATen target and the user's source frame "
	      "of each one.\nThe hundreds give the area. The exit status is that of the worst "
	      "diagnostic:\n1 the input is fine but cannot be converted, 2 bad input, options "
	      "or I/O.\n\n"
	      "| code | name | severity | exit | meaning |\n| --- | --- | --- | --- | --- |\n", f);
	for (int i = 1; i < YE_COUNT; i++)
		fprintf(f, "| [%s](#%s) | `%s` | %s | %d | %s |\n", rows[i].id, rows[i].name, rows[i].name,
		        diag_severity_name(rows[i].severity), rows[i].exit, rows[i].help);
	for (int i = 1; i < YE_COUNT; i++) {
		int a = rows[i].num / 100;
		if (a != last && a < (int)(sizeof area / sizeof area[0]) && area[a])
			fprintf(f, "\n## %02dxx: %s\n", a, area[a]);
		last = a;
		fprintf(f, "\n### %s\n\n`%s` %s (%s, exit status %d): %s.\n\n%s\n", rows[i].name, rows[i].id,
		        rows[i].name, diag_severity_name(rows[i].severity), rows[i].exit, rows[i].help,
		        rows[i].what);
	}
}

void
diag_free(Diag *d)
{
	for (int i = 0; i < d->n; i++) {
		DiagItem *it = &d->items[i];
		free((char *)it->at.file);
		free((char *)it->at.entry);
		free((char *)it->at.graph);
		free((char *)it->at.node);
		free((char *)it->at.target);
		free((char *)it->at.frame);
		free(it->file);
		free(it->entry);
		free(it->frame.file);
		free(it->frame.function);
		free(it->message);
	}
	free(d->items);
	memset(d, 0, sizeof *d);
}
