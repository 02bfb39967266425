/* capture.c: choosing among the captures of a bundle (docs/capture.md).
 *
 * The strategies are the rows of strategy.def.  The order to try comes
 * from the options (`strategy`, `fallback`).  Each capture in turn is
 * read from its stored entry, lowered and optimized with a Diag and a
 * Report of its own; it converts when that succeeds and the model's
 * outputs have the dtypes and shapes of torch's eager outputs in the
 * bundle.  The first that converts is the pipeline's program and model;
 * every try is a row of the report's captures sheet.  When none converts,
 * one note per try says why and an error closes the list. */
#include "pipeline/pipeline.h"

#include <stdio.h>
#include <string.h>

#include "pipeline/internal.h"
#include "lower/lower.h"
#include "opt/opt.h"
#include "read/read.h"
#include "sym/sym.h"
#include "core/core.h"

/* The strategies to try, in order: the named strategy (if any), then the
 * fallback list (given, or the default order under auto); each once. */
static int
order(const Options *o, const char **out)
{
	int n = 0;

	if (o->strategy)
		out[n++] = o->strategy;
	if (o->has_fallback) {
		for (int i = 0; i < o->nfallback; i++)
			if (!o->strategy || strcmp(o->fallback[i], o->strategy) != 0)
				out[n++] = o->fallback[i];
	} else if (!o->strategy) {
		for (int i = 0; i < pipeline_strategy_count(); i++)
			out[n++] = pipeline_strategies[i].name;
	}
	return n;
}

/* ---- the output check ---- */

int
pipeline_dim_lookup(void *ctx, const char *name, int64_t *v)
{
	const Bindings *b = ctx;

	for (int i = 0; i < b->n; i++)
		if (strcmp(b->name[i], name) == 0)
			return *v = b->v[i], 1;
	return 0;
}

const Onnx__TensorShapeProto *
pipeline_tensor_shape(const Onnx__ValueInfoProto *vi, int *elem)
{
	const Onnx__TypeProto *t = vi->type;

	*elem = 0;
	if (!t || t->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !t->tensor_type)
		return NULL;
	*elem = t->tensor_type->elem_type;
	return t->tensor_type->shape;
}

void
pipeline_bind_dims(Bindings *b, const Onnx__ValueInfoProto *vi, int rank, const int64_t *sizes)
{
	int elem;
	const Onnx__TensorShapeProto *s = pipeline_tensor_shape(vi, &elem);

	if (!s || (int)s->n_dim != rank)
		return;
	for (size_t k = 0; k < s->n_dim && b->n < 256; k++) {
		const Onnx__TensorShapeProto__Dimension *dm = s->dim[k];
		int64_t v;
		if (dm->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM ||
		    pipeline_dim_lookup(b, dm->dim_param, &v))
			continue;
		b->name[b->n] = dm->dim_param;
		b->v[b->n++] = sizes[k];
	}
}

/* Binds the dim_params of the graph inputs that are plain names to the
 * sizes of the bundle's example inputs, when both list the same tensors. */
static void
bind_inputs(Bindings *b, const Onnx__GraphProto *g, const Bundle *bd)
{
	if ((int)g->n_input != bd->ninput)
		return;
	for (size_t i = 0; i < g->n_input; i++)
		pipeline_bind_dims(b, g->input[i], bd->inputs[i].rank, bd->inputs[i].shape);
}

/* NULL when m's outputs have the bundle's dtypes and shapes, else what
 * differs.  A dim_param is evaluated at the example inputs' sizes; one that
 * cannot be (a name no input binds) is not compared. */
static const char *
check_outputs(Arena *a, const Onnx__ModelProto *m, const Bundle *bd)
{
	const Onnx__GraphProto *g = m->graph;
	Bindings b = {0};

	if ((int)g->n_output != bd->noutput)
		return arena_printf(a, "the model has %d outputs, torch's eager run gave %d",
		                    (int)g->n_output, bd->noutput);
	bind_inputs(&b, g, bd);
	for (size_t i = 0; i < g->n_output; i++) {
		const BundleTensor *want = &bd->outputs[i];
		int elem;
		const Onnx__TensorShapeProto *s = pipeline_tensor_shape(g->output[i], &elem);
		DType got = dtype_from_onnx(elem);

		if (got != want->dtype)
			return arena_printf(a, "output %d '%s' is %s, torch's is %s", (int)i, g->output[i]->name,
			                    got ? dtype_name(got) : "of no tensor type", dtype_name(want->dtype));
		if (!s)
			continue;
		if ((int)s->n_dim != want->rank)
			return arena_printf(a, "output %d '%s' has rank %d, torch's has rank %d", (int)i,
			                    g->output[i]->name, (int)s->n_dim, want->rank);
		for (size_t k = 0; k < s->n_dim; k++) {
			const Onnx__TensorShapeProto__Dimension *dm = s->dim[k];
			int64_t v;
			SymExpr *e;
			if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
				v = dm->dim_value;
			else if (dm->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM ||
			         !(e = sym_parse_infix(a, "", dm->dim_param, strlen(dm->dim_param), NULL)) ||
			         !sym_eval(e, pipeline_dim_lookup, &b, &v))
				continue;
			if (v != want->shape[k])
				return arena_printf(a, "output %d '%s' has size %lld at axis %d (%s), torch's has %lld",
				                    (int)i, g->output[i]->name, (long long)v, (int)k,
				                    dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM
				                    ? dm->dim_param : "static", (long long)want->shape[k]);
		}
	}
	return NULL;
}

