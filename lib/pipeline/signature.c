/* signature.c: the converted model's interface (pipeline.h, "signature"),
 * read off the ONNX graph's inputs and outputs, each input's origin taken
 * from the program's signature and each symbol's range from its range
 * constraints; and the user inputs' axes explained from the program alone
 * (its dims, range constraints and the guards torch recorded), as far as
 * the dump says: the report's `signature` sheet and the end of --print. */
#include "pipeline/pipeline.h"

#include <ctype.h>
#include <string.h>

#include "pipeline/internal.h"

const char *const sig_change_name[SIG_CHANGE_COUNT] = {
#define X(e, name, what) name,
#include "sigchange.def"
#undef X
};

const char *const sig_change_what[SIG_CHANGE_COUNT] = {
#define X(e, name, what) what,
#include "sigchange.def"
#undef X
};

/* The dimension names the lowering gave (dimnames_build is deterministic),
 * or, when the options' requests do not apply (--print of a program they
 * do not fit), the default names. */
static const DimNames *
dim_names(const Pipeline *pl)
{
	Diag quiet = {0};
	const DimNames *dn;

	if (!pl->prog.graph)
		return NULL;
	dn = dimnames_build(&pl->prog, pl->opt.dim_requests, pl->opt.ndim_request, pl->opt.label, pl->a, &quiet);
	if (!dn)
		dn = dimnames_build(&pl->prog, NULL, 0, pl->opt.label, pl->a, &quiet);
	diag_free(&quiet);
	return dn;
}

/* ---- the symbols: name -> torch symbol and range ---- */

typedef struct Syms {
	Arena *a;
	StrMap *slot;           /* name -> index + 1 in sym */
	SigSymbol *sym;
	int n, cap;
	StrMap *torch;          /* name -> torch symbol */
	StrMap *range;          /* name -> its RangeConstraint */
} Syms;

static void
torch_symbols(Syms *s, const DimNames *dn, const SymExpr *e, int depth)
{
	if (!e || depth > SYM_MAX_DEPTH)
		return;
	if (e->op == SYM_SYMBOL)
		strmap_put(s->torch, dimnames_symbol(dn, e->name), (void *)e->name);
	for (int i = 0; i < e->n; i++)
		torch_symbols(s, dn, e->args[i], depth + 1);
}

/* What the program knows of its symbols, by their names in the model. */
static void
syms_init(Syms *s, const Program *p, const DimNames *dn, Arena *a)
{
	memset(s, 0, sizeof *s);
	s->a = a;
	s->slot = strmap_new(a, 16);
	s->torch = strmap_new(a, 16);
	s->range = strmap_new(a, 16);
	if (!dn)
		return;
	for (int i = 0; i < p->nrange; i++) {
		const RangeConstraint *r = &p->ranges[i];
		if (r->expr && r->expr->op == SYM_SYMBOL) {
			strmap_put(s->range, dimnames_symbol(dn, r->expr->name), (void *)r);
			strmap_put(s->torch, dimnames_symbol(dn, r->expr->name), (void *)r->expr->name);
		}
	}
	for (int i = 0; i < p->graph->nvalue; i++) {
		const Value *v = p->graph->values[i];
		for (int k = 0; v->kind == VAL_TENSOR && k < v->rank; k++)
			torch_symbols(s, dn, v->dims[k].e, 0);
	}
}

/* The symbol called name, added at the end when new. */
static SigSymbol *
syms_get(Syms *s, const char *name)
{
	intptr_t k = (intptr_t)strmap_get(s->slot, name);
	const RangeConstraint *r;

	if (k)
		return &s->sym[k - 1];
	if (s->n == s->cap) {
		SigSymbol *nv = ARENA_ARRAY(s->a, SigSymbol, s->cap = s->cap ? s->cap * 2 : 8);
		if (s->n)
			memcpy(nv, s->sym, sizeof *nv * (size_t)s->n);
		s->sym = nv;
	}
	s->sym[s->n] = (SigSymbol){.name = name, .torch = strmap_get(s->torch, name)};
	if ((r = strmap_get(s->range, name)))
		s->sym[s->n].has_min = r->has_min, s->sym[s->n].min = r->min,
		s->sym[s->n].has_max = r->has_max, s->sym[s->n].max = r->max;
	strmap_put(s->slot, name, (void *)(intptr_t)(s->n + 1));
	return &s->sym[s->n++];
}

static void
add_use(Syms *s, SigSymbol *y, const char *use)
{
	if (y->nuse && strcmp(y->uses[y->nuse - 1], use) == 0)
		return;       /* "2*seq*seq": one use of the axis */
	if ((y->nuse & (y->nuse - 1)) == 0) {
		const char **nv = ARENA_ARRAY(s->a, const char *, y->nuse ? y->nuse * 2 : 1);
		if (y->nuse)
			memcpy(nv, y->uses, sizeof *nv * (size_t)y->nuse);
		y->uses = nv;
	}
	y->uses[y->nuse++] = use;
}

