/* report/report.h: the conversion report, model.xlsx (libxlsxwriter).
 *
 * The pipeline fills a Report as it runs; report_write() turns it into a
 * workbook with the sheets users read: overview (the facts a person looks
 * for first, links to the other sheets), extra (key/value facts), stats (one
 * row per optimizer event), stats_agg (stats summed per pattern), node_stats
 * (per ONNX op type), flops_by_op (op types by FLOPs), symbolic_flops (per
 * node), functions (with the
 * option `functions`), captures (what was tried: a bundle's strategies,
 * or the one capture of a .pt2), signature (each input axis, symbolic or
 * fixed and why), discrepancies (--verify: one row per tensor compared with
 * torch's), and
 * unsupported when the conversion failed.  Rows keep insertion order except where a sheet is
 * documented as sorted; the file is deterministic (fixed creation time). */
#ifndef REPORT_H
#define REPORT_H

#include <stdint.h>

#include "core/core.h"
#include "opt/opt.h"
#include "onnx/onnx.h"

typedef struct ReportKV {
	const char *key;
	const char *text;       /* the value as text, or NULL when numeric */
	double num;             /* the value when text is NULL */
} ReportKV;

/* A stats row: one optimizer event (opt.h). */
typedef OptStat ReportStat;

typedef struct ReportNodeStat {
	const char *op_type;    /* "MatMul", or "domain:Op" outside ai.onnx */
	int64_t count;
	double flops;           /* summed at the sample sizes; -1 when unknown */
} ReportNodeStat;

typedef struct ReportFlops {
	const char *op_type, *node_name;
	const char *expr;       /* "2*batch*seq*64", or a number as text */
	double value;           /* at the sample input sizes; -1 when unknown */
} ReportFlops;

typedef struct ReportUnsupported {
	const char *node, *target, *frame;   /* node name, ATen target, user's source line (or NULL) */
	const char *reason;
} ReportUnsupported;

/* A captures row: one capture of the input (a bundle's strategy, or the
 * one capture a .pt2 or .onnx file is). */
typedef struct ReportCapture {
	const char *strategy;
	const char *captured;   /* "yes", or the capture's error */
	const char *converted;  /* "yes", the first diagnostic, or "not tried" */
	int64_t nodes;          /* ONNX nodes written, -1 when it did not convert */
	double capture_seconds, convert_seconds;   /* -1: not known */
} ReportCapture;

/* A signature row: one axis of a user input, symbolic or fixed, and why
 * (lib/pipeline/signature.c explains it from the program). */
typedef struct ReportAxis {
	const char *input;      /* the ONNX input name */
	int axis;
	const char *dim;        /* "batch", "2*seq", or the size as text */
	const char *kind;       /* symbolic, derived, merged, specialized, static */
	const char *torch;      /* torch's expression ("s17"), or NULL for a fixed axis */
	int has_min, has_max;   /* the symbol's range (a symbolic axis) */
	int64_t min, max;
	const char *why;        /* why it is what it is, as far as the dump says */
} ReportAxis;

/* A discrepancies row (--verify): one tensor compared with torch's. */
typedef struct ReportDiscrepancy {
	const char *kind;       /* "output" or "module" */
	const char *name, *cls; /* the output, or the module's path and class */
	const char *dtype, *shape;
	double max_abs, max_rel;/* -1: not compared by value (no reference values) */
	double tol;
	int ok;
	const char *problem;    /* what else failed (dtype, shape, NaN), or NULL */
} ReportDiscrepancy;

typedef struct Report {
	Arena *a;
	int nkv, nstat, nnode_stat, nflops, nunsupported, ncapture, ndiscrepancy;
	ReportKV *kv;
	ReportStat *stat;
	ReportNodeStat *node_stat;
	ReportFlops *flops;
	ReportUnsupported *unsupported;
	ReportCapture *capture;
	int naxis;
	ReportAxis *axis;       /* the signature sheet; none: no sheet */
	ReportDiscrepancy *discrepancy; /* --verify: the discrepancies sheet; none: no sheet */
	int cap_discrepancy;
	int cap_kv, cap_stat, cap_node_stat, cap_flops, cap_unsupported, cap_capture, cap_axis;
	const OutlineResult *functions; /* option `functions`: the functions sheet; NULL: no sheet */
} Report;

