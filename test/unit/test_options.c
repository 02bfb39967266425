/* test_options.c: the options file (lib/pipeline/options.c).
 *
 * Defaults, every key, and the errors: each names the file and the 1-based
 * line:column of the node at fault.  docs/options.md must be what `make
 * docs` writes now. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipeline.h"
#include "diagtext.h"
#include "optparse.h"
#include "testutil.h"

START_TEST(test_defaults)
{
	Options o;
	char *msg;

	ck_assert_int_eq(parse("", &o, &msg), 0);
	ck_assert_int_eq(o.opset, 18);
	ck_assert_int_eq(o.noutput_name, 0);
	ck_assert_int_eq(o.external_data_threshold, 1 << 20);
	free(msg);
	ck_assert_int_eq(parse("# only a comment\n", &o, &msg), 0);
	free(msg);
}
END_TEST

START_TEST(test_all_keys)
{
	Options o;
	char *msg;

	ck_assert_int_eq(parse("opset: 21\noutput_names: [logits, 'hidden state']\n"
	                       "external_data_threshold: 0\n", &o, &msg), 0);
	ck_assert_int_eq(o.opset, 21);
	ck_assert_int_eq(o.noutput_name, 2);
	ck_assert_str_eq(o.output_names[0], "logits");
	ck_assert_str_eq(o.output_names[1], "hidden state");
	ck_assert_int_eq(o.external_data_threshold, 0);
	free(msg);
	ck_assert_int_eq(parse("output_names:\n  - y\n", &o, &msg), 0);
	ck_assert_int_eq(o.noutput_name, 1);
	free(msg);
	ck_assert_int_eq(parse("opset: 17\n", &o, &msg), 0);
	ck_assert_int_eq(o.opset, 17);
	free(msg);
	ck_assert_int_eq(parse("opset: 23\n", &o, &msg), 0);
	ck_assert_int_eq(o.opset, 23);
	free(msg);
	ck_assert_int_eq(parse("opset: 26\n", &o, &msg), 0);
	ck_assert_int_eq(o.opset, 26);
	free(msg);
	ck_assert_int_eq(parse("input_names: [ids, mask]\ndim_names: {x_dim_0: batch, s27: seq}\n"
	                       "signature_allow: [range, opset]\n", &o, &msg), 0);
	ck_assert_int_eq(o.ninput_name, 2);
	ck_assert_str_eq(o.input_names[1], "mask");
	ck_assert_int_eq(o.input_name_at[1].line, 1);
	ck_assert_int_eq(o.input_name_at[1].col, 20);
	ck_assert_int_eq(o.ndim_name, 2);
	ck_assert_str_eq(o.dim_name_from[1], "s27");
	ck_assert_str_eq(o.dim_name_to[1], "seq");
	ck_assert_int_eq(o.dim_name_at[1].line, 2);
	ck_assert_uint_eq(o.signature_allow, (1u << SIG_RANGE) | (1u << SIG_OPSET));
	free(msg);
}
END_TEST

/* inputs: for TorchScript archives, in order or by name */
START_TEST(test_inputs)
{
	Options o;
	char *msg;

	ck_assert_int_eq(parse("opset: 18\n", &o, &msg), 0);
	ck_assert_int_eq(o.inputs.n, -1);
	free(msg);
	ck_assert_int_eq(parse("inputs:\n  - {dtype: float32, shape: [batch, 3, 224, 224]}\n"
	                       "  - {dtype: int64, shape: []}\n", &o, &msg), 0);
	ck_assert_int_eq(o.inputs.n, 2);
	ck_assert_ptr_null(o.inputs.in[0].name);
	ck_assert_int_eq(o.inputs.in[0].dtype, DT_FLOAT32);
	ck_assert_int_eq(o.inputs.in[0].rank, 4);
	ck_assert_str_eq(o.inputs.in[0].names[0], "batch");
	ck_assert_ptr_null(o.inputs.in[0].names[1]);
	ck_assert_int_eq(o.inputs.in[0].dims[3], 224);
	ck_assert_int_eq(o.inputs.in[0].line, 2);
	ck_assert_int_eq(o.inputs.in[1].dtype, DT_INT64);
	ck_assert_int_eq(o.inputs.in[1].rank, 0);
	free(msg);
	ck_assert_int_eq(parse("inputs: {ids: {dtype: int64, shape: [b, s]}, mask: {dtype: bool, shape: [b, s]}}\n",
	                       &o, &msg), 0);
	ck_assert_int_eq(o.inputs.n, 2);
	ck_assert_str_eq(o.inputs.in[1].name, "mask");
	ck_assert_int_eq(o.inputs.in[1].dtype, DT_BOOL);
	free(msg);
	expect_error("inputs: 3\n", "options.yaml:1:9: 'inputs' needs a list of {dtype, shape} entries");
	expect_error("inputs: [{dtype: float33, shape: [1]}]\n", "options.yaml:1:18: 'inputs': unknown dtype 'float33'");
	expect_error("inputs: [{shape: [1]}]\n", "options.yaml:1:10: 'inputs': the entry needs a dtype");
	expect_error("inputs: [{dtype: float32}]\n", "options.yaml:1:10: 'inputs': the entry needs a shape");
	expect_error("inputs: [{dtype: float32, shape: [2, -1]}]\n", "options.yaml:1:38: 'inputs': size -1 is out of range");
	expect_error("inputs: [{dtype: float32, shape: [2, 3x]}]\n", "options.yaml:1:38: 'inputs': size '3x' is neither");
	expect_error("inputs: [{dtype: float32, shape: [a-b]}]\n", "options.yaml:1:35: 'inputs': dimension name 'a-b' must be");
	expect_error("inputs: [{dtype: float32, shape: [1], layout: x}]\n", "options.yaml:1:39: 'inputs': unknown key 'layout'");
	expect_error("inputs: {x: {dtype: float32, shape: [1]}, x: {dtype: float32, shape: [1]}}\n",
	             "options.yaml:1:43: 'inputs': argument 'x' is given twice");
}
END_TEST

