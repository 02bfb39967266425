/* irprint.c: text rendering of a Program.  Deterministic: follows file
 * order everywhere and prints floats with %.9g. */
#include "ir/ir.h"

#include <stdlib.h>
#include <string.h>

/* IR_PRINT_* of the ir_print_ext() call under way; 0 for ir_print().  A
 * file-level setting, not a parameter, so that the default rendering's
 * code stays as it is (the printer is not reentrant anyway: one FILE). */
static unsigned print_flags;

static const char *const input_kind_name[] = {
	[IN_USER_INPUT] = "user_input", [IN_PARAMETER] = "parameter", [IN_BUFFER] = "buffer",
	[IN_TENSOR_CONSTANT] = "tensor_constant", [IN_CUSTOM_OBJ] = "custom_obj",
	[IN_TOKEN] = "token", [IN_CONSTANT_INPUT] = "constant_input",
};

static const char *const output_kind_name[] = {
	[OUT_USER_OUTPUT] = "user_output", [OUT_LOSS_OUTPUT] = "loss_output",
	[OUT_BUFFER_MUTATION] = "buffer_mutation", [OUT_GRADIENT_TO_PARAMETER] = "gradient_to_parameter",
	[OUT_GRADIENT_TO_USER_INPUT] = "gradient_to_user_input",
	[OUT_USER_INPUT_MUTATION] = "user_input_mutation", [OUT_TOKEN] = "token",
	[OUT_PARAMETER_MUTATION] = "parameter_mutation",
};

static void
print_dims(FILE *f, Arena *a, int rank, const Dim *dims)
{
	fputc('[', f);
	for (int i = 0; i < rank; i++) {
		if (i)
			fputc(',', f);
		if (dims[i].e)
			fputs(sym_print(a, dims[i].e), f);
		else
			fprintf(f, "%lld", (long long)dims[i].v);
	}
	fputc(']', f);
}

char *
ir_value_type(Arena *a, const Value *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	char *s;

	if (!f)
		die("open_memstream failed");
	switch (v->kind) {
	case VAL_TENSOR:
		fputs(dtype_name(v->dtype), f);
		print_dims(f, a, v->rank, v->dims);
		break;
	case VAL_SYM_INT: case VAL_SYM_BOOL: case VAL_SYM_FLOAT:
		fputs(v->kind == VAL_SYM_INT ? "SymInt" : v->kind == VAL_SYM_BOOL ? "SymBool" : "SymFloat", f);
		if (v->expr)
			fprintf(f, "(%s)", sym_print(a, v->expr));
		break;
	case VAL_CUSTOM_OBJ:
		fprintf(f, "object %s", v->class_fqn ? v->class_fqn : "?");
		break;
	case VAL_TOKEN:
		fputs("token", f);
		break;
	}
	fclose(f);
	s = arena_strdup(a, buf);
	free(buf);
	return s;
}

/* %.9g; with IR_PRINT_EXACT, as many digits as it takes to read the same
 * double back, and a ".0" on integral values so they read as floats. */
static void
print_float(FILE *f, double x)
{
	char buf[40];

	snprintf(buf, sizeof buf, "%.9g", x);
	if (print_flags & IR_PRINT_EXACT) {
		if (strtod(buf, NULL) != x && x == x)
			snprintf(buf, sizeof buf, "%.17g", x);
		if (!strpbrk(buf, ".eni"))
			strcat(buf, ".0");
	}
	fputs(buf, f);
}

