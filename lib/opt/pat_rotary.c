/* pat_rotary.c: rotary position embeddings as ONNX's RotaryEmbedding
 * (opset 23).  transformers applies the rotate-half form to each of q and k:
 *
 *     x * cos + cat(-x[..., h:], x[..., :h]) * sin,
 *     cos = Unsqueeze(Cos(cat(f, f)), 1), sin likewise, f = positions x inv_freq
 *
 * with f of shape [B, S, h] computed from the real position ids of each
 * batch row.  RotaryEmbedding without position_ids takes exactly that: its
 * caches are [batch, sequence, head_size / 2], x is [batch, heads, sequence,
 * head_size].  So the caches are Cos(f) and Sin(f), their sequence dim must
 * be x's, and their batch dim x's too, or 1 (no position ids given: one
 * table for every row), which is then expanded to x's batch: RotaryEmbedding
 * does not broadcast its caches, and taking a batch-1 table for the whole
 * batch is the error torch.onnx's dynamo exporter makes.  The halves of
 * cat(f, f) being equal is what lets half of the table stand for the whole;
 * it is checked on the graph (the same value concatenated twice). */
#include "opt/opt.h"

#define R 8

/* The node producing v when it is op and v is read only by `by`, else -1. */
static int
only_prod(Opt *o, int v, const char *op, int by)
{
	int p = opt_prod(o, v, op);

	return p >= 0 && opt_only_use(o, v, by) ? p : -1;
}

/* 1 when node s slices x's last axis (of static size d) from lo to hi
 * (hi == d also accepts any end past d), step 1. */
static int
slice_last(Opt *o, int s, int x, int64_t d, int64_t lo, int64_t hi)
{
	int64_t st[R], en[R], ax[R], sp[R];
	int rx = opt_rank(o, x);

	if (opt_in(o, s, 0) != x || opt_node(o, s)->nin < 4 || opt_const_ints(o, opt_in(o, s, 1), st, R) != 1 ||
	    opt_const_ints(o, opt_in(o, s, 2), en, R) != 1 || opt_const_ints(o, opt_in(o, s, 3), ax, R) != 1)
		return 0;
	if (opt_in(o, s, 4) >= 0 && (opt_const_ints(o, opt_in(o, s, 4), sp, R) != 1 || sp[0] != 1))
		return 0;
	if (ax[0] != rx - 1 && ax[0] != -1)
		return 0;
	return st[0] == lo && (en[0] == hi || (hi == d && en[0] >= d));
}

/* The f of a table Unsqueeze(op(Concat(f, f, axis=-1)), 1) ([B, S, D] ->
 * [B, 1, S, D], op Cos or Sin) whose S is x's and whose B is x's (*bcast
 * 0) or 1 (*bcast 1: one table for every row, broadcast); -1 otherwise. */
static int
table(Opt *o, int v, const char *op, int x, int *bcast)
{
	int u = opt_prod(o, v, "Unsqueeze"), c, cat, f;
	int64_t ax[R];
	const OptValue *cv, *xv = opt_val(o, x);

	if (u < 0 || opt_axes(o, u, ax, R) != 1 || (ax[0] != 1 && ax[0] != -3) ||
	    (c = opt_prod(o, opt_in(o, u, 0), op)) < 0 || (cat = opt_prod(o, opt_in(o, c, 0), "Concat")) < 0 ||
	    opt_node(o, cat)->nin != 2 || (f = opt_in(o, cat, 0)) != opt_in(o, cat, 1) || opt_rank(o, f) != 3 ||
	    (opt_attr_i(o, cat, "axis", 0) != -1 && opt_attr_i(o, cat, "axis", 0) != 2))
		return -1;
	cv = opt_val(o, opt_in(o, u, 0));
	if (cv->rank != 3 || !opt_dim_eq(cv->dims[1], xv->dims[2]))
		return -1;
	if (opt_dim_eq(cv->dims[0], xv->dims[0]))
		*bcast = 0;
	else if (cv->dims[0].v == 1)
		*bcast = 1;
	else
		return -1;
	return f;
}

/* The dims of the shape value v when it is a constant int list or a Concat
 * of such lists and of Slice(Shape(u), start, end) pieces (axis 0, step 1),
 * into out (a constant entry as a static dim); count, or -1. */
