/* meta.c: the dtype and shape of an ATen call, as torch's meta functions
 * give them, for readers whose files record neither (TorchScript).
 *
 * meta.def maps an op ("aten.NAME" for every overload, or
 * "aten.NAME.OVERLOAD") to a shape rule and a dtype rule; the rules live
 * here, one per shape family (broadcasting, reductions, matmul, conv and
 * pool arithmetic, views, joins and splits, indexing, creation, RNNs).  A
 * rule reads the node's named arguments (schema names, defaults present or
 * missing alike), checks what torch checks, and writes the results into
 * the caller's Values.  An in-place form ("add_") without a row of its own
 * uses its out-of-place row, then checks that the result fits self, as
 * torch does.
 *
 * Symbolic sizes are SymExprs in the input shapes' symbols, kept in
 * poly_canon form so equal sizes compare equal; a size that is a number
 * after simplification becomes static.  Where torch would guard on a
 * relation between symbols (a symbol broadcast against another symbol, a
 * split of a symbolic size into a count of pieces), the rule fails rather
 * than guess. */
#include "ir/ir.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "sym/sym.h"

/* ==== the table ==== */

typedef struct MetaCtx MetaCtx;
typedef int (*MetaRule)(MetaCtx *c);

/* Dtype rules, the second column of meta.def. */
typedef enum MetaDtype {
	MD_PROMOTE,     /* torch's result_type over the tensor and number arguments */
	MD_FLOAT,       /* as MD_PROMOTE, integers and bool to the default float (div, sqrt, mean) */
	MD_BOOL,        /* bool (comparisons, logical ops, isnan) */
	MD_SELF,        /* the first tensor argument's dtype (masked_fill, clone, views) */
	MD_INT64,       /* int64 (argmax, argsort, nonzero) */
	MD_SUM,         /* the dtype argument, else integers and bool to int64 (sum, prod, cumsum) */
	MD_REAL,        /* as MD_PROMOTE, complex to its real part (abs) */
	MD_REAL_FLOAT,  /* as MD_FLOAT, complex to its real part (angle) */
	MD_SAME,        /* every tensor argument of one dtype, the result's (mm, conv, cat of one dtype) */
	MD_RULE,        /* the rule decides (creation, to, softmax) */
} MetaDtype;

/* The rules' parameters (meta.def's P and Q columns). */
enum { PW_ROUNDING = 1, PW_POW = 2, PW_CLAMP = 4 };
enum { SAME_ONE, SAME_MASK, SAME_INDICES, SAME_INT64, SAME_MATRIX };
enum { RQ_FLOAT = 1, RQ_NONEMPTY = 2, RQ_U8 = 4, RQ_EMPTY_NONE = 8, RQ_EMPTY_ERR = 16 };
enum { CONV_T = 1, CONV_BATCHED = 2 };
enum { MM_MM, MM_BMM, MM_MV, MM_DOT, MM_MATMUL, MM_ADDMM, MM_BADDBMM, MM_ADDBMM, MM_ADDMV,
       MM_ADDR, MM_LINEAR, MM_OUTER };
enum { POOL_MAX, POOL_MAX_IDX, POOL_AVG, POOL_ADAPTIVE, POOL_ADAPTIVE_MAX };
enum { VIEW_SIZE, VIEW_AS, EXPAND, EXPAND_AS };
enum { PERM_LIST, PERM_SWAP, PERM_SWAPAXES, PERM_T, PERM_MOVEDIM };
enum { SPLIT_SIZE, SPLIT_SIZES, SPLIT_CHUNK, SPLIT_UNBIND };
enum { SEL_SELECT, SEL_SLICE, SEL_NARROW, SEL_INDEX_SELECT, SEL_GATHER, SEL_EMBEDDING };
enum { CR_SIZE, CR_FULL, CR_RANDINT, CR_LIKE, CR_FULL_LIKE, CR_NEW, CR_NEW_FULL, CR_ARANGE,
       CR_LINSPACE, CR_EYE, CR_SCALAR, CR_RANDPERM };
enum { NORM_LAYER, NORM_NATIVE_LAYER, NORM_RMS, NORM_BATCH, NORM_NATIVE_BATCH, NORM_BATCH_NO_STATS,
       NORM_INSTANCE, NORM_GROUP, NORM_NATIVE_GROUP };
enum { RNN_LSTM, RNN_GRU, RNN_PLAIN };
enum { INT_SIZE, INT_NUMEL, INT_DIM, INT_ARITH };
enum { ARITH_ADD, ARITH_SUB, ARITH_MUL, ARITH_FLOORDIV, ARITH_MOD, ARITH_NEG };

/* The dtype kinds a kernel computes in, meta.def's TAKES column. */
enum { TK_B = 1, TK_I = 2, TK_F = 4, TK_C = 8 };
enum { TK_ANY = 15, TK_NUM = 14, TK_REAL = 7, TK_RNUM = 6, TK_FLT = 12, TK_RFLT = 4, TK_INT = 3 };

typedef struct MetaRow {
	const char *op;         /* "aten.add" (every overload) or "aten.add.Tensor" */
	MetaRule rule;
	MetaDtype dt;
	int takes;              /* TK_* */
	int p, q;               /* the rule's parameters (meta.def says per rule) */
} MetaRow;

#define X(op, rule, dt, takes, p, q) static int rule_##rule(MetaCtx *c);
#include "meta.def"
#undef X

static const MetaRow meta_rows[] = {
#define X(op, rule, dt, takes, p, q) { "aten." op, rule_##rule, dt, takes, p, q },
#include "meta.def"
#undef X
};
enum { META_NROW = sizeof meta_rows / sizeof meta_rows[0] };

/* ==== context, arguments ==== */

enum { META_MAX_RANK = 64 };

struct MetaCtx {
	Arena *a;
	const Node *n;
	const MetaRow *row;
	Value *out;
	int max, nout;
	char *why;
	size_t whylen;
};

/* Rules fail through here: why[] gets the reason, the rule returns -1. */
static int __attribute__((format(printf, 2, 3)))
fail(MetaCtx *c, const char *fmt, ...)
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
static const Arg *
arg(MetaCtx *c, const char *name)
{
	const Arg *x = ir_arg(c->n, name);

	return x && x->kind != ARG_NONE ? x : NULL;
}

/* The tensor argument name, or NULL. */
static Value *
tensor(MetaCtx *c, const char *name)
{
	const Arg *x = arg(c, name);

	return x && (x->kind == ARG_TENSOR || x->kind == ARG_OPT_TENSOR) && x->u.v &&
	       x->u.v->kind == VAL_TENSOR ? x->u.v : NULL;
}

/* The first tensor among names (a schema's "self", "input", "query"...). */
static Value *
first_tensor(MetaCtx *c)
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
static int
arg_dim(const Arg *x, Dim *d)
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
static int
get_int(MetaCtx *c, const char *name, int64_t def, int64_t *v)
{
	const Arg *x = arg(c, name);
	Dim d;

	*v = def;
	if (!x)
		return 1;
	if (!arg_dim(x, &d) || d.e)
		return 0;
	*v = d.v;
	return 1;
}

/* Like get_int, failing the rule with a message. */
static int
need_int(MetaCtx *c, const char *name, int64_t def, int64_t *v)
{
	if (get_int(c, name, def, v))
		return 0;
	return fail(c, "argument '%s' is not a known integer", name);
}

static int
get_bool(MetaCtx *c, const char *name, int def)
{
	const Arg *x = arg(c, name);

	return x && (x->kind == ARG_BOOL || x->kind == ARG_INT) ? x->u.i != 0 : def;
}

/* The dtype argument name (a ScalarType), DT_UNKNOWN when absent. */
static DType
get_dtype(MetaCtx *c, const char *name)
{
	const Arg *x = arg(c, name);

	return x && (x->kind == ARG_SCALAR_TYPE || x->kind == ARG_INT) ? dtype_from_torch((long)x->u.i)
	                                                                 : DT_UNKNOWN;
}

/* A list of sizes (int[], SymInt[]; a single int stands for a list of
 * one, or of width items for int[N]).  Returns the count, -1 when absent
 * or not a list of sizes. */
