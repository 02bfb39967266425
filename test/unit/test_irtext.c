/* test_irtext.c: the text-graph reader (lib/read/irtext.c) and the lowering
 * goldens of test/lower/.
 *
 *  - bad texts: each is an error value (DIAG_INPUT) whose one message
 *    starts "t.txt:LINE:COL: " and names what is wrong; never an abort;
 *  - round trip: for every fixture, --print, read that text back, --print
 *    again: the same text but for the first line (the file read); the same
 *    with ir_print_ext(IR_PRINT_EXACT | IR_PRINT_NAMES);
 *  - fidelity: every fixture lowers (`patterns: none`) to the same ONNX
 *    from its .pt2 and from its exact text, but for the initializers'
 *    bytes: the text has no weight values, the reader fills them;
 *  - goldens: each test/lower/NAME.txt is a text graph, optional
 *    "# options: YAML" lines, an optional "=== check" part (numbers for
 *    test/ort/golden.mjs) and, after "=== onnx", the expected rendering
 *    (onnx_print) of the model the pipeline writes, by default with
 *    `patterns: none` so the lowering itself shows.  UPDATE=1 (or
 *    UPDATE_GOLDEN=1) rewrites that part.  The models stay in
 *    $(B)/test/irtext/ for golden.mjs. */
#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/ir.h"
#include "lower/lower.h"
#include "onnx/onnx.h"
#include "pipeline/pipeline.h"
#include "read/read.h"
#include "diagtext.h"
#include "testutil.h"

/* $(B)/test/irtext: next to this test binary, so the ASan build keeps its own. */
static const char *
out_dir(void)
{
	static char dir[1024];
	char exe[1024];
	ssize_t n;

	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	ck_assert_msg(n > 0, "readlink /proc/self/exe");
	exe[n] = 0;
	snprintf(dir, sizeof dir, "%s/irtext", dirname(exe));
	mkdir(dir, 0777);
	return dir;
}

/* ---- bad texts ---- */

