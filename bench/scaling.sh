#!/bin/sh
# scaling.sh: does conversion cost grow linearly with the number of nodes?
# Counts the instructions (valgrind's callgrind, so the answer does not
# depend on what else the machine is doing) of whole conversions of the deep
# MLPs of make_deep.py at 1024, 2048 and 4096 layers (2 nodes each), report
# on, and per phase.  A quadratic pass shows as a ratio near 4 per doubling;
# linear work gives 2 (fixed costs make it a little less).
# Usage: sh bench/scaling.sh [LAYERS...]   (from the repo root, after make;
# ~1 min per 1,000 layers)
set -e
bin=${BIN:-build/yobx-export}
out=bench/out
mkdir -p $out
sizes=${*:-1024 2048 4096}
for n in $sizes; do
	[ -f $out/deep-$n.pt2 ] || bash ../shared/tools/torch-env.sh run sid python3 /src/bench/make_deep.py /src/$out/deep-$n.pt2 "$n"
done
# the inclusive instruction count of FUNCTION in a callgrind output file
incl() {
	callgrind_annotate --inclusive=yes "$1" 2>/dev/null |
		awk -v f="$2" '$0 ~ ":" f " \\[" { gsub(",", "", $1); print $1; exit }'
}
printf '%-8s %8s %14s %7s %12s %12s %12s %12s %12s\n' layers nodes instructions ratio read lower optimize write report
prev=""
for n in $sizes; do
	cg=$out/callgrind.$n
	valgrind --tool=callgrind --callgrind-out-file=$cg "$bin" $out/deep-$n.pt2 -o $out/scaling.onnx --quiet >/dev/null 2>&1
	total=$(awk '/^summary:/ { print $2 }' $cg)
	ratio="-"
	[ -n "$prev" ] && ratio=$(echo "scale=2; $total / $prev" | bc)
	printf '%-8s %8s %14s %7s %12s %12s %12s %12s %12s\n' "$n" "$((2 * n))" "$total" "$ratio" \
		"$(incl $cg pipeline_read)" "$(incl $cg lower_program)" "$(incl $cg opt_model)" \
		"$(incl $cg onnx_write)" "$(incl $cg report_write)"
	prev=$total
done
