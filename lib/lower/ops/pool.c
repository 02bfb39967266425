/* pool.c: lowerings of the pooling rows (pool.def): max and average pools
 * (1d to 3d, with indices, ceil_mode, count_include_pad, divisor_override)
 * and adaptive pools.
 *
 * Inputs may be unbatched (C, *spatial) as torch allows: they get a batch
 * dim of 1 for the ONNX pool and lose it after.  Adaptive pooling takes
 * window i of an axis from floor(i*in/out) to ceil((i+1)*in/out); when
 * those windows have one size and one step (always when out divides in,
 * and often otherwise: 9 -> 4 is kernel 3, stride 2) the axis is a plain
 * pool, else each window is sliced and reduced.  Both reductions are
 * separable over axes, so mixing the two forms stays exact. */
#include <math.h>
#include <string.h>

#include "nn.h"

/* The pooled input in dtype cdt with a batch dim; *unb says one was added.
 * sp is the op's spatial rank; NULL when the input rank does not fit. */
static const char *
pool_input(LowerCtx *c, const Node *n, int sp, DType cdt, int *unb)
{
	const Value *xv = lower_arg_value(n, "self");
	const char *x;

	if (!xv || sp < 1 || (xv->rank != sp + 2 && xv->rank != sp + 1))
		return NULL;
	x = lower_operand(c, n, "self", cdt);
	*unb = xv->rank == sp + 1;
	return *unb ? lower_unsqueeze(c, x, 1, (int64_t[]){0}, NULL) : x;
}

/* The name a pool writes output k to: the output itself when neither a
 * cast nor a squeeze follows, else a helper that pool_output() binds. */
static const char *
pool_dst(LowerCtx *c, const Node *n, int k, DType cdt, int unb)
{
	const Value *v = lower_out_value(n, k);

	return !unb && v && v->dtype == cdt ? lower_out(c, n, k) : lower_tmp(c);
}

/* Binds y (in dtype from, batched) as output k, dropping an added batch
 * dim; nothing to do when y is the output already (pool_dst). */
static void
pool_output(LowerCtx *c, const Node *n, int k, const char *y, DType from, int unb)
{
	if (c->out[k] == y)
		return;
	if (unb)
		y = lower_squeeze(c, y, 1, (int64_t[]){0}, NULL);
	lower_finish(c, n, k, y, from);
}

/* The spatial dims of the pooled input (batched or not). */
static const Dim *
spatial_dims(const Node *n, int sp)
{
	const Value *xv = lower_arg_value(n, "self");

	return xv->dims + xv->rank - sp;
}

/* kernel_size, stride (default: the kernel), padding of a pool node. */
static int
pool_window(LowerCtx *c, const Node *n, int sp, int64_t *ks, int64_t *st, int64_t *pads)
{
	int64_t pad[NN_MAXSP], buf[NN_MAXSP];

	if (nn_spatial(c, n, "kernel_size", sp, 1, ks) || nn_spatial(c, n, "padding", sp, 0, pad))
		return DIAG_CONVERT;
	if (lower_ints(c, n, "stride", buf, NN_MAXSP) <= 0)
		memcpy(st, ks, sizeof(int64_t) * (size_t)sp);
	else if (nn_spatial(c, n, "stride", sp, 1, st))
		return DIAG_CONVERT;
	for (int i = 0; i < sp; i++)
		pads[i] = pads[i + sp] = pad[i];
	return 0;
}

/* max_pool1d/2d/3d(self, kernel_size, stride=[], padding=0, dilation=1,
 * ceil_mode=False) and max_pool2d/3d_with_indices.  ONNX indices count
 * over the whole tensor, torch's within each (n, c) plane: Mod by the plane
 * size. */
