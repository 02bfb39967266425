#!/bin/sh
# run.sh [BUILD]: yobx-export --verify (docs/verify.md), with onnxruntime's C
# library from node_modules (onnxruntime-node, as test/run-ort.sh uses it).
#  - the verify_* bundles (test/capture/make_verify.py): verify_nested passes
#    with every module compared; verify_output_bad fails (exit 1, YE0801) naming
#    its output, the model still written; verify_module_bad names blocks.1;
#    the same with the weights in external data;
#  - a .pt2 with sample inputs verifies; verify_outputs (raw files) compared
#    value by value, and an altered one fails; a wrong file size is exit 2;
#  - no library (a wrong YOBX_ONNXRUNTIME, a wrong onnxruntime_library, a
#    library that is not onnxruntime) is exit 2 (YE0802) saying how to get one;
#  - --verify over every .pt2 fixture and bundle: each passes, or fails as
#    EXPECTED_FAIL below says and why.
# Under ASan (build-asan) the run is the same; see ASAN_OPTIONS below.
# Prints "verify: N passed, N failed".
b=${1:-build}
bin=$b/yobx-export
out=$b/verify
lib=${YOBX_ONNXRUNTIME:-$(pwd)/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1}
rm -rf "$out"
mkdir -p "$out"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
if [ ! -f "$lib" ]; then
	echo "verify: no onnxruntime library at $lib (npm ci --ignore-scripts installs onnxruntime-node)"
	exit 1
fi
export YOBX_ONNXRUNTIME="$lib"
# Under ASan: onnxruntime keeps a few process-wide allocations it never
# frees (seen: 14 bytes from its static initialisation), which LeakSanitizer
# reports at exit; test/verify/lsan.supp suppresses leaks whose stack is in
# libonnxruntime only, so a leak of ours is still an error.
LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$(pwd)/test/verify/lsan.supp:print_suppressions=0"
export LSAN_OPTIONS

# run NAME STATUS ARGS...: the command's exit status must be STATUS.
run() {
	name=$1 want=$2
	shift 2
	"$bin" "$@" >"$out/$name.log" 2>&1
	rc=$?
	if [ "$rc" != "$want" ]; then
		bad "$name: exit $rc, want $want"; sed 's/^/  /' "$out/$name.log"; return 1
	fi
	return 0
}
# has NAME TEXT: the log of NAME holds TEXT.
has() {
	if grep -qF -- "$2" "$out/$1.log"; then ok; else bad "$1: no '$2' in:"; sed 's/^/  /' "$out/$1.log"; fi
}

B=test/models/bundles
run nested 0 $B/verify_nested.yxc -o "$out/nested.onnx" --verify && has nested "8 module calls compared"
if unzip -p "$out/nested.xlsx" xl/workbook.xml | grep -q 'name="discrepancies"'; then ok; else bad "nested: no discrepancies sheet"; fi
run outbad 1 $B/verify_output_bad.yxc -o "$out/outbad.onnx" --verify && has outbad "the worst is 'mul'"
[ -f "$out/outbad.onnx" ] && ok || bad "outbad: the model is not written"
run outjson 1 $B/verify_output_bad.yxc -o "$out/outjson.onnx" --verify --diagnostics=json && has outjson '"code":"YE0801"'
run modbad 1 $B/verify_module_bad.yxc -o "$out/modbad.onnx" --verify --sarif "$out/modbad.sarif" &&
	has modbad "the first module whose outputs diverge is 'blocks.1' (Block)"
if grep -q '"ruleId":"YE0804"' "$out/modbad.sarif"; then ok; else bad "modbad: no YE0804 in the SARIF"; fi
# the module copy reads the written model back: weights in OUT.onnx.data too
printf 'verify: true\nexternal_data_threshold: 0\n' >"$out/ext.yaml"
run modext 1 $B/verify_module_bad.yxc -c "$out/ext.yaml" -o "$out/modext.onnx" &&
	has modext "the first module whose outputs diverge is 'blocks.1' (Block)"
[ -f "$out/modext.onnx.data" ] && ok || bad "modext: no external data written"
printf 'verify: true\n' >"$out/v.yaml"
# a .pt2 keeps sample inputs but no outputs of torch's: the summary says the
# output was run and checked, never that it matches (issue 31)
run pt2 0 test/models/torch-2.14/cnn.pt2 -c "$out/v.yaml" -o "$out/cnn.onnx" &&
	has pt2 "verify    ran: 0 of 1 output compared by value with torch, 1 checked"

# verify_outputs: the nested bundle's own capture as a .pt2, its outputs as raw files
mkdir -p "$out/good" "$out/worse" "$out/short"
unzip -p $B/verify_nested.yxc captures/nostrict.pt2 >"$out/nested.pt2"
unzip -p $B/verify_nested.yxc outputs/0.bin >"$out/good/0.bin"
unzip -p $B/verify_output_bad.yxc outputs/0.bin >"$out/worse/0.bin"
head -c 8 "$out/good/0.bin" >"$out/short/0.bin"
for k in good worse short; do printf 'verify: true\nverify_outputs: %s\n' "$out/$k" >"$out/$k.yaml"; done
run vo_good 0 "$out/nested.pt2" -c "$out/good.yaml" -o "$out/vo_good.onnx" && ok
run vo_worse 1 "$out/nested.pt2" -c "$out/worse.yaml" -o "$out/vo_worse.onnx" && has vo_worse "max abs error 0.5"
run vo_short 2 "$out/nested.pt2" -c "$out/short.yaml" -o "$out/vo_short.onnx" && has vo_short "8 bytes; 'mul' (float32, 6 elements) needs 24"

