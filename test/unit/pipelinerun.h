/* pipelinerun.h: one whole conversion in the unit tests (test_capture.c,
 * test_functions.c): the input converted with an options text into a
 * scratch folder, the Pipeline, Diag and exit code kept for the asserts,
 * everything removed by test_run_done().  Include it after
 * pipeline/pipeline.h. */
#ifndef PIPELINERUN_H
#define PIPELINERUN_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct Run {
	Arena a;
	Pipeline pl;
	Diag d;
	char dir[64];
	int rc;
} Run;

/* Converts input (copied: it may point anywhere) with the options text
 * into r->dir/m.onnx. */
static inline void
test_run(Run *r, const char *input, const char *options)
{
	char *opts;
	FILE *f;

	memset(r, 0, sizeof *r);
	arena_init(&r->a);
	strcpy(r->dir, "/tmp/test_run.XXXXXX");
	ck_assert(mkdtemp(r->dir) != NULL);
	opts = arena_printf(&r->a, "%s/opts.yaml", r->dir);
	ck_assert((f = fopen(opts, "w")) != NULL);
	fputs(options, f);
	fclose(f);
	r->pl.input = arena_strdup(&r->a, input);
	r->pl.options = opts;
	r->pl.out = arena_printf(&r->a, "%s/m.onnx", r->dir);
	pipeline_init(&r->pl, &r->a);
	r->rc = pipeline_run(&r->pl, &r->d);
}

/* 1 when r->dir holds name. */
static inline int
test_run_has(Run *r, const char *name)
{
	return access(arena_printf(&r->a, "%s/%s", r->dir, name), F_OK) == 0;
}

static inline void
test_run_done(Run *r)
{
	static const char *const names[] = {"opts.yaml", "m.onnx", "m.xlsx", "m.onnx.data"};

	pipeline_close(&r->pl);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		unlink(arena_printf(&r->a, "%s/%s", r->dir, names[i]));
	rmdir(r->dir);
	diag_free(&r->d);
	arena_free(&r->a);
}

#endif
