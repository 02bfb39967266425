/* ctx.c: what lowerings call on a LowerCtx (see lower.h): fresh
 * names, node emission, constants, constant arguments, casts and the
 * opset-dependent forms of Squeeze/Unsqueeze/Reduce*.
 *
 * Constants are initializers; those of at most SMALL_CONST bytes are
 * deduplicated by content, so a model asks for "the int64 1" many times
 * but holds it once. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"
#include "core/core.h"

#define SMALL_CONST 64

/* ---- names ---- */

/* base if free, else base__1, base__2, ...; marks the result taken. */
static const char *
fresh_in(Arena *a, StrMap *m, const char *base, int always_suffix)
{
	const char *name = base;

	for (int k = 1; always_suffix || strmap_get(m, name); k++) {
		name = arena_printf(a, "%s__%d", base, k);
		always_suffix = 0;
	}
	strmap_put(m, name, (void *)name);
	return name;
}

const char *
lower_tmp(LowerCtx *c)
{
	return fresh_in(c->a, c->names, c->node ? c->node->name : "tmp", 1);
}

const char *
lower_name(LowerCtx *c, const char *base)
{
	return fresh_in(c->a, c->names, base, 0);
}





int
lower_out_used(LowerCtx *c, const Node *n, int k)
{
	const Value *v = lower_out_value(n, k);

	return v && c->uses[v->id] > 0;
}

/* Records name's type from IR value v in value_info. */
static void
record_type(LowerCtx *c, const char *name, const Value *v)
{
	int elem, rank = 0;
	int64_t *dims = NULL;
	const char **params = NULL;

	switch (v->kind) {
	case VAL_TENSOR:
		elem = dtype_onnx(v->dtype);
		rank = v->rank;
		dims = ARENA_ARRAY(c->a, int64_t, rank + 2);
		params = ARENA_ARRAY(c->a, const char *, rank + 2);
		for (int i = 0; i < rank; i++) {
			dims[i] = v->dims[i].e ? -1 : v->dims[i].v;
			params[i] = v->dims[i].e ? lower_dim_param(c, v->dims[i].e) : NULL;
		}
		if (dtype_complex_part(v->dtype)) {     /* (real, imag) as a trailing dim */
			elem = dtype_onnx(dtype_complex_part(v->dtype));
			dims[rank++] = 2;
		}
		break;
	case VAL_SYM_INT: elem = ONNX_INT64; break;
	case VAL_SYM_BOOL: elem = ONNX_BOOL; break;
	case VAL_SYM_FLOAT: elem = ONNX_DOUBLE; break;
	default: return;
	}
	if (!elem)
		return;
	onnx_vec_push(c->a, &c->g.value_info, onnx_value_info(c->a, name, elem, rank, dims, params));
	strmap_put(c->vinfo, name, (void *)(intptr_t)c->g.value_info.n);
}

const char *
lower_out(LowerCtx *c, const Node *n, int k)
{
	const Value *v = lower_out_value(n, k);
	const char *name;

	if (c->update) {
		/* a view run backwards: the result is the new contents of self */
		const Value *self = lower_arg_value(n, "self");
		name = fresh_in(c->a, c->names, self->name, 1);
		record_type(c, name, self);
		c->out[0] = name;
		return name;
	}
	if (!v)
		return "";
	if (strmap_get(c->names, v->name) == (void *)v) {
		/* reserved for this value, a graph output (scope.c) */
		name = v->name;
		strmap_put(c->names, name, (void *)name);
	} else {
		name = fresh_in(c->a, c->names, v->name, 0);
	}
	record_type(c, name, v);
	c->out[k] = name;
	return name;
}

void
lower_bind(LowerCtx *c, const Node *n, int k, const char *name)
{
	(void)n;
	c->out[c->update ? 0 : k] = name;
}



const char *
lower_input(LowerCtx *c, const Node *n, const char *name)
{
	const Value *v = lower_arg_value(n, name);

	return v ? lower_value(c, v) : NULL;
}

