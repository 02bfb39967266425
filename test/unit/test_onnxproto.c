/* test_onnxproto.c: the generated ONNX protobuf code (proto/onnx.proto).
 *
 * Builds a one-node model by hand (Y = X + W, opset 18), packs it, unpacks it
 * and checks that every field we set comes back. It also pins the wire
 * format of fields where proto2 packing matters, since onnxruntime reads our
 * files with the official schema. The packed model is written to
 * build/test/tiny_add.onnx, where test/ort/selftest.sh runs it through
 * onnxruntime. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "onnx.pb-c.h"
#include "testutil.h"

#define TINY_ADD_PATH "build/test/tiny_add.onnx"

/* The tiny model's message tree, all in static storage of one struct so
 * that building it needs no allocation. */
typedef struct {
	Onnx__ModelProto model;
	Onnx__OperatorSetIdProto opset;
	Onnx__OperatorSetIdProto *opsets[1];
	Onnx__GraphProto graph;
	Onnx__NodeProto add;
	Onnx__NodeProto *nodes[1];
	char *add_in[2];
	char *add_out[1];
	Onnx__TensorProto w;
	Onnx__TensorProto *inits[1];
	int64_t w_dims[2];
	float w_data[2];
	Onnx__TensorShapeProto__Dimension dim_two, dim_batch;
	Onnx__TensorShapeProto__Dimension *dims[2];
	Onnx__TensorShapeProto shape;
	Onnx__TypeProto__Tensor tensor_type;
	Onnx__TypeProto type;
	Onnx__ValueInfoProto x, y;
	Onnx__ValueInfoProto *inputs[1], *outputs[1];
	Onnx__StringStringEntryProto meta;
	Onnx__StringStringEntryProto *metas[1];
} TinyAdd;

/* W's values; test/ort/selftest/ computes its reference from these. */
static const float W_VALUES[2] = {1.5f, -2.0f};

/* Fills *t with: X float[2,batch] + W float[2,1] (initializer, raw_data)
 * -> Y float[2,batch]. X and Y share one TypeProto. */
static Onnx__ModelProto *
tiny_add_build(TinyAdd *t)
{
	memset(t, 0, sizeof *t);

	t->dim_two = (Onnx__TensorShapeProto__Dimension)ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
	t->dim_two.value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
	t->dim_two.dim_value = 2;
	t->dim_batch = (Onnx__TensorShapeProto__Dimension)ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
	t->dim_batch.value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
	t->dim_batch.dim_param = "batch";
	t->dims[0] = &t->dim_two;
	t->dims[1] = &t->dim_batch;
	t->shape = (Onnx__TensorShapeProto)ONNX__TENSOR_SHAPE_PROTO__INIT;
	t->shape.n_dim = 2;
	t->shape.dim = t->dims;
	t->tensor_type = (Onnx__TypeProto__Tensor)ONNX__TYPE_PROTO__TENSOR__INIT;
	t->tensor_type.has_elem_type = 1;
	t->tensor_type.elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
	t->tensor_type.shape = &t->shape;
	t->type = (Onnx__TypeProto)ONNX__TYPE_PROTO__INIT;
	t->type.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	t->type.tensor_type = &t->tensor_type;

	t->x = (Onnx__ValueInfoProto)ONNX__VALUE_INFO_PROTO__INIT;
	t->x.name = "X";
	t->x.type = &t->type;
	t->y = t->x;
	t->y.name = "Y";
	t->inputs[0] = &t->x;
	t->outputs[0] = &t->y;

	t->w = (Onnx__TensorProto)ONNX__TENSOR_PROTO__INIT;
	t->w.name = "W";
	t->w_dims[0] = 2;
	t->w_dims[1] = 1;
	t->w.n_dims = 2;
	t->w.dims = t->w_dims;
	t->w.has_data_type = 1;
	t->w.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
	/* raw_data is little-endian; so is every host we build on. */
	memcpy(t->w_data, W_VALUES, sizeof t->w_data);
	t->w.has_raw_data = 1;
	t->w.raw_data.len = sizeof t->w_data;
	t->w.raw_data.data = (uint8_t *)t->w_data;
	t->inits[0] = &t->w;

	t->add = (Onnx__NodeProto)ONNX__NODE_PROTO__INIT;
	t->add.name = "add_0";
	t->add.op_type = "Add";
	t->add_in[0] = "X";
	t->add_in[1] = "W";
	t->add_out[0] = "Y";
	t->add.n_input = 2;
	t->add.input = t->add_in;
	t->add.n_output = 1;
	t->add.output = t->add_out;
	t->nodes[0] = &t->add;

	t->graph = (Onnx__GraphProto)ONNX__GRAPH_PROTO__INIT;
	t->graph.name = "tiny_add";
	t->graph.n_node = 1;
	t->graph.node = t->nodes;
	t->graph.n_initializer = 1;
	t->graph.initializer = t->inits;
	t->graph.n_input = 1;
	t->graph.input = t->inputs;
	t->graph.n_output = 1;
	t->graph.output = t->outputs;

	t->opset = (Onnx__OperatorSetIdProto)ONNX__OPERATOR_SET_ID_PROTO__INIT;
	t->opset.domain = "";
	t->opset.has_version = 1;
	t->opset.version = 18;
	t->opsets[0] = &t->opset;

	t->meta = (Onnx__StringStringEntryProto)ONNX__STRING_STRING_ENTRY_PROTO__INIT;
	t->meta.key = "made_by";
	t->meta.value = "test_onnxproto";
	t->metas[0] = &t->meta;

	t->model = (Onnx__ModelProto)ONNX__MODEL_PROTO__INIT;
	t->model.has_ir_version = 1;
	t->model.ir_version = ONNX__VERSION__IR_VERSION_2021_7_30; /* 8: opset 18 */
	t->model.n_opset_import = 1;
	t->model.opset_import = t->opsets;
	t->model.producer_name = "yobx-export";
	t->model.producer_version = "test";
	t->model.graph = &t->graph;
	t->model.n_metadata_props = 1;
	t->model.metadata_props = t->metas;
	return &t->model;
}

