/* test_arena.c: the arena, dtype tables, tensor views and durable files
 * (Diag: test_diag.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core.h"
#include "testutil.h"

START_TEST(arena_alignment_and_zero)
{
	Arena a;
	arena_init(&a);
	for (int i = 1; i < 5000; i += 37) {
		unsigned char *p = arena_alloc(&a, (size_t)i);
		ck_assert_uint_eq((uintptr_t)p % 16, 0);
		for (int k = 0; k < i; k++)
			ck_assert_uint_eq(p[k], 0);
		memset(p, 0xab, (size_t)i);
	}
	char *big = arena_alloc(&a, 10u << 20);
	big[(10u << 20) - 1] = 1;
	ck_assert_str_eq(arena_printf(&a, "%s-%d", "x", 42), "x-42");
	ck_assert_str_eq(arena_strndup(&a, "hello", 3), "hel");
	/* sizes from input: NULL when they cannot be had, never die() */
	ck_assert_ptr_null(arena_try_alloc(&a, SIZE_MAX - 3));
	ck_assert_ptr_null(arena_try_alloc(&a, (size_t)1 << 62));
	big = arena_try_alloc(&a, 1u << 20);
	ck_assert_ptr_nonnull(big);
	ck_assert_int_eq(big[(1u << 20) - 1], 0);
	ck_assert_str_eq(arena_printf(&a, "%s", "after"), "after");
	arena_free(&a);
}
END_TEST

START_TEST(dtype_table)
{
	ck_assert_int_eq(dtype_from_torch(7), DT_FLOAT32);
	ck_assert_int_eq(dtype_from_torch(13), DT_BFLOAT16);
	ck_assert_int_eq(dtype_from_torch(14), DT_UNKNOWN);
	ck_assert_int_eq(dtype_onnx(DT_FLOAT32), 1);
	ck_assert_int_eq(dtype_onnx(DT_INT64), 7);
	ck_assert_int_eq(dtype_size(DT_BFLOAT16), 2);
	ck_assert_int_eq(dtype_from_storage("LongStorage"), DT_INT64);
	ck_assert_int_eq(dtype_from_name("bfloat16"), DT_BFLOAT16);
	ck_assert_str_eq(dtype_name(DT_BOOL), "bool");
}
END_TEST

START_TEST(tensor_views)
{
	int64_t sizes[2] = {3, 4}, strides[2] = {4, 1}, tstrides[2] = {1, 3};
	TensorData t = {DT_FLOAT32, 2, sizes, strides, 0, NULL, 48, "e"};
	ck_assert_int_eq(tensor_numel(&t), 12);
	ck_assert(tensor_is_contiguous(&t));
	ck_assert(tensor_in_bounds(&t));
	t.offset = 1;
	ck_assert(!tensor_in_bounds(&t));
	t.offset = 0;
	t.strides = tstrides;
	ck_assert(!tensor_is_contiguous(&t));
	ck_assert(tensor_in_bounds(&t));
}
END_TEST

/* Products that wrap are refused, the exact ones returned: the onnx
 * checker's 2^62+6 float32 elements (24 bytes modulo 2^64) and [2^61, 2]
 * (0 bytes modulo 2^64); a view repeating one element 2^64 times. */
