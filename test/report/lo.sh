#!/bin/sh
# lo.sh: opens workbooks in LibreOffice headless and prints them to PDF
# (soffice --convert-to pdf), then reads the PDFs back with poppler's
# pdfinfo and pdftotext: the report's sample (test_report's "sample" case)
# and the report of a fixture converted with its times measured.
#
# Checks that each converts; that every page begins with the whole header
# row of a sheet (the header is repeated on each page, and a sheet is
# printed one page wide: a sheet cut in two across would start a page with
# the rest of its columns); that the sample, whose sheets are short, prints
# one page per sheet, in order.
#
#   sh test/report/lo.sh [BUILD_DIR]     BUILD_DIR defaults to build
#
# Without soffice or pdfinfo it skips (exit 0), unless REPORT_LIBREOFFICE=1
# (CI installs them: .ci/deps.sh), which makes their absence a failure.
# Set LO_KEEP=DIR to keep the PDFs there.  Ends with "report-lo: N passed, N
# failed".
B=${1:-build}
bin=$B/yobx-export
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL - $*"; }

if ! command -v soffice >/dev/null 2>&1 || ! command -v pdfinfo >/dev/null 2>&1; then
	if [ "${REPORT_LIBREOFFICE:-0}" = 1 ]; then
		echo "FAIL - soffice or pdfinfo missing (apt-get install libreoffice-calc-nogui poppler-utils)"
		exit 1
	fi
	echo "report-lo: skipped (no soffice or pdfinfo)"
	exit 0
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/report-lo.XXXXXX") || exit 2
trap 'rm -rf "$out"' EXIT INT TERM

REPORT_OUT_DIR=$out CK_RUN_CASE=sample "$B/test/test_report" >"$out/unit.log" 2>&1 || bad "test_report sample case"
printf 'report_timings: true\n' >"$out/timed.yaml"
"$bin" test/models/torch-2.14/mlp.pt2 -c "$out/timed.yaml" -o "$out/mlp.onnx" --quiet || bad "convert mlp.pt2"

# One soffice for both files: its start is most of the time.
if soffice -env:UserInstallation="file://$out/profile" --headless --convert-to pdf \
     --outdir "$out" "$out/report_sample.xlsx" "$out/mlp.xlsx" >"$out/lo.log" 2>&1 &&
   [ -s "$out/report_sample.pdf" ] && [ -s "$out/mlp.pdf" ]; then
	ok
else
	bad "LibreOffice could not convert the workbooks"
	cat "$out/lo.log"
fi
[ -n "${LO_KEEP:-}" ] && mkdir -p "$LO_KEEP" && cp "$out"/*.pdf "$out"/*.xlsx "$LO_KEEP"/

# The header rows of every sheet, as pdftotext prints them (one space
# between cells once runs of spaces are squeezed).
heads='fact value note
key value
pattern removed added time_in iteration match_index instances
pattern removed added time_in instances events
op_type count flops
op_type flops share count
op_type node_name symbolic_flops flops
strategy captured converted nodes capture_seconds convert_seconds
node target frame reason
input axis dim kind torch min max why
kind name module_class dtype shape max_abs_err max_rel_err tolerance ok'

# first_line PDF PAGE: the page's first line of text, spaces squeezed
first_line() {
	pdftotext -layout -f "$2" -l "$2" "$1" - 2>/dev/null | sed 's/^ *//; s/  */ /g' | grep -m1 .
}

for pdf in "$out/report_sample.pdf" "$out/mlp.pdf"; do
	[ -s "$pdf" ] || continue
	name=$(basename "$pdf")
	pages=$(pdfinfo "$pdf" | sed -n 's/^Pages: *//p')
	cut=""
	for p in $(seq "$pages"); do
		line=$(first_line "$pdf" "$p")
		echo "$heads" | grep -qxF "$line" || cut="$cut page $p: '$line';"
	done
	if [ -z "$cut" ]; then ok; else bad "$name: pages that do not begin with a whole header row:$cut"; fi
done

if [ -s "$out/report_sample.pdf" ]; then
	got=""
	pages=$(pdfinfo "$out/report_sample.pdf" | sed -n 's/^Pages: *//p')
	for p in $(seq "$pages"); do
		got="$got$(first_line "$out/report_sample.pdf" "$p" | cut -d' ' -f1),"
	done
	want="fact,key,pattern,pattern,op_type,op_type,op_type,node,"
	if [ "$got" = "$want" ]; then ok; else bad "report_sample.pdf: one page per sheet, in order: $got (want $want)"; fi
fi

echo "report-lo: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
