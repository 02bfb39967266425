/* ort.c: onnxruntime's C library, loaded at run time.
 *
 * Nothing of onnxruntime is linked: verify_open() dlopen()s the library
 * (the option `onnxruntime_library`, else $YOBX_ONNXRUNTIME, else
 * libonnxruntime.so.1 wherever the dynamic loader finds it), asks its one
 * exported symbol, OrtGetApiBase, for the function table of API version
 * VERIFY_ORT_API (onnxruntime 1.20; a newer library serves older tables,
 * an older one returns none), and reads the entries of ortapi.def from it.
 * The library stays loaded until the process ends: onnxruntime's thread
 * pools do not survive a dlclose().
 *
 * ort_session() and ort_run() are what verify.c needs of it: a session
 * from a file or from bytes in memory, and one run with inputs given as
 * row-major bytes, outputs copied into the arena. */
#include "verify/internal.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct OrtStatus;
struct OrtEnv;
struct OrtSession;
struct OrtSessionOptions;
struct OrtMemoryInfo;
struct OrtValue;
struct OrtRunOptions;
struct OrtTensorTypeAndShapeInfo;
typedef struct OrtStatus OrtStatus;
typedef struct OrtEnv OrtEnv;
typedef struct OrtSession OrtSession;
typedef struct OrtSessionOptions OrtSessionOptions;
typedef struct OrtMemoryInfo OrtMemoryInfo;
typedef struct OrtValue OrtValue;
typedef struct OrtRunOptions OrtRunOptions;
typedef struct OrtTensorTypeAndShapeInfo OrtTensorTypeAndShapeInfo;

/* struct OrtApiBase: the two entries OrtGetApiBase() returns. */
typedef struct OrtApiBase {
	const void *(*GetApi)(uint32_t version);
	const char *(*GetVersionString)(void);
} OrtApiBase;

typedef struct OrtFns {
#define X(slot, name, ret, params) ret (*name) params;
#include "verify/ortapi.def"
#undef X
} OrtFns;

#define ORT_LOG_FATAL 4         /* OrtLoggingLevel: only what stops it (its errors come back as statuses) */
#define ORT_DEVICE_ALLOCATOR 0  /* OrtAllocatorType */
#define ORT_MEM_DEFAULT 0       /* OrtMemType */

struct VerifyOrt {
	OrtFns f;
	OrtEnv *env;
	OrtMemoryInfo *cpu;
	const char *version;
	const char *library;    /* the file or name loaded */
};

typedef void (*OrtAnyFn)(void);

/* How to get a library, for the message when none loads. */
#define ORT_HOW \
	"onnxruntime 1.20 or newer is needed: the npm package onnxruntime-node ships " \
	"libonnxruntime.so.1 (npm install onnxruntime-node: " \
	"node_modules/onnxruntime-node/bin/napi-v6/linux/x64/), and so does the Python wheel " \
	"(pip install onnxruntime: site-packages/onnxruntime/capi/); give its path with the option " \
	"`onnxruntime_library:` or the environment variable YOBX_ONNXRUNTIME"

static int
no_library(Diag *d, const char *label, const char *what)
{
	return diag_report(d, YE_VERIFY_NO_RUNTIME, &(DiagAt){.file = label}, "--verify: %s; %s", what, ORT_HOW);
}

int
verify_open(VerifyOrt **out, Arena *a, const char *library, const char *label, Diag *d)
{
	const char *from = library ? "option onnxruntime_library" : "YOBX_ONNXRUNTIME";
	const char *path = library ? library : getenv("YOBX_ONNXRUNTIME");
	const OrtApiBase *(*get_base)(void);
	const OrtApiBase *base;
	const OrtAnyFn *tab;
	VerifyOrt *o;
	OrtStatus *st;
	void *h;

	*out = NULL;
	if (path && !*path)
		path = NULL;
	if (!path)
		from = "the dynamic loader's search", path = "libonnxruntime.so.1";
	if (strchr(path, '/')) {
		/* a path (not a name the loader searches for): dlopen() would block
		 * on a FIFO and map a device, so it must be a regular file first */
		char why[160];
		uint64_t size;
		int fd = file_open(path, 0, &size, why, sizeof why);
		if (fd < 0)
			return no_library(d, label, arena_printf(a, "cannot load %s (from %s): %s", path, from, why));
		close(fd);
	}
	if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
		const char *why = dlerror();
		return no_library(d, label, arena_printf(a, "cannot load %s (from %s): %s", path, from,
		                                          why ? why : "unknown error"));
	}
	*(void **)&get_base = dlsym(h, "OrtGetApiBase");
	if (!get_base || !(base = get_base()))
		return no_library(d, label, arena_printf(a, "%s (from %s) has no OrtGetApiBase: not onnxruntime",
		                                          path, from));
	if (!(tab = base->GetApi(VERIFY_ORT_API)))
		return no_library(d, label, arena_printf(a, "%s (from %s) is onnxruntime %s, older than 1.20",
		                                          path, from, base->GetVersionString()));
	o = arena_alloc(a, sizeof *o);
	memset(o, 0, sizeof *o);
