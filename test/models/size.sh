#!/bin/sh
# size.sh [DIR [LIMIT]]: a fixture set stays under its budget, by default
# test/models and its 17,800,000 bytes (16 MB until session 6, which added
# the MoE decoders of issue 27 (641 KB), TorchScript patterns of issue 21
# (159 KB), the verification bundles of issue 22 (66 KB) and the signature
# fixture of issue 24 (37 KB); 16.5 MB until the quantized models of issue
# 32 (1.25 MB: 27 fixtures, 3 models x 10 flows, deflated; pt2e keeps the
# float parameters beside the int8 ones, and the graph JSON of a quantized
# Llama is 220 KB before deflation)); make check also runs it on
# test/conformance/data, torch's own operator samples (make_suite.py), with
# a budget of 8,000,000 bytes (issue 19: every sample of about 800 op_db and
# module_db entries, deflated, identical tensors stored once) and on
# test/onnx-node with 6,500,000 (issue 25: ONNX's node tests, deflated).
#
# Counts the bytes of every file under DIR (what a clone carries),
# not disk blocks: `du` without --apparent-size also counts the unused tail
# of each 4 KiB block, which depends on the file system, not on the set.
# Prints "fixtures (or DIR): N bytes of LIMIT" and exits 1 over budget.
dir=${1:-test/models} label=${1:-fixtures}
limit=${2:-17800000}
bytes=$(find "$dir" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
echo "$label: $bytes bytes of $limit"
[ "$bytes" -le "$limit" ] || { echo "$label: over budget by $((bytes - limit)) bytes"; exit 1; }
