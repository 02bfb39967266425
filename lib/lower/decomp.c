/* decomp.c: the decomposition pass, which rewrites each node of an op with
 * a row of decomp.def (and no lowering at the target opset) into nodes of
 * other ATen ops, before anything else of the lowering looks at the graph.
 *
 * Requires the graphs as read (after the vmap pass); rewrites their node
 * lists in place; invalidates nothing that exists yet.  New values get
 * their dtype and shape from ir_type_outputs(): the hand-written rule of
 * ir/meta where there is one, else the typer the options hand down
 * (LowerOptions.typer: typer.c's derivation from the lowering); the last node of a decomposition writes the node's own
 * outputs, so every reader stays as it was.  A node a
 * decomposition cannot take (a rule refuses its arguments) fails by name,
 * as an unsupported op would. */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "internal.h"

#define DC_MAXIN 8      /* arguments of one new node */
#define DC_MAXOUT 8     /* outputs of one new node */
#define DC_ROUNDS 4     /* a decomposition may give ops that have one too */

typedef struct Dc Dc;
typedef struct DcRow DcRow;
typedef int (*DcFn)(Dc *b, const DcRow *row);

struct DcRow {
	const char *aten;       /* the op decomposed */
	const char *into;       /* the op of its result */
	const char *args;       /* dc_map's argument list */
	DcFn fn;
};

struct Dc {
	LowerCtx *c;
	Graph *g;
	Node *at;               /* the node decomposed */
	Node **out;             /* the rewritten node list */
	int nout, cap;
	int seq;                /* for fresh names */
	int bad;                /* a new node failed its meta rule */
	int done;               /* the row's function wrote the outputs itself */
};

#define DECOMP(aten, into, args, fn) static int fn(Dc *b, const DcRow *row);
#include "decomp.def"
#undef DECOMP

static const DcRow dc_rows[] = {
#define DECOMP(aten, into, args, fn) {aten, into, args, fn},
#include "decomp.def"
#undef DECOMP
};

/* ---- building nodes ---- */

static Arg A_T(Value *v) { return (Arg){.kind = ARG_TENSOR, .u.v = v}; }
static Arg A_I(int64_t i) { return (Arg){.kind = ARG_INT, .u.i = i}; }
static Arg A_F(double f) { return (Arg){.kind = ARG_FLOAT, .u.f = f}; }
static Arg A_B(int i) { return (Arg){.kind = ARG_BOOL, .u.i = i}; }

static Arg
A_INTS(Dc *b, int k, const int64_t *v)
{
	Arg a = {.kind = ARG_INTS, .n = k, .u.list = ARENA_ARRAY(b->c->a, Arg, k + 1)};

	for (int i = 0; i < k; i++)
		a.u.list[i] = A_I(v[i]);
	return a;
}

static Arg
A_TS(Dc *b, int k, Value *const *v)
{
	Arg a = {.kind = ARG_TENSORS, .n = k, .u.list = ARENA_ARRAY(b->c->a, Arg, k + 1)};

	for (int i = 0; i < k; i++)
		a.u.list[i] = A_T(v[i]);
	return a;
}

static void
emit(Dc *b, Node *n)
{
	if (b->nout == b->cap) {
		int cap = b->cap * 2 + 16;
		Node **nn = ARENA_ARRAY(b->c->a, Node *, cap);
		if (b->nout)
			memcpy(nn, b->out, sizeof *nn * (size_t)b->nout);
		b->out = nn;
		b->cap = cap;
	}
	b->out[b->nout++] = n;
}

/* A node of op after b->at with the given arguments and no outputs yet. */
static Node *
node_new(Dc *b, const char *op, int nin, const NamedArg *in)
{
	Node *n = ARENA_NEW(b->c->a, Node);

	n->name = b->at->name;
	n->op = op;
	n->target = arena_printf(b->c->a, "torch.ops.%s", op);
	n->nin = nin;
	n->in = ARENA_ARRAY(b->c->a, NamedArg, nin + 1);     /* zeroed: the entry after the last is empty */
	memcpy(n->in, in, sizeof *in * (size_t)nin);
	n->stack_trace = b->at->stack_trace;
	n->nn_module_stack = b->at->nn_module_stack;
	n->frame = b->at->frame;
	n->meta = b->at->meta;
	n->nmeta = b->at->nmeta;
	n->graph = b->g;
	return n;
}

/* A node of op whose outputs are new values typed by ir_type_outputs();
 * returns its output k (0: the first), or NULL after reporting why. */
static Value *
op_k(Dc *b, const char *op, int nin, const NamedArg *in, int k)
{
	Node *n = node_new(b, op, nin, in);
	Value meta[DC_MAXOUT];
	char why[300];
	int m = ir_type_outputs(b->c->opt->typer, b->c->a, n, k + 1, meta, DC_MAXOUT, why, sizeof why);

	if (b->bad)
		return NULL;
	if (m < 1 || k >= m) {
		b->bad = 1;
		lower_fail(b->c, b->at, "its decomposition into %s: %s", op, m < 1 ? why : "too few results");
		return NULL;
	}
	n->nout = m;
	n->out = ARENA_ARRAY(b->c->a, Arg, m);
	for (int i = 0; i < m; i++) {
		const char *name;
		Value *v;
		do
			name = arena_printf(b->c->a, "%s_d%d", b->at->name, ++b->seq);
		while (strmap_get(b->g->index, name));
		v = ir_new_value(b->c->a, b->g, name, meta[i].kind);
		v->dtype = meta[i].dtype;
		v->rank = meta[i].rank;
		v->dims = meta[i].dims;
		v->expr = meta[i].expr;
		v->def = n;
		n->out[i] = A_T(v);
		if (meta[i].kind != VAL_TENSOR)
			n->out[i] = (Arg){.kind = ARG_SYM_INT, .u.v = v};
	}
	n->name = n->out[0].u.v->name;
	emit(b, n);
	return n->out[k].u.v;
}

/* op(in...) with one (first) result. */
#define OP(b, op, ...) op_k(b, op, (int)(sizeof((NamedArg[]){__VA_ARGS__}) / sizeof(NamedArg)), (NamedArg[]){__VA_ARGS__}, 0)

/* A node of op writing the existing value dst (one of b->at's outputs). */
static int
op_into(Dc *b, const char *op, int nin, const NamedArg *in, Value *dst)
{
	Node *n = node_new(b, op, nin, in);

	if (b->bad)
		return -1;
	n->nout = 1;
	n->out = ARENA_NEW(b->c->a, Arg);
	n->out[0] = A_T(dst);
	n->name = dst->name;
	dst->def = n;
	emit(b, n);
	return 0;
}

#define INTO(b, dst, op, ...) op_into(b, op, (int)(sizeof((NamedArg[]){__VA_ARGS__}) / sizeof(NamedArg)), (NamedArg[]){__VA_ARGS__}, dst)

/* b->at's output k as a Value (lists flattened), or NULL. */
static Value *
out_k(Dc *b, int k)
{
	return (Value *)lower_out_value(b->at, k);
}

/* The last node: op writing b->at's own outputs. */
static int
final(Dc *b, const char *op, int nin, const NamedArg *in)
{
	Node *n = node_new(b, op, nin, in);

	if (b->bad)
		return -1;
	n->nout = b->at->nout;
	n->out = b->at->out;
	n->name = b->at->name;
	for (int k = 0; k < lower_nout(n); k++)
		if (out_k(b, k))
			out_k(b, k)->def = n;
	emit(b, n);
	return 0;
}

