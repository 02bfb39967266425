/* infer.c: the element type and shape rules of the ONNX ops (the `infer`
 * column of onnxops.def), over the type model of onnx.h, for both of its
 * models: the optimizer's (static sizes and dim_param names) and the FLOPs
 * count's (dims as expressions, small int contents followed).
 *
 * A rule reads its node's attributes, its inputs' types and constant int
 * inputs; it hands each output it can say something about to put(), and
 * the contents it computes to put_vals().  It is written once: dims are
 * built and compared through the helpers below, which compute in the
 * caller's model (in the names model a sum or product with a symbol is an
 * unknown dim, in the expressions model it is the expression), and
 * contents are followed in the expressions model only.  Where the two
 * consumers have always been told different things the table says so (the
 * models column), and onnx_infer() strips what the names model is not
 * given; the few rules that still test the model say why. */
#include "onnx/onnx.h"

#include <string.h>

#include "sym/sym.h"

typedef void (*InferFn)(const OnnxInfer *f);

/* ---- reading the node ---- */

static const Onnx__AttributeProto *
attr(const OnnxInfer *f, const char *name)
{
	for (size_t i = 0; i < f->n->n_attribute; i++)
		if (strcmp(f->n->attribute[i]->name, name) == 0)
			return f->n->attribute[i];
	return NULL;
}

static int64_t
attr_i(const OnnxInfer *f, const char *name, int64_t def)
{
	const Onnx__AttributeProto *at = attr(f, name);

	return at && at->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT ? at->i : def;
}

/* The ints attribute: count (at most max stored), or -1 when absent. */
static int
attr_ints(const OnnxInfer *f, const char *name, int64_t *buf, int max)
{
	const Onnx__AttributeProto *at = attr(f, name);

	if (!at || at->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS)
		return -1;
	for (size_t i = 0; i < at->n_ints && (int)i < max; i++)
		buf[i] = at->ints[i];
	return (int)at->n_ints;
}

static int
attr_is(const OnnxInfer *f, const char *name, const char *want)
{
	const Onnx__AttributeProto *at = attr(f, name);

	return at && at->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING &&
	       at->s.len == strlen(want) && memcmp(at->s.data, want, at->s.len) == 0;
}

static const OnnxType *
in(const OnnxInfer *f, int k)
{
	return k < f->nin ? f->in[k] : NULL;
}

static int rank_of(const OnnxInfer *f, int k) { return in(f, k) ? in(f, k)->rank : -1; }
static int elem_of(const OnnxInfer *f, int k) { return in(f, k) ? in(f, k)->elem : 0; }
static const OnnxSize *dims_of(const OnnxInfer *f, int k) { return in(f, k) ? in(f, k)->dims : NULL; }
static const OnnxVals *vals_in(const OnnxInfer *f, int k) { return in(f, k) ? in(f, k)->vals : NULL; }

static int exprs(const OnnxInfer *f) { return f->a != NULL; }
static int max_rank(const OnnxInfer *f) { (void)f; return MAX_RANK; }

static void
put(const OnnxInfer *f, int k, int elem, int rank, const OnnxSize *dims)
{
	if (k < f->nout)
		f->put(f->ctx, k, elem, rank, dims);
}

/* What the rule knows of output k is its element type only. */
static void
put_elem(const OnnxInfer *f, int k, int elem)
{
	put(f, k, elem, -1, NULL);
}

static void
put_vals(const OnnxInfer *f, int k, int n, int scalar, const OnnxSize *v)
{
	if (exprs(f) && f->put_vals && k < f->nout)
		f->put_vals(f->ctx, k, &(OnnxVals){n, scalar, v});
}

/* 1 when the caller follows contents (the expressions model). */
static int
wants_vals(const OnnxInfer *f)
{
	return exprs(f) && f->put_vals;
}

/* ---- dims, in the caller's model ---- */

static OnnxSize
unknown(void)
{
	return (OnnxSize){-1, NULL, NULL};
}

/* Expression e as a dim of the expressions model. */
static OnnxSize
of_expr(SymExpr *e)
{
	int64_t v;

	return (OnnxSize){poly_is_num(e, &v) && v >= 0 ? v : -1, NULL, e};
}

static OnnxSize
num(const OnnxInfer *f, int64_t v)
{
	return exprs(f) ? of_expr(poly_num(f->a, v)) : (OnnxSize){v, NULL, NULL};
}

/* 1 (and *v) when dim d is a known number. */
static int
is_num(const OnnxInfer *f, OnnxSize d, int64_t *v)
{
	if (exprs(f))
		return poly_is_num(d.e, v);
	if (d.v < 0)
		return 0;
	if (v)
		*v = d.v;
	return 1;
}

/* 1 (and *v) when content element d is a known number: in the names model
 * every element is (a constant list), negative ones included. */
static int
val_num(const OnnxInfer *f, OnnxSize d, int64_t *v)
{
	if (exprs(f))
		return poly_is_num(d.e, v);
	if (v)
		*v = d.v;
	return 1;
}

static Poly *
poly_of(const OnnxInfer *f, OnnxSize d)
{
	return poly_sym(f->a, d.e);
}

static OnnxSize
of_poly(const OnnxInfer *f, const Poly *p)
{
	return of_expr(poly_expr(f->a, p));
}

static OnnxSize
dim_add(const OnnxInfer *f, OnnxSize a, OnnxSize b)
{
	uint64_t r;

	if (exprs(f))
		return of_poly(f, poly_add(f->a, poly_of(f, a), poly_of(f, b)));

	/* dims come from the input: a sum past INT64_MAX is unknown, not a wrap */
	if (a.v >= 0 && b.v >= 0 && !size_add((uint64_t)a.v, (uint64_t)b.v, &r) && r <= INT64_MAX)
		return num(f, (int64_t)r);
	return unknown();
}

