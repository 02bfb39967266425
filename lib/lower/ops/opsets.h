/* opsets.h: helpers for the lowerings that pick a recent opset's operator
 * when the target has it, defined in opsets.c. */
#ifndef OPS_OPSETS_H
#define OPS_OPSETS_H

#include "lower/lower.h"

/* 1 when a write of a block of consecutive positions along dim of a
 * tensor sv (a KV-cache write) can be a TensorScatter at c's opset: opset
 * 24 or later, dim not 0 (TensorScatter's batch axis), rank 2 or more. */
int opsets_can_tensor_scatter(const LowerCtx *c, const Value *sv, int64_t dim);
/* Emits TensorScatter(self, upd, write_indices) into n's output 0: upd is
 * the block written at positions start.. (a 0-d int64, the same for every
 * batch row; >= 0) along dim.  self and upd in sv's dtype. */
void opsets_tensor_scatter(LowerCtx *c, const Node *n, const Value *sv, const char *self, const char *upd,
                           int64_t dim, const char *start);

#endif
