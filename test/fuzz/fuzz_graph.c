/* fuzz_graph.c: structural mutations of the committed fixtures' graph JSON,
 * each run through the whole pipeline (read, validate, lower, optimize,
 * write, report) in process.
 *
 * A case is a fixture and a few mutations of its program JSON, chosen by a
 * stream of decision bytes: a value reference renamed (to another value, to
 * the node's own output, to a name no table declares), nodes swapped,
 * duplicated or deleted, an argument replaced by one of another kind (made
 * up, or taken from another node), dropped or swapped with a sibling, an
 * output dropped, added or wrapped in a list, a target changed to another
 * node's, a graph output dropped or duplicated, a tensor value's dtype or
 * rank changed.  The mutated JSON is written back into a copy of the
 * fixture's zip (the other entries unchanged, stored, 64-byte aligned as
 * torch aligns them) and converted.
 *
 * Contract checked: the conversion returns 0, DIAG_CONVERT or DIAG_INPUT;
 * a failure comes with a message, and a DIAG_INPUT one names the file.
 * An abort (die()), a crash or a sanitizer report is a finding.
 *
 * Two builds of this one file:
 *   - a libFuzzer target (make fuzz; test/fuzz/run.sh graph): the fuzzer's
 *     input is the decision stream, so coverage steers the mutations;
 *   - with -DGRAPH_DRIVER, a standalone driver linked against the ASan+UBSan
 *     library (make B=build-asan SAN=1 OPT=-O1 build-asan/fuzz/graph_driver):
 *     case i draws its decisions from a PRNG seeded by (seed, i), so
 *     `-seed=S -start=I -runs=1` replays one case, and make check runs a
 *     short fixed sequence.
 * Fixtures: the files given (driver), else YOBX_FUZZ_FIXTURES (a glob), else
 * test/models/torch-*\/\*.pt2 from the repository root. */
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/core.h"
#include "ir/ir.h"
#include "pipeline/pipeline.h"
#include "read/read.h"
#include "../unit/diagtext.h"

/* ---- fixtures ---- */

typedef struct Entry {
	const char *name;
	const uint8_t *data;
	size_t size;
} Entry;

typedef struct Fixture {
	const char *path;
	int nent, json;         /* entries; the index of the program JSON */
	Entry *ent;
} Fixture;

static Arena keep;              /* fixtures, for the whole run */
static Fixture *fix;
static int nfix;

static int
is_program_json(const ZipEntry *e)
{
	return strcmp(e->rel, "models/model.json") == 0 || strcmp(e->rel, "serialized_exported_program.json") == 0;
}

static void
add_fixture(const char *path)
{
	Zip *z = ARENA_NEW(&keep, Zip);
	Diag d = {0};
	Fixture f = {arena_strdup(&keep, path), 0, -1, NULL};

	if (zip_open(z, path, &keep, &d)) {
		fprintf(stderr, "fuzz_graph: %s", test_diag_text(&d));
		exit(2);
	}
	f.ent = ARENA_ARRAY(&keep, Entry, z->n + 1);
	for (int i = 0; i < z->n; i++) {
		ZipEntry *e = &z->ent[i];
		if (zip_data(z, e, &d)) {
			fprintf(stderr, "fuzz_graph: %s", test_diag_text(&d));
			exit(2);
		}
		if (is_program_json(e))
			f.json = f.nent;
		f.ent[f.nent++] = (Entry){e->name, e->data, (size_t)e->size};
	}
	if (f.json < 0)
		return;         /* zip is kept mapped: the entries point into it */
	if (nfix % 64 == 0) {
		Fixture *nf = ARENA_ARRAY(&keep, Fixture, nfix + 64);
		if (nfix)
			memcpy(nf, fix, sizeof *nf * (size_t)nfix);
		fix = nf;
	}
	fix[nfix++] = f;
}

static void
add_glob(const char *pattern)
{
	glob_t gl;

	if (glob(pattern, 0, NULL, &gl) == 0)
		for (size_t i = 0; i < gl.gl_pathc; i++)
			add_fixture(gl.gl_pathv[i]);
	globfree(&gl);
}

