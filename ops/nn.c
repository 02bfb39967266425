/* nn.c: lowerings of neural-network layers (nn.def): convolution,
 * normalization, softmax, attention, pooling.
 *
 * Spatial parameters given as one int apply to every spatial dim, as in
 * torch.  float16/bfloat16 layers compute in float32 and round back. */
#include <math.h>
#include <string.h>

#include "lower.h"

#define MAXSP 3

/* An int-list parameter for sp spatial dims: one value is repeated, an
 * absent or empty list gives def.  Returns 0 or fails the node. */
static int
spatial(LowerCtx *c, const Node *n, const char *name, int sp, int64_t def, int64_t *out)
{
	int64_t buf[MAXSP];
	int k = lower_ints(c, n, name, buf, MAXSP);

	for (int i = 0; i < sp; i++)
		out[i] = k <= 0 ? def : k == 1 ? buf[0] : i < k ? buf[i] : def;
	if (k > 1 && k != sp)
		return lower_fail(c, n, "'%s' has %d values for %d spatial dims", name, k, sp);
	return 0;
}

static int
all_equal(int k, const int64_t *v, int64_t x)
{
	for (int i = 0; i < k; i++)
		if (v[i] != x)
			return 0;
	return 1;
}

static DType
in_cdt(const Node *n, const char *name)
{
	const Value *v = lower_arg_value(n, name);

	return lower_compute(v ? v->dtype : DT_FLOAT32);
}

/* conv1d/2d/3d(input, weight, bias=None, stride=1, padding=0, dilation=1,
 * groups=1), padding also 'same'/'valid'; convolution(..., transposed,
 * output_padding, groups) also transposed. */
int
lower_conv(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *xv = lower_arg_value(n, "input"), *wv = lower_arg_value(n, "weight");
	DType cdt = in_cdt(n, "input");
	int64_t stride[MAXSP], dil[MAXSP], pad[MAXSP], outpad[MAXSP], pads[2 * MAXSP], ks[MAXSP];
	int sp, transposed = (int)lower_int(c, n, "transposed", 0), ks_static = 1;
	const Arg *pa = lower_arg(n, "padding");
	const char *in[3];
	OnnxNode *nd;

	if (!xv || !wv || (sp = wv->rank - 2) < 1 || sp > MAXSP || xv->rank != sp + 2)
		return lower_fail(c, n, "needs a batched input and a weight of rank 3 to 5");
	for (int i = 0; i < sp; i++) {
		ks[i] = wv->dims[i + 2].v;
		ks_static &= !wv->dims[i + 2].e;
	}
	if (spatial(c, n, "stride", sp, 1, stride) || spatial(c, n, "dilation", sp, 1, dil) ||
	    spatial(c, n, "output_padding", sp, 0, outpad))
		return DIAG_CONVERT;
	if (pa && pa->kind == ARG_STRING) {
		int same = strcmp(pa->u.s, "same") == 0;
		if (!same && strcmp(pa->u.s, "valid") != 0)
			return lower_fail(c, n, "padding='%s' is not 'same' or 'valid'", pa->u.s);
		if (same && !ks_static)
			return lower_fail(c, n, "padding='same' needs a static kernel size");
		for (int i = 0; i < sp; i++) {
			int64_t total = same ? dil[i] * (ks[i] - 1) : 0;
			pads[i] = total / 2;
			pads[i + sp] = total - total / 2;
		}
	} else {
		if (spatial(c, n, "padding", sp, 0, pad))
			return DIAG_CONVERT;
		for (int i = 0; i < sp; i++)
			pads[i] = pads[i + sp] = pad[i];
	}
	in[0] = lower_operand(c, n, "input", cdt);
	in[1] = lower_operand(c, n, "weight", cdt);
	in[2] = lower_operand(c, n, "bias", cdt);
	nd = lower_result(c, n, transposed ? "ConvTranspose" : row->onnx, cdt, in[2] ? 3 : 2, in[0], in[1], in[2]);
	onnx_attr_ints(c->a, nd, "dilations", sp, dil);
	onnx_attr_int(c->a, nd, "group", lower_int(c, n, "groups", 1));
	if (ks_static)
		onnx_attr_ints(c->a, nd, "kernel_shape", sp, ks);
	if (transposed && !all_equal(sp, outpad, 0))
		onnx_attr_ints(c->a, nd, "output_padding", sp, outpad);
	onnx_attr_ints(c->a, nd, "pads", 2 * sp, pads);
	onnx_attr_ints(c->a, nd, "strides", sp, stride);
	return 0;
}

