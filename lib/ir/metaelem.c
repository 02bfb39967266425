/* metaelem.c: the dtype and shape rules of elementwise ops, reductions,
 * softmax, tensor factories and conversions, and the Python int results
 * of scripted code (size, numel, int arithmetic).  ir/internal.h says how a
 * rule works. */
#include "ir/internal.h"

#include <limits.h>
#include <string.h>

/* ==== pointwise: broadcasting ==== */

/* Elementwise ops: every tensor argument broadcast, the row's dtype. */
int
meta_rule_pointwise(MetaCtx *c)
{
	int r = 0;
	Dim *d = NULL;
	DType t;

	for (int i = 0; i < c->n->nin; i++) {
		const Arg *x = &c->n->in[i].arg;
		if ((x->kind == ARG_TENSOR || x->kind == ARG_OPT_TENSOR) && x->u.v && x->u.v->kind == VAL_TENSOR)
			if (meta_broadcast(c, &r, &d, x->u.v->rank, x->u.v->dims))
				return -1;
	}
	if (!d && !meta_first_tensor(c))
		return meta_fail(c, "no tensor argument");
	if (meta_dtype_of(c, &t))
		return -1;
	if (c->row->p & PW_ROUNDING) {        /* div's rounding modes keep integers */
		const Arg *m = meta_arg(c, "rounding_mode");
		if (m && m->kind == ARG_STRING && strcmp(m->u.s, "true") != 0) {
			int bad;
			t = meta_result_type(c, &bad);
		}
	}
	if (c->row->p & PW_POW) {        /* bool ** bool computes in int64 */
		const Arg *e = meta_arg(c, "exponent");
		if (t == DT_BOOL)
			t = DT_INT64;
		if (e && e->kind == ARG_INT && e->u.i < 0 && dtype_kind(t) == DK_INT)
			return meta_fail(c, "integers to negative integer powers are not allowed");
	}
	if ((c->row->p & PW_CLAMP) && !meta_arg(c, "min") && !meta_arg(c, "max"))
		return meta_fail(c, "clamp: at least one of 'min' or 'max' must not be None");
	{
		const Arg *alpha = meta_arg(c, "alpha"), *v = meta_arg(c, "value");
		if (alpha && (alpha->kind == ARG_FLOAT || alpha->kind == ARG_SYM_FLOAT) && dtype_kind(t) <= DK_INT)
			return meta_fail(c, "for integral input tensors, argument alpha must not be a floating point number");
		if (c->row->dt == MD_SELF && v && v->kind == ARG_FLOAT && dtype_kind(t) <= DK_INT &&
		    (v->u.f != v->u.f || v->u.f > 9.2e18 || v->u.f < -9.2e18))
			return meta_fail(c, "value %g cannot be converted to type %s without overflow", v->u.f, dtype_name(t));
	}
	if (c->row->p & PW_FREXP)        /* frexp: the mantissa, and the exponent as int32 */
		return meta_out_tensor(c, t, r, d) || meta_out_tensor(c, DT_INT32, r, d) ? -1 : 0;
	return meta_out_tensor(c, t, r, d);
}

/* Results shaped like the first tensor: unary ops that are not
 * TensorIterator ops, clones, activations with parameters.  p is SAME_*:
 * one result; a bool mask beside it (native_dropout); int64 indices
 * beside it (sort, cummax); an int64 result (argsort); one result of a
 * tensor of at least 2 dims (triu).  A dim or dims argument must be in
 * range. */
