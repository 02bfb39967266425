/* shape.c: lowerings of views, copies and layout ops (shape.def).
 *
 * Rows flagged OPF_VIEW run in two directions.  Forwards they compute the
 * view from `self`.  With c->update set they compute the opposite: the new
 * contents of `self` once the view's contents became c->update, e.g. the
 * inverse Transpose, a Reshape back, or a ScatterElements of a slice into
 * its base.  lower_out(c, n, 0) names the result either way. */
#include <stdint.h>
#include <string.h>

#include "lower/lower.h"
#include "nn.h"
#include "opsets.h"

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

/* The dtype data of dtype t moves in through Pad, Tile and Expand:
 * onnxruntime has no bfloat16 kernels for them, so bfloat16 travels as its
 * exact float32 image (carry_name/carry_out). */
static DType
carrier(DType t)
{
	return t == DT_BFLOAT16 ? DT_FLOAT32 : t;
}

/* The name an op on carried data writes: n's output 0 when nothing needs
 * casting back, else a fresh one for carry_out(). */
static const char *
carry_name(LowerCtx *c, const Node *n, DType t)
{
	return carrier(t) == t ? lower_out(c, n, 0) : NULL;
}

/* Binds x, computed on carried data of dtype t, as n's output 0. */
static void
carry_out(LowerCtx *c, const Node *n, const char *x, DType t)
{
	if (carrier(t) != t)
		lower_finish_typed(c, n, 0, x, carrier(t));
}

/* Writes u (a view of shape vdims along dim, at positions pos[0..len),
 * plus the int64 offset when not NULL) into parent with ScatterElements;
 * the result is n's output. */
static int
scatter_at(LowerCtx *c, const Node *n, const char *parent, const char *u, int rank, const int64_t *vdims,
           int64_t dim, int64_t len, const int64_t *pos, const char *offset)
{
	int64_t shape[MAXR];
	const char *idx;

	for (int i = 0; i < rank; i++)
		shape[i] = i == dim ? len : 1;
	idx = lower_op(c, "Reshape", NULL, 2, lower_i64s(c, (int)len, pos), lower_i64s(c, rank, shape));
	if (offset)
		idx = lower_op(c, "Add", NULL, 2, idx, offset);
	idx = lower_op(c, "Expand", NULL, 2, idx, lower_i64s(c, rank, vdims));
	lower_op(c, "ScatterElements", lower_out(c, n, 0), 3, parent, idx, u);
	onnx_attr_int(c->a, c->last, "axis", dim);
	return 0;
}

static int
scatter_along(LowerCtx *c, const Node *n, const char *parent, const char *u,
              int rank, const int64_t *vdims, int64_t dim, int64_t len, const int64_t *pos)
{
	return scatter_at(c, n, parent, u, rank, vdims, dim, len, pos, NULL);
}

/* A view run backwards whose inverse is a Reshape to self's shape. */
static int
reshape_back(LowerCtx *c, const Node *n)
{
	const Value *sv = lower_arg_value(n, "self");

	lower_op(c, "Reshape", lower_out(c, n, 0), 2, c->update, lower_shape(c, sv, self_name(c, n)));
	return 0;
}

/* view(self, size), reshape(self, shape), _unsafe_view(self, size),
 * reshape_as(self, other): to other's shape. */
