/* load.c: reading an ONNX model given as input (a plain .onnx, or the
 * onnxscript capture of a bundle), for the optimizer and the writer.
 *
 * protobuf-c unpacks the ModelProto into the arena.  A tensor stored as
 * external data (TensorProto.data_location EXTERNAL: location, offset,
 * length) gets its bytes from its file, mapped read-only once per file and
 * pointed at, never copied; the first such file is the OnnxSource the
 * writer copies from, file to file.  Locations are relative to the model's
 * folder and may not leave it (no absolute path, no "..", and no symbolic
 * link leading out of it), as onnx.checker requires. */
#include "onnx/onnx.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core.h"

#define MAX_DATA_FILES 64
#define MAX_GRAPH_DEPTH 64

typedef struct Loader {
	OnnxInput *in;
	Arena *a;
	Diag *d;
	const char *label, *dir;
} Loader;

static void *
pb_alloc(void *ctx, size_t n)
{
	return arena_alloc(ctx, n ? n : 1);
}

static void
pb_free(void *ctx, void *p)
{
	(void)ctx;
	(void)p;   /* the arena owns it */
}

static int
fail(Loader *l, const char *fmt, const char *what)
{
	return diag_report(l->d, YE_ONNX_INPUT, &(DiagAt){.file = l->label}, fmt, what);
}

/* 0 when path (dir/location), resolved through every symlink, lies inside
 * the model's folder resolved the same way; else a diagnostic and -1.  The
 * location's text has no ".." and no leading "/", but a symlink beside the
 * model may still point anywhere (/etc/passwd as weights). */
static int
inside(Loader *l, const char *path, const char *location)
{
	char *dir = realpath(l->dir, NULL), *real = realpath(path, NULL);
	size_t n = dir ? strlen(dir) : 0;
	int ok = dir && real && strncmp(real, dir, n) == 0 && (real[n] == '/' || (n == 1 && dir[0] == '/'));

	if (!ok)
		fail(l, "external data location '%s' leads out of the model's folder through a symbolic link",
		     location);
	free(dir);
	free(real);
	return ok ? 0 : -1;
}

/* The mapped file at dir/location (index into in->files), mapping it on
 * first use; -1 with a diagnostic when it cannot be. */