#define FINAL(b, op, ...) final(b, op, (int)(sizeof((NamedArg[]){__VA_ARGS__}) / sizeof(NamedArg)), (NamedArg[]){__VA_ARGS__})

/* ---- reading the node decomposed ---- */

static const Arg *
arg(Dc *b, const char *name)
{
	const Arg *a = ir_arg(b->at, name);

	return a && a->kind != ARG_NONE ? a : NULL;
}

static Value *
tensor(Dc *b, const char *name)
{
	const Arg *a = arg(b, name);

	return a && (a->kind == ARG_TENSOR || a->kind == ARG_OPT_TENSOR) ? a->u.v : NULL;
}

static int64_t
int_arg(Dc *b, const char *name, int64_t def)
{
	const Arg *a = arg(b, name);
	int64_t v;

	if (a && (a->kind == ARG_INT || a->kind == ARG_BOOL))
		return a->u.i;
	if (a && a->kind == ARG_SYM_INT && a->u.v->expr && poly_is_num(a->u.v->expr, &v))
		return v;
	return def;
}

static double
float_arg(Dc *b, const char *name, double def)
{
	const Arg *a = arg(b, name);

	if (a && a->kind == ARG_FLOAT)
		return a->u.f;
	if (a && (a->kind == ARG_INT || a->kind == ARG_BOOL))
		return (double)a->u.i;
	return def;
}

static int
fail(Dc *b, const char *why)
{
	b->bad = 1;
	return lower_fail(b->c, b->at, "%s", why);
}

/* ---- the rows ---- */

/* One constant of dc_map's ARGS ("-1", "0.5", "[0]", "True"). */
static Arg
parse_const(Dc *b, const char *s, size_t len)
{
	char buf[64];
	int64_t v[16];
	int k = 0;

	snprintf(buf, sizeof buf, "%.*s", (int)len, s);
	if (!strcmp(buf, "True") || !strcmp(buf, "False"))
		return A_B(buf[0] == 'T');
	if (buf[0] == '[') {
		for (char *p = buf + 1; *p && *p != ']' && k < 16; ) {
			v[k++] = strtoll(p, &p, 10);
			while (*p == ',' || *p == ' ')
				p++;
		}
		return A_INTS(b, k, v);
	}
	if (strchr(buf, '.') || strchr(buf, 'e'))
		return A_F(strtod(buf, NULL));
	return A_I(strtoll(buf, NULL, 10));
}

/* The arguments spec (dc_map's ARGS) says, from b->at's, into in[]
 * (DC_MAXIN entries); returns their number. */
static int
map_args(Dc *b, const char *spec, NamedArg *in)
{
	int nin = 0;

	for (const char *p = spec; *p && nin < DC_MAXIN; ) {
		size_t len = strcspn(p, ","), nl = strcspn(p, "=,");
		const char *name = arena_printf(b->c->a, "%.*s", (int)nl, p);
		if (nl < len) {                         /* NAME=OLD or NAME=VALUE */
			const char *r = p + nl + 1;
			size_t rl = len - nl - 1;
			if ((r[0] >= 'a' && r[0] <= 'z') || r[0] == '_') {
				const Arg *a = arg(b, arena_printf(b->c->a, "%.*s", (int)rl, r));
				if (a)
					in[nin++] = (NamedArg){name, 2, *a};
			} else {
				in[nin++] = (NamedArg){name, 2, parse_const(b, r, rl)};
			}
		} else if (arg(b, name)) {
			in[nin++] = (NamedArg){name, 2, *arg(b, name)};
		}
		p += len;
		while (*p == ',' || *p == ' ')
			p++;
	}
	return nin;
}

/* One node of row->into, its arguments as row->args says (see decomp.def). */
static int
dc_map(Dc *b, const DcRow *row)
{
	NamedArg in[DC_MAXIN];
	int nin = map_args(b, row->args, in);

	return final(b, row->into, nin, in);
}

/* view_as(self, other): view(self, other's sizes). */
static int
dc_view_as(Dc *b, const DcRow *row)
{
	Value *x = tensor(b, "self"), *o = tensor(b, "other");
	Arg size;

	if (!x || !o)
		return fail(b, "needs tensors self and other");
	size = (Arg){.kind = ARG_SYM_INTS, .n = o->rank, .u.list = ARENA_ARRAY(b->c->a, Arg, o->rank + 1)};
	for (int i = 0; i < o->rank; i++) {
		if (o->dims[i].e)
			return fail(b, "needs the static sizes of other");
		size.u.list[i] = A_I(o->dims[i].v);
	}
	size.kind = ARG_INTS;
	return FINAL(b, row->into, {"self", 2, A_T(x)}, {"size", 2, size});
}

/* x reshaped to at least `least` dims as torch's atleast_Nd: 0-d to
 * [1]*least, 1-D (n) to [1, n] or [1, n, 1], 2-D (m, n) to [m, n, 1];
 * into dst when not NULL. */
static Value *
atleast(Dc *b, Value *x, int least, Value *dst)
{
	int64_t shape[3] = {1, 1, 1};
	int r = least;

	if (x->rank >= least || x->rank > 2) {
		if (!dst)
			return x;
		return INTO(b, dst, "aten.alias.default", {"self", 2, A_T(x)}) ? NULL : dst;
	}
	if ((x->rank >= 1 && x->dims[0].e) || (x->rank == 2 && x->dims[1].e)) {
		fail(b, "needs the static sizes of a 1-D or 2-D operand");
		return NULL;
	}
	if (x->rank == 1)                       /* (n): [1, n] or [1, n, 1] */
		shape[1] = x->dims[0].v;
	else if (x->rank == 2)                  /* (m, n): [m, n, 1] */
		shape[0] = x->dims[0].v, shape[1] = x->dims[1].v;
	if (dst)
		return INTO(b, dst, "aten.reshape.default", {"self", 2, A_T(x)}, {"shape", 2, A_INTS(b, r, shape)}) ? NULL : dst;
	return OP(b, "aten.reshape.default", {"self", 2, A_T(x)}, {"shape", 2, A_INTS(b, r, shape)});
}

/* The tensors of a Tensor[] argument into v (at most max); their count, -1 when absent. */
static int
tensors(Dc *b, const char *name, Value **v, int max)
{
	const Arg *a = arg(b, name);
	int k = 0;

	if (!a || a->kind != ARG_TENSORS)
		return -1;
	for (int i = 0; i < a->n && k < max; i++)
		if (a->u.list[i].kind == ARG_TENSOR)
			v[k++] = a->u.list[i].u.v;
	return k;
}

#define DC_MAXLIST 64

/* atleast_Nd(self) or atleast_Nd.Sequence(tensors); ARGS: N. */
static int
dc_atleast(Dc *b, const DcRow *row)
{
	int least = row->args[0] - '0';
	Value *ts[DC_MAXLIST], *x = tensor(b, "self");
	int k = x ? 1 : tensors(b, "tensors", ts, DC_MAXLIST);

	if (x)
		ts[0] = x;
	if (k < 0 || k > lower_nout(b->at))
		return fail(b, "needs tensors");
	for (int i = 0; i < k; i++)
		if (!atleast(b, ts[i], least, out_k(b, i)))
			return -1;
	return 0;
}

/* hstack / vstack / dstack / column_stack(tensors): each made 1-D, 2-D or
 * 3-D as the op says, then one cat.  ARGS: "h", "v", "d" or "column". */