static int
get_dims(MetaCtx *c, const char *name, int width, Dim **out)
{
	const Arg *x = arg(c, name);
	Dim *d;

	*out = NULL;
	if (!x)
		return -1;
	if (x->kind == ARG_INT || x->kind == ARG_SYM_INT) {
		int k = width > 0 ? width : 1;
		d = ARENA_ARRAY(c->a, Dim, k);
		if (!arg_dim(x, &d[0]))
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
		if (!arg_dim(&x->u.list[i], &d[i]))
			return -1;
	*out = d;
	return x->n;
}

/* A list of static ints; -1 when absent, -2 when an item is symbolic. */
static int
get_ints(MetaCtx *c, const char *name, int width, int64_t **out)
{
	Dim *d;
	int k = get_dims(c, name, width, &d);
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
static int
get_tensors(MetaCtx *c, const char *name, Value ***out)
{
	const Arg *x = arg(c, name);
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

/* ==== dims ==== */

static Dim
dim_n(int64_t v)
{
	Dim d = { v, NULL };
	return d;
}

/* A Dim from an expression: static when it simplifies to a number. */
static Dim
dim_e(MetaCtx *c, SymExpr *e, int64_t hint)
{
	SymExpr *k = poly_canon(c->a, e);
	int64_t v;
	Dim d;

	if (!k)
		k = e;
	if (poly_is_num(k, &v))
		return dim_n(v);
	d.e = k;
	d.v = hint;
	return d;
}

static SymExpr *
dim_expr(MetaCtx *c, Dim d)
{
	return d.e ? d.e : poly_num(c->a, d.v);
}

static int
dim_is(Dim d, int64_t v)
{
	return !d.e && d.v == v;
}

static int
dim_eq(Dim x, Dim y)
{
	if (!x.e && !y.e)
		return x.v == y.v;
	return x.e && y.e && sym_equal(x.e, y.e);
}

/* Binary arithmetic on dims, static when both are. */
static Dim
dim_op(MetaCtx *c, SymOp op, Dim x, Dim y)
{
	SymExpr **args;
	int64_t h = -1;

	if (!x.e && !y.e) {
		switch (op) {
		case SYM_ADD: return dim_n(x.v + y.v);
		case SYM_MUL: return dim_n(x.v * y.v);
		case SYM_FLOORDIV:
			if (y.v == 0)
				break;
			return dim_n(x.v / y.v - ((x.v % y.v != 0) && ((x.v < 0) != (y.v < 0))));
		case SYM_CEILDIV:
			if (y.v == 0)
				break;
			return dim_n(-((-x.v) / y.v - (((-x.v) % y.v != 0) && ((-x.v < 0) != (y.v < 0)))));
		case SYM_MAX: return dim_n(x.v > y.v ? x.v : y.v);
		case SYM_MIN: return dim_n(x.v < y.v ? x.v : y.v);
		default: break;
		}
	}
	if ((op == SYM_FLOORDIV || op == SYM_CEILDIV) && dim_is(y, 1))
		return x;
	if (op == SYM_CEILDIV && !y.e && y.v > 0)        /* as torch prints it: (x + s - 1)//s */
		return dim_op(c, SYM_FLOORDIV, dim_op(c, SYM_ADD, x, dim_n(y.v - 1)), y);
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
	args[0] = dim_expr(c, x);
	args[1] = dim_expr(c, y);
	return dim_e(c, poly_call(c->a, op, 2, args), h);
}

static Dim
dim_add(MetaCtx *c, Dim x, int64_t k)
{
	return dim_op(c, SYM_ADD, x, dim_n(k));
}

static Dim
dim_sub(MetaCtx *c, Dim x, Dim y)
{
	return dim_op(c, SYM_ADD, x, dim_op(c, SYM_MUL, y, dim_n(-1)));
}

/* The product of dims[0..k). */
static Dim
dim_prod(MetaCtx *c, int k, const Dim *d)
{
	Dim p = dim_n(1);

	for (int i = 0; i < k; i++)
		p = dim_op(c, SYM_MUL, p, d[i]);
	return p;
}

/* "[2,s0,3]" for messages (arena). */
static const char *
shape_str(MetaCtx *c, int rank, const Dim *d)
{
	char *s = arena_strdup(c->a, "[");

	for (int i = 0; i < rank; i++)
		s = d[i].e ? arena_printf(c->a, "%s%s%s", s, i ? "," : "", sym_print(c->a, d[i].e))
		           : arena_printf(c->a, "%s%s%lld", s, i ? "," : "", (long long)d[i].v);
	return arena_printf(c->a, "%s]", s);
}

/* dim wrapped into [0, rank) as torch's maybe_wrap_dim (a scalar takes
 * dims -1 and 0); -1 with why[] when out of range. */
static int
wrap(MetaCtx *c, int64_t d, int rank, int *out)
{
	int r = rank > 0 ? rank : 1;

	*out = 0;
	if (d < -r || d >= r)
		return fail(c, "dimension out of range (expected to be in range of [%d, %d], but got %lld)",
		            -r, r - 1, (long long)d);
	*out = (int)(d < 0 ? d + r : d);
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
static int
out_tensor(MetaCtx *c, DType t, int rank, const Dim *d)
{
	Value *v = out_new(c, VAL_TENSOR);

	if (!v)
		return fail(c, "more results than the %d the caller takes", c->max);
	if (t == DT_UNKNOWN)
		return fail(c, "no result dtype");
	v->dtype = t;
	v->rank = rank;
	v->dims = ARENA_ARRAY(c->a, Dim, rank + 1);
	if (rank)
		memcpy(v->dims, d, sizeof *d * (size_t)rank);
	return 0;
}

static int
out_like(MetaCtx *c, DType t, const Value *x)
{
	return out_tensor(c, t, x->rank, x->dims);
}

/* Appends an int result (a SymInt when symbolic). */
static int
out_int(MetaCtx *c, Dim d)
{
	Value *v = out_new(c, VAL_SYM_INT);

	if (!v)
		return fail(c, "more results than the %d the caller takes", c->max);
	v->expr = d.e ? d.e : poly_num(c->a, d.v);
	v->hint = d.v;
	v->has_hint = !d.e || d.v >= 0;
	return 0;
}

/* ==== type promotion ==== */

typedef enum Cat { CAT_BOOL, CAT_INT, CAT_FLOAT, CAT_COMPLEX, CAT_OTHER } Cat;

static Cat
cat_of(DType t)
{
	switch (t) {
	case DT_BOOL: return CAT_BOOL;
	case DT_UINT8: case DT_INT8: case DT_INT16: case DT_INT32: case DT_INT64:
	case DT_UINT16: case DT_UINT32: case DT_UINT64:
		return CAT_INT;
	case DT_FLOAT16: case DT_BFLOAT16: case DT_FLOAT32: case DT_FLOAT64:
		return CAT_FLOAT;
	case DT_COMPLEX32: case DT_COMPLEX64: case DT_COMPLEX128:
		return CAT_COMPLEX;
	default:
		return CAT_OTHER;
	}
}

static int
is_float(DType t)
{
	return cat_of(t) == CAT_FLOAT;
}

static DType
complex_of(DType f)
{
	return f == DT_FLOAT64 ? DT_COMPLEX128 : f == DT_FLOAT16 ? DT_COMPLEX32 : DT_COMPLEX64;
}

/* torch's promoteTypes; DT_UNKNOWN where torch raises (the shell and
 * float8 types, unsigned 16-64 bit with anything else). */
static DType
promote(DType x, DType y)
{
	Cat cx = cat_of(x), cy = cat_of(y);

	if (x == DT_UNKNOWN)
		return y;
	if (y == DT_UNKNOWN || x == y)
		return x;
	if (cx == CAT_OTHER || cy == CAT_OTHER)
		return DT_UNKNOWN;
	if (cx == CAT_BOOL)
		return y;
	if (cy == CAT_BOOL)
		return x;
	if (cx < cy)
		return promote(y, x);
	if (cx == CAT_INT) {        /* both integers */
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
	if (cx == CAT_FLOAT) {
		if (cy == CAT_INT)
			return x;
		if ((x == DT_FLOAT16 && y == DT_BFLOAT16) || (x == DT_BFLOAT16 && y == DT_FLOAT16))
			return DT_FLOAT32;
		if (x == DT_FLOAT64 || y == DT_FLOAT64)
			return DT_FLOAT64;
		return DT_FLOAT32;        /* f32 with f16 or bf16 */
	}
	/* x complex */
	if (cy == CAT_INT)
		return x;
	if (cy == CAT_FLOAT) {
		DType part = dtype_complex_part(x);
		if (y == DT_BFLOAT16)
			return x == DT_COMPLEX32 ? DT_COMPLEX64 : x;
		return complex_of(promote(part, y));
	}
	return x == DT_COMPLEX128 || y == DT_COMPLEX128 ? DT_COMPLEX128 : DT_COMPLEX64;
}

/* torch's canCast: what an in-place op or an out= may write into. */
static int
can_cast(DType from, DType to)
{
	Cat f = cat_of(from), t = cat_of(to);

	if (f == CAT_COMPLEX && t != CAT_COMPLEX)
		return 0;
	if (f == CAT_FLOAT && (t == CAT_INT || t == CAT_BOOL))
		return 0;
	if (f != CAT_BOOL && t == CAT_BOOL)
		return 0;
	return 1;
}

/* The dtype torch gives a Python number: int64, float32, complex64, bool. */
static DType
number_dtype(const Arg *x)
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
	if (cat_of(higher) == CAT_COMPLEX)
		return higher;
	if (cat_of(lower) == CAT_COMPLEX)
		return is_float(higher) ? complex_of(higher) : lower;
	if (is_float(higher))
		return higher;
	if (higher == DT_BOOL || is_float(lower))
		return promote(higher, lower);
	return higher;
}

/* torch's result_type over the node's tensors (dims > 0 first, then
 * 0-dim tensors, then numbers); *bad set when two dtypes do not promote. */
static DType
result_type(MetaCtx *c, int *bad)
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
		} else if ((t = number_dtype(x)) != DT_UNKNOWN) {
			g = &num;
		} else {
			continue;
		}
		if (*g != DT_UNKNOWN && promote(*g, t) == DT_UNKNOWN)
			*bad = 1;
		*g = promote(*g, t);
	}
	return combine(dim, combine(zero, num));
}

/* The result dtype of the row's rule over the node's arguments;
 * DT_UNKNOWN with why[] when torch raises. */
static DType
row_dtype(MetaCtx *c)
{
	Value *self = first_tensor(c);
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
		if ((d = get_dtype(c, "dtype")) != DT_UNKNOWN)
			return d;
		if (!self)
			break;
		return cat_of(self->dtype) <= CAT_INT ? DT_INT64 : self->dtype;
	case MD_SAME:
		t = DT_UNKNOWN;
		for (int i = 0; i < c->n->nin; i++) {
			const Arg *x = &c->n->in[i].arg;
			if ((x->kind != ARG_TENSOR && x->kind != ARG_OPT_TENSOR) || !x->u.v)
				continue;
			if (t != DT_UNKNOWN && x->u.v->dtype != t) {
				fail(c, "expected every tensor of one dtype, got %s and %s", dtype_name(t),
				     dtype_name(x->u.v->dtype));
				return DT_UNKNOWN;
			}
			t = x->u.v->dtype;
		}
		if (t == DT_UNKNOWN)
			break;
		return t;
	default:
		t = result_type(c, &bad);
		if (bad || t == DT_UNKNOWN) {
			fail(c, "the argument dtypes do not promote");
			return DT_UNKNOWN;
		}
		if ((c->row->dt == MD_FLOAT || c->row->dt == MD_REAL_FLOAT) && cat_of(t) <= CAT_INT)
			return DT_FLOAT32;
		if ((c->row->dt == MD_REAL || c->row->dt == MD_REAL_FLOAT) && cat_of(t) == CAT_COMPLEX)
			return dtype_complex_part(t);
		return t;
	}
	fail(c, "no tensor argument to take the dtype from");
	return DT_UNKNOWN;
}

/* The dtype the kernel computes in: the promoted one for the promoting
 * rules, else self's. */
static DType
compute_dtype(MetaCtx *c)
{
	Value *self = first_tensor(c);
	int bad;

	switch (c->row->dt) {
	case MD_PROMOTE: case MD_FLOAT: case MD_REAL: case MD_REAL_FLOAT: case MD_BOOL:
		return result_type(c, &bad);
	case MD_RULE:
		return DT_UNKNOWN;
	default:
		return self ? self->dtype : DT_UNKNOWN;
	}
}

/* row_dtype, after checking that the kernel computes in a dtype of the
 * row's TAKES kinds ("not implemented for 'Float'"). */
static int
dtype_of(MetaCtx *c, DType *t)
{
	DType k = compute_dtype(c);
	static const int kind[] = { [CAT_BOOL] = TK_B, [CAT_INT] = TK_I, [CAT_FLOAT] = TK_F, [CAT_COMPLEX] = TK_C,
	                            [CAT_OTHER] = 0 };

	*t = row_dtype(c);
	if (*t == DT_UNKNOWN)
		return -1;
	if (k != DT_UNKNOWN && !(kind[cat_of(k)] & c->row->takes))
		return fail(c, "%s is not implemented for %s", c->n->op, dtype_name(k));
	return 0;
}

/* ==== pointwise: broadcasting ==== */

/* Broadcasts (rank, dims) into the accumulated shape *r, *d (torch's
 * infer_size): sizes equal, or one of them 1.  A symbol against 1 is the
 * symbol.  A symbol against a number other than 1, or against another
 * symbol, fails: torch would guard on their equality, which makes the
 * dynamic dim a constant the user did not declare. */
static int
broadcast(MetaCtx *c, int *r, Dim **d, int rank, const Dim *dims)
{
	int n = *r > rank ? *r : rank;
	Dim *o = ARENA_ARRAY(c->a, Dim, n + 1);

	for (int i = 0; i < n; i++) {
		int ia = i - (n - *r), ib = i - (n - rank);
		Dim x = ia >= 0 ? (*d)[ia] : dim_n(1), y = ib >= 0 ? dims[ib] : dim_n(1);
		if (dim_is(x, 1) || dim_eq(x, y))
			o[i] = y;
		else if (dim_is(y, 1))
			o[i] = x;
		else
			return fail(c, "the size of tensor a (%s) must match the size of tensor b (%s) at non-singleton dimension %d",
			            x.e ? sym_print(c->a, x.e) : arena_printf(c->a, "%lld", (long long)x.v),
			            y.e ? sym_print(c->a, y.e) : arena_printf(c->a, "%lld", (long long)y.v), i);
	}
	*r = n;
	*d = o;
	return 0;
}

/* Elementwise ops: every tensor argument broadcast, the row's dtype. */
static int
rule_pointwise(MetaCtx *c)
{
	int r = 0;
	Dim *d = NULL;
	DType t;

	for (int i = 0; i < c->n->nin; i++) {
		const Arg *x = &c->n->in[i].arg;
		if ((x->kind == ARG_TENSOR || x->kind == ARG_OPT_TENSOR) && x->u.v && x->u.v->kind == VAL_TENSOR)
			if (broadcast(c, &r, &d, x->u.v->rank, x->u.v->dims))
				return -1;
	}
	if (!d && !first_tensor(c))
		return fail(c, "no tensor argument");
	if (dtype_of(c, &t))
		return -1;
	if (c->row->p & PW_ROUNDING) {        /* div's rounding modes keep integers */
		const Arg *m = arg(c, "rounding_mode");
		if (m && m->kind == ARG_STRING && strcmp(m->u.s, "true") != 0) {
			int bad;
			t = result_type(c, &bad);
		}
	}
	if (c->row->p & PW_POW) {        /* bool ** bool computes in int64 */
		const Arg *e = arg(c, "exponent");
		if (t == DT_BOOL)
			t = DT_INT64;
		if (e && e->kind == ARG_INT && e->u.i < 0 && cat_of(t) == CAT_INT)
			return fail(c, "integers to negative integer powers are not allowed");
	}
	if ((c->row->p & PW_CLAMP) && !arg(c, "min") && !arg(c, "max"))
		return fail(c, "clamp: at least one of 'min' or 'max' must not be None");
	{
		const Arg *alpha = arg(c, "alpha"), *v = arg(c, "value");
		if (alpha && (alpha->kind == ARG_FLOAT || alpha->kind == ARG_SYM_FLOAT) && cat_of(t) <= CAT_INT)
			return fail(c, "for integral input tensors, argument alpha must not be a floating point number");
		if (c->row->dt == MD_SELF && v && v->kind == ARG_FLOAT && cat_of(t) <= CAT_INT &&
		    (v->u.f != v->u.f || v->u.f > 9.2e18 || v->u.f < -9.2e18))
			return fail(c, "value %g cannot be converted to type %s without overflow", v->u.f, dtype_name(t));
	}
	return out_tensor(c, t, r, d);
}

static int reduced(MetaCtx *c, const Value *x, const char *name, unsigned char *mask);

/* Results shaped like the first tensor: unary ops that are not
 * TensorIterator ops, clones, activations with parameters.  p is SAME_*:
 * one result; a bool mask beside it (native_dropout); int64 indices
 * beside it (sort, cummax); an int64 result (argsort); one result of a
 * tensor of at least 2 dims (triu).  A dim or dims argument must be in
 * range. */
static int
rule_same(MetaCtx *c)
{
	Value *x = first_tensor(c);
	DType t;
	int64_t d;
	int w;

	if (!x)
		return fail(c, "no tensor argument");
	if (dtype_of(c, &t))
		return -1;
	if (arg(c, "dim") && get_int(c, "dim", 0, &d) && wrap(c, d, x->rank, &w))
		return -1;
	if (arg(c, "dims") && x->rank <= META_MAX_RANK) {
		unsigned char mask[META_MAX_RANK];
		if (reduced(c, x, "dims", mask))
			return -1;
	}
	if (c->row->p == SAME_MATRIX && x->rank < 2)
		return fail(c, "%s: input tensor must have at least 2 dimensions", c->n->op);
	if (out_like(c, c->row->p == SAME_INT64 ? DT_INT64 : t, x))
		return -1;
	if (c->row->p == SAME_MASK)
		return out_like(c, DT_BOOL, x);
	if (c->row->p == SAME_INDICES)
		return out_like(c, DT_INT64, x);
	return 0;
}

/* ==== reductions ==== */

/* The reduced dims of x as a mask; no dim (None, or an empty list for
 * the list forms) reduces all.  Returns -1 with why[] on a bad dim, 1
 * for an empty list (which some ops take as no dim at all), else 0. */
