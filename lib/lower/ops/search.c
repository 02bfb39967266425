/* search.c: lowerings of order statistics, searches, histograms and running
 * extrema (search.def).
 *
 * Every lowering that works along one dim first rotates that dim to the
 * end (move_last), so that a keepdim=False result is in torch's order once
 * the last axis is squeezed and a keepdim=True one is rotated back.  NaN is
 * kept out of the ordering by sorting a key with NaN replaced, and values
 * are always gathered from the input at the index found, so a NaN that is
 * selected comes out as NaN.  The running extrema and logcumsumexp compare
 * each position with all of its prefix at once through a lower-triangular
 * L x L mask: O(L^2) memory along the dim, but no loop and exact ties. */
#include <math.h>
#include <string.h>

#include "lower/lower.h"

#define MAXR 16

/* x (rank `rank`) with dim moved last, the others keeping their order. */
static const char *
move_last(LowerCtx *c, const char *x, int rank, int64_t dim)
{
	int64_t perm[MAXR];
	int k = 0;

	for (int i = 0; i < rank; i++)
		if (i != dim)
			perm[k++] = i;
	perm[k] = dim;
	return lower_perm(c, x, rank, perm, NULL);
}

/* The inverse of move_last: the last dim back at dim. */
static const char *
move_back(LowerCtx *c, const char *x, int rank, int64_t dim)
{
	int64_t perm[MAXR];

	for (int i = 0; i < rank; i++)
		perm[i] = i < dim ? i : i == dim ? rank - 1 : i - 1;
	return lower_perm(c, x, rank, perm, NULL);
}

/* A keepdim result along the last axis back in torch's layout: rotated
 * back (keepdim) or with the last axis dropped. */
static const char *
finish_dim(LowerCtx *c, const char *x, int rank, int64_t dim, int keepdim)
{
	int64_t last = rank - 1;

	return keepdim ? move_back(c, x, rank, dim) : lower_squeeze(c, x, 1, &last, NULL);
}

/* The length of dim of v (whose ONNX value is x) as a 1-D int64 [1]. */
static const char *
dim_len(LowerCtx *c, const Value *v, int64_t dim, const char *x)
{
	if (!v->dims[dim].e)
		return lower_i64s(c, 1, &v->dims[dim].v);
	lower_op(c, "Shape", NULL, 1, x);
	onnx_attr_int(c->a, c->last, "start", dim);
	onnx_attr_int(c->a, c->last, "end", dim + 1);
	return c->last->output[0];
}

/* 0 .. L-1 as 1-D int64, len the 1-D [1] length (static: a constant). */
static const char *
arange(LowerCtx *c, const Value *v, int64_t dim, const char *len)
{
	if (!v->dims[dim].e && v->dims[dim].v <= 4096) {
		int64_t m = v->dims[dim].v, *r = ARENA_ARRAY(c->a, int64_t, m ? m : 1);
		for (int64_t i = 0; i < m; i++)
			r[i] = i;
		return lower_const(c, DT_INT64, 1, &m, r);
	}
	return lower_op(c, "Range", NULL, 3, lower_i64(c, 0), lower_squeeze(c, len, 0, NULL, NULL), lower_i64(c, 1));
}

/* The [L, L] bool mask M[i][j] = j <= i (position j is in the prefix of i). */
static const char *
prefix_mask(LowerCtx *c, const char *ar)
{
	int64_t zero = 0, one = 1;

	return lower_op(c, "LessOrEqual", NULL, 2, lower_unsqueeze(c, ar, 1, &zero, NULL),
	                lower_unsqueeze(c, ar, 1, &one, NULL));
}

/* The rank of argument name: a tensor's, 0 for a number. */
static int
arg_rank(const Node *n, const char *name)
{
	const Value *v = lower_arg_value(n, name);

	return v ? v->rank : 0;
}

static const char *
reduce_last(LowerCtx *c, const char *op, const char *x, int keepdims)
{
	int64_t last = -1;

	return lower_reduce(c, op, x, 1, &last, keepdims, NULL);
}

