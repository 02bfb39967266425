/* nn.c: lowerings of the nn family (nn.def): attention, embeddings,
 * upsampling, dropout; and the helpers every neural-network family shares
 * (nn.h).  Convolutions, pooling, normalization, recurrent layers and
 * activations have their own files.
 *
 * float16/bfloat16 layers compute in float32 and round back, as torch's
 * CPU kernels do. */
#include <math.h>
#include <string.h>

#include "nn.h"
#include "random.h"

/* ---- shared helpers (nn.h) ---- */

int
nn_spatial(LowerCtx *c, const Node *n, const char *name, int sp, int64_t def, int64_t *out)
{
	int64_t buf[NN_MAXSP];
	int k = lower_ints(c, n, name, buf, NN_MAXSP);

	for (int i = 0; i < sp; i++)
		out[i] = k <= 0 ? def : k == 1 ? buf[0] : i < k ? buf[i] : def;
	if (k > 1 && k != sp)
		return lower_fail(c, n, "'%s' has %d values for %d spatial dims", name, k, sp);
	return 0;
}

int
nn_all_equal(int k, const int64_t *v, int64_t x)
{
	for (int i = 0; i < k; i++)
		if (v[i] != x)
			return 0;
	return 1;
}

DType
nn_cdt(const Node *n, const char *name)
{
	const Value *v = lower_arg_value(n, name);

	return lower_compute(v ? v->dtype : DT_FLOAT32);
}

const char *
nn_fill(LowerCtx *c, DType t, int rank, const int64_t *dims, double v)
{
	int64_t numel = 1;
	uint8_t *b;

	for (int i = 0; i < rank; i++) {
		if (dims[i] < 0 || (dims[i] && numel > (INT64_C(1) << 24) / dims[i])) {
			/* a size from the graph: negative or absurd in a bad file */
			lower_fail(c, c->node, "a constant of shape %lld... is too large or negative", (long long)dims[i]);
			return lower_scalar(c, t, v);
		}
		numel *= dims[i];
	}
	b = arena_alloc(c->a, (size_t)numel * 8 + 8);
	for (int64_t i = 0; i < numel; i++)
		if (lower_encode(t, v, b + i * dtype_size(t))) {
			lower_fail(c, c->node, "no constant of dtype %s", dtype_name(t));
			break;
		}
	return lower_const(c, t, rank, dims, b);
}

const char *
nn_channel_vec(LowerCtx *c, const Node *n, const char *name, DType t, int64_t ch, double fill)
{
	const char *x = lower_operand(c, n, name, t);

	return x ? x : nn_fill(c, t, 1, &ch, fill);
}

const char *
nn_per_channel(LowerCtx *c, const char *x, int64_t ch, int r)
{
	int64_t shape[8] = {ch, 1, 1, 1, 1, 1, 1, 1};

	if (r <= 2)
		return x;
	return lower_op(c, "Reshape", NULL, 2, x, lower_i64s(c, r - 1, shape));
}

/* ---- attention ---- */

/* Repeats each of the h heads (dim -3) of x (rank r) rep times, as
 * repeat_interleave does: (..., h, S, D) -> (..., h*rep, S, D), through
 * Unsqueeze, Expand and Reshape. */
static const char *
repeat_heads(LowerCtx *c, const Value *v, const char *x, int64_t rep)
{
	int r = v->rank;
	int64_t h = v->dims[r - 3].v;
	const char *x5 = lower_unsqueeze(c, x, 1, (int64_t[]){r - 2}, NULL), *eshape, *oshape;

	if (lower_static(v)) {
		int64_t e[9], o[8];
		for (int i = 0; i < r - 2; i++)
			e[i] = o[i] = v->dims[i].v;
		e[r - 2] = rep;
		e[r - 1] = v->dims[r - 2].v;
		e[r] = v->dims[r - 1].v;
		o[r - 3] = h * rep;
		o[r - 2] = v->dims[r - 2].v;
		o[r - 1] = v->dims[r - 1].v;
		eshape = lower_i64s(c, r + 1, e);
		oshape = lower_i64s(c, r, o);
	} else {
		const char *lead, *tail;
		lead = lower_op(c, "Shape", NULL, 1, x);
		onnx_attr_int(c->a, c->last, "end", r - 2);
		tail = lower_op(c, "Shape", NULL, 1, x);
		onnx_attr_int(c->a, c->last, "start", r - 2);
		eshape = lower_op(c, "Concat", NULL, 3, lead, lower_i64s(c, 1, &rep), tail);
		onnx_attr_int(c->a, c->last, "axis", 0);
		lead = lower_op(c, "Shape", NULL, 1, x);
		onnx_attr_int(c->a, c->last, "end", r - 3);
		oshape = lower_op(c, "Concat", NULL, 3, lead, lower_i64s(c, 1, (int64_t[]){h * rep}), tail);
		onnx_attr_int(c->a, c->last, "axis", 0);
	}
	return lower_op(c, "Reshape", NULL, 2, lower_op(c, "Expand", NULL, 2, x5, eshape), oshape);
}

