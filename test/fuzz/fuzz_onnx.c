/* fuzz_onnx.c: libFuzzer target for ONNX models given as input: the reader
 * (lib/onnx/load.c), the opset upgrade (lib/onnx/upgrade.c, to 26, so that
 * every adapter a seed's operators meet runs), and then the optimizer and the FLOPs count on whatever
 * graph it accepts, and the writer into a scratch file.  An ONNX input is
 * the user's graph, not one the lowering made: whatever it holds must end
 * in a diagnostic, never in die() or a crash.  Seeds: the models the
 * fixture conversions write and models of older opsets, one per row of
 * upgrade.def that needs a graph (test/fuzz/corpus/onnx/upgrade_*). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "onnx/onnx.h"
#include "opt/opt.h"
#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Arena a;
	Diag d = {0};
	OnnxInput in;
	char path[64];

	arena_init(&a);
	if (onnx_read(&in, &a, "fuzz.onnx", data, size, NULL, &d) == 0) {
		if (d.code != DIAG_OK)
			abort();
		OnnxUpgradeStats st;
		if (onnx_model_check(in.model, &a, "fuzz.onnx", &d) == 0 &&
		    onnx_upgrade(in.model, ONNX_OPSET_NEWEST, &a, "fuzz.onnx", &st, &d) == 0 &&
		    opt_model(in.model, &a, NULL, NULL, NULL, &d) == 0) {
			flops_graph(flops_new(&a), in.model->graph);
			snprintf(path, sizeof path, "/tmp/fuzz_onnx.%ld.onnx", (long)getpid());
			if (onnx_write(&a, in.model, path, -1, NULL, &d) == 0)
				unlink(path);
		}
	} else if (d.code != DIAG_INPUT) {
		abort();
	}
	onnx_input_close(&in);
	diag_free(&d);
	arena_free(&a);
	return 0;
}
