/* pass_cse.c: CommonSubexpressions (patterns.def): a node equal to an
 * earlier one (op, domain, inputs, attributes) is merged into it, in one
 * topological sweep; random ops and nodes with subgraphs are left alone. */
#include "opt/opt.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/core.h"
#include "onnx/onnx.h"
#include "internal.h"

static int
nondeterministic(const OnnxNode *m)
{
	static const char *const ops[] = {"RandomNormal", "RandomUniform", "RandomNormalLike",
		"RandomUniformLike", "Multinomial", "Bernoulli", "Dropout", NULL};

	for (const char *const *p = ops; *p; p++)
		if ((*p)[0] == m->op_type[0] && (*p)[1] == m->op_type[1] && strcmp(m->op_type, *p) == 0)
			return 1;
	for (size_t a = 0; a < m->n_attribute; a++)
		if (m->attribute[a]->g || m->attribute[a]->n_graphs)
			return 1;
	/* a custom domain's kernel may have effects or randomness: never merged */
	return m->domain && *m->domain && onnx_op_of(m) < 0;
}

static uint64_t
hash_str(uint64_t h, const char *s)
{
	return s ? opt_mix(h, (const uint8_t *)s, strlen(s)) : h;
}

/* A hash of attribute at, consistent with attr_equal(): the kinds it
 * compares by packed bytes hash their tensor too (what packs: type and
 * bytes only when present), so that ConstantOfShape nodes that differ in
 * their value are not compared by packing both. */
static uint64_t
attr_hash(uint64_t h, const Onnx__AttributeProto *at)
{
	h = hash_str(h, at->name) ^ (uint64_t)at->type * 0x9e3779b97f4a7c15ULL;
	h = opt_mix(h, (const uint8_t *)&at->i, sizeof at->i);
	h = opt_mix(h, (const uint8_t *)&at->f, sizeof at->f);
	h = opt_mix(h, (const uint8_t *)at->ints, at->n_ints * sizeof *at->ints);
	h = opt_mix(h, (const uint8_t *)at->floats, at->n_floats * sizeof *at->floats);
	h = opt_mix(h, at->s.data, at->s.len);
	if (at->t && at->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT &&
	    at->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT &&
	    at->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS &&
	    at->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS &&
	    at->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING) {
		const OnnxTensor *t = at->t;
		int64_t dt = t->has_data_type ? t->data_type : -1;
		h = opt_mix(h, (const uint8_t *)&dt, sizeof dt);
		h = opt_mix(h, (const uint8_t *)t->dims, t->n_dims * sizeof *t->dims);
		if (t->has_raw_data)
			h = opt_mix(h, (const uint8_t *)&(uint64_t){opt_content_hash(t->raw_data.data, t->raw_data.len)}, 8);
	}
	return h;
}

/* 1 when two attributes are equal: compared field by field for the plain
 * kinds, by their packed bytes for tensors and the rest. */
static int
attr_equal(const Onnx__AttributeProto *a, const Onnx__AttributeProto *b)
{
	size_t la, lb;
	uint8_t *pa, *pb;
	int eq;

	if (strcmp(a->name, b->name) != 0 || a->type != b->type)
		return 0;
	switch (a->type) {
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
		return a->i == b->i;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
		return memcmp(&a->f, &b->f, sizeof a->f) == 0;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
		return a->n_ints == b->n_ints && !memcmp(a->ints, b->ints, a->n_ints * sizeof *a->ints);
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
		return a->n_floats == b->n_floats && !memcmp(a->floats, b->floats, a->n_floats * sizeof *a->floats);
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
		return a->s.len == b->s.len && !memcmp(a->s.data, b->s.data, a->s.len);
	default:
		la = protobuf_c_message_get_packed_size(&a->base);
		lb = protobuf_c_message_get_packed_size(&b->base);
		if (la != lb)
			return 0;
		pa = malloc(la + 1);
		pb = malloc(lb + 1);
		if (!pa || !pb)
			die("out of memory");
		protobuf_c_message_pack(&a->base, pa);
		protobuf_c_message_pack(&b->base, pb);
		eq = memcmp(pa, pb, la) == 0;
		free(pa);
		free(pb);
		return eq;
	}
}

/* A hash of what makes node n what it computes: op, domain, output count,
 * inputs and attributes (in order). */
static uint64_t
node_hash(Opt *o, int n)
{
	const OptNode *x = opt_node(o, n);
	uint64_t h = hash_str(hash_str(0x84222325cbf29ce4ULL, x->n->op_type), x->n->domain) ^ (uint64_t)x->nout;

	h = opt_mix(h, (const uint8_t *)x->in, (size_t)x->nin * sizeof *x->in);
	for (size_t a = 0; a < x->n->n_attribute; a++)
		h = attr_hash(h, x->n->attribute[a]);
	return h;
}

/* 1 when nodes a and b compute the same thing. */
static int
same_node(Opt *o, int a, int b)
{
	const OptNode *x = opt_node(o, a), *y = opt_node(o, b);
	const char *dx = x->n->domain ? x->n->domain : "", *dy = y->n->domain ? y->n->domain : "";

	if (x->nin != y->nin || x->nout != y->nout || x->n->n_attribute != y->n->n_attribute ||
	    strcmp(x->n->op_type, y->n->op_type) != 0 || strcmp(dx, dy) != 0 ||
	    memcmp(x->in, y->in, (size_t)x->nin * sizeof *x->in) != 0)
		return 0;
	for (size_t k = 0; k < x->n->n_attribute; k++)
		if (!attr_equal(x->n->attribute[k], y->n->attribute[k]))
			return 0;
	return 1;
}

/* Requires the index; merges a node into an earlier equal one (op, domain,
 * inputs, attributes), in one topological sweep with an open-addressing
 * table by node_hash(); candidates with the same hash are compared in full. */
int
opt_pass_cse(Opt *o)
{
	size_t cap = 16;
	int *slot, merged = 0;
	uint64_t *hs;

	while (cap < (size_t)o->live * 2)
		cap *= 2;
	slot = ARENA_ARRAY(o->a, int, cap);         /* node id + 1, 0 empty */
	hs = ARENA_ARRAY(o->a, uint64_t, cap);
	for (int n = o->head, next; n >= 0; n = next) {
		const OptNode *x = opt_node(o, n);
		uint64_t h;
		size_t i;
		int prev = -1, skip = 0;
		next = x->next;
		if (nondeterministic(x->n) || !x->nout)
			continue;
		h = node_hash(o, n);
		for (i = h & (cap - 1); slot[i]; i = (i + 1) & (cap - 1))
			if (hs[i] == h && same_node(o, slot[i] - 1, n)) {
				prev = slot[i] - 1;
				break;
			}
		if (prev < 0) {
			slot[i] = n + 1;
			hs[i] = h;
			continue;
		}
		for (int k = 0; k < x->nout; k++)
			skip |= x->out[k] >= 0 && (opt_val(o, x->out[k])->is_output || opt_val(o, x->out[k])->pinned ||
			                           opt_node(o, prev)->out[k] < 0);
		if (skip)
			continue;
		o->hint = x->n->name;
		for (int k = 0; k < x->nout; k++)
			if (opt_node(o, n)->out[k] >= 0)
				opt_replace(o, opt_node(o, n)->out[k], opt_node(o, prev)->out[k]);
		/* n is swept after the walk: nothing before `next` changes */
		merged++;
	}
	opt_sweep(o);
	return merged;
}
