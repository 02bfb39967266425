/* tsarchive.c: the records of a TorchScript archive (torch.jit.save).
 *
 * The archive is a zip under one root folder: data.pkl (the module tree),
 * constants.pkl with constants/N, code/ **.py with a .debug_pkl beside each,
 * data/N (storages), a version record and, depending on the torch that
 * wrote it, byteorder, .data/serialization_id, traced_inputs.pkl and the
 * user's extra/ files.  This file reads them into a TsArchive (ts.h); it
 * runs no code: tsparse.c and tsbuild.c do that.
 *
 * The pickles run through pickle.c with hooks: every GLOBAL must be one
 * TorchScript's own unpickler resolves (torch/csrc/jit/serialization/
 * unpickler.cpp), so `os.system` is an error at its offset; the
 * torch.jit._pickle wrappers (restore_type_tag, build_intlist, ...) are
 * replaced while unpickling by the value they wrap, so the memo holds the
 * value itself.  torchsave.c then turns _rebuild_tensor_v2 calls into
 * tensors over data/N (constants/N for constants.pkl).
 *
 * A .debug_pkl holds source-range records (source_range_serialization.cpp):
 * (byte offset in the code, range, tag) sorted by offset, each range
 * covering the code from its offset up to the next record's.  A range is
 * (source, start, end) and a source (text, file, first line), the text
 * being the user's function (scripted code) or the Python stack the
 * tracer saw (traced code).  Three layouts exist: torch 1.11 and later
 * write ("FORMAT_WITH_STRING_TABLE", strings, records) with a source's
 * text and file as indices into the strings (1.13, 2.6 and 2.14 do); older
 * torch (or _set_should_use_format_with_string_table(False)) writes the
 * records alone with the text inline; the oldest records are (offset,
 * range) pairs.  A missing or unreadable .debug_pkl only leaves the
 * code's spans empty: the code still runs, errors just lack the user's
 * line. */
#include "ts.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- what TorchScript's pickles may name ---- */

/* X(module, name): the globals torch's TorchScript unpickler knows besides
 * the __torch__ classes and torch's storage types. */
#define TS_GLOBALS(X) \
	X("torch.jit._pickle", "restore_type_tag") \
	X("torch.jit._pickle", "build_intlist") \
	X("torch.jit._pickle", "build_tensorlist") \
	X("torch.jit._pickle", "build_doublelist") \
	X("torch.jit._pickle", "build_boollist") \
	X("torch.jit._pickle", "build_tensor_from_id") \
	X("torch._utils", "_rebuild_tensor_v2") \
	X("torch._utils", "_rebuild_qtensor") \
	X("torch._utils", "_rebuild_sparse_tensor") \
	X("torch._tensor", "_rebuild_from_type_v2") \
	X("torch", "Tensor") \
	X("torch", "device") \
	X("torch", "per_tensor_affine") \
	X("torch", "per_channel_affine") \
	X("torch", "per_tensor_symmetric") \
	X("torch", "per_channel_symmetric") \
	X("torch", "per_channel_affine_float_qparams") \
	X("builtins", "complex") \
	X("collections", "OrderedDict") \
	X("torch.distributed.rpc", "rref") \
	X("__main__", "TensorID") \
	X("__main__", "IntList")

static const struct {
	const char *module, *name;
} ts_globals[] = {
#define X(m, n) {m, n},
	TS_GLOBALS(X)
#undef X
};

static int
is_ident(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9')))
			return 0;
	return 1;
}

static int
ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && strcmp(s + n - k, tail) == 0;
}

static int
starts_with(const char *s, const char *head)
{
	return strncmp(s, head, strlen(head)) == 0;
}

/* Classes the archive's own code defines live under __torch__ (modules,
 * NamedTuples, enums, custom classes as __torch__.torch.classes.*). */
static int
ts_allow_global(const char *module, const char *name)
{
	if ((strcmp(module, "__torch__") == 0 || starts_with(module, "__torch__.")) && is_ident(name))
		return 1;
	if (strcmp(module, "torch") == 0 && ends_with(name, "Storage") && is_ident(name))
		return 1;
	for (size_t i = 0; i < sizeof ts_globals / sizeof ts_globals[0]; i++)
		if (strcmp(module, ts_globals[i].module) == 0 && strcmp(name, ts_globals[i].name) == 0)
			return 1;
	return 0;
}