/* Every name of the dim_param text (identifiers not followed by '(': a
 * function such as Max is no symbol) gets the use "value[axis]". */
static void
scan_param(Syms *s, const char *param, const char *value, int axis)
{
	const char *use = NULL;

	for (const char *c = param; *c;) {
		const char *b = c;
		if (!isalpha((unsigned char)*c) && *c != '_') {
			c++;
			continue;
		}
		while (isalnum((unsigned char)*c) || *c == '_')
			c++;
		if (*c == '(')
			continue;
		if (!use)
			use = arena_printf(s->a, "%s[%d]", value, axis);
		add_use(s, syms_get(s, arena_strndup(s->a, b, (size_t)(c - b))), use);
	}
}

/* ---- the ONNX inputs and outputs ---- */

static const char *const input_kind_name[] = {
	[IN_USER_INPUT] = "user_input", [IN_PARAMETER] = "parameter", [IN_BUFFER] = "buffer",
	[IN_TENSOR_CONSTANT] = "constant", [IN_CUSTOM_OBJ] = "custom_obj", [IN_TOKEN] = "token",
	[IN_CONSTANT_INPUT] = "constant_input",
};

static void
value_of(SigValue *sv, const Onnx__ValueInfoProto *vi, Syms *s, Arena *a)
{
	const Onnx__TypeProto *t = vi->type;
	const Onnx__TensorShapeProto *sh;

	sv->name = vi->name;
	sv->dtype = "unknown";
	sv->rank = -1;
	if (!t || t->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !t->tensor_type)
		return;
	if (t->tensor_type->has_elem_type)
		sv->dtype = dtype_name(dtype_from_onnx(t->tensor_type->elem_type));
	if (!(sh = t->tensor_type->shape))
		return;
	sv->rank = (int)sh->n_dim;
	sv->dims = ARENA_ARRAY(a, SigDim, sh->n_dim + 1);
	for (size_t k = 0; k < sh->n_dim; k++) {
		const Onnx__TensorShapeProto__Dimension *d = sh->dim[k];
		sv->dims[k].size = -1;
		if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
			sv->dims[k].size = d->dim_value;
		else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param) {
			sv->dims[k].param = d->dim_param;
			scan_param(s, d->dim_param, vi->name, (int)k);
		}
	}
}

/* The program's input spec of the graph input named name, or NULL. */
static const InputSpec *
input_spec(const Program *p, const char *name)
{
	for (int i = 0; p->graph && i < p->ninput_spec; i++) {
		const Arg *g = p->input_specs[i].arg;
		if (pipeline_value_arg(g) && strcmp(g->u.v->name, name) == 0)
			return &p->input_specs[i];
	}
	return NULL;
}

/* The k-th user (or loss) output spec that the lowering wrote, or NULL. */
static const OutputSpec *
output_spec(const Program *p, int k)
{
	for (int i = 0; p->graph && i < p->noutput_spec; i++) {
		const OutputSpec *s = &p->output_specs[i];
		if ((s->kind == OUT_USER_OUTPUT || s->kind == OUT_LOSS_OUTPUT) && s->arg->kind != ARG_NONE && !k--)
			return s;
	}
	return NULL;
}

static void
fill_io(Signature *sg, const Pipeline *pl, Syms *s)
{
	const Onnx__GraphProto *g = pl->model->graph;
	const Program *p = &pl->prog;
	Arena *a = pl->a;

	sg->nin = (int)g->n_input;
	sg->in = ARENA_ARRAY(a, SigValue, g->n_input + 1);
	for (size_t i = 0; i < g->n_input; i++) {
		SigValue *sv = &sg->in[i];
		const char *own = pl->renamed ? strmap_get(pl->renamed, g->input[i]->name) : NULL;
		const InputSpec *spec = input_spec(p, own ? own : g->input[i]->name);
		value_of(sv, g->input[i], s, a);
		sv->torch_name = own;
		sv->source = spec ? input_kind_name[spec->kind] : "graph_input";
	}
	sg->nout = (int)g->n_output;
	sg->out = ARENA_ARRAY(a, SigValue, g->n_output + 1);
	for (size_t i = 0; i < g->n_output; i++) {
		SigValue *sv = &sg->out[i];
		const OutputSpec *spec = output_spec(p, (int)i);
		value_of(sv, g->output[i], s, a);
		sv->source = !spec ? "graph_output" : spec->kind == OUT_LOSS_OUTPUT ? "loss_output" : "user_output";
		if (spec && pipeline_value_arg(spec->arg) && strcmp(spec->arg->u.v->name, sv->name) != 0)
			sv->torch_name = spec->arg->u.v->name;
	}
}

