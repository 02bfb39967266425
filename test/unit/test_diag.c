/* test_diag.c: diagnostics as values.  The table (lib/core/diag.def: ids,
 * names, areas, exit statuses), what an item keeps (codes, the worst exit
 * status, labels resolved to file and entry, the user frame parsed), the
 * one-line text of each location form, which the command line prints and
 * test/run-cli.sh checks, and docs/diagnostics.md being what `make docs`
 * writes now. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "diagtext.h"
#include "testutil.h"

static char *
text_of(const DiagItem *it)
{
	static char buf[1024];

	ck_assert_uint_lt(diag_format(it, buf, sizeof buf), sizeof buf);
	return buf;
}

START_TEST(table_is_consistent)
{
	for (int i = 1; i < YE_COUNT; i++) {
		const DiagInfo *r = diag_info((DiagCode)i);
		char id[16];
		ck_assert_ptr_nonnull(r);
		snprintf(id, sizeof id, "YE%04d", r->num);
		ck_assert_str_eq(r->id, id);
		ck_assert_int_eq(diag_lookup(r->id), i);
		ck_assert_int_eq(diag_lookup(r->name), i);
		for (const char *p = r->name; *p; p++)
			ck_assert_msg(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '-',
			              "%s: '%s' is not kebab-case", r->id, r->name);
		ck_assert(r->name[0] != '-' && r->name[strlen(r->name) - 1] != '-');
		ck_assert_msg(r->help[0] && r->what[0], "%s has no help", r->id);
		/* errors decide the exit status; warnings and notes never fail a run */
		if (r->severity == DIAG_SEV_ERROR)
			ck_assert_msg(r->exit == DIAG_CONVERT || r->exit == DIAG_INPUT, "%s", r->id);
		else
			ck_assert_int_eq(r->exit, DIAG_OK);
		/* the areas: options, reading and I/O are the input's fault (2);
		 * conversion and the optimizer are ours (1), and so is a model whose
		 * interface differs from the golden one (YE0901; an unreadable
		 * golden file is the input's fault); verification (08) is ours
		 * when the model does not compute torch's numbers or cannot run
		 * (YE0801, YE0803), the input's when the runtime or the reference
		 * files are missing */
		if (r->severity == DIAG_SEV_ERROR && r->num / 100 == 8)
			ck_assert_int_eq(r->exit, r->num == 801 || r->num == 803 ? DIAG_CONVERT : DIAG_INPUT);
		else if (r->severity == DIAG_SEV_ERROR && r->num / 100 != 1)
			ck_assert_int_eq(r->exit, r->num / 100 == 2 || r->num / 100 == 6 || r->num == 901
			                          ? DIAG_CONVERT : DIAG_INPUT);
		for (int k = 1; k < i; k++) {
			ck_assert_msg(diag_info((DiagCode)k)->num < r->num, "%s is out of order", r->id);
			ck_assert_str_ne(diag_info((DiagCode)k)->name, r->name);
		}
	}
	ck_assert_ptr_null(diag_info(YE_NONE));
	ck_assert_ptr_null(diag_info(YE_COUNT));
	ck_assert_int_eq(diag_lookup("YE9999"), YE_NONE);
	ck_assert_int_eq(diag_lookup(NULL), YE_NONE);
	ck_assert_str_eq(diag_info(YE_UNSUPPORTED_OP)->id, "YE0201");
	ck_assert_str_eq(diag_info(YE_UNSUPPORTED_OP)->name, "unsupported-op");
	ck_assert_str_eq(diag_severity_name(DIAG_SEV_ERROR), "error");
	ck_assert_str_eq(diag_severity_name(DIAG_SEV_WARNING), "warning");
	ck_assert_str_eq(diag_severity_name(DIAG_SEV_NOTE), "note");
}
END_TEST

