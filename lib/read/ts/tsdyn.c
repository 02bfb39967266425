/* tsdyn.c: the types of TorchScript's data-dependent calls (nonzero,
 * argwhere, masked_select, _unique2, unique_dim, unique_consecutive, and
 * index.Tensor with a boolean mask), whose result sizes depend on the
 * values: each such size is a fresh unbacked symbol (u0, u1, ...), as
 * torch.export writes them in a .pt2, so the rest of the graph types with
 * it and the ONNX dims are named unbacked_K.  The sizes torch's own meta
 * functions give (aten/src/ATen/native and torch/_meta_registrations.py):
 *
 *   nonzero(self), argwhere(self)    int64 [u, rank(self)]
 *   masked_select(self, mask)        self's dtype [u]
 *   _unique2(self, sorted, inv, cnt)  values [u]; inverse self's shape
 *                                    (inv) or [0]; counts [u] (cnt) or [0]
 *   unique_dim(self, dim, ...)       values: self with dim d of size u;
 *                                    inverse [self.size(d)] or [0]; counts
 *   unique_consecutive(self, inv, cnt, dim)  as _unique2 without dim, as
 *                                    unique_dim with one
 *   index.Tensor(self, [None.., mask, None..])  the m mask dims (from list
 *                                    position p) become one dim of size u
 *
 * One symbol stands for one count: the values and counts of a unique
 * share it.  The reader asks this file before the op's typing.
 *
 * Also the nested tensors of nn.TransformerEncoder's fast path
 * (lib/lower/ops/fastpath.def), which the reader keeps dense:
 * _nested_tensor_from_mask and to_padded_tensor give their input's type
 * (torch's own result is a nested tensor, which no typing rule can say).
 * The fused layers themselves (_transformer_encoder_layer_fwd,
 * _native_multi_head_attention) are typed by their meta.def rows.
 * Anything else is not ours (-1: the op's own typing says why). */
#include <string.h>

#include "internal.h"

/* A fresh unbacked size symbol. */
static Dim
unbacked(Build *b)
{
	SymExpr *e = ARENA_NEW(b->a, SymExpr);
	Dim d = {-1, e};

	e->op = SYM_SYMBOL;
	e->name = tb_fresh_name(b, "u0");
	return d;
}

static void
tensor_out(Build *b, Value *o, DType dt, int rank, const Dim *dims)
{
	memset(o, 0, sizeof *o);
	o->kind = VAL_TENSOR;
	o->dtype = dt;
	o->rank = rank;
	o->dims = ARENA_ARRAY(b->a, Dim, rank + 1);
	if (rank)
		memcpy(o->dims, dims, sizeof *dims * (size_t)rank);
}

static const Value *
tensor_in(const Node *n, const char *name)
{
	const Arg *a = ir_arg(n, name);

	return a && (a->kind == ARG_TENSOR || a->kind == ARG_OPT_TENSOR) ? a->u.v : NULL;
}

/* The bool argument name of n (absent or None: dflt). */
static int
flag(const Node *n, const char *name, int dflt)
{
	const Arg *a = ir_arg(n, name);

	return a && (a->kind == ARG_BOOL || a->kind == ARG_INT) ? a->u.i != 0 : dflt;
}

/* values, inverse, counts of a unique over self (axis < 0: flattened). */
static int
unique_outs(Build *b, const Node *n, const Value *x, int axis, Value *outs)
{
	Dim u = unbacked(b), zero = {0, NULL}, d[MAX_RANK];
	int inv = flag(n, "return_inverse", 0), cnt = flag(n, "return_counts", 0);

	if (x->rank > MAX_RANK)
		return -1;
	if (axis < 0) {
		tensor_out(b, &outs[0], x->dtype, 1, &u);
		if (inv)
			tensor_out(b, &outs[1], DT_INT64, x->rank, x->dims);
		else
			tensor_out(b, &outs[1], DT_INT64, 1, &zero);
	} else {
		memcpy(d, x->dims, sizeof *d * (size_t)x->rank);
		d[axis] = u;
		tensor_out(b, &outs[0], x->dtype, x->rank, d);
		tensor_out(b, &outs[1], DT_INT64, 1, inv ? &x->dims[axis] : &zero);
	}
	tensor_out(b, &outs[2], DT_INT64, 1, cnt ? &u : &zero);
	return 3;
}

