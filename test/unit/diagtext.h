/* diagtext.h: a Diag's items as the text the command line prints, one line
 * each ("line\n..."), or NULL when there are none: what the tests compare
 * messages against.  The buffer is kept until a call that gives another
 * text, so calls within one assertion return the same pointer. */
#ifndef DIAGTEXT_H
#define DIAGTEXT_H

#include <stdlib.h>
#include <string.h>

#include "core/core.h"

static inline const char *
test_diag_text(const Diag *d)
{
	static char *buf;
	size_t len = 0, total = 0;
	char *s;

	if (!d->n) {
		free(buf);
		return buf = NULL;
	}
	for (int i = 0; i < d->n; i++)
		total += diag_format(&d->items[i], NULL, 0) + 1;
	if (!(s = malloc(total + 1)))
		abort();
	for (int i = 0; i < d->n; i++) {
		len += diag_format(&d->items[i], s + len, total + 1 - len);
		s[len++] = '\n';
	}
	s[len] = 0;
	if (buf && strcmp(buf, s) == 0) {
		free(s);
		return buf;
	}
	free(buf);
	return buf = s;
}

#endif
