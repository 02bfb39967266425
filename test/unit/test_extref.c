/* test_extref.c: onnx_write_plan() with a reference file (the option
 * `external_data: reference`).  A mapped "input" of 256 bytes holds the
 * initializers' bytes: one at offset 64 points there (location, offset,
 * length), a shape vector stays inline, a tensor in memory (a weight the
 * converter changed) goes to OUT.data; a float32 at an odd offset is
 * refused by name (YE_EXTERNAL_REFERENCE), leaving the model unmarked. */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onnx/onnx.h"
#include "diagtext.h"
#include "testutil.h"

#define DIR "build/test/extref"

static const char *
ext(const OnnxTensor *t, const char *key)
{
	for (size_t i = 0; i < t->n_external_data; i++)
		if (strcmp(t->external_data[i]->key, key) == 0)
			return t->external_data[i]->value;
	return NULL;
}

/* A model holding the given initializers, each read by an Identity. */
static Onnx__ModelProto *
model(Arena *a, OnnxTensor **t, int n)
{
	OnnxGraph g = {.a = a, .name = "g"};

	for (int i = 0; i < n; i++) {
		const char *in = t[i]->name, *out = arena_printf(a, "y%d", i);
		int64_t dim = (int64_t)t[i]->dims[0];
		onnx_vec_push(a, &g.inits, t[i]);
		onnx_vec_push(a, &g.nodes, onnx_node(a, "Identity", arena_printf(a, "n%d", i), 1, &in, 1, &out));
		onnx_vec_push(a, &g.outputs, onnx_value_info(a, out, t[i]->data_type, 1, &dim, NULL));
	}
	return onnx_model(a, onnx_graph_finish(&g), 18, "test");
}

START_TEST(reference_points_into_the_input)
{
	static float mem[4] = {1, 2, 3, 4};
	uint8_t bytes[256];
	const uint8_t *base;
	Arena a;
	Diag d = {0};
	Durable out;
	OnnxWrite *w;
	OnnxTensor *t[3];
	Onnx__ModelProto *m;
	int64_t four = 4, two = 2;
	struct stat st;
	int fd;

	mkdir("build/test", 0777);
	mkdir(DIR, 0777);
	for (int i = 0; i < 256; i++)
		bytes[i] = (uint8_t)i;
	fd = open(DIR "/w.pt2", O_RDWR | O_CREAT | O_TRUNC, 0666);
	ck_assert(fd >= 0 && write(fd, bytes, sizeof bytes) == (ssize_t)sizeof bytes);
	base = mmap(NULL, sizeof bytes, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert(base != MAP_FAILED);
	arena_init(&a);

	/* a float32 at offset 130: onnxruntime would read it misaligned */
	t[0] = onnx_tensor(&a, "odd", ONNX_FLOAT, 1, &four, base + 130, 16);
	m = model(&a, t, 1);
	ck_assert_int_eq(onnx_write_plan(&a, m, DIR "/m.onnx", 0, "w.pt2", &(OnnxSource){fd, base, sizeof bytes}, &w, &d),
	                 DIAG_INPUT);
	ck_assert(w == NULL && d.n == 1 && d.items[0].code == YE_EXTERNAL_REFERENCE);
	ck_assert_msg(strstr(test_diag_text(&d), "initializer 'odd' lies at offset 130 of 'w.pt2'"), "%s",
	              test_diag_text(&d));
	diag_free(&d);

	t[0] = onnx_tensor(&a, "w", ONNX_FLOAT, 1, &four, base + 64, 16);
	t[1] = onnx_tensor(&a, "shape", ONNX_INT64, 1, &two, base + 192, 16);
	t[2] = onnx_tensor(&a, "changed", ONNX_FLOAT, 1, &four, mem, 16);
	m = model(&a, t, 3);
	ck_assert_msg(onnx_write_plan(&a, m, DIR "/m.onnx", 0, "w.pt2", &(OnnxSource){fd, base, sizeof bytes}, &w, &d) == 0,
	              "%s", test_diag_text(&d));
	ck_assert(!t[0]->has_raw_data && t[0]->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL);
	ck_assert_str_eq(ext(t[0], "location"), "w.pt2");
	ck_assert_str_eq(ext(t[0], "offset"), "64");
	ck_assert_str_eq(ext(t[0], "length"), "16");
	ck_assert(t[1]->has_raw_data && t[1]->n_external_data == 0);   /* shapes stay inline */
	ck_assert_str_eq(ext(t[2], "location"), "m.onnx.data");
	ck_assert_str_eq(ext(t[2], "offset"), "0");

	durable_init(&out);
	ck_assert_msg(onnx_write_stream(w, &out, &d) == 0, "%s", test_diag_text(&d));
	ck_assert_int_eq(durable_commit(&out, NULL), 0);
	ck_assert(stat(DIR "/m.onnx.data", &st) == 0 && st.st_size == 16);   /* only the changed tensor */
	ck_assert(stat(DIR "/m.onnx", &st) == 0 && st.st_size > 0);

	munmap((void *)base, sizeof bytes);
	close(fd);
	diag_free(&d);
	arena_free(&a);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("extref");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, reference_points_into_the_input);
	suite_add_tcase(s, tc);
	return s;
}
