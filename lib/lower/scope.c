/* scope.c: the graphs a lowering fills: the main graph's inputs,
 * initializers and outputs, nested graphs (If branches, Loop and Scan
 * bodies), kept assertions, and the final prune of what nothing reads.
 * The node-by-node walk is driver.c's; this file never calls a lowering. */
#include "lower/lower.h"

#include <stdint.h>
#include <string.h>

#include "core/core.h"
#include "internal.h"

/* ---- uses ---- */

void
lower_count_uses(int *uses, const Graph *g, const Arg *a)
{
	switch (a->kind) {
	case ARG_TENSOR: case ARG_OPT_TENSOR: case ARG_SYM_INT: case ARG_SYM_BOOL:
	case ARG_SYM_FLOAT: case ARG_CUSTOM_OBJ:
		if (a->u.v->graph == g)
			uses[a->u.v->id]++;
		break;
	case ARG_TENSORS: case ARG_OPT_TENSORS: case ARG_SYM_INTS: case ARG_SYM_BOOLS:
	case ARG_SYM_FLOATS: case ARG_NESTED_TENSORS: case ARG_STRING_TO_ARG:
		for (int i = 0; i < a->n; i++)
			lower_count_uses(uses, g, &a->u.list[i]);
		break;
	default:
		break;
	}
}

/* Points c at IR graph g: fresh aliases, and how often g's values are
 * read by its nodes (and by its outputs when outputs is set). */
void
lower_enter_graph(LowerCtx *c, const Graph *g, int outputs)
{
	c->ir = g;
	c->alias = ARENA_ARRAY(c->a, Alias *, g->nvalue + 1);
	c->uses = ARENA_ARRAY(c->a, int, g->nvalue + 1);
	for (int i = 0; i < g->nnode; i++)
		for (int k = 0; k < g->nodes[i]->nin; k++)
			lower_count_uses(c->uses, g, &g->nodes[i]->in[k].arg);
	for (int i = 0; outputs && i < g->noutput; i++)
		lower_count_uses(c->uses, g, &g->outputs[i]);
}

/* ---- inputs ---- */

/* The bytes of t, contiguous: the mapped bytes themselves when the view is
 * contiguous, else a copy gathered into the arena. */
static const uint8_t *
tensor_bytes(Arena *a, const TensorData *t, size_t *len)
{
	int64_t numel = tensor_numel(t), es = dtype_size(t->dtype);
	uint8_t *out;

	*len = (size_t)(numel * es);
	if (tensor_is_contiguous(t))
		return t->storage + t->offset * es;
	out = arena_alloc(a, *len + 1);
	for (int64_t i = 0; i < numel; i++) {
		int64_t rest = i, off = t->offset;
		for (int d = t->rank - 1; d >= 0; d--) {
			off += rest % t->sizes[d] * t->strides[d];
			rest /= t->sizes[d];
		}
		memcpy(out + i * es, t->storage + off * es, (size_t)es);
	}
	return out;
}

Onnx__ValueInfoProto *
lower_value_info(LowerCtx *c, const char *name, const Value *v)
{
	int64_t *dims = ARENA_ARRAY(c->a, int64_t, v->rank + 2);
	const char **params = ARENA_ARRAY(c->a, const char *, v->rank + 2);
	DType part = dtype_complex_part(v->dtype);

	if (v->kind != VAL_TENSOR)
		return onnx_value_info(c->a, name, v->kind == VAL_SYM_INT ? ONNX_INT64
		                                   : v->kind == VAL_SYM_BOOL ? ONNX_BOOL
		                                   : ONNX_DOUBLE, 0, NULL, NULL);
	for (int i = 0; i < v->rank; i++) {
		dims[i] = v->dims[i].e ? -1 : v->dims[i].v;
		params[i] = v->dims[i].e ? lower_dim_param(c, v->dims[i].e) : NULL;
	}
	if (part) {     /* a complex tensor is its (real, imag) parts, a trailing dim of 2 */
		dims[v->rank] = 2;
		return onnx_value_info(c->a, name, dtype_onnx(part), v->rank + 1, dims, params);
	}
	return onnx_value_info(c->a, name, dtype_onnx(v->dtype), v->rank, dims, params);
}

