/* read/ts/internal.h: what the files of the builder share, private to them:
 * the interpreter's values (TsVal), its state (Build, Frame, Env), and the
 * functions one file defines and another calls.
 *
 * The files, bottom first (each calls only those above it in this list;
 * the two calls back up, eval() and exec_body(), go through Build's hooks,
 * which ts_build() sets):
 *
 *   tsval.c    values, variables, errors, names, graph nodes, SymInt
 *              arithmetic, the module tree's objects and classes
 *   tspy.c     Python's rules on values known now: truth, int(),
 *              isinstance(), binary operators
 *   tsop.c     calls of ATen operators: the overload, its arguments, the node
 *   tscall.c   calls: builtins (len, isinstance, range, torch.size, ...),
 *              scripted functions, module methods and submodules (inlined)
 *   tsexpr.c   expressions (eval()) and assignment targets
 *   tsflow.c   control flow on tensors: higher_order.cond (an `if` on a
 *              tensor's contents) and higher_order.while_loop (a loop whose
 *              trip count is not known now)
 *   tsstmt.c   statements: exec_stmt(), exec_body()
 *   tsbuild.c  the program: forward()'s inputs and outputs, ts_build(),
 *              ts_load() */
#ifndef READ_TS_INTERNAL_H
#define READ_TS_INTERNAL_H

#include "ts.h"

typedef enum VKind {
	V_ERR, V_NONE, V_BOOL, V_INT, V_FLOAT, V_STR, V_SYM, V_TENSOR,
	V_LIST, V_TUPLE, V_OBJ, V_DEVICE, V_UNINIT,
	V_FUNC,                 /* a scripted function: s is its qualified name (__torch__.m.f) */
	V_DICT,                 /* it[0..n): the values, keys[0..n) their keys, in insertion order */
} VKind;

enum { NT_NONE, NT_SIZE, NT_DATA };

typedef struct TsVal TsVal;
struct TsVal {
	VKind k;
	int numtensor;          /* NT_SIZE: a V_INT/V_SYM from NumToTensor (a 0-d tensor to torch, a
	                         * size to us); NT_DATA: a V_TENSOR standing for a Python number
	                         * read from a tensor at run time (int(t), bool(t)) */
	int64_t i;              /* V_BOOL, V_INT */
	double f;               /* V_FLOAT */
	const char *s;          /* V_STR, V_DEVICE */
	Value *v;               /* V_TENSOR; V_SYM: its VAL_SYM_INT value */
	int n;
	TsVal **it;             /* V_LIST, V_TUPLE, V_DICT */
	TsVal **keys;           /* V_DICT */
	const PyObj *obj;       /* V_OBJ: the module object */
	const char *path;       /* V_OBJ: its path from the root ("" for the root, "layers.0") */
};

/* One inlined call: where it was made, for the user's frame. */
typedef struct Site {
	const TsCode *code;
	uint32_t ofs;
	const char *fn;
	const char *path, *cls;     /* the module whose method runs (nn_module_stack) */
} Site;

enum { MAX_DEPTH = 200, MAX_UNROLL = 10000 };

typedef struct Frame Frame;

typedef struct Build {
	Program *p;
	const TsArchive *t;
	Arena *a;
	Diag *d;
	Graph *g;               /* the graph nodes go to: top, or a branch being built */
	Graph *top;             /* the main graph */
	/* the calls back up (internal.h's list): tb_eval and tb_exec_body */
	TsVal *(*eval)(struct Build *b, Frame *f, const TsExpr *e);
	int (*exec_body)(struct Build *b, Frame *f, TsStmt *const *body, int n);
	int nerr;
	StrMap *asts;           /* module -> TsAst (parsed once) */
	StrMap *weights;        /* "%p" of a PY_TENSOR -> Value */
	StrMap *taken;          /* value names used */
	StrMap *suffix;         /* base name -> the last suffix fresh_name gave it */
	int nsite;
	Site site[MAX_DEPTH];
	int nnode, capnode;
	Node **nodes;
	int ninput, capinput;
	Arg *inputs;
	InputSpec *specs;
	long unrolled;
	const IrTyper *typer;   /* TsInputs.typer */
} Build;

/* A function's variables, in the order first assigned (a branch's changes
 * are found by comparing two copies slot by slot). */
typedef struct Env {
	int n, cap;
	const char **names;
	TsVal **vals;
	StrMap *slot;           /* name -> slot + 1 */
} Env;

struct Frame {
	Env *vars;
	const TsCode *code;
	TsVal *ret;
};

