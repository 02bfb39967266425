/* pipeline/internal.h: private to lib/pipeline/: what its files share
 * besides the public pipeline.h (pipeline.c, convert.c and capture.c: one
 * capture's conversion; options.c and options_custom.c: the keys;
 * strategy.c: the rows of strategy.def by name; signature.c, sigjson.c and
 * names.c: building, printing and comparing the signature, applying the
 * options' names).  Nothing outside lib/pipeline/ includes it. */
#ifndef PIPELINE_INTERNAL_H
#define PIPELINE_INTERNAL_H

#include <yaml.h>

#include "pipeline/pipeline.h"
/* 1 for an argument that is a graph value: a tensor or a symbolic number
 * (what the lowering declares as an ONNX graph input or output). */
static inline int
pipeline_value_arg(const Arg *g)
{
	return g->kind == ARG_TENSOR || g->kind == ARG_SYM_INT || g->kind == ARG_SYM_BOOL || g->kind == ARG_SYM_FLOAT;
}
/* CLOCK_MONOTONIC in seconds. */
double pipeline_now(void);
/* Records the process's peak resident memory so far as phase p's. */
void pipeline_peak(Pipeline *pl, Phase p);
/* The most bytes read from an options file and from a golden signature
 * (file_slurp()'s cap): both are small text files, and a FIFO, /dev/zero or
 * a mistaken path must not exhaust the memory. */
#define OPTIONS_MAX_BYTES (1 << 20)
#define SIGNATURE_MAX_BYTES (64 << 20)
/* Lowers pl->prog (unless pl->model already holds an ONNX input) and
 * optimizes the model, timing both phases.  Returns 0 or the Diag's code;
 * a lowering failure fills the report's unsupported rows. */
int pipeline_convert(Pipeline *pl, Diag *d);
/* For an ONNX model in pl->model (label names it): checks it is well
 * formed (onnx_model_check) and of an opset the optimizer knows, and sets
 * the target opset to the model's own; fails (YE_OPTIONS_VALUE) when the
 * options ask for another. */
int pipeline_onnx_opset(Pipeline *pl, const char *label, Diag *d);
/* Tries the captures of pl->bundle in the options' order (capture.c) and
 * keeps the first that converts in pl.  Returns 0, or DIAG_CONVERT when
 * none does (a note per capture says why); the captures rows are in the
 * report either way. */
int pipeline_convert_bundle(Pipeline *pl, Diag *d);

/* Sizes bound to dim_param names (capture.c), for sym_eval(). */
typedef struct Bindings {
	int n;
	const char *name[256];
	int64_t v[256];
} Bindings;
/* sym_eval()'s lookup over a Bindings (ctx). */
int pipeline_dim_lookup(void *ctx, const char *name, int64_t *v);
/* The shape of tensor type vi (NULL when it has none), its element type in *elem. */
const Onnx__TensorShapeProto *pipeline_tensor_shape(const Onnx__ValueInfoProto *vi, int *elem);
/* Binds each dim_param of vi not bound yet to sizes[k], when vi has rank dims. */
void pipeline_bind_dims(Bindings *b, const Onnx__ValueInfoProto *vi, int rank, const int64_t *sizes);

/* verify.c: after the model is written into files (not committed) and
 * pl->ort loaded: gathers the inputs and references, then commits files
 * with commit (pipeline.c's, handed down: onnxruntime reads pl->out from
 * disk; files is empty afterwards), runs
 * lib/verify/ and puts its rows in the report.  Returns 0, DIAG_CONVERT (a
 * mismatch, YE0801, or onnxruntime cannot run the model) or DIAG_INPUT (no
 * inputs, a bad verify_inputs/verify_outputs file: files is then left
 * uncommitted; or the commit failed). */
typedef int (*PipelineCommit)(Pipeline *pl, Durable *files, Diag *d);
int pipeline_verify(Pipeline *pl, PipelineCommit commit, Durable *files, Diag *d);

/* options_custom.c */
/* Reads the value v of `custom_ops` into o->custom_ops.  Returns 0 or
 * DIAG_INPUT with "label:line:col: ..." in d. */
int options_custom_ops(Options *o, Arena *a, yaml_document_t *doc, yaml_node_t *v, const char *label, Diag *d);
/* Checks the `nodes:` op types against lib/onnx/onnxops.def at o->opset,
 * once the whole file is read.  Returns 0 or DIAG_INPUT. */
int options_custom_check(const Options *o, Diag *d);

/* ==== options (options.c) ==== */

/* The keys of the table, in its order: how many, the i-th key, and its
 * effective value in o as text (the file's value as written, flow style
 * for lists and mappings, or the table's default). */
int options_count(void);
const char *options_key(int i);
const char *options_value(const Options *o, int i);

/* ==== capture strategies (strategy.c) ==== */

/* The row of name, or -1. */
int pipeline_strategy_find(const char *name);
/* "nostrict, strict, ..." (arena), for messages. */
const char *pipeline_strategy_names(Arena *a);

/* ==== signature (signature.c, sigjson.c, names.c) ==== */

extern const char *const sig_change_name[SIG_CHANGE_COUNT];
extern const char *const sig_change_what[SIG_CHANGE_COUNT];

/* The interface of pl->model (after pipeline_convert()), with the axes of
 * pl->prog explained (arena). */
Signature *signature_build(const Pipeline *pl);
/* The axes of pl->prog's user inputs explained, from the program alone
 * (--print): *out gets an arena array; returns how many. */
int signature_axes(const Pipeline *pl, SigAxis **out);
/* The `contract` section of --print: the axes, the symbols, the merges and
 * the assertions of the graph. */
void signature_print(const Pipeline *pl, FILE *f);
/* names.c: the options' names applied.  Before lowering: dim_names becomes
 * dynamic_dimensions requests, and output_names are checked against the
 * inputs' names (file:line:col).  After optimizing: input_names renames the
 * ONNX graph inputs.  Return 0 or DIAG_INPUT. */
int pipeline_names_before(Pipeline *pl, Diag *d);
int pipeline_names_after(Pipeline *pl, Diag *d);

#endif
