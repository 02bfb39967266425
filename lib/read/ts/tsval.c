/* tsval.c: the builder's values (TsVal) and variables (Env), its errors
 * (at the code file's line and the user's source line), value names,
 * graph inputs and nodes, SymInt arithmetic, and the module tree's
 * objects, attributes and classes (internal.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

TsVal tb_poison = {.k = V_ERR};
TsVal tb_none = {.k = V_NONE};

Env *
tb_env_new(Arena *a, int cap)
{
	Env *e = ARENA_NEW(a, Env);

	e->cap = cap < 8 ? 8 : cap;
	e->names = ARENA_ARRAY(a, const char *, e->cap);
	e->vals = ARENA_ARRAY(a, TsVal *, e->cap);
	e->slot = strmap_new(a, (size_t)e->cap);
	return e;
}

TsVal *
tb_env_get(const Env *e, const char *name)
{
	uintptr_t k = (uintptr_t)strmap_get(e->slot, name);
	return k ? e->vals[k - 1] : NULL;
}

void
tb_env_set(Arena *a, Env *e, const char *name, TsVal *v)
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

Env *
tb_env_copy(Arena *a, const Env *e)
{
	Env *c = tb_env_new(a, e->n * 2);

	for (int i = 0; i < e->n; i++)
		tb_env_set(a, c, e->names[i], e->vals[i]);
	return c;
}

/* ---- values ---- */

TsVal *
tb_mk(Build *b, VKind k)
{
	TsVal *v = ARENA_NEW(b->a, TsVal);
	v->k = k;
	return v;
}

TsVal *
tb_mk_int(Build *b, int64_t i)
{
	TsVal *v = tb_mk(b, V_INT);
	v->i = i;
	return v;
}

TsVal *
tb_mk_bool(Build *b, int i)
{
	TsVal *v = tb_mk(b, V_BOOL);
	v->i = !!i;
	return v;
}

TsVal *
tb_mk_float(Build *b, double x)
{
	TsVal *v = tb_mk(b, V_FLOAT);
	v->f = x;
	return v;
}

TsVal *
tb_mk_seq(Build *b, VKind k, int n)
{
	TsVal *v = tb_mk(b, k);
	v->n = n;
	v->it = ARENA_ARRAY(b->a, TsVal *, n + 1);
	return v;
}

/* The slot of key in the dict d (a str, int or bool key), or -1. */
int
tb_dict_find(const TsVal *d, const TsVal *key)
{
	for (int i = 0; i < d->n; i++) {
		const TsVal *k = d->keys[i];
		if (k->k == V_STR && key->k == V_STR ? strcmp(k->s, key->s) == 0
		    : (k->k == V_INT || k->k == V_BOOL) && (key->k == V_INT || key->k == V_BOOL) && k->i == key->i)
			return i;
	}
	return -1;
}

/* d[key] = v: replaces the value, or appends the pair. */
void
tb_dict_set(Build *b, TsVal *d, TsVal *key, TsVal *v)
{
	int at = tb_dict_find(d, key);

	if (at < 0) {
		TsVal **it = ARENA_ARRAY(b->a, TsVal *, d->n + 2), **keys = ARENA_ARRAY(b->a, TsVal *, d->n + 2);
		memcpy(it, d->it, sizeof *it * (size_t)d->n);
		memcpy(keys, d->keys, sizeof *keys * (size_t)d->n);
		d->it = it, d->keys = keys, at = d->n++;
	}
	d->keys[at] = key, d->it[at] = v;
}

const char *
tb_kind_name(const TsVal *v)
{
	static const char *const names[] = {
		"an earlier error", "None", "bool", "int", "float", "str", "int", "Tensor",
		"list", "tuple", "module", "device", "uninitialized", "function", "dict",
	};
	return names[v->k];
}

double
tb_num(const TsVal *v)
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

TsVal *
tb_fail_at(Build *b, const TsCode *code, uint32_t ofs, uint32_t line, uint32_t col, DiagCode dc,
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
	return &tb_poison;
}

/* ---- names and graph ---- */

/* The longest base of a value name: names stay readable, and the
 * suffixes that make them unique fit after it. */
#define NAME_MAX_BASE 200

const char *
tb_fresh_name(Build *b, const char *base)
{
	const char *s;

	if (!base || !*base)
		base = "v";
	/* a long base (nested modules, an attribute naming its own module)
	 * is cut at NAME_MAX_BASE characters, and the suffix comes after the
	 * cut: every k gives another name, so the loop ends */
	if (strlen(base) > NAME_MAX_BASE)
		base = arena_strndup(b->a, base, NAME_MAX_BASE);
	if (!strmap_get(b->taken, base)) {
		s = arena_strdup(b->a, base);
		strmap_put(b->taken, s, (void *)s);
		return s;
	}
	/* the next suffix to try is kept per base: names stay linear in number */
	for (uintptr_t k = (uintptr_t)strmap_get(b->suffix, base) + 1;; k++) {
		s = arena_printf(b->a, "%s_%lu", base, (unsigned long)k);
		if (!strmap_get(b->taken, s)) {
			strmap_put(b->taken, s, (void *)s);
			strmap_put(b->suffix, arena_strdup(b->a, base), (void *)k);
			return s;
		}
	}
}

