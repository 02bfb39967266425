/* tspy.c: Python's rules on values known now: truth, int(), isinstance()
 * against an annotation, and binary operators (ints and SymInts through
 * tsval.c's int arithmetic) (internal.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

TsVal *
tb_to_int(Build *b, Frame *f, const TsExpr *at, const TsVal *v)
{
	TsVal *r;

	switch (v->k) {
	case V_INT: case V_BOOL: return tb_mk_int(b, v->i);
	case V_FLOAT: return tb_mk_int(b, (int64_t)v->f);
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
		return FAIL(b, f, at, "int() of %s", tb_kind_name(v));
	}
}

int
tb_truth(Build *b, Frame *f, const TsExpr *at, const TsVal *v, int *out)
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
		FAIL(b, f, at, "a condition on %s", tb_kind_name(v));
		return -1;
	}
}

/* The type a TorchScript annotation names, for isinstance(). */
int
tb_isinstance_of(const TsVal *v, const TsExpr *type)
{
	const char *t = type->kind == TE_NAME ? type->s : type->kind == TE_INDEX && type->a->kind == TE_NAME
	                ? type->a->s : NULL;
	if (type->kind == TE_TUPLE) {
		for (int i = 0; i < type->nitem; i++)
			if (tb_isinstance_of(v, type->items[i]))
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
		return v->k == V_NONE || tb_isinstance_of(v, type->b);
	return 0;
}

/* A binary operator between Python values (ints with SymInts, floats,
 * strings, lists, None). */
TsVal *
tb_py_binary(Build *b, Frame *f, const TsExpr *e, int op, TsVal *x, TsVal *y)
{
	TsVal *r;

	if (x->k == V_ERR || y->k == V_ERR)
		return &tb_poison;
	if (op == TB_IS || op == TB_ISNOT) {
		int same = (x->k == V_NONE) == (y->k == V_NONE);
		if (x->k != V_NONE && y->k != V_NONE)
			return FAIL(b, f, e, "'is' between two values that are not None");
		return tb_mk_bool(b, op == TB_IS ? same : !same);
	}
	if ((x->k == V_INT || x->k == V_SYM || x->k == V_BOOL) &&
	    (y->k == V_INT || y->k == V_SYM || y->k == V_BOOL) && !x->numtensor && !y->numtensor)
		return tb_int_binary(b, f, e, op, x, y);
	if ((x->k == V_INT || x->k == V_FLOAT) && (y->k == V_INT || y->k == V_FLOAT)) {
		double p = tb_num(x), q = tb_num(y);
		switch (op) {
		case TB_ADD: return tb_mk_float(b, p + q);
		case TB_SUB: return tb_mk_float(b, p - q);
		case TB_MUL: return tb_mk_float(b, p * q);
		case TB_DIV: return tb_mk_float(b, p / q);
		case TB_POW: return tb_mk_float(b, pow(p, q));
		case TB_FLOORDIV: return tb_mk_float(b, floor(p / q));
		case TB_EQ: return tb_mk_bool(b, p == q);
		case TB_NE: return tb_mk_bool(b, p != q);
		case TB_LT: return tb_mk_bool(b, p < q);
		case TB_LE: return tb_mk_bool(b, p <= q);
		case TB_GT: return tb_mk_bool(b, p > q);
		case TB_GE: return tb_mk_bool(b, p >= q);
		default: break;
		}
	}
	if (x->k == V_STR && y->k == V_STR && (op == TB_EQ || op == TB_NE))
		return tb_mk_bool(b, (strcmp(x->s, y->s) == 0) == (op == TB_EQ));
	if ((op == TB_EQ || op == TB_NE) && (x->k == V_LIST || x->k == V_TUPLE) && (y->k == V_LIST || y->k == V_TUPLE)) {
		int eq = x->n == y->n;
		for (int i = 0; eq && i < x->n; i++) {
			TsVal *c = tb_py_binary(b, f, e, TB_EQ, x->it[i], y->it[i]);
			if (c->k != V_BOOL)
				return c->k == V_ERR ? c : FAIL(b, f, e, "comparing lists of %s", tb_kind_name(x->it[i]));
			eq = (int)c->i;
		}
		return tb_mk_bool(b, op == TB_EQ ? eq : !eq);
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
		return tb_mk_bool(b, op == TB_IN ? found : !found);
	}
	if (op == TB_ADD && x->k == y->k && (x->k == V_LIST || x->k == V_TUPLE)) {
		r = tb_mk_seq(b, x->k, x->n + y->n);
		memcpy(r->it, x->it, sizeof *r->it * (size_t)x->n);
		memcpy(r->it + x->n, y->it, sizeof *r->it * (size_t)y->n);
		return r;
	}
	return FAIL(b, f, e, "operator between %s and %s is outside what the reader evaluates",
	            tb_kind_name(x), tb_kind_name(y));
}
