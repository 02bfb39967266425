/* tslex.c: the tokens of a TorchScript code file (tslex.h).
 *
 * The text need not be NUL-terminated (it points into a zip entry): every
 * read checks the end.  Indents are measured in columns with Python's tab
 * stops; a line indented less must match an enclosing block's indent. */
#include "tslex.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

/* Wider indents are no printer's: the cap keeps the column count an int. */
enum { MAX_INDENT = 1 << 20 };

/* Every operator spelling, longest first so the scan takes the longest
 * match; aug marks `op=`, which carries the operator it applies. */
static const struct OpSpelling {
	const char *s;
	int op, aug;
} op_spellings[] = {
	{"**=", OP_POW, 1}, {"//=", OP_FLOORDIV, 1}, {"<<=", OP_SHL, 1}, {">>=", OP_SHR, 1},
	{"...", OP_ELLIPSIS, 0},
	{"**", OP_POW, 0}, {"//", OP_FLOORDIV, 0}, {"<<", OP_SHL, 0}, {">>", OP_SHR, 0},
	{"==", OP_EQ, 0}, {"!=", OP_NE, 0}, {"<=", OP_LE, 0}, {">=", OP_GE, 0}, {"->", OP_ARROW, 0},
	{"+=", '+', 1}, {"-=", '-', 1}, {"*=", '*', 1}, {"/=", '/', 1}, {"%=", '%', 1},
	{"@=", '@', 1}, {"&=", '&', 1}, {"|=", '|', 1}, {"^=", '^', 1},
	{"+", '+', 0}, {"-", '-', 0}, {"*", '*', 0}, {"/", '/', 0}, {"%", '%', 0}, {"@", '@', 0},
	{"&", '&', 0}, {"|", '|', 0}, {"^", '^', 0}, {"~", '~', 0}, {"<", '<', 0}, {">", '>', 0},
	{"(", '(', 0}, {")", ')', 0}, {"[", '[', 0}, {"]", ']', 0}, {"{", '{', 0}, {"}", '}', 0},
	{",", ',', 0}, {":", ':', 0}, {".", '.', 0}, {";", ';', 0}, {"=", '=', 0},
};

/* Python's keywords: a name spelled so is never an identifier. */
static const char *const keywords[] = {
	"False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
	"continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
	"if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return",
	"try", "while", "with", "yield",
};

int
tslex_is_keyword(const TsTok *t)
{
	for (size_t k = 0; k < sizeof keywords / sizeof *keywords; k++)
		if (strlen(keywords[k]) == t->n && memcmp(keywords[k], t->p, t->n) == 0)
			return 1;
	return 0;
}

/* ==== errors ==== */

/* What a token is, for "found ...": "name 'x'", "'('", "end of line". */
static const char *
describe(TsLex *P, const TsTok *t)
{
	int n = t->n > 24 ? 24 : (int)t->n;
	const char *more = t->n > 24 ? "..." : "";

	switch (t->kind) {
	case LX_END: return "end of file";
	case LX_NEWLINE: return "end of line";
	case LX_INDENT: return "an indented line";
	case LX_DEDENT: return "a line indented less";
	case LX_NAME:
		if (tslex_is_keyword(t))
			return arena_printf(P->a, "'%.*s'", (int)t->n, t->p);
		return arena_printf(P->a, "name '%.*s%s'", n, t->p, more);
	case LX_INT: case LX_FLOAT: case LX_IMAG:
		return arena_printf(P->a, "number %.*s%s", n, t->p, more);
	case LX_STR: {
		/* The spelling, with bytes a terminal would act on shown as escapes. */
		char buf[128];
		size_t k = 0;

		for (size_t i = 0; i < (size_t)n && k + 5 < sizeof buf; i++) {
			unsigned char c = (unsigned char)t->p[i];
			k += (size_t)snprintf(buf + k, sizeof buf - k, c >= 0x20 && c < 0x7f ? "%c" : "\\x%02x", c);
		}
		return arena_printf(P->a, "string %.*s%s", (int)k, buf, more);
	}
	case LX_OP:
		for (size_t k = 0; k < sizeof op_spellings / sizeof *op_spellings; k++)
			if (op_spellings[k].op == t->op && op_spellings[k].aug == t->aug)
				return arena_printf(P->a, "'%s'", op_spellings[k].s);
		break;
	}
	die("token kind %d", (int)t->kind);
}

_Noreturn void
tslex_fail(TsLex *P, uint32_t line, uint32_t col, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	diag_report(P->d, YE_TS_SYNTAX, &(DiagAt){.file = P->label, .line = line, .column = col}, "%s", msg);
	longjmp(P->fail, 1);
}

