/* strmap.c: open addressing with linear probing, FNV-1a hashes, doubling
 * at 50% load.  Old tables are left in the arena (freed with it). */
#include "core/core.h"

#include <stdint.h>
#include <string.h>

typedef struct Slot {
	const char *key;
	void *val;
	uint32_t hash;
} Slot;

struct StrMap {
	Arena *arena;
	Slot *slot;
	size_t cap, count;
};

static uint32_t
hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

StrMap *
strmap_new(Arena *a, size_t hint)
{
	StrMap *m = ARENA_NEW(a, StrMap);

	m->arena = a;
	m->cap = 16;
	while (m->cap < hint * 2)
		m->cap *= 2;
	m->slot = ARENA_ARRAY(a, Slot, m->cap);
	return m;
}

static Slot *
find(const StrMap *m, const char *key, uint32_t h)
{
	size_t i = h & (m->cap - 1);

	while (m->slot[i].key && (m->slot[i].hash != h || strcmp(m->slot[i].key, key) != 0))
		i = (i + 1) & (m->cap - 1);
	return &m->slot[i];
}

void *
strmap_put(StrMap *m, const char *key, void *val)
{
	uint32_t h = hash_str(key);
	Slot *s;
	void *old;

	if ((m->count + 1) * 2 > m->cap) {
		Slot *old_slot = m->slot;
		size_t old_cap = m->cap;
		m->cap *= 2;
		m->slot = ARENA_ARRAY(m->arena, Slot, m->cap);
		for (size_t i = 0; i < old_cap; i++)
			if (old_slot[i].key)
				*find(m, old_slot[i].key, old_slot[i].hash) = old_slot[i];
	}
	s = find(m, key, h);
	old = s->key ? s->val : NULL;
	if (!s->key) {
		s->key = key;
		s->hash = h;
		m->count++;
	}
	s->val = val;
	return old;
}

void *
strmap_get(const StrMap *m, const char *key)
{
	Slot *s = find(m, key, hash_str(key));

	return s->key ? s->val : NULL;
}

size_t
strmap_count(const StrMap *m)
{
	return m->count;
}
