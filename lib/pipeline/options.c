/* options.c: the options file, read with libyaml's document API.
 *
 * The file is one YAML mapping from keys (options.def) to values.  libyaml
 * does no typing, so every scalar is parsed and range-checked here; each
 * error names the file and the 1-based line:column of the node at fault. */
#include "pipeline/pipeline.h"

#include <errno.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "opt/opt.h"
#include "internal.h"

typedef struct OptCtx {
	Options *o;
	Arena *a;
	yaml_document_t *doc;
	const char *label;
	Diag *d;
} OptCtx;

typedef int (*OptFn)(OptCtx *c, yaml_node_t *v);

/* Reports msg at node at; returns DIAG_INPUT. */
static int
opt_err(OptCtx *c, const yaml_node_t *at, const char *msg)
{
	return diag_report(c->d, YE_OPTIONS_VALUE, &(DiagAt){.file = c->label, .line = (unsigned)(at->start_mark.line + 1), .column = (unsigned)(at->start_mark.column + 1)},
		"%s", msg);
}

static const char *
scalar(const yaml_node_t *v)
{
	return v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : NULL;
}

/* Parses a decimal integer scalar in [lo, hi]; key names it in messages. */
static int
opt_int(OptCtx *c, yaml_node_t *v, const char *key, long long lo, long long hi, long long *out)
{
	const char *s = scalar(v);
	char *end;
	long long x;

	if (!s || !*s)
		return opt_err(c, v, arena_printf(c->a, "'%s' needs an integer", key));
	errno = 0;
	x = strtoll(s, &end, 10);
	if (*end || errno == ERANGE || s[0] == ' ')
		return opt_err(c, v, arena_printf(c->a, "'%s' needs an integer, got '%s'", key, s));
	if (x < lo || x > hi)
		return opt_err(c, v, arena_printf(c->a, "'%s' must be between %lld and %lld, got %lld",
		                                  key, lo, hi, x));
	*out = x;
	return 0;
}

static int
opt_opset(OptCtx *c, yaml_node_t *v)
{
	long long x;

	if (opt_int(c, v, "opset", OPTIONS_OPSET_MIN, OPTIONS_OPSET_MAX, &x))
		return DIAG_INPUT;
	c->o->opset = (int)x;
	return 0;
}

static int
opt_external_data_threshold(OptCtx *c, yaml_node_t *v)
{
	long long x;

	if (opt_int(c, v, "external_data_threshold", 0, INT64_MAX, &x))
		return DIAG_INPUT;
	c->o->external_data_threshold = x;
	return 0;
}

static int
opt_external_data(OptCtx *c, yaml_node_t *v)
{
	const char *s = scalar(v);

	if (s && strcmp(s, "file") == 0)
		c->o->external_reference = 0;
	else if (s && strcmp(s, "reference") == 0)
		c->o->external_reference = 1;
	else
		return opt_err(c, v, arena_printf(c->a, "'external_data' needs file or reference%s%s%s",
		                                  s ? ", got '" : "", s ? s : "", s ? "'" : ""));
	return 0;
}

/* A list of names (output_names, input_names): non-empty, each once, and
 * where each is written. */
static int
opt_names(OptCtx *c, yaml_node_t *v, const char *key, const char *what, const char ***names,
          OptionAt **at, int *count)
{
	int n, k = 0;
	StrMap *seen;

	if (v->type != YAML_SEQUENCE_NODE)
		return opt_err(c, v, arena_printf(c->a, "'%s' needs a list of strings", key));
	n = (int)(v->data.sequence.items.top - v->data.sequence.items.start);
	seen = strmap_new(c->a, (size_t)n);
	*names = ARENA_ARRAY(c->a, const char *, n + 1);
	*at = ARENA_ARRAY(c->a, OptionAt, n + 1);
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *item = yaml_document_get_node(c->doc, *it);
		const char *s = item ? scalar(item) : NULL;
		if (!s || !*s)
			return opt_err(c, item ? item : v, arena_printf(c->a, "'%s' items must be non-empty strings", key));
		if (strmap_get(seen, s))
			return opt_err(c, item, arena_printf(c->a, "%s name '%s' is given twice", what, s));
		(*at)[k] = (OptionAt){(uint32_t)item->start_mark.line + 1, (uint32_t)item->start_mark.column + 1};
		(*names)[k++] = arena_strdup(c->a, s);
		strmap_put(seen, (*names)[k - 1], (void *)1);
	}
	*count = k;
	return 0;
}

