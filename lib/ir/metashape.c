/* metashape.c: the dtype and shape rules of views and shape changes
 * (view, reshape with -1, expand, flatten, squeeze, permute, repeat),
 * joins and splits (cat, stack, split, chunk, unbind into several
 * results), indexing (select, slice, narrow, index_select, gather,
 * embedding, advanced indexing) and padding and resizing. */
#include "ir/internal.h"

#include <limits.h>
#include <string.h>

/* ==== views and shape changes ==== */

/* The number of elements of dims as a polynomial (NULL on overflow). */
static Poly *
numel_poly(MetaCtx *c, int rank, const Dim *d)
{
	Poly *p = poly_int(c->a, 1);

	for (int i = 0; i < rank && p; i++)
		p = poly_mul(c->a, p, d[i].e ? poly_sym(c->a, d[i].e) : poly_int(c->a, d[i].v));
	return p;
}

/* Fills a -1 in sizes[0..k) so their product is x's numel (torch's
 * infer_size); fails when the sizes cannot hold x's elements. */
static int
infer_minus_one(MetaCtx *c, const Value *x, int k, Dim *d)
{
	Poly *total = numel_poly(c, x->rank, x->dims), *rest = poly_int(c->a, 1), *q;
	int at = -1;
	int64_t v, r;

	for (int i = 0; i < k; i++) {
		if (meta_dim_is(d[i], -1)) {
			if (at >= 0)
				return meta_fail(c, "only one dimension can be inferred");
			at = i;
			continue;
		}
		if (!d[i].e && d[i].v < 0)
			return meta_fail(c, "invalid shape dimension %lld", (long long)d[i].v);
		rest = poly_mul(c->a, rest, d[i].e ? poly_sym(c->a, d[i].e) : poly_int(c->a, d[i].v));
	}
	if (!total || !rest)
		return meta_fail(c, "element count too large");
	if (at < 0) {
		if (poly_equal(total, rest))
			return 0;
		if (poly_const(total, &v) && poly_const(rest, &r))
			return meta_fail(c, "shape %s is invalid for input of size %lld", meta_shape_str(c, k, d), (long long)v);
		return meta_fail(c, "cannot tell that shape %s holds the %s elements of %s", meta_shape_str(c, k, d),
		            sym_print(c->a, poly_expr(c->a, total)), meta_shape_str(c, x->rank, x->dims));
	}
	if (poly_const(total, &v) && poly_const(rest, &r)) {
		if (r == 0 || v % r)
			return meta_fail(c, "shape %s is invalid for input of size %lld", meta_shape_str(c, k, d), (long long)v);
		d[at] = meta_dim_n(v / r);
		return 0;
	}
	if ((q = poly_div_term(c->a, total, rest))) {
		d[at] = meta_dim_e(c, poly_expr(c->a, q), -1);
		return 0;
	}
	if (poly_const(rest, &r) && r > 0) {
		d[at] = meta_dim_op(c, SYM_FLOORDIV, meta_dim_e(c, poly_expr(c->a, total), -1), meta_dim_n(r));
		return 0;
	}
	return meta_fail(c, "cannot divide the %s elements of %s by %s", sym_print(c->a, poly_expr(c->a, total)),
	            meta_shape_str(c, x->rank, x->dims), sym_print(c->a, poly_expr(c->a, rest)));
}

/* view, reshape, expand and their _as forms; p is VIEW_*. */
int
meta_rule_view(MetaCtx *c)
{
	Value *x = meta_first_tensor(c), *other = meta_tensor(c, "other");
	Dim *d;
	int k;

	if (!x)
		return meta_fail(c, "no tensor argument");
	if (c->row->p == VIEW_AS || c->row->p == EXPAND_AS) {
		if (!other)
			return meta_fail(c, "argument 'other' is not a tensor");
		k = other->rank;
		d = ARENA_ARRAY(c->a, Dim, k + 1);
		memcpy(d, other->dims, sizeof *d * (size_t)k);
	} else if ((k = meta_get_dims(c, "size", 0, &d)) < 0 && (k = meta_get_dims(c, "shape", 0, &d)) < 0) {
		return meta_fail(c, "argument 'size' is not a list of sizes");
	}
	if (c->row->p == VIEW_SIZE || c->row->p == VIEW_AS)
		return infer_minus_one(c, x, k, d) ? -1 : meta_out_tensor(c, x->dtype, k, d);
	/* expand: new dims in front; -1 keeps a dim; a dim grows only from 1 */
	if (k < x->rank)
		return meta_fail(c, "the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)",
		            k, x->rank);
	for (int i = 0; i < k; i++) {
		int j = i - (k - x->rank);
		if (j < 0) {
			if (!d[i].e && d[i].v < 0)
				return meta_fail(c, "the expanded size of the tensor (%lld) isn't allowed in a leading, non-existing dimension %d",
				            (long long)d[i].v, i);
			continue;
		}
		if (meta_dim_is(d[i], -1) || meta_dim_eq(d[i], x->dims[j]))
			d[i] = x->dims[j];
		else if (!meta_dim_is(x->dims[j], 1))
			return meta_fail(c, "the expanded size of the tensor (%s) must match the existing size (%s) at non-singleton dimension %d",
			            meta_shape_str(c, 1, &d[i]), meta_shape_str(c, 1, &x->dims[j]), i);
		else if (!d[i].e && d[i].v < 0)
			return meta_fail(c, "invalid expanded size %lld", (long long)d[i].v);
	}
	return meta_out_tensor(c, x->dtype, k, d);
}

