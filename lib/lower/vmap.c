/* vmap.c: the vmap pass, which rewrites what torch.vmap leaves in a training
 * IR graph into ordinary ATen ops on whole batches.
 *
 * Requires the main graph as read; rewrites it in place (nodes, their
 * arguments and the dims of the values inside vmap regions) before anything
 * else of the lowering looks at it; invalidates nothing that exists yet.
 *
 * torch.export's non-strict training IR records vmap as markers around
 * ordinary ATen ops on "logical" tensors (the per-example view):
 *   lazy_load_decompositions(), _vmap_increment_nesting(size, randomness),
 *   _add_batch_dim(x, in_dim, level), ATen ops on logical shapes,
 *   _remove_batch_dim(y, level, size, out_dim), _vmap_decrement_nesting().
 * run_decompositions() removes them all (core ATen graphs hold none).
 *
 * Each value inside a region is batched at a set of levels (a bit mask).
 * Its physical tensor holds one dim per batched level in front, outermost
 * level first, then the logical dims.  The pass makes that true: each
 * value's dims become the physical ones, _add_batch_dim becomes a movedim of
 * in_dim to its level's place, _remove_batch_dim a movedim to out_dim (or an
 * unsqueeze and expand when the value is not batched at that level), and
 * each op with a batched operand is rewritten by its rule (vmap.def): dims
 * shifted past the batch dims, operands given the levels they lack as dims
 * of size 1 so that ONNX broadcasting pairs the right dims, batch sizes put
 * in front of view sizes, arange indices for the batch dims of an index.
 * An op without a rule fails with its name; that is what to add. */
#include <stdint.h>
#include <string.h>

#include "core/core.h"
#include "internal.h"

#define MAXLEV 31         /* levels per graph (bits of a mask) */
#define MAXR 16           /* dims of a value */

typedef enum {
	VR_NONE, VR_SAME, VR_BCAST, VR_NEW, VR_DIM, VR_DIM0, VR_DIM1, VR_DIM2, VR_PERM,
	VR_ALL, VR_VIEW, VR_EXPAND, VR_INDEX, VR_MARKER, VR_ADD_BDIM, VR_REMOVE_BDIM,
} VmapRule;

typedef struct VmapRow {
	const char *aten;
	VmapRule rule;
	const char *alt;
} VmapRow;

static const VmapRow vmap_rows[] = {
#define VMAP(aten, rule, alt) {aten, rule, alt},
#include "vmap.def"
#undef VMAP
};

typedef struct Vmap {
	LowerCtx *c;
	Graph *g;
	uint32_t *mask;         /* by Value id: the levels the value is batched at */
	int nmask;              /* entries of mask */
	Dim size[MAXLEV + 1];   /* by level: its batch size */
	Node **out;             /* the rewritten node list */
	int nout, cap;
	int seq;                /* for fresh names */
	const Node *at;         /* the node being rewritten (names, frames, messages) */
} Vmap;

static uint32_t
mask_of(const Vmap *m, const Value *v)
{
	return v && v->kind == VAL_TENSOR && v->id < m->nmask ? m->mask[v->id] : 0;
}

static int
nbits(uint32_t x)
{
	int k = 0;
	for (; x; x &= x - 1)
		k++;
	return k;
}

static void
set_mask(Vmap *m, const Value *v, uint32_t s)
{
	if (v->id >= m->nmask) {
		int n = v->id * 2 + 16;
		uint32_t *nm = ARENA_ARRAY(m->c->a, uint32_t, n);
		memset(nm, 0, sizeof *nm * (size_t)n);
		memcpy(nm, m->mask, sizeof *nm * (size_t)m->nmask);
		m->mask = nm;
		m->nmask = n;
	}
	m->mask[v->id] = s;
}

static int
logical_rank(const Vmap *m, const Value *v)
{
	return v->rank - nbits(mask_of(m, v));
}

static void
emit(Vmap *m, Node *n)
{
	if (m->nout == m->cap) {
		int cap = m->cap * 2 + 16;
		Node **nn = ARENA_ARRAY(m->c->a, Node *, cap);
		if (m->nout)            /* m->out is NULL before the first node */
			memcpy(nn, m->out, sizeof *nn * (size_t)m->nout);
		m->out = nn;
		m->cap = cap;
	}
	m->out[m->nout++] = n;
}

