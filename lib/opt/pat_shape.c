/* pat_shape.c: patterns on layout ops: Transpose, Reshape, Squeeze,
 * Unsqueeze, Expand, Slice and Concat chains collapse, and the shape
 * computations of dynamic graphs (Concat of Shape slices) become
 * constants Reshape understands.
 *
 * Each function's contract is written once, in its row of patterns.def. */
#include "opt/opt.h"

#include <string.h>

#define R MAX_RANK

/* A Squeeze/Unsqueeze of x with the given axes, in the form the opset wants. */
static int
add_axes_op(Opt *o, int before, const char *op, int x, int k, const int64_t *axes)
{
	int y, n;

	if (o->opset >= 13) {
		int in[2] = {x, opt_const_i64s(o, k, axes)};
		opt_add(o, before, op, 2, in, 1, &y);
		return y;
	}
	n = opt_add(o, before, op, 1, &x, 1, &y);
	opt_set_attr_ints(o, n, "axes", k, axes);
	return y;
}

/* TransposeIdentity: its contract is its row of patterns.def. */
int
pat_transpose_identity(Opt *o, int r)
{
	int64_t p[R];
	int k = opt_perm(o, r, p);

	if (k < 0)
		return OPT_NOMATCH;
	for (int i = 0; i < k; i++)
		if (p[i] != i)
			return OPT_NOMATCH;
	return opt_forward(o, opt_out(o, r, 0), opt_in(o, r, 0));
}

/* TransposeWeight: its contract is its row of patterns.def.  The bytes are
 * the writer's (a transposed recipe): nothing is copied here, and the
 * source is read once, when the model is written. */
int
pat_transpose_weight(Opt *o, int r)
{
	int x = opt_in(o, r, 0), y = opt_out(o, r, 0), es;
	const OptValue *xv = x >= 0 ? opt_val(o, x) : NULL;
	const OnnxTensor *t;
	int64_t p[R];

	if (!xv || !xv->init || xv->is_input || onnx_tensor_recipe(xv->init) || opt_val(o, y)->is_output ||
	    opt_perm(o, r, p) != 2 || p[0] != 1 || p[1] != 0 || !opt_only_use(o, x, r) ||
	    !(t = opt_const_tensor(o, x)) || t->n_dims != 2 || !(es = fold_elem_size(t->data_type)))
		return OPT_NOMATCH;
	return opt_forward(o, y, opt_const_transposed(o, t->data_type,
	                                              &(OnnxScaled){t->raw_data.data, t->dims[0], t->dims[1], NULL, es}));
}

/* TransposeTranspose: its contract is its row of patterns.def. */
int
pat_transpose_transpose(Opt *o, int r)
{
	int in = opt_prod(o, opt_in(o, r, 0), "Transpose"), k, x, n, y, ident = 1;
	int64_t p[R], q[R], c[R];

	if (in < 0 || (k = opt_perm(o, in, p)) < 0 || opt_perm(o, r, q) != k)
		return OPT_NOMATCH;
	for (int i = 0; i < k; i++) {
		if (q[i] < 0 || q[i] >= k)
			return OPT_NOMATCH;
		c[i] = p[q[i]];
		ident &= c[i] == i;
	}
	x = opt_in(o, in, 0);
	if (ident)
		return opt_forward(o, opt_out(o, r, 0), x);
	if (!opt_only_use(o, opt_in(o, r, 0), r))
		return OPT_NOMATCH;
	n = opt_add(o, r, "Transpose", 1, &x, 1, &y);
	opt_set_attr_ints(o, n, "perm", k, c);
	opt_replace(o, opt_out(o, r, 0), y);
	return OPT_REWROTE;
}

/* ReshapeNoop: its contract is its row of patterns.def. */
int
pat_reshape_noop(Opt *o, int r)
{
	int x = opt_in(o, r, 0), y = opt_out(o, r, 0);

	if (!opt_same_shape(o, x, y))
		return OPT_NOMATCH;
	return opt_forward(o, y, x);
}

