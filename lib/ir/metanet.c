/* metanet.c: the dtype and shape rules of network layers: matrix
 * products (mm, bmm, matmul's broadcasting, addmm, linear),
 * convolution and pooling arithmetic, normalization, attention and the
 * recurrent layers. */
#include "ir/internal.h"

#include <limits.h>
#include <string.h>

/* ==== matrix products ==== */

static int
size_mismatch(MetaCtx *c, const char *what, int ra, const Dim *a, int rb, const Dim *b)
{
	return meta_fail(c, "%s: shapes %s and %s cannot be multiplied", what, meta_shape_str(c, ra, a),
	            meta_shape_str(c, rb, b));
}

/* matmul's batched product: a[..., n, k] @ b[..., k, m], a 1-D operand
 * taken as a row (a) or a column (b) vector and its dim removed. */
static int
matmul_shape(MetaCtx *c, const Value *x, const Value *y, int *r, Dim **d)
{
	Dim xa[MAX_RANK + 1], ya[MAX_RANK + 1], *bd = NULL, *o;
	int xr = x->rank, yr = y->rank, br = 0, n;

	if (!xr || !yr)
		return meta_fail(c, "both arguments to matmul need to be at least 1D, but they are %dD and %dD", xr, yr);
	if (xr > MAX_RANK || yr > MAX_RANK)
		return meta_fail(c, "more than %d dims", MAX_RANK);
	if (xr == 1) {
		xa[0] = meta_dim_n(1);
		xa[1] = x->dims[0];
		xr = 2;
	} else {
		memcpy(xa, x->dims, sizeof *xa * (size_t)xr);
	}
	if (yr == 1) {
		ya[0] = y->dims[0];
		ya[1] = meta_dim_n(1);
		yr = 2;
	} else {
		memcpy(ya, y->dims, sizeof *ya * (size_t)yr);
	}
	if (!meta_same_size(xa[xr - 1], ya[yr - 2]))
		return size_mismatch(c, "matmul", x->rank, x->dims, y->rank, y->dims);
	if (meta_broadcast(c, &br, &bd, xr - 2, xa) || meta_broadcast(c, &br, &bd, yr - 2, ya))
		return -1;
	o = ARENA_ARRAY(c->a, Dim, br + 3);
	memcpy(o, bd, sizeof *o * (size_t)br);
	n = br;
	if (x->rank > 1)
		o[n++] = xa[xr - 2];
	if (y->rank > 1)
		o[n++] = ya[yr - 1];
	*r = n;
	*d = o;
	return 0;
}

/* Checks that the named argument has rank r (torch's "must be a matrix"). */
static Value *
ranked(MetaCtx *c, const char *name, int r)
{
	Value *v = meta_tensor(c, name);

	if (!v)
		meta_fail(c, "argument '%s' is not a tensor", name);
	else if (v->rank != r)
		meta_fail(c, "argument '%s' must be %dD, got %dD", name, r, v->rank);
	else
		return v;
	return NULL;
}

/* The matrix product family; p says which (MM_*).  An add form (addmm,
 * baddbmm, addmv, addr) broadcasts self to the product's shape. */