static const VmapRow *rule_of(const char *op);

/* ---- building nodes ---- */

static Arg
a_int(int64_t i)
{
	return (Arg){.kind = ARG_INT, .u.i = i};
}

static Arg
a_ints(Vmap *m, int k, const int64_t *v)
{
	Arg a = {.kind = ARG_INTS, .n = k, .u.list = ARENA_ARRAY(m->c->a, Arg, k + 1)};
	for (int i = 0; i < k; i++)
		a.u.list[i] = a_int(v[i]);
	return a;
}

static Arg
a_tensor(Value *v)
{
	return (Arg){.kind = ARG_TENSOR, .u.v = v};
}

/* A new node of op after m->at, with the given arguments and one tensor
 * output of dtype t and dims (rank r); returns the output. */
static Value *
mk(Vmap *m, const char *op, int nin, const NamedArg *in, DType t, int r, const Dim *dims, uint32_t s)
{
	Arena *a = m->c->a;
	Node *n = ARENA_NEW(a, Node);
	const char *name;
	Value *v;

	do
		name = arena_printf(a, "%s_vmap%d", m->at->name, ++m->seq);
	while (strmap_get(m->g->index, name));
	v = ir_new_value(a, m->g, name, VAL_TENSOR);
	v->dtype = t;
	v->rank = r;
	v->dims = arena_dup(a, dims, sizeof *dims * (size_t)(r + 1));
	v->def = n;
	set_mask(m, v, s);
	n->name = name;
	n->op = op;
	n->target = arena_printf(a, "torch.ops.%s", op);
	n->nin = nin;
	n->in = arena_dup(a, in, sizeof *in * (size_t)nin);
	n->nout = 1;
	n->out = ARENA_NEW(a, Arg);
	n->out[0] = a_tensor(v);
	n->stack_trace = m->at->stack_trace;
	n->nn_module_stack = m->at->nn_module_stack;
	n->frame = m->at->frame;
	n->graph = m->g;
	emit(m, n);
	return v;
}

/* unsqueeze(x, dim), batched at s. */
static Value *
unsqueeze(Vmap *m, Value *x, int dim, uint32_t s)
{
	Dim d[MAXR + 1];
	memcpy(d, x->dims, sizeof *d * (size_t)dim);
	d[dim] = (Dim){1, NULL};
	memcpy(d + dim + 1, x->dims + dim, sizeof *d * (size_t)(x->rank - dim));
	return mk(m, "aten.unsqueeze.default", 2,
	          (NamedArg[]){{"self", 1, a_tensor(x)}, {"dim", 1, a_int(dim)}}, x->dtype, x->rank + 1, d, s);
}

/* x batched at the levels u (a superset of its own) with rank r logical
 * dims: a dim of size 1 for each missing level and logical dim. */
static Value *
align(Vmap *m, Value *x, uint32_t u, int r)
{
	uint32_t s = mask_of(m, x);
	int j = 0;

	if (s == u && logical_rank(m, x) == r)
		return x;
	for (int l = 1; l <= MAXLEV; l++) {
		if (!(u & (1u << l)))
			continue;
		if (!(s & (1u << l))) {
			s |= 1u << l;
			x = unsqueeze(m, x, j, s);
		}
		j++;
	}
	while (logical_rank(m, x) < r)
		x = unsqueeze(m, x, nbits(u), u);
	return x;
}

/* The physical dims of a value batched at s whose logical dims are ld (rank r). */
static int
physical(const Vmap *m, uint32_t s, int r, const Dim *ld, Dim *out)
{
	int k = 0;
	for (int l = 1; l <= MAXLEV; l++)
		if (s & (1u << l))
			out[k++] = m->size[l];
	if (r)                          /* a 0-d value may have no dims array */
		memcpy(out + k, ld, sizeof *ld * (size_t)r);
	return k + r;
}

/* Gives n's tensor outputs (logical as recorded) the batch dims of s. */
static int
batch_outputs(Vmap *m, Node *n, uint32_t s)
{
	for (int k = 0; k < lower_nout(n); k++) {
		Value *v = (Value *)lower_out_value(n, k);
		Dim d[MAXR + MAXLEV + 1];
		if (!v || v->kind != VAL_TENSOR)
			continue;
		if (v->rank + nbits(s) > MAXR)
			return lower_fail(m->c, n, "inside torch.vmap: more than %d dims", MAXR);
		v->rank = physical(m, s, v->rank, v->dims, d);
		v->dims = arena_dup(m->c->a, d, sizeof *d * (size_t)v->rank);
		set_mask(m, v, s);
	}
	return 0;
}

