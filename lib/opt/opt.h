/* opt/opt.h: the graph optimizer, run on the ModelProto the lowering made.
 *
 * opt_model() indexes the graph (Opt: every value with its producer and
 * consumers, every node in a doubly linked topological order), runs the
 * passes of lib/opt/patterns.def in their order, checks the index after each
 * one (opt_verify), and writes the nodes, initializers and value_info back
 * into the GraphProto.  The Rewrite pass is a worklist: each node is tried
 * against constant folding and then the patterns rooted at its op type;
 * a rewrite puts the nodes it touched back on the list for the next
 * iteration, until an iteration changes nothing (a fixed point).  Nothing
 * rescans the whole graph per match.
 *
 * A pattern is one row of patterns.def (name, root op, function, the sets
 * it belongs to, opset range) and one function
 *     int pat_x(Opt *o, int r)
 * called with the root node r.  It returns
 *     OPT_NOMATCH  nothing matched and nothing changed;
 *     OPT_REWROTE  it rewrote the graph (the root is usually gone);
 *     OPT_RETRY    it changed the root in place: try its patterns again.
 *
 * Rules every pattern respects (the engine's invariants rely on them):
 *  1. Match first, then change: an OPT_NOMATCH return has no side effect.
 *  2. The root is the last matched node in topological order; new nodes
 *     are inserted before it (opt_add(o, r, ...)), so their inputs exist.
 *  3. Consumers are moved with opt_replace() or opt_set_input(), never by
 *     editing OnnxNode inputs; nodes left unread are swept by the engine.
 *  4. A replaced value keeps its element type and shape, unless every
 *     consumer broadcasts it (or is a Reshape that needs its element count
 *     only) and it is not a graph output.
 *  5. An intermediate whose producer the pattern means to drop has no other
 *     consumer (opt_only_use()), or the rewrite must still pay off with it.
 *  6. Initializers are read-only (weights are mapped from the input file):
 *     new constants are new arena buffers (opt_const()), or computed by the
 *     writer from a recipe (opt_const_scaled()).
 *  7. Nodes of another domain are not ai.onnx ops: match with opt_is().
 *  8. OPT_RETRY only after changing the root in place (attributes, inputs).
 *
 * Everything is in insertion order and indexed by small integers, so the
 * same graph and options give the same bytes. */
#ifndef OPT_H
#define OPT_H

#include <stdint.h>
#include <stdio.h>

#include "core/core.h"
#include "onnx/onnx.h"

enum { OPT_NOMATCH = 0, OPT_REWROTE = 1, OPT_RETRY = 2 };

/* The sets a row belongs to (the `patterns` option names them). */
/* OPT_SET_NAMED: in no set, run only when named in `patterns`. */
enum { OPT_SET_NAMED = 0, OPT_SET_DEFAULT = 1, OPT_SET_ORT = 2 };


/* One dimension: v >= 0 is static; otherwise sym names it (a dim_param
 * such as "s77", equal dims have equal names) or, when NULL, it is unknown.
 * The type model of lib/onnx's inference rules, so values hand their dims
 * to them as they are. */
typedef OnnxDim OptDim;

typedef struct OptUse {
	int node;               /* consuming node */
	int slot;               /* its input index */
} OptUse;

typedef struct OptValue {
	const char *name;       /* current ONNX name; NULL once merged into another value */
	int producer;           /* producing node, or -1 (graph input, initializer, undefined) */
	int slot;               /* output index within the producer */
	OnnxTensor *init;       /* the initializer when the value is one */
	unsigned char is_input; /* a graph input */
	unsigned char is_output;/* a graph output (counts as a reader) */
	unsigned char pinned;   /* read by name inside a subgraph (counts as a reader) */
	unsigned char outer;    /* defined in an enclosing graph: read-only here, like an input */
	int elem;               /* ONNX element type; 0 when unknown */
	int rank;               /* -1 when unknown */
	OptDim *dims;           /* rank entries (arena) */
	Onnx__ValueInfoProto *vi;/* its value_info entry, if it had one */
	OptUse *use;            /* consumers, unordered */
	int nuse, capuse;
} OptValue;

