/* sigjson.c: the signature as JSON (docs/signature.md), read back with
 * lib/read's JSON parser, and two signatures compared.
 *
 * The text is meant for review: keys in a fixed order, one input, output
 * or symbol a line, so a diff of two golden files shows the change and
 * nothing else.  The comparison reports every difference, each as its own
 * diagnostic, of a kind of sigchange.def. */
#include "pipeline/pipeline.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/internal.h"
#include "read/read.h"

enum { SIG_FORMAT_VERSION = 1 };
static const char sig_format[] = "yobx-export signature";

/* ---- writing ---- */

static void
put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else if (*c == '\n')
			fputs("\\n", f);
		else if (*c < 0x20)
			fprintf(f, "\\u%04x", *c);
		else
			fputc(*c, f);
	}
	fputc('"', f);
}

static void
put_values(FILE *f, const char *key, const SigValue *v, int n)
{
	fprintf(f, "  \"%s\": [", key);
	for (int i = 0; i < n; i++) {
		fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
		put_str(f, v[i].name);
		if (v[i].torch_name) {
			fputs(", \"torch_name\": ", f);
			put_str(f, v[i].torch_name);
		}
		fputs(", \"source\": ", f);
		put_str(f, v[i].source);
		fputs(", \"dtype\": ", f);
		put_str(f, v[i].dtype);
		fputs(", \"dims\": ", f);
		if (v[i].rank < 0)
			fputs("null", f);
		for (int k = 0; k < v[i].rank; k++) {
			fputs(k ? ", " : "[", f);
			if (v[i].dims[k].param)
				put_str(f, v[i].dims[k].param);
			else
				fprintf(f, "%lld", (long long)v[i].dims[k].size);
		}
		fputs(v[i].rank == 0 ? "[]}" : v[i].rank > 0 ? "]}" : "}", f);
	}
	fputs(n ? "\n  ]" : "]", f);
}

static void
put_symbols(FILE *f, const SigSymbol *y, int n)
{
	fputs("  \"symbols\": [", f);
	for (int i = 0; i < n; i++) {
		fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
		put_str(f, y[i].name);
		if (y[i].torch) {
			fputs(", \"torch\": ", f);
			put_str(f, y[i].torch);
		}
		if (y[i].has_min)
			fprintf(f, ", \"min\": %lld", (long long)y[i].min);
		if (y[i].has_max)
			fprintf(f, ", \"max\": %lld", (long long)y[i].max);
		fputs(", \"appears\": [", f);
		for (int k = 0; k < y[i].nuse; k++) {
			fputs(k ? ", " : "", f);
			put_str(f, y[i].uses[k]);
		}
		fputs("]}", f);
	}
	fputs(n ? "\n  ]\n" : "]\n", f);
}

char *
signature_json(const Signature *s, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		die("signature: open_memstream failed");
	fputs("{\n  \"format\": ", f);
	put_str(f, sig_format);
	fprintf(f, ",\n  \"version\": %d,\n  \"producer\": {\"name\": ", SIG_FORMAT_VERSION);
	put_str(f, s->producer_name);
	fputs(", \"version\": ", f);
	put_str(f, s->producer_version);
	fprintf(f, "},\n  \"ir_version\": %lld,\n  \"opset_import\": [", (long long)s->ir_version);
	for (int i = 0; i < s->nopset; i++) {
		fputs(i ? ", {\"domain\": " : "{\"domain\": ", f);
		put_str(f, s->opset_domain[i]);
		fprintf(f, ", \"version\": %lld}", (long long)s->opset_version[i]);
	}
	fputs("],\n  \"source\": {", f);
	if (s->torch_version) {
		fputs("\"torch_version\": ", f);
		put_str(f, s->torch_version);
		fputs(", ", f);
	}
	fputs("\"capture_strategy\": ", f);
	put_str(f, s->capture_strategy ? s->capture_strategy : "");
	fputs("},\n", f);
	put_values(f, "inputs", s->in, s->nin);
	fputs(",\n", f);
	put_values(f, "outputs", s->out, s->nout);
	fputs(",\n", f);
	put_symbols(f, s->sym, s->nsym);
	fputs("}\n", f);
	if (fclose(f) != 0)
		die("signature: writing to memory failed");
	return buf;
}