/* A per-channel vector argument, or a constant of C copies of fill. */
static const char *
channel_vec(LowerCtx *c, const Node *n, const char *name, DType cdt, int64_t ch, double fill)
{
	const char *x = lower_operand(c, n, name, cdt);
	uint8_t *b;

	if (x)
		return x;
	b = arena_alloc(c->a, (size_t)ch * 8 + 8);
	for (int64_t i = 0; i < ch; i++)
		lower_encode(cdt, fill, b + i * dtype_size(cdt));
	return lower_const(c, cdt, 1, &ch, b);
}

/* Batch statistics (training=True): outputs out, save_mean, save_rstd and,
 * for the functional variant, the updated running mean and variance. */
static int
batch_norm_train(LowerCtx *c, const Node *n, DType cdt, int64_t ch, double eps)
{
	const Value *xv = lower_arg_value(n, "input");
	int r = xv->rank, nout = lower_nout(n);
	int64_t axes[8], cnt = 1, bshape[8];
	const char *x = lower_operand(c, n, "input", cdt), *mean, *d, *var, *rstd, *y, *flat;
	double m = lower_float(c, n, "momentum", 0.1);

	if (r > 8)
		return lower_fail(c, n, "input rank %d is too large", r);
	axes[0] = 0;
	for (int i = 2; i < r; i++)
		axes[i - 1] = i;
	for (int i = 0; i < r; i++) {
		bshape[i] = i == 1 ? ch : 1;
		if (i != 1)
			cnt *= xv->dims[i].e ? -1 : xv->dims[i].v;
	}
	mean = lower_reduce(c, "ReduceMean", x, r - 1, axes, 1, NULL);
	d = lower_op(c, "Sub", NULL, 2, x, mean);
	var = lower_reduce(c, "ReduceMean", lower_op(c, "Mul", NULL, 2, d, d), r - 1, axes, 1, NULL);
	rstd = lower_op(c, "Reciprocal", NULL, 1,
	                lower_op(c, "Sqrt", NULL, 1, lower_op(c, "Add", NULL, 2, var, lower_scalar(c, cdt, eps))));
	y = lower_op(c, "Mul", NULL, 2, d, rstd);
	if (lower_arg_value(n, "weight"))
		y = lower_op(c, "Mul", NULL, 2, y, lower_op(c, "Reshape", NULL, 2, lower_operand(c, n, "weight", cdt),
		                                             lower_i64s(c, r, bshape)));
	if (lower_arg_value(n, "bias"))
		y = lower_op(c, "Add", NULL, 2, y, lower_op(c, "Reshape", NULL, 2, lower_operand(c, n, "bias", cdt),
		                                            lower_i64s(c, r, bshape)));
	lower_finish(c, n, 0, y, cdt);
	flat = lower_i64s(c, 1, (int64_t[]){-1});
	mean = lower_op(c, "Reshape", NULL, 2, mean, flat);
	if (nout > 1 && lower_out_used(c, n, 1))
		lower_finish(c, n, 1, mean, cdt);
	if (nout > 2 && lower_out_used(c, n, 2))
		lower_finish(c, n, 2, lower_op(c, "Reshape", NULL, 2, rstd, flat), cdt);
	if (nout > 3 && (lower_out_used(c, n, 3) || lower_out_used(c, n, 4))) {
		const char *keep = lower_scalar(c, cdt, 1.0 - m), *mom = lower_scalar(c, cdt, m);
		const char *rm = lower_operand(c, n, "running_mean", cdt), *rv = lower_operand(c, n, "running_var", cdt);
		if (!rm || !rv || cnt < 2)
			return lower_fail(c, n, "updating running statistics needs them and a static batch of 2 or more");
		var = lower_op(c, "Mul", NULL, 2, lower_op(c, "Reshape", NULL, 2, var, flat),
		               lower_scalar(c, cdt, (double)cnt / (double)(cnt - 1)));
		lower_finish(c, n, 3, lower_op(c, "Add", NULL, 2, lower_op(c, "Mul", NULL, 2, rm, keep),
		                               lower_op(c, "Mul", NULL, 2, mean, mom)), cdt);
		lower_finish(c, n, 4, lower_op(c, "Add", NULL, 2, lower_op(c, "Mul", NULL, 2, rv, keep),
		                               lower_op(c, "Mul", NULL, 2, var, mom)), cdt);
	}
	return 0;
}

