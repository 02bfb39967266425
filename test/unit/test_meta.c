/* test_meta.c: ir_infer_outputs (lib/ir/meta.c) against torch.
 *
 * test/unit/meta/cases.txt (make_cases.py, torch 2.14) holds one ATen call
 * per line with torch's result dtypes and shapes, or `error` where torch
 * raises; test/unit/meta/symbolic.txt holds calls over named (symbolic)
 * dims with the expressions derived by hand, and the errors a symbolic
 * size must give; test/unit/meta/models.txt (collect_ops.py --cases)
 * every aten call of the traced target models with the types tracing
 * recorded.  Each line becomes a Node whose result must match.
 * The cases run through ir_type_outputs() with the derived typer
 * (lib/lower/typer.c), as the readers do: meta.def's row where there is
 * one, else the type derived from the lowering.  Beside them: every op
 * the target models call (ops-collected.txt) has a row or a lowering,
 * every lowered or decomposed op is typed (or listed in no-rule.txt), and
 * every row of meta.def is exercised by some case. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "ir/ir.h"
#include "lower/lower.h"
#include "sym/sym.h"

typedef struct Line {
	Arena *a;
	Node n;
	int nexp;             /* expected results; -1 for error */
	Value exp[64];
	char text[4096];
} Line;

static const char *
skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* A dim: an integer or an infix expression (symbolic). */
static int
parse_dim(Arena *a, const char *s, size_t len, Dim *d)
{
	char *end, *t = arena_strndup(a, s, len);
	long long v = strtoll(t, &end, 10);
	Diag dg = { 0 };

	if (len && *end == 0) {
		d->v = v;
		d->e = NULL;
		return 0;
	}
	d->e = sym_parse_infix(a, "case", t, len, &dg);
	d->v = -1;
	if (!d->e) {
		diag_free(&dg);
		return -1;
	}
	d->e = poly_canon(a, d->e);
	return 0;
}

/* dtype[d0,d1] into v; returns the end or NULL. */
static const char *
parse_tensor(Arena *a, const char *s, Value *v)
{
	const char *br = strchr(s, '['), *close;
	int n = 0;

	if (!br || !(close = strchr(br, ']')))
		return NULL;
	memset(v, 0, sizeof *v);
	v->kind = VAL_TENSOR;
	v->dtype = dtype_from_name(arena_strndup(a, s, (size_t)(br - s)));
	if (v->dtype == DT_UNKNOWN)
		return NULL;
	v->dims = ARENA_ARRAY(a, Dim, 64);
	for (const char *p = br + 1; p < close;) {
		const char *q = p;
		while (q < close && *q != ',')
			q++;
		if (n >= 64 || parse_dim(a, p, (size_t)(q - p), &v->dims[n++]))
			return NULL;
		p = q < close ? q + 1 : q;
	}
	v->rank = n;
	return close + 1;
}

static Value *
new_tensor(Arena *a, const char *s, const char **end)
{
	Value *v = ARENA_NEW(a, Value);

	*end = parse_tensor(a, s, v);
	return *end ? v : NULL;
}

/* An int, or a SymInt over a symbolic value. */
static int
parse_int(Arena *a, const char *s, size_t len, Arg *x)
{
	Dim d;

	if (parse_dim(a, s, len, &d))
		return -1;
	if (!d.e) {
		x->kind = ARG_INT;
		x->u.i = d.v;
		return 0;
	}
	x->kind = ARG_SYM_INT;
	x->u.v = ARENA_NEW(a, Value);
	x->u.v->kind = VAL_SYM_INT;
	x->u.v->expr = d.e;
	return 0;
}

/* The items of "[a,b,c]" (sep between), as strings. */
static int
split_list(Arena *a, const char *s, size_t len, char sep, char ***items)
{
	int n = 0;
	char **it = ARENA_ARRAY(a, char *, len + 1);

	if (len < 2 || s[0] != '[' || s[len - 1] != ']')
		return -1;
	s++;
	len -= 2;
	for (size_t i = 0; i < len;) {
		size_t j = i;
		int depth = 0;
		while (j < len && (s[j] != sep || depth)) {
			depth += s[j] == '[' ? 1 : s[j] == ']' ? -1 : 0;
			j++;
		}
		it[n++] = arena_strndup(a, s + i, j - i);
		i = j + 1;
	}
	*items = it;
	return n;
}

