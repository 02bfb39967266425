/* internal.h: private to lib/lower/: what driver.c, scope.c and
 * functional.c share.  Nothing outside lib/lower/ includes it. */
#ifndef LOWER_INTERNAL_H
#define LOWER_INTERNAL_H

#include "lower/lower.h"

/* functional.c */
Alias *lower_alias_new(LowerCtx *c, Alias *parent, const Node *view, const OpRow *row, const char *name);
Alias *lower_alias_base(Alias *al);
/* Makes name the new contents of al, rebuilding every parent up to the base. */
int lower_alias_write(LowerCtx *c, Alias *al, const char *name);

/* scope.c */
/* ---- outputs ---- */

typedef struct OutSlot {
	const Arg *arg;         /* the user output */
	const char *final;      /* its ONNX graph output name */
	const char *cur;        /* the ONNX name holding it after lowering */
} OutSlot;

/* Points c at IR graph g: fresh aliases, and how often g's values are
 * read by its nodes (and by its outputs when outputs is set). */
void lower_enter_graph(LowerCtx *c, const Graph *g, int outputs);
void lower_count_uses(int *uses, const Graph *g, const Arg *a);
/* 1 for an output that is a graph value (tensor or SymInt/SymBool/SymFloat). */
int lower_is_value_arg(const Arg *g);
Onnx__ValueInfoProto *lower_value_info(LowerCtx *c, const char *name, const Value *v);
int lower_declare_inputs(LowerCtx *c);
/* Collects the user outputs and reserves their final names. */
int lower_plan_outputs(LowerCtx *c, OutSlot **slots, int *nslot);
int lower_emit_outputs(LowerCtx *c, OutSlot *s, int n);
/* Drops nodes whose outputs nothing reads, then initializers no node reads. */
void lower_prune(LowerCtx *c);

#endif
