/* tsop.c: calls of ATen operators in TorchScript code: the overload
 * TorchScript would choose (tsschema.c), the arguments as Args of the
 * schema's types, completed with its defaults, and the node, its outputs
 * typed by ir_type_outputs() (meta.def's rule, else the pipeline's typer
 * from the lowering); TorchScript's Python-level operators run
 * now (internal.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- operator calls ---- */

static TsKind
val_kind(const TsVal *v)
{
	switch (v->k) {
	case V_NONE: return TK_NONE;
	case V_BOOL: return v->numtensor ? TK_TENSOR : TK_BOOL;
	case V_INT: case V_SYM: return v->numtensor ? TK_TENSOR : TK_INT;
	case V_FLOAT: return v->numtensor ? TK_TENSOR : TK_FLOAT;
	case V_STR: return TK_STR;
	case V_DEVICE: return TK_DEVICE;
	case V_TENSOR: return TK_TENSOR;
	case V_LIST: {
		int ints = 0, floats = 0, bools = 0, tensors = 0, nones = 0;
		if (v->n == 0)
			return TK_EMPTY_LIST;
		for (int i = 0; i < v->n; i++) {
			const TsVal *x = v->it[i];
			if (x->k == V_TENSOR || x->numtensor)
				tensors++;
			else if (x->k == V_INT || x->k == V_SYM)
				ints++;
			else if (x->k == V_FLOAT)
				floats++;
			else if (x->k == V_BOOL)
				bools++;
			else if (x->k == V_NONE)
				nones++;
		}
		if (tensors + nones == v->n)
			return nones ? TK_OPT_TENSORS : TK_TENSORS;
		if (ints == v->n)
			return TK_INTS;
		if (floats + ints == v->n)
			return TK_FLOATS;
		if (bools == v->n)
			return TK_BOOLS;
		return TK_OTHER;
	}
	default:
		return TK_OTHER;
	}
}


/* A 0-d constant tensor of dtype dt (DT_UNKNOWN: torch's for the number:
 * int64, float64 or bool) holding a number: one passed where the schema
 * wants a Tensor, or a Python value that differs between branches. */
Value *
tb_number_tensor_as(Build *b, const TsVal *v, DType dt)
{
	TensorData *t = ARENA_NEW(b->a, TensorData);
	uint8_t *buf = arena_alloc(b->a, 16);
	Value *x;

	if (dt == DT_UNKNOWN)
		dt = v->k == V_FLOAT ? DT_FLOAT64 : v->k == V_BOOL ? DT_BOOL : DT_INT64;
	t->dtype = dt;
	if (dt == DT_FLOAT64 || dt == DT_FLOAT32) {
		dtype_encode_f64(dt, buf, tb_num(v));
	} else if (dt == DT_BOOL) {
		buf[0] = tb_num(v) != 0;
	} else if (dt == DT_INT32) {
		dtype_encode_i64(DT_INT32, buf, v->i);
	} else {
		t->dtype = DT_INT64;
		dtype_encode_i64(DT_INT64, buf, v->k == V_FLOAT ? (int64_t)v->f : v->i);
	}
	t->storage = buf;
	t->storage_bytes = (uint64_t)dtype_size(t->dtype);
	t->entry = "a number used as a tensor";
	x = tb_add_input(b, "c_scalar", IN_TENSOR_CONSTANT, tb_fresh_name(b, "scalar"));
	b->specs[b->ninput - 1].target = x->name;
	tb_set_meta(x, t, b->a);
	return x;
}

Value *
tb_number_tensor(Build *b, const TsVal *v)
{
	return tb_number_tensor_as(b, v, DT_UNKNOWN);
}


/* The tensor a value stands for: a tensor, or a NumToTensor number. */
static Value *
as_tensor(Build *b, Frame *f, const TsExpr *at, const TsVal *v)
{
	if (v->k == V_TENSOR)
		return v->v;
	if (v->k == V_SYM)
		return tb_emit_scalar_tensor(b, f, at, v);
	return tb_number_tensor(b, v);
}


/* A default as the schema writes it, as an Arg of the argument's type.
 * Returns 0 when the text is not understood (the argument is then left
 * out, as torch leaves defaults out of a .pt2). */
