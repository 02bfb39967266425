/* tsbuild.c: a TorchScript module's forward() run at conversion time into
 * the IR.
 *
 * The printed code is executed by a small interpreter over TsAst.  Every
 * value is a TsVal: a Python value known now (None, bool, int, float, str,
 * list, tuple, device, a module object of data.pkl), a symbolic int (a
 * size of an input named dynamic by `inputs:`, as an IR SymInt value), or
 * a tensor (an IR Value).  Python values are computed here and vanish;
 * submodule calls are inlined (their nn_module_stack kept, so `functions:`
 * can outline them); tensor operations become ATen nodes: the overload is
 * chosen by tsschema.c from the arguments' kinds, the arguments are named
 * and completed with the schema's defaults, and ir_infer_outputs() gives
 * the results their dtype and shape, as a .pt2 records them.  The graph
 * the lowering then sees is the one a .pt2 of the same model would give,
 * apart from TorchScript's own op forms (aten._convolution and the like),
 * which have rows of their own.
 *
 * `if` and `for` over values known now are evaluated away (the branch
 * taken, the loop unrolled); over tensors they are outside the subset for
 * now and reported as such.  Errors do not stop the run: a failed
 * expression yields a poison value (V_ERR) that every later use passes on
 * silently, so one conversion lists every problem, each at the code
 * file's line and the user's source line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts.h"

typedef enum VKind {
	V_ERR, V_NONE, V_BOOL, V_INT, V_FLOAT, V_STR, V_SYM, V_TENSOR,
	V_LIST, V_TUPLE, V_OBJ, V_DEVICE, V_UNINIT,
	V_FUNC,                 /* a scripted function: s is its qualified name (__torch__.m.f) */
} VKind;

enum { NT_NONE, NT_SIZE, NT_DATA };

typedef struct TsVal TsVal;
struct TsVal {
	VKind k;
	int numtensor;          /* NT_SIZE: a V_INT/V_SYM from NumToTensor (a 0-d tensor to torch, a
	                         * size to us); NT_DATA: a V_TENSOR standing for a Python number
	                         * read from a tensor at run time (int(t), bool(t)) */
	int64_t i;              /* V_BOOL, V_INT */
	double f;               /* V_FLOAT */
	const char *s;          /* V_STR, V_DEVICE */
	Value *v;               /* V_TENSOR; V_SYM: its VAL_SYM_INT value */
	int n;
	TsVal **it;             /* V_LIST, V_TUPLE */
	const PyObj *obj;       /* V_OBJ: the module object */
	const char *path;       /* V_OBJ: its path from the root ("" for the root, "layers.0") */
};

/* One inlined call: where it was made, for the user's frame. */
typedef struct Site {
	const TsCode *code;
	uint32_t ofs;
	const char *fn;
	const char *path, *cls;     /* the module whose method runs (nn_module_stack) */
} Site;

enum { MAX_DEPTH = 200, MAX_UNROLL = 10000 };

typedef struct Build {
	Program *p;
	const TsArchive *t;
	Arena *a;
	Diag *d;
	Graph *g;               /* the graph nodes go to: main, or a branch being built */
	Graph *main;
	int nerr;
	StrMap *asts;           /* module -> TsAst (parsed once) */
	StrMap *weights;        /* "%p" of a PY_TENSOR -> Value */
	StrMap *taken;          /* value names used */
	StrMap *suffix;         /* base name -> the last suffix fresh_name gave it */
	int nsite;
	Site site[MAX_DEPTH];
	int nnode, capnode;
	Node **nodes;
	int ninput, capinput;
	Arg *inputs;
	InputSpec *specs;
	long unrolled;
} Build;

/* A function's variables, in the order first assigned (a branch's changes
 * are found by comparing two copies slot by slot). */
typedef struct Env {
	int n, cap;
	const char **names;
	TsVal **vals;
	StrMap *slot;           /* name -> slot + 1 */
} Env;

typedef struct Frame {
	Env *vars;
	const TsCode *code;
	TsVal *ret;
} Frame;

static Env *
env_new(Arena *a, int cap)
{
	Env *e = ARENA_NEW(a, Env);

	e->cap = cap < 8 ? 8 : cap;
	e->names = ARENA_ARRAY(a, const char *, e->cap);
	e->vals = ARENA_ARRAY(a, TsVal *, e->cap);
	e->slot = strmap_new(a, (size_t)e->cap);
	return e;
}

static TsVal *
env_get(const Env *e, const char *name)
{
	uintptr_t k = (uintptr_t)strmap_get(e->slot, name);
	return k ? e->vals[k - 1] : NULL;
}

static void
env_set(Arena *a, Env *e, const char *name, TsVal *v)
{
	uintptr_t k = (uintptr_t)strmap_get(e->slot, name);

	if (k) {
		e->vals[k - 1] = v;
		return;
	}
	if (e->n == e->cap) {
		const char **nn = ARENA_ARRAY(a, const char *, e->cap * 2);
		TsVal **nv = ARENA_ARRAY(a, TsVal *, e->cap * 2);
		memcpy(nn, e->names, sizeof *nn * (size_t)e->n);
		memcpy(nv, e->vals, sizeof *nv * (size_t)e->n);
		e->names = nn, e->vals = nv, e->cap *= 2;
	}
	e->names[e->n] = name;
	e->vals[e->n] = v;
	e->n++;
	strmap_put(e->slot, name, (void *)(uintptr_t)e->n);
}

static Env *
env_copy(Arena *a, const Env *e)
{
	Env *c = env_new(a, e->n * 2);

	for (int i = 0; i < e->n; i++)
		env_set(a, c, e->names[i], e->vals[i]);
	return c;
}

static TsVal poison = {.k = V_ERR};
static TsVal none_val = {.k = V_NONE};

static TsVal *eval(Build *b, Frame *f, const TsExpr *e);
static int exec_body(Build *b, Frame *f, TsStmt *const *body, int n);
static int exec_if_tensor(Build *b, Frame *f, const TsStmt *s, TsVal *cv);
static int assign(Build *b, Frame *f, const TsExpr *t, TsVal *v);
static TsVal *py_binary(Build *b, Frame *f, const TsExpr *e, int op, TsVal *x, TsVal *y);
static TsVal *op2(Build *b, Frame *f, const TsExpr *at, const char *name, TsVal *x, TsVal *y);
static int truth(Build *b, Frame *f, const TsExpr *at, const TsVal *v, int *out);
static TsVal *call_op(Build *b, Frame *f, const TsExpr *at, const char *ns, const char *name, int npos,
                      TsVal **pos, int nkw, const char *const *kwn, TsVal **kw);

/* ---- values ---- */

static TsVal *
mk(Build *b, VKind k)
{
	TsVal *v = ARENA_NEW(b->a, TsVal);
	v->k = k;
	return v;
}

static TsVal *
mk_int(Build *b, int64_t i)
{
	TsVal *v = mk(b, V_INT);
	v->i = i;
	return v;
}

static TsVal *
mk_bool(Build *b, int i)
{
	TsVal *v = mk(b, V_BOOL);
	v->i = !!i;
	return v;
}

static TsVal *
mk_float(Build *b, double x)
{
	TsVal *v = mk(b, V_FLOAT);
	v->f = x;
	return v;
}

static TsVal *
mk_seq(Build *b, VKind k, int n)
{
	TsVal *v = mk(b, k);
	v->n = n;
	v->it = ARENA_ARRAY(b->a, TsVal *, n + 1);
	return v;
}

static const char *
kind_name(const TsVal *v)
{
	static const char *const names[] = {
		"an earlier error", "None", "bool", "int", "float", "str", "int", "Tensor",
		"list", "tuple", "module", "device", "uninitialized", "function",
	};
	return names[v->k];
}

static double
num(const TsVal *v)
{
	return v->k == V_FLOAT ? v->f : (double)v->i;
}

/* ---- errors ---- */

/* The user's frame for an error or a node: the innermost site (the
 * expression itself, then the calls that inlined it) whose source range
 * lies outside torch's own package, else the innermost with a range. */
static const TsSpan *
user_span(Build *b, const TsCode *code, uint32_t ofs, const char **fn)
{
	const TsSpan *first = NULL;
	const char *first_fn = NULL;

	/* site k was called from the function of site k - 1; the expression
	 * itself lies in the function of the innermost site */
	for (int k = b->nsite; k >= 0; k--) {
		const TsCode *c = k == b->nsite ? code : b->site[k].code;
		uint32_t o = k == b->nsite ? ofs : b->site[k].ofs;
		const TsSpan *s = c ? ts_span_at(c, o) : NULL;
		const char *in = k == b->nsite ? (b->nsite ? b->site[b->nsite - 1].fn : NULL)
		                 : k > 0 ? b->site[k - 1].fn : NULL;
		if (!s || !s->file)
			continue;
		if (!first)
			first = s, first_fn = in;
		if (!strstr(s->file, "-packages/torch/") && strncmp(s->file, "torch/", 6) != 0) {
			*fn = in;
			return s;
		}
	}
	*fn = first_fn;
	return first;
}

static const char *
frame_text(Build *b, const TsCode *code, uint32_t ofs)
{
	const char *fn = NULL;
	const TsSpan *s = user_span(b, code, ofs, &fn);

	if (!s)
		return NULL;
	return arena_printf(b->a, "%s:%d in %s%s%s", s->file, s->line, fn ? fn : "forward",
	                    s->src ? ": " : "", s->src ? s->src : "");
}

static TsVal *
fail_at(Build *b, const TsCode *code, uint32_t ofs, uint32_t line, uint32_t col, DiagCode dc,
        const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static TsVal *
fail_at(Build *b, const TsCode *code, uint32_t ofs, uint32_t line, uint32_t col, DiagCode dc,
        const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	DiagAt at = {0};

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	at.file = code ? arena_printf(b->a, "%s:%s", b->t->label, code->rel) : b->t->label;
	at.line = line;
	at.column = col;
	at.frame = frame_text(b, code, ofs);
	diag_report(b->d, dc, &at, "%s", msg);
	b->nerr++;
	return &poison;
}

#define FAIL(b, f, e, ...) fail_at((b), (f)->code, (e)->ofs, (e)->line, (e)->col, YE_TS_UNSUPPORTED, __VA_ARGS__)

/* ---- names and graph ---- */

static const char *
fresh_name(Build *b, const char *base)
{
	char buf[256];
	const char *s;

	if (!base || !*base)
		base = "v";
	if (!strmap_get(b->taken, base)) {
		s = arena_strdup(b->a, base);
		strmap_put(b->taken, s, (void *)s);
		return s;
	}
	/* the next suffix to try is kept per base: names stay linear in number */
	for (uintptr_t k = (uintptr_t)strmap_get(b->suffix, base) + 1;; k++) {
		snprintf(buf, sizeof buf, "%s_%lu", base, (unsigned long)k);
		if (!strmap_get(b->taken, buf)) {
			s = arena_strdup(b->a, buf);
			strmap_put(b->taken, s, (void *)s);
			strmap_put(b->suffix, arena_strdup(b->a, base), (void *)k);
			return s;
		}
	}
}

/* A placeholder of the main graph. */
static Value *
add_input(Build *b, const char *name, InputKind kind, const char *target)
{
	Value *v = ir_new_value(b->a, b->main, fresh_name(b, name), VAL_TENSOR);

	if (b->ninput == b->capinput) {
		int cap = b->capinput ? b->capinput * 2 : 16;
		Arg *na = ARENA_ARRAY(b->a, Arg, cap);
		InputSpec *ns = ARENA_ARRAY(b->a, InputSpec, cap);
		if (b->ninput) {
			memcpy(na, b->inputs, sizeof *na * (size_t)b->ninput);
			memcpy(ns, b->specs, sizeof *ns * (size_t)b->ninput);
		}
		b->inputs = na, b->specs = ns, b->capinput = cap;
	}
	b->inputs[b->ninput].kind = ARG_TENSOR;
	b->inputs[b->ninput].u.v = v;
	b->specs[b->ninput].kind = kind;
	b->specs[b->ninput].target = target;
	b->specs[b->ninput].persistent = 1;
	b->ninput++;
	return v;
}

static void
set_meta(Value *v, const TensorData *t, Arena *a)
{
	v->dtype = t->dtype;
	v->rank = t->rank;
	v->dims = ARENA_ARRAY(a, Dim, t->rank + 1);
	for (int i = 0; i < t->rank; i++)
		v->dims[i].v = t->sizes[i];
	v->data = (TensorData *)t;
}

/* A tensor of data.pkl or constants.pkl as a graph input (once per tensor). */
static TsVal *
weight(Build *b, const PyObj *o, const char *fqn, InputKind kind)
{
	char key[32];
	Value *v;
	TsVal *r;

	snprintf(key, sizeof key, "%p", (const void *)o);
	if (!(v = strmap_get(b->weights, key))) {
		char name[256];
		const char *pre = kind == IN_PARAMETER ? "p_" : kind == IN_BUFFER ? "b_" : "c_";
		size_t k = strlen(pre);
		snprintf(name, sizeof name, "%s%s", pre, fqn);
		for (; name[k]; k++)
			if (name[k] == '.')
				name[k] = '_';
		v = add_input(b, name, kind, arena_strdup(b->a, fqn));
		set_meta(v, o->tensor, b->a);
		strmap_put(b->weights, arena_strdup(b->a, key), v);
	}
	r = mk(b, V_TENSOR);
	r->v = v;
	return r;
}

static void
push_node(Build *b, Node *n)
{
	if (b->nnode == b->capnode) {
		int cap = b->capnode ? b->capnode * 2 : 64;
		Node **nn = ARENA_ARRAY(b->a, Node *, cap);
		if (b->nnode)
			memcpy(nn, b->nodes, sizeof *nn * (size_t)b->nnode);
		b->nodes = nn, b->capnode = cap;
	}
	n->graph = b->g;
	n->id = b->nnode;
	b->nodes[b->nnode++] = n;
}

/* nn_module_stack of the current inlining: "key,path,class" joined by ';'. */
static const char *
module_stack(Build *b)
{
	size_t len = 0;
	char *s, *q;

	for (int k = 0; k < b->nsite; k++)
		if (b->site[k].cls)
			len += 2 * strlen(b->site[k].path) + strlen(b->site[k].cls) + 8;
	if (!len)
		return NULL;
	q = s = arena_alloc(b->a, len + 1);
	for (int k = 0; k < b->nsite; k++) {
		if (!b->site[k].cls)
			continue;
		q += sprintf(q, "%s%s,%s,%s", q == s ? "" : ";", b->site[k].path, b->site[k].path,
		             b->site[k].cls);
	}
	return s;
}

static Node *
new_node(Build *b, const char *op, const TsCode *code, uint32_t ofs)
{
	Node *n = ARENA_NEW(b->a, Node);

	n->op = op;
	n->target = arena_printf(b->a, "torch.ops.%s", op);
	n->frame = frame_text(b, code, ofs);
	n->nn_module_stack = module_stack(b);
	if (n->frame)
		n->stack_trace = n->frame;
	return n;
}

/* ---- symbolic ints ---- */

static int
sym_const(const TsVal *v, int64_t *out)
{
	if (v->k == V_INT || v->k == V_BOOL) {
		*out = v->i;
		return 1;
	}
	return 0;
}

/* A SymInt node out of a _operator/aten op over int arguments; its value's
 * expression is e (canonical). */
static TsVal *
sym_node(Build *b, Frame *f, const TsExpr *at, const char *op, int nin, Arg *in, SymExpr *e)
{
	Node *n = new_node(b, op, f->code, at->ofs);
	Value *v;
	TsVal *r;

	n->nin = nin;
	n->in = ARENA_ARRAY(b->a, NamedArg, nin + 1);
	for (int i = 0; i < nin; i++) {
		n->in[i].name = "";
		n->in[i].kind = 1;
		n->in[i].arg = in[i];
	}
	v = ir_new_value(b->a, b->g, fresh_name(b, "sym_size_int"), VAL_SYM_INT);
	v->expr = e;
	v->def = n;
	n->nout = 1;
	n->out = ARENA_NEW(b->a, Arg);
	n->out->kind = ARG_SYM_INT;
	n->out->u.v = v;
	n->name = v->name;
	push_node(b, n);
	r = mk(b, V_SYM);
	r->v = v;
	return r;
}

static Arg
int_arg(const TsVal *v)
{
	Arg a = {0};

	if (v->k == V_SYM) {
		a.kind = ARG_SYM_INT;
		a.u.v = v->v;
	} else {
		a.kind = ARG_INT;
		a.u.i = v->i;
	}
	return a;
}

/* x.size(dim) */
static TsVal *
size_of(Build *b, Frame *f, const TsExpr *at, const Value *x, int64_t dim)
{
	Arg in[2] = {{0}};
	const Dim *dd;
	TsVal *r;

	if (dim < 0)
		dim += x->rank;
	if (dim < 0 || dim >= x->rank)
		return FAIL(b, f, at, "size(): dim %lld out of range for a tensor of rank %d",
		            (long long)dim, x->rank);
	dd = &x->dims[dim];
	if (!dd->e)
		return mk_int(b, dd->v);
	in[0].kind = ARG_TENSOR;
	in[0].u.v = (Value *)x;
	in[1].kind = ARG_INT;
	in[1].u.i = dim;
	r = sym_node(b, f, at, "aten.sym_size.int", 2, in, dd->e);
	r->v->def->in[0].name = "self";
	r->v->def->in[1].name = "dim";
	return r;
}

/* Python int arithmetic, with SymInts as _operator nodes. */
static Arg
value_arg(Value *v)
{
	Arg a = {0};

	a.kind = v->kind == VAL_TENSOR ? ARG_TENSOR : ARG_SYM_INT;
	a.u.v = v;
	return a;
}

static TsVal *
int_binary(Build *b, Frame *f, const TsExpr *at, int op, const TsVal *x, const TsVal *y)
{
	int64_t p, q;
	static const struct { int op; const char *target; SymOp sym; } ops[] = {
		{TB_ADD, "_operator.add", SYM_ADD}, {TB_SUB, "_operator.sub", SYM_ADD},
		{TB_MUL, "_operator.mul", SYM_MUL}, {TB_FLOORDIV, "_operator.floordiv", SYM_FLOORDIV},
		{TB_MOD, "_operator.mod", SYM_PYTHONMOD},
	};

	if (sym_const(x, &p) && sym_const(y, &q)) {
		switch (op) {
		case TB_ADD: return mk_int(b, p + q);
		case TB_SUB: return mk_int(b, p - q);
		case TB_MUL: return mk_int(b, p * q);
		case TB_FLOORDIV:
		case TB_MOD:
			if (q == 0)
				return FAIL(b, f, at, "integer division by zero");
			{
				int64_t d = p / q, m = p % q;
				if (m != 0 && ((m < 0) != (q < 0)))
					d--, m += q;
				return mk_int(b, op == TB_FLOORDIV ? d : m);
			}
		case TB_EQ: return mk_bool(b, p == q);
		case TB_NE: return mk_bool(b, p != q);
		case TB_LT: return mk_bool(b, p < q);
		case TB_LE: return mk_bool(b, p <= q);
		case TB_GT: return mk_bool(b, p > q);
		case TB_GE: return mk_bool(b, p >= q);
		case TB_AND: return mk_int(b, p & q);
		case TB_OR: return mk_int(b, p | q);
		case TB_XOR: return mk_int(b, p ^ q);
		case TB_SHL: return mk_int(b, q >= 0 && q < 63 ? p << q : 0);
		case TB_SHR: return mk_int(b, q >= 0 && q < 63 ? p >> q : (p < 0 ? -1 : 0));
		case TB_POW: {
			int64_t r = 1;
			if (q < 0)
				return mk_float(b, pow((double)p, (double)q));
			for (int64_t k = 0; k < q && k < 64; k++)
				r *= p;
			return mk_int(b, r);
		}
		case TB_DIV:
			return mk_float(b, (double)p / (double)q);
		default:
			break;
		}
		return FAIL(b, f, at, "operator not supported on ints");
	}
	if ((op == TB_EQ || op == TB_NE) && x->k == V_SYM && y->k == V_SYM && sym_equal(x->v->expr, y->v->expr))
		return mk_bool(b, op == TB_EQ);
	for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
		SymExpr *ex = NULL, *ey = NULL, *args[2], *e;
		Arg in[2];
		if (ops[k].op != op)
			continue;
		ex = x->k == V_SYM ? x->v->expr : poly_num(b->a, x->i);
		ey = y->k == V_SYM ? y->v->expr : poly_num(b->a, y->i);
		if (op == TB_SUB) {
			SymExpr *m[2] = {poly_num(b->a, -1), ey};
			ey = poly_call(b->a, SYM_MUL, 2, m);
		}
		args[0] = ex, args[1] = ey;
		e = poly_canon(b->a, poly_call(b->a, ops[k].sym, 2, args));
		{
			int64_t c;
			if (poly_is_num(e, &c))
				return mk_int(b, c);
		}
		in[0] = int_arg(x);
		in[1] = int_arg(y);
		return sym_node(b, f, at, ops[k].target, 2, in, e);
	}
	return FAIL(b, f, at, "this operator on a dynamic size (%s) is outside what the reader evaluates",
	            kind_name(x));
}

