/* test_lower.c: the lowering driver and the ONNX writer.
 *
 * Goldens: each test/golden/onnx/NAME.txt starts with "# input: FILE.pt2"
 * and optionally "# options: YAML" lines, then holds the expected
 * rendering (onnx_print) of the model we write, read back from the file.
 * UPDATE_GOLDEN=1 rewrites the renderings.  Small IR graphs built here
 * cover what the fixtures do not: the unsupported-node report, opset
 * choices, output renames, external data, determinism and write errors. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lower/lower.h"
#include "onnx/onnx.h"
#include "pipeline/pipeline.h"
#include "read/read.h"
#include "core/core.h"
#include "testutil.h"
#include "minigraph.h"
#include "diagtext.h"

#define OUTDIR "build/test/lower"

/* Loads a .pt2, lowers it with the options text and writes out; returns the code. */
static int
convert(const char *pt2, const char *yaml, const char *out, Diag *d)
{
	Arena a;
	Program p = {0};
	Options o;
	Onnx__ModelProto *m;
	int rc;

	arena_init(&a);
	p.arena = &a;
	options_default(&o);
	rc = options_parse(&o, &a, "options", yaml, strlen(yaml), d);
	if (!rc)
		rc = pt2_load(&p, pt2, d);
	if (!rc && !(rc = lower_program(&p, options_lower(&o, &(LowerOptions){0}), &a, &m, d)))
		rc = onnx_write(&a, m, out, o.external_data_threshold, NULL, d);
	pt2_close(&p);
	arena_free(&a);
	return rc;
}

/* ---- goldens ---- */

