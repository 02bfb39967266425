/* test_flops.c: the FLOPs formulas of lib/report/flops.c on small hand-built ONNX
 * graphs: MatMul broadcasting both operands, Gemm with transA/transB,
 * Conv with groups and dilation, pools, Attention, control flow, the
 * symbolic expressions (expanded, printed, read back, evaluated), shapes
 * the inference must recover (Reshape fed by Shape/Concat), unknowns, the
 * table itself (unique rows, each documented in docs/report.md), and one
 * inference rule answering both of its models. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "sym/sym.h"
#include "testutil.h"

#define F32 ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT

typedef struct G {
	Arena a;
	OnnxGraph g;
	Flops *f;
	Onnx__GraphProto *gp;   /* set by the first count() */
	FlopsNode *rows;
} G;

static void
g_init(G *t)
{
	memset(t, 0, sizeof *t);
	arena_init(&t->a);
	t->g.a = &t->a;
	t->g.name = "g";
	t->f = flops_new(&t->a);
}

/* A fresh graph in t, dropping the last one. */
static void
g_again(G *t)
{
	arena_free(&t->a);
	g_init(t);
}

/* A tensor type from a spec "batch,1,3,4": numbers are static, names are
 * dim_params, "?" is an unknown dim; NULL spec: no shape at all. */
static Onnx__ValueInfoProto *
type_of(G *t, const char *name, const char *spec)
{
	int64_t dims[8];
	const char *params[8];
	int r = 0;
	char *s, *tok, *save = NULL;

	if (!spec)
		return onnx_value_info(&t->a, name, F32, -1, NULL, NULL);
	s = arena_strdup(&t->a, spec);
	for (tok = strtok_r(s, ",", &save); tok && *spec; tok = strtok_r(NULL, ",", &save), r++) {
		char *end;
		long long v = strtoll(tok, &end, 10);
		dims[r] = *end ? -1 : v;
		params[r] = *end && strcmp(tok, "?") != 0 ? tok : NULL;
	}
	return onnx_value_info(&t->a, name, F32, r, dims, params);
}

static void
input(G *t, const char *name, const char *spec)
{
	onnx_vec_push(&t->a, &t->g.inputs, type_of(t, name, spec));
}

static void
vinfo(G *t, const char *name, const char *spec)
{
	onnx_vec_push(&t->a, &t->g.value_info, type_of(t, name, spec));
}

/* A float initializer of the given static shape (no data needed). */
static void
weight(G *t, const char *name, int rank, const int64_t *dims)
{
	onnx_vec_push(&t->a, &t->g.inits, onnx_tensor(&t->a, name, F32, rank, dims, "", 0));
}

static void
ints(G *t, const char *name, int n, const int64_t *v)
{
	int64_t d = n;

	onnx_vec_push(&t->a, &t->g.inits, onnx_tensor(&t->a, name, ONNX__TENSOR_PROTO__DATA_TYPE__INT64,
	                                              1, &d, arena_dup(&t->a, v, sizeof *v * (size_t)n),
	                                              sizeof *v * (size_t)n));
}

static OnnxNode *
node(G *t, const char *op, const char *in0, const char *in1, const char *in2, const char *out)
{
	const char *in[3] = {in0, in1, in2};
	int nin = in2 ? 3 : in1 ? 2 : 1;
	OnnxNode *n = onnx_node(&t->a, op, out, nin, in, 1, &out);

	onnx_vec_push(&t->a, &t->g.nodes, n);
	return n;
}

/* Counts the graph (once); returns the row of the node writing `out`. */
static const FlopsNode *
count(G *t, const char *out)
{
	if (!t->gp) {
		t->gp = onnx_graph_finish(&t->g);
		t->rows = flops_graph(t->f, t->gp);
	}
	for (size_t i = 0; i < t->gp->n_node; i++)
		if (strcmp(t->gp->node[i]->output[0], out) == 0)
			return &t->rows[i];
	ck_abort_msg("no node writes %s", out);
	return NULL;
}

static void
expect(const FlopsNode *r, const char *expr, double value)
{
	if (!expr)
		ck_assert_msg(r->expr == NULL, "%s: expected unknown, got %s", r->op_type, r->expr);
	else
		ck_assert_msg(r->expr && strcmp(r->expr, expr) == 0, "%s: expected '%s', got '%s'",
		              r->op_type, expr, r->expr ? r->expr : "(unknown)");
	ck_assert_msg(r->value == value, "%s: expected %.17g, got %.17g", r->op_type, value, r->value);
}