typedef struct OptNode {
	OnnxNode *n;            /* the message; its input/output names follow edits */
	int prev, next;         /* neighbours in topological order (-1 at the ends) */
	int nin, nout;
	int *in, *out;          /* value per input / output; -1 for an omitted one */
	int *upos;              /* upos[k]: index of this use in the value in[k]'s use list */
	int root;               /* dispatch entry for the op type, -1 when no pattern roots at it */
	unsigned char dead;     /* removed from the graph */
	unsigned char queued;   /* on the worklist */
} OptNode;

/* A name (or op type) pointer met before and what it resolved to: the
 * lowering and the rewrites pass the same string pointer for every use of
 * a value, so most lookups by name need no hashing of the string. */
typedef struct OptNameHit {
	const char *name;
	int id;
} OptNameHit;

enum { OPT_NAME_HITS = 256, OPT_OP_HITS = 64 };

typedef struct OptSelect OptSelect;

/* One optimizer event: a pass, or a pattern's matches in one iteration
 * (the report's stats sheet has one row per event). */
typedef struct OptStat {
	const char *pattern;    /* pattern or pass name */
	int64_t removed, added; /* nodes */
	double time_in;         /* seconds spent */
	int iteration;          /* fixed-point iteration it ran in */
	int match_index;        /* index of the match within the iteration */
	int64_t instances;      /* matches applied in this event */
} OptStat;

/* Where events go: fn(ctx, event) for each, in order (the pipeline hands
 * down the report's appender; the optimizer knows nothing of the report). */
typedef struct OptLog {
	void (*fn)(void *ctx, const OptStat *s);
	void *ctx;
} OptLog;

/* Per-row counters for one run (also what the report's stats sheet sums). */
typedef struct OptCount {
	int64_t matches, removed, added;
	double seconds;
} OptCount;

typedef struct Opt Opt;
struct Opt {
	Opt *parent;            /* the enclosing graph's index, for a subgraph */
	Arena *a;
	Diag *d;
	const OptLog *log;      /* NULL: events are not recorded */
	int opset;              /* ai.onnx opset of the model */
	const unsigned char *on;/* by row: enabled */
	OptNode *node;
	int nnode, capnode;
	OptValue *val;
	int nval, capval;
	int head, tail;         /* topological order */
	int live;               /* nodes not dead */
	StrMap *byname;         /* value name -> id + 1 */
	OptNameHit *hits;       /* OPT_NAME_HITS slots: a name pointer -> its value id (val_intern) */
	OptNameHit *ophits;     /* OPT_OP_HITS slots: an op_type pointer -> its dispatch entry (-1: none) */
	StrMap *node_names;     /* node names taken (built on first use) */
	StrMap *root_of;        /* "op" or "domain:op" -> dispatch entry + 1 */
	OptNameHit *kindhits;   /* OPT_OP_HITS slots: an op_type pointer -> its ONNXOP_* row (infer.c) */
	struct OptRoot *roots;  /* dispatch entries: enabled pattern rows per op type */
	int nroot;
	OnnxVec inits;          /* value ids (as pointers) of the initializers: original ones, then new */
	int ninit_orig;         /* how many of them came with the graph */
	OnnxVec vinfo;          /* original value_info, in order */
	int *queue, nqueue, capqueue;  /* the next iteration's worklist */
	int *sweep, nsweep, capsweep;  /* nodes that may have become unread */
	int64_t added, removed; /* nodes, since the start */
	int iteration;          /* worklist iterations so far (all Rewrite runs) */
	int match_index;        /* matches in the current iteration */
	int nfresh;             /* counter for fresh names */
	int fresh_from;         /* nodes from this id on were added by the running rewrite */
	const char *hint;       /* base for fresh names: the root's node name */
	int verify_each;        /* check the index after every rewrite (tests) */
	unsigned char *illegal0;/* verify_each: by node, illegal when indexed (lib/onnx/legal.c) */
	int nillegal0;          /* nodes indexed then */
	int keep_inits;         /* `patterns: none`: write every initializer, read or not */
	int64_t fold_max_bytes; /* largest constant folding may create */
	OptCount *count;        /* by row */
	struct OptIter *iter;   /* by row: this iteration's counters */
	int rounds;             /* pass-group repetitions done */
};

