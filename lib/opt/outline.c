/* outline.c: modules as ONNX local functions (opt_outline, option `functions`).
 *
 * Requires the lowered, not yet optimized ModelProto and the lowering's map
 * from each main-graph node to the IR node it came from; leaves the main
 * graph unoptimized (the pipeline optimizes it next) and every function body
 * optimized.
 *
 * Design: outline first, then optimize each body on its own.  Outlining an
 * optimized graph breaks as soon as a rewrite fuses nodes across a module
 * boundary (a MatMul+Add of one layer into a Gemm of the next, a BatchNorm
 * folded into the Conv of another module, CSE merging two layers' shape
 * computations): the fused node belongs to no instance, or to two.  So the
 * regions are cut from the graph exactly as lowered, where every node still
 * belongs to the IR node it was lowered from, whose nn_module_stack says
 * which module calls it ran in.  Each region becomes a graph of its own
 * (its weights as initializers, so folding works inside as it does flat),
 * nested listed instances are outlined inside it first, and the optimizer
 * runs on it.  The price: no rewrite crosses a function boundary.
 *
 * Sharing: an optimized body is written in canonical form (inputs and
 * node outputs numbered, node names left out, attribute values of the kinds
 * that can be parameterized set apart); instances of one class whose forms
 * are equal share one FunctionProto, and an attribute whose value differs
 * between them becomes a function attribute (ref_attr_name).  Kinds
 * parameterized: int, float, string, ints and floats, except Cast's `to`
 * (it changes types); a tensor or graph attribute that differs makes a
 * structural variant (NAME.1, NAME.2, ...), as do different ops or wiring.
 * A call of an inner function carries its instance's attribute values in
 * the outer body's form, so outer instances whose inner calls differ are
 * variants (function attributes are made at the innermost level only).
 *
 * Weights (function_weights: inputs): an initializer a body reads is an
 * input of the function, passed by the call from the main graph, except
 * small constants that are not weights (integer tensors of at most 64
 * elements, one-element floats: shapes, axes, epsilons), which become
 * Constant nodes inside.  Weights the optimizer made inside a body (a
 * folded BatchNorm) go to the main graph as initializers.  With embedded,
 * every initializer becomes a Constant node and each instance has its own
 * function.
 *
 * Regions: the nodes of an instance are usually consecutive; nodes between
 * them that do not depend on the region move before it, nodes that do (and
 * that the region does not read) after it.  When neither works the instance
 * stays inline (YE0702). */
#include "opt/opt.h"

#include <string.h>

#include "core/core.h"
#include "ir/ir.h"
#include "onnx/onnx.h"

/* A growing text, for the canonical forms. */
typedef struct Buf {
	char *s;
	size_t n, cap;
	Arena *a;
} Buf;