/* flatten(start_dim, end_dim) and unflatten(dim, sizes). p: 0 flatten, 1 unflatten. */
int
meta_rule_flatten(MetaCtx *c)
{
	Value *x = meta_first_tensor(c);
	Dim d[MAX_RANK * 2 + 1], *s;
	int64_t a, b;
	int wa, wb, k = 0, ns;

	if (!x || x->rank > MAX_RANK)
		return meta_fail(c, "no tensor argument of at most %d dims", MAX_RANK);
	if (c->row->p == 0) {
		if (meta_need_int(c, "start_dim", 0, &a) || meta_need_int(c, "end_dim", -1, &b) ||
		    meta_wrap(c, a, x->rank, &wa) || meta_wrap(c, b, x->rank, &wb))
			return -1;
		if (wa > wb)
			return meta_fail(c, "flatten() has invalid args: start_dim cannot come after end_dim");
		if (!x->rank) {
			d[0] = meta_dim_n(1);
			return meta_out_tensor(c, x->dtype, 1, d);
		}
		for (int i = 0; i < wa; i++)
			d[k++] = x->dims[i];
		d[k++] = meta_dim_prod(c, wb - wa + 1, x->dims + wa);
		for (int i = wb + 1; i < x->rank; i++)
			d[k++] = x->dims[i];
		return meta_out_tensor(c, x->dtype, k, d);
	}
	if (meta_need_int(c, "dim", 0, &a) || meta_wrap(c, a, x->rank, &wa))
		return -1;
	if ((ns = meta_get_dims(c, "sizes", 0, &s)) < 1)
		return meta_fail(c, "unflatten: sizes must be non-empty");
	if (ns > MAX_RANK)
		return meta_fail(c, "unflatten: too many sizes");
	{
		Value part = *x;
		part.rank = x->rank ? 1 : 0;
		part.dims = x->rank ? &x->dims[wa] : NULL;
		if (infer_minus_one(c, &part, ns, s))
			return -1;
	}
	for (int i = 0; i < wa; i++)
		d[k++] = x->dims[i];
	for (int i = 0; i < ns; i++)
		d[k++] = s[i];
	for (int i = wa + 1; i < x->rank; i++)
		d[k++] = x->dims[i];
	return meta_out_tensor(c, x->dtype, k, d);
}

/* squeeze (all size-1 dims, one dim, or a list) and unsqueeze. p: 0
 * squeeze, 1 unsqueeze.  A symbolic dim is taken as not 1. */
int
meta_rule_squeeze(MetaCtx *c)
{
	Value *x = meta_first_tensor(c);
	unsigned char mask[MAX_RANK];
	Dim d[MAX_RANK + 1];
	int64_t v;
	int k = 0, w;

	if (!x || x->rank >= MAX_RANK)
		return meta_fail(c, "no tensor argument of fewer than %d dims", MAX_RANK);
	if (c->row->p == 1) {
		if (meta_need_int(c, "dim", 0, &v) || meta_wrap(c, v, x->rank + 1, &w))
			return -1;
		for (int i = 0; i <= x->rank; i++)
			d[i] = i < w ? x->dims[i] : i == w ? meta_dim_n(1) : x->dims[i - 1];
		return meta_out_tensor(c, x->dtype, x->rank + 1, d);
	}
	if ((k = meta_reduced(c, x, "dim", mask)) < 0)
		return -1;
	if (k)        /* squeeze.dims over [] squeezes nothing */
		memset(mask, 0, sizeof mask);
	k = 0;
	for (int i = 0; i < x->rank; i++)
		if (!(mask[i] && meta_dim_is(x->dims[i], 1)))
			d[k++] = x->dims[i];
	return meta_out_tensor(c, x->dtype, k, d);
}

/* permute, transpose, t, movedim, swapaxes: the dims reordered.  p is PERM_*. */
int
meta_rule_permute(MetaCtx *c)
{
	Value *x = meta_first_tensor(c);
	int perm[MAX_RANK], w0, w1;
	unsigned char seen[MAX_RANK] = { 0 };
	Dim d[MAX_RANK];
	int64_t a, b, *v, *u;
	int k, r;

	if (!x || x->rank > MAX_RANK)
		return meta_fail(c, "no tensor argument of at most %d dims", MAX_RANK);
	r = x->rank;
	for (int i = 0; i < r; i++)
		perm[i] = i;
	switch (c->row->p) {
	case PERM_LIST:
		if ((k = meta_get_ints(c, "dims", 0, &v)) < 0)
			return meta_fail(c, "argument 'dims' is not a list of ints");
		if (k != r)
			return meta_fail(c, "permute: number of dims don't match (input has %d, permutation has %d)", r, k);
		for (int i = 0; i < r; i++) {
			if (meta_wrap(c, v[i], r, &w0))
				return -1;
			if (seen[w0]++)
				return meta_fail(c, "permute: repeated dim %d", w0);
			perm[i] = w0;
		}
		break;
	case PERM_SWAP: case PERM_SWAPAXES:
		if (meta_need_int(c, c->row->p == PERM_SWAP ? "dim0" : "axis0", 0, &a) ||
		    meta_need_int(c, c->row->p == PERM_SWAP ? "dim1" : "axis1", 0, &b) ||
		    meta_wrap(c, a, r, &w0) || meta_wrap(c, b, r, &w1))
			return -1;
		if (r) {
			perm[w0] = w1;
			perm[w1] = w0;
		}
		break;
	case PERM_REV:          /* numpy_T: every dim reversed */
		for (int i = 0; i < r; i++)
			perm[i] = r - 1 - i;
		break;
	case PERM_T:
		if (r > 2)
			return meta_fail(c, "t() expects a tensor with <= 2 dimensions, but self is %dD", r);
		if (r == 2) {
			perm[0] = 1;
			perm[1] = 0;
		}
		break;
	case PERM_MOVEDIM: {
		int src[MAX_RANK], dst[MAX_RANK], used[MAX_RANK] = { 0 }, taken[MAX_RANK] = { 0 };
		int ks = meta_get_ints(c, "source", 0, &v), kd = meta_get_ints(c, "destination", 0, &u), next = 0;
		if (ks < 0 || kd < 0)
			return meta_fail(c, "movedim: source and destination must be ints");
		if (ks != kd)
			return meta_fail(c, "movedim: invalid source or destination dims: source (%d dims) should contain the same number of dims as destination (%d dims)", ks, kd);
		for (int i = 0; i < ks; i++) {
			if (meta_wrap(c, v[i], r, &src[i]) || meta_wrap(c, u[i], r, &dst[i]))
				return -1;
			if (used[src[i]]++ || taken[dst[i]]++)
				return meta_fail(c, "movedim: repeated dim");
		}
		for (int i = 0; i < r; i++)
			perm[i] = -1;
		for (int i = 0; i < ks; i++)
			perm[dst[i]] = src[i];
		for (int i = 0; i < r; i++) {
			if (perm[i] >= 0)
				continue;
			while (used[next])
				next++;
			perm[i] = next++;
		}
		break;
	}
	default:
		return meta_fail(c, "unknown permutation form");
	}
	for (int i = 0; i < r; i++)
		d[i] = x->dims[perm[i]];
	return meta_out_tensor(c, x->dtype, r, d);
}

