#!/bin/sh
# run-cli.sh BINARY: end-to-end tests of the command line, run from the repo root.
#  - usage and exit statuses
#  - golden --print output for every fixture (test/golden/print/<torch>/<name>.txt);
#    UPDATE_GOLDEN=1 rewrites them
#  - every bad input of test/bad/cases.txt: exit status, message, no output file
# Ends with the line "N passed, N failed".
#
# Speed: starting a process is slow here (tens of ms on a loaded VM). So the
# golden conversions and comparisons run 8 fixtures a shell, $JOBS (default
# 2) shells at a time, and are reported afterwards in fixture order;
# make_bad.py runs meanwhile; the three onnxruntime checks run in one
# `run.mjs --batch` process while the bad inputs are checked.
bin=${1:-build/yobx-export}
dir=$(dirname "$bin")
jobs=${JOBS:-2}
pass=0 fail=0
bad=$dir/bad
python3 test/bad/make_bad.py "$bad" >"$dir/make_bad.log" 2>&1 &
make_bad=$!
tab=$(printf '\t')
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

# libxlsxwriter is loaded only when a report is written: a missing one is
# exit status 2 naming it, with nothing written; `report: false` needs none.
nolib=$dir/nolib
rm -rf "$nolib" && mkdir -p "$nolib" && printf 'report: false\n' >"$nolib/nr.yaml"
YOBX_XLSXWRITER=/nonexistent/libxlsxwriter.so "$bin" test/models/torch-2.14/cnn.pt2 -o "$nolib/m.onnx" -q \
	>"$nolib/log" 2>&1; rc=$?
if [ $rc = 2 ] && grep -q 'cannot load libxlsxwriter, /nonexistent/libxlsxwriter.so' "$nolib/log" &&
   [ -z "$(ls "$nolib" | grep -v -e nr.yaml -e log)" ]; then ok; else ko "missing libxlsxwriter: exit $rc, $(cat "$nolib/log")"; fi
expect_status 0 "missing libxlsxwriter with report: false" env YOBX_XLSXWRITER=/nonexistent/libxlsxwriter.so \
	"$bin" test/models/torch-2.14/cnn.pt2 -c "$nolib/nr.yaml" -o "$nolib/m.onnx" -q

