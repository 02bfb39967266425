/* onnx/onnx.h: building ONNX protobuf-c messages in the arena, and writing them.
 *
 * Every message, name and attribute lives in the conversion's Arena; tensor
 * bytes are never copied: an initializer's raw_data points at the weight in
 * the mapped input file.  OnnxGraph collects nodes, initializers, inputs,
 * outputs and value_info in insertion order (so output is deterministic)
 * and becomes a GraphProto with onnx_graph_finish().
 *
 * onnx_write() streams the packed ModelProto to a temporary file next to
 * the target and renames it into place (core's durable_*); initializers at least
 * ext_threshold bytes large go to OUT.data (external data).
 *
 * A computed initializer (onnx_tensor_scaled) holds a recipe instead of
 * bytes: a weight folded with per-channel scales (a BatchNorm folded into a
 * Conv) would otherwise be tens of MB written into fresh pages, then read
 * again by the writer.  The writer computes its bytes while streaming them
 * out, one pass over the source weight.  Such a tensor has has_raw_data 0,
 * raw_data.len its byte length, raw_data.data pointing at its OnnxScaled,
 * and data_location ONNX_COMPUTED with has_data_location 0 (so neither is
 * ever serialized as such); code that needs its bytes in memory calls
 * onnx_tensor_bytes(). */
#ifndef ONNX_H
#define ONNX_H

#include <stdint.h>
#include <stdio.h>

#include "core/core.h"
#include "sym/sym.h"
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

/* The recipe of a computed initializer, one of two kinds.  Scaled (scale
 * set): a float32 tensor whose element k is src[k] * scale[k / per], a
 * float32 product (row k / per scaled).  Transposed (scale NULL): the
 * [rows, per] matrix of esize-byte elements at src transposed, [per, rows]:
 * element k is src[(k % rows) * per + k / rows] (a linear layer's weight
 * stored as MatMul reads it, so no Transpose is left for the runtime). */
typedef struct OnnxScaled {
	const uint8_t *src;     /* rows * per values, any alignment (mapped file or arena) */
	int64_t rows, per;
	const float *scale;     /* rows entries (arena), or NULL: transposed */
	int esize;              /* transposed: bytes per element (1, 2, 4 or 8) */
} OnnxScaled;

/* data_location of a computed initializer (has_data_location stays 0). */
#define ONNX_COMPUTED 0x434d5054

/* A float32 initializer whose bytes the writer computes from s (s is not
 * copied: it and its arrays must outlive the message). */
OnnxTensor *onnx_tensor_scaled(Arena *a, const char *name, int rank, const int64_t *dims,
                               const OnnxScaled *s);
/* An initializer of element type elem (esize bytes each) whose bytes the
 * writer computes from the transposed recipe s (s->scale NULL, s->esize set;
 * not copied). */
OnnxTensor *onnx_tensor_transposed(Arena *a, const char *name, int elem, const OnnxScaled *s);
/* The recipe of a computed initializer, or NULL for any other tensor. */
const OnnxScaled *onnx_tensor_recipe(const OnnxTensor *t);
/* Computes a computed initializer's bytes into the arena, after which t is
 * an ordinary tensor; returns raw_data.data (NULL when t has none). */
const uint8_t *onnx_tensor_bytes(Arena *a, OnnxTensor *t);
/* Writes bytes [off, off + n) of s's tensor to dst (off and n multiples of
 * the element size). */
void onnx_scaled_fill(const OnnxScaled *s, uint64_t off, size_t n, uint8_t *dst);

/* A tensor type: dims[i] >= 0 is static; otherwise params[i] names it
 * (dim_param) or, when params or params[i] is NULL, the dim is left unknown.
 * rank < 0 means "rank unknown" (no shape). */
Onnx__ValueInfoProto *onnx_value_info(Arena *a, const char *name, int elem, int rank,
                                      const int64_t *dims, const char *const *params);

/* Turns the collected lists into a GraphProto. */
Onnx__GraphProto *onnx_graph_finish(OnnxGraph *g);

/* The newest ai.onnx opset the converter writes: the top of the `opset`
 * option's range and of every op row that no later row replaces. */
#define ONNX_OPSET_NEWEST 26

/* The IR version that goes with an ai.onnx opset (8 for 17-18 ... 11 for 23,
 * 12 for 24, 13 for 25-26). */