# no library
YOBX_ONNXRUNTIME=/nonexistent/libonnxruntime.so.1 run nolib 2 test/models/torch-2.14/cnn.pt2 -o "$out/nolib.onnx" --verify &&
	has nolib "npm package onnxruntime-node ships"
[ -e "$out/nolib.onnx" ] && bad "nolib: a model was written" || ok
printf 'verify: true\nonnxruntime_library: /nonexistent/lib.so\n' >"$out/wrong.yaml"
run wronglib 2 test/models/torch-2.14/cnn.pt2 -c "$out/wrong.yaml" -o "$out/wrong.onnx" && has wronglib "cannot load /nonexistent/lib.so (from option onnxruntime_library)"
libc=$(ldd "$bin" | awk '/libc\.so/ {print $3}')
printf 'verify: true\nonnxruntime_library: %s\n' "$libc" >"$out/libc.yaml"
run notort 2 test/models/torch-2.14/cnn.pt2 -c "$out/libc.yaml" -o "$out/notort.onnx" && has notort "not onnxruntime"

# every fixture: each must pass, except those test/verify/expected.txt lists
# (FILE, then why) as failing with exit status 1.  A fixture converts with the
# options test/run-ort.sh gives it: NAME.io/options.yaml when there is one, and
# `opset: NN` when test/ort/opsets/NN.txt lists it as +torch-VER/NAME.  A .pt2
# whose NAME.io holds torch's outputs (case0/out_K.npy) is compared with them
# value by value (`verify_outputs:`, the .npy data without its header as K.bin),
# on its own stored sample inputs; one without is checked against its signature.
ls test/models/torch-*/*.pt2 $B/*.yxc >"$out/all.txt"
# The sanitized binary runs onnxruntime several times slower (every one of its
# allocations goes through ASan's allocator): under ASan, and in the quick
# tier (SLICE above 1, make check), a sample of the fixtures covers each path
# (bundles with and without module records, stored samples, verify_outputs,
# dynamic and data-dependent sizes, control flow, functions, external data);
# the full tier (make test's plain pass) runs them all.
if [ "${SLICE:-1}" != 1 ] || nm "$bin" 2>/dev/null | grep -q __asan_init; then
	grep -E "bundles/|torch-2.14/(cnn|mlp_dyn|attention_dyn|tiny_llama|fn_resnet|nonzero|cond_dyn|while_loop|dtypes|op_custom_domain)\.pt2" \
		"$out/all.txt" >"$out/sample.txt"
	mv "$out/sample.txt" "$out/all.txt"
fi
mkdir -p "$out/all"
: >"$out/all.rc"
# shellcheck disable=SC2016
xargs -P "${JOBS:-2}" -n 1 sh -c '
	f=$2 n=$(echo "$2" | tr / _) io=${2%.*}.io id=${2#test/models/} d=$1
	id=${id%.pt2} y=$d/all/$n.yaml
	printf "verify: true\n" >"$y"
	[ -f "$io/options.yaml" ] && { cat "$io/options.yaml"; echo; } >>"$y"
	o=$(grep -lE "(^| )\+$id( |\$)" test/ort/opsets/*.txt 2>/dev/null | head -n 1)
	[ -n "$o" ] && { o=${o##*/}; printf "opset: %s\n" "${o%.txt}" >>"$y"; }
	if [ "${f%.pt2}" != "$f" ] && [ -f "$io/case0/out_0.npy" ]; then
		mkdir -p "$d/all/$n.out"
		for npy in "$io"/case0/out_*.npy; do
			k=${npy##*/out_}
			# .npy: magic, version (1 byte major), header length (2 bytes, 4 from 2.0), header
			v=$(od -An -tu1 -j6 -N1 "$npy" | tr -d " ")
			if [ "$v" = 1 ]; then hl=$(od -An -tu2 -j8 -N2 "$npy" | tr -d " "); at=$((10 + hl))
			else hl=$(od -An -tu4 -j8 -N4 "$npy" | tr -d " "); at=$((12 + hl)); fi
			tail -c +$((at + 1)) "$npy" >"$d/all/$n.out/${k%.npy}.bin"
		done
		printf "verify_outputs: %s\n" "$d/all/$n.out" >>"$y"
	fi
	"$0" "$f" -c "$y" -o "$d/all/$n.onnx" -q >"$d/all/$n.log" 2>&1
	echo "$? $f" >>"$d/all.rc"' "$bin" "$out" <"$out/all.txt"
sort -k2 "$out/all.rc" | while read -r rc f; do
	if grep -q "^$f " test/verify/expected.txt; then want=1; else want=0; fi
	if [ "$rc" = "$want" ]; then
		echo ok
	else
		echo "FAIL $f: exit $rc, want $want"
		sed 's/^/  /' "$out/all/$(echo "$f" | tr / _).log" | head -n 5
	fi
done >"$out/all.result"
n_ok=$(grep -c '^ok$' "$out/all.result")
n_bad=$(grep -c '^FAIL' "$out/all.result")
pass=$((pass + n_ok)) fail=$((fail + n_bad))
grep -v '^ok$' "$out/all.result"
echo "verify: $pass passed, $fail failed ($n_ok of $(wc -l <"$out/all.txt") fixtures as expected)"
[ "$fail" = 0 ]
