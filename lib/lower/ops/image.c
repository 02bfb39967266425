/* image.c: lowerings of the image family (image.def): grid sampling and
 * affine grids, pixel and channel shuffles, im2col/col2im, Tensor.unfold,
 * meshgrid, max_unpool and the reflection/replication/circular pads.
 *
 * Most of them are data movement that ONNX spells with Reshape, Transpose
 * and Gather over positions computed here from static sizes; the batch dim
 * may stay dynamic (Reshape's 0 copies it, shapes come from Shape slices).
 * Arithmetic runs in float32 for float16/bfloat16 (nn_cdt), as torch's CPU
 * kernels do, and because onnxruntime lacks bfloat16 kernels for Pad,
 * Expand and GridSample. */
#include <math.h>
#include <string.h>

#include "nn.h"

#define IMG_MAXR 8

/* ---- helpers ---- */

/* Shape(x)[b:e] as a 1-D int64. */
static const char *
shape_part(LowerCtx *c, const char *x, int64_t b, int64_t e)
{
	const char *s = lower_op(c, "Shape", NULL, 1, x);

	onnx_attr_int(c->a, c->last, "start", b);
	onnx_attr_int(c->a, c->last, "end", e);
	return s;
}

/* The shape of v (rank r): a constant when static, else the first `keep`
 * dims from Shape(x) and the rest from v's static dims. */
static const char *
shape_of(LowerCtx *c, const Value *v, const char *x, int keep)
{
	int64_t d[IMG_MAXR];
	const char *parts[2];
	const char *out;

	if (lower_static(v))
		return lower_shape(c, v, NULL);
	for (int i = keep; i < v->rank; i++)
		d[i] = v->dims[i].v;
	for (int i = keep; i < v->rank; i++)
		if (v->dims[i].e)
			return NULL;
	parts[0] = shape_part(c, x, 0, keep);
	if (keep == v->rank)
		return parts[0];
	parts[1] = lower_i64s(c, v->rank - keep, d + keep);
	out = lower_tmp(c);
	lower_emit(c, "Concat", 2, parts, 1, &out);
	onnx_attr_int(c->a, c->last, "axis", 0);
	return out;
}

/* 1 when dims [b, e) of v are static. */
static int
static_dims(const Value *v, int b, int e)
{
	for (int i = b; i < e; i++)
		if (v->dims[i].e)
			return 0;
	return 1;
}

/* Reshape(x, shape) with shape given as k ints. */
static const char *
reshape(LowerCtx *c, const char *x, int k, const int64_t *shape, const char *out)
{
	return lower_op(c, "Reshape", out, 2, x, lower_i64s(c, k, shape));
}

/* ---- grid sampling ---- */

/* torch's unnormalized, padded source coordinate (grid_sampler_compute_
 * source_index) of the normalized grid coordinate g along a dim of size s:
 * align_corners maps -1..1 to the centers of the end pixels, else to their
 * outer edges; border clips; reflection reflects about the ends (the
 * centers, or the edges) and then clips. */
static const char *
source_index(LowerCtx *c, DType t, const char *g, int64_t s, int align, int pad)
{
	const char *one = lower_scalar(c, t, 1.0), *x;
	double lo, span;

	g = lower_op(c, "Add", NULL, 2, g, one);
	if (align)
		x = lower_op(c, "Mul", NULL, 2, g, lower_scalar(c, t, (double)(s - 1) / 2.0));
	else
		x = lower_op(c, "Div", NULL, 2,
		             lower_op(c, "Sub", NULL, 2, lower_op(c, "Mul", NULL, 2, g, lower_scalar(c, t, (double)s)), one),
		             lower_scalar(c, t, 2.0));
	if (pad == 2) {
		lo = align ? 0.0 : -0.5;
		span = align ? (double)(s - 1) : (double)s;
		if (span <= 0) {
			x = lower_op(c, "Mul", NULL, 2, x, lower_scalar(c, t, 0.0));
		} else {
			const char *mn = lower_scalar(c, t, lo), *sp = lower_scalar(c, t, span), *v, *extra, *flips, *even;
			v = lower_op(c, "Abs", NULL, 1, lower_op(c, "Sub", NULL, 2, x, mn));
			extra = lower_op(c, "Mod", NULL, 2, v, sp);
			onnx_attr_int(c->a, c->last, "fmod", 1);
			flips = lower_op(c, "Floor", NULL, 1, lower_op(c, "Div", NULL, 2, v, sp));
			even = lower_op(c, "Mod", NULL, 2, flips, lower_scalar(c, t, 2.0));
			onnx_attr_int(c->a, c->last, "fmod", 1);
			even = lower_op(c, "Equal", NULL, 2, even, lower_scalar(c, t, 0.0));
			x = lower_op(c, "Where", NULL, 3, even, lower_op(c, "Add", NULL, 2, extra, mn),
			             lower_op(c, "Add", NULL, 2, lower_op(c, "Sub", NULL, 2, sp, extra), mn));
		}
	}
	if (pad != 0)
		x = lower_op(c, "Clip", NULL, 3, x, lower_scalar(c, t, 0.0), lower_scalar(c, t, (double)(s - 1)));
	return x;
}

