/* factor.c: lowerings of linear algebra by elimination (factor.def):
 * inverse and solve by Gauss-Jordan elimination with partial pivoting,
 * Cholesky's factor, and triangular solves by substitution.
 *
 * ONNX has no factorization operator, so each is unrolled: one step per
 * column (or row) of an n x n matrix, a handful of nodes working on the
 * whole batch at once.  Sizes must be static and n at most FACTOR_MAX_N,
 * so the graph stays a few hundred nodes.  Every step's constants (masks,
 * one-hot rows, indices) are built here from n.  Batches broadcast as
 * torch broadcasts them; the results are in the dtype torch returns,
 * computed in float32 for the 16-bit floats. */
#include <stdint.h>
#include <string.h>

#include "lower/lower.h"

#include "ops.h"

enum { FACTOR_MAX_N = 32 };

/* A square matrix argument: its batch dims and n, checked static and at
 * most FACTOR_MAX_N; returns 0 or lower_fail(). */
typedef struct Mat {
	const Value *v;
	int nb;                 /* batch dims */
	int64_t b[MAX_RANK];    /* the batch dims */
	int64_t n;              /* rows */
	int64_t k;              /* columns (n for a square matrix) */
} Mat;

static int
mat_of(LowerCtx *c, const Node *n, const char *name, int square, Mat *m)
{
	const Value *v = lower_tensor_arg(c, n, name);

	memset(m, 0, sizeof *m);
	m->v = v;
	if (v->rank < 2 || v->rank > MAX_RANK)
		return lower_fail(c, n, "'%s' needs a matrix or a batch of matrices (rank 2 or more)", name);
	if (!lower_static(v))
		return lower_fail(c, n, "'%s' needs a static shape (the elimination is unrolled per column)", name);
	m->nb = v->rank - 2;
	for (int i = 0; i < m->nb; i++)
		m->b[i] = v->dims[i].v;
	m->n = v->dims[v->rank - 2].v;
	m->k = v->dims[v->rank - 1].v;
	if (square && m->n != m->k)
		return lower_fail(c, n, "'%s' is %lldx%lld: square matrices only", name, (long long)m->n,
		                  (long long)m->k);
	if (m->n > FACTOR_MAX_N)
		return lower_fail(c, n, "'%s' has %lld rows: the elimination is unrolled up to %d", name,
		                  (long long)m->n, FACTOR_MAX_N);
	return 0;
}

/* The dtype the elimination computes in for a matrix of dtype t. */
static DType
factor_dtype(LowerCtx *c, const Node *n, DType t)
{
	if (t == DT_FLOAT64)
		return DT_FLOAT64;
	if (dtype_is_float(t))
		return DT_FLOAT32;
	lower_fail(c, n, "needs floating-point matrices (torch's linalg takes no %s)", dtype_name(t));
	return DT_FLOAT32;
}

/* x[..., lo:lo+1, :] (axis -2) or x[..., lo:lo+1] (axis -1), dims kept */
static const char *
slice1(LowerCtx *c, const char *x, int64_t axis, int64_t lo)
{
	return lower_op(c, "Slice", NULL, 4, x, lower_i64s(c, 1, &lo), lower_i64s(c, 1, &(int64_t){lo + 1}),
	                lower_i64s(c, 1, &axis));
}

/* x[..., lo:hi] along axis, dims kept */
static const char *
slice_range(LowerCtx *c, const char *x, int64_t axis, int64_t lo, int64_t hi)
{
	return lower_op(c, "Slice", NULL, 4, x, lower_i64s(c, 1, &lo), lower_i64s(c, 1, &hi),
	                lower_i64s(c, 1, &axis));
}

/* A constant of shape [rows, cols] in dtype t whose element (i, j) is
 * f(i, j, arg). */
static const char *
grid(LowerCtx *c, DType t, int64_t rows, int64_t cols, double (*f)(int64_t, int64_t, int64_t), int64_t arg)
{
	int64_t dims[2] = {rows, cols};
	size_t es = (size_t)dtype_size(t);
	unsigned char *buf = arena_alloc(c->a, (size_t)(rows * cols) * es + 1);

	for (int64_t i = 0; i < rows; i++)
		for (int64_t j = 0; j < cols; j++) {
			unsigned char e[8];
			lower_encode(t, f(i, j, arg), e);
			memcpy(buf + (size_t)(i * cols + j) * es, e, es);
		}
	return lower_const(c, t, 2, dims, buf);
}

static double g_row_is(int64_t i, int64_t j, int64_t a) { (void)j; return i == a; }
static double g_row_from(int64_t i, int64_t j, int64_t a) { (void)j; return i >= a; }
static double g_row_index(int64_t i, int64_t j, int64_t a) { (void)j; (void)a; return (double)i; }
static double g_col_is(int64_t i, int64_t j, int64_t a) { (void)i; return j == a; }
static double g_eye(int64_t i, int64_t j, int64_t a) { (void)a; return i == j; }
static double g_col_from(int64_t i, int64_t j, int64_t a) { (void)i; return j >= a; }
static double g_col_before(int64_t i, int64_t j, int64_t a) { (void)i; return j < a; }
static double g_row_before(int64_t i, int64_t j, int64_t a) { (void)j; return i < a; }

/* The static shape batch + [r, k] as a 1-D int64 constant. */
static const char *
shape_of(LowerCtx *c, int nb, const int64_t *b, int64_t r, int64_t k)
{
	int64_t s[MAX_RANK + 2];

	memcpy(s, b, (size_t)nb * sizeof *s);
	s[nb] = r;
	s[nb + 1] = k;
	return lower_i64s(c, nb + 2, s);
}

/* The upper (or lower) triangle of x from diagonal k on, the rest 0. */
static const char *
triangle(LowerCtx *c, const char *x, int upper, int64_t k)
{
	const char *y = k ? lower_op(c, "Trilu", NULL, 2, x, lower_i64(c, k)) : lower_op(c, "Trilu", NULL, 1, x);

	onnx_attr_int(c->a, c->last, "upper", upper);
	return y;
}

/* Broadcasts the batch dims of a and b (torch's rule); returns 0 or
 * lower_fail(). */
static int
batch_broadcast(LowerCtx *c, const Node *n, const Mat *a, const Mat *b, int *nb, int64_t *out)
{
	*nb = a->nb > b->nb ? a->nb : b->nb;
	for (int i = 0; i < *nb; i++) {
		int ia = i - (*nb - a->nb), ib = i - (*nb - b->nb);
		int64_t da = ia >= 0 ? a->b[ia] : 1, db = ib >= 0 ? b->b[ib] : 1;
		if (da != db && da != 1 && db != 1)
			return lower_fail(c, n, "batch dims %lld and %lld do not broadcast", (long long)da, (long long)db);
		out[i] = da == 1 ? db : da;
	}
	return 0;
}

