/* testutil.h: the main() every Check test file shares.
 * A test file defines `static Suite *make_suite(void)` and includes this last. */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <check.h>
#include <stdlib.h>

static Suite *make_suite(void);

int
main(void)
{
	SRunner *sr = srunner_create(make_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Path of a file under test/, from the repo root (tests run from there). */
#define TEST_PATH(rel) ("test/" rel)

#endif