static const char *
unsq(LowerCtx *c, const char *x, int64_t axis)
{
	return lower_unsqueeze(c, x, 1, &axis, NULL);
}

/* The sort key of x: NaN replaced by +inf (ordered last), or x itself. */
static const char *
nan_key(LowerCtx *c, const char *x, const char *isn, DType cdt)
{
	return isn ? lower_op(c, "Where", NULL, 3, isn, lower_scalar(c, cdt, INFINITY), x) : x;
}

/* Ascending stable TopK of key along its last axis, k given as a 1-D [1]
 * name; returns the indices. */
static const char *
sort_indices(LowerCtx *c, const char *key, const char *k)
{
	const char *out[2] = {lower_tmp(c), lower_tmp(c)};
	OnnxNode *nd = lower_emit(c, "TopK", 2, (const char *[]){key, k}, 2, out);

	onnx_attr_int(c->a, nd, "axis", -1);
	onnx_attr_int(c->a, nd, "largest", 0);
	onnx_attr_int(c->a, nd, "sorted", 1);
	return out[1];
}

static const char *
gather_last(LowerCtx *c, const char *x, const char *idx)
{
	lower_op(c, "GatherElements", NULL, 2, x, idx);
	onnx_attr_int(c->a, c->last, "axis", -1);
	return c->last->output[0];
}

/* median / nanmedian (self) and .dim (self, dim, keepdim=False): the value
 * at sorted position (count - 1) / 2, count the slice's length (median) or
 * its non-NaN values (nanmedian); median returns the first NaN when the
 * slice has one. */
int
lower_median(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType cdt = lower_opmath_nobool(sv->dtype);
	int by_dim = lower_nout(n) == 2, flt = dtype_is_float(cdt), rank = sv->rank;
	int keep = (int)lower_int(c, n, "keepdim", 0);
	int64_t dim = lower_axis(lower_int(c, n, "dim", -1), rank), minus1 = -1;
	const char *x = lower_operand(c, n, "self", cdt), *len, *isn = NULL, *cnt, *md, *idx, *val;

	if (rank > MAXR)
		return lower_fail(c, n, "needs a tensor of rank %d or less", MAXR);
	if (!by_dim || rank == 0) {
		x = lower_op(c, "Reshape", NULL, 2, x, lower_i64s(c, 1, &minus1));
		len = lower_op(c, "Size", NULL, 1, x);
		len = unsq(c, len, 0);
		rank = 1;
		dim = 0;
	} else {
		len = dim_len(c, sv, dim, x);
		x = move_last(c, x, rank, dim);
	}
	if (flt)
		isn = lower_op(c, "IsNaN", NULL, 1, x);
	idx = sort_indices(c, nan_key(c, x, isn, cdt), len);
	/* the values counted: the non-NaN ones, all of them for integers */
	cnt = lower_cast(c, isn ? lower_op(c, "Not", NULL, 1, isn) : lower_op(c, "Equal", NULL, 2, x, x), DT_BOOL, DT_INT64);
	cnt = reduce_last(c, "ReduceSum", cnt, 1);
	md = lower_op(c, "Div", NULL, 2, lower_op(c, "Max", NULL, 2, lower_op(c, "Sub", NULL, 2, cnt, lower_i64(c, 1)),
	              lower_i64(c, 0)), lower_i64(c, 2));
	idx = gather_last(c, idx, md);
	if (flt && row->variant != OPV_NAN) {
		const char *first = lower_op(c, "ArgMax", NULL, 1, lower_cast(c, isn, DT_BOOL, DT_INT32));
		onnx_attr_int(c->a, c->last, "axis", -1);
		onnx_attr_int(c->a, c->last, "keepdims", 1);
		idx = lower_op(c, "Where", NULL, 3, lower_op(c, "Less", NULL, 2, cnt, len), first, idx);
	}
	val = gather_last(c, x, idx);
	if (!by_dim || sv->rank == 0) {
		lower_finish(c, n, 0, lower_squeeze(c, val, 0, NULL, NULL), cdt);
		if (by_dim)
			lower_finish(c, n, 1, lower_squeeze(c, idx, 0, NULL, NULL), DT_INT64);
		return 0;
	}
	lower_finish(c, n, 0, finish_dim(c, val, rank, dim, keep), cdt);
	lower_finish(c, n, 1, finish_dim(c, idx, rank, dim, keep), DT_INT64);
	return 0;
}

