/* test_functions.c: modules as ONNX local functions (option `functions`,
 * lib/opt/outline.c) on the fixtures of test/models/families/functions.py:
 * how many FunctionProtos, their names and domains, the calls in the main
 * graph, weights as inputs or embedded, structural variants, function
 * attributes, nesting, the functions sheet's rows and the warnings and
 * option errors.  Numerical truth (onnxruntime against torch) and
 * onnx.checker come from test/run-ort.sh and test/checker/run.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/pipeline.h"
#include "diagtext.h"
#include "pipelinerun.h"
#include "testutil.h"

#define LLAMA "transformers.models.llama.modeling_llama"

/* Converts test/models/torch-2.14/NAME.pt2 with the options text. */
static void
run(Run *r, const char *name, const char *options)
{
	char path[256];

	snprintf(path, sizeof path, TEST_PATH("models/torch-2.14/%s.pt2"), name);
	test_run(r, path, options);
}

static void
done(Run *r)
{
	test_run_done(r);
}

static const Onnx__FunctionProto *
function(const Onnx__ModelProto *m, const char *name)
{
	for (size_t i = 0; i < m->n_functions; i++)
		if (strcmp(m->functions[i]->name, name) == 0)
			return m->functions[i];
	return NULL;
}

/* Nodes of op type op (in domain dom) among n nodes. */
static int
count_op(OnnxNode *const *nodes, size_t n, const char *dom, const char *op)
{
	int k = 0;

	for (size_t i = 0; i < n; i++)
		k += strcmp(nodes[i]->op_type, op) == 0 && strcmp(nodes[i]->domain ? nodes[i]->domain : "", dom) == 0;
	return k;
}

static int
imports(const Onnx__ModelProto *m, const char *dom)
{
	for (size_t i = 0; i < m->n_opset_import; i++)
		if (strcmp(m->opset_import[i]->domain, dom) == 0)
			return 1;
	return 0;
}

static int
is_init(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_initializer; i++)
		if (strcmp(g->initializer[i]->name, name) == 0)
			return 1;
	return 0;
}

static const OutlineFunction *
row(const Run *r, const char *name)
{
	const OutlineResult *f = r->pl.report.functions;

	for (int i = 0; f && i < f->nfunction; i++)
		if (strcmp(f->functions[i].name, name) == 0)
			return &f->functions[i];
	return NULL;
}

/* Two alike decoder layers: one FunctionProto, two calls, the weights
 * passed from the main graph; with and without the rewrites. */
static void
check_llama_shared(const char *name, const char *patterns)
{
	Run r;
	const Onnx__ModelProto *m;
	const Onnx__FunctionProto *f;
	const OutlineFunction *fr;
	int calls = 0;
	char opts[128];

	snprintf(opts, sizeof opts, "functions: [LlamaDecoderLayer]\npatterns: %s\nreport: false\n", patterns);
	run(&r, name, opts);
	ck_assert_msg(r.rc == 0, "%s", test_diag_text(&r.d));
	m = r.pl.model;
	ck_assert_int_eq(m->n_functions, 1);
	f = function(m, "LlamaDecoderLayer");
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->domain, LLAMA);
	ck_assert(imports(m, LLAMA));
	ck_assert_int_eq(count_op(m->graph->node, m->graph->n_node, LLAMA, "LlamaDecoderLayer"), 2);
	ck_assert_int_gt(f->n_node, 20);
	ck_assert_int_gt(f->n_value_info, 10);
	ck_assert_int_eq(f->n_attribute, 0);
	for (size_t i = 0; i < m->graph->n_node; i++) {
		const OnnxNode *n = m->graph->node[i];
		int weights = 0;
		if (strcmp(n->op_type, "LlamaDecoderLayer"))
			continue;
		calls++;
		ck_assert_int_eq(n->n_input, f->n_input);
		ck_assert_int_eq(n->n_output, f->n_output);
		for (size_t k = 0; k < n->n_input; k++)
			weights += is_init(m->graph, n->input[k]);
		ck_assert_int_ge(weights, 9);     /* 7 projections, 2 norms */
	}
	ck_assert_int_eq(calls, 2);
	fr = row(&r, "LlamaDecoderLayer");
	ck_assert_ptr_nonnull(fr);
	ck_assert_int_eq(fr->ninstance, 2);
	ck_assert_str_eq(fr->instances[0], "m.model.layers.0");
	ck_assert_str_eq(fr->instances[1], "m.model.layers.1");
	ck_assert_int_eq(fr->nodes, (int64_t)f->n_node);
	done(&r);
}