static int
opt_output_names(OptCtx *c, yaml_node_t *v)
{
	return opt_names(c, v, "output_names", "output", &c->o->output_names, &c->o->output_name_at,
	                 &c->o->noutput_name);
}

static int
opt_input_names(OptCtx *c, yaml_node_t *v)
{
	return opt_names(c, v, "input_names", "input", &c->o->input_names, &c->o->input_name_at,
	                 &c->o->ninput_name);
}

/* dim_names: {dimension: name}, a dimension as --signature names it
 * (x_dim_0) or torch's symbol (s17).  Which axis has it is for
 * pipeline_names_before(), at the line:col kept here. */
static int
opt_dim_names(OptCtx *c, yaml_node_t *v)
{
	int n, k = 0;

	if (v->type != YAML_MAPPING_NODE)
		return opt_err(c, v, "'dim_names' needs a mapping of dimensions to names, like {x_dim_0: batch}");
	n = (int)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	c->o->dim_name_from = ARENA_ARRAY(c->a, const char *, n + 1);
	c->o->dim_name_to = ARENA_ARRAY(c->a, const char *, n + 1);
	c->o->dim_name_at = ARENA_ARRAY(c->a, OptionAt, n + 1);
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = yaml_document_get_node(c->doc, p->key), *vn = yaml_document_get_node(c->doc, p->value);
		const char *from = kn ? scalar(kn) : NULL, *to = vn ? scalar(vn) : NULL;
		if (!from || !*from)
			return opt_err(c, kn ? kn : v, "'dim_names' keys must be dimension names");
		if (!to || !*to)
			return opt_err(c, vn ? vn : kn, arena_printf(c->a, "'dim_names': '%s' needs a non-empty name", from));
		for (int j = 0; j < k; j++) {
			if (strcmp(c->o->dim_name_from[j], from) == 0)
				return opt_err(c, kn, arena_printf(c->a, "'dim_names': '%s' is named twice", from));
			if (strcmp(c->o->dim_name_to[j], to) == 0)
				return opt_err(c, vn, arena_printf(c->a, "'dim_names': '%s' and '%s' are both named '%s'",
				                                   c->o->dim_name_from[j], from, to));
		}
		c->o->dim_name_at[k] = (OptionAt){(uint32_t)kn->start_mark.line + 1, (uint32_t)kn->start_mark.column + 1};
		c->o->dim_name_from[k] = arena_strdup(c->a, from);
		c->o->dim_name_to[k++] = arena_strdup(c->a, to);
	}
	c->o->ndim_name = k;
	return 0;
}

/* signature_allow: a list of kinds of change (sigchange.def). */
static int
opt_signature_allow(OptCtx *c, yaml_node_t *v)
{
	const char *known = "";

	for (int i = 0; i < SIG_CHANGE_COUNT; i++)
		known = arena_printf(c->a, "%s%s%s", known, i ? ", " : "", sig_change_name[i]);
	if (v->type != YAML_SEQUENCE_NODE)
		return opt_err(c, v, arena_printf(c->a, "'signature_allow' needs a list of kinds of change (%s)", known));
	c->o->signature_allow = 0;
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *item = yaml_document_get_node(c->doc, *it);
		const char *s = item ? scalar(item) : NULL;
		int k = 0;
		while (s && k < SIG_CHANGE_COUNT && strcmp(sig_change_name[k], s) != 0)
			k++;
		if (!s || k == SIG_CHANGE_COUNT)
			return opt_err(c, item ? item : v, arena_printf(c->a, "'signature_allow': unknown kind '%s' (known: %s)",
			                                                 s ? s : "", known));
		c->o->signature_allow |= 1u << k;
	}
	return 0;
}

/* dynamic_dimensions: {input: {axis: name}}.  Only the form is checked
 * here; whether the input and axis exist is for dimnames_build(), which
 * reports at the line:col kept in each DimRequest. */