int
lower_declare_inputs(LowerCtx *c)
{
	const Program *p = c->prog;

	for (int i = 0; i < p->ninput_spec; i++) {
		const InputSpec *s = &p->input_specs[i];
		const Value *v = s->arg->kind == ARG_TENSOR || s->arg->kind == ARG_SYM_INT ||
		                 s->arg->kind == ARG_SYM_BOOL || s->arg->kind == ARG_SYM_FLOAT ||
		                 s->arg->kind == ARG_CUSTOM_OBJ ? s->arg->u.v : NULL;
		if (!v || s->kind == IN_CONSTANT_INPUT)
			continue;
		strmap_put(c->names, v->name, (void *)v->name);
		c->alias[v->id] = lower_alias_new(c, NULL, NULL, NULL, v->name);
		if (s->kind == IN_USER_INPUT && v->kind != VAL_CUSTOM_OBJ) {
			if (v->kind == VAL_TENSOR && !dtype_onnx(v->dtype) && !dtype_complex_part(v->dtype))
				return diag_report(c->d, YE_INPUT_DTYPE, &(DiagAt){.file = p->path},
					"input '%s' is %s, which ONNX has no type for", v->name, dtype_name(v->dtype));
			onnx_vec_push(c->a, &c->g.inputs, lower_value_info(c, v->name, v));
		} else if (v->data && c->uses[v->id]) {
			const TensorData *t = v->data;
			size_t len;
			const uint8_t *b = tensor_bytes(c->a, t, &len);
			DType part = dtype_complex_part(t->dtype);
			if (!dtype_onnx(t->dtype) && !part)
				return diag_report(c->d, YE_INPUT_DTYPE, &(DiagAt){.file = p->path},
					"weight '%s' is %s, which ONNX has no type for", s->target, dtype_name(t->dtype));
			if (part) {     /* complex: its bytes are (real, imag) pairs already */
				int64_t *sz = ARENA_ARRAY(c->a, int64_t, t->rank + 1);
				for (int k = 0; k < t->rank; k++)
					sz[k] = t->sizes[k];
				sz[t->rank] = 2;
				onnx_vec_push(c->a, &c->g.inits, onnx_tensor(c->a, v->name, dtype_onnx(part),
				                                             t->rank + 1, sz, b, len));
			} else {
				onnx_vec_push(c->a, &c->g.inits, onnx_tensor(c->a, v->name, dtype_onnx(t->dtype),
				                                             t->rank, t->sizes, b, len));
			}
		} else if (c->uses[v->id] && s->kind != IN_TOKEN) {
			/* an effect token has no ONNX value: only with_effects reads it */
			return diag_report(c->d, YE_INPUT_KIND, &(DiagAt){.file = p->path},
				"input '%s' (%s) is not supported yet", v->name, s->target ? s->target : "custom object or token");
		}
	}
	return 0;
}


/* 1 for an output that is a graph value (tensor or SymInt/SymBool/SymFloat). */
int
lower_is_value_arg(const Arg *g)
{
	return g->kind == ARG_TENSOR || g->kind == ARG_SYM_INT || g->kind == ARG_SYM_BOOL ||
	       g->kind == ARG_SYM_FLOAT;
}

/* Collects the user outputs and reserves their final names. */
int
lower_plan_outputs(LowerCtx *c, OutSlot **slots, int *nslot)
{
	const Program *p = c->prog;
	const LowerOptions *o = c->opt;
	static const char renamed[] = "output";
	int n = 0;

	*slots = ARENA_ARRAY(c->a, OutSlot, p->noutput_spec + 1);
	for (int i = 0; i < p->noutput_spec; i++) {
		const OutputSpec *s = &p->output_specs[i];
		OutSlot *sl = &(*slots)[n];
		if (s->kind != OUT_USER_OUTPUT && s->kind != OUT_LOSS_OUTPUT)
			continue;
		if (s->arg->kind == ARG_NONE)
			continue;
		sl->arg = s->arg;
		if (n < o->noutput_name) {
			sl->final = o->output_names[n];
			if (strmap_get(c->names, sl->final))
				return diag_report(c->d, YE_OUTPUT_NAME_TAKEN, NULL,
					"options: output name '%s' is already the name of an input",
				                  sl->final);
			strmap_put(c->names, sl->final, (void *)renamed);
		} else if (lower_is_value_arg(s->arg)) {
			const Value *v = s->arg->u.v;
			void *cur = strmap_get(c->names, v->name);
			for (int j = 0; j < n; j++)    /* an earlier output of the same value */
				if ((*slots)[j].arg->u.v == v && (*slots)[j].arg->kind == s->arg->kind)
					cur = (void *)renamed;
			if (cur && cur != (void *)v)   /* an input, or the same value again */
				sl->final = lower_name(c, v->name);
			else
				strmap_put(c->names, sl->final = v->name, (void *)v);
		} else {
			sl->final = lower_name(c, arena_printf(c->a, "output_%d", n));
		}
		n++;
	}
	if (o->noutput_name > n)
		return diag_report(c->d, YE_OUTPUT_NAMES_COUNT, NULL,
			"options: output_names has %d names but the program has %d outputs",
		                  o->noutput_name, n);
	*nslot = n;
	return 0;
}