/* A placeholder of the main graph. */
Value *
tb_add_input(Build *b, const char *name, InputKind kind, const char *target)
{
	Value *v = ir_new_value(b->a, b->top, tb_fresh_name(b, name), VAL_TENSOR);

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

void
tb_set_meta(Value *v, const TensorData *t, Arena *a)
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
		v = tb_add_input(b, name, kind, arena_strdup(b->a, fqn));
		tb_set_meta(v, o->tensor, b->a);
		strmap_put(b->weights, arena_strdup(b->a, key), v);
	}
	r = tb_mk(b, V_TENSOR);
	r->v = v;
	return r;
}

void
tb_push_node(Build *b, Node *n)
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

Node *
tb_new_node(Build *b, const char *op, const TsCode *code, uint32_t ofs)
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
TsVal *
tb_sym_node(Build *b, Frame *f, const TsExpr *at, const char *op, int nin, Arg *in, SymExpr *e)
{
	Node *n = tb_new_node(b, op, f->code, at->ofs);
	Value *v;
	TsVal *r;

	n->nin = nin;
	n->in = ARENA_ARRAY(b->a, NamedArg, nin + 1);
	for (int i = 0; i < nin; i++) {
		n->in[i].name = "";
		n->in[i].kind = 1;
		n->in[i].arg = in[i];
	}
	v = ir_new_value(b->a, b->g, tb_fresh_name(b, "sym_size_int"), VAL_SYM_INT);
	v->expr = e;
	v->def = n;
	n->nout = 1;
	n->out = ARENA_NEW(b->a, Arg);
	n->out->kind = ARG_SYM_INT;
	n->out->u.v = v;
	n->name = v->name;
	tb_push_node(b, n);
	r = tb_mk(b, V_SYM);
	r->v = v;
	return r;
}

Arg
tb_int_arg(const TsVal *v)
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
TsVal *
tb_size_of(Build *b, Frame *f, const TsExpr *at, const Value *x, int64_t dim)
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
		return tb_mk_int(b, dd->v);
	in[0].kind = ARG_TENSOR;
	in[0].u.v = (Value *)x;
	in[1].kind = ARG_INT;
	in[1].u.i = dim;
	r = tb_sym_node(b, f, at, "aten.sym_size.int", 2, in, dd->e);
	r->v->def->in[0].name = "self";
	r->v->def->in[1].name = "dim";
	return r;
}

/* Python int arithmetic, with SymInts as _operator nodes. */
Arg
tb_value_arg(Value *v)
{
	Arg a = {0};

	a.kind = v->kind == VAL_TENSOR ? ARG_TENSOR : ARG_SYM_INT;
	a.u.v = v;
	return a;
}

TsVal *
tb_int_binary(Build *b, Frame *f, const TsExpr *at, int op, const TsVal *x, const TsVal *y)
{
	int64_t p, q;
	static const struct { int op; const char *target; SymOp sym; } ops[] = {
		{TB_ADD, "_operator.add", SYM_ADD}, {TB_SUB, "_operator.sub", SYM_ADD},
		{TB_MUL, "_operator.mul", SYM_MUL}, {TB_FLOORDIV, "_operator.floordiv", SYM_FLOORDIV},
		{TB_MOD, "_operator.mod", SYM_PYTHONMOD},
	};

	/* TorchScript's ints are int64 (the interpreter's C++ arithmetic):
	 * +, -, * wrap modulo 2^64, computed here in uint64_t so that the
	 * wrap is not undefined behaviour; // and % round toward negative
	 * infinity as Python's do; INT64_MIN // -1 wraps to INT64_MIN (where
	 * the interpreter itself dies of SIGFPE); int ** int is a float
	 * (aten::pow.int). */
	if (sym_const(x, &p) && sym_const(y, &q)) {
		switch (op) {
		case TB_ADD: return tb_mk_int(b, (int64_t)((uint64_t)p + (uint64_t)q));
		case TB_SUB: return tb_mk_int(b, (int64_t)((uint64_t)p - (uint64_t)q));
		case TB_MUL: return tb_mk_int(b, (int64_t)((uint64_t)p * (uint64_t)q));
		case TB_FLOORDIV:
		case TB_MOD:
			if (q == 0)
				return FAIL(b, f, at, "integer division by zero (ZeroDivisionError in torch)");
			if (q == -1)
				return tb_mk_int(b, op == TB_FLOORDIV ? (int64_t)(0 - (uint64_t)p) : 0);
			{
				int64_t d = p / q, m = p % q;
				if (m != 0 && ((m < 0) != (q < 0)))
					d--, m += q;
				return tb_mk_int(b, op == TB_FLOORDIV ? d : m);
			}
		case TB_EQ: return tb_mk_bool(b, p == q);
		case TB_NE: return tb_mk_bool(b, p != q);
		case TB_LT: return tb_mk_bool(b, p < q);
		case TB_LE: return tb_mk_bool(b, p <= q);
		case TB_GT: return tb_mk_bool(b, p > q);
		case TB_GE: return tb_mk_bool(b, p >= q);
		case TB_AND: return tb_mk_int(b, p & q);
		case TB_OR: return tb_mk_int(b, p | q);
		case TB_XOR: return tb_mk_int(b, p ^ q);
		case TB_SHL: return tb_mk_int(b, q >= 0 && q < 63 ? (int64_t)((uint64_t)p << q) : 0);
		case TB_SHR: return tb_mk_int(b, q >= 0 && q < 63 ? p >> q : (p < 0 ? -1 : 0));
		case TB_POW:
			return tb_mk_float(b, pow((double)p, (double)q));
		case TB_DIV:
			return tb_mk_float(b, (double)p / (double)q);
		default:
			break;
		}
		return FAIL(b, f, at, "operator not supported on ints");
	}
	if ((op == TB_EQ || op == TB_NE) && x->k == V_SYM && y->k == V_SYM && sym_equal(x->v->expr, y->v->expr))
		return tb_mk_bool(b, op == TB_EQ);
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
				return tb_mk_int(b, c);
		}
		in[0] = tb_int_arg(x);
		in[1] = tb_int_arg(y);
		return tb_sym_node(b, f, at, ops[k].target, 2, in, e);
	}
	return FAIL(b, f, at, "this operator on a dynamic size (%s) is outside what the reader evaluates",
	            tb_kind_name(x));
}

