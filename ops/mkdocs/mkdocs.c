/* mkdocs: prints a document generated from a table, so the docs cannot
 * drift from the code: `mkdocs ops` gives docs/ops.md (the ops/ .def files),
 * `mkdocs options` gives docs/options.md (lib/options.def), `mkdocs
 * patterns` gives docs/patterns.md (lib/patterns.def), `mkdocs
 * diagnostics` gives docs/diagnostics.md (lib/core/diag.def).  Built and
 * run by `make docs` (ops/ops.mk); test_ops, test_options, test_opt and
 * test_diag compare. */
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "ops.h"
#include "opt/opt.h"
#include "pipeline/pipeline.h"

int
main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "ops") == 0)
		ops_write_doc(stdout);
	else if (argc == 2 && strcmp(argv[1], "options") == 0)
		options_write_doc(stdout);
	else if (argc == 2 && strcmp(argv[1], "patterns") == 0)
		opt_write_doc(stdout);
	else if (argc == 2 && strcmp(argv[1], "diagnostics") == 0)
		diag_write_doc(stdout);
	else {
		fputs("usage: mkdocs ops|options|patterns|diagnostics\n", stderr);
		return 2;
	}
	return fflush(stdout) ? 2 : 0;
}