/* ---- constants of the module tree ---- */

static TsVal *
from_py(Build *b, Frame *f, const TsExpr *at, const PyObj *o, const char *fqn, InputKind kind)
{
	TsVal *v;

	switch (o->kind) {
	case PY_NONE: return &none_val;
	case PY_BOOL: return mk_bool(b, (int)o->i);
	case PY_INT: return mk_int(b, o->i);
	case PY_FLOAT: return mk_float(b, o->f);
	case PY_STR:
		v = mk(b, V_STR);
		v->s = o->s;
		return v;
	case PY_TENSOR:
		return weight(b, o, fqn, kind);
	case PY_TUPLE:
	case PY_LIST:
		v = mk_seq(b, o->kind == PY_TUPLE ? V_TUPLE : V_LIST, (int)o->n);
		for (size_t i = 0; i < o->n; i++) {
			const char *sub = arena_printf(b->a, "%s.%zu", fqn, i);
			v->it[i] = from_py(b, f, at, o->items[i], sub, kind);
			if (v->it[i]->k == V_ERR)
				return &poison;
		}
		return v;
	case PY_CALL:
		if (o->func && o->func->kind == PY_GLOBAL && strncmp(o->func->s, "__torch__", 9) == 0) {
			v = mk(b, V_OBJ);
			v->obj = o;
			v->path = fqn;
			return v;
		}
		if (o->func && py_is_global(o->func, "torch", "device") && o->args && o->args->n == 1 &&
		    o->args->items[0]->kind == PY_STR) {
			v = mk(b, V_DEVICE);
			v->s = o->args->items[0]->s;
			return v;
		}
		break;
	default:
		break;
	}
	return FAIL(b, f, at, "attribute '%s' holds a value the reader does not know (pickle kind %d)",
	            fqn, (int)o->kind);
}

/* ---- classes ---- */

static const TsAst *
ast_of(Build *b, const char *module, const TsCode **codep)
{
	const TsCode *c = ts_code_file(b->t, module);
	TsAst *ast;
	int n0;

	*codep = c;
	if (!c)
		return NULL;
	if ((ast = strmap_get(b->asts, module)))
		return ast;
	ast = ARENA_NEW(b->a, TsAst);
	n0 = b->d->n;
	if (ts_parse(b->a, arena_printf(b->a, "%s:%s", b->t->label, c->rel), c->text, c->len, ast, b->d)) {
		/* the user's line the bad code came from */
		for (int i = n0; i < b->d->n; i++) {
			const DiagItem *it = &b->d->items[i];
			uint32_t ofs = 0, line = 1;
			while (ofs < c->len && line < it->at.line)
				line += c->text[ofs++] == '\n';
			if (it->at.column > 1)
				ofs += it->at.column - 1;
			diag_set_frame(b->d, i, frame_text(b, c, ofs));
		}
		b->nerr++;
		return NULL;
	}
	strmap_put(b->asts, module, ast);
	return ast;
}

static const TsClass *
class_of(Build *b, const PyObj *obj, const TsCode **codep)
{
	const TsAst *ast = ast_of(b, obj->func->s, codep);
	return ast ? ts_class(ast, obj->func->name) : NULL;
}

/* The class name users know: the module path without __torch__ and the
 * mangling ("torch.nn.modules.linear.Linear"). */
static const char *
class_display(Build *b, const PyObj *obj)
{
	const char *m = obj->func->s;
	char *s, *w;
	const char *q;

	if (strncmp(m, "__torch__", 9) == 0)
		m += m[9] == '.' ? 10 : 9;
	s = w = arena_alloc(b->a, strlen(m) + strlen(obj->func->name) + 2);
	for (q = m; *q;) {
		const char *dot = strchr(q, '.');
		size_t len = dot ? (size_t)(dot - q) : strlen(q);
		if (!(len > 15 && strncmp(q, "___torch_mangle", 15) == 0)) {
			memcpy(w, q, len);
			w += len;
			*w++ = '.';
		}
		q += len + (dot != NULL);
	}
	strcpy(w, obj->func->name);
	return s;
}

static int
in_list(const char *const *l, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (strcmp(l[i], s) == 0)
			return 1;
	return 0;
}

/* obj.name for a module object. */
static TsVal *
get_attr(Build *b, Frame *f, const TsExpr *at, const TsVal *objv, const char *name)
{
	const PyObj *st = objv->obj->state, *o = NULL;
	const TsCode *code;
	const TsClass *cls = class_of(b, objv->obj, &code);
	const char *fqn = *objv->path ? arena_printf(b->a, "%s.%s", objv->path, name) : name;
	InputKind kind = IN_TENSOR_CONSTANT;

	if (st && st->kind == PY_DICT)
		o = py_dict_get(st, name);
	if (!o) {
		if (cls)
			for (int i = 0; i < cls->nconst; i++)
				if (strcmp(cls->const_names[i], name) == 0)
					return eval(b, f, cls->const_values[i]);
		return FAIL(b, f, at, "module '%s' (%s) has no attribute '%s'",
		            *objv->path ? objv->path : "<root>", class_display(b, objv->obj), name);
	}
	if (cls && in_list(cls->parameters, cls->nparameter, name))
		kind = IN_PARAMETER;
	else if (cls && in_list(cls->buffers, cls->nbuffer, name))
		kind = IN_BUFFER;
	return from_py(b, f, at, o, fqn, kind);
}

/* ---- calls of TorchScript functions ---- */

static TsVal *
call_def(Build *b, const TsDef *def, const TsCode *code, const TsVal *self, const char *path,
         const char *cls, int npos, TsVal **pos, int nkw, const char *const *kwn, TsVal **kw,
         const TsExpr *at, const TsCode *at_code)
{
	Frame nf = {0};
	int first = self ? 1 : 0;

	if (b->nsite >= MAX_DEPTH - 1)
		return fail_at(b, at_code, at->ofs, at->line, at->col, YE_TS_UNSUPPORTED,
		               "calls nested deeper than %d (recursion?)", MAX_DEPTH);
	nf.vars = env_new(b->a, 16);
	nf.code = code;
	if (self && def->nparam > 0)
		env_set(b->a, nf.vars, def->params[0].name, (TsVal *)self);
	if (npos > def->nparam - first)
		return fail_at(b, at_code, at->ofs, at->line, at->col, YE_TS_UNSUPPORTED,
		               "%s() takes %d arguments, %d given", def->name, def->nparam - first, npos);
	for (int i = first; i < def->nparam; i++) {
		const TsParam *pa = &def->params[i];
		TsVal *v = NULL;
		if (i - first < npos)
			v = pos[i - first];
		for (int k = 0; k < nkw && !v; k++)
			if (strcmp(kwn[k], pa->name) == 0)
				v = kw[k];
		if (!v && pa->def) {
			Frame df = {.vars = env_new(b->a, 1), .code = code};
			v = eval(b, &df, pa->def);
		}
		if (!v)
			return fail_at(b, at_code, at->ofs, at->line, at->col, YE_TS_UNSUPPORTED,
			               "%s(): no value for argument '%s'", def->name, pa->name);
		env_set(b->a, nf.vars, pa->name, v);
	}
	b->site[b->nsite].code = at_code;
	b->site[b->nsite].ofs = at->ofs;
	b->site[b->nsite].fn = def->name;
	b->site[b->nsite].path = path;
	b->site[b->nsite].cls = cls;
	b->nsite++;
	if (exec_body(b, &nf, def->body, def->nbody) < 0)
		nf.ret = &poison;
	b->nsite--;
	return nf.ret ? nf.ret : &none_val;
}

/* ---- operator calls ---- */

static TsKind
val_kind(const TsVal *v)
{
	switch (v->k) {
	case V_NONE: return TK_NONE;
	case V_BOOL: return v->numtensor ? TK_TENSOR : TK_BOOL;
	case V_INT: case V_SYM: return v->numtensor ? TK_TENSOR : TK_INT;
	case V_FLOAT: return v->numtensor ? TK_TENSOR : TK_FLOAT;
	case V_STR: return TK_STR;
	case V_DEVICE: return TK_DEVICE;
	case V_TENSOR: return TK_TENSOR;
	case V_LIST: {
		int ints = 0, floats = 0, bools = 0, tensors = 0, nones = 0;
		if (v->n == 0)
			return TK_EMPTY_LIST;
		for (int i = 0; i < v->n; i++) {
			const TsVal *x = v->it[i];
			if (x->k == V_TENSOR || x->numtensor)
				tensors++;
			else if (x->k == V_INT || x->k == V_SYM)
				ints++;
			else if (x->k == V_FLOAT)
				floats++;
			else if (x->k == V_BOOL)
				bools++;
			else if (x->k == V_NONE)
				nones++;
		}
		if (tensors + nones == v->n)
			return nones ? TK_OPT_TENSORS : TK_TENSORS;
		if (ints == v->n)
			return TK_INTS;
		if (floats + ints == v->n)
			return TK_FLOATS;
		if (bools == v->n)
			return TK_BOOLS;
		return TK_OTHER;
	}
	default:
		return TK_OTHER;
	}
}


/* A 0-d constant tensor of dtype dt (DT_UNKNOWN: torch's for the number:
 * int64, float64 or bool) holding a number: one passed where the schema
 * wants a Tensor, or a Python value that differs between branches. */
