/* test_control.c: dynamic shapes and control flow in the lowering.
 *
 * Goldens: each test/golden/dims/NAME.txt starts with "# input: FILE.pt2"
 * and optional "# options: YAML" lines, then lists every input, output and
 * value_info that has a symbolic dim, with its shape ("input x: [batch,8]");
 * UPDATE_GOLDEN=1 rewrites them.  Then: dynamic_dimensions errors (file:
 * line:col), the HOP fixtures' If/Loop/Scan structure and name uniqueness
 * across subgraphs, and small hand-built graphs for what no fixture has:
 * size arithmetic, an inlined wrapper, a cond decided at export time,
 * data-dependent sizes and keep_assertions.  Numerical truth for all of it
 * comes from test/run-ort.sh. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"
#include "onnx/onnx.h"
#include "pipeline/pipeline.h"
#include "read/read.h"
#include "core/core.h"
#include "testutil.h"
#include "minigraph.h"
#include "diagtext.h"

/* Loads pt2 and lowers it with the options text; the model lives in *a. */
static int
convert(Arena *a, Program *p, const char *pt2, const char *yaml, Onnx__ModelProto **m, Diag *d)
{
	Options o;
	int rc;

	arena_init(a);
	memset(p, 0, sizeof *p);
	p->arena = a;
	options_default(&o);
	rc = options_parse(&o, a, "options.yaml", yaml, strlen(yaml), d);
	if (!rc)
		rc = pt2_load(p, pt2, d);
	if (!rc)
		rc = lower_program(p, options_lower(&o, &(LowerOptions){0}), a, m, d);
	return rc;
}

static void
done(Arena *a, Program *p)
{
	pt2_close(p);
	arena_free(a);
}

/* ---- dim names ---- */

/* "[batch,8]", or NULL when no dim is symbolic. */
static char *
shape_text(const Onnx__ValueInfoProto *v)
{
	const Onnx__TensorShapeProto *sh = v->type && v->type->tensor_type ? v->type->tensor_type->shape : NULL;
	char *buf = NULL;
	size_t len = 0;
	int symbolic = 0;
	FILE *f;

	if (!sh)
		return NULL;
	f = open_memstream(&buf, &len);
	fputc('[', f);
	for (size_t i = 0; i < sh->n_dim; i++) {
		const Onnx__TensorShapeProto__Dimension *d = sh->dim[i];
		if (i)
			fputc(',', f);
		if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM) {
			fputs(d->dim_param, f);
			symbolic = 1;
		} else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
			fprintf(f, "%lld", (long long)d->dim_value);
		} else {
			fputc('?', f);
		}
	}
	fputc(']', f);
	fclose(f);
	if (!symbolic) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void
render_list(FILE *f, const char *what, Onnx__ValueInfoProto **v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *s = shape_text(v[i]);
		if (s)
			fprintf(f, "%s %s: %s\n", what, v[i]->name, s);
		free(s);
	}
}

/* The symbolic shapes of g and of its subgraphs, as golden text. */
static void
render_dims(FILE *f, const Onnx__GraphProto *g, const char *prefix)
{
	char what[256];

	snprintf(what, sizeof what, "%sinput", prefix);
	render_list(f, what, g->input, g->n_input);
	snprintf(what, sizeof what, "%soutput", prefix);
	render_list(f, what, g->output, g->n_output);
	snprintf(what, sizeof what, "%svalue_info", prefix);
	render_list(f, what, g->value_info, g->n_value_info);
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t k = 0; k < g->node[i]->n_attribute; k++)
			if (g->node[i]->attribute[k]->g) {
				snprintf(what, sizeof what, "%s%s/", prefix, g->node[i]->attribute[k]->g->name);
				render_dims(f, g->node[i]->attribute[k]->g, what);
			}
}

