/* rnn.c: lowerings of the recurrent rows (rnn.def): lstm.input,
 * gru.input and rnn_tanh.input as one ONNX LSTM/GRU/RNN per layer (both
 * directions in one node); rnn_relu.input and LSTMs with a projection
 * (proj_size) unrolled over their static time steps into the cell formula,
 * since ONNX's RNN needs a string-list attribute for Relu and its LSTM has
 * no projection; and the single steps (rnn_tanh_cell, rnn_relu_cell,
 * gru_cell, lstm_cell) as that same cell formula.
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

/* The cell kinds. */
enum { K_RNN, K_GRU, K_LSTM };

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
	int lstm, nd, per;      /* LSTM, directions, params per direction */
	int64_t hid;            /* hidden size */
	const char *perm;       /* gate row permutation, torch -> ONNX (NULL: none) */
	const char *h0, *c0;    /* initial states, (layers*nd, batch, hid or proj) */
	int kind;               /* K_* */
	const char *act;        /* K_RNN: the activation, "Tanh" or "Relu" */
	int bias, proj;         /* has biases; has a projection w_hr (LSTM) */
	int64_t steps;          /* the static sequence length (unrolled layers) */
} Rnn;

/* x @ wt (+ b): wt a transposed weight. */
static const char *
linear(LowerCtx *c, const char *x, const char *wt, const char *b)
{
	x = lower_op(c, "MatMul", NULL, 2, x, wt);
	return b ? lower_op(c, "Add", NULL, 2, x, b) : x;
}

static const char *
transposed(LowerCtx *c, const char *w)
{
	return lower_perm(c, w, 2, (int64_t[]){1, 0}, NULL);
}

/* Gate k (hid wide) of the stacked gates x, along the last axis. */
static const char *
gate(LowerCtx *c, const char *x, int k, int64_t hid)
{
	return lower_op(c, "Slice", NULL, 4, x, lower_i64s(c, 1, (int64_t[]){k * hid}),
	                lower_i64s(c, 1, (int64_t[]){(k + 1) * hid}), lower_i64s(c, 1, (int64_t[]){-1}));
}

/* One time step of torch's cell formula: gi = x @ w_ih^T + b_ih (given),
 * gh = h @ w_hh^T + b_hh; updates *h (and *cs for LSTM).  RNN: act(gi +
 * gh).  GRU (gates r, z, n): n = tanh(gi_n + r * gh_n), h' = n + z * (h -
 * n).  LSTM (i, f, g, o): c' = f * c + i * g, h' = o * tanh(c'), then
 * h' @ w_hr^T with a projection (whrt non-NULL). */
static void
cell_step(LowerCtx *c, int kind, const char *act, int64_t hid, const char *gi, const char *whht,
          const char *bhh, const char *whrt, const char **h, const char **cs)
{
	const char *gh = linear(c, *h, whht, bhh), *r, *z, *nn, *g, *i, *f, *o;

	switch (kind) {
	case K_RNN:
		*h = lower_op(c, act, NULL, 1, lower_op(c, "Add", NULL, 2, gi, gh));
		break;
	case K_GRU:
		r = lower_op(c, "Sigmoid", NULL, 1, lower_op(c, "Add", NULL, 2, gate(c, gi, 0, hid), gate(c, gh, 0, hid)));
		z = lower_op(c, "Sigmoid", NULL, 1, lower_op(c, "Add", NULL, 2, gate(c, gi, 1, hid), gate(c, gh, 1, hid)));
		nn = lower_op(c, "Tanh", NULL, 1, lower_op(c, "Add", NULL, 2, gate(c, gi, 2, hid),
		                                           lower_op(c, "Mul", NULL, 2, r, gate(c, gh, 2, hid))));
		*h = lower_op(c, "Add", NULL, 2, nn, lower_op(c, "Mul", NULL, 2, z, lower_op(c, "Sub", NULL, 2, *h, nn)));
		break;
	default:
		g = lower_op(c, "Add", NULL, 2, gi, gh);
		i = lower_op(c, "Sigmoid", NULL, 1, gate(c, g, 0, hid));
		f = lower_op(c, "Sigmoid", NULL, 1, gate(c, g, 1, hid));
		o = lower_op(c, "Sigmoid", NULL, 1, gate(c, g, 3, hid));
		g = lower_op(c, "Tanh", NULL, 1, gate(c, g, 2, hid));
		*cs = lower_op(c, "Add", NULL, 2, lower_op(c, "Mul", NULL, 2, f, *cs), lower_op(c, "Mul", NULL, 2, i, g));
		*h = lower_op(c, "Mul", NULL, 2, o, lower_op(c, "Tanh", NULL, 1, *cs));
		if (whrt)
			*h = lower_op(c, "MatMul", NULL, 2, *h, whrt);
	}
}

