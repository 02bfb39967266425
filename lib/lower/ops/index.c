/* index.c: lowerings of indexing, gathers and scatters (index.def).
 *
 * Advanced indexing (index.Tensor, index_put) follows torch: the index
 * tensors broadcast to one shape B; when they sit next to each other B
 * replaces their dims in place, else B comes first.  ONNX has GatherND and
 * ScatterND over leading dims, so self is transposed to put the indexed
 * dims first and the result is transposed back into torch's layout.
 * Scatters along a dim are ScatterElements, whose reductions (add, mul
 * from opset 16, max and min from 18, emulated before) cover scatter_add
 * and scatter_reduce.  Index tensors may be negative: Gather, GatherND
 * and ScatterElements accept [-size, size); ScatterND's get a Mod. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lower/lower.h"
#include "opsets.h"

#define MAXR 16

static const char *
self_name(LowerCtx *c, const Node *n)
{
	return lower_input(c, n, "self");
}

/* The static dims of v into d; 0 when a dim is dynamic or v is too large. */
static int
static_dims(const Value *v, int64_t *d)
{
	if (!v || v->rank > MAXR || !lower_static(v))
		return 0;
	for (int i = 0; i < v->rank; i++)
		d[i] = v->dims[i].v;
	return 1;
}

/* An index list: which dims of self carry a tensor (pos[0..k)), in order. */
typedef struct IndexList {
	int k;                  /* number of index tensors */
	int pos[MAXR];          /* the dim each indexes */
	const Value *ix[MAXR];  /* the index tensors */
	int adjacent;           /* the index tensors are consecutive */
	int nb;                 /* rank of their broadcast shape */
	int64_t b[MAXR];        /* their broadcast shape, when static */
	int dynamic;            /* some index dim is symbolic: b is not known */
} IndexList;

/* Reads indices (Tensor?[]) of n into il; 0 or lower_fail().  Needs integer
 * index tensors. */
static int
read_indices(LowerCtx *c, const Node *n, const Value *sv, IndexList *il)
{
	const Arg *ix = lower_arg(n, "indices");

	memset(il, 0, sizeof *il);
	if (!ix || (ix->kind != ARG_OPT_TENSORS && ix->kind != ARG_TENSORS) || !sv || ix->n > sv->rank ||
	    sv->rank > MAXR)
		return lower_fail(c, n, "needs a list of at most rank(self) indices");
	for (int i = 0; i < ix->n; i++) {
		const Value *v;
		if (ix->u.list[i].kind == ARG_NONE)
			continue;
		v = ix->u.list[i].u.v;
		if (v->dtype == DT_BOOL || dtype_is_float(v->dtype))
			return lower_fail(c, n, "boolean (data-dependent) indexing is not supported here");
		if (v->rank > MAXR)
			return lower_fail(c, n, "index tensors of rank above %d", MAXR);
		il->dynamic |= !lower_static(v);
		il->pos[il->k] = i;
		il->ix[il->k++] = v;
	}
	if (!il->k)
		return lower_fail(c, n, "no index tensor");
	il->adjacent = il->pos[il->k - 1] - il->pos[0] == il->k - 1;
	for (int i = 0; i < il->k; i++)
		il->nb = il->ix[i]->rank > il->nb ? il->ix[i]->rank : il->nb;
	for (int j = 0; j < il->nb; j++)
		il->b[j] = 1;
	for (int i = 0; i < il->k; i++) {
		const Value *v = il->ix[i];
		for (int d = 0; d < v->rank && !il->dynamic; d++) {
			int64_t *at = &il->b[il->nb - v->rank + d];
			if (*at == 1)
				*at = v->dims[d].v;
			else if (v->dims[d].v != 1 && v->dims[d].v != *at)
				return lower_fail(c, n, "index tensors do not broadcast");
		}
	}
	return 0;
}

/* The list position of the one boolean mask in n's indices when every
 * other item is None; -1 when there is no boolean index.  A mask beside
 * other index tensors fails (-2 after lower_fail()). */
