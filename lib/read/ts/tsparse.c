/* tsparse.c: a TorchScript code file (code/__torch__/ ** .py) into a TsAst.
 *
 * torch's printer (python_print.cpp) writes a small, regular Python: classes
 * whose bodies declare attributes (`weight : Tensor`), constants
 * (`eps : Final[float] = 1e-05`) and typed methods; free functions; and in
 * bodies assignments, calls, if/else, for over range, while, with, return,
 * raise, assert, del, pass.  This file is a recursive-descent parser with
 * Python's precedence over the tokens of tslex.c, which turns indentation
 * into INDENT/DEDENT as Python does.  It reads the whole of Python's
 * expression and statement syntax that the printer can write, and says
 * "expected X, found Y" at the first token it cannot take; lambdas,
 * comprehensions, star arguments, try, import and the like are such tokens.
 *
 * A syntax error ends the parse: tslex_fail() reports it and jumps back to
 * ts_parse(), which returns the error as a value.  Everything allocated so
 * far lives in the arena, so the jump leaks nothing.  Nesting (suites,
 * brackets, unary operators, and each link of an operator or trailer chain)
 * is counted against TS_MAX_NEST, which bounds both the C stack here and
 * the depth of the tree the builder walks. */
#include "tslex.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

/* ==== operators ==== */

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

static void
enter(TsLex *P)
{
	if (++P->nest > TS_MAX_NEST)
		tslex_fail(P, P->tok.line, P->tok.col, "expected at most %d levels of nesting, found more",
		        TS_MAX_NEST);
}


/* ==== token tests ==== */

static int
is_op(const TsLex *P, int op)
{
	return P->tok.kind == LX_OP && P->tok.op == op && !P->tok.aug;
}

static int
is_kw(const TsLex *P, const char *kw)
{
	return P->tok.kind == LX_NAME && strlen(kw) == P->tok.n && memcmp(P->tok.p, kw, P->tok.n) == 0;
}

static int
accept_op(TsLex *P, int op)
{
	if (!is_op(P, op))
		return 0;
	tslex_next(P);
	return 1;
}

static int
accept_kw(TsLex *P, const char *kw)
{
	if (!is_kw(P, kw))
		return 0;
	tslex_next(P);
	return 1;
}

static void
expect_op(TsLex *P, int op, const char *what)
{
	if (!accept_op(P, op))
		tslex_expected(P, what);
}

/* An identifier (not a keyword): its arena copy. */
static const char *
expect_name(TsLex *P, const char *what)
{
	const char *s;

	if (P->tok.kind != LX_NAME || tslex_is_keyword(&P->tok))
		tslex_expected(P, what);
	s = arena_strndup(P->a, P->tok.p, P->tok.n);
	tslex_next(P);
	return s;
}