/* The union of the levels of the tensors in a. */
static uint32_t
levels(const Vmap *m, const Arg *a)
{
	uint32_t s = 0;

	if (a->kind == ARG_TENSOR || a->kind == ARG_OPT_TENSOR)
		return mask_of(m, a->u.v);
	if (a->kind == ARG_TENSORS || a->kind == ARG_OPT_TENSORS)
		for (int i = 0; i < a->n; i++)
			s |= levels(m, &a->u.list[i]);
	return s;
}

static NamedArg *
named(Node *n, const char *name)
{
	for (int i = 0; i < n->nin; i++)
		if (!strcmp(n->in[i].name, name))
			return &n->in[i];
	return NULL;
}

/* Sets (or adds) argument name of n. */
static void
set_arg(Vmap *m, Node *n, const char *name, Arg a)
{
	NamedArg *na = named(n, name);
	if (na) {
		na->arg = a;
		return;
	}
	NamedArg *in = ARENA_ARRAY(m->c->a, NamedArg, n->nin + 1);
	if (n->nin)
		memcpy(in, n->in, sizeof *in * (size_t)n->nin);
	in[n->nin++] = (NamedArg){name, 2, a};
	n->in = in;
}

/* `self`, else the first tensor argument (_assert_tensor_metadata's `a`). */
static Value *
self_of(Node *n)
{
	NamedArg *na = named(n, "self");
	if (na && na->arg.kind == ARG_TENSOR)
		return na->arg.u.v;
	for (int i = 0; i < n->nin; i++)
		if (n->in[i].arg.kind == ARG_TENSOR)
			return n->in[i].arg.u.v;
	return NULL;
}

/* ---- the markers ---- */

/* _add_batch_dim(x, in_dim, level): movedim(x, in_dim, level's place). */
static int
add_batch_dim(Vmap *m, Node *n)
{
	Value *x = n->in[0].arg.kind == ARG_TENSOR ? n->in[0].arg.u.v : NULL;
	Value *y = (Value *)lower_out_value(n, 0);
	uint32_t s = mask_of(m, x);
	int64_t dim, level;
	int p, r;
	Dim d[MAXR + 1];

	if (!x || !y || n->nin < 3 || n->in[1].arg.kind != ARG_INT || n->in[2].arg.kind != ARG_INT)
		return lower_fail(m->c, n, "expects (tensor, in_dim, level) with constant in_dim and level");
	dim = n->in[1].arg.u.i;
	level = n->in[2].arg.u.i;
	r = logical_rank(m, x);
	if (level < 1 || level > MAXLEV || (s >> level) != 0)
		return lower_fail(m->c, n, "vmap level %lld is not the innermost one (at most %d nested vmaps)",
		                  (long long)level, MAXLEV);
	if (dim < -r || dim >= r)
		return lower_fail(m->c, n, "in_dim %lld out of range for rank %d", (long long)dim, r);
	dim = lower_axis(dim, r);
	p = nbits(s);
	m->size[level] = x->dims[p + dim];
	/* moved to p: the dims before p + dim shift up by one */
	memcpy(d, x->dims, sizeof *d * (size_t)x->rank);
	memmove(d + p + 1, d + p, sizeof *d * (size_t)dim);
	d[p] = x->dims[p + dim];
	n->op = "aten.movedim.int";
	n->target = "torch.ops.aten.movedim.int";
	n->nin = 3;
	n->in = ARENA_ARRAY(m->c->a, NamedArg, 3);
	n->in[0] = (NamedArg){"self", 1, a_tensor(x)};
	n->in[1] = (NamedArg){"source", 1, a_int(p + dim)};
	n->in[2] = (NamedArg){"destination", 1, a_int(p)};
	y->rank = x->rank;
	y->dims = arena_dup(m->c->a, d, sizeof *d * (size_t)x->rank);
	set_mask(m, y, s | 1u << level);
	emit(m, n);
	return 0;
}

/* _remove_batch_dim(y, level, size, out_dim): the batch dim of level moved
 * to out_dim; when y is not batched at level, y expanded there. */
