#!/bin/sh
# run.sh BUILD [SAN]: hostile inputs and paths (issue 31), run from the repo root.
#
# Every case runs the converter in a fresh folder under BUILD/hostile/ with
# a 10 s timeout and, unless SAN is 1 (ASan reserves terabytes of address
# space), a 256 MiB address-space ceiling, and asserts: the exit status,
# a piece of the message, no signal, and no file left behind beyond the
# ones the case names.  The inputs are written by gen.py on the fly.
# Ends with the line "N passed, N failed".
b=${1:-build}
san=${2:-0}
bin=$(cd "$b" && pwd)/yobx-export
top=$(pwd)
work=$(pwd)/$b/hostile
pass=0 fail=0
# onnxruntime's own allocations at exit are not ours (test/verify/run.sh)
LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$top/test/verify/lsan.supp:print_suppressions=0"
export LSAN_OPTIONS
rm -rf "$work" && mkdir -p "$work/in"
python3 test/hostile/gen.py "$work/in" || { echo "gen.py failed"; echo "0 passed, 1 failed"; exit 1; }
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

# run NAME WANT_STATUS MESSAGE KEEP -- ARGS...: runs the converter with ARGS
# in $work/NAME (holding copies of the inputs the case set up in
# $work/NAME beforehand), expects exit WANT_STATUS and MESSAGE (a grep -E
# pattern; "" for none) on stderr, and that afterwards the folder holds
# only what it held before plus KEEP (a space-separated list of names).
run() {
	name=$1 want=$2 msg=$3 keep=$4; shift 5
	d=$work/$name
	mkdir -p "$d"
	before=$(cd "$d" && ls -A | sort)
	(
		cd "$d" || exit 99
		[ "$san" = 1 ] || ulimit -v 262144
		exec timeout -s KILL 10 "$bin" --quiet "$@"
	) >"$d.out" 2>"$d.err"
	got=$?
	if [ "$got" -ge 124 ]; then
		ko "$name: exit $got (signal, timeout or sanitizer): $(head -c 300 "$d.err")"
		return
	fi
	[ "$got" = "$want" ] || { ko "$name: exit $got, want $want: $(head -c 300 "$d.err")"; return; }
	if [ -n "$msg" ] && ! grep -Eq -e "$msg" "$d.err"; then
		ko "$name: message does not match /$msg/: $(head -c 300 "$d.err")"
		return
	fi
	if grep -q "Sanitizer\|runtime error:" "$d.err"; then
		ko "$name: sanitizer report: $(head -c 300 "$d.err")"
		return
	fi
	after=$(cd "$d" && ls -A | sort)
	expect=$(printf '%s\n' $before $keep | sort -u | sed '/^$/d')
	if [ "$(printf '%s\n' $after | sed '/^$/d')" != "$expect" ]; then
		ko "$name: folder holds [$(echo $after)], want [$(echo $expect)]"
		return
	fi
	ok
}

# put NAME FILE...: copies inputs of gen.py into the case's folder.
put() {
	name=$1; shift
	mkdir -p "$work/$name"
	for f; do cp "$work/in/$f" "$work/$name/"; done
}

# ---- 1a: nesting past the limit, before protobuf-c's recursive unpack ----
put deep_if deep_if.onnx
run deep_if 2 "subgraphs nest deeper than 64" "" -- deep_if.onnx -o out.onnx
put deep_bundle deep_if.yxc
run deep_bundle 1 "captures/onnxscript.onnx: subgraphs nest deeper than 64" "out.xlsx" -- deep_if.yxc -o out.onnx
put deep_type deep_type.onnx
run deep_type 2 "types .* nest deeper than 64" "" -- deep_type.onnx -o out.onnx

# ---- 1b: sizes that wrap ----
put wrap_init wrap_init.onnx
run wrap_init 2 "tensor 'w': a negative or too large dimension" "" -- wrap_init.onnx -o out.onnx
put wrap_dims wrap_dims.onnx
run wrap_dims 2 "tensor 'w': a negative or too large dimension" "" -- wrap_dims.onnx -o out.onnx

# ---- 1e: options files: aliases, size, nesting, long lists ----
for c in laughs deep biglist longlist; do put "opt_$c" ok.onnx "$c.yaml"; done
run opt_laughs 2 "laughs.yaml:1:1: the options stand for more than 20000 values" "" -- ok.onnx -c laughs.yaml -o out.onnx
run opt_deep 2 "deep.yaml:1:1: the options nest deeper than 64" "" -- ok.onnx -c deep.yaml -o out.onnx
run opt_biglist 2 "biglist.yaml: cannot read: [0-9]+ bytes, more than the 1048576" "" -- ok.onnx -c biglist.yaml -o out.onnx
run opt_longlist 0 "" "out.onnx out.xlsx" -- ok.onnx -c longlist.yaml -o out.onnx

