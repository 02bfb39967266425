/* pat_fuse.c: subgraphs that are one ONNX op at the newer opsets: layer
 * normalization (17), RMS normalization (23) and Gelu (20), plus folding a
 * constant scale or shift into the normalizations, and a per-channel
 * constant added after a Conv into its bias (attention is in pat_attn.c).
 *
 * Matching walks from the root up through producers that nothing else
 * reads; constants are compared with a relative tolerance, because the
 * lowering wrote them in the model's float type. */
#include "opt/opt.h"

#include <math.h>
#include <string.h>

#define TOL 1e-5

/* For a binary node n: the input produced by op (read only by n) as the
 * node, the other input in *other; -1 when neither is. */
static int
operand(Opt *o, int n, const char *op, int *other)
{
	for (int s = 0; s < 2; s++) {
		int p = opt_prod(o, opt_in(o, n, s), op);
		if (p >= 0 && opt_only_use(o, opt_in(o, n, s), n)) {
			*other = opt_in(o, n, 1 - s);
			return p;
		}
	}
	return -1;
}

/* 1 when v is a one-element constant equal to x (relative tolerance). */
static int
is_scalar(Opt *o, int v, double x)
{
	double y;

	return opt_const_scalar(o, v, &y) && fabs(y - x) <= TOL * fabs(x);
}

/* The trailing axes a reduction covers: their count k (axes R-k..R-1),
 * or -1.  keepdims must be 1. */
static int
trailing_axes(Opt *o, int red, int rank)
{
	int64_t ax[MAX_RANK];
	int k = opt_axes(o, red, ax, MAX_RANK);

	if (k <= 0 || rank < 0 || !opt_attr_i(o, red, "keepdims", 1) || opt_norm_axes(k, ax, rank) < 0)
		return -1;
	for (int i = 0; i < k; i++)
		if (ax[i] != rank - k + i)
			return -1;
	return k;
}

/* A float32 constant of ones over the last k dims of x (static), or -1. */
static int
ones_over(Opt *o, int x, int k)
{
	int r = opt_rank(o, x);
	int64_t dims[MAX_RANK], n = 1;
	float *p;

	for (int i = 0; i < k; i++) {
		if ((dims[i] = opt_val(o, x)->dims[r - k + i].v) < 0)
			return -1;
		n *= dims[i];
	}
	p = ARENA_ARRAY(o->a, float, n);
	for (int64_t i = 0; i < n; i++)
		p[i] = 1;
	return opt_const_f32(o, k, dims, p);
}

/* Pow(d, 2) or Mul(d, d) read only by `user`: the node, with *d set. */
static int
square_of(Opt *o, int v, int user, int *d)
{
	int p = opt_prod(o, v, "Pow"), m = opt_prod(o, v, "Mul");

	if (v < 0 || !opt_only_use(o, v, user))
		return -1;
	if (p >= 0 && is_scalar(o, opt_in(o, p, 1), 2)) {
		*d = opt_in(o, p, 0);
		return p;
	}
	if (m >= 0 && opt_in(o, m, 0) == opt_in(o, m, 1)) {
		*d = opt_in(o, m, 0);
		return m;
	}
	return -1;
}

/* Sqrt(Add(ReduceMean(sq), eps)) read only by `user`: the ReduceMean node,
 * with the trailing axis count and eps; -1 when not. */
static int
rms_denominator(Opt *o, int v, int user, int rank, int *k, double *eps)
{
	int sq = opt_prod(o, v, "Sqrt"), add, mean, e;

	if (sq < 0 || !opt_only_use(o, v, user))
		return -1;
	add = opt_prod(o, opt_in(o, sq, 0), "Add");
	if (add < 0 || !opt_only_use(o, opt_in(o, sq, 0), sq) || (mean = operand(o, add, "ReduceMean", &e)) < 0 ||
	    !opt_const_scalar(o, e, eps) || !opt_bcast_keeps(o, opt_out(o, mean, 0), e))
		return -1;
	if ((*k = trailing_axes(o, mean, rank)) < 0)
		return -1;
	return mean;
}

