/* onnx.h: building ONNX protobuf-c messages in the arena, and writing them.
 *
 * Every message, name and attribute lives in the conversion's Arena; tensor
 * bytes are never copied: an initializer's raw_data points at the weight in
 * the mapped input file.  OnnxGraph collects nodes, initializers, inputs,
 * outputs and value_info in insertion order (so output is deterministic)
 * and becomes a GraphProto with onnx_graph_finish().
 *
 * onnx_write() streams the packed ModelProto to a temporary file next to
 * the target and renames it into place; initializers at least
 * ext_threshold bytes large go to OUT.data (external data). */
#ifndef ONNX_H
#define ONNX_H

#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "diag.h"
#include "onnx.pb-c.h"

typedef Onnx__NodeProto OnnxNode;
typedef Onnx__TensorProto OnnxTensor;

/* A growable array of message pointers in the arena. */
typedef struct OnnxVec {
	void **v;
	size_t n, cap;
} OnnxVec;

void onnx_vec_push(Arena *a, OnnxVec *vec, void *p);

typedef struct OnnxGraph {
	Arena *a;
	const char *name;
	OnnxVec nodes;          /* OnnxNode *, in emission order */
	OnnxVec inits;          /* OnnxTensor * */
	OnnxVec inputs;         /* Onnx__ValueInfoProto * */
	OnnxVec outputs;        /* Onnx__ValueInfoProto * */
	OnnxVec value_info;     /* Onnx__ValueInfoProto *; NULL entries are skipped */
} OnnxGraph;

/* A node with the given inputs ("" for an omitted optional input) and
 * outputs; names are not copied. */
OnnxNode *onnx_node(Arena *a, const char *op_type, const char *name,
                    int nin, const char *const *in, int nout, const char *const *out);
void onnx_attr_int(Arena *a, OnnxNode *n, const char *name, int64_t v);
void onnx_attr_float(Arena *a, OnnxNode *n, const char *name, float v);
void onnx_attr_ints(Arena *a, OnnxNode *n, const char *name, int k, const int64_t *v);
void onnx_attr_floats(Arena *a, OnnxNode *n, const char *name, int k, const float *v);
void onnx_attr_string(Arena *a, OnnxNode *n, const char *name, const char *s);
void onnx_attr_tensor(Arena *a, OnnxNode *n, const char *name, OnnxTensor *t);
void onnx_attr_graph(Arena *a, OnnxNode *n, const char *name, Onnx__GraphProto *g);

/* A tensor of ONNX element type elem whose raw bytes are data[0..nbytes)
 * (not copied: data must outlive the message). */
OnnxTensor *onnx_tensor(Arena *a, const char *name, int elem, int rank, const int64_t *dims,
                        const void *data, size_t nbytes);

/* A tensor type: dims[i] >= 0 is static; otherwise params[i] names it
 * (dim_param) or, when params or params[i] is NULL, the dim is left unknown.
 * rank < 0 means "rank unknown" (no shape). */
Onnx__ValueInfoProto *onnx_value_info(Arena *a, const char *name, int elem, int rank,
                                      const int64_t *dims, const char *const *params);

/* Turns the collected lists into a GraphProto. */
Onnx__GraphProto *onnx_graph_finish(OnnxGraph *g);

/* The IR version that goes with an ai.onnx opset (8 for 17-18 ... 11 for 23). */
int onnx_ir_version(int opset);
Onnx__ModelProto *onnx_model(Arena *a, Onnx__GraphProto *g, int opset, const char *producer_version);

/* A file mapped at base (the input .pt2): tensors whose bytes lie inside
 * it are copied to the external data file by the kernel, file to file. */
typedef struct OnnxSource {
	int fd;                 /* open file descriptor, or -1 */
	const uint8_t *base;    /* where the file is mapped */
	size_t len;
} OnnxSource;

/* Writes m to path through path.tmp.<pid> (and path.data when some
 * initializer of at least ext_threshold bytes exists; ext_threshold < 0
 * disables external data unless the file would pass 2 GB; src may be NULL).  Marks those
 * initializers as external in m.  Returns 0 or DIAG_INPUT; on error no new
 * file is left behind. */
int onnx_write(Arena *a, Onnx__ModelProto *m, const char *path, int64_t ext_threshold,
               const OnnxSource *src, Diag *d);

/* 64-bit FNV-1a of n bytes, for golden renderings of initializers. */
uint64_t onnx_fnv1a(const void *p, size_t n);
/* Writes a text rendering of m: opset, inputs and outputs with types, each
 * node with its attributes, initializers as dtype, shape and FNV-1a hash.
 * External data is read from dir (the model's folder) when dir != NULL. */
void onnx_print(FILE *f, const Onnx__ModelProto *m, const char *dir);

#endif