START_TEST(test_dims_goldens)
{
	glob_t gl;
	int failed = 0, ran = 0;

	ck_assert_msg(glob("test/golden/dims/*.txt", 0, NULL, &gl) == 0, "no golden files in test/golden/dims");
	for (size_t i = 0; i < gl.gl_pathc; i++) {
		const char *path = gl.gl_pathv[i];
		char input[512] = "", yaml[1024] = "", *text, *body, *got = NULL;
		size_t len, hlen, glen = 0;
		Arena a;
		Program p;
		Diag d = {0};
		Onnx__ModelProto *m;
		FILE *f;
		text = test_slurp(path, &len);
		body = text;
		while (*body == '#') {
			char *eol = strchr(body, '\n');
			if (!eol)
				break;
			if (strncmp(body, "# input: ", 9) == 0)
				snprintf(input, sizeof input, "%.*s", (int)(eol - body - 9), body + 9);
			else if (strncmp(body, "# options: ", 11) == 0)
				snprintf(yaml + strlen(yaml), sizeof yaml - strlen(yaml), "%.*s\n", (int)(eol - body - 11), body + 11);
			body = eol + 1;
		}
		hlen = (size_t)(body - text);
		ck_assert_msg(input[0], "%s: no '# input:' line", path);
		ck_assert_msg(convert(&a, &p, input, yaml, &m, &d) == 0, "%s: %s", path, test_diag_text(&d) ? test_diag_text(&d) : "");
		f = open_memstream(&got, &glen);
		render_dims(f, m->graph, "");
		fclose(f);
		if (getenv("UPDATE_GOLDEN")) {
			FILE *w = fopen(path, "w");
			fwrite(text, 1, hlen, w);
			fputs(got, w);
			fclose(w);
		} else if (strcmp(body, got) != 0) {
			fprintf(stderr, "%s differs; got:\n%s", path, got);
			failed++;
		}
		ran++;
		free(got);
		free(text);
		diag_free(&d);
		done(&a, &p);
	}
	globfree(&gl);
	ck_assert_int_ge(ran, 12);
	ck_assert_msg(!failed, "%d golden file(s) differ (UPDATE_GOLDEN=1 rewrites them)", failed);
}
END_TEST

/* Conversion fails with DIAG_INPUT and a message holding want. */
static void
expect_dims_error(const char *pt2, const char *yaml, const char *want)
{
	Arena a;
	Program p;
	Diag d = {0};
	Onnx__ModelProto *m = NULL;

	ck_assert_int_eq(convert(&a, &p, pt2, yaml, &m, &d), DIAG_INPUT);
	ck_assert_msg(test_diag_text(&d) && strstr(test_diag_text(&d), want), "for %s\nwant '%s'\ngot  '%s'", yaml, want, test_diag_text(&d) ? test_diag_text(&d) : "");
	diag_free(&d);
	done(&a, &p);
}

START_TEST(test_dims_errors)
{
	const char *dd = "test/models/torch-2.14/derived_dyn.pt2";

	/* checked against the program: the request's line:col */
	expect_dims_error(dd, "dynamic_dimensions:\n  x: {0: batch}\n  z: {1: seq}\n",
	                  "options.yaml:3:7: dynamic_dimensions: no tensor input named 'z'");
	expect_dims_error(dd, "dynamic_dimensions: {x: {1: seq}}\n",
	                  "options.yaml:1:26: dynamic_dimensions: axis 1 of 'x' is 2*s94, not a dynamic dimension of its own");
	expect_dims_error(dd, "dynamic_dimensions: {x: {5: seq}}\n",
	                  "options.yaml:1:26: dynamic_dimensions: input 'x' has 2 axes, not axis 5");
	expect_dims_error(dd, "dynamic_dimensions: {x: {0: batch}, y: {0: b}}\n",
	                  "options.yaml:1:41: dynamic_dimensions: axis 0 of 'y' is the same dimension as one already named 'batch'");
	expect_dims_error(dd, "dynamic_dimensions: {x: {0: n}, y: {1: n}}\n",
	                  "options.yaml:1:37: dynamic_dimensions: two different dimensions are both named 'n'");
	expect_dims_error("test/models/torch-2.14/mlp.pt2", "dynamic_dimensions: {x: {0: batch}}\n",
	                  "axis 0 of 'x' is static (2), not a dynamic dimension of its own");
	/* checked when parsing */
	expect_dims_error(dd, "dynamic_dimensions: [x]\n",
	                  "options.yaml:1:21: 'dynamic_dimensions' needs a mapping of input names to {axis: name}");
	expect_dims_error(dd, "dynamic_dimensions: {x: batch}\n",
	                  "options.yaml:1:25: 'dynamic_dimensions': input 'x' needs a mapping of axes to names, like {0: batch}");
	expect_dims_error(dd, "dynamic_dimensions: {x: {first: batch}}\n",
	                  "options.yaml:1:26: 'dynamic_dimensions': the axes of 'x' must be integers >= 0, got 'first'");
	expect_dims_error(dd, "dynamic_dimensions: {x: {-1: batch}}\n",
	                  "the axes of 'x' must be integers >= 0, got '-1'");
	expect_dims_error(dd, "dynamic_dimensions: {x: {0: ''}}\n",
	                  "options.yaml:1:29: 'dynamic_dimensions': axis 0 of 'x' needs a non-empty name");
	expect_dims_error(dd, "dynamic_dimensions: {x: {0: a, 0: b}}\n",
	                  "options.yaml:1:32: 'dynamic_dimensions': axis 0 of 'x' is named twice");
	expect_dims_error(dd, "keep_assertions: maybe\n",
	                  "options.yaml:1:18: 'keep_assertions' needs true or false, got 'maybe'");
}
END_TEST

/* ---- higher-order op fixtures ---- */

