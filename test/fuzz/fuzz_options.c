/* fuzz_options.c: libFuzzer target for the options file (-c): libyaml's
 * document, the alias-expansion and nesting limits, and every key's parser
 * (lib/pipeline/options.c).  Whatever the bytes, the reader ends in 0 or a
 * diagnostic of exit status 2, never in die(), a crash or a walk through
 * billions of aliased nodes.  Seeds: test/fuzz/corpus/options/ (every key
 * of options.def, and the hostile files of test/hostile/gen.py). */
#include <stdint.h>
#include <stdlib.h>

#include "core/core.h"
#include "pipeline/pipeline.h"
#include "pipeline/internal.h"   /* options_count, options_value: the report's rendering of each option */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Arena a;
	Diag d = {0};
	Options o;
	int rc;

	arena_init(&a);
	options_default(&o);
	rc = options_parse(&o, &a, "fuzz.yaml", (const char *)data, size, &d);
	if (rc != 0 && rc != DIAG_INPUT)
		abort();
	if (rc == 0 && d.code == DIAG_INPUT)
		abort();
	for (int i = 0; i < options_count(); i++)
		(void)options_value(&o, i);
	diag_free(&d);
	arena_free(&a);
	return 0;
}
