/* read/ts/tslex.h: the lexer of TorchScript code files, shared by tslex.c and
 * tsparse.c only.
 *
 * tslex_next() turns the text into tokens as Python's tokenizer does:
 * indentation into INDENT and DEDENT, a NEWLINE at the end of each logical
 * line (none inside brackets, for blank or comment-only lines, or after a
 * backslash), strings decoded, numbers read.  An error reports "label:
 * line:col: expected X, found Y" and jumps to TsLex.fail, which ts_parse()
 * set: the parse ends there. */
#ifndef READ_TSLEX_H
#define READ_TSLEX_H

#include <setjmp.h>

#include "ts.h"

typedef enum TsLexKind {
	LX_END, LX_NEWLINE, LX_INDENT, LX_DEDENT,   /* layout: the end, a logical line's end, a block's start and end */
	LX_NAME, LX_INT, LX_FLOAT, LX_IMAG, LX_STR, /* keywords are LX_NAME too */
	LX_OP,                                      /* an operator or punctuation: TsTok.op */
} TsLexKind;

/* Operators of more than one character; single ones are their char. */
enum {
	OP_EQ = 256, OP_NE, OP_LE, OP_GE, OP_SHL, OP_SHR, OP_POW, OP_FLOORDIV,
	OP_ARROW, OP_ELLIPSIS,
};

typedef struct TsTok {
	TsLexKind kind;
	int op, aug;            /* LX_OP: the char or OP_*; aug 1 for `op=` */
	uint32_t ofs, line, col;/* where it starts: byte offset, 1-based line and column */
	const char *p;          /* spelling in the text, n bytes */
	size_t n;
	uint64_t u;             /* LX_INT; above INT64_MAX only as 2^63, for a minus to take */
	double f;               /* LX_FLOAT, LX_IMAG */
	char *s;                /* LX_STR, decoded (arena, NUL-terminated), slen bytes */
	size_t slen;
} TsTok;

typedef struct TsLex {
	Arena *a;               /* strings, messages and the tree */
	Diag *d;                /* where the one error goes */
	const char *label;      /* the file, for messages */
	const char *text;       /* the code, len bytes, not NUL-terminated */
	size_t len, pos;        /* pos: the next byte to read */
	uint32_t line;          /* of pos, 1-based */
	size_t bol;             /* offset of that line's first byte */
	int brackets;           /* open (, [, {: newlines inside do not count */
	int at_bol;             /* next token starts a logical line: measure its indent */
	int dedents;            /* DEDENT tokens still owed */
	int indent[TS_MAX_NEST + 2];
	int nindent;            /* indent[0] is 0, the top level */
	TsTok tok;              /* the current token */
	int nest;               /* the parser's nesting, against TS_MAX_NEST */
	jmp_buf fail;           /* where an error jumps: set by ts_parse() */
} TsLex;

/* Moves L->tok to the next token. */
void tslex_next(TsLex *L);
/* Reports "label:line:col: message" and ends the parse. */
_Noreturn void tslex_fail(TsLex *L, uint32_t line, uint32_t col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* "expected WHAT, found <the current token>" at the current token. */
_Noreturn void tslex_expected(TsLex *L, const char *what);
/* 1 when t is a name spelled as one of Python's keywords. */
int tslex_is_keyword(const TsTok *t);

#endif