/* What one run did, for the caller's summary. */
typedef struct OptResult {
	int64_t nodes_in, nodes_out;
	int64_t inits_in, inits_out;
	int iterations;
	double seconds;
} OptResult;

/* ---- the rows ---- */

typedef int (*OptPatFn)(Opt *o, int r);
typedef int (*OptPassFn)(Opt *o);

typedef struct OptRow {
	const char *name;
	const char *root;       /* op type ("domain:Op" outside ai.onnx); "*" any; NULL for a pass */
	OptPatFn pat;
	OptPassFn pass;
	int sets;               /* OPT_SET_* */
	int opset_min, opset_max;
	const char *doc;        /* the contract, one sentence or two */
} OptRow;

/* The opset bounds of a row that runs at any opset (patterns.def's PASS
 * and PATTERN rows). */
enum { OPT_OPSET_ANY_MIN = 1, OPT_OPSET_ANY_MAX = 99 };

enum {
#define PASS(name, fn, sets, doc) OPT_##name,
#define PATTERN_OPSETS(name, root, fn, sets, lo, hi, doc) OPT_##name,
#include "patterns.def"
#undef PASS
#undef PATTERN_OPSETS
	OPT_NROW
};

extern const OptRow opt_rows[OPT_NROW];

/* ---- running ---- */

/* Optimizes m in place with the rows sel enables (NULL: the default set).
 * log may be NULL; res may be NULL.  Returns 0, or DIAG_CONVERT when the
 * graph cannot be indexed (a value defined twice, a cycle). */
int opt_model(Onnx__ModelProto *m, Arena *a, const OptSelect *sel, const OptLog *log,
              OptResult *res, Diag *d);
/* Same with the checker run after every rewrite (tests). */
int opt_model_checked(Onnx__ModelProto *m, Arena *a, const OptSelect *sel, const OptLog *log,
                      OptResult *res, Diag *d);

/* ---- modules as functions (outline.c) ---- */

/* What opt_outline() is asked (the pipeline fills it from the options). */
typedef struct OutlineSpec {
	int nclass;
	const char *const *classes;     /* module classes, short ("Conv2d") or qualified names */
	int embedded;                   /* 1: one function per instance, weights as Constant nodes */
	const struct Program *prog;     /* the IR: nn_module_stack of each node, the weights */
	const StrMap *origin;           /* main graph node name -> IR Node (LowerOptions.origin) */
	const OptSelect *sel;           /* the rows run inside each body (NULL: default) */
	const OptLog *log;              /* where the bodies' optimizer events go, or NULL */
} OutlineSpec;

/* One FunctionProto made, for the report's functions sheet. */
typedef struct OutlineFunction {
	const char *domain, *name;      /* the function: "transformers.models.llama.modeling_llama", "LlamaDecoderLayer" */
	const char *cls;                /* the module class, qualified */
	int ninstance;
	const char **instances;         /* module paths of the calls, in call order */
	int64_t nodes;                  /* nodes in its body */
	int ninput, noutput, nattr;
} OutlineFunction;

typedef struct OutlineResult {
	int nfunction;
	OutlineFunction *functions;
	int ninline;
	const char **inlined;           /* instances left inline (YE0702) */
	int nunused;
	const char **unused;            /* listed classes without instance (YE0701) */
} OutlineResult;

/* Writes every instance of the listed classes in m's main graph (lowered,
 * not optimized) as a call of a local function, optimizes each body with
 * s->sel and fills res.  The main graph itself is left for opt_model().
 * Returns 0 or the optimizer's DIAG_CONVERT; warnings YE0701, YE0702. */
int opt_outline(Onnx__ModelProto *m, Arena *a, const OutlineSpec *s, OutlineResult *res, Diag *d);

/* Parses a selection: terms joined by '+' and '-' ("default",
 * "default+onnxruntime", "default-CastCast", "none", a row name), several
 * such expressions separated by commas are united.  Returns 0, or -1 with
 * bad_off and bad_len locating the unknown name in spec. */