int
meta_rule_matmul(MetaCtx *c)
{
	Value *x, *y, *self = NULL, *bias;
	Dim o[MAX_RANK + 2], *d = o;
	int r = 0;
	DType t;

	if (meta_dtype_of(c, &t))
		return -1;
	switch (c->row->p) {
	case MM_MATMUL:
		if (!(x = meta_tensor(c, "self")) || !(y = meta_tensor(c, "other")))
			return meta_fail(c, "matmul takes two tensors");
		if (matmul_shape(c, x, y, &r, &d))
			return -1;
		break;
	case MM_MM: case MM_ADDMM:
		if (!(x = ranked(c, c->row->p == MM_MM ? "self" : "mat1", 2)) ||
		    !(y = ranked(c, c->row->p == MM_MM ? "mat2" : "mat2", 2)))
			return -1;
		if (!meta_same_size(x->dims[1], y->dims[0]))
			return size_mismatch(c, "mm", 2, x->dims, 2, y->dims);
		o[0] = x->dims[0];
		o[1] = y->dims[1];
		r = 2;
		self = c->row->p == MM_ADDMM ? meta_tensor(c, "self") : NULL;
		break;
	case MM_BMM: case MM_BADDBMM: case MM_ADDBMM:
		if (!(x = ranked(c, c->row->p == MM_BMM ? "self" : "batch1", 3)) ||
		    !(y = ranked(c, c->row->p == MM_BMM ? "mat2" : "batch2", 3)))
			return -1;
		if (!meta_same_size(x->dims[0], y->dims[0]) || !meta_same_size(x->dims[2], y->dims[1]))
			return size_mismatch(c, "bmm", 3, x->dims, 3, y->dims);
		if (c->row->p == MM_ADDBMM) {
			o[0] = x->dims[1];
			o[1] = y->dims[2];
			r = 2;
		} else {
			o[0] = x->dims[0].e ? x->dims[0] : y->dims[0];
			o[1] = x->dims[1];
			o[2] = y->dims[2];
			r = 3;
		}
		self = c->row->p != MM_BMM ? meta_tensor(c, "self") : NULL;
		break;
	case MM_MV: case MM_ADDMV:
		if (!(x = ranked(c, c->row->p == MM_MV ? "self" : "mat", 2)) || !(y = ranked(c, "vec", 1)))
			return -1;
		if (!meta_same_size(x->dims[1], y->dims[0]))
			return size_mismatch(c, "mv", 2, x->dims, 1, y->dims);
		o[0] = x->dims[0];
		r = 1;
		self = c->row->p == MM_ADDMV ? meta_tensor(c, "self") : NULL;
		break;
	case MM_DOT:
		if (!(x = ranked(c, "self", 1)) || !(y = ranked(c, meta_tensor(c, "tensor") ? "tensor" : "other", 1)))
			return -1;
		if (!meta_same_size(x->dims[0], y->dims[0]))
			return meta_fail(c, "inconsistent tensor size: %s and %s", meta_shape_str(c, 1, x->dims),
			            meta_shape_str(c, 1, y->dims));
		break;
	case MM_OUTER: case MM_ADDR:
		if (!(x = ranked(c, c->row->p == MM_OUTER ? "self" : "vec1", 1)) ||
		    !(y = ranked(c, c->row->p == MM_OUTER ? "vec2" : "vec2", 1)))
			return -1;
		o[0] = x->dims[0];
		o[1] = y->dims[0];
		r = 2;
		self = c->row->p == MM_ADDR ? meta_tensor(c, "self") : NULL;
		break;
	case MM_LINEAR:
		if (!(x = meta_tensor(c, "input")) || !(y = meta_tensor(c, "weight")))
			return meta_fail(c, "linear takes an input and a weight");
		if (y->rank != 1 && y->rank != 2)
			return meta_fail(c, "linear: weight must be 1D or 2D, got %dD", y->rank);
		if (!x->rank || x->rank > MAX_RANK)
			return meta_fail(c, "linear: input must be at least 1D");
		if (!meta_same_size(x->dims[x->rank - 1], y->dims[y->rank - 1]))
			return size_mismatch(c, "linear", x->rank, x->dims, y->rank, y->dims);
		r = x->rank - 1;
		memcpy(o, x->dims, sizeof *o * (size_t)r);
		if (y->rank == 2)
			o[r++] = y->dims[0];
		if ((bias = meta_tensor(c, "bias"))) {
			int br = r;
			Dim *bd = o;
			if (meta_broadcast(c, &br, &bd, bias->rank, bias->dims))
				return -1;
			if (br != r)
				return meta_fail(c, "linear: bias %s does not broadcast to %s", meta_shape_str(c, bias->rank, bias->dims),
				            meta_shape_str(c, r, o));
		}
		break;
	default:
		return meta_fail(c, "unknown product form %d", c->row->p);
	}
	if (self) {
		int br = r;
		Dim *bd = d;
		if (meta_broadcast(c, &br, &bd, self->rank, self->dims))
			return -1;
		if (br != r)
			return meta_fail(c, "self %s does not broadcast to the product's shape %s",
			            meta_shape_str(c, self->rank, self->dims), meta_shape_str(c, r, d));
		for (int i = 0; i < r; i++)
			if (!meta_dim_eq(bd[i], d[i]) && !(d[i].e && !bd[i].e))
				return meta_fail(c, "self %s does not broadcast to the product's shape %s",
				            meta_shape_str(c, self->rank, self->dims), meta_shape_str(c, r, d));
	}
	return meta_out_tensor(c, t, r, d);
}

/* ==== convolution, pooling ==== */

/* The spatial parameter name of c as nd sizes (a single value repeats),
 * def when absent or empty; -1 with why[] otherwise. */
static int
spatial(MetaCtx *c, const char *name, int nd, int64_t def, int64_t *v)
{
	int64_t *x;
	int k = meta_get_ints(c, name, nd, &x);

	if (k == -1 || k == 0) {
		for (int i = 0; i < nd; i++)
			v[i] = def;
		return 0;
	}
	if (k == -2)
		return meta_fail(c, "argument '%s' is symbolic", name);
	if (k != nd && k != 1)
		return meta_fail(c, "expected %s to be a single integer value or a list of %d values, but got %d",
		            name, nd, k);
	for (int i = 0; i < nd; i++)
		v[i] = x[k == 1 ? 0 : i];
	return 0;
}

/* Convolutions: conv1d-3d, convolution, _convolution, conv_transpose*.
 * p is CONV_* flags: always transposed (conv_transpose, else the
 * transposed argument says), a batched input only (convolution).  The
 * spatial rank comes from the weight. */
