/* test_custom.c: custom operators (the `custom_ops` option, lib/lower/custom.c,
 * ops/custom_ops.def).
 *
 * The option's two forms as parsed, and its errors, each at the line:col of
 * the node at fault; the custom-domain fixture converted and its written
 * ONNX file read back (domain, op type, attributes, opset imports, the
 * outputs' value_info kept by the optimizer, the report's row); the
 * errors only the node can show (an argument it lacks), the message of an
 * unmapped custom op, and torch.onnx's ops below their opset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/pipeline.h"
#include "read/read.h"
#include "opt/opt.h"
#include "diagtext.h"
#include "optparse.h"
#include "testutil.h"

START_TEST(test_parse_domain_form)
{
	Options o;
	char *msg;
	const CustomOp *m;
	const CustomNode *cn;

	ck_assert_int_eq(parse("custom_ops:\n"
	                       "  torch.ops.mylib.scaled_tanh.default:\n"
	                       "    domain: com.example\n"
	                       "    version: 3\n"
	                       "    op_type: ScaledTanh\n"
	                       "    inputs: [x, bias?, 2.5]\n"
	                       "    attributes: {alpha: alpha, mode: \"fast\", k: 3, f: 0.5, axes: [0, 1],"
	                       " ws: [1, 2.5], names: ['a', \"b\"]}\n", &o, &msg), 0);
	ck_assert_str_eq(msg, "");
	ck_assert_int_eq(o.ncustom_op, 1);
	m = &o.custom_ops[0];
	ck_assert_str_eq(m->target, "mylib.scaled_tanh.default");
	ck_assert_int_eq(m->expanded, 0);
	ck_assert_int_eq(m->version, 3);
	ck_assert_int_eq(m->nnode, 1);
	ck_assert_uint_eq(m->line, 2);
	ck_assert_uint_eq(m->col, 3);
	cn = &m->nodes[0];
	ck_assert_str_eq(cn->domain, "com.example");
	ck_assert_str_eq(cn->op_type, "ScaledTanh");
	ck_assert_int_eq(cn->nin, 3);
	ck_assert_int_eq(cn->in[0].lit, CUSTOM_REF);
	ck_assert_str_eq(cn->in[0].name, "x");
	ck_assert_int_eq(cn->in[0].optional, 0);
	ck_assert_str_eq(cn->in[1].name, "bias");
	ck_assert_int_eq(cn->in[1].optional, 1);
	ck_assert_uint_eq(cn->in[1].line, 6);
	ck_assert_uint_eq(cn->in[1].col, 17);
	ck_assert_int_eq(cn->in[2].lit, CUSTOM_FLOAT);
	ck_assert_double_eq(cn->in[2].f[0], 2.5);
	ck_assert_int_eq(cn->nattr, 7);
	ck_assert_int_eq(cn->attr[0].v.lit, CUSTOM_REF);
	ck_assert_int_eq(cn->attr[1].v.lit, CUSTOM_STRING);
	ck_assert_str_eq(cn->attr[1].v.s[0], "fast");
	ck_assert_int_eq(cn->attr[2].v.lit, CUSTOM_INT);
	ck_assert_int_eq(cn->attr[2].v.i[0], 3);
	ck_assert_int_eq(cn->attr[3].v.lit, CUSTOM_FLOAT);
	ck_assert_int_eq(cn->attr[4].v.lit, CUSTOM_INTS);
	ck_assert_int_eq(cn->attr[4].v.n, 2);
	ck_assert_int_eq(cn->attr[4].v.i[1], 1);
	ck_assert_int_eq(cn->attr[5].v.lit, CUSTOM_FLOATS);
	ck_assert_double_eq(cn->attr[5].v.f[1], 2.5);
	ck_assert_int_eq(cn->attr[6].v.lit, CUSTOM_STRINGS);
	ck_assert_str_eq(cn->attr[6].v.s[1], "b");
	/* handed down to the lowering as they are */
	{
		LowerOptions lo;
		options_lower(&o, &lo);
		ck_assert_ptr_eq(lower_custom_find(&lo, "mylib.scaled_tanh.default"), m);
		ck_assert_ptr_null(lower_custom_find(&lo, "mylib.other.default"));
		ck_assert_str_eq(lower_custom_form(&lo, "mylib.scaled_tanh.default"), "domain node");
		ck_assert_str_eq(lower_custom_form(&lo, "onnx.Attention.opset23"), "built-in");
		ck_assert_ptr_null(lower_custom_form(&lo, "aten.relu.default"));
	}
	free(msg);
}
END_TEST

