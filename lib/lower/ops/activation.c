/* activation.c: lowerings of the activation rows (activation.def):
 * softmax and log-softmax, the clipped, exponential, leaky and hard
 * activations, softplus and mish, prelu, glu, shrinkage and threshold.
 *
 * Each maps to its ONNX operator with torch's parameters as attributes
 * where ONNX has one with the same formula (HardSigmoid takes torch's
 * alpha=1/6; Selu and Celu are elu with fixed scales), and to a short
 * formula where it does not (softplus's beta and threshold, mish before
 * opset 18, elu with both scales).  Arguments left at torch's defaults are
 * absent from the IR, so every default is written here. */
#include <math.h>
#include <string.h>

#include "nn.h"

static DType
act_cdt(const Node *n)
{
	const Value *v = lower_out_value(n, 0);

	return lower_compute(v ? v->dtype : DT_FLOAT32);
}

/* softmax.int(self, dim, dtype=None), _softmax(self, dim, half_to_float),
 * and the log_softmax pair: computed in the output's dtype. */
int
lower_softmax(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = act_cdt(n);
	OnnxNode *nd = lower_result(c, n, row->onnx, cdt, 1, lower_operand(c, n, "self", cdt));

	onnx_attr_int(c->a, nd, "axis", lower_int(c, n, "dim", -1));
	return 0;
}

/* hardtanh(self, min_val=-1, max_val=1) and relu6(self) = hardtanh(0, 6). */
int
lower_hardtanh(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = act_cdt(n);
	int relu6 = row->variant == OPV_RELU6;
	double lo = relu6 ? 0.0 : lower_float(c, n, "min_val", -1.0), hi = relu6 ? 6.0 : lower_float(c, n, "max_val", 1.0);

	lower_result(c, n, row->onnx, cdt, 3, lower_operand(c, n, "self", cdt), lower_scalar(c, cdt, lo),
	             lower_scalar(c, cdt, hi));
	return 0;
}

/* elu(self, alpha=1, scale=1, input_scale=1) = scale * x for x > 0, else
 * scale * alpha * (exp(input_scale * x) - 1): Elu, Selu (scale != 1),
 * Celu (alpha * input_scale == 1), else the formula.  selu(self) and
 * celu(self, alpha=1) are their own rows. */
int
lower_elu(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = act_cdt(n);
	const char *x = lower_operand(c, n, "self", cdt), *neg;
	int selu = row->variant == OPV_SELU, celu = row->variant == OPV_CELU;
	double alpha = lower_float(c, n, "alpha", selu ? 1.6732632423543772 : 1.0);
	double scale = selu ? 1.0507009873554805 : lower_float(c, n, "scale", 1.0);
	double in_scale = celu ? 1.0 / alpha : lower_float(c, n, "input_scale", 1.0);
	OnnxNode *nd;

	if (scale == 1.0 && in_scale == 1.0) {
		nd = lower_result(c, n, "Elu", cdt, 1, x);
		onnx_attr_float(c->a, nd, "alpha", (float)alpha);
	} else if (in_scale == 1.0) {
		nd = lower_result(c, n, "Selu", cdt, 1, x);
		onnx_attr_float(c->a, nd, "alpha", (float)alpha);
		onnx_attr_float(c->a, nd, "gamma", (float)scale);
	} else if (scale == 1.0 && alpha * in_scale == 1.0) {
		nd = lower_result(c, n, "Celu", cdt, 1, x);
		onnx_attr_float(c->a, nd, "alpha", (float)alpha);
	} else {
		neg = lower_op(c, "Exp", NULL, 1, lower_op(c, "Mul", NULL, 2, x, lower_scalar(c, cdt, in_scale)));
		neg = lower_op(c, "Mul", NULL, 2, lower_op(c, "Sub", NULL, 2, neg, lower_scalar(c, cdt, 1.0)),
		               lower_scalar(c, cdt, scale * alpha));
		lower_result(c, n, "Where", cdt, 3, lower_op(c, "Greater", NULL, 2, x, lower_scalar(c, cdt, 0.0)),
		             lower_op(c, "Mul", NULL, 2, x, lower_scalar(c, cdt, scale)), neg);
	}
	return 0;
}

/* leaky_relu(self, negative_slope=0.01) */
int
lower_leaky_relu(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = act_cdt(n);
	OnnxNode *nd = lower_result(c, n, row->onnx, cdt, 1, lower_operand(c, n, "self", cdt));

	onnx_attr_float(c->a, nd, "alpha", (float)lower_float(c, n, "negative_slope", 0.01));
	return 0;
}

/* hardsigmoid(self) = clamp(x / 6 + 1/2, 0, 1) */
int
lower_hardsigmoid(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = act_cdt(n);
	OnnxNode *nd = lower_result(c, n, row->onnx, cdt, 1, lower_operand(c, n, "self", cdt));

	onnx_attr_float(c->a, nd, "alpha", (float)(1.0 / 6.0));
	onnx_attr_float(c->a, nd, "beta", 0.5f);
	return 0;
}

/* softplus(self, beta=1, threshold=20) = x where beta * x > threshold,
 * else log(1 + exp(beta * x)) / beta. */
