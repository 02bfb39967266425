/* pt2.c: container detection, weights and sample inputs.
 *
 * The JSON is handed to serde.c; this file finds it and the tensors.  A
 * weight is a TensorData pointing into the mapped file: raw weight_N
 * records (2.9+) or the data/<key> records of a nested torch.save zip
 * (2.6-2.8).  After the program is read, each parameter, buffer and
 * constant input is bound to its tensor and checked against the graph's
 * own record of its dtype and shape.
 *
 * Each JSON tree (the program, the weights config) is parsed into an arena
 * of its own and freed once read, and its text dropped from memory
 * (zip_drop): on a deep graph the tree is several times the IR, and it
 * would otherwise stay until the conversion ends. */
#include "read/read.h"

#include <stdio.h>
#include <string.h>

#include "core/core.h"

typedef struct Loader {
	Program *p;
	Arena *a;
	Zip *zip;
	Diag *d;
	StrMap *tensors;     /* fqn -> TensorData, weights and constants alike */
} Loader;

/* An entry being parsed, for json_parse_text's progress. */
typedef struct Parsing {
	const Zip *zip;
	const ZipEntry *e;
} Parsing;

/* The text parsed so far leaves memory. */
static void
drop_parsed(void *ctx, const char *upto)
{
	const Parsing *at = ctx;

	zip_drop_bytes(at->zip, at->e->data, upto);
}

static ZipEntry *
entry(Loader *l, const char *rel)
{
	ZipEntry *e = zip_find(l->zip, rel);

	if (e && zip_data(l->zip, e, l->d))
		return NULL;
	return e;
}

static const char *
entry_label(Loader *l, const ZipEntry *e)
{
	return arena_printf(l->a, "%s:%s", l->p->path, e->name);
}

/* A torch.save dict of fqn -> tensor (state dict or constants). */
static int
load_pickled(Loader *l, const char *rel)
{
	ZipEntry *e = entry(l, rel);
	PyObj *top;

	if (l->d->code)
		return l->d->code;
	if (!e || e->size == 0)
		return 0;   /* torch writes 0 bytes for an empty artifact */
	if (!(top = torchsave_load(l->a, entry_label(l, e), e->data, e->size, l->d)))
		return DIAG_INPUT;
	if (top->kind != PY_DICT)
		return diag_report(l->d, YE_WEIGHTS_CONFIG, &(DiagAt){.file = l->p->path, .entry = e->name},
			"entry '%s': expected a dict of tensors", e->name);
	for (size_t i = 0; i < top->n; i++)
		if (top->items[i]->kind == PY_STR && top->values[i]->kind == PY_TENSOR)
			strmap_put(l->tensors, top->items[i]->s, top->values[i]->tensor);
	return 0;
}

static int read_config(Loader *l, const ZipEntry *e, Arena *tree, const char *dir);

/* {"config": {fqn: {path_name, is_param, use_pickle, tensor_meta}}} (2.9+). */
static int
load_config(Loader *l, const char *config_rel, const char *dir)
{
	ZipEntry *e = entry(l, config_rel);
	Arena tree;
	int rc;

	if (l->d->code)
		return l->d->code;
	if (!e)
		return 0;
	arena_init(&tree);
	rc = read_config(l, e, &tree, dir);
	arena_free(&tree);
	zip_drop(l->zip, e);
	return rc;
}

/* "module.Class" when o is torch's rebuild of a wrapper tensor subclass
 * (_rebuild_from_type_v2(_rebuild_wrapper_subclass, Class, ...): torchao's
 * quantized weights), else NULL. */
static const char *
subclass_name(const PyObj *o)
{
	const PyObj *f = o->kind == PY_CALL ? o->func : NULL, *a = o->kind == PY_CALL ? o->args : NULL;

	if (!f || f->kind != PY_GLOBAL || !f->name || strcmp(f->name, "_rebuild_from_type_v2") != 0 ||
	    !a || a->kind != PY_TUPLE || a->n < 2 || a->items[0]->kind != PY_GLOBAL ||
	    !a->items[0]->name || strcmp(a->items[0]->name, "_rebuild_wrapper_subclass") != 0)
		return NULL;
	if (a->n >= 3 && a->items[2]->kind == PY_TUPLE && a->items[2]->n >= 1 && a->items[2]->items[0]->kind == PY_GLOBAL)
		a = a->items[2];    /* the class is the first of the wrapper's arguments */
	else if (a->items[1]->kind != PY_GLOBAL)
		return "unknown class";
	return a->items[a == o->args ? 1 : 0]->name;
}

