/* rnn.c: lowerings of the recurrent rows (rnn.def): lstm.input and
 * gru.input, one ONNX LSTM/GRU per layer (both directions in one node).
 *
 * torch's flat params list holds, per layer and then per direction,
 * w_ih, w_hh and (has_biases) b_ih, b_hh, gates stacked along dim 0: LSTM
 * i, f, g, o and GRU r, z, n.  ONNX stacks LSTM gates as i, o, f, c and GRU
 * gates as z, r, h, so a Gather with a constant row permutation reorders
 * each weight; directions stack on a new leading axis and the two biases
 * concatenate (Wb then Rb).  torch's GRU applies the reset gate after the
 * hidden matmul: linear_before_reset=1.  Layer outputs (seq, dirs, batch,
 * hidden) become (seq, batch, dirs*hidden) for the next layer; the final
 * states of all layers concatenate in torch's (layer, direction) order.
 * Dropout between layers is a training feature and is ignored. */
#include <string.h>

#include "nn.h"

/* ONNX gate g is torch gate order[g]. */
static const int lstm_order[] = {0, 3, 1, 2};
static const int gru_order[] = {1, 0, 2};

/* The i-th tensor of a list argument, cast to t, or NULL. */
static const char *
list_item(LowerCtx *c, const Node *n, const char *name, int i, DType t, const Value **v)
{
	const Arg *g = lower_arg(n, name);

	if (!g || (g->kind != ARG_TENSORS && g->kind != ARG_OPT_TENSORS) || i >= g->n ||
	    (g->u.list[i].kind != ARG_TENSOR && g->u.list[i].kind != ARG_OPT_TENSOR))
		return NULL;
	if (v)
		*v = g->u.list[i].u.v;
	return lower_cast(c, lower_value(c, g->u.list[i].u.v), g->u.list[i].u.v->dtype, t);
}

/* Per-direction tensors stacked on a new axis 0. */
static const char *
stack_dirs(LowerCtx *c, int nd, const char *const *x)
{
	const char *u[2], *out;

	for (int d = 0; d < nd; d++)
		u[d] = lower_unsqueeze(c, x[d], 1, (int64_t[]){0}, NULL);
	if (nd == 1)
		return u[0];
	out = lower_tmp(c);
	lower_emit(c, "Concat", nd, u, 1, &out);
	onnx_attr_int(c->a, c->last, "axis", 0);
	return out;
}

/* Binds state x (layers*dirs, batch, hidden) as output k; torch 2.6 may
 * declare that output with another static shape of the same size. */
static void
bind_state(LowerCtx *c, const Node *n, int k, const char *x, DType cdt)
{
	const Value *v = lower_out_value(n, k);

	if (v && v->rank != 3 && lower_static(v)) {
		int64_t dims[8];
		for (int i = 0; i < v->rank && i < 8; i++)
			dims[i] = v->dims[i].v;
		x = lower_op(c, "Reshape", NULL, 2, x, lower_i64s(c, v->rank, dims));
	}
	lower_finish(c, n, k, x, cdt);
}

/* What every layer of one lstm/gru node shares. */
typedef struct Rnn {
	const Node *n;
	const OpRow *row;
	DType cdt;
	int lstm, nd, per;      /* LSTM (else GRU), directions, params per direction */
	int64_t hid;            /* hidden size */
	const char *perm;       /* gate row permutation, torch -> ONNX */
	const char *h0, *c0;    /* initial states, (layers*nd, batch, hid) */
} Rnn;

/* Emits layer l on x (seq, batch, features); returns its output (seq,
 * batch, nd*hid) and sets *h (and *cs for LSTM) to its final states. */
static const char *
rnn_layer(LowerCtx *c, const Rnn *r, int64_t l, const char *x, const char **h, const char **cs)
{
	const char *w[2], *rr[2], *b[2], *in[7], *outs[3], *st[2];
	int bias = r->per == 4;
	OnnxNode *nd;

	for (int d = 0; d < r->nd; d++) {
		int base = (int)(l * r->nd + d) * r->per;
		w[d] = lower_op(c, "Gather", NULL, 2, list_item(c, r->n, "params", base, r->cdt, NULL), r->perm);
		rr[d] = lower_op(c, "Gather", NULL, 2, list_item(c, r->n, "params", base + 1, r->cdt, NULL), r->perm);
		if (bias) {
			b[d] = lower_op(c, "Concat", NULL, 2,
			                lower_op(c, "Gather", NULL, 2, list_item(c, r->n, "params", base + 2, r->cdt, NULL), r->perm),
			                lower_op(c, "Gather", NULL, 2, list_item(c, r->n, "params", base + 3, r->cdt, NULL), r->perm));
			onnx_attr_int(c->a, c->last, "axis", 0);
		}
	}
	for (int s = 0; s < 1 + r->lstm; s++)
		st[s] = lower_op(c, "Slice", NULL, 4, s ? r->c0 : r->h0, lower_i64s(c, 1, (int64_t[]){l * r->nd}),
		                 lower_i64s(c, 1, (int64_t[]){(l + 1) * r->nd}), lower_i64s(c, 1, (int64_t[]){0}));
	in[0] = x;
	in[1] = stack_dirs(c, r->nd, w);
	in[2] = stack_dirs(c, r->nd, rr);
	in[3] = bias ? stack_dirs(c, r->nd, b) : "";
	in[4] = "";
	in[5] = st[0];
	in[6] = r->lstm ? st[1] : "";
	outs[0] = lower_tmp(c);
	outs[1] = *h = lower_tmp(c);
	outs[2] = *cs = r->lstm ? lower_tmp(c) : "";
	nd = lower_emit(c, r->row->onnx, r->lstm ? 7 : 6, in, r->lstm ? 3 : 2, outs);
	onnx_attr_string(c->a, nd, "direction", r->nd == 2 ? "bidirectional" : "forward");
	onnx_attr_int(c->a, nd, "hidden_size", r->hid);
	if (!r->lstm)
		onnx_attr_int(c->a, nd, "linear_before_reset", 1);
	x = lower_op(c, "Transpose", NULL, 1, outs[0]);
	onnx_attr_ints(c->a, c->last, "perm", 4, (int64_t[]){0, 2, 1, 3});
	return lower_op(c, "Reshape", NULL, 2, x, lower_i64s(c, 3, (int64_t[]){0, 0, -1}));
}