static const struct { const char *text, *want; } bad[] = {
	{"graph main(x: float32[2]) {\n  return (y)\n}\n", "t.txt:2:11: unknown value 'y'"},
	{"graph main(x: floot32[2]) {\n  return (x)\n}\n", "t.txt:1:15: unknown dtype 'floot32'"},
	{"graph main(x: float32[2) {\n  return (x)\n}\n", "t.txt:1:24: expected ',' or ']' between dims"},
	{"graph main(x: float32[2], x: float32[3]) {\n  return (x)\n}\n", "t.txt:1:27: value 'x' is defined twice"},
	{"graph main(x: float32[2]) {\n  y: float32[2] = aten.relu.default(self=x\n  return (y)\n}\n",
	 "t.txt:2:43: expected ',' or ')' between arguments"},
	{"graph main(x: float32[2]) {\n  y: float32[2] = aten.relu.default(self=x) junk\n  return (y)\n}\n",
	 "t.txt:2:45: unexpected text after the node's arguments"},
	{"graph main(x: float32[2]) {\n  y: float32[2] = aten.relu.default(self=x)\n", "graph 'main' is not closed with '}'"},
	{"graph main(x: float32[2]) {\n}\n", "t.txt:2:1: graph 'main' ends without 'return (...)'"},
	{"graph main(x: float32[2]) {\n  return (x)\n}\nextra\n", "t.txt:4:1: text after graph main"},
	{"inputs\n  user_input x\n", "no 'graph main(...) {' in the text"},
	{"graph main(x: float32[s0 +]) {\n  return (x)\n}\n", "t.txt:1:23: expression 's0 +'"},
	{"graph main(x: float32[2]) {\n  y: float32[2] = aten.add.Tensor(self=x, other=[x, 1.5])\n  return (y)\n}\n",
	 "t.txt:2:49: a list mixes items"},
	{"graph main(x: float32[2]) {\n  y: float32[2] = aten.to.dtype(self=x, dtype=dtype:float99)\n  return (y)\n}\n",
	 "t.txt:2:53: unknown dtype 'float99'"},
	{"graph main(x: float32[2]) {\n  y: float32[2] = aten.cond(x, graph:g0)\n  return (y)\n}\n",
	 "names graph:g0 but no such graph block follows it"},
	{"graph main(x: float32[2]) {\n  graph g0(a: float32[2]) {\n    return (a)\n  }\n  return (x)\n}\n",
	 "t.txt:2:9: graph 'g0' follows a node that has no argument graph:g0"},
	{"inputs\n  parameter w: float32[3] = [1, 2]\ngraph main(w: float32[3]) {\n  return (w)\n}\n",
	 "t.txt:2:29: weight 'w' has 3 elements but 2 values are given"},
	{"inputs\n  parameter w: float32[s0]\ngraph main(w: float32[s0]) {\n  return (w)\n}\n",
	 "t.txt:2:13: weight 'w' has a symbolic dim s0"},
	{"inputs\n  parameter w: float32[3] = noise(1)\ngraph main(w: float32[3]) {\n  return (w)\n}\n",
	 "t.txt:2:29: unknown fill 'noise'"},
	{"inputs\n  parameter w: float32[4]\ngraph main(w: float32[3]) {\n  return (w)\n}\n",
	 "t.txt:2:13: input 'w' has another type in graph main"},
	{"inputs\n  user_input x\n  user_input y\ngraph main(x: float32[3]) {\n  return (x)\n}\n",
	 "t.txt:3:3: more inputs listed than graph main has (1)"},
	{"inputs\n  user_input y\ngraph main(x: float32[3], y: float32[3]) {\n  return (x)\n}\n",
	 "t.txt:2:14: input 1 is not what graph main takes as its input 1"},
	{"outputs\n  user_output x\n  user_output x\ngraph main(x: float32[3]) {\n  return (x)\n}\n",
	 "t.txt:3:3: more outputs listed than graph main returns (1)"},
	{"symbols\n  s0 in [2 64]\ngraph main(x: float32[s0]) {\n  return (x)\n}\n",
	 "t.txt:2:12: expected ',' between the minimum and the maximum"},
	{"samples\n  1: float32[2]\ngraph main(x: float32[2]) {\n  return (x)\n}\n",
	 "t.txt:2:3: sample 1 where sample 0 was expected"},
	{"  indented\ngraph main() {\n  return ()\n}\n", "t.txt:1:3: indented line outside a section"},
	{"inputs\ninputs\ngraph main() {\n  return ()\n}\n", "t.txt:2:1: section 'inputs' appears twice"},
	{"graph main(x: float32[2]) {\n  y: float32[2] = aten.foo.default(self='abc)\n  return (y)\n}\n",
	 "t.txt:2:41: unterminated string"},
	{"graph main(x: float32[2]) {\n  y: float32[2] = aten.foo.default(self=12x)\n  return (y)\n}\n",
	 "t.txt:2:41: bad number '12x'"},
	{"graph main(x: float32[2]) {\n  y: float32[2] = aten.foo.default(self=x)\n  y: float32[2] = aten.foo.default(self=x)\n  return (y)\n}\n",
	 "t.txt:3:3: value 'y' is defined twice"},
	{"graph other() {\n  return ()\n}\n", "t.txt:1:7: the top-level graph must be 'graph main(...)'"},
	{"program x\n  flavour: sweet\ngraph main() {\n  return ()\n}\n", "t.txt:2:3: unknown program line"},
	/* sizes, strides and offsets from the text are range-checked before use (issue 20) */
	{"inputs\n  parameter w: float32[4] <- w [e, -1 bytes]\ngraph main(w: float32[4]) {\n  return (w)\n}\n",
	 "t.txt:2:36: a storage of -1 bytes (1 or more)"},
	{"inputs\n  parameter w: float32[4] <- w [e, 1000000000000 bytes]\ngraph main(w: float32[4]) {\n  return (w)\n}\n",
	 "weight 'w': a storage of more than 268435456 bytes"},
	{"samples\n  0: float32[2] strides [-1] offset 0\ngraph main(x: float32[2]) {\n  return (x)\n}\n",
	 "sample 0: stride -1 is not in [0, 16777216]"},
	{"samples\n  0: float32[2] strides [1] offset -5\ngraph main(x: float32[2]) {\n  return (x)\n}\n",
	 "sample 0: storage offset -5 is not in [0, 16777216]"},
	{"samples\n  0: float32[2] strides [1] offset 9223372036854775807\ngraph main(x: float32[2]) {\n  return (x)\n}\n",
	 "is not in [0, 16777216]"},
};