/* xs[0..k) concatenated along axis. */
static const char *
concat(LowerCtx *c, int k, const char *const *xs, int64_t axis)
{
	const char *out;

	if (k == 1)
		return xs[0];
	out = lower_tmp(c);
	lower_emit(c, "Concat", k, xs, 1, &out);
	onnx_attr_int(c->a, c->last, "axis", axis);
	return out;
}

/* Layer l unrolled over r->steps time steps of x (seq, batch, features):
 * the same contract as rnn_layer(). */
static const char *
unrolled_layer(LowerCtx *c, const Rnn *r, int64_t l, const char *x, const char **h, const char **cs)
{
	const char *ys[2], *hn[2], *cn[2], **at = ARENA_ARRAY(c->a, const char *, r->steps);

	for (int d = 0; d < r->nd; d++) {
		int base = (int)(l * r->nd + d) * r->per;
		const char *wiht = transposed(c, list_item(c, r->n, "params", base, r->cdt, NULL));
		const char *whht = transposed(c, list_item(c, r->n, "params", base + 1, r->cdt, NULL));
		const char *bih = r->bias ? list_item(c, r->n, "params", base + 2, r->cdt, NULL) : NULL;
		const char *bhh = r->bias ? list_item(c, r->n, "params", base + 3, r->cdt, NULL) : NULL;
		const char *whrt = r->proj ? transposed(c, list_item(c, r->n, "params", base + 2 + 2 * r->bias, r->cdt, NULL)) : NULL;
		const char *gi = linear(c, x, wiht, bih), *k = lower_i64(c, l * r->nd + d);
		const char *hs = lower_op(c, "Gather", NULL, 2, r->h0, k);
		const char *cc = r->lstm ? lower_op(c, "Gather", NULL, 2, r->c0, k) : NULL;

		for (int64_t s = 0; s < r->steps; s++) {
			int64_t t = d ? r->steps - 1 - s : s;
			cell_step(c, r->kind, r->act, r->hid, lower_op(c, "Gather", NULL, 2, gi, lower_i64(c, t)), whht, bhh,
			          whrt, &hs, &cc);
			at[t] = lower_unsqueeze(c, hs, 1, (int64_t[]){0}, NULL);
		}
		ys[d] = concat(c, (int)r->steps, at, 0);
		hn[d] = lower_unsqueeze(c, hs, 1, (int64_t[]){0}, NULL);
		cn[d] = r->lstm ? lower_unsqueeze(c, cc, 1, (int64_t[]){0}, NULL) : NULL;
	}
	*h = concat(c, r->nd, hn, 0);
	*cs = r->lstm ? concat(c, r->nd, cn, 0) : "";
	return concat(c, r->nd, ys, 2);
}

/* A weight or bias with its gates in ONNX's order. */
static const char *
gates_onnx(LowerCtx *c, const Rnn *r, const char *w)
{
	return r->perm ? lower_op(c, "Gather", NULL, 2, w, r->perm) : w;
}

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
		w[d] = gates_onnx(c, r, list_item(c, r->n, "params", base, r->cdt, NULL));
		rr[d] = gates_onnx(c, r, list_item(c, r->n, "params", base + 1, r->cdt, NULL));
		if (bias) {
			b[d] = lower_op(c, "Concat", NULL, 2, gates_onnx(c, r, list_item(c, r->n, "params", base + 2, r->cdt, NULL)),
			                gates_onnx(c, r, list_item(c, r->n, "params", base + 3, r->cdt, NULL)));
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
	if (r->kind == K_GRU)
		onnx_attr_int(c->a, nd, "linear_before_reset", 1);
	x = lower_op(c, "Transpose", NULL, 1, outs[0]);
	onnx_attr_ints(c->a, c->last, "perm", 4, (int64_t[]){0, 2, 1, 3});
	return lower_op(c, "Reshape", NULL, 2, x, lower_i64s(c, 3, (int64_t[]){0, 0, -1}));
}

