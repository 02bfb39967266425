/* options_custom.c: the `custom_ops` option, read into the plain data
 * lib/lower/ lowers from (CustomOp, lower.h).
 *
 * Each key is a target as `--print` shows it ("mylib.scaled_tanh.default");
 * its value is one of two forms (docs/options.md):
 *   {domain, op_type, version?, inputs?, attributes?}   one custom-domain node
 *   {nodes: [{op_type, inputs?, outputs, attributes?}...], outputs}
 *                                                       ai.onnx nodes
 * A value is a name or a literal, told apart by how YAML writes it: a
 * plain scalar that reads as a number (or true/false) is a number, any
 * other plain scalar a name (`name?`: optional), a quoted one a string; a
 * flow list of numbers or strings a list literal.  What the file alone
 * shows is checked here: unknown keys, missing or extra ones, a name used
 * before the node defining it or defined twice, a domain given two
 * versions; options_custom_check() then checks the op types against
 * lib/onnx/onnxops.def at the target opset (known once the whole file is
 * read).  Every error is at its node's line:col. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pipeline/pipeline.h"
#include "internal.h"

typedef struct Ctx {
	Arena *a;
	yaml_document_t *doc;
	const char *label;
	Diag *d;
} Ctx;

static int
err(Ctx *c, const yaml_node_t *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int
err(Ctx *c, const yaml_node_t *at, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = arena_vprintf(c->a, fmt, ap);
	va_end(ap);
	return diag_report(c->d, YE_OPTIONS_VALUE, &(DiagAt){.file = c->label, .line = (unsigned)at->start_mark.line + 1,
	                                                     .column = (unsigned)at->start_mark.column + 1},
	                   "%s", msg);
}

static const char *
scalar(const yaml_node_t *v)
{
	return v && v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : NULL;
}

static int
plain(const yaml_node_t *v)
{
	return v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

static yaml_node_t *
node(Ctx *c, int id)
{
	return yaml_document_get_node(c->doc, id);
}

static int
nitems(const yaml_node_t *v)
{
	return (int)(v->data.sequence.items.top - v->data.sequence.items.start);
}

/* A plain scalar as a number: 1 (int, *i), 2 (float, *f) or 0. */
static int
number(const char *s, int64_t *i, double *f)
{
	char *end;

	if (!*s || *s == ' ')
		return 0;
	if (strcasecmp(s, "true") == 0 || strcasecmp(s, "false") == 0)
		return *i = s[0] == 't' || s[0] == 'T', 1;
	errno = 0;
	*i = strtoll(s, &end, 10);
	if (!*end && errno != ERANGE)
		return 1;
	*f = strtod(s, &end);
	return !*end ? 2 : 0;
}

/* 1 for a name: letters, digits, '_' and '.', not starting with a digit. */
static int
is_name(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '.'))
			return 0;
	return 1;
}

