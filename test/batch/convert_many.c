/* convert_many.c: many conversions in one process, for the suites that
 * convert thousands of small models (test/batch/convert.sh runs it), where
 * starting yobx-export once per model costs more than converting it.
 *
 *   build/test/convert_many LIST
 *
 * LIST holds one conversion a line: INPUT<TAB>OPTIONS.yaml<TAB>OUT.onnx.
 * Each is what `yobx-export INPUT -c OPTIONS.yaml -o OUT.onnx` does (the
 * same pipeline, the same exit status), its diagnostics written to
 * OUT.onnx.err as the command line renders them and its exit status to
 * OUT.onnx.rc. A line whose OUT.onnx.rc exists is skipped, so a run the
 * process did not finish (a crash) can be resumed; the caller reruns with
 * yobx-export itself the line that was under way (no .rc: it crashed). */
#include "pipeline/pipeline.h"

#include "../../cmd/render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int
convert(const char *input, const char *options, const char *out)
{
	Arena a;
	Pipeline pl = {0};
	Diag d = {0};
	char *path;
	FILE *f;
	int rc;

	arena_init(&a);
	pl.input = input;
	pl.options = options;
	pl.out = out;
	pipeline_init(&pl, &a);
	rc = pipeline_run(&pl, &d);
	rc = rc ? (d.code ? d.code : rc) : 0;
	path = arena_printf(&a, "%s.err", out);
	if ((f = fopen(path, "w"))) {
		render_text(f, &d);
		fclose(f);
	}
	pipeline_close(&pl);
	diag_free(&d);
	path = arena_printf(&a, "%s.rc", out);
	if ((f = fopen(path, "w"))) {
		fprintf(f, "%d\n", rc);
		fclose(f);
	}
	arena_free(&a);
	return rc;
}

int
main(int argc, char **argv)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *list;

	if (argc != 2) {
		fprintf(stderr, "usage: convert_many LIST\n");
		return 2;
	}
	if (!(list = fopen(argv[1], "r"))) {
		perror(argv[1]);
		return 2;
	}
	while (getline(&line, &cap, list) > 0) {
		char *in = strtok(line, "\t\n"), *opt = strtok(NULL, "\t\n"), *out = strtok(NULL, "\t\n");
		char rcpath[4096];
		if (!in || !opt || !out) {
			fprintf(stderr, "%s: want INPUT<TAB>OPTIONS<TAB>OUT\n", argv[1]);
			return 2;
		}
		snprintf(rcpath, sizeof rcpath, "%s.rc", out);
		if (access(rcpath, F_OK) == 0)
			continue;
		convert(in, opt, out);
	}
	free(line);
	fclose(list);
	return 0;
}