START_TEST(test_bad_text)
{
	Arena a;
	Program p = {0};
	Diag d = {0};
	const char *text = bad[_i].text;

	arena_init(&a);
	p.arena = &a;
	ck_assert_int_eq(irtext_parse(&p, "t.txt", text, strlen(text), &d), DIAG_INPUT);
	ck_assert_msg(test_diag_text(&d) && strncmp(test_diag_text(&d), "t.txt:", 6) == 0 && strstr(test_diag_text(&d), bad[_i].want),
	              "case %d: got '%s', want '%s'", _i, test_diag_text(&d) ? test_diag_text(&d) : "", bad[_i].want);
	ck_assert_msg(strchr(test_diag_text(&d), '\n') == test_diag_text(&d) + strlen(test_diag_text(&d)) - 1, "case %d: more than one line: %s", _i, test_diag_text(&d));
	diag_free(&d);
	arena_free(&a);
}
END_TEST

/* ---- what a newcomer writes ---- */

START_TEST(test_kinds)
{
	static const char text[] =
		"# a comment\n"
		"symbols\n"
		"  s0 in [2, 64]\n"
		"inputs\n"
		"  parameter w: float32[3] <- lin.weight = [0.5, -1, 2]\n"
		"  buffer b: int64[2] <- steps (not persistent) = arange(3, 2)\n"
		"  user_input x: float32[s0,3]\n"
		"graph main(w: float32[3], b: int64[2], x: float32[s0,3]) {\n"
		"  n: SymInt(s0) = aten.sym_size.int(self=x, dim=0)\n"
		"  y: float32[s0,3] = aten.foo.default(x, [1, n], [1.5, 2], 2.0, 2, True, None, 'a b', [x, None], "
		"dtype:float16, device:cuda:0, layout:0, memory_format:1, {'k': 1}, [[1, 2], [3]], -inf)  # m.py:3 in f: y = x\n"
		"  _ = aten._assert_scalar.default(n, 'msg')\n"
		"  (a: float32[1,3], c: float32[1,3]) = aten.split.Tensor(self=y, split_size=1)\n"
		"  return (y, a)\n"
		"}\n"
		"=== onnx\n"
		"anything goes here\n";
	static const ArgKind want[] = {ARG_TENSOR, ARG_SYM_INTS, ARG_FLOATS, ARG_FLOAT, ARG_INT, ARG_BOOL, ARG_NONE,
	                               ARG_STRING, ARG_OPT_TENSORS, ARG_SCALAR_TYPE, ARG_DEVICE, ARG_LAYOUT,
	                               ARG_MEMORY_FORMAT, ARG_STRING_TO_ARG, ARG_INT_LISTS, ARG_FLOAT};
	Arena a;
	Program p = {0};
	Diag d = {0};
	const Node *n;
	const float *w;
	const int64_t *b;

	arena_init(&a);
	p.arena = &a;
	ck_assert_msg(irtext_parse(&p, "t.txt", text, strlen(text), &d) == 0, "%s", test_diag_text(&d));
	ck_assert_int_eq(p.nrange, 1);
	ck_assert(p.ranges[0].has_min && p.ranges[0].min == 2 && p.ranges[0].max == 64);
	ck_assert_int_eq(p.ninput_spec, 3);
	ck_assert_int_eq(p.input_specs[0].kind, IN_PARAMETER);
	ck_assert_str_eq(p.input_specs[0].target, "lin.weight");
	ck_assert_int_eq(p.input_specs[1].persistent, 0);
	w = (const float *)p.graph->inputs[0].u.v->data->storage;
	ck_assert(w[0] == 0.5f && w[1] == -1.0f && w[2] == 2.0f);
	b = (const int64_t *)p.graph->inputs[1].u.v->data->storage;
	ck_assert(b[0] == 3 && b[1] == 5);
	ck_assert_int_eq(p.noutput_spec, 2);
	ck_assert_int_eq(p.output_specs[1].kind, OUT_USER_OUTPUT);
	ck_assert_int_eq(p.graph->nnode, 4);
	n = p.graph->nodes[1];
	ck_assert_str_eq(n->op, "aten.foo.default");
	ck_assert_str_eq(n->target, "torch.ops.aten.foo.default");
	ck_assert_str_eq(n->frame, "m.py:3 in f: y = x");
	ck_assert_int_eq(n->nin, (int)(sizeof want / sizeof want[0]));
	for (int i = 0; i < n->nin; i++)
		ck_assert_msg(n->in[i].arg.kind == want[i], "argument %d: kind %d, want %d", i, n->in[i].arg.kind, want[i]);
	ck_assert_int_eq(n->in[9].arg.u.i, 6);   /* float16 in torch's serialized ScalarType */
	ck_assert_str_eq(n->in[10].arg.u.s, "cuda:0");
	ck_assert_int_eq(p.graph->nodes[0]->out[0].kind, ARG_SYM_INT);
	ck_assert_int_eq(p.graph->nodes[2]->nout, 0);
	ck_assert_str_eq(p.graph->nodes[2]->name, "_assert_scalar_default");
	ck_assert_int_eq(p.graph->nodes[3]->out[0].kind, ARG_TENSORS);
	ck_assert_str_eq(p.graph->nodes[3]->name, "a");
	ck_assert_ptr_eq(p.graph->nodes[3]->out[0].u.list[1].u.v->def, p.graph->nodes[3]);
	diag_free(&d);
	arena_free(&a);
}
END_TEST