static int
data_file(Loader *l, const char *location)
{
	OnnxInput *in = l->in;
	struct stat st;
	uint64_t size;
	char *path, why[160];
	void *map = NULL;
	int fd;

	for (int i = 0; i < in->nfile; i++)
		if (strcmp(in->files[i].location, location) == 0)
			return i;
	if (!l->dir) {
		fail(l, "tensor data in another file ('%s'): a model read from memory holds all its data", location);
		return -1;
	}
	if (!*location || location[0] == '/' || strstr(location, "..")) {
		fail(l, "external data location '%s' is not a plain path inside the model's folder", location);
		return -1;
	}
	if (in->nfile == MAX_DATA_FILES) {
		fail(l, "external data in more than 64 files (at '%s')", location);
		return -1;
	}
	path = arena_printf(l->a, "%s/%s", l->dir, location);
	if ((fd = file_open(path, 0, &size, why, sizeof why)) < 0) {
		diag_report(l->d, YE_ONNX_INPUT, &(DiagAt){.file = l->label}, "external data file '%s': %s", path, why);
		return -1;
	}
	if (inside(l, path, location)) {
		close(fd);
		return -1;
	}
	st.st_size = (off_t)size;
	if (st.st_size > 0 && (map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		diag_report(l->d, YE_ONNX_INPUT, &(DiagAt){.file = l->label},
		            "external data file '%s': cannot map (%s)", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (map)
		mapguard_add(map, (size_t)st.st_size, fd, path);
	in->files[in->nfile] = (OnnxDataFile){arena_strdup(l->a, location), fd, map, (size_t)st.st_size};
	return in->nfile++;
}

/* Points an external tensor's raw_data at its bytes. */
static int
resolve(Loader *l, OnnxTensor *t)
{
	const char *location = NULL;
	uint64_t offset = 0, length = UINT64_MAX;
	int f;

	if (!t->has_data_location || t->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
		return 0;
	for (size_t i = 0; i < t->n_external_data; i++) {
		const Onnx__StringStringEntryProto *e = t->external_data[i];
		char *end;
		if (!e->key || !e->value)
			continue;
		if (strcmp(e->key, "location") == 0)
			location = e->value;
		else if (strcmp(e->key, "offset") == 0 || strcmp(e->key, "length") == 0) {
			unsigned long long v;
			errno = 0;
			v = strtoull(e->value, &end, 10);
			if (errno || *end || !*e->value)
				return fail(l, "external data of tensor '%s': offset or length is not a number",
				            t->name ? t->name : "");
			*(strcmp(e->key, "offset") == 0 ? &offset : &length) = v;
		}
	}
	if (!location)
		return fail(l, "external data of tensor '%s' has no location", t->name ? t->name : "");
	if ((f = data_file(l, location)) < 0)
		return DIAG_INPUT;
	if (length == UINT64_MAX)
		length = offset <= l->in->files[f].len ? l->in->files[f].len - offset : 0;
	if (offset > l->in->files[f].len || length > l->in->files[f].len - offset)
		return diag_report(l->d, YE_ONNX_INPUT, &(DiagAt){.file = l->label},
		                   "external data of tensor '%s': bytes %llu..%llu lie past the end of '%s' "
		                   "(%llu bytes)", t->name ? t->name : "", (unsigned long long)offset,
		                   (unsigned long long)(offset + length), location,
		                   (unsigned long long)l->in->files[f].len);
	t->raw_data.data = (uint8_t *)l->in->files[f].base + offset;
	t->raw_data.len = (size_t)length;
	t->has_raw_data = 1;
	t->has_data_location = 0;
	t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__DEFAULT;
	t->n_external_data = 0;
	t->external_data = NULL;
	return 0;
}

/* ==== nesting pre-scan ====
 *
 * protobuf-c unpacks nested messages by recursion, so a model whose If
 * bodies nest thousands deep overflows the stack inside
 * onnx__model_proto__unpack(), before any limit of ours could run.  The
 * scan below walks the wire format first, without unpacking: for each
 * message kind it knows which fields hold which submessages (the messages
 * of proto/onnx.proto that can recurse: graphs through attributes, types
 * through sequence and optional), and it counts graph and type depth.  Its
 * own recursion is bounded by those limits.  Bytes that are not a valid
 * wire format stop the scan quietly: unpack() then refuses them. */

typedef enum PbKind { PK_NONE, PK_MODEL, PK_GRAPH, PK_NODE, PK_ATTR, PK_VALUE, PK_FUNC, PK_TYPE, PK_TYPE_ELEM } PbKind;

/* The submessage kind of field in a message of kind k, PK_NONE if the
 * field is not one that can lead to a graph or a type. */
static PbKind
pb_child(PbKind k, uint64_t field)
{
	switch (k) {
	case PK_MODEL: return field == 7 ? PK_GRAPH : field == 25 ? PK_FUNC : PK_NONE;
	case PK_GRAPH: return field == 1 ? PK_NODE : field >= 11 && field <= 13 ? PK_VALUE : PK_NONE;
	case PK_NODE: return field == 5 ? PK_ATTR : PK_NONE;
	case PK_ATTR: return field == 6 || field == 11 ? PK_GRAPH : field == 14 || field == 15 ? PK_TYPE : PK_NONE;
	case PK_VALUE: return field == 2 ? PK_TYPE : PK_NONE;
	case PK_FUNC: return field == 7 ? PK_NODE : field == 11 ? PK_ATTR : field == 12 ? PK_VALUE : PK_NONE;
	case PK_TYPE: return field == 4 || field == 9 ? PK_TYPE_ELEM : PK_NONE;
	case PK_TYPE_ELEM: return field == 1 ? PK_TYPE : PK_NONE;
	default: return PK_NONE;
	}
}

static int
pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 64 && *p < end; shift += 7) {
		uint8_t b = *(*p)++;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

/* Returns 0, 1 when graphs nest deeper than MAX_GRAPH_DEPTH, 2 when types
 * do.  graphs and types: the depth of the enclosing message. */
static int
pb_scan(const uint8_t *p, const uint8_t *end, PbKind k, int graphs, int types)
{
	if (k == PK_GRAPH && ++graphs > MAX_GRAPH_DEPTH)
		return 1;
	if (k == PK_TYPE && ++types > MAX_GRAPH_DEPTH)
		return 2;
	while (p < end) {
		uint64_t key, n;
		if (pb_varint(&p, end, &key))
			return 0;
		switch (key & 7) {
		case 0: if (pb_varint(&p, end, &n)) return 0; break;
		case 1: if (end - p < 8) return 0; p += 8; break;
		case 5: if (end - p < 4) return 0; p += 4; break;
		case 2: {
			PbKind c;
			int rc;
			if (pb_varint(&p, end, &n) || n > (uint64_t)(end - p))
				return 0;
			if ((c = pb_child(k, key >> 3)) != PK_NONE && (rc = pb_scan(p, p + n, c, graphs, types)))
				return rc;
			p += n;
			break;
		}
		default: return 0;
		}
	}
	return 0;
}

static int resolve_graph(Loader *l, Onnx__GraphProto *g, int depth);

static int
resolve_nodes(Loader *l, size_t n, Onnx__NodeProto **nodes, int depth)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < nodes[i]->n_attribute; k++) {
			Onnx__AttributeProto *at = nodes[i]->attribute[k];
			if ((at->t && resolve(l, at->t)) || (at->g && resolve_graph(l, at->g, depth + 1)))
				return DIAG_INPUT;
			for (size_t j = 0; j < at->n_tensors; j++)
				if (resolve(l, at->tensors[j]))
					return DIAG_INPUT;
			for (size_t j = 0; j < at->n_graphs; j++)
				if (resolve_graph(l, at->graphs[j], depth + 1))
					return DIAG_INPUT;
		}
	return 0;
}

static int
resolve_graph(Loader *l, Onnx__GraphProto *g, int depth)
{
	if (depth > MAX_GRAPH_DEPTH)
		return fail(l, "subgraphs nest deeper than %s", "64");
	for (size_t i = 0; i < g->n_initializer; i++)
		if (resolve(l, g->initializer[i]))
			return DIAG_INPUT;
	return resolve_nodes(l, g->n_node, g->node, depth);
}

int
onnx_read(OnnxInput *in, Arena *a, const char *label, const uint8_t *buf, size_t len,
          const char *dir, Diag *d)
{
	Loader l = {.in = in, .a = a, .d = d, .label = label, .dir = dir};
	ProtobufCAllocator alloc = {pb_alloc, pb_free, a};
	Onnx__ModelProto *m;

	memset(in, 0, sizeof *in);
	in->files = ARENA_ARRAY(a, OnnxDataFile, MAX_DATA_FILES);
	switch (len ? pb_scan(buf, buf + len, PK_MODEL, -1, 0) : 0) {
	case 1: return fail(&l, "subgraphs nest deeper than %s", "64");
	case 2: return fail(&l, "types (sequence, optional) nest deeper than %s", "64");
	}
	m = onnx__model_proto__unpack(&alloc, len, buf);
	if (!m)
		return diag_report(d, YE_ONNX_INPUT, &(DiagAt){.file = label},
		                   "not an ONNX model: the bytes do not parse as a ModelProto");
	if (!m->graph)
		return fail(&l, "the ModelProto has no graph%s", "");
	in->model = m;
	if (resolve_graph(&l, m->graph, 0))
		return DIAG_INPUT;
	for (size_t i = 0; i < m->n_functions; i++)
		if (resolve_nodes(&l, m->functions[i]->n_node, m->functions[i]->node, 0))
			return DIAG_INPUT;
	if (in->nfile)
		in->source = (OnnxSource){in->files[0].fd, in->files[0].base, in->files[0].len};
	else
		in->source = (OnnxSource){-1, NULL, 0};
	return 0;
}

int
onnx_read_file(OnnxInput *in, Arena *a, const char *path, Diag *d)
{
	const char *slash = strrchr(path, '/');
	const char *dir = slash ? arena_printf(a, "%.*s", (int)(slash - path), path) : ".";
	struct stat st;
	uint64_t size;
	char why[160];
	void *map = NULL;
	int fd, rc;

	if ((fd = file_open(path, 0, &size, why, sizeof why)) < 0)
		return diag_report(d, YE_INPUT_UNREADABLE, &(DiagAt){.file = path}, "cannot open (%s)", why);
	st.st_size = (off_t)size;
	if (st.st_size > 0 && (map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		rc = diag_report(d, YE_INPUT_UNREADABLE, &(DiagAt){.file = path}, "cannot map (%s)", strerror(errno));
		close(fd);
		return rc;
	}
	if (map)
		mapguard_add(map, (size_t)st.st_size, fd, path);
	close(fd);
	rc = onnx_read(in, a, path, map, (size_t)st.st_size, dir, d);
	in->map = map;
	in->map_len = (size_t)st.st_size;
	return rc;
}

void
onnx_input_close(OnnxInput *in)
{
	for (int i = 0; i < in->nfile; i++) {
		if (in->files[i].base)
			mapguard_remove(in->files[i].base);
		if (in->files[i].base)
			munmap((void *)in->files[i].base, in->files[i].len);
		close(in->files[i].fd);
	}
	if (in->map) {
		mapguard_remove(in->map);
		munmap((void *)in->map, in->map_len);
	}
	in->nfile = 0;
	in->map = NULL;
}
