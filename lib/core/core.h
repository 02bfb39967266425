/* core/core.h: what every layer uses: die(), the arena that owns a
 * conversion's memory, diagnostics (errors as values), string maps, element
 * types and tensors that point into the mapped input file.  The bottom
 * layer: it includes nothing of lib/. */
#ifndef CORE_H
#define CORE_H

#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

/* ==== limits ==== */

/* The largest rank a tensor may have anywhere here (torch allows 64 dims):
 * the IR's shape rules, the options' `inputs`, ONNX type inference, the
 * evaluator and the optimizer all stop at it, and size their buffers by it. */
enum { MAX_RANK = 64 };

/* ==== sizes ==== */

/* Sizes computed from input, checked (size.c): each returns 0 and sets
 * *out, or -1 (leaving *out alone) when the exact result does not fit.
 * size_numel: the product of n dims, -1 when one is negative or the
 * product passes INT64_MAX; size_bytes: numel elements of elem_size bytes,
 * -1 when numel is negative or the bytes pass INT64_MAX (so they fit an
 * off_t and a size_t). */
int size_mul(uint64_t a, uint64_t b, uint64_t *out);
int size_add(uint64_t a, uint64_t b, uint64_t *out);
int size_numel(const int64_t *dims, size_t n, int64_t *out);
int size_bytes(int64_t numel, int elem_size, uint64_t *out);

/* ==== die ==== */

/* Broken invariants of our own code, never bad input (a malformed graph is
 * a diagnostic): print "internal error at file:line: ..." and abort. */
#define die(...) die_at(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void die_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ==== arena ==== */

/* The bump allocator that owns a conversion's memory.
 *
 * Everything the reader and the converter build (JSON trees, IR nodes,
 * names, ONNX messages) lives in one Arena and dies with arena_free().
 * Allocation never fails from the caller's view: out of memory calls die(). */

typedef struct ArenaBlock ArenaBlock;
typedef struct Arena {
	ArenaBlock *head;   /* newest block; older ones chained behind it */
	size_t used;        /* bytes taken from head */
	size_t total;       /* bytes obtained from malloc or mmap, all blocks */
} Arena;

void arena_init(Arena *a);
void arena_free(Arena *a);
/* Returns n zeroed bytes aligned to 16. */
void *arena_alloc(Arena *a, size_t n);
/* The same, or NULL when the memory cannot be had: for sizes an input
 * gives (an entry to inflate, a storage of zeros), which must fail as a
 * diagnostic, never reach die(). */
void *arena_try_alloc(Arena *a, size_t n);
/* Returns a copy of the n bytes at p; n may be 0. */
void *arena_dup(Arena *a, const void *p, size_t n);
/* Returns a NUL-terminated copy of s[0..n). */
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
char *arena_vprintf(Arena *a, const char *fmt, va_list ap);

#define ARENA_NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

/* ==== file ==== */

/* Every file the tool reads by name is opened by file_open() (file.c):
 * without blocking (a FIFO or a device named as a model, external data, a
 * golden signature, options never hang the run), held to be a regular file
 * (else refused by what it is: "a FIFO, not a regular file"), and to at
 * most max bytes (0: no cap).  Returns the descriptor (close-on-exec, in
 * blocking mode again) with *size its size, or -1 with the reason written
 * to why (whylen bytes), for the caller's diagnostic. */
int file_open(const char *path, uint64_t max, uint64_t *size, char *why, size_t whylen);
/* file_open(), then the whole file read into the arena, NUL-terminated
 * (*len bytes without the NUL); NULL with the reason in why. */
char *file_slurp(Arena *a, const char *path, uint64_t max, size_t *len, char *why, size_t whylen);

/* ==== diag ==== */

/* Errors as values.
 *
 * lib/ never prints or exits.  A failing function appends a DiagItem to a
 * Diag and returns its exit status; cmd/ renders the items (the text lines
 * of diag_format(), JSON, SARIF) and turns the worst status into the exit
 * status.  An item names the thing: its kind (a row of diag.def), the file,
 * the zip entry, the node and its ATen target, and the user's source frame. */

