/* irtext.c: the text form of a Program (docs/text-graph.md) into the IR.
 *
 * The text is read line by line.  Sections (program header, symbols,
 * inputs, outputs, samples) come before the main graph in the file but
 * name its values, so the reader only remembers where each section starts,
 * reads the graph, and then goes back to them.  A value is declared where
 * it is defined (a graph's input list, a node's outputs) with its type,
 * and every later name resolves to it (ir_lookup: this graph, then the
 * enclosing ones).  The kind of an argument is inferred from its spelling
 * (`2` int, `2.0` float, `[a, None]` optional tensors...) because the text
 * keeps no kinds; docs/text-graph.md lists the rules.
 *
 * Weights and sample tensors get arena bytes: the values written after
 * `=`, else a deterministic fill, so a text graph converts the same way on
 * every machine.  Errors are one message "file:line:col: what". */
#include "read/read.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int parse_arg(Lex *L, Graph *g, Arg *out);
static int parse_graph_body(Lex *L, Graph *g);

/* ---- lines and characters ---- */

static int
err(Lex *L, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int
err(Lex *L, const char *at, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = arena_vprintf(L->a, fmt, ap);
	va_end(ap);
	if (!at || at < L->bol || at > L->eol)
		at = L->p;
	return diag_report(L->d, YE_TEXT_GRAPH, &(DiagAt){.file = L->label, .line = (unsigned)L->line, .column = (unsigned)(at - L->bol) + 1}, "%s", msg);
}

/* Puts L at the start of the line beginning at s. */
static void
set_line(Lex *L, const char *s)
{
	L->bol = L->p = s;
	L->eol = memchr(s, '\n', (size_t)(L->end - s));
	if (!L->eol)
		L->eol = L->end;
}

static int
at_eof(const Lex *L)
{
	return L->bol >= L->end;
}

static void
next_line(Lex *L)
{
	if (L->eol < L->end) {
		set_line(L, L->eol + 1);
		L->line++;
	} else {
		L->bol = L->p = L->eol = L->end;
	}
}

static void
skip_ws(Lex *L)
{
	while (L->p < L->eol && (*L->p == ' ' || *L->p == '\t' || *L->p == '\r'))
		L->p++;
}

static int
at_line_end(Lex *L)
{
	skip_ws(L);
	return L->p >= L->eol;
}

/* 1 when the current line is blank or a comment (first non-blank '#'). */
static int
line_is_empty(Lex *L)
{
	const char *q = L->bol;

	while (q < L->eol && (*q == ' ' || *q == '\t' || *q == '\r'))
		q++;
	return q >= L->eol || *q == '#';
}

/* 1 when the line starts with "===": the end of the graph text. */
static int
line_is_stop(const Lex *L)
{
	return L->eol - L->bol >= 3 && memcmp(L->bol, "===", 3) == 0;
}

/* Skips blank and comment lines; 0 at the end of the graph text. */
static int
skip_empty_lines(Lex *L)
{
	while (!at_eof(L) && !line_is_stop(L) && line_is_empty(L))
		next_line(L);
	return !at_eof(L) && !line_is_stop(L);
}

static int
indent_of(const Lex *L)
{
	int n = 0;

	while (L->bol + n < L->eol && L->bol[n] == ' ')
		n++;
	return n;
}

/* Consumes s when the text at the cursor (after blanks) starts with it. */
static int
accept(Lex *L, const char *s)
{
	size_t n = strlen(s);

	skip_ws(L);
	if ((size_t)(L->eol - L->p) >= n && memcmp(L->p, s, n) == 0) {
		L->p += n;
		return 1;
	}
	return 0;
}

static int
expect(Lex *L, const char *s, const char *what)
{
	if (accept(L, s))
		return 0;
	return err(L, L->p, "expected '%s' %s", s, what);
}

static int
is_ident_char(int c, int first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9');
}

/* An identifier ([A-Za-z_][A-Za-z0-9_]*, plus '.' when dots is set), or NULL. */
static const char *
ident(Lex *L, int dots)
{
	const char *s;

	skip_ws(L);
	s = L->p;
	if (s >= L->eol || !is_ident_char((unsigned char)*s, 1))
		return NULL;
	while (L->p < L->eol && (is_ident_char((unsigned char)*L->p, 0) || (dots && *L->p == '.')))
		L->p++;
	return arena_strndup(L->a, s, (size_t)(L->p - s));
}

/* The text up to (not including) the first of stops at bracket depth 0, trimmed. */
static const char *
span_until(Lex *L, const char *stops, const char **start)
{
	int depth = 0;
	const char *s, *e;

	skip_ws(L);
	s = L->p;
	for (; L->p < L->eol; L->p++) {
		char c = *L->p;
		if (depth == 0 && strchr(stops, c))
			break;
		if (c == '(' || c == '[')
			depth++;
		else if ((c == ')' || c == ']') && depth > 0)
			depth--;
	}
	for (e = L->p; e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'); e--)
		;
	if (start)
		*start = s;
	return arena_strndup(L->a, s, (size_t)(e - s));
}

/* A number token: [-+0-9A-Za-z.] run (covers 1e-05, -inf, nan). */
static const char *
number_token(Lex *L, const char **start)
{
	const char *s;

	skip_ws(L);
	s = L->p;
	if (L->p < L->eol && (*L->p == '-' || *L->p == '+'))
		L->p++;
	while (L->p < L->eol && (is_ident_char((unsigned char)*L->p, 0) || *L->p == '.' ||
	                         ((*L->p == '-' || *L->p == '+') && (L->p[-1] == 'e' || L->p[-1] == 'E'))))
		L->p++;
	*start = s;
	return arena_strndup(L->a, s, (size_t)(L->p - s));
}

/* Parses tok as an integer (1) or a float (2); 0 when it is neither. */
static int
number_value(const char *tok, int64_t *i, double *f)
{
	char *endp;
	const char *q = tok + (*tok == '-' || *tok == '+');

	if (*q && strspn(q, "0123456789") == strlen(q)) {
		errno = 0;
		*i = strtoll(tok, &endp, 10);
		if (errno == 0 && !*endp)
			return 1;
	}
	if (!*tok)
		return 0;
	errno = 0;
	*f = strtod(tok, &endp);
	return *endp == 0 ? 2 : 0;
}

static int
parse_int(Lex *L, int64_t *out, const char *what)
{
	const char *s, *tok = number_token(L, &s);
	double f;

	if (number_value(tok, out, &f) != 1)
		return err(L, s, "expected an integer %s", what);
	return 0;
}

static int
parse_number(Lex *L, double *out, const char *what)
{
	const char *s, *tok = number_token(L, &s);
	int64_t i;
	int k = number_value(tok, &i, out);

	if (k == 1)
		*out = (double)i;
	else if (k != 2)
		return err(L, s, "expected a number %s, not '%s'", what, tok);
	return 0;
}

/* ---- growing arrays (capacity doubles at powers of two, as ir_new_value) ---- */

static void *
grow(Arena *a, void *arr, int n, size_t elem)
{
	void *na;

	if (n && (n & (n - 1)))
		return arr;
	na = arena_alloc(a, elem * (size_t)(n ? n * 2 : 1));
	if (n)
		memcpy(na, arr, elem * (size_t)n);
	return na;
}

#define PUSH(a, arr, n, val) ((arr) = grow((a), (arr), (n), sizeof *(arr)), (arr)[(n)++] = (val))

/* ---- types ---- */

static SymExpr *
parse_expr(Lex *L, const char *at, const char *s)
{
	const char *label = arena_printf(L->a, "%s:%d:%d: expression '%s'", L->label, L->line,
	                                 (int)(at - L->bol) + 1, s);

	return sym_parse_infix(L->a, label, s, strlen(s), L->d);
}

/* "float32[2,s77]", "SymInt(s0)", "SymBool", "object FQN", "token" into t. */
static int
parse_type(Lex *L, Value *t)
{
	const char *at, *s, *name;
	DType dt;

	skip_ws(L);
	at = L->p;
	if (!(name = ident(L, 0)))
		return err(L, at, "expected a type (float32[2,3], SymInt, ...)");
	if (strcmp(name, "SymInt") == 0 || strcmp(name, "SymBool") == 0 || strcmp(name, "SymFloat") == 0) {
		t->kind = name[3] == 'I' ? VAL_SYM_INT : name[3] == 'B' ? VAL_SYM_BOOL : VAL_SYM_FLOAT;
		if (L->p < L->eol && *L->p == '(') {
			L->p++;
			s = span_until(L, ")", &at);
			if (expect(L, ")", "after the symbolic expression"))
				return DIAG_INPUT;
			if (!(t->expr = parse_expr(L, at, s)))
				return DIAG_INPUT;
		}
		return 0;
	}
	if (strcmp(name, "object") == 0) {
		t->kind = VAL_CUSTOM_OBJ;
		if (!(t->class_fqn = ident(L, 1)))
			return err(L, L->p, "expected a class name after 'object'");
		return 0;
	}
	if (strcmp(name, "token") == 0) {
		t->kind = VAL_TOKEN;
		return 0;
	}
	if ((dt = dtype_from_name(name)) == DT_UNKNOWN)
		return err(L, at, "unknown dtype '%s'", name);
	t->kind = VAL_TENSOR;
	t->dtype = dt;
	if (L->p >= L->eol || *L->p != '[')
		return err(L, L->p, "expected '[' and the dims after '%s'", name);
	L->p++;
	t->dims = ARENA_ARRAY(L->a, Dim, 1);
	t->rank = 0;
	skip_ws(L);
	if (accept(L, "]"))
		return 0;
	for (;;) {
		Dim dim = {0};
		int64_t i;
		double f;
		s = span_until(L, ",])", &at);
		if (!*s)
			return err(L, at, "expected a dim");
		if (number_value(s, &i, &f) == 1) {
			if (i < 0)
				return err(L, at, "negative dim %lld", (long long)i);
			dim.v = i;
		} else {
			if (!(dim.e = parse_expr(L, at, s)))
				return DIAG_INPUT;
			dim.v = -1;
			if (dim.e->op == SYM_INT)
				dim.v = dim.e->i, dim.e = NULL;
		}
		PUSH(L->a, t->dims, t->rank, dim);
		if (accept(L, "]"))
			return 0;
		if (expect(L, ",", "or ']' between dims"))
			return DIAG_INPUT;
	}
}

/* A new value of g named name, typed as t; an error when g has it already. */
static Value *
declare(Lex *L, Graph *g, const char *at, const char *name, const Value *t)
{
	Value *v;

	if (strmap_get(g->index, name)) {
		err(L, at, "value '%s' is defined twice", name);
		return NULL;
	}
	if (g->nvalue >= MAX_VALUES) {
		err(L, at, "more than %d values", MAX_VALUES);
		return NULL;
	}
	v = ir_new_value(L->a, g, name, t->kind);
	v->dtype = t->dtype;
	v->rank = t->rank;
	v->dims = t->dims;
	v->expr = t->expr;
	v->class_fqn = t->class_fqn;
	return v;
}

static ArgKind
ref_kind(const Value *v)
{
	switch (v->kind) {
	case VAL_SYM_INT: return ARG_SYM_INT;
	case VAL_SYM_BOOL: return ARG_SYM_BOOL;
	case VAL_SYM_FLOAT: return ARG_SYM_FLOAT;
	case VAL_CUSTOM_OBJ: return ARG_CUSTOM_OBJ;
	default: return ARG_TENSOR;
	}
}

/* ---- arguments ---- */

/* The kind a list of items takes (docs/text-graph.md, "Lists"). */
static int
list_kind(Lex *L, const char *at, Arg *g)
{
	int cnt[ARG_KIND_COUNT] = {0};

	for (int i = 0; i < g->n; i++)
		cnt[g->u.list[i].kind]++;
	if (g->n == 0 || cnt[ARG_INT] == g->n)
		g->kind = ARG_INTS;
	else if (cnt[ARG_INT] + cnt[ARG_SYM_INT] == g->n)
		g->kind = ARG_SYM_INTS;
	else if (cnt[ARG_INT] + cnt[ARG_FLOAT] == g->n) {
		g->kind = ARG_FLOATS;
		for (int i = 0; i < g->n; i++)
			if (g->u.list[i].kind == ARG_INT)
				g->u.list[i] = (Arg){.kind = ARG_FLOAT, .u.f = (double)g->u.list[i].u.i};
	} else if (cnt[ARG_FLOAT] + cnt[ARG_SYM_FLOAT] + cnt[ARG_INT] == g->n && cnt[ARG_SYM_FLOAT])
		g->kind = ARG_SYM_FLOATS;
	else if (cnt[ARG_BOOL] == g->n)
		g->kind = ARG_BOOLS;
	else if (cnt[ARG_BOOL] + cnt[ARG_SYM_BOOL] == g->n)
		g->kind = ARG_SYM_BOOLS;
	else if (cnt[ARG_STRING] == g->n)
		g->kind = ARG_STRINGS;
	else if (cnt[ARG_TENSOR] == g->n)
		g->kind = ARG_TENSORS;
	else if (cnt[ARG_TENSOR] + cnt[ARG_NONE] == g->n)
		g->kind = ARG_OPT_TENSORS;
	else if (cnt[ARG_INTS] == g->n)
		g->kind = ARG_INT_LISTS;
	else if (cnt[ARG_FLOATS] + cnt[ARG_INTS] == g->n)
		g->kind = ARG_FLOAT_LISTS;
	else if (cnt[ARG_TENSORS] == g->n)
		g->kind = ARG_NESTED_TENSORS;
	else
		return err(L, at, "a list mixes items of kinds torch never puts in one list");
	return 0;
}

static int
parse_list(Lex *L, Graph *g, Arg *out, const char *at)
{
	out->n = 0;
	out->u.list = ARENA_ARRAY(L->a, Arg, 1);
	if (accept(L, "]"))
		return list_kind(L, at, out);
	for (;;) {
		Arg item;
		if (parse_arg(L, g, &item))
			return DIAG_INPUT;
		PUSH(L->a, out->u.list, out->n, item);
		if (accept(L, "]"))
			return list_kind(L, at, out);
		if (expect(L, ",", "or ']' in a list"))
			return DIAG_INPUT;
	}
}

/* A quoted string: up to the next quote that closes it (followed by a
 * delimiter), since --print does not escape quotes inside. */
static const char *
quoted(Lex *L)
{
	const char *s = ++L->p, *q;

	for (q = s; q < L->eol; q++) {
		const char *r = q + 1;
		if (*q != '\'')
			continue;
		while (r < L->eol && *r == ' ')
			r++;
		if (r >= L->eol || strchr(",)]}:", *r)) {
			L->p = q + 1;
			return arena_strndup(L->a, s, (size_t)(q - s));
		}
	}
	err(L, s - 1, "unterminated string");
	return NULL;
}

static int
parse_dict(Lex *L, Graph *g, Arg *out)
{
	out->kind = ARG_STRING_TO_ARG;
	out->n = 0;
	out->u.list = ARENA_ARRAY(L->a, Arg, 1);
	if (accept(L, "}"))
		return 0;
	for (;;) {
		const char *key;
		Arg item;
		skip_ws(L);
		if (L->p >= L->eol || *L->p != '\'')
			return err(L, L->p, "expected a quoted key in a dict");
		if (!(key = quoted(L)) || expect(L, ":", "after a dict key") || parse_arg(L, g, &item))
			return DIAG_INPUT;
		item.key = key;
		PUSH(L->a, out->u.list, out->n, item);
		if (accept(L, "}"))
			return 0;
		if (expect(L, ",", "or '}' in a dict"))
			return DIAG_INPUT;
	}
}

/* prefix:REST arguments: op:, device:, dtype:, memory_format:, layout:, graph:. */
static int
parse_tagged(Lex *L, Graph *g, const char *tag, const char *at, Arg *out)
{
	const char *s = L->p, *name;
	int64_t i;
	DType dt;

	while (L->p < L->eol && !strchr(",)]} \t\r", *L->p))
		L->p++;
	name = arena_strndup(L->a, s, (size_t)(L->p - s));
	if (!*name)
		return err(L, s, "expected a value after '%s:'", tag);
	if (strcmp(tag, "op") == 0 || strcmp(tag, "device") == 0) {
		out->kind = tag[0] == 'o' ? ARG_OPERATOR : ARG_DEVICE;
		out->u.s = name;
		return 0;
	}
	if (strcmp(tag, "dtype") == 0) {
		if ((dt = dtype_from_name(name)) == DT_UNKNOWN)
			return err(L, s, "unknown dtype '%s'", name);
		out->kind = ARG_SCALAR_TYPE;
		out->u.i = dtype_torch(dt);
		return 0;
	}
	if (strcmp(tag, "memory_format") == 0 || strcmp(tag, "layout") == 0) {
		double f;
		if (number_value(name, &i, &f) != 1)
			return err(L, s, "expected an integer after '%s:'", tag);
		out->kind = tag[0] == 'm' ? ARG_MEMORY_FORMAT : ARG_LAYOUT;
		out->u.i = i;
		return 0;
	}
	if (strcmp(tag, "graph") == 0) {
		/* filled when its block follows the node (parse_graph_body) */
		Graph *sub = ARENA_NEW(L->a, Graph);
		if (!g)
			return err(L, at, "a subgraph argument outside a node");
		sub->name = name;
		sub->parent = g;
		out->kind = ARG_GRAPH;
		out->u.g = sub;
		return 0;
	}
	return err(L, at, "unknown argument prefix '%s:'", tag);
}

/* One argument; g resolves names (NULL: constants only). */
static int
parse_arg(Lex *L, Graph *g, Arg *out)
{
	const char *at, *name;
	Value *v;

	memset(out, 0, sizeof *out);
	skip_ws(L);
	at = L->p;
	if (at >= L->eol)
		return err(L, at, "expected an argument");
	switch (*at) {
	case '[':
		L->p++;
		return parse_list(L, g, out, at);
	case '{':
		L->p++;
		return parse_dict(L, g, out);
	case '\'':
		out->kind = ARG_STRING;
		return (out->u.s = quoted(L)) ? 0 : DIAG_INPUT;
	default:
		break;
	}
	if ((*at >= '0' && *at <= '9') || *at == '-' || *at == '+' || *at == '.') {
		const char *s, *tok = number_token(L, &s);
		int k = number_value(tok, &out->u.i, &out->u.f);
		if (!k)
			return err(L, s, "bad number '%s'", tok);
		out->kind = k == 1 ? ARG_INT : ARG_FLOAT;
		return 0;
	}
	if (!(name = ident(L, 0)))
		return err(L, at, "unexpected '%c' where an argument should be", *at);
	if (strcmp(name, "None") == 0) {
		out->kind = ARG_NONE;
		return 0;
	}
	if (strcmp(name, "True") == 0 || strcmp(name, "False") == 0) {
		out->kind = ARG_BOOL;
		out->u.i = name[0] == 'T';
		return 0;
	}
	if (strcmp(name, "inf") == 0 || strcmp(name, "nan") == 0) {
		out->kind = ARG_FLOAT;
		out->u.f = name[0] == 'i' ? INFINITY : NAN;
		return 0;
	}
	if (strcmp(name, "complex") == 0 && L->p < L->eol && *L->p == '(') {
		L->p++;
		out->kind = ARG_COMPLEX;
		if (parse_number(L, &out->u.c[0], "(real part)") || expect(L, ",", "in complex(re, im)") ||
		    parse_number(L, &out->u.c[1], "(imaginary part)") || expect(L, ")", "closing complex("))
			return DIAG_INPUT;
		return 0;
	}
	if (L->p + 1 < L->eol && *L->p == ':' && L->p[1] != ' ') {   /* "name: type" is no prefix */
		L->p++;
		return parse_tagged(L, g, name, at, out);
	}
	if (!g)
		return err(L, at, "'%s' names a value where only a constant can be", name);
	if (!(v = ir_lookup(g, name)))
		return err(L, at, "unknown value '%s' (not defined above, nor an input of this graph or an enclosing one)", name);
	out->kind = ref_kind(v);
	out->u.v = v;
	return 0;
}

/* ---- nodes and graphs ---- */

/* One output item: "name: type", "_", "(item, ...)", or a constant. */
static int
parse_out(Lex *L, Graph *g, Node *n, Arg *out)
{
	const char *at, *name, *save;
	Value t = {0}, *v;

	memset(out, 0, sizeof *out);
	skip_ws(L);
	at = L->p;
	if (at < L->eol && *at == '(') {
		L->p++;
		out->u.list = ARENA_ARRAY(L->a, Arg, 1);
		for (;;) {
			Arg item;
			if (parse_out(L, g, n, &item))
				return DIAG_INPUT;
			PUSH(L->a, out->u.list, out->n, item);
			if (accept(L, ")"))
				break;
			if (expect(L, ",", "or ')' in a list of outputs"))
				return DIAG_INPUT;
		}
		return list_kind(L, at, out);
	}
	save = L->p;
	if ((name = ident(L, 0))) {
		if (strcmp(name, "_") == 0) {
			out->kind = ARG_NONE;
			return 0;
		}
		if (accept(L, ":")) {
			if (parse_type(L, &t) || !(v = declare(L, g, at, name, &t)))
				return DIAG_INPUT;
			v->def = n;
			out->kind = ref_kind(v);
			out->u.v = v;
			return 0;
		}
		L->p = save;
	}
	return parse_arg(L, NULL, out);
}

/* "torch.ops." + op, except for Python operators (_operator.mul, math.*). */
static const char *
full_target(Arena *a, const char *op)
{
	if (strncmp(op, "_operator.", 10) == 0 || strncmp(op, "math.", 5) == 0 ||
	    strncmp(op, "builtins.", 9) == 0 || strncmp(op, "torch.", 6) == 0)
		return op;
	return arena_printf(a, "torch.ops.%s", op);
}

/* torch's name for a node without a value: "aten._assert_scalar.default" ->
 * "_assert_scalar_default", then _1, _2 ... as torch numbers repeats. */
static const char *
node_name(Lex *L, Graph *g, StrMap *used, const Node *n)
{
	const Arg *o = n->nout ? &n->out[0] : NULL;
	char *s;
	const char *name;

	if (o && o->kind != ARG_NONE && o->kind >= 0 && (o->kind == ARG_TENSOR || o->kind == ARG_SYM_INT ||
	                                                  o->kind == ARG_SYM_BOOL || o->kind == ARG_SYM_FLOAT))
		return o->u.v->name;
	if (o && (o->kind == ARG_TENSORS || o->kind == ARG_OPT_TENSORS) && o->n && o->u.list[0].kind == ARG_TENSOR)
		return o->u.list[0].u.v->name;
	s = arena_strdup(L->a, strncmp(n->op, "aten.", 5) == 0 ? n->op + 5 : n->op);
	for (char *q = s; *q; q++)
		if (*q == '.')
			*q = '_';
	name = s;
	for (int k = 1; strmap_get(used, name) || strmap_get(g->index, name); k++)
		name = arena_printf(L->a, "%s_%d", s, k);
	strmap_put(used, name, (void *)name);
	return name;
}

static int
parse_node(Lex *L, Graph *g, StrMap *used, Node *n)
{
	const char *at;
	Arg o;

	n->graph = g;
	n->id = g->nnode;
	n->out = ARENA_ARRAY(L->a, Arg, 1);
	for (;;) {
		if (parse_out(L, g, n, &o))
			return DIAG_INPUT;
		PUSH(L->a, n->out, n->nout, o);
		if (accept(L, "="))
			break;
		if (expect(L, ",", "or '=' after an output"))
			return DIAG_INPUT;
	}
	if (n->nout == 1 && n->out[0].kind == ARG_NONE)
		n->nout = 0;   /* "_ = op(...)": a node without outputs */
	skip_ws(L);
	at = L->p;
	if (!(n->op = ident(L, 1)))
		return err(L, at, "expected the node's target (aten.add.Tensor, ...)");
	n->target = full_target(L->a, n->op);
	if (expect(L, "(", "after the target"))
		return DIAG_INPUT;
	n->in = ARENA_ARRAY(L->a, NamedArg, 1);
	if (!accept(L, ")")) {
		for (;;) {
			NamedArg na = {.name = "", .kind = 1};
			const char *save = L->p, *name = ident(L, 0);
			if (name && L->p < L->eol && *L->p == '=' && (L->p + 1 >= L->eol || L->p[1] != '=')) {
				L->p++;
				na.name = name;
				na.kind = 2;
			} else {
				L->p = save;
			}
			if (parse_arg(L, g, &na.arg))
				return DIAG_INPUT;
			PUSH(L->a, n->in, n->nin, na);
			if (accept(L, ")"))
				break;
			if (expect(L, ",", "or ')' between arguments"))
				return DIAG_INPUT;
		}
	}
	if (accept(L, "@")) {   /* the node's own name (IR_PRINT_NAMES) */
		if (!(n->name = ident(L, 0)))
			return err(L, L->p, "expected the node's name after '@'");
	}
	if (accept(L, "#")) {
		skip_ws(L);
		const char *e = L->eol;
		while (e > L->p && e[-1] == '\r')
			e--;
		n->frame = arena_strndup(L->a, L->p, (size_t)(e - L->p));
		L->p = L->eol;
	}
	if (!at_line_end(L))
		return err(L, L->p, "unexpected text after the node's arguments");
	if (n->name)
		strmap_put(used, n->name, (void *)n->name);
	else
		n->name = node_name(L, g, used, n);
	return 0;
}

/* "NAME(decl, ...) {" after "graph": declares g's inputs. */
static int
parse_graph_head(Lex *L, Graph *g)
{
	const char *at;

	g->index = strmap_new(L->a, 64);
	g->inputs = ARENA_ARRAY(L->a, Arg, 1);
	g->nodes = ARENA_ARRAY(L->a, Node *, 1);
	g->outputs = ARENA_ARRAY(L->a, Arg, 1);
	if (expect(L, "(", "after the graph's name"))
		return DIAG_INPUT;
	if (!accept(L, ")")) {
		for (;;) {
			Arg in;
			const char *save;
			skip_ws(L);
			at = save = L->p;
			const char *name = ident(L, 0);
			Value t = {0}, *v;
			if (name && accept(L, ":")) {
				if (parse_type(L, &t) || !(v = declare(L, g, at, name, &t)))
					return DIAG_INPUT;
				in = (Arg){.kind = ref_kind(v), .u.v = v};
			} else {
				L->p = save;
				if (parse_arg(L, NULL, &in))
					return DIAG_INPUT;
			}
			PUSH(L->a, g->inputs, g->ninput, in);
			if (accept(L, ")"))
				break;
			if (expect(L, ",", "or ')' between graph inputs"))
				return DIAG_INPUT;
		}
	}
	if (expect(L, "{", "opening the graph's body") || !at_line_end(L))
		return L->d->code ? DIAG_INPUT : err(L, L->p, "unexpected text after '{'");
	return 0;
}

/* 1 when the line (after its indent) is "graph NAME(": a subgraph block. */
static int
line_is_graph(Lex *L)
{
	const char *save = L->p;
	int yes = accept(L, "graph ") && ident(L, 0) && L->p < L->eol && *L->p == '(';

	L->p = save;
	return yes;
}

/* The subgraph block for the node n: its graph: argument of that name. */
static int
parse_subgraph(Lex *L, Graph *g, Node *n)
{
	const char *at, *name;
	Graph *sub = NULL;

	accept(L, "graph ");
	skip_ws(L);
	at = L->p;
	name = ident(L, 0);
	for (int i = 0; n && i < n->nin && !sub; i++)
		if (n->in[i].arg.kind == ARG_GRAPH && !n->in[i].arg.u.g->index &&
		    strcmp(n->in[i].arg.u.g->name, name) == 0)
			sub = n->in[i].arg.u.g;
	if (!sub)
		return err(L, at, "graph '%s' follows a node that has no argument graph:%s", name, name);
	if (L->depth >= MAX_DEPTH)
		return err(L, at, "subgraphs nested more than %d deep", MAX_DEPTH);
	sub->parent = g;
	L->depth++;
	if (parse_graph_head(L, sub) || parse_graph_body(L, sub))
		return DIAG_INPUT;
	L->depth--;
	return 0;
}

/* The node lines, subgraph blocks and "return (...)" up to "}". */
static int
parse_graph_body(Lex *L, Graph *g)
{
	StrMap *used = strmap_new(L->a, 16);
	Node *last = NULL;
	int returned = 0;

	for (;;) {
		next_line(L);
		if (!skip_empty_lines(L))
			return err(L, L->p, "graph '%s' is not closed with '}'", g->name[0] ? g->name : "main");
		skip_ws(L);
		if (accept(L, "}")) {
			if (!at_line_end(L))
				return err(L, L->p, "unexpected text after '}'");
			if (!returned)
				return err(L, L->bol, "graph '%s' ends without 'return (...)'", g->name[0] ? g->name : "main");
			for (int i = 0; i < g->nnode; i++)
				for (int k = 0; k < g->nodes[i]->nin; k++)
					if (g->nodes[i]->in[k].arg.kind == ARG_GRAPH && !g->nodes[i]->in[k].arg.u.g->index) {
						L->p = L->bol;
						return err(L, L->bol, "node '%s' names graph:%s but no such graph block follows it",
						           g->nodes[i]->name, g->nodes[i]->in[k].arg.u.g->name);
					}
			return 0;
		}
		if (returned)
			return err(L, L->p, "text after 'return (...)': expected '}'");
		if (line_is_graph(L)) {
			if (parse_subgraph(L, g, last))
				return DIAG_INPUT;
			continue;
		}
		if (accept(L, "return (")) {
			if (!accept(L, ")")) {
				for (;;) {
					Arg o;
					if (parse_arg(L, g, &o))
						return DIAG_INPUT;
					PUSH(L->a, g->outputs, g->noutput, o);
					if (accept(L, ")"))
						break;
					if (expect(L, ",", "or ')' between returned values"))
						return DIAG_INPUT;
				}
			}
			if (!at_line_end(L))
				return err(L, L->p, "unexpected text after 'return (...)'");
			returned = 1;
			continue;
		}
		last = ARENA_NEW(L->a, Node);
		if (parse_node(L, g, used, last))
			return DIAG_INPUT;
		PUSH(L->a, g->nodes, g->nnode, last);
	}
}

/* ---- weights and samples ---- */

/* "= [v, ...]", "= fill(x)", "= arange(start[, step])", "= rand(seed)". */
static int
parse_fill(Lex *L, Fill *f)
{
	const char *at;
	const char *name;

	skip_ws(L);
	f->at = *L;
	at = L->p;
	f->vals = ARENA_ARRAY(L->a, double, 2);
	if (accept(L, "[")) {
		f->kind = FILL_LIST;
		f->n = 0;
		if (accept(L, "]"))
			return 0;
		for (;;) {
			double x;
			if (parse_number(L, &x, "in the values"))
				return DIAG_INPUT;
			if (f->n >= MAX_VALUES)
				return err(L, at, "more than %d values", MAX_VALUES);
			PUSH(L->a, f->vals, f->n, x);
			if (accept(L, "]"))
				return 0;
			if (expect(L, ",", "or ']' between values"))
				return DIAG_INPUT;
		}
	}
	if (!(name = ident(L, 0)) || !accept(L, "("))
		return err(L, at, "expected values: [v, ...], fill(x), arange(start, step) or rand(seed)");
	if (strcmp(name, "fill") == 0) {
		f->kind = FILL_CONST;
		return parse_number(L, &f->vals[0], "in fill(x)") || expect(L, ")", "closing fill(") ? DIAG_INPUT : 0;
	}
	if (strcmp(name, "arange") == 0) {
		f->kind = FILL_ARANGE;
		f->vals[1] = 1;
		if (parse_number(L, &f->vals[0], "in arange(start, step)"))
			return DIAG_INPUT;
		if (accept(L, ",") && parse_number(L, &f->vals[1], "in arange(start, step)"))
			return DIAG_INPUT;
		return expect(L, ")", "closing arange(");
	}
	if (strcmp(name, "rand") == 0) {
		int64_t s;
		f->kind = FILL_RAND;
		if (parse_int(L, &s, "in rand(seed)") || expect(L, ")", "closing rand("))
			return DIAG_INPUT;
		f->seed = (uint64_t)s;
		return 0;
	}
	return err(L, at, "unknown fill '%s': expected fill, arange or rand", name);
}

/* A 64-bit LCG; its top 24 bits are exact in float32, so the values are
 * the same on every machine. */
static uint32_t
lcg24(uint64_t *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(*state >> 40);
}

static int
put_elem(uint8_t *b, DType t, double x)
{
	switch (t) {
	case DT_FLOAT32: { float v = (float)x; memcpy(b, &v, 4); return 0; }
	case DT_FLOAT64: memcpy(b, &x, 8); return 0;
	case DT_FLOAT16: { uint16_t h = dtype_f16_bits((float)x); memcpy(b, &h, 2); return 0; }
	case DT_BFLOAT16: { uint16_t h = dtype_bf16_bits((float)x); memcpy(b, &h, 2); return 0; }
	case DT_BOOL: b[0] = x != 0; return 0;
	case DT_UINT8: b[0] = (uint8_t)(int64_t)x; return 0;
	case DT_INT8: { int8_t v = (int8_t)x; memcpy(b, &v, 1); return 0; }
	case DT_INT16: { int16_t v = (int16_t)x; memcpy(b, &v, 2); return 0; }
	case DT_UINT16: { uint16_t v = (uint16_t)(int64_t)x; memcpy(b, &v, 2); return 0; }
	case DT_INT32: { int32_t v = (int32_t)x; memcpy(b, &v, 4); return 0; }
	case DT_UINT32: { uint32_t v = (uint32_t)(int64_t)x; memcpy(b, &v, 4); return 0; }
	case DT_INT64: { int64_t v = (int64_t)x; memcpy(b, &v, 8); return 0; }
	case DT_UINT64: { uint64_t v = (uint64_t)x; memcpy(b, &v, 8); return 0; }
	default: return -1;
	}
}

static int
is_float(DType t)
{
	return t == DT_FLOAT32 || t == DT_FLOAT64 || t == DT_FLOAT16 || t == DT_BFLOAT16;
}

/* Fills count elements of type t at b. */
static int
fill_bytes(const Fill *f, DType t, uint8_t *b, int64_t count, const char *what)
{
	uint64_t state = f->seed * 0x9e3779b97f4a7c15ULL + 1;
	int size = dtype_size(t);

	if (f->kind == FILL_LIST && f->n != count) {
		Lex at = f->at;
		return err(&at, at.p, "%s has %lld elements but %d values are given", what, (long long)count, f->n);
	}
	for (int64_t i = 0; i < count; i++) {
		double x;
		switch (f->kind) {
		case FILL_LIST: x = f->vals[i]; break;
		case FILL_CONST: x = f->vals[0]; break;
		case FILL_ARANGE: x = f->vals[0] + (double)i * f->vals[1]; break;
		default: {
			uint32_t r = lcg24(&state);
			/* floats in [-1, 1); integers in [0, 4]; bools 0/1 */
			x = is_float(t) ? (double)r / 8388608.0 - 1.0 : t == DT_BOOL ? (double)(r & 1) : (double)(r % 5);
			break;
		}
		}
		if (put_elem(b + i * size, t, x)) {
			Lex at = f->at;
			return err(&at, at.p, "%s: cannot give values to a %s tensor", what, dtype_name(t));
		}
	}
	return 0;
}

/* A TensorData of v's (static) shape, contiguous, storage_bytes at least
 * its size (bytes > 0: the size --print showed). */
static TensorData *
make_tensor(Lex *L, const char *at, DType t, int rank, const int64_t *sizes, const int64_t *strides,
            int64_t offset, uint64_t bytes, const Fill *f, const char *what)
{
	TensorData *td = ARENA_NEW(L->a, TensorData);
	int64_t span = 1, numel = 1;
	int size = dtype_size(t);

	if (!size) {
		err(L, at, "%s: dtype %s has no element size", what, dtype_name(t));
		return NULL;
	}
	td->dtype = t;
	td->rank = rank;
	td->sizes = ARENA_ARRAY(L->a, int64_t, rank + 1);
	td->strides = ARENA_ARRAY(L->a, int64_t, rank + 1);
	td->offset = offset;
	for (int i = rank - 1; i >= 0; i--) {
		td->sizes[i] = sizes[i];
		if (strides && (strides[i] < 0 || strides[i] > MAX_VALUES)) {
			err(L, at, "%s: stride %lld is not in [0, %d]", what, (long long)strides[i], MAX_VALUES);
			return NULL;
		}
		td->strides[i] = strides ? strides[i] : (i == rank - 1 ? 1 : td->strides[i + 1] * sizes[i + 1]);
		if (sizes[i] > MAX_VALUES || numel * sizes[i] > MAX_VALUES) {
			err(L, at, "%s: more than %d elements", what, MAX_VALUES);
			return NULL;
		}
		numel *= sizes[i];
		if (sizes[i] == 0)
			span = 0;
		else if (span)
			span += (sizes[i] - 1) * td->strides[i];
	}
	if (offset < 0 || offset > MAX_VALUES) {
		err(L, at, "%s: storage offset %lld is not in [0, %d]", what, (long long)offset, MAX_VALUES);
		return NULL;
	}
	if (span)
		span += offset;
	if (bytes > MAX_STORAGE_BYTES || (uint64_t)span * (uint64_t)size > MAX_STORAGE_BYTES) {
		err(L, at, "%s: a storage of more than %llu bytes", what, (unsigned long long)MAX_STORAGE_BYTES);
		return NULL;
	}
	if (bytes && bytes < (uint64_t)span * (uint64_t)size) {
		err(L, at, "%s: %llu bytes are too few for %lld elements of %s", what, (unsigned long long)bytes,
		    (long long)span, dtype_name(t));
		return NULL;
	}
	td->storage_bytes = bytes ? bytes : (uint64_t)span * (uint64_t)size;
	td->storage = arena_alloc(L->a, td->storage_bytes + 1);
	td->entry = arena_printf(L->a, "%s:%d", L->label, L->line);
	if (tensor_is_contiguous(td) && offset == 0) {
		if (fill_bytes(f, t, (uint8_t *)td->storage,
		               f->kind == FILL_LIST ? numel : (int64_t)(td->storage_bytes / (uint64_t)size), what))
			return NULL;
	} else if (f->kind == FILL_LIST) {
		Lex fat = f->at;
		err(&fat, fat.p, "%s: values can only be given for a contiguous tensor", what);
		return NULL;
	}
	return td;
}

/* ---- sections ---- */

typedef struct Sections {
	Lex program, symbols, inputs, outputs, samples;
	int has_program, has_symbols, has_inputs, has_outputs, has_samples;
} Sections;

static int
parse_header(Lex *L, Program *p)
{
	while (next_line(L), skip_empty_lines(L) && indent_of(L) > 0) {
		skip_ws(L);
		if (accept(L, "container:")) {
			skip_ws(L);
			p->container = arena_strndup(L->a, L->p, (size_t)(L->eol - L->p));
			L->p = L->eol;
		} else if (accept(L, "schema ")) {
			int64_t major, minor;
			const char **vs = ARENA_ARRAY(L->a, const char *, 1);
			const char *s;
			int nv = 0;
			const char *at, *ver = number_token(L, &at);
			int pos = 0;
			if (sscanf(ver, "%" SCNd64 ".%" SCNd64 "%n", &major, &minor, &pos) != 2 || ver[pos])
				return err(L, at, "expected the schema version MAJOR.MINOR, not '%s'", ver);
			if (expect(L, ", torch ", "after the schema version"))
				return DIAG_INPUT;
			p->schema_major = (int)major;
			p->schema_minor = (int)minor;
			p->torch_version = span_until(L, ",", NULL);
			if (expect(L, ", verifiers", "after the torch version"))
				return DIAG_INPUT;
			while (!accept(L, ",")) {
				if (!(s = ident(L, 1)))
					return err(L, L->p, "expected a verifier name or ', aten opset N'");
				PUSH(L->a, vs, nv, s);
			}
			p->verifiers = vs;
			p->nverifier = nv;
			if (expect(L, "aten opset", "after the verifiers") || parse_int(L, &major, "(aten opset)"))
				return DIAG_INPUT;
			p->aten_opset = (int)major;
		} else if (accept(L, "forward(")) {
			const char **names = ARENA_ARRAY(L->a, const char *, 1);
			int n = 0;
			const char *s;
			if (!accept(L, ")")) {
				for (;;) {
					if (!(s = ident(L, 0)))
						return err(L, L->p, "expected an argument name in forward(...)");
					PUSH(L->a, names, n, s);
					if (accept(L, ")"))
						break;
					if (expect(L, ",", "between forward() argument names"))
						return DIAG_INPUT;
				}
			}
			p->forward_arg_names = names;
			p->nforward_arg = n;
		} else {
			return err(L, L->p, "unknown program line: expected 'container:', 'schema ...' or 'forward(...)'");
		}
		if (!at_line_end(L))
			return err(L, L->p, "unexpected text at the end of the line");
	}
	return 0;
}

static int
parse_symbols(Lex *L, Program *p)
{
	p->ranges = ARENA_ARRAY(L->a, RangeConstraint, 1);
	while (next_line(L), skip_empty_lines(L) && indent_of(L) > 0) {
		RangeConstraint r = {0};
		const char *at, *key;
		const char *in;
		skip_ws(L);
		at = L->p;
		in = NULL;
		for (const char *q = L->p; q + 5 <= L->eol; q++)
			if (memcmp(q, " in [", 5) == 0)
				in = q;
		if (!in)
			return err(L, at, "expected 'EXPR in [MIN, MAX]'");
		key = arena_strndup(L->a, at, (size_t)(in - at));
		if (!(r.expr = parse_expr(L, at, key)))
			return DIAG_INPUT;
		r.key = key;
		L->p = in + 5;
		if (accept(L, "-inf"))
			r.has_min = 0;
		else if (parse_int(L, &r.min, "(the minimum) or -inf"))
			return DIAG_INPUT;
		else
			r.has_min = 1;
		if (expect(L, ",", "between the minimum and the maximum"))
			return DIAG_INPUT;
		if (accept(L, "inf"))
			r.has_max = 0;
		else if (parse_int(L, &r.max, "(the maximum) or inf"))
			return DIAG_INPUT;
		else
			r.has_max = 1;
		if (expect(L, "]", "closing the range") || !at_line_end(L))
			return L->d->code ? DIAG_INPUT : err(L, L->p, "unexpected text after the range");
		PUSH(L->a, p->ranges, p->nrange, r);
	}
	return 0;
}

static int
same_type(const Value *a, const Value *b)
{
	if (a->kind != b->kind)
		return 0;
	if (a->kind == VAL_TENSOR) {
		if (a->dtype != b->dtype || a->rank != b->rank)
			return 0;
		for (int i = 0; i < a->rank; i++)
			if (a->dims[i].v != b->dims[i].v || !a->dims[i].e != !b->dims[i].e ||
			    (a->dims[i].e && !sym_equal(a->dims[i].e, b->dims[i].e)))
				return 0;
	}
	return 1;
}

/* Static sizes of v, or an error naming the symbolic dim. */
static int64_t *
static_sizes(Lex *L, const char *at, const Value *v)
{
	int64_t *s = ARENA_ARRAY(L->a, int64_t, v->rank + 1);

	for (int i = 0; i < v->rank; i++) {
		if (v->dims[i].e) {
			err(L, at, "weight '%s' has a symbolic dim %s: weights need static shapes", v->name,
			    sym_print(L->a, v->dims[i].e));
			return NULL;
		}
		s[i] = v->dims[i].v;
	}
	return s;
}

static const struct { const char *name; InputKind kind; } input_kinds[] = {
	{"user_input", IN_USER_INPUT}, {"parameter", IN_PARAMETER}, {"buffer", IN_BUFFER},
	{"tensor_constant", IN_TENSOR_CONSTANT}, {"custom_obj", IN_CUSTOM_OBJ}, {"token", IN_TOKEN},
	{"constant_input", IN_CONSTANT_INPUT},
};

/* "KIND ARG[: TYPE] [<- TARGET] [(not persistent)] [[ENTRY, N bytes]] [= VALUES]"
 * or "constant_input NAME = ARG"; the i-th describes graph input i. */
static int
parse_input_line(Lex *L, Program *p, int i, InputSpec *s)
{
	Graph *g = p->graph;
	const char *at = L->p, *kind = ident(L, 0), *argat;
	uint64_t bytes = 0;
	const char *entry = NULL;
	Fill f = {.kind = FILL_DEFAULT, .seed = (uint64_t)i};
	size_t k;
	Arg a;

	for (k = 0; kind && k < sizeof input_kinds / sizeof input_kinds[0]; k++)
		if (strcmp(kind, input_kinds[k].name) == 0)
			break;
	if (!kind || k == sizeof input_kinds / sizeof input_kinds[0])
		return err(L, at, "expected an input kind (user_input, parameter, buffer, tensor_constant, ...)");
	s->kind = input_kinds[k].kind;
	s->persistent = 1;
	if (i >= g->ninput)
		return err(L, at, "input %d is listed but graph main has %d inputs", i + 1, g->ninput);
	s->arg = &g->inputs[i];
	if (s->kind == IN_CONSTANT_INPUT) {
		if (!(s->target = ident(L, 1)) || expect(L, "=", "after the constant input's name"))
			return err(L, L->p, "expected 'constant_input NAME = VALUE'");
		return parse_arg(L, NULL, &s->value) || !at_line_end(L)
		       ? (L->d->code ? DIAG_INPUT : err(L, L->p, "unexpected text after the constant")) : 0;
	}
	skip_ws(L);
	argat = L->p;
	if (parse_arg(L, g, &a))
		return DIAG_INPUT;
	if (a.kind != s->arg->kind || ((a.kind == ARG_TENSOR || a.kind == ARG_SYM_INT || a.kind == ARG_SYM_BOOL ||
	                                a.kind == ARG_SYM_FLOAT || a.kind == ARG_CUSTOM_OBJ) && a.u.v != s->arg->u.v))
		return err(L, argat, "input %d is not what graph main takes as its input %d", i + 1, i + 1);
	if (accept(L, ":")) {
		Value t = {0};
		if (parse_type(L, &t))
			return DIAG_INPUT;
		if (a.kind != ARG_TENSOR || !same_type(&t, a.u.v))
			return err(L, argat, "input '%s' has another type in graph main", a.u.v->name);
	}
	if (accept(L, "<-"))
		s->target = span_until(L, " \t", NULL);
	if (accept(L, "(not persistent)"))
		s->persistent = 0;
	if (accept(L, "[")) {
		int64_t n;
		entry = span_until(L, ",", NULL);   /* the zip entry it came from, kept for messages */
		const char *nat;
		if (expect(L, ",", "after the entry"))
			return DIAG_INPUT;
		skip_ws(L);
		nat = L->p;
		if (parse_int(L, &n, "(the storage size)") || expect(L, "bytes]", "after the storage size"))
			return DIAG_INPUT;
		if (n < 1)
			return err(L, nat, "a storage of %lld bytes (1 or more)", (long long)n);
		bytes = (uint64_t)n;
	}
	if (accept(L, "=") && parse_fill(L, &f))
		return DIAG_INPUT;
	if (!at_line_end(L))
		return err(L, L->p, "unexpected text in the input line");
	if (s->kind == IN_PARAMETER || s->kind == IN_BUFFER || s->kind == IN_TENSOR_CONSTANT) {
		Value *v = a.u.v;
		int64_t *sizes;
		if (a.kind != ARG_TENSOR)
			return err(L, argat, "a %s must be a tensor", kind);
		if (!s->target)
			s->target = v->name;
		if (!(sizes = static_sizes(L, argat, v)))
			return DIAG_INPUT;
		if (!(v->data = make_tensor(L, argat, v->dtype, v->rank, sizes, NULL, 0, bytes, &f,
		                            arena_printf(L->a, "weight '%s'", v->name))))
			return DIAG_INPUT;
		if (entry)
			v->data->entry = entry;
	} else if (f.kind != FILL_DEFAULT || bytes) {
		return err(L, argat, "only parameters, buffers and tensor constants take values");
	}
	return 0;
}

static int
parse_inputs(Lex *L, Program *p)
{
	p->input_specs = ARENA_ARRAY(L->a, InputSpec, p->graph->ninput + 1);
	while (next_line(L), skip_empty_lines(L) && indent_of(L) > 0) {
		InputSpec *s = &p->input_specs[p->ninput_spec];
		skip_ws(L);
		if (p->ninput_spec >= p->graph->ninput)
			return err(L, L->p, "more inputs listed than graph main has (%d)", p->graph->ninput);
		if (parse_input_line(L, p, p->ninput_spec, s))
			return DIAG_INPUT;
		p->ninput_spec++;
	}
	if (p->ninput_spec != p->graph->ninput)
		return err(L, L->bol, "%d inputs listed for the %d inputs of graph main", p->ninput_spec, p->graph->ninput);
	return 0;
}

static const struct { const char *name; OutputKind kind; } output_kinds[] = {
	{"user_output", OUT_USER_OUTPUT}, {"loss_output", OUT_LOSS_OUTPUT},
	{"buffer_mutation", OUT_BUFFER_MUTATION}, {"gradient_to_parameter", OUT_GRADIENT_TO_PARAMETER},
	{"gradient_to_user_input", OUT_GRADIENT_TO_USER_INPUT},
	{"user_input_mutation", OUT_USER_INPUT_MUTATION}, {"token", OUT_TOKEN},
	{"parameter_mutation", OUT_PARAMETER_MUTATION},
};

static int
parse_outputs(Lex *L, Program *p)
{
	Graph *g = p->graph;

	p->output_specs = ARENA_ARRAY(L->a, OutputSpec, g->noutput + 1);
	while (next_line(L), skip_empty_lines(L) && indent_of(L) > 0) {
		OutputSpec *s = &p->output_specs[p->noutput_spec];
		const char *at, *kind, *argat;
		size_t k;
		Arg a;
		skip_ws(L);
		at = L->p;
		kind = ident(L, 0);
		for (k = 0; kind && k < sizeof output_kinds / sizeof output_kinds[0]; k++)
			if (strcmp(kind, output_kinds[k].name) == 0)
				break;
		if (!kind || k == sizeof output_kinds / sizeof output_kinds[0])
			return err(L, at, "expected an output kind (user_output, buffer_mutation, ...)");
		if (p->noutput_spec >= g->noutput)
			return err(L, at, "more outputs listed than graph main returns (%d)", g->noutput);
		s->kind = output_kinds[k].kind;
		s->arg = &g->outputs[p->noutput_spec];
		skip_ws(L);
		argat = L->p;
		if (parse_arg(L, g, &a))
			return DIAG_INPUT;
		if (a.kind != s->arg->kind || ((a.kind == ARG_TENSOR || a.kind == ARG_SYM_INT) && a.u.v != s->arg->u.v))
			return err(L, argat, "output %d is not what graph main returns at position %d",
			           p->noutput_spec + 1, p->noutput_spec + 1);
		if (accept(L, "->"))
			s->target = span_until(L, " \t", NULL);
		if (!at_line_end(L))
			return err(L, L->p, "unexpected text in the output line");
		p->noutput_spec++;
	}
	if (p->noutput_spec != g->noutput)
		return err(L, L->bol, "%d outputs listed for the %d values graph main returns", p->noutput_spec, g->noutput);
	return 0;
}

/* "N: dtype[sizes] [strides [..] offset K] [= VALUES]" or "N: ARG". */
static int
parse_samples(Lex *L, Program *p)
{
	p->samples = ARENA_ARRAY(L->a, Sample, 1);
	while (next_line(L), skip_empty_lines(L) && indent_of(L) > 0) {
		Sample s = {0};
		int64_t idx;
		const char *at, *save, *name;
		skip_ws(L);
		at = L->p;
		if (parse_int(L, &idx, "(the sample's index)") || expect(L, ":", "after the sample's index"))
			return DIAG_INPUT;
		if (idx != p->nsample)
			return err(L, at, "sample %lld where sample %d was expected", (long long)idx, p->nsample);
		skip_ws(L);
		save = L->p;
		if ((name = ident(L, 0)) && dtype_from_name(name) != DT_UNKNOWN && L->p < L->eol && *L->p == '[') {
			Value t = {0};
			int64_t *sizes, *strides = NULL, offset = 0;
			Fill f = {.kind = FILL_DEFAULT, .seed = 1000 + (uint64_t)p->nsample};
			L->p = save;
			if (parse_type(L, &t))
				return DIAG_INPUT;
			t.name = "sample";
			if (!(sizes = static_sizes(L, save, &t)))
				return DIAG_INPUT;
			if (accept(L, "strides [")) {
				strides = ARENA_ARRAY(L->a, int64_t, t.rank + 1);
				for (int i = 0; i < t.rank; i++)
					if ((i && expect(L, ",", "between strides")) || parse_int(L, &strides[i], "(a stride)"))
						return DIAG_INPUT;
				if (expect(L, "]", "closing the strides") || expect(L, "offset", "after the strides") ||
				    parse_int(L, &offset, "(the storage offset)"))
					return DIAG_INPUT;
			}
			if (accept(L, "=") && parse_fill(L, &f))
				return DIAG_INPUT;
			if (!(s.t = make_tensor(L, save, t.dtype, t.rank, sizes, strides, offset, 0, &f,
			                        arena_printf(L->a, "sample %d", p->nsample))))
				return DIAG_INPUT;
		} else {
			L->p = save;
			if (parse_arg(L, NULL, &s.scalar))
				return DIAG_INPUT;
		}
		if (!at_line_end(L))
			return err(L, L->p, "unexpected text after the sample");
		PUSH(L->a, p->samples, p->nsample, s);
	}
	return 0;
}

/* Without an inputs (outputs) section: every graph input is a user input
 * and every tensor one weightless; every output a user output. */
static void
default_specs(Program *p, const Sections *sec)
{
	Graph *g = p->graph;

	if (!sec->has_inputs) {
		p->ninput_spec = g->ninput;
		p->input_specs = ARENA_ARRAY(p->arena, InputSpec, g->ninput + 1);
		for (int i = 0; i < g->ninput; i++)
			p->input_specs[i] = (InputSpec){.kind = IN_USER_INPUT, .arg = &g->inputs[i], .persistent = 1};
	}
	if (!sec->has_outputs) {
		p->noutput_spec = g->noutput;
		p->output_specs = ARENA_ARRAY(p->arena, OutputSpec, g->noutput + 1);
		for (int i = 0; i < g->noutput; i++)
			p->output_specs[i] = (OutputSpec){.kind = OUT_USER_OUTPUT, .arg = &g->outputs[i]};
	}
}

/* Skips the indented lines of a section, leaving L on the next top-level line. */
static void
skip_section(Lex *L)
{
	while (next_line(L), skip_empty_lines(L) && indent_of(L) > 0)
		;
}

int
irtext_parse(Program *p, const char *label, const char *text, size_t len, Diag *d)
{
	Lex L = {.a = p->arena, .d = d, .label = label, .end = text + len, .line = 1};
	Sections sec = {0};
	Lex *slot;
	int *has;

	p->path = label;
	p->container = "text graph";
	p->torch_version = "none";
	set_line(&L, text);
	while (skip_empty_lines(&L)) {
		const char *word;
		if (indent_of(&L) > 0)
			return err(&L, L.bol + indent_of(&L), "indented line outside a section");
		word = ident(&L, 0);
		if (word && strcmp(word, "graph") == 0) {
			if (!accept(&L, "main"))
				return err(&L, L.p, "the top-level graph must be 'graph main(...)'");
			p->graph = ARENA_NEW(p->arena, Graph);
			p->graph->name = "";
			if (parse_graph_head(&L, p->graph) || parse_graph_body(&L, p->graph))
				return DIAG_INPUT;
			next_line(&L);
			if (skip_empty_lines(&L))
				return err(&L, L.p, "text after graph main (a line starting with '===' ends the graph text)");
			break;
		}
		slot = NULL;
		has = NULL;
#define SECTION(w) if (word && strcmp(word, #w) == 0) slot = &sec.w, has = &sec.has_##w;
		SECTION(program) SECTION(symbols) SECTION(inputs) SECTION(outputs) SECTION(samples)
#undef SECTION
		if (!slot)
			return err(&L, L.bol, "expected a section (program, symbols, inputs, outputs, samples) or 'graph main('");
		if (*has)
			return err(&L, L.bol, "section '%s' appears twice", word);
		if (strcmp(word, "program") && !at_line_end(&L))
			return err(&L, L.p, "unexpected text after '%s'", word);
		*has = 1;
		*slot = L;
		skip_section(&L);
	}
	if (!p->graph)
		return err(&L, L.p, "no 'graph main(...) {' in the text");
	if (sec.has_program && parse_header(&sec.program, p))
		return DIAG_INPUT;
	if (sec.has_symbols && parse_symbols(&sec.symbols, p))
		return DIAG_INPUT;
	if (sec.has_inputs && parse_inputs(&sec.inputs, p))
		return DIAG_INPUT;
	if (sec.has_outputs && parse_outputs(&sec.outputs, p))
		return DIAG_INPUT;
	if (sec.has_samples && parse_samples(&sec.samples, p))
		return DIAG_INPUT;
	default_specs(p, &sec);
	return 0;
}

int
irtext_sniff(const char *path)
{
	static const char *const starts[] = {"#", "program ", "symbols", "inputs", "outputs", "samples", "graph "};
	char buf[256];
	size_t n, i = 0;
	FILE *f = fopen(path, "rb");

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	while (i < n && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t'))
		i++;
	for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++)
		if (strncmp(buf + i, starts[k], strlen(starts[k])) == 0)
			return 1;
	return 0;
}

int
irtext_load(Program *p, const char *path, Diag *d)
{
	FILE *f = fopen(path, "rb");
	char *text;
	long n;
	size_t got;

	if (!f)
		return diag_report(d, YE_INPUT_UNREADABLE, &(DiagAt){.file = path}, "cannot open: %s", strerror(errno));
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return diag_report(d, YE_INPUT_UNREADABLE, &(DiagAt){.file = path}, "cannot read: %s", strerror(errno));
	}
	text = arena_alloc(p->arena, (size_t)n + 1);
	got = fread(text, 1, (size_t)n, f);
	fclose(f);
	if (got != (size_t)n)
		return diag_report(d, YE_INPUT_UNREADABLE, &(DiagAt){.file = path}, "cannot read: short read");
	if (memchr(text, 0, got))
		return diag_report(d, YE_INPUT_UNREADABLE, &(DiagAt){.file = path}, "a text graph holds no NUL bytes");
	return irtext_parse(p, path, text, got, d);
}
