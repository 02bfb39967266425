/* pat_basic.c: patterns that remove a node or two without changing what is
 * computed: identities, double negations, neutral constants, casts.
 *
 * Each function is called with the root r (lib/opt/opt.h states the rules);
 * its contract is written once, in its row of patterns.def (docs/patterns.md
 * shows it); the comment above a function adds only what the row does not. */
#include "opt/opt.h"

#include <string.h>

/* IdentityRemove: its contract is its row of patterns.def. */
int
pat_identity_remove(Opt *o, int r)
{
	return opt_forward(o, opt_out(o, r, 0), opt_in(o, r, 0));
}

/* Dropout(x) in inference with its mask unread -> x. */
int
pat_dropout_remove(Opt *o, int r)
{
	int tm = opt_in(o, r, 2);
	double v;

	if (!opt_only_out0(o, r) || (tm >= 0 && !(opt_const_scalar(o, tm, &v) && v == 0)))
		return OPT_NOMATCH;
	return opt_forward(o, opt_out(o, r, 0), opt_in(o, r, 0));
}

/* CastSameType: its contract is its row of patterns.def. */
int
pat_cast_same_type(Opt *o, int r)
{
	int x = opt_in(o, r, 0);

	if (!opt_elem(o, x) || opt_elem(o, x) != opt_attr_i(o, r, "to", -1))
		return OPT_NOMATCH;
	return opt_forward(o, opt_out(o, r, 0), x);
}

/* 1 when every value of type `from` is exactly a value of type `to`. */
static int
lossless(int from, int to)
{
	enum { F32 = 1, U8 = 2, I8 = 3, U16 = 4, I16 = 5, I32 = 6, I64 = 7, BOOL = 9, F16 = 10, F64 = 11,
	       U32 = 12, U64 = 13, BF16 = 16 };
	static const int wider[][8] = {
		[BOOL] = {F32, U8, I8, U16, I16, I32, I64, F64},
		[I8] = {I16, I32, I64, F16, F32, F64, BF16},
		[U8] = {U16, I16, U32, I32, U64, I64, F16, F32},
		[I16] = {I32, I64, F32, F64},
		[U16] = {U32, I32, U64, I64, F32, F64},
		[I32] = {I64, F64},
		[U32] = {U64, I64, F64},
		[F16] = {F32, F64},
		[BF16] = {F32, F64},
		[F32] = {F64},
	};

	if (from == to)
		return 1;
	if (from <= 0 || from > BF16)
		return 0;
	for (int i = 0; i < 8 && wider[from][i]; i++)
		if (wider[from][i] == to)
			return 1;
	return (from == U8 && to == F64) || (from == BOOL && (to == F16 || to == U32 || to == U64 || to == BF16));
}

/* CastCast: its contract is its row of patterns.def. */
int
pat_cast_cast(Opt *o, int r)
{
	int in = opt_prod(o, opt_in(o, r, 0), "Cast"), x, y, t0, t1, t2, n;

	if (in < 0)
		return OPT_NOMATCH;
	x = opt_in(o, in, 0);
	t0 = opt_elem(o, x);
	t1 = (int)opt_attr_i(o, in, "to", 0);
	t2 = (int)opt_attr_i(o, r, "to", 0);
	if (!t0 || !lossless(t0, t1))
		return OPT_NOMATCH;
	if (t2 == t0)
		return opt_forward(o, opt_out(o, r, 0), x);
	if (!opt_only_use(o, opt_in(o, r, 0), r))
		return OPT_NOMATCH;
	n = opt_add(o, r, "Cast", 1, &x, 1, &y);
	opt_set_attr_i(o, n, "to", t2);
	opt_replace(o, opt_out(o, r, 0), y);
	return OPT_REWROTE;
}

/* CastLikeToCast: its contract is its row of patterns.def. */
int
pat_castlike_to_cast(Opt *o, int r)
{
	int x = opt_in(o, r, 0), t = opt_elem(o, opt_in(o, r, 1)), n, y;

	if (!t || opt_attr(o, r, "saturate"))
		return OPT_NOMATCH;
	n = opt_add(o, r, "Cast", 1, &x, 1, &y);
	opt_set_attr_i(o, n, "to", t);
	opt_replace(o, opt_out(o, r, 0), y);
	return OPT_REWROTE;
}