int onnx_ir_version(int opset);
Onnx__ModelProto *onnx_model(Arena *a, Onnx__GraphProto *g, int opset, const char *producer_version);

/* Local functions (ModelProto.functions).  onnx_function() makes an empty
 * FunctionProto domain.name; onnx_function_finish() gives it the collected
 * inputs, outputs, attribute names (char *), nodes and value_info, and
 * imports into it every domain its nodes use (ai.onnx at m's opset, others
 * at version 1); onnx_model_add_function() appends it to m's functions and
 * imports its domain into m. */
typedef struct OnnxFunctionParts {
	OnnxVec inputs, outputs, attrs;   /* names (char *) */
	OnnxVec nodes;                    /* OnnxNode * */
	OnnxVec value_info;               /* Onnx__ValueInfoProto * */
} OnnxFunctionParts;
Onnx__FunctionProto *onnx_function(Arena *a, const char *domain, const char *name);
void onnx_function_finish(Arena *a, const Onnx__ModelProto *m, Onnx__FunctionProto *f, OnnxFunctionParts *p);
void onnx_model_add_function(Arena *a, Onnx__ModelProto *m, Onnx__FunctionProto *f);
/* Adds an import of domain (version) to *v (n entries) unless it has one. */
void onnx_import(Arena *a, Onnx__OperatorSetIdProto ***v, size_t *n, const char *domain, int64_t version);

/* A file mapped at base (the input .pt2): tensors whose bytes lie inside
 * it are copied to the external data file by the kernel, file to file. */
typedef struct OnnxSource {
	int fd;                 /* open file descriptor, or -1 */
	const uint8_t *base;    /* where the file is mapped */
	size_t len;
} OnnxSource;

/* ==== reading ONNX (load.c) ==== */

/* An ONNX model given as input.  Its external data files stay mapped (and
 * open) until onnx_input_close(); source is the first of them, for
 * onnx_write() (fd -1 when the model has none). */
typedef struct OnnxDataFile {
	const char *location;   /* as the tensors name it, relative to the model's folder */
	int fd;
	const uint8_t *base;
	size_t len;
} OnnxDataFile;

typedef struct OnnxInput {
	Onnx__ModelProto *model;    /* in the arena */
	OnnxSource source;
	int nfile;
	OnnxDataFile *files;
	const uint8_t *map;         /* the .onnx file itself, when onnx_read_file() mapped it */
	size_t map_len;
} OnnxInput;

/* Unpacks the ModelProto in buf[0..len) into the arena and points every
 * external tensor at its bytes in dir/location, which then read as raw
 * data (dir NULL: external data is an error, the model came from memory).  label names the model in messages.  Returns 0, or
 * DIAG_INPUT (YE_ONNX_INPUT) with what is wrong. */
int onnx_read(OnnxInput *in, Arena *a, const char *label, const uint8_t *buf, size_t len,
              const char *dir, Diag *d);
/* The same for the file at path (external data beside it). */
int onnx_read_file(OnnxInput *in, Arena *a, const char *path, Diag *d);
void onnx_input_close(OnnxInput *in);
/* Whether a model read from input is well formed enough for the optimizer,
 * the FLOPs count and the writer (check.c): single-assignment names, every
 * read defined before it, tensors holding exactly their bytes, attributes
 * holding their declared kind; typed tensor values become raw bytes, the
 * form the optimizer reads.  Returns 0 or DIAG_INPUT (YE_ONNX_INPUT)
 * naming the first problem; label names the model. */
int onnx_model_check(Onnx__ModelProto *m, Arena *a, const char *label, Diag *d);

/* Writes m to path through path.tmp.<pid> (and path.data when some
 * initializer of at least ext_threshold bytes exists; ext_threshold < 0
 * disables external data unless the file would pass 2 GB; src may be NULL).  Marks those
 * initializers as external in m; computed initializers are computed as they
 * are written and stay computed in m unless moved to path.data.  Returns 0
 * or DIAG_INPUT; on error no new file is left behind. */
int onnx_write(Arena *a, Onnx__ModelProto *m, const char *path, int64_t ext_threshold,
               const OnnxSource *src, Diag *d);
/* onnx_write() without the commit: the temporary files (path.data's first)
 * join out, for the caller's durable_commit() with its other files.  On an
 * error the model's temporary files are removed from out and the disk. */
