/* verify.c: verify_run(): the written model against torch's numbers.
 *
 * First the file as written: one session, one run on the job's inputs,
 * every graph output compared (compare.c).  Then, when module outputs are
 * mapped, the copy: the written file read back (its external data mapped
 * and inlined), the module values added as graph outputs, packed into
 * memory and run in a second session; each module's outputs compared in
 * execution order.  The file on disk is never changed.  Whether the
 * model verifies is the outputs' verdict; the module rows say where a
 * difference starts. */
#include "verify/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnx.pb-c.h"

/* protobuf's limit: a copy that would pass it is not made. */
#define COPY_LIMIT ((size_t)INT32_MAX)

static VerifyRow *
new_row(Arena *a, VerifyResult *res, int cap)
{
	if (!res->rows)
		res->rows = ARENA_ARRAY(a, VerifyRow, cap + 1);
	memset(&res->rows[res->nrow], 0, sizeof *res->rows);
	return &res->rows[res->nrow++];
}

static int
run_failed(Diag *d, const VerifyJob *job, const char *what, const char *msg)
{
	return diag_report(d, YE_VERIFY_RUN_FAILED, &(DiagAt){.file = job->model},
	                   "onnxruntime cannot %s the written model: %s (the model is written, for inspection)",
	                   what, msg);
}

/* The graph outputs of the file as written. */
static int
check_outputs(VerifyOrt *o, Arena *a, const VerifyJob *job, VerifyResult *res, int cap, Diag *d)
{
	VerifyTensor *got = ARENA_ARRAY(a, VerifyTensor, job->noutput + 1);
	OrtSession *s;
	const char *err = ort_session(o, a, job->model, NULL, 0, &s);
	double worst = -1;

	if (err)
		return run_failed(d, job, "load", err);
	for (int i = 0; i < job->noutput; i++)
		got[i].name = job->outputs[i].name;
	err = ort_run(o, a, s, job->ninput, job->inputs, job->noutput, got);
	ort_session_close(o, s);
	if (err)
		return run_failed(d, job, "run", err);
	for (int i = 0; i < job->noutput; i++) {
		VerifyRow *r = new_row(a, res, cap);
		double score;
		r->kind = "output";
		r->name = job->outputs[i].name;
		if (job->outputs[i].data)
			res->outputs_compared++;
		if (verify_compare(a, &got[i], &job->outputs[i], job->tolerance, job->nan_allowed, r))
			continue;
		res->nbad++;
		score = r->problem ? INFINITY : r->tol > 0 ? r->max_abs / r->tol : r->max_abs;
		if (score > worst)
			worst = score, res->worst = res->nrow - 1;
	}
	return 0;
}

/* The written model with the module values as extra outputs, packed
 * (malloc'ed, *len bytes), or NULL with *why. */
static uint8_t *
copy_with_outputs(Arena *a, const VerifyJob *job, const char **names, int n, size_t *len,
                  const char **why)
{
	OnnxInput in = {0};
	Diag d = {0};
	Onnx__GraphProto *g;
	Onnx__ValueInfoProto **outs;
	uint8_t *buf = NULL;

	in.source.fd = -1;
	if (onnx_read_file(&in, a, job->model, &d)) {
		*why = "the written model cannot be read back";
		onnx_input_close(&in);
		return NULL;
	}
	g = in.model->graph;
	outs = ARENA_ARRAY(a, Onnx__ValueInfoProto *, g->n_output + (size_t)n + 1);
	memcpy(outs, g->output, sizeof *outs * g->n_output);
	for (int i = 0; i < n; i++) {
		Onnx__ValueInfoProto *vi = arena_alloc(a, sizeof *vi);
		onnx__value_info_proto__init(vi);
		vi->name = (char *)names[i];
		for (size_t k = 0; k < g->n_value_info; k++)
			if (strcmp(g->value_info[k]->name, names[i]) == 0)
				vi->type = g->value_info[k]->type;
		outs[g->n_output + (size_t)i] = vi;
	}
	g->output = outs;
	g->n_output += (size_t)n;
	*len = protobuf_c_message_get_packed_size(&in.model->base);
	if (*len > COPY_LIMIT)
		*why = "the model with its weights is over protobuf's 2 GB, too large for the in-memory copy";
	else if (!(buf = malloc(*len ? *len : 1)))
		*why = "no memory for the copy";
	else
		protobuf_c_message_pack(&in.model->base, buf);
	onnx_input_close(&in);
	diag_free(&d);
	return buf;
}

/* The module values to add, each once, skipping the graph's own outputs;
 * *n set. */
