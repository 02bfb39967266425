/* tsparse.c: a TorchScript code file (code/__torch__/ ** .py) into a TsAst.
 *
 * torch's printer (python_print.cpp) writes a small, regular Python: classes
 * whose bodies declare attributes (`weight : Tensor`), constants
 * (`eps : Final[float] = 1e-05`) and typed methods; free functions; and in
 * bodies assignments, calls, if/else, for over range, while, with, return,
 * raise, assert, del, pass.  This file is a lexer that turns indentation
 * into INDENT/DEDENT tokens as Python does (newlines inside brackets do not
 * count), and a recursive-descent parser over it with Python's precedence.
 * It reads the whole of Python's expression and statement syntax that the
 * printer can write, and says "expected X, found Y" at the first token it
 * cannot take; lambdas, comprehensions, star arguments, try, import and the
 * like are such tokens.
 *
 * A syntax error ends the parse: fail() reports it and jumps back to
 * ts_parse(), which returns the error as a value.  Everything allocated so
 * far lives in the arena, so the jump leaks nothing.  The text need not be
 * NUL-terminated (it points into a zip entry): every read checks the end.
 * Nesting (suites, brackets, unary operators, and each link of an operator
 * or trailer chain) is counted against TS_MAX_NEST, which bounds both the C
 * stack here and the depth of the tree the builder walks. */
#include "read/ts.h"

#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

/* ==== tokens ==== */

typedef enum LexKind {
	LX_END, LX_NEWLINE, LX_INDENT, LX_DEDENT,
	LX_NAME, LX_INT, LX_FLOAT, LX_IMAG, LX_STR, LX_OP,
} LexKind;

/* Operators of more than one character; single ones are their char. */
enum {
	OP_EQ = 256, OP_NE, OP_LE, OP_GE, OP_SHL, OP_SHR, OP_POW, OP_FLOORDIV,
	OP_ARROW, OP_ELLIPSIS,
};

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

/* The infix arithmetic operators: precedence (higher binds tighter; 0 for
 * `**`, which power() handles, right-associative) and the TsBinOp, which
 * augmented assignment uses too. */
static const struct BinRow {
	int op, prec;
	TsBinOp bin;
} bin_rows[] = {
	{'|', 1, TB_OR}, {'^', 2, TB_XOR}, {'&', 3, TB_AND},
	{OP_SHL, 4, TB_SHL}, {OP_SHR, 4, TB_SHR},
	{'+', 5, TB_ADD}, {'-', 5, TB_SUB},
	{'*', 6, TB_MUL}, {'/', 6, TB_DIV}, {OP_FLOORDIV, 6, TB_FLOORDIV}, {'%', 6, TB_MOD},
	{'@', 6, TB_MATMUL},
	{OP_POW, 0, TB_POW},
};

/* Python's keywords: a name spelled so is never an identifier. */
static const char *const keywords[] = {
	"False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
	"continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
	"if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return",
	"try", "while", "with", "yield",
};

typedef struct Tok {
	LexKind kind;
	int op, aug;            /* LX_OP */
	uint32_t ofs, line, col;
	const char *p;          /* spelling in the text */
	size_t n;
	uint64_t u;             /* LX_INT; above INT64_MAX only as 2^63, for a minus to take */
	double f;               /* LX_FLOAT, LX_IMAG */
	char *s;                /* LX_STR, decoded (arena, NUL-terminated) */
	size_t slen;
} Tok;

typedef struct Parser {
	Arena *a;
	Diag *d;
	const char *label;
	const char *text;
	size_t len, pos;
	uint32_t line;          /* of pos, 1-based */
	size_t bol;             /* offset of that line's first byte */
	int brackets;           /* open (, [, {: newlines inside do not count */
	int at_bol;             /* next token starts a logical line: measure its indent */
	int dedents;            /* DEDENT tokens still owed */
	int indent[TS_MAX_NEST + 2];
	int nindent;            /* indent[0] is 0, the top level */
	Tok tok;                /* the current token */
	int nest;               /* against TS_MAX_NEST */
	jmp_buf fail;
} Parser;

/* ==== errors ==== */

