/* read/read.h: the readers, from the bytes of an input file to a Program
 * (ir.h), none of them copying weights: they point into the mapped file.
 *
 *   zip         the central-directory zip reader every container goes
 *               through (zip.c);
 *   json        torch's graph JSON, bare NaN and Infinity included (json.c);
 *   pickle      the pickle machine torch.save's data.pkl needs (pickle.c),
 *   torchsave   and torch.save zips: storages bound to their entries
 *               (torchsave.c);
 *   serde       the .pt2 program JSON into the IR (serde.c);
 *   pt2         a torch.export.save file, torch 2.6 to 2.14 (pt2.c);
 *   bundle      a capture bundle's capture.json (bundle.c);
 *   irtext      an ATen graph written as text (irtext*.c, internal.h);
 *   TorchScript a torch.jit.save archive, its forward() run into the IR
 *               (ts/: ts.h, ts/internal.h).
 *
 * ONNX models are read by lib/onnx (onnx_read_file); pipeline_read()
 * tells the five kinds apart by content.  Every reader treats its bytes as untrusted
 * (each is fuzzed) and fails with DIAG_INPUT naming the file, the entry
 * and, where there is one, the line. */
#ifndef READ_H
#define READ_H

#include <stdint.h>
#include <stddef.h>

#include "core/core.h"
#include "ir/ir.h"

/* ==== zip ==== */

/* Read-only access to zip archives through the central directory.
 *
 * torch writes local headers with zero sizes and CRCs, so sizes and offsets
 * come from the central directory (ZIP64 included).  The whole file is
 * memory-mapped; a stored entry's data is a pointer into the mapping and is
 * never copied.  A deflated entry (a re-zipped file) is inflated with zlib
 * into the arena.  Entry names are matched after the archive's root folder
 * (`<name>/`, `archive/`, or none), so callers ask for "models/model.json". */

typedef struct ZipEntry {
	const char *name;     /* full name as stored, NUL-terminated (arena) */
	const char *rel;      /* name after the root folder (points into name) */
	uint64_t size;        /* uncompressed size */
	uint64_t csize;       /* compressed size */
	uint64_t local_ofs;   /* offset of the local header */
	int method;           /* 0 stored, 8 deflated */
	const uint8_t *data;  /* NULL until zip_data() resolved it */
} ZipEntry;

typedef struct Zip {
	const char *label;    /* what error messages call it: a path, or "outer.pt2:entry" */
	const uint8_t *base;  /* the bytes of the archive */
	size_t len;
	int mapped;           /* 1 when base is our mmap (zip_close unmaps) */
	int fd;               /* the file base is a read-only mapping of (kept open for copy_file_range), or -1 */
	const char *root;     /* common root folder with its '/', or "" (arena) */
	int n;                /* number of entries */
	ZipEntry *ent;        /* entries in central-directory order (arena) */
	Arena *arena;
	uint32_t *hash;       /* zip_find index: entry index + 1 per slot, 0 empty (arena) */
	size_t nhash;         /* slots in hash, a power of two; 0 when nothing was read */
} Zip;

/* Maps the file at path and reads its central directory.
 * Returns 0, or DIAG_INPUT with a message naming the file. */
int zip_open(Zip *z, const char *path, Arena *a, Diag *d);
/* Same over bytes already in memory (a nested torch.save zip); label names it. */
int zip_open_mem(Zip *z, const char *label, const uint8_t *buf, size_t len, Arena *a, Diag *d);
void zip_close(Zip *z);
/* Returns the entry whose name after the root is rel, or NULL. */
ZipEntry *zip_find(const Zip *z, const char *rel);
/* Resolves e->data (pointer into the map, or inflated into the arena) and
 * returns 0, or DIAG_INPUT naming the archive and the entry (data past the
 * end of the file, bad local header, unknown method, inflate error). */