/* scaled_dot_product_attention(query, key, value, attn_mask=None,
 * dropout_p=0, is_causal=False, scale=None, enable_gqa=False), as torch's
 * math path: softmax(q k^T * scale + mask) v.  The causal mask is the upper
 * triangle (above the diagonal) of a -inf matrix, made by Trilu.  A boolean
 * mask selects scores with Where; rows it masks entirely give 0, as torch's
 * safe softmax does.  enable_gqa repeats each key/value head for its group
 * of query heads. */
int
lower_sdpa(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *qv = lower_arg_value(n, "query"), *kv = lower_arg_value(n, "key");
	const Value *vv = lower_arg_value(n, "value"), *mv = lower_arg_value(n, "attn_mask");
	DType cdt = nn_cdt(n, "query");
	int r = qv ? qv->rank : 0;
	int64_t perm[8];
	double scale;
	const char *q, *k, *v, *s, *keep = NULL;

	if (!qv || !kv || !vv || r < 2 || r > 8 || kv->rank != r || vv->rank != r)
		return lower_fail(c, n, "needs query, key and value of the same rank, 2 to 8");
	if (lower_float(c, n, "dropout_p", 0.0) != 0.0)
		return lower_fail(c, n, "dropout_p > 0 is not supported (inference only)");
	if (qv->dims[r - 1].e && !lower_arg(n, "scale"))
		return lower_fail(c, n, "the default scale needs a static head size");
	scale = lower_float(c, n, "scale", 1.0 / sqrt((double)qv->dims[r - 1].v));
	q = lower_operand(c, n, "query", cdt);
	k = lower_operand(c, n, "key", cdt);
	v = lower_operand(c, n, "value", cdt);
	if (lower_int(c, n, "enable_gqa", 0) && r >= 3 && !(qv->dims[r - 3].e || kv->dims[r - 3].e) &&
	    qv->dims[r - 3].v != kv->dims[r - 3].v) {
		int64_t hq = qv->dims[r - 3].v, hk = kv->dims[r - 3].v;
		if (hk <= 0 || hq % hk || vv->dims[r - 3].e || vv->dims[r - 3].v != hk)
			return lower_fail(c, n, "enable_gqa: %lld query heads are not a multiple of %lld key/value heads",
			                  (long long)hq, (long long)hk);
		k = repeat_heads(c, kv, k, hq / hk);
		v = repeat_heads(c, vv, v, hq / hk);
	} else if (lower_int(c, n, "enable_gqa", 0) && r >= 3 && (qv->dims[r - 3].e || kv->dims[r - 3].e)) {
		return lower_fail(c, n, "enable_gqa needs static head counts");
	}
	for (int i = 0; i < r; i++)
		perm[i] = i;
	perm[r - 2] = r - 1;
	perm[r - 1] = r - 2;
	k = lower_op(c, "Transpose", NULL, 1, k);
	onnx_attr_ints(c->a, c->last, "perm", r, perm);
	s = lower_op(c, "Mul", NULL, 2, lower_op(c, "MatMul", NULL, 2, q, k), lower_scalar(c, cdt, scale));
	if (lower_int(c, n, "is_causal", 0)) {
		const char *shape, *minf;
		uint8_t b[8];
		if (!qv->dims[r - 2].e && !kv->dims[r - 2].e) {
			shape = lower_i64s(c, 2, (int64_t[]){qv->dims[r - 2].v, kv->dims[r - 2].v});
		} else {
			const char *sq = lower_op(c, "Shape", NULL, 1, q), *sk;
			onnx_attr_int(c->a, c->last, "start", r - 2);
			onnx_attr_int(c->a, c->last, "end", r - 1);
			sk = lower_op(c, "Shape", NULL, 1, lower_input(c, n, "key"));
			onnx_attr_int(c->a, c->last, "start", r - 2);
			onnx_attr_int(c->a, c->last, "end", r - 1);
			shape = lower_op(c, "Concat", NULL, 2, sq, sk);
			onnx_attr_int(c->a, c->last, "axis", 0);
		}
		if (lower_encode(cdt, -INFINITY, b))
			return lower_fail(c, n, "no constant of dtype %s", dtype_name(cdt));
		minf = lower_op(c, "ConstantOfShape", NULL, 1, shape);
		onnx_attr_tensor(c->a, c->last, "value", onnx_tensor(c->a, "", dtype_onnx(cdt), 1, (int64_t[]){1},
		                                                      arena_dup(c->a, b, 8), (size_t)dtype_size(cdt)));
		s = lower_op(c, "Add", NULL, 2, s, lower_op(c, "Trilu", NULL, 2, minf, lower_i64(c, 1)));
	}
	if (mv && mv->dtype == DT_BOOL) {
		const char *m = lower_input(c, n, "attn_mask");
		s = lower_op(c, "Where", NULL, 3, m, s, lower_scalar(c, cdt, -INFINITY));
		keep = lower_reduce(c, "ReduceMax", lower_cast(c, m, DT_BOOL, DT_INT32), 1, (int64_t[]){-1}, 1, NULL);
		keep = lower_cast(c, keep, DT_INT32, DT_BOOL);
	} else if (mv) {
		s = lower_op(c, "Add", NULL, 2, s, lower_operand(c, n, "attn_mask", cdt));
	}
	s = lower_op(c, row->onnx, NULL, 1, s);
	onnx_attr_int(c->a, c->last, "axis", -1);
	if (keep)
		s = lower_op(c, "Where", NULL, 3, keep, s, lower_scalar(c, cdt, 0.0));
	lower_result(c, n, "MatMul", cdt, 2, s, v);
	return 0;
}

