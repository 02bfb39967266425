/* custom.c: custom operators, lowered as the `custom_ops` option maps them,
 * and the custom domains the model imports.
 *
 * A node whose target has no row of the op table (a torch.library.custom_op,
 * "mylib.scaled_tanh.default") but an entry in LowerOptions.custom_ops is
 * lowered here, in one of the entry's two forms:
 *   - a domain node: one node of a custom domain, for a runtime that has
 *     the kernel; its outputs are the custom node's, typed from the .pt2;
 *   - an expansion (`nodes:`): ai.onnx nodes computing the results from
 *     the node's arguments, so any runtime runs it; the optimizer then
 *     treats them like any other nodes.
 * Names in an entry are the schema argument names the .pt2 records for the
 * node (torch leaves out the arguments left at their default, so `name?`
 * marks one that may be absent), or results of earlier expansion nodes.  A
 * tensor argument is its ONNX value, a tensor list its values in order (a
 * variadic input); a number, a list of numbers or a
 * SymInt becomes a constant (a number takes the dtype of the node's first
 * named input whose dtype is known, else that of the custom node's first
 * output; a list of integers is int64, as shapes and axes are).  Mapping
 * errors only the node can show (an argument it does not have) are option
 * errors at the entry's line:col.
 *
 * A custom node with no entry is reported with its arguments and an entry
 * to fill in (YE0209).  The domain a node uses is declared through
 * lower_import() (domains.c). */
#include <stdarg.h>
#include <string.h>

#include "lower/lower.h"
#include "internal.h"

#include "core/core.h"

/* ---- which nodes are custom ---- */

const CustomOp *
lower_custom_find(const LowerOptions *o, const char *target)
{
	for (int i = 0; o && i < o->ncustom_op; i++)
		if (strcmp(o->custom_ops[i].target, target) == 0)
			return &o->custom_ops[i];
	return NULL;
}

int
lower_is_custom(const char *op)
{
	static const char *const builtin[] = {"aten.", "prims.", "_operator.", "math.", "torch.", "higher_order.",
	                                      "builtins.", "operator.", "quantized_decomposed."};

	for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
		if (strncmp(op, builtin[i], strlen(builtin[i])) == 0)
			return 0;
	return strchr(op, '.') != NULL;
}

const char *
lower_custom_form(const LowerOptions *o, const char *op)
{
	const CustomOp *m = lower_custom_find(o, op);
	const OpRow *row = ops_find(op);

	if (row && strcmp(row->family, "custom_ops") == 0)
		return "built-in";
	if (m)
		return m->expanded ? "expansion" : "domain node";
	return NULL;
}

/* ---- messages ---- */