/* ---- the fixtures ---- */

static char *
print_program(const Program *p, unsigned flags)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ir_print_ext(f, p, flags);
	fclose(f);
	return buf;
}

/* Bytes up to and with the first newline: the "program FILE" line. */
static size_t
first_line(const char *s)
{
	size_t n = strcspn(s, "\n");

	return s[n] ? n + 1 : n;
}

START_TEST(test_round_trip)
{
	glob_t gl;
	int failed = 0;

	ck_assert_msg(glob("test/models/torch-*/*.pt2", 0, NULL, &gl) == 0, "no fixtures");
	for (size_t i = 0; i < gl.gl_pathc; i++) {
		Arena a;
		Program p = {0};
		Diag d = {0};
		char *once, *twice;

		arena_init(&a);
		p.arena = &a;
		ck_assert_msg(pt2_load(&p, gl.gl_pathv[i], &d) == 0, "%s", test_diag_text(&d));
		for (unsigned flags = 0; flags <= (IR_PRINT_EXACT | IR_PRINT_NAMES); flags += 3) {
			Program q = {.arena = &a};
			once = print_program(&p, flags);
			if (irtext_parse(&q, "rt.txt", once, strlen(once), &d)) {
				fprintf(stderr, "%s: its --print (flags %u) does not read back: %s", gl.gl_pathv[i], flags, test_diag_text(&d));
				failed++;
			} else {
				twice = print_program(&q, flags);
				if (strcmp(once + first_line(once), twice + first_line(twice)) != 0) {
					fprintf(stderr, "%s: --print (flags %u) of its --print differs\n", gl.gl_pathv[i], flags);
					failed++;
				}
				free(twice);
			}
			free(once);
		}
		diag_free(&d);
		pt2_close(&p);
		arena_free(&a);
	}
	ck_assert_msg(!failed, "%d of %zu fixtures do not round-trip", failed, gl.gl_pathc);
	globfree(&gl);
}
END_TEST