/* ReshapeReshape: its contract is its row of patterns.def. */
int
pat_reshape_reshape(Opt *o, int r)
{
	int in = opt_prod(o, opt_in(o, r, 0), "Reshape"), k;
	int64_t s[R];

	if (in < 0 || (k = opt_const_ints(o, opt_in(o, r, 1), s, R)) < 0)
		return OPT_NOMATCH;
	if (!opt_attr_i(o, r, "allowzero", 0))
		for (int i = 0; i < k; i++)
			if (s[i] == 0)
				return OPT_NOMATCH;
	opt_set_input(o, r, 0, opt_in(o, in, 0));
	return OPT_RETRY;
}

/* Reshape(y, Concat(Shape(x, 0, k), c)) -> Reshape(y, [0]*k ++ c) when y's
 * first k dims are x's and the constant c holds no 0.  More generally each
 * Concat input is a constant without 0 or a Shape slice of some x whose
 * dims equal y's dims at the same positions. */
int
pat_reshape_shape_zeros(Opt *o, int r)
{
	int y = opt_in(o, r, 0), cc = opt_prod(o, opt_in(o, r, 1), "Concat"), ry = opt_rank(o, y), pos = 0, nshape = 0;
	int64_t s[R];

	if (cc < 0 || ry < 0 || opt_attr_i(o, r, "allowzero", 0) || opt_attr_i(o, cc, "axis", 0) != 0)
		return OPT_NOMATCH;
	for (int i = 0; i < opt_node(o, cc)->nin; i++) {
		int v = opt_in(o, cc, i), sh = opt_prod(o, v, "Shape"), k;
		int64_t buf[R];
		if ((k = opt_const_ints(o, v, buf, R)) >= 0) {
			if (pos + k > R)
				return OPT_NOMATCH;
			for (int j = 0; j < k; j++) {
				if (buf[j] == 0)
					return OPT_NOMATCH;
				s[pos++] = buf[j];
			}
		} else if (sh >= 0) {
			int x = opt_in(o, sh, 0), rx = opt_rank(o, x);
			int64_t b = opt_attr_i(o, sh, "start", 0), e = opt_attr_i(o, sh, "end", rx);
			if (rx < 0)
				return OPT_NOMATCH;
			b = b < 0 ? b + rx : b;
			e = e < 0 ? e + rx : e;
			b = b < 0 ? 0 : b > rx ? rx : b;
			e = e < b ? b : e > rx ? rx : e;
			if (pos + (e - b) > ry)
				return OPT_NOMATCH;
			for (int64_t j = b; j < e; j++, pos++) {
				if (!opt_dim_eq(opt_val(o, x)->dims[j], opt_val(o, y)->dims[pos]))
					return OPT_NOMATCH;
				s[pos] = 0;
			}
			nshape++;
		} else {
			return OPT_NOMATCH;
		}
	}
	if (!nshape || pos > R)
		return OPT_NOMATCH;
	opt_set_input(o, r, 1, opt_const_i64s(o, pos, s));
	return OPT_RETRY;
}

/* Reshape(MatMul(Reshape(a), Reshape(b))) that only merged and split the
 * batch dims of a and b -> MatMul(a, b).  When b's batch dims are laid out
 * otherwise but merge into as many (a repeat_kv of grouped-query attention
 * feeding a bmm), b is split as a's by one Reshape. */