START_TEST(matmul_broadcasts_both_operands)
{
	G t;

	g_init(&t);
	input(&t, "a", "batch,1,3,4");
	input(&t, "b", "1,heads,4,5");
	node(&t, "MatMul", "a", "b", NULL, "y");      /* -> [batch, heads, 3, 5], no value_info */
	flops_bind(t.f, "batch", 2);
	flops_bind(t.f, "heads", 7);
	expect(count(&t, "y"), "120*batch*heads", 2.0 * 4 * 2 * 7 * 3 * 5);
	arena_free(&t.a);
}
END_TEST

START_TEST(matmul_one_side_and_vectors)
{
	static const int64_t w[] = {4, 5}, v[] = {4};
	G t;

	g_init(&t);
	input(&t, "a", "b,3,4");
	weight(&t, "w", 2, w);
	weight(&t, "v", 1, v);
	node(&t, "MatMul", "a", "w", NULL, "y");      /* [b,3,4] x [4,5] */
	node(&t, "MatMul", "a", "v", NULL, "z");      /* [b,3,4] x [4]: N absent */
	node(&t, "MatMul", "v", "w", NULL, "u");      /* [4] x [4,5]: M absent */
	node(&t, "Relu", "z", NULL, NULL, "rz");      /* z is [b,3] */
	flops_bind(t.f, "b", 3);
	expect(count(&t, "y"), "120*b", 2.0 * 3 * 5 * 4 * 3);
	expect(count(&t, "z"), "24*b", 2.0 * 3 * 4 * 3);
	expect(count(&t, "u"), "40", 40);
	expect(count(&t, "rz"), "3*b", 9);
	arena_free(&t.a);
}
END_TEST

START_TEST(gemm_trans_and_scalars)
{
	static const int64_t at[] = {4, 3}, bt[] = {5, 4}, c[] = {5};
	G t;
	OnnxNode *n;

	g_init(&t);
	weight(&t, "at", 2, at);    /* A stored [K, M] */
	weight(&t, "bt", 2, bt);    /* B stored [N, K] */
	weight(&t, "c", 1, c);
	n = node(&t, "Gemm", "at", "bt", "c", "y");
	onnx_attr_int(&t.a, n, "transA", 1);
	onnx_attr_int(&t.a, n, "transB", 1);
	expect(count(&t, "y"), "135", 2 * 3 * 5 * 4 + 3 * 5);   /* 2*M*N*K + M*N for C */

	g_again(&t);
	weight(&t, "at", 2, at);
	weight(&t, "bt", 2, bt);
	n = node(&t, "Gemm", "at", "bt", NULL, "y");
	onnx_attr_int(&t.a, n, "transA", 1);
	onnx_attr_int(&t.a, n, "transB", 1);
	onnx_attr_float(&t.a, n, "alpha", 0.5f);
	expect(count(&t, "y"), "135", 2 * 3 * 5 * 4 + 3 * 5);   /* no C, alpha scales M*N */

	g_again(&t);
	input(&t, "x", "n,4");
	weight(&t, "bt", 2, bt);
	weight(&t, "c", 1, c);
	n = node(&t, "Gemm", "x", "bt", "c", "y");
	onnx_attr_int(&t.a, n, "transB", 1);
	onnx_attr_float(&t.a, n, "beta", 2.0f);
	expect(count(&t, "y"), "50*n", -1);     /* 40n + 5n (C) + 5n (beta); n unbound */
	arena_free(&t.a);
}
END_TEST

