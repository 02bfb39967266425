/* ir/ir.h: the in-memory graph every later stage works on.
 *
 * It mirrors torch's serialized ExportedProgram closely enough that nothing
 * the file says is lost, and resolves what the file leaves as names: an
 * argument that names a tensor points at its Value, each Value points at the
 * Node that defines it, parameters and constants point at their bytes in the
 * mapped file.  All of it lives in one Arena (Program.arena).
 *
 * Program  one exported program: signature, symbols, weights, main Graph
 * Graph    nodes in topological order, its inputs/outputs, its Values;
 *          higher-order ops (cond, while_loop, scan) own nested Graphs
 * Node     one call: target ("torch.ops.aten.addmm.default"), named
 *          arguments, outputs, metadata (stack_trace, nn_module_stack)
 * Value    a tensor (dtype, shape of Dims), or a symbolic int/bool/float
 * Arg      one value of torch's Argument union (arg.def); lists are Args too
 */
#ifndef IR_H
#define IR_H

#include <stdint.h>
#include <stdio.h>

#include "core/core.h"
#include "sym/sym.h"

typedef struct Graph Graph;
typedef struct Node Node;
typedef struct Value Value;
typedef struct Arg Arg;

typedef enum ArgKind {
#define X(e, key) e,
#include "arg.def"
#undef X
	ARG_KIND_COUNT
} ArgKind;

/* One dimension of a shape: static when e is NULL. */
typedef struct Dim {
	int64_t v;          /* the size; for a symbolic dim, its hint or -1 */
	SymExpr *e;         /* symbolic expression in torch's symbols, or NULL */
} Dim;

typedef enum ValueKind {
	VAL_TENSOR,         /* a tensor: dtype and dims are set */
	VAL_SYM_INT,        /* a SymInt computed in the graph (sym_size, _operator.*) */
	VAL_SYM_BOOL,
	VAL_SYM_FLOAT,
	VAL_CUSTOM_OBJ,     /* a TorchBind object (class_fqn) */
	VAL_TOKEN,          /* an effect token */
} ValueKind;

struct Value {
	const char *name;       /* unique within its Graph */
	ValueKind kind;
	DType dtype;            /* VAL_TENSOR */
	int rank;               /* VAL_TENSOR: number of dims */
	Dim *dims;              /* VAL_TENSOR: rank entries */
	int requires_grad;      /* VAL_TENSOR: as recorded by torch */
	SymExpr *expr;          /* VAL_SYM_*: value in torch's symbols, or NULL */
	int64_t hint;           /* VAL_SYM_*: example value when has_hint */
	int has_hint;
	const char *class_fqn;  /* VAL_CUSTOM_OBJ */
	Node *def;              /* the defining node; NULL for graph inputs */
	Graph *graph;           /* the graph this value belongs to */
	int id;                 /* index in graph->values */
	TensorData *data;       /* bytes of a parameter, buffer or constant; else NULL */
};

struct Arg {
	ArgKind kind;
	int n;                  /* list kinds: number of items */
	const char *key;        /* item of ARG_STRING_TO_ARG: its key */
	union {
		int64_t i;      /* INT, BOOL, SCALAR_TYPE (torch code), MEMORY_FORMAT, LAYOUT */
		double f;       /* FLOAT */
		double c[2];    /* COMPLEX: real, imaginary */
		const char *s;  /* STRING, OPERATOR, DEVICE ("cpu", "cuda:0") */
		Value *v;       /* TENSOR, OPT_TENSOR, SYM_INT/BOOL/FLOAT (a graph value), CUSTOM_OBJ */
		Arg *list;      /* list kinds: n items, each a scalar Arg (ARG_INT, ARG_TENSOR, ARG_NONE, ...) */
		Graph *g;       /* GRAPH */
	} u;
};

typedef struct NamedArg {
	const char *name;       /* schema argument name; "" for a positional HOP argument */
	int kind;               /* 0 unknown, 1 positional, 2 keyword (torch's ArgumentKind) */
	Arg arg;
} NamedArg;

typedef struct Meta {
	const char *key, *val;
} Meta;