/* In the names model a product with a static 1 keeps the other dim's name. */
static OnnxSize
dim_mul(const OnnxInfer *f, OnnxSize a, OnnxSize b)
{
	uint64_t r;

	if (exprs(f))
		return of_poly(f, poly_mul(f->a, poly_of(f, a), poly_of(f, b)));
	if (a.v >= 0 && b.v >= 0)   /* a product past INT64_MAX is unknown, not a wrap */
		return !size_mul((uint64_t)a.v, (uint64_t)b.v, &r) && r <= INT64_MAX ? num(f, (int64_t)r) : unknown();
	if (a.v == 1)
		return b;
	if (b.v == 1)
		return a;
	return unknown();
}

/* The product of d[from, to): 1 for none. */
static OnnxSize
dim_prod(const OnnxInfer *f, const OnnxSize *d, int from, int to)
{
	OnnxSize p;
	Poly *q;

	if (!exprs(f)) {
		p = num(f, 1);
		for (int i = from; i < to; i++)
			p = dim_mul(f, p, d[i]);
		return p;
	}
	q = poly_int(f->a, 1);
	for (int i = from; i < to && q; i++)
		q = poly_mul(f->a, q, poly_of(f, d[i]));
	return of_poly(f, q);
}

/* total / part, for a Reshape's -1: an exact quotient of expressions, or
 * (names model) the integer quotient of static sizes. */
static OnnxSize
dim_div(const OnnxInfer *f, OnnxSize total, OnnxSize part)
{
	if (exprs(f))
		return of_poly(f, poly_div_term(f->a, poly_of(f, total), poly_of(f, part)));
	return total.v >= 0 && part.v > 0 ? num(f, total.v / part.v) : unknown();
}

int
onnx_dim_eq(OnnxDim a, OnnxDim b)
{
	if (a.v >= 0 || b.v >= 0)
		return a.v == b.v;
	return a.sym && b.sym && strcmp(a.sym, b.sym) == 0;
}

/* numpy broadcasting of one dim pair, names model: a static 1 yields to
 * the other, a static size wins over a name (the first of two static
 * sizes when they differ), equal names stay. */
static OnnxDim
bcast_name(OnnxDim x, OnnxDim y)
{
	if (x.v == 1)
		return y;
	if (y.v == 1)
		return x;
	if (x.v >= 0)
		return x;
	if (y.v >= 0)
		return y;
	return onnx_dim_eq(x, y) ? x : (OnnxDim){-1, NULL};
}

/* The same in the caller's model; in the expressions model two different
 * static sizes give an unknown dim. */
static OnnxSize
bcast_dim(const OnnxInfer *f, OnnxSize x, OnnxSize y)
{
	int64_t a, b;
	int xs, ys;

	if (!exprs(f)) {
		OnnxDim d = bcast_name((OnnxDim){x.v, x.sym}, (OnnxDim){y.v, y.sym});
		return (OnnxSize){d.v, d.sym, NULL};
	}
	xs = poly_is_num(x.e, &a);
	ys = poly_is_num(y.e, &b);
	if (xs && a == 1)
		return y;
	if (ys && b == 1)
		return x;
	if (xs && ys)
		return a == b ? x : unknown();
	if (xs || ys)
		return xs ? x : y;
	return x.e && y.e && sym_equal(x.e, y.e) ? x : unknown();
}

int
onnx_broadcast(int ra, const OnnxDim *a, int rb, const OnnxDim *b, OnnxDim *out)
{
	int r = ra > rb ? ra : rb;

	if (ra < 0 || rb < 0 || r > MAX_RANK)
		return -1;
	for (int i = 0; i < r; i++) {
		int ia = i - (r - ra), ib = i - (r - rb);
		out[i] = bcast_name(ia >= 0 ? a[ia] : (OnnxDim){1, NULL}, ib >= 0 ? b[ib] : (OnnxDim){1, NULL});
	}
	return r;
}

/* The broadcast of shapes a and b into out (not aliasing them); rank or -1. */
static int
bcast(const OnnxInfer *f, int ra, const OnnxSize *a, int rb, const OnnxSize *b, OnnxSize *out)
{
	int r = ra > rb ? ra : rb;

	if (ra < 0 || rb < 0 || r > max_rank(f))
		return -1;
	for (int i = 0; i < r; i++) {
		int ia = i - (r - ra), ib = i - (r - rb);
		out[i] = bcast_dim(f, ia >= 0 ? a[ia] : num(f, 1), ib >= 0 ? b[ib] : num(f, 1));
	}
	return r;
}

/* The broadcast of inputs [0, n) into d; rank or -1.  The expressions
 * model skips omitted inputs; the names model needs all n. */
static int
bcast_all(const OnnxInfer *f, int n, OnnxSize *d)
{
	OnnxSize t[MAX_RANK];
	int r = -2;             /* no input yet */

	for (int i = 0; i < n; i++) {
		if (!in(f, i) && exprs(f))
			continue;
		if (rank_of(f, i) < 0)
			return -1;
		if (r == -2) {
			if ((r = rank_of(f, i)) > MAX_RANK)
				return -1;
			memcpy(d, dims_of(f, i), sizeof *d * (size_t)r);
			continue;
		}
		memcpy(t, d, sizeof *t * (size_t)r);
		if ((r = bcast(f, r, t, rank_of(f, i), dims_of(f, i), d)) < 0)
			return -1;
	}
	return r < 0 ? -1 : r;
}

/* Normalizes axis for rank r; -1 when out of range. */
static int
norm_axis(int64_t axis, int r)
{
	if (axis < 0)
		axis += r;
	return axis >= 0 && axis < r ? (int)axis : -1;
}

/* ---- contents ---- */

/* Input k's contents into buf: count, or -1 when not known (or more than
 * max).  Names model: a constant int list through const_ints(), every
 * element static; expressions model: the tracked contents, elements maybe
 * unknown.  *scalar: a 0-d tensor (known in the expressions model only). */