/* grid_sampler over sp spatial dims as torch computes it, for bilinear
 * (mode 0: the 2^sp corners around the source point, weighted by the
 * distances) and nearest (1: the corner Round gives, half to even as
 * nearbyint): each corner's flat position in the input's spatial block
 * picks a value by GatherElements, corners outside the input count 0.
 * x is in cdt; the input's spatial sizes are static. */
static int
grid_formula(LowerCtx *c, const Node *n, const Value *xv, DType t, int mode, int pad, int align)
{
	int sp = xv->rank - 2, ncorner = mode == 0 ? 1 << sp : 1;
	int64_t s[NN_MAXSP], stride[NN_MAXSP];
	const char *x = lower_operand(c, n, "input", t), *g = lower_operand(c, n, "grid", t);
	const char *lo[NN_MAXSP], *hi[NN_MAXSP], *wlo[NN_MAXSP], *whi[NN_MAXSP], *acc = NULL, *eshape, *oshape;

	for (int i = 0; i < sp; i++)
		s[i] = xv->dims[i + 2].v;
	for (int i = sp - 1; i >= 0; i--)
		stride[i] = i == sp - 1 ? 1 : stride[i + 1] * s[i + 1];
	x = reshape(c, x, 3, (int64_t[]){0, 0, -1}, NULL);
	/* grid (N, *out, sp) -> (N, sp, P): row i holds the coordinate of dim sp-1-i */
	g = lower_perm(c, reshape(c, g, 3, (int64_t[]){0, -1, sp}, NULL), 3, (int64_t[]){0, 2, 1}, NULL);
	for (int i = 0; i < sp; i++) {
		int64_t b = sp - 1 - i, e = sp - i, ax = 1;
		const char *gi = lower_op(c, "Slice", NULL, 4, g, lower_i64s(c, 1, &b), lower_i64s(c, 1, &e),
		                          lower_i64s(c, 1, &ax));
		gi = source_index(c, t, gi, s[i], align, pad);
		if (mode == 1) {
			lo[i] = lower_op(c, "Round", NULL, 1, gi);
			wlo[i] = NULL;
		} else {
			lo[i] = lower_op(c, "Floor", NULL, 1, gi);
			hi[i] = lower_op(c, "Add", NULL, 2, lo[i], lower_scalar(c, t, 1.0));
			whi[i] = lower_op(c, "Sub", NULL, 2, gi, lo[i]);
			wlo[i] = lower_op(c, "Sub", NULL, 2, lower_scalar(c, t, 1.0), whi[i]);
		}
	}
	eshape = lower_op(c, "Concat", NULL, 2, shape_part(c, x, 0, 2), shape_part(c, g, 2, 3));
	onnx_attr_int(c->a, c->last, "axis", 0);
	for (int k = 0; k < ncorner; k++) {
		const char *valid = NULL, *flat = NULL, *w = NULL, *v;
		for (int i = 0; i < sp; i++) {
			const char *p = (k >> (sp - 1 - i)) & 1 ? hi[i] : lo[i];
			const char *wi = mode == 1 ? NULL : (k >> (sp - 1 - i)) & 1 ? whi[i] : wlo[i];
			const char *in = lower_op(c, "And", NULL, 2,
			                          lower_op(c, "GreaterOrEqual", NULL, 2, p, lower_scalar(c, t, 0.0)),
			                          lower_op(c, "LessOrEqual", NULL, 2, p, lower_scalar(c, t, (double)(s[i] - 1))));
			const char *ip = lower_cast(c, lower_op(c, "Clip", NULL, 3, p, lower_scalar(c, t, 0.0),
			                                        lower_scalar(c, t, (double)(s[i] - 1))), t, DT_INT64);
			if (stride[i] != 1)
				ip = lower_op(c, "Mul", NULL, 2, ip, lower_i64(c, stride[i]));
			flat = flat ? lower_op(c, "Add", NULL, 2, flat, ip) : ip;
			valid = valid ? lower_op(c, "And", NULL, 2, valid, in) : in;
			if (wi)
				w = w ? lower_op(c, "Mul", NULL, 2, w, wi) : wi;
		}
		v = lower_op(c, "GatherElements", NULL, 2, x, lower_op(c, "Expand", NULL, 2, flat, eshape));
		onnx_attr_int(c->a, c->last, "axis", 2);
		w = lower_op(c, "Where", NULL, 3, valid, w ? w : lower_scalar(c, t, 1.0), lower_scalar(c, t, 0.0));
		v = lower_op(c, "Mul", NULL, 2, v, w);
		acc = acc ? lower_op(c, "Add", NULL, 2, acc, v) : v;
	}
	oshape = lower_op(c, "Concat", NULL, 2, shape_part(c, x, 0, 2),
	                  shape_part(c, lower_input(c, n, "grid"), 1, 1 + sp));
	onnx_attr_int(c->a, c->last, "axis", 0);
	lower_finish(c, n, 0, lower_op(c, "Reshape", NULL, 2, acc, oshape), t);
	return 0;
}