/* batch_norm / native_batch_norm / _native_batch_norm_legit_no_training /
 * _native_batch_norm_legit_functional: in eval mode one BatchNormalization,
 * with empty save_mean/save_invstd as torch returns them. */
int
lower_batch_norm(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *xv = lower_arg_value(n, "input");
	DType cdt = in_cdt(n, "input");
	double eps = lower_float(c, n, "eps", 1e-5);
	int training = (int)lower_int(c, n, "training", 0), nout = lower_nout(n);
	const char *in[5];
	int64_t ch, zero = 0;
	OnnxNode *nd;

	(void)row;
	if (!xv || xv->rank < 2 || xv->dims[1].e)
		return lower_fail(c, n, "needs an input of rank 2 or more with a static channel dim");
	ch = xv->dims[1].v;
	if (training || !lower_arg_value(n, "running_mean") || !lower_arg_value(n, "running_var"))
		return batch_norm_train(c, n, cdt, ch, eps);
	in[0] = lower_operand(c, n, "input", cdt);
	in[1] = channel_vec(c, n, "weight", cdt, ch, 1.0);
	in[2] = channel_vec(c, n, "bias", cdt, ch, 0.0);
	in[3] = lower_operand(c, n, "running_mean", cdt);
	in[4] = lower_operand(c, n, "running_var", cdt);
	nd = lower_results(c, n, "BatchNormalization", cdt, 5, in, 1);
	onnx_attr_float(c->a, nd, "epsilon", (float)eps);
	for (int k = 1; k < nout && k < 3; k++)
		if (lower_out_used(c, n, k))
			lower_bind(c, n, k, lower_const(c, lower_out_value(n, k)->dtype, 1, &zero, ""));
	for (int k = 3; k < nout; k++)     /* eval mode: running stats unchanged */
		if (lower_out_used(c, n, k))
			lower_bind(c, n, k, lower_input(c, n, k == 3 ? "running_mean" : "running_var"));
	return 0;
}

/* layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5) and
 * native_layer_norm (also mean and rstd, which LayerNormalization gives). */
int
lower_layer_norm(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *xv = lower_arg_value(n, "input");
	DType cdt = in_cdt(n, "input");
	int64_t ns[8];
	int k = lower_ints(c, n, "normalized_shape", ns, 8);
	const char *in[3];
	OnnxNode *nd;

	if (!xv || k < 1 || k > xv->rank)
		return lower_fail(c, n, "needs an input and a normalized_shape no longer than its rank");
	in[0] = lower_operand(c, n, "input", cdt);
	in[1] = lower_operand(c, n, "weight", cdt);
	in[2] = lower_operand(c, n, "bias", cdt);
	if (!in[1]) {
		int64_t numel = 1;
		uint8_t *b;
		for (int i = 0; i < k; i++)
			numel *= ns[i];
		b = arena_alloc(c->a, (size_t)numel * 8 + 8);
		for (int64_t i = 0; i < numel; i++)
			lower_encode(cdt, 1.0, b + i * dtype_size(cdt));
		in[1] = lower_const(c, cdt, k, ns, b);
	}
	nd = lower_results(c, n, row->onnx, cdt, in[2] ? 3 : 2, in, lower_nout(n));
	onnx_attr_int(c->a, nd, "axis", xv->rank - k);
	onnx_attr_float(c->a, nd, "epsilon", (float)lower_float(c, n, "eps", 1e-5));
	return 0;
}

/* softmax.int(self, dim, dtype=None), _softmax(self, dim, half_to_float),
 * and the log_softmax pair. */
int
lower_softmax(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *out = lower_out_value(n, 0);
	DType cdt = lower_compute(out ? out->dtype : DT_FLOAT32);
	OnnxNode *nd = lower_result(c, n, row->onnx, cdt, 1, lower_operand(c, n, "self", cdt));

	onnx_attr_int(c->a, nd, "axis", lower_int(c, n, "dim", -1));
	return 0;
}

/* scaled_dot_product_attention(query, key, value, attn_mask=None,
 * dropout_p=0, is_causal=False, scale=None, enable_gqa=False), as torch's
 * math path: softmax(q k^T * scale + mask) v.  The causal mask is the upper
 * triangle (above the diagonal) of a -inf matrix, made by Trilu. */
