#!/bin/sh
# snapshot.sh BINARY OUTDIR: convert every fixture (test/models/torch-*/*.pt2)
# with the default options, with `patterns: none` and at opsets 17 and 23,
# report included, into OUTDIR, then print one sha256 line per file written
# (and per failed conversion, its exit status and message hash).  Run it with
# two builds and diff the listings: a refactoring that must not change
# behaviour leaves them equal (`cmp`-level: the hashes are of the bytes).
set -u
bin=$1 out=$2
mkdir -p "$out"
printf 'patterns: none\n' >"$out/none.yaml"
printf 'opset: 17\n' >"$out/o17.yaml"
printf 'opset: 23\n' >"$out/o23.yaml"
printf '' >"$out/default.yaml"
for f in test/models/torch-*/*.pt2; do
	ver=$(basename "$(dirname "$f")") name=$(basename "$f" .pt2)
	for cfg in default none o17 o23; do
		m=$out/$ver-$name-$cfg.onnx
		rm -f "$m" "$m.data" "${m%.onnx}.xlsx"
		if ! "$bin" "$f" -c "$out/$cfg.yaml" -o "$m" >"$m.log" 2>&1; then
			echo "exit $? $(sha256sum <"$m.log" | cut -c1-16)" >"$m.fail"
		fi
	done
done
cd "$out" && sha256sum $(ls | grep -v -e '\.yaml$' | sort)