static int
bool_mask(LowerCtx *c, const Node *n, const Value **mask)
{
	const Arg *ix = lower_arg(n, "indices");
	int at = -1, tensors = 0;

	if (!ix || (ix->kind != ARG_OPT_TENSORS && ix->kind != ARG_TENSORS))
		return -1;
	for (int i = 0; i < ix->n; i++) {
		if (ix->u.list[i].kind == ARG_NONE)
			continue;
		tensors++;
		if (ix->u.list[i].u.v->dtype == DT_BOOL) {
			at = i;
			*mask = ix->u.list[i].u.v;
		}
	}
	if (at >= 0 && tensors > 1)
		return lower_fail(c, n, "a boolean mask beside other index tensors is not supported"), -2;
	return at;
}

/* The true positions of a mask as GatherND/ScatterND indices: [N, rank]. */
static const char *
mask_positions(LowerCtx *c, const Value *mask)
{
	static const int64_t t[2] = {1, 0};

	return lower_perm(c, lower_op(c, "NonZero", NULL, 1, lower_value(c, mask)), 2, t, NULL);
}

/* An IndexList standing for a mask of rank m at list position p: m
 * adjacent indexed dims, one broadcast dim (the count of true values). */
static void
mask_list(IndexList *il, int p, int m)
{
	memset(il, 0, sizeof *il);
	il->k = m;
	for (int i = 0; i < m; i++)
		il->pos[i] = p + i;
	il->adjacent = 1;
	il->nb = 1;
	il->dynamic = 1;
}

/* self's dims reordered indexed-first (perm), for GatherND/ScatterND. */
static void
indexed_first(const IndexList *il, int r, int64_t *perm)
{
	int k = 0, used[MAXR] = {0};

	for (int i = 0; i < il->k; i++)
		used[perm[k++] = il->pos[i]] = 1;
	for (int i = 0; i < r; i++)
		if (!used[i])
			perm[k++] = i;
}

/* The index tensors as one int64 tensor of shape B + [k].  With sv (for
 * ScatterND, whose spec leaves negative indices out), made positive by a
 * Mod with the static size of the dim each indexes. */
static const char *
stacked(LowerCtx *c, const IndexList *il, const Value *sv)
{
	const char *parts[MAXR], *out;
	int64_t minus1 = -1;

	const char *b = NULL;

	for (int i = 0; i < il->k; i++) {
		const Value *v = il->ix[i];
		parts[i] = lower_cast(c, lower_value(c, v), v->dtype, DT_INT64);
	}
	if (il->dynamic && il->k > 1) {      /* B at run time: the shape of their sum */
		b = parts[0];
		for (int i = 1; i < il->k; i++)
			b = lower_op(c, "Add", NULL, 2, b, parts[i]);
		b = lower_op(c, "Shape", NULL, 1, b);
	}
	for (int i = 0; i < il->k; i++) {
		const Value *v = il->ix[i];
		const char *t = parts[i];
		int same = v->rank == il->nb && !il->dynamic;
		if (sv && !sv->dims[il->pos[i]].e)
			t = lower_op(c, "Mod", NULL, 2, t, lower_i64(c, sv->dims[il->pos[i]].v));
		else if (sv) {                  /* a dynamic dim: its size at run time */
			int64_t at = il->pos[i];
			const char *dim = lower_op(c, "Gather", NULL, 2, lower_shape(c, sv, lower_value(c, sv)),
			                           lower_i64s(c, 1, &at));
			t = lower_op(c, "Mod", NULL, 2, t, dim);
		}
		for (int d = 0; same && d < v->rank; d++)
			same = v->dims[d].v == il->b[d];
		if (!same && il->k > 1)
			t = lower_op(c, "Expand", NULL, 2, t, b ? b : lower_i64s(c, il->nb, il->b));
		parts[i] = lower_unsqueeze(c, t, 1, &minus1, NULL);
	}
	if (il->k == 1)
		return parts[0];
	out = lower_tmp(c);
	lower_emit(c, "Concat", il->k, parts, 1, &out);
	onnx_attr_int(c->a, c->last, "axis", -1);
	return out;
}

/* The permutation from GatherND's layout (B, then the other dims of self
 * in order) to torch's (B in place of adjacent indexed dims); rank nb +
 * r - k.  Returns 0 when it is the identity. */
static int
torch_layout(const IndexList *il, int r, int64_t *perm)
{
	int p = il->pos[0], rest = r - il->k, m = 0;

	if (!il->adjacent || p == 0)
		return 0;
	for (int i = 0; i < p; i++)
		perm[m++] = il->nb + i;
	for (int i = 0; i < il->nb; i++)
		perm[m++] = i;
	for (int i = p; i < rest; i++)
		perm[m++] = il->nb + i;
	return 1;
}