static int
opt_dynamic_dimensions(OptCtx *c, yaml_node_t *v)
{
	int n = 0;

	if (v->type != YAML_MAPPING_NODE)
		return opt_err(c, v, "'dynamic_dimensions' needs a mapping of input names to {axis: name}");
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *axes = yaml_document_get_node(c->doc, p->value);
		if (axes && axes->type == YAML_MAPPING_NODE)
			n += (int)(axes->data.mapping.pairs.top - axes->data.mapping.pairs.start);
	}
	c->o->dim_requests = ARENA_ARRAY(c->a, DimRequest, n + 1);
	c->o->ndim_request = 0;
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *in = yaml_document_get_node(c->doc, p->key);
		yaml_node_t *axes = yaml_document_get_node(c->doc, p->value);
		const char *input = in ? scalar(in) : NULL;
		if (!input || !*input)
			return opt_err(c, in ? in : v, "'dynamic_dimensions' keys must be input names");
		if (!axes || axes->type != YAML_MAPPING_NODE)
			return opt_err(c, axes ? axes : in, arena_printf(c->a,
			               "'dynamic_dimensions': input '%s' needs a mapping of axes to names, like {0: batch}", input));
		for (yaml_node_pair_t *q = axes->data.mapping.pairs.start; q < axes->data.mapping.pairs.top; q++) {
			yaml_node_t *ax = yaml_document_get_node(c->doc, q->key);
			yaml_node_t *nm = yaml_document_get_node(c->doc, q->value);
			const char *name = nm ? scalar(nm) : NULL;
			DimRequest *r = &c->o->dim_requests[c->o->ndim_request];
			const char *as = scalar(ax);
			char *end = NULL;
			long long axis = as && *as && *as != ' ' ? strtoll(as, &end, 10) : -1;
			if (!end || *end || axis < 0 || axis > 1 << 20)
				return opt_err(c, ax, arena_printf(c->a,
				               "'dynamic_dimensions': the axes of '%s' must be integers >= 0, got '%s'",
				               input, as ? as : "a collection"));
			if (!name || !*name)
				return opt_err(c, nm ? nm : ax, arena_printf(c->a,
				               "'dynamic_dimensions': axis %lld of '%s' needs a non-empty name", axis, input));
			for (int j = 0; j < c->o->ndim_request; j++)
				if (strcmp(c->o->dim_requests[j].input, input) == 0 && c->o->dim_requests[j].axis == axis)
					return opt_err(c, ax, arena_printf(c->a,
					               "'dynamic_dimensions': axis %lld of '%s' is named twice", axis, input));
			r->input = arena_strdup(c->a, input);
			r->axis = (int)axis;
			r->name = arena_strdup(c->a, name);
			r->line = (uint32_t)ax->start_mark.line + 1;
			r->col = (uint32_t)ax->start_mark.column + 1;
			c->o->ndim_request++;
		}
	}
	return 0;
}

/* A YAML boolean: true/false in any case, or yes/no, on/off. */
static int
opt_bool(OptCtx *c, yaml_node_t *v, const char *key, int *out)
{
	static const char *const yes[] = {"true", "yes", "on"}, *const no[] = {"false", "no", "off"};
	const char *s = scalar(v);

	for (int i = 0; s && i < 3; i++) {
		if (strcasecmp(s, yes[i]) == 0)
			return *out = 1, 0;
		if (strcasecmp(s, no[i]) == 0)
			return *out = 0, 0;
	}
	return opt_err(c, v, arena_printf(c->a, "'%s' needs true or false%s%s%s", key,
	                                  s ? ", got '" : "", s ? s : "", s ? "'" : ""));
}

static int
opt_keep_assertions(OptCtx *c, yaml_node_t *v)
{
	return opt_bool(c, v, "keep_assertions", &c->o->keep_assertions);
}

static int
opt_report(OptCtx *c, yaml_node_t *v)
{
	return opt_bool(c, v, "report", &c->o->report);
}

static int
opt_report_timings(OptCtx *c, yaml_node_t *v)
{
	return opt_bool(c, v, "report_timings", &c->o->report_timings);
}

static int
opt_verify_key(OptCtx *c, yaml_node_t *v)
{
	return opt_bool(c, v, "verify", &c->o->verify);
}

/* A non-empty path scalar into *out. */
static int
opt_path(OptCtx *c, yaml_node_t *v, const char *key, const char **out)
{
	const char *s = scalar(v);

	if (!s || !*s)
		return opt_err(c, v, arena_printf(c->a, "'%s' needs a path", key));
	*out = arena_strdup(c->a, s);
	return 0;
}

static int
opt_onnxruntime_library(OptCtx *c, yaml_node_t *v)
{
	return opt_path(c, v, "onnxruntime_library", &c->o->onnxruntime_library);
}

