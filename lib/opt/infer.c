/* infer.c: element types and shapes of the values the optimizer meets
 * without a value_info (helper values of the lowering, nodes patterns add).
 *
 * The rules are lib/onnx's (the infer column of onnxops.def), in their
 * names model: static sizes and dim_param names, no expressions, constant
 * inputs read as static ints.  This file is the adapter: opt_infer() hands
 * a node's input types and constant inputs to its row's rule and stores
 * what comes back, filling only what is unknown.  An op without a rule leaves its outputs unknown, which makes
 * the patterns that need them decline. */
#include "opt/opt.h"

#include <string.h>

typedef struct InferCtx {
	Opt *o;
	int n;
} InferCtx;

static int
const_ints(void *ctx, int k, int64_t *buf, int max)
{
	InferCtx *c = ctx;

	return opt_const_ints(c->o, opt_in(c->o, c->n, k), buf, max);
}

/* Sets output k's unknown parts. */
static void
put(void *ctx, int k, int elem, int rank, const OnnxSize *dims)
{
	InferCtx *c = ctx;
	int v = opt_out(c->o, c->n, k);
	OptDim buf[16], *d = NULL;
	OptValue *x;

	if (v < 0)
		return;
	x = opt_val(c->o, v);
	if (!x->elem && elem)
		x->elem = elem;
	if (x->rank >= 0 || rank < 0)
		return;
	if (dims) {
		d = rank <= 16 ? buf : ARENA_ARRAY(c->o->a, OptDim, rank);
		for (int i = 0; i < rank; i++)
			d[i] = (OptDim){dims[i].v, dims[i].sym};
	}
	opt_set_type(c->o, v, x->elem, rank, d);
}

/* The row of node n's op.  Remembered per op_type pointer in o->kindhits
 * (ai.onnx nodes): the lowering and the rewrites pass the same string for
 * every node of an op, so most nodes need no search of the rows. */
static int
op_of(Opt *o, int n)
{
	const OnnxNode *m = opt_msg(o, n);
	OptNameHit *h;

	if (m->domain && *m->domain && strcmp(m->domain, "ai.onnx") != 0)
		return onnx_op_of(m);
	if (!o->kindhits)
		o->kindhits = ARENA_ARRAY(o->a, OptNameHit, OPT_OP_HITS);
	h = &o->kindhits[((uintptr_t)m->op_type >> 4) & (OPT_OP_HITS - 1)];
	if (h->name != m->op_type)
		*h = (OptNameHit){m->op_type, onnx_op_find(NULL, m->op_type)};
	return h->id;
}

void
opt_infer(Opt *o, int n)
{
	const OptNode *x = opt_node(o, n);
	InferCtx c = {o, n};
	OnnxInfer f = {.n = opt_msg(o, n), .op = op_of(o, n), .nin = x->nin, .nout = x->nout,
	               .ctx = &c, .const_ints = const_ints, .put = put};
	OnnxType t_buf[8], *t;
	const OnnxType *in_buf[8], **in;
	OnnxSize d_buf[64];
	int used = 0;

	if (!onnx_infer_known(f.op, ONNX_MODEL_NAMES))
		return;
	/* the input types live on the stack unless there are many or large */
	t = x->nin <= 8 ? t_buf : ARENA_ARRAY(o->a, OnnxType, x->nin);
	in = x->nin <= 8 ? in_buf : ARENA_ARRAY(o->a, const OnnxType *, x->nin);
	for (int k = 0; k < x->nin; k++) {
		int v = x->in[k], r;
		const OptValue *y;
		OnnxSize *d = NULL;
		in[k] = NULL;
		if (v < 0)
			continue;
		y = opt_val(o, v);
		if ((r = y->rank) >= 0 && (r == 0 || y->dims)) {  /* rank 0: an empty, non-NULL list */
			d = used + r <= 64 ? d_buf + used : ARENA_ARRAY(o->a, OnnxSize, r);
			used += used + r <= 64 ? r : 0;
			for (int i = 0; i < r; i++)
				d[i] = (OnnxSize){y->dims[i].v, y->dims[i].sym, NULL};
		}
		t[k] = (OnnxType){y->elem, y->rank, d, NULL};
		in[k] = &t[k];
	}
	f.in = in;
	onnx_infer(&f);
}

int
opt_broadcast(int ra, const OptDim *a, int rb, const OptDim *b, OptDim *out)
{
	return onnx_broadcast(ra, a, rb, b, out);
}
