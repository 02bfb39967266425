/* test_zip.c: the zip reader on real torch files and on damaged copies.
 *
 * The real files are torch 2.6 (flat Python zipfile) and torch 2.14 (PT2
 * archive with ZIP64 records) exports of Linear+ReLU, a deflated re-zip of
 * the 2.14 file and a Python zip with ZIP64 local extras, all under
 * test/data/zip/.  Damage is done in memory on copies of those bytes, and
 * the shapes Python will not write (central-directory ZIP64 fields, more
 * than 65535 entries) come from the small writer in zipwrite.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "read/read.h"
#include "diagtext.h"
#include "zipwrite.h"
#include "testutil.h"

#define T26 TEST_PATH("data/zip/torch26_linrelu_static.pt2")
#define T214 TEST_PATH("data/zip/torch214_linrelu_static.pt2")
#define TDEFL TEST_PATH("data/zip/torch214_deflated.zip")
#define TZ64 TEST_PATH("data/zip/force_zip64.zip")
#define W0 "linrelu_static/data/weights/weight_0"

static uint8_t *
read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Offset of the central-directory header of name (the file has one). */
static size_t
central_of(const uint8_t *buf, size_t len, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i + 46 + n <= len; i++)
		if (memcmp(buf + i, "PK\1\2", 4) == 0 && buf[i + 28] == n && buf[i + 29] == 0 &&
		    memcmp(buf + i + 46, name, n) == 0)
			return i;
	ck_abort_msg("no central header for %s", name);
	return 0;
}

/* Offset of the local header of name (small files: no ZIP64 offset). */
static size_t
local_of(const uint8_t *buf, size_t len, const char *name)
{
	const uint8_t *c = buf + central_of(buf, len, name) + 42;
	return (size_t)c[0] | (size_t)c[1] << 8 | (size_t)c[2] << 16 | (size_t)c[3] << 24;
}

/* Asserts the call failed with DIAG_INPUT and a message holding a and b. */
static void
expect_error(int rc, Diag *d, const char *a, const char *b)
{
	ck_assert_int_eq(rc, DIAG_INPUT);
	ck_assert_ptr_nonnull(test_diag_text(d));
	ck_assert_msg(strstr(test_diag_text(d), a), "'%s' not in: %s", a, test_diag_text(d));
	if (b)
		ck_assert_msg(strstr(test_diag_text(d), b), "'%s' not in: %s", b, test_diag_text(d));
}

/* Builds a zip of the given names (each entry's data is its name). */
static uint8_t *
zb_names(const char *const *names, int n, size_t *len)
{
	Zb b = {0};
	for (int i = 0; i < n; i++)
		zb_add(&b, names[i], names[i], strlen(names[i]));
	return zb_finish(&b, len);
}

static void
check_data(Zip *z, const char *rel, const void *want, size_t n)
{
	Diag d = {0};
	ZipEntry *e = zip_find(z, rel);

	ck_assert_msg(e != NULL, "no entry %s", rel);
	ck_assert_int_eq(zip_data(z, e, &d), 0);
	ck_assert_uint_eq(e->size, n);
	ck_assert(memcmp(e->data, want, n) == 0);
	diag_free(&d);
}

START_TEST(flat_zip_torch26)
{
	Arena a;
	Diag d = {0};
	Zip z;

	arena_init(&a);
	ck_assert_int_eq(zip_open(&z, T26, &a, &d), 0);
	ck_assert_str_eq(z.label, T26);
	ck_assert(z.mapped);
	ck_assert_int_eq(z.n, 5);
	ck_assert_str_eq(z.root, "");
	ck_assert_str_eq(z.ent[0].name, "serialized_exported_program.json");
	ck_assert_ptr_eq(z.ent[0].rel, z.ent[0].name);
	ck_assert_int_eq(z.ent[0].size, 3393);
	check_data(&z, "version", "8.2", 3);
	ZipEntry *e = zip_find(&z, "serialized_exported_program.json");
	ck_assert_ptr_eq(e, &z.ent[0]);
	ck_assert_int_eq(zip_data(&z, e, &d), 0);
	ck_assert_ptr_eq(e->data, z.base + 30 + strlen(e->name));
	ck_assert_int_eq(e->data[0], '{');
	ck_assert_int_eq(e->data[e->size - 1], '}');
	ck_assert_ptr_null(zip_find(&z, "extra_files/x"));
	ck_assert_ptr_null(test_diag_text(&d));
	zip_close(&z);
	ck_assert(!z.mapped);
	arena_free(&a);
}
END_TEST