/* ---- decisions ---- */

typedef struct Bytes {
	const uint8_t *p;
	size_t n, i;
} Bytes;

/* A choice in [0, n), from the next bytes (0 once they run out). */
static unsigned
pick(Bytes *b, unsigned n)
{
	uint32_t x = 0;

	if (n <= 1)
		return 0;
	for (int k = 0; k < (n > 256 ? 3 : 1); k++)
		x = x << 8 | (b->i < b->n ? b->p[b->i++] : 0);
	return x % n;
}

/* ---- the JSON tree: what a mutation can point at ---- */

typedef struct Vec {
	Json **v;
	int n, cap;
} Vec;

static void
push(Arena *a, Vec *x, Json *j)
{
	if (x->n == x->cap) {
		Json **nv = ARENA_ARRAY(a, Json *, x->cap = x->cap ? x->cap * 2 : 32);
		if (x->n)
			memcpy(nv, x->v, sizeof *nv * (size_t)x->n);
		x->v = nv;
	}
	x->v[x->n++] = j;
}

typedef struct Tree {
	Arena *a;
	Vec graphs;     /* graph objects (inputs, outputs, nodes) */
	Vec nodes;      /* node objects (they have a "target") */
	Vec refs;       /* strings naming a value: {"name": X} of an argument, {"as_name": X} */
	Vec names;      /* strings: every key of a value table */
	Vec metas;      /* tensor_values entries (TensorMeta objects) */
	Vec args;       /* node inputs' NamedArg objects */
} Tree;

static Json *
jget(const Json *o, const char *key)
{
	const char **keys = json_keys(o);

	for (uint32_t i = 0; keys && i < o->len; i++)
		if (strcmp(keys[i], key) == 0)
			return o->kids[i];
	return NULL;
}

/* Sets o[key]; a new member goes last, the kids and keys moved to a new
 * block laid out as the parser lays them (json_keys: keys after kids). */
static void
jset(Arena *a, Json *o, const char *key, Json *v)
{
	const char **keys = json_keys(o);
	Json **kids;

	for (uint32_t i = 0; keys && i < o->len; i++)
		if (strcmp(keys[i], key) == 0) {
			o->kids[i] = v;
			return;
		}
	kids = ARENA_ARRAY(a, Json *, 2 * (o->len + 1));
	if (o->len) {
		memcpy(kids, o->kids, sizeof *kids * o->len);
		memcpy(kids + o->len + 1, keys, sizeof *keys * o->len);
	}
	kids[o->len] = v;
	((const char **)(kids + o->len + 1))[o->len] = key;
	o->kids = kids;
	o->len++;
}

static Json *
mk(Arena *a, JsonType t)
{
	Json *j = ARENA_NEW(a, Json);

	j->type = t;
	return j;
}

static Json *
mk_int(Arena *a, int64_t v)
{
	Json *j = mk(a, JSON_NUMBER);

	j->is_int = 1;
	j->i = v;
	return j;
}

static Json *
mk_str(Arena *a, const char *s)
{
	Json *j = mk(a, JSON_STRING);

	j->s = s;
	j->len = (uint32_t)strlen(s);
	return j;
}

/* {key: v} */
static Json *
mk_union(Arena *a, const char *key, Json *v)
{
	Json *o = mk(a, JSON_OBJECT);

	jset(a, o, key, v);
	return o;
}

static Json *
mk_arr(Arena *a, int n, Json **items)
{
	Json *j = mk(a, JSON_ARRAY);

	j->len = (uint32_t)n;
	j->kids = ARENA_ARRAY(a, Json *, n + 1);
	for (int i = 0; i < n; i++)
		j->kids[i] = items[i];
	return j;
}

static void
arr_insert(Arena *a, Json *arr, unsigned at, Json *v)
{
	Json **kids;

	if (arr->type != JSON_ARRAY)
		return;   /* an object's keys follow its kids (json_keys) */
	kids = ARENA_ARRAY(a, Json *, arr->len + 1);
	if (at > arr->len)
		at = arr->len;
	if (arr->len) {
		memcpy(kids, arr->kids, sizeof *kids * at);
		memcpy(kids + at + 1, arr->kids + at, sizeof *kids * (arr->len - at));
	}
	kids[at] = v;
	arr->kids = kids;
	arr->len++;
}