/* The axis of a `dim` argument of x: -1 when absent or None, -2 when out
 * of range. */
static int
dim_of(const Node *n, const Value *x)
{
	const Arg *a = ir_arg(n, "dim");
	int64_t d;

	if (!a || a->kind == ARG_NONE)
		return -1;
	if (a->kind != ARG_INT)
		return -2;
	d = a->u.i < 0 ? a->u.i + (x->rank ? x->rank : 1) : a->u.i;
	return d >= 0 && d < (x->rank ? x->rank : 1) ? (int)d : -2;
}

/* index.Tensor(self, indices) with one bool mask among Nones. */
static int
mask_index(Build *b, const Node *n, const Value *x, Value *outs)
{
	const Arg *ix = ir_arg(n, "indices");
	const Value *m = NULL;
	Dim d[MAX_RANK];
	int p = -1, r = 0;

	if (!ix || (ix->kind != ARG_TENSORS && ix->kind != ARG_OPT_TENSORS))
		return -1;
	for (int i = 0; i < ix->n; i++) {
		const Arg *it = &ix->u.list[i];
		if (it->kind == ARG_NONE)
			continue;
		if (it->kind != ARG_TENSOR || it->u.v->dtype != DT_BOOL || m)
			return -1;
		m = it->u.v, p = i;
	}
	if (!m || p + m->rank > x->rank || x->rank > MAX_RANK)
		return -1;
	for (int i = 0; i < p; i++)
		d[r++] = x->dims[i];
	d[r++] = unbacked(b);
	for (int i = p + m->rank; i < x->rank; i++)
		d[r++] = x->dims[i];
	tensor_out(b, &outs[0], x->dtype, r, d);
	return 1;
}

/* The nested-tensor pair of the encoder's fast path, kept dense (see the
 * top). */
static int
nested(const Node *n, Build *b, Value *outs)
{
	const Value *x = tensor_in(n, strcmp(n->op, "aten._nested_tensor_from_mask.default") == 0 ? "t" : "self");

	if (!x)
		return -1;
	tensor_out(b, &outs[0], x->dtype, x->rank, x->dims);
	return 1;
}

int
tb_datadep_outputs(Build *b, const Node *n, Value *outs, int max)
{
	const Value *x = tensor_in(n, "self");
	const char *op = n->op;
	Dim d[2];
	int axis;

	if (max < 3)
		return -1;
	if (strcmp(op, "aten._nested_tensor_from_mask.default") == 0 || strcmp(op, "aten.to_padded_tensor.default") == 0)
		return nested(n, b, outs);
	if (!x)
		return -1;
	if (strcmp(op, "aten.nonzero.default") == 0 || strcmp(op, "aten.argwhere.default") == 0) {
		d[0] = unbacked(b);
		d[1] = (Dim){x->rank, NULL};
		tensor_out(b, &outs[0], DT_INT64, 2, d);
		return 1;
	}
	if (strcmp(op, "aten.masked_select.default") == 0) {
		if (!tensor_in(n, "mask"))
			return -1;
		d[0] = unbacked(b);
		tensor_out(b, &outs[0], x->dtype, 1, d);
		return 1;
	}
	if (strcmp(op, "aten._unique2.default") == 0)
		return unique_outs(b, n, x, -1, outs);
	if (strcmp(op, "aten.unique_dim.default") == 0 || strcmp(op, "aten.unique_consecutive.default") == 0) {
		axis = dim_of(n, x);
		if (axis == -2 || (axis >= 0 && x->rank == 0))
			return -1;
		if (axis == -1 && strcmp(op, "aten.unique_dim.default") == 0)
			return -1;
		return unique_outs(b, n, x, axis, outs);
	}
	if (strcmp(op, "aten.index.Tensor") == 0)
		return mask_index(b, n, x, outs);
	return -1;
}