START_TEST(pt2_archive_torch214)
{
	Arena a;
	Diag d = {0};
	Zip z;

	arena_init(&a);
	ck_assert_int_eq(zip_open(&z, T214, &a, &d), 0);
	ck_assert_int_eq(z.n, 11);
	ck_assert_str_eq(z.root, "linrelu_static/");
	for (int i = 0; i < z.n; i++) {
		ck_assert_ptr_eq(z.ent[i].rel, z.ent[i].name + 15);
		ck_assert_ptr_eq(zip_find(&z, z.ent[i].rel), &z.ent[i]);
		ck_assert_int_eq(z.ent[i].method, 0);
	}
	ZipEntry *e = zip_find(&z, "data/weights/weight_0");
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->name, W0);
	ck_assert_int_eq(e->size, 48);
	ck_assert_int_eq(e->csize, 48);
	ck_assert_ptr_null(e->data);
	ck_assert_int_eq(zip_data(&z, e, &d), 0);
	/* torch aligns every record to 64 bytes in the file */
	ck_assert_int_eq((e->data - z.base) % 64, 0);
	const uint8_t *first = e->data;
	ck_assert_int_eq(zip_data(&z, e, &d), 0);
	ck_assert_ptr_eq(e->data, first);
	check_data(&z, "archive_format", "pt2", 3);
	check_data(&z, ".data/version", "6\n", 2);
	check_data(&z, "byteorder", "little", 6);
	ck_assert_ptr_null(zip_find(&z, "linrelu_static/archive_format"));
	ck_assert_ptr_null(zip_find(&z, ""));
	ck_assert_ptr_null(zip_find(&z, "archive_formats"));
	ck_assert_ptr_null(test_diag_text(&d));
	zip_close(&z);
	arena_free(&a);
}
END_TEST

/* zip_drop: the bytes of a dropped entry read back the same, from a file
 * mapping (the kernel reads the pages again) and from the heap (where it
 * must do nothing: there, dropping pages would zero them). */
static int
pattern_ok(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (uint8_t)(i * 7 + 3))
			return 0;
	return 1;
}

START_TEST(drop_keeps_bytes)
{
	enum { N = 256 << 10 };
	uint8_t *data = malloc(N), *buf;
	char path[] = "/tmp/test_zip_drop_XXXXXX";
	size_t len;
	Zb b = {0};
	Arena a;
	Diag d = {0};
	Zip z;
	ZipEntry *e;
	int fd;

	for (size_t i = 0; i < N; i++)
		data[i] = (uint8_t)(i * 7 + 3);
	zb_add(&b, "m/small", "1", 1);
	zb_add(&b, "m/big", data, N);
	buf = zb_finish(&b, &len);
	arena_init(&a);
	/* in the heap: a no-op */
	ck_assert_int_eq(zip_open_mem(&z, "mem.zip", buf, len, &a, &d), 0);
	ck_assert_ptr_nonnull(e = zip_find(&z, "big"));
	ck_assert_int_eq(zip_data(&z, e, &d), 0);
	zip_drop(&z, e);
	zip_drop_bytes(&z, z.base, z.base + z.len);
	ck_assert(pattern_ok(e->data, N));
	zip_close(&z);
	/* a file mapping: the pages go and come back */
	ck_assert_int_ge(fd = mkstemp(path), 0);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
	ck_assert_int_eq(zip_open(&z, path, &a, &d), 0);
	ck_assert_ptr_nonnull(e = zip_find(&z, "big"));
	ck_assert_int_eq(zip_data(&z, e, &d), 0);
	ck_assert(pattern_ok(e->data, N));
	zip_drop(&z, e);
	ck_assert(pattern_ok(e->data, N));
	zip_drop_bytes(&z, e->data + 100, e->data + N - 100);
	zip_drop_bytes(&z, e->data, e->data + 2 * (size_t)len);   /* past the end: ignored */
	ck_assert(pattern_ok(e->data, N));
	check_data(&z, "small", "1", 1);
	ck_assert_ptr_null(test_diag_text(&d));
	zip_close(&z);
	unlink(path);
	arena_free(&a);
	free(buf);
	free(data);
}
END_TEST