/* The entries of the weights config e, its tree parsed into the arena tree. */
static int
read_config(Loader *l, const ZipEntry *e, Arena *tree, const char *dir)
{
	const char *label = entry_label(l, e);
	const Json *root, *cfg;
	ZipEntry *data;

	if (!(root = json_parse_text(tree, label, (const char *)e->data, e->size, drop_parsed,
	                             &(Parsing){l->zip, e}, l->d)))
		return DIAG_INPUT;
	if (!(cfg = json_get(root, "config")) || cfg->type != JSON_OBJECT)
		return diag_report(l->d, YE_WEIGHTS_CONFIG, &(DiagAt){.file = label},
			"expected {\"config\": {...}}");
	for (size_t i = 0; i < cfg->len; i++) {
		const Json *pm = cfg->kids[i], *meta = json_get(pm, "tensor_meta"), *up = json_get(pm, "use_pickle");
		const char *path = json_str(json_get(pm, "path_name")), *fqn = json_keys(cfg)[i];
		TensorData *t;
		TensorMeta m;
		int64_t n;
		uint64_t bytes;

		if (!path)
			return diag_report(l->d, YE_WEIGHTS_CONFIG, &(DiagAt){.file = label, .line = pm->line, .column = pm->col},
				"'%s' has no path_name", fqn);
		if (!meta)
			continue;   /* a custom object, not a tensor */
		data = entry(l, arena_printf(l->a, "%s%s", dir, path));
		if (l->d->code)
			return l->d->code;
		if (!data)
			return diag_report(l->d, YE_WEIGHT_MISSING, &(DiagAt){.file = l->p->path},
				"missing entry '%s%s%s' for tensor '%s'", l->zip->root, dir, path, fqn);
		if (up && up->type == JSON_TRUE) {
			PyObj *o = torchsave_load(l->a, entry_label(l, data), data->data, data->size, l->d);
			if (!o)
				return DIAG_INPUT;
			if (o->kind != PY_TENSOR && subclass_name(o))
				return diag_report(l->d, YE_WEIGHTS_CONFIG, &(DiagAt){.file = l->p->path, .entry = data->name},
					"entry '%s': '%s' is a tensor subclass (%s), not supported: export the model after "
					"torchao.utils.unwrap_tensor_subclass(model), which makes its inner tensors "
					"parameters", data->name, fqn, subclass_name(o));
			if (o->kind != PY_TENSOR)
				return diag_report(l->d, YE_WEIGHTS_CONFIG, &(DiagAt){.file = l->p->path, .entry = data->name},
					"entry '%s': expected a pickled tensor for '%s'", data->name, fqn);
			strmap_put(l->tensors, arena_strdup(l->a, fqn), o->tensor);
			continue;
		}
		if (serde_tensor_meta(tree, label, "weight", fqn, meta, &m, l->d))
			return DIAG_INPUT;
		t = ARENA_NEW(l->a, TensorData);
		t->dtype = m.dtype;
		t->rank = m.rank;
		t->sizes = ARENA_ARRAY(l->a, int64_t, m.rank + 1);
		t->strides = ARENA_ARRAY(l->a, int64_t, m.rank + 1);
		for (int k = 0; k < m.rank; k++) {
			if (m.sizes[k].e || (m.strides && m.strides[k].e))
				return diag_report(l->d, YE_WEIGHTS_CONFIG, &(DiagAt){.file = label},
					"tensor '%s' has a symbolic size", fqn);
			t->sizes[k] = m.sizes[k].v;
		}
		if (size_numel(t->sizes, (size_t)m.rank, &n) || size_bytes(n, dtype_size(t->dtype), &bytes))
			return diag_report(l->d, YE_WEIGHTS_CONFIG, &(DiagAt){.file = label},
				"tensor '%s': a negative size, or more elements than an int64 counts", fqn);
		/* Strides default to row-major when the config leaves them out
		 * (the products are bounded by n, checked above). */
		for (int64_t k = m.rank - 1, step = 1; k >= 0; step *= t->sizes[k], k--)
			t->strides[k] = m.strides ? m.strides[k].v : step;
		t->offset = m.offset.v;
		t->storage = data->data;
		t->storage_bytes = data->size;
		t->entry = data->name;
		if (data->size == 0 && n > 0) {
			/* torch writes fake tensors as empty records; they load as zeros. */
			if (!tensor_is_contiguous(t) || t->offset || bytes > (1ULL << 40))
				return diag_report(l->d, YE_WEIGHT_SHORT, &(DiagAt){.file = l->p->path, .entry = data->name},
					"entry '%s' is empty for tensor '%s'", data->name, fqn);
			t->storage_bytes = bytes;
			if (!(t->storage = arena_try_alloc(l->a, t->storage_bytes)))
				return diag_report(l->d, YE_WEIGHT_SHORT, &(DiagAt){.file = l->p->path, .entry = data->name},
					"entry '%s' is empty for tensor '%s', and its %llu bytes of zeros cannot be had",
					data->name, fqn, (unsigned long long)t->storage_bytes);
		}
		strmap_put(l->tensors, arena_strdup(l->a, fqn), t);
	}
	return 0;
}