static int
remove_batch_dim(Vmap *m, Node *n)
{
	Value *x = n->in[0].arg.kind == ARG_TENSOR ? n->in[0].arg.u.v : NULL;
	Value *y = (Value *)lower_out_value(n, 0);
	uint32_t s = mask_of(m, x), rest;
	int64_t level, dim;
	int r, p, q;
	Dim d[MAXR + 1];

	if (!x || !y || n->nin < 4 || n->in[1].arg.kind != ARG_INT || n->in[3].arg.kind != ARG_INT)
		return lower_fail(m->c, n, "expects (tensor, level, batch_size, out_dim) with constant level and out_dim");
	level = n->in[1].arg.u.i;
	dim = n->in[3].arg.u.i;
	if (level < 1 || level > MAXLEV)
		return lower_fail(m->c, n, "vmap level %lld out of range", (long long)level);
	rest = s & ~(1u << level);
	r = logical_rank(m, x) + 1;
	if (dim < -r || dim >= r)
		return lower_fail(m->c, n, "out_dim %lld out of range for rank %d", (long long)dim, r);
	dim = lower_axis(dim, r);
	q = nbits(rest) + (int)dim;
	if (s & (1u << level)) {
		p = nbits(s & ((1u << level) - 1));
		memcpy(d, x->dims, sizeof *d * (size_t)x->rank);
		/* take dim p out, put it at q */
		memmove(d + p, d + p + 1, sizeof *d * (size_t)(x->rank - p - 1));
		memmove(d + q + 1, d + q, sizeof *d * (size_t)(x->rank - 1 - q));
		d[q] = x->dims[p];
		n->op = "aten.movedim.int";
		n->target = "torch.ops.aten.movedim.int";
		n->nin = 3;
		n->in = ARENA_ARRAY(m->c->a, NamedArg, 3);
		n->in[0] = (NamedArg){"self", 1, a_tensor(x)};
		n->in[1] = (NamedArg){"source", 1, a_int(p)};
		n->in[2] = (NamedArg){"destination", 1, a_int(q)};
	} else {
		Value *u = unsqueeze(m, x, q, s);
		Arg size = {.kind = ARG_SYM_INTS, .n = u->rank, .u.list = ARENA_ARRAY(m->c->a, Arg, u->rank)};
		memcpy(d, u->dims, sizeof *d * (size_t)u->rank);
		d[q] = m->size[level];
		for (int i = 0; i < u->rank; i++)
			size.u.list[i] = a_int(-1);
		size.u.list[q] = n->in[2].arg;
		if (size.u.list[q].kind != ARG_INT && size.u.list[q].kind != ARG_SYM_INT)
			return lower_fail(m->c, n, "batch_size must be an int or a SymInt");
		n->op = "aten.expand.default";
		n->target = "torch.ops.aten.expand.default";
		n->nin = 2;
		n->in = ARENA_ARRAY(m->c->a, NamedArg, 2);
		n->in[0] = (NamedArg){"self", 1, a_tensor(u)};
		n->in[1] = (NamedArg){"size", 1, size};
		x = u;
	}
	y->rank = x->rank;
	y->dims = arena_dup(m->c->a, d, sizeof *d * (size_t)x->rank);
	set_mask(m, y, rest);
	emit(m, n);
	return 0;
}

/* ---- the rules ---- */

static const VmapRow *
rule_of(const char *op)
{
	for (size_t i = 0; i < sizeof vmap_rows / sizeof *vmap_rows; i++)
		if (!strcmp(vmap_rows[i].aten, op))
			return &vmap_rows[i];
	return NULL;
}

/* The marker row of op, or NULL: lower_vmap asks this of every node of
 * every graph, so the rule is compared before the name. */
static const VmapRow *
marker_of(const char *op)
{
	for (size_t i = 0; i < sizeof vmap_rows / sizeof *vmap_rows; i++)
		if (vmap_rows[i].rule >= VR_MARKER && !strcmp(vmap_rows[i].aten, op))
			return &vmap_rows[i];
	return NULL;
}