/* index.Tensor(self, indices): one index tensor is a Gather on its dim;
 * several a GatherND on self with the indexed dims moved first; a
 * boolean mask a GatherND of its true positions (NonZero), whose count is
 * known at run time only. */
int
lower_index(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self"), *mask = NULL;
	IndexList il;
	int64_t perm[2 * MAXR];
	const char *x, *idx;
	int r, at = bool_mask(c, n, &mask);

	if (at == -2)
		return DIAG_CONVERT;
	if (at >= 0) {
		if (!sv || at + mask->rank > sv->rank || sv->rank > MAXR)
			return lower_fail(c, n, "the mask has more dims than self");
		mask_list(&il, at, mask->rank);
		idx = mask_positions(c, mask);
	} else if (read_indices(c, n, sv, &il)) {
		return DIAG_CONVERT;
	}
	r = sv->rank;
	if (at < 0 && il.k == 1) {
		lower_op(c, row->onnx, lower_out(c, n, 0), 2, self_name(c, n), lower_value(c, il.ix[0]));
		onnx_attr_int(c->a, c->last, "axis", il.pos[0]);
		return 0;
	}
	if (at < 0)
		idx = stacked(c, &il, NULL);
	indexed_first(&il, r, perm);
	x = lower_perm(c, self_name(c, n), r, perm, NULL);
	if (!torch_layout(&il, r, perm)) {
		lower_op(c, "GatherND", lower_out(c, n, 0), 2, x, idx);
		return 0;
	}
	x = lower_op(c, "GatherND", NULL, 2, x, idx);
	lower_perm(c, x, il.nb + r - il.k, perm, lower_out(c, n, 0));
	return 0;
}

/* index_put with a boolean mask: one value (not accumulated) is a Where
 * with the mask unsqueezed to self's trailing dims; else, for a mask on
 * the leading dims, a ScatterND at its true positions of the values
 * broadcast to [count] + the other dims. */
static int
put_masked(LowerCtx *c, const Node *n, const OpRow *row, const Value *sv, const Value *vv, const Value *mask, int at,
           int accumulate)
{
	int64_t numel = 1, axes[MAXR], one = 1, zero = 0, m = mask->rank;
	const char *idx, *shape, *parts[2], *x;
	int k = 0;
	DType cdt = lower_opmath_nobool(sv->dtype);

	for (int i = 0; i < vv->rank; i++)
		numel *= vv->dims[i].e ? 2 : vv->dims[i].v;
	if (at + m > sv->rank || sv->rank > MAXR)
		return lower_fail(c, n, "the mask has more dims than self");
	if (numel == 1 && !accumulate) {
		const char *mk = lower_value(c, mask);
		for (int i = at + (int)m; i < sv->rank; i++)
			axes[k++] = i;
		if (k)
			mk = lower_unsqueeze(c, mk, k, axes, NULL);
		lower_result(c, n, "Where", cdt, 3, mk, lower_operand(c, n, "values", cdt), lower_operand(c, n, "self", cdt));
		return 0;
	}
	if (at != 0)
		return lower_fail(c, n, "a boolean mask after other dims takes one value only");
	idx = mask_positions(c, mask);
	parts[0] = lower_op(c, "Slice", NULL, 3, lower_op(c, "Shape", NULL, 1, idx), lower_i64s(c, 1, &zero),
	                    lower_i64s(c, 1, &one));
	parts[1] = lower_op(c, "Slice", NULL, 3, lower_op(c, "Shape", NULL, 1, self_name(c, n)), lower_i64s(c, 1, &m),
	                    lower_i64s(c, 1, &(int64_t){INT64_MAX}));
	shape = lower_tmp(c);
	lower_emit(c, "Concat", 2, parts, 1, &shape);
	onnx_attr_int(c->a, c->last, "axis", 0);
	x = lower_op(c, row->onnx, NULL, 3, lower_operand(c, n, "self", cdt), idx,
	             lower_op(c, "Expand", NULL, 2, lower_operand(c, n, "values", cdt), shape));
	if (accumulate)
		onnx_attr_string(c->a, c->last, "reduction", "add");
	lower_finish_typed(c, n, 0, x, cdt);
	return 0;
}

