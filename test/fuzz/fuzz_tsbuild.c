/* fuzz_tsbuild.c: libFuzzer target for running TorchScript code into the
 * IR (lib/read/ts/tsbuild.c, with the parser, the schema table and the meta
 * rules under it), then lowering what it built.
 *
 * The input is the code file of the archive's top module (code/__torch__.py,
 * as torch's printer writes it); the module object is an instance of the
 * file's first class with `training = False` and no other attribute, and
 * forward() gets two float32 inputs, [2, 3] and [batch, 3].  A rejected
 * input must leave an error naming the code file or the options; an
 * accepted one must build a graph ir_validate() accepts, which the
 * lowering then converts or rejects with messages, never by crashing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "ir/ir.h"
#include "lower/lower.h"
#include "read/read.h"
#include "read/ts/ts.h"
#include "../unit/diagtext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int64_t dims0[] = {2, 3}, dims1[] = {-1, 3};
static const char *const names0[] = {NULL, NULL}, *const names1[] = {"batch", NULL};
static const TsInput inputs[] = {
	{.dtype = DT_FLOAT32, .rank = 2, .dims = dims0, .names = names0, .line = 1, .col = 1},
	{.dtype = DT_FLOAT32, .rank = 2, .dims = dims1, .names = names1, .line = 2, .col = 1},
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Arena a;
	Program p = {0};
	Diag d = {0};
	TsArchive t = {0};
	TsCode code = {0};
	TsAst ast;
	PyObj root = {0}, func = {0}, state = {0}, key = {0}, val = {0};
	PyObj *keys[1] = {&key}, *vals[1] = {&val};
	TsInputs in = {.label = "fuzz.yaml", .n = 0, .in = inputs};
	char *buf = malloc(size + 1);

	if (!buf)
		abort();
	memcpy(buf, data, size);
	buf[size] = 0;
	arena_init(&a);
	p.arena = &a;
	/* the first class of the file is the module's */
	if (ts_parse(&a, "fuzz.pt:code/__torch__.py", buf, size, &ast, &d) || ast.nclass == 0) {
		diag_free(&d);
		arena_free(&a);
		free(buf);
		return 0;
	}
	code.rel = "code/__torch__.py";
	code.module = "__torch__";
	code.text = buf;
	code.len = size;
	func.kind = PY_GLOBAL;
	func.s = "__torch__";
	func.name = ast.classes[0].name;
	key.kind = PY_STR;
	key.s = "training";
	key.n = 8;
	val.kind = PY_BOOL;
	state.kind = PY_DICT;
	state.n = 1;
	state.items = keys;
	state.values = vals;
	root.kind = PY_CALL;
	root.func = &func;
	root.state = &state;
	t.label = "fuzz.pt";
	t.root = &root;
	t.ncode = 1;
	t.code = &code;
	t.format = 3;
	t.producer = "fuzz";
	for (int i = 0; i < ast.nclass; i++) {
		const TsDef *fwd = ts_method(&ast.classes[i], "forward");
		if (i == 0 && fwd)
			in.n = fwd->nparam - 1 > 2 ? 2 : fwd->nparam - 1 < 0 ? 0 : fwd->nparam - 1;
	}
	if (ts_build(&p, &t, &in, &d)) {
		const char *msg = test_diag_text(&d);
		if (!d.n || !msg || (!strstr(msg, "fuzz.pt") && !strstr(msg, "fuzz.yaml"))) {
			fprintf(stderr, "rejected without naming the code or the options: %s\n", msg ? msg : "(none)");
			abort();
		}
	} else {
		Onnx__ModelProto *m = NULL;
		LowerOptions lo = {.opset = 18, .label = "fuzz.yaml"};
		Diag ld = {0};
		if (ir_validate(&p, &ld)) {
			fprintf(stderr, "built a graph ir_validate rejects: %s\n", test_diag_text(&ld));
			abort();
		}
		p.path = "fuzz.pt";
		if (lower_program(&p, &lo, &a, &m, &ld) && !ld.n) {
			fprintf(stderr, "lowering failed with no message\n");
			abort();
		}
		diag_free(&ld);
	}
	diag_free(&d);
	arena_free(&a);
	free(buf);
	return 0;
}