/* grid_sampler(input, grid, interpolation_mode, padding_mode,
 * align_corners) and its _2d/_3d forms: modes 0 bilinear, 1 nearest, 2
 * bicubic; padding 0 zeros, 1 border, 2 reflection.  GridSample does it
 * (opset 16: 2-D, mode names bilinear/bicubic; 20: N-D, linear/cubic);
 * below opset 20 a 3-D input takes grid_formula(). */
int
lower_grid_sampler(LowerCtx *c, const Node *n, const OpRow *row)
{
	static const char *const pads[] = {"zeros", "border", "reflection"};
	static const char *const modes16[] = {"bilinear", "nearest", "bicubic"};
	static const char *const modes20[] = {"linear", "nearest", "cubic"};
	const Value *xv = lower_tensor_arg(c, n, "input"), *gv = lower_tensor_arg(c, n, "grid");
	int64_t mode = lower_int(c, n, "interpolation_mode", 0), pad = lower_int(c, n, "padding_mode", 0);
	int align = (int)lower_int(c, n, "align_corners", 0), sp = xv->rank - 2;
	DType t = nn_cdt(n, "input");
	OnnxNode *nd;

	if ((sp != 2 && sp != 3) || gv->rank != xv->rank || gv->dims[gv->rank - 1].e ||
	    gv->dims[gv->rank - 1].v != sp)
		return lower_fail(c, n, "needs a 4-D or 5-D input and a grid of the same rank ending in %d", sp);
	if (mode < 0 || mode > 2 || pad < 0 || pad > 2)
		return lower_fail(c, n, "unknown interpolation mode %lld or padding mode %lld", (long long)mode,
		                  (long long)pad);
	if (sp == 3 && mode == 2)
		return lower_fail(c, n, "bicubic sampling needs a 2-D (4-D tensor) input, as in torch");
	if (sp == 3 && c->opset < 20) {
		if (!static_dims(xv, 2, xv->rank))
			return lower_fail(c, n, "3-D sampling below opset 20 needs static spatial input sizes "
			                        "(or set opset: 20 for ONNX GridSample)");
		return grid_formula(c, n, xv, t, (int)mode, (int)pad, align);
	}
	nd = lower_result(c, n, row->onnx, t, 2, lower_operand(c, n, "input", t), lower_operand(c, n, "grid", t));
	onnx_attr_int(c->a, nd, "align_corners", align);
	onnx_attr_string(c->a, nd, "mode", (c->opset >= 20 ? modes20 : modes16)[mode]);
	onnx_attr_string(c->a, nd, "padding_mode", pads[pad]);
	return 0;
}