static int
parse_arg(Arena *a, const char *s, size_t len, Arg *x)
{
	const char *colon = memchr(s, ':', len), *end;
	char *body, **items;
	size_t tag;
	int n, sym = 0;

	memset(x, 0, sizeof *x);
	if (len == 1 && s[0] == 'N') {
		x->kind = ARG_NONE;
		return 0;
	}
	if (!colon)
		return -1;
	tag = (size_t)(colon - s);
	body = arena_strndup(a, colon + 1, len - tag - 1);
#define TAG(t) (tag == strlen(t) && strncmp(s, t, tag) == 0)
	if (TAG("T")) {
		x->kind = ARG_TENSOR;
		return (x->u.v = new_tensor(a, body, &end)) && *end == 0 ? 0 : -1;
	}
	if (TAG("I"))
		return parse_int(a, body, strlen(body), x);
	if (TAG("F")) {
		x->kind = ARG_FLOAT;
		x->u.f = strtod(body, NULL);
		return 0;
	}
	if (TAG("B")) {
		x->kind = ARG_BOOL;
		x->u.i = atoi(body) != 0;
		return 0;
	}
	if (TAG("C")) {
		x->kind = ARG_COMPLEX;
		x->u.c[0] = strtod(body, &body);
		x->u.c[1] = strtod(body + 1, NULL);
		return 0;
	}
	if (TAG("S") || TAG("V")) {
		x->kind = TAG("S") ? ARG_STRING : ARG_DEVICE;
		x->u.s = body;
		return 0;
	}
	if (TAG("D")) {
		x->kind = ARG_SCALAR_TYPE;
		x->u.i = dtype_torch(dtype_from_name(body));
		return x->u.i < 0 ? -1 : 0;
	}
	if (TAG("M") || TAG("Y")) {
		x->kind = TAG("M") ? ARG_MEMORY_FORMAT : ARG_LAYOUT;
		return 0;
	}
	if ((n = split_list(a, body, strlen(body), TAG("TL") ? ';' : ',', &items)) < 0)
		return -1;
	x->n = n;
	x->u.list = ARENA_ARRAY(a, Arg, n + 1);
	for (int i = 0; i < n; i++) {
		Arg *it = &x->u.list[i];
		if (TAG("L")) {
			if (parse_int(a, items[i], strlen(items[i]), it))
				return -1;
			sym |= it->kind == ARG_SYM_INT;
		} else if (TAG("FL")) {
			it->kind = ARG_FLOAT;
			it->u.f = strtod(items[i], NULL);
		} else if (TAG("BL")) {
			it->kind = ARG_BOOL;
			it->u.i = atoi(items[i]) != 0;
		} else if (TAG("TL")) {
			if (strcmp(items[i], "N") == 0) {
				it->kind = ARG_NONE;
				sym = 1;
			} else {
				it->kind = ARG_TENSOR;
				if (!(it->u.v = new_tensor(a, items[i], &end)) || *end)
					return -1;
			}
		} else {
			return -1;
		}
	}
	x->kind = TAG("L") ? (sym ? ARG_SYM_INTS : ARG_INTS) : TAG("FL") ? ARG_FLOATS : TAG("BL") ? ARG_BOOLS
	        : sym ? ARG_OPT_TENSORS : ARG_TENSORS;
#undef TAG
	return 0;
}

/* Parses one case line into l; 0 ok, 1 blank or comment, -1 malformed. */
static int
parse_line(Line *l, const char *text)
{
	const char *s = skip_ws(text), *arrow = strstr(text, " ->");
	int nin = 0;

	snprintf(l->text, sizeof l->text, "%s", text);
	if (!*s || *s == '#' || *s == '\n')
		return 1;
	if (!arrow)
		return -1;
	memset(&l->n, 0, sizeof l->n);
	l->n.in = ARENA_ARRAY(l->a, NamedArg, 64);
	{
		const char *e = s;
		while (*e && *e != ' ')
			e++;
		l->n.op = arena_strndup(l->a, s, (size_t)(e - s));
		l->n.name = "case";
		s = skip_ws(e);
	}
	while (s < arrow) {
		const char *eq = strchr(s, '='), *e = s;
		while (e < arrow && *e != ' ')
			e++;
		if (!eq || eq > e || nin >= 64)
			return -1;
		l->n.in[nin].name = arena_strndup(l->a, s, (size_t)(eq - s));
		l->n.in[nin].kind = 1;
		if (parse_arg(l->a, eq + 1, (size_t)(e - eq - 1), &l->n.in[nin].arg))
			return -1;
		nin++;
		s = skip_ws(e);
	}
	l->n.nin = nin;
	s = skip_ws(arrow + 3);
	l->nexp = 0;
	if (strncmp(s, "error", 5) == 0) {
		l->nexp = -1;
		return 0;
	}
	while (*s && *s != '#' && *s != '\n') {
		Value *v = &l->exp[l->nexp];
		const char *e = s;
		if (l->nexp >= 64)
			return -1;
		while (*e && *e != ' ' && *e != '\n')
			e++;
		if (strncmp(s, "I:", 2) == 0) {
			Dim d;
			memset(v, 0, sizeof *v);
			v->kind = VAL_SYM_INT;
			if (parse_dim(l->a, s + 2, (size_t)(e - s - 2), &d))
				return -1;
			v->expr = d.e;
			v->hint = d.v;
		} else if (parse_tensor(l->a, arena_strndup(l->a, s, (size_t)(e - s)), v) == NULL) {
			return -1;
		}
		l->nexp++;
		s = skip_ws(e);
	}
	return 0;
}