int64_t
lower_int(LowerCtx *c, const Node *n, const char *name, int64_t def)
{
	const Arg *g = ir_arg(n, name);

	if (!g || g->kind == ARG_NONE)
		return def;
	if (g->kind == ARG_INT || g->kind == ARG_BOOL || g->kind == ARG_SCALAR_TYPE ||
	    g->kind == ARG_MEMORY_FORMAT || g->kind == ARG_LAYOUT)
		return g->u.i;
	if (g->kind == ARG_FLOAT && g->u.f == floor(g->u.f))
		return (int64_t)g->u.f;
	c->bad_arg = name;
	return def;
}

double
lower_float(LowerCtx *c, const Node *n, const char *name, double def)
{
	const Arg *g = ir_arg(n, name);

	if (!g || g->kind == ARG_NONE)
		return def;
	if (g->kind == ARG_FLOAT)
		return g->u.f;
	if (g->kind == ARG_INT || g->kind == ARG_BOOL)
		return (double)g->u.i;
	c->bad_arg = name;
	return def;
}

const char *
lower_str(LowerCtx *c, const Node *n, const char *name, const char *def)
{
	const Arg *g = ir_arg(n, name);

	if (!g || g->kind == ARG_NONE)
		return def;
	if (g->kind == ARG_STRING)
		return g->u.s;
	c->bad_arg = name;
	return def;
}

int
lower_ints(LowerCtx *c, const Node *n, const char *name, int64_t *buf, int max)
{
	const Arg *g = ir_arg(n, name);

	if (!g || g->kind == ARG_NONE)
		return -1;
	if (g->kind == ARG_INT) {          /* int[1] given as a plain int */
		buf[0] = g->u.i;
		return 1;
	}
	if ((g->kind != ARG_INTS && g->kind != ARG_SYM_INTS) || g->n > max) {
		c->bad_arg = name;
		return -1;
	}
	for (int i = 0; i < g->n; i++) {
		if (g->u.list[i].kind != ARG_INT) {
			c->bad_arg = name;
			return -1;
		}
		buf[i] = g->u.list[i].u.i;
	}
	return g->n;
}

/* ---- nodes ---- */

OnnxNode *
lower_emit(LowerCtx *c, const char *op, int nin, const char *const *in, int nout, const char *const *out)
{
	const char *base = c->node ? c->node->name : op;
	const char *name = fresh_in(c->a, c->node_names, base, 0);
	OnnxNode *nd = onnx_node(c->a, op, name, nin, in, nout, out);

	/* trailing omitted optional inputs are dropped */
	while (nd->n_input && !nd->input[nd->n_input - 1][0])
		nd->n_input--;
	onnx_vec_push(c->a, &c->g.nodes, nd);
	for (int i = 0; i < nout; i++)
		if (out[i][0])
			strmap_put(c->producer, out[i], nd);
	c->last = nd;
	return nd;
}

const char *
lower_op(LowerCtx *c, const char *op, const char *out, int nin, ...)
{
	const char *in[16];
	va_list ap;

	if (nin > 16)
		die("lower_op: %d inputs", nin);
	va_start(ap, nin);
	for (int i = 0; i < nin; i++) {
		in[i] = va_arg(ap, const char *);
		if (!in[i])
			in[i] = "";
	}
	va_end(ap);
	if (!out)
		out = lower_tmp(c);
	lower_emit(c, op, nin, in, 1, &out);
	return out;
}

/* ---- constants ---- */

int
lower_encode(DType t, double v, void *out)
{
	DTypeKind k = dtype_kind(t);

	if (k != DK_FLOAT && k != DK_INT && k != DK_BOOL)
		return -1;      /* complex, float8, unknown: no scalar form (callers' buffers hold 8 bytes) */
	return dtype_encode_f64(t, out, v);
}