START_TEST(items_keep_codes_and_the_worst_status)
{
	Diag d = {0};

	ck_assert_int_eq(diag_report(&d, YE_LOWERING_FAILED, NULL, "a %d", 1), DIAG_CONVERT);
	ck_assert_int_eq(d.code, DIAG_CONVERT);
	ck_assert_int_eq(diag_report(&d, YE_NOT_CONVERTED, NULL, "note"), DIAG_OK);
	ck_assert_int_eq(d.code, DIAG_CONVERT);
	ck_assert_int_eq(diag_report(&d, YE_NOT_ZIP, &(DiagAt){.file = "m.pt2"}, "not a zip archive (%s)", "x"),
	                 DIAG_INPUT);
	ck_assert_int_eq(diag_report(&d, YE_LOWERING_FAILED, NULL, "b"), DIAG_CONVERT);
	ck_assert_int_eq(d.code, DIAG_INPUT);
	ck_assert_int_eq(d.n, 4);
	ck_assert_int_eq(d.items[0].code, YE_LOWERING_FAILED);
	ck_assert_int_eq(d.items[2].code, YE_NOT_ZIP);
	ck_assert_str_eq(d.items[0].message, "a 1");
	ck_assert_str_eq(d.items[2].message, "not a zip archive (x)");
	ck_assert_str_eq(d.items[2].file, "m.pt2");
	ck_assert_ptr_null(d.items[2].entry);
	ck_assert_str_eq(test_diag_text(&d), "a 1\nnote\nm.pt2: not a zip archive (x)\nb\n");
	diag_free(&d);
	ck_assert_int_eq(d.n, 0);
	ck_assert_int_eq(d.code, DIAG_OK);
	ck_assert_ptr_null(test_diag_text(&d));
}
END_TEST

/* Each location form reads as the messages always did. */
START_TEST(text_forms)
{
	Diag d = {0};
	char tmp[8];

	diag_report(&d, YE_OPTIONS_VALUE, &(DiagAt){.file = "o.yaml", .line = 3, .column = 7}, "unknown key '%s'", "pases");
	ck_assert_str_eq(text_of(&d.items[0]), "o.yaml:3:7: unknown key 'pases'");
	diag_report(&d, YE_SYM_EXPR, &(DiagAt){.file = "expr", .column = 4}, "bad");
	ck_assert_str_eq(text_of(&d.items[1]), "expr: column 4: bad");
	diag_report(&d, YE_PICKLE, &(DiagAt){.file = "m.pt2:data.pkl", .has_offset = 1, .offset = 0}, "BINGET: no memo");
	ck_assert_str_eq(text_of(&d.items[2]), "m.pt2:data.pkl: offset 0: BINGET: no memo");
	diag_report(&d, YE_UNSUPPORTED_OP, &(DiagAt){.node = "frob", .target = "aten.frob.default",
	            .frame = "model.py:7 in forward: y = f(x)\nmore"}, "no ONNX lowering");
	ck_assert_str_eq(text_of(&d.items[3]), "node 'frob' (aten.frob.default) at model.py:7 in forward: y = f(x): no ONNX lowering");
	diag_report(&d, YE_LOWERING_FAILED, &(DiagAt){.node = "n", .target = "aten.t"}, "why");
	ck_assert_str_eq(text_of(&d.items[4]), "node 'n' (aten.t): why");
	/* the entry is structure only: the text names it through file or the message */
	diag_report(&d, YE_ZIP_INFLATE, &(DiagAt){.file = "m.pt2", .entry = "a/b"}, "entry '%s': inflate error", "a/b");
	ck_assert_str_eq(text_of(&d.items[5]), "m.pt2: entry 'a/b': inflate error");
	ck_assert_str_eq(d.items[5].entry, "a/b");
	/* too small a buffer: truncated, NUL-terminated, and the length needed */
	ck_assert_uint_eq(diag_format(&d.items[4], tmp, sizeof tmp), strlen("node 'n' (aten.t): why"));
	ck_assert_str_eq(tmp, "node 'n");
	ck_assert_uint_eq(diag_format(&d.items[4], NULL, 0), strlen("node 'n' (aten.t): why"));
	diag_free(&d);
}
END_TEST