/* ---- constants of the module tree ---- */

TsVal *
tb_from_py(Build *b, Frame *f, const TsExpr *at, const PyObj *o, const char *fqn, InputKind kind)
{
	TsVal *v;

	switch (o->kind) {
	case PY_NONE: return &tb_none;
	case PY_BOOL: return tb_mk_bool(b, (int)o->i);
	case PY_INT: return tb_mk_int(b, o->i);
	case PY_FLOAT: return tb_mk_float(b, o->f);
	case PY_STR:
		v = tb_mk(b, V_STR);
		v->s = o->s;
		return v;
	case PY_TENSOR:
		return weight(b, o, fqn, kind);
	case PY_TUPLE:
	case PY_LIST:
		v = tb_mk_seq(b, o->kind == PY_TUPLE ? V_TUPLE : V_LIST, (int)o->n);
		for (size_t i = 0; i < o->n; i++) {
			const char *sub = arena_printf(b->a, "%s.%zu", fqn, i);
			v->it[i] = tb_from_py(b, f, at, o->items[i], sub, kind);
			if (v->it[i]->k == V_ERR)
				return &tb_poison;
		}
		return v;
	case PY_CALL:
		if (o->func && o->func->kind == PY_GLOBAL && strncmp(o->func->s, "__torch__", 9) == 0) {
			v = tb_mk(b, V_OBJ);
			v->obj = o;
			v->path = fqn;
			return v;
		}
		if (o->func && py_is_global(o->func, "torch", "device") && o->args && o->args->n == 1 &&
		    o->args->items[0]->kind == PY_STR) {
			v = tb_mk(b, V_DEVICE);
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

const TsAst *
tb_ast_of(Build *b, const char *module, const TsCode **codep)
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

const TsClass *
tb_class_of(Build *b, const PyObj *obj, const TsCode **codep)
{
	const TsAst *ast = tb_ast_of(b, obj->func->s, codep);
	return ast ? ts_class(ast, obj->func->name) : NULL;
}

/* The class name users know: the module path without __torch__ and the
 * mangling ("torch.nn.modules.linear.Linear"). */
const char *
tb_class_display(Build *b, const PyObj *obj)
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
TsVal *
tb_get_attr(Build *b, Frame *f, const TsExpr *at, const TsVal *objv, const char *name)
{
	const PyObj *st = objv->obj->state, *o = NULL;
	const TsCode *code;
	const TsClass *cls = tb_class_of(b, objv->obj, &code);
	const char *fqn = *objv->path ? arena_printf(b->a, "%s.%s", objv->path, name) : name;
	InputKind kind = IN_TENSOR_CONSTANT;

	if (st && st->kind == PY_DICT)
		o = py_dict_get(st, name);
	if (!o) {
		if (cls)
			for (int i = 0; i < cls->nconst; i++)
				if (strcmp(cls->const_names[i], name) == 0)
					return b->eval(b, f, cls->const_values[i]);
		return FAIL(b, f, at, "module '%s' (%s) has no attribute '%s'",
		            *objv->path ? objv->path : "<root>", tb_class_display(b, objv->obj), name);
	}
	if (cls && in_list(cls->parameters, cls->nparameter, name))
		kind = IN_PARAMETER;
	else if (cls && in_list(cls->buffers, cls->nbuffer, name))
		kind = IN_BUFFER;
	return tb_from_py(b, f, at, o, fqn, kind);
}