# Golden renderings of every fixture: the list PT2 OUT GOLD, then OUT,
# OUT.err, and OUT.rc holding the converter's exit status and cmp's (0 same,
# else differs; "-" when there is no golden file).
for f in test/models/torch-*/*.pt2; do
	[ -f "$f" ] || continue
	ver=${f%/*} name=${f##*/}
	ver=${ver##*/} name=${name%.pt2}
	echo "$f $dir/print-$ver-$name.txt test/golden/print/$ver/$name.txt"
done >"$dir/print.list"
rm -f "$dir"/print-*.txt.rc
xargs -n 24 -P "$jobs" sh -c '
	bin=$0
	while [ $# -ge 3 ]; do
		"$bin" "$1" --print >"$2" 2>"$2.err"; rc=$?
		if [ ! -f "$3" ]; then same=-; else cmp -s "$2" "$3"; same=$?; fi
		echo "$rc $same" >"$2.rc"
		shift 3
	done' "$bin" <"$dir/print.list"
while read -r f out gold; do
	rc= same=
	[ -f "$out.rc" ] && read -r rc same <"$out.rc"
	if [ "$rc" != 0 ]; then
		ko "--print $f: $(cat "$out.err")"; continue
	fi
	if [ -n "$UPDATE_GOLDEN" ]; then
		mkdir -p "$(dirname "$gold")"; cp "$out" "$gold"; ok
	elif [ "$same" = - ]; then
		ko "no golden file $gold (run with UPDATE_GOLDEN=1)"
	elif [ "$same" = 0 ]; then
		ok
	else
		ko "--print $f differs from $gold:"; diff -u "$gold" "$out" | head -20
	fi
done <"$dir/print.list"

# The onnxruntime checks below, as jobs of one run.mjs --batch run:
# OUT<TAB>MODEL<TAB>IODIR, and "OUT what" in ort.what for the verdict.
ortjobs=$dir/cli-ort.jobs
: >"$ortjobs"
: >"$ortjobs.what"
ort_job() {   # model iodir what
	rm -f "$1.ort" "$1.ort.rc"
	echo "$1.ort$tab$1$tab$2" >>"$ortjobs"
	echo "$1.ort $3" >>"$ortjobs.what"
}

# External data: every initializer in OUT.data, copied from the mapped input
# file by the kernel; onnxruntime must still match torch.
ext=$dir/ext
mkdir -p "$ext"
printf 'external_data_threshold: 0\n' >"$ext/options.yaml"
for f in test/models/torch-2.14/cnn.pt2 test/models/torch-2.6/cnn.pt2; do
	ver=${f%/*}
	m=$ext/${ver##*/}-cnn.onnx
	rm -f "$m" "$m.data"
	if "$bin" "$f" -c "$ext/options.yaml" -o "$m" --quiet >"$ext/log" 2>&1 || "$bin" "$f" -c "$ext/options.yaml" -o "$m" >"$ext/log" 2>&1; then
		[ -s "$m.data" ] && ok || ko "$f: no external data file"
		ort_job "$m" "${f%.pt2}.io" "$f with external data"
	else
		ko "$f with external data: $(cat "$ext/log")"
	fi
done

# external_data: reference (docs/options.md): the model beside a copy of
# its .pt2 points each unchanged initializer into that file (nothing of it
# copied), the changed ones in OUT.data; onnxruntime must still match
# torch.  A torch 2.14 archive, a torch 2.8 one (weights in a nested
# torch.save zip) and a model with folded BatchNorms.  Refused by name,
# nothing written: deflated weights, the output in another folder, an input
# that is not a .pt2.
ref=$dir/ref
rm -rf "$ref" && mkdir -p "$ref/other"
printf 'external_data: reference\nexternal_data_threshold: 0\n' >"$ref/options.yaml"
for f in torch-2.14/hf_gpt2 torch-2.14/tv_resnet torch-2.14/hf_llama_dyn torch-2.8/mlp; do
	n=$(echo "$f" | tr / -)
	cp "test/models/$f.pt2" "$ref/$n.pt2"
	if "$bin" "$ref/$n.pt2" -c "$ref/options.yaml" -o "$ref/$n.onnx" -q >"$ref/log" 2>&1; then
		grep -qa "$n.pt2" "$ref/$n.onnx" && ok || ko "$f with external_data: reference: no initializer points into $n.pt2"
		ort_job "$ref/$n.onnx" "test/models/$f.io" "$f with external_data: reference"
	else
		ko "$f with external_data: reference: $(cat "$ref/log")"
	fi
done
refuse_ref() {   # what input output: exit 2 naming the option (YE0406), nothing written
	"$bin" "$2" -c "$ref/options.yaml" -o "$3" -q >"$ref/log" 2>&1; got=$?
	if [ "$got" = 2 ] && grep -q "YE0406\|external_data: reference: " "$ref/log" && [ ! -e "$3" ] && [ ! -e "${3%.onnx}.xlsx" ]; then ok
	else ko "external_data: reference, $1: exit $got, $(cat "$ref/log")"; fi
}
cp test/models/torch-2.14/fn_resnet.pt2 "$ref/deflated.pt2"
refuse_ref "deflated weights" "$ref/deflated.pt2" "$ref/deflated.onnx"
refuse_ref "output in another folder" "$ref/torch-2.14-hf_gpt2.pt2" "$ref/other/m.onnx"
refuse_ref "an ONNX input" "$ref/torch-2.8-mlp.onnx" "$ref/again.onnx"

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
	ort_job "$o17/op_elementwise.onnx" test/models/torch-2.14/op_elementwise.io "op_elementwise at opset 17"
else
	ko "op_elementwise at opset 17: $(cat "$o17/log")"
fi
node test/ort/run.mjs --batch "$ortjobs" >"$ortjobs.log" 2>&1 &
ort_batch=$!

# The model's contract (docs/signature.md): --expect-signature against the
# fixture's own golden signature passes; against another model's it fails
# (exit 1) with each difference on its own line, in the text, JSON and SARIF
# forms, and still writes the model; signature_allow turns kinds into notes;
# input_names and dim_names rename, and conflicts name the option's line.
sig=$dir/sig
mkdir -p "$sig"
sc=test/models/torch-2.14/sig_contract.pt2 gsc=test/golden/signature/sig_contract.json
expect_status 0 "--expect-signature against its own golden" "$bin" "$sc" -o "$sig/m.onnx" --expect-signature "$gsc" -q
rm -f "$sig/m.onnx"
"$bin" "$sc" -o "$sig/m.onnx" --expect-signature test/golden/signature/derived_dyn.json -q \
	--diagnostics=json:"$sig/d.json" --sarif "$sig/d.sarif" >"$sig/log" 2>&1; got=$?
[ "$got" = 1 ] && ok || ko "--expect-signature against another model: exit $got, want 1"
[ -s "$sig/m.onnx" ] && ok || ko "--expect-signature: a difference must not stop the model being written"
for want in "input 'y' axis 1: was symbolic 'y_dim_1', now fixed at 4 [fixed]" "input 'z' (input 2) is new [added]" \
	"input 'x': was rank 2, now 3 [rank]" "output 0: was 'mul', now 'add' [renamed]" \
	"output 'add' axis 2: was 3, now 4 [size]" "symbol 'x_dim_0': range [1, 1024] narrowed to [2, 32] [range]"; do
	grep -qF -- "$want" "$sig/log" && ok || { ko "--expect-signature: no line '$want'"; cat "$sig/log"; }
done
n=$(grep -c "derived_dyn.json: .* \[[a-z]*\]$" "$sig/log")
[ "$n" = 14 ] && ok || ko "--expect-signature: $n differences, want 14, each on its own line"
grep -q '"name":"signature-changed"' "$sig/d.json" && ok || ko "--diagnostics=json: no signature-changed"
grep -q '"ruleId":"YE0901"' "$sig/d.sarif" && ok || ko "--sarif: no YE0901 result"
printf 'signature_allow: [added, removed, renamed, source, dtype, rank, fixed, dynamic, size, symbol, range, opset]\n' >"$sig/allow.yaml"
expect_status 0 "signature_allow: every kind" "$bin" "$sc" -c "$sig/allow.yaml" -o "$sig/m.onnx" -q \
	--expect-signature test/golden/signature/derived_dyn.json
printf 'not json' >"$sig/bad.json"
expect_status 2 "--expect-signature: not a signature" "$bin" "$sc" -o "$sig/m.onnx" -q --expect-signature "$sig/bad.json"
printf 'input_names: [tokens, extra]\ndim_names: {x_dim_0: batch, s27: seq}\noutput_names: [hidden]\n' >"$sig/names.yaml"
"$bin" "$sc" -c "$sig/names.yaml" -o "$sig/n.onnx" -q --signature "$sig/n.json" >"$sig/log" 2>&1 || ko "input_names/dim_names: $(cat "$sig/log")"
for want in '{"name": "tokens", "torch_name": "x", "source": "user_input", "dtype": "float32", "dims": ["batch", "seq", 8]}' \
	'{"name": "extra", "torch_name": "y", "source": "user_input", "dtype": "float32", "dims": ["batch", 4]}' \
	'{"name": "hidden", "torch_name": "add", "source": "user_output"'; do
	grep -qF -- "$want" "$sig/n.json" && ok || { ko "names: no '$want' in the signature"; cat "$sig/n.json"; }
done
while IFS='|' read -r yaml want; do
	printf "$yaml" >"$sig/bad.yaml"
	"$bin" "$sc" -c "$sig/bad.yaml" -o "$sig/x.onnx" -q >"$sig/log" 2>&1; got=$?
	[ "$got" = 2 ] && grep -qF -- "$want" "$sig/log" && ok || { ko "names conflict: exit $got, want 2 and '$want'"; cat "$sig/log"; }
done <<'EOF'
input_names: [a, a]\n|bad.yaml:1:18: input name 'a' is given twice
input_names: [a, add]\n|bad.yaml:1:18: input_names: 'add' is already the name of an output
input_names: [a, b, c, d, e]\n|bad.yaml:1:27: input_names: 'e' is one name too many
input_names: [hidden]\noutput_names: [hidden]\n|bad.yaml:1:15: 'hidden' is the name of both an input and an output
dim_names: {nope: batch}\n|bad.yaml:1:13: dim_names: no input axis has the dimension 'nope'
dim_names: {x_dim_0: a, s17: b}\n|bad.yaml:1:25: dynamic_dimensions: axis 0 of 'x' is the same dimension as one already named 'a'
EOF

# Bad inputs: one clear message naming the file, exit 2, no output file.
if wait $make_bad; then
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
	cat "$dir/make_bad.log"
	ko "test/bad/make_bad.py failed"
fi

# The onnxruntime verdicts: the job's exit status 0, else its output.
wait $ort_batch || { echo "run.mjs --batch exited with status $?:"; cat "$ortjobs.log"; }
while read -r job what; do
	rc=
	[ -f "$job.rc" ] && read -r rc <"$job.rc"
	[ "$rc" = 0 ] && ok || { ko "$what: onnxruntime differs"; cat "$job"; }
done <"$ortjobs.what"

echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
