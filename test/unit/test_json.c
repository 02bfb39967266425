/* test_json.c: the JSON reader, from single tokens to real torch graph files.
 *
 * Every document is parsed from an exact-size malloc'd copy, so under ASan
 * a read past text+len is caught (the reader must not rely on a NUL). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "read/read.h"
#include "diagtext.h"
#include "testutil.h"

static Arena arena;
static Diag diag;
static char errbuf[512];

static void
setup(void)
{
	arena_init(&arena);
	memset(&diag, 0, sizeof diag);
}

static void
teardown(void)
{
	arena_free(&arena);
	diag_free(&diag);
}

/* Parses text[0..len) from a buffer that ends exactly there. */
static Json *
parse_n(const char *text, size_t len)
{
	char *copy = malloc(len ? len : 1);
	Json *j;

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, text, len);
	j = json_parse(&arena, "t.json", copy, len, &diag);
	/* The tree must not point into the text. */
	memset(copy, 'X', len);
	free(copy);
	return j;
}

static Json *
parse(const char *text)
{
	Json *j = parse_n(text, strlen(text));

	if (!j)
		ck_abort_msg("unexpected error: %s", test_diag_text(&diag));
	return j;
}

/* Returns the single error line for a document that must fail. */
static const char *
parse_err(const char *text)
{
	Json *j;
	size_t n;

	diag_free(&diag);
	j = parse_n(text, strlen(text));
	ck_assert_msg(j == NULL, "accepted: %s", text);
	ck_assert_int_eq(diag.code, DIAG_INPUT);
	n = strlen(test_diag_text(&diag));
	ck_assert_msg(n > 0 && test_diag_text(&diag)[n - 1] == '\n', "one line expected");
	snprintf(errbuf, sizeof errbuf, "%.*s", (int)n - 1, test_diag_text(&diag));
	return errbuf;
}

/* A number as json_float() reads it (an int64 or a double). */
static double
num(const Json *j)
{
	double d = 0;

	ck_assert(json_float(j, &d));
	return d;
}

START_TEST(every_type)
{
	Json *r = parse("{\"n\": null, \"f\": false, \"t\": true, \"i\": 42, \"d\": -1.5, "
	                "\"s\": \"x\", \"a\": [1, \"two\"], \"o\": {}, \"e\": []}");
	static const char *keys[] = {"n", "f", "t", "i", "d", "s", "a", "o", "e"};
	static const JsonType types[] = {JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_NUMBER,
	                                 JSON_STRING, JSON_ARRAY, JSON_OBJECT, JSON_ARRAY};

	ck_assert_int_eq(r->type, JSON_OBJECT);
	ck_assert_uint_eq(r->len, 9);
	for (int i = 0; i < 9; i++) {
		ck_assert_str_eq(json_keys(r)[i], keys[i]);
		ck_assert_int_eq(r->kids[i]->type, types[i]);
	}
	ck_assert_int_eq(r->kids[3]->is_int, 1);
	ck_assert_int_eq(r->kids[3]->i, 42);
	ck_assert(num(r->kids[3]) == 42.0);
	ck_assert_int_eq(r->kids[4]->is_int, 0);
	ck_assert(num(r->kids[4]) == -1.5);
	ck_assert_str_eq(json_str(r->kids[5]), "x");
	ck_assert_uint_eq(r->kids[5]->len, 1);
	ck_assert_uint_eq(r->kids[6]->len, 2);
	ck_assert_str_eq(json_str(r->kids[6]->kids[1]), "two");
	ck_assert_uint_eq(r->kids[7]->len, 0);
	ck_assert_uint_eq(r->kids[8]->len, 0);
	ck_assert_ptr_null(json_str(r->kids[3]));

	/* Scalars as the root, with surrounding whitespace. */
	ck_assert_int_eq(parse(" \t\r\n true \n")->type, JSON_TRUE);
	ck_assert_int_eq(parse("null")->type, JSON_NULL);
	ck_assert_str_eq(parse("\"\"")->s, "");
	ck_assert_int_eq(parse("7")->i, 7);
}
END_TEST