const char *
lower_const(LowerCtx *c, DType t, int rank, const int64_t *dims, const void *data)
{
	int64_t numel = 1;
	size_t nbytes;
	char *key = NULL;
	const char *name;

	for (int i = 0; i < rank; i++)
		numel *= dims[i];
	nbytes = (size_t)numel * (size_t)dtype_size(t);
	if (nbytes <= SMALL_CONST) {
		size_t len = 0;
		key = arena_alloc(c->a, 64 + 24 * (size_t)rank + 2 * nbytes);
		len += (size_t)sprintf(key, "%d:%d:", (int)t, rank);
		for (int i = 0; i < rank; i++)
			len += (size_t)sprintf(key + len, "%lld,", (long long)dims[i]);
		for (size_t i = 0; i < nbytes; i++)
			len += (size_t)sprintf(key + len, "%02x", ((const uint8_t *)data)[i]);
		if ((name = strmap_get(c->consts, key)))
			return name;
	}
	name = fresh_in(c->a, c->names, arena_printf(c->a, "const_%d", c->nconst++), 0);
	onnx_vec_push(c->a, &c->g.inits, onnx_tensor(c->a, name, dtype_onnx(t), rank, dims,
	                                             arena_dup(c->a, data, nbytes), nbytes));
	if (key)
		strmap_put(c->consts, key, (void *)name);
	return name;
}

const char *
lower_i64s(LowerCtx *c, int k, const int64_t *v)
{
	int64_t dim = k;

	return lower_const(c, DT_INT64, 1, &dim, v);
}

const char *
lower_i64(LowerCtx *c, int64_t v)
{
	return lower_const(c, DT_INT64, 0, NULL, &v);
}

const char *
lower_scalar(LowerCtx *c, DType t, double v)
{
	uint8_t b[16];

	if (lower_encode(t, v, b) && c->node)   /* the node fails: lower_node() sees the message */
		lower_fail(c, c->node, "no constant of dtype %s", dtype_name(t));
	return lower_const(c, t, 0, NULL, b);
}

/* ---- dtypes ---- */

const char *
lower_cast(LowerCtx *c, const char *x, DType from, DType to)
{
	if (from == to)
		return x;
	lower_op(c, "Cast", NULL, 1, x);
	onnx_attr_int(c->a, c->last, "to", dtype_onnx(to));
	return c->last->output[0];
}

DType
lower_arg_dtype(const Node *n, const char *name, int *is_scalar)
{
	const Arg *g = ir_arg(n, name);

	*is_scalar = 1;
	if (!g)
		return DT_UNKNOWN;
	switch (g->kind) {
	case ARG_TENSOR: case ARG_OPT_TENSOR:
		*is_scalar = g->u.v->rank == 0;
		return g->u.v->dtype;
	case ARG_INT: case ARG_SYM_INT: return DT_INT64;
	case ARG_FLOAT: case ARG_SYM_FLOAT: return DT_FLOAT32;
	case ARG_BOOL: case ARG_SYM_BOOL: return DT_BOOL;
	default: return DT_UNKNOWN;
	}
}

static int
category(DType t)
{
	return t == DT_BOOL ? 0 : dtype_is_float(t) ? 2 : 1;
}

DType
lower_promote(DType a, int a_scalar, DType b, int b_scalar)
{
	if (a == b || b == DT_UNKNOWN)
		return a;
	if (a == DT_UNKNOWN)
		return b;
	if (category(a) != category(b))
		return category(a) > category(b) ? a : b;
	/* same category: a wrapped number defers to a real tensor */
	if (a_scalar != b_scalar)
		return a_scalar ? b : a;
	if ((a == DT_FLOAT16 && b == DT_BFLOAT16) || (a == DT_BFLOAT16 && b == DT_FLOAT16))
		return DT_FLOAT32;
	return dtype_size(a) >= dtype_size(b) ? a : b;
}

