#!/bin/sh
# snapshot.sh BINARY OUTDIR: convert every fixture (test/models/torch-*/*.pt2)
# with the default options, with `patterns: none` and at opsets 17 and 23,
# report included, then print one sha256 line per file written (for a
# failed conversion, its exit status and the hash of its messages).  Run it
# with two builds and diff the listings: a change that must not alter
# behaviour leaves them equal, byte for byte.
#
# Every conversion writes to the same path (the report records the output
# path, always /tmp/yobx-snapshot), and the stderr summary is hashed without its measured times.
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") out=$2
# One fixed work path for every run (so two builds compare), taken in turn
# by concurrent runs.
work=/tmp/yobx-snapshot
exec 9>"$work.lock" && flock 9
rm -rf "$work" && mkdir -p "$work" "$out"
printf 'patterns: none\n' >"$work/none.yaml"
printf 'opset: 17\n' >"$work/o17.yaml"
printf 'opset: 23\n' >"$work/o23.yaml"
printf '' >"$work/default.yaml"
for f in test/models/torch-*/*.pt2; do
	ver=$(basename "$(dirname "$f")") name=$(basename "$f" .pt2)
	for cfg in default none o17 o23; do
		id=$ver-$name-$cfg
		rm -f "$work"/model.*
		"$bin" "$f" -c "$work/$cfg.yaml" -o "$work/model.onnx" >"$work/log" 2>&1
		rc=$?
		sed 's/[0-9.]* s$/T s/' "$work/log" >"$out/$id.log"
		[ $rc = 0 ] || echo "exit $rc" >"$out/$id.fail"
		for x in onnx onnx.data xlsx; do
			[ -f "$work/model.$x" ] && mv "$work/model.$x" "$out/$id.$x"
		done
	done
done
cd "$out" && sha256sum $(ls | sort)