static int
shape_dims(Opt *o, int v, int u, OptDim *out, int max)
{
	int64_t c[R];
	int k = opt_const_ints(o, v, c, R), n = 0, cat;

	if (k >= 0) {
		if (k > max)
			return -1;
		for (int i = 0; i < k; i++)
			out[i] = (OptDim){c[i], NULL};
		return k;
	}
	if ((cat = opt_prod(o, v, "Concat")) < 0 || opt_attr_i(o, cat, "axis", 0) != 0)
		return -1;
	for (int i = 0; i < opt_node(o, cat)->nin; i++) {
		int p = opt_in(o, cat, i), sl = opt_prod(o, p, "Slice"), sh, ru = opt_rank(o, u), m;
		int64_t st[R], en[R], ax[R], sp[R];
		if (sl < 0) {
			if ((m = shape_dims(o, p, -1, out + n, max - n)) < 0 || opt_prod(o, p, "Concat") >= 0)
				return -1;
			n += m;
			continue;
		}
		if ((sh = opt_prod(o, opt_in(o, sl, 0), "Shape")) < 0 || opt_in(o, sh, 0) != u || ru < 0 ||
		    opt_attr(o, sh, "start") || opt_attr(o, sh, "end") ||
		    opt_const_ints(o, opt_in(o, sl, 1), st, R) != 1 || opt_const_ints(o, opt_in(o, sl, 2), en, R) != 1 ||
		    (opt_in(o, sl, 3) >= 0 && (opt_const_ints(o, opt_in(o, sl, 3), ax, R) != 1 || ax[0] != 0)) ||
		    (opt_in(o, sl, 4) >= 0 && (opt_const_ints(o, opt_in(o, sl, 4), sp, R) != 1 || sp[0] != 1)) ||
		    st[0] < 0 || en[0] < 0)
			return -1;
		for (int64_t d = st[0]; d < (en[0] < ru ? en[0] : ru); d++) {
			if (n == max)
				return -1;
			out[n++] = opt_val(o, u)->dims[d];
		}
	}
	return n;
}

/* The f of an interleaved table Unsqueeze(Reshape(Expand(Unsqueeze(op(f),
 * -1), [B, S, h, 2]), [B, S, 2h]), 1) (torch's repeat_interleave(op(f), 2,
 * -1)[:, None], op Cos or Sin) whose S is x's and B x's or 1 (*bcast as
 * for table()); -1 otherwise. */
static int
table_interleaved(Opt *o, int v, const char *op, int x, int *bcast)
{
	int u = opt_prod(o, v, "Unsqueeze"), rs, ex, u2, c, f, k;
	int64_t ax[R];
	OptDim sd[R];
	const OptValue *rv, *fv, *xv = opt_val(o, x);

	if (u < 0 || opt_axes(o, u, ax, R) != 1 || (ax[0] != 1 && ax[0] != -3) ||
	    (rs = opt_prod(o, opt_in(o, u, 0), "Reshape")) < 0 || (ex = opt_prod(o, opt_in(o, rs, 0), "Expand")) < 0 ||
	    (u2 = opt_prod(o, opt_in(o, ex, 0), "Unsqueeze")) < 0 || opt_axes(o, u2, ax, R) != 1 ||
	    (ax[0] != 3 && ax[0] != -1) || (c = opt_prod(o, opt_in(o, u2, 0), op)) < 0 || opt_rank(o, f = opt_in(o, c, 0)) != 3)
		return -1;
	rv = opt_val(o, opt_in(o, rs, 0) == opt_out(o, ex, 0) ? opt_out(o, rs, 0) : -1);
	fv = opt_val(o, f);
	/* the Expand makes [B, S, h, 2] exactly (no new leading dims), the
	 * Reshape [B, S, 2h]: each angle twice, side by side */
	if ((k = shape_dims(o, opt_in(o, ex, 1), opt_out(o, u2, 0), sd, R)) != 4 || sd[3].v != 2 ||
	    !(sd[0].v == 1 || opt_dim_eq(sd[0], fv->dims[0])) || !(sd[1].v == 1 || opt_dim_eq(sd[1], fv->dims[1])) ||
	    !(sd[2].v == 1 || opt_dim_eq(sd[2], fv->dims[2])) || rv->rank != 3 || fv->dims[2].v <= 0 ||
	    rv->dims[2].v != 2 * fv->dims[2].v || !opt_dim_eq(rv->dims[0], fv->dims[0]) ||
	    !opt_dim_eq(rv->dims[1], fv->dims[1]) || !opt_dim_eq(fv->dims[1], xv->dims[2]))
		return -1;
	if (opt_dim_eq(fv->dims[0], xv->dims[0]))
		*bcast = 0;
	else if (fv->dims[0].v == 1)
		*bcast = 1;
	else
		return -1;
	return f;
}

