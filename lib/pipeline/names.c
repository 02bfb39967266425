/* names.c: the names users choose (options input_names, output_names,
 * dim_names), applied to the model and so to its signature.
 *
 * dim_names becomes dynamic_dimensions requests before lowering (the
 * lowering names every dim_param from them); output_names is the lowering's
 * (lib/lower/scope.c), checked here first against the inputs' names so that
 * a conflict names the option's line and column; input_names renames the
 * ONNX graph inputs once the optimizer is done, every reference in nested
 * graphs included, moving an internal value that held the name aside. */
#include "pipeline/pipeline.h"

#include <string.h>

#include "pipeline/internal.h"

static int
at(Diag *d, DiagCode code, const Options *o, const OptionAt *w, const char *fmt, const char *a, const char *b)
{
	return diag_report(d, code, &(DiagAt){.file = o->label, .line = w->line, .column = w->col}, fmt, a, b);
}

/* The user input values of p in order: the ONNX graph inputs the lowering
 * declares (tensors and symbolic numbers); *n gets how many. */
static const Value **
user_inputs(const Program *p, Arena *a, int *n)
{
	const Value **v = ARENA_ARRAY(a, const Value *, p->ninput_spec + 1);

	*n = 0;
	for (int i = 0; i < p->ninput_spec; i++)
		if (p->input_specs[i].kind == IN_USER_INPUT && pipeline_value_arg(p->input_specs[i].arg))
			v[(*n)++] = p->input_specs[i].arg->u.v;
	return v;
}

/* dim_names: {name or torch symbol: new name} -> one more DimRequest each,
 * on the first input axis whose dim is that symbol. */
static int
dim_requests(Pipeline *pl, const Value **in, int nin, Diag *d)
{
	Options *o = &pl->opt;
	const DimNames *dn;
	DimRequest *r;
	int n = o->ndim_request;

	if (!o->ndim_name)
		return 0;
	if (!(dn = dimnames_build(&pl->prog, o->dim_requests, o->ndim_request, o->label, pl->a, d)))
		return DIAG_INPUT;
	r = ARENA_ARRAY(pl->a, DimRequest, n + o->ndim_name + 1);
	if (n)
		memcpy(r, o->dim_requests, sizeof *r * (size_t)n);
	for (int i = 0; i < o->ndim_name; i++) {
		int found = 0;
		for (int k = 0; k < nin && !found; k++)
			for (int x = 0; in[k]->kind == VAL_TENSOR && x < in[k]->rank && !found; x++) {
				const SymExpr *e = in[k]->dims[x].e;
				if (!e || e->op != SYM_SYMBOL || (strcmp(e->name, o->dim_name_from[i]) != 0 &&
				                                  strcmp(dimnames_symbol(dn, e->name), o->dim_name_from[i]) != 0))
					continue;
				found = 1;
				for (int j = 0; j < n && found == 1; j++)   /* a bundle's second capture */
					if (r[j].axis == x && strcmp(r[j].input, in[k]->name) == 0 &&
					    strcmp(r[j].name, o->dim_name_to[i]) == 0)
						found = 2;
				if (found == 1)
					r[n++] = (DimRequest){in[k]->name, x, o->dim_name_to[i], o->dim_name_at[i].line,
					                      o->dim_name_at[i].col};
			}
		if (!found)
			return at(d, YE_DIM_NAME_UNKNOWN, o, &o->dim_name_at[i],
			          "dim_names: no input axis has the dimension '%s'%s", o->dim_name_from[i],
			          " (name a dynamic axis of a user input as --signature shows it, or its torch symbol)");
	}
	o->dim_requests = r;
	o->ndim_request = n;
	return 0;
}

int
pipeline_names_before(Pipeline *pl, Diag *d)
{
	const Options *o = &pl->opt;
	int nin, rc;
	const Value **in;

	if (!pl->prog.graph)
		return 0;
	in = user_inputs(&pl->prog, pl->a, &nin);
	if ((rc = dim_requests(pl, in, nin, d)))
		return rc;
	if (o->ninput_name > nin)
		return at(d, YE_INPUT_NAMES_COUNT, o, &o->input_name_at[nin],
		          "input_names: '%s' is one name too many: the program has %s user inputs", o->input_names[nin],
		          arena_printf(pl->a, "%d", nin));
	for (int j = 0; j < o->noutput_name; j++)
		for (int i = 0; i < nin; i++) {
			const char *name = i < o->ninput_name ? o->input_names[i] : in[i]->name;
			if (strcmp(name, o->output_names[j]) == 0)
				return at(d, i < o->ninput_name ? YE_INPUT_NAME_TAKEN : YE_OUTPUT_NAME_TAKEN, o,
				          i < o->ninput_name ? &o->input_name_at[i] : &o->output_name_at[j],
				          "'%s' is the name of both an input and an output%s", name,
				          i < o->ninput_name ? " (output_names has it too)" : " (an input of the program)");
		}
	return 0;
}