/* Whether the current token can start an expression. */
static int
starts_expr(const TsLex *P)
{
	switch (P->tok.kind) {
	case LX_NAME:
		return !tslex_is_keyword(&P->tok) || is_kw(P, "None") || is_kw(P, "True") || is_kw(P, "False") ||
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
vec_push(TsLex *P, Vec *v, void *x)
{
	if (v->n == v->cap) {
		int cap = v->cap ? v->cap * 2 : 4;
		void **nv;

		if (v->cap > INT_MAX / 4)
			tslex_fail(P, P->tok.line, P->tok.col, "expected fewer items, found more than %d", v->cap);
		nv = ARENA_ARRAY(P->a, void *, cap);
		if (v->n)
			memcpy(nv, v->v, sizeof *nv * (size_t)v->n);
		v->v = nv;
		v->cap = cap;
	}
	v->v[v->n++] = x;
}

/* The pointers of v as an array of their own (one slot at least, so a
 * caller may index it without testing n). */
static void *
vec_ptrs(TsLex *P, const Vec *v)
{
	void **a = ARENA_ARRAY(P->a, void *, v->n ? v->n : 1);

	if (v->n)
		memcpy(a, v->v, sizeof *a * (size_t)v->n);
	return a;
}

/* The structs v points to, copied into one array of elements of size bytes. */
static void *
vec_structs(TsLex *P, const Vec *v, size_t size)
{
	char *a = arena_alloc(P->a, size * (size_t)(v->n ? v->n : 1));

	for (int k = 0; k < v->n; k++)
		memcpy(a + size * (size_t)k, v->v[k], size);
	return a;
}

/* ==== expressions ==== */

static TsExpr *test(TsLex *P);
static TsExpr *or_test(TsLex *P);
static TsExpr *unary(TsLex *P);

static TsExpr *
new_expr(TsLex *P, TsExprKind kind, const TsTok *at)
{
	TsExpr *e = ARENA_NEW(P->a, TsExpr);

	e->kind = kind;
	e->ofs = at->ofs;
	e->line = at->line;
	e->col = at->col;
	return e;
}

static TsExpr *
new_binary(TsLex *P, TsExprKind kind, int op, TsExpr *a, TsExpr *b)
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
set_items(TsLex *P, TsExpr *e, const Vec *v)
{
	e->nitem = v->n;
	e->items = vec_ptrs(P, v);
}

/* Items separated by commas up to the closing bracket close, a trailing
 * comma allowed; *trailing says whether there was one. */
static void
items_until(TsLex *P, Vec *v, int close, const char *what, int *trailing)
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
		tslex_expected(P, what);
}

/* ( ... ): an empty tuple, a parenthesized expression or a tuple. */
static TsExpr *
paren(TsLex *P)
{
	TsTok open = P->tok;
	Vec v = {0};
	int trailing;
	TsExpr *e;

	tslex_next(P);
	items_until(P, &v, ')', "',' or ')'", &trailing);
	if (v.n == 1 && !trailing)
		return v.v[0];
	e = new_expr(P, TE_TUPLE, &open);
	set_items(P, e, &v);
	return e;
}

static TsExpr *
dict(TsLex *P)
{
	TsExpr *e = new_expr(P, TE_DICT, &P->tok);
	Vec v = {0};

	tslex_next(P);
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
string(TsLex *P)
{
	TsExpr *e = new_expr(P, TE_STR, &P->tok);

	e->s = P->tok.s;
	e->n = P->tok.slen;
	tslex_next(P);
	while (P->tok.kind == LX_STR) {
		char *s = arena_alloc(P->a, e->n + P->tok.slen + 1);

		memcpy(s, e->s, e->n);
		memcpy(s + e->n, P->tok.s, P->tok.slen + 1);
		e->s = s;
		e->n += P->tok.slen;
		tslex_next(P);
	}
	return e;
}

static TsExpr *
atom(TsLex *P)
{
	TsTok t = P->tok;
	TsExpr *e;

	switch (t.kind) {
	case LX_INT:
		e = new_expr(P, TE_INT, &t);
		if (t.u > INT64_MAX)
			tslex_fail(P, t.line, t.col, "expected an integer of 64 bits, found number %.*s", (int)t.n, t.p);
		e->i = (int64_t)t.u;
		tslex_next(P);
		return e;
	case LX_FLOAT: case LX_IMAG:
		e = new_expr(P, t.kind == LX_FLOAT ? TE_FLOAT : TE_IMAG, &t);
		e->f = t.f;
		tslex_next(P);
		return e;
	case LX_STR:
		return string(P);
	case LX_NAME:
		if (is_kw(P, "None") || is_kw(P, "True") || is_kw(P, "False")) {
			e = new_expr(P, is_kw(P, "None") ? TE_NONE : is_kw(P, "True") ? TE_TRUE : TE_FALSE, &t);
			tslex_next(P);
			return e;
		}
		if (tslex_is_keyword(&t))
			break;
		/* The printer's names of the non-finite floats (reserved: no variable takes them). */
		if (is_kw(P, "inf") || is_kw(P, "nan") || is_kw(P, "infj") || is_kw(P, "nanj")) {
			e = new_expr(P, t.n == 3 ? TE_FLOAT : TE_IMAG, &t);
			e->f = t.p[0] == 'i' ? INFINITY : NAN;
			tslex_next(P);
			return e;
		}
		e = new_expr(P, TE_NAME, &t);
		e->s = arena_strndup(P->a, t.p, t.n);
		tslex_next(P);
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
			tslex_next(P);
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
	tslex_expected(P, "an expression");
}

/* One subscript item: an expression or a slice [a]:[b][:[c]]. */
static TsExpr *
subscript_item(TsLex *P)
{
	TsTok t = P->tok;
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
subscript(TsLex *P)
{
	TsTok t = P->tok;
	Vec v = {0};
	int trailing = 0;
	TsExpr *e;

	tslex_next(P);
	while (!is_op(P, ']')) {
		vec_push(P, &v, subscript_item(P));
		trailing = 0;
		if (!accept_op(P, ','))
			break;
		trailing = 1;
	}
	if (!accept_op(P, ']'))
		tslex_expected(P, "',' or ']'");
	if (v.n == 0)
		tslex_fail(P, t.line, t.col, "expected a subscript, found '[]'");
	if (v.n == 1 && !trailing)
		return v.v[0];
	e = new_expr(P, TE_TUPLE, &t);
	set_items(P, e, &v);
	return e;
}

/* ( args ): positional arguments, then NAME=value ones. */
static void
call_args(TsLex *P, TsExpr *call)
{
	Vec v = {0}, kw = {0};
	const char *last_kw = NULL;

	tslex_next(P);
	while (!is_op(P, ')')) {
		TsExpr *e = test(P);
		const char *name = NULL;

		if (is_op(P, '=')) {
			if (e->kind != TE_NAME)
				tslex_expected(P, "',' or ')'");
			tslex_next(P);
			name = e->s;
			e = test(P);
			last_kw = name;
		} else if (last_kw) {
			tslex_fail(P, e->line, e->col, "expected a keyword argument after %s=, found a positional one",
			        last_kw);
		}
		vec_push(P, &v, e);
		vec_push(P, &kw, (void *)name);
		if (!accept_op(P, ','))
			break;
	}
	expect_op(P, ')', "',' or ')'");
	set_items(P, call, &v);
	call->kw = vec_ptrs(P, &kw);
}

/* An atom and its trailers: calls, subscripts, attributes. */
static TsExpr *
postfix(TsLex *P)
{
	int nest = P->nest;
	TsExpr *e = atom(P);

	for (;;) {
		TsTok t = P->tok;
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
			tslex_next(P);
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
power(TsLex *P)
{
	TsExpr *e = postfix(P);

	if (is_op(P, OP_POW)) {
		TsExpr *r;

		tslex_next(P);
		enter(P);
		r = new_binary(P, TE_BINARY, TB_POW, e, unary(P));
		P->nest--;
		return r;
	}
	return e;
}

static TsExpr *
unary(TsLex *P)
{
	TsTok t = P->tok;
	TsExpr *e, *a;

	if (!is_op(P, '-') && !is_op(P, '+') && !is_op(P, '~'))
		return power(P);
	tslex_next(P);
	enter(P);
	/* -9223372036854775808 is the one literal whose number alone is out of range. */
	if (t.op == '-' && P->tok.kind == LX_INT && P->tok.u == (uint64_t)INT64_MAX + 1) {
		TsTok num = P->tok;

		tslex_next(P);
		if (!is_op(P, OP_POW) && !is_op(P, '(') && !is_op(P, '[') && !is_op(P, '.')) {
			e = new_expr(P, TE_INT, &t);
			e->i = INT64_MIN;
			P->nest--;
			return e;
		}
		tslex_fail(P, num.line, num.col, "expected an integer of 64 bits, found number %.*s", (int)num.n, num.p);
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
bin_row(const TsLex *P)
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
binary(TsLex *P, int min_prec)
{
	int nest = P->nest;
	TsExpr *e = unary(P);
	const struct BinRow *r;

	while ((r = bin_row(P)) && r->prec >= min_prec) {
		TsBinOp op = r->bin;
		int prec = r->prec;

		tslex_next(P);
		enter(P);
		e = new_binary(P, TE_BINARY, op, e, binary(P, prec + 1));
	}
	P->nest = nest;
	return e;
}

/* The comparison operator at the current token (consumed), or -1. */
static int
compare_op(TsLex *P)
{
	static const struct { int op; TsBinOp bin; } ops[] = {
		{OP_EQ, TB_EQ}, {OP_NE, TB_NE}, {'<', TB_LT}, {OP_LE, TB_LE}, {'>', TB_GT}, {OP_GE, TB_GE},
	};

	for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
		if (is_op(P, ops[k].op)) {
			tslex_next(P);
			return (int)ops[k].bin;
		}
	if (accept_kw(P, "in"))
		return TB_IN;
	if (accept_kw(P, "is"))
		return accept_kw(P, "not") ? TB_ISNOT : TB_IS;
	if (is_kw(P, "not")) {
		tslex_next(P);
		if (!accept_kw(P, "in"))
			tslex_expected(P, "'in' after 'not'");
		return TB_NOTIN;
	}
	return -1;
}

/* a < b < c is (a < b) and (b < c), b shared. */
static TsExpr *
comparison(TsLex *P)
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
not_test(TsLex *P)
{
	TsTok t = P->tok;
	TsExpr *e;

	if (!is_kw(P, "not"))
		return comparison(P);
	tslex_next(P);
	enter(P);
	e = new_expr(P, TE_UNARY, &t);
	e->op = 'n';
	e->a = not_test(P);
	P->nest--;
	return e;
}

static TsExpr *
bool_chain(TsLex *P, const char *kw, int op, TsExpr *(*operand)(TsLex *))
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
and_test(TsLex *P)
{
	return bool_chain(P, "and", 'a', not_test);
}

static TsExpr *
or_test(TsLex *P)
{
	return bool_chain(P, "or", 'o', and_test);
}

/* test: or_test ['if' or_test 'else' test] */
static TsExpr *
test(TsLex *P)
{
	TsExpr *body = or_test(P), *e;

	if (!is_kw(P, "if"))
		return body;
	tslex_next(P);
	enter(P);
	e = new_binary(P, TE_IFEXP, 0, or_test(P), NULL);
	if (!accept_kw(P, "else"))
		tslex_expected(P, "'else' in a conditional expression");
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
expr_list(TsLex *P, TsExpr *(*item)(TsLex *), int stop_at_in)
{
	TsTok t = P->tok;
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
target_item(TsLex *P)
{
	return binary(P, 1);
}

/* ==== statements ==== */

static TsStmt **suite(TsLex *P, int *n);
static TsDef *def(TsLex *P);

static TsStmt *
new_stmt(TsLex *P, TsStmtKind kind, const TsTok *at)
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
check_target(TsLex *P, const TsExpr *e, int allow_tuple)
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
	tslex_fail(P, e->line, e->col, "expected a name, attribute or subscript to assign to, found %s",
	        what[e->kind]);
}

static void
end_of_statement(TsLex *P)
{
	if (P->tok.kind == LX_END)
		return;
	if (P->tok.kind != LX_NEWLINE)
		tslex_expected(P, "end of line");
	tslex_next(P);
}

/* An expression statement, assignment, augmented or annotated assignment. */
static TsStmt *
expr_stmt(TsLex *P)
{
	TsTok t = P->tok;
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
		tslex_next(P);
		s->value = expr_list(P, test, 0);
		return s;
	}
	if (is_op(P, ':')) {
		check_target(P, lhs, 0);
		tslex_next(P);
		s = new_stmt(P, TS_ANNASSIGN, &t);
		s->target = lhs;
		s->type = test(P);
		if (accept_op(P, '='))
			s->value = expr_list(P, test, 0);
		return s;
	}
	if (is_op(P, '=')) {
		check_target(P, lhs, 1);
		tslex_next(P);
		s = new_stmt(P, TS_ASSIGN, &t);
		s->target = lhs;
		s->value = expr_list(P, test, 0);
		if (is_op(P, '='))
			tslex_expected(P, "end of line (one target per assignment)");
		return s;
	}
	s = new_stmt(P, TS_EXPR, &t);
	s->value = lhs;
	return s;
}

/* pass, break, continue, return, raise, assert, del, or an expression statement. */
static TsStmt *
simple_stmt(TsLex *P)
{
	TsTok t = P->tok;
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
		tslex_expected(P, "a statement");
	}
	end_of_statement(P);
	return s;
}

/* if test: suite (elif test: suite)* [else: suite]; an elif is an else
 * holding one TS_IF. */
static TsStmt *
if_stmt(TsLex *P)
{
	TsStmt *s = new_stmt(P, TS_IF, &P->tok);

	tslex_next(P);
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
stmt(TsLex *P)
{
	TsTok t = P->tok;
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
			tslex_expected(P, "'in' after the loop variables");
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

/* After ':': an indented block, or one simple statement on the same line. */
static TsStmt **
suite(TsLex *P, int *n)
{
	Vec v = {0};

	enter(P);
	if (P->tok.kind != LX_NEWLINE) {
		vec_push(P, &v, simple_stmt(P));
	} else {
		tslex_next(P);
		if (P->tok.kind != LX_INDENT)
			tslex_expected(P, "an indented block");
		tslex_next(P);
		while (P->tok.kind != LX_DEDENT && P->tok.kind != LX_END)
			vec_push(P, &v, stmt(P));
		if (P->tok.kind == LX_DEDENT)
			tslex_next(P);
	}
	P->nest--;
	*n = v.n;
	return vec_ptrs(P, &v);
}

/* def name(params) [-> type]: suite */
static TsDef *
def(TsLex *P)
{
	TsDef *f = ARENA_NEW(P->a, TsDef);
	Vec params = {0};

	f->ofs = P->tok.ofs;
	f->line = P->tok.line;
	tslex_next(P);
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
	f->params = vec_structs(P, &params, sizeof *f->params);
	f->body = suite(P, &f->nbody);
	return f;
}

/* ==== classes ==== */

typedef struct ClassBuild {
	Vec params, buffers, attrs, const_names, const_values, defs;
} ClassBuild;

/* __parameters__ = ["weight", "bias", ]: the names as strings. */
static void
name_list(TsLex *P, const TsExpr *list, Vec *out)
{
	if (list->kind != TE_LIST)
		tslex_fail(P, list->line, list->col, "expected a list of names in quotes, found %s",
		        list->kind == TE_TUPLE ? "a tuple" : "another expression");
	for (int k = 0; k < list->nitem; k++) {
		const TsExpr *e = list->items[k];

		if (e->kind != TE_STR)
			tslex_fail(P, e->line, e->col, "expected a name in quotes, found %s",
			        e->kind == TE_NAME ? arena_printf(P->a, "name '%s'", e->s) : "another expression");
		vec_push(P, out, (void *)e->s);
	}
}

/* One line of a class body that is not a def. */
static void
class_item(TsLex *P, ClassBuild *cb)
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
	tslex_fail(P, s->line, s->col, "expected a method, an attribute (name : type) or a constant "
	        "(name = value) in the class body, found another statement");
}

/* class Name[(Base)]: body */
static TsClass *
class_def(TsLex *P)
{
	TsClass *c = ARENA_NEW(P->a, TsClass);
	ClassBuild cb = {0};

	c->line = P->tok.line;
	tslex_next(P);
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
		tslex_expected(P, "end of line after 'class ...:'");
	tslex_next(P);
	if (P->tok.kind != LX_INDENT)
		tslex_expected(P, "an indented class body");
	tslex_next(P);
	enter(P);
	while (P->tok.kind != LX_DEDENT && P->tok.kind != LX_END) {
		if (is_kw(P, "def"))
			vec_push(P, &cb.defs, def(P));
		else
			class_item(P, &cb);
	}
	if (P->tok.kind == LX_DEDENT)
		tslex_next(P);
	P->nest--;
	c->nparameter = cb.params.n;
	c->parameters = vec_ptrs(P, &cb.params);
	c->nbuffer = cb.buffers.n;
	c->buffers = vec_ptrs(P, &cb.buffers);
	c->nattr = cb.attrs.n;
	c->attrs = vec_structs(P, &cb.attrs, sizeof *c->attrs);
	c->nconst = cb.const_names.n;
	c->const_names = vec_ptrs(P, &cb.const_names);
	c->const_values = vec_ptrs(P, &cb.const_values);
	c->ndef = cb.defs.n;
	c->defs = vec_structs(P, &cb.defs, sizeof *c->defs);
	return c;
}

/* ==== the file ==== */

/* The top level: classes and free functions. */
static void
parse_file(TsLex *P, TsAst *out)
{
	Vec classes = {0}, defs = {0};

	tslex_next(P);
	while (P->tok.kind != LX_END) {
		if (P->tok.kind == LX_NEWLINE)
			tslex_next(P);
		else if (is_kw(P, "class"))
			vec_push(P, &classes, class_def(P));
		else if (is_kw(P, "def"))
			vec_push(P, &defs, def(P));
		else
			tslex_expected(P, "'class' or 'def'");
	}
	out->nclass = classes.n;
	out->classes = vec_structs(P, &classes, sizeof *out->classes);
	out->ndef = defs.n;
	out->defs = vec_structs(P, &defs, sizeof *out->defs);
}

int
ts_parse(Arena *a, const char *label, const char *text, size_t len, TsAst *out, Diag *d)
{
	TsLex *P = ARENA_NEW(a, TsLex);
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

static const TsDef *
find_def(const TsDef *defs, int n, const char *name)
{
	for (int k = 0; k < n; k++)
		if (strcmp(defs[k].name, name) == 0)
			return &defs[k];
	return NULL;
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
	return find_def(c->defs, c->ndef, name);
}

const TsDef *
ts_function(const TsAst *ast, const char *name)
{
	return find_def(ast->defs, ast->ndef, name);
}
