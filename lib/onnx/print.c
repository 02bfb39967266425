/* print.c: a text rendering of an ONNX model, for golden tests.
 *
 * One line per graph input, output, initializer and node, in file order.
 * Node outputs carry the type their value_info gives; initializers show
 * dtype, shape and the FNV-1a hash of their bytes, so a golden file pins
 * weights without holding them.  Floats print with %.9g. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "onnx/onnx.h"

static const char *
elem_name(int elem)
{
	for (int t = 1; t < DT_COUNT; t++)
		if (dtype_onnx((DType)t) == elem)
			return dtype_name((DType)t);
	return "?";
}

static void
print_type(FILE *f, const Onnx__TypeProto *tp)
{
	const Onnx__TypeProto__Tensor *tt;

	if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) {
		fputs("?", f);
		return;
	}
	tt = tp->tensor_type;
	fputs(elem_name(tt->elem_type), f);
	if (!tt->shape) {
		fputs("[...]", f);
		return;
	}
	fputc('[', f);
	for (size_t i = 0; i < tt->shape->n_dim; i++) {
		const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
		if (i)
			fputc(',', f);
		if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
			fprintf(f, "%" PRId64, d->dim_value);
		else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
			fputs(d->dim_param, f);
		else
			fputc('?', f);
	}
	fputc(']', f);
}

static void
print_ints(FILE *f, size_t n, const int64_t *v)
{
	fputc('[', f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%" PRId64, i ? "," : "", v[i]);
	fputc(']', f);
}

/* The tensor's bytes: raw_data, or its external file under dir (malloc'd
 * into *own, which the caller frees). */
static const uint8_t *
tensor_bytes(const Onnx__TensorProto *t, const char *dir, size_t *len, uint8_t **own)
{
	const char *loc = NULL;
	long long off = 0, n = -1;
	char *path, why[160];
	uint64_t size;
	int fd;

	*own = NULL;
	if (t->has_raw_data) {
		*len = t->raw_data.len;
		return t->raw_data.data;
	}
	for (size_t i = 0; i < t->n_external_data; i++) {
		const Onnx__StringStringEntryProto *e = t->external_data[i];
		if (strcmp(e->key, "location") == 0)
			loc = e->value;
		else if (strcmp(e->key, "offset") == 0)
			off = atoll(e->value);
		else if (strcmp(e->key, "length") == 0)
			n = atoll(e->value);
	}
	if (!dir || !loc || n < 0 || !(path = malloc(strlen(dir) + strlen(loc) + 2)))
		return NULL;
	sprintf(path, "%s/%s", dir, loc);
	fd = file_open(path, 0, &size, why, sizeof why);
	free(path);
	if (fd < 0)
		return NULL;
	/* the bytes the tensor names must lie in the file: n and off are its word */
	if (off < 0 || (uint64_t)off > size || (uint64_t)n > size - (uint64_t)off || !(*own = malloc((size_t)n + 1)) ||
	    pread(fd, *own, (size_t)n, (off_t)off) != (ssize_t)n) {
		free(*own);
		*own = NULL;
	}
	close(fd);
	*len = (size_t)n;
	return *own;
}

static void
print_tensor(FILE *f, const Onnx__TensorProto *t, const char *dir)
{
	uint8_t *own;
	size_t len = 0;
	const uint8_t *b = tensor_bytes(t, dir, &len, &own);

	fputs(elem_name(t->data_type), f);
	print_ints(f, t->n_dims, t->dims);
	if (t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
		fputs(" external", f);
	if (b)
		fprintf(f, " fnv1a %016" PRIx64, onnx_fnv1a(b, len));
	else
		fputs(" (no data)", f);
	free(own);
}

static void
print_attr(FILE *f, const Onnx__AttributeProto *at, const char *dir)
{
	fprintf(f, " %s=", at->name);
	switch (at->type) {
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT: fprintf(f, "%" PRId64, at->i); break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT: fprintf(f, "%.9g", at->f); break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING: fprintf(f, "'%.*s'", (int)at->s.len, (const char *)at->s.data); break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS: print_ints(f, at->n_ints, at->ints); break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
		fputc('[', f);
		for (size_t i = 0; i < at->n_floats; i++)
			fprintf(f, "%s%.9g", i ? "," : "", at->floats[i]);
		fputc(']', f);
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR: print_tensor(f, at->t, dir); break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH: fprintf(f, "graph:%s", at->g->name); break;
	default: fputs("?", f); break;
	}
}

static void
print_graph(FILE *f, const Onnx__GraphProto *g, const char *dir)
{
	Arena a;
	StrMap *vi;

	arena_init(&a);
	vi = strmap_new(&a, g->n_value_info + g->n_output + 16);
	for (size_t i = 0; i < g->n_value_info; i++)
		strmap_put(vi, g->value_info[i]->name, g->value_info[i]);
	for (size_t i = 0; i < g->n_output; i++)
		strmap_put(vi, g->output[i]->name, g->output[i]);
	for (size_t i = 0; i < g->n_input; i++) {
		fprintf(f, "input %s: ", g->input[i]->name);
		print_type(f, g->input[i]->type);
		fputc('\n', f);
	}
	for (size_t i = 0; i < g->n_output; i++) {
		fprintf(f, "output %s: ", g->output[i]->name);
		print_type(f, g->output[i]->type);
		fputc('\n', f);
	}
	for (size_t i = 0; i < g->n_initializer; i++) {
		fprintf(f, "init %s: ", g->initializer[i]->name);
		print_tensor(f, g->initializer[i], dir);
		fputc('\n', f);
	}
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *n = g->node[i];
		fputs("node ", f);
		for (size_t k = 0; k < n->n_output; k++) {
			const Onnx__ValueInfoProto *v = n->output[k][0] ? strmap_get(vi, n->output[k]) : NULL;
			fprintf(f, "%s%s", k ? ", " : "", n->output[k][0] ? n->output[k] : "_");
			if (v) {
				fputs(": ", f);
				print_type(f, v->type);
			}
		}
		fprintf(f, " = %s(", n->op_type);
		for (size_t k = 0; k < n->n_input; k++)
			fprintf(f, "%s%s", k ? ", " : "", n->input[k]);
		fputc(')', f);
		for (size_t k = 0; k < n->n_attribute; k++)
			print_attr(f, n->attribute[k], dir);
		fputc('\n', f);
	}
	arena_free(&a);
}

void
onnx_print(FILE *f, const Onnx__ModelProto *m, const char *dir)
{
	fprintf(f, "ir_version %" PRId64 ", producer %s, opsets", m->ir_version,
	        m->producer_name ? m->producer_name : "?");
	for (size_t i = 0; i < m->n_opset_import; i++)
		fprintf(f, " %s:%" PRId64, m->opset_import[i]->domain && m->opset_import[i]->domain[0]
		                               ? m->opset_import[i]->domain : "ai.onnx",
		        m->opset_import[i]->version);
	fputc('\n', f);
	if (m->graph)
		print_graph(f, m->graph, dir);
}
