/* fuzz_irtext.c: libFuzzer target for the text-graph reader (lib/read/irtext.c).
 *
 * The input is a text graph, copied to an exact-size NUL-terminated buffer
 * so ASan sees a read past its end.  A rejected input must leave one
 * DIAG_INPUT message that starts "fuzz.txt:"; an accepted one must print
 * (ir_print) and read back from its exact print. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "ir/ir.h"
#include "read/read.h"
#include "../unit/diagtext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Arena a;
	Program p = {0}, q = {0};
	Diag d = {0};
	char *buf = malloc(size + 1), *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!buf)
		abort();
	memcpy(buf, data, size);
	buf[size] = 0;
	arena_init(&a);
	p.arena = &a;
	if (irtext_parse(&p, "fuzz.txt", buf, size, &d)) {
		const char *msg = test_diag_text(&d);
		if (d.code != DIAG_INPUT || !msg || strncmp(msg, "fuzz.txt", 8) != 0) {
			fprintf(stderr, "rejected without a fuzz.txt message: %s\n", msg ? msg : "(none)");
			abort();
		}
	} else {
		if (!(f = open_memstream(&text, &len)))
			abort();
		ir_print_ext(f, &p, IR_PRINT_EXACT | IR_PRINT_NAMES);
		fclose(f);
		diag_free(&d);
		q.arena = &a;
		if (irtext_parse(&q, "printed", text, len, &d)) {
			fprintf(stderr, "its exact print does not read back: %s\n%s", test_diag_text(&d), text);
			abort();
		}
		free(text);
	}
	diag_free(&d);
	arena_free(&a);
	free(buf);
	return 0;
}
