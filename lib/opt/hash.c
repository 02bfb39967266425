/* hash.c: the byte hashes DedupInitializers and CommonSubexpressions key
 * their tables with (not cryptographic; equal keys are always compared). */
#include "opt/opt.h"

#include <stdint.h>
#include <string.h>

#include "internal.h"

uint64_t
opt_mix(uint64_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ULL ^ (h >> 29);
	}
	for (size_t i = n & ~(size_t)7; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/* A hash of the bytes, or of a sample of them past 4 KiB (the first and
 * last KiB and 16 blocks between): it groups candidates, memcmp confirms. */
uint64_t
opt_content_hash(const uint8_t *p, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;

	if (n <= 4096)
		return opt_mix(h, p, n);
	h = opt_mix(h, p, 1024);
	h = opt_mix(h, p + n - 1024, 1024);
	for (size_t b = 1; b <= 16; b++)
		h = opt_mix(h, p + (n - 64) / 17 * b, 64);
	return h;
}