int
lower_sdpa(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *qv = lower_arg_value(n, "query"), *kv = lower_arg_value(n, "key");
	const Value *mv = lower_arg_value(n, "attn_mask");
	DType cdt = in_cdt(n, "query");
	int r = qv ? qv->rank : 0;
	int64_t perm[8];
	double scale;
	const char *q, *k, *v, *s;

	if (!qv || !kv || r < 2 || r > 8 || kv->rank != r)
		return lower_fail(c, n, "needs query and key of the same rank, 2 to 8");
	if (lower_int(c, n, "enable_gqa", 0))
		return lower_fail(c, n, "enable_gqa=True is not supported yet");
	if (qv->dims[r - 1].e && !lower_arg(n, "scale"))
		return lower_fail(c, n, "the default scale needs a static head size");
	scale = lower_float(c, n, "scale", 1.0 / sqrt((double)qv->dims[r - 1].v));
	q = lower_operand(c, n, "query", cdt);
	k = lower_operand(c, n, "key", cdt);
	v = lower_operand(c, n, "value", cdt);
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
		lower_encode(cdt, -INFINITY, b);
		minf = lower_op(c, "ConstantOfShape", NULL, 1, shape);
		onnx_attr_tensor(c->a, c->last, "value", onnx_tensor(c->a, "", dtype_onnx(cdt), 1, (int64_t[]){1},
		                                                      arena_dup(c->a, b, 8), (size_t)dtype_size(cdt)));
		s = lower_op(c, "Add", NULL, 2, s, lower_op(c, "Trilu", NULL, 2, minf, lower_i64(c, 1)));
	}
	if (mv && mv->dtype == DT_BOOL)
		s = lower_op(c, "Add", NULL, 2, s, lower_op(c, "Where", NULL, 3, lower_input(c, n, "attn_mask"),
		                                            lower_scalar(c, cdt, 0.0), lower_scalar(c, cdt, -INFINITY)));
	else if (mv)
		s = lower_op(c, "Add", NULL, 2, s, lower_operand(c, n, "attn_mask", cdt));
	s = lower_op(c, row->onnx, NULL, 1, s);
	onnx_attr_int(c->a, c->last, "axis", -1);
	lower_result(c, n, "MatMul", cdt, 2, s, v);
	return 0;
}

/* max_pool2d(self, kernel_size, stride=[], padding=0, dilation=1,
 * ceil_mode=False) and max_pool2d_with_indices.  ONNX indices count over
 * the whole tensor, torch's within each (n, c) plane: Mod by the plane size. */
int
lower_max_pool(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *xv = lower_arg_value(n, "self");
	DType cdt = in_cdt(n, "self");
	int sp = xv ? xv->rank - 2 : 0, want_idx = lower_nout(n) > 1 && lower_out_used(c, n, 1);
	int64_t ks[MAXSP], st[MAXSP], pad[MAXSP], dil[MAXSP], pads[2 * MAXSP], plane = 1;
	const char *outs[2];
	OnnxNode *nd;

	if (sp < 1 || sp > MAXSP)
		return lower_fail(c, n, "needs a batched input with 1 to 3 spatial dims");
	if (spatial(c, n, "kernel_size", sp, 1, ks) || spatial(c, n, "padding", sp, 0, pad) ||
	    spatial(c, n, "dilation", sp, 1, dil))
		return DIAG_CONVERT;
	if (lower_ints(c, n, "stride", st, MAXSP) <= 0)
		memcpy(st, ks, sizeof st);
	else if (spatial(c, n, "stride", sp, 1, st))
		return DIAG_CONVERT;
	for (int i = 0; i < sp; i++) {
		pads[i] = pads[i + sp] = pad[i];
		if (xv->dims[i + 2].e && want_idx)
			return lower_fail(c, n, "indices need static spatial dims");
		plane *= xv->dims[i + 2].v;
	}
	outs[0] = lower_out_value(n, 0)->dtype == cdt ? lower_out(c, n, 0) : lower_tmp(c);
	outs[1] = want_idx ? lower_tmp(c) : "";
	nd = lower_emit(c, row->onnx, 1, (const char *[]){lower_operand(c, n, "self", cdt)}, want_idx ? 2 : 1, outs);
	if (lower_int(c, n, "ceil_mode", 0))
		onnx_attr_int(c->a, nd, "ceil_mode", 1);
	if (!all_equal(sp, dil, 1))
		onnx_attr_ints(c->a, nd, "dilations", sp, dil);
	onnx_attr_ints(c->a, nd, "kernel_shape", sp, ks);
	onnx_attr_ints(c->a, nd, "pads", 2 * sp, pads);
	onnx_attr_ints(c->a, nd, "strides", sp, st);
	if (lower_out_value(n, 0)->dtype != cdt)
		lower_finish(c, n, 0, outs[0], cdt);
	if (want_idx)
		lower_op(c, "Mod", lower_out(c, n, 1), 2, outs[1], lower_i64(c, plane));
	return 0;
}