/* Every tensor operand aligned to the union of levels and the output's rank. */
static int
rule_bcast(Vmap *m, Node *n, uint32_t u)
{
	const Value *o = lower_out_value(n, 0);
	int r = o ? o->rank : 0;

	for (int i = 0; i < n->nin; i++) {
		Arg *a = &n->in[i].arg;
		if ((a->kind == ARG_TENSOR || a->kind == ARG_OPT_TENSOR) && a->u.v && mask_of(m, a->u.v))
			a->u.v = align(m, a->u.v, u, r);
	}
	return batch_outputs(m, n, u);
}

/* The dims argument `name` of n as dims of its physical self (rank r
 * logical, p batch dims); all logical dims when `all` and it is absent. */
static int
shift_dims(Vmap *m, Node *n, const char *name, int r, int p, int all)
{
	NamedArg *na = named(n, name);
	int64_t v[MAXR];
	int k = 0;

	if (!na || na->arg.kind == ARG_NONE || (na->arg.kind == ARG_INTS && na->arg.n == 0 && all)) {
		if (!all) {                /* slice.Tensor: dim 0 */
			set_arg(m, n, name, a_int(p));
			return 0;
		}
		for (k = 0; k < r; k++)
			v[k] = p + k;
		set_arg(m, n, name, a_ints(m, k, v));
		return 0;
	}
	if (na->arg.kind == ARG_INT) {
		int64_t d = na->arg.u.i;
		if (d < -(r ? r : 1) || d >= (r ? r : 1))
			return lower_fail(m->c, n, "inside torch.vmap: %s %lld out of range", name, (long long)d);
		na->arg = a_int(p + lower_axis(d, r ? r : 1));
		return 0;
	}
	if (na->arg.kind != ARG_INTS || na->arg.n > MAXR)
		return lower_fail(m->c, n, "inside torch.vmap: argument '%s' must be constant ints", name);
	for (k = 0; k < na->arg.n; k++) {
		int64_t d = na->arg.u.list[k].u.i;
		if (d < -(r ? r : 1) || d >= (r ? r : 1))
			return lower_fail(m->c, n, "inside torch.vmap: %s %lld out of range", name, (long long)d);
		v[k] = p + lower_axis(d, r ? r : 1);
	}
	na->arg = a_ints(m, k, v);
	return 0;
}

/* The batch sizes of s as size arguments (ints, or the SymInt's expression
 * is not available as a value: fails). */
static int
batch_sizes(Vmap *m, Node *n, uint32_t s, Arg *out)
{
	int k = 0;
	for (int l = 1; l <= MAXLEV; l++) {
		if (!(s & (1u << l)))
			continue;
		if (m->size[l].e)
			return lower_fail(m->c, n, "inside torch.vmap: a view with a dynamic batch size is not supported "
			                  "(export with a static size for the vmapped dim)");
		out[k++] = a_int(m->size[l].v);
	}
	return k;
}

/* view/reshape: the batch sizes in front of `size`; expand: -1s (after
 * unsqueezing self to the length of `size`). */
static int
rule_size(Vmap *m, Node *n, uint32_t s, int expand)
{
	NamedArg *na = named(n, "size") ? named(n, "size") : named(n, "shape");   /* reshape: shape */
	Value *x = self_of(n);
	int p = nbits(s), k;
	Arg size;

	if (!na || (na->arg.kind != ARG_INTS && na->arg.kind != ARG_SYM_INTS) || !x)
		return lower_fail(m->c, n, "inside torch.vmap: needs a 'self' tensor and a size list");
	size = (Arg){.kind = ARG_SYM_INTS, .n = na->arg.n + p, .u.list = ARENA_ARRAY(m->c->a, Arg, na->arg.n + p + 1)};
	if (expand) {
		if (mask_of(m, x) != s)
			return lower_fail(m->c, n, "inside torch.vmap: expand of a partly batched tensor");
		while (logical_rank(m, x) < na->arg.n)
			x = unsqueeze(m, x, p, s);
		named(n, "self")->arg.u.v = x;
		for (k = 0; k < p; k++)
			size.u.list[k] = a_int(-1);
	} else if ((k = batch_sizes(m, n, s, size.u.list)) < 0) {
		return DIAG_CONVERT;
	}
	if (na->arg.n)
		memcpy(size.u.list + p, na->arg.u.list, sizeof *size.u.list * (size_t)na->arg.n);
	na->arg = size;
	return batch_outputs(m, n, s);
}

/* index.Tensor(self, [i0, i1, ...]) with batched operands: self gets every
 * level (expanded), the indices gain arange(B) for each batch dim in front,
 * so the leading batch dims index themselves. */