/* kthvalue(self, k, dim=-1, keepdim=False): the k-th smallest, NaN last. */
int
lower_kthvalue(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType cdt = lower_opmath_nobool(sv->dtype);
	int rank = sv->rank, keep = (int)lower_int(c, n, "keepdim", 0);
	int64_t dim = lower_axis(lower_int(c, n, "dim", -1), rank), k = lower_int(c, n, "k", 1), km1 = k - 1, last = -1;
	const char *x = lower_operand(c, n, "self", cdt), *idx, *val;

	(void)row;
	if (rank == 0) {
		if (k != 1)
			return lower_fail(c, n, "k=%lld is out of range for a 0-d tensor", (long long)k);
		lower_finish(c, n, 0, x, cdt);
		lower_finish(c, n, 1, lower_i64(c, 0), DT_INT64);
		return 0;
	}
	if (rank > MAXR)
		return lower_fail(c, n, "needs a tensor of rank %d or less", MAXR);
	if (k < 1 || (!sv->dims[dim].e && k > sv->dims[dim].v))
		return lower_fail(c, n, "k=%lld is out of range for dim %lld", (long long)k, (long long)dim);
	/* among equal values, the index torch returns is where its quickselect
	 * left one of them, which no sort reproduces: refused where ties are
	 * likely (integers, bools) and the indices are read */
	if (!dtype_is_float(sv->dtype) && lower_out_used(c, n, 1))
		return lower_fail(c, n, "kthvalue's indices over %s values: among equal values torch returns the one "
		                  "its selection algorithm leaves, which the converter does not reproduce", dtype_name(sv->dtype));
	x = move_last(c, x, rank, dim);
	idx = sort_indices(c, nan_key(c, x, dtype_is_float(cdt) ? lower_op(c, "IsNaN", NULL, 1, x) : NULL, cdt),
	                   lower_i64s(c, 1, &k));
	idx = lower_op(c, "Slice", NULL, 4, idx, lower_i64s(c, 1, &km1), lower_i64s(c, 1, &k), lower_i64s(c, 1, &last));
	val = gather_last(c, x, idx);
	lower_finish(c, n, 0, finish_dim(c, val, rank, dim, keep), cdt);
	lower_finish(c, n, 1, finish_dim(c, idx, rank, dim, keep), DT_INT64);
	return 0;
}

/* mode(self, dim=-1, keepdim=False): each value's count is its row of an
 * L x L equality matrix summed; among the most frequent values the
 * smallest, and the last index holding it. */
int
lower_mode(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType cdt = lower_opmath_nobool(sv->dtype);
	int rank = sv->rank, keep = (int)lower_int(c, n, "keepdim", 0);
	int64_t dim = lower_axis(lower_int(c, n, "dim", -1), rank);
	const char *x = lower_operand(c, n, "self", cdt), *len, *ar, *cnt, *cand, *mv, *mi;

	(void)row;
	if (rank == 0) {
		lower_finish(c, n, 0, x, cdt);
		lower_finish(c, n, 1, lower_i64(c, 0), DT_INT64);
		return 0;
	}
	if (rank > MAXR)
		return lower_fail(c, n, "needs a tensor of rank %d or less", MAXR);
	len = dim_len(c, sv, dim, x);
	ar = arange(c, sv, dim, len);
	x = move_last(c, x, rank, dim);
	cnt = lower_op(c, "Equal", NULL, 2, unsq(c, x, -1), unsq(c, x, -2));
	cnt = reduce_last(c, "ReduceSum", lower_cast(c, cnt, DT_BOOL, DT_INT64), 0);
	cand = lower_op(c, "Equal", NULL, 2, cnt, reduce_last(c, "ReduceMax", cnt, 1));
	mv = reduce_last(c, "ReduceMin", lower_op(c, "Where", NULL, 3, cand, x, reduce_last(c, "ReduceMax", x, 1)), 1);
	mi = lower_op(c, "Where", NULL, 3, lower_op(c, "Equal", NULL, 2, x, mv), ar, lower_i64(c, -1));
	mi = reduce_last(c, "ReduceMax", mi, 1);
	lower_finish(c, n, 0, finish_dim(c, mv, rank, dim, keep), cdt);
	lower_finish(c, n, 1, finish_dim(c, mi, rank, dim, keep), DT_INT64);
	return 0;
}