int
pat_reshape_matmul_reshape(Opt *o, int r)
{
	int mm = opt_prod(o, opt_in(o, r, 0), "MatMul"), ra, rb, a2, b2, a, b, z = opt_out(o, r, 0), y, same = 1;
	const OptDim *da, *db, *dz, *a3, *b3;
	int64_t s[R];

	if (mm < 0 || !opt_only_use(o, opt_in(o, r, 0), r))
		return OPT_NOMATCH;
	a2 = opt_prod(o, opt_in(o, mm, 0), "Reshape");
	b2 = opt_prod(o, opt_in(o, mm, 1), "Reshape");
	if (a2 < 0 || b2 < 0 || !opt_only_use(o, opt_in(o, mm, 0), mm) || !opt_only_use(o, opt_in(o, mm, 1), mm))
		return OPT_NOMATCH;
	a = opt_in(o, a2, 0);
	b = opt_in(o, b2, 0);
	ra = opt_rank(o, a);
	rb = opt_rank(o, b);
	if (ra < 3 || rb < 3 || ra > R || opt_rank(o, z) != ra || opt_rank(o, opt_in(o, mm, 0)) != 3 ||
	    opt_rank(o, opt_in(o, mm, 1)) != 3)
		return OPT_NOMATCH;
	da = opt_val(o, a)->dims;
	db = opt_val(o, b)->dims;
	dz = opt_val(o, z)->dims;
	a3 = opt_val(o, opt_in(o, mm, 0))->dims;
	b3 = opt_val(o, opt_in(o, mm, 1))->dims;
	for (int i = 0; i < ra - 2; i++) {
		if (!opt_dim_eq(da[i], dz[i]))
			return OPT_NOMATCH;
		same &= ra == rb && opt_dim_eq(da[i], db[i]);
	}
	if (!opt_dim_eq(a3[1], da[ra - 2]) || !opt_dim_eq(a3[2], da[ra - 1]) || !opt_dim_eq(b3[1], db[rb - 2]) ||
	    !opt_dim_eq(b3[2], db[rb - 1]) || !opt_dim_eq(dz[ra - 2], da[ra - 2]) || !opt_dim_eq(dz[ra - 1], db[rb - 1]))
		return OPT_NOMATCH;
	if (!same) {    /* the merged batch counts agree: split b's as a's */
		if (a3[0].v < 0 || a3[0].v != b3[0].v || db[rb - 2].v < 0 || db[rb - 1].v < 0)
			return OPT_NOMATCH;
		for (int i = 0; i < ra - 2; i++)
			if ((s[i] = da[i].v) < 0)
				return OPT_NOMATCH;
		s[ra - 2] = db[rb - 2].v;
		s[ra - 1] = db[rb - 1].v;
		b = opt_add1(o, r, "Reshape", 2, b, opt_const_i64s(o, ra, s));
	}
	y = opt_add1(o, r, "MatMul", 2, a, b);
	opt_replace(o, z, y);
	return OPT_REWROTE;
}

/* SqueezeUnsqueeze: its contract is its row of patterns.def. */
int
pat_squeeze_unsqueeze(Opt *o, int r)
{
	int un = opt_prod(o, opt_in(o, r, 0), "Unsqueeze"), ka, kb, rank = opt_rank(o, opt_in(o, r, 0));
	int64_t a[R], b[R];

	if (un < 0 || (ka = opt_axes(o, un, a, R)) < 0 || (kb = opt_axes(o, r, b, R)) != ka ||
	    opt_norm_axes(ka, a, rank) < 0 || opt_norm_axes(kb, b, rank) < 0 || memcmp(a, b, sizeof *a * (size_t)ka))
		return OPT_NOMATCH;
	return opt_forward(o, opt_out(o, r, 0), opt_in(o, un, 0));
}

/* UnsqueezeSqueeze: its contract is its row of patterns.def. */
int
pat_unsqueeze_squeeze(Opt *o, int r)
{
	int sq = opt_prod(o, opt_in(o, r, 0), "Squeeze"), ka, kb, rank = opt_rank(o, opt_out(o, r, 0));
	int64_t a[R], b[R];

	if (sq < 0 || (ka = opt_axes(o, sq, a, R)) < 0 || (kb = opt_axes(o, r, b, R)) != ka ||
	    opt_norm_axes(ka, a, rank) < 0 || opt_norm_axes(kb, b, rank) < 0 || memcmp(a, b, sizeof *a * (size_t)ka))
		return OPT_NOMATCH;
	return opt_forward(o, opt_out(o, r, 0), opt_in(o, sq, 0));
}

