/* report.h: the conversion report, model.xlsx (libxlsxwriter).
 *
 * The pipeline fills a Report as it runs; report_write() turns it into a
 * workbook with the sheets users read: extra (key/value facts), stats (one
 * row per optimizer event), stats_agg (stats summed per pattern), node_stats
 * (per ONNX op type), symbolic_flops (per node), and unsupported when the
 * conversion failed.  Rows keep insertion order except where a sheet is
 * documented as sorted; the file is deterministic (fixed creation time). */
#ifndef REPORT_H
#define REPORT_H

#include <stdint.h>

#include "arena.h"
#include "diag.h"

typedef struct ReportKV {
	const char *key;
	const char *text;       /* the value as text, or NULL when numeric */
	double num;             /* the value when text is NULL */
} ReportKV;

typedef struct ReportStat {
	const char *pattern;    /* pattern or pass name */
	int64_t removed, added; /* nodes */
	double time_in;         /* seconds spent */
	int iteration;          /* fixed-point iteration it ran in */
	int match_index;        /* index of the match within the iteration */
	int64_t instances;      /* matches applied in this event */
} ReportStat;

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

typedef struct Report {
	Arena *a;
	int nkv, nstat, nnode_stat, nflops, nunsupported;
	ReportKV *kv;
	ReportStat *stat;
	ReportNodeStat *node_stat;
	ReportFlops *flops;
	ReportUnsupported *unsupported;
	int cap_kv, cap_stat, cap_node_stat, cap_flops, cap_unsupported;
} Report;

void report_init(Report *r, Arena *a);
/* Appenders (arena-backed growth; strings are not copied). */
void report_text(Report *r, const char *key, const char *text);
void report_num(Report *r, const char *key, double num);
void report_stat(Report *r, const ReportStat *s);
void report_node_stat(Report *r, const ReportNodeStat *s);
void report_flops(Report *r, const ReportFlops *f);
void report_unsupported(Report *r, const ReportUnsupported *u);

/* Writes path (through a temporary file renamed into place).  Returns 0 or
 * DIAG_INPUT naming the file. */
int report_write(const Report *r, const char *path, Diag *d);

#endif