/* restore_type_tag(value, "List[int]") and build_*list(list) return what
 * they wrap: the static type they restore matters to TorchScript's
 * interpreter, not here (the code's annotations say it again). */
static int
ts_reduce(PyObj *func, PyObj *args, PyObj **out, const char **why)
{
	if (strcmp(func->s, "torch.jit._pickle") == 0) {
		int tag = strcmp(func->name, "restore_type_tag") == 0;

		if (strcmp(func->name, "build_tensor_from_id") == 0) {
			*why = "a tensor table reference (the pre-zip format of torch 1.0 to 1.2): "
			       "load and save the module again with a newer torch";
			return -1;
		}
		/* restore_type_tag(value, "List[int]"), build_intlist([...]) and the like */
		if (tag ? args->n != 2 || args->items[1]->kind != PY_STR
		        : args->n != 1 || args->items[0]->kind != PY_LIST) {
			*why = tag ? "expects (value, type string)" : "expects one list";
			return -1;
		}
		*out = args->items[0];
		return 0;
	}
	if (strcmp(func->s, "__main__") == 0) {
		*why = "a pre-zip archive (torch 1.0 to 1.2): load and save the module again with "
		       "a newer torch";
		return -1;
	}
	return 0;
}

static const PickleHooks ts_hooks = {
	.allow_global = ts_allow_global,
	.who = "torch.jit.save",
	.reduce = ts_reduce,
};

/* ---- format and producer ---- */

/* X(format, when torch writes it): caffe2/serialize/versions.h, and what
 * torch 1.13, 2.6 and 2.14 were seen to write (each the same): 3 in
 * `version` for code whose operators all kept their meaning, else the
 * format of the newest change among them, 4 and 5 in `version`, 6 and up
 * in `.data/version` (div 4, full 5, linspace 8, logspace 9, gelu 10). */
#define TS_FORMATS(X) \
	X(1, "the first zip format; not seen from torch 1.13 or later") \
	X(2, "operator version numbers removed; not seen from torch 1.13 or later") \
	X(3, "code whose operators kept their meaning; torch 1.13 to 2.14 write it") \
	X(4, "aten::div; torch 1.13 to 2.14 write it") \
	X(5, "aten::full; torch 1.13 to 2.14 write it") \
	X(6, "torch.package's .data/version; not seen from torch.jit.save") \
	X(7, "the upgrader scheme of torch 1.11; not seen from torch.jit.save") \
	X(8, "aten::linspace; torch 1.13 to 2.14 write it") \
	X(9, "aten::logspace; torch 1.13 to 2.14 write it") \
	X(10, "aten::gelu; torch 1.13 to 2.14 write it")

static const char *const ts_format_why[] = {
#define X(n, why) [n] = why,
	TS_FORMATS(X)
#undef X
};
enum { TS_MAX_FORMAT = sizeof ts_format_why / sizeof ts_format_why[0] - 1 };

