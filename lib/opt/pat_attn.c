/* pat_attn.c: scaled dot product attention as one ONNX Attention node
 * (opset 23; from 24 a key padding mask is its nonpad_kv_seqlen).
 * AttentionFuse finds softmax(q k^T * scale + mask) v as the
 * lowering writes torch's sdpa, as core ATen decomposes it and as
 * transformers' eager attention computes it; AttentionGQA and Attention3D
 * then hand Attention its inputs as they were before the model repeated the
 * kv heads or split the heads out of the hidden dim.
 *
 * A mask that hides exactly the keys after each query (torch's is_causal,
 * a constant lower triangle, the Trilu the lowering builds for dynamic
 * lengths, transformers' comparison of aranges) becomes is_causal=1 and is
 * dropped; any other mask stays, as an additive attn_mask, or a boolean
 * one when it selected scores with Where.
 * Attention's causal mask is aligned to the upper left (no past keys), as
 * torch's is, and only square scores are taken for causal.
 * A padding mask made from a 0/1 attention_mask input (transformers') is
 * not nonpad_kv_seqlen: that it is right padding (ones, then zeros) is
 * the data's to say, not the graph's, so it stays an attn_mask; only a
 * mask built from a length (keypad_len) is one. */
#include "opt/opt.h"

#include <math.h>
#include <string.h>

#include "core/core.h"
#include "onnx/onnx.h"

/* 1 when x hides a score: -inf, or the lowest finite value of float type
 * elem (transformers' finfo.min), so that exp(s + x) is 0 for finite s. */
static int
is_hiding(double x, int elem)
{
	return x == -INFINITY || x <= (elem == ONNX_FLOAT16 ? -65504.0 : -3.38e38);
}

/* 1 when every reader of v is a Softmax, or an Add, Mul, Div or Where that
 * leads (within a few steps) only to Softmax: v is the scores of other
 * attentions too (CSE merges the q k^T of sdpa calls over the same q and k,
 * and their fusion frees it). */
static int
feeds_softmax(Opt *o, int v, int depth)
{
	const OptValue *x = opt_val(o, v);

	if (x->is_output || x->pinned || depth > 4)
		return 0;
	for (int i = 0; i < x->nuse; i++) {
		int n = x->use[i].node;
		if (opt_is(o, n, "Softmax"))
			continue;
		if (!(opt_is(o, n, "Add") || opt_is(o, n, "Mul") || opt_is(o, n, "Div") || opt_is(o, n, "Where")) ||
		    !feeds_softmax(o, opt_out(o, n, 0), depth + 1))
			return 0;
	}
	return 1;
}

/* 1 when the match may read v at node user: user is its only reader, or v
 * is the scores of other attentions too (*shared is set then). */
static int
link(Opt *o, int v, int user, int *shared)
{
	if (v < 0)
		return 0;
	if (opt_only_use(o, v, user))
		return 1;
	if (!feeds_softmax(o, v, 0))
		return 0;
	*shared = 1;
	return 1;
}

/* ---- safe softmax guards ---- */

/* torch's safe softmax, Where(c, Softmax(s), 0) with c true on the rows
 * that have some key to attend (last dim 1), read only by `user`: c, with
 * the Softmax node and the zero (a constant of any shape: it only stays
 * when it has one element); -1 when not. */
static int
safe_softmax(Opt *o, int pv, int user, int *sm, int *zero)
{
	int w = opt_prod(o, pv, "Where"), c, sv, rc;

	if (w < 0 || !opt_only_use(o, pv, user) || !opt_const_all(o, opt_in(o, w, 2), 0, 0))
		return -1;
	c = opt_in(o, w, 0);
	sv = opt_in(o, w, 1);
	rc = opt_rank(o, c);
	if ((*sm = opt_prod(o, sv, "Softmax")) < 0 || !opt_only_use(o, sv, w) || rc < 1 || rc > 4 ||
	    opt_val(o, c)->dims[rc - 1].v != 1)
		return -1;
	*zero = opt_in(o, w, 2);
	return c;
}

/* The x of the row test Cast(ReduceMax(Cast(x), [-1], keepdims=1), bool)
 * on a boolean x ("the row attends some key"), or -1. */
