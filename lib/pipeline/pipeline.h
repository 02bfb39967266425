/* pipeline/pipeline.h: one conversion, phase by phase.
 *
 * pipeline_run() reads the options and the .pt2, lowers the program,
 * optimizes it, writes the ONNX file and then the report (OUT.xlsx, unless
 * the options say `report: false`), timing each phase with CLOCK_MONOTONIC.
 * lib/ does the work and fills the Pipeline, its Report and a Diag; cmd/
 * prints the summary and picks the exit status.
 *
 * The report is written when the conversion succeeded, and when it failed on
 * nodes it cannot convert (DIAG_CONVERT: then with the `unsupported` sheet,
 * and no ONNX file is written); never after a usage, input or I/O error. */
#ifndef PIPELINE_H
#define PIPELINE_H

#include <stdint.h>
#include <stdio.h>

#include "core/core.h"
#include "ir/ir.h"
#include "onnx/onnx.h"
#include "lower/lower.h"
#include "read/read.h"
#include "verify/verify.h"
#include "report/report.h"

/* ==== options ==== */

/* Conversion options, read from a YAML file (-c FILE).
 *
 * The keys are the rows of options.def; docs/options.md is generated from
 * them.  Errors read "options.yaml:3:7: unknown key 'opsett'" (1-based
 * line and column of the offending node) and are DIAG_INPUT. */

#define OPTIONS_OPSET_MIN 17
#define OPTIONS_OPSET_MAX ONNX_OPSET_NEWEST

typedef struct Options {
	int opset;                      /* target ai.onnx opset, 17..23 */
	int noutput_name;
	const char **output_names;      /* renames of the user outputs, in order (arena) */
	int64_t external_data_threshold;/* bytes; initializers this large go to OUT.data */
	int ndim_request;
	DimRequest *dim_requests;       /* dynamic_dimensions, in file order (arena) */
	int keep_assertions;            /* 1: _assert_scalar becomes a run-time check */
	const char *label;              /* the options file, for messages ("options" when none) */
	int report;                     /* 1: write OUT.xlsx */
	int report_timings;             /* 1: the report holds measured times; 0: zeros */
	const char **given;             /* by key index: the value as the file wrote it, or NULL (arena) */
	struct OptSelect *patterns;     /* optimizer rows to run (lib/opt/opt.h); NULL: the default set */
	const char *strategy;           /* a bundle's capture to try first; NULL: auto */
	int nfallback, has_fallback;    /* has_fallback: `fallback` was given */
	const char **fallback;          /* strategy names, in order (arena) */
	int ncustom_op;
	CustomOp *custom_ops;           /* custom_ops:, in file order (arena; lower.h) */
	int nfunction;
	const char **functions;         /* module classes written as ONNX functions (arena) */
	int function_embedded;          /* function_weights: 1 embedded, 0 inputs */
	TsInputs inputs;                /* inputs: (n -1 when not given) */
	int verify;                     /* 1: run the written model with onnxruntime (docs/verify.md) */
	const char *onnxruntime_library;/* its library, or NULL: $YOBX_ONNXRUNTIME, the loader's search */
	const char *verify_inputs, *verify_outputs;   /* folders of raw N.bin files, or NULL */
	double verify_tolerance;        /* absolute, for every float dtype; 0: the dtype's defaults */
} Options;

/* The defaults: opset 18, no renames, 1 MiB threshold, no dim names,
 * assertions dropped. */
void options_default(Options *o);
/* What the lowering reads of o, in *lo; returns lo. */
const LowerOptions *options_lower(const Options *o, LowerOptions *lo);
/* Reads the YAML file at path over the defaults already in o.  Returns 0,
 * or DIAG_INPUT with "path:line:col: what" lines. */
int options_load(Options *o, Arena *a, const char *path, Diag *d);
/* Same, from text in memory; label names it in messages. */
int options_parse(Options *o, Arena *a, const char *label, const char *text, size_t len, Diag *d);
/* The keys of the table, in its order: how many, the i-th key, and its
 * effective value in o as text (the file's value as written, flow style
 * for lists and mappings, or the table's default). */
int options_count(void);
const char *options_key(int i);
const char *options_value(const Options *o, int i);
/* Writes docs/options.md from the key table. */
void options_write_doc(FILE *f);

/* ==== capture strategies (capture.c) ==== */

/* A capture strategy of the bundle format, a row of strategy.def. */
typedef struct PipelineStrategy {
	const char *name;
	int strict;
	const char *decomp;         /* "none", "default" or "empty" */
	int tracing, jit, dynamo;
	const char *what;
} PipelineStrategy;

extern const PipelineStrategy pipeline_strategies[];
int pipeline_strategy_count(void);
/* The row of name, or -1. */
int pipeline_strategy_find(const char *name);
/* "nostrict, strict, ..." (arena), for messages. */
const char *pipeline_strategy_names(Arena *a);