START_TEST(conv_groups_dilation)
{
	static const int64_t w[] = {16, 4, 3, 3}, b[] = {16}, k[] = {3, 3}, two[] = {2, 2};
	G t;
	OnnxNode *n;
	const FlopsNode *r;

	/* 8 input channels in 2 groups: W is [16, 8/2, 3, 3]; dilation 2
	 * makes the 3x3 window span 5, so 10x10 -> 6x6. */
	g_init(&t);
	input(&t, "x", "1,8,10,10");
	weight(&t, "w", 4, w);
	weight(&t, "b", 1, b);
	n = node(&t, "Conv", "x", "w", "b", "y");
	onnx_attr_int(&t.a, n, "group", 2);
	onnx_attr_ints(&t.a, n, "dilations", 2, two);
	onnx_attr_ints(&t.a, n, "kernel_shape", 2, k);
	expect(count(&t, "y"), "42048", 2.0 * 4 * 9 * (16 * 36) + 16 * 36);

	/* Symbolic sizes, stride 1: the output is [N, 16, H-4, W-4], expanded. */
	g_again(&t);
	input(&t, "x", "N,8,H,W");
	weight(&t, "w", 4, w);
	n = node(&t, "Conv", "x", "w", NULL, "y");
	onnx_attr_int(&t.a, n, "group", 2);
	onnx_attr_ints(&t.a, n, "dilations", 2, two);
	flops_bind(t.f, "N", 1);
	flops_bind(t.f, "H", 10);
	flops_bind(t.f, "W", 12);
	r = count(&t, "y");
	ck_assert_str_eq(r->expr, "1152*H*N*W - 4608*H*N - 4608*N*W + 18432*N");
	ck_assert_double_eq(r->value, 2.0 * 4 * 9 * 16 * 6 * 8);

	/* Stride 2 on a symbolic size: the output size is not a polynomial. */
	g_again(&t);
	input(&t, "x", "N,8,H,W");
	weight(&t, "w", 4, w);
	n = node(&t, "Conv", "x", "w", NULL, "y");
	onnx_attr_int(&t.a, n, "group", 2);
	onnx_attr_ints(&t.a, n, "strides", 2, two);
	expect(count(&t, "y"), NULL, -1);
	arena_free(&t.a);
}
END_TEST

static int
lookup(void *ctx, const char *name, int64_t *v)
{
	(void)ctx;
	*v = strcmp(name, "N") == 0 ? 2 : strcmp(name, "H") == 0 ? 9 : strcmp(name, "W") == 0 ? 11 : 0;
	return 1;
}

START_TEST(expression_reads_back_and_evaluates)
{
	static const int64_t w[] = {16, 4, 3, 3}, two[] = {2, 2};
	G t;
	OnnxNode *n;
	const FlopsNode *r;
	SymExpr *e;
	Diag d = {0};
	int64_t v;

	g_init(&t);
	input(&t, "x", "N,8,H,W");
	weight(&t, "w", 4, w);
	n = node(&t, "Conv", "x", "w", NULL, "y");
	onnx_attr_int(&t.a, n, "group", 2);
	onnx_attr_ints(&t.a, n, "dilations", 2, two);
	flops_bind(t.f, "N", 2);
	flops_bind(t.f, "H", 9);
	flops_bind(t.f, "W", 11);
	r = count(&t, "y");
	e = sym_parse_infix(&t.a, "expr", r->expr, strlen(r->expr), &d);
	ck_assert(e != NULL);
	ck_assert(sym_eval(e, lookup, NULL, &v));
	ck_assert_double_eq((double)v, r->value);
	ck_assert_double_eq(r->value, 2.0 * 4 * 9 * 16 * 2 * 5 * 7);
	diag_free(&d);
	arena_free(&t.a);
}
END_TEST

START_TEST(pools_and_per_element_ops)
{
	static const int64_t k[] = {2, 2};
	G t;
	OnnxNode *n;

	g_init(&t);
	input(&t, "x", "1,3,8,8");
	n = node(&t, "MaxPool", "x", NULL, NULL, "p");
	onnx_attr_ints(&t.a, n, "kernel_shape", 2, k);
	onnx_attr_ints(&t.a, n, "strides", 2, k);
	node(&t, "GlobalAveragePool", "x", NULL, NULL, "g");
	node(&t, "Softmax", "x", NULL, NULL, "s");
	node(&t, "LayerNormalization", "x", NULL, NULL, "l");
	node(&t, "Relu", "s", NULL, NULL, "r");
	node(&t, "ReduceSum", "x", NULL, NULL, "rs");
	node(&t, "Transpose", "x", NULL, NULL, "tr");
	expect(count(&t, "p"), "192", 3 * 4 * 4 * 4);      /* prod(kernel) per output */
	expect(count(&t, "g"), "192", 192);                 /* per input element */
	expect(count(&t, "s"), "960", 5 * 192);
	expect(count(&t, "l"), "1344", 7 * 192);
	expect(count(&t, "r"), "192", 192);                 /* shape passed on by Softmax */
	expect(count(&t, "rs"), "192", 192);
	expect(count(&t, "tr"), "0", 0);
	arena_free(&t.a);
}
END_TEST