/* ---- one try ---- */

static const char *
ext(const char *file)
{
	const char *dot = file ? strrchr(file, '.') : NULL;

	return dot ? dot : "";
}

/* The first error of d as one line (its location and message). */
static const char *
first_error(Arena *a, const Diag *d, int from)
{
	for (int i = from; i < d->n; i++) {
		size_t n;
		char *s;
		if (diag_info(d->items[i].code)->severity != DIAG_SEV_ERROR)
			continue;
		n = diag_format(&d->items[i], NULL, 0);
		s = arena_alloc(a, n + 1);
		diag_format(&d->items[i], s, n + 1);
		return s;
	}
	return "failed (no message)";
}

/* A traced capture stores no input shapes: without `inputs:`, the
 * bundle's example inputs give them (static, the sizes the capture ran). */
static void
ts_bundle_inputs(Pipeline *pl, TsInputs *ti)
{
	const Bundle *bd = &pl->bundle;
	TsInput *in = ARENA_ARRAY(pl->a, TsInput, bd->ninput + 1);

	for (int i = 0; i < bd->ninput; i++) {
		in[i].dtype = bd->inputs[i].dtype;
		in[i].rank = bd->inputs[i].rank;
		in[i].dims = bd->inputs[i].shape;
		in[i].names = ARENA_ARRAY(pl->a, const char *, bd->inputs[i].rank + 1);
	}
	ti->label = arena_printf(pl->a, "%s:capture.json", pl->input);
	ti->n = bd->ninput;
	ti->in = in;
}

static int
errors(const Diag *d, int from)
{
	int n = 0;

	for (int i = from; i < d->n; i++)
		n += diag_info(d->items[i].code)->severity == DIAG_SEV_ERROR;
	return n;
}

/* Reads, lowers and optimizes one capture into pl (prog, model, report);
 * returns 0 or the Diag's code, with the reason in sub. */
static int
try_capture(Pipeline *pl, const BundleAttempt *at, Diag *sub)
{
	const char *label = arena_printf(pl->a, "%s:%s", pl->input, at->file);
	const char *e = ext(at->file);
	int rc;

	memset(&pl->prog, 0, sizeof pl->prog);
	pl->prog.arena = pl->a;
	pl->model = NULL;
	report_init(&pl->report, pl->a);
	if (strcmp(e, ".pt2") == 0) {
		diag_input(sub, pl->input);
		if ((rc = pt2_load_mem(&pl->prog, label, at->data, at->size, pl->bundle.zip.fd, sub)))
			return rc;
		return pipeline_convert(pl, sub);
	}
	if (strcmp(e, ".onnx") == 0) {
		if ((rc = onnx_read(&pl->onnx, pl->a, label, at->data, at->size, NULL, sub)))
			return rc;
		pl->model = pl->onnx.model;
		if ((rc = pipeline_onnx_opset(pl, label, sub)))
			return rc;
		return pipeline_convert(pl, sub);
	}
	if (strcmp(e, ".pt") == 0) {
		Zip *z = ARENA_NEW(pl->a, Zip);
		TsInputs ti = pl->opt.inputs;
		IrTyper ty;
		lower_typer_init(&ty, pl->opt.opset);
		ti.typer = &ty;
		diag_input(sub, pl->input);
		if (ti.n < 0)
			ts_bundle_inputs(pl, &ti);
		if ((rc = zip_open_mem(z, label, at->data, at->size, pl->a, sub)))
			return rc;
		if ((rc = ts_load(&pl->prog, z, &ti, sub)))
			return rc;
		return pipeline_convert(pl, sub);
	}
	return diag_report(sub, YE_CAPTURE_UNREADABLE, &(DiagAt){.file = label},
	                   "a capture file of unknown kind '%s' (.pt2, .pt and .onnx are known)", e);
}