static int
default_arg(Build *b, const TsSchemaArg *sa, Arg *out)
{
	const char *s = sa->def;
	char *end;

	memset(out, 0, sizeof *out);
	if (!s)
		return 0;
	if (strcmp(s, "None") == 0) {
		out->kind = ARG_NONE;
		return 1;
	}
	switch (sa->type) {
	case TA_BOOL: case TA_OPT_BOOL:
		out->kind = ARG_BOOL;
		out->u.i = strcmp(s, "True") == 0;
		return strcmp(s, "True") == 0 || strcmp(s, "False") == 0;
	case TA_INT: case TA_OPT_INT:
		out->kind = ARG_INT;
		out->u.i = strtoll(s, &end, 10);
		return *end == 0;
	case TA_FLOAT: case TA_OPT_FLOAT:
		out->kind = ARG_FLOAT;
		out->u.f = strtod(s, &end);
		return *end == 0;
	case TA_SCALAR: case TA_OPT_SCALAR:
		out->u.i = strtoll(s, &end, 10);
		if (*end == 0) {
			out->kind = ARG_INT;
			return 1;
		}
		out->kind = ARG_FLOAT;
		out->u.f = strtod(s, &end);
		return *end == 0;
	case TA_STR: case TA_OPT_STR: {
		size_t n = strlen(s);
		if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
			out->kind = ARG_STRING;
			out->u.s = arena_strndup(b->a, s + 1, n - 2);
			return 1;
		}
		return 0;
	}
	case TA_INTS: case TA_OPT_INTS: {
		int64_t buf[16];
		int n = 0;
		const char *q = s;
		if (*q != '[') {
			/* int[2] stride=1: one value broadcast */
			int64_t x = strtoll(q, &end, 10);
			if (*end || sa->list_len <= 0 || sa->list_len > 16)
				return 0;
			for (n = 0; n < sa->list_len; n++)
				buf[n] = x;
		} else {
			q++;
			while (*q && *q != ']' && n < 16) {
				buf[n++] = strtoll(q, &end, 10);
				if (end == q)
					return 0;
				q = end;
				while (*q == ',' || *q == ' ')
					q++;
			}
			if (*q != ']')
				return 0;
		}
		out->kind = ARG_INTS;
		out->n = n;
		out->u.list = ARENA_ARRAY(b->a, Arg, n + 1);
		for (int i = 0; i < n; i++) {
			out->u.list[i].kind = ARG_INT;
			out->u.list[i].u.i = buf[i];
		}
		return 1;
	}
	default:
		return 0;
	}
}

/* A list argument (Tensor[], Tensor?[], int[], float[], bool[]). */
static void
list_arg(Build *b, Frame *f, const TsExpr *at, const TsSchemaArg *sa, const TsVal *v, Arg *out)
{
	switch (sa->type) {
	case TA_TENSORS: case TA_OPT_TENSORS:
		out->kind = sa->type == TA_TENSORS ? ARG_TENSORS : ARG_OPT_TENSORS;
		out->n = v->n;
		out->u.list = ARENA_ARRAY(b->a, Arg, v->n + 1);
		for (int i = 0; i < v->n; i++) {
			if (v->it[i]->k == V_NONE) {
				out->u.list[i].kind = ARG_NONE;
				continue;
			}
			out->u.list[i].kind = ARG_TENSOR;
			out->u.list[i].u.v = as_tensor(b, f, at, v->it[i]);
		}
		return;
	case TA_INTS: case TA_OPT_INTS: {
		int n = v->k == V_LIST || v->k == V_TUPLE ? v->n : sa->list_len > 0 ? sa->list_len : 1;
		int sym = 0;
		out->n = n;
		out->u.list = ARENA_ARRAY(b->a, Arg, n + 1);
		for (int i = 0; i < n; i++) {
			const TsVal *x = v->k == V_LIST || v->k == V_TUPLE ? v->it[i] : v;
			out->u.list[i] = tb_int_arg(x);
			sym |= x->k == V_SYM;
		}
		out->kind = sym ? ARG_SYM_INTS : ARG_INTS;
		return;
	}
	case TA_FLOATS: case TA_OPT_FLOATS:
		out->kind = ARG_FLOATS;
		out->n = v->n;
		out->u.list = ARENA_ARRAY(b->a, Arg, v->n + 1);
		for (int i = 0; i < v->n; i++) {
			out->u.list[i].kind = ARG_FLOAT;
			out->u.list[i].u.f = tb_num(v->it[i]);
		}
		return;
	case TA_BOOLS:
		out->kind = ARG_BOOLS;
		out->n = v->n;
		out->u.list = ARENA_ARRAY(b->a, Arg, v->n + 1);
		for (int i = 0; i < v->n; i++) {
			out->u.list[i].kind = ARG_BOOL;
			out->u.list[i].u.i = v->it[i]->i != 0;
		}
		return;
	default:
		return;
	}
}

