/* pat_fold.c: the ConstantFolding rule: a node whose inputs are all
 * constants (or a Shape/Size of a value of static shape) is replaced by
 * its result, computed by the evaluator of lib/onnx/ (fold_eval). */
#include "opt/opt.h"

#include <string.h>

#include "core/core.h"

/* ---- the ConstantFolding rule ---- */

/* Shape(x) and Size(x) of a value whose needed dims are static. */
static int
fold_static_shape(Opt *o, int r, FoldTensor *out)
{
	int x = opt_in(o, r, 0), rank = opt_rank(o, x);
	const OptDim *d = rank >= 0 ? opt_val(o, x)->dims : NULL;
	int64_t start = 0, end = rank, *buf;

	if (rank < 0)
		return -1;
	if (opt_is(o, r, "Size")) {
		int64_t n = opt_numel(o, x);
		if (n < 0)
			return -1;
		*out = (FoldTensor){.elem = ONNX_INT64, .rank = 0, .numel = 1, .data = arena_dup(o->a, &n, 8)};
		return 0;
	}
	start = opt_attr_i(o, r, "start", 0);
	end = opt_attr_i(o, r, "end", rank);
	start = start < 0 ? start + rank : start;
	end = end < 0 ? end + rank : end;
	start = start < 0 ? 0 : start > rank ? rank : start;
	end = end < start ? start : end > rank ? rank : end;
	buf = ARENA_ARRAY(o->a, int64_t, end - start + 1);
	for (int64_t i = start; i < end; i++) {
		if (d[i].v < 0)
			return -1;
		buf[i - start] = d[i].v;
	}
	*out = (FoldTensor){.elem = ONNX_INT64, .rank = 1, .dims = {end - start}, .numel = end - start, .data = buf};
	return 0;
}

enum { FOLD_STACK_IN = 8 };

/* A node whose inputs are all constants (or Shape/Size of a static shape)
 * becomes an initializer, when fold_eval() knows its op and the result is
 * within the budget; graph outputs are not folded. */
int
pat_constant_folding(Opt *o, int r)
{
	OptNode *x = opt_node(o, r);
	const OnnxNode *m = x->n;
	const FoldTensor **in, *in_buf[FOLD_STACK_IN];
	FoldTensor *ts, t_buf[FOLD_STACK_IN];
	const struct FoldRow *row;
	FoldTensor out = {0};
	int y = opt_out(o, r, 0), v;

	if (x->nout != 1 || y < 0 || opt_val(o, y)->is_output || opt_val(o, y)->pinned || (m->domain && *m->domain))
		return OPT_NOMATCH;
	if (m->op_type[0] == 'S' && (opt_is(o, r, "Shape") || opt_is(o, r, "Size")) &&
	    !opt_const_tensor(o, opt_in(o, r, 0))) {
		if (fold_static_shape(o, r, &out))
			return OPT_NOMATCH;
	} else {
		/* cheap tests first: most nodes read some non-constant */
		for (int k = 0; k < x->nin; k++)
			if (x->in[k] >= 0 && !opt_val(o, x->in[k])->init)
				return OPT_NOMATCH;
		if (!(row = fold_row(m->op_type)))
			return OPT_NOMATCH;
		/* the views of the inputs live on the stack unless there are many */
		in = x->nin <= FOLD_STACK_IN ? in_buf : ARENA_ARRAY(o->a, const FoldTensor *, x->nin + 1);
		ts = x->nin <= FOLD_STACK_IN ? t_buf : ARENA_ARRAY(o->a, FoldTensor, x->nin + 1);
		for (int k = 0; k < x->nin; k++) {
			int iv = opt_in(o, r, k);
			in[k] = NULL;
			if (iv < 0)
				continue;
			if (!opt_const_tensor(o, iv))
				return OPT_NOMATCH;
			if (fold_from_tensor(opt_val(o, iv)->init, &ts[k]))
				return OPT_NOMATCH;
			in[k] = &ts[k];
		}
		if (fold_eval_row(row, o->a, m, x->nin, in, &out, o->fold_max_bytes))
			return OPT_NOMATCH;
	}
	v = opt_const(o, out.elem, out.rank, out.dims, out.data, (size_t)(out.numel * fold_elem_size(out.elem)));
	opt_replace(o, y, v);
	return OPT_REWROTE;
}
