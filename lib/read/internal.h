/* read/internal.h: what the parts of the text graph reader share (irtext.c,
 * irtext_lex.c, irtext_graph.c, irtext_values.c); internal to lib/read/. */
#ifndef READ_INTERNAL_H
#define READ_INTERNAL_H

#include <stdint.h>

#include "core/core.h"
#include "ir/ir.h"

enum { MAX_DEPTH = 64, MAX_VALUES = 1 << 24 };
/* A storage's bytes: as many elements of the widest dtype (complex128). */
#define MAX_STORAGE_BYTES ((uint64_t)MAX_VALUES * 16)

typedef struct Lex {
	Arena *a;
	Diag *d;
	const char *label;      /* the file, for messages */
	const char *p;          /* cursor */
	const char *bol, *eol;  /* the current line: first char, its '\n' or the end */
	const char *end;        /* end of the text */
	int line;               /* 1-based number of the current line */
	int depth;              /* subgraph nesting */
} Lex;

/* How a weight or sample gets its bytes: "= [1, 2]", "= fill(0.5)", ... */
typedef enum FillKind { FILL_DEFAULT, FILL_LIST, FILL_CONST, FILL_ARANGE, FILL_RAND } FillKind;
typedef struct Fill {
	FillKind kind;
	int n;                  /* FILL_LIST: number of values */
	double *vals;           /* FILL_LIST values; FILL_CONST/ARANGE: vals[0], vals[1] */
	uint64_t seed;          /* FILL_RAND, FILL_DEFAULT */
	Lex at;                 /* where it was written, for messages */
} Fill;

/* A grown array: capacity doubles at powers of two, as ir_new_value. */
#define PUSH(a, arr, n, val) ((arr) = irt_grow((a), (arr), (n), sizeof *(arr)), (arr)[(n)++] = (val))

/* ---- irtext_lex.c ---- */
int irt_err(Lex *L, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void irt_set_line(Lex *L, const char *s);
void irt_next_line(Lex *L);
void irt_skip_ws(Lex *L);
int irt_at_line_end(Lex *L);
int irt_skip_empty_lines(Lex *L);
int irt_indent_of(const Lex *L);
int irt_accept(Lex *L, const char *s);
int irt_expect(Lex *L, const char *s, const char *what);
const char *irt_ident(Lex *L, int dots);
const char *irt_span_until(Lex *L, const char *stops, const char **start);
const char *irt_number_token(Lex *L, const char **start);
int irt_number_value(const char *tok, int64_t *i, double *f);
int irt_parse_int(Lex *L, int64_t *out, const char *what);
int irt_parse_number(Lex *L, double *out, const char *what);
void *irt_grow(Arena *a, void *arr, int n, size_t elem);

/* ---- irtext_graph.c ---- */
SymExpr *irt_parse_expr(Lex *L, const char *at, const char *s);
int irt_parse_type(Lex *L, Value *t);
int irt_parse_arg(Lex *L, Graph *g, Arg *out);
int irt_parse_graph_head(Lex *L, Graph *g);
int irt_parse_graph_body(Lex *L, Graph *g);

/* ---- irtext_values.c ---- */
int irt_parse_fill(Lex *L, Fill *f);
TensorData *irt_make_tensor(Lex *L, const char *at, DType t, int rank, const int64_t *sizes, const int64_t *strides,
                         int64_t offset, uint64_t bytes, const Fill *f, const char *what);

#endif
