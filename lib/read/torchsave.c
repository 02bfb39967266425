/* torchsave.c: torch.save zips into PyObj trees with PY_TENSOR leaves.
 *
 * A tensor in the pickle is REDUCE(_rebuild_tensor_v2, (persid, offset,
 * size, stride, requires_grad, hooks[, metadata])) where persid is
 * ('storage', <torch XStorage>, key, location, numel).  The call object is
 * turned into a PY_TENSOR in place, so every memo reference to it (views
 * sharing a storage, a parameter wrapping a tensor) sees the result.  The
 * same rebuild calls fill TorchScript's data.pkl and constants.pkl
 * (torchsave_read), whose objects keep their tensors in BUILD states: the
 * walk goes into states too, and visits a shared object once (a pickle
 * may reference one object from many places; walking each reference
 * again would make a small hostile pickle exponential). */
#include "read/read.h"

#include <stdio.h>
#include <string.h>

#include "core/core.h"

typedef struct Loader {
	Arena *a;
	Zip *zip;
	const char *dir;    /* storages are dir/<key>: "data", or "constants" */
	const char *label;
	Diag *d;
	StrMap *storages;   /* key -> Storage, so views share one record */
	const PyObj **seen; /* containers and calls walked (open addressing) */
	size_t nseen, seen_cap;
} Loader;

typedef struct Storage {
	const uint8_t *bytes;
	uint64_t nbytes;
	DType dtype;
	const char *entry;
} Storage;

static int convert(Loader *l, PyObj *o, int depth);

static size_t
seen_slot(const Loader *l, const PyObj *o)
{
	size_t i = ((uintptr_t)o >> 4) * 0x9E3779B97F4A7C15u & (l->seen_cap - 1);

	while (l->seen[i] && l->seen[i] != o)
		i = (i + 1) & (l->seen_cap - 1);
	return i;
}

/* 1 when o was walked already; else records it and returns 0. */
static int
seen_before(Loader *l, const PyObj *o)
{
	if ((l->nseen + 1) * 2 > l->seen_cap) {
		const PyObj **old = l->seen;
		size_t old_cap = l->seen_cap;
		l->seen_cap = old_cap ? old_cap * 2 : 256;
		l->seen = ARENA_ARRAY(l->a, const PyObj *, l->seen_cap);
		for (size_t i = 0; i < old_cap; i++)
			if (old[i])
				l->seen[seen_slot(l, old[i])] = old[i];
	}
	size_t i = seen_slot(l, o);
	if (l->seen[i])
		return 1;
	l->seen[i] = o;
	l->nseen++;
	return 0;
}

static int
fail(Loader *l, const char *what)
{
	return diag_report(l->d, YE_TORCHSAVE, &(DiagAt){.file = l->label}, "%s", what);
}

static int
as_int(const PyObj *o, int64_t *v)
{
	if (!o || (o->kind != PY_INT && o->kind != PY_BOOL))
		return 0;
	*v = o->i;
	return 1;
}

