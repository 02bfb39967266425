/* poly.c: polynomials over dimension expressions (see sym.h).
 *
 * A Poly is kept normalized by poly_norm(): terms sorted (higher degree
 * first, then by the atoms' printed text), like terms merged, zeros
 * dropped.  Atom keys are printed once, when the atom is made, so sorting
 * and comparing never print again. */
#include "sym/sym.h"

#include <stdlib.h>
#include <string.h>

SymExpr *
poly_num(Arena *a, int64_t v)
{
	SymExpr *e = ARENA_NEW(a, SymExpr);

	e->op = SYM_INT;
	e->i = v;
	return e;
}

SymExpr *
poly_call(Arena *a, SymOp op, int n, SymExpr **args)
{
	SymExpr *e = ARENA_NEW(a, SymExpr);

	e->op = op;
	e->n = n;
	e->args = ARENA_ARRAY(a, SymExpr *, n > 0 ? n : 1);
	if (n > 0)
		memcpy(e->args, args, sizeof *args * (size_t)n);
	return e;
}

int
poly_is_num(const SymExpr *e, int64_t *v)
{
	if (!e || e->op != SYM_INT)
		return 0;
	if (v)
		*v = e->i;
	return 1;
}

static int
term_cmp(const void *x, const void *y)
{
	const PolyTerm *a = x, *b = y;

	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	for (int i = 0; i < a->n; i++) {
		int c = strcmp(a->key[i], b->key[i]);
		if (c)
			return c;
	}
	return 0;
}

/* Sorts t[0..n), merges like terms and drops zeros; NULL on overflow. */
static Poly *
poly_norm(Arena *a, PolyTerm *t, int n)
{
	Poly *p = ARENA_NEW(a, Poly);
	int k = 0;

	qsort(t, (size_t)n, sizeof *t, term_cmp);
	for (int i = 0; i < n; i++) {
		if (k && term_cmp(&t[k - 1], &t[i]) == 0) {
			if (__builtin_add_overflow(t[k - 1].coef, t[i].coef, &t[k - 1].coef))
				return NULL;
		} else {
			t[k++] = t[i];
		}
		if (k && t[k - 1].coef == 0 && (i + 1 == n || term_cmp(&t[k - 1], &t[i + 1]) != 0))
			k--;
	}
	p->n = k;
	p->t = t;
	return p;
}

Poly *
poly_int(Arena *a, int64_t v)
{
	PolyTerm *t = ARENA_NEW(a, PolyTerm);

	t->coef = v;
	return poly_norm(a, t, 1);
}

Poly *
poly_atom(Arena *a, SymExpr *e)
{
	PolyTerm *t = ARENA_NEW(a, PolyTerm);

	t->coef = 1;
	t->n = 1;
	t->atom = ARENA_NEW(a, SymExpr *);
	t->key = ARENA_NEW(a, const char *);
	t->atom[0] = e;
	t->key[0] = e->op == SYM_SYMBOL ? e->name : sym_print(a, e);
	return poly_norm(a, t, 1);
}

Poly *
poly_add(Arena *a, const Poly *p, const Poly *q)
{
	PolyTerm *t;

	if (!p || !q)
		return NULL;
	t = ARENA_ARRAY(a, PolyTerm, p->n + q->n + 1);
	memcpy(t, p->t, sizeof *t * (size_t)p->n);
	memcpy(t + p->n, q->t, sizeof *t * (size_t)q->n);
	return poly_norm(a, t, p->n + q->n);
}

/* One term times another: coefficients multiplied, atoms merged in order. */
static int
term_mul(Arena *a, const PolyTerm *x, const PolyTerm *y, PolyTerm *out)
{
	int i = 0, j = 0, k = 0;

	if (__builtin_mul_overflow(x->coef, y->coef, &out->coef))
		return 0;
	out->n = x->n + y->n;
	out->atom = ARENA_ARRAY(a, SymExpr *, out->n + 1);
	out->key = ARENA_ARRAY(a, const char *, out->n + 1);
	while (i < x->n || j < y->n) {
		int left = j == y->n || (i < x->n && strcmp(x->key[i], y->key[j]) <= 0);
		out->atom[k] = left ? x->atom[i] : y->atom[j];
		out->key[k++] = left ? x->key[i++] : y->key[j++];
	}
	return 1;
}

Poly *
poly_mul(Arena *a, const Poly *p, const Poly *q)
{
	PolyTerm *t;
	int n = 0;

	if (!p || !q)
		return NULL;
	t = ARENA_ARRAY(a, PolyTerm, p->n * q->n + 1);
	for (int i = 0; i < p->n; i++)
		for (int j = 0; j < q->n; j++)
			if (!term_mul(a, &p->t[i], &q->t[j], &t[n++]))
				return NULL;
	return poly_norm(a, t, n);
}

