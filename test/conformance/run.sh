#!/bin/sh
# run.sh [BINARY]: the conformance suite (torch's own OpInfo and ModuleInfo
# samples, test/conformance/data, made by make_suite.py) through yobx-export
# and onnxruntime, from the repo root, without torch.
#
# Every stored sample's graphs (training IR, core ATen where it differs, and
# the traced and frozen TorchScript archive where make_suite.py --jit stored
# one) are converted at opsets 18 and 23 and each conversion that succeeds is run
# in onnxruntime on torch's inputs and checked against torch's outputs
# (test/ort/run.mjs: float32 max abs err <= 1e-4, or 1e-5 of the value
# beyond 10; ints and bools exact). Each conversion ends as one of
#   M  matched
#   R  refused by name (exit 1 with a diagnostic)
#   U  unread: the text graph was refused (exit 2)
#   W  WRONG: converted, but onnxruntime refuses the model or its numbers differ
#   C  crash: any other exit status (a signal, die())
# test/conformance/expected.txt holds the status of every conversion; the
# run fails on any W or C (a wrong model is a bug: the file may list no W),
# on any M there that is no longer M, and on a sample with an M there that
# is no longer stored (coverage only goes up). UPDATE=1 rewrites the file
# from this run (after an improvement; never while a W or C remains).
# summary.mjs prints the counts.
#
# Speed: starting a process costs more than converting or running most
# samples, so the conversions run in JOBS (default 2) build/test/convert_many
# processes, without the report, then JOBS `run.mjs --batch` node processes
# share one list of onnxruntime checks.
bin=${1:-build/yobx-export}
out=$(dirname "$bin")/conformance
jobs=${JOBS:-2}
data=${DATA:-test/conformance/data}
expected=${EXPECTED:-test/conformance/expected.txt}
rm -rf "$out"
mkdir -p "$out"
node test/conformance/unpack.mjs "$data" "$out" 18 23 || exit 2
# SLICE=N keeps every Nth stored sample (from the first, in stored order):
# the deterministic share make check runs; make test runs them all.
if [ "${SLICE:-1}" != 1 ]; then
	[ "${UPDATE:-0}" = 1 ] && { echo "conformance: UPDATE=1 needs every sample (SLICE=1)"; exit 2; }
	awk -v n="$SLICE" '(NR - 1) % n == 0' "$out/samples.list" >"$out/samples.slice"
	awk -F'\t' 'NR == FNR { split($0, f, " "); keep[f[1] " " f[2]] = 1; next }
		{ split($1, k, " "); if ((k[1] " " k[2]) in keep) print }' "$out/samples.slice" "$out/convert.list" >"$out/convert.slice"
	mv "$out/samples.slice" "$out/samples.list" && mv "$out/convert.slice" "$out/convert.list"
fi

# ONLY=IR (train, core or jit) converts that IR's graphs alone; the other
# letters come from the expected file (summary.mjs), so ONLY=jit UPDATE=1
# records the archive path without converting the .pt2 graphs again.
if [ -n "${ONLY:-}" ]; then
	awk -F'\t' -v ir="$ONLY" '{ split($1, k, " "); if (k[3] == ir) print }' "$out/convert.list" >"$out/convert.only"
	mv "$out/convert.only" "$out/convert.list"
fi

# Converts, JOBS convert_many processes over shares of the list
# (test/batch/convert.sh): each ONNX gets ONNX.rc and ONNX.err.
awk -F'\t' '{ print $2 "\t" $3 "\t" $4 }' "$out/convert.list" >"$out/convert.batch"
. test/batch/convert.sh
convert_batch "$out/convert.batch" "$jobs" "$bin"
tab=$(printf '\t')

# onnxruntime on every conversion that succeeded.
while IFS=$tab read -r _key _graph _opset onnx iodir; do
	read -r rc <"$onnx.rc"
	[ "$rc" = 0 ] && printf '%s\t%s\t%s\n' "$onnx.ort" "$onnx" "$iodir"
done <"$out/convert.list" >"$out/ort.jobs"
. test/ort/batch.sh
ort_batch_start "$out/ort.jobs" "$jobs"
# onnxruntime logs a model that fails to run on stderr too: that model's
# status says it, so only the rest of what the batch processes said shows.
# (Not through a pipe: ort_batch_wait must run in this shell, the batch
# processes' parent, to wait for them.)
ort_batch_wait "$out/ort.jobs" conformance >"$out/ort.log"
grep -v -e 'ExecuteKernel' -e 'exited with status 0:$' "$out/ort.log"

node test/conformance/summary.mjs "$out" "$expected"