START_TEST(nesting_and_order)
{
	Json *r = parse("[[[]], {\"b\": [{\"c\": {}}], \"a\": 1, \"b\": 2}, [1, [2, [3]]]]");
	Json *o = r->kids[1];

	ck_assert_uint_eq(r->len, 3);
	ck_assert_uint_eq(r->kids[0]->len, 1);
	ck_assert_uint_eq(r->kids[0]->kids[0]->len, 0);
	/* Document order, duplicates kept, json_get takes the first. */
	ck_assert_uint_eq(o->len, 3);
	ck_assert_str_eq(json_keys(o)[0], "b");
	ck_assert_str_eq(json_keys(o)[1], "a");
	ck_assert_str_eq(json_keys(o)[2], "b");
	ck_assert_int_eq(json_get(o, "b")->type, JSON_ARRAY);
	ck_assert_int_eq(json_get(o, "a")->i, 1);
	ck_assert_int_eq(json_get(json_get(o, "b")->kids[0], "c")->type, JSON_OBJECT);
	ck_assert_int_eq(r->kids[2]->kids[1]->kids[1]->kids[0]->i, 3);
}
END_TEST

START_TEST(big_containers)
{
	/* Enough children to grow the scratch stack and to need arrays bigger
	 * than a pool chunk; json_get on the last of 100k keys. */
	enum { N = 100000 };
	size_t cap = (size_t)N * 24 + 64, n = 0;
	char *doc = malloc(cap);
	Json *r;
	int64_t v;

	n += (size_t)snprintf(doc + n, cap - n, "{\"arr\": [");
	for (int i = 0; i < N; i++)
		n += (size_t)snprintf(doc + n, cap - n, "%s%d", i ? "," : "", i);
	n += (size_t)snprintf(doc + n, cap - n, "], \"obj\": {");
	for (int i = 0; i < N; i++)
		n += (size_t)snprintf(doc + n, cap - n, "%s\"k%d\": %d", i ? "," : "", i, -i);
	n += (size_t)snprintf(doc + n, cap - n, "}}");
	r = parse_n(doc, n);
	free(doc);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(json_get(r, "arr")->len, N);
	ck_assert_int_eq(json_get(r, "arr")->kids[N - 1]->i, N - 1);
	ck_assert_uint_eq(json_get(r, "obj")->len, N);
	ck_assert(json_int(json_get(json_get(r, "obj"), "k99999"), &v));
	ck_assert_int_eq(v, -99999);
	ck_assert_str_eq(json_keys(json_get(r, "obj"))[12345], "k12345");
	ck_assert_ptr_null(json_get(json_get(r, "obj"), "k100000"));
}
END_TEST

/* json_parse_text: told about every MiB, in order, of text it has read,
 * and the tree the same as json_parse's. */
typedef struct Progress {
	const char *text, *last;
	int calls, bad;
} Progress;

static void
progress(void *ctx, const char *upto)
{
	Progress *pr = ctx;

	pr->bad |= upto <= pr->last || upto - pr->text > 3 << 20;
	pr->last = upto;
	pr->calls++;
}

START_TEST(parse_progress)
{
	enum { N = 3 << 20 };   /* 3 MiB of strings of 64 bytes */
	char *doc = malloc(N), *small = malloc(2);
	Progress pr = {doc, doc, 0, 0}, none = {small, small, 0, 0};
	size_t n = 0;
	Json *r;

	doc[n++] = '[';
	for (int i = 0; n + 70 < N; i++)
		n += (size_t)snprintf(doc + n, N - n, "%s\"%060d\"", i ? "," : "", i);
	doc[n++] = ']';
	r = json_parse_text(&arena, "big.json", doc, n, progress, &pr, &diag);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(pr.bad, 0);
	ck_assert_int_ge(pr.calls, 2);   /* after the first and the second MiB at least */
	ck_assert(pr.last <= doc + n);
	ck_assert_uint_eq(r->len, json_parse(&arena, "big.json", doc, n, &diag)->len);
	ck_assert_str_eq(json_str(r->kids[r->len - 1]), json_str(json_parse(&arena, "big.json", doc, n,
	                                                                    &diag)->kids[r->len - 1]));
	/* under a MiB: never called */
	memcpy(small, "[]", 2);
	ck_assert_ptr_nonnull(json_parse_text(&arena, "s.json", small, 2, progress, &none, &diag));
	ck_assert_int_eq(none.calls, 0);
	free(doc);
	free(small);
}
END_TEST