static int
opt_verify_inputs(OptCtx *c, yaml_node_t *v)
{
	return opt_path(c, v, "verify_inputs", &c->o->verify_inputs);
}

static int
opt_verify_outputs(OptCtx *c, yaml_node_t *v)
{
	return opt_path(c, v, "verify_outputs", &c->o->verify_outputs);
}

static int
opt_verify_tolerance(OptCtx *c, yaml_node_t *v)
{
	const char *s = scalar(v);
	char *end = NULL;
	double x;

	errno = 0;
	x = s && *s && *s != ' ' ? strtod(s, &end) : -1;
	if (!end || *end || errno || !(x > 0 && x < 1e6))
		return opt_err(c, v, arena_printf(c->a, "'verify_tolerance' needs a number above 0, got '%s'",
		                                  s ? s : "a collection"));
	c->o->verify_tolerance = x;
	return 0;
}

/* One selection expression (opt_select_parse) read from scalar node v;
 * an unknown name is reported at its own column when the scalar is on
 * one line. */
static int
opt_patterns_one(OptCtx *c, yaml_node_t *v, OptSelect **sel)
{
	const char *s = scalar(v);
	int off = 0, len = 0;
	yaml_node_t at;

	if (!s)
		return opt_err(c, v, "'patterns' needs a set name, an expression like default-CastCast, or a list of names");
	if (opt_select_parse(c->a, s, sel, &off, &len) == 0)
		return 0;
	at = *v;
	if (v->start_mark.line == v->end_mark.line)
		at.start_mark.column += (size_t)off + (v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? 0 : 1);
	if (!len)
		return opt_err(c, &at, "'patterns': a name is missing");
	return opt_err(c, &at, arena_printf(c->a, "unknown pattern '%.*s' (see docs/patterns.md)", len, s + off));
}

static int
opt_patterns(OptCtx *c, yaml_node_t *v)
{
	OptSelect *acc = NULL, *one;

	if (v->type != YAML_SEQUENCE_NODE) {
		if (opt_patterns_one(c, v, &one))
			return DIAG_INPUT;
		c->o->patterns = one;
		return 0;
	}
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *item = yaml_document_get_node(c->doc, *it);
		if (!item || opt_patterns_one(c, item, &one))
			return item ? DIAG_INPUT : opt_err(c, v, "'patterns': bad list item");
		acc = opt_select_union(c->a, acc, one);
	}
	c->o->patterns = acc ? acc : opt_select_union(c->a, NULL, NULL);
	return 0;
}

/* strategy: auto or one strategy name (strategy.def). */
static int
opt_strategy(OptCtx *c, yaml_node_t *v)
{
	const char *s = scalar(v);

	if (s && strcmp(s, "auto") == 0)
		return c->o->strategy = NULL, 0;
	if (!s || pipeline_strategy_find(s) < 0)
		return opt_err(c, v, arena_printf(c->a, "'strategy' needs auto or a strategy name (%s)%s%s%s",
		                                  pipeline_strategy_names(c->a), s ? ", got '" : "",
		                                  s ? s : "", s ? "'" : ""));
	c->o->strategy = arena_strdup(c->a, s);
	return 0;
}

/* fallback: a list of strategy names, each once. */
static int
opt_fallback(OptCtx *c, yaml_node_t *v)
{
	int n, k = 0;

	if (v->type != YAML_SEQUENCE_NODE)
		return opt_err(c, v, "'fallback' needs a list of strategy names");
	n = (int)(v->data.sequence.items.top - v->data.sequence.items.start);
	c->o->fallback = ARENA_ARRAY(c->a, const char *, n + 1);
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *item = yaml_document_get_node(c->doc, *it);
		const char *s = item ? scalar(item) : NULL;
		if (!s || pipeline_strategy_find(s) < 0)
			return opt_err(c, item ? item : v,
			               arena_printf(c->a, "'fallback': unknown strategy '%s' (known: %s)",
			                            s ? s : "", pipeline_strategy_names(c->a)));
		for (int j = 0; j < k; j++)
			if (strcmp(c->o->fallback[j], s) == 0)
				return opt_err(c, item, arena_printf(c->a, "'fallback': '%s' is listed twice", s));
		c->o->fallback[k++] = arena_strdup(c->a, s);
	}
	c->o->nfallback = k;
	c->o->has_fallback = 1;
	return 0;
}