/* The last two dims of x (rank nb + 2) swapped. */
static const char *
swap_last(LowerCtx *c, const char *x, int nb)
{
	int64_t perm[MAX_RANK + 2];

	for (int i = 0; i < nb + 2; i++)
		perm[i] = i;
	perm[nb] = nb + 1;
	perm[nb + 1] = nb;
	return lower_perm(c, x, nb + 2, perm, NULL);
}

/* Records the first step whose flag (bool, batch + [1, 1]) is set: info
 * becomes step + 1 where it is still 0.  *info starts NULL (all 0). */
static void
info_step(LowerCtx *c, const char **info, const char *flag, int64_t step)
{
	const char *val = lower_i64(c, step + 1);

	if (!*info) {
		*info = lower_op(c, "Where", NULL, 3, flag, val, lower_i64(c, 0));
		return;
	}
	const char *free_ = lower_op(c, "Equal", NULL, 2, *info, lower_i64(c, 0));
	*info = lower_op(c, "Where", NULL, 3, lower_op(c, "And", NULL, 2, free_, flag), val, *info);
}

/* Binds output k (int32 info, the batch dims) from info (batch + [1, 1]
 * int64, or NULL for all 0) when it is used. */
static void
info_out(LowerCtx *c, const Node *n, int k, const char *info, int nb, const int64_t *b)
{
	if (k >= lower_nout(n) || !lower_out_used(c, n, k))
		return;
	if (!info)
		info = lower_op(c, "Expand", NULL, 2, lower_i64(c, 0), shape_of(c, nb, b, 1, 1));
	info = lower_squeeze(c, info, 2, (const int64_t[]){nb, nb + 1}, NULL);
	lower_finish(c, n, k, info, DT_INT64);
}

/* Solves A X = B for X by Gauss-Jordan elimination with partial pivoting:
 * a is batch + [n, n], b batch + [n, m], both in dtype t.  Returns X
 * (batch + [n, m]); *info gets the first zero pivot's step (see
 * info_step), or stays NULL when there is none to record (info NULL). */
static const char *
gauss_jordan(LowerCtx *c, const char *a, const char *b, DType t, int nb, const int64_t *batch, int64_t n,
             int64_t m, const char **info)
{
	const char *mx = lower_op(c, "Concat", NULL, 2, a, b);
	const char *full = shape_of(c, nb, batch, n, n + m);
	const char *idx = grid(c, DT_INT64, n, 1, g_row_index, 0);

	onnx_attr_int(c->a, c->last, "axis", -1);
	for (int64_t j = 0; j < n; j++) {
		const char *isj = grid(c, DT_BOOL, n, 1, g_row_is, j);
		const char *below = grid(c, DT_BOOL, n, 1, g_row_from, j);
		const char *col = slice1(c, mx, -1, j);
		const char *mag = lower_op(c, "Where", NULL, 3, below, lower_op(c, "Abs", NULL, 1, col),
		                           lower_scalar(c, t, -1));
		const char *p = lower_op(c, "ArgMax", NULL, 1, mag);
		OnnxNode *am = c->last;
		onnx_attr_int(c->a, am, "axis", -2);
		onnx_attr_int(c->a, am, "keepdims", 1);
		/* rows j and p swapped: index j reads p, index p reads j */
		const char *perm = lower_op(c, "Where", NULL, 3, isj, p,
		                            lower_op(c, "Where", NULL, 3, lower_op(c, "Equal", NULL, 2, idx, p),
		                                     lower_i64(c, j), idx));
		mx = lower_op(c, "GatherElements", NULL, 2, mx, lower_op(c, "Expand", NULL, 2, perm, full));
		onnx_attr_int(c->a, c->last, "axis", -2);
		const char *r = slice1(c, mx, -2, j);
		const char *pv = slice1(c, r, -1, j);
		if (info)
			info_step(c, info, lower_op(c, "Equal", NULL, 2, pv, lower_scalar(c, t, 0)), j);
		r = lower_op(c, "Div", NULL, 2, r, pv);
		const char *f = slice1(c, mx, -1, j);
		mx = lower_op(c, "Sub", NULL, 2, mx, lower_op(c, "Mul", NULL, 2, f, r));
		mx = lower_op(c, "Where", NULL, 3, isj, r, mx);
	}
	return slice_range(c, mx, -1, n, n + m);
}

/* inverse(A), linalg_inv(A), linalg_inv_ex(A, check_errors) -> (inverse, info) */
int
lower_inv(LowerCtx *c, const Node *n, const OpRow *row)
{
	const char *name = lower_arg(n, "A") ? "A" : "self";
	Mat a;
	const char *info = NULL, *x;
	DType t;

	(void)row;
	if (mat_of(c, n, name, 1, &a))
		return DIAG_CONVERT;
	t = factor_dtype(c, n, a.v->dtype);
	if (a.n == 0) {
		x = lower_value(c, a.v);
	} else {
		const char *eye = lower_op(c, "Expand", NULL, 2, grid(c, t, a.n, a.n, g_eye, 0),
		                           shape_of(c, a.nb, a.b, a.n, a.n));
		x = gauss_jordan(c, lower_operand(c, n, name, t), eye, t, a.nb, a.b, a.n, a.n, &info);
	}
	lower_finish(c, n, 0, x, a.n == 0 ? a.v->dtype : t);
	info_out(c, n, 1, info, a.nb, a.b);
	return 0;
}

/* linalg_solve(A, B, left=True), linalg_solve_ex(A, B, left, check_errors)
 * -> (result, info), _linalg_solve_ex(A, B, left, check_errors) -> (result,
 * LU, pivots, info).  B is a vector when it is 1-D, or when its shape is
 * A's without the last dim (torch's rule). */
