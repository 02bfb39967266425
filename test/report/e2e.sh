#!/bin/sh
# e2e.sh: the report as yobx-export writes it, end to end, run from the
# repo root.
#
#   sh test/report/e2e.sh [BUILD_DIR]      BUILD_DIR defaults to build
#
#  - converts fixtures with an options file and checks every sheet, column
#    and a few values of OUT.xlsx against OUT.onnx (check_e2e.py reads both;
#    onnxwire.py parses the ONNX file itself);
#  - a conversion that fails on unknown ops (mkbad.py renames two targets of
#    mlp.pt2) exits 1, writes no ONNX file and writes the unsupported sheet;
#  - report: false writes no workbook;
#  - report_timings: false gives byte-identical workbooks across two runs;
#  - the stderr summary: present and short by default, absent with --quiet.
# KEEP=1 keeps the scratch directory (under $TMPDIR) for a look afterwards.
# Speed: openpyxl takes longer to import than most checks take, so one
# check_e2e.py run checks every workbook at the end; mkbad.py runs in the
# background, and the second a byte-identity pair waits between its runs
# is spent on the other checks.
# Ends with the line "report-e2e: N passed, N failed"; exits 1 on a failure.
B=${1:-build}
bin=$B/yobx-export
here=$(dirname "$0")
models=test/models/torch-2.14
pass=0
fail=0
out=$(mktemp -d "${TMPDIR:-/tmp}/report-e2e.XXXXXX") || exit 2
[ -n "$KEEP" ] || trap 'rm -rf "$out"' EXIT INT TERM

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL - $*"; }
expect() {   # description, then a command that must succeed
	what=$1; shift
	if "$@"; then ok; else bad "$what"; fi
}

# Debian's python3-openpyxl lives under /usr/bin/python3; a pyenv python3
# earlier on PATH usually lacks it.
py=
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import openpyxl' >/dev/null 2>&1; then
		py=$p
		break
	fi
done

# Counts the ok/FAIL lines of the checker run into pass/fail.
tally() {   # log file
	n=$(grep -c '^ok - ' "$1")
	f=$(grep -c '^FAIL - ' "$1")
	pass=$((pass + n))
	fail=$((fail + f))
	grep '^FAIL - ' "$1"
	grep -q '^check_e2e: ' "$1" || bad "check_e2e.py did not finish: $(tail -n 3 "$1")"
}

if [ ! -x "$bin" ]; then
	bad "$bin is not built"
elif [ -z "$py" ]; then
	bad "no python3 with openpyxl (apt-get install python3-openpyxl)"