static void
print_arg(FILE *f, const Arg *g)
{
	switch (g->kind) {
	case ARG_NONE: fputs("None", f); break;
	case ARG_TENSOR: case ARG_OPT_TENSOR: case ARG_SYM_INT: case ARG_SYM_BOOL:
	case ARG_SYM_FLOAT: case ARG_CUSTOM_OBJ:
		fputs(g->u.v->name, f);
		break;
	case ARG_INT: fprintf(f, "%lld", (long long)g->u.i); break;
	case ARG_FLOAT: print_float(f, g->u.f); break;
	case ARG_BOOL: fputs(g->u.i ? "True" : "False", f); break;
	case ARG_STRING: fprintf(f, "'%s'", g->u.s); break;
	case ARG_OPERATOR: fprintf(f, "op:%s", g->u.s); break;
	case ARG_DEVICE: fprintf(f, "device:%s", g->u.s); break;
	case ARG_SCALAR_TYPE: fprintf(f, "dtype:%s", dtype_name(dtype_from_torch((long)g->u.i))); break;
	case ARG_MEMORY_FORMAT: fprintf(f, "memory_format:%lld", (long long)g->u.i); break;
	case ARG_LAYOUT: fprintf(f, "layout:%lld", (long long)g->u.i); break;
	case ARG_COMPLEX: fprintf(f, "complex(%.9g, %.9g)", g->u.c[0], g->u.c[1]); break;
	case ARG_GRAPH: fprintf(f, "graph:%s", g->u.g->name); break;
	case ARG_STRING_TO_ARG:
		fputc('{', f);
		for (int i = 0; i < g->n; i++) {
			fprintf(f, "%s'%s': ", i ? ", " : "", g->u.list[i].key);
			print_arg(f, &g->u.list[i]);
		}
		fputc('}', f);
		break;
	default:   /* lists */
		fputc('[', f);
		for (int i = 0; i < g->n; i++) {
			if (i)
				fputs(", ", f);
			print_arg(f, &g->u.list[i]);
		}
		fputc(']', f);
		break;
	}
}

/* Outputs as "name: type" for each value an output Arg defines. */
static int
print_outputs(FILE *f, Arena *a, const Arg *o, int first)
{
	switch (o->kind) {
	case ARG_TENSOR: case ARG_OPT_TENSOR: case ARG_SYM_INT: case ARG_SYM_BOOL:
	case ARG_SYM_FLOAT: case ARG_CUSTOM_OBJ:
		fprintf(f, "%s%s: %s", first ? "" : ", ", o->u.v->name, ir_value_type(a, o->u.v));
		return 0;
	case ARG_NONE:
		fprintf(f, "%s_", first ? "" : ", ");
		return 0;
	default:
		if (o->n == 0 || o->kind == ARG_STRING_TO_ARG)
			break;
		fprintf(f, "%s(", first ? "" : ", ");
		for (int i = 0; i < o->n; i++)
			print_outputs(f, a, &o->u.list[i], i == 0);
		fputc(')', f);
		return 0;
	}
	fprintf(f, "%s", first ? "" : ", ");
	print_arg(f, o);
	return 0;
}

static void print_graph(FILE *f, Arena *a, const Graph *g, int indent);

static void
print_node(FILE *f, Arena *a, const Node *n, int indent)
{
	fprintf(f, "%*s", indent, "");
	if (n->nout == 0)
		fputs("_", f);
	for (int i = 0; i < n->nout; i++)
		print_outputs(f, a, &n->out[i], i == 0);
	fprintf(f, " = %s(", n->op);
	for (int i = 0; i < n->nin; i++) {
		if (i)
			fputs(", ", f);
		if (n->in[i].name[0])
			fprintf(f, "%s=", n->in[i].name);
		print_arg(f, &n->in[i].arg);
	}
	fputc(')', f);
	if ((print_flags & IR_PRINT_NAMES) &&
	    !(n->nout && (n->out[0].kind == ARG_TENSOR || n->out[0].kind == ARG_SYM_INT ||
	                  n->out[0].kind == ARG_SYM_BOOL || n->out[0].kind == ARG_SYM_FLOAT) &&
	      strcmp(n->name, n->out[0].u.v->name) == 0))
		fprintf(f, " @%s", n->name);
	if (n->frame) {
		/* one line per node: the frame's code may not hold a newline */
		fputs("  # ", f);
		for (const char *p = n->frame; *p && *p != '\n'; p++)
			fputc(*p, f);
	}
	fputc('\n', f);
	for (int i = 0; i < n->nin; i++)
		if (n->in[i].arg.kind == ARG_GRAPH)
			print_graph(f, a, n->in[i].arg.u.g, indent + 2);
}

static void
print_graph(FILE *f, Arena *a, const Graph *g, int indent)
{
	fprintf(f, "%*sgraph %s(", indent, "", g->name[0] ? g->name : "main");
	for (int i = 0; i < g->ninput; i++) {
		const Arg *in = &g->inputs[i];
		if (i)
			fputs(", ", f);
		if (in->kind == ARG_TENSOR || in->kind == ARG_SYM_INT || in->kind == ARG_SYM_BOOL ||
		    in->kind == ARG_SYM_FLOAT || in->kind == ARG_CUSTOM_OBJ)
			fprintf(f, "%s: %s", in->u.v->name, ir_value_type(a, in->u.v));
		else
			print_arg(f, in);
	}
	fputs(") {\n", f);
	for (int i = 0; i < g->nnode; i++)
		print_node(f, a, g->nodes[i], indent + 2);
	fprintf(f, "%*sreturn (", indent + 2, "");
	for (int i = 0; i < g->noutput; i++) {
		if (i)
			fputs(", ", f);
		print_arg(f, &g->outputs[i]);
	}
	fprintf(f, ")\n%*s}\n", indent, "");
}

