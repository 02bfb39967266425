#!/bin/sh
# dynamo_nodes.sh: node counts of our ONNX against torch.onnx's dynamo
# exporter for every torch-2.14 fixture (issue 14: never more nodes than it).
# Converts each test/models/torch-2.14/NAME.pt2 with our binary at `opset:
# OPSET` (with the fixture's own options.yaml, if any) into
# bench/out/nodes/oOPSET/ours/NAME.onnx, then runs bench/dynamo_nodes.py in the
# torch 2.14 chroot, which exports the same .pt2 with torch.onnx.export(ep,
# dynamo=True, optimize=True, opset_version=OPSET) into .../dynamo/NAME.onnx
# (kept between runs: FORCE=1 remakes them; the first run takes about ten
# minutes) and prints the table: fixture, our nodes, theirs, the difference,
# and the op types whose counts differ.  Nothing of theirs is committed
# (bench/out is ignored).
#
# Usage: sh bench/dynamo_nodes.sh [NAME...]   (from the repo root, after make)
#   BIN=path/to/yobx-export  OPSET=18 (default; dynamo's own default is 20)
#   DIR=test/models/torch-2.14 (default) where NAME.pt2 are; bench/out/hf holds
#       the transformers models of bench/make_hf.py (DeBERTa-v2, 2-layer Mistral)
#   TORCHRUN="cmd"  how to run a command in the sid chroot with this checkout at
#                   /src (default: bash ../shared/tools/torch-env.sh run sid)
set -e
bin=${BIN:-build/yobx-export}
opset=${OPSET:-18}
dir=${DIR:-test/models/torch-2.14}
out=bench/out/nodes/o$opset
TORCHRUN=${TORCHRUN:-bash ../shared/tools/torch-env.sh run sid}
mkdir -p $out/ours $out/dynamo
printf 'opset: %s\nreport: false\n' "$opset" >$out/opts.yaml
if [ $# = 0 ]; then
	set -- "$dir"/*.pt2
else
	for n; do shift; set -- "$@" "$dir/$n.pt2"; done
fi
for f; do
	name=${f##*/} name=${name%.pt2} io=${f%.pt2}.io
	c=$out/opts.yaml
	if [ -f "$io/options.yaml" ]; then
		c=$out/ours/$name.yaml
		# `functions:` keeps modules as ONNX functions, whose bodies take
		# their weights as inputs (nothing folds into them); dynamo has no
		# such request and inlines: both are compared inlined.
		grep -v '^function' "$io/options.yaml" | cat - $out/opts.yaml >"$c"
	fi
	rm -f $out/ours/$name.onnx $out/ours/$name.onnx.data
	"$bin" "$f" -c "$c" -o $out/ours/$name.onnx --quiet >$out/ours/$name.log 2>&1 ||
		rm -f $out/ours/$name.onnx
done
set -- $(for f; do echo /src/$f; done)
# shellcheck disable=SC2086 # TORCHRUN is a command and its arguments
$TORCHRUN env PYTHONPATH=${PYEXTRA:-/src/bench/out/py/onnxscript:/src/bench/out/py/ir-py/src} python3 /src/bench/dynamo_nodes.py \
	"$opset" /src/$out/ours /src/$out/dynamo "$@" 2>$out/dynamo.log
