/* ops.c: the op table built from ops/all.def, its lookup index and
 * docs/ops.md.  The index is a sorted array of row numbers searched with
 * bsearch; it is built on first use and never changes after. */
#include "ops.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"

const OpRow op_table[OP_COUNT] = {
#define OP(aten, fn, onnx, opset, flags) {aten, fn, #fn, onnx, opset, flags, OPS_FAMILY},
#include "all.def"
#undef OP
};

static_assert(sizeof op_table / sizeof op_table[0] == OP_COUNT, "one table entry per .def row");
static_assert(OP_COUNT > 0, "the op table is empty");

static int sorted[OP_COUNT];
static int nsorted;

static int
cmp_rows(const void *a, const void *b)
{
	return strcmp(op_table[*(const int *)a].aten, op_table[*(const int *)b].aten);
}

static int
cmp_key(const void *key, const void *row)
{
	return strcmp(key, op_table[*(const int *)row].aten);
}

const OpRow *
ops_find(const char *aten)
{
	const int *hit;

	if (!nsorted) {
		for (int i = 0; i < OP_COUNT; i++)
			sorted[i] = i;
		qsort(sorted, OP_COUNT, sizeof sorted[0], cmp_rows);
		nsorted = OP_COUNT;
	}
	hit = bsearch(aten, sorted, OP_COUNT, sizeof sorted[0], cmp_key);
	return hit ? &op_table[*hit] : NULL;
}

void
ops_write_doc(FILE *f)
{
	const char *family = NULL;

	fprintf(f, "# Supported ATen operators\n\n"
	        "<!-- Generated from ops/*.def by `make docs`; do not edit. -->\n\n"
	        "%d ATen overloads, one row each in `ops/<family>.def`. *ONNX* is the operator\n"
	        "the lowering emits (the main one, for lowerings that emit several); *since* is\n"
	        "the lowest target opset (option `opset`) the row supports (\"17; 18 on integers\":\n"
	        "the Bitwise* operators, on integer tensors, need 18). *view*: the result\n"
	        "aliases `self`; *in-place*: the result is written back into `self` (both are\n"
	        "functionalized during lowering, so writes through views reach their base).\n",
	        OP_COUNT);
	for (int i = 0; i < OP_COUNT; i++) {
		const OpRow *r = &op_table[i];
		if (!family || strcmp(family, r->family) != 0) {
			family = r->family;
			fprintf(f, "\n## %s\n\n| ATen overload | ONNX | since | lowering | kind |\n"
			        "| --- | --- | --- | --- | --- |\n", family);
		}
		fprintf(f, "| `%s` | %s | %d%s | `%s` | %s |\n", r->aten, r->onnx[0] ? r->onnx : "-",
		        r->opset, r->flags & OPF_INT18 ? "; 18 on integers" : "", r->fn_name,
		        r->flags & OPF_INPLACE ? "in-place" : r->flags & OPF_VIEW ? "view" : "");
	}
}