int
pipeline_convert_bundle(Pipeline *pl, Diag *d)
{
	const Bundle *bd = &pl->bundle;
	const char **names = ARENA_ARRAY(pl->a, const char *, pipeline_strategy_count() + 1);
	ReportCapture *rows;
	const char **why;
	int n = order(&pl->opt, names), won = -1, opset = pl->opt.opset;

	rows = ARENA_ARRAY(pl->a, ReportCapture, n + 1);
	why = ARENA_ARRAY(pl->a, const char *, n + 1);
	for (int i = 0; i < n && won < 0; i++) {
		const BundleAttempt *at = bundle_attempt(bd, names[i]);
		ReportCapture *r = &rows[i];
		Diag sub = {0};
		double t;
		const char *bad;

		*r = (ReportCapture){names[i], "yes", "yes", -1, at ? at->seconds : -1, -1};
		if (!at) {
			r->captured = "no (not in the bundle)";
			r->converted = "not tried";
			why[i] = "not in the bundle";
			continue;
		}
		if (!at->ok) {
			r->captured = arena_printf(pl->a, "%s: %s", at->error_type, at->error_message);
			r->converted = "not tried";
			why[i] = arena_printf(pl->a, "not captured: %s", r->captured);
			continue;
		}
		t = pipeline_now();
		pl->opt.opset = opset;   /* an ONNX capture set its own */
		if (try_capture(pl, at, &sub) || errors(&sub, 0))
			r->converted = errors(&sub, 0) > 1
			               ? arena_printf(pl->a, "%s (and %d more)", first_error(pl->a, &sub, 0),
			                              errors(&sub, 0) - 1)
			               : first_error(pl->a, &sub, 0);
		else if ((bad = check_outputs(pl->a, pl->model, bd)))
			r->converted = arena_printf(pl->a, "outputs differ from torch's: %s", bad);
		else
			won = i;
		why[i] = arena_printf(pl->a, "not converted: %s", r->converted);
		r->convert_seconds = pl->opt.report_timings ? pipeline_now() - t : 0;
		if (won == i)
			r->nodes = (int64_t)pl->model->graph->n_node;
		diag_free(&sub);
	}
	for (int i = 0; i < n && (won < 0 || i <= won); i++)
		if (won < 0 || i < won)
			diag_report(d, YE_CAPTURE_REJECTED, &(DiagAt){.file = pl->input}, "capture '%s': %s",
			            rows[i].strategy, why[i]);
	if (won < 0) {
		memset(&pl->prog, 0, sizeof pl->prog);
		pl->prog.arena = pl->a;
		pl->model = NULL;
		report_init(&pl->report, pl->a);
	}
	for (int i = 0; i < n && (won < 0 || i <= won); i++)
		report_capture(&pl->report, &rows[i]);
	if (won < 0 && !n)
		return diag_report(d, YE_NO_CAPTURE, &(DiagAt){.file = pl->input},
		                   "no capture to try: `fallback` is empty and no `strategy` is named");
	if (won < 0 && n == 1)
		return diag_report(d, YE_NO_CAPTURE, &(DiagAt){.file = pl->input},
		                   "the one capture tried, '%s', does not convert (the note above says why)",
		                   names[0]);
	if (won < 0)
		return diag_report(d, YE_NO_CAPTURE, &(DiagAt){.file = pl->input},
		                   "none of the %d captures tried converts (the notes above say why)", n);
	pl->strategy = names[won];
	pl->winner = &pipeline_strategies[pipeline_strategy_find(names[won])];
	return 0;
}

int
pipeline_print(Pipeline *pl, FILE *f, Diag *d)
{
	const char **names;
	int n;

	if (pl->kind == INPUT_ONNX) {
		const char *slash = strrchr(pl->input, '/');
		onnx_print(f, pl->model, slash ? arena_printf(pl->a, "%.*s", (int)(slash - pl->input), pl->input) : ".");
		return 0;
	}
	if (pl->kind != INPUT_BUNDLE) {
		ir_print(f, &pl->prog);
		signature_print(pl, f);
		return 0;
	}
	fprintf(f, "bundle %s: format %d, torch %s, model %s\n", pl->input, pl->bundle.version,
	        pl->bundle.torch_version ? pl->bundle.torch_version : "(not recorded)",
	        pl->bundle.model_class ? pl->bundle.model_class : "(not recorded)");
	for (int i = 0; i < pl->bundle.nattempt; i++) {
		const BundleAttempt *at = &pl->bundle.attempts[i];
		fprintf(f, "  %-16s %s%s%s\n", at->strategy, at->ok ? at->file : at->error_type,
		        at->ok ? "" : ": ", at->ok ? "" : at->error_message);
	}
	names = ARENA_ARRAY(pl->a, const char *, pipeline_strategy_count() + 1);
	n = order(&pl->opt, names);
	for (int i = 0; i < n; i++) {
		const BundleAttempt *at = bundle_attempt(&pl->bundle, names[i]);
		const char *label;
		if (!at || !at->ok || (strcmp(ext(at->file), ".pt2") && strcmp(ext(at->file), ".onnx")))
			continue;
		label = arena_printf(pl->a, "%s:%s", pl->input, at->file);
		fprintf(f, "capture %s (%s), the first in the `fallback` order that reads:\n", at->strategy, at->file);
		if (strcmp(ext(at->file), ".onnx") == 0) {
			int rc = onnx_read(&pl->onnx, pl->a, label, at->data, at->size, NULL, d);
			if (!rc)
				onnx_print(f, pl->onnx.model, NULL);
			return rc;
		}
		diag_input(d, pl->input);
		if (pt2_load_mem(&pl->prog, label, at->data, at->size, pl->bundle.zip.fd, d))
			return d->code;
		ir_print(f, &pl->prog);
		signature_print(pl, f);
		return 0;
	}
	fprintf(f, "no capture in the `fallback` order is a .pt2 or .onnx file\n");
	return 0;
}
