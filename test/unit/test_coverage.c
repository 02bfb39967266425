/* test_coverage.c: every row of the op table is exercised by a fixture.
 *
 * test/models/ops-used.txt, written by `make_fixtures.py --ops-used`, has
 * one line per ATen target the fixtures use: "aten.X.overload FIX1 FIX2
 * ...".  The generator keeps the aten.* targets only, so the rows of
 * Python-level targets (size arithmetic: _operator.*, torch.sym_*,
 * math.*; higher_order.*) are looked up in the fixtures themselves, read
 * with pt2_load(), subgraphs included.  A row found in neither and not in
 * the allow-list below fails the test, which prints every such row and its
 * family (rows still waiting for their fixture are listed as pending).  An
 * allow-listed or pending row that a fixture does use fails too, so the
 * lists only hold what is true. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/ops/ops.h"
#include "read/read.h"
#include "pipeline/pipeline.h"
#include "core/core.h"
#include "diagtext.h"
#include "testutil.h"

/* Rows no fixture can exercise, each with the reason.  Keep it short: a
 * row a fixture could reach belongs in a fixture. */
static const char *const allowed[] = {
	/* (ops/sym.def says which Python size functions get no row, because no
	 * .pt2 torch writes can hold them) */
	/* torch.export refuses a graph holding it: its kernel returns float32
	 * scales and zero points where its Meta kernel says float64 and int64
	 * ("Tensor dtype mismatch"); test/lower/quant_per_token.txt checks it */
	"quantized_decomposed.choose_qparams_per_token.default",
	NULL,
};

/* Rows a fixture can reach but none does yet: each is waiting for the
 * fixture case named beside it (asked for in issue 3).  They are printed,
 * not failed, so `make check` stays green while the fixtures are written;
 * an entry a fixture starts using fails the test until it is removed, so
 * this list only shrinks.  It is empty: the test is strict. */
static const char *const pending[] = {
	NULL,
};

static int
listed_in(const char *const *list, const char *aten)
{
	for (int i = 0; list[i]; i++)
		if (strcmp(list[i], aten) == 0)
			return 1;
	return 0;
}

static int
is_allowed(const char *aten)
{
	return listed_in(allowed, aten);
}

static int
is_python_target(const char *name)
{
	return strncmp(name, "aten.", 5) != 0;
}

/* Adds the first word of each line of ops-used.txt to used; returns the
 * number of lines, or -1 when the file is missing. */
static int
read_ops_used(Arena *a, StrMap *used, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[65536];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		size_t len = strcspn(line, " \t\r\n");
		if (!len)
			continue;
		strmap_put(used, arena_strndup(a, line, len), (void *)1);
		n++;
	}
	fclose(f);
	return n;
}

/* Adds the target of every node of g and of its subgraphs to used. */
static void
walk(Arena *a, StrMap *used, const Graph *g)
{
	for (int i = 0; i < g->nnode; i++) {
		const Node *n = g->nodes[i];
		strmap_put(used, arena_strdup(a, n->op), (void *)1);
		for (int k = 0; k < n->nin; k++)
			if (n->in[k].arg.kind == ARG_GRAPH)
				walk(a, used, n->in[k].arg.u.g);
	}
}

/* The same for the TorchScript fixtures (test/models/jit-VERSION: NAME.pt read
 * with the `inputs:` of NAME.io/options.yaml): TorchScript's own op forms
 * (aten._convolution, ...) have rows only these reach. */
static int
scan_torchscript(Arena *keep, StrMap *used)
{
	glob_t gl;
	int n = 0;

	if (glob(TEST_PATH("models/jit-[0-9]*/*.pt"), 0, NULL, &gl) != 0)
		return 0;
	for (size_t i = 0; i < gl.gl_pathc; i++) {
		Arena a;
		Program p = {0};
		Diag d = {0};
		Options o;
		Zip z = {0};
		const char *pt = gl.gl_pathv[i];
		char *opts;
		arena_init(&a);
		p.arena = &a;
		options_default(&o);
		opts = arena_printf(&a, "%.*s.io/options.yaml", (int)(strlen(pt) - 3), pt);
		if (options_load(&o, &a, opts, &d) == 0 && zip_open(&z, pt, &a, &d) == 0 &&
		    ts_load(&p, &z, &o.inputs, &d) == 0) {
			walk(keep, used, p.graph);
			n++;
		} else {
			fprintf(stderr, "test_coverage: %s", test_diag_text(&d));
		}
		zip_close(&z);
		arena_free(&a);
		diag_free(&d);
	}
	globfree(&gl);
	return n;
}