START_TEST(deflated_matches_stored)
{
	Arena a;
	Diag d = {0};
	Zip zs, zd;

	arena_init(&a);
	ck_assert_int_eq(zip_open(&zs, T214, &a, &d), 0);
	ck_assert_int_eq(zip_open(&zd, TDEFL, &a, &d), 0);
	ck_assert_str_eq(zd.root, "linrelu_static/");
	ck_assert_int_eq(zd.n, zs.n + 1);
	for (int i = 0; i < zs.n; i++) {
		ZipEntry *s = &zs.ent[i], *e = zip_find(&zd, s->rel);
		ck_assert_ptr_nonnull(e);
		ck_assert_int_eq(e->method, 8);
		ck_assert_int_eq(zip_data(&zs, s, &d), 0);
		ck_assert_int_eq(zip_data(&zd, e, &d), 0);
		ck_assert_uint_eq(e->size, s->size);
		ck_assert(memcmp(e->data, s->data, s->size) == 0);
		/* inflated into the arena, not into the mapping */
		ck_assert(e->data < zd.base || e->data >= zd.base + zd.len);
	}
	ZipEntry *e = zip_find(&zd, "empty");
	ck_assert_int_eq(zip_data(&zd, e, &d), 0);
	ck_assert_int_eq(e->size, 0);
	ck_assert_ptr_nonnull(e->data);
	ck_assert_ptr_null(test_diag_text(&d));
	zip_close(&zs);
	zip_close(&zd);
	arena_free(&a);
}
END_TEST

START_TEST(zip64_local_extra_python)
{
	static const uint8_t pkl[] = {0x80, 2, '}', 'q', 0, '.'};
	uint8_t w[48];
	Arena a;
	Diag d = {0};
	Zip z;

	for (int i = 0; i < 48; i++)
		w[i] = (uint8_t)i;
	arena_init(&a);
	ck_assert_int_eq(zip_open(&z, TZ64, &a, &d), 0);
	ck_assert_str_eq(z.root, "archive/");
	ck_assert_int_eq(z.n, 3);
	check_data(&z, "data.pkl", pkl, sizeof pkl);
	check_data(&z, "data/0", w, 48);
	check_data(&z, "version", "3\n", 2);
	zip_close(&z);
	arena_free(&a);
}
END_TEST

START_TEST(nested_torch_save)
{
	Arena a;
	Diag d = {0};
	Zip z, in;

	arena_init(&a);
	ck_assert_int_eq(zip_open(&z, T26, &a, &d), 0);
	ZipEntry *e = zip_find(&z, "serialized_state_dict.pt");
	ck_assert_int_eq(zip_data(&z, e, &d), 0);
	ck_assert_int_eq(zip_open_mem(&in, "torch26.pt2:serialized_state_dict.pt", e->data, e->size, &a, &d), 0);
	ck_assert(!in.mapped);
	ck_assert_str_eq(in.root, "archive/");
	ck_assert_ptr_nonnull(zip_find(&in, "data.pkl"));
	check_data(&in, "version", "3\n", 2);
	for (int i = 0; i < in.n; i++)
		ck_assert_int_eq(zip_data(&in, &in.ent[i], &d), 0);
	zip_close(&in);

	/* and the 2.14 sample inputs, a torch.save inside a PT2 archive */
	Zip z2;
	ck_assert_int_eq(zip_open(&z2, T214, &a, &d), 0);
	e = zip_find(&z2, "data/sample_inputs/model.pt");
	ck_assert_int_eq(zip_data(&z2, e, &d), 0);
	ck_assert_int_eq(zip_open_mem(&in, "x.pt2:model.pt", e->data, e->size, &a, &d), 0);
	ck_assert_str_eq(in.root, "archive/");
	check_data(&in, ".format_version", "1", 1);
	zip_close(&in);
	ck_assert_ptr_null(test_diag_text(&d));
	zip_close(&z2);
	zip_close(&z);
	arena_free(&a);
}
END_TEST