/* ('storage', <class>, key, location, numel) -> Storage, loading data/<key>. */
static Storage *
storage(Loader *l, const PyObj *persid)
{
	const PyObj *t = persid->args;
	Storage *s;
	ZipEntry *e;
	char rel[256];
	int64_t numel;

	if (!t || t->kind != PY_TUPLE || t->n < 5 || t->items[0]->kind != PY_STR ||
	    strcmp(t->items[0]->s, "storage") != 0 || t->items[1]->kind != PY_GLOBAL ||
	    t->items[2]->kind != PY_STR || !as_int(t->items[4], &numel)) {
		fail(l, "persistent id is not ('storage', class, key, location, numel)");
		return NULL;
	}
	if ((s = strmap_get(l->storages, t->items[2]->s)))
		return s;
	s = ARENA_NEW(l->a, Storage);
	s->dtype = dtype_from_storage(t->items[1]->name);
	if (s->dtype == DT_UNKNOWN) {
		diag_report(l->d, YE_TORCHSAVE, &(DiagAt){.file = l->label}, "unknown storage type '%s.%s'",
		           t->items[1]->s, t->items[1]->name);
		return NULL;
	}
	snprintf(rel, sizeof rel, "%s/%s", l->dir, t->items[2]->s);
	if (!(e = zip_find(l->zip, rel)) && numel == 0) {
		/* torch reads no record for an empty storage, so none need exist. */
		s->entry = arena_strdup(l->a, rel);
		strmap_put(l->storages, t->items[2]->s, s);
		return s;
	}
	if (!e) {
		diag_report(l->d, YE_WEIGHT_MISSING, &(DiagAt){.file = l->label},
			"missing entry '%s%s' for a tensor storage", l->zip->root, rel);
		return NULL;
	}
	if (zip_data(l->zip, e, l->d))
		return NULL;
	/* numel counts elements for typed storages, bytes for UntypedStorage. */
	if (numel < 0 || (uint64_t)numel > e->size / (uint64_t)dtype_size(s->dtype)) {
		diag_report(l->d, YE_WEIGHT_SHORT, &(DiagAt){.file = l->label, .entry = e->name},
			"entry '%s' holds %llu bytes, fewer than the %lld elements of its storage", e->name, (unsigned long long)e->size, (long long)numel);
		return NULL;
	}
	s->bytes = e->data;
	s->nbytes = e->size;
	s->entry = e->name;
	strmap_put(l->storages, t->items[2]->s, s);
	return s;
}

static int
int_list(Loader *l, const PyObj *o, int64_t **out, int *n)
{
	if (!o || o->kind != PY_TUPLE)
		return fail(l, "tensor size or stride is not a tuple");
	*n = (int)o->n;
	*out = ARENA_ARRAY(l->a, int64_t, o->n + 1);
	for (size_t i = 0; i < o->n; i++)
		if (!as_int(o->items[i], &(*out)[i]))
			return fail(l, "tensor size or stride holds a non-integer");
	return 0;
}

/* _rebuild_tensor_v2/_v3 args -> a PY_TENSOR in place of call. */
static int
rebuild_tensor(Loader *l, PyObj *call, int v3)
{
	const PyObj *args = call->args;
	TensorData *t;
	Storage *s;
	int nstride;

	if (!args || args->kind != PY_TUPLE || args->n < (v3 ? 7u : 6u))
		return fail(l, "_rebuild_tensor called with too few arguments");
	if (args->items[0]->kind != PY_PERSID)
		return fail(l, "_rebuild_tensor's storage is not a persistent id");
	if (!(s = storage(l, args->items[0])))
		return l->d->code;
	t = ARENA_NEW(l->a, TensorData);
	t->dtype = s->dtype;
	if (v3) {
		const PyObj *dt = args->items[6];
		if (dt->kind != PY_GLOBAL || (t->dtype = dtype_from_name(dt->name)) == DT_UNKNOWN)
			return fail(l, "_rebuild_tensor_v3 with an unknown dtype");
	}
	if (!as_int(args->items[1], &t->offset))
		return fail(l, "tensor storage offset is not an integer");
	if (int_list(l, args->items[2], &t->sizes, &t->rank) ||
	    int_list(l, args->items[3], &t->strides, &nstride))
		return l->d->code;
	if (nstride != t->rank)
		return fail(l, "tensor has different numbers of sizes and strides");
	t->storage = s->bytes;
	t->storage_bytes = s->nbytes;
	t->entry = s->entry;
	if (!tensor_in_bounds(t))
		return diag_report(l->d, YE_WEIGHT_SHORT, &(DiagAt){.file = l->label},
			"a %s tensor view reaches past the %llu bytes of entry '%s'", dtype_name(t->dtype), (unsigned long long)t->storage_bytes, t->entry);
	call->kind = PY_TENSOR;
	call->tensor = t;
	return 0;
}