/* avg_pool2d(self, kernel_size, stride=[], padding=0, ceil_mode=False,
 * count_include_pad=True, divisor_override=None) */
int
lower_avg_pool(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *xv = lower_arg_value(n, "self");
	DType cdt = in_cdt(n, "self");
	int sp = xv ? xv->rank - 2 : 0;
	int64_t ks[MAXSP], st[MAXSP], pad[MAXSP], pads[2 * MAXSP];
	OnnxNode *nd;

	if (sp < 1 || sp > MAXSP)
		return lower_fail(c, n, "needs a batched input with 1 to 3 spatial dims");
	if (lower_arg(n, "divisor_override") && lower_arg(n, "divisor_override")->kind != ARG_NONE)
		return lower_fail(c, n, "divisor_override is not supported");
	if (spatial(c, n, "kernel_size", sp, 1, ks) || spatial(c, n, "padding", sp, 0, pad))
		return DIAG_CONVERT;
	if (lower_ints(c, n, "stride", st, MAXSP) <= 0)
		memcpy(st, ks, sizeof st);
	else if (spatial(c, n, "stride", sp, 1, st))
		return DIAG_CONVERT;
	for (int i = 0; i < sp; i++)
		pads[i] = pads[i + sp] = pad[i];
	nd = lower_result(c, n, row->onnx, cdt, 1, lower_operand(c, n, "self", cdt));
	if (lower_int(c, n, "ceil_mode", 0))
		onnx_attr_int(c->a, nd, "ceil_mode", 1);
	onnx_attr_int(c->a, nd, "count_include_pad", lower_int(c, n, "count_include_pad", 1));
	onnx_attr_ints(c->a, nd, "kernel_shape", sp, ks);
	onnx_attr_ints(c->a, nd, "pads", 2 * sp, pads);
	onnx_attr_ints(c->a, nd, "strides", sp, st);
	return 0;
}

/* adaptive_avg_pool2d(self, output_size): GlobalAveragePool for 1x1, else an
 * AveragePool when every input size is a multiple of the output size. */
int
lower_adaptive_avg_pool(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *xv = lower_arg_value(n, "self");
	DType cdt = in_cdt(n, "self");
	int64_t os[MAXSP], ks[MAXSP], zeros[2 * MAXSP] = {0};
	int sp = xv ? xv->rank - 2 : 0, k = lower_ints(c, n, "output_size", os, MAXSP);
	OnnxNode *nd;

	if (sp < 1 || sp > MAXSP || k != sp)
		return lower_fail(c, n, "needs a batched input and one output size per spatial dim");
	if (all_equal(sp, os, 1)) {
		lower_result(c, n, row->onnx, cdt, 1, lower_operand(c, n, "self", cdt));
		return 0;
	}
	for (int i = 0; i < sp; i++) {
		if (xv->dims[i + 2].e || os[i] <= 0 || xv->dims[i + 2].v % os[i])
			return lower_fail(c, n, "output size %lld does not divide input size %lld",
			                  (long long)os[i], (long long)xv->dims[i + 2].v);
		ks[i] = xv->dims[i + 2].v / os[i];
	}
	nd = lower_result(c, n, "AveragePool", cdt, 1, lower_operand(c, n, "self", cdt));
	onnx_attr_ints(c->a, nd, "kernel_shape", sp, ks);
	onnx_attr_ints(c->a, nd, "pads", 2 * sp, zeros);
	onnx_attr_ints(c->a, nd, "strides", sp, ks);
	return 0;
}

/* embedding(weight, indices, padding_idx=-1, ...): rows of weight. */
int
lower_embedding(LowerCtx *c, const Node *n, const OpRow *row)
{
	lower_op(c, row->onnx, lower_out(c, n, 0), 2, lower_input(c, n, "weight"), lower_input(c, n, "indices"));
	return 0;
}

/* dropout(input, p, train): the identity at inference. */
int
lower_dropout(LowerCtx *c, const Node *n, const OpRow *row)
{
	(void)row;
	if (lower_int(c, n, "train", 0) && lower_float(c, n, "p", 0.5) > 0)
		return lower_fail(c, n, "dropout in training mode is not supported");
	lower_bind(c, n, 0, lower_input(c, n, "input"));
	return 0;
}
