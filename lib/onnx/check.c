/* check.c: is an ONNX model given as input well formed enough to optimize?
 *
 * The optimizer, the FLOPs count and the writer were written for graphs the
 * lowering made, and treat a broken graph as a bug of ours (die()).  A
 * model read from a file is the user's: this check turns each way it could
 * break those invariants into a diagnostic first.  Names are single
 * assignment (a graph input, an initializer or one node output each), a
 * node reads only names defined before it (or in an enclosing graph, for
 * the bodies of If, Loop and Scan), every output is defined, every tensor
 * holds exactly the bytes its type and dims say, and every attribute holds
 * the kind of value its type says.  A tensor's typed values (float_data,
 * int32_data, ...) become raw bytes: the one form the optimizer reads. */
#include "onnx/onnx.h"

#include <string.h>

#include "core/core.h"

#define MAX_DEPTH 64

typedef struct Checker {
	Arena *a;
	Diag *d;
	const char *label;
	const OnnxNode *node;   /* the node being checked, named by the diagnostics */
	const char *graph;      /* the name of the graph holding it */
} Checker;

/* A scope: the names defined so far in one graph, and its parent's. */
typedef struct Scope {
	StrMap *names;
	const struct Scope *up;
} Scope;

/* The node's name, or its op type when it has none. */
static const char *
node_name(const OnnxNode *n)
{
	return n->name && *n->name ? n->name : n->op_type ? n->op_type : "";
}

static int
bad(Checker *c, const char *fmt, const char *a, const char *b)
{
	const OnnxNode *n = c->node;

	/* file and graph first, as a reader's finding: "m.onnx:main_graph: node 'r1' (Relu): ..." */
	return diag_report(c->d, YE_ONNX_INPUT, &(DiagAt){.file = c->label, .entry = n ? c->graph : NULL,
	                   .graph = n ? c->graph : NULL, .node = n ? node_name(n) : NULL,
	                   .target = n ? n->op_type : NULL}, fmt, a ? a : "", b ? b : "");
}

static int
defined(const Scope *s, const char *name)
{
	for (; s; s = s->up)
		if (strmap_get(s->names, name))
			return 1;
	return 0;
}

static int
define(Checker *c, Scope *s, const char *name, const char *what)
{
	if (!name || !*name)
		return bad(c, "%s%s has no name", what, NULL);
	if (strmap_get(s->names, name))
		return bad(c, "'%s' is defined twice (%s): a graph's names are assigned once", name, what);
	strmap_put(s->names, name, (void *)name);
	return 0;
}

/* The number of elements of t, or -1 when its dims are negative or its
 * bytes would pass INT64_MAX. */
static int64_t
numel(const OnnxTensor *t, DType dt)
{
	int64_t n;
	uint64_t bytes;

	if (size_numel(t->dims, t->n_dims, &n) || size_bytes(n, dtype_size(dt), &bytes))
		return -1;
	return n;
}

/* Writes the typed values of t as its raw bytes (little-endian, the
 * element type's width; the 16- and 8-bit types and bool hold their bit
 * patterns in int32_data, uint32 in uint64_data, as onnx.proto says). */
static void
make_raw(Arena *a, OnnxTensor *t, DType dt, int64_t n)
{
	size_t w = (size_t)dtype_size(dt);
	uint8_t *out = arena_alloc(a, (size_t)n * w + 1);

	for (int64_t i = 0; i < n; i++) {
		uint64_t v;
		double f = 0;
		int isfloat = 0;
		if (t->n_float_data) {
			dtype_encode_f64(DT_FLOAT32, out + (size_t)i * w, t->float_data[i]);
			continue;
		}
		if (t->n_double_data) {
			f = t->double_data[i];
			isfloat = 1;
		}
		if (isfloat) {
			dtype_encode_f64(DT_FLOAT64, out + (size_t)i * w, f);
			continue;
		}
		v = t->n_int64_data ? (uint64_t)t->int64_data[i]
		    : t->n_uint64_data ? t->uint64_data[i] : (uint64_t)(uint32_t)t->int32_data[i];
		for (size_t k = 0; k < w; k++)
			out[(size_t)i * w + k] = (uint8_t)(v >> (8 * k));
	}
	t->raw_data.data = out;
	t->raw_data.len = (size_t)n * w;
	t->has_raw_data = 1;
	t->n_float_data = t->n_int32_data = t->n_int64_data = t->n_double_data = t->n_uint64_data = 0;
}

