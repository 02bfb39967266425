/* opt.c: the optimizer's index over an ONNX graph and the edits patterns
 * make through it (see opt.h for the rules).
 *
 * Values and nodes are small integers into arena arrays that grow by
 * doubling, so a pattern keeps ids, never pointers, across an edit.  Every
 * value knows its producer and its consumers (an unordered list; each node
 * input remembers where its use sits, so removing one is O(1)); nodes form
 * a doubly linked list in topological order, so inserting before the root
 * is O(1) and writing back is one walk.  Removing a node's last reader puts
 * its producer on the sweep list; opt_sweep() removes what nothing reads,
 * transitively, right after each rewrite, so a pattern never sees a graph
 * with dead nodes in it. */
#include "opt.h"
#include "fold.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- growth ---- */

/* Makes room for one more element in an arena array of n used, *cap allocated. */
static void *
grow(Arena *a, void *arr, int n, int *cap, size_t size)
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
static int
from_outside(const OptValue *x)
{
	return x->is_input || x->outer;
}

static int
val_new(Opt *o, const char *name)
{
	OptValue *v;

	o->val = grow(o->a, o->val, o->nval, &o->capval, sizeof *o->val);
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
static OptNameHit *
hit_slot(OptNameHit *t, int n, const char *p)
{
	return &t[((uintptr_t)p >> 4) & (uintptr_t)(n - 1)];
}

/* The value named name, created when unknown; -1 for "" (omitted).  A
 * pointer seen before is trusted when its value still bears that very
 * pointer as its name: a value's name is unique in byname, so it is the
 * value byname would give. */
static int
val_intern(Opt *o, const char *name)
{
	OptNameHit *h;
	intptr_t id;

	if (!name || !*name)
		return -1;
	h = o->hits ? hit_slot(o->hits, OPT_NAME_HITS, name) : NULL;
	if (h && h->name == name && h->id < o->nval && o->val[h->id].name == name)
		return h->id;
	id = (intptr_t)strmap_get(o->byname, name);
	id = id ? id - 1 : val_new(o, name);
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
static const char *
fresh_name(Opt *o, StrMap *taken, const char *base)
{
	const char *s = base;

	while (name_taken(o, taken, s))
		s = arena_printf(o->a, "%s__%d", base, ++o->nfresh);
	return s;
}

/* a followed by b, in the arena (names are made per rewrite: printf's
 * format parsing would cost more than the rest of a small rewrite). */
static const char *
name_cat(Opt *o, const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	char *s = arena_alloc(o->a, na + nb + 1);

	memcpy(s, a, na);
	memcpy(s + na, b, nb + 1);
	return s;
}

static int
val_fresh(Opt *o)
{
	const char *base = name_cat(o, o->hint ? o->hint : "opt", "__o");

	return val_new(o, fresh_name(o, o->byname, base));
}

static void
use_add(Opt *o, int v, int n, int k)
{
	OptValue *x = &o->val[v];

	x->use = grow(o->a, x->use, x->nuse, &x->capuse, sizeof *x->use);
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
static void
use_del(Opt *o, int v, int n, int k)
{
	OptValue *x = &o->val[v];
	int pos = o->node[n].upos[k];

	if (pos >= x->nuse || x->use[pos].node != n || x->use[pos].slot != k)
		die("optimizer: use list of '%s' is inconsistent", x->name);
	x->use[pos] = x->use[--x->nuse];
	if (pos < x->nuse)
		o->node[x->use[pos].node].upos[x->use[pos].slot] = pos;
	if (opt_nread(o, v) == 0 && x->producer >= 0) {
		o->sweep = grow(o->a, o->sweep, o->nsweep, &o->capsweep, sizeof *o->sweep);
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

static int
plain_domain(const char *d)
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
		return m->op_type[0] == op[0] && strcmp(m->op_type, op) == 0 && plain_domain(m->domain);
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

/* After an attribute of node n changed: when the running rewrite just
 * added n, opt_add inferred its output types without the attribute (a
 * Transpose's perm, a Cast's `to`), so infer them again; a type the rule
 * cannot infer keeps what the pattern gave it. */
static void
retype(Opt *o, int n)
{
	if (n < o->fresh_from)
		return;
	for (int k = 0; k < o->node[n].nout; k++) {
		int v = o->node[n].out[k];
		OptValue *x, old;
		if (v < 0)
			continue;
		x = &o->val[v];
		old = *x;
		x->elem = 0;
		x->rank = -1;
		x->dims = NULL;
		opt_infer(o, n);
		x = &o->val[v];
		if (!x->elem)
			x->elem = old.elem;
		if (x->rank < 0) {
			x->rank = old.rank;
			x->dims = old.dims;
		}
	}
}

void
opt_set_attr_i(Opt *o, int n, const char *name, int64_t v)
{
	opt_del_attr(o, n, name);
	onnx_attr_int(o->a, o->node[n].n, name, v);
	retype(o, n);
}

void
opt_set_attr_f(Opt *o, int n, const char *name, double v)
{
	opt_del_attr(o, n, name);
	onnx_attr_float(o->a, o->node[n].n, name, (float)v);
	retype(o, n);
}

void
opt_set_attr_ints(Opt *o, int n, const char *name, int k, const int64_t *v)
{
	opt_del_attr(o, n, name);
	onnx_attr_ints(o->a, o->node[n].n, name, k, v);
	retype(o, n);
}

void
opt_copy_attrs(Opt *o, int dst, int src, const char *const *except)
{
	const OnnxNode *s = o->node[src].n;
	OnnxNode *d = o->node[dst].n;

	for (size_t i = 0; i < s->n_attribute; i++) {
		int skip = 0;
		Onnx__AttributeProto **na;
		for (const char *const *e = except; e && *e && !skip; e++)
			skip = strcmp(*e, s->attribute[i]->name) == 0;
		if (skip)
			continue;
		opt_del_attr(o, dst, s->attribute[i]->name);
		na = ARENA_ARRAY(o->a, Onnx__AttributeProto *, d->n_attribute + 1);
		if (d->n_attribute)
			memcpy(na, d->attribute, sizeof *na * d->n_attribute);
		na[d->n_attribute++] = s->attribute[i];
		d->attribute = na;
	}
	retype(o, dst);
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
	if (a.v >= 0 || b.v >= 0)
		return a.v == b.v;
	return a.sym && b.sym && strcmp(a.sym, b.sym) == 0;
}

int
opt_same_shape(Opt *o, int a, int b)
{
	const OptValue *x = &o->val[a], *y = &o->val[b];

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
	x->rank = rank > OPT_MAX_RANK ? -1 : rank;
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

static void
type_from_vi(Opt *o, int v, const Onnx__ValueInfoProto *vi)
{
	const Onnx__TypeProto *tp = vi ? vi->type : NULL;
	const Onnx__TypeProto__Tensor *tt;
	OptDim dims[OPT_MAX_RANK];
	int rank = -1;

	if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !(tt = tp->tensor_type))
		return;
	if (tt->shape && tt->shape->n_dim <= OPT_MAX_RANK) {
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

static void
type_from_tensor(Opt *o, int v, const OnnxTensor *t)
{
	OptDim dims[OPT_MAX_RANK];
	int rank = t->n_dims <= OPT_MAX_RANK ? (int)t->n_dims : -1;

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
	const uint8_t *p = t->raw_data.data + (size_t)i * (size_t)fold_elem_size(t->data_type);
	union { float f; double d; int64_t l; int32_t i; uint64_t ul; uint32_t u; int16_t h;
	        uint16_t uh; int8_t c; uint8_t uc; } u;

	memcpy(&u, p, (size_t)fold_elem_size(t->data_type));
	switch (t->data_type) {
	case 1: return u.f;
	case 11: return u.d;
	case 7: return (double)u.l;
	case 6: return u.i;
	case 13: return (double)u.ul;
	case 12: return u.u;
	case 5: return u.h;
	case 4: return u.uh;
	case 3: return u.c;
	case 2: case 9: return u.uc;
	case 10: {          /* float16 */
		int e = (u.uh >> 10) & 31, m = u.uh & 1023;
		double s = (u.uh & 0x8000) ? -1 : 1;
		if (e == 0)
			return s * m * (1.0 / 16777216.0);
		if (e == 31)
			return m ? 0.0 / 0.0 : s / 0.0;
		return s * (1 + m / 1024.0) * (double)((int64_t)1 << e) / 32768.0;
	}
	case 16: {          /* bfloat16 */
		uint32_t w = (uint32_t)u.uh << 16;
		float f;
		memcpy(&f, &w, 4);
		return f;
	}
	default: return 0;
	}
}

int
opt_const_ints(Opt *o, int v, int64_t *buf, int max)
{
	const OnnxTensor *t = opt_const_tensor(o, v);
	int64_t n;

	if (!t || t->n_dims > 1 || (t->data_type != 7 && t->data_type != 6))
		return -1;
	n = opt_const_numel(o, v);
	if (n > max)
		return -1;
	for (int64_t i = 0; i < n; i++) {     /* exactly: INT64_MAX is a common "to the end" */
		if (t->data_type == 7) {
			memcpy(&buf[i], t->raw_data.data + 8 * i, 8);
		} else {
			int32_t x;
			memcpy(&x, t->raw_data.data + 4 * i, 4);
			buf[i] = x;
		}
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

/* A fresh name for a new constant, after the root's node name. */
static const char *
const_name(Opt *o)
{
	return fresh_name(o, o->byname, name_cat(o, o->hint ? o->hint : "opt", "__c"));
}

/* The value of new initializer t (named by const_name()). */
static int
const_add(Opt *o, OnnxTensor *t)
{
	int v = val_new(o, t->name);

	o->val[v].init = t;
	onnx_vec_push(o->a, &o->inits, (void *)(intptr_t)v);
	type_from_tensor(o, v, t);
	return v;
}

int
opt_const(Opt *o, int elem, int rank, const int64_t *dims, const void *data, size_t nbytes)
{
	return const_add(o, onnx_tensor(o->a, const_name(o), elem, rank, dims, data, nbytes));
}

int
opt_const_scaled(Opt *o, int rank, const int64_t *dims, const OnnxScaled *s)
{
	return const_add(o, onnx_tensor_scaled(o->a, const_name(o), rank, dims, s));
}

int
opt_const_i64s(Opt *o, int k, const int64_t *v)
{
	int64_t dim = k;

	return opt_const(o, 7, 1, &dim, arena_dup(o->a, v, sizeof *v * (size_t)k), sizeof *v * (size_t)k);
}

int
opt_const_f32(Opt *o, int rank, const int64_t *dims, const float *v)
{
	int64_t n = 1;

	for (int i = 0; i < rank; i++)
		n *= dims[i];
	return opt_const(o, 1, rank, dims, arena_dup(o->a, v, sizeof *v * (size_t)n), sizeof *v * (size_t)n);
}

int
opt_const_like(Opt *o, int elem, double x, int rank1)
{
	uint8_t *b = arena_alloc(o->a, 8);
	int64_t one = 1;
	float f = (float)x;
	int64_t l = (int64_t)x;
	int32_t i = (int32_t)x;

	switch (elem) {
	case 1: memcpy(b, &f, 4); break;
	case 11: memcpy(b, &x, 8); break;
	case 7: memcpy(b, &l, 8); break;
	case 6: memcpy(b, &i, 4); break;
	case 9: b[0] = x != 0; break;
	case 10: {
		/* float16, round to nearest even, for the normal range the patterns use */
		uint32_t w, sign, mant;
		int e;
		memcpy(&w, &f, 4);
		sign = (w >> 16) & 0x8000;
		e = (int)((w >> 23) & 255) - 127 + 15;
		mant = w & 0x7fffff;
		uint16_t h;
		if (f == 0)
			h = (uint16_t)sign;
		else if (e <= 0 || e >= 31)
			return -1;
		else {
			uint32_t r = mant >> 13, rest = mant & 0x1fff;
			h = (uint16_t)(sign | (uint32_t)e << 10 | r);
			if (rest > 0x1000 || (rest == 0x1000 && (r & 1)))
				h++;
		}
		memcpy(b, &h, 2);
		break;
	}
	default:
		return -1;
	}
	return opt_const(o, elem, rank1 ? 1 : 0, &one, b, (size_t)fold_elem_size(elem));
}

/* ---- nodes ---- */

static void
link_before(Opt *o, int n, int before)
{
	OptNode *x = &o->node[n];

	if (before < 0) {
		x->prev = o->tail;
		x->next = -1;
		if (o->tail >= 0)
			o->node[o->tail].next = n;
		else
			o->head = n;
		o->tail = n;
		return;
	}
	x->next = before;
	x->prev = o->node[before].prev;
	if (x->prev >= 0)
		o->node[x->prev].next = n;
	else
		o->head = n;
	o->node[before].prev = n;
}

static void
unlink_node(Opt *o, int n)
{
	OptNode *x = &o->node[n];

	if (x->prev >= 0)
		o->node[x->prev].next = x->next;
	else
		o->head = x->next;
	if (x->next >= 0)
		o->node[x->next].prev = x->prev;
	else
		o->tail = x->prev;
	x->prev = x->next = -1;
}

/* The dispatch entry for the node's op type (-1: no pattern roots there). */
static int
root_of(Opt *o, const OnnxNode *m)
{
	const char *key = m->op_type;
	OptNameHit *h = NULL;
	intptr_t r;

	if (!o->root_of)
		return -1;
	if (!plain_domain(m->domain))
		key = arena_printf(o->a, "%s:%s", m->domain, m->op_type);
	else if (o->ophits && (h = hit_slot(o->ophits, OPT_OP_HITS, key))->name == key)
		return h->id;
	r = (intptr_t)strmap_get(o->root_of, key);
	if (h)
		*h = (OptNameHit){key, r ? (int)r - 1 : -1};
	return r ? (int)r - 1 : -1;
}

/* Indexes message m as a new node before `before`; out values are taken
 * from out_ids when given (values without a producer), else interned. */
static int
node_index(Opt *o, OnnxNode *m, int before, const int *out_ids)
{
	OptNode *x;
	int n;

	o->node = grow(o->a, o->node, o->nnode, &o->capnode, sizeof *o->node);
	n = o->nnode++;
	x = &o->node[n];
	memset(x, 0, sizeof *x);
	x->n = m;
	x->nin = (int)m->n_input;
	x->nout = (int)m->n_output;
	x->in = ARENA_ARRAY(o->a, int, 2 * x->nin + x->nout + 1);   /* one block: in, upos, out */
	x->upos = x->in + x->nin;
	x->out = x->upos + x->nin;
	x->root = root_of(o, m);
	link_before(o, n, before);
	o->live++;
	for (int k = 0; k < x->nin; k++) {
		int v = val_intern(o, m->input[k]);
		o->node[n].in[k] = v;
		if (v >= 0)
			use_add(o, v, n, k);
	}
	for (int k = 0; k < x->nout; k++) {
		int v = out_ids ? out_ids[k] : val_intern(o, m->output[k]);
		o->node[n].out[k] = v;
		if (v < 0)
			continue;
		if (o->val[v].producer >= 0 || o->val[v].init || from_outside(&o->val[v]))
			return -1 - v;
		o->val[v].producer = n;
		o->val[v].slot = k;
	}
	return n;
}

/* The node names taken, built when a rewrite first names a node (most
 * graphs are indexed and written without one). */
static StrMap *
node_names(Opt *o)
{
	if (!o->node_names) {
		o->node_names = strmap_new(o->a, (size_t)o->nnode + 16);
		for (int n = 0; n < o->nnode; n++)
			strmap_put(o->node_names, o->node[n].n->name, o->node[n].n);
	}
	return o->node_names;
}

int
opt_add(Opt *o, int before, const char *op, int nin, const int *in, int nout, int *out)
{
	const char *colon = strchr(op, ':'), *domain = NULL, *type = op;
	const char **inn = ARENA_ARRAY(o->a, const char *, nin + 1);
	const char **outn = ARENA_ARRAY(o->a, const char *, nout + 1);
	int *ids = ARENA_ARRAY(o->a, int, nout + 1);
	const char *base = o->hint ? o->hint : op;
	OnnxNode *m;
	int n;

	if (colon) {
		domain = arena_strndup(o->a, op, (size_t)(colon - op));
		type = colon + 1;
	}
	for (int k = 0; k < nin; k++)
		inn[k] = in[k] >= 0 ? o->val[in[k]].name : "";
	for (int k = 0; k < nout; k++) {
		ids[k] = val_fresh(o);
		outn[k] = o->val[ids[k]].name;
		if (out)
			out[k] = ids[k];
	}
	m = onnx_node(o->a, type, fresh_name(o, node_names(o), base), nin, inn, nout, outn);
	if (domain)
		m->domain = (char *)domain;
	strmap_put(o->node_names, m->name, m);
	n = node_index(o, m, before, ids);
	if (n < 0)
		die("optimizer: new node '%s' defines a value twice", m->name);
	o->added++;
	opt_infer(o, n);
	opt_enqueue(o, n);
	return n;
}

int
opt_add1(Opt *o, int before, const char *op, int nin, ...)
{
	int in[8], out;
	va_list ap;

	if (nin > 8)
		die("opt_add1: %d inputs", nin);
	va_start(ap, nin);
	for (int k = 0; k < nin; k++)
		in[k] = va_arg(ap, int);
	va_end(ap);
	opt_add(o, before, op, nin, in, 1, &out);
	return out;
}

void
opt_enqueue(Opt *o, int n)
{
	OptNode *x = &o->node[n];

	if (x->dead || x->queued)
		return;
	x->queued = 1;
	o->queue = grow(o->a, o->queue, o->nqueue, &o->capqueue, sizeof *o->queue);
	o->queue[o->nqueue++] = n;
}

void
opt_remove(Opt *o, int n)
{
	OptNode *x = &o->node[n];

	if (x->dead)
		return;
	x->dead = 1;
	o->live--;
	o->removed++;
	for (int k = 0; k < x->nin; k++)
		if (x->in[k] >= 0)
			use_del(o, x->in[k], n, k);
	for (int k = 0; k < x->nout; k++) {
		OptValue *v = x->out[k] >= 0 ? &o->val[x->out[k]] : NULL;
		if (v && v->producer == n) {
			if (opt_nread(o, x->out[k]))
				die("optimizer: removing node '%s' whose output '%s' is read", x->n->name, v->name);
			v->producer = -1;
		}
	}
	unlink_node(o, n);
}

void
opt_sweep(Opt *o)
{
	while (o->nsweep) {
		int n = o->sweep[--o->nsweep], read = 0;
		if (o->node[n].dead)
			continue;
		for (int k = 0; k < o->node[n].nout && !read; k++)
			read = o->node[n].out[k] >= 0 && opt_nread(o, o->node[n].out[k]);
		if (!read)
			opt_remove(o, n);
	}
}

void
opt_set_input(Opt *o, int n, int k, int v)
{
	OptNode *x = &o->node[n];
	int old = x->in[k];

	if (old == v)
		return;
	if (old >= 0)
		use_del(o, old, n, k);
	if (v >= 0)
		use_add(o, v, n, k);
	x = &o->node[n];
	x->in[k] = v;
	x->n->input[k] = v >= 0 ? (char *)o->val[v].name : "";
	if (v >= 0 && o->val[v].producer >= 0)
		opt_enqueue(o, o->val[v].producer);
	opt_enqueue(o, n);
}

/* 1 when v is the output of a node the running rewrite added and has no
 * value_info of its own. */
static int
fresh_value(Opt *o, int v)
{
	const OptValue *x = &o->val[v];

	return x->producer >= o->fresh_from && !x->vi && !x->is_output && !x->pinned && !from_outside(x);
}

/* Gives value `to` the name of `from` (a graph output or a value a
 * subgraph reads by name), which loses it. */
static void
take_name(Opt *o, int from, int to)
{
	OptValue *f = &o->val[from], *t = &o->val[to];
	const char *name = f->name;

	strmap_put(o->byname, t->name, NULL);
	t->name = name;
	strmap_put(o->byname, name, (void *)(intptr_t)(to + 1));
	for (int i = 0; i < t->nuse; i++)
		o->node[t->use[i].node].n->input[t->use[i].slot] = (char *)name;
	o->node[t->producer].n->output[t->slot] = (char *)name;
	t->is_output = f->is_output;
	t->pinned = f->pinned;
	t->vi = NULL;
	if (f->rank >= 0 || f->elem)
		opt_copy_type(o, to, from);
	f->name = NULL;
	f->is_output = f->pinned = 0;
}

void
opt_replace(Opt *o, int from, int to)
{
	OptValue *f = &o->val[from];
	int prod = f->producer;

	if (from == to)
		return;
	if (f->name && !f->is_output && !f->pinned && fresh_value(o, to)) {
		/* a value the pattern just made takes the replaced value's name and
		 * value_info, so the graph keeps readable names and its shapes */
		OptValue *t = &o->val[to];
		const char *name = f->name;
		if (prod >= 0) {
			o->node[prod].out[f->slot] = -1;
			o->node[prod].n->output[f->slot] = "";
			f->producer = -1;
		}
		strmap_put(o->byname, t->name, NULL);
		t->name = name;
		t->vi = f->vi;
		f->vi = NULL;
		strmap_put(o->byname, name, (void *)(intptr_t)(to + 1));
		o->node[t->producer].n->output[t->slot] = (char *)name;
		for (int i = 0; i < t->nuse; i++)
			o->node[t->use[i].node].n->input[t->use[i].slot] = (char *)name;
		f->name = NULL;
		f = &o->val[from];
	}
	while (f->nuse) {
		OptUse u = f->use[f->nuse - 1];
		opt_set_input(o, u.node, u.slot, to);
		f = &o->val[from];
	}
	if (f->is_output || f->pinned) {
		OptValue *t = &o->val[to];
		if (prod >= 0) {        /* detach from the old producer, which the sweep drops */
			o->node[prod].out[f->slot] = -1;
			o->node[prod].n->output[f->slot] = "";
			f->producer = -1;
		}
		if (t->producer >= 0 && !t->is_output && !t->pinned && !from_outside(t)) {
			take_name(o, from, to);
		} else {
			/* keep the name with an Identity placed where the old producer was */
			const char *hint = o->hint;
			OnnxNode *m;
			int n, before = prod >= 0 ? prod : o->head;
			const char *in1[1] = {t->name}, *out1[1] = {f->name};
			o->hint = f->name;
			m = onnx_node(o->a, "Identity", fresh_name(o, node_names(o), f->name), 1, in1, 1, out1);
			o->hint = hint;
			strmap_put(o->node_names, m->name, m);
			n = node_index(o, m, before, &from);
			if (n < 0)
				die("optimizer: cannot keep the name '%s'", f->name);
			o->added++;
			opt_enqueue(o, n);
		}
	}
	if (prod >= 0) {
		o->sweep = grow(o->a, o->sweep, o->nsweep, &o->capsweep, sizeof *o->sweep);
		o->sweep[o->nsweep++] = prod;
	}
	if (o->val[to].producer >= 0)
		opt_enqueue(o, o->val[to].producer);
}

/* ---- the index ---- */

/* Marks the values of the outer graph that nodes of g read without
 * defining them (a subgraph reads outer values by name). */
static void
pin_subgraph_refs(Opt *o, const Onnx__GraphProto *g, StrMap *local)
{
	for (size_t i = 0; i < g->n_input; i++)
		strmap_put(local, g->input[i]->name, local);
	for (size_t i = 0; i < g->n_initializer; i++)
		strmap_put(local, g->initializer[i]->name, local);
	for (size_t i = 0; i < g->n_node; i++) {
		const OnnxNode *m = g->node[i];
		for (size_t k = 0; k < m->n_input; k++) {
			intptr_t id;
			if (!*m->input[k] || strmap_get(local, m->input[k]))
				continue;
			if ((id = (intptr_t)strmap_get(o->byname, m->input[k])))
				o->val[id - 1].pinned = 1;
		}
		for (size_t a = 0; a < m->n_attribute; a++) {
			const Onnx__AttributeProto *at = m->attribute[a];
			if (at->g)
				pin_subgraph_refs(o, at->g, local);
			for (size_t j = 0; j < at->n_graphs; j++)
				pin_subgraph_refs(o, at->graphs[j], local);
		}
		for (size_t k = 0; k < m->n_output; k++)
			strmap_put(local, m->output[k], local);
	}
}

/* Marks value v, read but not defined here, as a value of an enclosing
 * graph when one defines it (type and constant bytes come along, so
 * folding sees outer constants).  1 when found. */
static int
outer_ref(Opt *o, int v)
{
	OptValue *x = &o->val[v];

	for (Opt *p = o->parent; p; p = p->parent) {
		intptr_t id = (intptr_t)strmap_get(p->byname, x->name);
		const OptValue *y = id ? &p->val[id - 1] : NULL;
		if (!y || !(y->producer >= 0 || y->init || from_outside(y)))
			continue;
		x->outer = 1;
		x->init = opt_const_tensor(p, (int)id - 1);
		if (y->elem || y->rank >= 0)
			opt_set_type(o, v, y->elem, y->rank, y->dims);
		return 1;
	}
	return 0;
}

static int
has_subgraph(const OnnxNode *m)
{
	for (size_t a = 0; a < m->n_attribute; a++)
		if (m->attribute[a]->g || m->attribute[a]->n_graphs)
			return 1;
	return 0;
}

int
opt_index(Opt *o, const Onnx__GraphProto *g)
{
	size_t nout = 0;

	for (size_t i = 0; i < g->n_node; i++)
		nout += g->node[i]->n_output;
	/* room for the graph's values (the value_info names outputs) and half
	 * as many again for what rewrites add, before regrowing */
	o->capval = (int)(g->n_initializer + g->n_input + g->n_output + nout);
	o->capval += o->capval / 2 + 16;
	o->byname = strmap_new(o->a, (size_t)o->capval);
	o->hits = ARENA_ARRAY(o->a, OptNameHit, OPT_NAME_HITS);
	o->ophits = ARENA_ARRAY(o->a, OptNameHit, OPT_OP_HITS);
	o->head = o->tail = -1;
	o->val = ARENA_ARRAY(o->a, OptValue, o->capval);
	o->capnode = (int)(g->n_node + g->n_node / 2 + 16);
	o->node = ARENA_ARRAY(o->a, OptNode, o->capnode);
	for (size_t i = 0; i < g->n_initializer; i++) {
		OnnxTensor *t = g->initializer[i];
		int v = val_intern(o, t->name);
		onnx_vec_push(o->a, &o->inits, (void *)(intptr_t)v);
		if (v < 0 || o->val[v].init)
			return diag_error(o->d, DIAG_CONVERT, "optimizer: initializer '%s' is given twice", t->name);
		o->val[v].init = t;
		type_from_tensor(o, v, t);
	}
	o->ninit_orig = (int)o->inits.n;
	for (size_t i = 0; i < g->n_input; i++) {
		int v = val_intern(o, g->input[i]->name);
		if (v < 0)
			continue;
		o->val[v].is_input = 1;
		type_from_vi(o, v, g->input[i]);
	}
	for (size_t i = 0; i < g->n_value_info; i++) {
		int v = val_intern(o, g->value_info[i]->name);
		onnx_vec_push(o->a, &o->vinfo, g->value_info[i]);
		if (v < 0)
			continue;
		o->val[v].vi = g->value_info[i];
		if (o->val[v].rank < 0 && !o->val[v].elem)
			type_from_vi(o, v, g->value_info[i]);
	}
	for (size_t i = 0; i < g->n_node; i++) {
		OnnxNode *m = g->node[i];
		int n;
		if (!m->name || !*m->name)
			m->name = arena_printf(o->a, "%s_%zu", m->op_type, i);   /* made unique if a rewrite names nodes */
		if ((n = node_index(o, m, -1, NULL)) < 0)
			return diag_error(o->d, DIAG_CONVERT, "optimizer: value '%s' is defined twice",
			                  o->val[-1 - n].name);
		for (int k = 0; k < o->node[n].nin; k++) {  /* nodes come in order: producers are earlier */
			const OptValue *v = o->node[n].in[k] >= 0 ? &o->val[o->node[n].in[k]] : NULL;
			if (v && !v->init && !from_outside(v) && !(v->producer >= 0 && v->producer < n) &&
			    !outer_ref(o, o->node[n].in[k]))
				return diag_error(o->d, DIAG_CONVERT, "optimizer: node '%s' reads '%s' before it is "
				                  "defined (the graph is not in topological order)", m->name, m->input[k]);
		}
	}
	for (size_t i = 0; i < g->n_output; i++) {
		int v = val_intern(o, g->output[i]->name);
		if (v >= 0)
			o->val[v].is_output = 1;
	}
	for (size_t i = 0; i < g->n_node; i++)
		if (has_subgraph(g->node[i])) {
			for (size_t a = 0; a < g->node[i]->n_attribute; a++) {
				const Onnx__AttributeProto *at = g->node[i]->attribute[a];
				if (at->g)
					pin_subgraph_refs(o, at->g, strmap_new(o->a, 64));
				for (size_t j = 0; j < at->n_graphs; j++)
					pin_subgraph_refs(o, at->graphs[j], strmap_new(o->a, 64));
			}
		}
	for (int n = o->head; n >= 0; n = o->node[n].next) {
		int typed = 1;          /* the lowering's value_info usually has them all */
		for (int k = 0; k < o->node[n].nout && typed; k++) {
			const OptValue *v = o->node[n].out[k] >= 0 ? &o->val[o->node[n].out[k]] : NULL;
			typed = !v || (v->elem && v->rank >= 0);
		}
		if (!typed)
			opt_infer(o, n);
	}
	return 0;
}

/* Rebuilds the node, initializer and value_info lists of g. */
void
opt_writeback(Opt *o, Onnx__GraphProto *g)
{
	size_t k = 0;

	g->node = ARENA_ARRAY(o->a, OnnxNode *, o->live + 1);
	for (int n = o->head; n >= 0; n = o->node[n].next)
		g->node[k++] = o->node[n].n;
	g->n_node = k;
	g->initializer = ARENA_ARRAY(o->a, OnnxTensor *, o->inits.n + 1);
	k = 0;
	for (size_t i = 0; i < o->inits.n; i++) {
		const OptValue *v = &o->val[(intptr_t)o->inits.v[i]];
		if (v->init && v->name && (o->keep_inits || v->nuse || v->is_output || v->is_input || v->pinned))
			g->initializer[k++] = v->init;
	}
	g->n_initializer = k;
	k = o->vinfo.n;
	for (int n = o->head; n >= 0; n = o->node[n].next)
		k += (size_t)o->node[n].nout;
	g->value_info = ARENA_ARRAY(o->a, Onnx__ValueInfoProto *, k + 1);
	k = 0;
	for (size_t i = 0; i < o->vinfo.n; i++) {
		Onnx__ValueInfoProto *vi = o->vinfo.v[i];
		const OptNameHit *h = hit_slot(o->hits, OPT_NAME_HITS, vi->name);
		intptr_t id = h->name == vi->name && o->val[h->id].name == vi->name ? h->id + 1
		              : (intptr_t)strmap_get(o->byname, vi->name);
		const OptValue *v = id ? &o->val[id - 1] : NULL;
		if (v && v->vi == vi && v->producer >= 0 && !v->is_output)
			g->value_info[k++] = vi;
	}
	/* Every other value a node makes (the steps of a lowering, what the
	 * rewrites add) gets one from its inferred type, in node order, so each
	 * intermediate of the written graph has its dtype and shape. */
	for (int n = o->head; n >= 0; n = o->node[n].next)
		for (int j = 0; j < o->node[n].nout; j++) {
			OptValue *v = o->node[n].out[j] >= 0 ? &o->val[o->node[n].out[j]] : NULL;
			int64_t *dims;
			const char **params;
			if (!v || !v->name || v->vi || v->is_output || !v->elem)
				continue;   /* (rank < 0: the dtype alone, as ONNX allows) */
			dims = ARENA_ARRAY(o->a, int64_t, v->rank + 1);
			params = ARENA_ARRAY(o->a, const char *, v->rank + 1);
			for (int i = 0; i < v->rank; i++) {
				dims[i] = v->dims[i].sym ? -1 : v->dims[i].v;
				params[i] = v->dims[i].sym;
			}
			v->vi = onnx_value_info(o->a, v->name, v->elem, v->rank, dims, params);
			g->value_info[k++] = v->vi;
		}
	g->n_value_info = k;
}

/* ---- the checker ---- */

void
opt_verify(Opt *o, const char *after)
{
	unsigned char *def = calloc((size_t)o->nval + 1, 1);
	int live = 0, prev = -1;

	if (!def)
		die("out of memory");
	for (int v = 0; v < o->nval; v++)
		def[v] = o->val[v].init || from_outside(&o->val[v]);
	for (int n = o->head; n >= 0; prev = n, n = o->node[n].next) {
		const OptNode *x = &o->node[n];
		live++;
		if (x->dead || x->prev != prev)
			die("optimizer, after %s: node list broken at '%s'", after, x->n->name);
		for (int k = 0; k < x->nin; k++) {
			int v = x->in[k];
			if (v < 0) {
				if (*x->n->input[k])
					die("optimizer, after %s: node '%s' input %d is '%s' but not indexed", after,
					    x->n->name, k, x->n->input[k]);
				continue;
			}
			if (!o->val[v].name || (o->val[v].name != x->n->input[k] && strcmp(o->val[v].name, x->n->input[k]) != 0))
				die("optimizer, after %s: node '%s' input %d names '%s', index says '%s'", after,
				    x->n->name, k, x->n->input[k], o->val[v].name ? o->val[v].name : "(merged)");
			if (!def[v])
				die("optimizer, after %s: node '%s' reads '%s' before it is defined", after,
				    x->n->name, o->val[v].name);
			if (x->upos[k] >= o->val[v].nuse || o->val[v].use[x->upos[k]].node != n ||
			    o->val[v].use[x->upos[k]].slot != k)
				die("optimizer, after %s: use of '%s' by '%s' not recorded", after, o->val[v].name,
				    x->n->name);
		}
		for (int k = 0; k < x->nout; k++) {
			int v = x->out[k];
			if (v < 0)
				continue;
			if (def[v] || o->val[v].producer != n || o->val[v].slot != k ||
			    (o->val[v].name != x->n->output[k] && strcmp(o->val[v].name, x->n->output[k]) != 0))
				die("optimizer, after %s: output %d '%s' of '%s' is inconsistent", after, k,
				    x->n->output[k], x->n->name);
			def[v] = 1;
		}
	}
	if (live != o->live || prev != o->tail)
		die("optimizer, after %s: %d nodes listed, %d counted", after, live, o->live);
	for (int v = 0; v < o->nval; v++) {
		const OptValue *x = &o->val[v];
		for (int i = 0; i < x->nuse; i++)
			if (o->node[x->use[i].node].dead || o->node[x->use[i].node].in[x->use[i].slot] != v)
				die("optimizer, after %s: stale use of '%s'", after, x->name);
		if ((x->is_output || x->pinned) && !def[v])
			die("optimizer, after %s: output '%s' is not defined", after, x->name);
	}
	free(def);
}

/* ---- helpers for patterns ---- */

int
opt_forward(Opt *o, int from, int to)
{
	const OptValue *f = &o->val[from], *t = &o->val[to];

	if (from == to || (f->elem && t->elem && f->elem != t->elem))
		return OPT_NOMATCH;
	/* a graph output that `to` cannot rename into would need an Identity:
	 * no node would be saved */
	if ((f->is_output || f->pinned) && (t->producer < 0 || t->is_output || t->pinned || from_outside(t)))
		return OPT_NOMATCH;
	opt_replace(o, from, to);
	return OPT_REWROTE;
}

int
opt_bcast_keeps(Opt *o, int x, int c)
{
	const OptValue *a = &o->val[x], *b = &o->val[c];

	if (b->rank == 0 && (!a->elem || !b->elem || a->elem == b->elem))
		return 1;
	if (a->rank < 0 || b->rank < 0 || b->rank > a->rank || (a->elem && b->elem && a->elem != b->elem))
		return 0;
	for (int i = 0; i < b->rank; i++) {
		OptDim db = b->dims[i], da = a->dims[a->rank - b->rank + i];
		if (db.v != 1 && !opt_dim_eq(da, db))
			return 0;
	}
	return 1;
}

int
opt_axes(Opt *o, int n, int64_t *axes, int max)
{
	if (opt_in(o, n, 1) >= 0)
		return opt_const_ints(o, opt_in(o, n, 1), axes, max);
	return opt_attr_ints(o, n, "axes", axes, max);
}

int
opt_norm_axes(int k, int64_t *axes, int rank)
{
	for (int i = 0; i < k; i++) {
		if (axes[i] < 0) {
			if (rank < 0)
				return -1;
			axes[i] += rank;
		}
		if (axes[i] < 0 || (rank >= 0 && axes[i] >= rank))
			return -1;
	}
	for (int i = 1; i < k; i++)         /* insertion sort, k is small */
		for (int j = i; j > 0 && axes[j - 1] > axes[j]; j--) {
			int64_t t = axes[j];
			axes[j] = axes[j - 1];
			axes[j - 1] = t;
		}
	for (int i = 1; i < k; i++)
		if (axes[i] == axes[i - 1])
			return -1;
	return k;
}

int
opt_perm(Opt *o, int n, int64_t *perm)
{
	int k = opt_attr_ints(o, n, "perm", perm, OPT_MAX_RANK), r = opt_rank(o, opt_in(o, n, 0));

	if (k > OPT_MAX_RANK)
		return -1;
	if (k < 0) {
		if (r < 0)
			return -1;
		for (int i = 0; i < r; i++)
			perm[i] = r - 1 - i;
		return r;
	}
	return k;
}