static int
convert_call(Loader *l, PyObj *o, int depth)
{
	const PyObj *f = o->func;

	if (py_is_global(f, "torch._utils", "_rebuild_tensor_v2"))
		return rebuild_tensor(l, o, 0);
	if (py_is_global(f, "torch._utils", "_rebuild_tensor_v3"))
		return rebuild_tensor(l, o, 1);
	if (py_is_global(f, "torch._utils", "_rebuild_parameter") ||
	    py_is_global(f, "torch._utils", "_rebuild_parameter_with_state")) {
		PyObj *data;
		if (!o->args || o->args->kind != PY_TUPLE || o->args->n < 1)
			return fail(l, "_rebuild_parameter called without a tensor");
		data = o->args->items[0];
		if (convert(l, data, depth + 1))
			return l->d->code;
		if (data->kind != PY_TENSOR)
			return fail(l, "_rebuild_parameter of something that is not a tensor");
		o->kind = PY_TENSOR;
		o->tensor = data->tensor;
		return 0;
	}
	/* Unknown callables stay opaque; their arguments and state may still
	 * hold tensors. */
	if (o->args && convert(l, o->args, depth + 1))
		return l->d->code;
	return o->state ? convert(l, o->state, depth + 1) : 0;
}

static int
convert(Loader *l, PyObj *o, int depth)
{
	if (depth > 200)
		return fail(l, "objects nested too deeply");
	if ((o->kind == PY_CALL || o->kind == PY_TUPLE || o->kind == PY_LIST || o->kind == PY_DICT) &&
	    seen_before(l, o))
		return 0;
	switch (o->kind) {
	case PY_CALL:
		return convert_call(l, o, depth);
	case PY_TUPLE:
	case PY_LIST:
	case PY_DICT:
		for (size_t i = 0; i < o->n; i++) {
			if (convert(l, o->items[i], depth + 1))
				return l->d->code;
			if (o->kind == PY_DICT && convert(l, o->values[i], depth + 1))
				return l->d->code;
		}
		return 0;
	default:
		return 0;
	}
}

/* Runs the pickle of entry e of l->zip and converts its rebuild calls. */
static PyObj *
load_entry(Loader *l, ZipEntry *e, const PickleHooks *hooks)
{
	PyObj *top;
	const char *plabel;

	if (zip_data(l->zip, e, l->d))
		return NULL;
	plabel = arena_printf(l->a, "%s:%s", l->zip->label, e->name);
	if (!l->label)
		l->label = plabel;  /* torchsave_load's messages keep naming the outer file */
	if (!(top = pickle_load_hooked(l->a, plabel, e->data, e->size, hooks, l->d)))
		return NULL;
	if (convert(l, top, 0))
		return NULL;
	return top;
}

PyObj *
torchsave_read(Arena *a, Zip *z, ZipEntry *e, const char *dir, const PickleHooks *hooks, Diag *d)
{
	Loader l = {.a = a, .zip = z, .dir = dir, .d = d};

	l.storages = strmap_new(a, 16);
	return load_entry(&l, e, hooks);
}

PyObj *
torchsave_load(Arena *a, const char *label, const uint8_t *buf, size_t len, Diag *d)
{
	Zip zip;
	Loader l = {.a = a, .zip = &zip, .dir = "data", .label = label, .d = d};
	ZipEntry *e;

	if (zip_open_mem(&zip, label, buf, len, a, d))
		return NULL;
	l.storages = strmap_new(a, 16);
	if ((e = zip_find(&zip, "byteorder")) && !zip_data(&zip, e, d) &&
	    !(e->size == 6 && memcmp(e->data, "little", 6) == 0)) {
		fail(&l, "big-endian tensor data is not supported");
		return NULL;
	}
	if (d->code)
		return NULL;
	if (!(e = zip_find(&zip, "data.pkl"))) {
		diag_report(d, YE_TORCHSAVE, &(DiagAt){.file = label},
			"missing entry 'data.pkl' (not a torch.save archive)");
		return NULL;
	}
	return load_entry(&l, e, NULL);
}