START_TEST(llama_layers_share_one_function)
{
	check_llama_shared("fn_llama", "default");
	check_llama_shared("fn_llama", "none");
	/* dynamic batch and sequence: constants made by the optimizer have their
	 * own names per layer, which the forms leave out */
	check_llama_shared("fn_llama_dyn", "default");
}
END_TEST

START_TEST(embedded_weights_one_function_per_layer)
{
	Run r, flat;
	const Onnx__ModelProto *m;
	int consts = 0;

	run(&r, "fn_llama_embedded", "functions: [" LLAMA ".LlamaDecoderLayer]\nfunction_weights: embedded\nreport: false\n");
	ck_assert_msg(r.rc == 0, "%s", test_diag_text(&r.d));
	m = r.pl.model;
	ck_assert_int_eq(m->n_functions, 2);
	ck_assert_ptr_nonnull(function(m, "LlamaDecoderLayer"));
	ck_assert_ptr_nonnull(function(m, "LlamaDecoderLayer.1"));
	for (size_t i = 0; i < m->graph->n_node; i++) {
		const OnnxNode *n = m->graph->node[i];
		if (strncmp(n->op_type, "LlamaDecoderLayer", 17))
			continue;
		ck_assert_int_eq(n->n_input, 4);   /* no weights (the rotary tables are folded in the main graph) */
	}
	for (size_t i = 0; i < m->n_functions; i++) {
		ck_assert_int_eq(m->functions[i]->n_input, 4);   /* hidden states, mask, cos, sin */
		consts += count_op(m->functions[i]->node, m->functions[i]->n_node, "", "Constant");
	}
	ck_assert_int_ge(consts, 2 * 9);
	ck_assert_int_eq(row(&r, "LlamaDecoderLayer")->ninstance, 1);
	/* the layers' weights left the main graph */
	run(&flat, "fn_llama_embedded", "report: false\n");
	ck_assert_int_eq(flat.rc, 0);
	ck_assert_int_le(m->graph->n_initializer + 18, flat.pl.model->graph->n_initializer);
	done(&flat);
	done(&r);
}
END_TEST

START_TEST(resnet_blocks_with_and_without_downsample)
{
	Run r;
	const Onnx__ModelProto *m;
	const OutlineFunction *a, *b;

	run(&r, "fn_resnet", "functions: [BasicBlock]\nreport: false\n");
	ck_assert_msg(r.rc == 0, "%s", test_diag_text(&r.d));
	m = r.pl.model;
	ck_assert_int_eq(m->n_functions, 2);
	a = row(&r, "BasicBlock");
	b = row(&r, "BasicBlock.1");
	ck_assert(a && b);
	ck_assert_str_eq(a->domain, "torchvision.models.resnet");
	ck_assert_int_eq(a->ninstance, 3);
	ck_assert_str_eq(a->instances[0], "layer1.0");
	ck_assert_str_eq(a->instances[1], "layer1.1");
	ck_assert_str_eq(a->instances[2], "layer2.1");
	ck_assert_int_eq(b->ninstance, 1);
	ck_assert_str_eq(b->instances[0], "layer2.0");
	/* BatchNorm folded into each Conv inside the bodies: Conv Relu Conv Add Relu */
	ck_assert_int_eq(a->nodes, 5);
	ck_assert_int_eq(count_op(function(m, "BasicBlock")->node, (size_t)a->nodes, "", "Conv"), 2);
	ck_assert_int_eq(count_op(function(m, "BasicBlock.1")->node, (size_t)b->nodes, "", "Conv"), 3);
	ck_assert_int_eq(count_op(m->graph->node, m->graph->n_node, "torchvision.models.resnet", "BasicBlock"), 3);
	ck_assert_int_eq(count_op(m->graph->node, m->graph->n_node, "torchvision.models.resnet", "BasicBlock.1"), 1);
	done(&r);
}
END_TEST