static int
row_any(Opt *o, int c)
{
	int c1 = opt_prod(o, c, "Cast"), rm, c0, x, rank;
	int64_t ax[MAX_RANK];

	if (c1 < 0 || opt_attr_i(o, c1, "to", 0) != ONNX_BOOL)
		return -1;
	if ((rm = opt_prod(o, opt_in(o, c1, 0), "ReduceMax")) < 0 || !opt_attr_i(o, rm, "keepdims", 1) ||
	    opt_axes(o, rm, ax, MAX_RANK) != 1)
		return -1;
	if ((c0 = opt_prod(o, opt_in(o, rm, 0), "Cast")) < 0)
		return -1;
	x = opt_in(o, c0, 0);
	rank = opt_rank(o, x);
	if (opt_elem(o, x) != ONNX_BOOL || rank < 1 || (ax[0] != -1 && ax[0] != rank - 1))
		return -1;
	return x;
}

/* The Equal node of x = Not(Equal(s, -inf)), the test core ATen's
 * decomposition of the safe softmax makes on the scores s; -1 when not. */
static int
not_minus_inf(Opt *o, int x, int s)
{
	int nt = opt_prod(o, x, "Not"), eq = nt >= 0 ? opt_prod(o, opt_in(o, nt, 0), "Equal") : -1;
	double m;

	if (eq < 0)
		return -1;
	for (int side = 0; side < 2; side++)
		if (opt_in(o, eq, side) == s && opt_const_scalar(o, opt_in(o, eq, 1 - side), &m) && m == -INFINITY)
			return eq;
	return -1;
}

/* ---- causal masks ---- */

/* The dims a shape value holds, when it is Shape(x, i, j) or a Concat on
 * axis 0 of such: their count (at most max), or -1. */
static int
shape_dims(Opt *o, int v, OptDim *d, int max)
{
	int sh = opt_prod(o, v, "Shape"), cc = opt_prod(o, v, "Concat"), n = 0, x, rank;
	int64_t s, e;

	if (cc >= 0) {
		if (opt_attr_i(o, cc, "axis", 0) != 0)
			return -1;
		for (int i = 0; i < opt_node(o, cc)->nin; i++) {
			int k = shape_dims(o, opt_in(o, cc, i), d + n, max - n);
			if (k < 0)
				return -1;
			n += k;
		}
		return n;
	}
	if (sh < 0 || (rank = opt_rank(o, x = opt_in(o, sh, 0))) < 0)
		return -1;
	s = opt_attr_i(o, sh, "start", 0);
	e = opt_attr_i(o, sh, "end", rank);
	s = s < 0 ? s + rank : s;
	e = e < 0 ? e + rank : e > rank ? rank : e;
	if (s < 0 || e < s || e - s > max)
		return -1;
	for (int64_t i = s; i < e; i++)
		d[n++] = opt_val(o, x)->dims[i];
	return n;
}

/* 1 when shape value v is [L, S]: a constant, or made of Shape slices. */
static int
shape_is(Opt *o, int v, OptDim l, OptDim s)
{
	int64_t c[2];
	OptDim d[2];

	if (opt_const_ints(o, v, c, 2) == 2)
		return l.v >= 0 && c[0] == l.v && c[1] == s.v;
	return shape_dims(o, v, d, 2) == 2 && opt_dim_eq(d[0], l) && opt_dim_eq(d[1], s);
}

/* 1 when ConstantOfShape node n fills with a value that hides scores. */
static int
fills_hiding(Opt *o, int n)
{
	const Onnx__AttributeProto *at = opt_attr(o, n, "value");
	FoldTensor t;

	if (!at || !at->t || fold_from_tensor(at->t, &t) || t.numel != 1 || !dtype_onnx_is_float(t.elem))
		return 0;
	return is_hiding(dtype_decode_f64(dtype_from_onnx(t.elem), t.data), t.elem);
}

/* 1 when constant m over [.., L, S] (leading dims 1) hides exactly the
 * keys j > i of query i: 0 (additive) or true (boolean) where j <= i. */
static int
const_causal(Opt *o, int m, int boolean, int64_t l, int64_t s)
{
	int rank = opt_rank(o, m), elem = opt_elem(o, m);
	const OptDim *d = rank >= 2 ? opt_val(o, m)->dims : NULL;

	if (!d || !opt_const_tensor(o, m) || d[rank - 2].v != l || d[rank - 1].v != s)
		return 0;
	for (int i = 0; i < rank - 2; i++)
		if (d[i].v != 1)
			return 0;
	for (int64_t i = 0; i < l; i++)
		for (int64_t j = 0; j < s; j++) {
			double x = opt_const_at(o, m, i * s + j);
			if (boolean ? x != (j <= i) : j <= i ? x != 0 : !is_hiding(x, elem))
				return 0;
		}
	return 1;
}

