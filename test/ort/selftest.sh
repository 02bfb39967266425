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
#     must pass;
#  5. --batch: the same checks as jobs of one list shared by two processes
#     give each job exactly the output and exit status of its standalone run,
#     and a job whose output file exists is left alone.
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

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out

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

# keep JOB: saves the last check's output and exit status as what the batch
# job JOB must give (tmp/JOB.want, tmp/JOB.want.rc).
keep() {
	cp "$out" "$tmp/$1.want"; echo "$got" >"$tmp/$1.want.rc"
}

check "npy reader" 0 node --test test/ort/npy.test.mjs
check "tiny_add, exact reference (expect pass)" 0 $run "$model" $sd/tiny_add
keep exact
expect "case0: ok"
expect "batch1: ok"
check "tiny_add, perturbed reference (expect failure)" 1 $run "$model" $sd/tiny_add_perturbed
keep perturbed
expect "value: FAIL output 0 'Y': max abs err 1.0e-03 > atol 0.0001 at [1,2]"
expect "shape: FAIL output 0 'Y': shape [2,3], expected [3,2]"
check "tiny_add, --atol 1e-2 accepts the perturbed value" 1 $run "$model" $sd/tiny_add_perturbed --atol 1e-2
expect "value: ok (max abs err 1.0e-03)"
check "tiny_add, values beyond 10 (1e-5 of the value)" 1 $run "$model" $sd/tiny_add_big
expect "near: ok (max abs err"
expect "far: FAIL output 0 'Y': max abs err 5.0e-02 > atol 0.0001 or 1e-5 of the value at [1,0]"
check "tiny_add, a manifest's stated tolerance" 0 $run "$model" $sd/tiny_add_tolerance
expect "value: ok (max abs err 1.0e-03)"
check "print-io" 0 $run --print-io "$model"
expect "0 X float32 [2,batch]"
check "float16/bfloat16/int64/bool (expect pass)" 0 $run $sd/dtypes.onnx $sd/dtypes
keep dtypes
expect "case0: ok"
check "missing IODIR (expect usage error)" 2 $run "$model" $sd/no-such-dir
keep noiodir
check "not a model (expect load error)" 2 $run $sd/tiny_add/manifest.json $sd/tiny_add
expect "onnxruntime cannot load it"
keep notmodel
check "two models, one IODIR (expect pass)" 0 $run "$model" "$model" $sd/tiny_add
expect "tiny_add.onnx case0: ok"
keep twomodels

# The batch: the jobs above, and one already taken (its output file exists).
tab=$(printf '\t')
cat >"$tmp/jobs" <<EOF
$tmp/exact$tab$model$tab$sd/tiny_add
$tmp/perturbed$tab$model$tab$sd/tiny_add_perturbed
$tmp/taken$tab$model$tab$sd/tiny_add
$tmp/dtypes$tab$sd/dtypes.onnx$tab$sd/dtypes
$tmp/noiodir$tab$model$tab$sd/no-such-dir
$tmp/notmodel$tab$sd/tiny_add/manifest.json$tab$sd/tiny_add
$tmp/twomodels$tab$model$tab$model$tab$sd/tiny_add
EOF
echo "taken before" >"$tmp/taken"
check "batch, two processes on one job list" 0 sh -c "$run --batch '$tmp/jobs' & a=\$!; $run --batch '$tmp/jobs'; b=\$?; wait \$a && [ \$b = 0 ]"
for job in exact perturbed dtypes noiodir notmodel twomodels; do
	cmp -s "$tmp/$job" "$tmp/$job.want"; verdict $((! $?)) "batch job $job: output differs from its standalone run"
	cmp -s "$tmp/$job.rc" "$tmp/$job.want.rc"; verdict $((! $?)) "batch job $job: exit status $(cat "$tmp/$job.rc" 2>/dev/null), standalone $(cat "$tmp/$job.want.rc")"
done
[ "$(cat "$tmp/taken")" = "taken before" ] && [ ! -e "$tmp/taken.rc" ]; verdict $((! $?)) "batch ran a job whose output file existed"
check "batch, unreadable job list (expect usage error)" 2 $run --batch $sd/no-such-jobs
check "batch, bad job line (expect usage error)" 2 $run --batch "$sd/tiny_add/manifest.json"
expect "want OUT<TAB>MODEL.onnx"

echo "selftest: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