static void
arr_remove(Json *arr, unsigned at)
{
	if (at >= arr->len || arr->type != JSON_ARRAY)
		return;
	memmove(arr->kids + at, arr->kids + at + 1, sizeof *arr->kids * (arr->len - at - 1));
	arr->len--;
}

static void
collect(Tree *t, Json *j, const char *key, Json *parent)
{
	static const char *const tables[] = {
		"tensor_values", "sym_int_values", "sym_bool_values", "sym_float_values", "custom_obj_values",
	};

	if (!j)
		return;
	if (j->type == JSON_STRING) {
		/* a value reference: {"name": X} that is not a node's or a graph argument's name, or {"as_name": X} */
		if ((key && strcmp(key, "as_name") == 0) ||
		    (key && strcmp(key, "name") == 0 && parent && !jget(parent, "target") && !jget(parent, "graph") &&
		     !jget(parent, "arg")))
			push(t->a, &t->refs, j);
		return;
	}
	if (j->type == JSON_ARRAY) {
		for (uint32_t i = 0; i < j->len; i++)
			collect(t, j->kids[i], NULL, j);
		return;
	}
	if (j->type != JSON_OBJECT)
		return;
	if (jget(j, "nodes") && jget(j, "inputs") && jget(j, "outputs")) {
		Json *nodes = jget(j, "nodes");
		push(t->a, &t->graphs, j);
		for (uint32_t i = 0; nodes->type == JSON_ARRAY && i < nodes->len; i++)
			if (nodes->kids[i]->type == JSON_OBJECT)
				push(t->a, &t->nodes, nodes->kids[i]);
		for (size_t k = 0; k < sizeof tables / sizeof tables[0]; k++) {
			Json *tab = jget(j, tables[k]);
			for (uint32_t i = 0; tab && tab->type == JSON_OBJECT && i < tab->len; i++) {
				push(t->a, &t->names, mk_str(t->a, json_keys(tab)[i]));
				if (k == 0 && tab->kids[i]->type == JSON_OBJECT)
					push(t->a, &t->metas, tab->kids[i]);
			}
		}
	}
	if (jget(j, "target") && jget(j, "inputs")) {
		Json *ins = jget(j, "inputs");
		for (uint32_t i = 0; ins->type == JSON_ARRAY && i < ins->len; i++)
			if (ins->kids[i]->type == JSON_OBJECT && jget(ins->kids[i], "arg"))
				push(t->a, &t->args, ins->kids[i]);
	}
	for (uint32_t i = 0; i < j->len; i++)
		collect(t, j->kids[i], json_keys(j)[i], j);
}

/* ---- mutations ---- */

static const char *
any_name(Tree *t, Bytes *b)
{
	return t->names.n ? t->names.v[pick(b, (unsigned)t->names.n)]->s : "x";
}

static Json *
ref_to(Tree *t, const char *name)
{
	return mk_union(t->a, "name", mk_str(t->a, name));
}