static int
dims_match(Arena *a, Dim x, Dim y)
{
	if (!x.e && !y.e)
		return x.v == y.v;
	if (!x.e || !y.e)
		return 0;
	return sym_equal(poly_canon(a, x.e), poly_canon(a, y.e)) ||
	       strcmp(sym_print(a, poly_canon(a, x.e)), sym_print(a, poly_canon(a, y.e))) == 0;
}

static const char *
render(Arena *a, const Value *v, int n)
{
	char *s = arena_strdup(a, "");

	if (n < 0)
		return "error";
	for (int i = 0; i < n; i++) {
		if (v[i].kind == VAL_SYM_INT) {
			s = arena_printf(a, "%s%sI:%s", s, i ? " " : "",
			                 v[i].expr ? sym_print(a, v[i].expr) : "?");
			continue;
		}
		s = arena_printf(a, "%s%s%s[", s, i ? " " : "", dtype_name(v[i].dtype));
		for (int j = 0; j < v[i].rank; j++)
			s = v[i].dims[j].e ? arena_printf(a, "%s%s%s", s, j ? "," : "", sym_print(a, v[i].dims[j].e))
			                   : arena_printf(a, "%s%s%lld", s, j ? "," : "", (long long)v[i].dims[j].v);
		s = arena_printf(a, "%s]", s);
	}
	return s;
}

/* Runs the case through what the readers use (ir_type_outputs: meta.def's
 * row, else the derived typer at opset 18); returns NULL when it matches,
 * else the mismatch (arena). */
static const char *
check_line(Line *l)
{
	Value got[64];
	char why[512];
	IrTyper t;
	int k;

	lower_typer_init(&t, 18);
	k = ir_type_outputs(&t, l->a, &l->n, l->nexp > 0 ? l->nexp : 1, got, 64, why, sizeof why);

	if (l->nexp < 0)
		return k < 0 ? NULL : arena_printf(l->a, "expected an error, got %s", render(l->a, got, k));
	if (k < 0)
		return arena_printf(l->a, "failed: %s", why);
	if (k != l->nexp)
		goto diff;
	for (int i = 0; i < k; i++) {
		const Value *x = &got[i], *y = &l->exp[i];
		if (x->kind != y->kind)
			goto diff;
		if (x->kind == VAL_SYM_INT) {
			Dim dx = { x->hint, NULL }, dy = { y->hint, y->expr };
			int64_t v;
			if (poly_is_num(x->expr, &v))
				dx.v = v;
			else
				dx.e = x->expr;
			if (!dims_match(l->a, dx, dy))
				goto diff;
			continue;
		}
		if (x->dtype != y->dtype || x->rank != y->rank)
			goto diff;
		for (int j = 0; j < x->rank; j++)
			if (!dims_match(l->a, x->dims[j], y->dims[j]))
				goto diff;
	}
	return NULL;
diff:
	return arena_printf(l->a, "got %s, want %s", render(l->a, got, k), render(l->a, l->exp, l->nexp));
}

/* The derived typer (lib/lower/typer.c) on the case: "" when it agrees
 * with torch, NULL when it cannot say (why in *why), else the mismatch. */
