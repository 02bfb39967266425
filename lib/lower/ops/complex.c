/* complex.c: the other families' ops on complex operands (complex.def:
 * add / mul / div, abs, cat / stack, sum / mean, permute, view, expand,
 * slice / select, constant_pad_nd, _to_copy, index_select), and the
 * helpers over (real, imag) pairs that signal.c's complex values and
 * transforms use too (complex.h).
 *
 * A complex tensor of IR rank r is an ONNX tensor of rank r + 1 whose last
 * dim (2) holds the real and imaginary parts, in the part's float type
 * (dtype_complex_part); value_info, graph inputs and outputs and weights
 * are typed that way by lib/lower.  Every IR dim keeps its index, so an
 * axis normalized against the IR rank addresses the same dim of the ONNX
 * tensor; only negative axes, whole shapes and permutations need the
 * trailing dim added.  Results are bound with lower_out(), never through
 * lower_result()/lower_finish(), which would cast to a complex ONNX type. */
#include <string.h>

#include "core/core.h"
#include "lower/lower.h"
#include "complex.h"

/* ---- complex values as (real, imag) pairs (complex.h) ---- */

int
cx_is(const Value *v)
{
	return v && v->kind == VAL_TENSOR && dtype_complex_part(v->dtype);
}

DType
cx_part_type(const Value *v)
{
	return cx_is(v) ? dtype_complex_part(v->dtype) : v->dtype;
}

const char *
cx_part(LowerCtx *c, const char *x, int k, const char *out)
{
	lower_op(c, "Gather", out, 2, x, lower_i64(c, k));
	onnx_attr_int(c->a, c->last, "axis", -1);
	return c->last->output[0];
}

const char *
cx_join(LowerCtx *c, const char *re, const char *im, const char *out)
{
	const char *in[2];
	int64_t last = -1;

	in[0] = lower_unsqueeze(c, re, 1, &last, NULL);
	in[1] = lower_unsqueeze(c, im, 1, &last, NULL);
	if (!out)
		out = lower_tmp(c);
	lower_emit(c, "Concat", 2, in, 1, &out);
	onnx_attr_int(c->a, c->last, "axis", -1);
	return out;
}

const char *
cx_from_real(LowerCtx *c, const char *x, int r)
{
	int64_t last = r, pads[2 * (MAXR + 1)] = {0};

	pads[2 * (r + 1) - 1] = 1;
	x = lower_unsqueeze(c, x, 1, &last, NULL);
	return lower_op(c, "Pad", NULL, 2, x, lower_i64s(c, 2 * (r + 1), pads));
}

const char *
cx_vec_const(LowerCtx *c, DType t, int k, const double *v)
{
	uint8_t *b = arena_alloc(c->a, (size_t)(k + 1) * 8);
	int64_t dim = k;

	for (int i = 0; i < k; i++)
		lower_encode(t, v[i], b + (size_t)i * (size_t)dtype_size(t));
	return lower_const(c, t, 1, &dim, b);
}

/* The ONNX value of tensor argument `name` as complex: a real one gets a
 * zero imaginary part; a python number is a 0-d constant (r = 0). */
static const char *
cx_operand(LowerCtx *c, const Node *n, const char *name, DType part)
{
	const Value *v = lower_arg_value(n, name);

	if (cx_is(v))
		return lower_input(c, n, name);
	if (v)
		return cx_from_real(c, lower_cast(c, lower_input(c, n, name), v->dtype, part), v->rank);
	{
		const Arg *a = lower_arg(n, name);
		double re = 0, im = 0;
		if (!a)
			return NULL;
		if (a->kind == ARG_COMPLEX) {
			re = a->u.c[0];
			im = a->u.c[1];
		} else {
			re = lower_float(c, n, name, 0);
		}
		return cx_vec_const(c, part, 2, (const double[]){re, im});
	}
}

/* 1 when a is a real tensor or a real python number. */
static int
real_operand(const Node *n, const char *name)
{
	const Value *v = lower_arg_value(n, name);
	const Arg *a = lower_arg(n, name);

	return v ? !cx_is(v) : a && a->kind != ARG_COMPLEX;
}

/* ---- complex.def: the other families' ops on complex operands ---- */

/* add / sub (alpha) / mul / div on complex operands, neg. A real operand
 * of mul and div scales both parts; otherwise the complex product and
 * quotient from the parts (the quotient as torch's naive form
 * (a conj(b)) / |b|^2, without Smith's scaling). */