int
meta_rule_conv(MetaCtx *c)
{
	Value *x = meta_tensor(c, "input"), *w = meta_tensor(c, "weight"), *b = meta_tensor(c, "bias");
	int64_t st[8], pd[8], dl[8], op[8], groups;
	Dim o[10];
	const Arg *pa = meta_arg(c, "padding");
	int nd, batched, tr = (c->row->p & CONV_T) || meta_get_bool(c, "transposed", 0), same = 0;
	DType t;

	if (!x || !w)
		return meta_fail(c, "a convolution takes an input and a weight");
	nd = w->rank - 2;
	if (nd < 1 || nd > 3)
		return meta_fail(c, "expected a weight of 3 to 5 dims, got %d", w->rank);
	if (x->rank != nd + 1 && x->rank != nd + 2)
		return meta_fail(c, "expected %dD (unbatched) or %dD (batched) input to conv%dd, but got input of size: %s",
		            nd + 1, nd + 2, nd, meta_shape_str(c, x->rank, x->dims));
	batched = x->rank == nd + 2;
	if (!batched && (c->row->p & CONV_BATCHED))
		return meta_fail(c, "expected %d-dimensional input for %d-dimensional weight %s, but got %d-dimensional input",
		            nd + 2, nd + 2, meta_shape_str(c, w->rank, w->dims), x->rank);
	if (meta_dtype_of(c, &t) || meta_need_int(c, "groups", 1, &groups))
		return -1;
	if (pa && pa->kind == ARG_STRING) {
		if (strcmp(pa->u.s, "same") == 0)
			same = 1;
		else if (strcmp(pa->u.s, "valid") != 0)
			return meta_fail(c, "invalid padding string '%s'", pa->u.s);
		for (int i = 0; i < nd; i++)
			pd[i] = 0;
	} else if (spatial(c, "padding", nd, 0, pd)) {
		return -1;
	}
	if (spatial(c, "stride", nd, 1, st) || spatial(c, "dilation", nd, 1, dl) ||
	    spatial(c, "output_padding", nd, 0, op))
		return -1;
	if (groups <= 0)
		return meta_fail(c, "non-positive groups is not supported");
	for (int i = 0; i < nd; i++) {
		if (st[i] > INT32_MAX || dl[i] > INT32_MAX || pd[i] > INT32_MAX || op[i] > INT32_MAX || op[i] < INT32_MIN ||
		    w->dims[2 + i].v > INT32_MAX)
			return meta_fail(c, "a stride, padding, dilation or kernel size beyond 2^31");
		if (st[i] <= 0 || dl[i] <= 0 || pd[i] < 0)
			return meta_fail(c, "stride and dilation must be positive and padding non-negative");
		if (same && st[i] != 1)
			return meta_fail(c, "padding='same' is not supported for strided convolutions");
	}
	{
		Dim cin = x->dims[batched], wc = tr ? w->dims[0] : meta_dim_op(c, SYM_MUL, w->dims[1], meta_dim_n(groups));
		if (!meta_same_size(cin, wc))
			return meta_fail(c, "given groups=%lld, weight of size %s, expected input%s to have %s channels",
			            (long long)groups, meta_shape_str(c, w->rank, w->dims), meta_shape_str(c, x->rank, x->dims),
			            wc.e ? sym_print(c->a, wc.e) : arena_printf(c->a, "%lld", (long long)wc.v));
		if (!tr && !w->dims[0].e && w->dims[0].v % groups)
			return meta_fail(c, "given groups=%lld, expected weight to be divisible by %lld at dimension 0",
			            (long long)groups, (long long)groups);
	}
	if (batched)
		o[0] = x->dims[0];
	o[batched] = tr ? meta_dim_op(c, SYM_MUL, w->dims[1], meta_dim_n(groups)) : w->dims[0];
	if (b && (b->rank != 1 || !meta_same_size(b->dims[0], o[batched])))
		return meta_fail(c, "expected bias to be 1-dimensional with %s elements, but got bias of size %s",
		            meta_shape_str(c, 1, &o[batched]), meta_shape_str(c, b->rank, b->dims));
	for (int i = 0; i < nd; i++) {
		Dim L = x->dims[batched + 1 + i], k = w->dims[2 + i], ek, r;
		if (k.e)
			return meta_fail(c, "a symbolic kernel size");
		ek = meta_dim_n(dl[i] * (k.v - 1) + 1);
		if (same)
			r = L;
		else if (tr)
			r = meta_dim_add(c, meta_dim_op(c, SYM_MUL, meta_dim_add(c, L, -1), meta_dim_n(st[i])),
			            -2 * pd[i] + dl[i] * (k.v - 1) + op[i] + 1);
		else
			r = meta_dim_add(c, meta_dim_op(c, SYM_FLOORDIV, meta_dim_add(c, L, 2 * pd[i] - ek.v), meta_dim_n(st[i])), 1);
		if (!r.e && r.v <= 0)
			return meta_fail(c, "calculated output size %lld is too small (input %s, kernel %lld)",
			            (long long)r.v, meta_shape_str(c, 1, &L), (long long)k.v);
		if (!tr && !L.e && L.v + 2 * pd[i] < ek.v)
			return meta_fail(c, "kernel size can't be greater than actual input size");
		o[batched + 1 + i] = r;
	}
	return meta_out_tensor(c, t, x->rank, o);
}

