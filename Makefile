# Top-level Makefile for yobx-export.
#
#   make                 build build/yobx-export
#   make check           the quick tier: unit, golden and bad-input tests and a
#                        deterministic slice of each external suite (minutes)
#   make test            the full tier (every external suite whole), then the
#                        quick tier again under ASan+UBSan (the CI command)
#   make fuzz            build the libFuzzer targets (clang) into build-fuzz/
#   make install         install into $(DESTDIR)$(PREFIX) (mk/install.mk); make uninstall
#
# B is the build directory and SAN=1 adds the sanitizers, so the same rules
# build the plain tree (build/) and the sanitized one (build-asan/).

include config.mk

B ?= build
SAN ?= 0
OPT ?= -O2
WARN = -Wall -Wextra -Werror
CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(OPT) -g $(WARN) \
         -Ilib -I$(B)/gen $(PKG_CFLAGS) \
         -DVERSION='"$(VERSION)"' -DXLSX_SONAME='"$(XLSX_SONAME)"'
LDLIBS = $(PKG_LIBS) -lm
ifeq ($(SAN),1)
CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif
ifeq ($(SAN),fuzz)
CFLAGS += -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
LDFLAGS += -fsanitize=fuzzer,address,undefined
endif

LIB_SRC  = $(sort $(wildcard lib/*/*.c lib/*/*/*.c))
PROTO    = $(sort $(wildcard proto/*.proto))
PROTO_C  = $(PROTO:proto/%.proto=$(B)/gen/%.pb-c.c)
LIB_OBJ  = $(LIB_SRC:%.c=$(B)/%.o) $(PROTO_C:%.c=%.o)
UNIT_SRC = $(sort $(wildcard test/unit/test_*.c))
UNIT_BIN = $(UNIT_SRC:test/unit/%.c=$(B)/test/%)
FUZZ_SRC = $(sort $(wildcard test/fuzz/fuzz_*.c))

all: $(B)/yobx-export

config.mk: config.mk.in configure
	./configure -q
configure: configure.ac
	autoconf

$(B)/gen/%.pb-c.c $(B)/gen/%.pb-c.h: proto/%.proto
	@mkdir -p $(B)/gen
	$(PROTOC_C) --proto_path=proto --c_out=$(B)/gen $<

$(B)/gen/%.pb-c.o: $(B)/gen/%.pb-c.c
	$(CC) $(CFLAGS) -Wno-unused-parameter -c -o $@ $<

$(B)/%.o: %.c | $(PROTO_C)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(B)/libyobx.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

CMD_OBJ  = $(B)/cmd/yobx-export.o $(B)/cmd/render.o
$(B)/yobx-export: $(CMD_OBJ) $(B)/libyobx.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/test/%: test/unit/%.c $(B)/libyobx.a test/unit/testutil.h test/unit/minigraph.h test/unit/diagtext.h test/unit/zipwrite.h test/unit/optparse.h test/unit/pipelinerun.h test/unit/tsdump.h
	@mkdir -p $(B)/test
	$(CC) $(CFLAGS) $(CHECK_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libyobx.a $(CHECK_LIBS) $(LDLIBS)

# The suites are independent: test/suites.sh runs them two at a time (J),
# the longest first, and prints each one's log and wall time at the end.
# The onnxruntime runs (run-ort.sh, two node processes of their own) start
# first; the unit tests are one suite each (test_irtext with the goldens it
# writes for golden.mjs).  A new suite is one line here.
# Check's default timeout of 4 s is raised to the 60 s most test cases set
# themselves: test_arena's first case takes 2-3 s of CPU under ASan, and a
# loaded machine made it time out.
# Two tiers, as SQLite's veryquick and full: TIER=quick (make check) runs
# every Nth case of the external suites (SLICE=N, in name order, the same
# cases every run) and a third of the op-table fixtures; TIER=full (make
# test) runs every case.
J ?= 2
TIER ?= quick
ifeq ($(TIER),full)
SLICE_NODE = 1
SLICE_CONF = 1
SLICE_VERIFY = 1
ONNXOPS_SHARDS = 0/2 1/2
else
SLICE_NODE = 12
SLICE_CONF = 4
SLICE_VERIFY = 8
ONNXOPS_SHARDS = 0/3
endif
UNIT_SLOW = $(B)/test/test_onnxops
SUITES = \
	$(if $(filter 1,$(SAN)),,'onnx_node env SLICE=$(SLICE_NODE) sh test/onnx-node/run.sh $(B)/yobx-export') \
	'ort sh test/run-ort.sh $(B)/yobx-export' \
	'verify env SLICE=$(SLICE_VERIFY) sh test/verify/run.sh $(B)' \
	'conformance env SLICE=$(SLICE_CONF) sh test/conformance/run.sh $(B)/yobx-export' \
	$(foreach s,$(ONNXOPS_SHARDS),'test_onnxops_$(subst /,of,$(s)) env ONNXOPS_SHARD=$(s) $(B)/test/test_onnxops') \
	'jit sh test/jit/run.sh $(B)/yobx-export' \
	'layers sh test/layers/run.sh $(B)' \
	'cli sh test/run-cli.sh $(B)/yobx-export' \
	'onnxproto $(B)/test/test_onnxproto && sh test/ort/selftest.sh build/test/tiny_add.onnx' \
	$(foreach t,$(filter-out $(UNIT_SLOW) $(B)/test/test_onnxproto $(B)/test/test_irtext,$(UNIT_BIN)),'$(notdir $(t)) $(t)') \
	'test_irtext $(B)/test/test_irtext && node test/ort/golden.mjs $(B)/test/irtext test/lower/*.txt' \
	'graph_driver $(B)/fuzz/graph_driver -seed=1 -runs=1000 -dir=$(B)' \
	'diag sh test/diag/run.sh $(B)/yobx-export' \
	'report sh test/report/run.sh $(B)' \
	'report_e2e sh test/report/e2e.sh $(B)' \
	$(if $(filter 1,$(SAN)),,'report_lo sh test/report/lo.sh $(B)') \
	'capture sh test/capture/check.sh $(B)' \
	'shrink sh test/shrink/run.sh $(B)/yobx-export 10 64 128' \
	'install sh test/install/run.sh $(B) $(MAKE)' \
	'size sh test/models/size.sh && sh test/models/size.sh test/conformance/data 8000000 && sh test/models/size.sh test/onnx-node 6500000' \
	'hostile sh test/hostile/run.sh $(B) $(SAN)' \
	'facts python3 test/facts/check.py'
check: $(B)/yobx-export $(UNIT_BIN) $(B)/fuzz/graph_driver $(B)/test/convert_many
	@printf '%s\n' $(SUITES) | CK_DEFAULT_TIMEOUT=$${CK_DEFAULT_TIMEOUT:-60} sh test/suites.sh $(B) $(J)

# Many conversions per process, for the suites of thousands of models (test/batch/convert.sh).
$(B)/test/convert_many: test/batch/convert_many.c $(B)/cmd/render.o $(B)/libyobx.a
	@mkdir -p $(B)/test
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(B)/cmd/render.o $(B)/libyobx.a $(LDLIBS)

# The full tier, then the quick one under the sanitizers.  The sanitized
# tests run several times slower: Check's per-test timeout (4 s by default)
# scales with them.
test:
	$(MAKE) check TIER=full
	CK_TIMEOUT_MULTIPLIER=4 $(MAKE) B=build-asan SAN=1 OPT=-O1 check TIER=quick

# The fuzz targets exercise the readers only, so they link just those.
FUZZ_LIB = core/die core/arena core/size core/file core/diag core/mapguard core/dtype core/strmap core/tensor read/zip read/json read/pickle \
           sym/sym sym/symeval read/torchsave read/bundle read/ts/tsarchive read/ts/tslex read/ts/tsparse
$(B)/fuzz/%: test/fuzz/%.c $(FUZZ_LIB:%=$(B)/lib/%.o)
	@mkdir -p $(B)/fuzz
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lz -lm

# fuzz_graph mutates whole programs and converts them, fuzz_irtext reads
# text graphs (which builds IR), fuzz_onnx optimizes ONNX inputs and
# fuzz_tsbuild runs TorchScript code into the IR and lowers it: they link
# everything.
# graph_driver is the same file with its own main (a seeded PRNG for the
# decisions), for the ASan+UBSan tree: make check runs a short fixed run.
$(B)/fuzz/fuzz_graph: test/fuzz/fuzz_graph.c $(B)/libyobx.a
	@mkdir -p $(B)/fuzz
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(B)/fuzz/fuzz_onnx: test/fuzz/fuzz_onnx.c $(B)/libyobx.a
	@mkdir -p $(B)/fuzz
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(B)/fuzz/fuzz_options: test/fuzz/fuzz_options.c $(B)/libyobx.a
	@mkdir -p $(B)/fuzz
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(B)/fuzz/fuzz_irtext: test/fuzz/fuzz_irtext.c $(B)/libyobx.a
	@mkdir -p $(B)/fuzz
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(B)/fuzz/fuzz_tsbuild: test/fuzz/fuzz_tsbuild.c $(B)/libyobx.a
	@mkdir -p $(B)/fuzz
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(B)/fuzz/graph_driver: test/fuzz/fuzz_graph.c $(B)/libyobx.a
	@mkdir -p $(B)/fuzz
	$(CC) $(CFLAGS) -DGRAPH_DRIVER $(LDFLAGS) -o $@ $^ $(LDLIBS)

fuzz:
	$(MAKE) B=build-fuzz SAN=fuzz CC=clang OPT=-O1 $(FUZZ_SRC:test/fuzz/%.c=build-fuzz/fuzz/%)

clean:
	rm -rf build build-asan build-fuzz

.PHONY: all check test fuzz clean
-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d)
.SECONDARY: $(PROTO_C) $(PROTO_C:.c=.h)
include mk/install.mk
include mk/docs.mk