/* The start of index iv when torch made it with arange(start, end) (step
 * 1, int64, 1-D; start an int >= 0 or a SymInt), as a 0-d int64; else NULL.
 * Such an index writes one block of consecutive positions (a KV-cache
 * write at cache_position = arange(past, past + new)). */
static const char *
arange_start(LowerCtx *c, const Value *iv)
{
	const Node *a = iv ? iv->def : NULL;
	const Arg *st;

	if (!a || iv->rank != 1 || iv->dtype != DT_INT64)
		return NULL;
	if (strcmp(a->op, "aten.arange.default") == 0)
		return lower_i64(c, 0);
	if (strcmp(a->op, "aten.arange.start") != 0 && strcmp(a->op, "aten.arange.start_step") != 0)
		return NULL;
	st = lower_arg(a, "step");
	if (st && !(st->kind == ARG_INT && st->u.i == 1))
		return NULL;
	st = lower_arg(a, "start");
	if (!st || (st->kind == ARG_INT && st->u.i >= 0))
		return lower_i64(c, st ? st->u.i : 0);
	return st->kind == ARG_SYM_INT ? lower_operand(c, a, "start", DT_INT64) : NULL;
}

/* 1 when dims a and b are the same size (static and equal, or the same
 * expression). */
static int
dim_same(Dim a, Dim b)
{
	return a.e || b.e ? a.e && b.e && sym_equal(a.e, b.e) : a.v == b.v;
}

/* index_put(self, [None, ..., index], values) with one index tensor, at dim
 * > 0, made by arange (arange_start) and values of the block's own shape
 * (no broadcast): from opset 24 a TensorScatter, the KV-cache write
 * cache[:, :, arange(past, past + new)] = kv.  1 when lowered so. */
static int
put_block(LowerCtx *c, const Node *n, const Value *sv, const Value *vv)
{
	const Arg *ix = lower_arg(n, "indices");
	const Value *iv = NULL;
	const char *at;
	int dim = -1;

	if (!ix || (ix->kind != ARG_OPT_TENSORS && ix->kind != ARG_TENSORS))
		return 0;
	for (int i = 0; i < ix->n; i++) {
		if (ix->u.list[i].kind == ARG_NONE)
			continue;
		if (iv)
			return 0;
		iv = ix->u.list[i].u.v;
		dim = i;
	}
	if (!iv || iv->rank != 1 || !opsets_can_tensor_scatter(c, sv, dim) || vv->rank != sv->rank)
		return 0;
	for (int d = 0; d < sv->rank; d++)
		if (!dim_same(vv->dims[d], d == dim ? iv->dims[0] : sv->dims[d]))
			return 0;
	if (!(at = arange_start(c, iv)))
		return 0;
	opsets_tensor_scatter(c, n, sv, lower_input(c, n, "self"), lower_operand(c, n, "values", sv->dtype), dim, at);
	return 1;
}

/* The shape of self[indices] in torch's layout as a 1-D int64, and its rank
 * in *m: the dims of self before adjacent indexed dims, the index tensors'
 * broadcast shape B, the other dims of self (perm: self's dims indexed
 * first).  A constant when self and the indices are static, else built at
 * run time from Shape(self) and the shape of the indices' sum. */
static const char *
put_shape(LowerCtx *c, const Node *n, const IndexList *il, const Value *sv, const int64_t *perm, int *m)
{
	int64_t pre[MAXR], post[MAXR], sd[MAXR], res[2 * MAXR];
	int npre = 0, npost = 0, r = sv->rank;
	const char *parts[3], *b, *s, *out;
	int k = 0;

	if (il->adjacent)
		for (int i = 0; i < il->pos[0]; i++)
			pre[npre++] = i;
	for (int i = il->k; i < r; i++)
		if (!il->adjacent || perm[i] > il->pos[0])
			post[npost++] = perm[i];
	*m = npre + il->nb + npost;
	if (static_dims(sv, sd) && !il->dynamic) {
		for (int i = 0; i < npre; i++)
			res[i] = sd[pre[i]];
		for (int i = 0; i < il->nb; i++)
			res[npre + i] = il->b[i];
		for (int i = 0; i < npost; i++)
			res[npre + il->nb + i] = sd[post[i]];
		return lower_i64s(c, *m, res);
	}
	s = lower_shape(c, sv, lower_input(c, n, "self"));
	b = lower_cast(c, lower_value(c, il->ix[0]), il->ix[0]->dtype, DT_INT64);
	for (int i = 1; i < il->k; i++)
		b = lower_op(c, "Add", NULL, 2, b, lower_cast(c, lower_value(c, il->ix[i]), il->ix[i]->dtype, DT_INT64));
	b = lower_op(c, "Shape", NULL, 1, b);
	if (npre)
		parts[k++] = lower_op(c, "Gather", NULL, 2, s, lower_i64s(c, npre, pre));
	parts[k++] = b;
	if (npost)
		parts[k++] = lower_op(c, "Gather", NULL, 2, s, lower_i64s(c, npost, post));
	if (k == 1)
		return b;
	out = lower_tmp(c);
	lower_emit(c, "Concat", k, parts, 1, &out);
	onnx_attr_int(c->a, c->last, "axis", 0);
	return out;
}