const char *
lower_operand(LowerCtx *c, const Node *n, const char *name, DType t)
{
	const Arg *g = ir_arg(n, name);

	if (!g || g->kind == ARG_NONE)
		return NULL;
	switch (g->kind) {
	case ARG_INT: case ARG_BOOL:
		return lower_scalar(c, t, (double)g->u.i);
	case ARG_FLOAT:
		return lower_scalar(c, t, g->u.f);
	case ARG_TENSOR: case ARG_OPT_TENSOR:
		return lower_cast(c, lower_value(c, g->u.v), g->u.v->dtype, t);
	case ARG_SYM_INT: case ARG_SYM_BOOL: case ARG_SYM_FLOAT: {
		DType from = g->kind == ARG_SYM_INT ? DT_INT64 : g->kind == ARG_SYM_BOOL ? DT_BOOL : DT_FLOAT64;
		return lower_cast(c, lower_value(c, g->u.v), from, t);
	}
	default:
		c->bad_arg = name;
		return lower_scalar(c, t, 0);
	}
}

DType
lower_compute(DType t)
{
	return t == DT_FLOAT16 || t == DT_BFLOAT16 ? DT_FLOAT32 : t;
}

const char *
lower_finish(LowerCtx *c, const Node *n, int k, const char *x, DType from)
{
	const Value *v = lower_out_value(n, k);
	DType to = c->update ? lower_arg_value(n, "self")->dtype : v ? v->dtype : from;
	const char *out;

	if (!x) {               /* an operand a malformed node lacks (lower_tensor_arg said so) */
		lower_fail(c, n, "output %d has no value", k);
		return NULL;
	}
	if (from == to) {
		lower_bind(c, n, k, x);
		return x;
	}
	out = lower_out(c, n, k);
	lower_op(c, "Cast", out, 1, x);
	onnx_attr_int(c->a, c->last, "to", dtype_onnx(to));
	return out;
}

OnnxNode *
lower_result(LowerCtx *c, const Node *n, const char *op, DType cdt, int nin, ...)
{
	const char *in[16], *out;
	const Value *v = lower_out_value(n, 0);
	DType odt = v ? v->dtype : cdt;
	OnnxNode *nd;
	va_list ap;

	if (nin > 16)
		die("lower_result: %d inputs", nin);
	va_start(ap, nin);
	for (int i = 0; i < nin; i++) {
		in[i] = va_arg(ap, const char *);
		if (!in[i])
			in[i] = "";
	}
	va_end(ap);
	out = odt == cdt ? lower_out(c, n, 0) : lower_tmp(c);
	nd = lower_emit(c, op, nin, in, 1, &out);
	if (odt != cdt)
		lower_finish(c, n, 0, out, cdt);
	c->last = nd;
	return nd;
}

OnnxNode *
lower_results(LowerCtx *c, const Node *n, const char *op, DType cdt,
              int nin, const char *const *in, int nout)
{
	const char **out = ARENA_ARRAY(c->a, const char *, nout + 1);
	int *cast = ARENA_ARRAY(c->a, int, nout + 1);
	OnnxNode *nd;

	for (int k = 0; k < nout; k++) {
		const Value *v = lower_out_value(n, k);
		if (!v || (k > 0 && !lower_out_used(c, n, k)))
			out[k] = "";
		else if (v->dtype == cdt || v->kind != VAL_TENSOR)
			out[k] = lower_out(c, n, k);
		else
			out[k] = lower_tmp(c), cast[k] = 1;
	}
	while (nout > 1 && !out[nout - 1][0])
		nout--;
	nd = lower_emit(c, op, nin, in, nout, out);
	for (int k = 0; k < nout; k++)
		if (cast[k])
			lower_finish(c, n, k, out[k], cdt);
	c->last = nd;
	return nd;
}