/* A call argument as an Arg of the schema argument's type. */
static int
to_arg(Build *b, Frame *f, const TsExpr *at, const TsSchemaArg *sa, const TsVal *v, Arg *out)
{
	memset(out, 0, sizeof *out);
	if (v->k == V_NONE) {
		out->kind = ARG_NONE;
		return 0;
	}
	switch (sa->type) {
	case TA_TENSOR: case TA_OPT_TENSOR:
		out->kind = ARG_TENSOR;
		out->u.v = as_tensor(b, f, at, v);
		return 0;
	case TA_TENSORS: case TA_OPT_TENSORS: case TA_INTS: case TA_OPT_INTS:
	case TA_FLOATS: case TA_OPT_FLOATS: case TA_BOOLS:
		list_arg(b, f, at, sa, v, out);
		return 0;
	case TA_INT: case TA_OPT_INT:
		if (v->k == V_LIST && v->n == 1)
			v = v->it[0];
		*out = tb_int_arg(v);
		return 0;
	case TA_FLOAT: case TA_OPT_FLOAT:
		out->kind = ARG_FLOAT;
		out->u.f = tb_num(v);
		return 0;
	case TA_BOOL: case TA_OPT_BOOL:
		out->kind = ARG_BOOL;
		out->u.i = v->i != 0;
		return 0;
	case TA_SCALAR: case TA_OPT_SCALAR:
		if (v->k == V_TENSOR) {
			out->kind = ARG_TENSOR;
			out->u.v = v->v;
		} else if (v->k == V_FLOAT) {
			out->kind = ARG_FLOAT;
			out->u.f = v->f;
		} else if (v->k == V_BOOL) {
			out->kind = ARG_BOOL;
			out->u.i = v->i;
		} else if (v->k == V_SYM) {
			*out = tb_int_arg(v);
		} else {
			out->kind = ARG_INT;
			out->u.i = v->i;
		}
		return 0;
	case TA_STR: case TA_OPT_STR:
		out->kind = ARG_STRING;
		out->u.s = v->s;
		return 0;
	case TA_SCALAR_TYPE: case TA_OPT_SCALAR_TYPE: {
		DType t = dtype_from_c10(v->i);
		if (t == DT_UNKNOWN) {
			FAIL(b, f, at, "dtype code %lld is not one the converter knows", (long long)v->i);
			return -1;
		}
		out->kind = ARG_SCALAR_TYPE;
		out->u.i = dtype_torch(t);
		return 0;
	}
	case TA_LAYOUT: case TA_OPT_LAYOUT:
		out->kind = ARG_LAYOUT;
		out->u.i = v->i;
		return 0;
	case TA_MEMORY_FORMAT: case TA_OPT_MEMORY_FORMAT:
		/* c10 Contiguous 0, Preserve 1, ChannelsLast 2, ChannelsLast3d 3 ->
		 * the serialized enum: Contiguous 1, ChannelsLast 2, ChannelsLast3d 3, Preserve 4 */
		out->kind = ARG_MEMORY_FORMAT;
		out->u.i = v->i == 0 ? 1 : v->i == 1 ? 4 : v->i;
		return 0;
	case TA_DEVICE: case TA_OPT_DEVICE:
		out->kind = ARG_DEVICE;
		out->u.s = v->k == V_DEVICE || v->k == V_STR ? v->s : "cpu";
		return 0;
	case TA_GENERATOR: case TA_OPT_GENERATOR:
		out->kind = ARG_NONE;
		return 0;
	default:
		FAIL(b, f, at, "argument '%s' has a type the converter does not build", sa->name);
		return -1;
	}
}

