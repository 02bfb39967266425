/* tscall.c: calls in TorchScript code: builtins run now (len,
 * isinstance, range, torch.size, ...), scripted functions, module
 * methods and submodules (inlined, call_def()), and operators (tsop.c)
 * (internal.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- calls of TorchScript functions ---- */

static TsVal *
call_def(Build *b, const TsDef *def, const TsCode *code, const TsVal *self, const char *path,
         const char *cls, int npos, TsVal **pos, int nkw, const char *const *kwn, TsVal **kw,
         const TsExpr *at, const TsCode *at_code)
{
	Frame nf = {0};
	int first = self ? 1 : 0;

	if (b->nsite >= MAX_DEPTH - 1)
		return tb_fail_at(b, at_code, at->ofs, at->line, at->col, YE_TS_UNSUPPORTED,
		               "calls nested deeper than %d (recursion?)", MAX_DEPTH);
	nf.vars = tb_env_new(b->a, 16);
	nf.code = code;
	if (self && def->nparam > 0)
		tb_env_set(b->a, nf.vars, def->params[0].name, (TsVal *)self);
	if (npos > def->nparam - first)
		return tb_fail_at(b, at_code, at->ofs, at->line, at->col, YE_TS_UNSUPPORTED,
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
			Frame df = {.vars = tb_env_new(b->a, 1), .code = code};
			v = b->eval(b, &df, pa->def);
		}
		if (!v)
			return tb_fail_at(b, at_code, at->ofs, at->line, at->col, YE_TS_UNSUPPORTED,
			               "%s(): no value for argument '%s'", def->name, pa->name);
		tb_env_set(b->a, nf.vars, pa->name, v);
	}
	b->site[b->nsite].code = at_code;
	b->site[b->nsite].ofs = at->ofs;
	b->site[b->nsite].fn = def->name;
	b->site[b->nsite].path = path;
	b->site[b->nsite].cls = cls;
	b->nsite++;
	if (b->exec_body(b, &nf, def->body, def->nbody) < 0)
		nf.ret = &tb_poison;
	b->nsite--;
	return nf.ret ? nf.ret : &tb_none;
}

/* ---- builtins ---- */

/* The dotted name of an attribute chain ("torch.nn.functional.relu"), or NULL. */
const char *
tb_dotted(Build *b, const TsExpr *e)
{
	if (e->kind == TE_NAME)
		return e->s;
	if (e->kind == TE_ATTR) {
		const char *l = tb_dotted(b, e->a);
		return l ? arena_printf(b->a, "%s.%s", l, e->s) : NULL;
	}
	return NULL;
}

/* int(), float(), bool() and TorchScript's implicit casts; NULL: not one. */
static TsVal *
casts(Build *b, Frame *f, const TsExpr *e, const char *fn, int npos, TsVal **pos)
{
	if ((strcmp(fn, "int") == 0 || strcmp(fn, "torch.Int") == 0 || strcmp(fn, "torch.IntImplicit") == 0 ||
	     strcmp(fn, "torch.ScalarImplicit") == 0 || strcmp(fn, "torch.FloatImplicit") == 0) && npos == 1) {
		/* TorchScript's tensor-to-number casts: a number stays one, a
		 * 0-d tensor's value becomes a data-dependent scalar */
		if (fn[0] == 't' && (pos[0]->k == V_FLOAT || pos[0]->k == V_INT) && !pos[0]->numtensor)
			return pos[0];
		if (strstr(fn, "Float") && (pos[0]->k == V_INT || pos[0]->k == V_FLOAT) )
			return tb_mk_float(b, tb_num(pos[0]));
		if (strstr(fn, "Scalar") && pos[0]->k == V_FLOAT) {
			TsVal *r = arena_dup(b->a, pos[0], sizeof *pos[0]);
			r->numtensor = NT_NONE;
			return r;
		}
		return tb_to_int(b, f, e, pos[0]);
	}
	if (strcmp(fn, "float") == 0 && npos == 1) {
		if (pos[0]->k == V_INT || pos[0]->k == V_BOOL || pos[0]->k == V_FLOAT)
			return tb_mk_float(b, tb_num(pos[0]));
		if (pos[0]->k == V_TENSOR && pos[0]->v->rank == 0)
			return tb_to_int(b, f, e, pos[0]);
		return FAIL(b, f, e, "float() of %s is outside what the reader evaluates", tb_kind_name(pos[0]));
	}
	if (strcmp(fn, "bool") == 0 && npos == 1) {
		int t;
		if (pos[0]->k == V_TENSOR) {
			/* a Python bool read from a tensor: `if` makes it a cond */
			TsVal *r = arena_dup(b->a, pos[0], sizeof *pos[0]);
			r->numtensor = NT_DATA;
			return r;
		}
		if (tb_truth(b, f, e, pos[0], &t))
			return &tb_poison;
		return tb_mk_bool(b, t);
	}
	return NULL;
}

