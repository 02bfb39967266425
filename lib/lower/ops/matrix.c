/* matrix.c: lowerings of the matrix constructions (matrix.def).
 *
 * Index patterns that depend only on static sizes (tril_indices, the
 * diagonal masks, the rows of block_diag) are computed here and written as
 * constants; the values then go through Where, Pad, Gather, Reshape and
 * MatMul.  kron, block_diag, cartesian_prod, tensordot and diag need
 * static shapes, and say so otherwise. */
#include <string.h>

#include "lower/lower.h"

#define MAXR 16

static int
static_dims(const Value *v, int64_t *d)
{
	for (int i = 0; i < v->rank; i++) {
		if (v->dims[i].e)
			return 0;
		d[i] = v->dims[i].v;
	}
	return 1;
}

/* tril_indices / triu_indices(row, col, offset=0, dtype=long): the (row,
 * col) pairs of the lower (j - i <= offset) or upper (j - i >= offset)
 * triangle in row-major order, as a [2, N] constant. */
static int
tri_indices(LowerCtx *c, const Node *n, int upper)
{
	int64_t rows = lower_int(c, n, "row", 0), cols = lower_int(c, n, "col", 0), off = lower_int(c, n, "offset", 0);
	int64_t cnt = 0, dims[2], *buf;

	if (rows < 0 || cols < 0 || rows * cols > (1 << 20))
		return lower_fail(c, n, "row and col must be between 0 and 2^20 elements");
	for (int64_t i = 0; i < rows; i++)
		for (int64_t j = 0; j < cols; j++)
			cnt += upper ? j - i >= off : j - i <= off;
	buf = ARENA_ARRAY(c->a, int64_t, 2 * cnt + 1);
	for (int64_t i = 0, k = 0; i < rows; i++)
		for (int64_t j = 0; j < cols; j++)
			if (upper ? j - i >= off : j - i <= off) {
				buf[k] = i;
				buf[cnt + k++] = j;
			}
	dims[0] = 2;
	dims[1] = cnt;
	lower_finish(c, n, 0, lower_const(c, DT_INT64, 2, dims, buf), DT_INT64);
	return 0;
}

int lower_tril_indices(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return tri_indices(c, n, 0); }
int lower_triu_indices(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return tri_indices(c, n, 1); }

/* x [..., len] as the diagonal `off` of [..., m, m] matrices, m = len +
 * |off|, moved to dims d1 and d2 of the result (rank r). */
static const char *
embed(LowerCtx *c, const char *x, int xr, int64_t len, int64_t off, int64_t d1, int64_t d2, DType cdt)
{
	int64_t a = off < 0 ? -off : off, m = len + a, dims[2] = {m, m}, *pads, perm[MAXR];
	int r = xr + 1;
	uint8_t *mask = ARENA_ARRAY(c->a, uint8_t, m * m + 1);
	const char *xp = x;

	if (a) {
		pads = ARENA_ARRAY(c->a, int64_t, 2 * xr);
		memset(pads, 0, sizeof *pads * 2 * (size_t)xr);
		pads[2 * xr - 1] = a;
		xp = lower_op(c, "Pad", NULL, 2, x, lower_i64s(c, 2 * xr, pads));
	}
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < m; j++)
			mask[i * m + j] = j - i == off;
	xp = lower_unsqueeze(c, xp, 1, (int64_t[]){off >= 0 ? -1 : -2}, NULL);
	xp = lower_op(c, "Where", NULL, 3, lower_const(c, DT_BOOL, 2, dims, mask), xp, lower_scalar(c, cdt, 0));
	for (int p = 0, k = 0; p < r; p++)
		perm[p] = p == d1 ? r - 2 : p == d2 ? r - 1 : k++;
	return lower_perm(c, xp, r, perm, NULL);
}