/* repeat(repeats) and tile(dims): sizes times the repeats, the shorter
 * side padded with 1s in front. p: 0 repeat, 1 tile. */
int
meta_rule_repeat(MetaCtx *c)
{
	Value *x = meta_first_tensor(c);
	Dim *rp, d[MAX_RANK];
	int k = meta_get_dims(c, c->row->p ? "dims" : "repeats", 0, &rp), r;

	if (!x || k < 0 || k > MAX_RANK || x->rank > MAX_RANK)
		return meta_fail(c, "expected a tensor and a list of repeats");
	if (!c->row->p && k < x->rank)
		return meta_fail(c, "number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
	r = k > x->rank ? k : x->rank;
	for (int i = 0; i < r; i++) {
		int j = i - (r - x->rank), l = i - (r - k);
		Dim s = j >= 0 ? x->dims[j] : meta_dim_n(1), m = l >= 0 ? rp[l] : meta_dim_n(1);
		if (!m.e && m.v < 0)
			return meta_fail(c, "repeats can not be negative");
		d[i] = meta_dim_op(c, SYM_MUL, s, m);
	}
	return meta_out_tensor(c, x->dtype, r, d);
}

/* ==== joins and splits ==== */

/* cat and stack: p 0 cat, 1 stack.  The dtype promotes over the list;
 * cat skips the legacy empty 1-D tensors. */
int
meta_rule_cat(MetaCtx *c)
{
	Value **ts, *ref = NULL;
	Dim d[MAX_RANK + 1];
	int64_t dim;
	DType t = DT_UNKNOWN;
	int k = meta_get_tensors(c, "tensors", &ts), w, r, stack = c->row->p == 1;

	if (k < 0)
		return meta_fail(c, "argument 'tensors' is not a list of tensors");
	if (k == 0)
		return meta_fail(c, "expected a non-empty list of Tensors");
	if (meta_need_int(c, "dim", 0, &dim))
		return -1;
	for (int i = 0; i < k; i++) {
		if (!ts[i])
			return meta_fail(c, "item %d of 'tensors' is None", i);
		if (t != DT_UNKNOWN && meta_promote(t, ts[i]->dtype) == DT_UNKNOWN)
			return meta_fail(c, "the tensors' dtypes do not promote");
		t = meta_promote(t, ts[i]->dtype);
		if (!ref && (stack || !(ts[i]->rank == 1 && meta_dim_is(ts[i]->dims[0], 0))))
			ref = ts[i];
	}
	if (!ref) {        /* all legacy empties */
		d[0] = meta_dim_n(0);
		return meta_out_tensor(c, t, 1, d);
	}
	if (ref->rank > MAX_RANK)
		return meta_fail(c, "more than %d dims", MAX_RANK);
	if (!stack && !ref->rank)
		return meta_fail(c, "zero-dimensional tensor (at position %d) cannot be concatenated", (int)(ref - ts[0]));
	r = ref->rank + stack;
	if (meta_wrap(c, dim, r, &w))
		return -1;
	for (int i = 0; i < ref->rank; i++)
		d[i + (stack && i >= w)] = ref->dims[i];
	d[w] = stack ? meta_dim_n(k) : meta_dim_n(0);
	for (int i = 0; i < k; i++) {
		const Value *x = ts[i];
		if (!stack && x->rank == 1 && meta_dim_is(x->dims[0], 0) && ref->rank != 1)
			continue;
		if (x->rank != ref->rank)
			return meta_fail(c, "tensors must have same number of dimensions: got %d and %d", ref->rank, x->rank);
		for (int j = 0; j < x->rank; j++) {
			if (!stack && j == w)
				continue;
			if (!meta_same_size(x->dims[j], ref->dims[j]))
				return meta_fail(c, "sizes of tensors must match except in dimension %d: expected %s but got %s for tensor number %d",
				            w, meta_shape_str(c, 1, &ref->dims[j]), meta_shape_str(c, 1, &x->dims[j]), i);
		}
		if (!stack)
			d[w] = meta_dim_op(c, SYM_ADD, d[w], x->dims[w]);
	}
	return meta_out_tensor(c, t, r, d);
}

/* Appends the pieces of x along dim w, sizes[0..k). */
static int
pieces(MetaCtx *c, const Value *x, int w, int k, const Dim *sizes)
{
	Dim d[MAX_RANK];

	memcpy(d, x->dims, sizeof *d * (size_t)x->rank);
	for (int i = 0; i < k; i++) {
		d[w] = sizes[i];
		if (meta_out_tensor(c, x->dtype, x->rank, d))
			return -1;
	}
	return 0;
}

/* split (a size per piece), split_with_sizes, chunk, unbind; p is SPLIT_*.
 * The count of pieces must be known: a symbolic dim splits only by sizes. */
int
meta_rule_split(MetaCtx *c)
{
	Value *x = meta_first_tensor(c);
	Dim *sz, L;
	int64_t dim, s, n;
	int w, k;

	if (!x || x->rank > MAX_RANK)
		return meta_fail(c, "no tensor argument of at most %d dims", MAX_RANK);
	if (meta_need_int(c, "dim", 0, &dim))
		return -1;
	if (!x->rank)
		return meta_fail(c, "%s expects at least a 1-dimensional tensor", c->n->op);
	if (meta_wrap(c, dim, x->rank, &w))
		return -1;
	L = x->dims[w];
	if (c->row->p == SPLIT_SIZES) {
		Dim sum = meta_dim_n(0);
		if ((k = meta_get_dims(c, "split_sizes", 0, &sz)) < 0 && (k = meta_get_dims(c, "split_size", 0, &sz)) < 0)
			return meta_fail(c, "argument 'split_sizes' is not a list of sizes");
		for (int i = 0; i < k; i++) {
			if (!sz[i].e && sz[i].v < 0)
				return meta_fail(c, "split_with_sizes expects split_sizes have only non-negative entries");
			sum = meta_dim_op(c, SYM_ADD, sum, sz[i]);
		}
		if (!meta_dim_eq(sum, L) && (!sum.e && !L.e))
			return meta_fail(c, "split_with_sizes expects split_sizes to sum exactly to %lld (input tensor's size at dimension %d), but got split_sizes=%s",
			            (long long)L.v, w, meta_shape_str(c, k, sz));
		if (!meta_dim_eq(sum, L))
			return meta_fail(c, "cannot tell that the split sizes %s add up to %s", meta_shape_str(c, k, sz),
			            meta_shape_str(c, 1, &L));
		return pieces(c, x, w, k, sz);
	}
	if (L.e)
		return meta_fail(c, "the number of pieces of a symbolic size %s is not known", sym_print(c->a, L.e));
	if (c->row->p == SPLIT_INDICES || c->row->p == SPLIT_SECTIONS) {
		/* tensor_split: pieces between the indices (negative from the
		 * end, clamped to the dim), or sections of len/n, the first len%n
		 * one longer */
		int64_t *ix, lo = 0, hi;
		Dim *z;
		if (c->row->p == SPLIT_INDICES) {
			if ((k = meta_get_ints(c, "indices", 0, &ix)) < 0)
				return meta_fail(c, "argument 'indices' is not a list of ints");
		} else {
			if (meta_need_int(c, "sections", 1, &n))
				return -1;
			if (n <= 0)
				return meta_fail(c, "number of sections must be larger than 0, got %lld", (long long)n);
			if (n > c->max)
				return meta_fail(c, "%lld pieces, more than the %d results the caller takes", (long long)n, c->max);
			k = (int)n - 1;
			ix = NULL;
		}
		if (k + 1 > c->max)
			return meta_fail(c, "%d pieces, more than the %d results the caller takes", k + 1, c->max);
		z = ARENA_ARRAY(c->a, Dim, k + 1);
		for (int i = 0; i <= k; i++) {
			if (i == k)
				hi = L.v;
			else if (ix)
				hi = ix[i] < 0 ? ix[i] + L.v : ix[i];
			else
				hi = lo + L.v / n + (i < L.v % n);
			hi = hi < 0 ? 0 : hi > L.v ? L.v : hi;
			z[i] = meta_dim_n(hi > lo ? hi - lo : 0);
			lo = hi;
		}
		return pieces(c, x, w, k + 1, z);
	}
	if (c->row->p == SPLIT_UNBIND) {
		Dim d[MAX_RANK];
		int r = 0;
		for (int i = 0; i < x->rank; i++)
			if (i != w)
				d[r++] = x->dims[i];
		for (int64_t i = 0; i < L.v; i++)
			if (meta_out_tensor(c, x->dtype, r, d))
				return -1;
		return 0;
	}
	if (c->row->p == SPLIT_CHUNK) {
		if (meta_need_int(c, "chunks", 1, &n))
			return -1;
		if (n <= 0)
			return meta_fail(c, "chunk expects `chunks` to be greater than 0, got: %lld", (long long)n);
		if (L.v == 0) {        /* chunks empty pieces */
			Dim *z = ARENA_ARRAY(c->a, Dim, n);
			if (n > c->max)
				return meta_fail(c, "%lld pieces, more than the %d results the caller takes", (long long)n, c->max);
			for (int64_t i = 0; i < n; i++)
				z[i] = meta_dim_n(0);
			return pieces(c, x, w, (int)n, z);
		}
		s = (L.v - 1) / n + 1;        /* ceil, for L > 0 */
	} else if (meta_need_int(c, "split_size", 1, &s)) {
		return -1;
	}
	if (s < 0)
		return meta_fail(c, "split expects split_size be non-negative, but got split_size=%lld", (long long)s);
	if (s == 0 && L.v != 0)
		return meta_fail(c, "split_size can only be 0 if dimension size is 0, but got dimension size of %lld", (long long)L.v);
	if (s && L.v && (L.v - 1) / s + 1 > c->max)
		return meta_fail(c, "%lld pieces, more than the %d results the caller takes", (long long)((L.v - 1) / s + 1), c->max);
	k = s == 0 || L.v == 0 ? 1 : (int)((L.v - 1) / s + 1);
	if (k == 0)
		k = 1;
	if (k > c->max)
		return meta_fail(c, "%d pieces, more than the %d results the caller takes", k, c->max);
	sz = ARENA_ARRAY(c->a, Dim, k);
	for (int i = 0; i < k; i++)
		sz[i] = meta_dim_n(s == 0 ? 0 : (i + 1) * s <= L.v ? s : L.v - i * s);
	return pieces(c, x, w, k, sz);
}

/* ==== indexing ==== */

/* select, slice, narrow, index_select, gather, embedding; p is SEL_*.
 * A slice clamps start and end as torch does (an end of INT64_MAX, the
 * default, is the size); over a symbolic size it takes the size as large
 * enough for the bounds: x[2:] is s-2, x[-3:] is 3, x[:s] is s. */
int
meta_rule_select(MetaCtx *c)
{
	Value *x = meta_first_tensor(c), *idx;
	Dim d[MAX_RANK + 1], L;
	int64_t dim, i0, i1, step, len;
	int w, r;

	if (!x || x->rank > MAX_RANK)
		return meta_fail(c, "no tensor argument of at most %d dims", MAX_RANK);
	if (c->row->p == SEL_EMBEDDING) {
		Value *wt = meta_tensor(c, "weight"), *ix = meta_tensor(c, "indices");
		if (!wt || !ix)
			return meta_fail(c, "embedding takes a weight and indices");
		if (wt->rank != 2)
			return meta_fail(c, "'weight' must be 2-D");
		if (dtype_kind(ix->dtype) != DK_INT || (ix->dtype != DT_INT64 && ix->dtype != DT_INT32))
			return meta_fail(c, "expected indices to be of type Long or Int, got %s", dtype_name(ix->dtype));
		if (ix->rank >= MAX_RANK)
			return meta_fail(c, "indices of too many dims");
		memcpy(d, ix->dims, sizeof *d * (size_t)ix->rank);
		d[ix->rank] = wt->dims[1];
		return meta_out_tensor(c, wt->dtype, ix->rank + 1, d);
	}
	if (meta_need_int(c, "dim", 0, &dim) || meta_wrap(c, dim, x->rank, &w))
		return -1;
	memcpy(d, x->dims, sizeof *d * (size_t)x->rank);
	L = x->rank ? x->dims[w] : meta_dim_n(1);
	switch (c->row->p) {
	case SEL_SELECT: {
		Dim ix;
		if (!x->rank)
			return meta_fail(c, "select() cannot be applied to a 0-dim tensor");
		if (!meta_arg_dim(meta_arg(c, "index"), &ix))
			return meta_fail(c, "argument 'index' is not an integer");
		if (!ix.e && !L.e && (ix.v < -L.v || ix.v >= L.v))
			return meta_fail(c, "select(): index %lld out of range for tensor of size %s at dimension %d",
			            (long long)ix.v, meta_shape_str(c, x->rank, x->dims), w);
		for (r = w; r + 1 < x->rank; r++)
			d[r] = d[r + 1];
		return meta_out_tensor(c, x->dtype, x->rank - 1, d);
	}
	case SEL_SLICE: case SEL_NARROW: {
		Dim ds, de;
		int has_end;
		if (!x->rank)
			return meta_fail(c, "%s cannot be applied to a 0-dim tensor", c->n->op);
		if (c->row->p == SEL_NARROW) {
			Dim dl;
			if (!meta_arg_dim(meta_arg(c, "start"), &ds) || !meta_arg_dim(meta_arg(c, "length"), &dl) || ds.e || dl.e)
				return meta_fail(c, "narrow: start and length must be known integers");
			if (!L.e && (ds.v < -L.v || ds.v > L.v))
				return meta_fail(c, "start out of range (expected to be in range of [%lld, %lld], but got %lld)",
				            (long long)-L.v, (long long)L.v, (long long)ds.v);
			i0 = ds.v < 0 && !L.e ? ds.v + L.v : ds.v;
			if (dl.v < 0 || (!L.e && i0 + dl.v > L.v))
				return meta_fail(c, "start (%lld) + length (%lld) exceeds dimension size (%lld)",
				            (long long)i0, (long long)dl.v, (long long)L.v);
			if (L.e && ds.v < 0)
				return meta_fail(c, "narrow from the end of a symbolic size");
			d[w] = dl;
			return meta_out_tensor(c, x->dtype, x->rank, d);
		}
		if (meta_need_int(c, "step", 1, &step))
			return -1;
		if (step <= 0)
			return meta_fail(c, "slice step must be positive");
		if (!meta_arg(c, "start"))
			ds = meta_dim_n(0);
		else if (!meta_arg_dim(meta_arg(c, "start"), &ds))
			return meta_fail(c, "argument 'start' is not an integer");
		has_end = meta_arg(c, "end") != NULL;
		if (has_end && !meta_arg_dim(meta_arg(c, "end"), &de))
			return meta_fail(c, "argument 'end' is not an integer");
		if (!has_end || (!de.e && de.v >= INT64_MAX / 2))
			de = L;
		if (!L.e && !ds.e && !de.e) {
			i0 = ds.v < 0 ? ds.v + L.v : ds.v;
			i1 = de.v < 0 ? de.v + L.v : de.v;
			i0 = i0 < 0 ? 0 : i0 > L.v ? L.v : i0;
			i1 = i1 < i0 ? i0 : i1 > L.v ? L.v : i1;
			len = i1 == i0 ? 0 : (i1 - i0 - 1) / step + 1;
			d[w] = meta_dim_n(len);
			return meta_out_tensor(c, x->dtype, x->rank, d);
		}
		/* symbolic: the common forms, with the size taken as large enough */
		if (ds.e && de.e && meta_dim_eq(ds, de)) {
			d[w] = meta_dim_n(0);
		} else {
			Dim s0 = ds, e0 = de;
			if (!s0.e && s0.v < 0)
				s0 = meta_dim_add(c, L, s0.v);
			if (!e0.e && e0.v < 0)
				e0 = meta_dim_add(c, L, e0.v);
			if (!s0.e && s0.v < 0)
				return meta_fail(c, "a slice start before the beginning");
			d[w] = meta_dim_sub(c, e0, s0);
			if (step > 1)
				d[w] = meta_dim_op(c, SYM_CEILDIV, d[w], meta_dim_n(step));
		}
		if (!d[w].e && d[w].v < 0)
			d[w] = meta_dim_n(0);
		return meta_out_tensor(c, x->dtype, x->rank, d);
	}
	case SEL_INDEX_SELECT:
		if (!(idx = meta_tensor(c, "index")))
			return meta_fail(c, "argument 'index' is not a tensor");
		if (idx->rank > 1)
			return meta_fail(c, "index_select(): index should be a vector or a scalar");
		if (idx->dtype != DT_INT64 && idx->dtype != DT_INT32)
			return meta_fail(c, "index_select(): expected dtype int32 or int64 for index");
		if (x->rank)
			d[w] = idx->rank ? idx->dims[0] : meta_dim_n(1);
		return meta_out_tensor(c, x->dtype, x->rank, d);
	case SEL_GATHER:
		if (!(idx = meta_tensor(c, "index")))
			return meta_fail(c, "argument 'index' is not a tensor");
		if (idx->dtype != DT_INT64 && idx->dtype != DT_INT32)
			return meta_fail(c, "gather(): expected dtype int32 or int64 for index");
		if (idx->rank != x->rank && !(idx->rank <= 1 && x->rank <= 1))
			return meta_fail(c, "index tensor must have the same number of dimensions as input tensor");
		for (int i = 0; i < idx->rank && idx->rank == x->rank; i++)
			if (i != w && !idx->dims[i].e && !x->dims[i].e && idx->dims[i].v > x->dims[i].v)
				return meta_fail(c, "size of dimension %d of index is larger than that of the input", i);
		return meta_out_like(c, x->dtype, idx);
	default:
		return meta_fail(c, "unknown selection");
	}
}

/* index.Tensor: advanced indexing by a list of index tensors (None keeps
 * a dim).  The broadcast index shape replaces the indexed dims in place
 * when they are adjacent, else goes first.  Bool masks select a count
 * that depends on the data. */
int
meta_rule_index(MetaCtx *c)
{
	Value *x = meta_first_tensor(c), **ix;
	Dim d[MAX_RANK * 2], *bd = NULL;
	int k = meta_get_tensors(c, "indices", &ix), br = 0, first = -1, last = -1, gap = 0, r = 0;

	if (!x || x->rank > MAX_RANK || k < 0)
		return meta_fail(c, "index takes a tensor and a list of index tensors");
	if (k > x->rank)
		return meta_fail(c, "too many indices for tensor of dimension %d (got %d)", x->rank, k);
	for (int i = 0; i < k; i++) {
		if (!ix[i])
			continue;
		if (ix[i]->dtype == DT_BOOL || ix[i]->dtype == DT_UINT8)
			return meta_fail(c, "a mask index selects a number of elements that depends on the data");
		if (dtype_kind(ix[i]->dtype) != DK_INT)
			return meta_fail(c, "tensors used as indices must be long, int, byte or bool tensors");
		if (meta_broadcast(c, &br, &bd, ix[i]->rank, ix[i]->dims))
			return meta_fail(c, "shape mismatch: indexing tensors could not be broadcast together");
		if (first >= 0 && last != i - 1)
			gap = 1;
		if (first < 0)
			first = i;
		last = i;
	}
	if (first < 0)
		return meta_fail(c, "index: at least one index must be a tensor");
	if (!gap) {
		for (int i = 0; i < first; i++)
			d[r++] = x->dims[i];
		for (int i = 0; i < br; i++)
			d[r++] = bd[i];
		for (int i = last + 1; i < x->rank; i++)
			d[r++] = x->dims[i];
	} else {
		for (int i = 0; i < br; i++)
			d[r++] = bd[i];
		for (int i = 0; i < x->rank; i++)
			if (i >= k || !ix[i])
				d[r++] = x->dims[i];
	}
	return meta_out_tensor(c, x->dtype, r, d);
}

/* Results whose count or shape depends on the values (nonzero,
 * masked_select, unique, item): no static answer. */
int
meta_rule_datadep(MetaCtx *c)
{
	return meta_fail(c, "%s: the result's shape or value depends on the input's data", c->n->op);
}

/* ==== padding, resizing, other shapes ==== */

/* constant_pad_nd, pad, reflection_pad*, replication_pad*: pairs of
 * (before, after) from the last dim backwards; negative pads crop. */
int
meta_rule_pad(MetaCtx *c)
{
	Value *x = meta_first_tensor(c);
	Dim d[MAX_RANK];
	int64_t *p;
	int k = meta_get_ints(c, "pad", 0, &p);

	if (k == -1)
		k = meta_get_ints(c, "padding", 0, &p);
	if (!x || x->rank > MAX_RANK || k < 0)
		return meta_fail(c, "pad takes a tensor and a list of known pads");
	if (k % 2)
		return meta_fail(c, "padding length must be divisible by 2");
	if (k / 2 > x->rank)
		return meta_fail(c, "padding length should be at most twice the number of dimensions of the input (%d), got %d",
		            x->rank, k);
	memcpy(d, x->dims, sizeof *d * (size_t)x->rank);
	for (int i = 0; i < k / 2; i++) {
		int j = x->rank - 1 - i;
		d[j] = meta_dim_add(c, meta_dim_add(c, d[j], p[2 * i]), p[2 * i + 1]);
		if (!d[j].e && d[j].v < 0)
			return meta_fail(c, "the input size %lld, plus negative padding %lld and %lld resulted in a negative output size",
			            (long long)x->dims[j].v, (long long)p[2 * i], (long long)p[2 * i + 1]);
	}
	return meta_out_tensor(c, x->dtype, x->rank, d);
}

/* one_hot: int64 [..., num_classes]; num_classes -1 reads the data. */
int
meta_rule_onehot(MetaCtx *c)
{
	Value *x = meta_first_tensor(c);
	Dim d[MAX_RANK + 1];
	int64_t n;

	if (!x || x->rank >= MAX_RANK)
		return meta_fail(c, "no tensor argument");
	if (x->dtype != DT_INT64)
		return meta_fail(c, "one_hot is only applicable to index tensor of type LongTensor");
	if (meta_need_int(c, "num_classes", -1, &n))
		return -1;
	if (n < 0)
		return meta_fail(c, "one_hot without num_classes: the class count depends on the data");
	memcpy(d, x->dims, sizeof *d * (size_t)x->rank);
	d[x->rank] = meta_dim_n(n);
	return meta_out_tensor(c, DT_INT64, x->rank + 1, d);
}

/* upsample_* (output_size, or the scale factors) over the last q dims. */
int
meta_rule_upsample(MetaCtx *c)
{
	Value *x = meta_first_tensor(c);
	int nd = c->row->q, k;
	Dim d[5], *os;
	const Arg *sf = meta_arg(c, "scale_factors");

	if (!x || x->rank != nd + 2)
		return meta_fail(c, "expected a %dD input", nd + 2);
	memcpy(d, x->dims, sizeof *d * 2);
	k = meta_get_dims(c, "output_size", nd, &os);
	if (k == nd) {
		memcpy(d + 2, os, sizeof *d * (size_t)nd);
	} else if (k < 1 && sf && sf->kind == ARG_FLOATS && (sf->n == nd || sf->n == 1)) {
		for (int i = 0; i < nd; i++) {
			double s = sf->u.list[sf->n == 1 ? 0 : i].u.f;
			Dim L = x->dims[2 + i];
			if (L.e) {
				if (!(s >= 1 && s < 1e9) || s != (double)(int64_t)s)
					return meta_fail(c, "a symbolic size scaled by %g", s);
				d[2 + i] = meta_dim_op(c, SYM_MUL, L, meta_dim_n((int64_t)s));
			} else {
				double v = (double)L.v * s;
				if (!(v >= 0 && v < 9.2e18))
					return meta_fail(c, "scale factor %g gives no size", s);
				d[2 + i] = meta_dim_n((int64_t)v);
			}
		}
	} else {
		return meta_fail(c, "must specify exactly one of output_size and scale_factors");
	}
	for (int i = 2; i < nd + 2; i++)
		if (!d[i].e && d[i].v <= 0)
			return meta_fail(c, "input and output sizes should be greater than 0");
	return meta_out_tensor(c, x->dtype, x->rank, d);
}

/* diff(n, dim, prepend, append): dim shrinks by n after the additions. */
int
meta_rule_diff(MetaCtx *c)
{
	Value *x, *pre = meta_tensor(c, "prepend"), *app = meta_tensor(c, "append");
	Dim d[MAX_RANK];
	int64_t n;
	int w;

	if (!(x = meta_self_at(c, "dim", -1, d, &w)) || meta_need_int(c, "n", 1, &n))
		return -1;
	if (!x->rank)
		return meta_fail(c, "diff expects input to be at least one-dimensional");
	if (n < 0)
		return meta_fail(c, "order must be non-negative but got %lld", (long long)n);
	if ((pre && pre->rank != x->rank) || (app && app->rank != x->rank))
		return meta_fail(c, "diff expects prepend or append to be the same dimension as input");
	if (pre)
		d[w] = meta_dim_op(c, SYM_ADD, d[w], pre->dims[w]);
	if (app)
		d[w] = meta_dim_op(c, SYM_ADD, d[w], app->dims[w]);
	d[w] = meta_dim_add(c, d[w], -n);
	if (!d[w].e && d[w].v < 0)
		d[w] = meta_dim_n(0);
	return meta_out_tensor(c, x->dtype, x->rank, d);
}

/* repeat_interleave(self, repeats, dim): each element repeated; with no
 * dim, of the flattened tensor.  A tensor of repeats sums its data,
 * unless output_size says the total. */
int
meta_rule_repeat_interleave(MetaCtx *c)
{
	Value *x = meta_first_tensor(c);
	Dim d[MAX_RANK], rep, total;
	int w, has_dim = meta_arg(c, "dim") != NULL;

	if (!x || x->rank > MAX_RANK)
		return meta_fail(c, "no tensor argument");
	if (!meta_tensor(c, "self"))
		return meta_fail(c, "repeat_interleave(repeats): the output size depends on the data");
	if (meta_tensor(c, "repeats")) {
		Value *r = meta_tensor(c, "repeats");
		if (!meta_arg_dim(meta_arg(c, "output_size"), &total))
			return meta_fail(c, "repeat_interleave by a tensor of repeats: the output size depends on the data");
		if (r->rank > 1)
			return meta_fail(c, "repeat_interleave only accepts 1D vector as repeat");
	} else if (!meta_arg_dim(meta_arg(c, "repeats"), &rep)) {
		return meta_fail(c, "argument 'repeats' is not an integer");
	}
	if (!has_dim) {
		Dim n = meta_dim_prod(c, x->rank, x->dims);
		d[0] = meta_tensor(c, "repeats") ? total : meta_dim_op(c, SYM_MUL, n, rep);
		return meta_out_tensor(c, x->dtype, 1, d);
	}
	if (!meta_self_at(c, "dim", 0, d, &w))
		return -1;
	if (x->rank)
		d[w] = meta_tensor(c, "repeats") ? total : meta_dim_op(c, SYM_MUL, d[w], rep);
	return meta_out_tensor(c, x->dtype, x->rank, d);
}

/* pixel_shuffle (p 0) and pixel_unshuffle (p 1) by factor r: [..., C*r*r,
 * H, W] <-> [..., C, H*r, W*r]. */
int
meta_rule_pixel_shuffle(MetaCtx *c)
{
	Value *x = meta_first_tensor(c);
	Dim d[MAX_RANK];
	int64_t r;
	int n;

	if (meta_need_int(c, c->row->p ? "downscale_factor" : "upscale_factor", 1, &r))
		return -1;
	if (!x || x->rank < 3 || x->rank > MAX_RANK)
		return meta_fail(c, "pixel_shuffle expects input to have at least 3 dimensions");
	if (r <= 0)
		return meta_fail(c, "pixel_shuffle expects a positive factor, got %lld", (long long)r);
	n = x->rank;
	memcpy(d, x->dims, sizeof *d * (size_t)n);
	if (!c->row->p) {
		if (!d[n - 3].e && d[n - 3].v % (r * r))
			return meta_fail(c, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)=%lld is not divisible by %lld",
			                 (long long)d[n - 3].v, (long long)(r * r));
		d[n - 3] = meta_dim_op(c, SYM_FLOORDIV, d[n - 3], meta_dim_n(r * r));
		d[n - 2] = meta_dim_op(c, SYM_MUL, d[n - 2], meta_dim_n(r));
		d[n - 1] = meta_dim_op(c, SYM_MUL, d[n - 1], meta_dim_n(r));
	} else {
		for (int i = n - 2; i < n; i++) {
			if (!d[i].e && d[i].v % r)
				return meta_fail(c, "pixel_unshuffle expects height and width to be divisible by downscale_factor");
			d[i] = meta_dim_op(c, SYM_FLOORDIV, d[i], meta_dim_n(r));
		}
		d[n - 3] = meta_dim_op(c, SYM_MUL, d[n - 3], meta_dim_n(r * r));
	}
	return meta_out_tensor(c, x->dtype, n, d);
}