enum {
	DIAG_OK = 0,
	DIAG_CONVERT = 1,   /* the input is fine but we cannot convert it: exit 1 */
	DIAG_INPUT = 2,     /* bad input, bad options, I/O error: exit 2 */
};

typedef enum DiagSeverity { DIAG_SEV_ERROR, DIAG_SEV_WARNING, DIAG_SEV_NOTE } DiagSeverity;

typedef enum DiagCode {
	YE_NONE = 0,
#define X(e, num, name, sev, exit, help, what) e,
#include "diag.def"
#undef X
	YE_COUNT
} DiagCode;

/* A row of diag.def. */
typedef struct DiagInfo {
	int num;              /* 201 */
	const char *id;       /* "YE0201" */
	const char *name;     /* "unsupported-op" */
	DiagSeverity severity;
	int exit;             /* DIAG_CONVERT, DIAG_INPUT, or DIAG_OK for warnings and notes */
	const char *help;     /* one line */
	const char *what;     /* what to do about it */
} DiagInfo;

/* Where an item points; every field may be left zero.  Strings are copied. */
typedef struct DiagAt {
	const char *file;      /* as the text names it: a path, or a reader's label ("m.pt2:a/b.json") */
	const char *entry;     /* the zip entry inside the file, when the text does not say it through file */
	unsigned line, column; /* 1-based position in the entry (or the file); column alone for an expression */
	int has_offset;        /* 1 when offset is set (0 is a valid offset) */
	unsigned long long offset;  /* byte offset in the entry (pickles) */
	const char *graph;     /* the graph holding node: "main_graph", a subgraph name */
	const char *node;      /* IR node name */
	const char *target;    /* its ATen target, "aten.addmm.default" */
	const char *frame;     /* the user's frame as the IR keeps it: "path:N in fn: code" */
} DiagAt;

/* The user's frame, parsed from DiagAt.frame. */
typedef struct DiagFrame {
	char *file;            /* NULL when there is no frame */
	unsigned line, column; /* 1-based; 0 when not known */
	char *function;        /* "forward", or NULL */
} DiagFrame;

typedef struct DiagItem {
	DiagCode code;
	DiagAt at;             /* the strings are the item's own copies */
	char *file, *entry;    /* the file the user gave and the entry in it (file labels resolved) */
	DiagFrame frame;
	char *message;         /* the reason, without the location */
} DiagItem;

typedef struct Diag {
	int code;              /* worst exit status reported so far; DIAG_OK when none */
	DiagItem *items;       /* in the order reported (malloc'd; only errors allocate) */
	int n, cap;
	char input[4096];      /* the dump being read (diag_input()); "" when none */
} Diag;

/* Appends an item of kind code at at (NULL: nowhere) with the message fmt;
 * returns the row's exit status (DIAG_OK for warnings and notes). */