START_TEST(root_rules)
{
	static const struct {
		const char *names[3];
		int n;
		const char *root;
	} cases[] = {
		{{"a/b"}, 1, "a/"},
		{{"a/b", "a/c/d"}, 2, "a/"},
		{{"archive/data.pkl", "archive/data/0", "archive/version"}, 3, "archive/"},
		{{"a/"}, 1, "a/"},
		{{"a/b", "c"}, 2, ""},
		{{"a/b", "ab/c"}, 2, ""},
		{{"ab/c", "a/b"}, 2, ""},
		{{"x"}, 1, ""},
		{{"/x", "/y"}, 2, ""},
		{{"version", "extra_files/x"}, 2, ""},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		Arena a;
		Diag d = {0};
		Zip z;
		size_t len;
		uint8_t *buf = zb_names(cases[c].names, cases[c].n, &len);

		arena_init(&a);
		ck_assert_int_eq(zip_open_mem(&z, "mem.zip", buf, len, &a, &d), 0);
		ck_assert_int_eq(z.n, cases[c].n);
		ck_assert_str_eq(z.root, cases[c].root);
		for (int i = 0; i < z.n; i++) {
			const char *rel = cases[c].names[i] + strlen(cases[c].root);
			ck_assert_str_eq(z.ent[i].rel, rel);
			check_data(&z, rel, cases[c].names[i], strlen(cases[c].names[i]));
		}
		zip_close(&z);
		arena_free(&a);
		free(buf);
	}
}
END_TEST

START_TEST(empty_archive_and_duplicates)
{
	static const char *const dup[] = {"r/a", "r/b", "r/a"};
	Arena a;
	Diag d = {0};
	Zip z;
	size_t len;
	uint8_t *buf = zb_names(NULL, 0, &len);

	arena_init(&a);
	ck_assert_uint_eq(len, 22);
	ck_assert_int_eq(zip_open_mem(&z, "empty.zip", buf, len, &a, &d), 0);
	ck_assert_int_eq(z.n, 0);
	ck_assert_str_eq(z.root, "");
	ck_assert_ptr_null(zip_find(&z, "x"));
	free(buf);
	/* a repeated name finds its first entry */
	buf = zb_names(dup, 3, &len);
	ck_assert_int_eq(zip_open_mem(&z, "dup.zip", buf, len, &a, &d), 0);
	ck_assert_ptr_eq(zip_find(&z, "a"), &z.ent[0]);
	free(buf);
	arena_free(&a);
}
END_TEST

/* Appends tail to a one-entry zip; comment says whether the EOCD's
 * comment length covers it. */
static uint8_t *
with_tail(const uint8_t *tail, size_t n, int comment, size_t *len)
{
	static const char *const one[] = {"c/a"};
	size_t zl;
	uint8_t *z = zb_names(one, 1, &zl), *buf = malloc(zl + n);

	memcpy(buf, z, zl);
	memcpy(buf + zl, tail, n);
	if (comment)
		put16(buf + zl - 2, (unsigned)n);
	free(z);
	*len = zl + n;
	return buf;
}

START_TEST(eocd_comment_and_tail)
{
	uint8_t *tail = calloc(65535, 1), *buf;
	Arena a;
	Diag d = {0};
	Zip z;
	size_t len;

	arena_init(&a);
	/* a comment holding an empty archive's end record must not win */
	memcpy(tail + 100, "PK\5\6", 4);
	for (size_t n = 0; n <= 65535; n += 65535 - 200) {
		buf = with_tail(tail, n, 1, &len);
		ck_assert_int_eq(zip_open_mem(&z, "comment.zip", buf, len, &a, &d), 0);
		ck_assert_int_eq(z.n, 1);
		check_data(&z, "a", "c/a", 3);
		free(buf);
	}
	buf = with_tail(tail, 65535, 1, &len);
	ck_assert_int_eq(zip_open_mem(&z, "comment.zip", buf, len, &a, &d), 0);
	ck_assert_int_eq(z.n, 1);
	free(buf);
	/* junk after the archive that no comment length accounts for */
	buf = with_tail((const uint8_t *)"junk", 4, 0, &len);
	ck_assert_int_eq(zip_open_mem(&z, "junk.zip", buf, len, &a, &d), 0);
	check_data(&z, "a", "c/a", 3);
	free(buf);
	/* one byte beyond the 64 KiB reach of a full comment hides the record */
	memset(tail, 0, 65535);
	buf = with_tail(tail, 65535, 1, &len);
	buf = realloc(buf, len + 1);
	buf[len++] = 0;
	expect_error(zip_open_mem(&z, "far.zip", buf, len, &a, &d), &d,
		"far.zip: not a zip archive (no end of central directory record)", NULL);
	diag_free(&d);
	free(buf);
	free(tail);
	arena_free(&a);
}
END_TEST