int zip_data(Zip *z, ZipEntry *e, Diag *d);
/* Tells the kernel an entry zip_data() resolved is read and done with: when
 * its bytes are pages of the file mapping (a stored entry, z->fd >= 0) they
 * leave the process's memory (the pages count in its RSS) and come back
 * from the page cache if read again.  Inflated bytes stay in the arena. */
void zip_drop(const Zip *z, const ZipEntry *e);
/* The same for the bytes [from, to) of z, which need not be a whole entry. */
void zip_drop_bytes(const Zip *z, const void *from, const void *to);

/* ==== json ==== */

/* A JSON reader that builds a tree in the arena.
 *
 * Accepts what torch writes: standard JSON plus the bare tokens NaN,
 * Infinity and -Infinity (torch 2.6).  Numbers keep both an exact int64
 * (when the text is an integer that fits) and a double.  Missing and null
 * are the same to the accessors: json_get() returns NULL for both. */

typedef enum JsonType {
	JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT
} JsonType;

typedef struct Json Json;
struct Json {
	uint8_t type;        /* a JsonType */
	uint8_t is_int;      /* JSON_NUMBER: the text was an integer that fits in int64 (in i) */
	uint32_t len;        /* JSON_STRING: byte length; ARRAY/OBJECT: element count */
	uint32_t line, col;  /* 1-based position of the value in the text */
	union {              /* 24 bytes a node: graph files hold millions */
		int64_t i;       /* JSON_NUMBER when is_int */
		double f;        /* JSON_NUMBER otherwise (json_float() reads both) */
		const char *s;   /* JSON_STRING: decoded UTF-8, NUL-terminated (arena) */
		Json **kids;     /* ARRAY/OBJECT: elements, in document order; an
		                  * OBJECT's len keys follow them (json_keys) */
	};
};

/* An object's keys: keys[i] names kids[i] (arena), in document order.
 * NULL for an empty object or anything else. */
static inline const char **
json_keys(const Json *obj)
{
	return obj && obj->type == JSON_OBJECT && obj->len ? (const char **)(obj->kids + obj->len) : NULL;
}

/* Parses text[0..len).  Returns the root, or NULL with a DIAG_INPUT message
 * "label:line:col: what" on error.  Nesting deeper than 10,000 is an error. */
Json *json_parse(Arena *a, const char *label, const char *text, size_t len, Diag *d);
/* The same, calling done(ctx, upto) about every MiB of text with the end of
 * what is parsed: the tree holds copies of every string, so the text before
 * upto may leave memory (pt2.c drops it with zip_drop_bytes). */
typedef void JsonTextDone(void *ctx, const char *upto);
Json *json_parse_text(Arena *a, const char *label, const char *text, size_t len, JsonTextDone *done,
                      void *ctx, Diag *d);

/* Returns obj[key], or NULL if obj is not an object, key is missing, or the value is null. */
Json *json_get(const Json *obj, const char *key);
/* The member name of a union: the sole key of a one-key object (torch's
 * encoding), the "$type" string of {"$type", "$value"} (schema 4.x), or the
 * only non-null key of an object whose other members are all null (2.1/2.2);
 * else NULL. */
const char *json_union_key(const Json *obj);
/* The union's value in any of those forms (obj[key], or obj["$value"]), or
 * NULL when it is null or obj is not a union. */
Json *json_union_value(const Json *obj);
/* Numeric accessors: return 1 and set *out when j holds that kind of value.
 * json_float also accepts the strings "NaN", "Infinity", "-Infinity". */
int json_int(const Json *j, int64_t *out);
int json_float(const Json *j, double *out);
/* Returns j->s for a string, else NULL. */
const char *json_str(const Json *j);

/* ==== pickle ==== */

/* The subset of Python's pickle that torch.save writes.
 *
 * pickle_load() runs the pickle machine and returns a tree of PyObj.  It
 * knows nothing about torch: GLOBAL yields a PY_GLOBAL ("module", "name"),
 * REDUCE yields a PY_CALL (callable, args tuple) unless the callable is
 * collections.OrderedDict (a PY_DICT), BINPERSID yields a PY_PERSID holding
 * the persistent id, BUILD attaches state to a PY_CALL.  torchsave.c gives
 * these calls their torch meaning.  Opcodes: protocol 0-5 binary subset
 * listed in shared/docs/pt2-format.md section 2.1. */