static int
vals_of(const OnnxInfer *f, int k, OnnxSize *buf, int max, int *scalar)
{
	const OnnxVals *v = vals_in(f, k);

	*scalar = 0;
	if (!in(f, k))
		return -1;
	if (!exprs(f)) {
		int64_t s[MAX_RANK];
		int n = f->const_ints(f->ctx, k, s, MAX_RANK);
		if (n < 0 || n > MAX_RANK || n > max)
			return -1;
		for (int i = 0; i < n; i++)
			buf[i] = (OnnxSize){s[i], NULL, NULL};
		return n;
	}
	if (!v || v->n > max)
		return -1;
	memcpy(buf, v->v, sizeof *buf * (size_t)v->n);
	*scalar = v->scalar;
	return v->n;
}

/* An int list given as the attribute `name` (older opsets) or as the
 * constant input k: count; -1 when neither says, -2 when not constant. */
static int
int_list(const OnnxInfer *f, const char *name, int k, int64_t *buf, int max)
{
	OnnxSize d[MAX_RANK];
	int n = attr_ints(f, name, buf, max), scalar;

	if (n >= 0)
		return n <= max ? n : -2;
	if (!in(f, k))
		return -1;
	if ((n = vals_of(f, k, d, max < MAX_RANK ? max : MAX_RANK, &scalar)) < 0)
		return -2;
	for (int i = 0; i < n; i++)
		if (!val_num(f, d[i], &buf[i]))
			return -2;
	return n;
}

/* The integers a small int32/int64 tensor holds, or NULL. */
static const OnnxVals *
tensor_vals(Arena *a, const OnnxTensor *t)
{
	int64_t n = 1;
	size_t es;
	OnnxVals *v;
	OnnxSize *d;

	if (!t || t->n_dims > 1 || (t->data_type != ONNX_INT64 && t->data_type != ONNX_INT32))
		return NULL;
	if (t->n_dims)
		n = t->dims[0];
	if (n < 0 || n > 64)
		return NULL;
	es = t->data_type == ONNX_INT64 ? 8 : 4;
	d = ARENA_ARRAY(a, OnnxSize, n + 1);
	for (int64_t i = 0; i < n; i++) {
		int64_t x;
		if (t->raw_data.data && t->raw_data.len == (size_t)n * es) {
			x = dtype_decode_i64(dtype_from_onnx(t->data_type), t->raw_data.data + i * es);
		} else if (es == 8 && t->n_int64_data == (size_t)n) {
			x = t->int64_data[i];
		} else if (es == 4 && t->n_int32_data == (size_t)n) {
			x = t->int32_data[i];
		} else {
			return NULL;
		}
		d[i] = of_expr(poly_num(a, x));
	}
	v = ARENA_NEW(a, OnnxVals);
	*v = (OnnxVals){(int)n, t->n_dims == 0, d};
	return v;
}

OnnxType
onnx_tensor_type(Arena *a, const OnnxTensor *t)
{
	OnnxSize *d = ARENA_ARRAY(a, OnnxSize, t->n_dims + 1);

	for (size_t i = 0; i < t->n_dims; i++)
		d[i] = of_expr(poly_num(a, t->dims[i]));
	return (OnnxType){t->data_type, (int)t->n_dims, d, tensor_vals(a, t)};
}

/* ---- the rules ---- */

/* Elementwise with one data input, normalizations, scatters: x's type. */
static void
infer_unary(const OnnxInfer *f)
{
	put(f, 0, elem_of(f, 0), rank_of(f, 0), dims_of(f, 0));
}

/* RandomUniformLike, RandomNormalLike: x's shape, in `dtype` (x's type
 * when absent). */
static void
infer_random_like(const OnnxInfer *f)
{
	int dt = (int)attr_i(f, "dtype", 0);

	put(f, 0, dt ? dt : elem_of(f, 0), rank_of(f, 0), dims_of(f, 0));
}

/* RandomUniform, RandomNormal: the `shape` attribute, in `dtype` (float
 * when absent). */
static void
infer_random(const OnnxInfer *f)
{
	int64_t sh[MAX_RANK];
	OnnxSize d[MAX_RANK];
	int r = attr_ints(f, "shape", sh, MAX_RANK), dt = (int)attr_i(f, "dtype", ONNX_FLOAT);

	if (r < 0 || r > MAX_RANK) {
		put_elem(f, 0, dt);
		return;
	}
	for (int i = 0; i < r; i++)
		d[i] = sh[i] >= 0 ? num(f, sh[i]) : unknown();
	put(f, 0, dt, r, d);
}

/* Multinomial: [batch, sample_size] draws, in `dtype` (int32 when absent). */
static void
infer_multinomial(const OnnxInfer *f)
{
	OnnxSize d[2];
	int dt = (int)attr_i(f, "dtype", ONNX_INT32);

	if (rank_of(f, 0) != 2) {
		put_elem(f, 0, dt);
		return;
	}
	d[0] = dims_of(f, 0)[0];
	d[1] = num(f, attr_i(f, "sample_size", 1));
	put(f, 0, dt, 2, d);
}

/* Identity: x's type and contents. */
static void
infer_copy(const OnnxInfer *f)
{
	const OnnxVals *v = vals_in(f, 0);

	infer_unary(f);
	if (v)
		put_vals(f, 0, v->n, v->scalar, v->v);
}

/* Cast: the contents pass through as well (shape arithmetic casts sizes). */
static void
infer_cast(const OnnxInfer *f)
{
	const OnnxVals *v = vals_in(f, 0);

	put(f, 0, (int)attr_i(f, "to", 0), rank_of(f, 0), dims_of(f, 0));
	if (v)
		put_vals(f, 0, v->n, v->scalar, v->v);
}

/* BitCast: the same shape in type `to`; the contents are new bits, not
 * followed. */
static void
infer_bitcast(const OnnxInfer *f)
{
	put(f, 0, (int)attr_i(f, "to", 0), rank_of(f, 0), dims_of(f, 0));
}

static void
infer_castlike(const OnnxInfer *f)
{
	const OnnxVals *v = vals_in(f, 0);

	put(f, 0, elem_of(f, 1), rank_of(f, 0), dims_of(f, 0));
	if (v)
		put_vals(f, 0, v->n, v->scalar, v->v);
}

/* Convolutions, pools, gathers, Pad, Tile, Resize: x's element type. */
static void
infer_elem(const OnnxInfer *f)
{
	put_elem(f, 0, elem_of(f, 0));
}