/* Renames value `from` to `to` in every node and value_info. */
static void
rename_value(LowerCtx *c, const char *from, const char *to)
{
	intptr_t vi = (intptr_t)strmap_get(c->vinfo, from);

	for (size_t i = 0; i < c->g.nodes.n; i++) {
		OnnxNode *nd = c->g.nodes.v[i];
		for (size_t k = 0; k < nd->n_input; k++)
			if (strcmp(nd->input[k], from) == 0)
				nd->input[k] = (char *)to;
		for (size_t k = 0; k < nd->n_output; k++)
			if (strcmp(nd->output[k], from) == 0)
				nd->output[k] = (char *)to;
	}
	strmap_put(c->producer, to, strmap_get(c->producer, from));
	strmap_put(c->producer, from, NULL);
	strmap_put(c->vinfo, from, NULL);
	if (vi) {
		Onnx__ValueInfoProto *v = c->g.value_info.v[vi - 1];
		v->name = (char *)to;
		strmap_put(c->vinfo, to, (void *)vi);
	}
}

static void
drop_value_info(LowerCtx *c, const char *name)
{
	intptr_t vi = (intptr_t)strmap_get(c->vinfo, name);

	if (vi)
		c->g.value_info.v[vi - 1] = NULL;
	strmap_put(c->vinfo, name, NULL);
}

/* ONNX has no assertion operator: the check is a Reshape of the int64
 * [0] to the shape [2 - cond], which the runtime rejects when cond is false
 * ("cannot reshape"); its result compared with [0] gates the outputs.
 * (Reshaping cond itself, after an Unsqueeze, trips an onnxruntime graph
 * optimizer, hence the constant.) */
void
lower_assert(LowerCtx *c, const char *cond, const char *msg)
{
	static const int64_t zero = 0, two = 2;
	const char *shape, *zero1 = lower_i64s(c, 1, &zero);
	OnnxNode *check;

	shape = lower_op(c, "Sub", NULL, 2, lower_i64s(c, 1, &two), lower_cast(c, cond, DT_BOOL, DT_INT64));
	lower_op(c, "Reshape", NULL, 2, zero1, shape);
	check = c->last;
	if (msg)
		check->doc_string = (char *)msg;
	lower_op(c, "Equal", NULL, 2, check->output[0], zero1);
	onnx_vec_push(c->a, &c->asserts, (void *)lower_squeeze(c, c->last->output[0], 1, &zero, NULL));
}

/* keep_assertions: a bool 0-d that is true once every kept assertion of
 * c's graph passed its check, or NULL when there is none. */
static const char *
assert_gate(LowerCtx *c)
{
	const char *ok;

	if (!c->asserts.n)
		return NULL;
	ok = c->asserts.v[0];
	for (size_t i = 1; i < c->asserts.n; i++)
		ok = lower_op(c, "And", NULL, 2, ok, (const char *)c->asserts.v[i]);
	c->asserts.n = 0;
	return ok;
}

int
lower_emit_outputs(LowerCtx *c, OutSlot *s, int n)
{
	const char *ok;

	c->node = NULL;
	for (int i = 0; i < n; i++) {
		const Arg *g = s[i].arg;
		if (lower_is_value_arg(g))
			s[i].cur = lower_value(c, g->u.v);
		else if (g->kind == ARG_INT || g->kind == ARG_BOOL)
			s[i].cur = lower_scalar(c, g->kind == ARG_BOOL ? DT_BOOL : DT_INT64, (double)g->u.i);
		else if (g->kind == ARG_FLOAT)
			s[i].cur = lower_scalar(c, DT_FLOAT64, g->u.f);
		else
			return diag_report(c->d, YE_OUTPUT_KIND, &(DiagAt){.file = c->prog->path},
				"output %d is a %s, which is not supported yet", i, arg_kind_key[g->kind]);
	}
	if ((ok = assert_gate(c)))
		for (int i = 0; i < n; i++)      /* outputs depend on the check, values unchanged */
			s[i].cur = lower_op(c, "Where", NULL, 3, ok, s[i].cur, s[i].cur);
	for (int i = 0; i < n; i++) {
		const char *cur = s[i].cur, *fin = s[i].final;
		int shared = 0;
		if (strcmp(cur, fin) != 0) {
			if (strmap_get(c->producer, fin)) {
				/* an earlier version of this value took the name */
				const char *moved = lower_name(c, fin);
				rename_value(c, fin, moved);
				for (int j = 0; j < n; j++)
					if (strcmp(s[j].cur, fin) == 0)
						s[j].cur = moved;
			}
			for (int j = 0; j < i; j++)
				shared |= strcmp(s[j].final, cur) == 0;
			if (strmap_get(c->producer, cur) && !shared) {
				rename_value(c, cur, fin);
				for (int j = i + 1; j < n; j++)
					if (strcmp(s[j].cur, cur) == 0)
						s[j].cur = fin;
			} else {
				lower_op(c, "Identity", fin, 1, cur);
			}
		}
		drop_value_info(c, fin);
		if (lower_is_value_arg(s[i].arg))
			onnx_vec_push(c->a, &c->g.outputs, lower_value_info(c, fin, s[i].arg->u.v));
		else
			onnx_vec_push(c->a, &c->g.outputs, onnx_value_info(c->a, fin,
			              s[i].arg->kind == ARG_BOOL ? ONNX_BOOL
			              : s[i].arg->kind == ARG_FLOAT ? ONNX_DOUBLE
			              : ONNX_INT64, 0, NULL, NULL));
	}
	return 0;
}

