/* creation.c: lowerings of tensors made from sizes and scalars
 * (creation.def).  The output's IR type gives dtype and, when static, the
 * shape; otherwise the shape comes from `self` (the *_like ops) or the
 * `size` argument.  empty* tensors are zeros (their contents are
 * undefined in torch, and every read of them in a graph follows a fill). */
#include <math.h>
#include <string.h>

#include "lower/lower.h"

/* The shape of n's output, as a 1-D int64: a constant when static, else
 * from `size` or `self`; NULL when there is none. */
static const char *
out_shape(LowerCtx *c, const Node *n, const Value *ov)
{
	const Value *sv = lower_arg_value(n, "self");

	if (lower_static(ov))
		return lower_shape(c, ov, NULL);
	if (lower_arg(n, "size"))               /* full, zeros, new_zeros: the size */
		return lower_size_arg(c, n, "size");
	if (sv)                                 /* the *_like ops: self's shape */
		return lower_op(c, "Shape", NULL, 1, lower_value(c, sv));
	return NULL;
}

/* A tensor of n's output shape filled with v. */
static int
fill(LowerCtx *c, const Node *n, double v)
{
	const Value *ov = lower_out_value(n, 0);
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
	if (c->update)
		return lower_fail(c, n, "is not a view");
	if (!(shape = out_shape(c, n, ov)))
		return lower_fail(c, n, "no size");
	if (lower_encode(cdt, v, b))
		return lower_fail(c, n, "no constant of dtype %s", dtype_name(cdt));
	onnx_attr_tensor(c->a, lower_result(c, n, "ConstantOfShape", cdt, 1, shape), "value",
	                 onnx_tensor(c->a, "", dtype_onnx(cdt), 1, (int64_t[]){1},
	                             arena_dup(c->a, b, sizeof b), (size_t)dtype_size(cdt)));
	return 0;
}

/* The same filled with a value known at run time only: a SymInt, or a
 * 0-d tensor (TorchScript's full(size, n) with n carried by a loop). */
static int
fill_value(LowerCtx *c, const Node *n, const Arg *a)
{
	const Value *ov = lower_out_tensor(c, n, 0);
	DType from = a->kind == ARG_SYM_INT ? DT_INT64 : a->u.v->dtype;
	const char *x, *shape;

	if (a->kind == ARG_TENSOR && a->u.v->rank != 0)
		return lower_fail(c, n, "the fill value is a tensor of rank %d, not a number", a->u.v->rank);
	if (ov->rank == 0) {
		lower_finish(c, n, 0, lower_value(c, a->u.v), from);
		return 0;
	}
	if (!(shape = out_shape(c, n, ov)))
		return lower_fail(c, n, "no size");
	x = lower_cast(c, lower_value(c, a->u.v), from, ov->dtype);
	lower_op(c, "Expand", lower_out(c, n, 0), 2, x, shape);
	return 0;
}

