/* sym.c: lowerings of size arithmetic (sym.def).
 *
 * A SymInt is an int64 0-d tensor in ONNX, a SymBool a bool one and a
 * SymFloat a double one (Python's float).  The Python operators keep
 * Python's meaning: // and % round towards minus infinity (ONNX Div on
 * integers truncates, and Mod with fmod=0 takes the divisor's sign), /
 * always gives a float, int() truncates.  Operands are read by position:
 * torch names them after the Python signature (a, b; b, t, f; x). */
#include <stdint.h>
#include <string.h>

#include "lower/lower.h"

/* The ONNX dtype of a symbolic or constant argument, or of a tensor. */
static DType
arg_dtype(const Arg *a)
{
	switch (a->kind) {
	case ARG_INT: case ARG_SYM_INT: return DT_INT64;
	case ARG_FLOAT: case ARG_SYM_FLOAT: return DT_FLOAT64;
	case ARG_BOOL: case ARG_SYM_BOOL: return DT_BOOL;
	case ARG_TENSOR: case ARG_OPT_TENSOR: return a->u.v->dtype;
	default: return DT_UNKNOWN;
	}
}

/* The dtype of n's result (a Sym* value, or a tensor). */
static DType
out_dtype(const Node *n)
{
	const Value *v = lower_out_value(n, 0);

	if (!v)
		return DT_UNKNOWN;
	return v->kind == VAL_SYM_INT ? DT_INT64 : v->kind == VAL_SYM_BOOL ? DT_BOOL
	     : v->kind == VAL_SYM_FLOAT ? DT_FLOAT64 : v->dtype;
}

/* Binds x (of dtype from) as n's result, cast to the result's dtype.
 * (lower_finish() reads Value.dtype, which only tensors have.) */
static void
finish(LowerCtx *c, const Node *n, const char *x, DType from)
{
	DType to = out_dtype(n);

	if (from == to) {
		lower_bind(c, n, 0, x);
		return;
	}
	lower_op(c, "Cast", lower_out(c, n, 0), 1, x);
	onnx_attr_int(c->a, c->last, "to", dtype_onnx(to));
}

/* Operand k of n as an ONNX value of dtype t (NULL when absent). */
static const char *
opnd(LowerCtx *c, const Node *n, int k, DType t)
{
	return k < n->nin ? lower_operand(c, n, n->in[k].name, t) : NULL;
}

static DType
opnd_dtype(const Node *n, int k)
{
	return k < n->nin ? arg_dtype(&n->in[k].arg) : DT_UNKNOWN;
}

/* add, sub, mul, pow, sym_max, sym_min: the row's op in the result's dtype. */
int
lower_sym_arith(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType t = out_dtype(n);
	const char *a = opnd(c, n, 0, t), *b = opnd(c, n, 1, t);

	if (!a || !b)
		return lower_fail(c, n, "needs two operands");
	lower_op(c, row->onnx, lower_out(c, n, 0), 2, a, b);
	return 0;
}

/* a // b: for integers (a - a mod b) / b, exact; for floats floor(a / b). */
int
lower_sym_floordiv(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType t = out_dtype(n);
	const char *a = opnd(c, n, 0, t), *b = opnd(c, n, 1, t);

	if (!a || !b)
		return lower_fail(c, n, "needs two operands");
	if (t == DT_INT64) {
		lower_op(c, "Mod", NULL, 2, a, b);
		a = lower_op(c, "Sub", NULL, 2, a, c->last->output[0]);
		lower_op(c, row->onnx, lower_out(c, n, 0), 2, a, b);
	} else {
		lower_op(c, "Floor", lower_out(c, n, 0), 1, lower_op(c, row->onnx, NULL, 2, a, b));
	}
	return 0;
}

/* a % b with the divisor's sign: Mod(fmod=0) for integers; a - floor(a/b)*b
 * for floats (ONNX's float Mod is C's fmod). */
int
lower_sym_mod(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType t = out_dtype(n);
	const char *a = opnd(c, n, 0, t), *b = opnd(c, n, 1, t), *q;

	if (!a || !b)
		return lower_fail(c, n, "needs two operands");
	if (t == DT_INT64) {
		lower_op(c, row->onnx, lower_out(c, n, 0), 2, a, b);
		return 0;
	}
	q = lower_op(c, "Floor", NULL, 1, lower_op(c, "Div", NULL, 2, a, b));
	lower_op(c, "Sub", lower_out(c, n, 0), 2, a, lower_op(c, "Mul", NULL, 2, q, b));
	return 0;
}

