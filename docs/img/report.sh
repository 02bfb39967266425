#!/bin/sh
# report.sh: renders the pictures of docs/report.md from the report of a
# fixture (hf_gpt2.pt2, times measured): LibreOffice headless prints the
# workbook to PDF, pdftoppm makes one PNG per page, and Pillow crops each to
# its content and stores it with a 64-colour palette (each under 60 KB).
#   sh docs/img/report.sh [BUILD_DIR]      (from the repo root, after make)
set -eu
B=${1:-build}
out=$(mktemp -d "${TMPDIR:-/tmp}/report-img.XXXXXX")
trap 'rm -rf "$out"' EXIT INT TERM
printf 'report_timings: true\n' >"$out/timed.yaml"
"$B/yobx-export" test/models/torch-2.14/hf_gpt2.pt2 -c "$out/timed.yaml" -o "$out/gpt2.onnx" --quiet
soffice -env:UserInstallation="file://$out/profile" --headless --convert-to pdf \
	--outdir "$out" "$out/gpt2.xlsx" >/dev/null 2>&1
pdftoppm -r 80 -png "$out/gpt2.pdf" "$out/page"
# the first page of each sheet, by its header
for png in "$out"/page-*.png; do
	n=$(basename "$png" .png | sed 's/^page-0*//')
	head=$(pdftotext -layout -f "$n" -l "$n" "$out/gpt2.pdf" - | sed 's/^ *//; s/  */ /g' | grep -m1 .)
	case $head in
	"fact value note") name=overview ;;
	"pattern removed added time_in instances events") name=stats_agg ;;
	"op_type count flops") name=node_stats ;;
	"op_type flops share count") name=flops_by_op ;;
	*) continue ;;
	esac
	[ -f "$out/$name.png" ] || cp "$png" "$out/$name.png"
done
/usr/bin/python3 - "$out" docs/img <<'PY'
import sys
from PIL import Image, ImageChops
src, dst = sys.argv[1], sys.argv[2]
for name in ("overview", "stats_agg", "node_stats", "flops_by_op"):
    im = Image.open("%s/%s.png" % (src, name)).convert("RGB")
    box = ImageChops.difference(im, Image.new("RGB", im.size, "white")).getbbox()
    im = im.crop((max(box[0] - 8, 0), max(box[1] - 8, 0), box[2] + 8, box[3] + 8))
    im.quantize(64).save("%s/report-%s.png" % (dst, name), optimize=True)
PY
ls -l docs/img/report-*.png
