/* norm.c: lowerings of the normalization rows (norm.def): batch, layer,
 * group, instance and RMS norm.
 *
 * Inference uses running statistics where torch has them (one
 * BatchNormalization); batch statistics (training=True, or no running
 * stats) are computed with ReduceMean.  Group norm is an
 * InstanceNormalization over (N, groups, rest) followed by the
 * per-channel affine; RMSNormalization exists from opset 23, earlier
 * targets get its formula. */
#include <math.h>
#include <string.h>

#include "nn.h"

/* The running statistics after a training step: running * (1 - momentum) +
 * batch * momentum, with the unbiased batch variance (cnt values per
 * channel).  Into *rm and *rv, in dtype cdt. */
static void
running_update(LowerCtx *c, const Node *n, DType cdt, const char *mean, const char *var, int64_t cnt,
               const char **rm, const char **rv)
{
	double m = lower_float(c, n, "momentum", 0.1);
	const char *keep = lower_scalar(c, cdt, 1.0 - m), *mom = lower_scalar(c, cdt, m);

	var = lower_op(c, "Mul", NULL, 2, var, lower_scalar(c, cdt, (double)cnt / (double)(cnt - 1)));
	*rm = lower_op(c, "Add", NULL, 2, lower_op(c, "Mul", NULL, 2, lower_operand(c, n, "running_mean", cdt), keep),
	               lower_op(c, "Mul", NULL, 2, mean, mom));
	*rv = lower_op(c, "Add", NULL, 2, lower_op(c, "Mul", NULL, 2, lower_operand(c, n, "running_var", cdt), keep),
	               lower_op(c, "Mul", NULL, 2, var, mom));
}

/* Batch statistics (training=True): outputs out, save_mean, save_rstd and
 * the updated running statistics, which the functional variant returns as
 * outputs 3 and 4 and batch_norm / native_batch_norm (training IR) write
 * back into running_mean and running_var.  The input is centered first
 * (x - mean, as torch computes it) and the rest is one BatchNormalization
 * of the centered input with a zero mean and the batch variance: the
 * kernel's x * scale/sqrt(var + eps) + (bias - mean * ...) then has nothing
 * to cancel, where handing it the batch mean would lose digits when the
 * mean is large against the spread. */
static int
batch_norm_train(LowerCtx *c, const Node *n, DType cdt, int64_t ch, double eps)
{
	const Value *xv = lower_tensor_arg(c, n, "input");
	const Value *rmv = lower_arg_value(n, "running_mean"), *rvv = lower_arg_value(n, "running_var");
	int r = xv->rank, nout = lower_nout(n), dyn = 0;
	int functional = nout > 3 && (lower_out_used(c, n, 3) || lower_out_used(c, n, 4));
	int inplace = nout <= 3 && rmv && rvv;
	int64_t axes[8], cnt = 1;
	const char *x = lower_operand(c, n, "input", cdt), *mean, *d, *var, *y, *flat, *rm, *rv, *in[5];

	if (r > 8)
		return lower_fail(c, n, "input rank %d is too large", r);
	axes[0] = 0;
	for (int i = 2; i < r; i++)
		axes[i - 1] = i;
	for (int i = 0; i < r; i++)
		if (i != 1 && xv->dims[i].e)
			dyn = 1;
		else if (i != 1)
			cnt *= xv->dims[i].v;
	mean = lower_reduce(c, "ReduceMean", x, r - 1, axes, 1, NULL);
	d = lower_op(c, "Sub", NULL, 2, x, mean);
	var = lower_reduce(c, "ReduceMean", lower_op(c, "Mul", NULL, 2, d, d), r - 1, axes, 0, NULL);
	in[0] = d;
	in[1] = nn_channel_vec(c, n, "weight", cdt, ch, 1.0);
	in[2] = nn_channel_vec(c, n, "bias", cdt, ch, 0.0);
	in[3] = nn_fill(c, cdt, 1, &ch, 0.0);
	in[4] = var;
	y = lower_op(c, "BatchNormalization", NULL, 5, in[0], in[1], in[2], in[3], in[4]);
	onnx_attr_float(c->a, c->last, "epsilon", (float)eps);
	lower_finish(c, n, 0, y, cdt);
	flat = lower_i64s(c, 1, (int64_t[]){-1});
	mean = lower_op(c, "Reshape", NULL, 2, mean, flat);
	if (nout > 1 && lower_out_used(c, n, 1))
		lower_finish(c, n, 1, mean, cdt);
	if (nout > 2 && lower_out_used(c, n, 2))
		lower_finish(c, n, 2, lower_op(c, "Reciprocal", NULL, 1,
		                               lower_op(c, "Sqrt", NULL, 1, lower_op(c, "Add", NULL, 2, var,
		                                                                     lower_scalar(c, cdt, eps)))),
		             cdt);
	if (inplace && (rmv->graph != c->ir || rvv->graph != c->ir ||
	                (c->uses[rmv->id] < 2 && c->uses[rvv->id] < 2)))
		inplace = 0;                    /* nothing else reads them */
	if (!functional && !inplace)
		return 0;
	if ((functional && (!rmv || !rvv)) || dyn || cnt < 2)
		return lower_fail(c, n, "updating running statistics needs them and a static batch of 2 or more");
	running_update(c, n, cdt, mean, var, cnt, &rm, &rv);
	if (functional) {
		lower_finish(c, n, 3, rm, cdt);
		lower_finish(c, n, 4, rv, cdt);
		return 0;
	}
	if (lower_write_arg(c, n, "running_mean", lower_cast(c, rm, cdt, rmv->dtype)))
		return DIAG_CONVERT;
	return lower_write_arg(c, n, "running_var", lower_cast(c, rv, cdt, rvv->dtype));
}

