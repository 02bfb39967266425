#!/bin/sh
# run.sh: writes the sample workbooks with the report unit test (its
# "sample" case) into a private directory, checks that their bytes are the
# recorded ones (sample.sha256: libxlsxwriter 1.1.4 with Debian 12's zlib
# 1.2.13; a layout change by design re-records them with
# REPORT_UPDATE=1), then reads them back with openpyxl (check_xlsx.py).
#
#   sh test/report/run.sh [BUILD_DIR]      BUILD_DIR defaults to build
#
# REPORT_LIBREOFFICE=1 also converts the sample to PDF with LibreOffice
# headless (slow; skipped when soffice is missing).  Ends with the line
# "report: N passed, N failed" and exits 1 when anything failed.
B=${1:-build}
here=$(dirname "$0")
bin=$B/test/test_report
pass=0
fail=0
out=$(mktemp -d "${TMPDIR:-/tmp}/report-check.XXXXXX") || exit 2
trap 'rm -rf "$out"' EXIT INT TERM

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL - $*"; }

if [ ! -x "$bin" ]; then
	bad "$bin is not built"
elif REPORT_OUT_DIR=$out CK_RUN_CASE=sample "$bin" >"$out/unit.log" 2>&1; then
	ok
else
	bad "$bin (sample case)"
	cat "$out/unit.log"
fi

# The recorded bytes: each part's XML, the zip layout and, with the same
# zlib, the deflated bytes.  Another zlib may deflate differently (the files
# are still valid); unzip both and diff the parts to tell.
if [ -f "$out/report_sample.xlsx" ] && [ "${REPORT_UPDATE:-0}" = 1 ]; then
	(cd "$out" && sha256sum report_sample.xlsx report_empty.xlsx report_odd.xlsx) >"$here/sample.sha256"
elif [ -f "$out/report_sample.xlsx" ]; then
	while read -r sum name; do
		if [ "$(sha256sum <"$out/$name" | cut -d' ' -f1)" = "$sum" ]; then
			ok
		else
			bad "$name: not the recorded bytes (sample.sha256)"
		fi
	done <"$here/sample.sha256"
fi

# Debian's python3-openpyxl lives under /usr/bin/python3; a pyenv python3
# earlier on PATH usually lacks it.
py=
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import openpyxl' >/dev/null 2>&1; then
		py=$p
		break
	fi
done
if [ -z "$py" ]; then
	bad "no python3 with openpyxl (apt-get install python3-openpyxl)"
elif [ -f "$out/report_sample.xlsx" ]; then
	"$py" "$here/check_xlsx.py" "$out" >"$out/check.log" 2>&1
	n=$(grep -c '^ok - ' "$out/check.log")
	f=$(grep -c '^FAIL - ' "$out/check.log")
	pass=$((pass + n))
	fail=$((fail + f))
	grep '^FAIL - ' "$out/check.log"
	if ! grep -q '^check_xlsx: ' "$out/check.log"; then
		bad "check_xlsx.py did not finish"
		cat "$out/check.log"
	fi
fi

if [ "${REPORT_LIBREOFFICE:-0}" = 1 ] && command -v soffice >/dev/null 2>&1 &&
   [ -f "$out/report_sample.xlsx" ]; then
	if soffice -env:UserInstallation="file://$out/lo" --headless \
	     --convert-to pdf --outdir "$out" "$out/report_sample.xlsx" \
	     >"$out/lo.log" 2>&1 && [ -s "$out/report_sample.pdf" ]; then
		ok
	else
		bad "LibreOffice could not convert report_sample.xlsx"
		cat "$out/lo.log"
	fi
fi

echo "report: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
