/* shape.c: lowerings of views, copies and layout ops (shape.def).
 *
 * Rows flagged OPF_VIEW run in two directions.  Forwards they compute the
 * view from `self`.  With c->update set they compute the opposite: the new
 * contents of `self` once the view's contents became c->update, e.g. the
 * inverse Transpose, a Reshape back, or a ScatterElements of a slice into
 * its base.  lower_out(c, n, 0) names the result either way. */
#include <stdint.h>
#include <string.h>

#include "lower.h"

#define MAXR 16

static int
same_shape(const Value *a, const Value *b)
{
	if (a->rank != b->rank)
		return 0;
	for (int i = 0; i < a->rank; i++) {
		if (!a->dims[i].e != !b->dims[i].e)
			return 0;
		if (a->dims[i].e ? !sym_equal(a->dims[i].e, b->dims[i].e) : a->dims[i].v != b->dims[i].v)
			return 0;
	}
	return 1;
}

static const char *
self_name(LowerCtx *c, const Node *n)
{
	return lower_input(c, n, "self");
}

/* Writes u (a view of shape vdims along dim, at positions pos[0..len))
 * into parent with ScatterElements; the result is n's output. */
static int
scatter_along(LowerCtx *c, const Node *n, const char *parent, const char *u,
              int rank, const int64_t *vdims, int64_t dim, int64_t len, const int64_t *pos)
{
	int64_t shape[MAXR];
	const char *idx;

	for (int i = 0; i < rank; i++)
		shape[i] = i == dim ? len : 1;
	idx = lower_op(c, "Reshape", NULL, 2, lower_i64s(c, (int)len, pos), lower_i64s(c, rank, shape));
	idx = lower_op(c, "Expand", NULL, 2, idx, lower_i64s(c, rank, vdims));
	lower_op(c, "ScatterElements", lower_out(c, n, 0), 3, parent, idx, u);
	onnx_attr_int(c->a, c->last, "axis", dim);
	return 0;
}

/* A view run backwards whose inverse is a Reshape to self's shape. */
static int
reshape_back(LowerCtx *c, const Node *n)
{
	const Value *sv = lower_arg_value(n, "self");

	lower_op(c, "Reshape", lower_out(c, n, 0), 2, c->update, lower_shape(c, sv, self_name(c, n)));
	return 0;
}

/* view(self, size), reshape(self, shape), _unsafe_view(self, size) */
int
lower_reshape(LowerCtx *c, const Node *n, const OpRow *row)
{
	const char *shape;

	if (c->update)
		return reshape_back(c, n);
	shape = lower_size_arg(c, n, lower_arg(n, "size") ? "size" : "shape");
	if (!shape)
		return lower_fail(c, n, "no target shape");
	lower_op(c, row->onnx, lower_out(c, n, 0), 2, self_name(c, n), shape);
	return 0;
}

/* flatten.using_ints(self, start_dim=0, end_dim=-1) */
int
lower_flatten(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self"), *ov = lower_out_value(n, 0);
	int64_t start = lower_int(c, n, "start_dim", 0), end = lower_int(c, n, "end_dim", -1);
	int64_t shape[MAXR];
	const char *s;

	if (c->update)
		return reshape_back(c, n);
	start = lower_axis(start, sv->rank);
	end = lower_axis(end, sv->rank);
	if (lower_static(ov)) {
		s = lower_shape(c, ov, NULL);
	} else if (end == sv->rank - 1 && start < MAXR) {
		for (int i = 0; i < start; i++)
			shape[i] = 0;       /* 0: keep the input's dim */
		shape[start] = -1;
		s = lower_i64s(c, (int)start + 1, shape);
	} else {
		return lower_fail(c, n, "flattening inner dims of a dynamic shape is not supported yet");
	}
	lower_op(c, row->onnx, lower_out(c, n, 0), 2, self_name(c, n), s);
	return 0;
}

