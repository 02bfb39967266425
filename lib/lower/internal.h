/* lower/internal.h: private to lib/lower/: what the driver (driver.c)
 * calls of the files around it, functional.c, scope.c, domains.c,
 * custom.c, vmap.c and decomp.c.  Nothing outside lib/lower/ includes it. */
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

/* domains.c */
struct LowerImports *lower_imports_new(Arena *a);
/* Adds the declared domains to m's opset_import. */
void lower_custom_imports(LowerCtx *c, Onnx__ModelProto *m);

/* custom.c */
/* The row standing in for a node custom_ops maps, or NULL. */
const OpRow *lower_custom_row(LowerCtx *c, const Node *n);
/* Reports a custom node without an entry: its arguments and an entry to
 * fill in (YE_CUSTOM_OP_UNMAPPED); returns DIAG_CONVERT. */
int lower_custom_unmapped(LowerCtx *c, const Node *n);

/* vmap.c */
/* Rewrites the torch.vmap regions of g (the training IR's
 * torch._functorch.predispatch markers) into ATen ops on whole batches, in
 * place.  Returns 0, or DIAG_CONVERT naming an op it has no rule for. */
int lower_vmap(LowerCtx *c, Graph *g);

/* decomp.c */
/* Rewrites each node of g (and its subgraphs) whose op has a row of
 * decomp.def and no lowering at c's opset into the nodes of other ATen ops
 * the row gives, in place.  Returns 0, or DIAG_CONVERT naming a node its
 * decomposition could not take. */
int lower_decompose(LowerCtx *c, Graph *g);

#endif
