/* sym.c: parse, print and evaluate symbolic sizes (see sym.h).
 *
 * Two recursive-descent parsers, one for sympy srepr and one for the infix
 * text of str(expr), share one lexer and one call builder, so a name such as
 * "FloorDiv" means the same op in both.  The printer writes infix text that
 * the infix parser reads back to an equal tree (sym_equal) for every tree the
 * parsers build; test/fuzz/fuzz_sym.c checks exactly that.
 *
 * Print format (golden tests depend on it; keep it stable):
 *   integers     "3", "-3"
 *   floats       shortest text that reads back to the same double, always
 *                with a '.' or an exponent: "0.5", "2.0", "1e-05"
 *   Rational     "1/2"; "Rational(1, -2)" when the denominator is negative
 *   symbols      "s0"; a name that is no identifier, or is True or False,
 *                as a call: "Symbol('t0.size(1)')"
 *   true/false   "True", "False"
 *   Add          "s0 + s1 - 1": a term that is a negative number or a Mul
 *                with a negative integer coefficient follows " - "
 *   Mul          "2*s3", "s0*s1", "-s0" for Mul(-1, s0), "-2*s0", and "s1/s0"
 *                for a factor Pow(s0, -1) after the first
 *   Pow          "s0**2", "s0**(-1)", "(s0 + 1)**2"
 *   FloorDiv     "(s0//2)", "((s0 + 1)//2)": torch's own str(), always in
 *                parentheses, operands parenthesized below a power
 *   comparisons  "s0 < 4", "s0 <= 4", "s0 > 4", "s0 >= 4"; Eq and Ne as
 *                calls "Eq(s0, 4)", "Ne(s0, 4)" (sympy's str does the same)
 *   other ops    calls with ", " between arguments: "Max(1, s0)",
 *                "PythonMod(s0, 2)" (torch's str), "Mod(s0, 2)",
 *                "CeilToInt(IntTrueDiv(s0, 2))", "LShift(s0, 1)"; also an
 *                Add or Mul of fewer than two args: "Add(s0)"
 * Parentheses are the fewest Python precedence needs, plus those that keep
 * a nested Add or Mul apart from its parent ("(s0 + 1) + s1" stays
 * Add(Add(s0, 1), s1); sympy never builds such trees).
 *
 * The infix parser's shapes, which the printer relies on:
 *   a + b - c   one Add(a, b, neg(c)) per unparenthesized chain
 *   a*b/c       one Mul(a, b, Pow(c, -1)) per unparenthesized chain
 *   -x          Mul(-1, x), a chain that later factors join ("-x*y" is
 *               Mul(-1, x, y)); "-3" is Integer(-3) unless "**" follows
 *   1/2         Rational(1, 2) when both sides are bare integer tokens
 *   a//b, a%b   FloorDiv, PythonMod; a**b Pow (right-associative)
 *   neg(c)      Integer(-v), Float(-f), Rational(-p, q) for numbers;
 *               a chain Mul(k, ...) with integer k becomes Mul(-k, ...)
 *               (x for the chain "-x"), other chains get a leading -1;
 *               anything else Mul(-1, c)
 */
#include "sym/sym.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deepest tree either parser returns.  The infix parser also counts
 * brackets, calls, unary signs and "**" to bound its C recursion; the
 * printer spends at most two of those per tree level, so a printed tree of
 * SYM_MAX_DEPTH levels always reads back under INFIX_MAX_NEST. */
enum { INFIX_MAX_NEST = 3 * SYM_MAX_DEPTH };

static const struct {
	const char *name;
	int arity;
} op_info[] = {
#define X(e, name, arity) [e] = {name, arity},
	SYM_OPS(X)
#undef X
};
_Static_assert(sizeof op_info / sizeof op_info[0] == SYM_OP_COUNT, "op_info covers SYM_OPS");

/* Other spellings of the same ops: sympy's srepr class names and helpers. */
static const struct {
	const char *name;
	SymOp op;
} op_alias[] = {
	{"Equality", SYM_EQ}, {"Unequality", SYM_NE},
	{"Lt", SYM_LT}, {"Le", SYM_LE}, {"Gt", SYM_GT}, {"Ge", SYM_GE},
};

/* Returns the op called name[0..n), SYM_CALL when there is none. */
static SymOp
op_lookup(const char *name, size_t n)
{
	for (int i = 0; i < SYM_OP_COUNT; i++)
		if (op_info[i].name[0] && strlen(op_info[i].name) == n &&
		    memcmp(op_info[i].name, name, n) == 0)
			return (SymOp)i;
	for (size_t i = 0; i < sizeof op_alias / sizeof op_alias[0]; i++)
		if (strlen(op_alias[i].name) == n && memcmp(op_alias[i].name, name, n) == 0)
			return op_alias[i].op;
	return SYM_CALL;
}

/* ---- nodes ---- */

static SymExpr *
mk(Arena *a, SymOp op)
{
	SymExpr *e = ARENA_NEW(a, SymExpr);
	e->op = op;
	return e;
}

static SymExpr *
mk_int(Arena *a, int64_t v)
{
	SymExpr *e = mk(a, SYM_INT);
	e->i = v;
	return e;
}

