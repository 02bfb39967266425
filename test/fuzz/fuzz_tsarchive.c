/* fuzz_tsarchive.c: libFuzzer target for the TorchScript archive reader
 * (lib/read/ts/tsarchive.c, with pickle.c and torchsave.c under it).
 *
 * The input is up to four parts separated by "@@@\n": data.pkl, the code
 * file code/__torch__.py, its .debug_pkl and constants.pkl.  They are
 * zipped, stored, beside a version record and storages data/0..15 and
 * constants/0..15 of 64 bytes each, so that tensors, spans and the code
 * checks are reached (corpus/tsarchive holds real archives' parts).
 * Contract: a rejected archive says so with DIAG_INPUT and nothing else;
 * an accepted one has a module object at its root, tensors inside their
 * storages, and spans sorted, disjoint and inside their code. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/ts/ts.h"
#include "../unit/zipwrite.h"
#include "pytree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_code(const TsCode *c)
{
	if (!c->text || c->text[c->len] != 0 || !c->module)
		abort();
	for (int i = 0; i < c->nspan; i++) {
		const TsSpan *s = &c->spans[i];
		if (s->start >= s->end || s->end > c->len || !s->file)
			abort();
		if (i && s->start < c->spans[i - 1].end)
			abort();
		if (ts_span_at(c, s->start) != s || ts_span_at(c, s->end - 1) != s)
			abort();
		pytree_sink ^= (uint8_t)(s->src ? s->src[0] : s->trace ? s->trace[0] : s->file[0]);
	}
}

/* The next part of data[*pos..size) up to the separator (or the end). */
static const uint8_t *
part(const uint8_t *data, size_t size, size_t *pos, size_t *len)
{
	const uint8_t *p = data + *pos;
	size_t left = size - *pos;

	for (size_t i = 0; i + 4 <= left; i++)
		if (memcmp(p + i, "@@@\n", 4) == 0) {
			*len = i;
			*pos += i + 4;
			return p;
		}
	*len = left;
	*pos = size;
	return p;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[4] = {
		"m/data.pkl", "m/code/__torch__.py", "m/code/__torch__.py.debug_pkl", "m/constants.pkl",
	};
	static uint8_t storage[64];
	Zb b = {0};
	size_t pos = 0, len;
	uint8_t *zip;
	Arena a;
	Diag d = {0};
	Zip z;
	TsArchive t;
	char name[64];

	for (int i = 0; i < 64; i++)
		storage[i] = (uint8_t)(i * 7 + 1);
	zb_add(&b, "m/version", "3\n", 2);
	for (int i = 0; i < 4 && pos < size; i++) {
		const uint8_t *p = part(data, size, &pos, &len);
		zb_add(&b, names[i], p, len);
	}
	for (int i = 0; i < 16; i++) {
		snprintf(name, sizeof name, "m/data/%d", i);
		zb_add(&b, name, storage, sizeof storage);
		snprintf(name, sizeof name, "m/constants/%d", i);
		zb_add(&b, name, storage, sizeof storage);
	}
	zip = zb_finish(&b, &len);
	arena_init(&a);
	if (zip_open_mem(&z, "fuzz.pt", zip, len, &a, &d) == 0) {
		int rc = ts_archive_read(&t, &z, &a, &d);
		if (rc != d.code || (rc != 0 && rc != DIAG_INPUT))
			abort();
		if (rc == 0) {
			if (!t.root || t.root->kind != PY_CALL || !t.producer)
				abort();
			pytree_budget = 100000;
			pytree_walk(t.root, 0);
			pytree_walk(t.constants, 0);
			for (int i = 0; i < t.ncode; i++)
				check_code(&t.code[i]);
		}
		zip_close(&z);
	}
	diag_free(&d);
	arena_free(&a);
	free(zip);
	return 0;
}