int
lower_solve(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *bv = lower_tensor_arg(c, n, "B");
	int left = (int)lower_int(c, n, "left", 1), nb, vec, nout = lower_nout(n);
	int64_t batch[MAX_RANK];
	Mat a, b;
	const char *info = NULL, *av, *bx, *x;
	DType t;

	(void)row;
	if (mat_of(c, n, "A", 1, &a))
		return DIAG_CONVERT;
	for (int k = 1; nout == 4 && k < 3; k++)
		if (lower_out_used(c, n, k))
			return lower_fail(c, n, "its LU factors and pivots are used, which this elimination does not keep");
	if (!lower_static(bv))
		return lower_fail(c, n, "'B' needs a static shape");
	/* torch's rule: a vector when 1-D, or when its shape is A's without the last dim */
	vec = bv->rank == 1 || bv->rank == a.v->rank - 1;
	for (int i = 0; vec && bv->rank > 1 && i < bv->rank; i++)
		vec = bv->dims[i].v == a.v->dims[i].v;
	t = factor_dtype(c, n, a.v->dtype);
	av = lower_operand(c, n, "A", t);
	bx = lower_operand(c, n, "B", t);
	if (vec)
		bx = lower_unsqueeze(c, bx, 1, (const int64_t[]){bv->rank}, NULL);
	/* b as a matrix: its batch dims and [rows, cols] */
	memset(&b, 0, sizeof b);
	b.nb = vec ? bv->rank - 1 : bv->rank - 2;
	for (int i = 0; i < b.nb; i++)
		b.b[i] = bv->dims[i].v;
	b.n = vec ? bv->dims[bv->rank - 1].v : bv->dims[bv->rank - 2].v;
	b.k = vec ? 1 : bv->dims[bv->rank - 1].v;
	if (!left) {
		/* X A = B: A^T X^T = B^T */
		if (vec)
			return lower_fail(c, n, "left=False needs a matrix B");
		int64_t tmp = b.n;
		av = swap_last(c, av, a.nb);
		bx = swap_last(c, bx, b.nb);
		b.n = b.k;
		b.k = tmp;
	}
	if (b.n != a.n)
		return lower_fail(c, n, "'B' has %lld rows, 'A' is %lldx%lld", (long long)b.n, (long long)a.n,
		                  (long long)a.n);
	if (batch_broadcast(c, n, &a, &b, &nb, batch))
		return DIAG_CONVERT;
	if (a.n == 0 || b.k == 0) {
		x = lower_op(c, "Expand", NULL, 2, bx, shape_of(c, nb, batch, b.n, b.k));
	} else {
		av = lower_op(c, "Expand", NULL, 2, av, shape_of(c, nb, batch, a.n, a.n));
		bx = lower_op(c, "Expand", NULL, 2, bx, shape_of(c, nb, batch, b.n, b.k));
		x = gauss_jordan(c, av, bx, t, nb, batch, a.n, b.k, &info);
	}
	if (!left)
		x = swap_last(c, x, nb);
	if (vec)
		x = lower_squeeze(c, x, 1, (const int64_t[]){nb + 1}, NULL);
	lower_finish(c, n, 0, x, t);
	if (nout > 1)
		info_out(c, n, nout - 1, info, nb, batch);
	return 0;
}

/* The lower Cholesky factor L of a (batch + [n, n], dtype t), column by
 * column: v = A[:, j] - L L[j, :]^T, L[j, j] = sqrt(v_j), L[i, j] = v_i /
 * L[j, j] below it.  *info: the first column whose v_j is not positive. */
static const char *
cholesky_lower(LowerCtx *c, const char *a, DType t, int nb, const int64_t *batch, int64_t n,
               const char **info)
{
	const char *l = NULL;

	for (int64_t j = 0; j < n; j++) {
		const char *v = slice1(c, a, -1, j);    /* batch + [n, 1] */
		if (l) {
			const char *lj = swap_last(c, slice1(c, l, -2, j), nb);
			v = lower_op(c, "Sub", NULL, 2, v, lower_op(c, "MatMul", NULL, 2, l, lj));
		}
		const char *vj = slice1(c, v, -2, j);
		info_step(c, info, lower_op(c, "Not", NULL, 1, lower_op(c, "Greater", NULL, 2, vj, lower_scalar(c, t, 0))),
		          j);
		const char *col = lower_op(c, "Div", NULL, 2, v, lower_op(c, "Sqrt", NULL, 1, vj));
		col = lower_op(c, "Mul", NULL, 2, col, grid(c, t, n, 1, g_row_from, j));
		col = lower_op(c, "Mul", NULL, 2, col, grid(c, t, 1, n, g_col_is, j));   /* into column j */
		l = l ? lower_op(c, "Add", NULL, 2, l, col) : col;
	}
	(void)batch;
	return l;
}

/* linalg_cholesky(self, upper=False),
 * linalg_cholesky_ex(self, upper, check_errors) -> (L, info) */
int
lower_cholesky(LowerCtx *c, const Node *n, const OpRow *row)
{
	int upper = (int)lower_int(c, n, "upper", 0);
	const char *info = NULL, *l;
	Mat a;
	DType t;

	(void)row;
	if (mat_of(c, n, "self", 1, &a))
		return DIAG_CONVERT;
	t = factor_dtype(c, n, a.v->dtype);
	if (a.n == 0) {
		lower_finish(c, n, 0, lower_value(c, a.v), a.v->dtype);
	} else {
		l = cholesky_lower(c, lower_operand(c, n, "self", t), t, a.nb, a.b, a.n, &info);
		lower_finish(c, n, 0, upper ? swap_last(c, l, a.nb) : l, t);
	}
	info_out(c, n, 1, info, a.nb, a.b);
	return 0;
}

/* Solves T X = B by substitution, T (batch + [n, n]) triangular (upper or
 * lower; only that triangle is read, and not its diagonal when unit), B
 * batch + [n, m], both already broadcast to the same batch. */
static const char *
substitute(LowerCtx *c, const char *tri, const char *b, DType t, int64_t n, int upper, int unit)
{
	const char *x = NULL;

	tri = triangle(c, tri, upper, 0);
	for (int64_t s = 0; s < n; s++) {
		int64_t i = upper ? n - 1 - s : s;
		const char *rowi = slice1(c, tri, -2, i);   /* batch + [1, n] */
		const char *xi = slice1(c, b, -2, i);      /* batch + [1, m] */
		if (x)
			xi = lower_op(c, "Sub", NULL, 2, xi, lower_op(c, "MatMul", NULL, 2, rowi, x));
		if (!unit)
			xi = lower_op(c, "Div", NULL, 2, xi, slice1(c, rowi, -1, i));
		xi = lower_op(c, "Mul", NULL, 2, grid(c, t, n, 1, g_row_is, i), xi);
		x = x ? lower_op(c, "Add", NULL, 2, x, xi) : xi;
	}
	return x;
}

/* Broadcasts the triangular matrix a and the right side b (matrices, dtype
 * t) to one batch and solves a X = b (left) or X a = b. */