static int
dc_stack(Dc *b, const DcRow *row)
{
	const char *kind = row->args;
	Value *ts[DC_MAXLIST];
	int k = tensors(b, "tensors", ts, DC_MAXLIST), dim = 0, all1 = 1, col = !strcmp(kind, "column");
	int least = kind[0] == 'v' ? 2 : kind[0] == 'd' ? 3 : 1;

	if (k < 1)
		return fail(b, "needs a list of tensors");
	for (int i = 0; i < k; i++)
		all1 &= ts[i]->rank <= 1;
	for (int i = 0; i < k; i++) {
		Value *x = ts[i];
		if (col && x->rank <= 1) {
			int64_t shape[2] = {x->rank ? -1 : 1, 1};
			x = OP(b, "aten.reshape.default", {"self", 2, A_T(x)}, {"shape", 2, A_INTS(b, 2, shape)});
		} else {
			x = atleast(b, x, least, NULL);
		}
		if (!x)
			return -1;
		ts[i] = x;
	}
	if (kind[0] == 'h')
		dim = all1 ? 0 : 1;
	else if (kind[0] == 'd')
		dim = 2;
	else if (col)
		dim = 1;
	return FINAL(b, row->into, {"tensors", 2, A_TS(b, k, ts)}, {"dim", 2, A_I(dim)});
}

/* tensor_split / hsplit / vsplit / dsplit / unsafe_chunk: one slice per
 * part, at the bounds torch computes (sections: the first len % n parts
 * one longer; chunks: parts of ceil(len / chunks)).  ARGS: "sections"
 * (tensor_split: the dim argument), "h", "v", "d" (the dim they name,
 * sections that must divide it) or "chunks". */
static int
dc_tensor_split(Dc *b, const DcRow *row)
{
	const char *kind = row->args;
	int hvd = strlen(kind) == 1, chunks = !strcmp(kind, "chunks");
	Value *x = tensor(b, "self");
	int64_t bound[DC_MAXLIST + 1], dim, len, nb = 0;
	int nout = lower_nout(b->at);
	const Arg *ix = arg(b, "indices");

	if (!x)
		return fail(b, "needs a tensor self");
	dim = kind[0] == 'h' && hvd ? (x->rank == 1 ? 0 : 1) : kind[0] == 'v' ? 0 : kind[0] == 'd' ? 2
	    : int_arg(b, "dim", 0);
	dim = lower_axis(dim, x->rank);
	if (dim < 0 || dim >= x->rank || x->dims[dim].e || nout > DC_MAXLIST)
		return fail(b, "needs a static dim to split");
	len = x->dims[dim].v;
	if (ix && (ix->kind == ARG_INTS || ix->kind == ARG_SYM_INTS)) {            /* .indices, .array */
		bound[nb++] = 0;
		for (int i = 0; i < ix->n && nb < DC_MAXLIST; i++) {
			int64_t v = ix->u.list[i].u.i;
			v = v < 0 ? v + len : v;
			bound[nb++] = v < 0 ? 0 : v > len ? len : v;
		}
		bound[nb++] = len;
	} else {
		int64_t n = int_arg(b, chunks ? "chunks" : "sections", 0);
		if (n <= 0)
			return fail(b, "needs a number of sections above 0");
		if (hvd && len % n)
			return fail(b, "needs a dim the sections divide");
		bound[nb++] = 0;
		if (chunks) {
			int64_t step = (len + n - 1) / n;
			for (int64_t s = step; s < len; s += step)
				bound[nb++] = s;
			if (len)
				bound[nb++] = len;
		} else {
			for (int64_t i = 0; i < n && nb <= DC_MAXLIST; i++)
				bound[nb] = bound[nb - 1] + len / n + (i < len % n), nb++;
		}
	}
	if (nb - 1 != nout)
		return fail(b, "the parts do not match the node's outputs");
	for (int i = 0; i < nout; i++) {
		int64_t lo = bound[i], hi = bound[i + 1] < lo ? lo : bound[i + 1];
		if (out_k(b, i) && INTO(b, out_k(b, i), row->into, {"self", 2, A_T(x)}, {"dim", 2, A_I(dim)},
		                        {"start", 2, A_I(lo)}, {"end", 2, A_I(hi)}))
			return -1;
	}
	return 0;
}

/* msort(self): sort(self, dim=0)'s values. */
static int
dc_msort(Dc *b, const DcRow *row)
{
	Value *x = tensor(b, "self");
	Node *n;

	if (!x || !out_k(b, 0))
		return fail(b, "needs a tensor self");
	if (!op_k(b, row->into, 2, (NamedArg[]){{"self", 2, A_T(x)}, {"dim", 2, A_I(0)}}, 0))
		return -1;
	n = b->out[b->nout - 1];
	n->out[0] = A_T(out_k(b, 0));
	out_k(b, 0)->def = n;
	return 0;
}

/* take(self, index): self flattened, indexed by index (its shape). */
static int
dc_take(Dc *b, const DcRow *row)
{
	Value *x = tensor(b, "self"), *i = tensor(b, "index");
	int64_t m1 = -1;

	if (!x || !i)
		return fail(b, "needs tensors self and index");
	x = OP(b, "aten.reshape.default", {"self", 2, A_T(x)}, {"shape", 2, A_INTS(b, 1, &m1)});
	if (!x)
		return -1;
	return FINAL(b, row->into, {"self", 2, A_T(x)}, {"indices", 2, (Arg){.kind = ARG_OPT_TENSORS, .n = 1, .u.list = arena_dup(b->c->a, &(Arg){.kind = ARG_OPT_TENSOR, .u.v = i}, sizeof(Arg))}});
}

/* inner(self, other): the product over the last dims, matmul(self,
 * other^T) for 2-D and less, a product for a 0-d operand. */
static int
dc_inner(Dc *b, const DcRow *row)
{
	Value *x = tensor(b, "self"), *y = tensor(b, "other");

	if (!x || !y)
		return fail(b, "needs tensors self and other");
	if (!x->rank || !y->rank)
		return FINAL(b, "aten.mul.Tensor", {"self", 2, A_T(x)}, {"other", 2, A_T(y)});
	if (x->rank > 2 || y->rank > 2)
		return fail(b, "needs operands of 2 dims or less");
	if (y->rank == 2 && !(y = OP(b, "aten.transpose.int", {"self", 2, A_T(y)}, {"dim0", 2, A_I(0)}, {"dim1", 2, A_I(1)})))
		return -1;
	return FINAL(b, row->into, {"self", 2, A_T(x)}, {"other", 2, A_T(y)});
}

/* beta * self + alpha * p for a product p. */
static int
scaled_sum(Dc *b, Value *self, Value *p)
{
	double beta = float_arg(b, "beta", 1), alpha = float_arg(b, "alpha", 1);

	if (alpha != 1 && !(p = OP(b, "aten.mul.Tensor", {"self", 2, A_T(p)}, {"other", 2, A_F(alpha)})))
		return -1;
	if (beta != 1 && !(self = OP(b, "aten.mul.Tensor", {"self", 2, A_T(self)}, {"other", 2, A_F(beta)})))
		return -1;
	return FINAL(b, "aten.add.Tensor", {"self", 2, A_T(self)}, {"other", 2, A_T(p)});
}

/* addmv(self, mat, vec), addr(self, vec1, vec2), addbmm(self, batch1,
 * batch2) (beta=1, alpha=1): beta * self + alpha * the product (INTO,
 * its operands as ARGS says, as dc_map's; bmm's summed over the batch). */
