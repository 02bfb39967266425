/* flops.c: FLOPs of ONNX nodes as polynomials in the dimension names.
 *
 * Two parts.  The walk: every value's dims as canonical SymExprs (NULL:
 * unknown) and the contents of small int tensors, from the graph's
 * declarations first, then from lib/onnx's inference rules in their
 * expressions model (onnx.h, "infer"), which this file feeds node by node:
 * a Reshape or ConstantOfShape fed by Shape -> Concat gets its shape from
 * the contents followed.  The table: the flops columns of
 * lib/onnx/onnxops.def, one row per ONNX op, with its count function (a
 * Poly, see sym.h) and a constant the function reads.  Counts never fail
 * the conversion: anything not known is "unknown". */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

#include "sym/sym.h"
#include "core/core.h"

/* ---- shapes and contents ------------------------------------------------- */

typedef struct Shape {
	int rank;
	OnnxSize *d;             /* rank dims; d[i].e canonical, NULL: unknown dim */
} Shape;

/* A small integer tensor's contents (a shape being computed). */
typedef OnnxVals Vals;

/* Values of one graph; a subgraph's scope sees its parents'. */
typedef struct Scope {
	StrMap *shape;          /* name -> Shape * */
	StrMap *vals;           /* name -> Vals * */
	struct Scope *up;
} Scope;

struct Flops {
	Arena *a;
	StrMap *size;           /* dim name -> int64_t * (bound sizes) */
	StrMap *param;          /* dim_param text -> canonical SymExpr * (or &unparsed) */
	Scope *sc;
};

static const char unparsed[] = "";

static int
lookup_size(void *ctx, const char *name, int64_t *v)
{
	const int64_t *p = strmap_get(((Flops *)ctx)->size, name);

	if (p)
		*v = *p;
	return p != NULL;
}

static Shape *
shape_new(Arena *a, int rank)
{
	Shape *s = ARENA_NEW(a, Shape);

	s->rank = rank;
	s->d = ARENA_ARRAY(a, OnnxSize, rank + 1);
	for (int i = 0; i < rank; i++)
		s->d[i] = (OnnxSize){-1, NULL, NULL};
	return s;
}

/* Expression e as a dim of the expressions model. */
static OnnxSize
dim_of(SymExpr *e)
{
	int64_t v;

	return (OnnxSize){poly_is_num(e, &v) && v >= 0 ? v : -1, NULL, e};
}

static const char *
in_name(const OnnxNode *n, int i)
{
	return i < (int)n->n_input && n->input[i][0] ? n->input[i] : NULL;
}

static const char *
out_name(const OnnxNode *n, int i)
{
	return i < (int)n->n_output && n->output[i][0] ? n->output[i] : NULL;
}

static Shape *
shape_of(const Flops *f, const char *name)
{
	for (const Scope *s = f->sc; name && s; s = s->up) {
		Shape *sh = strmap_get(s->shape, name);
		if (sh)
			return sh;
	}
	return NULL;
}

static Vals *
vals_of(const Flops *f, const char *name)
{
	for (const Scope *s = f->sc; name && s; s = s->up) {
		Vals *v = strmap_get(s->vals, name);
		if (v)
			return v;
	}
	return NULL;
}

static Shape *ishape(const Flops *f, const OnnxNode *n, int i) { return shape_of(f, in_name(n, i)); }
static Shape *oshape(const Flops *f, const OnnxNode *n, int i) { return shape_of(f, out_name(n, i)); }
static Vals *ivals(const Flops *f, const OnnxNode *n, int i) { return vals_of(f, in_name(n, i)); }

/* Records a shape for name.  A declared shape wins; an inferred one only
 * fills its unknown dims. */
static void
put_shape(Flops *f, const char *name, Shape *s)
{
	Shape *old;

	if (!name || !s)
		return;
	old = strmap_get(f->sc->shape, name);
	if (!old) {
		strmap_put(f->sc->shape, name, s);
		return;
	}
	if (old->rank == s->rank)
		for (int i = 0; i < s->rank; i++)
			if (!old->d[i].e)
				old->d[i] = s->d[i];
}

static void
put_vals(Flops *f, const char *name, const Vals *v)
{
	if (name && v)
		strmap_put(f->sc->vals, name, (void *)v);
}