/* len(), x.size(), x.dim(), x.numel(); NULL: not one. */
static TsVal *
sizes(Build *b, Frame *f, const TsExpr *e, const char *fn, int npos, TsVal **pos)
{
	if ((strcmp(fn, "len") == 0 || strcmp(fn, "torch.len") == 0) && npos == 1) {
		if (pos[0]->k == V_LIST || pos[0]->k == V_TUPLE || pos[0]->k == V_DICT)
			return tb_mk_int(b, pos[0]->n);
		if (pos[0]->k == V_TENSOR) {
			if (pos[0]->v->rank < 1)
				return FAIL(b, f, e, "len() of a 0-d tensor");
			return tb_size_of(b, f, e, pos[0]->v, 0);
		}
		return FAIL(b, f, e, "len() of %s", tb_kind_name(pos[0]));
	}
	if ((strcmp(fn, "torch.size") == 0 || strcmp(fn, "ops.aten.size") == 0) && npos >= 1 &&
	    pos[0]->k == V_TENSOR) {
		const Value *x = pos[0]->v;
		if (npos == 2 && (pos[1]->k == V_INT))
			return tb_size_of(b, f, e, x, pos[1]->i);
		if (npos == 1) {
			TsVal *l = tb_mk_seq(b, V_LIST, x->rank);
			for (int i = 0; i < x->rank; i++)
				if ((l->it[i] = tb_size_of(b, f, e, x, i))->k == V_ERR)
					return &tb_poison;
			return l;
		}
	}
	if (strcmp(fn, "torch.dim") == 0 && npos == 1 && pos[0]->k == V_TENSOR)
		return tb_mk_int(b, pos[0]->v->rank);
	if (strcmp(fn, "torch.numel") == 0 && npos == 1 && pos[0]->k == V_TENSOR) {
		/* the product of the sizes: a number, or SymInt arithmetic */
		TsVal *n = tb_mk_int(b, 1);
		for (int i = 0; i < pos[0]->v->rank && n->k != V_ERR; i++) {
			TsVal *s = tb_size_of(b, f, e, pos[0]->v, i);
			n = s->k == V_ERR ? s : tb_int_binary(b, f, e, TB_MUL, n, s);
		}
		return n;
	}
	return NULL;
}

/* range(): a list of ints, known now. */
static TsVal *
range_list(Build *b, Frame *f, const TsExpr *e, int npos, TsVal **pos)
{
	int64_t lo = 0, hi, st = 1, c;
	TsVal *l;
	for (int i = 0; i < npos; i++)
		if (pos[i]->k != V_INT)
			return FAIL(b, f, e, "range() over %s: loops whose trip count is not known at "
			            "conversion time are not supported yet", tb_kind_name(pos[i]));
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
	l = tb_mk_seq(b, V_LIST, (int)c);
	for (int64_t i = 0; i < c; i++)
		l->it[i] = tb_mk_int(b, lo + i * st);
	return l;
}

static TsVal *
builtin(Build *b, Frame *f, const TsExpr *e, const char *fn, int npos, TsVal **pos, int nkw,
        const char *const *kwn, TsVal **kw, int *handled)
{
	TsVal *r;

	*handled = 1;
	for (int i = 0; i < npos; i++)
		if (pos[i]->k == V_ERR)
			return &tb_poison;
	if ((r = casts(b, f, e, fn, npos, pos)) || (r = sizes(b, f, e, fn, npos, pos)))
		return r;
	if ((strcmp(fn, "annotate") == 0 || strcmp(fn, "unchecked_cast") == 0) && npos == 2)
		return pos[1];
	if (strcmp(fn, "uninitialized") == 0)
		return tb_mk(b, V_UNINIT);
	if (strcmp(fn, "ops.prim.NumToTensor") == 0 && npos == 1) {
		TsVal *r;
		if (pos[0]->k == V_TENSOR)
			return pos[0];
		r = arena_dup(b->a, pos[0], sizeof *pos[0]);
		r->numtensor = NT_SIZE;
		return r;
	}
	if (strcmp(fn, "torch.device") == 0 && npos == 1 && pos[0]->k == V_STR) {
		TsVal *r = tb_mk(b, V_DEVICE);
		r->s = pos[0]->s;
		return r;
	}
	if (strcmp(fn, "ops.prim.device") == 0 && npos == 1) {
		TsVal *r = tb_mk(b, V_DEVICE);
		r->s = "cpu";
		return r;
	}
	if (strcmp(fn, "ops.prim.dtype") == 0 && npos == 1 && pos[0]->k == V_TENSOR) {
		int code = dtype_c10(pos[0]->v->dtype);
		if (code >= 0)
			return tb_mk_int(b, code);
		return FAIL(b, f, e, "dtype %s has no TorchScript code", dtype_name(pos[0]->v->dtype));
	}
	if (strcmp(fn, "isinstance") == 0 && npos == 2 && e->nitem == 2)
		return tb_mk_bool(b, tb_isinstance_of(pos[0], e->items[1]));
	if (strcmp(fn, "range") == 0 && npos >= 1 && npos <= 3)
		return range_list(b, f, e, npos, pos);
	if (strcmp(fn, "getattr") == 0 && npos == 2 && pos[0]->k == V_OBJ && pos[1]->k == V_STR)
		return tb_get_attr(b, f, e, pos[0], pos[1]->s);
	if (strcmp(fn, "torch._set_item") == 0 && npos == 3 && pos[0]->k == V_DICT &&
	    (pos[1]->k == V_STR || pos[1]->k == V_INT || pos[1]->k == V_BOOL)) {
		tb_dict_set(b, pos[0], pos[1], pos[2]);       /* d[k] = v, as scripted code prints it */
		return &tb_none;
	}
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
		return &tb_none;
	(void)nkw, (void)kwn, (void)kw;
	*handled = 0;
	return NULL;
}