/* torch's linspace_from_neg_one: num points from -1 to 1 (0 for one
 * point), scaled by (num - 1) / num without align_corners. */
static double
base_coord(int64_t i, int64_t num, int align)
{
	double v;

	if (num <= 1)
		return 0.0;
	v = -1.0 + 2.0 * (double)i / (double)(num - 1);
	return align ? v : v * (double)(num - 1) / (double)num;
}

/* affine_grid_generator(theta, size, align_corners): theta (N, sp, sp+1)
 * maps each output point's base coordinates (x, y[, z], 1) to a sampling
 * position, giving (N, *spatial, sp).  AffineGrid from opset 20 (the
 * OPV_FORMULA row before it: the base grid as a constant, times theta
 * transposed, as torch's own decomposition does). */
int
lower_affine_grid(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *tv = lower_tensor_arg(c, n, "theta");
	DType t = nn_cdt(n, "theta");
	int align = (int)lower_int(c, n, "align_corners", 0), k, sp;
	int64_t size[NN_MAXSP + 2], p = 1, oshape[NN_MAXSP + 2];
	const char *th = lower_operand(c, n, "theta", t), *y;
	float *base;

	k = lower_ints(c, n, "size", size, NN_MAXSP + 2);
	sp = k - 2;
	if (row->variant != OPV_FORMULA) {
		const char *sz = lower_size_arg(c, n, "size");
		if (!sz || tv->rank != 3)
			return lower_fail(c, n, "needs theta (N, d, d+1) and a size list");
		onnx_attr_int(c->a, lower_result(c, n, row->onnx, t, 2, th, sz), "align_corners", align);
		return 0;
	}
	if (k < 4 || k > NN_MAXSP + 2 || tv->rank != 3)
		return lower_fail(c, n, "needs theta (N, d, d+1) and a constant size of 4 or 5 values "
		                        "(or set opset: 20 for ONNX AffineGrid)");
	for (int i = 2; i < k; i++) {
		if (size[i] <= 0 || size[i] > (1 << 16))
			return lower_fail(c, n, "bad size %lld", (long long)size[i]);
		p *= size[i];
	}
	if (p > (1 << 20))
		return lower_fail(c, n, "a grid of %lld points is too large for a constant", (long long)p);
	base = arena_alloc(c->a, (size_t)(p * (sp + 1)) * sizeof *base);
	for (int64_t q = 0; q < p; q++) {
		int64_t rem = q;
		for (int i = sp - 1; i >= 0; i--) {
			int64_t s = size[i + 2];
			/* dim i + 2 of size is component sp - 1 - i (x is the last dim) */
			base[q * (sp + 1) + (sp - 1 - i)] = (float)base_coord(rem % s, s, align);
			rem /= s;
		}
		base[q * (sp + 1) + sp] = 1.0f;
	}
	y = lower_op(c, "MatMul", NULL, 2, lower_const(c, DT_FLOAT32, 3, (int64_t[]){1, p, sp + 1}, base),
	             lower_perm(c, lower_cast(c, th, t, DT_FLOAT32), 3, (int64_t[]){0, 2, 1}, NULL));
	oshape[0] = -1;
	for (int i = 0; i < sp; i++)
		oshape[i + 1] = size[i + 2];
	oshape[sp + 1] = sp;
	lower_finish(c, n, 0, reshape(c, y, sp + 2, oshape, NULL), DT_FLOAT32);
	return 0;
}

/* ---- shuffles ---- */

/* pixel_shuffle(self, upscale_factor) and pixel_unshuffle(self,
 * downscale_factor) over the last three dims (C, H, W), leading dims
 * merged: shuffle (C*r*r, H, W) -> (C, r, r, H, W) -> (C, H, r, W, r);
 * unshuffle the reverse.  Exact: a Reshape, a Transpose, a Reshape. */