static SymExpr *
mk_float(Arena *a, double f)
{
	SymExpr *e = mk(a, SYM_FLOAT);
	e->f = f;
	return e;
}

static SymExpr *
mk_rational(Arena *a, int64_t num, int64_t den)
{
	SymExpr *e = mk(a, SYM_RATIONAL);
	e->i = num;
	e->den = den;
	return e;
}

static SymExpr *
mk_args(Arena *a, SymOp op, SymExpr **args, int n)
{
	SymExpr *e = mk(a, op);
	e->n = n;
	e->args = args;
	return e;
}

static SymExpr *
mk2(Arena *a, SymOp op, SymExpr *x, SymExpr *y)
{
	SymExpr **v = ARENA_ARRAY(a, SymExpr *, 2);
	v[0] = x;
	v[1] = y;
	return mk_args(a, op, v, 2);
}

/* A growing argument list; doubling keeps the arena garbage linear. */
typedef struct {
	SymExpr **v;
	int n, cap;
} Vec;

static void
vec_push(Arena *a, Vec *x, SymExpr *e)
{
	if (x->n == x->cap) {
		int cap = x->cap ? 2 * x->cap : 4;
		SymExpr **v = ARENA_ARRAY(a, SymExpr *, cap);
		if (x->n)
			memcpy(v, x->v, sizeof *v * (size_t)x->n);
		x->v = v;
		x->cap = cap;
	}
	x->v[x->n++] = e;
}

/* ---- lexer ---- */

typedef enum {
	T_END, T_BAD, T_NAME, T_INT, T_FLOAT, T_STR,
	T_LP, T_RP, T_COMMA, T_ASSIGN,
	T_PLUS, T_MINUS, T_STAR, T_SLASH, T_DSLASH, T_PERCENT, T_POW,
	T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE,
} TokKind;

typedef struct {
	TokKind k;
	size_t pos, end;   /* bytes [pos, end) of the input */
	uint64_t mag;      /* T_INT: the digits' value */
	int big;           /* T_INT: value above 2^63, too big even negated */
	const char *msg;   /* T_BAD: what is wrong */
} Tok;

/* One parse: input, diagnostics and the current token. */
typedef struct {
	Arena *a;
	const char *label;
	const char *s;
	size_t len;
	Diag *d;
	Tok t;             /* current token */
	int nest;          /* brackets (and, for infix, signs and "**") open now */
} Parser;

static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

#define TWO_63 ((uint64_t)1 << 63)

static void
lex_number(const char *s, size_t n, Tok *t)
{
	size_t q = t->pos;

	t->k = T_INT;
	for (; q < n && is_digit(s[q]); q++) {
		if (t->mag > (TWO_63 - (uint64_t)(s[q] - '0')) / 10)
			t->big = 1;
		else
			t->mag = t->mag * 10 + (uint64_t)(s[q] - '0');
	}
	if (q < n && s[q] == '.') {
		t->k = T_FLOAT;
		for (q++; q < n && is_digit(s[q]); q++)
			;
	}
	if (q < n && (s[q] == 'e' || s[q] == 'E')) {
		size_t r = q + 1;
		if (r < n && (s[r] == '+' || s[r] == '-'))
			r++;
		if (r < n && is_digit(s[r])) {
			t->k = T_FLOAT;
			for (q = r; q < n && is_digit(s[q]); q++)
				;
		}
	}
	t->end = q;
}

/* A quoted string; its text is decoded later by str_decode(). */
static void
lex_string(const char *s, size_t n, Tok *t)
{
	char quote = s[t->pos];

	t->k = T_BAD;
	for (size_t q = t->pos + 1; q < n; q++) {
		if (s[q] == 0)
			break;
		if (s[q] == '\\') {
			if (q + 1 >= n || s[q + 1] == 0)
				break;
			q++;
		} else if (s[q] == quote) {
			t->k = T_STR;
			t->end = q + 1;
			return;
		}
	}
	t->msg = "unterminated string";
	t->end = n;
}

static const char bad_char[] = "unexpected character";

static Tok
lex(const Parser *p, size_t pos)
{
	static const struct {
		const char *text;
		TokKind k;
	} ops[] = {
		{"//", T_DSLASH}, {"**", T_POW}, {"==", T_EQ}, {"!=", T_NE}, {"<=", T_LE},
		{">=", T_GE}, {"(", T_LP}, {")", T_RP}, {",", T_COMMA}, {"=", T_ASSIGN},
		{"+", T_PLUS}, {"-", T_MINUS}, {"*", T_STAR}, {"/", T_SLASH}, {"%", T_PERCENT},
		{"<", T_LT}, {">", T_GT},
	};
	const char *s = p->s;
	size_t n = p->len;
	Tok t;

	memset(&t, 0, sizeof t);
	while (pos < n && is_space(s[pos]))
		pos++;
	t.pos = t.end = pos;
	if (pos >= n) {
		t.k = T_END;
		return t;
	}
	if (is_digit(s[pos]) || (s[pos] == '.' && pos + 1 < n && is_digit(s[pos + 1]))) {
		lex_number(s, n, &t);
		return t;
	}
	if (is_alpha(s[pos])) {
		t.k = T_NAME;
		for (t.end = pos + 1; t.end < n && (is_alpha(s[t.end]) || is_digit(s[t.end])); t.end++)
			;
		return t;
	}
	if (s[pos] == '\'' || s[pos] == '"') {
		lex_string(s, n, &t);
		return t;
	}
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		size_t k = strlen(ops[i].text);
		if (n - pos >= k && memcmp(s + pos, ops[i].text, k) == 0) {
			t.k = ops[i].k;
			t.end = pos + k;
			return t;
		}
	}
	t.k = T_BAD;
	t.end = pos + 1;
	t.msg = bad_char;
	return t;
}