/* a / b: always a float. */
int
lower_sym_truediv(LowerCtx *c, const Node *n, const OpRow *row)
{
	const char *a = opnd(c, n, 0, DT_FLOAT64), *b = opnd(c, n, 1, DT_FLOAT64);

	if (!a || !b)
		return lower_fail(c, n, "needs two operands");
	lower_op(c, row->onnx, NULL, 2, a, b);
	finish(c, n, c->last->output[0], DT_FLOAT64);
	return 0;
}

/* -a */
int
lower_sym_unary(LowerCtx *c, const Node *n, const OpRow *row)
{
	const char *a = opnd(c, n, 0, out_dtype(n));

	if (!a)
		return lower_fail(c, n, "needs an operand");
	lower_op(c, row->onnx, lower_out(c, n, 0), 1, a);
	return 0;
}

/* ==, !=, <, <=, >, >=: in double when a side is a float, else int64
 * (bool == bool stays bool). */
int
lower_sym_compare(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType da = opnd_dtype(n, 0), db = opnd_dtype(n, 1), t;
	const char *a, *b;

	t = dtype_is_float(da) || dtype_is_float(db) ? DT_FLOAT64
	  : da == DT_BOOL && db == DT_BOOL ? DT_BOOL : DT_INT64;
	a = opnd(c, n, 0, t);
	b = opnd(c, n, 1, t);
	if (!a || !b)
		return lower_fail(c, n, "needs two operands");
	if (row->variant == OPV_NOT)
		lower_op(c, "Not", lower_out(c, n, 0), 1, lower_op(c, row->onnx, NULL, 2, a, b));
	else
		lower_op(c, row->onnx, lower_out(c, n, 0), 2, a, b);
	return 0;
}

/* and_, or_: logical on SymBools, bitwise on SymInts. */
int
lower_sym_logic(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType t = out_dtype(n);
	const char *a = opnd(c, n, 0, t), *b = opnd(c, n, 1, t);

	if (!a || !b)
		return lower_fail(c, n, "needs two operands");
	if (t == DT_BOOL) {
		lower_op(c, row->onnx, lower_out(c, n, 0), 2, a, b);
		return 0;
	}
	/* integers below opset 18 were refused up front (OPF_INT18) */
	lower_op(c, strcmp(row->onnx, "And") == 0 ? "BitwiseAnd" : "BitwiseOr", lower_out(c, n, 0), 2, a, b);
	return 0;
}

/* sym_not(a): Not on a bool; a == 0 on a number. */
int
lower_sym_not(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType t = opnd_dtype(n, 0);
	const char *a = opnd(c, n, 0, t == DT_UNKNOWN ? DT_BOOL : t);

	if (!a)
		return lower_fail(c, n, "needs an operand");
	if (t == DT_BOOL)
		lower_op(c, row->onnx, lower_out(c, n, 0), 1, a);
	else
		lower_op(c, "Equal", lower_out(c, n, 0), 2, a, lower_scalar(c, t, 0));
	return 0;
}

/* sym_ite(b, t, f): t if b else f. */
int
lower_sym_ite(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType t = out_dtype(n);
	const char *b = opnd(c, n, 0, DT_BOOL), *x = opnd(c, n, 1, t), *y = opnd(c, n, 2, t);

	if (!b || !x || !y)
		return lower_fail(c, n, "needs (b, t, f)");
	lower_op(c, row->onnx, lower_out(c, n, 0), 3, b, x, y);
	return 0;
}

/* sym_float(a), math.trunc(x): a conversion between int64 and double
 * (Cast truncates, as trunc does). */
int
lower_sym_cast(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType from = opnd_dtype(n, 0), to = out_dtype(n);
	const char *a = opnd(c, n, 0, from == DT_UNKNOWN ? to : from);

	(void)row;
	if (!a)
		return lower_fail(c, n, "needs an operand");
	finish(c, n, a, from);
	return 0;
}

/* sym_numel(self), sym_stride.int(self, dim), sym_storage_offset(self):
 * ONNX tensors are contiguous, so the stride of dim is the product of the
 * sizes after it and the offset is 0.  A constant when the dims are static. */
int
lower_sym_numel(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self");
	int64_t from = 0, prod = 1, end = INT64_MAX;
	int is_static = 1;
	const char *shape;

	if (!sv || sv->kind != VAL_TENSOR)
		return lower_fail(c, n, "needs a tensor 'self'");
	if (!row->onnx[0]) {
		lower_bind(c, n, 0, lower_i64(c, 0));
		return 0;
	}
	if (lower_arg(n, "dim")) {
		from = lower_axis(lower_int(c, n, "dim", 0), sv->rank) + 1;
		if (from < 1 || from > sv->rank)
			return lower_fail(c, n, "dim out of range");
	}
	for (int i = (int)from; i < sv->rank; i++) {
		is_static &= !sv->dims[i].e;
		prod *= sv->dims[i].v;
	}
	if (is_static) {
		lower_bind(c, n, 0, lower_i64(c, prod));
		return 0;
	}
	shape = lower_shape(c, sv, lower_input(c, n, "self"));
	if (from)
		shape = lower_op(c, "Slice", NULL, 3, shape, lower_i64s(c, 1, &from), lower_i64s(c, 1, &end));
	lower_reduce(c, row->onnx, shape, 0, NULL, 0, lower_out(c, n, 0));
	return 0;
}

