/* custom_ops.c: the lowerings of the operators torch.onnx puts into a graph
 * (custom_ops.def): each is one ONNX node whose every detail the node's own
 * arguments give, so they need no `custom_ops` entry.
 *
 * torch.onnx.ops.symbolic() records an arbitrary ONNX node as a call of
 * onnx_symbolic::_symbolic: `inputs` (None for an omitted one), `op_type`,
 * `domain`, `version`, and the attributes as parallel lists (attr_keys,
 * attr_types "i" "f" "s" "is" "fs" "ss", attr_pos [start, end) into
 * attr_ints, attr_floats or attr_strs).  torch.ops.onnx.<Op>.opset<N> is
 * the ai.onnx operator of that name: tensor arguments are its inputs in
 * its schema's order, the others its attributes, by name.  The output
 * dtypes and shapes come from the .pt2, as for every node. */
#include <string.h>

#include "lower/lower.h"

/* A list argument's items, or NULL with *n 0 when absent or not a list
 * (torch writes an empty list as whatever list kind it likes). */
static const Arg *
list_arg(const Node *n, const char *name, int *len)
{
	const Arg *g = lower_arg(n, name);

	*len = 0;
	if (!g)
		return NULL;
	if (g->kind != ARG_INTS && g->kind != ARG_FLOATS && g->kind != ARG_STRINGS && g->kind != ARG_INT_LISTS &&
	    g->kind != ARG_TENSORS && g->kind != ARG_OPT_TENSORS && g->kind != ARG_BOOLS && g->kind != ARG_SYM_INTS)
		return NULL;
	*len = g->n;
	return g->u.list;
}

/* An attribute of type STRINGS (onnx.h has no helper: only symbolic writes them). */
static void
attr_strings(Arena *a, OnnxNode *nd, const char *name, int k, const Arg *items)
{
	Onnx__AttributeProto *at;

	onnx_attr_string(a, nd, name, "");
	at = nd->attribute[nd->n_attribute - 1];
	at->has_s = 0;
	at->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS;
	at->n_strings = (size_t)k;
	at->strings = ARENA_ARRAY(a, ProtobufCBinaryData, k + 1);
	for (int i = 0; i < k; i++)
		at->strings[i] = (ProtobufCBinaryData){strlen(items[i].u.s), (uint8_t *)items[i].u.s};
}

/* Adds the attributes symbolic() encoded; returns 0 or lower_fail(). */
static int
symbolic_attrs(LowerCtx *c, const Node *n, OnnxNode *nd)
{
	int nk, nt, np, ni, nf, ns;
	const Arg *keys = list_arg(n, "attr_keys", &nk), *types = list_arg(n, "attr_types", &nt);
	const Arg *pos = list_arg(n, "attr_pos", &np), *ints = list_arg(n, "attr_ints", &ni);
	const Arg *floats = list_arg(n, "attr_floats", &nf), *strs = list_arg(n, "attr_strs", &ns);

	if (nt != nk || np != nk)
		return lower_fail(c, n, "attr_keys, attr_types and attr_pos differ in length (%d, %d, %d)", nk, nt, np);
	for (int i = 0; i < nk; i++) {
		const char *key = keys[i].u.s, *t = types[i].u.s;
		int64_t lo, hi;
		if (keys[i].kind != ARG_STRING || types[i].kind != ARG_STRING || pos[i].n != 2 ||
		    pos[i].u.list[0].kind != ARG_INT || pos[i].u.list[1].kind != ARG_INT)
			return lower_fail(c, n, "attribute %d is not encoded as torch.onnx.ops writes it", i);
		lo = pos[i].u.list[0].u.i;
		hi = pos[i].u.list[1].u.i;
		int top = t[0] == 'i' ? ni : t[0] == 'f' ? nf : ns;
		if (lo < 0 || hi < lo || hi > top || (!t[1] && hi != lo + 1) || (t[1] && t[1] != 's') ||
		    (t[0] != 'i' && t[0] != 'f' && t[0] != 's'))
			return lower_fail(c, n, "attribute '%s': type '%s' at [%lld, %lld) does not fit its list",
			                  key, t, (long long)lo, (long long)hi);
		if (strcmp(t, "i") == 0) {
			onnx_attr_int(c->a, nd, key, ints[lo].u.i);
		} else if (strcmp(t, "f") == 0) {
			onnx_attr_float(c->a, nd, key, (float)floats[lo].u.f);
		} else if (strcmp(t, "s") == 0) {
			onnx_attr_string(c->a, nd, key, strs[lo].u.s);
		} else if (strcmp(t, "is") == 0) {
			int64_t *v = ARENA_ARRAY(c->a, int64_t, hi - lo + 1);
			for (int64_t k = lo; k < hi; k++)
				v[k - lo] = ints[k].u.i;
			onnx_attr_ints(c->a, nd, key, (int)(hi - lo), v);
		} else if (strcmp(t, "fs") == 0) {
			float *v = ARENA_ARRAY(c->a, float, hi - lo + 1);
			for (int64_t k = lo; k < hi; k++)
				v[k - lo] = (float)floats[k].u.f;
			onnx_attr_floats(c->a, nd, key, (int)(hi - lo), v);
		} else {
			attr_strings(c->a, nd, key, (int)(hi - lo), strs + lo);
		}
	}
	return 0;
}

