/* ops.h: the op table, generated from the ops/<family>.def rows.
 *
 * One row per ATen overload (the IR's Node.op, "aten.add.Tensor"):
 *
 *   OP(ATEN_NAME, LOWER_FN, ONNX_OP, OPSET_MIN, FLAGS)
 *
 * ATEN_NAME  the overload, as Node.op spells it
 * LOWER_FN   the lowering; shared ones (lower_unary, lower_binary, ...) read
 *            ONNX_OP from the row, irregular ones are lower_<name> in
 *            ops/<family>.c
 * ONNX_OP    the ONNX operator a shared lowering emits; for an irregular row
 *            the main operator, for the docs ("" when it varies)
 * OPSET_MIN  the lowest target opset the lowering supports (17 for all rows
 *            today: every lowering adapts to opsets 17..23 itself)
 * FLAGS      OPF_VIEW: the result aliases `self` (a view); the lowering must
 *            also handle LowerCtx.update (write a new view content back into
 *            `self`).  OPF_INPLACE: the result is written back into `self`
 *            and aliases it (add_, copy_, index_put_).  OPF_INT18: on integer
 *            operands the row needs opset 18 (ONNX's Bitwise* operators);
 *            OPSET_MIN holds for bool ones.  0 otherwise.
 *
 * ops/all.def lists the family files; ops.c includes it to build the table,
 * its sorted index and docs/ops.md.  Lowering contract: read arguments by
 * schema name (torch omits those left at their default, so each lowering
 * knows the defaults), emit nodes through lower.h, bind every used output
 * with lower_out() or lower_bind(), return 0 or lower_fail(). */
#ifndef OPS_H
#define OPS_H

#include <stdio.h>

typedef struct LowerCtx LowerCtx;
typedef struct Node Node;
typedef struct OpRow OpRow;

typedef int (*LowerFn)(LowerCtx *c, const Node *n, const OpRow *row);

enum {
	OPF_VIEW = 1,       /* result is a view of self (see above) */
	OPF_INPLACE = 2,    /* result is written into self */
	OPF_INT18 = 4,      /* integer operands need opset 18 (see above) */
};

struct OpRow {
	const char *aten;       /* "aten.relu.default" */
	LowerFn fn;             /* the lowering */
	const char *fn_name;    /* "lower_unary", for docs and messages */
	const char *onnx;       /* "Relu" */
	int opset;              /* lowest supported target opset */
	int flags;              /* OPF_* */
	const char *family;     /* the .def file: "elementwise" */
};

/* Number of rows: one "+ 1" per row of every family. */
enum {
	OP_COUNT = 0
#define OP(aten, fn, onnx, opset, flags) + 1
#include "all.def"
#undef OP
};

/* Every lowering named in a row. */
#define OP(aten, fn, onnx, opset, flags) int fn(LowerCtx *c, const Node *n, const OpRow *row);
#include "all.def"
#undef OP

extern const OpRow op_table[OP_COUNT];

/* Returns the row for an ATen overload, or NULL. */
const OpRow *ops_find(const char *aten);
/* Writes docs/ops.md (the table as Markdown, by family). */
void ops_write_doc(FILE *f);

#endif