/* unfold(dimension, size, step): the dim becomes the window count, a
 * new last dim the window. */
int
meta_rule_unfold(MetaCtx *c)
{
	Value *x;
	Dim d[MAX_RANK + 1], L;
	int64_t size, step;
	int w;

	if (!(x = meta_self_at(c, "dimension", 0, d, &w)) || meta_need_int(c, "size", 1, &size) ||
	    meta_need_int(c, "step", 1, &step))
		return -1;
	if (x->rank >= MAX_RANK)
		return meta_fail(c, "too many dims");
	if (step <= 0 || size < 0)
		return meta_fail(c, "step is %lld but must be > 0, size %lld must be >= 0", (long long)step, (long long)size);
	L = x->rank ? x->dims[w] : meta_dim_n(1);
	if (!L.e && L.v < size)
		return meta_fail(c, "maximum size for tensor at dimension %d is %lld but size is %lld", w, (long long)L.v,
		                 (long long)size);
	if (x->rank)
		d[w] = meta_dim_add(c, meta_dim_op(c, SYM_FLOORDIV, meta_dim_add(c, L, -size), meta_dim_n(step)), 1);
	d[x->rank] = meta_dim_n(size);
	return meta_out_tensor(c, x->dtype, x->rank + 1, d);
}

/* meshgrid(tensors, indexing): N tensors shaped [n0, ..., nN-1] (the
 * first two swapped for "xy"); every input 0-D or 1-D. */