/* The op name of a schema: "aten.add.Tensor", "aten.relu.default".
 * TorchScript's hacked twins (index.Tensor_hacked_twin: indices as
 * Tensor[] where the ATen op has Tensor?[]) are the ATen op itself. */
static const char *
schema_op(Build *b, const TsSchema *s)
{
	const char *ov = *s->overload ? s->overload : "default";
	size_t n = strlen(ov);

	if (strcmp(ov, "hacked_twin") == 0)
		ov = "default";
	else if (n > 12 && strcmp(ov + n - 12, "_hacked_twin") == 0)
		ov = arena_strndup(b->a, ov, n - 12);
	return arena_printf(b->a, "%s.%s.%s", s->ns, s->name, ov);
}

/* Emits the node of an ATen call bound to schema s; returns its result. */
static TsVal *
emit(Build *b, Frame *f, const TsExpr *at, const TsSchema *s, TsVal **sv, const char *base)
{
	Node *n = tb_new_node(b, schema_op(b, s), f->code, at->ofs);
	Value outs[64];
	char why[512] = "";
	int k, list_ret, nt;
	TsVal *r;

	n->in = ARENA_ARRAY(b->a, NamedArg, s->narg + 1);
	for (int i = 0; i < s->narg; i++) {
		NamedArg *na = &n->in[n->nin];
		na->name = s->args[i].name;
		na->kind = s->args[i].kwonly ? 2 : 1;
		if (!sv[i]) {
			if (!default_arg(b, &s->args[i], &na->arg))
				continue;
		} else if (to_arg(b, f, at, &s->args[i], sv[i], &na->arg)) {
			return &tb_poison;
		}
		if (na->arg.kind == ARG_TENSORS && strstr(s->overload, "hacked_twin"))
			na->arg.kind = ARG_OPT_TENSORS;
		n->nin++;
	}
	memset(outs, 0, sizeof outs);
	list_ret = s->nret == 1 && strncmp(s->rets[0], "Tensor[]", 8) == 0;
	nt = list_ret ? -1 : s->nret;   /* the typer's results are tensors: Tensor returns only */
	for (int i = 0; i < s->nret && nt > 0; i++)
		if (strncmp(s->rets[i], "Tensor", 6) != 0 || s->rets[i][6] == '[')
			nt = -1;
	/* nonzero, unique, x[mask] (unbacked sizes) and the fused fast paths:
	 * tsdyn.c; every other op: its typing */
	if ((k = tb_datadep_outputs(b, n, outs, 64)) < 0)
		k = ir_type_outputs(b->typer, b->a, n, nt, outs, 64, why, sizeof why);
	if (k < 0 && s->name[0] && s->name[strlen(s->name) - 1] == '_' && n->nin > 0 &&
	    n->in[0].arg.kind == ARG_TENSOR) {
		/* an in-place op: its result is self, written */
		outs[0] = *n->in[0].arg.u.v;
		outs[0].data = NULL;
		k = 1;
	}
	if (k < 0)
		return tb_fail_at(b, f->code, at->ofs, at->line, at->col,
		               ir_infer_known(n->op) ? YE_TS_UNSUPPORTED : YE_UNSUPPORTED_OP,
		               "%s: %s", n->op, why[0] ? why : "no dtype and shape rule for this op");
	n->nout = list_ret ? 1 : k;
	n->out = ARENA_ARRAY(b->a, Arg, n->nout + 1);
	r = list_ret ? tb_mk_seq(b, V_LIST, k) : k == 1 ? NULL : tb_mk_seq(b, V_TUPLE, k);
	if (list_ret) {
		n->out[0].kind = ARG_TENSORS;
		n->out[0].n = k;
		n->out[0].u.list = ARENA_ARRAY(b->a, Arg, k + 1);
	}
	for (int i = 0; i < k; i++) {
		Value *v = ir_new_value(b->a, b->g, tb_fresh_name(b, base), outs[i].kind);
		TsVal *tv;
		v->dtype = outs[i].dtype;
		v->rank = outs[i].rank;
		v->dims = outs[i].dims;
		v->expr = outs[i].expr;
		v->def = n;
		if (list_ret) {
			n->out[0].u.list[i].kind = ARG_TENSOR;
			n->out[0].u.list[i].u.v = v;
		} else {
			n->out[i].kind = v->kind == VAL_TENSOR ? ARG_TENSOR : ARG_SYM_INT;
			n->out[i].u.v = v;
		}
		tv = tb_mk(b, v->kind == VAL_TENSOR ? V_TENSOR : V_SYM);
		tv->v = v;
		if (r)
			r->it[i] = tv;
		else
			r = tv;
		if (i == 0)
			n->name = v->name;
	}
	if (k == 0) {
		n->name = tb_fresh_name(b, base);
		r = &tb_none;
	}
	tb_push_node(b, n);
	return r;
}