/* ==== pipeline ==== */

/* X(ENUM, name): the phases in the order they run. */
#define PIPELINE_PHASES(X) \
	X(PHASE_READ, "read")           /* options and the .pt2 */ \
	X(PHASE_LOWER, "lower")         /* IR -> ONNX ModelProto */ \
	X(PHASE_OPTIMIZE, "optimize")   /* rewrites on the ModelProto */ \
	X(PHASE_WRITE, "write")         /* OUT.onnx (and OUT.onnx.data) */ \
	X(PHASE_REPORT, "report")       /* FLOPs, the Report, OUT.xlsx */

typedef enum Phase {
#define X(e, name) e,
	PIPELINE_PHASES(X)
#undef X
	PHASE_COUNT
} Phase;

extern const char *const phase_name[PHASE_COUNT];

/* What the input file is, told apart by content (pipeline_read). */
typedef enum InputFile {
	INPUT_PT2,                  /* torch.export.save's zip */
	INPUT_TEXT,                 /* a text graph (docs/text-graph.md) */
	INPUT_BUNDLE,               /* a capture bundle (docs/capture.md) */
	INPUT_ONNX,                 /* an ONNX model: optimized and reported, not lowered */
	INPUT_TS,                   /* a TorchScript archive (torch.jit.save) */
} InputFile;

typedef struct Pipeline {
	/* set by the caller */
	const char *input;          /* the .pt2, .yxc, .onnx or text graph file */
	const char *options;        /* the options file, or NULL */
	const char *out;            /* the ONNX file to write */
	/* filled by pipeline_read() and pipeline_run() */
	Arena *a;
	Program prog;
	Options opt;
	Onnx__ModelProto *model;    /* NULL until lowering succeeded */
	Report report;
	const char *report_path;    /* the workbook written, or NULL */
	int ran[PHASE_COUNT];       /* 1 for each phase that ran */
	double seconds[PHASE_COUNT];/* measured, whatever report_timings says */
	int64_t aten_nodes;         /* IR nodes, nested graphs included */
	int64_t onnx_nodes, initializers, initializer_bytes, inputs, outputs;
	int64_t unsupported;        /* rows of the unsupported sheet */
	double flops;               /* all nodes at the sample sizes; -1 when some is unknown */
	int64_t flops_unknown;      /* nodes whose count is unknown */
	InputFile kind;
	Bundle bundle;              /* INPUT_BUNDLE; bundle.zip maps a .pt2 input too */
	OnnxInput onnx;             /* INPUT_ONNX, or a bundle's ONNX capture */
	OnnxUpgradeStats upgrade;   /* an ONNX input: its opset and what raising it changed */
	const char *strategy;       /* the capture written (the report's capture_strategy) */
	const PipelineStrategy *winner;  /* a bundle's capture that converted, else NULL */
	StrMap *origin;             /* `functions`: ONNX node name -> IR node, from lowering */
	Durable files;              /* the output files being written (pipeline_run) */
	int verify;                 /* set by the caller: --verify (or the option `verify`) */
	VerifyOrt *ort;             /* onnxruntime, loaded when verifying */
	VerifyResult verified;      /* what verification found (ran when verify_seconds >= 0) */
	double verify_seconds;      /* -1 until verification ran */
	const char *verify_from;    /* where its inputs came from, for the report */
} Pipeline;

/* Zeroes pl (keeping input, options and out) and gives it the arena. */
void pipeline_init(Pipeline *pl, Arena *a);
/* The read phase alone (for --print).  Returns 0 or the Diag's code. */
int pipeline_read(Pipeline *pl, Diag *d);
/* Every phase (reading first unless pipeline_read() already ran).  Returns
 * 0, DIAG_CONVERT or DIAG_INPUT, with the messages in d. */
int pipeline_run(Pipeline *pl, Diag *d);
/* --print, after pipeline_read(): the IR of a .pt2 or text graph; an ONNX
 * input as onnx_print() renders it; for a bundle, its attempts and then
 * the first capture in the options' order that reads.  Returns 0 or the
 * Diag's code. */
int pipeline_print(Pipeline *pl, FILE *f, Diag *d);
/* Releases the mapped input (the arena is the caller's). */
void pipeline_close(Pipeline *pl);

/* OUT with its extension replaced by ".xlsx" ("model.onnx" -> "model.xlsx";
 * a name without extension, or one already ending in .xlsx, gets ".xlsx"
 * appended). */
char *pipeline_report_path(Arena *a, const char *out);
/* The optimizer's events summed per pattern, the k that removed the most
 * nodes first (ties by name); returns how many were written to top. */
int pipeline_top_patterns(const Pipeline *pl, ReportStat *top, int k);

#endif
