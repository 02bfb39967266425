/* random.h: what random.c lends the other families: training-mode dropout
 * for nn.c's dropout rows. */
#ifndef OPS_RANDOM_H
#define OPS_RANDOM_H

#include "lower/lower.h"

/* dropout(arg, p) in training mode: each element kept with probability
 * 1 - p and scaled by 1 / (1 - p) (ONNX Dropout, training_mode true); p 1
 * gives arg * 0.  Binds output 0; returns 0 or lower_fail(). */
int lower_dropout_train(LowerCtx *c, const Node *n, const char *arg);

#endif