/* index_put(self, indices, values, accumulate=False): a ScatterND (with
 * reduction add when accumulating) into self with the indexed dims moved
 * first; values are broadcast to the indexing result in torch's layout,
 * then brought into ScatterND's.  A boolean mask: put_masked(); a block
 * at arange positions from opset 24: put_block(). */
int
lower_index_put(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self"), *vv = lower_arg_value(n, "values"), *mask = NULL;
	int accumulate = (int)lower_int(c, n, "accumulate", 0), r, m = 0, at;
	DType cdt;
	int64_t perm[MAXR], inv[MAXR], tperm[2 * MAXR], tinv[2 * MAXR];
	const char *x, *upd, *shape;
	IndexList il;

	if (!vv || !sv)
		return lower_fail(c, n, "needs self and values");
	if ((at = bool_mask(c, n, &mask)) == -2)
		return DIAG_CONVERT;
	if (at >= 0)
		return put_masked(c, n, row, sv, vv, mask, at, accumulate);
	if (!accumulate && put_block(c, n, sv, vv))
		return 0;
	if (read_indices(c, n, sv, &il))
		return DIAG_CONVERT;
	if (sv->rank > MAXR)
		return lower_fail(c, n, "self of rank above %d", MAXR);
	r = sv->rank;
	indexed_first(&il, r, perm);
	for (int i = 0; i < r; i++)
		inv[perm[i]] = i;
	shape = put_shape(c, n, &il, sv, perm, &m);
	cdt = lower_opmath_nobool(sv->dtype);
	upd = lower_op(c, "Expand", NULL, 2, lower_operand(c, n, "values", cdt), shape);
	if (torch_layout(&il, r, tperm)) {
		for (int i = 0; i < m; i++)
			tinv[tperm[i]] = i;
		upd = lower_perm(c, upd, m, tinv, NULL);
	}
	x = lower_perm(c, lower_operand(c, n, "self", cdt), r, perm, NULL);
	x = lower_op(c, row->onnx, NULL, 3, x, stacked(c, &il, sv), upd);
	if (accumulate)
		onnx_attr_string(c->a, c->last, "reduction", "add");
	lower_finish_typed(c, n, 0, lower_perm(c, x, r, inv, NULL), cdt);
	return 0;
}

/* gather(self, dim, index, sparse_grad=False), take_along_dim(self,
 * indices, dim=None): GatherElements; without dim, of the flattened self. */
int
lower_gather(LowerCtx *c, const Node *n, const OpRow *row)
{
	const char *x = self_name(c, n), *idx = lower_input(c, n, lower_arg(n, "index") ? "index" : "indices");
	const Arg *dim = lower_arg(n, "dim");
	int64_t minus1 = -1;

	if (!dim || dim->kind == ARG_NONE) {
		x = lower_op(c, "Reshape", NULL, 2, x, lower_i64s(c, 1, &minus1));
		idx = lower_op(c, "Reshape", NULL, 2, idx, lower_i64s(c, 1, &minus1));
	}
	lower_op(c, row->onnx, lower_out(c, n, 0), 2, x, idx);
	onnx_attr_int(c->a, c->last, "axis", lower_int(c, n, "dim", 0));
	return 0;
}

