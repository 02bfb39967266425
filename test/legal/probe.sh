#!/bin/sh
# probe.sh: which element types onnxruntime-node's CPU provider loads a
# one-node model for, per operator, at opsets 18 and 23; writes
# lib/onnx/ortprobe.txt, which lib/onnx/optypes.py reads beside the kernel
# list (ortkernels.txt) where the two disagree.  Needs the torch chroot
# (for onnx) and node_modules/onnxruntime-node; run from the repo root:
#
#   sh test/legal/probe.sh && ../shared/tools/torch-env.sh run sid python3 /src/lib/onnx/optypes.py >lib/onnx/optypes.def
set -e
out=build/probe
rm -rf "$out"
${TORCH_ENV:-../shared/tools/torch-env.sh} run sid python3 /src/test/legal/probe_models.py /src/$out >/dev/null
{
	echo "# ortprobe.txt: written by test/legal/probe.sh; do not edit.  One line per"
	echo "# one-node model loaded in onnxruntime-node $(node -p "require('onnxruntime-node/package.json').version") (CPU):"
	echo "# OP OPSET TYPE-PARAMETERS TYPE kernel|none (its first type parameter at TYPE;"
	echo "# the model's other type parameters at float, else their first type).  Models"
	echo "# refused for another reason (a required attribute) are left out."
	node test/legal/probe.mjs "$out" | grep -v ' other$'
} >lib/onnx/ortprobe.txt