/* transpose.int(self, dim0, dim1), permute(self, dims), t(self) */
int
lower_transpose(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self");
	int r = sv->rank;
	int64_t perm[MAXR], inv[MAXR];

	if (r > MAXR)
		return lower_fail(c, n, "rank %d is too large", r);
	for (int i = 0; i < r; i++)
		perm[i] = i;
	if (lower_arg(n, "dims")) {
		if (lower_ints(c, n, "dims", perm, MAXR) != r)
			return lower_fail(c, n, "'dims' does not list every dim");
		for (int i = 0; i < r; i++)
			perm[i] = lower_axis(perm[i], r);
	} else if (lower_arg(n, "dim0") && r > 0) {
		int64_t a = lower_axis(lower_int(c, n, "dim0", 0), r), b = lower_axis(lower_int(c, n, "dim1", 0), r);
		perm[a] = b;
		perm[b] = a;
	} else if (r == 2) {
		perm[0] = 1;
		perm[1] = 0;
	}
	for (int i = 0; i < r; i++)
		inv[perm[i]] = i;
	lower_op(c, row->onnx, lower_out(c, n, 0), 1, c->update ? c->update : self_name(c, n));
	onnx_attr_ints(c->a, c->last, "perm", r, c->update ? inv : perm);
	return 0;
}

/* unsqueeze(self, dim) */
int
lower_unsqueeze_op(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self");
	int64_t dim = lower_axis(lower_int(c, n, "dim", 0), sv->rank + 1);

	if (c->update)
		lower_squeeze(c, c->update, 1, &dim, lower_out(c, n, 0));
	else
		lower_op(c, row->onnx, lower_out(c, n, 0), 2, self_name(c, n), lower_i64s(c, 1, &dim));
	return 0;
}

/* squeeze(self), squeeze.dim(self, dim), squeeze.dims(self, dim): only
 * dims of size 1 go, as in torch. */
int
lower_squeeze_op(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self");
	int64_t want[MAXR], axes[MAXR];
	int k = lower_ints(c, n, "dim", want, MAXR), na = 0;

	if (k < 0)
		for (k = 0; k < sv->rank && k < MAXR; k++)
			want[k] = k;
	for (int i = 0; i < k; i++) {
		int64_t a = lower_axis(want[i], sv->rank);
		if (sv->rank == 0)
			continue;
		if (a < 0 || a >= sv->rank || sv->dims[a].e)
			return lower_fail(c, n, "squeezing needs static dims");
		if (sv->dims[a].v == 1)
			axes[na++] = a;
	}
	if (!na) {
		lower_bind(c, n, 0, c->update ? c->update : self_name(c, n));
		return 0;
	}
	if (c->update)
		lower_unsqueeze(c, c->update, na, axes, lower_out(c, n, 0));
	else
		lower_op(c, row->onnx, lower_out(c, n, 0), 2, self_name(c, n), lower_i64s(c, na, axes));
	return 0;
}

/* A 1-element int64 vector from an int or SymInt argument (def if absent). */
static const char *
one_i64(LowerCtx *c, const Node *n, const char *name, int64_t def)
{
	const Arg *g = lower_arg(n, name);

	if (g && (g->kind == ARG_SYM_INT || g->kind == ARG_TENSOR))
		return lower_unsqueeze(c, lower_operand(c, n, name, DT_INT64), 1, (int64_t[]){0}, NULL);
	def = lower_int(c, n, name, def);
	return lower_i64s(c, 1, &def);
}

/* slice.Tensor(self, dim=0, start=None, end=None, step=1) */
int
lower_slice(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self"), *ov = lower_out_value(n, 0);
	int64_t dim = lower_axis(lower_int(c, n, "dim", 0), sv->rank), step = lower_int(c, n, "step", 1);
	int64_t start, len, size, vdims[MAXR], *pos;

	if (dim < 0 || dim >= sv->rank)
		return lower_fail(c, n, "dim out of range");
	if (!c->update) {
		lower_op(c, row->onnx, lower_out(c, n, 0), 5, self_name(c, n), one_i64(c, n, "start", 0),
		         one_i64(c, n, "end", INT64_MAX), lower_i64s(c, 1, &dim), lower_i64s(c, 1, &step));
		return 0;
	}
	if (!lower_static(ov) || sv->dims[dim].e || ov->rank > MAXR)
		return lower_fail(c, n, "writing through a slice needs static shapes");
	size = sv->dims[dim].v;
	start = lower_int(c, n, "start", 0);
	start = start < 0 ? start + size : start;
	start = start < 0 ? 0 : start > size ? size : start;
	len = ov->dims[dim].v;
	pos = ARENA_ARRAY(c->a, int64_t, len + 1);
	for (int64_t i = 0; i < len; i++)
		pos[i] = start + i * step;
	for (int i = 0; i < ov->rank; i++)
		vdims[i] = ov->dims[i].v;
	return scatter_along(c, n, self_name(c, n), c->update, ov->rank, vdims, dim, len, pos);
}

