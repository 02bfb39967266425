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
				int ca, y, n, cc, ss, bc = 0;
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
				cc = opt_add1(o, r, "Cos", 1, f);
				ss = opt_add1(o, r, "Sin", 1, f);
				n = opt_add(o, r, "RotaryEmbedding", 3, (int[]){x, cc, ss}, 1, &y);
				opt_set_attr_i(o, n, "interleaved", 0);
				opt_copy_type(o, y, opt_out(o, r, 0));
				opt_replace(o, opt_out(o, r, 0), y);
				return OPT_REWROTE;
			}
		}
	}
	return OPT_NOMATCH;
}
