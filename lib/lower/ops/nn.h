/* nn.h: helpers shared by the neural-network families (nn, conv, pool,
 * norm, rnn, activation), defined in nn.c.
 *
 * Spatial parameters given as one int apply to every spatial dim, as in
 * torch; NN_MAXSP bounds the spatial rank (1d, 2d, 3d layers). */
#ifndef OPS_NN_H
#define OPS_NN_H

#include "lower/lower.h"

#define NN_MAXSP 3
#define NN_MAXR 16      /* the rank nn_pad_edges() takes */

/* An int-list parameter for sp spatial dims: one value is repeated, an
 * absent or empty list gives def.  Returns 0 or fails the node. */
int nn_spatial(LowerCtx *c, const Node *n, const char *name, int sp, int64_t def, int64_t *out);
/* 1 when the k values of v all equal x. */
int nn_all_equal(int k, const int64_t *v, int64_t x);
/* The dtype a layer computes in for tensor argument `name` (float16 and
 * bfloat16 in float32; float32 when absent). */
DType nn_cdt(const Node *n, const char *name);
/* A constant of dtype t and shape dims filled with v. */
const char *nn_fill(LowerCtx *c, DType t, int rank, const int64_t *dims, double v);
/* A per-channel vector argument in dtype t, or ch copies of fill when it is
 * absent or None. */
const char *nn_channel_vec(LowerCtx *c, const Node *n, const char *name, DType t, int64_t ch, double fill);
/* x reshaped to (ch, 1, ..., 1) so that it broadcasts over dim 1 of a
 * rank-r tensor (x itself when r <= 2). */
const char *nn_per_channel(LowerCtx *c, const char *x, int64_t ch, int r);
/* Pad(x, pads) of a rank-r x (r <= NN_MAXR) in ONNX mode edge or reflect, into out (NULL:
 * fresh).  torch reads a negative pad of these modes as a shifted window
 * of the input (out[j] = in[clamp(j - pad)]) where ONNX crops first and
 * refuses an empty extent: the positive pads first, then a Slice drops
 * the negative ones, which gives torch's indices. */
const char *nn_pad_edges(LowerCtx *c, const char *x, int r, const int64_t *pads, const char *mode, const char *out);

#endif
