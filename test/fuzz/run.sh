#!/bin/sh
# run.sh [SECONDS] [TARGET...]: build the libFuzzer targets (make fuzz) and run
# each for SECONDS (default 600) on a scratch copy of its committed seed
# corpus, two at a time.  graph (fuzz_graph.c) mutates the fixtures' graphs
# and converts them; its input is the decision stream, its corpus a few
# random streams, and it needs the repository root as working directory.  Crashes land in build-fuzz/crash-*; the log of each
# run is build-fuzz/<target>.log.  Exits non-zero if any target crashed.
set -u
cd "$(dirname "$0")/../.."
secs=${1:-600}; [ $# -gt 0 ] && shift
targets=${*:-"zip json pickle sym torchsave graph irtext onnx options bundle tsarchive tsparse tsbuild"}
make -s fuzz || exit 2
status=0
run() {
	t=$1 work=build-fuzz/corpus-$1
	mkdir -p "$work"
	build-fuzz/fuzz/fuzz_$t "$work" test/fuzz/corpus/$t -max_total_time="$secs" -max_len=65536 \
		-artifact_prefix=build-fuzz/crash-$t- -print_final_stats=1 >build-fuzz/$t.log 2>&1
	echo "$t: exit $? $(grep -E 'stat::number_of_executed_units' build-fuzz/$t.log | awk '{print $2}') runs in ${secs}s"
}
set -- $targets
while [ $# -gt 0 ]; do
	run "$1" & p1=$!
	p2=""
	if [ $# -gt 1 ]; then run "$2" & p2=$!; fi
	wait $p1 || status=1
	[ -n "$p2" ] && { wait $p2 || status=1; }
	shift; [ $# -gt 0 ] && shift
done
exit $status