static int
reduced(MetaCtx *c, const Value *x, const char *name, unsigned char *mask)
{
	const Arg *a = arg(c, name);
	int64_t *v;
	int k, w;

	memset(mask, 0, META_MAX_RANK);
	if (!a || ((a->kind == ARG_INTS || a->kind == ARG_SYM_INTS) && a->n == 0)) {
		memset(mask, 1, META_MAX_RANK);
		return a ? 1 : 0;
	}
	if ((k = get_ints(c, name, 0, &v)) < 0)
		return fail(c, "argument '%s' is not a list of dims", name);
	for (int i = 0; i < k; i++) {
		if (wrap(c, v[i], x->rank, &w))
			return -1;
		if (mask[w])
			return fail(c, "dim %d appears multiple times in the list of dims", w);
		mask[w] = 1;
	}
	return 0;
}

/* Reductions over dim (or all dims) with keepdim.  p: 1 one result; 2
 * values and int64 indices (max.dim); 3 a second result in self's dtype
 * (var_mean's mean, aminmax).  q is RQ_* flags: the op needs a floating
 * or complex input (mean), a reduced dim may not be empty (max, amax), a
 * uint8 input keeps its dtype (any, all), an empty dim list reduces
 * nothing (any.dims) or, without keepdim, is an error (logsumexp). */
static int
rule_reduce(MetaCtx *c)
{
	Value *x = first_tensor(c);
	unsigned char mask[META_MAX_RANK];
	Dim d[META_MAX_RANK];
	DType t;
	int k = 0, keep = get_bool(c, "keepdim", 0), empty;

	if (!x || x->rank > META_MAX_RANK)
		return fail(c, "no tensor argument of at most %d dims", META_MAX_RANK);
	if ((empty = reduced(c, x, "dim", mask)) < 0 || dtype_of(c, &t))
		return -1;
	if (empty && (c->row->q & RQ_EMPTY_NONE))
		memset(mask, 0, sizeof mask);
	if (empty && (c->row->q & RQ_EMPTY_ERR) && x->rank && !keep)
		return fail(c, "%s over an empty list of dims", c->n->op);
	if ((c->row->q & RQ_FLOAT) && get_dtype(c, "dtype") == DT_UNKNOWN && cat_of(x->dtype) <= CAT_INT)
		return fail(c, "could not infer output dtype: input dtype must be either a floating point or complex dtype, got %s",
		            dtype_name(x->dtype));
	if ((c->row->q & RQ_FLOAT) && get_dtype(c, "dtype") != DT_UNKNOWN)
		t = get_dtype(c, "dtype");
	for (int i = 0; i < x->rank; i++) {
		if (!mask[i])
			d[k++] = x->dims[i];
		else if (keep)
			d[k++] = dim_n(1);
		if (mask[i] && dim_is(x->dims[i], 0) && (c->row->p == 2 || (c->row->q & RQ_NONEMPTY)))
			return fail(c, "expected reduction dim %d to have non-zero size", i);
	}
	if ((c->row->q & RQ_U8) && x->dtype == DT_UINT8)
		t = DT_UINT8;
	if (out_tensor(c, t, k, d))
		return -1;
	if (c->row->p == 2)
		return out_tensor(c, DT_INT64, k, d);
	if (c->row->p == 3)
		return out_tensor(c, x->dtype, k, d);
	return 0;
}

/* argmax, argmin: int64 over dim, or over the flattened tensor. */
static int
rule_argreduce(MetaCtx *c)
{
	Value *x = first_tensor(c);
	Dim d[META_MAX_RANK];
	int64_t dim;
	int k = 0, w = -1, keep = get_bool(c, "keepdim", 0);

	if (!x || x->rank > META_MAX_RANK)
		return fail(c, "no tensor argument of at most %d dims", META_MAX_RANK);
	if (arg(c, "dim")) {
		if (need_int(c, "dim", 0, &dim) || wrap(c, dim, x->rank, &w))
			return -1;
		if (x->rank && dim_is(x->dims[w], 0))
			return fail(c, "expected reduction dim %d to have non-zero size", w);
	} else {
		for (int i = 0; i < x->rank; i++)
			if (dim_is(x->dims[i], 0))
				return fail(c, "cannot perform reduction function on an empty tensor");
	}
	for (int i = 0; i < x->rank; i++) {
		if (w >= 0 && i != w)
			d[k++] = x->dims[i];
		else if (keep)
			d[k++] = dim_n(1);
	}
	return out_tensor(c, DT_INT64, k, d);
}

/* topk, kthvalue-like selections along dim: values and int64 indices,
 * dim sized k (p 0: topk) or removed (p 1: kthvalue, mode). */
static int
rule_topk(MetaCtx *c)
{
	Value *x = first_tensor(c);
	Dim d[META_MAX_RANK];
	int64_t dim, k;
	int w, r;

	if (!x || x->rank > META_MAX_RANK)
		return fail(c, "no tensor argument of at most %d dims", META_MAX_RANK);
	if (need_int(c, "dim", -1, &dim) || need_int(c, "k", 1, &k) || wrap(c, dim, x->rank, &w))
		return -1;
	memcpy(d, x->dims, sizeof *d * (size_t)x->rank);
	if (c->row->p == 0 && x->rank && !x->dims[w].e && (k < 0 || k > x->dims[w].v))
		return fail(c, "selected index k out of range");
	if (c->row->p == 0) {
		if (x->rank)
			d[w] = dim_n(k);
		r = x->rank;
	} else {
		if (x->rank && dim_is(x->dims[w], 0))
			return fail(c, "expected reduction dim %d to have non-zero size", w);
		r = 0;
		for (int i = 0; i < x->rank; i++)
			if (i != w)
				d[r++] = x->dims[i];
			else if (get_bool(c, "keepdim", 0))
				d[r++] = dim_n(1);
	}
	if (out_tensor(c, x->dtype, r, d))
		return -1;
	return out_tensor(c, DT_INT64, r, d);
}

/* ==== matrix products ==== */

/* 1 when two contracted or matched sizes are equal.  As in broadcasting,
 * a symbol equals only itself: a number there would make it a constant. */
static int
same_size(Dim x, Dim y)
{
	return dim_eq(x, y);
}

static int
size_mismatch(MetaCtx *c, const char *what, int ra, const Dim *a, int rb, const Dim *b)
{
	return fail(c, "%s: shapes %s and %s cannot be multiplied", what, shape_str(c, ra, a),
	            shape_str(c, rb, b));
}

/* matmul's batched product: a[..., n, k] @ b[..., k, m], a 1-D operand
 * taken as a row (a) or a column (b) vector and its dim removed. */
static int
matmul_shape(MetaCtx *c, const Value *x, const Value *y, int *r, Dim **d)
{
	Dim xa[META_MAX_RANK + 1], ya[META_MAX_RANK + 1], *bd = NULL, *o;
	int xr = x->rank, yr = y->rank, br = 0, n;

	if (!xr || !yr)
		return fail(c, "both arguments to matmul need to be at least 1D, but they are %dD and %dD", xr, yr);
	if (xr > META_MAX_RANK || yr > META_MAX_RANK)
		return fail(c, "more than %d dims", META_MAX_RANK);
	if (xr == 1) {
		xa[0] = dim_n(1);
		xa[1] = x->dims[0];
		xr = 2;
	} else {
		memcpy(xa, x->dims, sizeof *xa * (size_t)xr);
	}
	if (yr == 1) {
		ya[0] = y->dims[0];
		ya[1] = dim_n(1);
		yr = 2;
	} else {
		memcpy(ya, y->dims, sizeof *ya * (size_t)yr);
	}
	if (!same_size(xa[xr - 1], ya[yr - 2]))
		return size_mismatch(c, "matmul", x->rank, x->dims, y->rank, y->dims);
	if (broadcast(c, &br, &bd, xr - 2, xa) || broadcast(c, &br, &bd, yr - 2, ya))
		return -1;
	o = ARENA_ARRAY(c->a, Dim, br + 3);
	memcpy(o, bd, sizeof *o * (size_t)br);
	n = br;
	if (x->rank > 1)
		o[n++] = xa[xr - 2];
	if (y->rank > 1)
		o[n++] = ya[yr - 1];
	*r = n;
	*d = o;
	return 0;
}

/* Checks that the named argument has rank r (torch's "must be a matrix"). */
static Value *
ranked(MetaCtx *c, const char *name, int r)
{
	Value *v = tensor(c, name);

	if (!v)
		fail(c, "argument '%s' is not a tensor", name);
	else if (v->rank != r)
		fail(c, "argument '%s' must be %dD, got %dD", name, r, v->rank);
	else
		return v;
	return NULL;
}

/* The matrix product family; p says which (MM_*).  An add form (addmm,
 * baddbmm, addmv, addr) broadcasts self to the product's shape. */
static int
rule_matmul(MetaCtx *c)
{
	Value *x, *y, *self = NULL, *bias;
	Dim o[META_MAX_RANK + 2], *d = o;
	int r = 0;
	DType t;

	if (dtype_of(c, &t))
		return -1;
	switch (c->row->p) {
	case MM_MATMUL:
		if (!(x = tensor(c, "self")) || !(y = tensor(c, "other")))
			return fail(c, "matmul takes two tensors");
		if (matmul_shape(c, x, y, &r, &d))
			return -1;
		break;
	case MM_MM: case MM_ADDMM:
		if (!(x = ranked(c, c->row->p == MM_MM ? "self" : "mat1", 2)) ||
		    !(y = ranked(c, c->row->p == MM_MM ? "mat2" : "mat2", 2)))
			return -1;
		if (!same_size(x->dims[1], y->dims[0]))
			return size_mismatch(c, "mm", 2, x->dims, 2, y->dims);
		o[0] = x->dims[0];
		o[1] = y->dims[1];
		r = 2;
		self = c->row->p == MM_ADDMM ? tensor(c, "self") : NULL;
		break;
	case MM_BMM: case MM_BADDBMM: case MM_ADDBMM:
		if (!(x = ranked(c, c->row->p == MM_BMM ? "self" : "batch1", 3)) ||
		    !(y = ranked(c, c->row->p == MM_BMM ? "mat2" : "batch2", 3)))
			return -1;
		if (!same_size(x->dims[0], y->dims[0]) || !same_size(x->dims[2], y->dims[1]))
			return size_mismatch(c, "bmm", 3, x->dims, 3, y->dims);
		if (c->row->p == MM_ADDBMM) {
			o[0] = x->dims[1];
			o[1] = y->dims[2];
			r = 2;
		} else {
			o[0] = x->dims[0].e ? x->dims[0] : y->dims[0];
			o[1] = x->dims[1];
			o[2] = y->dims[2];
			r = 3;
		}
		self = c->row->p != MM_BMM ? tensor(c, "self") : NULL;
		break;
	case MM_MV: case MM_ADDMV:
		if (!(x = ranked(c, c->row->p == MM_MV ? "self" : "mat", 2)) || !(y = ranked(c, "vec", 1)))
			return -1;
		if (!same_size(x->dims[1], y->dims[0]))
			return size_mismatch(c, "mv", 2, x->dims, 1, y->dims);
		o[0] = x->dims[0];
		r = 1;
		self = c->row->p == MM_ADDMV ? tensor(c, "self") : NULL;
		break;
	case MM_DOT:
		if (!(x = ranked(c, "self", 1)) || !(y = ranked(c, tensor(c, "tensor") ? "tensor" : "other", 1)))
			return -1;
		if (!same_size(x->dims[0], y->dims[0]))
			return fail(c, "inconsistent tensor size: %s and %s", shape_str(c, 1, x->dims),
			            shape_str(c, 1, y->dims));
		break;
	case MM_OUTER: case MM_ADDR:
		if (!(x = ranked(c, c->row->p == MM_OUTER ? "self" : "vec1", 1)) ||
		    !(y = ranked(c, c->row->p == MM_OUTER ? "vec2" : "vec2", 1)))
			return -1;
		o[0] = x->dims[0];
		o[1] = y->dims[0];
		r = 2;
		self = c->row->p == MM_ADDR ? tensor(c, "self") : NULL;
		break;
	case MM_LINEAR:
		if (!(x = tensor(c, "input")) || !(y = tensor(c, "weight")))
			return fail(c, "linear takes an input and a weight");
		if (y->rank != 1 && y->rank != 2)
			return fail(c, "linear: weight must be 1D or 2D, got %dD", y->rank);
		if (!x->rank || x->rank > META_MAX_RANK)
			return fail(c, "linear: input must be at least 1D");
		if (!same_size(x->dims[x->rank - 1], y->dims[y->rank - 1]))
			return size_mismatch(c, "linear", x->rank, x->dims, y->rank, y->dims);
		r = x->rank - 1;
		memcpy(o, x->dims, sizeof *o * (size_t)r);
		if (y->rank == 2)
			o[r++] = y->dims[0];
		if ((bias = tensor(c, "bias"))) {
			int br = r;
			Dim *bd = o;
			if (broadcast(c, &br, &bd, bias->rank, bias->dims))
				return -1;
			if (br != r)
				return fail(c, "linear: bias %s does not broadcast to %s", shape_str(c, bias->rank, bias->dims),
				            shape_str(c, r, o));
		}
		break;
	default:
		return fail(c, "unknown product form %d", c->row->p);
	}
	if (self) {
		int br = r;
		Dim *bd = d;
		if (broadcast(c, &br, &bd, self->rank, self->dims))
			return -1;
		if (br != r)
			return fail(c, "self %s does not broadcast to the product's shape %s",
			            shape_str(c, self->rank, self->dims), shape_str(c, r, d));
		for (int i = 0; i < r; i++)
			if (!dim_eq(bd[i], d[i]) && !(d[i].e && !bd[i].e))
				return fail(c, "self %s does not broadcast to the product's shape %s",
				            shape_str(c, self->rank, self->dims), shape_str(c, r, d));
	}
	return out_tensor(c, t, r, d);
}