/* batch_norm / native_batch_norm / _native_batch_norm_legit_no_training /
 * _native_batch_norm_legit_functional / _native_batch_norm_legit.no_stats:
 * in eval mode one BatchNormalization, with empty save_mean/save_invstd as
 * torch returns them. */
int
lower_batch_norm(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *xv = lower_arg_value(n, "input");
	DType cdt = nn_cdt(n, "input");
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
	in[1] = nn_channel_vec(c, n, "weight", cdt, ch, 1.0);
	in[2] = nn_channel_vec(c, n, "bias", cdt, ch, 0.0);
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
	DType cdt = nn_cdt(n, "input");
	int64_t ns[8];
	int k = lower_ints(c, n, "normalized_shape", ns, 8);
	const char *in[3];
	OnnxNode *nd;

	if (!xv || k < 1 || k > xv->rank)
		return lower_fail(c, n, "needs an input and a normalized_shape no longer than its rank");
	in[0] = lower_operand(c, n, "input", cdt);
	in[1] = lower_operand(c, n, "weight", cdt);
	in[2] = lower_operand(c, n, "bias", cdt);
	if (!in[1])
		in[1] = nn_fill(c, cdt, k, ns, 1.0);
	nd = lower_results(c, n, row->onnx, cdt, in[2] ? 3 : 2, in, lower_nout(n));
	onnx_attr_int(c->a, nd, "axis", xv->rank - k);
	onnx_attr_float(c->a, nd, "epsilon", (float)lower_float(c, n, "eps", 1e-5));
	return 0;
}

/* group_norm(input, num_groups, weight=None, bias=None, eps=1e-5,
 * cudnn_enabled=True) and native_group_norm(input, weight, bias, N, C, HxW,
 * group, eps), which also returns mean and rstd of shape (N, group). */
int
lower_group_norm(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *xv = lower_arg_value(n, "input");
	DType cdt = nn_cdt(n, "input");
	int64_t g = lower_int(c, n, lower_arg(n, "num_groups") ? "num_groups" : "group", 1), ch;
	double eps = lower_float(c, n, "eps", 1e-5);
	const char *x, *xr, *y;
	int r;

	if (!xv || (r = xv->rank) < 2 || xv->dims[1].e || g <= 0 || xv->dims[1].v % g)
		return lower_fail(c, n, "needs an input of rank 2 or more whose static channels divide into the groups");
	ch = xv->dims[1].v;
	x = lower_operand(c, n, "input", cdt);
	xr = lower_op(c, "Reshape", NULL, 2, x, lower_i64s(c, 3, (int64_t[]){0, g, -1}));
	y = lower_op(c, row->onnx, NULL, 3, xr, nn_fill(c, cdt, 1, &g, 1.0), nn_fill(c, cdt, 1, &g, 0.0));
	onnx_attr_float(c->a, c->last, "epsilon", (float)eps);
	y = lower_op(c, "Reshape", NULL, 2, y, lower_shape(c, xv, x));
	if (lower_arg_value(n, "weight"))
		y = lower_op(c, "Mul", NULL, 2, y, nn_per_channel(c, lower_operand(c, n, "weight", cdt), ch, r));
	if (lower_arg_value(n, "bias"))
		y = lower_op(c, "Add", NULL, 2, y, nn_per_channel(c, lower_operand(c, n, "bias", cdt), ch, r));
	lower_finish(c, n, 0, y, cdt);
	if (lower_nout(n) > 1 && (lower_out_used(c, n, 1) || lower_out_used(c, n, 2))) {
		const char *mean = lower_reduce(c, "ReduceMean", xr, 1, (int64_t[]){2}, 1, NULL);
		const char *d = lower_op(c, "Sub", NULL, 2, xr, mean);
		const char *var = lower_reduce(c, "ReduceMean", lower_op(c, "Mul", NULL, 2, d, d), 1, (int64_t[]){2}, 0, NULL);
		lower_finish(c, n, 1, lower_squeeze(c, mean, 1, (int64_t[]){2}, NULL), cdt);
		lower_finish(c, n, 2, lower_op(c, "Reciprocal", NULL, 1, lower_op(c, "Sqrt", NULL, 1,
		             lower_op(c, "Add", NULL, 2, var, lower_scalar(c, cdt, eps)))), cdt);
	}
	return 0;
}