START_TEST(escapes)
{
	Json *j = parse("\"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t A\\u0041 e\\u00e9 E\\u20AC "
	                "g\\ud83d\\ude00 z\\u0000!\"");
	const char want[] = "q\" b\\ s/ \b\f\n\r\t AA e\xc3\xa9 E\xe2\x82\xac g\xf0\x9f\x98\x80 z\0!";

	ck_assert_uint_eq(j->len, sizeof want - 1);
	ck_assert_mem_eq(j->s, want, sizeof want);  /* with the terminator */

	/* Keys are decoded the same way. */
	j = parse("{\"a\\tb\\u00e9\": 1, \"\": 2}");
	ck_assert_str_eq(json_keys(j)[0], "a\tb\xc3\xa9");
	ck_assert_str_eq(json_keys(j)[1], "");
	ck_assert_int_eq(json_get(j, "")->i, 2);

	/* Raw UTF-8 passes through; the highest code point via surrogates. */
	ck_assert_str_eq(parse("\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"")->s,
	                 "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	ck_assert_str_eq(parse("\"\\uDBFF\\uDFFF\"")->s, "\xf4\x8f\xbf\xbf");
	ck_assert_str_eq(parse("\"\x7f\"")->s, "\x7f");

	/* A long string with escapes near both ends (the SWAR scan and its tail). */
	char doc[300];
	memset(doc, 'a', sizeof doc);
	doc[0] = '"';
	memcpy(doc + 3, "\\n", 2);
	memcpy(doc + 290, "\\\"", 2);
	doc[299] = '"';
	j = parse_n(doc, sizeof doc);
	ck_assert_ptr_nonnull(j);
	ck_assert_uint_eq(j->len, 296);
	ck_assert_int_eq(j->s[2], '\n');
	ck_assert_int_eq(j->s[288], '"');
	ck_assert_int_eq(j->s[296], 0);
}
END_TEST

START_TEST(shared_short_strings)
{
	/* Short strings may be shared between nodes; equal text, equal value. */
	Json *r = parse("[\"name\", \"name\", \"nam\", \"namf\", \"abcdefghijklmnopqrstuvwxyz\", "
	                "\"abcdefghijklmnopqrstuvwxyZ\", \"abcdefghijklmnopqrstuvwxyz\"]");

	ck_assert_str_eq(r->kids[0]->s, "name");
	ck_assert_str_eq(r->kids[1]->s, "name");
	ck_assert_str_eq(r->kids[2]->s, "nam");
	ck_assert_str_eq(r->kids[3]->s, "namf");
	ck_assert_str_eq(r->kids[4]->s, "abcdefghijklmnopqrstuvwxyz");
	ck_assert_str_eq(r->kids[5]->s, "abcdefghijklmnopqrstuvwxyZ");
	ck_assert_str_eq(r->kids[6]->s, "abcdefghijklmnopqrstuvwxyz");
	ck_assert_uint_eq(r->kids[2]->len, 3);

	/* Short strings read near the end of the text take another load path;
	 * it must pack bytes the same way. */
	r = parse("{\"ab\": 1, \"ba\": 2}");
	ck_assert_str_eq(json_keys(r)[0], "ab");
	ck_assert_str_eq(json_keys(r)[1], "ba");
	r = parse("[\"ab\",\"ab\",\"ba\",\"b\"]");
	ck_assert_str_eq(r->kids[1]->s, "ab");
	ck_assert_str_eq(r->kids[2]->s, "ba");
	ck_assert_str_eq(r->kids[3]->s, "b");
}
END_TEST

