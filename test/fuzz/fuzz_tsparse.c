/* fuzz_tsparse.c: libFuzzer target for ts_parse, the TorchScript code parser.
 *
 * Parses the input as one code file from an exact-size copy (so ASan sees a
 * read past the end), then walks the tree through tsdump.h, which checks
 * what every tree holds (positions inside the text, keywords after
 * positional arguments, kinds in range, depth within what TS_MAX_NEST
 * allows); a failed parse must leave exactly one "fuzz.py:" error. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "read/ts/ts.h"
#include "../unit/diagtext.h"
#include "../unit/tsdump.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1);
	Arena a;
	Diag d = {0};
	TsAst ast;
	static FILE *sink;

	if (!sink)
		sink = fopen("/dev/null", "w");
	if (!copy || !sink)
		abort();
	memcpy(copy, data, size);
	arena_init(&a);
	if (ts_parse(&a, "fuzz.py", copy, size, &ast, &d) == 0) {
		if (d.n != 0 || ts_dump(sink, &ast, size) != NULL)
			abort();
	} else if (d.code != DIAG_INPUT || d.n != 1 || strncmp(test_diag_text(&d), "fuzz.py:", 8) != 0 ||
	           !strstr(test_diag_text(&d), ": expected ") || ast.nclass || ast.ndef) {
		abort();
	}
	arena_free(&a);
	diag_free(&d);
	free(copy);
	return 0;
}
