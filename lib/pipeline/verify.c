/* verify.c (pipeline): what --verify runs the written model on, and against
 * what (docs/verify.md); lib/verify/ runs and compares.
 *
 * Inputs, the first that applies: the `verify_inputs:` files; a capture
 * bundle's example inputs; a .pt2's stored sample inputs (by the graph
 * input's name); values drawn with a fixed seed at the sizes the graph,
 * `inputs:` or torch's size hints give.  References: the `verify_outputs:`
 * files; a bundle's eager outputs; else the signature alone: each graph
 * output's dtype and shape, a dim_param evaluated at the inputs' sizes, and
 * no NaN or infinity in a float output unless the program's own weights
 * and constants hold some. */
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

typedef struct Binds {
	int n;
	const char *name[256];
	int64_t v[256];
} Binds;

static int
bound(void *ctx, const char *name, int64_t *v)
{
	const Binds *b = ctx;

	for (int i = 0; i < b->n; i++)
		if (strcmp(b->name[i], name) == 0)
			return *v = b->v[i], 1;
	return 0;
}

static const Onnx__TensorShapeProto *
vi_shape(const Onnx__ValueInfoProto *vi, DType *dt)
{
	const Onnx__TypeProto *t = vi->type;

	*dt = DT_UNKNOWN;
	if (!t || t->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !t->tensor_type)
		return NULL;
	*dt = dtype_from_onnx(t->tensor_type->elem_type);
	return t->tensor_type->shape;
}

/* The shape of vi with its dim_params evaluated by b; -1 where one cannot be
 * (rank -1 when vi has no shape). */
static int
eval_shape(Arena *a, const Onnx__ValueInfoProto *vi, const Binds *b, int64_t **out)
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
		         sym_eval(e, bound, (void *)b, &v))
			v = -1;
		(*out)[k] = v;
	}
	return (int)s->n_dim;
}

/* Binds the plain dim_params of input vi to the sizes of t. */
static void
bind(Binds *b, const Onnx__ValueInfoProto *vi, const VerifyTensor *t)
{
	DType dt;
	const Onnx__TensorShapeProto *s = vi_shape(vi, &dt);
	int64_t v;

	if (!s || (int)s->n_dim != t->rank)
		return;
	for (size_t k = 0; k < s->n_dim && b->n < 256; k++)
		if (s->dim[k]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
		    !bound(b, s->dim[k]->dim_param, &v)) {
			b->name[b->n] = s->dim[k]->dim_param;
			b->v[b->n++] = t->shape[k];
		}
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
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		int err = errno;
		if (fd >= 0)
			close(fd);
		return diag_report(d, YE_VERIFY_REFERENCE, &(DiagAt){.file = path}, "%s (%s)",
		                   fd < 0 ? strerror(err) : "not a regular file", t->name);
	}
	if (st.st_size && (p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED)
		p = NULL;
	close(fd);
	if (st.st_size && !p)
		return diag_report(d, YE_VERIFY_REFERENCE, &(DiagAt){.file = path}, "cannot map it");
	for (int k = 0; k < t->rank; k++)
		t->shape[k] < 0 ? (void)(known = 0) : (void)(n *= t->shape[k]);
	if (t->rank >= 0 && known && (uint64_t)st.st_size != (uint64_t)n * (uint64_t)dtype_size(t->dtype))
		return diag_report(d, YE_VERIFY_REFERENCE, &(DiagAt){.file = path},
		                   "%llu bytes; '%s' (%s, %lld elements) needs %llu", (unsigned long long)st.st_size,
		                   t->name, dtype_name(t->dtype), (long long)n,
		                   (unsigned long long)n * (unsigned long long)dtype_size(t->dtype));
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
	int64_t *shape;
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
		rank = eval_shape(pl->a, vi, &(Binds){0}, &shape);
		vi_shape(vi, &t->dtype);
		for (int k = 0; k < rank; k++)
			if (shape[k] < 0)
				shape[k] = hint(&pl->prog, vi->name, k);
		for (int k = 0; k < rank; k++)
			if (shape[k] < 0)
				return diag_report(d, YE_VERIFY_NO_INPUTS, &(DiagAt){.file = pl->input},
				                   "input '%s' has a dynamic size at axis %d and the file keeps no "
				                   "example of it: give `verify_inputs:`", vi->name, k);
		if (rank < 0 || !dtype_size(t->dtype))
			return diag_report(d, YE_VERIFY_NO_INPUTS, &(DiagAt){.file = pl->input},
			                   "input '%s' is not a tensor of known shape", vi->name);
		t->rank = rank;
		t->shape = shape;
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
		n = tensor_numel(t);
		for (int64_t k = 0; k < n; k++) {
			double v;
			if (t->dtype == DT_FLOAT32) {
				float f;
				memcpy(&f, t->storage + (t->offset + k) * 4, 4);
				v = f;
			} else {
				memcpy(&v, t->storage + (t->offset + k) * 8, 8);
			}
			if (!isfinite(v))
				return 1;
		}
	}
	return 0;
}

static int
make_output(Pipeline *pl, int i, const Binds *b, VerifyTensor *t, Diag *d)
{
	const Onnx__ValueInfoProto *vi = pl->model->graph->output[i];
	const Bundle *bd = &pl->bundle;
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
pipeline_verify(Pipeline *pl, Diag *d)
{
	const Onnx__GraphProto *g = pl->model->graph;
	VerifyTensor *in = ARENA_ARRAY(pl->a, VerifyTensor, g->n_input + 1);
	VerifyTensor *out = ARENA_ARRAY(pl->a, VerifyTensor, g->n_output + 1);
	VerifyJob job = {.model = pl->out, .tolerance = pl->opt.verify_tolerance, .label = pl->input};
	VerifyModule *mods = NULL;
	const char *how = "no inputs";
	double t0 = pipeline_now();
	Binds b = {0};
	int rc = 0, nmod = 0, skipped = 0;
	const char *why = NULL;

	for (size_t i = 0; i < g->n_input && !rc; i++)
		if (!(rc = make_input(pl, (int)i, &in[i], &how, d)))
			bind(&b, g->input[i], &in[i]);
	for (size_t i = 0; i < g->n_output && !rc; i++)
		rc = make_output(pl, (int)i, &b, &out[i], d);
	if (rc)
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
