/* diagtext.h: a Diag's items as the text the command line prints, one line
 * each ("line\n..."), or NULL when there are none: what the tests compare
 * messages against.  The buffer is kept until the next call. */
#ifndef DIAGTEXT_H
#define DIAGTEXT_H

#include <stdlib.h>

#include "core/core.h"

static inline const char *
test_diag_text(const Diag *d)
{
	static char *buf;
	size_t len = 0, total = 0;

	free(buf);
	buf = NULL;
	if (!d->n)
		return NULL;
	for (int i = 0; i < d->n; i++)
		total += diag_format(&d->items[i], NULL, 0) + 1;
	if (!(buf = malloc(total + 1)))
		abort();
	for (int i = 0; i < d->n; i++) {
		len += diag_format(&d->items[i], buf + len, total + 1 - len);
		buf[len++] = '\n';
	}
	buf[len] = 0;
	return buf;
}

#endif