/* A dim_param read back into a canonical expression (cached by text). */
static SymExpr *
param_expr(Flops *f, const char *text)
{
	void *got = strmap_get(f->param, text);
	Diag d = {0};
	SymExpr *e;

	if (got)
		return got == unparsed ? NULL : got;
	e = poly_canon(f->a, sym_parse_infix(f->a, "dim_param", text, strlen(text), &d));
	diag_free(&d);
	strmap_put(f->param, text, e ? (void *)e : (void *)unparsed);
	return e;
}

/* The shape a ValueInfoProto declares; NULL when it has none. */
static Shape *
shape_of_type(Flops *f, const Onnx__ValueInfoProto *vi)
{
	const Onnx__TensorShapeProto *ts;
	Shape *s;

	if (!vi || !vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
	    !vi->type->tensor_type || !(ts = vi->type->tensor_type->shape))
		return NULL;
	s = shape_new(f->a, (int)ts->n_dim);
	for (size_t i = 0; i < ts->n_dim; i++) {
		const Onnx__TensorShapeProto__Dimension *d = ts->dim[i];
		if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
			s->d[i] = dim_of(poly_num(f->a, d->dim_value));
		else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param)
			s->d[i] = dim_of(param_expr(f, d->dim_param));
	}
	return s;
}

/* A tensor's shape, and its contents when it is a small int list. */
static void
put_tensor(Flops *f, const char *name, const OnnxTensor *t)
{
	OnnxType ty = onnx_tensor_type(f->a, t);
	Shape *s = ARENA_NEW(f->a, Shape);

	s->rank = ty.rank;
	s->d = (OnnxSize *)ty.dims;
	put_shape(f, name, s);
	put_vals(f, name, ty.vals);
}

/* Declares what g states about its values, in a new scope. */
static void
scope_push(Flops *f, const Onnx__GraphProto *g)
{
	Scope *s = ARENA_NEW(f->a, Scope);
	size_t hint = g->n_node * 2 + g->n_initializer + 16;

	s->shape = strmap_new(f->a, hint);
	s->vals = strmap_new(f->a, hint);
	s->up = f->sc;
	f->sc = s;
	for (size_t i = 0; i < g->n_input; i++)
		put_shape(f, g->input[i]->name, shape_of_type(f, g->input[i]));
	for (size_t i = 0; i < g->n_initializer; i++)
		put_tensor(f, g->initializer[i]->name, g->initializer[i]);
	for (size_t i = 0; i < g->n_value_info; i++)
		put_shape(f, g->value_info[i]->name, shape_of_type(f, g->value_info[i]));
	for (size_t i = 0; i < g->n_output; i++)
		put_shape(f, g->output[i]->name, shape_of_type(f, g->output[i]));
}

/* The product of dims [from, to) as a polynomial; NULL when one is unknown. */
static Poly *
dims_prod(Arena *a, const Shape *s, int from, int to)
{
	Poly *p = poly_int(a, 1);

	if (!s)
		return NULL;
	for (int i = from; i < to && p; i++)
		p = poly_mul(a, p, poly_sym(a, s->d[i].e));
	return p;
}

static Poly *
numel(Arena *a, const Shape *s)
{
	return s ? dims_prod(a, s, 0, s->rank) : NULL;
}

static Poly *
dim(Arena *a, const Shape *s, int i)
{
	if (!s || i < 0 || i >= s->rank)
		return NULL;
	return poly_sym(a, s->d[i].e);
}

/* ---- attributes ----------------------------------------------------------- */

static const Onnx__AttributeProto *
attr(const OnnxNode *n, const char *name)
{
	for (size_t i = 0; i < n->n_attribute; i++)
		if (strcmp(n->attribute[i]->name, name) == 0)
			return n->attribute[i];
	return NULL;
}

static int64_t
attr_int(const OnnxNode *n, const char *name, int64_t def)
{
	const Onnx__AttributeProto *at = attr(n, name);

	return at && at->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT ? at->i : def;
}

static float
attr_float(const OnnxNode *n, const char *name, float def)
{
	const Onnx__AttributeProto *at = attr(n, name);

	return at && at->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT ? at->f : def;
}

/* The ints attribute; *k = -1 when absent. */
static const int64_t *
attr_ints(const OnnxNode *n, const char *name, int *k)
{
	const Onnx__AttributeProto *at = attr(n, name);

	if (!at || at->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS) {
		*k = -1;
		return NULL;
	}
	*k = (int)at->n_ints;
	return at->ints;
}