/* One pooled size: torch's pooling_output_shape. */
static int
pool_size(MetaCtx *c, Dim L, int64_t k, int64_t s, int64_t p, int64_t d, int ceil, Dim *out)
{
	int64_t ek;
	Dim r;

	if (k > INT32_MAX || s > INT32_MAX || d > INT32_MAX || p > INT32_MAX)
		return meta_fail(c, "a kernel size, stride, padding or dilation beyond 2^31");
	ek = d * (k - 1) + 1;
	if (k <= 0 || s <= 0 || d <= 0 || p < 0)
		return meta_fail(c, "kernel size, stride and dilation must be greater than zero, padding non-negative");
	if (p > k / 2)
		return meta_fail(c, "pad should be at most half of effective kernel size, but got pad=%lld, kernel_size=%lld",
		            (long long)p, (long long)k);
	r = meta_dim_add(c, meta_dim_op(c, SYM_FLOORDIV, meta_dim_add(c, L, 2 * p - ek + (ceil ? s - 1 : 0)), meta_dim_n(s)), 1);
	if (ceil) {
		if (!r.e && !L.e) {
			if ((r.v - 1) * s >= L.v + p)
				r.v--;
		} else if (p + s > ek) {
			return meta_fail(c, "ceil_mode with a symbolic size: the last window's place depends on the size");
		}
	}
	if (!r.e && r.v < 1)
		return meta_fail(c, "output size is too small (%lld)", (long long)r.v);
	*out = r;
	return 0;
}

/* Pooling: p is POOL_* (max, max with indices, avg, adaptive avg,
 * adaptive max), q the spatial rank. */
int
meta_rule_pool(MetaCtx *c)
{
	Value *x = meta_first_tensor(c);
	int nd = c->row->q, kind = c->row->p;
	int64_t k[3], s[3], p[3], d[3];
	Dim o[5];
	DType t;
	int lead;

	if (!x)
		return meta_fail(c, "no input tensor");
	if (x->rank != nd + 1 && x->rank != nd + 2)
		return meta_fail(c, "expected %dD or %dD input, got %s", nd + 1, nd + 2, meta_shape_str(c, x->rank, x->dims));
	if (meta_dtype_of(c, &t))
		return -1;
	lead = x->rank - nd;
	memcpy(o, x->dims, sizeof *o * (size_t)lead);
	for (int i = lead; i < x->rank; i++)
		if (meta_dim_is(x->dims[i], 0) && kind != POOL_ADAPTIVE && kind != POOL_ADAPTIVE_MAX)
			return meta_fail(c, "expected input with non-zero spatial sizes, got %s", meta_shape_str(c, x->rank, x->dims));
	if (kind == POOL_ADAPTIVE || kind == POOL_ADAPTIVE_MAX) {
		Dim *os;
		int n = meta_get_dims(c, "output_size", nd, &os);
		if (n != nd)
			return meta_fail(c, "output_size must be %d sizes", nd);
		for (int i = 0; i < nd; i++) {
			o[lead + i] = os[i];
			if (!o[lead + i].e && o[lead + i].v < 0)
				return meta_fail(c, "output_size must be non-negative");
		}
	} else {
		int ceil = meta_get_bool(c, "ceil_mode", 0);
		const Arg *ks = meta_arg(c, "kernel_size"), *sa;
		if (!ks || (ks->kind != ARG_INT && ks->n != 1 && ks->n != nd))
			return meta_fail(c, "kernel_size must be a single int or a list of %d", nd);
		if (spatial(c, "kernel_size", nd, 1, k) || spatial(c, "padding", nd, 0, p) ||
		    spatial(c, "dilation", nd, 1, d))
			return -1;
		if (spatial(c, "stride", nd, 0, s))
			return -1;
		sa = meta_arg(c, "stride");
		for (int i = 0; i < nd; i++) {
			if (!sa || (sa->kind != ARG_INT && sa->kind != ARG_SYM_INT && sa->n == 0))
				s[i] = k[i];        /* stride=[]: the kernel size */
			if (kind == POOL_AVG)
				d[i] = 1;
			if (pool_size(c, x->dims[lead + i], k[i], s[i], p[i], d[i], ceil, &o[lead + i]))
				return -1;
		}
	}
	if (meta_out_tensor(c, t, x->rank, o))
		return -1;
	if (kind == POOL_MAX_IDX || kind == POOL_ADAPTIVE_MAX)
		return meta_out_tensor(c, DT_INT64, x->rank, o);
	return 0;
}

/* ==== normalization, attention, recurrent layers ==== */

/* The dtype batch norm keeps its statistics in: float32 for the 16-bit
 * floats, else the input's (layer and group norm keep the input's, on
 * CPU). */
