/* tsstmt.c: statements of TorchScript code, exec_stmt() and exec_body():
 * `if` and `for` over values known now are evaluated here, over tensors
 * they go to tsflow.c (internal.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* `for`: over a list or tuple known now, unrolled; over range() of a
 * dynamic size or a tensor's value, a while_loop (tsflow.c). */
static int
exec_for(Build *b, Frame *f, const TsStmt *s)
{
	TsVal *v;

	if (s->value->kind == TE_CALL && s->value->a->kind == TE_NAME && strcmp(s->value->a->s, "range") == 0 &&
	    s->value->nitem == 1) {
		TsVal *cnt = tb_eval(b, f, s->value->items[0]);
		if (cnt->k == V_SYM || cnt->k == V_TENSOR)
			return tb_exec_loop(b, f, s, cnt);
	}
	v = tb_eval(b, f, s->value);
	if (v->k == V_ERR)
		return 0;
	if (v->k != V_LIST && v->k != V_TUPLE) {
		FAIL(b, f, s->value, "a loop over %s is not supported yet", tb_kind_name(v));
		return 0;
	}
	for (int i = 0; i < v->n; i++) {
		int rc;
		if (++b->unrolled > MAX_UNROLL) {
			FAIL(b, f, s->value, "loops unroll to more than %d iterations", MAX_UNROLL);
			return 0;
		}
		tb_assign(b, f, s->target, v->it[i]);
		rc = tb_exec_body(b, f, s->body, s->nbody);
		if (rc == 1)
			return 1;
		if (rc == 2)
			break;
		if (b->nerr > 100)
			return 0;
	}
	return 0;
}

/* `while`: on a value known now, unrolled; on a tensor, a while_loop. */
static int
exec_while(Build *b, Frame *f, const TsStmt *s)
{
	TsVal *v;
	int t;

	for (;;) {
		int rc;
		v = tb_eval(b, f, s->value);
		if (v->k == V_TENSOR)
			return tb_exec_loop(b, f, s, NULL);
		if (tb_truth(b, f, s->value, v, &t) || !t)
			return 0;
		if (++b->unrolled > MAX_UNROLL) {
			FAIL(b, f, s->value, "loops unroll to more than %d iterations", MAX_UNROLL);
			return 0;
		}
		rc = tb_exec_body(b, f, s->body, s->nbody);
		if (rc == 1)
			return 1;
		if (rc == 2)
			return 0;
	}
}

/* 0: go on; 1: returned; 2: break; 3: continue; -1 never (errors tb_poison). */
static int
exec_stmt(Build *b, Frame *f, const TsStmt *s)
{
	TsVal *v;
	int t;

	switch (s->kind) {
	case TS_EXPR:
		tb_eval(b, f, s->value);
		return 0;
	case TS_ASSIGN:
		return tb_assign(b, f, s->target, tb_eval(b, f, s->value));
	case TS_ANNASSIGN:
		if (s->value)
			tb_assign(b, f, s->target, tb_eval(b, f, s->value));
		return 0;
	case TS_AUGASSIGN: {
		TsExpr bin = *s->value;
		bin.kind = TE_BINARY;
		bin.op = s->op;
		bin.a = s->target;
		bin.b = s->value;
		return tb_assign(b, f, s->target, tb_eval(b, f, &bin));
	}
	case TS_RETURN:
		f->ret = s->value ? tb_eval(b, f, s->value) : &tb_none;
		return 1;
	case TS_IF:
		v = tb_eval(b, f, s->value);
		if (v->k == V_TENSOR)
			return tb_exec_if_tensor(b, f, s, v);
		if (tb_truth(b, f, s->value, v, &t))
			return 0;
		return t ? tb_exec_body(b, f, s->body, s->nbody) : tb_exec_body(b, f, s->orelse, s->norelse);
	case TS_FOR:
		return exec_for(b, f, s);
	case TS_WHILE:
		return exec_while(b, f, s);
	case TS_PASS:
		return 0;
	case TS_BREAK:
		return 2;
	case TS_CONTINUE:
		return 3;
	case TS_RAISE:
		tb_fail_at(b, f->code, s->ofs, s->line, s->col, YE_TS_UNSUPPORTED,
		        "the code raises an exception on this path (with the given inputs)");
		return 1;
	case TS_ASSERT:
		v = tb_eval(b, f, s->value);
		if (v->k == V_BOOL && !v->i)
			FAIL(b, f, s->value, "assertion fails with the given inputs");
		return 0;
	case TS_DEL:
		return 0;
	case TS_WITH:           /* torch.no_grad() and the like: nothing to ONNX */
		return tb_exec_body(b, f, s->body, s->nbody);
	case TS_DEF:
		tb_fail_at(b, f->code, s->ofs, s->line, s->col, YE_TS_UNSUPPORTED,
		        "a nested function (torch.jit.fork) is not supported yet");
		return 0;
	}
	return 0;
}

int
tb_exec_body(Build *b, Frame *f, TsStmt *const *body, int n)
{
	for (int i = 0; i < n; i++) {
		int rc = exec_stmt(b, f, body[i]);
		if (rc)
			return rc;
	}
	return 0;
}