static Value *
number_tensor_as(Build *b, const TsVal *v, DType dt)
{
	TensorData *t = ARENA_NEW(b->a, TensorData);
	uint8_t *buf = arena_alloc(b->a, 16);
	Value *x;

	if (dt == DT_UNKNOWN)
		dt = v->k == V_FLOAT ? DT_FLOAT64 : v->k == V_BOOL ? DT_BOOL : DT_INT64;
	t->dtype = dt;
	if (dt == DT_FLOAT64 || dt == DT_FLOAT32) {
		double d = num(v);
		float g = (float)d;
		if (dt == DT_FLOAT64)
			memcpy(buf, &d, 8);
		else
			memcpy(buf, &g, 4);
	} else if (dt == DT_BOOL) {
		buf[0] = num(v) != 0;
	} else if (dt == DT_INT32) {
		int32_t k = (int32_t)v->i;
		memcpy(buf, &k, 4);
	} else {
		int64_t k = v->k == V_FLOAT ? (int64_t)v->f : v->i;
		t->dtype = DT_INT64;
		memcpy(buf, &k, 8);
	}
	t->storage = buf;
	t->storage_bytes = (uint64_t)dtype_size(t->dtype);
	t->entry = "a number used as a tensor";
	x = add_input(b, "c_scalar", IN_TENSOR_CONSTANT, fresh_name(b, "scalar"));
	b->specs[b->ninput - 1].target = x->name;
	set_meta(x, t, b->a);
	return x;
}

static Value *
number_tensor(Build *b, const TsVal *v)
{
	return number_tensor_as(b, v, DT_UNKNOWN);
}

static Value *emit_scalar_tensor(Build *b, Frame *f, const TsExpr *at, const TsVal *v);

/* The tensor a value stands for: a tensor, or a NumToTensor number. */
static Value *
as_tensor(Build *b, Frame *f, const TsExpr *at, const TsVal *v)
{
	if (v->k == V_TENSOR)
		return v->v;
	if (v->k == V_SYM)
		return emit_scalar_tensor(b, f, at, v);
	return number_tensor(b, v);
}


/* A default as the schema writes it, as an Arg of the argument's type.
 * Returns 0 when the text is not understood (the argument is then left
 * out, as torch leaves defaults out of a .pt2). */
static int
default_arg(Build *b, const TsSchemaArg *sa, Arg *out)
{
	const char *s = sa->def;
	char *end;

	memset(out, 0, sizeof *out);
	if (!s)
		return 0;
	if (strcmp(s, "None") == 0) {
		out->kind = ARG_NONE;
		return 1;
	}
	switch (sa->type) {
	case TA_BOOL: case TA_OPT_BOOL:
		out->kind = ARG_BOOL;
		out->u.i = strcmp(s, "True") == 0;
		return strcmp(s, "True") == 0 || strcmp(s, "False") == 0;
	case TA_INT: case TA_OPT_INT:
		out->kind = ARG_INT;
		out->u.i = strtoll(s, &end, 10);
		return *end == 0;
	case TA_FLOAT: case TA_OPT_FLOAT:
		out->kind = ARG_FLOAT;
		out->u.f = strtod(s, &end);
		return *end == 0;
	case TA_SCALAR: case TA_OPT_SCALAR:
		out->u.i = strtoll(s, &end, 10);
		if (*end == 0) {
			out->kind = ARG_INT;
			return 1;
		}
		out->kind = ARG_FLOAT;
		out->u.f = strtod(s, &end);
		return *end == 0;
	case TA_STR: case TA_OPT_STR: {
		size_t n = strlen(s);
		if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
			out->kind = ARG_STRING;
			out->u.s = arena_strndup(b->a, s + 1, n - 2);
			return 1;
		}
		return 0;
	}
	case TA_INTS: case TA_OPT_INTS: {
		int64_t buf[16];
		int n = 0;
		const char *q = s;
		if (*q != '[') {
			/* int[2] stride=1: one value broadcast */
			int64_t x = strtoll(q, &end, 10);
			if (*end || sa->list_len <= 0 || sa->list_len > 16)
				return 0;
			for (n = 0; n < sa->list_len; n++)
				buf[n] = x;
		} else {
			q++;
			while (*q && *q != ']' && n < 16) {
				buf[n++] = strtoll(q, &end, 10);
				if (end == q)
					return 0;
				q = end;
				while (*q == ',' || *q == ' ')
					q++;
			}
			if (*q != ']')
				return 0;
		}
		out->kind = ARG_INTS;
		out->n = n;
		out->u.list = ARENA_ARRAY(b->a, Arg, n + 1);
		for (int i = 0; i < n; i++) {
			out->u.list[i].kind = ARG_INT;
			out->u.list[i].u.i = buf[i];
		}
		return 1;
	}
	default:
		return 0;
	}
}

/* A call argument as an Arg of the schema argument's type. */
static int
to_arg(Build *b, Frame *f, const TsExpr *at, const TsSchemaArg *sa, const TsVal *v, Arg *out)
{
	memset(out, 0, sizeof *out);
	if (v->k == V_NONE) {
		out->kind = ARG_NONE;
		return 0;
	}
	switch (sa->type) {
	case TA_TENSOR: case TA_OPT_TENSOR:
		out->kind = ARG_TENSOR;
		out->u.v = as_tensor(b, f, at, v);
		return 0;
	case TA_TENSORS: case TA_OPT_TENSORS:
		out->kind = sa->type == TA_TENSORS ? ARG_TENSORS : ARG_OPT_TENSORS;
		out->n = v->n;
		out->u.list = ARENA_ARRAY(b->a, Arg, v->n + 1);
		for (int i = 0; i < v->n; i++) {
			if (v->it[i]->k == V_NONE) {
				out->u.list[i].kind = ARG_NONE;
				continue;
			}
			out->u.list[i].kind = ARG_TENSOR;
			out->u.list[i].u.v = as_tensor(b, f, at, v->it[i]);
		}
		return 0;
	case TA_INT: case TA_OPT_INT:
		if (v->k == V_LIST && v->n == 1)
			v = v->it[0];
		*out = int_arg(v);
		return 0;
	case TA_INTS: case TA_OPT_INTS: {
		int n = v->k == V_LIST || v->k == V_TUPLE ? v->n : sa->list_len > 0 ? sa->list_len : 1;
		int sym = 0;
		out->n = n;
		out->u.list = ARENA_ARRAY(b->a, Arg, n + 1);
		for (int i = 0; i < n; i++) {
			const TsVal *x = v->k == V_LIST || v->k == V_TUPLE ? v->it[i] : v;
			out->u.list[i] = int_arg(x);
			sym |= x->k == V_SYM;
		}
		out->kind = sym ? ARG_SYM_INTS : ARG_INTS;
		return 0;
	}
	case TA_FLOAT: case TA_OPT_FLOAT:
		out->kind = ARG_FLOAT;
		out->u.f = num(v);
		return 0;
	case TA_FLOATS: case TA_OPT_FLOATS:
		out->kind = ARG_FLOATS;
		out->n = v->n;
		out->u.list = ARENA_ARRAY(b->a, Arg, v->n + 1);
		for (int i = 0; i < v->n; i++) {
			out->u.list[i].kind = ARG_FLOAT;
			out->u.list[i].u.f = num(v->it[i]);
		}
		return 0;
	case TA_BOOL: case TA_OPT_BOOL:
		out->kind = ARG_BOOL;
		out->u.i = v->i != 0;
		return 0;
	case TA_BOOLS:
		out->kind = ARG_BOOLS;
		out->n = v->n;
		out->u.list = ARENA_ARRAY(b->a, Arg, v->n + 1);
		for (int i = 0; i < v->n; i++) {
			out->u.list[i].kind = ARG_BOOL;
			out->u.list[i].u.i = v->it[i]->i != 0;
		}
		return 0;
	case TA_SCALAR: case TA_OPT_SCALAR:
		if (v->k == V_TENSOR) {
			out->kind = ARG_TENSOR;
			out->u.v = v->v;
		} else if (v->k == V_FLOAT) {
			out->kind = ARG_FLOAT;
			out->u.f = v->f;
		} else if (v->k == V_BOOL) {
			out->kind = ARG_BOOL;
			out->u.i = v->i;
		} else if (v->k == V_SYM) {
			*out = int_arg(v);
		} else {
			out->kind = ARG_INT;
			out->u.i = v->i;
		}
		return 0;
	case TA_STR: case TA_OPT_STR:
		out->kind = ARG_STRING;
		out->u.s = v->s;
		return 0;
	case TA_SCALAR_TYPE: case TA_OPT_SCALAR_TYPE: {
		DType t = dtype_from_c10(v->i);
		if (t == DT_UNKNOWN) {
			FAIL(b, f, at, "dtype code %lld is not one the converter knows", (long long)v->i);
			return -1;
		}
		out->kind = ARG_SCALAR_TYPE;
		out->u.i = dtype_torch(t);
		return 0;
	}
	case TA_LAYOUT: case TA_OPT_LAYOUT:
		out->kind = ARG_LAYOUT;
		out->u.i = v->i;
		return 0;
	case TA_MEMORY_FORMAT: case TA_OPT_MEMORY_FORMAT:
		/* c10 Contiguous 0, Preserve 1, ChannelsLast 2, ChannelsLast3d 3 ->
		 * the serialized enum: Contiguous 1, ChannelsLast 2, ChannelsLast3d 3, Preserve 4 */
		out->kind = ARG_MEMORY_FORMAT;
		out->u.i = v->i == 0 ? 1 : v->i == 1 ? 4 : v->i;
		return 0;
	case TA_DEVICE: case TA_OPT_DEVICE:
		out->kind = ARG_DEVICE;
		out->u.s = v->k == V_DEVICE || v->k == V_STR ? v->s : "cpu";
		return 0;
	case TA_GENERATOR: case TA_OPT_GENERATOR:
		out->kind = ARG_NONE;
		return 0;
	default:
		FAIL(b, f, at, "argument '%s' has a type the converter does not build", sa->name);
		return -1;
	}
}

/* The op name of a schema: "aten.add.Tensor", "aten.relu.default".
 * TorchScript's hacked twins (index.Tensor_hacked_twin: indices as
 * Tensor[] where the ATen op has Tensor?[]) are the ATen op itself. */
static const char *
schema_op(Build *b, const TsSchema *s)
{
	const char *ov = *s->overload ? s->overload : "default";
	size_t n = strlen(ov);

	if (strcmp(ov, "hacked_twin") == 0)
		ov = "default";
	else if (n > 12 && strcmp(ov + n - 12, "_hacked_twin") == 0)
		ov = arena_strndup(b->a, ov, n - 12);
	return arena_printf(b->a, "%s.%s.%s", s->ns, s->name, ov);
}

/* Emits the node of an ATen call bound to schema s; returns its result. */
static TsVal *
emit(Build *b, Frame *f, const TsExpr *at, const TsSchema *s, TsVal **sv, const char *base)
{
	Node *n = new_node(b, schema_op(b, s), f->code, at->ofs);
	Value outs[64];
	char why[512] = "";
	int k, list_ret;
	TsVal *r;

	n->in = ARENA_ARRAY(b->a, NamedArg, s->narg + 1);
	for (int i = 0; i < s->narg; i++) {
		NamedArg *na = &n->in[n->nin];
		na->name = s->args[i].name;
		na->kind = s->args[i].kwonly ? 2 : 1;
		if (!sv[i]) {
			if (!default_arg(b, &s->args[i], &na->arg))
				continue;
		} else if (to_arg(b, f, at, &s->args[i], sv[i], &na->arg)) {
			return &poison;
		}
		if (na->arg.kind == ARG_TENSORS && strstr(s->overload, "hacked_twin"))
			na->arg.kind = ARG_OPT_TENSORS;
		n->nin++;
	}
	memset(outs, 0, sizeof outs);
	k = ir_infer_outputs(b->a, n, outs, 64, why, sizeof why);
	if (k < 0 && s->name[0] && s->name[strlen(s->name) - 1] == '_' && n->nin > 0 &&
	    n->in[0].arg.kind == ARG_TENSOR) {
		/* an in-place op: its result is self, written */
		outs[0] = *n->in[0].arg.u.v;
		outs[0].data = NULL;
		k = 1;
	}
	if (k < 0)
		return fail_at(b, f->code, at->ofs, at->line, at->col,
		               ir_infer_known(n->op) ? YE_TS_UNSUPPORTED : YE_UNSUPPORTED_OP,
		               "%s: %s", n->op, why[0] ? why : "no dtype and shape rule for this op");
	list_ret = s->nret == 1 && strncmp(s->rets[0], "Tensor[]", 8) == 0;
	n->nout = list_ret ? 1 : k;
	n->out = ARENA_ARRAY(b->a, Arg, n->nout + 1);
	r = list_ret ? mk_seq(b, V_LIST, k) : k == 1 ? NULL : mk_seq(b, V_TUPLE, k);
	if (list_ret) {
		n->out[0].kind = ARG_TENSORS;
		n->out[0].n = k;
		n->out[0].u.list = ARENA_ARRAY(b->a, Arg, k + 1);
	}
	for (int i = 0; i < k; i++) {
		Value *v = ir_new_value(b->a, b->g, fresh_name(b, base), outs[i].kind);
		TsVal *tv;
		v->dtype = outs[i].dtype;
		v->rank = outs[i].rank;
		v->dims = outs[i].dims;
		v->expr = outs[i].expr;
		v->def = n;
		if (list_ret) {
			n->out[0].u.list[i].kind = ARG_TENSOR;
			n->out[0].u.list[i].u.v = v;
		} else {
			n->out[i].kind = v->kind == VAL_TENSOR ? ARG_TENSOR : ARG_SYM_INT;
			n->out[i].u.v = v;
		}
		tv = mk(b, v->kind == VAL_TENSOR ? V_TENSOR : V_SYM);
		tv->v = v;
		if (r)
			r->it[i] = tv;
		else
			r = tv;
		if (i == 0)
			n->name = v->name;
	}
	if (k == 0) {
		n->name = fresh_name(b, base);
		r = &none_val;
	}
	push_node(b, n);
	return r;
}

/* scalar_tensor(sym): a SymInt as a 0-d int64 tensor. */
static Value *
emit_scalar_tensor(Build *b, Frame *f, const TsExpr *at, const TsVal *v)
{
	TsVal iv = *v, *arg = &iv, *r;

	iv.numtensor = NT_NONE;
	r = call_op(b, f, at, "aten", "scalar_tensor", 1, &arg, 0, NULL, NULL);
	return r->k == V_TENSOR ? r->v : NULL;
}

/* item(t): a 0-d tensor's value as a SymInt (unbacked: known at run time
 * only), for an int argument given a tensor's value. */
static TsVal *
tensor_item(Build *b, Frame *f, const TsExpr *at, const TsVal *t)
{
	Arg in = value_arg(t->v);
	SymExpr *e = ARENA_NEW(b->a, SymExpr);
	TsVal *r;

	e->op = SYM_SYMBOL;
	e->name = fresh_name(b, "u0");
	r = sym_node(b, f, at, "aten.item.default", 1, &in, e);
	r->v->def->in[0].name = "self";
	return r;
}

/* The number a 0-d constant tensor holds (a frozen module's CONSTANTS.cN
 * divisor), as a Python value; NULL for anything else. */
