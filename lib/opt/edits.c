/* edits.c: the changes a pattern makes (see opt.h for the rules): new
 * constants and nodes, attribute writes, replacing a value's consumers,
 * removing nodes, and the helpers patterns share.
 *
 * Nodes form a doubly linked list in topological order, so inserting before
 * the root is O(1) and writing back is one walk.  Removing a node's last
 * reader puts its producer on the sweep list; opt_sweep() removes what
 * nothing reads, transitively, right after each rewrite, so a pattern never
 * sees a graph with dead nodes in it.  A node added or changed has its
 * output types inferred again (infer.c). */
#include "opt/opt.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "onnx/onnx.h"
#include "internal.h"

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

/* A fresh name for a new constant, after the root's node name. */
static const char *
const_name(Opt *o)
{
	return opt_fresh_name(o, o->byname, opt_name_cat(o, o->hint ? o->hint : "opt", "__c"));
}

/* The value of new initializer t (named by const_name()). */
static int
const_add(Opt *o, OnnxTensor *t)
{
	int v = opt_val_new(o, t->name);

	o->val[v].init = t;
	onnx_vec_push(o->a, &o->inits, (void *)(intptr_t)v);
	opt_type_from_tensor(o, v, t);
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
opt_const_transposed(Opt *o, int elem, const OnnxScaled *s)
{
	return const_add(o, onnx_tensor_transposed(o->a, const_name(o), elem, s));
}

int
opt_const_i64s(Opt *o, int k, const int64_t *v)
{
	int64_t dim = k;

	return opt_const(o, ONNX_INT64, 1, &dim, arena_dup(o->a, v, sizeof *v * (size_t)k), sizeof *v * (size_t)k);
}

int
opt_const_f32(Opt *o, int rank, const int64_t *dims, const float *v)
{
	int64_t n = 1;

	for (int i = 0; i < rank; i++)
		n *= dims[i];
	return opt_const(o, ONNX_FLOAT, rank, dims, arena_dup(o->a, v, sizeof *v * (size_t)n), sizeof *v * (size_t)n);
}

int
opt_const_like(Opt *o, int elem, double x, int rank1)
{
	uint8_t *b = arena_alloc(o->a, 8);
	int64_t one = 1;
	DType t = dtype_from_onnx(elem);

	if (elem != ONNX_FLOAT && elem != ONNX_DOUBLE && elem != ONNX_INT64 && elem != ONNX_INT32 &&
	    elem != ONNX_BOOL && elem != ONNX_FLOAT16)
		return -1;
	dtype_encode_f64(t, b, x);
	if (isfinite(x) && !isfinite(dtype_decode_f64(t, b)))
		return -1;      /* past float16's range: no constant rather than infinity */
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
	if (!opt_plain_domain(m->domain))
		key = arena_printf(o->a, "%s:%s", m->domain, m->op_type);
	else if (o->ophits && (h = opt_hit_slot(o->ophits, OPT_OP_HITS, key))->name == key)
		return h->id;
	r = (intptr_t)strmap_get(o->root_of, key);
	if (h)
		*h = (OptNameHit){key, r ? (int)r - 1 : -1};
	return r ? (int)r - 1 : -1;
}

/* Indexes message m as a new node before `before`; out values are taken
 * from out_ids when given (values without a producer), else interned. */
int
opt_node_index(Opt *o, OnnxNode *m, int before, const int *out_ids)
{
	OptNode *x;
	int n;

	o->node = opt_grow(o->a, o->node, o->nnode, &o->capnode, sizeof *o->node);
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
		int v = opt_val_intern(o, m->input[k]);
		o->node[n].in[k] = v;
		if (v >= 0)
			opt_use_add(o, v, n, k);
	}
	for (int k = 0; k < x->nout; k++) {
		int v = out_ids ? out_ids[k] : opt_val_intern(o, m->output[k]);
		o->node[n].out[k] = v;
		if (v < 0)
			continue;
		if (o->val[v].producer >= 0 || o->val[v].init || opt_from_outside(&o->val[v]))
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
		ids[k] = opt_val_fresh(o);
		outn[k] = o->val[ids[k]].name;
		if (out)
			out[k] = ids[k];
	}
	m = onnx_node(o->a, type, opt_fresh_name(o, node_names(o), base), nin, inn, nout, outn);
	if (domain)
		m->domain = (char *)domain;
	strmap_put(o->node_names, m->name, m);
	n = opt_node_index(o, m, before, ids);
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
			opt_use_del(o, x->in[k], n, k);
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
		opt_use_del(o, old, n, k);
	if (v >= 0)
		opt_use_add(o, v, n, k);
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

	return x->producer >= o->fresh_from && !x->vi && !x->is_output && !x->pinned && !opt_from_outside(x);
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
		 * value_info, so the graph keeps readable names and its shapes (its
		 * own when it is known to be another shape, rule 4) */
		OptValue *t = &o->val[to];
		const char *name = f->name;
		int same = t->rank < 0 || (t->elem == f->elem && opt_same_shape(o, from, to));
		if (prod >= 0) {
			o->node[prod].out[f->slot] = -1;
			o->node[prod].n->output[f->slot] = "";
			f->producer = -1;
		}
		strmap_put(o->byname, t->name, NULL);
		t->name = name;
		t->vi = same ? f->vi : NULL;
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
		if (t->producer >= 0 && !t->is_output && !t->pinned && !opt_from_outside(t)) {
			take_name(o, from, to);
		} else {
			/* keep the name with an Identity placed where the old producer was */
			const char *hint = o->hint;
			OnnxNode *m;
			int n, before = prod >= 0 ? prod : o->head;
			const char *in1[1] = {t->name}, *out1[1] = {f->name};
			o->hint = f->name;
			m = onnx_node(o->a, "Identity", opt_fresh_name(o, node_names(o), f->name), 1, in1, 1, out1);
			o->hint = hint;
			strmap_put(o->node_names, m->name, m);
			n = opt_node_index(o, m, before, &from);
			if (n < 0)
				die("optimizer: cannot keep the name '%s'", f->name);
			o->added++;
			opt_enqueue(o, n);
		}
	}
	if (prod >= 0) {
		o->sweep = opt_grow(o->a, o->sweep, o->nsweep, &o->capsweep, sizeof *o->sweep);
		o->sweep[o->nsweep++] = prod;
	}
	if (o->val[to].producer >= 0)
		opt_enqueue(o, o->val[to].producer);
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
	if ((f->is_output || f->pinned) && (t->producer < 0 || t->is_output || t->pinned || opt_from_outside(t)))
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
	int k = opt_attr_ints(o, n, "perm", perm, MAX_RANK), r = opt_rank(o, opt_in(o, n, 0));

	if (k > MAX_RANK)
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