/* An argument of some kind, made up or taken from another node. */
static Json *
some_arg(Tree *t, Bytes *b)
{
	Arena *a = t->a;
	Json *two[2];

	if (t->args.n && pick(b, 2)) {
		Json *g = jget(t->args.v[pick(b, (unsigned)t->args.n)], "arg");
		if (!jget(g, "as_graph"))       /* a subgraph moved into itself would be a cycle */
			return g;
	}
	switch (pick(b, 18)) {
	case 0: return mk_union(a, "as_none", mk(a, JSON_NULL));
	case 1: return mk_union(a, "as_int", mk_int(a, (int64_t)pick(b, 5) - 2));
	case 2: { Json *f = mk(a, JSON_NUMBER); f->f = 0.5; return mk_union(a, "as_float", f); }
	case 3: return mk_union(a, "as_bool", mk(a, pick(b, 2) ? JSON_TRUE : JSON_FALSE));
	case 4: two[0] = mk_int(a, 1); two[1] = mk_int(a, -1); return mk_union(a, "as_ints", mk_arr(a, (int)pick(b, 3), two));
	case 5: return mk_union(a, "as_tensor", ref_to(t, any_name(t, b)));
	case 6: two[0] = ref_to(t, any_name(t, b)); two[1] = ref_to(t, any_name(t, b));
		return mk_union(a, "as_tensors", mk_arr(a, (int)pick(b, 3), two));
	case 7: two[0] = mk_union(a, "as_none", mk(a, JSON_NULL));
		two[1] = mk_union(a, "as_tensor", ref_to(t, any_name(t, b)));
		return mk_union(a, "as_optional_tensors", mk_arr(a, (int)pick(b, 3), two));
	case 8: return mk_union(a, "as_string", mk_str(a, pick(b, 2) ? "mean" : "tanh"));
	case 9: return mk_union(a, "as_sym_int", mk_union(a, "as_name", mk_str(a, any_name(t, b))));
	case 10: two[0] = mk_union(a, "as_int", mk_int(a, 2));
		two[1] = mk_union(a, "as_name", mk_str(a, any_name(t, b)));
		return mk_union(a, "as_sym_ints", mk_arr(a, (int)pick(b, 3), two));
	case 11: return mk_union(a, "as_scalar_type", mk_int(a, (int64_t)pick(b, 48) - 2));
	case 12: { Json *f = mk(a, JSON_NUMBER); f->f = 1.5; two[0] = f;
		return mk_union(a, "as_floats", mk_arr(a, (int)pick(b, 2), two)); }
	case 13: return mk_union(a, "as_memory_format", mk_int(a, pick(b, 6)));
	case 14: return mk_union(a, "as_layout", mk_int(a, pick(b, 4)));
	case 15: return mk_union(a, "as_optional_tensor", mk_union(a, "as_tensor", ref_to(t, any_name(t, b))));
	case 16: return mk_union(a, "as_sym_bool", mk_union(a, "as_name", mk_str(a, any_name(t, b))));
	default: return mk_union(a, "as_device", mk_union(a, "type", mk_str(a, "cpu")));
	}
}

/* The first value reference inside j (a node's outputs), or NULL. */
static Json *
first_ref(Json *j, const char *key, Json *parent)
{
	if (!j)
		return NULL;
	if (j->type == JSON_STRING)
		return key && (strcmp(key, "name") == 0 || strcmp(key, "as_name") == 0) && parent ? j : NULL;
	for (uint32_t i = 0; (j->type == JSON_ARRAY || j->type == JSON_OBJECT) && i < j->len; i++) {
		Json *r = first_ref(j->kids[i], j->type == JSON_OBJECT ? json_keys(j)[i] : NULL, j);
		if (r)
			return r;
	}
	return NULL;
}

static Json *
any_of(Vec *x, Bytes *b)
{
	return x->n ? x->v[pick(b, (unsigned)x->n)] : NULL;
}