/* op(op(x)) -> x for an involution op. */
static int
involution(Opt *o, int r, const char *op)
{
	int in = opt_prod(o, opt_in(o, r, 0), op);

	return in < 0 ? OPT_NOMATCH : opt_forward(o, opt_out(o, r, 0), opt_in(o, in, 0));
}

/* NegNeg: its contract is its row of patterns.def. */
int
pat_neg_neg(Opt *o, int r)
{
	return involution(o, r, "Neg");
}

/* NotNot: its contract is its row of patterns.def. */
int
pat_not_not(Opt *o, int r)
{
	return involution(o, r, "Not");
}

/* ReluRelu: its contract is its row of patterns.def. */
int
pat_relu_relu(Opt *o, int r)
{
	int in = opt_prod(o, opt_in(o, r, 0), "Relu");

	return in < 0 ? OPT_NOMATCH : opt_forward(o, opt_out(o, r, 0), opt_in(o, r, 0));
}

/* x op c -> x when c is a constant of neutral elements that changes neither
 * x's shape nor its type; sides: 1 = c second, 2 = either side. */
static int
neutral(Opt *o, int r, double e, int sides)
{
	for (int s = 1; s >= (sides == 2 ? 0 : 1); s--) {
		int c = opt_in(o, r, s), x = opt_in(o, r, 1 - s);
		if (c >= 0 && x >= 0 && opt_const_all(o, c, e, 0) && opt_elem(o, c) == opt_elem(o, x) &&
		    opt_bcast_keeps(o, x, c))
			return opt_forward(o, opt_out(o, r, 0), x);
	}
	return OPT_NOMATCH;
}

/* AddZero: its contract is its row of patterns.def. */
int
pat_add_zero(Opt *o, int r)
{
	return neutral(o, r, 0, 2);
}

/* SubZero: its contract is its row of patterns.def. */
int
pat_sub_zero(Opt *o, int r)
{
	return neutral(o, r, 0, 1);
}

/* MulOne: its contract is its row of patterns.def. */
int
pat_mul_one(Opt *o, int r)
{
	return neutral(o, r, 1, 2);
}

/* DivOne: its contract is its row of patterns.def. */
int
pat_div_one(Opt *o, int r)
{
	return neutral(o, r, 1, 1);
}

/* AndTrue: its contract is its row of patterns.def. */
int
pat_and_true(Opt *o, int r)
{
	return neutral(o, r, 1, 2);
}

/* AddNeg: its contract is its row of patterns.def. */
int
pat_add_neg(Opt *o, int r)
{
	for (int s = 1; s >= 0; s--) {
		int ng = opt_prod(o, opt_in(o, r, s), "Neg"), y;
		if (ng < 0 || !opt_only_use(o, opt_in(o, r, s), r))
			continue;
		y = opt_add1(o, r, "Sub", 2, opt_in(o, r, 1 - s), opt_in(o, ng, 0));
		opt_replace(o, opt_out(o, r, 0), y);
		return OPT_REWROTE;
	}
	return OPT_NOMATCH;
}

/* PowTwo: its contract is its row of patterns.def. */
int
pat_pow_two(Opt *o, int r)
{
	int x = opt_in(o, r, 0), e = opt_in(o, r, 1), y;
	double v;

	if (!dtype_onnx_is_float(opt_elem(o, x)) || !opt_const_scalar(o, e, &v) || v != 2 ||
	    !(opt_rank(o, e) == 0 || (opt_rank(o, x) >= opt_rank(o, e))))
		return OPT_NOMATCH;
	y = opt_add1(o, r, "Mul", 2, x, x);
	opt_replace(o, opt_out(o, r, 0), y);
	return OPT_REWROTE;
}