/* item(self), _local_scalar_dense(self): the one element as a 0-d value of
 * the result's type (a SymInt/SymFloat/SymBool, often data-dependent). */
int
lower_item(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self");
	const char *x;

	if (!sv || sv->kind != VAL_TENSOR)
		return lower_fail(c, n, "needs a tensor 'self'");
	x = lower_input(c, n, "self");
	if (sv->rank > 0)
		x = lower_op(c, row->onnx, NULL, 1, x);      /* every dim is 1 */
	finish(c, n, x, sv->dtype);
	return 0;
}

/* nonzero(self): NonZero gives [rank, N]; torch wants [N, rank].  N is a
 * data-dependent size (an unbacked symbol, named unbacked_K).  A 0-d self
 * gives [N, 0], N 0 or 1: the NonZero of self as [1], no column kept. */
int
lower_nonzero(LowerCtx *c, const Node *n, const OpRow *row)
{
	static const int64_t perm[] = {1, 0}, zero[1] = {0}, one[1] = {1};
	const Value *sv = lower_tensor_arg(c, n, "self");
	const char *x = lower_input(c, n, "self");

	if (sv->rank == 0) {
		x = lower_op(c, "Transpose", NULL, 1, lower_op(c, row->onnx, NULL, 1, lower_unsqueeze(c, x, 1, zero, NULL)));
		onnx_attr_ints(c->a, c->last, "perm", 2, perm);
		lower_op(c, "Slice", lower_out(c, n, 0), 4, x, lower_i64s(c, 1, zero), lower_i64s(c, 1, zero),
		         lower_i64s(c, 1, one));
		return 0;
	}
	lower_op(c, "Transpose", lower_out(c, n, 0), 1, lower_op(c, row->onnx, NULL, 1, x));
	onnx_attr_ints(c->a, c->last, "perm", 2, perm);
	return 0;
}

/* An assertion's condition as a bool 0-d ONNX value; NULL when it is the
 * constant true (nothing to check). */
static const char *
condition(LowerCtx *c, const Node *n, const char *name)
{
	const Arg *a = lower_arg(n, name);

	if (!a || (a->kind == ARG_BOOL && a->u.i))
		return NULL;
	if (a->kind == ARG_TENSOR && a->u.v->rank > 0)
		return lower_squeeze(c, lower_operand(c, n, name, DT_BOOL), 0, NULL, NULL);
	return lower_operand(c, n, name, DT_BOOL);
}

/* _assert_scalar(self, assert_msg), _assert_async(self[, assert_msg]) (a
 * tensor condition): dropped, or with keep_assertions a run-time check
 * (lower_assert). */
int
lower_assert_scalar(LowerCtx *c, const Node *n, const OpRow *row)
{
	const char *cond;

	(void)row;
	if (!c->opt->keep_assertions || !(cond = condition(c, n, "self")))
		return 0;
	lower_assert(c, cond, lower_str(c, n, "assert_msg", NULL));
	return 0;
}

/* sym_constrain_range(size, min=None, max=None),
 * sym_constrain_range_for_size(size, min=None, max=None): min <= size <= max
 * (a size is at least 0); dropped unless keep_assertions. */
int
lower_constrain_range(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Arg *mn = lower_arg(n, "min"), *mx = lower_arg(n, "max");
	int for_size = row->variant == OPV_FOR_SIZE;
	const char *size, *cond = NULL;

	if (!c->opt->keep_assertions)
		return 0;
	if (!(size = lower_operand(c, n, "size", DT_INT64)))
		return lower_fail(c, n, "no 'size'");
	if ((mn && mn->kind != ARG_NONE) || for_size)
		cond = lower_op(c, "GreaterOrEqual", NULL, 2, size, lower_operand(c, n, "min", DT_INT64)
		                ? lower_operand(c, n, "min", DT_INT64) : lower_i64(c, 0));
	if (mx && mx->kind != ARG_NONE) {
		const char *le = lower_op(c, "LessOrEqual", NULL, 2, size, lower_operand(c, n, "max", DT_INT64));
		cond = cond ? lower_op(c, "And", NULL, 2, cond, le) : le;
	}
	if (cond)
		lower_assert(c, cond, arena_printf(c->a, "%s: %s out of its range", n->name, n->op));
	return 0;
}