START_TEST(zip64_many_entries)
{
	enum { N = 70000 };
	Zb b = {0};
	Arena a;
	Diag d = {0};
	Zip z;
	size_t len;
	char name[32];
	uint8_t *buf;

	for (uint32_t i = 0; i < N; i++) {
		uint8_t v[4];
		put32(v, i * 2654435761u);
		snprintf(name, sizeof name, "many/%05u", (unsigned)i);
		zb_add(&b, name, v, 4);
	}
	buf = zb_finish(&b, &len);
	arena_init(&a);
	ck_assert_int_eq(zip_open_mem(&z, "many.zip", buf, len, &a, &d), 0);
	ck_assert_int_eq(z.n, N);
	ck_assert_str_eq(z.root, "many/");
	for (uint32_t i = 0; i < N; i++) {
		uint8_t v[4];
		put32(v, i * 2654435761u);
		snprintf(name, sizeof name, "%05u", (unsigned)i);
		ZipEntry *e = zip_find(&z, name);
		ck_assert_ptr_eq(e, &z.ent[i]);
		ck_assert_int_eq(zip_data(&z, e, &d), 0);
		ck_assert(memcmp(e->data, v, 4) == 0);
	}
	ck_assert_ptr_null(zip_find(&z, "70000"));
	ck_assert_ptr_null(test_diag_text(&d));
	arena_free(&a);
	free(buf);
}
END_TEST

START_TEST(zip64_central_fields)
{
	Zb b = {.zip64 = 1};
	Arena a;
	Diag d = {0};
	Zip z;
	size_t len;
	uint8_t *buf;

	zb_add(&b, "m/one", "1", 1);
	zb_add(&b, "m/empty", "", 0);
	zb_add(&b, "m/three", "333", 3);
	buf = zb_finish(&b, &len);
	arena_init(&a);
	ck_assert_int_eq(zip_open_mem(&z, "z64.zip", buf, len, &a, &d), 0);
	ck_assert_int_eq(z.n, 3);
	ck_assert_str_eq(z.root, "m/");
	ck_assert_uint_eq(z.ent[2].local_ofs, 30 + 5 + 1 + 30 + 7);
	check_data(&z, "one", "1", 1);
	check_data(&z, "empty", "", 0);
	check_data(&z, "three", "333", 3);

	/* a ZIP64 extra field that lacks the offset */
	size_t x = central_of(buf, len, "m/three") + 46 + 7;
	put16(buf + x + 14, 16);
	expect_error(zip_open_mem(&z, "z64.zip", buf, len, &a, &d), &d,
		"z64.zip: entry 'm/three': ZIP64 extra field too short (16 bytes)", NULL);
	diag_free(&d);
	/* an extra field longer than the space left for it */
	put16(buf + x + 2, 200);
	expect_error(zip_open_mem(&z, "z64.zip", buf, len, &a, &d), &d,
		"z64.zip: entry 'm/three': extra field overruns", NULL);
	diag_free(&d);
	arena_free(&a);
	free(buf);
}
END_TEST

static int
has_eocd_sig(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 4 <= n; i++)
		if (memcmp(p + i, "PK\5\6", 4) == 0)
			return 1;
	return 0;
}

/* Every prefix of a real file fails to open with a message naming it,
 * and none reads out of bounds (the ASan build checks that). */
static void
check_truncations(const char *path)
{
	size_t len;
	uint8_t *full = read_all(path, &len);

	for (size_t cut = 0; cut < len; cut++) {
		Arena a;
		Diag d = {0};
		Zip z;
		uint8_t *buf = malloc(cut ? cut : 1);

		memcpy(buf, full, cut);
		arena_init(&a);
		int rc = zip_open_mem(&z, "cut.pt2", buf, cut, &a, &d);
		ck_assert_msg(rc == DIAG_INPUT, "%s cut at %zu opened", path, cut);
		expect_error(rc, &d, "cut.pt2: ", NULL);
		if (cut == 0)
			expect_error(rc, &d, "cut.pt2: not a zip archive (empty file)", NULL);
		/* a prefix may still hold a nested zip's end record, which
		 * gives a different (but still named) error */
		if (cut && !has_eocd_sig(full, cut))
			expect_error(rc, &d, "cut.pt2: not a zip archive (no end of central directory record)", NULL);
		diag_free(&d);
		arena_free(&a);
		free(buf);
	}
	free(full);
}

START_TEST(truncated_files)
{
	check_truncations(T26);
	check_truncations(T214);
	check_truncations(TDEFL);
}
END_TEST