Signature *
signature_build(const Pipeline *pl)
{
	const Onnx__ModelProto *m = pl->model;
	Signature *sg = ARENA_NEW(pl->a, Signature);
	const DimNames *dn = dim_names(pl);
	Syms s;

	memset(sg, 0, sizeof *sg);
	syms_init(&s, &pl->prog, dn, pl->a);
	sg->ir_version = m->ir_version;
	sg->nopset = (int)m->n_opset_import;
	sg->opset_domain = ARENA_ARRAY(pl->a, const char *, m->n_opset_import + 1);
	sg->opset_version = ARENA_ARRAY(pl->a, int64_t, m->n_opset_import + 1);
	for (size_t i = 0; i < m->n_opset_import; i++) {
		sg->opset_domain[i] = m->opset_import[i]->domain ? m->opset_import[i]->domain : "";
		sg->opset_version[i] = m->opset_import[i]->version;
	}
	sg->producer_name = m->producer_name ? m->producer_name : "";
	sg->producer_version = m->producer_version ? m->producer_version : "";
	sg->torch_version = pl->prog.graph ? pl->prog.torch_version : NULL;
	sg->capture_strategy = pl->strategy;
	fill_io(sg, pl, &s);
	sg->nsym = s.n;
	sg->sym = s.sym;
	sg->naxis = signature_axes(pl, &sg->axis);
	return sg;
}

/* ---- the axes explained ---- */

/* The first guard that names axis k of the input reached as one of the
 * paths torch writes (L['x'], L['args'][j], L['kwargs']['x']), or NULL. */
static const char *
guard_of(const Program *p, Arena *a, const char *arg, int j, int k)
{
	const char *path[3] = {
		arena_printf(a, "L['%s'].size()[%d]", arg, k),
		arena_printf(a, "L['args'][%d].size()[%d]", j, k),
		arena_printf(a, "L['kwargs']['%s'].size()[%d]", arg, k),
	};

	for (int i = 0; i < p->nguard; i++)
		for (int n = 0; n < 3; n++)
			if (strstr(p->guards[i], path[n]))
				return p->guards[i];
	return NULL;
}

static const RangeConstraint *
range_of(const Program *p, const SymExpr *e)
{
	for (int i = 0; i < p->nrange; i++)
		if (p->ranges[i].expr && sym_equal(p->ranges[i].expr, e))
			return &p->ranges[i];
	return NULL;
}

/* One axis: its kind and why.  first maps a torch symbol to the first
 * input axis holding it ("x[0]"). */
static void
explain(SigAxis *x, const Program *p, const DimNames *dn, const Dim *d, const char *guard,
        StrMap *first, Arena *a)
{
	const SymExpr *e = d->e;
	const RangeConstraint *r;

	if (!e) {
		x->dim = arena_printf(a, "%lld", (long long)d->v);
		if (guard) {
			x->kind = "specialized";
			x->why = arena_printf(a, "torch specialized it: its guard `%s`", guard);
		} else if (p->guards) {
			x->kind = "static";
			x->why = "no dynamic shape given for it (no guard of torch's names it)";
		} else {
			x->kind = "static";
			x->why = "fixed in the dump, which records no guards: no dynamic shape given for it, "
			         "or torch specialized it";
		}
		return;
	}
	x->dim = dimnames_expr(dn, e);
	x->torch = sym_print(a, e);
	if ((r = range_of(p, e)))
		x->has_min = r->has_min, x->min = r->min, x->has_max = r->has_max, x->max = r->max;
	if (e->op != SYM_SYMBOL) {
		x->kind = "derived";
		x->why = "an expression of other dimensions (a derived Dim, or torch refined it)";
	} else if (strmap_get(first, e->name)) {
		x->kind = "merged";
		x->why = arena_printf(a, "the same symbol as %s: they must be equal%s%s%s",
		                      (const char *)strmap_get(first, e->name), guard ? " (torch's guard `" : "",
		                      guard ? guard : "", guard ? "`)" : "");
	} else {
		strmap_put(first, e->name, arena_printf(a, "%s[%d]", x->input, x->axis));
		x->kind = "symbolic";
		x->why = "a symbol of its own";
	}
}