struct Node {
	const char *name;       /* torch's node name (8.20), else its first output's name */
	const char *target;     /* as written: "torch.ops.aten.add.Tensor", "_operator.mul" */
	const char *op;         /* target without "torch.ops.": "aten.add.Tensor" */
	int nin;
	NamedArg *in;
	int nout;
	Arg *out;               /* as written: ARG_TENSOR, ARG_TENSORS, ARG_SYM_INT, ARG_NONE, ... */
	int nmeta;
	Meta *meta;             /* every metadata entry, in file order */
	const char *stack_trace;     /* meta "stack_trace" or NULL */
	const char *nn_module_stack; /* meta "nn_module_stack" or NULL */
	const char *frame;      /* the user's source line: "gen.py:23 in forward: y = x * 2", or NULL */
	Graph *graph;           /* the graph holding this node */
	int id;                 /* index in graph->nodes */
};

struct Graph {
	const char *name;       /* "" for the main graph; "true_graph_0" for a subgraph */
	Graph *parent;          /* enclosing graph, NULL for the main graph */
	int ninput;
	Arg *inputs;            /* placeholders in order (ARG_TENSOR, ARG_SYM_INT, or a constant) */
	int noutput;
	Arg *outputs;
	int is_single_tensor_return;
	int nnode;
	Node **nodes;           /* topological order, as in the file */
	int nvalue;
	Value **values;         /* every value, in the order first seen */
	struct StrMap *index;   /* name -> Value */
};

typedef enum InputKind {
	IN_USER_INPUT, IN_PARAMETER, IN_BUFFER, IN_TENSOR_CONSTANT,
	IN_CUSTOM_OBJ, IN_TOKEN, IN_CONSTANT_INPUT,
} InputKind;

typedef struct InputSpec {
	InputKind kind;
	Arg *arg;               /* the graph input it describes (points into graph->inputs) */
	const char *target;     /* parameter/buffer/constant/custom object fqn; constant_input name */
	int persistent;         /* IN_BUFFER */
	Arg value;              /* IN_CONSTANT_INPUT: the constant */
} InputSpec;

typedef enum OutputKind {
	OUT_USER_OUTPUT, OUT_LOSS_OUTPUT, OUT_BUFFER_MUTATION, OUT_GRADIENT_TO_PARAMETER,
	OUT_GRADIENT_TO_USER_INPUT, OUT_USER_INPUT_MUTATION, OUT_TOKEN, OUT_PARAMETER_MUTATION,
} OutputKind;

typedef struct OutputSpec {
	OutputKind kind;
	Arg *arg;               /* the graph output it describes (points into graph->outputs) */
	const char *target;     /* buffer/parameter/user input name it mutates, or NULL */
} OutputSpec;

typedef struct RangeConstraint {
	const char *key;        /* as written: "s77", "2*s39" */
	SymExpr *expr;          /* key parsed */
	int has_min, has_max;   /* 0 when unbounded (null) */
	int64_t min, max;
} RangeConstraint;

/* A flattened example input: a tensor, or a Python scalar. */
typedef struct Sample {
	TensorData *t;          /* NULL for a scalar */
	Arg scalar;             /* ARG_INT, ARG_FLOAT, ARG_BOOL, ARG_STRING or ARG_NONE */
} Sample;

typedef struct Program {
	Arena *arena;           /* owns everything below */
	const char *path;       /* the input file */
	const char *container;  /* "flat zip (torch 2.6/2.7)", "pt2 archive, pickled weights (torch 2.8)", ... */
	const char *json_entry; /* the zip entry holding the program JSON */
	int schema_major, schema_minor;
	int64_t torchscript_format;  /* a TorchScript archive's file format version; 0 for other inputs */
	const char *producer;        /* who wrote the file, when it says more than torch_version ("torch.jit.save, ..."), or NULL */
	const char *torch_version;   /* "2.14.1+debian"; "<=2.4" when absent */
	int nverifier;
	const char **verifiers;      /* "TRAINING" (training IR) or "ATEN" (core ATen) */
	int aten_opset;              /* opset_version["aten"], 0 when absent */
	Graph *graph;
	int ninput_spec;
	InputSpec *input_specs;      /* ordered like graph->inputs */
	int noutput_spec;
	OutputSpec *output_specs;    /* ordered like graph->outputs */
	int nrange;
	RangeConstraint *ranges;
	int nguard;
	const char **guards;         /* guards_code: the input shape guards torch checked at export,
	                              * as Python ("L['z'].size()[0] == 3"), in file order; none before
	                              * the torch versions that write them */
	int nforward_arg;
	const char **forward_arg_names; /* the forward()'s parameter names, or NULL */
	int nmodule_fqn;
	const char **module_fqns;    /* module_call_graph's submodule paths ("m.model.layers.0"), in file order */
	int nsample;
	Sample *samples;             /* example args then kwargs values, flattened */
	struct Zip *zip;             /* the mapped file the tensors point into */
} Program;