static int
ts_fail(const TsArchive *t, Diag *d, const char *entry, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int
ts_fail(const TsArchive *t, Diag *d, const char *entry, const char *fmt, ...)
{
	va_list ap;
	char msg[512], where[1024];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* "file:entry" as the other readers' labels, which diag.c splits */
	snprintf(where, sizeof where, entry ? "%s:%s" : "%s", t->label, entry);
	return diag_report(d, YE_TS_ARCHIVE, &(DiagAt){.file = where}, "%s", msg);
}

/* Reads the decimal in entry e (blanks and a newline around it allowed). */
static int
read_format(TsArchive *t, ZipEntry *e, Diag *d)
{
	int64_t v = 0;
	uint64_t i = 0, n;
	const uint8_t *p;

	if (zip_data(t->zip, e, d))
		return d->code;
	p = e->data;
	n = e->size;
	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	if (i == n || p[i] < '0' || p[i] > '9')
		return ts_fail(t, d, e->name, "the version record is not a number");
	for (; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
		if (v > 100000)
			return ts_fail(t, d, e->name, "the version record is too large");
		v = v * 10 + (p[i] - '0');
	}
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
		i++;
	if (i != n)
		return ts_fail(t, d, e->name, "the version record is not a number");
	t->format = v;
	return 0;
}

/* The version record, byteorder, and the producer text they and the
 * other records give. */
static int
read_meta(TsArchive *t, Arena *a, Diag *d)
{
	ZipEntry *ver = zip_find(t->zip, "version"), *e;
	const char *where = "version";
	char buf[1024];
	size_t len;
	int nextra = 0;

	if (!ver) {
		ver = zip_find(t->zip, ".data/version");
		where = ".data/version";
	}
	if (!ver)
		return ts_fail(t, d, NULL, "no version record ('version' or '.data/version')");
	if (read_format(t, ver, d))
		return d->code;
	if (t->format < 1 || t->format > TS_MAX_FORMAT)
		return ts_fail(t, d, ver->name, "TorchScript format %lld is not one torch 1.x or 2.x "
		               "writes (1 to %d)", (long long)t->format, (int)TS_MAX_FORMAT);
	if ((e = zip_find(t->zip, "byteorder"))) {
		if (zip_data(t->zip, e, d))
			return d->code;
		if (!(e->size == 6 && memcmp(e->data, "little", 6) == 0))
			return ts_fail(t, d, e->name, "tensor data of byte order '%.*s' is not supported "
			               "(only little-endian)", (int)(e->size > 16 ? 16 : e->size),
			               (const char *)e->data);
	}
	len = (size_t)snprintf(buf, sizeof buf, "torch.jit.save, format %lld in '%s' (%s)",
	                       (long long)t->format, where, ts_format_why[t->format]);
	/* torch 1.13 writes neither record; 2.6 and 2.14 write both. */
	if (zip_find(t->zip, "byteorder") || zip_find(t->zip, ".data/serialization_id"))
		len += (size_t)snprintf(buf + len, sizeof buf - len, ", torch 2.x records");
	if (zip_find(t->zip, "traced_inputs.pkl") && len < sizeof buf)
		len += (size_t)snprintf(buf + len, sizeof buf - len, ", traced inputs");
	if (zip_find(t->zip, "bytecode.pkl") && len < sizeof buf)
		len += (size_t)snprintf(buf + len, sizeof buf - len, ", lite-interpreter bytecode");
	for (int i = 0; i < t->zip->n && len < sizeof buf - 1; i++)
		if (starts_with(t->zip->ent[i].rel, "extra/") && t->zip->ent[i].rel[6])
			len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s",
			                        nextra++ ? ", " : ", extra files: ", t->zip->ent[i].rel + 6);
	t->producer = arena_strdup(a, buf);
	return 0;
}

/* ---- the pickles ---- */

static int
read_pickles(TsArchive *t, Arena *a, Diag *d)
{
	ZipEntry *e = zip_find(t->zip, "data.pkl");
	const PyObj *f;

	if (!e) {
		if (zip_find(t->zip, "model.json"))
			return ts_fail(t, d, NULL, "no data.pkl: a model.json archive (torch 1.0 to 1.2) is "
			               "not read; load and save the module again with a newer torch");
		return ts_fail(t, d, NULL, "no data.pkl (the module tree)");
	}
	if (!(t->root = torchsave_read(a, t->zip, e, "data", &ts_hooks, d)))
		return d->code;
	f = t->root->kind == PY_CALL ? t->root->func : NULL;
	if (!f || f->kind != PY_GLOBAL || !starts_with(f->s, "__torch__"))
		return ts_fail(t, d, e->name, "the top object is not a TorchScript module (a __torch__ "
		               "class instance)");
	if (!(e = zip_find(t->zip, "constants.pkl")))
		return 0;
	if (!(t->constants = torchsave_read(a, t->zip, e, "constants", &ts_hooks, d)))
		return d->code;
	if (t->constants->kind != PY_TUPLE)
		return ts_fail(t, d, e->name, "constants.pkl holds no tuple");
	return 0;
}

/* ---- source ranges ---- */

/* A decoded source: its text split at newlines. */
typedef struct Source {
	const char *text;
	size_t len;
	const char *file;
	int64_t first_line;
	int traced;             /* the text is a tracer's stack, not code */
	int nline;
	size_t *line_ofs;       /* nline + 1 offsets, the last being len */
	const char **line_src;  /* each line without its indent and newline, made on first use */
} Source;