/* 1 when v holds 0, 1, .., n-1 along its dim `from_end` from the end (1:
 * the last) and is 1 along every other: Range(0, n, 1) under Unsqueezes or
 * Reshapes, as torch.arange(n)[None, None, :, None] is written. */
static int
index_along(Opt *o, int v, int from_end, OptDim n)
{
	int rank = opt_rank(o, v), x = v, p;
	double a, d;

	if (rank < from_end)
		return 0;
	for (int i = 0; i < rank; i++) {
		OptDim di = opt_val(o, v)->dims[i];
		if (i == rank - from_end ? !opt_dim_eq(di, n) : di.v != 1)
			return 0;
	}
	while ((p = opt_prod(o, x, "Unsqueeze")) >= 0 || (p = opt_prod(o, x, "Reshape")) >= 0)
		x = opt_in(o, p, 0);
	p = opt_prod(o, x, "Range");
	return p >= 0 && opt_const_scalar(o, opt_in(o, p, 0), &a) && a == 0 && opt_const_scalar(o, opt_in(o, p, 2), &d) &&
	       d == 1;
}

/* 1 when boolean m is kv_idx <= q_idx over [.., L, S] (transformers'
 * causal mask function on aranges), maybe expanded over the batch. */
static int
causal_compare(Opt *o, int m, OptDim l, OptDim s)
{
	int le = opt_prod(o, m, "LessOrEqual"), ge = opt_prod(o, m, "GreaterOrEqual"), ex = opt_prod(o, m, "Expand");
	int rank = opt_rank(o, m), r0;

	if (ex >= 0) {
		int m0 = opt_in(o, ex, 0);
		const OptDim *d = opt_val(o, m)->dims, *d0 = opt_val(o, m0)->dims;
		r0 = opt_rank(o, m0);
		return rank >= 2 && r0 >= 2 && opt_dim_eq(d[rank - 2], l) && opt_dim_eq(d[rank - 1], s) &&
		       opt_dim_eq(d0[r0 - 2], l) && opt_dim_eq(d0[r0 - 1], s) && causal_compare(o, m0, l, s);
	}
	if (le >= 0)
		return index_along(o, opt_in(o, le, 0), 1, s) && index_along(o, opt_in(o, le, 1), 2, l);
	if (ge >= 0)
		return index_along(o, opt_in(o, ge, 1), 1, s) && index_along(o, opt_in(o, ge, 0), 2, l);
	return 0;
}

/* 1 when mask m (boolean: selects scores; else added to them) hides
 * exactly the keys after each query of the L x S scores, L = S: a
 * constant; Trilu(ConstantOfShape([L, S], -inf), 1), the upper triangle
 * the lowering builds for is_causal when the lengths are dynamic; the
 * comparison of aranges transformers builds, or Where(it, 0, -inf). */
static int
is_causal_mask(Opt *o, int m, int boolean, OptDim l, OptDim s)
{
	int tr = opt_prod(o, m, "Trilu"), wh = opt_prod(o, m, "Where"), cs;
	double k;

	if (!opt_dim_eq(l, s))
		return 0;
	if (l.v >= 0 && const_causal(o, m, boolean, l.v, s.v))
		return 1;
	if (boolean)
		return causal_compare(o, m, l, s);
	if (wh >= 0)
		return opt_const_numel(o, opt_in(o, wh, 1)) == 1 && opt_const_all(o, opt_in(o, wh, 1), 0, 0) &&
		       opt_const_scalar(o, opt_in(o, wh, 2), &k) && is_hiding(k, opt_elem(o, m)) &&
		       is_causal_mask(o, opt_in(o, wh, 0), 1, l, s);
	if (tr < 0 || !opt_attr_i(o, tr, "upper", 1) || !opt_const_scalar(o, opt_in(o, tr, 1), &k) || k != 1)
		return 0;
	cs = opt_prod(o, opt_in(o, tr, 0), "ConstantOfShape");
	return cs >= 0 && fills_hiding(o, cs) && shape_is(o, opt_in(o, cs, 0), l, s);
}

/* ---- AttentionFuse ---- */