/* The number of boundaries b (seq, already broadcastable against
 * x[..., None], the two of rank r together) that torch's binary search
 * passes: !(b >= x) for the left side, !(b > x) for the right one.  The
 * axis is r - 1, not -1: onnxruntime's reductions of an empty tensor keep
 * a negative axis. */
static const char *
count_below(LowerCtx *c, const char *seq, const char *x, int right, int r)
{
	const char *ge = lower_op(c, right ? "Greater" : "GreaterOrEqual", NULL, 2, seq, unsq(c, x, -1));
	int64_t last = r - 1;

	return lower_reduce(c, "ReduceSum", lower_cast(c, lower_op(c, "Not", NULL, 1, ge), DT_BOOL, DT_INT64),
	                    1, &last, 0, NULL);
}

/* bucketize(self, boundaries, out_int32=False, right=False), self a
 * tensor or a number; boundaries 1-D. */
int
lower_bucketize(LowerCtx *c, const Node *n, const OpRow *row)
{
	int sa, sb;
	DType da = lower_arg_dtype(n, "self", &sa), db = lower_arg_dtype(n, "boundaries", &sb);
	DType cdt = lower_opmath_nobool(lower_promote(da, sa, db, 0));
	const char *x = lower_operand(c, n, "self", cdt), *b = lower_operand(c, n, "boundaries", cdt);

	(void)row;
	if (!b)
		return lower_fail(c, n, "no tensor 'boundaries'");
	lower_finish(c, n, 0, count_below(c, b, x, (int)lower_int(c, n, "right", 0), arg_rank(n, "self") + 1), DT_INT64);
	return 0;
}

/* searchsorted(sorted_sequence, self, out_int32=False, right=False,
 * side=None, sorter=None): the sequence 1-D or with self's leading dims;
 * sorter (indices that sort it) is applied first. */
int
lower_searchsorted(LowerCtx *c, const Node *n, const OpRow *row)
{
	int sa;
	const Value *qv = lower_tensor_arg(c, n, "sorted_sequence");
	DType da = lower_arg_dtype(n, "self", &sa);
	DType cdt = lower_opmath_nobool(lower_promote(da, sa, qv->dtype, 0));
	const char *x = lower_operand(c, n, "self", cdt), *seq = lower_operand(c, n, "sorted_sequence", cdt);
	const char *side = lower_str(c, n, "side", NULL), *sorter = lower_operand(c, n, "sorter", DT_INT64);
	int right = (int)lower_int(c, n, "right", 0), r;

	(void)row;
	if (side && strcmp(side, "right") != 0 && strcmp(side, "left") != 0)
		return lower_fail(c, n, "side='%s' is not 'left' or 'right'", side);
	if (side && right && strcmp(side, "left") == 0)
		return lower_fail(c, n, "side='left' contradicts right=True");
	right |= side && strcmp(side, "right") == 0;
	if (sorter)
		seq = gather_last(c, seq, sorter);
	if (qv->rank > 1)
		seq = unsq(c, seq, -2);
	r = arg_rank(n, "self") + 1;
	lower_finish(c, n, 0, count_below(c, seq, x, right, qv->rank > 1 && qv->rank + 1 > r ? qv->rank + 1 : r), DT_INT64);
	return 0;
}

