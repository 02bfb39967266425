#!/bin/sh
# check.sh [BUILD]: the committed capture bundles (test/models/bundles/*.yxc)
# through the converter and onnxruntime. For each bundle and options choice
# below, the conversion must give the exit status listed; a converted model
# must match torch's eager outputs (NAME.io, written by make_bundles.py from
# the bundle itself) and the summary must name the winning capture. Then
# the ONNX input path: each converted model, optimized again as an .onnx
# input, must still match and not grow. Prints "capture: N passed, N failed".
b=${1:-build}
bin=$b/yobx-export
out=$b/capture
rm -rf "$out"
mkdir -p "$out"
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# BUNDLE OPTIONS-TEXT STATUS WINNER (WINNER - for a failure)
while IFS='|' read -r bundle opts status winner; do
	[ -n "$bundle" ] || continue
	k=$((pass + fail))
	printf '%b' "$opts" >"$out/$k.yaml"
	m=$out/$bundle-$k.onnx
	"$bin" "test/models/bundles/$bundle.yxc" -c "$out/$k.yaml" -o "$m" >"$m.log" 2>&1
	rc=$?
	if [ "$rc" != "$status" ]; then
		bad "$bundle [$opts]: exit $rc, want $status"; sed 's/^/  /' "$m.log"; continue
	fi
	if [ "$status" != 0 ]; then
		if [ -e "$m" ]; then bad "$bundle [$opts]: failed but wrote $m"; else ok; fi
		continue
	fi
	if ! grep -q "(capture $winner) ->" "$m.log"; then
		bad "$bundle [$opts]: winner is not $winner:"; head -n 3 "$m.log" | sed 's/^/  /'; continue
	fi
	# the written model again, as an ONNX input
	r=$out/$bundle-$k-re.onnx
	if ! "$bin" "$m" -o "$r" >"$r.log" 2>&1; then
		bad "$bundle [$opts]: $m does not optimize again:"; sed 's/^/  /' "$r.log"; continue
	fi
	if [ "$(wc -c <"$r")" -gt "$(wc -c <"$m")" ]; then
		bad "$bundle [$opts]: optimized again, $r is larger than $m"; continue
	fi
	if node test/ort/run.mjs "$m" "$r" "test/models/bundles/$bundle.io" >"$m.ort" 2>&1; then
		ok
	else
		bad "$bundle [$opts]: onnxruntime:"; sed 's/^/  /' "$m.ort"
	fi
done <<'LIST'
every_strategy||0|nostrict
every_strategy|strategy: strict\n|0|strict
every_strategy|strategy: nostrict-dec\n|0|nostrict-dec
every_strategy|strategy: nostrict-decall\n|0|nostrict-decall
every_strategy|strategy: tracing\n|0|tracing
every_strategy|strategy: onnxscript\n|0|onnxscript
every_strategy|strategy: jit\n|0|jit
every_strategy|strategy: jit\nfallback: [onnxscript]\n|0|jit
strict_fails||0|nostrict
strict_fails|strategy: strict\nfallback: [tracing]\n|0|tracing
strict_fails|fallback: [strict]\n|1|-
only_decomposed||0|nostrict-dec
only_decomposed|fallback: [strict, nostrict-decall, nostrict-dec]\n|0|nostrict-decall
only_decomposed|fallback: [strict, nostrict]\n|1|-
only_tracing||0|tracing
only_tracing|fallback: [nostrict, strict, nostrict-dec]\n|1|-
output_mismatch||1|-
LIST
# --print: a bundle's attempts and the first capture that reads; an ONNX input.
p=$out/print.txt
if "$bin" test/models/bundles/only_tracing.yxc --print >"$p" 2>&1 &&
	grep -q "^  nostrict         RuntimeError: this model refuses torch.export$" "$p" &&
	grep -q "^capture tracing (captures/tracing.pt2)" "$p" && grep -q "^graph " "$p"; then
	ok
else
	bad "--print of a bundle:"; sed 's/^/  /' "$p"
fi
if "$bin" "$out/every_strategy-0.onnx" --print >"$p" 2>&1 && grep -q "^ir_version .*opsets ai.onnx:18" "$p"; then
	ok
else
	bad "--print of an ONNX input:"; sed 's/^/  /' "$p"
fi

echo "capture: $pass passed, $fail failed"
[ "$fail" = 0 ]