static int
rule_index(Vmap *m, Node *n, uint32_t u)
{
	NamedArg *ia = named(n, "indices");
	Value *x = self_of(n);
	int p = nbits(u), ri = 0, j = 0;
	Arg list;
	Dim d[MAXR + MAXLEV + 1];

	if (!ia || !x || (ia->arg.kind != ARG_OPT_TENSORS && ia->arg.kind != ARG_TENSORS))
		return lower_fail(m->c, n, "inside torch.vmap: needs 'self' and a list of 'indices'");
	for (int i = 0; i < ia->arg.n; i++) {
		const Arg *it = &ia->arg.u.list[i];
		if (it->kind == ARG_NONE || !it->u.v)
			return lower_fail(m->c, n, "inside torch.vmap: indexing with None (a slice) between tensor indices "
			                  "is not supported; index with tensors only");
		if (it->u.v->dtype == DT_BOOL || it->u.v->dtype == DT_UINT8)
			return lower_fail(m->c, n, "inside torch.vmap: boolean mask indices are not supported");
		if (logical_rank(m, it->u.v) > ri)
			ri = logical_rank(m, it->u.v);
	}
	/* self: every level of u, at full size */
	if (mask_of(m, x) != u) {
		Arg size = {.kind = ARG_SYM_INTS, .n = 0, .u.list = NULL};
		Value *e;
		int r = logical_rank(m, x);
		x = align(m, x, u, r);
		size.u.list = ARENA_ARRAY(m->c->a, Arg, x->rank + 1);
		if (batch_sizes(m, n, u, size.u.list) < 0)
			return DIAG_CONVERT;
		for (int i = 0; i < r; i++)
			size.u.list[p + i] = a_int(-1);
		size.n = p + r;
		physical(m, u, r, x->dims + p, d);
		e = mk(m, "aten.expand.default", 2, (NamedArg[]){{"self", 1, a_tensor(x)}, {"size", 1, size}},
		       x->dtype, x->rank, d, u);
		x = e;
		named(n, "self")->arg.u.v = x;
	}
	list = (Arg){.kind = ARG_OPT_TENSORS, .n = p + ia->arg.n, .u.list = ARENA_ARRAY(m->c->a, Arg, p + ia->arg.n + 1)};
	for (int l = 1; l <= MAXLEV; l++) {
		Dim shape[MAXR + MAXLEV + 1];
		int64_t sz[MAXR + MAXLEV];
		Value *ar;
		if (!(u & (1u << l)))
			continue;
		if (m->size[l].e)
			return lower_fail(m->c, n, "inside torch.vmap: indexing with a dynamic batch size is not supported");
		shape[0] = m->size[l];
		ar = mk(m, "aten.arange.default", 2,
		        (NamedArg[]){{"end", 1, a_int(m->size[l].v)},
		                     {"dtype", 2, (Arg){.kind = ARG_SCALAR_TYPE, .u.i = dtype_torch(DT_INT64)}}},
		        DT_INT64, 1, shape, 0);
		for (int i = 0; i < p + ri; i++) {
			sz[i] = i == j ? m->size[l].v : 1;
			shape[i] = (Dim){sz[i], NULL};
		}
		ar = mk(m, "aten.view.default", 2, (NamedArg[]){{"self", 1, a_tensor(ar)}, {"size", 1, a_ints(m, p + ri, sz)}},
		        DT_INT64, p + ri, shape, 0);
		list.u.list[j++] = a_tensor(ar);
	}
	for (int i = 0; i < ia->arg.n; i++) {
		Value *v = ia->arg.u.list[i].u.v;
		list.u.list[p + i] = a_tensor(mask_of(m, v) ? align(m, v, u, ri) : v);
	}
	ia->arg = list;
	return batch_outputs(m, n, u);
}