START_TEST(test_parse_nodes_form)
{
	Options o;
	char *msg;
	const CustomOp *m;

	ck_assert_int_eq(parse("opset: 20\n"
	                       "custom_ops:\n"
	                       "  mylib.fused_gelu.default:\n"
	                       "    nodes:\n"
	                       "      - {op_type: Mul, inputs: [x, 0.7978845608], outputs: [a]}\n"
	                       "      - {op_type: Tanh, inputs: [a], outputs: [t]}\n"
	                       "      - {op_type: Gelu, inputs: [t], outputs: [y], attributes: {approximate: \"tanh\"}}\n"
	                       "    outputs: [y, x]\n", &o, &msg), 0);
	ck_assert_str_eq(msg, "");
	m = &o.custom_ops[0];
	ck_assert_int_eq(m->expanded, 1);
	ck_assert_int_eq(m->nnode, 3);
	ck_assert_str_eq(m->nodes[0].domain, "");
	ck_assert_int_eq(m->nodes[0].in[1].lit, CUSTOM_FLOAT);
	ck_assert_int_eq(m->nodes[0].nout, 1);
	ck_assert_str_eq(m->nodes[0].out[0], "a");
	ck_assert_int_eq(m->nodes[2].nattr, 1);
	ck_assert_int_eq(m->nresult, 2);
	ck_assert_str_eq(m->results[1].name, "x");
	free(msg);
}
END_TEST

