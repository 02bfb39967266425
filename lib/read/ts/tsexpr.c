/* tsexpr.c: expressions of TorchScript code (eval()): names, attributes,
 * literals, operators, indexing, calls (tscall.c); and assignment to a
 * target, unpacking included (internal.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- expressions ---- */

static TsVal *
eval_index(Build *b, Frame *f, const TsExpr *e)
{
	TsVal *x = tb_eval(b, f, e->a), *i;

	if (x->k == V_ERR)
		return x;
	if (e->b->kind == TE_SLICE) {
		int64_t lo = 0, hi, st = 1;
		TsVal *r;
		if (x->k != V_LIST && x->k != V_TUPLE)
			return FAIL(b, f, e, "slicing %s", tb_kind_name(x));
		hi = x->n;
		for (int k = 0; k < 3; k++) {
			TsVal *v;
			if (!e->b->items[k])
				continue;
			v = tb_eval(b, f, e->b->items[k]);
			if (v->k != V_INT)
				return v->k == V_ERR ? v : FAIL(b, f, e, "slice bound is %s", tb_kind_name(v));
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
		r = tb_mk_seq(b, x->k, (int)(hi - lo));
		for (int64_t k = lo; k < hi; k++)
			r->it[k - lo] = x->it[k];
		return r;
	}
	i = tb_eval(b, f, e->b);
	if (i->k == V_ERR)
		return i;
	if (x->k == V_DICT) {
		int k = tb_dict_find(x, i);
		return k >= 0 ? x->it[k] : FAIL(b, f, e, "the dict has no such key");
	}
	if ((x->k == V_LIST || x->k == V_TUPLE) && i->k == V_INT) {
		int64_t k = i->i < 0 ? i->i + x->n : i->i;
		if (k < 0 || k >= x->n)
			return FAIL(b, f, e, "index %lld out of range for a %s of %d", (long long)i->i,
			            tb_kind_name(x), x->n);
		return x->it[k];
	}
	return FAIL(b, f, e, "indexing %s with %s", tb_kind_name(x), tb_kind_name(i));
}

/* A tuple, list or dict literal ({"out": x}: what torchvision's
 * segmentation models return). */
static TsVal *
eval_display(Build *b, Frame *f, const TsExpr *e)
{
	TsVal *r;

	if (e->kind != TE_DICT) {
		r = tb_mk_seq(b, e->kind == TE_TUPLE ? V_TUPLE : V_LIST, e->nitem);
		for (int i = 0; i < e->nitem; i++)
			if ((r->it[i] = tb_eval(b, f, e->items[i]))->k == V_ERR)
				return &tb_poison;
		return r;
	}
	r = tb_mk_seq(b, V_DICT, 0);
	r->keys = ARENA_ARRAY(b->a, TsVal *, e->nitem / 2 + 1);
	for (int i = 0; i + 1 < e->nitem; i += 2) {
		TsVal *k = tb_eval(b, f, e->items[i]), *v = tb_eval(b, f, e->items[i + 1]);
		int at;
		if (k->k == V_ERR || v->k == V_ERR)
			return &tb_poison;
		if (k->k != V_STR && k->k != V_INT && k->k != V_BOOL)
			return FAIL(b, f, e->items[i], "a dict key of %s (str and int keys are read)", tb_kind_name(k));
		if ((at = tb_dict_find(r, k)) < 0)
			at = r->n++;
		r->keys[at] = k, r->it[at] = v;
	}
	return r;
}

TsVal *
tb_eval(Build *b, Frame *f, const TsExpr *e)
{
	TsVal *x, *y, *r;

	switch (e->kind) {
	case TE_NAME:
		if ((x = tb_env_get(f->vars, e->s)))
			return x;
		if (strcmp(e->s, "inf") == 0)
			return tb_mk_float(b, INFINITY);
		if (strcmp(e->s, "nan") == 0)
			return tb_mk_float(b, NAN);
		return FAIL(b, f, e, "name '%s' is not defined", e->s);
	case TE_INT: return tb_mk_int(b, e->i);
	case TE_FLOAT: return tb_mk_float(b, e->f);
	case TE_STR:
		r = tb_mk(b, V_STR);
		r->s = e->s;
		return r;
	case TE_NONE: return &tb_none;
	case TE_TRUE: return tb_mk_bool(b, 1);
	case TE_FALSE: return tb_mk_bool(b, 0);
	case TE_ATTR: {
		const char *fn = tb_dotted(b, e);
		if (fn && strncmp(fn, "CONSTANTS.c", 11) == 0) {
			char *end;
			long k = strtol(fn + 11, &end, 10);
			const PyObj *c = b->t->constants;
			if (*end || !c || (c->kind != PY_TUPLE && c->kind != PY_LIST) || k < 0 || (size_t)k >= c->n)
				return FAIL(b, f, e, "%s: the archive's constants.pkl has no such item", fn);
			return tb_from_py(b, f, e, c->items[k], fn + 10, IN_TENSOR_CONSTANT);
		}
		if (fn && strncmp(fn, "__torch__.", 10) == 0) {
			r = tb_mk(b, V_FUNC);
			r->s = fn;
			return r;
		}
		if (fn && strcmp(fn, "math.pi") == 0)
			return tb_mk_float(b, 3.14159265358979323846);
		if (fn && strcmp(fn, "math.e") == 0)
			return tb_mk_float(b, 2.71828182845904523536);
		x = tb_eval(b, f, e->a);
		if (x->k == V_ERR)
			return x;
		if (x->k == V_OBJ)
			return tb_get_attr(b, f, e, x, e->s);
		return FAIL(b, f, e, "attribute '%s' of %s", e->s, tb_kind_name(x));
	}
	case TE_CALL:
		return tb_eval_call(b, f, e);
	case TE_INDEX:
		return eval_index(b, f, e);
	case TE_TUPLE:
	case TE_LIST:
	case TE_DICT:
		return eval_display(b, f, e);
	case TE_UNARY:
		x = tb_eval(b, f, e->a);
		if (x->k == V_ERR)
			return x;
		if (e->op == 'n') {
			int t;
			return tb_truth(b, f, e, x, &t) ? &tb_poison : tb_mk_bool(b, !t);
		}
		if (e->op == '-' && x->k == V_FLOAT)
			return tb_mk_float(b, -x->f);
		if (e->op == '-' && (x->k == V_INT || x->k == V_SYM))
			return tb_int_binary(b, f, e, TB_MUL, tb_mk_int(b, -1), x);
		if (e->op == '+' && (x->k == V_INT || x->k == V_FLOAT))
			return x;
		if (e->op == '~' && x->k == V_INT)
			return tb_mk_int(b, ~x->i);
		return FAIL(b, f, e, "unary '%c' on %s", e->op, tb_kind_name(x));
	case TE_BOOL: {
		int t;
		x = tb_eval(b, f, e->a);
		if (tb_truth(b, f, e, x, &t))
			return &tb_poison;
		if ((e->op == 'a' && !t) || (e->op == 'o' && t))
			return x;
		return tb_eval(b, f, e->b);
	}
	case TE_IFEXP: {
		int t;
		x = tb_eval(b, f, e->a);
		if (tb_truth(b, f, e, x, &t))
			return &tb_poison;
		return tb_eval(b, f, t ? e->items[0] : e->b);
	}
	case TE_BINARY:
	case TE_COMPARE:
		x = tb_eval(b, f, e->a);
		y = tb_eval(b, f, e->b);
		return tb_py_binary(b, f, e, e->op, x, y);
	default:
		return FAIL(b, f, e, "this expression is outside what the reader knows");
	}
}

/* ---- statements ---- */

int
tb_assign(Build *b, Frame *f, const TsExpr *t, TsVal *v)
{
	if (t->kind == TE_NAME) {
		tb_env_set(b->a, f->vars, t->s, v);
		return 0;
	}
	if (t->kind == TE_TUPLE || t->kind == TE_LIST) {
		if (v->k == V_ERR) {
			for (int i = 0; i < t->nitem; i++)
				tb_assign(b, f, t->items[i], v);
			return 0;
		}
		if ((v->k != V_TUPLE && v->k != V_LIST) || v->n != t->nitem) {
			FAIL(b, f, t, "cannot unpack %s into %d names", tb_kind_name(v), t->nitem);
			for (int i = 0; i < t->nitem; i++)
				tb_assign(b, f, t->items[i], &tb_poison);
			return 0;
		}
		for (int i = 0; i < t->nitem; i++)
			tb_assign(b, f, t->items[i], v->it[i]);
		return 0;
	}
	if (t->kind == TE_INDEX) {
		TsVal *l = tb_eval(b, f, t->a), *i = tb_eval(b, f, t->b);
		if (l->k == V_LIST && i->k == V_INT) {
			int64_t k = i->i < 0 ? i->i + l->n : i->i;
			if (k >= 0 && k < l->n) {
				l->it[k] = v;
				return 0;
			}
		}
		if (l->k == V_DICT && (i->k == V_STR || i->k == V_INT || i->k == V_BOOL)) {
			tb_dict_set(b, l, i, v);
			return 0;
		}
		if (l->k != V_ERR && i->k != V_ERR)
			FAIL(b, f, t, "assignment into %s[%s]", tb_kind_name(l), tb_kind_name(i));
		return 0;
	}
	FAIL(b, f, t, "assignment to this target (module attributes are read-only here)");
	return 0;
}