/* ---- reading ---- */

typedef struct Rd {
	Arena *a;
	const char *label;
	Diag *d;
} Rd;

static int
bad(Rd *r, const Json *at, const char *what)
{
	return diag_report(r->d, YE_SIGNATURE_UNREADABLE,
	                   &(DiagAt){.file = r->label, .line = at ? at->line : 0, .column = at ? at->col : 0},
	                   "not a signature written by --signature: %s", what);
}

static const char *
str_of(Rd *r, const Json *j, const char *key, int need, int *err)
{
	const Json *v = json_get(j, key);

	if (json_str(v))
		return v->s;
	if (need && !*err)
		*err = bad(r, v ? v : j, arena_printf(r->a, "'%s' must be a string", key));
	return NULL;
}

static int
read_values(Rd *r, const Json *arr, SigValue **out, int *n)
{
	int err = 0;

	if (!arr || arr->type != JSON_ARRAY)
		return bad(r, arr, "'inputs' and 'outputs' must be arrays");
	*n = (int)arr->len;
	*out = ARENA_ARRAY(r->a, SigValue, arr->len + 1);
	for (uint32_t i = 0; i < arr->len && !err; i++) {
		const Json *j = arr->kids[i], *dims = json_get(j, "dims");
		SigValue *v = &(*out)[i];
		v->name = str_of(r, j, "name", 1, &err);
		v->torch_name = str_of(r, j, "torch_name", 0, &err);
		v->source = str_of(r, j, "source", 0, &err);
		v->dtype = str_of(r, j, "dtype", 1, &err);
		v->source = v->source ? v->source : "";
		v->rank = dims && dims->type == JSON_ARRAY ? (int)dims->len : -1;
		v->dims = ARENA_ARRAY(r->a, SigDim, v->rank + 2);
		for (int k = 0; k < v->rank && !err; k++) {
			const Json *x = dims->kids[k];
			v->dims[k].size = -1;
			if (json_str(x))
				v->dims[k].param = x->s;
			else if (!json_int(x, &v->dims[k].size))
				err = bad(r, x, "a dim must be a number or a name");
		}
	}
	return err;
}

static int
read_symbols(Rd *r, const Json *arr, Signature *s)
{
	int err = 0;

	if (!arr)
		return 0;
	if (arr->type != JSON_ARRAY)
		return bad(r, arr, "'symbols' must be an array");
	s->nsym = (int)arr->len;
	s->sym = ARENA_ARRAY(r->a, SigSymbol, arr->len + 1);
	for (uint32_t i = 0; i < arr->len && !err; i++) {
		const Json *j = arr->kids[i], *uses;
		SigSymbol *y = &s->sym[i];
		y->name = str_of(r, j, "name", 1, &err);
		y->torch = str_of(r, j, "torch", 0, &err);
		y->has_min = json_int(json_get(j, "min"), &y->min);
		y->has_max = json_int(json_get(j, "max"), &y->max);
		if ((uses = json_get(j, "appears")) && uses->type == JSON_ARRAY) {
			y->uses = ARENA_ARRAY(r->a, const char *, uses->len + 1);
			for (uint32_t k = 0; k < uses->len; k++)
				if (json_str(uses->kids[k]))
					y->uses[y->nuse++] = uses->kids[k]->s;
		}
	}
	return err;
}