START_TEST(checked_sizes)
{
	int64_t n, wrap1[1] = {((int64_t)1 << 62) + 6}, wrap2[2] = {(int64_t)1 << 61, 2}, neg[2] = {3, -1};
	int64_t huge[2] = {(int64_t)1 << 32, (int64_t)1 << 32}, zero0[2] = {0, 0};
	uint64_t u;
	ck_assert_int_eq(size_numel(wrap1, 1, &n), 0);
	ck_assert_int_eq(size_bytes(n, 4, &u), -1);
	ck_assert_int_eq(size_numel(wrap2, 2, &n), 0);
	ck_assert_int_eq(size_bytes(n, 4, &u), -1);
	ck_assert_int_eq(size_bytes(n, 1, &u), 0);
	ck_assert_uint_eq(u, (uint64_t)1 << 62);
	ck_assert_int_eq(size_numel(neg, 2, &n), -1);
	ck_assert_int_eq(size_numel(huge, 2, &n), -1);
	ck_assert_int_eq(size_numel(NULL, 0, &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(size_mul(UINT64_MAX, 2, &u), -1);
	ck_assert_int_eq(size_mul(1u << 31, 1u << 31, &u), 0);
	ck_assert_uint_eq(u, (uint64_t)1 << 62);
	ck_assert_int_eq(size_add(UINT64_MAX, 1, &u), -1);
	ck_assert_int_eq(size_add(2, 3, &u), 0);
	ck_assert_uint_eq(u, 5);
	{
		TensorData t = {DT_FLOAT32, 2, huge, zero0, 0, (const uint8_t *)"abcd", 4, "e"};
		ck_assert(!tensor_in_bounds(&t));
		huge[0] = huge[1] = 1 << 20;
		ck_assert(tensor_in_bounds(&t));
	}
}
END_TEST

static int
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static char *
slurp(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(buf, 1, size - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = 0;
	return buf;
}

/* Files appear only at the commit, whole, with no temporary file left; a
 * dropped file and an aborted set leave nothing; a failed rename (the
 * target is a directory) reports its path and removes what was not
 * renamed. */
START_TEST(durable_files)
{
	const char *a = "build/test/durable_a.txt", *b = "build/test/durable_b.txt";
	const char *dir = "build/test/durable_dir", *failed = NULL;
	char tmp[256], buf[64];
	Durable out;
	int fd;

	mkdir("build", 0777);
	mkdir("build/test", 0777);
	unlink(a), unlink(b), rmdir(dir);
	durable_init(&out);
	ck_assert_int_eq(durable_write(&out, a, "first", 5), 0);
	ck_assert_int_ge(fd = durable_open(&out, b), 0);
	ck_assert_int_eq(write(fd, "second", 6), 6);
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", b, (long)getpid());
	ck_assert(exists(tmp) && !exists(a) && !exists(b));
	ck_assert_int_eq(durable_commit(&out, &failed), 0);
	ck_assert_int_eq(out.n, 0);
	ck_assert(!exists(tmp));
	ck_assert_str_eq(slurp(a, buf, sizeof buf), "first");
	ck_assert_str_eq(slurp(b, buf, sizeof buf), "second");

	ck_assert_int_eq(durable_write(&out, a, "again", 5), 0);
	ck_assert_int_ge(fd = durable_open(&out, b), 0);
	durable_drop(&out, fd);
	ck_assert(!exists(tmp));
	durable_abort(&out);
	ck_assert_int_eq(out.n, 0);
	ck_assert_str_eq(slurp(a, buf, sizeof buf), "first");

	ck_assert_int_eq(mkdir(dir, 0777), 0);
	ck_assert_int_eq(durable_write(&out, a, "third", 5), 0);
	ck_assert_int_eq(durable_write(&out, dir, "x", 1), 0);
	ck_assert_int_ne(durable_commit(&out, &failed), 0);
	ck_assert_str_eq(failed, dir);
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", dir, (long)getpid());
	ck_assert(!exists(tmp));
	ck_assert_str_eq(slurp(a, buf, sizeof buf), "third");

	/* synced first, then joined by a second set: committed in order, once */
	{
		Durable more;
		durable_init(&more);
		ck_assert_int_eq(durable_write(&out, a, "fourth", 6), 0);
		ck_assert_int_eq(durable_sync(&out), 0);
		ck_assert(out.f[0].synced);
		ck_assert_int_eq(durable_write(&more, b, "fifth", 5), 0);
		durable_join(&out, &more);
		ck_assert_int_eq(more.n, 0);
		ck_assert_int_eq(out.n, 2);
		ck_assert(!out.f[1].synced);
		ck_assert_int_eq(durable_commit(&out, &failed), 0);
		ck_assert_str_eq(slurp(a, buf, sizeof buf), "fourth");
		ck_assert_str_eq(slurp(b, buf, sizeof buf), "fifth");
	}

	errno = 0;
	ck_assert_int_lt(durable_open(&out, "build/test/no_such_dir/x"), 0);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(out.n, 0);
	unlink(a), unlink(b), rmdir(dir);
}
END_TEST

/* Outputs that would replace a link, a FIFO or an input are refused; two
 * spellings of one path are the same path, existing or not; a temporary
 * name taken by a planted link is replaced, never written through. */
START_TEST(durable_outputs)
{
	const char *dir = "build/test/durable_out", *in[2] = {"build/test/durable_out/in.onnx", NULL};
	char why[256];
	Durable out;
	int fd;

	mkdir(dir, 0777);
	fclose(fopen("build/test/durable_out/in.onnx", "w"));
	symlink("/dev/null", "build/test/durable_out/link");
	mkfifo("build/test/durable_out/fifo", 0666);
	ck_assert_int_eq(durable_check_output("build/test/durable_out/new.onnx", in, 2, why, sizeof why), 0);
	ck_assert_int_eq(durable_check_output("build/test/durable_out/link", in, 2, why, sizeof why), -1);
	ck_assert_msg(strstr(why, "a symbolic link"), "%s", why);
	ck_assert_int_eq(durable_check_output("build/test/durable_out/fifo", in, 2, why, sizeof why), -1);
	ck_assert_msg(strstr(why, "a FIFO"), "%s", why);
	ck_assert_int_eq(durable_check_output("build/test/durable_out/../durable_out/in.onnx", in, 2, why, sizeof why), -1);
	ck_assert_msg(strstr(why, "the input"), "%s", why);
	ck_assert(durable_same_path("build/test/durable_out/a", "build/test/../test/durable_out/a"));
	ck_assert(!durable_same_path("build/test/durable_out/a", "build/test/durable_out/b"));
	/* a link planted under the temporary name */
	{
		char tmp[128];
		snprintf(tmp, sizeof tmp, "build/test/durable_out/t.onnx.tmp.%ld", (long)getpid());
		symlink("in.onnx", tmp);
		durable_init(&out);
		ck_assert_int_ge(fd = durable_open(&out, "build/test/durable_out/t.onnx"), 0);
		ck_assert_int_eq(write(fd, "x", 1), 1);
		ck_assert_int_eq(durable_commit(&out, NULL), 0);
		{
			struct stat st;
			ck_assert_int_eq(stat("build/test/durable_out/in.onnx", &st), 0);
			ck_assert_int_eq(st.st_size, 0);   /* not written through the link */
		}
	}
	/* file_open: a FIFO without a writer does not block, a directory and a
	 * device are named, the cap holds */
	{
		uint64_t size;
		size_t len;
		Arena a;
		arena_init(&a);
		ck_assert_int_eq(file_open("build/test/durable_out/fifo", 0, &size, why, sizeof why), -1);
		ck_assert_msg(strstr(why, "a FIFO, not a regular file"), "%s", why);
		ck_assert_int_eq(file_open(dir, 0, &size, why, sizeof why), -1);
		ck_assert_msg(strstr(why, "a directory"), "%s", why);
		ck_assert_ptr_null(file_slurp(&a, "/dev/zero", 1 << 20, &len, why, sizeof why));
		ck_assert_msg(strstr(why, "a character device"), "%s", why);
		ck_assert_ptr_nonnull(file_slurp(&a, "build/test/durable_out/t.onnx", 1, &len, why, sizeof why));
		ck_assert_uint_eq(len, 1);
		{
			FILE *f = fopen("build/test/durable_out/two", "w");
			fputs("ab", f);
			fclose(f);
		}
		ck_assert_ptr_null(file_slurp(&a, "build/test/durable_out/two", 1, &len, why, sizeof why));
		ck_assert_msg(strstr(why, "2 bytes, more than the 1"), "%s", why);
		unlink("build/test/durable_out/two");
		arena_free(&a);
	}
	unlink("build/test/durable_out/t.onnx"), unlink("build/test/durable_out/in.onnx");
	unlink("build/test/durable_out/link"), unlink("build/test/durable_out/fifo"), rmdir(dir);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("arena");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, arena_alignment_and_zero);
	tcase_add_test(tc, dtype_table);
	tcase_add_test(tc, tensor_views);
	tcase_add_test(tc, checked_sizes);
	tcase_add_test(tc, durable_files);
	tcase_add_test(tc, durable_outputs);
	suite_add_tcase(s, tc);
	return s;
}
