/* sym/sym.h: symbolic integer expressions for dynamic sizes.
 *
 * torch writes sizes as sympy srepr ("Mul(Integer(2), Symbol('s3',
 * positive=True, integer=True))", torch 2.6+) or as infix text ("2*s3",
 * older files and range_constraints keys).  Both parse into the same
 * SymExpr tree.  The printer writes infix that the infix parser reads back. */
#ifndef SYM_H
#define SYM_H

#include <stdint.h>
#include <stddef.h>

#include "core/core.h"

/* X(ENUM, srepr name, arity (-1 variadic)) */
#define SYM_OPS(X) \
	X(SYM_INT, "Integer", 0) \
	X(SYM_SYMBOL, "Symbol", 0) \
	X(SYM_RATIONAL, "Rational", 0) \
	X(SYM_FLOAT, "Float", 0) \
	X(SYM_TRUE, "true", 0) \
	X(SYM_FALSE, "false", 0) \
	X(SYM_ADD, "Add", -1) \
	X(SYM_MUL, "Mul", -1) \
	X(SYM_POW, "Pow", 2) \
	X(SYM_MAX, "Max", -1) \
	X(SYM_MIN, "Min", -1) \
	X(SYM_FLOORDIV, "FloorDiv", 2) \
	X(SYM_CEILDIV, "CeilDiv", 2) \
	X(SYM_CLEANDIV, "CleanDiv", 2) \
	X(SYM_MOD, "Mod", 2) \
	X(SYM_PYTHONMOD, "PythonMod", 2) \
	X(SYM_MODULARINDEXING, "ModularIndexing", 3) \
	X(SYM_CEILTOINT, "CeilToInt", 1) \
	X(SYM_FLOORTOINT, "FloorToInt", 1) \
	X(SYM_TRUNCTOINT, "TruncToInt", 1) \
	X(SYM_ROUNDTOINT, "RoundToInt", 1) \
	X(SYM_POWBYNATURAL, "PowByNatural", 2) \
	X(SYM_FLOATTRUEDIV, "FloatTrueDiv", 2) \
	X(SYM_INTTRUEDIV, "IntTrueDiv", 2) \
	X(SYM_WHERE, "Where", 3) \
	X(SYM_EQ, "Eq", 2) \
	X(SYM_NE, "Ne", 2) \
	X(SYM_LT, "StrictLessThan", 2) \
	X(SYM_LE, "LessThan", 2) \
	X(SYM_GT, "StrictGreaterThan", 2) \
	X(SYM_GE, "GreaterThan", 2) \
	X(SYM_AND, "And", -1) \
	X(SYM_OR, "Or", -1) \
	X(SYM_NOT, "Not", 1) \
	X(SYM_CALL, "", -1)   /* any other function: name kept, args parsed */

typedef enum SymOp {
#define X(e, name, arity) e,
	SYM_OPS(X)
#undef X
	SYM_OP_COUNT
} SymOp;

/* Trees deeper than this are rejected by the parsers and by sym_eval. */
enum { SYM_MAX_DEPTH = 1000 };

typedef struct SymExpr SymExpr;
struct SymExpr {
	SymOp op;
	int64_t i;          /* SYM_INT value; SYM_RATIONAL numerator */
	int64_t den;        /* SYM_RATIONAL denominator */
	double f;           /* SYM_FLOAT value */
	const char *name;   /* SYM_SYMBOL name ("s77"); SYM_CALL function name */
	int n;              /* number of args */
	SymExpr **args;
};

/* Parse; NULL with a DIAG_INPUT "label: column N: what" on error. */
SymExpr *sym_parse_srepr(Arena *a, const char *label, const char *s, size_t len, Diag *d);
SymExpr *sym_parse_infix(Arena *a, const char *label, const char *s, size_t len, Diag *d);
/* Infix text: "2*s3", "s0 + 1", "(s0//2)", "Max(s0, 4)".  Deterministic. */
char *sym_print(Arena *a, const SymExpr *e);
/* Evaluates with symbol values from lookup (returns 0 if a name is unknown).
 * Returns 1 and sets *out on success, 0 if unknown symbol or undefined (x//0). */
int sym_eval(const SymExpr *e, int (*lookup)(void *ctx, const char *name, int64_t *v),
             void *ctx, int64_t *out);
/* 1 when the trees are equal (same op, values, names and args in order). */
int sym_equal(const SymExpr *a, const SymExpr *b);

/* ==== poly ==== */

/* Polynomials over dimension expressions, for counting FLOPs.
 *
 * A Poly is a sum of terms coef*atom*atom..., where an atom is a SymExpr
 * that is not a number, a sum or a product: a name ("seq"), or something
 * like "Max(a, b)" or "(s0//2)".  Polys are kept expanded, with static
 * factors multiplied into the coefficient, in one canonical order (higher
 * degree first, atoms in byte order of their printed text), so equal counts
 * print alike: 2*seq*batch*64 prints "128*batch*seq".
 *
 * NULL stands for "unknown": every operation given NULL returns NULL, and so
 * does any int64 overflow.  Everything lives in the arena. */

typedef struct PolyTerm {
	int64_t coef;
	int n;                  /* number of atoms (the degree) */
	SymExpr **atom;         /* sorted by key; repeats allowed (seq*seq) */
	const char **key;       /* each atom's sym_print text */
} PolyTerm;

typedef struct Poly {
	int n;                  /* terms; 0 is the number 0 */
	PolyTerm *t;            /* canonical order, no zero coefficient, no two alike */
} Poly;

Poly *poly_int(Arena *a, int64_t v);
Poly *poly_atom(Arena *a, SymExpr *e);
Poly *poly_add(Arena *a, const Poly *p, const Poly *q);
Poly *poly_mul(Arena *a, const Poly *p, const Poly *q);
Poly *poly_scale(Arena *a, const Poly *p, int64_t k);
/* p / q when both are one term, q's coefficient divides p's and q's atoms
 * are among p's (an exact quotient); else NULL. */
Poly *poly_div_term(Arena *a, const Poly *p, const Poly *q);
/* A dimension expression expanded: sums, products and integer powers up to
 * 8 are multiplied out; anything else is an atom. */
Poly *poly_sym(Arena *a, SymExpr *e);
/* p as a tree that sym_print prints "128*batch*seq + 16*seq" (and that
 * sym_parse_infix reads back); NULL for NULL. */
SymExpr *poly_expr(Arena *a, const Poly *p);
/* The canonical form of a dimension expression: "s0*2" and "2*s0" give the
 * same tree, so sym_equal can compare dims. */
SymExpr *poly_canon(Arena *a, SymExpr *e);
/* 1 and *v when p is a number. */
int poly_const(const Poly *p, int64_t *v);
/* 1 when p and q are the same polynomial (neither NULL). */
int poly_equal(const Poly *p, const Poly *q);
/* p's value: each atom through sym_eval(lookup, ctx), the sum of products
 * in double (a count may pass int64).  Returns 0 when an atom has none. */
int poly_value(const Poly *p, int (*lookup)(void *ctx, const char *name, int64_t *v), void *ctx,
               double *out);

/* SymExpr builders the counting code shares. */
SymExpr *poly_num(Arena *a, int64_t v);                         /* the number v */
SymExpr *poly_call(Arena *a, SymOp op, int n, SymExpr **args);  /* op(args...); args copied into a */
int poly_is_num(const SymExpr *e, int64_t *v);                  /* 1 (and *v) for a number */

#endif