/* The opset check of an ai.onnx node written at `version` (0: none given). */
static int
check_ai_onnx(LowerCtx *c, const Node *n, const char *op, int64_t version)
{
	int id = onnx_op_find("", op);

	if (version > c->opset)
		return lower_fail_as(c, n, YE_NEEDS_OPSET, "ONNX's %s is written for opset %lld: needs `opset: %lld` "
		                     "or later (the target is opset %d)", op, (long long)version, (long long)version, c->opset);
	if (id >= 0 && onnx_ops[id].since > c->opset)
		return lower_fail_as(c, n, YE_NEEDS_OPSET, "ONNX's %s exists from opset %d: needs `opset: %d` or later "
		                     "(the target is opset %d)", op, onnx_ops[id].since, onnx_ops[id].since, c->opset);
	return 0;
}

int
lower_onnx_symbolic(LowerCtx *c, const Node *n, const OpRow *row)
{
	const char *op = lower_str(c, n, "op_type", NULL), *dom = lower_str(c, n, "domain", "");
	int64_t version = lower_int(c, n, "version", 0);
	int nin, nout = lower_nout(n), rc;
	const Arg *items = list_arg(n, "inputs", &nin);
	const char **in = ARENA_ARRAY(c->a, const char *, nin + 1), **out = ARENA_ARRAY(c->a, const char *, nout + 1);
	OnnxNode *nd;

	(void)row;
	if (!op || !*op)
		return lower_fail(c, n, "op_type must be a non-empty string");
	if (version < 0 || version > INT32_MAX)
		return lower_fail(c, n, "version %lld is not an opset version", (long long)version);
	if (strcmp(dom, "ai.onnx") == 0)
		dom = "";
	if (!*dom && (rc = check_ai_onnx(c, n, op, version)))
		return rc;
	if (*dom && (rc = lower_import(c, n, dom, version ? (int)version : 1)))
		return rc;
	for (int i = 0; i < nin; i++) {
		if (items[i].kind == ARG_NONE)
			in[i] = "";
		else if ((items[i].kind == ARG_TENSOR || items[i].kind == ARG_OPT_TENSOR) && items[i].u.v)
			in[i] = lower_value(c, items[i].u.v);
		else
			return lower_fail(c, n, "inputs[%d] is not a tensor or None", i);
	}
	for (int k = 0; k < nout; k++)
		out[k] = lower_out(c, n, k);
	nd = lower_emit(c, op, nin, in, nout, out);
	if (*dom)
		nd->domain = (char *)dom;
	return symbolic_attrs(c, n, nd);
}

/* The inputs of each torch.ops.onnx operator, in its schema's order: the
 * node names only those it has (torch leaves out the defaults). */
static const struct {
	const char *onnx;
	const char *in[8];
} onnx_inputs[] = {
	{"Attention", {"Q", "K", "V", "attn_mask", "past_key", "past_value"}},
	{"RotaryEmbedding", {"x", "cos_cache", "sin_cache", "position_ids"}},
};

int
lower_onnx_op(LowerCtx *c, const Node *n, const OpRow *row)
{
	const char *const *names = NULL;
	const char *in[8];
	int nin = 0, nout = lower_nout(n);
	const Value *x;
	OnnxNode *nd;

	for (size_t i = 0; i < sizeof onnx_inputs / sizeof onnx_inputs[0]; i++)
		if (strcmp(onnx_inputs[i].onnx, row->onnx) == 0)
			names = onnx_inputs[i].in;
	if (!names)
		die("lower_onnx_op: no input list for %s", row->onnx);
	if (!(x = lower_tensor_arg(c, n, names[0])))
		return DIAG_INPUT;
	for (int k = 0; k < 8 && names[k]; k++) {
		const char *s = lower_input(c, n, names[k]);
		in[k] = s ? s : "";
		nin = s ? k + 1 : nin;
	}
	nd = lower_results(c, n, row->onnx, x->dtype, nin, in, nout);
	for (int i = 0; i < n->nin; i++) {
		const NamedArg *a = &n->in[i];
		int is_input = 0;
		for (int k = 0; k < 8 && names[k]; k++)
			is_input |= strcmp(names[k], a->name) == 0;
		if (is_input || a->arg.kind == ARG_NONE)
			continue;
		if (a->arg.kind == ARG_INT || a->arg.kind == ARG_BOOL)
			onnx_attr_int(c->a, nd, a->name, a->arg.u.i);
		else if (a->arg.kind == ARG_FLOAT)
			onnx_attr_float(c->a, nd, a->name, (float)a->arg.u.f);
		else
			return lower_fail(c, n, "argument '%s' must be a constant int, bool or float (ONNX %s's attribute)",
			                  a->name, row->onnx);
	}
	return 0;
}