int
lower_cx_binary(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *ov = lower_out_tensor(c, n, 0);
	DType part = dtype_complex_part(ov->dtype);
	const char *op = row->onnx, *a, *b, *out;

	if (!cx_is(ov))
		return lower_fail(c, n, "a complex operand with a real result is not supported");
	if (strcmp(op, "Neg") == 0) {
		lower_op(c, "Neg", lower_out(c, n, 0), 1, lower_input(c, n, "self"));
		return 0;
	}
	if (strcmp(op, "Mul") == 0 || strcmp(op, "Div") == 0) {
		const char *lo = lower_arg(n, "other") ? "other" : NULL;
		if (lo && real_operand(n, "other")) {
			const Value *v = lower_arg_value(n, "other");
			b = lower_operand(c, n, "other", part);
			if (v)                          /* per element: a trailing dim to broadcast */
				b = lower_unsqueeze(c, b, 1, (int64_t[]){v->rank}, NULL);
			lower_op(c, op, lower_out(c, n, 0), 2, lower_input(c, n, "self"), b);
			return 0;
		}
		if (strcmp(op, "Mul") == 0 && real_operand(n, "self")) {
			const Value *v = lower_arg_value(n, "self");
			a = lower_operand(c, n, "self", part);
			if (v)
				a = lower_unsqueeze(c, a, 1, (int64_t[]){v->rank}, NULL);
			lower_op(c, op, lower_out(c, n, 0), 2, a, lower_input(c, n, "other"));
			return 0;
		}
	}
	a = cx_operand(c, n, "self", part);
	b = cx_operand(c, n, "other", part);
	if (!a || !b)
		return lower_fail(c, n, "needs 'self' and 'other'");
	if (strcmp(op, "Add") == 0 || strcmp(op, "Sub") == 0) {
		if (lower_arg(n, "alpha"))
			b = lower_op(c, "Mul", NULL, 2, b, lower_scalar(c, part, lower_float(c, n, "alpha", 1)));
		lower_op(c, op, lower_out(c, n, 0), 2, a, b);
		return 0;
	}
	if (strcmp(op, "Mul") != 0 && strcmp(op, "Div") != 0)
		return lower_fail(c, n, "%s on complex operands is not supported", op);
	{
		const char *ar = cx_part(c, a, 0, NULL), *ai = cx_part(c, a, 1, NULL);
		const char *br = cx_part(c, b, 0, NULL), *bi = cx_part(c, b, 1, NULL), *re, *im;
		if (strcmp(op, "Div") == 0) {       /* a / b = a conj(b) / |b|^2 */
			const char *d = lower_op(c, "Add", NULL, 2, lower_op(c, "Mul", NULL, 2, br, br),
			                         lower_op(c, "Mul", NULL, 2, bi, bi));
			re = lower_op(c, "Add", NULL, 2, lower_op(c, "Mul", NULL, 2, ar, br), lower_op(c, "Mul", NULL, 2, ai, bi));
			im = lower_op(c, "Sub", NULL, 2, lower_op(c, "Mul", NULL, 2, ai, br), lower_op(c, "Mul", NULL, 2, ar, bi));
			re = lower_op(c, "Div", NULL, 2, re, d);
			im = lower_op(c, "Div", NULL, 2, im, d);
		} else {
			re = lower_op(c, "Sub", NULL, 2, lower_op(c, "Mul", NULL, 2, ar, br), lower_op(c, "Mul", NULL, 2, ai, bi));
			im = lower_op(c, "Add", NULL, 2, lower_op(c, "Mul", NULL, 2, ar, bi), lower_op(c, "Mul", NULL, 2, ai, br));
		}
		out = lower_out(c, n, 0);
		cx_join(c, re, im, out);
	}
	return 0;
}

/* abs(self) of a complex self: sqrt(re^2 + im^2), a real result. */
int
lower_cx_abs(LowerCtx *c, const Node *n, const OpRow *row)
{
	const char *x = lower_input(c, n, "self");
	const char *sq = lower_op(c, "Mul", NULL, 2, x, x);

	(void)row;
	lower_op(c, "Sqrt", lower_out(c, n, 0), 1, lower_reduce(c, "ReduceSum", sq, 1, (int64_t[]){-1}, 0, NULL));
	return 0;
}

/* cat(tensors, dim) and (stack) stack(tensors, dim) of complex tensors,
 * real ones given a zero imaginary part; dim against the IR rank. */
static int
cx_concat(LowerCtx *c, const Node *n, int stack)
{
	const Arg *ts = lower_arg(n, "tensors");
	const Value *ov = lower_out_tensor(c, n, 0);
	int64_t dim = lower_axis(lower_int(c, n, "dim", 0), ov->rank);
	DType part = cx_part_type(ov);
	const char **in, *out;
	int k = 0;

	if (!ts || ts->kind != ARG_TENSORS || !cx_is(ov))
		return lower_fail(c, n, "needs a list of tensors and a complex result");
	in = ARENA_ARRAY(c->a, const char *, ts->n + 1);
	for (int i = 0; i < ts->n; i++) {
		const Value *v = ts->u.list[i].u.v;
		const char *x = lower_value(c, v);
		if (!stack && v->rank == 1 && !v->dims[0].e && v->dims[0].v == 0 && ov->rank != 1)
			continue;
		if (!cx_is(v))
			x = cx_from_real(c, lower_cast(c, x, v->dtype, part), v->rank);
		else
			x = lower_cast(c, x, cx_part_type(v), part);
		in[k++] = stack ? lower_unsqueeze(c, x, 1, &dim, NULL) : x;
	}
	out = lower_out(c, n, 0);
	lower_emit(c, "Concat", k, in, 1, &out);
	onnx_attr_int(c->a, c->last, "axis", dim);
	return 0;
}

