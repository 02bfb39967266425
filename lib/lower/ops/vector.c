/* vector.c: lowerings of norms, distances, cross products and the
 * trapezoid rule (vector.def).
 *
 * One p-norm helper serves norm, dist, pairwise_distance, cdist, renorm
 * and the vector cases of linalg_norm: 0 counts nonzeros, +-inf is the
 * largest / smallest |x|, 1 and 2 are ReduceSum of |x| and the root of the
 * sum of squares, any other p is (sum |x|^p)^(1/p).  Formulas follow
 * torch's composite implementations term for term where rounding could
 * differ (cosine_similarity normalizes each side first, renorm's 1e-7). */
#include <math.h>
#include <string.h>

#include "lower/lower.h"

#define MAXR 16

static DType
out_dtype(const Node *n)
{
	const Value *v = lower_out_value(n, 0);

	return v ? v->dtype : DT_FLOAT32;
}

static const char *op1(LowerCtx *c, const char *op, const char *a) { return lower_op(c, op, NULL, 1, a); }
static const char *op2(LowerCtx *c, const char *op, const char *a, const char *b) { return lower_op(c, op, NULL, 2, a, b); }

/* The p-norm of x over axes (k == 0: all), in x's dtype cdt. */
static const char *
pnorm(LowerCtx *c, const char *x, double p, int k, const int64_t *axes, int keep, DType cdt)
{
	const char *a = op1(c, "Abs", x);

	if (p == 0)
		return lower_reduce(c, "ReduceSum", lower_cast(c, op1(c, "Not", op2(c, "Equal", x, lower_scalar(c, cdt, 0))),
		                    DT_BOOL, cdt), k, axes, keep, NULL);
	if (isinf(p))
		return lower_reduce(c, p > 0 ? "ReduceMax" : "ReduceMin", a, k, axes, keep, NULL);
	if (p == 1)
		return lower_reduce(c, "ReduceSum", a, k, axes, keep, NULL);
	if (p == 2)
		return op1(c, "Sqrt", lower_reduce(c, "ReduceSum", op2(c, "Mul", x, x), k, axes, keep, NULL));
	return op2(c, "Pow", lower_reduce(c, "ReduceSum", op2(c, "Pow", a, lower_scalar(c, cdt, p)), k, axes, keep, NULL),
	           lower_scalar(c, cdt, 1 / p));
}

/* The dims of the int-list argument `name` normalized for rank r; -1 when
 * absent (all dims). */
static int
axes_arg(LowerCtx *c, const Node *n, const char *name, int r, int64_t *axes)
{
	int k = lower_ints(c, n, name, axes, MAXR);

	if (k < 0) {
		const Arg *g = lower_arg(n, name);
		if (g && g->kind == ARG_INT) {
			axes[0] = lower_int(c, n, name, 0);
			k = 1;
		}
	}
	for (int i = 0; i < k; i++)
		axes[i] = lower_axis(axes[i], r);
	return k;
}

/* norm.Scalar(self, p=2), norm.ScalarOpt_dim(self, p, dim, keepdim=False) */
int
lower_norm(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType cdt = lower_compute(out_dtype(n));
	int64_t axes[MAXR];
	int k = axes_arg(c, n, "dim", sv->rank, axes);

	(void)row;
	lower_finish(c, n, 0, pnorm(c, lower_operand(c, n, "self", cdt), lower_float(c, n, "p", 2), k < 0 ? 0 : k, axes,
	                            (int)lower_int(c, n, "keepdim", 0), cdt), cdt);
	return 0;
}

/* dist(self, other, p=2) = the p-norm of self - other */
int
lower_dist(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_compute(out_dtype(n));
	const char *d = op2(c, "Sub", lower_operand(c, n, "self", cdt), lower_operand(c, n, "other", cdt));

	(void)row;
	lower_finish(c, n, 0, pnorm(c, d, lower_float(c, n, "p", 2), 0, NULL, 0, cdt), cdt);
	return 0;
}