/* MulMulConst: its contract is its row of patterns.def. */
int
pat_mul_mul_const(Opt *o, int r)
{
	for (int s = 1; s >= 0; s--) {
		int b = opt_in(o, r, s), in = opt_prod(o, opt_in(o, r, 1 - s), "Mul"), elem = opt_elem(o, b), rank;
		double vb, va;
		if (in < 0 || !opt_only_use(o, opt_in(o, r, 1 - s), r) || !opt_const_scalar(o, b, &vb) ||
		    !dtype_onnx_is_float(elem))
			continue;
		for (int t = 1; t >= 0; t--) {
			int a = opt_in(o, in, t), x = opt_in(o, in, 1 - t), c, y;
			if (!opt_const_scalar(o, a, &va) || opt_elem(o, a) != elem || opt_const_tensor(o, x))
				continue;
			rank = opt_rank(o, a) > opt_rank(o, b) ? opt_rank(o, a) : opt_rank(o, b);
			if (rank > 1)
				continue;
			c = opt_const_like(o, elem, va * vb, rank);
			if (c < 0)
				return OPT_NOMATCH;
			y = opt_add1(o, r, "Mul", 2, x, c);
			opt_replace(o, opt_out(o, r, 0), y);
			return OPT_REWROTE;
		}
	}
	return OPT_NOMATCH;
}

/* ClipClip: its contract is its row of patterns.def.  Bounds are taken
 * as they stand (the tighter of each pair), so no constant is made. */
int
pat_clip_clip(Opt *o, int r)
{
	int in = opt_prod(o, opt_in(o, r, 0), "Clip"), nd[2] = {in, r}, b[2][2], pick[2], y;
	double v[2][2];

	if (in < 0 || !opt_only_use(o, opt_in(o, r, 0), r))
		return OPT_NOMATCH;
	for (int k = 0; k < 2; k++)
		for (int j = 0; j < 2; j++) {
			b[k][j] = opt_in(o, nd[k], j + 1);
			if (b[k][j] >= 0 && (!opt_const_scalar(o, b[k][j], &v[k][j]) || v[k][j] != v[k][j]))
				return OPT_NOMATCH;
		}
	for (int j = 0; j < 2; j++) {
		int inner = b[0][j] >= 0, outer = b[1][j] >= 0;
		int tighter = j == 0 ? v[0][0] >= v[1][0] : v[0][1] <= v[1][1];
		pick[j] = !outer || (inner && tighter) ? 0 : 1;
	}
	/* disjoint intervals (or an inverted one) clip to a bound that one
	 * Clip does not give: leave them */
	for (int k = 0; k < 2; k++)
		for (int m = 0; m < 2; m++)
			if (b[k][0] >= 0 && b[m][1] >= 0 && v[k][0] > v[m][1])
				return OPT_NOMATCH;
	y = opt_add1(o, r, "Clip", 3, opt_in(o, in, 0), b[pick[0]][0], b[pick[1]][1]);
	opt_replace(o, opt_out(o, r, 0), y);
	return OPT_REWROTE;
}

/* MulReciprocal: its contract is its row of patterns.def. */
int
pat_mul_reciprocal(Opt *o, int r)
{
	for (int s = 1; s >= 0; s--) {
		int rc = opt_prod(o, opt_in(o, r, s), "Reciprocal"), y;
		if (rc < 0 || !opt_only_use(o, opt_in(o, r, s), r))
			continue;
		y = opt_add1(o, r, "Div", 2, opt_in(o, r, 1 - s), opt_in(o, rc, 0));
		opt_replace(o, opt_out(o, r, 0), y);
		return OPT_REWROTE;
	}
	return OPT_NOMATCH;
}

/* WhereNot: its contract is its row of patterns.def. */
int
pat_where_not(Opt *o, int r)
{
	int nt = opt_prod(o, opt_in(o, r, 0), "Not"), y;

	if (nt < 0 || !opt_only_use(o, opt_in(o, r, 0), r))
		return OPT_NOMATCH;
	y = opt_add1(o, r, "Where", 3, opt_in(o, nt, 0), opt_in(o, r, 2), opt_in(o, r, 1));
	opt_replace(o, opt_out(o, r, 0), y);
	return OPT_REWROTE;
}