/* 1 when r (read only by `by`) is Reshape(Concat(Unsqueeze(Neg(Slice(x, 1,
 * .., step 2)), -1), Unsqueeze(Slice(x, 0, .., step 2), -1)), ..) back to
 * x's shape: torch.stack((-x[..., 1::2], x[..., ::2]), -1).flatten(-2). */
static int
rotate_every_two(Opt *o, int v, int x, int by)
{
	int rs = only_prod(o, v, "Reshape", by), cat, ua, ub, ng, s1, s0;
	int64_t ax[R], st[R], en[R], sa[R], sp[R];

	if (rs < 0 || !opt_same_shape(o, opt_out(o, rs, 0), x) ||
	    (cat = only_prod(o, opt_in(o, rs, 0), "Concat", rs)) < 0 || opt_node(o, cat)->nin != 2 ||
	    (opt_attr_i(o, cat, "axis", 0) != 4 && opt_attr_i(o, cat, "axis", 0) != -1) ||
	    (ua = only_prod(o, opt_in(o, cat, 0), "Unsqueeze", cat)) < 0 ||
	    (ub = only_prod(o, opt_in(o, cat, 1), "Unsqueeze", cat)) < 0)
		return 0;
	for (int i = 0; i < 2; i++)
		if (opt_axes(o, i ? ub : ua, ax, R) != 1 || (ax[0] != 4 && ax[0] != -1))
			return 0;
	if ((ng = only_prod(o, opt_in(o, ua, 0), "Neg", ua)) < 0 || (s1 = only_prod(o, opt_in(o, ng, 0), "Slice", ng)) < 0 ||
	    (s0 = only_prod(o, opt_in(o, ub, 0), "Slice", ub)) < 0)
		return 0;
	for (int i = 0; i < 2; i++) {
		int s = i ? s1 : s0;
		if (opt_in(o, s, 0) != x || opt_node(o, s)->nin < 5 || opt_const_ints(o, opt_in(o, s, 1), st, R) != 1 ||
		    opt_const_ints(o, opt_in(o, s, 2), en, R) != 1 || opt_const_ints(o, opt_in(o, s, 3), sa, R) != 1 ||
		    opt_const_ints(o, opt_in(o, s, 4), sp, R) != 1 || (sa[0] != 3 && sa[0] != -1) || sp[0] != 2 ||
		    st[0] != i || en[0] < opt_val(o, x)->dims[3].v)
			return 0;
	}
	return 1;
}

/* The caches of RotaryEmbedding: Cos(f) and Sin(f), f first expanded to
 * x's batch when bc (a batch-1 table).  Their values in *cc and *ss. */
static void
caches(Opt *o, int r, int x, int f, int bc, int *cc, int *ss)
{
	if (bc) {   /* the caches must be [B, S, h]: Expand f to x's batch */
		int sx = opt_add1(o, r, "Shape", 1, x), sf = opt_add1(o, r, "Shape", 1, f), sh;
		const OptDim *fd = opt_val(o, f)->dims;
		OptDim ed[3] = {opt_val(o, x)->dims[0], fd[1], fd[2]};
		opt_set_attr_i(o, opt_val(o, sx)->producer, "end", 1);
		opt_set_attr_i(o, opt_val(o, sf)->producer, "start", 1);
		opt_set_type(o, sx, ONNX_INT64, 1, (OptDim[]){{.v = 1}});
		opt_set_type(o, sf, ONNX_INT64, 1, (OptDim[]){{.v = 2}});
		sh = opt_add1(o, r, "Concat", 2, sx, sf);
		opt_set_attr_i(o, opt_val(o, sh)->producer, "axis", 0);
		opt_set_type(o, sh, ONNX_INT64, 1, (OptDim[]){{.v = 3}});
		f = opt_add1(o, r, "Expand", 2, f, sh);
		opt_set_type(o, f, opt_elem(o, x), 3, ed);
	}
	*cc = opt_add1(o, r, "Cos", 1, f);
	*ss = opt_add1(o, r, "Sin", 1, f);
}

