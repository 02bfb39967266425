/* fastpath.c: lowerings of the fused fast paths torch takes in eval mode
 * (fastpath.def), which TorchScript records as one call each: what
 * nn.TransformerEncoderLayer (_transformer_encoder_layer_fwd) and
 * nn.MultiheadAttention (_native_multi_head_attention) compute, written
 * out as the attention, layer norms and feed-forward they stand for.
 *
 * Attention (torch's native_multi_head_attention, CPU): the in-projection
 * weight [3D, D] and bias [3D] are q, k and v's stacked; q is scaled by
 * 1/sqrt(D/H) before q k^T; the mask, of any dtype, is read as bool (a
 * nonzero value masks: a float mask of 0 and -inf as made by
 * F._canonical_mask keeps its meaning), where mask_type 1 is a key padding
 * mask [B, S] and 0, 2 or none broadcast from the right against the scores
 * [B, H, L, S]; masked scores drop out of the softmax and a row with every
 * score masked is 0 (torch's _masked_softmax).  need_weights gives the
 * softmax [B, H, L, S], averaged over the heads when average_attn_weights,
 * else output 1 is an undefined tensor (refused when read).
 *
 * The encoder layer: norm_first ? x + ff(ln2(x + sa(ln1(x)))) ... in full
 *   norm_first:  y = x + sa(ln1(x));  out = y + ff(ln2(y))
 *   else:        y = ln1(x + sa(x));  out = ln2(y + ff(y))
 * with ff(h) = W2 act(W1 h + b1) + b2, act relu or (use_gelu) exact gelu,
 * and one eps for both norms.
 *
 * nn.TransformerEncoder, given a src_key_padding_mask in eval mode, runs
 * its layers on a nested tensor: _nested_tensor_from_mask(x, keep) drops
 * the padded positions, each layer runs without a mask, and
 * to_padded_tensor(y, 0.0, size) puts zeros back.  Here the tensor stays
 * dense: a layer whose input comes (through other layers) from
 * _nested_tensor_from_mask takes not(keep) as its key padding mask, so the
 * kept positions see only kept keys as in torch, and to_padded_tensor
 * zeroes the padded ones. */
#include <math.h>
#include <string.h>

#include "lower/lower.h"
#include "nn.h"

/* The keep mask [B, L] of the _nested_tensor_from_mask that v comes from
 * through a chain of encoder layers, or NULL. */
static const Value *
nested_keep(const Value *v)
{
	for (int depth = 0; v && v->def && depth < 10000; depth++) {
		const Node *d = v->def;
		if (strcmp(d->op, "aten._nested_tensor_from_mask.default") == 0)
			return lower_arg_value(d, "mask");
		if (strcmp(d->op, "aten._transformer_encoder_layer_fwd.default") != 0)
			return NULL;
		v = lower_arg_value(d, "src");
	}
	return NULL;
}

/* x [.., D] @ w[rows r0..r0+D)^T + b[r0..r0+D): a slice of a stacked
 * projection (w [R, D], b [R]). */
static const char *
project(LowerCtx *c, const char *x, const char *w, const char *b, int64_t r0, int64_t d)
{
	static const int64_t t[2] = {1, 0};
	const char *ws = lower_op(c, "Slice", NULL, 4, w, lower_i64s(c, 1, &r0), lower_i64s(c, 1, (int64_t[]){r0 + d}),
	                          lower_i64s(c, 1, (int64_t[]){0}));
	const char *bs = lower_op(c, "Slice", NULL, 4, b, lower_i64s(c, 1, &r0), lower_i64s(c, 1, (int64_t[]){r0 + d}),
	                          lower_i64s(c, 1, (int64_t[]){0}));

	return lower_op(c, "Add", NULL, 2, lower_op(c, "MatMul", NULL, 2, x, lower_perm(c, ws, 2, t, NULL)), bs);
}

/* x @ w^T + b, w [O, I]. */
static const char *
linear(LowerCtx *c, const char *x, const char *w, const char *b)
{
	static const int64_t t[2] = {1, 0};
	const char *y = lower_op(c, "MatMul", NULL, 2, x, lower_perm(c, w, 2, t, NULL));

	return b ? lower_op(c, "Add", NULL, 2, y, b) : y;
}

/* [B, L, D] -> [B, H, L, D/H]. */
static const char *
heads(LowerCtx *c, const char *x, int64_t h, int64_t hd)
{
	static const int64_t p[4] = {0, 2, 1, 3};

	return lower_perm(c, lower_op(c, "Reshape", NULL, 2, x, lower_i64s(c, 4, (int64_t[]){0, 0, h, hd})), 4, p, NULL);
}

typedef struct Attn {
	const char *q, *k, *v;          /* [B, L, D], [B, S, D], [B, S, D] */
	const char *w, *b, *pw, *pb;    /* in-projection [3D, D], [3D]; out-projection [D, D], [D] */
	int64_t d, h;
	const char *mask;               /* bool, broadcasting against [B, H, L, S]; or NULL */
	const char *probs;              /* out: the softmax [B, H, L, S] */
} Attn;