static const char *
solve_tri(LowerCtx *c, const Node *n, const Mat *am, const char *a, const Mat *bm, const char *b, DType t,
          int upper, int left, int unit, int *nb, int64_t *batch)
{
	int64_t rows = left ? bm->n : bm->k, cols = left ? bm->k : bm->n;
	const char *x;

	if (rows != am->n) {
		lower_fail(c, n, "the right side has %lld rows to solve, the matrix is %lldx%lld", (long long)rows,
		           (long long)am->n, (long long)am->n);
		return NULL;
	}
	if (batch_broadcast(c, n, am, bm, nb, batch))
		return NULL;
	if (!left) {
		/* X A = B: A^T X^T = B^T, the other triangle */
		a = swap_last(c, a, am->nb);
		b = swap_last(c, b, bm->nb);
		upper = !upper;
	}
	if (am->n == 0 || cols == 0)
		x = lower_op(c, "Expand", NULL, 2, b, shape_of(c, *nb, batch, rows, cols));
	else
		x = substitute(c, lower_op(c, "Expand", NULL, 2, a, shape_of(c, *nb, batch, am->n, am->n)),
		               lower_op(c, "Expand", NULL, 2, b, shape_of(c, *nb, batch, rows, cols)), t, am->n,
		               upper, unit);
	return left ? x : swap_last(c, x, *nb);
}

/* linalg_solve_triangular(self=A, B, upper, left=True, unitriangular=False);
 * triangular_solve(self=b, A, upper=True, transpose=False,
 * unitriangular=False) -> (solution, cloned_coefficient) */
int
lower_solve_triangular(LowerCtx *c, const Node *n, const OpRow *row)
{
	int linalg = lower_arg(n, "B") != NULL, nb;
	const char *an = linalg ? "self" : "A", *bn = linalg ? "B" : "self";
	int upper = (int)lower_int(c, n, "upper", linalg ? 0 : 1);
	int left = linalg ? (int)lower_int(c, n, "left", 1) : 1;
	int unit = (int)lower_int(c, n, "unitriangular", 0);
	int64_t batch[MAX_RANK];
	Mat a, b;
	const char *av, *x;
	DType t;

	(void)row;
	if (mat_of(c, n, an, 1, &a) || mat_of(c, n, bn, 0, &b))
		return DIAG_CONVERT;
	t = factor_dtype(c, n, a.v->dtype);
	av = lower_operand(c, n, an, t);
	if (!linalg && lower_int(c, n, "transpose", 0)) {
		av = swap_last(c, av, a.nb);
		upper = !upper;
	}
	x = solve_tri(c, n, &a, av, &b, lower_operand(c, n, bn, t), t, upper, left, unit, &nb, batch);
	if (!x)
		return DIAG_CONVERT;
	lower_finish(c, n, 0, x, t);
	if (!linalg && lower_nout(n) > 1 && lower_out_used(c, n, 1))
		lower_finish(c, n, 1, lower_op(c, "Identity", NULL, 1, lower_value(c, a.v)), a.v->dtype);
	return 0;
}

/* cholesky_solve(self=B, input2=L, upper=False): A X = B with A = L L^T
 * (upper: U^T U), two substitutions; cholesky_inverse(self=L, upper=False):
 * the same with B = I. */
int
lower_cholesky_solve(LowerCtx *c, const Node *n, const OpRow *row)
{
	int inverse = lower_arg(n, "input2") == NULL, upper = (int)lower_int(c, n, "upper", 0), nb, nb2;
	const char *ln = inverse ? "self" : "input2", *lv, *b, *y, *x, *lt;
	int64_t batch[MAX_RANK], batch2[MAX_RANK];
	Mat l, bm;
	DType t;

	(void)row;
	if (mat_of(c, n, ln, 1, &l))
		return DIAG_CONVERT;
	t = factor_dtype(c, n, l.v->dtype);
	lv = lower_operand(c, n, ln, t);
	if (inverse) {
		bm = l;
		b = lower_op(c, "Expand", NULL, 2, grid(c, t, l.n, l.n, g_eye, 0), shape_of(c, l.nb, l.b, l.n, l.n));
	} else {
		if (mat_of(c, n, "self", 0, &bm))
			return DIAG_CONVERT;
		b = lower_operand(c, n, "self", t);
	}
	/* A = F^T F with F upper, or F F^T with F lower: first the lower one */
	lt = swap_last(c, lv, l.nb);
	y = solve_tri(c, n, &l, upper ? lt : lv, &bm, b, t, 0, 1, 0, &nb, batch);
	if (!y)
		return DIAG_CONVERT;
	Mat ym = bm;
	ym.nb = nb;
	memcpy(ym.b, batch, sizeof batch);
	x = solve_tri(c, n, &l, upper ? lv : lt, &ym, y, t, 1, 1, 0, &nb2, batch2);
	if (!x)
		return DIAG_CONVERT;
	lower_finish(c, n, 0, x, t);
	return 0;
}

/* with_effects(token, op, args...) -> (token, result): a side-effecting op
 * torch threads an effect token through.  The one this family meets is
 * _linalg_check_errors(info, api_name, is_matrix), which core ATen puts
 * after linalg_inv_ex, _linalg_solve_ex and linalg_cholesky_ex to raise on
 * a singular or non-positive-definite input: dropped (the result then holds
 * the infinities or NaN factor.def describes), or with keep_assertions a
 * run-time check that every info is 0.  Any other effect op is refused. */
int
lower_with_effects(LowerCtx *c, const Node *n, const OpRow *row)
{
	static const char check[] = "torch.ops.aten._linalg_check_errors.default";
	const Arg *op = n->nin > 1 ? &n->in[1].arg : NULL;
	const Value *info = n->nin > 2 && n->in[2].arg.kind == ARG_TENSOR ? n->in[2].arg.u.v : NULL;

	(void)row;
	if (!op || op->kind != ARG_OPERATOR || strcmp(op->u.s, check) != 0 || !info)
		return lower_fail(c, n, "the effect op %s has no ONNX form (only %s)",
		                  op && op->kind == ARG_OPERATOR ? op->u.s : "(none)", check);
	/* the token goes on to the next effect (the name of the token it read:
	 * tokens have no ONNX value, and only with_effects reads one) */
	if (n->in[0].arg.kind == ARG_TENSOR && lower_nout(n) > 0 && lower_out_used(c, n, 0))
		lower_bind(c, n, 0, lower_value(c, n->in[0].arg.u.v));
	for (int k = 1; k < lower_nout(n); k++)
		if (lower_out_used(c, n, k))
			return lower_fail(c, n, "its result %d is used (_linalg_check_errors returns nothing)", k);
	if (c->opt->keep_assertions) {
		const char *ok = lower_op(c, "Equal", NULL, 2, lower_cast(c, lower_value(c, info), info->dtype, DT_INT64),
		                          lower_i64(c, 0));
		ok = lower_reduce(c, "ReduceMin", lower_cast(c, ok, DT_BOOL, DT_INT32), 0, NULL, 0, NULL);
		lower_assert(c, lower_cast(c, ok, DT_INT32, DT_BOOL),
		             arena_printf(c->a, "%s: %s (info is not 0: a singular or not positive-definite matrix)",
		                          n->name, check));
	}
	return 0;
}