/* RotaryEmbedding(x, cc, ss) interleaved= in place of r's output. */
static int
emit(Opt *o, int r, int x, int cc, int ss, int interleaved)
{
	int y, n = opt_add(o, r, "RotaryEmbedding", 3, (int[]){x, cc, ss}, 1, &y);

	opt_set_attr_i(o, n, "interleaved", interleaved);
	opt_copy_type(o, y, opt_out(o, r, 0));
	opt_replace(o, opt_out(o, r, 0), y);
	return OPT_REWROTE;
}

/* RotaryEmbeddingInterleaved: its contract is its row of patterns.def. */
int
pat_rotary_interleaved(Opt *o, int r)
{
	for (int s = 0; s < 2; s++) {
		int a = only_prod(o, opt_in(o, r, s), "Mul", r), b = only_prod(o, opt_in(o, r, 1 - s), "Mul", r);
		if (a < 0 || b < 0)
			continue;
		for (int i = 0; i < 2; i++) {
			int x = opt_in(o, a, i), cosv = opt_in(o, a, 1 - i), f, g, bc = 0, cc, ss;
			int64_t d;
			if (opt_rank(o, x) != 4 || opt_elem(o, x) != ONNX_FLOAT || (d = opt_val(o, x)->dims[3].v) <= 0 || d % 2)
				continue;
			for (int j = 0; j < 2; j++) {
				if (!rotate_every_two(o, opt_in(o, b, j), x, b) ||
				    (f = table_interleaved(o, cosv, "Cos", x, &bc)) < 0 ||
				    (g = table_interleaved(o, opt_in(o, b, 1 - j), "Sin", x, &bc)) != f)
					continue;
				caches(o, r, x, f, bc, &cc, &ss);
				return emit(o, r, x, cc, ss, 1);
			}
		}
	}
	return OPT_NOMATCH;
}

/* RotaryEmbeddingFuse: its contract is its row of patterns.def. */
int
pat_rotary_fuse(Opt *o, int r)
{
	for (int s = 0; s < 2; s++) {
		int a = only_prod(o, opt_in(o, r, s), "Mul", r), b = only_prod(o, opt_in(o, r, 1 - s), "Mul", r);
		if (a < 0 || b < 0)
			continue;
		for (int i = 0; i < 2; i++) {
			int x = opt_in(o, a, i), cosv = opt_in(o, a, 1 - i), rx = opt_rank(o, x), f, g;
			int64_t d, h;
			if (rx != 4 || opt_elem(o, x) != ONNX_FLOAT || (d = opt_val(o, x)->dims[3].v) <= 0 || d % 2)
				continue;
			h = d / 2;
			for (int j = 0; j < 2; j++) {
				int cat = only_prod(o, opt_in(o, b, j), "Concat", b), sinv = opt_in(o, b, 1 - j), ng, s1, s2;
				int ca, cc, ss, bc = 0;
				if (cat < 0 || opt_node(o, cat)->nin != 2)
					continue;
				ca = (int)opt_attr_i(o, cat, "axis", 0);
				if ((ca != -1 && ca != 3) || (ng = only_prod(o, opt_in(o, cat, 0), "Neg", cat)) < 0 ||
				    (s2 = only_prod(o, opt_in(o, ng, 0), "Slice", ng)) < 0 ||
				    (s1 = only_prod(o, opt_in(o, cat, 1), "Slice", cat)) < 0 ||
				    !slice_last(o, s2, x, d, h, d) || !slice_last(o, s1, x, d, 0, h))
					continue;
				if ((f = table(o, cosv, "Cos", x, &bc)) < 0 || (g = table(o, sinv, "Sin", x, &bc)) != f)
					continue;
				caches(o, r, x, f, bc, &cc, &ss);
				return emit(o, r, x, cc, ss, 0);
			}
		}
	}
	return OPT_NOMATCH;
}
