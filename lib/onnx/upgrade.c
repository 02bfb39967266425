/* upgrade.c: raising an ONNX model's ai.onnx opset (7 and up) to a later one,
 * so that the optimizer, which knows opsets 17 to 26, can take files written
 * by older exporters.
 *
 * Each node's operator is at its last version not above the model's opset
 * (opversions.def); the rows of upgrade.def between that version and the
 * target say what must change, each an adapter below.  Everything else
 * carries over as it is: the versions in between only added element types or
 * attributes whose defaults keep the old behaviour.  Adapters rewrite the
 * node in place and add Constant nodes (never initializers, so the same code
 * serves subgraphs and local functions) before it, and at most a Reshape
 * after it.  Subgraphs (If, Loop, Scan bodies) and functions importing
 * ai.onnx are upgraded the same way; other domains are kept as they are.
 * A node that cannot be upgraded exactly is refused by name: node, operator,
 * version and why. */
#include "onnx/onnx.h"

#include <stdlib.h>
#include <string.h>

#include "core/core.h"

typedef struct VersionRow {
	const char *op;
	int since, deprecated;
} VersionRow;

static const VersionRow versions[] = {
#define V(op, since, dep) {op, since, dep},
#include "onnx/opversions.def"
#undef V
};

typedef struct Up Up;
typedef int (*Adapter)(Up *u, OnnxNode *n);

typedef struct UpgradeRow {
	const char *op;
	int version;
	Adapter fn;
	const char *why;
} UpgradeRow;

struct Up {
	Arena *a;
	Diag *d;
	const char *label;
	int from, to;
	StrMap *names;          /* every value and node name in the model */
	int fresh;
	OnnxVec out;            /* the graph's new node list */
	OnnxNode *after;        /* a node to place after the one being adapted */
	OnnxUpgradeStats *st;
};

#define N_VERSIONS ((int)(sizeof versions / sizeof versions[0]))