static int
attr_is(const OnnxNode *n, const char *name, const char *want)
{
	const Onnx__AttributeProto *at = attr(n, name);

	return at && at->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING &&
	       at->s.len == strlen(want) && memcmp(at->s.data, want, at->s.len) == 0;
}

static const Onnx__GraphProto *
attr_graph(const OnnxNode *n, const char *name)
{
	const Onnx__AttributeProto *at = attr(n, name);

	return at && at->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH ? at->g : NULL;
}

/* Normalizes axis for rank r; -1 when out of range. */
static int
norm_axis(int64_t axis, int r)
{
	if (axis < 0)
		axis += r;
	return axis >= 0 && axis < r ? (int)axis : -1;
}

/* ---- inference: lib/onnx's rules, expressions model ----------------------- */

typedef struct InferCtx {
	Flops *f;
	const OnnxNode *n;
} InferCtx;

/* Output k's shape; only a shape with dims is one the counts can use. */
static void
infer_put(void *ctx, int k, int elem, int rank, const OnnxSize *dims)
{
	InferCtx *c = ctx;
	Shape *s;

	(void)elem;
	if (rank < 0 || !dims)
		return;
	s = shape_new(c->f->a, rank);
	memcpy(s->d, dims, sizeof *s->d * (size_t)rank);
	put_shape(c->f, out_name(c->n, k), s);
}

static void
infer_put_vals(void *ctx, int k, const OnnxVals *v)
{
	InferCtx *c = ctx;
	Vals *w = ARENA_NEW(c->f->a, Vals);
	OnnxSize *d = ARENA_ARRAY(c->f->a, OnnxSize, v->n + 1);

	memcpy(d, v->v, sizeof *d * (size_t)v->n);
	*w = (Vals){v->n, v->scalar, d};
	put_vals(c->f, out_name(c->n, k), w);
}

/* Infers the shapes (and contents) of n's outputs from what is known of
 * its inputs. */
static void
infer_node(Flops *f, const OnnxNode *n, int op)
{
	int nin = (int)n->n_input;
	OnnxType *t = ARENA_ARRAY(f->a, OnnxType, nin + 1);
	const OnnxType **in = ARENA_ARRAY(f->a, const OnnxType *, nin + 1);
	InferCtx c = {f, n};

	for (int k = 0; k < nin; k++) {
		const Shape *s = ishape(f, n, k);
		if (!in_name(n, k))
			continue;
		t[k] = (OnnxType){0, s ? s->rank : -1, s ? s->d : NULL, ivals(f, n, k)};
		in[k] = &t[k];
	}
	onnx_infer(&(OnnxInfer){.n = n, .op = op, .nin = nin, .nout = (int)n->n_output, .in = in,
	                        .a = f->a, .ctx = &c, .put = infer_put, .put_vals = infer_put_vals});
}

/* ---- counts --------------------------------------------------------------- */

typedef Poly *(*CountFn)(Flops *f, const OnnxNode *n, int k);

static Poly *
fl_zero(Flops *f, const OnnxNode *n, int k)
{
	(void)n;
	(void)k;
	return poly_int(f->a, 0);
}

/* k per output element. */
static Poly *
fl_out(Flops *f, const OnnxNode *n, int k)
{
	return poly_scale(f->a, numel(f->a, oshape(f, n, 0)), k);
}

/* k per element of input 0. */
static Poly *
fl_in(Flops *f, const OnnxNode *n, int k)
{
	return poly_scale(f->a, numel(f->a, ishape(f, n, 0)), k);
}

/* Sum, Max, Min, Mean of m inputs: m - 1 (+ k) per output element. */
static Poly *
fl_variadic(Flops *f, const OnnxNode *n, int k)
{
	return fl_out(f, n, (int)n->n_input - 1 + k);
}

/* Gelu: its erf form is 5 operations per element, the tanh form k. */
static Poly *
fl_gelu(Flops *f, const OnnxNode *n, int k)
{
	return fl_out(f, n, attr_is(n, "approximate", "tanh") ? k : 5);
}

/* MatMul: 2*K per output element, the output having the broadcast batch
 * dims of both operands (so 2*batch*M*N*K). */
static Poly *
fl_matmul(Flops *f, const OnnxNode *n, int k)
{
	Shape *a = ishape(f, n, 0), *b = ishape(f, n, 1);
	Poly *kk = NULL;

	if (a && a->rank >= 1)
		kk = dim(f->a, a, a->rank == 1 ? 0 : a->rank - (attr_int(n, "transA", 0) ? 2 : 1));
	if (!kk && b && b->rank >= 1)
		kk = dim(f->a, b, b->rank == 1 ? 0 : b->rank - (attr_int(n, "transB", 0) ? 1 : 2));
	return poly_mul(f->a, poly_scale(f->a, kk, k), numel(f->a, oshape(f, n, 0)));
}