int
meta_rule_meshgrid(MetaCtx *c)
{
	Value **ts;
	int k = meta_get_tensors(c, "tensors", &ts);
	const Arg *ix = meta_arg(c, "indexing");
	int xy = ix && ix->kind == ARG_STRING && strcmp(ix->u.s, "xy") == 0;
	Dim d[MAX_RANK];

	if (k < 1 || k > MAX_RANK)
		return meta_fail(c, "meshgrid expects a non-empty list of tensors");
	if (ix && ix->kind == ARG_STRING && !xy && strcmp(ix->u.s, "ij") != 0)
		return meta_fail(c, "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: %s", ix->u.s);
	for (int i = 0; i < k; i++) {
		if (!ts[i] || ts[i]->rank > 1)
			return meta_fail(c, "torch.meshgrid: expected 0D or 1D tensor in the tensor list but got %dD",
			                 ts[i] ? ts[i]->rank : -1);
		if (ts[i]->dtype != ts[0]->dtype)
			return meta_fail(c, "torch.meshgrid: expected all tensors in the tensor list to have the same dtype");
		d[i] = ts[i]->rank ? ts[i]->dims[0] : meta_dim_n(1);
	}
	if (xy && k >= 2) {
		Dim tmp = d[0];
		d[0] = d[1];
		d[1] = tmp;
	}
	for (int i = 0; i < k; i++)
		if (meta_out_tensor(c, ts[i]->dtype, k, d))
			return -1;
	return 0;
}