/* LayerNormalizationFuse: its contract is its row of patterns.def. */
int
pat_layernorm_fuse(Opt *o, int r)
{
	int dv = opt_in(o, r, 0), sub = opt_prod(o, dv, "Sub"), x, m, rank, k, k2, mean, d, y, ln, s, sq;
	const OptValue *dval;
	double eps;

	if (sub < 0)
		return OPT_NOMATCH;
	x = opt_in(o, sub, 0);
	m = opt_prod(o, opt_in(o, sub, 1), "ReduceMean");
	rank = opt_rank(o, x);
	if (m < 0 || opt_in(o, m, 0) != x || !opt_only_use(o, opt_in(o, sub, 1), sub) ||
	    !dtype_onnx_is_float(opt_elem(o, x)) || (k = trailing_axes(o, m, rank)) < 0)
		return OPT_NOMATCH;
	mean = rms_denominator(o, opt_in(o, r, 1), r, rank, &k2, &eps);
	if (mean < 0 || k2 != k || (sq = square_of(o, opt_in(o, mean, 0), mean, &d)) < 0 || d != dv ||
	    opt_elem(o, x) != ONNX_FLOAT)
		return OPT_NOMATCH;
	/* d = x - mean is read by the square and by this Div only */
	dval = opt_val(o, dv);
	if (dval->is_output || dval->pinned)
		return OPT_NOMATCH;
	for (int i = 0; i < dval->nuse; i++)
		if (dval->use[i].node != sq && dval->use[i].node != r)
			return OPT_NOMATCH;
	if ((s = ones_over(o, x, k)) < 0)
		return OPT_NOMATCH;
	ln = opt_add(o, r, "LayerNormalization", 2, (int[]){x, s}, 1, &y);
	opt_set_attr_i(o, ln, "axis", rank - k);
	opt_set_attr_f(o, ln, "epsilon", eps);
	opt_replace(o, opt_out(o, r, 0), y);
	return OPT_REWROTE;
}

/* Constant c broadcast over the normalized dims x.dims[axis..] (n
 * elements) as a float32 array; NULL when c is not float32 or would
 * broadcast along other dims. */
static float *
over_axes(Opt *o, int c, int x, int axis, int64_t n)
{
	const OnnxTensor *t = opt_const_tensor(o, c);
	int rc = opt_rank(o, c), rx = opt_rank(o, x), k = rx - axis;
	int64_t cst[MAX_RANK], s = 1;
	float *p;

	if (!t || t->data_type != ONNX_FLOAT || rx < 0 || rc < 0 || rc > rx)
		return NULL;
	/* dims of c before the normalized ones must be 1; the others 1 or equal */
	for (int i = 0; i < rc; i++) {
		int xi = rx - rc + i;
		int64_t dc = opt_val(o, c)->dims[i].v;
		if (xi < axis ? dc != 1 : dc != 1 && dc != opt_val(o, x)->dims[xi].v)
			return NULL;
	}
	for (int i = k - 1; i >= 0; i--) {      /* c's strides over the k normalized dims */
		int ci = rc - k + i;
		int64_t dc = ci >= 0 ? opt_val(o, c)->dims[ci].v : 1;
		cst[i] = dc == 1 ? 0 : s;
		s *= ci >= 0 ? dc : 1;
	}
	p = ARENA_ARRAY(o->a, float, n);
	for (int64_t e = 0; e < n; e++) {
		int64_t rest = e, off = 0;
		for (int i = k - 1; i >= 0; i--) {
			int64_t d = opt_val(o, x)->dims[axis + i].v;
			off += rest % d * cst[i];
			rest /= d;
		}
		memcpy(&p[e], t->raw_data.data + 4 * off, 4);
	}
	return p;
}