START_TEST(test_parse_errors)
{
	expect_error("custom_ops: [a]\n", "options.yaml:1:13: 'custom_ops' needs a mapping");
	expect_error("custom_ops:\n  scaled_tanh: {domain: d, op_type: T}\n",
	             "options.yaml:2:3: 'custom_ops' keys are targets namespace.op.overload");
	expect_error("custom_ops:\n  aten.relu.default: {domain: d, op_type: T}\n",
	             "options.yaml:2:3: custom_ops: 'aten.relu.default' has a lowering of its own");
	expect_error("custom_ops:\n  m.f.default: {domain: d, op_type: T, input: [x]}\n",
	             "options.yaml:2:40: custom_ops: 'm.f.default': unknown key 'input' (expected domain, op_type, "
	             "version, inputs, attributes)");
	expect_error("custom_ops:\n  m.f.default: {domain: d}\n",
	             "options.yaml:2:16: custom_ops: 'm.f.default' needs `domain:` and `op_type:`");
	expect_error("custom_ops:\n  m.f.default: {domain: ai.onnx, op_type: Relu}\n",
	             "options.yaml:2:25: domain 'ai.onnx' is the standard one");
	expect_error("custom_ops:\n  m.f.default: {domain: d, op_type: T, version: 0}\n",
	             "options.yaml:2:49: 'version' needs an integer >= 1, got '0'");
	expect_error("custom_ops:\n  m.f.default: {domain: d, op_type: T, inputs: [\"x\"]}\n",
	             "options.yaml:2:49: a string cannot be an input");
	expect_error("custom_ops:\n  m.f.default: {domain: d, op_type: T, inputs: [x-y]}\n",
	             "options.yaml:2:49: an input: 'x-y' is not a name");
	expect_error("custom_ops:\n  m.f.default: {domain: d, op_type: T, attributes: [a]}\n",
	             "options.yaml:2:52: 'attributes' needs a mapping");
	expect_error("custom_ops:\n  m.f.default: {domain: d, op_type: T}\n  m.g.default: {domain: d, op_type: U, version: 2}\n",
	             "options.yaml:3:16: custom_ops: 'm.g.default': domain 'd' at version 2, but 'm.f.default' gives it version 1");
	expect_error("custom_ops:\n  m.f.default: {domain: d, op_type: T}\n  m.f.default: {domain: d, op_type: T}\n",
	             "options.yaml:3:3: custom_ops: 'm.f.default' is given twice");
	/* the nodes form */
	expect_error("custom_ops:\n  m.f.default:\n    nodes: [{op_type: Relu, inputs: [x], outputs: [y]}]\n",
	             "options.yaml:3:5: custom_ops: 'm.f.default': `nodes:` needs `outputs:`");
	expect_error("custom_ops:\n  m.f.default:\n    nodes: [{op_type: Relu, inputs: [x], outputs: [y]}]\n"
	             "    outputs: [y]\n    domain: d\n",
	             "options.yaml:5:5: custom_ops: 'm.f.default': unknown key 'domain' (expected nodes, outputs)");
	expect_error("custom_ops:\n  m.f.default:\n    nodes: [{op_type: Relu, inputs: [x], outputz: [y]}]\n    outputs: [y]\n",
	             "options.yaml:3:42: custom_ops: 'm.f.default': node 0: unknown key 'outputz'");
	expect_error("custom_ops:\n  m.f.default:\n    nodes:\n      - {op_type: Relu, inputs: [t], outputs: [y]}\n"
	             "      - {op_type: Tanh, inputs: [x], outputs: [t]}\n    outputs: [y]\n",
	             "options.yaml:4:34: custom_ops: 'm.f.default': node 0 uses 't' before node 1 defines it");
	expect_error("custom_ops:\n  m.f.default:\n    nodes:\n      - {op_type: Relu, inputs: [x], outputs: [y]}\n"
	             "      - {op_type: Tanh, inputs: [y], outputs: [y]}\n    outputs: [y]\n",
	             "options.yaml:5:48: custom_ops: 'm.f.default': node 1: 'y' is defined twice (node 0 defines it already)");
	expect_error("custom_ops:\n  m.f.default:\n    nodes: [{op_type: Relu, inputs: [x], outputs: [y?]}]\n    outputs: [y]\n",
	             "options.yaml:3:52: an output cannot be optional");
	expect_error("custom_ops:\n  m.f.default:\n    nodes: [{op_type: Relu, inputs: [x], outputs: [2]}]\n    outputs: [y]\n",
	             "options.yaml:3:52: an output must be a name, got the number 2");
	/* op types: known to lib/onnx/onnxops.def at the target opset, whatever the key order */
	expect_error("custom_ops:\n  m.f.default:\n    nodes: [{op_type: Frobnicate, inputs: [x], outputs: [y]}]\n    outputs: [y]\n",
	             "options.yaml:3:23: custom_ops: 'm.f.default': 'Frobnicate' is not an ai.onnx operator the converter "
	             "knows (lib/onnx/onnxops.def)");
	expect_error("custom_ops:\n  m.f.default:\n    nodes: [{op_type: Gelu, inputs: [x], outputs: [y]}]\n    outputs: [y]\n"
	             "opset: 18\n",
	             "options.yaml:3:23: custom_ops: 'm.f.default': ONNX's Gelu exists from opset 20; the target is opset 18");
}
END_TEST

/* Converts the fixture with its own options into dir/m.onnx; returns the
 * written model (unpacked; the caller frees it) or NULL. */
static Onnx__ModelProto *
convert(const char *fixture, const char *dir, Pipeline *pl, Diag *d)
{
	char *bytes;
	size_t len;
	Onnx__ModelProto *m;

	pl->input = arena_printf(&a, "test/models/%s.pt2", fixture);
	pl->options = arena_printf(&a, "test/models/%s.io/options.yaml", fixture);
	pl->out = arena_printf(&a, "%s/m.onnx", dir);
	pipeline_init(pl, &a);
	if (pipeline_run(pl, d))
		return NULL;
	pipeline_close(pl);
	bytes = test_slurp(pl->out, &len);
	ck_assert_ptr_nonnull(bytes);
	m = onnx__model_proto__unpack(NULL, len, (const uint8_t *)bytes);
	free(bytes);
	return m;
}

