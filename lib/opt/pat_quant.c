/* pat_quant.c: rewrites of quantized graphs (QuantizeLinear, DequantizeLinear).
 *
 * Quantized weights stay quantized: these patterns only simplify the
 * quantization nodes themselves; folding never turns a DequantizeLinear (no
 * fold rule in lib/onnx/onnxops.def) or an 8-bit integer weight's Cast
 * (lib/onnx/fold.c) into a float initializer. */
#include "opt/opt.h"

/* DequantizeZeroPoint: its contract is its row of patterns.def. */
int
pat_dequantize_zero_point(Opt *o, int r)
{
	int zp = opt_node(o, r)->nin > 2 ? opt_in(o, r, 2) : -1;

	/* per-axis and blocked only: without a per-tensor zero point onnxruntime's
	 * QDQ transforms insert uint8 QuantizeLinear nodes that do not type-check */
	if (zp < 0 || opt_rank(o, zp) < 1 || opt_const_numel(o, zp) < 2 || !opt_const_all(o, zp, 0.0, 0.0))
		return OPT_NOMATCH;
	/* a new two-input node: an omitted third input ("") is not the same to
	 * onnxruntime's QDQ transforms, which copy it onto QuantizeLinear nodes */
	int in[2] = {opt_in(o, r, 0), opt_in(o, r, 1)}, y, n;
	n = opt_add(o, r, "DequantizeLinear", 2, in, 1, &y);
	opt_copy_attrs(o, n, r, NULL);
	opt_replace(o, opt_out(o, r, 0), y);
	return OPT_REWROTE;
}
