/* fuzz_json.c: libFuzzer target for json_parse.
 *
 * Parses the input as one document from an exact-size copy (so ASan sees a
 * read past the end), then walks whatever tree came back through every
 * accessor, checking the invariants callers rely on: strings are
 * NUL-terminated at len, objects have a key per child, positions are 1-based. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "read/read.h"
#include "../unit/diagtext.h"

/* json_get(key k) is the first member whose key compares equal, or NULL
 * if that member is null. */
static void
check_get(const Json *j, size_t k)
{
	size_t m = 0;

	while (strcmp(json_keys(j)[m], json_keys(j)[k]) != 0)
		m++;
	if (json_get(j, json_keys(j)[k]) != (j->kids[m]->type == JSON_NULL ? NULL : j->kids[m]))
		abort();
}

static void
walk(const Json *j, int depth)
{
	int64_t i;
	double f;

	if (j->line < 1 || j->col < 1 || depth > 10001)
		abort();
	json_int(j, &i);
	if (!json_float(j, &f) && j->type == JSON_NUMBER)
		abort();
	json_union_key(j);
	json_union_value(j);
	switch (j->type) {
	case JSON_STRING:
		if (!json_str(j) || j->s[j->len] != 0)
			abort();
		break;
	case JSON_NUMBER:
		if (j->is_int && (double)j->i != f)
			abort();
		break;
	case JSON_OBJECT:
		for (size_t k = 0; k < j->len; k++) {
			if (!json_keys(j)[k] || !j->kids[k])
				abort();
			if (j->len <= 64)
				check_get(j, k);
			walk(j->kids[k], depth + 1);
		}
		break;
	case JSON_ARRAY:
		for (size_t k = 0; k < j->len; k++)
			walk(j->kids[k], depth + 1);
		break;
	default:
		break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1);
	Arena a;
	Diag d = {0};
	Json *root;

	memcpy(copy, data, size);
	arena_init(&a);
	root = json_parse(&a, "fuzz.json", copy, size, &d);
	if (root)
		walk(root, 0);
	else if (d.code != DIAG_INPUT || !test_diag_text(&d) || strncmp(test_diag_text(&d), "fuzz.json:", 10) != 0)
		abort();
	arena_free(&a);
	diag_free(&d);
	free(copy);
	return 0;
}
