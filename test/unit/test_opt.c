/* test_opt.c: the optimizer (lib/opt/opt.h): the row table, the `patterns`
 * option, the constant-folding evaluator, the engine's invariants (stats,
 * determinism, linear time), the fixtures, and one case file per row.
 *
 * test/opt/NAME.txt holds the cases of row NAME: small ONNX graphs written
 * as text and built here with onnx.h, each either a `match` (the row must
 * fire, and the optional `expect` line lists the op types left) or a `miss`
 * (a near miss the row must leave alone).  Every case is optimized with
 * only its row enabled (or the `patterns:` line's selection), the checker
 * running after every rewrite; both models and random inputs (.npy) go to
 * build/test/opt/ (next to this binary), and test/opt/compare.mjs runs each
 * pair in onnxruntime and compares the outputs.  test_every_row_has_cases
 * fails when a row lacks a file, a match or a miss.
 *
 * Case file syntax (one statement per line, `#` comments):
 *   == match: what it shows          (or == miss: ...) starts a case
 *   opset 18                         ai.onnx opset (default 18)
 *   patterns: default                selection (default: the file's row)
 *   atol 1e-4                        tolerance for compare.mjs
 *   input x: float32[2,n=3] range -1 1   a graph input, random in [lo, hi]
 *   init w: float32[3,3] = random    or = 1,2,3 (one value fills the tensor)
 *   info t: float32[2,3]             a value_info entry
 *   node y = Op(a, , b) k=1 f=0.5 ints=[1,2] s="tanh" t=float32:1.0
 *   output y: float32[2,3]           a graph output (shape may be omitted)
 *   expect Gemm Relu                 op types after optimizing, in order
 *   expect-attr Attention is_causal=1  some node of that op has that int attribute (absent: 0) */
#include <glob.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "onnx/onnx.h"
#include "lower/lower.h"
#include "opt/opt.h"
#include "pipeline/pipeline.h"
#include "read/read.h"
#include "report/report.h"
#include "diagtext.h"
#include "testutil.h"

/* ---- output folder: beside this binary (build/test/opt or build-asan/test/opt) ---- */

static char outdir[1100];

static const char *
out_dir(void)
{
	char exe[1024];
	ssize_t n;

	if (outdir[0])
		return outdir;
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0) {
		strcpy(outdir, "build/test/opt");
	} else {
		exe[n] = 0;
		*strrchr(exe, '/') = 0;
		snprintf(outdir, sizeof outdir, "%s/opt", exe);
	}
	mkdir(outdir, 0777);
	return outdir;
}

/* ---- types ---- */

static const struct {
	const char *name, *descr;
	int elem, size;
} types[] = {
	{"float32", "<f4", 1, 4}, {"float16", "<f2", 10, 2}, {"float64", "<f8", 11, 8},
	{"int64", "<i8", 7, 8}, {"int32", "<i4", 6, 4}, {"int8", "|i1", 3, 1}, {"uint8", "|u1", 2, 1},
	{"bool", "|b1", 9, 1},
};

static int
type_index(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (strlen(types[i].name) == n && strncmp(types[i].name, s, n) == 0)
			return (int)i;
	return -1;
}

/* ---- a deterministic generator ---- */

static uint64_t rng;

static double
uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static void
store(int ti, void *p, int64_t i, double v)
{
	DType t = dtype_from_onnx(types[ti].elem);

	/* integers rounded half away from zero, as lround */
	dtype_encode_f64(t, (uint8_t *)p + i * types[ti].size, dtype_is_float(t) || t == DT_BOOL ? v : round(v));
}

/* ---- a case ---- */

typedef struct Tensor {
	const char *name;
	int ti, rank;
	int64_t dims[8];
	const char *params[8];  /* dim names, or NULL */
	double lo, hi;          /* random range */
	void *data;
} Tensor;

typedef struct Case {
	const char *file, *row, *what;
	int kind;               /* 1 match, 0 miss */
	int line;
	int opset;
	const char *patterns;
	double atol;
	OnnxGraph g;
	Tensor in[16];
	int nin;
	char expect[512];
	int has_expect;
	char expect_op[64], expect_attr[64];
	long long expect_val;
	int has_expect_attr;
	int ms_domain;          /* the graph uses com.microsoft ops */
} Case;

static char *
trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = 0;
	return s;
}

/* Parses "name: type[d0,d1]" into t; the rest of the line in *rest. */
static int
parse_decl(Arena *a, char *s, Tensor *t, char **rest)
{
	char *colon = strchr(s, ':'), *ty, *br, *end;

	if (!colon)
		return -1;
	*colon = 0;
	t->name = arena_strdup(a, trim(s));
	ty = trim(colon + 1);
	br = strchr(ty, '[');
	end = br ? strchr(br, ']') : ty + strcspn(ty, " ");
	if (!end)
		return -1;
	t->ti = type_index(ty, (size_t)((br ? br : end) - ty));
	if (t->ti < 0)
		return -1;
	t->rank = br ? 0 : -1;
	t->lo = -1;
	t->hi = 1;
	if (br && end > br + 1) {
		char *p = br + 1;
		while (p < end) {
			char *q = p + strcspn(p, ",]"), *eq;
			char tok[64];
			snprintf(tok, sizeof tok, "%.*s", (int)(q - p), p);
			eq = strchr(tok, '=');
			if (tok[0] >= '0' && tok[0] <= '9') {
				t->dims[t->rank] = atoll(tok);
				t->params[t->rank] = NULL;
			} else {
				if (eq)
					*eq = 0;
				t->params[t->rank] = arena_strdup(a, trim(tok));
				t->dims[t->rank] = eq ? atoll(eq + 1) : -1;
			}
			t->rank++;
			p = q + (*q == ',');
			if (*q == ']')
				break;
		}
	}
	*rest = trim(end + (*end == ']'));
	return 0;
}

static int64_t
numel(const Tensor *t)
{
	int64_t n = 1;

	for (int i = 0; i < t->rank; i++)
		n *= t->dims[i] < 0 ? 1 : t->dims[i];
	return n;
}

static void
fill_random(Tensor *t, Arena *a)
{
	int64_t n = numel(t);

	t->data = arena_alloc(a, (size_t)(n * types[t->ti].size) + 1);
	for (int64_t i = 0; i < n; i++) {
		double v = t->lo + (t->hi - t->lo) * uniform();
		if (types[t->ti].elem == 9)
			v = uniform() < 0.5;
		else if (types[t->ti].elem != 1 && types[t->ti].elem != 10 && types[t->ti].elem != 11)
			v = floor(t->lo + (t->hi - t->lo + 1) * uniform());
		store(t->ti, t->data, i, v);
	}
}

static void
add_attr(Arena *a, OnnxNode *n, char *tok)
{
	char *eq = strchr(tok, '='), *v;

	ck_assert_msg(eq != NULL, "attribute '%s' has no value", tok);
	*eq = 0;
	v = eq + 1;
	const char *name = arena_strdup(a, tok);
	if (v[0] == '[') {
		int64_t ints[64];
		float fl[64];
		int k = 0, isf = strpbrk(v, ".e") != NULL;
		for (char *p = v + 1; *p && *p != ']';) {
			char *e;
			if (isf)
				fl[k++] = strtof(p, &e);
			else
				ints[k++] = strtoll(p, &e, 10);
			p = e + (*e == ',');
		}
		if (isf)
			onnx_attr_floats(a, n, name, k, fl);
		else
			onnx_attr_ints(a, n, name, k, ints);
	} else if (v[0] == '"') {
		onnx_attr_string(a, n, name, arena_strndup(a, v + 1, strlen(v) - 2));
	} else if (strchr(v, ':')) {
		char *c = strchr(v, ':');
		int ti = type_index(v, (size_t)(c - v));
		uint8_t *b = arena_alloc(a, 8);
		int64_t one = 1;
		ck_assert_msg(ti >= 0, "bad tensor attribute '%s'", v);
		store(ti, b, 0, strcmp(c + 1, "true") == 0 ? 1 : strtod(c + 1, NULL));
		onnx_attr_tensor(a, n, name, onnx_tensor(a, "", types[ti].elem, 1, &one, b, (size_t)types[ti].size));
	} else if (strpbrk(v, ".e") && strcmp(v, "true") != 0) {
		onnx_attr_float(a, n, name, strtof(v, NULL));
	} else {
		onnx_attr_int(a, n, name, strtoll(v, NULL, 10));
	}
}