/* Every name defined in g and its subgraphs (inputs, initializers, node
 * outputs) is defined once in the whole model, and every subgraph output is
 * computed by a node of that subgraph. */
static void
check_names(const Onnx__GraphProto *g, StrMap *seen, int nested)
{
	StrMap *own = NULL;
	Arena a;

	arena_init(&a);
	own = strmap_new(&a, 64);
	for (size_t i = 0; i < g->n_input; i++) {
		ck_assert_msg(!strmap_get(seen, g->input[i]->name), "'%s' defined twice", g->input[i]->name);
		strmap_put(seen, g->input[i]->name, seen);
	}
	for (size_t i = 0; i < g->n_initializer; i++) {
		ck_assert_msg(!strmap_get(seen, g->initializer[i]->name), "'%s' defined twice", g->initializer[i]->name);
		strmap_put(seen, g->initializer[i]->name, seen);
	}
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *n = g->node[i];
		for (size_t k = 0; k < n->n_attribute; k++)
			if (n->attribute[k]->g)
				check_names(n->attribute[k]->g, seen, 1);
		for (size_t k = 0; k < n->n_output; k++) {
			if (!n->output[k][0])
				continue;
			ck_assert_msg(!strmap_get(seen, n->output[k]), "'%s' defined twice", n->output[k]);
			strmap_put(seen, n->output[k], seen);
			strmap_put(own, n->output[k], own);
		}
	}
	for (size_t i = 0; nested && i < g->n_output; i++)
		ck_assert_msg(strmap_get(own, g->output[i]->name), "subgraph %s: output '%s' is not computed in it",
		              g->name, g->output[i]->name);
	arena_free(&a);
}

static void check_casts(const Onnx__GraphProto *g);

static const Onnx__NodeProto *
find_op(const Onnx__GraphProto *g, const char *op)
{
	for (size_t i = 0; i < g->n_node; i++)
		if (strcmp(g->node[i]->op_type, op) == 0)
			return g->node[i];
	return NULL;
}

static const Onnx__AttributeProto *
attr(const Onnx__NodeProto *n, const char *name)
{
	for (size_t i = 0; i < n->n_attribute; i++)
		if (strcmp(n->attribute[i]->name, name) == 0)
			return n->attribute[i];
	return NULL;
}

/* The elem type and rank of a value info, as "1/2" (float, rank 2). */
static void
same_type(const Onnx__ValueInfoProto *x, const Onnx__ValueInfoProto *y)
{
	const Onnx__TypeProto__Tensor *a = x->type->tensor_type, *b = y->type->tensor_type;

	ck_assert_int_eq(a->elem_type, b->elem_type);
	ck_assert_int_eq(a->shape->n_dim, b->shape->n_dim);
	for (size_t i = 0; i < a->shape->n_dim; i++) {
		ck_assert_int_eq(a->shape->dim[i]->value_case, b->shape->dim[i]->value_case);
		ck_assert_int_eq(a->shape->dim[i]->dim_value, b->shape->dim[i]->dim_value);
	}
}

static void
check_hop_fixture(const char *pt2)
{
	Arena a, sa;
	Program p;
	Diag d = {0};
	Onnx__ModelProto *m;
	const Onnx__NodeProto *n;
	const Onnx__GraphProto *g, *t, *e;

	ck_assert_msg(convert(&a, &p, pt2, "", &m, &d) == 0, "%s: %s", pt2, test_diag_text(&d) ? test_diag_text(&d) : "");
	g = m->graph;
	check_casts(g);
	arena_init(&sa);
	check_names(g, strmap_new(&sa, 256), 0);
	arena_free(&sa);
	if ((n = find_op(g, "If"))) {
		ck_assert_int_eq(n->n_input, 1);
		t = attr(n, "then_branch")->g;
		e = attr(n, "else_branch")->g;
		ck_assert_int_eq(t->n_input, 0);
		ck_assert_int_eq(e->n_input, 0);
		ck_assert_int_eq(t->n_output, n->n_output);
		ck_assert_int_eq(e->n_output, n->n_output);
		for (size_t i = 0; i < n->n_output; i++)
			same_type(t->output[i], e->output[i]);
	} else if ((n = find_op(g, "Loop"))) {
		/* no trip count; the condition, then the carried values */
		ck_assert_str_eq(n->input[0], "");
		t = attr(n, "body")->g;
		ck_assert_int_eq(t->n_input, n->n_input);
		ck_assert_int_eq(t->n_output, n->n_output + 1);
		ck_assert_int_eq(t->output[0]->type->tensor_type->elem_type, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL);
		/* the condition graph ran before the loop and runs again in the body */
		ck_assert_ptr_nonnull(find_op(g, "Less"));
		ck_assert_ptr_nonnull(find_op(t, "Less"));
	} else {
		n = find_op(g, "Scan");
		ck_assert_msg(n != NULL, "%s: no If, Loop or Scan", pt2);
		ck_assert_int_eq(attr(n, "num_scan_inputs")->i, 1);
		t = attr(n, "body")->g;
		ck_assert_int_eq(t->n_input, n->n_input);
		ck_assert_int_eq(t->n_output, n->n_output);
	}
	diag_free(&d);
	done(&a, &p);
}