START_TEST(broadcast_elementwise)
{
	G t;

	g_init(&t);
	input(&t, "a", "batch,1");
	input(&t, "b", "1,16");
	node(&t, "Add", "a", "b", NULL, "y");
	node(&t, "Where", "a", "y", "b", "w");
	node(&t, "Sum", "a", "y", "b", "s");       /* 3 inputs: 2 adds per element */
	flops_bind(t.f, "batch", 4);
	expect(count(&t, "y"), "16*batch", 64);
	expect(count(&t, "w"), "16*batch", 64);
	expect(count(&t, "s"), "32*batch", 128);
	arena_free(&t.a);
}
END_TEST

/* The attention block lowering writes: Reshape to a shape built by
 * Shape/Concat, Transpose, then Q K^T.  None of it has value_info. */
START_TEST(inferred_reshape_chain)
{
	static const int64_t tail[] = {2, 8}, perm[] = {0, 2, 1, 3}, permk[] = {0, 1, 3, 2};
	G t;
	OnnxNode *n;

	g_init(&t);
	input(&t, "x", "batch,seq,16");
	ints(&t, "tail", 2, tail);
	n = node(&t, "Shape", "x", NULL, NULL, "s");
	onnx_attr_int(&t.a, n, "end", 2);
	n = node(&t, "Concat", "s", "tail", NULL, "shape");
	onnx_attr_int(&t.a, n, "axis", 0);
	node(&t, "Reshape", "x", "shape", NULL, "r");       /* [batch, seq, 2, 8] */
	n = node(&t, "Transpose", "r", NULL, NULL, "q");     /* [batch, 2, seq, 8] */
	onnx_attr_ints(&t.a, n, "perm", 4, perm);
	n = node(&t, "Transpose", "q", NULL, NULL, "kt");    /* [batch, 2, 8, seq] */
	onnx_attr_ints(&t.a, n, "perm", 4, permk);
	node(&t, "MatMul", "q", "kt", NULL, "scores");      /* [batch, 2, seq, seq] */
	node(&t, "Softmax", "scores", NULL, NULL, "p");
	flops_bind(t.f, "batch", 3);
	flops_bind(t.f, "seq", 5);
	expect(count(&t, "scores"), "32*batch*seq*seq", 2.0 * 8 * 3 * 2 * 5 * 5);
	expect(count(&t, "p"), "10*batch*seq*seq", 5.0 * 3 * 2 * 5 * 5);
	expect(count(&t, "shape"), "0", 0);
	arena_free(&t.a);
}
END_TEST

START_TEST(reshape_minus_one_and_flatten)
{
	static const int64_t shape[] = {0, -1};
	G t;

	g_init(&t);
	input(&t, "x", "b,4,6");
	ints(&t, "shape", 2, shape);
	node(&t, "Reshape", "x", "shape", NULL, "r");      /* [b, 24]: 0 copies, -1 divides */
	node(&t, "Relu", "r", NULL, NULL, "y");
	node(&t, "Flatten", "x", NULL, NULL, "f");          /* [b, 24] */
	node(&t, "Neg", "f", NULL, NULL, "z");
	flops_bind(t.f, "b", 2);
	expect(count(&t, "y"), "24*b", 48);
	expect(count(&t, "z"), "24*b", 48);
	arena_free(&t.a);
}
END_TEST

START_TEST(unknowns)
{
	G t;

	/* an input without shape: its MatMul is unknown, not 0 */
	g_init(&t);
	input(&t, "a", NULL);
	input(&t, "b", "4,5");
	node(&t, "MatMul", "a", "b", NULL, "y");
	expect(count(&t, "y"), NULL, -1);

	/* an op type the table does not have */
	g_again(&t);
	input(&t, "a", "4,5");
	node(&t, "Einsum", "a", NULL, NULL, "y");
	expect(count(&t, "y"), NULL, -1);

	/* a name without a size: the expression, but no value */
	g_again(&t);
	input(&t, "a", "n,5");
	node(&t, "Relu", "a", NULL, NULL, "y");
	expect(count(&t, "y"), "5*n", -1);

	/* a declared output type with an unknown dim fills from inference */
	g_again(&t);
	input(&t, "a", "n,5");
	vinfo(&t, "y", "?,5");
	node(&t, "Relu", "a", NULL, NULL, "y");
	flops_bind(t.f, "n", 3);
	expect(count(&t, "y"), "5*n", 15);
	arena_free(&t.a);
}
END_TEST