/* broadcast_tensors(tensors): each tensor broadcast to the shape of all
 * of them, keeping its own dtype. */
int
meta_rule_broadcast_tensors(MetaCtx *c)
{
	Value **ts;
	int k = meta_get_tensors(c, "tensors", &ts), r = 0;
	Dim *d = NULL;

	if (k < 1)
		return meta_fail(c, "broadcast_tensors expects a non-empty list of tensors");
	for (int i = 0; i < k; i++) {
		if (!ts[i])
			return meta_fail(c, "broadcast_tensors expects tensors");
		if (meta_broadcast(c, &r, &d, ts[i]->rank, ts[i]->dims))
			return -1;
	}
	for (int i = 0; i < k; i++)
		if (meta_out_tensor(c, ts[i]->dtype, r, d))
			return -1;
	return 0;
}

/* diag(self, diagonal): a 1-D self of n becomes the (n+|k|)-square
 * matrix with it on diagonal k; a 2-D self gives its diagonal k as 1-D
 * (empty when k runs off the matrix).  Static sizes only. */
int
meta_rule_diag(MetaCtx *c)
{
	Value *x = meta_tensor(c, "self");
	int64_t k, n;
	Dim d[2];

	if (!x)
		return meta_fail(c, "expects a tensor self");
	if (meta_need_int(c, "diagonal", 0, &k) < 0)
		return -1;
	if (x->rank != 1 && x->rank != 2)
		return meta_fail(c, "diag(): Supports 1D or 2D tensors. Got %dD", x->rank);
	for (int i = 0; i < x->rank; i++)
		if (x->dims[i].e)
			return meta_fail(c, "needs static sizes");
	if (k < -INT32_MAX || k > INT32_MAX)
		return meta_fail(c, "diagonal %lld out of range", (long long)k);
	if (x->rank == 1) {
		n = x->dims[0].v + (k < 0 ? -k : k);
		d[0] = d[1] = meta_dim_n(n);
		return meta_out_tensor(c, x->dtype, 2, d);
	}
	n = k >= 0 ? x->dims[1].v - k : x->dims[0].v + k;
	if (k >= 0 && x->dims[0].v < n)
		n = x->dims[0].v;
	if (k < 0 && x->dims[1].v < n)
		n = x->dims[1].v;
	d[0] = meta_dim_n(n < 0 ? 0 : n);
	return meta_out_tensor(c, x->dtype, 1, d);
}