static int
rewrite(Vmap *m, Node *n, uint32_t u)
{
	const VmapRow *row = rule_of(n->op);
	Value *x = self_of(n);
	uint32_t s = mask_of(m, x);
	int p = nbits(s), r = x ? logical_rank(m, x) : 0, rc = 0;

	if (!row || row->rule >= VR_MARKER)
		return lower_fail(m->c, n, "inside torch.vmap: no batching rule for %s (lib/lower/vmap.def lists the ops "
		                  "the vmap pass rewrites)", n->op);
	if (row->rule != VR_BCAST && row->rule != VR_INDEX && row->rule != VR_NEW && s != u)
		return lower_fail(m->c, n, "inside torch.vmap: only 'self' may be batched for %s", n->op);
	switch (row->rule) {
	case VR_SAME:
		rc = batch_outputs(m, n, s);
		break;
	case VR_NEW:
		break;
	case VR_BCAST:
		rc = rule_bcast(m, n, u);
		break;
	case VR_DIM:
	case VR_DIM0:
		if (!(rc = shift_dims(m, n, "dim", r, p, row->rule == VR_DIM)))
			rc = batch_outputs(m, n, s);
		break;
	case VR_DIM1:
		if (!(rc = shift_dims(m, n, "dim", r + 1, p, 0)))
			rc = batch_outputs(m, n, s);
		break;
	case VR_DIM2:
		if (!(rc = shift_dims(m, n, "dim0", r, p, 0)) && !(rc = shift_dims(m, n, "dim1", r, p, 0)))
			rc = batch_outputs(m, n, s);
		break;
	case VR_PERM: {
		NamedArg *na = named(n, "dims");
		int64_t v[MAXR + MAXLEV];
		if (!na || na->arg.kind != ARG_INTS || na->arg.n != r)
			return lower_fail(m->c, n, "inside torch.vmap: 'dims' must be %d constant ints", r);
		for (int i = 0; i < p; i++)
			v[i] = i;
		for (int i = 0; i < r; i++)
			v[p + i] = p + lower_axis(na->arg.u.list[i].u.i, r);
		na->arg = a_ints(m, p + r, v);
		rc = batch_outputs(m, n, s);
		break;
	}
	case VR_ALL:
		if (r == 0)
			return lower_fail(m->c, n, "inside torch.vmap: a full reduction of a 0-d tensor is not supported");
		n->op = row->alt;
		n->target = arena_printf(m->c->a, "torch.ops.%s", row->alt);
		if (!(rc = shift_dims(m, n, "dim", r, p, 1)))
			rc = batch_outputs(m, n, s);
		break;
	case VR_VIEW:
	case VR_EXPAND:
		rc = rule_size(m, n, s, row->rule == VR_EXPAND);
		break;
	case VR_INDEX:
		rc = rule_index(m, n, u);
		break;
	case VR_NONE: case VR_MARKER: case VR_ADD_BDIM: case VR_REMOVE_BDIM:
		break;
	}
	return rc;
}

int
lower_vmap(LowerCtx *c, Graph *g)
{
	Vmap mm = {.c = c, .g = g}, *m = &mm;
	const VmapRow *row;
	int any = 0, rc = 0;

	for (int i = 0; i < g->nnode && !any; i++)
		any = marker_of(g->nodes[i]->op) != NULL;
	if (!any)
		return 0;
	m->nmask = g->nvalue + 16;
	m->mask = ARENA_ARRAY(c->a, uint32_t, m->nmask);
	memset(m->mask, 0, sizeof *m->mask * (size_t)m->nmask);
	for (int i = 0; i < g->nnode && !rc; i++) {
		Node *n = g->nodes[i];
		VmapRule rule = (row = rule_of(n->op)) ? row->rule : VR_NONE;
		uint32_t u = 0;
		m->at = n;
		for (int k = 0; k < n->nin; k++)
			u |= levels(m, &n->in[k].arg);
		if (rule == VR_MARKER)
			continue;           /* nesting markers: the sizes come from the values */
		if (rule == VR_ADD_BDIM)
			rc = add_batch_dim(m, n);
		else if (rule == VR_REMOVE_BDIM)
			rc = remove_batch_dim(m, n);
		else if (u) {
			if (!(rc = rewrite(m, n, u)))
				emit(m, n);
		} else
			emit(m, n);
	}
	if (rc)
		return rc;
	for (int i = 0; i < g->noutput; i++)
		if (g->outputs[i].kind == ARG_TENSOR && mask_of(m, g->outputs[i].u.v))
			return lower_fail(c, g->outputs[i].u.v->def, "a batched value leaves torch.vmap without _remove_batch_dim");
	for (int i = 0; i < m->nout; i++)
		m->out[i]->id = i;
	g->nodes = m->out;
	g->nnode = m->nout;
	return 0;
}