/* ==== convolution, pooling ==== */

/* The spatial parameter name of c as nd sizes (a single value repeats),
 * def when absent or empty; -1 with why[] otherwise. */
static int
spatial(MetaCtx *c, const char *name, int nd, int64_t def, int64_t *v)
{
	int64_t *x;
	int k = get_ints(c, name, nd, &x);

	if (k == -1 || k == 0) {
		for (int i = 0; i < nd; i++)
			v[i] = def;
		return 0;
	}
	if (k == -2)
		return fail(c, "argument '%s' is symbolic", name);
	if (k != nd && k != 1)
		return fail(c, "expected %s to be a single integer value or a list of %d values, but got %d",
		            name, nd, k);
	for (int i = 0; i < nd; i++)
		v[i] = x[k == 1 ? 0 : i];
	return 0;
}

/* Convolutions: conv1d-3d, convolution, _convolution, conv_transpose*.
 * p is CONV_* flags: always transposed (conv_transpose, else the
 * transposed argument says), a batched input only (convolution).  The
 * spatial rank comes from the weight. */
static int
rule_conv(MetaCtx *c)
{
	Value *x = tensor(c, "input"), *w = tensor(c, "weight"), *b = tensor(c, "bias");
	int64_t st[8], pd[8], dl[8], op[8], groups;
	Dim o[10];
	const Arg *pa = arg(c, "padding");
	int nd, batched, tr = (c->row->p & CONV_T) || get_bool(c, "transposed", 0), same = 0;
	DType t;

	if (!x || !w)
		return fail(c, "a convolution takes an input and a weight");
	nd = w->rank - 2;
	if (nd < 1 || nd > 3)
		return fail(c, "expected a weight of 3 to 5 dims, got %d", w->rank);
	if (x->rank != nd + 1 && x->rank != nd + 2)
		return fail(c, "expected %dD (unbatched) or %dD (batched) input to conv%dd, but got input of size: %s",
		            nd + 1, nd + 2, nd, shape_str(c, x->rank, x->dims));
	batched = x->rank == nd + 2;
	if (!batched && (c->row->p & CONV_BATCHED))
		return fail(c, "expected %d-dimensional input for %d-dimensional weight %s, but got %d-dimensional input",
		            nd + 2, nd + 2, shape_str(c, w->rank, w->dims), x->rank);
	if (dtype_of(c, &t) || need_int(c, "groups", 1, &groups))
		return -1;
	if (pa && pa->kind == ARG_STRING) {
		if (strcmp(pa->u.s, "same") == 0)
			same = 1;
		else if (strcmp(pa->u.s, "valid") != 0)
			return fail(c, "invalid padding string '%s'", pa->u.s);
		for (int i = 0; i < nd; i++)
			pd[i] = 0;
	} else if (spatial(c, "padding", nd, 0, pd)) {
		return -1;
	}
	if (spatial(c, "stride", nd, 1, st) || spatial(c, "dilation", nd, 1, dl) ||
	    spatial(c, "output_padding", nd, 0, op))
		return -1;
	if (groups <= 0)
		return fail(c, "non-positive groups is not supported");
	for (int i = 0; i < nd; i++) {
		if (st[i] <= 0 || dl[i] <= 0 || pd[i] < 0)
			return fail(c, "stride and dilation must be positive and padding non-negative");
		if (same && st[i] != 1)
			return fail(c, "padding='same' is not supported for strided convolutions");
	}
	{
		Dim cin = x->dims[batched], wc = tr ? w->dims[0] : dim_op(c, SYM_MUL, w->dims[1], dim_n(groups));
		if (!same_size(cin, wc))
			return fail(c, "given groups=%lld, weight of size %s, expected input%s to have %s channels",
			            (long long)groups, shape_str(c, w->rank, w->dims), shape_str(c, x->rank, x->dims),
			            wc.e ? sym_print(c->a, wc.e) : arena_printf(c->a, "%lld", (long long)wc.v));
		if (!tr && !w->dims[0].e && w->dims[0].v % groups)
			return fail(c, "given groups=%lld, expected weight to be divisible by %lld at dimension 0",
			            (long long)groups, (long long)groups);
	}
	if (batched)
		o[0] = x->dims[0];
	o[batched] = tr ? dim_op(c, SYM_MUL, w->dims[1], dim_n(groups)) : w->dims[0];
	if (b && (b->rank != 1 || !same_size(b->dims[0], o[batched])))
		return fail(c, "expected bias to be 1-dimensional with %s elements, but got bias of size %s",
		            shape_str(c, 1, &o[batched]), shape_str(c, b->rank, b->dims));
	for (int i = 0; i < nd; i++) {
		Dim L = x->dims[batched + 1 + i], k = w->dims[2 + i], ek, r;
		if (k.e)
			return fail(c, "a symbolic kernel size");
		ek = dim_n(dl[i] * (k.v - 1) + 1);
		if (same)
			r = L;
		else if (tr)
			r = dim_add(c, dim_op(c, SYM_MUL, dim_add(c, L, -1), dim_n(st[i])),
			            -2 * pd[i] + dl[i] * (k.v - 1) + op[i] + 1);
		else
			r = dim_add(c, dim_op(c, SYM_FLOORDIV, dim_add(c, L, 2 * pd[i] - ek.v), dim_n(st[i])), 1);
		if (!r.e && r.v <= 0)
			return fail(c, "calculated output size %lld is too small (input %s, kernel %lld)",
			            (long long)r.v, shape_str(c, 1, &L), (long long)k.v);
		if (!tr && !L.e && L.v + 2 * pd[i] < ek.v)
			return fail(c, "kernel size can't be greater than actual input size");
		o[batched + 1 + i] = r;
	}
	return out_tensor(c, t, x->rank, o);
}

/* One pooled size: torch's pooling_output_shape. */
static int
pool_size(MetaCtx *c, Dim L, int64_t k, int64_t s, int64_t p, int64_t d, int ceil, Dim *out)
{
	int64_t ek = d * (k - 1) + 1;
	Dim r;

	if (k <= 0 || s <= 0 || d <= 0 || p < 0)
		return fail(c, "kernel size, stride and dilation must be greater than zero, padding non-negative");
	if (p > k / 2)
		return fail(c, "pad should be at most half of effective kernel size, but got pad=%lld, kernel_size=%lld",
		            (long long)p, (long long)k);
	r = dim_add(c, dim_op(c, SYM_FLOORDIV, dim_add(c, L, 2 * p - ek + (ceil ? s - 1 : 0)), dim_n(s)), 1);
	if (ceil) {
		if (!r.e && !L.e) {
			if ((r.v - 1) * s >= L.v + p)
				r.v--;
		} else if (p + s > ek) {
			return fail(c, "ceil_mode with a symbolic size: the last window's place depends on the size");
		}
	}
	if (!r.e && r.v < 1)
		return fail(c, "output size is too small (%lld)", (long long)r.v);
	*out = r;
	return 0;
}

/* Pooling: p is POOL_* (max, max with indices, avg, adaptive avg,
 * adaptive max), q the spatial rank. */
static int
rule_pool(MetaCtx *c)
{
	Value *x = first_tensor(c);
	int nd = c->row->q, kind = c->row->p;
	int64_t k[3], s[3], p[3], d[3];
	Dim o[5];
	DType t;
	int lead;

	if (!x)
		return fail(c, "no input tensor");
	if (x->rank != nd + 1 && x->rank != nd + 2)
		return fail(c, "expected %dD or %dD input, got %s", nd + 1, nd + 2, shape_str(c, x->rank, x->dims));
	if (dtype_of(c, &t))
		return -1;
	lead = x->rank - nd;
	memcpy(o, x->dims, sizeof *o * (size_t)lead);
	for (int i = lead; i < x->rank; i++)
		if (dim_is(x->dims[i], 0) && kind != POOL_ADAPTIVE && kind != POOL_ADAPTIVE_MAX)
			return fail(c, "expected input with non-zero spatial sizes, got %s", shape_str(c, x->rank, x->dims));
	if (kind == POOL_ADAPTIVE || kind == POOL_ADAPTIVE_MAX) {
		Dim *os;
		int n = get_dims(c, "output_size", nd, &os);
		if (n != nd)
			return fail(c, "output_size must be %d sizes", nd);
		for (int i = 0; i < nd; i++) {
			o[lead + i] = os[i];
			if (!o[lead + i].e && o[lead + i].v < 0)
				return fail(c, "output_size must be non-negative");
		}
	} else {
		int ceil = get_bool(c, "ceil_mode", 0);
		const Arg *ks = arg(c, "kernel_size"), *sa;
		if (!ks || (ks->kind != ARG_INT && ks->n != 1 && ks->n != nd))
			return fail(c, "kernel_size must be a single int or a list of %d", nd);
		if (spatial(c, "kernel_size", nd, 1, k) || spatial(c, "padding", nd, 0, p) ||
		    spatial(c, "dilation", nd, 1, d))
			return -1;
		if (spatial(c, "stride", nd, 0, s))
			return -1;
		sa = arg(c, "stride");
		for (int i = 0; i < nd; i++) {
			if (!sa || (sa->kind != ARG_INT && sa->kind != ARG_SYM_INT && sa->n == 0))
				s[i] = k[i];        /* stride=[]: the kernel size */
			if (kind == POOL_AVG)
				d[i] = 1;
			if (pool_size(c, x->dims[lead + i], k[i], s[i], p[i], d[i], ceil, &o[lead + i]))
				return -1;
		}
	}
	if (out_tensor(c, t, x->rank, o))
		return -1;
	if (kind == POOL_MAX_IDX || kind == POOL_ADAPTIVE_MAX)
		return out_tensor(c, DT_INT64, x->rank, o);
	return 0;
}

/* ==== views and shape changes ==== */

/* The number of elements of dims as a polynomial (NULL on overflow). */
static Poly *
numel_poly(MetaCtx *c, int rank, const Dim *d)
{
	Poly *p = poly_int(c->a, 1);

	for (int i = 0; i < rank && p; i++)
		p = poly_mul(c->a, p, d[i].e ? poly_sym(c->a, d[i].e) : poly_int(c->a, d[i].v));
	return p;
}

/* Fills a -1 in sizes[0..k) so their product is x's numel (torch's
 * infer_size); fails when the sizes cannot hold x's elements. */
static int
infer_minus_one(MetaCtx *c, const Value *x, int k, Dim *d)
{
	Poly *total = numel_poly(c, x->rank, x->dims), *rest = poly_int(c->a, 1), *q;
	int at = -1;
	int64_t v, r;

	for (int i = 0; i < k; i++) {
		if (dim_is(d[i], -1)) {
			if (at >= 0)
				return fail(c, "only one dimension can be inferred");
			at = i;
			continue;
		}
		if (!d[i].e && d[i].v < 0)
			return fail(c, "invalid shape dimension %lld", (long long)d[i].v);
		rest = poly_mul(c->a, rest, d[i].e ? poly_sym(c->a, d[i].e) : poly_int(c->a, d[i].v));
	}
	if (!total || !rest)
		return fail(c, "element count too large");
	if (at < 0) {
		if (poly_equal(total, rest))
			return 0;
		if (poly_const(total, &v) && poly_const(rest, &r))
			return fail(c, "shape %s is invalid for input of size %lld", shape_str(c, k, d), (long long)v);
		return fail(c, "cannot tell that shape %s holds the %s elements of %s", shape_str(c, k, d),
		            sym_print(c->a, poly_expr(c->a, total)), shape_str(c, x->rank, x->dims));
	}
	if (poly_const(total, &v) && poly_const(rest, &r)) {
		if (r == 0 || v % r)
			return fail(c, "shape %s is invalid for input of size %lld", shape_str(c, k, d), (long long)v);
		d[at] = dim_n(v / r);
		return 0;
	}
	if ((q = poly_div_term(c->a, total, rest))) {
		d[at] = dim_e(c, poly_expr(c->a, q), -1);
		return 0;
	}
	if (poly_const(rest, &r) && r > 0) {
		SymExpr **args = ARENA_ARRAY(c->a, SymExpr *, 2);
		args[0] = poly_expr(c->a, total);
		args[1] = poly_num(c->a, r);
		d[at] = dim_e(c, poly_call(c->a, SYM_FLOORDIV, 2, args), -1);
		return 0;
	}
	return fail(c, "cannot divide the %s elements of %s by %s", sym_print(c->a, poly_expr(c->a, total)),
	            shape_str(c, x->rank, x->dims), sym_print(c->a, poly_expr(c->a, rest)));
}