static const char *
check_derived(Line *l, char *why, size_t whylen)
{
	Value got[64];
	IrTyper t;
	int k;

	lower_typer_init(&t, 18);
	k = lower_type_node(&t, l->a, &l->n, l->nexp, got, 64, why, whylen);
	if (k < 0)
		return NULL;
	if (k != l->nexp)
		goto diff;
	for (int i = 0; i < k; i++) {
		const Value *x = &got[i], *y = &l->exp[i];
		if (x->kind != y->kind || x->dtype != y->dtype || x->rank != y->rank)
			goto diff;
		for (int j = 0; j < x->rank; j++)
			if (!dims_match(l->a, x->dims[j], y->dims[j]))
				goto diff;
	}
	return "";
diff:
	return arena_printf(l->a, "got %s, want %s", render(l->a, got, k), render(l->a, l->exp, l->nexp));
}

typedef struct Derived {
	int ncase, agree, differ, cannot;
} Derived;

/* The derived typer over every tensor-result line of path that torch
 * answers; counts into *st, listing disagreements on stderr. */
static void
derive_file(const char *path, Derived *st, int verbose)
{
	FILE *f = fopen(path, "r");
	char buf[8192], why[512];
	int lineno = 0;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	while (fgets(buf, sizeof buf, f)) {
		Line *l = calloc(1, sizeof *l);
		Arena a;
		const char *r;
		int tensors = 1;
		lineno++;
		arena_init(&a);
		l->a = &a;
		if (verbose > 2 && parse_line(l, buf) == 0 && l->nexp < 0) {
			/* an error torch raises: the derived typer must fail too */
			Value got[64];
			IrTyper t;
			lower_typer_init(&t, 18);
			fprintf(stderr, "ROW\t%s\t%s\n", l->n.op,
			        lower_type_node(&t, l->a, &l->n, 1, got, 64, why, sizeof why) < 0 ? "agree" : "differ");
		} else if (parse_line(l, buf) == 0 && l->nexp > 0) {
			for (int i = 0; i < l->nexp; i++)
				tensors &= l->exp[i].kind == VAL_TENSOR;
			if (!tensors && verbose > 2)
				fprintf(stderr, "ROW\t%s\tcannot\n", l->n.op);
			if (tensors) {
				st->ncase++;
				r = check_derived(l, why, sizeof why);
				if (verbose > 2)
					fprintf(stderr, "ROW\t%s\t%s\n", l->n.op, !r ? "cannot" : *r ? "differ" : "agree");
				if (!r) {
					st->cannot++;
					if (verbose > 1)
						fprintf(stderr, "%s:%d: cannot: %s\n", path, lineno, why);
				} else if (!*r) {
					st->agree++;
				} else {
					st->differ++;
					if (verbose)
						fprintf(stderr, "%s:%d: derived %s\n    %s", path, lineno, r, buf);
				}
			}
		}
		arena_free(&a);
		free(l);
	}
	fclose(f);
}

/* Runs every line of path; fails listing the first mismatches.  Returns
 * the ops seen (for the row coverage check) through seen/nseen. */
static int
run_file(const char *path, char ***seen, int *nseen)
{
	FILE *f = fopen(path, "r");
	char buf[8192];
	int lineno = 0, ncase = 0, nbad = 0;
	Arena keep;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	arena_init(&keep);
	while (fgets(buf, sizeof buf, f)) {
		Line *l = calloc(1, sizeof *l);
		Arena a;
		int r;
		const char *bad;
		lineno++;
		arena_init(&a);
		l->a = &a;
		r = parse_line(l, buf);
		if (r < 0) {
			fprintf(stderr, "%s:%d: malformed case: %s", path, lineno, buf);
			nbad++;
		} else if (r == 0) {
			ncase++;
			if ((bad = check_line(l))) {
				if (nbad < 400)
					fprintf(stderr, "%s:%d: %s\n    %s", path, lineno, bad, buf);
				nbad++;
			}
			if (seen) {
				*seen = realloc(*seen, sizeof **seen * (size_t)(*nseen + 1));
				(*seen)[(*nseen)++] = strdup(l->n.op);
			}
		}
		arena_free(&a);
		free(l);
	}
	fclose(f);
	arena_free(&keep);
	ck_assert_msg(ncase > 0, "%s holds no cases", path);
	ck_assert_msg(nbad == 0, "%s: %d of %d cases do not match (listed on stderr)", path, nbad, ncase);
	return ncase;
}