/* An option error at the entry's line:col, naming the node. */
static int
map_fail(LowerCtx *c, const Node *n, uint32_t line, uint32_t col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int
map_fail(LowerCtx *c, const Node *n, uint32_t line, uint32_t col, const char *fmt, ...)
{
	va_list ap;
	char *what;

	va_start(ap, fmt);
	what = arena_vprintf(c->a, fmt, ap);
	va_end(ap);
	return diag_report(c->d, YE_OPTIONS_VALUE, &(DiagAt){.file = c->opt->label, .line = line, .column = col},
	                   "custom_ops: node '%s' (%s): %s", n->name, n->op, what);
}

/* "Tensor float32[2,3]", "float", ... for an argument. */
static const char *
arg_type(Arena *a, const Arg *g)
{
	switch (g->kind) {
	case ARG_TENSOR: case ARG_OPT_TENSOR:
		return g->u.v ? arena_printf(a, "Tensor %s", ir_value_type(a, g->u.v)) : "Tensor";
	case ARG_TENSORS: case ARG_OPT_TENSORS: return "Tensor[]";
	case ARG_INT: return "int";
	case ARG_INTS: return "int[]";
	case ARG_FLOAT: return "float";
	case ARG_FLOATS: return "float[]";
	case ARG_BOOL: return "bool";
	case ARG_BOOLS: return "bool[]";
	case ARG_STRING: return "str";
	case ARG_STRINGS: return "str[]";
	case ARG_SYM_INT: return "SymInt";
	case ARG_SYM_INTS: return "SymInt[]";
	case ARG_SCALAR_TYPE: return "ScalarType";
	case ARG_NONE: return "None";
	default: return arg_kind_key[g->kind];
	}
}

/* The node's arguments: "x: Tensor float32[2,3], alpha: float". */
static const char *
describe_args(Arena *a, const Node *n)
{
	const char *s = "";

	for (int i = 0; i < n->nin; i++) {
		const Arg *g = &n->in[i].arg;
		const char *val = g->kind == ARG_INT ? arena_printf(a, " = %lld", (long long)g->u.i)
		                  : g->kind == ARG_BOOL ? (g->u.i ? " = True" : " = False")
		                  : g->kind == ARG_FLOAT ? arena_printf(a, " = %g", g->u.f)
		                  : g->kind == ARG_STRING ? arena_printf(a, " = '%s'", g->u.s) : "";
		s = arena_printf(a, "%s%s%s: %s%s", s, i ? ", " : "", n->in[i].name[0] ? n->in[i].name : "?",
		                 arg_type(a, g), val);
	}
	return n->nin ? s : "none";
}

static int
is_tensor_arg(const Arg *g)
{
	return g->kind == ARG_TENSOR || g->kind == ARG_OPT_TENSOR || g->kind == ARG_TENSORS ||
	       g->kind == ARG_OPT_TENSORS;
}

/* The names an entry for target ("mylib.scaled_tanh.default") suggests:
 * its namespace as the domain, its op name in CamelCase as the op type
 * (the snippet of the message, not a decision on the node). */
static void
suggest_names(Arena *a, const char *target, const char **ns, const char **op_type)
{
	const char *dot = strchr(target, '.'), *name = dot + 1, *end = strchr(name, '.');
	char *camel = arena_strndup(a, name, end ? (size_t)(end - name) : strlen(name)), *w = camel;

	*ns = arena_strndup(a, target, (size_t)(dot - target));
	for (int up = 1; *name && name != end; name++) {
		if (*name == '_') {
			up = 1;
			continue;
		}
		*w++ = up && *name >= 'a' && *name <= 'z' ? (char)(*name - 'a' + 'A') : *name;
		up = 0;
	}
	*w = 0;
	*op_type = camel;
}

int
lower_custom_unmapped(LowerCtx *c, const Node *n)
{
	const char *ns, *camel, *ins = "", *attrs = "";

	suggest_names(c->a, n->op, &ns, &camel);
	for (int i = 0; i < n->nin; i++) {
		const char *an = n->in[i].name;
		if (!an[0])
			continue;
		if (is_tensor_arg(&n->in[i].arg))
			ins = arena_printf(c->a, "%s%s%s", ins, ins[0] ? ", " : "", an);
		else
			attrs = arena_printf(c->a, "%s%s%s: %s", attrs, attrs[0] ? ", " : "", an, an);
	}
	return lower_fail_as(c, n, YE_CUSTOM_OP_UNMAPPED,
	                     "custom operator with no `custom_ops` entry; its arguments: %s.  Map it in the "
	                     "options file, as one node of a custom domain or as ai.onnx nodes (`nodes:`, "
	                     "docs/options.md), e.g.:\n"
	                     "custom_ops:\n  %s:\n    domain: %s\n    op_type: %s\n    inputs: [%s]%s%s%s",
	                     describe_args(c->a, n), n->op, ns, camel, ins,
	                     attrs[0] ? "\n    attributes: {" : "", attrs, attrs[0] ? "}" : "");
}

/* ---- lowering a mapped node ---- */

/* A name an expansion defined: its ONNX value and dtype (DT_UNKNOWN for an
 * intermediate: no inference here). */
typedef struct Local {
	const char *name, *onnx;
	DType dt;
} Local;

typedef struct Expand {
	LowerCtx *c;
	const Node *n;
	const CustomOp *m;
	Local *loc;
	int nloc;
} Expand;

enum { SKIPPED = -1 };

static const Local *
local(const Expand *x, const char *name)
{
	for (int i = x->nloc - 1; i >= 0; i--)
		if (strcmp(x->loc[i].name, name) == 0)
			return &x->loc[i];
	return NULL;
}

/* The argument named by v, or NULL after an error (SKIPPED in *rc when
 * absent and optional). */
static const Arg *
named_arg(Expand *x, const CustomVal *v, int *rc)
{
	const Arg *g = lower_arg(x->n, v->name);

	*rc = 0;
	if (g && g->kind != ARG_NONE)
		return g;
	if (g || v->optional) {
		*rc = SKIPPED;
		return NULL;
	}
	*rc = map_fail(x->c, x->n, v->line, v->col, "the node has no argument '%s' (its arguments: %s); "
	               "write '%s?' for an optional one torch leaves out at its default",
	               v->name, describe_args(x->c->a, x->n), v->name);
	return NULL;
}

/* A number as a 0-d constant of t (int64, bool or float32 when unknown). */
static const char *
scalar_const(LowerCtx *c, DType t, DType natural, double v)
{
	return lower_scalar(c, t != DT_UNKNOWN ? t : natural, v);
}

/* An input: sets *out to its ONNX name and *dt to its dtype.  Returns 0,
 * SKIPPED (an absent optional one) or a DIAG_* code. */
static int
resolve_input(Expand *x, const CustomVal *v, DType hint, const char **out, DType *dt)
{
	LowerCtx *c = x->c;
	const Local *l;
	const Arg *g;
	int rc;

	*dt = DT_UNKNOWN;
	if (v->lit == CUSTOM_INT || v->lit == CUSTOM_FLOAT) {
		*out = scalar_const(c, hint, v->lit == CUSTOM_INT ? DT_INT64 : DT_FLOAT32,
		                    v->lit == CUSTOM_INT ? (double)v->i[0] : v->f[0]);
		return 0;
	}
	if (v->lit == CUSTOM_INTS || v->lit == CUSTOM_FLOATS) {
		int64_t dims[1] = {v->n};
		DType t = v->lit == CUSTOM_INTS ? DT_INT64 : hint != DT_UNKNOWN ? hint : DT_FLOAT32;
		uint8_t *buf = arena_alloc(c->a, (size_t)v->n * 8 + 8);
		for (int i = 0; i < v->n; i++)
			if (lower_encode(t, v->lit == CUSTOM_INTS ? (double)v->i[i] : v->f[i], buf + (size_t)i * (size_t)dtype_size(t)))
				return map_fail(c, x->n, v->line, v->col, "no constants of dtype %s", dtype_name(t));
		*out = lower_const(c, t, 1, dims, buf);
		return 0;
	}
	if (v->lit != CUSTOM_REF)
		return map_fail(c, x->n, v->line, v->col, "a string cannot be an input");
	if ((l = local(x, v->name))) {
		*out = l->onnx;
		*dt = l->dt;
		return 0;
	}
	if (!(g = named_arg(x, v, &rc)))
		return rc;
	switch (g->kind) {
	case ARG_TENSOR: case ARG_OPT_TENSOR: case ARG_SYM_INT: case ARG_SYM_FLOAT: case ARG_SYM_BOOL:
		if (!g->u.v)
			return SKIPPED;
		*out = lower_value(c, g->u.v);
		*dt = g->u.v->kind == VAL_TENSOR ? g->u.v->dtype : g->kind == ARG_SYM_INT ? DT_INT64
		      : g->kind == ARG_SYM_BOOL ? DT_BOOL : DT_FLOAT64;
		return 0;
	case ARG_INT: case ARG_BOOL:
		*out = scalar_const(c, hint, g->kind == ARG_INT ? DT_INT64 : DT_BOOL, (double)g->u.i);
		return 0;
	case ARG_FLOAT:
		*out = scalar_const(c, hint, DT_FLOAT32, g->u.f);
		return 0;
	case ARG_INTS: case ARG_SYM_INTS:
		*out = lower_size_arg(c, x->n, v->name);
		*dt = DT_INT64;
		return 0;
	default:
		return map_fail(c, x->n, v->line, v->col, "argument '%s' is a %s, which cannot be an input",
		                v->name, arg_type(c->a, g));
	}
}

/* Adds attribute a to nd; returns 0 or a DIAG_* code. */
static int
add_attr(Expand *x, OnnxNode *nd, const CustomAttr *at)
{
	LowerCtx *c = x->c;
	const CustomVal *v = &at->v;
	const Arg *g;
	int rc;

	switch (v->lit) {
	case CUSTOM_INT: onnx_attr_int(c->a, nd, at->name, v->i[0]); return 0;
	case CUSTOM_FLOAT: onnx_attr_float(c->a, nd, at->name, (float)v->f[0]); return 0;
	case CUSTOM_STRING: onnx_attr_string(c->a, nd, at->name, v->s[0]); return 0;
	case CUSTOM_INTS: onnx_attr_ints(c->a, nd, at->name, v->n, v->i); return 0;
	case CUSTOM_FLOATS: {
		float *f = ARENA_ARRAY(c->a, float, v->n + 1);
		for (int i = 0; i < v->n; i++)
			f[i] = (float)v->f[i];
		onnx_attr_floats(c->a, nd, at->name, v->n, f);
		return 0;
	}
	case CUSTOM_STRINGS:
		return map_fail(c, x->n, v->line, v->col, "a list of strings is not supported as an attribute");
	case CUSTOM_REF:
		break;
	}
	if (!(g = named_arg(x, v, &rc)))
		return rc == SKIPPED ? 0 : rc;
	switch (g->kind) {
	case ARG_INT: case ARG_BOOL:
		onnx_attr_int(c->a, nd, at->name, g->u.i);
		return 0;
	case ARG_SCALAR_TYPE:       /* a dtype: the ONNX element type, as Cast's `to` */
		onnx_attr_int(c->a, nd, at->name, dtype_onnx(dtype_from_torch((long)g->u.i)));
		return 0;
	case ARG_FLOAT:
		onnx_attr_float(c->a, nd, at->name, (float)g->u.f);
		return 0;
	case ARG_STRING:
		onnx_attr_string(c->a, nd, at->name, g->u.s);
		return 0;
	case ARG_INTS: case ARG_BOOLS: case ARG_FLOATS: {
		int64_t *iv = ARENA_ARRAY(c->a, int64_t, g->n + 1);
		float *fv = ARENA_ARRAY(c->a, float, g->n + 1);
		for (int i = 0; i < g->n; i++) {
			if (g->u.list[i].kind == ARG_FLOAT)
				fv[i] = (float)g->u.list[i].u.f;
			else if (g->u.list[i].kind == ARG_INT || g->u.list[i].kind == ARG_BOOL)
				iv[i] = g->u.list[i].u.i;
			else
				return map_fail(c, x->n, v->line, v->col, "argument '%s' must be a list of constants to be "
				                "an attribute", v->name);
		}
		if (g->kind == ARG_FLOATS)
			onnx_attr_floats(c->a, nd, at->name, g->n, fv);
		else
			onnx_attr_ints(c->a, nd, at->name, g->n, iv);
		return 0;
	}
	default:
		return map_fail(c, x->n, v->line, v->col, "argument '%s' is a %s; an attribute needs a constant "
		                "int, float, str, bool, dtype or a list of them", v->name, arg_type(c->a, g));
	}
}

/* 1 when v names an earlier result or a tensor or SymInt argument (a
 * value with a dtype of its own), not a number or a literal. */
static int
is_value(const Expand *x, const CustomVal *v)
{
	const Arg *g;

	if (v->lit != CUSTOM_REF)
		return 0;
	if (local(x, v->name))
		return 1;
	g = lower_arg(x->n, v->name);
	return !g || g->kind == ARG_TENSOR || g->kind == ARG_OPT_TENSOR || g->kind == ARG_SYM_INT ||
	       g->kind == ARG_SYM_FLOAT || g->kind == ARG_SYM_BOOL || g->kind == ARG_NONE;
}

/* The tensor-list argument (Tensor[], Tensor?[]) v names, or NULL: as an
 * input it stands for its tensors, in order (a variadic input). */
static const Arg *
tensor_list(const Expand *x, const CustomVal *v)
{
	const Arg *g;

	if (v->lit != CUSTOM_REF || local(x, v->name) || !(g = lower_arg(x->n, v->name)))
		return NULL;
	return g->kind == ARG_TENSORS || g->kind == ARG_OPT_TENSORS ? g : NULL;
}

/* Emits one node of the entry; outs are its ONNX outputs. */
static int
emit_node(Expand *x, const CustomNode *cn, int nout, const char *const *outs)
{
	LowerCtx *c = x->c;
	DType hint = DT_UNKNOWN, dt;
	const Value *o0 = lower_out_value(x->n, 0);
	const char **in;
	int *src, total = 0, k = 0, rc;
	OnnxNode *nd;

	for (int i = 0; i < cn->nin; i++) {
		const Arg *g = tensor_list(x, &cn->in[i]);
		total += g ? g->n : 1;
	}
	in = ARENA_ARRAY(c->a, const char *, total + 1);
	src = ARENA_ARRAY(c->a, int, total + 1);
	/* values first (tensors, earlier results): their dtype is what the
	 * literals and number arguments take; a tensor list is its tensors */
	for (int i = 0; i < cn->nin; i++) {
		const Arg *g = tensor_list(x, &cn->in[i]);
		for (int j = 0; g && j < g->n; j++, k++) {
			const Value *v = g->u.list[j].kind != ARG_NONE ? g->u.list[j].u.v : NULL;
			in[k] = v ? lower_value(c, v) : "";
			src[k] = i;
			if (hint == DT_UNKNOWN && v && v->kind == VAL_TENSOR)
				hint = v->dtype;
		}
		if (g)
			continue;
		src[k] = i;
		in[k] = NULL;
		if (is_value(x, &cn->in[i])) {
			in[k] = "";
			if ((rc = resolve_input(x, &cn->in[i], DT_UNKNOWN, &in[k], &dt)) > 0)
				return rc;
			if (hint == DT_UNKNOWN && rc == 0)
				hint = dt;
		}
		k++;
	}
	if (hint == DT_UNKNOWN && o0 && o0->kind == VAL_TENSOR)
		hint = o0->dtype;
	for (k = 0; k < total; k++) {
		if (in[k])
			continue;
		in[k] = "";
		if ((rc = resolve_input(x, &cn->in[src[k]], hint, &in[k], &dt)) > 0)
			return rc;
	}
	nd = lower_emit(c, cn->op_type, total, in, nout, outs);
	if (cn->domain[0])
		nd->domain = (char *)cn->domain;
	for (int i = 0; i < cn->nattr; i++)
		if ((rc = add_attr(x, nd, &cn->attr[i])))
			return rc;
	return 0;
}

/* The domain form: one node, the custom node's outputs as its own. */
static int
lower_domain_node(Expand *x)
{
	LowerCtx *c = x->c;
	int nout = lower_nout(x->n), rc;
	const char **outs = ARENA_ARRAY(c->a, const char *, nout + 1);

	if ((rc = lower_import(c, x->n, x->m->nodes[0].domain, x->m->version)))
		return rc;
	for (int k = 0; k < nout; k++)
		outs[k] = lower_out(c, x->n, k);
	return emit_node(x, &x->m->nodes[0], nout, outs);
}

/* The `nodes:` form: a result's first definition gets the custom node's
 * output name (and its value_info from the .pt2); a result that is an
 * argument, or named twice, is bound without a node. */
static int
lower_expansion(Expand *x)
{
	LowerCtx *c = x->c;
	const CustomOp *m = x->m;
	int nout = lower_nout(x->n), rc, nloc = 0;
	int *bound = ARENA_ARRAY(c->a, int, nout + 1);

	if (m->nresult != nout)
		return map_fail(c, x->n, m->line, m->col, "the node has %d output%s but `outputs` lists %d",
		                nout, nout == 1 ? "" : "s", m->nresult);
	for (int i = 0; i < m->nnode; i++)
		nloc += m->nodes[i].nout;
	x->loc = ARENA_ARRAY(c->a, Local, nloc + 1);
	for (int i = 0; i < m->nnode; i++) {
		const CustomNode *cn = &m->nodes[i];
		const char **outs = ARENA_ARRAY(c->a, const char *, cn->nout + 1);
		Local *first = x->loc + x->nloc;
		for (int j = 0; j < cn->nout; j++) {
			int k = -1;
			for (int r = 0; r < nout && k < 0; r++)
				if (!bound[r] && strcmp(m->results[r].name, cn->out[j]) == 0 && lower_out_value(x->n, r))
					k = r;
			outs[j] = k >= 0 ? lower_out(c, x->n, k) : lower_tmp(c);
			if (k >= 0)
				bound[k] = 1;
			first[j] = (Local){cn->out[j], outs[j], k >= 0 ? lower_out_value(x->n, k)->dtype : DT_UNKNOWN};
		}
		if ((rc = emit_node(x, cn, cn->nout, outs)))
			return rc;
		x->nloc += cn->nout;        /* visible from the next node on */
	}
	for (int k = 0; k < nout; k++) {
		const char *name;
		DType dt;
		if (bound[k] || !lower_out_value(x->n, k))
			continue;
		if ((rc = resolve_input(x, &m->results[k], DT_UNKNOWN, &name, &dt)) > 0)
			return rc;
		if (rc == SKIPPED)
			return map_fail(c, x->n, m->results[k].line, m->results[k].col, "result '%s' has no value",
			                m->results[k].name);
		lower_bind(c, x->n, k, name);
	}
	return 0;
}

static int
lower_custom(LowerCtx *c, const Node *n, const OpRow *row)
{
	Expand x = {c, n, lower_custom_find(c->opt, n->op), NULL, 0};

	(void)row;
	if (!x.m)
		die("lower_custom: %s has no entry", n->op);
	return x.m->expanded ? lower_expansion(&x) : lower_domain_node(&x);
}

/* The row of a mapped node (the driver's stand-in for an op table row). */
static const OpRow custom_row = {"custom_ops", lower_custom, "lower_custom", "", 0, 0, "0",
                                 1, ONNX_OPSET_NEWEST, 0, "custom_ops"};

const OpRow *
lower_custom_row(LowerCtx *c, const Node *n)
{
	return lower_custom_find(c->opt, n->op) ? &custom_row : NULL;
}