/* UnsqueezeUnsqueeze: its contract is its row of patterns.def. */
int
pat_unsqueeze_unsqueeze(Opt *o, int r)
{
	int in = opt_prod(o, opt_in(o, r, 0), "Unsqueeze"), x, ka, kb, r0, r1, r2, j = 0, nc = 0, y;
	int64_t a[R], b[R], c[R];
	unsigned newb = 0, newa = 0;

	if (in < 0 || !opt_only_use(o, opt_in(o, r, 0), r))
		return OPT_NOMATCH;
	x = opt_in(o, in, 0);
	if ((r0 = opt_rank(o, x)) < 0 || (ka = opt_axes(o, in, a, R)) < 0 || (kb = opt_axes(o, r, b, R)) < 0)
		return OPT_NOMATCH;
	r1 = r0 + ka;
	r2 = r1 + kb;
	if (r2 > R || opt_norm_axes(ka, a, r1) < 0 || opt_norm_axes(kb, b, r2) < 0)
		return OPT_NOMATCH;
	for (int i = 0; i < ka; i++)
		newa |= 1u << a[i];
	for (int i = 0; i < kb; i++)
		newb |= 1u << b[i];
	/* positions of the result: b's are new, the others are y's dims in order */
	for (int i = 0; i < r2; i++) {
		if (newb >> i & 1)
			c[nc++] = i;
		else if (newa >> j++ & 1)
			c[nc++] = i;
	}
	y = add_axes_op(o, r, "Unsqueeze", x, nc, c);
	opt_replace(o, opt_out(o, r, 0), y);
	return OPT_REWROTE;
}

/* SqueezeSqueeze: its contract is its row of patterns.def. */
int
pat_squeeze_squeeze(Opt *o, int r)
{
	int in = opt_prod(o, opt_in(o, r, 0), "Squeeze"), x, ka, kb, r0, nc = 0, y, j = 0;
	int64_t a[R], b[R], c[R];
	unsigned gone_a = 0, gone_b = 0;

	if (in < 0 || !opt_only_use(o, opt_in(o, r, 0), r))
		return OPT_NOMATCH;
	x = opt_in(o, in, 0);
	if ((r0 = opt_rank(o, x)) < 0 || (ka = opt_axes(o, in, a, R)) <= 0 || (kb = opt_axes(o, r, b, R)) <= 0 ||
	    opt_norm_axes(ka, a, r0) < 0 || opt_norm_axes(kb, b, r0 - ka) < 0)
		return OPT_NOMATCH;
	for (int i = 0; i < ka; i++)
		gone_a |= 1u << a[i];
	for (int i = 0; i < kb; i++)
		gone_b |= 1u << b[i];
	for (int i = 0; i < r0; i++) {
		if (gone_a >> i & 1)
			c[nc++] = i;
		else if (gone_b >> j++ & 1)
			c[nc++] = i;
	}
	y = add_axes_op(o, r, "Squeeze", x, nc, c);
	opt_replace(o, opt_out(o, r, 0), y);
	return OPT_REWROTE;
}

/* 1 when broadcasting x against the constant shape s gives x's shape. */
static int
expand_keeps(Opt *o, int x, int s)
{
	int64_t d[R];
	int k = opt_const_ints(o, s, d, R), rx = opt_rank(o, x);

	if (k < 0 || rx < 0 || k > rx)
		return 0;
	for (int i = 0; i < k; i++) {
		OptDim dx = opt_val(o, x)->dims[rx - k + i];
		if (d[i] != 1 && d[i] != dx.v)
			return 0;
	}
	return 1;
}