int
meta_rule_same(MetaCtx *c)
{
	Value *x = c->row->p == SAME_BUCKET ? meta_tensor(c, "self") : meta_first_tensor(c);
	DType t;
	int64_t d;
	int w;

	if (!x)
		return meta_fail(c, "no tensor argument");
	if (meta_dtype_of(c, &t))
		return -1;
	if (meta_arg(c, "dim") && meta_get_int(c, "dim", 0, &d) && meta_wrap(c, d, x->rank, &w))
		return -1;
	if (meta_arg(c, "dims") && x->rank <= MAX_RANK) {
		unsigned char mask[MAX_RANK];
		if (meta_reduced(c, x, "dims", mask))
			return -1;
	}
	if (c->row->p == SAME_MATRIX && x->rank < 2)
		return meta_fail(c, "%s: input tensor must have at least 2 dimensions", c->n->op);
	if (c->row->p == SAME_BUCKET) {     /* bucketize, searchsorted: indices into the boundaries */
		const Arg *o = meta_arg(c, "out_int32");
		int i32 = o && (o->kind == ARG_BOOL || o->kind == ARG_INT) && o->u.i;
		return meta_out_like(c, i32 ? DT_INT32 : DT_INT64, x);
	}
	if (meta_out_like(c, c->row->p == SAME_INT64 ? DT_INT64 : t, x))
		return -1;
	if (c->row->p == SAME_MASK)
		return meta_out_like(c, DT_BOOL, x);
	if (c->row->p == SAME_INDICES)
		return meta_out_like(c, DT_INT64, x);
	return 0;
}

/* ==== reductions ==== */

/* Reductions over dim (or all dims) with keepdim.  p: 1 one result; 2
 * values and int64 indices (max.dim); 3 a second result in self's dtype
 * (var_mean's mean, aminmax).  q is RQ_* flags: the op needs a floating
 * or complex input (mean), a reduced dim may not be empty (max, amax), a
 * uint8 input keeps its dtype (any, all), an empty dim list reduces
 * nothing (any.dims) or, without keepdim, is an error (logsumexp). */
int
meta_rule_reduce(MetaCtx *c)
{
	Value *x = meta_first_tensor(c);
	unsigned char mask[MAX_RANK];
	Dim d[MAX_RANK];
	DType t;
	int k = 0, keep = meta_get_bool(c, "keepdim", 0), empty;

	if (!x || x->rank > MAX_RANK)
		return meta_fail(c, "no tensor argument of at most %d dims", MAX_RANK);
	if ((empty = meta_reduced(c, x, "dim", mask)) < 0 || meta_dtype_of(c, &t))
		return -1;
	if (empty && (c->row->q & RQ_EMPTY_NONE))
		memset(mask, 0, sizeof mask);
	if (empty && (c->row->q & RQ_EMPTY_ERR) && x->rank && !keep)
		return meta_fail(c, "%s over an empty list of dims", c->n->op);
	if ((c->row->q & RQ_FLOAT) && meta_get_dtype(c, "dtype") == DT_UNKNOWN && dtype_kind(x->dtype) <= DK_INT)
		return meta_fail(c, "could not infer output dtype: input dtype must be either a floating point or complex dtype, got %s",
		            dtype_name(x->dtype));
	if ((c->row->q & RQ_FLOAT) && meta_get_dtype(c, "dtype") != DT_UNKNOWN)
		t = meta_get_dtype(c, "dtype");
	for (int i = 0; i < x->rank; i++) {
		if (!mask[i])
			d[k++] = x->dims[i];
		else if (keep)
			d[k++] = meta_dim_n(1);
		if (mask[i] && meta_dim_is(x->dims[i], 0) && (c->row->p == 2 || (c->row->q & RQ_NONEMPTY)))
			return meta_fail(c, "expected reduction dim %d to have non-zero size", i);
	}
	if ((c->row->q & RQ_U8) && x->dtype == DT_UINT8)
		t = DT_UINT8;
	if (meta_out_tensor(c, t, k, d))
		return -1;
	if (c->row->p == 2)
		return meta_out_tensor(c, DT_INT64, k, d);
	if (c->row->p == 3)
		return meta_out_tensor(c, x->dtype, k, d);
	return 0;
}

