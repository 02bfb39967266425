#!/bin/sh
# onnx_node.sh: how long upgrading and optimizing ONNX's node tests takes
# (issue 25: under 5 ms a case).  After `sh test/onnx-node/run.sh` has
# unpacked the cases into build/onnx-node/cases, converts each case's model
# once (report: false, default opset: older models raised to 18), one
# process after another, and prints the median, 90th percentile and worst
# wall time per case in ms, with the load average measured before.
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
	"$bin" "$c/model.onnx" -c bench/out/onnx-node/o.yaml -o bench/out/onnx-node/m.onnx --quiet >/dev/null 2>&1
	e=$(date +%s%N)
	echo "$(( (e - s) / 1000 )) $n"
done | sort -n >bench/out/onnx-node/times.txt
awk '{ t[NR] = $1 } END { printf "%d cases: median %.2f ms, p90 %.2f ms, worst %.2f ms (%s)\n", NR, t[int(NR / 2) + 1] / 1000, t[int(NR * 0.9)] / 1000, t[NR] / 1000, "bench/out/onnx-node/times.txt" }' bench/out/onnx-node/times.txt
tail -1 bench/out/onnx-node/times.txt