/* ExpandNoop: its contract is its row of patterns.def. */
int
pat_expand_noop(Opt *o, int r)
{
	int x = opt_in(o, r, 0), y = opt_out(o, r, 0);

	if (!opt_same_shape(o, x, y) && !expand_keeps(o, x, opt_in(o, r, 1)))
		return OPT_NOMATCH;
	return opt_forward(o, y, x);
}

static int
broadcasting(Opt *o, int n)
{
	static const char *const ops[] = {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Equal", "Less",
		"Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor", "Where", "Mod", "Sum", NULL};

	for (const char *const *p = ops; *p; p++)
		if (opt_is(o, n, *p))
			return 1;
	return 0;
}

/* ExpandBroadcast: its contract is its row of patterns.def. */
int
pat_expand_broadcast(Opt *o, int r)
{
	int x = opt_in(o, r, 0), y = opt_out(o, r, 0);
	const OptValue *v = opt_val(o, y);

	if (v->is_output || v->pinned || !v->nuse || opt_rank(o, x) < 0)
		return OPT_NOMATCH;
	for (int i = 0; i < v->nuse; i++) {
		int c = v->use[i].node, rank = -1, z = opt_out(o, c, 0);
		OptDim d[R], t[R];
		if (!broadcasting(o, c) || opt_rank(o, z) < 0)
			return OPT_NOMATCH;
		for (int k = 0; k < opt_node(o, c)->nin; k++) {
			int in = opt_in(o, c, k) == y ? x : opt_in(o, c, k);
			if (in < 0 || opt_rank(o, in) < 0)
				return OPT_NOMATCH;
			if (rank < 0) {
				rank = opt_rank(o, in);
				if (rank)       /* a rank-0 value has no dims array */
					memcpy(d, opt_val(o, in)->dims, sizeof *d * (size_t)rank);
				continue;
			}
			memcpy(t, d, sizeof t);
			if ((rank = opt_broadcast(rank, t, opt_rank(o, in), opt_val(o, in)->dims, d)) < 0)
				return OPT_NOMATCH;
		}
		if (rank != opt_rank(o, z))
			return OPT_NOMATCH;
		for (int k = 0; k < rank; k++)
			if (!opt_dim_eq(d[k], opt_val(o, z)->dims[k]))
				return OPT_NOMATCH;
	}
	opt_replace(o, y, x);
	return OPT_REWROTE;
}

/* SliceNoop: its contract is its row of patterns.def. */
int
pat_slice_noop(Opt *o, int r)
{
	int x = opt_in(o, r, 0), rx = opt_rank(o, x), k, ka = -1, ks = -1;
	int64_t st[R], en[R], ax[R], sp[R];

	if (rx < 0 || opt_node(o, r)->nin < 3 || (k = opt_const_ints(o, opt_in(o, r, 1), st, R)) < 0 ||
	    opt_const_ints(o, opt_in(o, r, 2), en, R) != k)
		return OPT_NOMATCH;
	if (opt_in(o, r, 3) >= 0 && (ka = opt_const_ints(o, opt_in(o, r, 3), ax, R)) != k)
		return OPT_NOMATCH;
	if (opt_in(o, r, 4) >= 0 && (ks = opt_const_ints(o, opt_in(o, r, 4), sp, R)) != k)
		return OPT_NOMATCH;
	for (int i = 0; i < k; i++) {
		int64_t a = ka >= 0 ? ax[i] : i;
		OptDim d;
		a = a < 0 ? a + rx : a;
		if (a < 0 || a >= rx || (ks >= 0 && sp[i] != 1) || st[i] != 0)
			return OPT_NOMATCH;
		d = opt_val(o, x)->dims[a];
		if (!(en[i] >= ((int64_t)1 << 62) || (d.v >= 0 && en[i] >= d.v)))
			return OPT_NOMATCH;
	}
	return opt_forward(o, opt_out(o, r, 0), x);
}

