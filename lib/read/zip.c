/* zip.c: the central-directory zip reader of read.h.
 *
 * The archive is a byte range (a read-only mmap, or a nested entry's bytes).
 * Opening finds the end-of-central-directory record, follows the ZIP64
 * locator when there is one, and reads every central-directory entry into
 * the arena, then works out the common root folder and builds a hash index
 * on the names after it.  zip_data() reads the local header only to find
 * where the data starts, because torch writes zero sizes there.
 *
 * The bytes are untrusted (this file is fuzzed): every offset and size is
 * checked against the buffer with subtraction, never with an addition that
 * could wrap, before a byte is read. */
#include "read/read.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

enum {
	SIG_LOCAL = 0x04034b50,
	SIG_CENTRAL = 0x02014b50,
	SIG_EOCD = 0x06054b50,
	SIG_EOCD64 = 0x06064b50,
	SIG_LOCATOR64 = 0x07064b50,
	LOCAL_LEN = 30,
	CENTRAL_LEN = 46,
	EOCD_LEN = 22,
	EOCD64_LEN = 56,
	LOCATOR64_LEN = 20,
	MAX_COMMENT = 65535,
	EXTRA_ZIP64 = 0x0001,
	FLAG_ENCRYPTED = 0x0001,
	/* zlib's documented worst case: deflate never expands more than 1032:1. */
	DEFLATE_MAX_RATIO = 1032,
};

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t
rd64(const uint8_t *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* Returns 1 when [ofs, ofs+n) lies inside a buffer of len bytes. */
static int
in_bounds(uint64_t ofs, uint64_t n, uint64_t len)
{
	return ofs <= len && n <= len - ofs;
}

static int
not_zip(const char *label, const char *why, Diag *d)
{
	return diag_report(d, YE_NOT_ZIP, &(DiagAt){.file = label}, "not a zip archive (%s)", why);
}

/* Returns the offset of the end-of-central-directory record, or -1.  The
 * record sits at the end, before a comment of at most 64 KiB.  Scanning
 * back, the first record whose comment ends exactly at the end of the
 * buffer wins, so a comment that happens to hold the signature does not
 * fool us; failing that, the last one whose comment fits (junk after an
 * archive). */
static int64_t
find_eocd(const uint8_t *buf, size_t len)
{
	int64_t fallback = -1;
	size_t lo, pos, room;

	if (len < EOCD_LEN)
		return -1;
	lo = len - EOCD_LEN > MAX_COMMENT ? len - EOCD_LEN - MAX_COMMENT : 0;
	for (pos = len - EOCD_LEN + 1; pos-- > lo;) {
		if (rd32(buf + pos) != SIG_EOCD)
			continue;
		room = len - EOCD_LEN - pos;
		if (rd16(buf + pos + 20) == room)
			return (int64_t)pos;
		if (rd16(buf + pos + 20) < room && fallback < 0)
			fallback = (int64_t)pos;
	}
	return fallback;
}

/* What the EOCD records (or their ZIP64 versions) say about the directory. */
typedef struct ZipDir {
	uint64_t count;   /* number of entries */
	uint64_t size;    /* bytes of central directory */
	uint64_t ofs;     /* where it starts */
} ZipDir;

/* Fills dir from the EOCD at pos and, when the ZIP64 locator precedes it,
 * from the ZIP64 record the locator points at (torch always writes one). */
static int
read_eocd(Zip *z, size_t pos, ZipDir *dir, Diag *d)
{
	const uint8_t *e = z->base + pos, *loc, *r;
	uint64_t ofs;

	dir->count = rd16(e + 10);
	dir->size = rd32(e + 12);
	dir->ofs = rd32(e + 16);
	if (pos < LOCATOR64_LEN || rd32(z->base + pos - LOCATOR64_LEN) != SIG_LOCATOR64)
		return 0;
	loc = z->base + pos - LOCATOR64_LEN;
	ofs = rd64(loc + 8);
	if (!in_bounds(ofs, EOCD64_LEN, pos - LOCATOR64_LEN))
		return diag_report(d, YE_ZIP_CORRUPT, &(DiagAt){.file = z->label},
			"ZIP64 end of central directory record out of bounds (offset %llu, file %zu bytes)", (unsigned long long)ofs, z->len);
	r = z->base + ofs;
	if (rd32(r) != SIG_EOCD64)
		return diag_report(d, YE_ZIP_CORRUPT, &(DiagAt){.file = z->label},
			"bad ZIP64 end of central directory signature at offset %llu", (unsigned long long)ofs);
	dir->count = rd64(r + 32);
	dir->size = rd64(r + 40);
	dir->ofs = rd64(r + 48);
	return 0;
}

/* Replaces the 32-bit fields saturated at 0xFFFFFFFF with the values of the
 * ZIP64 extra field, which lists only those, in the order usize, csize,
 * local offset.  A field that is saturated without an extra field is taken
 * at face value, as Python's zipfile does. */
static int
apply_zip64_extra(Zip *z, ZipEntry *e, const uint8_t *x, size_t xlen, Diag *d)
{
	uint64_t *want[3] = {&e->size, &e->csize, &e->local_ofs};

	while (xlen >= 4) {
		uint16_t id = rd16(x), n = rd16(x + 2);
		const uint8_t *p = x + 4;
		size_t have;

		if (n > xlen - 4)
			return diag_report(d, YE_ZIP_CORRUPT, &(DiagAt){.file = z->label, .entry = e->name},
				"entry '%s': extra field overruns its header", e->name);
		if (id == EXTRA_ZIP64) {
			have = n;
			for (int i = 0; i < 3; i++) {
				if (*want[i] != 0xFFFFFFFFu)
					continue;
				if (have < 8)
					return diag_report(d, YE_ZIP_CORRUPT, &(DiagAt){.file = z->label, .entry = e->name},
						"entry '%s': ZIP64 extra field too short (%u bytes)", e->name, n);
				*want[i] = rd64(p);
				p += 8;
				have -= 8;
			}
			return 0;
		}
		x += 4 + (size_t)n;
		xlen -= 4 + (size_t)n;
	}
	return 0;
}

/* Reads entry i from the central directory at *pos (advanced past it). */
static int
read_central(Zip *z, int i, size_t *pos, size_t end, Diag *d)
{
	const uint8_t *h = z->base + *pos;
	ZipEntry *e = &z->ent[i];
	size_t nlen, xlen, clen;

	if (end - *pos < CENTRAL_LEN || rd32(h) != SIG_CENTRAL)
		return diag_report(d, YE_ZIP_CORRUPT, &(DiagAt){.file = z->label},
			"central directory entry %d: %s at offset %zu", i,
			end - *pos < CENTRAL_LEN ? "truncated" : "bad signature", *pos);
	nlen = rd16(h + 28);
	xlen = rd16(h + 30);
	clen = rd16(h + 32);
	if (end - *pos - CENTRAL_LEN < nlen + xlen + clen)
		return diag_report(d, YE_ZIP_CORRUPT, &(DiagAt){.file = z->label},
			"central directory entry %d: name and extra fields run past the directory", i);
	if (memchr(h + CENTRAL_LEN, 0, nlen))
		return diag_report(d, YE_ZIP_CORRUPT, &(DiagAt){.file = z->label},
			"central directory entry %d: name contains a NUL byte", i);
	e->name = arena_strndup(z->arena, (const char *)h + CENTRAL_LEN, nlen);
	e->rel = e->name;
	e->method = rd16(h + 10);
	e->csize = rd32(h + 20);
	e->size = rd32(h + 24);
	e->local_ofs = rd32(h + 42);
	*pos += CENTRAL_LEN + nlen + xlen + clen;
	return apply_zip64_extra(z, e, h + CENTRAL_LEN + nlen, xlen, d);
}

/* The root is the first entry's first path component with its '/', when
 * every entry starts with it; else "". */
static void
find_root(Zip *z)
{
	const char *slash;
	size_t k;

	z->root = "";
	if (z->n == 0 || !(slash = strchr(z->ent[0].name, '/')) || slash == z->ent[0].name)
		return;
	k = (size_t)(slash - z->ent[0].name) + 1;
	for (int i = 1; i < z->n; i++)
		if (strncmp(z->ent[i].name, z->ent[0].name, k) != 0)
			return;
	z->root = arena_strndup(z->arena, z->ent[0].name, k);
	for (int i = 0; i < z->n; i++)
		z->ent[i].rel = z->ent[i].name + k;
}

/* FNV-1a: simple, and the same on every run. */
static uint32_t
hash_name(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* Open addressing over at least twice as many slots as entries.  Slot
 * values are entry index + 1 (0 is empty); a duplicate name keeps its
 * first entry, so lookups follow central-directory order. */
static void
build_index(Zip *z)
{
	size_t cap = 16;

	while (cap < (size_t)z->n * 2)
		cap *= 2;
	z->hash = ARENA_ARRAY(z->arena, uint32_t, cap);
	z->nhash = cap;
	for (int i = 0; i < z->n; i++) {
		size_t s = hash_name(z->ent[i].rel) & (cap - 1);
		for (; z->hash[s]; s = (s + 1) & (cap - 1))
			if (strcmp(z->ent[z->hash[s] - 1].rel, z->ent[i].rel) == 0)
				break;
		if (!z->hash[s])
			z->hash[s] = (uint32_t)i + 1;
	}
}

static int
read_directory(Zip *z, Diag *d)
{
	int64_t eocd;
	ZipDir dir;
	size_t pos, end;
	int rc;

	if (z->len == 0)
		return not_zip(z->label, "empty file", d);
	if ((eocd = find_eocd(z->base, z->len)) < 0)
		return not_zip(z->label, "no end of central directory record", d);
	if ((rc = read_eocd(z, (size_t)eocd, &dir, d)))
		return rc;
	if (!in_bounds(dir.ofs, dir.size, (uint64_t)eocd))
		return diag_report(d, YE_ZIP_CORRUPT, &(DiagAt){.file = z->label},
			"central directory out of bounds (offset %llu, size %llu, file %zu bytes)", (unsigned long long)dir.ofs, (unsigned long long)dir.size, z->len);
	/* Every entry takes at least 46 bytes, which bounds the allocation. */
	if (dir.count > dir.size / CENTRAL_LEN || dir.count > INT_MAX)
		return diag_report(d, YE_ZIP_CORRUPT, &(DiagAt){.file = z->label},
			"central directory of %llu bytes cannot hold %llu entries", (unsigned long long)dir.size, (unsigned long long)dir.count);
	z->n = (int)dir.count;
	z->ent = ARENA_ARRAY(z->arena, ZipEntry, z->n ? z->n : 1);
	pos = (size_t)dir.ofs;
	end = pos + (size_t)dir.size;
	for (int i = 0; i < z->n; i++)
		if ((rc = read_central(z, i, &pos, end, d)))
			return rc;
	find_root(z);
	build_index(z);
	return 0;
}

int
zip_open_mem(Zip *z, const char *label, const uint8_t *buf, size_t len, Arena *a, Diag *d)
{
	int rc;

	memset(z, 0, sizeof *z);
	z->fd = -1;
	z->arena = a;
	z->label = arena_strdup(a, label);
	z->base = buf;
	z->len = buf ? len : 0;
	z->root = "";
	if ((rc = read_directory(z, d)))
		z->n = 0;
	return rc;
}

int
zip_open(Zip *z, const char *path, Arena *a, Diag *d)
{
	struct stat st;
	uint64_t size;
	char why[160];
	void *map;
	int fd, rc;

	memset(z, 0, sizeof *z);
	z->fd = -1;
	z->arena = a;
	z->label = arena_strdup(a, path);
	z->root = "";
	if ((fd = file_open(path, 0, &size, why, sizeof why)) < 0)
		return diag_report(d, YE_INPUT_UNREADABLE, &(DiagAt){.file = path}, "cannot open (%s)", why);
	if (fstat(fd, &st) < 0) {
		rc = errno;
		close(fd);
		return diag_report(d, YE_INPUT_UNREADABLE, &(DiagAt){.file = path},
			"cannot stat (%s)", strerror(rc));
	}
	if (st.st_size == 0) {
		close(fd);
		return not_zip(path, "empty file", d);
	}
	if ((uint64_t)st.st_size > SIZE_MAX) {
		close(fd);
		return diag_report(d, YE_INPUT_UNREADABLE, &(DiagAt){.file = path}, "too large to map");
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	rc = errno;
	if (map == MAP_FAILED) {
		close(fd);
		return diag_report(d, YE_INPUT_UNREADABLE, &(DiagAt){.file = path},
			"cannot map (%s)", strerror(rc));
	}
	z->fd = fd;
	/* Reading touches a few headers scattered over the file; without this
	 * the kernel's read-around would fault in megabytes around each. */
	madvise(map, (size_t)st.st_size, MADV_RANDOM);
	z->base = map;
	z->len = (size_t)st.st_size;
	z->mapped = 1;
	mapguard_add(map, z->len, fd, path);
	if ((rc = read_directory(z, d))) {
		zip_close(z);
		return rc;
	}
	return 0;
}

void
zip_close(Zip *z)
{
	if (z->mapped) {
		mapguard_remove(z->base);
		munmap((void *)z->base, z->len);
	}
	if (z->mapped && z->fd >= 0)
		close(z->fd);
	z->mapped = 0;
	z->fd = -1;
	z->base = NULL;
	z->len = 0;
	z->n = 0;
	z->nhash = 0;
}

ZipEntry *
zip_find(const Zip *z, const char *rel)
{
	size_t s;

	if (!z->nhash)
		return NULL;
	for (s = hash_name(rel) & (z->nhash - 1); z->hash[s]; s = (s + 1) & (z->nhash - 1))
		if (strcmp(z->ent[z->hash[s] - 1].rel, rel) == 0)
			return &z->ent[z->hash[s] - 1];
	return NULL;
}

/* Inflates the raw deflate stream src[0..e->csize) into exactly e->size
 * bytes of arena.  zlib counts in uInt, so both sides are fed in chunks. */
static int
inflate_entry(Zip *z, ZipEntry *e, const uint8_t *src, Diag *d)
{
	uint64_t in_left = e->csize, out_left = e->size;
	uint8_t *out;
	z_stream s;
	int zr;

	if (e->size / DEFLATE_MAX_RATIO > e->csize)
		return diag_report(d, YE_ZIP_INFLATE, &(DiagAt){.file = z->label, .entry = e->name},
			"entry '%s': %llu bytes cannot inflate to %llu", e->name, (unsigned long long)e->csize, (unsigned long long)e->size);
	if (e->size > SIZE_MAX / 2 || !(out = arena_try_alloc(z->arena, (size_t)e->size)))
		return diag_report(d, YE_ZIP_INFLATE, &(DiagAt){.file = z->label, .entry = e->name},
			"entry '%s': no memory for its %llu bytes", e->name, (unsigned long long)e->size);
	memset(&s, 0, sizeof s);
	if (inflateInit2(&s, -MAX_WBITS) != Z_OK)
		return diag_report(d, YE_ZIP_INFLATE, &(DiagAt){.file = z->label, .entry = e->name},
			"entry '%s': inflateInit2 failed", e->name);
	s.next_in = (Bytef *)(uintptr_t)src;
	s.next_out = out;
	do {
		if (s.avail_in == 0 && in_left) {
			s.avail_in = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
			in_left -= s.avail_in;
		}
		if (s.avail_out == 0 && out_left) {
			s.avail_out = out_left > UINT_MAX ? UINT_MAX : (uInt)out_left;
			out_left -= s.avail_out;
		}
		zr = inflate(&s, Z_NO_FLUSH);
	} while (zr == Z_OK);
	out_left += s.avail_out;
	inflateEnd(&s);
	if (zr == Z_STREAM_END && out_left == 0) {
		e->data = out;
		return 0;
	}
	if (zr == Z_STREAM_END)
		return diag_report(d, YE_ZIP_INFLATE, &(DiagAt){.file = z->label, .entry = e->name},
			"entry '%s': inflated to %llu bytes, expected %llu", e->name, (unsigned long long)(e->size - out_left),
			(unsigned long long)e->size);
	if (zr == Z_BUF_ERROR && out_left == 0)
		return diag_report(d, YE_ZIP_INFLATE, &(DiagAt){.file = z->label, .entry = e->name},
			"entry '%s': deflate stream does not end within %llu bytes", e->name, (unsigned long long)e->size);
	if (zr == Z_BUF_ERROR)
		return diag_report(d, YE_ZIP_INFLATE, &(DiagAt){.file = z->label, .entry = e->name},
			"entry '%s': deflate stream truncated (%llu compressed bytes)", e->name, (unsigned long long)e->csize);
	return diag_report(d, YE_ZIP_INFLATE, &(DiagAt){.file = z->label, .entry = e->name},
		"entry '%s': inflate error (%s)", e->name, s.msg ? s.msg : zError(zr));
}

int
zip_data(Zip *z, ZipEntry *e, Diag *d)
{
	const uint8_t *h;
	uint64_t start;

	if (e->data)
		return 0;
	if (!in_bounds(e->local_ofs, LOCAL_LEN, z->len))
		return diag_report(d, YE_ZIP_CORRUPT, &(DiagAt){.file = z->label, .entry = e->name},
			"entry '%s': local header past the end of the file (offset %llu, file %zu bytes)", e->name, (unsigned long long)e->local_ofs, z->len);
	h = z->base + e->local_ofs;
	if (rd32(h) != SIG_LOCAL)
		return diag_report(d, YE_ZIP_CORRUPT, &(DiagAt){.file = z->label, .entry = e->name},
			"entry '%s': bad local header signature at offset %llu", e->name, (unsigned long long)e->local_ofs);
	if (rd16(h + 6) & FLAG_ENCRYPTED)
		return diag_report(d, YE_ZIP_UNSUPPORTED, &(DiagAt){.file = z->label, .entry = e->name},
			"entry '%s': encrypted entries are not supported", e->name);
	start = e->local_ofs + LOCAL_LEN + rd16(h + 26) + rd16(h + 28);
	if (!in_bounds(start, e->csize, z->len))
		return diag_report(d, YE_ZIP_CORRUPT, &(DiagAt){.file = z->label, .entry = e->name},
			"entry '%s': data past the end of the file (offset %llu, size %llu, file %zu bytes)", e->name, (unsigned long long)start, (unsigned long long)e->csize, z->len);
	switch (e->method) {
	case 0:
		if (e->size != e->csize)
			return diag_report(d, YE_ZIP_CORRUPT, &(DiagAt){.file = z->label, .entry = e->name},
				"entry '%s': stored entry has size %llu but compressed size %llu", e->name, (unsigned long long)e->size, (unsigned long long)e->csize);
		e->data = z->base + start;
		return 0;
	case 8:
		return inflate_entry(z, e, z->base + start, d);
	default:
		return diag_report(d, YE_ZIP_UNSUPPORTED, &(DiagAt){.file = z->label, .entry = e->name},
			"entry '%s': unsupported compression method %d", e->name, e->method);
	}
}

/* Only the whole pages inside the range go: its first and last page may
 * hold a neighbour's bytes.  MADV_DONTNEED on a private, never written file
 * mapping just unmaps the pages; touching them again reads them back from
 * the page cache, so the bytes stay valid. */
void
zip_drop_bytes(const Zip *z, const void *from, const void *to)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), lo, hi;
	uintptr_t base = (uintptr_t)z->base, end = base + z->len;

	if (z->fd < 0 || (uintptr_t)from < base || (uintptr_t)to > end || from >= to)
		return;
	lo = ((uintptr_t)from + page - 1) & ~(page - 1);
	hi = (uintptr_t)to & ~(page - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

void
zip_drop(const Zip *z, const ZipEntry *e)
{
	if (e->method == 0 && e->data)
		zip_drop_bytes(z, e->data, e->data + e->size);
}