START_TEST(not_a_zip)
{
	Arena a;
	Diag d = {0};
	Zip z;

	arena_init(&a);
	expect_error(zip_open(&z, TEST_PATH("unit/testutil.h"), &a, &d), &d,
		"test/unit/testutil.h: not a zip archive (no end of central directory record)", NULL);
	diag_free(&d);
	expect_error(zip_open(&z, TEST_PATH("data/zip/empty.zip"), &a, &d), &d,
		"test/data/zip/empty.zip: not a zip archive (empty file)", NULL);
	diag_free(&d);
	expect_error(zip_open(&z, TEST_PATH("data/zip/missing.zip"), &a, &d), &d,
		"test/data/zip/missing.zip: cannot open (No such file or directory)", NULL);
	diag_free(&d);
	expect_error(zip_open(&z, TEST_PATH("data/zip"), &a, &d), &d,
		"test/data/zip: cannot open (a directory, not a regular file)", NULL);
	diag_free(&d);
	expect_error(zip_open_mem(&z, "hello.txt", (const uint8_t *)"hello", 5, &a, &d), &d,
		"hello.txt: not a zip archive", NULL);
	diag_free(&d);
	expect_error(zip_open_mem(&z, "null", NULL, 0, &a, &d), &d, "null: not a zip archive (empty file)", NULL);
	diag_free(&d);
	arena_free(&a);
}
END_TEST

/* Opens a patched copy of a real file and asserts that zip_data on entry
 * name fails with a message holding want (the label is "patched.pt2"). */
static void
expect_data_error(const uint8_t *buf, size_t len, const char *rel, const char *want)
{
	Arena a;
	Diag d = {0};
	Zip z;

	arena_init(&a);
	ck_assert_int_eq(zip_open_mem(&z, "patched.pt2", buf, len, &a, &d), 0);
	ZipEntry *e = zip_find(&z, rel);
	ck_assert_ptr_nonnull(e);
	expect_error(zip_data(&z, e, &d), &d, "patched.pt2: entry '", want);
	ck_assert_ptr_null(e->data);
	diag_free(&d);
	arena_free(&a);
}

START_TEST(stored_entry_errors)
{
	size_t len;
	uint8_t *orig = read_all(T214, &len), *buf = malloc(len);
	size_t c = central_of(orig, len, W0);
	char want[200];

	memcpy(buf, orig, len);
	put32(buf + c + 20, 0x7FFFFFF0);
	put32(buf + c + 24, 0x7FFFFFF0);
	snprintf(want, sizeof want, "patched.pt2: entry '" W0 "': data past the end of the file "
		"(offset 128, size 2147483632, file %zu bytes)", len);
	expect_data_error(buf, len, "data/weights/weight_0", want);

	memcpy(buf, orig, len);
	put32(buf + c + 42, (uint32_t)len - 10);
	expect_data_error(buf, len, "data/weights/weight_0", W0 "': local header past the end of the file");

	memcpy(buf, orig, len);
	put16(buf + c + 10, 12);
	expect_data_error(buf, len, "data/weights/weight_0", W0 "': unsupported compression method 12");

	memcpy(buf, orig, len);
	put32(buf + c + 20, 47);
	expect_data_error(buf, len, "data/weights/weight_0", W0 "': stored entry has size 48 but compressed size 47");

	memcpy(buf, orig, len);
	buf[local_of(orig, len, W0)] = 'X';
	expect_data_error(buf, len, "data/weights/weight_0", W0 "': bad local header signature at offset 0");

	memcpy(buf, orig, len);
	buf[local_of(orig, len, W0) + 6] |= 1;
	expect_data_error(buf, len, "data/weights/weight_0", W0 "': encrypted entries are not supported");

	/* the local extra length moves the data start past the end */
	memcpy(buf, orig, len);
	size_t l = local_of(orig, len, "linrelu_static/.data/serialization_id");
	put16(buf + l + 28, 0xFFFF);
	expect_data_error(buf, len, ".data/serialization_id", "data past the end of the file");
	free(buf);
	free(orig);
}
END_TEST