/* index_select(self, dim, index): Gather on dim. */
int
lower_index_select(LowerCtx *c, const Node *n, const OpRow *row)
{
	static const int64_t zero[1] = {0};
	const Value *self = lower_tensor_arg(c, n, "self");
	const char *x = self_name(c, n);

	if (self->rank == 0) {          /* torch takes a 0-d self as [1] and gives 0-d; Gather needs rank >= 1 */
		x = lower_op(c, row->onnx, NULL, 2, lower_unsqueeze(c, x, 1, zero, NULL), lower_input(c, n, "index"));
		onnx_attr_int(c->a, c->last, "axis", 0);
		lower_op(c, "Reshape", lower_out(c, n, 0), 2, x, lower_i64s(c, 0, NULL));
		return 0;
	}
	{
		/* torch takes a 0-d index as [1] (the dim stays); Gather would drop it */
		const Value *iv = lower_arg_value(n, "index");
		const char *ix = lower_input(c, n, "index");
		if (iv && iv->rank == 0)
			ix = lower_unsqueeze(c, ix, 1, zero, NULL);
		lower_op(c, row->onnx, lower_out(c, n, 0), 2, x, ix);
	}
	onnx_attr_int(c->a, c->last, "axis", lower_int(c, n, "dim", 0));
	return 0;
}

/* fit() for an index of dynamic shape (ONNX name idx): src as it is when
 * its dims are the index's, else its leading part Slice'd to Shape(idx). */
static const char *
fit_dyn(LowerCtx *c, const char *x, const Value *xv, const Value *iv, const char *idx)
{
	int64_t zeros[MAXR] = {0};
	int same = xv->rank == iv->rank;

	for (int i = 0; same && i < iv->rank; i++)
		same = dim_same(xv->dims[i], iv->dims[i]);
	if (same)
		return x;
	return lower_op(c, "Slice", NULL, 3, x, lower_i64s(c, iv->rank, zeros), lower_op(c, "Shape", NULL, 1, idx));
}

/* x cut to shape to (static): torch's scatters read only the part of src
 * the index covers, ScatterElements wants updates of the index's shape. */
static const char *
fit(LowerCtx *c, const char *x, const Value *xv, const int64_t *to, int r)
{
	int64_t zeros[MAXR] = {0};
	int same = xv->rank == r;

	for (int i = 0; same && i < r; i++)
		same = !xv->dims[i].e && xv->dims[i].v == to[i];
	if (same)
		return x;
	return lower_op(c, "Slice", NULL, 3, x, lower_i64s(c, r, zeros), lower_i64s(c, r, to));
}

/* Emits ScatterElements(data, index, updates, axis=dim[, reduction]) into
 * out (NULL: fresh); returns its output. */
static const char *
scatter_elements(LowerCtx *c, const char *out, const char *data, const char *index, const char *upd,
                 int64_t dim, const char *reduction)
{
	lower_op(c, "ScatterElements", out, 3, data, index, upd);
	onnx_attr_int(c->a, c->last, "axis", dim);
	if (reduction)
		onnx_attr_string(c->a, c->last, "reduction", reduction);
	return c->last->output[0];
}

/* A tensor of x's shape filled with v, in dtype t (x's). */
static const char *
filled_like(LowerCtx *c, const char *x, DType t, double v)
{
	uint8_t b[16];

	if (lower_encode(t, v, b))
		lower_fail(c, c->node, "no constant of dtype %s", dtype_name(t));
	lower_op(c, "ConstantOfShape", NULL, 1, lower_op(c, "Shape", NULL, 1, x));
	onnx_attr_tensor(c->a, c->last, "value", onnx_tensor(c->a, "", dtype_onnx(t), 1, (int64_t[]){1},
	                 arena_dup(c->a, b, sizeof b), (size_t)dtype_size(t)));
	return c->last->output[0];
}

/* The reduction identity: what a position no update reaches starts from
 * when include_self is False. */
static double
identity_of(const char *reduce)
{
	if (strcmp(reduce, "prod") == 0)
		return 1;
	if (strcmp(reduce, "amax") == 0)
		return -INFINITY;
	if (strcmp(reduce, "amin") == 0)
		return INFINITY;
	return 0;
}

/* ScatterElements' max/min reductions (opset 18) for earlier opsets: one
 * index position along dim at a time, each a gather of the current values,
 * Max/Min with the updates and a plain scatter back (positions within one
 * such slice are distinct, so nothing collides). */