/* diag_embed(self, offset=0, dim1=-2, dim2=-1) */
int
lower_diag_embed(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType cdt = lower_opmath_nobool(lower_out_dtype(n, 0));
	int r = sv->rank + 1;
	int64_t d1 = lower_axis(lower_int(c, n, "dim1", -2), r), d2 = lower_axis(lower_int(c, n, "dim2", -1), r);

	(void)row;
	if (sv->rank < 1 || sv->rank >= MAXR || sv->dims[sv->rank - 1].e || d1 == d2)
		return lower_fail(c, n, "needs a tensor of rank 1 to %d with a static last dim, and dim1 != dim2", MAXR - 1);
	lower_finish(c, n, 0, embed(c, lower_operand(c, n, "self", cdt), sv->rank, sv->dims[sv->rank - 1].v,
	                            lower_int(c, n, "offset", 0), d1, d2, cdt), cdt);
	return 0;
}

/* diag(self, diagonal=0): a 1-D self becomes the diagonal of a matrix, a
 * 2-D one gives its diagonal (gathered from the flattened matrix);
 * diagflat(self, offset=0): self flattened, then as diag of 1-D. */
static int
diag(LowerCtx *c, const Node *n, int flat)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType cdt = lower_opmath_nobool(lower_out_dtype(n, 0));
	int64_t off = lower_int(c, n, flat ? "offset" : "diagonal", 0), d[MAXR], numel = 1, minus1 = -1, len, *idx;
	const char *x = lower_operand(c, n, "self", cdt);

	if (sv->rank > MAXR || !static_dims(sv, d))
		return lower_fail(c, n, "needs static dims");
	for (int i = 0; i < sv->rank; i++)
		numel *= d[i];
	if (flat || sv->rank <= 1) {
		if (sv->rank != 1)
			x = lower_op(c, "Reshape", NULL, 2, x, lower_i64s(c, 1, &minus1));
		lower_finish(c, n, 0, embed(c, x, 1, numel, off, 0, 1, cdt), cdt);
		return 0;
	}
	if (sv->rank != 2)
		return lower_fail(c, n, "needs a 1-D or 2-D tensor");
	len = off >= 0 ? (d[1] - off < d[0] ? d[1] - off : d[0]) : (d[0] + off < d[1] ? d[0] + off : d[1]);
	if (len < 0)
		len = 0;
	idx = ARENA_ARRAY(c->a, int64_t, len + 1);
	for (int64_t k = 0; k < len; k++)
		idx[k] = (k + (off < 0 ? -off : 0)) * d[1] + k + (off > 0 ? off : 0);
	x = lower_op(c, "Reshape", NULL, 2, x, lower_i64s(c, 1, &minus1));
	lower_finish(c, n, 0, lower_op(c, "Gather", NULL, 2, x, lower_const(c, DT_INT64, 1, &len, idx)), cdt);
	return 0;
}

static const char *
flip(LowerCtx *c, const char *x, int64_t axis)
{
	int64_t st = -1, en = INT64_MIN, step = -1;

	return lower_op(c, "Slice", NULL, 5, x, lower_i64s(c, 1, &st), lower_i64s(c, 1, &en), lower_i64s(c, 1, &axis),
	                lower_i64s(c, 1, &step));
}

int lower_diag(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return diag(c, n, 0); }
int lower_diagflat(LowerCtx *c, const Node *n, const OpRow *row) { (void)row; return diag(c, n, 1); }

/* rot90(self, k=1, dims=[0, 1]): k mod 4 quarter turns from dims[0]
 * towards dims[1], torch's flips and transposes. */
int
lower_rot90(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	int64_t dims[2] = {0, 1}, k = lower_int(c, n, "k", 1), perm[MAXR];
	int nd = lower_ints(c, n, "dims", dims, 2);
	const char *x = lower_value(c, sv);

	(void)row;
	if (nd == 1 || sv->rank < 2 || sv->rank > MAXR)
		return lower_fail(c, n, "needs two dims of a tensor of rank 2 to %d", MAXR);
	dims[0] = lower_axis(dims[0], sv->rank);
	dims[1] = lower_axis(dims[1], sv->rank);
	k = ((k % 4) + 4) % 4;
	for (int i = 0; i < sv->rank; i++)
		perm[i] = i == dims[0] ? dims[1] : i == dims[1] ? dims[0] : i;
	if (k == 1)
		x = lower_perm(c, flip(c, x, dims[1]), sv->rank, perm, NULL);
	else if (k == 2)
		x = flip(c, flip(c, x, dims[0]), dims[1]);
	else if (k == 3)
		x = lower_perm(c, flip(c, x, dims[0]), sv->rank, perm, NULL);
	lower_finish_typed(c, n, 0, x, sv->dtype);
	return 0;
}