Signature *
signature_parse(Arena *a, const char *label, const char *text, size_t len, Diag *d)
{
	Rd r = {a, label, d};
	Signature *s = ARENA_NEW(a, Signature);
	const Json *root = json_parse(a, label, text, len, d), *ops, *src;
	int64_t v = 0;

	if (!root) {
		if (d->n)
			d->items[d->n - 1].code = YE_SIGNATURE_UNREADABLE;
		return NULL;
	}
	memset(s, 0, sizeof *s);
	if (!json_str(json_get(root, "format")) || strcmp(json_get(root, "format")->s, sig_format) != 0)
		return bad(&r, root, "no \"format\": \"yobx-export signature\""), NULL;
	if (!json_int(json_get(root, "version"), &v) || v != SIG_FORMAT_VERSION)
		return bad(&r, root, arena_printf(a, "this reader knows version %d", SIG_FORMAT_VERSION)), NULL;
	json_int(json_get(root, "ir_version"), &s->ir_version);
	if ((ops = json_get(root, "opset_import")) && ops->type == JSON_ARRAY) {
		s->nopset = (int)ops->len;
		s->opset_domain = ARENA_ARRAY(a, const char *, ops->len + 1);
		s->opset_version = ARENA_ARRAY(a, int64_t, ops->len + 1);
		for (uint32_t i = 0; i < ops->len; i++) {
			const char *dom = json_str(json_get(ops->kids[i], "domain"));
			s->opset_domain[i] = dom ? dom : "";
			json_int(json_get(ops->kids[i], "version"), &s->opset_version[i]);
		}
	}
	s->producer_name = json_str(json_get(json_get(root, "producer"), "name"));
	s->producer_version = json_str(json_get(json_get(root, "producer"), "version"));
	s->producer_name = s->producer_name ? s->producer_name : "";
	s->producer_version = s->producer_version ? s->producer_version : "";
	src = json_get(root, "source");
	s->torch_version = json_str(json_get(src, "torch_version"));
	s->capture_strategy = json_str(json_get(src, "capture_strategy"));
	if (read_values(&r, json_get(root, "inputs"), &s->in, &s->nin) ||
	    read_values(&r, json_get(root, "outputs"), &s->out, &s->nout) ||
	    read_symbols(&r, json_get(root, "symbols"), s))
		return NULL;
	return s;
}

/* ---- comparing ---- */

typedef struct Cmp {
	Arena *a;
	unsigned allow;
	const char *label;
	Diag *d;
	int changes;
} Cmp;

static void
differ(Cmp *c, SigChange kind, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int allowed = (c->allow >> kind) & 1;

	va_start(ap, fmt);
	msg = arena_vprintf(c->a, fmt, ap);
	va_end(ap);
	diag_report(c->d, allowed ? YE_SIGNATURE_ALLOWED : YE_SIGNATURE_CHANGED, &(DiagAt){.file = c->label},
	            "%s [%s%s]", msg, sig_change_name[kind], allowed ? ", allowed" : "");
	c->changes += !allowed;
}

static const char *
dim_text(Arena *a, const SigDim *d)
{
	return d->param ? arena_printf(a, "'%s'", d->param) : arena_printf(a, "%lld", (long long)d->size);
}

static void
compare_dims(Cmp *c, const char *what, const SigValue *o, const SigValue *n)
{
	if (o->rank != n->rank) {
		differ(c, SIG_RANK, "%s: was rank %d, now %d", what, o->rank, n->rank);
		return;
	}
	for (int k = 0; k < o->rank; k++) {
		const SigDim *a = &o->dims[k], *b = &n->dims[k];
		if (a->param && !b->param)
			differ(c, SIG_FIXED, "%s axis %d: was symbolic %s, now fixed at %lld", what, k, dim_text(c->a, a),
			       (long long)b->size);
		else if (!a->param && b->param)
			differ(c, SIG_DYNAMIC, "%s axis %d: was fixed at %lld, now symbolic %s", what, k,
			       (long long)a->size, dim_text(c->a, b));
		else if (!a->param && a->size != b->size)
			differ(c, SIG_SIZE, "%s axis %d: was %lld, now %lld", what, k, (long long)a->size,
			       (long long)b->size);
		else if (a->param && strcmp(a->param, b->param) != 0)
			differ(c, SIG_SYMBOL, "%s axis %d: was %s, now %s", what, k, dim_text(c->a, a),
			       dim_text(c->a, b));
	}
}

static void
compare_value(Cmp *c, const char *kind, const SigValue *o, const SigValue *n)
{
	const char *what = arena_printf(c->a, "%s '%s'", kind, n->name);

	if (strcmp(o->source, n->source) != 0)
		differ(c, SIG_SOURCE, "%s: was a %s, now a %s", what, o->source, n->source);
	if (strcmp(o->dtype, n->dtype) != 0)
		differ(c, SIG_DTYPE, "%s: was %s, now %s", what, o->dtype, n->dtype);
	compare_dims(c, what, o, n);
}

