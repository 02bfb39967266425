/* typer.c: the dtype and shape of an ATen node's outputs, derived from its
 * lowering, for the nodes no hand-written rule (lib/ir/meta.def) types:
 * those a TorchScript archive records and those a decomposition makes.
 *
 * The node is copied alone into a scratch Program whose inputs are its
 * tensor and SymInt arguments, typed as the caller typed them (dims may be
 * SymExprs), and lowered by lower_program() at the target opset: the op
 * table and decomp.def, as a real conversion would.  lib/onnx's inference
 * rules then run over the ONNX nodes produced, in their expressions model
 * (dims as canonical SymExprs, small int contents followed through
 * Shape/Gather/Concat), and the graph outputs' element types and dims are
 * read back into Values.
 *
 * A lowering takes its outputs' dtypes as given (it casts its result to
 * them), so dtypes come out of two lowerings with different declared
 * dtypes: an output whose ONNX type is the same in both has the type the
 * lowering fixes (an ArgMax, a comparison); an output whose type follows
 * the declaration has the op's dtype argument, else torch's promotion of
 * its tensor arguments (the result type of every op of the table without
 * a row of meta.def that is not an index or a comparison, which fix
 * theirs).  Shapes must agree between the two lowerings, or the lowering
 * read its declared output and the typer cannot say.  Where it cannot
 * say (a lowering that fails, an unknown dim, a data-dependent size, a
 * list result of unknown length, complex values), it fails with a reason
 * naming the op. */
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "internal.h"
#include "sym/sym.h"

#define TY_MAXOUT 16

typedef struct Scratch {
	Arena *a;
	Program p;
	Graph *g;
	Node *n;
	StrMap *map;            /* "%p" of a caller's Value -> its copy */
	int nval;
} Scratch;

static Graph *
new_graph(Arena *a)
{
	Graph *g = ARENA_NEW(a, Graph);

	g->name = "";
	g->index = strmap_new(a, 64);
	return g;
}

/* The copy of the caller's value v, a graph input of s (first use). */
static Value *
input_of(Scratch *s, const Value *v)
{
	char key[32];
	Value *w;

	snprintf(key, sizeof key, "%p", (const void *)v);
	if ((w = strmap_get(s->map, key)))
		return w;
	w = ir_new_value(s->a, s->g, arena_printf(s->a, "ty_in%d", s->nval++), v->kind);
	w->dtype = v->dtype;
	w->rank = v->rank;
	w->dims = v->dims;
	w->expr = v->expr;
	w->hint = v->hint;
	w->has_hint = v->has_hint;
	strmap_put(s->map, arena_strdup(s->a, key), w);
	s->g->inputs[s->g->ninput] = (Arg){.kind = v->kind == VAL_TENSOR ? ARG_TENSOR :
	                                   v->kind == VAL_SYM_INT ? ARG_SYM_INT :
	                                   v->kind == VAL_SYM_BOOL ? ARG_SYM_BOOL : ARG_SYM_FLOAT, .u.v = w};
	s->p.input_specs[s->p.ninput_spec++] = (InputSpec){.kind = IN_USER_INPUT, .arg = &s->g->inputs[s->g->ninput]};
	s->g->ninput++;
	return w;
}

/* a with its values replaced by their copies; -1 for what the typer
 * cannot copy (a subgraph, an object). */
static int
copy_arg(Scratch *s, const Arg *a, Arg *out)
{
	*out = *a;
	switch (a->kind) {
	case ARG_TENSOR: case ARG_OPT_TENSOR: case ARG_SYM_INT: case ARG_SYM_BOOL: case ARG_SYM_FLOAT:
		if (!a->u.v)
			return 0;
		if (a->u.v->kind == VAL_CUSTOM_OBJ || a->u.v->kind == VAL_TOKEN)
			return -1;
		out->u.v = input_of(s, a->u.v);
		return 0;
	case ARG_TENSORS: case ARG_OPT_TENSORS: case ARG_SYM_INTS: case ARG_SYM_BOOLS: case ARG_SYM_FLOATS:
		out->u.list = ARENA_ARRAY(s->a, Arg, a->n + 1);
		for (int i = 0; i < a->n; i++)
			if (copy_arg(s, &a->u.list[i], &out->u.list[i]))
				return -1;
		return 0;
	case ARG_GRAPH: case ARG_CUSTOM_OBJ: case ARG_NESTED_TENSORS:
		return -1;
	default:
		return 0;
	}
}

