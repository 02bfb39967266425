/* metabase.c: what every meta rule uses (ir/internal.h): the node's
 * arguments read by schema name, dim arithmetic over numbers and
 * symbolic expressions, the results appended to the caller's Values, and
 * torch's type promotion (promoteTypes, result_type's priority of sized
 * tensors over 0-dim tensors over Python numbers). */
#include "ir/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ==== arguments ==== */

/* Rules fail through here: why[] gets the reason, the rule returns -1. */
int __attribute__((format(printf, 2, 3)))
meta_fail(MetaCtx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->why && c->whylen) {
		va_start(ap, fmt);
		vsnprintf(c->why, c->whylen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* The argument name, NULL when absent or None (the schema default then). */
const Arg *
meta_arg(MetaCtx *c, const char *name)
{
	const Arg *x = ir_arg(c->n, name);

	return x && x->kind != ARG_NONE ? x : NULL;
}

/* The tensor argument name, or NULL. */
Value *
meta_tensor(MetaCtx *c, const char *name)
{
	const Arg *x = meta_arg(c, name);

	return x && (x->kind == ARG_TENSOR || x->kind == ARG_OPT_TENSOR) && x->u.v &&
	       x->u.v->kind == VAL_TENSOR ? x->u.v : NULL;
}

/* The first tensor among names (a schema's "self", "input", "query"...). */
Value *
meta_first_tensor(MetaCtx *c)
{
	for (int i = 0; i < c->n->nin; i++) {
		const Arg *x = &c->n->in[i].arg;
		if ((x->kind == ARG_TENSOR || x->kind == ARG_OPT_TENSOR) && x->u.v &&
		    x->u.v->kind == VAL_TENSOR)
			return x->u.v;
	}
	return NULL;
}

/* A size as a Dim: a number, or a SymInt whose expression is not a number. */
int
meta_arg_dim(const Arg *x, Dim *d)
{
	int64_t v;

	d->e = NULL;
	d->v = -1;
	if (!x)
		return 0;
	if (x->kind == ARG_INT || x->kind == ARG_BOOL) {
		d->v = x->u.i;
		return 1;
	}
	if (x->kind == ARG_SYM_INT && x->u.v) {
		if (poly_is_num(x->u.v->expr, &v) || (!x->u.v->expr && x->u.v->has_hint)) {
			d->v = x->u.v->expr ? v : x->u.v->hint;
			return 1;
		}
		if (!x->u.v->expr)
			return 0;
		d->e = x->u.v->expr;
		d->v = x->u.v->has_hint ? x->u.v->hint : -1;
		return 1;
	}
	return 0;
}

/* An int argument (a static SymInt too); def when absent. Returns 0 when
 * the argument is there but not a number. */
int
meta_get_int(MetaCtx *c, const char *name, int64_t def, int64_t *v)
{
	const Arg *x = meta_arg(c, name);
	Dim d;

	*v = def;
	if (!x)
		return 1;
	if (!meta_arg_dim(x, &d) || d.e)
		return 0;
	*v = d.v;
	return 1;
}

/* Like get_int, failing the rule with a message. */
int
meta_need_int(MetaCtx *c, const char *name, int64_t def, int64_t *v)
{
	if (meta_get_int(c, name, def, v))
		return 0;
	return meta_fail(c, "argument '%s' is not a known integer", name);
}

int
meta_get_bool(MetaCtx *c, const char *name, int def)
{
	const Arg *x = meta_arg(c, name);

	return x && (x->kind == ARG_BOOL || x->kind == ARG_INT) ? x->u.i != 0 : def;
}

/* The dtype argument name (a ScalarType), DT_UNKNOWN when absent. */
DType
meta_get_dtype(MetaCtx *c, const char *name)
{
	const Arg *x = meta_arg(c, name);

	return x && x->kind == ARG_SCALAR_TYPE ? dtype_from_torch((long)x->u.i) : DT_UNKNOWN;
}

/* A list of sizes (int[], SymInt[]; a single int stands for a list of
 * one, or of width items for int[N]).  Returns the count, -1 when absent
 * or not a list of sizes. */
int
meta_get_dims(MetaCtx *c, const char *name, int width, Dim **out)
{
	const Arg *x = meta_arg(c, name);
	Dim *d;

	*out = NULL;
	if (!x)
		return -1;
	if (x->kind == ARG_INT || x->kind == ARG_SYM_INT) {
		int k = width > 0 ? width : 1;
		d = ARENA_ARRAY(c->a, Dim, k);
		if (!meta_arg_dim(x, &d[0]))
			return -1;
		for (int i = 1; i < k; i++)
			d[i] = d[0];
		*out = d;
		return k;
	}
	if (x->kind != ARG_INTS && x->kind != ARG_SYM_INTS && x->kind != ARG_BOOLS)
		return -1;
	d = ARENA_ARRAY(c->a, Dim, x->n + 1);
	for (int i = 0; i < x->n; i++)
		if (!meta_arg_dim(&x->u.list[i], &d[i]))
			return -1;
	*out = d;
	return x->n;
}

/* A list of static ints; -1 when absent, -2 when an item is symbolic. */
int
meta_get_ints(MetaCtx *c, const char *name, int width, int64_t **out)
{
	Dim *d;
	int k = meta_get_dims(c, name, width, &d);
	int64_t *v;

	*out = NULL;
	if (k < 0)
		return k;
	v = ARENA_ARRAY(c->a, int64_t, k + 1);
	for (int i = 0; i < k; i++) {
		if (d[i].e)
			return -2;
		v[i] = d[i].v;
	}
	*out = v;
	return k;
}

/* The tensors of a Tensor[] (or Tensor?[]) argument; items may be NULL
 * for None in a Tensor?[].  Returns the count, -1 when absent. */
int
meta_get_tensors(MetaCtx *c, const char *name, Value ***out)
{
	const Arg *x = meta_arg(c, name);
	Value **v;

	*out = NULL;
	if (!x || (x->kind != ARG_TENSORS && x->kind != ARG_OPT_TENSORS))
		return -1;
	v = ARENA_ARRAY(c->a, Value *, x->n + 1);
	for (int i = 0; i < x->n; i++) {
		const Arg *it = &x->u.list[i];
		v[i] = (it->kind == ARG_TENSOR || it->kind == ARG_OPT_TENSOR) && it->u.v &&
		       it->u.v->kind == VAL_TENSOR ? it->u.v : NULL;
		if (!v[i] && it->kind != ARG_NONE)
			return -1;
	}
	*out = v;
	return x->n;
}

/* The first tensor (at most MAX_RANK dims) with its dims copied
 * into d (MAX_RANK entries) and the int argument name (def when
 * absent) wrapped into [0, rank) in *w; NULL with why[] otherwise. */
Value *
meta_self_at(MetaCtx *c, const char *name, int64_t def, Dim *d, int *w)
{
	Value *x = meta_first_tensor(c);
	int64_t dim;

	if (!x || x->rank > MAX_RANK) {
		meta_fail(c, "no tensor argument of at most %d dims", MAX_RANK);
		return NULL;
	}
	if (meta_need_int(c, name, def, &dim) || meta_wrap(c, dim, x->rank, w))
		return NULL;
	memcpy(d, x->dims, sizeof *d * (size_t)x->rank);
	return x;
}

/* ==== dims ==== */

Dim
meta_dim_n(int64_t v)
{
	Dim d = { v, NULL };
	return d;
}

/* A Dim from an expression: static when it simplifies to a number. */
Dim
meta_dim_e(MetaCtx *c, SymExpr *e, int64_t hint)
{
	SymExpr *k = poly_canon(c->a, e);
	int64_t v;
	Dim d;

	if (!k)
		k = e;
	if (poly_is_num(k, &v))
		return meta_dim_n(v);
	d.e = k;
	d.v = hint;
	return d;
}

SymExpr *
meta_dim_expr(MetaCtx *c, Dim d)
{
	return d.e ? d.e : poly_num(c->a, d.v);
}

int
meta_dim_is(Dim d, int64_t v)
{
	return !d.e && d.v == v;
}

int
meta_dim_eq(Dim x, Dim y)
{
	if (!x.e && !y.e)
		return x.v == y.v;
	return x.e && y.e && sym_equal(x.e, y.e);
}

/* Binary arithmetic on dims, static when both are. */
Dim
meta_dim_op(MetaCtx *c, SymOp op, Dim x, Dim y)
{
	SymExpr **args;
	int64_t h = -1;

	if (!x.e && !y.e) {
		switch (op) {
		case SYM_ADD: case SYM_MUL: {
			int64_t r;
			if (op == SYM_ADD ? __builtin_add_overflow(x.v, y.v, &r) : __builtin_mul_overflow(x.v, y.v, &r)) {
				c->overflow = 1;        /* ir_infer_outputs fails the call */
				return meta_dim_n(0);
			}
			return meta_dim_n(r);
		}
		case SYM_FLOORDIV:
			if (y.v == 0)
				break;
			return meta_dim_n(x.v / y.v - ((x.v % y.v != 0) && ((x.v < 0) != (y.v < 0))));
		case SYM_CEILDIV:
			if (y.v == 0)
				break;
			return meta_dim_n(-((-x.v) / y.v - (((-x.v) % y.v != 0) && ((-x.v < 0) != (y.v < 0)))));
		case SYM_MAX: return meta_dim_n(x.v > y.v ? x.v : y.v);
		case SYM_MIN: return meta_dim_n(x.v < y.v ? x.v : y.v);
		default: break;
		}
	}
	if ((op == SYM_FLOORDIV || op == SYM_CEILDIV) && meta_dim_is(y, 1))
		return x;
	if (op == SYM_FLOORDIV && x.e && !y.e && y.v > 0) {
		/* an exact division, every coefficient a multiple: (2*s + 4)//2 is s + 2 */
		Poly *p = poly_sym(c->a, x.e), *q;
		int exact = p != NULL;
		for (int i = 0; exact && i < p->n; i++)
			exact = p->t[i].coef % y.v == 0;
		if (exact) {
			q = ARENA_NEW(c->a, Poly);
			q->n = p->n;
			q->t = ARENA_ARRAY(c->a, PolyTerm, p->n + 1);
			for (int i = 0; i < p->n; i++) {
				q->t[i] = p->t[i];
				q->t[i].coef /= y.v;
			}
			return meta_dim_e(c, poly_expr(c->a, q), x.v >= 0 ? x.v / y.v : -1);
		}
	}
	if (op == SYM_CEILDIV && !y.e && y.v > 0)        /* as torch prints it: (x + s - 1)//s */
		return meta_dim_op(c, SYM_FLOORDIV, meta_dim_op(c, SYM_ADD, x, meta_dim_n(y.v - 1)), y);
	if (x.v >= 0 && y.v >= 0) {
		if (op == SYM_ADD)
			h = x.v + y.v;
		else if (op == SYM_MUL)
			h = x.v * y.v;
		else if (op == SYM_FLOORDIV && y.v > 0)
			h = x.v / y.v;
		else if (op == SYM_CEILDIV && y.v > 0)
			h = (x.v + y.v - 1) / y.v;
	}
	args = ARENA_ARRAY(c->a, SymExpr *, 2);
	args[0] = meta_dim_expr(c, x);
	args[1] = meta_dim_expr(c, y);
	return meta_dim_e(c, poly_call(c->a, op, 2, args), h);
}

Dim
meta_dim_add(MetaCtx *c, Dim x, int64_t k)
{
	return meta_dim_op(c, SYM_ADD, x, meta_dim_n(k));
}

Dim
meta_dim_sub(MetaCtx *c, Dim x, Dim y)
{
	return meta_dim_op(c, SYM_ADD, x, meta_dim_op(c, SYM_MUL, y, meta_dim_n(-1)));
}

/* The product of dims[0..k). */
Dim
meta_dim_prod(MetaCtx *c, int k, const Dim *d)
{
	Dim p = meta_dim_n(1);

	for (int i = 0; i < k; i++)
		p = meta_dim_op(c, SYM_MUL, p, d[i]);
	return p;
}

/* "[2,s0,3]" for messages (arena). */
const char *
meta_shape_str(MetaCtx *c, int rank, const Dim *d)
{
	char *s = arena_strdup(c->a, "[");

	for (int i = 0; i < rank; i++)
		s = d[i].e ? arena_printf(c->a, "%s%s%s", s, i ? "," : "", sym_print(c->a, d[i].e))
		           : arena_printf(c->a, "%s%s%lld", s, i ? "," : "", (long long)d[i].v);
	return arena_printf(c->a, "%s]", s);
}

/* dim wrapped into [0, rank) as torch's maybe_wrap_dim (a scalar takes
 * dims -1 and 0); -1 with why[] when out of range. */
int
meta_wrap(MetaCtx *c, int64_t d, int rank, int *out)
{
	int r = rank > 0 ? rank : 1;

	*out = 0;
	if (d < -r || d >= r)
		return meta_fail(c, "dimension out of range (expected to be in range of [%d, %d], but got %lld)",
		            -r, r - 1, (long long)d);
	*out = (int)(d < 0 ? d + r : d);
	return 0;
}

/* 1 when two contracted or matched sizes are equal.  As in broadcasting,
 * a symbol equals only itself: a number there would make it a constant. */
int
meta_same_size(Dim x, Dim y)
{
	return meta_dim_eq(x, y);
}

/* Broadcasts (rank, dims) into the accumulated shape *r, *d (torch's
 * infer_size): sizes equal, or one of them 1.  A symbol against 1 is the
 * symbol.  A symbol against a number other than 1, or against another
 * symbol, fails: torch would guard on their equality, which makes the
 * dynamic dim a constant the user did not declare. */
int
meta_broadcast(MetaCtx *c, int *r, Dim **d, int rank, const Dim *dims)
{
	int n = *r > rank ? *r : rank;
	Dim *o = ARENA_ARRAY(c->a, Dim, n + 1);

	for (int i = 0; i < n; i++) {
		int ia = i - (n - *r), ib = i - (n - rank);
		Dim x = ia >= 0 ? (*d)[ia] : meta_dim_n(1), y = ib >= 0 ? dims[ib] : meta_dim_n(1);
		if (meta_dim_is(x, 1) || meta_dim_eq(x, y))
			o[i] = y;
		else if (meta_dim_is(y, 1))
			o[i] = x;
		else
			return meta_fail(c, "the size of tensor a (%s) must match the size of tensor b (%s) at non-singleton dimension %d",
			            x.e ? sym_print(c->a, x.e) : arena_printf(c->a, "%lld", (long long)x.v),
			            y.e ? sym_print(c->a, y.e) : arena_printf(c->a, "%lld", (long long)y.v), i);
	}
	*r = n;
	*d = o;
	return 0;
}

/* The reduced dims of x as a mask; no dim (None, or an empty list for
 * the list forms) reduces all.  Returns -1 with why[] on a bad dim, 1
 * for an empty list (which some ops take as no dim at all), else 0. */
int
meta_reduced(MetaCtx *c, const Value *x, const char *name, unsigned char *mask)
{
	const Arg *a = meta_arg(c, name);
	int64_t *v;
	int k, w;

	memset(mask, 0, MAX_RANK);
	if (!a || ((a->kind == ARG_INTS || a->kind == ARG_SYM_INTS) && a->n == 0)) {
		memset(mask, 1, MAX_RANK);
		return a ? 1 : 0;
	}
	if ((k = meta_get_ints(c, name, 0, &v)) < 0)
		return meta_fail(c, "argument '%s' is not a list of dims", name);
	for (int i = 0; i < k; i++) {
		if (meta_wrap(c, v[i], x->rank, &w))
			return -1;
		if (mask[w])
			return meta_fail(c, "dim %d appears multiple times in the list of dims", w);
		mask[w] = 1;
	}
	return 0;
}

/* ==== results ==== */

static Value *
out_new(MetaCtx *c, ValueKind kind)
{
	Value *v;

	if (c->nout >= c->max)
		return NULL;
	v = &c->out[c->nout++];
	memset(v, 0, sizeof *v);
	v->kind = kind;
	return v;
}

/* Appends a tensor result; returns 0, or -1 when the caller's array is full. */
int
meta_out_tensor(MetaCtx *c, DType t, int rank, const Dim *d)
{
	Value *v = out_new(c, VAL_TENSOR);

	if (!v)
		return meta_fail(c, "more results than the %d the caller takes", c->max);
	if (t == DT_UNKNOWN)
		return meta_fail(c, "no result dtype");
	v->dtype = t;
	v->rank = rank;
	v->dims = ARENA_ARRAY(c->a, Dim, rank + 1);
	if (rank)
		memcpy(v->dims, d, sizeof *d * (size_t)rank);
	return 0;
}

int
meta_out_like(MetaCtx *c, DType t, const Value *x)
{
	return meta_out_tensor(c, t, x->rank, x->dims);
}

/* Appends an int result (a SymInt when symbolic). */
int
meta_out_int(MetaCtx *c, Dim d)
{
	Value *v = out_new(c, VAL_SYM_INT);

	if (!v)
		return meta_fail(c, "more results than the %d the caller takes", c->max);
	v->expr = d.e ? d.e : poly_num(c->a, d.v);
	v->hint = d.v;
	v->has_hint = !d.e || d.v >= 0;
	return 0;
}

/* ==== type promotion ==== */

static DType
complex_of(DType f)
{
	return f == DT_FLOAT64 ? DT_COMPLEX128 : f == DT_FLOAT16 ? DT_COMPLEX32 : DT_COMPLEX64;
}

/* torch's promoteTypes; DT_UNKNOWN where torch raises (the shell and
 * float8 types, unsigned 16-64 bit with anything else). */
DType
meta_promote(DType x, DType y)
{
	DTypeKind cx = dtype_kind(x), cy = dtype_kind(y);

	if (x == DT_UNKNOWN)
		return y;
	if (y == DT_UNKNOWN || x == y)
		return x;
	if (cx == DK_OTHER || cy == DK_OTHER)
		return DT_UNKNOWN;
	if (cx == DK_BOOL)
		return y;
	if (cy == DK_BOOL)
		return x;
	if (cx < cy)
		return meta_promote(y, x);
	if (cx == DK_INT) {        /* both integers */
		static const DType rank[] = { DT_INT8, DT_INT16, DT_INT32, DT_INT64 };
		int rx = -1, ry = -1;
		if (x == DT_UINT8 || y == DT_UINT8) {
			DType o = x == DT_UINT8 ? y : x;
			return o == DT_INT8 ? DT_INT16 : (o == DT_INT16 || o == DT_INT32 || o == DT_INT64) ? o : DT_UNKNOWN;
		}
		for (int i = 0; i < 4; i++) {
			if (rank[i] == x)
				rx = i;
			if (rank[i] == y)
				ry = i;
		}
		return rx < 0 || ry < 0 ? DT_UNKNOWN : rank[rx > ry ? rx : ry];
	}
	if (cx == DK_FLOAT) {
		if (cy == DK_INT)
			return x;
		if ((x == DT_FLOAT16 && y == DT_BFLOAT16) || (x == DT_BFLOAT16 && y == DT_FLOAT16))
			return DT_FLOAT32;
		if (x == DT_FLOAT64 || y == DT_FLOAT64)
			return DT_FLOAT64;
		return DT_FLOAT32;        /* f32 with f16 or bf16 */
	}
	/* x complex */
	if (cy == DK_INT)
		return x;
	if (cy == DK_FLOAT) {
		DType part = dtype_complex_part(x);
		if (y == DT_BFLOAT16)
			return x == DT_COMPLEX32 ? DT_COMPLEX64 : x;
		return complex_of(meta_promote(part, y));
	}
	return x == DT_COMPLEX128 || y == DT_COMPLEX128 ? DT_COMPLEX128 : DT_COMPLEX64;
}


/* The dtype torch gives a Python number: int64, float32, complex64, bool. */
DType
meta_number_dtype(const Arg *x)
{
	switch (x->kind) {
	case ARG_BOOL: return DT_BOOL;
	case ARG_INT: return DT_INT64;
	case ARG_FLOAT: return DT_FLOAT32;
	case ARG_COMPLEX: return DT_COMPLEX64;
	case ARG_SYM_INT: return DT_INT64;
	case ARG_SYM_FLOAT: return DT_FLOAT32;
	case ARG_SYM_BOOL: return DT_BOOL;
	default: return DT_UNKNOWN;
	}
}

/* Arguments that take part in no type promotion: a where's condition, a
 * mask, the multipliers of add, addmm, addcmul. */
static int
promotes(const char *name)
{
	static const char *const skip[] = { "condition", "mask", "alpha", "beta", "value",
	                                    "index", "indices", "dim", NULL };

	for (int i = 0; skip[i]; i++)
		if (strcmp(name, skip[i]) == 0)
			return 0;
	return 1;
}

/* torch's combine_categories: a higher priority group wins unless a lower
 * one is of a higher category. */
static DType
combine(DType higher, DType lower)
{
	if (higher == DT_UNKNOWN)
		return lower;
	if (lower == DT_UNKNOWN)
		return higher;
	if (dtype_kind(higher) == DK_COMPLEX)
		return higher;
	if (dtype_kind(lower) == DK_COMPLEX)
		return dtype_is_float(higher) ? complex_of(higher) : lower;
	if (dtype_is_float(higher))
		return higher;
	if (higher == DT_BOOL || dtype_is_float(lower))
		return meta_promote(higher, lower);
	return higher;
}

/* torch's result_type over the node's tensors (dims > 0 first, then
 * 0-dim tensors, then numbers); *bad set when two dtypes do not promote. */
DType
meta_result_type(MetaCtx *c, int *bad)
{
	DType dim = DT_UNKNOWN, zero = DT_UNKNOWN, num = DT_UNKNOWN;

	*bad = 0;
	for (int i = 0; i < c->n->nin; i++) {
		const NamedArg *na = &c->n->in[i];
		const Arg *x = &na->arg;
		DType *g, t;
		if (!promotes(na->name))
			continue;
		if ((x->kind == ARG_TENSOR || x->kind == ARG_OPT_TENSOR) && x->u.v &&
		    x->u.v->kind == VAL_TENSOR) {
			t = x->u.v->dtype;
			g = x->u.v->rank ? &dim : &zero;
		} else if ((t = meta_number_dtype(x)) != DT_UNKNOWN) {
			g = &num;
		} else {
			continue;
		}
		if (*g != DT_UNKNOWN && meta_promote(*g, t) == DT_UNKNOWN)
			*bad = 1;
		*g = meta_promote(*g, t);
	}
	return combine(dim, combine(zero, num));
}

/* The result dtype of the row's rule over the node's arguments;
 * DT_UNKNOWN with why[] when torch raises. */
static DType
row_dtype(MetaCtx *c)
{
	Value *self = meta_first_tensor(c);
	DType t, d;
	int bad;

	switch (c->row->dt) {
	case MD_BOOL:
		return DT_BOOL;
	case MD_INT64:
		return DT_INT64;
	case MD_SELF:
		if (!self)
			break;
		return self->dtype;
	case MD_SUM:
		if ((d = meta_get_dtype(c, "dtype")) != DT_UNKNOWN)
			return d;
		if (!self)
			break;
		return dtype_kind(self->dtype) <= DK_INT ? DT_INT64 : self->dtype;
	case MD_FLOAT64:
		t = meta_result_type(c, &bad);
		if (bad || t == DT_UNKNOWN) {
			meta_fail(c, "the argument dtypes do not promote");
			return DT_UNKNOWN;
		}
		return dtype_kind(t) == DK_COMPLEX ? DT_COMPLEX128 : DT_FLOAT64;
	case MD_SAME:
		t = DT_UNKNOWN;
		for (int i = 0; i < c->n->nin; i++) {
			const Arg *x = &c->n->in[i].arg;
			if ((x->kind != ARG_TENSOR && x->kind != ARG_OPT_TENSOR) || !x->u.v)
				continue;
			if (t != DT_UNKNOWN && x->u.v->dtype != t) {
				meta_fail(c, "expected every tensor of one dtype, got %s and %s", dtype_name(t),
				     dtype_name(x->u.v->dtype));
				return DT_UNKNOWN;
			}
			t = x->u.v->dtype;
		}
		if (t == DT_UNKNOWN)
			break;
		return t;
	default:
		t = meta_result_type(c, &bad);
		if (bad || t == DT_UNKNOWN) {
			meta_fail(c, "the argument dtypes do not promote");
			return DT_UNKNOWN;
		}
		if ((c->row->dt == MD_FLOAT || c->row->dt == MD_REAL_FLOAT) && dtype_kind(t) <= DK_INT)
			return DT_FLOAT32;
		if ((c->row->dt == MD_REAL || c->row->dt == MD_REAL_FLOAT) && dtype_kind(t) == DK_COMPLEX)
			return dtype_complex_part(t);
		return t;
	}
	meta_fail(c, "no tensor argument to take the dtype from");
	return DT_UNKNOWN;
}

/* The dtype the kernel computes in: the promoted one for the promoting
 * rules, else self's. */
static DType
compute_dtype(MetaCtx *c)
{
	Value *self = meta_first_tensor(c);
	int bad;

	switch (c->row->dt) {
	case MD_PROMOTE: case MD_FLOAT: case MD_REAL: case MD_REAL_FLOAT: case MD_BOOL:
		return meta_result_type(c, &bad);
	case MD_RULE:
		return DT_UNKNOWN;
	default:
		return self ? self->dtype : DT_UNKNOWN;
	}
}

/* row_dtype, after checking that the kernel computes in a dtype of the
 * row's TAKES kinds ("not implemented for 'Float'"). */
int
meta_dtype_of(MetaCtx *c, DType *t)
{
	DType k = compute_dtype(c);
	static const int kind[] = { [DK_BOOL] = TK_B, [DK_INT] = TK_I, [DK_FLOAT] = TK_F, [DK_COMPLEX] = TK_C,
	                            [DK_OTHER] = 0 };

	*t = row_dtype(c);
	if (*t == DT_UNKNOWN)
		return -1;
	if (k != DT_UNKNOWN && !(kind[dtype_kind(k)] & c->row->takes))
		return meta_fail(c, "%s is not implemented for %s", c->n->op, dtype_name(k));
	return 0;
}