START_TEST(nested_convs_take_function_attributes)
{
	Run r;
	const Onnx__ModelProto *m;
	const Onnx__FunctionProto *conv, *block;
	int stem = 0, refs = 0;

	run(&r, "fn_resnet_nested", "functions: [BasicBlock, torch.nn.modules.conv.Conv2d]\nreport: false\n");
	ck_assert_msg(r.rc == 0, "%s", test_diag_text(&r.d));
	m = r.pl.model;
	conv = function(m, "Conv2d");
	block = function(m, "BasicBlock");
	ck_assert(conv && block);
	ck_assert_ptr_null(function(m, "Conv2d.1"));   /* 7x7/2, 3x3/1, 3x3/2, 1x1/2: one function */
	ck_assert_int_eq(row(&r, "Conv2d")->ninstance, 1 + 3 * 2 + 3);
	ck_assert_int_eq(conv->n_attribute, 3);
	ck_assert_int_eq(conv->n_node, 1);
	for (size_t i = 0; i < conv->node[0]->n_attribute; i++) {
		const Onnx__AttributeProto *at = conv->node[0]->attribute[i];
		int differs = strcmp(at->name, "kernel_shape") == 0 || strcmp(at->name, "pads") == 0 ||
		              strcmp(at->name, "strides") == 0;
		ck_assert_msg((at->ref_attr_name != NULL) == differs, "%s", at->name);
		refs += differs;
	}
	ck_assert_int_eq(refs, 3);
	ck_assert_int_eq(count_op(block->node, block->n_node, "torch.nn.modules.conv", "Conv2d"), 2);
	ck_assert(imports(m, "torch.nn.modules.conv"));
	for (size_t i = 0; i < m->graph->n_node; i++)
		if (strcmp(m->graph->node[i]->op_type, "Conv2d") == 0) {
			stem++;
			ck_assert_int_eq(m->graph->node[i]->n_attribute, 3);
		}
	ck_assert_int_eq(stem, 1);
	done(&r);
}
END_TEST

START_TEST(unknown_class_is_a_warning)
{
	Run r;

	run(&r, "fn_resnet", "functions: [BasicBlock, NoSuchBlock]\nreport: false\n");
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(r.d.n, 1);
	ck_assert_int_eq(r.d.items[0].code, YE_FUNCTION_CLASS_UNUSED);
	ck_assert(strstr(test_diag_text(&r.d), "'NoSuchBlock'"));
	ck_assert_int_eq(r.pl.report.functions->nunused, 1);
	ck_assert_int_eq(r.pl.model->n_functions, 2);
	done(&r);
	/* a .pt2 saved without nn_module_stack: no instances, said so */
	run(&r, "op_activations", "functions: [Linear]\nreport: false\n");
	ck_assert_int_eq(r.rc, 0);
	ck_assert(test_diag_text(&r.d) && strstr(test_diag_text(&r.d), "no nn_module_stack"));
	ck_assert_int_eq(r.pl.model->n_functions, 0);
	done(&r);
}
END_TEST

START_TEST(option_errors)
{
	static const struct {
		const char *yaml, *want;
	} bad[] = {
		{"functions: LlamaDecoderLayer\n", "options.yaml:1:12: 'functions' needs a list"},
		{"functions: [A, A]\n", "options.yaml:1:16: class 'A' is listed twice"},
		{"functions: ['a b']\n", "options.yaml:1:13: 'functions' items must be class names"},
		{"function_weights: both\n", "options.yaml:1:19: 'function_weights' needs inputs or embedded, got 'both'"},
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		Arena a;
		Options o;
		Diag d = {0};
		arena_init(&a);
		options_default(&o);
		ck_assert_int_eq(options_parse(&o, &a, "options.yaml", bad[i].yaml, strlen(bad[i].yaml), &d), DIAG_INPUT);
		ck_assert_msg(strstr(test_diag_text(&d), bad[i].want), "%s", test_diag_text(&d));
		diag_free(&d);
		arena_free(&a);
	}
}
END_TEST

/* A hand-made graph x -> a1 -> [b] -> a2 -> y where a1 and a2 are the
 * nodes of one instance of class M, b a node of no module: when b reads
 * from a1 and feeds a2 the instance stays inline (YE0702); when it reads x
 * only, b moves before the region and M becomes one function. */