/* histc(self, bins=100, min=0, max=0): bins equal bins over [min, max]
 * (the data's range when min == max, as torch; widened by 1 each way when
 * that is empty);
 * bin (x - min) * bins / (max - min) truncated, x == max in the last bin,
 * values outside left out, computed in the input's dtype as torch does. */
int
lower_histc(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType cdt = lower_compute(sv->dtype);
	int64_t bins = lower_int(c, n, "bins", 100), minus1 = -1, bm1 = bins - 1;
	double lo = lower_float(c, n, "min", 0), hi = lower_float(c, n, "max", 0);
	const char *x = lower_operand(c, n, "self", cdt), *l, *h, *pos, *in, *hit, *ar;

	if (!dtype_is_float(cdt))
		return lower_fail(c, n, "needs a floating tensor (torch's histc has no %s kernel)", dtype_name(sv->dtype));
	if (bins <= 0 || lo > hi)
		return lower_fail(c, n, "needs bins > 0 and min <= max");
	x = lower_op(c, "Reshape", NULL, 2, x, lower_i64s(c, 1, &minus1));
	if (lo == hi) {
		const char *eq;
		l = lower_reduce(c, "ReduceMin", x, 0, NULL, 0, NULL);
		h = lower_reduce(c, "ReduceMax", x, 0, NULL, 0, NULL);
		eq = lower_op(c, "Equal", NULL, 2, l, h);
		l = lower_op(c, "Where", NULL, 3, eq, lower_op(c, "Sub", NULL, 2, l, lower_scalar(c, cdt, 1)), l);
		h = lower_op(c, "Where", NULL, 3, eq, lower_op(c, "Add", NULL, 2, h, lower_scalar(c, cdt, 1)), h);
	} else {
		l = lower_scalar(c, cdt, lo);
		h = lower_scalar(c, cdt, hi);
	}
	pos = lower_op(c, "Mul", NULL, 2, lower_op(c, "Sub", NULL, 2, x, l), lower_scalar(c, cdt, (double)bins));
	pos = lower_cast(c, lower_op(c, "Div", NULL, 2, pos, lower_op(c, "Sub", NULL, 2, h, l)), cdt, DT_INT64);
	pos = lower_op(c, "Where", NULL, 3, lower_op(c, "Equal", NULL, 2, pos, lower_i64(c, bins)), lower_i64(c, bm1), pos);
	in = lower_op(c, "And", NULL, 2, lower_op(c, "GreaterOrEqual", NULL, 2, x, l), lower_op(c, "LessOrEqual", NULL, 2, x, h));
	{
		int64_t *r = ARENA_ARRAY(c->a, int64_t, bins);
		for (int64_t i = 0; i < bins; i++)
			r[i] = i;
		ar = lower_const(c, DT_INT64, 1, &bins, r);
	}
	hit = lower_op(c, "And", NULL, 2, lower_op(c, "Equal", NULL, 2, unsq(c, pos, -1), ar), unsq(c, in, -1));
	(void)row;
	lower_finish(c, n, 0, lower_reduce(c, "ReduceSum", lower_cast(c, hit, DT_BOOL, cdt), 1, (int64_t[]){0}, 0, NULL), cdt);
	return 0;
}

/* cummax / cummin(self, dim): the extremum of each prefix and the last
 * index holding it; a NaN in the prefix makes the value NaN and the index
 * that of the prefix's last NaN (torch's "isnan(x) || x >= best"). */