static TsVal *
const_number(Build *b, const TsVal *v)
{
	const TensorData *t;
	const uint8_t *p;

	if (v->k != V_TENSOR || !v->v->data || v->v->rank != 0)
		return NULL;
	t = v->v->data;
	if (t->storage_bytes < (uint64_t)((t->offset + 1) * dtype_size(t->dtype)))
		return NULL;
	p = t->storage + t->offset * dtype_size(t->dtype);
	switch (t->dtype) {
	case DT_INT64: { int64_t x; memcpy(&x, p, 8); return mk_int(b, x); }
	case DT_INT32: { int32_t x; memcpy(&x, p, 4); return mk_int(b, x); }
	case DT_FLOAT64: { double x; memcpy(&x, p, 8); return mk_float(b, x); }
	case DT_FLOAT32: { float x; memcpy(&x, p, 4); return mk_float(b, x); }
	default: return NULL;
	}
}

/* NumToTensor values through simple tensor arithmetic stay numbers (traced
 * code computes sizes this way: floor_divide(NumToTensor(size(x, 2)),
 * CONSTANTS.c0), add(seq_length, CONSTANTS.c0)). */
static TsVal *
numtensor_op(Build *b, Frame *f, const TsExpr *at, const char *name, int npos, TsVal **pos, int nkw,
             const char *const *kwn, TsVal **kw)
{
	static const struct { const char *name; int op; } ops[] = {
		{"add", TB_ADD}, {"sub", TB_SUB}, {"mul", TB_MUL}, {"floor_divide", TB_FLOORDIV},
		{"remainder", TB_MOD}, {"floordiv", TB_FLOORDIV}, {"div", TB_FLOORDIV}, {"rsub", TB_SUB},
	};
	TsVal x, y, *r, *c;
	int nt = 0;

	if (npos != 2)
		return NULL;
	for (int i = 0; i < 2; i++)
		nt |= pos[i]->numtensor == NT_SIZE;
	if (!nt)
		return NULL;
	x = *pos[0], y = *pos[1];
	if ((c = const_number(b, &x)))
		x = *c;
	if ((c = const_number(b, &y)))
		y = *c;
	if (strcmp(name, "rsub") == 0) {
		TsVal t = x;
		x = y, y = t;
	}
	for (int i = 0; i < nkw; i++)       /* div(a, b, rounding_mode="floor"): a size */
		if (!(strcmp(name, "div") == 0 && strcmp(kwn[i], "rounding_mode") == 0 && kw[i]->k == V_STR &&
		      (strcmp(kw[i]->s, "floor") == 0 || strcmp(kw[i]->s, "trunc") == 0)))
			return NULL;
	if (strcmp(name, "div") == 0 && nkw == 0)
		return NULL;
	if (!(x.k == V_INT || x.k == V_SYM) || !(y.k == V_INT || y.k == V_SYM))
		return NULL;
	for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
		if (strcmp(ops[k].name, name) != 0)
			continue;
		x.numtensor = y.numtensor = NT_NONE;
		r = int_binary(b, f, at, ops[k].op, &x, &y);
		if (r->k == V_ERR)
			return r;
		r = arena_dup(b->a, r, sizeof *r);
		r->numtensor = NT_SIZE;
		return r;
	}
	return NULL;
}

/* 1 when s takes and returns no tensor: one of TorchScript's Python-level
 * operators (aten::eq.int, aten::__contains__.int_list, aten::len.t). */
static int
schema_is_python(const TsSchema *s)
{
	for (int i = 0; i < s->narg; i++)
		switch (s->args[i].type) {
		case TA_TENSOR: case TA_OPT_TENSOR: case TA_TENSORS: case TA_OPT_TENSORS:
			return 0;
		default:
			break;
		}
	for (int i = 0; i < s->nret; i++)
		if (strncmp(s->rets[i], "Tensor", 6) == 0)
			return 0;
	return 1;
}

/* A Python-level operator run now. */
static TsVal *
py_op(Build *b, Frame *f, const TsExpr *at, const TsSchema *s, TsVal **sv)
{
	static const struct { const char *name; int op; } bin[] = {
		{"add", TB_ADD}, {"sub", TB_SUB}, {"mul", TB_MUL}, {"div", TB_DIV}, {"floordiv", TB_FLOORDIV},
		{"remainder", TB_MOD}, {"pow", TB_POW}, {"eq", TB_EQ}, {"ne", TB_NE}, {"lt", TB_LT},
		{"le", TB_LE}, {"gt", TB_GT}, {"ge", TB_GE}, {"__and__", TB_AND}, {"__or__", TB_OR},
		{"__xor__", TB_XOR}, {"__lshift__", TB_SHL}, {"__rshift__", TB_SHR}, {"__is__", TB_IS},
		{"__isnot__", TB_ISNOT},
	};
	const char *n = s->name;
	TsVal *x = s->narg > 0 && sv[0] ? sv[0] : &none_val, *y = s->narg > 1 && sv[1] ? sv[1] : &none_val;

	for (int i = 0; i < s->narg; i++)
		if (sv[i] && sv[i]->k == V_ERR)
			return &poison;
	for (size_t k = 0; k < sizeof bin / sizeof *bin; k++)
		if (strcmp(bin[k].name, n) == 0 && s->narg == 2)
			return py_binary(b, f, at, bin[k].op, x, y);
	if (strcmp(n, "__contains__") == 0 && s->narg == 2)
		return py_binary(b, f, at, TB_IN, y, x);
	if (strcmp(n, "__not__") == 0) {
		int t;
		return truth(b, f, at, x, &t) ? &poison : mk_bool(b, !t);
	}
	if (strcmp(n, "neg") == 0)
		return x->k == V_FLOAT ? mk_float(b, -x->f) : int_binary(b, f, at, TB_MUL, mk_int(b, -1), x);
	if (x->k == V_INT || x->k == V_FLOAT || x->k == V_BOOL) {
		double v = num(x);
		if (strcmp(n, "sqrt") == 0) return mk_float(b, sqrt(v));
		if (strcmp(n, "floor") == 0) return mk_int(b, (int64_t)floor(v));
		if (strcmp(n, "ceil") == 0) return mk_int(b, (int64_t)ceil(v));
		if (strcmp(n, "abs") == 0) return x->k == V_FLOAT ? mk_float(b, fabs(v)) : mk_int(b, x->i < 0 ? -x->i : x->i);
		if (strcmp(n, "Int") == 0) return mk_int(b, (int64_t)v);
		if (strcmp(n, "Float") == 0) return mk_float(b, v);
		if (strcmp(n, "Bool") == 0) return mk_bool(b, v != 0);
		if (strcmp(n, "log") == 0) return mk_float(b, log(v));
		if (strcmp(n, "exp") == 0) return mk_float(b, exp(v));
	}
	if ((strcmp(n, "min") == 0 || strcmp(n, "max") == 0) && s->narg == 2 &&
	    (x->k == V_INT || x->k == V_FLOAT) && (y->k == V_INT || y->k == V_FLOAT)) {
		int lt = num(x) < num(y);
		return (strcmp(n, "min") == 0) == lt ? x : y;
	}
	if (strcmp(n, "len") == 0 && (x->k == V_LIST || x->k == V_TUPLE))
		return mk_int(b, x->n);
	if (strcmp(n, "format") == 0 || strcmp(n, "str") == 0) {
		TsVal *r = mk(b, V_STR);
		r->s = x->k == V_STR ? x->s : "";
		return r;
	}
	if (strcmp(n, "warn") == 0)
		return &none_val;
	if (strcmp(n, "list") == 0 && (x->k == V_LIST || x->k == V_TUPLE)) {
		TsVal *r = mk_seq(b, V_LIST, x->n);
		memcpy(r->it, x->it, sizeof *r->it * (size_t)x->n);
		return r;
	}
	if (strcmp(n, "__getitem__") == 0 && (x->k == V_LIST || x->k == V_TUPLE) && y->k == V_INT) {
		int64_t k = y->i < 0 ? y->i + x->n : y->i;
		if (k < 0 || k >= x->n)
			return FAIL(b, f, at, "index %lld out of range for a list of %d", (long long)y->i, x->n);
		return x->it[k];
	}
	return FAIL(b, f, at, "%s::%s on %s is outside what the reader evaluates", s->ns, n, kind_name(x));
}

static int
is_int_dtype(DType t)
{
	return t == DT_INT64 || t == DT_INT32 || t == DT_INT16 || t == DT_INT8 || t == DT_UINT8;
}

/* The value for each schema argument (NULL: its default), with the
 * conversions the schema match asked for applied. */
static int
bind_values(Build *b, Frame *f, const TsExpr *at, const TsBind *bd, int npos, TsVal **all, TsVal **sv)
{
	const TsSchema *s = bd->schema;

	for (int i = 0; i < s->narg && i < TS_MAX_ARGS; i++) {
		TsVal *v;
		int k = bd->slot[i];
		sv[i] = NULL;
		if (k < 0)
			continue;
		v = all[k];
		switch (bd->conv[i]) {
		case TC_PACK: {
			int n = npos - k;
			TsVal *l = mk_seq(b, V_LIST, n > 0 ? n : 0);
			for (int j = 0; j < n; j++)
				l->it[j] = all[k + j];
			v = l;
			break;
		}
		case TC_REPEAT: {
			int n = s->args[i].list_len > 0 ? s->args[i].list_len : 1;
			TsVal *l = mk_seq(b, V_LIST, n);
			for (int j = 0; j < n; j++)
				l->it[j] = v;
			v = l;
			break;
		}
		case TC_TO_NUMBER:
			if (v->k == V_TENSOR && (s->args[i].type == TA_SCALAR || s->args[i].type == TA_OPT_SCALAR) &&
			    v->v->rank == 0)
				break;          /* a tensor's value as a Scalar: the lowering reads it as a tensor */
			if (v->k == V_TENSOR && v->v->rank == 0 && is_int_dtype(v->v->dtype) &&
			    (s->args[i].type == TA_INT || s->args[i].type == TA_OPT_INT)) {
				v = tensor_item(b, f, at, v);
				break;
			}
			if (v->k == V_TENSOR) {
				FAIL(b, f, at, "argument '%s': a tensor's value used as a Python number (data-dependent) "
				     "is outside what the reader converts", s->args[i].name);
				return -1;
			}
			v = arena_dup(b->a, v, sizeof *v);
			v->numtensor = NT_NONE;
			break;
		case TC_DEVICE:
			if (v->k == V_STR) {
				TsVal *d = mk(b, V_DEVICE);
				d->s = v->s;
				v = d;
			}
			break;
		default:
			break;
		}
		sv[i] = v;
	}
	return 0;
}

/* One of TorchScript's builtin functions (a schema with a body: _pair(x),
 * add(int a, Tensor b) -> torch.add(b, a)): its body run as printed code. */
static TsVal *
run_body(Build *b, Frame *f, const TsExpr *at, const TsSchema *s, TsVal **sv)
{
	char key[32];
	TsAst *ast;
	Frame bf = {0};
	TsVal *r;

	snprintf(key, sizeof key, "%p", (const void *)s);
	if (!(ast = strmap_get(b->asts, key))) {
		const char *params = "", *text;
		for (int i = 0; i < s->narg; i++)
			params = arena_printf(b->a, "%s%s%s", params, i ? ", " : "", s->args[i].name);
		text = arena_printf(b->a, "def f(%s):\n  return %s\n", params, s->body);
		ast = ARENA_NEW(b->a, TsAst);
		if (ts_parse(b->a, arena_printf(b->a, "builtin %s::%s", s->ns, s->name), text, strlen(text), ast, b->d)
		    || ast->ndef != 1) {
			b->nerr++;
			return &poison;
		}
		strmap_put(b->asts, arena_strdup(b->a, key), ast);
	}
	bf.vars = env_new(b->a, s->narg + 1);
	bf.code = f->code;
	for (int i = 0; i < s->narg; i++) {
		TsVal *v = sv[i];
		if (!v) {
			Arg a;
			if (!default_arg(b, &s->args[i], &a) || a.kind == ARG_NONE)
				v = &none_val;
			else if (a.kind == ARG_FLOAT)
				v = mk_float(b, a.u.f);
			else if (a.kind == ARG_BOOL)
				v = mk_bool(b, (int)a.u.i);
			else
				v = mk_int(b, a.u.i);
		}
		env_set(b->a, bf.vars, s->args[i].name, v);
	}
	/* the body's own offsets mean nothing in the caller's code file */
	{
		const TsDef *def = &ast->defs[0];
		const TsCode *saved = bf.code;
		bf.code = NULL;
		if (exec_body(b, &bf, def->body, def->nbody) < 0 || !bf.ret)
			bf.ret = &none_val;
		bf.code = saved;
	}
	(void)at;
	r = bf.ret;
	return r;
}

static TsVal *
call_op(Build *b, Frame *f, const TsExpr *at, const char *ns, const char *name, int npos, TsVal **pos,
        int nkw, const char *const *kwn, TsVal **kw)
{
	TsKind pk[TS_MAX_ARGS], kk[TS_MAX_ARGS];
	TsVal *all[2 * TS_MAX_ARGS], *sv[TS_MAX_ARGS];
	TsBind bd;
	char why[1024];
	TsVal *r;
	char base[128];

	if (npos > TS_MAX_ARGS || nkw > TS_MAX_ARGS)
		return FAIL(b, f, at, "%s.%s: too many arguments", ns, name);
	for (int i = 0; i < npos; i++) {
		if (pos[i]->k == V_ERR)
			return &poison;
		pk[i] = val_kind(pos[i]);
		all[i] = pos[i];
	}
	for (int i = 0; i < nkw; i++) {
		if (kw[i]->k == V_ERR)
			return &poison;
		kk[i] = val_kind(kw[i]);
		all[npos + i] = kw[i];
	}
	if (strcmp(ns, "aten") == 0 && (r = numtensor_op(b, f, at, name, npos, pos, nkw, kwn, kw)))
		return r;
	if (ts_schema_bind(ns, name, npos, pk, nkw, kwn, kk, &bd, why, sizeof why))
		return FAIL(b, f, at, "%s", why);
	snprintf(base, sizeof base, "%s", name);
	while (base[0] == '_')
		memmove(base, base + 1, strlen(base));
	if (*base && base[strlen(base) - 1] == '_')
		base[strlen(base) - 1] = 0;
	if (bind_values(b, f, at, &bd, npos, all, sv))
		return &poison;
	if (bd.schema->body)
		return run_body(b, f, at, bd.schema, sv);
	if (schema_is_python(bd.schema))
		return py_op(b, f, at, bd.schema, sv);

	return emit(b, f, at, bd.schema, sv, base);
}

/* ---- builtins ---- */

static TsVal *
to_int(Build *b, Frame *f, const TsExpr *at, const TsVal *v)
{
	TsVal *r;

	switch (v->k) {
	case V_INT: case V_BOOL: return mk_int(b, v->i);
	case V_FLOAT: return mk_int(b, (int64_t)v->f);
	case V_SYM:
		r = arena_dup(b->a, v, sizeof *v);
		r->numtensor = NT_NONE;
		return r;
	case V_TENSOR:
		if (v->v->rank != 0)
			return FAIL(b, f, at, "int() of a tensor of rank %d (torch needs one element)", v->v->rank);
		/* a Python int read from a tensor: it stays the tensor */
		r = arena_dup(b->a, v, sizeof *v);
		r->numtensor = NT_DATA;
		return r;
	default:
		return FAIL(b, f, at, "int() of %s", kind_name(v));
	}
}