extern const char *const arg_kind_key[ARG_KIND_COUNT];   /* "as_tensor", ... */

/* Returns the value named name in g or an enclosing graph, or NULL. */
Value *ir_lookup(const Graph *g, const char *name);
/* Returns the named argument of n, or NULL when absent (torch omits defaults). */
const Arg *ir_arg(const Node *n, const char *name);
/* Returns the metadata value for key, or NULL. */
const char *ir_meta(const Node *n, const char *key);
/* Returns n's ATen target for messages: "aten.addmm.default". */
const char *ir_op(const Node *n);
/* "main_graph", or "main_graph/true_graph_0" for a subgraph: the graphs
 * holding g, outermost first (arena); NULL for NULL. */
const char *ir_graph_path(Arena *a, const Graph *g);
/* The structural checks a Program passes before anything lowers it
 * (validate.c): values defined once, before every read, by a node of their
 * own graph; no node reads its own output.  Messages name the file and the
 * graph's entry (p->path, p->json_entry).  Returns 0 or DIAG_INPUT (YE0317
 * graph-invalid) naming the node. */
int ir_validate(const Program *p, Diag *d);
/* One entry of a node's nn_module_stack: the module call it was traced in. */
typedef struct IrModule {
	const char *key;        /* torch's key, unique per call: "L__self__m.model.layers.0" ("@1": a second call) */
	const char *path;       /* the module's path: "m.model.layers.0" ("" for the root) */
	const char *cls;        /* its qualified class: "transformers.models.llama.modeling_llama.LlamaDecoderLayer" */
} IrModule;
/* The entries of n's nn_module_stack, outermost first (arena); the count,
 * 0 when n has none.  torch writes "key,path,class" entries joined by ';'. */
int ir_module_stack(Arena *a, const Node *n, IrModule **out);
/* Appends a new value to g (name must be unique in g). */
Value *ir_new_value(Arena *a, Graph *g, const char *name, ValueKind kind);

/* ==== irprint ==== */

/* The IR as readable text (`yobx-export --print`).
 * One node per line: outputs with dtype and shape, the target, named
 * arguments, and the user's source line; subgraphs indented below. */

void ir_print(FILE *f, const Program *p);
/* ir_print() plus what the text reader (read.h: irtext) needs to rebuild
 * the same Program: IR_PRINT_EXACT writes floats so they read back as the
 * same double and as floats ("2.0", not "2"); IR_PRINT_NAMES adds " @NAME"
 * to a node whose name is not its first output's (torch names multi-output
 * nodes "max_1", "unbind", ...). */
enum { IR_PRINT_EXACT = 1, IR_PRINT_NAMES = 2 };
void ir_print_ext(FILE *f, const Program *p, unsigned flags);
/* "float32[s77,8]" or "SymInt" etc. (arena) */
char *ir_value_type(Arena *a, const Value *v);

/* ==== dimname ==== */

/* Readable names for torch's size symbols.
 *
 * torch names the symbols of dynamic dimensions s77, s39, u0: no name a
 * user can work with.  Each symbol gets, in this order of preference:
 *  1. the name the options give for an input's axis (dynamic_dimensions),
 *  2. "<input>_dim_<axis>" for the first user input axis (in forward order)
 *     whose size is exactly that symbol,
 *  3. "unbacked_<k>" for a data-dependent symbol (u0, u1, ...),
 *  4. "dim_<k>" otherwise (a symbol seen only inside expressions).
 * A dim_param is then the dim's expression printed with those names
 * ("2*seq"), so the same symbol reads the same everywhere. */