START_TEST(attention_counts)
{
	G t;
	OnnxNode *n;
	const char *in[4] = {"q", "k", "v", "m"}, *out = "y";

	g_init(&t);
	input(&t, "q", "1,2,3,5");     /* B, H, L, E */
	input(&t, "k", "1,2,4,5");     /* S = 4 */
	input(&t, "v", "1,2,4,6");     /* Ev = 6 */
	n = onnx_node(&t.a, "Attention", "att", 3, in, 1, &out);
	onnx_vec_push(&t.a, &t.g.nodes, n);
	/* scores B*H*L*S = 24: QK 2*24*5, AV 2*24*6, scale 1 and softmax 5 each */
	expect(count(&t, "y"), "672", 240 + 288 + 6 * 24);

	g_again(&t);
	input(&t, "q", "1,2,3,5");
	input(&t, "k", "1,2,4,5");
	input(&t, "v", "1,2,4,6");
	input(&t, "m", "3,4");
	n = onnx_node(&t.a, "Attention", "att", 4, in, 1, &out);
	onnx_vec_push(&t.a, &t.g.nodes, n);
	expect(count(&t, "y"), "696", 240 + 288 + 7 * 24);      /* + the mask */
	arena_free(&t.a);
}
END_TEST

START_TEST(recurrent_and_resize)
{
	static const int64_t w[] = {1, 16, 3}, r[] = {1, 16, 4};
	G t;
	OnnxNode *n;
	const char *in[3] = {"x", "w", "r"}, *out = "y";

	/* LSTM, H = 4, I = 3: 2*4*4*(3 + 4) + 21*4 = 308 per step and row */
	g_init(&t);
	input(&t, "x", "seq,2,3");
	weight(&t, "w", 3, w);
	weight(&t, "r", 3, r);
	n = onnx_node(&t.a, "LSTM", "lstm", 3, in, 1, &out);
	onnx_attr_int(&t.a, n, "hidden_size", 4);
	onnx_vec_push(&t.a, &t.g.nodes, n);
	flops_bind(t.f, "seq", 5);
	expect(count(&t, "y"), "616*seq", 308.0 * 2 * 5);

	/* GRU without hidden_size: H from W's 3*H rows (W is [1, 12, 3]) */
	g_again(&t);
	input(&t, "x", "2,5,3");
	weight(&t, "w", 3, (const int64_t[]){1, 12, 3});
	weight(&t, "r", 3, (const int64_t[]){1, 12, 4});
	n = onnx_node(&t.a, "GRU", "gru", 3, in, 1, &out);
	onnx_attr_int(&t.a, n, "layout", 1);         /* X is [B, S, I] */
	onnx_vec_push(&t.a, &t.g.nodes, n);
	expect(count(&t, "y"), "2360", (2.0 * 3 * 4 * 7 + 17 * 4) * 2 * 5);

	/* Resize: bilinear over the two spatial axes, nearest free */
	g_again(&t);
	input(&t, "x", "1,3,4,4");
	vinfo(&t, "y", "1,3,8,8");
	vinfo(&t, "z", "1,3,8,8");
	n = node(&t, "Resize", "x", NULL, NULL, "y");
	onnx_attr_string(&t.a, n, "mode", "linear");
	node(&t, "Resize", "x", NULL, NULL, "z");
	expect(count(&t, "y"), "1344", 7 * 192);
	expect(count(&t, "z"), "0", 0);
	arena_free(&t.a);
}
END_TEST

START_TEST(if_takes_the_larger_branch)
{
	G t, b1, b2;
	OnnxNode *n;
	const char *c = "c", *out = "y";

	g_init(&t);
	g_init(&b1);
	g_init(&b2);
	input(&t, "c", "");
	input(&t, "x", "4,5");
	b1.g.name = "then";
	node(&b1, "Relu", "x", NULL, NULL, "t");                /* 20 */
	onnx_vec_push(&b1.a, &b1.g.outputs, type_of(&b1, "t", "4,5"));
	b2.g.name = "else";
	node(&b2, "Mul", "x", "x", NULL, "e1");                 /* 20 */
	node(&b2, "Add", "e1", "x", NULL, "e");                 /* 20 */
	onnx_vec_push(&b2.a, &b2.g.outputs, type_of(&b2, "e", "4,5"));
	n = onnx_node(&t.a, "If", "if", 1, &c, 1, &out);
	onnx_attr_graph(&t.a, n, "then_branch", onnx_graph_finish(&b1.g));
	onnx_attr_graph(&t.a, n, "else_branch", onnx_graph_finish(&b2.g));
	onnx_vec_push(&t.a, &t.g.nodes, n);
	expect(count(&t, "y"), "40", 40);
	arena_free(&t.a);
	arena_free(&b1.a);
	arena_free(&b2.a);
}
END_TEST