/* lstm.input(input, hx[h0, c0], params, has_biases, num_layers, dropout,
 * train, bidirectional, batch_first) -> (output, h_n, c_n), gru.input and
 * rnn_tanh.input / rnn_relu.input(input, hx, params, ...) -> (output, h_n).
 * row->onnx is the ONNX operator, or the activation "Relu" of an unrolled
 * RNN; an LSTM has a projection when each direction has one more param. */
int
lower_rnn(LowerCtx *c, const Node *n, const OpRow *row)
{
	const Value *xv = lower_arg_value(n, "input"), *whh = NULL, *whr = NULL;
	Rnn r = {n, row, nn_cdt(n, "input"), strcmp(row->onnx, "LSTM") == 0, 1, 4, 0, NULL, NULL, NULL,
	         K_RNN, "Tanh", 1, 0, 0};
	int gates, bf = (int)lower_int(c, n, "batch_first", 0), unroll;
	const int *order = r.lstm ? lstm_order : gru_order;
	int64_t layers = lower_int(c, n, "num_layers", 1), *pv;
	const Arg *params = lower_arg(n, "params");
	const char *x, **hs, **cs, *out;

	r.kind = r.lstm ? K_LSTM : strcmp(row->onnx, "GRU") == 0 ? K_GRU : K_RNN;
	r.act = strcmp(row->onnx, "Relu") == 0 ? "Relu" : "Tanh";
	gates = r.kind == K_LSTM ? 4 : r.kind == K_GRU ? 3 : 1;
	r.nd = lower_int(c, n, "bidirectional", 0) ? 2 : 1;
	r.bias = lower_int(c, n, "has_biases", 1) != 0;
	r.per = r.bias ? 4 : 2;
	if (!xv || xv->rank != 3)
		return lower_fail(c, n, "needs a batched 3-D input");
	if (params && params->kind == ARG_TENSORS && r.lstm && params->n == layers * r.nd * (r.per + 1)) {
		r.proj = 1;
		r.per++;
	}
	if (!params || params->kind != ARG_TENSORS || layers < 1 || params->n != layers * r.nd * r.per)
		return lower_fail(c, n, "needs %lld x %d x %d parameters", (long long)layers, r.nd, r.per);
	if (lower_int(c, n, "train", 0) && lower_float(c, n, "dropout", 0.0) > 0 && layers > 1)
		return lower_fail(c, n, "dropout in training mode is not supported");
	list_item(c, n, "params", 1, r.cdt, &whh);
	if (!whh || whh->rank != 2 || whh->dims[0].e || whh->dims[0].v % gates)
		return lower_fail(c, n, "needs a static hidden size");
	r.hid = whh->dims[0].v / gates;
	if (r.proj) {
		list_item(c, n, "params", r.per - 1, r.cdt, &whr);
		if (!whr || whr->rank != 2 || whr->dims[1].e || whr->dims[1].v != r.hid)
			return lower_fail(c, n, "needs a static projection weight w_hr (proj_size, hidden_size)");
	}
	unroll = r.proj || strcmp(r.act, "Relu") == 0;
	if (unroll) {
		if (xv->dims[bf].e)
			return lower_fail(c, n, "%s is unrolled over the time steps and needs a static sequence length "
			                  "(export with a static dim %d)", r.proj ? "an LSTM with proj_size" : "a relu RNN", bf);
		r.steps = xv->dims[bf].v;
		if (r.steps < 1)
			return lower_fail(c, n, "an empty sequence (no time step)");
	}
	r.h0 = r.lstm ? list_item(c, n, "hx", 0, r.cdt, NULL) : lower_operand(c, n, "hx", r.cdt);
	r.c0 = r.lstm ? list_item(c, n, "hx", 1, r.cdt, NULL) : NULL;
	if (!r.h0 || (r.lstm && !r.c0))
		return lower_fail(c, n, "needs the initial state hx");
	if (gates > 1 && !unroll) {
		pv = ARENA_ARRAY(c->a, int64_t, gates * r.hid);
		for (int g = 0; g < gates; g++)
			for (int64_t j = 0; j < r.hid; j++)
				pv[g * r.hid + j] = order[g] * r.hid + j;
		r.perm = lower_i64s(c, (int)(gates * r.hid), pv);
	}
	x = lower_operand(c, n, "input", r.cdt);
	if (bf) {
		x = lower_op(c, "Transpose", NULL, 1, x);
		onnx_attr_ints(c->a, c->last, "perm", 3, (int64_t[]){1, 0, 2});
	}
	hs = ARENA_ARRAY(c->a, const char *, layers);
	cs = ARENA_ARRAY(c->a, const char *, layers);
	for (int64_t l = 0; l < layers; l++)
		x = unroll ? unrolled_layer(c, &r, l, x, &hs[l], &cs[l]) : rnn_layer(c, &r, l, x, &hs[l], &cs[l]);
	if (bf) {
		x = lower_op(c, "Transpose", NULL, 1, x);
		onnx_attr_ints(c->a, c->last, "perm", 3, (int64_t[]){1, 0, 2});
	}
	lower_finish(c, n, 0, x, r.cdt);
	for (int s = 0; s < 1 + r.lstm; s++) {
		const char **v = s ? cs : hs;
		if (!lower_out_used(c, n, s + 1))
			continue;
		out = concat(c, (int)layers, v, 0);
		bind_state(c, n, s + 1, out, r.cdt);
	}
	return 0;
}

