#!/bin/sh
# test/jit/run.sh [BINARY]: the TorchScript fixtures, end to end, run from the repo root.
#
#  - Every id VER/NAME listed in test/ort/expected/jit.txt ("#" starts a
#    comment) names test/models/VER/NAME.pt and its NAME.io (torch's inputs and
#    outputs, made by test/models/jit/make_jit.py). It is converted four times
#    into $(dirname BINARY)/jit/VER-NAME*.onnx, each with NAME.io/options.yaml
#    (its `inputs:`) and `report: false`: as is, with `patterns: none` (the
#    lowering alone must match torch too), at `opset: 18` and at `opset: 23`.
#    All four must convert and match torch in onnxruntime on every case
#    (test/ort/run.mjs: float32 within 1e-4).
#  - Every line NAME|OPTIONS|STATUS|TEXT... of test/models/jit-bad/cases.txt
#    converts test/models/jit-bad/NAME.pt (with -c OPTIONS unless it is "-"):
#    the converter must exit with STATUS, its messages must name NAME.pt and
#    hold each TEXT (for a code error: the code file and line, and the user's
#    source line), and it must write nothing.
# JIT_LIST=FILE reads the ids from FILE instead (a subset while iterating).
# Not part of `make check` yet; runnable alone once `make` has built BINARY.
# Conversions run $JOBS at a time (default 2), then $JOBS node processes share
# the onnxruntime checks (run.mjs --batch), as in test/run-ort.sh.
# Ends with the line "jit: N passed, N failed"; exits 1 when something failed.
bin=${1:-build/yobx-export}
out=$(dirname "$bin")/jit
jobs=${JOBS:-2}
pass=0 fail=0
tab=$(printf '\t')
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL $*"; }

if ! node -e "import('onnxruntime-node').then(() => 0, () => process.exit(1))" 2>/dev/null; then
	echo "jit/run.sh: onnxruntime-node is not installed (run 'npm ci --ignore-scripts' at the repo root)"
	echo "jit: 0 passed, 1 failed"
	exit 1
fi
[ -x "$bin" ] || { echo "jit/run.sh: no converter at $bin (run make)"; echo "jit: 0 passed, 1 failed"; exit 1; }
rm -rf "$out"
mkdir -p "$out/bad"

# The fixtures, one a line: ID PT IODIR STEM; a listed id without its files fails
# (said on fd 3, the standard output).
exec 3>&1
ids=
while read -r l; do
	ids="$ids ${l%%#*}"
done <"${JIT_LIST:-test/ort/expected/jit.txt}"
for id in $ids; do
	pt=test/models/$id.pt io=test/models/$id.io
	if [ ! -f "$pt" ] || [ ! -f "$io/options.yaml" ]; then
		ko "$id: no $pt with $io/options.yaml" >&3
		continue
	fi
	echo "$id $pt $io $out/${id%%/*}-${id#*/}"
done >"$out/fixtures"

# Conversions, 8 fixtures a shell: STEM.yaml etc. are options.yaml plus each
# variant's lines; STEM.log gets the messages, STEM.conv 0 when all four
# conversions succeeded, else 1.
while read -r id pt io stem; do
	echo "$pt $io $stem"
done <"$out/fixtures" | xargs -n 24 -P "$jobs" sh -c '
	bin=$0
	while [ $# -ge 3 ]; do
		pt=$1 io=$2 stem=$3
		shift 3
		conv=0
		for v in "" -none -o18 -o23; do
			{
				cat "$io/options.yaml"
				echo "report: false"
				case $v in
				-none) echo "patterns: none" ;;
				-o*) echo "opset: ${v#-o}" ;;
				esac
			} >"$stem$v.yaml"
			echo "== $bin $pt -c $stem$v.yaml -o $stem$v.onnx" >>"$stem.log"
			"$bin" "$pt" -c "$stem$v.yaml" -o "$stem$v.onnx" >>"$stem.log" 2>&1 || conv=1
		done
		echo $conv >"$stem.conv"
	done' "$bin"

# onnxruntime: one job per converted fixture, OUT<TAB>MODELS...<TAB>IODIR.
while read -r id pt io stem; do
	read -r conv <"$stem.conv" 2>/dev/null
	[ "$conv" = 0 ] || continue
	echo "$stem.ort$tab$stem.onnx$tab$stem-none.onnx$tab$stem-o18.onnx$tab$stem-o23.onnx$tab$io"
done <"$out/fixtures" >"$out/ort.jobs"
. test/ort/batch.sh
ort_batch_start "$out/ort.jobs" "$jobs"

# Meanwhile, the bad inputs: BAD.out (stdout and stderr), BAD.rc.
bad=test/models/jit-bad
while IFS='|' read -r name opts status texts; do
	case $name in ''|'#'*) continue ;; esac
	pt=$bad/$name.pt o=$out/bad/$name.onnx
	if [ "$opts" = - ]; then
		"$bin" "$pt" -o "$o" >"$o.out" 2>&1
	else
		"$bin" "$pt" -c "$bad/$opts" -o "$o" >"$o.out" 2>&1
	fi
	rc=$?
	why=
	[ "$rc" = "$status" ] || why="exit $rc, want $status;"
	grep -qF "$name.pt" "$o.out" || why="$why the messages do not name $name.pt;"
	rest=$texts
	while [ -n "$rest" ]; do
		t=${rest%%|*}
		case $rest in *'|'*) rest=${rest#*|} ;; *) rest= ;; esac
		grep -qF -- "$t" "$o.out" || why="$why no '$t' in the messages;"
	done
	written=$(cd "$out/bad" && ls | grep -F "$name." | grep -vxF "$name.onnx.out")
	[ -z "$written" ] || why="$why it wrote $written;"
	if [ -z "$why" ]; then ok; else ko "bad input $name: $why"; sed 's/^/  /' "$o.out"; fi
done <"$bad/cases.txt"

ort_batch_wait "$out/ort.jobs" jit/run.sh

# The results, in list order.
while read -r id pt io stem; do
	read -r conv <"$stem.conv" 2>/dev/null || conv=1
	if [ "$conv" != 0 ]; then
		ko "$id: conversion failed:"; grep -v '^==' "$stem.log" | head -n 20 | sed 's/^/  /'
		continue
	fi
	rc=1
	[ -f "$stem.ort.rc" ] && read -r rc <"$stem.ort.rc"
	if [ "$rc" = 0 ]; then
		ok
		awk -v id="$id" '/^case/ { n++ } match($0, /err [0-9.e+-]*/) {
			e = substr($0, RSTART + 4, RLENGTH - 4) + 0; if (e > m) m = e }
			END { printf "%s: ok, %d cases x 4 conversions, max abs err %.1e\n", id, n, m }' "$stem.ort"
	else
		ko "$id:"; sed 's/^/  /' "$stem.ort"
	fi
done <"$out/fixtures"
echo "jit: $pass passed, $fail failed"
[ "$fail" = 0 ]