static int
opt_custom_ops(OptCtx *c, yaml_node_t *v)
{
	return options_custom_ops(c->o, c->a, c->doc, v, c->label, c->d);
}

/* functions: a list of class names.  Whether a class has instances is for
 * the outlining (a warning there, not an error here). */
static int
opt_functions(OptCtx *c, yaml_node_t *v)
{
	int n, k = 0;

	if (v->type != YAML_SEQUENCE_NODE)
		return opt_err(c, v, "'functions' needs a list of module class names, like [LlamaDecoderLayer]");
	n = (int)(v->data.sequence.items.top - v->data.sequence.items.start);
	c->o->functions = ARENA_ARRAY(c->a, const char *, n + 1);
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *item = yaml_document_get_node(c->doc, *it);
		const char *s = item ? scalar(item) : NULL;
		if (!s || !*s || strpbrk(s, " ,;"))
			return opt_err(c, item ? item : v, "'functions' items must be class names (no spaces, commas or semicolons)");
		for (int j = 0; j < k; j++)
			if (strcmp(c->o->functions[j], s) == 0)
				return opt_err(c, item, arena_printf(c->a, "class '%s' is listed twice", s));
		c->o->functions[k++] = arena_strdup(c->a, s);
	}
	c->o->nfunction = k;
	return 0;
}

/* One entry of `inputs:`: {dtype: float32, shape: [batch, 3, 224, 224]}. */
static int
opt_input_one(OptCtx *c, yaml_node_t *v, const char *name, TsInput *in)
{
	yaml_node_t *dt = NULL, *sh = NULL;
	int64_t *dims;
	const char **names;
	int rank;

	if (v->type != YAML_MAPPING_NODE)
		return opt_err(c, v, "'inputs': each entry is a mapping {dtype: float32, shape: [batch, 3]}");
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
		const char *ks = k ? scalar(k) : NULL;
		if (ks && strcmp(ks, "dtype") == 0)
			dt = yaml_document_get_node(c->doc, p->value);
		else if (ks && strcmp(ks, "shape") == 0)
			sh = yaml_document_get_node(c->doc, p->value);
		else
			return opt_err(c, k ? k : v, arena_printf(c->a, "'inputs': unknown key '%s' (an entry has "
			               "dtype and shape)", ks ? ks : "?"));
	}
	in->name = name;
	in->line = (uint32_t)v->start_mark.line + 1;
	in->col = (uint32_t)v->start_mark.column + 1;
	if (!dt || !scalar(dt))
		return opt_err(c, v, "'inputs': the entry needs a dtype (float32, int64, bool, ...)");
	in->dtype = dtype_from_name(scalar(dt));
	if (in->dtype == DT_UNKNOWN)
		return opt_err(c, dt, arena_printf(c->a, "'inputs': unknown dtype '%s' (torch's names: "
		               "float32, float16, bfloat16, float64, int64, int32, int16, int8, uint8, bool, ...)",
		               scalar(dt)));
	if (!sh || sh->type != YAML_SEQUENCE_NODE)
		return opt_err(c, sh ? sh : v, "'inputs': the entry needs a shape, a list of sizes and names "
		               "([batch, 3, 224, 224]; [] for a 0-d tensor)");
	rank = (int)(sh->data.sequence.items.top - sh->data.sequence.items.start);
	if (rank > MAX_RANK)
		return opt_err(c, sh, arena_printf(c->a, "'inputs': a shape of more than %d dims", MAX_RANK));
	dims = ARENA_ARRAY(c->a, int64_t, rank + 1);
	names = ARENA_ARRAY(c->a, const char *, rank + 1);
	for (int i = 0; i < rank; i++) {
		yaml_node_t *d = yaml_document_get_node(c->doc, sh->data.sequence.items.start[i]);
		const char *s = d ? scalar(d) : NULL;
		char *end = NULL;
		long long x;
		if (!s || !*s)
			return opt_err(c, d ? d : sh, "'inputs': a size is a number or a name");
		x = strtoll(s, &end, 10);
		if (end && !*end) {
			if (x < 0 || x > (1LL << 40))
				return opt_err(c, d, arena_printf(c->a, "'inputs': size %lld is out of range", x));
			dims[i] = x;
		} else if (isalpha((unsigned char)s[0]) || s[0] == '_') {
			for (const char *q = s; *q; q++)
				if (!isalnum((unsigned char)*q) && *q != '_')
					return opt_err(c, d, arena_printf(c->a, "'inputs': dimension name '%s' must be an "
					               "identifier (letters, digits, _)", s));
			dims[i] = -1;
			names[i] = arena_strdup(c->a, s);
		} else {
			return opt_err(c, d, arena_printf(c->a, "'inputs': size '%s' is neither a number nor a name", s));
		}
	}
	in->rank = rank;
	in->dims = dims;
	in->names = names;
	return 0;
}