/* ---- embeddings ---- */

/* embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False,
 * sparse=False): rows of weight (padding_idx only matters for gradients). */
int
lower_embedding(LowerCtx *c, const Node *n, const OpRow *row)
{
	lower_op(c, row->onnx, lower_out(c, n, 0), 2, lower_input(c, n, "weight"), lower_input(c, n, "indices"));
	return 0;
}

/* The (bags x positions) bool mask of embedding_bag: bag b holds the
 * positions offsets[b] <= p < offsets[b+1], the last bag running to the end
 * of idx (iv) unless include_last_offset (last) makes offsets one longer. */
static const char *
bag_mask(LowerCtx *c, const Value *iv, const char *idx, const char *off, int last)
{
	const char *pos, *starts, *ends, *tail, *len;
	const char *one = lower_i64s(c, 1, (int64_t[]){1}), *zero = lower_i64s(c, 1, (int64_t[]){0});

	len = iv->dims[0].e ? lower_squeeze(c, lower_op(c, "Shape", NULL, 1, idx), 0, NULL, NULL)
	                    : lower_i64(c, iv->dims[0].v);
	pos = lower_op(c, "Range", NULL, 3, lower_i64(c, 0), len, lower_i64(c, 1));
	tail = lower_op(c, "Slice", NULL, 4, off, one, lower_i64s(c, 1, (int64_t[]){INT64_MAX}), zero);
	if (last) {
		starts = lower_op(c, "Slice", NULL, 4, off, zero, lower_i64s(c, 1, (int64_t[]){-1}), zero);
		ends = tail;
	} else {
		starts = off;
		ends = lower_op(c, "Concat", NULL, 2, tail, lower_unsqueeze(c, len, 1, (int64_t[]){0}, NULL));
		onnx_attr_int(c->a, c->last, "axis", 0);
	}
	starts = lower_unsqueeze(c, starts, 1, (int64_t[]){1}, NULL);
	ends = lower_unsqueeze(c, ends, 1, (int64_t[]){1}, NULL);
	return lower_op(c, "And", NULL, 2, lower_op(c, "GreaterOrEqual", NULL, 2, pos, starts),
	                lower_op(c, "Less", NULL, 2, pos, ends));
}

/* embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode,
 * sparse, per_sample_weights, include_last_offset, padding_idx) and
 * _embedding_bag (padding_idx=-1: none).  The membership mask M (bag_mask,
 * without padding_idx entries) reduces the gathered rows: sum = M @ rows,
 * mean = sum / max(count, 1), max = the max over masked rows, 0 for an
 * empty bag, as torch gives. */
int
lower_embedding_bag(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *wv = lower_arg_value(n, "weight"), *iv = lower_arg_value(n, "indices");
	const Value *ov = lower_arg_value(n, "offsets");
	DType cdt = nn_cdt(n, "weight");
	int64_t mode = lower_int(c, n, "mode", 0), pad = lower_int(c, n, "padding_idx", -1);
	const char *idx, *m, *mf, *rows, *cnt, *out;

	(void)row;
	if (!wv || !iv || !ov || iv->rank != 1 || ov->rank != 1 || wv->rank != 2)
		return lower_fail(c, n, "needs a 2-D weight and 1-D indices and offsets");
	if (mode < 0 || mode > 2)
		return lower_fail(c, n, "mode %lld is not sum, mean or max", (long long)mode);
	for (int k = 1; k < lower_nout(n); k++)
		if (lower_out_used(c, n, k))
			return lower_fail(c, n, "only the pooled output is supported (output %d is used)", k);
	idx = lower_input(c, n, "indices");
	m = bag_mask(c, iv, idx, lower_cast(c, lower_input(c, n, "offsets"), ov->dtype, DT_INT64),
	             (int)lower_int(c, n, "include_last_offset", 0));
	if (pad >= 0)
		m = lower_op(c, "And", NULL, 2, m, lower_op(c, "Not", NULL, 1, lower_op(c, "Equal", NULL, 2, idx,
		                                                                         lower_i64(c, pad))));
	mf = lower_cast(c, m, DT_BOOL, cdt);
	rows = lower_op(c, "Gather", NULL, 2, lower_operand(c, n, "weight", cdt), idx);
	if (lower_arg_value(n, "per_sample_weights"))
		rows = lower_op(c, "Mul", NULL, 2, rows, lower_unsqueeze(c, lower_operand(c, n, "per_sample_weights", cdt),
		                                                       1, (int64_t[]){1}, NULL));
	cnt = lower_reduce(c, "ReduceSum", mf, 1, (int64_t[]){1}, 1, NULL);
	if (mode == 2) {
		out = lower_op(c, "Where", NULL, 3, lower_unsqueeze(c, m, 1, (int64_t[]){2}, NULL),
		               lower_unsqueeze(c, rows, 1, (int64_t[]){0}, NULL), lower_scalar(c, cdt, -INFINITY));
		out = lower_reduce(c, "ReduceMax", out, 1, (int64_t[]){1}, 0, NULL);
		out = lower_op(c, "Where", NULL, 3, lower_op(c, "Greater", NULL, 2, cnt, lower_scalar(c, cdt, 0.0)), out,
		               lower_scalar(c, cdt, 0.0));
	} else {
		out = lower_op(c, "MatMul", NULL, 2, mf, rows);
		if (mode == 1)
			out = lower_op(c, "Div", NULL, 2, out, lower_op(c, "Max", NULL, 2, cnt, lower_scalar(c, cdt, 1.0)));
	}
	lower_finish(c, n, 0, out, cdt);
	return 0;
}

/* ---- upsampling ---- */

/* A float-list argument (scale_factors): count, or -1 when absent or None. */
static int
float_list(LowerCtx *c, const Node *n, const char *name, double *buf, int max)
{
	const Arg *g = lower_arg(n, name);

	if (!g || g->kind == ARG_NONE)
		return -1;
	if ((g->kind != ARG_FLOATS && g->kind != ARG_INTS) || g->n > max) {
		c->bad_arg = name;
		return -1;
	}
	for (int i = 0; i < g->n; i++)
		buf[i] = g->u.list[i].kind == ARG_FLOAT ? g->u.list[i].u.f : (double)g->u.list[i].u.i;
	return g->n;
}

/* The scale factors of an upsampling node: the .vec overloads' list, or
 * the .default overloads' scales (1d), scales_h/scales_w (2d) and
 * scales_d/scales_h/scales_w (3d), each optional (0 in sf when absent).
 * Returns how many are given. */
