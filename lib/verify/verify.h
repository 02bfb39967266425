/* verify/verify.h: does the written ONNX model compute what torch computed
 * (--verify, the option `verify`; docs/verify.md).
 *
 * The pipeline gathers a VerifyJob after the model is on disk: the inputs
 * to feed (a bundle's example inputs, a .pt2's stored sample inputs, the
 * `verify_inputs:` files, or values made from the shapes with a fixed
 * seed), what each graph output should be (torch's numbers, or only its
 * dtype and shape when torch's numbers are not known) and, for a bundle
 * that recorded them, every submodule's outputs in execution order mapped
 * to ONNX values of the graph through the nodes' nn_module_stack.
 * verify_run() runs the written file with onnxruntime, compares every
 * output, and when module outputs are mapped runs a copy of the model
 * (read back from disk, those values added as graph outputs, held in
 * memory: never written) to name the first module whose outputs diverge.
 *
 * onnxruntime is not linked: verify_open() loads its C library with
 * dlopen() (ort.c), so a build without it works and, with --verify off,
 * nothing of it is touched. */
#ifndef VERIFY_H
#define VERIFY_H

#include <stdint.h>

#include "core/core.h"
#include "ir/ir.h"
#include "onnx/onnx.h"
#include "read/read.h"

/* ORT_API_VERSION of onnxruntime 1.20, the oldest library accepted. */
#define VERIFY_ORT_API 20

/* A tensor as row-major little-endian bytes. */
typedef struct VerifyTensor {
	const char *name;       /* the ONNX value it feeds or is read from */
	DType dtype;
	int rank;
	const int64_t *shape;
	const void *data;       /* NULL: no reference values (dtype, shape, NaN/Inf checked only) */
	uint64_t nbytes;        /* bytes at data when the shape is not known (rank -1), else 0 */
} VerifyTensor;
/* A reference's rank -1 accepts any shape, a size -1 any size at that axis
 * (a data-dependent size the inputs do not give). */

/* One submodule call as the bundle recorded it, its outputs mapped to
 * ONNX values (out[i].name). */
typedef struct VerifyModule {
	const char *name;       /* its path in the model: "layer3.0" */
	const char *cls;        /* its class: "BasicBlock" */
	const char *frame;      /* the user's source line of its first node, or NULL */
	int nout;
	VerifyTensor *out;
} VerifyModule;

/* One compared tensor: a row of the report's `discrepancies` sheet. */
typedef struct VerifyRow {
	const char *kind;       /* "output" or "module" */
	const char *name;       /* the output's name, or the module's path (":N" for its N-th output) */
	const char *cls;        /* the module's class, or NULL */
	DType dtype;            /* as onnxruntime computed it */
	const char *shape;      /* "[2, 4]", as computed */
	double max_abs;         /* largest |onnx - torch|; -1 when not compared by value */
	double max_rel;         /* max_abs over the largest |torch| (the output's magnitude) */
	double tol;             /* the bound max_abs had to keep */
	int ok;
	const char *problem;    /* why not ok beyond the numbers, or NULL */
} VerifyRow;

typedef struct VerifyJob {
	const char *model;      /* the written ONNX file */
	int ninput;
	const VerifyTensor *inputs;
	int noutput;            /* the graph's outputs, in order */
	const VerifyTensor *outputs;
	int nan_allowed;        /* 1: NaN/Inf in an output without reference values is not a fault */
	int nmodule;
	const VerifyModule *modules;   /* in execution order */
	double tolerance;       /* verify_tolerance: absolute, 10x looser relative; <= 0: per dtype */
	const char *label;      /* the input file, for messages */
} VerifyJob;

typedef struct VerifyResult {
	int nrow;
	VerifyRow *rows;        /* outputs first, then modules in execution order */
	int noutput;            /* output rows (the first rows) */
	int outputs_compared;   /* output rows compared by value with torch's (the others had no
	                           values to compare with: dtype, shape and finite values only) */
	int nbad;               /* rows not ok */
	int worst;              /* the failed output row with the largest error, or -1 */
	int first_module;       /* the first failed module row, or -1 */
	const VerifyModule *module;   /* its module */
	int modules_compared, modules_skipped;
	const char *skipped_why;       /* the first reason a module was skipped */
} VerifyResult;

typedef struct VerifyOrt VerifyOrt;

/* Loads onnxruntime: library when given, else $YOBX_ONNXRUNTIME, else
 * libonnxruntime.so.1 from the dynamic loader's search.  Returns 0, or
 * DIAG_INPUT (YE0802) saying what failed and how to get the library. */
int verify_open(VerifyOrt **o, Arena *a, const char *library, const char *label, Diag *d);
/* Releases onnxruntime's environment (the library stays loaded); NULL is
 * a no-op. */
void verify_close(VerifyOrt *o);
/* "1.30.0" */
const char *verify_ort_version(const VerifyOrt *o);
/* Runs job (see above) and fills res.  Returns 0 when every row is ok;
 * DIAG_CONVERT with YE0801 (and a YE0804 note) when some is not, or with
 * YE0803 when onnxruntime cannot run the model. */
int verify_run(VerifyOrt *o, Arena *a, const VerifyJob *job, VerifyResult *res, Diag *d);

/* The default tolerance of dtype t: float32 1e-4 absolute or 1e-5 of the
 * output's magnitude, float16 1e-2 or 1e-3, bfloat16 5e-2 or 1e-2,
 * float64 1e-7 or 1e-9; exact (0) for integers and bool. */
void verify_tolerance(DType t, double *abs, double *rel);

/* The modules of a capture bundle's record mapped onto model m, converted
 * from prog: each call's outputs are the values its nodes (by
 * nn_module_stack) compute and nodes outside it read, in graph order, and
 * become the ONNX values of those names when m still has them.  Returns
 * how many of b's modules mapped (in *out, execution order); *skipped
 * counts the others and *why says the first reason. */
int verify_map_modules(Arena *a, const Bundle *b, const Program *prog, const Onnx__ModelProto *m,
                       VerifyModule **out, int *skipped, const char **why);

/* Values made for input t (its dtype and shape set) from a fixed seed:
 * floats uniform in [-1, 1), integers in [0, 4), bools all true. */
void verify_fill(Arena *a, VerifyTensor *t, uint64_t seed);

#endif