int onnx_write_to(Arena *a, Onnx__ModelProto *m, const char *path, int64_t ext_threshold,
                  const OnnxSource *src, Durable *out, Diag *d);

/* onnx_write_to() in two steps, so that the caller can read the model as
 * it will be written (which initializers are external, where) while the
 * bytes stream: onnx_write_plan() marks the initializers, in the arena
 * (*w is NULL on an error, and m as it was); onnx_write_stream() writes
 * the files into out.  ref, when not NULL, is the file name of src's file
 * as the written model names it (external_data: reference, the output in
 * the input's folder): every initializer whose bytes lie verbatim in src
 * points there, and only the others may go to path.data; an offset that
 * is not a multiple of the element size is an error (YE_EXTERNAL_REFERENCE). */
typedef struct OnnxWrite OnnxWrite;
int onnx_write_plan(Arena *a, Onnx__ModelProto *m, const char *path, int64_t ext_threshold, const char *ref,
                    const OnnxSource *src, OnnxWrite **w, Diag *d);
int onnx_write_stream(OnnxWrite *w, Durable *out, Diag *d);

/* 64-bit FNV-1a of n bytes, for golden renderings of initializers. */
uint64_t onnx_fnv1a(const void *p, size_t n);
/* Writes a text rendering of m: opset, inputs and outputs with types, each
 * node with its attributes, initializers as dtype, shape and FNV-1a hash.
 * External data is read from dir (the model's folder) when dir != NULL. */
void onnx_print(FILE *f, const Onnx__ModelProto *m, const char *dir);

/* ==== upgrade ==== */

/* What onnx_upgrade() changed: the opsets, and how many nodes each row of
 * upgrade.def rewrote (counts[i] for row i). */
typedef struct OnnxUpgradeStats {
	int from, to;
	int nodes;              /* nodes rewritten */
	int *counts;
} OnnxUpgradeStats;

/* Raises m's ai.onnx opset to `to` (7 <= its own <= to), rewriting the nodes
 * whose operator changed in between (upgrade.def) in the graph, its
 * subgraphs and its functions; nothing when m is already at `to`.  A node
 * that cannot be upgraded exactly fails with a diagnostic naming it. */
int onnx_upgrade(Onnx__ModelProto *m, int to, Arena *a, const char *label, OnnxUpgradeStats *st, Diag *d);
/* "Softmax-13: 1, Squeeze-13: 2", or "no node changed". */
const char *onnx_upgrade_summary(Arena *a, const OnnxUpgradeStats *st);
/* Row i of upgrade.def: its operator, version, and whether it has an
 * adapter (0: the row refuses). */
int onnx_upgrade_rows(void);
const char *onnx_upgrade_row(int i, int *version, int *exact);

/* ==== ops ==== */

/* The ONNX operators, one per row of onnxops.def: their enum, op type,
 * domain and opset range here; each layer's table of its own column (type
 * inference, folding, FLOPs) is indexed by the same enum. */

enum {
#define OP(id, name, dom, lo, hi, infer, models, fold, fold_in, fl, fl_k) ONNXOP_##id,
#include "onnx/onnxops.def"
#undef OP
	ONNXOP_COUNT
};

typedef struct OnnxOp {
	const char *name;       /* op type */
	const char *domain;     /* "" for ai.onnx */
	int since, max;         /* opsets the rules assume (max 0: still current) */
} OnnxOp;

extern const OnnxOp onnx_ops[ONNXOP_COUNT];

/* The row of op type op in domain (NULL, "" or "ai.onnx" for ai.onnx), or
 * -1.  A search by halves over the sorted rows: callers that look up every
 * node (constant folding, type inference) pay a few string compares. */
int onnx_op_find(const char *domain, const char *op);
/* onnx_op_find() of node n's domain and op type. */
int onnx_op_of(const OnnxNode *n);

/* ==== legal ==== */

/* Why a node is not legal (onnx_node_legal). */
enum { ONNX_ILLEGAL_SCHEMA = 1, ONNX_ILLEGAL_CPU, ONNX_ILLEGAL_MIXED };
typedef struct OnnxIllegal {
	int what;               /* ONNX_ILLEGAL_SCHEMA: the schema does not allow the type; _CPU:
	                         * onnxruntime's CPU provider has no kernel for it; _MIXED: two
	                         * values of one type parameter differ */
	int output;             /* 1: the value is an output */
	int index;              /* its input or output position */
	int elem;               /* its ONNX element type */
	int other;              /* _MIXED: the value it differs from (outputs from 1000) */
	int since;              /* the operator version in force */
} OnnxIllegal;

