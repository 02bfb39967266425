/* zip.h: read-only access to zip archives through the central directory.
 *
 * torch writes local headers with zero sizes and CRCs, so sizes and offsets
 * come from the central directory (ZIP64 included).  The whole file is
 * memory-mapped; a stored entry's data is a pointer into the mapping and is
 * never copied.  A deflated entry (a re-zipped file) is inflated with zlib
 * into the arena.  Entry names are matched after the archive's root folder
 * (`<name>/`, `archive/`, or none), so callers ask for "models/model.json". */
#ifndef ZIP_H
#define ZIP_H

#include <stdint.h>
#include <stddef.h>

#include "arena.h"
#include "diag.h"

typedef struct ZipEntry {
	const char *name;     /* full name as stored, NUL-terminated (arena) */
	const char *rel;      /* name after the root folder (points into name) */
	uint64_t size;        /* uncompressed size */
	uint64_t csize;       /* compressed size */
	uint64_t local_ofs;   /* offset of the local header */
	int method;           /* 0 stored, 8 deflated */
	const uint8_t *data;  /* NULL until zip_data() resolved it */
} ZipEntry;

typedef struct Zip {
	const char *label;    /* what error messages call it: a path, or "outer.pt2:entry" */
	const uint8_t *base;  /* the bytes of the archive */
	size_t len;
	int mapped;           /* 1 when base is our mmap (zip_close unmaps) */
	int fd;               /* the file behind the map (kept open for copy_file_range), or -1 */
	const char *root;     /* common root folder with its '/', or "" (arena) */
	int n;                /* number of entries */
	ZipEntry *ent;        /* entries in central-directory order (arena) */
	Arena *arena;
	uint32_t *hash;       /* zip_find index: entry index + 1 per slot, 0 empty (arena) */
	size_t nhash;         /* slots in hash, a power of two; 0 when nothing was read */
} Zip;

/* Maps the file at path and reads its central directory.
 * Returns 0, or DIAG_INPUT with a message naming the file. */
int zip_open(Zip *z, const char *path, Arena *a, Diag *d);
/* Same over bytes already in memory (a nested torch.save zip); label names it. */
int zip_open_mem(Zip *z, const char *label, const uint8_t *buf, size_t len, Arena *a, Diag *d);
void zip_close(Zip *z);
/* Returns the entry whose name after the root is rel, or NULL. */
ZipEntry *zip_find(const Zip *z, const char *rel);
/* Resolves e->data (pointer into the map, or inflated into the arena) and
 * returns 0, or DIAG_INPUT naming the archive and the entry (data past the
 * end of the file, bad local header, unknown method, inflate error). */
int zip_data(Zip *z, ZipEntry *e, Diag *d);

#endif