static const char *
scatter_extreme(LowerCtx *c, const char *x, const char *idx, const char *src, const int64_t *idims,
                int64_t dim, const char *red)
{
	const char *ax = lower_i64s(c, 1, &dim), *op = strcmp(red, "max") == 0 ? "Max" : "Min";

	for (int64_t j = 0; j < idims[dim]; j++) {
		int64_t e = j + 1;
		const char *b = lower_i64s(c, 1, &j), *en = lower_i64s(c, 1, &e);
		const char *ij = lower_op(c, "Slice", NULL, 4, idx, b, en, ax);
		const char *sj = lower_op(c, "Slice", NULL, 4, src, b, en, ax);
		const char *g = lower_op(c, "GatherElements", NULL, 2, x, ij);
		onnx_attr_int(c->a, c->last, "axis", dim);
		x = scatter_elements(c, NULL, x, ij, lower_op(c, op, NULL, 2, g, sj), dim, NULL);
	}
	return x;
}

/* scatter.src(self, dim, index, src), scatter.value(self, dim, index,
 * value), scatter_add(self, dim, index, src), scatter_reduce.two(self,
 * dim, index, src, reduce, include_self=True).  reduce: sum, prod, amax,
 * amin (ScatterElements' add, mul, max, min) and mean (a sum divided by
 * the count of values each position received, self counted when
 * included).  Without self, the positions an update reaches start from the
 * reduction's identity. */
int
lower_scatter(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self"), *iv = lower_arg_value(n, "index");
	const Value *srcv = lower_arg_value(n, "src");
	DType cdt = lower_opmath(lower_out_dtype(n, 0));
	int64_t dim = lower_axis(lower_int(c, n, "dim", 0), sv ? sv->rank : 0), idims[MAXR];
	const char *reduce = lower_str(c, n, "reduce", NULL), *red = NULL, *x, *idx, *src, *r;
	int include_self = (int)lower_int(c, n, "include_self", 1), mean = 0;

	if (!sv || !iv || iv->rank > MAXR)
		return lower_fail(c, n, "needs self and an index");
	idx = lower_value(c, iv);
	x = lower_operand(c, n, "self", cdt);
	if (!static_dims(iv, idims))            /* a dynamic index: its shape at run time */
		src = srcv ? fit_dyn(c, lower_operand(c, n, "src", cdt), srcv, iv, idx)
		           : lower_op(c, "Expand", NULL, 2, lower_operand(c, n, "value", cdt),
		                      lower_op(c, "Shape", NULL, 1, idx));
	else if (srcv)
		src = fit(c, lower_operand(c, n, "src", cdt), srcv, idims, iv->rank);
	else
		src = lower_op(c, "Expand", NULL, 2, lower_operand(c, n, "value", cdt), lower_i64s(c, iv->rank, idims));
	if (row->variant == OPV_ADD)
		reduce = "sum";
	if (reduce) {
		mean = strcmp(reduce, "mean") == 0;
		red = strcmp(reduce, "sum") == 0 || mean ? "add" : strcmp(reduce, "prod") == 0 ? "mul"
		    : strcmp(reduce, "amax") == 0 ? "max" : strcmp(reduce, "amin") == 0 ? "min" : NULL;
		if (!red)
			return lower_fail(c, n, "reduce '%s' is not supported", reduce);
		if ((strcmp(red, "max") == 0 || strcmp(red, "min") == 0) && c->opset < 18 &&
		    (!lower_static(iv) || idims[dim] > 1024))
			return lower_fail(c, n, "reduce '%s' before opset 18 needs a static index of at most 1024 along dim",
			                  reduce);
	}
	if (reduce && !include_self) {
		const char *hit = scatter_elements(c, NULL, filled_like(c, x, DT_BOOL, 0), idx,
		                                   filled_like(c, src, DT_BOOL, 1), dim, NULL);
		x = lower_op(c, "Where", NULL, 3, hit, lower_scalar(c, cdt, identity_of(reduce)), x);
	}
	if (red && (strcmp(red, "max") == 0 || strcmp(red, "min") == 0) && c->opset < 18) {
		lower_finish_typed(c, n, 0, scatter_extreme(c, x, idx, src, idims, dim, red), cdt);
		return 0;
	}
	if (!mean) {
		if (cdt == lower_out_dtype(n, 0))
			scatter_elements(c, lower_out(c, n, 0), x, idx, src, dim, red);
		else
			lower_finish_typed(c, n, 0, scatter_elements(c, NULL, x, idx, src, dim, red), cdt);
		return 0;
	}
	/* mean: sum / count, count >= 1 where self is included or reached */
	{
		const char *cnt = filled_like(c, x, cdt, include_self);
		r = scatter_elements(c, NULL, x, idx, src, dim, "add");
		cnt = scatter_elements(c, NULL, cnt, idx, filled_like(c, src, cdt, 1), dim, "add");
		cnt = lower_op(c, "Max", NULL, 2, cnt, lower_scalar(c, cdt, 1));
		lower_result(c, n, "Div", cdt, 2, r, cnt);
	}
	return 0;
}