/* Are the element types in[nin] and out[nout] (0: unknown, not checked) of
 * a node domain:op at opset allowed by its schema and, when cpu, by
 * onnxruntime's CPU kernels (lib/onnx/optypes.def)?  Returns 0 when legal,
 * 1 (and *why) when not, -1 when the table does not know the operator. */
int onnx_node_legal(const char *domain, const char *op, int opset, int cpu, int nin, const int *in, int nout,
                    const int *out, OnnxIllegal *why);
/* why as a sentence: "Less-13 does not take bool for input 0 (its ONNX schema)". */
const char *onnx_illegal_text(Arena *a, const char *op, const OnnxIllegal *why);

/* Fills at's node, target and frame for ONNX node n (the pipeline maps a
 * lowered node to the ATen node it came from). */
typedef struct OnnxOrigin {
	void (*fn)(void *ctx, const OnnxNode *n, DiagAt *at);
	void *ctx;
} OnnxOrigin;

/* onnx_node_legal() over every node of m (subgraphs too), element types
 * from its inputs, outputs, value_info and initializers; one YE_ILLEGAL_NODE
 * diagnostic per illegal node, labelled with label and origin.  Returns 0
 * or DIAG_CONVERT. */
int onnx_model_legal(const Onnx__ModelProto *m, int cpu, Arena *a, const char *label, const OnnxOrigin *origin,
                     Diag *d);

/* ==== infer ==== */

/* Element types and shapes of a node's outputs from its inputs: one rule
 * per ONNX op (the infer column of onnxops.def), for two consumers.
 *
 * The type model is small and independent of who holds the values: an
 * element type (ONNX_*, 0 unknown), a rank (-1 unknown), dims, and for a
 * small int tensor (a shape being computed) its contents.  It comes in two
 * models, chosen by the caller:
 *   - names (OnnxInfer.a NULL, the optimizer): a dim is a static size or a
 *     symbol (a dim_param; equal names are equal dims), arithmetic on a
 *     symbol gives an unknown dim, and constant inputs (a Reshape's shape,
 *     Unsqueeze's axes) are read as static ints through const_ints();
 *   - expressions (OnnxInfer.a set, the FLOPs count): a dim is a canonical
 *     SymExpr ("s0+s1", "2*seq"), and contents are followed as lists of
 *     such dims (Shape -> Gather -> Concat -> Reshape), given with each
 *     input type and received through put_vals().
 * A row serves one model or both (the models column); a rule writes its
 * dims through helpers that compute in the caller's model.  The caller
 * gathers its values' types into an OnnxInfer, calls onnx_infer(), and
 * receives every inferred output through put(). */

/* One dimension of the names model (the optimizer's OptDim): v >= 0 is
 * static; otherwise sym names it (a dim_param such as "s77", equal dims
 * have equal names) or, when NULL, it is unknown. */
typedef struct OnnxDim {
	int64_t v;
	const char *sym;
} OnnxDim;

/* One dimension as the rules see it, in either model.  Names model: v and
 * sym as in OnnxDim, e NULL.  Expressions model: e is the canonical
 * expression (NULL: unknown), v its value when it is a number >= 0 (else
 * -1), sym NULL. */
typedef struct OnnxSize {
	int64_t v;
	const char *sym;
	SymExpr *e;
} OnnxSize;

/* The contents of a small int tensor (expressions model): n elements, each
 * a number or an expression, as dims are. */
typedef struct OnnxVals {
	int n;
	int scalar;             /* 0-d (n == 1) */
	const OnnxSize *v;      /* n entries; e NULL for an unknown element */
} OnnxVals;

typedef struct OnnxType {
	int elem;               /* ONNX element type; 0 when unknown */
	int rank;               /* -1 when unknown */
	const OnnxSize *dims;   /* rank entries */
	const OnnxVals *vals;   /* contents (expressions model); NULL when not known */
} OnnxType;

/* The models a rule serves (onnx_infer_known). */
enum { ONNX_MODEL_NAMES = 1, ONNX_MODEL_EXPRS = 2 };

