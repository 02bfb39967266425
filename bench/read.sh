#!/bin/sh
# read.sh: time and peak memory to read a .pt2 (yobx-export --print), for a
# small fixture and for generated files with more than 1 GiB of weights.
# Makes the big files with the torch chroot the first time (see make_deep.py).
# Usage: sh bench/read.sh   (from the repo root, after make)
set -e
bin=build/yobx-export
mkdir -p bench/out
env_sh=../shared/tools/torch-env.sh
[ -f bench/out/big-2.14.pt2 ] || bash $env_sh run sid python3 /src/bench/make_deep.py /src/bench/out/big-2.14.pt2 16 4096
[ -f bench/out/big-2.6.pt2 ] || bash $env_sh run trixie python3 /src/bench/make_deep.py /src/bench/out/big-2.6.pt2 16 4096
printf '%-40s %12s %10s %14s\n' file "file MiB" "time ms" "peak RSS MiB"
for f in test/models/torch-2.14/mlp.pt2 test/models/torch-2.14/tiny_llama.pt2 bench/out/big-2.14.pt2 bench/out/big-2.6.pt2; do
	[ -f "$f" ] || continue
	# best of 5 runs, page cache warm
	best=""
	for i in 1 2 3 4 5; do
		t0=$(date +%s%N)
		/usr/bin/time -f '%M' -o bench/out/time.txt $bin "$f" --print >/dev/null
		t=$(( ($(date +%s%N) - t0) / 1000 )); t=$(echo "scale=1; $t / 1000" | bc)
		m=$(awk '{printf "%.1f", $1 / 1024}' bench/out/time.txt)
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; mem=$m; fi
	done
	size=$(du -m "$f" | cut -f1)
	printf '%-40s %12s %10s %14s\n' "$f" "$size" "$best" "$mem"
done
# A warm page cache can map large folios of the file on the few pages read,
# which counts in RSS although it is shared clean cache; a cold run shows
# what reading costs on its own (root only).
if [ -w /proc/sys/vm/drop_caches ]; then
	echo "cold page cache:"
	for f in bench/out/big-2.14.pt2 bench/out/big-2.6.pt2; do
		sync; echo 3 >/proc/sys/vm/drop_caches
		/usr/bin/time -f "%e %M %F" -o bench/out/time.txt $bin "$f" --print >/dev/null
		awk -v f="$f" '{printf "%-40s %10.0f ms %8.1f MiB %6d major faults\n", f, $1 * 1000, $2 / 1024, $3}' bench/out/time.txt
	done
fi