/* scalar_tensor(sym): a SymInt as a 0-d int64 tensor. */
Value *
tb_emit_scalar_tensor(Build *b, Frame *f, const TsExpr *at, const TsVal *v)
{
	TsVal iv = *v, *arg = &iv, *r;

	iv.numtensor = NT_NONE;
	r = tb_call_op(b, f, at, "aten", "scalar_tensor", 1, &arg, 0, NULL, NULL);
	return r->k == V_TENSOR ? r->v : NULL;
}

/* item(t): a 0-d tensor's value as a SymInt (unbacked: known at run time
 * only), for an int argument given a tensor's value. */
static TsVal *
tensor_item(Build *b, Frame *f, const TsExpr *at, const TsVal *t)
{
	Arg in = tb_value_arg(t->v);
	SymExpr *e = ARENA_NEW(b->a, SymExpr);
	TsVal *r;

	e->op = SYM_SYMBOL;
	e->name = tb_fresh_name(b, "u0");
	r = tb_sym_node(b, f, at, "aten.item.default", 1, &in, e);
	r->v->def->in[0].name = "self";
	return r;
}

/* The number a 0-d constant tensor holds (a frozen module's CONSTANTS.cN
 * divisor), as a Python value; NULL for anything else. */
static TsVal *
const_number(Build *b, const TsVal *v)
{
	const TensorData *t;
	const uint8_t *p;

	if (v->k != V_TENSOR || !v->v->data || v->v->rank != 0)
		return NULL;
	t = v->v->data;
	if (!tensor_in_bounds(t))
		return NULL;
	p = t->storage + t->offset * dtype_size(t->dtype);
	if (t->dtype == DT_INT64 || t->dtype == DT_INT32)
		return tb_mk_int(b, dtype_decode_i64(t->dtype, p));
	if (t->dtype == DT_FLOAT64 || t->dtype == DT_FLOAT32)
		return tb_mk_float(b, dtype_decode_f64(t->dtype, p));
	return NULL;
}

/* NumToTensor values through simple tensor arithmetic stay numbers (traced
 * code computes sizes this way: floor_divide(NumToTensor(size(x, 2)),
 * CONSTANTS.c0), add(seq_length, CONSTANTS.c0)). */
static TsVal *
numtensor_op(Build *b, Frame *f, const TsExpr *at, const char *name, int npos, TsVal **pos, int nkw,
             const char *const *kwn, TsVal **kw)
{
	static const struct { const char *name; int op; } ops[] = {
		{"add", TB_ADD}, {"sub", TB_SUB}, {"mul", TB_MUL}, {"floor_divide", TB_FLOORDIV},
		{"remainder", TB_MOD}, {"floordiv", TB_FLOORDIV}, {"div", TB_FLOORDIV}, {"rsub", TB_SUB},
	};
	TsVal x, y, *r, *c;
	int nt = 0;

	if (npos != 2)
		return NULL;
	for (int i = 0; i < 2; i++)
		nt |= pos[i]->numtensor == NT_SIZE;
	if (!nt)
		return NULL;
	x = *pos[0], y = *pos[1];
	if ((c = const_number(b, &x)))
		x = *c;
	if ((c = const_number(b, &y)))
		y = *c;
	if (strcmp(name, "rsub") == 0) {
		TsVal t = x;
		x = y, y = t;
	}
	for (int i = 0; i < nkw; i++)       /* div(a, b, rounding_mode="floor"): a size */
		if (!(strcmp(name, "div") == 0 && strcmp(kwn[i], "rounding_mode") == 0 && kw[i]->k == V_STR &&
		      (strcmp(kw[i]->s, "floor") == 0 || strcmp(kw[i]->s, "trunc") == 0)))
			return NULL;
	if (strcmp(name, "div") == 0 && nkw == 0)
		return NULL;
	if (!(x.k == V_INT || x.k == V_SYM) || !(y.k == V_INT || y.k == V_SYM))
		return NULL;
	for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
		if (strcmp(ops[k].name, name) != 0)
			continue;
		x.numtensor = y.numtensor = NT_NONE;
		r = tb_int_binary(b, f, at, ops[k].op, &x, &y);
		if (r->k == V_ERR)
			return r;
		r = arena_dup(b->a, r, sizeof *r);
		r->numtensor = NT_SIZE;
		return r;
	}
	return NULL;
}