int
lower_cumext(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType cdt = lower_opmath_nobool(sv->dtype);
	int rank = sv->rank, flt = dtype_is_float(cdt);
	int64_t dim = lower_axis(lower_int(c, n, "dim", 0), rank), zero = 0, one = 1, last = -1;
	const char *x = lower_operand(c, n, "self", cdt), *len, *ar, *m, *key, *isn = NULL, *masked, *vals, *idx;
	const char *minus1 = lower_i64(c, -1);

	if (rank == 0) {
		lower_finish(c, n, 0, x, cdt);
		lower_finish(c, n, 1, lower_i64(c, 0), DT_INT64);
		return 0;
	}
	if (rank > MAXR)
		return lower_fail(c, n, "needs a tensor of rank %d or less", MAXR);
	len = dim_len(c, sv, dim, x);
	ar = arange(c, sv, dim, len);
	m = prefix_mask(c, ar);
	x = move_last(c, x, rank, dim);
	key = x;
	if (flt) {
		isn = lower_op(c, "IsNaN", NULL, 1, x);
		key = lower_op(c, "Where", NULL, 3, isn, lower_scalar(c, cdt, 0), x);
	}
	/* outside the prefix: the slice's first value, which every prefix holds */
	masked = lower_op(c, "Where", NULL, 3, m, unsq(c, key, -2),
	                  unsq(c, lower_op(c, "Slice", NULL, 4, key, lower_i64s(c, 1, &zero), lower_i64s(c, 1, &one),
	                                   lower_i64s(c, 1, &last)), -1));
	vals = reduce_last(c, row->onnx, masked, 1);
	idx = lower_op(c, "And", NULL, 2, lower_op(c, "Equal", NULL, 2, masked, vals), m);
	idx = reduce_last(c, "ReduceMax", lower_op(c, "Where", NULL, 3, idx, ar, minus1), 0);
	vals = lower_squeeze(c, vals, 1, &last, NULL);
	if (flt) {
		const char *nanj = lower_op(c, "And", NULL, 2, unsq(c, isn, -2), m), *lastnan, *has;
		lastnan = reduce_last(c, "ReduceMax", lower_op(c, "Where", NULL, 3, nanj, ar, minus1), 0);
		has = lower_op(c, "GreaterOrEqual", NULL, 2, lastnan, lower_i64(c, 0));
		idx = lower_op(c, "Where", NULL, 3, has, lastnan, idx);
		vals = lower_op(c, "Where", NULL, 3, has, lower_scalar(c, cdt, NAN), vals);
	}
	lower_finish(c, n, 0, move_back(c, vals, rank, dim), cdt);
	lower_finish(c, n, 1, move_back(c, idx, rank, dim), DT_INT64);
	return 0;
}

/* logcumsumexp(self, dim): log sum exp over each prefix, shifted by the
 * prefix's own maximum (0 when that is infinite), so no term overflows
 * and the largest is exp(0). */
int
lower_logcumsumexp(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType cdt = lower_compute(lower_out_dtype(n, 0));
	int rank = sv->rank;
	int64_t dim = lower_axis(lower_int(c, n, "dim", 0), rank), last = -1;
	const char *x = lower_operand(c, n, "self", cdt), *len, *m, *masked, *mx, *s;

	if (!dtype_is_float(cdt))
		return lower_fail(c, n, "needs a floating tensor");
	if (rank == 0) {
		lower_finish(c, n, 0, x, cdt);
		return 0;
	}
	if (rank > MAXR)
		return lower_fail(c, n, "needs a tensor of rank %d or less", MAXR);
	len = dim_len(c, sv, dim, x);
	m = prefix_mask(c, arange(c, sv, dim, len));
	x = move_last(c, x, rank, dim);
	masked = lower_op(c, "Where", NULL, 3, m, unsq(c, x, -2), lower_scalar(c, cdt, -INFINITY));
	mx = reduce_last(c, "ReduceMax", masked, 1);
	mx = lower_op(c, "Where", NULL, 3, lower_op(c, "IsInf", NULL, 1, mx), lower_scalar(c, cdt, 0), mx);
	s = reduce_last(c, row->onnx, lower_op(c, "Exp", NULL, 1, lower_op(c, "Sub", NULL, 2, masked, mx)), 0);
	s = lower_op(c, "Add", NULL, 2, lower_op(c, "Log", NULL, 1, s), lower_squeeze(c, mx, 1, &last, NULL));
	lower_finish(c, n, 0, move_back(c, s, rank, dim), cdt);
	return 0;
}

