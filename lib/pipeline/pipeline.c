/* pipeline.c: the conversion as a list of timed phases (see pipeline.h),
 * and the Report's facts: the `extra` rows, node_stats and symbolic_flops
 * (through flops.c), and the `unsupported` rows when lowering failed.
 *
 * The FLOPs are counted before the ONNX file is written, because writing
 * may move initializers to external data, and the counts read small int64
 * initializers (shapes).  That time is charged to the report phase. */
#include "pipeline/pipeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/report.h"
#include "lower/lower.h"
#include "opt/opt.h"
#include "read/read.h"
#include "core/core.h"

const char *const phase_name[PHASE_COUNT] = {
#define X(e, name) name,
	PIPELINE_PHASES(X)
#undef X
};

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void
pipeline_init(Pipeline *pl, Arena *a)
{
	const char *input = pl->input, *options = pl->options, *out = pl->out;

	memset(pl, 0, sizeof *pl);
	pl->input = input;
	pl->options = options;
	pl->out = out;
	pl->a = a;
	pl->prog.arena = a;
	options_default(&pl->opt);
	report_init(&pl->report, a);
	pl->flops = -1;
}

void
pipeline_close(Pipeline *pl)
{
	pt2_close(&pl->prog);
}

char *
pipeline_report_path(Arena *a, const char *out)
{
	const char *base = strrchr(out, '/'), *dot;

	base = base ? base + 1 : out;
	dot = strrchr(base, '.');
	if (!dot || dot == base || strcmp(dot, ".xlsx") == 0)
		return arena_printf(a, "%s.xlsx", out);
	return arena_printf(a, "%.*s.xlsx", (int)(dot - out), out);
}

int
pipeline_read(Pipeline *pl, Diag *d)
{
	double t = now();
	int rc = pl->options ? options_load(&pl->opt, pl->a, pl->options, d) : 0;

	/* a text graph (docs/text-graph.md) or a .pt2, told apart by content */
	if (!rc)
		rc = irtext_sniff(pl->input) ? irtext_load(&pl->prog, pl->input, d) : pt2_load(&pl->prog, pl->input, d);
	pl->ran[PHASE_READ] = 1;
	pl->seconds[PHASE_READ] = now() - t;
	return rc;
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
	int rc;

	options_lower(&pl->opt, &lo);
	if (pl->opt.nfunction)              /* the outlining needs each node's IR node */
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
	 * nodes fused across module boundaries (lib/opt/outline.c) */
	if (pl->opt.nfunction) {
		OutlineSpec spec = {pl->opt.nfunction, pl->opt.functions, pl->opt.function_embedded,
		                    &pl->prog, pl->origin, pl->opt.patterns, &log};
		if ((rc = opt_outline(pl->model, pl->a, &spec, &res, d)))
			return rc;
		report_functions(&pl->report, &res);
	}
	return opt_model(pl->model, pl->a, pl->opt.patterns, &log, NULL, d);
}

/* ---- report: FLOPs, counts, histogram, extra rows ---- */

static const Onnx__ValueInfoProto *
graph_input(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_input; i++)
		if (strcmp(g->input[i]->name, name) == 0)
			return g->input[i];
	return NULL;
}

/* Gives the dim names of the ONNX inputs the sizes of the sample inputs.
 * The samples are the flattened forward arguments, so they line up with
 * the user inputs and constant inputs of the signature, in order.  A name
 * still unbound then takes the size torch recorded as its hint. */
static void
bind_samples(Flops *f, const Program *p, const Onnx__GraphProto *g)
{
	int k = 0;

	for (int i = 0; i < p->ninput_spec; i++) {
		const InputSpec *s = &p->input_specs[i];
		const Sample *smp;
		if (s->kind != IN_USER_INPUT && s->kind != IN_CONSTANT_INPUT)
			continue;
		smp = k < p->nsample ? &p->samples[k] : NULL;
		k++;
		if (s->kind == IN_USER_INPUT && s->arg->kind == ARG_TENSOR && smp && smp->t)
			flops_bind_shape(f, graph_input(g, s->arg->u.v->name), smp->t->rank, smp->t->sizes);
	}
	for (int i = 0; i < p->ninput_spec; i++) {
		const InputSpec *s = &p->input_specs[i];
		const Value *v;
		int64_t *hint;
		if (s->kind != IN_USER_INPUT || s->arg->kind != ARG_TENSOR)
			continue;
		v = s->arg->u.v;
		hint = ARENA_ARRAY(p->arena, int64_t, v->rank + 1);
		for (int r = 0; r < v->rank; r++)
			hint[r] = v->dims[r].v;
		flops_bind_shape(f, graph_input(g, v->name), v->rank, hint);
	}
}

/* symbolic_flops (one row per node) and node_stats (per op type, in the
 * order first seen; report.c sorts). */