static const char **
module_names(Arena *a, const VerifyJob *job, int *n)
{
	StrMap *seen = strmap_new(a, 64);
	int cap = 0, k = 0;
	const char **v;

	for (int i = 0; i < job->nmodule; i++)
		cap += job->modules[i].nout;
	v = ARENA_ARRAY(a, const char *, cap + 1);
	for (int i = 0; i < job->noutput; i++)
		strmap_put(seen, job->outputs[i].name, (void *)1);
	for (int i = 0; i < job->nmodule; i++)
		for (int j = 0; j < job->modules[i].nout; j++) {
			const char *name = job->modules[i].out[j].name;
			if (!strmap_get(seen, name)) {
				strmap_put(seen, name, (void *)1);
				v[k++] = name;
			}
		}
	*n = k;
	return v;
}

/* Runs the copy and compares every module's outputs; a failure to make or
 * run the copy skips the modules (res->skipped_why says why). */
static void
check_modules(VerifyOrt *o, Arena *a, const VerifyJob *job, VerifyResult *res, int cap)
{
	int n, nall;
	const char **names = module_names(a, job, &n), *err = NULL, **all;
	size_t len = 0;
	uint8_t *buf = copy_with_outputs(a, job, names, n, &len, &err);
	VerifyTensor *got;
	OrtSession *s = NULL;
	StrMap *at;

	if (buf && !(err = ort_session(o, a, NULL, buf, len, &s))) {
		nall = job->noutput + n;
		all = ARENA_ARRAY(a, const char *, nall + 1);
		got = ARENA_ARRAY(a, VerifyTensor, nall + 1);
		at = strmap_new(a, 2 * nall + 16);
		for (int i = 0; i < nall; i++) {
			all[i] = i < job->noutput ? job->outputs[i].name : names[i - job->noutput];
			got[i].name = all[i];
			strmap_put(at, all[i], &got[i]);
		}
		err = ort_run(o, a, s, job->ninput, job->inputs, nall, got);
		for (int i = 0; i < job->nmodule && !err; i++) {
			const VerifyModule *m = &job->modules[i];
			int bad = 0;
			for (int j = 0; j < m->nout; j++) {
				VerifyRow *r = new_row(a, res, cap);
				r->kind = "module";
				r->name = m->nout == 1 ? m->name : arena_printf(a, "%s:%d", m->name, j);
				r->cls = m->cls;
				if (!verify_compare(a, strmap_get(at, m->out[j].name), &m->out[j], job->tolerance, 0, r))
					bad = 1, res->nbad++;
			}
			res->modules_compared++;
			if (bad && res->first_module < 0)
				res->first_module = res->nrow - m->nout, res->module = m;
		}
	}
	ort_session_close(o, s);
	free(buf);
	if (err) {
		res->modules_skipped += job->nmodule;
		res->skipped_why = arena_printf(a, "the verification copy: %s", err);
	}
}

static const char *
module_words(Arena *a, const VerifyResult *res)
{
	const VerifyModule *m = res->module;

	if (!m)
		return res->modules_compared
		       ? "; every recorded module output matches (the difference arises in the root module's own code)"
		       : "";
	return arena_printf(a, "; the first module whose outputs diverge is '%s' (%s)%s%s", m->name,
	                    m->cls ? m->cls : "?", m->frame ? ", at " : "", m->frame ? m->frame : "");
}

int
verify_run(VerifyOrt *o, Arena *a, const VerifyJob *job, VerifyResult *res, Diag *d)
{
	int cap = job->noutput, rc, failed_outputs;
	const VerifyRow *w;

	memset(res, 0, sizeof *res);
	res->worst = res->first_module = -1;
	for (int i = 0; i < job->nmodule; i++)
		cap += job->modules[i].nout;
	if ((rc = check_outputs(o, a, job, res, cap, d)))
		return rc;
	res->noutput = res->nrow;
	failed_outputs = res->nbad;
	if (job->nmodule)
		check_modules(o, a, job, res, cap);
	if (!failed_outputs)
		return 0;
	w = &res->rows[res->worst];
	rc = diag_report(d, YE_VERIFY_MISMATCH, &(DiagAt){.file = job->model},
	                 "%d of %d output%s differ%s from torch's; the worst is '%s': %s%s (the model is "
	                 "written, for inspection)",
	                 failed_outputs, job->noutput, job->noutput == 1 ? "" : "s", failed_outputs == 1 ? "s" : "",
	                 w->name,
	                 w->problem ? w->problem
	                 : arena_printf(a, "max abs error %.6g, tolerance %.6g", w->max_abs, w->tol),
	                 module_words(a, res));
	if (res->module)
		diag_report(d, YE_VERIFY_MODULE, &(DiagAt){.file = job->label, .frame = res->module->frame},
		            "first divergent module: '%s' (%s)", res->module->name,
		            res->module->cls ? res->module->cls : "?");
	return rc;
}