START_TEST(test_hop_fixtures)
{
	static const char *const names[] = {"cond", "while_loop", "scan"};

	for (int v = 0; v < 2; v++)
		for (int i = 0; i < 3; i++) {
			char path[256];
			snprintf(path, sizeof path, "test/models/torch-%s/%s.pt2", v ? "2.6" : "2.14", names[i]);
			check_hop_fixture(path);
		}
}
END_TEST

/* ---- small hand-built programs (minigraph.h) ---- */

/* Every Cast of g and its subgraphs names an ONNX type (a SymInt has no
 * Value.dtype to take one from). */
static void
check_casts(const Onnx__GraphProto *g)
{
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *n = g->node[i];
		for (size_t k = 0; k < n->n_attribute; k++) {
			if (n->attribute[k]->g)
				check_casts(n->attribute[k]->g);
			if (strcmp(n->op_type, "Cast") == 0 && strcmp(n->attribute[k]->name, "to") == 0)
				ck_assert_msg(n->attribute[k]->i > 0, "Cast '%s' to type %lld", n->name,
				              (long long)n->attribute[k]->i);
		}
	}
}

static Onnx__ModelProto *
mini_lower(Mini *m, int keep_assertions, Diag *d)
{
	Options o;
	Onnx__ModelProto *mp = NULL;

	options_default(&o);
	o.keep_assertions = keep_assertions;
	ck_assert_msg(lower_program(&m->p, options_lower(&o, &(LowerOptions){0}), &m->a, &mp, d) == 0, "%s", test_diag_text(d) ? test_diag_text(d) : "");
	check_casts(mp->graph);
	return mp;
}

static int
count_op(const Onnx__GraphProto *g, const char *op)
{
	int k = 0;

	for (size_t i = 0; i < g->n_node; i++)
		k += strcmp(g->node[i]->op_type, op) == 0;
	return k;
}

static const Onnx__ValueInfoProto *
find_vi(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_value_info; i++)
		if (strcmp(g->value_info[i]->name, name) == 0)
			return g->value_info[i];
	for (size_t i = 0; i < g->n_output; i++)
		if (strcmp(g->output[i]->name, name) == 0)
			return g->output[i];
	return NULL;
}

/* x float32[s0,4]: b = sym_size(x, 0); q = b // 2; r = b % 3; f = b / 2;
 * t = sym_ite(b > 4, q, r); y = x.reshape(q, 8) ... outputs SymInts and
 * a reshape with symbolic sizes. */