/* pairwise_distance(x1, x2, p=2, eps=1e-6, keepdim=False): the p-norm of
 * x1 - x2 + eps over the last dim */
int
lower_pairwise_distance(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_compute(out_dtype(n));
	const Value *a = lower_tensor_arg(c, n, "x1"), *b = lower_tensor_arg(c, n, "x2");
	int64_t last = (a->rank > b->rank ? a->rank : b->rank) - 1;
	const char *d = op2(c, "Sub", lower_operand(c, n, "x1", cdt), lower_operand(c, n, "x2", cdt));

	(void)row;
	if (last < 0)
		last = 0;
	d = op2(c, "Add", d, lower_scalar(c, cdt, lower_float(c, n, "eps", 1e-6)));
	lower_finish(c, n, 0, pnorm(c, d, lower_float(c, n, "p", 2), a->rank || b->rank ? 1 : 0, &last,
	                            (int)lower_int(c, n, "keepdim", 0), cdt), cdt);
	return 0;
}

/* cdist(x1 [..., P, M], x2 [..., R, M], p=2) / _cdist_forward: the p-norm
 * of every row difference, [..., P, R] (directly, where torch may use a
 * matrix product for p = 2 on large inputs: equal within rounding). */
int
lower_cdist(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_compute(out_dtype(n));
	int64_t m2 = -2, m3 = -3, last = -1;
	const char *a = lower_unsqueeze(c, lower_operand(c, n, "x1", cdt), 1, &m2, NULL);
	const char *b = lower_unsqueeze(c, lower_operand(c, n, "x2", cdt), 1, &m3, NULL);

	(void)row;
	lower_finish(c, n, 0, pnorm(c, op2(c, "Sub", a, b), lower_float(c, n, "p", 2), 1, &last, 0, cdt), cdt);
	return 0;
}

/* renorm(self, p, dim, maxnorm): each slice along dim whose p-norm (over
 * the other dims) exceeds maxnorm is scaled by maxnorm / (norm + 1e-7) */
int
lower_renorm(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType cdt = lower_compute(out_dtype(n));
	int64_t dim = lower_axis(lower_int(c, n, "dim", 0), sv->rank), axes[MAXR];
	double mx = lower_float(c, n, "maxnorm", 1);
	const char *x = lower_operand(c, n, "self", cdt), *nr, *f;
	int k = 0;

	(void)row;
	if (sv->rank > MAXR)
		return lower_fail(c, n, "needs a tensor of rank %d or less", MAXR);
	for (int i = 0; i < sv->rank; i++)
		if (i != dim)
			axes[k++] = i;
	if (k == 0) {
		lower_fail(c, n, "needs a tensor of rank 2 or more");
		return DIAG_CONVERT;
	}
	nr = pnorm(c, x, lower_float(c, n, "p", 2), k, axes, 1, cdt);
	f = op2(c, "Mul", lower_scalar(c, cdt, mx), op1(c, "Reciprocal", op2(c, "Add", nr, lower_scalar(c, cdt, 1e-7))));
	f = lower_op(c, "Where", NULL, 3, op2(c, "Greater", nr, lower_scalar(c, cdt, mx)), f, lower_scalar(c, cdt, 1));
	lower_finish(c, n, 0, op2(c, "Mul", x, f), cdt);
	return 0;
}

/* A matrix norm of x over dims (r, c) = axes: 'fro', or ord +-1 (column
 * sums of |x|, then their max / min) and +-inf (row sums). */
static const char *
matrix_norm(LowerCtx *c, const Node *n, const char *x, const char *ord_s, double ord, const int64_t *axes,
            int keep, DType cdt)
{
	int64_t first, second;
	const char *r;

	if (ord_s && strcmp(ord_s, "fro") == 0)
		return pnorm(c, x, 2, 2, axes, keep, cdt);
	if (ord_s || !(fabs(ord) == 1 || isinf(ord))) {
		lower_fail(c, n, "ord=%s needs singular values (an SVD), which ONNX lacks", ord_s ? ord_s : "+-2");
		return NULL;
	}
	first = fabs(ord) == 1 ? axes[0] : axes[1];
	second = fabs(ord) == 1 ? axes[1] : axes[0];
	r = lower_reduce(c, "ReduceSum", op1(c, "Abs", x), 1, &first, 1, NULL);
	r = lower_reduce(c, ord > 0 ? "ReduceMax" : "ReduceMin", r, 1, &second, 1, NULL);
	if (!keep)
		r = lower_squeeze(c, r, 2, axes, NULL);
	return r;
}

