/* arena.h: the bump allocator that owns a conversion's memory.
 *
 * Everything the reader and the converter build (JSON trees, IR nodes,
 * names, ONNX messages) lives in one Arena and dies with arena_free().
 * Allocation never fails from the caller's view: out of memory calls die(). */
#ifndef ARENA_H
#define ARENA_H

#include <stddef.h>
#include <stdarg.h>

typedef struct ArenaBlock ArenaBlock;
typedef struct Arena {
	ArenaBlock *head;   /* newest block; older ones chained behind it */
	size_t used;        /* bytes taken from head */
	size_t total;       /* bytes obtained from malloc, all blocks */
} Arena;

void arena_init(Arena *a);
void arena_free(Arena *a);
/* Returns n zeroed bytes aligned to 16. */
void *arena_alloc(Arena *a, size_t n);
/* Returns a copy of the n bytes at p; n may be 0. */
void *arena_dup(Arena *a, const void *p, size_t n);
/* Returns a NUL-terminated copy of s[0..n). */
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
char *arena_vprintf(Arena *a, const char *fmt, va_list ap);

#define ARENA_NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

/* Impossible states: print file:line and abort. */
#define die(...) die_at(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void die_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
