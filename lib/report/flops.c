/* flops.c: FLOPs of ONNX nodes as polynomials in the dimension names.
 *
 * Two parts.  Shapes: every value's dims as canonical SymExprs (NULL:
 * unknown), from the graph's declarations first, then from a forward
 * inference for what is left; small int64 tensors (Shape, Concat,
 * constants) are tracked as lists of dims too, so a Reshape or
 * ConstantOfShape fed by them gets its shape.  The table: the flops
 * columns of lib/onnx/onnxops.def, one row per ONNX op, with its count
 * function (a Poly, see poly.h), a constant the function reads, and its
 * shape inference (NULL: the op's outputs get no inferred shape).  Counts
 * never fail the conversion: anything not known is "unknown". */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

#include "sym/sym.h"
#include "core/core.h"

/* ---- shapes and tracked values -------------------------------------------- */

typedef struct Shape {
	int rank;
	SymExpr **d;            /* rank dims, canonical; NULL: unknown dim */
} Shape;

/* A small integer tensor's contents (a shape being computed). */
typedef struct Vals {
	int n;
	int scalar;             /* 0-d (n == 1) */
	SymExpr **v;            /* n entries; NULL: unknown element */
} Vals;

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
	s->d = ARENA_ARRAY(a, SymExpr *, rank + 1);
	return s;
}

static Vals *
vals_new(Arena *a, int n, int scalar)
{
	Vals *v = ARENA_NEW(a, Vals);

	v->n = n;
	v->scalar = scalar;
	v->v = ARENA_ARRAY(a, SymExpr *, n + 1);
	return v;
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
			if (!old->d[i])
				old->d[i] = s->d[i];
}

static void
put_vals(Flops *f, const char *name, Vals *v)
{
	if (name && v)
		strmap_put(f->sc->vals, name, v);
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
			s->d[i] = poly_num(f->a, d->dim_value);
		else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param)
			s->d[i] = param_expr(f, d->dim_param);
	}
	return s;
}

/* The integers a small int32/int64 tensor holds, or NULL. */
static Vals *
tensor_vals(Arena *a, const OnnxTensor *t)
{
	int64_t n = 1;
	size_t es;
	Vals *v;

	if (!t || t->n_dims > 1 || (t->data_type != ONNX_INT64 &&
	                            t->data_type != ONNX_INT32))
		return NULL;
	if (t->n_dims)
		n = t->dims[0];
	if (n < 0 || n > 64)
		return NULL;
	es = t->data_type == ONNX_INT64 ? 8 : 4;
	v = vals_new(a, (int)n, t->n_dims == 0);
	for (int64_t i = 0; i < n; i++) {
		int64_t x;
		if (t->raw_data.data && t->raw_data.len == (size_t)n * es) {
			if (es == 8) {
				memcpy(&x, t->raw_data.data + i * 8, 8);
			} else {
				int32_t y;
				memcpy(&y, t->raw_data.data + i * 4, 4);
				x = y;
			}
		} else if (es == 8 && t->n_int64_data == (size_t)n) {
			x = t->int64_data[i];
		} else if (es == 4 && t->n_int32_data == (size_t)n) {
			x = t->int32_data[i];
		} else {
			return NULL;
		}
		v->v[i] = poly_num(a, x);
	}
	return v;
}