const char *
lower_size_arg(LowerCtx *c, const Node *n, const char *name)
{
	const Arg *g = ir_arg(n, name);
	const char **parts;
	int64_t *vals;
	int all_static = 1;

	if (!g || g->kind == ARG_NONE)
		return NULL;
	if (g->kind == ARG_INT)
		return lower_i64s(c, 1, &g->u.i);
	if (g->kind != ARG_INTS && g->kind != ARG_SYM_INTS) {
		c->bad_arg = name;
		return lower_i64s(c, 0, NULL);
	}
	vals = ARENA_ARRAY(c->a, int64_t, g->n + 1);
	parts = ARENA_ARRAY(c->a, const char *, g->n + 1);
	for (int i = 0; i < g->n; i++) {
		const Arg *it = &g->u.list[i];
		if (it->kind == ARG_INT) {
			vals[i] = it->u.i;
			parts[i] = NULL;
		} else if (it->kind == ARG_SYM_INT) {
			all_static = 0;
			parts[i] = lower_unsqueeze(c, lower_value(c, it->u.v), 1, (int64_t[]){0}, NULL);
		} else {
			c->bad_arg = name;
			return lower_i64s(c, 0, NULL);
		}
	}
	if (all_static)
		return lower_i64s(c, g->n, vals);
	for (int i = 0; i < g->n; i++)
		if (!parts[i])
			parts[i] = lower_i64s(c, 1, &vals[i]);
	{
		const char *out = lower_tmp(c);
		lower_emit(c, "Concat", g->n, parts, 1, &out);
		onnx_attr_int(c->a, c->last, "axis", 0);
		return out;
	}
}

/* ---- shapes ---- */

int
lower_static(const Value *v)
{
	for (int i = 0; i < v->rank; i++)
		if (v->dims[i].e)
			return 0;
	return 1;
}

const char *
lower_shape(LowerCtx *c, const Value *v, const char *x)
{
	int64_t dims[64];

	if (lower_static(v) && v->rank <= 64) {
		for (int i = 0; i < v->rank; i++)
			dims[i] = v->dims[i].v;
		return lower_i64s(c, v->rank, dims);
	}
	return lower_op(c, "Shape", NULL, 1, x);
}

int64_t
lower_axis(int64_t axis, int rank)
{
	return axis < 0 ? axis + rank : axis;
}

const char *
lower_unsqueeze(LowerCtx *c, const char *x, int k, const int64_t *axes, const char *out)
{
	return lower_op(c, "Unsqueeze", out, 2, x, lower_i64s(c, k, axes));
}

const char *
lower_squeeze(LowerCtx *c, const char *x, int k, const int64_t *axes, const char *out)
{
	return lower_op(c, "Squeeze", out, k ? 2 : 1, x, k ? lower_i64s(c, k, axes) : NULL);
}

const char *
lower_reduce(LowerCtx *c, const char *op, const char *x, int k, const int64_t *axes,
             int keepdims, const char *out)
{
	/* ReduceSum takes axes as an input from opset 13, the others from 18 */
	int as_input = strcmp(op, "ReduceSum") == 0 || c->opset >= 18;

	if (as_input && k) {
		lower_op(c, op, out, 2, x, lower_i64s(c, k, axes));
	} else {
		lower_op(c, op, out, 1, x);
		if (k)
			onnx_attr_ints(c->a, c->last, "axes", k, axes);
	}
	onnx_attr_int(c->a, c->last, "keepdims", keepdims);
	return c->last->output[0];
}

/* ---- for the pointwise, reduction and index families ---- */

DType
lower_opmath(DType t)
{
	switch (t) {
	case DT_INT8: case DT_UINT8: case DT_INT16: case DT_UINT16: return DT_INT32;
	default: return lower_compute(t);
	}
}

int
lower_takes(LowerCtx *c, const char *op, int k, DType t)
{
	int in[8] = {0};
	OnnxIllegal why;

	if (k < 0 || k >= 8 || dtype_onnx(t) == 0)
		return 1;
	in[k] = dtype_onnx(t);
	return onnx_node_legal("", op, c->opset, 1, k + 1, in, 0, NULL, &why) != 1;
}