static void
buf_put(Buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = (b->cap ? b->cap * 2 : 1024) + n;
		char *ns = arena_alloc(b->a, cap);
		if (b->n)
			memcpy(ns, b->s, b->n);
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

static void
buf_str(Buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

static void
buf_hex(Buf *b, const void *p, size_t n)
{
	static const char digit[] = "0123456789abcdef";
	char h[64];
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		h[k++] = digit[((const unsigned char *)p)[i] >> 4];
		h[k++] = digit[((const unsigned char *)p)[i] & 15];
		if (k == sizeof h || i + 1 == n) {
			buf_put(b, h, k);
			k = 0;
		}
	}
}

/* One module call of a listed class. */
typedef struct Inst {
	const char *key, *path, *cls;   /* IrModule's */
	const char *short_name;         /* class name without its module */
	const char *domain;             /* the class's module path */
	int variant;                    /* index in Ctx.var, -1 while none or when left inline */
	OnnxNode *call;                 /* its call node */
	int nparam;
	Onnx__AttributeProto **param;   /* its values of the parameterizable attributes, canonical order */
	const char *pkey;               /* them as text, for an enclosing form */
} Inst;

/* A value's type as the variants' instances agree on it. */
typedef struct VType {
	int elem;                       /* 0: they disagree (no value_info) */
	int rank;                       /* -1: they disagree on it */
	int64_t *dims;                  /* -1: a dim they disagree on (or a dim_param) */
	const char **params;
} VType;

/* One FunctionProto and the instances calling it. */
typedef struct Variant {
	const char *cls, *domain, *name, *form;
	Onnx__FunctionProto *f;
	OnnxFunctionParts parts;
	int nparam;
	Onnx__AttributeProto **slot;    /* the body's parameterizable attributes, canonical order */
	const char **slot_node;         /* their nodes' op types, for the attribute names */
	int *slot_at;                   /* their nodes' indexes in the body */
	unsigned char *differs;
	OnnxVec insts;                  /* Inst * */
	int nval;
	const char **val;               /* produced value names of the body, canonical order */
	VType *vt;
	int64_t nodes;
} Variant;

typedef struct Ctx {
	Arena *a;
	Diag *d;
	Onnx__ModelProto *m;
	const OutlineSpec *s;
	StrMap *chain;                  /* ONNX node name -> Chain * */
	StrMap *inst_by_key;            /* IrModule key -> Inst index + 1 */
	OnnxVec inst;                   /* Inst * */
	OnnxVec var;                    /* Variant * */
	StrMap *weights;                /* IR names of parameters, buffers, tensor constants */
	StrMap *taken;                  /* value and node names of the main graph and every graph made */
	StrMap *pkey_of_call;           /* call node name -> its instance's pkey */
	int nfresh;
	OutlineResult *res;
	const OptSelect *body_sel;      /* body_select(), once made */
} Ctx;

typedef struct Chain {
	int n;
	int *inst;                      /* listed instances, outermost first */
} Chain;

/* ---- names ---- */

static const char *
fresh(Ctx *c, const char *base)
{
	const char *n = base;

	while (strmap_get(c->taken, n))
		n = arena_printf(c->a, "%s__f%d", base, ++c->nfresh);
	strmap_put(c->taken, n, c);
	return n;
}

static void
take_graph_names(Ctx *c, const Onnx__GraphProto *g)
{
	for (size_t i = 0; i < g->n_input; i++)
		strmap_put(c->taken, g->input[i]->name, c);
	for (size_t i = 0; i < g->n_initializer; i++)
		strmap_put(c->taken, g->initializer[i]->name, c);
	for (size_t i = 0; i < g->n_node; i++) {
		if (g->node[i]->name)
			strmap_put(c->taken, g->node[i]->name, c);
		for (size_t k = 0; k < g->node[i]->n_output; k++)
			strmap_put(c->taken, g->node[i]->output[k], c);
	}
}

/* ---- which nodes belong to which instance ---- */

/* 1 when cls (qualified) is the listed name (short or qualified). */
static int
class_matches(const char *cls, const char *listed)
{
	size_t n = strlen(cls), k = strlen(listed);

	if (strcmp(cls, listed) == 0)
		return 1;
	return k < n && cls[n - k - 1] == '.' && strcmp(cls + n - k, listed) == 0;
}

static int
listed_class(const Ctx *c, const char *cls)
{
	for (int i = 0; i < c->s->nclass; i++)
		if (class_matches(cls, c->s->classes[i]))
			return i;
	return -1;
}

static int
inst_of(Ctx *c, const IrModule *mod)
{
	intptr_t k = (intptr_t)strmap_get(c->inst_by_key, mod->key);
	Inst *in;
	const char *dot;

	if (k)
		return (int)k - 1;
	in = ARENA_NEW(c->a, Inst);
	in->key = mod->key;
	in->path = mod->path;
	in->cls = mod->cls;
	dot = strrchr(mod->cls, '.');
	in->short_name = dot ? dot + 1 : mod->cls;
	in->domain = dot ? arena_strndup(c->a, mod->cls, (size_t)(dot - mod->cls)) : "local";
	in->variant = -1;
	onnx_vec_push(c->a, &c->inst, in);
	strmap_put(c->inst_by_key, mod->key, (void *)(intptr_t)c->inst.n);
	return (int)c->inst.n - 1;
}

/* Chains of every main-graph node, from its IR node's nn_module_stack. */
static void
build_chains(Ctx *c)
{
	const Onnx__GraphProto *g = c->m->graph;

	for (size_t i = 0; i < g->n_node; i++) {
		const Node *ir = c->s->origin ? strmap_get(c->s->origin, g->node[i]->name) : NULL;
		IrModule *mods;
		int n = ir ? ir_module_stack(c->a, ir, &mods) : 0, k = 0;
		Chain *ch;
		if (!n)
			continue;
		ch = ARENA_NEW(c->a, Chain);
		ch->inst = ARENA_ARRAY(c->a, int, n);
		for (int j = 0; j < n; j++)
			if (listed_class(c, mods[j].cls) >= 0)
				ch->inst[k++] = inst_of(c, &mods[j]);
		ch->n = k;
		if (k)
			strmap_put(c->chain, g->node[i]->name, ch);
	}
}

static int
chain_at(Ctx *c, const OnnxNode *n, int depth)
{
	const Chain *ch = n->name ? strmap_get(c->chain, n->name) : NULL;

	return ch && ch->n > depth ? ch->inst[depth] : -1;
}

/* ---- reads ---- */

/* Calls fn for every name node n reads, its subgraphs' reads included
 * (a body reads outer values by name; names it defines itself are
 * harmless: the callers only care about names defined around n). */
static void
node_reads(const OnnxNode *n, void (*fn)(void *ctx, const char *name), void *ctx);

static void
graph_reads(const Onnx__GraphProto *g, void (*fn)(void *ctx, const char *name), void *ctx)
{
	for (size_t i = 0; i < g->n_node; i++)
		node_reads(g->node[i], fn, ctx);
	for (size_t i = 0; i < g->n_output; i++)
		fn(ctx, g->output[i]->name);
}

static void
node_reads(const OnnxNode *n, void (*fn)(void *ctx, const char *name), void *ctx)
{
	for (size_t k = 0; k < n->n_input; k++)
		if (n->input[k][0])
			fn(ctx, n->input[k]);
	for (size_t k = 0; k < n->n_attribute; k++) {
		if (n->attribute[k]->g)
			graph_reads(n->attribute[k]->g, fn, ctx);
		for (size_t j = 0; j < n->attribute[k]->n_graphs; j++)
			graph_reads(n->attribute[k]->graphs[j], fn, ctx);
	}
}

/* Collects names into an ordered, duplicate-free list. */
typedef struct NameSet {
	Arena *a;
	StrMap *has;
	OnnxVec v;
	const StrMap *only;     /* when set: only names it holds are collected */
	const StrMap *except;   /* when set: names it holds are skipped */
} NameSet;

static void
nameset_add(void *ctx, const char *name)
{
	NameSet *s = ctx;

	if ((s->only && !strmap_get(s->only, name)) || (s->except && strmap_get(s->except, name)) ||
	    strmap_get(s->has, name))
		return;
	strmap_put(s->has, name, s);
	onnx_vec_push(s->a, &s->v, (void *)name);
}

static int
reads_any(const OnnxNode *n, const StrMap *set)
{
	int hit = 0;

	for (size_t k = 0; k < n->n_input && !hit; k++)
		hit = n->input[k][0] && strmap_get(set, n->input[k]);
	for (size_t k = 0; k < n->n_attribute && !hit; k++)
		if (n->attribute[k]->g || n->attribute[k]->n_graphs) {
			/* a subgraph: any of its reads */
			const Onnx__GraphProto *const *gs = n->attribute[k]->g
				? (const Onnx__GraphProto *const *)&n->attribute[k]->g
				: (const Onnx__GraphProto *const *)n->attribute[k]->graphs;
			size_t ng = n->attribute[k]->g ? 1 : n->attribute[k]->n_graphs;
			for (size_t j = 0; j < ng && !hit; j++)
				for (size_t i = 0; i < gs[j]->n_node && !hit; i++)
					hit = reads_any(gs[j]->node[i], set);
			for (size_t j = 0; j < ng && !hit; j++)
				for (size_t i = 0; i < gs[j]->n_output && !hit; i++)
					hit = strmap_get(set, gs[j]->output[i]->name) != NULL;
		}
	return hit;
}

/* ---- a graph being cut ---- */

/* The value_info known for each name of a graph: value_info, inputs, outputs. */
static StrMap *
vi_map(Ctx *c, const Onnx__GraphProto *g)
{
	StrMap *m = strmap_new(c->a, g->n_value_info + g->n_input + g->n_output + 64);

	for (size_t i = 0; i < g->n_value_info; i++)
		strmap_put(m, g->value_info[i]->name, g->value_info[i]);
	for (size_t i = 0; i < g->n_input; i++)
		strmap_put(m, g->input[i]->name, g->input[i]);
	for (size_t i = 0; i < g->n_output; i++)
		strmap_put(m, g->output[i]->name, g->output[i]);
	return m;
}

static Onnx__ValueInfoProto *
vi_named(Ctx *c, const StrMap *vis, const char *name)
{
	Onnx__ValueInfoProto *vi = strmap_get(vis, name), *nv;

	if (vi && strcmp(vi->name, name) == 0)
		return vi;
	nv = ARENA_NEW(c->a, Onnx__ValueInfoProto);
	*nv = (Onnx__ValueInfoProto)ONNX__VALUE_INFO_PROTO__INIT;
	nv->name = (char *)name;
	if (vi)
		nv->type = vi->type;
	return nv;
}

static int outline_graph(Ctx *c, Onnx__GraphProto *g, int depth);

/* 1 when attribute at of a node with op type op can be a function attribute. */
static int
parameterizable(const char *op, const Onnx__AttributeProto *at)
{
	if (at->ref_attr_name && *at->ref_attr_name)
		return 0;
	if (strcmp(op, "Cast") == 0 && strcmp(at->name, "to") == 0)
		return 0;
	switch (at->type) {
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
		return 1;
	default:
		return 0;
	}
}

/* An attribute's value as text (its packed bytes in hex). */
static void
attr_text(Ctx *c, Buf *b, const Onnx__AttributeProto *at)
{
	Onnx__AttributeProto tmp = *at;
	OnnxTensor t;
	size_t n;
	uint8_t *p;

	tmp.name = "";
	if (at->t) {            /* a constant's own name is not its value */
		t = *at->t;
		t.name = "";
		tmp.t = &t;
	}
	n = onnx__attribute_proto__get_packed_size(&tmp);
	p = arena_alloc(c->a, n + 1);
	onnx__attribute_proto__pack(&tmp, p);
	buf_hex(b, p, n);
}

/* The canonical form of a function body: inputs and produced values
 * numbered in order, node names left out, parameterizable attribute values
 * collected in *params (their count in *np) instead of written; a call of a
 * local function writes its instance's values (pkey).  The produced names
 * in order go to *vals (*nval). */
static const char *
body_form(Ctx *c, const OnnxFunctionParts *p, Onnx__AttributeProto ***params, int *np,
          const char ***slot_node, int **slot_at, const char ***vals, int *nval)
{
	StrMap *id = strmap_new(c->a, 256);
	Buf b = {.a = c->a};
	int nv = 0, k = 0, cap = 0, vcap = 0;
	char num[32];

	*params = NULL;
	*vals = NULL;
	for (size_t i = 0; i < p->inputs.n; i++)
		strmap_put(id, p->inputs.v[i], (void *)(intptr_t)++nv);
	for (size_t i = 0; i < p->nodes.n; i++) {
		const OnnxNode *n = p->nodes.v[i];
		cap += (int)n->n_attribute;
		vcap += (int)n->n_output;
	}
	*params = ARENA_ARRAY(c->a, Onnx__AttributeProto *, cap + 1);
	*slot_node = ARENA_ARRAY(c->a, const char *, cap + 1);
	*slot_at = ARENA_ARRAY(c->a, int, cap + 1);
	*vals = ARENA_ARRAY(c->a, const char *, vcap + 1);
	*nval = 0;
	snprintf(num, sizeof num, "in%zu out%zu;", p->inputs.n, p->outputs.n);
	buf_str(&b, num);
	for (size_t i = 0; i < p->nodes.n; i++) {
		const OnnxNode *n = p->nodes.v[i];
		const char *pk = n->name ? strmap_get(c->pkey_of_call, n->name) : NULL;
		buf_str(&b, n->domain ? n->domain : "");
		buf_str(&b, ":");
		buf_str(&b, n->op_type);
		buf_str(&b, "(");
		for (size_t j = 0; j < n->n_input; j++) {
			intptr_t v = n->input[j][0] ? (intptr_t)strmap_get(id, n->input[j]) : 0;
			snprintf(num, sizeof num, "%s%ld", j ? "," : "", (long)(n->input[j][0] ? v : -1));
			buf_str(&b, num);
		}
		buf_str(&b, ")");
		for (size_t j = 0; j < n->n_output; j++) {
			if (n->output[j][0]) {
				strmap_put(id, n->output[j], (void *)(intptr_t)++nv);
				(*vals)[(*nval)++] = n->output[j];
			}
			buf_str(&b, n->output[j][0] ? "o" : "_");
		}
		for (size_t j = 0; j < n->n_attribute; j++) {
			const Onnx__AttributeProto *at = n->attribute[j];
			buf_str(&b, " ");
			buf_str(&b, at->name);
			buf_str(&b, "=");
			if (parameterizable(n->op_type, at)) {
				snprintf(num, sizeof num, "P%d", at->type);
				buf_str(&b, num);
				(*slot_node)[k] = n->op_type;
				(*slot_at)[k] = (int)i;
				(*params)[k++] = (Onnx__AttributeProto *)at;
			} else if (c->s->embedded && at->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR) {
				buf_str(&b, "T");   /* embedded weights: forms are not compared (one function each) */
			} else {
				attr_text(c, &b, at);
			}
		}
		if (pk) {
			buf_str(&b, " call=");
			buf_str(&b, pk);
		}
		buf_str(&b, ";");
	}
	buf_str(&b, "->");
	for (size_t i = 0; i < p->outputs.n; i++) {
		snprintf(num, sizeof num, "%ld,", (long)(intptr_t)strmap_get(id, p->outputs.v[i]));
		buf_str(&b, num);
	}
	*np = k;
	return b.s;
}

static int
attr_equal(Ctx *c, const Onnx__AttributeProto *x, const Onnx__AttributeProto *y)
{
	Buf a = {.a = c->a}, b = {.a = c->a};

	attr_text(c, &a, x);
	attr_text(c, &b, y);
	return strcmp(a.s, b.s) == 0;
}

/* ---- types of the produced values, merged over instances ---- */

static VType
vtype_of(Ctx *c, const Onnx__ValueInfoProto *vi)
{
	const Onnx__TypeProto__Tensor *tt = vi && vi->type && vi->type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE
	                                    ? vi->type->tensor_type : NULL;
	VType t = {0, -1, NULL, NULL};

	if (!tt || !tt->has_elem_type || !tt->elem_type)
		return t;
	t.elem = tt->elem_type;
	if (tt->shape) {
		t.rank = (int)tt->shape->n_dim;
		t.dims = ARENA_ARRAY(c->a, int64_t, t.rank + 1);
		t.params = ARENA_ARRAY(c->a, const char *, t.rank + 1);
		for (int i = 0; i < t.rank; i++) {
			const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
			t.dims[i] = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ? d->dim_value : -1;
			t.params[i] = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM ? d->dim_param : NULL;
		}
	}
	return t;
}

static void
vtype_merge(VType *t, VType u)
{
	if (t->elem != u.elem) {
		t->elem = 0;
		return;
	}
	if (t->rank != u.rank) {
		t->rank = -1;
		return;
	}
	for (int i = 0; i < t->rank; i++) {
		if (t->dims[i] != u.dims[i])
			t->dims[i] = -1;
		if (!t->params[i] || !u.params[i] || strcmp(t->params[i], u.params[i]))
			t->params[i] = NULL;
	}
}

/* ---- one instance ---- */

/* 1 for an initializer that stays a constant of the body in `inputs`
 * mode: not a weight, and small (an int or bool tensor of at most 64
 * elements, or a single element). */
static int
small_const(Ctx *c, const OnnxTensor *t)
{
	int64_t numel = 1;

	if (strmap_get(c->weights, t->name))
		return 0;
	for (size_t i = 0; i < t->n_dims; i++)
		numel *= t->dims[i];
	if (numel <= 1)
		return 1;
	return numel <= 64 && (t->data_type == ONNX_INT64 || t->data_type == ONNX_INT32 || t->data_type == ONNX_BOOL);
}

/* A Constant node making t (named out) inside a function. */
static OnnxNode *
const_node(Ctx *c, OnnxTensor *t, const char *out)
{
	const char *const o[1] = {out};
	OnnxNode *n = onnx_node(c->a, "Constant", arena_printf(c->a, "%s__const", out), 0, NULL, 1, o);
	OnnxTensor *v = ARENA_NEW(c->a, OnnxTensor);
	const uint8_t *raw = onnx_tensor_bytes(c->a, t);
	int64_t numel = 1;

	for (size_t i = 0; i < t->n_dims; i++)
		numel *= t->dims[i];
	/* scalars as value_float / value_int: attributes a call can set */
	if (raw && t->n_dims == 0 && t->data_type == ONNX_FLOAT && numel == 1) {
		onnx_attr_float(c->a, n, "value_float", (float)dtype_decode_f64(DT_FLOAT32, raw));
		return n;
	}
	if (raw && t->n_dims == 0 && t->data_type == ONNX_INT64 && numel == 1) {
		onnx_attr_int(c->a, n, "value_int", dtype_decode_i64(DT_INT64, raw));
		return n;
	}
	*v = *t;
	v->name = "";
	onnx_attr_tensor(c->a, n, "value", v);
	return n;
}

/* The initializer of g named name, or NULL. */
static OnnxTensor *
init_named(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_initializer; i++)
		if (strcmp(g->initializer[i]->name, name) == 0)
			return g->initializer[i];
	return NULL;
}

