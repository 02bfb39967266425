#!/bin/sh
# torchscript.sh: a TorchScript archive against the .pt2 of the same model:
# time and peak memory of whole conversions, and the dd+fsync copy of each
# input (the floor: the converter fsyncs its output too).  Models: the
# 1 GiB stack of 16 Linear(4096) layers and the 4,096-layer deep MLP of
# make_deep.py, each exported (.pt2) and traced (.pt, torch.jit.save).
# Makes the files with the torch chroot the first time.
# Usage: sh bench/torchscript.sh   (from the repo root, after make)
set -e
bin=${BIN:-build/yobx-export}
out=bench/out
mkdir -p $out
env_sh=${TORCH_ENV:-../shared/tools/torch-env.sh}
for ext in pt2 pt; do
	[ -f $out/big-2.14.$ext ] || bash $env_sh run sid python3 /src/bench/make_deep.py /src/$out/big-2.14.$ext 16 4096
	[ -f $out/deep-4096.$ext ] || bash $env_sh run sid python3 /src/bench/make_deep.py /src/$out/deep-4096.$ext 4096
done
gcc -std=c11 -O2 -Wall -Wextra -Werror -o $out/timeit bench/timeit.c
printf 'inputs:\n  - {dtype: float32, shape: [2, 4096]}\n' >$out/ts-big.yaml
printf 'inputs:\n  - {dtype: float32, shape: [2, 16]}\n' >$out/ts-deep.yaml
copy() {
	rm -f $out/copy.bin
	$out/timeit "$2" dd if="$1" of=$out/copy.bin bs=1M conv=fsync status=none
	rm -f $out/copy.bin
}
run() {
	rm -f $out/m.onnx $out/m.onnx.data $out/m.xlsx
	$out/timeit "$3" $bin "$1" $2 -o $out/m.onnx --quiet
}
printf '%-28s %12s %10s %12s %10s\n' model "convert ms" "peak MiB" "dd copy ms" ratio
for m in big deep; do
	for ext in pt2 pt; do
		f=$out/$m-$( [ $m = big ] && echo 2.14 || echo 4096 ).$ext
		opts=""
		[ $ext = pt ] && opts="-c $out/ts-$m.yaml"
		set -- $(run "$f" "$opts" 3)
		ms=$1 peak=$2
		set -- $(copy "$f" 3)
		printf '%-28s %12s %10s %12s %10s\n' "$f" "$ms" "$peak" "$1" "$(echo "scale=2; $ms / $1" | bc)"
	done
done