typedef enum PyKind {
	PY_NONE, PY_BOOL, PY_INT, PY_FLOAT, PY_STR, PY_BYTES,
	PY_TUPLE, PY_LIST, PY_DICT, PY_GLOBAL, PY_CALL, PY_PERSID, PY_MARK,
	PY_TENSOR   /* never made by pickle_load: torchsave.c replaces rebuild calls with it */
} PyKind;

typedef struct PyObj PyObj;
struct PyObj {
	PyKind kind;
	int64_t i;          /* PY_BOOL, PY_INT (LONG1 values that do not fit are an error) */
	double f;           /* PY_FLOAT */
	const char *s;      /* PY_STR, PY_BYTES: bytes (NUL-terminated copy); PY_GLOBAL: module */
	const char *name;   /* PY_GLOBAL: attribute name */
	size_t n;           /* PY_STR/PY_BYTES: length; TUPLE/LIST/DICT: item count */
	PyObj **items;      /* TUPLE/LIST: items; DICT: keys (n of them) */
	PyObj **values;     /* DICT: values[i] belongs to items[i] */
	size_t cap;         /* LIST/DICT: allocated slots */
	PyObj *func;        /* PY_CALL: the callable (usually a PY_GLOBAL) */
	PyObj *args;        /* PY_CALL: the argument tuple; PY_PERSID: the id object */
	PyObj *state;       /* PY_CALL: what BUILD set, or NULL */
	struct TensorData *tensor; /* PY_TENSOR */
};

/* Runs the pickle in buf[0..len).  Returns the object STOP leaves, or NULL
 * with a DIAG_INPUT message "label: offset N: what" (bad opcode, stack
 * underflow, truncated data, memo index out of range, ...). */
PyObj *pickle_load(Arena *a, const char *label, const uint8_t *buf, size_t len, Diag *d);

/* What a reader that knows its pickles' writer adds to the machine
 * (tsarchive.c: the TorchScript archive). */
typedef struct PickleHooks {
	/* 1 to accept GLOBAL module.name; 0 refuses it: "label: offset N:
	 * GLOBAL: global 'os.system' is not one <who> writes". */
	int (*allow_global)(const char *module, const char *name);
	const char *who;
	/* REDUCE func(*args) for a PY_GLOBAL func: 0 with *out the object to
	 * push instead of the call (NULL: keep the call), or -1 with *why. */
	int (*reduce)(PyObj *func, PyObj *args, PyObj **out, const char **why);
} PickleHooks;
/* pickle_load with hooks (NULL: none). */
PyObj *pickle_load_hooked(Arena *a, const char *label, const uint8_t *buf, size_t len,
                          const PickleHooks *hooks, Diag *d);

/* 1 if o is the global module.name */
int py_is_global(const PyObj *o, const char *module, const char *name);
/* Returns d[key] for a dict with string keys, or NULL. */
PyObj *py_dict_get(const PyObj *d, const char *key);

/* ==== torchsave ==== */

/* Read a torch.save zip (data.pkl plus data/<key> records).
 *
 * Runs the pickle, then gives torch's rebuild calls their meaning:
 * _rebuild_tensor_v2/_v3 and _rebuild_parameter(_with_state) become
 * PY_TENSOR objects whose storage points at the data/<key> record in the
 * mapped file.  Used for the state dict and constants of torch <= 2.8
 * files and for the sample inputs of every version. */

/* Returns the unpickled top-level object, or NULL with a DIAG_INPUT
 * message naming label (the outer file and entry) and what is wrong. */
