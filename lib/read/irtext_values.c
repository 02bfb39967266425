/* irtext_values.c: a text graph's weight and sample bytes (internal.h): the
 * values after `=`, or a deterministic fill, converted to the dtype, in a
 * range-checked arena storage. */
#include "read/read.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "ir/ir.h"
#include "read/internal.h"

/* ---- weights and samples ---- */

/* "= [v, ...]", "= fill(x)", "= arange(start[, step])", "= rand(seed)". */
int
irt_parse_fill(Lex *L, Fill *f)
{
	const char *at;
	const char *name;

	irt_skip_ws(L);
	f->at = *L;
	at = L->p;
	f->vals = ARENA_ARRAY(L->a, double, 2);
	if (irt_accept(L, "[")) {
		f->kind = FILL_LIST;
		f->n = 0;
		if (irt_accept(L, "]"))
			return 0;
		for (;;) {
			double x;
			if (irt_parse_number(L, &x, "in the values"))
				return DIAG_INPUT;
			if (f->n >= MAX_VALUES)
				return irt_err(L, at, "more than %d values", MAX_VALUES);
			PUSH(L->a, f->vals, f->n, x);
			if (irt_accept(L, "]"))
				return 0;
			if (irt_expect(L, ",", "or ']' between values"))
				return DIAG_INPUT;
		}
	}
	if (!(name = irt_ident(L, 0)) || !irt_accept(L, "("))
		return irt_err(L, at, "expected values: [v, ...], fill(x), arange(start, step) or rand(seed)");
	if (strcmp(name, "fill") == 0) {
		f->kind = FILL_CONST;
		return irt_parse_number(L, &f->vals[0], "in fill(x)") || irt_expect(L, ")", "closing fill(") ? DIAG_INPUT : 0;
	}
	if (strcmp(name, "arange") == 0) {
		f->kind = FILL_ARANGE;
		f->vals[1] = 1;
		if (irt_parse_number(L, &f->vals[0], "in arange(start, step)"))
			return DIAG_INPUT;
		if (irt_accept(L, ",") && irt_parse_number(L, &f->vals[1], "in arange(start, step)"))
			return DIAG_INPUT;
		return irt_expect(L, ")", "closing arange(");
	}
	if (strcmp(name, "rand") == 0) {
		int64_t s;
		f->kind = FILL_RAND;
		if (irt_parse_int(L, &s, "in rand(seed)") || irt_expect(L, ")", "closing rand("))
			return DIAG_INPUT;
		f->seed = (uint64_t)s;
		return 0;
	}
	return irt_err(L, at, "unknown fill '%s': expected fill, arange or rand", name);
}

/* A 64-bit LCG; its top 24 bits are exact in float32, so the values are
 * the same on every machine. */
static uint32_t
lcg24(uint64_t *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(*state >> 40);
}

/* Fills count elements of type t at b. */
static int
fill_bytes(const Fill *f, DType t, uint8_t *b, int64_t count, const char *what)
{
	uint64_t state = f->seed * 0x9e3779b97f4a7c15ULL + 1;
	int size = dtype_size(t);

	if (f->kind == FILL_LIST && f->n != count) {
		Lex at = f->at;
		return irt_err(&at, at.p, "%s has %lld elements but %d values are given", what, (long long)count, f->n);
	}
	for (int64_t i = 0; i < count; i++) {
		double x;
		switch (f->kind) {
		case FILL_LIST: x = f->vals[i]; break;
		case FILL_CONST: x = f->vals[0]; break;
		case FILL_ARANGE: x = f->vals[0] + (double)i * f->vals[1]; break;
		default: {
			uint32_t r = lcg24(&state);
			/* floats in [-1, 1); integers in [0, 4]; bools 0/1 */
			x = dtype_is_float(t) ? (double)r / 8388608.0 - 1.0 : t == DT_BOOL ? (double)(r & 1) : (double)(r % 5);
			break;
		}
		}
		if (dtype_kind(t) == DK_COMPLEX || dtype_kind(t) == DK_OTHER) {   /* a value is one real number */
			Lex at = f->at;
			return irt_err(&at, at.p, "%s: cannot give values to a %s tensor", what, dtype_name(t));
		}
		dtype_encode_f64(t, b + i * size, x);
	}
	return 0;
}

/* A TensorData of v's (static) shape, contiguous, storage_bytes at least
 * its size (bytes > 0: the size --print showed). */
TensorData *
irt_make_tensor(Lex *L, const char *at, DType t, int rank, const int64_t *sizes, const int64_t *strides,
                int64_t offset, uint64_t bytes, const Fill *f, const char *what)
{
	TensorData *td = ARENA_NEW(L->a, TensorData);
	int64_t span = 1, numel = 1;
	int size = dtype_size(t);

	if (!size) {
		irt_err(L, at, "%s: dtype %s has no element size", what, dtype_name(t));
		return NULL;
	}
	td->dtype = t;
	td->rank = rank;
	td->sizes = ARENA_ARRAY(L->a, int64_t, rank + 1);
	td->strides = ARENA_ARRAY(L->a, int64_t, rank + 1);
	td->offset = offset;
	for (int i = rank - 1; i >= 0; i--) {
		td->sizes[i] = sizes[i];
		if (strides && (strides[i] < 0 || strides[i] > MAX_VALUES)) {
			irt_err(L, at, "%s: stride %lld is not in [0, %d]", what, (long long)strides[i], MAX_VALUES);
			return NULL;
		}
		td->strides[i] = strides ? strides[i] : (i == rank - 1 ? 1 : td->strides[i + 1] * sizes[i + 1]);
		if (sizes[i] > MAX_VALUES || numel * sizes[i] > MAX_VALUES) {
			irt_err(L, at, "%s: more than %d elements", what, MAX_VALUES);
			return NULL;
		}
		numel *= sizes[i];
		if (sizes[i] == 0)
			span = 0;
		else if (span)
			span += (sizes[i] - 1) * td->strides[i];
	}
	if (offset < 0 || offset > MAX_VALUES) {
		irt_err(L, at, "%s: storage offset %lld is not in [0, %d]", what, (long long)offset, MAX_VALUES);
		return NULL;
	}
	if (span)
		span += offset;
	if (bytes > MAX_STORAGE_BYTES || (uint64_t)span * (uint64_t)size > MAX_STORAGE_BYTES) {
		irt_err(L, at, "%s: a storage of more than %llu bytes", what, (unsigned long long)MAX_STORAGE_BYTES);
		return NULL;
	}
	if (bytes && bytes < (uint64_t)span * (uint64_t)size) {
		irt_err(L, at, "%s: %llu bytes are too few for %lld elements of %s", what, (unsigned long long)bytes,
		    (long long)span, dtype_name(t));
		return NULL;
	}
	td->storage_bytes = bytes ? bytes : (uint64_t)span * (uint64_t)size;
	td->storage = arena_alloc(L->a, td->storage_bytes + 1);
	td->entry = arena_printf(L->a, "%s:%d", L->label, L->line);
	if (tensor_is_contiguous(td) && offset == 0) {
		if (fill_bytes(f, t, (uint8_t *)td->storage,
		               f->kind == FILL_LIST ? numel : (int64_t)(td->storage_bytes / (uint64_t)size), what))
			return NULL;
	} else if (f->kind == FILL_LIST) {
		Lex fat = f->at;
		irt_err(&fat, fat.p, "%s: values can only be given for a contiguous tensor", what);
		return NULL;
	}
	return td;
}
