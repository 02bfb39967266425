/* test_arena.c: the arena and dtype tables (Diag: test_diag.c). */
#include <string.h>

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

static Suite *
make_suite(void)
{
	Suite *s = suite_create("arena");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, arena_alignment_and_zero);
	tcase_add_test(tc, dtype_table);
	tcase_add_test(tc, tensor_views);
	suite_add_tcase(s, tc);
	return s;
}
