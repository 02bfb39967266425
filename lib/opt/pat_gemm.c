/* pat_gemm.c: patterns around MatMul, Gemm and Conv: MatMul with a
 * Transpose or an Add becomes a Gemm, flattening Reshapes around a Gemm go
 * away, and inference batch normalization is folded into the weights of
 * the Conv or Gemm before it.
 *
 * Folded weights are new arena buffers: the originals point into the
 * mapped input file and are read-only.  The arithmetic is done in double
 * and rounded once to float32. */
#include "opt/opt.h"

#include <math.h>
#include <string.h>

/* Gemm takes these in onnxruntime's CPU kernels: float32 and float64. */
static int
gemm_type(int elem)
{
	return elem == ONNX_FLOAT || elem == ONNX_DOUBLE;
}

/* 1 when n is Transpose with perm [1, 0] of a rank-2 value. */
static int
transpose2(Opt *o, int n)
{
	int64_t p[MAX_RANK];

	return n >= 0 && opt_perm(o, n, p) == 2 && p[0] == 1 && p[1] == 0 && opt_rank(o, opt_in(o, n, 0)) == 2;
}

/* 1 when constant folding will turn Transpose node tr of a constant into
 * a constant: then MatMul(a, that) is as small as the Gemm and leaves the
 * MatMul to the patterns of MatMul (MatMulUnflatten), whatever the order
 * the worklist meets the two nodes in. */
static int
transpose_folds(Opt *o, int tr)
{
	const OnnxTensor *t = opt_const_tensor(o, opt_in(o, tr, 0));

	return t && o->on[OPT_ConstantFolding] && (int64_t)t->raw_data.len <= o->fold_max_bytes;
}

/* MatMul(a, Transpose(b)) or MatMul(Transpose(a), b) of 2-D operands ->
 * Gemm with transA/transB (not for a Transpose that folds). */
int
pat_matmul_transpose_to_gemm(Opt *o, int r)
{
	int in[2] = {opt_in(o, r, 0), opt_in(o, r, 1)}, t[2], y, g;

	if (opt_rank(o, in[0]) != 2 || opt_rank(o, in[1]) != 2 || !gemm_type(opt_elem(o, in[0])))
		return OPT_NOMATCH;
	for (int s = 0; s < 2; s++) {
		int tr = opt_prod(o, in[s], "Transpose");
		t[s] = transpose2(o, tr) && opt_only_use(o, in[s], r) && !transpose_folds(o, tr);
		if (t[s])
			in[s] = opt_in(o, tr, 0);
	}
	if (!t[0] && !t[1])
		return OPT_NOMATCH;
	g = opt_add(o, r, "Gemm", 2, in, 1, &y);
	if (t[0])
		opt_set_attr_i(o, g, "transA", 1);
	if (t[1])
		opt_set_attr_i(o, g, "transB", 1);
	opt_replace(o, opt_out(o, r, 0), y);
	return OPT_REWROTE;
}

/* MatMulAddToGemm: its contract is its row of patterns.def. */
int
pat_matmul_add_to_gemm(Opt *o, int r)
{
	for (int s = 0; s < 2; s++) {
		int mv = opt_in(o, r, s), c = opt_in(o, r, 1 - s), mm = opt_prod(o, mv, "MatMul"), in[3], y;
		if (mm < 0 || !opt_only_use(o, mv, r) || opt_rank(o, opt_in(o, mm, 0)) != 2 ||
		    opt_rank(o, opt_in(o, mm, 1)) != 2 || !gemm_type(opt_elem(o, mv)) || opt_rank(o, mv) != 2 ||
		    !opt_bcast_keeps(o, mv, c))
			continue;
		in[0] = opt_in(o, mm, 0);
		in[1] = opt_in(o, mm, 1);
		in[2] = c;
		opt_add(o, r, "Gemm", 3, in, 1, &y);
		opt_replace(o, opt_out(o, r, 0), y);
		return OPT_REWROTE;
	}
	return OPT_NOMATCH;
}

/* GemmTranspose: its contract is its row of patterns.def. */
int
pat_gemm_transpose(Opt *o, int r)
{
	static const char *const flag[2] = {"transA", "transB"};

	for (int s = 0; s < 2; s++) {
		int v = opt_in(o, r, s), tr = opt_prod(o, v, "Transpose");
		if (!transpose2(o, tr) || !opt_only_use(o, v, r))
			continue;
		opt_set_attr_i(o, r, flag[s], !opt_attr_i(o, r, flag[s], 0));
		opt_set_input(o, r, s, opt_in(o, tr, 0));
		return OPT_RETRY;
	}
	return OPT_NOMATCH;
}