static int
truth(Build *b, Frame *f, const TsExpr *at, const TsVal *v, int *out)
{
	switch (v->k) {
	case V_BOOL: case V_INT: *out = v->i != 0; return 0;
	case V_FLOAT: *out = v->f != 0; return 0;
	case V_NONE: *out = 0; return 0;
	case V_STR: *out = v->s[0] != 0; return 0;
	case V_LIST: case V_TUPLE: *out = v->n != 0; return 0;
	case V_OBJ: case V_DEVICE: *out = 1; return 0;
	case V_ERR: return -1;
	case V_SYM:
		FAIL(b, f, at, "a condition on a dynamic size is outside what the reader evaluates "
		     "(give that dimension a static size in `inputs:`)");
		return -1;
	case V_TENSOR:
		FAIL(b, f, at, "a condition on a tensor's contents (data-dependent control flow) is not supported yet");
		return -1;
	default:
		FAIL(b, f, at, "a condition on %s", kind_name(v));
		return -1;
	}
}

/* The type a TorchScript annotation names, for isinstance(). */
static int
isinstance_of(const TsVal *v, const TsExpr *type)
{
	const char *t = type->kind == TE_NAME ? type->s : type->kind == TE_INDEX && type->a->kind == TE_NAME
	                ? type->a->s : NULL;
	if (type->kind == TE_TUPLE) {
		for (int i = 0; i < type->nitem; i++)
			if (isinstance_of(v, type->items[i]))
				return 1;
		return 0;
	}
	if (!t)
		return 0;
	if (strcmp(t, "Tensor") == 0)
		return v->k == V_TENSOR;
	if (strcmp(t, "int") == 0)
		return v->k == V_INT || v->k == V_SYM;
	if (strcmp(t, "float") == 0)
		return v->k == V_FLOAT;
	if (strcmp(t, "bool") == 0)
		return v->k == V_BOOL;
	if (strcmp(t, "str") == 0)
		return v->k == V_STR;
	if (strcmp(t, "List") == 0)
		return v->k == V_LIST;
	if (strcmp(t, "Tuple") == 0)
		return v->k == V_TUPLE;
	if (strcmp(t, "Optional") == 0)
		return v->k == V_NONE || isinstance_of(v, type->b);
	return 0;
}

/* The dotted name of an attribute chain ("torch.nn.functional.relu"), or NULL. */
static const char *
dotted(Build *b, const TsExpr *e)
{
	if (e->kind == TE_NAME)
		return e->s;
	if (e->kind == TE_ATTR) {
		const char *l = dotted(b, e->a);
		return l ? arena_printf(b->a, "%s.%s", l, e->s) : NULL;
	}
	return NULL;
}

static TsVal *
builtin(Build *b, Frame *f, const TsExpr *e, const char *fn, int npos, TsVal **pos, int nkw,
        const char *const *kwn, TsVal **kw, int *handled)
{
	*handled = 1;
	for (int i = 0; i < npos; i++)
		if (pos[i]->k == V_ERR)
			return &poison;
	if ((strcmp(fn, "int") == 0 || strcmp(fn, "torch.Int") == 0 || strcmp(fn, "torch.IntImplicit") == 0 ||
	     strcmp(fn, "torch.ScalarImplicit") == 0 || strcmp(fn, "torch.FloatImplicit") == 0) && npos == 1) {
		/* TorchScript's tensor-to-number casts: a number stays one, a
		 * 0-d tensor's value becomes a data-dependent scalar */
		if (fn[0] == 't' && (pos[0]->k == V_FLOAT || pos[0]->k == V_INT) && !pos[0]->numtensor)
			return pos[0];
		if (strstr(fn, "Float") && (pos[0]->k == V_INT || pos[0]->k == V_FLOAT) )
			return mk_float(b, num(pos[0]));
		if (strstr(fn, "Scalar") && pos[0]->k == V_FLOAT) {
			TsVal *r = arena_dup(b->a, pos[0], sizeof *pos[0]);
			r->numtensor = NT_NONE;
			return r;
		}
		return to_int(b, f, e, pos[0]);
	}
	if (strcmp(fn, "float") == 0 && npos == 1) {
		if (pos[0]->k == V_INT || pos[0]->k == V_BOOL || pos[0]->k == V_FLOAT)
			return mk_float(b, num(pos[0]));
		if (pos[0]->k == V_TENSOR && pos[0]->v->rank == 0)
			return to_int(b, f, e, pos[0]);
		return FAIL(b, f, e, "float() of %s is outside what the reader evaluates", kind_name(pos[0]));
	}
	if (strcmp(fn, "bool") == 0 && npos == 1) {
		int t;
		if (pos[0]->k == V_TENSOR) {
			/* a Python bool read from a tensor: `if` makes it a cond */
			TsVal *r = arena_dup(b->a, pos[0], sizeof *pos[0]);
			r->numtensor = NT_DATA;
			return r;
		}
		if (truth(b, f, e, pos[0], &t))
			return &poison;
		return mk_bool(b, t);
	}
	if ((strcmp(fn, "len") == 0 || strcmp(fn, "torch.len") == 0) && npos == 1) {
		if (pos[0]->k == V_LIST || pos[0]->k == V_TUPLE)
			return mk_int(b, pos[0]->n);
		if (pos[0]->k == V_TENSOR) {
			if (pos[0]->v->rank < 1)
				return FAIL(b, f, e, "len() of a 0-d tensor");
			return size_of(b, f, e, pos[0]->v, 0);
		}
		return FAIL(b, f, e, "len() of %s", kind_name(pos[0]));
	}
	if ((strcmp(fn, "annotate") == 0 || strcmp(fn, "unchecked_cast") == 0) && npos == 2)
		return pos[1];
	if (strcmp(fn, "uninitialized") == 0)
		return mk(b, V_UNINIT);
	if (strcmp(fn, "ops.prim.NumToTensor") == 0 && npos == 1) {
		TsVal *r;
		if (pos[0]->k == V_TENSOR)
			return pos[0];
		r = arena_dup(b->a, pos[0], sizeof *pos[0]);
		r->numtensor = NT_SIZE;
		return r;
	}
	if ((strcmp(fn, "torch.size") == 0 || strcmp(fn, "ops.aten.size") == 0) && npos >= 1 &&
	    pos[0]->k == V_TENSOR) {
		const Value *x = pos[0]->v;
		if (npos == 2 && (pos[1]->k == V_INT))
			return size_of(b, f, e, x, pos[1]->i);
		if (npos == 1) {
			TsVal *l = mk_seq(b, V_LIST, x->rank);
			for (int i = 0; i < x->rank; i++)
				if ((l->it[i] = size_of(b, f, e, x, i))->k == V_ERR)
					return &poison;
			return l;
		}
	}
	if (strcmp(fn, "torch.dim") == 0 && npos == 1 && pos[0]->k == V_TENSOR)
		return mk_int(b, pos[0]->v->rank);
	if (strcmp(fn, "torch.numel") == 0 && npos == 1 && pos[0]->k == V_TENSOR) {
		/* the product of the sizes: a number, or SymInt arithmetic */
		TsVal *n = mk_int(b, 1);
		for (int i = 0; i < pos[0]->v->rank && n->k != V_ERR; i++) {
			TsVal *s = size_of(b, f, e, pos[0]->v, i);
			n = s->k == V_ERR ? s : int_binary(b, f, e, TB_MUL, n, s);
		}
		return n;
	}
	if (strcmp(fn, "torch.device") == 0 && npos == 1 && pos[0]->k == V_STR) {
		TsVal *r = mk(b, V_DEVICE);
		r->s = pos[0]->s;
		return r;
	}
	if (strcmp(fn, "ops.prim.device") == 0 && npos == 1) {
		TsVal *r = mk(b, V_DEVICE);
		r->s = "cpu";
		return r;
	}
	if (strcmp(fn, "ops.prim.dtype") == 0 && npos == 1 && pos[0]->k == V_TENSOR) {
		int code = dtype_c10(pos[0]->v->dtype);
		if (code >= 0)
			return mk_int(b, code);
		return FAIL(b, f, e, "dtype %s has no TorchScript code", dtype_name(pos[0]->v->dtype));
	}
	if (strcmp(fn, "isinstance") == 0 && npos == 2 && e->nitem == 2)
		return mk_bool(b, isinstance_of(pos[0], e->items[1]));
	if (strcmp(fn, "range") == 0 && npos >= 1 && npos <= 3) {
		int64_t lo = 0, hi, st = 1, c;
		TsVal *l;
		for (int i = 0; i < npos; i++)
			if (pos[i]->k != V_INT)
				return FAIL(b, f, e, "range() over %s: loops whose trip count is not known at "
				            "conversion time are not supported yet", kind_name(pos[i]));
		if (npos == 1)
			hi = pos[0]->i;
		else
			lo = pos[0]->i, hi = pos[1]->i;
		if (npos == 3)
			st = pos[2]->i;
		if (st == 0)
			return FAIL(b, f, e, "range() step is zero");
		c = st > 0 ? (hi > lo ? (hi - lo + st - 1) / st : 0) : (lo > hi ? (lo - hi - st - 1) / -st : 0);
		if (c > MAX_UNROLL)
			return FAIL(b, f, e, "range() of %lld items: more than the %d a loop may unroll",
			            (long long)c, MAX_UNROLL);
		l = mk_seq(b, V_LIST, (int)c);
		for (int64_t i = 0; i < c; i++)
			l->it[i] = mk_int(b, lo + i * st);
		return l;
	}
	if (strcmp(fn, "getattr") == 0 && npos == 2 && pos[0]->k == V_OBJ && pos[1]->k == V_STR)
		return get_attr(b, f, e, pos[0], pos[1]->s);
	if (strcmp(fn, "torch.append") == 0 && npos == 2 && pos[0]->k == V_LIST) {
		TsVal *l = pos[0];
		TsVal **it = ARENA_ARRAY(b->a, TsVal *, l->n + 2);
		memcpy(it, l->it, sizeof *it * (size_t)l->n);
		it[l->n] = pos[1];
		l->it = it;
		l->n++;
		return l;
	}
	if ((strcmp(fn, "torch.warn") == 0 || strcmp(fn, "print") == 0))
		return &none_val;
	(void)nkw, (void)kwn, (void)kw;
	*handled = 0;
	return NULL;
}

/* A binary operator between Python values (ints with SymInts, floats,
 * strings, lists, None). */
static TsVal *
py_binary(Build *b, Frame *f, const TsExpr *e, int op, TsVal *x, TsVal *y)
{
	TsVal *r;

	if (x->k == V_ERR || y->k == V_ERR)
		return &poison;
	if (op == TB_IS || op == TB_ISNOT) {
		int same = (x->k == V_NONE) == (y->k == V_NONE);
		if (x->k != V_NONE && y->k != V_NONE)
			return FAIL(b, f, e, "'is' between two values that are not None");
		return mk_bool(b, op == TB_IS ? same : !same);
	}
	if ((x->k == V_INT || x->k == V_SYM || x->k == V_BOOL) &&
	    (y->k == V_INT || y->k == V_SYM || y->k == V_BOOL) && !x->numtensor && !y->numtensor)
		return int_binary(b, f, e, op, x, y);
	if ((x->k == V_INT || x->k == V_FLOAT) && (y->k == V_INT || y->k == V_FLOAT)) {
		double p = num(x), q = num(y);
		switch (op) {
		case TB_ADD: return mk_float(b, p + q);
		case TB_SUB: return mk_float(b, p - q);
		case TB_MUL: return mk_float(b, p * q);
		case TB_DIV: return mk_float(b, p / q);
		case TB_POW: return mk_float(b, pow(p, q));
		case TB_FLOORDIV: return mk_float(b, floor(p / q));
		case TB_EQ: return mk_bool(b, p == q);
		case TB_NE: return mk_bool(b, p != q);
		case TB_LT: return mk_bool(b, p < q);
		case TB_LE: return mk_bool(b, p <= q);
		case TB_GT: return mk_bool(b, p > q);
		case TB_GE: return mk_bool(b, p >= q);
		default: break;
		}
	}
	if (x->k == V_STR && y->k == V_STR && (op == TB_EQ || op == TB_NE))
		return mk_bool(b, (strcmp(x->s, y->s) == 0) == (op == TB_EQ));
	if ((op == TB_EQ || op == TB_NE) && (x->k == V_LIST || x->k == V_TUPLE) && (y->k == V_LIST || y->k == V_TUPLE)) {
		int eq = x->n == y->n;
		for (int i = 0; eq && i < x->n; i++) {
			TsVal *c = py_binary(b, f, e, TB_EQ, x->it[i], y->it[i]);
			if (c->k != V_BOOL)
				return c->k == V_ERR ? c : FAIL(b, f, e, "comparing lists of %s", kind_name(x->it[i]));
			eq = (int)c->i;
		}
		return mk_bool(b, op == TB_EQ ? eq : !eq);
	}
	if ((op == TB_IN || op == TB_NOTIN) && (y->k == V_LIST || y->k == V_TUPLE)) {
		int found = 0;
		for (int i = 0; i < y->n && !found; i++) {
			const TsVal *z = y->it[i];
			if (z->k == x->k && (x->k == V_INT || x->k == V_BOOL))
				found = z->i == x->i;
			else if (z->k == V_STR && x->k == V_STR)
				found = strcmp(z->s, x->s) == 0;
		}
		return mk_bool(b, op == TB_IN ? found : !found);
	}
	if (op == TB_ADD && x->k == y->k && (x->k == V_LIST || x->k == V_TUPLE)) {
		r = mk_seq(b, x->k, x->n + y->n);
		memcpy(r->it, x->it, sizeof *r->it * (size_t)x->n);
		memcpy(r->it + x->n, y->it, sizeof *r->it * (size_t)y->n);
		return r;
	}
	return FAIL(b, f, e, "operator between %s and %s is outside what the reader evaluates",
	            kind_name(x), kind_name(y));
}

/* ---- expressions ---- */

/* A scripted free function: __torch__.mod.fn(...). */
static TsVal *
call_function(Build *b, Frame *f, const TsExpr *e, const char *fn, int npos, TsVal **pos, int nkw,
              const char *const *kwn, TsVal **kw)
{
	const char *dot = strrchr(fn, '.');
	const TsCode *code;
	const TsAst *ast = ast_of(b, arena_strndup(b->a, fn, (size_t)(dot - fn)), &code);
	const TsDef *def = ast ? ts_function(ast, dot + 1) : NULL;

	if (def)
		return call_def(b, def, code, NULL, "", NULL, npos, pos, nkw, kwn, kw, e, f->code);
	return FAIL(b, f, e, "function %s is not defined in the archive's code", fn);
}