int opt_select_parse(Arena *a, const char *spec, OptSelect **out, int *bad_off, int *bad_len);
/* Unites b into a (both from opt_select_parse); a may be NULL. */
OptSelect *opt_select_union(Arena *a, OptSelect *acc, const OptSelect *b);
/* 1 when row i is on in sel (NULL: the default set). */
int opt_select_has(const OptSelect *sel, int row);
/* The selection holding row i only. */
OptSelect *opt_select_one(Arena *a, int row);
/* The row named name, or -1. */
int opt_row_find(const char *name);
/* Writes docs/patterns.md from the rows. */
void opt_write_doc(FILE *f);

/* ---- reading the graph (for patterns) ---- */

static inline OptNode *opt_node(Opt *o, int id) { return &o->node[id]; }
static inline OptValue *opt_val(Opt *o, int id) { return &o->val[id]; }
/* Value of input / output k of node n; -1 when absent or omitted. */
int opt_in(Opt *o, int n, int k);
int opt_out(Opt *o, int n, int k);
/* 1 when node n is the ai.onnx op `op` (or "domain:Op" for another domain). */
int opt_is(Opt *o, int n, const char *op);
/* The producer of value v when it is `op` (see opt_is), else -1. */
int opt_prod(Opt *o, int v, const char *op);
/* Readers of v: consumers, plus one when it is a graph output. */
int opt_nread(Opt *o, int v);
/* 1 when node n is the only reader of v (v not a graph output). */
int opt_only_use(Opt *o, int v, int n);
/* 1 when every output of node n except output 0 is absent or unread. */
int opt_only_out0(Opt *o, int n);
/* The [B, S, H*D] value x3 of Transpose(Reshape(x3, [B, S, H, D]),
 * [0, 2, 1, 3]) read only by `user` (attention's head split and merge),
 * with H in *heads; -1 when not (pat_attn.c). */
int opt_split_heads(Opt *o, int v, int user, int64_t *heads);

/* Attributes (NULL / def when absent). */
Onnx__AttributeProto *opt_attr(Opt *o, int n, const char *name);
int64_t opt_attr_i(Opt *o, int n, const char *name, int64_t def);
double opt_attr_f(Opt *o, int n, const char *name, double def);
const char *opt_attr_s(Opt *o, int n, const char *name, const char *def);
/* The ints attribute: count (at most max stored), or -1 when absent. */
int opt_attr_ints(Opt *o, int n, const char *name, int64_t *buf, int max);
/* 1 when n has attributes other than the listed ones (NULL-terminated). */
int opt_attr_other(Opt *o, int n, const char *const *known);

/* Constants.  The initializer behind v with its bytes in memory (a
 * computed one is computed now), or NULL. */
OnnxTensor *opt_const_tensor(Opt *o, int v);
/* Number of elements of constant v, or -1. */
int64_t opt_const_numel(Opt *o, int v);
/* A constant int list (int64/int32, rank <= 1): count, or -1. */
int opt_const_ints(Opt *o, int v, int64_t *buf, int max);
/* 1 when constant v has one element (any rank); its value in *x. */
int opt_const_scalar(Opt *o, int v, double *x);
/* 1 when v is constant and every element equals x (within tol, relative). */
int opt_const_all(Opt *o, int v, double x, double tol);
/* Element i of constant v as a double. */
double opt_const_at(Opt *o, int v, int64_t i);

/* Types and shapes. */
int opt_rank(Opt *o, int v);
int opt_elem(Opt *o, int v);
/* 1 when both shapes are known and equal (static or same symbol per dim). */
int opt_same_shape(Opt *o, int a, int b);
int opt_dim_eq(OptDim a, OptDim b);
/* 1 when every dim of v is static. */
int opt_static(Opt *o, int v);
/* Product of dims, -1 when not static. */
int64_t opt_numel(Opt *o, int v);
/* Sets v's type (dims may be NULL when rank < 0). */
void opt_set_type(Opt *o, int v, int elem, int rank, const OptDim *dims);
void opt_copy_type(Opt *o, int dst, int src);
/* Fills the unknown output types of node n from its inputs (infer.c, by
 * the rules of lib/onnx/infer.c). */
void opt_infer(Opt *o, int n);
/* The broadcast of shapes a and b into out; rank, or -1 when unknown. */
int opt_broadcast(int ra, const OptDim *a, int rb, const OptDim *b, OptDim *out);

/* ---- editing (rules above) ---- */

