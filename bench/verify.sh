#!/bin/sh
# verify.sh: what --verify costs, and that without it nothing changes.
# For each fixture, the best of RUNS whole-process runs (bench/timeit.c: fork
# to exit) of three conversions side by side in one loop:
#   base  the converter of the main branch (built from `git archive main` into
#         bench/out/verify/base; BASE=path/to/yobx-export to give one instead)
#   off   this tree's converter without --verify
#   on    this tree's converter with --verify (onnxruntime loaded, a session
#         and a run, and for a bundle with module records a second one)
# then the ratios off/base (the cost of the feature when unused: ~1.00) and
# on/off.  Also checks, with LD_DEBUG=files, that a run without --verify does
# not load libonnxruntime at all.  Wall times on a shared machine are noisy:
# the load is printed with the figures.
# Usage: sh bench/verify.sh [RUNS]   (from the repo root, after make; RUNS
# defaults to 5; FILES= other inputs)
set -eu
runs=${1:-5}
bin=${BIN:-build/yobx-export}
out=bench/out/verify
lib=${YOBX_ONNXRUNTIME:-$(pwd)/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1}
files=${FILES:-"test/models/torch-2.14/mlp.pt2 test/models/torch-2.14/cnn.pt2 test/models/torch-2.14/tiny_llama.pt2 test/models/torch-2.14/tv_resnet18.pt2 test/models/bundles/every_strategy.yxc test/models/bundles/verify_nested.yxc"}
export YOBX_ONNXRUNTIME="$lib"
mkdir -p "$out"
gcc -std=c11 -O2 -Wall -Wextra -Werror -o "$out/timeit" bench/timeit.c
if [ -z "${BASE:-}" ]; then
	if [ ! -x "$out/base/build/yobx-export" ] || [ "$(cat "$out/base.rev" 2>/dev/null)" != "$(git rev-parse main)" ]; then
		rm -rf "$out/base" && mkdir -p "$out/base"
		git archive main | tar -x -C "$out/base"
		(cd "$out/base" && nice make -j2 >/dev/null 2>&1)
		git rev-parse main >"$out/base.rev"
	fi
	BASE=$out/base/build/yobx-export
fi

if LD_DEBUG=files "$bin" test/models/torch-2.14/cnn.pt2 -o "$out/m.onnx" -q 2>&1 | grep -q libonnxruntime; then
	echo "without --verify: libonnxruntime LOADED (wrong)"; exit 1
fi
echo "without --verify: libonnxruntime not loaded (LD_DEBUG=files)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-44s %9s %9s %9s %8s %8s\n' fixture base_ms off_ms on_ms off/base on/off
for f in $files; do
	base=$("$out/timeit" "$runs" "$BASE" "$f" -o "$out/b.onnx" -q | cut -d' ' -f1)
	off=$("$out/timeit" "$runs" "$bin" "$f" -o "$out/m.onnx" -q | cut -d' ' -f1)
	on=$("$out/timeit" "$runs" "$bin" "$f" -o "$out/v.onnx" -q --verify | cut -d' ' -f1)
	printf '%-44s %9s %9s %9s %8s %8s\n' "$f" "$base" "$off" "$on" \
		"$(awk -v a="$off" -v b="$base" 'BEGIN { printf "%.2f", a / b }')" \
		"$(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.2f", a / b }')"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