/* TopK: x's element type, and int64 indices. */
static void
infer_elem_indices(const OnnxInfer *f)
{
	put_elem(f, 0, elem_of(f, 0));
	put_elem(f, 1, ONNX_INT64);
}

static void
infer_split(const OnnxInfer *f)
{
	for (int k = 0; k < f->nout; k++)
		put_elem(f, k, elem_of(f, 0));
}

/* IsNaN, IsInf: a bool per element. */
static void
infer_test(const OnnxInfer *f)
{
	put(f, 0, ONNX_BOOL, rank_of(f, 0), dims_of(f, 0));
}

/* int64 [rank, number of non-zeros]. */
static void
infer_nonzero(const OnnxInfer *f)
{
	OnnxSize d[2] = {num(f, rank_of(f, 0)), unknown()};

	put(f, 0, ONNX_INT64, rank_of(f, 0) >= 0 ? 2 : -1, d);
}

/* Broadcasting ops.  The names model has always read the first two
 * inputs only (variadic Max, Min); the expressions model reads them all. */
static void
binary(const OnnxInfer *f, int elem)
{
	OnnxSize d[MAX_RANK];

	put(f, 0, elem, bcast_all(f, exprs(f) ? f->nin : 2, d), d);
}

static void infer_binary(const OnnxInfer *f) { binary(f, elem_of(f, 0)); }
static void infer_compare(const OnnxInfer *f) { binary(f, ONNX_BOOL); }

/* Add, Sub, Mul, Div: also on contents (sizes computed in the graph). */
static void
infer_arith(const OnnxInfer *f)
{
	const OnnxVals *x = vals_in(f, 0), *y = vals_in(f, 1);
	OnnxSize r[MAX_RANK];
	int n;

	binary(f, elem_of(f, 0));
	if (!wants_vals(f) || !x || !y || (x->n != y->n && x->n != 1 && y->n != 1))
		return;
	if ((n = x->n > y->n ? x->n : y->n) > MAX_RANK)
		return;
	for (int i = 0; i < n; i++) {
		OnnxSize a = x->v[x->n == 1 ? 0 : i], b = y->v[y->n == 1 ? 0 : i];
		int64_t ia, ib;
		SymExpr **ab;
		r[i] = unknown();
		if (!a.e || !b.e)
			continue;
		if (f->op == ONNXOP_ADD)
			r[i] = dim_add(f, a, b);
		else if (f->op == ONNXOP_SUB)
			r[i] = of_poly(f, poly_add(f->a, poly_of(f, a), poly_scale(f->a, poly_of(f, b), -1)));
		else if (f->op == ONNXOP_MUL)
			r[i] = dim_mul(f, a, b);
		else if (poly_is_num(a.e, &ia) && poly_is_num(b.e, &ib))
			r[i] = ib && !(ia == INT64_MIN && ib == -1) ? num(f, ia / ib) : unknown();
		else {
			ab = ARENA_ARRAY(f->a, SymExpr *, 2);
			ab[0] = a.e;
			ab[1] = b.e;
			r[i] = of_expr(poly_call(f->a, SYM_FLOORDIV, 2, ab));
		}
	}
	put_vals(f, 0, n, x->scalar && y->scalar, r);
}

static void
infer_where(const OnnxInfer *f)
{
	OnnxSize d[MAX_RANK];

	if (!in(f, 1) || !in(f, 2))
		return;
	put(f, 0, elem_of(f, 1) ? elem_of(f, 1) : elem_of(f, 2), bcast_all(f, exprs(f) ? f->nin : 3, d), d);
}

static void
infer_shape(const OnnxInfer *f)
{
	int rx = rank_of(f, 0);
	int64_t start = attr_i(f, "start", 0), end = attr_i(f, "end", rx);
	OnnxSize d;

	if (rx < 0) {
		put(f, 0, ONNX_INT64, 1, NULL);
		return;
	}
	start = start < 0 ? start + rx : start;
	end = end < 0 ? end + rx : end;
	start = start < 0 ? 0 : start > rx ? rx : start;
	end = end < start ? start : end > rx ? rx : end;
	d = num(f, end - start);
	put(f, 0, ONNX_INT64, 1, &d);
	put_vals(f, 0, (int)(end - start), 0, dims_of(f, 0) + start);
}

static void
infer_size(const OnnxInfer *f)
{
	put(f, 0, ONNX_INT64, 0, NULL);
}

static void
infer_transpose(const OnnxInfer *f)
{
	int64_t p[MAX_RANK];
	int k = attr_ints(f, "perm", p, MAX_RANK), rx = rank_of(f, 0);
	OnnxSize d[MAX_RANK];

	if (rx < 0 || rx > max_rank(f) || (k >= 0 && k != rx)) {
		put_elem(f, 0, elem_of(f, 0));
		return;
	}
	for (int i = 0; i < rx; i++) {
		int64_t j = k < 0 ? rx - 1 - i : p[i];
		if (j < 0 || j >= rx)
			return;
		d[i] = dims_of(f, 0)[j];
	}
	put(f, 0, elem_of(f, 0), rx, d);
}

/* MatMul (and FusedMatMul's transA/transB): numpy matmul shapes.  The
 * names model leaves 1-D operands unknown, as it always has. */
static void
infer_matmul(const OnnxInfer *f)
{
	int rx = rank_of(f, 0), ry = rank_of(f, 1), r;
	int ta = (int)attr_i(f, "transA", 0), tb = (int)attr_i(f, "transB", 0);
	const OnnxSize *a = dims_of(f, 0), *b = dims_of(f, 1);
	OnnxSize d[MAX_RANK];

	if (rx < 1 || ry < 1 || (!exprs(f) && (rx < 2 || ry < 2))) {
		put_elem(f, 0, elem_of(f, 0));
		return;
	}
	r = bcast(f, rx > 2 ? rx - 2 : 0, a, ry > 2 ? ry - 2 : 0, b, d);
	if (r < 0 || r + 2 > max_rank(f))
		return;
	if (rx > 1)
		d[r++] = a[rx - (ta ? 1 : 2)];
	if (ry > 1)
		d[r++] = b[ry - (tb ? 2 : 1)];
	put(f, 0, elem_of(f, 0), r, d);
}