static const Onnx__AttributeProto *
attr(const OnnxNode *n, const char *name)
{
	for (size_t i = 0; i < n->n_attribute; i++)
		if (strcmp(n->attribute[i]->name, name) == 0)
			return n->attribute[i];
	return NULL;
}

static void
check_domain_model(const char *fixture)
{
	char dir[] = "/tmp/test_custom.XXXXXX";
	Pipeline pl = {0};
	Diag d = {0};
	Onnx__ModelProto *m;
	const OnnxNode *nodes[2];
	int k = 0, found = 0, vi = 0;
	const char *row = NULL;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	m = convert(fixture, dir, &pl, &d);
	ck_assert_msg(m != NULL, "%s: %s", fixture, test_diag_text(&d));
	/* the custom domain is imported at the entry's version, beside ai.onnx */
	ck_assert_uint_eq(m->n_opset_import, 2);
	ck_assert_str_eq(m->opset_import[0]->domain, "");
	ck_assert_int_eq(m->opset_import[0]->version, 18);
	ck_assert_str_eq(m->opset_import[1]->domain, "com.example");
	ck_assert_int_eq(m->opset_import[1]->version, 2);
	for (size_t i = 0; i < m->graph->n_node; i++)
		if (strcmp(m->graph->node[i]->op_type, "ScaledTanh") == 0) {
			ck_assert_int_lt(k, 2);
			nodes[k++] = m->graph->node[i];
		}
	ck_assert_int_eq(k, 2);             /* two calls, never merged */
	for (int j = 0; j < 2; j++) {
		const OnnxNode *n = nodes[j];
		const Onnx__AttributeProto *mode = attr(n, "mode"), *axes = attr(n, "axes"), *gamma = attr(n, "gamma");
		ck_assert_str_eq(n->domain, "com.example");
		ck_assert_ptr_nonnull(mode);
		ck_assert_int_eq(mode->type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
		ck_assert_int_eq((int)mode->s.len, 4);
		ck_assert_int_eq(memcmp(mode->s.data, "fast", 4), 0);
		ck_assert_ptr_nonnull(axes);
		ck_assert_uint_eq(axes->n_ints, 2);
		ck_assert_int_eq(axes->ints[1], 1);
		ck_assert_ptr_nonnull(gamma);
		ck_assert_float_eq(gamma->f, 1.5f);
		for (size_t v = 0; v < m->graph->n_value_info; v++)
			vi += strcmp(m->graph->value_info[v]->name, n->output[0]) == 0 &&
			      m->graph->value_info[v]->type->tensor_type->elem_type == ONNX_FLOAT &&
			      m->graph->value_info[v]->type->tensor_type->shape->n_dim == 2;
	}
	/* the first call gives alpha and bias; the second leaves both at their default */
	ck_assert_uint_eq(nodes[0]->n_input, 2);
	ck_assert_ptr_nonnull(attr(nodes[0], "alpha"));
	ck_assert_float_eq(attr(nodes[0], "alpha")->f, 0.5f);
	ck_assert_uint_eq(nodes[1]->n_input, 1);
	ck_assert_ptr_null(attr(nodes[1], "alpha"));
	ck_assert_str_eq(nodes[1]->input[0], nodes[0]->output[0]);
	/* the first call's output has a value_info from the .pt2 (the second's is a graph output) */
	ck_assert_int_ge(vi, 1);
	for (int i = 0; i < pl.report.nkv; i++)
		if (strcmp(pl.report.kv[i].key, "custom_op:yobx.scaled_tanh.default") == 0)
			row = pl.report.kv[i].text, found++;
	ck_assert_int_eq(found, 1);
	ck_assert_str_eq(row, "domain node, 2 nodes");
	onnx__model_proto__free_unpacked(m, NULL);
	unlink(pl.out);
	unlink(pl.report_path);
	rmdir(dir);
	diag_free(&d);
}

START_TEST(test_domain_node_written)
{
	check_domain_model("torch-2.14/op_custom_domain");
	check_domain_model("torch-2.6/op_custom_domain");
}
END_TEST

/* Lowers a fixture with the options text; returns the code, the message in *msg. */
static int
lower_with(const char *fixture, const char *text, char **msg)
{
	Program p = {0};
	Options o;
	Diag d = {0};
	Onnx__ModelProto *m = NULL;
	int rc;

	options_default(&o);
	p.arena = &a;
	rc = options_parse(&o, &a, "opts.yaml", text, strlen(text), &d);
	if (!rc)
		rc = pt2_load(&p, fixture, &d);
	if (!rc)
		rc = lower_program(&p, options_lower(&o, &(LowerOptions){0}), &a, &m, &d);
	*msg = strdup(test_diag_text(&d) ? test_diag_text(&d) : "");
	diag_free(&d);
	return rc;
}

START_TEST(test_lowering_errors)
{
	const char *f = "test/models/torch-2.14/op_custom_domain.pt2";
	char *msg;

	/* an argument the node does not have, at its line:col, with the node's arguments */
	ck_assert_int_eq(lower_with(f, "custom_ops:\n  yobx.scaled_tanh.default:\n    domain: d\n    op_type: T\n"
	                            "    inputs: [x, bias]\n", &msg), DIAG_INPUT);
	ck_assert_msg(strstr(msg, "opts.yaml:5:17: custom_ops: node 'scaled_tanh_1' (yobx.scaled_tanh.default): the "
	                          "node has no argument 'bias' (its arguments: x: Tensor float32[2,4]); write 'bias?'"),
	              "%s", msg);
	free(msg);
	ck_assert_int_eq(lower_with(f, "custom_ops:\n  yobx.scaled_tanh.default:\n    domain: d\n    op_type: T\n"
	                            "    attributes: {a: alfa}\n", &msg), DIAG_INPUT);
	ck_assert_msg(strstr(msg, "opts.yaml:5:21: custom_ops: node 'scaled_tanh' (yobx.scaled_tanh.default): the node "
	                          "has no argument 'alfa' (its arguments: x: Tensor float32[2,4], alpha: float = 0.5, "
	                          "bias: Tensor float32[4])"), "%s", msg);
	free(msg);
	ck_assert_int_eq(lower_with(f, "custom_ops:\n  yobx.scaled_tanh.default:\n    nodes: [{op_type: Tanh, inputs: [x], "
	                            "outputs: [y]}]\n    outputs: [y, y]\n", &msg), DIAG_INPUT);
	ck_assert_msg(strstr(msg, "opts.yaml:2:3: custom_ops: node 'scaled_tanh' (yobx.scaled_tanh.default): the node "
	                          "has 1 output but `outputs` lists 2"), "%s", msg);
	free(msg);
	ck_assert_int_eq(lower_with(f, "custom_ops:\n  yobx.scaled_tanh.default:\n    domain: d\n    op_type: T\n"
	                            "    attributes: {b: bias?}\n", &msg), DIAG_INPUT);
	ck_assert_msg(strstr(msg, "argument 'bias' is a Tensor float32[4]; an attribute needs a constant"), "%s", msg);
	free(msg);
}
END_TEST

START_TEST(test_unmapped)
{
	char *msg;

	ck_assert_int_eq(lower_with("test/models/torch-2.14/op_custom_domain.pt2", "", &msg), DIAG_CONVERT);
	ck_assert_msg(strstr(msg, "node 'scaled_tanh' (yobx.scaled_tanh.default): custom operator with no `custom_ops` "
	                          "entry; its arguments: x: Tensor float32[2,4], alpha: float = 0.5, bias: Tensor "
	                          "float32[4].") != NULL, "%s", msg);
	ck_assert_msg(strstr(msg, "custom_ops:\n  yobx.scaled_tanh.default:\n    domain: yobx\n    op_type: ScaledTanh\n"
	                          "    inputs: [x, bias]\n    attributes: {alpha: alpha}\n") != NULL, "%s", msg);
	free(msg);
}
END_TEST

START_TEST(test_builtin_opsets)
{
	char *msg;

	/* onnx.*.opset23 needs opset 23 */
	ck_assert_int_eq(lower_with("test/models/torch-2.14/op_custom_onnx23.pt2", "opset: 22\n", &msg), DIAG_CONVERT);
	ck_assert_msg(strstr(msg, "(onnx.RotaryEmbedding.opset23) at ") == NULL &&
	              strstr(msg, "(onnx.RotaryEmbedding.opset23): needs `opset: 23` or later (the target is opset 22)"),
	              "%s", msg);
	free(msg);
	ck_assert_int_eq(lower_with("test/models/torch-2.14/op_custom_onnx23.pt2", "opset: 23\n", &msg), 0);
	free(msg);
	/* symbolic: every op it names exists at 17 */
	ck_assert_int_eq(lower_with("test/models/torch-2.14/op_custom_symbolic.pt2", "opset: 17\n", &msg), 0);
	ck_assert_str_eq(msg, "");
	free(msg);
}
END_TEST

/* Lowers text graph g (docs/text-graph.md) with options text; returns the
 * code, the model in *out (or NULL) and the message in *msg. */
static int
lower_text(const char *g, const char *text, Onnx__ModelProto **out, char **msg)
{
	Program p = {0};
	Options o;
	Diag d = {0};
	int rc;

	*out = NULL;
	options_default(&o);
	p.arena = &a;
	rc = options_parse(&o, &a, "opts.yaml", text, strlen(text), &d);
	if (!rc)
		rc = irtext_parse(&p, "g.txt", g, strlen(g), &d);
	if (!rc)
		rc = lower_program(&p, options_lower(&o, &(LowerOptions){0}), &a, out, &d);
	if (!rc)
		rc = opt_model(*out, &a, NULL, NULL, NULL, &d);
	*msg = strdup(test_diag_text(&d) ? test_diag_text(&d) : "");
	diag_free(&d);
	return rc;
}

#define SYM(name, in, op, attrs, dom, ver) \
	"  " name ": float32[2,3] = onnx_symbolic._symbolic.default(inputs=[" in "], op_type='" op "', " \
	"onnx_dtype=1, shape=[2, 3], " attrs ", metadata_props_keys=[], metadata_props_values=[]" dom ver ")\n"
#define NO_ATTRS "attr_keys=[], attr_types=[], attr_pos=[], attr_ints=[], attr_floats=[], attr_strs=[]"

START_TEST(test_symbolic_domains)
{
	Onnx__ModelProto *m;
	char *msg;
	const OnnxNode *n;

	/* a custom domain: imported once at its version; every attribute kind; None inputs */
	ck_assert_int_eq(lower_text("graph main(x: float32[2,3]) {\n"
	                            SYM("a", "None, x", "Fancy", "attr_keys=['k', 'names', 'ws', 'ks', 's'], "
	                                "attr_types=['i', 'ss', 'fs', 'is', 's'], attr_pos=[[0, 1], [0, 2], [0, 2], [1, 3], [2, 3]], "
	                                "attr_ints=[7, 1, 2], attr_floats=[1.5, 2.5], attr_strs=['p', 'q', 'r']",
	                                ", domain='com.acme'", ", version=3")
	                            SYM("b", "a", "Fancy", NO_ATTRS, ", domain='com.acme'", ", version=3")
	                            "  c: float32[2,3] = aten.add.Tensor(self=a, other=b)\n  return (c)\n}\n",
	                            "", &m, &msg), 0);
	ck_assert_str_eq(msg, "");
	ck_assert_uint_eq(m->n_opset_import, 2);
	ck_assert_str_eq(m->opset_import[1]->domain, "com.acme");
	ck_assert_int_eq(m->opset_import[1]->version, 3);
	n = m->graph->node[0];
	ck_assert_str_eq(n->op_type, "Fancy");
	ck_assert_str_eq(n->domain, "com.acme");
	ck_assert_uint_eq(n->n_input, 2);
	ck_assert_str_eq(n->input[0], "");
	ck_assert_uint_eq(n->n_attribute, 5);
	ck_assert_int_eq(n->attribute[0]->i, 7);
	ck_assert_int_eq(n->attribute[1]->type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS);
	ck_assert_uint_eq(n->attribute[1]->n_strings, 2);
	ck_assert_int_eq(n->attribute[1]->strings[1].data[0], 'q');
	ck_assert_uint_eq(n->attribute[2]->n_floats, 2);
	ck_assert_float_eq(n->attribute[2]->floats[1], 2.5f);
	ck_assert_uint_eq(n->attribute[3]->n_ints, 2);
	ck_assert_int_eq(n->attribute[3]->ints[1], 2);
	ck_assert_int_eq(n->attribute[4]->s.data[0], 'r');
	/* the optimizer keeps both custom nodes (no CSE of a kernel it does not know) */
	ck_assert_uint_eq(m->graph->n_node, 3);
	free(msg);

	/* two versions of one domain */
	ck_assert_int_eq(lower_text("graph main(x: float32[2,3]) {\n"
	                            SYM("a", "x", "Fancy", NO_ATTRS, ", domain='com.acme'", ", version=3")
	                            SYM("b", "a", "Fancy", NO_ATTRS, ", domain='com.acme'", ", version=4")
	                            "  return (b)\n}\n", "", &m, &msg), DIAG_CONVERT);
	ck_assert_msg(strstr(msg, "node 'b' (onnx_symbolic._symbolic.default): domain 'com.acme' at version 4, but an "
	                          "earlier node imports it at version 3"), "%s", msg);
	free(msg);
	/* ai.onnx: the version and the op must fit the target opset */
	ck_assert_int_eq(lower_text("graph main(x: float32[2,3]) {\n"
	                            SYM("a", "x", "Gelu", NO_ATTRS, "", ", version=20")
	                            "  return (a)\n}\n", "", &m, &msg), DIAG_CONVERT);
	ck_assert_msg(strstr(msg, "ONNX's Gelu is written for opset 20: needs `opset: 20` or later (the target is opset 18)"),
	              "%s", msg);
	free(msg);
	ck_assert_int_eq(lower_text("graph main(x: float32[2,3]) {\n"
	                            SYM("a", "x", "Gelu", NO_ATTRS, "", "")
	                            "  return (a)\n}\n", "", &m, &msg), DIAG_CONVERT);
	ck_assert_msg(strstr(msg, "ONNX's Gelu exists from opset 20: needs `opset: 20` or later"), "%s", msg);
	free(msg);
	ck_assert_int_eq(lower_text("graph main(x: float32[2,3]) {\n"
	                            SYM("a", "x", "Gelu", NO_ATTRS, ", domain='ai.onnx'", ", version=20")
	                            "  return (a)\n}\n", "opset: 20\n", &m, &msg), 0);
	ck_assert_uint_eq(m->n_opset_import, 1);
	ck_assert_str_eq(m->graph->node[0]->op_type, "Gelu");
	free(msg);
}
END_TEST

/* A tensor list is a variadic input; an int argument an attribute. */
START_TEST(test_tensor_list_input)
{
	Onnx__ModelProto *m;
	char *msg;
	const OnnxNode *n = NULL;

	ck_assert_int_eq(lower_text("graph main(x: float32[2,3], y: float32[2,3]) {\n"
	                            "  c: float32[4,3] = mylib.cat.default(xs=[x, y], dim=0)\n"
	                            "  return (c)\n}\n",
	                            "custom_ops:\n  mylib.cat.default:\n    nodes: [{op_type: Concat, inputs: [xs], "
	                            "outputs: [y], attributes: {axis: dim}}]\n    outputs: [y]\n", &m, &msg), 0);
	ck_assert_str_eq(msg, "");
	for (size_t i = 0; i < m->graph->n_node; i++)
		if (strcmp(m->graph->node[i]->op_type, "Concat") == 0)
			n = m->graph->node[i];
	ck_assert_ptr_nonnull(n);
	ck_assert_uint_eq(n->n_input, 2);
	ck_assert_str_eq(n->input[0], "x");
	ck_assert_str_eq(n->input[1], "y");
	ck_assert_str_eq(n->attribute[0]->name, "axis");
	ck_assert_int_eq(n->attribute[0]->i, 0);
	free(msg);
}
END_TEST

/* The domain form of a two-output op, and the expansion's patterns. */
START_TEST(test_forms_on_fixture)
{
	Onnx__ModelProto *m;
	const char *f = "test/models/torch-2.14/op_custom_nodes.pt2";
	Program p = {0};
	Options o;
	Diag d = {0};
	int found = 0;
	const char *text = "custom_ops:\n"
	                   "  yobx.fused_gelu.default: {domain: com.example, op_type: FusedGelu}\n"
	                   "  yobx.scaled_pair.default: {domain: com.example, op_type: ScaledPair, inputs: [x, k]}\n";

	options_default(&o);
	p.arena = &a;
	ck_assert_int_eq(options_parse(&o, &a, "opts.yaml", text, strlen(text), &d), 0);
	ck_assert_int_eq(pt2_load(&p, f, &d), 0);
	ck_assert_int_eq(lower_program(&p, options_lower(&o, &(LowerOptions){0}), &a, &m, &d), 0);
	ck_assert_int_eq(opt_model(m, &a, NULL, NULL, NULL, &d), 0);
	for (size_t i = 0; i < m->graph->n_node; i++) {
		const OnnxNode *n = m->graph->node[i];
		if (strcmp(n->op_type, "ScaledPair") != 0)
			continue;
		found++;
		ck_assert_uint_eq(n->n_output, 2);
		ck_assert_uint_eq(n->n_input, 2);
		ck_assert_uint_eq(n->n_attribute, 0);
	}
	ck_assert_int_eq(found, 1);
	diag_free(&d);
}
END_TEST

/* Patterns run on an expansion: x + 0 goes (AddZero), the Relu stays. */
START_TEST(test_expansion_optimized)
{
	Program p = {0};
	Options o;
	Diag d = {0};
	Onnx__ModelProto *m;
	int from_gelu = 0, relu = 0;
	const char *text = "custom_ops:\n"
	                   "  yobx.fused_gelu.default:\n"
	                   "    nodes: [{op_type: Add, inputs: [x, 0], outputs: [a]}, {op_type: Relu, inputs: [a], outputs: [y]}]\n"
	                   "    outputs: [y]\n"
	                   "  yobx.scaled_pair.default: {nodes: [{op_type: Mul, inputs: [x, k], outputs: [p]}], outputs: [p, x]}\n";

	options_default(&o);
	p.arena = &a;
	ck_assert_int_eq(options_parse(&o, &a, "opts.yaml", text, strlen(text), &d), 0);
	ck_assert_int_eq(pt2_load(&p, "test/models/torch-2.14/op_custom_nodes.pt2", &d), 0);
	ck_assert_int_eq(lower_program(&p, options_lower(&o, &(LowerOptions){0}), &a, &m, &d), 0);
	for (size_t i = 0; i < m->graph->n_node; i++)
		from_gelu += strncmp(m->graph->node[i]->name, "fused_gelu", 10) == 0;
	ck_assert_int_eq(from_gelu, 2);
	ck_assert_int_eq(opt_model(m, &a, NULL, NULL, NULL, &d), 0);
	from_gelu = 0;
	for (size_t i = 0; i < m->graph->n_node; i++) {
		from_gelu += strncmp(m->graph->node[i]->name, "fused_gelu", 10) == 0;
		relu += strcmp(m->graph->node[i]->op_type, "Relu") == 0;
	}
	ck_assert_int_eq(from_gelu, 1);
	ck_assert_int_eq(relu, 1);
	ck_assert_msg(test_diag_text(&d) == NULL, "%s", test_diag_text(&d));
	diag_free(&d);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("custom");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_parse_domain_form);
	tcase_add_test(tc, test_parse_nodes_form);
	tcase_add_test(tc, test_parse_errors);
	tcase_add_test(tc, test_domain_node_written);
	tcase_add_test(tc, test_lowering_errors);
	tcase_add_test(tc, test_unmapped);
	tcase_add_test(tc, test_builtin_opsets);
	tcase_add_test(tc, test_symbolic_domains);
	tcase_add_test(tc, test_forms_on_fixture);
	tcase_add_test(tc, test_expansion_optimized);
	tcase_add_test(tc, test_tensor_list_input);
	suite_add_tcase(s, tc);
	return s;
}
