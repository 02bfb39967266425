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

# Converts, JOBS processes of build/test/convert_many (the pipeline of
# yobx-export, many conversions per process) over shares of the list: each
# ONNX gets ONNX.rc (the exit status) and ONNX.err (the diagnostics). A
# conversion a process did not finish (it crashed) is run alone with
# yobx-export itself, which gives its exit status, and the process resumed.
awk -F'\t' -v out="$out" -v jobs="$jobs" '{ print $2 "\t" $3 "\t" $4 > (out "/convert." (NR % jobs)) }' "$out/convert.list"
many=$(dirname "$bin")/test/convert_many
tab=$(printf '\t')
i=0
while [ $i -lt "$jobs" ]; do
	[ -f "$out/convert.$i" ] && (
		while :; do
			"$many" "$out/convert.$i" 2>/dev/null && break
			# The first conversion without a .rc crashed the process.
			while IFS=$tab read -r g o x; do
				[ -f "$x.rc" ] && continue
				"$bin" "$g" -c "$o" -o "$x" >"$x.err" 2>&1 </dev/null; echo $? >"$x.rc"
				break
			done <"$out/convert.$i"
		done) &
	i=$((i + 1))
done
wait

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