/* Runs the pipeline on input with the options text; the code, messages in d. */
static int
convert(const char *input, const char *yaml, const char *out, Diag *d)
{
	Arena a;
	Pipeline pl = {.input = input, .out = out};
	int rc;

	arena_init(&a);
	pipeline_init(&pl, &a);
	rc = options_parse(&pl.opt, &a, "options", yaml, strlen(yaml), d);
	if (!rc)
		rc = pipeline_run(&pl, d);
	pipeline_close(&pl);
	arena_free(&a);
	return rc;
}

/* The rendering without the initializers' hashes ("fnv1a 0123..."). */
static void
strip_hashes(char *s)
{
	char *h;

	while ((h = strstr(s, "fnv1a "))) {
		char *e = h + 6;
		while ((*e >= '0' && *e <= '9') || (*e >= 'a' && *e <= 'f'))
			e++;
		memmove(h, e, strlen(e) + 1);
	}
}

START_TEST(test_fidelity)
{
	const char *dir = out_dir();
	glob_t gl;
	int failed = 0, same = 0;

	ck_assert_msg(glob("test/models/torch-*/*.pt2", 0, NULL, &gl) == 0, "no fixtures");
	for (size_t i = 0; i < gl.gl_pathc; i++) {
		const char *pt2 = gl.gl_pathv[i];
		char txt[1200], o1[1200], o2[1200], *r1, *r2, *printed;
		Arena a;
		Program p = {0};
		Diag d = {0};
		FILE *f;
		int rc1, rc2;

		snprintf(txt, sizeof txt, "%s/fidelity.txt", dir);
		snprintf(o1, sizeof o1, "%s/fidelity-pt2.onnx", dir);
		snprintf(o2, sizeof o2, "%s/fidelity-txt.onnx", dir);
		arena_init(&a);
		p.arena = &a;
		ck_assert_msg(pt2_load(&p, pt2, &d) == 0, "%s", test_diag_text(&d));
		printed = print_program(&p, IR_PRINT_EXACT | IR_PRINT_NAMES);
		pt2_close(&p);
		arena_free(&a);
		f = fopen(txt, "w");
		fputs(printed, f);
		fclose(f);
		free(printed);
		rc1 = convert(pt2, "report: false\npatterns: none\n", o1, &d);
		rc2 = convert(txt, "report: false\npatterns: none\n", o2, &d);
		diag_free(&d);
		if (rc1 != rc2) {
			fprintf(stderr, "fidelity: %s converts with status %d, its text with %d\n", pt2, rc1, rc2);
			failed++;
			continue;
		}
		if (rc1)
			continue;
		r1 = test_render_onnx(o1, dir);
		r2 = test_render_onnx(o2, dir);
		strip_hashes(r1);
		strip_hashes(r2);
		if (strcmp(r1, r2) == 0) {
			same++;
		} else {
			char keep[1300];
			fprintf(stderr, "fidelity: %s and its text lower differently (see %s/fidelity-%zu-*.render)\n", pt2, dir, i);
			snprintf(keep, sizeof keep, "%s/fidelity-%zu-pt2.render", dir, i);
			if ((f = fopen(keep, "w")))
				fputs(r1, f), fclose(f);
			snprintf(keep, sizeof keep, "%s/fidelity-%zu-txt.render", dir, i);
			if ((f = fopen(keep, "w")))
				fputs(r2, f), fclose(f);
			failed++;
		}
		free(r1);
		free(r2);
	}
	fprintf(stderr, "fidelity: %d of %zu fixtures lower the same from their text\n", same, gl.gl_pathc);
	ck_assert_msg(!failed, "%d fixtures lower differently from their text", failed);
	globfree(&gl);
}
END_TEST