static void
count_flops(Pipeline *pl)
{
	const Onnx__GraphProto *g = pl->model->graph;
	Flops *f = flops_new(pl->a);
	FlopsNode *fn;
	StrMap *slot = strmap_new(pl->a, 64);
	ReportNodeStat *ns = ARENA_ARRAY(pl->a, ReportNodeStat, g->n_node + 1);
	int nns = 0;

	bind_samples(f, &pl->prog, g);
	fn = flops_graph(f, g);
	pl->flops = 0;
	for (size_t i = 0; i < g->n_node; i++) {
		const FlopsNode *r = &fn[i];
		intptr_t k = (intptr_t)strmap_get(slot, r->op_type);
		report_flops(&pl->report, &(ReportFlops){r->op_type, r->node->name ? r->node->name : "",
		                                         r->expr, r->value});
		if (!k) {
			ns[nns] = (ReportNodeStat){r->op_type, 0, 0};
			strmap_put(slot, r->op_type, (void *)(intptr_t)(k = ++nns));
		}
		ns[k - 1].count++;
		ns[k - 1].flops = r->value < 0 || ns[k - 1].flops < 0 ? -1 : ns[k - 1].flops + r->value;
		if (r->value < 0)
			pl->flops_unknown++;
		else
			pl->flops += r->value;
	}
	if (pl->flops_unknown)
		pl->flops = -1;
	for (int i = 0; i < nns; i++)
		report_node_stat(&pl->report, &ns[i]);
}

static void
count_model(Pipeline *pl)
{
	const Onnx__GraphProto *g = pl->model->graph;

	pl->onnx_nodes = (int64_t)g->n_node;
	pl->initializers = (int64_t)g->n_initializer;
	pl->inputs = (int64_t)g->n_input;
	pl->outputs = (int64_t)g->n_output;
	for (size_t i = 0; i < g->n_initializer; i++) {
		const OnnxTensor *t = g->initializer[i];
		pl->initializer_bytes += (int64_t)(t->raw_data.len + t->n_float_data * 4 + t->n_int32_data * 4 +
		                                   t->n_int64_data * 8 + t->n_double_data * 8 + t->n_uint64_data * 8);
	}
}

typedef struct OpCount {
	const char *op;
	int64_t n;
} OpCount;

static void
histogram(const Graph *g, StrMap *slot, OpCount **v, int *n, Arena *a)
{
	for (int i = 0; i < g->nnode; i++) {
		const Node *nd = g->nodes[i];
		intptr_t k = (intptr_t)strmap_get(slot, nd->op);
		if (!k) {
			if ((*n & (*n - 1)) == 0) {   /* capacity: powers of two */
				OpCount *nv = ARENA_ARRAY(a, OpCount, *n ? *n * 2 : 1);
				if (*n)
					memcpy(nv, *v, sizeof *nv * (size_t)*n);
				*v = nv;
			}
			(*v)[*n] = (OpCount){nd->op, 0};
			strmap_put(slot, nd->op, (void *)(intptr_t)(k = ++*n));
		}
		(*v)[k - 1].n++;
		for (int j = 0; j < nd->nin; j++)
			if (nd->in[j].arg.kind == ARG_GRAPH && nd->in[j].arg.u.g)
				histogram(nd->in[j].arg.u.g, slot, v, n, a);
	}
}

static int
cmp_op_count(const void *x, const void *y)
{
	const OpCount *a = x, *b = y;

	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return strcmp(a->op, b->op);
}

/* A value as written in the options: a number cell when it is one. */
static void
put_value(Report *r, const char *key, const char *text)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (*text && !*end && !errno && !strpbrk(text, " xXpPnNiI"))
		report_num(r, key, v);
	else
		report_text(r, key, text);
}

