/* onnx.c: ONNX messages in the arena, and the file writer.
 *
 * The writer never holds the packed model in memory: protobuf-c streams it
 * through a ProtobufCBuffer whose append() calls fwrite() on a temporary
 * file, which durable_commit() (core) fsyncs and renames over the target,
 * so a reader never sees a half-written model and a failed run leaves
 * nothing new behind.
 * Computed initializers (onnx.h) are made in pieces as they pass: append()
 * recognizes their recipe, which raw_data.data points at, and writes the
 * computed bytes in its place. */
#define _GNU_SOURCE   /* copy_file_range */
#include "onnx/onnx.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void
onnx_vec_push(Arena *a, OnnxVec *vec, void *p)
{
	if (vec->n == vec->cap) {
		size_t cap = vec->cap ? vec->cap * 2 : 16;
		void **nv = ARENA_ARRAY(a, void *, cap);
		if (vec->n)
			memcpy(nv, vec->v, sizeof *nv * vec->n);
		vec->v = nv;
		vec->cap = cap;
	}
	vec->v[vec->n++] = p;
}

/* The vector as a protobuf-c repeated field (a fresh exact-size array). */
static void **
vec_items(Arena *a, const OnnxVec *vec, size_t *n)
{
	void **out = ARENA_ARRAY(a, void *, vec->n + 1);
	size_t k = 0;

	for (size_t i = 0; i < vec->n; i++)
		if (vec->v[i])
			out[k++] = vec->v[i];
	*n = k;
	return out;
}

OnnxNode *
onnx_node(Arena *a, const char *op_type, const char *name,
          int nin, const char *const *in, int nout, const char *const *out)
{
	OnnxNode *n = ARENA_NEW(a, OnnxNode);

	*n = (OnnxNode)ONNX__NODE_PROTO__INIT;
	n->op_type = (char *)op_type;
	n->name = (char *)name;
	n->n_input = (size_t)nin;
	n->input = ARENA_ARRAY(a, char *, nin + 1);
	for (int i = 0; i < nin; i++)
		n->input[i] = (char *)in[i];
	n->n_output = (size_t)nout;
	n->output = ARENA_ARRAY(a, char *, nout + 1);
	for (int i = 0; i < nout; i++)
		n->output[i] = (char *)out[i];
	return n;
}

static Onnx__AttributeProto *
add_attr(Arena *a, OnnxNode *n, const char *name, Onnx__AttributeProto__AttributeType type)
{
	Onnx__AttributeProto *at = ARENA_NEW(a, Onnx__AttributeProto);
	Onnx__AttributeProto **na = ARENA_ARRAY(a, Onnx__AttributeProto *, n->n_attribute + 1);

	*at = (Onnx__AttributeProto)ONNX__ATTRIBUTE_PROTO__INIT;
	at->name = (char *)name;
	at->has_type = 1;
	at->type = type;
	if (n->n_attribute)
		memcpy(na, n->attribute, sizeof *na * n->n_attribute);
	na[n->n_attribute++] = at;
	n->attribute = na;
	return at;
}