/* linalg_matrix_norm(self, ord='fro' | number, dim=(-2, -1), keepdim=False) */
int
lower_matrix_norm(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType cdt = lower_compute(out_dtype(n));
	int64_t axes[MAXR] = {sv->rank - 2, sv->rank - 1};
	const Arg *o = lower_arg(n, "ord");
	const char *ord_s = o && o->kind == ARG_STRING ? lower_str(c, n, "ord", "fro") : o ? NULL : "fro";
	int k = axes_arg(c, n, "dim", sv->rank, axes);
	const char *r;

	(void)row;
	if (sv->rank < 2 || (k >= 0 && k != 2))
		return lower_fail(c, n, "needs two dims of a tensor of rank 2 or more");
	r = matrix_norm(c, n, lower_operand(c, n, "self", cdt), ord_s, ord_s ? 0 : lower_float(c, n, "ord", 2), axes,
	                (int)lower_int(c, n, "keepdim", 0), cdt);
	if (!r)
		return DIAG_CONVERT;
	lower_finish(c, n, 0, r, cdt);
	return 0;
}

/* linalg_norm(self, ord=None, dim=None, keepdim=False): no ord: the 2-norm
 * of the dims (all of them flattened), or Frobenius over two; a number
 * ord: a vector norm over one dim (or a 1-D self), a matrix norm over two
 * (or a 2-D self); ord 'fro' (.ord_str): Frobenius. */
int
lower_linalg_norm(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType cdt = lower_compute(out_dtype(n));
	int64_t axes[MAXR];
	int k = axes_arg(c, n, "dim", sv->rank, axes), keep = (int)lower_int(c, n, "keepdim", 0);
	const Arg *o = lower_arg(n, "ord");
	int has_ord = o && o->kind != ARG_NONE, str = o && o->kind == ARG_STRING;
	const char *x = lower_operand(c, n, "self", cdt), *r;

	(void)row;
	if (!has_ord) {
		r = pnorm(c, x, 2, k < 0 ? 0 : k, axes, keep, cdt);
	} else if (!str && (k == 1 || (k < 0 && sv->rank == 1))) {
		r = pnorm(c, x, lower_float(c, n, "ord", 2), k < 0 ? 0 : 1, axes, keep, cdt);
	} else if (k == 2 || (k < 0 && sv->rank == 2)) {
		if (k < 0)
			axes[0] = 0, axes[1] = 1;
		r = matrix_norm(c, n, x, str ? lower_str(c, n, "ord", "fro") : NULL, str ? 0 : lower_float(c, n, "ord", 2),
		                axes, keep, cdt);
		if (!r)
			return DIAG_CONVERT;
	} else {
		return lower_fail(c, n, "ord needs one dim (vector norm) or two (matrix norm)");
	}
	lower_finish(c, n, 0, r, cdt);
	return 0;
}

/* cosine_similarity(x1, x2, dim=1, eps=1e-8): both broadcast, each divided
 * by its norm along dim clamped to eps, the products summed. */
