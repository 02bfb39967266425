/* pass_dedup.c: DedupInitializers (patterns.def): initializers with the
 * same type, shape and bytes become one value, found by a hash of their
 * bytes (only the first DEDUP_CONTENT_BYTES for large ones, then compared). */
#include "opt/opt.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/core.h"
#include "onnx/onnx.h"
#include "internal.h"

/* Initializers the optimizer made, and those of at most this many bytes,
 * are compared by content; larger ones from the input only by identity
 * (the same bytes in the mapped file, as tied weights are): reading them
 * would fault in every weight the writer otherwise copies file to file. */
#define DEDUP_CONTENT_BYTES 64

/* The key of an initializer: type, shape and its content hash, or its
 * address when it is compared by identity.  A computed one (onnx.h) is
 * keyed by its recipe, which is not computed for this. */
static uint64_t
init_hash(const OnnxTensor *t, int by_content)
{
	uint64_t h = (uint64_t)t->data_type * 0x9e3779b97f4a7c15ULL ^ t->raw_data.len;
	const OnnxScaled *s = onnx_tensor_recipe(t);

	if (t->n_dims)
		h = opt_mix(h, (const uint8_t *)t->dims, t->n_dims * sizeof *t->dims);
	if (s && !s->scale)
		return opt_mix(h, (const uint8_t *)&s->src, sizeof s->src);
	if (s)
		return opt_mix(opt_mix(h, (const uint8_t *)&s->src, sizeof s->src), (const uint8_t *)s->scale,
		           sizeof *s->scale * (size_t)s->rows);
	if (by_content)
		return opt_mix(h, (const uint8_t *)&(uint64_t){opt_content_hash(t->raw_data.data, t->raw_data.len)}, 8);
	return opt_mix(h, (const uint8_t *)&t->raw_data.data, sizeof t->raw_data.data);
}

/* 1 when two initializers hold the same type, shape and bytes; computed
 * ones only match the same recipe (same source, same scales). */
static int
same_init(const OnnxTensor *a, const OnnxTensor *b)
{
	const OnnxScaled *ra = onnx_tensor_recipe(a), *rb = onnx_tensor_recipe(b);

	if (a->data_type != b->data_type || a->n_dims != b->n_dims || a->raw_data.len != b->raw_data.len ||
	    (a->n_dims && memcmp(a->dims, b->dims, a->n_dims * sizeof *a->dims) != 0) || !ra != !rb)
		return 0;
	if (ra)
		return ra->src == rb->src && ra->rows == rb->rows && ra->per == rb->per && !ra->scale == !rb->scale &&
		       (!ra->scale || !memcmp(ra->scale, rb->scale, sizeof *ra->scale * (size_t)ra->rows));
	return a->raw_data.data == b->raw_data.data || !a->raw_data.len ||
	       !memcmp(a->raw_data.data, b->raw_data.data, a->raw_data.len);
}

/* Requires the index; makes initializers with the same type, shape and
 * bytes one value, readers moving to the first.  Open addressing by
 * init_hash(); same_init() confirms (reading the bytes only when the keys
 * matched: then they are equal, or a rare collision). */
int
opt_pass_dedup(Opt *o)
{
	size_t cap = 16;
	int *slot, merged = 0;
	uint64_t *hs;

	while (cap < o->inits.n * 2)
		cap *= 2;
	slot = ARENA_ARRAY(o->a, int, cap);         /* value id + 1, 0 empty */
	hs = ARENA_ARRAY(o->a, uint64_t, cap);
	for (size_t i = 0; i < o->inits.n; i++) {
		int id = (int)(intptr_t)o->inits.v[i], prev = -1;
		OptValue *v = opt_val(o, id);
		OnnxTensor *t = v->init;
		uint64_t h;
		size_t j;
		if (!t || !v->name || v->is_input || v->is_output || v->pinned || !v->nuse ||
		    (!onnx_tensor_recipe(t) && !opt_const_tensor(o, id)))
			continue;
		h = init_hash(t, i >= (size_t)o->ninit_orig || t->raw_data.len <= DEDUP_CONTENT_BYTES);
		for (j = h & (cap - 1); slot[j]; j = (j + 1) & (cap - 1))
			if (hs[j] == h && same_init(opt_val(o, slot[j] - 1)->init, t)) {
				prev = slot[j] - 1;
				break;
			}
		if (prev < 0) {
			slot[j] = id + 1;
			hs[j] = h;
			continue;
		}
		o->hint = t->name;
		opt_replace(o, id, prev);
		merged++;
	}
	opt_sweep(o);
	return merged;
}