START_TEST(non_finite)
{
	Json *r = parse("[NaN, Infinity, -Infinity, \"NaN\", \"Infinity\", \"-Infinity\", \"nan\", "
	                "\"inf\", \"NaN \", true]");
	double f;
	int64_t i;

	ck_assert(json_float(r->kids[0], &f) && isnan(f));
	ck_assert(json_float(r->kids[1], &f) && isinf(f) && f > 0);
	ck_assert(json_float(r->kids[2], &f) && isinf(f) && f < 0);
	ck_assert_int_eq(r->kids[0]->type, JSON_NUMBER);
	ck_assert_int_eq(r->kids[0]->is_int, 0);
	ck_assert(json_float(r->kids[3], &f) && isnan(f));
	ck_assert(json_float(r->kids[4], &f) && isinf(f) && f > 0);
	ck_assert(json_float(r->kids[5], &f) && isinf(f) && f < 0);
	ck_assert(!json_float(r->kids[6], &f));
	ck_assert(!json_float(r->kids[7], &f));
	ck_assert(!json_float(r->kids[8], &f));
	ck_assert(!json_float(r->kids[9], &f));
	ck_assert(!json_float(NULL, &f));
	/* Not integers. */
	ck_assert(!json_int(r->kids[0], &i));
	ck_assert(!json_int(r->kids[1], &i));
	ck_assert(!json_int(r->kids[3], &i));
	/* torch 2.6's bare token inside a real-looking argument. */
	r = parse("{\"as_float\": -Infinity}");
	ck_assert(json_float(json_union_value(r), &f) && isinf(f) && f < 0);
}
END_TEST

START_TEST(integers)
{
	Json *r = parse("[9223372036854775807, -9223372036854775808, 9223372036854775808, "
	                "-9223372036854775809, 12345678901234567890123, 0, -0, -0.0, 1e2, "
	                "1.5, 1E300, 9007199254740993, 4.0e0, -12]");
	int64_t v;

	ck_assert(r->kids[0]->is_int);
	ck_assert_int_eq(r->kids[0]->i, INT64_MAX);
	ck_assert(r->kids[1]->is_int);
	ck_assert_int_eq(r->kids[1]->i, INT64_MIN);
	ck_assert(num(r->kids[1]) == -9223372036854775808.0);
	ck_assert(!r->kids[2]->is_int);
	ck_assert(num(r->kids[2]) == 9223372036854775808.0);
	ck_assert(!json_int(r->kids[2], &v));   /* 2^63 is out of range */
	ck_assert(!r->kids[3]->is_int);
	ck_assert(json_int(r->kids[3], &v));     /* rounds to -2^63, which fits */
	ck_assert_int_eq(v, INT64_MIN);
	ck_assert(!r->kids[4]->is_int);
	ck_assert(num(r->kids[4]) == 12345678901234567890123.0);
	ck_assert(r->kids[5]->is_int && r->kids[5]->i == 0 && !signbit(num(r->kids[5])));
	/* Negative zero: a double, so the sign survives; json_int still reads 0. */
	ck_assert(!r->kids[6]->is_int && num(r->kids[6]) == 0 && signbit(num(r->kids[6])));
	ck_assert(json_int(r->kids[6], &v) && v == 0);
	ck_assert(!r->kids[7]->is_int && num(r->kids[7]) == 0 && signbit(num(r->kids[7])));
	/* Exponent or fraction: not is_int, but json_int takes integral doubles. */
	ck_assert(!r->kids[8]->is_int);
	ck_assert(json_int(r->kids[8], &v) && v == 100);
	ck_assert(!json_int(r->kids[9], &v));
	ck_assert(!json_int(r->kids[10], &v));
	ck_assert(r->kids[11]->is_int && r->kids[11]->i == 9007199254740993);
	ck_assert(num(r->kids[11]) == 9007199254740992.0);
	ck_assert(json_int(r->kids[12], &v) && v == 4);
	ck_assert(json_int(r->kids[13], &v) && v == -12);
	ck_assert(!json_int(NULL, &v));
	ck_assert(!json_int(parse("\"1\""), &v));
}
END_TEST