START_TEST(deflated_entry_errors)
{
	size_t len;
	uint8_t *orig = read_all(TDEFL, &len), *buf = malloc(len);
	const char *name = "linrelu_static/models/model.json";
	size_t c = central_of(orig, len, name), l = local_of(orig, len, name);
	size_t start = l + 30 + strlen(name) + orig[l + 28];

	memcpy(buf, orig, len);
	put32(buf + c + 24, 3000);
	expect_data_error(buf, len, "models/model.json",
		"models/model.json': deflate stream does not end within 3000 bytes");

	memcpy(buf, orig, len);
	put32(buf + c + 24, 4000);
	expect_data_error(buf, len, "models/model.json",
		"models/model.json': inflated to 3725 bytes, expected 4000");

	memcpy(buf, orig, len);
	put32(buf + c + 20, 100);
	expect_data_error(buf, len, "models/model.json",
		"models/model.json': deflate stream truncated (100 compressed bytes)");

	memcpy(buf, orig, len);
	buf[start] |= 6; /* block type 3 is reserved */
	expect_data_error(buf, len, "models/model.json", "models/model.json': inflate error (invalid block type)");

	memcpy(buf, orig, len);
	put32(buf + c + 24, 0xFFFFFFF0u);
	expect_data_error(buf, len, "models/model.json", "models/model.json': 960 bytes cannot inflate to 4294967280");
	free(buf);
	free(orig);
}
END_TEST

START_TEST(directory_errors)
{
	size_t len;
	uint8_t *orig = read_all(T214, &len), *buf = malloc(len);
	size_t eocd = len - 22, loc = eocd - 20, rec;
	Arena a;
	Diag d = {0};
	Zip z;

	arena_init(&a);
	memcpy(buf, orig, len);
	ck_assert(memcmp(buf + loc, "PK\6\7", 4) == 0);
	rec = (size_t)buf[loc + 8] | (size_t)buf[loc + 9] << 8;
	put64(buf + loc + 8, (uint64_t)1 << 62);
	expect_error(zip_open_mem(&z, "patched.pt2", buf, len, &a, &d), &d,
		"patched.pt2: ZIP64 end of central directory record out of bounds", NULL);
	diag_free(&d);

	memcpy(buf, orig, len);
	buf[rec] = 'X';
	expect_error(zip_open_mem(&z, "patched.pt2", buf, len, &a, &d), &d,
		"patched.pt2: bad ZIP64 end of central directory signature", NULL);
	diag_free(&d);

	memcpy(buf, orig, len);
	put64(buf + rec + 48, UINT64_MAX - 10);
	expect_error(zip_open_mem(&z, "patched.pt2", buf, len, &a, &d), &d,
		"patched.pt2: central directory out of bounds", NULL);
	diag_free(&d);

	memcpy(buf, orig, len);
	put64(buf + rec + 32, UINT64_MAX);
	expect_error(zip_open_mem(&z, "patched.pt2", buf, len, &a, &d), &d,
		"patched.pt2: central directory of 910 bytes cannot hold 18446744073709551615 entries", NULL);
	diag_free(&d);

	memcpy(buf, orig, len);
	buf[central_of(orig, len, W0) + 46 + 3] = 0;
	expect_error(zip_open_mem(&z, "patched.pt2", buf, len, &a, &d), &d,
		"patched.pt2: central directory entry 0: name contains a NUL byte", NULL);
	diag_free(&d);

	memcpy(buf, orig, len);
	buf[central_of(orig, len, "linrelu_static/byteorder")] = 'X';
	expect_error(zip_open_mem(&z, "patched.pt2", buf, len, &a, &d), &d,
		"patched.pt2: central directory entry 9: bad signature", NULL);
	diag_free(&d);

	arena_free(&a);
	free(buf);
	free(orig);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("zip");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, flat_zip_torch26);
	tcase_add_test(tc, pt2_archive_torch214);
	tcase_add_test(tc, deflated_matches_stored);
	tcase_add_test(tc, drop_keeps_bytes);
	tcase_add_test(tc, zip64_local_extra_python);
	tcase_add_test(tc, nested_torch_save);
	tcase_add_test(tc, root_rules);
	tcase_add_test(tc, empty_archive_and_duplicates);
	tcase_add_test(tc, eocd_comment_and_tail);
	tcase_add_test(tc, zip64_many_entries);
	tcase_add_test(tc, zip64_central_fields);
	tcase_add_test(tc, truncated_files);
	tcase_add_test(tc, not_a_zip);
	tcase_add_test(tc, stored_entry_errors);
	tcase_add_test(tc, deflated_entry_errors);
	tcase_add_test(tc, directory_errors);
	suite_add_tcase(s, tc);
	return s;
}
