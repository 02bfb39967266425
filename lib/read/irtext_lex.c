/* irtext_lex.c: the text graph reader's lines, characters and tokens
 * (internal.h): the cursor over the current line, identifiers, numbers and
 * quoted spans, each error one message "file:line:col: what". */
#include "read/read.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "ir/ir.h"
#include "read/internal.h"

/* ---- lines and characters ---- */

int
irt_err(Lex *L, const char *at, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = arena_vprintf(L->a, fmt, ap);
	va_end(ap);
	if (!at || at < L->bol || at > L->eol)
		at = L->p;
	return diag_report(L->d, YE_TEXT_GRAPH, &(DiagAt){.file = L->label, .line = (unsigned)L->line, .column = (unsigned)(at - L->bol) + 1}, "%s", msg);
}

/* Puts L at the start of the line beginning at s. */
void
irt_set_line(Lex *L, const char *s)
{
	L->bol = L->p = s;
	L->eol = memchr(s, '\n', (size_t)(L->end - s));
	if (!L->eol)
		L->eol = L->end;
}

static int
at_eof(const Lex *L)
{
	return L->bol >= L->end;
}

void
irt_next_line(Lex *L)
{
	if (L->eol < L->end) {
		irt_set_line(L, L->eol + 1);
		L->line++;
	} else {
		L->bol = L->p = L->eol = L->end;
	}
}

void
irt_skip_ws(Lex *L)
{
	while (L->p < L->eol && (*L->p == ' ' || *L->p == '\t' || *L->p == '\r'))
		L->p++;
}

int
irt_at_line_end(Lex *L)
{
	irt_skip_ws(L);
	return L->p >= L->eol;
}

/* 1 when the current line is blank or a comment (first non-blank '#'). */
static int
line_is_empty(Lex *L)
{
	const char *q = L->bol;

	while (q < L->eol && (*q == ' ' || *q == '\t' || *q == '\r'))
		q++;
	return q >= L->eol || *q == '#';
}

/* 1 when the line starts with "===": the end of the graph text. */
static int
line_is_stop(const Lex *L)
{
	return L->eol - L->bol >= 3 && memcmp(L->bol, "===", 3) == 0;
}

/* Skips blank and comment lines; 0 at the end of the graph text. */
int
irt_skip_empty_lines(Lex *L)
{
	while (!at_eof(L) && !line_is_stop(L) && line_is_empty(L))
		irt_next_line(L);
	return !at_eof(L) && !line_is_stop(L);
}

int
irt_indent_of(const Lex *L)
{
	int n = 0;

	while (L->bol + n < L->eol && L->bol[n] == ' ')
		n++;
	return n;
}

/* Consumes s when the text at the cursor (after blanks) starts with it. */
int
irt_accept(Lex *L, const char *s)
{
	size_t n = strlen(s);

	irt_skip_ws(L);
	if ((size_t)(L->eol - L->p) >= n && memcmp(L->p, s, n) == 0) {
		L->p += n;
		return 1;
	}
	return 0;
}

int
irt_expect(Lex *L, const char *s, const char *what)
{
	if (irt_accept(L, s))
		return 0;
	return irt_err(L, L->p, "expected '%s' %s", s, what);
}

static int
is_ident_char(int c, int first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9');
}

/* An identifier ([A-Za-z_][A-Za-z0-9_]*, plus '.' when dots is set), or NULL. */
const char *
irt_ident(Lex *L, int dots)
{
	const char *s;

	irt_skip_ws(L);
	s = L->p;
	if (s >= L->eol || !is_ident_char((unsigned char)*s, 1))
		return NULL;
	while (L->p < L->eol && (is_ident_char((unsigned char)*L->p, 0) || (dots && *L->p == '.')))
		L->p++;
	return arena_strndup(L->a, s, (size_t)(L->p - s));
}

/* The text up to (not including) the first of stops at bracket depth 0, trimmed. */
const char *
irt_span_until(Lex *L, const char *stops, const char **start)
{
	int depth = 0;
	const char *s, *e;

	irt_skip_ws(L);
	s = L->p;
	for (; L->p < L->eol; L->p++) {
		char c = *L->p;
		if (depth == 0 && strchr(stops, c))
			break;
		if (c == '(' || c == '[')
			depth++;
		else if ((c == ')' || c == ']') && depth > 0)
			depth--;
	}
	for (e = L->p; e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'); e--)
		;
	if (start)
		*start = s;
	return arena_strndup(L->a, s, (size_t)(e - s));
}

/* A number token: [-+0-9A-Za-z.] run (covers 1e-05, -inf, nan). */
const char *
irt_number_token(Lex *L, const char **start)
{
	const char *s;

	irt_skip_ws(L);
	s = L->p;
	if (L->p < L->eol && (*L->p == '-' || *L->p == '+'))
		L->p++;
	while (L->p < L->eol && (is_ident_char((unsigned char)*L->p, 0) || *L->p == '.' ||
	                         ((*L->p == '-' || *L->p == '+') && (L->p[-1] == 'e' || L->p[-1] == 'E'))))
		L->p++;
	*start = s;
	return arena_strndup(L->a, s, (size_t)(L->p - s));
}

/* Parses tok as an integer (1) or a float (2); 0 when it is neither. */
int
irt_number_value(const char *tok, int64_t *i, double *f)
{
	char *endp;
	const char *q = tok + (*tok == '-' || *tok == '+');

	if (*q && strspn(q, "0123456789") == strlen(q)) {
		errno = 0;
		*i = strtoll(tok, &endp, 10);
		if (errno == 0 && !*endp)
			return 1;
	}
	if (!*tok)
		return 0;
	errno = 0;
	*f = strtod(tok, &endp);
	return *endp == 0 ? 2 : 0;
}

int
irt_parse_int(Lex *L, int64_t *out, const char *what)
{
	const char *s, *tok = irt_number_token(L, &s);
	double f;

	if (irt_number_value(tok, out, &f) != 1)
		return irt_err(L, s, "expected an integer %s", what);
	return 0;
}

int
irt_parse_number(Lex *L, double *out, const char *what)
{
	const char *s, *tok = irt_number_token(L, &s);
	int64_t i;
	int k = irt_number_value(tok, &i, out);

	if (k == 1)
		*out = (double)i;
	else if (k != 2)
		return irt_err(L, s, "expected a number %s, not '%s'", what, tok);
	return 0;
}

/* ---- growing arrays (capacity doubles at powers of two, as ir_new_value) ---- */

void *
irt_grow(Arena *a, void *arr, int n, size_t elem)
{
	void *na;

	if (n && (n & (n - 1)))
		return arr;
	na = arena_alloc(a, elem * (size_t)(n ? n * 2 : 1));
	if (n)
		memcpy(na, arr, elem * (size_t)n);
	return na;
}