static int
pixel_shuffle(LowerCtx *c, const Node *n, int up)
{
	const Value *sv = lower_tensor_arg(c, n, "self"), *ov = lower_out_tensor(c, n, 0);
	int64_t f = lower_int(c, n, up ? "upscale_factor" : "downscale_factor", 1), ch, h, w;
	int r = sv->rank;
	const char *x = lower_input(c, n, "self"), *shape;

	if (r < 3 || r > IMG_MAXR || !static_dims(sv, r - 3, r) || f < 1)
		return lower_fail(c, n, "needs static sizes in the last three dims and a factor >= 1");
	ch = sv->dims[r - 3].v;
	h = sv->dims[r - 2].v;
	w = sv->dims[r - 1].v;
	if (up) {
		if (ch % (f * f))
			return lower_fail(c, n, "%lld channels are not a multiple of %lld", (long long)ch, (long long)(f * f));
		x = reshape(c, x, 6, (int64_t[]){-1, ch / (f * f), f, f, h, w}, NULL);
		x = lower_perm(c, x, 6, (int64_t[]){0, 1, 4, 2, 5, 3}, NULL);
	} else {
		if (h % f || w % f)
			return lower_fail(c, n, "%lldx%lld is not a multiple of %lld", (long long)h, (long long)w, (long long)f);
		x = reshape(c, x, 6, (int64_t[]){-1, ch, h / f, f, w / f, f}, NULL);
		x = lower_perm(c, x, 6, (int64_t[]){0, 1, 3, 5, 2, 4}, NULL);
	}
	shape = shape_of(c, ov, lower_input(c, n, "self"), r - 3);
	if (!shape)
		return lower_fail(c, n, "needs static sizes in the last three dims");
	lower_op(c, "Reshape", lower_out(c, n, 0), 2, x, shape);
	return 0;
}

int
lower_pixel_shuffle(LowerCtx *c, const Node *n, const OpRow *row)
{
	(void)row;
	return pixel_shuffle(c, n, 1);
}

int
lower_pixel_unshuffle(LowerCtx *c, const Node *n, const OpRow *row)
{
	(void)row;
	return pixel_shuffle(c, n, 0);
}

/* channel_shuffle(self, groups) and native_channel_shuffle: channels
 * (g, C/g) transposed to (C/g, g), dim 1 of (N, C, *). */
int
lower_channel_shuffle(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	int64_t g = lower_int(c, n, "groups", 1), ch;
	const char *x = lower_input(c, n, "self");

	(void)row;
	if (sv->rank < 2 || sv->dims[1].e || g < 1 || sv->dims[1].v % g)
		return lower_fail(c, n, "needs a static channel count (dim 1) that is a multiple of groups");
	ch = sv->dims[1].v;
	x = reshape(c, x, 4, (int64_t[]){0, g, ch / g, -1}, NULL);
	x = lower_perm(c, x, 4, (int64_t[]){0, 2, 1, 3}, NULL);
	lower_op(c, "Reshape", lower_out(c, n, 0), 2, x, lower_shape(c, sv, lower_input(c, n, "self")));
	return 0;
}

/* ---- windows: im2col, col2im (Tensor.unfold is in signal.c) ---- */

/* The four int pairs of im2col/col2im: kernel_size, dilation, padding,
 * stride (one value repeats).  Returns 0 or fails the node. */
static int
window_args(LowerCtx *c, const Node *n, int64_t *k, int64_t *dl, int64_t *pd, int64_t *st)
{
	if (nn_spatial(c, n, "kernel_size", 2, 1, k) || nn_spatial(c, n, "dilation", 2, 1, dl) ||
	    nn_spatial(c, n, "padding", 2, 0, pd) || nn_spatial(c, n, "stride", 2, 1, st))
		return -1;
	for (int i = 0; i < 2; i++)
		if (k[i] < 1 || dl[i] < 1 || pd[i] < 0 || st[i] < 1)
			return lower_fail(c, n, "bad kernel_size, dilation, padding or stride");
	return 0;
}