/* kron(self, other): a reshaped to [a0, 1, a1, 1, ...] times b reshaped
 * to [1, b0, 1, b1, ...] (ranks aligned by leading 1s), then merged. */
int
lower_kron(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *av = lower_tensor_arg(c, n, "self"), *bv = lower_tensor_arg(c, n, "other");
	DType cdt = lower_opmath_nobool(lower_out_dtype(n, 0));
	int64_t da[MAXR], db[MAXR], sa[2 * MAXR], sb[2 * MAXR], so[MAXR];
	int r = av->rank > bv->rank ? av->rank : bv->rank;
	const char *p;

	(void)row;
	if (r > MAXR || !static_dims(av, da) || !static_dims(bv, db))
		return lower_fail(c, n, "needs static dims");
	for (int i = 0; i < r; i++) {
		int64_t x = i < r - av->rank ? 1 : da[i - (r - av->rank)], y = i < r - bv->rank ? 1 : db[i - (r - bv->rank)];
		sa[2 * i] = x, sa[2 * i + 1] = 1;
		sb[2 * i] = 1, sb[2 * i + 1] = y;
		so[i] = x * y;
	}
	p = lower_op(c, "Mul", NULL, 2,
	             lower_op(c, "Reshape", NULL, 2, lower_operand(c, n, "self", cdt), lower_i64s(c, 2 * r, sa)),
	             lower_op(c, "Reshape", NULL, 2, lower_operand(c, n, "other", cdt), lower_i64s(c, 2 * r, sb)));
	lower_finish(c, n, 0, lower_op(c, "Reshape", NULL, 2, p, lower_i64s(c, r, so)), cdt);
	return 0;
}

/* The tensor list argument `tensors`, or NULL after a failure. */
static const Arg *
tensor_list(LowerCtx *c, const Node *n)
{
	const Arg *ts = lower_arg(n, "tensors");

	if (!ts || ts->kind != ARG_TENSORS || ts->n < 1) {
		lower_fail(c, n, "needs a list of tensors");
		return NULL;
	}
	return ts;
}

/* block_diag(tensors): each (0-d as 1 x 1, 1-D as one row) padded with
 * zeros left and right to the total width, the blocks stacked. */
int
lower_block_diag(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Arg *ts = tensor_list(c, n);
	DType cdt = lower_opmath_nobool(lower_out_dtype(n, 0));
	int64_t width = 0, left = 0;
	const char **parts;

	(void)row;
	if (!ts)
		return DIAG_CONVERT;
	parts = ARENA_ARRAY(c->a, const char *, ts->n);
	for (int i = 0; i < ts->n; i++) {
		const Value *v = ts->u.list[i].u.v;
		int64_t d[2];
		if (v->rank > 2 || !static_dims(v, d))
			return lower_fail(c, n, "needs tensors of rank 0 to 2 with static dims");
		width += v->rank == 0 ? 1 : d[v->rank - 1];
	}
	for (int i = 0; i < ts->n; i++) {
		const Value *v = ts->u.list[i].u.v;
		int64_t shape[2] = {v->rank == 2 ? v->dims[0].v : 1, v->rank == 0 ? 1 : v->dims[v->rank - 1].v}, pads[4];
		const char *x = lower_cast(c, lower_value(c, v), v->dtype, cdt);
		if (v->rank < 2)
			x = lower_op(c, "Reshape", NULL, 2, x, lower_i64s(c, 2, shape));
		pads[0] = pads[2] = 0;
		pads[1] = left;
		pads[3] = width - left - shape[1];
		parts[i] = lower_op(c, "Pad", NULL, 2, x, lower_i64s(c, 4, pads));
		left += shape[1];
	}
	{
		const char *out = lower_tmp(c);
		lower_emit(c, "Concat", ts->n, parts, 1, &out);
		onnx_attr_int(c->a, c->last, "axis", 0);
		lower_finish(c, n, 0, out, cdt);
	}
	return 0;
}

/* cartesian_prod(tensors): column i is tensor i laid along axis i of the
 * grid of all the sizes, expanded and flattened; one tensor is itself. */
