#!/bin/sh
# test/jit/models.sh [BINARY [NAME...]]: real-size TorchScript models, run from the repo root.
#
# The models users have are too big to commit: torchvision resnet18 and
# mobilenet_v3_small, a bert-base-sized BertModel and a GPT-2-sized
# GPT2LMHeadModel, all with random weights, each traced and traced+frozen
# (make_jit.py's "real size" fixtures; NAME picks some, e.g. resnet18_trace
# or bert_base). This script has make_jit.py write them with torch 2.14 into
# $JIT_MODELS (default build/jit-models: a path relative to the repo root,
# since the torch chroot sees only the worktree, at /src; about 2 GB for all),
# then converts each with its options.yaml
# (as is and with `patterns: none`) and compares both with torch in
# onnxruntime (test/ort/run.mjs). Conversions and checks run one at a time:
# the models are large.
#
# Needs the torch chroot, like test/capture/run.sh; not part of `make check`.
# TORCHRUN is the command that runs a command in the sid chroot with the
# worktree at /src (default: bash ../shared/tools/torch-env.sh run sid, which
# mounts the calling checkout or worktree there).
# Ends with the line "jit models: N passed, N failed"; exits 1 when something failed.
bin=${1:-build/yobx-export}
[ $# -gt 0 ] && shift
dir=${JIT_MODELS:-build/jit-models}
torchrun=${TORCHRUN:-bash ../shared/tools/torch-env.sh run sid}
names=${*:-resnet18 mobilenet_v3_small bert_base gpt2_base}
pass=0 fail=0

mkdir -p "$dir"
# shellcheck disable=SC2086 # TORCHRUN and the names are word lists
$torchrun python3 /src/test/models/jit/make_jit.py "/src/$dir" $names || {
	echo "jit/models.sh: make_jit.py failed"; echo "jit models: 0 passed, 1 failed"; exit 1; }
printf 'report: false\n' >"$dir/report.yaml"
printf 'report: false\npatterns: none\n' >"$dir/none.yaml"
for pt in "$dir"/*.pt; do
	name=${pt##*/} name=${name%.pt}
	case " $names " in *" $name "*|*" ${name%_*} "*) ;; *) continue ;; esac
	io=$dir/$name.io stem=$dir/out-$name
	cat "$io/options.yaml" "$dir/report.yaml" >"$stem.yaml"
	cat "$io/options.yaml" "$dir/none.yaml" >"$stem-none.yaml"
	start=$(date +%s)
	if "$bin" "$pt" -c "$stem.yaml" -o "$stem.onnx" >"$stem.log" 2>&1 &&
		"$bin" "$pt" -c "$stem-none.yaml" -o "$stem-none.onnx" >>"$stem.log" 2>&1; then
		secs=$(($(date +%s) - start))
		if node test/ort/run.mjs "$stem.onnx" "$stem-none.onnx" "$io" >"$stem.ort" 2>&1; then
			pass=$((pass + 1))
			echo "$name: ok ($(wc -c <"$pt") B, two conversions in ${secs} s), $(tail -n 1 "$stem.ort")"
		else
			fail=$((fail + 1)); echo "FAIL $name:"; sed 's/^/  /' "$stem.ort"
		fi
	else
		fail=$((fail + 1)); echo "FAIL $name: conversion failed:"; head -n 20 "$stem.log" | sed 's/^/  /'
	fi
done
echo "jit models: $pass passed, $fail failed"
[ "$fail" = 0 ]