/* What AttentionFuse found, from the root MatMul up. */
typedef struct Attn {
	int sm;                 /* the Softmax node */
	int s;                  /* the value being matched: the scores, as far as we went */
	int user;               /* the node reading s in the chain */
	int mask, boolean;      /* attn_mask (-1: none); it selects scores (Where) rather than adds */
	int guard, zero;        /* safe softmax: Where(guard, ., zero) after the softmax, or -1 */
	int guard_of;           /* the boolean value the guard tests row by row, or -1 */
	int eq;                 /* the Equal of a decomposed guard reading the masked scores, or -1 */
	int qk, q, kt;          /* the q k^T product and its operands */
	int k_direct;           /* kt is k itself (FusedMatMul transB) */
	int shared;             /* some link of the chain feeds other attention scores */
	double scale;
} Attn;

/* The softmax and its guard above the root's first input; 0 or -1. */
static int
attn_softmax(Opt *o, int r, Attn *a)
{
	int pv = opt_in(o, r, 0), sv, x = -1;
	int64_t axis;

	a->guard = a->guard_of = a->eq = -1;
	if ((a->sm = opt_prod(o, pv, "Softmax")) < 0 && (a->guard = safe_softmax(o, pv, r, &a->sm, &a->zero)) < 0)
		return -1;
	/* the scores are 4-D, or of unknown rank (a dynamic causal mask); see the root */
	if (!opt_only_use(o, pv, r) || (opt_rank(o, pv) != 4 && opt_rank(o, pv) != -1))
		return -1;
	axis = opt_attr_i(o, a->sm, "axis", -1);
	if (axis != -1 && axis != 3)
		return -1;
	a->s = sv = opt_in(o, a->sm, 0);
	a->user = a->sm;
	if (a->guard >= 0 && (x = row_any(o, a->guard)) >= 0) {
		a->guard_of = x;
		a->eq = not_minus_inf(o, x, sv);
	}
	if (a->eq < 0)
		return link(o, sv, a->sm, &a->shared) ? 0 : -1;
	/* the decomposed guard reads the masked scores too */
	if (opt_val(o, sv)->is_output || opt_val(o, sv)->pinned || opt_val(o, sv)->nuse != 2)
		return -1;
	for (int i = 0; i < 2; i++)
		if (opt_val(o, sv)->use[i].node != a->sm && opt_val(o, sv)->use[i].node != a->eq)
			return -1;
	return 0;
}

/* 1 when v looks like raw or scaled scores rather than a mask. */
static int
scores_like(Opt *o, int v)
{
	return opt_prod(o, v, "Mul") >= 0 || opt_prod(o, v, "Div") >= 0 || opt_prod(o, v, "MatMul") >= 0 ||
	       opt_prod(o, v, "com.microsoft:FusedMatMul") >= 0;
}

/* The mask: Add(scores, mask) or Where(mask, scores, -inf); 0 or -1. */
static int
attn_mask(Opt *o, Attn *a)
{
	int add = opt_prod(o, a->s, "Add"), wh = opt_prod(o, a->s, "Where");
	double ninf;

	a->mask = -1;
	a->boolean = 0;
	if (add >= 0) {
		int x = opt_in(o, add, 0), m = opt_in(o, add, 1);
		if (scores_like(o, m) && !scores_like(o, x)) {
			int t = x;
			x = m;
			m = t;
		}
		if (!link(o, x, add, &a->shared))
			return -1;
		a->mask = m;
		a->s = x;
		a->user = add;
	} else if (wh >= 0) {
		if (!opt_const_scalar(o, opt_in(o, wh, 2), &ninf) || !is_hiding(ninf, opt_elem(o, a->s)) ||
		    !link(o, opt_in(o, wh, 1), wh, &a->shared) || opt_elem(o, opt_in(o, wh, 0)) != ONNX_BOOL)
			return -1;
		a->mask = opt_in(o, wh, 0);
		a->boolean = 1;
		a->s = opt_in(o, wh, 1);
		a->user = wh;
	}
	return 0;
}

/* The scale on the scores, then q k^T (MatMul, or a FusedMatMul that took
 * the transpose in), then scales on q and k^T; 0 or -1. */
