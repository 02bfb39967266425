/* irtext.c: the text form of a Program (docs/text-graph.md) into the IR.
 *
 * The text is read line by line.  Sections (program header, symbols,
 * inputs, outputs, samples) come before the main graph in the file but
 * name its values, so the reader only remembers where each section starts,
 * reads the graph, and then goes back to them.  A value is declared where
 * it is defined (a graph's input list, a node's outputs) with its type,
 * and every later name resolves to it (ir_lookup: this graph, then the
 * enclosing ones).  The kind of an argument is inferred from its spelling
 * (`2` int, `2.0` float, `[a, None]` optional tensors...) because the text
 * keeps no kinds; docs/text-graph.md lists the rules.
 *
 * Weights and sample tensors get arena bytes: the values written after
 * `=`, else a deterministic fill, so a text graph converts the same way on
 * every machine.  Errors are one message "file:line:col: what".
 *
 * This file reads the sections and puts the program together; the lexer,
 * the graph blocks and the tensor bytes are irtext_lex.c, irtext_graph.c
 * and irtext_values.c (internal.h). */
#include "read/read.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "ir/ir.h"
#include "read/internal.h"

/* ---- sections ---- */

typedef struct Sections {
	Lex program, symbols, inputs, outputs, samples;
	int has_program, has_symbols, has_inputs, has_outputs, has_samples;
} Sections;

static int
parse_header(Lex *L, Program *p)
{
	while (irt_next_line(L), irt_skip_empty_lines(L) && irt_indent_of(L) > 0) {
		irt_skip_ws(L);
		if (irt_accept(L, "container:")) {
			irt_skip_ws(L);
			p->container = arena_strndup(L->a, L->p, (size_t)(L->eol - L->p));
			L->p = L->eol;
		} else if (irt_accept(L, "schema ")) {
			int64_t major, minor;
			const char **vs = ARENA_ARRAY(L->a, const char *, 1);
			const char *s;
			int nv = 0;
			const char *at, *ver = irt_number_token(L, &at);
			int pos = 0;
			if (sscanf(ver, "%" SCNd64 ".%" SCNd64 "%n", &major, &minor, &pos) != 2 || ver[pos])
				return irt_err(L, at, "expected the schema version MAJOR.MINOR, not '%s'", ver);
			if (irt_expect(L, ", torch ", "after the schema version"))
				return DIAG_INPUT;
			p->schema_major = (int)major;
			p->schema_minor = (int)minor;
			p->torch_version = irt_span_until(L, ",", NULL);
			if (irt_expect(L, ", verifiers", "after the torch version"))
				return DIAG_INPUT;
			while (!irt_accept(L, ",")) {
				if (!(s = irt_ident(L, 1)))
					return irt_err(L, L->p, "expected a verifier name or ', aten opset N'");
				PUSH(L->a, vs, nv, s);
			}
			p->verifiers = vs;
			p->nverifier = nv;
			if (irt_expect(L, "aten opset", "after the verifiers") || irt_parse_int(L, &major, "(aten opset)"))
				return DIAG_INPUT;
			p->aten_opset = (int)major;
		} else if (irt_accept(L, "forward(")) {
			const char **names = ARENA_ARRAY(L->a, const char *, 1);
			int n = 0;
			const char *s;
			if (!irt_accept(L, ")")) {
				for (;;) {
					if (!(s = irt_ident(L, 0)))
						return irt_err(L, L->p, "expected an argument name in forward(...)");
					PUSH(L->a, names, n, s);
					if (irt_accept(L, ")"))
						break;
					if (irt_expect(L, ",", "between forward() argument names"))
						return DIAG_INPUT;
				}
			}
			p->forward_arg_names = names;
			p->nforward_arg = n;
		} else {
			return irt_err(L, L->p, "unknown program line: expected 'container:', 'schema ...' or 'forward(...)'");
		}
		if (!irt_at_line_end(L))
			return irt_err(L, L->p, "unexpected text at the end of the line");
	}
	return 0;
}