_Noreturn void
tslex_expected(TsLex *P, const char *what)
{
	tslex_fail(P, P->tok.line, P->tok.col, "expected %s, found %s", what, describe(P, &P->tok));
}

/* The same at the byte at ofs, for the lexer: found is what it saw there. */
static _Noreturn void
lex_fail(TsLex *P, size_t ofs, const char *what, const char *found)
{
	tslex_fail(P, P->line, (uint32_t)(ofs - P->bol) + 1, "expected %s, found %s", what, found);
}

/* ==== lexer ==== */

static int
at(const TsLex *P, size_t k)
{
	return P->pos + k < P->len ? (unsigned char)P->text[P->pos + k] : -1;
}

static int
is_ident(int c, int first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

static int
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static void
newline_at(TsLex *P, size_t next)
{
	P->pos = next;
	P->line++;
	P->bol = next;
}

/* The byte at ofs as "byte 0x01", "'$'". */
static const char *
byte_name(TsLex *P, size_t ofs)
{
	unsigned char c;

	if (ofs >= P->len)
		return "end of file";
	c = (unsigned char)P->text[ofs];
	if (c == '\n')
		return "end of line";
	return c >= 0x20 && c < 0x7f ? arena_printf(P->a, "'%c'", c) : arena_printf(P->a, "byte 0x%02x", c);
}

/* Skips blanks, comments and backslash-newline joins within a line. */
static void
skip_blanks(TsLex *P)
{
	for (;;) {
		int c = at(P, 0);

		if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
			P->pos++;
		} else if (c == '#') {
			while (at(P, 0) >= 0 && at(P, 0) != '\n')
				P->pos++;
		} else if (c == '\\') {
			size_t k = at(P, 1) == '\r' ? 2 : 1;

			if (at(P, k) != '\n')
				lex_fail(P, P->pos + 1, "a line end after '\\'", byte_name(P, P->pos + k));
			newline_at(P, P->pos + k + 1);
		} else if (c == '\n' && P->brackets > 0) {
			newline_at(P, P->pos + 1);
		} else {
			return;
		}
	}
}

/* At the start of a logical line: skips blank and comment-only lines and
 * measures the indent of the next one (-1 at the end of the text). */
static int
measure_indent(TsLex *P)
{
	for (;;) {
		int w = 0, c;

		while ((c = at(P, 0)) == ' ' || c == '\t' || c == '\f' || c == '\r') {
			if (c == ' ')
				w++;
			else if (c == '\t')
				w = (w / 8 + 1) * 8;  /* Python's tab stops */
			P->pos++;
			if (w > MAX_INDENT)
				lex_fail(P, P->pos, arena_printf(P->a, "an indent of at most %d columns", MAX_INDENT),
				         "more");
		}
		if (c == '#')
			while (at(P, 0) >= 0 && at(P, 0) != '\n')
				P->pos++;
		c = at(P, 0);
		if (c < 0)
			return -1;
		if (c != '\n')
			return w;
		newline_at(P, P->pos + 1);
	}
}

static void
set_tok(TsLex *P, TsLexKind kind, size_t start)
{
	TsTok *t = &P->tok;

	memset(t, 0, sizeof *t);
	t->kind = kind;
	t->ofs = (uint32_t)start;
	t->line = P->line;
	t->col = (uint32_t)(start - P->bol) + 1;
	t->p = P->text + start;
}

