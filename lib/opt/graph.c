/* graph.c: the optimizer's values and what a pattern reads through them
 * (see opt.h for the rules): value ids and names, consumers, node inputs
 * and outputs, attributes, element types and shapes, constant contents.
 * The bottom of lib/opt/: it calls nothing else of the layer.
 *
 * Values and nodes are small integers into arena arrays that grow by
 * doubling, so a pattern keeps ids, never pointers, across an edit.  Every
 * value knows its producer and its consumers (an unordered list; each node
 * input remembers where its use sits, so removing one is O(1)). */
#include "opt/opt.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "onnx/onnx.h"
#include "internal.h"

/* ---- growth ---- */

/* Makes room for one more element in an arena array of n used, *cap allocated. */
void *
opt_grow(Arena *a, void *arr, int n, int *cap, size_t size)
{
	void *p;

	if (n < *cap)
		return arr;
	*cap = *cap ? *cap * 2 : 8;
	p = arena_alloc(a, size * (size_t)*cap);
	if (n)
		memcpy(p, arr, size * (size_t)n);
	return p;
}

/* ---- values ---- */

/* 1 when x is defined outside the graph's nodes and initializers: a graph
 * input, or a value of an enclosing graph. */
int
opt_from_outside(const OptValue *x)
{
	return x->is_input || x->outer;
}

int
opt_val_new(Opt *o, const char *name)
{
	OptValue *v;

	o->val = opt_grow(o->a, o->val, o->nval, &o->capval, sizeof *o->val);
	v = &o->val[o->nval];
	memset(v, 0, sizeof *v);
	v->name = name;
	v->producer = -1;
	v->rank = -1;
	strmap_put(o->byname, name, (void *)(intptr_t)(o->nval + 1));
	return o->nval++;
}

/* The slot of pointer p in a table of n (a power of two) hits: by the
 * address bits below the page, so the same run hits the same slots
 * wherever the heap is mapped. */
OptNameHit *
opt_hit_slot(OptNameHit *t, int n, const char *p)
{
	return &t[((uintptr_t)p >> 4) & (uintptr_t)(n - 1)];
}

/* The value named name, created when unknown; -1 for "" (omitted).  A
 * pointer seen before is trusted when its value still bears that very
 * pointer as its name: a value's name is unique in byname, so it is the
 * value byname would give. */
int
opt_val_intern(Opt *o, const char *name)
{
	OptNameHit *h;
	intptr_t id;

	if (!name || !*name)
		return -1;
	h = o->hits ? opt_hit_slot(o->hits, OPT_NAME_HITS, name) : NULL;
	if (h && h->name == name && h->id < o->nval && o->val[h->id].name == name)
		return h->id;
	id = (intptr_t)strmap_get(o->byname, name);
	id = id ? id - 1 : opt_val_new(o, name);
	if (h)
		*h = (OptNameHit){name, (int)id};
	return (int)id;
}

/* 1 when s names a value here or in an enclosing graph (a subgraph must
 * not shadow an outer name). */
static int
name_taken(Opt *o, StrMap *taken, const char *s)
{
	if (strmap_get(taken, s))
		return 1;
	if (taken != o->byname)
		return 0;
	for (Opt *p = o->parent; p; p = p->parent)
		if (strmap_get(p->byname, s))
			return 1;
	return 0;
}

/* A name not taken yet: base itself or base__K. */
const char *
opt_fresh_name(Opt *o, StrMap *taken, const char *base)
{
	const char *s = base;

	while (name_taken(o, taken, s))
		s = arena_printf(o->a, "%s__%d", base, ++o->nfresh);
	return s;
}

/* a followed by b, in the arena (names are made per rewrite: printf's
 * format parsing would cost more than the rest of a small rewrite). */
const char *
opt_name_cat(Opt *o, const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	char *s = arena_alloc(o->a, na + nb + 1);

	memcpy(s, a, na);
	memcpy(s + na, b, nb + 1);
	return s;
}