/* "y, z = Op(a, , b) attrs" */
static void
parse_node(Arena *a, Case *c, char *s)
{
	char *eq = strchr(s, '='), *lp = strchr(s, '('), *rp = lp ? strchr(lp, ')') : NULL, *op, *p;
	const char *ins[16], *outs[8];
	int nin = 0, nout = 0;
	OnnxNode *n;

	ck_assert_msg(eq && lp && rp && eq < lp, "%s:%d: bad node line", c->file, c->line);
	*eq = 0;
	for (p = strtok(s, ","); p; p = strtok(NULL, ","))
		outs[nout++] = arena_strdup(a, trim(p));
	*lp = 0;
	*rp = 0;
	op = trim(eq + 1);
	if (lp[1]) {
		p = lp + 1;
		for (;;) {
			char *comma = strchr(p, ',');
			if (comma)
				*comma = 0;
			ins[nin++] = arena_strdup(a, trim(p));
			if (!comma)
				break;
			p = comma + 1;
		}
	}
	{
		char *colon = strchr(op, ':');
		n = onnx_node(a, arena_strdup(a, colon ? colon + 1 : op), arena_printf(a, "n%zu", c->g.nodes.n),
		              nin, ins, nout, outs);
		if (colon) {
			n->domain = arena_strndup(a, op, (size_t)(colon - op));
			c->ms_domain = 1;
		}
	}
	for (p = strtok(trim(rp + 1), " "); p; p = strtok(NULL, " "))
		add_attr(a, n, p);
	onnx_vec_push(a, &c->g.nodes, n);
}

static void
parse_values(Arena *a, Case *c, Tensor *t, char *v)
{
	int64_t n = numel(t), k = 0;

	if (strncmp(v, "random", 6) == 0) {
		if (sscanf(v + 6, "%lf %lf", &t->lo, &t->hi) != 2) {
			t->lo = -1;
			t->hi = 1;
		}
		fill_random(t, a);
		return;
	}
	t->data = arena_alloc(a, (size_t)(n * types[t->ti].size) + 1);
	{
		static double vals[4096];
		static long long ivals[4096];
		for (char *p = strtok(v, ","); p && k < 4096; p = strtok(NULL, ",")) {
			p = trim(p);
			vals[k] = strcmp(p, "true") == 0 ? 1 : strcmp(p, "false") == 0 ? 0 : strcmp(p, "-inf") == 0 ? -INFINITY
			          : strtod(p, NULL);
			ivals[k++] = strtoll(p, NULL, 10);
		}
		ck_assert_msg(k == 1 || k == n, "%s:%d: %lld values for %lld elements", c->file, c->line,
		              (long long)k, (long long)n);
		for (int64_t i = 0; i < n; i++) {
			if (types[t->ti].elem == 7)     /* int64 exactly (INT64_MAX ends) */
				memcpy((int64_t *)t->data + i, &ivals[k == 1 ? 0 : i], 8);
			else
				store(t->ti, t->data, i, vals[k == 1 ? 0 : i]);
		}
	}
}

/* The declared type: named dims are symbolic (their size is only for data). */
static Onnx__ValueInfoProto *
vinfo(Arena *a, const Tensor *t)
{
	int64_t dims[8];

	for (int i = 0; i < t->rank; i++)
		dims[i] = t->params[i] ? -1 : t->dims[i];
	return onnx_value_info(a, t->name, types[t->ti].elem, t->rank, dims, t->params);
}

/* Executes one statement of a case. */
static void
statement(Arena *a, Case *c, char *s)
{
	Tensor t = {0};
	char *rest;

	if (strncmp(s, "opset ", 6) == 0) {
		c->opset = atoi(s + 6);
	} else if (strncmp(s, "patterns:", 9) == 0) {
		c->patterns = arena_strdup(a, trim(s + 9));
	} else if (strncmp(s, "atol ", 5) == 0) {
		c->atol = strtod(s + 5, NULL);
	} else if (strncmp(s, "input ", 6) == 0) {
		ck_assert_msg(parse_decl(a, s + 6, &t, &rest) == 0 && t.rank >= 0, "%s:%d: bad input", c->file, c->line);
		if (strncmp(rest, "range", 5) == 0)
			sscanf(rest + 5, "%lf %lf", &t.lo, &t.hi);
		else if (types[t.ti].elem != 1 && types[t.ti].elem != 10 && types[t.ti].elem != 11) {
			t.lo = 0;
			t.hi = 4;
		}
		fill_random(&t, a);
		onnx_vec_push(a, &c->g.inputs, vinfo(a, &t));
		c->in[c->nin++] = t;
	} else if (strncmp(s, "init ", 5) == 0) {
		char *eq = strchr(s, '=');
		ck_assert_msg(eq != NULL, "%s:%d: init without values", c->file, c->line);
		*eq = 0;
		ck_assert_msg(parse_decl(a, s + 5, &t, &rest) == 0 && t.rank >= 0, "%s:%d: bad init", c->file, c->line);
		parse_values(a, c, &t, trim(eq + 1));
		onnx_vec_push(a, &c->g.inits, onnx_tensor(a, t.name, types[t.ti].elem, t.rank, t.dims, t.data,
		                                         (size_t)(numel(&t) * types[t.ti].size)));
	} else if (strncmp(s, "info ", 5) == 0) {
		ck_assert_msg(parse_decl(a, s + 5, &t, &rest) == 0, "%s:%d: bad info", c->file, c->line);
		onnx_vec_push(a, &c->g.value_info, vinfo(a, &t));
	} else if (strncmp(s, "output ", 7) == 0) {
		ck_assert_msg(parse_decl(a, s + 7, &t, &rest) == 0, "%s:%d: bad output", c->file, c->line);
		onnx_vec_push(a, &c->g.outputs, vinfo(a, &t));
	} else if (strncmp(s, "node ", 5) == 0) {
		parse_node(a, c, s + 5);
	} else if (strncmp(s, "expect-attr ", 12) == 0) {
		c->has_expect_attr = sscanf(s + 12, "%63s %63[^=]=%lld", c->expect_op, c->expect_attr, &c->expect_val) == 3;
		ck_assert_msg(c->has_expect_attr, "%s:%d: expect-attr OP NAME=INT", c->file, c->line);
	} else if (strncmp(s, "expect", 6) == 0) {
		c->has_expect = 1;
		snprintf(c->expect, sizeof c->expect, "%s", trim(s + 6));
	} else {
		ck_abort_msg("%s:%d: unknown statement '%s'", c->file, c->line, s);
	}
}

/* ---- running a case ---- */

static Onnx__ModelProto *
case_model(Arena *a, Case *c)
{
	Onnx__ModelProto *m = onnx_model(a, onnx_graph_finish(&c->g), c->opset, "test");

	if (c->ms_domain) {
		Onnx__OperatorSetIdProto *op = ARENA_NEW(a, Onnx__OperatorSetIdProto), **ni;
		*op = (Onnx__OperatorSetIdProto)ONNX__OPERATOR_SET_ID_PROTO__INIT;
		op->domain = "com.microsoft";
		op->has_version = 1;
		op->version = 1;
		ni = ARENA_ARRAY(a, Onnx__OperatorSetIdProto *, 2);
		ni[0] = m->opset_import[0];
		ni[1] = op;
		m->opset_import = ni;
		m->n_opset_import = 2;
	}
	return m;
}

static void
write_npy(const char *path, const Tensor *t)
{
	FILE *f = fopen(path, "wb");
	char shape[256] = "", header[512];
	size_t len = 0, hl;

	ck_assert_msg(f != NULL, "cannot write %s", path);
	for (int i = 0; i < t->rank; i++)
		len += (size_t)snprintf(shape + len, sizeof shape - len, "%lld%s", (long long)t->dims[i],
		                        t->rank == 1 ? "," : i + 1 < t->rank ? ", " : "");
	hl = (size_t)snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
	                      types[t->ti].descr, shape);
	while ((10 + hl + 1) % 64)
		header[hl++] = ' ';
	header[hl++] = '\n';
	fwrite("\x93NUMPY\x01\x00", 1, 8, f);
	fputc((int)(hl & 255), f);
	fputc((int)(hl >> 8), f);
	fwrite(header, 1, hl, f);
	fwrite(t->data, 1, (size_t)(numel(t) * types[t->ti].size), f);
	fclose(f);
}

/* The op types of m's nodes, space-separated. */
static void
op_list(const Onnx__ModelProto *m, char *buf, size_t cap)
{
	size_t len = 0;

	buf[0] = 0;
	for (size_t i = 0; i < m->graph->n_node; i++) {
		const OnnxNode *n = m->graph->node[i];
		len += (size_t)snprintf(buf + len, cap - len, "%s%s%s%s", len ? " " : "",
		                        n->domain && *n->domain ? n->domain : "", n->domain && *n->domain ? ":" : "",
		                        n->op_type);
	}
}

