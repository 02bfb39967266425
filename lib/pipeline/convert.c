/* convert.c: one capture's conversion, lowering then optimizing, timed,
 * shared by the single-capture path (pipeline.c) and the bundle path
 * (capture.c).  When lowering fails, the diagnostics that name a node
 * become the report's unsupported rows. */
#include "pipeline/pipeline.h"

#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "pipeline/internal.h"
#include "lower/lower.h"
#include "opt/opt.h"
#include "core/core.h"

double
pipeline_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void
pipeline_peak(Pipeline *pl, Phase p)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) == 0)
		pl->peak_mib[p] = (double)ru.ru_maxrss / 1024.0;
}

/* ---- lower: and, when it fails, the unsupported rows ---- */

static const char *
keep(Arena *a, const char *s)
{
	return s ? arena_strdup(a, s) : NULL;
}

/* One row per diagnostic that names a node (its name, target, frame and
 * reason); when none does (an input of a type ONNX lacks, an output kind),
 * one row per diagnostic, with no node and its text as the reason. */
static void
collect_unsupported(Pipeline *pl, const Diag *d, int from)
{
	int named = 0;

	for (int i = from; i < d->n; i++) {
		const DiagItem *it = &d->items[i];
		if (!it->at.node)
			continue;
		report_unsupported(&pl->report, &(ReportUnsupported){keep(pl->a, it->at.node),
		                   keep(pl->a, it->at.target ? it->at.target : ""), keep(pl->a, it->at.frame),
		                   keep(pl->a, it->message)});
		pl->unsupported++;
		named++;
	}
	for (int i = from; i < d->n && !named; i++) {
		size_t n = diag_format(&d->items[i], NULL, 0);
		char *text = arena_alloc(pl->a, n + 1);
		diag_format(&d->items[i], text, n + 1);
		report_unsupported(&pl->report, &(ReportUnsupported){"", "", NULL, text});
		pl->unsupported++;
	}
}

static int
phase_lower(Pipeline *pl, Diag *d)
{
	int from = d->n;
	LowerOptions lo;
	IrTyper ty;
	int rc;

	options_lower(&pl->opt, &lo);
	lower_typer_init(&ty, lo.opset);       /* types new nodes of decompositions */
	lo.typer = &ty;
	/* each node's IR node: for the outlining (functions), and for the
	 * legality check to name the ATen node and source line at fault */
	lo.origin = pl->origin = strmap_new(pl->a, 1024);
	rc = lower_program(&pl->prog, &lo, pl->a, &pl->model, d);

	if (rc) {
		pl->model = NULL;
		if (rc == DIAG_CONVERT)
			collect_unsupported(pl, d, from);
	}
	return rc;
}

/* ---- optimize ----
 * The optimizer (lib/opt/opt.h) rewrites pl->model in place with the rows the
 * `patterns` option selects and adds one ReportStat per event.
 * pipeline_run() times this phase, zeroes the events' time_in when
 * report_timings is false, and counts the nodes after it. */
static int
phase_optimize(Pipeline *pl, Diag *d)
{
	OptLog log = {report_opt_stat, &pl->report};
	OutlineResult res;
	int rc;

	/* modules as functions first: outlining after the rewrites would meet
	 * nodes fused across module boundaries (lib/opt/outline.c); an ONNX
	 * input has no IR nodes to know its modules by */
	if (pl->opt.nfunction && pl->origin) {
		OutlineSpec spec = {pl->opt.nfunction, pl->opt.functions, pl->opt.function_embedded,
		                    &pl->prog, pl->origin, pl->opt.patterns, &log};
		if ((rc = opt_outline(pl->model, pl->a, &spec, &res, d)))
			return rc;
		report_functions(&pl->report, &res);
	}
	return opt_model(pl->model, pl->a, pl->opt.patterns, &log, NULL, d);
}

static int64_t
count_ir_nodes(const Graph *g)
{
	int64_t n = g->nnode;

	for (int i = 0; i < g->nnode; i++)
		for (int j = 0; j < g->nodes[i]->nin; j++)
			if (g->nodes[i]->in[j].arg.kind == ARG_GRAPH && g->nodes[i]->in[j].arg.u.g)
				n += count_ir_nodes(g->nodes[i]->in[j].arg.u.g);
	return n;
}

/* ---- legal: every node's element types allowed (lib/onnx/legal.c) ---- */