/* argmax, argmin: int64 over dim, or over the flattened tensor. */
int
meta_rule_argreduce(MetaCtx *c)
{
	Value *x = meta_first_tensor(c);
	Dim d[MAX_RANK];
	int64_t dim;
	int k = 0, w = -1, keep = meta_get_bool(c, "keepdim", 0);

	if (!x || x->rank > MAX_RANK)
		return meta_fail(c, "no tensor argument of at most %d dims", MAX_RANK);
	if (meta_arg(c, "dim")) {
		if (meta_need_int(c, "dim", 0, &dim) || meta_wrap(c, dim, x->rank, &w))
			return -1;
		if (x->rank && meta_dim_is(x->dims[w], 0))
			return meta_fail(c, "expected reduction dim %d to have non-zero size", w);
	} else {
		for (int i = 0; i < x->rank; i++)
			if (meta_dim_is(x->dims[i], 0))
				return meta_fail(c, "cannot perform reduction function on an empty tensor");
	}
	for (int i = 0; i < x->rank; i++) {
		if (w >= 0 && i != w)
			d[k++] = x->dims[i];
		else if (keep)
			d[k++] = meta_dim_n(1);
	}
	return meta_out_tensor(c, DT_INT64, k, d);
}

/* topk, kthvalue-like selections along dim: values and int64 indices,
 * dim sized k (p 0: topk) or removed (p 1: kthvalue, mode). */
int
meta_rule_topk(MetaCtx *c)
{
	Value *x = meta_first_tensor(c);
	Dim d[MAX_RANK];
	int64_t dim, k;
	int w, r;

	if (!x || x->rank > MAX_RANK)
		return meta_fail(c, "no tensor argument of at most %d dims", MAX_RANK);
	if (meta_need_int(c, "dim", -1, &dim) || meta_need_int(c, "k", 1, &k) || meta_wrap(c, dim, x->rank, &w))
		return -1;
	memcpy(d, x->dims, sizeof *d * (size_t)x->rank);
	if (c->row->p == 0 && x->rank && !x->dims[w].e && (k < 0 || k > x->dims[w].v))
		return meta_fail(c, "selected index k out of range");
	if (c->row->p == 0) {
		if (x->rank)
			d[w] = meta_dim_n(k);
		r = x->rank;
	} else {
		if (x->rank && meta_dim_is(x->dims[w], 0))
			return meta_fail(c, "expected reduction dim %d to have non-zero size", w);
		r = 0;
		for (int i = 0; i < x->rank; i++)
			if (i != w)
				d[r++] = x->dims[i];
			else if (meta_get_bool(c, "keepdim", 0))
				d[r++] = meta_dim_n(1);
	}
	if (meta_out_tensor(c, x->dtype, r, d))
		return -1;
	return meta_out_tensor(c, DT_INT64, r, d);
}

/* softmax, log_softmax (dim, dtype) and _softmax (dim, half_to_float). */
int
meta_rule_softmax(MetaCtx *c)
{
	Value *x = meta_first_tensor(c);
	DType t = meta_get_dtype(c, "dtype");
	int64_t dim;
	int w;

	if (!x)
		return meta_fail(c, "no tensor argument");
	if (meta_need_int(c, "dim", 0, &dim) || meta_wrap(c, dim, x->rank, &w))
		return -1;
	if (t == DT_UNKNOWN)
		t = meta_get_bool(c, "half_to_float", 0) ? DT_FLOAT32 : x->dtype;
	if (!dtype_is_float(t) && !dtype_is_float(x->dtype))
		return meta_fail(c, "%s is not implemented for %s", c->n->op, dtype_name(t));
	return meta_out_like(c, t, x);
}

/* ==== creation and conversion ==== */

/* The dtype torch gives a fill value: bool, int64, float32, complex64. */
static DType
fill_dtype(MetaCtx *c, const char *name)
{
	const Arg *v = meta_arg(c, name);

	return v ? meta_number_dtype(v) : DT_FLOAT32;
}

/* A number argument as a double; 0 when it is not a known number. */
static int
arg_number(const Arg *x, double *v)
{
	Dim d;

	if (x->kind == ARG_FLOAT) {
		*v = x->u.f;
		return 1;
	}
	if (!meta_arg_dim(x, &d) || d.e)
		return 0;
	*v = (double)d.v;
	return 1;
}