static int
attn_scores(Opt *o, Attn *a)
{
	int m = opt_prod(o, a->s, "Mul"), d = opt_prod(o, a->s, "Div"), qk;
	double c;

	a->scale = 1;
	if (m >= 0 && link(o, a->s, a->user, &a->shared)) {
		int side = opt_const_scalar(o, opt_in(o, m, 1), &c) ? 0 : opt_const_scalar(o, opt_in(o, m, 0), &c) ? 1 : -1;
		if (side < 0)
			return -1;
		a->scale *= c;
		a->s = opt_in(o, m, side);
		a->user = m;
	} else if (d >= 0 && link(o, a->s, a->user, &a->shared)) {
		if (!opt_const_scalar(o, opt_in(o, d, 1), &c) || c == 0)
			return -1;
		a->scale /= c;
		a->s = opt_in(o, d, 0);
		a->user = d;
	}
	a->k_direct = 0;
	qk = opt_prod(o, a->s, "MatMul");
	if (qk < 0 && (qk = opt_prod(o, a->s, "com.microsoft:FusedMatMul")) >= 0) {
		/* FusedMatMulTranspose got there first: B is k itself */
		if (opt_attr_i(o, qk, "transA", 0) || opt_attr_i(o, qk, "transBatchA", 0) ||
		    opt_attr_i(o, qk, "transBatchB", 0) || !opt_attr_i(o, qk, "transB", 0))
			return -1;
		a->scale *= opt_attr_f(o, qk, "alpha", 1);
		a->k_direct = 1;
	}
	if (qk < 0 || !link(o, a->s, a->user, &a->shared))
		return -1;
	a->qk = qk;
	a->q = opt_in(o, qk, 0);
	a->kt = opt_in(o, qk, 1);
	/* scales on q and k^T (the decomposed form scales both by sqrt(scale)) */
	for (int side = 0; side < 2; side++) {
		int *pv = side ? &a->kt : &a->q, mm = opt_prod(o, *pv, "Mul");
		if (mm >= 0 && opt_only_use(o, *pv, qk) && opt_const_scalar(o, opt_in(o, mm, 1), &c)) {
			a->scale *= c;
			*pv = opt_in(o, mm, 0);
		}
	}
	return 0;
}

/* 1 when the safe softmax guard can go: every row attends some key (the
 * mask is causal) or the guard is a constant true.  -1 when it cannot go
 * and must not stay either (it tests the scores the fusion removes). */
static int
guard_goes(Opt *o, const Attn *a, int causal)
{
	if (a->guard < 0)
		return 0;
	if (causal && (a->eq >= 0 || (a->guard_of >= 0 && a->guard_of == a->mask)))
		return 1;
	if (a->eq >= 0)
		return -1;
	return opt_const_all(o, a->guard, 1, 0);
}

/* onnxruntime's Attention wants an attn_mask whose dim -2 is the query
 * length l (it does not broadcast that dim, which ONNX allows): -1 when
 * mask m has it (or its rank is unknown), the rank (2 or more) to expand
 * m to when that dim is 1 or absent and l is static, -2 when neither. */
static int
mask_rows(Opt *o, int m, OptDim l)
{
	int mr = opt_rank(o, m);

	if (mr < 0 || (mr >= 2 && opt_dim_eq(opt_val(o, m)->dims[mr - 2], l)))
		return -1;
	if (l.v < 0 || (mr >= 2 && opt_val(o, m)->dims[mr - 2].v != 1))
		return -2;
	return mr < 2 ? 2 : mr;
}

/* The length n of a key padding mask m, or -1: m is boolean Less(keys, n)
 * seen through Reshapes and Unsqueezes, keys the constant 0, 1, ..., s-1
 * along m's last dim (s the key length), every other dim of m 1, and n one
 * int64 for all rows.  m then hides exactly the keys at n and after, which
 * is what Attention's nonpad_kv_seqlen (opset 24) hides when it is n for
 * each batch row: the valid part of a static KV cache (keys < past + new). */
static int
keypad_len(Opt *o, int m, OptDim s)
{
	int r = opt_rank(o, m), x = m, lt, n, p;
	int64_t keys[1024];

	if (opt_elem(o, m) != ONNX_BOOL || r < 1 || s.v < 1 || s.v > 1024 || !opt_dim_eq(opt_val(o, m)->dims[r - 1], s))
		return -1;
	for (int i = 0; i < r - 1; i++)
		if (opt_val(o, m)->dims[i].v != 1)
			return -1;
	while ((p = opt_prod(o, x, "Reshape")) >= 0 || (p = opt_prod(o, x, "Unsqueeze")) >= 0)
		x = opt_in(o, p, 0);
	if ((lt = opt_prod(o, x, "Less")) < 0 || opt_rank(o, x) != 1)
		return -1;
	n = opt_in(o, lt, 1);
	if (opt_const_ints(o, opt_in(o, lt, 0), keys, 1024) != s.v || opt_elem(o, n) != ONNX_INT64 || opt_rank(o, n) < 0)
		return -1;
	for (int64_t i = 0; i < s.v; i++)
		if (keys[i] != i)
			return -1;
	for (int i = 0; i < opt_rank(o, n); i++)
		if (opt_val(o, n)->dims[i].v != 1)
			return -1;
	return n;
}