START_TEST(test_errors)
{
	expect_error("opset: 18\n\n  \nopsett: 19\n", "options.yaml:4:1: unknown key 'opsett'");
	expect_error("opset: 16\n", "options.yaml:1:8: 'opset' must be between 17 and 26, got 16");
	expect_error("opset: 27\n", "options.yaml:1:8: 'opset' must be between 17 and 26, got 27");
	expect_error("opset: eighteen\n", "options.yaml:1:8: 'opset' needs an integer, got 'eighteen'");
	expect_error("opset: 18.0\n", "options.yaml:1:8: 'opset' needs an integer, got '18.0'");
	expect_error("opset:\n", "options.yaml:1:7: 'opset' needs an integer");
	expect_error("opset: [18]\n", "options.yaml:1:8: 'opset' needs an integer");
	expect_error("external_data_threshold: -1\n", "options.yaml:1:26: 'external_data_threshold' must be between 0");
	expect_error("output_names: y\n", "options.yaml:1:15: 'output_names' needs a list of strings");
	expect_error("output_names: [a, b, a]\n", "options.yaml:1:22: output name 'a' is given twice");
	expect_error("output_names: [a, '']\n", "options.yaml:1:19: 'output_names' items must be non-empty strings");
	expect_error("output_names: [a, [b]]\n", "options.yaml:1:19: 'output_names' items must be non-empty strings");
	expect_error("input_names: x\n", "options.yaml:1:14: 'input_names' needs a list of strings");
	expect_error("input_names: [ids, ids]\n", "options.yaml:1:20: input name 'ids' is given twice");
	expect_error("dim_names: [a]\n", "options.yaml:1:12: 'dim_names' needs a mapping of dimensions to names");
	expect_error("dim_names: {a: b, a: c}\n", "options.yaml:1:19: 'dim_names': 'a' is named twice");
	expect_error("dim_names: {a: b, c: b}\n", "options.yaml:1:22: 'dim_names': 'a' and 'c' are both named 'b'");
	expect_error("dim_names: {a: ''}\n", "options.yaml:1:16: 'dim_names': 'a' needs a non-empty name");
	expect_error("signature_allow: range\n", "options.yaml:1:18: 'signature_allow' needs a list of kinds of change");
	expect_error("signature_allow: [range, shape]\n", "options.yaml:1:26: 'signature_allow': unknown kind 'shape' (known: added, removed");
	expect_error("opset: 18\nopset: 19\n", "options.yaml:2:1: key 'opset' is given twice");
	expect_error("- opset\n", "options.yaml:1:1: expected a mapping of option keys to values");
	expect_error("opset: [18\n", "options.yaml:2:1:");
	expect_error("[a]: 1\n", "options.yaml:1:1: option keys must be plain strings");
}
END_TEST

START_TEST(test_load_file)
{
	const char *path = "build/test/options-test.yaml";
	Diag d = {0};
	Options o;
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs("opset: 20\nbogus: 1\n", f);
	fclose(f);
	options_default(&o);
	ck_assert_int_eq(options_load(&o, &a, path, &d), DIAG_INPUT);
	ck_assert_msg(strstr(test_diag_text(&d), "build/test/options-test.yaml:2:1: unknown key 'bogus'"), "%s", test_diag_text(&d));
	diag_free(&d);
	memset(&d, 0, sizeof d);
	ck_assert_int_eq(options_load(&o, &a, "/nonexistent/o.yaml", &d), DIAG_INPUT);
	ck_assert_msg(strstr(test_diag_text(&d), "/nonexistent/o.yaml: cannot read: No such file"), "%s", test_diag_text(&d));
	diag_free(&d);
	remove(path);
}
END_TEST

START_TEST(test_docs_up_to_date)
{
	free(test_doc_current(options_write_doc, "docs/options.md"));
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("options");
	TCase *tc = tcase_create("options");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_all_keys);
	tcase_add_test(tc, test_inputs);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_load_file);
	tcase_add_test(tc, test_docs_up_to_date);
	suite_add_tcase(s, tc);
	return s;
}