/* A new node `op` ("domain:Op" for another domain) before node `before`,
 * reading values in[0..nin) (-1: omitted input) and writing fresh values
 * whose ids go to out[0..nout) (NULL allowed).  Returns its id. */
int opt_add(Opt *o, int before, const char *op, int nin, const int *in, int nout, int *out);
/* Short forms: a one-output node; returns its output value. */
int opt_add1(Opt *o, int before, const char *op, int nin, ...);
/* The node just as opt_add made it, to add attributes. */
OnnxNode *opt_msg(Opt *o, int n);
void opt_set_attr_i(Opt *o, int n, const char *name, int64_t v);
void opt_set_attr_f(Opt *o, int n, const char *name, double v);
void opt_set_attr_ints(Opt *o, int n, const char *name, int k, const int64_t *v);
void opt_del_attr(Opt *o, int n, const char *name);
/* Copies every attribute of src onto dst except the listed ones. */
void opt_copy_attrs(Opt *o, int dst, int src, const char *const *except);
/* A new initializer (bytes not copied: data must live in the arena). */
int opt_const(Opt *o, int elem, int rank, const int64_t *dims, const void *data, size_t nbytes);
int opt_const_i64s(Opt *o, int k, const int64_t *v);
int opt_const_f32(Opt *o, int rank, const int64_t *dims, const float *v);
/* A new float32 initializer the writer computes from s (onnx.h): a folded
 * weight costs no memory and no pass over the weight until it is written. */
int opt_const_scaled(Opt *o, int rank, const int64_t *dims, const OnnxScaled *s);
/* A new 2-D initializer of element type elem, the transpose of the matrix
 * s describes (s->scale NULL, s->esize set), which the writer computes. */
int opt_const_transposed(Opt *o, int elem, const OnnxScaled *s);
/* A one-element constant of type elem (rank 0, or 1 when rank1). */
int opt_const_like(Opt *o, int elem, double x, int rank1);
/* Every reader of `from` reads `to` instead; when `from` is a graph output
 * `to` takes its name (or an Identity keeps it).  from's producer is
 * swept when nothing else reads it. */
void opt_replace(Opt *o, int from, int to);
/* Input k of node n reads v (-1: omitted). */
void opt_set_input(Opt *o, int n, int k, int v);
/* Puts node n on the worklist. */
void opt_enqueue(Opt *o, int n);
/* Removes node n and then what only it read (used by passes). */
void opt_remove(Opt *o, int n);
/* Removes the swept candidates that nothing reads any more. */
void opt_sweep(Opt *o);

/* from -> to when that saves a node: same element type, and when `from` is
 * a graph output `to` can take its name.  OPT_REWROTE or OPT_NOMATCH. */
int opt_forward(Opt *o, int from, int to);
/* 1 when broadcasting constant-or-not c against x leaves x's shape and type. */
int opt_bcast_keeps(Opt *o, int x, int c);
/* The axes of a Squeeze/Unsqueeze/Reduce (input 1, or attribute): count or -1. */
int opt_axes(Opt *o, int n, int64_t *axes, int max);
/* Makes axes non-negative (rank < 0: unknown, then negative ones fail),
 * sorted and checked for repeats; count or -1. */
int opt_norm_axes(int k, int64_t *axes, int rank);
/* The perm of a Transpose (the default reversal needs the input rank): count or -1. */
int opt_perm(Opt *o, int n, int64_t *perm);

/* Checks the index against the messages; dies naming `after` on a fault. */
void opt_verify(Opt *o, const char *after);

/* ---- the engine's own steps (index.c) ---- */

/* Indexes g into o (o->a, o->d set, the dispatch table built).  Returns 0
 * or DIAG_CONVERT (a value defined twice, a read before a definition). */
int opt_index(Opt *o, const Onnx__GraphProto *g);
/* Writes the live nodes, the read initializers and the value_info of
 * produced values back into g. */
void opt_writeback(Opt *o, Onnx__GraphProto *g);

/* ---- passes (pass_*.c) and patterns (pat_*.c), the rows of patterns.def ---- */
#define PASS(name, fn, sets, doc) int fn(Opt *o);
#define PATTERN_OPSETS(name, root, fn, sets, lo, hi, doc) int fn(Opt *o, int r);
#include "patterns.def"
#undef PASS
#undef PATTERN_OPSETS

#endif