/* nonpad_kv_seqlen: n for each of q's batch rows, int64 (batch,). */
static int
nonpad_of(Opt *o, int r, int q, int n)
{
	int64_t one = 1;
	OptDim b = opt_val(o, q)->dims[0];
	int batch;

	if (b.v >= 0) {
		batch = opt_const_i64s(o, 1, &b.v);
	} else {
		int sh = opt_add(o, r, "Shape", 1, &q, 1, &batch);
		opt_set_attr_i(o, sh, "start", 0);
		opt_set_attr_i(o, sh, "end", 1);
	}
	return opt_add1(o, r, "Expand", 2, opt_add1(o, r, "Reshape", 2, n, opt_const_i64s(o, 1, &one)), batch);
}

/* MatMul(Softmax(MatMul(q, k^T) * scale [+ mask | Where(mask, ., -inf)]), v)
 * on 4-D operands -> Attention(q, k, v, mask) scale=, or is_causal=1 and no
 * mask when the mask is causal; from opset 24 a key padding mask
 * (keypad_len) becomes nonpad_kv_seqlen. */
int
pat_attention_fuse(Opt *o, int r)
{
	Attn a = {0};
	int v = opt_in(o, r, 1), k, tr, y, n, in[7], causal, drop, add_tr = 0, mq = -1, pad = -1;
	int64_t perm[MAX_RANK], p2[4] = {0, 1, 3, 2};
	OptDim l, s;

	if (opt_rank(o, v) != 4 || (opt_elem(o, v) != ONNX_FLOAT && opt_elem(o, v) != ONNX_FLOAT16) || attn_softmax(o, r, &a) < 0 ||
	    attn_mask(o, &a) < 0 || attn_scores(o, &a) < 0)
		return OPT_NOMATCH;
	if (opt_rank(o, a.q) != 4 || opt_rank(o, a.kt) != 4 || opt_elem(o, a.q) != opt_elem(o, v))
		return OPT_NOMATCH;
	l = opt_val(o, a.q)->dims[2];
	s = opt_val(o, a.kt)->dims[a.k_direct ? 2 : 3];
	causal = a.mask >= 0 && is_causal_mask(o, a.mask, a.boolean, l, s);
	/* a mask that stays must not make the scores larger than q k^T (the
	 * causal ones are 2-D), and when the scores' rank is unknown its own
	 * must be known */
	if (a.mask >= 0 && !causal &&
	    (opt_rank(o, a.mask) > 4 || ((!a.boolean || opt_rank(o, opt_in(o, r, 0)) < 0) && opt_rank(o, a.mask) < 0) ||
	     (!a.boolean && opt_elem(o, a.mask) != opt_elem(o, v))))
		return OPT_NOMATCH;
	if ((drop = guard_goes(o, &a, causal)) < 0 || (a.guard >= 0 && !drop && opt_const_numel(o, a.zero) != 1))
		return OPT_NOMATCH;
	/* k from k^T: the Transpose's input, transposed again unless the perms cancel */
	tr = opt_prod(o, a.kt, "Transpose");
	if (a.k_direct) {
		k = a.kt;
	} else if (tr >= 0 && opt_perm(o, tr, perm) == 4) {
		k = opt_in(o, tr, 0);
		p2[0] = perm[0];
		p2[1] = perm[1];
		p2[2] = perm[3];
		p2[3] = perm[2];
		add_tr = !(p2[0] == 0 && p2[1] == 1 && p2[2] == 2 && p2[3] == 3);
	} else {
		k = a.kt;
		add_tr = 1;
	}
	if (a.shared && add_tr)         /* the others keep the scores: pay off without a new node */
		return OPT_NOMATCH;
	if (!causal && a.mask >= 0 && o->opset >= 24 && a.boolean)
		pad = keypad_len(o, a.mask, s);
	if (!causal && pad < 0 && a.mask >= 0 && (mq = mask_rows(o, a.mask, l)) == -2)
		return OPT_NOMATCH;
	if (add_tr) {
		int t = opt_add(o, r, "Transpose", 1, &k, 1, &k);
		opt_set_attr_ints(o, t, "perm", 4, p2);
	}
	in[0] = a.q;
	in[1] = k;
	in[2] = v;
	in[3] = causal || pad >= 0 ? -1 : a.mask;
	in[4] = in[5] = -1;
	in[6] = pad >= 0 ? nonpad_of(o, r, a.q, pad) : -1;
	if (in[3] >= 0 && mq >= 0) {    /* the mask's query dim made l (see mask_rows) */
		int64_t sh[MAX_RANK];
		for (int i = 0; i < mq; i++)
			sh[i] = 1;
		sh[mq - 2] = l.v;
		in[3] = opt_add1(o, r, "Expand", 2, in[3], opt_const_i64s(o, mq, sh));
	}
	n = opt_add(o, r, "Attention", in[6] >= 0 ? 7 : in[3] >= 0 ? 4 : 3, in, 1, &y);
	opt_set_attr_f(o, n, "scale", a.scale);
	if (causal)
		opt_set_attr_i(o, n, "is_causal", 1);
	opt_copy_type(o, y, opt_out(o, r, 0));
	if (a.guard >= 0 && !drop) {    /* rows with no key to attend stay 0, as torch makes them */
		y = opt_add1(o, r, "Where", 3, a.guard, y, a.zero);
		opt_copy_type(o, y, opt_out(o, r, 0));
	}
	opt_replace(o, opt_out(o, r, 0), y);
	return OPT_REWROTE;
}