START_TEST(floats_match_strtod)
{
	static const char *nums[] = {
		"0.1", "1e-05", "0.125", "-2.5e-3", "3.141592653589793", "0.30000000000000004",
		"2.2250738585072014e-308", "4.9e-324", "2e-400", "1.7976931348623157e308", "1e400",
		"-1e400", "1e22", "1e23", "9007199254740993.0", "123456789012345678901234567890e-10",
		"0.000000000000000000000000000001", "1.00000000000000011102230246251565404236316680908203125",
		"8.98846567431158e307", "5e-324", "1e-7", "123.456e+7", "0e10", "-0e-5",
		"179769313486231570000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000.5",
	};

	for (size_t k = 0; k < sizeof nums / sizeof *nums; k++) {
		Json *j = parse(nums[k]);
		double want = strtod(nums[k], NULL);
		ck_assert_int_eq(j->type, JSON_NUMBER);
		ck_assert_msg(memcmp(&j->f, &want, sizeof want) == 0, "%s: got %.17g want %.17g",
		              nums[k], j->f, want);
		ck_assert_int_eq(j->is_int, 0);
	}
}
END_TEST

START_TEST(error_positions)
{
	static const struct { const char *doc, *msg; } cases[] = {
		{"", "t.json:1:1: expected a value, found end of input"},
		{"  \n  ", "t.json:2:3: expected a value, found end of input"},
		{"{\"a\": 1,}", "t.json:1:9: expected a string key"},
		{"[1, 2", "t.json:1:6: expected ',' or ']' after array element"},
		{"[1 2]", "t.json:1:4: expected ',' or ']' after array element"},
		{"{\"a\" 1}", "t.json:1:6: expected ':' after object key"},
		{"{\n  \"a\": 1\n  \"b\": 2\n}", "t.json:3:3: expected ',' or '}' after object member"},
		{"{\r\n\"a\": [1,\r\n  2,\r\n ]}", "t.json:4:2: expected a value, found ']'"},
		{"{1: 2}", "t.json:1:2: expected a string key"},
		{"{\"a\":}", "t.json:1:6: expected a value, found '}'"},
		{"[01]", "t.json:1:3: invalid number: leading zero"},
		{"[-01]", "t.json:1:4: invalid number: leading zero"},
		{"[1.]", "t.json:1:4: invalid number: digit expected after '.'"},
		{"[.5]", "t.json:1:2: expected a value, found '.'"},
		{"[1e+]", "t.json:1:5: invalid number: digit expected in exponent"},
		{"[-]", "t.json:1:3: invalid number: digit expected"},
		{"[+1]", "t.json:1:2: expected a value, found '+'"},
		{"[0x10]", "t.json:1:3: expected ',' or ']' after array element"},
		{"[\"a\\qb\"]", "t.json:1:4: invalid escape '\\' followed by 'q'"},
		{"[\"a\\", "t.json:1:2: unterminated string"},
		{"[\"\\ud800\"]", "t.json:1:3: unpaired high surrogate \\uD800"},
		{"[\"\\ud800\\u0041\"]", "t.json:1:3: unpaired high surrogate \\uD800"},
		{"[\"x\\udc00\"]", "t.json:1:4: unpaired low surrogate \\uDC00"},
		{"[\"\\u12G4\"]", "t.json:1:3: invalid \\u escape: four hex digits expected"},
		{"[\"\\u12\"]", "t.json:1:3: invalid \\u escape: four hex digits expected"},
		{"[\"a\tb\"]", "t.json:1:4: control character 0x09 in string (escape it)"},
		{"[\"a\nb\"]", "t.json:1:4: control character 0x0a in string (escape it)"},
		{"{\"k\": \"abc", "t.json:1:7: unterminated string"},
		{"[\"\xff\"]", "t.json:1:3: invalid UTF-8 in string"},
		{"[\"\xc0\x80\"]", "t.json:1:3: invalid UTF-8 in string"},      /* overlong */
		{"[\"\xed\xa0\x80\"]", "t.json:1:3: invalid UTF-8 in string"},  /* a surrogate */
		{"[\"\xf4\x90\x80\x80\"]", "t.json:1:3: invalid UTF-8 in string"},  /* > U+10FFFF */
		{"[\"\xe2\x82\"]", "t.json:1:3: invalid UTF-8 in string"},      /* truncated */
		{"[tru]", "t.json:1:2: invalid literal, expected true"},
		{"[nul", "t.json:1:2: invalid literal, expected null"},
		{"[Inf]", "t.json:1:2: invalid literal, expected Infinity"},
		{"[-Inf]", "t.json:1:2: invalid literal, expected -Infinity"},
		{"[nan]", "t.json:1:2: invalid literal, expected null"},
		{"[True]", "t.json:1:2: expected a value, found 'T'"},
		{"{} x", "t.json:1:4: unexpected data after the root value"},
		{"{}{}", "t.json:1:3: unexpected data after the root value"},
		{"[1]\n\n  ]", "t.json:3:3: unexpected data after the root value"},
		{"\x01", "t.json:1:1: expected a value, found byte 0x01"},
		{"[1,\n\n      @]", "t.json:3:7: expected a value, found '@'"},
	};
	static const char nul_doc[] = "[1, \0]";

	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
		ck_assert_str_eq(parse_err(cases[k].doc), cases[k].msg);
	/* A NUL byte in the text is just a bad byte. */
	diag_free(&diag);
	ck_assert_ptr_null(parse_n(nul_doc, sizeof nul_doc - 1));
	ck_assert_str_eq(test_diag_text(&diag), "t.json:1:5: expected a value, found byte 0x00\n");
	/* A NULL label still gives a message. */
	diag_free(&diag);
	ck_assert_ptr_null(json_parse(&arena, NULL, "[", 1, &diag));
	ck_assert_str_eq(test_diag_text(&diag), "<json>:1:2: expected a value, found end of input\n");
}
END_TEST

