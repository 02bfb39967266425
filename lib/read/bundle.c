/* bundle.c: capture bundles, the zip cmd/yobx_capture.py writes.
 *
 * The bundle holds capture.json (what was tried, what torch computed) and
 * one file per successful capture, all stored, so each capture is a byte
 * range of the mapped bundle that the .pt2 and ONNX readers take as it is.
 * This file reads capture.json and checks it against the zip: every file it
 * names exists and is stored, every tensor's bytes match its dtype and
 * shape.  docs/capture.md describes the format. */
#include "read/read.h"

#include <string.h>

#include "core/core.h"

#define FORMAT_NAME "yobx-capture"
#define FORMAT_VERSION 1

typedef struct BundleReader {
	Bundle *b;
	Arena *a;
	Diag *d;
	const char *label;     /* "m.yxc:capture.json" */
} BundleReader;

static int
bad(BundleReader *r, const Json *at, const char *fmt, const char *what)
{
	return diag_report(r->d, YE_BUNDLE, &(DiagAt){.file = r->label, .line = at ? at->line : 0,
	                   .column = at ? at->col : 0}, fmt, what);
}

int
bundle_sniff(const Zip *z)
{
	return zip_find(z, "capture.json") != NULL;
}

/* The stored entry named by j (a string), its data resolved. */
static ZipEntry *
stored(BundleReader *r, const Json *j, const char *what)
{
	const char *name = json_str(j);
	ZipEntry *e;

	if (!name) {
		bad(r, j, "%s: a file name (string) is wanted", what);
		return NULL;
	}
	if (!(e = zip_find(&r->b->zip, name))) {
		bad(r, j, "%s: the bundle has no entry by that name", name);
		return NULL;
	}
	if (e->method != 0) {
		bad(r, j, "%s: the entry is compressed; a bundle stores every entry (yobx_capture.py "
		    "writes them so)", name);
		return NULL;
	}
	return zip_data(&r->b->zip, e, r->d) ? NULL : e;
}

static int
read_tensors(BundleReader *r, const Json *list, const char *what, int *n, BundleTensor **out)
{
	if (!list || list->type != JSON_ARRAY)
		return bad(r, list, "\"%s\": a list of tensors is wanted", what);
	*n = (int)list->len;
	*out = ARENA_ARRAY(r->a, BundleTensor, list->len + 1);
	for (uint32_t i = 0; i < list->len; i++) {
		const Json *t = list->kids[i], *shape = json_get(t, "shape");
		BundleTensor *bt = &(*out)[i];
		const char *dt = json_str(json_get(t, "dtype"));
		uint64_t numel = 1, want;
		ZipEntry *e;

		if (t->type != JSON_OBJECT)
			return bad(r, t, "\"%s\": each tensor is an object {file, dtype, shape}", what);
		if (!dt || (bt->dtype = dtype_from_name(dt)) == DT_UNKNOWN || !dtype_size(bt->dtype))
			return bad(r, json_get(t, "dtype") ? json_get(t, "dtype") : t,
			           "dtype '%s': not a torch dtype name this reader knows", dt ? dt : "(none)");
		if (!shape || shape->type != JSON_ARRAY || shape->len > 64)
			return bad(r, shape ? shape : t, "\"%s\": shape must be a list of at most 64 sizes", what);
		bt->rank = (int)shape->len;
		bt->shape = ARENA_ARRAY(r->a, int64_t, shape->len + 1);
		for (uint32_t k = 0; k < shape->len; k++) {
			int64_t v;
			if (!json_int(shape->kids[k], &v) || v < 0 || v > ((int64_t)1 << 40))
				return bad(r, shape->kids[k], "\"%s\": a size must be an integer from 0 to 2^40", what);
			bt->shape[k] = v;
			if (numel != UINT64_MAX && size_mul(numel, (uint64_t)v, &numel))
				numel = UINT64_MAX;
		}
		if (!(e = stored(r, json_get(t, "file"), what)))
			return r->d->code ? r->d->code : DIAG_INPUT;
		bt->file = e->name;
		bt->data = e->data;
		if (numel == UINT64_MAX || size_mul(numel, (uint64_t)dtype_size(bt->dtype), &want))
			want = UINT64_MAX;
		if (e->size != want)
			return diag_report(r->d, YE_BUNDLE, &(DiagAt){.file = r->label, .line = t->line,
			                   .column = t->col}, "%s: %llu bytes, its dtype and shape want %s%llu",
			                   e->name, (unsigned long long)e->size, want == UINT64_MAX ? "more than " : "",
			                   (unsigned long long)want);
	}
	return 0;
}