static void
add_init(Ctx *c, Onnx__GraphProto *g, OnnxTensor *t)
{
	OnnxTensor **ni = ARENA_ARRAY(c->a, OnnxTensor *, g->n_initializer + 1);

	if (g->n_initializer)
		memcpy(ni, g->initializer, sizeof *ni * g->n_initializer);
	ni[g->n_initializer++] = t;
	g->initializer = ni;
}

/* Turns the optimized body of instance in (read by the call from g) into
 * function parts and the call's inputs; finds or makes its variant. */
static int
finish_instance(Ctx *c, Inst *in, Onnx__GraphProto *g, Onnx__GraphProto *body,
                OnnxVec *call_in)
{
	OnnxFunctionParts p = {0};
	StrMap *is_in = strmap_new(c->a, body->n_input + body->n_initializer + 16);
	Onnx__AttributeProto **params;
	const char **slot_node, **vals;
	int *slot_at;
	int np, nval;
	const char *form;
	Variant *v = NULL;
	StrMap *vis;

	for (size_t i = 0; i < body->n_input; i++) {
		onnx_vec_push(c->a, &p.inputs, body->input[i]->name);
		strmap_put(is_in, body->input[i]->name, c);
	}
	for (size_t i = 0; i < body->n_initializer; i++) {
		OnnxTensor *t = body->initializer[i], *up;
		if (c->s->embedded || small_const(c, t)) {
			onnx_vec_push(c->a, &p.nodes, const_node(c, t, t->name));
			continue;
		}
		onnx_vec_push(c->a, &p.inputs, t->name);
		strmap_put(is_in, t->name, c);
		up = init_named(g, t->name);
		if (up != t) {            /* made inside the body: the caller's graph gets it */
			OnnxTensor *nt = ARENA_NEW(c->a, OnnxTensor);
			*nt = *t;
			nt->name = (char *)fresh(c, t->name);
			add_init(c, g, nt);
			up = nt;
		}
		onnx_vec_push(c->a, call_in, up->name);
	}
	for (size_t i = 0; i < body->n_node; i++)
		onnx_vec_push(c->a, &p.nodes, body->node[i]);
	for (size_t i = 0; i < body->n_output; i++) {
		const char *o = body->output[i]->name;
		if (strmap_get(is_in, o)) {   /* a function output must be a node's */
			const char *local = arena_printf(c->a, "%s__out", o);
			onnx_vec_push(c->a, &p.nodes, onnx_node(c->a, "Identity", local, 1, &o, 1, &local));
			o = local;
		}
		onnx_vec_push(c->a, &p.outputs, (char *)o);
	}
	form = body_form(c, &p, &params, &np, &slot_node, &slot_at, &vals, &nval);
	in->nparam = np;
	in->param = params;
	{
		Buf b = {.a = c->a};
		for (int i = 0; i < np; i++) {
			attr_text(c, &b, params[i]);
			buf_str(&b, "|");
		}
		in->pkey = b.s ? b.s : "";
	}
	for (size_t i = 0; !c->s->embedded && i < c->var.n && !v; i++) {
		Variant *w = c->var.v[i];
		if (strcmp(w->cls, in->cls) == 0 && strcmp(w->form, form) == 0)
			v = w;
	}
	vis = vi_map(c, body);
	for (size_t i = 0; i < body->n_initializer; i++) {   /* the constants' types, for value_info */
		const OnnxTensor *t = body->initializer[i];
		if (!strmap_get(vis, t->name))
			strmap_put(vis, t->name, onnx_value_info(c->a, t->name, t->data_type, (int)t->n_dims, t->dims, NULL));
	}
	for (size_t i = 0; i < body->n_output; i++) {      /* an Identity added for an output */
		const char *local = p.outputs.v[i];
		if (strcmp(local, body->output[i]->name) && body->output[i]->type)
			strmap_put(vis, local, body->output[i]);
	}
	if (!v) {
		int k = 0;
		for (size_t i = 0; i < c->var.n; i++)
			k += strcmp(((Variant *)c->var.v[i])->cls, in->cls) == 0;
		v = ARENA_NEW(c->a, Variant);
		v->cls = in->cls;
		v->domain = in->domain;
		v->name = k ? arena_printf(c->a, "%s.%d", in->short_name, k) : in->short_name;
		v->form = form;
		v->parts = p;
		v->nparam = np;
		v->slot = params;
		v->slot_node = slot_node;
		v->slot_at = slot_at;
		v->differs = ARENA_ARRAY(c->a, unsigned char, np + 1);
		v->nval = nval;
		v->val = vals;
		v->vt = ARENA_ARRAY(c->a, VType, nval + 1);
		for (int i = 0; i < nval; i++)
			v->vt[i] = vtype_of(c, strmap_get(vis, vals[i]));
		v->nodes = (int64_t)p.nodes.n;
		v->f = onnx_function(c->a, v->domain, v->name);
		onnx_vec_push(c->a, &c->var, v);
	} else {
		for (int i = 0; i < np; i++)
			if (!attr_equal(c, params[i], v->slot[i]))
				v->differs[i] = 1;
		for (int i = 0; i < nval && i < v->nval; i++)
			vtype_merge(&v->vt[i], vtype_of(c, strmap_get(vis, vals[i])));
	}
	for (size_t i = 0; i < c->var.n; i++)
		if (c->var.v[i] == v)
			in->variant = (int)i;
	onnx_vec_push(c->a, &v->insts, in);
	return 0;
}