typedef struct OnnxInfer {
	const OnnxNode *n;      /* the node: attributes */
	int op;                 /* its ONNXOP_* row */
	int nin, nout;          /* its input and output slots (omitted ones included) */
	const OnnxType *const *in;  /* nin entries; NULL for an omitted input */
	Arena *a;               /* NULL: the names model; else the expressions model, built here */
	void *ctx;              /* the caller's, passed back to the functions */
	/* Names model: input k as a constant int list (int64/int32, rank <= 1):
	 * count (at most max stored), or -1 when it is not one. */
	int (*const_ints)(void *ctx, int k, int64_t *buf, int max);
	/* Output k has element type elem (0: not known) and rank (< 0: not
	 * known) with dims (NULL: only the rank is known). */
	void (*put)(void *ctx, int k, int elem, int rank, const OnnxSize *dims);
	/* Expressions model: output k holds contents v (v->v on the stack). */
	void (*put_vals)(void *ctx, int k, const OnnxVals *v);
} OnnxInfer;

/* Runs the rule of row inf->op in the model inf->a asks for (nothing when
 * the row has none for that model). */
void onnx_infer(const OnnxInfer *inf);
/* 1 when the row has a rule for model (ONNX_MODEL_*). */
int onnx_infer_known(int op, int model);
/* 1 when the dims are equal: both static and equal, or the same symbol. */
int onnx_dim_eq(OnnxDim a, OnnxDim b);
/* The numpy broadcast of shapes a and b into out, names model; rank, or -1
 * when unknown. */
int onnx_broadcast(int ra, const OnnxDim *a, int rb, const OnnxDim *b, OnnxDim *out);
/* A tensor's type in the expressions model: its dims as numbers, and its
 * contents when it is a small int32/int64 tensor (rank <= 1, at most 64
 * elements; else vals NULL). */
OnnxType onnx_tensor_type(Arena *a, const OnnxTensor *t);

/* ==== fold ==== */

/* The constant-folding evaluator.
 *
 * fold_eval() computes one ONNX node on constant inputs, in C, for the ops
 * constant folding needs (shape computations, casts, layout ops,
 * arithmetic and comparisons, Range, ConstantOfShape, Where, Expand,
 * Trilu, reductions, small MatMuls, the usual unary functions).  Floating
 * point is computed in double and rounded once to the output type, which
 * for + - * / and sqrt gives the bits a float32 kernel gives (libm's
 * transcendental functions and MatMul's sums may differ in the last bit).  Inputs may point into the mapped weight file (any
 * alignment); outputs are new arena buffers, or share the input's bytes
 * for ops that only reshape. */

typedef struct FoldTensor {
	int elem;               /* ONNX element type */
	int rank;
	int64_t dims[MAX_RANK];
	int64_t numel;
	const void *data;       /* numel elements, packed, little-endian, maybe unaligned */
} FoldTensor;

/* 1 when fold_eval knows op (an ai.onnx op type). */
int fold_supported(const char *op);
/* Evaluates node n on in[0..nin) (NULL for an omitted input) into
 * out[0..n->n_output).  New buffers larger than max_bytes are refused.
 * Returns 0, or -1 when an op, a type, an attribute or a size is not
 * supported (the graph keeps the node then). */
int fold_eval(Arena *a, const OnnxNode *n, int nin, const FoldTensor *const *in,
              FoldTensor *out, int64_t max_bytes);
/* The evaluator's row for op (an ai.onnx op type), or NULL: a caller that
 * tries many nodes looks the row up once and evaluates with it. */
const struct FoldRow *fold_row(const char *op);
/* fold_eval() with n's row already looked up (NULL: -1). */
int fold_eval_row(const struct FoldRow *row, Arena *a, const OnnxNode *n, int nin,
                  const FoldTensor *const *in, FoldTensor *out, int64_t max_bytes);
/* The tensor's raw bytes as a FoldTensor; -1 when not in memory as raw_data. */
int fold_from_tensor(const OnnxTensor *t, FoldTensor *out);
/* Size in bytes of one element of type elem (0: unsupported). */
int fold_elem_size(int elem);

#endif

/* The rows of onnxops.def for a table above lib/onnx (a layer's own column,
 * as the report's FLOPs formulas): define OP(...) and ONNX_OP_ROWS, then
 * include this header again; it expands the rows and undefines
 * ONNX_OP_ROWS.  Outside the include guard on purpose. */
#ifdef ONNX_OP_ROWS
#include "onnx/onnxops.def"
#undef ONNX_OP_ROWS
#endif