/* view, reshape, expand and their _as forms; p is VIEW_*. */
static int
rule_view(MetaCtx *c)
{
	Value *x = first_tensor(c), *other = tensor(c, "other");
	Dim *d;
	int k;

	if (!x)
		return fail(c, "no tensor argument");
	if (c->row->p == VIEW_AS || c->row->p == EXPAND_AS) {
		if (!other)
			return fail(c, "argument 'other' is not a tensor");
		k = other->rank;
		d = ARENA_ARRAY(c->a, Dim, k + 1);
		memcpy(d, other->dims, sizeof *d * (size_t)k);
	} else if ((k = get_dims(c, "size", 0, &d)) < 0 && (k = get_dims(c, "shape", 0, &d)) < 0) {
		return fail(c, "argument 'size' is not a list of sizes");
	}
	if (c->row->p == VIEW_SIZE || c->row->p == VIEW_AS)
		return infer_minus_one(c, x, k, d) ? -1 : out_tensor(c, x->dtype, k, d);
	/* expand: new dims in front; -1 keeps a dim; a dim grows only from 1 */
	if (k < x->rank)
		return fail(c, "the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)",
		            k, x->rank);
	for (int i = 0; i < k; i++) {
		int j = i - (k - x->rank);
		if (j < 0) {
			if (!d[i].e && d[i].v < 0)
				return fail(c, "the expanded size of the tensor (%lld) isn't allowed in a leading, non-existing dimension %d",
				            (long long)d[i].v, i);
			continue;
		}
		if (dim_is(d[i], -1) || dim_eq(d[i], x->dims[j]))
			d[i] = x->dims[j];
		else if (!dim_is(x->dims[j], 1) && !(x->dims[j].e && !d[i].e) && !(!x->dims[j].e && d[i].e))
			return fail(c, "the expanded size of the tensor (%s) must match the existing size (%s) at non-singleton dimension %d",
			            shape_str(c, 1, &d[i]), shape_str(c, 1, &x->dims[j]), i);
		else if (!d[i].e && d[i].v < 0)
			return fail(c, "invalid expanded size %lld", (long long)d[i].v);
	}
	return out_tensor(c, x->dtype, k, d);
}

/* flatten(start_dim, end_dim) and unflatten(dim, sizes). p: 0 flatten, 1 unflatten. */
static int
rule_flatten(MetaCtx *c)
{
	Value *x = first_tensor(c);
	Dim d[META_MAX_RANK * 2 + 1], *s;
	int64_t a, b;
	int wa, wb, k = 0, ns;

	if (!x || x->rank > META_MAX_RANK)
		return fail(c, "no tensor argument of at most %d dims", META_MAX_RANK);
	if (c->row->p == 0) {
		if (need_int(c, "start_dim", 0, &a) || need_int(c, "end_dim", -1, &b) ||
		    wrap(c, a, x->rank, &wa) || wrap(c, b, x->rank, &wb))
			return -1;
		if (wa > wb)
			return fail(c, "flatten() has invalid args: start_dim cannot come after end_dim");
		if (!x->rank) {
			d[0] = dim_n(1);
			return out_tensor(c, x->dtype, 1, d);
		}
		for (int i = 0; i < wa; i++)
			d[k++] = x->dims[i];
		d[k++] = dim_prod(c, wb - wa + 1, x->dims + wa);
		for (int i = wb + 1; i < x->rank; i++)
			d[k++] = x->dims[i];
		return out_tensor(c, x->dtype, k, d);
	}
	if (need_int(c, "dim", 0, &a) || wrap(c, a, x->rank, &wa))
		return -1;
	if ((ns = get_dims(c, "sizes", 0, &s)) < 1)
		return fail(c, "unflatten: sizes must be non-empty");
	if (ns > META_MAX_RANK)
		return fail(c, "unflatten: too many sizes");
	{
		Value part = *x;
		part.rank = x->rank ? 1 : 0;
		part.dims = x->rank ? &x->dims[wa] : NULL;
		if (infer_minus_one(c, &part, ns, s))
			return -1;
	}
	for (int i = 0; i < wa; i++)
		d[k++] = x->dims[i];
	for (int i = 0; i < ns; i++)
		d[k++] = s[i];
	for (int i = wa + 1; i < x->rank; i++)
		d[k++] = x->dims[i];
	return out_tensor(c, x->dtype, k, d);
}

/* squeeze (all size-1 dims, one dim, or a list) and unsqueeze. p: 0
 * squeeze, 1 unsqueeze.  A symbolic dim is taken as not 1. */
static int
rule_squeeze(MetaCtx *c)
{
	Value *x = first_tensor(c);
	unsigned char mask[META_MAX_RANK];
	Dim d[META_MAX_RANK + 1];
	int64_t v;
	int k = 0, w;

	if (!x || x->rank >= META_MAX_RANK)
		return fail(c, "no tensor argument of fewer than %d dims", META_MAX_RANK);
	if (c->row->p == 1) {
		if (need_int(c, "dim", 0, &v) || wrap(c, v, x->rank + 1, &w))
			return -1;
		for (int i = 0; i <= x->rank; i++)
			d[i] = i < w ? x->dims[i] : i == w ? dim_n(1) : x->dims[i - 1];
		return out_tensor(c, x->dtype, x->rank + 1, d);
	}
	if ((k = reduced(c, x, "dim", mask)) < 0)
		return -1;
	if (k)        /* squeeze.dims over [] squeezes nothing */
		memset(mask, 0, sizeof mask);
	k = 0;
	for (int i = 0; i < x->rank; i++)
		if (!(mask[i] && dim_is(x->dims[i], 1)))
			d[k++] = x->dims[i];
	return out_tensor(c, x->dtype, k, d);
}

/* permute, transpose, t, movedim, swapaxes: the dims reordered.  p is PERM_*. */
static int
rule_permute(MetaCtx *c)
{
	Value *x = first_tensor(c);
	int perm[META_MAX_RANK], w0, w1;
	unsigned char seen[META_MAX_RANK] = { 0 };
	Dim d[META_MAX_RANK];
	int64_t a, b, *v, *u;
	int k, r;

	if (!x || x->rank > META_MAX_RANK)
		return fail(c, "no tensor argument of at most %d dims", META_MAX_RANK);
	r = x->rank;
	for (int i = 0; i < r; i++)
		perm[i] = i;
	switch (c->row->p) {
	case PERM_LIST:
		if ((k = get_ints(c, "dims", 0, &v)) < 0)
			return fail(c, "argument 'dims' is not a list of ints");
		if (k != r)
			return fail(c, "permute: number of dims don't match (input has %d, permutation has %d)", r, k);
		for (int i = 0; i < r; i++) {
			if (wrap(c, v[i], r, &w0))
				return -1;
			if (seen[w0]++)
				return fail(c, "permute: repeated dim %d", w0);
			perm[i] = w0;
		}
		break;
	case PERM_SWAP: case PERM_SWAPAXES:
		if (need_int(c, c->row->p == PERM_SWAP ? "dim0" : "axis0", 0, &a) ||
		    need_int(c, c->row->p == PERM_SWAP ? "dim1" : "axis1", 0, &b) ||
		    wrap(c, a, r, &w0) || wrap(c, b, r, &w1))
			return -1;
		if (r) {
			perm[w0] = w1;
			perm[w1] = w0;
		}
		break;
	case PERM_T:
		if (r > 2)
			return fail(c, "t() expects a tensor with <= 2 dimensions, but self is %dD", r);
		if (r == 2) {
			perm[0] = 1;
			perm[1] = 0;
		}
		break;
	case PERM_MOVEDIM: {
		int src[META_MAX_RANK], dst[META_MAX_RANK], used[META_MAX_RANK] = { 0 }, taken[META_MAX_RANK] = { 0 };
		int ks = get_ints(c, "source", 0, &v), kd = get_ints(c, "destination", 0, &u), next = 0;
		if (ks < 0 || kd < 0)
			return fail(c, "movedim: source and destination must be ints");
		if (ks != kd)
			return fail(c, "movedim: invalid source or destination dims: source (%d dims) should contain the same number of dims as destination (%d dims)", ks, kd);
		for (int i = 0; i < ks; i++) {
			if (wrap(c, v[i], r, &src[i]) || wrap(c, u[i], r, &dst[i]))
				return -1;
			if (used[src[i]]++ || taken[dst[i]]++)
				return fail(c, "movedim: repeated dim");
		}
		for (int i = 0; i < r; i++)
			perm[i] = -1;
		for (int i = 0; i < ks; i++)
			perm[dst[i]] = src[i];
		for (int i = 0; i < r; i++) {
			if (perm[i] >= 0)
				continue;
			while (used[next])
				next++;
			perm[i] = next++;
		}
		break;
	}
	default:
		return fail(c, "unknown permutation form");
	}
	for (int i = 0; i < r; i++)
		d[i] = x->dims[perm[i]];
	return out_tensor(c, x->dtype, r, d);
}

/* repeat(repeats) and tile(dims): sizes times the repeats, the shorter
 * side padded with 1s in front. p: 0 repeat, 1 tile. */