/* The tensor argument `name` of a cell in dtype t, NULL when absent. */
static const char *
cell_arg(LowerCtx *c, const Node *n, const char *name, DType t)
{
	return lower_arg_value(n, name) ? lower_operand(c, n, name, t) : NULL;
}

/* rnn_tanh_cell / rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None,
 * b_hh=None) -> h', gru_cell(...) -> h' and lstm_cell(input, hx[h, c],
 * ...) -> (h', c'): one step of the cell formula (cell_step); row->onnx is
 * the RNN's activation, "GRU" or "LSTM". */
int
lower_rnn_cell(LowerCtx *c, const Node *n, const OpRow *row)
{
	DType cdt = nn_cdt(n, "input");
	int kind = strcmp(row->onnx, "LSTM") == 0 ? K_LSTM : strcmp(row->onnx, "GRU") == 0 ? K_GRU : K_RNN;
	int gates = kind == K_LSTM ? 4 : kind == K_GRU ? 3 : 1;
	const Value *whh = lower_tensor_arg(c, n, "w_hh");
	const char *x = lower_operand(c, n, "input", cdt), *h, *cs = NULL, *gi;

	if (whh->rank != 2 || whh->dims[0].e || whh->dims[0].v % gates)
		return lower_fail(c, n, "needs a static 2-D w_hh");
	if (kind == K_LSTM) {
		h = list_item(c, n, "hx", 0, cdt, NULL);
		cs = list_item(c, n, "hx", 1, cdt, NULL);
	} else {
		h = cell_arg(c, n, "hx", cdt);
	}
	if (!x || !h || (kind == K_LSTM && !cs))
		return lower_fail(c, n, "needs input and the state hx");
	gi = linear(c, x, transposed(c, cell_arg(c, n, "w_ih", cdt)), cell_arg(c, n, "b_ih", cdt));
	cell_step(c, kind, row->onnx, whh->dims[0].v / gates, gi, transposed(c, cell_arg(c, n, "w_hh", cdt)),
	          cell_arg(c, n, "b_hh", cdt), NULL, &h, &cs);
	lower_finish(c, n, 0, h, cdt);
	if (kind == K_LSTM && lower_out_used(c, n, 1))
		lower_finish(c, n, 1, cs, cdt);
	return 0;
}