static int
opt_inputs(OptCtx *c, yaml_node_t *v)
{
	TsInput *in;
	int n = 0;

	c->o->inputs.label = c->o->label;
	if (v->type == YAML_SEQUENCE_NODE) {
		n = (int)(v->data.sequence.items.top - v->data.sequence.items.start);
		in = ARENA_ARRAY(c->a, TsInput, n + 1);
		for (int i = 0; i < n; i++) {
			yaml_node_t *e = yaml_document_get_node(c->doc, v->data.sequence.items.start[i]);
			if (!e || opt_input_one(c, e, NULL, &in[i]))
				return e ? DIAG_INPUT : opt_err(c, v, "'inputs': bad entry");
		}
	} else if (v->type == YAML_MAPPING_NODE) {
		n = (int)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
		in = ARENA_ARRAY(c->a, TsInput, n + 1);
		for (int i = 0; i < n; i++) {
			yaml_node_pair_t *p = &v->data.mapping.pairs.start[i];
			yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
			yaml_node_t *e = yaml_document_get_node(c->doc, p->value);
			const char *name = k ? scalar(k) : NULL;
			if (!name || !*name)
				return opt_err(c, k ? k : v, "'inputs': keys are forward's argument names");
			for (int j = 0; j < i; j++)
				if (strcmp(in[j].name, name) == 0)
					return opt_err(c, k, arena_printf(c->a, "'inputs': argument '%s' is given twice", name));
			if (!e || opt_input_one(c, e, arena_strdup(c->a, name), &in[i]))
				return e ? DIAG_INPUT : opt_err(c, k, "'inputs': bad entry");
		}
	} else {
		return opt_err(c, v, "'inputs' needs a list of {dtype, shape} entries, in forward's order, "
		               "or a mapping from argument name to its entry");
	}
	c->o->inputs.n = n;
	c->o->inputs.in = in;
	return 0;
}

static int
opt_function_weights(OptCtx *c, yaml_node_t *v)
{
	const char *s = scalar(v);

	if (s && strcmp(s, "inputs") == 0)
		c->o->function_embedded = 0;
	else if (s && strcmp(s, "embedded") == 0)
		c->o->function_embedded = 1;
	else
		return opt_err(c, v, arena_printf(c->a, "'function_weights' needs inputs or embedded%s%s%s",
		                                  s ? ", got '" : "", s ? s : "", s ? "'" : ""));
	return 0;
}

static const struct OptKey {
	const char *key;
	OptFn fn;
	const char *type, *def, *example, *doc;
} keys[] = {
#define OPTION(key, fn, type, def, example, doc) {key, fn, type, def, example, doc},
#include "options.def"
#undef OPTION
};

void
options_default(Options *o)
{
	memset(o, 0, sizeof *o);
	o->opset = 18;
	o->external_data_threshold = 1 << 20;
	o->report = 1;
	o->report_timings = 0;
	o->label = "options";
	o->inputs.n = -1;
}

/* The text of an option's value for the report, built in one buffer of
 * at most TEXT_MAX characters (then "..."): appending is linear, and an
 * alias-heavy value stops costing once the buffer is full. */
#define TEXT_MAX 4096

typedef struct Text {
	char buf[TEXT_MAX + 4];
	size_t len;
	int full;
} Text;

static void
text_add(Text *t, const char *s)
{
	size_t n = strlen(s);

	if (t->full)
		return;
	if (n > TEXT_MAX - t->len) {
		n = TEXT_MAX - t->len;
		t->full = 1;
	}
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	if (t->full)
		memcpy(t->buf + t->len, "...", 3), t->len += 3;
	t->buf[t->len] = 0;
}

