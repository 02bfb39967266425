#!/bin/sh
# run.sh [BINARY]: onnx.checker (full_check) on every fixture, converted at
# opsets 17, 18, 23, 24 and 25, with the default patterns and with
# `patterns: none`, then value_info.py (every node output has a value_info).
# Not 26: the chroot's onnx (1.20) knows opsets up to 25, and its checker
# rejects a model of a newer opset; test/ort/opsets/26.txt runs those in
# onnxruntime instead.
# A fixture with its own options (NAME.io/options.yaml: functions, ...) is
# converted with them.
# Not part of `make check` (CI has no onnx): run it on a machine with the
# torch-env chroots (../shared/tools/torch-env.sh), from the repo root.
# A fixture that does not convert at an opset (e.g. integer bitwise ops
# below 18) is listed as skipped with the converter's first message.
bin=${1:-build/yobx-export}
out=$(dirname "$bin")/checker
rm -rf "$out"
mkdir -p "$out"
skipped=0
for opset in 17 18 23 24 25; do
	for pat in default none; do
		printf 'opset: %s\npatterns: %s\nreport: false\n' $opset $pat >"$out/o-$opset-$pat.yaml"
		for f in test/models/torch-*/*.pt2; do
			ver=$(basename "$(dirname "$f")") name=$(basename "$f" .pt2)
			m=$out/$ver-$name-$opset-$pat.onnx c=$out/o-$opset-$pat.yaml
			if [ -f "${f%.pt2}.io/options.yaml" ]; then   # the fixture's own options (functions: ...)
				c=${m%.onnx}.yaml
				cat "${f%.pt2}.io/options.yaml" "$out/o-$opset-$pat.yaml" >"$c"
			fi
			if ! "$bin" "$f" -c "$c" -o "$m" --quiet >"$out/log" 2>&1; then
				echo "skipped: $ver/$name at opset $opset, patterns $pat: $(head -1 "$out/log")"
				skipped=$((skipped + 1))
			fi
		done
	done
done
echo "converted $(ls "$out"/*.onnx | wc -l) models, $skipped skipped"
bash ../shared/tools/torch-env.sh run sid python3 /src/test/checker/check.py $(ls "$out"/*.onnx | sed 's|^|/src/|')
checked=$?
bash ../shared/tools/torch-env.sh run sid python3 /src/test/checker/value_info.py $(ls "$out"/*.onnx | sed 's|^|/src/|')
typed=$?
[ $checked -eq 0 ] && [ $typed -eq 0 ]