START_TEST(bind_shape_checks_static_dims)
{
	static const int64_t good[] = {2, 8}, bad[] = {2, 9}, hint[] = {-1, 8};
	G t;
	Onnx__ValueInfoProto *vi;

	g_init(&t);
	vi = type_of(&t, "x", "batch,8");
	ck_assert_int_eq(flops_bind_shape(t.f, vi, 2, bad), 0);     /* 9 is not 8: another input's sample */
	ck_assert_int_eq(flops_bind_shape(t.f, vi, 1, good), 0);    /* rank differs */
	ck_assert_int_eq(flops_bind_shape(t.f, vi, 2, hint), 0);    /* no size for batch */
	ck_assert_int_eq(flops_bind_shape(t.f, vi, 2, good), 1);
	ck_assert_int_eq(flops_bind_shape(t.f, vi, 2, good), 0);    /* bound already */
	arena_free(&t.a);
}
END_TEST

/* Every row of the table is unique and has a line of its own in the
 * "FLOPs formulas" section of docs/report.md. */
START_TEST(table_rows_are_documented)
{
	FILE *f = fopen("docs/report.md", "rb");
	static char doc[1 << 17];
	size_t n;
	const char *sec;

	ck_assert_msg(f != NULL, "docs/report.md is missing");
	n = fread(doc, 1, sizeof doc - 1, f);
	fclose(f);
	doc[n] = 0;
	sec = strstr(doc, "## FLOPs formulas");
	ck_assert_msg(sec != NULL, "docs/report.md has no FLOPs formulas section");
	ck_assert_int_gt(flops_nop(), 100);
	for (int i = 0; i < flops_nop(); i++) {
		const OnnxOp *op = &onnx_ops[flops_op(i)];
		char want[128];
		for (int j = 0; j < i; j++)
			ck_assert_msg(flops_op(i) != flops_op(j), "%s is in the table twice", op->name);
		snprintf(want, sizeof want, op->domain[0] ? "`%s:%s`" : "`%s%s`", op->domain, op->name);
		ck_assert_msg(strstr(sec, want) != NULL, "docs/report.md does not document %s", want);
	}
	ck_assert_int_eq(flops_op(flops_nop()), -1);
	ck_assert_int_eq(flops_op(-1), -1);
}
END_TEST

/* ---- one rule, two models (lib/onnx/infer.c) ---- */

typedef struct Got {
	int elem, rank;
	OnnxSize d[8];
	int calls;
} Got;

static void
got_put(void *ctx, int k, int elem, int rank, const OnnxSize *dims)
{
	Got *g = ctx;

	if (k != 0)
		return;
	g->calls++;
	g->elem = elem;
	g->rank = rank;
	for (int i = 0; i < rank && dims && i < 8; i++)
		g->d[i] = dims[i];
	if (!dims)
		g->rank = rank >= 0 ? -2 - rank : rank;   /* a rank without dims: -2 - rank */
}

static int
no_ints(void *ctx, int k, int64_t *buf, int max)
{
	(void)ctx, (void)k, (void)buf, (void)max;
	return -1;
}

/* The same Concat and Conv rules: the names model (the optimizer) keeps
 * a static size or a name, the expressions model (the FLOPs count) the
 * sum; the Conv row gives the names model its element type only. */
