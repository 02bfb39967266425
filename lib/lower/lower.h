/* lower/lower.h: lowering the IR's main graph to an ONNX graph.
 *
 * lower_program() walks the nodes in order and calls each one's row of the
 * op table (ops/ops.h).  LowerCtx holds what the lowerings share: the ONNX
 * graph being built, the ONNX name of every IR Value's current contents,
 * the constants made so far and the target opset.
 *
 * Names: an IR value becomes the ONNX value of the same name (IR names are
 * unique per graph); a second version of it (after an in-place write) or a
 * helper value gets "NAME__K".  Everything is in insertion order, so the
 * same input and options give the same bytes.
 *
 * In-place ops are functionalized while lowering.  Each IR tensor has an
 * Alias: a base owns its storage; a view remembers its parent and the view
 * node.  Writing into an alias re-lowers the view chain backwards
 * (LowerCtx.update) to rebuild the base; reading a view whose base changed
 * since re-lowers the view forwards.
 *
 * Subgraphs (cond, while_loop, scan and the wrappers) go through the same
 * op table and the same LowerCtx: lower_graph() lowers an IR graph's nodes
 * with its placeholders bound to ONNX names, either into the current ONNX
 * graph (inlining) or into a nested one made by lower_nested() (an If
 * branch, a Loop or Scan body).  A nested context is a copy of its parent
 * sharing the name spaces (so every name is unique in the whole model) with
 * its own graph, constants, value_info and producers; outer values are read
 * by name (ONNX outer scope). */
#ifndef LOWER_H
#define LOWER_H

#include <stdint.h>

#include "core/core.h"
#include "ir/ir.h"
#include "onnx/onnx.h"
#include "ops/ops.h"

typedef struct Alias Alias;
struct Alias {
	Alias *parent;          /* the alias this one is a view of, or NULL for a base */
	const Node *view;       /* the view node deriving it from parent */
	const OpRow *row;       /* view's row */
	const char *name;       /* ONNX name of the contents, as of version */
	unsigned version;       /* base: bumped by every write; view: base version of name */
};

/* ---- custom_ops: the mapping of custom operators (custom.c) ----
 * One entry per target of the options' `custom_ops:` (docs/options.md),
 * parsed and checked by lib/pipeline/ (names used before they are defined,
 * op types outside lib/onnx/onnxops.def at the target opset) and handed
 * down as plain data; what only the node can tell (which arguments it
 * has) is checked while lowering, at the line:col kept here. */

/* A literal's kind. */
typedef enum CustomLit {
	CUSTOM_REF,             /* not a literal: an argument or a local name */
	CUSTOM_INT, CUSTOM_FLOAT, CUSTOM_STRING,
	CUSTOM_INTS, CUSTOM_FLOATS, CUSTOM_STRINGS,
} CustomLit;

/* A value in an entry: a name (argument of the node, or a result of an
 * earlier expansion node) or a literal. */
typedef struct CustomVal {
	CustomLit lit;
	const char *name;       /* CUSTOM_REF */
	int optional;           /* CUSTOM_REF written `name?`: left out when the node lacks it */
	int n;                  /* literal: elements (1 for a scalar) */
	const int64_t *i;       /* CUSTOM_INT(S) */
	const double *f;        /* CUSTOM_FLOAT(S) */
	const char *const *s;   /* CUSTOM_STRING(S) */
	uint32_t line, col;     /* where the options file writes it */
} CustomVal;

typedef struct CustomAttr {
	const char *name;       /* the ONNX attribute */
	CustomVal v;
} CustomAttr;

/* One ONNX node an entry writes. */
typedef struct CustomNode {
	const char *op_type;
	const char *domain;     /* "" for ai.onnx (the `nodes:` form) */
	int nin;
	const CustomVal *in;
	int nout;               /* the `nodes:` form: local names; domain form: 0 (the node's outputs) */
	const char *const *out;
	int nattr;
	const CustomAttr *attr;
	uint32_t line, col;
} CustomNode;

typedef struct CustomOp {
	const char *target;     /* as Node.op spells it: "mylib.scaled_tanh.default" */
	int expanded;           /* 0: one node in a custom domain; 1: `nodes:` in ai.onnx */
	int version;            /* domain form: the version the domain is imported with */
	int nnode;
	const CustomNode *nodes;/* domain form: exactly one */
	int nresult;            /* `nodes:` form: the local names of the node's results, in order */
	const CustomVal *results;
	uint32_t line, col;     /* the entry's key */
} CustomOp;