int
lower_max_pool(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = nn_cdt(n, "self");
	int sp = row->sp, unb, want_idx = lower_nout(n) > 1 && lower_out_used(c, n, 1);
	int64_t ks[NN_MAXSP], st[NN_MAXSP], dil[NN_MAXSP], pads[2 * NN_MAXSP], plane = 1;
	const char *x = pool_input(c, n, sp, cdt, &unb), *outs[2];
	const Dim *d;
	OnnxNode *nd;

	if (!x)
		return lower_fail(c, n, "needs an input with %d spatial dims", sp);
	if (pool_window(c, n, sp, ks, st, pads) || nn_spatial(c, n, "dilation", sp, 1, dil))
		return DIAG_CONVERT;
	d = spatial_dims(n, sp);
	for (int i = 0; i < sp; i++) {
		if (d[i].e && want_idx)
			return lower_fail(c, n, "indices need static spatial dims");
		plane *= d[i].v;
	}
	outs[0] = pool_dst(c, n, 0, cdt, unb);
	outs[1] = want_idx ? lower_tmp(c) : "";
	nd = lower_emit(c, row->onnx, 1, &x, want_idx ? 2 : 1, outs);
	if (lower_int(c, n, "ceil_mode", 0))
		onnx_attr_int(c->a, nd, "ceil_mode", 1);
	if (!nn_all_equal(sp, dil, 1))
		onnx_attr_ints(c->a, nd, "dilations", sp, dil);
	onnx_attr_ints(c->a, nd, "kernel_shape", sp, ks);
	onnx_attr_ints(c->a, nd, "pads", 2 * sp, pads);
	onnx_attr_ints(c->a, nd, "strides", sp, st);
	pool_output(c, n, 0, outs[0], cdt, unb);
	if (want_idx)
		pool_output(c, n, 1, lower_op(c, "Mod", pool_dst(c, n, 1, DT_INT64, unb), 2, outs[1], lower_i64(c, plane)),
		            DT_INT64, unb);
	return 0;
}

/* avg_pool1d(self, kernel_size, stride=[], padding=0, ceil_mode=False,
 * count_include_pad=True) and avg_pool2d/3d(..., divisor_override=None).
 * A divisor_override d gives the window sum over d: the average counting
 * padding, times the window size, when no window runs past the padding
 * (ceil_mode can make one). */
int
lower_avg_pool(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = nn_cdt(n, "self");
	int sp = row->sp, unb, ceil_mode = (int)lower_int(c, n, "ceil_mode", 0);
	int64_t ks[NN_MAXSP], st[NN_MAXSP], pads[2 * NN_MAXSP], cip = lower_int(c, n, "count_include_pad", 1);
	int64_t div = lower_int(c, n, "divisor_override", 0);
	const char *x, *y;
	OnnxNode *nd;

	if ((cdt = lower_widen(c, n, row->onnx, cdt)) == DT_UNKNOWN)   /* legalize.def */
		return DIAG_CONVERT;
	if (!(x = pool_input(c, n, sp, cdt, &unb)))
		return lower_fail(c, n, "needs an input with %d spatial dims", sp);
	if (pool_window(c, n, sp, ks, st, pads))
		return DIAG_CONVERT;
	if (div) {
		const Dim *d = spatial_dims(n, sp);
		const Value *ov = lower_out_tensor(c, n, 0);
		double size = 1;
		if (ov->rank < sp)
			return lower_fail(c, n, "its output has fewer than %d dims", sp);
		for (int i = 0; i < sp; i++) {
			const Dim *o = &ov->dims[ov->rank - sp + i];
			if (d[i].e || o->e || (o->v - 1) * st[i] - pads[i] + ks[i] > d[i].v + pads[i])
				return lower_fail(c, n, "divisor_override needs static sizes and no window past the padding");
			size *= (double)ks[i];
		}
		cip = 1;
		x = lower_op(c, "Mul", NULL, 2, x, lower_scalar(c, cdt, size / (double)div));
	}
	y = lower_op(c, row->onnx, pool_dst(c, n, 0, cdt, unb), 1, x);
	nd = c->last;
	if (ceil_mode)
		onnx_attr_int(c->a, nd, "ceil_mode", 1);
	onnx_attr_int(c->a, nd, "count_include_pad", cip);
	onnx_attr_ints(c->a, nd, "kernel_shape", sp, ks);
	onnx_attr_ints(c->a, nd, "pads", 2 * sp, pads);
	onnx_attr_ints(c->a, nd, "strides", sp, st);
	pool_output(c, n, 0, y, cdt, unb);
	return 0;
}

