/* onnxops.c: the rows of onnxops.def as a table, and the lookup by op type.
 *
 * The rows are sorted by domain then op type, so a lookup is a search by
 * halves: about eight string compares over the table, where the tables it
 * replaces were scanned row by row.  Each layer keeps the functions of its
 * columns next to them (infer.c, fold.c, lib/report/flops.c). */
#include "onnx/onnx.h"

#include <string.h>

const OnnxOp onnx_ops[ONNXOP_COUNT] = {
#define OP(id, name, dom, lo, hi, infer, models, fold, fold_in, fl, fl_k) [ONNXOP_##id] = {name, dom, lo, hi},
#include "onnx/onnxops.def"
#undef OP
};

/* The order of the rows: ai.onnx ("") before other domains, then by name. */
static int
key_cmp(const char *dom, const char *op, const OnnxOp *row)
{
	int c = strcmp(dom, row->domain);

	return c ? c : strcmp(op, row->name);
}

int
onnx_op_find(const char *domain, const char *op)
{
	int lo = 0, hi = ONNXOP_COUNT - 1;

	if (!domain || strcmp(domain, "ai.onnx") == 0)
		domain = "";
	while (lo <= hi) {
		int mid = (lo + hi) / 2, c = key_cmp(domain, op, &onnx_ops[mid]);
		if (c == 0)
			return mid;
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return -1;
}

int
onnx_op_of(const OnnxNode *n)
{
	return onnx_op_find(n->domain, n->op_type);
}