/* What the lowering needs of the options (lib/pipeline/ fills it from the
 * options file: options_lower()). */
typedef struct LowerOptions {
	int opset;                      /* target ai.onnx opset */
	int noutput_name;
	const char **output_names;      /* renames of the user outputs, in order */
	int ndim_request;
	const DimRequest *dim_requests; /* dynamic_dimensions, in file order */
	int keep_assertions;            /* 1: _assert_scalar becomes a run-time check */
	const char *label;              /* the options file, for messages */
	int ncustom_op;
	const CustomOp *custom_ops;     /* custom_ops:, in file order */
	StrMap *origin;                 /* when set, filled: main graph ONNX node name -> the IR Node it was lowered from */
	const IrTyper *typer;           /* types a decomposition's new nodes meta.def has no row for
	                                 * (lower_typer_init); NULL: meta.def's rows only */
} LowerOptions;

/* lower_graph()'s callee: the driver's node walk, handed down so that a
 * control-flow lowering (ops/control.c) recurses without calling up. */
typedef int (*LowerGraphFn)(LowerCtx *c, const Graph *g, const char *const *in, const char **out);

struct LowerCtx {
	Arena *a;
	Diag *d;
	const Program *prog;
	const LowerOptions *opt;
	int opset;              /* target ai.onnx opset */
	OnnxGraph g;            /* the graph being built */
	StrMap *names;          /* ONNX value names taken */
	StrMap *node_names;     /* ONNX node names taken */
	StrMap *consts;         /* small constant's content key -> initializer name */
	StrMap *vinfo;          /* name -> its slot + 1 in g.value_info */
	StrMap *producer;       /* name -> the OnnxNode that outputs it */
	Alias **alias;          /* by Value id: the value's alias (NULL: not yet defined) */
	int *uses;              /* by Value id: how often nodes and outputs read it */
	int nconst;             /* constants made, for names */
	const Node *node;       /* the node being lowered */
	const char **out;       /* names bound to the node's outputs (lower_nout entries) */
	const char *update;     /* OPF_VIEW lowering run backwards: new contents of the view */
	const char *bad_arg;    /* set by lower_int & co when an argument is not a constant */
	OnnxNode *last;         /* the node lower_op() emitted last */
	const Graph *ir;        /* the IR graph being lowered (alias and uses index its values) */
	LowerCtx *outer;        /* the scope around ir (enclosing graph), or NULL for the main graph */
	const DimNames *dn;     /* dim_param names of torch's size symbols */
	LowerGraphFn graph_fn;    /* the driver's walk (lower_graph) */
	OnnxVec asserts;        /* keep_assertions: bool conditions (names) gating this graph's outputs */
	struct LowerImports *imports; /* custom domains the nodes use (custom.c), shared by every scope */
};

/* Converts p's main graph.  Returns 0 and sets *out, or DIAG_CONVERT /
 * DIAG_INPUT with one line per problem (every unsupported node is listed). */
int lower_program(const Program *p, const LowerOptions *o, Arena *a, Onnx__ModelProto **out, Diag *d);

/* The nodes of g nothing needs (dead.c): by node id, 1 for a dead node;
 * *ndead (when not NULL) gets their number.  The driver skips them, so a
 * dead node never needs a lowering. */
unsigned char *lower_dead_nodes(Arena *a, const Graph *g, int *ndead);

/* ---- decompositions (decomp.c, decomp.def) ---- */

/* The ATen op a decomposition of aten gives, or NULL when aten has none. */
const char *lower_decomp_into(const char *aten);
/* The rows of decomp.def: their number and the op of row i. */
int lower_decomp_count(void);
const char *lower_decomp_name(int i);

/* ---- the typer (typer.c) ---- */

/* IrTyper.fn: n's output types derived from its lowering at t->opset
 * (ir_infer_outputs()'s contract; nout results, 1 when < 0). */
int lower_type_node(const IrTyper *t, Arena *a, const Node *n, int nout, Value *out, int max, char *why,
                    size_t whylen);
/* A typer for the readers and passes below lib/lower/ (ir.h: IrTyper). */
void lower_typer_init(IrTyper *t, int opset);

/* ---- for lowerings ---- */

