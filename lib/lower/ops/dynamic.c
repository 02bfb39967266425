/* dynamic.c: lowerings of the data-dependent rows (dynamic.def): masked
 * select and scatter, nonzero_static, unique and unique_consecutive.
 *
 * Their result sizes are unbacked symbols: the IR value's dims already name
 * them, and lower_out() gives the ONNX value those names.  The true
 * positions of a mask are NonZero's [rank, N] transposed to [N, rank], in
 * row-major order as torch counts them, which is the order GatherND reads
 * and ScatterND writes.  Unsupported inputs fail with what to change. */
#include <stdint.h>
#include <string.h>

#include "lower/lower.h"

#define MAXR 16

/* The true positions of the bool (or nonzero) tensor x: [N, rank] int64. */
static const char *
positions(LowerCtx *c, const char *x)
{
	static const int64_t t[2] = {1, 0};

	return lower_perm(c, lower_op(c, "NonZero", NULL, 1, x), 2, t, NULL);
}

/* The dim count (0-d int64 -> 1-D of one) of dim 0 of x. */
static const char *
dim0(LowerCtx *c, const char *x)
{
	const char *s = lower_op(c, "Shape", NULL, 1, x);

	return lower_op(c, "Slice", NULL, 3, s, lower_i64s(c, 1, (int64_t[]){0}), lower_i64s(c, 1, (int64_t[]){1}));
}

/* masked_select(self, mask): self and mask broadcast to one shape (ONNX
 * Expand broadcasts both ways), then the selected elements in row-major
 * order, 1-D. */
int
lower_masked_select(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self"), *mv = lower_tensor_arg(c, n, "mask");
	const char *x = lower_value(c, sv), *m = lower_cast(c, lower_value(c, mv), mv->dtype, DT_BOOL);

	if (sv->rank == 0 && mv->rank == 0)
		return lower_fail(c, n, "needs a self or mask of rank 1 or more (reshape 0-d ones to 1-D)");
	x = lower_op(c, "Expand", NULL, 2, x, lower_op(c, "Shape", NULL, 1, m));
	m = lower_op(c, "Expand", NULL, 2, m, lower_op(c, "Shape", NULL, 1, x));
	lower_op(c, row->onnx, lower_out(c, n, 0), 2, x, positions(c, m));
	return 0;
}

/* masked_scatter(self, mask, source): the true positions of mask (broadcast
 * to self's shape) take source's first elements, row-major. */
int
lower_masked_scatter(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self"), *mv = lower_tensor_arg(c, n, "mask");
	const Value *src = lower_tensor_arg(c, n, "source");
	const char *x = lower_value(c, sv), *m = lower_cast(c, lower_value(c, mv), mv->dtype, DT_BOOL);
	const char *idx, *upd;

	if (sv->rank == 0)
		return lower_fail(c, n, "needs a self of rank 1 or more (reshape a 0-d one to 1-D)");
	/* self and mask broadcast together (torch expands both; Expand's
	 * output is the broadcast of its input's shape and the one given) */
	x = lower_op(c, "Expand", NULL, 2, x, lower_op(c, "Shape", NULL, 1, m));
	m = lower_op(c, "Expand", NULL, 2, m, lower_op(c, "Shape", NULL, 1, x));
	idx = positions(c, m);
	upd = lower_op(c, "Reshape", NULL, 2, lower_cast(c, lower_value(c, src), src->dtype, sv->dtype),
	               lower_i64s(c, 1, (int64_t[]){-1}));
	upd = lower_op(c, "Slice", NULL, 3, upd, lower_i64s(c, 1, (int64_t[]){0}), dim0(c, idx));
	lower_op(c, row->onnx, lower_out(c, n, 0), 3, x, idx, upd);
	return 0;
}

/* nonzero_static(self, size, fill_value=-1): nonzero's [N, rank] cut or
 * padded with fill_value rows to exactly `size` rows. */