#define X(slot, name, ret, params) o->f.name = (ret (*) params)tab[slot];
#include "verify/ortapi.def"
#undef X
	o->version = arena_strdup(a, base->GetVersionString());
	o->library = path;
	if ((st = o->f.CreateEnv(ORT_LOG_FATAL, "yobx-export", &o->env)) ||
	    (st = o->f.CreateCpuMemoryInfo(ORT_DEVICE_ALLOCATOR, ORT_MEM_DEFAULT, &o->cpu))) {
		const char *msg = arena_strdup(a, o->f.GetErrorMessage(st));
		o->f.ReleaseStatus(st);
		return no_library(d, label, arena_printf(a, "%s: cannot start onnxruntime: %s", path, msg));
	}
	*out = o;
	return 0;
}

void
verify_close(VerifyOrt *o)
{
	if (!o)
		return;
	if (o->cpu)
		o->f.ReleaseMemoryInfo(o->cpu);
	if (o->env)
		o->f.ReleaseEnv(o->env);
	o->cpu = NULL;
	o->env = NULL;
}

const char *
verify_ort_version(const VerifyOrt *o)
{
	return o->version;
}

/* The message of st (in the arena), st released; NULL when st is NULL. */
static const char *
status(VerifyOrt *o, Arena *a, OrtStatus *st)
{
	const char *msg;

	if (!st)
		return NULL;
	msg = arena_strdup(a, o->f.GetErrorMessage(st));
	o->f.ReleaseStatus(st);
	return msg;
}

const char *
ort_session(VerifyOrt *o, Arena *a, const char *path, const void *bytes, size_t len, OrtSession **out)
{
	OrtSessionOptions *so = NULL;
	const char *err = status(o, a, o->f.CreateSessionOptions(&so));

	*out = NULL;
	if (err)
		return err;
	err = status(o, a, path ? o->f.CreateSession(o->env, path, so, out)
	                        : o->f.CreateSessionFromArray(o->env, bytes, len, so, out));
	o->f.ReleaseSessionOptions(so);
	return err;
}

void
ort_session_close(VerifyOrt *o, OrtSession *s)
{
	if (s)
		o->f.ReleaseSession(s);
}

/* Copies the tensor v into t (dtype, shape, bytes in the arena). */
static const char *
take(VerifyOrt *o, Arena *a, OrtValue *v, VerifyTensor *t)
{
	OrtTensorTypeAndShapeInfo *info = NULL;
	const char *err;
	size_t rank = 0;
	int elem = 0;
	int64_t *shape, numel = 1;
	void *data = NULL;

	if ((err = status(o, a, o->f.GetTensorTypeAndShape(v, &info))))
		return err;
	if (!(err = status(o, a, o->f.GetTensorElementType(info, &elem))) &&
	    !(err = status(o, a, o->f.GetDimensionsCount(info, &rank)))) {
		shape = ARENA_ARRAY(a, int64_t, rank + 1);
		err = status(o, a, o->f.GetDimensions(info, shape, rank));
		t->shape = shape;
		t->rank = (int)rank;
		for (size_t i = 0; i < rank; i++)
			numel *= shape[i];
	}
	o->f.ReleaseTensorTypeAndShapeInfo(info);
	if (err)
		return err;
	t->dtype = dtype_from_onnx(elem);
	if (t->dtype == DT_UNKNOWN || !dtype_size(t->dtype))
		return arena_printf(a, "output '%s' has ONNX element type %d, which is not compared", t->name, elem);
	if (numel && (err = status(o, a, o->f.GetTensorMutableData(v, &data))))
		return err;
	t->data = numel ? arena_dup(a, data, (size_t)numel * (size_t)dtype_size(t->dtype)) : arena_alloc(a, 1);
	return NULL;
}

const char *
ort_run(VerifyOrt *o, Arena *a, OrtSession *s, int nin, const VerifyTensor *in, int nout, VerifyTensor *out)
{
	OrtValue **iv = ARENA_ARRAY(a, OrtValue *, nin + 1), **ov = ARENA_ARRAY(a, OrtValue *, nout + 1);
	const char **iname = ARENA_ARRAY(a, const char *, nin + 1), **oname = ARENA_ARRAY(a, const char *, nout + 1);
	const char *err = NULL;
	int made = 0;

	for (; made < nin && !err; made++) {
		const VerifyTensor *t = &in[made];
		size_t bytes = (size_t)verify_numel(t) * (size_t)dtype_size(t->dtype);
		static uint8_t empty[8];
		iname[made] = t->name;
		err = status(o, a, o->f.CreateTensorWithDataAsOrtValue(o->cpu, bytes ? (void *)t->data : empty, bytes,
		             t->shape, (size_t)t->rank, dtype_onnx(t->dtype), &iv[made]));
		if (err)
			iv[made] = NULL;
	}
	for (int i = 0; i < nout; i++) {
		oname[i] = out[i].name;
		ov[i] = NULL;
	}
	if (!err)
		err = status(o, a, o->f.Run(s, NULL, iname, (const OrtValue *const *)iv, (size_t)nin,
		                            oname, (size_t)nout, ov));
	for (int i = 0; i < nout && !err; i++)
		err = take(o, a, ov[i], &out[i]);
	for (int i = 0; i < nout; i++)
		if (ov[i])
			o->f.ReleaseValue(ov[i]);
	for (int i = 0; i < made; i++)
		if (iv[i])
			o->f.ReleaseValue(iv[i]);
	return err;
}
