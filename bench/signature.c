/* signature.c: signature GRAPH [RUNS]: the cost of --signature.  Converts
 * GRAPH (a text graph; no report, model to bench/out/signature.onnx), then
 * builds the model's signature and renders its JSON RUNS times (default
 * 1000), and prints the best and the median time of one (what --signature
 * adds to a conversion before its file joins the model's commit).  Built by
 * bench/signature.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pipeline/pipeline.h"

static double
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int
cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

int
main(int argc, char **argv)
{
	int runs = argc > 2 ? atoi(argv[2]) : 1000;
	Arena a;
	Pipeline pl = {0};
	Diag d = {0};
	double *ms;
	size_t len = 0;

	if (argc < 2 || runs < 1) {
		fprintf(stderr, "usage: signature GRAPH [RUNS]\n");
		return 2;
	}
	ms = calloc((size_t)runs, sizeof *ms);
	arena_init(&a);
	pl.input = argv[1];
	pl.out = "bench/out/signature.onnx";
	pipeline_init(&pl, &a);
	pl.opt.report = 0;
	if (pipeline_run(&pl, &d)) {
		fprintf(stderr, "signature: %s does not convert\n", argv[1]);
		return 1;
	}
	for (int i = 0; i < runs; i++) {
		double t = now_ms();
		char *text = signature_json(signature_build(&pl), &len);
		ms[i] = now_ms() - t;
		free(text);
	}
	qsort(ms, (size_t)runs, sizeof *ms, cmp);
	printf("%lld ATen nodes, %lld ONNX nodes, signature %zu bytes: best %.3f ms, median %.3f ms\n",
	       (long long)pl.aten_nodes, (long long)pl.onnx_nodes, len, ms[0], ms[runs / 2]);
	pipeline_close(&pl);
	arena_free(&a);
	diag_free(&d);
	free(ms);
	return 0;
}