# ---- 1f: files that are not regular files, and links out of the folder ----
put fifo_data ext.onnx
mkfifo "$work/fifo_data/data.bin"
run fifo_data 2 "external data file './data.bin': a FIFO, not a regular file" "" -- ext.onnx -o out.onnx
put fifo_input
mkfifo "$work/fifo_input/m.onnx"
run fifo_input 2 "m.onnx: cannot open \(a FIFO, not a regular file\)" "" -- m.onnx -o out.onnx
put dir_options ok.onnx
mkdir "$work/dir_options/o.yaml"
run dir_options 2 "o.yaml: cannot read: a directory, not a regular file" "" -- ok.onnx -c o.yaml -o out.onnx
put link_data ext.onnx
ln -s /etc/passwd "$work/link_data/data.bin"
run link_data 2 "location 'data.bin' leads out of the model's folder through a symbolic link" "" -- ext.onnx -o out.onnx
put link_inside ext.onnx data.bin
mv "$work/link_inside/data.bin" "$work/link_inside/real.bin"
ln -s real.bin "$work/link_inside/data.bin"
run link_inside 0 "" "out.onnx out.xlsx" -- ext.onnx -o out.onnx

# ---- 2: outputs: never over a non-regular file, an input or another output;
# exit 2 writes nothing, exit 1 what the docs say ----
put out_fifo ok.onnx
mkfifo "$work/out_fifo/m.onnx"
run out_fifo 2 "m.onnx: -o: not written: it is a FIFO" "" -- ok.onnx -o m.onnx
put out_link ok.onnx
ln -s /dev/null "$work/out_link/m.onnx"
run out_link 2 "m.onnx: -o: not written: it is a symbolic link" "" -- ok.onnx -o m.onnx
put out_dir ok.onnx
mkdir "$work/out_dir/m.onnx"
run out_dir 2 "m.onnx: -o: not written: it is a directory" "" -- ok.onnx -o m.onnx
put out_input ok.onnx
mv "$work/out_input/ok.onnx" "$work/out_input/model.onnx"
run out_input 2 "model.onnx: -o: not written: it is the input 'model.onnx'" "" -- model.onnx
put out_input2 ok.onnx
run out_input2 2 "-o: not written: it is the input" "" -- ok.onnx -o ./../out_input2/ok.onnx
put out_sarif ok.onnx
run out_sarif 2 "a.onnx: -o and --sarif name the same file" "" -- ok.onnx -o a.onnx --sarif ./a.onnx
put out_sig ok.onnx
run out_sig 2 "a.onnx: -o and --signature name the same file" "" -- ok.onnx -o a.onnx --signature a.onnx
put out_json ok.onnx
run out_json 2 "a.xlsx: the report and --diagnostics=json:FILE name the same file" "" -- ok.onnx -o a.onnx --diagnostics json:a.xlsx
put out_nosarif ok.onnx
run out_nosarif 2 "no/such/s.sarif: cannot write" "" -- ok.onnx -o a.onnx --sarif no/such/s.sarif
put out_nosig ok.onnx
run out_nosig 2 "no/such/s.json: cannot write" "" -- ok.onnx -o a.onnx --signature no/such/s.json
put out_opset6 opset6.onnx
run out_opset6 2 "opsets before 7 .* cannot be upgraded" "" -- opset6.onnx -o a.onnx
put out_badsig ok.onnx bad.json
run out_badsig 2 "bad.json:1:2: unterminated string" "" -- ok.onnx -o a.onnx --expect-signature bad.json
put out_sigfifo ok.onnx
mkfifo "$work/out_sigfifo/gold.json"
run out_sigfifo 2 "gold.json: cannot read: a FIFO, not a regular file" "" -- ok.onnx -o a.onnx --expect-signature gold.json
put out_zero ok.onnx
run out_zero 2 "/dev/zero: cannot read: a character device" "" -- ok.onnx -o a.onnx --expect-signature /dev/zero
put out_sarif_kept ok.onnx
run out_sarif_kept 2 "bad.yaml: cannot read" "s.sarif" -- ok.onnx -c bad.yaml -o a.onnx --sarif s.sarif
put out_changed dyn.onnx gold.json
run out_changed 1 "gold.json: input 'x' axis 0: was fixed at 2, now symbolic 'n'" "a.onnx a.xlsx" -- dyn.onnx -o a.onnx --expect-signature gold.json
put out_ok ok.onnx
run out_ok 0 "" "a.onnx a.xlsx s.sarif s.json d.json" -- ok.onnx -o a.onnx --sarif s.sarif --signature s.json --diagnostics json:d.json
if [ -n "${YOBX_ONNXRUNTIME:-}" ] || [ -f node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1 ]; then
	YOBX_ONNXRUNTIME=${YOBX_ONNXRUNTIME:-$top/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1}
	export YOBX_ONNXRUNTIME
	put verify_dyn dyn.onnx
	run verify_dyn 2 "input 'x' has a dynamic size at axis 0" "" -- dyn.onnx -o a.onnx --verify
	put verify_fifo ok.onnx
	mkfifo "$work/verify_fifo/lib.so"
	printf 'onnxruntime_library: ./lib.so\n' >"$work/verify_fifo/o.yaml"
	run verify_fifo 2 "cannot load ./lib.so .*: a FIFO, not a regular file" "" -- ok.onnx -c o.yaml -o a.onnx --verify
	mkdir -p "$work/verify_huge"
	printf 'inputs:\n  - {dtype: float32, shape: [1099511627776]}\n' >"$work/verify_huge/o.yaml"
	cp test/hostile/data/ts_ints.pt "$work/verify_huge/"
	run verify_huge 2 "input 'x': its shape holds more than the 1024 MiB of values --verify makes up" "" -- ts_ints.pt -c o.yaml -o a.onnx --verify
	# 4: "match" only when values were compared: an ONNX model has no torch values
	mkdir -p "$work/verify_said" && cp "$work/in/ok.onnx" "$work/verify_said/"
	(cd "$work/verify_said" && timeout 10 "$bin" ok.onnx -o a.onnx --verify) 2>"$work/verify_said.err"
	if grep -q "verify    ran: 0 of 1 output compared by value with torch, 1 checked" "$work/verify_said.err" &&
	   ! grep -q "match" "$work/verify_said.err"; then ok; else ko "verify_said: $(cat "$work/verify_said.err")"; fi