static int
dc_addmx(Dc *b, const DcRow *row)
{
	NamedArg in[DC_MAXIN];
	int nin = map_args(b, row->args, in);
	Value *s = tensor(b, "self"), *p = nin == 2 ? op_k(b, row->into, nin, in, 0) : NULL;
	double alpha = float_arg(b, "alpha", 1);

	if (p && !strcmp(row->into, "aten.bmm.default"))
		p = OP(b, "aten.sum.dim_IntList", {"self", 2, A_T(p)}, {"dim", 2, A_INTS(b, 1, (int64_t[]){0})});
	if (!s || !p)
		return b->bad ? -1 : fail(b, "needs tensors self and the product's two operands");
	if (!dtype_is_float(s->dtype))  /* int beta/alpha and bool products: not read here */
		return fail(b, "integer and bool operands are not decomposed");
	if (float_arg(b, "beta", 1) != 0)
		return scaled_sum(b, s, p);
	if (alpha == 1)
		return FINAL(b, "aten.alias.default", {"self", 2, A_T(p)});
	return FINAL(b, "aten.mul.Tensor", {"self", 2, A_T(p)}, {"other", 2, A_F(alpha)});
}

/* linalg_vecdot(x, y, dim=-1): sum(x * y, dim) (real operands). */
static int
dc_vecdot(Dc *b, const DcRow *row)
{
	Value *x = tensor(b, "x"), *y = tensor(b, "y"), *p;

	if (!x || !y)
		return fail(b, "needs tensors x and y");
	if (!(p = OP(b, "aten.mul.Tensor", {"self", 2, A_T(x)}, {"other", 2, A_T(y)})))
		return -1;
	return FINAL(b, row->into, {"self", 2, A_T(p)}, {"dim", 2, A_INTS(b, 1, (int64_t[]){int_arg(b, "dim", -1)})});
}

/* linalg_matrix_power(self, n) for 1 <= n <= DC_MAXPOW: n - 1 matmuls. */
#define DC_MAXPOW 16

static int
dc_matrix_power(Dc *b, const DcRow *row)
{
	Value *x = tensor(b, "self"), *acc;
	int64_t n = int_arg(b, "n", -1);

	if (!x || n < 1 || n > DC_MAXPOW)
		return fail(b, "needs a power n from 1 to 16 (0 and negative powers are not decomposed)");
	if (n == 1)
		return FINAL(b, "aten.alias.default", {"self", 2, A_T(x)});
	acc = x;
	for (int64_t i = 2; i < n && acc; i++)
		acc = OP(b, row->into, {"self", 2, A_T(acc)}, {"other", 2, A_T(x)});
	return acc ? FINAL(b, row->into, {"self", 2, A_T(acc)}, {"other", 2, A_T(x)}) : -1;
}

/* ---- losses ---- */

static Value *
un(Dc *b, const char *op, Value *x)
{
	return x ? OP(b, op, {"self", 2, A_T(x)}) : NULL;
}

static Value *
bin(Dc *b, const char *op, Value *x, Value *y)
{
	return x && y ? OP(b, op, {"self", 2, A_T(x)}, {"other", 2, A_T(y)}) : NULL;
}

static Value *
bin_s(Dc *b, const char *op, Value *x, double s)
{
	return x ? OP(b, op, {"self", 2, A_T(x)}, {"other", 2, A_F(s)}) : NULL;
}

/* where(cond, x, y) */
static Value *
sel(Dc *b, Value *cond, Value *x, Value *y)
{
	return cond && x && y ? OP(b, "aten.where.self", {"condition", 2, A_T(cond)}, {"self", 2, A_T(x)},
	                            {"other", 2, A_T(y)}) : NULL;
}

/* sum(x, dim) with keepdim */
static Value *
sum_dim(Dc *b, Value *x, int64_t dim, int keep)
{
	return x ? OP(b, "aten.sum.dim_IntList", {"self", 2, A_T(x)}, {"dim", 2, A_INTS(b, 1, &dim)},
	              {"keepdim", 2, A_B(keep)}) : NULL;
}

static Value *
clamp0(Dc *b, Value *x)
{
	return x ? OP(b, "aten.clamp_min.default", {"self", 2, A_T(x)}, {"min", 2, A_F(0)}) : NULL;
}

/* |a - b + eps|_p over the last dim (torch's pairwise_distance) */
static Value *
pdist(Dc *b, Value *a, Value *c, double p, double eps)
{
	Value *d = bin_s(b, "aten.add.Tensor", bin(b, "aten.sub.Tensor", a, c), eps);
	int64_t last = -1;

	return d ? OP(b, "aten.linalg_vector_norm.default", {"self", 2, A_T(d)}, {"ord", 2, A_F(p)},
	              {"dim", 2, A_INTS(b, 1, &last)}) : NULL;
}

/* cosine_embedding (input1, input2, target, margin=0) and triplet_margin
 * (anchor, positive, negative, margin=1, p=2, eps=1e-6, swap=False). */
static Value *
pair_loss(Dc *b, const char *op)
{
	double margin = float_arg(b, "margin", strcmp(op, "triplet_margin") ? 0 : 1);

	if (!strcmp(op, "triplet_margin")) {
		Value *a = tensor(b, "anchor"), *pos = tensor(b, "positive"), *neg = tensor(b, "negative");
		double p = float_arg(b, "p", 2), eps = float_arg(b, "eps", 1e-6);
		Value *dp = pdist(b, a, pos, p, eps), *dn = pdist(b, a, neg, p, eps);
		if (int_arg(b, "swap", 0))
			dn = bin(b, "aten.minimum.default", dn, pdist(b, pos, neg, p, eps));
		return clamp0(b, bin(b, "aten.sub.Tensor", bin_s(b, "aten.add.Tensor", dp, margin), dn));
	} else {
		Value *x1 = tensor(b, "input1"), *x2 = tensor(b, "input2"), *t = tensor(b, "target");
		Value *ps = sum_dim(b, bin(b, "aten.mul.Tensor", x1, x2), -1, 0);
		Value *m1 = bin_s(b, "aten.add.Tensor", sum_dim(b, bin(b, "aten.mul.Tensor", x1, x1), -1, 0), 1e-12);
		Value *m2 = bin_s(b, "aten.add.Tensor", sum_dim(b, bin(b, "aten.mul.Tensor", x2, x2), -1, 0), 1e-12);
		Value *cs = bin(b, "aten.div.Tensor", ps, un(b, "aten.sqrt.default", bin(b, "aten.mul.Tensor", m1, m2)));
		Value *z = bin_s(b, "aten.mul.Tensor", cs, 0);
		Value *pl = sel(b, bin_s(b, "aten.eq.Scalar", t, 1), bin_s(b, "aten.rsub.Scalar", cs, 1), z);
		Value *nl = sel(b, bin_s(b, "aten.eq.Scalar", t, -1), clamp0(b, bin_s(b, "aten.sub.Tensor", cs, margin)), z);
		return bin(b, "aten.add.Tensor", pl, nl);
	}
}

/* nll (self, target, weight=None, ignore_index=-100): -w[t] x[t] over
 * the class dim (1, or 0 for a 1-D self), 0 where t is ignore_index;
 * *den gets the weights summed for the mean. */