/* A 1-D index along dim, reshaped to [1.., L, ..1] and expanded to shape
 * (rank r): ScatterElements indices for whole slices at those positions. */
static const char *
along(LowerCtx *c, const char *index, int r, int64_t dim, const int64_t *shape)
{
	int64_t s[MAXR];

	for (int i = 0; i < r; i++)
		s[i] = i == dim ? -1 : 1;
	index = lower_op(c, "Reshape", NULL, 2, index, lower_i64s(c, r, s));
	return lower_op(c, "Expand", NULL, 2, index, lower_i64s(c, r, shape));
}

/* index_add(self, dim, index, source, alpha=1), index_copy(self, dim,
 * index, source), index_fill.int_Scalar(self, dim, index, value): whole
 * slices of self at the index positions along dim, added to, replaced or
 * filled: ScatterElements with the index expanded over the slices.  From
 * opset 24 an index_copy at arange(start, ...) is TensorScatter. */
int
lower_index_add(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self"), *iv = lower_arg_value(n, "index");
	DType cdt = lower_opmath(lower_out_dtype(n, 0));
	int64_t dim = lower_axis(lower_int(c, n, "dim", 0), sv ? sv->rank : 0), shape[MAXR];
	int add = row->variant == OPV_ADD;
	const char *upd, *r;

	if (!add && lower_arg(n, "source") && opsets_can_tensor_scatter(c, sv, dim) && (r = arange_start(c, iv))) {
		opsets_tensor_scatter(c, n, sv, lower_input(c, n, "self"), lower_operand(c, n, "source", sv->dtype), dim, r);
		return 0;
	}
	if (!sv || !iv || !static_dims(sv, shape) || iv->rank > 1 || (iv->rank == 1 && iv->dims[0].e) || dim < 0 || dim >= sv->rank)
		return lower_fail(c, n, "needs a static self and a 1-D index");
	shape[dim] = iv->rank ? iv->dims[0].v : 1;
	if (lower_arg(n, "source")) {
		upd = lower_operand(c, n, "source", cdt);
		if (add && lower_float(c, n, "alpha", 1.0) != 1.0)
			upd = lower_op(c, "Mul", NULL, 2, upd, lower_operand(c, n, "alpha", cdt));
	} else {
		upd = lower_op(c, "Expand", NULL, 2, lower_operand(c, n, "value", cdt), lower_i64s(c, sv->rank, shape));
	}
	r = scatter_elements(c, NULL, lower_operand(c, n, "self", cdt), along(c, lower_value(c, iv), sv->rank, dim, shape),
	                     upd, dim, add ? "add" : NULL);
	lower_finish_typed(c, n, 0, r, cdt);
	return 0;
}

/* one_hot(self, num_classes=-1): self's values compared with
 * 0..num_classes-1 on a new last dim, as int64.  num_classes -1 (the
 * data's max + 1) is data-dependent. */
int
lower_one_hot(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	int64_t k = lower_int(c, n, "num_classes", -1), minus1 = -1, *cls;
	const char *x;

	if (k < 0) {
		const Value *ov = lower_out_value(n, 0);
		if (!ov || !ov->rank || ov->dims[ov->rank - 1].e)
			return lower_fail(c, n, "num_classes=-1 (data-dependent) is not supported");
		k = ov->dims[ov->rank - 1].v;
	}
	cls = ARENA_ARRAY(c->a, int64_t, k + 1);
	for (int64_t i = 0; i < k; i++)
		cls[i] = i;
	x = lower_unsqueeze(c, lower_cast(c, self_name(c, n), sv->dtype, DT_INT64), 1, &minus1, NULL);
	lower_result(c, n, "Cast", DT_INT64, 1, lower_op(c, row->onnx, NULL, 2, x, lower_i64s(c, (int)k, cls)));
	onnx_attr_int(c->a, c->last, "to", dtype_onnx(DT_INT64));
	return 0;
}