/* Reads a value (what: "input", "attribute 'x'" for messages). */
static int
read_val(Ctx *c, yaml_node_t *v, const char *what, int literals, CustomVal *out)
{
	const char *s = scalar(v);

	memset(out, 0, sizeof *out);
	out->line = (uint32_t)v->start_mark.line + 1;
	out->col = (uint32_t)v->start_mark.column + 1;
	if (s && !plain(v)) {
		const char **sv = ARENA_ARRAY(c->a, const char *, 1);
		if (!literals)
			return err(c, v, "%s must be a name, not a quoted string", what);
		sv[0] = arena_strdup(c->a, s);
		out->lit = CUSTOM_STRING, out->n = 1, out->s = sv;
		return 0;
	}
	if (s) {
		int64_t i;
		double f;
		int k = number(s, &i, &f);
		size_t len = strlen(s);
		if (k && !literals)
			return err(c, v, "%s must be a name, got the number %s", what, s);
		if (k == 1) {
			out->lit = CUSTOM_INT, out->n = 1, out->i = arena_dup(c->a, &i, sizeof i);
			return 0;
		}
		if (k == 2) {
			out->lit = CUSTOM_FLOAT, out->n = 1, out->f = arena_dup(c->a, &f, sizeof f);
			return 0;
		}
		out->optional = len > 1 && s[len - 1] == '?';
		out->name = arena_strndup(c->a, s, len - (size_t)out->optional);
		if (!is_name(out->name))
			return err(c, v, "%s: '%s' is not a name (letters, digits, '_'; a trailing '?' for an optional "
			           "argument) nor a number; quote a string", what, s);
		return 0;
	}
	if (v->type == YAML_SEQUENCE_NODE) {
		int n = nitems(v), k = 0, kinds = 0;
		int64_t *iv = ARENA_ARRAY(c->a, int64_t, n + 1);
		double *fv = ARENA_ARRAY(c->a, double, n + 1);
		const char **sv = ARENA_ARRAY(c->a, const char *, n + 1);
		if (!literals)
			return err(c, v, "%s must be a name, not a list", what);
		for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, k++) {
			yaml_node_t *e = node(c, *it);
			const char *es = scalar(e);
			int t;
			if (!es)
				return err(c, e ? e : v, "%s: a list literal holds numbers or quoted strings", what);
			if (!plain(e)) {
				sv[k] = arena_strdup(c->a, es);
				kinds |= 4;
				continue;
			}
			if (!(t = number(es, &iv[k], &fv[k])))
				return err(c, e, "%s: '%s' in a list literal is not a number (quote a string)", what, es);
			if (t == 1)
				fv[k] = (double)iv[k];
			kinds |= t;
		}
		if (kinds == 4)
			out->lit = CUSTOM_STRINGS, out->s = sv;
		else if (kinds & 4)
			return err(c, v, "%s: a list literal mixes numbers and strings", what);
		else if (kinds & 2)
			out->lit = CUSTOM_FLOATS, out->f = fv;
		else
			out->lit = CUSTOM_INTS, out->i = iv;
		out->n = n;
		return 0;
	}
	return err(c, v, "%s must be a name or a literal, not a mapping", what);
}

/* A list of values (inputs) or of plain names (outputs: names == 1). */
static int
read_list(Ctx *c, yaml_node_t *v, const char *key, int names, int *n, CustomVal **out)
{
	int k = 0;

	if (v->type != YAML_SEQUENCE_NODE)
		return err(c, v, "'%s' needs a list, like [x, y]", key);
	*n = nitems(v);
	*out = ARENA_ARRAY(c->a, CustomVal, *n + 1);
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, k++) {
		yaml_node_t *e = node(c, *it);
		if (read_val(c, e, names ? "an output" : "an input", !names, &(*out)[k]))
			return DIAG_INPUT;
		if ((*out)[k].lit == CUSTOM_STRING || (*out)[k].lit == CUSTOM_STRINGS)
			return err(c, e, "a string cannot be an input");
		if (names && (*out)[k].optional)
			return err(c, e, "an output cannot be optional ('?')");
	}
	return 0;
}

static int
read_attrs(Ctx *c, yaml_node_t *v, int *n, CustomAttr **out)
{
	int k = 0;

	if (v->type != YAML_MAPPING_NODE)
		return err(c, v, "'attributes' needs a mapping of ONNX attribute names to argument names or literals");
	*n = (int)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	*out = ARENA_ARRAY(c->a, CustomAttr, *n + 1);
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++, k++) {
		yaml_node_t *kn = node(c, p->key), *vn = node(c, p->value);
		const char *name = scalar(kn);
		if (!name || !is_name(name))
			return err(c, kn, "attribute names are plain names");
		for (int j = 0; j < k; j++)
			if (strcmp((*out)[j].name, name) == 0)
				return err(c, kn, "attribute '%s' is given twice", name);
		(*out)[k].name = arena_strdup(c->a, name);
		if (read_val(c, vn, arena_printf(c->a, "attribute '%s'", name), 1, &(*out)[k].v))
			return DIAG_INPUT;
	}
	return 0;
}

