/* fuzz_sym.c: libFuzzer target for the symbolic size parsers and printer.
 *
 * The first byte picks the parser (odd: infix, even: srepr); the rest is the
 * text, copied to an exact-size buffer so ASan sees a read past its end.  A
 * parsed tree must print as infix that reads back to an equal tree which
 * prints the same text; a rejected input must leave a DIAG_INPUT message.
 * Evaluation with every symbol = 3 must not crash (it may fail). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "sym/sym.h"
#include "../unit/diagtext.h"

static int
three(void *ctx, const char *name, int64_t *v)
{
	(void)ctx;
	(void)name;
	*v = 3;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Arena a;
	Diag d = {0};
	SymExpr *e, *back;
	char *text, *buf;
	int64_t v;

	if (size < 1)
		return 0;
	buf = malloc(size - 1 ? size - 1 : 1);
	if (!buf)
		abort();
	memcpy(buf, data + 1, size - 1);
	arena_init(&a);
	if (data[0] & 1)
		e = sym_parse_infix(&a, "fuzz", buf, size - 1, &d);
	else
		e = sym_parse_srepr(&a, "fuzz", buf, size - 1, &d);
	if (!e) {
		if (d.code != DIAG_INPUT || !test_diag_text(&d) || strncmp(test_diag_text(&d), "fuzz: column ", 13) != 0)
			abort();
	} else {
		text = sym_print(&a, e);
		back = sym_parse_infix(&a, "printed", text, strlen(text), &d);
		if (!back) {
			fprintf(stderr, "printed text does not read back: %s\n%s", text, test_diag_text(&d));
			abort();
		}
		if (!sym_equal(e, back)) {
			fprintf(stderr, "printed text reads back to another tree: %s\n", text);
			abort();
		}
		if (strcmp(sym_print(&a, back), text) != 0) {
			fprintf(stderr, "print is not stable: %s\n", text);
			abort();
		}
		sym_eval(e, three, NULL, &v);
	}
	diag_free(&d);
	arena_free(&a);
	free(buf);
	return 0;
}