int
lower_cosine_similarity(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = lower_compute(out_dtype(n));
	const Value *a = lower_tensor_arg(c, n, "x1"), *b = lower_tensor_arg(c, n, "x2");
	int r = a->rank > b->rank ? a->rank : b->rank;
	int64_t dim = lower_axis(lower_int(c, n, "dim", 1), r);
	const char *x1 = lower_operand(c, n, "x1", cdt), *x2 = lower_operand(c, n, "x2", cdt), *s, *eps;

	(void)row;
	if (r == 0) {   /* two scalars: as 1-element vectors (ReduceSum refuses an axis of a 0-d tensor) */
		x1 = op2(c, "Reshape", x1, lower_i64s(c, 1, (int64_t[]){1}));
		x2 = op2(c, "Reshape", x2, lower_i64s(c, 1, (int64_t[]){1}));
		dim = 0;
	}
	s = op1(c, "Shape", op2(c, "Add", x1, x2));
	x1 = op2(c, "Expand", x1, s);
	x2 = op2(c, "Expand", x2, s);
	eps = lower_scalar(c, cdt, lower_float(c, n, "eps", 1e-8));
	x1 = op2(c, "Div", x1, op2(c, "Max", pnorm(c, x1, 2, 1, &dim, 1, cdt), eps));
	x2 = op2(c, "Div", x2, op2(c, "Max", pnorm(c, x2, 2, 1, &dim, 1, cdt), eps));
	lower_finish(c, n, 0, lower_reduce(c, "ReduceSum", op2(c, "Mul", x1, x2), 1, &dim, 0, NULL), cdt);
	return 0;
}

static const char *
gather_axis(LowerCtx *c, const char *x, const char *idx, int64_t axis)
{
	lower_op(c, "Gather", NULL, 2, x, idx);
	onnx_attr_int(c->a, c->last, "axis", axis);
	return c->last->output[0];
}

/* cross(self, other, dim=None) / linalg_cross(self, other, dim=-1):
 * a[1,2,0] b[2,0,1] - a[2,0,1] b[1,2,0] along dim (cross's default: the
 * first dim of size 3). */
static int
cross(LowerCtx *c, const Node *n, int linalg)
{
	const Value *a = lower_tensor_arg(c, n, "self"), *b = lower_tensor_arg(c, n, "other");
	DType cdt = lower_opmath(out_dtype(n));
	int r = a->rank > b->rank ? a->rank : b->rank;
	const Arg *d = lower_arg(n, "dim");
	int64_t dim = -1, i1[3] = {1, 2, 0}, i2[3] = {2, 0, 1}, three = 3;
	const char *x = lower_operand(c, n, "self", cdt), *y = lower_operand(c, n, "other", cdt);
	const char *g1, *g2, *p, *q;

	if (d && d->kind != ARG_NONE) {
		dim = lower_axis(lower_int(c, n, "dim", -1), r);
	} else if (!linalg) {
		for (int i = 0; i < a->rank && dim < 0; i++)
			if (!a->dims[i].e && a->dims[i].v == 3)
				dim = i + (r - a->rank);
		if (dim < 0)
			return lower_fail(c, n, "no dim of size 3");
	} else {
		dim = r - 1;
	}
	g1 = lower_const(c, DT_INT64, 1, &three, i1);
	g2 = lower_const(c, DT_INT64, 1, &three, i2);
	p = op2(c, "Mul", gather_axis(c, x, g1, dim - (r - a->rank)), gather_axis(c, y, g2, dim - (r - b->rank)));
	q = op2(c, "Mul", gather_axis(c, x, g2, dim - (r - a->rank)), gather_axis(c, y, g1, dim - (r - b->rank)));
	lower_finish(c, n, 0, op2(c, "Sub", p, q), cdt);
	return 0;
}

int lower_cross(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return cross(c, n, 0); }
int lower_linalg_cross(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return cross(c, n, 1); }

/* y[1:] + y[:-1] along dim */
static const char *
pair_sum(LowerCtx *c, const char *y, int64_t dim)
{
	int64_t zero = 0, one = 1, m1 = -1, end = INT64_MAX;
	const char *ax = lower_i64s(c, 1, &dim);

	return op2(c, "Add", lower_op(c, "Slice", NULL, 4, y, lower_i64s(c, 1, &one), lower_i64s(c, 1, &end), ax),
	           lower_op(c, "Slice", NULL, 4, y, lower_i64s(c, 1, &zero), lower_i64s(c, 1, &m1), ax));
}