/* im2col(self, kernel_size, dilation, padding, stride) (F.unfold): the
 * zero-padded input's windows as columns, (N, C*kh*kw, L): one Gather per
 * spatial dim of the (kernel, output) position tables, then a Transpose
 * puts the kernel offsets after the channel, as torch orders them. */
int
lower_im2col(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType t = nn_cdt(n, "self");
	int64_t k[2], dl[2], pd[2], st[2], o[2], ch;
	int unb = sv->rank == 3;
	const char *x;

	(void)row;
	if ((sv->rank != 3 && sv->rank != 4) || !static_dims(sv, sv->rank - 2, sv->rank))
		return lower_fail(c, n, "needs a (N,) C, H, W input with static H and W");
	if (window_args(c, n, k, dl, pd, st))
		return DIAG_CONVERT;
	x = lower_operand(c, n, "self", t);
	if (unb)
		x = lower_unsqueeze(c, x, 1, (int64_t[]){0}, NULL);
	if (pd[0] || pd[1])
		x = lower_op(c, "Pad", NULL, 3, x, lower_i64s(c, 8, (int64_t[]){0, 0, pd[0], pd[1], 0, 0, pd[0], pd[1]}),
		             lower_scalar(c, t, 0.0));
	for (int i = 0; i < 2; i++) {
		int64_t in = sv->dims[sv->rank - 2 + i].v + 2 * pd[i], *idx;
		o[i] = (in - dl[i] * (k[i] - 1) - 1) / st[i] + 1;
		if (o[i] < 1)
			return lower_fail(c, n, "the kernel does not fit the padded input");
		idx = ARENA_ARRAY(c->a, int64_t, k[i] * o[i]);
		for (int64_t a = 0; a < k[i]; a++)
			for (int64_t b = 0; b < o[i]; b++)
				idx[a * o[i] + b] = a * dl[i] + b * st[i];
		/* axis 2 (H), then 4 (W, after H's (kh, oh)) */
		x = lower_op(c, "Gather", NULL, 2, x, lower_const(c, DT_INT64, 2, (int64_t[]){k[i], o[i]}, idx));
		onnx_attr_int(c->a, c->last, "axis", 2 + 2 * i);
	}
	x = lower_perm(c, x, 6, (int64_t[]){0, 1, 2, 4, 3, 5}, NULL);
	/* the rows C*kh*kw by number when C is static: -1 beside a batch of 0 says nothing */
	ch = sv->dims[unb ? 0 : 1].e ? -1 : sv->dims[unb ? 0 : 1].v * k[0] * k[1];
	if (unb)
		x = reshape(c, x, 2, (int64_t[]){ch, o[0] * o[1]}, NULL);
	else
		x = reshape(c, x, 3, (int64_t[]){0, ch, o[0] * o[1]}, NULL);
	lower_finish(c, n, 0, x, t);
	return 0;
}

/* col2im(self, output_size, kernel_size, dilation, padding, stride)
 * (F.fold): the columns summed back into the image, ONNX Col2Im (opset
 * 18) with the same parameters.  An unbatched (C*kh*kw, L) input gets a
 * batch dim for it. */
int
lower_col2im(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	int64_t k[2], dl[2], pd[2], st[2], os[2];
	int unb = sv->rank == 2;
	const char *x;

	if (sv->rank != 2 && sv->rank != 3)
		return lower_fail(c, n, "needs a (N,) C*kh*kw, L input");
	if (window_args(c, n, k, dl, pd, st) || nn_spatial(c, n, "output_size", 2, 1, os))
		return DIAG_CONVERT;
	x = lower_operand(c, n, "self", DT_FLOAT32);
	if (unb)
		x = lower_unsqueeze(c, x, 1, (int64_t[]){0}, NULL);
	x = lower_op(c, row->onnx, NULL, 3, x, lower_i64s(c, 2, os), lower_i64s(c, 2, k));
	onnx_attr_ints(c->a, c->last, "dilations", 2, dl);
	onnx_attr_ints(c->a, c->last, "pads", 4, (int64_t[]){pd[0], pd[1], pd[0], pd[1]});
	onnx_attr_ints(c->a, c->last, "strides", 2, st);
	if (unb)
		x = lower_squeeze(c, x, 1, (int64_t[]){0}, NULL);
	lower_finish(c, n, 0, x, DT_FLOAT32);
	return 0;
}