/* select.int(self, dim, index) */
int
lower_select(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self");
	int64_t dim = lower_axis(lower_int(c, n, "dim", 0), sv->rank), index = lower_int(c, n, "index", 0);
	int64_t vdims[MAXR];

	if (dim < 0 || dim >= sv->rank || sv->rank > MAXR)
		return lower_fail(c, n, "dim out of range");
	if (index < 0) {
		if (sv->dims[dim].e)
			return lower_fail(c, n, "a negative index needs a static dim");
		index += sv->dims[dim].v;
	}
	if (!c->update) {
		lower_op(c, row->onnx, lower_out(c, n, 0), 2, self_name(c, n), lower_i64(c, index));
		onnx_attr_int(c->a, c->last, "axis", dim);
		return 0;
	}
	if (!lower_static(sv))
		return lower_fail(c, n, "writing through select needs static shapes");
	for (int i = 0; i < sv->rank; i++)
		vdims[i] = i == dim ? 1 : sv->dims[i].v;
	return scatter_along(c, n, self_name(c, n), lower_unsqueeze(c, c->update, 1, &dim, NULL),
	                     sv->rank, vdims, dim, 1, &index);
}

/* expand(self, size, implicit=False); -1 keeps a dim, which Expand does with 1. */
int
lower_expand(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *ov = lower_out_value(n, 0);
	int64_t sz[MAXR];
	int k;

	if (c->update)
		return lower_fail(c, n, "writing into an expanded tensor is not supported");
	if (lower_static(ov)) {
		k = ov->rank;
		for (int i = 0; i < k; i++)
			sz[i] = ov->dims[i].v;
		lower_op(c, row->onnx, lower_out(c, n, 0), 2, self_name(c, n), lower_i64s(c, k, sz));
	} else {
		lower_op(c, row->onnx, lower_out(c, n, 0), 2, self_name(c, n), lower_size_arg(c, n, "size"));
	}
	return 0;
}

/* alias / detach / detach_: the same contents under a new IR name. */
int
lower_alias(LowerCtx *c, const Node *n, const OpRow *row)
{
	(void)row;
	lower_bind(c, n, 0, c->update ? c->update : self_name(c, n));
	return 0;
}

/* clone / lift_fresh_copy / contiguous: ONNX values are immutable, so a
 * copy is the same ONNX value; a later in-place write gives the copy a new
 * version without touching the original. */
int
lower_identity(LowerCtx *c, const Node *n, const OpRow *row)
{
	(void)row;
	lower_bind(c, n, 0, self_name(c, n));
	return 0;
}

/* copy(self, src) / copy_(self, src, non_blocking=False): src in self's
 * dtype, broadcast to self's shape. */
int
lower_copy(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self"), *src = lower_arg_value(n, "src");
	const char *x = lower_operand(c, n, "src", sv->dtype);

	if (!x)
		return lower_fail(c, n, "no 'src'");
	if (src && same_shape(sv, src))
		lower_bind(c, n, 0, x);
	else
		lower_op(c, row->onnx, lower_out(c, n, 0), 2, x, lower_shape(c, sv, self_name(c, n)));
	return 0;
}

/* The k leading integer index tensors of ix as one int64 tensor of shape
 * B + [k] (B: their broadcast shape, into bshape/nb), negative indices made
 * positive, for ScatterND/GatherND.  NULL after lower_fail(). */
static const char *
stack_indices(LowerCtx *c, const Node *n, const Arg *ix, int k, const Value *sv, int64_t *bshape, int *nb)
{
	const char *parts[MAXR], *idx;
	int64_t minus1 = -1;

	*nb = 0;
	for (int i = 0; i < k; i++) {
		const Value *iv = ix->u.list[i].u.v;
		if (!lower_static(iv) || iv->rank > MAXR || iv->dtype == DT_BOOL || lower_is_float(iv->dtype))
			return lower_fail(c, n, "index tensors need integer types and static shapes"), NULL;
		*nb = iv->rank > *nb ? iv->rank : *nb;
	}
	for (int j = 0; j < *nb; j++)
		bshape[j] = 1;
	for (int i = 0; i < k; i++) {
		const Value *iv = ix->u.list[i].u.v;
		for (int d = 0; d < iv->rank; d++) {
			int at = *nb - iv->rank + d;
			if (bshape[at] == 1)
				bshape[at] = iv->dims[d].v;
			else if (iv->dims[d].v != 1 && iv->dims[d].v != bshape[at])
				return lower_fail(c, n, "index tensors do not broadcast"), NULL;
		}
	}
	for (int i = 0; i < k; i++) {
		const Value *iv = ix->u.list[i].u.v;
		const char *t = lower_cast(c, lower_value(c, iv), iv->dtype, DT_INT64);
		t = lower_op(c, "Mod", NULL, 2, t, lower_i64(c, sv->dims[i].v));    /* negative indices */
		if (*nb)
			t = lower_op(c, "Expand", NULL, 2, t, lower_i64s(c, *nb, bshape));
		parts[i] = lower_unsqueeze(c, t, 1, &minus1, NULL);
	}
	if (k == 1)
		return parts[0];
	idx = lower_tmp(c);
	lower_emit(c, "Concat", k, parts, 1, &idx);
	onnx_attr_int(c->a, c->last, "axis", -1);
	return idx;
}