int
lower_cx_cat(LowerCtx *c, const Node *n, const OpRow *row)
{
	(void)row;
	return cx_concat(c, n, 0);
}

int
lower_cx_stack(LowerCtx *c, const Node *n, const OpRow *row)
{
	(void)row;
	return cx_concat(c, n, 1);
}

/* sum.dim_IntList / mean.dim(self, dim, keepdim=False, dtype=None) of a
 * complex self: each part reduced over the IR dims (all of them, not the
 * parts' dim, for an empty or absent dim). */
int
lower_cx_reduce(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	int64_t axes[MAXR];
	int k = lower_ints(c, n, "dim", axes, MAXR);
	const char *op = row->onnx;             /* ReduceSum, ReduceMean */

	if (lower_arg(n, "dtype") && lower_arg(n, "dtype")->kind != ARG_NONE)
		return lower_fail(c, n, "a dtype for a complex reduction is not supported");
	if (k <= 0)
		for (k = 0; k < sv->rank; k++)
			axes[k] = k;
	for (int i = 0; i < k; i++)
		axes[i] = lower_axis(axes[i], sv->rank);
	if (k == 0) {
		lower_bind(c, n, 0, lower_input(c, n, "self"));
		return 0;
	}
	lower_reduce(c, op, lower_input(c, n, "self"), k, axes, (int)lower_int(c, n, "keepdim", 0), lower_out(c, n, 0));
	return 0;
}

/* permute(self, dims) / transpose.int(self, dim0, dim1) of a complex self:
 * the parts' dim stays last. */
int
lower_cx_permute(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	int64_t perm[MAXR + 1], inv[MAXR + 1];
	int r = sv->rank;

	(void)row;
	if (r > MAXR)
		return lower_fail(c, n, "rank above %d", MAXR);
	if (lower_arg(n, "dims")) {
		if (lower_ints(c, n, "dims", perm, MAXR) != r)
			return lower_fail(c, n, "'dims' does not match the rank");
	} else {
		int64_t a = lower_axis(lower_int(c, n, "dim0", 0), r), b = lower_axis(lower_int(c, n, "dim1", 0), r);
		for (int i = 0; i < r; i++)
			perm[i] = i;
		if (a < 0 || a >= r || b < 0 || b >= r)
			return lower_fail(c, n, "dim out of range");
		perm[a] = b;
		perm[b] = a;
	}
	for (int i = 0; i < r; i++) {
		perm[i] = lower_axis(perm[i], r);
		if (perm[i] < 0 || perm[i] >= r)
			return lower_fail(c, n, "dim out of range");
		inv[perm[i]] = i;
	}
	perm[r] = inv[r] = r;
	lower_op(c, "Transpose", lower_out(c, n, 0), 1, c->update ? c->update : lower_input(c, n, "self"));
	onnx_attr_ints(c->a, c->last, "perm", r + 1, c->update ? inv : perm);
	return 0;
}

/* The shape of v with the parts' dim: a constant when static, else v's
 * ONNX shape (which has it). */
static const char *
cx_shape(LowerCtx *c, const Value *v, const char *x)
{
	int64_t dims[MAXR + 1];

	if (!lower_static(v) || v->rank > MAXR)
		return lower_op(c, "Shape", NULL, 1, x);
	for (int i = 0; i < v->rank; i++)
		dims[i] = v->dims[i].v;
	dims[v->rank] = 2;
	return lower_i64s(c, v->rank + 1, dims);
}

/* view / reshape / _unsafe_view of a complex self: the result's shape
 * with the parts' dim (static result shapes only). */
int
lower_cx_view(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self"), *ov = lower_out_tensor(c, n, 0);

	(void)row;
	if (c->update) {
		lower_op(c, "Reshape", lower_out(c, n, 0), 2, c->update, cx_shape(c, sv, lower_input(c, n, "self")));
		return 0;
	}
	if (!lower_static(ov))
		return lower_fail(c, n, "reshaping a complex tensor needs a static result shape");
	lower_op(c, "Reshape", lower_out(c, n, 0), 2, lower_input(c, n, "self"), cx_shape(c, ov, NULL));
	return 0;
}