static int
arg_has_complex(const Arg *a)
{
	switch (a->kind) {
	case ARG_TENSOR: case ARG_OPT_TENSOR:
		return a->u.v && a->u.v->kind == VAL_TENSOR && dtype_kind(a->u.v->dtype) == DK_COMPLEX;
	case ARG_TENSORS: case ARG_OPT_TENSORS:
		for (int i = 0; i < a->n; i++)
			if (arg_has_complex(&a->u.list[i]))
				return 1;
		return 0;
	default:
		return 0;
	}
}

/* The dtype an output that follows its declaration has: the dtype
 * argument, else torch's promotion of the tensor arguments (0-d ones
 * below the others), else float32. */
static DType
natural_dtype(const Node *n)
{
	const Arg *dt = ir_arg(n, "dtype");
	DType t = DT_UNKNOWN;
	int t_scalar = 1;

	if (dt && dt->kind == ARG_SCALAR_TYPE)
		return dtype_from_torch((long)dt->u.i);
	for (int i = 0; i < n->nin; i++) {
		const Arg *a = &n->in[i].arg;
		int k = a->kind == ARG_TENSORS || a->kind == ARG_OPT_TENSORS ? a->n : 1;
		for (int j = 0; j < k; j++) {
			const Arg *e = a->kind == ARG_TENSORS || a->kind == ARG_OPT_TENSORS ? &a->u.list[j] : a;
			const Value *v;
			if ((e->kind != ARG_TENSOR && e->kind != ARG_OPT_TENSOR) || !(v = e->u.v) || v->kind != VAL_TENSOR)
				continue;
			if (t == DT_UNKNOWN) {
				t = v->dtype;
				t_scalar = v->rank == 0;
			} else {
				t = lower_promote(t, t_scalar, v->dtype, v->rank == 0);
				t_scalar = t_scalar && v->rank == 0;
			}
		}
	}
	return t == DT_UNKNOWN ? DT_FLOAT32 : t;
}

/* A second declared dtype unlike t, of the same kind where there is one. */
static DType
other_dtype(DType t)
{
	if (dtype_is_float(t))
		return t == DT_FLOAT32 ? DT_FLOAT64 : DT_FLOAT32;
	return t == DT_INT64 ? DT_INT32 : t == DT_BOOL ? DT_UINT8 : DT_INT64;
}

/* ---- inference over the lowered graph ---- */

typedef struct Known {
	Arena *a;
	StrMap *types;          /* ONNX name -> OnnxType * */
	const OnnxNode *n;
} Known;

static OnnxType *
slot(Known *k, const char *name)
{
	OnnxType *t = strmap_get(k->types, name);

	if (!t) {
		t = ARENA_NEW(k->a, OnnxType);
		t->rank = -1;
		strmap_put(k->types, name, t);
	}
	return t;
}

static void
put(void *ctx, int i, int elem, int rank, const OnnxSize *dims)
{
	Known *k = ctx;
	OnnxType *t;
	OnnxSize *d;

	if (i >= (int)k->n->n_output || !k->n->output[i][0])
		return;
	t = slot(k, k->n->output[i]);
	t->elem = elem;
	t->rank = dims ? rank : -1;
	if (rank >= 0 && dims) {
		d = ARENA_ARRAY(k->a, OnnxSize, rank + 1);
		memcpy(d, dims, sizeof *d * (size_t)rank);
		t->dims = d;
	}
}

static void
put_vals(void *ctx, int i, const OnnxVals *v)
{
	Known *k = ctx;
	OnnxVals *w;
	OnnxSize *d;

	if (i >= (int)k->n->n_output || !k->n->output[i][0])
		return;
	w = ARENA_NEW(k->a, OnnxVals);
	d = ARENA_ARRAY(k->a, OnnxSize, v->n + 1);
	memcpy(d, v->v, sizeof *d * (size_t)v->n);
	*w = (OnnxVals){v->n, v->scalar, d};
	slot(k, k->n->output[i])->vals = w;
}

static OnnxSize
size_of(Arena *a, const Dim *d)
{
	int64_t v;

	if (!d->e)
		return (OnnxSize){d->v, NULL, poly_num(a, d->v)};
	{
		SymExpr *e = poly_canon(a, d->e);
		return (OnnxSize){poly_is_num(e, &v) && v >= 0 ? v : -1, NULL, e};
	}
}