/* 1 when some node of m of type op has the int attribute name = v (an
 * absent one reads 0). */
static int
has_int_attr(const Onnx__ModelProto *m, const char *op, const char *name, long long v)
{
	for (size_t i = 0; i < m->graph->n_node; i++) {
		const OnnxNode *n = m->graph->node[i];
		long long x = 0;
		if (strcmp(n->op_type, op) != 0)
			continue;
		for (size_t j = 0; j < n->n_attribute; j++)
			if (strcmp(n->attribute[j]->name, name) == 0)
				x = n->attribute[j]->i;
		if (x == v)
			return 1;
	}
	return 0;
}

static int64_t
row_matches(const Report *r, const char *row)
{
	int64_t n = 0;

	for (int i = 0; i < r->nstat; i++)
		if (strcmp(r->stat[i].pattern, row) == 0)
			n += r->stat[i].instances;
	return n;
}

/* Runs case c (numbered k in its file); adds its manifest entry to mf.
 * Returns 0, or 1 with a message printed. */
static int
run_case(Arena *a, Case *c, int k, FILE *mf, int *first)
{
	char before[1400], after[1400], ops[2048], dir[1400], path[1500];
	Onnx__ModelProto *m;
	Report rep;
	Diag d = {0};
	OptSelect *sel = NULL;
	int off, len, rc;
	int64_t hits;

	snprintf(before, sizeof before, "%s/%s-%d-before.onnx", out_dir(), c->row, k);
	snprintf(after, sizeof after, "%s/%s-%d-after.onnx", out_dir(), c->row, k);
	m = case_model(a, c);
	ck_assert_msg(onnx_write(a, m, before, -1, NULL, &d) == 0, "%s: %s", before, test_diag_text(&d));
	if (c->patterns)
		ck_assert_msg(opt_select_parse(a, c->patterns, &sel, &off, &len) == 0, "%s case %d: bad patterns line",
		              c->file, k);
	else
		sel = opt_select_one(a, opt_row_find(c->row));
	report_init(&rep, a);
	rc = opt_model_checked(m, a, sel, &(OptLog){report_opt_stat, &rep}, NULL, &d);
	ck_assert_msg(rc == 0, "%s case %d: optimizer failed: %s", c->file, k, test_diag_text(&d) ? test_diag_text(&d) : "");
	ck_assert_msg(onnx_write(a, m, after, -1, NULL, &d) == 0, "%s: %s", after, test_diag_text(&d));
	diag_free(&d);
	hits = row_matches(&rep, c->row);
	op_list(m, ops, sizeof ops);
	if (c->kind && !hits) {
		fprintf(stderr, "FAIL %s case %d (%s): %s did not match; nodes after: %s\n", c->file, k, c->what, c->row, ops);
		return 1;
	}
	if (!c->kind && hits) {
		fprintf(stderr, "FAIL %s case %d (%s): a near miss, but %s matched %lld times; nodes after: %s\n", c->file, k,
		       c->what, c->row, (long long)hits, ops);
		return 1;
	}
	if (c->has_expect && strcmp(ops, c->expect) != 0) {
		fprintf(stderr, "FAIL %s case %d (%s): nodes after: '%s', expected '%s'\n", c->file, k, c->what, ops, c->expect);
		return 1;
	}
	if (c->has_expect_attr && !has_int_attr(m, c->expect_op, c->expect_attr, c->expect_val)) {
		fprintf(stderr, "FAIL %s case %d (%s): no %s with %s=%lld; nodes after: %s\n", c->file, k, c->what,
		        c->expect_op, c->expect_attr, c->expect_val, ops);
		return 1;
	}
	snprintf(dir, sizeof dir, "%s/%s-%d", out_dir(), c->row, k);
	mkdir(dir, 0777);
	fprintf(mf, "%s\n {\"name\": \"%s-%d\", \"before\": \"%s-%d-before.onnx\", \"after\": \"%s-%d-after.onnx\", "
	        "\"atol\": %g, \"inputs\": [", *first ? "" : ",", c->row, k, c->row, k, c->row, k, c->atol);
	*first = 0;
	for (int i = 0; i < c->nin; i++) {
		snprintf(path, sizeof path, "%s/in_%d.npy", dir, i);
		write_npy(path, &c->in[i]);
		fprintf(mf, "%s{\"name\": \"%s\", \"file\": \"%s-%d/in_%d.npy\"}", i ? ", " : "", c->in[i].name, c->row,
		        k, i);
	}
	fprintf(mf, "]}");
	return 0;
}

/* Reads test/opt/ROW.txt; counts its match and miss cases.  With mf, runs
 * them; returns the failures. */
static int
run_file(const char *row, FILE *mf, int *first, int *nmatch, int *nmiss)
{
	char path[512], line[2048];
	FILE *f;
	Arena a;
	Case c = {0};
	int k = 0, fails = 0, lineno = 0, open = 0;

	snprintf(path, sizeof path, "test/opt/%s.txt", row);
	*nmatch = *nmiss = 0;
	if (!(f = fopen(path, "r")))
		return -1;
	arena_init(&a);
	for (;;) {
		char *s = fgets(line, sizeof line, f) ? trim(line) : NULL;
		lineno++;
		if (!s || strncmp(s, "==", 2) == 0) {
			if (open && mf)
				fails += run_case(&a, &c, k, mf, first);
			if (!s)
				break;
			memset(&c, 0, sizeof c);
			c.file = path;
			c.row = row;
			c.opset = 18;
			c.atol = 1e-4;
			c.g.a = &a;
			c.g.name = "g";
			s = trim(s + 2);
			c.kind = strncmp(s, "match", 5) == 0;
			ck_assert_msg(c.kind || strncmp(s, "miss", 4) == 0, "%s:%d: a case is a match or a miss", path, lineno);
			c.what = arena_strdup(&a, s);
			*(c.kind ? nmatch : nmiss) += 1;
			k++;
			open = 1;
			rng = 0x9e3779b97f4a7c15ULL ^ (uint64_t)k * 0x100000001b3ULL ^ onnx_fnv1a(row, strlen(row));
			continue;
		}
		if (!*s || *s == '#')
			continue;
		ck_assert_msg(open, "%s:%d: statement before the first case", path, lineno);
		c.line = lineno;
		statement(&a, &c, s);
	}
	fclose(f);
	arena_free(&a);
	return fails;
}

START_TEST(test_every_row_has_cases)
{
	int missing = 0;

	for (int i = 0; i < OPT_NROW; i++) {
		int nm, nx, rc = run_file(opt_rows[i].name, NULL, NULL, &nm, &nx);
		if (rc < 0 || nm < 1 || nx < 1) {
			fprintf(stderr, "test/opt/%s.txt: %s\n", opt_rows[i].name,
			       rc < 0 ? "missing" : nm < 1 ? "no match case" : "no near-miss case");
			missing++;
		}
	}
	ck_assert_msg(missing == 0, "%d rows lack cases (see above)", missing);
}
END_TEST

START_TEST(test_cases)
{
	char mpath[1200], cmd[2600];
	FILE *mf;
	int first = 1, fails = 0, total = 0, matches = 0, misses = 0, rc;

	snprintf(mpath, sizeof mpath, "%s/manifest.json", out_dir());
	mf = fopen(mpath, "w");
	ck_assert_msg(mf != NULL, "cannot write %s", mpath);
	fprintf(mf, "{\"cases\": [");
	for (int i = 0; i < OPT_NROW; i++) {
		int nm = 0, nx = 0, f = run_file(opt_rows[i].name, mf, &first, &nm, &nx);
		fails += f > 0 ? f : 0;
		matches += nm;
		misses += nx;
	}
	fprintf(mf, "\n]}\n");
	fclose(mf);
	total = matches + misses;
	fprintf(stderr, "opt cases: %d (%d matches, %d near misses), %d failed\n", total, matches, misses, fails);
	ck_assert_msg(fails == 0, "%d of %d optimizer cases failed (see above)", fails, total);
	snprintf(cmd, sizeof cmd, "node test/opt/compare.mjs %s > %s/compare.log 2>&1", mpath, out_dir());
	rc = system(cmd);
	snprintf(cmd, sizeof cmd, "grep -E '^(FAIL|opt-ort|compare)' %s/compare.log", out_dir());
	if (system(cmd) != 0 || rc != 0)
		ck_abort_msg("onnxruntime disagrees before and after (%s/compare.log)", out_dir());
}
END_TEST