/* ---- the lowering goldens ---- */

/* The "# options: " lines of a golden, as YAML; `patterns: none` and
 * `report: false` unless it says otherwise. */
static void
golden_options(const char *text, char *yaml, size_t cap)
{
	int patterns = 0, report = 0;

	yaml[0] = 0;
	for (const char *l = text; *l; ) {
		const char *eol = strchr(l, '\n');
		size_t n = eol ? (size_t)(eol - l) : strlen(l);
		if (n >= 3 && memcmp(l, "===", 3) == 0)
			break;
		if (n > 11 && strncmp(l, "# options: ", 11) == 0) {
			snprintf(yaml + strlen(yaml), cap - strlen(yaml), "%.*s\n", (int)(n - 11), l + 11);
			patterns |= strncmp(l + 11, "patterns:", 9) == 0;
			report |= strncmp(l + 11, "report:", 7) == 0;
		}
		l += n + (eol != NULL);
	}
	if (!patterns)
		snprintf(yaml + strlen(yaml), cap - strlen(yaml), "patterns: none\n");
	if (!report)
		snprintf(yaml + strlen(yaml), cap - strlen(yaml), "report: false\n");
}

START_TEST(test_goldens)
{
	const char *dir = out_dir();
	glob_t gl;
	int failed = 0, update = getenv("UPDATE") || getenv("UPDATE_GOLDEN");

	ck_assert_msg(glob("test/lower/*.txt", 0, NULL, &gl) == 0, "no goldens in test/lower");
	for (size_t i = 0; i < gl.gl_pathc; i++) {
		const char *path = gl.gl_pathv[i], *base = strrchr(path, '/') + 1;
		char out[1200], yaml[2048], *text, *got, *want;
		size_t len, head;
		Diag d = {0};

		snprintf(out, sizeof out, "%s/%.*s.onnx", dir, (int)strlen(base) - 4, base);
		text = test_slurp(path, &len);
		golden_options(text, yaml, sizeof yaml);
		if (convert(path, yaml, out, &d)) {
			fprintf(stderr, "%s: %s", path, test_diag_text(&d) ? test_diag_text(&d) : "conversion failed\n");
			failed++;
			diag_free(&d);
			free(text);
			continue;
		}
		diag_free(&d);
		got = test_render_onnx(out, dir);
		want = strstr(text, "\n=== onnx\n");
		head = want ? (size_t)(want - text) + 10 : len;
		if (update) {
			FILE *f = fopen(path, "w");
			fwrite(text, 1, want ? head : len, f);
			if (!want)
				fputs(len && text[len - 1] != '\n' ? "\n=== onnx\n" : "=== onnx\n", f);
			fputs(got, f);
			fclose(f);
		} else if (!want) {
			fprintf(stderr, "%s: no '=== onnx' part (UPDATE=1 writes it)\n", path);
			failed++;
		} else if (strcmp(text + head, got) != 0) {
			fprintf(stderr, "%s differs; got:\n%s", path, got);
			failed++;
		}
		free(got);
		free(text);
	}
	ck_assert_msg(!failed, "%d of %zu lowering golden(s) fail (UPDATE=1 rewrites their ONNX part)", failed, gl.gl_pathc);
	globfree(&gl);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("irtext");
	TCase *tc = tcase_create("irtext");

	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_bad_text, 0, (int)(sizeof bad / sizeof bad[0]));
	tcase_add_test(tc, test_kinds);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_fidelity);
	tcase_add_test(tc, test_goldens);
	suite_add_tcase(s, tc);
	return s;
}