/* A ProtobufCBuffer that streams into a FILE, as the real writer does. */
typedef struct {
	ProtobufCBuffer base;
	FILE *f;
	int failed;
} FileBuffer;

static void
file_buffer_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	FileBuffer *fb = (FileBuffer *)b;
	if (fwrite(data, 1, len, fb->f) != len)
		fb->failed = 1;
}

static void
mkdir_ok(const char *path)
{
	ck_assert_msg(mkdir(path, 0777) == 0 || errno == EEXIST, "mkdir %s: %s", path,
		      strerror(errno));
}

static void
check_shape_2_batch(const Onnx__ValueInfoProto *v, const char *name)
{
	ck_assert_str_eq(v->name, name);
	ck_assert_ptr_nonnull(v->type);
	ck_assert_int_eq(v->type->value_case, ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE);
	const Onnx__TypeProto__Tensor *tt = v->type->tensor_type;
	ck_assert(tt->has_elem_type);
	ck_assert_int_eq(tt->elem_type, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
	ck_assert_ptr_nonnull(tt->shape);
	ck_assert_uint_eq(tt->shape->n_dim, 2);
	ck_assert_int_eq(tt->shape->dim[0]->value_case,
			 ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE);
	ck_assert_int_eq(tt->shape->dim[0]->dim_value, 2);
	ck_assert_int_eq(tt->shape->dim[1]->value_case,
			 ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM);
	ck_assert_str_eq(tt->shape->dim[1]->dim_param, "batch");
}

START_TEST(model_round_trip)
{
	TinyAdd t;
	Onnx__ModelProto *m = tiny_add_build(&t);

	size_t size = protobuf_c_message_get_packed_size(&m->base);
	uint8_t *buf = malloc(size);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(protobuf_c_message_pack(&m->base, buf), size);

	Onnx__ModelProto *u = onnx__model_proto__unpack(NULL, size, buf);
	ck_assert_ptr_nonnull(u);
	ck_assert(u->has_ir_version);
	ck_assert_int_eq(u->ir_version, 8);
	ck_assert_uint_eq(u->n_opset_import, 1);
	ck_assert_str_eq(u->opset_import[0]->domain, "");
	ck_assert_int_eq(u->opset_import[0]->version, 18);
	ck_assert_str_eq(u->producer_name, "yobx-export");
	ck_assert_str_eq(u->producer_version, "test");
	ck_assert_uint_eq(u->n_metadata_props, 1);
	ck_assert_str_eq(u->metadata_props[0]->key, "made_by");
	ck_assert_str_eq(u->metadata_props[0]->value, "test_onnxproto");
	ck_assert(!u->has_model_version);
	ck_assert_uint_eq(u->n_functions, 0);

	const Onnx__GraphProto *g = u->graph;
	ck_assert_ptr_nonnull(g);
	ck_assert_str_eq(g->name, "tiny_add");
	ck_assert_uint_eq(g->n_input, 1);
	ck_assert_uint_eq(g->n_output, 1);
	check_shape_2_batch(g->input[0], "X");
	check_shape_2_batch(g->output[0], "Y");

	ck_assert_uint_eq(g->n_initializer, 1);
	const Onnx__TensorProto *w = g->initializer[0];
	ck_assert_str_eq(w->name, "W");
	ck_assert_int_eq(w->data_type, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
	ck_assert_uint_eq(w->n_dims, 2);
	ck_assert_int_eq(w->dims[0], 2);
	ck_assert_int_eq(w->dims[1], 1);
	ck_assert(w->has_raw_data);
	ck_assert_uint_eq(w->raw_data.len, sizeof W_VALUES);
	ck_assert_mem_eq(w->raw_data.data, W_VALUES, sizeof W_VALUES);
	ck_assert_uint_eq(w->n_float_data, 0);
	ck_assert(!w->has_data_location);

	ck_assert_uint_eq(g->n_node, 1);
	const Onnx__NodeProto *n = g->node[0];
	ck_assert_str_eq(n->name, "add_0");
	ck_assert_str_eq(n->op_type, "Add");
	ck_assert_ptr_null(n->domain);
	ck_assert_uint_eq(n->n_input, 2);
	ck_assert_str_eq(n->input[0], "X");
	ck_assert_str_eq(n->input[1], "W");
	ck_assert_uint_eq(n->n_output, 1);
	ck_assert_str_eq(n->output[0], "Y");
	ck_assert_uint_eq(n->n_attribute, 0);

	/* Packing the unpacked copy gives the same bytes: nothing was lost. */
	ck_assert_uint_eq(protobuf_c_message_get_packed_size(&u->base), size);
	uint8_t *again = malloc(size);
	ck_assert_ptr_nonnull(again);
	protobuf_c_message_pack(&u->base, again);
	ck_assert_mem_eq(again, buf, size);

	free(again);
	onnx__model_proto__free_unpacked(u, NULL);
	free(buf);
}
END_TEST

/* Streams the model to build/test/tiny_add.onnx through a ProtobufCBuffer and
 * checks the file holds exactly the bytes protobuf_c_message_pack makes. */
START_TEST(model_written_to_file)
{
	TinyAdd t;
	Onnx__ModelProto *m = tiny_add_build(&t);

	mkdir_ok("build");
	mkdir_ok("build/test");
	FileBuffer fb = {{NULL}, NULL, 0};
	fb.base.append = file_buffer_append;
	fb.f = fopen(TINY_ADD_PATH, "wb");
	ck_assert_msg(fb.f != NULL, "%s: %s", TINY_ADD_PATH, strerror(errno));
	size_t size = protobuf_c_message_pack_to_buffer(&m->base, &fb.base);
	ck_assert_int_eq(fclose(fb.f), 0);
	ck_assert(!fb.failed);

	FILE *f = fopen(TINY_ADD_PATH, "rb");
	ck_assert_ptr_nonnull(f);
	uint8_t *got = malloc(size + 1), *want = malloc(size);
	ck_assert_uint_eq(fread(got, 1, size + 1, f), size);
	fclose(f);
	protobuf_c_message_pack(&m->base, want);
	ck_assert_mem_eq(got, want, size);
	free(got);
	free(want);
}
END_TEST

/* The official schema packs TensorProto's typed arrays but not dims, nor
 * AttributeProto.ints/floats. A reader built from that schema accepts both
 * forms, but writing the same form keeps our files byte-comparable with
 * the onnx package's. */
START_TEST(wire_format_packing)
{
	uint8_t buf[64];
	int64_t dims[2] = {2, 3};
	float data[1] = {1.0f};
	Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
	tp.n_dims = 2;
	tp.dims = dims;
	tp.n_float_data = 1;
	tp.float_data = data;
	/* dims: field 1 varint, once per element; float_data: field 4
	 * length-delimited, 4 bytes of 1.0f. */
	static const uint8_t tensor_want[] = {0x08, 0x02, 0x08, 0x03, 0x22, 0x04,
					      0x00, 0x00, 0x80, 0x3f};
	ck_assert_uint_eq(protobuf_c_message_pack(&tp.base, buf), sizeof tensor_want);
	ck_assert_mem_eq(buf, tensor_want, sizeof tensor_want);

	int64_t ints[2] = {0, 1};
	Onnx__AttributeProto ap = ONNX__ATTRIBUTE_PROTO__INIT;
	ap.name = "axes";
	ap.has_type = 1;
	ap.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
	ap.n_ints = 2;
	ap.ints = ints;
	/* name (1), ints (8) one varint each, type (20: two-byte tag). */
	static const uint8_t attr_want[] = {0x0a, 0x04, 'a', 'x', 'e', 's', 0x40, 0x00,
					    0x40, 0x01, 0xa0, 0x01, 0x07};
	ck_assert_uint_eq(protobuf_c_message_pack(&ap.base, buf), sizeof attr_want);
	ck_assert_mem_eq(buf, attr_want, sizeof attr_want);
}
END_TEST

START_TEST(enum_values)
{
	/* Spot checks against the numbers the format fixes. */
	ck_assert_int_eq(ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1);
	ck_assert_int_eq(ONNX__TENSOR_PROTO__DATA_TYPE__INT64, 7);
	ck_assert_int_eq(ONNX__TENSOR_PROTO__DATA_TYPE__BOOL, 9);
	ck_assert_int_eq(ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16, 10);
	ck_assert_int_eq(ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16, 16);
	ck_assert_int_eq(ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT8E5M2FNUZ, 20);
	ck_assert_int_eq(ONNX__TENSOR_PROTO__DATA_TYPE__INT4, 22);
	ck_assert_int_eq(ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT8E8M0, 24);
	ck_assert_int_eq(ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS, 10);
	ck_assert_int_eq(ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO, 13);
	ck_assert_int_eq(ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL, 1);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("onnxproto");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, model_round_trip);
	tcase_add_test(tc, model_written_to_file);
	tcase_add_test(tc, wire_format_packing);
	tcase_add_test(tc, enum_values);
	suite_add_tcase(s, tc);
	return s;
}