/* ---- the table, the option, the docs ---- */

START_TEST(test_rows)
{
	int npat = 0;

	for (int i = 0; i < OPT_NROW; i++) {
		const OptRow *r = &opt_rows[i];
		ck_assert_msg(r->name && *r->name && r->doc && *r->doc, "row %d", i);
		ck_assert_msg((r->pat != NULL) != (r->pass != NULL), "%s: a pass or a pattern", r->name);
		ck_assert_msg(!r->pat || (r->root && *r->root), "%s: no root op", r->name);
		ck_assert_msg(r->sets == OPT_SET_DEFAULT || r->sets == OPT_SET_ORT || r->sets == OPT_SET_NAMED, "%s: sets",
		              r->name);
		ck_assert_msg(r->opset_min <= r->opset_max, "%s: opset range", r->name);
		ck_assert_int_eq(opt_row_find(r->name), i);
		npat += r->pat != NULL;
	}
	ck_assert_msg(npat >= 40, "only %d patterns", npat);
}
END_TEST

START_TEST(test_select)
{
	Arena a;
	OptSelect *s;
	int off, len, cc = opt_row_find("CastCast"), fm = opt_row_find("FusedMatMulTranspose");

	arena_init(&a);
	ck_assert(opt_select_has(NULL, cc) && !opt_select_has(NULL, fm));
	ck_assert_int_eq(opt_select_parse(&a, "default", &s, &off, &len), 0);
	ck_assert(opt_select_has(s, cc) && !opt_select_has(s, fm));
	ck_assert_int_eq(opt_select_parse(&a, "default+onnxruntime", &s, &off, &len), 0);
	ck_assert(opt_select_has(s, cc) && opt_select_has(s, fm));
	ck_assert_int_eq(opt_select_parse(&a, "onnxruntime", &s, &off, &len), 0);
	ck_assert(!opt_select_has(s, cc) && opt_select_has(s, fm));
	ck_assert_int_eq(opt_select_parse(&a, "default - CastCast", &s, &off, &len), 0);
	ck_assert(!opt_select_has(s, cc) && opt_select_has(s, opt_row_find("NegNeg")));
	ck_assert_int_eq(opt_select_parse(&a, "none", &s, &off, &len), 0);
	for (int i = 0; i < OPT_NROW; i++)
		ck_assert(!opt_select_has(s, i));
	ck_assert_int_eq(opt_select_parse(&a, "CastCast, NegNeg", &s, &off, &len), 0);
	ck_assert(opt_select_has(s, cc) && opt_select_has(s, opt_row_find("NegNeg")) &&
	          !opt_select_has(s, opt_row_find("ReluRelu")));
	ck_assert_int_eq(opt_select_parse(&a, "default-CastCats", &s, &off, &len), -1);
	ck_assert_int_eq(off, 8);
	ck_assert_int_eq(len, 8);
	ck_assert_int_eq(opt_select_parse(&a, "default+", &s, &off, &len), -1);
	arena_free(&a);
}
END_TEST

/* Parses the options text; returns the message (static) or "" when ok. */
static const char *
options_error(const char *yaml, Options *o, Arena *a)
{
	static char msg[512];
	Diag d = {0};

	options_default(o);
	msg[0] = 0;
	if (options_parse(o, a, "options.yaml", yaml, strlen(yaml), &d))
		snprintf(msg, sizeof msg, "%s", test_diag_text(&d));
	diag_free(&d);
	return msg;
}

START_TEST(test_option)
{
	Arena a;
	Options o;

	arena_init(&a);
	ck_assert_str_eq(options_error("opset: 18\npatterns: default-Foo\n", &o, &a),
	                 "options.yaml:2:19: unknown pattern 'Foo' (see docs/patterns.md)\n");
	ck_assert_str_eq(options_error("patterns: \"default+Bar\"\n", &o, &a),
	                 "options.yaml:1:20: unknown pattern 'Bar' (see docs/patterns.md)\n");
	ck_assert_str_eq(options_error("patterns:\n  - CastCast\n  - Nope\n", &o, &a),
	                 "options.yaml:3:5: unknown pattern 'Nope' (see docs/patterns.md)\n");
	ck_assert_str_eq(options_error("patterns: [CastCast, NegNeg]\n", &o, &a), "");
	ck_assert(opt_select_has(o.patterns, opt_row_find("NegNeg")));
	ck_assert(!opt_select_has(o.patterns, opt_row_find("ReluRelu")));
	ck_assert_str_eq(options_error("patterns: none\n", &o, &a), "");
	ck_assert(!opt_select_has(o.patterns, opt_row_find("ConstantFolding")));
	ck_assert_str_eq(options_error("opset: 20\n", &o, &a), "");
	ck_assert(o.patterns == NULL && opt_select_has(o.patterns, opt_row_find("ConstantFolding")));
	arena_free(&a);
}
END_TEST

START_TEST(test_docs_up_to_date)
{
	free(test_doc_current(opt_write_doc, "docs/patterns.md"));
}
END_TEST

/* ---- the evaluator ---- */

static FoldTensor
ft(int elem, int rank, const int64_t *dims, const void *data)
{
	FoldTensor t = {.elem = elem, .rank = rank, .numel = 1, .data = data};

	for (int i = 0; i < rank; i++) {
		t.dims[i] = dims[i];
		t.numel *= dims[i];
	}
	return t;
}

/* Evaluates op on the inputs; returns the output (asserting success). */
static FoldTensor
eval(Arena *a, OnnxNode *n, int nin, const FoldTensor *in)
{
	const FoldTensor *p[8];
	FoldTensor out = {0};

	for (int i = 0; i < nin; i++)
		p[i] = in[i].data ? &in[i] : NULL;
	ck_assert_msg(fold_eval(a, n, nin, p, &out, 1 << 20) == 0, "%s did not fold", n->op_type);
	return out;
}

static OnnxNode *
node1(Arena *a, const char *op, int nin)
{
	static const char *const in[8] = {"a", "b", "c", "d", "e", "f", "g", "h"}, *out[1] = {"y"};

	return onnx_node(a, op, op, nin, in, 1, out);
}