void report_init(Report *r, Arena *a);
/* Appenders (arena-backed growth; strings are not copied). */
void report_text(Report *r, const char *key, const char *text);
void report_num(Report *r, const char *key, double num);
void report_stat(Report *r, const ReportStat *s);
/* report_stat() as an OptLog function: ctx is the Report. */
void report_opt_stat(void *ctx, const OptStat *s);
void report_node_stat(Report *r, const ReportNodeStat *s);
void report_flops(Report *r, const ReportFlops *f);
void report_unsupported(Report *r, const ReportUnsupported *u);
void report_capture(Report *r, const ReportCapture *c);
void report_axis(Report *r, const ReportAxis *x);
void report_discrepancy(Report *r, const ReportDiscrepancy *x);
/* The functions sheet: one row per function made (its instances, nodes),
 * then the instances left inline and the listed classes without instance
 * (res is not copied). */
void report_functions(Report *r, const OutlineResult *res);

/* Loads libxlsxwriter (once per process; any thread): 0, or -1 with *why
 * naming the library and what failed.  report_write() calls it; calling it
 * early (on another thread) takes the loading off the critical path. */
int report_load(const char **why);
/* Writes path (through a temporary file renamed into place, core's
 * durable_*).  Returns 0 or DIAG_INPUT naming the file. */
int report_write(const Report *r, const char *path, Diag *d);
/* The same without the commit: path's temporary file joins out, for the
 * caller's durable_commit() with its other files. */
int report_write_to(const Report *r, Durable *out, const char *path, Diag *d);

/* ==== flops ==== */

/* Floating-point operation counts of ONNX nodes, for the report.
 *
 * flops_graph() walks an ONNX graph in order.  It knows the shape of every
 * value it can: the graph's inputs, initializers, value_info and outputs
 * give most of them (a dim_param is read back with sym_parse_infix), and
 * lib/onnx's inference rules (onnx_infer(), in their expressions model: the
 * optimizer's rules, dims kept as expressions) fill in the helper values
 * that lowering leaves without value_info (broadcasting, Transpose, MatMul,
 * Reshape to a shape computed by Shape/Concat/Unsqueeze, reductions,
 * convolutions, ...).
 *
 * A node's count is then a polynomial in the dimension names, expanded with
 * its static factors multiplied together ("2*batch*seq*seq*64" reads
 * "128*batch*seq*seq"), printed with sym_print, and evaluated at the sizes
 * bound to those names (the sample inputs).  The formulas are the flops
 * columns of lib/onnx/onnxops.def (functions in flops.c); docs/report.md
 * ("FLOPs formulas") documents each row and test_flops checks that every
 * row with a formula is documented there. */

typedef struct FlopsNode {
	const OnnxNode *node;
	const char *op_type;    /* "MatMul"; "domain:Op" outside ai.onnx */
	const char *expr;       /* the count as infix text ("128*batch*seq"), or NULL when unknown */
	double value;           /* the count at the bound sizes; -1 when unknown */
} FlopsNode;

typedef struct Flops Flops;

Flops *flops_new(Arena *a);
/* Gives the dimension name `name` the size `size` for evaluation. */
void flops_bind(Flops *f, const char *name, int64_t size);
/* Binds each dim_param of the tensor type vi that is a single name, and not
 * bound yet, to the matching entry of sizes (the shape of the sample fed to
 * vi; a negative size is skipped).  Returns how many names it bound; 0 when
 * vi has no shape, another rank, or a static dim that sizes contradicts. */
int flops_bind_shape(Flops *f, const Onnx__ValueInfoProto *vi, int rank, const int64_t *sizes);
/* Counts every node of g, in graph order: an arena array of g->n_node rows. */
FlopsNode *flops_graph(Flops *f, const Onnx__GraphProto *g);

/* The ONNX ops with a FLOPs formula, for tests and docs: how many, and the
 * ONNXOP_* row (onnx_ops[]) of the i-th in table order (-1 past the end). */
int flops_nop(void);
int flops_op(int i);

#endif
