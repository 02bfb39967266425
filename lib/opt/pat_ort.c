/* pat_ort.c: patterns that emit onnxruntime contrib ops (domain
 * com.microsoft, opset 1), in the `onnxruntime` set only: a model using
 * them runs in onnxruntime and nowhere else.  Each op was checked to load
 * and run on onnxruntime 1.30's CPU provider (test/opt/). */
#include "opt/opt.h"

#include <string.h>

/* MatMul(Transpose(a), b) or MatMul(a, Transpose(b)) swapping the last two
 * dims of a rank >= 2 operand -> com.microsoft FusedMatMul with
 * transA/transB. */
int
pat_fused_matmul_transpose(Opt *o, int r)
{
	int in[2] = {opt_in(o, r, 0), opt_in(o, r, 1)}, t[2] = {0, 0}, y, n;

	if (opt_elem(o, in[0]) != ONNX_FLOAT)
		return OPT_NOMATCH;
	for (int s = 0; s < 2; s++) {
		int tr = opt_prod(o, in[s], "Transpose"), k;
		int64_t p[MAX_RANK];
		if (tr < 0 || !opt_only_use(o, in[s], r) || (k = opt_perm(o, tr, p)) < 2)
			continue;
		t[s] = p[k - 1] == k - 2 && p[k - 2] == k - 1;
		for (int i = 0; i < k - 2; i++)
			t[s] &= p[i] == i;
		if (t[s])
			in[s] = opt_in(o, tr, 0);
	}
	if (!t[0] && !t[1])
		return OPT_NOMATCH;
	n = opt_add(o, r, "com.microsoft:FusedMatMul", 2, in, 1, &y);
	if (t[0])
		opt_set_attr_i(o, n, "transA", 1);
	if (t[1])
		opt_set_attr_i(o, n, "transB", 1);
	opt_copy_type(o, y, opt_out(o, r, 0));
	opt_replace(o, opt_out(o, r, 0), y);
	return OPT_REWROTE;
}

/* FusedConvRelu: its contract is its row of patterns.def. */
int
pat_fused_conv_relu(Opt *o, int r)
{
	int cv = opt_prod(o, opt_in(o, r, 0), "Conv"), y, n;
	int in[3];

	if (cv < 0 || !opt_only_use(o, opt_in(o, r, 0), r) || opt_elem(o, opt_in(o, r, 0)) != ONNX_FLOAT)
		return OPT_NOMATCH;
	for (int k = 0; k < 3; k++)
		in[k] = opt_in(o, cv, k);
	n = opt_add(o, r, "com.microsoft:FusedConv", in[2] >= 0 ? 3 : 2, in, 1, &y);
	opt_copy_attrs(o, n, cv, NULL);
	onnx_attr_string(o->a, opt_msg(o, n), "activation", "Relu");
	opt_copy_type(o, y, opt_out(o, r, 0));
	opt_replace(o, opt_out(o, r, 0), y);
	return OPT_REWROTE;
}

/* BiasGeluOrt: its contract is its row of patterns.def. */
int
pat_bias_gelu_ort(Opt *o, int r)
{
	int add = opt_prod(o, opt_in(o, r, 0), "Add"), y;

	if (add < 0 || !opt_only_use(o, opt_in(o, r, 0), r))
		return OPT_NOMATCH;
	for (int s = 0; s < 2; s++) {
		int x = opt_in(o, add, 1 - s), b = opt_in(o, add, s), rx = opt_rank(o, x);
		if (!opt_const_tensor(o, b) || opt_rank(o, b) != 1 || rx < 1 || opt_elem(o, x) != ONNX_FLOAT ||
		    opt_elem(o, b) != ONNX_FLOAT || opt_val(o, b)->dims[0].v != opt_val(o, x)->dims[rx - 1].v)
			continue;
		opt_add(o, r, "com.microsoft:BiasGelu", 2, (int[]){x, b}, 1, &y);
		opt_copy_type(o, y, opt_out(o, r, 0));
		opt_replace(o, opt_out(o, r, 0), y);
		return OPT_REWROTE;
	}
	return OPT_NOMATCH;
}

/* Norm r (LayerNormalization, RMSNormalization or SimplifiedLayerNormalization)
 * of Add(x, skip) over the last axis of a 3-D float32 -> the onnxruntime op
 * `fused` (its Skip form), whose 4th output replaces the sum. */