static int
check_tensor(Checker *c, OnnxTensor *t)
{
	const char *name = t->name && *t->name ? t->name : "(unnamed)";
	DType dt = dtype_from_onnx(t->data_type);
	int64_t n = numel(t, dt);
	size_t have;

	if (dt == DT_UNKNOWN || !dtype_size(dt))
		return diag_report(c->d, YE_ONNX_INPUT, &(DiagAt){.file = c->label},
		                   "tensor '%s': element type %d is not one this optimizer handles", name,
		                   (int)t->data_type);
	if (n < 0)
		return bad(c, "tensor '%s': a negative or too large dimension%s", name, NULL);
	if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
		return bad(c, "tensor '%s': external data was not resolved%s", name, NULL);
	if (t->n_string_data || t->base.n_unknown_fields)
		return bad(c, "tensor '%s': string data, segments or fields this reader does not know%s", name, NULL);
	if (t->has_raw_data) {
		uint64_t want;
		size_bytes(n, dtype_size(dt), &want);   /* cannot fail: numel() checked it */
		if ((uint64_t)t->raw_data.len != want)
			return diag_report(c->d, YE_ONNX_INPUT, &(DiagAt){.file = c->label},
			                   "tensor '%s': %zu bytes of raw data, its type and dims want %llu", name,
			                   t->raw_data.len, (unsigned long long)want);
		if (t->n_float_data || t->n_int32_data || t->n_int64_data || t->n_double_data || t->n_uint64_data)
			return bad(c, "tensor '%s': both raw data and typed data%s", name, NULL);
		return 0;
	}
	have = t->n_float_data + t->n_int32_data + t->n_int64_data + t->n_double_data + t->n_uint64_data;
	if (!have && !n) {
		t->has_raw_data = 1;   /* an empty tensor: no bytes either way */
		return 0;
	}
	if ((uint64_t)have != (uint64_t)n)
		return diag_report(c->d, YE_ONNX_INPUT, &(DiagAt){.file = c->label},
		                   "tensor '%s': %zu values, its dims want %lld", name, have, (long long)n);
	/* each element type has one typed field (onnx.proto); another is a lie */
	switch (t->data_type) {
	case ONNX_FLOAT: case ONNX_COMPLEX64:
		have = t->n_float_data;
		break;
	case ONNX_DOUBLE: case ONNX_COMPLEX128:
		have = t->n_double_data;
		break;
	case ONNX_INT64:
		have = t->n_int64_data;
		break;
	case ONNX_UINT64: case ONNX_UINT32:
		have = t->n_uint64_data;
		break;
	default:
		have = t->n_int32_data;
		break;
	}
	if ((uint64_t)have != (uint64_t)n)
		return bad(c, "tensor '%s': its values are in a field its element type does not use%s", name, NULL);
	if (t->data_type == ONNX_COMPLEX64 || t->data_type == ONNX_COMPLEX128)
		return bad(c, "tensor '%s': complex values in typed fields are not supported%s", name, NULL);
	make_raw(c->a, t, dt, n);
	return 0;
}

static int check_graph(Checker *c, Onnx__GraphProto *g, const Scope *up, int depth);

/* A function body is kept as written, but the opset upgrade walks it (and
 * the graphs of its attributes): every node there needs an op_type too.
 * Depth is bounded by load.c's pre-scan. */
static int
typed_nodes(Checker *c, size_t n, Onnx__NodeProto **nodes, int depth)
{
	for (size_t i = 0; i < n; i++) {
		if (!nodes[i]->op_type || !*nodes[i]->op_type)
			return bad(c, "a node of a model-local function has no op_type%s%s", NULL, NULL);
		for (size_t k = 0; k < nodes[i]->n_attribute; k++) {
			const Onnx__AttributeProto *at = nodes[i]->attribute[k];
			if (depth > 64)
				return bad(c, "subgraphs nest deeper than 64%s%s", NULL, NULL);
			if (at->g && typed_nodes(c, at->g->n_node, at->g->node, depth + 1))
				return DIAG_INPUT;
			for (size_t j = 0; j < at->n_graphs; j++)
				if (typed_nodes(c, at->graphs[j]->n_node, at->graphs[j]->node, depth + 1))
					return DIAG_INPUT;
		}
	}
	return 0;
}

static int
check_attribute(Checker *c, Onnx__AttributeProto *at, const Scope *s, int depth)
{
	int ok;

	if (!at->name || !*at->name)
		return bad(c, "an attribute has no name%s%s", NULL, NULL);
	if (at->ref_attr_name && *at->ref_attr_name)
		return bad(c, "attribute '%s' refers to a function attribute outside a function%s",
		           at->name, NULL);
	/* a graph held by an attribute of another type would go unchecked,
	 * yet the upgrade and the writer walk it */
	if ((at->g && at->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH) ||
	    (at->n_graphs && at->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS))
		return bad(c, "attribute '%s' holds a graph its type does not say%s", at->name, NULL);
	switch (at->type) {
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT: ok = at->has_f; break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT: ok = at->has_i; break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING: ok = at->has_s; break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR: ok = at->t && !check_tensor(c, at->t); break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH:
		if (!at->g)
			return bad(c, "attribute '%s' is a graph but holds none%s", at->name, NULL);
		return check_graph(c, at->g, s, depth + 1);
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS: ok = !at->n_ints && !at->n_strings; break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS: ok = !at->n_floats && !at->n_strings; break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS: ok = !at->n_floats && !at->n_ints; break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS:
		for (size_t i = 0; i < at->n_tensors; i++)
			if (check_tensor(c, at->tensors[i]))
				return DIAG_INPUT;
		ok = 1;
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS:
		for (size_t i = 0; i < at->n_graphs; i++)
			if (check_graph(c, at->graphs[i], s, depth + 1))
				return DIAG_INPUT;
		ok = 1;
		break;
	default:
		ok = 0;
		break;
	}
	if (!ok)
		return c->d->code ? c->d->code
		       : bad(c, "attribute '%s' does not hold the kind of value its type says%s",
		             at->name, NULL);
	return 0;
}