START_TEST(every_prefix_fails)
{
	static const char doc[] =
		"{\"graph\": {\"nodes\": [{\"target\": \"torch.ops.aten.add.Tensor\", "
		"\"inputs\": [{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}, \"kind\": 1}, "
		"{\"name\": \"alpha\", \"arg\": {\"as_float\": -1.5e-3}}], \"s\": \"a\\n\\u00e9\\ud83d\\ude00\", "
		"\"b\": [true, false, null, NaN, -Infinity, 123456789012345678901]}]}}";

	ck_assert_ptr_nonnull(parse(doc));
	for (size_t n = 0; n < sizeof doc - 1; n++) {
		diag_free(&diag);
		ck_assert_msg(parse_n(doc, n) == NULL, "prefix of %zu bytes accepted", n);
		ck_assert_int_eq(diag.code, DIAG_INPUT);
		ck_assert(strncmp(test_diag_text(&diag), "t.json:1:", 9) == 0);
	}
}
END_TEST

START_TEST(depth_limit)
{
	enum { MAX = 10000 };
	char *doc = malloc(2 * (MAX + 1) + 8);
	size_t n = 0;

	for (int i = 0; i < MAX; i++)
		doc[n++] = '[';
	for (int i = 0; i < MAX; i++)
		doc[n++] = ']';
	ck_assert_ptr_nonnull(parse_n(doc, n));

	/* One more level fails at the bracket that goes too deep. */
	n = 0;
	for (int i = 0; i < MAX + 1; i++)
		doc[n++] = '[';
	for (int i = 0; i < MAX + 1; i++)
		doc[n++] = ']';
	ck_assert_ptr_null(parse_n(doc, n));
	ck_assert_str_eq(test_diag_text(&diag), "t.json:1:10001: nesting deeper than 10000 levels\n");

	/* Objects count too, and an unclosed deep document errors cleanly. */
	diag_free(&diag);
	n = 0;
	for (int i = 0; i < MAX + 1; i++) {
		memcpy(doc + n, "{\"\":", 4);
		n += 4;
		if (n + 4 > 2 * (MAX + 1))
			break;
	}
	ck_assert_ptr_null(parse_n(doc, n));
	ck_assert_int_eq(diag.code, DIAG_INPUT);
	free(doc);
}
END_TEST

