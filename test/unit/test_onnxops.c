/* test_onnxops.c: the ONNX op table (lib/onnx/onnxops.def) against what the
 * converter writes.  Every fixture is lowered and optimized at opsets 17,
 * 18, 23, 24, 25 and 26 (default patterns, and the onnxruntime set: the
 * ops that change at 23, 24 and 26, and 25 where silu goes back to its
 * formula); each node of the
 * result, subgraphs included, must be a row of the table, in its domain,
 * whose opset range [since, max] holds the model's opset for that domain
 * (ai.onnx: the target; com.microsoft: 1).  So the table knows every op the
 * lowerings and rewrites emit, and its opset columns are the ones the
 * output is valid at: a row whose `since` is too high, an op emitted below
 * the opset that introduced it, or an op missing from the table fails.
 * Every node's element types must also be legal (lib/onnx/legal.c: its
 * schema's types and an onnxruntime CPU kernel).
 * ONNXOPS_SHARD=K/N checks only the fixtures K, K+N, K+2N... so make check
 * runs the N shards side by side (test/suites.sh). */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"
#include "onnx/onnx.h"
#include "opt/opt.h"
#include "pipeline/pipeline.h"
#include "read/read.h"
#include "diagtext.h"
#include "testutil.h"

static const int opsets[] = {17, 18, 23, 24, 25, 26};

/* Counts of rows the fixtures exercise, to report and to assert non-zero. */
static int seen[ONNXOP_COUNT];

/* Checks every node of g for opset `opset` (the ai.onnx import) and returns
 * the number of problems, printing each once per fixture. */
static int
check_graph(const Onnx__GraphProto *g, int opset, const char *what)
{
	int bad = 0;

	for (size_t i = 0; i < g->n_node; i++) {
		const OnnxNode *n = g->node[i];
		const char *dom = n->domain && *n->domain ? n->domain : "";
		int id = onnx_op_of(n), at = *dom ? 1 : opset;
		for (size_t k = 0; k < n->n_attribute; k++)
			if (n->attribute[k]->g)
				bad += check_graph(n->attribute[k]->g, opset, what);
		if (id < 0) {
			fprintf(stderr, "%s: %s%s%s is not a row of onnxops.def\n", what, dom, *dom ? ":" : "", n->op_type);
			bad++;
			continue;
		}
		seen[id]++;
		/* Attention's 7th input, nonpad_kv_seqlen, came with opset 24 */
		if (id == ONNXOP_ATTENTION && n->n_input > 6 && at < 24) {
			fprintf(stderr, "%s: Attention with nonpad_kv_seqlen is written at opset %d (it needs 24)\n", what, at);
			bad++;
		}
		if (onnx_ops[id].since > at || (onnx_ops[id].max && onnx_ops[id].max < at)) {
			fprintf(stderr, "%s: %s is written at opset %d but its row says %d..%d\n", what, n->op_type, at,
			        onnx_ops[id].since, onnx_ops[id].max);
			bad++;
		}
	}
	return bad;
}

START_TEST(test_written_ops_are_rows)
{
	glob_t gl;
	int bad = 0, models = 0, rows = 0;
	OptSelect *ort = NULL;
	int off, len, shard = 0, nshard = 1;
	const char *env = getenv("ONNXOPS_SHARD");
	Arena keep;

	if (env && (sscanf(env, "%d/%d", &shard, &nshard) != 2 || nshard < 1 || shard < 0 || shard >= nshard))
		ck_abort_msg("ONNXOPS_SHARD=%s: K/N with 0 <= K < N", env);
	arena_init(&keep);
	ck_assert_int_eq(opt_select_parse(&keep, "default+onnxruntime", &ort, &off, &len), 0);
	ck_assert_int_eq(glob("test/models/torch-*/*.pt2", 0, NULL, &gl), 0);
	for (size_t i = (size_t)shard; i < gl.gl_pathc; i += (size_t)nshard) {
		for (size_t o = 0; o < sizeof opsets / sizeof opsets[0]; o++) {
			for (int set = 0; set < 2; set++) {
				Arena a;
				Program p = {0};
				Options opt;
				Diag d = {0};
				Onnx__ModelProto *m = NULL;
				char what[1200];
				arena_init(&a);
				options_default(&opt);
				opt.opset = opsets[o];
				p.arena = &a;
				snprintf(what, sizeof what, "%s at opset %d%s", gl.gl_pathv[i], opsets[o],
				         set ? " (onnxruntime patterns)" : "");
				if (pt2_load(&p, gl.gl_pathv[i], &d) == 0 &&
				    lower_program(&p, options_lower(&opt, &(LowerOptions){0}), &a, &m, &d) == 0) {
					ck_assert_msg(opt_model(m, &a, set ? ort : NULL, NULL, NULL, &d) == 0, "%s: %s", what,
					              test_diag_text(&d));
					bad += check_graph(m->graph, opsets[o], what);
					/* and every node's element types legal (lib/onnx/legal.c) */
					if (onnx_model_legal(m, 1, &a, what, NULL, &d)) {
						fprintf(stderr, "%s", test_diag_text(&d));
						bad++;
					}
					models++;
				}
				/* a fixture refused at an opset (op_dtypes at 17) writes nothing to check */
				diag_free(&d);
				arena_free(&a);
			}
		}
	}
	globfree(&gl);
	arena_free(&keep);
	for (int i = 0; i < ONNXOP_COUNT; i++)
		rows += seen[i] > 0;
	fprintf(stderr, "onnxops: %d models, %d of %d rows written\n", models, rows, ONNXOP_COUNT);
	ck_assert_int_gt(models, 700 / nshard);
	ck_assert_msg(bad == 0, "%d nodes outside the op table or its opset ranges (see above)", bad);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("onnxops");
	TCase *c = tcase_create("core");

	tcase_set_timeout(c, 600);
	tcase_add_test(c, test_written_ops_are_rows);
	suite_add_tcase(s, c);
	return s;
}