static int
upsample_scales(LowerCtx *c, const Node *n, int sp, double *sf)
{
	static const char *const names[3][3] = {{"scales"}, {"scales_h", "scales_w"}, {"scales_d", "scales_h", "scales_w"}};
	int k = 0;

	if (lower_arg(n, "scale_factors")) {
		if (float_list(c, n, "scale_factors", sf, NN_MAXSP) != sp)
			return 0;
		return sp;
	}
	for (int i = 0; i < sp; i++) {
		const Arg *g = lower_arg(n, names[sp - 1][i]);
		sf[i] = !g || g->kind == ARG_NONE ? 0.0 : lower_float(c, n, names[sp - 1][i], 0.0);
		k += sf[i] > 0;
	}
	return k;
}

/* upsample_nearest1d/2d/3d, _upsample_nearest_exact1d/2d/3d,
 * upsample_linear1d, upsample_bilinear2d, upsample_trilinear3d,
 * upsample_bicubic2d and _upsample_bilinear2d_aa/_upsample_bicubic2d_aa,
 * in their .vec (input, output_size, [align_corners,] scale_factors) and
 * .default (self, output_size, [align_corners,] scales...) forms, as one
 * Resize.  torch maps output pixel d to source (d + 0.5) / s - 0.5
 * (half_pixel; linear clamps at 0 as ONNX does, cubic reads outside with
 * the edge values as ONNX's exclude_outside=0 does, a = -0.75),
 * d * (in - 1) / (out - 1) with align_corners, floor(d / s) for nearest
 * (asymmetric, floor) and floor((d + 0.5) / s) for nearest-exact
 * (half_pixel, round_prefer_ceil), where s is the scale factor when given,
 * else out / in.  So a given scale goes in as Resize's scales, else the
 * output size as its sizes.  The antialiased forms are Resize's antialias
 * (opset 18): a triangle (bilinear) or a = -0.5 cubic filter (bicubic, as
 * torch's and PIL's) widened by the downscale factor, weights normalized
 * over the input (exclude_outside=1, as PIL's).  With align_corners, Resize's antialias does not place
 * the filter as torch does (measured 0.6 off in onnxruntime), so that
 * fails. */