/* GemmReshapeToMatMul: its contract is its row of patterns.def. */
int
pat_gemm_reshape_to_matmul(Opt *o, int r)
{
	int g = opt_prod(o, opt_in(o, r, 0), "Gemm"), r1, x, x2, w, b, rx, z = opt_out(o, r, 0), y;
	const OptDim *dx, *dz;

	if (g < 0 || !opt_only_use(o, opt_in(o, r, 0), r) || opt_attr_i(o, g, "transA", 0) ||
	    opt_attr_f(o, g, "alpha", 1) != 1 || opt_attr_f(o, g, "beta", 1) != 1)
		return OPT_NOMATCH;
	x2 = opt_in(o, g, 0);
	w = opt_in(o, g, 1);
	b = opt_in(o, g, 2);
	r1 = opt_prod(o, x2, "Reshape");
	if (r1 < 0 || !opt_only_use(o, x2, g) || opt_rank(o, x2) != 2 || opt_rank(o, w) != 2)
		return OPT_NOMATCH;
	x = opt_in(o, r1, 0);
	rx = opt_rank(o, x);
	if (rx < 3 || opt_rank(o, z) != rx || !gemm_type(opt_elem(o, x)))
		return OPT_NOMATCH;
	dx = opt_val(o, x)->dims;
	dz = opt_val(o, z)->dims;
	for (int i = 0; i < rx - 1; i++)
		if (!opt_dim_eq(dx[i], dz[i]))
			return OPT_NOMATCH;
	if (!opt_dim_eq(dx[rx - 1], opt_val(o, x2)->dims[1]) ||
	    !opt_dim_eq(dz[rx - 1], opt_val(o, opt_in(o, r, 0))->dims[1]))
		return OPT_NOMATCH;
	if (b >= 0 && !(opt_rank(o, b) <= 1 && opt_bcast_keeps(o, z, b)))
		return OPT_NOMATCH;
	if (opt_attr_i(o, g, "transB", 0)) {
		/* only worth it when the Transpose folds away */
		const OnnxTensor *t = opt_const_tensor(o, w);
		int n;
		if (!t || !o->on[OPT_ConstantFolding] || (int64_t)t->raw_data.len > o->fold_max_bytes)
			return OPT_NOMATCH;
		n = opt_add(o, r, "Transpose", 1, &w, 1, &w);
		opt_set_attr_ints(o, n, "perm", 2, (const int64_t[]){1, 0});
	}
	y = opt_add1(o, r, "MatMul", 2, x, w);
	if (b >= 0)
		y = opt_add1(o, r, "Add", 2, y, b);
	opt_replace(o, z, y);
	return OPT_REWROTE;
}

/* 1 when Reshape node n gives the same result for any input of its numel:
 * allowzero, or a constant shape without 0 (a 0 copies an input dim). */
static int
reshape_numel_only(Opt *o, int n)
{
	int64_t s[MAX_RANK];
	int k;

	if (!opt_is(o, n, "Reshape") || (k = opt_const_ints(o, opt_in(o, n, 1), s, MAX_RANK)) < 0)
		return 0;
	if (!opt_attr_i(o, n, "allowzero", 0))
		for (int i = 0; i < k; i++)
			if (s[i] == 0)
				return 0;
	return 1;
}

/* MatMul(Reshape(x, [-1, K]), w) of a 2-D w, flattening x's leading dims,
 * its product read only by Reshapes that need its numel only ->
 * MatMul(x, w) (the readers reshape the unflattened product).  Worth it
 * when the flattening Reshape goes (read only here, or only by such
 * MatMuls, each rewritten in turn) or a reader becomes a no-op (it
 * restored the leading dims: ReshapeNoop). */