/* Gemm: 2*M*N*K, plus M*N to add C, plus M*N for each of alpha and beta
 * that is not 1. */
static Poly *
fl_gemm(Flops *f, const OnnxNode *n, int k)
{
	Shape *a = ishape(f, n, 0), *o = oshape(f, n, 0);
	Poly *mn = numel(f->a, o), *kk;
	int extra = 0;

	if (!a || a->rank != 2)
		return NULL;
	kk = dim(f->a, a, attr_int(n, "transA", 0) ? 0 : 1);
	if (in_name(n, 2))
		extra += 1 + (attr_float(n, "beta", 1.0f) != 1.0f);
	extra += attr_float(n, "alpha", 1.0f) != 1.0f;
	return poly_add(f->a, poly_mul(f->a, poly_scale(f->a, kk, k), mn), poly_scale(f->a, mn, extra));
}

/* Conv: 2 * (C_in/group) * prod(kernel) per output element, + 1 with a bias.
 * W is [C_out, C_in/group, k...], so its dims give both factors. */
static Poly *
fl_conv(Flops *f, const OnnxNode *n, int k)
{
	Shape *w = ishape(f, n, 1);
	Poly *out = numel(f->a, oshape(f, n, 0));

	if (!w || w->rank < 3)
		return NULL;
	return poly_add(f->a, poly_mul(f->a, poly_scale(f->a, dims_prod(f->a, w, 1, w->rank), k), out),
	                in_name(n, 2) ? out : poly_int(f->a, 0));
}

/* ConvTranspose: every input element meets (C_out/group) * prod(kernel)
 * weights (W is [C_in, C_out/group, k...]): 2 each, + 1 per output with a bias. */
static Poly *
fl_conv_transpose(Flops *f, const OnnxNode *n, int k)
{
	Shape *w = ishape(f, n, 1);

	if (!w || w->rank < 3)
		return NULL;
	return poly_add(f->a, poly_mul(f->a, poly_scale(f->a, dims_prod(f->a, w, 1, w->rank), k),
	                               numel(f->a, ishape(f, n, 0))),
	                in_name(n, 2) ? numel(f->a, oshape(f, n, 0)) : poly_int(f->a, 0));
}

/* MaxPool, AveragePool, LpPool: prod(kernel_shape) per output element. */
static Poly *
fl_pool(Flops *f, const OnnxNode *n, int k)
{
	int nk;
	const int64_t *kern = attr_ints(n, "kernel_shape", &nk);
	int64_t p = k;

	if (!kern)
		return NULL;
	for (int i = 0; i < nk; i++)
		if (__builtin_mul_overflow(p, kern[i], &p))
			return NULL;
	return poly_scale(f->a, numel(f->a, oshape(f, n, 0)), p);
}

/* Attention: QK^T (2*E per score), scaling (1), the mask or causal mask
 * (1, when there is one), softcap (3, when set), softmax (k) and AV (2*Ev
 * per score, i.e. 2*S per output element). */
static Poly *
fl_attention(Flops *f, const OnnxNode *n, int k)
{
	Shape *q = ishape(f, n, 0), *kk = ishape(f, n, 1);
	Poly *s, *scores, *qk, *av;
	int per = 1 + k;

	if (!q || !kk || (q->rank != 4 && q->rank != 3) || kk->rank != q->rank)
		return NULL;
	s = dim(f->a, kk, q->rank == 4 ? 2 : 1);
	if (q->rank == 4)
		scores = poly_mul(f->a, dims_prod(f->a, q, 0, 3), s);
	else if (attr_int(n, "q_num_heads", 0) > 0)
		scores = poly_mul(f->a, poly_scale(f->a, dims_prod(f->a, q, 0, 2), attr_int(n, "q_num_heads", 0)), s);
	else
		return NULL;
	per += in_name(n, 3) || attr_int(n, "is_causal", 0);
	per += 3 * (attr_float(n, "softcap", 0.0f) != 0.0f);
	qk = poly_scale(f->a, poly_mul(f->a, numel(f->a, q), s), 2);
	av = poly_scale(f->a, poly_mul(f->a, numel(f->a, oshape(f, n, 0)), s), 2);
	return poly_add(f->a, poly_add(f->a, qk, av), poly_scale(f->a, scores, per));
}