/* The attention's output [B, L, D]. */
static const char *
attention(LowerCtx *c, Attn *a, DType t)
{
	static const int64_t pk[4] = {0, 1, 3, 2}, p[4] = {0, 2, 1, 3};
	int64_t hd = a->d / a->h;
	const char *q = heads(c, project(c, a->q, a->w, a->b, 0, a->d), a->h, hd);
	const char *k = heads(c, project(c, a->k, a->w, a->b, a->d, a->d), a->h, hd);
	const char *v = heads(c, project(c, a->v, a->w, a->b, 2 * a->d, a->d), a->h, hd);
	const char *s, *y;

	q = lower_op(c, "Mul", NULL, 2, q, lower_scalar(c, t, 1.0 / sqrt((double)hd)));
	s = lower_op(c, "MatMul", NULL, 2, q, lower_perm(c, k, 4, pk, NULL));
	if (a->mask)
		s = lower_op(c, "Where", NULL, 3, a->mask, lower_scalar(c, t, -INFINITY), s);
	s = lower_op(c, "Softmax", NULL, 1, s);
	onnx_attr_int(c->a, c->last, "axis", -1);
	if (a->mask)
		s = lower_op(c, "Where", NULL, 3, a->mask, lower_scalar(c, t, 0.0), s);
	a->probs = s;
	y = lower_perm(c, lower_op(c, "MatMul", NULL, 2, s, v), 4, p, NULL);
	y = lower_op(c, "Reshape", NULL, 2, y, lower_i64s(c, 3, (int64_t[]){0, 0, a->d}));
	return linear(c, y, a->pw, a->pb);
}

/* The mask argument of n as bool broadcasting against the scores, or NULL;
 * *bad set when it cannot be. */
static const char *
mask_of(LowerCtx *c, const Node *n, const Value *src, int *bad)
{
	const Value *m = lower_arg_value(n, "mask"), *keep;
	const Arg *mt = lower_arg(n, "mask_type");
	int64_t type = mt && mt->kind == ARG_INT ? mt->u.i : -1;
	const char *x;

	*bad = 0;
	if (!m) {
		if (!(keep = nested_keep(src)))
			return NULL;
		return lower_unsqueeze(c, lower_op(c, "Not", NULL, 1, lower_cast(c, lower_value(c, keep), keep->dtype, DT_BOOL)),
		                       2, (int64_t[]){1, 2}, NULL);
	}
	if (m->rank > 4 || (type == 1 && m->rank != 2)) {
		*bad = 1;
		return NULL;
	}
	x = lower_cast(c, lower_value(c, m), m->dtype, DT_BOOL);
	if (type == 1)
		x = lower_unsqueeze(c, x, 2, (int64_t[]){1, 2}, NULL);
	return x;
}

static int
check_x(LowerCtx *c, const Node *n, const Value *x, int64_t d, int64_t h)
{
	if (!x || x->rank != 3 || !dtype_is_float(x->dtype))
		return lower_fail(c, n, "needs a float input of rank 3 (batch, sequence, embedding)");
	if (h <= 0 || d <= 0 || d % h || x->dims[2].e || x->dims[2].v != d)
		return lower_fail(c, n, "embed_dim %lld must be the input's last dim and divide into num_heads %lld",
		                  (long long)d, (long long)h);
	return 0;
}

/* _native_multi_head_attention(query, key, value, embed_dim, num_head,
 * qkv_weight, qkv_bias, proj_weight, proj_bias, mask=None,
 * need_weights=True, average_attn_weights=True, mask_type=None). */
int
lower_native_mha(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *qv = lower_arg_value(n, "query");
	int64_t d = lower_int(c, n, "embed_dim", 0), h = lower_int(c, n, "num_head", 0);
	int need = (int)lower_int(c, n, "need_weights", 1), avg = (int)lower_int(c, n, "average_attn_weights", 1), bad;
	DType t = nn_cdt(n, "query");
	Attn a = {0};

	(void)row;
	if (check_x(c, n, qv, d, h))
		return -1;
	a.q = lower_operand(c, n, "query", t);
	a.k = lower_operand(c, n, "key", t);
	a.v = lower_operand(c, n, "value", t);
	a.w = lower_operand(c, n, "qkv_weight", t);
	a.b = lower_operand(c, n, "qkv_bias", t);
	a.pw = lower_operand(c, n, "proj_weight", t);
	a.pb = lower_operand(c, n, "proj_bias", t);
	a.d = d, a.h = h;
	a.mask = mask_of(c, n, qv, &bad);
	if (bad)
		return lower_fail(c, n, "a mask of mask_type 1 must be (batch, source length); others broadcast to 4 dims");
	if (!a.k || !a.v || !a.w || !a.b || !a.pw || !a.pb)
		return lower_fail(c, n, "needs key, value and every projection weight and bias");
	if (!need && lower_nout(n) > 1 && lower_out_used(c, n, 1))
		return lower_fail(c, n, "output 1 (undefined: need_weights=False) is read");
	lower_finish(c, n, 0, attention(c, &a, t), t);
	if (need && lower_nout(n) > 1 && lower_out_used(c, n, 1))
		lower_finish(c, n, 1, avg ? lower_reduce(c, "ReduceMean", a.probs, 1, (int64_t[]){1}, 0, NULL) : a.probs, t);
	return 0;
}