/* instance_norm(input, weight, bias, running_mean, running_var,
 * use_input_stats, momentum, eps, cudnn_enabled): InstanceNormalization
 * with the input's statistics, else BatchNormalization with the running
 * ones. */
int
lower_instance_norm(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *xv = lower_arg_value(n, "input");
	DType cdt = nn_cdt(n, "input");
	double eps = lower_float(c, n, "eps", 1e-5);
	int64_t ch;
	OnnxNode *nd;

	if (!xv || xv->rank < 3 || xv->dims[1].e)
		return lower_fail(c, n, "needs an input of rank 3 or more with a static channel dim");
	ch = xv->dims[1].v;
	if (!lower_int(c, n, "use_input_stats", 1)) {
		if (!lower_arg_value(n, "running_mean") || !lower_arg_value(n, "running_var"))
			return lower_fail(c, n, "use_input_stats=False needs running statistics");
		nd = lower_result(c, n, "BatchNormalization", cdt, 5, lower_operand(c, n, "input", cdt),
		                  nn_channel_vec(c, n, "weight", cdt, ch, 1.0), nn_channel_vec(c, n, "bias", cdt, ch, 0.0),
		                  lower_operand(c, n, "running_mean", cdt), lower_operand(c, n, "running_var", cdt));
	} else {
		nd = lower_result(c, n, row->onnx, cdt, 3, lower_operand(c, n, "input", cdt),
		                  nn_channel_vec(c, n, "weight", cdt, ch, 1.0), nn_channel_vec(c, n, "bias", cdt, ch, 0.0));
	}
	onnx_attr_float(c->a, nd, "epsilon", (float)eps);
	return 0;
}

/* rms_norm(input, normalized_shape, weight=None, eps=None): x /
 * sqrt(mean(x^2) + eps) * weight over the last dims; eps defaults to the
 * machine epsilon of the input's dtype.  RMSNormalization from opset 23,
 * the formula in the OPV_FORMULA row before. */
int
lower_rms_norm(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *xv = lower_arg_value(n, "input");
	DType cdt = nn_cdt(n, "input");
	int64_t ns[8], axes[8];
	int k = lower_ints(c, n, "normalized_shape", ns, 8), r = xv ? xv->rank : 0;
	double eps;
	const char *x, *w, *y;

	if (!xv || k < 1 || k > r)
		return lower_fail(c, n, "needs an input and a normalized_shape no longer than its rank");
	switch (xv->dtype) {
	case DT_FLOAT16: eps = 0.0009765625; break;
	case DT_BFLOAT16: eps = 0.0078125; break;
	case DT_FLOAT64: eps = 2.220446049250313e-16; break;
	default: eps = 1.1920928955078125e-07; break;
	}
	eps = lower_float(c, n, "eps", eps);
	x = lower_operand(c, n, "input", cdt);
	w = lower_operand(c, n, "weight", cdt);
	if (row->variant != OPV_FORMULA) {
		OnnxNode *nd = lower_result(c, n, row->onnx, cdt, 2, x, w ? w : nn_fill(c, cdt, k, ns, 1.0));
		onnx_attr_int(c->a, nd, "axis", r - k);
		onnx_attr_float(c->a, nd, "epsilon", (float)eps);
		return 0;
	}
	for (int i = 0; i < k; i++)
		axes[i] = r - k + i;
	y = lower_reduce(c, "ReduceMean", lower_op(c, "Mul", NULL, 2, x, x), k, axes, 1, NULL);
	y = lower_op(c, "Sqrt", NULL, 1, lower_op(c, "Add", NULL, 2, y, lower_scalar(c, cdt, eps)));
	y = lower_op(c, "Div", NULL, 2, x, y);
	if (w)
		y = lower_op(c, "Mul", NULL, 2, y, w);
	lower_finish(c, n, 0, y, cdt);
	return 0;
}