int
opt_val_fresh(Opt *o)
{
	const char *base = opt_name_cat(o, o->hint ? o->hint : "opt", "__o");

	return opt_val_new(o, opt_fresh_name(o, o->byname, base));
}

void
opt_use_add(Opt *o, int v, int n, int k)
{
	OptValue *x = &o->val[v];

	x->use = opt_grow(o->a, x->use, x->nuse, &x->capuse, sizeof *x->use);
	x->use[x->nuse] = (OptUse){n, k};
	o->node[n].upos[k] = x->nuse++;
}

int
opt_nread(Opt *o, int v)
{
	const OptValue *x = &o->val[v];

	return x->nuse + (x->is_output || x->pinned);
}

/* Removes the use (n, k) of v; the producer of a value left unread goes
 * to the sweep list, and a value left with one reader puts it and its
 * producer back on the worklist (single-reader patterns may match now). */
void
opt_use_del(Opt *o, int v, int n, int k)
{
	OptValue *x = &o->val[v];
	int pos = o->node[n].upos[k];

	if (pos >= x->nuse || x->use[pos].node != n || x->use[pos].slot != k)
		die("optimizer: use list of '%s' is inconsistent", x->name);
	x->use[pos] = x->use[--x->nuse];
	if (pos < x->nuse)
		o->node[x->use[pos].node].upos[x->use[pos].slot] = pos;
	if (opt_nread(o, v) == 0 && x->producer >= 0) {
		o->sweep = opt_grow(o->a, o->sweep, o->nsweep, &o->capsweep, sizeof *o->sweep);
		o->sweep[o->nsweep++] = x->producer;
	} else if (opt_nread(o, v) == 1) {
		if (x->nuse)
			opt_enqueue(o, x->use[0].node);
		if (x->producer >= 0)
			opt_enqueue(o, x->producer);
	}
}

/* ---- reading ---- */

int
opt_in(Opt *o, int n, int k)
{
	return k < o->node[n].nin ? o->node[n].in[k] : -1;
}

int
opt_out(Opt *o, int n, int k)
{
	return k < o->node[n].nout ? o->node[n].out[k] : -1;
}

int
opt_plain_domain(const char *d)
{
	return !d || !*d || strcmp(d, "ai.onnx") == 0;
}

int
opt_is(Opt *o, int n, const char *op)
{
	const OnnxNode *m = o->node[n].n;
	/* op types start with a capital, domains do not: only "dom:Op" has a colon */
	const char *colon = op[0] >= 'a' && op[0] <= 'z' ? strchr(op, ':') : NULL;

	if (o->node[n].dead)
		return 0;
	if (!colon)
		return m->op_type[0] == op[0] && strcmp(m->op_type, op) == 0 && opt_plain_domain(m->domain);
	return strcmp(m->op_type, colon + 1) == 0 && m->domain &&
	       strlen(m->domain) == (size_t)(colon - op) && strncmp(m->domain, op, (size_t)(colon - op)) == 0;
}

int
opt_prod(Opt *o, int v, const char *op)
{
	int p = v >= 0 ? o->val[v].producer : -1;

	return p >= 0 && opt_is(o, p, op) ? p : -1;
}

int
opt_only_use(Opt *o, int v, int n)
{
	const OptValue *x = &o->val[v];

	return x->nuse == 1 && !x->is_output && !x->pinned && x->use[0].node == n;
}

int
opt_only_out0(Opt *o, int n)
{
	for (int k = 1; k < o->node[n].nout; k++)
		if (o->node[n].out[k] >= 0 && opt_nread(o, o->node[n].out[k]))
			return 0;
	return 1;
}

OnnxNode *
opt_msg(Opt *o, int n)
{
	return o->node[n].n;
}

/* ---- attributes ---- */

Onnx__AttributeProto *
opt_attr(Opt *o, int n, const char *name)
{
	const OnnxNode *m = o->node[n].n;

	for (size_t i = 0; i < m->n_attribute; i++)
		if (strcmp(m->attribute[i]->name, name) == 0)
			return m->attribute[i];
	return NULL;
}