/* Applies one mutation; a choice that finds nothing to change is a no-op. */
static void
mutate(Tree *t, Bytes *b)
{
	Arena *a = t->a;
	Json *g, *n, *m, *arr, *r;
	unsigned i, j;

	switch (pick(b, 17)) {
	case 0: case 1:         /* a reference renamed to another value */
		if ((r = any_of(&t->refs, b)))
			r->s = any_name(t, b), r->len = (uint32_t)strlen(r->s);
		break;
	case 2:                 /* ... to a name no table declares */
		if ((r = any_of(&t->refs, b)))
			r->s = "fuzz_undeclared", r->len = 15;
		break;
	case 3:                 /* a node reads its own output */
		if ((n = any_of(&t->nodes, b)) && (m = first_ref(jget(n, "outputs"), NULL, NULL)) &&
		    (r = first_ref(jget(n, "inputs"), NULL, NULL)))
			r->s = m->s, r->len = m->len;
		break;
	case 4:                 /* two nodes swapped (often neighbours) */
		if ((g = any_of(&t->graphs, b)) && (arr = jget(g, "nodes"))->len >= 2) {
			i = pick(b, arr->len);
			j = pick(b, 2) ? (i + 1) % arr->len : pick(b, arr->len);
			m = arr->kids[i], arr->kids[i] = arr->kids[j], arr->kids[j] = m;
		}
		break;
	case 5:                 /* a node duplicated */
		if ((g = any_of(&t->graphs, b)) && (arr = jget(g, "nodes"))->len >= 1) {
			i = pick(b, arr->len);
			arr_insert(a, arr, pick(b, 2) ? i + 1 : pick(b, arr->len + 1), arr->kids[i]);
		}
		break;
	case 6:                 /* a node deleted */
		if ((g = any_of(&t->graphs, b)) && (arr = jget(g, "nodes"))->len >= 1)
			arr_remove(arr, pick(b, arr->len));
		break;
	case 7: case 8:         /* an argument of another kind */
		if ((m = any_of(&t->args, b)))
			jset(a, m, "arg", some_arg(t, b));
		break;
	case 9:                 /* an argument dropped, or two swapped */
		if ((n = any_of(&t->nodes, b)) && (arr = jget(n, "inputs")) && arr->type == JSON_ARRAY && arr->len) {
			i = pick(b, arr->len);
			j = pick(b, arr->len);
			if (pick(b, 2))
				arr_remove(arr, i);
			else if (jget(arr->kids[i], "arg") && jget(arr->kids[j], "arg")) {
				m = jget(arr->kids[i], "arg");
				jset(a, arr->kids[i], "arg", jget(arr->kids[j], "arg"));
				jset(a, arr->kids[j], "arg", m);
			}
		}
		break;
	case 10:                /* an output dropped */
		if ((n = any_of(&t->nodes, b)) && (arr = jget(n, "outputs")) && arr->type == JSON_ARRAY && arr->len)
			arr_remove(arr, pick(b, arr->len));
		break;
	case 11:                /* an output added: None, a value, or a copy of one */
		if ((n = any_of(&t->nodes, b)) && (arr = jget(n, "outputs")) && arr->type == JSON_ARRAY) {
			switch (pick(b, 3)) {
			case 0: m = mk_union(a, "as_none", mk(a, JSON_NULL)); break;
			case 1: m = mk_union(a, "as_tensor", ref_to(t, any_name(t, b))); break;
			default: m = arr->len ? arr->kids[pick(b, arr->len)] : mk_union(a, "as_none", mk(a, JSON_NULL));
			}
			arr_insert(a, arr, pick(b, arr->len + 1), m);
		}
		break;
	case 12:                /* outputs wrapped in one as_tensors list, or unwrapped */
		if ((n = any_of(&t->nodes, b)) && (arr = jget(n, "outputs")) && arr->type == JSON_ARRAY && arr->len) {
			Json *l = jget(arr->kids[0], "as_tensors");
			if (l && l->type == JSON_ARRAY) {
				Json **items = ARENA_ARRAY(a, Json *, l->len + 1);
				for (uint32_t k = 0; k < l->len; k++)
					items[k] = mk_union(a, "as_tensor", l->kids[k]);
				jset(a, n, "outputs", mk_arr(a, (int)l->len, items));
			} else {
				Json **items = ARENA_ARRAY(a, Json *, arr->len + 1);
				int k = 0;
				for (uint32_t q = 0; q < arr->len; q++)
					if ((m = jget(arr->kids[q], "as_tensor")))
						items[k++] = m;
				jset(a, n, "outputs", mk_arr(a, 1, (Json *[]){mk_union(a, "as_tensors", mk_arr(a, k, items))}));
			}
		}
		break;
	case 13:                /* another node's target */
		if ((n = any_of(&t->nodes, b)) && (m = any_of(&t->nodes, b)) && jget(m, "target"))
			jset(a, n, "target", jget(m, "target"));
		break;
	case 14:                /* a graph output dropped, duplicated or renamed */
		if ((g = any_of(&t->graphs, b)) && (arr = jget(g, "outputs"))->type == JSON_ARRAY && arr->len) {
			i = pick(b, arr->len);
			switch (pick(b, 3)) {
			case 0: arr_remove(arr, i); break;
			case 1: arr_insert(a, arr, pick(b, arr->len + 1), arr->kids[i]); break;
			default: arr->kids[i] = mk_union(a, "as_tensor", ref_to(t, any_name(t, b)));
			}
		}
		break;
	case 15:                /* a dtype, known or not */
		if ((m = any_of(&t->metas, b)))
			jset(a, m, "dtype", mk_int(a, (int64_t)pick(b, 50) - 2));
		break;
	default:                /* a rank or a size */
		if ((m = any_of(&t->metas, b)) && (arr = jget(m, "sizes")) && arr->type == JSON_ARRAY) {
			switch (pick(b, 3)) {
			case 0: if (arr->len) arr_remove(arr, arr->len - 1); break;
			case 1: arr_insert(a, arr, pick(b, arr->len + 1), mk_union(a, "as_int", mk_int(a, pick(b, 3)))); break;
			default: if (arr->len) arr->kids[pick(b, arr->len)] = mk_union(a, "as_int", mk_int(a, pick(b, 4)));
			}
			if ((r = jget(m, "strides")))       /* keep the strides in step, mostly */
				jset(a, m, "strides", pick(b, 4) ? arr : r);
		}
		break;
	}
}