int
lower_nonzero_static(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	int64_t size = lower_int(c, n, "size", -1), fill = lower_int(c, n, "fill_value", -1);
	int64_t r = sv->rank, dims[2];
	const char *p, *pad, *in[2], *cat;

	(void)row;
	if (size < 0)
		return lower_fail(c, n, "needs a constant size >= 0");
	if (r == 0)
		return lower_fail(c, n, "needs a self of rank 1 or more (reshape a 0-d one to 1-D)");
	p = positions(c, lower_value(c, sv));
	dims[0] = size;
	dims[1] = r;
	{
		int64_t *v = ARENA_ARRAY(c->a, int64_t, size * r > 0 ? size * r : 1);
		for (int64_t i = 0; i < size * r; i++)
			v[i] = fill;
		pad = lower_const(c, DT_INT64, 2, dims, v);
	}
	in[0] = p;
	in[1] = pad;
	cat = lower_tmp(c);
	lower_emit(c, "Concat", 2, in, 1, &cat);
	onnx_attr_int(c->a, c->last, "axis", 0);
	lower_op(c, "Slice", lower_out(c, n, 0), 3, cat, lower_i64s(c, 1, (int64_t[]){0}),
	         lower_i64s(c, 1, (int64_t[]){size}));
	return 0;
}

/* The dtype Unique runs in for t (onnxruntime's kernel has float, double,
 * int8 and int64). */
static DType
unique_dtype(DType t)
{
	switch (t) {
	case DT_FLOAT32: case DT_FLOAT64: case DT_INT8: case DT_INT64: return t;
	case DT_FLOAT16: case DT_BFLOAT16: return DT_FLOAT32;
	default: return DT_INT64;
	}
}

/* _unique2(self, sorted=True, return_inverse=False, return_counts=False)
 * and unique_dim(self, dim, sorted=True, return_inverse=False,
 * return_counts=False) -> (values, inverse, counts): ONNX Unique, sorted
 * (see dynamic.def); _unique2's inverse has self's shape, unique_dim's is
 * 1-D over dim.  An output that was not asked for is an empty tensor in
 * torch, which nothing reads. */
int
lower_unique(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	const Arg *dim = lower_arg(n, "dim");
	int has_dim = dim && dim->kind != ARG_NONE;
	int64_t axis = has_dim ? lower_axis(lower_int(c, n, "dim", 0), sv->rank) : 0;
	int want[3] = {1, (int)lower_int(c, n, "return_inverse", 0), (int)lower_int(c, n, "return_counts", 0)};
	DType ut = unique_dtype(sv->dtype);
	const char *x = lower_cast(c, lower_value(c, sv), sv->dtype, ut), *outs[4];
	OnnxNode *u;

	if (has_dim && (axis < 0 || axis >= sv->rank))
		return lower_fail(c, n, "dim out of range");
	if (!has_dim && sv->rank == 0)
		x = lower_op(c, "Reshape", NULL, 2, x, lower_i64s(c, 1, (int64_t[]){1}));
	for (int k = 1; k < 3; k++)
		if (!want[k] && lower_out_used(c, n, k))
			return lower_fail(c, n, "output %d (an empty tensor: return_%s=False) is read", k,
			                  k == 1 ? "inverse" : "counts");
	outs[0] = lower_tmp(c);
	outs[1] = "";
	outs[2] = want[1] && lower_out_used(c, n, 1) ? lower_tmp(c) : "";
	outs[3] = want[2] && lower_out_used(c, n, 2) ? lower_tmp(c) : "";
	u = lower_emit(c, row->onnx, 1, &x, 4, outs);
	onnx_attr_int(c->a, u, "sorted", 1);
	if (has_dim)
		onnx_attr_int(c->a, u, "axis", axis);
	lower_finish(c, n, 0, outs[0], ut);
	if (*outs[2]) {
		const char *inv = outs[2];
		if (!has_dim)
			inv = lower_op(c, "Reshape", NULL, 2, inv, lower_shape(c, sv, lower_value(c, sv)));
		lower_finish(c, n, 1, inv, DT_INT64);
	}
	if (*outs[3])
		lower_finish(c, n, 2, outs[3], DT_INT64);
	return 0;
}

/* unique_consecutive(self, return_inverse=False, return_counts=False,
 * dim=None) -> (values, inverse, counts): runs of equal elements (dim None:
 * of the flattened self) or equal slices along dim (see dynamic.def). */