/* The number of leading tensors in an index list whose other items are
 * None; 0 after lower_fail(). */
static int
leading_indices(LowerCtx *c, const Node *n, const Arg *ix, const Value *sv)
{
	int k = 0;

	if (!ix || (ix->kind != ARG_OPT_TENSORS && ix->kind != ARG_TENSORS) || !sv || !lower_static(sv) ||
	    sv->rank > MAXR)
		return lower_fail(c, n, "needs a list of indices and a static 'self'"), 0;
	while (k < ix->n && ix->u.list[k].kind == ARG_TENSOR)
		k++;
	for (int i = k; i < ix->n; i++)
		if (ix->u.list[i].kind != ARG_NONE)
			return lower_fail(c, n, "only leading index tensors are supported yet"), 0;
	if (k == 0 || k > sv->rank)
		return lower_fail(c, n, "no index tensor, or more than self has dims"), 0;
	return k;
}

/* index_put(self, indices, values, accumulate=False): leading integer
 * index tensors (the rest None) become ScatterND; one boolean mask with a
 * single value becomes Where. */
int
lower_index_put(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self"), *vv = lower_arg_value(n, "values");
	const Arg *ix = lower_arg(n, "indices");
	int k, accumulate = (int)lower_int(c, n, "accumulate", 0), nb = 0;
	int64_t bshape[MAXR], ushape[2 * MAXR];
	const char *idx, *upd, *self = self_name(c, n);

	if (!vv)
		return lower_fail(c, n, "no values");
	if (!(k = leading_indices(c, n, ix, sv)))
		return DIAG_CONVERT;
	if (ix->u.list[0].u.v->dtype == DT_BOOL) {
		int64_t numel = 1;
		for (int i = 0; i < vv->rank; i++)
			numel *= vv->dims[i].e ? 2 : vv->dims[i].v;
		if (k != 1 || numel != 1 || accumulate)
			return lower_fail(c, n, "a boolean index is supported with one value only");
		lower_op(c, "Where", lower_out(c, n, 0), 3, lower_value(c, ix->u.list[0].u.v),
		         lower_operand(c, n, "values", sv->dtype), self);
		return 0;
	}
	if (!(idx = stack_indices(c, n, ix, k, sv, bshape, &nb)))
		return DIAG_CONVERT;
	memcpy(ushape, bshape, sizeof *bshape * (size_t)nb);
	for (int i = k; i < sv->rank; i++)
		ushape[nb + i - k] = sv->dims[i].v;
	upd = lower_op(c, "Expand", NULL, 2, lower_operand(c, n, "values", sv->dtype),
	               lower_i64s(c, nb + sv->rank - k, ushape));
	lower_op(c, row->onnx, lower_out(c, n, 0), 3, self, idx, upd);
	if (accumulate)
		onnx_attr_string(c->a, c->last, "reduction", "add");
	return 0;
}

/* index.Tensor(self, indices): leading integer index tensors (the rest
 * None); one is a Gather on dim 0, several a GatherND. */
int
lower_index(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self");
	const Arg *ix = lower_arg(n, "indices");
	int64_t bshape[MAXR];
	int k, nb;
	const char *idx;

	if (!(k = leading_indices(c, n, ix, sv)))
		return DIAG_CONVERT;
	if (k == 1) {
		const Value *iv = ix->u.list[0].u.v;
		if (iv->dtype == DT_BOOL || lower_is_float(iv->dtype))
			return lower_fail(c, n, "boolean (data-dependent) indexing is not supported yet");
		lower_op(c, row->onnx, lower_out(c, n, 0), 2, self_name(c, n), lower_value(c, iv));
		onnx_attr_int(c->a, c->last, "axis", 0);
		return 0;
	}
	if (!(idx = stack_indices(c, n, ix, k, sv, bshape, &nb)))
		return DIAG_CONVERT;
	lower_op(c, "GatherND", lower_out(c, n, 0), 2, self_name(c, n), idx);
	return 0;
}