/* ---- writing the case back: JSON text, then a stored zip ---- */

typedef struct Buf {
	uint8_t *p;
	size_t n, cap;
} Buf;

static void
put(Buf *b, const void *s, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 4096;
		if (!(b->p = realloc(b->p, b->cap)))
			abort();
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
}

static void
puts_(Buf *b, const char *s)
{
	put(b, s, strlen(s));
}

static void
put_str(Buf *b, const char *s)
{
	char esc[8];

	put(b, "\"", 1);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\') {
			esc[0] = '\\', esc[1] = (char)ch;
			put(b, esc, 2);
		} else if (ch < 0x20) {
			snprintf(esc, sizeof esc, "\\u%04x", ch);
			put(b, esc, 6);
		} else {
			put(b, s, 1);
		}
	}
	put(b, "\"", 1);
}

static void
write_json(Buf *b, const Json *j)
{
	char num[40];

	if (!j) {
		puts_(b, "null");
		return;
	}
	switch (j->type) {
	case JSON_NULL: puts_(b, "null"); break;
	case JSON_FALSE: puts_(b, "false"); break;
	case JSON_TRUE: puts_(b, "true"); break;
	case JSON_NUMBER:
		if (j->is_int)
			snprintf(num, sizeof num, "%lld", (long long)j->i);
		else if (j->f != j->f)
			snprintf(num, sizeof num, "NaN");
		else if (j->f > 1.7976931348623157e308 || j->f < -1.7976931348623157e308)
			snprintf(num, sizeof num, "%sInfinity", j->f < 0 ? "-" : "");
		else
			snprintf(num, sizeof num, "%.17g", j->f);
		puts_(b, num);
		break;
	case JSON_STRING: put_str(b, j->s); break;
	case JSON_ARRAY:
	case JSON_OBJECT:
		put(b, j->type == JSON_ARRAY ? "[" : "{", 1);
		for (uint32_t i = 0; i < j->len; i++) {
			if (i)
				put(b, ",", 1);
			if (j->type == JSON_OBJECT) {
				put_str(b, json_keys(j)[i]);
				put(b, ":", 1);
			}
			write_json(b, j->kids[i]);
		}
		put(b, j->type == JSON_ARRAY ? "]" : "}", 1);
		break;
	}
}