int diag_report(Diag *d, DiagCode code, const DiagAt *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Names the dump being read.  The readers below pt2.c name an entry of it
 * by a label, "m.pt2:models/model.json" (with more after a colon for a
 * symbolic expression); an item whose DiagAt.file is such a label then
 * carries the file and the entry apart.  A path too long for Diag.input
 * is not recorded (the label then stays the file). */
void diag_input(Diag *d, const char *path);
/* Gives item i (an index into d->items) the user's frame ("path:N in fn:
 * code"), for a finding a lower reader made without knowing it. */
void diag_set_frame(Diag *d, int i, const char *frame);
/* Writes the item's one line of text, as `yobx-export: ` follows it on
 * stderr, without a newline: "LOCATION: message".  Returns the length it
 * needs, as snprintf does. */
size_t diag_format(const DiagItem *it, char *buf, size_t size);
/* Returns the row of code (NULL for YE_NONE or out of range), and the code
 * whose id ("YE0201") or name ("unsupported-op") is s (YE_NONE if none). */
const DiagInfo *diag_info(DiagCode code);
DiagCode diag_lookup(const char *s);
const char *diag_severity_name(DiagSeverity s);   /* "error", "warning", "note" */
/* Writes docs/diagnostics.md. */
void diag_write_doc(FILE *f);
void diag_free(Diag *d);
/* Appends from's items to to (which takes them over) and empties from:
 * a second thread reports into a Diag of its own, moved at the join. */
void diag_move(Diag *to, Diag *from);

/* ==== strmap ==== */

/* A string-keyed hash map in the arena.
 * Keys are not copied (they must outlive the map); lookups are O(1).
 * Iteration order is not offered: callers keep their own ordered arrays,
 * so output never depends on hash order. */

typedef struct StrMap StrMap;

StrMap *strmap_new(Arena *a, size_t hint);
/* Sets key to val; returns the previous value or NULL. */
void *strmap_put(StrMap *m, const char *key, void *val);
void *strmap_get(const StrMap *m, const char *key);
size_t strmap_count(const StrMap *m);

/* ==== durable ==== */

/* Output files that appear whole or not at all, and are on disk when the
 * run ends.  Each file is written to a temporary "<path>.tmp.<pid>" beside
 * it; durable_commit() then makes them all durable at once: it starts the
 * write-back of every temporary file before waiting for any (so the disk
 * and the journal see one batch, not one flush per file), fsyncs each,
 * renames each over its path in the order they were opened (an ONNX
 * model's .data before the model), and fsyncs each directory once, so the
 * renames are durable too.  The ONNX model, its .data, the report and the
 * diagnostic files all go through it (docs/report.md, "The file"). */

#define DURABLE_MAX 4

typedef struct DurableFile {
	char *path, *tmp;       /* malloc'ed */
	int fd;                 /* the temporary file, open until committed */
	int synced;             /* fsynced by durable_sync() */
} DurableFile;

typedef struct Durable {
	DurableFile f[DURABLE_MAX];
	int n;
} Durable;

void durable_init(Durable *out);
/* Creates path's temporary file; returns its descriptor (owned by out), or
 * -1 with errno set. */
int durable_open(Durable *out, const char *path);
/* durable_open(), then the len bytes at p; returns 0 or an errno (the
 * temporary file is then removed). */
int durable_write(Durable *out, const char *path, const void *p, size_t len);
/* Removes the temporary file of fd and forgets it (a part that failed). */
void durable_drop(Durable *out, int fd);
/* Commits every file as described above; returns 0, or the first errno
 * with *failed (when not NULL) the path it concerns.  On an error the
 * temporary files not yet renamed are removed.  out is empty afterwards. */
int durable_commit(Durable *out, const char **failed);
/* fsyncs the files of out so far, which durable_commit() then does not
 * fsync again: a caller with other work for another thread (the report)
 * waits for the disk meanwhile.  Returns 0 or the first errno (a file not
 * synced is fsynced, and its error reported, by durable_commit()). */
int durable_sync(Durable *out);
/* Moves the files of from to the end of to (committed after to's own);
 * from is empty afterwards. */
void durable_join(Durable *to, Durable *from);
/* Removes every temporary file (a failed run); out is empty afterwards. */
void durable_abort(Durable *out);
/* Whether path may be an output: 0, or -1 with the reason in why when it
 * exists and is not a regular file (a symbolic link, FIFO, device or
 * directory is never replaced: the rename would replace the link or the
 * node itself) or is the same file (st_dev, st_ino) as one of the n paths
 * of inputs (NULL entries skipped). */
int durable_check_output(const char *path, const char *const *inputs, int n, char *why, size_t whylen);
/* 1 when paths a and b name the same file, whether it exists or not
 * (their folders resolved through links, then the names compared). */
int durable_same_path(const char *a, const char *b);
/* 1 when the files a and b are in the same folder (resolved through
 * links; a folder that does not exist is no folder). */
int durable_same_dir(const char *a, const char *b);
/* Starts writing bytes [from, from + len) of fd to disk without waiting
 * (sync_file_range), so that a big file's write-back overlaps the rest of
 * its writing; durable_commit() still waits for all of it. */
void durable_writeback(int fd, uint64_t from, uint64_t len);
/* Starts the write-back of every file of out so far (len 0: to its end),
 * for a caller with other work to do before durable_commit(). */
void durable_start(Durable *out);

/* ==== mapguard ==== */

/* Input files read through a mapping can change under us: a page of a file
 * truncated by another program raises SIGBUS when touched, and a rewrite in
 * place mixes old bytes with new.  Each reader registers its mapping
 * (mapguard_add); mapguard_run() runs a phase so that a SIGBUS inside a
 * registered mapping returns from it instead of killing the process (a
 * fault anywhere else still does), and mapguard_changed() compares each
 * file's size, mtime and inode with those it had when it was mapped.  The
 * registry is process-wide, as signal handlers are. */

#define MAPGUARD_MAX 72   /* an ONNX model, its 64 external data files, spare */

/* Registers [base, base + len) as a mapping of path (copied), whose fd is
 * duplicated to check it later (fd may be closed after).  Returns 0, or -1
 * when the registry is full (the mapping is then unguarded). */
int mapguard_add(const void *base, size_t len, int fd, const char *path);
/* Forgets the mapping at base (before it is unmapped); a no-op if unknown. */
void mapguard_remove(const void *base);
/* Returns fn(ctx); or, when a registered mapping faults while it runs, -1
 * with *faulted the path of that file (never NULL then).  Nests. */
int mapguard_run(int (*fn)(void *ctx), void *ctx, const char **faulted);
/* The path of a registered file whose size, mtime or inode differs from
 * when it was mapped (or that can no longer be inspected), or NULL. */
const char *mapguard_changed(void);
/* When some registered file changed, reports YE_INPUT_CHANGED naming it
 * and returns DIAG_INPUT; else 0.  path: the file known to have faulted, or
 * NULL to look with mapguard_changed(). */
int mapguard_report(Diag *d, const char *path);

/* ==== dtype ==== */

/* Element types, generated from dtype.def. */

typedef enum DType {
	DT_UNKNOWN = 0,
#define X(e, code, c10, name, size, onnx, oname, kind) e,
#include "dtype.def"
#undef X
	DT_COUNT
} DType;

/* ONNX TensorProto.DataType codes by their onnx.proto names (ONNX_FLOAT,
 * ONNX_INT64, ...), from the same rows: code that reads or writes an ONNX
 * element type names it, never a bare number (test_no_raw_elem_codes in
 * test/unit/test_opt.c). */
typedef enum OnnxElem {
#define X(e, code, c10, name, size, onnx, oname, kind) ONNX_##oname = onnx,
#include "dtype.def"
#undef X
} OnnxElem;

/* torch's category of an element type for promotion (dtype.def's last
 * column): the one answer to "is this a float" (float16, bfloat16, float32,
 * float64; not float8, not complex), for a DType or an ONNX element type. */
/* in torch's order of priority */
typedef enum DTypeKind { DK_BOOL, DK_INT, DK_FLOAT, DK_COMPLEX, DK_OTHER } DTypeKind;
DTypeKind dtype_kind(DType t);
int dtype_is_float(DType t);
int dtype_onnx_is_float(int elem);

/* Returns the DType for torch's ScalarType code, DT_UNKNOWN if none. */
DType dtype_from_torch(long code);
/* The DType for c10's ScalarType code (TorchScript's `dtype=6` is
 * float32), DT_UNKNOWN if none; and back, -1 if none. */
DType dtype_from_c10(long code);
int dtype_c10(DType t);
/* Returns the DType for a torch.save storage class ("FloatStorage"), DT_UNKNOWN if none. */
DType dtype_from_storage(const char *cls);
/* Returns the DType for a torch dtype attribute name ("float32", "bfloat16"), DT_UNKNOWN if none. */
DType dtype_from_name(const char *name);
const char *dtype_name(DType t);      /* "float32"; "unknown" for DT_UNKNOWN */
int dtype_size(DType t);              /* bytes per element; 0 for DT_UNKNOWN */
int dtype_onnx(DType t);              /* ONNX TensorProto.DataType; 0 if none */
int dtype_torch(DType t);             /* torch ScalarType code; -1 if none */
DType dtype_from_onnx(int elem);      /* the row of an ONNX element type; DT_UNKNOWN if none */
/* The dtype of one part (real or imaginary) of a complex dtype: complex64
 * -> float32, complex128 -> float64, complex32 -> float16; DT_UNKNOWN for a
 * dtype that is not complex.  The lowering carries a complex tensor as its
 * parts with a trailing dim of 2 (docs/ops.md, signal). */
DType dtype_complex_part(DType t);

/* The element codec, the one place that reads an element's bytes as a
 * number or writes them back (test/facts/check.py: no other file does).
 * p is dtype_size(t) bytes, little-endian, any alignment.  Every dtype of
 * dtype.def: the floats (float16, bfloat16 and the float8 types by their
 * bit layouts), integers, bool (0 or 1) and complex (the real part; encoding
 * writes an imaginary part of 0).
 * dtype_decode_f64: the element as a double (int64 beyond 2^53 rounds).
 * dtype_decode_i64: the element as an int64, exact for integers (uint64
 *   wraps); a float truncated toward zero, saturated, NaN as 0.
 * dtype_encode_f64: x into an element, rounded to nearest even for the
 *   floats, past the largest finite to infinity (NaN for float8 types with
 *   none); into an integer truncated toward zero and saturated to int64,
 *   then wrapped to its width; bool is x != 0.  Returns 0, or -1 for
 *   DT_UNKNOWN (nothing written).
 * dtype_encode_i64: x exactly into an integer (wrapped to its width), as
 *   dtype_encode_f64((double)x) into the others.
 * The array forms convert n elements (a tight loop for float32). */
double dtype_decode_f64(DType t, const void *p);
int64_t dtype_decode_i64(DType t, const void *p);
int dtype_encode_f64(DType t, void *p, double x);
int dtype_encode_i64(DType t, void *p, int64_t x);
void dtype_decode_array(DType t, const void *p, int64_t n, double *out);
void dtype_encode_array(DType t, void *p, int64_t n, const double *v);

/* ==== tensor ==== */

/* A tensor whose bytes live in the mapped input file.
 *
 * Weights, constants and sample inputs are views into a storage: the raw
 * bytes of a whole storage record, plus sizes, strides (in elements) and a
 * storage offset (in elements), as torch's as_strided.  Nothing is copied. */

typedef struct TensorData {
	DType dtype;
	int rank;
	int64_t *sizes;            /* rank entries (arena) */
	int64_t *strides;          /* rank entries, in elements (arena) */
	int64_t offset;            /* storage offset, in elements */
	const uint8_t *storage;    /* first byte of the storage (mapped file or arena) */
	uint64_t storage_bytes;    /* bytes in the storage */
	const char *entry;         /* the zip entry holding the storage, for messages */
} TensorData;

/* Number of elements (product of sizes; 1 for rank 0). */
int64_t tensor_numel(const TensorData *t);
/* 1 when the view is row-major contiguous, so its bytes are one run. */
int tensor_is_contiguous(const TensorData *t);
/* Returns 1 when every element the view addresses lies inside the storage,
 * and its element count and bytes fit an int64_t (size_numel, size_bytes). */
int tensor_in_bounds(const TensorData *t);

#endif
