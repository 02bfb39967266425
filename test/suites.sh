#!/bin/sh
# suites.sh DIR J: runs the suites listed on stdin, J at a time, and fails
# if any failed.  Each line is "NAME COMMAND..." (a shell command run from
# the repository root); the suites must not depend on one another, and
# are started in the order given, so list the longest first.  Each writes
# DIR/suites/NAME.log; when all have ended their logs are printed in the
# order given, then one line per suite with its wall time and CPU time,
# the slowest first (the numbers make check's time is made of; the CPU
# seconds hold still when the machine is loaded).
#   printf '%s\n' 'cli sh test/run-cli.sh build/yobx-export' ... | sh test/suites.sh build 2
set -u
dir=$1/suites j=${2:-2}
rm -rf "$dir" && mkdir -p "$dir"
cat >"$dir/list"
t0=$(date +%s%N)
# one line per suite: its number, then the line; xargs keeps j running
awk '{ printf "%d %s\n", NR, $0 }' "$dir/list" | tr '\n' '\0' | xargs -0 -n 1 -P "$j" sh -c '
	dir=$1 line=$2
	n=${line%% *}; rest=${line#* }; name=${rest%% *}; cmd=${rest#* }
	s=$(date +%s%N)
	sh -c "$cmd" >"$dir/$name.log" 2>&1
	rc=$?
	# CPU seconds of the suite (user + sys of its processes, from times):
	# what the suite costs whatever the load
	times >"$dir/$name.times"
	cpu=$(awk "NR == 2 { for (i = 1; i <= 2; i++) { split(\$i, t, \"m\"); s += t[1] * 60 + t[2] } printf \"%.1f\", s }" "$dir/$name.times")
	echo "$rc $(( ($(date +%s%N) - s) / 1000000 )) $cpu" >"$dir/$name.rc"
' sh "$dir"
wall=$(( ($(date +%s%N) - t0) / 1000000 ))
fail=0
while read -r name cmd; do
	echo "== $name"
	cat "$dir/$name.log"
	read -r rc ms <"$dir/$name.rc" 2>/dev/null || rc=missing
	[ "$rc" = 0 ] || fail=$((fail + 1))
done <"$dir/list"
echo "== suites ($j at a time), wall ms and CPU s, slowest first:"
while read -r name cmd; do
	read -r rc ms cpu <"$dir/$name.rc" 2>/dev/null || { rc=missing ms=0 cpu=0; }
	printf '%8d %7s  %-18s %s\n' "$ms" "$cpu" "$name" "$([ "$rc" = 0 ] && echo ok || echo "FAIL (exit $rc)")"
done <"$dir/list" | sort -rn
cpu=$(awk '{ s += $3 } END { printf "%.0f", s }' "$dir"/*.rc)
echo "suites: $(wc -l <"$dir/list") in ${wall} ms wall, ${cpu} s CPU, $fail failed, load $(cut -d' ' -f1-3 /proc/loadavg)"
[ $fail = 0 ]