/* The type of a graph input copied from v. */
static OnnxType *
input_type(Arena *a, const Value *v)
{
	OnnxType *t = ARENA_NEW(a, OnnxType);

	if (v->kind == VAL_TENSOR) {
		OnnxSize *d = ARENA_ARRAY(a, OnnxSize, v->rank + 1);
		for (int i = 0; i < v->rank; i++)
			d[i] = size_of(a, &v->dims[i]);
		*t = (OnnxType){dtype_onnx(v->dtype), v->rank, d, NULL};
	} else {
		OnnxSize *e = ARENA_NEW(a, OnnxSize);
		OnnxVals *vals = ARENA_NEW(a, OnnxVals);
		int64_t x;
		*e = (OnnxSize){-1, NULL, v->expr ? poly_canon(a, v->expr) : NULL};
		if (e->e && poly_is_num(e->e, &x))
			e->v = x;
		*vals = (OnnxVals){1, 1, e};
		*t = (OnnxType){dtype_onnx(v->kind == VAL_SYM_BOOL ? DT_BOOL : v->kind == VAL_SYM_FLOAT ? DT_FLOAT64 : DT_INT64),
		                0, NULL, v->kind == VAL_SYM_INT ? vals : NULL};
	}
	return t;
}

/* Runs the rules over g's nodes in order. */
static void
infer_graph(Known *k, const Onnx__GraphProto *g)
{
	for (size_t i = 0; i < g->n_initializer; i++) {
		OnnxType *t = ARENA_NEW(k->a, OnnxType);
		*t = onnx_tensor_type(k->a, g->initializer[i]);
		strmap_put(k->types, g->initializer[i]->name, t);
	}
	for (size_t i = 0; i < g->n_node; i++) {
		const OnnxNode *n = g->node[i];
		int op = onnx_op_of(n), nin = (int)n->n_input;
		const OnnxType **in = ARENA_ARRAY(k->a, const OnnxType *, nin + 1);
		if (op < 0 || !onnx_infer_known(op, ONNX_MODEL_EXPRS))
			continue;
		for (int j = 0; j < nin; j++)      /* a named input of no known type is unknown, not omitted */
			in[j] = n->input[j][0] ? slot(k, n->input[j]) : NULL;
		k->n = n;
		onnx_infer(&(OnnxInfer){.n = n, .op = op, .nin = nin, .nout = (int)n->n_output, .in = in,
		                        .a = k->a, .ctx = k, .put = put, .put_vals = put_vals});
	}
}

/* ---- one lowering ---- */

/* The size symbol of dim j of output k as the first lowering declares it:
 * a result dim that mentions one was read from the declaration. */
static SymExpr *
probe_symbol(Arena *a, int k, int j)
{
	SymExpr *e = ARENA_NEW(a, SymExpr);

	e->op = SYM_SYMBOL;
	e->name = arena_printf(a, "ty_probe%d_%d", k, j);
	return e;
}

static int
mentions_probe(Arena *a, const SymExpr *e)
{
	return strstr(sym_print(a, e), "ty_probe") != NULL;
}

/* The dtype the lowering computed output `name` in: through Identity
 * nodes, the input of a final Cast (DT_UNKNOWN when there is none). */
static DType
before_cast(Known *k, StrMap *producers, const char *name)
{
	for (int hops = 0; hops < 16; hops++) {
		const OnnxNode *n = strmap_get(producers, name);
		const OnnxType *t;
		if (!n || n->n_input < 1)
			return DT_UNKNOWN;
		if (onnx_op_of(n) == ONNXOP_IDENTITY) {
			name = n->input[0];
			continue;
		}
		if (onnx_op_of(n) != ONNXOP_CAST)
			return DT_UNKNOWN;
		t = strmap_get(k->types, n->input[0]);
		return t ? dtype_from_onnx(t->elem) : DT_UNKNOWN;
	}
	return DT_UNKNOWN;
}

/* Lowers s's node with outputs declared dt (rank and dims of `like`, or
 * rank 0) and reads their types into out; 0, or -1 with why. */