/* RNN, GRU, LSTM (k gates): per direction, time step and batch row, the
 * gate products 2*k*H*(I + H) plus the elementwise work (biases, gate
 * activations, cell and state updates): 4*H, 17*H or 21*H. */
static Poly *
fl_rnn(Flops *f, const OnnxNode *n, int k)
{
	Shape *x = ishape(f, n, 0), *w = ishape(f, n, 1);
	int64_t h = attr_int(n, "hidden_size", 0), g;
	int bs = attr_int(n, "layout", 0) ? 1 : 0;
	Poly *per, *i;

	if (!x || !w || x->rank != 3 || w->rank != 3)
		return NULL;
	if (h <= 0 && (!poly_is_num(w->d[1].e, &g) || g % k != 0 || (h = g / k) <= 0))
		return NULL;
	i = dim(f->a, x, 2);
	per = poly_scale(f->a, poly_add(f->a, i, poly_int(f->a, h)), 2 * k * h);
	per = poly_add(f->a, per, poly_int(f->a, (k == 4 ? 21 : k == 3 ? 17 : 4) * h));
	return poly_mul(f->a, per, poly_mul(f->a, dim(f->a, w, 0),
	                                    poly_mul(f->a, dim(f->a, x, bs), dim(f->a, x, 1 - bs))));
}

/* Resize: nearest 0; linear 2*2^r - 1 and cubic 2*4^r - 1 per output
 * element (a weighted sum of 2^r or 4^r inputs), r the resized axes. */
static Poly *
fl_resize(Flops *f, const OnnxNode *n, int k)
{
	Shape *x = ishape(f, n, 0), *o = oshape(f, n, 0);
	int64_t per = 1;

	(void)k;
	if (!attr_is(n, "mode", "linear") && !attr_is(n, "mode", "cubic"))
		return poly_int(f->a, 0);
	if (!x || !o || x->rank != o->rank)
		return NULL;
	for (int i = 0; i < x->rank; i++)
		if (!x->d[i].e || !o->d[i].e || !sym_equal(x->d[i].e, o->d[i].e))
			per *= attr_is(n, "mode", "cubic") ? 4 : 2;
	return poly_scale(f->a, numel(f->a, o), 2 * per - 1);
}

static Poly *count_node(Flops *f, const OnnxNode *n);

/* The count of a subgraph: its nodes summed, in a scope of its own. */
static Poly *
count_graph(Flops *f, const Onnx__GraphProto *g)
{
	Scope *saved = f->sc;
	Poly *p = poly_int(f->a, 0);

	if (!g)
		return NULL;
	scope_push(f, g);
	for (size_t i = 0; i < g->n_node; i++)
		p = poly_add(f->a, p, count_node(f, g->node[i]));
	f->sc = saved;
	return p;
}

/* If: the larger branch; Max(then, else) when that depends on the sizes. */
static Poly *
fl_if(Flops *f, const OnnxNode *n, int k)
{
	Poly *t = count_graph(f, attr_graph(n, "then_branch"));
	Poly *e = count_graph(f, attr_graph(n, "else_branch"));
	int64_t a, b;
	SymExpr **args;

	(void)k;
	if (!t || !e)
		return NULL;
	if (poly_const(t, &a) && poly_const(e, &b))
		return poly_int(f->a, a > b ? a : b);
	if (poly_equal(t, e))
		return t;
	args = ARENA_ARRAY(f->a, SymExpr *, 2);
	args[0] = poly_expr(f->a, t);
	args[1] = poly_expr(f->a, e);
	return poly_atom(f->a, poly_call(f->a, SYM_MAX, 2, args));
}

/* Loop: the body times the trip count, when input 0 is a known constant. */
static Poly *
fl_loop(Flops *f, const OnnxNode *n, int k)
{
	const Vals *m = ivals(f, n, 0);

	(void)k;
	if (!m || m->n != 1 || !m->v[0].e)
		return NULL;
	return poly_mul(f->a, poly_sym(f->a, m->v[0].e), count_graph(f, attr_graph(n, "body")));
}