/* ---- renaming an ONNX value everywhere ---- */

static void
rename_infos(Onnx__ValueInfoProto **v, size_t n, const char *from, char *to)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i]->name, from) == 0)
			v[i]->name = to;
}

static void
rename_in(Onnx__GraphProto *g, const char *from, char *to)
{
	for (size_t i = 0; i < g->n_node; i++) {
		Onnx__NodeProto *n = g->node[i];
		for (size_t k = 0; k < n->n_input; k++)
			if (strcmp(n->input[k], from) == 0)
				n->input[k] = to;
		for (size_t k = 0; k < n->n_output; k++)
			if (strcmp(n->output[k], from) == 0)
				n->output[k] = to;
		for (size_t k = 0; k < n->n_attribute; k++) {
			Onnx__AttributeProto *at = n->attribute[k];
			if (at->g)
				rename_in(at->g, from, to);
			for (size_t j = 0; j < at->n_graphs; j++)
				rename_in(at->graphs[j], from, to);
		}
	}
	for (size_t i = 0; i < g->n_initializer; i++)
		if (strcmp(g->initializer[i]->name, from) == 0)
			g->initializer[i]->name = to;
	rename_infos(g->input, g->n_input, from, to);
	rename_infos(g->output, g->n_output, from, to);
	rename_infos(g->value_info, g->n_value_info, from, to);
}

/* Every value name of g and its subgraphs, into taken. */
static void
names_of(const Onnx__GraphProto *g, StrMap *taken)
{
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *n = g->node[i];
		for (size_t k = 0; k < n->n_output; k++)
			strmap_put(taken, n->output[k], (void *)1);
		for (size_t k = 0; k < n->n_input; k++)
			strmap_put(taken, n->input[k], (void *)1);
		for (size_t k = 0; k < n->n_attribute; k++) {
			if (n->attribute[k]->g)
				names_of(n->attribute[k]->g, taken);
			for (size_t j = 0; j < n->attribute[k]->n_graphs; j++)
				names_of(n->attribute[k]->graphs[j], taken);
		}
	}
	for (size_t i = 0; i < g->n_initializer; i++)
		strmap_put(taken, g->initializer[i]->name, (void *)1);
	for (size_t i = 0; i < g->n_input; i++)
		strmap_put(taken, g->input[i]->name, (void *)1);
	for (size_t i = 0; i < g->n_output; i++)
		strmap_put(taken, g->output[i]->name, (void *)1);
}

int
pipeline_names_after(Pipeline *pl, Diag *d)
{
	const Options *o = &pl->opt;
	Onnx__GraphProto *g = pl->model->graph;
	StrMap *taken;

	if (!o->ninput_name)
		return 0;
	if (o->ninput_name > (int)g->n_input)
		return at(d, YE_INPUT_NAMES_COUNT, o, &o->input_name_at[g->n_input],
		          "input_names: '%s' is one name too many: the model has %s inputs",
		          o->input_names[g->n_input], arena_printf(pl->a, "%zu", g->n_input));
	taken = strmap_new(pl->a, 256);
	names_of(g, taken);
	pl->renamed = strmap_new(pl->a, 16);
	for (int i = 0; i < o->ninput_name; i++) {
		const char *from = g->input[i]->name;
		char *to = arena_strdup(pl->a, o->input_names[i]);
		if (strcmp(from, to) == 0)
			continue;
		for (size_t k = 0; k < g->n_output; k++)
			if (strcmp(g->output[k]->name, to) == 0)
				return at(d, YE_INPUT_NAME_TAKEN, o, &o->input_name_at[i],
				          "input_names: '%s' is already the name of an output%s", to, "");
		for (size_t k = 0; k < g->n_input; k++)
			if (strcmp(g->input[k]->name, to) == 0)
				return at(d, YE_INPUT_NAME_TAKEN, o, &o->input_name_at[i],
				          "input_names: '%s' is already the name of input %s", to,
				          arena_printf(pl->a, "%zu", k));
		if (strmap_get(taken, to)) {   /* an internal value: it moves aside */
			char *aside = to;
			for (int k = 1; strmap_get(taken, aside); k++)
				aside = arena_printf(pl->a, "%s__%d", to, k);
			rename_in(g, to, aside);
			strmap_put(taken, aside, (void *)1);
		}
		strmap_put(pl->renamed, to, (void *)from);
		rename_in(g, from, to);
		strmap_put(taken, to, (void *)1);
	}
	return 0;
}