/* Appends the UTF-8 form of code point cp to buf. */
static size_t
put_utf8(char *buf, uint32_t cp)
{
	if (cp < 0x80) {
		buf[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		buf[0] = (char)(0xc0 | cp >> 6);
		buf[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		buf[0] = (char)(0xe0 | cp >> 12);
		buf[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		buf[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	buf[0] = (char)(0xf0 | cp >> 18);
	buf[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	buf[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	buf[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static int
hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A backslash escape at pos (just after the backslash) into buf; returns
 * the bytes written.  The printer writes \\ \' \" \a \b \f \n \r \t \v and
 * \ooo; Python's \xHH, \uXXXX, \UXXXXXXXX and backslash-newline are read
 * too, and an unknown escape keeps its backslash, as in Python. */
static size_t
lex_escape(TsLex *P, char *buf)
{
	static const char simple[] = "\\\\''\"\"a\ab\bf\fn\nr\rt\tv\v";
	int c = at(P, 0);
	uint32_t cp = 0;
	int digits;

	for (size_t k = 0; simple[k]; k += 2)
		if (c == simple[k]) {
			P->pos++;
			buf[0] = simple[k + 1];
			return 1;
		}
	if (c >= '0' && c <= '7') {
		for (digits = 0; digits < 3 && at(P, 0) >= '0' && at(P, 0) <= '7'; digits++, P->pos++)
			cp = cp * 8 + (uint32_t)(at(P, 0) - '0');
		buf[0] = (char)(cp & 0xff);
		return 1;
	}
	if (c == 'x' || c == 'u' || c == 'U') {
		int want = c == 'x' ? 2 : c == 'u' ? 4 : 8;

		for (digits = 0; digits < want; digits++) {
			int h = hex_value(at(P, 1 + (size_t)digits));

			if (h < 0)
				lex_fail(P, P->pos + 1 + (size_t)digits,
				         arena_printf(P->a, "%d hex digits after '\\%c'", want, c),
				         byte_name(P, P->pos + 1 + (size_t)digits));
			cp = cp * 16 + (uint32_t)h;
		}
		if (c != 'x' && (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)))
			lex_fail(P, P->pos - 1, "a Unicode scalar value", arena_printf(P->a, "\\%c%0*X", c, want, cp));
		P->pos += 1 + (size_t)want;
		if (c == 'x') {
			buf[0] = (char)cp;
			return 1;
		}
		return put_utf8(buf, cp);
	}
	if (c == '\n') {
		newline_at(P, P->pos + 1);
		return 0;
	}
	if (c < 0)
		return 0;  /* the caller reports the unterminated string */
	buf[0] = '\\';
	buf[1] = (char)c;
	P->pos++;
	return 2;
}

/* A string literal at pos (its quote): '...', "...", or triple-quoted. */
static void
lex_string(TsLex *P)
{
	size_t start = P->pos, cap, n = 0;
	uint32_t line = P->line, col = (uint32_t)(start - P->bol) + 1;
	int q = at(P, 0), triple = at(P, 1) == q && at(P, 2) == q;
	char *buf;

	P->pos += triple ? 3 : 1;
	cap = 64;
	buf = arena_alloc(P->a, cap);
	for (;;) {
		int c = at(P, 0);

		if (n + 8 > cap) {
			char *nb = arena_alloc(P->a, cap * 2);

			memcpy(nb, buf, n);
			buf = nb;
			cap *= 2;
		}
		if (c < 0 || (c == '\n' && !triple))
			tslex_fail(P, line, col, "expected %s to close the string, found %s", triple ?
			        (q == '"' ? "'\"\"\"'" : "\"'''\"") : (q == '"' ? "'\"'" : "\"'\""),
			        c < 0 ? "end of file" : "end of line");
		if (c == q && (!triple || (at(P, 1) == q && at(P, 2) == q))) {
			P->pos += triple ? 3 : 1;
			break;
		}
		if (c == '\\') {
			P->pos++;
			n += lex_escape(P, buf + n);
			continue;
		}
		if (c == '\n')
			newline_at(P, P->pos + 1);
		else
			P->pos++;
		buf[n++] = (char)c;
	}
	buf[n] = 0;
	/* The token starts where the string did, even when it spans lines. */
	P->tok.kind = LX_STR;
	P->tok.ofs = (uint32_t)start;
	P->tok.line = line;
	P->tok.col = col;
	P->tok.p = P->text + start;
	P->tok.n = P->pos - start;
	P->tok.s = buf;
	P->tok.slen = n;
}

/* A number at pos: 12, 1., .5, 1e-05, 1.0000000000000001e-05, 1e+20, 2.j. */
static void
lex_number(TsLex *P)
{
	size_t start = P->pos;
	int is_float = 0;
	char tmp[128];

	while (is_digit(at(P, 0)))
		P->pos++;
	if (at(P, 0) == '.') {
		is_float = 1;
		P->pos++;
		while (is_digit(at(P, 0)))
			P->pos++;
	}
	if (at(P, 0) == 'e' || at(P, 0) == 'E') {
		size_t k = (at(P, 1) == '+' || at(P, 1) == '-') ? 2 : 1;

		if (!is_digit(at(P, k)))
			lex_fail(P, P->pos + k, "a digit in the exponent", byte_name(P, P->pos + k));
		is_float = 1;
		P->pos += k;
		while (is_digit(at(P, 0)))
			P->pos++;
	}
	P->tok.p = P->text + start;
	P->tok.n = P->pos - start;
	if (at(P, 0) == 'j' || at(P, 0) == 'J') {
		P->pos++;
		P->tok.kind = LX_IMAG;
		is_float = 1;
	} else {
		P->tok.kind = is_float ? LX_FLOAT : LX_INT;
	}
	if (is_ident(at(P, 0), 0))
		lex_fail(P, P->pos, "an operator or a space after a number", byte_name(P, P->pos));
	if (is_float) {
		const char *s = P->tok.n < sizeof tmp ? tmp : arena_strndup(P->a, P->tok.p, P->tok.n);

		if (s == tmp) {
			memcpy(tmp, P->tok.p, P->tok.n);
			tmp[P->tok.n] = 0;
		}
		P->tok.f = strtod(s, NULL);  /* out of range gives inf or 0, as Python's float() */
		return;
	}
	for (size_t k = 0; k < P->tok.n; k++) {
		uint64_t digit = (uint64_t)(P->tok.p[k] - '0');

		if (P->tok.u > ((uint64_t)INT64_MAX + 1 - digit) / 10)
			tslex_fail(P, P->tok.line, P->tok.col, "expected an integer of 64 bits, found number %.*s",
			        (int)(P->tok.n > 40 ? 40 : P->tok.n), P->tok.p);
		P->tok.u = P->tok.u * 10 + digit;
	}
}

/* The next operator at pos, longest spelling first. */
static void
lex_op(TsLex *P)
{
	for (size_t k = 0; k < sizeof op_spellings / sizeof *op_spellings; k++) {
		const struct OpSpelling *o = &op_spellings[k];
		size_t n = strlen(o->s);

		if (P->pos + n <= P->len && memcmp(P->text + P->pos, o->s, n) == 0) {
			P->tok.kind = LX_OP;
			P->tok.op = o->op;
			P->tok.aug = o->aug;
			P->tok.n = n;
			P->pos += n;
			if (o->op == '(' || o->op == '[' || o->op == '{')
				P->brackets++;
			else if ((o->op == ')' || o->op == ']' || o->op == '}') && P->brackets > 0)
				P->brackets--;
			return;
		}
	}
	lex_fail(P, P->pos, "a name, number, string or operator", byte_name(P, P->pos));
}

void
tslex_next(TsLex *P)
{
	TsLexKind prev = P->tok.kind;

	if (P->dedents > 0) {
		P->dedents--;
		set_tok(P, LX_DEDENT, P->pos);
		return;
	}
	if (P->at_bol) {
		int w = measure_indent(P);

		P->at_bol = 0;
		if (w < 0)
			w = 0;  /* the end closes every block */
		if (w > P->indent[P->nindent - 1]) {
			if (P->nindent > TS_MAX_NEST)
				lex_fail(P, P->pos, arena_printf(P->a, "at most %d levels of indentation", TS_MAX_NEST),
				         "more");
			P->indent[P->nindent++] = w;
			set_tok(P, LX_INDENT, P->pos);
			return;
		}
		if (w < P->indent[P->nindent - 1]) {
			while (P->nindent > 1 && w < P->indent[P->nindent - 1]) {
				P->nindent--;
				P->dedents++;
			}
			if (w != P->indent[P->nindent - 1])
				lex_fail(P, P->pos, arena_printf(P->a, "an indent of %d columns, as an enclosing block",
				         P->indent[P->nindent - 1]), arena_printf(P->a, "%d", w));
			P->dedents--;
			set_tok(P, LX_DEDENT, P->pos);
			return;
		}
	}
	skip_blanks(P);
	if (P->pos >= P->len && P->brackets > 0) {
		set_tok(P, LX_END, P->pos);  /* the parser says which bracket is open */
		return;
	}
	if (P->pos >= P->len) {
		/* A last line without its newline still ends a statement. */
		if (prev != LX_NEWLINE && prev != LX_DEDENT && prev != LX_INDENT && prev != LX_END) {
			set_tok(P, LX_NEWLINE, P->pos);
			P->at_bol = 1;
			return;
		}
		if (P->nindent > 1) {
			P->nindent--;
			set_tok(P, LX_DEDENT, P->pos);
			return;
		}
		set_tok(P, LX_END, P->pos);
		return;
	}
	set_tok(P, LX_NAME, P->pos);
	{
		int c = at(P, 0);

		if (c == '\n') {
			set_tok(P, LX_NEWLINE, P->pos);
			newline_at(P, P->pos + 1);
			P->at_bol = 1;
		} else if (is_ident(c, 1)) {
			while (is_ident(at(P, 0), 0))
				P->pos++;
			P->tok.n = (size_t)(P->text + P->pos - P->tok.p);
		} else if (is_digit(c) || (c == '.' && is_digit(at(P, 1)))) {
			lex_number(P);
		} else if (c == '"' || c == '\'') {
			lex_string(P);
		} else {
			lex_op(P);
		}
	}
}