/* The normalized-element count of a LayerNormalization/RMSNormalization
 * node ln with axis normalized into *axis; -1 when not static. */
static int64_t
norm_size(Opt *o, int ln, int *axis)
{
	int x = opt_in(o, ln, 0), rx = opt_rank(o, x);
	int64_t a = opt_attr_i(o, ln, "axis", -1), n = 1;

	if (rx < 0)
		return -1;
	a = a < 0 ? a + rx : a;
	if (a < 0 || a >= rx)
		return -1;
	for (int i = (int)a; i < rx; i++) {
		if (opt_val(o, x)->dims[i].v < 0)
			return -1;
		n *= opt_val(o, x)->dims[i].v;
	}
	*axis = (int)a;
	return n;
}

/* op(Norm(x, s, b), c) with constant s, b, c over the normalized axes ->
 * Norm(x, s op' c, b op' c): mul scales both, add shifts the bias. */
static int
norm_affine(Opt *o, int r, const char *norm, int mul)
{
	int nv, ln, c, axis, x, s, b, in[3], y, n, nin = strcmp(norm, "LayerNormalization") == 0 ? 3 : 2;
	int64_t size, dims[MAX_RANK];
	float *cv, *sv, *bv, *ns, *nb;

	for (int side = 0; side < 2; side++) {
		nv = opt_in(o, r, side);
		c = opt_in(o, r, 1 - side);
		if ((ln = opt_prod(o, nv, norm)) < 0 || !opt_only_use(o, nv, r) || !opt_only_out0(o, ln))
			continue;
		if ((size = norm_size(o, ln, &axis)) < 0 || !(cv = over_axes(o, c, opt_in(o, ln, 0), axis, size)))
			continue;
		x = opt_in(o, ln, 0);
		s = opt_in(o, ln, 1);
		b = nin == 3 ? opt_in(o, ln, 2) : -1;
		if (!(sv = over_axes(o, s, x, axis, size)) || (b >= 0 && !(bv = over_axes(o, b, x, axis, size))))
			continue;
		if (!mul && nin == 2)
			continue;
		ns = ARENA_ARRAY(o->a, float, size);
		nb = ARENA_ARRAY(o->a, float, size);
		for (int64_t i = 0; i < size; i++) {
			float bi = b >= 0 ? bv[i] : 0;
			ns[i] = mul ? sv[i] * cv[i] : sv[i];
			nb[i] = mul ? bi * cv[i] : bi + cv[i];
		}
		for (int i = axis; i < opt_rank(o, x); i++)
			dims[i - axis] = opt_val(o, x)->dims[i].v;
		in[0] = x;
		in[1] = opt_const_f32(o, opt_rank(o, x) - axis, dims, ns);
		in[2] = nin == 3 && (b >= 0 || !mul) ? opt_const_f32(o, opt_rank(o, x) - axis, dims, nb) : -1;
		n = opt_add(o, r, norm, in[2] >= 0 ? 3 : 2, in, 1, &y);
		opt_copy_attrs(o, n, ln, NULL);
		opt_replace(o, opt_out(o, r, 0), y);
		return OPT_REWROTE;
	}
	return OPT_NOMATCH;
}

/* LayerNormalizationScale: its contract is its row of patterns.def. */
int
pat_layernorm_scale(Opt *o, int r)
{
	return norm_affine(o, r, "LayerNormalization", 1);
}

/* LayerNormalizationBias: its contract is its row of patterns.def. */
int
pat_layernorm_bias(Opt *o, int r)
{
	return norm_affine(o, r, "LayerNormalization", 0);
}

/* RMSNormalizationScale: its contract is its row of patterns.def. */
int
pat_rmsnorm_scale(Opt *o, int r)
{
	return norm_affine(o, r, "RMSNormalization", 1);
}