/* arange's length: ceil((end - start) / step). */
static int
arange_len(MetaCtx *c, Dim *out)
{
	const Arg *as = meta_arg(c, "start"), *ae = meta_arg(c, "end"), *ap = meta_arg(c, "step");
	double s = 0, e, p = 1;
	Dim ds, de;

	if (!ae)
		return meta_fail(c, "arange needs an end");
	if (ae->kind == ARG_SYM_INT && meta_arg_dim(ae, &de) && de.e) {
		int64_t is = 0, ip = 1;
		if ((as && (as->kind != ARG_INT || (is = as->u.i, 0))) || (ap && (ap->kind != ARG_INT || (ip = ap->u.i, 0))) ||
		    ip <= 0)
			return meta_fail(c, "arange over a symbolic end needs integer start and a positive integer step");
		ds = meta_dim_n(is);
		*out = meta_dim_op(c, SYM_CEILDIV, meta_dim_sub(c, de, ds), meta_dim_n(ip));
		return 0;
	}
	if (!arg_number(ae, &e) || (as && !arg_number(as, &s)) || (ap && !arg_number(ap, &p)))
		return meta_fail(c, "arange bounds must be known numbers");
	if (p == 0)
		return meta_fail(c, "step must be nonzero");
	if ((p > 0 && e < s) || (p < 0 && e > s))
		return meta_fail(c, "upper bound and larger bound inconsistent with step sign");
	{
		double n = (e - s) / p;
		int64_t k;
		if (!(n >= 0 && n < 9.2e18))
			return meta_fail(c, "arange: the number of steps (%g) is not a size", n);
		k = (int64_t)n;
		if ((double)k < n)
			k++;
		*out = meta_dim_n(k);
	}
	return 0;
}

/* Tensor factories; p is CR_*.  The dtype argument wins; else the
 * factory's default: float32, a fill value's, self's for *_like and
 * new_*, int64 for arange over integers and for randint.  q: 1 for a
 * random float factory (rand, randn), which takes float dtypes only. */
int
meta_rule_create(MetaCtx *c)
{
	Value *self = meta_tensor(c, "self");
	DType t = meta_get_dtype(c, "dtype"), def = DT_FLOAT32;
	Dim *d, one[2];
	int k = 0;
	int64_t n, m;

	switch (c->row->p) {
	case CR_SIZE: case CR_FULL: case CR_NEW: case CR_NEW_FULL: case CR_RANDINT:
		if ((k = meta_get_dims(c, "size", 0, &d)) < 0)
			return meta_fail(c, "argument 'size' is not a list of sizes");
		for (int i = 0; i < k; i++)
			if (!d[i].e && d[i].v < 0)
				return meta_fail(c, "trying to create tensor with negative dimension %lld: %s", (long long)d[i].v,
				            meta_shape_str(c, k, d));
		if (c->row->p == CR_FULL)
			def = fill_dtype(c, "fill_value");
		if (c->row->p == CR_RANDINT)
			def = DT_INT64;
		if (c->row->p == CR_NEW || c->row->p == CR_NEW_FULL) {
			if (!self)
				return meta_fail(c, "argument 'self' is not a tensor");
			def = self->dtype;
		}
		break;
	case CR_LIKE: case CR_FULL_LIKE:
		if (!self)
			return meta_fail(c, "argument 'self' is not a tensor");
		def = self->dtype;
		k = self->rank;
		d = self->dims;
		break;
	case CR_ARANGE: {
		const Arg *xs[3] = { meta_arg(c, "start"), meta_arg(c, "end"), meta_arg(c, "step") };
		def = DT_INT64;
		for (int i = 0; i < 3; i++)
			if (xs[i] && (xs[i]->kind == ARG_FLOAT || xs[i]->kind == ARG_SYM_FLOAT))
				def = DT_FLOAT32;
		if (arange_len(c, &one[0]))
			return -1;
		k = 1;
		d = one;
		break;
	}
	case CR_LINSPACE:
		if (meta_need_int(c, "steps", 0, &n))
			return -1;
		if (n < 0)
			return meta_fail(c, "number of steps must be non-negative");
		one[0] = meta_dim_n(n);
		k = 1;
		d = one;
		break;
	case CR_EYE:
		if (meta_need_int(c, "n", 0, &n) || meta_need_int(c, "m", n, &m))
			return -1;
		if (n < 0 || m < 0)
			return meta_fail(c, "n and m must be greater or equal to 0, got %lld and %lld", (long long)n, (long long)m);
		one[0] = meta_dim_n(n);
		one[1] = meta_dim_n(m);
		k = 2;
		d = one;
		break;
	case CR_SCALAR:
		k = 0;
		d = one;
		break;
	case CR_WINDOW:         /* hann_window and the like: [window_length] */
		if (meta_need_int(c, "window_length", 0, &n))
			return -1;
		if (n < 0)
			return meta_fail(c, "window_length must be non-negative, got %lld", (long long)n);
		one[0] = meta_dim_n(n);
		k = 1;
		d = one;
		break;
	case CR_RANDPERM:
		if (!meta_arg_dim(meta_arg(c, "n"), &one[0]))
			return meta_fail(c, "argument 'n' is not an integer");
		def = DT_INT64;
		k = 1;
		d = one;
		break;
	default:
		return meta_fail(c, "unknown factory form");
	}
	t = t != DT_UNKNOWN ? t : def;
	if (c->row->q && dtype_kind(t) != DK_FLOAT && dtype_kind(t) != DK_COMPLEX)
		return meta_fail(c, "%s expects a floating-point or complex dtype, got %s", c->n->op, dtype_name(t));
	return meta_out_tensor(c, t, k, d);
}