static void
check_region(int b_reads_a1, int want_functions)
{
	Arena a;
	Diag d = {0};
	Node ir_m = {0}, ir_b = {0};
	StrMap *origin;
	OnnxGraph g = {0};
	Onnx__ModelProto *m;
	OutlineResult res;
	OptSelect *none;
	int off, len;
	const char *x = "x", *t1 = "t1", *u = "u", *y = "y";
	const char *const in_b[] = {b_reads_a1 ? t1 : x}, *const in_a2[] = {b_reads_a1 ? u : t1};
	const char *classes[] = {"M"};

	arena_init(&a);
	ir_m.nn_module_stack = "L__self__,,top.Top;L__self___m,m,pkg.mod.M";
	ir_b.nn_module_stack = "L__self__,,top.Top";
	origin = strmap_new(&a, 8);
	g.a = &a;
	g.name = "main_graph";
	onnx_vec_push(&a, &g.inputs, onnx_value_info(&a, x, ONNX_FLOAT, 1, (int64_t[]){4}, NULL));
	onnx_vec_push(&a, &g.nodes, onnx_node(&a, "Relu", "a1", 1, &x, 1, &t1));
	onnx_vec_push(&a, &g.nodes, onnx_node(&a, "Neg", "b", 1, in_b, 1, &u));
	onnx_vec_push(&a, &g.nodes, onnx_node(&a, "Relu", "a2", 1, in_a2, 1, &y));
	onnx_vec_push(&a, &g.outputs, onnx_value_info(&a, y, ONNX_FLOAT, 1, (int64_t[]){4}, NULL));
	if (!b_reads_a1)
		onnx_vec_push(&a, &g.outputs, onnx_value_info(&a, u, ONNX_FLOAT, 1, (int64_t[]){4}, NULL));
	strmap_put(origin, "a1", &ir_m);
	strmap_put(origin, "a2", &ir_m);
	strmap_put(origin, "b", &ir_b);
	m = onnx_model(&a, onnx_graph_finish(&g), 18, "test");
	ck_assert_int_eq(opt_select_parse(&a, "none", &none, &off, &len), 0);
	ck_assert_int_eq(opt_outline(m, &a, &(OutlineSpec){1, classes, 0, NULL, origin, none, NULL}, &res, &d), 0);
	ck_assert_int_eq((int)m->n_functions, want_functions);
	ck_assert_int_eq(res.nfunction, want_functions);
	if (want_functions) {
		ck_assert_int_eq(d.n, 0);
		ck_assert_int_eq(m->graph->n_node, 2);
		ck_assert_str_eq(m->graph->node[0]->name, "b");        /* moved before the region */
		ck_assert_str_eq(m->graph->node[1]->op_type, "M");
		ck_assert_str_eq(m->graph->node[1]->domain, "pkg.mod");
		ck_assert_int_eq(m->functions[0]->n_node, 2);
		ck_assert_int_eq(res.functions[0].ninstance, 1);
		ck_assert_str_eq(res.functions[0].instances[0], "m");
	} else {
		ck_assert_int_eq(d.n, 1);
		ck_assert_int_eq(d.items[0].code, YE_FUNCTION_NOT_OUTLINED);
		ck_assert(strstr(test_diag_text(&d), "module 'm' (pkg.mod.M) stays inline"));
		ck_assert_int_eq(m->graph->n_node, 3);
		ck_assert_int_eq(res.ninline, 1);
		ck_assert_str_eq(res.inlined[0], "m");
	}
	diag_free(&d);
	arena_free(&a);
}

START_TEST(regions_move_or_stay_inline)
{
	check_region(0, 1);
	check_region(1, 0);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("functions");
	TCase *c = tcase_create("functions");

	tcase_set_timeout(c, 60);
	tcase_add_test(c, llama_layers_share_one_function);
	tcase_add_test(c, embedded_weights_one_function_per_layer);
	tcase_add_test(c, resnet_blocks_with_and_without_downsample);
	tcase_add_test(c, nested_convs_take_function_attributes);
	tcase_add_test(c, unknown_class_is_a_warning);
	tcase_add_test(c, option_errors);
	tcase_add_test(c, regions_move_or_stay_inline);
	suite_add_tcase(s, c);
	return s;
}