/* The first row of op in versions[], or -1. */
static int
version_first(const char *op)
{
	int lo = 0, hi = N_VERSIONS;

	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (strcmp(versions[mid].op, op) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < N_VERSIONS && strcmp(versions[lo].op, op) == 0 ? lo : -1;
}

/* The row of op's version in effect at opset, or NULL when op has none yet
 * (or is unknown). */
static const VersionRow *
version_at(const char *op, int opset)
{
	const VersionRow *r = NULL;

	for (int i = version_first(op); i >= 0 && i < N_VERSIONS && strcmp(versions[i].op, op) == 0; i++)
		if (versions[i].since <= opset)
			r = &versions[i];
	return r;
}

/* ---- names and small nodes ---- */

static const char *
fresh_name(Up *u, const char *base)
{
	const char *s;

	do
		s = arena_printf(u->a, "%s_up%d", base && *base ? base : "v", ++u->fresh);
	while (strmap_get(u->names, s));
	strmap_put(u->names, s, (void *)s);
	return s;
}

static void
emit(Up *u, OnnxNode *n)
{
	onnx_vec_push(u->a, &u->out, n);
}

/* A Constant node before the node being adapted; returns its output. */
static const char *
constant(Up *u, const char *base, int elem, int rank, const int64_t *dims, const void *data, size_t nbytes)
{
	const char *out = fresh_name(u, base);
	void *copy = arena_alloc(u->a, nbytes ? nbytes : 1);
	OnnxNode *c;

	if (nbytes)   /* data may be NULL for no bytes (an empty list of ints) */
		memcpy(copy, data, nbytes);
	c = onnx_node(u->a, "Constant", fresh_name(u, "Constant"), 0, NULL, 1, &out);
	onnx_attr_tensor(u->a, c, "value", onnx_tensor(u->a, NULL, elem, rank, dims, copy, nbytes));
	emit(u, c);
	return out;
}

static const char *
const_ints(Up *u, const char *base, int k, const int64_t *v)
{
	int64_t dim = k;

	return constant(u, base, ONNX_INT64, 1, &dim, v, sizeof *v * (size_t)k);
}

/* A scalar of x's element type holding v: a float32 Constant cast like x. */
static const char *
scalar_like(Up *u, const char *base, float v, const char *x)
{
	const char *c = constant(u, base, ONNX_FLOAT, 0, NULL, &v, sizeof v);
	const char *in[2] = {c, x}, *out = fresh_name(u, base);

	emit(u, onnx_node(u->a, "CastLike", fresh_name(u, "CastLike"), 2, in, 1, &out));
	return out;
}

/* ---- attributes and inputs ---- */

static Onnx__AttributeProto *
attr(OnnxNode *n, const char *name)
{
	for (size_t i = 0; i < n->n_attribute; i++)
		if (n->attribute[i]->name && strcmp(n->attribute[i]->name, name) == 0)
			return n->attribute[i];
	return NULL;
}

static void
attr_drop(OnnxNode *n, const char *name)
{
	size_t j = 0;

	for (size_t i = 0; i < n->n_attribute; i++)
		if (!n->attribute[i]->name || strcmp(n->attribute[i]->name, name) != 0)
			n->attribute[j++] = n->attribute[i];
	n->n_attribute = j;
}

static const char *
attr_string(Up *u, OnnxNode *n, const char *name, const char *def)
{
	Onnx__AttributeProto *at = attr(n, name);

	return at && at->has_s ? arena_strndup(u->a, (const char *)at->s.data, at->s.len) : def;
}

/* Sets input i of n to name, padding skipped optional inputs with "". */
static void
set_input(Up *u, OnnxNode *n, size_t i, const char *name)
{
	if (i >= n->n_input) {
		char **in = ARENA_ARRAY(u->a, char *, i + 2);
		for (size_t k = 0; k <= i; k++)
			in[k] = k < n->n_input ? n->input[k] : (char *)"";
		n->input = in;
		n->n_input = i + 1;
	}
	n->input[i] = (char *)name;
}

static int
refuse(Up *u, const OnnxNode *n, const char *why)
{
	return diag_report(u->d, YE_ONNX_UPGRADE, &(DiagAt){.file = u->label},
	                   "node '%s' (%s): cannot be upgraded from opset %d to %d: %s",
	                   n->name && *n->name ? n->name : "(unnamed)", n->op_type, u->from, u->to, why);
}

/* ---- the adapters of upgrade.def ---- */

/* An ints attribute `name` becomes input `i` (dropped when absent). */
static int
ints_to_input(Up *u, OnnxNode *n, const char *name, size_t i)
{
	Onnx__AttributeProto *at = attr(n, name);

	if (!at)
		return 0;
	set_input(u, n, i, const_ints(u, name, (int)at->n_ints, at->ints));
	attr_drop(n, name);
	return 0;
}

static int
up_axes_input(Up *u, OnnxNode *n)
{
	return ints_to_input(u, n, "axes", 1);
}

static int
up_split_input(Up *u, OnnxNode *n)
{
	return ints_to_input(u, n, "split", 1);
}

static int
up_split_outputs(Up *u, OnnxNode *n)
{
	if ((n->n_input < 2 || !*n->input[1]) && !attr(n, "num_outputs"))
		onnx_attr_int(u->a, n, "num_outputs", (int64_t)n->n_output);
	return 0;
}

static int
up_slice_inputs(Up *u, OnnxNode *n)
{
	Onnx__AttributeProto *s = attr(n, "starts"), *e = attr(n, "ends");

	if (!s || !e)
		return refuse(u, n, "Slice without starts or ends");
	ints_to_input(u, n, "starts", 1);
	ints_to_input(u, n, "ends", 2);
	return ints_to_input(u, n, "axes", 3);
}

static int
up_topk_k(Up *u, OnnxNode *n)
{
	Onnx__AttributeProto *k = attr(n, "k");

	if (!k || !k->has_i)
		return refuse(u, n, "TopK without k");
	set_input(u, n, 1, const_ints(u, "k", 1, &k->i));
	attr_drop(n, "k");
	return 0;
}

/* Clip-6's min and max (floats, defaulting to the type's range) become
 * inputs of the input's own type. */
static int
up_clip_inputs(Up *u, OnnxNode *n)
{
	static const char *const names[2] = {"min", "max"};

	for (int i = 0; i < 2; i++) {
		Onnx__AttributeProto *at = attr(n, names[i]);
		if (at) {
			set_input(u, n, (size_t)i + 1, scalar_like(u, names[i], at->f, n->input[0]));
			attr_drop(n, names[i]);
		}
	}
	return 0;
}

static int
up_pad_inputs(Up *u, OnnxNode *n)
{
	Onnx__AttributeProto *p = attr(n, "pads"), *v = attr(n, "value");

	if (!p)
		return refuse(u, n, "Pad without pads");
	ints_to_input(u, n, "pads", 1);
	if (v) {
		if (v->f != 0)
			set_input(u, n, 2, scalar_like(u, "value", v->f, n->input[0]));
		attr_drop(n, "value");
	}
	return 0;
}

static int
up_dropout_ratio(Up *u, OnnxNode *n)
{
	Onnx__AttributeProto *r = attr(n, "ratio");
	float ratio = r ? r->f : 0.5f;

	attr_drop(n, "ratio");
	set_input(u, n, 1, constant(u, "ratio", ONNX_FLOAT, 0, NULL, &ratio, sizeof ratio));
	return 0;
}

static int
up_bn_spatial(Up *u, OnnxNode *n)
{
	Onnx__AttributeProto *s = attr(n, "spatial");

	if (s && s->i == 0)
		return refuse(u, n, "spatial=0 (statistics per element, not per channel) has no later form");
	attr_drop(n, "spatial");
	return 0;
}

static int
up_bn_outputs(Up *u, OnnxNode *n)
{
	for (size_t i = 1; i < n->n_output; i++)
		if (n->output[i] && *n->output[i])
			return refuse(u, n, "its training-mode outputs (running and saved statistics) have no later form");
	n->n_output = n->n_output ? 1 : 0;
	return 0;
}

static int
up_dft_axis(Up *u, OnnxNode *n)
{
	Onnx__AttributeProto *at = attr(n, "axis");
	int64_t axis = at ? at->i : 1;

	attr_drop(n, "axis");
	set_input(u, n, 2, constant(u, "axis", ONNX_INT64, 0, NULL, &axis, sizeof axis));
	return 0;
}

static int
up_gridsample_mode(Up *u, OnnxNode *n)
{
	const char *m = attr_string(u, n, "mode", "bilinear");

	attr_drop(n, "mode");
	onnx_attr_string(u->a, n, "mode", strcmp(m, "bicubic") == 0 ? "cubic" :
	                 strcmp(m, "bilinear") == 0 ? "linear" : m);
	return 0;
}

static int
up_roialign_mode(Up *u, OnnxNode *n)
{
	if (!attr(n, "coordinate_transformation_mode"))
		onnx_attr_string(u->a, n, "coordinate_transformation_mode", "output_half_pixel");
	return 0;
}

static int
up_scatter(Up *u, OnnxNode *n)
{
	(void)u;
	n->op_type = (char *)"ScatterElements";
	return 0;
}

static int
up_upsample_scales(Up *u, OnnxNode *n)
{
	Onnx__AttributeProto *s = attr(n, "scales");
	int64_t k;

	if (!s)
		return refuse(u, n, "Upsample without scales");
	k = (int64_t)s->n_floats;
	set_input(u, n, 1, constant(u, "scales", ONNX_FLOAT, 1, &k, s->floats, sizeof(float) * s->n_floats));
	attr_drop(n, "scales");
	return 0;
}

/* Upsample-9 (X, scales) is Resize-10 (X, scales) with the same mode. */
static int
up_upsample_resize(Up *u, OnnxNode *n)
{
	(void)u;
	if (n->n_input < 2)
		return refuse(u, n, "Upsample without a scales input");
	n->op_type = (char *)"Resize";
	n->n_input = 2;
	return 0;
}

/* Resize-10 (X, scales) maps output coordinates to input ones as x / scale
 * (asymmetric) and takes the floor for nearest: Resize-11 says so with
 * attributes, and an empty roi input. */
static int
up_resize_roi(Up *u, OnnxNode *n)
{
	const char *mode = attr_string(u, n, "mode", "nearest");
	int64_t zero = 0;
	float none = 0;

	if (n->n_input != 2)
		return refuse(u, n, "Resize-10 takes exactly X and scales");
	set_input(u, n, 2, n->input[1]);
	set_input(u, n, 1, constant(u, "roi", ONNX_FLOAT, 1, &zero, &none, 0));
	onnx_attr_string(u->a, n, "coordinate_transformation_mode", "asymmetric");
	if (strcmp(mode, "nearest") == 0)
		onnx_attr_string(u->a, n, "nearest_mode", "floor");
	return 0;
}

/* Softmax-12 (and LogSoftmax, Hardmax) normalize the 2-D view of the input
 * flattened at `axis` (default 1); 13 normalizes along one axis.  The same
 * computation: Flatten(x, axis), op(axis=-1), Reshape back to Shape(x). */
static int
up_softmax_axis(Up *u, OnnxNode *n)
{
	Onnx__AttributeProto *at = attr(n, "axis");
	int64_t axis = at ? at->i : 1;
	const char *x = n->input[0], *shape = fresh_name(u, "shape"), *flat = fresh_name(u, "flat");
	const char *y = n->output[0], *y2 = fresh_name(u, y);
	const char *rin[2] = {y2, shape};
	OnnxNode *f;

	emit(u, onnx_node(u->a, "Shape", fresh_name(u, "Shape"), 1, &x, 1, &shape));
	f = onnx_node(u->a, "Flatten", fresh_name(u, "Flatten"), 1, &x, 1, &flat);
	onnx_attr_int(u->a, f, "axis", axis);
	emit(u, f);
	n->input[0] = (char *)flat;
	attr_drop(n, "axis");
	onnx_attr_int(u->a, n, "axis", -1);
	n->output[0] = (char *)y2;
	u->after = onnx_node(u->a, "Reshape", fresh_name(u, "Reshape"), 2, rin, 1, &y);
	return 0;
}

/* GroupNormalization-18's scale and bias hold one value per group; 21's one
 * per channel: each is repeated C / G times, C = Shape(x)[1]. */
static int
up_groupnorm(Up *u, OnnxNode *n)
{
	Onnx__AttributeProto *g = attr(n, "num_groups");
	const char *x = n->input[0], *c, *q, *tile, *expshape;
	int64_t start = 1, end = 2, one_neg[2] = {-1, 1}, flat = -1;
	OnnxNode *sh;

	if (!g || n->n_input < 3)
		return refuse(u, n, "GroupNormalization without num_groups, scale or bias");
	c = fresh_name(u, "channels");
	sh = onnx_node(u->a, "Shape", fresh_name(u, "Shape"), 1, &x, 1, &c);
	onnx_attr_int(u->a, sh, "start", start);
	onnx_attr_int(u->a, sh, "end", end);
	emit(u, sh);
	{
		const char *in[2] = {c, const_ints(u, "groups", 1, &g->i)};
		q = fresh_name(u, "per_group");
		emit(u, onnx_node(u->a, "Div", fresh_name(u, "Div"), 2, in, 1, &q));
	}
	{
		int64_t one = 1;
		const char *in[2] = {const_ints(u, "one", 1, &one), q};
		OnnxNode *cat;
		expshape = fresh_name(u, "expand_shape");
		cat = onnx_node(u->a, "Concat", fresh_name(u, "Concat"), 2, in, 1, &expshape);
		onnx_attr_int(u->a, cat, "axis", 0);
		emit(u, cat);
	}
	tile = const_ints(u, "column", 2, one_neg);
	for (size_t i = 1; i <= 2; i++) {
		const char *r0 = fresh_name(u, n->input[i]), *ex = fresh_name(u, n->input[i]);
		const char *r1 = fresh_name(u, n->input[i]);
		const char *in0[2] = {n->input[i], tile}, *in1[2] = {r0, expshape};
		const char *in2[2] = {ex, const_ints(u, "flat", 1, &flat)};
		emit(u, onnx_node(u->a, "Reshape", fresh_name(u, "Reshape"), 2, in0, 1, &r0));
		emit(u, onnx_node(u->a, "Expand", fresh_name(u, "Expand"), 2, in1, 1, &ex));
		emit(u, onnx_node(u->a, "Reshape", fresh_name(u, "Reshape"), 2, in2, 1, &r1));
		n->input[i] = (char *)r1;
	}
	return 0;
}

static const UpgradeRow upgrades[] = {
#define U(op, version, fn, why) {op, version, fn, why},
#include "onnx/upgrade.def"
#undef U
};

#define N_UPGRADES ((int)(sizeof upgrades / sizeof upgrades[0]))

/* ---- the walk ---- */

static void
name_all(Up *u, const Onnx__GraphProto *g);

static void
name_nodes(Up *u, OnnxNode *const *nodes, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const OnnxNode *nd = nodes[i];
		if (nd->name)
			strmap_put(u->names, nd->name, nd->name);
		for (size_t k = 0; k < nd->n_output; k++)
			strmap_put(u->names, nd->output[k], nd->output[k]);
		for (size_t k = 0; k < nd->n_attribute; k++) {
			if (nd->attribute[k]->g)
				name_all(u, nd->attribute[k]->g);
			for (size_t j = 0; j < nd->attribute[k]->n_graphs; j++)
				name_all(u, nd->attribute[k]->graphs[j]);
		}
	}
}