static int
parse_symbols(Lex *L, Program *p)
{
	p->ranges = ARENA_ARRAY(L->a, RangeConstraint, 1);
	while (irt_next_line(L), irt_skip_empty_lines(L) && irt_indent_of(L) > 0) {
		RangeConstraint r = {0};
		const char *at, *key;
		const char *in;
		irt_skip_ws(L);
		at = L->p;
		in = NULL;
		for (const char *q = L->p; q + 5 <= L->eol; q++)
			if (memcmp(q, " in [", 5) == 0)
				in = q;
		if (!in)
			return irt_err(L, at, "expected 'EXPR in [MIN, MAX]'");
		key = arena_strndup(L->a, at, (size_t)(in - at));
		if (!(r.expr = irt_parse_expr(L, at, key)))
			return DIAG_INPUT;
		r.key = key;
		L->p = in + 5;
		if (irt_accept(L, "-inf"))
			r.has_min = 0;
		else if (irt_parse_int(L, &r.min, "(the minimum) or -inf"))
			return DIAG_INPUT;
		else
			r.has_min = 1;
		if (irt_expect(L, ",", "between the minimum and the maximum"))
			return DIAG_INPUT;
		if (irt_accept(L, "inf"))
			r.has_max = 0;
		else if (irt_parse_int(L, &r.max, "(the maximum) or inf"))
			return DIAG_INPUT;
		else
			r.has_max = 1;
		if (irt_expect(L, "]", "closing the range") || !irt_at_line_end(L))
			return L->d->code ? DIAG_INPUT : irt_err(L, L->p, "unexpected text after the range");
		PUSH(L->a, p->ranges, p->nrange, r);
	}
	return 0;
}

static int
same_type(const Value *a, const Value *b)
{
	if (a->kind != b->kind)
		return 0;
	if (a->kind == VAL_TENSOR) {
		if (a->dtype != b->dtype || a->rank != b->rank)
			return 0;
		for (int i = 0; i < a->rank; i++)
			if (a->dims[i].v != b->dims[i].v || !a->dims[i].e != !b->dims[i].e ||
			    (a->dims[i].e && !sym_equal(a->dims[i].e, b->dims[i].e)))
				return 0;
	}
	return 1;
}

/* Static sizes of v, or an error naming the symbolic dim. */
static int64_t *
static_sizes(Lex *L, const char *at, const Value *v)
{
	int64_t *s = ARENA_ARRAY(L->a, int64_t, v->rank + 1);

	for (int i = 0; i < v->rank; i++) {
		if (v->dims[i].e) {
			irt_err(L, at, "weight '%s' has a symbolic dim %s: weights need static shapes", v->name,
			    sym_print(L->a, v->dims[i].e));
			return NULL;
		}
		s[i] = v->dims[i].v;
	}
	return s;
}

static const struct { const char *name; InputKind kind; } input_kinds[] = {
	{"user_input", IN_USER_INPUT}, {"parameter", IN_PARAMETER}, {"buffer", IN_BUFFER},
	{"tensor_constant", IN_TENSOR_CONSTANT}, {"custom_obj", IN_CUSTOM_OBJ}, {"token", IN_TOKEN},
	{"constant_input", IN_CONSTANT_INPUT},
};

/* "KIND ARG[: TYPE] [<- TARGET] [(not persistent)] [[ENTRY, N bytes]] [= VALUES]"
 * or "constant_input NAME = ARG"; the i-th describes graph input i. */