/* Sample inputs: ((args...), {kwargs}) flattened in pytree order. */
static void
flatten_sample(Loader *l, const PyObj *o, int depth)
{
	Program *p = l->p;
	Sample *s;

	if (depth > 64)
		return;
	switch (o->kind) {
	case PY_TUPLE: case PY_LIST:
		for (size_t i = 0; i < o->n; i++)
			flatten_sample(l, o->items[i], depth + 1);
		return;
	case PY_DICT:
		for (size_t i = 0; i < o->n; i++)
			flatten_sample(l, o->values[i], depth + 1);
		return;
	default:
		break;
	}
	if ((p->nsample & (p->nsample - 1)) == 0) {
		Sample *ns = ARENA_ARRAY(l->a, Sample, p->nsample ? p->nsample * 2 : 1);
		if (p->nsample)
			memcpy(ns, p->samples, sizeof *ns * (size_t)p->nsample);
		p->samples = ns;
	}
	s = &p->samples[p->nsample++];
	switch (o->kind) {
	case PY_TENSOR: s->t = o->tensor; break;
	case PY_INT: s->scalar.kind = ARG_INT; s->scalar.u.i = o->i; break;
	case PY_BOOL: s->scalar.kind = ARG_BOOL; s->scalar.u.i = o->i; break;
	case PY_FLOAT: s->scalar.kind = ARG_FLOAT; s->scalar.u.f = o->f; break;
	case PY_STR: s->scalar.kind = ARG_STRING; s->scalar.u.s = o->s; break;
	default: s->scalar.kind = ARG_NONE; break;
	}
}

static int
load_samples(Loader *l, const char *rel)
{
	ZipEntry *e = entry(l, rel);
	PyObj *top;

	if (l->d->code)
		return l->d->code;
	if (!e || e->size == 0)
		return 0;
	if (!(top = torchsave_load(l->a, entry_label(l, e), e->data, e->size, l->d)))
		return DIAG_INPUT;
	flatten_sample(l, top, 0);
	return 0;
}

static char *
shape_str(Arena *a, DType t, int rank, const int64_t *sizes, const Dim *dims)
{
	char *s = arena_printf(a, "%s[", dtype_name(t));

	for (int i = 0; i < rank; i++) {
		if (dims && dims[i].e)
			s = arena_printf(a, "%s%s%s", s, i ? "," : "", sym_print(a, dims[i].e));
		else
			s = arena_printf(a, "%s%s%lld", s, i ? "," : "", (long long)(dims ? dims[i].v : sizes[i]));
	}
	return arena_printf(a, "%s]", s);
}

/* Binds parameter, buffer and constant inputs to their tensors. */
static int
bind_weights(Loader *l)
{
	Program *p = l->p;

	for (int i = 0; i < p->ninput_spec; i++) {
		InputSpec *s = &p->input_specs[i];
		TensorData *t;
		Value *v;
		int ok;

		if (s->kind != IN_PARAMETER && s->kind != IN_BUFFER && s->kind != IN_TENSOR_CONSTANT)
			continue;
		if (s->arg->kind != ARG_TENSOR)
			return diag_report(l->d, YE_SCHEMA, &(DiagAt){.file = p->path},
				"input %d ('%s') is not a tensor", i, s->target);
		v = s->arg->u.v;
		if (!(t = strmap_get(l->tensors, s->target)))
			return diag_report(l->d, YE_WEIGHT_MISSING, &(DiagAt){.file = p->path},
				"no weight or constant named '%s' (graph input '%s')", s->target, v->name);
		ok = t->dtype == v->dtype && t->rank == v->rank;
		for (int k = 0; ok && k < t->rank; k++)
			ok = v->dims[k].e || v->dims[k].v == t->sizes[k];
		if (!ok)
			return diag_report(l->d, YE_WEIGHT_MISMATCH, &(DiagAt){.file = p->path, .entry = t->entry},
				"entry '%s': tensor '%s' is %s but the graph expects %s for '%s'", t->entry, s->target, shape_str(l->a, t->dtype, t->rank, t->sizes, NULL),
			                  shape_str(l->a, v->dtype, v->rank, NULL, v->dims), v->name);
		if (!tensor_in_bounds(t))
			return diag_report(l->d, YE_WEIGHT_SHORT, &(DiagAt){.file = p->path, .entry = t->entry},
				"entry '%s': %llu bytes are too few for tensor '%s' %s (offset %lld)", t->entry, (unsigned long long)t->storage_bytes, s->target,
			                  shape_str(l->a, t->dtype, t->rank, t->sizes, NULL), (long long)t->offset);
		v->data = t;
	}
	return 0;
}