/* ---- LU with partial pivoting (LAPACK's getrf) ---- */

/* The k per-step values (each batch + [1, 1]) as one vector, batch + [k];
 * for k = 0 an empty one of fill's dtype. */
static const char *
step_vector(LowerCtx *c, const char **steps, int64_t k, const char *fill, int nb, const int64_t *batch)
{
	const char *v;

	if (k == 0) {
		v = lower_op(c, "Expand", NULL, 2, fill, shape_of(c, nb, batch, 1, 0));
	} else if (k == 1) {
		v = steps[0];
	} else {
		v = lower_emit(c, "Concat", (int)k, steps, 1, (const char *[]){lower_tmp(c)})->output[0];
		onnx_attr_int(c->a, c->last, "axis", -1);
	}
	return lower_squeeze(c, v, 1, (const int64_t[]){nb}, NULL);
}

/* The LU factorization of a (batch + [m, n], dtype t), LAPACK's layout:
 * returns the m x n matrix holding U on and above the diagonal and L's
 * multipliers below it (L's unit diagonal implied); *piv gets the 1-based
 * rows swapped at each of the min(m, n) steps (int64, batch + [k]), *info
 * the first step whose pivot is exactly zero. */
static const char *
lu_factor(LowerCtx *c, const char *a, DType t, int nb, const int64_t *batch, int64_t m, int64_t n,
          const char **piv, const char **info)
{
	int64_t k = m < n ? m : n;
	const char *full = shape_of(c, nb, batch, m, n), *idx = grid(c, DT_INT64, m, 1, g_row_index, 0);
	const char **steps = ARENA_ARRAY(c->a, const char *, k > 0 ? k : 1);

	for (int64_t j = 0; j < k; j++) {
		const char *isj = grid(c, DT_BOOL, m, 1, g_row_is, j);
		const char *col = slice1(c, a, -1, j);
		const char *mag = lower_op(c, "Where", NULL, 3, grid(c, DT_BOOL, m, 1, g_row_from, j),
		                           lower_op(c, "Abs", NULL, 1, col), lower_scalar(c, t, -1));
		const char *p = lower_op(c, "ArgMax", NULL, 1, mag);
		onnx_attr_int(c->a, c->last, "axis", -2);
		onnx_attr_int(c->a, c->last, "keepdims", 1);
		steps[j] = lower_op(c, "Add", NULL, 2, p, lower_i64(c, 1));
		const char *perm = lower_op(c, "Where", NULL, 3, isj, p,
		                            lower_op(c, "Where", NULL, 3, lower_op(c, "Equal", NULL, 2, idx, p),
		                                     lower_i64(c, j), idx));
		a = lower_op(c, "GatherElements", NULL, 2, a, lower_op(c, "Expand", NULL, 2, perm, full));
		onnx_attr_int(c->a, c->last, "axis", -2);
		const char *r = slice1(c, a, -2, j);          /* the pivot row */
		const char *pv = slice1(c, r, -1, j);
		const char *zero = lower_op(c, "Equal", NULL, 2, pv, lower_scalar(c, t, 0));
		info_step(c, info, zero, j);
		/* a zero pivot has a zero column below it (it is the largest): LAPACK
		 * then leaves the multipliers 0, as dividing by 1 does */
		pv = lower_op(c, "Where", NULL, 3, zero, lower_scalar(c, t, 1), pv);
		/* multipliers below the pivot, in column j; the rest of their rows updated */
		const char *below = grid(c, t, m, 1, g_row_from, j + 1);
		const char *f = lower_op(c, "Mul", NULL, 2, lower_op(c, "Div", NULL, 2, slice1(c, a, -1, j), pv), below);
		const char *right = grid(c, t, 1, n, g_col_from, j + 1);
		a = lower_op(c, "Sub", NULL, 2, a, lower_op(c, "Mul", NULL, 2, f, lower_op(c, "Mul", NULL, 2, r, right)));
		const char *colj = grid(c, t, 1, n, g_col_is, j);
		a = lower_op(c, "Add", NULL, 2, lower_op(c, "Mul", NULL, 2, a,
		                                         lower_op(c, "Sub", NULL, 2, lower_scalar(c, t, 1),
		                                                  lower_op(c, "Mul", NULL, 2, below, colj))),
		             lower_op(c, "Mul", NULL, 2, f, colj));
	}
	*piv = step_vector(c, steps, k, lower_i64(c, 1), nb, batch);
	return a;
}

/* A 1-D int64 constant 0, 1, ..., m - 1. */
static const char *
iota(LowerCtx *c, int64_t m)
{
	int64_t *v = ARENA_ARRAY(c->a, int64_t, m > 0 ? m : 1);

	for (int64_t i = 0; i < m; i++)
		v[i] = i;
	return lower_i64s(c, (int)m, v);
}

/* The row order pivots give (int64, batch + [k], 1-based, LAPACK's swaps
 * in order) over m rows: perm (batch + [m]) with A[perm] = L U. */
static const char *
lu_perm(LowerCtx *c, const char *piv, int nb, const int64_t *batch, int64_t m, int64_t k)
{
	const char *idx = iota(c, m);
	const char *perm;
	int64_t s[MAX_RANK + 1];

	memcpy(s, batch, (size_t)nb * sizeof *s);
	s[nb] = m;
	perm = lower_op(c, "Expand", NULL, 2, idx, lower_i64s(c, nb + 1, s));
	for (int64_t j = 0; j < k; j++) {
		const char *p = lower_op(c, "Sub", NULL, 2, slice1(c, piv, -1, j), lower_i64(c, 1));
		const char *pj = slice1(c, perm, -1, j);
		const char *pp = lower_op(c, "GatherElements", NULL, 2, perm, p);
		onnx_attr_int(c->a, c->last, "axis", -1);
		const char *isj = lower_op(c, "Equal", NULL, 2, idx, lower_i64(c, j));
		perm = lower_op(c, "Where", NULL, 3, isj, pp,
		                lower_op(c, "Where", NULL, 3, lower_op(c, "Equal", NULL, 2, idx, p), pj, perm));
	}
	return perm;
}

/* The permutation matrix P (batch + [m, m], dtype t) with A = P L U:
 * P[r, i] = (perm[i] == r). */
static const char *
lu_pmat(LowerCtx *c, const char *perm, int nb, DType t, int64_t m)
{
	const char *row = lower_unsqueeze(c, perm, 1, (const int64_t[]){nb}, NULL);
	const char *eq = lower_op(c, "Equal", NULL, 2, row, grid(c, DT_INT64, m, 1, g_row_index, 0));

	return lower_cast(c, eq, DT_BOOL, t);
}