int
lower_cartesian_prod(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Arg *ts = tensor_list(c, n);
	DType cdt = lower_opmath_nobool(lower_out_dtype(n, 0));
	int64_t grid[MAXR], shape[MAXR], col[2] = {-1, 1};
	const char **cols, *out;
	int k;

	(void)row;
	if (!ts)
		return DIAG_CONVERT;
	k = ts->n;
	if (k > MAXR)
		return lower_fail(c, n, "needs at most %d tensors", MAXR);
	for (int i = 0; i < k; i++) {
		const Value *v = ts->u.list[i].u.v;
		if (v->rank != 1 || v->dims[0].e)
			return lower_fail(c, n, "needs 1-D tensors of static size");
		grid[i] = v->dims[0].v;
	}
	if (k == 1) {
		const Value *v = ts->u.list[0].u.v;
		lower_finish(c, n, 0, lower_cast(c, lower_value(c, v), v->dtype, cdt), cdt);
		return 0;
	}
	cols = ARENA_ARRAY(c->a, const char *, k);
	for (int i = 0; i < k; i++) {
		const Value *v = ts->u.list[i].u.v;
		for (int j = 0; j < k; j++)
			shape[j] = j == i ? grid[i] : 1;
		cols[i] = lower_op(c, "Reshape", NULL, 2, lower_cast(c, lower_value(c, v), v->dtype, cdt), lower_i64s(c, k, shape));
		cols[i] = lower_op(c, "Expand", NULL, 2, cols[i], lower_i64s(c, k, grid));
		cols[i] = lower_op(c, "Reshape", NULL, 2, cols[i], lower_i64s(c, 2, col));
	}
	out = lower_tmp(c);
	lower_emit(c, "Concat", k, cols, 1, &out);
	onnx_attr_int(c->a, c->last, "axis", 1);
	lower_finish(c, n, 0, out, cdt);
	return 0;
}

/* tensordot(self, other, dims_self, dims_other): the contracted dims of a
 * moved last and those of b first, both flattened to matrices, MatMul. */
int
lower_tensordot(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *av = lower_tensor_arg(c, n, "self"), *bv = lower_tensor_arg(c, n, "other");
	DType cdt = lower_opmath_nobool(lower_out_dtype(n, 0));
	int64_t ca[MAXR], cb[MAXR], da[MAXR], db[MAXR], pa[MAXR], pb[MAXR], so[2 * MAXR], fa = 1, fb = 1, cc = 1, m[2];
	int ka = lower_ints(c, n, "dims_self", ca, MAXR), kb = lower_ints(c, n, "dims_other", cb, MAXR), ra = 0, rb = 0, ro = 0;
	int used_a[MAXR] = {0}, used_b[MAXR] = {0};
	const char *a, *b;

	(void)row;
	if (av->rank > MAXR || bv->rank > MAXR || !static_dims(av, da) || !static_dims(bv, db) || ka != kb || ka < 0)
		return lower_fail(c, n, "needs static dims and as many dims of self as of other");
	for (int i = 0; i < ka; i++) {
		ca[i] = lower_axis(ca[i], av->rank);
		cb[i] = lower_axis(cb[i], bv->rank);
		if (da[ca[i]] != db[cb[i]])
			return lower_fail(c, n, "contracted dims differ in size");
		used_a[ca[i]] = used_b[cb[i]] = 1;
		cc *= da[ca[i]];
	}
	for (int i = 0; i < av->rank; i++)
		if (!used_a[i]) {
			pa[ra++] = i;
			so[ro++] = da[i];
			fa *= da[i];
		}
	for (int i = 0; i < ka; i++)
		pa[ra++] = ca[i];
	for (int i = 0; i < ka; i++)
		pb[rb++] = cb[i];
	for (int i = 0; i < bv->rank; i++)
		if (!used_b[i]) {
			pb[rb++] = i;
			so[ro++] = db[i];
			fb *= db[i];
		}
	m[0] = fa, m[1] = cc;
	a = lower_op(c, "Reshape", NULL, 2, lower_perm(c, lower_operand(c, n, "self", cdt), av->rank, pa, NULL), lower_i64s(c, 2, m));
	m[0] = cc, m[1] = fb;
	b = lower_op(c, "Reshape", NULL, 2, lower_perm(c, lower_operand(c, n, "other", cdt), bv->rank, pb, NULL), lower_i64s(c, 2, m));
	lower_finish(c, n, 0, lower_op(c, "Reshape", NULL, 2, lower_op(c, "MatMul", NULL, 2, a, b), lower_i64s(c, ro, so)), cdt);
	return 0;
}