int
lower_unique_consecutive(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	const Arg *dim = lower_arg(n, "dim");
	int has_dim = dim && dim->kind != ARG_NONE, r = sv->rank;
	int64_t axis = has_dim ? lower_axis(lower_int(c, n, "dim", 0), r) : 0, perm[MAXR], rest[MAXR];
	int want[3] = {1, (int)lower_int(c, n, "return_inverse", 0), (int)lower_int(c, n, "return_counts", 0)};
	const char *x = lower_value(c, sv), *xt, *ne, *starts, *in[2], *len;
	static const int64_t zero = 0, one = 1, minus1 = -1, big = INT64_MAX;

	if (r > MAXR || (has_dim && (axis < 0 || axis >= r)))
		return lower_fail(c, n, "dim out of range");
	for (int k = 1; k < 3; k++)
		if (!want[k] && lower_out_used(c, n, k))
			return lower_fail(c, n, "output %d (an empty tensor: return_%s=False) is read", k,
			                  k == 1 ? "inverse" : "counts");
	if (!has_dim) {
		x = lower_op(c, "Reshape", NULL, 2, x, lower_i64s(c, 1, &minus1));
		xt = x;
	} else {
		perm[0] = axis;
		for (int i = 0, k = 1; i < r; i++)
			if (i != axis)
				perm[k++] = i;
		xt = lower_perm(c, x, r, perm, NULL);
	}
	/* ne[i]: slice i+1 differs from slice i (along the leading axis of xt) */
	ne = lower_op(c, "Equal", NULL, 2,
	              lower_op(c, "Slice", NULL, 3, xt, lower_i64s(c, 1, &one), lower_i64s(c, 1, &big)),
	              lower_op(c, "Slice", NULL, 3, xt, lower_i64s(c, 1, &zero), lower_i64s(c, 1, &minus1)));
	ne = lower_op(c, "Not", NULL, 1, ne);
	if (has_dim && r > 1) {
		for (int i = 1; i < r; i++)
			rest[i - 1] = i;
		ne = lower_reduce(c, "ReduceMax", lower_cast(c, ne, DT_BOOL, DT_INT32), r - 1, rest, 0, NULL);
		ne = lower_cast(c, ne, DT_INT32, DT_BOOL);
	}
	in[0] = lower_const(c, DT_BOOL, 1, &one, (const unsigned char[]){1});
	in[1] = ne;
	starts = lower_tmp(c);
	lower_emit(c, "Concat", 2, in, 1, &starts);
	onnx_attr_int(c->a, c->last, "axis", 0);
	lower_op(c, row->onnx, lower_out(c, n, 0), 2, has_dim ? lower_value(c, sv) : x, starts);
	onnx_attr_int(c->a, c->last, "axis", has_dim ? axis : 0);
	if (want[1] && lower_out_used(c, n, 1)) {
		const char *inv = lower_op(c, "CumSum", NULL, 2, lower_cast(c, starts, DT_BOOL, DT_INT64), lower_i64(c, 0));
		inv = lower_op(c, "Sub", NULL, 2, inv, lower_i64(c, 1));
		if (!has_dim)
			inv = lower_op(c, "Reshape", NULL, 2, inv, lower_shape(c, sv, lower_value(c, sv)));
		lower_finish(c, n, 1, inv, DT_INT64);
	}
	if (want[2] && lower_out_used(c, n, 2)) {
		const char *pos = lower_op(c, "Reshape", NULL, 2, lower_op(c, "NonZero", NULL, 1, starts),
		                           lower_i64s(c, 1, &minus1));
		len = dim0(c, starts);
		in[0] = lower_op(c, "Slice", NULL, 3, pos, lower_i64s(c, 1, &one), lower_i64s(c, 1, &big));
		in[1] = len;
		{
			const char *ends = lower_tmp(c);
			lower_emit(c, "Concat", 2, in, 1, &ends);
			onnx_attr_int(c->a, c->last, "axis", 0);
			lower_finish(c, n, 2, lower_op(c, "Sub", NULL, 2, ends, pos), DT_INT64);
		}
	}
	return 0;
}