int
pat_matmul_unflatten(Opt *o, int r)
{
	int a = opt_in(o, r, 0), w = opt_in(o, r, 1), y = opt_out(o, r, 0), rs = opt_prod(o, a, "Reshape");
	int x, rx, pays, z;
	const OptValue *yv = opt_val(o, y);
	const OptDim *dx, *dy;

	if (rs < 0 || opt_rank(o, a) != 2 || opt_rank(o, w) != 2 || yv->is_output || yv->pinned || !yv->nuse)
		return OPT_NOMATCH;
	x = opt_in(o, rs, 0);
	rx = opt_rank(o, x);
	if (rx < 3 || opt_rank(o, y) != 2 || !opt_dim_eq(opt_val(o, x)->dims[rx - 1], opt_val(o, a)->dims[1]))
		return OPT_NOMATCH;
	for (int i = 0; i < yv->nuse; i++)
		if (yv->use[i].slot != 0 || !reshape_numel_only(o, yv->use[i].node))
			return OPT_NOMATCH;
	pays = opt_only_use(o, a, r);
	if (!pays) {            /* every reader of the flattened x a MatMul of it by a 2-D value */
		const OptValue *av = opt_val(o, a);
		pays = !av->is_output && !av->pinned;
		for (int i = 0; i < av->nuse && pays; i++)
			pays = av->use[i].slot == 0 && opt_is(o, av->use[i].node, "MatMul") &&
			       opt_rank(o, opt_in(o, av->use[i].node, 1)) == 2;
	}
	dx = opt_val(o, x)->dims;
	for (int i = 0; i < yv->nuse && !pays; i++) {
		int u = opt_out(o, yv->use[i].node, 0);
		pays = u >= 0 && opt_rank(o, u) == rx;
		dy = pays ? opt_val(o, u)->dims : NULL;
		for (int j = 0; j < rx && pays; j++)
			pays = opt_dim_eq(dy[j], j < rx - 1 ? dx[j] : yv->dims[1]);
	}
	if (!pays)
		return OPT_NOMATCH;
	z = opt_add1(o, r, "MatMul", 2, x, w);
	opt_replace(o, y, z);
	return OPT_REWROTE;
}

/* ---- batch normalization ---- */

/* A float32 copy of constant v (n elements), or NULL. */
static float *
f32_copy(Opt *o, int v, int64_t n)
{
	const OnnxTensor *t = opt_const_tensor(o, v);
	float *p;

	if (!t || t->data_type != ONNX_FLOAT || opt_const_numel(o, v) != n)
		return NULL;
	p = arena_alloc(o->a, t->raw_data.len + 1);
	memcpy(p, t->raw_data.data, t->raw_data.len);
	return p;
}

/* The per-channel scale and shift of an inference BatchNormalization with
 * m channels: y = x * s + h.  0 when its inputs are not float32 constants. */
static int
bn_affine(Opt *o, int bn, int64_t m, double **s, double **h)
{
	float *g = f32_copy(o, opt_in(o, bn, 1), m), *b = f32_copy(o, opt_in(o, bn, 2), m);
	float *mean = f32_copy(o, opt_in(o, bn, 3), m), *var = f32_copy(o, opt_in(o, bn, 4), m);
	double eps = opt_attr_f(o, bn, "epsilon", 1e-5);

	if (!g || !b || !mean || !var || opt_attr_i(o, bn, "training_mode", 0) || !opt_only_out0(o, bn))
		return 0;
	*s = ARENA_ARRAY(o->a, double, m);
	*h = ARENA_ARRAY(o->a, double, m);
	for (int64_t i = 0; i < m; i++) {
		(*s)[i] = (double)g[i] / sqrt((double)var[i] + (double)(float)eps);
		(*h)[i] = (double)b[i] - (double)mean[i] * (*s)[i];
	}
	return 1;
}

/* BatchNormalization(Conv(x, W, b)) in inference, all constant, the Conv
 * read only there -> Conv(x, W', b') with new weights.  W' = W * s per
 * output channel is left to the writer (opt_const_scaled): a ResNet's
 * folded weights are its whole size, and the writer reads W once anyway. */