/* Adds the targets of every fixture's graphs to used; returns the number
 * of fixtures read. */
static int
scan_fixtures(Arena *keep, StrMap *used)
{
	glob_t gl;
	int n = 0;

	if (glob(TEST_PATH("models/torch-*/*.pt2"), 0, NULL, &gl) != 0)
		return 0;
	for (size_t i = 0; i < gl.gl_pathc; i++) {
		Arena a;
		Program p = {0};
		Diag d = {0};
		arena_init(&a);
		p.arena = &a;
		if (pt2_load(&p, gl.gl_pathv[i], &d) == 0) {
			walk(keep, used, p.graph);
			n++;
		} else {
			fprintf(stderr, "test_coverage: %s", test_diag_text(&d));
		}
		pt2_close(&p);
		arena_free(&a);
		diag_free(&d);
	}
	globfree(&gl);
	return n + scan_torchscript(keep, used);
}

START_TEST(test_every_row_exercised)
{
	Arena a;
	StrMap *listed, *scanned;
	int nlisted, nscanned, missing = 0, stale = 0, npending = 0;

	arena_init(&a);
	listed = strmap_new(&a, 1024);
	scanned = strmap_new(&a, 1024);
	nlisted = read_ops_used(&a, listed, TEST_PATH("models/ops-used.txt"));
	ck_assert_msg(nlisted > 0, "test/models/ops-used.txt is missing or empty (make_fixtures.py --ops-used)");
	nscanned = scan_fixtures(&a, scanned);
	ck_assert_msg(nscanned > 0, "no fixture under test/models/torch-*/ could be read");
	for (int i = 0; i < OP_COUNT; i++) {
		const OpRow *r = &op_table[i];
		int used = strmap_get(scanned, r->aten) || (!is_python_target(r->aten) && strmap_get(listed, r->aten));
		int wait = listed_in(pending, r->aten);
		if (!used && wait) {
			fprintf(stderr, "pending (no fixture yet): %s (lib/lower/ops/%s.def)\n", r->aten, r->family);
			npending++;
		} else if (!used && !is_allowed(r->aten)) {
			fprintf(stderr, "not exercised by any fixture: %s (lib/lower/ops/%s.def)\n", r->aten, r->family);
			missing++;
		} else if (used && (is_allowed(r->aten) || wait)) {
			fprintf(stderr, "%s but used by a fixture: %s\n", wait ? "pending" : "allow-listed", r->aten);
			stale++;
		}
	}
	fprintf(stderr, "coverage: %d rows, %d ATen targets in ops-used.txt, %d fixtures read, "
	        "%d rows not exercised, %d pending, %d stale list entries\n", OP_COUNT, nlisted, nscanned, missing,
	        npending, stale);
	arena_free(&a);
	ck_assert_msg(!missing, "%d row(s) of the op table are not exercised by any fixture (listed above)", missing);
	ck_assert_msg(!stale, "%d allow-listed or pending row(s) are used by a fixture: remove them (listed above)", stale);
}
END_TEST

/* Every allow-list and pending entry names a row. */
START_TEST(test_allow_list_names_rows)
{
	for (int i = 0; allowed[i]; i++)
		ck_assert_msg(ops_find(allowed[i]) != NULL, "allow-list entry '%s' has no row", allowed[i]);
	for (int i = 0; pending[i]; i++)
		ck_assert_msg(ops_find(pending[i]) != NULL, "pending entry '%s' has no row", pending[i]);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("coverage");
	TCase *tc = tcase_create("coverage");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_every_row_exercised);
	tcase_add_test(tc, test_allow_list_names_rows);
	suite_add_tcase(s, tc);
	return s;
}