/* A scripted free function: __torch__.mod.fn(...). */
static TsVal *
call_function(Build *b, Frame *f, const TsExpr *e, const char *fn, int npos, TsVal **pos, int nkw,
              const char *const *kwn, TsVal **kw)
{
	const char *dot = strrchr(fn, '.');
	const TsCode *code;
	const TsAst *ast = tb_ast_of(b, arena_strndup(b->a, fn, (size_t)(dot - fn)), &code);
	const TsDef *def = ast ? ts_function(ast, dot + 1) : NULL;

	if (def)
		return call_def(b, def, code, NULL, "", NULL, npos, pos, nkw, kwn, kw, e, f->code);
	return FAIL(b, f, e, "function %s is not defined in the archive's code", fn);
}

TsVal *
tb_eval_call(Build *b, Frame *f, const TsExpr *e)
{
	TsVal *pos[TS_MAX_ARGS * 2], *kw[TS_MAX_ARGS * 2];
	const char *kwn[TS_MAX_ARGS * 2];
	int npos = 0, nkw = 0, handled;
	const char *fn = tb_dotted(b, e->a);
	TsVal *r;

	if (e->nitem > TS_MAX_ARGS * 2)
		return FAIL(b, f, e, "a call with %d arguments", e->nitem);
	/* annotate(T, x), isinstance(x, T), uninitialized(T): T is a type, not a value */
	if (fn && (strcmp(fn, "annotate") == 0 || strcmp(fn, "unchecked_cast") == 0) && e->nitem == 2)
		return b->eval(b, f, e->items[1]);
	if (fn && strcmp(fn, "uninitialized") == 0)
		return tb_mk(b, V_UNINIT);
	if (fn && strcmp(fn, "isinstance") == 0 && e->nitem == 2) {
		TsVal *x = b->eval(b, f, e->items[0]);
		return x->k == V_ERR ? x : tb_mk_bool(b, tb_isinstance_of(x, e->items[1]));
	}
	for (int i = 0; i < e->nitem; i++) {
		TsVal *v = b->eval(b, f, e->items[i]);
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
		TsVal *self = b->eval(b, f, e->a->a);
		if (self->k == V_ERR)
			return self;
		if (self->k == V_OBJ) {
			const TsCode *code;
			const TsClass *cls = tb_class_of(b, self->obj, &code);
			const TsDef *def = cls ? ts_method(cls, e->a->s) : NULL;
			if (!cls)
				return FAIL(b, f, e, "class %s.%s of module '%s' is not defined in the archive's code",
				            self->obj->func->s, self->obj->func->name, self->path);
			if (!def)
				return FAIL(b, f, e, "class %s has no method '%s'", cls->name, e->a->s);
			return call_def(b, def, code, self, self->path, tb_class_display(b, self->obj), npos, pos, nkw,
			                kwn, kw, e, f->code);
		}
		return FAIL(b, f, e, "method '%s' of %s", e->a->s, tb_kind_name(self));
	}
	if (!fn)
		return FAIL(b, f, e, "a call of a computed function");
	r = builtin(b, f, e, fn, npos, pos, nkw, kwn, kw, &handled);
	if (handled)
		return r;
	if (strncmp(fn, "torch.", 6) == 0 && !strchr(fn + 6, '.'))
		return tb_call_op(b, f, e, "aten", fn + 6, npos, pos, nkw, kwn, kw);
	if (strncmp(fn, "ops.", 4) == 0) {
		const char *ns = fn + 4, *dot = strchr(ns, '.');
		if (dot && !strchr(dot + 1, '.'))
			return tb_call_op(b, f, e, arena_strndup(b->a, ns, (size_t)(dot - ns)), dot + 1, npos, pos, nkw,
			               kwn, kw);
	}
	if (strncmp(fn, "torch.nn.functional.", 20) == 0 && !strchr(fn + 20, '.'))
		return tb_call_op(b, f, e, "aten", fn + 20, npos, pos, nkw, kwn, kw);
	if (strncmp(fn, "__torch__.", 10) == 0)
		return call_function(b, f, e, fn, npos, pos, nkw, kwn, kw);
	if (e->a->kind == TE_NAME) {
		TsVal *fv = tb_env_get(f->vars, e->a->s);
		if (fv && fv->k == V_FUNC)
			return call_function(b, f, e, fv->s, npos, pos, nkw, kwn, kw);
		if (fv && fv->k == V_ERR)
			return fv;
	}
	return FAIL(b, f, e, "call of '%s' is outside what the reader knows", fn);
}
