#!/bin/sh
# latency.sh: onnxruntime latency of our ONNX against torch.onnx dynamo's for
# each fixture (issue 14: never slower).  Converts each DIR/NAME.pt2 with our
# binary at `opset: OPSET` into bench/out/nodes/oOPSET/ours/NAME.onnx, takes
# dynamo's from .../dynamo/NAME.onnx (made by bench/dynamo_nodes.sh, which is
# run first for the fixtures that lack one), and runs bench/latency.mjs:
# onnxruntime-node, intraOpNumThreads 1, interOpNumThreads 1, case0's inputs,
# RUNS interleaved runs of each (default 200), the medians, ours/dynamo.
# A fixture one of the two exporters fails is left out.
#
# Usage: sh bench/latency.sh [NAME...]   (from the repo root, after make)
#   BIN, OPSET, DIR as for bench/dynamo_nodes.sh; RUNS=200
set -e
bin=${BIN:-build/yobx-export}
opset=${OPSET:-18}
dir=${DIR:-test/models/torch-2.14}
runs=${RUNS:-200}
out=bench/out/nodes/o$opset
mkdir -p $out/ours $out/dynamo
if [ $# = 0 ]; then
	set --
	for f in "$dir"/*.pt2; do n=${f##*/}; set -- "$@" "${n%.pt2}"; done
fi
missing=
for n; do
	[ -f $out/dynamo/$n.onnx ] || [ -f $out/dynamo/$n.fail ] || missing="$missing $n"
done
# shellcheck disable=SC2086 # the names
[ -z "$missing" ] || BIN=$bin OPSET=$opset DIR=$dir sh bench/dynamo_nodes.sh $missing >/dev/null
printf 'opset: %s\nreport: false\n' "$opset" >$out/opts.yaml
tab=$(printf '\t')
for n; do
	f=$dir/$n.pt2 io=$dir/$n.io c=$out/opts.yaml
	[ -f $out/dynamo/$n.onnx ] && [ -d "$io" ] || continue
	if [ -f "$io/options.yaml" ]; then
		c=$out/ours/$n.yaml
		cat "$io/options.yaml" $out/opts.yaml >"$c"
	fi
	rm -f $out/ours/$n.onnx $out/ours/$n.onnx.data
	"$bin" "$f" -c "$c" -o $out/ours/$n.onnx --quiet >$out/ours/$n.log 2>&1 || continue
	echo "$n$tab$out/ours/$n.onnx$tab$out/dynamo/$n.onnx$tab$io"
done >$out/latency.jobs
uptime
node bench/latency.mjs "$runs" $out/latency.jobs