/* Finds the program JSON and the weight files; sets p->container. */
static int
read_program(Loader *l)
{
	Program *p = l->p;
	ZipEntry *e;
	const Json *root;
	const char *label;
	Arena tree;   /* the program's JSON tree, freed once serde_program has read it */
	int pt2 = 0, rc;

	if ((e = entry(l, "archive_format"))) {
		if (e->size != 3 || memcmp(e->data, "pt2", 3) != 0)
			return diag_report(l->d, YE_NOT_EXPORT, &(DiagAt){.file = p->path, .entry = e->name},
				"entry '%s' does not say 'pt2'", e->name);
		pt2 = 1;
		if ((e = entry(l, "archive_version")) && !(e->size == 1 && e->data[0] == '0'))
			return diag_report(l->d, YE_ARCHIVE_VERSION, &(DiagAt){.file = p->path, .entry = e->name},
				"entry '%s': unsupported PT2 archive version '%.*s'", e->name, (int)(e->size < 16 ? e->size : 16), (const char *)e->data);
		if (!(e = entry(l, "models/model.json"))) {
			for (int i = 0; i < l->zip->n && !e; i++)
				if (strncmp(l->zip->ent[i].rel, "models/", 7) == 0 &&
				    strstr(l->zip->ent[i].rel, ".json"))
					e = entry(l, l->zip->ent[i].rel);
		}
		if (!e)
			return l->d->code ? l->d->code
			                  : diag_report(l->d, YE_NOT_EXPORT, &(DiagAt){.file = p->path},
				"PT2 archive without an entry 'models/model.json'");
	} else if (!(e = entry(l, "serialized_exported_program.json"))) {
		if (l->d->code)
			return l->d->code;
		if (zip_find(l->zip, "data.pkl"))
			return diag_report(l->d, YE_NOT_EXPORT, &(DiagAt){.file = p->path},
				"a torch.save or TorchScript archive, not a torch.export.save file");
		return diag_report(l->d, YE_NOT_EXPORT, &(DiagAt){.file = p->path},
			"not a torch.export file: no entry 'models/model.json' or 'serialized_exported_program.json'");
	}
	p->json_entry = e->name;
	label = entry_label(l, e);
	arena_init(&tree);
	rc = (root = json_parse_text(&tree, label, (const char *)e->data, e->size, drop_parsed,
	                             &(Parsing){l->zip, e}, l->d)) != NULL
	     ? serde_program(p, root, label, l->d) : DIAG_INPUT;
	arena_free(&tree);
	zip_drop(l->zip, e);
	if (rc)
		return DIAG_INPUT;

	if (!pt2) {
		p->container = "flat zip (torch 2.6/2.7)";
		if (load_pickled(l, "serialized_state_dict.pt") || load_pickled(l, "serialized_constants.pt") ||
		    load_samples(l, "serialized_example_inputs.pt"))
			return DIAG_INPUT;
	} else if (zip_find(l->zip, "data/weights/model_weights_config.json")) {
		p->container = "pt2 archive, raw weights (torch 2.9+)";
		if (load_config(l, "data/weights/model_weights_config.json", "data/weights/") ||
		    load_config(l, "data/constants/model_constants_config.json", "data/constants/"))
			return DIAG_INPUT;
	} else {
		p->container = "pt2 archive, pickled weights (torch 2.8)";
		if (load_pickled(l, "data/weights/model.pt") || load_pickled(l, "data/constants/model.pt"))
			return DIAG_INPUT;
	}
	if (pt2 && load_samples(l, "data/sample_inputs/model.pt"))
		return DIAG_INPUT;
	return bind_weights(l);
}

int
pt2_load(Program *p, const char *path, Diag *d)
{
	Loader l = {.p = p, .a = p->arena, .d = d};

	p->path = path;
	diag_input(d, path);   /* entry_label()s name entries of it */
	p->zip = l.zip = ARENA_NEW(p->arena, Zip);
	if (zip_open(l.zip, path, p->arena, d)) {
		p->zip = NULL;
		return DIAG_INPUT;
	}
	l.tensors = strmap_new(p->arena, 64);
	return read_program(&l) ? DIAG_INPUT : 0;
}

int
pt2_load_mem(Program *p, const char *label, const uint8_t *buf, size_t len, int fd, Diag *d)
{
	Loader l = {.p = p, .a = p->arena, .d = d};

	p->path = label;
	p->zip = l.zip = ARENA_NEW(p->arena, Zip);
	if (zip_open_mem(l.zip, label, buf, len, p->arena, d)) {
		p->zip = NULL;
		return DIAG_INPUT;
	}
	l.zip->fd = fd;
	l.tensors = strmap_new(p->arena, 64);
	return read_program(&l) ? DIAG_INPUT : 0;
}

void
pt2_close(Program *p)
{
	if (p->zip)
		zip_close(p->zip);
	p->zip = NULL;
}
