/* diag.h: errors as values.
 *
 * lib/ never prints or exits.  A failing function appends one or more
 * lines to a Diag and returns its code; cmd/ prints the text and turns the
 * code into the exit status.  Each line names the thing: the file, the zip
 * entry, the node and its ATen target, then the user's source line. */
#ifndef DIAG_H
#define DIAG_H

#include <stddef.h>

enum {
	DIAG_OK = 0,
	DIAG_CONVERT = 1,   /* the input is fine but we cannot convert it: exit 1 */
	DIAG_INPUT = 2,     /* bad input, bad options, I/O error: exit 2 */
};

typedef struct Diag {
	int code;     /* worst code reported so far; DIAG_OK when none */
	char *text;   /* malloc'd, one message per line, NUL-terminated */
	size_t len, cap;
} Diag;

/* Appends "message\n" and returns code (never DIAG_OK). */
int diag_error(Diag *d, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void diag_free(Diag *d);

#endif