/* A value_info-like entry: a name and, when typed, a tensor type whose
 * dims are not negative. */
static int
check_value(Checker *c, const Onnx__ValueInfoProto *v, const char *what)
{
	const Onnx__TypeProto *t;

	if (!v->name || !*v->name)
		return bad(c, "%s without a name%s", what, NULL);
	if (!(t = v->type))
		return 0;
	if (t->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && t->tensor_type && t->tensor_type->shape)
		for (size_t i = 0; i < t->tensor_type->shape->n_dim; i++) {
			const Onnx__TensorShapeProto__Dimension *dm = t->tensor_type->shape->dim[i];
			if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && dm->dim_value < 0)
				return bad(c, "'%s': a negative dimension in its type (%s)", v->name, what);
			if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && !dm->dim_param)
				return bad(c, "'%s': a dim_param without text (%s)", v->name, what);
		}
	return 0;
}

static int
check_graph(Checker *c, Onnx__GraphProto *g, const Scope *up, int depth)
{
	Scope s = {strmap_new(c->a, 64), up};

	if (depth > MAX_DEPTH)
		return bad(c, "subgraphs nest deeper than 64%s%s", NULL, NULL);
	for (size_t i = 0; i < g->n_input; i++)
		if (check_value(c, g->input[i], "graph input") || define(c, &s, g->input[i]->name, "a graph input"))
			return DIAG_INPUT;
	for (size_t i = 0; i < g->n_initializer; i++) {
		OnnxTensor *t = g->initializer[i];
		if (check_tensor(c, t))
			return DIAG_INPUT;
		/* an initializer may also be listed as an input (IR < 4 style) */
		if (!strmap_get(s.names, t->name ? t->name : "") && define(c, &s, t->name, "an initializer"))
			return DIAG_INPUT;
	}
	if (g->base.n_unknown_fields)
		return bad(c, "graph '%s' has fields this reader does not know (sparse initializers, "
		           "quantization annotations)%s", g->name, NULL);
	for (size_t i = 0; i < g->n_node; i++) {
		const OnnxNode *n = g->node[i], *outer = c->node;
		const char *outer_graph = c->graph;
		int rc = 0;
		if (!n->op_type || !*n->op_type)
			return bad(c, "node %s of the graph has no op_type%s", arena_printf(c->a, "%zu", i), NULL);
		c->node = n;
		c->graph = g->name && *g->name ? g->name : "graph";
		for (size_t k = 0; k < n->n_input && !rc; k++)
			if (!n->input[k] || (*n->input[k] && !defined(&s, n->input[k])))
				rc = bad(c, "reads '%s', which no graph input, initializer or earlier node defines%s",
				         n->input[k] ? n->input[k] : "", NULL);
		for (size_t k = 0; k < n->n_attribute && !rc; k++)
			rc = check_attribute(c, n->attribute[k], &s, depth);
		if (!rc && !n->n_output)
			rc = bad(c, "the node has no output%s%s", NULL, NULL);
		for (size_t k = 0; k < n->n_output && !rc; k++)
			if (!n->output[k])
				rc = bad(c, "an output without a name%s%s", NULL, NULL);
			else if (*n->output[k])
				rc = define(c, &s, n->output[k], arena_printf(c->a, "an output of node '%s'", node_name(n)));
		c->node = outer;
		c->graph = outer_graph;
		if (rc)
			return DIAG_INPUT;
	}
	for (size_t i = 0; i < g->n_output; i++)
		if (check_value(c, g->output[i], "graph output"))
			return DIAG_INPUT;
		else if (!defined(&s, g->output[i]->name))
			return bad(c, "graph output '%s' is not defined%s", g->output[i]->name, NULL);
	for (size_t i = 0; i < g->n_value_info; i++)
		if (check_value(c, g->value_info[i], "value_info"))
			return DIAG_INPUT;
	return 0;
}

int
onnx_model_check(Onnx__ModelProto *m, Arena *a, const char *label, Diag *d)
{
	Checker c = {a, d, label, NULL, NULL};

	if (!m->graph)
		return bad(&c, "the model has no graph%s%s", NULL, NULL);
	/* Model-local functions are kept as they are: the optimizer works on the
	 * main graph, where a call is an op of the function's domain, and never
	 * enters a body (nor does the FLOPs count); the writer copies them. */
	for (size_t i = 0; i < m->n_functions; i++) {
		if (!m->functions[i]->name || !*m->functions[i]->name)
			return bad(&c, "a model-local function has no name%s%s", NULL, NULL);
		if (typed_nodes(&c, m->functions[i]->n_node, m->functions[i]->node, 0))
			return DIAG_INPUT;
	}
	return check_graph(&c, m->graph, NULL, 0);
}
