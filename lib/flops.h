/* flops.h: floating-point operation counts of ONNX nodes, for the report.
 *
 * flops_graph() walks an ONNX graph in order.  It knows the shape of every
 * value it can: the graph's inputs, initializers, value_info and outputs
 * give most of them (a dim_param is read back with sym_parse_infix), and a
 * small forward inference fills in the helper values that lowering leaves
 * without value_info (broadcasting, Transpose, MatMul, Reshape to a shape
 * computed by Shape/Concat/Unsqueeze, reductions, convolutions, ...).
 *
 * A node's count is then a polynomial in the dimension names, expanded with
 * its static factors multiplied together ("2*batch*seq*seq*64" reads
 * "128*batch*seq*seq"), printed with sym_print, and evaluated at the sizes
 * bound to those names (the sample inputs).  The formulas are one table
 * keyed by op type in flops.c; docs/report.md ("FLOPs formulas") documents
 * each row and test_flops checks that every row is documented there. */
#ifndef FLOPS_H
#define FLOPS_H

#include <stdint.h>

#include "arena.h"
#include "onnx.h"

typedef struct FlopsNode {
	const OnnxNode *node;
	const char *op_type;    /* "MatMul"; "domain:Op" outside ai.onnx */
	const char *expr;       /* the count as infix text ("128*batch*seq"), or NULL when unknown */
	double value;           /* the count at the bound sizes; -1 when unknown */
} FlopsNode;

typedef struct Flops Flops;

Flops *flops_new(Arena *a);
/* Gives the dimension name `name` the size `size` for evaluation. */
void flops_bind(Flops *f, const char *name, int64_t size);
/* Binds each dim_param of the tensor type vi that is a single name, and not
 * bound yet, to the matching entry of sizes (the shape of the sample fed to
 * vi; a negative size is skipped).  Returns how many names it bound; 0 when
 * vi has no shape, another rank, or a static dim that sizes contradicts. */
int flops_bind_shape(Flops *f, const Onnx__ValueInfoProto *vi, int rank, const int64_t *sizes);
/* Counts every node of g, in graph order: an arena array of g->n_node rows. */
FlopsNode *flops_graph(Flops *f, const Onnx__GraphProto *g);

/* The op types the formula table knows ("Add", "com.microsoft:FusedMatMul"),
 * for tests and docs: how many, and the i-th in table order. */
int flops_nop(void);
const char *flops_op(int i);

#endif