typedef struct Ranges {
	Arena *a;
	const PyObj *table;     /* the string table, or NULL (text inline) */
	StrMap *sources;        /* "%p" of the source tuple -> Source */
} Ranges;

static int
int_of(const PyObj *o, int64_t *v)
{
	if (!o || o->kind != PY_INT)
		return 0;
	*v = o->i;
	return 1;
}

static const char *
table_str(const Ranges *r, int64_t i, size_t *n)
{
	const PyObj *s;

	if (i < 0 || (uint64_t)i >= r->table->n)
		return NULL;
	s = r->table->items[i];
	if (s->kind != PY_STR)
		return NULL;
	*n = s->n;
	return s->s;
}

/* A tracer's text is its stack, innermost first: "FILE(LINE): fn\n...". */
static int
looks_traced(const char *text, size_t len, const char *file)
{
	size_t k = strlen(file), i;

	if (k == 0 || len <= k || memcmp(text, file, k) != 0 || text[k] != '(')
		return 0;
	for (i = k + 1; i < len && text[i] >= '0' && text[i] <= '9'; i++)
		;
	return i > k + 1 && i + 1 < len && text[i] == ')' && text[i + 1] == ':';
}

/* Decodes the source tuple o (text or string indices, file, first line). */
static Source *
get_source(Ranges *r, const PyObj *o)
{
	char key[32];
	Source *s;
	const PyObj *text, *file;
	size_t nl = 0;

	snprintf(key, sizeof key, "%p", (const void *)o);
	if ((s = strmap_get(r->sources, key)))
		return s;
	if (o->kind != PY_TUPLE || o->n != 3)
		return NULL;
	s = ARENA_NEW(r->a, Source);
	text = o->items[0];
	file = o->items[1];
	if (!int_of(o->items[2], &s->first_line))
		return NULL;
	if (r->table) {
		int64_t fi, li = 0;
		size_t n, total = 0;
		char *buf;
		const char *p;

		if (text->kind != PY_LIST || !int_of(file, &fi) || !(s->file = table_str(r, fi, &n)))
			return NULL;
		for (size_t i = 0; i < text->n; i++) {
			if (!int_of(text->items[i], &li) || !table_str(r, li, &n))
				return NULL;
			if (n > SIZE_MAX / 4 - total)
				return NULL;
			total += n;
		}
		if (!(buf = arena_try_alloc(r->a, total + 1)))
			return NULL;
		for (size_t i = 0; i < text->n; i++) {
			int_of(text->items[i], &li);
			p = table_str(r, li, &n);
			memcpy(buf + s->len, p, n);
			s->len += n;
		}
		buf[s->len] = 0;
		s->text = buf;
	} else {
		if (text->kind != PY_STR || (file->kind != PY_STR && file->kind != PY_NONE))
			return NULL;
		s->text = text->s;
		s->len = text->n;
		s->file = file->kind == PY_STR ? file->s : "";
	}
	s->traced = looks_traced(s->text, s->len, s->file);
	for (size_t i = 0; i < s->len; i++)
		nl += s->text[i] == '\n';
	s->line_ofs = ARENA_ARRAY(r->a, size_t, nl + 2);
	s->line_ofs[0] = 0;
	for (size_t i = 0; i < s->len; i++)
		if (s->text[i] == '\n')
			s->line_ofs[++s->nline] = i + 1;
	if (s->line_ofs[s->nline] < s->len)
		s->line_ofs[++s->nline] = s->len;
	s->line_src = ARENA_ARRAY(r->a, const char *, s->nline + 1);
	strmap_put(r->sources, key, s);
	return s;
}

