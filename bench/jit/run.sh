#!/bin/sh
# bench/jit/run.sh DIR [BINARY]: converts every DIR/NAME.pt that make_real.py wrote
# (with DIR/NAME.io/options.yaml, its `inputs:`) and checks it in onnxruntime
# against torch's outputs (test/ort/run.mjs: float32 within 1e-4, or 1e-5 of
# magnitudes beyond 10).  Prints a table: model, variant, the converter's exit
# status, converts and matches?, max abs err, seconds; then the totals.  An exit
# status above 2 (a signal) is a crash.  Not part of CI (the archives are large);
# run from the repository root after make.  The converter's messages go to
# DIR/NAME.log.
dir=${1:?usage: bench/jit/run.sh DIR [BINARY]}
bin=${2:-build/yobx-export}
out=$dir/onnx
mkdir -p "$out"
pass=0 fail=0 crash=0
printf '%-42s %-7s %4s %-9s %10s %8s\n' model variant exit matches "max err" seconds
for pt in "$dir"/*.pt; do
	name=$(basename "$pt" .pt)
	io=$dir/$name.io
	[ -f "$io/options.yaml" ] || continue
	t0=$(date +%s.%N)
	timeout 1200 "$bin" "$pt" -c "$io/options.yaml" -o "$out/$name.onnx" --quiet >"$dir/$name.log" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	err=- ok=no
	if [ $rc = 0 ]; then
		res=$(node test/ort/run.mjs "$out/$name.onnx" "$io" 2>&1)
		[ $? = 0 ] && ok=yes
		err=$(echo "$res" | sed -n 's/.*max abs err \([0-9.e+-]*\).*/\1/p' | sort -g | tail -1)
		[ -n "$err" ] || err=-
		echo "$res" >>"$dir/$name.log"
	fi
	[ $rc -gt 2 ] && crash=$((crash + 1))
	if [ $ok = yes ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
	printf '%-42s %-7s %4s %-9s %10s %8.1f\n' "${name%_*}" "${name##*_}" $rc $ok "$err" \
		"$(echo "$t1 - $t0" | bc)"
	rm -f "$out/$name.onnx" "$out/$name.onnx.data" "$out/$name.xlsx"
done
echo "real archives: $pass convert and match, $fail do not, $crash crashes (of $((pass + fail)))"