/* Binds P, L and U (outputs k0, k0 + 1, k0 + 2) from LU (batch + [m, n]) and
 * perm: L = the multipliers below the diagonal plus I (m x min(m, n)), U =
 * the upper triangle (min(m, n) x n). */
static void
lu_unpacked(LowerCtx *c, const Node *n, int k0, const char *lu, const char *perm, DType t, int nb, const int64_t *batch,
            int64_t m, int64_t cols)
{
	int64_t k = m < cols ? m : cols;

	if (lower_out_used(c, n, k0))
		lower_finish(c, n, k0, lu_pmat(c, perm, nb, t, m), t);
	if (lower_out_used(c, n, k0 + 1)) {
		const char *l = lower_op(c, "Add", NULL, 2, triangle(c, slice_range(c, lu, -1, 0, k), 0, -1),
		                         grid(c, t, m, k, g_eye, 0));
		lower_finish(c, n, k0 + 1, l, t);
	}
	if (lower_out_used(c, n, k0 + 2)) {
		lower_finish(c, n, k0 + 2, triangle(c, slice_range(c, lu, -2, 0, k), 1, 0), t);
	}
	(void)batch;
}

/* linalg_lu_factor(A, pivot=True) -> (LU, pivots); linalg_lu_factor_ex(A,
 * pivot, check_errors) and _lu_with_info(self, pivot, check_errors) ->
 * (LU, pivots, info); linalg_lu(A, pivot=True) -> (P, L, U). */
int
lower_lu(LowerCtx *c, const Node *n, const OpRow *row)
{
	const char *name = lower_arg(n, "A") ? "A" : "self", *piv, *info = NULL, *lu;
	int unpack = lower_nout(n) == 3 && lower_out_value(n, 2) && lower_out_value(n, 2)->rank >= 2;
	Mat a;
	DType t;

	(void)row;
	if (mat_of(c, n, name, 0, &a))
		return DIAG_CONVERT;
	if (!lower_int(c, n, "pivot", 1))
		return lower_fail(c, n, "pivot=False (torch computes it on CUDA only)");
	t = factor_dtype(c, n, a.v->dtype);
	lu = lu_factor(c, lower_operand(c, n, name, t), t, a.nb, a.b, a.n, a.k, &piv, &info);
	if (unpack) {
		lu_unpacked(c, n, 0, lu, lu_perm(c, piv, a.nb, a.b, a.n, a.n < a.k ? a.n : a.k), t, a.nb, a.b, a.n, a.k);
		return 0;
	}
	lower_finish(c, n, 0, lu, t);
	if (lower_out_used(c, n, 1))
		lower_finish(c, n, 1, piv, DT_INT64);
	if (lower_nout(n) > 2)
		info_out(c, n, 2, info, a.nb, a.b);
	return 0;
}

/* lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True) ->
 * (P, L, U) */
int
lower_lu_unpack(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *pv = lower_tensor_arg(c, n, "LU_pivots");
	Mat a;
	DType t;

	(void)row;
	if (mat_of(c, n, "LU_data", 0, &a))
		return DIAG_CONVERT;
	if (!lower_int(c, n, "unpack_data", 1) || !lower_int(c, n, "unpack_pivots", 1))
		return lower_fail(c, n, "unpack_data or unpack_pivots False (empty outputs) is not lowered");
	t = factor_dtype(c, n, a.v->dtype);
	const char *piv = lower_cast(c, lower_value(c, pv), pv->dtype, DT_INT64);
	lu_unpacked(c, n, 0, lower_operand(c, n, "LU_data", t),
	            lu_perm(c, piv, a.nb, a.b, a.n, a.n < a.k ? a.n : a.k), t, a.nb, a.b, a.n, a.k);
	return 0;
}

/* linalg_lu_solve(LU, pivots, B, left=True, adjoint=False): A X = B (or
 * A^T X = B, or X A = B) with A = P L U from linalg_lu_factor;
 * lu_solve(self=B, LU_data, LU_pivots) the same. */
int
lower_lu_solve(LowerCtx *c, const Node *n, const OpRow *row)
{
	/* lu_solve(self=b, LU_data, LU_pivots) is the older spelling */
	int old = lower_arg(n, "LU") == NULL;
	const char *lun = old ? "LU_data" : "LU", *bn = old ? "self" : "B";
	const Value *pv = lower_tensor_arg(c, n, old ? "LU_pivots" : "pivots");
	int left = (int)lower_int(c, n, "left", 1), adjoint = (int)lower_int(c, n, "adjoint", 0), nb;
	int64_t batch[MAX_RANK];
	Mat a, b;
	const char *lu, *bx, *perm, *x;
	DType t;

	(void)row;
	if (mat_of(c, n, lun, 1, &a) || mat_of(c, n, bn, 0, &b))
		return DIAG_CONVERT;
	t = factor_dtype(c, n, a.v->dtype);
	lu = lower_operand(c, n, lun, t);
	bx = lower_operand(c, n, bn, t);
	if (!left) {
		/* X A = B: A^T X^T = B^T */
		int64_t tmp = b.n;
		bx = swap_last(c, bx, b.nb);
		b.n = b.k;
		b.k = tmp;
		adjoint = !adjoint;
	}
	if (b.n != a.n)
		return lower_fail(c, n, "'B' has %lld rows to solve, 'LU' is %lldx%lld", (long long)b.n, (long long)a.n,
		                  (long long)a.n);
	if (batch_broadcast(c, n, &a, &b, &nb, batch))
		return DIAG_CONVERT;
	if (a.n == 0 || b.k == 0) {
		x = lower_op(c, "Expand", NULL, 2, bx, shape_of(c, nb, batch, b.n, b.k));
	} else {
		int64_t ps[MAX_RANK + 1];
		memcpy(ps, batch, (size_t)nb * sizeof *ps);
		ps[nb] = a.n;
		lu = lower_op(c, "Expand", NULL, 2, lu, shape_of(c, nb, batch, a.n, a.n));
		bx = lower_op(c, "Expand", NULL, 2, bx, shape_of(c, nb, batch, b.n, b.k));
		perm = lu_perm(c, lower_op(c, "Expand", NULL, 2, lower_cast(c, lower_value(c, pv), pv->dtype, DT_INT64),
		                           lower_i64s(c, nb + 1, ps)),
		               nb, batch, a.n, a.n);
		if (!adjoint) {
			/* X = U^-1 L^-1 P^T B, P^T B = B[perm] */
			const char *pe = lower_op(c, "Expand", NULL, 2, lower_unsqueeze(c, perm, 1, (const int64_t[]){nb + 1}, NULL),
			                          shape_of(c, nb, batch, b.n, b.k));
			x = lower_op(c, "GatherElements", NULL, 2, bx, pe);
			onnx_attr_int(c->a, c->last, "axis", -2);
			x = substitute(c, lu, x, t, a.n, 0, 1);
			x = substitute(c, lu, x, t, a.n, 1, 0);
		} else {
			/* A^T = U^T L^T P^T: X = P L^-T U^-T B */
			const char *lut = swap_last(c, lu, nb);
			x = substitute(c, lut, bx, t, a.n, 0, 0);
			x = substitute(c, lut, x, t, a.n, 1, 1);
			x = lower_op(c, "MatMul", NULL, 2, lu_pmat(c, perm, nb, t, a.n), x);
		}
	}
	if (!left)
		x = swap_last(c, x, nb);
	lower_finish(c, n, 0, x, t);
	return 0;
}

