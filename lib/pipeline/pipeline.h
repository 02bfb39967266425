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
 * and no ONNX file is written); never after a usage, input or I/O error.
 *
 * This is the interface cmd/ and the tests use; what the files of
 * lib/pipeline/ share besides is internal.h. */
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

/* Where the options file writes a value (1-based), for messages. */
typedef struct OptionAt {
	uint32_t line, col;
} OptionAt;

typedef struct Options {
	int opset;                      /* target ai.onnx opset, 17..23 */
	int noutput_name;
	const char **output_names;      /* renames of the user outputs, in order (arena) */
	OptionAt *output_name_at;       /* where each is written, for messages */
	int ninput_name;
	const char **input_names;       /* names of the ONNX graph inputs (user inputs), in order (arena) */
	OptionAt *input_name_at;
	int ndim_name;
	const char **dim_name_from;     /* dim_names: a dimension's default name or torch symbol ... */
	const char **dim_name_to;       /* ... and the user's name for it (arena) */
	OptionAt *dim_name_at;
	unsigned signature_allow;       /* bit (1 << SigChange) for each kind signature_allow lists */
	int64_t external_data_threshold;/* bytes; initializers this large go to OUT.data */
	int external_reference;         /* external_data: 1 reference (weights point into the .pt2), 0 file */
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

typedef struct Pipeline Pipeline;

/* ==== signature (signature.c, sigjson.c, names.c) ====
 *
 * The converted model's interface (docs/signature.md): every graph input
 * and output with its name, dtype and dims (a size or a dim_param), where it
 * comes from, each symbol with its range and where it appears, the opsets
 * and the input's metadata.  --signature FILE writes it as JSON (keys in a
 * fixed order, so that a diff reads well); --expect-signature FILE compares
 * it with a golden one and reports every difference (YE0901, or YE0902 for
 * a kind `signature_allow` accepts).  The axes of the user inputs are also
 * explained, symbolic or fixed and why (the report's `signature` sheet and
 * the end of --print). */

/* X(ENUM, name, meaning): the kinds of change (sigchange.def). */
typedef enum SigChange {
#define X(e, name, what) e,
#include "sigchange.def"
#undef X
	SIG_CHANGE_COUNT
} SigChange;

typedef struct SigDim {
	int64_t size;               /* a fixed size, or -1 */
	const char *param;          /* the dim_param ("batch", "2*seq"), or NULL for a fixed size */
} SigDim;

typedef struct SigValue {
	const char *name;           /* the ONNX name */
	const char *torch_name;     /* the program's name for it when another, else NULL */
	const char *source;         /* user_input, parameter, buffer, constant, graph_input; user_output, ... */
	const char *dtype;          /* "float32" (dtype.def's names) */
	int rank;                   /* -1: no shape */
	SigDim *dims;
} SigValue;

typedef struct SigSymbol {
	const char *name;           /* as the dims write it ("batch", "x_dim_0") */
	const char *torch;          /* torch's symbol ("s17"), or NULL when not known */
	int has_min, has_max;
	int64_t min, max;
	int nuse;
	const char **uses;          /* "x[0]", "add[1]": the input and output axes whose dim mentions it */
} SigSymbol;

/* One axis of a user input, explained (the report's signature sheet). */
typedef ReportAxis SigAxis;

typedef struct Signature {
	int64_t ir_version;
	int nopset;
	const char **opset_domain;  /* "" for ai.onnx */
	int64_t *opset_version;
	const char *producer_name, *producer_version;
	const char *torch_version;  /* NULL for an ONNX input */
	const char *capture_strategy;
	int nin, nout, nsym, naxis;
	SigValue *in, *out;
	SigSymbol *sym;
	SigAxis *axis;              /* empty for an ONNX input */
} Signature;

/* The JSON text of s (malloc'ed; *len bytes, no NUL counted). */
char *signature_json(const Signature *s, size_t *len);
/* Reads a signature written by signature_json() from text; label names it
 * in messages.  NULL with YE0903 (signature-unreadable) in d. */
Signature *signature_parse(Arena *a, const char *label, const char *text, size_t len, Diag *d);
/* Compares now with the golden old: one diagnostic per difference
 * (YE0901, or the note YE0902 for a kind in the mask allow), in the order
 * inputs, outputs, symbols, opsets.  label names the golden file.  Returns
 * the number of differences not allowed. */
int signature_compare(const Signature *old, const Signature *now, unsigned allow, const char *label, Diag *d);

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

struct Pipeline {
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
	double peak_mib[PHASE_COUNT];/* the process's peak resident memory when the phase ended */
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
	const char *signature_out;  /* --signature FILE, or NULL (set by the caller) */
	const char *signature_expect; /* --expect-signature FILE, or NULL (set by the caller) */
	int signature_changes;      /* differences from the golden signature not allowed */
	StrMap *renamed;            /* input_names: ONNX name -> the program's name */
	Durable files;              /* the output files being written (pipeline_run) */
	int verify;                 /* set by the caller: --verify (or the option `verify`) */
	VerifyOrt *ort;             /* onnxruntime, loaded when verifying */
	VerifyResult verified;      /* what verification found (ran when verify_seconds >= 0) */
	double verify_seconds;      /* -1 until verification ran */
	const char *verify_from;    /* where its inputs came from, for the report */
};

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