/* ---- AttentionGQA ---- */

/* The k of Reshape(Expand(Unsqueeze(k, 2), [B, H, n, L, D]), [B, H*n, L, D])
 * (repeat_kv of grouped-query attention), or -1.  The Expand's dims come
 * from its type, or from k and a constant shape (the shape may have been
 * folded after the Expand's type was inferred). */
static int
repeat_kv(Opt *o, int v)
{
	int rs = opt_prod(o, v, "Reshape"), ex, un, k, e;
	int64_t ax[MAX_RANK], sh[5];
	OptDim de[5], du[5];
	const OptDim *dk, *dv;

	if (rs < 0 || opt_rank(o, v) != 4)
		return -1;
	e = opt_in(o, rs, 0);
	if ((ex = opt_prod(o, e, "Expand")) < 0 || (un = opt_prod(o, opt_in(o, ex, 0), "Unsqueeze")) < 0 ||
	    opt_axes(o, un, ax, MAX_RANK) != 1 || (ax[0] != 2 && ax[0] != -3))
		return -1;
	k = opt_in(o, un, 0);
	if (opt_rank(o, k) != 4)
		return -1;
	dk = opt_val(o, k)->dims;
	dv = opt_val(o, v)->dims;
	du[0] = dk[0];
	du[1] = dk[1];
	du[2] = (OptDim){1, NULL};
	du[3] = dk[2];
	du[4] = dk[3];
	if (opt_rank(o, e) == 5) {
		memcpy(de, opt_val(o, e)->dims, sizeof de);
	} else if (opt_const_ints(o, opt_in(o, ex, 1), sh, 5) == 5) {
		for (int i = 0; i < 5; i++)
			de[i] = sh[i] == 1 ? du[i] : (OptDim){sh[i], NULL};
	} else {
		return -1;
	}
	if (!opt_dim_eq(du[0], de[0]) || !opt_dim_eq(du[1], de[1]) || !opt_dim_eq(du[3], de[3]) ||
	    !opt_dim_eq(du[4], de[4]) || de[2].v < 1 || !opt_dim_eq(dv[0], dk[0]) || !opt_dim_eq(dv[2], dk[2]) ||
	    !opt_dim_eq(dv[3], dk[3]) || dk[1].v < 1 || dv[1].v != dk[1].v * de[2].v)
		return -1;
	return k;
}

/* Attention(q, Reshape(Expand(Unsqueeze(k))), Reshape(Expand(Unsqueeze(v))))
 * that repeats the kv heads -> Attention(q, k, v) (grouped-query attention).
 * The repeats may have other readers: the Attention reads less either way. */
