/* json_speed.c: how fast json_parse reads a torch-sized graph file.
 *
 * Generates a ~120 MB document shaped like torch's ExportedProgram JSON
 * (nodes with named inputs, as_tensor unions, long stack traces full of \n
 * escapes, tensor_values with sizes lists), parses it three times into a
 * fresh arena each time and prints MB/s and the arena's size.  A benchmark,
 * not a test: run it with bench/json_speed.sh.  An optional argument sets
 * the target size in MB. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/core.h"
#include "read/read.h"

typedef struct Buf {
	char *p;
	size_t len, cap;
} Buf;

static void
buf_printf(Buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < b->cap - b->len)
			break;
		b->cap = b->cap ? b->cap * 2 : 1 << 20;
		if (!(b->p = realloc(b->p, b->cap)))
			die("out of memory");
	}
	b->len += (size_t)n;
}

static const char *targets[] = {
	"torch.ops.aten.conv2d.default", "torch.ops.aten.batch_norm.default",
	"torch.ops.aten.relu.default", "torch.ops.aten.add.Tensor",
	"torch.ops.aten.linear.default", "torch.ops.aten.view.default",
};

static void
gen_node(Buf *b, long i)
{
	const char *t = targets[i % 6];

	buf_printf(b, "{\"target\": \"%s\", \"inputs\": [", t);
	buf_printf(b, "{\"name\": \"input\", \"arg\": {\"as_tensor\": {\"name\": \"relu_%ld\"}}, \"kind\": 1}, ", i - 1);
	buf_printf(b, "{\"name\": \"weight\", \"arg\": {\"as_tensor\": {\"name\": \"p_layer%ld_conv_weight\"}}, \"kind\": 1}, ", i % 97);
	buf_printf(b, "{\"name\": \"stride\", \"arg\": {\"as_ints\": [1, 1]}, \"kind\": 1}, ");
	buf_printf(b, "{\"name\": \"eps\", \"arg\": {\"as_float\": 1e-05}, \"kind\": 2}, ");
	buf_printf(b, "{\"name\": \"scale\", \"arg\": {\"as_float\": 0.125}, \"kind\": 2}], ");
	buf_printf(b, "\"outputs\": [{\"as_tensor\": {\"name\": \"relu_%ld\"}}], ", i);
	buf_printf(b, "\"metadata\": {\"stack_trace\": \"");
	for (int k = 0; k < 4; k++)
		buf_printf(b, "  File \\\"models/resnet_block_%d.py\\\", line %ld, "
		           "in forward\\n    out = self.layer%d(self.bn%d(out)) + identity\\n",
		           k, 100 + i % 400, k, k);
	buf_printf(b, "\", \"nn_module_stack\": \"L__self__,,__main__.Net;L__self___layer%ld_conv,"
	           "layer%ld.conv,torch.nn.modules.conv.Conv2d\", ", i % 97, i % 97);
	buf_printf(b, "\"torch_fn\": \"conv2d_%ld;builtin_function_or_method.conv2d\"}, ", i);
	buf_printf(b, "\"is_hop_single_tensor_return\": null, \"name\": \"relu_%ld\"}", i);
}

static void
gen_tensor(Buf *b, long i)
{
	buf_printf(b, "\"relu_%ld\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 32}, {\"as_int\": %ld}, "
	           "{\"as_int\": 56}, {\"as_int\": 56}], \"requires_grad\": false, "
	           "\"device\": {\"type\": \"cpu\", \"index\": null}, \"strides\": [{\"as_int\": 200704}, "
	           "{\"as_int\": 3136}, {\"as_int\": 56}, {\"as_int\": 1}], "
	           "\"storage_offset\": {\"as_int\": 0}, \"layout\": 7}", i, 64 + i % 64);
}

static Buf
gen_doc(size_t target)
{
	Buf b = {0};
	long n;

	/* About 1.1 KB of node plus 0.4 KB of tensor_values per node. */
	n = (long)(target / 1500);
	buf_printf(&b, "{\"graph_module\": {\"graph\": {\"inputs\": [{\"as_tensor\": {\"name\": \"x\"}}], "
	           "\"outputs\": [{\"as_tensor\": {\"name\": \"relu_%ld\"}}], \"nodes\": [", n - 1);
	for (long i = 0; i < n; i++) {
		if (i)
			buf_printf(&b, ", ");
		gen_node(&b, i);
	}
	buf_printf(&b, "], \"tensor_values\": {");
	for (long i = 0; i < n; i++) {
		if (i)
			buf_printf(&b, ", ");
		gen_tensor(&b, i);
	}
	buf_printf(&b, "}, \"sym_int_values\": {}, \"sym_bool_values\": {}, "
	           "\"is_single_tensor_return\": false, \"custom_obj_values\": {}, "
	           "\"sym_float_values\": {}}, \"signature\": {\"input_specs\": [], \"output_specs\": []}, "
	           "\"module_call_graph\": []}, \"opset_version\": {\"aten\": 10}, "
	           "\"range_constraints\": {}, \"schema_version\": {\"major\": 8, \"minor\": 20}, "
	           "\"verifiers\": [\"TRAINING\"], \"torch_version\": \"2.14.1\", \"guards_code\": []}");
	return b;
}

/* Wall time, and CPU time for a figure less disturbed by a busy machine. */
static double
now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int
main(int argc, char **argv)
{
	size_t mb = argc > 1 ? (size_t)atol(argv[1]) : 120;
	Buf doc = gen_doc(mb << 20);
	double best = 0;

	printf("document: %.1f MB\n", (double)doc.len / 1e6);
	for (int run = 0; run < 3; run++) {
		Arena a;
		Diag d = {0};
		Json *root, *graph;
		double t0, c0, dt, dc;

		arena_init(&a);
		t0 = now(CLOCK_MONOTONIC);
		c0 = now(CLOCK_PROCESS_CPUTIME_ID);
		root = json_parse(&a, "bench.json", doc.p, doc.len, &d);
		dt = now(CLOCK_MONOTONIC) - t0;
		dc = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
		if (!root) {
			fprintf(stderr, "%s", d.text);
			return 1;
		}
		graph = json_get(json_get(root, "graph_module"), "graph");
		printf("run %d: %.3f s, %.0f MB/s (cpu %.3f s, %.0f MB/s), %zu nodes, %zu tensor_values, "
		       "arena %.1f MB\n", run + 1, dt, (double)doc.len / 1e6 / dt, dc,
		       (double)doc.len / 1e6 / dc, json_get(graph, "nodes")->len,
		       json_get(graph, "tensor_values")->len, (double)a.total / 1e6);
		if ((double)doc.len / 1e6 / dt > best)
			best = (double)doc.len / 1e6 / dt;
		arena_free(&a);
		diag_free(&d);
	}
	printf("best: %.0f MB/s\n", best);
	free(doc.p);
	return 0;
}
