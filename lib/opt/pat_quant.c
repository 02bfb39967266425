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

/* The static 2-D dims of v into d; 1 when known. */
static int
dims2(Opt *o, int v, int64_t *d)
{
	const OptValue *x = &o->val[v];

	if (x->rank != 2 || x->dims[0].v < 0 || x->dims[1].v < 0)
		return 0;
	d[0] = x->dims[0].v, d[1] = x->dims[1].v;
	return 1;
}

/* MatMulNBitsOrt: its contract is its row of patterns.def. */
int
pat_matmul_nbits(Opt *o, int r)
{
	int a = opt_in(o, r, 0), tr = opt_prod(o, opt_in(o, r, 1), "Transpose"), v, dq, rs = -1, y, n, in[3];
	int64_t perm[MAX_RANK], nk[2], rb[2], N, K, bs, nblk, bdims[3], sdims[1];
	const OnnxTensor *w, *s;
	uint8_t *packed;

	if (tr < 0 || opt_elem(o, a) != ONNX_FLOAT || opt_perm(o, tr, perm) != 2 || perm[0] != 1)
		return OPT_NOMATCH;
	v = opt_in(o, tr, 0);
	if ((rs = opt_prod(o, v, "Reshape")) >= 0)
		v = opt_in(o, rs, 0);
	dq = opt_prod(o, v, "DequantizeLinear");
	if (dq < 0 || (opt_node(o, dq)->nin > 2 && opt_in(o, dq, 2) >= 0))
		return OPT_NOMATCH;
	if (!dims2(o, opt_out(o, tr, 0), nk) || !dims2(o, opt_in(o, dq, 0), rb))
		return OPT_NOMATCH;
	K = nk[0], N = nk[1], bs = rb[1], nblk = bs ? K / bs : 0;
	if (bs < 16 || (bs & (bs - 1)) || K % bs || rb[0] != N * nblk || opt_attr_i(o, dq, "axis", 1) != 0)
		return OPT_NOMATCH;
	w = opt_const_tensor(o, opt_in(o, dq, 0));
	s = opt_const_tensor(o, opt_in(o, dq, 1));
	if (!w || !s || w->data_type != ONNX_INT8 || s->data_type != ONNX_FLOAT || w->raw_data.len != (size_t)(N * K) ||
	    opt_const_numel(o, opt_in(o, dq, 1)) != rb[0])
		return OPT_NOMATCH;
	for (int64_t i = 0; i < N * K; i++)
		if ((int8_t)w->raw_data.data[i] < -8 || (int8_t)w->raw_data.data[i] > 7)
			return OPT_NOMATCH;    /* not 4-bit values */
	/* uint4 with the default zero point 8, two a byte, the first in the low nibble */
	packed = arena_alloc(o->a, (size_t)(N * K / 2));
	for (int64_t i = 0; i < N * K / 2; i++)
		packed[i] = (uint8_t)(((int8_t)w->raw_data.data[2 * i] + 8) | (((int8_t)w->raw_data.data[2 * i + 1] + 8) << 4));
	bdims[0] = N, bdims[1] = nblk, bdims[2] = bs / 2, sdims[0] = N * nblk;
	in[0] = a;
	in[1] = opt_const(o, ONNX_UINT8, 3, bdims, packed, (size_t)(N * K / 2));
	in[2] = opt_in(o, dq, 1);
	if (opt_rank(o, in[2]) != 1)
		return OPT_NOMATCH;
	(void)sdims;
	n = opt_add(o, r, "com.microsoft:MatMulNBits", 3, in, 1, &y);
	opt_set_attr_i(o, n, "K", K);
	opt_set_attr_i(o, n, "N", N);
	opt_set_attr_i(o, n, "bits", 4);
	opt_set_attr_i(o, n, "block_size", bs);
	opt_set_attr_i(o, n, "accuracy_level", 0);
	opt_copy_type(o, y, opt_out(o, r, 0));
	opt_replace(o, opt_out(o, r, 0), y);
	return OPT_REWROTE;
}