int64_t
opt_attr_i(Opt *o, int n, const char *name, int64_t def)
{
	const Onnx__AttributeProto *at = opt_attr(o, n, name);

	return at && at->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT ? at->i : def;
}

double
opt_attr_f(Opt *o, int n, const char *name, double def)
{
	const Onnx__AttributeProto *at = opt_attr(o, n, name);

	return at && at->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT ? at->f : def;
}

const char *
opt_attr_s(Opt *o, int n, const char *name, const char *def)
{
	const Onnx__AttributeProto *at = opt_attr(o, n, name);

	if (!at || at->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING)
		return def;
	return arena_strndup(o->a, (const char *)at->s.data, at->s.len);
}

int
opt_attr_ints(Opt *o, int n, const char *name, int64_t *buf, int max)
{
	const Onnx__AttributeProto *at = opt_attr(o, n, name);

	if (!at || at->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS)
		return -1;
	for (size_t i = 0; i < at->n_ints && (int)i < max; i++)
		buf[i] = at->ints[i];
	return (int)at->n_ints;
}

int
opt_attr_other(Opt *o, int n, const char *const *known)
{
	const OnnxNode *m = o->node[n].n;

	for (size_t i = 0; i < m->n_attribute; i++) {
		int ok = 0;
		for (const char *const *k = known; *k && !ok; k++)
			ok = strcmp(*k, m->attribute[i]->name) == 0;
		if (!ok)
			return 1;
	}
	return 0;
}

void
opt_del_attr(Opt *o, int n, const char *name)
{
	OnnxNode *m = o->node[n].n;
	size_t k = 0;

	for (size_t i = 0; i < m->n_attribute; i++)
		if (strcmp(m->attribute[i]->name, name) != 0)
			m->attribute[k++] = m->attribute[i];
	m->n_attribute = k;
}

/* ---- types ---- */

int
opt_rank(Opt *o, int v)
{
	return v >= 0 ? o->val[v].rank : -1;
}

int
opt_elem(Opt *o, int v)
{
	return v >= 0 ? o->val[v].elem : 0;
}

int
opt_dim_eq(OptDim a, OptDim b)
{
	return onnx_dim_eq(a, b);
}

int
opt_same_shape(Opt *o, int a, int b)
{
	const OptValue *x, *y;

	if (a < 0 || b < 0)     /* an absent input ("") has no value to compare */
		return 0;
	x = &o->val[a];
	y = &o->val[b];
	if (x->rank < 0 || x->rank != y->rank)
		return 0;
	for (int i = 0; i < x->rank; i++)
		if (!opt_dim_eq(x->dims[i], y->dims[i]))
			return 0;
	return 1;
}

int
opt_static(Opt *o, int v)
{
	return opt_numel(o, v) >= 0;
}

int64_t
opt_numel(Opt *o, int v)
{
	const OptValue *x;
	int64_t n = 1;

	if (v < 0 || (x = &o->val[v])->rank < 0)
		return -1;
	for (int i = 0; i < x->rank; i++) {
		if (x->dims[i].v < 0)
			return -1;
		n *= x->dims[i].v;
	}
	return n;
}

void
opt_set_type(Opt *o, int v, int elem, int rank, const OptDim *dims)
{
	OptValue *x = &o->val[v];

	x->elem = elem;
	x->rank = rank > MAX_RANK ? -1 : rank;
	x->dims = NULL;
	if (x->rank > 0) {
		x->dims = ARENA_ARRAY(o->a, OptDim, x->rank);
		for (int i = 0; i < x->rank; i++)
			x->dims[i] = dims ? dims[i] : (OptDim){-1, NULL};
	}
}

void
opt_copy_type(Opt *o, int dst, int src)
{
	opt_set_type(o, dst, o->val[src].elem, o->val[src].rank, o->val[src].dims);
}