/* The rows run inside bodies: the selection less the two that write
 * SimplifiedLayerNormalization, an op onnxruntime defines in the ai.onnx
 * domain although ONNX does not: onnxruntime 1.30 crashes (SIGSEGV) loading
 * a model whose local function holds one. */
static const OptSelect *
body_select(Ctx *c)
{
	OptSelect *acc;

	if (c->body_sel)
		return c->body_sel;
	acc = opt_select_union(c->a, NULL, NULL);
	for (int i = 0; i < OPT_NROW; i++)
		if (opt_select_has(c->s->sel, i) && i != OPT_SimplifiedLayerNormOrt && i != OPT_SimplifiedLayerNormScaleOrt)
			acc = opt_select_union(c->a, acc, opt_select_one(c->a, i));
	return c->body_sel = acc;
}

/* Optimizes body as a model of its own (the opsets of the model). */
static int
optimize_body(Ctx *c, Onnx__GraphProto *body)
{
	Onnx__ModelProto tmp = *c->m;
	int rc;

	tmp.graph = body;
	tmp.n_functions = 0;
	tmp.functions = NULL;
	tmp.opset_import = ARENA_ARRAY(c->a, Onnx__OperatorSetIdProto *, c->m->n_opset_import + 1);
	memcpy(tmp.opset_import, c->m->opset_import, sizeof *tmp.opset_import * c->m->n_opset_import);
	rc = opt_model(&tmp, c->a, body_select(c), c->s->log, NULL, c->d);
	for (size_t i = 0; i < tmp.n_opset_import; i++)   /* com.microsoft, when a fusion made one */
		onnx_import(c->a, &c->m->opset_import, &c->m->n_opset_import, tmp.opset_import[i]->domain,
		            tmp.opset_import[i]->version);
	return rc;
}