/* The keys of a mapping: each must be one of keys (NULL-terminated), once;
 * got[i] is the value of keys[i] or NULL. */
static int
read_keys(Ctx *c, yaml_node_t *v, const char *what, const char *const *keys, yaml_node_t **got)
{
	for (int i = 0; keys[i]; i++)
		got[i] = NULL;
	if (v->type != YAML_MAPPING_NODE)
		return err(c, v, "%s needs a mapping", what);
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = node(c, p->key);
		const char *k = scalar(kn);
		int i;
		for (i = 0; k && keys[i] && strcmp(keys[i], k) != 0; i++)
			;
		if (!k || !keys[i]) {
			const char *all = "";
			for (int j = 0; keys[j]; j++)
				all = arena_printf(c->a, "%s%s%s", all, j ? ", " : "", keys[j]);
			return err(c, kn, "%s: unknown key '%s' (expected %s)", what, k ? k : "?", all);
		}
		if (got[i])
			return err(c, kn, "%s: key '%s' is given twice", what, k);
		got[i] = node(c, p->value);
	}
	return 0;
}

static const char *
name_of(Ctx *c, yaml_node_t *v, const char *key, int *rc)
{
	const char *s = scalar(v);

	*rc = 0;
	if (!s || !*s || !plain(v))
		*rc = err(c, v, "'%s' needs a plain name", key);
	return *rc ? NULL : arena_strdup(c->a, s);
}

/* The domain form. */
static int
read_domain_form(Ctx *c, yaml_node_t *v, const char *what, CustomOp *m)
{
	static const char *const keys[] = {"domain", "op_type", "version", "inputs", "attributes", NULL};
	yaml_node_t *got[5];
	CustomNode *cn = ARENA_NEW(c->a, CustomNode);
	CustomVal *in = NULL;
	CustomAttr *at = NULL;
	int rc;

	if (read_keys(c, v, what, keys, got))
		return DIAG_INPUT;
	if (!got[0] || !got[1])
		return err(c, v, "%s needs `domain:` and `op_type:` (one custom-domain node) or `nodes:` and "
		           "`outputs:` (ai.onnx nodes)", what);
	if (!(cn->domain = name_of(c, got[0], "domain", &rc)) || !(cn->op_type = name_of(c, got[1], "op_type", &rc)))
		return rc;
	if (strcmp(cn->domain, "ai.onnx") == 0)
		return err(c, got[0], "domain 'ai.onnx' is the standard one: use the `nodes:` form for ai.onnx operators");
	m->version = 1;
	if (got[2]) {
		const char *s = scalar(got[2]);
		char *end = NULL;
		long long x = s && *s ? strtoll(s, &end, 10) : 0;
		if (!end || *end || x < 1 || x > INT32_MAX)
			return err(c, got[2], "'version' needs an integer >= 1, got '%s'", s ? s : "a collection");
		m->version = (int)x;
	}
	if (got[3] && read_list(c, got[3], "inputs", 0, &cn->nin, &in))
		return DIAG_INPUT;
	if (got[4] && read_attrs(c, got[4], &cn->nattr, &at))
		return DIAG_INPUT;
	cn->in = in, cn->attr = at;
	cn->line = (uint32_t)got[1]->start_mark.line + 1;
	cn->col = (uint32_t)got[1]->start_mark.column + 1;
	m->nnode = 1, m->nodes = cn;
	return 0;
}

/* The node of nodes[upto...] that defines name, or -1. */
static int
defined_at(const CustomNode *nodes, int from, int upto, const char *name)
{
	for (int i = from; i < upto; i++)
		for (int j = 0; j < nodes[i].nout; j++)
			if (strcmp(nodes[i].out[j], name) == 0)
				return i;
	return -1;
}