/* expand(self, size) / expand_as(self, other) of a complex self: to the
 * result's shape with the parts' dim (Expand aligns shapes from the right,
 * so the IR shape alone would broadcast the parts' dim). */
int
lower_cx_expand(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *ov = lower_out_tensor(c, n, 0);

	(void)row;
	if (c->update)
		return lower_fail(c, n, "writing into an expanded tensor is not supported");
	if (!lower_static(ov))
		return lower_fail(c, n, "expanding a complex tensor needs a static result shape");
	lower_op(c, "Expand", lower_out(c, n, 0), 2, lower_input(c, n, "self"), cx_shape(c, ov, NULL));
	return 0;
}

/* slice.Tensor / select.int of a complex self: the ops' own lowerings (dim
 * normalized against the IR rank), but not written through. */
int
lower_cx_slice(LowerCtx *c, const Node *n, const OpRow *row)
{
	if (c->update)
		return lower_fail(c, n, "writing through a view of a complex tensor is not supported");
	return lower_slice(c, n, row);
}

int
lower_cx_select(LowerCtx *c, const Node *n, const OpRow *row)
{
	if (c->update)
		return lower_fail(c, n, "writing through a view of a complex tensor is not supported");
	return lower_select(c, n, row);
}

/* constant_pad_nd(self, pad, value=0) of a complex self: torch's (begin,
 * end) pairs from the last IR dim backwards, none on the parts' dim; the
 * padding value is real (its imaginary part is 0). */
int
lower_cx_pad(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");
	int64_t pad[2 * MAXR], pads[2 * (MAXR + 1)] = {0};
	int k = lower_ints(c, n, "pad", pad, 2 * MAXR), r = sv->rank;
	double value = lower_float(c, n, "value", 0);
	const char *x = lower_input(c, n, "self");

	(void)row;
	if (k < 0 || k % 2 || k / 2 > r)
		return lower_fail(c, n, "bad 'pad'");
	for (int i = 0; i < k / 2; i++) {
		int64_t d = r - 1 - i;
		if (pad[2 * i] < 0 || pad[2 * i + 1] < 0)
			return lower_fail(c, n, "negative padding of a complex tensor is not supported");
		pads[d] = pad[2 * i];
		pads[r + 1 + d] = pad[2 * i + 1];
	}
	if (value == 0) {
		lower_op(c, "Pad", lower_out(c, n, 0), 2, x, lower_i64s(c, 2 * (r + 1), pads));
		return 0;
	}
	{       /* each part padded with its own value */
		DType part = cx_part_type(sv);
		int64_t pp[2 * MAXR] = {0};
		for (int i = 0; i < r; i++) {
			pp[i] = pads[i];
			pp[r + i] = pads[r + 1 + i];
		}
		const char *re = lower_op(c, "Pad", NULL, 3, cx_part(c, x, 0, NULL), lower_i64s(c, 2 * r, pp),
		                          lower_scalar(c, part, value));
		const char *im = lower_op(c, "Pad", NULL, 2, cx_part(c, x, 1, NULL), lower_i64s(c, 2 * r, pp));
		cx_join(c, re, im, lower_out(c, n, 0));
	}
	return 0;
}

/* _to_copy(self, dtype=...) to or from a complex dtype: a real self gets a
 * zero imaginary part, a complex one changes its parts' type; to a real
 * dtype torch keeps the real part (with a warning). */
int
lower_cx_to_copy(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self"), *ov = lower_out_tensor(c, n, 0);
	const char *x = lower_input(c, n, "self");

	(void)row;
	if (dtype_complex_part(ov->dtype) == DT_FLOAT16 || dtype_complex_part(sv->dtype) == DT_FLOAT16)
		return lower_fail(c, n, "complex32 is not supported");
	if (!cx_is(ov)) {
		lower_finish_typed(c, n, 0, cx_part(c, x, 0, NULL), cx_part_type(sv));
		return 0;
	}
	if (!cx_is(sv))
		x = cx_from_real(c, lower_cast(c, x, sv->dtype, cx_part_type(ov)), sv->rank);
	else
		x = lower_cast(c, x, cx_part_type(sv), cx_part_type(ov));
	lower_op(c, "Identity", lower_out(c, n, 0), 1, x);
	return 0;
}

/* index_select(self, dim, index) of a complex self: Gather along dim
 * against the IR rank (a negative dim would name the parts' dim). */
int
lower_cx_index_select(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *sv = lower_tensor_arg(c, n, "self");

	(void)row;
	lower_op(c, "Gather", lower_out(c, n, 0), 2, lower_input(c, n, "self"), lower_input(c, n, "index"));
	onnx_attr_int(c->a, c->last, "axis", lower_axis(lower_int(c, n, "dim", 0), sv->rank ? sv->rank : 1));
	return 0;
}