START_TEST(test_fold)
{
	Arena a;
	OnnxNode *n;
	FoldTensor in[5], y;
	const float x23[6] = {1, 2, 3, 4, 5, 6};
	const int64_t d23[2] = {2, 3}, d3[1] = {3}, d1[1] = {1};

	arena_init(&a);
	/* Transpose */
	n = node1(&a, "Transpose", 1);
	in[0] = ft(1, 2, d23, x23);
	y = eval(&a, n, 1, in);
	ck_assert(y.rank == 2 && y.dims[0] == 3 && y.dims[1] == 2);
	ck_assert(((float *)y.data)[1] == 4 && ((float *)y.data)[2] == 2);
	/* Slice with a negative step: x[:, ::-2] */
	{
		const int64_t st[1] = {-1}, en[1] = {INT64_MIN}, ax[1] = {1}, sp[1] = {-2};
		n = node1(&a, "Slice", 5);
		in[1] = ft(7, 1, d1, st);
		in[2] = ft(7, 1, d1, en);
		in[3] = ft(7, 1, d1, ax);
		in[4] = ft(7, 1, d1, sp);
		y = eval(&a, n, 5, in);
		ck_assert(y.dims[0] == 2 && y.dims[1] == 2);
		ck_assert(((float *)y.data)[0] == 3 && ((float *)y.data)[1] == 1 && ((float *)y.data)[3] == 4);
	}
	/* Gather with a negative index along axis 1 */
	{
		const int64_t idx[1] = {-1};
		n = node1(&a, "Gather", 2);
		onnx_attr_int(&a, n, "axis", 1);
		in[1] = ft(7, 1, d1, idx);
		y = eval(&a, n, 2, in);
		ck_assert(y.dims[0] == 2 && y.dims[1] == 1 && ((float *)y.data)[1] == 6);
	}
	/* Reshape with 0 and -1 */
	{
		const int64_t s[2] = {0, -1};
		n = node1(&a, "Reshape", 2);
		in[1] = ft(7, 1, (const int64_t[]){2}, s);
		y = eval(&a, n, 2, in);
		ck_assert(y.rank == 2 && y.dims[0] == 2 && y.dims[1] == 3 && y.data == x23);
	}
	/* Cast float -> int64 truncates toward zero */
	{
		const float f[3] = {-1.7f, 2.9f, 0.5f};
		n = node1(&a, "Cast", 1);
		onnx_attr_int(&a, n, "to", 7);
		in[0] = ft(1, 1, d3, f);
		y = eval(&a, n, 1, in);
		ck_assert(((int64_t *)y.data)[0] == -1 && ((int64_t *)y.data)[1] == 2 && ((int64_t *)y.data)[2] == 0);
	}
	/* Range and integer Div/Mod (Python's sign for Mod) */
	{
		const int64_t s0 = 2, l0 = 11, dl = 3, m7[1] = {-7}, m3[1] = {3};
		n = node1(&a, "Range", 3);
		in[0] = ft(7, 0, NULL, &s0);
		in[1] = ft(7, 0, NULL, &l0);
		in[2] = ft(7, 0, NULL, &dl);
		y = eval(&a, n, 3, in);
		ck_assert(y.numel == 3 && ((int64_t *)y.data)[2] == 8);
		n = node1(&a, "Mod", 2);
		in[0] = ft(7, 1, d1, m7);
		in[1] = ft(7, 1, d1, m3);
		y = eval(&a, n, 2, in);
		ck_assert(((int64_t *)y.data)[0] == 2);
		n = node1(&a, "Div", 2);
		y = eval(&a, n, 2, in);
		ck_assert(((int64_t *)y.data)[0] == -2);
	}
	/* Where broadcasting, Equal, ConstantOfShape, Concat, Expand */
	{
		const uint8_t c[3] = {1, 0, 1};
		const float b[1] = {-1};
		n = node1(&a, "Where", 3);
		in[0] = ft(9, 1, d3, c);
		in[1] = ft(1, 2, d23, x23);
		in[2] = ft(1, 1, d1, b);
		y = eval(&a, n, 3, in);
		ck_assert(((float *)y.data)[1] == -1 && ((float *)y.data)[5] == 6 && y.numel == 6);
		n = node1(&a, "Equal", 2);
		in[0] = ft(1, 2, d23, x23);
		in[1] = ft(1, 0, NULL, &x23[4]);
		y = eval(&a, n, 2, in);
		ck_assert(y.elem == 9 && ((uint8_t *)y.data)[4] == 1 && ((uint8_t *)y.data)[3] == 0);
		n = node1(&a, "ConstantOfShape", 1);
		in[0] = ft(7, 1, (const int64_t[]){2}, d23);
		y = eval(&a, n, 1, in);
		ck_assert(y.elem == 1 && y.numel == 6 && ((float *)y.data)[5] == 0);
		n = node1(&a, "Concat", 2);
		onnx_attr_int(&a, n, "axis", 0);
		in[0] = ft(7, 1, (const int64_t[]){2}, d23);
		in[1] = ft(7, 1, d1, d3);
		y = eval(&a, n, 2, in);
		ck_assert(y.numel == 3 && ((int64_t *)y.data)[2] == 3);
		n = node1(&a, "Expand", 2);
		in[0] = ft(1, 1, d1, b);
		in[1] = ft(7, 1, (const int64_t[]){2}, d23);
		y = eval(&a, n, 2, in);
		ck_assert(y.numel == 6 && ((float *)y.data)[5] == -1);
	}
	/* Unsupported: an op the table lacks, a budget exceeded */
	{
		const FoldTensor *p[1] = {&in[0]};
		FoldTensor out;
		n = node1(&a, "Softmax", 1);
		ck_assert_int_eq(fold_eval(&a, n, 1, p, &out, 1 << 20), -1);
		n = node1(&a, "Expand", 2);
		in[1] = ft(7, 1, (const int64_t[]){2}, (const int64_t[]){1000, 1000});
		{
			const FoldTensor *q[2] = {&in[0], &in[1]};
			ck_assert_int_eq(fold_eval(&a, n, 2, q, &out, 1 << 20), -1);
		}
	}
	arena_free(&a);
}
END_TEST

/* ---- engine invariants ---- */

/* A chain of n Neg nodes from x to y. */
static Onnx__ModelProto *
neg_chain(Arena *a, int n)
{
	OnnxGraph g = {.a = a, .name = "chain"};
	int64_t d[1] = {4};

	onnx_vec_push(a, &g.inputs, onnx_value_info(a, "x", 1, 1, d, NULL));
	for (int i = 0; i < n; i++) {
		const char *in = i ? arena_printf(a, "v%d", i - 1) : "x";
		const char *out = i + 1 == n ? "y" : arena_printf(a, "v%d", i);
		onnx_vec_push(a, &g.nodes, onnx_node(a, "Neg", arena_printf(a, "n%d", i), 1, &in, 1, &out));
	}
	onnx_vec_push(a, &g.outputs, onnx_value_info(a, "y", 1, 1, d, NULL));
	return onnx_model(a, onnx_graph_finish(&g), 18, "test");
}

static double
opt_seconds(int n, int *left)
{
	Arena a;
	Diag d = {0};
	OptResult res;
	Onnx__ModelProto *m;

	arena_init(&a);
	m = neg_chain(&a, n);
	ck_assert_int_eq(opt_model(m, &a, NULL, NULL, &res, &d), 0);
	*left = (int)m->graph->n_node;
	arena_free(&a);
	return res.seconds;
}

START_TEST(test_linear)
{
	int left;
	double t1 = opt_seconds(20001, &left), t4;

	ck_assert_int_eq(left, 1);
	t4 = opt_seconds(80001, &left);
	ck_assert_int_eq(left, 1);
	/* four times the nodes: well under sixteen times the time */
	ck_assert_msg(t4 < 8 * t1 + 0.05, "20001 nodes: %.3f s, 80001 nodes: %.3f s", t1, t4);
}
END_TEST

START_TEST(test_stats)
{
	Arena a;
	Diag d = {0};
	Report r;
	Onnx__ModelProto *m;
	int64_t removed = 0, added = 0;

	arena_init(&a);
	report_init(&r, &a);
	m = neg_chain(&a, 7);
	ck_assert_int_eq(opt_model(m, &a, NULL, &(OptLog){report_opt_stat, &r}, NULL, &d), 0);
	ck_assert_int_eq((int)m->graph->n_node, 1);
	ck_assert_int_gt(r.nstat, 0);
	for (int i = 0; i < r.nstat; i++) {
		const ReportStat *s = &r.stat[i];
		ck_assert(opt_row_find(s->pattern) >= 0);
		ck_assert(s->iteration >= 0 && s->match_index >= 0 && s->instances > 0 && s->time_in >= 0);
		removed += s->removed;
		added += s->added;
	}
	ck_assert_int_eq(removed - added, 6);
	ck_assert_str_eq(r.stat[0].pattern, "NegNeg");
	ck_assert_int_eq(r.stat[0].iteration, 1);
	arena_free(&a);
}
END_TEST

/* ---- computed initializers (onnx.h) ---- */

/* Element k of a scaled recipe, as the writer must compute it. */
static float
scaled_at(const OnnxScaled *s, int64_t k)
{
	return (float)dtype_decode_f64(DT_FLOAT32, s->src + 4 * k) * s->scale[k / s->per];
}

/* The initializer named name in a written model, its raw bytes in *n
 * (read from dir/location when external). */
static uint8_t *
written_init(const char *path, const char *dir, const char *name, size_t *n)
{
	size_t len;
	uint8_t *b = (uint8_t *)test_slurp(path, &len), *out = NULL;
	Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, b);

	ck_assert(m != NULL);
	for (size_t i = 0; i < m->graph->n_initializer; i++) {
		const OnnxTensor *t = m->graph->initializer[i];
		if (strcmp(t->name, name) != 0)
			continue;
		if (t->has_raw_data) {
			*n = t->raw_data.len;
			out = malloc(*n + 1);
			memcpy(out, t->raw_data.data, *n);
		} else {
			char file[1300];
			size_t dl;
			uint8_t *data;
			long long off = atoll(t->external_data[1]->value);
			*n = (size_t)atoll(t->external_data[2]->value);
			snprintf(file, sizeof file, "%s/%s", dir, t->external_data[0]->value);
			data = (uint8_t *)test_slurp(file, &dl);
			ck_assert(data && (size_t)off + *n <= dl);
			out = malloc(*n + 1);
			memcpy(out, data + off, *n);
			free(data);
		}
	}
	onnx__model_proto__free_unpacked(m, NULL);
	free(b);
	return out;
}

/* A computed initializer is written as its products, inline or as
 * external data, from memory or from the mapped input (pread, in 256 KiB
 * chunks that cut rows), and m keeps the recipe; onnx_tensor_bytes()
 * computes the same bytes in memory. */
