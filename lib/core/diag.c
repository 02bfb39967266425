/* diag.c: the growable message buffer behind Diag. */
#include "core/core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
reserve(Diag *d, size_t extra)
{
	if (d->len + extra + 1 <= d->cap)
		return;
	d->cap = (d->len + extra + 1) * 2;
	d->text = realloc(d->text, d->cap);
	if (!d->text)
		die("out of memory");
}

int
diag_error(Diag *d, int code, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("vsnprintf failed");
	reserve(d, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(d->text + d->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	d->len += (size_t)n;
	d->text[d->len++] = '\n';
	d->text[d->len] = 0;
	if (code > d->code)
		d->code = code;
	return code;
}

void
diag_free(Diag *d)
{
	free(d->text);
	memset(d, 0, sizeof *d);
}