/* The `nodes:` form. */
static int
read_nodes_form(Ctx *c, yaml_node_t *v, const char *what, CustomOp *m)
{
	static const char *const keys[] = {"nodes", "outputs", NULL};
	static const char *const nkeys[] = {"op_type", "inputs", "outputs", "attributes", NULL};
	yaml_node_t *got[2], *ng[4], *list;
	CustomNode *nodes;
	CustomVal *res;
	int k = 0, rc;

	if (read_keys(c, v, what, keys, got))
		return DIAG_INPUT;
	if (!got[1])
		return err(c, v, "%s: `nodes:` needs `outputs:` (the node's results, in order)", what);
	if ((list = got[0])->type != YAML_SEQUENCE_NODE || !nitems(list))
		return err(c, list, "'nodes' needs a non-empty list of {op_type, inputs, outputs, attributes}");
	nodes = ARENA_ARRAY(c->a, CustomNode, nitems(list) + 1);
	for (yaml_node_item_t *it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++, k++) {
		yaml_node_t *nv = node(c, *it);
		CustomNode *cn = &nodes[k];
		CustomVal *in = NULL, *out = NULL;
		CustomAttr *at = NULL;
		const char *nw = arena_printf(c->a, "%s: node %d", what, k);
		if (read_keys(c, nv, nw, nkeys, ng))
			return DIAG_INPUT;
		if (!ng[0] || !ng[2])
			return err(c, nv, "%s needs `op_type:` and `outputs:`", nw);
		if (!(cn->op_type = name_of(c, ng[0], "op_type", &rc)))
			return rc;
		cn->domain = "";
		cn->line = (uint32_t)ng[0]->start_mark.line + 1;
		cn->col = (uint32_t)ng[0]->start_mark.column + 1;
		if (ng[1] && read_list(c, ng[1], "inputs", 0, &cn->nin, &in))
			return DIAG_INPUT;
		if (read_list(c, ng[2], "outputs", 1, &cn->nout, &out))
			return DIAG_INPUT;
		if (!cn->nout)
			return err(c, ng[2], "%s: 'outputs' needs at least one name", nw);
		if (ng[3] && read_attrs(c, ng[3], &cn->nattr, &at))
			return DIAG_INPUT;
		cn->in = in, cn->attr = at;
		cn->out = ARENA_ARRAY(c->a, const char *, cn->nout + 1);
		for (int j = 0; j < cn->nout; j++) {
			int prev = defined_at(nodes, 0, k, out[j].name);
			for (int i = 0; i < j; i++)
				if (strcmp(cn->out[i], out[j].name) == 0)
					prev = k;
			if (prev >= 0)
				return diag_report(c->d, YE_OPTIONS_VALUE, &(DiagAt){.file = c->label, .line = out[j].line,
				                   .column = out[j].col}, "%s: '%s' is defined twice (node %d defines it already)",
				                   nw, out[j].name, prev);
			((const char **)cn->out)[j] = out[j].name;
		}
	}
	/* a name used before the node defining it */
	for (int i = 0; i < k; i++)
		for (int j = 0; j < nodes[i].nin; j++) {
			const CustomVal *x = &nodes[i].in[j];
			int at;
			if (x->lit == CUSTOM_REF && defined_at(nodes, 0, i + 1, x->name) < 0 &&
			    (at = defined_at(nodes, i + 1, k, x->name)) >= 0)
				return diag_report(c->d, YE_OPTIONS_VALUE, &(DiagAt){.file = c->label, .line = x->line,
				                   .column = x->col}, "%s: node %d uses '%s' before node %d defines it",
				                   what, i, x->name, at);
		}
	if (read_list(c, got[1], "outputs", 1, &m->nresult, &res))
		return DIAG_INPUT;
	if (!m->nresult)
		return err(c, got[1], "%s: 'outputs' needs at least one name", what);
	m->results = res;
	m->expanded = 1;
	m->nnode = k, m->nodes = nodes;
	return 0;
}