/* QuantizeLinear: x's shape, in y_zero_point's element type, else the
 * output_dtype attribute (21), else uint8. */
static void
infer_quantize(const OnnxInfer *f)
{
	int elem = in(f, 2) ? elem_of(f, 2) : (int)attr_i(f, "output_dtype", ONNX_UINT8);

	put(f, 0, elem ? elem : ONNX_UINT8, rank_of(f, 0), dims_of(f, 0));
}

/* DequantizeLinear: x's shape, in x_scale's element type. */
static void
infer_dequantize(const OnnxInfer *f)
{
	put(f, 0, elem_of(f, 1), rank_of(f, 0), dims_of(f, 0));
}

/* DynamicQuantizeLinear: y (uint8, x's shape), its float scale and uint8
 * zero point (scalars). */
static void
infer_dynamic_quantize(const OnnxInfer *f)
{
	put(f, 0, ONNX_UINT8, rank_of(f, 0), dims_of(f, 0));
	put(f, 1, ONNX_FLOAT, 0, NULL);
	put(f, 2, ONNX_UINT8, 0, NULL);
}

/* MatMulInteger: MatMul's shapes, int32. */
static void infer_matmul(const OnnxInfer *f);

static void
put_int32(void *ctx, int k, int elem, int rank, const OnnxSize *dims)
{
	const OnnxInfer *f = ctx;

	(void)elem;
	f->put(f->ctx, k, ONNX_INT32, rank, dims);
}

static void
infer_matmul_integer(const OnnxInfer *f)
{
	OnnxInfer g = *f;

	g.put = put_int32;
	g.ctx = (void *)f;
	infer_matmul(&g);
}

/* com.microsoft MatMulNBits: A (..., K) times the packed B of attribute N
 * columns: (..., N) in A's element type. */
static void
infer_matmul_nbits(const OnnxInfer *f)
{
	int r = rank_of(f, 0);
	OnnxSize d[MAX_RANK];

	if (r < 1 || r > MAX_RANK) {
		put_elem(f, 0, elem_of(f, 0));
		return;
	}
	for (int i = 0; i < r - 1; i++)
		d[i] = dims_of(f, 0)[i];
	d[r - 1] = num(f, attr_i(f, "N", 0));
	put(f, 0, elem_of(f, 0), r, d);
}

static void
infer_gemm(const OnnxInfer *f)
{
	OnnxSize d[2];

	if (rank_of(f, 0) != 2 || rank_of(f, 1) != 2) {
		put_elem(f, 0, elem_of(f, 0));
		return;
	}
	d[0] = dims_of(f, 0)[attr_i(f, "transA", 0) ? 1 : 0];
	d[1] = dims_of(f, 1)[attr_i(f, "transB", 0) ? 0 : 1];
	put(f, 0, elem_of(f, 0), 2, d);
}

/* Reshape to a constant shape, or (expressions model) to one computed in
 * the graph: its 0s copy input dims, its -1 is what is left. */
static void
infer_reshape(const OnnxInfer *f)
{
	OnnxSize t[MAX_RANK], d[MAX_RANK], rest[MAX_RANK];
	int scalar, k = vals_of(f, 1, t, MAX_RANK, &scalar), neg = -1, nrest = 0, rx = rank_of(f, 0);
	int allowzero = (int)attr_i(f, "allowzero", 0);
	const OnnxVals *xv = vals_in(f, 0);

	if (k < 0 || scalar) {
		put_elem(f, 0, elem_of(f, 0));   /* a shape computed in the graph */
		return;
	}
	for (int i = 0; i < k; i++) {
		int64_t v;
		if (val_num(f, t[i], &v) && v == -1) {
			neg = i;
			d[i] = unknown();
			continue;
		}
		if (val_num(f, t[i], &v) && v == 0 && !allowzero)
			d[i] = i < rx ? dims_of(f, 0)[i] : unknown();
		else
			d[i] = t[i];
		rest[nrest++] = d[i];
	}
	if (neg >= 0)
		d[neg] = dim_div(f, rx >= 0 ? dim_prod(f, dims_of(f, 0), 0, rx) : unknown(),
		                 dim_prod(f, rest, 0, nrest));
	put(f, 0, elem_of(f, 0), k, d);
	if (xv && k <= 1)
		put_vals(f, 0, xv->n, k == 0, xv->v);
}

static void
infer_unsqueeze(const OnnxInfer *f)
{
	int64_t ax[MAX_RANK];
	int k = int_list(f, "axes", 1, ax, MAX_RANK), rx = rank_of(f, 0), out, j = 0;
	const OnnxVals *xv = vals_in(f, 0);
	char mark[MAX_RANK] = {0};
	OnnxSize d[MAX_RANK];

	if (k < 0 || rx < 0 || (out = rx + k) > max_rank(f)) {
		put_elem(f, 0, elem_of(f, 0));
		return;
	}
	for (int i = 0; i < k; i++) {
		int a = norm_axis(ax[i], out);
		if (a < 0 || mark[a])
			return;
		mark[a] = 1;
	}
	for (int i = 0; i < out; i++)
		d[i] = mark[i] ? num(f, 1) : dims_of(f, 0)[j++];
	put(f, 0, elem_of(f, 0), out, d);
	if (xv && rx == 0 && out == 1)
		put_vals(f, 0, 1, 0, xv->v);
}

