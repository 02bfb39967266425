#!/bin/sh
# optshare.sh [BINARY]: the optimizer's share of each fixture's conversion,
# in instructions (valgrind's callgrind: the same answer on a busy machine
# as on a quiet one, where sub-millisecond timers are noise).  For each
# torch-2.14 fixture: instructions of the whole process and of opt_model(),
# with the report (the default) and with `report: false`.  Issue 5's target
# is under 10%.  Usage: sh bench/optshare.sh   (from the repo root, after make)
bin=${1:-build/yobx-export}
out=bench/out
mkdir -p $out
printf 'report: false\n' >$out/noreport.yaml
# instructions of the whole run and of opt_model in a callgrind file
counts() {
	total=$(awk '/^summary:/ { print $2 }' "$1")
	opt=$(callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null |
		awk '$0 ~ ":opt_model \\[" { gsub(",", "", $1); print $1; exit }')
	echo "$total ${opt:-0}"
}
printf '%-28s %12s %7s %12s %7s\n' fixture "instr" "share" "instr(noreport)" "share"
worst=0 worst2=0
for f in test/models/torch-2.14/*.pt2; do
	name=$(basename "$f" .pt2)
	valgrind --tool=callgrind --callgrind-out-file=$out/cg.a "$bin" "$f" -o $out/share.onnx --quiet >/dev/null 2>&1
	valgrind --tool=callgrind --callgrind-out-file=$out/cg.b "$bin" "$f" -c $out/noreport.yaml -o $out/share.onnx --quiet >/dev/null 2>&1
	set -- $(counts $out/cg.a) $(counts $out/cg.b)
	s1=$(echo "scale=1; 100 * $2 / $1" | bc) s2=$(echo "scale=1; 100 * $4 / $3" | bc)
	printf '%-28s %12s %6s%% %12s %6s%%\n' "$name" "$1" "$s1" "$3" "$s2"
done