/* x / Sqrt(Add(ReduceMean(x^2), eps)) at r, with the denominator value den:
 * the fused node, or OPT_NOMATCH. */
static int
rms_fuse(Opt *o, int r, int user, int x, int den, const char *op)
{
	int rank = opt_rank(o, x), k, mean, d, n, y, s;
	double eps;

	if (opt_elem(o, x) != ONNX_FLOAT || (mean = rms_denominator(o, den, user, rank, &k, &eps)) < 0 ||
	    square_of(o, opt_in(o, mean, 0), mean, &d) < 0 || d != x || (s = ones_over(o, x, k)) < 0)
		return OPT_NOMATCH;
	n = opt_add(o, r, op, 2, (int[]){x, s}, 1, &y);
	opt_set_attr_i(o, n, "axis", rank - k);
	opt_set_attr_f(o, n, "epsilon", eps);
	opt_replace(o, opt_out(o, r, 0), y);
	return OPT_REWROTE;
}

/* RMSNormalizationFuse: its contract is its row of patterns.def. */
int
pat_rmsnorm_fuse(Opt *o, int r)
{
	for (int s = 0; s < 2; s++) {
		int rv = opt_in(o, r, s), rc = opt_prod(o, rv, "Reciprocal"), res;
		if (rc < 0 || !opt_only_use(o, rv, r))
			continue;
		if ((res = rms_fuse(o, r, rc, opt_in(o, r, 1 - s), opt_in(o, rc, 0), "RMSNormalization")) != OPT_NOMATCH)
			return res;
	}
	return OPT_NOMATCH;
}

/* RMSNormalizationDiv: its contract is its row of patterns.def. */
int
pat_rmsnorm_div(Opt *o, int r)
{
	return rms_fuse(o, r, r, opt_in(o, r, 0), opt_in(o, r, 1), "RMSNormalization");
}

/* SimplifiedLayerNormOrt: its contract is its row of patterns.def. */
int
pat_simplified_layernorm_ort(Opt *o, int r)
{
	return rms_fuse(o, r, r, opt_in(o, r, 0), opt_in(o, r, 1), "SimplifiedLayerNormalization");
}

/* SimplifiedLayerNormScaleOrt: its contract is its row of patterns.def. */
int
pat_simplified_layernorm_scale_ort(Opt *o, int r)
{
	return norm_affine(o, r, "SimplifiedLayerNormalization", 1);
}

/* ---- Gelu ---- */

/* The factors of a product rooted at Mul r, through Muls read only by the
 * product, at most max; their count. */
static int
factors(Opt *o, int r, int *f, int max)
{
	int n = 0;

	for (int s = 0; s < 2; s++) {
		int v = opt_in(o, r, s), m = opt_prod(o, v, "Mul");
		if (m >= 0 && opt_only_use(o, v, r) && n + 2 <= max && opt_in(o, m, 0) != opt_in(o, m, 1)) {
			f[n++] = opt_in(o, m, 0);
			f[n++] = opt_in(o, m, 1);
		} else if (n < max) {
			f[n++] = v;
		}
	}
	return n;
}

/* 0.5 * x * (1 + F(..)) at Mul r where F is `fn`: x and F's input; -1. */
static int
gelu_shape(Opt *o, int r, const char *fn, int *x, int *arg)
{
	int f[4], n = factors(o, r, f, 3);

	if (n != 3)
		return -1;
	for (int h = 0; h < 3; h++) {
		if (!is_scalar(o, f[h], 0.5))
			continue;
		for (int a = 0; a < 3; a++) {
			int add = opt_prod(o, f[a], "Add"), t, one;
			if (a == h || add < 0 || !opt_only_use(o, f[a], opt_val(o, f[a])->use[0].node))
				continue;
			if ((t = operand(o, add, fn, &one)) < 0 || !is_scalar(o, one, 1))
				continue;
			*x = f[3 - h - a];
			*arg = opt_in(o, t, 0);
			return opt_only_use(o, *arg, t) ? t : -1;
		}
	}
	return -1;
}