static int
find(const SigValue *v, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return i;
	return -1;
}

/* By name; a value of neither side's names at the same position on both
 * sides is a rename. */
static void
compare_values(Cmp *c, const char *kind, const SigValue *o, int no, const SigValue *n, int nn)
{
	for (int i = 0; i < no; i++) {
		int j = find(n, nn, o[i].name);
		if (j >= 0)
			compare_value(c, kind, &o[i], &n[j]);
		else if (i < nn && find(o, no, n[i].name) < 0) {
			differ(c, SIG_RENAMED, "%s %d: was '%s', now '%s'", kind, i, o[i].name, n[i].name);
			compare_value(c, kind, &o[i], &n[i]);
		} else
			differ(c, SIG_REMOVED, "%s '%s' (%s %d) is gone", kind, o[i].name, kind, i);
	}
	for (int j = 0; j < nn; j++)
		if (find(o, no, n[j].name) < 0 && !(j < no && find(n, nn, o[j].name) < 0))
			differ(c, SIG_ADDED, "%s '%s' (%s %d) is new", kind, n[j].name, kind, j);
}

static const char *
bound(Arena *a, int has, int64_t v, const char *inf)
{
	return has ? arena_printf(a, "%lld", (long long)v) : inf;
}

static void
compare_symbols(Cmp *c, const Signature *o, const Signature *n)
{
	for (int i = 0; i < o->nsym; i++) {
		const SigSymbol *a = &o->sym[i], *b = NULL;
		int narrower, wider;
		for (int j = 0; j < n->nsym && !b; j++)
			if (strcmp(n->sym[j].name, a->name) == 0)
				b = &n->sym[j];
		if (!b)
			continue;     /* its axes say how it went */
		narrower = (b->has_min && (!a->has_min || b->min > a->min)) ||
		           (b->has_max && (!a->has_max || b->max < a->max));
		wider = (a->has_min && (!b->has_min || b->min < a->min)) ||
		        (a->has_max && (!b->has_max || b->max > a->max));
		if (narrower || wider)
			differ(c, SIG_RANGE, "symbol '%s': range [%s, %s] %s to [%s, %s]", a->name,
			       bound(c->a, a->has_min, a->min, "-inf"), bound(c->a, a->has_max, a->max, "inf"),
			       narrower && wider ? "moved" : narrower ? "narrowed" : "widened",
			       bound(c->a, b->has_min, b->min, "-inf"), bound(c->a, b->has_max, b->max, "inf"));
	}
}

static int64_t
opset_of(const Signature *s, const char *domain)
{
	for (int i = 0; i < s->nopset; i++)
		if (strcmp(s->opset_domain[i], domain) == 0)
			return s->opset_version[i];
	return -1;
}

static void
compare_opsets(Cmp *c, const Signature *o, const Signature *n)
{
	for (int i = 0; i < o->nopset; i++) {
		int64_t v = opset_of(n, o->opset_domain[i]);
		const char *dom = *o->opset_domain[i] ? o->opset_domain[i] : "ai.onnx";
		if (v < 0)
			differ(c, SIG_OPSET, "opset %s %lld is no longer imported", dom, (long long)o->opset_version[i]);
		else if (v != o->opset_version[i])
			differ(c, SIG_OPSET, "opset %s: was %lld, now %lld", dom, (long long)o->opset_version[i],
			       (long long)v);
	}
	for (int i = 0; i < n->nopset; i++)
		if (opset_of(o, n->opset_domain[i]) < 0)
			differ(c, SIG_OPSET, "opset %s %lld is newly imported",
			       *n->opset_domain[i] ? n->opset_domain[i] : "ai.onnx", (long long)n->opset_version[i]);
}

int
signature_compare(const Signature *old, const Signature *now, unsigned allow, const char *label, Diag *d)
{
	Arena a;
	Cmp c = {&a, allow, label, d, 0};

	arena_init(&a);
	compare_values(&c, "input", old->in, old->nin, now->in, now->nin);
	compare_values(&c, "output", old->out, old->nout, now->out, now->nout);
	compare_symbols(&c, old, now);
	compare_opsets(&c, old, now);
	arena_free(&a);
	return c.changes;
}