static DType
acc_dtype(DType t)
{
	return t == DT_FLOAT16 || t == DT_BFLOAT16 ? DT_FLOAT32 : t;
}

/* Normalizations: p is NORM_*.  The native forms add their saved
 * statistics: per normalized row (layer norm), per channel (batch norm),
 * per sample and group (group norm). */
int
meta_rule_norm(MetaCtx *c)
{
	Value *x = meta_first_tensor(c), *wt = meta_tensor(c, "weight");
	Dim d[MAX_RANK], *ns;
	int k, axis;
	int64_t g;

	if (!x || x->rank > MAX_RANK)
		return meta_fail(c, "no tensor argument of at most %d dims", MAX_RANK);
	switch (c->row->p) {
	case NORM_LAYER: case NORM_NATIVE_LAYER: case NORM_RMS:
		if ((k = meta_get_dims(c, "normalized_shape", 0, &ns)) < 0)
			return meta_fail(c, "argument 'normalized_shape' is not a list of sizes");
		if (k < 1 && c->row->p != NORM_RMS)
			return meta_fail(c, "expected normalized_shape to be at least 1-dimensional");
		axis = x->rank - k;
		if (axis < 0)
			return meta_fail(c, "given normalized_shape=%s, expected input with shape [*, %s], but got input of size %s",
			            meta_shape_str(c, k, ns), meta_shape_str(c, k, ns), meta_shape_str(c, x->rank, x->dims));
		for (int i = 0; i < k; i++)
			if (!meta_same_size(ns[i], x->dims[axis + i]))
				return meta_fail(c, "given normalized_shape=%s, expected input with shape [*, ...%s], but got input of size %s",
				            meta_shape_str(c, k, ns), meta_shape_str(c, k, ns), meta_shape_str(c, x->rank, x->dims));
		if (wt) {
			int ok = wt->rank == k;
			for (int i = 0; ok && i < k; i++)
				ok = meta_same_size(wt->dims[i], ns[i]);
			if (!ok)
				return meta_fail(c, "expected weight to be of same shape as normalized_shape, but got weight of shape %s and normalized_shape = %s",
				            meta_shape_str(c, wt->rank, wt->dims), meta_shape_str(c, k, ns));
		}
		if (meta_out_like(c, x->dtype, x))
			return -1;
		if (c->row->p != NORM_NATIVE_LAYER)
			return 0;
		memcpy(d, x->dims, sizeof *d * (size_t)axis);
		for (int i = axis; i < x->rank; i++)
			d[i] = meta_dim_n(1);
		if (meta_out_tensor(c, x->dtype, x->rank, d))
			return -1;
		return meta_out_tensor(c, x->dtype, x->rank, d);
	case NORM_BATCH: case NORM_NATIVE_BATCH: case NORM_BATCH_NO_STATS: case NORM_INSTANCE:
		if (x->rank < 2 && c->row->p != NORM_INSTANCE)
			return meta_fail(c, "batch_norm: expected 2D or more input, got %dD", x->rank);
		if (wt && (wt->rank != 1 || !meta_same_size(wt->dims[0], x->dims[1])))
			return meta_fail(c, "running_mean/weight should contain %s elements, not %s", meta_shape_str(c, 1, &x->dims[1]),
			            meta_shape_str(c, wt->rank, wt->dims));
		if (meta_out_like(c, x->dtype, x))
			return -1;
		if (c->row->p == NORM_BATCH || c->row->p == NORM_INSTANCE)
			return 0;
		/* no statistics are saved in eval mode */
		d[0] = c->row->p == NORM_BATCH_NO_STATS || !meta_get_bool(c, "training", 1) ? meta_dim_n(0) : x->dims[1];
		if (meta_out_tensor(c, acc_dtype(x->dtype), 1, d))
			return -1;
		return meta_out_tensor(c, acc_dtype(x->dtype), 1, d);
	case NORM_GROUP: case NORM_NATIVE_GROUP:
		if (meta_need_int(c, c->row->p == NORM_GROUP ? "num_groups" : "group", 1, &g))
			return -1;
		if (x->rank < 2)
			return meta_fail(c, "group_norm: expected at least 2D input");
		if (g <= 0 || (!x->dims[1].e && x->dims[1].v % g))
			return meta_fail(c, "expected number of channels in input to be divisible by num_groups");
		if (meta_out_like(c, x->dtype, x))
			return -1;
		if (c->row->p == NORM_GROUP)
			return 0;
		d[0] = x->dims[0];
		d[1] = meta_dim_n(g);
		if (meta_out_tensor(c, x->dtype, 2, d))
			return -1;
		return meta_out_tensor(c, x->dtype, 2, d);
	default:
		return meta_fail(c, "unknown normalization form");
	}
}

/* scaled_dot_product_attention: query [..., L, E], key [..., S, E], value
 * [..., S, Ev] -> [..., L, Ev] in query's dtype. */