/* Squeeze: the given axes, or without any every static 1. */
static void
infer_squeeze(const OnnxInfer *f)
{
	int64_t ax[MAX_RANK], one;
	int k = int_list(f, "axes", 1, ax, MAX_RANK), rx = rank_of(f, 0), j = 0;
	const OnnxSize *dx = dims_of(f, 0);
	const OnnxVals *xv = vals_in(f, 0);
	char drop[MAX_RANK] = {0};
	OnnxSize d[MAX_RANK];

	if (rx < 0 || rx > MAX_RANK) {
		put_elem(f, 0, elem_of(f, 0));
		return;
	}
	if (k == -2)
		return;
	for (int i = 0; i < rx; i++) {
		if (k < 0 && !is_num(f, dx[i], NULL))
			return;     /* which dims are 1 is not known */
		drop[i] = k < 0 && is_num(f, dx[i], &one) && one == 1;
	}
	for (int i = 0; i < k; i++) {
		int a = norm_axis(ax[i], rx);
		if (a < 0)
			return;
		drop[a] = 1;
	}
	for (int i = 0; i < rx; i++)
		if (!drop[i])
			d[j++] = dx[i];
	put(f, 0, elem_of(f, 0), j, d);
	if (xv && j == 0 && xv->n == 1)
		put_vals(f, 0, 1, 1, xv->v);
}

static void
infer_concat(const OnnxInfer *f)
{
	int rx = rank_of(f, 0), ax = norm_axis(attr_i(f, "axis", 0), rx), total = 0, ok = 1;
	OnnxSize d[MAX_RANK], v[MAX_RANK];

	if (rx < 0 || ax < 0 || rx > MAX_RANK) {
		put_elem(f, 0, elem_of(f, 0));
		return;
	}
	memcpy(d, dims_of(f, 0), sizeof *d * (size_t)rx);
	for (int i = 1; i < f->nin; i++) {
		if (rank_of(f, i) != rx) {
			put_elem(f, 0, elem_of(f, 0));
			return;
		}
		d[ax] = dim_add(f, d[ax], dims_of(f, i)[ax]);
	}
	put(f, 0, elem_of(f, 0), rx, d);
	if (!wants_vals(f) || rx != 1)
		return;
	for (int i = 0; i < f->nin && ok; i++) {
		const OnnxVals *w = vals_in(f, i);
		ok = w && !w->scalar && total + w->n <= MAX_RANK;
		if (ok)
			memcpy(v + total, w->v, sizeof *v * (size_t)w->n);
		total += ok ? w->n : 0;
	}
	if (ok)
		put_vals(f, 0, total, 0, v);
}

static void
infer_gather(const OnnxInfer *f)
{
	int rx = rank_of(f, 0), ry = rank_of(f, 1), j = 0, ax = norm_axis(attr_i(f, "axis", 0), rx);
	const OnnxVals *xv = vals_in(f, 0), *iv = vals_in(f, 1);
	OnnxSize d[MAX_RANK], v[MAX_RANK];

	if (rx < 0 || ry < 0 || ax < 0 || rx - 1 + ry > max_rank(f)) {
		put_elem(f, 0, elem_of(f, 0));
		return;
	}
	for (int i = 0; i < rx; i++) {
		if (i == ax)
			for (int t = 0; t < ry; t++)
				d[j++] = dims_of(f, 1)[t];
		else
			d[j++] = dims_of(f, 0)[i];
	}
	put(f, 0, elem_of(f, 0), j, d);
	if (!wants_vals(f) || !xv || !iv || xv->scalar || rx != 1 || iv->n > MAX_RANK)
		return;
	for (int i = 0; i < iv->n; i++) {
		int64_t k;
		if (!poly_is_num(iv->v[i].e, &k) || (k < 0 ? k + xv->n : k) < 0 || (k < 0 ? k + xv->n : k) >= xv->n)
			return;
		v[i] = xv->v[k < 0 ? k + xv->n : k];
	}
	put_vals(f, 0, iv->n, iv->scalar, v);
}

static void
infer_expand(const OnnxInfer *f)
{
	OnnxSize s[MAX_RANK], d[MAX_RANK];
	int scalar, k = vals_of(f, 1, s, MAX_RANK, &scalar);

	if (k < 0 || scalar || rank_of(f, 0) < 0) {
		put_elem(f, 0, elem_of(f, 0));
		return;
	}
	put(f, 0, elem_of(f, 0), bcast(f, rank_of(f, 0), dims_of(f, 0), k, s, d), d);
}

static void
infer_constant_of_shape(const OnnxInfer *f)
{
	OnnxSize s[MAX_RANK];
	const Onnx__AttributeProto *at = attr(f, "value");
	int e = at && at->t ? at->t->data_type : ONNX_FLOAT;
	int scalar, k = vals_of(f, 0, s, MAX_RANK, &scalar);

	put(f, 0, e, scalar ? -1 : k, s);
}

/* Constant: the tensor's shape, and its contents when it is a small int
 * list (constant folding, not this rule, serves the names model). */
static void
infer_constant(const OnnxInfer *f)
{
	const Onnx__AttributeProto *at = attr(f, "value");
	OnnxSize *d;
	int k;

	if (!exprs(f))
		return;
	if (at && at->t) {
		OnnxType t = onnx_tensor_type(f->a, at->t);
		put(f, 0, t.elem, t.rank, t.dims);
		if (t.vals)
			put_vals(f, 0, t.vals->n, t.vals->scalar, t.vals->v);
	} else if ((at = attr(f, "value_int"))) {
		d = ARENA_ARRAY(f->a, OnnxSize, 1);
		d[0] = num(f, at->i);
		put(f, 0, ONNX_INT64, 0, d);
		put_vals(f, 0, 1, 1, d);
	} else if ((at = attr(f, "value_ints")) && at->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS) {
		k = (int)at->n_ints;
		OnnxSize len = num(f, k);
		d = ARENA_ARRAY(f->a, OnnxSize, k + 1);
		for (int i = 0; i < k; i++)
			d[i] = num(f, at->ints[i]);
		put(f, 0, ONNX_INT64, 1, &len);
		put_vals(f, 0, k, 0, d);
	}
}

static void
infer_range(const OnnxInfer *f)
{
	put(f, 0, elem_of(f, 0), 1, NULL);
}

