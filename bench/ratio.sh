#!/bin/sh
# ratio.sh: the whole-process cost of converting every fixture, against the
# floor of copying the same files to disk.  Each round converts every
# test/models/torch-*/*.pt2 one process after another with the default
# options (the report on), then again with `report: false`, then copies
# each file with `dd if=F of=OUT bs=1M conv=fsync` (we fsync too, so a
# copy that reaches the disk is the floor); every mode writes to the same
# folder on the same disk.  The modes take turns within a round, so a
# change of load hits all three alike.  Prints each round's totals, the
# medians and the two ratios (issue 34's targets: <= 1.2 with the report,
# <= 1.0 without), with the load before and after; wall times on a shared
# machine are noisy, so say the load with the figures.
# Then issue 34's other figures: the report's cost on a 100-node model
# (hf_gpt2: 92 ATen nodes; best wall time of RUNS with the report minus
# without, and callgrind's instruction counts of both, target <= 3 ms),
# and, when bench/out/llama-1g.pt2 exists (bench/make_llama.py in the
# torch chroot; BIG= another file), the 1 GB model against its dd+fsync
# copy: by default (target <= 1.0x at <= 32 MiB peak) and with
# `external_data: reference` (output beside the .pt2; target <= 0.1x),
# best of RUNS (default 3) each, with the peak resident memory.
# Usage: sh bench/ratio.sh [ROUNDS]   (from the repo root, after make;
# ROUNDS defaults to 3; BIN= another build, FILES= other inputs, e.g.
# FILES=bench/out/llama-1g.pt2 for the big-weights target; RSS=1 runs every
# process of the three modes under /usr/bin/time and prints the largest
# peak resident memory of each mode; BASE= another binary run in the same
# rounds, for side-by-side ratios on a loaded machine)
set -eu
bin=${BIN:-build/yobx-export}
rounds=${1:-3}
out=bench/out/ratio
files=${FILES:-$(ls test/models/torch-*/*.pt2)}
mkdir -p "$out"
rm -f "$out"/rss.*
printf 'report: false\n' >"$out/noreport.yaml"
printf '' >"$out/default.yaml"

now() { date +%s%N; }
timed() {
	if [ "${RSS:-0}" = 1 ]; then
		/usr/bin/time -f %M -a -o "$out/rss.$mode" "$@"
	else
		"$@"
	fi
}
# seconds taken by one pass of mode $1 over every file
pass() {
	mode=$1
	t0=$(now)
	for f in $files; do
		case $1 in
		report) timed "$bin" "$f" -c "$out/default.yaml" -o "$out/m.onnx" --quiet >/dev/null 2>&1 || true ;;
		noreport) timed "$bin" "$f" -c "$out/noreport.yaml" -o "$out/m.onnx" --quiet >/dev/null 2>&1 || true ;;
		breport) timed "$BASE" "$f" -c "$out/default.yaml" -o "$out/m.onnx" --quiet >/dev/null 2>&1 || true ;;
		bnoreport) timed "$BASE" "$f" -c "$out/noreport.yaml" -o "$out/m.onnx" --quiet >/dev/null 2>&1 || true ;;
		dd) timed dd if="$f" of="$out/copy.pt2" bs=1M conv=fsync status=none ;;
		esac
	done
	echo "$(( $(now) - t0 ))" | awk '{ printf "%.3f", $1 / 1e9 }'
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

n=$(echo "$files" | wc -w)
echo "files: $n ($(cat $files | wc -c) bytes); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
rep="" norep="" copy=""
printf '%-6s %12s %12s %12s\n' round "report s" "noreport s" "dd s"
for r in $(seq "$rounds"); do
	a=$(pass report); b=$(pass noreport); c=$(pass dd)
	rep="$rep $a" norep="$norep $b" copy="$copy $c"
	printf '%-6s %12s %12s %12s\n' "$r" "$a" "$b" "$c"
	if [ -n "${BASE:-}" ]; then
		d=$(pass breport); e=$(pass bnoreport)
		brep="${brep:-} $d" bnorep="${bnorep:-} $e"
		printf '%-6s %12s %12s   (BASE=%s)\n' "$r" "$d" "$e" "$BASE"
	fi
done
mr=$(echo "$rep" | median) mn=$(echo "$norep" | median) mc=$(echo "$copy" | median)
printf '%-6s %12s %12s %12s\n' median "$mr" "$mn" "$mc"
echo "ratio with the report:    $(echo "$mr $mc" | awk '{ printf "%.3f", $1 / $2 }')x the dd+fsync copy (target <= 1.2)"
echo "ratio with report: false: $(echo "$mn $mc" | awk '{ printf "%.3f", $1 / $2 }')x the dd+fsync copy (target <= 1.0)"
if [ -n "${BASE:-}" ]; then
	echo "BASE with the report:     $(echo "$(echo "$brep" | median) $mc" | awk '{ printf "%.3f", $1 / $2 }')x;" \
		"report: false: $(echo "$(echo "$bnorep" | median) $mc" | awk '{ printf "%.3f", $1 / $2 }')x (same rounds)"
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "${RSS:-0}" = 1 ]; then
	for m in report noreport dd; do
		echo "peak RSS $m: $(sort -n "$out/rss.$m" | tail -n 1 | awk '{ printf "%.1f MiB", $1 / 1024 }')"
	done
fi
rm -f "$out"/m.onnx "$out"/m.onnx.data "$out"/m.xlsx "$out"/copy.pt2

runs=${RUNS:-3}
gcc -std=c11 -O2 -Wall -Wextra -Werror -o bench/out/timeit bench/timeit.c
small=test/models/torch-2.14/hf_gpt2.pt2
set -- $(bench/out/timeit "$runs" "$bin" "$small" -c "$out/default.yaml" -o "$out/m.onnx" --quiet)
with=$1
set -- $(bench/out/timeit "$runs" "$bin" "$small" -c "$out/noreport.yaml" -o "$out/m.onnx" --quiet)
without=$1
echo "report cost on hf_gpt2 (92 ATen nodes): $(echo "$with $without" | awk '{ printf "%.1f ms (%.1f with, %.1f without", $1 - $2, $1, $2 }'), best of $runs; target <= 3 ms)"
if command -v valgrind >/dev/null 2>&1; then
	for m in default noreport; do
		valgrind --tool=callgrind --callgrind-out-file="$out/cg.$m" "$bin" "$small" -c "$out/$m.yaml" \
			-o "$out/m.onnx" --quiet >/dev/null 2>&1
	done
	echo "instructions (callgrind): $(awk '/^summary:/ { print $2 }' "$out/cg.default") with the report," \
		"$(awk '/^summary:/ { print $2 }' "$out/cg.noreport") without"
	rm -f "$out"/cg.*
fi
rm -f "$out"/m.onnx "$out"/m.onnx.data "$out"/m.xlsx

big=${BIG:-bench/out/llama-1g.pt2}
if [ -f "$big" ]; then
	dir=$(dirname "$big")
	printf 'external_data: reference\n' >"$dir/reference.yaml"
	set -- $(bench/out/timeit "$runs" dd if="$big" of="$dir/big-copy.pt2" bs=1M conv=fsync)
	copy=$1
	set -- $(bench/out/timeit "$runs" "$bin" "$big" -o "$out/big.onnx" --quiet)
	def=$1 defpeak=$2
	set -- $(bench/out/timeit "$runs" "$bin" "$big" -c "$dir/reference.yaml" -o "$dir/big-ref.onnx" --quiet)
	echo "$(basename "$big") ($(($(stat -c %s "$big") >> 20)) MiB): copy $copy ms;" \
		"default $def ms = $(echo "$def $copy" | awk '{ printf "%.2f", $1 / $2 }')x at $defpeak MiB peak (target <= 1.0x, <= 32 MiB);" \
		"reference $1 ms = $(echo "$1 $copy" | awk '{ printf "%.2f", $1 / $2 }')x at $2 MiB peak (target <= 0.1x)"
	rm -f "$dir/big-copy.pt2" "$out"/big.onnx* "$out/big.xlsx" "$dir"/big-ref.onnx* "$dir/big-ref.xlsx" "$dir/reference.yaml"
fi
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