/* full(size, fill_value), full_like(self, fill_value), scalar_tensor(s) */
int
lower_full(LowerCtx *c, const Node *n, const OpRow *row)
{
	const char *name = lower_arg(n, "s") ? "s" : "fill_value";
	const Arg *a = lower_arg(n, name);

	(void)row;
	if (a && (a->kind == ARG_SYM_INT || a->kind == ARG_TENSOR))
		return fill_value(c, n, a);
	return fill(c, n, lower_float(c, n, name, 0.0));
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

/* arange(end), arange.start(start, end), arange.start_step(start, end,
 * step=1).  Range counts ceil((end - start) / step) elements in the
 * compute dtype; for a float result of static length the limit is put
 * half a step past the last element, so float rounding cannot add or drop
 * one. */
int
lower_arange(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *ov = lower_out_value(n, 0);
	DType cdt = lower_opmath(ov ? ov->dtype : DT_INT64);
	const char *start = lower_operand(c, n, "start", cdt), *step = lower_operand(c, n, "step", cdt);
	const char *end = lower_operand(c, n, "end", cdt);
	const Arg *a = lower_arg(n, "start"), *b = lower_arg(n, "step");

	if (dtype_is_float(cdt) && ov && ov->rank == 1 && !ov->dims[0].e && (!a || a->kind == ARG_INT ||
	    a->kind == ARG_FLOAT) && (!b || b->kind == ARG_INT || b->kind == ARG_FLOAT)) {
		double s0 = lower_float(c, n, "start", 0), st = lower_float(c, n, "step", 1);
		end = lower_scalar(c, cdt, s0 + ((double)ov->dims[0].v - 0.5) * st);
	}
	lower_result(c, n, row->onnx, cdt, 3, start ? start : lower_scalar(c, cdt, 0),
	             end, step ? step : lower_scalar(c, cdt, 1));
	return 0;
}

/* new_full(self, size, fill_value) */
int
lower_new_full(LowerCtx *c, const Node *n, const OpRow *row)
{
	(void)row;
	return fill(c, n, lower_float(c, n, "fill_value", 0.0));
}

/* fill_.Scalar(self, value), fill_.Tensor(self, value: 0-d): value
 * broadcast to self's shape; zero_(self). */
int
lower_fill_(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	DType cdt = lower_compute(sv->dtype);     /* Expand has no bfloat16 kernel in onnxruntime */
	const char *v = lower_arg(n, "value") ? lower_operand(c, n, "value", cdt) : lower_scalar(c, cdt, 0);

	lower_result(c, n, row->onnx, cdt, 2, v, lower_shape(c, sv, lower_input(c, n, "self")));
	return 0;
}

/* eye(n), eye.m(n, m): EyeLike of an n x m zero tensor. */
int
lower_eye(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *ov = lower_out_value(n, 0);
	DType odt = ov ? ov->dtype : DT_FLOAT32, cdt = dtype_is_float(odt) ? DT_FLOAT32 : DT_INT64;
	int64_t dims[2] = {lower_int(c, n, "n", 0), 0};
	const char *z;

	dims[1] = lower_int(c, n, "m", dims[0]);
	z = lower_op(c, "ConstantOfShape", NULL, 1, lower_i64s(c, 2, dims));
	{
		uint8_t b[16];
		lower_encode(cdt, 0, b);
		onnx_attr_tensor(c->a, c->last, "value", onnx_tensor(c->a, "", dtype_onnx(cdt), 1, (int64_t[]){1},
		                 arena_dup(c->a, b, sizeof b), (size_t)dtype_size(cdt)));
	}
	lower_result(c, n, row->onnx, cdt, 1, z);
	return 0;
}

/* linspace(start, end, steps): a constant, computed as torch does: from
 * start for the first half, back from end for the second. */
int
lower_linspace(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *ov = lower_out_value(n, 0);
	double a = lower_float(c, n, "start", 0), b = lower_float(c, n, "end", 0);
	int64_t steps = lower_int(c, n, "steps", 0), sz;
	double step = steps > 1 ? (b - a) / (double)(steps - 1) : 0;
	uint8_t *data;

	(void)row;
	if (!ov || steps < 0 || steps > (1 << 20))
		return lower_fail(c, n, "needs constant bounds and at most 2^20 steps");
	sz = dtype_size(ov->dtype);
	data = ARENA_ARRAY(c->a, uint8_t, (size_t)(steps * sz) + 1);
	for (int64_t i = 0; i < steps; i++) {
		/* torch fills the first half from start, the rest back from end;
		 * one step is start alone */
		double v = steps == 1 ? a : i < steps / 2 ? a + step * (double)i : b - step * (double)(steps - 1 - i);
		if (lower_encode(ov->dtype, v, data + i * sz))
			return lower_fail(c, n, "no constant of dtype %s", dtype_name(ov->dtype));
	}
	lower_bind(c, n, 0, lower_const(c, ov->dtype, 1, &steps, data));
	return 0;
}

/* triu / tril(self, diagonal=0): Trilu. */
int
lower_trilu(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *ov = lower_out_value(n, 0);
	DType cdt = lower_opmath(ov ? ov->dtype : DT_FLOAT32);
	OnnxNode *nd = lower_result(c, n, row->onnx, cdt, 2, lower_operand(c, n, "self", cdt),
	                            lower_i64(c, lower_int(c, n, "diagonal", 0)));

	onnx_attr_int(c->a, nd, "upper", row->variant == OPV_UPPER);
	return 0;
}

/* fill_diagonal_(self, fill_value, wrap=False): a Where with a constant
 * mask of the (i, i, ...) positions; wrap restarts the diagonal every
 * cols + 1 rows of a tall matrix. */
int
lower_fill_diagonal_(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_arg_value(n, "self");
	int wrap = (int)lower_int(c, n, "wrap", 0);
	int64_t dims[MAX_RANK], numel = 1, step = 1, end, mn;
	uint8_t *mask;

	if (!sv || sv->rank < 2 || sv->rank > MAX_RANK || !lower_static(sv))
		return lower_fail(c, n, "needs a static self of rank 2 or more");
	for (int i = 0; i < sv->rank; i++) {
		dims[i] = sv->dims[i].v;
		numel *= dims[i];
	}
	mn = dims[0];
	for (int i = 1; i < sv->rank; i++)
		mn = dims[i] < mn ? dims[i] : mn;
	/* flat stride between diagonal elements: 1 + d_last + d_last d_{-2} + ... */
	for (int i = sv->rank - 1, p = 1; i > 0; i--) {
		p *= (int)dims[i];
		step += p;
	}
	end = sv->rank == 2 && wrap ? numel : (mn - 1) * step + 1;
	mask = ARENA_ARRAY(c->a, uint8_t, numel + 1);
	for (int64_t i = 0; i < end && i < numel; i += step)
		mask[i] = 1;
	lower_op(c, row->onnx, lower_out(c, n, 0), 3, lower_const(c, DT_BOOL, sv->rank, dims, mask),
	         lower_operand(c, n, "fill_value", sv->dtype), lower_input(c, n, "self"));
	return 0;
}