static void
print_tensor(FILE *f, const TensorData *t)
{
	fputs(dtype_name(t->dtype), f);
	fputc('[', f);
	for (int i = 0; i < t->rank; i++)
		fprintf(f, "%s%lld", i ? "," : "", (long long)t->sizes[i]);
	fputc(']', f);
	if (!tensor_is_contiguous(t) || t->offset) {
		fputs(" strides [", f);
		for (int i = 0; i < t->rank; i++)
			fprintf(f, "%s%lld", i ? "," : "", (long long)t->strides[i]);
		fprintf(f, "] offset %lld", (long long)t->offset);
	}
}

void
ir_print(FILE *f, const Program *p)
{
	Arena a;

	arena_init(&a);
	fprintf(f, "program %s\n", p->path);
	fprintf(f, "  container: %s\n", p->container);
	fprintf(f, "  schema %d.%d, torch %s, verifiers", p->schema_major, p->schema_minor, p->torch_version);
	for (int i = 0; i < p->nverifier; i++)
		fprintf(f, " %s", p->verifiers[i]);
	fprintf(f, ", aten opset %d\n", p->aten_opset);
	if (p->nforward_arg) {
		fputs("  forward(", f);
		for (int i = 0; i < p->nforward_arg; i++)
			fprintf(f, "%s%s", i ? ", " : "", p->forward_arg_names[i]);
		fputs(")\n", f);
	}
	if (p->nrange)
		fputs("symbols\n", f);
	for (int i = 0; i < p->nrange; i++) {
		const RangeConstraint *r = &p->ranges[i];
		fprintf(f, "  %s in [", sym_print(&a, r->expr));
		r->has_min ? fprintf(f, "%lld", (long long)r->min) : fputs("-inf", f);
		fputs(", ", f);
		r->has_max ? fprintf(f, "%lld", (long long)r->max) : fputs("inf", f);
		fputs("]\n", f);
	}
	fputs("inputs\n", f);
	for (int i = 0; i < p->ninput_spec; i++) {
		const InputSpec *s = &p->input_specs[i];
		fprintf(f, "  %s ", input_kind_name[s->kind]);
		if (s->kind == IN_CONSTANT_INPUT) {
			fprintf(f, "%s = ", s->target);
			print_arg(f, &s->value);
		} else {
			print_arg(f, s->arg);
			if (s->arg->kind == ARG_TENSOR)
				fprintf(f, ": %s", ir_value_type(&a, s->arg->u.v));
		}
		if (s->target && s->kind != IN_CONSTANT_INPUT)
			fprintf(f, " <- %s", s->target);
		if (s->kind == IN_BUFFER && !s->persistent)
			fputs(" (not persistent)", f);
		if (s->arg->kind == ARG_TENSOR && s->arg->u.v->data) {
			const TensorData *t = s->arg->u.v->data;
			fprintf(f, " [%s, %llu bytes]", t->entry, (unsigned long long)t->storage_bytes);
		}
		fputc('\n', f);
	}
	fputs("outputs\n", f);
	for (int i = 0; i < p->noutput_spec; i++) {
		const OutputSpec *s = &p->output_specs[i];
		fprintf(f, "  %s ", output_kind_name[s->kind]);
		print_arg(f, s->arg);
		if (s->target)
			fprintf(f, " -> %s", s->target);
		fputc('\n', f);
	}
	if (p->nsample)
		fputs("samples\n", f);
	for (int i = 0; i < p->nsample; i++) {
		fprintf(f, "  %d: ", i);
		if (p->samples[i].t)
			print_tensor(f, p->samples[i].t);
		else
			print_arg(f, &p->samples[i].scalar);
		fputc('\n', f);
	}
	print_graph(f, &a, p->graph, 0);
	arena_free(&a);
}

void
ir_print_ext(FILE *f, const Program *p, unsigned flags)
{
	print_flags = flags;
	ir_print(f, p);
	print_flags = 0;
}