/* x[1:] - x[:-1] of the sample points x (.x overloads), a 1-D x laid
 * along dim of y (rank r). */
static const char *
spacing(LowerCtx *c, const Node *n, int64_t dim, int r, DType cdt)
{
	const Value *xv = lower_tensor_arg(c, n, "x");
	int64_t zero = 0, one = 1, m1 = -1, end = INT64_MAX, axis = xv->rank == 1 ? 0 : dim;
	const char *x = lower_operand(c, n, "x", cdt), *ax = lower_i64s(c, 1, &axis), *d;

	d = op2(c, "Sub", lower_op(c, "Slice", NULL, 4, x, lower_i64s(c, 1, &one), lower_i64s(c, 1, &end), ax),
	        lower_op(c, "Slice", NULL, 4, x, lower_i64s(c, 1, &zero), lower_i64s(c, 1, &m1), ax));
	if (xv->rank == 1 && r > 1) {
		int64_t shape[MAXR];
		for (int i = 0; i < r; i++)
			shape[i] = i == dim ? -1 : 1;
		d = op2(c, "Reshape", d, lower_i64s(c, r, shape));
	}
	return d;
}

/* trapezoid / trapz .dx (y, dx=1, dim=-1): (sum y - (y[0] + y[-1]) / 2) dx,
 * torch's formula; .x (y, x, dim=-1): sum (x[1:] - x[:-1]) (y[1:] + y[:-1]) / 2. */
int
lower_trapezoid(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *yv = lower_tensor_arg(c, n, "y");
	DType cdt = lower_compute(out_dtype(n));
	int64_t dim = lower_axis(lower_int(c, n, "dim", -1), yv->rank), zero = 0, m1 = -1;
	const char *y = lower_operand(c, n, "y", cdt), *r;

	(void)row;
	if (yv->rank == 0)
		return lower_fail(c, n, "needs a tensor of rank 1 or more");
	if (lower_arg_value(n, "x")) {
		r = op2(c, "Mul", spacing(c, n, dim, yv->rank, cdt), pair_sum(c, y, dim));
		r = op2(c, "Div", lower_reduce(c, "ReduceSum", r, 1, &dim, 0, NULL), lower_scalar(c, cdt, 2));
	} else {
		const char *ends = op2(c, "Add", gather_axis(c, y, lower_i64(c, zero), dim), gather_axis(c, y, lower_i64(c, m1), dim));
		r = op2(c, "Sub", lower_reduce(c, "ReduceSum", y, 1, &dim, 0, NULL), op2(c, "Mul", ends, lower_scalar(c, cdt, 0.5)));
		r = op2(c, "Mul", r, lower_scalar(c, cdt, lower_float(c, n, "dx", 1)));
	}
	lower_finish(c, n, 0, r, cdt);
	return 0;
}

/* cumulative_trapezoid .dx: cumsum(dx / 2 (y[1:] + y[:-1])); .x:
 * cumsum((x[1:] - x[:-1]) (y[1:] + y[:-1]) / 2), torch's order. */
int
lower_cumulative_trapezoid(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *yv = lower_tensor_arg(c, n, "y");
	DType cdt = lower_compute(out_dtype(n));
	int64_t dim = lower_axis(lower_int(c, n, "dim", -1), yv->rank);
	const char *y = lower_operand(c, n, "y", cdt), *r;

	(void)row;
	if (yv->rank == 0)
		return lower_fail(c, n, "needs a tensor of rank 1 or more");
	if (lower_arg_value(n, "x"))
		r = op2(c, "Div", op2(c, "Mul", spacing(c, n, dim, yv->rank, cdt), pair_sum(c, y, dim)), lower_scalar(c, cdt, 2));
	else
		r = op2(c, "Mul", lower_scalar(c, cdt, lower_float(c, n, "dx", 1) / 2), pair_sum(c, y, dim));
	lower_finish(c, n, 0, op2(c, "CumSum", r, lower_i64(c, dim)), cdt);
	return 0;
}