int
options_custom_ops(Options *o, Arena *a, yaml_document_t *doc, yaml_node_t *v, const char *label, Diag *d)
{
	Ctx c = {a, doc, label, d};
	int n, k = 0;
	CustomOp *ops;

	if (v->type != YAML_MAPPING_NODE)
		return err(&c, v, "'custom_ops' needs a mapping of targets (as --print shows them, "
		           "mylib.op.default) to their mapping");
	n = (int)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	ops = ARENA_ARRAY(a, CustomOp, n + 1);
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++, k++) {
		yaml_node_t *kn = node(&c, p->key), *vn = node(&c, p->value);
		const char *t = scalar(kn), *dot;
		CustomOp *m = &ops[k];
		int has_nodes = 0;
		if (t && strncmp(t, "torch.ops.", 10) == 0)
			t += 10;
		if (!t || !(dot = strchr(t, '.')) || dot == t || !strchr(dot + 1, '.') || strchr(dot + 1, '.') == dot + 1 ||
		    !strchr(dot + 1, '.')[1])
			return err(&c, kn, "'custom_ops' keys are targets namespace.op.overload, as --print shows them "
			           "(mylib.scaled_tanh.default), got '%s'", t ? t : "a collection");
		for (int j = 0; j < k; j++)
			if (strcmp(ops[j].target, t) == 0)
				return err(&c, kn, "custom_ops: '%s' is given twice", t);
		if (ops_find(t))
			return err(&c, kn, "custom_ops: '%s' has a lowering of its own (docs/ops.md); custom_ops maps "
			           "operators without one", t);
		m->target = arena_strdup(a, t);
		m->line = (uint32_t)kn->start_mark.line + 1;
		m->col = (uint32_t)kn->start_mark.column + 1;
		for (yaml_node_pair_t *q = vn->type == YAML_MAPPING_NODE ? vn->data.mapping.pairs.start : NULL;
		     q && q < vn->data.mapping.pairs.top; q++)
			has_nodes |= scalar(node(&c, q->key)) && strcmp(scalar(node(&c, q->key)), "nodes") == 0;
		if (has_nodes ? read_nodes_form(&c, vn, arena_printf(a, "custom_ops: '%s'", t), m)
		              : read_domain_form(&c, vn, arena_printf(a, "custom_ops: '%s'", t), m))
			return DIAG_INPUT;
		for (int j = 0; j < k && !m->expanded; j++)
			if (!ops[j].expanded && strcmp(ops[j].nodes[0].domain, m->nodes[0].domain) == 0 &&
			    ops[j].version != m->version)
				return err(&c, vn, "custom_ops: '%s': domain '%s' at version %d, but '%s' gives it version %d "
				           "(a model imports each domain once)", t, m->nodes[0].domain, m->version,
				           ops[j].target, ops[j].version);
	}
	o->ncustom_op = k;
	o->custom_ops = ops;
	return 0;
}

int
options_custom_check(const Options *o, Diag *d)
{
	int rc = 0;

	for (int i = 0; i < o->ncustom_op; i++) {
		const CustomOp *m = &o->custom_ops[i];
		for (int j = 0; j < m->nnode && m->expanded; j++) {
			const CustomNode *cn = &m->nodes[j];
			int id = onnx_op_find("", cn->op_type);
			DiagAt at = {.file = o->label, .line = cn->line, .column = cn->col};
			if (id < 0)
				rc = diag_report(d, YE_OPTIONS_VALUE, &at, "custom_ops: '%s': '%s' is not an ai.onnx operator "
				                 "the converter knows (lib/onnx/onnxops.def)", m->target, cn->op_type);
			else if (onnx_ops[id].since > o->opset)
				rc = diag_report(d, YE_OPTIONS_VALUE, &at, "custom_ops: '%s': ONNX's %s exists from opset %d; "
				                 "the target is opset %d", m->target, cn->op_type, onnx_ops[id].since, o->opset);
			else if (onnx_ops[id].max && onnx_ops[id].max < o->opset)
				rc = diag_report(d, YE_OPTIONS_VALUE, &at, "custom_ops: '%s': the converter knows ONNX's %s up "
				                 "to opset %d; the target is opset %d", m->target, cn->op_type,
				                 onnx_ops[id].max, o->opset);
		}
	}
	return rc;
}