else
	# The checker's jobs, gathered here, run at the end in one process.
	set --
	python3 "$here/mkbad.py" "$models/mlp.pt2" "$out/bad.pt2" >"$out/mkbad.log" 2>&1 &
	mkbad=$!

	# report_timings: false gives the same bytes twice, a second apart (so a
	# clock in the file would show); times are 0.  The first runs here, the
	# second ones once the other checks have used up the second.
	printf 'report_timings: false\nopset: 18\n' >"$out/det.yaml"
	for name in attention mlp_dyn; do
		"$bin" "$models/$name.pt2" -c "$out/det.yaml" -o "$out/det-$name.onnx" --quiet &&
			mv "$out/det-$name.xlsx" "$out/det1-$name.xlsx"
		echo $? >"$out/det-$name.rc"
	done
	sleep 1 &
	pause=$!

	# Converted fixtures, the time cells measured.  The threshold puts the
	# larger weights in external data, which the byte count must follow.
	printf 'opset: 18\nexternal_data_threshold: 1024\nreport_timings: true\n' >"$out/opts.yaml"
	for name in mlp cnn mlp_dyn attention; do
		rm -f "$out/$name.onnx" "$out/$name.xlsx"
		if "$bin" "$models/$name.pt2" -c "$out/opts.yaml" -o "$out/$name.onnx" \
		     >"$out/$name.out" 2>"$out/$name.err"; then
			ok
		else
			bad "$name: exit $?: $(cat "$out/$name.err")"
			continue
		fi
		expect "$name: OUT.xlsx beside OUT.onnx" test -f "$out/$name.xlsx"
		expect "$name: nothing on stdout" test ! -s "$out/$name.out"
		set -- "$@" -- ok "$out/$name.onnx" "$out/$name.xlsx" "$models/$name.io" timed
	done

	# Modules as functions: the functions sheet against the FunctionProtos.
	for name in fn_resnet fn_llama; do
		{ cat "$models/$name.io/options.yaml"; printf 'opset: 18\n'; } >"$out/$name-fn.yaml"
		if "$bin" "$models/$name.pt2" -c "$out/$name-fn.yaml" -o "$out/$name-fn.onnx" --quiet; then
			ok
			set -- "$@" -- functions "$out/$name-fn.onnx" "$out/$name-fn.xlsx"
		else
			bad "$name with its functions: exit $?"
		fi
	done

	# The summary: names the phases, fits on a screen.
	err=$out/attention.err
	expect "summary names every phase" grep -q 'read.*s$' "$err"
	for ph in lower optimize write report total nodes flops; do
		expect "summary has '$ph'" grep -q "^  $ph " "$err"
	done
	expect "summary under 20 lines" test "$(wc -l <"$err")" -lt 20
	"$bin" "$models/mlp.pt2" -c "$out/opts.yaml" -o "$out/quiet.onnx" --quiet >"$out/quiet.out" 2>&1
	expect "--quiet: exit 0" test $? = 0
	expect "--quiet: nothing printed" test ! -s "$out/quiet.out"
	expect "--quiet: report still written" test -f "$out/quiet.xlsx"

	# A failing conversion: unsupported sheet, no ONNX file, exit 1.
	if wait $mkbad; then
		"$bin" "$out/bad.pt2" -c "$out/opts.yaml" -o "$out/bad.onnx" >"$out/bad.out" 2>"$out/bad.err"
		expect "unsupported: exit 1" test $? = 1
		expect "unsupported: no ONNX file" test ! -e "$out/bad.onnx"
		expect "unsupported: no external data file" test ! -e "$out/bad.onnx.data"
		expect "unsupported: message names the node" grep -q "node 'relu' (aten.yobx_unknown_relu.default)" "$out/bad.err"
		expect "unsupported: summary names the report" grep -q "report .*bad.xlsx" "$out/bad.err"
		if [ -f "$out/bad.xlsx" ]; then
			ok
			set -- "$@" -- failed "$out/bad.xlsx" relu:aten.yobx_unknown_relu.default \
				linear_1:aten.yobx_unknown_linear.default
		else
			bad "unsupported: no bad.xlsx"
		fi
	else
		cat "$out/mkbad.log"
		bad "mkbad.py failed"
	fi

	# report: false writes no workbook (and the ONNX file as usual).
	printf 'report: false\n' >"$out/noreport.yaml"
	"$bin" "$models/mlp.pt2" -c "$out/noreport.yaml" -o "$out/noreport.onnx" --quiet
	expect "report false: exit 0" test $? = 0
	expect "report false: ONNX written" test -s "$out/noreport.onnx"
	expect "report false: no xlsx" test ! -e "$out/noreport.xlsx"
	"$bin" "$out/bad.pt2" -c "$out/noreport.yaml" -o "$out/noreport_bad.onnx" --quiet 2>/dev/null
	expect "report false, failing: exit 1" test $? = 1
	expect "report false, failing: no xlsx" test ! -e "$out/noreport_bad.xlsx"

	# with report_timings: true the files differ (the times are real) ...
	"$bin" "$models/attention.pt2" -c "$out/opts.yaml" -o "$out/t.onnx" --quiet && mv "$out/t.xlsx" "$out/t1.xlsx" &&
		"$bin" "$models/attention.pt2" -c "$out/opts.yaml" -o "$out/t.onnx" --quiet
	expect "report_timings true: the times differ between runs" sh -c "! cmp -s '$out/t1.xlsx' '$out/t.xlsx'"
	# ... and with no options at all the report is byte-identical (the default)
	"$bin" "$models/attention.pt2" -o "$out/d.onnx" --quiet && mv "$out/d.xlsx" "$out/d1.xlsx" &&
		"$bin" "$models/attention.pt2" -o "$out/d.onnx" --quiet
	expect "default options: byte-identical workbooks" cmp -s "$out/d1.xlsx" "$out/d.xlsx"

	# The report path: the extension replaced, or .xlsx appended.
	"$bin" "$models/mlp.pt2" -o "$out/noext" --quiet
	expect "no extension: OUT.xlsx appended" test -f "$out/noext.xlsx"

	# The second runs of the report_timings: false pairs.
	wait $pause
	for name in attention mlp_dyn; do
		[ "$(cat "$out/det-$name.rc")" = 0 ] &&
			"$bin" "$models/$name.pt2" -c "$out/det.yaml" -o "$out/det-$name.onnx" --quiet
		expect "$name: deterministic runs exit 0" test $? = 0
		expect "$name: report_timings false: byte-identical workbooks" cmp -s "$out/det1-$name.xlsx" "$out/det-$name.xlsx"
		set -- "$@" -- ok "$out/det-$name.onnx" "$out/det-$name.xlsx" "$models/$name.io" zero
	done

	if [ $# -gt 0 ]; then
		"$py" "$here/check_e2e.py" "$@" >"$out/check.log" 2>&1
		tally "$out/check.log"
	fi
fi

echo "report-e2e: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
