/* pipeline.h: one conversion, phase by phase.
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

#include "arena.h"
#include "diag.h"
#include "ir.h"
#include "onnx.h"
#include "options.h"
#include "report.h"

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

typedef struct Pipeline {
	/* set by the caller */
	const char *input;          /* the .pt2 file */
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
} Pipeline;

/* Zeroes pl (keeping input, options and out) and gives it the arena. */
void pipeline_init(Pipeline *pl, Arena *a);
/* The read phase alone (for --print).  Returns 0 or the Diag's code. */
int pipeline_read(Pipeline *pl, Diag *d);
/* Every phase (reading first unless pipeline_read() already ran).  Returns
 * 0, DIAG_CONVERT or DIAG_INPUT, with the messages in d. */
int pipeline_run(Pipeline *pl, Diag *d);
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
