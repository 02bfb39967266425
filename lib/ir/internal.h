/* ir/internal.h: what meta.c and its rule files share, private to lib/ir.
 *
 * meta.c holds the table (meta.def) and the entry points of ir.h;
 * metabase.c the argument readers, dim arithmetic and type promotion
 * every rule uses; the rules live by family in metaelem.c (elementwise,
 * reductions, factories, ints), metashape.c (views, joins, splits,
 * indexing, padding) and metanet.c (matrix products, convolution,
 * pooling, normalization, attention, recurrent layers).  A rule reads
 * c->n's arguments, fails through meta_fail() and appends its results
 * with meta_out_*(). */
#ifndef IR_INTERNAL_H
#define IR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/core.h"
#include "ir/ir.h"
#include "sym/sym.h"

typedef struct MetaCtx MetaCtx;
typedef int (*MetaRule)(MetaCtx *c);

/* Dtype rules, the second column of meta.def. */
typedef enum MetaDtype {
	MD_PROMOTE,     /* torch's result_type over the tensor and number arguments */
	MD_FLOAT,       /* as MD_PROMOTE, integers and bool to the default float (div, sqrt, mean) */
	MD_BOOL,        /* bool (comparisons, logical ops, isnan) */
	MD_SELF,        /* the first tensor argument's dtype (masked_fill, clone, views) */
	MD_INT64,       /* int64 (argmax, argsort, nonzero) */
	MD_SUM,         /* the dtype argument, else integers and bool to int64 (sum, prod, cumsum) */
	MD_REAL,        /* as MD_PROMOTE, complex to its real part (abs) */
	MD_REAL_FLOAT,  /* as MD_FLOAT, complex to its real part (angle) */
	MD_SAME,        /* every tensor argument of one dtype, the result's (mm, conv, cat of one dtype) */
	MD_FLOAT64,     /* float64, complex128 for complex arguments (float_power) */
	MD_RULE,        /* the rule decides (creation, to, softmax) */
} MetaDtype;

/* The rules' parameters (meta.def's P and Q columns). */
enum { PW_ROUNDING = 1, PW_POW = 2, PW_CLAMP = 4, PW_FREXP = 8 };
enum { SAME_ONE, SAME_MASK, SAME_INDICES, SAME_INT64, SAME_MATRIX, SAME_BUCKET };
enum { RQ_FLOAT = 1, RQ_NONEMPTY = 2, RQ_U8 = 4, RQ_EMPTY_NONE = 8, RQ_EMPTY_ERR = 16 };
enum { CONV_T = 1, CONV_BATCHED = 2 };
enum { MM_MM, MM_BMM, MM_MV, MM_DOT, MM_MATMUL, MM_ADDMM, MM_BADDBMM, MM_ADDBMM, MM_ADDMV,
       MM_ADDR, MM_LINEAR, MM_OUTER };
enum { POOL_MAX, POOL_MAX_IDX, POOL_AVG, POOL_ADAPTIVE, POOL_ADAPTIVE_MAX };
enum { VIEW_SIZE, VIEW_AS, EXPAND, EXPAND_AS };
enum { PERM_LIST, PERM_SWAP, PERM_SWAPAXES, PERM_T, PERM_MOVEDIM, PERM_REV };
enum { SPLIT_SIZE, SPLIT_SIZES, SPLIT_CHUNK, SPLIT_UNBIND, SPLIT_INDICES, SPLIT_SECTIONS };
enum { SEL_SELECT, SEL_SLICE, SEL_NARROW, SEL_INDEX_SELECT, SEL_GATHER, SEL_EMBEDDING };
enum { CR_SIZE, CR_FULL, CR_RANDINT, CR_LIKE, CR_FULL_LIKE, CR_NEW, CR_NEW_FULL, CR_ARANGE,
       CR_LINSPACE, CR_EYE, CR_SCALAR, CR_RANDPERM, CR_WINDOW };
enum { NORM_LAYER, NORM_NATIVE_LAYER, NORM_RMS, NORM_BATCH, NORM_NATIVE_BATCH, NORM_BATCH_NO_STATS,
       NORM_INSTANCE, NORM_GROUP, NORM_NATIVE_GROUP };
enum { RNN_LSTM, RNN_GRU, RNN_PLAIN };
enum { INT_SIZE, INT_NUMEL, INT_DIM, INT_ARITH };
enum { ARITH_ADD, ARITH_SUB, ARITH_MUL, ARITH_FLOORDIV, ARITH_MOD, ARITH_NEG };

/* The dtype kinds a kernel computes in, meta.def's TAKES column. */
enum { TK_B = 1, TK_I = 2, TK_F = 4, TK_C = 8 };
enum { TK_ANY = 15, TK_NUM = 14, TK_REAL = 7, TK_RNUM = 6, TK_FLT = 12, TK_RFLT = 4, TK_INT = 3 };

typedef struct MetaRow {
	const char *op;         /* "aten.add" (every overload) or "aten.add.Tensor" */
	MetaRule rule;
	MetaDtype dt;
	int takes;              /* TK_* */
	int p, q;               /* the rule's parameters (meta.def says per rule) */
} MetaRow;

struct MetaCtx {
	Arena *a;
	const Node *n;
	const MetaRow *row;
	Value *out;
	int max, nout;
	char *why;
	size_t whylen;
	int overflow;           /* set when static size arithmetic passed int64 */
};

/* The rules, one per shape family (meta.def's RULE column). */
#define X(op, rule, dt, takes, p, q) int meta_rule_##rule(MetaCtx *c);
#include "meta.def"
#undef X