/* v as text for the report: a scalar as written, collections in flow style. */
static void
yaml_text(OptCtx *c, yaml_node_t *v, int depth, Text *t)
{
	if (!v || depth > 16) {
		text_add(t, "...");
		return;
	}
	if (v->type == YAML_SCALAR_NODE) {
		text_add(t, scalar(v));
		return;
	}
	if (v->type == YAML_SEQUENCE_NODE) {
		text_add(t, "[");
		for (yaml_node_item_t *it = v->data.sequence.items.start; !t->full && it < v->data.sequence.items.top; it++) {
			if (it > v->data.sequence.items.start)
				text_add(t, ", ");
			yaml_text(c, yaml_document_get_node(c->doc, *it), depth + 1, t);
		}
		text_add(t, "]");
		return;
	}
	text_add(t, "{");
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start; !t->full && p < v->data.mapping.pairs.top; p++) {
		if (p > v->data.mapping.pairs.start)
			text_add(t, ", ");
		yaml_text(c, yaml_document_get_node(c->doc, p->key), depth + 1, t);
		text_add(t, ": ");
		yaml_text(c, yaml_document_get_node(c->doc, p->value), depth + 1, t);
	}
	text_add(t, "}");
}

/* The number of nodes v stands for once every alias is expanded, saturated
 * at OPTIONS_MAX_NODES + 1 (memo: per node id, 0 when not yet counted);
 * -1 when collections nest deeper than 64.  libyaml shares an aliased node
 * instead of copying it, so a file of a few KB can stand for billions of
 * nodes ("billion laughs"): every option's walk would pay for them. */
#define OPTIONS_MAX_NODES 20000

static long
expanded(yaml_document_t *doc, int id, long *memo, int depth)
{
	yaml_node_t *v = yaml_document_get_node(doc, id);
	long n = 1, k;

	if (!v)
		return 1;
	if (depth > 64)
		return -1;
	if (memo[id])
		return memo[id];
	if (v->type == YAML_SEQUENCE_NODE)
		for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
			if ((k = expanded(doc, *it, memo, depth + 1)) < 0)
				return -1;
			if ((n += k) > OPTIONS_MAX_NODES)
				return memo[id] = OPTIONS_MAX_NODES + 1;
		}
	else if (v->type == YAML_MAPPING_NODE)
		for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
			long kk = expanded(doc, p->key, memo, depth + 1), kv = kk < 0 ? -1 : expanded(doc, p->value, memo, depth + 1);
			if (kk < 0 || kv < 0)
				return -1;
			if ((n += kk + kv) > OPTIONS_MAX_NODES)
				return memo[id] = OPTIONS_MAX_NODES + 1;
		}
	return memo[id] = n;
}

/* 0, or a diagnostic when the document stands for too many nodes or nests
 * too deep (see expanded()). */
static int
check_size(OptCtx *c, yaml_node_t *root)
{
	size_t nnode = (size_t)(c->doc->nodes.top - c->doc->nodes.start);
	long *memo = arena_try_alloc(c->a, (nnode + 2) * sizeof *memo), n;

	if (!memo)
		return opt_err(c, root, "the options file holds more nodes than can be counted");
	n = expanded(c->doc, 1, memo, 0);
	if (n < 0)
		return opt_err(c, root, "the options nest deeper than 64 levels");
	if (n > OPTIONS_MAX_NODES)
		return opt_err(c, root, arena_printf(c->a, "the options stand for more than %d values once their "
		                                    "aliases are expanded", OPTIONS_MAX_NODES));
	return 0;
}

/* Remembers how the file wrote key i, for options_value(). */
static void
note_given(OptCtx *c, size_t i, yaml_node_t *v)
{
	if (!c->o->given)
		c->o->given = ARENA_ARRAY(c->a, const char *, sizeof keys / sizeof keys[0]);
	{
		Text t = {.len = 0};
		yaml_text(c, v, 0, &t);
		c->o->given[i] = arena_strdup(c->a, t.buf);
	}
}

int
options_count(void)
{
	return (int)(sizeof keys / sizeof keys[0]);
}

const char *
options_key(int i)
{
	return i >= 0 && i < options_count() ? keys[i].key : NULL;
}

const char *
options_value(const Options *o, int i)
{
	if (i < 0 || i >= options_count())
		return NULL;
	return o->given && o->given[i] ? o->given[i] : keys[i].def;
}