int
meta_rule_sdpa(MetaCtx *c)
{
	Value *q = meta_tensor(c, "query"), *k = meta_tensor(c, "key"), *v = meta_tensor(c, "value"), *m = meta_tensor(c, "attn_mask");
	Dim d[MAX_RANK];

	if (!q || !k || !v)
		return meta_fail(c, "attention takes query, key and value tensors");
	if (q->rank < 2 || k->rank < 2 || v->rank < 2 || q->rank > MAX_RANK)
		return meta_fail(c, "query, key and value must be at least 2D");
	if (q->dtype != k->dtype || q->dtype != v->dtype)
		return meta_fail(c, "expected query, key and value to have the same dtype, got %s, %s and %s",
		            dtype_name(q->dtype), dtype_name(k->dtype), dtype_name(v->dtype));
	if (m && m->dtype != DT_BOOL && m->dtype != q->dtype)
		return meta_fail(c, "expected attn_mask dtype to be bool or %s, got %s", dtype_name(q->dtype), dtype_name(m->dtype));
	if (!meta_same_size(q->dims[q->rank - 1], k->dims[k->rank - 1]))
		return meta_fail(c, "query and key embedding sizes differ: %s and %s", meta_shape_str(c, q->rank, q->dims),
		            meta_shape_str(c, k->rank, k->dims));
	if (!meta_same_size(k->dims[k->rank - 2], v->dims[v->rank - 2]))
		return meta_fail(c, "key and value sequence lengths differ: %s and %s", meta_shape_str(c, k->rank, k->dims),
		            meta_shape_str(c, v->rank, v->dims));
	memcpy(d, q->dims, sizeof *d * (size_t)q->rank);
	d[q->rank - 1] = v->dims[v->rank - 1];
	return meta_out_tensor(c, q->dtype, q->rank, d);
}

/* _native_multi_head_attention (nn.MultiheadAttention's fast path, self
 * attention: query, key and value of one shape [B, L, E]): [B, L, E] and
 * the weights [B, L, L] averaged, [B, H, L, L] per head, or an empty [0]
 * without need_weights. */
int
meta_rule_mha(MetaCtx *c)
{
	Value *q = meta_tensor(c, "query"), *k = meta_tensor(c, "key");
	int64_t e, h;
	Dim d[4];

	Value *v = meta_tensor(c, "value");

	if (!q || !k || !v || q->rank != 3)
		return meta_fail(c, "expected 3D query, key and value");
	if (k->rank != 3 || v->rank != 3 || !meta_dim_eq(q->dims[0], k->dims[0]) || !meta_dim_eq(q->dims[1], k->dims[1]) ||
	    !meta_dim_eq(q->dims[2], k->dims[2]) || !meta_dim_eq(k->dims[0], v->dims[0]) || !meta_dim_eq(k->dims[1], v->dims[1]) ||
	    !meta_dim_eq(k->dims[2], v->dims[2]))
		return meta_fail(c, "expected query, key and value shapes to match: %s, %s, %s", meta_shape_str(c, q->rank, q->dims),
		            meta_shape_str(c, k->rank, k->dims), meta_shape_str(c, v->rank, v->dims));
	if (meta_need_int(c, "embed_dim", 0, &e) || meta_need_int(c, "num_head", 1, &h))
		return -1;
	d[0] = q->dims[0];
	d[1] = q->dims[1];
	d[2] = meta_dim_n(e);
	if (meta_out_tensor(c, q->dtype, 3, d))
		return -1;
	if (!meta_get_bool(c, "need_weights", 1)) {
		d[0] = meta_dim_n(0);
		return meta_out_tensor(c, q->dtype, 1, d);
	}
	if (meta_get_bool(c, "average_attn_weights", 1)) {
		d[2] = k->dims[1];
		return meta_out_tensor(c, q->dtype, 3, d);
	}
	d[1] = meta_dim_n(h);
	d[2] = q->dims[1];
	d[3] = k->dims[1];
	return meta_out_tensor(c, q->dtype, 4, d);
}

/* lstm.input and gru.input (rnn_tanh, rnn_relu): the output sequence
 * [T, B, D*H] ([B, T, D*H] batch_first, [T, D*H] unbatched) and the final
 * states, shaped as the initial ones.  p: RNN_LSTM (h and c), RNN_GRU (h),
 * RNN_PLAIN (h; the only ATen form that takes an unbatched input). */