START_TEST(labels_give_file_and_entry)
{
	Diag d = {0};
	char path[] = "m.pt2";

	diag_input(&d, path);
	path[0] = 'X';   /* the Diag keeps its own copy */
	diag_report(&d, YE_JSON_SYNTAX, &(DiagAt){.file = "m.pt2:archive/models/model.json", .line = 2, .column = 5}, "x");
	ck_assert_str_eq(d.items[0].file, "m.pt2");
	ck_assert_str_eq(d.items[0].entry, "archive/models/model.json");
	ck_assert_str_eq(text_of(&d.items[0]), "m.pt2:archive/models/model.json:2:5: x");
	/* a label with more after it (a symbolic expression's) */
	diag_report(&d, YE_SYM_EXPR, &(DiagAt){.file = "m.pt2:archive/models/model.json:3:1: range 's0'", .column = 2}, "y");
	ck_assert_str_eq(d.items[1].file, "m.pt2");
	ck_assert_str_eq(d.items[1].entry, "archive/models/model.json");
	ck_assert_str_eq(text_of(&d.items[1]), "m.pt2:archive/models/model.json:3:1: range 's0': column 2: y");
	/* an explicit entry wins; a file that merely starts like the input is no label */
	diag_report(&d, YE_WEIGHT_SHORT, &(DiagAt){.file = "m.pt2:data.pkl", .entry = "data/0"}, "z");
	ck_assert_str_eq(d.items[2].entry, "data/0");
	diag_report(&d, YE_SCHEMA, &(DiagAt){.file = "m.pt25:a.json"}, "z");
	ck_assert_str_eq(d.items[3].file, "m.pt25:a.json");
	ck_assert_ptr_null(d.items[3].entry);
	diag_report(&d, YE_NOT_ZIP, &(DiagAt){.file = "m.pt2"}, "z");
	ck_assert_str_eq(d.items[4].file, "m.pt2");
	ck_assert_ptr_null(d.items[4].entry);
	diag_free(&d);
	/* nothing recorded: labels stay files */
	diag_report(&d, YE_JSON_SYNTAX, &(DiagAt){.file = "m.pt2:a.json", .line = 1, .column = 1}, "x");
	ck_assert_str_eq(d.items[0].file, "m.pt2:a.json");
	ck_assert_ptr_null(d.items[0].entry);
	diag_free(&d);
}
END_TEST

START_TEST(frames_are_parsed)
{
	Diag d = {0};
	const DiagFrame *f;

	diag_report(&d, YE_LOWERING_FAILED, &(DiagAt){.node = "a", .frame = "/src/m.py:23 in forward: y = x * 2"}, "m");
	f = &d.items[0].frame;
	ck_assert_str_eq(f->file, "/src/m.py");
	ck_assert_uint_eq(f->line, 23);
	ck_assert_str_eq(f->function, "forward");
	diag_report(&d, YE_LOWERING_FAILED, &(DiagAt){.node = "b", .frame = "C:/w/m.py:4: y = f(x)"}, "m");
	f = &d.items[1].frame;
	ck_assert_str_eq(f->file, "C:/w/m.py");
	ck_assert_uint_eq(f->line, 4);
	ck_assert_ptr_null(f->function);
	diag_report(&d, YE_LOWERING_FAILED, &(DiagAt){.node = "c", .frame = "gen.py:9"}, "m");
	ck_assert_str_eq(d.items[2].frame.file, "gen.py");
	ck_assert_uint_eq(d.items[2].frame.line, 9);
	diag_report(&d, YE_LOWERING_FAILED, &(DiagAt){.node = "d", .frame = "no line here"}, "m");
	ck_assert_ptr_null(d.items[3].frame.file);
	diag_report(&d, YE_LOWERING_FAILED, &(DiagAt){.node = "e"}, "m");
	ck_assert_ptr_null(d.items[4].frame.file);
	ck_assert_uint_eq(d.items[4].frame.line, 0);
	diag_free(&d);
}
END_TEST

START_TEST(doc_is_current)
{
	char *want = test_doc_current(diag_write_doc, "docs/diagnostics.md");

	for (int i = 1; i < YE_COUNT; i++)
		ck_assert_msg(strstr(want, diag_info((DiagCode)i)->id), "%s is not documented", diag_info((DiagCode)i)->id);
	free(want);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("diag");
	TCase *tc = tcase_create("diag");

	tcase_add_test(tc, table_is_consistent);
	tcase_add_test(tc, items_keep_codes_and_the_worst_status);
	tcase_add_test(tc, text_forms);
	tcase_add_test(tc, labels_give_file_and_entry);
	tcase_add_test(tc, frames_are_parsed);
	tcase_add_test(tc, doc_is_current);
	suite_add_tcase(s, tc);
	return s;
}
