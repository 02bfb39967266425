/* testutil.h: the main() every Check test file shares.
 * A test file defines `static Suite *make_suite(void)` and includes this last. */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static Suite *make_suite(void);

int
main(void)
{
	SRunner *sr = srunner_create(make_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* A whole file in a malloc'd, NUL-terminated buffer (*len bytes before the
 * NUL), or NULL when it cannot be opened. */
static inline char *
test_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	*len = 0;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	*len = fread(buf, 1, (size_t)n, f);
	buf[*len] = 0;
	fclose(f);
	return buf;
}

/* The generated doc at path is what write() gives now; returns that text
 * (malloc'd) for more checks.  Fails with "run make docs" otherwise. */
static inline char *
test_doc_current(void (*write)(FILE *), const char *path)
{
	char *want = NULL, *have;
	size_t wlen = 0, hlen = 0;
	FILE *f = open_memstream(&want, &wlen);

	write(f);
	fclose(f);
	have = test_slurp(path, &hlen);
	ck_assert_msg(have != NULL, "%s is missing (run make docs)", path);
	ck_assert_msg(hlen == wlen && memcmp(have, want, wlen) == 0, "%s is stale: run make docs", path);
	free(have);
	return want;
}

/* Path of a file under test/, from the repo root (tests run from there). */
#define TEST_PATH(rel) ("test/" rel)

#ifdef ONNX_H
/* The ONNX file at path rendered as text (onnx_print, external data read
 * from dir); malloc'd.  For suites that include onnx/onnx.h. */
static inline char *
test_render_onnx(const char *path, const char *dir)
{
	size_t len, tlen = 0;
	char *bytes = test_slurp(path, &len), *text = NULL;
	Onnx__ModelProto *m;
	FILE *f;

	ck_assert_msg(bytes != NULL, "cannot read %s", path);
	m = onnx__model_proto__unpack(NULL, len, (const uint8_t *)bytes);
	ck_assert_msg(m != NULL, "%s does not unpack", path);
	f = open_memstream(&text, &tlen);
	onnx_print(f, m, dir);
	fclose(f);
	onnx__model_proto__free_unpacked(m, NULL);
	free(bytes);
	return text;
}
#endif

#endif