/* The 0-based line of s holding byte ofs. */
static int
line_of(const Source *s, size_t ofs)
{
	int lo = 0, hi = s->nline;   /* line_ofs[lo] <= ofs, and ofs < line_ofs[hi] or hi == nline */

	while (hi - lo > 1) {
		int mid = lo + (hi - lo) / 2;
		if (s->line_ofs[mid] <= ofs)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static const char *
line_text(Ranges *r, Source *s, int k)
{
	size_t b, e;

	if (k >= s->nline)
		return NULL;
	if (s->line_src[k])
		return s->line_src[k];
	b = s->line_ofs[k];
	e = s->line_ofs[k + 1];
	while (b < e && (s->text[b] == ' ' || s->text[b] == '\t'))
		b++;
	while (e > b && (s->text[e - 1] == '\n' || s->text[e - 1] == '\r'))
		e--;
	return s->line_src[k] = arena_strndup(r->a, s->text + b, e - b);
}

typedef struct Record {
	int64_t ofs;
	const PyObj *range;
	size_t order;
} Record;

static int
cmp_record(const void *x, const void *y)
{
	const Record *a = x, *b = y;

	if (a->ofs != b->ofs)
		return a->ofs < b->ofs ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* The records of a debug pickle, or -1 when it is not one. */
static int
get_records(Ranges *r, const PyObj *top, Record **out, size_t *n)
{
	const PyObj *recs = top;
	Record *v;

	if (!top || top->kind != PY_TUPLE)
		return -1;
	if (top->n == 3 && top->items[0]->kind == PY_STR &&
	    strcmp(top->items[0]->s, "FORMAT_WITH_STRING_TABLE") == 0) {
		r->table = top->items[1];
		recs = top->items[2];
		if (r->table->kind != PY_TUPLE && r->table->kind != PY_LIST)
			return -1;
		if (recs->kind != PY_TUPLE)
			return -1;
	}
	v = ARENA_ARRAY(r->a, Record, recs->n + 1);
	for (size_t i = 0; i < recs->n; i++) {
		const PyObj *rec = recs->items[i];
		if (rec->kind != PY_TUPLE || rec->n < 2 || rec->n > 3 || !int_of(rec->items[0], &v[i].ofs))
			return -1;
		/* (offset, range, tag) now; (offset, tag, range) for a while; (offset, range) first. */
		v[i].range = rec->items[1]->kind == PY_TUPLE ? rec->items[1]
		           : rec->n == 3 ? rec->items[2] : NULL;
		if (!v[i].range || v[i].range->kind != PY_TUPLE || v[i].range->n != 3)
			return -1;
		v[i].order = i;
	}
	qsort(v, recs->n, sizeof *v, cmp_record);
	*out = v;
	*n = recs->n;
	return 0;
}

/* Fills c->spans from the debug pickle top; -1 (spans left empty) when it
 * is not one. */
static int
decode_spans(TsCode *c, const PyObj *top, Arena *a)
{
	Ranges r = {.a = a, .sources = strmap_new(a, 16)};
	Record *rec;
	size_t n;
	TsSpan *spans;
	int ns = 0;

	if (get_records(&r, top, &rec, &n))
		return -1;
	spans = ARENA_ARRAY(a, TsSpan, n + 1);
	for (size_t i = 0; i < n; i++) {
		int64_t start, end, ofs = rec[i].ofs, next = i + 1 < n ? rec[i + 1].ofs : (int64_t)c->len;
		Source *s = get_source(&r, rec[i].range->items[0]);
		TsSpan *sp;
		int k;

		if (!s || !int_of(rec[i].range->items[1], &start) || !int_of(rec[i].range->items[2], &end) ||
		    start < 0 || end < start || (uint64_t)end > s->len)
			return -1;
		if (ofs < 0 || ofs > (int64_t)c->len)
			return -1;
		if (next > (int64_t)c->len)
			next = (int64_t)c->len;
		/* A record without a source (the class header, a constant) ends the one before it. */
		if (next <= ofs || s->len == 0 || !s->file[0])
			continue;
		k = line_of(s, (size_t)start);
		sp = &spans[ns++];
		sp->start = (uint32_t)ofs;
		sp->end = (uint32_t)next;
		sp->file = s->file;
		sp->line = (int)(s->first_line + k);
		sp->src = s->traced ? NULL : line_text(&r, s, k);
		sp->trace = s->traced ? s->text : NULL;
	}
	c->spans = spans;
	c->nspan = ns;
	return 0;
}

/* The first message of a Diag that is about to be dropped (arena copy). */
static const char *
first_message(Arena *a, const Diag *quiet, const char *otherwise)
{
	char buf[512];

	if (!quiet->n)
		return otherwise;
	diag_format(&quiet->items[0], buf, sizeof buf);
	return arena_strdup(a, buf);
}

/* Reads rel's .debug_pkl, if any, into c's spans; never an error (what
 * went wrong is c->no_spans). */
static void
read_spans(TsArchive *t, TsCode *c, Arena *a)
{
	char *name = arena_printf(a, "%s.debug_pkl", c->rel);
	ZipEntry *e = zip_find(t->zip, name);
	Diag quiet = {0};
	const PyObj *top = NULL;

	c->spans = NULL;
	c->nspan = 0;
	if (!e) {
		c->no_spans = "no .debug_pkl";
		return;
	}
	if (zip_data(t->zip, e, &quiet) == 0 &&
	    (top = pickle_load_hooked(a, arena_printf(a, "%s:%s", t->label, e->name), e->data, e->size,
	                              &ts_hooks, &quiet)) &&
	    decode_spans(c, top, a) == 0) {
		diag_free(&quiet);
		return;
	}
	c->no_spans = first_message(a, &quiet, arena_printf(a, "%s:%s: not the source-range records "
	                            "torch writes", t->label, e->name));
	diag_free(&quiet);
	c->spans = NULL;
	c->nspan = 0;
}

/* ---- code ---- */

/* The bytes of a code file must be UTF-8 text without NUL. */
static const char *
text_problem(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint8_t c = p[i];
		size_t k = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2
		         : (c & 0xf8) == 0xf0 ? 3 : 4;
		if (c == 0)
			return "a NUL byte";
		if (k == 4 || (k == 1 && c < 0xc2) || n - i <= k)
			return "bytes that are not UTF-8";
		for (size_t j = 1; j <= k; j++)
			if ((p[i + j] & 0xc0) != 0x80)
				return "bytes that are not UTF-8";
		i += k + 1;
	}
	return NULL;
}

/* "code/__torch__/a/b.py" -> "__torch__.a.b" */
static const char *
module_of(Arena *a, const char *rel)
{
	size_t n = strlen(rel) - strlen("code/") - strlen(".py");
	char *m = arena_strndup(a, rel + strlen("code/"), n);

	for (char *p = m; *p; p++)
		if (*p == '/')
			*p = '.';
	return m;
}

static int
read_code(TsArchive *t, Arena *a, Diag *d)
{
	int n = 0;

	for (int i = 0; i < t->zip->n; i++)
		n += starts_with(t->zip->ent[i].rel, "code/") && ends_with(t->zip->ent[i].rel, ".py");
	t->code = ARENA_ARRAY(a, TsCode, n + 1);
	for (int i = 0; i < t->zip->n; i++) {
		ZipEntry *e = &t->zip->ent[i];
		TsCode *c;
		const char *why;

		if (!starts_with(e->rel, "code/") || !ends_with(e->rel, ".py") ||
		    strlen(e->rel) <= strlen("code/.py"))
			continue;
		if (zip_data(t->zip, e, d))
			return d->code;
		if ((why = text_problem(e->data, e->size)))
			return ts_fail(t, d, e->name, "the code holds %s", why);
		if (e->size > UINT32_MAX)
			return ts_fail(t, d, e->name, "the code is larger than 4 GB");
		c = &t->code[t->ncode++];
		c->rel = e->rel;
		c->module = module_of(a, e->rel);
		c->text = arena_strndup(a, (const char *)e->data, e->size);
		c->len = e->size;
		read_spans(t, c, a);
	}
	return 0;
}

/* ---- traced inputs ---- */

/* _rebuild_tensor_v2((storage persid), offset, sizes, ...) -> dtype and sizes. */
static int
traced_input(Arena *a, const PyObj *o, TsTraced *out)
{
	const PyObj *args, *id, *sz;
	int64_t *sizes;

	if (o->kind != PY_CALL || !py_is_global(o->func, "torch._utils", "_rebuild_tensor_v2"))
		return -1;
	args = o->args;
	if (args->n < 3 || args->items[0]->kind != PY_PERSID)
		return -1;
	id = args->items[0]->args;
	sz = args->items[2];
	if (id->kind != PY_TUPLE || id->n < 2 || id->items[1]->kind != PY_GLOBAL || sz->kind != PY_TUPLE ||
	    sz->n > 64)
		return -1;
	if ((out->dtype = dtype_from_storage(id->items[1]->name)) == DT_UNKNOWN)
		return -1;
	sizes = ARENA_ARRAY(a, int64_t, sz->n + 1);
	for (size_t i = 0; i < sz->n; i++)
		if (!int_of(sz->items[i], &sizes[i]) || sizes[i] < 0)
			return -1;
	out->rank = (int)sz->n;
	out->sizes = sizes;
	return 0;
}

/* traced_inputs.pkl: {"forward": [tensors]}.  Only its pickle is run: the
 * storages torch writes beside it are empty.  Not being able to read it is
 * no error (torch.jit.load does not read it either). */
static void
read_traced(TsArchive *t, Arena *a)
{
	ZipEntry *e = zip_find(t->zip, "traced_inputs.pkl");
	Diag quiet = {0};
	const PyObj *top, *fwd;
	TsTraced *v;

	if (!e || zip_data(t->zip, e, &quiet) ||
	    !(top = pickle_load_hooked(a, e->name, e->data, e->size, &ts_hooks, &quiet)) ||
	    !(fwd = py_dict_get(top, "forward")) || fwd->kind != PY_LIST || fwd->n > 4096) {
		diag_free(&quiet);
		return;
	}
	v = ARENA_ARRAY(a, TsTraced, fwd->n + 1);
	for (size_t i = 0; i < fwd->n; i++)
		if (traced_input(a, fwd->items[i], &v[i]))
			return;
	t->traced = v;
	t->ntraced = (int)fwd->n;
}

/* ---- the interface ---- */

/* 1 when the bytes of a pickle name a class of TorchScript's (a GLOBAL of
 * module __torch__ or __torch__.*): what a torch.save file never holds. */
static int
names_torch_class(const uint8_t *p, uint64_t n)
{
	static const char key[] = "__torch__";
	const size_t k = sizeof key - 1;

	for (uint64_t i = 0; i + k < n; i++)
		if (p[i] == '_' && memcmp(p + i, key, k) == 0 && (p[i + k] == '.' || p[i + k] == '\n'))
			return 1;
	return 0;
}

int
ts_sniff(Zip *z)
{
	ZipEntry *e = zip_find(z, "data.pkl");
	Diag quiet = {0};
	int r;

	if (!e)
		return 0;
	for (int i = 0; i < z->n; i++)
		if (starts_with(z->ent[i].rel, "code/"))
			return 1;
	/* no code/: torch.save's, or torch.jit.save's cut short (it writes
	 * data.pkl first, then fails on what it cannot export): the latter is
	 * read, to be refused as such */
	r = !zip_data(z, e, &quiet) && names_torch_class(e->data, e->size);
	diag_free(&quiet);
	return r;
}

int
ts_archive_read(TsArchive *t, Zip *z, Arena *a, Diag *d)
{
	memset(t, 0, sizeof *t);
	t->zip = z;
	t->label = z->label;
	t->producer = "torch.jit.save";
	if (read_meta(t, a, d) || read_pickles(t, a, d) || read_code(t, a, d))
		return d->code ? d->code : DIAG_INPUT;
	if (!t->ncode)
		return ts_fail(t, d, NULL, "a TorchScript archive without code (no code/ records): torch.jit.save "
		               "stopped after data.pkl, as it does when the module calls a Python function it "
		               "cannot export (an autograd.Function's apply); save the module again once "
		               "torch.jit.save succeeds");
	if (!ts_code_file(t, t->root->func->s)) {
		char *rel = arena_printf(a, "code/%s.py", t->root->func->s);
		for (char *p = rel + 5; p[3]; p++)
			if (*p == '.')
				*p = '/';
		return ts_fail(t, d, NULL, "data.pkl's module class %s.%s has no code file (%s)",
		               t->root->func->s, t->root->func->name, rel);
	}
	read_traced(t, a);
	return 0;
}

const TsCode *
ts_code_file(const TsArchive *t, const char *module)
{
	for (int i = 0; i < t->ncode; i++)
		if (strcmp(t->code[i].module, module) == 0)
			return &t->code[i];
	return NULL;
}

const TsSpan *
ts_span_at(const TsCode *c, uint32_t ofs)
{
	int lo = 0, hi = c->nspan;

	/* Spans are sorted and disjoint: the last starting at or before ofs. */
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (c->spans[mid].start <= ofs)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || ofs >= c->spans[lo - 1].end)
		return NULL;
	return &c->spans[lo - 1];
}
