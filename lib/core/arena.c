/* arena.c: bump allocation in growing blocks, freed all at once.
 * Blocks double up to 64 MiB; a request larger than a block gets a block
 * of its own so big strings do not waste the tail of the current one.
 * Blocks of a MiB or more are mapped, not malloc'ed: a scratch arena (the
 * reader's JSON trees) is freed while the conversion goes on, and munmap
 * returns its memory at once, where free() may keep it in the heap after
 * malloc's adaptive threshold moved such sizes below its mmap limit.
 * Blocks come zeroed (mmap, calloc) and no byte is handed out twice, so an
 * allocation needs no memset: the memory is zero, and pages of a mapped
 * block that nothing writes are never touched (and count in no RSS). */
#include "core/core.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct ArenaBlock {
	ArenaBlock *prev;
	size_t size;
	int mapped;         /* 1: mmap'ed (block_free unmaps), 0: malloc'ed */
	_Alignas(16) unsigned char data[];
};

/* Under ASan every block is calloc'ed: ASan then checks all arena memory
 * (a freed scratch block included), and LeakSanitizer, which does not scan
 * mappings, follows the chain of blocks of an arena kept to the end. */
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_ASAN 1
#endif
#endif
#ifdef ARENA_ASAN
#define MAP_MIN SIZE_MAX
#else
#define MAP_MIN ((size_t)1 << 20)
#endif

enum { FIRST_BLOCK = 64 << 10, MAX_BLOCK = 64 << 20 };

/* A zeroed block with size bytes of data, or NULL when there is no memory. */
static ArenaBlock *
block_try_new(size_t size)
{
	size_t n = sizeof(ArenaBlock) + size;
	ArenaBlock *b;

	if (size > SIZE_MAX / 2)
		return NULL;
	if (n >= MAP_MIN) {
		void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		b = p;
		b->mapped = 1;
	} else {
		if (!(b = calloc(1, n)))
			return NULL;
		b->mapped = 0;
	}
	b->size = size;
	return b;
}

/* block_try_new(), dying when there is no memory. */
static ArenaBlock *
block_new(size_t size)
{
	ArenaBlock *b = block_try_new(size);

	if (!b)
		die("out of memory (%zu bytes)", size);
	return b;
}

static void
block_free(ArenaBlock *b)
{
	if (b->mapped)
		munmap(b, sizeof *b + b->size);
	else
		free(b);
}

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
		block_free(b);
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
	b = block_new(size);
	b->prev = a->head;
	a->head = b;
	a->used = 0;
	a->total += size;
}

void *
arena_alloc(Arena *a, size_t n)
{
	void *p;

	if (n > SIZE_MAX / 2)
		die("arena: %zu bytes asked for", n);   /* a size from input must use arena_try_alloc() */
	n = (n + 15) & ~(size_t)15;
	if (n == 0)
		n = 16;
	if (!a->head || a->head->size - a->used < n) {
		if (n > FIRST_BLOCK / 4 && a->head && a->head->size - a->used >= FIRST_BLOCK / 4) {
			/* A big request: give it a block behind the current one. */
			ArenaBlock *b = block_new(n);
			b->prev = a->head->prev;
			a->head->prev = b;
			a->total += n;
			return b->data;
		}
		grow(a, n);
	}
	p = a->head->data + a->used;
	a->used += n;
	return p;
}

void *
arena_try_alloc(Arena *a, size_t n)
{
	ArenaBlock *b;

	/* 1 TiB: beyond any machine this runs on, and below what the
	 * sanitizers' allocator aborts on instead of failing */
	if (n > ((size_t)1 << 40))
		return NULL;
	if (n <= FIRST_BLOCK / 4)
		return arena_alloc(a, n);
	if (!(b = block_try_new((n + 15) & ~(size_t)15)))
		return NULL;
	if (a->head) {   /* behind the current block, which stays the one filled */
		b->prev = a->head->prev;
		a->head->prev = b;
	} else {
		b->prev = NULL;
		a->head = b;
		a->used = b->size;
	}
	a->total += b->size;
	return b->data;
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
