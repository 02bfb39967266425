#!/bin/sh
# bench/opdb.sh DIR [BIN] [OPSET]: converts every case bench/opdb_export.py wrote
# into DIR and checks it under onnxruntime (test/ort/run.mjs), with BIN (default
# build/yobx-export) at OPSET (default 18).  Writes DIR/result-OPSET.tsv, one line a
# case: NAME, ours (match | wrong | noload | refused | -), dynamo (the same, or
# "-" without dynamo.onnx) and our first error line;
# then prints the totals.  Run from the repository root, on the host.  Cases
# named in DIR/skip.txt (one a line: random ops whose seeded samples passed
# opdb_export.py's check) are left out.
set -u
dir=$1 bin=${2:-build/yobx-export} opset=${3:-18}
work=$dir/.run-$opset
rm -rf "$work"; mkdir -p "$work"
printf 'opset: %s\n' "$opset" >"$work/opts.yaml"
jobs=$work/all.jobs
: >"$jobs"
for d in "$dir"/*/; do
	n=$(basename "$d")
	[ -f "$d/model.pt2" ] && [ -f "$d/io/manifest.json" ] || continue
	grep -qx "$n" "$dir/skip.txt" 2>/dev/null && continue
	mkdir -p "$work/$n"
	if "$bin" "$d/model.pt2" -c "$work/opts.yaml" -o "$work/$n/ours.onnx" >"$work/$n/err" 2>&1; then
		printf '%s\t%s\t%s\n' "$work/$n/ours.out" "$work/$n/ours.onnx" "$d/io" >>"$jobs"
	fi
	[ -f "$d/dynamo.onnx" ] && printf '%s\t%s\t%s\n' "$work/$n/dyn.out" "$d/dynamo.onnx" "$d/io" >>"$jobs"
done
. test/ort/batch.sh
ort_batch_start "$jobs" 2
ort_batch_wait "$jobs" opdb
verdict() {  # FILE.out -> match | wrong | noload | -
	[ -f "$1.rc" ] || { echo -; return; }
	case $(cat "$1.rc") in 0) echo match;; 1) echo wrong;; *) echo noload;; esac
}
out=$dir/result-$opset.tsv
: >"$out"
for d in "$dir"/*/; do
	n=$(basename "$d")
	[ -f "$d/model.pt2" ] && [ -f "$d/io/manifest.json" ] || continue
	grep -qx "$n" "$dir/skip.txt" 2>/dev/null && continue
	o=$(verdict "$work/$n/ours.out"); [ -f "$work/$n/ours.onnx" ] || o=refused
	y=-; [ -f "$d/dynamo.onnx" ] && y=$(verdict "$work/$n/dyn.out")
	e=$(grep -m1 -E "node '|error" "$work/$n/err" | sed 's/ at [^:]*:[0-9]* in [^:]*:/:/' | cut -c1-200)
	printf '%s\t%s\t%s\t%s\n' "$n" "$o" "$y" "$e" >>"$out"
done
awk -F'\t' '{ t++; o[$2]++; if ($3 != "-") { dy++; if ($3 == "match") { dm++; if ($2 != "match") miss++ } } }
	END { printf "cases %d: ours match %d (%.1f%%), wrong %d, noload %d, refused %d; dynamo ran %d, matched %d; dynamo matched but not ours %d\n",
	      t, o["match"], 100 * o["match"] / t, o["wrong"], o["noload"], o["refused"], dy, dm, miss }' "$out"