static Value *
nll(Dc *b, Value *x, Value *t, Value *w, Value **den)
{
	int64_t ign = int_arg(b, "ignore_index", -100), cd = x && x->rank == 1 ? 0 : 1;
	Value *keep = bin_s(b, "aten.ne.Scalar", t, (double)ign), *ts, *g, *wt;

	if (!x || !t || !keep)
		return NULL;
	ts = OP(b, "aten.masked_fill.Scalar", {"self", 2, A_T(t)}, {"mask", 2, A_T(un(b, "aten.logical_not.default", keep))},
	        {"value", 2, A_I(0)});
	g = ts ? OP(b, "aten.gather.default", {"self", 2, A_T(x)}, {"dim", 2, A_I(cd)},
	            {"index", 2, A_T(OP(b, "aten.unsqueeze.default", {"self", 2, A_T(ts)}, {"dim", 2, A_I(cd)}))}) : NULL;
	g = g ? OP(b, "aten.squeeze.dims", {"self", 2, A_T(g)}, {"dim", 2, A_INTS(b, 1, &cd)}) : NULL;
	wt = OP(b, "aten._to_copy.default", {"self", 2, A_T(keep)},
	        {"dtype", 2, (Arg){.kind = ARG_SCALAR_TYPE, .u.i = dtype_torch(x->dtype)}});
	if (w && ts) {
		Arg ix = {.kind = ARG_OPT_TENSORS, .n = 1, .u.list = ARENA_NEW(b->c->a, Arg)};
		ix.u.list[0] = (Arg){.kind = ARG_OPT_TENSOR, .u.v = ts};
		wt = bin(b, "aten.mul.Tensor", wt, OP(b, "aten.index.Tensor", {"self", 2, A_T(w)}, {"indices", 2, ix}));
	}
	*den = wt;
	return un(b, "aten.neg.default", bin(b, "aten.mul.Tensor", g, wt));
}

static Value *pointwise_loss2(Dc *b, const char *op, Value *x, Value *t, Value *w);

/* The pointwise loss of the node, by its row's ARGS: mse, l1, huber,
 * smooth_l1, soft_margin, margin_ranking, hinge_embedding, kl_div, bce,
 * bce_logits. */
static Value *
pointwise_loss(Dc *b, const char *op)
{
	Value *x = tensor(b, "self"), *t = tensor(b, "target"), *d, *w = tensor(b, "weight");

	if (!strcmp(op, "margin_ranking")) {
		Value *x1 = tensor(b, "input1"), *x2 = tensor(b, "input2");
		t = tensor(b, "target");
		d = bin_s(b, "aten.add.Tensor", bin(b, "aten.mul.Tensor", un(b, "aten.neg.default", t), bin(b, "aten.sub.Tensor", x1, x2)),
		          float_arg(b, "margin", 0));
		return d ? OP(b, "aten.clamp_min.default", {"self", 2, A_T(d)}, {"min", 2, A_F(0)}) : NULL;
	}
	if (!strcmp(op, "cosine_embedding") || !strcmp(op, "triplet_margin"))
		return pair_loss(b, op);
	if (!strcmp(op, "poisson_nll"))
		x = tensor(b, "input");
	if (!x || !t) {
		fail(b, "needs tensors self and target");
		return NULL;
	}
	if (!strcmp(op, "mse"))
		return (d = bin(b, "aten.sub.Tensor", x, t)) ? bin(b, "aten.mul.Tensor", d, d) : NULL;
	if (!strcmp(op, "l1"))
		return un(b, "aten.abs.default", bin(b, "aten.sub.Tensor", x, t));
	if (!strcmp(op, "huber") || !strcmp(op, "smooth_l1")) {
		int huber = !strcmp(op, "huber");
		double k = float_arg(b, huber ? "delta" : "beta", 1);
		Value *sq;
		d = un(b, "aten.abs.default", bin(b, "aten.sub.Tensor", x, t));
		if (!huber && k == 0)
			return d;
		/* huber: 0.5 d^2 below delta, delta (d - delta / 2) above; smooth_l1: huber / beta */
		sq = bin_s(b, "aten.mul.Tensor", bin(b, "aten.mul.Tensor", d, d), huber ? 0.5 : 0.5 / k);
		return sel(b, bin_s(b, "aten.lt.Scalar", d, k), sq,
		           huber ? bin_s(b, "aten.mul.Tensor", bin_s(b, "aten.sub.Tensor", d, 0.5 * k), k)
		                 : bin_s(b, "aten.sub.Tensor", d, 0.5 * k));
	}
	if (!strcmp(op, "soft_margin"))            /* log(1 + exp(-t x)) */
		return un(b, "aten.softplus.default", un(b, "aten.neg.default", bin(b, "aten.mul.Tensor", t, x)));
	if (!strcmp(op, "hinge_embedding")) {
		Value *m = bin_s(b, "aten.rsub.Scalar", x, float_arg(b, "margin", 1)), *z = bin_s(b, "aten.mul.Tensor", x, 0);
		m = m ? OP(b, "aten.clamp_min.default", {"self", 2, A_T(m)}, {"min", 2, A_F(0)}) : NULL;
		return bin(b, "aten.add.Tensor", sel(b, bin_s(b, "aten.ne.Scalar", t, 1), m, z),
		           sel(b, bin_s(b, "aten.ne.Scalar", t, -1), x, z));
	}
	if (!strcmp(op, "kl_div")) {
		if (int_arg(b, "log_target", 0))       /* exp(t) (t - x) */
			return bin(b, "aten.mul.Tensor", un(b, "aten.exp.default", t), bin(b, "aten.sub.Tensor", t, x));
		return bin(b, "aten.sub.Tensor", bin(b, "aten.xlogy.Tensor", t, t), bin(b, "aten.mul.Tensor", t, x));
	}
	if (!strcmp(op, "bce_logits")) {          /* (1 - t) x + (1 + (pw - 1) t) softplus(-x) */
		Value *pw = tensor(b, "pos_weight"), *sp = un(b, "aten.softplus.default", un(b, "aten.neg.default", x));
		Value *l = bin(b, "aten.mul.Tensor", bin_s(b, "aten.rsub.Scalar", t, 1), x);
		if (pw)
			sp = bin(b, "aten.mul.Tensor", sp, bin_s(b, "aten.add.Tensor", bin(b, "aten.mul.Tensor", bin_s(b, "aten.sub.Tensor", pw, 1), t), 1));
		d = bin(b, "aten.add.Tensor", l, sp);
		return w ? bin(b, "aten.mul.Tensor", d, w) : d;
	}
	if (!strcmp(op, "bce")) { /* -(t max(log x, -100) + (1 - t) max(log(1 - x), -100)) */
		Value *lx = un(b, "aten.log.default", x), *l1 = un(b, "aten.log.default", bin_s(b, "aten.rsub.Scalar", x, 1));
		lx = lx ? OP(b, "aten.clamp_min.default", {"self", 2, A_T(lx)}, {"min", 2, A_F(-100)}) : NULL;
		l1 = l1 ? OP(b, "aten.clamp_min.default", {"self", 2, A_T(l1)}, {"min", 2, A_F(-100)}) : NULL;
		d = un(b, "aten.neg.default", bin(b, "aten.add.Tensor", bin(b, "aten.mul.Tensor", t, lx),
		                                  bin(b, "aten.mul.Tensor", bin_s(b, "aten.rsub.Scalar", t, 1), l1)));
		return w ? bin(b, "aten.mul.Tensor", d, w) : d;
	}
	return pointwise_loss2(b, op, x, t, w);
}

/* A loss: its pointwise form, then reduction (0 none, 1 mean, 2 sum;
 * kl_div's batchmean is its own op in torch, mean here as its reduction 1). */
