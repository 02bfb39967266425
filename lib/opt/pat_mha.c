/* pat_mha.c: onnxruntime's com.microsoft MultiHeadAttention in place of an
 * ai.onnx Attention whose heads the model splits and merges itself
 * (MultiHeadAttentionOrt, `onnxruntime` set).  The op takes q as [B, S,
 * H*D] (the head split goes, and a RotaryEmbedding on the split q becomes
 * the 3-D RotaryEmbedding with num_heads), k and v in the [B, H, L, D]
 * layout they already have (so a concatenated KV cache stays outside, as a
 * model output), the mask as its additive attention_bias (a boolean mask
 * becomes 0 / -inf, as Attention reads it), and gives [B, S, H*D]: the head
 * merge goes too.  Exact: every mask form the model has stays as it is.
 * Grouped-query attention is left to Attention: MultiHeadAttention has one
 * head count, and repeating k and v for it (the model's repeat_kv, or a
 * Gather of head indices) measured 2 to 4% slower in prefill than
 * Attention's own grouped heads (bench/llm.sh tiny, ort23 vs ort23nomha,
 * onnxruntime 1.30 CPU, one thread), decode equal: a k or v with fewer
 * heads than q, or repeated by Reshape(Expand), is declined.  The
 * safe softmax guard Where(c, ., 0) of rows with no key to attend stays,
 * on the merged output. */
#include "opt/opt.h"

#include <math.h>

/* q as [B, S, H*D] before node `before`: the split x3, or a RotaryEmbedding
 * of the split (read only by user, cos and sin given, no position_ids,
 * whole head rotated) redone on x3 with num_heads=h; -1 when neither. */
static int
query_3d(Opt *o, int q4, int user, int before, int64_t h)
{
	int ro = opt_prod(o, q4, "RotaryEmbedding"), x3, n, y;
	int64_t heads;
	static const char *const known[] = {"interleaved", NULL};

	if (ro < 0)
		return opt_split_heads(o, q4, user, &heads);
	if (!opt_only_use(o, q4, user) || !opt_only_out0(o, ro) || opt_node(o, ro)->nin != 3 ||
	    opt_attr_other(o, ro, known) || (x3 = opt_split_heads(o, opt_in(o, ro, 0), ro, &heads)) < 0)
		return -1;
	n = opt_add(o, before, "RotaryEmbedding", 3, (int[]){x3, opt_in(o, ro, 1), opt_in(o, ro, 2)}, 1, &y);
	opt_copy_attrs(o, n, ro, NULL);
	opt_set_attr_i(o, n, "num_heads", h);
	opt_copy_type(o, y, x3);
	return y;
}

/* 1 when kv is Reshape(Expand(..)) (transformers' repeat_kv: AttentionGQA
 * hands Attention the unrepeated heads). */
static int
repeated(Opt *o, int kv)
{
	int rs = opt_prod(o, kv, "Reshape");

	return rs >= 0 && opt_prod(o, opt_in(o, rs, 0), "Expand") >= 0;
}

