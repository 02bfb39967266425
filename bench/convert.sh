#!/bin/sh
# convert.sh: conversion time and peak memory, for the fixtures and for
# generated models: deep MLPs (1024/4096/8192 Linear+ReLU layers: time must
# grow linearly with nodes), a 1 GiB Linear stack and a 1 GiB Llama-style
# decoder (weights written at >= 1 GB/s, memory well under the weights).
# Makes the generated files with the torch chroot the first time.
# Usage: sh bench/convert.sh   (from the repo root, after make)
set -e
bin=${BIN:-build/yobx-export}
out=bench/out
mkdir -p $out
env_sh=../shared/tools/torch-env.sh
for n in 50 1024 4096 8192; do
	[ -f $out/deep-$n.pt2 ] || bash $env_sh run sid python3 /src/bench/make_deep.py /src/$out/deep-$n.pt2 $n
done
[ -f $out/big-2.14.pt2 ] || bash $env_sh run sid python3 /src/bench/make_deep.py /src/$out/big-2.14.pt2 16 4096
[ -f $out/llama-1g.pt2 ] || bash $env_sh run sid python3 /src/bench/make_llama.py /src/$out/llama-1g.pt2

# best of N runs: prints "ms peakMiB" (bench/timeit.c: wall time from fork to
# exit, peak RSS from wait4); OPTS (e.g. "-c FILE") go to the converter
gcc -std=c11 -O2 -Wall -Wextra -Werror -o $out/timeit bench/timeit.c
measure() {
	rm -f $out/m.onnx $out/m.onnx.data $out/m.xlsx
	$out/timeit "$2" $bin "$1" $OPTS -o $out/m.onnx --quiet
}

printf '%-44s %8s %10s %12s\n' model nodes "time ms" "peak MiB"
# 100 nodes, the whole process (start-up, reading, writing, fsync): with the
# report, and without it (bench/ratio.sh compares both with a dd copy)
printf 'report: false\n' >$out/noreport.yaml
f=$out/deep-50.pt2
printf '%-44s %8s %10s %12s\n' "$f" 100 $(measure "$f" 20)
printf '%-44s %8s %10s %12s\n' "$f (report: false)" 100 $(OPTS="-c $out/noreport.yaml" measure "$f" 20)
for f in test/models/torch-2.14/*.pt2; do
	nodes=$($bin "$f" --print | grep -c ' = ' || true)
	printf '%-44s %8s %10s %12s\n' "$f" "$nodes" $(measure "$f" 5)
done
for n in 1024 4096 8192; do
	f=$out/deep-$n.pt2
	printf '%-44s %8s %10s %12s\n' "$f" "$((2 * n))" $(measure "$f" 3)
done
for f in $out/big-2.14.pt2 $out/llama-1g.pt2; do
	r=$(measure "$f" 3)
	set -- $r
	bytes=$(stat -c %s "$f")
	gbs=$(echo "scale=2; $bytes / ($1 * 1000000)" | bc 2>/dev/null || echo "?")
	printf '%-44s %8s %10s %12s   %s GB/s of input\n' "$f" "-" "$1" "$2" "$gbs"
done
