#!/bin/sh
# conformance.sh: yobx-export beside torch.onnx's dynamo exporter on torch's
# own operator samples (issue 19's numbers; not CI). From the repo root,
# after make:
#
#   sh bench/conformance.sh          first float32 sample of every entry
#   ALL=1 sh bench/conformance.sh    every sample, float32, int64 and bool
#
# Makes the samples again with test/conformance/make_suite.py --dynamo in
# the torch chroot (bench/out/conformance*/data: our text graphs, torch's
# inputs and outputs, and dynamo's ONNX of each), converts the training-IR
# graphs at opset 18 (dynamo's are made at 18 too), runs both in
# onnxruntime on the same inputs and prints, through conformance.mjs: the
# share of samples each converts and matches, the entries dynamo converts
# and we do not, the same two shares per op family, and node counts where
# both match. KEEP=1 reuses the data of a previous run.
bin=${BIN:-build/yobx-export}
jobs=${JOBS:-2}
if [ "${ALL:-0}" = 1 ]; then out=bench/out/conformance-all gen="--dtypes f32,i64,b8"
else out=bench/out/conformance-first gen="--first --dtypes f32"; fi
torchrun=${TORCHRUN:-bash ../shared/tools/torch-env.sh run}
if [ "${KEEP:-0}" != 1 ] || [ ! -d $out/data ]; then
	rm -rf $out/data
	mkdir -p $out/data
	i=0
	while [ $i -lt "$jobs" ]; do
		# shellcheck disable=SC2086 # $gen: several flags
		nice $torchrun sid env PYTHONPATH=${PYEXTRA:-/src/bench/out/py/onnxscript:/src/bench/out/py/ir-py/src} python3 test/conformance/make_suite.py \
			$gen --dynamo --data $out/data --shard $i/$jobs >$out/gen$i.log 2>&1 &
		i=$((i + 1))
	done
	wait
fi
rm -rf $out/u
mkdir -p $out/u
node test/conformance/unpack.mjs $out/data $out/u 18 || exit 1
awk -F'\t' '$1 ~ / train 18$/' $out/u/convert.list | cut -f2-4 >$out/u/convert.0
"$(dirname "$bin")"/test/convert_many $out/u/convert.0
tab=$(printf '\t')
: >$out/u/ort.jobs
for d in $out/u/s/*; do
	[ -f $d/train18.onnx.rc ] && read -r rc <$d/train18.onnx.rc && [ "$rc" = 0 ] &&
		printf '%s\t%s\t%s\n' $d/train18.onnx.ort $d/train18.onnx $d/io >>$out/u/ort.jobs
	[ -f $d/dynamo.onnx ] && printf '%s\t%s\t%s\n' $d/dynamo.onnx.ort $d/dynamo.onnx $d/io >>$out/u/ort.jobs
done
. test/ort/batch.sh
ort_batch_start $out/u/ort.jobs "$jobs"
ort_batch_wait $out/u/ort.jobs conformance-bench >/dev/null
node bench/conformance.mjs $out/data $out/u