START_TEST(test_computed)
{
	enum { ROWS = 7, PER = 10007 };
	Arena a;
	Diag d = {0};
	char path[1200], src_path[1200];
	int64_t dims[2] = {ROWS, PER};
	float scale[ROWS];
	size_t nsrc = 3 + (size_t)ROWS * PER * 4, n;
	uint8_t *file = malloc(nsrc);
	const uint8_t *base;
	FILE *f;
	int fd;

	arena_init(&a);
	rng = 7;
	for (size_t i = 0; i < nsrc; i++)
		file[i] = (uint8_t)(uniform() * 64 + 32);   /* finite floats */
	for (int i = 0; i < ROWS; i++)
		scale[i] = (float)(uniform() * 4 - 2);
	snprintf(src_path, sizeof src_path, "%s/computed.src", out_dir());
	f = fopen(src_path, "wb");
	ck_assert(f && fwrite(file, 1, nsrc, f) == nsrc && fclose(f) == 0);
	fd = open(src_path, O_RDONLY);
	base = mmap(NULL, nsrc, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert(fd >= 0 && base != MAP_FAILED);
	for (int mode = 0; mode < 4; mode++) {
		/* 0, 1: inline, from memory / the mapping; 2, 3: external data */
		OnnxScaled s = {mode & 1 ? base + 3 : file + 3, ROWS, PER, scale, 4};
		OnnxSource src = {fd, base, nsrc};
		OnnxGraph g = {.a = &a, .name = "computed"};
		const char *in = "w", *out = "y";
		OnnxTensor *t = onnx_tensor_scaled(&a, "w", 2, dims, &s);
		Onnx__ModelProto *m;
		uint8_t *got;

		ck_assert(onnx_tensor_recipe(t) != NULL && !t->has_raw_data && t->raw_data.len == (size_t)ROWS * PER * 4);
		onnx_vec_push(&a, &g.inits, t);
		onnx_vec_push(&a, &g.nodes, onnx_node(&a, "Identity", "n", 1, &in, 1, &out));
		onnx_vec_push(&a, &g.outputs, onnx_value_info(&a, "y", 1, 2, dims, NULL));
		m = onnx_model(&a, onnx_graph_finish(&g), 18, "test");
		snprintf(path, sizeof path, "%s/computed-%d.onnx", out_dir(), mode);
		ck_assert_msg(onnx_write(&a, m, path, mode < 2 ? -1 : 0, mode & 1 ? &src : NULL, &d) == 0, "%s", test_diag_text(&d));
		ck_assert((onnx_tensor_recipe(t) != NULL) == (mode < 2));
		got = written_init(path, out_dir(), "w", &n);
		ck_assert(got && n == (size_t)ROWS * PER * 4);
		for (int64_t k = 0; k < (int64_t)ROWS * PER; k++) {
			float v = (float)dtype_decode_f64(DT_FLOAT32, got + 4 * k);
			ck_assert_msg(memcmp(&v, &(float){scaled_at(&s, k)}, 4) == 0, "mode %d: element %lld", mode, (long long)k);
		}
		if (mode == 0) {
			const uint8_t *mem = onnx_tensor_bytes(&a, t);
			ck_assert(mem && t->has_raw_data && !onnx_tensor_recipe(t) && memcmp(mem, got, n) == 0);
		}
		free(got);
	}
	munmap((void *)base, nsrc);
	close(fd);
	free(file);
	diag_free(&d);
	arena_free(&a);
}
END_TEST

/* Two Convs of one weight, each normalized by the same statistics: both
 * fold into computed weights with one recipe, and DedupInitializers makes
 * them one without computing them. */
/* A transposed recipe filled at any offset and length gives the transpose:
 * whole rows (the tiled path), rows cut at both ends, element sizes 2 and 8. */
START_TEST(test_computed_transposed)
{
	enum { ROWS = 37, PER = 45 };
	static uint8_t src[ROWS * PER * 8], dst[ROWS * PER * 8];

	for (size_t i = 0; i < sizeof src; i++)
		src[i] = (uint8_t)(i * 131 + 7);
	for (int es = 2; es <= 8; es += 6) {
		OnnxScaled s = {src, ROWS, PER, NULL, es};
		const uint64_t spans[][2] = {{0, ROWS * PER}, {5, 3}, {ROWS - 2, ROWS * 3 + 5}, {ROWS, ROWS * 2},
		                             {11, ROWS * PER - 11}};
		for (size_t k = 0; k < sizeof spans / sizeof *spans; k++) {
			uint64_t e = spans[k][0], n = spans[k][1];
			memset(dst, 0, sizeof dst);
			onnx_scaled_fill(&s, e * (uint64_t)es, (size_t)n * (size_t)es, dst);
			for (uint64_t q = 0; q < n; q++) {
				uint64_t o = e + q, i = o / ROWS, j = o % ROWS;
				ck_assert_msg(!memcmp(dst + q * (uint64_t)es, src + (j * PER + i) * (uint64_t)es, (size_t)es),
				              "esize %d span %zu element %llu", es, k, (unsigned long long)o);
			}
		}
	}
}
END_TEST

START_TEST(test_computed_dedup)
{
	Arena a;
	Diag d = {0};
	OnnxGraph g;
	Onnx__ModelProto *m;
	int64_t xd[4] = {1, 2, 5, 5}, wd[4] = {3, 2, 3, 3}, cd[1] = {3}, pads[4] = {1, 1, 1, 1};
	float *w, stat[4][3] = {{1.5f, 0.5f, 2}, {0.1f, -0.2f, 0.3f}, {0.2f, 0, -0.1f}, {0.5f, 1, 2}};
	const char *stats[4] = {"g", "b", "mu", "var"};
	int computed = 0;

	arena_init(&a);
	g = (OnnxGraph){.a = &a, .name = "dedup"};
	w = ARENA_ARRAY(&a, float, 54);
	for (int i = 0; i < 54; i++)
		w[i] = (float)(i % 7) - 3;
	onnx_vec_push(&a, &g.inputs, onnx_value_info(&a, "x", 1, 4, xd, NULL));
	onnx_vec_push(&a, &g.inits, onnx_tensor(&a, "w", 1, 4, wd, w, 54 * 4));
	for (int k = 0; k < 4; k++)
		onnx_vec_push(&a, &g.inits, onnx_tensor(&a, stats[k], 1, 1, cd, stat[k], 12));
	for (int i = 0; i < 2; i++) {
		const char *cin[2] = {"x", "w"}, *c = i ? "c1" : "c0", *y = i ? "y1" : "y0";
		const char *bin[5] = {c, "g", "b", "mu", "var"};
		OnnxNode *conv = onnx_node(&a, "Conv", c, 2, cin, 1, &c);
		if (i)
			onnx_attr_ints(&a, conv, "pads", 4, pads);   /* not the same Conv: CSE keeps both */
		onnx_vec_push(&a, &g.nodes, conv);
		onnx_vec_push(&a, &g.nodes, onnx_node(&a, "BatchNormalization", y, 5, bin, 1, &y));
		onnx_vec_push(&a, &g.outputs, onnx_value_info(&a, y, 1, -1, NULL, NULL));
	}
	m = onnx_model(&a, onnx_graph_finish(&g), 18, "test");
	ck_assert_int_eq(opt_model_checked(m, &a, NULL, NULL, NULL, &d), 0);
	ck_assert_int_eq((int)m->graph->n_node, 2);
	for (size_t i = 0; i < m->graph->n_initializer; i++)
		computed += onnx_tensor_recipe(m->graph->initializer[i]) != NULL;
	ck_assert_int_eq(computed, 1);
	ck_assert_str_eq(m->graph->node[0]->input[1], m->graph->node[1]->input[1]);
	diag_free(&d);
	arena_free(&a);
}
END_TEST

/* ---- the fixtures ---- */

static Onnx__ModelProto *
lower_fixture(const char *path, Arena *a, Program *p, int *ok)
{
	Options o;
	Diag d = {0};
	Onnx__ModelProto *m = NULL;

	options_default(&o);
	p->arena = a;
	*ok = pt2_load(p, path, &d) == 0 && lower_program(p, options_lower(&o, &(LowerOptions){0}), a, &m, &d) == 0;
	diag_free(&d);
	return m;
}

/* The bytes onnx_write() writes for m (computed initializers included,
 * which protobuf_c_message_pack() would leave out). */
static uint8_t *
pack(Arena *a, Onnx__ModelProto *m, size_t *len)
{
	char path[1200];
	Diag d = {0};

	snprintf(path, sizeof path, "%s/pack.onnx", out_dir());
	ck_assert_msg(onnx_write(a, m, path, -1, NULL, &d) == 0, "%s: %s", path, test_diag_text(&d));
	diag_free(&d);
	return (uint8_t *)test_slurp(path, len);
}

START_TEST(test_fixtures)
{
	glob_t gl;
	int fewer = 0, converted = 0;

	ck_assert(glob("test/models/torch-*/*.pt2", 0, NULL, &gl) == 0);
	for (size_t i = 0; i < gl.gl_pathc; i++) {
		Arena a1, a2;
		Program p1 = {0}, p2 = {0};
		int ok1, ok2;
		Onnx__ModelProto *m1, *m2;
		Diag d = {0};
		size_t n0, l1, l2;
		uint8_t *b1, *b2;
		arena_init(&a1);
		arena_init(&a2);
		m1 = lower_fixture(gl.gl_pathv[i], &a1, &p1, &ok1);
		m2 = lower_fixture(gl.gl_pathv[i], &a2, &p2, &ok2);
		if (ok1 && ok2) {
			converted++;
			n0 = m1->graph->n_node;
			ck_assert_msg(opt_model_checked(m1, &a1, NULL, NULL, NULL, &d) == 0, "%s: %s", gl.gl_pathv[i], test_diag_text(&d));
			ck_assert_msg(opt_model(m2, &a2, NULL, NULL, NULL, &d) == 0, "%s: %s", gl.gl_pathv[i], test_diag_text(&d));
			ck_assert_msg(m1->graph->n_node <= n0, "%s: %zu nodes after, %zu before", gl.gl_pathv[i],
			              m1->graph->n_node, n0);
			fewer += m1->graph->n_node < n0;
			b1 = pack(&a1, m1, &l1);
			b2 = pack(&a2, m2, &l2);
			ck_assert_msg(l1 == l2 && memcmp(b1, b2, l1) == 0, "%s: two runs differ", gl.gl_pathv[i]);
			free(b1);
			free(b2);
		}
		diag_free(&d);
		pt2_close(&p1);
		pt2_close(&p2);
		arena_free(&a1);
		arena_free(&a2);
	}
	globfree(&gl);
	ck_assert_msg(converted > 10 && fewer > converted / 2, "%d fixtures converted, %d got smaller", converted, fewer);
}
END_TEST

/* Outputs of g's nodes (and of its subgraphs') that have neither a
 * value_info with an element type nor a place among the graph outputs. */
static int
untyped_outputs(const Onnx__GraphProto *g, const char *path)
{
	int bad = 0;

	for (size_t i = 0; i < g->n_node; i++) {
		const OnnxNode *n = g->node[i];
		for (size_t k = 0; k < n->n_output; k++) {
			int found = !*n->output[k];
			for (size_t j = 0; j < g->n_value_info && !found; j++)
				found = strcmp(g->value_info[j]->name, n->output[k]) == 0 &&
				        g->value_info[j]->type->tensor_type->elem_type != 0;
			for (size_t j = 0; j < g->n_output && !found; j++)
				found = strcmp(g->output[j]->name, n->output[k]) == 0;
			if (!found && bad++ < 3)
				fprintf(stderr, "%s: %s output '%s' has no value_info\n", path, n->op_type, n->output[k]);
		}
		for (size_t a = 0; a < n->n_attribute; a++) {
			if (n->attribute[a]->g)
				bad += untyped_outputs(n->attribute[a]->g, path);
			for (size_t j = 0; j < n->attribute[a]->n_graphs; j++)
				bad += untyped_outputs(n->attribute[a]->graphs[j], path);
		}
	}
	return bad;
}

/* Issue 3: every intermediate gets a value_info with its dtype and shape,
 * the steps of a lowering (linear's MatMul before its Add, sdpa's Softmax)
 * and what rewrites add included, optimized or not (`patterns: none`). */
START_TEST(test_value_info)
{
	static const char *const names[] = {
		"torch-2.14/attention", "torch-2.14/attention_dyn", "torch-2.14/attention_decomp",
		"torch-2.14/tiny_llama", "torch-2.14/hf_gpt2", "torch-2.14/tv_resnet",
		"torch-2.14/op_norms_decomp", "torch-2.14/op_index", "torch-2.14/cond_nested",
		"torch-2.14/while_loop", "torch-2.6/scan", "torch-2.14/sym_ops", "torch-2.14/op_rnn",
		"torch-2.14/op_elementwise", "torch-2.14/op_pool", "torch-2.14/nonzero", "torch-2.14/hf_llama_dyn",
		"torch-2.14/op_reduce", "torch-2.14/op_shape",
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		for (int none = 0; none < 2; none++) {
			char path[256];
			Arena a;
			Program p = {0};
			Diag d = {0};
			OptSelect *sel = NULL;
			int ok, off, len;
			Onnx__ModelProto *m;
			snprintf(path, sizeof path, "test/models/%s.pt2", names[i]);
			arena_init(&a);
			m = lower_fixture(path, &a, &p, &ok);
			ck_assert_msg(ok, "%s does not convert", path);
			ck_assert_int_eq(opt_select_parse(&a, none ? "none" : "default", &sel, &off, &len), 0);
			ck_assert_msg(opt_model(m, &a, sel, NULL, NULL, &d) == 0, "%s: %s", path, test_diag_text(&d));
			ck_assert_msg(untyped_outputs(m->graph, path) == 0, "%s (patterns: %s): outputs without value_info",
			              path, none ? "none" : "default");
			diag_free(&d);
			pt2_close(&p);
			arena_free(&a);
		}
}
END_TEST

/* Issue 5's target on torchvision's ResNet-18 (tv_resnet18: full widths,
 * 44.7 MB of weights, one 1x3x32x32 image, static shapes): lowered it has
 * 69 nodes (20 Conv, 20 BatchNormalization, 17 Relu, 8 Add, MaxPool,
 * GlobalAveragePool, Reshape, Gemm); optimized at most 49, every norm
 * folded into its Conv.  The 20 folded weights stay computed initializers
 * (onnx.h): the optimizer never writes the 44.7 MB, which is what keeps its
 * share of the conversion time under 10%. */
START_TEST(test_resnet18)
{
	Arena a;
	Program p = {0};
	Diag d = {0};
	int ok, conv = 0, bn = 0, computed = 0;
	size_t n0;
	Onnx__ModelProto *m;

	arena_init(&a);
	m = lower_fixture("test/models/torch-2.14/tv_resnet18.pt2", &a, &p, &ok);
	ck_assert_msg(ok, "tv_resnet18 does not convert");
	n0 = m->graph->n_node;
	ck_assert_int_eq((int)n0, 69);
	ck_assert_int_eq(opt_model(m, &a, NULL, NULL, NULL, &d), 0);
	ck_assert_msg(m->graph->n_node <= 49, "ResNet-18: %zu nodes after optimization (%zu before), want <= 49",
	              m->graph->n_node, n0);
	for (size_t i = 0; i < m->graph->n_node; i++) {
		conv += strcmp(m->graph->node[i]->op_type, "Conv") == 0;
		bn += strcmp(m->graph->node[i]->op_type, "BatchNormalization") == 0;
	}
	for (size_t i = 0; i < m->graph->n_initializer; i++)
		computed += onnx_tensor_recipe(m->graph->initializer[i]) != NULL;
	ck_assert_int_eq(conv, 20);
	ck_assert_int_eq(bn, 0);
	ck_assert_int_eq(computed, 20);
	diag_free(&d);
	pt2_close(&p);
	arena_free(&a);
}
END_TEST

/* A loop body reads an outer weight through Tanh: the body is optimized
 * with the outer constants in view, so Tanh folds into a body initializer. */
START_TEST(test_subgraph)
{
	Arena a;
	Program p = {0};
	Diag d = {0};
	int ok;
	Onnx__ModelProto *m;
	const Onnx__GraphProto *body = NULL;

	arena_init(&a);
	m = lower_fixture("test/models/torch-2.14/while_loop.pt2", &a, &p, &ok);
	if (ok) {
		ck_assert_int_eq(opt_model_checked(m, &a, NULL, NULL, NULL, &d), 0);
		for (size_t i = 0; i < m->graph->n_node; i++)
			for (size_t k = 0; k < m->graph->node[i]->n_attribute; k++)
				if (m->graph->node[i]->attribute[k]->g)
					body = m->graph->node[i]->attribute[k]->g;
		ck_assert(body != NULL);
		for (size_t i = 0; i < body->n_node; i++)
			ck_assert_str_ne(body->node[i]->op_type, "Tanh");
		ck_assert_int_ge((int)body->n_initializer, 1);
	}
	diag_free(&d);
	pt2_close(&p);
	arena_free(&a);
}
END_TEST

/* ---- the ONNX op table (lib/onnx/onnxops.def) ---- */

/* The rows are sorted (the lookup searches by halves), unique, each found
 * under its own domain and name; the columns point where they should. */
START_TEST(test_onnx_ops)
{
	for (int i = 0; i < ONNXOP_COUNT; i++) {
		const OnnxOp *r = &onnx_ops[i];
		ck_assert_msg(onnx_op_find(r->domain, r->name) == i, "%s:%s is not found as row %d", r->domain, r->name, i);
		if (i > 0) {
			const OnnxOp *p = &onnx_ops[i - 1];
			int c = strcmp(p->domain, r->domain);
			ck_assert_msg(c < 0 || (c == 0 && strcmp(p->name, r->name) < 0),
			              "onnxops.def: %s:%s is not sorted after %s:%s", r->domain, r->name, p->domain, p->name);
		}
		ck_assert_int_ge(r->since, 1);
		ck_assert(r->max == 0 || r->max >= r->since);
	}
	ck_assert_int_eq(onnx_op_find(NULL, "Add"), ONNXOP_ADD);
	ck_assert_int_eq(onnx_op_find("ai.onnx", "Add"), ONNXOP_ADD);
	ck_assert_int_eq(onnx_op_find("", "Abs"), ONNXOP_ABS);
	ck_assert_int_eq(onnx_op_find("", "Xor"), ONNXOP_XOR);
	ck_assert_int_eq(onnx_op_find("com.microsoft", "Gelu"), ONNXOP_MS_GELU);
	ck_assert_int_ne(ONNXOP_MS_GELU, ONNXOP_GELU);
	ck_assert_int_eq(onnx_op_find("", "FusedMatMul"), -1);
	ck_assert_int_eq(onnx_op_find("com.microsoft", "Add"), -1);
	ck_assert_int_eq(onnx_op_find("", "NoSuchOp"), -1);
	ck_assert_int_eq(onnx_op_find("", ""), -1);
	ck_assert(fold_supported("Add") && fold_supported("Constant") && !fold_supported("Gelu"));
	ck_assert(onnx_infer_known(ONNXOP_RESHAPE, ONNX_MODEL_NAMES) &&
	          onnx_infer_known(ONNXOP_MS_FUSED_MAT_MUL, ONNX_MODEL_NAMES));
	ck_assert(!onnx_infer_known(ONNXOP_IF, ONNX_MODEL_NAMES) && !onnx_infer_known(-1, ONNX_MODEL_NAMES) &&
	          !onnx_infer_known(ONNXOP_COUNT, ONNX_MODEL_NAMES));
	/* a row serves the models its models column names */
	ck_assert(onnx_infer_known(ONNXOP_RESHAPE, ONNX_MODEL_EXPRS));
	ck_assert(onnx_infer_known(ONNXOP_CONSTANT, ONNX_MODEL_EXPRS) &&
	          !onnx_infer_known(ONNXOP_CONSTANT, ONNX_MODEL_NAMES));
	ck_assert(onnx_infer_known(ONNXOP_RANGE, ONNX_MODEL_NAMES) && !onnx_infer_known(ONNXOP_RANGE, ONNX_MODEL_EXPRS));
}
END_TEST

/* ---- named ONNX element types ---- */

/* Raw ONNX element type codes in text: comparisons of an elem, data_type,
 * elem_type or Cast `to` with a number, and numbered cases of a switch on
 * one.  Returns how many lines hold one, printing each as FILE:LINE (but
 * for the probes, file NULL). */
static int
raw_codes(const char *file, const char *text)
{
	static const char *const pat[] = {
		"(elem|data_type|elem_type)[[:space:]]*[!=]=[[:space:]]*[0-9]",
		"[0-9][[:space:]]*[!=]=[[:space:]]*[a-z_>.-]*(elem|data_type|elem_type)\\b",
		"opt_elem\\([^()]*(\\([^()]*\\))?[^()]*\\)[[:space:]]*[!=]=[[:space:]]*[0-9]",
		"\"to\", [0-9-]+\\)[[:space:]]*[!=]=[[:space:]]*[0-9]",
	};
	regex_t re[5];
	int bad = 0, line = 1, in_switch = -1;

	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(regcomp(&re[i], pat[i], REG_EXTENDED | REG_NOSUB), 0);
	ck_assert_int_eq(regcomp(&re[4], "^[[:space:]]*switch \\(.*(elem|data_type|elem_type)\\)", REG_EXTENDED | REG_NOSUB), 0);
	for (const char *p = text; *p; line++) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char *l = strndup(p, n);
		int hit = 0, indent = (int)strspn(l, "\t");
		for (int i = 0; i < 4; i++)
			hit |= regexec(&re[i], l, 0, NULL, 0) == 0;
		if (in_switch >= 0 && indent == in_switch && l[indent] == '}')
			in_switch = -1;
		else if (in_switch >= 0) {
			const char *c = strstr(l, "case ");
			hit |= c && c[5] >= '0' && c[5] <= '9';
		}
		if (regexec(&re[4], l, 0, NULL, 0) == 0)
			in_switch = indent;
		if (hit && file)
			printf("%s:%d: raw ONNX element type: %s\n", file, line, l + indent);
		bad += hit;
		free(l);
		p += n + (e != NULL);
	}
	for (int i = 0; i < 5; i++)
		regfree(&re[i]);
	return bad;
}

/* Code names ONNX element types (ONNX_FLOAT, ONNX_INT64 from dtype.def),
 * never bare numbers; the scanner is first shown to catch each form. */
START_TEST(test_no_raw_elem_codes)
{
	static const char *const dirs[] = {"lib/*/*.[ch]", "lib/lower/ops/*.[ch]"};
	int bad = 0, files = 0;

	ck_assert_int_eq(raw_codes(NULL, "if (x->elem == 7)\n"), 1);
	ck_assert_int_eq(raw_codes(NULL, "return t->data_type != 1 || 10 == elem;\n"), 1);
	ck_assert_int_eq(raw_codes(NULL, "if (opt_elem(o, opt_in(o, n, 0)) != 9)\n"), 1);
	ck_assert_int_eq(raw_codes(NULL, "if (opt_attr_i(o, n, \"to\", 0) == 9)\n"), 1);
	ck_assert_int_eq(raw_codes(NULL, "\tswitch (t->elem) {\n\tcase 1: return 4;\n\t}\n\tcase 2:\n"), 1);
	ck_assert_int_eq(raw_codes(NULL, "if (x->elem == ONNX_INT64 && rank == 1)\n"), 0);
	for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
		glob_t g;
		ck_assert_int_eq(glob(dirs[d], 0, NULL, &g), 0);
		for (size_t i = 0; i < g.gl_pathc; i++) {
			FILE *f = fopen(g.gl_pathv[i], "rb");
			char *text;
			long len;
			ck_assert(f != NULL);
			fseek(f, 0, SEEK_END);
			len = ftell(f);
			rewind(f);
			text = calloc((size_t)len + 1, 1);
			ck_assert(fread(text, 1, (size_t)len, f) == (size_t)len);
			fclose(f);
			bad += raw_codes(g.gl_pathv[i], text);
			free(text);
			files++;
		}
		globfree(&g);
	}
	ck_assert_int_gt(files, 50);
	ck_assert_msg(bad == 0, "%d raw ONNX element type codes (name them: ONNX_FLOAT, ONNX_INT64, ...)", bad);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("opt");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_rows);
	tcase_add_test(tc, test_select);
	tcase_add_test(tc, test_option);
	tcase_add_test(tc, test_docs_up_to_date);
	tcase_add_test(tc, test_fold);
	tcase_add_test(tc, test_stats);
	tcase_add_test(tc, test_linear);
	tcase_add_test(tc, test_computed);
	tcase_add_test(tc, test_computed_transposed);
	tcase_add_test(tc, test_computed_dedup);
	tcase_add_test(tc, test_resnet18);
	tcase_add_test(tc, test_value_info);
	tcase_add_test(tc, test_every_row_has_cases);
	tcase_add_test(tc, test_cases);
	tcase_add_test(tc, test_fixtures);
	tcase_add_test(tc, test_subgraph);
	tcase_add_test(tc, test_no_raw_elem_codes);
	tcase_add_test(tc, test_onnx_ops);
	suite_add_tcase(s, tc);
	return s;
}