static int
skip_norm(Opt *o, int r, const char *fused)
{
	int sum = opt_in(o, r, 0), add = opt_prod(o, sum, "Add"), x, skip, g = opt_in(o, r, 1), b = opt_in(o, r, 2);
	int64_t axis = opt_attr_i(o, r, "axis", -1);
	int in[4], out[4], n;
	const OptValue *sv;

	if (add < 0 || !opt_only_out0(o, r) || opt_rank(o, sum) != 3 || opt_elem(o, sum) != ONNX_FLOAT ||
	    (axis != -1 && axis != 2) || opt_rank(o, g) != 1 || (b >= 0 && opt_rank(o, b) != 1))
		return OPT_NOMATCH;
	x = opt_in(o, add, 0);
	skip = opt_in(o, add, 1);
	sv = opt_val(o, sum);
	if (!opt_same_shape(o, x, sum) || !opt_same_shape(o, skip, sum) || sv->pinned)
		return OPT_NOMATCH;
	/* the sum's other readers may come before r: then the new node goes
	 * where the Add was, which needs gamma and beta defined by then */
	if (opt_nread(o, sum) > 1 && ((g >= 0 && opt_val(o, g)->producer >= 0) || (b >= 0 && opt_val(o, b)->producer >= 0)))
		return OPT_NOMATCH;
	in[0] = x;
	in[1] = skip;
	in[2] = g;
	in[3] = b;
	if (opt_attr_i(o, r, "stash_type", 1) != 1)
		return OPT_NOMATCH;
	n = opt_add(o, opt_nread(o, sum) > 1 ? add : r, fused, b >= 0 ? 4 : 3, in, 4, out);
	opt_set_attr_f(o, n, "epsilon", opt_attr_f(o, r, "epsilon", 1e-5));
	opt_copy_type(o, out[0], opt_out(o, r, 0));
	opt_copy_type(o, out[3], sum);
	/* the mean and inverse std outputs stay unnamed */
	for (int k = 1; k < 3; k++) {
		opt_msg(o, n)->output[k] = "";
		opt_node(o, n)->out[k] = -1;
		opt_val(o, out[k])->producer = -1;
	}
	opt_replace(o, opt_out(o, r, 0), out[0]);
	if (opt_nread(o, sum) > 0)
		opt_replace(o, sum, out[3]);
	else {
		opt_msg(o, n)->output[3] = "";
		opt_node(o, n)->out[3] = -1;
		opt_val(o, out[3])->producer = -1;
	}
	return OPT_REWROTE;
}

/* SkipLayerNormOrt: its contract is its row of patterns.def. */
int
pat_skip_layernorm_ort(Opt *o, int r)
{
	return skip_norm(o, r, "com.microsoft:SkipLayerNormalization");
}

/* SkipSimplifiedLayerNormOrt: its contract is its row of patterns.def (an
 * RMS norm has no bias: input 2 is absent). */
int
pat_skip_rmsnorm_ort(Opt *o, int r)
{
	return opt_in(o, r, 2) >= 0 ? OPT_NOMATCH : skip_norm(o, r, "com.microsoft:SkipSimplifiedLayerNormalization");
}

/* QuickGeluOrt: its contract is its row of patterns.def. */
int
pat_quick_gelu_ort(Opt *o, int r)
{
	for (int s = 0; s < 2; s++) {
		int x = opt_in(o, r, 1 - s), sv = opt_in(o, r, s), sg = opt_prod(o, sv, "Sigmoid"), a, m, y, n;
		double alpha = 1;
		if (sg < 0 || !opt_only_use(o, sv, r) || opt_elem(o, x) != ONNX_FLOAT)
			continue;
		a = opt_in(o, sg, 0);
		if (a != x) {
			if ((m = opt_prod(o, a, "Mul")) < 0 || !opt_only_use(o, a, sg))
				continue;
			if (!(opt_in(o, m, 0) == x && opt_const_scalar(o, opt_in(o, m, 1), &alpha)) &&
			    !(opt_in(o, m, 1) == x && opt_const_scalar(o, opt_in(o, m, 0), &alpha)))
				continue;
		}
		n = opt_add(o, r, "com.microsoft:QuickGelu", 1, &x, 1, &y);
		opt_set_attr_f(o, n, "alpha", alpha);
		opt_copy_type(o, y, opt_out(o, r, 0));
		opt_replace(o, opt_out(o, r, 0), y);
		return OPT_REWROTE;
	}
	return OPT_NOMATCH;
}
