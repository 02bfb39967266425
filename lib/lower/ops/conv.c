/* conv.c: lowerings of the convolution rows (conv.def): convNd, their
 * padding='same'/'valid' overloads, conv_transposeNd and the core ATen
 * convolution (transposed or not), each one Conv or ConvTranspose.
 *
 * torch and ONNX agree on the weight layouts ((out, in/groups, k...) for
 * Conv, (in, out/groups, k...) for ConvTranspose) and on ConvTranspose's
 * output size with explicit pads and output_padding, so only the padding
 * strings need work: 'same' pads dilation*(k-1) in total per dim, the odd
 * one at the end, as torch does. */
#include <string.h>

#include "nn.h"

/* conv1d/2d/3d(input, weight, bias=None, stride=1, padding=0, dilation=1,
 * groups=1), padding also 'same'/'valid'; conv_transpose1d/2d/3d(input,
 * weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
 * dilation=1); convolution(..., transposed, output_padding, groups). */
int
lower_conv(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *xv = lower_arg_value(n, "input"), *wv = lower_arg_value(n, "weight");
	DType cdt = nn_cdt(n, "input");
	int64_t stride[NN_MAXSP], dil[NN_MAXSP], pad[NN_MAXSP], outpad[NN_MAXSP], pads[2 * NN_MAXSP], ks[NN_MAXSP];
	int sp, ks_static = 1;
	int transposed = row->variant == OPV_TRANSPOSED ? 1 : (int)lower_int(c, n, "transposed", 0);
	const Arg *pa = lower_arg(n, "padding");
	const char *in[3];
	OnnxNode *nd;

	if (!xv || !wv || (sp = wv->rank - 2) < 1 || sp > NN_MAXSP || xv->rank != sp + 2)
		return lower_fail(c, n, "needs a batched input and a weight of rank 3 to 5");
	for (int i = 0; i < sp; i++) {
		ks[i] = wv->dims[i + 2].v;
		ks_static &= !wv->dims[i + 2].e;
	}
	if (nn_spatial(c, n, "stride", sp, 1, stride) || nn_spatial(c, n, "dilation", sp, 1, dil) ||
	    nn_spatial(c, n, "output_padding", sp, 0, outpad))
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
		if (nn_spatial(c, n, "padding", sp, 0, pad))
			return DIAG_CONVERT;
		for (int i = 0; i < sp; i++)
			pads[i] = pads[i + sp] = pad[i];
	}
	if ((cdt = lower_widen(c, n, transposed ? "ConvTranspose" : row->onnx, cdt)) == DT_UNKNOWN)
		return DIAG_CONVERT;
	/* output_padding extends the output's end, inside what the padding
	 * crops when it is no more than the end's padding: the same rows come
	 * from cropping less.  torch allows output_padding up to the larger of
	 * stride and dilation, onnxruntime only below the stride. */
	for (int i = 0; transposed && i < sp; i++) {
		if (outpad[i] && outpad[i] <= pads[i + sp]) {
			pads[i + sp] -= outpad[i];
			outpad[i] = 0;
		}
		if (outpad[i] >= stride[i])
			return lower_fail(c, n, "output_padding %lld is not below the stride %lld (onnxruntime's ConvTranspose) "
			                  "nor within the padding", (long long)outpad[i], (long long)stride[i]);
	}
	in[0] = lower_operand(c, n, "input", cdt);
	in[1] = lower_operand(c, n, "weight", cdt);
	in[2] = lower_operand(c, n, "bias", cdt);
	nd = lower_result(c, n, transposed ? "ConvTranspose" : row->onnx, cdt, in[2] ? 3 : 2, in[0], in[1], in[2]);
	onnx_attr_ints(c->a, nd, "dilations", sp, dil);
	onnx_attr_int(c->a, nd, "group", lower_int(c, n, "groups", 1));
	if (ks_static)
		onnx_attr_ints(c->a, nd, "kernel_shape", sp, ks);
	if (transposed && !nn_all_equal(sp, outpad, 0))
		onnx_attr_ints(c->a, nd, "output_padding", sp, outpad);
	onnx_attr_ints(c->a, nd, "pads", 2 * sp, pads);
	onnx_attr_ints(c->a, nd, "strides", sp, stride);
	return 0;
}