int
lower_reshape(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *other = lower_arg_value(n, "other");
	const char *shape;

	if (c->update)
		return reshape_back(c, n);
	if (other)
		shape = lower_shape(c, other, lower_value(c, other));
	else
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
	const Value *sv = lower_tensor_arg(c, n, "self"), *ov = lower_out_tensor(c, n, 0);
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

/* The permutation a transposing view applies, into perm; 0 or lower_fail(). */
static int
view_perm(LowerCtx *c, const Node *n, int r, int64_t *perm)
{
	int64_t src[MAXR], dst[MAXR];
	int taken[MAXR] = {0}, k;

	if (r > MAXR)
		return lower_fail(c, n, "more than %d dims", MAXR);
	for (int i = 0; i < r; i++)
		perm[i] = i;
	if (lower_arg(n, "dims")) {                         /* permute */
		if (lower_ints(c, n, "dims", perm, MAXR) != r)
			return lower_fail(c, n, "'dims' does not list every dim");
		for (int i = 0; i < r; i++)
			if ((perm[i] = lower_axis(perm[i], r)) < 0 || perm[i] >= r)
				return lower_fail(c, n, "dim %lld out of range", (long long)perm[i]);
	} else if (lower_arg(n, "source")) {                /* movedim: dst[i] takes src[i] */
		int64_t *p = perm;
		k = lower_ints(c, n, "source", src, MAXR);
		if (k < 0 || lower_ints(c, n, "destination", dst, MAXR) != k)
			return lower_fail(c, n, "'source' and 'destination' differ in length");
		for (int i = 0; i < r; i++)
			p[i] = -1;
		for (int i = 0; i < k; i++) {
			int64_t d = lower_axis(dst[i], r);
			src[i] = lower_axis(src[i], r);
			if (src[i] < 0 || src[i] >= r || d < 0 || d >= r || taken[src[i]] || p[d] >= 0)
				return lower_fail(c, n, "'source' and 'destination' are not distinct dims");
			p[d] = src[i];
			taken[src[i]] = 1;
		}
		for (int i = 0, next = 0; i < r; i++) {
			if (p[i] >= 0)
				continue;
			while (taken[next])
				next++;
			p[i] = next++;
		}
	} else if (r > 0 && (lower_arg(n, "dim0") || lower_arg(n, "axis0"))) {   /* transpose, swapaxes */
		int sw = lower_arg(n, "axis0") != NULL;
		int64_t a = lower_axis(lower_int(c, n, sw ? "axis0" : "dim0", 0), r);
		int64_t b = lower_axis(lower_int(c, n, sw ? "axis1" : "dim1", 0), r);
		if (a < 0 || a >= r || b < 0 || b >= r)
			return lower_fail(c, n, "dims out of range");
		perm[a] = b;
		perm[b] = a;
	} else {                                            /* t (rank <= 2), numpy_T: all dims reversed */
		for (int i = 0; i < r; i++)
			perm[i] = r - 1 - i;
	}
	return 0;
}

/* transpose.int(self, dim0, dim1), permute(self, dims), t(self),
 * swapaxes(self, axis0, axis1), movedim(self, source, destination),
 * numpy_T(self) (x.T: every dim reversed) */
int
lower_transpose(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	int r = sv->rank;
	int64_t perm[MAXR], inv[MAXR];

	if (r > MAXR)
		return lower_fail(c, n, "rank %d is too large", r);
	if (view_perm(c, n, r, perm))
		return DIAG_CONVERT;
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
	const Value *sv = lower_tensor_arg(c, n, "self");
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
	const Value *sv = lower_tensor_arg(c, n, "self");
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

/* The end of narrow(self, dim, start, length) as a 1-element int64. */
static const char *
narrow_end(LowerCtx *c, const Node *n, const Value *sv, int64_t dim, const char *start)
{
	const Arg *s = lower_arg(n, "start"), *l = lower_arg(n, "length");

	if (s && s->kind == ARG_INT && l && l->kind == ARG_INT) {
		int64_t b = s->u.i < 0 && !sv->dims[dim].e ? s->u.i + sv->dims[dim].v : s->u.i;
		int64_t e = b + l->u.i;
		return lower_i64s(c, 1, &e);
	}
	return lower_op(c, "Add", NULL, 2, start, one_i64(c, n, "length", 0));
}

/* slice.Tensor(self, dim=0, start=None, end=None, step=1), narrow(self,
 * dim, start, length) */
int
lower_slice(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self"), *ov = lower_out_tensor(c, n, 0);
	int64_t dim = lower_axis(lower_int(c, n, "dim", 0), sv->rank), step = lower_int(c, n, "step", 1);
	int64_t start, len, size, vdims[MAXR], *pos;

	if (dim < 0 || dim >= sv->rank)
		return lower_fail(c, n, "dim out of range");
	if (!c->update) {
		const char *st = one_i64(c, n, "start", 0);
		const char *en = lower_arg(n, "length") ? narrow_end(c, n, sv, dim, st) : one_i64(c, n, "end", INT64_MAX);
		lower_op(c, row->onnx, lower_out(c, n, 0), 5, self_name(c, n), st, en, lower_i64s(c, 1, &dim),
		         lower_i64s(c, 1, &step));
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

/* select.int(self, dim, index); index may be a SymInt (x[:, s - 1]):
 * Gather takes it as it is, since it reads -size..-1 from the end as
 * torch does (torch refuses an index outside -size..size-1). */
int
lower_select(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	const Arg *ia = lower_arg(n, "index");
	int64_t dim = lower_axis(lower_int(c, n, "dim", 0), sv->rank), index;
	int64_t vdims[MAXR];

	if (dim < 0 || dim >= sv->rank || sv->rank > MAXR)
		return lower_fail(c, n, "dim out of range");
	if (ia && ia->kind == ARG_SYM_INT) {
		if (c->update)
			return lower_fail(c, n, "writing through select at a symbolic index is not supported");
		lower_op(c, row->onnx, lower_out(c, n, 0), 2, self_name(c, n),
		         lower_operand(c, n, "index", DT_INT64));
		onnx_attr_int(c->a, c->last, "axis", dim);
		return 0;
	}
	index = lower_int(c, n, "index", 0);
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

/* The size list of expand with each -1 ("keep this dim") written as 1:
 * Expand broadcasts, so 1 keeps the input's dim, and -1 is not a size. */
static const char *
expand_size(LowerCtx *c, const Node *n)
{
	Node m = *n;

	m.in = arena_dup(c->a, n->in, sizeof *n->in * (size_t)n->nin);
	for (int k = 0; k < m.nin; k++) {
		Arg *g = &m.in[k].arg;
		if (strcmp(m.in[k].name, "size") != 0 || (g->kind != ARG_INTS && g->kind != ARG_SYM_INTS))
			continue;
		g->u.list = arena_dup(c->a, g->u.list, sizeof *g->u.list * (size_t)g->n);
		for (int i = 0; i < g->n; i++)
			if (g->u.list[i].kind == ARG_INT && g->u.list[i].u.i == -1)
				g->u.list[i].u.i = 1;
	}
	return lower_size_arg(c, &m, "size");
}

/* expand(self, size, implicit=False); -1 keeps a dim, which Expand does with 1.
 * expand_as(self, other): to other's shape. */
int
lower_expand(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *ov = lower_out_tensor(c, n, 0), *sv = lower_tensor_arg(c, n, "self");
	int64_t sz[MAXR];
	const char *shape, *x;

	if (c->update)
		return lower_fail(c, n, "writing into an expanded tensor is not supported");
	if (lower_static(ov) && ov->rank <= MAXR) {
		for (int i = 0; i < ov->rank; i++)
			sz[i] = ov->dims[i].v;
		shape = lower_i64s(c, ov->rank, sz);
	} else if (lower_arg_value(n, "other")) {     /* expand_as */
		shape = lower_op(c, "Shape", NULL, 1, lower_input(c, n, "other"));
	} else {
		shape = expand_size(c, n);
	}
	x = lower_cast(c, self_name(c, n), sv->dtype, carrier(sv->dtype));
	carry_out(c, n, lower_op(c, row->onnx, carry_name(c, n, sv->dtype), 2, x, shape), sv->dtype);
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
	const Value *sv = lower_tensor_arg(c, n, "self"), *src = lower_arg_value(n, "src");
	const char *x = lower_operand(c, n, "src", sv->dtype);

	if (!x)
		return lower_fail(c, n, "no 'src'");
	if (src && same_shape(sv, src)) {
		lower_bind(c, n, 0, x);
		return 0;
	}
	x = lower_op(c, row->onnx, carry_name(c, n, sv->dtype), 2, lower_cast(c, x, sv->dtype, carrier(sv->dtype)),
	             lower_shape(c, sv, self_name(c, n)));
	carry_out(c, n, x, sv->dtype);
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

/* 1 when a split_sizes argument holds a SymInt (a size known at run time). */
static int
split_sym(const Arg *g)
{
	if (!g || g->kind != ARG_SYM_INTS)
		return 0;
	for (int i = 0; i < g->n; i++)
		if (g->u.list[i].kind == ARG_SYM_INT)
			return 1;
	return 0;
}

/* split.Tensor(self, split_size, dim=0), split_with_sizes(self,
 * split_sizes, dim=0), chunk(self, chunks, dim=0): parts of split_size (of
 * ceil(size / chunks) for chunk), the last one smaller; unbind.int(self,
 * dim=0): parts of 1, squeezed.  Equal parts use num_outputs from opset
 * 18, else split sizes; split_sizes holding SymInts (data-dependent sizes)
 * are Split's sizes input, computed at run time. */
int
lower_split(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	int64_t dim = lower_axis(lower_int(c, n, "dim", 0), sv->rank), sizes[256], size;
	int k = lower_nout(n), equal = 1, unbind = row->variant == OPV_UNBIND;
	const char **outs = ARENA_ARRAY(c->a, const char *, k + 1);

	if (k < 1 || k > 256 || dim < 0 || dim >= sv->rank)
		return lower_fail(c, n, "bad split");
	if (split_sym(lower_arg(n, "split_sizes"))) {
		/* sizes known at run time only (a MoE's tokens per expert): Split's sizes input */
		if (lower_arg(n, "split_sizes")->n != k)
			return lower_fail(c, n, "split_sizes and outputs disagree");
		for (int i = 0; i < k; i++)
			outs[i] = lower_out_value(n, i) ? lower_out(c, n, i) : lower_tmp(c);
		lower_emit(c, row->onnx, 2, (const char *[]){self_name(c, n), lower_size_arg(c, n, "split_sizes")},
		           k, outs);
		onnx_attr_int(c->a, c->last, "axis", dim);
		return 0;
	}
	if (lower_arg(n, "split_sizes")) {
		if (lower_ints(c, n, "split_sizes", sizes, 256) != k)
			return lower_fail(c, n, "split_sizes and outputs disagree");
	} else if (unbind) {
		for (int i = 0; i < k; i++)
			sizes[i] = 1;
	} else {
		if (sv->dims[dim].e)
			return lower_fail(c, n, "splitting a dynamic dim is not supported yet");
		if (lower_arg(n, "chunks")) {
			int64_t chunks = lower_int(c, n, "chunks", 1);
			size = chunks > 0 ? (sv->dims[dim].v + chunks - 1) / chunks : 0;
		} else {
			size = lower_int(c, n, "split_size", 1);
		}
		for (int i = 0; i < k; i++)
			sizes[i] = i < k - 1 ? size : sv->dims[dim].v - size * (k - 1);
	}
	for (int i = 0; i < k; i++) {
		equal &= sizes[i] == sizes[0];
		outs[i] = lower_out_value(n, i) && !unbind ? lower_out(c, n, i) : lower_tmp(c);
	}
	if (c->opset >= 18 && equal) {
		lower_emit(c, row->onnx, 1, (const char *[]){self_name(c, n)}, k, outs);
		onnx_attr_int(c->a, c->last, "num_outputs", k);
	} else {
		lower_emit(c, row->onnx, 2, (const char *[]){self_name(c, n), lower_i64s(c, k, sizes)}, k, outs);
	}
	onnx_attr_int(c->a, c->last, "axis", dim);
	for (int i = 0; unbind && i < k; i++)
		if (lower_out_value(n, i))
			lower_squeeze(c, outs[i], 1, &dim, lower_out(c, n, i));
	return 0;
}

/* stack(tensors, dim=0): each unsqueezed at dim, in the result dtype, concatenated. */
int
lower_stack(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Arg *ts = lower_arg(n, "tensors");
	const Value *ov = lower_out_value(n, 0);
	const char **in, *out;
	int64_t dim;

	if (!ts || ts->kind != ARG_TENSORS || !ov || ts->n < 1)
		return lower_fail(c, n, "needs a list of tensors");
	dim = lower_axis(lower_int(c, n, "dim", 0), ov->rank);
	in = ARENA_ARRAY(c->a, const char *, ts->n + 1);
	for (int i = 0; i < ts->n; i++) {
		const Value *v = ts->u.list[i].u.v;
		in[i] = lower_unsqueeze(c, lower_cast(c, lower_value(c, v), v->dtype, ov->dtype), 1, &dim, NULL);
	}
	out = lower_out(c, n, 0);
	lower_emit(c, row->onnx, ts->n, in, 1, &out);
	onnx_attr_int(c->a, c->last, "axis", dim);
	return 0;
}

/* Slice(x, [b], [e]) along axis, ends clamped by ONNX. */
static const char *
slice1(LowerCtx *c, const char *x, int64_t axis, int64_t b, int64_t e)
{
	return lower_op(c, "Slice", NULL, 4, x, lower_i64s(c, 1, &b), lower_i64s(c, 1, &e), lower_i64s(c, 1, &axis));
}

/* unflatten.int(self, dim, sizes): a Reshape splitting dim into sizes. */
int
lower_unflatten(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self"), *ov = lower_out_tensor(c, n, 0);
	int64_t dim = lower_axis(lower_int(c, n, "dim", 0), sv->rank);
	const char *shape, *sh;

	if (c->update)
		return reshape_back(c, n);
	if (lower_static(ov)) {
		shape = lower_shape(c, ov, NULL);
	} else {
		sh = lower_op(c, "Shape", NULL, 1, self_name(c, n));
		shape = lower_tmp(c);
		lower_emit(c, "Concat", 3, (const char *[]){slice1(c, sh, 0, 0, dim), lower_size_arg(c, n, "sizes"),
		           slice1(c, sh, 0, dim + 1, INT64_MAX)}, 1, &shape);
		onnx_attr_int(c->a, c->last, "axis", 0);
	}
	lower_op(c, row->onnx, lower_out(c, n, 0), 2, self_name(c, n), shape);
	return 0;
}

/* repeat(self, repeats), tile(self, dims): Tile, self first unsqueezed to
 * the number of repeats (repeat) or the repeats padded with leading 1s
 * (tile, fewer dims than self). */
int
lower_repeat(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	const char *name = lower_arg(n, "repeats") ? "repeats" : "dims", *x = self_name(c, n), *reps;
	const Arg *g = lower_arg(n, name);
	int64_t r[MAXR], lead[MAXR];
	int k, sym = 0;

	for (int i = 0; g && g->kind == ARG_SYM_INTS && i < g->n; i++)
		sym |= g->u.list[i].kind == ARG_SYM_INT;
	if (sym && g->n >= sv->rank && g->n <= MAXR) {    /* SymInt repeats: a size tensor */
		for (int i = 0; i < g->n - sv->rank; i++)
			lead[i] = i;
		if (g->n > sv->rank)
			x = lower_unsqueeze(c, x, g->n - sv->rank, lead, NULL);
		x = lower_op(c, row->onnx, carry_name(c, n, sv->dtype), 2,
		             lower_cast(c, x, sv->dtype, carrier(sv->dtype)), lower_size_arg(c, n, name));
		carry_out(c, n, x, sv->dtype);
		return 0;
	}
	k = lower_ints(c, n, name, r, MAXR);
	if (k < 0 || sv->rank > MAXR)
		return lower_fail(c, n, "needs constant '%s'", name);
	if (k > sv->rank) {
		for (int i = 0; i < k - sv->rank; i++)
			lead[i] = i;
		x = lower_unsqueeze(c, x, k - sv->rank, lead, NULL);
	} else if (k < sv->rank) {
		memmove(r + sv->rank - k, r, sizeof *r * (size_t)k);
		for (int i = 0; i < sv->rank - k; i++)
			r[i] = 1;
		k = sv->rank;
	}
	reps = lower_i64s(c, k, r);
	x = lower_op(c, row->onnx, carry_name(c, n, sv->dtype), 2, lower_cast(c, x, sv->dtype, carrier(sv->dtype)), reps);
	carry_out(c, n, x, sv->dtype);
	return 0;
}

/* Concat(parts) along axis 0 (1-D int64 shape pieces). */
static const char *
concat_shape(LowerCtx *c, int k, const char *const *parts)
{
	const char *out = lower_tmp(c);

	lower_emit(c, "Concat", k, parts, 1, &out);
	onnx_attr_int(c->a, c->last, "axis", 0);
	return out;
}

/* repeat_interleave.self_int(self, repeats, dim=None, output_size=None):
 * each element repeated along dim (of the flattened self without dim):
 * Unsqueeze after dim, Expand the new dim to repeats, Reshape it away. */
int
lower_repeat_interleave(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self"), *ov = lower_out_value(n, 0);
	const Arg *d = lower_arg(n, "dim");
	int64_t rep = lower_int(c, n, "repeats", 1), minus1 = -1, dim, after;
	const char *x = self_name(c, n), *sh;

	(void)row;
	if (!sv || !ov || sv->rank > MAXR)
		return lower_fail(c, n, "needs a tensor 'self'");
	if (!d || d->kind == ARG_NONE) {
		x = lower_op(c, "Reshape", NULL, 2, x, lower_i64s(c, 1, &minus1));
		dim = 0;
	} else {
		dim = lower_axis(lower_int(c, n, "dim", 0), sv->rank);
	}
	after = dim + 1;
	x = lower_unsqueeze(c, lower_cast(c, x, sv->dtype, carrier(sv->dtype)), 1, &after, NULL);
	sh = lower_op(c, "Shape", NULL, 1, x);
	x = lower_op(c, "Expand", NULL, 2, x, concat_shape(c, 3, (const char *[]){slice1(c, sh, 0, 0, after),
	             lower_i64s(c, 1, &rep), slice1(c, sh, 0, after + 1, INT64_MAX)}));
	if (lower_static(ov))
		sh = lower_shape(c, ov, NULL);
	else
		sh = concat_shape(c, 3, (const char *[]){slice1(c, sh, 0, 0, dim), lower_i64s(c, 1, &minus1),
		                  slice1(c, sh, 0, after + 1, INT64_MAX)});
	carry_out(c, n, lower_op(c, "Reshape", carry_name(c, n, sv->dtype), 2, x, sh), sv->dtype);
	return 0;
}

/* flip(self, dims): a Slice with step -1 on each dim. */
int
lower_flip(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	int64_t dims[MAXR], st[MAXR], en[MAXR], step[MAXR];
	int k = lower_ints(c, n, "dims", dims, MAXR);

	if (k <= 0) {
		lower_bind(c, n, 0, self_name(c, n));
		return 0;
	}
	for (int i = 0; i < k; i++) {
		dims[i] = lower_axis(dims[i], sv->rank);
		st[i] = -1;
		en[i] = INT64_MIN;
		step[i] = -1;
	}
	lower_op(c, row->onnx, lower_out(c, n, 0), 5, self_name(c, n), lower_i64s(c, k, st), lower_i64s(c, k, en),
	         lower_i64s(c, k, dims), lower_i64s(c, k, step));
	return 0;
}

/* roll(self, shifts, dims=[]): per dim, the last `shift` elements moved to
 * the front (Concat of two Slices); with no dims, of the flattened tensor. */
int
lower_roll(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	int64_t shifts[MAXR], dims[MAXR], minus1 = -1, numel = 1;
	int k = lower_ints(c, n, "shifts", shifts, MAXR), nd = lower_ints(c, n, "dims", dims, MAXR), flat = nd <= 0;
	const char *x = self_name(c, n);

	if (k < 1 || (flat && !lower_static(sv)))
		return lower_fail(c, n, "needs constant shifts (and a static self without dims)");
	if (flat) {
		for (int i = 0; i < sv->rank; i++)
			numel *= sv->dims[i].v;
		x = lower_op(c, "Reshape", NULL, 2, x, lower_i64s(c, 1, &minus1));
		dims[0] = 0;
		nd = 1;
	}
	if (nd != k)
		return lower_fail(c, n, "'shifts' and 'dims' differ in length");
	for (int i = 0; i < k; i++) {
		int64_t d = flat ? 0 : lower_axis(dims[i], sv->rank), size, sh;
		if (!flat && (d < 0 || d >= sv->rank))
			return lower_fail(c, n, "dim %lld out of range", (long long)dims[i]);
		size = flat ? numel : sv->dims[d].v;
		if (!flat && sv->dims[d].e)
			return lower_fail(c, n, "rolling a dynamic dim is not supported");
		if (size == 0 || !(sh = ((shifts[i] % size) + size) % size))
			continue;
		const char *part[2] = {slice1(c, x, d, size - sh, size), slice1(c, x, d, 0, size - sh)};
		x = lower_tmp(c);
		lower_emit(c, row->onnx, 2, part, 1, &x);
		onnx_attr_int(c->a, c->last, "axis", d);
	}
	if (flat)
		x = lower_op(c, "Reshape", NULL, 2, x, lower_shape(c, sv, NULL));
	lower_finish_typed(c, n, 0, x, sv->dtype);
	return 0;
}

/* pad(self, pad, mode='constant', value=None): torch lists (begin, end)
 * pairs from the last dim backwards; ONNX Pad wants every begin, then
 * every end.  replicate is Pad's "edge"; circular is a Concat of the
 * wrapped-around slices (Pad's "wrap" needs opset 19). */
int
lower_pad(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	int64_t p[2 * MAXR], pads[2 * MAXR] = {0};
	int k = lower_ints(c, n, "pad", p, 2 * MAXR), r = sv->rank;
	const char *mode = lower_str(c, n, "mode", "constant"), *x = self_name(c, n);
	DType cdt;

	if (k < 0 || k % 2 || k / 2 > r || r > MAXR)
		return lower_fail(c, n, "bad 'pad'");
	for (int i = 0; i < k / 2; i++) {
		pads[r - 1 - i] = p[2 * i];
		pads[2 * r - 1 - i] = p[2 * i + 1];
	}
	if (strcmp(mode, "circular") == 0) {
		for (int d = 0; d < r; d++) {
			int64_t b = pads[d], e = pads[r + d];
			if (!b && !e)
				continue;
			if (b < 0 || e < 0 || sv->dims[d].e || b > sv->dims[d].v || e > sv->dims[d].v)
				return lower_fail(c, n, "circular padding needs static dims and pads from 0 to the dim's size");
			const char *part[3] = {slice1(c, x, d, -b, INT64_MAX), x, slice1(c, x, d, 0, e)};
			x = lower_tmp(c);
			lower_emit(c, "Concat", b ? 3 : 2, b ? part : part + 1, 1, &x);
			onnx_attr_int(c->a, c->last, "axis", d);
		}
		lower_finish_typed(c, n, 0, x, sv->dtype);
		return 0;
	}
	if (strcmp(mode, "constant") != 0 && strcmp(mode, "reflect") != 0 && strcmp(mode, "replicate") != 0)
		return lower_fail(c, n, "padding mode '%s' is not supported", mode);
	cdt = carrier(sv->dtype);
	x = lower_cast(c, x, sv->dtype, cdt);
	if (strcmp(mode, "constant") == 0) {
		x = lower_op(c, row->onnx, carry_name(c, n, sv->dtype), 3, x, lower_i64s(c, 2 * r, pads),
		             lower_scalar(c, cdt, lower_float(c, n, "value", 0)));
		onnx_attr_string(c->a, c->last, "mode", mode);
	} else {
		x = nn_pad_edges(c, x, r, pads, strcmp(mode, "replicate") == 0 ? "edge" : mode,
		                 carry_name(c, n, sv->dtype));
	}
	carry_out(c, n, x, sv->dtype);
	return 0;
}

/* diagonal(self, offset=0, dim1=0, dim2=1): dim1 and dim2 moved last and
 * merged, then a Gather of the diagonal's flat positions; the diagonal is
 * the result's last dim, as in torch.  Backwards, a ScatterElements there. */
static int
diagonal(LowerCtx *c, const Node *n, const OpRow *row, const char *upd)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	int r = sv->rank;
	int64_t off = lower_int(c, n, "offset", 0), d1 = lower_axis(lower_int(c, n, "dim1", 0), r);
	int64_t d2 = lower_axis(lower_int(c, n, "dim2", 1), r), perm[MAXR], shape[MAXR], *idx, a, b, len;
	const char *x;
	int k = 0;

	if (r < 2 || r > MAXR || d1 == d2 || sv->dims[d1].e || sv->dims[d2].e)
		return lower_fail(c, n, "needs two distinct static dims");
	a = sv->dims[d1].v;
	b = sv->dims[d2].v;
	len = off >= 0 ? (a < b - off ? a : b - off) : (a + off < b ? a + off : b);
	len = len < 0 ? 0 : len;
	for (int i = 0; i < r; i++)
		if (i != d1 && i != d2) {
			shape[k] = 0;          /* Reshape: keep the dim */
			perm[k++] = i;
		}
	perm[k] = d1;
	perm[k + 1] = d2;
	shape[k] = a * b;
	x = lower_perm(c, self_name(c, n), r, perm, NULL);
	x = lower_op(c, "Reshape", NULL, 2, x, lower_i64s(c, k + 1, shape));
	idx = ARENA_ARRAY(c->a, int64_t, len + 1);
	for (int64_t i = 0; i < len; i++)
		idx[i] = off >= 0 ? i * b + i + off : (i - off) * b + i;
	if (!upd) {
		lower_op(c, row->onnx, lower_out(c, n, 0), 2, x, lower_i64s(c, (int)len, idx));
		onnx_attr_int(c->a, c->last, "axis", k);
		return 0;
	}
	/* backwards: the new diagonal scattered into the merged dims, then
	 * the dims split and moved back */
	{
		int64_t ones[MAXR], inv[MAXR];
		const char *pos;
		for (int i = 0; i <= k; i++)
			ones[i] = i < k ? 1 : len;
		pos = lower_op(c, "Reshape", NULL, 2, lower_i64s(c, (int)len, idx), lower_i64s(c, k + 1, ones));
		pos = lower_op(c, "Expand", NULL, 2, pos, lower_op(c, "Shape", NULL, 1, upd));
		x = lower_op(c, "ScatterElements", NULL, 3, x, pos, upd);
		onnx_attr_int(c->a, c->last, "axis", k);
		shape[k] = a;
		shape[k + 1] = b;
		x = lower_op(c, "Reshape", NULL, 2, x, lower_i64s(c, k + 2, shape));
		for (int i = 0; i < r; i++)
			inv[perm[i]] = i;
		lower_perm(c, x, r, inv, lower_out(c, n, 0));
	}
	return 0;
}

/* diagonal_scatter(self, src, offset=0, dim1=0, dim2=1): diagonal's
 * backward direction with src as the new diagonal. */
int
lower_diagonal_scatter(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self");

	return diagonal(c, n, row, lower_operand(c, n, "src", sv ? sv->dtype : DT_FLOAT32));
}

int
lower_diagonal(LowerCtx *c, const Node *n, const OpRow *row)
{
	return diagonal(c, n, row, c->update);
}

/* The flat positions as_strided(size, stride, storage_offset) reads, of a
 * contiguous self: a constant of the view's shape.  NULL after lower_fail(). */
static const char *
strided_positions(LowerCtx *c, const Node *n, int *rank, int64_t *size)
{
	int64_t stride[MAXR], off = lower_int(c, n, "storage_offset", 0), numel = 1, *pos;
	int k = lower_ints(c, n, "size", size, MAXR);

	if (k < 0 || lower_ints(c, n, "stride", stride, MAXR) != k)
		return lower_fail(c, n, "needs constant size and stride"), NULL;
	for (int i = 0; i < k; i++)
		numel *= size[i];
	pos = ARENA_ARRAY(c->a, int64_t, numel + 1);
	for (int64_t e = 0; e < numel; e++) {
		int64_t rest = e, at = off;
		for (int d = k - 1; d >= 0; d--) {
			at += rest % size[d] * stride[d];
			rest /= size[d];
		}
		pos[e] = at;
	}
	*rank = k;
	return lower_const(c, DT_INT64, k, size, pos);
}

/* src written at the positions as_strided(size, stride, storage_offset)
 * reads of the flattened static self; the result is n's output. */
static int
strided_write(LowerCtx *c, const Node *n, const Value *sv, const char *src)
{
	int64_t size[MAXR], minus1 = -1;
	int k;
	const char *pos, *flat;

	if (!(pos = strided_positions(c, n, &k, size)))
		return DIAG_CONVERT;
	flat = lower_op(c, "Reshape", NULL, 2, self_name(c, n), lower_i64s(c, 1, &minus1));
	pos = lower_op(c, "Reshape", NULL, 2, pos, lower_i64s(c, 1, &minus1));
	src = lower_op(c, "Reshape", NULL, 2, src, lower_i64s(c, 1, &minus1));
	flat = lower_op(c, "ScatterElements", NULL, 3, flat, pos, src);
	onnx_attr_int(c->a, c->last, "axis", 0);
	lower_op(c, "Reshape", lower_out(c, n, 0), 2, flat, lower_shape(c, sv, NULL));
	return 0;
}

/* as_strided(self, size, stride, storage_offset=None) of a contiguous
 * static self: a Gather of its flattened elements; backwards, a scatter. */
int
lower_as_strided(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self");
	int64_t size[MAXR], minus1 = -1;
	int k;
	const char *pos;

	if (!lower_static(sv))
		return lower_fail(c, n, "needs a static self");
	if (c->update)
		return strided_write(c, n, sv, c->update);
	if (!(pos = strided_positions(c, n, &k, size)))
		return DIAG_CONVERT;
	lower_op(c, row->onnx, lower_out(c, n, 0), 2,
	         lower_op(c, "Reshape", NULL, 2, self_name(c, n), lower_i64s(c, 1, &minus1)), pos);
	return 0;
}

/* as_strided_scatter(self, src, size, stride, storage_offset=None): src
 * written at those positions of the flattened self. */
int
lower_as_strided_scatter(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");

	(void)row;
	if (!lower_static(sv))
		return lower_fail(c, n, "needs a static self");
	return strided_write(c, n, sv, lower_operand(c, n, "src", sv->dtype));
}

/* slice_scatter's SymInt start as an int64 value, a negative one counted
 * from the end of dim (as torch does). */
static const char *
sym_start(LowerCtx *c, const Node *n, const Value *sv, int64_t dim)
{
	const char *size, *s = lower_operand(c, n, "start", DT_INT64), *zero = lower_i64(c, 0);

	if (!sv->dims[dim].e) {
		size = lower_i64(c, sv->dims[dim].v);
	} else {
		size = lower_op(c, "Shape", NULL, 1, self_name(c, n));
		onnx_attr_int(c->a, c->last, "start", dim);
		onnx_attr_int(c->a, c->last, "end", dim + 1);
	}
	return lower_op(c, "Where", NULL, 3, lower_op(c, "Less", NULL, 2, s, zero), lower_op(c, "Add", NULL, 2, s, size), s);
}

/* slice_scatter with step 1 from opset 24: src is a block of consecutive
 * positions along dim (a KV-cache write), TensorScatter at start; start
 * may be a SymInt, and the shapes may be dynamic. */
static int
slice_scatter_block(LowerCtx *c, const Node *n, const Value *sv, int64_t dim, int64_t start)
{
	const Arg *sa = lower_arg(n, "start");
	const char *self = self_name(c, n), *at;

	if (sa && sa->kind == ARG_SYM_INT) {
		at = sym_start(c, n, sv, dim);
	} else {
		if (start < 0 && sv->dims[dim].e)
			return lower_fail(c, n, "a negative start on a dynamic dim is not supported");
		start = start < 0 ? start + sv->dims[dim].v : start;
		at = lower_i64(c, start < 0 ? 0 : start);
	}
	opsets_tensor_scatter(c, n, sv, self, lower_operand(c, n, "src", sv->dtype), dim, at);
	return 0;
}

/* slice_scatter(self, src, dim=0, start=None, end=None, step=1): src
 * written into the slice of self: ScatterElements (static shapes; start
 * may be a SymInt), or from opset 24 with step 1 slice_scatter_block(). */
int
lower_slice_scatter(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self"), *src = lower_arg_value(n, "src");
	int64_t dim = lower_axis(lower_int(c, n, "dim", 0), sv->rank), step = lower_int(c, n, "step", 1);
	const Arg *sa = lower_arg(n, "start");
	int64_t start, vdims[MAXR], *pos, size, len;

	(void)row;
	if (src && step == 1 && opsets_can_tensor_scatter(c, sv, dim))
		return slice_scatter_block(c, n, sv, dim, sa && sa->kind == ARG_SYM_INT ? 0 : lower_int(c, n, "start", 0));
	start = sa && sa->kind == ARG_SYM_INT ? 0 : lower_int(c, n, "start", 0);
	if (!src || !lower_static(sv) || !lower_static(src) || dim < 0 || dim >= sv->rank || sv->rank > MAXR)
		return lower_fail(c, n, "needs static shapes");
	size = sv->dims[dim].v;
	start = start < 0 ? start + size : start;
	start = start < 0 ? 0 : start > size ? size : start;
	len = src->dims[dim].v;
	pos = ARENA_ARRAY(c->a, int64_t, len + 1);
	for (int64_t i = 0; i < len; i++)
		pos[i] = start + i * step;
	for (int i = 0; i < src->rank; i++)
		vdims[i] = src->dims[i].v;
	/* a SymInt start: the positions from 0, moved by it in the graph */
	return scatter_at(c, n, self_name(c, n), lower_operand(c, n, "src", sv->dtype), src->rank, vdims, dim,
	                  len, pos, sa && sa->kind == ARG_SYM_INT ? sym_start(c, n, sv, dim) : NULL);
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
	const Value *sv = lower_tensor_arg(c, n, "self");
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