/* Reports a YE_LOWERING_FAILED diagnostic at n (its graph, name, ATen
 * target and user frame; the text reads "node 'x' (aten.y) at FILE:LINE ...:
 * what") and returns DIAG_CONVERT.  lower_fail_as() reports another code. */
int lower_fail(LowerCtx *c, const Node *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int lower_fail_as(LowerCtx *c, const Node *n, DiagCode code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Number of tensor outputs of n (lists flattened) and the k-th as a Value
 * (NULL for a None output). */
int lower_nout(const Node *n);
const Value *lower_out_value(const Node *n, int k);
/* 1 when the k-th output is read by some node or graph output. */
int lower_out_used(LowerCtx *c, const Node *n, int k);
/* A fresh name for the k-th output, bound to it, with its value_info.
 * In an OPF_VIEW lowering run backwards, the name for the new `self`. */
const char *lower_out(LowerCtx *c, const Node *n, int k);
/* Binds the k-th output to an existing name (no node). */
void lower_bind(LowerCtx *c, const Node *n, int k, const char *name);
/* A fresh helper name ("NODE__K"). */
const char *lower_tmp(LowerCtx *c);
/* A fresh value name: base if free, else "BASE__K". */
const char *lower_name(LowerCtx *c, const char *base);

/* The tensor argument `name` of n as a Value, or NULL when absent or None. */
const Value *lower_arg_value(const Node *n, const char *name);
/* Its current ONNX name, or NULL. */
const char *lower_input(LowerCtx *c, const Node *n, const char *name);
/* For a lowering that needs the tensor argument `name` (or output k): the
 * Value; when the node has none there, a DIAG_INPUT message naming the node
 * and a stand-in (rank 0, float32, named "", of no graph) so the lowering
 * can finish before the node fails. */
const Value *lower_tensor_arg(LowerCtx *c, const Node *n, const char *name);
const Value *lower_out_tensor(LowerCtx *c, const Node *n, int k);
/* The current ONNX name of v. */
const char *lower_value(LowerCtx *c, const Value *v);
/* Makes contents (already in the argument's dtype) the new value of the
 * tensor argument `name` of n, for ops that write an argument other than
 * self (batch_norm's running statistics in the training IR).  Returns 0 or
 * DIAG_CONVERT. */
int lower_write_arg(LowerCtx *c, const Node *n, const char *name, const char *contents);
/* Constant arguments; def when absent or None.  A non-constant argument
 * sets c->bad_arg and the driver fails the node. */
int64_t lower_int(LowerCtx *c, const Node *n, const char *name, int64_t def);
double lower_float(LowerCtx *c, const Node *n, const char *name, double def);
const char *lower_str(LowerCtx *c, const Node *n, const char *name, const char *def);
/* An int list (ints or static SymInts): count, or -1 when absent or None. */
int lower_ints(LowerCtx *c, const Node *n, const char *name, int64_t *buf, int max);
/* The argument itself, NULL when absent. */
const Arg *lower_arg(const Node *n, const char *name);

/* Emits a node (name derived from the IR node); returns it. */
OnnxNode *lower_emit(LowerCtx *c, const char *op, int nin, const char *const *in,
                     int nout, const char *const *out);
/* A one-output node with nin inputs given after it; out NULL means a fresh
 * helper name.  Returns the output name; the node is c->last. */
const char *lower_op(LowerCtx *c, const char *op, const char *out, int nin, ...);

/* Constants (initializers; small ones deduplicated by content). */
const char *lower_const(LowerCtx *c, DType t, int rank, const int64_t *dims, const void *data);
const char *lower_i64s(LowerCtx *c, int k, const int64_t *v);       /* 1-D int64 */
const char *lower_i64(LowerCtx *c, int64_t v);                       /* 0-d int64 */
const char *lower_scalar(LowerCtx *c, DType t, double v);            /* 0-d of t */
/* One element of t holding v, in bytes (2 for float16: rounded to nearest
 * even).  Returns 0, or -1 for a dtype without scalar constants (complex,
 * float8, quantized, unknown: a graph can name those), writing nothing;
 * out holds 8 bytes. */
int lower_encode(DType t, double v, void *out);

/* x cast from one dtype to another (x itself when equal). */
const char *lower_cast(LowerCtx *c, const char *x, DType from, DType to);
/* A scalar-or-tensor argument as an ONNX value of dtype t: python numbers
 * become constants, tensors are cast.  NULL when absent. */
const char *lower_operand(LowerCtx *c, const Node *n, const char *name, DType t);
/* The dtype an argument has (tensor dtype; for python numbers, DT_INT64,
 * DT_FLOAT32 or DT_BOOL) and whether it is a "wrapped number" (0-d tensor
 * or python scalar, lower priority in torch's promotion). */
DType lower_arg_dtype(const Node *n, const char *name, int *is_scalar);
/* torch's result type for two operands (bool < integer < floating). */
DType lower_promote(DType a, int a_scalar, DType b, int b_scalar);

/* The dtype an op computes in for output dtype t: float16 and bfloat16
 * compute in float32 (torch's CPU "opmath"), others in t. */
DType lower_compute(DType t);
/* Emits op(in...) computing in dtype cdt and binds its result, cast to the
 * dtype of n's output 0, as that output.  Returns the op's node (for
 * attributes).  Inputs must already be in cdt. */
OnnxNode *lower_result(LowerCtx *c, const Node *n, const char *op, DType cdt, int nin, ...);
/* The same for an op with nout outputs: output k of the ONNX node is output
 * k of n; outputs k > 0 that nothing reads are left unnamed. */
OnnxNode *lower_results(LowerCtx *c, const Node *n, const char *op, DType cdt,
                        int nin, const char *const *in, int nout);
/* Casts x (in dtype from) to the dtype of n's output k and binds it there. */
const char *lower_finish(LowerCtx *c, const Node *n, int k, const char *x, DType from);

/* An int list argument (ints and SymInt values) as a 1-D int64 tensor;
 * NULL when absent. */
const char *lower_size_arg(LowerCtx *c, const Node *n, const char *name);
/* 1-D int64 holding v's shape: a constant when static, else Shape(x). */
const char *lower_shape(LowerCtx *c, const Value *v, const char *x);
/* 1 when every dim of v is static. */
int lower_static(const Value *v);
/* Normalizes a possibly negative axis for rank r. */
int64_t lower_axis(int64_t axis, int rank);

/* The dim_param for a symbolic dim: its expression in readable names ("2*seq"). */
const char *lower_dim_param(LowerCtx *c, const SymExpr *e);

/* ---- custom operators (custom.c, domains.c) ---- */

/* The custom_ops entry for target (Node.op) in o, or NULL. */
const CustomOp *lower_custom_find(const LowerOptions *o, const char *target);
/* 1 when op is outside the namespaces of ATen, prims and Python (aten.,
 * _operator., torch., higher_order., ...): a custom operator. */
int lower_is_custom(const char *op);
/* How op lowers, for the report: "built-in" (a row of ops/custom_ops.def:
 * torch.onnx's own ops), "domain node" or "expansion" (its custom_ops
 * entry), or NULL for any other op. */
const char *lower_custom_form(const LowerOptions *o, const char *op);
/* Declares that the model uses domain (not ai.onnx) at version; it goes to
 * the model's opset_import.  Returns 0, or lower_fail() at n when an
 * earlier node declared another version. */
int lower_import(LowerCtx *c, const Node *n, const char *domain, int version);

/* ---- subgraphs (for higher-order ops) ---- */

/* Lowers IR graph g's nodes into c's current ONNX graph, placeholder i
 * reading the ONNX name in[i] (a placeholder that is a constant ignores
 * it); out[i] is set to the ONNX name holding g's output i ("" for None).
 * With c the HOP's own context this inlines g; with a context from
 * lower_nested() it fills a subgraph.  Returns 0 or DIAG_CONVERT. */
int lower_graph(LowerCtx *c, const Graph *g, const char *const *in, const char **out);
/* A context for a nested ONNX graph named name, inside c (see above).  It
 * starts as a copy of c: a LowerCtx field that caches ONNX names of one
 * graph must be reset here, or the parent could reuse a name that only
 * exists inside the subgraph. */
LowerCtx *lower_nested(LowerCtx *c, const char *name);
/* Declares a formal input of s's graph typed like v; returns its fresh name. */
const char *lower_graph_input(LowerCtx *s, const char *base, const Value *v);
/* Declares s's outputs: names[i] typed like types[i].  A name not computed
 * by a node of s (an input, an outer value, a constant) or given twice is
 * copied by an Identity first, so every output is s's own; with assertions
 * kept in s, each output passes through Where(ok, y, y) first. */
void lower_graph_outputs(LowerCtx *s, int n, const char *const *names, const Value *const *types);
/* Finishes s: drops its dead nodes and initializers, returns the
 * GraphProto for an If/Loop/Scan attribute. */
Onnx__GraphProto *lower_nested_end(LowerCtx *s);
/* keep_assertions: emits a run-time check that the bool 0-d cond is true
 * (msg becomes its doc_string); the outputs of c's graph then depend on
 * it (see keep_assertions in docs/options.md). */
void lower_assert(LowerCtx *c, const char *cond, const char *msg);

/* Opset-aware helpers. */
const char *lower_unsqueeze(LowerCtx *c, const char *x, int k, const int64_t *axes, const char *out);
const char *lower_squeeze(LowerCtx *c, const char *x, int k, const int64_t *axes, const char *out);
/* ReduceSum/Mean/Max/Min/Prod over axes (k == 0: all); axes as an input
 * where the opset wants it. */
const char *lower_reduce(LowerCtx *c, const char *op, const char *x, int k, const int64_t *axes,
                         int keepdims, const char *out);

/* ---- for the pointwise, reduction and index families ---- */

/* The dtype arithmetic computes in for a result of dtype t: lower_compute(t),
 * and int32 for int8, uint8, int16 and uint16, which onnxruntime's
 * arithmetic and comparison kernels (Add, Mul, Max, Equal, Less, ...) lack.
 * Results are cast back to t; integer casts wrap, as torch's integer
 * arithmetic does. */
DType lower_opmath(DType t);
/* lower_opmath(t), and int32 for bool: the dtype comparisons, reductions,
 * Where and scatters of dtype-t values run in (onnxruntime's ReduceMax,
 * ArgMax, Less, ... have no bool kernels). */
DType lower_opmath_nobool(DType t);
/* Does ONNX operator op (ai.onnx, the target opset) take dtype t as its
 * input k, by its schema and with an onnxruntime CPU kernel
 * (lib/onnx/optypes.def)?  An op the table does not know takes anything. */
int lower_takes(LowerCtx *c, const char *op, int k, DType t);
/* The dtype op's input k computes dtype-t values in exactly: t when op takes
 * it (lower_takes), else the first widening of t it takes: bool and the
 * small integers to int32 then int64, int32 to int64, float16 and bfloat16
 * to float32 then float64, float32 to float64; DT_UNKNOWN when none.  For
 * operators whose result on widened values, narrowed back, is their result
 * on t (comparisons, Max, Min, Clip, Where, Abs, Neg): the legalization of
 * a type the table refuses (docs/ops.md, "Legalizations"). */
DType lower_exact(LowerCtx *c, const char *op, int k, DType t);
/* The legalization rows (lib/lower/ops/legalize.def). */
enum { LK_BOOL = 1, LK_INT = 2, LK_FLOAT = 4 };
typedef enum LegalAction { LA_WIDEN, LA_IDENTITY, LA_MAX0, LA_MATMUL, LA_REFUSE } LegalAction;
typedef struct LegalRow {
	const char *op;         /* the ONNX operator */
	int kinds;              /* LK_*: the operand dtypes it is for */
	LegalAction action;
	const char *how;        /* what it computes, for docs/ops.md and messages */
} LegalRow;
extern const LegalRow lower_legal_rows[];
extern const int lower_nlegal;
/* NULL when op takes dtype t as its first input (lower_takes); else the
 * row of legalize.def for op and t's kind, or one whose action is
 * LA_REFUSE when none is (or when LA_WIDEN finds no wider type op takes). */
const LegalRow *lower_legalize(LowerCtx *c, const char *op, DType t);
/* The dtype node n computes op over dtype-t operands in: t, or the wider
 * one of an LA_WIDEN row; else DT_UNKNOWN, n refused by name. */
DType lower_widen(LowerCtx *c, const Node *n, const char *op, DType t);
/* The dtype of n's output k; float32 when the IR records none. */
DType lower_out_dtype(const Node *n, int k);
/* Transpose(x, perm) of a rank-`rank` tensor; x itself when perm is the
 * identity and out is NULL.  Returns the output name (out, or a fresh one). */
const char *lower_perm(LowerCtx *c, const char *x, int rank, const int64_t *perm, const char *out);
/* lower_finish(), and when x itself becomes the output (no cast) and a
 * node made it under a helper name, x's value_info gets the output's
 * dtype and shape, as a name from lower_out() would. */
const char *lower_finish_typed(LowerCtx *c, const Node *n, int k, const char *x, DType from);

#endif