int
lower_softplus(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = act_cdt(n);
	double beta = lower_float(c, n, "beta", 1.0), th = lower_float(c, n, "threshold", 20.0);
	const char *x = lower_operand(c, n, "self", cdt), *bx = x, *y;

	if (beta != 1.0)
		bx = lower_op(c, "Mul", NULL, 2, x, lower_scalar(c, cdt, beta));
	y = lower_op(c, row->onnx, NULL, 1, bx);
	if (beta != 1.0)
		y = lower_op(c, "Div", NULL, 2, y, lower_scalar(c, cdt, beta));
	lower_result(c, n, "Where", cdt, 3, lower_op(c, "Greater", NULL, 2, bx, lower_scalar(c, cdt, th)), x, y);
	return 0;
}

/* mish(self) = x * tanh(softplus(x)): Mish from opset 18, the formula in
 * the OPV_FORMULA row before. */
int
lower_mish(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = act_cdt(n);
	const char *x = lower_operand(c, n, "self", cdt);

	if (row->variant != OPV_FORMULA) {
		lower_result(c, n, row->onnx, cdt, 1, x);
		return 0;
	}
	lower_result(c, n, "Mul", cdt, 2, x, lower_op(c, "Tanh", NULL, 1, lower_op(c, "Softplus", NULL, 1, x)));
	return 0;
}

/* log_sigmoid(self) = -softplus(-x), stable for large |x|. */
int
lower_log_sigmoid(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = act_cdt(n);
	const char *x = lower_operand(c, n, "self", cdt);

	lower_result(c, n, "Neg", cdt, 1, lower_op(c, row->onnx, NULL, 1, lower_op(c, "Neg", NULL, 1, x)));
	return 0;
}

/* prelu(self, weight): weight has one slope per channel (dim 1) or one in
 * all; ONNX PRelu broadcasts from the right, so it becomes (C, 1, ...). */
int
lower_prelu(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *xv = lower_arg_value(n, "self"), *wv = lower_arg_value(n, "weight");
	DType cdt = act_cdt(n);
	const char *w;
	int64_t numel = 1;

	if (!xv || !wv)
		return lower_fail(c, n, "needs tensors self and weight");
	for (int i = 0; i < wv->rank; i++)
		numel *= wv->dims[i].e ? -1 : wv->dims[i].v;
	w = lower_operand(c, n, "weight", cdt);
	if (numel != 1)
		w = nn_per_channel(c, w, numel, xv->rank);
	else if (wv->rank > xv->rank)       /* one weight for a 0-d self: the result stays 0-d */
		w = lower_op(c, "Reshape", NULL, 2, w, lower_i64s(c, 0, NULL));
	lower_result(c, n, row->onnx, cdt, 2, lower_operand(c, n, "self", cdt), w);
	return 0;
}

/* glu(self, dim=-1) = a * sigmoid(b), a and b the halves of dim. */
int
lower_glu(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *xv = lower_arg_value(n, "self");
	DType cdt = act_cdt(n);
	int64_t dim, half;
	const char *x, *a, *b;

	if (!xv || xv->rank < 1)
		return lower_fail(c, n, "needs a tensor self");
	dim = lower_axis(lower_int(c, n, "dim", -1), xv->rank);
	if (dim < 0 || dim >= xv->rank || xv->dims[dim].e || xv->dims[dim].v % 2)
		return lower_fail(c, n, "needs a static even size on dim %lld", (long long)dim);
	half = xv->dims[dim].v / 2;
	x = lower_operand(c, n, "self", cdt);
	a = lower_op(c, "Slice", NULL, 4, x, lower_i64s(c, 1, (int64_t[]){0}), lower_i64s(c, 1, &half),
	             lower_i64s(c, 1, &dim));
	b = lower_op(c, "Slice", NULL, 4, x, lower_i64s(c, 1, &half), lower_i64s(c, 1, (int64_t[]){2 * half}),
	             lower_i64s(c, 1, &dim));
	lower_result(c, n, "Mul", cdt, 2, a, lower_op(c, row->onnx, NULL, 1, b));
	return 0;
}

/* hardshrink(self, lambd=0.5) and softshrink(self, lambd=0.5): Shrink,
 * whose bias is 0 for the hard form and lambd for the soft one. */
int
lower_shrink(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = act_cdt(n);
	double lambd = lower_float(c, n, "lambd", 0.5);
	OnnxNode *nd = lower_result(c, n, row->onnx, cdt, 1, lower_operand(c, n, "self", cdt));

	onnx_attr_float(c->a, nd, "bias", row->variant == OPV_SOFT ? (float)lambd : 0.0f);
	onnx_attr_float(c->a, nd, "lambd", (float)lambd);
	return 0;
}

/* threshold(self, threshold, value) = value where x <= threshold, else x. */
int
lower_threshold(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = act_cdt(n);
	const char *x = lower_operand(c, n, "self", cdt);

	lower_result(c, n, row->onnx, cdt, 3,
	             lower_op(c, "LessOrEqual", NULL, 2, x, lower_operand(c, n, "threshold", cdt)),
	             lower_operand(c, n, "value", cdt), x);
	return 0;
}