static void
advance(Parser *p)
{
	p->t = lex(p, p->t.end);
}

static TokKind
peek(const Parser *p)
{
	return lex(p, p->t.end).k;
}

/* ---- errors ---- */

/* Reports "label: column N: message" and returns NULL; every caller then
 * unwinds, so a parse reports its first error only. */
static SymExpr *
fail(Parser *p, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static SymExpr *
fail(Parser *p, size_t pos, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = arena_vprintf(p->a, fmt, ap);
	va_end(ap);
	if (p->d)
		diag_report(p->d, YE_SYM_EXPR, &(DiagAt){.file = p->label, .column = (unsigned)(pos + 1)},
			"%s", msg);
	return NULL;
}

/* "end of input", "'Integer'", "'%'", or the lexer's complaint. */
static const char *
tok_desc(Parser *p, const Tok *t)
{
	unsigned char c = (unsigned char)p->s[t->pos < p->len ? t->pos : 0];
	size_t n = t->end - t->pos;

	if (t->k == T_END)
		return "end of input";
	if (t->k == T_STR)
		return "a string";
	if (t->k == T_BAD && t->end == t->pos + 1 && (c < 0x20 || c >= 0x7f))
		return arena_printf(p->a, "byte 0x%02x", c);
	if (n > 24)
		return arena_printf(p->a, "'%.24s...'", p->s + t->pos);
	return arena_printf(p->a, "'%.*s'", (int)n, p->s + t->pos);
}

static SymExpr *
unexpected(Parser *p)
{
	if (p->t.k == T_BAD && p->t.msg != bad_char)
		return fail(p, p->t.pos, "%s", p->t.msg);
	return fail(p, p->t.pos, "unexpected %s", tok_desc(p, &p->t));
}

/* After an argument: ',' or the closing ')' of the call opened at lp. */
static int
expect_comma_or_rp(Parser *p, size_t lp)
{
	if (p->t.k == T_COMMA) {
		advance(p);
		return 1;
	}
	if (p->t.k == T_RP)
		return 1;
	if (p->t.k == T_END)
		fail(p, p->t.pos, "missing ')' for the '(' at column %zu", lp + 1);
	else if (p->t.k == T_BAD)
		unexpected(p);
	else
		fail(p, p->t.pos, "expected ',' or ')', found %s", tok_desc(p, &p->t));
	return 0;
}

static int
nest_in(Parser *p, size_t pos, int limit)
{
	if (++p->nest <= limit)
		return 1;
	fail(p, pos, "nesting deeper than %d", limit);
	return 0;
}

/* ---- literals ---- */

/* The current T_INT or T_FLOAT token, negated if neg; consumes it. */
static SymExpr *
number(Parser *p, int neg)
{
	Tok t = p->t;

	advance(p);
	if (t.k == T_INT) {
		if (t.big || t.mag > (neg ? TWO_63 : TWO_63 - 1))
			return fail(p, t.pos, "integer out of range");
		if (neg)
			return mk_int(p->a, t.mag == TWO_63 ? INT64_MIN : -(int64_t)t.mag);
		return mk_int(p->a, (int64_t)t.mag);
	}
	char *text = arena_strndup(p->a, p->s + t.pos, t.end - t.pos);
	double f = strtod(text, NULL);
	if (!isfinite(f))
		return fail(p, t.pos, "float out of range");
	return mk_float(p->a, neg ? -f : f);
}

static int
hex_val(int c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The text of a T_STR token.  Python escapes \\ \' \" \n \t \r \xHH are
 * decoded; any other backslash stays as written (never a NUL byte). */
static char *
str_decode(Parser *p, const Tok *t)
{
	const char *s = p->s;
	char *out = arena_alloc(p->a, t->end - t->pos);
	size_t o = 0;

	for (size_t q = t->pos + 1; q + 1 < t->end; q++) {
		if (s[q] != '\\') {
			out[o++] = s[q];
			continue;
		}
		char c = s[q + 1];
		int h1 = q + 3 < t->end ? hex_val(s[q + 2]) : -1;
		int h2 = q + 3 < t->end ? hex_val(s[q + 3]) : -1;
		if (c == '\\' || c == '\'' || c == '"') {
			out[o++] = c;
			q++;
		} else if (c == 'n' || c == 't' || c == 'r') {
			out[o++] = c == 'n' ? '\n' : c == 't' ? '\t' : '\r';
			q++;
		} else if (c == 'x' && h1 >= 0 && h2 >= 0 && h1 * 16 + h2 != 0) {
			out[o++] = (char)(h1 * 16 + h2);
			q += 3;
		} else {
			out[o++] = '\\';
		}
	}
	out[o] = 0;
	return out;
}

static int
parse_float_text(const char *text, double *f)
{
	char *end;

	if (!*text)
		return 0;
	*f = strtod(text, &end);
	return *end == 0 && isfinite(*f);
}

/* ---- calls, shared by both parsers ---- */

typedef struct {
	SymExpr *e;        /* an expression, or */
	const char *str;   /* a quoted string */
	size_t pos;
} Arg;

typedef struct {
	Arg *v;
	int n, cap;
} ArgVec;

static void
arg_push(Arena *a, ArgVec *x, Arg arg)
{
	if (x->n == x->cap) {
		int cap = x->cap ? 2 * x->cap : 4;
		Arg *v = ARENA_ARRAY(a, Arg, cap);
		if (x->n)
			memcpy(v, x->v, sizeof *v * (size_t)x->n);
		x->v = v;
		x->cap = cap;
	}
	x->v[x->n++] = arg;
}

/* Builds Name(args) for the T_NAME token name: a leaf for Integer, Symbol,
 * Rational and Float, an op of the table, or a SYM_CALL. */
static SymExpr *
build_call(Parser *p, const Tok *name, const ArgVec *av)
{
	const char *nm = p->s + name->pos;
	size_t nlen = name->end - name->pos;
	SymOp op = op_lookup(nm, nlen);
	int n = av->n;
	Arg *v = av->v;
	double f;

	switch (op) {
	case SYM_INT:
		if (n == 1 && v[0].e && v[0].e->op == SYM_INT)
			return v[0].e;
		return fail(p, name->pos, "Integer expects one integer");
	case SYM_SYMBOL:
		if (n == 1 && v[0].str) {
			SymExpr *e = mk(p->a, SYM_SYMBOL);
			e->name = v[0].str;
			return e;
		}
		return fail(p, name->pos, "Symbol expects a quoted name");
	case SYM_RATIONAL:
		if (n == 2 && v[0].e && v[0].e->op == SYM_INT && v[1].e && v[1].e->op == SYM_INT)
			return mk_rational(p->a, v[0].e->i, v[1].e->i);
		return fail(p, name->pos, "Rational expects two integers");
	case SYM_FLOAT:
		if (n == 1 && v[0].str && parse_float_text(v[0].str, &f))
			return mk_float(p->a, f);
		if (n == 1 && v[0].e && v[0].e->op == SYM_FLOAT)
			return v[0].e;
		if (n == 1 && v[0].e && v[0].e->op == SYM_INT)
			return mk_float(p->a, (double)v[0].e->i);
		return fail(p, name->pos, "Float expects a number or a quoted finite number");
	default:
		break;
	}
	for (int i = 0; i < n; i++)
		if (v[i].str)
			return fail(p, v[i].pos, "unexpected string argument");
	if (op_info[op].arity >= 0 && n != op_info[op].arity)
		return fail(p, name->pos, "%.*s takes %d argument%s, got %d", (int)nlen, nm,
		            op_info[op].arity, op_info[op].arity == 1 ? "" : "s", n);
	SymExpr **args = n ? ARENA_ARRAY(p->a, SymExpr *, n) : NULL;
	for (int i = 0; i < n; i++)
		args[i] = v[i].e;
	SymExpr *e = mk_args(p->a, op, args, n);
	if (op == SYM_CALL)
		e->name = arena_strndup(p->a, nm, nlen);
	return e;
}

static int
name_is(const Parser *p, const Tok *t, const char *word)
{
	size_t n = strlen(word);
	return t->end - t->pos == n && memcmp(p->s + t->pos, word, n) == 0;
}

/* Whole-tree depth check; recursion stops at the limit. */
static int
too_deep(const SymExpr *e, int depth)
{
	if (depth > SYM_MAX_DEPTH)
		return 1;
	for (int i = 0; i < e->n; i++)
		if (too_deep(e->args[i], depth + 1))
			return 1;
	return 0;
}

static SymExpr *
finish(Parser *p, SymExpr *e)
{
	if (!e)
		return NULL;
	if (p->t.k != T_END) {
		if (p->t.k == T_BAD)
			return unexpected(p);
		return fail(p, p->t.pos, "unexpected %s after the expression", tok_desc(p, &p->t));
	}
	if (too_deep(e, 1))
		return fail(p, 0, "expression deeper than %d levels", SYM_MAX_DEPTH);
	return e;
}

static void
parser_init(Parser *p, Arena *a, const char *label, const char *s, size_t len, Diag *d)
{
	memset(p, 0, sizeof *p);
	p->a = a;
	p->label = label ? label : "expression";
	p->s = s ? s : "";
	p->len = s ? len : 0;
	p->d = d;
	p->t = lex(p, 0);
}

/* ---- srepr: value := Name ['(' args ')'] | [-] number | 'string' ---- */

static int s_value(Parser *p, Arg *out, int any_name);

static SymExpr *
s_call(Parser *p)
{
	Tok name = p->t;
	ArgVec av = {0};

	if (!nest_in(p, name.pos, SYM_MAX_DEPTH))
		return NULL;
	advance(p);
	size_t lp = p->t.pos;
	advance(p);
	while (p->t.k != T_RP) {
		Arg arg;
		if (p->t.k == T_NAME && peek(p) == T_ASSIGN) {
			/* Keyword arguments (positive=True, precision=53) say
			 * nothing we need. */
			advance(p);
			advance(p);
			if (!s_value(p, &arg, 1))
				return NULL;
		} else {
			if (!s_value(p, &arg, 0))
				return NULL;
			arg_push(p->a, &av, arg);
		}
		if (!expect_comma_or_rp(p, lp))
			return NULL;
	}
	advance(p);
	p->nest--;
	return build_call(p, &name, &av);
}

/* any_name: a keyword value, where bare names such as None are fine. */
static int
s_value(Parser *p, Arg *out, int any_name)
{
	Tok t = p->t;

	memset(out, 0, sizeof *out);
	out->pos = t.pos;
	switch (t.k) {
	case T_STR:
		out->str = str_decode(p, &t);
		advance(p);
		return 1;
	case T_MINUS:
	case T_PLUS: {
		TokKind k = peek(p);
		if (k != T_INT && k != T_FLOAT)
			break;
		advance(p);
		out->e = number(p, t.k == T_MINUS);
		return out->e != NULL;
	}
	case T_INT:
	case T_FLOAT:
		out->e = number(p, 0);
		return out->e != NULL;
	case T_NAME:
		if (peek(p) == T_LP) {
			out->e = s_call(p);
			return out->e != NULL;
		}
		advance(p);
		if (name_is(p, &t, "true") || name_is(p, &t, "True"))
			out->e = mk(p->a, SYM_TRUE);
		else if (name_is(p, &t, "false") || name_is(p, &t, "False") || any_name)
			out->e = mk(p->a, SYM_FALSE);
		else
			return fail(p, t.pos, "unknown name %s", tok_desc(p, &t)) != NULL;
		return 1;
	default:
		break;
	}
	unexpected(p);
	return 0;
}

SymExpr *
sym_parse_srepr(Arena *a, const char *label, const char *s, size_t len, Diag *d)
{
	Parser p;
	Arg arg;

	parser_init(&p, a, label, s, len, d);
	if (!s_value(&p, &arg, 0))
		return NULL;
	if (arg.str)
		return fail(&p, arg.pos, "expected an expression, found a string");
	return finish(&p, arg.e);
}

/* ---- infix, with Python's precedence ----
 *   expr  := arith [cmpop arith]
 *   arith := term (('+' | '-') term)*
 *   term  := unary (('*' | '/' | '//' | '%') unary)*
 *   unary := ('-' | '+') unary | power
 *   power := atom ['**' unary]
 *   atom  := number | Name | Name '(' args ')' | '(' expr ')'
 * "open" marks a Mul chain built at this term level (see neg() above). */

static SymExpr *i_expr(Parser *p);
static SymExpr *i_unary(Parser *p, int *lit, int *open);

static SymExpr *
i_call(Parser *p)
{
	Tok name = p->t;
	ArgVec av = {0};

	if (!nest_in(p, name.pos, INFIX_MAX_NEST))
		return NULL;
	advance(p);
	size_t lp = p->t.pos;
	advance(p);
	while (p->t.k != T_RP) {
		Arg arg;
		memset(&arg, 0, sizeof arg);
		arg.pos = p->t.pos;
		if (p->t.k == T_NAME && peek(p) == T_ASSIGN) {
			advance(p);
			advance(p);
			if (p->t.k == T_STR)
				advance(p);
			else if (!i_expr(p))
				return NULL;
		} else if (p->t.k == T_STR) {
			arg.str = str_decode(p, &p->t);
			advance(p);
			arg_push(p->a, &av, arg);
		} else {
			if (!(arg.e = i_expr(p)))
				return NULL;
			arg_push(p->a, &av, arg);
		}
		if (!expect_comma_or_rp(p, lp))
			return NULL;
	}
	advance(p);
	p->nest--;
	return build_call(p, &name, &av);
}

/* lit: the atom was a bare integer token (the left side of "1/2"). */
static SymExpr *
i_atom(Parser *p, int *lit)
{
	Tok t = p->t;
	SymExpr *e;

	*lit = 0;
	switch (t.k) {
	case T_INT:
		*lit = 1;
		return number(p, 0);
	case T_FLOAT:
		return number(p, 0);
	case T_NAME:
		if (peek(p) == T_LP)
			return i_call(p);
		advance(p);
		if (name_is(p, &t, "True"))
			return mk(p->a, SYM_TRUE);
		if (name_is(p, &t, "False"))
			return mk(p->a, SYM_FALSE);
		e = mk(p->a, SYM_SYMBOL);
		e->name = arena_strndup(p->a, p->s + t.pos, t.end - t.pos);
		return e;
	case T_LP:
		if (!nest_in(p, t.pos, INFIX_MAX_NEST))
			return NULL;
		advance(p);
		if (!(e = i_expr(p)))
			return NULL;
		if (p->t.k != T_RP) {
			if (p->t.k == T_END)
				return fail(p, p->t.pos, "missing ')' for the '(' at column %zu", t.pos + 1);
			if (p->t.k == T_BAD)
				return unexpected(p);
			return fail(p, p->t.pos, "expected ')', found %s", tok_desc(p, &p->t));
		}
		advance(p);
		p->nest--;
		return e;
	default:
		return unexpected(p);
	}
}

static SymExpr *
i_power(Parser *p, int *lit)
{
	SymExpr *b = i_atom(p, lit), *x;
	int l, o;

	if (!b || p->t.k != T_POW)
		return b;
	*lit = 0;
	if (!nest_in(p, p->t.pos, INFIX_MAX_NEST))
		return NULL;
	advance(p);
	if (!(x = i_unary(p, &l, &o)))
		return NULL;
	p->nest--;
	return mk2(p->a, SYM_POW, b, x);
}

static SymExpr *
i_unary(Parser *p, int *lit, int *open)
{
	Tok t = p->t;
	SymExpr *u;
	int l, o;

	*lit = *open = 0;
	if (t.k != T_MINUS && t.k != T_PLUS)
		return i_power(p, lit);
	Tok nx = lex(p, t.end);
	if (t.k == T_MINUS && (nx.k == T_INT || nx.k == T_FLOAT) && lex(p, nx.end).k != T_POW) {
		advance(p);
		*lit = nx.k == T_INT;
		return number(p, 1);
	}
	if (!nest_in(p, t.pos, INFIX_MAX_NEST))
		return NULL;
	advance(p);
	if (t.k == T_PLUS) {
		u = i_unary(p, lit, open);
		p->nest--;
		return u;
	}
	if (!(u = i_unary(p, &l, &o)))
		return NULL;
	p->nest--;
	*open = 1;
	return mk2(p->a, SYM_MUL, mk_int(p->a, -1), u);
}

static SymExpr *
i_term(Parser *p, int *open_out)
{
	int lit, open, l, o;
	SymExpr *e = i_unary(p, &lit, &open), *u;
	Vec f = {0};

	if (!e)
		return NULL;
	if (open)
		for (int i = 0; i < e->n; i++)
			vec_push(p->a, &f, e->args[i]);
	for (int first = 1;; first = 0) {
		TokKind k = p->t.k;
		if (k == T_SLASH && first && lit) {
			Tok den = lex(p, p->t.end);
			if (den.k == T_INT && lex(p, den.end).k != T_POW) {
				advance(p);
				if (!(u = number(p, 0)))
					return NULL;
				e = mk_rational(p->a, e->i, u->i);
				lit = 0;
				continue;
			}
		}
		if (k == T_STAR || k == T_SLASH) {
			advance(p);
			if (!(u = i_unary(p, &l, &o)))
				return NULL;
			if (k == T_SLASH)
				u = mk2(p->a, SYM_POW, u, mk_int(p->a, -1));
			if (!open) {
				f.n = 0;
				vec_push(p->a, &f, e);
				e = mk(p->a, SYM_MUL);
				open = 1;
			}
			vec_push(p->a, &f, u);
			e->args = f.v;
			e->n = f.n;
		} else if (k == T_DSLASH || k == T_PERCENT) {
			advance(p);
			if (!(u = i_unary(p, &l, &o)))
				return NULL;
			e = mk2(p->a, k == T_DSLASH ? SYM_FLOORDIV : SYM_PYTHONMOD, e, u);
			open = 0;
			f = (Vec){0};
		} else {
			break;
		}
		lit = 0;
	}
	*open_out = open;
	return e;
}

/* The term t after a binary '-' (the rules in the file comment). */
static SymExpr *
neg(Arena *a, SymExpr *t, int open)
{
	SymExpr **v;

	switch (t->op) {
	case SYM_INT:
		if (t->i != INT64_MIN)
			return mk_int(a, -t->i);
		break;
	case SYM_FLOAT:
		return mk_float(a, -t->f);
	case SYM_RATIONAL:
		if (t->i != INT64_MIN)
			return mk_rational(a, -t->i, t->den);
		break;
	case SYM_MUL:
		if (!open)
			break;
		if (t->n == 2 && t->args[0]->op == SYM_INT && t->args[0]->i == -1)
			return t->args[1];   /* "a - -x" */
		if (t->args[0]->op == SYM_INT && t->args[0]->i != INT64_MIN) {
			v = ARENA_ARRAY(a, SymExpr *, t->n);
			memcpy(v, t->args, sizeof *v * (size_t)t->n);
			v[0] = mk_int(a, -t->args[0]->i);
			return mk_args(a, SYM_MUL, v, t->n);
		}
		v = ARENA_ARRAY(a, SymExpr *, t->n + 1);
		v[0] = mk_int(a, -1);
		memcpy(v + 1, t->args, sizeof *v * (size_t)t->n);
		return mk_args(a, SYM_MUL, v, t->n + 1);
	default:
		break;
	}
	return mk2(a, SYM_MUL, mk_int(a, -1), t);
}

static SymExpr *
i_arith(Parser *p)
{
	int open;
	SymExpr *e = i_term(p, &open), *t;
	Vec v = {0};

	if (!e || (p->t.k != T_PLUS && p->t.k != T_MINUS))
		return e;
	vec_push(p->a, &v, e);
	while (p->t.k == T_PLUS || p->t.k == T_MINUS) {
		int minus = p->t.k == T_MINUS;
		advance(p);
		if (!(t = i_term(p, &open)))
			return NULL;
		vec_push(p->a, &v, minus ? neg(p->a, t, open) : t);
	}
	return mk_args(p->a, SYM_ADD, v.v, v.n);
}

static SymOp
cmp_op(TokKind k)
{
	switch (k) {
	case T_EQ: return SYM_EQ;
	case T_NE: return SYM_NE;
	case T_LT: return SYM_LT;
	case T_LE: return SYM_LE;
	case T_GT: return SYM_GT;
	case T_GE: return SYM_GE;
	default: return SYM_CALL;
	}
}

static SymExpr *
i_expr(Parser *p)
{
	SymExpr *l = i_arith(p), *r;
	SymOp op;

	if (!l || (op = cmp_op(p->t.k)) == SYM_CALL)
		return l;
	advance(p);
	if (!(r = i_arith(p)))
		return NULL;
	if (cmp_op(p->t.k) != SYM_CALL)
		return fail(p, p->t.pos, "chained comparisons are not supported");
	return mk2(p->a, op, l, r);
}

SymExpr *
sym_parse_infix(Arena *a, const char *label, const char *s, size_t len, Diag *d)
{
	Parser p;

	parser_init(&p, a, label, s, len, d);
	return finish(&p, i_expr(&p));
}

/* ---- printer ---- */

typedef struct {
	char *s;
	size_t n, cap;
} Buf;

static void
put(Buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			die("out of memory");
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

static void
puts_(Buf *b, const char *s)
{
	put(b, s, strlen(s));
}

static void
put_int(Buf *b, int64_t v)
{
	char tmp[32];
	snprintf(tmp, sizeof tmp, "%lld", (long long)v);
	puts_(b, tmp);
}

/* Shortest digits that read back to f, laid out like Python's repr. */
static void
put_float(Buf *b, double f)
{
	char tmp[64];
	int prec, exp10;

	for (prec = 1; prec < 17; prec++) {
		snprintf(tmp, sizeof tmp, "%.*e", prec - 1, f);
		if (strtod(tmp, NULL) == f)
			break;
	}
	snprintf(tmp, sizeof tmp, "%.*e", prec - 1, f);
	exp10 = atoi(strchr(tmp, 'e') + 1);
	if (exp10 >= -4 && exp10 < 16) {
		int frac = prec - 1 - exp10;
		snprintf(tmp, sizeof tmp, "%.*f", frac > 0 ? frac : 0, f);
	}
	if (!strpbrk(tmp, ".enr"))   /* "nan"/"inf" only from hand-built trees */
		strcat(tmp, ".0");
	puts_(b, tmp);
}

static int
is_ident(const char *s)
{
	if (!is_alpha(*s))
		return 0;
	for (s++; *s; s++)
		if (!is_alpha(*s) && !is_digit(*s))
			return 0;
	return 1;
}

static void
put_quoted(Buf *b, const char *s)
{
	char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';

	put(b, &q, 1);
	for (; *s; s++) {
		if (*s == '\\' || *s == q)
			put(b, "\\", 1), put(b, s, 1);
		else if (*s == '\n')
			puts_(b, "\\n");
		else if (*s == '\t')
			puts_(b, "\\t");
		else if (*s == '\r')
			puts_(b, "\\r");
		else
			put(b, s, 1);
	}
	put(b, &q, 1);
}

/* Binding strength of a printed node, loosest first. */
enum { PR_CMP = 1, PR_ADD, PR_MUL, PR_POW, PR_ATOM };

static int
prec(const SymExpr *e)
{
	switch (e->op) {
	case SYM_INT:
		return e->i < 0 ? PR_MUL : PR_ATOM;
	case SYM_FLOAT:
		return signbit(e->f) ? PR_MUL : PR_ATOM;
	case SYM_RATIONAL:
		return e->den >= 0 ? PR_MUL : PR_ATOM;
	case SYM_ADD:
		return e->n >= 2 ? PR_ADD : PR_ATOM;
	case SYM_MUL:
		return e->n >= 2 ? PR_MUL : PR_ATOM;
	case SYM_POW:
		return e->n == 2 ? PR_POW : PR_ATOM;
	case SYM_LT: case SYM_LE: case SYM_GT: case SYM_GE:
		return e->n == 2 ? PR_CMP : PR_ATOM;
	default:
		return PR_ATOM;
	}
}

static int
is_number(const SymExpr *e)
{
	return e->op == SYM_INT || e->op == SYM_FLOAT || e->op == SYM_RATIONAL;
}

/* Pow(x, Integer(-1)): printed as "/x" inside a Mul. */
static int
is_recip(const SymExpr *e)
{
	return e->op == SYM_POW && e->n == 2 && e->args[1]->op == SYM_INT && e->args[1]->i == -1;
}

static void pr_raw(Buf *b, const SymExpr *e);

/* e, in parentheses when it binds looser than min. */
static void
pr(Buf *b, const SymExpr *e, int min)
{
	int paren = prec(e) < min;

	if (paren)
		put(b, "(", 1);
	pr_raw(b, e);
	if (paren)
		put(b, ")", 1);
}

/* The factors first, rest[0..n) of a Mul chain, n >= 1. */
static void
pr_chain(Buf *b, const SymExpr *first, SymExpr *const *rest, int n)
{
	int i = 0;

	if (first->op == SYM_INT && first->i == -1 && !is_number(rest[0])) {
		put(b, "-", 1);
		pr(b, rest[0], PR_POW);
		i = 1;
	} else if (prec(first) < PR_MUL || (first->op == SYM_MUL && prec(first) == PR_MUL)) {
		put(b, "(", 1);
		pr_raw(b, first);
		put(b, ")", 1);
	} else {
		pr_raw(b, first);
	}
	for (; i < n; i++) {
		const SymExpr *f = rest[i];
		/* "2/3" would read back as Rational(2, 3), so Mul(2, Pow(3, -1))
		 * prints "2*3**(-1)". */
		int fold = i == 0 && first->op == SYM_INT && f->n == 2 &&
		           f->args[0]->op == SYM_INT && f->args[0]->i >= 0;
		if (is_recip(f) && !fold) {
			put(b, "/", 1);
			pr(b, f->args[0], PR_POW);
		} else {
			put(b, "*", 1);
			pr(b, f, PR_POW);
		}
	}
}

static void
pr_add(Buf *b, const SymExpr *e)
{
	pr(b, e->args[0], PR_MUL);
	for (int i = 1; i < e->n; i++) {
		const SymExpr *t = e->args[i];
		const SymExpr *c = t->op == SYM_MUL && t->n >= 2 ? t->args[0] : NULL;
		if (t->op == SYM_INT && t->i < 0 && t->i != INT64_MIN) {
			puts_(b, " - ");
			put_int(b, -t->i);
		} else if (t->op == SYM_FLOAT && signbit(t->f)) {
			puts_(b, " - ");
			put_float(b, -t->f);
		} else if (t->op == SYM_RATIONAL && t->den >= 0 && t->i < 0 && t->i != INT64_MIN) {
			puts_(b, " - ");
			put_int(b, -t->i);
			put(b, "/", 1);
			put_int(b, t->den);
		} else if (c && c->op == SYM_INT && c->i < 0 && c->i != INT64_MIN) {
			SymExpr k = {.op = SYM_INT, .i = c->i == -1 ? 1 : -c->i};
			puts_(b, " - ");
			if (c->i != -1 || is_number(t->args[1]))
				pr_chain(b, &k, t->args + 1, t->n - 1);
			else if (t->n == 2)
				pr(b, t->args[1], PR_POW);
			else
				pr_chain(b, t->args[1], t->args + 2, t->n - 2);
		} else {
			puts_(b, " + ");
			pr(b, t, PR_MUL);
		}
	}
}

static void
pr_call(Buf *b, const char *name, const SymExpr *e)
{
	puts_(b, name);
	put(b, "(", 1);
	for (int i = 0; i < e->n; i++) {
		if (i)
			puts_(b, ", ");
		pr(b, e->args[i], PR_CMP);
	}
	put(b, ")", 1);
}

static void
pr_raw(Buf *b, const SymExpr *e)
{
	static const char *const cmp_text[] = {
		[SYM_LT] = " < ", [SYM_LE] = " <= ", [SYM_GT] = " > ", [SYM_GE] = " >= ",
	};

	switch (e->op) {
	case SYM_INT:
		put_int(b, e->i);
		return;
	case SYM_FLOAT:
		put_float(b, e->f);
		return;
	case SYM_RATIONAL:
		if (e->den < 0)
			puts_(b, "Rational(");
		put_int(b, e->i);
		puts_(b, e->den < 0 ? ", " : "/");
		put_int(b, e->den);
		if (e->den < 0)
			put(b, ")", 1);
		return;
	case SYM_SYMBOL: {
		const char *name = e->name ? e->name : "";
		if (is_ident(name) && strcmp(name, "True") && strcmp(name, "False")) {
			puts_(b, name);
		} else {
			puts_(b, "Symbol(");
			put_quoted(b, name);
			put(b, ")", 1);
		}
		return;
	}
	case SYM_TRUE:
		puts_(b, "True");
		return;
	case SYM_FALSE:
		puts_(b, "False");
		return;
	case SYM_CALL:
		pr_call(b, e->name ? e->name : "", e);
		return;
	default:
		break;
	}
	switch (prec(e) == PR_ATOM && e->op != SYM_FLOORDIV ? SYM_CALL : e->op) {
	case SYM_ADD:
		pr_add(b, e);
		return;
	case SYM_MUL:
		pr_chain(b, e->args[0], e->args + 1, e->n - 1);
		return;
	case SYM_POW:
		pr(b, e->args[0], PR_ATOM);
		puts_(b, "**");
		pr(b, e->args[1], PR_POW);
		return;
	case SYM_FLOORDIV:
		if (e->n != 2)
			break;
		put(b, "(", 1);
		pr(b, e->args[0], PR_POW);
		puts_(b, "//");
		pr(b, e->args[1], PR_POW);
		put(b, ")", 1);
		return;
	case SYM_LT: case SYM_LE: case SYM_GT: case SYM_GE:
		pr(b, e->args[0], PR_ADD);
		puts_(b, cmp_text[e->op]);
		pr(b, e->args[1], PR_ADD);
		return;
	default:
		break;
	}
	pr_call(b, op_info[e->op].name, e);
}

char *
sym_print(Arena *a, const SymExpr *e)
{
	Buf b = {0};
	char *s;

	put(&b, "", 0);
	if (e)
		pr(&b, e, PR_CMP);
	s = arena_strndup(a, b.s, b.n);
	free(b.s);
	return s;
}
