/* poly.h: polynomials over dimension expressions, for counting FLOPs.
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
#ifndef POLY_H
#define POLY_H

#include <stdint.h>

#include "arena.h"
#include "sym.h"

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
SymExpr *poly_call(Arena *a, SymOp op, int n, SymExpr **args);  /* op(args...) */
int poly_is_num(const SymExpr *e, int64_t *v);                  /* 1 (and *v) for a number */

#endif