static Shape *
tensor_shape(Arena *a, const OnnxTensor *t)
{
	Shape *s = shape_new(a, (int)t->n_dims);

	for (size_t i = 0; i < t->n_dims; i++)
		s->d[i] = poly_num(a, t->dims[i]);
	return s;
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
	for (size_t i = 0; i < g->n_initializer; i++) {
		put_shape(f, g->initializer[i]->name, tensor_shape(f->a, g->initializer[i]));
		put_vals(f, g->initializer[i]->name, tensor_vals(f->a, g->initializer[i]));
	}
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
		p = poly_mul(a, p, poly_sym(a, s->d[i]));
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
	return poly_sym(a, s->d[i]);
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

/* An int list given as the attribute `name` (older opsets) or as the
 * constant input `input`; *k = -1 when neither says, -2 when not constant. */
static int64_t *
int_list(const Flops *f, const OnnxNode *n, const char *name, int input, int *k)
{
	const int64_t *at = attr_ints(n, name, k);
	const Vals *v;
	int64_t *out;

	if (*k >= 0)
		return arena_dup(f->a, at, sizeof *at * (size_t)*k);
	if (!in_name(n, input))
		return NULL;
	if (!(v = ivals(f, n, input))) {
		*k = -2;
		return NULL;
	}
	out = ARENA_ARRAY(f->a, int64_t, v->n + 1);
	for (int i = 0; i < v->n; i++)
		if (!poly_is_num(v->v[i], &out[i])) {
			*k = -2;
			return NULL;
		}
	*k = v->n;
	return out;
}

/* ---- shape inference ------------------------------------------------------ */

typedef void (*ShapeFn)(Flops *f, const OnnxNode *n);

static void
in_same(Flops *f, const OnnxNode *n)
{
	put_shape(f, out_name(n, 0), ishape(f, n, 0));
}

/* Cast, Identity: the contents pass through as well. */
static void
in_copy(Flops *f, const OnnxNode *n)
{
	in_same(f, n);
	put_vals(f, out_name(n, 0), ivals(f, n, 0));
}

/* numpy broadcasting of one dim pair: a static 1 yields to the other; a
 * static size > 1 wins over a name (the name must then equal it). */
static SymExpr *
bcast_dim(SymExpr *x, SymExpr *y)
{
	int64_t a, b;
	int xs = poly_is_num(x, &a), ys = poly_is_num(y, &b);

	if (xs && a == 1)
		return y;
	if (ys && b == 1)
		return x;
	if (xs && ys)
		return a == b ? x : NULL;
	if (xs || ys)
		return xs ? x : y;
	return x && y && sym_equal(x, y) ? x : NULL;
}

static Shape *
bcast(Arena *a, const Shape *x, const Shape *y)
{
	Shape *s;

	if (!x || !y)
		return NULL;
	s = shape_new(a, x->rank > y->rank ? x->rank : y->rank);
	for (int i = 1; i <= s->rank; i++) {
		SymExpr *dx = i <= x->rank ? x->d[x->rank - i] : poly_num(a, 1);
		SymExpr *dy = i <= y->rank ? y->d[y->rank - i] : poly_num(a, 1);
		s->d[s->rank - i] = bcast_dim(dx, dy);
	}
	return s;
}

static void
in_bcast(Flops *f, const OnnxNode *n)
{
	Shape *s = NULL;

	for (int i = 0; i < (int)n->n_input; i++) {
		Shape *x = ishape(f, n, i);
		if (!in_name(n, i))
			continue;
		if (!x)
			return;
		s = s ? bcast(f->a, s, x) : x;
	}
	put_shape(f, out_name(n, 0), s);
}

/* Add, Sub, Mul, Div: also on tracked contents (sizes computed in the graph). */
static void
in_arith(Flops *f, const OnnxNode *n)
{
	const Vals *x = ivals(f, n, 0), *y = ivals(f, n, 1);
	char op = n->op_type[0];
	Vals *r;

	in_bcast(f, n);
	if (!x || !y || (x->n != y->n && x->n != 1 && y->n != 1))
		return;
	r = vals_new(f->a, x->n > y->n ? x->n : y->n, x->scalar && y->scalar);
	for (int i = 0; i < r->n; i++) {
		SymExpr *a = x->v[x->n == 1 ? 0 : i], *b = y->v[y->n == 1 ? 0 : i], **ab;
		Poly *pa = poly_sym(f->a, a), *pb = poly_sym(f->a, b);
		int64_t ia, ib;
		if (!a || !b)
			continue;
		if (op == 'A')
			r->v[i] = poly_expr(f->a, poly_add(f->a, pa, pb));
		else if (op == 'S')
			r->v[i] = poly_expr(f->a, poly_add(f->a, pa, poly_scale(f->a, pb, -1)));
		else if (op == 'M')
			r->v[i] = poly_expr(f->a, poly_mul(f->a, pa, pb));
		else if (poly_is_num(a, &ia) && poly_is_num(b, &ib))
			r->v[i] = ib && !(ia == INT64_MIN && ib == -1) ? poly_num(f->a, ia / ib) : NULL;
		else {
			ab = ARENA_ARRAY(f->a, SymExpr *, 2);
			ab[0] = a;
			ab[1] = b;
			r->v[i] = poly_call(f->a, SYM_FLOORDIV, 2, ab);
		}
	}
	put_vals(f, out_name(n, 0), r);
}

static void
in_transpose(Flops *f, const OnnxNode *n)
{
	Shape *x = ishape(f, n, 0), *s;
	int k;
	const int64_t *perm = attr_ints(n, "perm", &k);

	if (!x || (perm && k != x->rank))
		return;
	s = shape_new(f->a, x->rank);
	for (int i = 0; i < x->rank; i++) {
		int64_t p = perm ? perm[i] : x->rank - 1 - i;
		if (p < 0 || p >= x->rank)
			return;
		s->d[i] = x->d[p];
	}
	put_shape(f, out_name(n, 0), s);
}

/* MatMul (and FusedMatMul's transA/transB): numpy matmul shapes. */
static void
in_matmul(Flops *f, const OnnxNode *n)
{
	Shape *a = ishape(f, n, 0), *b = ishape(f, n, 1), *ba, *bb, *batch, *s;
	int ta = (int)attr_int(n, "transA", 0), tb = (int)attr_int(n, "transB", 0), k = 0;

	if (!a || !b || a->rank < 1 || b->rank < 1)
		return;
	ba = shape_new(f->a, a->rank > 2 ? a->rank - 2 : 0);
	bb = shape_new(f->a, b->rank > 2 ? b->rank - 2 : 0);
	memcpy(ba->d, a->d, sizeof *ba->d * (size_t)ba->rank);
	memcpy(bb->d, b->d, sizeof *bb->d * (size_t)bb->rank);
	batch = bcast(f->a, ba, bb);
	s = shape_new(f->a, batch->rank + (a->rank > 1) + (b->rank > 1));
	memcpy(s->d, batch->d, sizeof *s->d * (size_t)batch->rank);
	k = batch->rank;
	if (a->rank > 1)
		s->d[k++] = a->d[a->rank - (ta ? 1 : 2)];
	if (b->rank > 1)
		s->d[k++] = b->d[b->rank - (tb ? 2 : 1)];
	put_shape(f, out_name(n, 0), s);
}

static void
in_gemm(Flops *f, const OnnxNode *n)
{
	Shape *a = ishape(f, n, 0), *b = ishape(f, n, 1), *s;

	if (!a || !b || a->rank != 2 || b->rank != 2)
		return;
	s = shape_new(f->a, 2);
	s->d[0] = a->d[attr_int(n, "transA", 0) ? 1 : 0];
	s->d[1] = b->d[attr_int(n, "transB", 0) ? 0 : 1];
	put_shape(f, out_name(n, 0), s);
}

/* Normalizes axis for rank r; -1 when out of range. */
static int
norm_axis(int64_t axis, int r)
{
	if (axis < 0)
		axis += r;
	return axis >= 0 && axis < r ? (int)axis : -1;
}

static void
in_shape(Flops *f, const OnnxNode *n)
{
	Shape *x = ishape(f, n, 0), *s;
	int64_t start, end;
	Vals *v;

	if (!x)
		return;
	start = attr_int(n, "start", 0);
	end = attr_int(n, "end", x->rank);
	start = start < 0 ? start + x->rank : start;
	end = end < 0 ? end + x->rank : end;
	start = start < 0 ? 0 : start > x->rank ? x->rank : start;
	end = end < start ? start : end > x->rank ? x->rank : end;
	s = shape_new(f->a, 1);
	s->d[0] = poly_num(f->a, end - start);
	v = vals_new(f->a, (int)(end - start), 0);
	memcpy(v->v, x->d + start, sizeof *v->v * (size_t)(end - start));
	put_shape(f, out_name(n, 0), s);
	put_vals(f, out_name(n, 0), v);
}

static void
in_concat(Flops *f, const OnnxNode *n)
{
	Shape *x = ishape(f, n, 0), *s;
	Poly *sum;
	int ax, total = 0, ok = 1;
	Vals *v;

	if (!x || (ax = norm_axis(attr_int(n, "axis", 0), x->rank)) < 0)
		return;
	s = shape_new(f->a, x->rank);
	memcpy(s->d, x->d, sizeof *s->d * (size_t)x->rank);
	sum = poly_int(f->a, 0);
	for (int i = 0; i < (int)n->n_input; i++) {
		Shape *y = ishape(f, n, i);
		const Vals *w = ivals(f, n, i);
		if (!y || y->rank != x->rank)
			return;
		sum = poly_add(f->a, sum, dim(f->a, y, ax));
		ok &= w && !w->scalar;
		total += w ? w->n : 0;
	}
	s->d[ax] = poly_expr(f->a, sum);
	put_shape(f, out_name(n, 0), s);
	if (!ok || x->rank != 1)
		return;
	v = vals_new(f->a, total, 0);
	total = 0;
	for (int i = 0; i < (int)n->n_input; i++) {
		const Vals *w = ivals(f, n, i);
		memcpy(v->v + total, w->v, sizeof *v->v * (size_t)w->n);
		total += w->n;
	}
	put_vals(f, out_name(n, 0), v);
}

/* Unsqueeze/Squeeze: axes from the attribute (opset < 13) or input 1. */
static void
in_unsqueeze(Flops *f, const OnnxNode *n)
{
	Shape *x = ishape(f, n, 0), *s;
	const Vals *xv = ivals(f, n, 0);
	int k, r;
	int64_t *axes = int_list(f, n, "axes", 1, &k);
	char *mark;

	if (!x || k < 0)
		return;
	r = x->rank + k;
	s = shape_new(f->a, r);
	mark = arena_alloc(f->a, (size_t)r + 1);
	for (int i = 0; i < k; i++) {
		int ax = norm_axis(axes[i], r);
		if (ax < 0 || mark[ax])
			return;
		mark[ax] = 1;
	}
	for (int i = 0, j = 0; i < r; i++)
		s->d[i] = mark[i] ? poly_num(f->a, 1) : x->d[j++];
	put_shape(f, out_name(n, 0), s);
	if (xv && x->rank == 0 && r == 1) {
		Vals *v = vals_new(f->a, 1, 0);
		v->v[0] = xv->v[0];
		put_vals(f, out_name(n, 0), v);
	}
}

static void
in_squeeze(Flops *f, const OnnxNode *n)
{
	Shape *x = ishape(f, n, 0), *s;
	const Vals *xv = ivals(f, n, 0);
	int k, r = 0;
	int64_t *axes = int_list(f, n, "axes", 1, &k), one;
	char *drop;

	if (!x || k == -2)
		return;
	drop = arena_alloc(f->a, (size_t)x->rank + 1);
	for (int i = 0; i < x->rank; i++) {
		if (k < 0 && !poly_is_num(x->d[i], NULL))
			return;     /* which dims are 1 is not known */
		drop[i] = k < 0 && poly_is_num(x->d[i], &one) && one == 1;
	}
	for (int i = 0; i < k; i++) {
		int ax = norm_axis(axes[i], x->rank);
		if (ax < 0)
			return;
		drop[ax] = 1;
	}
	s = shape_new(f->a, x->rank);
	for (int i = 0; i < x->rank; i++)
		if (!drop[i])
			s->d[r++] = x->d[i];
	s->rank = r;
	put_shape(f, out_name(n, 0), s);
	if (xv && r == 0 && xv->n == 1) {
		Vals *v = vals_new(f->a, 1, 1);
		v->v[0] = xv->v[0];
		put_vals(f, out_name(n, 0), v);
	}
}

static void
in_reshape(Flops *f, const OnnxNode *n)
{
	Shape *x = ishape(f, n, 0), *s;
	const Vals *t = ivals(f, n, 1), *xv = ivals(f, n, 0);
	int infer = -1, allowzero = (int)attr_int(n, "allowzero", 0);
	Poly *known;

	if (!t || t->scalar)
		return;
	s = shape_new(f->a, t->n);
	known = poly_int(f->a, 1);
	for (int i = 0; i < t->n; i++) {
		int64_t v;
		if (poly_is_num(t->v[i], &v) && v == -1)
			infer = i;
		else if (poly_is_num(t->v[i], &v) && v == 0 && !allowzero)
			s->d[i] = x && i < x->rank ? x->d[i] : NULL;
		else
			s->d[i] = t->v[i];
		if (i != infer)
			known = poly_mul(f->a, known, poly_sym(f->a, s->d[i]));
	}
	if (infer >= 0)
		s->d[infer] = poly_expr(f->a, poly_div_term(f->a, numel(f->a, x), known));
	put_shape(f, out_name(n, 0), s);
	if (xv && t->n <= 1) {
		Vals *v = vals_new(f->a, xv->n, t->n == 0);
		memcpy(v->v, xv->v, sizeof *v->v * (size_t)xv->n);
		put_vals(f, out_name(n, 0), v);
	}
}

static Shape *
shape_of_vals(Arena *a, const Vals *v)
{
	Shape *s;

	if (!v || v->scalar)
		return NULL;
	s = shape_new(a, v->n);
	memcpy(s->d, v->v, sizeof *s->d * (size_t)v->n);
	return s;
}

static void
in_constant_of_shape(Flops *f, const OnnxNode *n)
{
	put_shape(f, out_name(n, 0), shape_of_vals(f->a, ivals(f, n, 0)));
}

static void
in_expand(Flops *f, const OnnxNode *n)
{
	put_shape(f, out_name(n, 0), bcast(f->a, ishape(f, n, 0), shape_of_vals(f->a, ivals(f, n, 1))));
}

static void
in_constant(Flops *f, const OnnxNode *n)
{
	const Onnx__AttributeProto *at = attr(n, "value");
	int k;
	const int64_t *ints = attr_ints(n, "value_ints", &k);
	Vals *v;

	if (at && at->t) {
		put_shape(f, out_name(n, 0), tensor_shape(f->a, at->t));
		put_vals(f, out_name(n, 0), tensor_vals(f->a, at->t));
	} else if ((at = attr(n, "value_int"))) {
		v = vals_new(f->a, 1, 1);
		v->v[0] = poly_num(f->a, at->i);
		put_shape(f, out_name(n, 0), shape_new(f->a, 0));
		put_vals(f, out_name(n, 0), v);
	} else if (ints) {
		Shape *s = shape_new(f->a, 1);
		s->d[0] = poly_num(f->a, k);
		v = vals_new(f->a, k, 0);
		for (int i = 0; i < k; i++)
			v->v[i] = poly_num(f->a, ints[i]);
		put_shape(f, out_name(n, 0), s);
		put_vals(f, out_name(n, 0), v);
	}
}

static void
in_gather(Flops *f, const OnnxNode *n)
{
	Shape *x = ishape(f, n, 0), *q = ishape(f, n, 1), *s;
	const Vals *xv = ivals(f, n, 0), *iv = ivals(f, n, 1);
	int ax;

	if (!x || !q || (ax = norm_axis(attr_int(n, "axis", 0), x->rank)) < 0)
		return;
	s = shape_new(f->a, x->rank - 1 + q->rank);
	memcpy(s->d, x->d, sizeof *s->d * (size_t)ax);
	memcpy(s->d + ax, q->d, sizeof *s->d * (size_t)q->rank);
	memcpy(s->d + ax + q->rank, x->d + ax + 1, sizeof *s->d * (size_t)(x->rank - ax - 1));
	put_shape(f, out_name(n, 0), s);
	if (xv && iv && !xv->scalar && x->rank == 1) {
		Vals *v = vals_new(f->a, iv->n, iv->scalar);
		for (int i = 0; i < iv->n; i++) {
			int64_t k;
			if (!poly_is_num(iv->v[i], &k) || (k < 0 ? k + xv->n : k) < 0 || (k < 0 ? k + xv->n : k) >= xv->n)
				return;
			v->v[i] = xv->v[k < 0 ? k + xv->n : k];
		}
		put_vals(f, out_name(n, 0), v);
	}
}

/* Reductions: axes from the attribute or input 1; ArgMax/ArgMin: `axis`. */
static void
in_reduce(Flops *f, const OnnxNode *n)
{
	Shape *x = ishape(f, n, 0), *s;
	int k, r = 0, keep = (int)attr_int(n, "keepdims", 1);
	int64_t one_axis, *axes;
	char *red;

	if (!x)
		return;
	if (strncmp(n->op_type, "Arg", 3) == 0) {
		one_axis = attr_int(n, "axis", 0);
		axes = &one_axis;
		k = 1;
	} else if (!(axes = int_list(f, n, "axes", 1, &k)) && k == -2) {
		return;
	}
	red = arena_alloc(f->a, (size_t)x->rank + 1);
	if (k <= 0) {
		if (attr_int(n, "noop_with_empty_axes", 0)) {
			in_same(f, n);
			return;
		}
		memset(red, 1, (size_t)x->rank);
	}
	for (int i = 0; i < k; i++) {
		int ax = norm_axis(axes[i], x->rank);
		if (ax < 0)
			return;
		red[ax] = 1;
	}
	s = shape_new(f->a, x->rank);
	for (int i = 0; i < x->rank; i++)
		if (!red[i])
			s->d[r++] = x->d[i];
		else if (keep)
			s->d[r++] = poly_num(f->a, 1);
	s->rank = r;
	put_shape(f, out_name(n, 0), s);
}

static void
in_flatten(Flops *f, const OnnxNode *n)
{
	Shape *x = ishape(f, n, 0), *s;
	int ax;

	if (!x || (ax = (int)attr_int(n, "axis", 1)) < -x->rank || ax > x->rank)
		return;
	ax = ax < 0 ? ax + x->rank : ax;
	s = shape_new(f->a, 2);
	s->d[0] = poly_expr(f->a, dims_prod(f->a, x, 0, ax));
	s->d[1] = poly_expr(f->a, dims_prod(f->a, x, ax, x->rank));
	put_shape(f, out_name(n, 0), s);
}

/* Output size of one spatial axis of a convolution or pooling window. */
static SymExpr *
window_out(Arena *a, SymExpr *in, int64_t k, int64_t stride, int64_t dil, int64_t pads,
           int same, int ceil_mode)
{
	int64_t i, span = dil * (k - 1) + 1;

	if (stride < 1)
		return NULL;
	if (poly_is_num(in, &i)) {
		if (same)
			return poly_num(a, (i + stride - 1) / stride);
		i += pads - span;
		if (i < 0)
			return NULL;
		return poly_num(a, (ceil_mode ? (i + stride - 1) / stride : i / stride) + 1);
	}
	if (stride != 1)
		return NULL;
	return same ? in : poly_expr(a, poly_add(a, poly_sym(a, in), poly_int(a, pads - span + 1)));
}

/* Conv and the pools: [N, C_out, spatial...]. */
static void
in_window(Flops *f, const OnnxNode *n)
{
	Shape *x = ishape(f, n, 0), *w = ishape(f, n, 1), *s;
	int conv = strcmp(n->op_type, "Conv") == 0, nk, ns, nd, np, sp;
	const int64_t *kern = attr_ints(n, "kernel_shape", &nk), *st = attr_ints(n, "strides", &ns);
	const int64_t *dil = attr_ints(n, "dilations", &nd), *pads = attr_ints(n, "pads", &np);
	int same = attr_is(n, "auto_pad", "SAME_UPPER") || attr_is(n, "auto_pad", "SAME_LOWER");
	int ceil_mode = (int)attr_int(n, "ceil_mode", 0);

	if (!x || x->rank < 3 || (conv && (!w || w->rank != x->rank)))
		return;
	sp = x->rank - 2;
	if ((nk >= 0 && nk != sp) || (ns >= 0 && ns != sp) || (nd >= 0 && nd != sp) ||
	    (np >= 0 && np != 2 * sp) || (!kern && !conv))
		return;
	s = shape_new(f->a, x->rank);
	s->d[0] = x->d[0];
	s->d[1] = conv ? w->d[0] : x->d[1];
	for (int i = 0; i < sp; i++) {
		int64_t k;
		if (kern)
			k = kern[i];
		else if (!poly_is_num(w->d[2 + i], &k))
			return;
		s->d[2 + i] = window_out(f->a, x->d[2 + i], k, st ? st[i] : 1, dil ? dil[i] : 1,
		                         pads ? pads[i] + pads[i + sp] : 0, same, ceil_mode);
	}
	put_shape(f, out_name(n, 0), s);
}

static void
in_global(Flops *f, const OnnxNode *n)
{
	Shape *x = ishape(f, n, 0), *s;

	if (!x || x->rank < 2)
		return;
	s = shape_new(f->a, x->rank);
	s->d[0] = x->d[0];
	s->d[1] = x->d[1];
	for (int i = 2; i < x->rank; i++)
		s->d[i] = poly_num(f->a, 1);
	put_shape(f, out_name(n, 0), s);
}

/* Elements one axis keeps: ONNX Slice's clamping, static sizes only. */
static int64_t
slice_len(int64_t d, int64_t s, int64_t e, int64_t step)
{
	if (step > 0) {
		s = s < 0 ? (s + d < 0 ? 0 : s + d) : (s > d ? d : s);
		e = e < 0 ? (e + d < 0 ? 0 : e + d) : (e > d ? d : e);
		return e > s ? (e - s + step - 1) / step : 0;
	}
	s = s < 0 ? (s + d < -1 ? -1 : s + d) : (s > d - 1 ? d - 1 : s);
	e = e < 0 ? (e + d < -1 ? -1 : e + d) : (e > d - 1 ? d - 1 : e);
	return s > e ? (s - e + (-step) - 1) / (-step) : 0;
}

static void
in_slice(Flops *f, const OnnxNode *n)
{
	Shape *x = ishape(f, n, 0), *s;
	const Vals *xv = ivals(f, n, 0);
	int ns, ne, na, nst;
	int64_t *st = int_list(f, n, "starts", 1, &ns), *en = int_list(f, n, "ends", 2, &ne);
	int64_t *ax = int_list(f, n, "axes", 3, &na), *step = int_list(f, n, "steps", 4, &nst);

	if (!x || ns < 0 || ne != ns || na == -2 || nst == -2 || (na >= 0 && na != ns) ||
	    (nst >= 0 && nst != ns))
		return;
	s = shape_new(f->a, x->rank);
	memcpy(s->d, x->d, sizeof *s->d * (size_t)x->rank);
	for (int i = 0; i < ns; i++) {
		int a = norm_axis(ax ? ax[i] : i, x->rank);
		int64_t d, k = step ? step[i] : 1;
		if (a < 0 || k == 0)
			return;
		if (poly_is_num(x->d[a], &d))
			s->d[a] = poly_num(f->a, slice_len(d, st[i], en[i], k));
		else if (!(st[i] == 0 && en[i] >= INT32_MAX && k == 1))
			s->d[a] = NULL;
		if (a == 0 && xv && !xv->scalar && x->rank == 1 && poly_is_num(s->d[0], &d)) {
			Vals *v = vals_new(f->a, (int)d, 0);
			int64_t from = st[i] < 0 ? st[i] + xv->n : st[i] > xv->n ? xv->n : st[i];
			for (int j = 0; j < d; j++) {
				int64_t at = from + j * k;
				v->v[j] = at >= 0 && at < xv->n ? xv->v[at] : NULL;
			}
			put_vals(f, out_name(n, 0), v);
		}
	}
	put_shape(f, out_name(n, 0), s);
}

/* Attention, 4-D layout: [B, Hq, L, E] -> [B, Hq, L, Ev]. */
static void
in_attention(Flops *f, const OnnxNode *n)
{
	Shape *q = ishape(f, n, 0), *v = ishape(f, n, 2), *s;

	if (!q || !v || q->rank != 4 || v->rank != 4)
		return;
	s = shape_new(f->a, 4);
	memcpy(s->d, q->d, sizeof *s->d * 3);
	s->d[3] = v->d[3];
	put_shape(f, out_name(n, 0), s);
}

/* RNN, GRU, LSTM: Y is [S, dirs, B, H] ([B, S, dirs, H] with layout 1),
 * Y_h and Y_c are [dirs, B, H] ([B, dirs, H]). */
static void
in_rnn(Flops *f, const OnnxNode *n)
{
	Shape *x = ishape(f, n, 0), *w = ishape(f, n, 1), *y, *yh;
	int64_t h = attr_int(n, "hidden_size", 0);
	int bs = attr_int(n, "layout", 0) ? 1 : 0;

	if (!x || !w || x->rank != 3 || w->rank != 3 || h <= 0)
		return;
	y = shape_new(f->a, 4);
	yh = shape_new(f->a, 3);
	y->d[bs ? 1 : 0] = x->d[bs];            /* S */
	y->d[bs ? 2 : 1] = w->d[0];             /* dirs */
	y->d[bs ? 0 : 2] = x->d[1 - bs];        /* B */
	y->d[3] = poly_num(f->a, h);
	yh->d[bs] = w->d[0];
	yh->d[1 - bs] = x->d[1 - bs];
	yh->d[2] = y->d[3];
	put_shape(f, out_name(n, 0), y);
	put_shape(f, out_name(n, 1), yh);
	put_shape(f, out_name(n, 2), yh);
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
	if (h <= 0 && (!poly_is_num(w->d[1], &g) || g % k != 0 || (h = g / k) <= 0))
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
		if (!x->d[i] || !o->d[i] || !sym_equal(x->d[i], o->d[i]))
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
	if (!m || m->n != 1 || !m->v[0])
		return NULL;
	return poly_mul(f->a, poly_sym(f->a, m->v[0]), count_graph(f, attr_graph(n, "body")));
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
	ShapeFn shape;          /* infers output 0's shape; NULL: none */
} FlopsRow;

/* The flops columns of onnxops.def, by row. */
static const FlopsRow rows[ONNXOP_COUNT] = {
#define OP(id, name, dom, lo, hi, infer, fold, fold_in, fl, fl_k, fl_shape) [ONNXOP_##id] = {fl, fl_k, fl_shape},
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
	if (row->shape)
		row->shape(f, n);
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