int
options_parse(Options *o, Arena *a, const char *label, const char *text, size_t len, Diag *d)
{
	yaml_parser_t p;
	yaml_document_t doc;
	yaml_node_t *root;
	OptCtx c = {o, a, &doc, label, d};
	int rc = 0;

	o->label = arena_strdup(a, label);

	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, &doc)) {
		rc = diag_report(d, YE_OPTIONS_SYNTAX, &(DiagAt){.file = label, .line = (unsigned)(p.problem_mark.line + 1), .column = (unsigned)(p.problem_mark.column + 1)},
			"%s%s%s", p.context ? p.context : "",
		                p.context ? ": " : "", p.problem ? p.problem : "YAML syntax error");
		yaml_parser_delete(&p);
		return rc;
	}
	root = yaml_document_get_root_node(&doc);
	if (root && !(root->type == YAML_SCALAR_NODE && !*scalar(root)) && root->type != YAML_MAPPING_NODE)
		rc = opt_err(&c, root, "expected a mapping of option keys to values");
	if (root && !rc)
		rc = check_size(&c, root);
	for (yaml_node_pair_t *pr = root && root->type == YAML_MAPPING_NODE ? root->data.mapping.pairs.start : NULL;
	     !rc && pr && pr < root->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(&doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(&doc, pr->value);
		const char *key = scalar(k);
		size_t i;
		if (!key) {
			rc = opt_err(&c, k, "option keys must be plain strings");
			break;
		}
		for (yaml_node_pair_t *q = root->data.mapping.pairs.start; q < pr; q++)
			if (strcmp(scalar(yaml_document_get_node(&doc, q->key)), key) == 0)
				rc = opt_err(&c, k, arena_printf(c.a, "key '%s' is given twice", key));
		for (i = 0; !rc && i < sizeof keys / sizeof keys[0]; i++)
			if (strcmp(keys[i].key, key) == 0) {
				rc = keys[i].fn(&c, v);
				if (!rc)
					note_given(&c, i, v);
				break;
			}
		if (!rc && i == sizeof keys / sizeof keys[0])
			rc = opt_err(&c, k, arena_printf(c.a, "unknown key '%s'", key));
	}
	if (!rc && o->ncustom_op)
		rc = options_custom_check(o, d);   /* the op types at the opset, once it is known */
	if (!rc && o->external_reference && !o->patterns) {
		/* a transposed weight is written, not pointed at: with the
		 * default set, reference leaves Transpose(W) to onnxruntime's
		 * session (naming TransposeWeight in `patterns` keeps it) */
		int off, len;
		if (opt_select_parse(a, "default-TransposeWeight", &o->patterns, &off, &len))
			die("options: the default set without TransposeWeight does not parse");
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&p);
	return rc;
}

int
options_load(Options *o, Arena *a, const char *path, Diag *d)
{
	size_t len;
	char why[160];
	char *buf = file_slurp(a, path, OPTIONS_MAX_BYTES, &len, why, sizeof why);

	if (!buf)
		return diag_report(d, YE_OPTIONS_UNREADABLE, &(DiagAt){.file = path}, "cannot read: %s", why);
	return options_parse(o, a, path, buf, len, d);
}

void
options_write_doc(FILE *f)
{
	fputs("# Conversion options\n\n"
	      "<!-- Generated from lib/pipeline/options.def by `make docs`; do not edit. -->\n\n"
	      "`yobx-export MODEL.pt2 -c OPTIONS.yaml` reads a YAML mapping of the keys below.\n"
	      "Every key is optional. Unknown keys and bad values stop the conversion with\n"
	      "exit status 2 and a message naming the file, line and column, e.g.\n"
	      "`options.yaml:3:1: unknown key 'opsett'`.\n\n"
	      "Example:\n\n```yaml\n", f);
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		fprintf(f, "%s: %s\n", keys[i].key, keys[i].example);
	fputs("```\n", f);
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		fprintf(f, "\n## `%s`\n\n- type: %s\n- default: %s\n- example: `%s: %s`\n\n%s\n",
		        keys[i].key, keys[i].type, keys[i].def, keys[i].key, keys[i].example, keys[i].doc);
}

const LowerOptions *
options_lower(const Options *o, LowerOptions *lo)
{
	*lo = (LowerOptions){
		.opset = o->opset,
		.noutput_name = o->noutput_name,
		.output_names = o->output_names,
		.ndim_request = o->ndim_request,
		.dim_requests = o->dim_requests,
		.keep_assertions = o->keep_assertions,
		.label = o->label,
		.ncustom_op = o->ncustom_op,
		.custom_ops = o->custom_ops,
	};
	return lo;
}
