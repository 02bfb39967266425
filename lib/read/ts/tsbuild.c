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
 * and completed with the schema's defaults, and ir_type_outputs() gives
 * the results their dtype and shape (meta.def's row, else TsInputs.typer),
 * as a .pt2 records them.  The graph
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

#include "internal.h"

/* ---- the program ---- */

/* The graph outputs: forward's result flattened as torch flattens it
 * (tuples and lists in order, a dict's values in insertion order). */
static int
flatten_out(Build *b, const TsVal *v, Arg *out, int max, int *n)
{
	if (v->k == V_TUPLE || v->k == V_LIST || v->k == V_DICT) {
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

	if (v->k != V_TUPLE && v->k != V_LIST && v->k != V_DICT)
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

/* forward()'s tensor arguments as the main graph's inputs, typed by
 * `inputs:` (in order or by name), each set in f. */
static int
forward_inputs(Build *b, const TsDef *fwd, const TsInputs *in, Frame *f, const DiagAt *at)
{
	int nargs = fwd->nparam - 1;
	TsVal **args;

	args = ARENA_ARRAY(b->a, TsVal *, nargs + 1);
	b->p->nforward_arg = nargs;
	b->p->forward_arg_names = ARENA_ARRAY(b->a, const char *, nargs + 1);
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
		b->p->forward_arg_names[i] = name;
		if (!ti)
			return diag_report(b->d, YE_TS_INPUTS, at, "`inputs:` gives no entry for argument '%s' of forward(%s) of %s",
			                   name, def_signature(b, fwd), b->t->label);
		v = tb_add_input(b, name, IN_USER_INPUT, NULL);
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
		args[i] = tb_mk(b, V_TENSOR);
		args[i]->v = v;
		tb_env_set(b->a, f->vars, name, args[i]);
	}
	if (in->n > 0 && in->in[0].name)
		for (int k = 0; k < in->n; k++) {
			int found = 0;
			for (int i = 0; i < nargs; i++)
				found |= strcmp(in->in[k].name, fwd->params[i + 1].name) == 0;
			if (!found) {
				DiagAt at2 = *at;
				at2.line = in->in[k].line;
				at2.column = in->in[k].col;
				return diag_report(b->d, YE_TS_INPUTS, &at2, "forward(%s) of %s has no argument '%s'",
				                   def_signature(b, fwd), b->t->label, in->in[k].name);
			}
		}
	return 0;
}

/* The main graph's outputs (r flattened) and the program's specs. */
static void
finish(Build *b, const TsVal *r)
{
	int nout = 0;

	b->g->noutput = count_out(r);
	b->g->outputs = ARENA_ARRAY(b->a, Arg, b->g->noutput + 1);
	flatten_out(b, r, b->g->outputs, b->g->noutput, &nout);
	b->g->is_single_tensor_return = r->k == V_TENSOR;
	b->g->ninput = b->ninput;
	b->g->inputs = b->inputs;
	b->g->nnode = b->nnode;
	b->g->nodes = b->nodes;
	b->p->graph = b->g;
	b->p->ninput_spec = b->ninput;
	b->p->input_specs = b->specs;
	for (int i = 0; i < b->ninput; i++)
		b->specs[i].arg = &b->g->inputs[i];
	b->p->noutput_spec = b->g->noutput;
	b->p->output_specs = ARENA_ARRAY(b->a, OutputSpec, b->g->noutput + 1);
	for (int i = 0; i < b->g->noutput; i++) {
		b->p->output_specs[i].kind = OUT_USER_OUTPUT;
		b->p->output_specs[i].arg = &b->g->outputs[i];
	}
}

int
ts_build(Program *p, const TsArchive *t, const TsInputs *in, Diag *d)
{
	Build bb = {0}, *b = &bb;
	const TsCode *code;
	const TsClass *cls;
	const TsDef *fwd;
	Frame f = {0};
	TsVal *self;
	int nargs, rc;
	DiagAt at = {0};

	b->p = p, b->t = t, b->a = p->arena, b->d = d;
	b->typer = in ? in->typer : NULL;
	b->eval = tb_eval, b->exec_body = tb_exec_body;
	b->asts = strmap_new(b->a, 16);
	b->weights = strmap_new(b->a, 64);
	b->taken = strmap_new(b->a, 256);
	b->suffix = strmap_new(b->a, 64);
	b->g = ARENA_NEW(b->a, Graph);
	b->g->name = "";
	b->g->index = strmap_new(b->a, 256);
	b->top = b->g;
	at.file = t->label;
	if (!t->root || t->root->kind != PY_CALL || !t->root->func || t->root->func->kind != PY_GLOBAL)
		return diag_report(d, YE_TS_ARCHIVE, &at, "data.pkl does not hold a module object");
	self = tb_mk(b, V_OBJ);
	self->obj = t->root;
	self->path = "";
	cls = tb_class_of(b, t->root, &code);
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
	f.vars = tb_env_new(b->a, 16);
	f.code = code;
	tb_env_set(b->a, f.vars, fwd->params[0].name, self);
	if ((rc = forward_inputs(b, fwd, in, &f, &at)))
		return rc;
	b->site[0].code = code;
	b->site[0].ofs = fwd->ofs;
	b->site[0].fn = "forward";
	b->site[0].path = "";
	b->site[0].cls = NULL;
	b->nsite = 1;
	if (tb_exec_body(b, &f, fwd->body, fwd->nbody) < 0 || !f.ret)
		f.ret = f.ret ? f.ret : &tb_none;
	b->nsite = 0;
	if (b->nerr)
		return d->code ? d->code : DIAG_INPUT;
	finish(b, f.ret);
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