START_TEST(unions)
{
	Json *r = parse("[{\"as_tensor\": {\"name\": \"x\"}}, "
	                "{\"$type\": \"as_int\", \"$value\": 3}, "
	                "{\"as_none\": null, \"as_tensor\": null, \"as_int\": 5, \"as_float\": null}, "
	                "{\"as_none\": [], \"as_int\": null}, "
	                "{\"a\": 1, \"b\": 2}, {}, {\"a\": null, \"b\": null}, 7, "
	                "{\"as_none\": true}, {\"$type\": 1, \"$value\": 2}]");
	int64_t v;

	ck_assert_str_eq(json_union_key(r->kids[0]), "as_tensor");
	ck_assert_str_eq(json_str(json_get(json_union_value(r->kids[0]), "name")), "x");
	ck_assert_str_eq(json_union_key(r->kids[1]), "as_int");
	ck_assert(json_int(json_union_value(r->kids[1]), &v) && v == 3);
	ck_assert_str_eq(json_union_key(r->kids[2]), "as_int");
	ck_assert(json_int(json_union_value(r->kids[2]), &v) && v == 5);
	ck_assert_str_eq(json_union_key(r->kids[3]), "as_none");
	ck_assert_int_eq(json_union_value(r->kids[3])->type, JSON_ARRAY);
	ck_assert_ptr_null(json_union_key(r->kids[4]));
	ck_assert_ptr_null(json_union_value(r->kids[4]));
	ck_assert_ptr_null(json_union_key(r->kids[5]));
	ck_assert_ptr_null(json_union_key(r->kids[6]));
	ck_assert_ptr_null(json_union_key(r->kids[7]));
	ck_assert_ptr_null(json_union_key(NULL));
	ck_assert_str_eq(json_union_key(r->kids[8]), "as_none");
	ck_assert_int_eq(json_union_value(r->kids[8])->type, JSON_TRUE);
	ck_assert_ptr_null(json_union_key(r->kids[9]));  /* $type must be a string */
}
END_TEST

START_TEST(missing_and_null)
{
	Json *r = parse("{\"a\": null, \"b\": 0, \"c\": false}");

	ck_assert_ptr_null(json_get(r, "a"));
	ck_assert_ptr_null(json_get(r, "z"));
	ck_assert_ptr_null(json_get(NULL, "a"));
	ck_assert_ptr_null(json_get(r->kids[1], "a"));
	/* Null is still in the tree for whoever iterates. */
	ck_assert_uint_eq(r->len, 3);
	ck_assert_int_eq(r->kids[0]->type, JSON_NULL);
	ck_assert_ptr_nonnull(json_get(r, "b"));
	ck_assert_int_eq(json_get(r, "c")->type, JSON_FALSE);
	ck_assert_ptr_null(json_str(NULL));
}
END_TEST

START_TEST(positions_and_length)
{
	/* Text need not end in NUL: only len bytes are read. */
	Json *r = parse_n("[1, 2]garbage", 6);
	Json *o;

	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->len, 2);
	r = parse_n("1234", 2);
	ck_assert_int_eq(r->i, 12);

	o = parse("{\n  \"a\": [1,\n\t\"x\"],\r\n  \"b\": {}\n}");
	ck_assert_uint_eq(o->line, 1);
	ck_assert_uint_eq(o->col, 1);
	ck_assert_uint_eq(o->kids[0]->line, 2);
	ck_assert_uint_eq(o->kids[0]->col, 8);
	ck_assert_uint_eq(o->kids[0]->kids[0]->col, 9);
	ck_assert_uint_eq(o->kids[0]->kids[1]->line, 3);
	ck_assert_uint_eq(o->kids[0]->kids[1]->col, 2);
	ck_assert_uint_eq(o->kids[1]->line, 4);
	ck_assert_uint_eq(o->kids[1]->col, 8);
}
END_TEST

/* Reads a test fixture into a malloc'd buffer of exactly its size. */
static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static Json *
parse_file(const char *path)
{
	size_t len;
	char *text = slurp(path, &len);
	Json *r = json_parse(&arena, path, text, len, &diag);

	free(text);
	ck_assert_msg(r != NULL, "%s", test_diag_text(&diag));
	return r;
}