/* to, _to_copy, type_as: self's shape in the dtype argument's dtype (p 0)
 * or other's (p 1); no dtype keeps self's. */
int
meta_rule_to(MetaCtx *c)
{
	Value *self = meta_first_tensor(c), *other = meta_tensor(c, "other");
	DType t = c->row->p == 1 ? (other ? other->dtype : DT_UNKNOWN) : meta_get_dtype(c, "dtype");

	if (!self)
		return meta_fail(c, "argument 'self' is not a tensor");
	if (c->row->p == 1 && !other)
		return meta_fail(c, "argument 'other' is not a tensor");
	return meta_out_like(c, t != DT_UNKNOWN ? t : self->dtype, self);
}

/* ==== integers ==== */

/* The int an argument holds when it is known without data: a number, a
 * SymInt, or a 0-dim integer tensor that tracing computed from sizes
 * (see value_of).  0 when unknown. */
static int value_of(MetaCtx *c, const Value *x, int depth, Dim *d);

static int
arg_value(MetaCtx *c, const Arg *a, int depth, Dim *d)
{
	if (!a)
		return 0;
	if ((a->kind == ARG_TENSOR || a->kind == ARG_OPT_TENSOR) && a->u.v)
		return value_of(c, a->u.v, depth, d);
	return meta_arg_dim(a, d);
}

/* A 0-dim integer tensor's value when tracing computed it from sizes:
 * prim::NumToTensor of an int, a constant, or mul, add, sub and
 * floor_divide of such values (how traced code writes x.size(0) // 2). */
static int
value_of(MetaCtx *c, const Value *x, int depth, Dim *d)
{
	static const struct { const char *op; SymOp sym; int neg; } arith[] = {
		{ "aten.mul.", SYM_MUL, 0 }, { "aten.add.", SYM_ADD, 0 }, { "aten.sub.", SYM_ADD, 1 },
		{ "aten.floor_divide.", SYM_FLOORDIV, 0 },
	};
	const Node *def = x->def;
	Dim a, b;

	if (depth > 32 || x->kind != VAL_TENSOR || x->rank != 0 || dtype_kind(x->dtype) != DK_INT)
		return 0;
	if (x->data && x->data->dtype == DT_INT64 && x->data->storage &&
	    (uint64_t)(x->data->offset + 1) * 8 <= x->data->storage_bytes) {
		*d = meta_dim_n(dtype_decode_i64(DT_INT64, x->data->storage + x->data->offset * 8));
		return 1;
	}
	if (!def || !def->op)
		return 0;
	if (strncmp(def->op, "prim.NumToTensor.", 17) == 0)
		return def->nin >= 1 && meta_arg_dim(&def->in[0].arg, d);
	for (size_t i = 0; i < sizeof arith / sizeof arith[0]; i++) {
		const Arg *alpha;
		if (strncmp(def->op, arith[i].op, strlen(arith[i].op)) != 0)
			continue;
		alpha = ir_arg(def, "alpha");
		if ((alpha && !(alpha->kind == ARG_INT && alpha->u.i == 1)) ||
		    !arg_value(c, ir_arg(def, "self"), depth + 1, &a) || !arg_value(c, ir_arg(def, "other"), depth + 1, &b))
			return 0;
		if (arith[i].sym == SYM_FLOORDIV && meta_dim_is(b, 0))
			return 0;
		if (arith[i].neg)
			b = meta_dim_op(c, SYM_MUL, b, meta_dim_n(-1));
		*d = meta_dim_op(c, arith[i].sym, a, b);
		return 1;
	}
	return 0;
}

