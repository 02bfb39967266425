#!/bin/sh
# run-cli.sh BINARY: end-to-end tests of the command line, run from the repo root.
#  - usage and exit statuses
#  - golden --print output for every fixture (test/golden/print/<torch>/<name>.txt);
#    UPDATE_GOLDEN=1 rewrites them
#  - every bad input of test/bad/cases.txt: exit status, message, no output file
# Ends with the line "N passed, N failed".
bin=${1:-build/yobx-export}
dir=$(dirname "$bin")
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

expect_status() {   # expected-status description command...
	want=$1 what=$2; shift 2
	"$@" >/dev/null 2>&1; got=$?
	[ "$got" = "$want" ] && ok || ko "$what: exit $got, want $want"
}

expect_status 0 "--help" "$bin" --help
expect_status 0 "--version" "$bin" --version
expect_status 2 "no arguments" "$bin"
expect_status 2 "unknown flag" "$bin" --frobnicate x.pt2
expect_status 2 "missing file" "$bin" /nonexistent/model.pt2 --print
"$bin" --version | grep -q '^yobx-export [0-9]' && ok || ko "--version text"

# Golden renderings of every fixture.
for f in test/models/torch-*/*.pt2; do
	[ -f "$f" ] || continue
	ver=$(basename "$(dirname "$f")") name=$(basename "$f" .pt2)
	gold=test/golden/print/$ver/$name.txt
	out=$dir/print-$ver-$name.txt
	if ! "$bin" "$f" --print >"$out" 2>"$out.err"; then
		ko "--print $f: $(cat "$out.err")"; continue
	fi
	if [ -n "$UPDATE_GOLDEN" ]; then
		mkdir -p "$(dirname "$gold")"; cp "$out" "$gold"; ok
	elif [ ! -f "$gold" ]; then
		ko "no golden file $gold (run with UPDATE_GOLDEN=1)"
	elif cmp -s "$out" "$gold"; then
		ok
	else
		ko "--print $f differs from $gold:"; diff -u "$gold" "$out" | head -20
	fi
done

# External data: every initializer in OUT.data, copied from the mapped input
# file by the kernel; onnxruntime must still match torch.
ext=$dir/ext
mkdir -p "$ext"
printf 'external_data_threshold: 0\n' >"$ext/options.yaml"
for f in test/models/torch-2.14/cnn.pt2 test/models/torch-2.6/cnn.pt2; do
	rm -f "$ext/cnn.onnx" "$ext/cnn.onnx.data"
	if "$bin" "$f" -c "$ext/options.yaml" -o "$ext/cnn.onnx" --quiet >"$ext/log" 2>&1 || "$bin" "$f" -c "$ext/options.yaml" -o "$ext/cnn.onnx" >"$ext/log" 2>&1; then
		[ -s "$ext/cnn.onnx.data" ] && ok || ko "$f: no external data file"
		node test/ort/run.mjs "$ext/cnn.onnx" "${f%.pt2}.io" >"$ext/ort.log" 2>&1 && ok || { ko "$f with external data: onnxruntime differs"; cat "$ext/ort.log"; }
	else
		ko "$f with external data: $(cat "$ext/log")"
	fi
done

# Opset-dependent rows: integer bitwise ops need opset 18 (BitwiseAnd, ...;
# OPF_INT18).  At opset 17 op_dtypes fails (exit 1) listing every such node
# with its target and the option to set, and writes nothing; the bool ones
# of op_elementwise (And, Or, Xor, Not) still convert and match torch.
o17=$dir/opset17
mkdir -p "$o17"
printf 'opset: 17\n' >"$o17/options.yaml"
rm -f "$o17/op_dtypes.onnx"
"$bin" test/models/torch-2.14/op_dtypes.pt2 -c "$o17/options.yaml" -o "$o17/op_dtypes.onnx" >"$o17/log" 2>&1; got=$?
[ "$got" = 1 ] && ok || ko "op_dtypes at opset 17: exit $got, want 1"
for want in "node 'bitwise_not' (aten.bitwise_not.default): int64 operands need \`opset: 18\` or later (ONNX's BitwiseNot); the target is opset 17" \
	"node 'and_3' (aten.__and__.Scalar): uint8 operands need \`opset: 18\` or later" "9 nodes cannot be converted"; do
	grep -qF -- "$want" "$o17/log" && ok || { ko "op_dtypes at opset 17: message lacks '$want'"; cat "$o17/log"; }
done
[ ! -e "$o17/op_dtypes.onnx" ] && ok || ko "op_dtypes at opset 17 left $o17/op_dtypes.onnx behind"
if "$bin" test/models/torch-2.14/op_elementwise.pt2 -c "$o17/options.yaml" -o "$o17/op_elementwise.onnx" --quiet >"$o17/log" 2>&1; then
	node test/ort/run.mjs "$o17/op_elementwise.onnx" test/models/torch-2.14/op_elementwise.io >"$o17/ort.log" 2>&1 && ok ||
		{ ko "op_elementwise at opset 17: onnxruntime differs"; cat "$o17/ort.log"; }
else
	ko "op_elementwise at opset 17: $(cat "$o17/log")"
fi

# Bad inputs: one clear message naming the file, exit 2, no output file.
bad=$dir/bad
if python3 test/bad/make_bad.py "$bad"; then
	grep -v '^#' test/bad/cases.txt | while IFS='|' read -r name want text; do
		[ -n "$name" ] || continue
		f=$bad/$name.pt2 out=$bad/$name.onnx
		rm -f "$out"
		"$bin" "$f" -o "$out" >"$bad/$name.log" 2>&1; got=$?
		if [ "$got" != "$want" ]; then echo "FAIL: bad input $name: exit $got, want $want"; cat "$bad/$name.log"; echo x >>"$bad/fails"
		elif ! grep -qF "$f" "$bad/$name.log"; then echo "FAIL: bad input $name: message does not name the file"; cat "$bad/$name.log"; echo x >>"$bad/fails"
		elif ! grep -qF -- "$text" "$bad/$name.log"; then echo "FAIL: bad input $name: message lacks '$text'"; cat "$bad/$name.log"; echo x >>"$bad/fails"
		elif [ -e "$out" ]; then echo "FAIL: bad input $name left $out behind"; echo x >>"$bad/fails"
		elif [ "$(wc -l <"$bad/$name.log")" -gt 3 ]; then echo "FAIL: bad input $name: more than 3 lines"; cat "$bad/$name.log"; echo x >>"$bad/fails"
		else echo x >>"$bad/passes"; fi
	done
	pass=$((pass + $(cat "$bad/passes" 2>/dev/null | wc -l))); fail=$((fail + $(cat "$bad/fails" 2>/dev/null | wc -l)))
	rm -f "$bad/passes" "$bad/fails"
else
	ko "test/bad/make_bad.py failed"
fi

echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