/* GatherND(Expand(Unsqueeze(x, [0..j)), s), I) with batch_dims 0, the
 * Expand only broadcasting the j new leading dims, and I a constant int64
 * whose tuples are longer than j (vmap's indexing of a batched tensor) ->
 * GatherND(x, I[..., j:]): a coordinate into a broadcast dim picks the same
 * elements whatever it is.  The Expand and Unsqueeze read only there. */
int
pat_gathernd_expand(Opt *o, int r)
{
	int e = opt_prod(o, opt_in(o, r, 0), "Expand"), u, x, iv = opt_in(o, r, 1), rx, ri, j, y, z;
	int64_t ax[R], m, tuples;
	const OnnxTensor *t;
	const OptDim *dx, *de;
	int64_t *ni;

	if (e < 0 || opt_attr_i(o, r, "batch_dims", 0) || !opt_only_use(o, opt_in(o, r, 0), r) ||
	    (u = opt_prod(o, opt_in(o, e, 0), "Unsqueeze")) < 0 || !opt_only_use(o, opt_in(o, e, 0), e))
		return OPT_NOMATCH;
	x = opt_in(o, u, 0);
	rx = opt_rank(o, x);
	if (rx < 0 || (j = opt_axes(o, u, ax, R)) <= 0 || opt_norm_axes(j, ax, rx + j) != j ||
	    opt_rank(o, opt_out(o, e, 0)) != rx + j)
		return OPT_NOMATCH;
	for (int i = 0; i < j; i++)
		if (ax[i] != i)
			return OPT_NOMATCH;
	dx = opt_val(o, x)->dims;
	de = opt_val(o, opt_out(o, e, 0))->dims;
	for (int i = 0; i < rx; i++)
		if (!opt_dim_eq(dx[i], de[j + i]))
			return OPT_NOMATCH;
	if (!(t = opt_const_tensor(o, iv)) || t->data_type != ONNX_INT64 || (ri = (int)t->n_dims) < 1 ||
	    (m = t->dims[ri - 1]) <= j)
		return OPT_NOMATCH;
	tuples = opt_const_numel(o, iv) / m;
	ni = ARENA_ARRAY(o->a, int64_t, tuples * (m - j) + 1);
	for (int64_t k = 0; k < tuples; k++)
		for (int64_t c = j; c < m; c++)
			ni[k * (m - j) + c - j] = (int64_t)opt_const_at(o, iv, k * m + c);
	{
		int64_t d[R];
		for (int i = 0; i < ri; i++)
			d[i] = t->dims[i];
		d[ri - 1] = m - j;
		z = opt_const(o, ONNX_INT64, ri, d, ni, (size_t)(tuples * (m - j)) * sizeof *ni);
	}
	y = opt_add1(o, r, "GatherND", 2, x, z);
	opt_replace(o, opt_out(o, r, 0), y);
	return OPT_REWROTE;
}

/* ConcatSingle: its contract is its row of patterns.def. */
int
pat_concat_single(Opt *o, int r)
{
	if (opt_node(o, r)->nin != 1)
		return OPT_NOMATCH;
	return opt_forward(o, opt_out(o, r, 0), opt_in(o, r, 0));
}

/* A new Concat before r of in[0..n) on r's axis, replacing r's output. */
static int
concat_again(Opt *o, int r, int n, const int *in)
{
	int y, c = opt_add(o, r, "Concat", n, in, 1, &y);

	opt_set_attr_i(o, c, "axis", opt_attr_i(o, r, "axis", 0));
	opt_replace(o, opt_out(o, r, 0), y);
	return OPT_REWROTE;
}

/* Concat inputs of static size 0 along the axis (a partial rotary's empty
 * pass-through slice) are dropped, when an input of another size remains
 * (one left: the value itself). */