/* Int, ScalarImplicit: the number a 0-dim tensor holds, when tracing
 * computed it from sizes (value_of); any other tensor's value is its
 * data. */
int
meta_rule_scalar_of(MetaCtx *c)
{
	Value *x = meta_first_tensor(c);
	Dim d;

	if (x && value_of(c, x, 0, &d))
		return meta_out_int(c, d);
	return meta_fail(c, "%s: the number depends on the tensor's data", c->n->op);
}

/* Python int results, as SymInts: size, numel, dim and the int
 * arithmetic of scripted code.  p is INT_*; q the ARITH_* of INT_ARITH. */
int
meta_rule_int(MetaCtx *c)
{
	Value *x = meta_first_tensor(c);
	int64_t dim;
	int w;
	Dim a, b;

	switch (c->row->p) {
	case INT_SIZE:
		if (!x)
			return meta_fail(c, "argument 'self' is not a tensor");
		if (!meta_arg(c, "dim")) {
			for (int i = 0; i < x->rank; i++)
				if (meta_out_int(c, x->dims[i]))
					return -1;
			return 0;
		}
		if (meta_need_int(c, "dim", 0, &dim))
			return -1;
		if (!x->rank)
			return meta_fail(c, "dimension specified as %lld but tensor has no dimensions", (long long)dim);
		if (meta_wrap(c, dim, x->rank, &w))
			return -1;
		return meta_out_int(c, x->dims[w]);
	case INT_NUMEL:
		if (!x)
			return meta_fail(c, "argument 'self' is not a tensor");
		return meta_out_int(c, meta_dim_prod(c, x->rank, x->dims));
	case INT_DIM:
		if (!x)
			return meta_fail(c, "argument 'self' is not a tensor");
		return meta_out_int(c, meta_dim_n(x->rank));
	case INT_ARITH:
		if (!meta_arg_dim(meta_arg(c, "a"), &a) || (c->row->q != ARITH_NEG && !meta_arg_dim(meta_arg(c, "b"), &b)))
			return meta_fail(c, "int arithmetic takes integers");
		switch (c->row->q) {
		case ARITH_NEG:
			return meta_out_int(c, meta_dim_op(c, SYM_MUL, a, meta_dim_n(-1)));
		case ARITH_ADD:
			return meta_out_int(c, meta_dim_op(c, SYM_ADD, a, b));
		case ARITH_SUB:
			return meta_out_int(c, meta_dim_sub(c, a, b));
		case ARITH_MUL:
			return meta_out_int(c, meta_dim_op(c, SYM_MUL, a, b));
		case ARITH_FLOORDIV: case ARITH_MOD:
			if (meta_dim_is(b, 0))
				return meta_fail(c, "integer division or modulo by zero");
			if (c->row->q == ARITH_MOD && !a.e && !b.e)
				return meta_out_int(c, meta_dim_n(((a.v % b.v) + b.v) % b.v));
			return meta_out_int(c, meta_dim_op(c, c->row->q == ARITH_MOD ? SYM_PYTHONMOD : SYM_FLOORDIV, a, b));
		default:
			return meta_fail(c, "unknown int operation");
		}
	default:
		return meta_fail(c, "unknown int form");
	}
}