static int
lower_once(const IrTyper *t, Arena *a, const Node *orig, int nout, DType dt, int rank,
           Value *out, DType *computed, char *why, size_t whylen)
{
	Scratch s = {.a = a};
	LowerOptions o = {.opset = t->opset, .label = "typer"};
	Onnx__ModelProto *m = NULL;
	Diag d = {0};
	Known k = {a, strmap_new(a, 64), NULL};
	Node *n;
	StrMap *producers;
	int rc;

	s.g = new_graph(a);
	s.map = strmap_new(a, 16);
	s.p.arena = a;
	s.p.path = "typer";
	s.p.graph = s.g;
	s.g->inputs = ARENA_ARRAY(a, Arg, 4 * orig->nin + 64);
	s.g->outputs = ARENA_ARRAY(a, Arg, nout + 1);
	s.p.input_specs = ARENA_ARRAY(a, InputSpec, 4 * orig->nin + 64);
	s.p.output_specs = ARENA_ARRAY(a, OutputSpec, nout + 1);
	n = ARENA_NEW(a, Node);
	*n = *orig;
	n->graph = s.g;
	n->id = 0;
	n->in = ARENA_ARRAY(a, NamedArg, orig->nin + 1);
	for (int i = 0; i < orig->nin; i++) {
		int cnt = 0;
		n->in[i] = orig->in[i];
		if (orig->in[i].arg.kind == ARG_TENSORS || orig->in[i].arg.kind == ARG_OPT_TENSORS ||
		    orig->in[i].arg.kind == ARG_SYM_INTS)
			cnt = orig->in[i].arg.n;
		if (s.g->ninput + cnt + 1 > 4 * orig->nin + 64) {
			snprintf(why, whylen, "too many tensor arguments to type from its lowering");
			return -1;
		}
		if (copy_arg(&s, &orig->in[i].arg, &n->in[i].arg)) {
			snprintf(why, whylen, "an argument the typer cannot copy (a subgraph or an object)");
			return -1;
		}
	}
	n->nout = nout;
	n->out = ARENA_ARRAY(a, Arg, nout + 1);
	for (int k2 = 0; k2 < nout; k2++) {
		Value *v = ir_new_value(a, s.g, arena_printf(a, "ty_out%d", k2), VAL_TENSOR);
		v->dtype = dt;
		v->rank = rank;
		v->dims = ARENA_ARRAY(a, Dim, rank + 1);
		for (int j = 0; j < rank; j++)
			v->dims[j] = (Dim){-1, probe_symbol(a, k2, j)};
		v->def = n;
		n->out[k2] = (Arg){.kind = ARG_TENSOR, .u.v = v};
		s.g->outputs[s.g->noutput] = n->out[k2];
		s.p.output_specs[s.p.noutput_spec++] = (OutputSpec){.kind = OUT_USER_OUTPUT, .arg = &s.g->outputs[s.g->noutput]};
		s.g->noutput++;
	}
	n->name = n->out[0].u.v->name;
	s.g->nodes = ARENA_ARRAY(a, Node *, 1);
	s.g->nodes[0] = n;
	s.g->nnode = 1;
	o.typer = t;            /* a decomposition's new nodes are typed the same way */
	rc = lower_program(&s.p, &o, a, &m, &d);
	if (rc) {
		const char *msg = d.n ? d.items[0].message : "it cannot be lowered";
		snprintf(why, whylen, "no type from its lowering: %s", msg);
		diag_free(&d);
		return -1;
	}
	diag_free(&d);
	for (size_t i = 0; i < m->graph->n_input; i++) {
		const Value *v = ir_lookup(s.g, m->graph->input[i]->name);
		if (v)
			strmap_put(k.types, m->graph->input[i]->name, input_type(a, v));
	}
	infer_graph(&k, m->graph);
	producers = strmap_new(a, 64);
	for (size_t i = 0; i < m->graph->n_node; i++)
		for (size_t j = 0; j < m->graph->node[i]->n_output; j++)
			if (m->graph->node[i]->output[j][0])
				strmap_put(producers, m->graph->node[i]->output[j], m->graph->node[i]);
	if ((int)m->graph->n_output != nout) {
		snprintf(why, whylen, "its lowering gives %d results, not %d", (int)m->graph->n_output, nout);
		return -1;
	}
	for (int i = 0; i < nout; i++) {
		const OnnxType *ty = strmap_get(k.types, m->graph->output[i]->name);
		Value *v = &out[i];
		memset(v, 0, sizeof *v);
		if (!ty || ty->rank < 0 || !ty->dims || !ty->elem) {
			snprintf(why, whylen, "the ONNX inference of its lowering does not give result %d's %s", i,
			         ty && ty->elem ? "shape" : "type");
			return -1;
		}
		v->kind = VAL_TENSOR;
		v->dtype = dtype_from_onnx(ty->elem);
		computed[i] = before_cast(&k, producers, m->graph->output[i]->name);
		v->rank = ty->rank;
		v->dims = ARENA_ARRAY(a, Dim, ty->rank + 1);
		for (int j = 0; j < ty->rank; j++) {
			int64_t x;
			if (!ty->dims[j].e) {
				snprintf(why, whylen, "dim %d of result %d depends on the data (its lowering's "
				         "ONNX inference cannot say it)", j, i);
				return -1;
			}
			if (mentions_probe(a, ty->dims[j].e)) {
				snprintf(why, whylen, "its lowering reads the shape it is told result %d has, so it "
				         "cannot give it", i);
				return -1;
			}
			if (poly_is_num(ty->dims[j].e, &x))
				v->dims[j] = (Dim){x, NULL};
			else
				v->dims[j] = (Dim){-1, ty->dims[j].e};
		}
	}
	return 0;
}