int
lower_upsample(LowerCtx *c, const Node *n, const OpRow *row)
{
	const char *in_name = lower_arg(n, "input") ? "input" : "self";
	const Value *xv = lower_arg_value(n, in_name), *ov = lower_out_value(n, 0);
	DType cdt = nn_cdt(n, in_name);
	int sp = row->sp, align = (int)lower_int(c, n, "align_corners", 0), have_scales, given;
	int exact = row->variant == OPV_NEAREST_EXACT, nearest = exact || row->variant == OPV_NEAREST;
	int aa = row->variant == OPV_AA || row->variant == OPV_CUBIC_AA;
	int cubic = row->variant == OPV_CUBIC || row->variant == OPV_CUBIC_AA;
	double sf[NN_MAXSP];
	const char *scales = "", *sizes = "";
	OnnxNode *nd;

	if (!xv || !ov || sp < 1 || xv->rank != sp + 2 || ov->rank != sp + 2)
		return lower_fail(c, n, "needs a batched input with %d spatial dims", sp);
	if (aa && align)
		return lower_fail(c, n, "antialiasing with align_corners=True has no ONNX Resize form that matches "
		                        "torch (measured 0.6 off in onnxruntime); use align_corners=False");
	given = upsample_scales(c, n, sp, sf);
	have_scales = given == sp;
	/* a scale only matters off align_corners, and must give torch's size */
	for (int i = 0; have_scales && i < sp; i++) {
		const Dim *in = &xv->dims[i + 2], *out = &ov->dims[i + 2];
		have_scales = !align && sf[i] > 0 &&
		              (in->e || out->e || (int64_t)floor((double)in->v * sf[i]) == out->v);
	}
	/* else torch still maps a dim by its given scale (the .default forms
	 * take both): Resize's sizes map by out / in, the same only when the
	 * scale is that */
	for (int i = 0; !have_scales && !align && given && i < sp; i++) {
		const Dim *in = &xv->dims[i + 2], *out = &ov->dims[i + 2];
		if (sf[i] > 0 && (in->e || out->e || fabs(sf[i] * (double)in->v - (double)out->v) > 1e-6 * (double)out->v))
			return lower_fail(c, n, "scale %g with output size %lld has no ONNX Resize form (torch maps the "
			                        "source by the scale, Resize by the sizes)", sf[i],
			                  out->e ? -1LL : (long long)out->v);
	}
	if (have_scales) {
		float s[NN_MAXSP + 2] = {1.0f, 1.0f};
		for (int i = 0; i < sp; i++)
			s[i + 2] = (float)sf[i];
		scales = lower_const(c, DT_FLOAT32, 1, (int64_t[]){sp + 2}, s);
	} else {
		int64_t sz[NN_MAXSP + 2];
		for (int i = 0; i < sp; i++) {
			if (ov->dims[i + 2].e)
				return lower_fail(c, n, "a dynamic output size needs scale factors");
			sz[i + 2] = ov->dims[i + 2].v;
		}
		if (!xv->dims[0].e && !xv->dims[1].e) {
			sz[0] = xv->dims[0].v;
			sz[1] = xv->dims[1].v;
			sizes = lower_i64s(c, sp + 2, sz);
		} else {
			const char *nc = lower_op(c, "Shape", NULL, 1, lower_input(c, n, in_name));
			onnx_attr_int(c->a, c->last, "end", 2);
			sizes = lower_op(c, "Concat", NULL, 2, nc, lower_i64s(c, sp, sz + 2));
			onnx_attr_int(c->a, c->last, "axis", 0);
		}
	}
	nd = lower_result(c, n, row->onnx, cdt, 4, lower_operand(c, n, in_name, cdt), "", scales, sizes);
	if (nearest) {
		onnx_attr_string(c->a, nd, "coordinate_transformation_mode", exact ? "half_pixel" : "asymmetric");
		onnx_attr_string(c->a, nd, "mode", "nearest");
		onnx_attr_string(c->a, nd, "nearest_mode", exact ? "round_prefer_ceil" : "floor");
	} else {
		if (aa) {
			onnx_attr_int(c->a, nd, "antialias", 1);
			onnx_attr_int(c->a, nd, "exclude_outside", 1);
		}
		onnx_attr_string(c->a, nd, "coordinate_transformation_mode", align ? "align_corners" : "half_pixel");
		if (cubic)
			onnx_attr_float(c->a, nd, "cubic_coeff_a", aa ? -0.5f : -0.75f);
		onnx_attr_string(c->a, nd, "mode", cubic ? "cubic" : "linear");
	}
	return 0;
}

/* ---- dropout ---- */

/* dropout(input, p, train) and dropout_(self, p=0.5, train=False): the
 * identity at inference; in training mode random.c's dropout. */
int
lower_dropout(LowerCtx *c, const Node *n, const OpRow *row)
{
	const char *x = lower_arg(n, "input") ? "input" : "self";

	(void)row;
	if (lower_int(c, n, "train", 0) && lower_float(c, n, "p", 0.5) > 0)
		return lower_dropout_train(c, n, x);       /* random.c */
	lower_bind(c, n, 0, lower_input(c, n, x));
	return 0;
}

const char *
nn_pad_edges(LowerCtx *c, const char *x, int r, const int64_t *pads, const char *mode, const char *out)
{
	int64_t pos[2 * NN_MAXR], b[NN_MAXR], e[NN_MAXR], ax[NN_MAXR];
	int neg = 0;

	for (int i = 0; i < 2 * r; i++) {
		pos[i] = pads[i] > 0 ? pads[i] : 0;
		neg |= pads[i] < 0;
	}
	x = lower_op(c, "Pad", neg ? NULL : out, 2, x, lower_i64s(c, 2 * r, neg ? pos : pads));
	onnx_attr_string(c->a, c->last, "mode", mode);
	if (!neg)
		return x;
	for (int d = 0; d < r; d++) {
		ax[d] = d;
		b[d] = pads[d] < 0 ? -pads[d] : 0;
		e[d] = pads[r + d] < 0 ? pads[r + d] : INT64_MAX;
	}
	return lower_op(c, "Slice", out, 4, x, lower_i64s(c, r, b), lower_i64s(c, r, e), lower_i64s(c, r, ax));
}