/* Scan: the body times the length of the scanned axis of the first scan input. */
static Poly *
fl_scan(Flops *f, const OnnxNode *n, int k)
{
	int64_t m = attr_int(n, "num_scan_inputs", 0);
	int na, first = (int)n->n_input - (int)m;
	const int64_t *axes = attr_ints(n, "scan_input_axes", &na);
	Shape *x;
	int ax;

	(void)k;
	if (m < 1 || first < 0 || !(x = ishape(f, n, first)) ||
	    (ax = norm_axis(na > 0 ? axes[0] : 0, x->rank)) < 0)
		return NULL;
	return poly_mul(f->a, dim(f->a, x, ax), count_graph(f, attr_graph(n, "body")));
}

/* ---- the table ------------------------------------------------------------ */

typedef struct FlopsRow {
	CountFn count;          /* NULL: the count is unknown */
	int k;                  /* the constant count reads (per element, or a factor) */
} FlopsRow;

/* The flops columns of onnxops.def, by row. */
static const FlopsRow rows[ONNXOP_COUNT] = {
#define OP(id, name, dom, lo, hi, infer, models, fold, fold_in, fl, fl_k) [ONNXOP_##id] = {fl, fl_k},
#define ONNX_OP_ROWS
#include "onnx/onnx.h"
#undef OP
};

int
flops_nop(void)
{
	int n = 0;

	for (int i = 0; i < ONNXOP_COUNT; i++)
		n += rows[i].count != NULL;
	return n;
}

int
flops_op(int i)
{
	for (int k = 0; i >= 0 && k < ONNXOP_COUNT; k++)
		if (rows[k].count && i-- == 0)
			return k;
	return -1;
}

/* ---- driver --------------------------------------------------------------- */

static const char *
op_key(Arena *a, const OnnxNode *n)
{
	if (!n->domain || !n->domain[0] || strcmp(n->domain, "ai.onnx") == 0)
		return n->op_type;
	return arena_printf(a, "%s:%s", n->domain, n->op_type);
}

/* Infers n's output shape, then counts it. */
static Poly *
count_node(Flops *f, const OnnxNode *n)
{
	int op = onnx_op_of(n);
	const FlopsRow *row = op >= 0 ? &rows[op] : NULL;

	if (!row || !row->count)
		return NULL;
	infer_node(f, n, op);
	return row->count(f, n, row->k);
}

Flops *
flops_new(Arena *a)
{
	Flops *f = ARENA_NEW(a, Flops);

	f->a = a;
	f->size = strmap_new(a, 64);
	f->param = strmap_new(a, 64);
	return f;
}

void
flops_bind(Flops *f, const char *name, int64_t size)
{
	int64_t *p = ARENA_NEW(f->a, int64_t);

	*p = size;
	strmap_put(f->size, arena_strdup(f->a, name), p);
}

int
flops_bind_shape(Flops *f, const Onnx__ValueInfoProto *vi, int rank, const int64_t *sizes)
{
	const Onnx__TensorShapeProto *ts;
	int bound = 0;

	if (!vi || !vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
	    !vi->type->tensor_type || !(ts = vi->type->tensor_type->shape) || (int)ts->n_dim != rank)
		return 0;
	for (int i = 0; i < rank; i++)     /* a sample of another shape is not this input's */
		if (ts->dim[i]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
		    sizes[i] >= 0 && ts->dim[i]->dim_value != sizes[i])
			return 0;
	for (int i = 0; i < rank; i++) {
		const Onnx__TensorShapeProto__Dimension *d = ts->dim[i];
		SymExpr *e;
		if (sizes[i] < 0 || d->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM ||
		    !d->dim_param || !(e = param_expr(f, d->dim_param)) || e->op != SYM_SYMBOL ||
		    strmap_get(f->size, e->name))
			continue;
		flops_bind(f, e->name, sizes[i]);
		bound++;
	}
	return bound;
}

FlopsNode *
flops_graph(Flops *f, const Onnx__GraphProto *g)
{
	FlopsNode *out = ARENA_ARRAY(f->a, FlopsNode, g->n_node + 1);
	Scope *saved = f->sc;

	scope_push(f, g);
	for (size_t i = 0; i < g->n_node; i++) {
		const OnnxNode *n = g->node[i];
		Poly *p = count_node(f, n);
		FlopsNode *r = &out[i];
		r->node = n;
		r->op_type = op_key(f->a, n);
		r->expr = p ? sym_print(f->a, poly_expr(f->a, p)) : NULL;
		if (!poly_value(p, lookup_size, f, &r->value))
			r->value = -1;
	}
	f->sc = saved;
	return out;
}
