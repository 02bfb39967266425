/* zipwrite.h: a tiny zip writer for the unit tests (stored entries), for
 * archives Python does not make (test_zip.c: ZIP64 fields in the central
 * directory, more than 65535 entries) and small ones made on the spot
 * (test_capture.c: malformed bundles).  Include it before testutil.h. */
#ifndef ZIPWRITE_H
#define ZIPWRITE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static inline void
put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void
put32(uint8_t *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

static inline void
put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* A tiny zip writer for the shapes Python does not make.  zip64 forces
 * 0xFFFFFFFF sizes and offsets in the central directory (values in a
 * ZIP64 extra field behind an unrelated one) and the ZIP64 end records. */
typedef struct Zb {
	uint8_t *buf, *cd;
	size_t len, cdlen, cap, cdcap;
	uint64_t n;
	int zip64;
} Zb;

static inline uint8_t *
zb_grow(uint8_t **p, size_t *len, size_t *cap, size_t add)
{
	if (!*p || *len + add > *cap) {
		*cap = (*len + add) * 2 + 64;
		*p = realloc(*p, *cap);
	}
	*len += add;
	return *p + *len - add;
}

static inline void
zb_add(Zb *b, const char *name, const void *data, size_t size)
{
	size_t nl = strlen(name), xl = b->zip64 ? 4 + 8 + 4 + 24 : 0;
	uint8_t *h = zb_grow(&b->buf, &b->len, &b->cap, 30 + nl + size);
	uint32_t ofs = (uint32_t)(b->len - 30 - nl - size);
	uint32_t crc = (uint32_t)crc32(0, data, (uInt)size);

	memset(h, 0, 30);
	put32(h, 0x04034b50);
	put16(h + 4, 20);
	put32(h + 14, crc);
	put32(h + 18, (uint32_t)size);
	put32(h + 22, (uint32_t)size);
	put16(h + 26, (unsigned)nl);
	memcpy(h + 30, name, nl);
	if (size)
		memcpy(h + 30 + nl, data, size);
	h = zb_grow(&b->cd, &b->cdlen, &b->cdcap, 46 + nl + xl);
	memset(h, 0, 46);
	put32(h, 0x02014b50);
	put16(h + 4, 45);
	put16(h + 6, 45);
	put32(h + 16, crc);
	put32(h + 20, b->zip64 ? 0xFFFFFFFFu : (uint32_t)size);
	put32(h + 24, b->zip64 ? 0xFFFFFFFFu : (uint32_t)size);
	put16(h + 28, (unsigned)nl);
	put16(h + 30, (unsigned)xl);
	put32(h + 42, b->zip64 ? 0xFFFFFFFFu : ofs);
	memcpy(h + 46, name, nl);
	if (b->zip64) {
		uint8_t *x = h + 46 + nl;
		put16(x, 0x5455);       /* an extended timestamp to skip first */
		put16(x + 2, 8);
		memset(x + 4, 0x55, 8);
		put16(x + 12, 0x0001);
		put16(x + 14, 24);
		put64(x + 16, size);    /* usize, csize, offset: the spec's order */
		put64(x + 24, size);
		put64(x + 32, ofs);
	}
	b->n++;
}

/* Returns the finished archive (malloc'd) and frees the builder. */
static inline uint8_t *
zb_finish(Zb *b, size_t *len)
{
	uint64_t cdofs = b->len;
	int big = b->zip64 || b->n > 0xFFFF;
	uint8_t *p;

	if (b->cdlen)
		memcpy(zb_grow(&b->buf, &b->len, &b->cap, b->cdlen), b->cd, b->cdlen);
	if (big) {
		uint64_t rec = b->len;
		p = zb_grow(&b->buf, &b->len, &b->cap, 56 + 20);
		memset(p, 0, 76);
		put32(p, 0x06064b50);
		put64(p + 4, 44);
		put16(p + 12, 45);
		put16(p + 14, 45);
		put64(p + 24, b->n);
		put64(p + 32, b->n);
		put64(p + 40, b->cdlen);
		put64(p + 48, cdofs);
		put32(p + 56, 0x07064b50);
		put64(p + 64, rec);
		put32(p + 72, 1);
	}
	p = zb_grow(&b->buf, &b->len, &b->cap, 22);
	memset(p, 0, 22);
	put32(p, 0x06054b50);
	put16(p + 8, big ? 0xFFFF : (unsigned)b->n);
	put16(p + 10, big ? 0xFFFF : (unsigned)b->n);
	put32(p + 12, big ? 0xFFFFFFFFu : (uint32_t)b->cdlen);
	put32(p + 16, big ? 0xFFFFFFFFu : (uint32_t)cdofs);
	free(b->cd);
	*len = b->len;
	return b->buf;
}

/* Writes a zip at path holding one stored entry name with data. */
static inline void
test_write_zip(const char *path, const char *name, const void *data, size_t size)
{
	Zb b = {0};
	size_t len;
	uint8_t *buf;
	FILE *f;

	zb_add(&b, name, data, size);
	buf = zb_finish(&b, &len);
	f = fopen(path, "wb");
	if (f) {
		fwrite(buf, 1, len, f);
		fclose(f);
	}
	free(buf);
}

#endif