static int
rule_repeat(MetaCtx *c)
{
	Value *x = first_tensor(c);
	Dim *rp, d[META_MAX_RANK];
	int k = get_dims(c, c->row->p ? "dims" : "repeats", 0, &rp), r;

	if (!x || k < 0 || k > META_MAX_RANK || x->rank > META_MAX_RANK)
		return fail(c, "expected a tensor and a list of repeats");
	if (!c->row->p && k < x->rank)
		return fail(c, "number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
	r = k > x->rank ? k : x->rank;
	for (int i = 0; i < r; i++) {
		int j = i - (r - x->rank), l = i - (r - k);
		Dim s = j >= 0 ? x->dims[j] : dim_n(1), m = l >= 0 ? rp[l] : dim_n(1);
		if (!m.e && m.v < 0)
			return fail(c, "repeats can not be negative");
		d[i] = dim_op(c, SYM_MUL, s, m);
	}
	return out_tensor(c, x->dtype, r, d);
}

/* ==== joins and splits ==== */

/* cat and stack: p 0 cat, 1 stack.  The dtype promotes over the list;
 * cat skips the legacy empty 1-D tensors. */
static int
rule_cat(MetaCtx *c)
{
	Value **ts, *ref = NULL;
	Dim d[META_MAX_RANK + 1];
	int64_t dim;
	DType t = DT_UNKNOWN;
	int k = get_tensors(c, "tensors", &ts), w, r, stack = c->row->p == 1;

	if (k < 0)
		return fail(c, "argument 'tensors' is not a list of tensors");
	if (k == 0)
		return fail(c, "expected a non-empty list of Tensors");
	if (need_int(c, "dim", 0, &dim))
		return -1;
	for (int i = 0; i < k; i++) {
		if (!ts[i])
			return fail(c, "item %d of 'tensors' is None", i);
		if (t != DT_UNKNOWN && promote(t, ts[i]->dtype) == DT_UNKNOWN)
			return fail(c, "the tensors' dtypes do not promote");
		t = promote(t, ts[i]->dtype);
		if (!ref && (stack || !(ts[i]->rank == 1 && dim_is(ts[i]->dims[0], 0))))
			ref = ts[i];
	}
	if (!ref) {        /* all legacy empties */
		d[0] = dim_n(0);
		return out_tensor(c, t, 1, d);
	}
	if (ref->rank > META_MAX_RANK)
		return fail(c, "more than %d dims", META_MAX_RANK);
	if (!stack && !ref->rank)
		return fail(c, "zero-dimensional tensor (at position %d) cannot be concatenated", (int)(ref - ts[0]));
	r = ref->rank + stack;
	if (wrap(c, dim, r, &w))
		return -1;
	for (int i = 0; i < ref->rank; i++)
		d[i + (stack && i >= w)] = ref->dims[i];
	d[w] = stack ? dim_n(k) : dim_n(0);
	for (int i = 0; i < k; i++) {
		const Value *x = ts[i];
		if (!stack && x->rank == 1 && dim_is(x->dims[0], 0) && ref->rank != 1)
			continue;
		if (x->rank != ref->rank)
			return fail(c, "tensors must have same number of dimensions: got %d and %d", ref->rank, x->rank);
		for (int j = 0; j < x->rank; j++) {
			if (!stack && j == w)
				continue;
			if (!same_size(x->dims[j], ref->dims[j]))
				return fail(c, "sizes of tensors must match except in dimension %d: expected %s but got %s for tensor number %d",
				            w, shape_str(c, 1, &ref->dims[j]), shape_str(c, 1, &x->dims[j]), i);
		}
		if (!stack)
			d[w] = dim_op(c, SYM_ADD, d[w], x->dims[w]);
	}
	return out_tensor(c, t, r, d);
}

/* Appends the pieces of x along dim w, sizes[0..k). */
static int
pieces(MetaCtx *c, const Value *x, int w, int k, const Dim *sizes)
{
	Dim d[META_MAX_RANK];

	memcpy(d, x->dims, sizeof *d * (size_t)x->rank);
	for (int i = 0; i < k; i++) {
		d[w] = sizes[i];
		if (out_tensor(c, x->dtype, x->rank, d))
			return -1;
	}
	return 0;
}

/* split (a size per piece), split_with_sizes, chunk, unbind; p is SPLIT_*.
 * The count of pieces must be known: a symbolic dim splits only by sizes. */
static int
rule_split(MetaCtx *c)
{
	Value *x = first_tensor(c);
	Dim *sz, L;
	int64_t dim, s, n;
	int w, k;

	if (!x || x->rank > META_MAX_RANK)
		return fail(c, "no tensor argument of at most %d dims", META_MAX_RANK);
	if (need_int(c, "dim", 0, &dim))
		return -1;
	if (!x->rank)
		return fail(c, "%s expects at least a 1-dimensional tensor", c->n->op);
	if (wrap(c, dim, x->rank, &w))
		return -1;
	L = x->dims[w];
	if (c->row->p == SPLIT_SIZES) {
		Dim sum = dim_n(0);
		if ((k = get_dims(c, "split_sizes", 0, &sz)) < 0 && (k = get_dims(c, "split_size", 0, &sz)) < 0)
			return fail(c, "argument 'split_sizes' is not a list of sizes");
		for (int i = 0; i < k; i++) {
			if (!sz[i].e && sz[i].v < 0)
				return fail(c, "split_with_sizes expects split_sizes have only non-negative entries");
			sum = dim_op(c, SYM_ADD, sum, sz[i]);
		}
		if (!dim_eq(sum, L) && (!sum.e && !L.e))
			return fail(c, "split_with_sizes expects split_sizes to sum exactly to %lld (input tensor's size at dimension %d), but got split_sizes=%s",
			            (long long)L.v, w, shape_str(c, k, sz));
		if (!dim_eq(sum, L))
			return fail(c, "cannot tell that the split sizes %s add up to %s", shape_str(c, k, sz),
			            shape_str(c, 1, &L));
		return pieces(c, x, w, k, sz);
	}
	if (L.e)
		return fail(c, "the number of pieces of a symbolic size %s is not known", sym_print(c->a, L.e));
	if (c->row->p == SPLIT_UNBIND) {
		Dim d[META_MAX_RANK];
		int r = 0;
		for (int i = 0; i < x->rank; i++)
			if (i != w)
				d[r++] = x->dims[i];
		for (int64_t i = 0; i < L.v; i++)
			if (out_tensor(c, x->dtype, r, d))
				return -1;
		return 0;
	}
	if (c->row->p == SPLIT_CHUNK) {
		if (need_int(c, "chunks", 1, &n))
			return -1;
		if (n <= 0)
			return fail(c, "chunk expects `chunks` to be greater than 0, got: %lld", (long long)n);
		if (L.v == 0) {        /* chunks empty pieces */
			Dim *z = ARENA_ARRAY(c->a, Dim, n);
			if (n > c->max)
				return fail(c, "%lld pieces, more than the %d results the caller takes", (long long)n, c->max);
			for (int64_t i = 0; i < n; i++)
				z[i] = dim_n(0);
			return pieces(c, x, w, (int)n, z);
		}
		s = (L.v + n - 1) / n;
	} else if (need_int(c, "split_size", 1, &s)) {
		return -1;
	}
	if (s < 0)
		return fail(c, "split expects split_size be non-negative, but got split_size=%lld", (long long)s);
	if (s == 0 && L.v != 0)
		return fail(c, "split_size can only be 0 if dimension size is 0, but got dimension size of %lld", (long long)L.v);
	k = s == 0 ? 1 : (int)((L.v + s - 1) / s);
	if (k == 0)
		k = 1;
	if (k > c->max)
		return fail(c, "%d pieces, more than the %d results the caller takes", k, c->max);
	sz = ARENA_ARRAY(c->a, Dim, k);
	for (int i = 0; i < k; i++)
		sz[i] = dim_n(s == 0 ? 0 : (i + 1) * s <= L.v ? s : L.v - i * s);
	return pieces(c, x, w, k, sz);
}

/* ==== indexing ==== */

/* select, slice, narrow, index_select, gather, embedding; p is SEL_*.
 * A slice clamps start and end as torch does (an end of INT64_MAX, the
 * default, is the size); over a symbolic size it takes the size as large
 * enough for the bounds: x[2:] is s-2, x[-3:] is 3, x[:s] is s. */
static int
rule_select(MetaCtx *c)
{
	Value *x = first_tensor(c), *idx;
	Dim d[META_MAX_RANK + 1], L;
	int64_t dim, i0, i1, step, len;
	int w, r;

	if (!x || x->rank > META_MAX_RANK)
		return fail(c, "no tensor argument of at most %d dims", META_MAX_RANK);
	if (c->row->p == SEL_EMBEDDING) {
		Value *wt = tensor(c, "weight"), *ix = tensor(c, "indices");
		if (!wt || !ix)
			return fail(c, "embedding takes a weight and indices");
		if (wt->rank != 2)
			return fail(c, "'weight' must be 2-D");
		if (cat_of(ix->dtype) != CAT_INT || (ix->dtype != DT_INT64 && ix->dtype != DT_INT32))
			return fail(c, "expected indices to be of type Long or Int, got %s", dtype_name(ix->dtype));
		if (ix->rank >= META_MAX_RANK)
			return fail(c, "indices of too many dims");
		memcpy(d, ix->dims, sizeof *d * (size_t)ix->rank);
		d[ix->rank] = wt->dims[1];
		return out_tensor(c, wt->dtype, ix->rank + 1, d);
	}
	if (need_int(c, "dim", 0, &dim) || wrap(c, dim, x->rank, &w))
		return -1;
	memcpy(d, x->dims, sizeof *d * (size_t)x->rank);
	L = x->rank ? x->dims[w] : dim_n(1);
	switch (c->row->p) {
	case SEL_SELECT: {
		Dim ix;
		if (!x->rank)
			return fail(c, "select() cannot be applied to a 0-dim tensor");
		if (!arg_dim(arg(c, "index"), &ix))
			return fail(c, "argument 'index' is not an integer");
		if (!ix.e && !L.e && (ix.v < -L.v || ix.v >= L.v))
			return fail(c, "select(): index %lld out of range for tensor of size %s at dimension %d",
			            (long long)ix.v, shape_str(c, x->rank, x->dims), w);
		for (r = w; r + 1 < x->rank; r++)
			d[r] = d[r + 1];
		return out_tensor(c, x->dtype, x->rank - 1, d);
	}
	case SEL_SLICE: case SEL_NARROW: {
		Dim ds, de;
		int has_end;
		if (!x->rank)
			return fail(c, "%s cannot be applied to a 0-dim tensor", c->n->op);
		if (c->row->p == SEL_NARROW) {
			Dim dl;
			if (!arg_dim(arg(c, "start"), &ds) || !arg_dim(arg(c, "length"), &dl) || ds.e || dl.e)
				return fail(c, "narrow: start and length must be known integers");
			if (!L.e && (ds.v < -L.v || ds.v > L.v))
				return fail(c, "start out of range (expected to be in range of [%lld, %lld], but got %lld)",
				            (long long)-L.v, (long long)L.v, (long long)ds.v);
			i0 = ds.v < 0 && !L.e ? ds.v + L.v : ds.v;
			if (dl.v < 0 || (!L.e && i0 + dl.v > L.v))
				return fail(c, "start (%lld) + length (%lld) exceeds dimension size (%lld)",
				            (long long)i0, (long long)dl.v, (long long)L.v);
			if (L.e && ds.v < 0)
				return fail(c, "narrow from the end of a symbolic size");
			d[w] = dl;
			return out_tensor(c, x->dtype, x->rank, d);
		}
		if (need_int(c, "step", 1, &step))
			return -1;
		if (step <= 0)
			return fail(c, "slice step must be positive");
		if (!arg(c, "start"))
			ds = dim_n(0);
		else if (!arg_dim(arg(c, "start"), &ds))
			return fail(c, "argument 'start' is not an integer");
		has_end = arg(c, "end") != NULL;
		if (has_end && !arg_dim(arg(c, "end"), &de))
			return fail(c, "argument 'end' is not an integer");
		if (!has_end || (!de.e && de.v >= INT64_MAX / 2))
			de = L;
		if (!L.e && !ds.e && !de.e) {
			i0 = ds.v < 0 ? ds.v + L.v : ds.v;
			i1 = de.v < 0 ? de.v + L.v : de.v;
			i0 = i0 < 0 ? 0 : i0 > L.v ? L.v : i0;
			i1 = i1 < i0 ? i0 : i1 > L.v ? L.v : i1;
			len = (i1 - i0 + step - 1) / step;
			d[w] = dim_n(len);
			return out_tensor(c, x->dtype, x->rank, d);
		}
		/* symbolic: the common forms, with the size taken as large enough */
		if (ds.e && de.e && dim_eq(ds, de)) {
			d[w] = dim_n(0);
		} else {
			Dim s0 = ds, e0 = de;
			if (!s0.e && s0.v < 0)
				s0 = dim_add(c, L, s0.v);
			if (!e0.e && e0.v < 0)
				e0 = dim_add(c, L, e0.v);
			if (!s0.e && s0.v < 0)
				return fail(c, "a slice start before the beginning");
			d[w] = dim_sub(c, e0, s0);
			if (step > 1)
				d[w] = dim_op(c, SYM_CEILDIV, d[w], dim_n(step));
		}
		if (!d[w].e && d[w].v < 0)
			d[w] = dim_n(0);
		return out_tensor(c, x->dtype, x->rank, d);
	}
	case SEL_INDEX_SELECT:
		if (!(idx = tensor(c, "index")))
			return fail(c, "argument 'index' is not a tensor");
		if (idx->rank > 1)
			return fail(c, "index_select(): index should be a vector or a scalar");
		if (idx->dtype != DT_INT64 && idx->dtype != DT_INT32)
			return fail(c, "index_select(): expected dtype int32 or int64 for index");
		if (x->rank)
			d[w] = idx->rank ? idx->dims[0] : dim_n(1);
		return out_tensor(c, x->dtype, x->rank, d);
	case SEL_GATHER:
		if (!(idx = tensor(c, "index")))
			return fail(c, "argument 'index' is not a tensor");
		if (idx->dtype != DT_INT64 && idx->dtype != DT_INT32)
			return fail(c, "gather(): expected dtype int32 or int64 for index");
		if (idx->rank != x->rank && !(idx->rank <= 1 && x->rank <= 1))
			return fail(c, "index tensor must have the same number of dimensions as input tensor");
		for (int i = 0; i < idx->rank && idx->rank == x->rank; i++)
			if (i != w && !idx->dims[i].e && !x->dims[i].e && idx->dims[i].v > x->dims[i].v)
				return fail(c, "size of dimension %d of index is larger than that of the input", i);
		return out_like(c, x->dtype, idx);
	default:
		return fail(c, "unknown selection");
	}
}

/* index.Tensor: advanced indexing by a list of index tensors (None keeps
 * a dim).  The broadcast index shape replaces the indexed dims in place
 * when they are adjacent, else goes first.  Bool masks select a count
 * that depends on the data. */
static int
rule_index(MetaCtx *c)
{
	Value *x = first_tensor(c), **ix;
	Dim d[META_MAX_RANK * 2], *bd = NULL;
	int k = get_tensors(c, "indices", &ix), br = 0, first = -1, last = -1, gap = 0, r = 0;

	if (!x || x->rank > META_MAX_RANK || k < 0)
		return fail(c, "index takes a tensor and a list of index tensors");
	if (k > x->rank)
		return fail(c, "too many indices for tensor of dimension %d (got %d)", x->rank, k);
	for (int i = 0; i < k; i++) {
		if (!ix[i])
			continue;
		if (ix[i]->dtype == DT_BOOL || ix[i]->dtype == DT_UINT8)
			return fail(c, "a mask index selects a number of elements that depends on the data");
		if (cat_of(ix[i]->dtype) != CAT_INT)
			return fail(c, "tensors used as indices must be long, int, byte or bool tensors");
		if (broadcast(c, &br, &bd, ix[i]->rank, ix[i]->dims))
			return fail(c, "shape mismatch: indexing tensors could not be broadcast together");
		if (first >= 0 && last != i - 1)
			gap = 1;
		if (first < 0)
			first = i;
		last = i;
	}
	if (first < 0)
		return fail(c, "index: at least one index must be a tensor");
	if (!gap) {
		for (int i = 0; i < first; i++)
			d[r++] = x->dims[i];
		for (int i = 0; i < br; i++)
			d[r++] = bd[i];
		for (int i = last + 1; i < x->rank; i++)
			d[r++] = x->dims[i];
	} else {
		for (int i = 0; i < br; i++)
			d[r++] = bd[i];
		for (int i = 0; i < x->rank; i++)
			if (i >= k || !ix[i])
				d[r++] = x->dims[i];
	}
	return out_tensor(c, x->dtype, r, d);
}

/* Results whose count or shape depends on the values (nonzero,
 * masked_select, unique, item): no static answer. */
static int
rule_datadep(MetaCtx *c)
{
	return fail(c, "%s: the result's shape or value depends on the input's data", c->n->op);
}

/* ==== creation and conversion ==== */

/* The dtype torch gives a fill value: bool, int64, float32, complex64. */
static DType
fill_dtype(MetaCtx *c, const char *name)
{
	const Arg *v = arg(c, name);

	return v ? number_dtype(v) : DT_FLOAT32;
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
	if (!arg_dim(x, &d) || d.e)
		return 0;
	*v = (double)d.v;
	return 1;
}

/* arange's length: ceil((end - start) / step). */
static int
arange_len(MetaCtx *c, Dim *out)
{
	const Arg *as = arg(c, "start"), *ae = arg(c, "end"), *ap = arg(c, "step");
	double s = 0, e, p = 1;
	Dim ds, de;

	if (!ae)
		return fail(c, "arange needs an end");
	if (ae->kind == ARG_SYM_INT && arg_dim(ae, &de) && de.e) {
		int64_t is = 0, ip = 1;
		if ((as && (as->kind != ARG_INT || (is = as->u.i, 0))) || (ap && (ap->kind != ARG_INT || (ip = ap->u.i, 0))) ||
		    ip <= 0)
			return fail(c, "arange over a symbolic end needs integer start and a positive integer step");
		ds = dim_n(is);
		*out = dim_op(c, SYM_CEILDIV, dim_sub(c, de, ds), dim_n(ip));
		return 0;
	}
	if (!arg_number(ae, &e) || (as && !arg_number(as, &s)) || (ap && !arg_number(ap, &p)))
		return fail(c, "arange bounds must be known numbers");
	if (p == 0)
		return fail(c, "step must be nonzero");
	if ((p > 0 && e < s) || (p < 0 && e > s))
		return fail(c, "upper bound and larger bound inconsistent with step sign");
	{
		double n = (e - s) / p;
		int64_t k = (int64_t)n;
		if ((double)k < n)
			k++;
		*out = dim_n(k);
	}
	return 0;
}

/* Tensor factories; p is CR_*.  The dtype argument wins; else the
 * factory's default: float32, a fill value's, self's for *_like and
 * new_*, int64 for arange over integers and for randint.  q: 1 for a
 * random float factory (rand, randn), which takes float dtypes only. */
static int
rule_create(MetaCtx *c)
{
	Value *self = tensor(c, "self");
	DType t = get_dtype(c, "dtype"), def = DT_FLOAT32;
	Dim *d, one[2];
	int k = 0;
	int64_t n, m;

	switch (c->row->p) {
	case CR_SIZE: case CR_FULL: case CR_NEW: case CR_NEW_FULL: case CR_RANDINT:
		if ((k = get_dims(c, "size", 0, &d)) < 0)
			return fail(c, "argument 'size' is not a list of sizes");
		for (int i = 0; i < k; i++)
			if (!d[i].e && d[i].v < 0)
				return fail(c, "trying to create tensor with negative dimension %lld: %s", (long long)d[i].v,
				            shape_str(c, k, d));
		if (c->row->p == CR_FULL)
			def = fill_dtype(c, "fill_value");
		if (c->row->p == CR_RANDINT)
			def = DT_INT64;
		if (c->row->p == CR_NEW || c->row->p == CR_NEW_FULL) {
			if (!self)
				return fail(c, "argument 'self' is not a tensor");
			def = self->dtype;
		}
		break;
	case CR_LIKE: case CR_FULL_LIKE:
		if (!self)
			return fail(c, "argument 'self' is not a tensor");
		def = self->dtype;
		k = self->rank;
		d = self->dims;
		break;
	case CR_ARANGE: {
		const Arg *xs[3] = { arg(c, "start"), arg(c, "end"), arg(c, "step") };
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
		if (need_int(c, "steps", 0, &n))
			return -1;
		if (n < 0)
			return fail(c, "number of steps must be non-negative");
		one[0] = dim_n(n);
		k = 1;
		d = one;
		break;
	case CR_EYE:
		if (need_int(c, "n", 0, &n) || need_int(c, "m", n, &m))
			return -1;
		if (n < 0 || m < 0)
			return fail(c, "n and m must be greater or equal to 0, got %lld and %lld", (long long)n, (long long)m);
		one[0] = dim_n(n);
		one[1] = dim_n(m);
		k = 2;
		d = one;
		break;
	case CR_SCALAR:
		k = 0;
		d = one;
		break;
	case CR_RANDPERM:
		if (!arg_dim(arg(c, "n"), &one[0]))
			return fail(c, "argument 'n' is not an integer");
		def = DT_INT64;
		k = 1;
		d = one;
		break;
	default:
		return fail(c, "unknown factory form");
	}
	t = t != DT_UNKNOWN ? t : def;
	if (c->row->q && cat_of(t) != CAT_FLOAT && cat_of(t) != CAT_COMPLEX)
		return fail(c, "%s expects a floating-point or complex dtype, got %s", c->n->op, dtype_name(t));
	return out_tensor(c, t, k, d);
}

/* to, _to_copy, type_as: self's shape in the dtype argument's dtype (p 0)
 * or other's (p 1); no dtype keeps self's. */
static int
rule_to(MetaCtx *c)
{
	Value *self = first_tensor(c), *other = tensor(c, "other");
	DType t = c->row->p == 1 ? (other ? other->dtype : DT_UNKNOWN) : get_dtype(c, "dtype");

	if (!self)
		return fail(c, "argument 'self' is not a tensor");
	if (c->row->p == 1 && !other)
		return fail(c, "argument 'other' is not a tensor");
	return out_like(c, t != DT_UNKNOWN ? t : self->dtype, self);
}

/* softmax, log_softmax (dim, dtype) and _softmax (dim, half_to_float). */
static int
rule_softmax(MetaCtx *c)
{
	Value *x = first_tensor(c);
	DType t = get_dtype(c, "dtype");
	int64_t dim;
	int w;

	if (!x)
		return fail(c, "no tensor argument");
	if (need_int(c, "dim", 0, &dim) || wrap(c, dim, x->rank, &w))
		return -1;
	if (t == DT_UNKNOWN)
		t = get_bool(c, "half_to_float", 0) ? DT_FLOAT32 : x->dtype;
	if (!is_float(t) && !is_float(x->dtype))
		return fail(c, "%s is not implemented for %s", c->n->op, dtype_name(t));
	return out_like(c, t, x);
}

/* The dtype batch norm keeps its statistics in: float32 for the 16-bit
 * floats, else the input's (layer and group norm keep the input's, on
 * CPU). */
static DType
acc_dtype(DType t)
{
	return t == DT_FLOAT16 || t == DT_BFLOAT16 ? DT_FLOAT32 : t;
}

/* Normalizations: p is NORM_*.  The native forms add their saved
 * statistics: per normalized row (layer norm), per channel (batch norm),
 * per sample and group (group norm). */
static int
rule_norm(MetaCtx *c)
{
	Value *x = first_tensor(c), *wt = tensor(c, "weight");
	Dim d[META_MAX_RANK], *ns;
	int k, axis;
	int64_t g;

	if (!x || x->rank > META_MAX_RANK)
		return fail(c, "no tensor argument of at most %d dims", META_MAX_RANK);
	switch (c->row->p) {
	case NORM_LAYER: case NORM_NATIVE_LAYER: case NORM_RMS:
		if ((k = get_dims(c, "normalized_shape", 0, &ns)) < 0)
			return fail(c, "argument 'normalized_shape' is not a list of sizes");
		if (k < 1 && c->row->p != NORM_RMS)
			return fail(c, "expected normalized_shape to be at least 1-dimensional");
		axis = x->rank - k;
		if (axis < 0)
			return fail(c, "given normalized_shape=%s, expected input with shape [*, %s], but got input of size %s",
			            shape_str(c, k, ns), shape_str(c, k, ns), shape_str(c, x->rank, x->dims));
		for (int i = 0; i < k; i++)
			if (!same_size(ns[i], x->dims[axis + i]))
				return fail(c, "given normalized_shape=%s, expected input with shape [*, ...%s], but got input of size %s",
				            shape_str(c, k, ns), shape_str(c, k, ns), shape_str(c, x->rank, x->dims));
		if (wt) {
			int ok = wt->rank == k;
			for (int i = 0; ok && i < k; i++)
				ok = same_size(wt->dims[i], ns[i]);
			if (!ok)
				return fail(c, "expected weight to be of same shape as normalized_shape, but got weight of shape %s and normalized_shape = %s",
				            shape_str(c, wt->rank, wt->dims), shape_str(c, k, ns));
		}
		if (out_like(c, x->dtype, x))
			return -1;
		if (c->row->p != NORM_NATIVE_LAYER)
			return 0;
		memcpy(d, x->dims, sizeof *d * (size_t)axis);
		for (int i = axis; i < x->rank; i++)
			d[i] = dim_n(1);
		if (out_tensor(c, x->dtype, x->rank, d))
			return -1;
		return out_tensor(c, x->dtype, x->rank, d);
	case NORM_BATCH: case NORM_NATIVE_BATCH: case NORM_BATCH_NO_STATS: case NORM_INSTANCE:
		if (x->rank < 2 && c->row->p != NORM_INSTANCE)
			return fail(c, "batch_norm: expected 2D or more input, got %dD", x->rank);
		if (wt && (wt->rank != 1 || !same_size(wt->dims[0], x->dims[1])))
			return fail(c, "running_mean/weight should contain %s elements, not %s", shape_str(c, 1, &x->dims[1]),
			            shape_str(c, wt->rank, wt->dims));
		if (out_like(c, x->dtype, x))
			return -1;
		if (c->row->p == NORM_BATCH || c->row->p == NORM_INSTANCE)
			return 0;
		/* no statistics are saved in eval mode */
		d[0] = c->row->p == NORM_BATCH_NO_STATS || !get_bool(c, "training", 1) ? dim_n(0) : x->dims[1];
		if (out_tensor(c, acc_dtype(x->dtype), 1, d))
			return -1;
		return out_tensor(c, acc_dtype(x->dtype), 1, d);
	case NORM_GROUP: case NORM_NATIVE_GROUP:
		if (need_int(c, c->row->p == NORM_GROUP ? "num_groups" : "group", 1, &g))
			return -1;
		if (x->rank < 2)
			return fail(c, "group_norm: expected at least 2D input");
		if (g <= 0 || (!x->dims[1].e && x->dims[1].v % g))
			return fail(c, "expected number of channels in input to be divisible by num_groups");
		if (out_like(c, x->dtype, x))
			return -1;
		if (c->row->p == NORM_GROUP)
			return 0;
		d[0] = x->dims[0];
		d[1] = dim_n(g);
		if (out_tensor(c, x->dtype, 2, d))
			return -1;
		return out_tensor(c, x->dtype, 2, d);
	default:
		return fail(c, "unknown normalization form");
	}
}

/* scaled_dot_product_attention: query [..., L, E], key [..., S, E], value
 * [..., S, Ev] -> [..., L, Ev] in query's dtype. */
static int
rule_sdpa(MetaCtx *c)
{
	Value *q = tensor(c, "query"), *k = tensor(c, "key"), *v = tensor(c, "value"), *m = tensor(c, "attn_mask");
	Dim d[META_MAX_RANK];

	if (!q || !k || !v)
		return fail(c, "attention takes query, key and value tensors");
	if (q->rank < 2 || k->rank < 2 || v->rank < 2 || q->rank > META_MAX_RANK)
		return fail(c, "query, key and value must be at least 2D");
	if (q->dtype != k->dtype || q->dtype != v->dtype)
		return fail(c, "expected query, key and value to have the same dtype, got %s, %s and %s",
		            dtype_name(q->dtype), dtype_name(k->dtype), dtype_name(v->dtype));
	if (m && m->dtype != DT_BOOL && m->dtype != q->dtype)
		return fail(c, "expected attn_mask dtype to be bool or %s, got %s", dtype_name(q->dtype), dtype_name(m->dtype));
	if (!same_size(q->dims[q->rank - 1], k->dims[k->rank - 1]))
		return fail(c, "query and key embedding sizes differ: %s and %s", shape_str(c, q->rank, q->dims),
		            shape_str(c, k->rank, k->dims));
	if (!same_size(k->dims[k->rank - 2], v->dims[v->rank - 2]))
		return fail(c, "key and value sequence lengths differ: %s and %s", shape_str(c, k->rank, k->dims),
		            shape_str(c, v->rank, v->dims));
	memcpy(d, q->dims, sizeof *d * (size_t)q->rank);
	d[q->rank - 1] = v->dims[v->rank - 1];
	return out_tensor(c, q->dtype, q->rank, d);
}

/* _native_multi_head_attention (nn.MultiheadAttention's fast path, self
 * attention: query, key and value of one shape [B, L, E]): [B, L, E] and
 * the weights [B, L, L] averaged, [B, H, L, L] per head, or an empty [0]
 * without need_weights. */
static int
rule_mha(MetaCtx *c)
{
	Value *q = tensor(c, "query"), *k = tensor(c, "key");
	int64_t e, h;
	Dim d[4];

	Value *v = tensor(c, "value");

	if (!q || !k || !v || q->rank != 3)
		return fail(c, "expected 3D query, key and value");
	if (k->rank != 3 || v->rank != 3 || !dim_eq(q->dims[0], k->dims[0]) || !dim_eq(q->dims[1], k->dims[1]) ||
	    !dim_eq(q->dims[2], k->dims[2]) || !dim_eq(k->dims[0], v->dims[0]) || !dim_eq(k->dims[1], v->dims[1]) ||
	    !dim_eq(k->dims[2], v->dims[2]))
		return fail(c, "expected query, key and value shapes to match: %s, %s, %s", shape_str(c, q->rank, q->dims),
		            shape_str(c, k->rank, k->dims), shape_str(c, v->rank, v->dims));
	if (need_int(c, "embed_dim", 0, &e) || need_int(c, "num_head", 1, &h))
		return -1;
	d[0] = q->dims[0];
	d[1] = q->dims[1];
	d[2] = dim_n(e);
	if (out_tensor(c, q->dtype, 3, d))
		return -1;
	if (!get_bool(c, "need_weights", 1)) {
		d[0] = dim_n(0);
		return out_tensor(c, q->dtype, 1, d);
	}
	if (get_bool(c, "average_attn_weights", 1)) {
		d[2] = k->dims[1];
		return out_tensor(c, q->dtype, 3, d);
	}
	d[1] = dim_n(h);
	d[2] = q->dims[1];
	d[3] = k->dims[1];
	return out_tensor(c, q->dtype, 4, d);
}

/* lstm.input and gru.input (rnn_tanh, rnn_relu): the output sequence
 * [T, B, D*H] ([B, T, D*H] batch_first, [T, D*H] unbatched) and the final
 * states, shaped as the initial ones.  p: RNN_LSTM (h and c), RNN_GRU (h),
 * RNN_PLAIN (h; the only ATen form that takes an unbatched input). */
static int
rule_rnn(MetaCtx *c)
{
	Value *x = tensor(c, "input"), *h0, *c0 = NULL, **hx, **ps;
	int nd = get_bool(c, "bidirectional", 0) ? 2 : 1, bf = get_bool(c, "batch_first", 0);
	int np = get_tensors(c, "params", &ps);
	int64_t layers;
	Dim d[3];

	if (!x)
		return fail(c, "argument 'input' is not a tensor");
	if (c->row->p == RNN_LSTM) {
		if (get_tensors(c, "hx", &hx) != 2 || !hx[0] || !hx[1])
			return fail(c, "lstm expects two initial states (h0, c0)");
		h0 = hx[0];
		c0 = hx[1];
	} else if (!(h0 = tensor(c, "hx"))) {
		return fail(c, "argument 'hx' is not a tensor");
	}
	if (need_int(c, "num_layers", 1, &layers))
		return -1;
	if (x->rank != 3 && !(x->rank == 2 && c->row->p == RNN_PLAIN))
		return fail(c, "input must have 3 dimensions, got %d (nn.%s adds the batch dim of an unbatched input)",
		            x->rank, c->row->p == RNN_LSTM ? "LSTM" : "GRU");
	if (h0->rank != x->rank || (c0 && c0->rank != x->rank))
		return fail(c, "for %s input, hx should be %dD", x->rank == 3 ? "batched" : "unbatched", x->rank);
	if (!dim_is(h0->dims[0], nd * layers))
		return fail(c, "expected hidden size %lld at dim 0 (layers x directions), got %s", (long long)(nd * layers),
		            shape_str(c, h0->rank, h0->dims));
	if (np > 0 && ps[0] && ps[0]->rank == 2 && !same_size(ps[0]->dims[1], x->dims[x->rank - 1]))
		return fail(c, "input.size(-1) must be equal to input_size: %s against the weights %s",
		            shape_str(c, x->rank, x->dims), shape_str(c, 2, ps[0]->dims));
	if (x->rank == 3) {
		Dim b = x->dims[bf ? 0 : 1];
		if (!same_size(h0->dims[1], b))
			return fail(c, "expected hidden batch size %s, got %s", shape_str(c, 1, &b), shape_str(c, 1, &h0->dims[1]));
		d[0] = x->dims[0];
		d[1] = x->dims[1];
		d[2] = dim_op(c, SYM_MUL, h0->dims[2], dim_n(nd));
	} else {
		d[0] = x->dims[0];
		d[1] = dim_op(c, SYM_MUL, h0->dims[1], dim_n(nd));
	}
	if (out_tensor(c, x->dtype, x->rank, d) || out_like(c, x->dtype, h0))
		return -1;
	return c0 ? out_like(c, x->dtype, c0) : 0;
}

/* ==== integers ==== */

/* Python int results, as SymInts: size, numel, dim and the int
 * arithmetic of scripted code.  p is INT_*; q the ARITH_* of INT_ARITH. */
static int
rule_int(MetaCtx *c)
{
	Value *x = first_tensor(c);
	int64_t dim;
	int w;
	Dim a, b;

	switch (c->row->p) {
	case INT_SIZE:
		if (!x)
			return fail(c, "argument 'self' is not a tensor");
		if (!arg(c, "dim")) {
			for (int i = 0; i < x->rank; i++)
				if (out_int(c, x->dims[i]))
					return -1;
			return 0;
		}
		if (need_int(c, "dim", 0, &dim))
			return -1;
		if (!x->rank)
			return fail(c, "dimension specified as %lld but tensor has no dimensions", (long long)dim);
		if (wrap(c, dim, x->rank, &w))
			return -1;
		return out_int(c, x->dims[w]);
	case INT_NUMEL:
		if (!x)
			return fail(c, "argument 'self' is not a tensor");
		return out_int(c, dim_prod(c, x->rank, x->dims));
	case INT_DIM:
		if (!x)
			return fail(c, "argument 'self' is not a tensor");
		return out_int(c, dim_n(x->rank));
	case INT_ARITH:
		if (!arg_dim(arg(c, "a"), &a) || (c->row->q != ARITH_NEG && !arg_dim(arg(c, "b"), &b)))
			return fail(c, "int arithmetic takes integers");
		switch (c->row->q) {
		case ARITH_NEG:
			return out_int(c, dim_op(c, SYM_MUL, a, dim_n(-1)));
		case ARITH_ADD:
			return out_int(c, dim_op(c, SYM_ADD, a, b));
		case ARITH_SUB:
			return out_int(c, dim_sub(c, a, b));
		case ARITH_MUL:
			return out_int(c, dim_op(c, SYM_MUL, a, b));
		case ARITH_FLOORDIV: case ARITH_MOD:
			if (dim_is(b, 0))
				return fail(c, "integer division or modulo by zero");
			if (c->row->q == ARITH_MOD && !a.e && !b.e)
				return out_int(c, dim_n(((a.v % b.v) + b.v) % b.v));
			return out_int(c, dim_op(c, c->row->q == ARITH_MOD ? SYM_PYTHONMOD : SYM_FLOORDIV, a, b));
		default:
			return fail(c, "unknown int operation");
		}
	default:
		return fail(c, "unknown int form");
	}
}

/* ==== padding, resizing, other shapes ==== */

/* constant_pad_nd, pad, reflection_pad*, replication_pad*: pairs of
 * (before, after) from the last dim backwards; negative pads crop. */
static int
rule_pad(MetaCtx *c)
{
	Value *x = first_tensor(c);
	Dim d[META_MAX_RANK];
	int64_t *p;
	int k = get_ints(c, "pad", 0, &p);

	if (k == -1)
		k = get_ints(c, "padding", 0, &p);
	if (!x || x->rank > META_MAX_RANK || k < 0)
		return fail(c, "pad takes a tensor and a list of known pads");
	if (k % 2)
		return fail(c, "padding length must be divisible by 2");
	if (k / 2 > x->rank)
		return fail(c, "padding length should be at most twice the number of dimensions of the input (%d), got %d",
		            x->rank, k);
	memcpy(d, x->dims, sizeof *d * (size_t)x->rank);
	for (int i = 0; i < k / 2; i++) {
		int j = x->rank - 1 - i;
		d[j] = dim_add(c, d[j], p[2 * i] + p[2 * i + 1]);
		if (!d[j].e && d[j].v < 0)
			return fail(c, "the input size %lld, plus negative padding %lld and %lld resulted in a negative output size",
			            (long long)x->dims[j].v, (long long)p[2 * i], (long long)p[2 * i + 1]);
	}
	return out_tensor(c, x->dtype, x->rank, d);
}

/* one_hot: int64 [..., num_classes]; num_classes -1 reads the data. */
static int
rule_onehot(MetaCtx *c)
{
	Value *x = first_tensor(c);
	Dim d[META_MAX_RANK + 1];
	int64_t n;

	if (!x || x->rank >= META_MAX_RANK)
		return fail(c, "no tensor argument");
	if (x->dtype != DT_INT64)
		return fail(c, "one_hot is only applicable to index tensor of type LongTensor");
	if (need_int(c, "num_classes", -1, &n))
		return -1;
	if (n < 0)
		return fail(c, "one_hot without num_classes: the class count depends on the data");
	memcpy(d, x->dims, sizeof *d * (size_t)x->rank);
	d[x->rank] = dim_n(n);
	return out_tensor(c, DT_INT64, x->rank + 1, d);
}

/* upsample_* (output_size, or the scale factors) over the last q dims. */
static int
rule_upsample(MetaCtx *c)
{
	Value *x = first_tensor(c);
	int nd = c->row->q, k;
	Dim d[5], *os;
	const Arg *sf = arg(c, "scale_factors");

	if (!x || x->rank != nd + 2)
		return fail(c, "expected a %dD input", nd + 2);
	memcpy(d, x->dims, sizeof *d * 2);
	k = get_dims(c, "output_size", nd, &os);
	if (k == nd) {
		memcpy(d + 2, os, sizeof *d * (size_t)nd);
	} else if (k < 1 && sf && sf->kind == ARG_FLOATS && (sf->n == nd || sf->n == 1)) {
		for (int i = 0; i < nd; i++) {
			double s = sf->u.list[sf->n == 1 ? 0 : i].u.f;
			Dim L = x->dims[2 + i];
			if (L.e) {
				if (s != (double)(int64_t)s || s < 1)
					return fail(c, "a symbolic size scaled by %g", s);
				d[2 + i] = dim_op(c, SYM_MUL, L, dim_n((int64_t)s));
			} else {
				d[2 + i] = dim_n((int64_t)((double)L.v * s));
			}
		}
	} else {
		return fail(c, "must specify exactly one of output_size and scale_factors");
	}
	for (int i = 2; i < nd + 2; i++)
		if (!d[i].e && d[i].v <= 0)
			return fail(c, "input and output sizes should be greater than 0");
	return out_tensor(c, x->dtype, x->rank, d);
}

/* diff(n, dim, prepend, append): dim shrinks by n after the additions. */
static int
rule_diff(MetaCtx *c)
{
	Value *x = first_tensor(c), *pre = tensor(c, "prepend"), *app = tensor(c, "append");
	Dim d[META_MAX_RANK];
	int64_t n, dim;
	int w;

	if (!x || x->rank > META_MAX_RANK)
		return fail(c, "no tensor argument");
	if (!x->rank)
		return fail(c, "diff expects input to be at least one-dimensional");
	if (need_int(c, "n", 1, &n) || need_int(c, "dim", -1, &dim) || wrap(c, dim, x->rank, &w))
		return -1;
	if (n < 0)
		return fail(c, "order must be non-negative but got %lld", (long long)n);
	memcpy(d, x->dims, sizeof *d * (size_t)x->rank);
	if ((pre && pre->rank != x->rank) || (app && app->rank != x->rank))
		return fail(c, "diff expects prepend or append to be the same dimension as input");
	if (pre)
		d[w] = dim_op(c, SYM_ADD, d[w], pre->dims[w]);
	if (app)
		d[w] = dim_op(c, SYM_ADD, d[w], app->dims[w]);
	d[w] = dim_add(c, d[w], -n);
	if (!d[w].e && d[w].v < 0)
		d[w] = dim_n(0);
	return out_tensor(c, x->dtype, x->rank, d);
}

/* glu(dim): the dim halves. */
static int
rule_glu(MetaCtx *c)
{
	Value *x = first_tensor(c);
	Dim d[META_MAX_RANK];
	int64_t dim;
	int w;

	if (!x || !x->rank || x->rank > META_MAX_RANK)
		return fail(c, "glu does not support scalars because halving size must be even");
	if (need_int(c, "dim", -1, &dim) || wrap(c, dim, x->rank, &w))
		return -1;
	memcpy(d, x->dims, sizeof *d * (size_t)x->rank);
	if (!d[w].e && d[w].v % 2)
		return fail(c, "halving dimension must be even, but dimension %d is size %lld", w, (long long)d[w].v);
	d[w] = dim_op(c, SYM_FLOORDIV, d[w], dim_n(2));
	return out_tensor(c, x->dtype, x->rank, d);
}


/* ==== entry points ==== */

static const MetaRow *
find_row(const char *op)
{
	const char *dot;
	size_t base;

	for (int i = 0; i < META_NROW; i++)
		if (strcmp(meta_rows[i].op, op) == 0)
			return &meta_rows[i];
	dot = strrchr(op, '.');
	if (!dot || dot - op <= 5)
		return NULL;
	base = (size_t)(dot - op);
	for (int i = 0; i < META_NROW; i++)
		if (strlen(meta_rows[i].op) == base && strncmp(meta_rows[i].op, op, base) == 0)
			return &meta_rows[i];
	return NULL;
}

/* The row of op, or of its out-of-place form when op is in-place
 * ("aten.add_.Tensor" -> "aten.add.Tensor"); *inplace says which. */
static const MetaRow *
lookup(const char *op, char *buf, size_t len, int *inplace)
{
	const MetaRow *r = find_row(op);
	const char *dot;

	*inplace = 0;
	if (r || strncmp(op, "aten.", 5) != 0)
		return r;
	dot = strchr(op + 5, '.');
	if (!dot)
		dot = op + strlen(op);
	if (dot - op < 7 || dot[-1] != '_' || dot[-2] == '_' || strlen(op) >= len)
		return NULL;
	snprintf(buf, len, "%.*s%s", (int)(dot - op - 1), op, dot);
	*inplace = 1;
	return find_row(buf);
}

int
ir_infer_known(const char *op)
{
	char buf[256];
	int inplace;

	return op && lookup(op, buf, sizeof buf, &inplace) != NULL;
}

int
ir_infer_outputs(Arena *a, const Node *n, Value *out, int max, char *why, size_t whylen)
{
	char buf[256];
	int inplace;
	MetaCtx c = { a, n, NULL, out, max, 0, why, whylen };
	Value *self;

	if (why && whylen)
		why[0] = 0;
	if (!n->op || !(c.row = lookup(n->op, buf, sizeof buf, &inplace)))
		return fail(&c, "no dtype and shape rule for %s", n->op ? n->op : "(no op)");
	if (c.row->rule(&c) < 0)
		return -1;
	if (!inplace)
		return c.nout;
	/* torch writes an in-place result into self: same shape, a dtype it can cast to */
	self = tensor(&c, "self");
	if (!self || c.nout < 1 || out[0].kind != VAL_TENSOR)
		return c.nout;
	if (out[0].rank != self->rank)
		goto mismatch;
	for (int i = 0; i < self->rank; i++)
		if (!dim_eq(out[0].dims[i], self->dims[i]))
			goto mismatch;
	if (!can_cast(out[0].dtype, self->dtype))
		return fail(&c, "result type %s can't be cast to the desired output type %s",
		            dtype_name(out[0].dtype), dtype_name(self->dtype));
	out[0].dtype = self->dtype;
	out[0].dims = self->dims;
	return c.nout;
mismatch:
	return fail(&c, "output with shape %s doesn't match the broadcast shape %s",
	            shape_str(&c, self->rank, self->dims), shape_str(&c, out[0].rank, out[0].dims));
}