static int
parse_input_line(Lex *L, Program *p, int i, InputSpec *s)
{
	Graph *g = p->graph;
	const char *at = L->p, *kind = irt_ident(L, 0), *argat;
	uint64_t bytes = 0;
	const char *entry = NULL;
	Fill f = {.kind = FILL_DEFAULT, .seed = (uint64_t)i};
	size_t k;
	Arg a;

	for (k = 0; kind && k < sizeof input_kinds / sizeof input_kinds[0]; k++)
		if (strcmp(kind, input_kinds[k].name) == 0)
			break;
	if (!kind || k == sizeof input_kinds / sizeof input_kinds[0])
		return irt_err(L, at, "expected an input kind (user_input, parameter, buffer, tensor_constant, ...)");
	s->kind = input_kinds[k].kind;
	s->persistent = 1;
	if (i >= g->ninput)
		return irt_err(L, at, "input %d is listed but graph main has %d inputs", i + 1, g->ninput);
	s->arg = &g->inputs[i];
	if (s->kind == IN_CONSTANT_INPUT) {
		if (!(s->target = irt_ident(L, 1)) || irt_expect(L, "=", "after the constant input's name"))
			return irt_err(L, L->p, "expected 'constant_input NAME = VALUE'");
		return irt_parse_arg(L, NULL, &s->value) || !irt_at_line_end(L)
		       ? (L->d->code ? DIAG_INPUT : irt_err(L, L->p, "unexpected text after the constant")) : 0;
	}
	irt_skip_ws(L);
	argat = L->p;
	if (irt_parse_arg(L, g, &a))
		return DIAG_INPUT;
	if (a.kind != s->arg->kind || ((a.kind == ARG_TENSOR || a.kind == ARG_SYM_INT || a.kind == ARG_SYM_BOOL ||
	                                a.kind == ARG_SYM_FLOAT || a.kind == ARG_CUSTOM_OBJ) && a.u.v != s->arg->u.v))
		return irt_err(L, argat, "input %d is not what graph main takes as its input %d", i + 1, i + 1);
	if (irt_accept(L, ":")) {
		Value t = {0};
		if (irt_parse_type(L, &t))
			return DIAG_INPUT;
		if (a.kind != ARG_TENSOR || !same_type(&t, a.u.v))
			return irt_err(L, argat, "input '%s' has another type in graph main", a.u.v->name);
	}
	if (irt_accept(L, "<-"))
		s->target = irt_span_until(L, " \t", NULL);
	if (irt_accept(L, "(not persistent)"))
		s->persistent = 0;
	if (irt_accept(L, "[")) {
		int64_t n;
		entry = irt_span_until(L, ",", NULL);   /* the zip entry it came from, kept for messages */
		const char *nat;
		if (irt_expect(L, ",", "after the entry"))
			return DIAG_INPUT;
		irt_skip_ws(L);
		nat = L->p;
		if (irt_parse_int(L, &n, "(the storage size)") || irt_expect(L, "bytes]", "after the storage size"))
			return DIAG_INPUT;
		if (n < 0)      /* 0: an empty tensor's storage (a lifted float32[0] constant) */
			return irt_err(L, nat, "a storage of %lld bytes (0 or more)", (long long)n);
		bytes = (uint64_t)n;
	}
	if (irt_accept(L, "=") && irt_parse_fill(L, &f))
		return DIAG_INPUT;
	if (!irt_at_line_end(L))
		return irt_err(L, L->p, "unexpected text in the input line");
	if (s->kind == IN_PARAMETER || s->kind == IN_BUFFER || s->kind == IN_TENSOR_CONSTANT) {
		Value *v = a.u.v;
		int64_t *sizes;
		if (a.kind != ARG_TENSOR)
			return irt_err(L, argat, "a %s must be a tensor", kind);
		if (!s->target)
			s->target = v->name;
		if (!(sizes = static_sizes(L, argat, v)))
			return DIAG_INPUT;
		if (!(v->data = irt_make_tensor(L, argat, v->dtype, v->rank, sizes, NULL, 0, bytes, &f,
		                            arena_printf(L->a, "weight '%s'", v->name))))
			return DIAG_INPUT;
		if (entry)
			v->data->entry = entry;
	} else if (f.kind != FILL_DEFAULT || bytes) {
		return irt_err(L, argat, "only parameters, buffers and tensor constants take values");
	}
	return 0;
}

static int
parse_inputs(Lex *L, Program *p)
{
	p->input_specs = ARENA_ARRAY(L->a, InputSpec, p->graph->ninput + 1);
	while (irt_next_line(L), irt_skip_empty_lines(L) && irt_indent_of(L) > 0) {
		InputSpec *s = &p->input_specs[p->ninput_spec];
		irt_skip_ws(L);
		if (p->ninput_spec >= p->graph->ninput)
			return irt_err(L, L->p, "more inputs listed than graph main has (%d)", p->graph->ninput);
		if (parse_input_line(L, p, p->ninput_spec, s))
			return DIAG_INPUT;
		p->ninput_spec++;
	}
	if (p->ninput_spec != p->graph->ninput)
		return irt_err(L, L->bol, "%d inputs listed for the %d inputs of graph main", p->ninput_spec, p->graph->ninput);
	return 0;
}

static const struct { const char *name; OutputKind kind; } output_kinds[] = {
	{"user_output", OUT_USER_OUTPUT}, {"loss_output", OUT_LOSS_OUTPUT},
	{"buffer_mutation", OUT_BUFFER_MUTATION}, {"gradient_to_parameter", OUT_GRADIENT_TO_PARAMETER},
	{"gradient_to_user_input", OUT_GRADIENT_TO_USER_INPUT},
	{"user_input_mutation", OUT_USER_INPUT_MUTATION}, {"token", OUT_TOKEN},
	{"parameter_mutation", OUT_PARAMETER_MUTATION},
};