static int
dc_loss(Dc *b, const DcRow *row)
{
	Value *l = pointwise_loss(b, row->args);
	int64_t red = int_arg(b, "reduction", 1);

	if (!l)
		return -1;
	if (b->done)            /* the loss wrote its own (weighted) mean */
		return 0;
	if (red == 0)
		return FINAL(b, "aten.alias.default", {"self", 2, A_T(l)});
	return FINAL(b, red == 2 ? "aten.sum.default" : "aten.mean.default", {"self", 2, A_T(l)});
}

/* The losses of pointwise_loss's second half: poisson_nll, nll,
 * cross_entropy; NULL after a failure. */
static Value *
pointwise_loss2(Dc *b, const char *op, Value *x, Value *t, Value *w)
{
	Value *den = NULL, *l;

	if (!strcmp(op, "poisson_nll")) {
		/* log_input: exp(x) - t x, else x - t log(x + eps); full: Stirling's term where t > 1 */
		if (int_arg(b, "log_input", 1))
			l = bin(b, "aten.sub.Tensor", un(b, "aten.exp.default", x), bin(b, "aten.mul.Tensor", t, x));
		else
			l = bin(b, "aten.sub.Tensor", x, bin(b, "aten.mul.Tensor", t,
			        un(b, "aten.log.default", bin_s(b, "aten.add.Tensor", x, float_arg(b, "eps", 1e-8)))));
		if (int_arg(b, "full", 0)) {
			Value *st = bin(b, "aten.add.Tensor", bin(b, "aten.sub.Tensor", bin(b, "aten.mul.Tensor", t, un(b, "aten.log.default", t)), t),
			                bin_s(b, "aten.mul.Tensor", un(b, "aten.log.default", bin_s(b, "aten.mul.Tensor", t, 2 * 3.14159265358979323846)), 0.5));
			st = st ? OP(b, "aten.masked_fill.Scalar", {"self", 2, A_T(st)}, {"mask", 2, A_T(bin_s(b, "aten.le.Scalar", t, 1))},
			             {"value", 2, A_F(0)}) : NULL;
			l = bin(b, "aten.add.Tensor", l, st);
		}
		return l;
	}
	if (!strcmp(op, "cross_entropy")) {
		if (float_arg(b, "label_smoothing", 0) != 0) {
			fail(b, "label_smoothing is not decomposed");
			return NULL;
		}
		x = OP(b, "aten.log_softmax.int", {"self", 2, A_T(x)}, {"dim", 2, A_I(x->rank == 1 ? 0 : 1)});
		if (x && t->dtype == x->dtype) {        /* class probabilities: -sum(w t log p) over the classes */
			l = bin(b, "aten.mul.Tensor", t, x);
			if (w && x->rank > 1) {
				int64_t shape[16] = {-1};
				for (int i = 1; i < x->rank && i < 16; i++)
					shape[i] = 1;
				l = bin(b, "aten.mul.Tensor", l, OP(b, "aten.reshape.default", {"self", 2, A_T(w)},
				                                   {"shape", 2, A_INTS(b, x->rank, shape)}));
			} else if (w) {
				l = bin(b, "aten.mul.Tensor", l, w);
			}
			return un(b, "aten.neg.default", sum_dim(b, l, x->rank == 1 ? 0 : 1, 0));
		}
		op = "nll";
	}
	if (!strcmp(op, "nll")) {
		if (!(l = nll(b, x, t, w, &den)))
			return NULL;
		if (int_arg(b, "reduction", 1) == 1) {  /* the weighted mean: sum(l) / sum(w[t]) */
			if (!den || final(b, "aten.div.Tensor", 2, (NamedArg[]){{"self", 2, A_T(OP(b, "aten.sum.default", {"self", 2, A_T(l)}))},
			                                                    {"other", 2, A_T(OP(b, "aten.sum.default", {"self", 2, A_T(den)}))}}))
				return NULL;
			b->done = 1;
		}
		return l;
	}
	fail(b, "no pointwise loss for this op");
	return NULL;
}

/* std_mean(self, dim=None, correction=None, keepdim=False): var_mean,
 * then the root of the variance. */
static int
dc_std_mean(Dc *b, const DcRow *row)
{
	NamedArg in[DC_MAXIN];
	int nin = map_args(b, "self, dim, correction, keepdim", in);
	Value *var = op_k(b, row->into, nin, in, 0);
	Node *n;

	if (!var || !out_k(b, 0) || !out_k(b, 1))
		return b->bad ? -1 : fail(b, "needs both outputs");
	n = b->out[b->nout - 1];
	n->out[1] = A_T(out_k(b, 1));
	out_k(b, 1)->def = n;
	return INTO(b, out_k(b, 0), "aten.sqrt.default", {"self", 2, A_T(var)});
}

/* The static sizes of v as an int list argument; -1 (failed) when symbolic. */
static int
sizes_of(Dc *b, const Value *v, Arg *out)
{
	int64_t d[MAX_RANK];

	if (v->rank > MAX_RANK)
		return fail(b, "more than 64 dims");
	for (int i = 0; i < v->rank; i++) {
		if (v->dims[i].e)
			return fail(b, "needs static sizes");
		d[i] = v->dims[i].v;
	}
	*out = A_INTS(b, v->rank, d);
	return 0;
}

/* broadcast_tensors(tensors): each expanded to its output's sizes. */
static int
dc_broadcast_tensors(Dc *b, const DcRow *row)
{
	Value *ts[DC_MAXLIST];
	int k = tensors(b, "tensors", ts, DC_MAXLIST);
	Arg size;

	if (k < 0 || k != lower_nout(b->at))
		return fail(b, "needs a list of tensors, one output each");
	for (int i = 0; i < k; i++)
		if (out_k(b, i) && (sizes_of(b, out_k(b, i), &size) ||
		                    INTO(b, out_k(b, i), row->into, {"self", 2, A_T(ts[i])}, {"size", 2, size})))
			return -1;
	return 0;
}

/* logspace(start, end, steps, base=10, dtype, ...): base ** linspace(...). */
static int
dc_logspace(Dc *b, const DcRow *row)
{
	NamedArg in[DC_MAXIN];
	int nin = map_args(b, "start, end, steps, dtype, layout, device, pin_memory", in);
	Value *e = op_k(b, "aten.linspace.default", nin, in, 0);

	if (!e)
		return -1;
	if (!dtype_is_float(e->dtype))
		return fail(b, "needs a floating dtype");
	return FINAL(b, row->into, {"self", 2, A_F(float_arg(b, "base", 10))}, {"exponent", 2, A_T(e)});
}

/* isin(elements, test_elements | test_element, invert=False): any of
 * elements[..., None] == test_elements flattened, over the last dim. */
static int
dc_isin(Dc *b, const DcRow *row)
{
	Value *x = tensor(b, "elements"), *t = tensor(b, "test_elements"), *r;
	int inv = (int)int_arg(b, "invert", 0);
	int64_t m1 = -1;

	if (!x)
		return fail(b, "needs a tensor elements");
	if (!t && arg(b, "test_element"))
		r = OP(b, row->into, {"self", 2, A_T(x)}, {"other", 2, *arg(b, "test_element")});
	else if (!t)
		return fail(b, "needs test_elements");
	else
		r = OP(b, row->into, {"self", 2, A_T(bin(b, "aten.eq.Tensor",
		        OP(b, "aten.unsqueeze.default", {"self", 2, A_T(x)}, {"dim", 2, A_I(-1)}),
		        OP(b, "aten.reshape.default", {"self", 2, A_T(t)}, {"shape", 2, A_INTS(b, 1, &m1)})))},
		       {"dim", 2, A_I(-1)});
	if (!r)
		return -1;
	return FINAL(b, inv ? "aten.logical_not.default" : "aten.alias.default", {"self", 2, A_T(r)});
}