int
signature_axes(const Pipeline *pl, SigAxis **out)
{
	const Program *p = &pl->prog;
	const DimNames *dn = dim_names(pl);
	StrMap *first = strmap_new(pl->a, 16);
	int n = 0, cap = 0, fwd = 0, ui = 0;

	*out = NULL;
	if (!dn)
		return 0;
	for (int i = 0; i < p->ninput_spec; i++)
		if (p->input_specs[i].kind == IN_USER_INPUT && p->input_specs[i].arg->kind == ARG_TENSOR)
			cap += p->input_specs[i].arg->u.v->rank;
	*out = ARENA_ARRAY(pl->a, SigAxis, cap + 1);
	for (int i = 0; i < p->ninput_spec; i++) {
		const InputSpec *s = &p->input_specs[i];
		const Value *v;
		const char *arg, *name;
		int j = fwd;
		if (s->kind != IN_USER_INPUT && s->kind != IN_CONSTANT_INPUT)
			continue;
		fwd++;
		if (s->kind != IN_USER_INPUT || !pipeline_value_arg(s->arg))
			continue;
		v = s->arg->u.v;
		name = ui < pl->opt.ninput_name ? pl->opt.input_names[ui] : v->name;
		ui++;
		arg = j < p->nforward_arg && p->forward_arg_names ? p->forward_arg_names[j] : v->name;
		for (int k = 0; v->kind == VAL_TENSOR && k < v->rank; k++) {
			SigAxis *x = &(*out)[n++];
			memset(x, 0, sizeof *x);
			x->input = name;
			x->axis = k;
			explain(x, p, dn, &v->dims[k], guard_of(p, pl->a, arg, j, k), first, pl->a);
		}
	}
	return n;
}

/* ---- --print ----
 * After the graph, under a line starting with "===", where the text graph
 * reader stops (docs/text-graph.md). */

static void
print_range(FILE *f, int has_min, int64_t min, int has_max, int64_t max)
{
	if (!has_min && !has_max)
		return;
	fputs(" in [", f);
	if (has_min)
		fprintf(f, "%lld, ", (long long)min);
	else
		fputs("-inf, ", f);
	if (has_max)
		fprintf(f, "%lld]", (long long)max);
	else
		fputs("inf]", f);
}

/* The graph's assertions (main graph): where torch checks at run time
 * what it assumed of the sizes. */
static void
print_assertions(FILE *f, const Graph *g)
{
	int head = 0;

	for (int i = 0; i < g->nnode; i++) {
		const Node *n = g->nodes[i];
		const Arg *msg = ir_arg(n, "assert_msg");
		if (!strstr(n->op, "_assert_scalar") && !strstr(n->op, "sym_constrain_range"))
			continue;
		if (!head++)
			fputs("  assertions\n", f);
		fprintf(f, "    %s (%s)", n->name, n->op);
		if (msg && msg->kind == ARG_STRING && msg->u.s)
			fprintf(f, ": %s", msg->u.s);
		if (n->frame)
			fprintf(f, "  # %s", n->frame);
		fputc('\n', f);
	}
}

void
signature_print(const Pipeline *pl, FILE *f)
{
	const Program *p = &pl->prog;
	SigAxis *ax;
	int n = signature_axes(pl, &ax);
	Syms s;

	if (!p->graph)
		return;
	/* "===" ends a text graph: `--print > g.txt` still reads back */
	fputs("=== contract: each input axis, symbolic or fixed and why (docs/signature.md)\n  axes\n", f);
	syms_init(&s, p, dim_names(pl), pl->a);
	for (int i = 0; i < n; i++) {
		fprintf(f, "    %s[%d] = %s  %s: %s\n", ax[i].input, ax[i].axis, ax[i].dim, ax[i].kind, ax[i].why);
		if (ax[i].torch)
			scan_param(&s, ax[i].dim, ax[i].input, ax[i].axis);
	}
	if (!n)
		fputs("    (no tensor input)\n", f);
	if (s.n)
		fputs("  symbols\n", f);
	for (int i = 0; i < s.n; i++) {
		const SigSymbol *y = &s.sym[i];
		int merged = 0;
		for (int k = 0; k < n && !merged; k++)
			merged = strcmp(ax[k].kind, "merged") == 0 && strcmp(ax[k].dim, y->name) == 0;
		fprintf(f, "    %s", y->name);
		if (y->torch && strcmp(y->torch, y->name))
			fprintf(f, " (%s)", y->torch);
		print_range(f, y->has_min, y->min, y->has_max, y->max);
		fprintf(f, ": %s", merged ? "merged, " : "");
		for (int k = 0; k < y->nuse; k++)
			fprintf(f, "%s%s", k ? ", " : "", y->uses[k]);
		fputc('\n', f);
	}
	if (p->guards && p->nguard)
		fputs("  guards\n", f);
	for (int i = 0; i < p->nguard; i++)
		fprintf(f, "    %s\n", p->guards[i]);
	print_assertions(f, p->graph);
}