Poly *
poly_scale(Arena *a, const Poly *p, int64_t k)
{
	return poly_mul(a, p, poly_int(a, k));
}

/* Expands a dimension expression: sums and products are multiplied out,
 * small integer powers too; anything else is an atom. */
Poly *
poly_sym(Arena *a, SymExpr *e)
{
	Poly *p;
	int64_t k;

	if (!e)
		return NULL;
	switch (e->op) {
	case SYM_INT:
		return poly_int(a, e->i);
	case SYM_ADD:
	case SYM_MUL:
		p = poly_int(a, e->op == SYM_ADD ? 0 : 1);
		for (int i = 0; i < e->n && p; i++)
			p = e->op == SYM_ADD ? poly_add(a, p, poly_sym(a, e->args[i]))
			                     : poly_mul(a, p, poly_sym(a, e->args[i]));
		return p;
	case SYM_POW:
	case SYM_POWBYNATURAL:
		if (e->n == 2 && poly_is_num(e->args[1], &k) && k >= 0 && k <= 8) {
			Poly *b = poly_sym(a, e->args[0]);
			p = poly_int(a, 1);
			while (k-- > 0)
				p = poly_mul(a, p, b);
			return p;
		}
		return poly_atom(a, e);
	default:
		return poly_atom(a, e);
	}
}

/* The polynomial as an expression tree that sym_print prints as
 * "128*batch*seq + 16*seq" (coefficient first, atoms in key order). */
SymExpr *
poly_expr(Arena *a, const Poly *p)
{
	SymExpr **terms;

	if (!p)
		return NULL;
	if (p->n == 0)
		return poly_num(a, 0);
	terms = ARENA_ARRAY(a, SymExpr *, p->n);
	for (int i = 0; i < p->n; i++) {
		const PolyTerm *t = &p->t[i];
		int one = t->coef == 1 && t->n > 0, m = t->n + !one;
		SymExpr **f = ARENA_ARRAY(a, SymExpr *, m);
		if (!one)
			f[0] = poly_num(a, t->coef);
		if (t->n)
			memcpy(f + !one, t->atom, sizeof *f * (size_t)t->n);
		terms[i] = m == 1 ? f[0] : poly_call(a, SYM_MUL, m, f);
	}
	return p->n == 1 ? terms[0] : poly_call(a, SYM_ADD, p->n, terms);
}

int
poly_value(const Poly *p, int (*lookup)(void *ctx, const char *name, int64_t *v), void *ctx,
           double *out)
{
	double sum = 0;

	if (!p)
		return 0;
	for (int i = 0; i < p->n; i++) {
		double x = (double)p->t[i].coef;
		for (int k = 0; k < p->t[i].n; k++) {
			int64_t v;
			if (!sym_eval(p->t[i].atom[k], lookup, ctx, &v))
				return 0;
			x *= (double)v;
		}
		sum += x;
	}
	*out = sum;
	return 1;
}

/* The canonical form of a dimension: "s0*2" and "2*s0" become the same tree. */
SymExpr *
poly_canon(Arena *a, SymExpr *e)
{
	if (!e || e->op == SYM_INT || e->op == SYM_SYMBOL)
		return e;
	return poly_expr(a, poly_sym(a, e));
}


/* p / q when both are one term and q's atoms are among p's; else NULL. */
Poly *
poly_div_term(Arena *a, const Poly *p, const Poly *q)
{
	PolyTerm *t;
	const PolyTerm *x, *y;
	int j = 0;

	if (!p || !q || p->n != 1 || q->n != 1 || q->t[0].coef == 0 ||
	    p->t[0].coef % q->t[0].coef != 0)
		return NULL;
	x = &p->t[0];
	y = &q->t[0];
	t = ARENA_NEW(a, PolyTerm);
	t->coef = x->coef / y->coef;
	t->atom = ARENA_ARRAY(a, SymExpr *, x->n + 1);
	t->key = ARENA_ARRAY(a, const char *, x->n + 1);
	for (int i = 0; i < x->n; i++) {
		if (j < y->n && strcmp(x->key[i], y->key[j]) == 0) {
			j++;
			continue;
		}
		t->atom[t->n] = x->atom[i];
		t->key[t->n++] = x->key[i];
	}
	return j == y->n ? poly_norm(a, t, 1) : NULL;
}

/* 1 and *v when p is a number. */
int
poly_const(const Poly *p, int64_t *v)
{
	if (!p || p->n > 1 || (p->n == 1 && p->t[0].n > 0))
		return 0;
	*v = p->n ? p->t[0].coef : 0;
	return 1;
}

int
poly_equal(const Poly *p, const Poly *q)
{
	if (p->n != q->n)
		return 0;
	for (int i = 0; i < p->n; i++)
		if (p->t[i].coef != q->t[i].coef || term_cmp(&p->t[i], &q->t[i]) != 0)
			return 0;
	return 1;
}