static void
name_all(Up *u, const Onnx__GraphProto *g)
{
	for (size_t i = 0; i < g->n_input; i++)
		strmap_put(u->names, g->input[i]->name, g->input[i]->name);
	for (size_t i = 0; i < g->n_initializer; i++)
		if (g->initializer[i]->name)
			strmap_put(u->names, g->initializer[i]->name, g->initializer[i]->name);
	name_nodes(u, g->node, g->n_node);
}

static int graph_upgrade(Up *u, Onnx__GraphProto *g);

static int
is_default_domain(const char *d)
{
	return !d || !*d || strcmp(d, "ai.onnx") == 0;
}

/* Runs n through the rows between its version and the target, emitting it
 * (and what its adapters add) into u->out. */
static int
node_upgrade(Up *u, OnnxNode *n)
{
	int rc = 0;

	for (size_t k = 0; k < n->n_attribute && !rc; k++) {
		if (n->attribute[k]->g)
			rc = graph_upgrade(u, n->attribute[k]->g);
		for (size_t j = 0; j < n->attribute[k]->n_graphs && !rc; j++)
			rc = graph_upgrade(u, n->attribute[k]->graphs[j]);
	}
	if (rc)
		return rc;
	u->after = NULL;
	if (is_default_domain(n->domain)) {
		const VersionRow *v = version_at(n->op_type, u->from), *t;
		int at;
		if (!v)
			return refuse(u, n, version_first(n->op_type) < 0 ? "not an ai.onnx operator"
			                                                  : "the operator does not exist at the model's opset");
		at = v->since;
		for (int i = 0; i < N_UPGRADES; i++) {
			const UpgradeRow *r = &upgrades[i];
			if (strcmp(r->op, n->op_type) != 0 || r->version <= at || r->version > u->to)
				continue;
			if (!r->fn)
				return refuse(u, n, r->why);
			if ((rc = r->fn(u, n)))
				return rc;
			u->st->nodes++;
			u->st->counts[i]++;
			at = r->version;
			i = -1;         /* again from the top: the op may have changed */
		}
		t = version_at(n->op_type, u->to);
		if (!t || t->deprecated)
			return refuse(u, n, "the operator was removed before the target opset");
	}
	emit(u, n);
	if (u->after)
		emit(u, u->after);
	return 0;
}