typedef struct Span {
	int first, last;        /* indexes in g->node of the instance's first and last node */
} Span;

/* Moves the nodes between the instance's first and last that are not its
 * own: before it when they do not read from it, after it otherwise.  0 on
 * success (then its nodes are g->node[first .. first+count)), -1 when a
 * node that reads from the region also feeds it. */
static int
make_contiguous(Ctx *c, Onnx__GraphProto *g, int depth, int id, Span *sp, int *count)
{
	int n = sp->last - sp->first + 1, nb = 0, nm = 0, na = 0;
	OnnxNode **before = ARENA_ARRAY(c->a, OnnxNode *, n), **mine = ARENA_ARRAY(c->a, OnnxNode *, n),
	         **after = ARENA_ARRAY(c->a, OnnxNode *, n);
	StrMap *tainted = strmap_new(c->a, 64), *late = strmap_new(c->a, 64);

	for (int i = sp->first; i <= sp->last; i++) {
		OnnxNode *nd = g->node[i];
		if (chain_at(c, nd, depth) == id) {
			if (reads_any(nd, late))
				return -1;
			mine[nm++] = nd;
			for (size_t k = 0; k < nd->n_output; k++)
				if (nd->output[k][0])
					strmap_put(tainted, nd->output[k], c);
		} else if (reads_any(nd, tainted)) {
			after[na++] = nd;
			for (size_t k = 0; k < nd->n_output; k++)
				if (nd->output[k][0]) {
					strmap_put(tainted, nd->output[k], c);
					strmap_put(late, nd->output[k], c);
				}
		} else {
			before[nb++] = nd;
		}
	}
	memcpy(g->node + sp->first, before, sizeof *before * (size_t)nb);
	memcpy(g->node + sp->first + nb, mine, sizeof *mine * (size_t)nm);
	memcpy(g->node + sp->first + nb + nm, after, sizeof *after * (size_t)na);
	sp->first += nb;
	*count = nm;
	return 0;
}