START_TEST(test_size_arithmetic)
{
	static const int64_t xd[] = {-1, 4}, yd[] = {-1, 8};
	static const char *const xs[] = {"s0", NULL}, *const ys[] = {"(s0//2)", NULL};
	Mini m;
	Diag d = {0};
	Onnx__ModelProto *mp;
	const Onnx__GraphProto *g;
	Value *x, *b, *q, *r, *f, *gt, *t, *y, *fi;

	mini_init(&m);
	x = tensor(&m, m.g, "x", DT_FLOAT32, 2, xd, xs);
	input(&m, m.g, x);
	b = symval(&m, m.g, "b", VAL_SYM_INT);
	q = symval(&m, m.g, "q", VAL_SYM_INT);
	r = symval(&m, m.g, "r", VAL_SYM_INT);
	f = symval(&m, m.g, "f", VAL_SYM_FLOAT);
	fi = symval(&m, m.g, "fi", VAL_SYM_INT);
	gt = symval(&m, m.g, "gt", VAL_SYM_BOOL);
	t = symval(&m, m.g, "t", VAL_SYM_INT);
	y = tensor(&m, m.g, "y", DT_FLOAT32, 2, yd, ys);
	node(&m, m.g, "aten.sym_size.int", b, 2, (const char *[]){"self", "dim"}, (Arg[]){varg(x), iarg(0)});
	node(&m, m.g, "_operator.floordiv", q, 2, (const char *[]){"a", "b"}, (Arg[]){varg(b), iarg(2)});
	node(&m, m.g, "_operator.mod", r, 2, (const char *[]){"a", "b"}, (Arg[]){varg(b), iarg(3)});
	node(&m, m.g, "_operator.truediv", f, 2, (const char *[]){"a", "b"}, (Arg[]){varg(b), iarg(2)});
	node(&m, m.g, "math.trunc", fi, 1, (const char *[]){"x"}, (Arg[]){varg(f)});
	node(&m, m.g, "_operator.gt", gt, 2, (const char *[]){"a", "b"}, (Arg[]){varg(b), iarg(4)});
	node(&m, m.g, "torch.sym_ite", t, 3, (const char *[]){"b", "t", "f"}, (Arg[]){varg(gt), varg(q), varg(r)});
	{
		Arg size = {.kind = ARG_SYM_INTS, .n = 2, .u.list = ARENA_ARRAY(&m.a, Arg, 2)};
		size.u.list[0] = varg(q);
		size.u.list[1] = iarg(8);
		node(&m, m.g, "aten.reshape.default", y, 2, (const char *[]){"self", "shape"}, (Arg[]){varg(x), size});
	}
	output(&m, m.g, y);
	output(&m, m.g, t);
	output(&m, m.g, f);
	output(&m, m.g, fi);
	mp = mini_lower(&m, 0, &d);
	g = mp->graph;
	/* b // 2 is exact after subtracting b mod 2 (Python rounds down; ONNX Div truncates) */
	ck_assert_int_eq(count_op(g, "Mod"), 2);
	ck_assert_ptr_nonnull(find_op(g, "Sub"));
	ck_assert_ptr_nonnull(find_op(g, "Where"));
	/* the size list mixes a SymInt and a constant: Concat of 1-element pieces */
	ck_assert_int_eq(find_op(g, "Concat")->n_input, 2);
	/* SymInt outputs are int64 0-d, SymFloat double 0-d; the dim reads as x's axis */
	ck_assert_int_eq(g->output[1]->type->tensor_type->elem_type, ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
	ck_assert_int_eq(g->output[1]->type->tensor_type->shape->n_dim, 0);
	ck_assert_int_eq(g->output[2]->type->tensor_type->elem_type, ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE);
	ck_assert_int_eq(g->output[3]->type->tensor_type->elem_type, ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
	ck_assert_str_eq(g->input[0]->type->tensor_type->shape->dim[0]->dim_param, "x_dim_0");
	ck_assert_ptr_nonnull(find_vi(g, "gt"));
	ck_assert_int_eq(find_vi(g, "gt")->type->tensor_type->elem_type, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL);
	diag_free(&d);
	arena_free(&m.a);
}
END_TEST

/* x bool[3,4]: nonzero(x) -> int64[u0,2]; its size is data-dependent and
 * reads "unbacked_0" everywhere. */
START_TEST(test_data_dependent)
{
	static const int64_t xd[] = {3, 4}, nd[] = {-1, 2};
	static const char *const ns[] = {"u0", NULL};
	Mini m;
	Diag d = {0};
	Onnx__ModelProto *mp;
	Value *x, *nz, *k;

	mini_init(&m);
	x = tensor(&m, m.g, "x", DT_BOOL, 2, xd, NULL);
	input(&m, m.g, x);
	nz = tensor(&m, m.g, "nonzero", DT_INT64, 2, nd, ns);
	k = symval(&m, m.g, "k", VAL_SYM_INT);
	node(&m, m.g, "aten.nonzero.default", nz, 1, (const char *[]){"self"}, (Arg[]){varg(x)});
	node(&m, m.g, "aten.sym_size.int", k, 2, (const char *[]){"self", "dim"}, (Arg[]){varg(nz), iarg(0)});
	output(&m, m.g, nz);
	output(&m, m.g, k);
	mp = mini_lower(&m, 0, &d);
	ck_assert_str_eq(find_op(mp->graph, "Transpose")->input[0], find_op(mp->graph, "NonZero")->output[0]);
	ck_assert_str_eq(mp->graph->output[0]->type->tensor_type->shape->dim[0]->dim_param, "unbacked_0");
	/* the size comes from the tensor at run time */
	ck_assert_ptr_nonnull(find_op(mp->graph, "Shape"));
	diag_free(&d);
	arena_free(&m.a);
}
END_TEST

/* x float32[4], k int64[]: n = k.item(); _assert_scalar(n >= 1); y = relu(x). */
static void
mini_assert(Mini *m)
{
	static const int64_t d4[] = {4};
	Value *x, *k, *n, *ge, *y;

	mini_init(m);
	x = tensor(m, m->g, "x", DT_FLOAT32, 1, d4, NULL);
	k = tensor(m, m->g, "k", DT_INT64, 0, NULL, NULL);
	input(m, m->g, x);
	input(m, m->g, k);
	n = symval(m, m->g, "item", VAL_SYM_INT);
	ge = symval(m, m->g, "ge", VAL_SYM_BOOL);
	y = tensor(m, m->g, "relu", DT_FLOAT32, 1, d4, NULL);
	node(m, m->g, "aten.item.default", n, 1, (const char *[]){"self"}, (Arg[]){varg(k)});
	node(m, m->g, "_operator.ge", ge, 2, (const char *[]){"a", "b"}, (Arg[]){varg(n), iarg(1)});
	node(m, m->g, "aten._assert_scalar.default", NULL, 2, (const char *[]){"self", "assert_msg"},
	     (Arg[]){varg(ge), (Arg){.kind = ARG_STRING, .u.s = "u0 >= 1 failed"}});
	node(m, m->g, "aten.relu.default", y, 1, (const char *[]){"self"}, (Arg[]){varg(x)});
	output(m, m->g, y);
}

START_TEST(test_keep_assertions)
{
	Mini m;
	Diag d = {0};
	Onnx__ModelProto *mp;
	const Onnx__NodeProto *chk, *out;

	/* dropped by default: nothing but the Relu is left */
	mini_assert(&m);
	mp = mini_lower(&m, 0, &d);
	ck_assert_int_eq(mp->graph->n_node, 1);
	ck_assert_str_eq(mp->graph->node[0]->op_type, "Relu");
	arena_free(&m.a);

	/* kept: a Reshape to [2 - ok] named after the assertion, and the output behind Where */
	mini_assert(&m);
	mp = mini_lower(&m, 1, &d);
	chk = find_op(mp->graph, "Reshape");
	ck_assert_ptr_nonnull(chk);
	ck_assert_msg(strncmp(chk->name, "_assert_scalar_default", 22) == 0, "check node '%s'", chk->name);
	ck_assert_str_eq(chk->doc_string, "u0 >= 1 failed");
	ck_assert_ptr_nonnull(find_op(mp->graph, "GreaterOrEqual"));
	out = mp->graph->node[mp->graph->n_node - 1];
	ck_assert_str_eq(out->op_type, "Where");
	ck_assert_str_eq(out->output[0], "relu");
	ck_assert_str_eq(out->input[1], out->input[2]);
	diag_free(&d);
	arena_free(&m.a);
}
END_TEST

/* x float32[2]: wrap_with_set_grad_enabled(False, sub, x) with sub(a) =
 * relu(a) is inlined; cond(True, t, f, [x]) takes t at export time. */
START_TEST(test_inlined_subgraphs)
{
	static const int64_t d2[] = {2};
	Mini m;
	Diag d = {0};
	Onnx__ModelProto *mp;
	Graph *sub, *tg, *fg;
	Value *x, *w, *a, *r, *c, *ta, *tn, *fa, *fn;

	mini_init(&m);
	x = tensor(&m, m.g, "x", DT_FLOAT32, 1, d2, NULL);
	input(&m, m.g, x);
	sub = mini_graph(&m, "submod_1", m.g);
	a = tensor(&m, sub, "a", DT_FLOAT32, 1, d2, NULL);
	input(&m, sub, a);
	r = tensor(&m, sub, "relu", DT_FLOAT32, 1, d2, NULL);
	node(&m, sub, "aten.relu.default", r, 1, (const char *[]){"self"}, (Arg[]){varg(a)});
	output(&m, sub, r);
	w = tensor(&m, m.g, "getitem", DT_FLOAT32, 1, d2, NULL);
	node(&m, m.g, "higher_order.wrap_with_set_grad_enabled", w, 3, (const char *[]){"", "", ""},
	     (Arg[]){(Arg){.kind = ARG_BOOL, .u.i = 0}, garg(sub), varg(x)});
	tg = mini_graph(&m, "true_graph_0", m.g);
	ta = tensor(&m, tg, "x", DT_FLOAT32, 1, d2, NULL);
	input(&m, tg, ta);
	tn = tensor(&m, tg, "neg", DT_FLOAT32, 1, d2, NULL);
	node(&m, tg, "aten.neg.default", tn, 1, (const char *[]){"self"}, (Arg[]){varg(ta)});
	output(&m, tg, tn);
	fg = mini_graph(&m, "false_graph_0", m.g);
	fa = tensor(&m, fg, "x", DT_FLOAT32, 1, d2, NULL);
	input(&m, fg, fa);
	fn = tensor(&m, fg, "cos", DT_FLOAT32, 1, d2, NULL);
	node(&m, fg, "aten.cos.default", fn, 1, (const char *[]){"self"}, (Arg[]){varg(fa)});
	output(&m, fg, fn);
	c = tensor(&m, m.g, "getitem_1", DT_FLOAT32, 1, d2, NULL);
	{
		Arg ops = {.kind = ARG_TENSORS, .n = 1, .u.list = ARENA_ARRAY(&m.a, Arg, 1)};
		ops.u.list[0] = varg(w);
		node(&m, m.g, "higher_order.cond", c, 4, (const char *[]){"", "", "", ""},
		     (Arg[]){(Arg){.kind = ARG_BOOL, .u.i = 1}, garg(tg), garg(fg), ops});
	}
	output(&m, m.g, c);
	mp = mini_lower(&m, 0, &d);
	ck_assert_int_eq(mp->graph->n_node, 2);
	ck_assert_str_eq(mp->graph->node[0]->op_type, "Relu");
	ck_assert_str_eq(mp->graph->node[1]->op_type, "Neg");
	ck_assert_str_eq(mp->graph->node[1]->input[0], mp->graph->node[0]->output[0]);
	ck_assert_str_eq(mp->graph->output[0]->name, "getitem_1");
	diag_free(&d);
	arena_free(&m.a);
}
END_TEST

/* torch 2.6's scan(combine, init, xs, dim, reverse, additional): xs
 * float32[2,5,3] scanned over dim 1 backwards, carry float32[2,3], w an
 * outer-scope input of the body. */
START_TEST(test_scan_dim_reverse)
{
	static const int64_t xd[] = {2, 5, 3}, cd[] = {2, 3}, yd[] = {5, 2, 3};
	Mini m;
	Diag d = {0};
	Onnx__ModelProto *mp;
	const Onnx__NodeProto *n;
	const Onnx__GraphProto *body;
	Graph *g;
	Value *xs, *h, *w, *c, *x, *gw, *add, *mul, *carry, *ys;
	Arg init = {.kind = ARG_TENSORS, .n = 1}, xl = {.kind = ARG_TENSORS, .n = 1}, extra = {.kind = ARG_TENSORS, .n = 1};

	mini_init(&m);
	xs = tensor(&m, m.g, "xs", DT_FLOAT32, 3, xd, NULL);
	h = tensor(&m, m.g, "h", DT_FLOAT32, 2, cd, NULL);
	w = tensor(&m, m.g, "w", DT_FLOAT32, 2, cd, NULL);
	input(&m, m.g, xs);
	input(&m, m.g, h);
	input(&m, m.g, w);
	g = mini_graph(&m, "scan_combine_graph_0", m.g);
	c = tensor(&m, g, "arg0_1", DT_FLOAT32, 2, cd, NULL);
	x = tensor(&m, g, "arg1_1", DT_FLOAT32, 2, cd, NULL);
	gw = tensor(&m, g, "arg2_1", DT_FLOAT32, 2, cd, NULL);
	input(&m, g, c);
	input(&m, g, x);
	input(&m, g, gw);
	add = tensor(&m, g, "add", DT_FLOAT32, 2, cd, NULL);
	mul = tensor(&m, g, "mul", DT_FLOAT32, 2, cd, NULL);
	node(&m, g, "aten.add.Tensor", add, 2, (const char *[]){"self", "other"}, (Arg[]){varg(c), varg(x)});
	node(&m, g, "aten.mul.Tensor", mul, 2, (const char *[]){"self", "other"}, (Arg[]){varg(add), varg(gw)});
	output(&m, g, add);
	output(&m, g, mul);
	carry = tensor(&m, m.g, "getitem", DT_FLOAT32, 2, cd, NULL);
	ys = tensor(&m, m.g, "getitem_1", DT_FLOAT32, 3, yd, NULL);
	init.u.list = ARENA_ARRAY(&m.a, Arg, 1);
	init.u.list[0] = varg(h);
	xl.u.list = ARENA_ARRAY(&m.a, Arg, 1);
	xl.u.list[0] = varg(xs);
	extra.u.list = ARENA_ARRAY(&m.a, Arg, 1);
	extra.u.list[0] = varg(w);
	n = NULL;
	{
		Node *sn = node(&m, m.g, "higher_order.scan", NULL, 6, (const char *[]){"", "", "", "", "", ""},
		                (Arg[]){garg(g), init, xl, iarg(1), (Arg){.kind = ARG_BOOL, .u.i = 1}, extra});
		sn->name = "scan";
		sn->nout = 2;
		sn->out = ARENA_ARRAY(&m.a, Arg, 2);
		sn->out[0] = varg(carry);
		sn->out[1] = varg(ys);
		carry->def = ys->def = sn;
	}
	output(&m, m.g, carry);
	output(&m, m.g, ys);
	mp = mini_lower(&m, 0, &d);
	n = find_op(mp->graph, "Scan");
	ck_assert_ptr_nonnull(n);
	ck_assert_int_eq(n->n_input, 2);                 /* init, xs; w is read from the outer scope */
	ck_assert_int_eq(attr(n, "num_scan_inputs")->i, 1);
	ck_assert_int_eq(attr(n, "scan_input_axes")->ints[0], 1);
	ck_assert_int_eq(attr(n, "scan_input_directions")->ints[0], 1);
	ck_assert_int_eq(attr(n, "scan_output_directions")->ints[0], 1);
	ck_assert_ptr_null(attr(n, "scan_output_axes"));  /* torch 2.6 stacks the ys on dim 0 */
	body = attr(n, "body")->g;
	ck_assert_int_eq(body->n_input, 2);
	ck_assert_int_eq(body->n_output, 2);
	ck_assert_str_eq(find_op(body, "Mul")->input[1], "w");
	diag_free(&d);
	arena_free(&m.a);
}
END_TEST

/* An unsupported node inside a subgraph is listed like one outside. */
START_TEST(test_unsupported_in_subgraph)
{
	static const int64_t d2[] = {2};
	Mini m;
	Diag d = {0};
	Options o;
	Onnx__ModelProto *mp = NULL;
	Graph *sub;
	Value *x, *a, *r, *w;

	mini_init(&m);
	x = tensor(&m, m.g, "x", DT_FLOAT32, 1, d2, NULL);
	input(&m, m.g, x);
	sub = mini_graph(&m, "submod_1", m.g);
	a = tensor(&m, sub, "a", DT_FLOAT32, 1, d2, NULL);
	input(&m, sub, a);
	r = tensor(&m, sub, "frob", DT_FLOAT32, 1, d2, NULL);
	node(&m, sub, "aten.frobnicate.default", r, 1, (const char *[]){"self"}, (Arg[]){varg(a)});
	output(&m, sub, r);
	w = tensor(&m, m.g, "getitem", DT_FLOAT32, 1, d2, NULL);
	node(&m, m.g, "higher_order.wrap_with_set_grad_enabled", w, 3, (const char *[]){"", "", ""},
	     (Arg[]){(Arg){.kind = ARG_BOOL, .u.i = 0}, garg(sub), varg(x)});
	output(&m, m.g, w);
	options_default(&o);
	ck_assert_int_eq(lower_program(&m.p, options_lower(&o, &(LowerOptions){0}), &m.a, &mp, &d), DIAG_CONVERT);
	ck_assert_msg(strstr(test_diag_text(&d), "node 'frob' (aten.frobnicate.default) at model.py:7 in forward: y = f(x): no ONNX lowering"),
	              "%s", test_diag_text(&d));
	ck_assert_msg(strstr(test_diag_text(&d), "mini.pt2: 1 node cannot be converted"), "%s", test_diag_text(&d));
	diag_free(&d);
	arena_free(&m.a);
}
END_TEST

/* b & 3 on a SymInt needs ONNX's BitwiseAnd (opset 18): at opset 17 the
 * driver refuses it up front, naming the node; at 18 it lowers. */
START_TEST(test_sym_and_int_opset)
{
	static const int64_t xd[] = {-1};
	static const char *const xs[] = {"s0", NULL};
	Mini m;
	Diag d = {0};
	Options o;
	Onnx__ModelProto *mp = NULL;
	Value *x, *b, *k;

	mini_init(&m);
	x = tensor(&m, m.g, "x", DT_FLOAT32, 1, xd, xs);
	input(&m, m.g, x);
	b = symval(&m, m.g, "b", VAL_SYM_INT);
	k = symval(&m, m.g, "and_1", VAL_SYM_INT);
	node(&m, m.g, "aten.sym_size.int", b, 2, (const char *[]){"self", "dim"}, (Arg[]){varg(x), iarg(0)});
	node(&m, m.g, "_operator.and_", k, 2, (const char *[]){"a", "b"}, (Arg[]){varg(b), iarg(3)});
	output(&m, m.g, k);
	options_default(&o);
	o.opset = 17;
	ck_assert_int_eq(lower_program(&m.p, options_lower(&o, &(LowerOptions){0}), &m.a, &mp, &d), DIAG_CONVERT);
	ck_assert_msg(strstr(test_diag_text(&d), "node 'and_1' (_operator.and_)") &&
	              strstr(test_diag_text(&d), "SymInt operands need `opset: 18` or later (ONNX's BitwiseAnd)"), "%s", test_diag_text(&d));
	diag_free(&d);
	memset(&d, 0, sizeof d);
	o.opset = 18;
	ck_assert_msg(lower_program(&m.p, options_lower(&o, &(LowerOptions){0}), &m.a, &mp, &d) == 0, "%s", test_diag_text(&d) ? test_diag_text(&d) : "");
	ck_assert_int_eq(count_op(mp->graph, "BitwiseAnd"), 1);
	diag_free(&d);
	arena_free(&m.a);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("control");
	TCase *tc = tcase_create("control");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_dims_goldens);
	tcase_add_test(tc, test_dims_errors);
	tcase_add_test(tc, test_hop_fixtures);
	tcase_add_test(tc, test_size_arithmetic);
	tcase_add_test(tc, test_data_dependent);
	tcase_add_test(tc, test_keep_assertions);
	tcase_add_test(tc, test_inlined_subgraphs);
	tcase_add_test(tc, test_scan_dim_reverse);
	tcase_add_test(tc, test_unsupported_in_subgraph);
	tcase_add_test(tc, test_sym_and_int_opset);
	suite_add_tcase(s, tc);
	return s;
}