static TsVal *
eval_call(Build *b, Frame *f, const TsExpr *e)
{
	TsVal *pos[TS_MAX_ARGS * 2], *kw[TS_MAX_ARGS * 2];
	const char *kwn[TS_MAX_ARGS * 2];
	int npos = 0, nkw = 0, handled;
	const char *fn = dotted(b, e->a);
	TsVal *r;

	if (e->nitem > TS_MAX_ARGS * 2)
		return FAIL(b, f, e, "a call with %d arguments", e->nitem);
	/* annotate(T, x), isinstance(x, T), uninitialized(T): T is a type, not a value */
	if (fn && (strcmp(fn, "annotate") == 0 || strcmp(fn, "unchecked_cast") == 0) && e->nitem == 2)
		return eval(b, f, e->items[1]);
	if (fn && strcmp(fn, "uninitialized") == 0)
		return mk(b, V_UNINIT);
	if (fn && strcmp(fn, "isinstance") == 0 && e->nitem == 2) {
		TsVal *x = eval(b, f, e->items[0]);
		return x->k == V_ERR ? x : mk_bool(b, isinstance_of(x, e->items[1]));
	}
	for (int i = 0; i < e->nitem; i++) {
		TsVal *v = eval(b, f, e->items[i]);
		if (e->kw && e->kw[i]) {
			kwn[nkw] = e->kw[i];
			kw[nkw++] = v;
		} else {
			pos[npos++] = v;
		}
	}
	/* a method of a module: (fc).forward(x) */
	if (e->a->kind == TE_ATTR && !(fn && (strncmp(fn, "torch.", 6) == 0 || strncmp(fn, "ops.", 4) == 0 ||
	                                      strncmp(fn, "__torch__.", 10) == 0))) {
		TsVal *self = eval(b, f, e->a->a);
		if (self->k == V_ERR)
			return self;
		if (self->k == V_OBJ) {
			const TsCode *code;
			const TsClass *cls = class_of(b, self->obj, &code);
			const TsDef *def = cls ? ts_method(cls, e->a->s) : NULL;
			if (!cls)
				return FAIL(b, f, e, "class %s.%s of module '%s' is not defined in the archive's code",
				            self->obj->func->s, self->obj->func->name, self->path);
			if (!def)
				return FAIL(b, f, e, "class %s has no method '%s'", cls->name, e->a->s);
			return call_def(b, def, code, self, self->path, class_display(b, self->obj), npos, pos, nkw,
			                kwn, kw, e, f->code);
		}
		return FAIL(b, f, e, "method '%s' of %s", e->a->s, kind_name(self));
	}
	if (!fn)
		return FAIL(b, f, e, "a call of a computed function");
	r = builtin(b, f, e, fn, npos, pos, nkw, kwn, kw, &handled);
	if (handled)
		return r;
	if (strncmp(fn, "torch.", 6) == 0 && !strchr(fn + 6, '.'))
		return call_op(b, f, e, "aten", fn + 6, npos, pos, nkw, kwn, kw);
	if (strncmp(fn, "ops.", 4) == 0) {
		const char *ns = fn + 4, *dot = strchr(ns, '.');
		if (dot && !strchr(dot + 1, '.'))
			return call_op(b, f, e, arena_strndup(b->a, ns, (size_t)(dot - ns)), dot + 1, npos, pos, nkw,
			               kwn, kw);
	}
	if (strncmp(fn, "torch.nn.functional.", 20) == 0 && !strchr(fn + 20, '.'))
		return call_op(b, f, e, "aten", fn + 20, npos, pos, nkw, kwn, kw);
	if (strncmp(fn, "__torch__.", 10) == 0)
		return call_function(b, f, e, fn, npos, pos, nkw, kwn, kw);
	if (e->a->kind == TE_NAME) {
		TsVal *fv = env_get(f->vars, e->a->s);
		if (fv && fv->k == V_FUNC)
			return call_function(b, f, e, fv->s, npos, pos, nkw, kwn, kw);
		if (fv && fv->k == V_ERR)
			return fv;
	}
	return FAIL(b, f, e, "call of '%s' is outside what the reader knows", fn);
}

static TsVal *
eval_index(Build *b, Frame *f, const TsExpr *e)
{
	TsVal *x = eval(b, f, e->a), *i;

	if (x->k == V_ERR)
		return x;
	if (e->b->kind == TE_SLICE) {
		int64_t lo = 0, hi, st = 1;
		TsVal *r;
		if (x->k != V_LIST && x->k != V_TUPLE)
			return FAIL(b, f, e, "slicing %s", kind_name(x));
		hi = x->n;
		for (int k = 0; k < 3; k++) {
			TsVal *v;
			if (!e->b->items[k])
				continue;
			v = eval(b, f, e->b->items[k]);
			if (v->k != V_INT)
				return v->k == V_ERR ? v : FAIL(b, f, e, "slice bound is %s", kind_name(v));
			if (k == 0)
				lo = v->i < 0 ? v->i + x->n : v->i;
			else if (k == 1)
				hi = v->i < 0 ? v->i + x->n : v->i;
			else
				st = v->i;
		}
		if (st != 1)
			return FAIL(b, f, e, "list slices with a step");
		lo = lo < 0 ? 0 : lo > x->n ? x->n : lo;
		hi = hi < lo ? lo : hi > x->n ? x->n : hi;
		r = mk_seq(b, x->k, (int)(hi - lo));
		for (int64_t k = lo; k < hi; k++)
			r->it[k - lo] = x->it[k];
		return r;
	}
	i = eval(b, f, e->b);
	if (i->k == V_ERR)
		return i;
	if ((x->k == V_LIST || x->k == V_TUPLE) && i->k == V_INT) {
		int64_t k = i->i < 0 ? i->i + x->n : i->i;
		if (k < 0 || k >= x->n)
			return FAIL(b, f, e, "index %lld out of range for a %s of %d", (long long)i->i,
			            kind_name(x), x->n);
		return x->it[k];
	}
	return FAIL(b, f, e, "indexing %s with %s", kind_name(x), kind_name(i));
}

static TsVal *
eval(Build *b, Frame *f, const TsExpr *e)
{
	TsVal *x, *y, *r;

	switch (e->kind) {
	case TE_NAME:
		if ((x = env_get(f->vars, e->s)))
			return x;
		if (strcmp(e->s, "inf") == 0)
			return mk_float(b, INFINITY);
		if (strcmp(e->s, "nan") == 0)
			return mk_float(b, NAN);
		return FAIL(b, f, e, "name '%s' is not defined", e->s);
	case TE_INT: return mk_int(b, e->i);
	case TE_FLOAT: return mk_float(b, e->f);
	case TE_STR:
		r = mk(b, V_STR);
		r->s = e->s;
		return r;
	case TE_NONE: return &none_val;
	case TE_TRUE: return mk_bool(b, 1);
	case TE_FALSE: return mk_bool(b, 0);
	case TE_ATTR: {
		const char *fn = dotted(b, e);
		if (fn && strncmp(fn, "CONSTANTS.c", 11) == 0) {
			char *end;
			long k = strtol(fn + 11, &end, 10);
			const PyObj *c = b->t->constants;
			if (*end || !c || (c->kind != PY_TUPLE && c->kind != PY_LIST) || k < 0 || (size_t)k >= c->n)
				return FAIL(b, f, e, "%s: the archive's constants.pkl has no such item", fn);
			return from_py(b, f, e, c->items[k], fn + 10, IN_TENSOR_CONSTANT);
		}
		if (fn && strncmp(fn, "__torch__.", 10) == 0) {
			r = mk(b, V_FUNC);
			r->s = fn;
			return r;
		}
		if (fn && strcmp(fn, "math.pi") == 0)
			return mk_float(b, 3.14159265358979323846);
		if (fn && strcmp(fn, "math.e") == 0)
			return mk_float(b, 2.71828182845904523536);
		x = eval(b, f, e->a);
		if (x->k == V_ERR)
			return x;
		if (x->k == V_OBJ)
			return get_attr(b, f, e, x, e->s);
		return FAIL(b, f, e, "attribute '%s' of %s", e->s, kind_name(x));
	}
	case TE_CALL:
		return eval_call(b, f, e);
	case TE_INDEX:
		return eval_index(b, f, e);
	case TE_TUPLE:
	case TE_LIST:
		r = mk_seq(b, e->kind == TE_TUPLE ? V_TUPLE : V_LIST, e->nitem);
		for (int i = 0; i < e->nitem; i++)
			if ((r->it[i] = eval(b, f, e->items[i]))->k == V_ERR)
				return &poison;
		return r;
	case TE_UNARY:
		x = eval(b, f, e->a);
		if (x->k == V_ERR)
			return x;
		if (e->op == 'n') {
			int t;
			return truth(b, f, e, x, &t) ? &poison : mk_bool(b, !t);
		}
		if (e->op == '-' && x->k == V_FLOAT)
			return mk_float(b, -x->f);
		if (e->op == '-' && (x->k == V_INT || x->k == V_SYM))
			return int_binary(b, f, e, TB_MUL, mk_int(b, -1), x);
		if (e->op == '+' && (x->k == V_INT || x->k == V_FLOAT))
			return x;
		if (e->op == '~' && x->k == V_INT)
			return mk_int(b, ~x->i);
		return FAIL(b, f, e, "unary '%c' on %s", e->op, kind_name(x));
	case TE_BOOL: {
		int t;
		x = eval(b, f, e->a);
		if (truth(b, f, e, x, &t))
			return &poison;
		if ((e->op == 'a' && !t) || (e->op == 'o' && t))
			return x;
		return eval(b, f, e->b);
	}
	case TE_IFEXP: {
		int t;
		x = eval(b, f, e->a);
		if (truth(b, f, e, x, &t))
			return &poison;
		return eval(b, f, t ? e->items[0] : e->b);
	}
	case TE_BINARY:
	case TE_COMPARE:
		x = eval(b, f, e->a);
		y = eval(b, f, e->b);
		return py_binary(b, f, e, e->op, x, y);
	default:
		return FAIL(b, f, e, "this expression is outside what the reader knows");
	}
}

/* ---- statements ---- */

static int
assign(Build *b, Frame *f, const TsExpr *t, TsVal *v)
{
	if (t->kind == TE_NAME) {
		env_set(b->a, f->vars, t->s, v);
		return 0;
	}
	if (t->kind == TE_TUPLE || t->kind == TE_LIST) {
		if (v->k == V_ERR) {
			for (int i = 0; i < t->nitem; i++)
				assign(b, f, t->items[i], v);
			return 0;
		}
		if ((v->k != V_TUPLE && v->k != V_LIST) || v->n != t->nitem) {
			FAIL(b, f, t, "cannot unpack %s into %d names", kind_name(v), t->nitem);
			for (int i = 0; i < t->nitem; i++)
				assign(b, f, t->items[i], &poison);
			return 0;
		}
		for (int i = 0; i < t->nitem; i++)
			assign(b, f, t->items[i], v->it[i]);
		return 0;
	}
	if (t->kind == TE_INDEX) {
		TsVal *l = eval(b, f, t->a), *i = eval(b, f, t->b);
		if (l->k == V_LIST && i->k == V_INT) {
			int64_t k = i->i < 0 ? i->i + l->n : i->i;
			if (k >= 0 && k < l->n) {
				l->it[k] = v;
				return 0;
			}
		}
		if (l->k != V_ERR && i->k != V_ERR)
			FAIL(b, f, t, "assignment into %s[%s]", kind_name(l), kind_name(i));
		return 0;
	}
	FAIL(b, f, t, "assignment to this target (module attributes are read-only here)");
	return 0;
}

/* ---- an `if` on a tensor's contents: higher_order.cond ---- */

typedef struct Saved {
	Graph *g;
	int nnode, capnode;
	Node **nodes;
} Saved;

static Graph *
sub_begin(Build *b, const char *name, Saved *sv)
{
	Graph *g = ARENA_NEW(b->a, Graph);

	g->name = fresh_name(b, name);
	g->parent = b->g;
	g->index = strmap_new(b->a, 64);
	sv->g = b->g, sv->nnode = b->nnode, sv->capnode = b->capnode, sv->nodes = b->nodes;
	b->g = g, b->nnode = b->capnode = 0, b->nodes = NULL;
	return g;
}

static void
sub_end(Build *b, Graph *g, const Saved *sv)
{
	g->nnode = b->nnode;
	g->nodes = b->nodes;
	b->g = sv->g, b->nnode = sv->nnode, b->capnode = sv->capnode, b->nodes = sv->nodes;
}

/* The values a subgraph reads from enclosing graphs, in first-use order. */
typedef struct Lift {
	int n, cap;
	Value **outer;
	StrMap *seen;
} Lift;

static int
arg_is_value(ArgKind k)
{
	return k == ARG_TENSOR || k == ARG_OPT_TENSOR || k == ARG_SYM_INT || k == ARG_SYM_BOOL ||
	       k == ARG_SYM_FLOAT;
}

static void
lift_arg(Build *b, const Graph *g, Arg *a, Lift *l, StrMap *map)
{
	char key[32];

	if (a->kind != ARG_GRAPH && !arg_is_value(a->kind) && a->n > 0 && a->u.list) {
		for (int i = 0; i < a->n; i++)
			lift_arg(b, g, &a->u.list[i], l, map);
		return;
	}
	if (!arg_is_value(a->kind) || !a->u.v || a->u.v->graph == g)
		return;
	snprintf(key, sizeof key, "%p", (void *)a->u.v);
	if (map) {              /* second pass: point at the placeholder */
		Value *ph = strmap_get(map, key);
		if (ph)
			a->u.v = ph;
		return;
	}
	if (strmap_get(l->seen, key))
		return;
	strmap_put(l->seen, arena_strdup(b->a, key), a->u.v);
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 8;
		Value **nv = ARENA_ARRAY(b->a, Value *, cap);
		if (l->n)
			memcpy(nv, l->outer, sizeof *nv * (size_t)l->n);
		l->outer = nv, l->cap = cap;
	}
	l->outer[l->n++] = a->u.v;
}

static void
lift_graph(Build *b, Graph *g, Lift *l, StrMap *map)
{
	for (int i = 0; i < g->nnode; i++)
		for (int k = 0; k < g->nodes[i]->nin; k++)
			lift_arg(b, g, &g->nodes[i]->in[k].arg, l, map);
	for (int i = 0; i < g->noutput; i++)
		lift_arg(b, g, &g->outputs[i], l, map);
}

/* Placeholders of g for the lifted values, after the first ones g has
 * (operand i is placeholder i). */
static void
lift_bind(Build *b, Graph *g, const Lift *l)
{
	StrMap *map = strmap_new(b->a, (size_t)l->n * 2 + 1);
	int first = g->ninput;
	Arg *in = ARENA_ARRAY(b->a, Arg, first + l->n + 1);

	if (first)
		memcpy(in, g->inputs, sizeof *in * (size_t)first);
	g->ninput = first + l->n;
	g->inputs = in + first;
	for (int i = 0; i < l->n; i++) {
		const Value *o = l->outer[i];
		Value *ph = ir_new_value(b->a, g, fresh_name(b, o->name), o->kind);
		char key[32];
		ph->dtype = o->dtype, ph->rank = o->rank, ph->dims = o->dims, ph->expr = o->expr;
		g->inputs[i].kind = o->kind == VAL_TENSOR ? ARG_TENSOR : ARG_SYM_INT;
		g->inputs[i].u.v = ph;
		snprintf(key, sizeof key, "%p", (const void *)o);
		strmap_put(map, arena_strdup(b->a, key), ph);
	}
	g->inputs = in;
	lift_graph(b, g, NULL, map);
}

/* A higher-order node (cond, while_loop): four positional arguments, as
 * torch writes them. */
static Node *
hop_node(Build *b, Frame *f, const char *op, uint32_t ofs)
{
	Node *n = new_node(b, op, f->code, ofs);

	n->nin = 4;
	n->in = ARENA_ARRAY(b->a, NamedArg, 4);
	for (int i = 0; i < 4; i++)
		n->in[i].name = "", n->in[i].kind = 1;
	return n;
}