/* 1 when s takes and returns no tensor: one of TorchScript's Python-level
 * operators (aten::eq.int, aten::__contains__.int_list, aten::len.t). */
static int
schema_is_python(const TsSchema *s)
{
	for (int i = 0; i < s->narg; i++)
		switch (s->args[i].type) {
		case TA_TENSOR: case TA_OPT_TENSOR: case TA_TENSORS: case TA_OPT_TENSORS:
			return 0;
		default:
			break;
		}
	for (int i = 0; i < s->nret; i++)
		if (strncmp(s->rets[i], "Tensor", 6) == 0)
			return 0;
	return 1;
}

/* A Python-level operator run now. */
static TsVal *
py_op(Build *b, Frame *f, const TsExpr *at, const TsSchema *s, TsVal **sv)
{
	static const struct { const char *name; int op; } bin[] = {
		{"add", TB_ADD}, {"sub", TB_SUB}, {"mul", TB_MUL}, {"div", TB_DIV}, {"floordiv", TB_FLOORDIV},
		{"remainder", TB_MOD}, {"pow", TB_POW}, {"eq", TB_EQ}, {"ne", TB_NE}, {"lt", TB_LT},
		{"le", TB_LE}, {"gt", TB_GT}, {"ge", TB_GE}, {"__and__", TB_AND}, {"__or__", TB_OR},
		{"__xor__", TB_XOR}, {"__lshift__", TB_SHL}, {"__rshift__", TB_SHR}, {"__is__", TB_IS},
		{"__isnot__", TB_ISNOT},
	};
	const char *n = s->name;
	TsVal *x = s->narg > 0 && sv[0] ? sv[0] : &tb_none, *y = s->narg > 1 && sv[1] ? sv[1] : &tb_none;

	for (int i = 0; i < s->narg; i++)
		if (sv[i] && sv[i]->k == V_ERR)
			return &tb_poison;
	for (size_t k = 0; k < sizeof bin / sizeof *bin; k++)
		if (strcmp(bin[k].name, n) == 0 && s->narg == 2)
			return tb_py_binary(b, f, at, bin[k].op, x, y);
	if (strcmp(n, "__contains__") == 0 && s->narg == 2)
		return tb_py_binary(b, f, at, TB_IN, y, x);
	if (strcmp(n, "__not__") == 0) {
		int t;
		return tb_truth(b, f, at, x, &t) ? &tb_poison : tb_mk_bool(b, !t);
	}
	if (strcmp(n, "neg") == 0)
		return x->k == V_FLOAT ? tb_mk_float(b, -x->f) : tb_int_binary(b, f, at, TB_MUL, tb_mk_int(b, -1), x);
	if (x->k == V_INT || x->k == V_FLOAT || x->k == V_BOOL) {
		double v = tb_num(x);
		if (strcmp(n, "sqrt") == 0) return tb_mk_float(b, sqrt(v));
		if (strcmp(n, "floor") == 0) return tb_mk_int(b, (int64_t)floor(v));
		if (strcmp(n, "ceil") == 0) return tb_mk_int(b, (int64_t)ceil(v));
		if (strcmp(n, "abs") == 0) return x->k == V_FLOAT ? tb_mk_float(b, fabs(v)) : tb_mk_int(b, x->i < 0 ? -x->i : x->i);
		if (strcmp(n, "Int") == 0) return tb_mk_int(b, (int64_t)v);
		if (strcmp(n, "Float") == 0) return tb_mk_float(b, v);
		if (strcmp(n, "Bool") == 0) return tb_mk_bool(b, v != 0);
		if (strcmp(n, "log") == 0) return tb_mk_float(b, log(v));
		if (strcmp(n, "exp") == 0) return tb_mk_float(b, exp(v));
	}
	if ((strcmp(n, "min") == 0 || strcmp(n, "max") == 0) && s->narg == 2 &&
	    (x->k == V_INT || x->k == V_FLOAT) && (y->k == V_INT || y->k == V_FLOAT)) {
		int lt = tb_num(x) < tb_num(y);
		return (strcmp(n, "min") == 0) == lt ? x : y;
	}
	if (strcmp(n, "len") == 0 && (x->k == V_LIST || x->k == V_TUPLE))
		return tb_mk_int(b, x->n);
	if (strcmp(n, "format") == 0 || strcmp(n, "str") == 0) {
		TsVal *r = tb_mk(b, V_STR);
		r->s = x->k == V_STR ? x->s : "";
		return r;
	}
	if (strcmp(n, "warn") == 0)
		return &tb_none;
	if (strcmp(n, "list") == 0 && (x->k == V_LIST || x->k == V_TUPLE)) {
		TsVal *r = tb_mk_seq(b, V_LIST, x->n);
		memcpy(r->it, x->it, sizeof *r->it * (size_t)x->n);
		return r;
	}
	if (strcmp(n, "__getitem__") == 0 && (x->k == V_LIST || x->k == V_TUPLE) && y->k == V_INT) {
		int64_t k = y->i < 0 ? y->i + x->n : y->i;
		if (k < 0 || k >= x->n)
			return FAIL(b, f, at, "index %lld out of range for a list of %d", (long long)y->i, x->n);
		return x->it[k];
	}
	return FAIL(b, f, at, "%s::%s on %s is outside what the reader evaluates", s->ns, n, tb_kind_name(x));
}