static const char *
layer_norm(LowerCtx *c, const char *x, const char *w, const char *b, double eps)
{
	const char *y = lower_op(c, "LayerNormalization", NULL, 3, x, w, b);

	onnx_attr_int(c->a, c->last, "axis", -1);
	onnx_attr_float(c->a, c->last, "epsilon", (float)eps);
	return y;
}

/* _transformer_encoder_layer_fwd(src, embed_dim, num_heads, qkv_weight,
 * qkv_bias, proj_weight, proj_bias, use_gelu, norm_first, eps,
 * norm_weight_1, norm_bias_1, norm_weight_2, norm_bias_2, ffn_weight_1,
 * ffn_bias_1, ffn_weight_2, ffn_bias_2, mask=None, mask_type=None). */
int
lower_encoder_layer(LowerCtx *c, const Node *n, const OpRow *row)
{
	static const char *const need[] = {"qkv_weight", "qkv_bias", "proj_weight", "proj_bias", "norm_weight_1",
	                                    "norm_bias_1", "norm_weight_2", "norm_bias_2", "ffn_weight_1",
	                                    "ffn_bias_1", "ffn_weight_2", "ffn_bias_2"};
	const Value *xv = lower_arg_value(n, "src");
	int64_t d = lower_int(c, n, "embed_dim", 0), h = lower_int(c, n, "num_heads", 0);
	int gelu = (int)lower_int(c, n, "use_gelu", 0), first = (int)lower_int(c, n, "norm_first", 0), bad;
	double eps = lower_float(c, n, "eps", 1e-5);
	DType t = nn_cdt(n, "src");
	const char *in[12], *x, *y, *f;
	Attn a = {0};

	(void)row;
	if (check_x(c, n, xv, d, h))
		return -1;
	for (int i = 0; i < 12; i++)
		if (!(in[i] = lower_operand(c, n, need[i], t)))
			return lower_fail(c, n, "needs argument '%s'", need[i]);
	a.w = in[0], a.b = in[1], a.pw = in[2], a.pb = in[3];
	a.d = d, a.h = h;
	a.mask = mask_of(c, n, xv, &bad);
	if (bad)
		return lower_fail(c, n, "a mask of mask_type 1 must be (batch, source length); others broadcast to 4 dims");
	x = lower_operand(c, n, "src", t);
	a.q = a.k = a.v = first ? layer_norm(c, x, in[4], in[5], eps) : x;
	y = lower_op(c, "Add", NULL, 2, x, attention(c, &a, t));
	if (!first)
		y = layer_norm(c, y, in[4], in[5], eps);
	f = linear(c, first ? layer_norm(c, y, in[6], in[7], eps) : y, in[8], in[9]);
	if (gelu) {
		const char *e = lower_op(c, "Erf", NULL, 1, lower_op(c, "Mul", NULL, 2, f, lower_scalar(c, t, M_SQRT1_2)));
		f = lower_op(c, "Mul", NULL, 2, lower_op(c, "Mul", NULL, 2, f, lower_scalar(c, t, 0.5)),
		             lower_op(c, "Add", NULL, 2, e, lower_scalar(c, t, 1.0)));
	} else {
		f = lower_op(c, "Relu", NULL, 1, f);
	}
	y = lower_op(c, "Add", NULL, 2, y, linear(c, f, in[10], in[11]));
	if (!first)
		y = layer_norm(c, y, in[6], in[7], eps);
	lower_finish(c, n, 0, y, t);
	return 0;
}

/* _nested_tensor_from_mask(t, mask, mask_check=True): t, dense (see the
 * top); the layers reading it find the mask. */
int
lower_nested_from_mask(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *x = lower_arg_value(n, "t");

	(void)row;
	if (!x)
		return lower_fail(c, n, "needs a tensor t");
	lower_bind(c, n, 0, lower_value(c, x));
	return 0;
}

/* to_padded_tensor(self, padding, output_size=None) of a tensor that came
 * from _nested_tensor_from_mask: the padded positions set to padding. */
int
lower_to_padded(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *x = lower_arg_value(n, "self"), *keep = x ? nested_keep(x) : NULL;
	const char *m;

	(void)row;
	if (!keep || x->rank != 3 || keep->rank != 2)
		return lower_fail(c, n, "takes only the nested tensor of nn.TransformerEncoder's fast path "
		                        "(_nested_tensor_from_mask, then encoder layers)");
	m = lower_unsqueeze(c, lower_cast(c, lower_value(c, keep), keep->dtype, DT_BOOL), 1, (int64_t[]){2}, NULL);
	lower_finish(c, n, 0, lower_op(c, "Where", NULL, 3, m, lower_value(c, x),
	                               lower_scalar(c, x->dtype, lower_float(c, n, "padding", 0.0))), x->dtype);
	return 0;
}
