#!/bin/sh
# onnx_node.sh: how long upgrading and optimizing ONNX's node tests takes
# (issue 25: under 5 ms a case).  After `sh test/onnx-node/run.sh` has
# unpacked the cases into build/onnx-node/cases, converts each case's model
# once (report: false, default opset: older models raised to 18), one
# process after another, and prints the median, 90th percentile and worst
# of the converter's own total (read, upgrade, optimize, write: the
# "total" line it prints) and of the whole process's wall time (exec and
# loading the shared libraries included) per case in ms, with the load
# average measured before.
#   BIN=build/yobx-export (default)
bin=${BIN:-build/yobx-export}
d=build/onnx-node
[ -d $d/cases ] || { echo "onnx_node.sh: run sh test/onnx-node/run.sh first" >&2; exit 2; }
mkdir -p bench/out/onnx-node
printf 'report: false\n' >bench/out/onnx-node/o.yaml
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for c in $d/cases/*/; do
	n=$(basename "$c")
	s=$(date +%s%N)
	t=$("$bin" "$c/model.onnx" -c bench/out/onnx-node/o.yaml -o bench/out/onnx-node/m.onnx 2>&1 | sed -n 's/^  total *\([0-9.]*\) s$/\1/p')
	e=$(date +%s%N)
	echo "$(( (e - s) / 1000 )) ${t:-0} $n"
done >bench/out/onnx-node/times.txt
for col in 2 1; do
	sort -k$col -g bench/out/onnx-node/times.txt | awk -v c=$col '{ t[NR] = c == 2 ? $2 * 1000 : $1 / 1000; n[NR] = $3 }
		END { printf "%-22s %d cases: median %.2f ms, p90 %.2f ms, worst %.2f ms (%s)\n",
		      c == 2 ? "in the converter:" : "whole process:", NR, t[int(NR / 2) + 1], t[int(NR * 0.9)], t[NR], n[NR] }'
done