/* Cuts instance id's nodes g->node[first .. first+count) out of g into a
 * body graph, outlines inside it, optimizes it and puts a call in their
 * place. */
static int
outline_one(Ctx *c, Onnx__GraphProto *g, int depth, int id, int first, int count, const StrMap *vis)
{
	Inst *in = c->inst.v[id];
	Onnx__GraphProto *body = ARENA_NEW(c->a, Onnx__GraphProto);
	StrMap *made = strmap_new(c->a, (size_t)count * 2 + 16), *inits = strmap_new(c->a, g->n_initializer + 16);
	StrMap *outside = strmap_new(c->a, 256);
	NameSet reads = {.a = c->a, .has = strmap_new(c->a, 128)};
	NameSet outs = {.a = c->a, .has = strmap_new(c->a, 128)};
	OnnxVec rt_in = {0}, ini = {0}, call_in = {0};
	OnnxNode *call;
	int rc;

	for (int i = first; i < first + count; i++)
		for (size_t k = 0; k < g->node[i]->n_output; k++)
			if (g->node[i]->output[k][0])
				strmap_put(made, g->node[i]->output[k], c);
	for (size_t i = 0; i < g->n_initializer; i++)
		strmap_put(inits, g->initializer[i]->name, g->initializer[i]);
	reads.except = made;
	for (int i = first; i < first + count; i++)
		node_reads(g->node[i], nameset_add, &reads);
	/* names defined around g (an enclosing graph's) cannot be read by a
	 * function: only the graph's own values and initializers are inputs */
	for (size_t i = 0; i < g->n_input; i++)
		strmap_put(outside, g->input[i]->name, c);
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t k = 0; k < g->node[i]->n_output; k++)
			if (g->node[i]->output[k][0])
				strmap_put(outside, g->node[i]->output[k], c);
	for (size_t i = 0; i < reads.v.n; i++) {
		const char *nm = reads.v.v[i];
		if (strmap_get(inits, nm))
			onnx_vec_push(c->a, &ini, strmap_get(inits, nm));
		else if (strmap_get(outside, nm))
			onnx_vec_push(c->a, &rt_in, (void *)nm);
	}
	outs.only = made;
	for (size_t i = 0; i < g->n_node; i++)
		if (i < (size_t)first || i >= (size_t)(first + count))
			node_reads(g->node[i], nameset_add, &outs);
	for (size_t i = 0; i < g->n_output; i++)
		nameset_add(&outs, g->output[i]->name);

	*body = (Onnx__GraphProto)ONNX__GRAPH_PROTO__INIT;
	body->name = (char *)arena_printf(c->a, "%s", in->path);
	body->n_node = (size_t)count;
	body->node = ARENA_ARRAY(c->a, OnnxNode *, count + 1);
	memcpy(body->node, g->node + first, sizeof *body->node * (size_t)count);
	body->n_initializer = ini.n;
	body->initializer = (OnnxTensor **)ini.v;
	body->n_input = rt_in.n;
	body->input = ARENA_ARRAY(c->a, Onnx__ValueInfoProto *, rt_in.n + 1);
	for (size_t i = 0; i < rt_in.n; i++)
		body->input[i] = vi_named(c, vis, rt_in.v[i]);
	body->n_output = outs.v.n;
	body->output = ARENA_ARRAY(c->a, Onnx__ValueInfoProto *, outs.v.n + 1);
	for (size_t i = 0; i < outs.v.n; i++)
		body->output[i] = vi_named(c, vis, outs.v.v[i]);
	body->value_info = ARENA_ARRAY(c->a, Onnx__ValueInfoProto *, g->n_value_info + 1);
	for (size_t i = 0; i < g->n_value_info; i++)
		if (strmap_get(made, g->value_info[i]->name))
			body->value_info[body->n_value_info++] = g->value_info[i];

	if ((rc = outline_graph(c, body, depth + 1)) || (rc = optimize_body(c, body)))
		return rc;
	take_graph_names(c, body);
	for (size_t i = 0; i < rt_in.n; i++)
		onnx_vec_push(c->a, &call_in, rt_in.v[i]);
	if ((rc = finish_instance(c, in, g, body, &call_in)))
		return rc;

	/* the call, in the place of the nodes */
	{
		const char **outn = ARENA_ARRAY(c->a, const char *, outs.v.n + 1);
		Variant *v = c->var.v[in->variant];
		for (size_t i = 0; i < outs.v.n; i++)
			outn[i] = outs.v.v[i];
		call = onnx_node(c->a, v->name, fresh(c, in->path[0] ? in->path : in->short_name),
		                 (int)call_in.n, (const char *const *)call_in.v, (int)outs.v.n, outn);
		call->domain = (char *)v->domain;
		in->call = call;
		strmap_put(c->pkey_of_call, call->name, (void *)in->pkey);
	}
	g->node[first] = call;
	memmove(g->node + first + 1, g->node + first + count, sizeof *g->node * (g->n_node - (size_t)(first + count)));
	g->n_node -= (size_t)count - 1;
	{
		size_t k = 0;
		for (size_t i = 0; i < g->n_value_info; i++)
			if (!strmap_get(made, g->value_info[i]->name) || strmap_get(outs.has, g->value_info[i]->name))
				g->value_info[k++] = g->value_info[i];
		g->n_value_info = k;
	}
	return 0;
}