static int
is_int_dtype(DType t)
{
	return t == DT_INT64 || t == DT_INT32 || t == DT_INT16 || t == DT_INT8 || t == DT_UINT8;
}

/* The value for each schema argument (NULL: its default), with the
 * conversions the schema match asked for applied. */
static int
bind_values(Build *b, Frame *f, const TsExpr *at, const TsBind *bd, int npos, TsVal **all, TsVal **sv)
{
	const TsSchema *s = bd->schema;

	for (int i = 0; i < s->narg && i < TS_MAX_ARGS; i++) {
		TsVal *v;
		int k = bd->slot[i];
		sv[i] = NULL;
		if (k < 0)
			continue;
		v = all[k];
		switch (bd->conv[i]) {
		case TC_PACK: {
			int n = npos - k;
			TsVal *l = tb_mk_seq(b, V_LIST, n > 0 ? n : 0);
			for (int j = 0; j < n; j++)
				l->it[j] = all[k + j];
			v = l;
			break;
		}
		case TC_REPEAT: {
			int n = s->args[i].list_len > 0 ? s->args[i].list_len : 1;
			TsVal *l = tb_mk_seq(b, V_LIST, n);
			for (int j = 0; j < n; j++)
				l->it[j] = v;
			v = l;
			break;
		}
		case TC_TO_NUMBER:
			if (v->k == V_TENSOR && (s->args[i].type == TA_SCALAR || s->args[i].type == TA_OPT_SCALAR) &&
			    v->v->rank == 0)
				break;          /* a tensor's value as a Scalar: the lowering reads it as a tensor */
			if (v->k == V_TENSOR && v->v->rank == 0 && is_int_dtype(v->v->dtype) &&
			    (s->args[i].type == TA_INT || s->args[i].type == TA_OPT_INT)) {
				v = tensor_item(b, f, at, v);
				break;
			}
			if (v->k == V_TENSOR) {
				FAIL(b, f, at, "argument '%s': a tensor's value used as a Python number (data-dependent) "
				     "is outside what the reader converts", s->args[i].name);
				return -1;
			}
			v = arena_dup(b->a, v, sizeof *v);
			v->numtensor = NT_NONE;
			break;
		case TC_DEVICE:
			if (v->k == V_STR) {
				TsVal *d = tb_mk(b, V_DEVICE);
				d->s = v->s;
				v = d;
			}
			break;
		default:
			break;
		}
		sv[i] = v;
	}
	return 0;
}