static int
same_dims(const Value *x, const Value *y)
{
	if (x->rank != y->rank)
		return 0;
	for (int i = 0; i < x->rank; i++) {
		if (!x->dims[i].e != !y->dims[i].e)
			return 0;
		if (x->dims[i].e ? !sym_equal(x->dims[i].e, y->dims[i].e) : x->dims[i].v != y->dims[i].v)
			return 0;
	}
	return 1;
}

int
lower_type_node(const IrTyper *t, Arena *a, const Node *n, int nout, Value *out, int max, char *why,
                size_t whylen)
{
	Value r1[TY_MAXOUT], r2[TY_MAXOUT];
	DType c1[TY_MAXOUT], c2[TY_MAXOUT];
	const Value *self = NULL;
	DType dt, dt2;
	int inplace;

	if (why && whylen)
		why[0] = 0;
	if (nout < 0) {
		snprintf(why, whylen, "no dtype and shape rule, and its results are not a known number "
		         "of tensors (a list, or scalars) the typer could derive");
		return -1;
	}
	if (nout == 0 || nout > max || nout > TY_MAXOUT) {
		snprintf(why, whylen, "%d results: the typer cannot say them", nout);
		return -1;
	}
	for (int i = 0; i < n->nin; i++)
		if (arg_has_complex(&n->in[i].arg)) {
			snprintf(why, whylen, "complex arguments: no dtype and shape rule, and the typer "
			         "does not derive complex types");
			return -1;
		}
	for (int i = 0; i < n->nin && !self; i++)
		if (n->in[i].arg.kind == ARG_TENSOR && n->in[i].arg.u.v && n->in[i].arg.u.v->kind == VAL_TENSOR)
			self = n->in[i].arg.u.v;
	dt = natural_dtype(n);
	if (dtype_kind(dt) == DK_COMPLEX) {
		snprintf(why, whylen, "a complex result: the typer does not derive complex types");
		return -1;
	}
	dt2 = other_dtype(dt);
	{
		const OpRow *row = ops_find_opset(n->op, t->opset);
		inplace = row && (row->flags & OPF_INPLACE);
	}
	/* first with every dim a probe symbol, then rank 0: a result that
	 * mentions a probe or differs between the two was read from the
	 * declaration */
	if (lower_once(t, a, n, nout, dt, self && self->rank > 0 ? self->rank : 1, r1, c1, why, whylen) ||
	    lower_once(t, a, n, nout, dt2, 0, r2, c2, why, whylen))
		return -1;
	for (int i = 0; i < nout; i++) {
		if (!same_dims(&r1[i], &r2[i])) {
			snprintf(why, whylen, "its lowering reads the shape it is told result %d has, so it "
			         "cannot give it", i);
			return -1;
		}
		out[i] = r1[i];
		if (i == 0 && inplace && self) {
			out[0].dtype = self->dtype;     /* written into self */
			continue;
		}
		if (r1[i].dtype == r2[i].dtype)
			continue;               /* the lowering fixes it */
		if (r1[i].dtype != dt || r2[i].dtype != dt2) {
			snprintf(why, whylen, "result %d's dtype is neither fixed by its lowering nor the one "
			         "declared", i);
			return -1;
		}
		/* it follows the declaration: the op's own dtype is not in its
		 * lowering.  Floating arguments give that dtype (every op of
		 * the table without a meta.def row computes so), unless the
		 * lowering computed something else and cast it */
		if (dtype_kind(dt) != DK_FLOAT || !self || self->dtype != dt) {
			snprintf(why, whylen, "no dtype rule for these arguments (%s, promoted to %s): its "
			         "lowering takes the result's dtype as given; meta.def needs a row",
			         self ? dtype_name(self->dtype) : "no tensor", dtype_name(dt));
			return -1;
		}
		if (c1[i] != DT_UNKNOWN && dtype_kind(c1[i]) != DK_FLOAT) {
			snprintf(why, whylen, "its lowering computes result %d as %s and casts it: its dtype "
			         "needs a row in meta.def", i, dtype_name(c1[i]));
			return -1;
		}
	}
	return nout;
}

void
lower_typer_init(IrTyper *t, int opset)
{
	t->fn = lower_type_node;
	t->opset = opset;
}