/* Outlines every listed instance at nesting depth `depth` of g. */
static int
outline_graph(Ctx *c, Onnx__GraphProto *g, int depth)
{
	StrMap *vis = vi_map(c, g);

	for (size_t i = 0; i < g->n_node; i++) {
		int id = chain_at(c, g->node[i], depth), count, rc;
		Span sp = {(int)i, (int)i};
		if (id < 0)
			continue;
		for (size_t j = i + 1; j < g->n_node; j++)
			if (chain_at(c, g->node[j], depth) == id)
				sp.last = (int)j;
		if (make_contiguous(c, g, depth, id, &sp, &count)) {
			Inst *in = c->inst.v[id];
			diag_report(c->d, YE_FUNCTION_NOT_OUTLINED, &(DiagAt){.file = c->s->prog ? c->s->prog->path : NULL},
			            "module '%s' (%s) stays inline: a node between its nodes reads from it and feeds it",
			            in->path, in->cls);
			for (size_t j = i; j < g->n_node; j++) {   /* its nodes, and those of its inner instances, stay */
				Chain *ch = g->node[j]->name ? strmap_get(c->chain, g->node[j]->name) : NULL;
				if (ch && ch->n > depth && ch->inst[depth] == id)
					ch->n = depth;
			}
			continue;
		}
		if ((rc = outline_one(c, g, depth, id, sp.first, count, vis)))
			return rc;
		/* nodes moved before the region may belong to another instance: look again from i */
		i--;
	}
	return 0;
}

/* ---- the end: function attributes, value_info, FunctionProtos ---- */

static void
finish_variant(Ctx *c, Variant *v)
{
	OnnxFunctionParts *p = &v->parts;

	for (int k = 0; k < v->nparam; k++) {
		Onnx__AttributeProto *at = v->slot[k], *ref;
		char *pname;
		if (!v->differs[k])
			continue;
		pname = arena_printf(c->a, "%s_%d_%s", v->slot_node[k], v->slot_at[k], at->name);
		onnx_vec_push(c->a, &p->attrs, (void *)pname);
		for (size_t i = 0; i < v->insts.n; i++) {
			Inst *in = v->insts.v[i];
			Onnx__AttributeProto *val = ARENA_NEW(c->a, Onnx__AttributeProto), **na;
			if (!in->call)
				continue;
			*val = *in->param[k];
			val->name = (char *)pname;
			na = ARENA_ARRAY(c->a, Onnx__AttributeProto *, in->call->n_attribute + 1);
			if (in->call->n_attribute)
				memcpy(na, in->call->attribute, sizeof *na * in->call->n_attribute);
			na[in->call->n_attribute++] = val;
			in->call->attribute = na;
		}
		/* the body refers to it: a fresh attribute, so that the instance's own stays as it was */
		ref = ARENA_NEW(c->a, Onnx__AttributeProto);
		*ref = (Onnx__AttributeProto)ONNX__ATTRIBUTE_PROTO__INIT;
		ref->name = at->name;
		ref->ref_attr_name = (char *)pname;
		ref->has_type = 1;
		ref->type = at->type;
		{
			OnnxNode *n = p->nodes.v[v->slot_at[k]];
			for (size_t j = 0; j < n->n_attribute; j++)
				if (n->attribute[j] == at)
					n->attribute[j] = ref;
		}
	}
	for (int i = 0; i < v->nval; i++) {
		const VType *t = &v->vt[i];
		if (t->elem)
			onnx_vec_push(c->a, &p->value_info, onnx_value_info(c->a, v->val[i], t->elem, t->rank, t->dims, t->params));
	}
}

