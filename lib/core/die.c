/* die.c: die(), for broken invariants of our own code (core.h). */
#include "core/core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

_Noreturn void
die_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "yobx-export: internal error at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