int
pat_concat_empty(Opt *o, int r)
{
	int n = opt_node(o, r)->nin, *keep = ARENA_ARRAY(o->a, int, n + 1), k = 0;
	int rank = opt_rank(o, opt_out(o, r, 0));
	int64_t axis = opt_attr_i(o, r, "axis", 0);

	if (rank < 1 || n < 2)
		return OPT_NOMATCH;
	axis = axis < 0 ? axis + rank : axis;
	if (axis < 0 || axis >= rank)
		return OPT_NOMATCH;
	for (int i = 0; i < n; i++) {
		int v = opt_in(o, r, i);
		if (!(v >= 0 && opt_rank(o, v) == rank && opt_val(o, v)->dims[axis].v == 0))
			keep[k++] = v;
	}
	if (k == n || k == 0)
		return OPT_NOMATCH;
	if (k == 1)
		return opt_forward(o, opt_out(o, r, 0), keep[0]);
	return concat_again(o, r, k, keep);
}

/* ConcatConcat: its contract is its row of patterns.def. */
int
pat_concat_concat(Opt *o, int r)
{
	int nin = opt_node(o, r)->nin, total = 0, any = 0, *in;
	int64_t axis = opt_attr_i(o, r, "axis", 0), rank = opt_rank(o, opt_out(o, r, 0));

	for (int i = 0; i < nin; i++) {
		int c = opt_prod(o, opt_in(o, r, i), "Concat");
		int64_t ax = c >= 0 ? opt_attr_i(o, c, "axis", 0) : 0;
		if (c >= 0 && opt_only_use(o, opt_in(o, r, i), r) &&
		    (ax == axis || (rank >= 0 && (ax < 0 ? ax + rank : ax) == (axis < 0 ? axis + rank : axis)))) {
			total += opt_node(o, c)->nin;
			any = 1;
		} else {
			total++;
		}
	}
	if (!any)
		return OPT_NOMATCH;
	in = ARENA_ARRAY(o->a, int, total);
	total = 0;
	for (int i = 0; i < nin; i++) {
		int c = opt_prod(o, opt_in(o, r, i), "Concat");
		int64_t ax = c >= 0 ? opt_attr_i(o, c, "axis", 0) : 0;
		if (c >= 0 && opt_only_use(o, opt_in(o, r, i), r) &&
		    (ax == axis || (rank >= 0 && (ax < 0 ? ax + rank : ax) == (axis < 0 ? axis + rank : axis))))
			for (int k = 0; k < opt_node(o, c)->nin; k++)
				in[total++] = opt_in(o, c, k);
		else
			in[total++] = opt_in(o, r, i);
	}
	return concat_again(o, r, total, in);
}

/* The [start, end) of a Shape node, normalized; 0 when not known. */
static int
shape_range(Opt *o, int sh, int64_t *b, int64_t *e)
{
	int rx = opt_rank(o, opt_in(o, sh, 0));

	*b = opt_attr_i(o, sh, "start", 0);
	*e = opt_attr_i(o, sh, "end", rx >= 0 ? rx : INT64_MAX);
	if (rx < 0)
		return *b >= 0 && *e >= 0 && *e != INT64_MAX;
	*b = *b < 0 ? *b + rx : *b;
	*e = *e < 0 ? *e + rx : *e;
	*b = *b < 0 ? 0 : *b > rx ? rx : *b;
	*e = *e < *b ? *b : *e > rx ? rx : *e;
	return 1;
}