/* Marks every name the nodes of g and of its subgraphs read: an If branch
 * or a Loop body reads outer values without listing them as inputs. */
static void
mark_graph_reads(StrMap *live, const Onnx__GraphProto *g)
{
	for (size_t i = 0; i < g->n_node; i++) {
		const OnnxNode *nd = g->node[i];
		for (size_t j = 0; j < nd->n_input; j++)
			strmap_put(live, nd->input[j], live);
		for (size_t j = 0; j < nd->n_attribute; j++)
			if (nd->attribute[j]->g)
				mark_graph_reads(live, nd->attribute[j]->g);
	}
}

/* Drops nodes whose outputs nothing reads (a view lowered only to locate
 * a write, a value a later in-place write replaced), then initializers no
 * node reads.  One backward sweep: the nodes are in topological order. */
void
lower_prune(LowerCtx *c)
{
	StrMap *live = strmap_new(c->a, c->g.nodes.n * 2 + 64);
	size_t k = 0;

	for (size_t i = 0; i < c->g.outputs.n; i++)
		strmap_put(live, ((Onnx__ValueInfoProto *)c->g.outputs.v[i])->name, live);
	for (size_t i = c->g.nodes.n; i-- > 0;) {
		OnnxNode *nd = c->g.nodes.v[i];
		int used = 0;
		for (size_t j = 0; j < nd->n_output; j++)
			used |= nd->output[j][0] && strmap_get(live, nd->output[j]) != NULL;
		if (!used) {
			for (size_t j = 0; j < nd->n_output; j++)
				drop_value_info(c, nd->output[j]);
			c->g.nodes.v[i] = NULL;
			continue;
		}
		for (size_t j = 0; j < nd->n_input; j++)
			strmap_put(live, nd->input[j], live);
		for (size_t j = 0; j < nd->n_attribute; j++)
			if (nd->attribute[j]->g)
				mark_graph_reads(live, nd->attribute[j]->g);
	}
	for (size_t i = 0; i < c->g.inits.n; i++) {
		OnnxTensor *t = c->g.inits.v[i];
		if (strmap_get(live, t->name))
			c->g.inits.v[k++] = t;
	}
	c->g.inits.n = k;
}

LowerCtx *
lower_nested(LowerCtx *c, const char *name)
{
	LowerCtx *s = arena_dup(c->a, c, sizeof *c);

	memset(&s->g, 0, sizeof s->g);
	s->g.a = c->a;
	s->g.name = name;
	s->consts = strmap_new(c->a, 64);
	s->vinfo = strmap_new(c->a, 64);
	s->producer = strmap_new(c->a, 256);
	memset(&s->asserts, 0, sizeof s->asserts);
	s->ir = NULL;                   /* c's values are outer values here */
	s->alias = NULL;
	s->uses = NULL;
	s->outer = c;
	return s;
}

int
lower_graph(LowerCtx *c, const Graph *g, const char *const *in, const char **out)
{
	return c->graph_fn(c, g, in, out);
}

const char *
lower_graph_input(LowerCtx *s, const char *base, const Value *v)
{
	const char *name = lower_name(s, base);

	onnx_vec_push(s->a, &s->g.inputs, lower_value_info(s, name, v));
	return name;
}

void
lower_graph_outputs(LowerCtx *s, int n, const char *const *names, const Value *const *types)
{
	const char **fin = ARENA_ARRAY(s->a, const char *, n + 1);
	const char *ok = assert_gate(s);

	for (int i = 0; i < n; i++) {
		const char *x = ok ? lower_op(s, "Where", NULL, 3, ok, names[i], names[i]) : names[i];
		int again = 0;
		for (int j = 0; j < i; j++)
			again |= strcmp(fin[j], x) == 0;
		if (again || !strmap_get(s->producer, x))
			x = lower_op(s, "Identity", NULL, 1, x);
		fin[i] = x;
		drop_value_info(s, x);
		onnx_vec_push(s->a, &s->g.outputs, lower_value_info(s, x, types[i]));
	}
}

Onnx__GraphProto *
lower_nested_end(LowerCtx *s)
{
	lower_prune(s);
	s->outer->nconst = s->nconst;
	return onnx_graph_finish(&s->g);
}