static int
parse_outputs(Lex *L, Program *p)
{
	Graph *g = p->graph;

	p->output_specs = ARENA_ARRAY(L->a, OutputSpec, g->noutput + 1);
	while (irt_next_line(L), irt_skip_empty_lines(L) && irt_indent_of(L) > 0) {
		OutputSpec *s = &p->output_specs[p->noutput_spec];
		const char *at, *kind, *argat;
		size_t k;
		Arg a;
		irt_skip_ws(L);
		at = L->p;
		kind = irt_ident(L, 0);
		for (k = 0; kind && k < sizeof output_kinds / sizeof output_kinds[0]; k++)
			if (strcmp(kind, output_kinds[k].name) == 0)
				break;
		if (!kind || k == sizeof output_kinds / sizeof output_kinds[0])
			return irt_err(L, at, "expected an output kind (user_output, buffer_mutation, ...)");
		if (p->noutput_spec >= g->noutput)
			return irt_err(L, at, "more outputs listed than graph main returns (%d)", g->noutput);
		s->kind = output_kinds[k].kind;
		s->arg = &g->outputs[p->noutput_spec];
		irt_skip_ws(L);
		argat = L->p;
		if (irt_parse_arg(L, g, &a))
			return DIAG_INPUT;
		if (a.kind != s->arg->kind || ((a.kind == ARG_TENSOR || a.kind == ARG_SYM_INT) && a.u.v != s->arg->u.v))
			return irt_err(L, argat, "output %d is not what graph main returns at position %d",
			           p->noutput_spec + 1, p->noutput_spec + 1);
		if (irt_accept(L, "->"))
			s->target = irt_span_until(L, " \t", NULL);
		if (!irt_at_line_end(L))
			return irt_err(L, L->p, "unexpected text in the output line");
		p->noutput_spec++;
	}
	if (p->noutput_spec != g->noutput)
		return irt_err(L, L->bol, "%d outputs listed for the %d values graph main returns", p->noutput_spec, g->noutput);
	return 0;
}

/* "N: dtype[sizes] [strides [..] offset K] [= VALUES]" or "N: ARG". */
static int
parse_samples(Lex *L, Program *p)
{
	p->samples = ARENA_ARRAY(L->a, Sample, 1);
	while (irt_next_line(L), irt_skip_empty_lines(L) && irt_indent_of(L) > 0) {
		Sample s = {0};
		int64_t idx;
		const char *at, *save, *name;
		irt_skip_ws(L);
		at = L->p;
		if (irt_parse_int(L, &idx, "(the sample's index)") || irt_expect(L, ":", "after the sample's index"))
			return DIAG_INPUT;
		if (idx != p->nsample)
			return irt_err(L, at, "sample %lld where sample %d was expected", (long long)idx, p->nsample);
		irt_skip_ws(L);
		save = L->p;
		if ((name = irt_ident(L, 0)) && dtype_from_name(name) != DT_UNKNOWN && L->p < L->eol && *L->p == '[') {
			Value t = {0};
			int64_t *sizes, *strides = NULL, offset = 0;
			Fill f = {.kind = FILL_DEFAULT, .seed = 1000 + (uint64_t)p->nsample};
			L->p = save;
			if (irt_parse_type(L, &t))
				return DIAG_INPUT;
			t.name = "sample";
			if (!(sizes = static_sizes(L, save, &t)))
				return DIAG_INPUT;
			if (irt_accept(L, "strides [")) {
				strides = ARENA_ARRAY(L->a, int64_t, t.rank + 1);
				for (int i = 0; i < t.rank; i++)
					if ((i && irt_expect(L, ",", "between strides")) || irt_parse_int(L, &strides[i], "(a stride)"))
						return DIAG_INPUT;
				if (irt_expect(L, "]", "closing the strides") || irt_expect(L, "offset", "after the strides") ||
				    irt_parse_int(L, &offset, "(the storage offset)"))
					return DIAG_INPUT;
			}
			if (irt_accept(L, "=") && irt_parse_fill(L, &f))
				return DIAG_INPUT;
			if (!(s.t = irt_make_tensor(L, save, t.dtype, t.rank, sizes, strides, offset, 0, &f,
			                        arena_printf(L->a, "sample %d", p->nsample))))
				return DIAG_INPUT;
		} else {
			L->p = save;
			if (irt_parse_arg(L, NULL, &s.scalar))
				return DIAG_INPUT;
		}
		if (!irt_at_line_end(L))
			return irt_err(L, L->p, "unexpected text after the sample");
		PUSH(L->a, p->samples, p->nsample, s);
	}
	return 0;
}

/* Without an inputs (outputs) section: every graph input is a user input
 * and every tensor one weightless; every output a user output. */