static int
nodes_upgrade(Up *u, OnnxNode ***nodes, size_t *n)
{
	OnnxVec saved = u->out;
	int rc = 0;

	u->out = (OnnxVec){0};
	for (size_t i = 0; i < *n && !rc; i++)
		rc = node_upgrade(u, (*nodes)[i]);
	if (!rc) {
		*nodes = (OnnxNode **)u->out.v;
		*n = u->out.n;
	}
	u->out = saved;
	return rc;
}

static int
graph_upgrade(Up *u, Onnx__GraphProto *g)
{
	return nodes_upgrade(u, &g->node, &g->n_node);
}

int
onnx_upgrade(Onnx__ModelProto *m, int to, Arena *a, const char *label, OnnxUpgradeStats *st, Diag *d)
{
	Up u = {.a = a, .d = d, .label = label, .to = to, .st = st};
	int rc = 0;

	*st = (OnnxUpgradeStats){.counts = ARENA_ARRAY(a, int, N_UPGRADES)};
	memset(st->counts, 0, sizeof(int) * N_UPGRADES);
	for (size_t i = 0; i < m->n_opset_import; i++)
		if (is_default_domain(m->opset_import[i]->domain))
			u.from = (int)m->opset_import[i]->version;
	st->from = u.from;
	st->to = to;
	if (u.from >= to || !m->graph)
		return 0;
	if (u.from < 7)
		return diag_report(d, YE_ONNX_INPUT, &(DiagAt){.file = label},
		                   "the model is written for ai.onnx opset %d: opsets before 7 (whose "
		                   "broadcasting was an attribute) cannot be upgraded", u.from);
	u.names = strmap_new(a, 1024);
	name_all(&u, m->graph);
	for (size_t i = 0; i < m->n_functions; i++)
		name_nodes(&u, m->functions[i]->node, m->functions[i]->n_node);
	rc = graph_upgrade(&u, m->graph);
	for (size_t i = 0; i < m->n_functions && !rc; i++) {
		Onnx__FunctionProto *f = m->functions[i];
		for (size_t k = 0; k < f->n_opset_import; k++)
			if (is_default_domain(f->opset_import[k]->domain)) {
				rc = nodes_upgrade(&u, &f->node, &f->n_node);
				f->opset_import[k]->version = to;
			}
	}
	if (rc)
		return rc;
	for (size_t i = 0; i < m->n_opset_import; i++)
		if (is_default_domain(m->opset_import[i]->domain))
			m->opset_import[i]->version = to;
	if (m->ir_version < onnx_ir_version(to))
		m->ir_version = onnx_ir_version(to);
	return 0;
}

const char *
onnx_upgrade_summary(Arena *a, const OnnxUpgradeStats *st)
{
	char *s = "";

	for (int i = 0; i < N_UPGRADES; i++)
		if (st->counts && st->counts[i])
			s = arena_printf(a, "%s%s%s-%d: %d", s, *s ? ", " : "", upgrades[i].op,
			                 upgrades[i].version, st->counts[i]);
	return *s ? s : "no node changed";
}

/* For test_upgrade: the rows, to run each. */
int
onnx_upgrade_rows(void)
{
	return N_UPGRADES;
}

const char *
onnx_upgrade_row(int i, int *version, int *exact)
{
	*version = upgrades[i].version;
	*exact = upgrades[i].fn != NULL;
	return upgrades[i].op;
}