int
meta_rule_rnn(MetaCtx *c)
{
	Value *x = meta_tensor(c, "input"), *h0, *c0 = NULL, **hx, **ps;
	int nd = meta_get_bool(c, "bidirectional", 0) ? 2 : 1, bf = meta_get_bool(c, "batch_first", 0);
	int np = meta_get_tensors(c, "params", &ps);
	int64_t layers;
	Dim d[3];

	if (!x)
		return meta_fail(c, "argument 'input' is not a tensor");
	if (c->row->p == RNN_LSTM) {
		if (meta_get_tensors(c, "hx", &hx) != 2 || !hx[0] || !hx[1])
			return meta_fail(c, "lstm expects two initial states (h0, c0)");
		h0 = hx[0];
		c0 = hx[1];
	} else if (!(h0 = meta_tensor(c, "hx"))) {
		return meta_fail(c, "argument 'hx' is not a tensor");
	}
	if (meta_need_int(c, "num_layers", 1, &layers))
		return -1;
	if (x->rank != 3 && !(x->rank == 2 && c->row->p == RNN_PLAIN))
		return meta_fail(c, "input must have 3 dimensions, got %d (nn.%s adds the batch dim of an unbatched input)",
		            x->rank, c->row->p == RNN_LSTM ? "LSTM" : "GRU");
	if (h0->rank != x->rank || (c0 && c0->rank != x->rank))
		return meta_fail(c, "for %s input, hx should be %dD", x->rank == 3 ? "batched" : "unbatched", x->rank);
	if (!meta_dim_is(h0->dims[0], nd * layers))
		return meta_fail(c, "expected hidden size %lld at dim 0 (layers x directions), got %s", (long long)(nd * layers),
		            meta_shape_str(c, h0->rank, h0->dims));
	if (np > 0 && ps[0] && ps[0]->rank == 2 && !meta_same_size(ps[0]->dims[1], x->dims[x->rank - 1]))
		return meta_fail(c, "input.size(-1) must be equal to input_size: %s against the weights %s",
		            meta_shape_str(c, x->rank, x->dims), meta_shape_str(c, 2, ps[0]->dims));
	if (x->rank == 3) {
		Dim b = x->dims[bf ? 0 : 1];
		if (!meta_same_size(h0->dims[1], b))
			return meta_fail(c, "expected hidden batch size %s, got %s", meta_shape_str(c, 1, &b), meta_shape_str(c, 1, &h0->dims[1]));
		d[0] = x->dims[0];
		d[1] = x->dims[1];
		d[2] = meta_dim_op(c, SYM_MUL, h0->dims[2], meta_dim_n(nd));
	} else {
		d[0] = x->dims[0];
		d[1] = meta_dim_op(c, SYM_MUL, h0->dims[1], meta_dim_n(nd));
	}
	if (meta_out_tensor(c, x->dtype, x->rank, d) || meta_out_like(c, x->dtype, h0))
		return -1;
	return c0 ? meta_out_like(c, x->dtype, c0) : 0;
}

/* ==== einsum ==== */

/* einsum(equation, tensors): each operand's letters name its dims ("..."
 * the dims no letter names, broadcast together); the output is the
 * letters after "->", or without an arrow the letters seen once, in
 * alphabetical order, after the broadcast "..." dims.  Sizes of one
 * letter must agree (or be 1, as torch broadcasts them). */
int
meta_rule_einsum(MetaCtx *c)
{
	const Arg *eq = meta_arg(c, "equation");
	Value **ts;
	int k = meta_get_tensors(c, "tensors", &ts), count[128] = { 0 }, seen[128] = { 0 }, op = 0, er = 0, r = 0;
	Dim size[128], *ell = NULL, d[MAX_RANK];
	const char *s, *arrow;
	DType t;

	if (!eq || eq->kind != ARG_STRING || k < 1)
		return meta_fail(c, "einsum takes an equation and a list of tensors");
	for (int i = 0; i < k; i++) {
		if (!ts[i])
			return meta_fail(c, "einsum operand %d is None", i);
		if (i && ts[i]->dtype != ts[0]->dtype)
			return meta_fail(c, "einsum(): expected operands of one dtype, got %s and %s",
			                 dtype_name(ts[0]->dtype), dtype_name(ts[i]->dtype));
	}
	t = ts[0]->dtype;
	arrow = strstr(eq->u.s, "->");
	for (s = eq->u.s; op < k; s++) {
		const Value *x = ts[op];
		int nl = 0, has_ell = 0, dim = 0;
		const char *e = s;
		while (*e && *e != ',' && e != arrow) {
			if (*e == '.') {
				if (e[1] != '.' || e[2] != '.' || has_ell)
					return meta_fail(c, "einsum(): invalid ellipsis in '%s'", eq->u.s);
				has_ell = 1;
				e += 3;
				continue;
			}
			if (*e != ' ')
				nl++;
			e++;
		}
		if (nl > x->rank || (!has_ell && nl != x->rank))
			return meta_fail(c, "einsum(): the number of subscripts in the equation (%d) does not match the number of dimensions (%d) for operand %d%s",
			                 nl, x->rank, op, has_ell ? " and no ellipsis was given" : "");
		for (; s < e; s++) {
			if (*s == ' ')
				continue;
			if (*s == '.') {
				int n = x->rank - nl;
				if (meta_broadcast(c, &er, &ell, n, x->dims + dim))
					return -1;
				dim += n;
				s += 2;
				continue;
			}
			if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
				return meta_fail(c, "einsum(): invalid subscript '%c' in '%s'", *s, eq->u.s);
			if (!seen[(int)*s] || meta_dim_is(size[(int)*s], 1))
				size[(int)*s] = x->dims[dim];
			else if (!meta_dim_is(x->dims[dim], 1) && !meta_dim_eq(size[(int)*s], x->dims[dim]))
				return meta_fail(c, "einsum(): subscript %c has size %s for operand %d which does not broadcast with previously seen size %s",
				                 *s, meta_shape_str(c, 1, &x->dims[dim]), op, meta_shape_str(c, 1, &size[(int)*s]));
			seen[(int)*s] = 1;
			count[(int)*s]++;
			dim++;
		}
		op++;
		if (*s != ',')
			break;
	}
	if (op != k || (*s && s != arrow))
		return meta_fail(c, "einsum(): %d operands for the %d the equation '%s' names", k, op, eq->u.s);
	if (arrow) {
		int ell_out = 0;
		for (s = arrow + 2; *s; s++) {
			if (*s == ' ')
				continue;
			if (*s == '.' && s[1] == '.' && s[2] == '.' && !ell_out) {
				for (int i = 0; i < er && r < MAX_RANK; i++)
					d[r++] = ell[i];
				ell_out = 1;
				s += 2;
				continue;
			}
			if (*s < 0 || !seen[(int)*s] || seen[(int)*s] == 2 || r >= MAX_RANK)
				return meta_fail(c, "einsum(): output subscript '%c' appears more than once or in no operand", *s);
			seen[(int)*s] = 2;
			d[r++] = size[(int)*s];
		}
	} else {
		for (int i = 0; i < er && r < MAX_RANK; i++)
			d[r++] = ell[i];
		for (int ch = 'A'; ch <= 'z'; ch++)
			if (count[ch] == 1 && r < MAX_RANK)
				d[r++] = size[ch];
	}
	return meta_out_tensor(c, t, r, d);
}