/* ConcatShapes: its contract is its row of patterns.def. */
int
pat_concat_shapes(Opt *o, int r)
{
	int nin = opt_node(o, r)->nin;

	if (opt_attr_i(o, r, "axis", 0) != 0)
		return OPT_NOMATCH;
	for (int i = 0; i + 1 < nin; i++) {
		int s1 = opt_prod(o, opt_in(o, r, i), "Shape"), s2 = opt_prod(o, opt_in(o, r, i + 1), "Shape");
		int64_t b1, e1, b2, e2;
		int *in, n, y, x;
		if (s1 < 0 || s2 < 0 || opt_in(o, s1, 0) != opt_in(o, s2, 0) || !shape_range(o, s1, &b1, &e1) ||
		    !shape_range(o, s2, &b2, &e2) || e1 != b2 || !opt_only_use(o, opt_in(o, r, i), r) ||
		    !opt_only_use(o, opt_in(o, r, i + 1), r))
			continue;
		x = opt_in(o, s1, 0);
		n = opt_add(o, r, "Shape", 1, &x, 1, &y);
		if (b1)
			opt_set_attr_i(o, n, "start", b1);
		opt_set_attr_i(o, n, "end", e2);
		in = ARENA_ARRAY(o->a, int, nin);
		for (int k = 0, j = 0; k < nin; k++)
			if (k != i + 1)
				in[j++] = k == i ? y : opt_in(o, r, k);
		return concat_again(o, r, nin - 1, in);
	}
	return OPT_NOMATCH;
}

/* Neighbouring constant inputs of a Concat -> one constant (1-D inputs). */
int
pat_concat_constants(Opt *o, int r)
{
	int nin = opt_node(o, r)->nin;

	for (int i = 0; i + 1 < nin; i++) {
		int a = opt_in(o, r, i), j = i + 1, m, *in, c, es;
		int64_t total = 0;
		uint8_t *buf;
		if (!opt_const_tensor(o, a) || opt_rank(o, a) != 1 || opt_const_numel(o, a) <= 0)
			continue;
		while (j < nin && opt_const_tensor(o, opt_in(o, r, j)) && opt_rank(o, opt_in(o, r, j)) == 1 &&
		       opt_elem(o, opt_in(o, r, j)) == opt_elem(o, a))
			j++;
		if (j == i + 1)
			continue;
		for (int k = i; k < j; k++)
			total += (int64_t)opt_const_tensor(o, opt_in(o, r, k))->raw_data.len;
		buf = arena_alloc(o->a, (size_t)total + 1);
		total = 0;
		for (int k = i; k < j; k++) {
			const OnnxTensor *t = opt_const_tensor(o, opt_in(o, r, k));
			memcpy(buf + total, t->raw_data.data, t->raw_data.len);
			total += (int64_t)t->raw_data.len;
		}
		es = (int)(opt_const_tensor(o, a)->raw_data.len / (size_t)opt_const_numel(o, a));
		{
			int64_t dim = total / es;
			c = opt_const(o, opt_elem(o, a), 1, &dim, buf, (size_t)total);
		}
		in = ARENA_ARRAY(o->a, int, nin);
		m = 0;
		for (int k = 0; k < nin; k++) {
			if (k == i)
				in[m++] = c;
			else if (k < i || k >= j)
				in[m++] = opt_in(o, r, k);
		}
		return concat_again(o, r, m, in);
	}
	return OPT_NOMATCH;
}

/* Range's inputs must be scalars; one-element tensors of higher (or unknown)
 * rank run in onnxruntime only while it cannot see their shapes, which
 * optimizing can change, so they are reshaped to rank 0 (a Reshape that only
 * a model Range would refuse anyway can fail). */
static int
range_needs_scalar(Opt *o, int v)
{
	return v >= 0 && opt_rank(o, v) != 0 && !(opt_static(o, v) && opt_numel(o, v) != 1);
}

int
pat_range_scalar(Opt *o, int r)
{
	int any = 0;

	for (int i = 0; i < 3 && i < opt_node(o, r)->nin; i++)
		any |= range_needs_scalar(o, opt_in(o, r, i));
	if (!any)
		return OPT_NOMATCH;
	for (int i = 0; i < 3 && i < opt_node(o, r)->nin; i++) {
		int v = opt_in(o, r, i);
		if (range_needs_scalar(o, v)) {
			int s = opt_add1(o, r, "Reshape", 2, v, opt_const_i64s(o, 0, NULL));
			opt_set_type(o, s, opt_elem(o, v), 0, NULL);
			opt_set_input(o, r, i, s);
		}
	}
	return OPT_REWROTE;
}
