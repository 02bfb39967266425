/* alias.c: an ATen op's canonical name when it is an alias (alias.def):
 * "aten.greater_equal.Tensor" -> "aten.ge.Tensor".  The lookups of the
 * op table, the decompositions and the dtype and shape rules call it
 * first, so that no table needs a row for an alias. */
#include "ir/ir.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *from, *to;
} alias_rows[] = {
#define ALIAS(from, to) { from, to },
#include "alias.def"
#undef ALIAS
};

const char *
ir_alias(const char *op, char *buf, size_t len)
{
	const char *name, *dot;
	size_t n;

	if (!op || strncmp(op, "aten.", 5) != 0)
		return op;
	name = op + 5;
	dot = strchr(name, '.');
	n = dot ? (size_t)(dot - name) : strlen(name);
	for (size_t i = 0; i < sizeof alias_rows / sizeof alias_rows[0]; i++) {
		const char *f = alias_rows[i].from;
		int whole = strchr(f, '.') == NULL;
		int r;
		if (whole ? strlen(f) != n || strncmp(f, name, n) != 0 : strcmp(f, name) != 0)
			continue;
		r = whole ? snprintf(buf, len, "aten.%s%s", alias_rows[i].to, dot ? dot : "")
		          : snprintf(buf, len, "aten.%s", alias_rows[i].to);
		return r > 0 && (size_t)r < len ? buf : op;
	}
	return op;
}

int
ir_alias_count(void)
{
	return (int)(sizeof alias_rows / sizeof alias_rows[0]);
}

void
ir_alias_row(int i, const char **from, const char **to)
{
	*from = alias_rows[i].from;
	*to = alias_rows[i].to;
}
