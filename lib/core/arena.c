/* arena.c: bump allocation in growing blocks, freed all at once.
 * Blocks double up to 64 MiB; a request larger than a block gets a block
 * of its own so big strings do not waste the tail of the current one. */
#include "core/core.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ArenaBlock {
	ArenaBlock *prev;
	size_t size;
	_Alignas(16) unsigned char data[];
};

enum { FIRST_BLOCK = 64 << 10, MAX_BLOCK = 64 << 20 };

void
arena_init(Arena *a)
{
	memset(a, 0, sizeof *a);
}

void
arena_free(Arena *a)
{
	ArenaBlock *b, *p;

	for (b = a->head; b; b = p) {
		p = b->prev;
		free(b);
	}
	memset(a, 0, sizeof *a);
}

static void
grow(Arena *a, size_t need)
{
	size_t size = a->head ? a->head->size * 2 : FIRST_BLOCK;
	ArenaBlock *b;

	if (size > MAX_BLOCK)
		size = MAX_BLOCK;
	if (size < need)
		size = need;
	b = malloc(sizeof *b + size);
	if (!b)
		die("out of memory (%zu bytes)", size);
	b->prev = a->head;
	b->size = size;
	a->head = b;
	a->used = 0;
	a->total += size;
}

void *
arena_alloc(Arena *a, size_t n)
{
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (n == 0)
		n = 16;
	if (!a->head || a->head->size - a->used < n) {
		if (n > FIRST_BLOCK / 4 && a->head && a->head->size - a->used >= FIRST_BLOCK / 4) {
			/* A big request: give it a block behind the current one. */
			ArenaBlock *b = malloc(sizeof *b + n);
			if (!b)
				die("out of memory (%zu bytes)", n);
			b->size = n;
			b->prev = a->head->prev;
			a->head->prev = b;
			a->total += n;
			memset(b->data, 0, n);
			return b->data;
		}
		grow(a, n);
	}
	p = a->head->data + a->used;
	a->used += n;
	memset(p, 0, n);
	return p;
}

void *
arena_dup(Arena *a, const void *p, size_t n)
{
	void *q = arena_alloc(a, n);

	if (n)
		memcpy(q, p, n);
	return q;
}

char *
arena_strndup(Arena *a, const char *s, size_t n)
{
	char *q = arena_alloc(a, n + 1);

	if (n)
		memcpy(q, s, n);
	q[n] = 0;
	return q;
}

char *
arena_strdup(Arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *
arena_vprintf(Arena *a, const char *fmt, va_list ap)
{
	va_list aq;
	int n;
	char *s;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		die("vsnprintf failed");
	s = arena_alloc(a, (size_t)n + 1);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

char *
arena_printf(Arena *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = arena_vprintf(a, fmt, ap);
	va_end(ap);
	return s;
}
