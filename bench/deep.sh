#!/bin/sh
# deep.sh: deep graphs against the floor.  For the MLPs of make_deep.py at
# 1024, 4096 and 8192 Linear+ReLU layers (2 nodes each; issue 14's target
# is the 8,192-layer one in <= 2x its copy and <= 64 MiB peak RSS), prints
# the best wall time of copying the .pt2 with dd conv=fsync (the floor: we
# fsync too), the best time of converting it with the default options and
# with `report: false`, each as a ratio of the copy, and the peak RSS of
# each (bench/timeit.c: best of RUNS, largest ru_maxrss), then the peak at
# the end of each phase (the converter's summary; issue 34's target: the
# 8,192-layer MLP in <= 2x its copy at <= 64 MiB).  Wall times on a
# shared machine are noise: the load average is printed first, and
# bench/scaling.sh counts instructions instead.
# Usage: sh bench/deep.sh [LAYERS...]   (from the repo root, after make;
# RUNS=5 by default; BIN overrides the converter)
set -e
bin=${BIN:-build/yobx-export}
runs=${RUNS:-5}
out=bench/out
mkdir -p $out
sizes=${*:-1024 4096 8192}
for n in $sizes; do
	[ -f $out/deep-$n.pt2 ] || bash ../shared/tools/torch-env.sh run sid python3 /src/bench/make_deep.py /src/$out/deep-$n.pt2 "$n"
done
gcc -std=c11 -O2 -Wall -Wextra -Werror -o $out/timeit bench/timeit.c
printf 'report: false\n' >$out/noreport.yaml
echo "load: $(uptime | sed 's/.*load average: //')   best of $runs"
printf '%-7s %7s %9s %10s %6s %9s %10s %6s %9s\n' layers MiB "copy ms" "conv ms" ratio "peak MiB" \
	"noreport" ratio "peak MiB"
for n in $sizes; do
	f=$out/deep-$n.pt2
	set -- $($out/timeit "$runs" dd if="$f" of=$out/deep-copy.pt2 bs=1M conv=fsync)
	copy=$1
	rm -f $out/deep.onnx $out/deep.xlsx
	set -- $($out/timeit "$runs" "$bin" "$f" -o $out/deep.onnx --quiet)
	conv=$1 peak=$2
	rm -f $out/deep.onnx $out/deep.xlsx
	set -- $($out/timeit "$runs" "$bin" "$f" -c $out/noreport.yaml -o $out/deep.onnx --quiet)
	printf '%-7s %7s %9s %10s %6s %9s %10s %6s %9s\n' "$n" "$(($(stat -c %s "$f") >> 20))" "$copy" \
		"$conv" "$(echo "scale=2; $conv / $copy" | bc)" "$peak" \
		"$1" "$(echo "scale=2; $1 / $copy" | bc)" "$2"
done
echo "peak resident memory at the end of each phase (MiB; default options):"
for n in $sizes; do
	"$bin" $out/deep-$n.pt2 -o $out/deep.onnx 2>&1 |
		awk -v n="$n" '/^  peak / { sub(/^  peak +/, ""); print "  " n ": " $0 }'
done
rm -f $out/deep-copy.pt2 $out/deep.onnx $out/deep.xlsx