PyObj *torchsave_load(Arena *a, const char *label, const uint8_t *buf, size_t len, Diag *d);
/* The same for the pickle at entry e of an open zip (TorchScript's
 * data.pkl, constants.pkl), its storages being the entries dir/<key>
 * ("data", "constants"), run with hooks (NULL: none).  Messages name
 * "zip label:entry". */
PyObj *torchsave_read(Arena *a, Zip *z, ZipEntry *e, const char *dir, const PickleHooks *hooks,
                      Diag *d);

/* ==== serde ==== */

/* Torch's serialized ExportedProgram (JSON) into the IR.
 *
 * Follows torch/_export/serde/schema.py, schema major version 8 (torch 2.6
 * to 2.14): single-key unions, missing and null alike, enums as integers.
 * Errors read "LABEL:LINE:COL: what", LABEL being "file.pt2:entry". */

/* Fills p->graph, signature, ranges, versions from the program JSON.
 * Returns 0 or DIAG_INPUT. */
int serde_program(Program *p, const Json *root, const char *label, Diag *d);

/* A TensorMeta (also used by weight configs): dtype, sizes, strides and
 * storage offset, each SymInt as a Dim.  Returns 0 or DIAG_INPUT. */
typedef struct TensorMeta {
	DType dtype;
	int rank;
	Dim *sizes, *strides;
	Dim offset;
	int requires_grad;
} TensorMeta;
/* Reads a TensorMeta; errors say label:line:col, then what and name (e.g.
 * "tensor value 'x'"; "what" alone when name is NULL; nothing when both
 * are), then what is wrong. */
int serde_tensor_meta(Arena *a, const char *label, const char *what, const char *name, const Json *j,
                      TensorMeta *m, Diag *d);

/* ==== pt2 ==== */

/* Open a file written by torch.export.save as a Program.
 *
 * Detects the container (the flat zip of torch 2.6/2.7, the PT2 archive of
 * 2.8 with pickled weights, the PT2 archive of 2.9+ with raw weight files
 * and JSON configs), reads the program JSON into the IR, and binds every
 * parameter, buffer and constant to its bytes in the mapped file. */

/* Reads path into p (p->arena must be set).  Returns 0, or DIAG_INPUT with
 * messages naming the file, the entry and what is wrong.  pt2_close()
 * releases the mapping whatever the result. */
int pt2_load(Program *p, const char *path, Diag *d);
/* The same over a .pt2 already in memory (a stored entry of a capture
 * bundle); label names it ("m.yxc:captures/nostrict.pt2") and fd is the
 * file buf is a read-only mapping of (Zip.fd; -1 if none, e.g. for bytes
 * in the heap).  Nothing is unmapped. */
int pt2_load_mem(Program *p, const char *label, const uint8_t *buf, size_t len, int fd, Diag *d);
void pt2_close(Program *p);

/* ==== bundle ==== */

/* Capture bundles: the zip cmd/yobx_capture.py writes (docs/capture.md).
 * capture.json lists every capture attempt (a strategy, ok or the error
 * torch raised) and the example inputs and eager outputs; each successful
 * capture is a stored entry (.pt2, .pt or .onnx), read in place. */

typedef struct BundleTensor {
	const char *file;       /* the entry */
	DType dtype;
	int rank;
	int64_t *shape;
	const uint8_t *data;    /* its bytes in the mapped bundle */
} BundleTensor;

typedef struct BundleAttempt {
	const char *strategy;   /* "nostrict", "strict", ... */
	int ok;                 /* 1: captured, file holds it */
	const char *file;       /* "captures/nostrict.pt2" */
	const uint8_t *data;    /* the capture's bytes in the mapped bundle */
	size_t size;
	const char *error_type, *error_message;   /* !ok: what torch raised */
	double seconds;         /* the capture's time */
} BundleAttempt;

/* One submodule call's outputs, as the capture helper's forward hooks
 * recorded them (capture.json "modules", in the order the calls ended). */
typedef struct BundleModule {
	const char *name;       /* its path in the model: "layer1.0" */
	const char *cls;        /* its class: "torchvision.models.resnet.BasicBlock" */
	int noutput;
	BundleTensor *outputs;
} BundleModule;