/* ---- meshgrid ---- */

/* meshgrid(tensors) and meshgrid.indexing(tensors, indexing): output i is
 * input i (1-D, or 0-d as one element) along dim i of the grid, expanded
 * to the lengths of all inputs; "xy" swaps the first two dims. */
int
lower_meshgrid(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Arg *ts = lower_arg(n, "tensors");
	const char *ix = lower_str(c, n, "indexing", "ij"), **flat, **lens, *full;
	int k, xy;

	(void)row;
	if (!ts || ts->kind != ARG_TENSORS || ts->n < 1 || ts->n > IMG_MAXR)
		return lower_fail(c, n, "needs a list of 1 to %d tensors", IMG_MAXR);
	if (strcmp(ix, "ij") != 0 && strcmp(ix, "xy") != 0)
		return lower_fail(c, n, "indexing '%s' is not ij or xy", ix);
	k = ts->n;
	xy = ix[0] == 'x' && k >= 2;
	flat = ARENA_ARRAY(c->a, const char *, k);
	lens = ARENA_ARRAY(c->a, const char *, k);
	for (int i = 0; i < k; i++) {
		const Value *v = ts->u.list[i].u.v;
		if (v->rank > 1)
			return lower_fail(c, n, "input %d has rank %d (0 or 1 expected)", i, v->rank);
		flat[i] = reshape(c, lower_value(c, v), 1, (int64_t[]){-1}, NULL);
	}
	for (int p = 0; p < k; p++) {
		int i = xy && p < 2 ? 1 - p : p;
		const Value *v = ts->u.list[i].u.v;
		lens[p] = v->rank == 0 ? lower_i64s(c, 1, (int64_t[]){1})
		        : v->dims[0].e ? lower_op(c, "Shape", NULL, 1, flat[i])
		                       : lower_i64s(c, 1, &v->dims[0].v);
	}
	full = lower_tmp(c);
	lower_emit(c, "Concat", k, lens, 1, &full);
	onnx_attr_int(c->a, c->last, "axis", 0);
	for (int i = 0; i < k; i++) {
		int64_t shape[IMG_MAXR];
		int p = xy && i < 2 ? 1 - i : i;
		for (int j = 0; j < k; j++)
			shape[j] = j == p ? -1 : 1;
		lower_op(c, "Expand", lower_out(c, n, i), 2, reshape(c, flat[i], k, shape, NULL), full);
	}
	return 0;
}

/* ---- max_unpool ---- */

/* max_unpool2d(self, indices, output_size) and max_unpool3d(self,
 * indices, output_size, stride, padding): each value goes to its index (a
 * flat position within its (n, c) plane of the output) in zeros, by
 * ScatterElements over the flattened planes. */
int
lower_max_unpool(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self"), *iv = lower_tensor_arg(c, n, "indices");
	DType t = nn_cdt(n, "self");
	int64_t os[NN_MAXSP], p = 1, shape[NN_MAXSP + 2] = {0, 0};
	int k = lower_ints(c, n, "output_size", os, NN_MAXSP), unb;
	const char *x, *idx, *zeros, *zshape;

	(void)row;
	unb = sv->rank == k + 1;
	if (k < 1 || (sv->rank != k + 2 && !unb) || iv->rank != sv->rank)
		return lower_fail(c, n, "needs output_size and an input of %d or %d dims", k + 1, k + 2);
	for (int i = 0; i < k; i++)
		p *= os[i];
	x = lower_operand(c, n, "self", t);
	idx = lower_cast(c, lower_input(c, n, "indices"), iv->dtype, DT_INT64);
	if (unb) {
		x = lower_unsqueeze(c, x, 1, (int64_t[]){0}, NULL);
		idx = lower_unsqueeze(c, idx, 1, (int64_t[]){0}, NULL);
	}
	x = reshape(c, x, 3, (int64_t[]){0, 0, -1}, NULL);
	idx = reshape(c, idx, 3, (int64_t[]){0, 0, -1}, NULL);
	zshape = lower_op(c, "Concat", NULL, 2, shape_part(c, x, 0, 2), lower_i64s(c, 1, &p));
	onnx_attr_int(c->a, c->last, "axis", 0);
	zeros = lower_op(c, "Expand", NULL, 2, lower_scalar(c, t, 0.0), zshape);
	x = lower_op(c, "ScatterElements", NULL, 3, zeros, idx, x);
	onnx_attr_int(c->a, c->last, "axis", 2);
	for (int i = 0; i < k; i++)
		shape[i + 2] = os[i];
	x = reshape(c, x, k + 2, shape, NULL);
	if (unb)
		x = lower_squeeze(c, x, 1, (int64_t[]){0}, NULL);
	lower_finish(c, n, 0, x, t);
	return 0;
}

