/* optparse.h: parsing an options text in the unit tests (test_options.c,
 * test_custom.c): one arena per test (setup/teardown), parse() returning
 * the code and the message, expect_error() asserting a message.  Include
 * it after pipeline/pipeline.h and diagtext.h. */
#ifndef OPTPARSE_H
#define OPTPARSE_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

static Arena a;

static void
setup(void)
{
	arena_init(&a);
}

static void
teardown(void)
{
	arena_free(&a);
}

/* Parses text as "options.yaml"; returns the code and leaves the message in *msg. */
static int
parse(const char *text, Options *o, char **msg)
{
	Diag d = {0};
	int rc;

	options_default(o);
	rc = options_parse(o, &a, "options.yaml", text, strlen(text), &d);
	*msg = strdup(test_diag_text(&d) ? test_diag_text(&d) : "");
	diag_free(&d);
	return rc;
}

static void
expect_error(const char *text, const char *want)
{
	Options o;
	char *msg;
	int rc = parse(text, &o, &msg);

	ck_assert_int_eq(rc, DIAG_INPUT);
	ck_assert_msg(strstr(msg, want) != NULL, "for %s\nwant '%s'\ngot  '%s'", text, want, msg);
	free(msg);
}

#endif