fi

# ---- classes that held: traversal, pickle globals, mutants ----
put ext_dotdot ext_dotdot.onnx
run ext_dotdot 2 "location '../data.bin' is not a plain path inside the model's folder" "" -- ext_dotdot.onnx -o a.onnx
put ext_abs ext_abs.onnx
run ext_abs 2 "location '/etc/passwd' is not a plain path inside the model's folder" "" -- ext_abs.onnx -o a.onnx
put ts_global ts_global.pt
cp test/hostile/data/x3.yaml "$work/ts_global/"
run ts_global 2 "global 'os.system' is not one torch.jit.save writes" "" -- ts_global.pt -c x3.yaml -o a.onnx
put ts_deep ts_deep.pt
cp test/hostile/data/x3.yaml "$work/ts_deep/"
run ts_deep 2 "ts_deep.pt:ts_ints/data.pkl: objects nested too deeply" "" -- ts_deep.pt -c x3.yaml -o a.onnx
# mutants and truncations of ok.onnx: exit 0 (model and report), 1 (the
# report alone) or 2 (nothing), within the limits, never a signal
mkdir -p "$work/mutants"
bad=0
for f in "$work"/in/mut_*.onnx "$work"/in/cut_*.onnx; do
	rm -f "$work/mutants"/*
	cp "$f" "$work/mutants/m.onnx"
	(cd "$work/mutants" && { [ "$san" = 1 ] || ulimit -v 262144; } && exec timeout -s KILL 10 "$bin" --quiet m.onnx -o a.onnx) \
		>/dev/null 2>"$work/mutants.err"
	got=$?
	left=$(cd "$work/mutants" && ls | grep -v '^m.onnx$' | tr '\n' ' ')
	case "$got:$left" in
	"0:a.onnx a.xlsx "|"1:a.xlsx "|"2:") ;;
	*) bad=$((bad + 1)); echo "FAIL: mutant $(basename "$f"): exit $got, left [$left]: $(head -c 200 "$work/mutants.err")" ;;
	esac
	grep -q "Sanitizer\|runtime error:" "$work/mutants.err" && { bad=$((bad + 1)); echo "FAIL: mutant $(basename "$f"): sanitizer"; }
done
[ "$bad" = 0 ] && ok || fail=$((fail + 1))

# ---- 1c, 1d: TorchScript names and ints (archives made by make_ts.py) ----
ts() {   # ts NAME: copies data/NAME.pt and the options x3.yaml into the case
	mkdir -p "$work/$1"
	cp "test/hostile/data/$1.pt" test/hostile/data/x3.yaml "$work/$1/"
}
# value CASE EXPECTED...: the case's out.onnx computes EXPECTED from x = 1
value() {
	c=$1; shift
	node test/hostile/value.mjs "$work/$c/out.onnx" "$@" && ok || ko "$c: values"
}
ts ts_names
run ts_names 0 "" "out.onnx" -- ts_names.pt -c x3.yaml -o out.onnx
value ts_names 1025 1025 1025
ts ts_ints
run ts_ints 0 "" "out.onnx" -- ts_ints.pt -c x3.yaml -o out.onnx
value ts_ints 5 5 5
ts ts_divzero
run ts_divzero 2 "ts_divzero.pt:code/.*self.a // self.z.*integer division by zero" "" -- ts_divzero.pt -c x3.yaml -o out.onnx

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
