/* pipeline.c: the conversion as a list of timed phases (see pipeline.h),
 * and the Report's facts: the `extra` rows, node_stats and symbolic_flops
 * (through flops.c), and the `unsupported` rows when lowering failed.
 *
 * The FLOPs are counted before the ONNX file is written, because writing
 * may move initializers to external data, and the counts read small int64
 * initializers (shapes).  That time is charged to the report phase. */
#include "pipeline/pipeline.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pipeline/internal.h"
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
	pl->strategy = "torch.export (pt2)";
	pl->bundle.zip.fd = -1;
	pl->onnx.source.fd = -1;
	pl->verify_seconds = -1;
}

void
pipeline_close(Pipeline *pl)
{
	pt2_close(&pl->prog);
	zip_close(&pl->bundle.zip);   /* the input zip, .pt2 or bundle; a no-op otherwise */
	onnx_input_close(&pl->onnx);
	verify_close(pl->ort);
	pl->ort = NULL;
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

/* 1 when path looks like an ONNX model: named .onnx, or starting with
 * ModelProto's first field (ir_version, tag 0x08) where a zip has "PK". */
static int
onnx_sniff(const char *path)
{
	size_t n = strlen(path);
	unsigned char c = 0;
	char why[160];
	uint64_t size;
	int fd;

	if (n > 5 && strcmp(path + n - 5, ".onnx") == 0)
		return 1;
	if ((fd = file_open(path, 0, &size, why, sizeof why)) < 0)
		return 0;   /* the reader that follows says why */
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == 0x08;
}

/* The dynamic dims `inputs:` names become dim_params under those names:
 * each name's first axis is a dynamic_dimensions request (unless the
 * options already name that axis). */
static void
ts_dim_requests(Pipeline *pl)
{
	Options *o = &pl->opt;
	const TsInputs *in = &o->inputs;
	int n = o->ndim_request, cap = n;
	DimRequest *r;

	for (int i = 0; i < in->n; i++)
		cap += in->in[i].rank;
	r = ARENA_ARRAY(pl->a, DimRequest, cap + 1);
	if (n)
		memcpy(r, o->dim_requests, sizeof *r * (size_t)n);
	for (int i = 0; i < in->n && i < pl->prog.nforward_arg; i++) {
		const TsInput *t = &in->in[i];
		const char *arg = t->name ? t->name : pl->prog.forward_arg_names[i];
		for (int k = 0; k < t->rank; k++) {
			int seen = 0;
			if (!t->names || !t->names[k])
				continue;
			for (int j = 0; j < n && !seen; j++)
				seen = strcmp(r[j].name, t->names[k]) == 0 ||
				       (strcmp(r[j].input, arg) == 0 && r[j].axis == k);
			if (seen)
				continue;
			r[n].input = arg;
			r[n].axis = k;
			r[n].name = t->names[k];
			r[n].line = t->line;
			r[n].col = t->col;
			n++;
		}
	}
	o->dim_requests = r;
	o->ndim_request = n;
}

/* A text graph, an ONNX model, a capture bundle or a .pt2, told apart by
 * content (a bundle is a zip holding capture.json). */
static int
read_input(Pipeline *pl, Diag *d)
{
	if (irtext_sniff(pl->input)) {
		pl->kind = INPUT_TEXT;
		return irtext_load(&pl->prog, pl->input, d);
	}
	if (onnx_sniff(pl->input)) {
		int rc;
		pl->kind = INPUT_ONNX;
		pl->strategy = "onnx";
		rc = onnx_read_file(&pl->onnx, pl->a, pl->input, d);
		pl->model = rc ? NULL : pl->onnx.model;
		return rc;
	}
	/* one mapping for either zip: a bundle, or a .pt2 read in place */
	diag_input(d, pl->input);
	if (zip_open(&pl->bundle.zip, pl->input, pl->a, d))
		return DIAG_INPUT;
	if (bundle_sniff(&pl->bundle.zip)) {
		pl->kind = INPUT_BUNDLE;
		return bundle_read(&pl->bundle, pl->a, d);
	}
	if (ts_sniff(&pl->bundle.zip)) {
		TsInputs ti = pl->opt.inputs;
		IrTyper ty;
		int rc;
		pl->kind = INPUT_TS;
		pl->strategy = "jit";
		lower_typer_init(&ty, pl->opt.opset);  /* types what meta.def has no rule for */
		ti.typer = &ty;
		rc = ts_load(&pl->prog, &pl->bundle.zip, &ti, d);
		if (!rc)
			ts_dim_requests(pl);
		return rc;
	}
	pl->kind = INPUT_PT2;
	return pt2_load_mem(&pl->prog, pl->input, pl->bundle.zip.base, pl->bundle.zip.len, pl->bundle.zip.fd, d);
}

typedef struct Guarded {
	Pipeline *pl;
	Diag *d;
} Guarded;

static int
read_guarded(void *ctx)
{
	Guarded *g = ctx;
	return read_input(g->pl, g->d);
}

int
pipeline_read(Pipeline *pl, Diag *d)
{
	double t = pipeline_now();
	int rc = pl->options ? options_load(&pl->opt, pl->a, pl->options, d) : 0;
	const char *faulted = NULL;

	if (!rc && (rc = mapguard_run(read_guarded, &(Guarded){pl, d}, &faulted)) < 0)
		rc = mapguard_report(d, faulted);
	pl->ran[PHASE_READ] = 1;
	pl->seconds[PHASE_READ] = pipeline_now() - t;
	pipeline_peak(pl, PHASE_READ);
	return rc;
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

	/* a bundle's example inputs first: an ONNX capture has no samples */
	if (pl->kind == INPUT_BUNDLE && pl->bundle.ninput == (int)g->n_input)
		for (size_t i = 0; i < g->n_input; i++)
			flops_bind_shape(f, g->input[i], pl->bundle.inputs[i].rank, pl->bundle.inputs[i].shape);
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

/* The written model's IR version, its ai.onnx opset and the external data
 * file its initializers went to ("none" when all are inside). */
static void
fill_model_facts(Report *r, const Onnx__ModelProto *m)
{
	const char *data = "none";
	int64_t opset = 0;

	report_num(r, "onnx_ir_version", (double)m->ir_version);
	for (size_t i = 0; i < m->n_opset_import; i++)
		if (!m->opset_import[i]->domain || !*m->opset_import[i]->domain ||
		    strcmp(m->opset_import[i]->domain, "ai.onnx") == 0)
			opset = m->opset_import[i]->version;
	report_num(r, "onnx_opset", (double)opset);
	for (size_t i = 0; m->graph && i < m->graph->n_initializer && !strcmp(data, "none"); i++) {
		const Onnx__TensorProto *t = m->graph->initializer[i];
		if (t->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
			continue;
		for (size_t k = 0; k < t->n_external_data; k++)
			if (strcmp(t->external_data[k]->key, "location") == 0)
				data = t->external_data[k]->value;
	}
	report_text(r, "onnx_external_data", data);
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
	if (pl->kind == INPUT_BUNDLE) {
		const Bundle *b = &pl->bundle;
		report_text(r, "bundle_format_version", arena_printf(a, "%d", b->version));
		report_text(r, "bundle_torch_version", b->torch_version ? b->torch_version : "not recorded");
		report_text(r, "bundle_transformers_version",
		            b->transformers_version ? b->transformers_version : "not recorded");
		report_text(r, "bundle_model_class", b->model_class ? b->model_class : "not recorded");
	}
	if (p->graph) {
		report_text(r, "container", p->container);
		report_text(r, "torch_version", p->torch_version);
		if (p->torchscript_format) {
			report_num(r, "torchscript_format_version", (double)p->torchscript_format);
			report_text(r, "producer", p->producer);
		} else {
			report_text(r, "schema_version", arena_printf(a, "%d.%d", p->schema_major, p->schema_minor));
		}
		for (int i = 0; i < p->nverifier; i++)
			ver = arena_printf(a, "%s%s%s (%s)", ver, i ? ", " : "", p->verifiers[i],
			                   strcmp(p->verifiers[i], "ATEN") == 0 ? "core ATen"
			                   : strcmp(p->verifiers[i], "TRAINING") == 0 ? "training IR" : "other");
		report_text(r, "verifiers", p->nverifier ? ver : "none recorded");
		if (p->aten_opset)
			report_num(r, "aten_opset", p->aten_opset);
	} else if (pl->model) {
		const Onnx__ModelProto *m = pl->model;
		report_text(r, "container", arena_printf(a, "ONNX model (IR version %lld)", (long long)m->ir_version));
		report_text(r, "producer", arena_printf(a, "%s %s", m->producer_name ? m->producer_name : "",
		                                        m->producer_version ? m->producer_version : ""));
		if (pl->upgrade.from) {
			report_num(r, "input_opset", pl->upgrade.from);
			report_text(r, "opset_upgrade", pl->upgrade.from < pl->upgrade.to
			            ? arena_printf(a, "%d to %d: %d nodes rewritten (%s)", pl->upgrade.from,
			                           pl->upgrade.to, pl->upgrade.nodes, onnx_upgrade_summary(a, &pl->upgrade))
			            : "none (already at the target opset)");
		}
	}
	report_text(r, "capture_strategy", pl->strategy);
	if (pl->winner) {
		const PipelineStrategy *w = pl->winner;
		report_num(r, "onnx_export_options_strict", w->strict);
		report_text(r, "onnx_export_options_decomp", w->decomp);
		report_num(r, "onnx_export_options_tracing", w->tracing);
		report_num(r, "onnx_export_options_jit", w->jit);
		report_num(r, "onnx_export_options_dynamo", w->dynamo);
	}
	for (int i = 0; i < options_count(); i++)
		put_value(r, arena_printf(a, "option:%s", options_key(i)), options_value(&pl->opt, i));
	pl->seconds[PHASE_REPORT] += pipeline_now() - report_start;
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
		fill_model_facts(r, pl->model);
		if (pl->flops >= 0)
			report_num(r, "flops_total", pl->flops);
		else
			report_text(r, "flops_total", "unknown");
		report_num(r, "flops_unknown_nodes", (double)pl->flops_unknown);
	} else {
		report_num(r, "unsupported_nodes", (double)pl->unsupported);
	}
	if (pl->verify_seconds >= 0) {
		report_num(r, "verified", pl->verified.nrow && pl->verified.worst < 0 ? 1 : 0);
		report_num(r, "n_discrepancies", pl->verified.nbad);
		report_num(r, "verify_seconds", pl->opt.report_timings ? pl->verify_seconds : 0);
		report_text(r, "verify_inputs", pl->verify_from);
		report_text(r, "onnxruntime_version", verify_ort_version(pl->ort));
	}
	if (p->graph)
		histogram(p->graph, strmap_new(a, 64), &ops, &nops, a);
	if (nops)
		qsort(ops, (size_t)nops, sizeof *ops, cmp_op_count);
	for (int i = 0; i < nops; i++)
		report_num(r, arena_printf(a, "aten_op:%s", ops[i].op), (double)ops[i].n);
	/* the custom operators: how each was written, and how many nodes */
	for (int i = 0; i < nops; i++) {
		const char *form = lower_custom_form(options_lower(&pl->opt, &(LowerOptions){0}), ops[i].op);
		if (form)
			report_text(r, arena_printf(a, "custom_op:%s", ops[i].op),
			            arena_printf(a, "%s, %d node%s", form, (int)ops[i].n, ops[i].n == 1 ? "" : "s"));
	}
}

/* ---- the phases in order ---- */

/* The one row of the captures sheet of an input that is a single capture. */
static void
single_capture(Pipeline *pl, int rc, const Diag *d, int from, double seconds)
{
	const char *converted = "yes";

	for (int i = from; rc && i < d->n; i++)
		if (diag_info(d->items[i].code)->severity == DIAG_SEV_ERROR) {
			size_t n = diag_format(&d->items[i], NULL, 0);
			char *text = arena_alloc(pl->a, n + 1);
			diag_format(&d->items[i], text, n + 1);
			converted = text;
			break;
		}
	report_capture(&pl->report, &(ReportCapture){pl->strategy, "yes", converted,
	               rc ? -1 : (int64_t)pl->model->graph->n_node, -1,
	               pl->opt.report_timings ? seconds : 0});
}

/* Commits the files written (the ONNX model, its .data, the report) in
 * one batch; a failure names the file, as the write that made it would. */
static int
commit(Pipeline *pl, Durable *out, Diag *d)
{
	const char *failed = NULL;
	double t = pipeline_now();
	int err = durable_commit(out, &failed);

	pl->seconds[PHASE_WRITE] += pipeline_now() - t;
	if (!err)
		return 0;
	if (pl->report_path && strcmp(failed, pl->report_path) == 0) {
		pl->report_path = NULL;
		return diag_report(d, YE_REPORT_WRITE, &(DiagAt){.file = failed},
			"cannot write the report (%s)", strerror(err));
	}
	pl->report_path = NULL;
	return diag_report(d, YE_WRITE_FAILED, &(DiagAt){.file = failed}, "cannot write: %s", strerror(err));
}

/* The report's thread.  Started as soon as the options are read, it
 * loads libxlsxwriter while the conversion runs, then waits until the
 * Report is complete (report_release()) and writes the workbook into a
 * Durable of its own, reporting into a Diag of its own, while this thread
 * streams the ONNX files and waits for the disk; report_collect() joins
 * it and hands both over.  It reads the Report and the strings it points
 * at, never the arena (the writer has its own), so the two threads share
 * nothing mutable.  Without timings or --verify the Report is complete
 * before the weights stream (the model's facts are known once the write
 * is planned), so the workbook overlaps the whole write. */
typedef struct ReportJob {
	Pipeline *pl;
	Durable rep;
	Diag d;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int running;    /* the thread was started and not joined */
	int collected;  /* report_collect() took its file */
	int go;         /* 0: wait; 1: write the workbook; -1: nothing to write */
	int rc;
} ReportJob;

static void *
report_job(void *arg)
{
	ReportJob *j = arg;
	const char *why;
	int go;

	(void)report_load(&why);   /* a failure shows in report_write_to() */
	pthread_mutex_lock(&j->mu);
	while (!j->go)
		pthread_cond_wait(&j->cv, &j->mu);
	go = j->go;
	pthread_mutex_unlock(&j->mu);
	if (go > 0)
		j->rc = report_write_to(&j->pl->report, &j->rep, j->pl->report_path, &j->d);
	return NULL;
}

static void
report_start(ReportJob *j, Pipeline *pl)
{
	memset(j, 0, sizeof *j);
	j->pl = pl;
	durable_init(&j->rep);
	pthread_mutex_init(&j->mu, NULL);
	pthread_cond_init(&j->cv, NULL);
	j->running = pl->opt.report && pthread_create(&j->th, NULL, report_job, j) == 0;
}

/* Lets the thread write the workbook (go 1) or end (-1); the first call wins. */
static void
report_release(ReportJob *j, int go)
{
	pthread_mutex_lock(&j->mu);
	if (!j->go)
		j->go = go;
	pthread_cond_signal(&j->cv);
	pthread_mutex_unlock(&j->mu);
}

/* Waits for the workbook (written here when no thread could be started)
 * and moves its file into out and its diagnostics into d. */
static int
report_collect(ReportJob *j, Durable *out, Diag *d)
{
	if (j->running) {
		pthread_join(j->th, NULL);
		j->running = 0;
	} else if (j->go > 0) {
		j->rc = report_write_to(&j->pl->report, &j->rep, j->pl->report_path, &j->d);
	}
	j->go = -1;
	j->collected = 1;
	durable_join(out, &j->rep);
	diag_move(d, &j->d);
	return j->rc;
}

/* The end of every run, also one a fault cut short: a report not
 * collected is stopped and its file removed. */
static void
report_end(ReportJob *j)
{
	report_release(j, -1);
	if (j->running)
		pthread_join(j->th, NULL);
	j->running = 0;
	durable_abort(&j->rep);
	diag_free(&j->d);
	if (!j->collected)
		j->pl->report_path = NULL;   /* no report was written */
	pthread_cond_destroy(&j->cv);
	pthread_mutex_destroy(&j->mu);
}

/* --expect-signature: the golden file read and compared with s. */
static int
expect_signature(Pipeline *pl, const Signature *s, Diag *d)
{
	const char *path = pl->signature_expect;
	size_t len;
	char why[160];
	char *text = file_slurp(pl->a, path, SIGNATURE_MAX_BYTES, &len, why, sizeof why);
	const Signature *old;

	if (!text)
		return diag_report(d, YE_SIGNATURE_UNREADABLE, &(DiagAt){.file = path}, "cannot read: %s", why);
	if (!(old = signature_parse(pl->a, path, text, len, d)))
		return DIAG_INPUT;
	pl->signature_changes = signature_compare(old, s, pl->opt.signature_allow, path, d);
	return pl->signature_changes ? DIAG_CONVERT : 0;
}

/* The model's interface: the report's signature sheet, --signature's file
 * (joining out, so it is committed with the model) and --expect-signature's
 * comparison.  Returns 0, DIAG_CONVERT (a difference) or DIAG_INPUT. */
static int
signature_step(Pipeline *pl, Durable *out, Diag *d)
{
	const Signature *s;
	char *text;
	size_t len;
	int err;

	if (!pl->signature_out && !pl->signature_expect) {
		SigAxis *ax;
		int n = pl->opt.report ? signature_axes(pl, &ax) : 0;
		for (int i = 0; i < n; i++)
			report_axis(&pl->report, &ax[i]);
		return 0;
	}
	s = signature_build(pl);
	for (int i = 0; pl->opt.report && i < s->naxis; i++)
		report_axis(&pl->report, &s->axis[i]);
	if (pl->signature_out) {
		text = signature_json(s, &len);
		err = durable_write(out, pl->signature_out, text, len);
		free(text);
		if (err)
			return diag_report(d, YE_WRITE_FAILED, &(DiagAt){.file = pl->signature_out}, "cannot write: %s",
			                   strerror(err));
	}
	return pl->signature_expect ? expect_signature(pl, s, d) : 0;
}

/* The Report's last rows, then the report thread let go. */
static void
report_ready(Pipeline *pl, ReportJob *j)
{
	double t = pipeline_now();

	pl->ran[PHASE_REPORT] = 1;
	fill_extra(pl, t);
	pl->report_path = pipeline_report_path(pl->a, pl->out);
	report_release(j, 1);
}

/* The ONNX files, planned (and, when nothing later changes the report,
 * the report let go), then streamed into out. */
static int
write_onnx(Pipeline *pl, ReportJob *j, int early, Durable *out, Diag *d)
{
	const Zip *z = pl->kind == INPUT_BUNDLE ? &pl->bundle.zip : pl->prog.zip;
	const OnnxSource *src = pl->onnx.source.fd >= 0 && pl->model == pl->onnx.model
	                        ? &pl->onnx.source
	                        : z ? &(OnnxSource){z->fd, z->base, z->len} : NULL;
	const char *ref = NULL;
	OnnxWrite *w;
	double t0 = pipeline_now();
	int rc;

	if (pl->opt.external_reference) {
		const char *slash = strrchr(pl->input, '/');
		ref = slash ? slash + 1 : pl->input;
	}
	rc = onnx_write_plan(pl->a, pl->model, pl->out, pl->opt.external_data_threshold, ref, src, &w, d);
	pl->ran[PHASE_WRITE] = 1;
	if (!rc && early)
		report_ready(pl, j);
	if (!rc)
		rc = onnx_write_stream(w, out, d);
	pl->seconds[PHASE_WRITE] = pipeline_now() - t0;
	pipeline_peak(pl, PHASE_WRITE);
	return rc;
}

/* Every phase after reading, writing into pl->files. */
static int
run_phases(Pipeline *pl, ReportJob *j, Diag *d)
{
	double t, report_start = 0;
	int rc = 0, rrc, crc, from, sgrc = 0, vrc = 0;
	/* the report is complete before the write unless it holds the
	 * write's time or --verify's results */
	int early = pl->opt.report && !pl->ort && !pl->opt.report_timings;
	Durable *out = &pl->files;

	from = d->n;
	t = pipeline_now();
	if (pl->kind == INPUT_BUNDLE) {
		rc = pipeline_convert_bundle(pl, d);
	} else {
		if (pl->kind == INPUT_ONNX)
			rc = pipeline_onnx_opset(pl, pl->input, d);
		if (!rc)
			rc = pipeline_convert(pl, d);
		single_capture(pl, rc, d, from, pipeline_now() - t);
	}

	if (!rc) {
		count_model(pl);
		report_start = pipeline_now();
		if (pl->opt.report)
			count_flops(pl);
		pl->seconds[PHASE_REPORT] = pipeline_now() - report_start;
		/* the signature's files and rows first: the report may be let go
		 * before the weights stream */
		sgrc = signature_step(pl, out, d);
		if (sgrc != DIAG_INPUT)
			rc = write_onnx(pl, j, early, out, d);
	}
	/* exit status 2 writes nothing: not the model, not the report */
	if (rc == DIAG_INPUT || sgrc == DIAG_INPUT || ((rc || sgrc) && d->code == DIAG_INPUT)) {
		durable_abort(out);
		return DIAG_INPUT;
	}
	if (!rc && pl->ort) {
		/* onnxruntime reads the model from disk: pipeline_verify() commits
		 * it once the inputs are ready, and the report (written after)
		 * joins a new batch */
		if ((crc = mapguard_report(d, NULL))) {
			durable_abort(out);
			return crc;
		}
		vrc = pipeline_verify(pl, commit, out, d);
		if (out->n || vrc == DIAG_INPUT) {   /* the inputs could not be had: nothing committed */
			durable_abort(out);
			return vrc;
		}
		durable_init(out);
	}
	if (!pl->opt.report && (crc = mapguard_report(d, NULL))) {
		durable_abort(out);   /* a rewrite in place, seen before anything is renamed */
		return crc;
	}
	if ((rc && rc != DIAG_CONVERT) || !pl->opt.report) {
		crc = commit(pl, out, d);
		crc = crc > sgrc ? crc : sgrc;
		crc = crc > rc ? crc : rc;
		return crc > vrc ? crc : vrc;
	}

	/* the disk takes the ONNX files while the report is finished */
	t = pipeline_now();
	if (!j->go)
		report_ready(pl, j);
	(void)durable_sync(out);   /* an error shows again in commit() */
	if ((rrc = report_collect(j, out, d)))
		pl->report_path = NULL;
	pl->seconds[PHASE_REPORT] += pipeline_now() - t;
	pipeline_peak(pl, PHASE_REPORT);
	if ((crc = mapguard_report(d, NULL)) || (crc = rrc == DIAG_INPUT ? rrc : 0)) {
		durable_abort(out);   /* exit status 2 (the report cannot be made): nothing */
		pl->report_path = NULL;
		return crc;
	}
	crc = commit(pl, out, d);
	rrc = crc > rrc ? crc : rrc;
	rrc = sgrc > rrc ? sgrc : rrc;
	rrc = rrc > vrc ? rrc : vrc;
	return rrc > rc ? rrc : rc;
}

typedef struct Phases {
	Pipeline *pl;
	ReportJob *job;
	Diag *d;
} Phases;

static int
run_guarded(void *ctx)
{
	Phases *g = ctx;
	return run_phases(g->pl, g->job, g->d);
}

/* external_data: reference, refused by name where it cannot hold, before
 * anything is converted. */
static int
check_reference(Pipeline *pl, Diag *d)
{
	const char *why = NULL;
	const Zip *z = &pl->bundle.zip;

	if (!pl->opt.external_reference)
		return 0;
	if (pl->kind != INPUT_PT2)
		why = "the input is not a .pt2 (a TorchScript archive, a bundle, an ONNX model or a text graph has "
		      "no weights the model could point into)";
	else if (!durable_same_dir(pl->input, pl->out))
		why = arena_printf(pl->a, "the output '%s' is not in the folder of the input '%s' (the model names the "
		                   ".pt2 by its file name, beside it)", pl->out, pl->input);
	else if (z->fd < 0 || !z->base)
		why = "the input is not a mapped file";
	for (int i = 0; !why && i < z->n; i++)
		if (z->ent[i].method != 0 && strncmp(z->ent[i].rel, "data/", 5) == 0)
			why = arena_printf(pl->a, "the entry '%s' is deflated, not stored: its bytes are not in the file "
			                   "as the model needs them", z->ent[i].name);
	if (!why)
		return 0;
	return diag_report(d, YE_EXTERNAL_REFERENCE, &(DiagAt){.file = pl->options ? pl->options : pl->input},
	                   "external_data: reference: %s; use external_data: file", why);
}

/* A mapped input that shrinks under a phase (SIGBUS) ends the run with a
 * named error, and the files begun are removed. */
int
pipeline_run(Pipeline *pl, Diag *d)
{
	const char *faulted = NULL;
	ReportJob job;
	int rc;

	if (!pl->ran[PHASE_READ] && (rc = pipeline_read(pl, d)))
		return rc;
	/* --verify: onnxruntime is loaded before anything is converted, so a
	 * missing library fails at once (exit status 2) */
	if ((pl->verify || pl->opt.verify) && (rc = verify_open(&pl->ort, pl->a, pl->opt.onnxruntime_library,
	                                                        pl->options ? pl->options : pl->input, d)))
		return rc;
	if ((rc = check_reference(pl, d)))
		return rc;
	durable_init(&pl->files);
	report_start(&job, pl);
	rc = mapguard_run(run_guarded, &(Phases){pl, &job, d}, &faulted);
	report_end(&job);
	if (rc >= 0)
		return rc;
	durable_abort(&pl->files);
	pl->report_path = NULL;
	return mapguard_report(d, faulted);
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