typedef struct Bundle {
	Zip zip;                /* the bundle, mapped (opened by the caller) */
	int version;
	const char *torch_version, *transformers_version, *model_class;   /* NULL when absent */
	int nattempt;
	BundleAttempt *attempts;    /* in the order captured */
	int ninput, noutput;
	BundleTensor *inputs, *outputs;
	int nmodule;            /* 0 when the bundle recorded none */
	BundleModule *modules;  /* in execution order (a call ends before its caller's) */
	int64_t modules_skipped;/* calls the helper left out past its size cap */
} Bundle;

/* 1 when the open zip z is a capture bundle (it holds capture.json). */
int bundle_sniff(const Zip *z);
/* Reads capture.json of b->zip (already open) and checks every file it
 * names.  Returns 0, or DIAG_INPUT with "m.yxc:capture.json:LINE:COL: what". */
int bundle_read(Bundle *b, Arena *a, Diag *d);
/* The attempt of strategy, or NULL when the bundle has none. */
const BundleAttempt *bundle_attempt(const Bundle *b, const char *strategy);

/* ==== irtext ==== */

/* Reading a Program from its text form (docs/text-graph.md).
 *
 * The text form is what `yobx-export --print` writes, read back, plus a
 * few additions a hand-written graph needs: weight values (inline or a
 * deterministic fill), optional sections (no `inputs`/`outputs` means every
 * graph input is a user input and every graph output a user output), `#`
 * comment lines, and a line starting with `===` that ends the graph (the
 * lowering goldens of test/lower/ keep their expected ONNX after it).
 * It builds the same Program the .pt2 reader builds, weights in the arena. */

/* Returns 1 when the file at path starts like a text graph (after blank
 * lines: '#', "program ", "symbols", "inputs", "outputs", "samples" or
 * "graph "), 0 otherwise (a zip, a missing file: left to pt2_load). */
int irtext_sniff(const char *path);
/* Reads the text graph at path into p (p->arena must be set).  Returns 0
 * or DIAG_INPUT with one message "path:line:col: what is wrong". */
int irtext_load(Program *p, const char *path, Diag *d);
/* The same from text[0..len) (NUL-terminated); label names it in messages. */
int irtext_parse(Program *p, const char *label, const char *text, size_t len, Diag *d);

/* ==== TorchScript archives (ts*.c, ts.h) ==== */

/* A file written by torch.jit.save stores no input shapes: the options'
 * `inputs:` give forward's tensor arguments (docs/options.md). */
typedef struct TsInput {
	const char *name;       /* forward's parameter, when `inputs:` is a mapping; else NULL */
	DType dtype;
	int rank;
	const int64_t *dims;    /* rank sizes; -1 where names[i] is set */
	const char *const *names; /* rank entries: the dim's dynamic name (its dim_param), or NULL */
	uint32_t line, col;     /* where the options file writes it */
} TsInput;

typedef struct TsInputs {
	const char *label;      /* the options file, for messages */
	int n;                  /* -1: no `inputs:` given */
	const TsInput *in;      /* in forward's order, or by name */
	const IrTyper *typer;   /* types the ops meta.def has no rule for (the pipeline's
	                         * lib/lower typer); NULL: those ops are refused */
} TsInputs;

/* 1 when the open zip z is a TorchScript archive (data.pkl and code/, or a
 * data.pkl naming TorchScript classes: torch.jit.save cut short). */
int ts_sniff(Zip *z);
/* Reads the archive z (already open; its label names it) into p: the
 * module tree and code, forward run over in.  Returns 0, DIAG_INPUT
 * (a bad archive, code outside what the reader knows, no or wrong
 * `inputs:`: every problem listed, with the code file's line and the
 * user's source line) or DIAG_CONVERT (ops with no schema or no row). */
int ts_load(Program *p, Zip *z, const TsInputs *in, Diag *d);

#endif