/* nll_loss_nd(self, target, weight, reduction, ignore_index) and
 * cross_entropy_loss(.., label_smoothing): self's dtype; reduction none
 * (0) keeps self's shape without its class dim (dim 1, or dim 0 of a
 * 1-D self), which is also the shape of class-index targets; mean (1)
 * and sum (2) give a scalar. */
int
meta_rule_loss(MetaCtx *c)
{
	Value *x = meta_tensor(c, "self"), *t = meta_tensor(c, "target");
	int64_t red;
	Dim d[MAX_RANK];
	int r = 0, cls;

	if (!x || !t)
		return meta_fail(c, "expects tensors self and target");
	if (meta_need_int(c, "reduction", 1, &red) < 0)
		return -1;
	if (x->rank < 1 || x->rank > MAX_RANK)
		return meta_fail(c, "expects an input of rank 1 or more, got %d", x->rank);
	if (!dtype_is_float(x->dtype))
		return meta_fail(c, "expected a floating point input, got %s", dtype_name(x->dtype));
	if (red != 0)
		return meta_out_tensor(c, x->dtype, 0, d);
	cls = x->rank == 1 ? 0 : 1;
	for (int i = 0; i < x->rank; i++)
		if (i != cls)
			d[r++] = x->dims[i];
	return meta_out_tensor(c, x->dtype, r, d);
}

/* grid_sampler(input, grid, ..) and its _2d/_3d forms (the row's p: 2 or
 * 3 spatial dims, 0 either): input (N, C, *in)
 * sampled at grid (N, *out, sp) gives (N, C, *out) in input's dtype. */
int
meta_rule_grid_sampler(MetaCtx *c)
{
	Value *x = meta_tensor(c, "input"), *g = meta_tensor(c, "grid");
	Dim d[MAX_RANK];

	if (!x || !g)
		return meta_fail(c, "expects tensors input and grid");
	if ((x->rank != 4 && x->rank != 5) || g->rank != x->rank || (c->row->p && x->rank != c->row->p + 2))
		return meta_fail(c, "grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but "
		                    "got input with sizes %s and grid with sizes %s",
		                 meta_shape_str(c, x->rank, x->dims), meta_shape_str(c, g->rank, g->dims));
	if (g->dims[g->rank - 1].e || g->dims[g->rank - 1].v != x->rank - 2)
		return meta_fail(c, "grid_sampler(): expected grid to have size %d in last dimension", x->rank - 2);
	if (!meta_same_size(x->dims[0], g->dims[0]))
		return meta_fail(c, "grid_sampler(): expected grid and input to have same batch size");
	if (!dtype_is_float(x->dtype) || g->dtype != x->dtype)
		return meta_fail(c, "grid_sampler(): expected input and grid to have the same floating dtype");
	d[0] = x->dims[0];
	d[1] = x->dims[1];
	for (int i = 1; i < g->rank - 1; i++)
		d[i + 1] = g->dims[i];
	return meta_out_tensor(c, x->dtype, x->rank, d);
}
