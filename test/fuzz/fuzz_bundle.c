/* fuzz_bundle.c: libFuzzer target for the capture-bundle reader
 * (lib/read/bundle.c).  The input is capture.json; it is zipped, stored,
 * beside a capture and an input entry it may name (captures/a.pt2,
 * inputs/0.bin, 8 bytes each), so that the reader's checks of entries,
 * dtypes, shapes and sizes are reached.  A rejected bundle must say so
 * with DIAG_INPUT; an accepted one must hold what it says. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read/read.h"
#include "../unit/zipwrite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t eight[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	Zb b = {0};
	size_t len;
	uint8_t *zip;
	Arena a;
	Diag d = {0};
	Bundle bd;

	zb_add(&b, "capture.json", data, size);
	zb_add(&b, "captures/a.pt2", eight, 8);
	zb_add(&b, "inputs/0.bin", eight, 8);
	zip = zb_finish(&b, &len);
	arena_init(&a);
	memset(&bd, 0, sizeof bd);
	if (zip_open_mem(&bd.zip, "fuzz.yxc", zip, len, &a, &d) == 0) {
		if (bundle_read(&bd, &a, &d) == 0) {
			if (d.code != DIAG_OK)
				abort();
			for (int i = 0; i < bd.nattempt; i++)
				if (bd.attempts[i].ok && !bd.attempts[i].data)
					abort();
			for (int i = 0; i < bd.ninput; i++)
				if (bd.inputs[i].rank < 0 || (size_t)dtype_size(bd.inputs[i].dtype) == 0)
					abort();
		} else if (d.code != DIAG_INPUT) {
			abort();
		}
		zip_close(&bd.zip);
	}
	diag_free(&d);
	arena_free(&a);
	free(zip);
	return 0;
}
