/* strmap.h: a string-keyed hash map in the arena.
 * Keys are not copied (they must outlive the map); lookups are O(1).
 * Iteration order is not offered: callers keep their own ordered arrays,
 * so output never depends on hash order. */
#ifndef STRMAP_H
#define STRMAP_H

#include <stddef.h>

#include "arena.h"

typedef struct StrMap StrMap;

StrMap *strmap_new(Arena *a, size_t hint);
/* Sets key to val; returns the previous value or NULL. */
void *strmap_put(StrMap *m, const char *key, void *val);
void *strmap_get(const StrMap *m, const char *key);
size_t strmap_count(const StrMap *m);

#endif