/* ---- Householder QR (LAPACK's geqrf, orgqr, ormqr) ---- */

/* Reflector j of the factored a (batch + [m, n]): v (batch + [m, 1]), 0
 * above row j, 1 at row j, a's column j below it. */
static const char *
reflector(LowerCtx *c, const char *a, DType t, int64_t m, int64_t j)
{
	return lower_op(c, "Add", NULL, 2,
	                lower_op(c, "Mul", NULL, 2, slice1(c, a, -1, j), grid(c, t, m, 1, g_row_from, j + 1)),
	                grid(c, t, m, 1, g_row_is, j));
}

/* x - tau v (v^T x) (left) or x - tau (x v) v^T: H = I - tau v v^T applied
 * to x; tau is batch + [1, 1]. */
static const char *
apply_h(LowerCtx *c, const char *x, const char *v, const char *tau, int nb, int left)
{
	const char *vt = swap_last(c, v, nb), *tv = lower_op(c, "Mul", NULL, 2, tau, v);

	if (left)
		return lower_op(c, "Sub", NULL, 2, x,
		                lower_op(c, "MatMul", NULL, 2, tv, lower_op(c, "MatMul", NULL, 2, vt, x)));
	return lower_op(c, "Sub", NULL, 2, x, lower_op(c, "MatMul", NULL, 2, lower_op(c, "MatMul", NULL, 2, x, tv), vt));
}

/* The QR factorization of a (batch + [m, n]) in LAPACK's layout: R on and
 * above the diagonal, reflector j's tail below it; *tau gets the min(m, n)
 * scalars (batch + [k]).  Each step is dlarfg: beta = -sign(alpha) ||(alpha,
 * x)||, tau = (beta - alpha) / beta, v = x / (alpha - beta), except that a
 * zero x leaves the column as it is with tau 0. */
static const char *
qr_factor(LowerCtx *c, const char *a, DType t, int nb, const int64_t *batch, int64_t m, int64_t n, const char **tau)
{
	int64_t k = m < n ? m : n;
	const char **taus = ARENA_ARRAY(c->a, const char *, k > 0 ? k : 1);

	for (int64_t j = 0; j < k; j++) {
		const char *col = slice1(c, a, -1, j);                                  /* [m, 1] */
		const char *alpha = slice1(c, col, -2, j);                              /* [1, 1] */
		const char *x = lower_op(c, "Mul", NULL, 2, col, grid(c, t, m, 1, g_row_from, j + 1));
		const char *xn2 = lower_reduce(c, "ReduceSum", lower_op(c, "Mul", NULL, 2, x, x), 1,
		                               (const int64_t[]){-2}, 1, NULL);
		const char *norm = lower_op(c, "Sqrt", NULL, 1, lower_op(c, "Add", NULL, 2,
		                                                        lower_op(c, "Mul", NULL, 2, alpha, alpha), xn2));
		const char *neg = lower_op(c, "Less", NULL, 2, alpha, lower_scalar(c, t, 0));
		const char *beta = lower_op(c, "Where", NULL, 3, neg, norm, lower_op(c, "Neg", NULL, 1, norm));
		const char *zero = lower_op(c, "Equal", NULL, 2, xn2, lower_scalar(c, t, 0));
		const char *tj = lower_op(c, "Where", NULL, 3, zero, lower_scalar(c, t, 0),
		                          lower_op(c, "Div", NULL, 2, lower_op(c, "Sub", NULL, 2, beta, alpha), beta));
		const char *den = lower_op(c, "Where", NULL, 3, zero, lower_scalar(c, t, 1),
		                           lower_op(c, "Sub", NULL, 2, alpha, beta));
		const char *v = lower_op(c, "Add", NULL, 2, lower_op(c, "Div", NULL, 2, x, den), grid(c, t, m, 1, g_row_is, j));
		/* the columns right of j take H; column j becomes (.., beta, v's tail) */
		const char *right = lower_op(c, "Mul", NULL, 2, apply_h(c, a, v, tj, nb, 1), grid(c, t, 1, n, g_col_from, j + 1));
		const char *keep = lower_op(c, "Mul", NULL, 2, a, grid(c, t, 1, n, g_col_before, j));
		const char *top = lower_op(c, "Where", NULL, 3, grid(c, DT_BOOL, m, 1, g_row_is, j),
		                           lower_op(c, "Where", NULL, 3, zero, alpha, beta), v);
		top = lower_op(c, "Mul", NULL, 2, lower_op(c, "Add", NULL, 2, top,
		                                           lower_op(c, "Mul", NULL, 2, col, grid(c, t, m, 1, g_row_before, j))),
		               grid(c, t, 1, n, g_col_is, j));
		a = lower_op(c, "Add", NULL, 2, lower_op(c, "Add", NULL, 2, keep, right), top);
		taus[j] = tj;
	}
	*tau = step_vector(c, taus, k, lower_scalar(c, t, 0), nb, batch);
	return a;
}

/* Q's first `cols` columns (batch + [m, cols]) from k reflectors in a and
 * tau (batch + [k]): H_0 ... H_{k-1} applied to I's first columns. */
static const char *
qr_q(LowerCtx *c, const char *a, const char *tau, DType t, int nb, const int64_t *batch, int64_t m, int64_t k,
     int64_t cols)
{
	const char *q = lower_op(c, "Expand", NULL, 2, grid(c, t, m, cols, g_eye, 0), shape_of(c, nb, batch, m, cols));
	const char *tau2 = lower_unsqueeze(c, tau, 1, (const int64_t[]){nb}, NULL);     /* [1, k] */

	for (int64_t j = k - 1; j >= 0; j--)
		q = apply_h(c, q, reflector(c, a, t, m, j), slice1(c, tau2, -1, j), nb, 1);
	return q;
}

/* geqrf(self) -> (a, tau); linalg_qr(A, mode='reduced') -> (Q, R), mode
 * 'reduced' (Q m x k, R k x n) or 'complete' (Q m x m, R m x n). */