void
opt_type_from_vi(Opt *o, int v, const Onnx__ValueInfoProto *vi)
{
	const Onnx__TypeProto *tp = vi ? vi->type : NULL;
	const Onnx__TypeProto__Tensor *tt;
	OptDim dims[MAX_RANK];
	int rank = -1;

	if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !(tt = tp->tensor_type))
		return;
	if (tt->shape && tt->shape->n_dim <= MAX_RANK) {
		rank = (int)tt->shape->n_dim;
		for (int i = 0; i < rank; i++) {
			const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
			dims[i] = (OptDim){-1, NULL};
			if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
				dims[i].v = d->dim_value;
			else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
				dims[i].sym = d->dim_param;
		}
	}
	opt_set_type(o, v, tt->has_elem_type ? tt->elem_type : 0, rank, dims);
}

void
opt_type_from_tensor(Opt *o, int v, const OnnxTensor *t)
{
	OptDim dims[MAX_RANK];
	int rank = t->n_dims <= MAX_RANK ? (int)t->n_dims : -1;

	for (int i = 0; i < rank; i++)
		dims[i] = (OptDim){t->dims[i], NULL};
	opt_set_type(o, v, t->data_type, rank, dims);
}

/* ---- constants ---- */

OnnxTensor *
opt_const_tensor(Opt *o, int v)
{
	const OptValue *x = v >= 0 ? &o->val[v] : NULL;
	OnnxTensor *t;
	int64_t n = 1;

	if (!x || !x->init || x->is_input)
		return NULL;
	t = x->init;
	if (onnx_tensor_recipe(t))
		onnx_tensor_bytes(o->a, t);
	if (!t->has_raw_data || (t->has_data_location && t->data_location) || !fold_elem_size(t->data_type))
		return NULL;
	for (size_t i = 0; i < t->n_dims; i++)
		n *= t->dims[i];
	return t->raw_data.len == (size_t)n * (size_t)fold_elem_size(t->data_type) ? t : NULL;
}

int64_t
opt_const_numel(Opt *o, int v)
{
	const OnnxTensor *t = opt_const_tensor(o, v);

	return t ? (int64_t)(t->raw_data.len / (size_t)fold_elem_size(t->data_type)) : -1;
}

double
opt_const_at(Opt *o, int v, int64_t i)
{
	const OnnxTensor *t = o->val[v].init;

	return dtype_decode_f64(dtype_from_onnx(t->data_type),
	                        t->raw_data.data + (size_t)i * (size_t)dtype_size(dtype_from_onnx(t->data_type)));
}

int
opt_const_ints(Opt *o, int v, int64_t *buf, int max)
{
	const OnnxTensor *t = opt_const_tensor(o, v);
	int64_t n;

	if (!t || t->n_dims > 1 || (t->data_type != ONNX_INT64 && t->data_type != ONNX_INT32))
		return -1;
	n = opt_const_numel(o, v);
	if (n > max)
		return -1;
	for (int64_t i = 0; i < n; i++) {     /* exactly: INT64_MAX is a common "to the end" */
		buf[i] = dtype_decode_i64(dtype_from_onnx(t->data_type),
		                          t->raw_data.data + (size_t)i * (t->data_type == ONNX_INT64 ? 8 : 4));
	}
	return (int)n;
}

int
opt_const_scalar(Opt *o, int v, double *x)
{
	if (opt_const_numel(o, v) != 1)
		return 0;
	*x = opt_const_at(o, v, 0);
	return 1;
}

int
opt_const_all(Opt *o, int v, double x, double tol)
{
	int64_t n = opt_const_numel(o, v);

	if (n < 1 || n > (1 << 16))
		return 0;
	for (int64_t i = 0; i < n; i++) {
		double y = opt_const_at(o, v, i);
		if (!(y == x || (tol > 0 && y - x <= tol * (x < 0 ? -x : x) && x - y <= tol * (x < 0 ? -x : x))))
			return 0;
	}
	return 1;
}

/* The worklist: a node whose inputs or consumers changed is tried again. */
void
opt_enqueue(Opt *o, int n)
{
	OptNode *x = &o->node[n];

	if (x->dead || x->queued)
		return;
	x->queued = 1;
	o->queue = opt_grow(o->a, o->queue, o->nqueue, &o->capqueue, sizeof *o->queue);
	o->queue[o->nqueue++] = n;
}