static void
default_specs(Program *p, const Sections *sec)
{
	Graph *g = p->graph;

	if (!sec->has_inputs) {
		p->ninput_spec = g->ninput;
		p->input_specs = ARENA_ARRAY(p->arena, InputSpec, g->ninput + 1);
		for (int i = 0; i < g->ninput; i++)
			p->input_specs[i] = (InputSpec){.kind = IN_USER_INPUT, .arg = &g->inputs[i], .persistent = 1};
	}
	if (!sec->has_outputs) {
		p->noutput_spec = g->noutput;
		p->output_specs = ARENA_ARRAY(p->arena, OutputSpec, g->noutput + 1);
		for (int i = 0; i < g->noutput; i++)
			p->output_specs[i] = (OutputSpec){.kind = OUT_USER_OUTPUT, .arg = &g->outputs[i]};
	}
}

/* Skips the indented lines of a section, leaving L on the next top-level line. */
static void
skip_section(Lex *L)
{
	while (irt_next_line(L), irt_skip_empty_lines(L) && irt_indent_of(L) > 0)
		;
}

int
irtext_parse(Program *p, const char *label, const char *text, size_t len, Diag *d)
{
	Lex L = {.a = p->arena, .d = d, .label = label, .end = text + len, .line = 1};
	Sections sec = {0};
	Lex *slot;
	int *has;

	p->path = label;
	p->container = "text graph";
	p->torch_version = "none";
	irt_set_line(&L, text);
	while (irt_skip_empty_lines(&L)) {
		const char *word;
		if (irt_indent_of(&L) > 0)
			return irt_err(&L, L.bol + irt_indent_of(&L), "indented line outside a section");
		word = irt_ident(&L, 0);
		if (word && strcmp(word, "graph") == 0) {
			if (!irt_accept(&L, "main"))
				return irt_err(&L, L.p, "the top-level graph must be 'graph main(...)'");
			p->graph = ARENA_NEW(p->arena, Graph);
			p->graph->name = "";
			if (irt_parse_graph_head(&L, p->graph) || irt_parse_graph_body(&L, p->graph))
				return DIAG_INPUT;
			irt_next_line(&L);
			if (irt_skip_empty_lines(&L))
				return irt_err(&L, L.p, "text after graph main (a line starting with '===' ends the graph text)");
			break;
		}
		slot = NULL;
		has = NULL;
#define SECTION(w) if (word && strcmp(word, #w) == 0) slot = &sec.w, has = &sec.has_##w;
		SECTION(program) SECTION(symbols) SECTION(inputs) SECTION(outputs) SECTION(samples)
#undef SECTION
		if (!slot)
			return irt_err(&L, L.bol, "expected a section (program, symbols, inputs, outputs, samples) or 'graph main('");
		if (*has)
			return irt_err(&L, L.bol, "section '%s' appears twice", word);
		if (strcmp(word, "program") && !irt_at_line_end(&L))
			return irt_err(&L, L.p, "unexpected text after '%s'", word);
		*has = 1;
		*slot = L;
		skip_section(&L);
	}
	if (!p->graph)
		return irt_err(&L, L.p, "no 'graph main(...) {' in the text");
	if (sec.has_program && parse_header(&sec.program, p))
		return DIAG_INPUT;
	if (sec.has_symbols && parse_symbols(&sec.symbols, p))
		return DIAG_INPUT;
	if (sec.has_inputs && parse_inputs(&sec.inputs, p))
		return DIAG_INPUT;
	if (sec.has_outputs && parse_outputs(&sec.outputs, p))
		return DIAG_INPUT;
	if (sec.has_samples && parse_samples(&sec.samples, p))
		return DIAG_INPUT;
	default_specs(p, &sec);
	return 0;
}

int
irtext_sniff(const char *path)
{
	static const char *const starts[] = {"#", "program ", "symbols", "inputs", "outputs", "samples", "graph "};
	char buf[256], why[160];
	size_t n = 0, i = 0;
	uint64_t size;
	int fd = file_open(path, 0, &size, why, sizeof why);
	ssize_t got;

	if (fd < 0)
		return 0;
	got = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (got > 0)
		n = (size_t)got;
	buf[n] = 0;
	while (i < n && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t'))
		i++;
	for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++)
		if (strncmp(buf + i, starts[k], strlen(starts[k])) == 0)
			return 1;
	return 0;
}

int
irtext_load(Program *p, const char *path, Diag *d)
{
	char why[160];
	size_t got;
	char *text = file_slurp(p->arena, path, 0, &got, why, sizeof why);

	if (!text)
		return diag_report(d, YE_INPUT_UNREADABLE, &(DiagAt){.file = path}, "cannot read: %s", why);
	if (memchr(text, 0, got))
		return diag_report(d, YE_INPUT_UNREADABLE, &(DiagAt){.file = path}, "a text graph holds no NUL bytes");
	return irtext_parse(p, path, text, got, d);
}