static Arg
graph_arg(Graph *g)
{
	Arg a = {0};

	a.kind = ARG_GRAPH;
	a.u.g = g;
	return a;
}

/* A list of values (a HOP's operands). */
static Arg
values_arg(Build *b, int n, Value *const *v)
{
	Arg a = {0};

	a.kind = ARG_TENSORS;
	a.n = n;
	a.u.list = ARENA_ARRAY(b->a, Arg, n + 1);
	for (int i = 0; i < n; i++)
		a.u.list[i] = value_arg(v[i]);
	return a;
}

static int
is_number(const TsVal *v)
{
	return (v->k == V_INT || v->k == V_FLOAT || v->k == V_BOOL) && !v->numtensor;
}

static int
same_number(const TsVal *x, const TsVal *y)
{
	return is_number(x) && is_number(y) && x->k == y->k && num(x) == num(y);
}

/* A Python number read from a tensor at run time: the 0-d tensor v. */
static TsVal *
data_scalar(Build *b, Value *v)
{
	TsVal *r = mk(b, V_TENSOR);

	r->v = v;
	r->numtensor = NT_DATA;
	return r;
}

static int
exec_if_tensor(Build *b, Frame *f, const TsStmt *s, TsVal *cv)
{
	Env *pre = f->vars, *et = env_copy(b->a, pre), *ef = env_copy(b->a, pre);
	Saved sv;
	Graph *tg, *fg;
	int rt, rf, nout = 0, cap;
	const char **names;
	TsVal **vt, **vf;
	Lift l = {0};
	Value *pred = cv->v;
	Node *n;

	if (pred->dtype != DT_BOOL || pred->rank != 0) {
		TsVal x = *cv, *zero = mk_int(b, 0), *args[2], *r;
		x.numtensor = NT_NONE;
		args[0] = &x, args[1] = zero;
		if (pred->rank != 0) {
			FAIL(b, f, s->value, "a condition on a tensor of rank %d (torch needs one element)", pred->rank);
			return 0;
		}
		r = call_op(b, f, s->value, "aten", "ne", 2, args, 0, NULL, NULL);
		if (r->k != V_TENSOR)
			return 0;
		pred = r->v;
	}
	tg = sub_begin(b, "true_graph", &sv);
	f->vars = et;
	rt = exec_body(b, f, s->body, s->nbody);
	sub_end(b, tg, &sv);
	fg = sub_begin(b, "false_graph", &sv);
	f->vars = ef;
	rf = exec_body(b, f, s->orelse, s->norelse);
	sub_end(b, fg, &sv);
	f->vars = pre;
	if (rt || rf) {
		FAIL(b, f, s->value, "return, break or continue inside an `if` on a tensor's contents is not supported yet");
		return 0;
	}
	cap = et->n + ef->n;
	names = ARENA_ARRAY(b->a, const char *, cap + 1);
	vt = ARENA_ARRAY(b->a, TsVal *, cap + 1);
	vf = ARENA_ARRAY(b->a, TsVal *, cap + 1);
	for (int i = 0; i < et->n; i++) {
		const char *name = et->names[i];
		TsVal *x = et->vals[i], *y = env_get(ef, name), *z = env_get(pre, name);
		if (!y || (x == z && y == z))
			continue;
		if (x->k == V_ERR || y->k == V_ERR) {
			env_set(b->a, pre, name, &poison);
			continue;
		}
		if ((is_number(x) || is_number(y)) && (x->k == V_TENSOR || y->k == V_TENSOR || !same_number(x, y))) {
			/* a Python number that differs between the branches: a 0-d tensor */
			DType dt = x->k == V_TENSOR ? x->v->dtype : y->k == V_TENSOR ? y->v->dtype
			           : x->k == V_FLOAT || y->k == V_FLOAT ? DT_FLOAT64
			           : x->k == V_BOOL && y->k == V_BOOL ? DT_BOOL : DT_INT64;
			if (is_number(x))
				x = data_scalar(b, number_tensor_as(b, x, dt));
			if (is_number(y))
				y = data_scalar(b, number_tensor_as(b, y, dt));
		}
		if (x->k == V_TENSOR && y->k == V_TENSOR) {
			if (x->v->dtype != y->v->dtype || x->v->rank != y->v->rank) {
				FAIL(b, f, s->value, "'%s' is %s[rank %d] in one branch and %s[rank %d] in the other",
				     name, dtype_name(x->v->dtype), x->v->rank, dtype_name(y->v->dtype), y->v->rank);
				env_set(b->a, pre, name, &poison);
				continue;
			}
			names[nout] = name, vt[nout] = x, vf[nout] = y, nout++;
			continue;
		}
		if (x->k == y->k && (x->k == V_INT || x->k == V_BOOL) && x->i == y->i) {
			env_set(b->a, pre, name, x);
			continue;
		}
		if (x->k == V_NONE && y->k == V_NONE) {
			env_set(b->a, pre, name, x);
			continue;
		}
		FAIL(b, f, s->value, "'%s' gets %s in one branch and %s in the other: only tensors may differ "
		     "between the branches of an `if` on a tensor", name, kind_name(x), kind_name(y));
		env_set(b->a, pre, name, &poison);
	}
	tg->noutput = fg->noutput = nout;
	tg->outputs = ARENA_ARRAY(b->a, Arg, nout + 1);
	fg->outputs = ARENA_ARRAY(b->a, Arg, nout + 1);
	for (int i = 0; i < nout; i++) {
		tg->outputs[i] = value_arg(vt[i]->v);
		fg->outputs[i] = value_arg(vf[i]->v);
	}
	l.seen = strmap_new(b->a, 16);
	lift_graph(b, tg, &l, NULL);
	lift_graph(b, fg, &l, NULL);
	lift_bind(b, tg, &l);
	lift_bind(b, fg, &l);
	n = hop_node(b, f, "higher_order.cond", s->ofs);
	n->in[0].arg = value_arg(pred);
	n->in[1].arg = graph_arg(tg);
	n->in[2].arg = graph_arg(fg);
	n->in[3].arg = values_arg(b, l.n, l.outer);
	n->nout = nout;
	n->out = ARENA_ARRAY(b->a, Arg, nout + 1);
	for (int i = 0; i < nout; i++) {
		const Value *x = vt[i]->v, *y = vf[i]->v;
		Value *v = ir_new_value(b->a, b->g, fresh_name(b, names[i]), VAL_TENSOR);
		TsVal *tv = mk(b, V_TENSOR);
		v->dtype = x->dtype, v->rank = x->rank, v->def = n;
		v->dims = ARENA_ARRAY(b->a, Dim, x->rank + 1);
		for (int k = 0; k < x->rank; k++) {
			v->dims[k] = x->dims[k];
			if (!(x->dims[k].e ? y->dims[k].e && sym_equal(x->dims[k].e, y->dims[k].e)
			                   : !y->dims[k].e && x->dims[k].v == y->dims[k].v)) {
				FAIL(b, f, s->value, "'%s' has a different size at dim %d in each branch of an `if` on a "
				     "tensor (not supported yet)", names[i], k);
				break;
			}
		}
		n->out[i] = value_arg(v);
		tv->v = v;
		tv->numtensor = vt[i]->numtensor == NT_DATA || vf[i]->numtensor == NT_DATA ? NT_DATA : NT_NONE;
		env_set(b->a, pre, names[i], tv);
		if (i == 0)
			n->name = v->name;
	}
	if (!nout)
		n->name = fresh_name(b, "cond");
	push_node(b, n);
	return 0;
}

/* ---- loops whose trip count is not known now: higher_order.while_loop ---- */

/* The names a block assigns, nested blocks included, in order. */
static void
assigned_names(Build *b, const TsExpr *t, Env *out)
{
	if (!t)
		return;
	if (t->kind == TE_NAME) {
		if (!env_get(out, t->s))
			env_set(b->a, out, t->s, &none_val);
	} else if (t->kind == TE_TUPLE || t->kind == TE_LIST) {
		for (int i = 0; i < t->nitem; i++)
			assigned_names(b, t->items[i], out);
	}
}

static void
assigned_in(Build *b, TsStmt *const *body, int n, Env *out)
{
	for (int i = 0; i < n; i++) {
		const TsStmt *s = body[i];
		if (s->kind == TS_ASSIGN || s->kind == TS_AUGASSIGN || s->kind == TS_ANNASSIGN || s->kind == TS_FOR)
			assigned_names(b, s->target, out);
		assigned_in(b, s->body, s->nbody, out);
		assigned_in(b, s->orelse, s->norelse, out);
	}
}

/* A placeholder of g typed like v, as the TsVal a loop body reads. */
static TsVal *
placeholder(Build *b, Graph *g, const char *base, const TsVal *like)
{
	Value *ph = ir_new_value(b->a, g, fresh_name(b, base), VAL_TENSOR);
	TsVal *r = mk(b, V_TENSOR);
	Arg *in = ARENA_ARRAY(b->a, Arg, g->ninput + 2);

	ph->dtype = like->v->dtype, ph->rank = like->v->rank, ph->dims = like->v->dims;
	if (g->ninput)
		memcpy(in, g->inputs, sizeof *in * (size_t)g->ninput);
	in[g->ninput++] = value_arg(ph);
	g->inputs = in;
	r->v = ph;
	r->numtensor = like->numtensor;
	return r;
}

/* A 0-d bool tensor of a condition value (ne(x, 0) when x is not bool). */
static Value *
bool_pred(Build *b, Frame *f, const TsExpr *at, const TsVal *cv)
{
	TsVal x = *cv, *args[2], *r;

	if (cv->k != V_TENSOR)
		return NULL;
	if (cv->v->rank != 0) {
		FAIL(b, f, at, "a condition on a tensor of rank %d (torch needs one element)", cv->v->rank);
		return NULL;
	}
	if (cv->v->dtype == DT_BOOL)
		return cv->v;
	x.numtensor = NT_NONE;
	args[0] = &x, args[1] = mk_int(b, 0);
	r = call_op(b, f, at, "aten", "ne", 2, args, 0, NULL, NULL);
	return r->k == V_TENSOR ? r->v : NULL;
}

static TsVal *
op2(Build *b, Frame *f, const TsExpr *at, const char *name, TsVal *x, TsVal *y)
{
	TsVal *args[2] = {x, y};
	return call_op(b, f, at, "aten", name, 2, args, 0, NULL, NULL);
}

/* `for target in range(count)` (count a dynamic size or a tensor's value)
 * or `while cond` (cond read from a tensor): carried values are the
 * variables the body assigns that exist before it; a range loop carries
 * its counter first. */
static int
exec_loop(Build *b, Frame *f, const TsStmt *s, TsVal *count)
{
	Env *pre = f->vars, *asg = env_new(b->a, 16), *eb, *ec;
	int nc = 0, rc, range = count != NULL;
	const char **cn;
	TsVal **init, *counter0 = NULL, *limit = NULL, *cv = NULL;
	Saved sv;
	Graph *cg, *bg;
	Lift l = {0};
	Node *n;
	Value *pred;

	assigned_in(b, s->body, s->nbody, asg);
	if (range) {
		TsVal *sz = mk_seq(b, V_LIST, 0), *kw[1] = {mk_int(b, 4)};
		const char *kwn[1] = {"dtype"};
		TsVal *cnt = arena_dup(b->a, count, sizeof *count);
		cnt->numtensor = NT_NONE;
		counter0 = call_op(b, f, s->value, "aten", "zeros", 1, &sz, 1, kwn, kw);
		limit = cnt->k == V_TENSOR ? cnt : mk(b, V_TENSOR);
		if (cnt->k == V_SYM && !(limit->v = emit_scalar_tensor(b, f, s->value, cnt)))
			return 0;
		if (counter0->k != V_TENSOR)
			return 0;
	}
	cn = ARENA_ARRAY(b->a, const char *, asg->n + 2);
	init = ARENA_ARRAY(b->a, TsVal *, asg->n + 2);
	if (range)
		cn[nc] = "i", init[nc++] = counter0;
	for (int i = 0; i < asg->n; i++) {
		TsVal *v = env_get(pre, asg->names[i]);
		if (!v || (range && s->target->kind == TE_NAME && strcmp(asg->names[i], s->target->s) == 0))
			continue;
		if (is_number(v))       /* a Python number the body changes: carried as a 0-d tensor */
			v = data_scalar(b, number_tensor(b, v));
		if (v->k == V_TENSOR)
			cn[nc] = asg->names[i], init[nc++] = v;
	}
	/* the condition graph */
	cg = sub_begin(b, "while_loop_cond_graph", &sv);
	ec = env_copy(b->a, pre);
	for (int i = 0; i < nc; i++) {
		TsVal *ph = placeholder(b, cg, cn[i], init[i]);
		if (!(range && i == 0))
			env_set(b->a, ec, cn[i], ph);
		else
			cv = ph;
	}
	f->vars = ec;
	if (range) {
		cv = op2(b, f, s->value, "lt", cv, limit);
	} else {
		cv = eval(b, f, s->value);
	}
	pred = bool_pred(b, f, s->value, cv);
	sub_end(b, cg, &sv);
	f->vars = pre;
	if (!pred)
		return 0;
	cg->noutput = 1;
	cg->outputs = ARENA_NEW(b->a, Arg);
	cg->outputs[0] = value_arg(pred);
	/* the body */
	bg = sub_begin(b, "while_loop_body_graph", &sv);
	eb = env_copy(b->a, pre);
	{
		TsVal *ctr = NULL;
		for (int i = 0; i < nc; i++) {
			TsVal *ph = placeholder(b, bg, cn[i], init[i]);
			if (range && i == 0)
				ctr = ph;
			else
				env_set(b->a, eb, cn[i], ph);
		}
		f->vars = eb;
		if (range)
			assign(b, f, s->target, ctr);
		rc = exec_body(b, f, s->body, s->nbody);
		bg->noutput = nc;
		bg->outputs = ARENA_ARRAY(b->a, Arg, nc + 1);
		if (range) {
			TsVal *next = op2(b, f, s->value, "add", ctr, mk_int(b, 1));
			if (next->k == V_TENSOR)
				bg->outputs[0] = value_arg(next->v);
		}
	}
	for (int i = range; i < nc; i++) {
		TsVal *v = env_get(eb, cn[i]);
		if (is_number(v))
			v = data_scalar(b, number_tensor_as(b, v, init[i]->v->dtype));
		if (v->k != V_TENSOR || v->v->dtype != init[i]->v->dtype || v->v->rank != init[i]->v->rank) {
			FAIL(b, f, s->value, "loop variable '%s' changes kind, dtype or rank across iterations", cn[i]);
			sub_end(b, bg, &sv);
			f->vars = pre;
			return 0;
		}
		bg->outputs[i] = value_arg(v->v);
	}
	for (int i = 0; i < asg->n; i++) {
		TsVal *v0 = env_get(pre, asg->names[i]), *v1 = env_get(eb, asg->names[i]);
		int carried = 0;
		for (int k = 0; k < nc; k++)
			carried |= strcmp(cn[k], asg->names[i]) == 0;
		if (!carried && v0 && v0->k != V_TENSOR && v1 != v0 && v1->k != V_ERR &&
		    !(v1->k == v0->k && (v0->k == V_INT || v0->k == V_BOOL) && v1->i == v0->i))
			FAIL(b, f, s->value, "'%s' (%s) changes in a loop whose trip count is not known at "
			     "conversion time: only tensors may be loop-carried", asg->names[i], kind_name(v0));
	}
	sub_end(b, bg, &sv);
	f->vars = pre;
	if (rc) {
		FAIL(b, f, s->value, "return, break or continue inside a loop whose trip count is not known at "
		     "conversion time is not supported yet");
		return 0;
	}
	for (int i = 0; i < nc; i++)
		if (!bg->outputs[i].u.v)
			return 0;
	if (!nc) {
		FAIL(b, f, s->value, "the loop's body changes nothing its condition reads: it never ends, or never runs");
		return 0;
	}
	l.seen = strmap_new(b->a, 16);
	lift_graph(b, cg, &l, NULL);
	lift_graph(b, bg, &l, NULL);
	lift_bind(b, cg, &l);
	lift_bind(b, bg, &l);
	n = hop_node(b, f, "higher_order.while_loop", s->ofs);
	n->name = fresh_name(b, "while_loop");
	n->in[0].arg = graph_arg(cg);
	n->in[1].arg = graph_arg(bg);
	{
		Value **iv = ARENA_ARRAY(b->a, Value *, nc + 1);
		for (int i = 0; i < nc; i++)
			iv[i] = init[i]->v;
		n->in[2].arg = values_arg(b, nc, iv);
	}
	n->in[3].arg = values_arg(b, l.n, l.outer);
	n->nout = nc;
	n->out = ARENA_ARRAY(b->a, Arg, nc + 1);
	for (int i = 0; i < nc; i++) {
		const Value *x = init[i]->v, *y = bg->outputs[i].u.v;
		Value *v = ir_new_value(b->a, b->g, fresh_name(b, cn[i]), VAL_TENSOR);
		TsVal *tv = mk(b, V_TENSOR);
		v->dtype = x->dtype, v->rank = x->rank, v->dims = x->dims, v->def = n;
		for (int k = 0; k < x->rank; k++)
			if (!(x->dims[k].e ? y->dims[k].e && sym_equal(x->dims[k].e, y->dims[k].e)
			                   : !y->dims[k].e && x->dims[k].v == y->dims[k].v)) {
				FAIL(b, f, s->value, "loop variable '%s' changes its size at dim %d across iterations "
				     "(not supported yet)", cn[i], k);
				break;
			}
		n->out[i] = value_arg(v);
		tv->v = v;
		tv->numtensor = init[i]->numtensor;
		if (!(range && i == 0))
			env_set(b->a, pre, cn[i], tv);
	}
	push_node(b, n);
	return 0;
}