/* The ATen node an ONNX node was lowered from, when it kept its name. */
static void
origin_of(void *ctx, const OnnxNode *n, DiagAt *at)
{
	const Pipeline *pl = ctx;
	const Node *ir = pl->origin && n->name ? strmap_get(pl->origin, n->name) : NULL;

	if (ir) {
		at->node = ir->name;
		at->target = ir->op;
		at->frame = ir->frame;
	}
}

/* A lowered model must load in onnxruntime's CPU provider: its schema's
 * types and a CPU kernel for each node; an ONNX model's own nodes (an
 * input, a bundle's ONNX capture) are the user's, so it is held to the
 * schemas only.  A violation is a bug of the converter: nothing is
 * written. */
static int
check_legal(Pipeline *pl, int lowered, Diag *d)
{
	OnnxOrigin o = {origin_of, pl};
	int from = d->n, rc = onnx_model_legal(pl->model, lowered, pl->a, pl->input, &o, d);

	if (rc)
		collect_unsupported(pl, d, from);
	return rc;
}

int
pipeline_convert(Pipeline *pl, Diag *d)
{
	double t;
	int rc = 0, lowered = pl->kind != INPUT_ONNX && !(pl->kind == INPUT_BUNDLE && pl->model);

	if (lowered) {
		pl->aten_nodes = pl->prog.graph ? count_ir_nodes(pl->prog.graph) : 0;
		t = pipeline_now();
		if (!(rc = pipeline_names_before(pl, d)))
			rc = phase_lower(pl, d);
		pl->ran[PHASE_LOWER] = 1;
		pl->seconds[PHASE_LOWER] = pipeline_now() - t;
		pipeline_peak(pl, PHASE_LOWER);
	}
	if (!rc) {
		t = pipeline_now();
		rc = phase_optimize(pl, d);
		pl->ran[PHASE_OPTIMIZE] = 1;
		pl->seconds[PHASE_OPTIMIZE] = pipeline_now() - t;
		pipeline_peak(pl, PHASE_OPTIMIZE);
		if (!pl->opt.report_timings)
			for (int i = 0; i < pl->report.nstat; i++)
				pl->report.stat[i].time_in = 0;
	}
	if (!rc)
		rc = pipeline_names_after(pl, d);
	if (!rc)
		rc = check_legal(pl, lowered, d);
	return rc;
}

/* An ONNX input is optimized at the `opset` option when one is given, else
 * at its own opset raised to the default when older (ai.onnx 7 and up):
 * onnx_upgrade() rewrites the nodes whose operator changed in between
 * (pl->upgrade says what).  An opset is raised, never lowered. */
int
pipeline_onnx_opset(Pipeline *pl, const char *label, Diag *d)
{
	int own = 0, given = 0, to, rc;

	if (onnx_model_check(pl->model, pl->a, label, d))
		return DIAG_INPUT;
	for (size_t i = 0; i < pl->model->n_opset_import; i++)
		if (!pl->model->opset_import[i]->domain || !*pl->model->opset_import[i]->domain ||
		    strcmp(pl->model->opset_import[i]->domain, "ai.onnx") == 0)
			own = (int)pl->model->opset_import[i]->version;
	for (int i = 0; i < options_count(); i++)
		if (strcmp(options_key(i), "opset") == 0 && pl->opt.given && pl->opt.given[i])
			given = 1;
	if (own == 0) {
		/* only other domains (ai.onnx.ml): kept as they are; ai.onnx is
		 * imported at the target for what the optimizer may add */
		own = pl->opt.opset;
		onnx_import(pl->a, &pl->model->opset_import, &pl->model->n_opset_import, "", own);
	}
	if (own < 1 || own > OPTIONS_OPSET_MAX)
		return diag_report(d, YE_ONNX_INPUT, &(DiagAt){.file = label},
		                   "the model is written for ai.onnx opset %d: this optimizer knows opsets up "
		                   "to %d", own, OPTIONS_OPSET_MAX);
	if (given && pl->opt.opset < own)
		return diag_report(d, YE_OPTIONS_VALUE, &(DiagAt){.file = pl->opt.label},
		                   "'opset' is %d but the ONNX input %s is written for opset %d: an ONNX "
		                   "input's opset is raised, never lowered (drop `opset:` or give %d or more)",
		                   pl->opt.opset, pl->input, own, own);
	to = given || own < pl->opt.opset ? pl->opt.opset : own;
	if ((rc = onnx_upgrade(pl->model, to, pl->a, label, &pl->upgrade, d)))
		return rc;   /* 2 for an opset before 7, 1 for a node refused */
	pl->opt.opset = to;
	return 0;
}
