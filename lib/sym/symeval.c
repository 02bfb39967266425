/* symeval.c: evaluation and comparison of SymExpr trees (see sym.h).
 * Split from sym.c, which parses and prints them. */
#include "sym/sym.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- evaluation over exact rationals ----
 * Values are n/d with d > 0 in lowest terms, so IntTrueDiv(s0, 2) feeding
 * CeilToInt, or s0*Pow(2, -1), evaluate exactly; sym_eval wants d == 1 at the
 * end.  Every int64 overflow is a failure, never a wrong value. */

typedef struct {
	int64_t n, d;
} Q;

typedef struct {
	int (*lookup)(void *ctx, const char *name, int64_t *v);
	void *ctx;
} Env;

static uint64_t
uabs64(int64_t v)
{
	return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

static uint64_t
gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static int
q_make(int64_t n, int64_t d, Q *out)
{
	if (d == 0)
		return 0;
	if (d < 0) {
		if (__builtin_sub_overflow((int64_t)0, n, &n) || __builtin_sub_overflow((int64_t)0, d, &d))
			return 0;
	}
	uint64_t g = gcd64(uabs64(n), (uint64_t)d);
	if (g > 1) {
		n /= (int64_t)g;
		d /= (int64_t)g;
	}
	out->n = n;
	out->d = d;
	return 1;
}

static int
q_add(Q a, Q b, Q *out)
{
	int64_t x, y, n, d;

	if (__builtin_mul_overflow(a.n, b.d, &x) || __builtin_mul_overflow(b.n, a.d, &y) ||
	    __builtin_add_overflow(x, y, &n) || __builtin_mul_overflow(a.d, b.d, &d))
		return 0;
	return q_make(n, d, out);
}

static int
q_mul(Q a, Q b, Q *out)
{
	int64_t n, d;
	/* Cancel across first so exact results do not overflow on the way. */
	int64_t g1 = (int64_t)gcd64(uabs64(a.n), (uint64_t)b.d);
	int64_t g2 = (int64_t)gcd64(uabs64(b.n), (uint64_t)a.d);

	if (g1 > 1)
		a.n /= g1, b.d /= g1;
	if (g2 > 1)
		b.n /= g2, a.d /= g2;
	if (__builtin_mul_overflow(a.n, b.n, &n) || __builtin_mul_overflow(a.d, b.d, &d))
		return 0;
	return q_make(n, d, out);
}

static int
q_div(Q a, Q b, Q *out)
{
	Q r;

	return b.n != 0 && q_make(b.d, b.n, &r) && q_mul(a, r, out);
}

/* Sets *c to -1, 0 or 1 as a <, ==, > b. */
static int
q_cmp(Q a, Q b, int *c)
{
	int64_t x, y;

	if (__builtin_mul_overflow(a.n, b.d, &x) || __builtin_mul_overflow(b.n, a.d, &y))
		return 0;
	*c = (x > y) - (x < y);
	return 1;
}

static Q
q_int(int64_t v)
{
	return (Q){v, 1};
}

static int64_t
q_floor(Q a)
{
	int64_t f = a.n / a.d;
	return a.n % a.d != 0 && a.n < 0 ? f - 1 : f;
}

static int64_t
q_ceil(Q a)
{
	int64_t f = a.n / a.d;
	return a.n % a.d != 0 && a.n > 0 ? f + 1 : f;
}

/* Python's round(): halves go to the even neighbour. */
static int64_t
q_round(Q a)
{
	int64_t f = q_floor(a), r = a.n % a.d;

	if (r < 0)
		r += a.d;
	if (r < a.d - r)
		return f;
	if (r > a.d - r)
		return f + 1;
	return f % 2 == 0 ? f : f + 1;
}

/* Integer power by squaring. */
static int
ipow(int64_t base, uint64_t e, int64_t *out)
{
	int64_t r = 1;

	while (e) {
		if ((e & 1) && __builtin_mul_overflow(r, base, &r))
			return 0;
		e >>= 1;
		if (e && __builtin_mul_overflow(base, base, &base))
			return 0;
	}
	*out = r;
	return 1;
}

static int
q_pow(Q b, Q x, Q *out)
{
	int64_t n, d;

	if (x.d != 1)
		return 0;
	if (x.n < 0) {
		if (b.n == 0 || !q_make(b.d, b.n, &b))
			return 0;
	}
	return ipow(b.n, uabs64(x.n), &n) && ipow(b.d, uabs64(x.n), &d) && q_make(n, d, out);
}

/* A double as an exact dyadic fraction, when one fits. */
static int
q_float(double f, Q *out)
{
	int64_t d = 1;

	if (!isfinite(f))
		return 0;
	for (int k = 0; f != floor(f); k++) {
		if (k == 62)
			return 0;
		f *= 2;
		d *= 2;
	}
	if (f >= 9223372036854775808.0 || f < -9223372036854775808.0)
		return 0;
	return q_make((int64_t)f, d, out);
}

static int ev(const SymExpr *e, const Env *env, int depth, Q *out);

static int
ev_args(const SymExpr *e, const Env *env, int depth, Q *v, int n)
{
	if (e->n != n)
		return 0;
	for (int i = 0; i < n; i++)
		if (!ev(e->args[i], env, depth + 1, &v[i]))
			return 0;
	return 1;
}

/* a - b*floor(a/b): Python's and sympy's modulus, sign of the divisor. */
static int
q_mod(Q a, Q b, Q *out)
{
	Q r, t;

	if (!q_div(a, b, &r) || !q_mul(b, q_int(q_floor(r)), &t))
		return 0;
	if (t.n == INT64_MIN)
		return 0;
	t.n = -t.n;
	return q_add(a, t, out);
}

static int
ev_fold(const SymExpr *e, const Env *env, int depth, Q *out)
{
	Q v, acc;
	int c;

	if (e->op == SYM_MAX || e->op == SYM_MIN) {
		if (e->n == 0)
			return 0;
	}
	acc = q_int(e->op == SYM_MUL || e->op == SYM_AND ? 1 : 0);
	for (int i = 0; i < e->n; i++) {
		if (!ev(e->args[i], env, depth + 1, &v))
			return 0;
		switch (e->op) {
		case SYM_ADD:
			if (!q_add(acc, v, &acc))
				return 0;
			break;
		case SYM_MUL:
			if (!q_mul(acc, v, &acc))
				return 0;
			break;
		case SYM_AND:
			if (v.n == 0) {
				*out = q_int(0);
				return 1;
			}
			break;
		case SYM_OR:
			if (v.n != 0) {
				*out = q_int(1);
				return 1;
			}
			break;
		default:   /* Max, Min */
			if (i == 0) {
				acc = v;
				break;
			}
			if (!q_cmp(v, acc, &c))
				return 0;
			if ((e->op == SYM_MAX && c > 0) || (e->op == SYM_MIN && c < 0))
				acc = v;
			break;
		}
	}
	*out = acc;
	return 1;
}

static int
ev(const SymExpr *e, const Env *env, int depth, Q *out)
{
	Q v[3], r;
	int64_t x;
	int c;

	if (depth > 100 * SYM_MAX_DEPTH)
		return 0;
	switch (e->op) {
	case SYM_INT:
		*out = q_int(e->i);
		return 1;
	case SYM_SYMBOL:
		if (!env->lookup || !e->name || !env->lookup(env->ctx, e->name, &x))
			return 0;
		*out = q_int(x);
		return 1;
	case SYM_RATIONAL:
		return q_make(e->i, e->den, out);
	case SYM_FLOAT:
		return q_float(e->f, out);
	case SYM_TRUE:
	case SYM_FALSE:
		*out = q_int(e->op == SYM_TRUE);
		return 1;
	case SYM_ADD: case SYM_MUL: case SYM_MAX: case SYM_MIN: case SYM_AND: case SYM_OR:
		return ev_fold(e, env, depth, out);
	case SYM_POW:
	case SYM_POWBYNATURAL:
		if (!ev_args(e, env, depth, v, 2) || (e->op == SYM_POWBYNATURAL && v[1].n < 0))
			return 0;
		return q_pow(v[0], v[1], out);
	case SYM_FLOORDIV:
	case SYM_CLEANDIV:
	case SYM_CEILDIV:
		if (!ev_args(e, env, depth, v, 2) || !q_div(v[0], v[1], &r))
			return 0;
		*out = q_int(e->op == SYM_CEILDIV ? q_ceil(r) : q_floor(r));
		return 1;
	case SYM_MOD:
	case SYM_PYTHONMOD:
		return ev_args(e, env, depth, v, 2) && q_mod(v[0], v[1], out);
	case SYM_MODULARINDEXING:
		if (!ev_args(e, env, depth, v, 3) || !q_div(v[0], v[1], &r))
			return 0;
		return q_mod(q_int(q_floor(r)), v[2], out);
	case SYM_CEILTOINT: case SYM_FLOORTOINT: case SYM_TRUNCTOINT: case SYM_ROUNDTOINT:
		if (!ev_args(e, env, depth, v, 1))
			return 0;
		x = e->op == SYM_CEILTOINT ? q_ceil(v[0]) : e->op == SYM_FLOORTOINT ? q_floor(v[0]) :
		    e->op == SYM_TRUNCTOINT ? v[0].n / v[0].d : q_round(v[0]);
		*out = q_int(x);
		return 1;
	case SYM_FLOATTRUEDIV:
	case SYM_INTTRUEDIV:
		return ev_args(e, env, depth, v, 2) && q_div(v[0], v[1], out);
	case SYM_WHERE:
		if (e->n != 3 || !ev(e->args[0], env, depth + 1, &v[0]))
			return 0;
		return ev(e->args[v[0].n != 0 ? 1 : 2], env, depth + 1, out);
	case SYM_EQ: case SYM_NE: case SYM_LT: case SYM_LE: case SYM_GT: case SYM_GE:
		if (!ev_args(e, env, depth, v, 2) || !q_cmp(v[0], v[1], &c))
			return 0;
		*out = q_int(e->op == SYM_EQ ? c == 0 : e->op == SYM_NE ? c != 0 :
		             e->op == SYM_LT ? c < 0 : e->op == SYM_LE ? c <= 0 :
		             e->op == SYM_GT ? c > 0 : c >= 0);
		return 1;
	case SYM_NOT:
		if (!ev_args(e, env, depth, v, 1))
			return 0;
		*out = q_int(v[0].n == 0);
		return 1;
	default:   /* SYM_CALL: a function we do not know */
		return 0;
	}
}

int
sym_eval(const SymExpr *e, int (*lookup)(void *ctx, const char *name, int64_t *v),
         void *ctx, int64_t *out)
{
	Env env = {lookup, ctx};
	Q q;

	if (!e || !ev(e, &env, 0, &q) || q.d != 1)
		return 0;
	*out = q.n;
	return 1;
}

int
sym_equal(const SymExpr *a, const SymExpr *b)
{
	if (a == b)
		return 1;
	if (!a || !b || a->op != b->op || a->n != b->n)
		return 0;
	switch (a->op) {
	case SYM_INT:
		return a->i == b->i;
	case SYM_RATIONAL:
		return a->i == b->i && a->den == b->den;
	case SYM_FLOAT:
		return memcmp(&a->f, &b->f, sizeof a->f) == 0;
	case SYM_SYMBOL:
	case SYM_CALL:
		if (strcmp(a->name ? a->name : "", b->name ? b->name : "") != 0)
			return 0;
		break;
	default:
		break;
	}
	for (int i = 0; i < a->n; i++)
		if (!sym_equal(a->args[i], b->args[i]))
			return 0;
	return 1;
}