static int
read_attempts(BundleReader *r, const Json *list)
{
	Bundle *b = r->b;

	if (!list || list->type != JSON_ARRAY)
		return bad(r, list, "\"%s\": a list of capture attempts is wanted", "attempts");
	b->nattempt = (int)list->len;
	b->attempts = ARENA_ARRAY(r->a, BundleAttempt, list->len + 1);
	for (uint32_t i = 0; i < list->len; i++) {
		const Json *j = list->kids[i], *ok = json_get(j, "ok"), *err = json_get(j, "error");
		BundleAttempt *at = &b->attempts[i];

		if (j->type != JSON_OBJECT || !(at->strategy = json_str(json_get(j, "strategy"))))
			return bad(r, j, "\"%s\": each attempt is an object with a \"strategy\" name", "attempts");
		for (uint32_t k = 0; k < i; k++)
			if (strcmp(b->attempts[k].strategy, at->strategy) == 0)
				return bad(r, j, "strategy '%s' is recorded twice", at->strategy);
		if (!ok || (ok->type != JSON_TRUE && ok->type != JSON_FALSE))
			return bad(r, ok ? ok : j, "strategy '%s': \"ok\" must be true or false", at->strategy);
		at->ok = ok->type == JSON_TRUE;
		if (json_get(j, "seconds") && !json_float(json_get(j, "seconds"), &at->seconds))
			return bad(r, json_get(j, "seconds"), "strategy '%s': \"seconds\" must be a number",
			           at->strategy);
		if (at->ok) {
			ZipEntry *e = stored(r, json_get(j, "file"), at->strategy);
			if (!e)
				return r->d->code ? r->d->code : DIAG_INPUT;
			at->file = e->name;
			at->data = e->data;
			at->size = (size_t)e->size;
		} else {
			at->error_type = json_str(json_get(err, "type"));
			at->error_message = json_str(json_get(err, "message"));
			if (!at->error_type)
				at->error_type = "unknown error";
			if (!at->error_message)
				at->error_message = "";
		}
	}
	return 0;
}

/* "modules" (optional): [{"name", "class", "outputs": [tensors]}]. */
static int
read_modules(BundleReader *r, const Json *list, const Json *skipped)
{
	Bundle *b = r->b;

	if (skipped && (!json_int(skipped, &b->modules_skipped) || b->modules_skipped < 0))
		return bad(r, skipped, "\"%s\" must be a count", "modules_skipped");
	if (!list)
		return 0;
	if (list->type != JSON_ARRAY)
		return bad(r, list, "\"%s\": a list of module calls is wanted", "modules");
	b->nmodule = (int)list->len;
	b->modules = ARENA_ARRAY(r->a, BundleModule, list->len + 1);
	for (uint32_t i = 0; i < list->len; i++) {
		const Json *j = list->kids[i];
		BundleModule *m = &b->modules[i];
		if (j->type != JSON_OBJECT || !(m->name = json_str(json_get(j, "name"))))
			return bad(r, j, "\"%s\": each module call is an object with a \"name\"", "modules");
		m->cls = json_str(json_get(j, "class"));
		if (read_tensors(r, json_get(j, "outputs"), "modules", &m->noutput, &m->outputs))
			return r->d->code ? r->d->code : DIAG_INPUT;
	}
	return 0;
}

int
bundle_read(Bundle *b, Arena *a, Diag *d)
{
	BundleReader r = {.b = b, .a = a, .d = d};
	ZipEntry *e = zip_find(&b->zip, "capture.json");
	const Json *root, *fmt;
	int64_t version = 0;

	if (!e || zip_data(&b->zip, e, d))
		return e ? DIAG_INPUT : diag_report(d, YE_BUNDLE, &(DiagAt){.file = b->zip.label},
		                                    "not a capture bundle: no capture.json");
	r.label = arena_printf(a, "%s:%s", b->zip.label, e->name);
	if (!(root = json_parse(a, r.label, (const char *)e->data, (size_t)e->size, d)))
		return DIAG_INPUT;
	if (root->type != JSON_OBJECT)
		return bad(&r, root, "%s: the top level must be an object", "capture.json");
	fmt = json_get(root, "format");
	if (!json_str(fmt) || strcmp(json_str(fmt), FORMAT_NAME) != 0)
		return bad(&r, fmt ? fmt : root, "\"format\" must be \"%s\"", FORMAT_NAME);
	if (!json_int(json_get(root, "version"), &version) || version < 1)
		return bad(&r, json_get(root, "version") ? json_get(root, "version") : root,
		           "\"%s\" must be a positive integer", "version");
	if (version > FORMAT_VERSION)
		return diag_report(d, YE_BUNDLE, &(DiagAt){.file = r.label, .line = json_get(root, "version")->line,
		                   .column = json_get(root, "version")->col},
		                   "format version %lld is newer than this reader's (%d): update yobx-export",
		                   (long long)version, FORMAT_VERSION);
	b->version = (int)version;
	b->torch_version = json_str(json_get(root, "torch"));
	b->transformers_version = json_str(json_get(root, "transformers"));
	b->model_class = json_str(json_get(root, "model_class"));
	if (read_attempts(&r, json_get(root, "attempts")) ||
	    read_tensors(&r, json_get(root, "inputs"), "inputs", &b->ninput, &b->inputs) ||
	    read_tensors(&r, json_get(root, "outputs"), "outputs", &b->noutput, &b->outputs) ||
	    read_modules(&r, json_get(root, "modules"), json_get(root, "modules_skipped")))
		return d->code ? d->code : DIAG_INPUT;
	return 0;
}

const BundleAttempt *
bundle_attempt(const Bundle *b, const char *strategy)
{
	for (int i = 0; i < b->nattempt; i++)
		if (strcmp(b->attempts[i].strategy, strategy) == 0)
			return &b->attempts[i];
	return NULL;
}