/* gather(self, dim, index, sparse_grad=False) */
int
lower_gather(LowerCtx *c, const Node *n, const OpRow *row)
{
	lower_op(c, row->onnx, lower_out(c, n, 0), 2, self_name(c, n), lower_input(c, n, "index"));
	onnx_attr_int(c->a, c->last, "axis", lower_int(c, n, "dim", 0));
	return 0;
}

/* cat(tensors, dim=0): operands in the result dtype; the legacy empty 1-D
 * tensors torch skips are skipped. */
int
lower_cat(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Arg *ts = lower_arg(n, "tensors");
	const Value *ov = lower_out_value(n, 0);
	const char **in;
	const char *out;
	int k = 0;

	if (!ts || ts->kind != ARG_TENSORS || !ov)
		return lower_fail(c, n, "needs a list of tensors");
	in = ARENA_ARRAY(c->a, const char *, ts->n + 1);
	for (int i = 0; i < ts->n; i++) {
		const Value *v = ts->u.list[i].u.v;
		if (v->rank == 1 && !v->dims[0].e && v->dims[0].v == 0 && ov->rank != 1)
			continue;
		in[k++] = lower_cast(c, lower_value(c, v), v->dtype, ov->dtype);
	}
	out = lower_out(c, n, 0);
	lower_emit(c, row->onnx, k, in, 1, &out);
	onnx_attr_int(c->a, c->last, "axis", lower_int(c, n, "dim", 0));
	return 0;
}

/* split.Tensor(self, split_size, dim=0), split_with_sizes(self, split_sizes,
 * dim=0).  Equal chunks use num_outputs from opset 18, else split sizes. */
int
lower_split(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self");
	int64_t dim = lower_axis(lower_int(c, n, "dim", 0), sv->rank), sizes[256], size;
	int k = lower_nout(n), equal = 1;
	const char **outs = ARENA_ARRAY(c->a, const char *, k + 1);

	if (k < 1 || k > 256 || dim < 0 || dim >= sv->rank)
		return lower_fail(c, n, "bad split");
	if (lower_arg(n, "split_sizes")) {
		if (lower_ints(c, n, "split_sizes", sizes, 256) != k)
			return lower_fail(c, n, "split_sizes and outputs disagree");
	} else {
		if (sv->dims[dim].e)
			return lower_fail(c, n, "splitting a dynamic dim is not supported yet");
		size = lower_int(c, n, "split_size", 1);
		for (int i = 0; i < k; i++)
			sizes[i] = i < k - 1 ? size : sv->dims[dim].v - size * (k - 1);
	}
	for (int i = 0; i < k; i++) {
		equal &= sizes[i] == sizes[0];
		outs[i] = lower_out_value(n, i) ? lower_out(c, n, i) : lower_tmp(c);
	}
	if (c->opset >= 18 && equal) {
		lower_emit(c, row->onnx, 1, (const char *[]){self_name(c, n)}, k, outs);
		onnx_attr_int(c->a, c->last, "num_outputs", k);
	} else {
		lower_emit(c, row->onnx, 2, (const char *[]){self_name(c, n), lower_i64s(c, k, sizes)}, k, outs);
	}
	onnx_attr_int(c->a, c->last, "axis", dim);
	return 0;
}

/* _assert_tensor_metadata and friends: checks torch made at export time. */
int
lower_nothing(LowerCtx *c, const Node *n, const OpRow *row)
{
	(void)c;
	(void)n;
	(void)row;
	return 0;
}

/* sym_size.int(self, dim): one dim of self's shape as a 0-d int64. */
int
lower_sym_size(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self");
	int64_t dim = lower_axis(lower_int(c, n, "dim", 0), sv->rank), zero = 0;

	if (dim < 0 || dim >= sv->rank)
		return lower_fail(c, n, "dim out of range");
	if (!sv->dims[dim].e) {
		lower_bind(c, n, 0, lower_i64(c, sv->dims[dim].v));
		return 0;
	}
	lower_op(c, row->onnx, NULL, 1, self_name(c, n));
	onnx_attr_int(c->a, c->last, "start", dim);
	onnx_attr_int(c->a, c->last, "end", dim + 1);
	lower_squeeze(c, c->last->output[0], 1, &zero, lower_out(c, n, 0));
	return 0;
}