int
lower_qr(LowerCtx *c, const Node *n, const OpRow *row)
{
	const char *name = lower_arg(n, "A") ? "A" : "self", *mode = lower_str(c, n, "mode", "reduced"), *tau, *a;
	int geqrf = !lower_arg(n, "A");
	Mat m;
	DType t;

	(void)row;
	if (mat_of(c, n, name, 0, &m))
		return DIAG_CONVERT;
	t = factor_dtype(c, n, m.v->dtype);
	a = qr_factor(c, lower_operand(c, n, name, t), t, m.nb, m.b, m.n, m.k, &tau);
	if (geqrf) {
		lower_finish(c, n, 0, a, t);
		if (lower_out_used(c, n, 1))
			lower_finish(c, n, 1, tau, t);
		return 0;
	}
	int64_t k = m.n < m.k ? m.n : m.k;
	int complete = strcmp(mode, "complete") == 0;
	if (!complete && strcmp(mode, "reduced") != 0)
		return lower_fail(c, n, "mode '%s' (no Q) is not lowered: 'reduced' and 'complete' are", mode);
	if (lower_out_used(c, n, 0))
		lower_finish(c, n, 0, qr_q(c, a, tau, t, m.nb, m.b, m.n, k, complete ? m.n : k), t);
	if (lower_out_used(c, n, 1)) {
		lower_finish(c, n, 1, triangle(c, complete ? a : slice_range(c, a, -2, 0, k), 1, 0), t);
	}
	return 0;
}

/* linalg_householder_product(input, tau): the first n columns of H_0 ...
 * H_{k-1} (input m x n holds the reflectors, tau k of them). */
int
lower_householder_product(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *tv = lower_tensor_arg(c, n, "tau");
	Mat m;
	DType t;

	(void)row;
	if (mat_of(c, n, "input", 0, &m))
		return DIAG_CONVERT;
	if (tv->rank < 1 || !lower_static(tv) || tv->dims[tv->rank - 1].v > m.k)
		return lower_fail(c, n, "needs a static 'tau' of at most as many reflectors as 'input' has columns");
	t = factor_dtype(c, n, m.v->dtype);
	lower_finish(c, n, 0, qr_q(c, lower_operand(c, n, "input", t), lower_operand(c, n, "tau", t), t, m.nb, m.b, m.n,
	                           tv->dims[tv->rank - 1].v, m.k), t);
	return 0;
}

/* ormqr(self=reflectors m x k', input2=tau, input3=C, left=True,
 * transpose=False): op(Q) C or C op(Q), Q = H_0 ... H_{k-1} (m x m). */
int
lower_ormqr(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *tv = lower_tensor_arg(c, n, "input2");
	int left = (int)lower_int(c, n, "left", 1), tr = (int)lower_int(c, n, "transpose", 0);
	Mat a, cm;
	DType t;

	(void)row;
	if (mat_of(c, n, "self", 0, &a) || mat_of(c, n, "input3", 0, &cm))
		return DIAG_CONVERT;
	if (tv->rank < 1 || !lower_static(tv))
		return lower_fail(c, n, "needs a static 'input2' (tau)");
	int64_t k = tv->dims[tv->rank - 1].v;
	if (a.nb != cm.nb || memcmp(a.b, cm.b, (size_t)a.nb * sizeof a.b[0]) != 0)
		return lower_fail(c, n, "needs 'self' and 'input3' of the same batch dims");
	t = factor_dtype(c, n, a.v->dtype);
	const char *r = lower_operand(c, n, "self", t), *x = lower_operand(c, n, "input3", t);
	const char *tau2 = lower_unsqueeze(c, lower_operand(c, n, "input2", t), 1, (const int64_t[]){a.nb}, NULL);
	/* Q C applies H_{k-1} first; Q^T C, C Q apply H_0 first; C Q^T H_{k-1} */
	int forward = left ? tr : !tr;
	for (int64_t s = 0; s < k; s++) {
		int64_t j = forward ? s : k - 1 - s;
		x = apply_h(c, x, reflector(c, r, t, a.n, j), slice1(c, tau2, -1, j), a.nb, left);
	}
	lower_finish(c, n, 0, x, t);
	return 0;
}

/* ---- the matrix exponential ---- */

enum { EXP_SQUARINGS = 20, EXP_TERMS = 10 };

/* matrix_exp(self), linalg_matrix_exp(self) of float64 matrices: scaling
 * and squaring with a fixed scale:
 * B = A / 2^20, exp(B) by its Taylor series to the 10th term, squared 20
 * times.  For ||A|| up to about 2^16 the truncation stays below 1e-16 of
 * the result and the squarings grow the rounding error by at most 2^20
 * times float64's, far inside float32's resolution; a larger A's exponential
 * overflows anyway.  torch picks a Taylor degree and scale from the norm
 * at run time; in float64 the two agree to rounding, in float32 torch's own
 * rounding dominates (see the refusal). */
int
lower_matrix_exp(LowerCtx *c, const Node *n, const OpRow *row)
{
	Mat a;
	DType t;
	const char *b, *term, *sum;

	(void)row;
	if (mat_of(c, n, "self", 1, &a))
		return DIAG_CONVERT;
	t = factor_dtype(c, n, a.v->dtype);
	if (t != DT_FLOAT64)
		return lower_fail(c, n, "matrix_exp of %s: torch's own %s result carries the rounding of its "
		                  "algorithm (5e-2 off the exact value on an OpInfo sample of norm 27, where this "
		                  "float64 evaluation is exact to 1e-9), which no other evaluation reproduces: "
		                  "only float64 is lowered", dtype_name(a.v->dtype), dtype_name(a.v->dtype));
	if (a.n == 0) {
		lower_finish(c, n, 0, lower_value(c, a.v), a.v->dtype);
		return 0;
	}
	b = lower_op(c, "Mul", NULL, 2, lower_operand(c, n, "self", DT_FLOAT64),
	             lower_scalar(c, DT_FLOAT64, 1.0 / (double)(1 << EXP_SQUARINGS)));
	sum = lower_op(c, "Add", NULL, 2, grid(c, DT_FLOAT64, a.n, a.n, g_eye, 0), b);
	term = b;
	for (int k = 2; k <= EXP_TERMS; k++) {
		term = lower_op(c, "Mul", NULL, 2, lower_op(c, "MatMul", NULL, 2, term, b), lower_scalar(c, DT_FLOAT64, 1.0 / k));
		sum = lower_op(c, "Add", NULL, 2, sum, term);
	}
	for (int s = 0; s < EXP_SQUARINGS; s++)
		sum = lower_op(c, "MatMul", NULL, 2, sum, sum);
	lower_finish(c, n, 0, sum, DT_FLOAT64);
	return 0;
}
