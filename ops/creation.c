/* creation.c: lowerings of tensors made from sizes and scalars
 * (creation.def).  The output's IR type gives dtype and, when static, the
 * shape; otherwise the shape comes from `self` (the *_like ops) or the
 * `size` argument. */
#include "lower.h"

/* A tensor of n's output shape filled with v. */
static int
fill(LowerCtx *c, const Node *n, double v)
{
	const Value *ov = lower_out_value(n, 0), *sv = lower_arg_value(n, "self");
	DType cdt;
	const char *shape;
	uint8_t b[16];

	if (!ov)
		return lower_fail(c, n, "no tensor output");
	cdt = lower_compute(ov->dtype);
	if (ov->rank == 0) {
		lower_bind(c, n, 0, lower_scalar(c, ov->dtype, v));
		return 0;
	}
	if (lower_static(ov))
		shape = lower_shape(c, ov, NULL);
	else if (lower_arg(n, "size"))        /* full, zeros, new_zeros: the size */
		shape = lower_size_arg(c, n, "size");
	else if (sv)                          /* the *_like ops: self's shape */
		shape = lower_op(c, "Shape", NULL, 1, lower_value(c, sv));
	else
		shape = NULL;
	if (!shape)
		return lower_fail(c, n, "no size");
	lower_encode(cdt, v, b);
	onnx_attr_tensor(c->a, lower_result(c, n, "ConstantOfShape", cdt, 1, shape), "value",
	                 onnx_tensor(c->a, "", dtype_onnx(cdt), 1, (int64_t[]){1},
	                             arena_dup(c->a, b, sizeof b), (size_t)dtype_size(cdt)));
	return 0;
}

/* full(size, fill_value), full_like(self, fill_value), scalar_tensor(s) */
int
lower_full(LowerCtx *c, const Node *n, const OpRow *row)
{
	(void)row;
	return fill(c, n, lower_float(c, n, lower_arg(n, "s") ? "s" : "fill_value", 0.0));
}

int
lower_zeros(LowerCtx *c, const Node *n, const OpRow *row)
{
	(void)row;
	return fill(c, n, 0.0);
}

int
lower_ones(LowerCtx *c, const Node *n, const OpRow *row)
{
	(void)row;
	return fill(c, n, 1.0);
}

/* arange(end), arange.start(start, end), arange.start_step(start, end, step=1) */
int
lower_arange(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *ov = lower_out_value(n, 0);
	DType cdt = lower_compute(ov ? ov->dtype : DT_INT64);
	const char *start = lower_operand(c, n, "start", cdt), *step = lower_operand(c, n, "step", cdt);

	lower_result(c, n, row->onnx, cdt, 3, start ? start : lower_scalar(c, cdt, 0),
	             lower_operand(c, n, "end", cdt), step ? step : lower_scalar(c, cdt, 1));
	return 0;
}