/* isclose(self, other, rtol=1e-5, atol=1e-8, equal_nan=False): equal, or
 * |self - other| finite and <= atol + |rtol * other| (torch's order). */
static int
dc_isclose(Dc *b, const DcRow *row)
{
	Value *x = tensor(b, "self"), *y = tensor(b, "other"), *eq, *err, *ok;
	double rtol = float_arg(b, "rtol", 1e-5), atol = float_arg(b, "atol", 1e-8);

	if (!x || !y || !dtype_is_float(x->dtype))
		return fail(b, "needs floating tensors self and other");
	eq = bin(b, "aten.eq.Tensor", x, y);
	if (int_arg(b, "equal_nan", 0))
		eq = bin(b, "aten.logical_or.default", eq, bin(b, "aten.logical_and.default", un(b, "aten.isnan.default", x),
		                                               un(b, "aten.isnan.default", y)));
	err = un(b, "aten.abs.default", bin(b, "aten.sub.Tensor", x, y));
	ok = bin(b, "aten.le.Tensor", err, bin_s(b, "aten.add.Tensor", un(b, "aten.abs.default", bin_s(b, "aten.mul.Tensor", y, rtol)), atol));
	ok = bin(b, "aten.logical_and.default", un(b, "aten.isfinite.default", err), ok);
	if (!eq || !ok)
		return -1;
	return FINAL(b, row->into, {"self", 2, A_T(eq)}, {"other", 2, A_T(ok)});
}

/* linalg_multi_dot(tensors): matmuls left to right (matmul takes the 1-D
 * first and last operands as multi_dot does). */
static int
dc_multi_dot(Dc *b, const DcRow *row)
{
	Value *ts[DC_MAXLIST], *acc;
	int k = tensors(b, "tensors", ts, DC_MAXLIST);

	if (k < 2)
		return fail(b, "needs two tensors or more");
	acc = ts[0];
	for (int i = 1; i + 1 < k && acc; i++)
		acc = bin(b, row->into, acc, ts[i]);
	return acc ? FINAL(b, row->into, {"self", 2, A_T(acc)}, {"other", 2, A_T(ts[k - 1])}) : -1;
}

/* linalg_vander(x, N=None): x[..., None] ** arange(N) (N: x's last size). */
static int
dc_vander(Dc *b, const DcRow *row)
{
	Value *x = tensor(b, "x"), *ar;
	int64_t n;

	if (x && x->rank == 0)          /* a 0-d x is one point: [1, N] */
		x = OP(b, "aten.unsqueeze.default", {"self", 2, A_T(x)}, {"dim", 2, A_I(0)});
	if (!x || x->rank < 1 || x->dims[x->rank - 1].e)
		return b->bad ? -1 : fail(b, "needs a tensor x with a static last dim");
	n = int_arg(b, "N", x->dims[x->rank - 1].v);
	ar = OP(b, "aten.arange.default", {"end", 2, A_I(n)});
	return ar ? FINAL(b, row->into, {"self", 2, A_T(OP(b, "aten.unsqueeze.default", {"self", 2, A_T(x)}, {"dim", 2, A_I(-1)}))},
	                  {"exponent", 2, A_T(ar)}) : -1;
}

/* select_scatter(self, src, dim, index): src with dim put back, written
 * over [index, index + 1) of dim. */
static int
dc_select_scatter(Dc *b, const DcRow *row)
{
	Value *x = tensor(b, "self"), *src = tensor(b, "src");
	int64_t dim, ix;

	if (!x || !src || x->rank < 1)
		return fail(b, "needs tensors self (1-D or more) and src");
	dim = lower_axis(int_arg(b, "dim", 0), x->rank);
	ix = int_arg(b, "index", 0);
	if (ix < 0 && !x->dims[dim].e)
		ix += x->dims[dim].v;
	if (ix < 0)
		return fail(b, "needs a static dim for a negative index");
	return FINAL(b, row->into, {"self", 2, A_T(x)}, {"src", 2, A_T(OP(b, "aten.unsqueeze.default", {"self", 2, A_T(src)}, {"dim", 2, A_I(dim)}))},
	             {"dim", 2, A_I(dim)}, {"start", 2, A_I(ix)}, {"end", 2, A_I(ix + 1)});
}

/* sum_to_size(self, size): the leading dims summed away, and those size
 * makes 1 summed with keepdim. */
static int
dc_sum_to_size(Dc *b, const DcRow *row)
{
	Value *x = tensor(b, "self");
	int64_t sz[64], dims[64], nd = 0;
	int k = 0;
	const Arg *s = arg(b, "size");

	if (!x || !s || s->kind != ARG_INTS || s->n > x->rank || x->rank > MAX_RANK)
		return fail(b, "needs a static size of at most self's rank");
	if (x->dtype == DT_BOOL)    /* torch keeps bool (an any); sum would make int64 */
		return fail(b, "a bool self is not decomposed (torch keeps its dtype)");
	k = s->n;
	for (int i = 0; i < k; i++)
		sz[i] = s->u.list[i].u.i;
	for (int i = 0; i < x->rank; i++) {
		int j = i - (x->rank - k);
		if (j < 0 || (sz[j] == 1 && !(x->dims[i].v == 1 && !x->dims[i].e)))
			dims[nd++] = i;
	}
	if (!nd)
		return FINAL(b, "aten.alias.default", {"self", 2, A_T(x)});
	x = OP(b, row->into, {"self", 2, A_T(x)}, {"dim", 2, A_INTS(b, (int)nd, dims)}, {"keepdim", 2, A_B(1)});
	return x ? FINAL(b, "aten.reshape.default", {"self", 2, A_T(x)}, {"shape", 2, A_INTS(b, k, sz)}) : -1;
}

/* _safe_softmax(self, dim, dtype=None): softmax, 0 on a slice that is all -inf. */
static int
dc_safe_softmax(Dc *b, const DcRow *row)
{
	NamedArg in[DC_MAXIN];
	int nin = map_args(b, "self, dim, half_to_float=False", in);
	Value *x = tensor(b, "self"), *sm, *all;

	if (!x)
		return fail(b, "needs a tensor self");
	if (arg(b, "dtype") && !(x = OP(b, "aten._to_copy.default", {"self", 2, A_T(x)}, {"dtype", 2, *arg(b, "dtype")})))
		return -1;
	in[0].arg = A_T(x);
	sm = op_k(b, "aten._softmax.default", nin, in, 0);
	all = OP(b, "aten.all.dim", {"self", 2, A_T(bin_s(b, "aten.eq.Scalar", x, -1.0 / 0.0))},
	         {"dim", 2, A_I(int_arg(b, "dim", -1))}, {"keepdim", 2, A_B(1)});
	return sm && all ? FINAL(b, row->into, {"self", 2, A_T(sm)}, {"mask", 2, A_T(all)}, {"value", 2, A_F(0)}) : -1;
}

/* bilinear(input1, input2, weight, bias=None): y_o = x1 W_o x2 + b_o, as
 * (x1 @ W.permute(1, 0, 2).reshape(I1, O * I2)).reshape(..., O, I2) *
 * x2[..., None, :], summed over the last dim. */