/* MultiHeadAttentionOrt: its contract is its row of patterns.def. */
int
pat_mha_ort(Opt *o, int r)
{
	static const char *const known[] = {"scale", "is_causal", "softcap", "qk_matmul_output_mode", NULL};
	int tv = opt_in(o, r, 0), tr = opt_prod(o, tv, "Transpose"), gv, g = -1, at, av, c = -1, m, k, v, q, bias = -1;
	int in[6], y, n, z = opt_out(o, r, 0);
	int64_t p[MAX_RANK], h, d;
	const OptDim *da, *dz, *dm;

	if (tr < 0 || !opt_only_use(o, tv, r) || opt_perm(o, tr, p) != 4 || p[0] != 0 || p[1] != 2 || p[2] != 1 ||
	    p[3] != 3 || opt_rank(o, z) != 3)
		return OPT_NOMATCH;
	gv = opt_in(o, tr, 0);
	if (!opt_only_use(o, gv, tr))
		return OPT_NOMATCH;
	av = gv;
	if ((g = opt_prod(o, gv, "Where")) >= 0) { /* the safe softmax guard */
		c = opt_in(o, g, 0);
		av = opt_in(o, g, 1);
		if (!opt_const_all(o, opt_in(o, g, 2), 0, 0) || opt_rank(o, c) != 4 || opt_elem(o, c) != ONNX_BOOL ||
		    opt_val(o, c)->dims[1].v != 1 || opt_val(o, c)->dims[3].v != 1 || !opt_only_use(o, av, g))
			return OPT_NOMATCH;
	}
	if ((at = opt_prod(o, av, "Attention")) < 0 || (g < 0 && !opt_only_use(o, av, tr)) || !opt_only_out0(o, at) ||
	    opt_node(o, at)->nin > 4 || opt_rank(o, av) != 4 || opt_elem(o, av) != ONNX_FLOAT ||
	    opt_attr_other(o, at, known) || opt_attr_i(o, at, "is_causal", 0) || opt_attr_f(o, at, "softcap", 0) != 0 ||
	    opt_attr_i(o, at, "qk_matmul_output_mode", 0))
		return OPT_NOMATCH;
	da = opt_val(o, av)->dims; /* [B, H, S, D] */
	dz = opt_val(o, z)->dims;
	h = da[1].v;
	d = da[3].v;
	k = opt_in(o, at, 1);
	v = opt_in(o, at, 2);
	if (h < 1 || h > 64 || d < 1 || !opt_dim_eq(dz[0], da[0]) || !opt_dim_eq(dz[1], da[2]) || dz[2].v != h * d ||
	    opt_rank(o, k) != 4 || opt_rank(o, v) != 4 || opt_rank(o, opt_in(o, at, 0)) != 4 ||
	    opt_val(o, opt_in(o, at, 0))->dims[3].v != d || opt_val(o, k)->dims[3].v != d ||
	    opt_val(o, v)->dims[3].v != d || opt_val(o, k)->dims[1].v != h || opt_val(o, v)->dims[1].v != h ||
	    repeated(o, k) || repeated(o, v))
		return OPT_NOMATCH;
	if ((m = opt_in(o, at, 3)) >= 0) {
		dm = opt_val(o, m)->dims;
		if (opt_rank(o, m) != 4 || (dm[1].v != 1 && dm[1].v != h) ||
		    (opt_elem(o, m) != ONNX_BOOL && opt_elem(o, m) != ONNX_FLOAT))
			return OPT_NOMATCH;
	}
	if ((q = query_3d(o, opt_in(o, at, 0), at, r, h)) < 0)
		return OPT_NOMATCH;
	if (m >= 0 && opt_elem(o, m) == ONNX_BOOL)
		bias = opt_add1(o, r, "Where", 3, m, opt_const_like(o, ONNX_FLOAT, 0, 0),
		                opt_const_like(o, ONNX_FLOAT, -INFINITY, 0));
	else
		bias = m;
	in[0] = q;
	in[1] = k;
	in[2] = v;
	in[3] = -1;
	in[4] = -1;
	in[5] = bias;
	n = opt_add(o, r, "com.microsoft:MultiHeadAttention", bias >= 0 ? 6 : 3, in, 1, &y);
	opt_set_attr_i(o, n, "num_heads", h);
	if (opt_attr(o, at, "scale"))
		opt_set_attr_f(o, n, "scale", opt_attr_f(o, at, "scale", 0));
	opt_copy_type(o, y, z);
	if (g >= 0) {
		int c3 = opt_add1(o, r, "Squeeze", 2, c, opt_const_i64s(o, 1, (int64_t[]){1}));
		y = opt_add1(o, r, "Where", 3, c3, y, opt_const_like(o, ONNX_FLOAT, 0, 0));
	}
	opt_replace(o, z, y);
	return OPT_REWROTE;
}