/* lstm.input(input, hx[h0, c0], params, has_biases, num_layers, dropout,
 * train, bidirectional, batch_first) -> (output, h_n, c_n) and
 * gru.input(input, hx, params, ...) -> (output, h_n). */
int
lower_rnn(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *xv = lower_arg_value(n, "input"), *whh = NULL;
	Rnn r = {n, row, nn_cdt(n, "input"), strcmp(row->onnx, "LSTM") == 0, 1, 4, 0, NULL, NULL, NULL};
	int gates = r.lstm ? 4 : 3, bf = (int)lower_int(c, n, "batch_first", 0);
	const int *order = r.lstm ? lstm_order : gru_order;
	int64_t layers = lower_int(c, n, "num_layers", 1), *pv;
	const Arg *params = lower_arg(n, "params");
	const char *x, **hs, **cs, *out;

	r.nd = lower_int(c, n, "bidirectional", 0) ? 2 : 1;
	r.per = lower_int(c, n, "has_biases", 1) ? 4 : 2;
	if (!xv || xv->rank != 3)
		return lower_fail(c, n, "needs a batched 3-D input");
	if (!params || params->kind != ARG_TENSORS || layers < 1 || params->n != layers * r.nd * r.per)
		return lower_fail(c, n, "needs %lld x %d x %d parameters (projections are not supported)",
		                  (long long)layers, r.nd, r.per);
	if (lower_int(c, n, "train", 0) && lower_float(c, n, "dropout", 0.0) > 0 && layers > 1)
		return lower_fail(c, n, "dropout in training mode is not supported");
	list_item(c, n, "params", 1, r.cdt, &whh);
	if (!whh || whh->rank != 2 || whh->dims[1].e)
		return lower_fail(c, n, "needs a static hidden size");
	r.hid = whh->dims[1].v;
	r.h0 = r.lstm ? list_item(c, n, "hx", 0, r.cdt, NULL) : lower_operand(c, n, "hx", r.cdt);
	r.c0 = r.lstm ? list_item(c, n, "hx", 1, r.cdt, NULL) : NULL;
	if (!r.h0 || (r.lstm && !r.c0))
		return lower_fail(c, n, "needs the initial state hx");
	pv = ARENA_ARRAY(c->a, int64_t, gates * r.hid);
	for (int g = 0; g < gates; g++)
		for (int64_t j = 0; j < r.hid; j++)
			pv[g * r.hid + j] = order[g] * r.hid + j;
	r.perm = lower_i64s(c, (int)(gates * r.hid), pv);
	x = lower_operand(c, n, "input", r.cdt);
	if (bf) {
		x = lower_op(c, "Transpose", NULL, 1, x);
		onnx_attr_ints(c->a, c->last, "perm", 3, (int64_t[]){1, 0, 2});
	}
	hs = ARENA_ARRAY(c->a, const char *, layers);
	cs = ARENA_ARRAY(c->a, const char *, layers);
	for (int64_t l = 0; l < layers; l++)
		x = rnn_layer(c, &r, l, x, &hs[l], &cs[l]);
	if (bf) {
		x = lower_op(c, "Transpose", NULL, 1, x);
		onnx_attr_ints(c->a, c->last, "perm", 3, (int64_t[]){1, 0, 2});
	}
	lower_finish(c, n, 0, x, r.cdt);
	for (int s = 0; s < 1 + r.lstm; s++) {
		const char **v = s ? cs : hs;
		if (!lower_out_used(c, n, s + 1))
			continue;
		if (layers == 1) {
			out = v[0];
		} else {
			out = lower_tmp(c);
			lower_emit(c, "Concat", (int)layers, v, 1, &out);
			onnx_attr_int(c->a, c->last, "axis", 0);
		}
		bind_state(c, n, s + 1, out, r.cdt);
	}
	return 0;
}