static void
check_rich_train(Json *ep, int64_t minor)
{
	Json *gm = json_get(ep, "graph_module"), *g = json_get(gm, "graph");
	Json *nodes = json_get(g, "nodes"), *n0, *in0, *spec;
	int64_t v;
	double f;

	ck_assert(json_int(json_get(json_get(ep, "schema_version"), "major"), &v) && v == 8);
	ck_assert(json_int(json_get(json_get(ep, "schema_version"), "minor"), &v) && v == minor);
	ck_assert_uint_eq(nodes->len, 11);
	ck_assert_uint_eq(json_get(g, "tensor_values")->len, 21);
	ck_assert_uint_eq(json_get(g, "inputs")->len, 10);
	n0 = nodes->kids[0];
	ck_assert_str_eq(json_str(json_get(n0, "target")), "torch.ops.aten.conv2d.default");
	in0 = json_get(n0, "inputs")->kids[0];
	ck_assert_str_eq(json_str(json_get(in0, "name")), "input");
	ck_assert_str_eq(json_union_key(json_get(in0, "arg")), "as_tensor");
	ck_assert_str_eq(json_str(json_get(json_union_value(json_get(in0, "arg")), "name")), "x");
	ck_assert_ptr_nonnull(strstr(json_str(json_get(json_get(n0, "metadata"), "stack_trace")),
	                             "line 22, in forward\n    y = self.bn(self.conv(x))\n"));
	/* batch_norm's eps, a float argument. */
	ck_assert_str_eq(json_str(json_get(nodes->kids[2], "target")),
	                 "torch.ops.aten.batch_norm.default");
	Json *bn_in = json_get(nodes->kids[2], "inputs");
	Json *eps = json_get(bn_in->kids[bn_in->len - 2], "arg");
	ck_assert(json_float(json_get(eps, "as_float"), &f) && f == 1e-05);
	spec = json_get(json_get(gm, "signature"), "input_specs")->kids[0];
	ck_assert_str_eq(json_union_key(spec), "parameter");
	ck_assert_str_eq(json_str(json_get(json_union_value(spec), "parameter_name")), "conv.weight");
	/* tensor_values: p_conv_weight is 4x3x3x3, sizes as SymInt unions. */
	Json *sizes = json_get(json_get(json_get(g, "tensor_values"), "p_conv_weight"), "sizes");
	ck_assert_uint_eq(sizes->len, 4);
	ck_assert(json_int(json_get(sizes->kids[0], "as_int"), &v) && v == 4);
}

START_TEST(torch_2_6_graph)
{
	Json *ep = parse_file(TEST_PATH("data/json/rich_train_2.6.json"));

	check_rich_train(ep, 2);
	ck_assert_str_eq(json_str(json_get(ep, "torch_version")), "2.6.0+debian");
	Json *g = json_get(json_get(ep, "graph_module"), "graph");
	Json *dev = json_get(json_get(json_get(g, "tensor_values"), "x"), "device");
	/* 2.6 omits NamedArgument.kind and Device.index. */
	ck_assert_ptr_null(json_get(json_get(json_get(g, "nodes")->kids[0], "inputs")->kids[0], "kind"));
	ck_assert_str_eq(json_str(json_get(dev, "type")), "cpu");
	ck_assert_ptr_null(json_get(dev, "index"));
}
END_TEST

START_TEST(torch_2_14_graph)
{
	Json *ep = parse_file(TEST_PATH("data/json/rich_train_2.14.json"));
	Json *n0 = json_get(json_get(json_get(ep, "graph_module"), "graph"), "nodes")->kids[0];
	int64_t v;

	check_rich_train(ep, 20);
	ck_assert_str_eq(json_str(json_get(ep, "torch_version")), "2.14.1+debian");
	ck_assert_str_eq(json_str(json_get(n0, "name")), "conv2d");
	ck_assert(json_int(json_get(json_get(n0, "inputs")->kids[0], "kind"), &v) && v == 1);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("json");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, every_type);
	tcase_add_test(tc, nesting_and_order);
	tcase_add_test(tc, big_containers);
	tcase_add_test(tc, escapes);
	tcase_add_test(tc, shared_short_strings);
	tcase_add_test(tc, non_finite);
	tcase_add_test(tc, integers);
	tcase_add_test(tc, floats_match_strtod);
	tcase_add_test(tc, error_positions);
	tcase_add_test(tc, every_prefix_fails);
	tcase_add_test(tc, depth_limit);
	tcase_add_test(tc, unions);
	tcase_add_test(tc, missing_and_null);
	tcase_add_test(tc, positions_and_length);
	tcase_add_test(tc, torch_2_6_graph);
	tcase_add_test(tc, torch_2_14_graph);
	tcase_add_test(tc, parse_progress);
	suite_add_tcase(s, tc);
	return s;
}
