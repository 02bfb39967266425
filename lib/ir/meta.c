/* meta.c: the dtype and shape of an ATen call, as torch's meta functions
 * give them, for readers whose files record neither (TorchScript).
 *
 * meta.def maps an op ("aten.NAME" for every overload, or
 * "aten.NAME.OVERLOAD") to a shape rule, a dtype rule and the dtype kinds
 * its kernel takes.  This file holds the table and the entry points of
 * ir.h; metabase.c what every rule uses (argument readers, dim
 * arithmetic, torch's type promotion); the rules live by family in
 * metaelem.c, metashape.c and metanet.c (ir/internal.h).  A rule reads the
 * node's named arguments (schema names; a missing one is its default),
 * checks what torch checks, and writes the results into the caller's
 * Values.  An in-place form ("add_") without a row of its own uses its
 * out-of-place row, then checks that the result fits self, as torch
 * does.
 *
 * Symbolic sizes are SymExprs in the input shapes' symbols, kept in
 * poly_canon form so equal sizes compare equal; a size that is a number
 * after simplification becomes static.  Where torch would guard on a
 * relation between sizes (a symbol broadcast against another symbol or
 * a number, a split of a symbolic size into a count of pieces), the rule
 * fails rather than guess: the guard would make a dim the user declared
 * dynamic a constant. */
#include "ir/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ==== the table ==== */

static const MetaRow meta_rows[] = {
#define X(op, rule, dt, takes, p, q) { "aten." op, meta_rule_##rule, dt, takes, p, q },
#include "meta.def"
#undef X
};
enum { META_NROW = sizeof meta_rows / sizeof meta_rows[0] };

/* torch's canCast: what an in-place op or an out= may write into. */
static int
can_cast(DType from, DType to)
{
	DTypeKind f = dtype_kind(from), t = dtype_kind(to);

	if (f == DK_COMPLEX && t != DK_COMPLEX)
		return 0;
	if (f == DK_FLOAT && (t == DK_INT || t == DK_BOOL))
		return 0;
	if (f != DK_BOOL && t == DK_BOOL)
		return 0;
	return 1;
}

/* ==== entry points ==== */

static const MetaRow *
find_row(const char *op)
{
	const char *dot;
	size_t base;
	char canon[256];

	op = ir_alias(op, canon, sizeof canon);
	for (int i = 0; i < META_NROW; i++)
		if (strcmp(meta_rows[i].op, op) == 0)
			return &meta_rows[i];
	dot = strrchr(op, '.');
	if (!dot || dot - op <= 5)
		return NULL;
	base = (size_t)(dot - op);
	for (int i = 0; i < META_NROW; i++)
		if (strlen(meta_rows[i].op) == base && strncmp(meta_rows[i].op, op, base) == 0)
			return &meta_rows[i];
	return NULL;
}

/* The row of op, or of its out-of-place form when op is in-place
 * ("aten.add_.Tensor" -> "aten.add.Tensor"); *inplace says which. */
static const MetaRow *
lookup(const char *op, char *buf, size_t len, int *inplace)
{
	const MetaRow *r = find_row(op);
	const char *dot;

	*inplace = 0;
	if (r || strncmp(op, "aten.", 5) != 0)
		return r;
	dot = strchr(op + 5, '.');
	if (!dot)
		dot = op + strlen(op);
	if (dot - op < 7 || dot[-1] != '_' || dot[-2] == '_' || strlen(op) >= len)
		return NULL;
	snprintf(buf, len, "%.*s%s", (int)(dot - op - 1), op, dot);
	*inplace = 1;
	return find_row(buf);
}

int
ir_infer_known(const char *op)
{
	char buf[256];
	int inplace;

	return op && lookup(op, buf, sizeof buf, &inplace) != NULL;
}

int
ir_infer_outputs(Arena *a, const Node *n, Value *out, int max, char *why, size_t whylen)
{
	char buf[256];
	int inplace;
	MetaCtx c = { a, n, NULL, out, max, 0, why, whylen, 0 };
	Value *self;

	if (why && whylen)
		why[0] = 0;
	if (!n->op || !(c.row = lookup(n->op, buf, sizeof buf, &inplace)))
		return meta_fail(&c, "no dtype and shape rule for %s", n->op ? n->op : "(no op)");
	{
		/* TorchScript writes dtypes as c10 ints (6 is float32), which are
		 * not the ScalarType codes dtype_from_torch() takes (7 is float32) */
		const Arg *dt = ir_arg(n, "dtype");
		if (dt && dt->kind != ARG_NONE && dt->kind != ARG_SCALAR_TYPE)
			return meta_fail(&c, "argument 'dtype' must be a ScalarType (ARG_SCALAR_TYPE), not %s",
			                 arg_kind_key[dt->kind < ARG_KIND_COUNT ? dt->kind : 0]);
	}
	if (c.row->rule(&c) < 0)
		return -1;
	if (c.overflow)
		return meta_fail(&c, "a size passes the int64 range");
	if (!inplace)
		return c.nout;
	/* torch writes an in-place result into self: same shape, a dtype it can cast to */
	self = meta_tensor(&c, "self");
	if (!self || c.nout < 1 || out[0].kind != VAL_TENSOR)
		return c.nout;
	if (out[0].rank != self->rank)
		goto mismatch;
	for (int i = 0; i < self->rank; i++)
		if (!meta_dim_eq(out[0].dims[i], self->dims[i]))
			goto mismatch;
	if (!can_cast(out[0].dtype, self->dtype))
		return meta_fail(&c, "result type %s can't be cast to the desired output type %s",
		            dtype_name(out[0].dtype), dtype_name(self->dtype));
	out[0].dtype = self->dtype;
	out[0].dims = self->dims;
	return c.nout;
mismatch:
	return meta_fail(&c, "output with shape %s doesn't match the broadcast shape %s",
	            meta_shape_str(&c, self->rank, self->dims), meta_shape_str(&c, out[0].rank, out[0].dims));
}

int
ir_type_outputs(const IrTyper *t, Arena *a, const Node *n, int nout, Value *out, int max, char *why,
                size_t whylen)
{
	if (!t || !t->fn || ir_infer_known(n->op))
		return ir_infer_outputs(a, n, out, max, why, whylen);
	return t->fn(t, a, n, nout, out, max, why, whylen);
}