void
onnx_attr_int(Arena *a, OnnxNode *n, const char *name, int64_t v)
{
	Onnx__AttributeProto *at = add_attr(a, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
	at->has_i = 1;
	at->i = v;
}

void
onnx_attr_float(Arena *a, OnnxNode *n, const char *name, float v)
{
	Onnx__AttributeProto *at = add_attr(a, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
	at->has_f = 1;
	at->f = v;
}

void
onnx_attr_ints(Arena *a, OnnxNode *n, const char *name, int k, const int64_t *v)
{
	Onnx__AttributeProto *at = add_attr(a, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
	at->n_ints = (size_t)k;
	at->ints = arena_dup(a, v, sizeof *v * (size_t)k);
}

void
onnx_attr_floats(Arena *a, OnnxNode *n, const char *name, int k, const float *v)
{
	Onnx__AttributeProto *at = add_attr(a, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
	at->n_floats = (size_t)k;
	at->floats = arena_dup(a, v, sizeof *v * (size_t)k);
}

void
onnx_attr_string(Arena *a, OnnxNode *n, const char *name, const char *s)
{
	Onnx__AttributeProto *at = add_attr(a, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
	at->has_s = 1;
	at->s.len = strlen(s);
	at->s.data = (uint8_t *)s;
}

void
onnx_attr_tensor(Arena *a, OnnxNode *n, const char *name, OnnxTensor *t)
{
	Onnx__AttributeProto *at = add_attr(a, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
	at->t = t;
}

void
onnx_attr_graph(Arena *a, OnnxNode *n, const char *name, Onnx__GraphProto *g)
{
	Onnx__AttributeProto *at = add_attr(a, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH);
	at->g = g;
}

OnnxTensor *
onnx_tensor(Arena *a, const char *name, int elem, int rank, const int64_t *dims,
            const void *data, size_t nbytes)
{
	OnnxTensor *t = ARENA_NEW(a, OnnxTensor);

	*t = (OnnxTensor)ONNX__TENSOR_PROTO__INIT;
	t->name = (char *)name;
	t->has_data_type = 1;
	t->data_type = elem;
	t->n_dims = (size_t)rank;
	t->dims = arena_dup(a, dims, sizeof *dims * (size_t)rank);
	t->has_raw_data = 1;
	t->raw_data.len = nbytes;
	t->raw_data.data = (uint8_t *)data;
	return t;
}

/* ---- computed initializers ---- */

OnnxTensor *
onnx_tensor_scaled(Arena *a, const char *name, int rank, const int64_t *dims, const OnnxScaled *s)
{
	OnnxScaled *r = arena_dup(a, s, sizeof *s);
	OnnxTensor *t = onnx_tensor(a, name, ONNX_FLOAT, rank, dims, r,
	                            (size_t)(s->rows * s->per) * 4);

	t->has_raw_data = 0;
	t->data_location = (Onnx__TensorProto__DataLocation)ONNX_COMPUTED;
	return t;
}

OnnxTensor *
onnx_tensor_transposed(Arena *a, const char *name, int elem, const OnnxScaled *s)
{
	OnnxScaled *r = arena_dup(a, s, sizeof *s);
	int64_t dims[2] = {s->per, s->rows};
	OnnxTensor *t = onnx_tensor(a, name, elem, 2, dims, r, (size_t)(s->rows * s->per) * (size_t)s->esize);

	t->has_raw_data = 0;
	t->data_location = (Onnx__TensorProto__DataLocation)ONNX_COMPUTED;
	return t;
}

const OnnxScaled *
onnx_tensor_recipe(const OnnxTensor *t)
{
	if (t->has_raw_data || t->has_data_location || (int)t->data_location != ONNX_COMPUTED || !t->raw_data.data)
		return NULL;
	return (const OnnxScaled *)(const void *)t->raw_data.data;
}

/* dst[k] = src[k] * sc for n floats, both unaligned (dst may be src), four
 * at a time; the products are the same float32 ones as one at a time. */
static void
scale_run(uint8_t *dst, const uint8_t *src, int64_t n, float sc)
{
	typedef float F4 __attribute__((vector_size(16)));
	F4 k = {sc, sc, sc, sc};
	int64_t j = 0;

	for (; j + 4 <= n; j += 4) {
		F4 v;
		memcpy(&v, src + 4 * j, 16);
		v *= k;
		memcpy(dst + 4 * j, &v, 16);
	}
	for (; j < n; j++)   /* the same float32 product: decoding and encoding a float32 are exact */
		dtype_encode_f64(DT_FLOAT32, dst + 4 * j, (float)dtype_decode_f64(DT_FLOAT32, src + 4 * j) * sc);
}

/* Scales n floats of s starting at element e, whose source bytes are at
 * src (in s->src, or already copied to dst), into dst. */
static void
scale_span(const OnnxScaled *s, uint64_t e, uint64_t n, const uint8_t *src, uint8_t *dst)
{
	uint64_t end = e + n, per = (uint64_t)s->per;

	while (e < end) {
		uint64_t row = e / per, stop = (row + 1) * per < end ? (row + 1) * per : end;
		scale_run(dst, src, (int64_t)(stop - e), s->scale[row]);
		dst += 4 * (stop - e);
		src += 4 * (stop - e);
		e = stop;
	}
}

/* Elements [e, e + n) of a transposed recipe into dst, read from s->src in
 * tiles of 32 source rows, so that each source line is read sequentially
 * while the tile's output rows are filled. */
static void
transpose_span(const OnnxScaled *s, uint64_t e, uint64_t n, uint8_t *dst)
{
	const uint64_t rows = (uint64_t)s->rows, per = (uint64_t)s->per, es = (uint64_t)s->esize;
	const uint64_t end = e + n;

	while (e < end) {
		uint64_t i = e / rows, j0 = e % rows;      /* output row i = source column i */
		uint64_t j1 = end - (e - j0) < rows ? end - (e - j0) : rows;
		if (j0 == 0 && j1 == rows && (end - e) / rows >= 2) {
			uint64_t ni = (end - e) / rows;    /* whole output rows i .. i + ni */
			for (uint64_t jb = 0; jb < rows; jb += 32) {
				uint64_t je = jb + 32 < rows ? jb + 32 : rows;
				for (uint64_t ii = 0; ii < ni; ii++)
					for (uint64_t j = jb; j < je; j++)
						memcpy(dst + (ii * rows + j) * es, s->src + (j * per + i + ii) * es, es);
			}
			dst += ni * rows * es;
			e += ni * rows;
			continue;
		}
		for (uint64_t j = j0; j < j1; j++)
			memcpy(dst + (j - j0) * es, s->src + (j * per + i) * es, es);
		dst += (j1 - j0) * es;
		e += j1 - j0;
	}
}

void
onnx_scaled_fill(const OnnxScaled *s, uint64_t off, size_t n, uint8_t *dst)
{
	if (!s->scale)
		transpose_span(s, off / (uint64_t)s->esize, n / (uint64_t)s->esize, dst);
	else
		scale_span(s, off / 4, n / 4, s->src + off, dst);
}

const uint8_t *
onnx_tensor_bytes(Arena *a, OnnxTensor *t)
{
	const OnnxScaled *s = onnx_tensor_recipe(t);

	if (s) {
		uint8_t *p = arena_alloc(a, t->raw_data.len);
		onnx_scaled_fill(s, 0, t->raw_data.len, p);
		t->raw_data.data = p;
		t->has_raw_data = 1;
		t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__DEFAULT;
	}
	return t->has_raw_data ? t->raw_data.data : NULL;
}

Onnx__ValueInfoProto *
onnx_value_info(Arena *a, const char *name, int elem, int rank,
                const int64_t *dims, const char *const *params)
{
	Onnx__ValueInfoProto *vi = ARENA_NEW(a, Onnx__ValueInfoProto);
	Onnx__TypeProto *tp = ARENA_NEW(a, Onnx__TypeProto);
	Onnx__TypeProto__Tensor *tt = ARENA_NEW(a, Onnx__TypeProto__Tensor);

	*vi = (Onnx__ValueInfoProto)ONNX__VALUE_INFO_PROTO__INIT;
	*tp = (Onnx__TypeProto)ONNX__TYPE_PROTO__INIT;
	*tt = (Onnx__TypeProto__Tensor)ONNX__TYPE_PROTO__TENSOR__INIT;
	vi->name = (char *)name;
	vi->type = tp;
	tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	tp->tensor_type = tt;
	tt->has_elem_type = 1;
	tt->elem_type = elem;
	if (rank >= 0) {
		Onnx__TensorShapeProto *sh = ARENA_NEW(a, Onnx__TensorShapeProto);
		*sh = (Onnx__TensorShapeProto)ONNX__TENSOR_SHAPE_PROTO__INIT;
		sh->n_dim = (size_t)rank;
		sh->dim = ARENA_ARRAY(a, Onnx__TensorShapeProto__Dimension *, rank + 1);
		for (int i = 0; i < rank; i++) {
			Onnx__TensorShapeProto__Dimension *d = ARENA_NEW(a, Onnx__TensorShapeProto__Dimension);
			*d = (Onnx__TensorShapeProto__Dimension)ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
			if (dims && dims[i] >= 0) {
				d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
				d->dim_value = dims[i];
			} else if (params && params[i]) {
				d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
				d->dim_param = (char *)params[i];
			}
			sh->dim[i] = d;
		}
		tt->shape = sh;
	}
	return vi;
}

Onnx__GraphProto *
onnx_graph_finish(OnnxGraph *g)
{
	Onnx__GraphProto *gp = ARENA_NEW(g->a, Onnx__GraphProto);

	*gp = (Onnx__GraphProto)ONNX__GRAPH_PROTO__INIT;
	gp->name = (char *)g->name;
	gp->node = (OnnxNode **)vec_items(g->a, &g->nodes, &gp->n_node);
	gp->initializer = (OnnxTensor **)vec_items(g->a, &g->inits, &gp->n_initializer);
	gp->input = (Onnx__ValueInfoProto **)vec_items(g->a, &g->inputs, &gp->n_input);
	gp->output = (Onnx__ValueInfoProto **)vec_items(g->a, &g->outputs, &gp->n_output);
	gp->value_info = (Onnx__ValueInfoProto **)vec_items(g->a, &g->value_info, &gp->n_value_info);
	return gp;
}

int
onnx_ir_version(int opset)
{
	/* ONNX's versioning table: the IR version each opset was released with. */
	if (opset <= 18)
		return 8;
	if (opset <= 20)
		return 9;
	if (opset <= 22)
		return 10;
	if (opset <= 23)
		return 11;
	if (opset <= 24)
		return 12;
	/* onnx 1.20 (opset 25) and 1.21 (opset 26) both write IR version 13 */
	return 13;
}

Onnx__ModelProto *
onnx_model(Arena *a, Onnx__GraphProto *g, int opset, const char *producer_version)
{
	Onnx__ModelProto *m = ARENA_NEW(a, Onnx__ModelProto);
	Onnx__OperatorSetIdProto *op = ARENA_NEW(a, Onnx__OperatorSetIdProto);

	*m = (Onnx__ModelProto)ONNX__MODEL_PROTO__INIT;
	*op = (Onnx__OperatorSetIdProto)ONNX__OPERATOR_SET_ID_PROTO__INIT;
	op->domain = "";
	op->has_version = 1;
	op->version = opset;
	m->has_ir_version = 1;
	m->ir_version = onnx_ir_version(opset);
	m->n_opset_import = 1;
	m->opset_import = ARENA_ARRAY(a, Onnx__OperatorSetIdProto *, 1);
	m->opset_import[0] = op;
	m->producer_name = "yobx-export";
	m->producer_version = (char *)producer_version;
	m->graph = g;
	return m;
}

/* ---- local functions ---- */

void
onnx_import(Arena *a, Onnx__OperatorSetIdProto ***v, size_t *n, const char *domain, int64_t version)
{
	Onnx__OperatorSetIdProto *op, **nv;

	domain = domain && strcmp(domain, "ai.onnx") ? domain : "";
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i]->domain ? (*v)[i]->domain : "", domain) == 0)
			return;
	op = ARENA_NEW(a, Onnx__OperatorSetIdProto);
	*op = (Onnx__OperatorSetIdProto)ONNX__OPERATOR_SET_ID_PROTO__INIT;
	op->domain = (char *)domain;
	op->has_version = 1;
	op->version = version;
	nv = ARENA_ARRAY(a, Onnx__OperatorSetIdProto *, *n + 1);
	if (*n)
		memcpy(nv, *v, sizeof *nv * *n);
	nv[(*n)++] = op;
	*v = nv;
}

Onnx__FunctionProto *
onnx_function(Arena *a, const char *domain, const char *name)
{
	Onnx__FunctionProto *f = ARENA_NEW(a, Onnx__FunctionProto);

	*f = (Onnx__FunctionProto)ONNX__FUNCTION_PROTO__INIT;
	f->domain = (char *)domain;
	f->name = (char *)name;
	return f;
}

void
onnx_function_finish(Arena *a, const Onnx__ModelProto *m, Onnx__FunctionProto *f, OnnxFunctionParts *p)
{
	int64_t opset = 1;

	for (size_t i = 0; i < m->n_opset_import; i++)
		if (!m->opset_import[i]->domain || !*m->opset_import[i]->domain)
			opset = m->opset_import[i]->version;
	f->input = (char **)vec_items(a, &p->inputs, &f->n_input);
	f->output = (char **)vec_items(a, &p->outputs, &f->n_output);
	f->attribute = (char **)vec_items(a, &p->attrs, &f->n_attribute);
	f->node = (OnnxNode **)vec_items(a, &p->nodes, &f->n_node);
	f->value_info = (Onnx__ValueInfoProto **)vec_items(a, &p->value_info, &f->n_value_info);
	f->n_opset_import = 0;
	onnx_import(a, &f->opset_import, &f->n_opset_import, "", opset);
	for (size_t i = 0; i < f->n_node; i++)
		onnx_import(a, &f->opset_import, &f->n_opset_import, f->node[i]->domain, 1);
}

void
onnx_model_add_function(Arena *a, Onnx__ModelProto *m, Onnx__FunctionProto *f)
{
	Onnx__FunctionProto **nf = ARENA_ARRAY(a, Onnx__FunctionProto *, m->n_functions + 1);

	if (m->n_functions)
		memcpy(nf, m->functions, sizeof *nf * m->n_functions);
	nf[m->n_functions++] = f;
	m->functions = nf;
	onnx_import(a, &m->opset_import, &m->n_opset_import, f->domain, 1);
}

/* ---- writing ---- */

/* The computed initializers of a model being written, by recipe address. */
typedef struct Computed {
	const uint8_t *key;     /* raw_data.data: the recipe */
	OnnxTensor *t;
} Computed;

typedef struct ComputedSet {
	Computed *v;
	size_t n, cap;
	const OnnxSource *src;  /* the mapped input, or NULL */
	uint8_t *buf;           /* COMPUTE_CHUNK bytes */
} ComputedSet;

/* Bytes computed per step: fits in L2 next to what it reads. */
#define COMPUTE_CHUNK ((size_t)256 << 10)

/* Adds the computed initializers of g and of its subgraphs to cs and gives
 * them has_raw_data, so protobuf-c counts and appends their bytes. */
static void
computed_collect(Arena *a, Onnx__GraphProto *g, ComputedSet *cs)
{
	for (size_t i = 0; i < g->n_initializer; i++) {
		OnnxTensor *t = g->initializer[i];
		if (!onnx_tensor_recipe(t))
			continue;
		if (cs->n == cs->cap) {
			Computed *nv = ARENA_ARRAY(a, Computed, cs->cap ? cs->cap * 2 : 16);
			if (cs->n)
				memcpy(nv, cs->v, sizeof *nv * cs->n);
			cs->v = nv;
			cs->cap = cs->cap ? cs->cap * 2 : 16;
		}
		cs->v[cs->n++] = (Computed){t->raw_data.data, t};
		t->has_raw_data = 1;
	}
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t k = 0; k < g->node[i]->n_attribute; k++) {
			const Onnx__AttributeProto *at = g->node[i]->attribute[k];
			if (at->g)
				computed_collect(a, at->g, cs);
			for (size_t j = 0; j < at->n_graphs; j++)
				computed_collect(a, at->graphs[j], cs);
		}
}

static int
cmp_computed(const void *x, const void *y)
{
	uintptr_t a = (uintptr_t)((const Computed *)x)->key, b = (uintptr_t)((const Computed *)y)->key;

	return a < b ? -1 : a > b;
}

/* The recipe whose address is p, or NULL (cs sorted by key). */
static const OnnxScaled *
computed_find(const ComputedSet *cs, const uint8_t *p)
{
	size_t lo = 0, hi = cs->n;

	if (!cs->n || (uintptr_t)p < (uintptr_t)cs->v[0].key || (uintptr_t)p > (uintptr_t)cs->v[cs->n - 1].key)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cs->v[mid].key == p)
			return (const OnnxScaled *)(const void *)p;
		if ((uintptr_t)cs->v[mid].key < (uintptr_t)p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Gives the computed initializers that were not moved to the data file
 * back their has_raw_data 0 (m stays as the optimizer left it). */
static void
computed_restore(ComputedSet *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		if (!cs->v[i].t->has_data_location)
			cs->v[i].t->has_raw_data = 0;
}

/* Gives back the whole pages of [p, p + len) when they are in the mapped
 * input: a transposed recipe faults in every page of its source, and the
 * sum over a model's weights would otherwise stay resident until the end.
 * MADV_DONTNEED on a private, never written file mapping only unmaps them
 * (touching them again reads the page cache), so the bytes stay valid. */
static void
source_drop(const OnnxSource *src, const uint8_t *p, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), lo, hi;

	if (!src || src->fd < 0 || p < src->base || len > src->len || (size_t)(p - src->base) > src->len - len)
		return;
	lo = ((uintptr_t)p + page - 1) & ~(page - 1);
	hi = ((uintptr_t)p + len) & ~(page - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* Writes the len bytes of s's tensor through put(ctx, bytes, n), a chunk
 * at a time.  Source bytes inside the mapped input are read with pread():
 * the mapping is for random access, and faulting its pages in one by one
 * costs more than the copy.  Returns 0 or an errno. */
static int
computed_write(const ComputedSet *cs, const OnnxScaled *s, size_t len,
               int (*put)(void *ctx, const uint8_t *p, size_t n), void *ctx)
{
	const OnnxSource *src = cs->src;
	int mapped = s->scale && src && src->fd >= 0 && s->src >= src->base && len <= src->len &&
	             (size_t)(s->src - src->base) <= src->len - len;
	int err = 0;

	for (size_t off = 0; off < len && !err; off += COMPUTE_CHUNK) {
		size_t n = len - off < COMPUTE_CHUNK ? len - off : COMPUTE_CHUNK;
		const uint8_t *from = s->src + off;
		if (mapped) {
			size_t got = 0;
			while (got < n) {
				ssize_t r = pread(src->fd, cs->buf + got, n - got, (off_t)(s->src - src->base + off + got));
				if (r < 0 && errno == EINTR)
					continue;
				if (r <= 0)
					break;
				got += (size_t)r;
			}
			if (got == n)
				from = cs->buf;
		}
		if (s->scale)
			scale_span(s, off / 4, n / 4, from, cs->buf);
		else   /* a transposed read is strided: from the mapping, never whole */
			transpose_span(s, off / (size_t)s->esize, n / (size_t)s->esize, cs->buf);
		err = put(ctx, cs->buf, n);
	}
	if (!s->scale)
		source_drop(src, s->src, len);
	return err;
}

typedef struct FileBuf {
	ProtobufCBuffer base;
	FILE *f;
	int err;            /* first errno from fwrite, or 0 */
	const ComputedSet *cs;
} FileBuf;

static int
put_file(void *ctx, const uint8_t *p, size_t n)
{
	return fwrite(p, 1, n, ctx) == n ? 0 : errno ? errno : EIO;
}

static void
file_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	FileBuf *fb = (FileBuf *)b;
	const OnnxScaled *s;

	if (fb->err || !len)
		return;
	if ((s = computed_find(fb->cs, data)))
		fb->err = computed_write(fb->cs, s, len, put_file, fb->f);
	else if (fwrite(data, 1, len, fb->f) != len)
		fb->err = errno ? errno : EIO;
}

/* Closes f (a stream over a dup of the temporary file's descriptor, which
 * durable_commit() syncs) after flushing it; returns 0 or an errno. */
static int
close_flushed(FILE *f, int err)
{
	if (!err && fflush(f) != 0)
		err = errno;
	if (fclose(f) != 0 && !err)
		err = errno;
	return err;
}

/* One tensor moved to the data file. */
typedef struct Blob {
	const uint8_t *data;
	size_t len;
	uint64_t offset;
} Blob;

#define EXT_ALIGN 64
/* protobuf's hard limit on one message; stay a little below it. */
#define PROTO_LIMIT ((size_t)INT32_MAX - ((size_t)1 << 20))
/* When the 2 GB limit forces external data, tensors this small stay inline. */
#define FORCED_MIN 1024

static Onnx__StringStringEntryProto *
entry(Arena *a, const char *key, const char *val)
{
	Onnx__StringStringEntryProto *e = ARENA_NEW(a, Onnx__StringStringEntryProto);

	*e = (Onnx__StringStringEntryProto)ONNX__STRING_STRING_ENTRY_PROTO__INIT;
	e->key = (char *)key;
	e->value = (char *)val;
	return e;
}

/* Points t at length bytes of the file location at offset (external data). */
static void
mark_external(Arena *a, OnnxTensor *t, const char *location, uint64_t offset)
{
	t->has_raw_data = 0;
	t->has_data_location = 1;
	t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	t->n_external_data = 3;
	t->external_data = ARENA_ARRAY(a, Onnx__StringStringEntryProto *, 3);
	t->external_data[0] = entry(a, "location", location);
	t->external_data[1] = entry(a, "offset", arena_printf(a, "%llu", (unsigned long long)offset));
	t->external_data[2] = entry(a, "length", arena_printf(a, "%zu", t->raw_data.len));
}

/* Shape vectors and axes stay inline: onnxruntime reads them while
 * inferring shapes at load time, before external data is there. */
static int
stays_inline(const OnnxTensor *t)
{
	return t->data_type == ONNX_INT64 && t->n_dims <= 1 && t->raw_data.len < FORCED_MIN;
}

/* external_data: reference.  Every inline initializer whose bytes lie
 * verbatim in the mapped input (a stored zip entry of the .pt2) points
 * into that file, named ref, at their offset: nothing of it is written.
 * Returns the first such tensor whose offset onnxruntime could not use
 * as its element type's address (not a multiple of its size), or NULL. */
static OnnxTensor *
reference(Arena *a, Onnx__GraphProto *g, const OnnxSource *src, const char *ref)
{
	for (size_t i = 0; i < g->n_initializer; i++) {
		OnnxTensor *t = g->initializer[i];
		const uint8_t *p = t->raw_data.data;
		uint64_t off;
		int64_t es;
		if (!t->has_raw_data || t->raw_data.len == 0 || stays_inline(t) || !p || p < src->base ||
		    t->raw_data.len > src->len || (size_t)(p - src->base) > src->len - t->raw_data.len)
			continue;
		off = (uint64_t)(p - src->base);
		es = dtype_size(dtype_from_onnx(t->data_type));
		if (es > 1 && off % (uint64_t)es)
			return t;
		mark_external(a, t, ref, off);
	}
	return NULL;
}

/* Moves every inline initializer of at least min bytes to the data file
 * list (grown by doubling); returns the number of blobs. */
static size_t
externalize(Arena *a, Onnx__GraphProto *g, uint64_t min, const char *location,
            Blob **blobs, size_t nblob, size_t *cap, uint64_t *end)
{
	for (size_t i = 0; i < g->n_initializer; i++) {
		OnnxTensor *t = g->initializer[i];
		if (!t->has_raw_data || t->raw_data.len < min || t->raw_data.len == 0)
			continue;
		if (stays_inline(t))
			continue;
		if (nblob == *cap) {
			Blob *nb = ARENA_ARRAY(a, Blob, *cap ? *cap * 2 : 16);
			if (nblob)
				memcpy(nb, *blobs, sizeof *nb * nblob);
			*blobs = nb;
			*cap = *cap ? *cap * 2 : 16;
		}
		*end = (*end + EXT_ALIGN - 1) / EXT_ALIGN * EXT_ALIGN;
		(*blobs)[nblob] = (Blob){t->raw_data.data, t->raw_data.len, *end};
		*end += t->raw_data.len;
		mark_external(a, t, location, (*blobs)[nblob].offset);
		nblob++;
	}
	return nblob;
}

/* Bytes copied between two starts of the data file's write-back. */
#define WRITEBACK_STEP ((size_t)16 << 20)

/* Writes len bytes at p to fd.  Bytes inside src's mapping are copied file
 * to file by the kernel (copy_file_range), so weights never pass through
 * this process's memory, WRITEBACK_STEP at a time, each step's write-back
 * started at once (durable_writeback()): the disk then writes while the
 * copy goes on, and the final fsync has little left to wait for.  Anything
 * else is written from memory.  Returns 0 or an errno. */
static int
write_bytes(int fd, const uint8_t *p, size_t len, const OnnxSource *src)
{
	if (src && src->fd >= 0 && p >= src->base && len <= src->len &&
	    (size_t)(p - src->base) <= src->len - len) {
		off_t off = (off_t)(p - src->base);
		while (len) {
			off_t at = lseek(fd, 0, SEEK_CUR);
			ssize_t n = copy_file_range(src->fd, &off, fd, NULL,
			                            len < WRITEBACK_STEP ? len : WRITEBACK_STEP, 0);
			if (n <= 0)
				break;   /* not supported here: finish with write() */
			if (at >= 0)
				durable_writeback(fd, (uint64_t)at, (uint64_t)n);
			p += n;
			len -= (size_t)n;
		}
	}
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? errno : EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int
put_fd(void *ctx, const uint8_t *p, size_t n)
{
	return write_bytes(*(int *)ctx, p, n, NULL);
}

static int
write_data(int fd, const Blob *b, size_t n, const ComputedSet *cs)
{
	static const uint8_t zeros[EXT_ALIGN];
	uint64_t pos = 0;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		size_t pad = (size_t)(b[i].offset - pos);
		const OnnxScaled *s = computed_find(cs, b[i].data);
		if (!(err = write_bytes(fd, zeros, pad, NULL)))
			err = s ? computed_write(cs, s, b[i].len, put_fd, &fd) : write_bytes(fd, b[i].data, b[i].len, cs->src);
		pos = b[i].offset + b[i].len;
	}
	return err;
}

/* The packed model, streamed to a new temporary file of out; 0 or an errno. */
static int
write_proto(Onnx__ModelProto *m, const char *path, const ComputedSet *cs, Durable *out)
{
	FileBuf fb = {{file_append}, NULL, 0, cs};
	int fd = durable_open(out, path), copy, err;

	if (fd < 0)
		return errno;
	if ((copy = dup(fd)) < 0 || !(fb.f = fdopen(copy, "wb"))) {
		err = errno;
		if (copy >= 0)
			close(copy);
		durable_drop(out, fd);
		return err;
	}
	protobuf_c_message_pack_to_buffer(&m->base, &fb.base);
	if ((err = close_flushed(fb.f, fb.err)))
		durable_drop(out, fd);
	return err;
}

/* A write planned: which initializers go where, then the bytes. */
struct OnnxWrite {
	Arena *a;
	Onnx__ModelProto *m;
	const char *path, *data_path;
	ComputedSet cs;
	Blob *blobs;            /* the tensors of path.data, in offset order */
	size_t nblob;
};

int
onnx_write_plan(Arena *a, Onnx__ModelProto *m, const char *path, int64_t ext_threshold, const char *ref,
                const OnnxSource *src, OnnxWrite **out, Diag *d)
{
	const char *slash = strrchr(path, '/');
	char *location = arena_printf(a, "%s.data", slash ? slash + 1 : path);
	OnnxWrite *w = ARENA_NEW(a, OnnxWrite);
	size_t cap = 0;
	uint64_t end = 0;
	OnnxTensor *bad;

	*out = NULL;
	w->a = a, w->m = m, w->path = path;
	w->data_path = arena_printf(a, "%s.data", path);
	w->cs = (ComputedSet){NULL, 0, 0, src, NULL};
	computed_collect(a, m->graph, &w->cs);
	if (w->cs.n) {
		qsort(w->cs.v, w->cs.n, sizeof *w->cs.v, cmp_computed);
		w->cs.buf = arena_alloc(a, COMPUTE_CHUNK);
	}
	if (ref && (!src || !src->base))
		die("onnx_write_plan: a reference without a mapped input");
	if (ref && (bad = reference(a, m->graph, src, ref))) {
		computed_restore(&w->cs);
		return diag_report(d, YE_EXTERNAL_REFERENCE, &(DiagAt){.file = path, .node = bad->name},
			"external_data: reference: initializer '%s' lies at offset %llu of '%s', not a multiple of its "
			"element size: onnxruntime cannot read it in place (use external_data: file)", bad->name,
			(unsigned long long)(bad->raw_data.data - src->base), ref);
	}
	if (ext_threshold >= 0)
		w->nblob = externalize(a, m->graph, (uint64_t)ext_threshold, location, &w->blobs, w->nblob, &cap, &end);
	if (protobuf_c_message_get_packed_size(&m->base) > PROTO_LIMIT)
		w->nblob = externalize(a, m->graph, FORCED_MIN, location, &w->blobs, w->nblob, &cap, &end);
	if (protobuf_c_message_get_packed_size(&m->base) > PROTO_LIMIT) {
		computed_restore(&w->cs);
		return diag_report(d, YE_MODEL_TOO_LARGE, &(DiagAt){.file = path},
			"the model is larger than 2 GB even with its weights stored outside");
	}
	*out = w;
	return 0;
}

static int
stream(OnnxWrite *w, Durable *out, Diag *d)
{
	int err, data_fd = -1;

	if (w->nblob && ((data_fd = durable_open(out, w->data_path)) < 0 ||
	                 (err = write_data(data_fd, w->blobs, w->nblob, &w->cs)))) {
		err = data_fd < 0 ? errno : err;
		if (data_fd >= 0)
			durable_drop(out, data_fd);
		if (err == EFAULT && mapguard_changed())
			return mapguard_report(d, NULL);   /* the input shrank under write() */
		return diag_report(d, YE_WRITE_FAILED, &(DiagAt){.file = w->data_path},
			"cannot write: %s", strerror(err));
	}
	if ((err = write_proto(w->m, w->path, &w->cs, out))) {
		if (data_fd >= 0)
			durable_drop(out, data_fd);
		if (err == EFAULT && mapguard_changed())
			return mapguard_report(d, NULL);
		return diag_report(d, YE_WRITE_FAILED, &(DiagAt){.file = w->path}, "cannot write: %s", strerror(err));
	}
	return 0;
}

int
onnx_write_stream(OnnxWrite *w, Durable *out, Diag *d)
{
	int rc = stream(w, out, d);

	computed_restore(&w->cs);
	return rc;
}

int
onnx_write_to(Arena *a, Onnx__ModelProto *m, const char *path, int64_t ext_threshold,
              const OnnxSource *src, Durable *out, Diag *d)
{
	OnnxWrite *w;
	int rc = onnx_write_plan(a, m, path, ext_threshold, NULL, src, &w, d);

	return rc ? rc : onnx_write_stream(w, out, d);
}

int
onnx_write(Arena *a, Onnx__ModelProto *m, const char *path, int64_t ext_threshold,
           const OnnxSource *src, Diag *d)
{
	Durable out;
	const char *failed = path;
	int rc, err;

	durable_init(&out);
	if ((rc = onnx_write_to(a, m, path, ext_threshold, src, &out, d)))
		return rc;
	if ((err = durable_commit(&out, &failed)))
		return diag_report(d, YE_WRITE_FAILED, &(DiagAt){.file = failed}, "cannot write: %s", strerror(err));
	return 0;
}

uint64_t
onnx_fnv1a(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}