/* Window i of an adaptive pool from in to out. */
static int64_t win_start(int64_t i, int64_t in, int64_t out) { return i * in / out; }
static int64_t win_end(int64_t i, int64_t in, int64_t out) { return ((i + 1) * in + out - 1) / out; }

/* adaptive_avg_pool1d/2d/3d(self, output_size), _adaptive_avg_pool2d/3d and
 * adaptive_max_pool1d/2d/3d (whose indices are not supported): a global
 * pool for size 1, else the windows above. */
int
lower_adaptive_pool(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = nn_cdt(n, "self");
	int sp = row->sp, unb, k, is_max = row->variant == OPV_MAX;
	int64_t os[NN_MAXSP], ks[NN_MAXSP], st[NN_MAXSP], zeros[2 * NN_MAXSP] = {0};
	int uniform[NN_MAXSP], any_pool = 0, nslice = 0;
	const char *x = pool_input(c, n, sp, cdt, &unb);
	const Dim *d;

	if (!x)
		return lower_fail(c, n, "needs an input with %d spatial dims", sp);
	if (lower_nout(n) > 1 && lower_out_used(c, n, 1))
		return lower_fail(c, n, "the indices of an adaptive max pool are not supported");
	k = lower_ints(c, n, "output_size", os, NN_MAXSP);
	if (k == 1)
		for (int i = 1; i < sp; i++)
			os[i] = os[0];
	else if (k != sp)
		return lower_fail(c, n, "needs one output size per spatial dim");
	d = spatial_dims(n, sp);
	if (nn_all_equal(sp, os, 1)) {
		pool_output(c, n, 0, lower_op(c, is_max ? "GlobalMaxPool" : "GlobalAveragePool", pool_dst(c, n, 0, cdt, unb),
		                              1, x), cdt, unb);
		return 0;
	}
	for (int i = 0; i < sp; i++) {
		int64_t in = d[i].v, out = os[i];
		if (d[i].e || out <= 0)
			return lower_fail(c, n, "needs static spatial dims (output size %lld)", (long long)out);
		ks[i] = win_end(0, in, out) - win_start(0, in, out);
		st[i] = out > 1 ? win_start(1, in, out) : 1;
		uniform[i] = 1;
		for (int64_t j = 0; j < out; j++)
			if (win_start(j, in, out) != j * st[i] || win_end(j, in, out) - win_start(j, in, out) != ks[i])
				uniform[i] = 0;
		if (!uniform[i])
			ks[i] = st[i] = 1;
		any_pool |= uniform[i] && !(ks[i] == 1 && st[i] == 1);
		nslice += !uniform[i];
	}
	if (any_pool) {
		x = lower_op(c, is_max ? "MaxPool" : "AveragePool", nslice ? NULL : pool_dst(c, n, 0, cdt, unb), 1, x);
		onnx_attr_ints(c->a, c->last, "kernel_shape", sp, ks);
		onnx_attr_ints(c->a, c->last, "pads", 2 * sp, zeros);
		onnx_attr_ints(c->a, c->last, "strides", sp, st);
	}
	for (int i = 0; i < sp; i++) {
		int64_t axis = i + 2, in = d[i].v, out = os[i];
		const char **parts;
		if (uniform[i])
			continue;
		parts = ARENA_ARRAY(c->a, const char *, out);
		for (int64_t j = 0; j < out; j++) {
			const char *w = lower_op(c, "Slice", NULL, 4, x, lower_i64s(c, 1, (int64_t[]){win_start(j, in, out)}),
			                         lower_i64s(c, 1, (int64_t[]){win_end(j, in, out)}),
			                         lower_i64s(c, 1, &axis));
			parts[j] = lower_reduce(c, is_max ? "ReduceMax" : "ReduceMean", w, 1, &axis, 1, NULL);
		}
		{
			const char *y = --nslice ? lower_tmp(c) : pool_dst(c, n, 0, cdt, unb);
			lower_emit(c, "Concat", (int)out, parts, 1, &y);
			onnx_attr_int(c->a, c->last, "axis", axis);
			x = y;
		}
	}
	pool_output(c, n, 0, x, cdt, unb);
	return 0;
}