/* 1 when v = x / sqrt(2) (Mul by 1/sqrt 2 or Div by sqrt 2). */
static int
erf_arg(Opt *o, int v, int x)
{
	int m = opt_prod(o, v, "Mul"), d = opt_prod(o, v, "Div"), c;

	if (m >= 0)
		return (opt_in(o, m, 0) == x && is_scalar(o, opt_in(o, m, 1), M_SQRT1_2)) ||
		       (opt_in(o, m, 1) == x && is_scalar(o, opt_in(o, m, 0), M_SQRT1_2));
	c = d >= 0 ? opt_in(o, d, 1) : -1;
	return d >= 0 && opt_in(o, d, 0) == x && is_scalar(o, c, M_SQRT2);
}

/* The Erf form: x, or -1. */
static int
gelu_erf_match(Opt *o, int r)
{
	int x, arg;

	if (gelu_shape(o, r, "Erf", &x, &arg) < 0 || !erf_arg(o, arg, x) || !dtype_onnx_is_float(opt_elem(o, x)))
		return -1;
	return x;
}

/* 1 when v = x^3 (Pow(x, 3), Mul(Mul(x, x), x) or Mul(x, Mul(x, x))), read
 * only by user. */
static int
cube(Opt *o, int v, int x, int user)
{
	int p = opt_prod(o, v, "Pow"), m = opt_prod(o, v, "Mul");

	if (!opt_only_use(o, v, user))
		return 0;
	if (p >= 0)
		return opt_in(o, p, 0) == x && is_scalar(o, opt_in(o, p, 1), 3);
	if (m < 0)
		return 0;
	for (int s = 0; s < 2; s++) {
		int sq = opt_prod(o, opt_in(o, m, s), "Mul");
		if (opt_in(o, m, 1 - s) == x && sq >= 0 && opt_in(o, sq, 0) == x && opt_in(o, sq, 1) == x &&
		    opt_only_use(o, opt_in(o, m, s), m))
			return 1;
	}
	return 0;
}

/* The Tanh form: x, or -1.  arg = Mul(Add(x, Mul(x^3, 0.044715)), sqrt(2/pi)). */
static int
gelu_tanh_match(Opt *o, int r)
{
	int x, arg, m, c, inner, other, m2, c2;

	if (gelu_shape(o, r, "Tanh", &x, &arg) < 0 || !dtype_onnx_is_float(opt_elem(o, x)) ||
	    (m = opt_prod(o, arg, "Mul")) < 0)
		return -1;
	if ((inner = operand(o, m, "Add", &c)) < 0 || !is_scalar(o, c, sqrt(2.0 / M_PI)))
		return -1;
	for (int s = 0; s < 2; s++) {
		if (opt_in(o, inner, s) != x)
			continue;
		other = opt_in(o, inner, 1 - s);
		if ((m2 = opt_prod(o, other, "Mul")) < 0 || !opt_only_use(o, other, inner))
			continue;
		for (int t = 0; t < 2; t++) {
			c2 = opt_in(o, m2, t);
			if (is_scalar(o, c2, 0.044715) && cube(o, opt_in(o, m2, 1 - t), x, m2))
				return x;
		}
	}
	return -1;
}

/* Replaces r's output with op(x) [approximate]. */
static int
gelu_emit(Opt *o, int r, const char *op, int x, const char *approx)
{
	int y, n = opt_add(o, r, op, 1, &x, 1, &y);

	if (approx)
		onnx_attr_string(o->a, opt_msg(o, n), "approximate", approx);
	opt_replace(o, opt_out(o, r, 0), y);
	return OPT_REWROTE;
}

/* GeluErf: its contract is its row of patterns.def. */
int
pat_gelu_erf(Opt *o, int r)
{
	int x = gelu_erf_match(o, r);

	return x < 0 ? OPT_NOMATCH : gelu_emit(o, r, "Gelu", x, NULL);
}

