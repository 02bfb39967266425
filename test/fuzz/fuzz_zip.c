/* fuzz_zip.c: libFuzzer target for the zip reader.
 *
 * Opens the input as an in-memory archive, resolves every entry's data
 * (stored or inflated) and reads its first and last byte, so a bad offset
 * shows up under ASan at the read rather than later in a caller.  Errors
 * are the expected outcome for most inputs; only crashes matter. */
#include <stddef.h>
#include <stdint.h>

#include "read/read.h"

int LLVMFuzzerTestOneInput(const uint8_t *buf, size_t len);

int
LLVMFuzzerTestOneInput(const uint8_t *buf, size_t len)
{
	volatile uint8_t sink = 0;
	Arena a;
	Diag d = {0};
	Zip z;

	arena_init(&a);
	if (zip_open_mem(&z, "fuzz.zip", buf, len, &a, &d) == 0) {
		for (int i = 0; i < z.n; i++) {
			ZipEntry *e = &z.ent[i];
			/* lookups must find every entry by its own relative name */
			if (!zip_find(&z, e->rel))
				__builtin_trap();
			if (zip_data(&z, e, &d) != 0)
				continue;
			if (e->size) {
				sink ^= e->data[0];
				sink ^= e->data[e->size - 1];
			}
		}
		zip_close(&z);
	}
	(void)sink;
	diag_free(&d);
	arena_free(&a);
	return 0;
}