/* aminmax(self, dim=None, keepdim=False) -> (min, max) */
int
lower_aminmax(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType cdt = lower_opmath_nobool(sv->dtype);
	const Arg *d = lower_arg(n, "dim");
	int64_t dim = 0;
	int k = d && d->kind != ARG_NONE, keep = (int)lower_int(c, n, "keepdim", 0);
	const char *x = lower_operand(c, n, "self", cdt);

	if (k)
		dim = lower_axis(lower_int(c, n, "dim", 0), sv->rank);
	if (sv->rank == 0)
		k = 0;
	lower_finish(c, n, 0, lower_reduce(c, row->onnx, x, k, &dim, keep, NULL), cdt);
	lower_finish(c, n, 1, lower_reduce(c, "ReduceMax", x, k, &dim, keep, NULL), cdt);
	return 0;
}

/* nanmean(self, dim=None, keepdim=False, dtype=None): the sum of the
 * non-NaN values over their count (torch's nansum / count). */
int
lower_nanmean(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType cdt = lower_compute(lower_out_dtype(n, 0));
	int64_t axes[MAXR];
	int k = lower_ints(c, n, "dim", axes, MAXR), keep = (int)lower_int(c, n, "keepdim", 0);
	const char *x = lower_operand(c, n, "self", cdt), *isn, *s, *cnt;

	if (!dtype_is_float(cdt))
		return lower_fail(c, n, "needs a floating tensor");
	if (k < 0 || sv->rank == 0)
		k = 0;
	isn = lower_op(c, "IsNaN", NULL, 1, x);
	s = lower_reduce(c, row->onnx, lower_op(c, "Where", NULL, 3, isn, lower_scalar(c, cdt, 0), x), k, axes, keep, NULL);
	cnt = lower_reduce(c, row->onnx, lower_cast(c, lower_op(c, "Not", NULL, 1, isn), DT_BOOL, cdt), k, axes, keep, NULL);
	lower_finish(c, n, 0, lower_op(c, "Div", NULL, 2, s, cnt), cdt);
	return 0;
}

/* quantile / nanquantile (self, q, dim=None, keepdim=False,
 * interpolation='linear'), q a number (.scalar) or a 0-d / 1-D tensor:
 * torch's quantile_compute on the slice sorted with NaN last: rank
 * q (count - 1), count the slice's length (quantile, where a NaN makes the
 * result NaN) or its non-NaN values (nanquantile, rank at least 0); lower,
 * higher and nearest (half to even) round the rank, linear and midpoint
 * lerp between its floor and ceiling as torch's lerp does. */