DType
lower_exact(LowerCtx *c, const char *op, int k, DType t)
{
	static const DType wider[][3] = {
		{DT_BOOL, DT_INT32, DT_INT64}, {DT_INT8, DT_INT32, DT_INT64}, {DT_UINT8, DT_INT32, DT_INT64},
		{DT_INT16, DT_INT32, DT_INT64}, {DT_UINT16, DT_INT32, DT_INT64}, {DT_INT32, DT_INT64, DT_UNKNOWN},
		{DT_UINT32, DT_INT64, DT_UNKNOWN}, {DT_FLOAT16, DT_FLOAT32, DT_FLOAT64},
		{DT_BFLOAT16, DT_FLOAT32, DT_FLOAT64}, {DT_FLOAT32, DT_FLOAT64, DT_UNKNOWN},
	};

	if (lower_takes(c, op, k, t))
		return t;
	for (size_t i = 0; i < sizeof wider / sizeof wider[0]; i++)
		if (wider[i][0] == t)
			for (int j = 1; j < 3 && wider[i][j] != DT_UNKNOWN; j++)
				if (lower_takes(c, op, k, wider[i][j]))
					return wider[i][j];
	return DT_UNKNOWN;
}

const LegalRow lower_legal_rows[] = {
#define LEGAL(op, kinds, action, how) {op, kinds, action, how},
#include "lower/ops/legalize.def"
#undef LEGAL
};
const int lower_nlegal = (int)(sizeof lower_legal_rows / sizeof lower_legal_rows[0]);

const LegalRow *
lower_legalize(LowerCtx *c, const char *op, DType t)
{
	static const LegalRow none = {"", 0, LA_REFUSE, "no exact form"};
	int kind = dtype_kind(t) == DK_BOOL ? LK_BOOL : dtype_kind(t) == DK_INT ? LK_INT : LK_FLOAT;

	if (lower_takes(c, op, 0, t))
		return NULL;
	for (int i = 0; i < lower_nlegal; i++) {
		const LegalRow *r = &lower_legal_rows[i];
		if (strcmp(r->op, op) == 0 && (r->kinds & kind))
			return r->action == LA_WIDEN && lower_exact(c, op, 0, t) == DT_UNKNOWN ? &none : r;
	}
	return &none;
}

DType
lower_widen(LowerCtx *c, const Node *n, const char *op, DType t)
{
	const LegalRow *r = lower_legalize(c, op, t);

	if (!r)
		return t;
	if (r->action == LA_WIDEN)
		return lower_exact(c, op, 0, t);
	lower_fail(c, n, "%s operands: ONNX's %s takes no such type on onnxruntime's CPU provider (%s)", dtype_name(t),
	           op, r->how);
	return DT_UNKNOWN;
}

DType
lower_opmath_nobool(DType t)
{
	return t == DT_BOOL ? DT_INT32 : lower_opmath(t);
}

DType
lower_out_dtype(const Node *n, int k)
{
	const Value *v = lower_out_value(n, k);

	return v ? v->dtype : DT_FLOAT32;
}

const char *
lower_perm(LowerCtx *c, const char *x, int rank, const int64_t *perm, const char *out)
{
	int id = 1;

	for (int i = 0; i < rank; i++)
		id &= perm[i] == i;
	if (id && !out)
		return x;
	lower_op(c, "Transpose", out, 1, x);
	onnx_attr_ints(c->a, c->last, "perm", rank, perm);
	return c->last->output[0];
}

const char *
lower_finish_typed(LowerCtx *c, const Node *n, int k, const char *x, DType from)
{
	const char *r = lower_finish(c, n, k, x, from);
	const Value *v = c->update ? lower_arg_value(n, "self") : lower_out_value(n, k);

	if (!r)
		return NULL;

	/* x kept its helper name: give it the output's type, once */
	if (r == x && v && strmap_get(c->producer, x) && !strmap_get(c->vinfo, x))
		record_type(c, x, v);
	return r;
}

const char *
lower_dim_param(LowerCtx *c, const SymExpr *e)
{
	return c->dn ? dimnames_expr(c->dn, e) : sym_print(c->a, e);
}