/* GeluTanh: its contract is its row of patterns.def. */
int
pat_gelu_tanh(Opt *o, int r)
{
	int x = gelu_tanh_match(o, r);

	return x < 0 ? OPT_NOMATCH : gelu_emit(o, r, "Gelu", x, "tanh");
}

/* GeluOrt: its contract is its row of patterns.def. */
int
pat_gelu_ort(Opt *o, int r)
{
	int x = gelu_erf_match(o, r);

	return x < 0 || opt_elem(o, x) != ONNX_FLOAT ? OPT_NOMATCH : gelu_emit(o, r, "com.microsoft:Gelu", x, NULL);
}

/* FastGeluOrt: its contract is its row of patterns.def. */
int
pat_fast_gelu_ort(Opt *o, int r)
{
	int x = gelu_tanh_match(o, r);

	return x < 0 || opt_elem(o, x) != ONNX_FLOAT ? OPT_NOMATCH : gelu_emit(o, r, "com.microsoft:FastGelu", x, NULL);
}

/* ---- Conv bias ---- */

/* Add(Conv(x, W), c) in either order, c a float32 constant over the output
 * channels only ((C,1,1), (1,C,1,1), ..., or one element), the Conv read
 * only there -> Conv(x, W, bias); a constant bias the Conv has is added to. */
int
pat_conv_bias(Opt *o, int r)
{
	for (int side = 0; side < 2; side++) {
		int cy = opt_in(o, r, side), c = opt_in(o, r, 1 - side), cv = opt_prod(o, cy, "Conv"), rank, rc, w, b, in[3], y, n;
		int64_t ch, nc, dims[1];
		float *bias;
		const OptDim *dc;

		/* the output's rank is x's, its channels W's first dim (the Conv's own type may be unknown) */
		if (cv < 0 || !opt_only_use(o, cy, r) || opt_elem(o, opt_in(o, cv, 0)) != ONNX_FLOAT ||
		    (rank = opt_rank(o, opt_in(o, cv, 0))) < 3 || opt_rank(o, w = opt_in(o, cv, 1)) != rank ||
		    (ch = opt_val(o, w)->dims[0].v) < 1 || !opt_const_tensor(o, c) || opt_elem(o, c) != ONNX_FLOAT ||
		    (rc = opt_rank(o, c)) > rank)
			continue;
		/* c is 1 everywhere but on the channel axis (1 of the output), where it is 1 or C */
		dc = opt_val(o, c)->dims;
		nc = opt_const_numel(o, c);
		for (int i = 0; i < rc && nc >= 0; i++)
			if (dc[i].v != 1 && !(rank - rc + i == 1 && dc[i].v == ch))
				nc = -1;
		if (nc != 1 && nc != ch)
			continue;
		b = opt_in(o, cv, 2);
		if (b >= 0 && (!opt_const_tensor(o, b) || opt_elem(o, b) != ONNX_FLOAT || opt_const_numel(o, b) != ch))
			continue;
		bias = ARENA_ARRAY(o->a, float, ch);
		for (int64_t i = 0; i < ch; i++)
			bias[i] = (float)((b >= 0 ? opt_const_at(o, b, i) : 0.0) + opt_const_at(o, c, nc == 1 ? 0 : i));
		dims[0] = ch;
		in[0] = opt_in(o, cv, 0);
		in[1] = opt_in(o, cv, 1);
		in[2] = opt_const_f32(o, 1, dims, bias);
		n = opt_add(o, r, "Conv", 3, in, 1, &y);
		opt_copy_attrs(o, n, cv, NULL);
		opt_copy_type(o, y, opt_out(o, r, 0));
		opt_replace(o, opt_out(o, r, 0), y);
		return OPT_REWROTE;
	}
	return OPT_NOMATCH;
}