START_TEST(test_goldens)
{
	glob_t gl;
	int failed = 0;

	ck_assert_msg(glob("test/golden/onnx/*.txt", 0, NULL, &gl) == 0, "no golden files in test/golden/onnx");
	mkdir("build/test", 0777);
	mkdir(OUTDIR, 0777);
	for (size_t i = 0; i < gl.gl_pathc; i++) {
		const char *path = gl.gl_pathv[i], *base = strrchr(path, '/') + 1;
		char out[512], input[512] = "", yaml[1024] = "", *text, *body, *got;
		size_t len, hlen;
		Diag d = {0};
		snprintf(out, sizeof out, OUTDIR "/%.*s.onnx", (int)strlen(base) - 4, base);
		text = test_slurp(path, &len);
		body = text;
		while (*body == '#') {          /* the header: input and options */
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
		if (access(input, R_OK) != 0) {
			fprintf(stderr, "%s: skipped, %s is missing\n", path, input);
			free(text);
			continue;
		}
		ck_assert_msg(convert(input, yaml, out, &d) == 0, "%s: %s", path, test_diag_text(&d) ? test_diag_text(&d) : "");
		diag_free(&d);
		got = test_render_onnx(out, OUTDIR);
		if (getenv("UPDATE_GOLDEN")) {
			FILE *f = fopen(path, "w");
			fwrite(text, 1, hlen, f);
			fputs(got, f);
			fclose(f);
		} else if (strcmp(body, got) != 0) {
			fprintf(stderr, "%s differs; got:\n%s", path, got);
			failed++;
		}
		free(got);
		free(text);
	}
	globfree(&gl);
	ck_assert_msg(!failed, "%d golden file(s) differ (UPDATE_GOLDEN=1 rewrites them)", failed);
}
END_TEST

/* ---- small hand-built programs (minigraph.h) ---- */

/* x float32[2,3] -> mean.dim(x, [1]) -> gelu -> y */
static void
mini_mean_gelu(Mini *m)
{
	static const int64_t d23[] = {2, 3}, d2[] = {2}, one[] = {1};
	Value *x, *mean, *y;

	mini_init(m);
	x = mini_input(m, "x", DT_FLOAT32, 2, d23);
	mean = tensor(m, m->g, "mean", DT_FLOAT32, 1, d2, NULL);
	y = tensor(m, m->g, "gelu", DT_FLOAT32, 1, d2, NULL);
	node(m, m->g, "aten.mean.dim", mean, 2, (const char *[]){"self", "dim"},
	          (Arg[]){varg(x), ints_arg(m, 1, one)});
	node(m, m->g, "aten.gelu.default", y, 1, (const char *[]){"self"}, (Arg[]){varg(mean)});
	output(m, m->g, y);
}

static const Onnx__NodeProto *
find_op(const Onnx__ModelProto *mp, const char *op)
{
	for (size_t i = 0; i < mp->graph->n_node; i++)
		if (strcmp(mp->graph->node[i]->op_type, op) == 0)
			return mp->graph->node[i];
	return NULL;
}

static int
has_attr(const Onnx__NodeProto *n, const char *name)
{
	for (size_t i = 0; i < n->n_attribute; i++)
		if (strcmp(n->attribute[i]->name, name) == 0)
			return 1;
	return 0;
}

START_TEST(test_opset_choices)
{
	for (int opset = 17; opset <= ONNX_OPSET_NEWEST; opset++) {
		Mini m;
		Options o;
		Diag d = {0};
		Onnx__ModelProto *mp;
		const Onnx__NodeProto *rm;

		mini_mean_gelu(&m);
		options_default(&o);
		o.opset = opset;
		ck_assert_int_eq(lower_program(&m.p, options_lower(&o, &(LowerOptions){0}), &m.a, &mp, &d), 0);
		ck_assert_int_eq(mp->opset_import[0]->version, opset);
		ck_assert_int_eq(mp->ir_version, opset <= 18 ? 8 : opset <= 20 ? 9 : opset <= 22 ? 10 : opset <= 23 ? 11 : opset <= 24 ? 12 : 13);
		rm = find_op(mp, "ReduceMean");
		ck_assert_ptr_nonnull(rm);
		/* axes: an attribute before opset 18, an input from 18 */
		ck_assert_int_eq(rm->n_input, opset >= 18 ? 2 : 1);
		ck_assert_int_eq(has_attr(rm, "axes"), opset < 18);
		/* Gelu from opset 20, else the erf formula */
		ck_assert_int_eq(find_op(mp, "Gelu") != NULL, opset >= 20);
		ck_assert_int_eq(find_op(mp, "Erf") != NULL, opset < 20);
		ck_assert_str_eq(mp->graph->output[0]->name, "gelu");
		arena_free(&m.a);
	}
}
END_TEST

START_TEST(test_unsupported_listed)
{
	static const int64_t d2[] = {2};
	Mini m;
	Options o;
	Diag d = {0};
	Onnx__ModelProto *mp = NULL;
	Value *x, *a, *b, *c;
	int lines = 0;

	mini_init(&m);
	x = mini_input(&m, "x", DT_FLOAT32, 1, d2);
	a = tensor(&m, m.g, "frob", DT_FLOAT32, 1, d2, NULL);
	b = tensor(&m, m.g, "relu", DT_FLOAT32, 1, d2, NULL);
	c = tensor(&m, m.g, "twiddle", DT_FLOAT32, 1, d2, NULL);
	node(&m, m.g, "aten.frobnicate.default", a, 1, (const char *[]){"self"}, (Arg[]){varg(x)});
	node(&m, m.g, "aten.relu.default", b, 1, (const char *[]){"self"}, (Arg[]){varg(a)});
	node(&m, m.g, "aten.twiddle.Tensor", c, 1, (const char *[]){"self"}, (Arg[]){varg(b)});
	output(&m, m.g, c);
	options_default(&o);
	ck_assert_int_eq(lower_program(&m.p, options_lower(&o, &(LowerOptions){0}), &m.a, &mp, &d), DIAG_CONVERT);
	ck_assert_ptr_null(mp);
	for (const char *s = test_diag_text(&d); *s; s++)
		lines += *s == '\n';
	ck_assert_int_eq(lines, 3);
	ck_assert_msg(strstr(test_diag_text(&d), "node 'frob' (aten.frobnicate.default) at model.py:7 in forward: y = f(x): no ONNX lowering\n"),
	              "%s", test_diag_text(&d));
	ck_assert_msg(strstr(test_diag_text(&d), "node 'twiddle' (aten.twiddle.Tensor) at model.py:7"), "%s", test_diag_text(&d));
	ck_assert_msg(strstr(test_diag_text(&d), "mini.pt2: 2 nodes cannot be converted"), "%s", test_diag_text(&d));
	diag_free(&d);

	/* a row above the target opset is reported the same way */
	memset(&d, 0, sizeof d);
	arena_free(&m.a);
	mini_mean_gelu(&m);
	m.g->nodes[0]->op = "aten.mean.dims_that_do_not_exist";
	ck_assert_int_eq(lower_program(&m.p, options_lower(&o, &(LowerOptions){0}), &m.a, &mp, &d), DIAG_CONVERT);
	ck_assert_msg(strstr(test_diag_text(&d), "1 node cannot be converted"), "%s", test_diag_text(&d));
	diag_free(&d);
	arena_free(&m.a);
}
END_TEST

START_TEST(test_output_names)
{
	Mini m;
	Options o;
	Diag d = {0};
	Onnx__ModelProto *mp;
	const char *names[] = {"prob", "extra"};

	mini_mean_gelu(&m);
	options_default(&o);
	o.noutput_name = 1;
	o.output_names = names;
	ck_assert_int_eq(lower_program(&m.p, options_lower(&o, &(LowerOptions){0}), &m.a, &mp, &d), 0);
	ck_assert_str_eq(mp->graph->output[0]->name, "prob");
	/* the renamed value is produced directly, without an Identity */
	ck_assert_ptr_null(find_op(mp, "Identity"));
	arena_free(&m.a);

	mini_mean_gelu(&m);
	o.noutput_name = 2;
	ck_assert_int_eq(lower_program(&m.p, options_lower(&o, &(LowerOptions){0}), &m.a, &mp, &d), DIAG_INPUT);
	ck_assert_msg(strstr(test_diag_text(&d), "output_names has 2 names but the program has 1 outputs"), "%s", test_diag_text(&d));
	diag_free(&d);
	arena_free(&m.a);
}
END_TEST

/* Outputs that are an input, or the same value twice, get Identity nodes
 * and unique names. */
START_TEST(test_output_edge_cases)
{
	static const int64_t d2[] = {2};
	Mini m;
	Options o;
	Diag d = {0};
	Onnx__ModelProto *mp;
	Value *x, *y;

	mini_init(&m);
	x = mini_input(&m, "x", DT_FLOAT32, 1, d2);
	y = tensor(&m, m.g, "relu", DT_FLOAT32, 1, d2, NULL);
	node(&m, m.g, "aten.relu.default", y, 1, (const char *[]){"self"}, (Arg[]){varg(x)});
	output(&m, m.g, x);
	output(&m, m.g, y);
	output(&m, m.g, y);
	options_default(&o);
	ck_assert_int_eq(lower_program(&m.p, options_lower(&o, &(LowerOptions){0}), &m.a, &mp, &d), 0);
	ck_assert_int_eq(mp->graph->n_output, 3);
	ck_assert_str_eq(mp->graph->output[0]->name, "x__1");
	ck_assert_str_eq(mp->graph->output[1]->name, "relu");
	ck_assert_str_eq(mp->graph->output[2]->name, "relu__1");
	ck_assert_int_eq(mp->graph->n_node, 3);
	ck_assert_str_eq(mp->graph->node[1]->op_type, "Identity");
	ck_assert_str_eq(mp->graph->node[1]->input[0], "x");
	ck_assert_str_eq(mp->graph->node[2]->input[0], "relu");
	arena_free(&m.a);
}
END_TEST

/* An in-place write through a view reaches its base: x.view(6).mul_(2),
 * then the base x is returned. */
START_TEST(test_write_through_view)
{
	static const int64_t d23[] = {2, 3}, d6[] = {6};
	Mini m;
	Options o;
	Diag d = {0};
	Onnx__ModelProto *mp;
	Value *x, *c, *v, *w;

	mini_init(&m);
	x = mini_input(&m, "x", DT_FLOAT32, 2, d23);
	c = tensor(&m, m.g, "clone", DT_FLOAT32, 2, d23, NULL);
	v = tensor(&m, m.g, "view", DT_FLOAT32, 1, d6, NULL);
	w = tensor(&m, m.g, "mul_", DT_FLOAT32, 1, d6, NULL);
	node(&m, m.g, "aten.clone.default", c, 1, (const char *[]){"self"}, (Arg[]){varg(x)});
	node(&m, m.g, "aten.view.default", v, 2, (const char *[]){"self", "size"},
	          (Arg[]){varg(c), ints_arg(&m, 1, d6)});
	node(&m, m.g, "aten.mul_.Tensor", w, 2, (const char *[]){"self", "other"},
	          (Arg[]){varg(v), (Arg){.kind = ARG_INT, .u.i = 2}});
	output(&m, m.g, c);
	options_default(&o);
	ck_assert_int_eq(lower_program(&m.p, options_lower(&o, &(LowerOptions){0}), &m.a, &mp, &d), 0);
	/* Reshape to view, Mul, Reshape back into the clone's shape */
	ck_assert_int_eq(mp->graph->n_node, 3);
	ck_assert_str_eq(mp->graph->node[2]->op_type, "Reshape");
	ck_assert_str_eq(mp->graph->node[2]->output[0], "clone");
	ck_assert_str_eq(mp->graph->output[0]->name, "clone");
	arena_free(&m.a);
}
END_TEST

/* Core ATen ops no fixture holds (batch norm with batch statistics,
 * var_mean, rsqrt) lower and write; build/test/lower/core_ops.onnx was
 * checked against torch with onnx's reference evaluator (max error 5e-7). */
START_TEST(test_core_ops_model)
{
	static const int64_t dx[] = {4, 3, 2, 2}, dc[] = {3}, dk[] = {4, 1, 2, 2}, d0[] = {0}, one[] = {1};
	Mini m;
	Options o;
	Diag d = {0};
	Onnx__ModelProto *mp;
	Value *x, *w, *b, *rm, *rv, *bo[5], *var, *mean, *r;
	Node *n;

	mini_init(&m);
	x = mini_input(&m, "x", DT_FLOAT32, 4, dx);
	w = mini_input(&m, "w", DT_FLOAT32, 1, dc);
	b = mini_input(&m, "b", DT_FLOAT32, 1, dc);
	rm = mini_input(&m, "rm", DT_FLOAT32, 1, dc);
	rv = mini_input(&m, "rv", DT_FLOAT32, 1, dc);
	bo[0] = tensor(&m, m.g, "bn", DT_FLOAT32, 4, dx, NULL);
	bo[1] = tensor(&m, m.g, "save_mean", DT_FLOAT32, 1, dc, NULL);
	bo[2] = tensor(&m, m.g, "save_rstd", DT_FLOAT32, 1, dc, NULL);
	bo[3] = tensor(&m, m.g, "new_rm", DT_FLOAT32, 1, dc, NULL);
	bo[4] = tensor(&m, m.g, "new_rv", DT_FLOAT32, 1, dc, NULL);
	n = node(&m, m.g, "aten._native_batch_norm_legit_functional.default", NULL, 8,
	              (const char *[]){"input", "weight", "bias", "running_mean", "running_var", "training",
	                               "momentum", "eps"},
	              (Arg[]){varg(x), varg(w), varg(b), varg(rm), varg(rv),
	                      {.kind = ARG_BOOL, .u.i = 1}, {.kind = ARG_FLOAT, .u.f = 0.1},
	                      {.kind = ARG_FLOAT, .u.f = 1e-5}});
	n->nout = 5;
	n->out = ARENA_ARRAY(&m.a, Arg, 5);
	for (int i = 0; i < 5; i++) {
		n->out[i] = varg(bo[i]);
		bo[i]->def = n;
		output(&m, m.g, bo[i]);
	}
	var = tensor(&m, m.g, "var", DT_FLOAT32, 4, dk, NULL);
	mean = tensor(&m, m.g, "mean", DT_FLOAT32, 4, dk, NULL);
	n = node(&m, m.g, "aten.var_mean.correction", NULL, 4, (const char *[]){"self", "dim", "correction", "keepdim"},
	              (Arg[]){varg(x), ints_arg(&m, 1, one), {.kind = ARG_INT, .u.i = 0},
	                      {.kind = ARG_BOOL, .u.i = 1}});
	n->nout = 2;
	n->out = ARENA_ARRAY(&m.a, Arg, 2);
	n->out[0] = varg(var);
	n->out[1] = varg(mean);
	r = tensor(&m, m.g, "rsqrt", DT_FLOAT32, 4, dk, NULL);
	node(&m, m.g, "aten.rsqrt.default", r, 1, (const char *[]){"self"}, (Arg[]){varg(var)});
	output(&m, m.g, mean);
	output(&m, m.g, r);
	(void)d0;
	options_default(&o);
	ck_assert_int_eq(lower_program(&m.p, options_lower(&o, &(LowerOptions){0}), &m.a, &mp, &d), 0);
	ck_assert_int_eq(mp->graph->n_output, 7);
	mkdir("build/test", 0777);
	mkdir(OUTDIR, 0777);
	ck_assert_int_eq(onnx_write(&m.a, mp, OUTDIR "/core_ops.onnx", -1, NULL, &d), 0);
	arena_free(&m.a);
}
END_TEST

/* A lowering that cannot do its job fails the node with its location. */
START_TEST(test_lowering_error)
{
	static const int64_t d13[] = {1, 3}, d23[] = {2, 3};
	Mini m;
	Options o;
	Diag d = {0};
	Onnx__ModelProto *mp = NULL;
	Value *x, *e, *w;

	mini_init(&m);
	x = mini_input(&m, "x", DT_FLOAT32, 2, d13);
	e = tensor(&m, m.g, "expand", DT_FLOAT32, 2, d23, NULL);
	w = tensor(&m, m.g, "add_", DT_FLOAT32, 2, d23, NULL);
	node(&m, m.g, "aten.expand.default", e, 2, (const char *[]){"self", "size"},
	          (Arg[]){varg(x), ints_arg(&m, 2, d23)});
	node(&m, m.g, "aten.add_.Tensor", w, 2, (const char *[]){"self", "other"},
	          (Arg[]){varg(e), (Arg){.kind = ARG_INT, .u.i = 1}});
	output(&m, m.g, w);
	options_default(&o);
	ck_assert_int_eq(lower_program(&m.p, options_lower(&o, &(LowerOptions){0}), &m.a, &mp, &d), DIAG_CONVERT);
	ck_assert_ptr_null(mp);
	ck_assert_msg(strstr(test_diag_text(&d), "node 'expand' (aten.expand.default) at model.py:7 in forward: y = f(x): "
	                             "writing into an expanded tensor is not supported"), "%s", test_diag_text(&d));
	diag_free(&d);
	arena_free(&m.a);
}
END_TEST

/* ---- writer ---- */

START_TEST(test_external_data_and_determinism)
{
	const char *pt2 = "test/models/torch-2.14/cnn.pt2";
	Diag d = {0};
	size_t l1, l2;
	char *a, *b, *inl, *ext, *p;
	size_t n;

	if (access(pt2, R_OK) != 0)
		return;
	mkdir("build/test", 0777);
	mkdir(OUTDIR, 0777);
	ck_assert_int_eq(convert(pt2, "", OUTDIR "/det1.onnx", &d), 0);
	ck_assert_int_eq(convert(pt2, "", OUTDIR "/det2.onnx", &d), 0);
	a = test_slurp(OUTDIR "/det1.onnx", &l1);
	b = test_slurp(OUTDIR "/det2.onnx", &l2);
	ck_assert_msg(l1 == l2 && memcmp(a, b, l1) == 0, "two conversions differ");
	free(a);
	free(b);

	unlink(OUTDIR "/ext.onnx.data");
	ck_assert_int_eq(convert(pt2, "external_data_threshold: 100\n", OUTDIR "/ext.onnx", &d), 0);
	ck_assert_int_eq(access(OUTDIR "/ext.onnx.data", R_OK), 0);
	inl = test_render_onnx(OUTDIR "/det1.onnx", OUTDIR);
	ext = test_render_onnx(OUTDIR "/ext.onnx", OUTDIR);
	/* same tensors and hashes once " external" is taken out */
	while ((p = strstr(ext, " external")))
		memmove(p, p + 9, strlen(p + 9) + 1);
	ck_assert_str_eq(inl, ext);
	free(inl);
	free(ext);
	a = test_slurp(OUTDIR "/ext.onnx.data", &n);
	ck_assert_msg(n > 2304 && n < 2304 + 5 * 64 + 1024, "data file of %zu bytes", n);
	free(a);
}
END_TEST

START_TEST(test_write_error)
{
	Mini m;
	Options o;
	Diag d = {0};
	Onnx__ModelProto *mp;
	glob_t gl;

	mini_mean_gelu(&m);
	options_default(&o);
	ck_assert_int_eq(lower_program(&m.p, options_lower(&o, &(LowerOptions){0}), &m.a, &mp, &d), 0);
	ck_assert_int_eq(onnx_write(&m.a, mp, "/nonexistent/dir/model.onnx", -1, NULL, &d), DIAG_INPUT);
	ck_assert_msg(strstr(test_diag_text(&d), "/nonexistent/dir/model.onnx: cannot write"), "%s", test_diag_text(&d));
	diag_free(&d);
	/* writing onto a directory fails at rename and leaves no temporary */
	mkdir("build/test", 0777);
	mkdir(OUTDIR, 0777);
	mkdir(OUTDIR "/adir.onnx", 0777);
	memset(&d, 0, sizeof d);
	ck_assert_int_eq(onnx_write(&m.a, mp, OUTDIR "/adir.onnx", -1, NULL, &d), DIAG_INPUT);
	diag_free(&d);
	ck_assert_msg(glob(OUTDIR "/*.tmp.*", 0, NULL, &gl) == GLOB_NOMATCH, "left a temporary file behind");
	arena_free(&m.a);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("lower");
	TCase *tc = tcase_create("lower");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_goldens);
	tcase_add_test(tc, test_opset_choices);
	tcase_add_test(tc, test_unsupported_listed);
	tcase_add_test(tc, test_output_names);
	tcase_add_test(tc, test_output_edge_cases);
	tcase_add_test(tc, test_write_through_view);
	tcase_add_test(tc, test_lowering_error);
	tcase_add_test(tc, test_core_ops_model);
	tcase_add_test(tc, test_external_data_and_determinism);
	tcase_add_test(tc, test_write_error);
	suite_add_tcase(s, tc);
	return s;
}
