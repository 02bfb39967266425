/* verify.c (pipeline): what --verify runs the written model on, and against
 * what (docs/verify.md); lib/verify/ runs and compares.
 *
 * Inputs, the first that applies: the `verify_inputs:` files; a capture
 * bundle's example inputs; a .pt2's stored sample inputs (by the graph
 * input's name); values drawn with a fixed seed at the sizes the graph,
 * `inputs:` or torch's size hints give.  References: the `verify_outputs:`
 * files; a bundle's eager outputs; else the signature alone: each output's
 * dtype and shape as the program declares them (torch's symbols evaluated
 * at the inputs' sizes; the ONNX graph's types, dim_params evaluated, for an
 * ONNX input), and no NaN or infinity in a float output unless the
 * program's own weights and constants hold some. */
#include "pipeline/pipeline.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline/internal.h"
#include "sym/sym.h"
#include "verify/verify.h"
#include "core/core.h"

#define VERIFY_SEED 20261206u

static const Onnx__TensorShapeProto *
vi_shape(const Onnx__ValueInfoProto *vi, DType *dt)
{
	int elem;
	const Onnx__TensorShapeProto *s = pipeline_tensor_shape(vi, &elem);

	*dt = dtype_from_onnx(elem);
	return s;
}

/* The shape of vi with its dim_params evaluated by b; -1 where one cannot be
 * (rank -1 when vi has no shape). */
static int
eval_shape(Arena *a, const Onnx__ValueInfoProto *vi, const Bindings *b, int64_t **out)
{
	DType dt;
	const Onnx__TensorShapeProto *s = vi_shape(vi, &dt);

	*out = NULL;
	if (!s)
		return -1;
	*out = ARENA_ARRAY(a, int64_t, s->n_dim + 1);
	for (size_t k = 0; k < s->n_dim; k++) {
		const Onnx__TensorShapeProto__Dimension *dm = s->dim[k];
		SymExpr *e;
		int64_t v = -1;
		if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
			v = dm->dim_value;
		else if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
		         (e = sym_parse_infix(a, "", dm->dim_param, strlen(dm->dim_param), NULL)) &&
		         !sym_eval(e, pipeline_dim_lookup, (void *)b, &v))
			v = -1;
		(*out)[k] = v;
	}
	return (int)s->n_dim;
}

/* ---- raw files ---- */

/* dir/N.bin mapped into *t (its dtype and shape set, -1 sizes allowed);
 * 0 or the Diag's code. */