/* A user's name for one axis of one input: dynamic_dimensions: {x: {0: batch}}. */
typedef struct DimRequest {
	const char *input;      /* forward argument name */
	int axis;
	const char *name;
	uint32_t line, col;     /* where the options file says it, for messages */
} DimRequest;

typedef struct DimNames DimNames;

/* Assigns names for every symbol of p.  label names the options file in
 * messages.  A request for an input or axis that does not exist, or for an
 * axis that is static, or two different names for one symbol, is an error
 * (DIAG_INPUT "label:line:col: ..."); returns NULL then. */
DimNames *dimnames_build(const Program *p, const DimRequest *req, int nreq,
                         const char *label, Arena *a, Diag *d);
/* The name for a symbol ("s77" -> "batch"); the symbol itself if unknown. */
const char *dimnames_symbol(const DimNames *dn, const char *symbol);
/* The dim_param for a symbolic dim: its expression with symbols renamed. */
const char *dimnames_expr(const DimNames *dn, const SymExpr *e);

/* ==== meta (meta.c, meta.def): the dtype and shape of an ATen call ====
 *
 * A .pt2 records every value's dtype and shape; a TorchScript archive
 * records none, so its reader asks here, node by node, as torch's meta
 * functions would answer: broadcasting, type promotion, reductions,
 * convolutions, views, ...  Symbolic dims stay expressions in the input
 * shapes' symbols (sym/). */

/* Fills out[0..k) (k returned, at most max) with the kind, dtype, rank and
 * dims of n's results, in the order the schema returns them, a Tensor[]
 * result flattened to its items.  n->op is "aten.NAME.OVERLOAD"; its
 * arguments are named by the schema, every one present (defaults
 * included), tensors pointing at Values whose meta is set.  Returns -1
 * with why[] when the op has no rule or the arguments are inconsistent
 * (shapes that do not broadcast, a dim out of range: what torch would
 * raise), or when the rule cannot say (a shape that depends on data).
 * A dtype argument is an ARG_SCALAR_TYPE in dtype_from_torch()'s
 * numbering (TorchScript's c10 ints, 6 for float32, must be converted:
 * an ARG_INT there is an error); a Scalar is ARG_INT, ARG_FLOAT or
 * ARG_BOOL; a SymInt[] may mix ARG_INT and ARG_SYM_INT items.  The
 * Python int ops of scripted code (aten.size.int, aten.mul.int, ...)
 * give VAL_SYM_INT results whose expr is the value, symbolic or not.
 * A symbolic size broadcast against another symbol or a number other
 * than 1 is an error: torch would guard it into a constant. */
int ir_infer_outputs(Arena *a, const Node *n, Value *out, int max, char *why, size_t whylen);
/* 1 when op ("aten.NAME.OVERLOAD") has a rule. */
int ir_infer_known(const char *op);

/* ==== alias ==== */

/* op's canonical name when it is an alias of another ATen op (alias.def:
 * "aten.greater_equal.Tensor" -> "aten.ge.Tensor", written into buf), else
 * op itself.  Every lookup of an op in a table (lowering, decomposition,
 * dtype and shape rule) goes through it. */
const char *ir_alias(const char *op, char *buf, size_t len);
/* The rows of alias.def, for the docs: their number, and row i. */
int ir_alias_count(void);
void ir_alias_row(int i, const char **from, const char **to);

/* A typing of nodes handed down from the pipeline to the readers and
 * passes below lib/lower/ (which may not call up): lib/lower/typer.c's
 * derivation of a node's output types from its lowering.  fn has
 * ir_infer_outputs()'s contract; nout is the number of results the caller
 * knows the op has (-1: not known).  Plain data, set once by the caller
 * that owns it; opset is the target ai.onnx opset the lowering runs at. */
typedef struct IrTyper IrTyper;
struct IrTyper {
	int (*fn)(const IrTyper *t, Arena *a, const Node *n, int nout, Value *out, int max,
	          char *why, size_t whylen);
	int opset;
};
/* The types of n's outputs: its hand-written rule (ir_infer_outputs)
 * where meta.def has one, else t's derivation (when t is not NULL).
 * Same contract as ir_infer_outputs(). */
int ir_type_outputs(const IrTyper *t, Arena *a, const Node *n, int nout, Value *out, int max,
                    char *why, size_t whylen);

#endif