static int
dc_bilinear(Dc *b, const DcRow *row)
{
	Value *x1 = tensor(b, "input1"), *x2 = tensor(b, "input2"), *w = tensor(b, "weight"), *bias = tensor(b, "bias"), *t;
	int64_t o, i1, i2, shape[MAX_RANK];

	if (!x1 || !x2 || !w || w->rank != 3 || w->dims[0].e || w->dims[1].e || w->dims[2].e || x1->rank > MAX_RANK - 1)
		return fail(b, "needs a static 3-D weight");
	o = w->dims[0].v, i1 = w->dims[1].v, i2 = w->dims[2].v;
	t = OP(b, "aten.permute.default", {"self", 2, A_T(w)}, {"dims", 2, A_INTS(b, 3, (int64_t[]){1, 0, 2})});
	t = t ? OP(b, "aten.reshape.default", {"self", 2, A_T(t)}, {"shape", 2, A_INTS(b, 2, (int64_t[]){i1, o * i2})}) : NULL;
	t = bin(b, row->into, x1, t);
	for (int i = 0; i + 1 < x1->rank; i++)
		shape[i] = x1->dims[i].e ? (i ? -2 : -1) : x1->dims[i].v;
	for (int i = 1; i + 1 < x1->rank; i++)
		if (shape[i] == -2)
			return fail(b, "needs static sizes but the first");
	shape[x1->rank - 1] = o, shape[x1->rank] = i2;
	t = t ? OP(b, "aten.reshape.default", {"self", 2, A_T(t)}, {"shape", 2, A_INTS(b, x1->rank + 1, shape)}) : NULL;
	t = bin(b, "aten.mul.Tensor", t, OP(b, "aten.unsqueeze.default", {"self", 2, A_T(x2)}, {"dim", 2, A_I(-2)}));
	if (!bias)
		return t ? FINAL(b, "aten.sum.dim_IntList", {"self", 2, A_T(t)}, {"dim", 2, A_INTS(b, 1, (int64_t[]){-1})}) : -1;
	t = sum_dim(b, t, -1, 0);
	return t ? FINAL(b, "aten.add.Tensor", {"self", 2, A_T(t)}, {"other", 2, A_T(bias)}) : -1;
}

/* max_pool1d_with_indices(self, kernel_size, stride=[], padding=0,
 * dilation=1, ceil_mode=False): the 2-D pool of self[..., None, :] with a
 * window of height 1, both results squeezed back. */
static int
dc_max_pool1d(Dc *b, const DcRow *row)
{
	static const char *const names[] = {"kernel_size", "stride", "padding", "dilation"};
	static const int64_t pad1[] = {1, 1, 0, 1};     /* the added dim's kernel, stride, padding, dilation */
	Value *x = tensor(b, "self"), *u;
	NamedArg in[DC_MAXIN];
	int nin = 0;
	Node *n;

	if (!x || x->rank < 2)
		return fail(b, "needs a tensor self of 2 dims or more");
	u = OP(b, "aten.unsqueeze.default", {"self", 2, A_T(x)}, {"dim", 2, A_I(-2)});
	in[nin++] = (NamedArg){"self", 2, A_T(u)};
	for (int i = 0; i < 4; i++) {
		const Arg *a = arg(b, names[i]);
		int64_t v = a && a->kind == ARG_INTS && a->n > 0 ? a->u.list[0].u.i : a && a->kind == ARG_INT ? a->u.i : -1;
		if (v < 0 && i == 1 && (a = arg(b, names[0])) && a->kind == ARG_INTS && a->n > 0)
			v = a->u.list[0].u.i;           /* stride defaults to the kernel */
		if (v < 0)
			v = i == 2 ? 0 : 1;
		in[nin++] = (NamedArg){names[i], 2, A_INTS(b, 2, (int64_t[]){pad1[i], v})};
	}
	in[nin++] = (NamedArg){"ceil_mode", 2, A_B((int)int_arg(b, "ceil_mode", 0))};
	if (!u || !op_k(b, row->into, nin, in, 0))
		return -1;
	n = b->out[b->nout - 1];
	for (int k = 0; k < 2; k++)
		if (out_k(b, k) && INTO(b, out_k(b, k), "aten.squeeze.dims", {"self", 2, n->out[k]},
		                        {"dim", 2, A_INTS(b, 1, (int64_t[]){-2})}))
			return -1;
	return 0;
}

/* linalg_diagonal(A, offset=0, dim1=-2, dim2=-1): diagonal with the
 * last two dims as its defaults. */
static int
dc_linalg_diagonal(Dc *b, const DcRow *row)
{
	Value *x = tensor(b, "A");

	if (!x)
		return fail(b, "needs a tensor A");
	return FINAL(b, row->into, {"self", 2, A_T(x)}, {"offset", 2, A_I(int_arg(b, "offset", 0))},
	             {"dim1", 2, A_I(int_arg(b, "dim1", -2))}, {"dim2", 2, A_I(int_arg(b, "dim2", -1))});
}

/* var / std / var_mean / std_mean (self, unbiased=True): the .correction
 * form over every dim, correction 1 or 0. */
static int
dc_unbiased(Dc *b, const DcRow *row)
{
	Value *x = tensor(b, "self");

	if (!x)
		return fail(b, "needs a tensor self");
	return FINAL(b, row->into, {"self", 2, A_T(x)}, {"correction", 2, A_I(int_arg(b, "unbiased", 1))});
}

/* ---- the pass ---- */

static const DcRow *
row_of(const char *op)
{
	char canon[256];

	op = ir_alias(op, canon, sizeof canon);
	for (size_t i = 0; i < sizeof dc_rows / sizeof *dc_rows; i++)
		if (!strcmp(dc_rows[i].aten, op))
			return &dc_rows[i];
	return NULL;
}

const char *
lower_decomp_into(const char *aten)
{
	const DcRow *r = row_of(aten);

	return r ? r->into : NULL;
}

int
lower_decomp_count(void)
{
	return (int)(sizeof dc_rows / sizeof *dc_rows);
}

const char *
lower_decomp_name(int i)
{
	return i >= 0 && i < lower_decomp_count() ? dc_rows[i].aten : NULL;
}

/* One round over g: every node with a row and no lowering decomposed.
 * Returns the number decomposed, or -1 after a failure. */
static int
round_graph(LowerCtx *c, Graph *g)
{
	Dc b = {.c = c, .g = g};
	int done = 0, bad = 0;

	for (int i = 0; i < g->nnode; i++) {
		Node *n = g->nodes[i];
		const DcRow *r = ops_find_opset(n->op, c->opset) ? NULL : row_of(n->op);
		int from = b.nout;
		for (int k = 0; k < n->nin; k++)
			if (n->in[k].arg.kind == ARG_GRAPH && lower_decompose(c, n->in[k].arg.u.g))
				bad = 1;
		if (!r) {
			emit(&b, n);
			continue;
		}
		b.at = n;
		b.bad = 0;
		b.done = 0;
		if (r->fn(&b, r) || b.bad) {
			bad = 1;
			b.nout = from;
			emit(&b, n);
			continue;
		}
		done++;
	}
	if (bad)
		return -1;
	for (int i = 0; i < b.nout; i++)
		b.out[i]->id = i;
	g->nodes = b.out;
	g->nnode = b.nout;
	return done;
}

int
lower_decompose(LowerCtx *c, Graph *g)
{
	for (int k = 0; k < DC_ROUNDS; k++) {
		int done = round_graph(c, g);
		if (done < 0)
			return DIAG_CONVERT;
		if (!done)
			break;
	}
	return 0;
}
