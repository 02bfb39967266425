#!/bin/sh
# selftest.sh [TINY_ADD.onnx]: checks the onnxruntime harness test/ort/run.mjs
# on hand-made data (test/ort/selftest/, written by selftest/gen.mjs).
#
#  1. the .npy reader's unit tests (node --test);
#  2. the unit test's tiny Add model (default build/test/tiny_add.onnx, made
#     by build/test/test_onnxproto) against its reference: must pass;
#  3. the same model against a perturbed reference: must fail, exit 1,
#     naming the bad value and the bad shape;
#  4. a model with float16, bfloat16, int64 and bool inputs and outputs:
#     must pass.
# Needs node and `npm ci --ignore-scripts` at the repo root. Run from anywhere.
set -u
cd "$(dirname "$0")/../.." || exit 2
model=${1:-build/test/tiny_add.onnx}
run="node test/ort/run.mjs"
sd=test/ort/selftest
passed=0 failed=0

if [ ! -f "$model" ]; then
	echo "selftest.sh: $model is missing; build/test/test_onnxproto writes it" >&2
	exit 2
fi
if [ ! -d node_modules/onnxruntime-node ]; then
	echo "selftest.sh: onnxruntime-node is not installed; run: npm ci --ignore-scripts" >&2
	exit 2
fi

out=$(mktemp) || exit 2
trap 'rm -f "$out"' EXIT

# verdict OK MESSAGE: counts one assertion.
verdict() {
	if [ "$1" = 1 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "selftest: FAILED: $2"
	fi
}

# check NAME WANT_STATUS CMD...: runs CMD, shows its output, and asserts
# that it exits with WANT_STATUS.
check() {
	name=$1 want=$2
	shift 2
	echo "== $name"
	"$@" >"$out" 2>&1
	got=$?
	sed -e "s/^/   /" -e "s/passed, \([0-9]*\) failed/passed, \1 failed (inner run)/" "$out"
	[ "$got" -eq "$want" ]; verdict $((! $?)) "$name: exit status $got, expected $want"
}

# expect TEXT: asserts that the last check's output contains TEXT.
expect() {
	grep -qF -- "$1" "$out"; verdict $((! $?)) "$name: output lacks '$1'"
}

check "npy reader" 0 node --test test/ort/npy.test.mjs
check "tiny_add, exact reference (expect pass)" 0 $run "$model" $sd/tiny_add
expect "case0: ok"
expect "batch1: ok"
check "tiny_add, perturbed reference (expect failure)" 1 $run "$model" $sd/tiny_add_perturbed
expect "value: FAIL output 0 'Y': max abs err 1.0e-03 > atol 0.0001 at [1,2]"
expect "shape: FAIL output 0 'Y': shape [2,3], expected [3,2]"
check "tiny_add, --atol 1e-2 accepts the perturbed value" 1 $run "$model" $sd/tiny_add_perturbed --atol 1e-2
expect "value: ok (max abs err 1.0e-03)"
check "print-io" 0 $run --print-io "$model"
expect "0 X float32 [2,batch]"
check "float16/bfloat16/int64/bool (expect pass)" 0 $run $sd/dtypes.onnx $sd/dtypes
expect "case0: ok"
check "missing IODIR (expect usage error)" 2 $run "$model" $sd/no-such-dir
check "not a model (expect load error)" 2 $run $sd/tiny_add/manifest.json $sd/tiny_add
expect "onnxruntime cannot load it"

echo "selftest: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