/* Reductions: axes from the attribute or input 1; ArgMax/ArgMin: `axis`. */
static void
infer_reduce(const OnnxInfer *f)
{
	int64_t ax[MAX_RANK];
	int keep = (int)attr_i(f, "keepdims", 1), j = 0, k, rx = rank_of(f, 0);
	int arg = f->op == ONNXOP_ARG_MAX || f->op == ONNXOP_ARG_MIN;
	int elem = arg ? ONNX_INT64 : elem_of(f, 0);        /* ArgMax/ArgMin: int64 indices */
	char mark[MAX_RANK] = {0};
	OnnxSize d[MAX_RANK];

	if (arg) {
		ax[0] = attr_i(f, "axis", 0);
		k = 1;
	} else {
		k = int_list(f, "axes", 1, ax, MAX_RANK);
	}
	if (rx < 0 || rx > MAX_RANK || k == -2) {
		put_elem(f, 0, elem);
		return;
	}
	if (k <= 0 && !attr_i(f, "noop_with_empty_axes", 0))
		memset(mark, 1, (size_t)rx);
	for (int i = 0; i < k; i++) {
		int a = norm_axis(ax[i], rx);
		if (a < 0)
			return;
		mark[a] = 1;
	}
	for (int i = 0; i < rx; i++)
		if (!mark[i])
			d[j++] = dims_of(f, 0)[i];
		else if (keep)
			d[j++] = num(f, 1);
	put(f, 0, elem, j, d);
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

/* Slice with constant bounds: a static axis gets its length, a symbolic
 * one stays when the slice takes all of it (0 to the end, step 1), and the
 * contents of a sliced 1-D list follow. */
static void
infer_slice(const OnnxInfer *f)
{
	int64_t st[MAX_RANK], en[MAX_RANK], ax[MAX_RANK], step[MAX_RANK];
	int ns = int_list(f, "starts", 1, st, MAX_RANK), ne = int_list(f, "ends", 2, en, MAX_RANK);
	int na = int_list(f, "axes", 3, ax, MAX_RANK), nst = int_list(f, "steps", 4, step, MAX_RANK);
	int rx = rank_of(f, 0);
	const OnnxVals *xv = vals_in(f, 0);
	OnnxSize d[MAX_RANK];

	if (rx < 0 || rx > MAX_RANK || ns < 0 || ne != ns || na == -2 || nst == -2 ||
	    (na >= 0 && na != ns) || (nst >= 0 && nst != ns)) {
		put(f, 0, elem_of(f, 0), rx, NULL);
		return;
	}
	memcpy(d, dims_of(f, 0), sizeof *d * (size_t)rx);
	for (int i = 0; i < ns; i++) {
		int a = norm_axis(na >= 0 ? ax[i] : i, rx);
		int64_t len, k = nst >= 0 ? step[i] : 1;
		if (a < 0 || k == 0) {
			put(f, 0, elem_of(f, 0), rx, NULL);
			return;
		}
		if (is_num(f, d[a], &len))
			d[a] = num(f, slice_len(len, st[i], en[i], k));
		else if (!(st[i] == 0 && en[i] >= INT32_MAX && k == 1))
			d[a] = unknown();
		if (wants_vals(f) && a == 0 && xv && !xv->scalar && rx == 1 && is_num(f, d[0], &len) &&
		    len <= MAX_RANK) {
			OnnxSize v[MAX_RANK];
			int64_t from = st[i] < 0 ? st[i] + xv->n : st[i] > xv->n ? xv->n : st[i];
			for (int j = 0; j < len; j++) {
				int64_t at = from + j * k;
				v[j] = at >= 0 && at < xv->n ? xv->v[at] : unknown();
			}
			put_vals(f, 0, (int)len, 0, v);
		}
	}
	put(f, 0, elem_of(f, 0), rx, d);
}

static void
infer_flatten(const OnnxInfer *f)
{
	int64_t axis = attr_i(f, "axis", 1);
	int rx = rank_of(f, 0);
	OnnxSize d[2];

	if (rx < 0 || axis < -rx || axis > rx)
		return;
	axis = axis < 0 ? axis + rx : axis;
	d[0] = dim_prod(f, dims_of(f, 0), 0, (int)axis);
	d[1] = dim_prod(f, dims_of(f, 0), (int)axis, rx);
	put(f, 0, elem_of(f, 0), 2, d);
}

/* The 4-D layout: Q's [B, H, L] and V's head size. */
static void
infer_attention(const OnnxInfer *f)
{
	OnnxSize d[4];

	if (rank_of(f, 0) == 4 && rank_of(f, 2) == 4) {
		memcpy(d, dims_of(f, 0), sizeof *d * 4);
		d[3] = dims_of(f, 2)[3];
		put(f, 0, elem_of(f, 0), 4, d);
	} else {
		put_elem(f, 0, elem_of(f, 0));
	}
}

/* Output size of one spatial axis of a convolution or pooling window; a
 * symbolic size only with stride 1. */
static OnnxSize
window_out(const OnnxInfer *f, OnnxSize x, int64_t k, int64_t stride, int64_t dil, int64_t pads,
           int64_t pad_begin, int same, int ceil_mode)
{
	int64_t i, o, span = dil * (k - 1) + 1;

	if (stride < 1)
		return unknown();
	if (is_num(f, x, &i)) {
		if (same)
			return num(f, (i + stride - 1) / stride);
		if (i + pads - span < 0)
			return unknown();
		o = (ceil_mode ? (i + pads - span + stride - 1) / stride : (i + pads - span) / stride) + 1;
		/* ceil_mode: a last window starting in the end padding is dropped */
		if (ceil_mode && o > 1 && (o - 1) * stride >= i + pad_begin)
			o--;
		return num(f, o);
	}
	if (stride != 1)
		return unknown();
	return same ? x : dim_add(f, x, num(f, pads - span + 1));
}

/* Conv and the pools: [N, C_out, spatial...]; MaxPool's indices are int64. */
static void
infer_window(const OnnxInfer *f)
{
	int64_t kern[MAX_RANK], st[MAX_RANK], dil[MAX_RANK], pads[2 * MAX_RANK];
	int conv = f->op == ONNXOP_CONV, rx = rank_of(f, 0), sp = rx - 2;
	int nk = attr_ints(f, "kernel_shape", kern, MAX_RANK), ns = attr_ints(f, "strides", st, MAX_RANK);
	int nd = attr_ints(f, "dilations", dil, MAX_RANK), np = attr_ints(f, "pads", pads, 2 * MAX_RANK);
	int same = attr_is(f, "auto_pad", "SAME_UPPER") || attr_is(f, "auto_pad", "SAME_LOWER");
	int ceil_mode = (int)attr_i(f, "ceil_mode", 0);
	const OnnxSize *x = dims_of(f, 0), *w = dims_of(f, 1);
	OnnxSize d[MAX_RANK];

	if (f->op == ONNXOP_MAX_POOL)
		put_elem(f, 1, ONNX_INT64);
	if (rx < 3 || rx > MAX_RANK || (conv && rank_of(f, 1) != rx) || (nk >= 0 && nk != sp) ||
	    (ns >= 0 && ns != sp) || (nd >= 0 && nd != sp) || (np >= 0 && np != 2 * sp) ||
	    (nk < 0 && !conv)) {
		put_elem(f, 0, elem_of(f, 0));
		return;
	}
	d[0] = x[0];
	d[1] = conv ? w[0] : x[1];
	for (int i = 0; i < sp; i++) {
		int64_t k;
		if (nk >= 0)
			k = kern[i];
		else if (!is_num(f, w[2 + i], &k)) {
			put_elem(f, 0, elem_of(f, 0));
			return;
		}
		d[2 + i] = window_out(f, x[2 + i], k, ns >= 0 ? st[i] : 1, nd >= 0 ? dil[i] : 1,
		                      np >= 0 ? pads[i] + pads[i + sp] : 0, np >= 0 ? pads[i] : 0, same, ceil_mode);
	}
	put(f, 0, elem_of(f, 0), rx, d);
}

/* The global pools: [N, C, 1...]. */
static void
infer_global(const OnnxInfer *f)
{
	int rx = rank_of(f, 0);
	OnnxSize d[MAX_RANK];

	if (rx < 2 || rx > MAX_RANK) {
		put_elem(f, 0, elem_of(f, 0));
		return;
	}
	d[0] = dims_of(f, 0)[0];
	d[1] = dims_of(f, 0)[1];
	for (int i = 2; i < rx; i++)
		d[i] = num(f, 1);
	put(f, 0, elem_of(f, 0), rx, d);
}

/* RNN, GRU, LSTM: Y is [S, dirs, B, H] ([B, S, dirs, H] with layout 1),
 * Y_h and Y_c are [dirs, B, H] ([B, dirs, H]); all of X's element type. */
static void
infer_rnn(const OnnxInfer *f)
{
	const OnnxSize *x = dims_of(f, 0), *w = dims_of(f, 1);
	int64_t h = attr_i(f, "hidden_size", 0);
	int bs = attr_i(f, "layout", 0) ? 1 : 0;
	OnnxSize y[4], yh[3];

	if (rank_of(f, 0) != 3 || rank_of(f, 1) != 3 || h <= 0) {
		for (int k = 0; k < f->nout; k++)
			put_elem(f, k, elem_of(f, 0));
		return;
	}
	y[bs ? 1 : 0] = x[bs];                  /* S */
	y[bs ? 2 : 1] = w[0];                   /* dirs */
	y[bs ? 0 : 2] = x[1 - bs];              /* B */
	y[3] = num(f, h);
	yh[bs] = w[0];
	yh[1 - bs] = x[1 - bs];
	yh[2] = y[3];
	put(f, 0, elem_of(f, 0), 4, y);
	put(f, 1, elem_of(f, 0), 3, yh);
	put(f, 2, elem_of(f, 0), 3, yh);
}

/* ---- the column ---- */

/* The models column: which models a rule serves, and for tE and rE what
 * of the names model's answer is kept. */
enum {
	USE_0 = 0,
	USE_N = ONNX_MODEL_NAMES,
	USE_E = ONNX_MODEL_EXPRS,
	USE_NE = USE_N | USE_E,
	USE_TYPES = 4,          /* names model: element types only */
	USE_RANK = 8,           /* names model: element types and ranks */
	USE_tE = USE_NE | USE_TYPES,
	USE_rE = USE_NE | USE_RANK,
};

typedef struct Rule {
	InferFn fn;
	int use;
} Rule;

static const Rule rules[ONNXOP_COUNT] = {
#define OP(id, name, dom, lo, hi, infer, models, fold, fold_in, fl, fl_k) [ONNXOP_##id] = {infer, USE_##models},
#include "onnx/onnxops.def"
#undef OP
};

/* A names-model caller told less than the rule says (tE, rE rows). */
typedef struct Strip {
	const OnnxInfer *f;
	int rank;               /* keep ranks */
} Strip;

static void
strip_put(void *ctx, int k, int elem, int rank, const OnnxSize *dims)
{
	const Strip *s = ctx;

	(void)dims;
	s->f->put(s->f->ctx, k, elem, s->rank ? rank : -1, NULL);
}

static int
strip_const_ints(void *ctx, int k, int64_t *buf, int max)
{
	const Strip *s = ctx;

	return s->f->const_ints(s->f->ctx, k, buf, max);
}

void
onnx_infer(const OnnxInfer *f)
{
	int model = exprs(f) ? ONNX_MODEL_EXPRS : ONNX_MODEL_NAMES;
	const Rule *r;

	if (!onnx_infer_known(f->op, model))
		return;
	r = &rules[f->op];
	if (model == ONNX_MODEL_NAMES && (r->use & (USE_TYPES | USE_RANK))) {
		Strip s = {f, r->use & USE_RANK};
		OnnxInfer g = *f;
		g.ctx = &s;
		g.put = strip_put;
		g.const_ints = strip_const_ints;
		r->fn(&g);
		return;
	}
	r->fn(f);
}

int
onnx_infer_known(int op, int model)
{
	return op >= 0 && op < ONNXOP_COUNT && rules[op].fn && (rules[op].use & model);
}