/* What a token is, for "found ...": "name 'x'", "'('", "end of line". */
static const char *
describe(Parser *P, const Tok *t)
{
	int n = t->n > 24 ? 24 : (int)t->n;
	const char *more = t->n > 24 ? "..." : "";

	switch (t->kind) {
	case LX_END: return "end of file";
	case LX_NEWLINE: return "end of line";
	case LX_INDENT: return "an indented line";
	case LX_DEDENT: return "a line indented less";
	case LX_NAME:
		for (size_t k = 0; k < sizeof keywords / sizeof *keywords; k++)
			if (strlen(keywords[k]) == t->n && memcmp(keywords[k], t->p, t->n) == 0)
				return arena_printf(P->a, "'%s'", keywords[k]);
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

/* Reports "label:line:col: message" and ends the parse. */
static _Noreturn void fail_at(Parser *P, uint32_t line, uint32_t col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static _Noreturn void
fail_at(Parser *P, uint32_t line, uint32_t col, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	diag_report(P->d, YE_TS_SYNTAX, &(DiagAt){.file = P->label, .line = line, .column = col}, "%s", msg);
	longjmp(P->fail, 1);
}

/* "expected WHAT, found <the current token>" at the current token. */
static _Noreturn void
expected(Parser *P, const char *what)
{
	fail_at(P, P->tok.line, P->tok.col, "expected %s, found %s", what, describe(P, &P->tok));
}

/* The same at the byte at ofs, for the lexer: found is what it saw there. */
static _Noreturn void
lex_fail(Parser *P, size_t ofs, const char *what, const char *found)
{
	fail_at(P, P->line, (uint32_t)(ofs - P->bol) + 1, "expected %s, found %s", what, found);
}

static void
enter(Parser *P)
{
	if (++P->nest > TS_MAX_NEST)
		fail_at(P, P->tok.line, P->tok.col, "expected at most %d levels of nesting, found more",
		        TS_MAX_NEST);
}

/* ==== lexer ==== */

static int
at(const Parser *P, size_t k)
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
newline_at(Parser *P, size_t next)
{
	P->pos = next;
	P->line++;
	P->bol = next;
}

/* The byte at ofs as "byte 0x01", "'$'". */
static const char *
byte_name(Parser *P, size_t ofs)
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
skip_blanks(Parser *P)
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
measure_indent(Parser *P)
{
	for (;;) {
		int w = 0, c;

		while ((c = at(P, 0)) == ' ' || c == '\t' || c == '\f' || c == '\r') {
			if (c == ' ')
				w++;
			else if (c == '\t')
				w = (w / 8 + 1) * 8;  /* Python's tab stops */
			P->pos++;
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
set_tok(Parser *P, LexKind kind, size_t start)
{
	Tok *t = &P->tok;

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
lex_escape(Parser *P, char *buf)
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
lex_string(Parser *P)
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
			fail_at(P, line, col, "expected %s to close the string, found %s", triple ?
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
lex_number(Parser *P)
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
			fail_at(P, P->tok.line, P->tok.col, "expected an integer of 64 bits, found number %.*s",
			        (int)(P->tok.n > 40 ? 40 : P->tok.n), P->tok.p);
		P->tok.u = P->tok.u * 10 + digit;
	}
}

/* The next operator at pos, longest spelling first. */
static void
lex_op(Parser *P)
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

/* Moves P->tok to the next token. */
static void
next(Parser *P)
{
	LexKind prev = P->tok.kind;

	if (P->dedents > 0) {
		P->dedents--;
		set_tok(P, LX_DEDENT, P->pos);
		return;
	}
	if (P->at_bol) {
		int w = measure_indent(P);

		P->at_bol = 0;
		if (w < 0) {
			w = 0;  /* the end closes every block */
		}
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

/* ==== token tests ==== */

static int
is_op(const Parser *P, int op)
{
	return P->tok.kind == LX_OP && P->tok.op == op && !P->tok.aug;
}

static int
is_kw(const Parser *P, const char *kw)
{
	return P->tok.kind == LX_NAME && strlen(kw) == P->tok.n && memcmp(P->tok.p, kw, P->tok.n) == 0;
}

static int
is_keyword(const Tok *t)
{
	for (size_t k = 0; k < sizeof keywords / sizeof *keywords; k++)
		if (strlen(keywords[k]) == t->n && memcmp(keywords[k], t->p, t->n) == 0)
			return 1;
	return 0;
}

static int
accept_op(Parser *P, int op)
{
	if (!is_op(P, op))
		return 0;
	next(P);
	return 1;
}

static int
accept_kw(Parser *P, const char *kw)
{
	if (!is_kw(P, kw))
		return 0;
	next(P);
	return 1;
}

static void
expect_op(Parser *P, int op, const char *what)
{
	if (!accept_op(P, op))
		expected(P, what);
}

/* An identifier (not a keyword): its arena copy. */
static const char *
expect_name(Parser *P, const char *what)
{
	const char *s;

	if (P->tok.kind != LX_NAME || is_keyword(&P->tok))
		expected(P, what);
	s = arena_strndup(P->a, P->tok.p, P->tok.n);
	next(P);
	return s;
}

/* Whether the current token can start an expression. */
static int
starts_expr(const Parser *P)
{
	switch (P->tok.kind) {
	case LX_NAME:
		return !is_keyword(&P->tok) || is_kw(P, "None") || is_kw(P, "True") || is_kw(P, "False") ||
		       is_kw(P, "not");
	case LX_INT: case LX_FLOAT: case LX_IMAG: case LX_STR:
		return 1;
	case LX_OP:
		return !P->tok.aug && (P->tok.op == '(' || P->tok.op == '[' || P->tok.op == '{' ||
		       P->tok.op == '-' || P->tok.op == '+' || P->tok.op == '~');
	default:
		return 0;
	}
}

/* ==== growing arrays (in the arena) ==== */

typedef struct Vec {
	void **v;
	int n, cap;
} Vec;

static void
vec_push(Parser *P, Vec *v, void *x)
{
	if (v->n == v->cap) {
		int cap = v->cap ? v->cap * 2 : 4;
		void **nv;

		if (v->cap > INT_MAX / 4)
			fail_at(P, P->tok.line, P->tok.col, "expected fewer items, found more than %d", v->cap);
		nv = ARENA_ARRAY(P->a, void *, cap);
		if (v->n)
			memcpy(nv, v->v, sizeof *nv * (size_t)v->n);
		v->v = nv;
		v->cap = cap;
	}
	v->v[v->n++] = x;
}

/* ==== expressions ==== */

static TsExpr *test(Parser *P);
static TsExpr *or_test(Parser *P);
static TsExpr *unary(Parser *P);

static TsExpr *
new_expr(Parser *P, TsExprKind kind, const Tok *at)
{
	TsExpr *e = ARENA_NEW(P->a, TsExpr);

	e->kind = kind;
	e->ofs = at->ofs;
	e->line = at->line;
	e->col = at->col;
	return e;
}

static TsExpr *
new_binary(Parser *P, TsExprKind kind, int op, TsExpr *a, TsExpr *b)
{
	TsExpr *e = ARENA_NEW(P->a, TsExpr);

	e->kind = kind;
	e->op = op;
	e->ofs = a->ofs;
	e->line = a->line;
	e->col = a->col;
	e->a = a;
	e->b = b;
	return e;
}

static void
set_items(Parser *P, TsExpr *e, const Vec *v)
{
	e->nitem = v->n;
	e->items = ARENA_ARRAY(P->a, TsExpr *, v->n ? v->n : 1);
	if (v->n)
		memcpy(e->items, v->v, sizeof *e->items * (size_t)v->n);
}

/* Items separated by commas up to the closing bracket close, a trailing
 * comma allowed; *trailing says whether there was one. */
static void
items_until(Parser *P, Vec *v, int close, const char *what, int *trailing)
{
	*trailing = 0;
	while (!is_op(P, close) && P->tok.kind != LX_END) {
		vec_push(P, v, test(P));
		*trailing = 0;
		if (!accept_op(P, ','))
			break;
		*trailing = 1;
	}
	if (!accept_op(P, close))
		expected(P, what);
}

/* ( ... ): an empty tuple, a parenthesized expression or a tuple. */
static TsExpr *
paren(Parser *P)
{
	Tok open = P->tok;
	Vec v = {0};
	int trailing;
	TsExpr *e;

	next(P);
	items_until(P, &v, ')', "',' or ')'", &trailing);
	if (v.n == 1 && !trailing)
		return v.v[0];
	e = new_expr(P, TE_TUPLE, &open);
	set_items(P, e, &v);
	return e;
}

static TsExpr *
dict(Parser *P)
{
	TsExpr *e = new_expr(P, TE_DICT, &P->tok);
	Vec v = {0};

	next(P);
	while (!is_op(P, '}')) {
		vec_push(P, &v, test(P));
		expect_op(P, ':', "':' after a dict key");
		vec_push(P, &v, test(P));
		if (!accept_op(P, ','))
			break;
	}
	expect_op(P, '}', "',' or '}'");
	set_items(P, e, &v);
	return e;
}

/* A string, and the literals written right after it, joined as Python does. */
static TsExpr *
string(Parser *P)
{
	TsExpr *e = new_expr(P, TE_STR, &P->tok);

	e->s = P->tok.s;
	e->n = P->tok.slen;
	next(P);
	while (P->tok.kind == LX_STR) {
		char *s = arena_alloc(P->a, e->n + P->tok.slen + 1);

		memcpy(s, e->s, e->n);
		memcpy(s + e->n, P->tok.s, P->tok.slen + 1);
		e->s = s;
		e->n += P->tok.slen;
		next(P);
	}
	return e;
}

static TsExpr *
atom(Parser *P)
{
	Tok t = P->tok;
	TsExpr *e;

	switch (t.kind) {
	case LX_INT:
		e = new_expr(P, TE_INT, &t);
		if (t.u > INT64_MAX)
			fail_at(P, t.line, t.col, "expected an integer of 64 bits, found number %.*s", (int)t.n, t.p);
		e->i = (int64_t)t.u;
		next(P);
		return e;
	case LX_FLOAT: case LX_IMAG:
		e = new_expr(P, t.kind == LX_FLOAT ? TE_FLOAT : TE_IMAG, &t);
		e->f = t.f;
		next(P);
		return e;
	case LX_STR:
		return string(P);
	case LX_NAME:
		if (is_kw(P, "None") || is_kw(P, "True") || is_kw(P, "False")) {
			e = new_expr(P, is_kw(P, "None") ? TE_NONE : is_kw(P, "True") ? TE_TRUE : TE_FALSE, &t);
			next(P);
			return e;
		}
		if (is_keyword(&t))
			break;
		/* The printer's names of the non-finite floats (reserved: no variable takes them). */
		if (is_kw(P, "inf") || is_kw(P, "nan") || is_kw(P, "infj") || is_kw(P, "nanj")) {
			e = new_expr(P, t.n == 3 ? TE_FLOAT : TE_IMAG, &t);
			e->f = t.p[0] == 'i' ? INFINITY : NAN;
			next(P);
			return e;
		}
		e = new_expr(P, TE_NAME, &t);
		e->s = arena_strndup(P->a, t.p, t.n);
		next(P);
		return e;
	case LX_OP:
		if (t.aug)
			break;
		if (t.op == '(') {
			TsExpr *r;

			enter(P);
			r = paren(P);
			P->nest--;
			return r;
		}
		if (t.op == '[') {
			Vec v = {0};
			int trailing;

			enter(P);
			e = new_expr(P, TE_LIST, &t);
			next(P);
			items_until(P, &v, ']', "',' or ']'", &trailing);
			set_items(P, e, &v);
			P->nest--;
			return e;
		}
		if (t.op == '{') {
			enter(P);
			e = dict(P);
			P->nest--;
			return e;
		}
		break;
	default:
		break;
	}
	expected(P, "an expression");
}

/* One subscript item: an expression or a slice [a]:[b][:[c]]. */
static TsExpr *
subscript_item(Parser *P)
{
	Tok t = P->tok;
	TsExpr *e, *part[3] = {0};

	if (!is_op(P, ':')) {
		part[0] = test(P);
		if (!is_op(P, ':'))
			return part[0];
	}
	for (int k = 1; k < 3 && accept_op(P, ':'); k++)
		if (!is_op(P, ':') && !is_op(P, ']') && !is_op(P, ','))
			part[k] = test(P);
	e = new_expr(P, TE_SLICE, &t);
	e->nitem = 3;
	e->items = ARENA_ARRAY(P->a, TsExpr *, 3);
	memcpy(e->items, part, sizeof part);
	return e;
}

/* [ items ]: one item, or a tuple of them (Dict[str, int], x[1:2, 0]). */
static TsExpr *
subscript(Parser *P)
{
	Tok t = P->tok;
	Vec v = {0};
	int trailing = 0;
	TsExpr *e;

	next(P);
	while (!is_op(P, ']')) {
		vec_push(P, &v, subscript_item(P));
		trailing = 0;
		if (!accept_op(P, ','))
			break;
		trailing = 1;
	}
	if (!accept_op(P, ']'))
		expected(P, "',' or ']'");
	if (v.n == 0)
		fail_at(P, t.line, t.col, "expected a subscript, found '[]'");
	if (v.n == 1 && !trailing)
		return v.v[0];
	e = new_expr(P, TE_TUPLE, &t);
	set_items(P, e, &v);
	return e;
}

/* ( args ): positional arguments, then NAME=value ones. */
static void
call_args(Parser *P, TsExpr *call)
{
	Vec v = {0}, kw = {0};
	const char *last_kw = NULL;

	next(P);
	while (!is_op(P, ')')) {
		TsExpr *e = test(P);
		const char *name = NULL;

		if (is_op(P, '=')) {
			if (e->kind != TE_NAME)
				expected(P, "',' or ')'");
			next(P);
			name = e->s;
			e = test(P);
			last_kw = name;
		} else if (last_kw) {
			fail_at(P, e->line, e->col, "expected a keyword argument after %s=, found a positional one",
			        last_kw);
		}
		vec_push(P, &v, e);
		vec_push(P, &kw, (void *)name);
		if (!accept_op(P, ','))
			break;
	}
	expect_op(P, ')', "',' or ')'");
	set_items(P, call, &v);
	call->kw = ARENA_ARRAY(P->a, const char *, v.n ? v.n : 1);
	if (v.n)
		memcpy(call->kw, kw.v, sizeof *call->kw * (size_t)v.n);
}

/* An atom and its trailers: calls, subscripts, attributes. */
static TsExpr *
postfix(Parser *P)
{
	int nest = P->nest;
	TsExpr *e = atom(P);

	for (;;) {
		Tok t = P->tok;
		TsExpr *r;

		if (is_op(P, '(')) {
			enter(P);
			r = new_expr(P, TE_CALL, &t);
			r->a = e;
			call_args(P, r);
		} else if (is_op(P, '[')) {
			enter(P);
			r = new_expr(P, TE_INDEX, &t);
			r->a = e;
			r->b = subscript(P);
		} else if (is_op(P, '.')) {
			enter(P);
			next(P);
			r = new_expr(P, TE_ATTR, &P->tok);
			r->a = e;
			/* A member may be spelled as a keyword only through getattr(). */
			r->s = expect_name(P, "an attribute name after '.'");
		} else {
			break;
		}
		/* A trailer's node starts where its whole expression does. */
		r->ofs = e->ofs;
		r->line = e->line;
		r->col = e->col;
		e = r;
	}
	P->nest = nest;
	return e;
}

/* power: postfix ['**' unary] (right-associative, tighter than a unary minus on its left). */
static TsExpr *
power(Parser *P)
{
	TsExpr *e = postfix(P);

	if (is_op(P, OP_POW)) {
		TsExpr *r;

		next(P);
		enter(P);
		r = new_binary(P, TE_BINARY, TB_POW, e, unary(P));
		P->nest--;
		return r;
	}
	return e;
}

static TsExpr *
unary(Parser *P)
{
	Tok t = P->tok;
	TsExpr *e, *a;

	if (!is_op(P, '-') && !is_op(P, '+') && !is_op(P, '~'))
		return power(P);
	next(P);
	enter(P);
	/* -9223372036854775808 is the one literal whose number alone is out of range. */
	if (t.op == '-' && P->tok.kind == LX_INT && P->tok.u == (uint64_t)INT64_MAX + 1) {
		Tok num = P->tok;

		next(P);
		if (!is_op(P, OP_POW) && !is_op(P, '(') && !is_op(P, '[') && !is_op(P, '.')) {
			e = new_expr(P, TE_INT, &t);
			e->i = INT64_MIN;
			P->nest--;
			return e;
		}
		fail_at(P, num.line, num.col, "expected an integer of 64 bits, found number %.*s", (int)num.n, num.p);
	}
	a = unary(P);
	P->nest--;
	if (t.op == '-' && (a->kind == TE_INT || a->kind == TE_FLOAT || a->kind == TE_IMAG) &&
	    a->ofs > t.ofs && !(a->kind == TE_INT && a->i == INT64_MIN)) {
		/* Folded: the printer writes negative constants this way (-1, -1.5). */
		if (a->kind == TE_INT)
			a->i = -a->i;
		else
			a->f = -a->f;
		a->ofs = t.ofs;
		a->line = t.line;
		a->col = t.col;
		return a;
	}
	e = new_expr(P, TE_UNARY, &t);
	e->op = t.op;
	e->a = a;
	return e;
}

static const struct BinRow *
bin_row(const Parser *P)
{
	if (P->tok.kind != LX_OP || P->tok.aug)
		return NULL;
	for (size_t k = 0; k < sizeof bin_rows / sizeof *bin_rows; k++)
		if (bin_rows[k].op == P->tok.op && bin_rows[k].prec > 0)
			return &bin_rows[k];
	return NULL;
}

/* Infix arithmetic by precedence climbing; each link of a chain counts as a
 * level of nesting, since a + b + c nests to the left. */
static TsExpr *
binary(Parser *P, int min_prec)
{
	int nest = P->nest;
	TsExpr *e = unary(P);
	const struct BinRow *r;

	while ((r = bin_row(P)) && r->prec >= min_prec) {
		TsBinOp op = r->bin;
		int prec = r->prec;

		next(P);
		enter(P);
		e = new_binary(P, TE_BINARY, op, e, binary(P, prec + 1));
	}
	P->nest = nest;
	return e;
}

/* The comparison operator at the current token (consumed), or -1. */
static int
compare_op(Parser *P)
{
	static const struct { int op; TsBinOp bin; } ops[] = {
		{OP_EQ, TB_EQ}, {OP_NE, TB_NE}, {'<', TB_LT}, {OP_LE, TB_LE}, {'>', TB_GT}, {OP_GE, TB_GE},
	};

	for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
		if (is_op(P, ops[k].op)) {
			next(P);
			return (int)ops[k].bin;
		}
	if (accept_kw(P, "in"))
		return TB_IN;
	if (accept_kw(P, "is"))
		return accept_kw(P, "not") ? TB_ISNOT : TB_IS;
	if (is_kw(P, "not")) {
		next(P);
		if (!accept_kw(P, "in"))
			expected(P, "'in' after 'not'");
		return TB_NOTIN;
	}
	return -1;
}

/* a < b < c is (a < b) and (b < c), b shared. */
static TsExpr *
comparison(Parser *P)
{
	int nest = P->nest, op;
	TsExpr *e = binary(P, 1), *left = e, *all = NULL;

	while ((op = compare_op(P)) >= 0) {
		TsExpr *right, *pair;

		enter(P);
		right = binary(P, 1);
		pair = new_binary(P, TE_COMPARE, op, left, right);
		all = all ? new_binary(P, TE_BOOL, 'a', all, pair) : pair;
		left = right;
	}
	P->nest = nest;
	return all ? all : e;
}

static TsExpr *
not_test(Parser *P)
{
	Tok t = P->tok;
	TsExpr *e;

	if (!is_kw(P, "not"))
		return comparison(P);
	next(P);
	enter(P);
	e = new_expr(P, TE_UNARY, &t);
	e->op = 'n';
	e->a = not_test(P);
	P->nest--;
	return e;
}

static TsExpr *
bool_chain(Parser *P, const char *kw, int op, TsExpr *(*operand)(Parser *))
{
	int nest = P->nest;
	TsExpr *e = operand(P);

	while (accept_kw(P, kw)) {
		enter(P);
		e = new_binary(P, TE_BOOL, op, e, operand(P));
	}
	P->nest = nest;
	return e;
}

static TsExpr *
and_test(Parser *P)
{
	return bool_chain(P, "and", 'a', not_test);
}

static TsExpr *
or_test(Parser *P)
{
	return bool_chain(P, "or", 'o', and_test);
}

/* test: or_test ['if' or_test 'else' test] */
static TsExpr *
test(Parser *P)
{
	TsExpr *body = or_test(P), *e;

	if (!is_kw(P, "if"))
		return body;
	next(P);
	enter(P);
	e = new_binary(P, TE_IFEXP, 0, or_test(P), NULL);
	if (!accept_kw(P, "else"))
		expected(P, "'else' in a conditional expression");
	e->b = test(P);
	e->nitem = 1;
	e->items = ARENA_ARRAY(P->a, TsExpr *, 1);
	e->items[0] = body;
	e->ofs = body->ofs;
	e->line = body->line;
	e->col = body->col;
	P->nest--;
	return e;
}

/* Expressions separated by commas: one, or a tuple when there are more or
 * a trailing comma (`a, = x`). item reads each. */
static TsExpr *
expr_list(Parser *P, TsExpr *(*item)(Parser *), int stop_at_in)
{
	Tok t = P->tok;
	TsExpr *first = item(P), *e;
	Vec v = {0};

	if (!is_op(P, ','))
		return first;
	vec_push(P, &v, first);
	while (accept_op(P, ',')) {
		if (!starts_expr(P) || (stop_at_in && is_kw(P, "in")))
			break;
		vec_push(P, &v, item(P));
	}
	e = new_expr(P, TE_TUPLE, &t);
	set_items(P, e, &v);
	return e;
}

static TsExpr *
target_item(Parser *P)
{
	return binary(P, 1);
}

/* ==== statements ==== */

static TsStmt **suite(Parser *P, int *n);
static TsDef *def(Parser *P);

static TsStmt *
new_stmt(Parser *P, TsStmtKind kind, const Tok *at)
{
	TsStmt *s = ARENA_NEW(P->a, TsStmt);

	s->kind = kind;
	s->ofs = at->ofs;
	s->line = at->line;
	s->col = at->col;
	return s;
}

/* What may be assigned to: a name, attribute or subscript, or a tuple or
 * list of them. */
static void
check_target(Parser *P, const TsExpr *e, int allow_tuple)
{
	static const char *const what[] = {
		[TE_INT] = "a number", [TE_FLOAT] = "a number", [TE_IMAG] = "a number", [TE_STR] = "a string",
		[TE_NONE] = "None", [TE_TRUE] = "True", [TE_FALSE] = "False", [TE_CALL] = "a call",
		[TE_SLICE] = "a slice", [TE_DICT] = "a dict", [TE_UNARY] = "an operator",
		[TE_BINARY] = "an operator", [TE_COMPARE] = "a comparison", [TE_BOOL] = "'and' or 'or'",
		[TE_IFEXP] = "a conditional expression", [TE_TUPLE] = "a tuple", [TE_LIST] = "a list",
	};

	switch (e->kind) {
	case TE_NAME: case TE_ATTR: case TE_INDEX:
		return;
	case TE_TUPLE: case TE_LIST:
		if (allow_tuple && e->nitem > 0) {
			for (int k = 0; k < e->nitem; k++)
				check_target(P, e->items[k], 1);
			return;
		}
		break;
	default:
		break;
	}
	fail_at(P, e->line, e->col, "expected a name, attribute or subscript to assign to, found %s",
	        what[e->kind]);
}

static void
end_of_statement(Parser *P)
{
	if (P->tok.kind == LX_END)
		return;
	if (P->tok.kind != LX_NEWLINE)
		expected(P, "end of line");
	next(P);
}

/* An expression statement, assignment, augmented or annotated assignment. */
static TsStmt *
expr_stmt(Parser *P)
{
	Tok t = P->tok;
	TsExpr *lhs = expr_list(P, test, 0);
	TsStmt *s;

	if (P->tok.kind == LX_OP && P->tok.aug) {
		const struct BinRow *r = NULL;

		for (size_t k = 0; k < sizeof bin_rows / sizeof *bin_rows; k++)
			if (bin_rows[k].op == P->tok.op)
				r = &bin_rows[k];
		if (!r)
			die("augmented operator %d has no row", P->tok.op);
		check_target(P, lhs, 0);
		s = new_stmt(P, TS_AUGASSIGN, &t);
		s->op = (int)r->bin;
		s->target = lhs;
		next(P);
		s->value = expr_list(P, test, 0);
		return s;
	}
	if (is_op(P, ':')) {
		check_target(P, lhs, 0);
		next(P);
		s = new_stmt(P, TS_ANNASSIGN, &t);
		s->target = lhs;
		s->type = test(P);
		if (accept_op(P, '='))
			s->value = expr_list(P, test, 0);
		return s;
	}
	if (is_op(P, '=')) {
		check_target(P, lhs, 1);
		next(P);
		s = new_stmt(P, TS_ASSIGN, &t);
		s->target = lhs;
		s->value = expr_list(P, test, 0);
		if (is_op(P, '='))
			expected(P, "end of line (one target per assignment)");
		return s;
	}
	s = new_stmt(P, TS_EXPR, &t);
	s->value = lhs;
	return s;
}

/* pass, break, continue, return, raise, assert, del, or an expression statement. */
static TsStmt *
simple_stmt(Parser *P)
{
	Tok t = P->tok;
	TsStmt *s;

	if (accept_kw(P, "pass"))
		s = new_stmt(P, TS_PASS, &t);
	else if (accept_kw(P, "break"))
		s = new_stmt(P, TS_BREAK, &t);
	else if (accept_kw(P, "continue"))
		s = new_stmt(P, TS_CONTINUE, &t);
	else if (accept_kw(P, "return")) {
		s = new_stmt(P, TS_RETURN, &t);
		if (starts_expr(P))
			s->value = expr_list(P, test, 0);
	} else if (accept_kw(P, "raise")) {
		s = new_stmt(P, TS_RAISE, &t);
		if (starts_expr(P))
			s->value = test(P);
	} else if (accept_kw(P, "assert")) {
		s = new_stmt(P, TS_ASSERT, &t);
		s->value = test(P);
		if (accept_op(P, ','))
			s->msg = test(P);
	} else if (accept_kw(P, "del")) {
		s = new_stmt(P, TS_DEL, &t);
		s->value = expr_list(P, target_item, 0);
		check_target(P, s->value, 1);
	} else if (starts_expr(P)) {
		s = expr_stmt(P);
	} else {
		expected(P, "a statement");
	}
	end_of_statement(P);
	return s;
}

/* if test: suite (elif test: suite)* [else: suite]; an elif is an else
 * holding one TS_IF. */
static TsStmt *
if_stmt(Parser *P)
{
	TsStmt *s = new_stmt(P, TS_IF, &P->tok);

	next(P);
	s->value = test(P);
	expect_op(P, ':', "':' after the condition");
	s->body = suite(P, &s->nbody);
	if (is_kw(P, "elif")) {
		enter(P);
		s->orelse = ARENA_ARRAY(P->a, TsStmt *, 1);
		s->orelse[0] = if_stmt(P);
		s->norelse = 1;
		P->nest--;
	} else if (accept_kw(P, "else")) {
		expect_op(P, ':', "':' after 'else'");
		s->orelse = suite(P, &s->norelse);
	}
	return s;
}

static TsStmt *
stmt(Parser *P)
{
	Tok t = P->tok;
	TsStmt *s;

	if (is_kw(P, "if"))
		return if_stmt(P);
	if (accept_kw(P, "while")) {
		s = new_stmt(P, TS_WHILE, &t);
		s->value = test(P);
		expect_op(P, ':', "':' after the condition");
		s->body = suite(P, &s->nbody);
		return s;
	}
	if (accept_kw(P, "for")) {
		s = new_stmt(P, TS_FOR, &t);
		s->target = expr_list(P, target_item, 1);
		check_target(P, s->target, 1);
		if (!accept_kw(P, "in"))
			expected(P, "'in' after the loop variables");
		s->value = expr_list(P, test, 0);
		expect_op(P, ':', "':' after the loop");
		s->body = suite(P, &s->nbody);
		return s;
	}
	if (accept_kw(P, "with")) {
		s = new_stmt(P, TS_WITH, &t);
		s->value = test(P);
		if (accept_kw(P, "as")) {
			s->target = target_item(P);
			check_target(P, s->target, 0);
		}
		expect_op(P, ':', "':' after the with item");
		s->body = suite(P, &s->nbody);
		return s;
	}
	if (is_kw(P, "def")) {
		s = new_stmt(P, TS_DEF, &t);
		s->def = def(P);
		return s;
	}
	return simple_stmt(P);
}

static TsStmt **
to_array(Parser *P, const Vec *v)
{
	TsStmt **a = ARENA_ARRAY(P->a, TsStmt *, v->n ? v->n : 1);

	if (v->n)
		memcpy(a, v->v, sizeof *a * (size_t)v->n);
	return a;
}

/* After ':': an indented block, or one simple statement on the same line. */
static TsStmt **
suite(Parser *P, int *n)
{
	Vec v = {0};

	enter(P);
	if (P->tok.kind != LX_NEWLINE) {
		vec_push(P, &v, simple_stmt(P));
	} else {
		next(P);
		if (P->tok.kind != LX_INDENT)
			expected(P, "an indented block");
		next(P);
		while (P->tok.kind != LX_DEDENT && P->tok.kind != LX_END)
			vec_push(P, &v, stmt(P));
		if (P->tok.kind == LX_DEDENT)
			next(P);
	}
	P->nest--;
	*n = v.n;
	return to_array(P, &v);
}

/* def name(params) [-> type]: suite */
static TsDef *
def(Parser *P)
{
	TsDef *f = ARENA_NEW(P->a, TsDef);
	Vec params = {0};

	f->ofs = P->tok.ofs;
	f->line = P->tok.line;
	next(P);
	f->name = expect_name(P, "a function name after 'def'");
	expect_op(P, '(', "'(' after the function name");
	enter(P);
	while (!is_op(P, ')')) {
		TsParam *p = ARENA_NEW(P->a, TsParam);

		p->name = expect_name(P, "a parameter name");
		if (accept_op(P, ':'))
			p->type = test(P);
		if (accept_op(P, '='))
			p->def = test(P);
		vec_push(P, &params, p);
		if (!accept_op(P, ','))
			break;
	}
	expect_op(P, ')', "',' or ')' in the parameters");
	P->nest--;
	if (accept_op(P, OP_ARROW))
		f->ret = test(P);
	expect_op(P, ':', "':' after the function's signature");
	f->nparam = params.n;
	f->params = ARENA_ARRAY(P->a, TsParam, params.n ? params.n : 1);
	for (int k = 0; k < params.n; k++)
		f->params[k] = *(TsParam *)params.v[k];
	f->body = suite(P, &f->nbody);
	return f;
}

/* ==== classes ==== */

typedef struct ClassBuild {
	Vec params, buffers, attrs, const_names, const_values, defs;
} ClassBuild;

/* __parameters__ = ["weight", "bias", ]: the names as strings. */
static void
name_list(Parser *P, const TsExpr *list, Vec *out)
{
	if (list->kind != TE_LIST)
		fail_at(P, list->line, list->col, "expected a list of names in quotes, found %s",
		        list->kind == TE_TUPLE ? "a tuple" : "another expression");
	for (int k = 0; k < list->nitem; k++) {
		const TsExpr *e = list->items[k];

		if (e->kind != TE_STR)
			fail_at(P, e->line, e->col, "expected a name in quotes, found %s",
			        e->kind == TE_NAME ? arena_printf(P->a, "name '%s'", e->s) : "another expression");
		vec_push(P, out, (void *)e->s);
	}
}

/* One line of a class body that is not a def. */
static void
class_item(Parser *P, ClassBuild *cb)
{
	TsStmt *s = simple_stmt(P);
	const TsExpr *t = s->target;

	if (s->kind == TS_PASS)
		return;
	if (s->kind == TS_ANNASSIGN && t->kind == TE_NAME) {
		if (s->value) {
			/* name : Final[T] = value, a constant of the class */
			vec_push(P, &cb->const_names, (void *)t->s);
			vec_push(P, &cb->const_values, s->value);
		} else {
			TsAttr *a = ARENA_NEW(P->a, TsAttr);

			a->name = t->s;
			a->type = s->type;
			vec_push(P, &cb->attrs, a);
		}
		return;
	}
	if (s->kind == TS_ASSIGN && t->kind == TE_NAME) {
		if (strcmp(t->s, "__parameters__") == 0)
			name_list(P, s->value, &cb->params);
		else if (strcmp(t->s, "__buffers__") == 0)
			name_list(P, s->value, &cb->buffers);
		else if (strcmp(t->s, "__annotations__") != 0 || s->value->kind != TE_LIST || s->value->nitem) {
			vec_push(P, &cb->const_names, (void *)t->s);
			vec_push(P, &cb->const_values, s->value);
		}
		/* `__annotations__ = []` only opens the entries below */
		return;
	}
	if (s->kind == TS_ASSIGN && t->kind == TE_INDEX && t->a->kind == TE_NAME &&
	    strcmp(t->a->s, "__annotations__") == 0 && t->b->kind == TE_STR) {
		/* __annotations__["0"] = Type: an attribute whose name is no identifier */
		TsAttr *a = ARENA_NEW(P->a, TsAttr);

		a->name = t->b->s;
		a->type = s->value;
		vec_push(P, &cb->attrs, a);
		return;
	}
	fail_at(P, s->line, s->col, "expected a method, an attribute (name : type) or a constant "
	        "(name = value) in the class body, found another statement");
}

static const char **
names(Parser *P, const Vec *v)
{
	const char **a = ARENA_ARRAY(P->a, const char *, v->n ? v->n : 1);

	if (v->n)
		memcpy(a, v->v, sizeof *a * (size_t)v->n);
	return a;
}

/* class Name[(Base)]: body */
static TsClass *
class_def(Parser *P)
{
	TsClass *c = ARENA_NEW(P->a, TsClass);
	ClassBuild cb = {0};

	c->line = P->tok.line;
	next(P);
	c->name = expect_name(P, "a class name after 'class'");
	if (accept_op(P, '(')) {
		if (!is_op(P, ')')) {
			/* a dotted name, kept as written */
			const char *base = expect_name(P, "a base class name");

			while (accept_op(P, '.'))
				base = arena_printf(P->a, "%s.%s", base, expect_name(P, "a name after '.'"));
			c->base = base;
		}
		expect_op(P, ')', "')' after the base class");
	}
	expect_op(P, ':', "':' after the class name");
	if (P->tok.kind != LX_NEWLINE)
		expected(P, "end of line after 'class ...:'");
	next(P);
	if (P->tok.kind != LX_INDENT)
		expected(P, "an indented class body");
	next(P);
	enter(P);
	while (P->tok.kind != LX_DEDENT && P->tok.kind != LX_END) {
		if (is_kw(P, "def"))
			vec_push(P, &cb.defs, def(P));
		else
			class_item(P, &cb);
	}
	if (P->tok.kind == LX_DEDENT)
		next(P);
	P->nest--;
	c->nparameter = cb.params.n;
	c->parameters = names(P, &cb.params);
	c->nbuffer = cb.buffers.n;
	c->buffers = names(P, &cb.buffers);
	c->nattr = cb.attrs.n;
	c->attrs = ARENA_ARRAY(P->a, TsAttr, cb.attrs.n ? cb.attrs.n : 1);
	for (int k = 0; k < cb.attrs.n; k++)
		c->attrs[k] = *(TsAttr *)cb.attrs.v[k];
	c->nconst = cb.const_names.n;
	c->const_names = names(P, &cb.const_names);
	c->const_values = ARENA_ARRAY(P->a, TsExpr *, cb.const_values.n ? cb.const_values.n : 1);
	if (cb.const_values.n)
		memcpy(c->const_values, cb.const_values.v, sizeof *c->const_values * (size_t)cb.const_values.n);
	c->ndef = cb.defs.n;
	c->defs = ARENA_ARRAY(P->a, TsDef, cb.defs.n ? cb.defs.n : 1);
	for (int k = 0; k < cb.defs.n; k++)
		c->defs[k] = *(TsDef *)cb.defs.v[k];
	return c;
}

/* ==== the file ==== */

/* The top level: classes and free functions. */
static void
parse_file(Parser *P, TsAst *out)
{
	Vec classes = {0}, defs = {0};

	next(P);
	while (P->tok.kind != LX_END) {
		if (P->tok.kind == LX_NEWLINE)
			next(P);
		else if (is_kw(P, "class"))
			vec_push(P, &classes, class_def(P));
		else if (is_kw(P, "def"))
			vec_push(P, &defs, def(P));
		else
			expected(P, "'class' or 'def'");
	}
	out->nclass = classes.n;
	out->classes = ARENA_ARRAY(P->a, TsClass, classes.n ? classes.n : 1);
	for (int k = 0; k < classes.n; k++)
		out->classes[k] = *(TsClass *)classes.v[k];
	out->ndef = defs.n;
	out->defs = ARENA_ARRAY(P->a, TsDef, defs.n ? defs.n : 1);
	for (int k = 0; k < defs.n; k++)
		out->defs[k] = *(TsDef *)defs.v[k];
}

int
ts_parse(Arena *a, const char *label, const char *text, size_t len, TsAst *out, Diag *d)
{
	Parser *P = ARENA_NEW(a, Parser);
	TsAst ast = {0};

	memset(out, 0, sizeof *out);
	if (len > UINT32_MAX) {
		diag_report(d, YE_TS_SYNTAX, &(DiagAt){.file = label},
		            "expected a code file under 4 GiB, found %zu bytes", len);
		return DIAG_INPUT;
	}
	P->a = a;
	P->d = d;
	P->label = label;
	P->text = text;
	P->len = len;
	P->line = 1;
	P->at_bol = 1;
	P->nindent = 1;
	P->tok.kind = LX_NEWLINE;
	if (setjmp(P->fail))
		return DIAG_INPUT;
	parse_file(P, &ast);
	*out = ast;
	return 0;
}

const TsClass *
ts_class(const TsAst *ast, const char *name)
{
	for (int k = 0; k < ast->nclass; k++)
		if (strcmp(ast->classes[k].name, name) == 0)
			return &ast->classes[k];
	return NULL;
}

const TsDef *
ts_method(const TsClass *c, const char *name)
{
	for (int k = 0; k < c->ndef; k++)
		if (strcmp(c->defs[k].name, name) == 0)
			return &c->defs[k];
	return NULL;
}

const TsDef *
ts_function(const TsAst *ast, const char *name)
{
	for (int k = 0; k < ast->ndef; k++)
		if (strcmp(ast->defs[k].name, name) == 0)
			return &ast->defs[k];
	return NULL;
}