TsVal *tb_fail_at(Build *b, const TsCode *code, uint32_t ofs, uint32_t line, uint32_t col, DiagCode dc,
                  const char *fmt, ...) __attribute__((format(printf, 7, 8)));

#define FAIL(b, f, e, ...) tb_fail_at((b), (f)->code, (e)->ofs, (e)->line, (e)->col, YE_TS_UNSUPPORTED, __VA_ARGS__)

extern TsVal tb_poison;     /* V_ERR: what a failed expression yields, passed on silently */
extern TsVal tb_none;       /* V_NONE */

/* tsdyn.c: the outputs of a data-dependent call (nonzero, masked_select,
 * unique, x[mask]) with unbacked sizes into outs; their count, or -1 when n
 * is not one (its typing's message stands). */
int tb_datadep_outputs(Build *b, const Node *n, Value *outs, int max);

/* tsval.c */
Env *tb_env_new(Arena *a, int cap);
TsVal *tb_env_get(const Env *e, const char *name);
void tb_env_set(Arena *a, Env *e, const char *name, TsVal *v);
Env *tb_env_copy(Arena *a, const Env *e);
TsVal *tb_mk(Build *b, VKind k);
TsVal *tb_mk_int(Build *b, int64_t i);
TsVal *tb_mk_bool(Build *b, int i);
TsVal *tb_mk_float(Build *b, double x);
TsVal *tb_mk_seq(Build *b, VKind k, int n);
int tb_dict_find(const TsVal *d, const TsVal *key);
void tb_dict_set(Build *b, TsVal *d, TsVal *key, TsVal *v);
const char *tb_kind_name(const TsVal *v);
double tb_num(const TsVal *v);
const char *tb_fresh_name(Build *b, const char *base);
Value *tb_add_input(Build *b, const char *name, InputKind kind, const char *target);
void tb_set_meta(Value *v, const TensorData *t, Arena *a);
void tb_push_node(Build *b, Node *n);
Node *tb_new_node(Build *b, const char *op, const TsCode *code, uint32_t ofs);
TsVal *tb_sym_node(Build *b, Frame *f, const TsExpr *at, const char *op, int nin, Arg *in, SymExpr *e);
Arg tb_int_arg(const TsVal *v);
TsVal *tb_size_of(Build *b, Frame *f, const TsExpr *at, const Value *x, int64_t dim);
Arg tb_value_arg(Value *v);
TsVal *tb_int_binary(Build *b, Frame *f, const TsExpr *at, int op, const TsVal *x, const TsVal *y);
TsVal *tb_from_py(Build *b, Frame *f, const TsExpr *at, const PyObj *o, const char *fqn, InputKind kind);
const TsAst *tb_ast_of(Build *b, const char *module, const TsCode **codep);
const TsClass *tb_class_of(Build *b, const PyObj *obj, const TsCode **codep);
const char *tb_class_display(Build *b, const PyObj *obj);
TsVal *tb_get_attr(Build *b, Frame *f, const TsExpr *at, const TsVal *objv, const char *name);

/* tsop.c */
Value *tb_number_tensor_as(Build *b, const TsVal *v, DType dt);
Value *tb_number_tensor(Build *b, const TsVal *v);
Value *tb_emit_scalar_tensor(Build *b, Frame *f, const TsExpr *at, const TsVal *v);
TsVal *tb_call_op(Build *b, Frame *f, const TsExpr *at, const char *ns, const char *name, int npos,
                  TsVal **pos, int nkw, const char *const *kwn, TsVal **kw);

/* tspy.c */
TsVal *tb_to_int(Build *b, Frame *f, const TsExpr *at, const TsVal *v);
int tb_truth(Build *b, Frame *f, const TsExpr *at, const TsVal *v, int *out);
int tb_isinstance_of(const TsVal *v, const TsExpr *type);
TsVal *tb_py_binary(Build *b, Frame *f, const TsExpr *e, int op, TsVal *x, TsVal *y);

/* tscall.c */
const char *tb_dotted(Build *b, const TsExpr *e);
TsVal *tb_eval_call(Build *b, Frame *f, const TsExpr *e);

/* tsexpr.c */
TsVal *tb_eval(Build *b, Frame *f, const TsExpr *e);
int tb_assign(Build *b, Frame *f, const TsExpr *t, TsVal *v);

/* tsflow.c */
int tb_exec_if_tensor(Build *b, Frame *f, const TsStmt *s, TsVal *cv);
int tb_exec_loop(Build *b, Frame *f, const TsStmt *s, TsVal *count);

/* tsstmt.c */
int tb_exec_body(Build *b, Frame *f, TsStmt *const *body, int n);

#endif