static int
load_raw(Pipeline *pl, const char *dir, int i, VerifyTensor *t, Diag *d)
{
	const char *path = arena_printf(pl->a, "%s/%d.bin", dir, i);
	struct stat st;
	void *p = NULL;
	int64_t n = 1, known = 1;
	uint64_t want = 0;
	uint64_t size;
	char why[160];
	int fd = file_open(path, 0, &size, why, sizeof why);

	if (fd < 0)
		return diag_report(d, YE_VERIFY_REFERENCE, &(DiagAt){.file = path}, "%s (%s)", why, t->name);
	st.st_size = (off_t)size;
	if (st.st_size && (p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED)
		p = NULL;
	close(fd);
	if (st.st_size && !p)
		return diag_report(d, YE_VERIFY_REFERENCE, &(DiagAt){.file = path}, "cannot map it");
	for (int k = 0; k < t->rank; k++)
		if (t->shape[k] < 0)
			known = 0;
	if (t->rank >= 0 && known &&
	    (size_numel(t->shape, (size_t)t->rank, &n) || size_bytes(n, dtype_size(t->dtype), &want)))
		return diag_report(d, YE_VERIFY_REFERENCE, &(DiagAt){.file = path},
		                   "'%s' (%s): its shape holds more bytes than a file can", t->name,
		                   dtype_name(t->dtype));
	if (t->rank >= 0 && known && (uint64_t)st.st_size != want)
		return diag_report(d, YE_VERIFY_REFERENCE, &(DiagAt){.file = path},
		                   "%llu bytes; '%s' (%s, %lld elements) needs %llu", (unsigned long long)st.st_size,
		                   t->name, dtype_name(t->dtype), (long long)n, (unsigned long long)want);
	t->data = p ? p : (const void *)"";
	t->nbytes = (uint64_t)st.st_size;
	return 0;   /* the mapping lives until the process ends, as the input's does */
}

/* ---- inputs ---- */

/* The sample of graph input `name` in a .pt2's stored inputs, or NULL. */
static const TensorData *
sample_of(const Program *p, const char *name)
{
	int k = 0;

	for (int i = 0; i < p->ninput_spec; i++) {
		const InputSpec *s = &p->input_specs[i];
		if (s->kind != IN_USER_INPUT && s->kind != IN_CONSTANT_INPUT)
			continue;
		if (k < p->nsample && s->kind == IN_USER_INPUT && s->arg->kind == ARG_TENSOR &&
		    strcmp(s->arg->u.v->name, name) == 0)
			return p->samples[k].t;
		k++;
	}
	return NULL;
}

/* A sample's bytes, row-major (strided views gathered into the arena). */
static const void *
sample_bytes(Arena *a, const TensorData *t)
{
	int64_t n = tensor_numel(t), size = dtype_size(t->dtype);
	uint8_t *out;

	if (tensor_is_contiguous(t))
		return t->storage + t->offset * size;
	out = arena_alloc(a, (size_t)(n * size) + 1);
	for (int64_t i = 0; i < n; i++) {
		int64_t off = t->offset, rem = i;
		for (int k = t->rank - 1; k >= 0; k--) {
			off += rem % t->sizes[k] * t->strides[k];
			rem /= t->sizes[k];
		}
		memcpy(out + i * size, t->storage + off * size, (size_t)size);
	}
	return out;
}

/* The most bytes of made-up values for one input: a shape of options'
 * `inputs:` is the user's, and a typo must not exhaust the memory. */
#define VERIFY_MAX_FILL (1 << 30)

/* The size hint torch recorded for IR input `name` at axis k, or -1. */
static int64_t
hint(const Program *p, const char *name, int k)
{
	const Value *v = p->graph ? strmap_get(p->graph->index, name) : NULL;

	return v && v->kind == VAL_TENSOR && k < v->rank && v->dims[k].v > 0 ? v->dims[k].v : -1;
}

static int
make_input(Pipeline *pl, int i, VerifyTensor *t, const char **how, Diag *d)
{
	const Onnx__ValueInfoProto *vi = pl->model->graph->input[i];
	const Bundle *b = &pl->bundle;
	const TensorData *s;
	int64_t *shape, n;
	uint64_t bytes;
	int rank;

	t->name = vi->name;
	if (pl->kind == INPUT_BUNDLE && b->ninput == (int)pl->model->graph->n_input) {
		const BundleTensor *bt = &b->inputs[i];
		*t = (VerifyTensor){vi->name, bt->dtype, bt->rank, bt->shape, bt->data, 0};
		*how = "the bundle's example inputs";
	} else if ((s = sample_of(&pl->prog, vi->name)) && tensor_in_bounds(s)) {
		*t = (VerifyTensor){vi->name, s->dtype, s->rank, s->sizes, sample_bytes(pl->a, s), 0};
		*how = "the .pt2's sample inputs";
	} else {
		rank = eval_shape(pl->a, vi, &(Bindings){0}, &shape);
		vi_shape(vi, &t->dtype);
		for (int k = 0; k < rank; k++)
			if (shape[k] < 0)
				shape[k] = hint(&pl->prog, vi->name, k);
		for (int k = 0; k < rank; k++)
			if (shape[k] < 0)
				return diag_report(d, YE_VERIFY_NO_INPUTS, &(DiagAt){.file = pl->input},
				                   "input '%s' has a dynamic size at axis %d that the file gives no example "
				                   "of (raw `verify_inputs:` files carry no shape): give `inputs:` with "
				                   "static sizes", vi->name, k);
		if (rank < 0 || !dtype_size(t->dtype))
			return diag_report(d, YE_VERIFY_NO_INPUTS, &(DiagAt){.file = pl->input},
			                   "input '%s' is not a tensor of known shape", vi->name);
		t->rank = rank;
		t->shape = shape;
		if (size_numel(shape, (size_t)rank, &n) || size_bytes(n, dtype_size(t->dtype), &bytes) ||
		    bytes > VERIFY_MAX_FILL)
			return diag_report(d, YE_VERIFY_NO_INPUTS, &(DiagAt){.file = pl->input},
			                   "input '%s': its shape holds more than the %d MiB of values --verify makes up",
			                   vi->name, VERIFY_MAX_FILL >> 20);
		if (!pl->opt.verify_inputs)
			verify_fill(pl->a, t, VERIFY_SEED + (uint64_t)i);
		*how = "values drawn with a fixed seed";
	}
	if (pl->opt.verify_inputs) {
		*how = "verify_inputs";
		return load_raw(pl, pl->opt.verify_inputs, i, t, d);
	}
	return 0;
}

/* ---- references ---- */

/* 1 when a float weight or constant of the program holds NaN or an
 * infinity (then the outputs may too). */
static int
program_has_nan(const Program *p)
{
	const Graph *g = p->graph;

	for (int i = 0; g && i < g->nvalue; i++) {
		const TensorData *t = g->values[i]->data;
		int64_t n;
		if (!t || (t->dtype != DT_FLOAT32 && t->dtype != DT_FLOAT64) || !tensor_is_contiguous(t) ||
		    !tensor_in_bounds(t))
			continue;
		uint64_t off;
		if (size_bytes(t->offset, dtype_size(t->dtype), &off))
			continue;
		const uint8_t *at = t->storage + off;     /* in bounds: tensor_in_bounds() */
		n = tensor_numel(t);
		for (int64_t k = 0; k < n; k++, at += dtype_size(t->dtype))
			if (!isfinite(dtype_decode_f64(t->dtype, at)))
				return 1;
	}
	return 0;
}

/* The program's signature for graph output i: its IR value (the user and
 * loss outputs in order, as lowering writes them), or NULL when the graph
 * does not line up with them or the output is not a tensor. */
static const Value *
ir_output(const Program *p, int i, int noutput)
{
	const Value *v = NULL;
	int n = 0;

	for (int k = 0; k < p->noutput_spec; k++) {
		const OutputSpec *s = &p->output_specs[k];
		if ((s->kind != OUT_USER_OUTPUT && s->kind != OUT_LOSS_OUTPUT) || s->arg->kind == ARG_NONE)
			continue;
		if (n++ == i && s->arg->kind == ARG_TENSOR)
			v = s->arg->u.v;
	}
	return n == noutput ? v : NULL;
}

/* Binds torch's symbols of the program's tensor inputs (a size that is a
 * symbol of its own) to the sizes fed to them. */
static void
bind_symbols(const Program *p, const VerifyTensor *in, int nin, Bindings *b)
{
	for (int i = 0; i < p->ninput_spec; i++) {
		const InputSpec *s = &p->input_specs[i];
		const Value *v;
		if (s->kind != IN_USER_INPUT || s->arg->kind != ARG_TENSOR)
			continue;
		v = s->arg->u.v;
		for (int j = 0; j < nin; j++) {
			if (strcmp(in[j].name, v->name) != 0 || in[j].rank != v->rank)
				continue;
			for (int k = 0; k < v->rank && b->n < 256; k++)
				if (v->dims[k].e && v->dims[k].e->op == SYM_SYMBOL) {
					b->name[b->n] = v->dims[k].e->name;
					b->v[b->n++] = in[j].shape[k];
				}
		}
	}
}

/* t's dtype and shape from IR value v, its symbolic sizes evaluated by b
 * (-1 where they cannot be: a data-dependent size). */
static void
ir_signature(Arena *a, const Value *v, const Bindings *b, VerifyTensor *t)
{
	int64_t *shape = ARENA_ARRAY(a, int64_t, v->rank + 1);

	for (int k = 0; k < v->rank; k++)
		if (!v->dims[k].e)
			shape[k] = v->dims[k].v;
		else if (!sym_eval(v->dims[k].e, pipeline_dim_lookup, (void *)b, &shape[k]))
			shape[k] = -1;
	t->dtype = v->dtype;
	t->rank = v->rank;
	t->shape = shape;
}

static int
make_output(Pipeline *pl, int i, const Bindings *b, const Bindings *syms, VerifyTensor *t, Diag *d)
{
	const Onnx__ValueInfoProto *vi = pl->model->graph->output[i];
	const Bundle *bd = &pl->bundle;
	const Value *v;
	int64_t *shape;

	if (pl->kind == INPUT_BUNDLE && bd->noutput == (int)pl->model->graph->n_output && !pl->opt.verify_outputs) {
		const BundleTensor *bt = &bd->outputs[i];
		*t = (VerifyTensor){vi->name, bt->dtype, bt->rank, bt->shape, bt->data, 0};
		return 0;
	}
	t->name = vi->name;
	vi_shape(vi, &t->dtype);
	t->rank = eval_shape(pl->a, vi, b, &shape);
	t->shape = shape;
	if ((v = ir_output(&pl->prog, i, (int)pl->model->graph->n_output)) && dtype_size(v->dtype))
		ir_signature(pl->a, v, syms, t);   /* torch's own signature, not the model's types */
	if (t->dtype == DT_UNKNOWN || !dtype_size(t->dtype))
		return diag_report(d, YE_VERIFY_REFERENCE, &(DiagAt){.file = pl->out},
		                   "output '%s' is not a tensor of a known element type", vi->name);
	return pl->opt.verify_outputs ? load_raw(pl, pl->opt.verify_outputs, i, t, d) : 0;
}

/* ---- the report ---- */

static void
report_rows(Pipeline *pl, const VerifyResult *r, const char *inputs)
{
	Report *rep = &pl->report;

	for (int i = 0; i < r->nrow; i++) {
		const VerifyRow *v = &r->rows[i];
		report_discrepancy(rep, &(ReportDiscrepancy){v->kind, v->name, v->cls, dtype_name(v->dtype), v->shape,
		                   v->max_abs, v->max_rel, v->tol, v->ok, v->problem});
	}
	pl->verify_from = inputs;
}

int
pipeline_verify(Pipeline *pl, PipelineCommit commit, Durable *files, Diag *d)
{
	const Onnx__GraphProto *g = pl->model->graph;
	VerifyTensor *in = ARENA_ARRAY(pl->a, VerifyTensor, g->n_input + 1);
	VerifyTensor *out = ARENA_ARRAY(pl->a, VerifyTensor, g->n_output + 1);
	VerifyJob job = {.model = pl->out, .tolerance = pl->opt.verify_tolerance, .label = pl->input};
	VerifyModule *mods = NULL;
	const char *how = "no inputs";
	double t0 = pipeline_now();
	Bindings b = {0}, syms = {0};
	int rc = 0, nmod = 0, skipped = 0;
	const char *why = NULL;

	for (size_t i = 0; i < g->n_input && !rc; i++)
		if (!(rc = make_input(pl, (int)i, &in[i], &how, d)))
			pipeline_bind_dims(&b, g->input[i], in[i].rank, in[i].shape);
	bind_symbols(&pl->prog, in, (int)g->n_input, &syms);
	for (size_t i = 0; i < g->n_output && !rc; i++)
		rc = make_output(pl, (int)i, &b, &syms, &out[i], d);
	/* inputs and references ready: the model is committed (onnxruntime
	 * reads it from disk) only now, so an input that cannot be had (exit
	 * status 2) leaves nothing behind */
	if (rc || (rc = commit(pl, files, d)))
		return rc;
	job.ninput = (int)g->n_input, job.inputs = in;
	job.noutput = (int)g->n_output, job.outputs = out;
	job.nan_allowed = program_has_nan(&pl->prog);
	if (pl->kind == INPUT_BUNDLE && pl->bundle.nmodule && !pl->opt.verify_inputs) {
		nmod = verify_map_modules(pl->a, &pl->bundle, &pl->prog, pl->model, &mods, &skipped, &why);
		job.nmodule = nmod, job.modules = mods;
	}
	rc = verify_run(pl->ort, pl->a, &job, &pl->verified, d);
	skipped += pl->verified.modules_skipped;
	why = why ? why : pl->verified.skipped_why;
	if (skipped + (int)pl->bundle.modules_skipped > 0 && pl->kind == INPUT_BUNDLE)
		diag_report(d, YE_VERIFY_MODULES_SKIPPED, &(DiagAt){.file = pl->input},
		            "%d of %d recorded module call%s not compared (%s)%s", skipped, pl->bundle.nmodule,
		            pl->bundle.nmodule == 1 ? "" : "s", why ? why : "?",
		            pl->bundle.modules_skipped ? arena_printf(pl->a, "; the helper left %lld out past its size cap",
		                                                      (long long)pl->bundle.modules_skipped) : "");
	pl->verify_seconds = pipeline_now() - t0;
	report_rows(pl, &pl->verified, how);
	return rc;
}