/* 0: go on; 1: returned; 2: break; 3: continue; -1 never (errors poison). */
static int
exec_stmt(Build *b, Frame *f, const TsStmt *s)
{
	TsVal *v;
	int t;

	switch (s->kind) {
	case TS_EXPR:
		eval(b, f, s->value);
		return 0;
	case TS_ASSIGN:
		return assign(b, f, s->target, eval(b, f, s->value));
	case TS_ANNASSIGN:
		if (s->value)
			assign(b, f, s->target, eval(b, f, s->value));
		return 0;
	case TS_AUGASSIGN: {
		TsExpr bin = *s->value;
		bin.kind = TE_BINARY;
		bin.op = s->op;
		bin.a = s->target;
		bin.b = s->value;
		return assign(b, f, s->target, eval(b, f, &bin));
	}
	case TS_RETURN:
		f->ret = s->value ? eval(b, f, s->value) : &none_val;
		return 1;
	case TS_IF:
		v = eval(b, f, s->value);
		if (v->k == V_TENSOR)
			return exec_if_tensor(b, f, s, v);
		if (truth(b, f, s->value, v, &t))
			return 0;
		return t ? exec_body(b, f, s->body, s->nbody) : exec_body(b, f, s->orelse, s->norelse);
	case TS_FOR:
		if (s->value->kind == TE_CALL && s->value->a->kind == TE_NAME && strcmp(s->value->a->s, "range") == 0 &&
		    s->value->nitem == 1) {
			TsVal *cnt = eval(b, f, s->value->items[0]);
			if (cnt->k == V_SYM || cnt->k == V_TENSOR)
				return exec_loop(b, f, s, cnt);
		}
		v = eval(b, f, s->value);
		if (v->k == V_ERR)
			return 0;
		if (v->k != V_LIST && v->k != V_TUPLE) {
			FAIL(b, f, s->value, "a loop over %s is not supported yet", kind_name(v));
			return 0;
		}
		for (int i = 0; i < v->n; i++) {
			int rc;
			if (++b->unrolled > MAX_UNROLL) {
				FAIL(b, f, s->value, "loops unroll to more than %d iterations", MAX_UNROLL);
				return 0;
			}
			assign(b, f, s->target, v->it[i]);
			rc = exec_body(b, f, s->body, s->nbody);
			if (rc == 1)
				return 1;
			if (rc == 2)
				break;
			if (b->nerr > 100)
				return 0;
		}
		return 0;
	case TS_WHILE:
		for (;;) {
			int rc;
			v = eval(b, f, s->value);
			if (v->k == V_TENSOR)
				return exec_loop(b, f, s, NULL);
			if (truth(b, f, s->value, v, &t) || !t)
				return 0;
			if (++b->unrolled > MAX_UNROLL) {
				FAIL(b, f, s->value, "loops unroll to more than %d iterations", MAX_UNROLL);
				return 0;
			}
			rc = exec_body(b, f, s->body, s->nbody);
			if (rc == 1)
				return 1;
			if (rc == 2)
				return 0;
		}
	case TS_PASS:
		return 0;
	case TS_BREAK:
		return 2;
	case TS_CONTINUE:
		return 3;
	case TS_RAISE:
		fail_at(b, f->code, s->ofs, s->line, s->col, YE_TS_UNSUPPORTED,
		        "the code raises an exception on this path (with the given inputs)");
		return 1;
	case TS_ASSERT:
		v = eval(b, f, s->value);
		if (v->k == V_BOOL && !v->i)
			FAIL(b, f, s->value, "assertion fails with the given inputs");
		return 0;
	case TS_DEL:
		return 0;
	case TS_WITH:           /* torch.no_grad() and the like: nothing to ONNX */
		return exec_body(b, f, s->body, s->nbody);
	case TS_DEF:
		fail_at(b, f->code, s->ofs, s->line, s->col, YE_TS_UNSUPPORTED,
		        "a nested function (torch.jit.fork) is not supported yet");
		return 0;
	}
	return 0;
}

static int
exec_body(Build *b, Frame *f, TsStmt *const *body, int n)
{
	for (int i = 0; i < n; i++) {
		int rc = exec_stmt(b, f, body[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- the program ---- */

/* The graph outputs: forward's result flattened (tuples and lists). */
static int
flatten_out(Build *b, const TsVal *v, Arg *out, int max, int *n)
{
	if (v->k == V_TUPLE || v->k == V_LIST) {
		for (int i = 0; i < v->n; i++)
			if (flatten_out(b, v->it[i], out, max, n))
				return -1;
		return 0;
	}
	if (*n >= max)
		return -1;
	if (v->k == V_TENSOR) {
		out[*n].kind = ARG_TENSOR;
		out[*n].u.v = v->v;
	} else if (v->k == V_SYM) {
		out[*n].kind = ARG_SYM_INT;
		out[*n].u.v = v->v;
	} else if (v->k == V_INT || v->k == V_BOOL) {
		out[*n].kind = v->k == V_INT ? ARG_INT : ARG_BOOL;
		out[*n].u.i = v->i;
	} else if (v->k == V_FLOAT) {
		out[*n].kind = ARG_FLOAT;
		out[*n].u.f = v->f;
	} else {
		out[*n].kind = ARG_NONE;
	}
	(*n)++;
	return 0;
}

static int
count_out(const TsVal *v)
{
	int n = 0;

	if (v->k != V_TUPLE && v->k != V_LIST)
		return 1;
	for (int i = 0; i < v->n; i++)
		n += count_out(v->it[i]);
	return n;
}

static const char *
inputs_snippet(Build *b, const TsDef *fwd)
{
	char *s = arena_printf(b->a, "\n  inputs:                 # forward's tensor arguments, in order");

	for (int i = 1; i < fwd->nparam; i++)
		s = arena_printf(b->a, "%s\n    - {dtype: float32, shape: [batch, ...]}   # %s", s, fwd->params[i].name);
	return s;
}

static const char *
def_signature(Build *b, const TsDef *fwd)
{
	const char *s = "";

	for (int i = 1; i < fwd->nparam; i++)
		s = arena_printf(b->a, "%s%s%s", s, i > 1 ? ", " : "", fwd->params[i].name);
	return s;
}

int
ts_build(Program *p, const TsArchive *t, const TsInputs *in, Diag *d)
{
	Build bb = {0}, *b = &bb;
	const TsCode *code;
	const TsClass *cls;
	const TsDef *fwd;
	Frame f = {0};
	TsVal *self, *ret, **args;
	int nargs, nout = 0;
	DiagAt at = {0};

	b->p = p, b->t = t, b->a = p->arena, b->d = d;
	b->asts = strmap_new(b->a, 16);
	b->weights = strmap_new(b->a, 64);
	b->taken = strmap_new(b->a, 256);
	b->suffix = strmap_new(b->a, 64);
	b->g = ARENA_NEW(b->a, Graph);
	b->g->name = "";
	b->g->index = strmap_new(b->a, 256);
	b->main = b->g;
	at.file = t->label;
	if (!t->root || t->root->kind != PY_CALL || !t->root->func || t->root->func->kind != PY_GLOBAL)
		return diag_report(d, YE_TS_ARCHIVE, &at, "data.pkl does not hold a module object");
	self = mk(b, V_OBJ);
	self->obj = t->root;
	self->path = "";
	cls = class_of(b, t->root, &code);
	if (b->nerr)
		return DIAG_INPUT;
	if (!cls)
		return diag_report(d, YE_TS_ARCHIVE, &at, "the module's class %s.%s is not defined in its code/ files",
		                   t->root->func->s, t->root->func->name);
	if (!(fwd = ts_method(cls, "forward")))
		return diag_report(d, YE_TS_ARCHIVE, &at, "class %s has no forward()", cls->name);
	nargs = fwd->nparam - 1;
	at.file = in && in->label ? in->label : "options";
	if (!in || in->n < 0)
		return diag_report(d, YE_TS_INPUTS, &at,
		                   "%s: a TorchScript file stores no input shapes: forward(%s) takes %d argument%s; "
		                   "give them in the options file (-c) as `inputs:`, e.g.%s", t->label,
		                   def_signature(b, fwd), nargs, nargs == 1 ? "" : "s", inputs_snippet(b, fwd));
	if (in->n != nargs && !(in->n > 0 && in->in[0].name))
		return diag_report(d, YE_TS_INPUTS, &at, "`inputs:` gives %d tensor%s but forward(%s) of %s takes %d",
		                   in->n, in->n == 1 ? "" : "s", def_signature(b, fwd), t->label, nargs);
	f.vars = env_new(b->a, 16);
	f.code = code;
	env_set(b->a, f.vars, fwd->params[0].name, self);
	args = ARENA_ARRAY(b->a, TsVal *, nargs + 1);
	p->nforward_arg = nargs;
	p->forward_arg_names = ARENA_ARRAY(b->a, const char *, nargs + 1);
	for (int i = 0; i < nargs; i++) {
		const char *name = fwd->params[i + 1].name;
		const TsInput *ti = NULL;
		Value *v;
		if (in->n > 0 && in->in[0].name) {
			for (int k = 0; k < in->n; k++)
				if (strcmp(in->in[k].name, name) == 0)
					ti = &in->in[k];
		} else {
			ti = &in->in[i];
		}
		p->forward_arg_names[i] = name;
		if (!ti)
			return diag_report(d, YE_TS_INPUTS, &at, "`inputs:` gives no entry for argument '%s' of forward(%s) of %s",
			                   name, def_signature(b, fwd), t->label);
		v = add_input(b, name, IN_USER_INPUT, NULL);
		v->dtype = ti->dtype;
		v->rank = ti->rank;
		v->dims = ARENA_ARRAY(b->a, Dim, ti->rank + 1);
		for (int k = 0; k < ti->rank; k++) {
			if (ti->names && ti->names[k]) {
				SymExpr *e = ARENA_NEW(b->a, SymExpr);
				e->op = SYM_SYMBOL;
				e->name = ti->names[k];
				v->dims[k].e = e;
				v->dims[k].v = -1;
			} else {
				v->dims[k].v = ti->dims[k];
			}
		}
		args[i] = mk(b, V_TENSOR);
		args[i]->v = v;
		env_set(b->a, f.vars, name, args[i]);
	}
	if (in->n > 0 && in->in[0].name)
		for (int k = 0; k < in->n; k++) {
			int found = 0;
			for (int i = 0; i < nargs; i++)
				found |= strcmp(in->in[k].name, fwd->params[i + 1].name) == 0;
			if (!found) {
				DiagAt at2 = at;
				at2.line = in->in[k].line;
				at2.column = in->in[k].col;
				return diag_report(d, YE_TS_INPUTS, &at2, "forward(%s) of %s has no argument '%s'",
				                   def_signature(b, fwd), t->label, in->in[k].name);
			}
		}
	b->site[0].code = code;
	b->site[0].ofs = fwd->ofs;
	b->site[0].fn = "forward";
	b->site[0].path = "";
	b->site[0].cls = NULL;
	b->nsite = 1;
	if (exec_body(b, &f, fwd->body, fwd->nbody) < 0 || !f.ret)
		f.ret = f.ret ? f.ret : &none_val;
	b->nsite = 0;
	if (b->nerr)
		return d->code ? d->code : DIAG_INPUT;
	ret = f.ret;
	b->g->noutput = count_out(ret);
	b->g->outputs = ARENA_ARRAY(b->a, Arg, b->g->noutput + 1);
	flatten_out(b, ret, b->g->outputs, b->g->noutput, &nout);
	b->g->is_single_tensor_return = ret->k == V_TENSOR;
	b->g->ninput = b->ninput;
	b->g->inputs = b->inputs;
	b->g->nnode = b->nnode;
	b->g->nodes = b->nodes;
	p->graph = b->g;
	p->ninput_spec = b->ninput;
	p->input_specs = b->specs;
	for (int i = 0; i < b->ninput; i++)
		b->specs[i].arg = &b->g->inputs[i];
	p->noutput_spec = b->g->noutput;
	p->output_specs = ARENA_ARRAY(b->a, OutputSpec, b->g->noutput + 1);
	for (int i = 0; i < b->g->noutput; i++) {
		p->output_specs[i].kind = OUT_USER_OUTPUT;
		p->output_specs[i].arg = &b->g->outputs[i];
	}
	return 0;
}

int
ts_load(Program *p, Zip *z, const TsInputs *in, Diag *d)
{
	TsArchive *t = ARENA_NEW(p->arena, TsArchive);
	int rc;

	if ((rc = ts_archive_read(t, z, p->arena, d)))
		return rc;
	p->path = z->label;
	p->zip = z;
	p->container = arena_printf(p->arena, "TorchScript archive (%s)", t->producer);
	p->json_entry = "code/";
	p->torch_version = t->producer;
	p->torchscript_format = t->format;
	p->producer = "torch.jit.save";
	return ts_build(p, t, in, d);
}