/* vander(x, N=None, increasing=False): columns x^0 .. x^(N-1) as the
 * running product torch's cumprod makes, reversed unless increasing. */
int
lower_vander(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "x");
	DType cdt = lower_opmath_nobool(lower_out_dtype(n, 0));
	int64_t cnt, one = 1;
	int inc = (int)lower_int(c, n, "increasing", 0);
	const char *x, **cols, *p, *out;

	(void)row;
	if (sv->rank != 1 || sv->dims[0].e)
		return lower_fail(c, n, "needs a 1-D tensor of static size");
	cnt = lower_int(c, n, "N", sv->dims[0].v);
	if (cnt < 1 || cnt > 1024)
		return lower_fail(c, n, "N=%lld is not in 1..1024", (long long)cnt);
	x = lower_unsqueeze(c, lower_operand(c, n, "x", cdt), 1, &one, NULL);
	cols = ARENA_ARRAY(c->a, const char *, cnt);
	p = lower_op(c, "Expand", NULL, 2, lower_scalar(c, cdt, 1), lower_op(c, "Shape", NULL, 1, x));
	for (int64_t i = 0; i < cnt; i++) {
		cols[inc ? i : cnt - 1 - i] = p;
		p = lower_op(c, "Mul", NULL, 2, p, x);
	}
	out = lower_tmp(c);
	lower_emit(c, "Concat", (int)cnt, cols, 1, &out);
	onnx_attr_int(c->a, c->last, "axis", 1);
	lower_finish(c, n, 0, out, cdt);
	return 0;
}

/* ---- determinants (ONNX Det, LU with partial pivoting like torch's) ---- */

/* Det of self in float32 or float64 (onnxruntime's Det kernel types). */
static const char *
det_of(LowerCtx *c, const Node *n, DType *cdt)
{
	const char *name = lower_arg(n, "A") ? "A" : "self";   /* linalg_* name it A */
	const Value *sv = lower_tensor_arg(c, n, name);

	*cdt = sv->dtype == DT_FLOAT64 ? DT_FLOAT64 : DT_FLOAT32;
	if (sv->rank < 2)
		lower_fail(c, n, "needs square matrices (rank 2 or more)");
	return lower_op(c, "Det", NULL, 1, lower_operand(c, n, name, *cdt));
}

/* The outputs past the ones ONNX gives (the LU factors and pivots of
 * _linalg_det / _linalg_slogdet) must be unused. */
static int
only_first(LowerCtx *c, const Node *n, int k)
{
	for (int i = k; i < lower_nout(n); i++)
		if (lower_out_used(c, n, i))
			return lower_fail(c, n, "its LU factors and pivots are used, which ONNX's Det does not give");
	return 0;
}

/* linalg_det(A), _linalg_det(A) -> (det, LU, pivots) */
int
lower_det(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt;
	const char *d = det_of(c, n, &cdt);

	(void)row;
	if (only_first(c, n, 1))
		return DIAG_CONVERT;
	lower_finish(c, n, 0, d, cdt);
	return 0;
}

/* logdet(self) = log(det): NaN for a negative determinant, -inf for 0 */
int
lower_logdet(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt;
	const char *d = det_of(c, n, &cdt);

	(void)row;
	lower_finish(c, n, 0, lower_op(c, "Log", NULL, 1, d), cdt);
	return 0;
}

/* linalg_slogdet(A) -> (sign, logabsdet), _linalg_slogdet(A) -> (sign,
 * logabsdet, LU, pivots) */
int
lower_slogdet(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt;
	const char *d = det_of(c, n, &cdt);

	(void)row;
	if (only_first(c, n, 2))
		return DIAG_CONVERT;
	lower_finish(c, n, 0, lower_op(c, "Sign", NULL, 1, d), cdt);
	lower_finish(c, n, 1, lower_op(c, "Log", NULL, 1, lower_op(c, "Abs", NULL, 1, d)), cdt);
	return 0;
}