int
pat_attention_gqa(Opt *o, int r)
{
	int k = repeat_kv(o, opt_in(o, r, 1)), v = repeat_kv(o, opt_in(o, r, 2));

	if (k < 0 || v < 0 || opt_val(o, k)->dims[1].v != opt_val(o, v)->dims[1].v || opt_rank(o, opt_in(o, r, 0)) != 4)
		return OPT_NOMATCH;
	opt_set_input(o, r, 1, k);
	opt_set_input(o, r, 2, v);
	return OPT_RETRY;
}

/* ---- Attention3D ---- */

/* opt_split_heads: its contract is in opt.h. */
int
opt_split_heads(Opt *o, int v, int user, int64_t *heads)
{
	int tr = opt_prod(o, v, "Transpose"), rs, x3, r4;
	int64_t p[MAX_RANK];
	const OptDim *d3, *d4;

	if (tr < 0 || !opt_only_use(o, v, user) || opt_perm(o, tr, p) != 4 || p[0] != 0 || p[1] != 2 || p[2] != 1 ||
	    p[3] != 3)
		return -1;
	r4 = opt_in(o, tr, 0);
	if ((rs = opt_prod(o, r4, "Reshape")) < 0 || !opt_only_use(o, r4, tr) || opt_rank(o, r4) != 4)
		return -1;
	x3 = opt_in(o, rs, 0);
	if (opt_rank(o, x3) != 3)
		return -1;
	d3 = opt_val(o, x3)->dims;
	d4 = opt_val(o, r4)->dims;
	if (!opt_dim_eq(d3[0], d4[0]) || !opt_dim_eq(d3[1], d4[1]) || d4[2].v < 1 || d4[3].v < 1 ||
	    d3[2].v != d4[2].v * d4[3].v)
		return -1;
	*heads = d4[2].v;
	return x3;
}

/* Reshape(Transpose(Attention(q, k, v), [0, 2, 1, 3]), [B, S, H*Dv]) where
 * q, k and v are Transpose(Reshape(x, [B, S, H, D]), [0, 2, 1, 3]) -> the
 * Attention on the 3-D values with q_num_heads and kv_num_heads. */
int
pat_attention_3d(Opt *o, int r)
{
	int tv = opt_in(o, r, 0), tr = opt_prod(o, tv, "Transpose"), at, av, q, k, v, in[4], y, n, z = opt_out(o, r, 0);
	int64_t p[MAX_RANK], hq, hk, hv;
	const OptDim *da, *dz;

	if (tr < 0 || !opt_only_use(o, tv, r) || opt_perm(o, tr, p) != 4 || p[0] != 0 || p[1] != 2 || p[2] != 1 ||
	    p[3] != 3)
		return OPT_NOMATCH;
	av = opt_in(o, tr, 0);
	if ((at = opt_prod(o, av, "Attention")) < 0 || !opt_only_use(o, av, tr) || !opt_only_out0(o, at) ||
	    opt_node(o, at)->nin > 4 || opt_rank(o, av) != 4 || opt_rank(o, z) != 3)
		return OPT_NOMATCH;
	if ((q = opt_split_heads(o, opt_in(o, at, 0), at, &hq)) < 0 || (k = opt_split_heads(o, opt_in(o, at, 1), at, &hk)) < 0 ||
	    (v = opt_split_heads(o, opt_in(o, at, 2), at, &hv)) < 0 || hk != hv || hq % hk)
		return OPT_NOMATCH;
	da = opt_val(o, av)->dims;      /* [B, H, S, Dv] */
	dz = opt_val(o, z)->dims;       /* [B, S, H*Dv] */
	if (!opt_dim_eq(dz[0], da[0]) || !opt_dim_eq(dz[1], da[2]) || da[1].v != hq || da[3].v < 1 ||
	    dz[2].v != hq * da[3].v)
		return OPT_NOMATCH;
	in[0] = q;
	in[1] = k;
	in[2] = v;
	in[3] = opt_in(o, at, 3);
	n = opt_add(o, r, "Attention", in[3] >= 0 ? 4 : 3, in, 1, &y);
	opt_copy_attrs(o, n, at, NULL);
	opt_set_attr_i(o, n, "q_num_heads", hq);
	opt_set_attr_i(o, n, "kv_num_heads", hk);
	opt_copy_type(o, y, z);
	opt_replace(o, z, y);
	return OPT_REWROTE;
}