/* 1 when some node of the program has an nn_module_stack. */
static int
any_module_stack(const Ctx *c)
{
	const Graph *g = c->s->prog ? c->s->prog->graph : NULL;

	for (int i = 0; g && i < g->nnode; i++)
		if (g->nodes[i]->nn_module_stack && *g->nodes[i]->nn_module_stack)
			return 1;
	return 0;
}

int
opt_outline(Onnx__ModelProto *m, Arena *a, const OutlineSpec *s, OutlineResult *res, Diag *d)
{
	Ctx ctx = {0}, *c = &ctx;
	int rc;

	memset(res, 0, sizeof *res);
	if (!s->nclass)
		return 0;
	c->a = a;
	c->d = d;
	c->m = m;
	c->s = s;
	c->res = res;
	c->chain = strmap_new(a, m->graph->n_node + 64);
	c->inst_by_key = strmap_new(a, 256);
	c->taken = strmap_new(a, m->graph->n_node * 2 + 256);
	c->pkey_of_call = strmap_new(a, 256);
	c->weights = strmap_new(a, 256);
	for (int i = 0; s->prog && i < s->prog->ninput_spec; i++) {
		const InputSpec *is = &s->prog->input_specs[i];
		if ((is->kind == IN_PARAMETER || is->kind == IN_BUFFER || is->kind == IN_TENSOR_CONSTANT) &&
		    is->arg->kind == ARG_TENSOR && is->arg->u.v)
			strmap_put(c->weights, is->arg->u.v->name, c);
	}
	take_graph_names(c, m->graph);
	build_chains(c);
	if ((rc = outline_graph(c, m->graph, 0)))
		return rc;
	for (size_t i = 0; i < c->var.n; i++) {
		Variant *v = c->var.v[i];
		finish_variant(c, v);
	}
	/* after every call node has its attributes: the protos, innermost
	 * first (they were made in that order), so imports see final nodes */
	for (size_t i = 0; i < c->var.n; i++) {
		Variant *v = c->var.v[i];
		onnx_function_finish(a, m, v->f, &v->parts);
		onnx_model_add_function(a, m, v->f);
	}
	for (size_t i = 0; i < m->n_functions; i++)
		for (size_t k = 0; k < m->functions[i]->n_opset_import; k++)
			onnx_import(a, &m->opset_import, &m->n_opset_import, m->functions[i]->opset_import[k]->domain,
			            m->functions[i]->opset_import[k]->version);

	/* the result, for the report */
	res->functions = ARENA_ARRAY(a, OutlineFunction, c->var.n + 1);
	for (size_t i = 0; i < c->var.n; i++) {
		Variant *v = c->var.v[i];
		OutlineFunction *f = &res->functions[res->nfunction++];
		f->domain = v->domain;
		f->name = v->name;
		f->cls = v->cls;
		f->ninstance = (int)v->insts.n;
		f->instances = ARENA_ARRAY(a, const char *, v->insts.n + 1);
		for (size_t k = 0; k < v->insts.n; k++)
			f->instances[k] = ((Inst *)v->insts.v[k])->path;
		f->nodes = (int64_t)v->f->n_node;
		f->ninput = (int)v->f->n_input;
		f->noutput = (int)v->f->n_output;
		f->nattr = (int)v->f->n_attribute;
	}
	res->inlined = ARENA_ARRAY(a, const char *, c->inst.n + 1);
	for (size_t i = 0; i < c->inst.n; i++)
		if (((Inst *)c->inst.v[i])->variant < 0)
			res->inlined[res->ninline++] = ((Inst *)c->inst.v[i])->path;
	res->unused = ARENA_ARRAY(a, const char *, s->nclass + 1);
	for (int k = 0; k < s->nclass; k++) {
		int seen = 0;
		for (size_t i = 0; i < c->inst.n && !seen; i++)
			seen = class_matches(((Inst *)c->inst.v[i])->cls, s->classes[k]);
		if (!seen) {
			res->unused[res->nunused++] = s->classes[k];
			int nmod = s->prog ? s->prog->nmodule_fqn : 0;
			const char *why = c->inst.n || strmap_count(c->chain) || any_module_stack(c) ? ""
			                  : nmod ? arena_printf(a, " (the program's module_call_graph lists %d module%s, but "
			                                        "the nodes carry no nn_module_stack)", nmod, nmod == 1 ? "" : "s")
			                  : " (the nodes carry no nn_module_stack)";
			diag_report(d, YE_FUNCTION_CLASS_UNUSED, &(DiagAt){.file = s->prog ? s->prog->path : NULL},
			            "`functions` lists '%s', but no module of the model is of that class%s", s->classes[k], why);
		}
	}
	return 0;
}
