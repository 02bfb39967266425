#!/bin/sh
# run.sh [BINARY]: ONNX's backend node tests (onnx v1.22.0, packed by make.py
# into cases.tar.gz) through yobx-export's ONNX input path, from the repo root.
#
# Every case onnxruntime runs and matches AS WRITTEN is optimized by
# `yobx-export NAME/model.onnx` with no opset (its own opset, upgraded to the
# default 18 when older) and at `opset: 18`, `23` and `26` (each that is not
# below its own), and each result must still load and match the case's
# expected outputs (test/ort/run.mjs: float within 1e-4, or 1e-5 of values
# beyond 10; integers and bools exactly).  Per case and target:
#   pass      converted, runs and matches
#   refused   yobx-export refused it by name (exit 1 or 2 with a diagnostic):
#             allowed only when listed in test/onnx-node/refused.txt
#   BROKEN    the written model does not load, or its numbers differ, or the
#             converter crashed (exit above 2): always a failure
#   ort-gap   the written model asks for an operator version onnxruntime has no
#             kernel for, one listed in test/onnx-node/ortgaps.txt (valid ONNX)
# Cases onnxruntime cannot run as written, or whose outputs it does not
# match as written, are counted apart ("not run as written").
# Ends with "onnx-node: N passed, N failed" (failed: BROKEN, unlisted
# refusals, and listed refusals that now pass: drop them from refused.txt,
# or UPDATE=1 rewrites it).  The percentage line is the issue's figure.
# CASES='row_*' runs only the cases whose names match (refused.txt is then
# neither checked for stale lines nor rewritten).
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/yobx-export}
d=$(dirname "$bin")/onnx-node
jobs=${JOBS:-2}
tab=$(printf '\t')
if [ ! -f "$d/.stamp" ] || [ "$here/cases.tar.gz" -nt "$d/.stamp" ]; then
	rm -rf "$d" && mkdir -p "$d/cases" && tar -xzf "$here/cases.tar.gz" -C "$d/cases" && touch "$d/.stamp" || exit 1
fi
rm -rf "$d/out" "$d/res" && mkdir -p "$d/out" "$d/res"
for t in 18 23 26; do printf 'opset: %s\nreport: false\n' $t >"$d/o$t.yaml"; done
printf 'report: false\n' >"$d/odef.yaml"
# The conversions: NAME TARGET lines, then run $jobs at a time.
while read -r r; do
	[ -d "$d/cases/$r" ] || { echo "onnx-node: $r (test/onnx-node/rows.txt) is not in cases.tar.gz: run make_rows.py and make.py"; exit 1; }
done <"$here/rows.txt"
# SLICE=N keeps every Nth case (in name order, from the first): the
# deterministic share make check runs; make test runs them all.
slice=${SLICE:-1}
i=0
for c in "$d"/cases/${CASES:-*}/; do
	i=$((i + 1)); [ $(( (i - 1) % slice )) = 0 ] || continue
	c=${c%/}; n=${c##*/}
	read -r own rest <"$c/opset"
	echo "$n def"
	for t in 18 23 26; do [ "$own" -le $t ] && echo "$n $t"; done
done >"$d/conv.list"
# The conversions, many per process (test/batch/convert.sh).
while read -r n t; do
	printf '%s\t%s\t%s\n' "$d/cases/$n/model.onnx" "$d/o$t.yaml" "$d/out/$n-$t.onnx"
done <"$d/conv.list" >"$d/convert.batch"
. test/batch/convert.sh
convert_batch "$d/convert.batch" "$jobs" "$bin"
# The onnxruntime checks: each case as written, and each conversion.
while read -r n t; do
	[ "$t" = def ] && printf '%s\t%s\t%s\n' "$d/res/$n.asis" "$d/cases/$n/model.onnx" "$d/cases/$n/io"
	read -r rc <"$d/out/$n-$t.onnx.rc"
	[ "$rc" = 0 ] && printf '%s\t%s\t%s\n' "$d/res/$n-$t" "$d/out/$n-$t.onnx" "$d/cases/$n/io"
done <"$d/conv.list" >"$d/ort.jobs"
. test/ort/batch.sh
ort_batch_start "$d/ort.jobs" "$jobs"
ort_batch_wait "$d/ort.jobs" onnx-node
# The verdicts, in case order.
pass=0 fail=0 refused=0 notrun=0 total=0 gaps=0
: >"$d/refused.now"
while read -r n t; do
	read -r arc <"$d/res/$n.asis.rc"
	if [ "$arc" != 0 ]; then [ "$t" = def ] && notrun=$((notrun + 1)); continue; fi
	total=$((total + 1))
	read -r rc <"$d/out/$n-$t.onnx.rc"
	listed=0; grep -qx "$n $t" "$here/refused.txt" 2>/dev/null && listed=1
	if [ "$rc" = 0 ]; then
		read -r orc <"$d/res/$n-$t.rc"
		if [ "$orc" = 0 ]; then
			pass=$((pass + 1))
			[ $listed = 1 ] && [ -z "$UPDATE" ] && { echo "onnx-node: $n at $t now passes: drop it from refused.txt"; fail=$((fail + 1)); }
		else
			gap=$(sed -n 's/.*Could not find an implementation for \([A-Za-z]*\)(\([0-9]*\)).*/\1 \2/p' "$d/res/$n-$t" | head -1)
			if [ -n "$gap" ] && grep -qx "$gap" "$here/ortgaps.txt"; then
				gaps=$((gaps + 1)); echo "ort-gap $n at $t: onnxruntime has no kernel for $gap"
			else
				fail=$((fail + 1)); echo "BROKEN $n at $t: $(grep -v '^ok\|^ort:' "$d/res/$n-$t" | head -3)"
			fi
		fi
	elif [ "$rc" -gt 2 ]; then
		fail=$((fail + 1)); echo "BROKEN $n at $t: the converter exited $rc: $(head -3 "$d/out/$n-$t.onnx.err")"
	else
		refused=$((refused + 1)); echo "$n $t" >>"$d/refused.now"
		[ $listed = 0 ] && [ -z "$UPDATE" ] && { fail=$((fail + 1)); echo "refused (not in refused.txt) $n at $t: $(grep -m1 . "$d/out/$n-$t.onnx.err")"; }
	fi
done <"$d/conv.list"
[ -n "$UPDATE" ] && [ -z "$CASES" ] && [ "$slice" = 1 ] && cp "$d/refused.now" "$here/refused.txt"
awk -v p=$pass -v r=$refused -v t=$total -v n=$notrun -v g=$gaps 'BEGIN {
	printf "onnx-node: %d conversions of cases onnxruntime runs as written: %d match (%.1f%%), %d refused by name, %d onnxruntime gaps; %d cases not run as written\n", t, p, t ? 100 * p / t : 0, r, g, n }'
echo "onnx-node: $pass passed, $fail failed"
[ $fail = 0 ]