/* ---- padding ---- */

/* ONNX Pad in mode (reflect or edge) of the `padding` pairs (last dim
 * first, as torch lists them; negative ones as nn_pad_edges() says).  float16/bfloat16 pass as
 * float32, which onnxruntime's Pad kernels have. */
static int
pad_mode(LowerCtx *c, const Node *n, const OpRow *row, const char *mode)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	int64_t p[2 * IMG_MAXR], pads[2 * IMG_MAXR] = {0};
	int k = lower_ints(c, n, "padding", p, 2 * IMG_MAXR), r = sv->rank;
	DType t = dtype_is_float(sv->dtype) ? lower_compute(sv->dtype) : sv->dtype;
	const char *x;

	if (k < 0 || k % 2 || k / 2 > r || r > IMG_MAXR)
		return lower_fail(c, n, "bad 'padding'");
	for (int i = 0; i < k / 2; i++) {
		pads[r - 1 - i] = p[2 * i];
		pads[2 * r - 1 - i] = p[2 * i + 1];
	}
	x = nn_pad_edges(c, lower_cast(c, lower_input(c, n, "self"), sv->dtype, t), r, pads, mode, NULL);
	lower_finish_typed(c, n, 0, x, t);
	(void)row;
	return 0;
}

/* reflection_pad1d/2d/3d(self, padding): mirrored about the edge values. */
int
lower_reflection_pad(LowerCtx *c, const Node *n, const OpRow *row)
{
	return pad_mode(c, n, row, "reflect");
}

/* replication_pad1d/2d/3d(self, padding): the edge values repeated. */
int
lower_replication_pad(LowerCtx *c, const Node *n, const OpRow *row)
{
	return pad_mode(c, n, row, "edge");
}

/* _pad_circular(self, pad): each padded dim wraps around, the last b
 * elements before it and the first e after it (one Concat per dim). */
int
lower_pad_circular(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	int64_t p[2 * IMG_MAXR];
	int k = lower_ints(c, n, "pad", p, 2 * IMG_MAXR), r = sv->rank;
	const char *x = lower_input(c, n, "self");

	if (k < 0 || k % 2 || k / 2 > r || r > IMG_MAXR)
		return lower_fail(c, n, "bad 'pad'");
	for (int i = 0; i < k / 2; i++) {
		int64_t d = r - 1 - i, b = p[2 * i], e = p[2 * i + 1], ax = d;
		const char *part[3];
		int np = 0;
		if (!b && !e)
			continue;
		if (b < 0 || e < 0 || sv->dims[d].e || b > sv->dims[d].v || e > sv->dims[d].v)
			return lower_fail(c, n, "circular padding needs static dims and pads from 0 to the dim's size");
		if (b)
			part[np++] = lower_op(c, "Slice", NULL, 4, x, lower_i64s(c, 1, (int64_t[]){-b}),
			                      lower_i64s(c, 1, (int64_t[]){INT64_MAX}), lower_i64s(c, 1, &ax));
		part[np++] = x;
		if (e)
			part[np++] = lower_op(c, "Slice", NULL, 4, x, lower_i64s(c, 1, (int64_t[]){0}),
			                      lower_i64s(c, 1, &e), lower_i64s(c, 1, &ax));
		x = lower_tmp(c);
		lower_emit(c, row->onnx, np, part, 1, &x);
		onnx_attr_int(c->a, c->last, "axis", d);
	}
	lower_finish_typed(c, n, 0, x, sv->dtype);
	return 0;
}