START_TEST(test_torch_cases)
{
	char **seen = NULL;
	int nseen = 0;

	run_file(("test/unit/meta/cases.txt"), &seen, &nseen);
	for (int i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
}
END_TEST

/* Every aten call of the traced target models, as tracing typed it. */
START_TEST(test_model_cases)
{
	ck_assert_int_gt(run_file("test/unit/meta/models.txt", NULL, NULL), 100);
}
END_TEST

START_TEST(test_symbolic_cases)
{
	run_file(("test/unit/meta/symbolic.txt"), NULL, NULL);
}
END_TEST

/* "aten::add.Tensor(Tensor self, ...) -> Tensor" -> "aten.add.Tensor";
 * NULL for a schema that returns no tensor (Python values: the reader
 * evaluates those itself). */
static char *
collected_op(const char *line)
{
	const char *paren = strchr(line, '('), *ret = strstr(line, ") -> ");
	char *op, *dot;

	if (strncmp(line, "aten::", 6) != 0 || !paren || !ret || !strstr(ret, "Tensor"))
		return NULL;
	op = malloc((size_t)(paren - line) + 16);
	snprintf(op, (size_t)(paren - line) + 16, "aten.%.*s", (int)(paren - line - 6), line + 6);
	dot = strchr(op + 5, '.');
	if (!dot)
		strcat(op, ".default");
	return op;
}

START_TEST(test_collected_ops_known)
{
	FILE *f = fopen(("test/unit/meta/ops-collected.txt"), "r");
	char buf[4096];
	int n = 0, missing = 0;

	ck_assert_msg(f != NULL, "cannot open ops-collected.txt");
	while (fgets(buf, sizeof buf, f)) {
		char *op = collected_op(buf);
		if (!op)
			continue;
		n++;
		/* a row, or a lowering the derived typer types (lowered_ops_typed checks it does) */
		if (!ir_infer_known(op) && !ops_find_opset(op, 18) && !lower_decomp_into(op)) {
			fprintf(stderr, "no rule and no lowering for %s (%s)", op, buf);
			missing++;
		}
		free(op);
	}
	fclose(f);
	ck_assert_int_gt(n, 40);
	ck_assert_msg(missing == 0, "%d collected ops have no rule", missing);
}
END_TEST

/* Every op the lowering converts (the OP rows of lib/lower/ops) or a
 * decomposition rewrites (decomp.def) can be typed: by its meta.def row,
 * or by the derived typer (lib/lower/typer.c) on its typical call in
 * typer-cases.txt (make_typer_cases.py), agreeing with torch there.  An
 * op neither types is listed in test/unit/meta/no-rule.txt with the
 * reason; a listed op that is typed now is taken out. */
static const char *const lowered_ops[] = {
#define OP(name, fn, onnx, variant, lo, hi, flags) name,
#include "lower/ops/all.def"
#undef OP
};

typedef struct OpStat {
	const char *op;
	int agree, differ, cannot;
	char why[300];
} OpStat;

static OpStat *
op_stat(OpStat *st, int *n, const char *op)
{
	for (int i = 0; i < *n; i++)
		if (strcmp(st[i].op, op) == 0)
			return &st[i];
	memset(&st[*n], 0, sizeof st[*n]);
	st[*n].op = op;
	return &st[(*n)++];
}

START_TEST(test_lowered_ops_typed)
{
	FILE *f = fopen("test/unit/meta/no-rule.txt", "r");
	char buf[8192], **listed = NULL, why[300];
	int nlisted = 0, bad = 0, nop = 0, nstat = 0, ntyped = 0, nderived = 0;
	size_t nlow = sizeof lowered_ops / sizeof *lowered_ops;
	const char **ops = calloc(nlow + (size_t)lower_decomp_count() + 1, sizeof *ops);
	OpStat *st = calloc(nlow + (size_t)lower_decomp_count() + 1, sizeof *st);

	ck_assert_msg(f != NULL, "cannot open no-rule.txt");
	while (fgets(buf, sizeof buf, f)) {
		buf[strcspn(buf, " \t\n#")] = 0;
		if (!buf[0])
			continue;
		listed = realloc(listed, sizeof *listed * (size_t)(nlisted + 1));
		listed[nlisted++] = strdup(buf);
	}
	fclose(f);
	for (size_t i = 0; i < nlow; i++)
		if (strncmp(lowered_ops[i], "aten.", 5) == 0)
			ops[nop++] = lowered_ops[i];
	for (int i = 0; i < lower_decomp_count(); i++)
		ops[nop++] = lower_decomp_name(i);
	/* the typical calls: typer-cases.txt's, and cases.txt's for ops that had a row */
	for (int file = 0; file < 2; file++) {
		f = fopen(file ? "test/unit/meta/cases.txt" : "test/unit/meta/typer-cases.txt", "r");
		ck_assert_msg(f != NULL, "cannot open the cases");
		while (fgets(buf, sizeof buf, f)) {
			Line *l = calloc(1, sizeof *l);
			Arena a;
			arena_init(&a);
			l->a = &a;
			if (parse_line(l, buf) == 0 && l->nexp > 0 && !ir_infer_known(l->n.op)) {
				const char *r;
				OpStat *o = NULL;
				int tensors = 1;
				for (int i = 0; i < l->nexp; i++)
					tensors &= l->exp[i].kind == VAL_TENSOR;
				r = tensors ? check_derived(l, why, sizeof why) : NULL;
				if (!tensors)
					snprintf(why, sizeof why, "%s: its results are not tensors", l->n.op);
				for (int i = 0; i < nop && !o; i++)
					if (strcmp(ops[i], l->n.op) == 0)
						o = op_stat(st, &nstat, ops[i]);
				if (o && !r) {
					o->cannot++;
					snprintf(o->why, sizeof o->why, "%s", why);
				} else if (o && !*r) {
					o->agree++;
				} else if (o) {
					o->differ++;
					fprintf(stderr, "typer-cases.txt: %s: the derived typer %s (a bug)\n", l->n.op, r);
					bad++;
				}
			}
			arena_free(&a);
			free(l);
		}
		fclose(f);
	}
	for (int i = 0; i < nop; i++) {
		OpStat *o = op_stat(st, &nstat, ops[i]);
		int exempt = 0, dup = 0;
		for (int k = 0; k < i && !dup; k++)
			dup = strcmp(ops[k], ops[i]) == 0;
		if (dup)
			continue;
		for (int k = 0; k < nlisted && !exempt; k++)
			exempt = strcmp(listed[k], ops[i]) == 0;
		if (ir_infer_known(ops[i]) || o->agree) {
			ntyped++;
			nderived += !ir_infer_known(ops[i]);
			if (exempt) {
				fprintf(stderr, "%s is typed now: take it out of no-rule.txt\n", ops[i]);
				bad++;
			}
		} else if (!exempt) {
			fprintf(stderr, "%s: has a lowering or decomposition and cannot be typed (%s); "
			        "not listed in no-rule.txt\n", ops[i], o->cannot ? o->why : "no typical call in typer-cases.txt");
			bad++;
		}
	}
	fprintf(stderr, "lowered or decomposed ATen ops: %d typed (%d by the derived typer), %d listed in no-rule.txt\n",
	        ntyped, nderived, nlisted);
	for (int k = 0; k < nlisted; k++)
		free(listed[k]);
	free(listed);
	free(ops);
	free(st);
	ck_assert_int_gt(nop, 400);
	ck_assert_msg(bad == 0, "%d ops: typing and no-rule.txt disagree (see above)", bad);
}
END_TEST

/* Every meta.def row is exercised by some case of cases.txt. */
static const char *const def_ops[] = {
#define X(op, rule, dt, takes, p, q) "aten." op,
#include "ir/meta.def"
#undef X
};

START_TEST(test_rows_exercised)
{
	char **seen = NULL;
	int nseen = 0, unused = 0;
	size_t nrow = sizeof def_ops / sizeof def_ops[0];
	{
		FILE *f = fopen(("test/unit/meta/cases.txt"), "r");
		char buf[8192];
		ck_assert(f != NULL);
		while (fgets(buf, sizeof buf, f)) {
			const char *s = skip_ws(buf), *e = s;
			if (*s == '#' || *s == '\n' || !*s)
				continue;
			while (*e && *e != ' ')
				e++;
			seen = realloc(seen, sizeof *seen * (size_t)(nseen + 1));
			seen[nseen++] = strndup(s, (size_t)(e - s));
		}
		fclose(f);
	}
	for (size_t r = 0; r < nrow; r++) {
		size_t len = strlen(def_ops[r]);
		int hit = 0;
		for (int i = 0; i < nseen && !hit; i++)
			hit = strcmp(seen[i], def_ops[r]) == 0 ||
			      (strncmp(seen[i], def_ops[r], len) == 0 && seen[i][len] == '.' &&
			       !strchr(seen[i] + len + 1, '.'));
		if (!hit) {
			fprintf(stderr, "meta.def row %s has no case in cases.txt\n", def_ops[r]);
			unused++;
		}
	}
	for (int i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	ck_assert_msg(unused == 0, "%d meta.def rows have no case", unused);
}
END_TEST

/* The derived typer against torch's answers: how many agree, differ, or
 * cannot be said. */
START_TEST(test_derived_vs_torch)
{
	Derived st = {0};
	const char *v = getenv("TYPER_VERBOSE");

	derive_file("test/unit/meta/cases.txt", &st, v ? atoi(v) : 1);
	fprintf(stderr, "derived typer on cases.txt: %d cases, %d agree with torch, %d differ, %d cannot be said\n",
	        st.ncase, st.agree, st.differ, st.cannot);
}
END_TEST

/* Aliases (lib/ir/alias.def) convert and are typed wherever their op is,
 * and no other table holds a row for one. */
START_TEST(test_aliases)
{
	static const char *const pairs[][2] = {
		{"aten.greater_equal.Tensor", "aten.ge.Tensor"}, {"aten.absolute.default", "aten.abs.default"},
		{"aten.negative.default", "aten.neg.default"}, {"aten.not_equal.Scalar", "aten.ne.Scalar"},
		{"aten.swapdims.default", "aten.transpose.int"}, {"aten.special_expit.default", "aten.sigmoid.default"},
	};
	char buf[256];

	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		ck_assert_str_eq(ir_alias(pairs[i][0], buf, sizeof buf), pairs[i][1]);
		ck_assert_msg(ops_find_opset(pairs[i][0], 18) == ops_find_opset(pairs[i][1], 18) &&
		              ops_find_opset(pairs[i][1], 18), "%s does not lower as %s", pairs[i][0], pairs[i][1]);
		ck_assert_msg(ir_infer_known(pairs[i][0]), "%s has no type", pairs[i][0]);
	}
	ck_assert_str_eq(ir_alias("aten.ge.Tensor", buf, sizeof buf), "aten.ge.Tensor");
	for (int i = 0; i < ir_alias_count(); i++) {
		const char *from, *to;
		size_t n;
		ir_alias_row(i, &from, &to);
		n = strcspn(from, ".");
		for (size_t k = 0; k < sizeof lowered_ops / sizeof *lowered_ops; k++)
			ck_assert_msg(!(strncmp(lowered_ops[k] + 5, from, n) == 0 && lowered_ops[k][5 + n] == '.'),
			              "alias %s has a row in lib/lower/ops: %s", from, lowered_ops[k]);
		for (size_t k = 0; k < sizeof def_ops / sizeof *def_ops; k++)
			ck_assert_msg(!(strncmp(def_ops[k] + 5, from, n) == 0 && strchr(".", def_ops[k][5 + n])),
			              "alias %s has a row in meta.def: %s", from, def_ops[k]);
		for (int k = 0; k < lower_decomp_count(); k++)
			ck_assert_msg(!(strncmp(lower_decomp_name(k) + 5, from, n) == 0 && lower_decomp_name(k)[5 + n] == '.'),
			              "alias %s has a row in decomp.def", from);
	}
}
END_TEST

START_TEST(test_known)
{
	ck_assert(ir_infer_known("aten.add.Tensor"));
	ck_assert(ir_infer_known("aten.add_.Tensor"));
	ck_assert(ir_infer_known("aten.max.dim"));
	ck_assert(!ir_infer_known("aten.max.names_dim"));
	ck_assert(!ir_infer_known("aten.no_such_op.default"));
	ck_assert(!ir_infer_known("prim.NumToTensor.default"));
}
END_TEST

/* A rule that fails says why; too small a result array is an error, not
 * an overflow. */
START_TEST(test_errors_say_why)
{
	Arena a;
	Line l;
	Value out[2];
	char why[256];

	arena_init(&a);
	l.a = &a;
	ck_assert_int_eq(parse_line(&l, "aten.add.Tensor self=T:float32[2,3] other=T:float32[4] alpha=I:1 -> error"), 0);
	ck_assert_int_eq(ir_infer_outputs(&a, &l.n, out, 2, why, sizeof why), -1);
	ck_assert_msg(strstr(why, "must match the size of tensor b (4)") != NULL, "%s", why);
	ck_assert_int_eq(parse_line(&l, "aten.no_such.default self=T:float32[2] -> error"), 0);
	ck_assert_int_eq(ir_infer_outputs(&a, &l.n, out, 2, why, sizeof why), -1);
	ck_assert_msg(strstr(why, "no dtype and shape rule for aten.no_such.default") != NULL, "%s", why);
	ck_assert_int_eq(parse_line(&l, "aten.split.Tensor self=T:float32[6,2] split_size=I:2 dim=I:0 -> error"), 0);
	ck_assert_int_eq(ir_infer_outputs(&a, &l.n, out, 2, why, sizeof why), -1);
	ck_assert_msg(strstr(why, "more than the 2 results") != NULL, "%s", why);
	/* a missing argument is its schema default: sum over all dims */
	ck_assert_int_eq(parse_line(&l, "aten.sum.dim_IntList self=T:int32[2,3] -> int64[]"), 0);
	ck_assert_int_eq(ir_infer_outputs(&a, &l.n, out, 2, why, sizeof why), 1);
	ck_assert_int_eq(out[0].dtype, DT_INT64);
	ck_assert_int_eq(out[0].rank, 0);
	arena_free(&a);
}
END_TEST

/* Int of a tensor prim::NumToTensor made from a size (traced code) is
 * that size; of any other tensor, its data: an error. */
START_TEST(test_int_of_num_to_tensor)
{
	Arena a;
	Line l;
	Value out[2], *t;
	Node def = { 0 };
	NamedArg din;
	char why[256];
	Diag d = { 0 };

	arena_init(&a);
	l.a = &a;
	ck_assert_int_eq(parse_line(&l, "aten.Int.Tensor a=T:int64[] -> error"), 0);
	ck_assert_int_eq(ir_infer_outputs(&a, &l.n, out, 2, why, sizeof why), -1);
	ck_assert_msg(strstr(why, "depends on the tensor's data") != NULL, "%s", why);
	t = l.n.in[0].arg.u.v;
	def.op = "prim.NumToTensor.Scalar";
	def.nin = 1;
	def.in = &din;
	din.name = "a";
	ck_assert_int_eq(parse_arg(&a, "I:2*batch", 9, &din.arg), 0);
	t->def = &def;
	ck_assert_int_eq(ir_infer_outputs(&a, &l.n, out, 2, why, sizeof why), 1);
	ck_assert_int_eq(out[0].kind, VAL_SYM_INT);
	ck_assert(sym_equal(poly_canon(&a, out[0].expr), poly_canon(&a, sym_parse_infix(&a, "t", "2*batch", 7, &d))));
	{
		/* Int(floor_divide(NumToTensor(2*batch), 2)) is batch */
		Node fd = { 0 };
		NamedArg fin[2];
		Value *q = ARENA_NEW(&a, Value), *two = ARENA_NEW(&a, Value);
		Node ntt2 = { 0 };
		NamedArg n2in;
		*q = *t;
		*two = *t;
		q->def = &fd;
		fd.op = "aten.floor_divide.default";
		fd.nin = 2;
		fd.in = fin;
		fin[0].name = "self";
		fin[0].arg.kind = ARG_TENSOR;
		fin[0].arg.u.v = t;
		fin[1].name = "other";
		fin[1].arg.kind = ARG_TENSOR;
		fin[1].arg.u.v = two;
		two->def = &ntt2;
		ntt2.op = "prim.NumToTensor.Scalar";
		ntt2.nin = 1;
		ntt2.in = &n2in;
		n2in.name = "a";
		n2in.arg.kind = ARG_INT;
		n2in.arg.u.i = 2;
		l.n.in[0].arg.u.v = q;
		ck_assert_int_eq(ir_infer_outputs(&a, &l.n, out, 2, why, sizeof why), 1);
		ck_assert_str_eq(sym_print(&a, out[0].expr), "batch");
		n2in.arg.u.i = 0;        /* // 0: not a known number */
		ck_assert_int_eq(ir_infer_outputs(&a, &l.n, out, 2, why, sizeof why), -1);
	}
	arena_free(&a);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("meta");
	TCase *tc = tcase_create("meta");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_torch_cases);
	tcase_add_test(tc, test_model_cases);
	tcase_add_test(tc, test_symbolic_cases);
	tcase_add_test(tc, test_collected_ops_known);
	tcase_add_test(tc, test_rows_exercised);
	tcase_add_test(tc, test_known);
	tcase_add_test(tc, test_aliases);
	tcase_add_test(tc, test_derived_vs_torch);
	tcase_add_test(tc, test_lowered_ops_typed);
	tcase_add_test(tc, test_errors_say_why);
	tcase_add_test(tc, test_int_of_num_to_tensor);
	suite_add_tcase(s, tc);
	return s;
}

#include "testutil.h"