START_TEST(one_rule_two_models)
{
	Arena a;
	OnnxNode *cat, *conv;
	OnnxSize xn[2] = {{-1, "s0", NULL}, {4, NULL, NULL}}, yn[2] = {{-1, "s1", NULL}, {4, NULL, NULL}};
	OnnxSize xe[2], ye[2], in4[4], w4[4];
	OnnxType tx, ty, tin, tw;
	const OnnxType *ins[2];
	Got g;
	OnnxInfer f;
	Diag d = {0};
	static const char *const in2[] = {"x", "y"}, *const out1[] = {"z"};

	arena_init(&a);
	cat = onnx_node(&a, "Concat", "cat", 2, in2, 1, out1);
	onnx_attr_int(&a, cat, "axis", 0);
	tx = (OnnxType){F32, 2, xn, NULL};
	ty = (OnnxType){F32, 2, yn, NULL};
	ins[0] = &tx;
	ins[1] = &ty;
	memset(&g, 0, sizeof g);
	f = (OnnxInfer){.n = cat, .op = ONNXOP_CONCAT, .nin = 2, .nout = 1, .in = ins, .ctx = &g,
	                .const_ints = no_ints, .put = got_put};
	onnx_infer(&f);
	ck_assert_int_eq(g.calls, 1);
	ck_assert_int_eq(g.rank, 2);
	ck_assert(g.d[0].v < 0 && g.d[0].sym == NULL);      /* s0 + s1: no name for it */
	ck_assert_int_eq(g.d[1].v, 4);

	for (int i = 0; i < 2; i++) {
		xe[i] = (OnnxSize){xn[i].v, NULL, xn[i].sym ? sym_parse_infix(&a, "t", xn[i].sym, 2, &d) : poly_num(&a, 4)};
		ye[i] = (OnnxSize){yn[i].v, NULL, yn[i].sym ? sym_parse_infix(&a, "t", yn[i].sym, 2, &d) : poly_num(&a, 4)};
	}
	tx.dims = xe;
	ty.dims = ye;
	memset(&g, 0, sizeof g);
	f.a = &a;
	onnx_infer(&f);
	ck_assert_int_eq(g.rank, 2);
	ck_assert_str_eq(sym_print(&a, g.d[0].e), "s0 + s1");
	ck_assert_str_eq(sym_print(&a, g.d[1].e), "4");

	/* Conv [1, 3, H, 8] * [6, 3, 3, 3]: [1, 6, H - 2, 6] for the count */
	conv = onnx_node(&a, "Conv", "conv", 2, in2, 1, out1);
	for (int i = 0; i < 4; i++) {
		static const int64_t x[4] = {1, 3, -1, 8}, w[4] = {6, 3, 3, 3};
		in4[i] = (OnnxSize){x[i], NULL, x[i] < 0 ? sym_parse_infix(&a, "t", "H", 1, &d) : poly_num(&a, x[i])};
		w4[i] = (OnnxSize){w[i], NULL, poly_num(&a, w[i])};
	}
	tin = (OnnxType){F32, 4, in4, NULL};
	tw = (OnnxType){F32, 4, w4, NULL};
	ins[0] = &tin;
	ins[1] = &tw;
	memset(&g, 0, sizeof g);
	f.n = conv;
	f.op = ONNXOP_CONV;
	onnx_infer(&f);
	ck_assert_int_eq(g.rank, 4);
	ck_assert_str_eq(sym_print(&a, g.d[1].e), "6");
	ck_assert_str_eq(sym_print(&a, g.d[2].e), "H - 2");
	ck_assert_str_eq(sym_print(&a, g.d[3].e), "6");
	memset(&g, 0, sizeof g);
	f.a = NULL;
	onnx_infer(&f);
	ck_assert_int_eq(g.calls, 1);
	ck_assert_int_eq(g.elem, F32);
	ck_assert_int_eq(g.rank, -1);
	diag_free(&d);
	arena_free(&a);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("flops");
	TCase *c = tcase_create("core");

	tcase_add_test(c, matmul_broadcasts_both_operands);
	tcase_add_test(c, matmul_one_side_and_vectors);
	tcase_add_test(c, gemm_trans_and_scalars);
	tcase_add_test(c, conv_groups_dilation);
	tcase_add_test(c, expression_reads_back_and_evaluates);
	tcase_add_test(c, pools_and_per_element_ops);
	tcase_add_test(c, broadcast_elementwise);
	tcase_add_test(c, inferred_reshape_chain);
	tcase_add_test(c, reshape_minus_one_and_flatten);
	tcase_add_test(c, unknowns);
	tcase_add_test(c, attention_counts);
	tcase_add_test(c, recurrent_and_resize);
	tcase_add_test(c, if_takes_the_larger_branch);
	tcase_add_test(c, bind_shape_checks_static_dims);
	tcase_add_test(c, table_rows_are_documented);
	tcase_add_test(c, one_rule_two_models);
	suite_add_tcase(s, c);
	return s;
}