static void
fill_extra(Pipeline *pl, double report_start)
{
	Report *r = &pl->report;
	const Program *p = &pl->prog;
	Arena *a = pl->a;
	const char *ver = "";
	OpCount *ops = NULL;
	int nops = 0;
	double total = 0;

	report_text(r, "input", pl->input);
	report_text(r, "output", pl->model ? pl->out : "(not written: the conversion failed)");
	report_text(r, "result", pl->model ? "converted"
	            : arena_printf(a, "failed: %lld node%s not converted", (long long)pl->unsupported,
	                           pl->unsupported == 1 ? "" : "s"));
	report_text(r, "container", p->container);
	report_text(r, "torch_version", p->torch_version);
	report_text(r, "schema_version", arena_printf(a, "%d.%d", p->schema_major, p->schema_minor));
	for (int i = 0; i < p->nverifier; i++)
		ver = arena_printf(a, "%s%s%s (%s)", ver, i ? ", " : "", p->verifiers[i],
		                   strcmp(p->verifiers[i], "ATEN") == 0 ? "core ATen"
		                   : strcmp(p->verifiers[i], "TRAINING") == 0 ? "training IR" : "other");
	report_text(r, "verifiers", p->nverifier ? ver : "none recorded");
	if (p->aten_opset)
		report_num(r, "aten_opset", p->aten_opset);
	report_text(r, "capture_strategy", "torch.export (pt2)");
	for (int i = 0; i < options_count(); i++)
		put_value(r, arena_printf(a, "option:%s", options_key(i)), options_value(&pl->opt, i));
	pl->seconds[PHASE_REPORT] += now() - report_start;
	for (int i = 0; i < PHASE_COUNT; i++) {
		double s = pl->opt.report_timings ? pl->seconds[i] : 0;
		report_num(r, arena_printf(a, "time_%s_seconds", phase_name[i]), s);
		total += s;
	}
	report_num(r, "time_total_seconds", total);
	report_num(r, "aten_nodes", (double)pl->aten_nodes);
	if (pl->model) {
		report_num(r, "onnx_nodes", (double)pl->onnx_nodes);
		report_num(r, "onnx_initializers", (double)pl->initializers);
		report_num(r, "onnx_initializer_bytes", (double)pl->initializer_bytes);
		report_num(r, "onnx_inputs", (double)pl->inputs);
		report_num(r, "onnx_outputs", (double)pl->outputs);
		if (pl->flops >= 0)
			report_num(r, "flops_total", pl->flops);
		else
			report_text(r, "flops_total", "unknown");
		report_num(r, "flops_unknown_nodes", (double)pl->flops_unknown);
	} else {
		report_num(r, "unsupported_nodes", (double)pl->unsupported);
	}
	if (p->graph)
		histogram(p->graph, strmap_new(a, 64), &ops, &nops, a);
	qsort(ops, (size_t)nops, sizeof *ops, cmp_op_count);
	for (int i = 0; i < nops; i++)
		report_num(r, arena_printf(a, "aten_op:%s", ops[i].op), (double)ops[i].n);
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

/* ---- the phases in order ---- */

int
pipeline_run(Pipeline *pl, Diag *d)
{
	double t, report_start = 0;
	int rc = 0, rrc;

	if (!pl->ran[PHASE_READ] && (rc = pipeline_read(pl, d)))
		return rc;
	pl->aten_nodes = pl->prog.graph ? count_ir_nodes(pl->prog.graph) : 0;

	t = now();
	rc = phase_lower(pl, d);
	pl->ran[PHASE_LOWER] = 1;
	pl->seconds[PHASE_LOWER] = now() - t;

	if (!rc) {
		t = now();
		rc = phase_optimize(pl, d);
		pl->ran[PHASE_OPTIMIZE] = 1;
		pl->seconds[PHASE_OPTIMIZE] = now() - t;
		if (!pl->opt.report_timings)
			for (int i = 0; i < pl->report.nstat; i++)
				pl->report.stat[i].time_in = 0;
	}
	if (!rc) {
		count_model(pl);
		report_start = now();
		if (pl->opt.report)
			count_flops(pl);
		pl->seconds[PHASE_REPORT] = now() - report_start;

		t = now();
		rc = onnx_write(pl->a, pl->model, pl->out, pl->opt.external_data_threshold,
		                pl->prog.zip ? &(OnnxSource){pl->prog.zip->fd, pl->prog.zip->base,
		                                             pl->prog.zip->len} : NULL, d);
		pl->ran[PHASE_WRITE] = 1;
		pl->seconds[PHASE_WRITE] = now() - t;
	}
	if ((rc && rc != DIAG_CONVERT) || !pl->opt.report)
		return rc;

	report_start = now();
	pl->ran[PHASE_REPORT] = 1;
	fill_extra(pl, report_start);
	t = now();
	pl->report_path = pipeline_report_path(pl->a, pl->out);
	if ((rrc = report_write(&pl->report, pl->report_path, d)))
		pl->report_path = NULL;
	pl->seconds[PHASE_REPORT] += now() - t;
	return rrc > rc ? rrc : rc;
}

/* ---- summary helpers ---- */

static int
cmp_stat_pattern(const void *x, const void *y)
{
	return strcmp(((const ReportStat *)x)->pattern, ((const ReportStat *)y)->pattern);
}

static int
cmp_stat_removed(const void *x, const void *y)
{
	const ReportStat *a = x, *b = y;

	if (a->removed != b->removed)
		return a->removed > b->removed ? -1 : 1;
	return strcmp(a->pattern, b->pattern);
}

int
pipeline_top_patterns(const Pipeline *pl, ReportStat *top, int k)
{
	const Report *r = &pl->report;
	ReportStat *s = ARENA_ARRAY(pl->a, ReportStat, r->nstat + 1);
	int n = 0;

	for (int i = 0; i < r->nstat; i++) {
		s[i] = r->stat[i];
		if (!s[i].pattern)
			s[i].pattern = "";
	}
	qsort(s, (size_t)r->nstat, sizeof *s, cmp_stat_pattern);
	for (int i = 0; i < r->nstat; i++) {
		if (n && strcmp(s[n - 1].pattern, s[i].pattern) == 0) {
			s[n - 1].removed += s[i].removed;
			s[n - 1].added += s[i].added;
			s[n - 1].instances += s[i].instances;
			s[n - 1].time_in += s[i].time_in;
		} else {
			s[n++] = s[i];
		}
	}
	qsort(s, (size_t)n, sizeof *s, cmp_stat_removed);
	n = n < k ? n : k;
	memcpy(top, s, sizeof *s * (size_t)n);
	return n;
}
