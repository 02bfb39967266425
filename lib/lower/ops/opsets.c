/* opsets.c: lowerings of the ops that only the recent opsets can express
 * (opsets.def): view.dtype as BitCast (opset 26); and the TensorScatter
 * (opset 24) that slice_scatter and index_copy write a KV cache with.
 *
 * view.dtype is a view: when the viewed tensor is written in place, the
 * driver runs the lowering backwards (LowerCtx.update holds the view's new
 * contents) and the base gets them back through the inverse BitCast. */
#include "lower/lower.h"
#include "ops.h"
#include "opsets.h"

/* view.dtype(self, dtype): the same bits as dtype. */
int
lower_view_dtype(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self"), *ov = lower_out_tensor(c, n, 0);
	const Value *to = c->update ? sv : ov;  /* backwards: the view's bits as self's dtype */
	const char *x = c->update ? c->update : lower_input(c, n, "self");
	int sz = dtype_size(sv->dtype), oz = dtype_size(ov->dtype);

	if (!sz || !oz || !dtype_onnx(sv->dtype) || !dtype_onnx(ov->dtype))
		return lower_fail(c, n, "BitCast has no ONNX type for %s -> %s", dtype_name(sv->dtype),
		                  dtype_name(ov->dtype));
	if (sz != oz)
		return lower_fail(c, n, "%s (%d bytes) viewed as %s (%d bytes) changes the last dim; ONNX's "
		                  "BitCast keeps the element size (view as a dtype of the same size, then "
		                  "reshape)", dtype_name(sv->dtype), sz, dtype_name(ov->dtype), oz);
	if (sv->dtype == ov->dtype) {
		lower_op(c, "Identity", lower_out(c, n, 0), 1, x);
		return 0;
	}
	lower_op(c, row->onnx, lower_out(c, n, 0), 1, x);
	onnx_attr_int(c->a, c->last, "to", dtype_onnx(to->dtype));
	return 0;
}

int
opsets_can_tensor_scatter(const LowerCtx *c, const Value *sv, int64_t dim)
{
	return c->opset >= 24 && sv && sv->rank >= 2 && dim > 0 && dim < sv->rank;
}

void
opsets_tensor_scatter(LowerCtx *c, const Node *n, const Value *sv, const char *self, const char *upd,
                      int64_t dim, const char *start)
{
	const char *batch, *at;
	int64_t one = 1;

	/* write_indices: start for every batch row, shape (batch,) */
	if (!sv->dims[0].e) {
		batch = lower_i64s(c, 1, &sv->dims[0].v);
	} else {
		batch = lower_op(c, "Shape", NULL, 1, self);
		onnx_attr_int(c->a, c->last, "start", 0);
		onnx_attr_int(c->a, c->last, "end", 1);
	}
	at = lower_op(c, "Reshape", NULL, 2, start, lower_i64s(c, 1, &one));
	at = lower_op(c, "Expand", NULL, 2, at, batch);
	lower_op(c, "TensorScatter", lower_out(c, n, 0), 3, self, upd, at);
	onnx_attr_int(c->a, c->last, "axis", dim);
}
