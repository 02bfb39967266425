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

/* lstm.input(input, hx[h0, c0], params, has_biases, num_layers, dropout,
 * train, bidirectional, batch_first) -> (output, h_n, c_n) and
 * gru.input(input, hx, params, ...) -> (output, h_n). */
int
lower_rnn(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *xv = lower_arg_value(n, "input"), *whh = NULL;
	DType cdt = nn_cdt(n, "input");
	int lstm = strcmp(row->onnx, "LSTM") == 0, gates = lstm ? 4 : 3;
	const int *order = lstm ? lstm_order : gru_order;
	int64_t layers = lower_int(c, n, "num_layers", 1), bias = lower_int(c, n, "has_biases", 1);
	int nd = lower_int(c, n, "bidirectional", 0) ? 2 : 1, bf = (int)lower_int(c, n, "batch_first", 0);
	int per = bias ? 4 : 2, nstate = lstm ? 2 : 1;
	const Arg *params = lower_arg(n, "params");
	const char *x, *h0, *c0 = NULL, *perm, **hs, **cs, *out;
	int64_t hid, *pv;

	if (!xv || xv->rank != 3)
		return lower_fail(c, n, "needs a batched 3-D input");
	if (!params || params->kind != ARG_TENSORS || layers < 1 || params->n != layers * nd * per)
		return lower_fail(c, n, "needs %lld x %d x %d parameters (projections are not supported)",
		                  (long long)layers, nd, per);
	if (lower_int(c, n, "train", 0) && lower_float(c, n, "dropout", 0.0) > 0 && layers > 1)
		return lower_fail(c, n, "dropout in training mode is not supported");
	list_item(c, n, "params", 1, cdt, &whh);
	if (!whh || whh->rank != 2 || whh->dims[1].e)
		return lower_fail(c, n, "needs a static hidden size");
	hid = whh->dims[1].v;
	if (lstm) {
		h0 = list_item(c, n, "hx", 0, cdt, NULL);
		c0 = list_item(c, n, "hx", 1, cdt, NULL);
	} else {
		h0 = lower_operand(c, n, "hx", cdt);
	}
	if (!h0 || (lstm && !c0))
		return lower_fail(c, n, "needs the initial state hx");
	pv = ARENA_ARRAY(c->a, int64_t, gates * hid);
	for (int g = 0; g < gates; g++)
		for (int64_t j = 0; j < hid; j++)
			pv[g * hid + j] = order[g] * hid + j;
	perm = lower_i64s(c, (int)(gates * hid), pv);
	x = lower_operand(c, n, "input", cdt);
	if (bf) {
		x = lower_op(c, "Transpose", NULL, 1, x);
		onnx_attr_ints(c->a, c->last, "perm", 3, (int64_t[]){1, 0, 2});
	}
	hs = ARENA_ARRAY(c->a, const char *, layers);
	cs = ARENA_ARRAY(c->a, const char *, layers);
	for (int64_t l = 0; l < layers; l++) {
		const char *w[2], *r[2], *b[2], *in[7], *outs[3], *st[2];
		OnnxNode *nd_;
		for (int d = 0; d < nd; d++) {
			int base = (int)(l * nd + d) * per;
			w[d] = lower_op(c, "Gather", NULL, 2, list_item(c, n, "params", base, cdt, NULL), perm);
			r[d] = lower_op(c, "Gather", NULL, 2, list_item(c, n, "params", base + 1, cdt, NULL), perm);
			if (bias) {
				b[d] = lower_op(c, "Concat", NULL, 2,
				                lower_op(c, "Gather", NULL, 2, list_item(c, n, "params", base + 2, cdt, NULL), perm),
				                lower_op(c, "Gather", NULL, 2, list_item(c, n, "params", base + 3, cdt, NULL), perm));
				onnx_attr_int(c->a, c->last, "axis", 0);
			}
		}
		for (int s = 0; s < nstate; s++)
			st[s] = lower_op(c, "Slice", NULL, 4, s ? c0 : h0, lower_i64s(c, 1, (int64_t[]){l * nd}),
			                 lower_i64s(c, 1, (int64_t[]){(l + 1) * nd}), lower_i64s(c, 1, (int64_t[]){0}));
		in[0] = x;
		in[1] = stack_dirs(c, nd, w);
		in[2] = stack_dirs(c, nd, r);
		in[3] = bias ? stack_dirs(c, nd, b) : "";
		in[4] = "";
		in[5] = st[0];
		in[6] = lstm ? st[1] : "";
		outs[0] = lower_tmp(c);
		outs[1] = hs[l] = lower_tmp(c);
		outs[2] = cs[l] = lstm ? lower_tmp(c) : "";
		nd_ = lower_emit(c, row->onnx, lstm ? 7 : 6, in, lstm ? 3 : 2, outs);
		onnx_attr_string(c->a, nd_, "direction", nd == 2 ? "bidirectional" : "forward");
		onnx_attr_int(c->a, nd_, "hidden_size", hid);
		if (!lstm)
			onnx_attr_int(c->a, nd_, "linear_before_reset", 1);
		x = lower_op(c, "Transpose", NULL, 1, outs[0]);
		onnx_attr_ints(c->a, c->last, "perm", 4, (int64_t[]){0, 2, 1, 3});
		x = lower_op(c, "Reshape", NULL, 2, x, lower_i64s(c, 3, (int64_t[]){0, 0, -1}));
	}
	if (bf) {
		x = lower_op(c, "Transpose", NULL, 1, x);
		onnx_attr_ints(c->a, c->last, "perm", 3, (int64_t[]){1, 0, 2});
	}
	lower_finish(c, n, 0, x, cdt);
	for (int s = 0; s < nstate; s++) {
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
		bind_state(c, n, s + 1, out, cdt);
	}
	return 0;
}