int
lower_quantile(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self"), *qv = lower_arg_value(n, "q");
	DType cdt = lower_compute(sv->dtype);
	const char *mode = lower_str(c, n, "interpolation", "linear");
	const Arg *d = lower_arg(n, "dim");
	int has_dim = d && d->kind != ARG_NONE, keep = (int)lower_int(c, n, "keepdim", 0), rank = sv->rank;
	int q1d = qv && qv->rank == 1, nan = row->variant == OPV_NAN;
	int64_t dim = 0, minus1 = -1, last;
	const char *x = lower_operand(c, n, "self", cdt), *q = lower_operand(c, n, "q", cdt), *len, *isn, *idx, *vals;
	const char *nn, *all, *cnt, *rk, *below, *above, *vb, *va, *w, *r;

	if (!dtype_is_float(cdt))
		return lower_fail(c, n, "needs a floating tensor");
	if (rank > MAXR || (qv && qv->rank > 1))
		return lower_fail(c, n, "needs a tensor of rank %d or less and a 0-d or 1-D q", MAXR);
	if (strcmp(mode, "linear") && strcmp(mode, "lower") && strcmp(mode, "higher") && strcmp(mode, "nearest") &&
	    strcmp(mode, "midpoint"))
		return lower_fail(c, n, "interpolation='%s' is not linear, lower, higher, nearest or midpoint", mode);
	if (!has_dim || rank == 0) {
		x = lower_op(c, "Reshape", NULL, 2, x, lower_i64s(c, 1, &minus1));
		len = unsq(c, lower_op(c, "Size", NULL, 1, x), 0);
		rank = 1;
	} else {
		dim = lower_axis(lower_int(c, n, "dim", 0), rank);
		len = dim_len(c, sv, dim, x);
		x = move_last(c, x, rank, dim);
	}
	isn = lower_op(c, "IsNaN", NULL, 1, x);
	idx = sort_indices(c, nan_key(c, x, isn, cdt), len);
	vals = gather_last(c, x, idx);                     /* sorted, NaN last */
	/* per-slice counts [..., 1]: the non-NaN values, and all of them */
	nn = reduce_last(c, "ReduceSum", lower_cast(c, lower_op(c, "Not", NULL, 1, isn), DT_BOOL, cdt), 1);
	all = reduce_last(c, "ReduceSum", lower_cast(c, lower_op(c, "Equal", NULL, 2, isn, isn), DT_BOOL, cdt), 1);
	cnt = nan ? nn : all;
	if (!q1d)
		q = lower_op(c, "Reshape", NULL, 2, q, lower_i64s(c, 1, (int64_t[]){1}));
	rk = lower_op(c, "Mul", NULL, 2, q, lower_op(c, "Sub", NULL, 2, cnt, lower_scalar(c, cdt, 1)));
	if (nan)
		rk = lower_op(c, "Max", NULL, 2, rk, lower_scalar(c, cdt, 0));
	if (!strcmp(mode, "lower"))
		rk = lower_op(c, "Floor", NULL, 1, rk);
	else if (!strcmp(mode, "higher"))
		rk = lower_op(c, "Ceil", NULL, 1, rk);
	else if (!strcmp(mode, "nearest"))
		rk = lower_op(c, "Round", NULL, 1, rk);
	/* rk >= 0 (q in [0, 1]), so the cast truncates to the floor */
	below = lower_cast(c, rk, cdt, DT_INT64);
	vb = gather_last(c, vals, below);
	r = vb;
	if (!strcmp(mode, "linear") || !strcmp(mode, "midpoint")) {
		above = lower_cast(c, lower_op(c, "Ceil", NULL, 1, rk), cdt, DT_INT64);
		va = gather_last(c, vals, above);
		w = !strcmp(mode, "midpoint") ? lower_scalar(c, cdt, 0.5)
		    : lower_op(c, "Sub", NULL, 2, rk, lower_cast(c, below, DT_INT64, cdt));
		{
			const char *diff = lower_op(c, "Sub", NULL, 2, va, vb);
			const char *lo = lower_op(c, "Add", NULL, 2, vb, lower_op(c, "Mul", NULL, 2, w, diff));
			const char *hi = lower_op(c, "Sub", NULL, 2, va, lower_op(c, "Mul", NULL, 2, diff,
			                          lower_op(c, "Sub", NULL, 2, lower_scalar(c, cdt, 1), w)));
			r = lower_op(c, "Where", NULL, 3, lower_op(c, "Less", NULL, 2, w, lower_scalar(c, cdt, 0.5)), lo, hi);
		}
	}
	if (!nan)
		r = lower_op(c, "Where", NULL, 3, lower_op(c, "Less", NULL, 2, nn, all), lower_scalar(c, cdt, NAN), r);
	/* r [..., Q]: q's dim first (1-D q) or dropped, then the kept dim */
	last = rank - 1;
	if (q1d) {
		int64_t perm[MAXR];
		perm[0] = rank - 1;
		for (int i = 1; i < rank; i++)
			perm[i] = i - 1;
		r = lower_perm(c, r, rank, perm, NULL);
	} else {
		r = lower_squeeze(c, r, 1, &last, NULL);
	}
	if (keep) {
		if (has_dim && sv->rank > 0) {
			int64_t at = dim + q1d;
			r = lower_unsqueeze(c, r, 1, &at, NULL);
		} else {
			int64_t shape[MAXR + 1];
			int k = 0;
			if (q1d)
				shape[k++] = -1;
			for (int i = 0; i < sv->rank; i++)
				shape[k++] = 1;
			r = lower_op(c, "Reshape", NULL, 2, r, lower_i64s(c, k, shape));
		}
	}
	lower_finish(c, n, 0, r, cdt);
	return 0;
}