/* One of TorchScript's builtin functions (a schema with a body: _pair(x),
 * add(int a, Tensor b) -> torch.add(b, a)): its body run as printed code. */
static TsVal *
run_body(Build *b, Frame *f, const TsExpr *at, const TsSchema *s, TsVal **sv)
{
	char key[32];
	TsAst *ast;
	Frame bf = {0};
	TsVal *r;

	snprintf(key, sizeof key, "%p", (const void *)s);
	if (!(ast = strmap_get(b->asts, key))) {
		const char *params = "", *text;
		for (int i = 0; i < s->narg; i++)
			params = arena_printf(b->a, "%s%s%s", params, i ? ", " : "", s->args[i].name);
		text = arena_printf(b->a, "def f(%s):\n  return %s\n", params, s->body);
		ast = ARENA_NEW(b->a, TsAst);
		if (ts_parse(b->a, arena_printf(b->a, "builtin %s::%s", s->ns, s->name), text, strlen(text), ast, b->d)
		    || ast->ndef != 1) {
			b->nerr++;
			return &tb_poison;
		}
		strmap_put(b->asts, arena_strdup(b->a, key), ast);
	}
	bf.vars = tb_env_new(b->a, s->narg + 1);
	bf.code = f->code;
	for (int i = 0; i < s->narg; i++) {
		TsVal *v = sv[i];
		if (!v) {
			Arg a;
			if (!default_arg(b, &s->args[i], &a) || a.kind == ARG_NONE)
				v = &tb_none;
			else if (a.kind == ARG_FLOAT)
				v = tb_mk_float(b, a.u.f);
			else if (a.kind == ARG_BOOL)
				v = tb_mk_bool(b, (int)a.u.i);
			else
				v = tb_mk_int(b, a.u.i);
		}
		tb_env_set(b->a, bf.vars, s->args[i].name, v);
	}
	/* the body's own offsets mean nothing in the caller's code file */
	{
		const TsDef *def = &ast->defs[0];
		const TsCode *saved = bf.code;
		bf.code = NULL;
		if (b->exec_body(b, &bf, def->body, def->nbody) < 0 || !bf.ret)
			bf.ret = &tb_none;
		bf.code = saved;
	}
	(void)at;
	r = bf.ret;
	return r;
}

TsVal *
tb_call_op(Build *b, Frame *f, const TsExpr *at, const char *ns, const char *name, int npos, TsVal **pos,
        int nkw, const char *const *kwn, TsVal **kw)
{
	TsKind pk[TS_MAX_ARGS], kk[TS_MAX_ARGS];
	TsVal *all[2 * TS_MAX_ARGS], *sv[TS_MAX_ARGS];
	TsBind bd;
	char why[1024];
	TsVal *r;
	char base[128];

	if (npos > TS_MAX_ARGS || nkw > TS_MAX_ARGS)
		return FAIL(b, f, at, "%s.%s: too many arguments", ns, name);
	for (int i = 0; i < npos; i++) {
		if (pos[i]->k == V_ERR)
			return &tb_poison;
		pk[i] = val_kind(pos[i]);
		all[i] = pos[i];
	}
	for (int i = 0; i < nkw; i++) {
		if (kw[i]->k == V_ERR)
			return &tb_poison;
		kk[i] = val_kind(kw[i]);
		all[npos + i] = kw[i];
	}
	if (strcmp(ns, "aten") == 0 && (r = numtensor_op(b, f, at, name, npos, pos, nkw, kwn, kw)))
		return r;
	if (ts_schema_bind(ns, name, npos, pk, nkw, kwn, kk, &bd, why, sizeof why))
		return FAIL(b, f, at, "%s", why);
	snprintf(base, sizeof base, "%s", name);
	while (base[0] == '_')
		memmove(base, base + 1, strlen(base));
	if (*base && base[strlen(base) - 1] == '_')
		base[strlen(base) - 1] = 0;
	if (bind_values(b, f, at, &bd, npos, all, sv))
		return &tb_poison;
	if (bd.schema->body)
		return run_body(b, f, at, bd.schema, sv);
	if (schema_is_python(bd.schema))
		return py_op(b, f, at, bd.schema, sv);

	return emit(b, f, at, bd.schema, sv, base);
}