int
pat_batchnorm_into_conv(Opt *o, int r)
{
	int cv = opt_prod(o, opt_in(o, r, 0), "Conv"), wv, bv, in[3], y, n;
	const OnnxTensor *wt;
	double *s, *h;
	float *sc, *b, *bias = NULL;
	int64_t m, per;

	if (cv < 0 || !opt_only_use(o, opt_in(o, r, 0), r))
		return OPT_NOMATCH;
	wv = opt_in(o, cv, 1);
	bv = opt_in(o, cv, 2);
	if (!(wt = opt_const_tensor(o, wv)) || wt->data_type != ONNX_FLOAT || wt->n_dims < 3)
		return OPT_NOMATCH;
	m = wt->dims[0];
	per = opt_const_numel(o, wv) / (m ? m : 1);
	if ((bv >= 0 && !(bias = f32_copy(o, bv, m))) || !bn_affine(o, r, m, &s, &h))
		return OPT_NOMATCH;
	sc = ARENA_ARRAY(o->a, float, m);
	b = ARENA_ARRAY(o->a, float, m);
	for (int64_t i = 0; i < m; i++) {
		sc[i] = (float)s[i];
		b[i] = (float)((bias ? (double)bias[i] : 0.0) * s[i] + h[i]);
	}
	in[0] = opt_in(o, cv, 0);
	in[1] = opt_const_scaled(o, (int)wt->n_dims, wt->dims, &(OnnxScaled){wt->raw_data.data, m, per, sc, 4});
	in[2] = opt_const(o, ONNX_FLOAT, 1, &m, b, (size_t)m * sizeof *b);
	n = opt_add(o, r, "Conv", 3, in, 1, &y);
	opt_copy_attrs(o, n, cv, NULL);
	opt_copy_type(o, y, opt_out(o, r, 0));
	opt_replace(o, opt_out(o, r, 0), y);
	return OPT_REWROTE;
}

/* BatchNormIntoGemm: its contract is its row of patterns.def. */
int
pat_batchnorm_into_gemm(Opt *o, int r)
{
	int gm = opt_prod(o, opt_in(o, r, 0), "Gemm"), bv, cv, tb, in[3], y, n;
	const OnnxTensor *bt;
	double *s, *h, alpha, beta, cval = 0;
	float *w, *c = NULL, *nc;
	int64_t nn, k;

	if (gm < 0 || !opt_only_use(o, opt_in(o, r, 0), r) || opt_rank(o, opt_in(o, r, 0)) != 2)
		return OPT_NOMATCH;
	bv = opt_in(o, gm, 1);
	cv = opt_in(o, gm, 2);
	tb = (int)opt_attr_i(o, gm, "transB", 0);
	alpha = opt_attr_f(o, gm, "alpha", 1);
	beta = opt_attr_f(o, gm, "beta", 1);
	if (!(bt = opt_const_tensor(o, bv)) || bt->data_type != ONNX_FLOAT || bt->n_dims != 2)
		return OPT_NOMATCH;
	nn = bt->dims[tb ? 0 : 1];
	k = bt->dims[tb ? 1 : 0];
	if (cv >= 0) {
		int64_t cn = opt_const_numel(o, cv);
		if (opt_rank(o, cv) > 2 || (cn != nn && cn != 1) ||
		    (opt_rank(o, cv) == 2 && opt_val(o, cv)->dims[0].v != 1))
			return OPT_NOMATCH;
		if (cn == 1 && opt_const_scalar(o, cv, &cval) && opt_elem(o, cv) == ONNX_FLOAT)
			c = NULL;
		else if (!(c = f32_copy(o, cv, nn)))
			return OPT_NOMATCH;
	}
	if (!bn_affine(o, r, nn, &s, &h) || !(w = f32_copy(o, bv, nn * k)))
		return OPT_NOMATCH;
	nc = ARENA_ARRAY(o->a, float, nn);
	for (int64_t j = 0; j < nn; j++) {
		double cj = cv < 0 ? 0 : c ? c[j] : cval;
		for (int64_t i = 0; i < k; i++) {
			float *p = tb ? &w[j * k + i] : &w[i * nn + j];
			*p = (float)((double)*p * alpha * s[j]);
		}
		nc[j] = (float)(beta * cj * s[j] + h[j]);
	}
	in[0] = opt_in(o, gm, 0);
	in[1] = opt_const(o, ONNX_FLOAT, 2, bt->dims, w, (size_t)(nn * k) * sizeof *w);
	in[2] = opt_const(o, ONNX_FLOAT, 1, &nn, nc, (size_t)nn * sizeof *nc);
	n = opt_add(o, r, "Gemm", 3, in, 1, &y);
	opt_copy_attrs(o, n, gm, (const char *const[]){"alpha", "beta", NULL});
	opt_copy_type(o, y, opt_out(o, r, 0));
	opt_replace(o, opt_out(o, r, 0), y);
	return OPT_REWROTE;
}