static void
le(Buf *b, uint64_t v, int bytes)
{
	uint8_t x[8];

	for (int i = 0; i < bytes; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	put(b, x, (size_t)bytes);
}

/* A stored zip of f's entries, the program JSON replaced by json. */
static void
write_zip(Buf *z, const Fixture *f, const Buf *json)
{
	uint32_t *crc = calloc((size_t)f->nent + 1, sizeof *crc);
	uint64_t *ofs = calloc((size_t)f->nent + 1, sizeof *ofs), cd, cdlen;
	uint16_t *pad = calloc((size_t)f->nent + 1, sizeof *pad);

	if (!crc || !ofs || !pad)
		abort();
	for (int i = 0; i < f->nent; i++) {
		const uint8_t *data = i == f->json ? json->p : f->ent[i].data;
		size_t size = i == f->json ? json->n : f->ent[i].size, nlen = strlen(f->ent[i].name);
		crc[i] = (uint32_t)crc32(0, data, (uInt)size);
		ofs[i] = z->n;
		/* torch aligns record data to 64 bytes: pad the extra field (id 0xfuzz) */
		pad[i] = (uint16_t)((64 - (z->n + 30 + nlen + 4) % 64) % 64 + 4);
		le(z, 0x04034b50, 4), le(z, 20, 2), le(z, 0, 2), le(z, 0, 2), le(z, 0, 2), le(z, 0x21, 2);
		le(z, crc[i], 4), le(z, size, 4), le(z, size, 4), le(z, nlen, 2), le(z, pad[i], 2);
		put(z, f->ent[i].name, nlen);
		le(z, 0xf22a, 2), le(z, pad[i] - 4u, 2);
		for (int k = 0; k < pad[i] - 4; k++)
			put(z, "", 1);
		put(z, data, size);
	}
	cd = z->n;
	for (int i = 0; i < f->nent; i++) {
		size_t size = i == f->json ? json->n : f->ent[i].size, nlen = strlen(f->ent[i].name);
		le(z, 0x02014b50, 4), le(z, 20, 2), le(z, 20, 2), le(z, 0, 2), le(z, 0, 2), le(z, 0, 2);
		le(z, 0x21, 2), le(z, crc[i], 4), le(z, size, 4), le(z, size, 4), le(z, nlen, 2);
		le(z, 0, 2), le(z, 0, 2), le(z, 0, 2), le(z, 0, 2), le(z, 0, 4), le(z, ofs[i], 4);
		put(z, f->ent[i].name, nlen);
	}
	cdlen = z->n - cd;
	le(z, 0x06054b50, 4), le(z, 0, 2), le(z, 0, 2), le(z, (uint64_t)f->nent, 2), le(z, (uint64_t)f->nent, 2);
	le(z, cdlen, 4), le(z, cd, 4), le(z, 0, 2);
	free(crc);
	free(ofs);
	free(pad);
}

/* ---- one case ---- */

static const char *work_pt2, *work_onnx, *work_opts;
static long counts[3];
static int verbose;       /* print each case's messages */
static int max_mut = 3;   /* mutations per case: 1 to max_mut (0: none, to test the harness) */

/* Mutates fixture f as the decisions b say, converts it; aborts on a broken contract. */
static void
run_case(const Fixture *f, Bytes *b, int report)
{
	Arena a;
	Diag d = {0};
	Tree t = {0};
	Json *root;
	Buf json = {0}, zip = {0};
	Pipeline pl = {0};
	FILE *out;
	const char *text;
	int rc, nmut = max_mut ? 1 + (int)pick(b, (unsigned)max_mut) : 0;
	const Entry *e = &f->ent[f->json];

	arena_init(&a);
	t.a = &a;
	if (!(root = json_parse(&a, "fixture", (const char *)e->data, e->size, &d)))
		abort();
	collect(&t, root, NULL, NULL);
	for (int i = 0; i < nmut; i++)
		mutate(&t, b);
	write_json(&json, root);
	write_zip(&zip, f, &json);
	if (!(out = fopen(work_pt2, "wb")) || fwrite(zip.p, 1, zip.n, out) != zip.n || fclose(out))
		abort();
	free(json.p);
	free(zip.p);

	pl.input = work_pt2;
	pl.out = work_onnx;
	pl.options = report ? NULL : work_opts;
	pipeline_init(&pl, &a);
	if (!(rc = pipeline_read(&pl, &d))) {
		FILE *null = fopen("/dev/null", "w");   /* --print reads every field */
		if (!null)
			abort();
		ir_print(null, &pl.prog);
		fclose(null);
		rc = pipeline_run(&pl, &d);
	}
	text = test_diag_text(&d);
	if (rc < 0 || rc > 2 || (rc && !text) || (rc == DIAG_INPUT && !strstr(text, work_pt2))) {
		fprintf(stderr, "fuzz_graph: %s from %s: rc %d, message: %s\n", work_pt2, f->path, rc,
		        text ? text : "(none)");
		abort();
	}
	counts[rc]++;
	if (verbose && text)
		fprintf(stderr, "%s", text);
	pipeline_close(&pl);
	arena_free(&a);
	diag_free(&d);
}

static void
setup(const char *dir)
{
	Arena *a = &keep;
	FILE *o;

	work_pt2 = arena_printf(a, "%s/fuzz_graph-%ld.pt2", dir, (long)getpid());
	work_onnx = arena_printf(a, "%s/fuzz_graph-%ld.onnx", dir, (long)getpid());
	work_opts = arena_printf(a, "%s/fuzz_graph-%ld.yaml", dir, (long)getpid());
	if (!(o = fopen(work_opts, "w")) || fputs("report: false\n", o) < 0 || fclose(o))
		abort();
	if (!nfix)
		add_glob(getenv("YOBX_FUZZ_FIXTURES") ? getenv("YOBX_FUZZ_FIXTURES") : "test/models/torch-*/*.pt2");
	if (!nfix) {
		fprintf(stderr, "fuzz_graph: no fixtures (run from the repository root, or set YOBX_FUZZ_FIXTURES)\n");
		exit(2);
	}
}

#ifndef GRAPH_DRIVER

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	arena_init(&keep);
	setup(getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return 0;
}

/* data: the fixture, whether to write the report, then the mutations' decisions. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Bytes b = {data, size, 0};
	const Fixture *f = &fix[pick(&b, (unsigned)nfix)];

	run_case(f, &b, pick(&b, 8) == 0);
	return 0;
}

#else

static uint64_t
splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* graph_driver [-seed=S] [-start=I] [-runs=N] [-dir=D] [-mutations=M] [-v] [FIXTURE.pt2...]:
 * cases I..I+N-1 of seed S, each with 1 to M mutations (M = 0: the fixture
 * as it is, rewritten); prints the count of each outcome. */
int
main(int argc, char **argv)
{
	uint64_t seed = 1;
	long start = 0, runs = 1000;
	const char *dir = "/tmp";
	uint8_t dec[256];

	arena_init(&keep);
	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "-seed=", 6) == 0)
			seed = strtoull(argv[i] + 6, NULL, 10);
		else if (strncmp(argv[i], "-start=", 7) == 0)
			start = strtol(argv[i] + 7, NULL, 10);
		else if (strncmp(argv[i], "-runs=", 6) == 0)
			runs = strtol(argv[i] + 6, NULL, 10);
		else if (strncmp(argv[i], "-dir=", 5) == 0)
			dir = argv[i] + 5;
		else if (strncmp(argv[i], "-mutations=", 11) == 0)
			max_mut = atoi(argv[i] + 11);
		else if (strcmp(argv[i], "-v") == 0)
			verbose = 1;
		else
			add_fixture(argv[i]);
	}
	setup(dir);
	for (long i = start; i < start + runs; i++) {
		uint64_t s = seed * 0x100000001b3u ^ (uint64_t)i;
		Bytes b = {dec, sizeof dec, 0};
		const Fixture *f;
		for (size_t k = 0; k < sizeof dec; k += 8) {
			uint64_t x = splitmix(&s);
			memcpy(dec + k, &x, 8);
		}
		f = &fix[pick(&b, (unsigned)nfix)];
		if (verbose)
			fprintf(stderr, "case %ld: %s\n", i, f->path);
		run_case(f, &b, pick(&b, 8) == 0);
	}
	printf("fuzz_graph: seed %llu, cases %ld..%ld (%d fixtures): %ld converted, %ld failed to convert (exit 1), %ld bad input (exit 2)\n",
	       (unsigned long long)seed, start, start + runs - 1, nfix, counts[0], counts[1], counts[2]);
	unlink(work_pt2);
	unlink(work_onnx);
	unlink(work_opts);
	unlink(pipeline_report_path(&keep, work_onnx));
	arena_free(&keep);
	return 0;
}

#endif