/* Rules fail through here: why[] gets the reason, the rule returns -1. */
int meta_fail(MetaCtx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The argument name, NULL when absent or None (the schema default then). */
const Arg *meta_arg(MetaCtx *c, const char *name);
/* The tensor argument name, or NULL. */
Value *meta_tensor(MetaCtx *c, const char *name);
/* The first tensor among names (a schema's "self", "input", "query"...). */
Value *meta_first_tensor(MetaCtx *c);
/* A size as a Dim: a number, or a SymInt whose expression is not a number. */
int meta_arg_dim(const Arg *x, Dim *d);
/* An int argument (a static SymInt too); def when absent. Returns 0 when
 * the argument is there but not a number. */
int meta_get_int(MetaCtx *c, const char *name, int64_t def, int64_t *v);
/* Like meta_get_int, failing the rule with a message. */
int meta_need_int(MetaCtx *c, const char *name, int64_t def, int64_t *v);
/* A bool argument (an int too); def when absent. */
int meta_get_bool(MetaCtx *c, const char *name, int def);
/* The dtype argument name (a ScalarType), DT_UNKNOWN when absent. */
DType meta_get_dtype(MetaCtx *c, const char *name);
/* A list of sizes (int[], SymInt[]; a single int stands for a list of
 * one, or of width items for int[N]).  Returns the count, -1 when absent
 * or not a list of sizes. */
int meta_get_dims(MetaCtx *c, const char *name, int width, Dim **out);
/* A list of static ints; -1 when absent, -2 when an item is symbolic. */
int meta_get_ints(MetaCtx *c, const char *name, int width, int64_t **out);
/* The tensors of a Tensor[] (or Tensor?[]) argument; items may be NULL
 * for None in a Tensor?[].  Returns the count, -1 when absent. */
int meta_get_tensors(MetaCtx *c, const char *name, Value ***out);
/* The first tensor (at most MAX_RANK dims) with its dims copied
 * into d (MAX_RANK entries) and the int argument name (def when
 * absent) wrapped into [0, rank) in *w; NULL with why[] otherwise. */
Value *meta_self_at(MetaCtx *c, const char *name, int64_t def, Dim *d, int *w);
/* A static dim. */
Dim meta_dim_n(int64_t v);
/* A Dim from an expression: static when it simplifies to a number. */
Dim meta_dim_e(MetaCtx *c, SymExpr *e, int64_t hint);
/* d as an expression (a number for a static dim). */
SymExpr *meta_dim_expr(MetaCtx *c, Dim d);
/* 1 when d is the number v. */
int meta_dim_is(Dim d, int64_t v);
/* 1 when the dims are the same number or the same (canonical) expression. */
int meta_dim_eq(Dim x, Dim y);
/* Binary arithmetic on dims, static when both are. */
Dim meta_dim_op(MetaCtx *c, SymOp op, Dim x, Dim y);
/* x + k, x - y. */
Dim meta_dim_add(MetaCtx *c, Dim x, int64_t k);
Dim meta_dim_sub(MetaCtx *c, Dim x, Dim y);
/* The product of dims[0..k). */
Dim meta_dim_prod(MetaCtx *c, int k, const Dim *d);
/* "[2,s0,3]" for messages (arena). */
const char *meta_shape_str(MetaCtx *c, int rank, const Dim *d);
/* dim wrapped into [0, rank) as torch's maybe_wrap_dim (a scalar takes
 * dims -1 and 0); -1 with why[] when out of range. */
int meta_wrap(MetaCtx *c, int64_t d, int rank, int *out);
/* 1 when two contracted or matched sizes are equal.  As in broadcasting,
 * a symbol equals only itself: a number there would make it a constant. */
int meta_same_size(Dim x, Dim y);
/* Broadcasts (rank, dims) into the accumulated shape *r, *d (torch's
 * infer_size): sizes equal, or one of them 1.  A symbol against 1 is the
 * symbol.  A symbol against a number other than 1, or against another
 * symbol, fails: torch would guard on their equality, which makes the
 * dynamic dim a constant the user did not declare. */
int meta_broadcast(MetaCtx *c, int *r, Dim **d, int rank, const Dim *dims);
/* The reduced dims of x as a mask; no dim (None, or an empty list for
 * the list forms) reduces all.  Returns -1 with why[] on a bad dim, 1
 * for an empty list (which some ops take as no dim at all), else 0. */
int meta_reduced(MetaCtx *c, const Value *x, const char *name, unsigned char *mask);
/* Appends a tensor result; returns 0, or -1 when the caller's array is full. */
int meta_out_tensor(MetaCtx *c, DType t, int rank, const Dim *d);
/* Appends a tensor result shaped like x. */
int meta_out_like(MetaCtx *c, DType t, const Value *x);
/* Appends an int result (a SymInt when symbolic). */
int meta_out_int(MetaCtx *c, Dim d);
/* torch's promoteTypes; DT_UNKNOWN where torch raises (the shell and
 * float8 types, unsigned 16-64 bit with anything else). */
DType meta_promote(DType x, DType y);
/* The dtype torch gives a Python number: int64, float32, complex64, bool. */
DType meta_number_dtype(const Arg *x);
/* torch's result_type over the node's tensors (dims > 0 first, then
 * 0-dim tensors, then numbers); *bad set when two dtypes do not promote. */
DType meta_result_type(MetaCtx *c, int *bad);
/* The row's result dtype (its DTYPE rule) into *t, after checking that
 * the kernel computes in a dtype of the row's TAKES kinds ("not
 * implemented for 'Float'"); 0, or -1 with why[]. */
int meta_dtype_of(MetaCtx *c, DType *t);

#endif
