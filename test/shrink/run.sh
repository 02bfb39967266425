#!/bin/sh
# run.sh: an input truncated under a running conversion, at N spread-out
# moments (issue 20).  Each run must end with exit status 0, 1 or 2 (never a
# signal), and leave either the whole output (status 0) or nothing at all:
# no OUT.onnx, .data, .xlsx, and no temporary file.  A truncation that comes
# after the conversion read what it needed gives status 0, one in the middle
# the named error input-changed (YE0404) or a reader's error, one before
# the start a reader's error.
#   sh test/shrink/run.sh BIN [N] [LAYERS] [WIDTH]   (N truncations, default
#   100, of a stack of LAYERS Linear(WIDTH, WIDTH), default 256 x 256: 64 MiB
#   of weights; in $TMPDIR, /dev/shm by default)
set -u
bin=$1 n=${2:-100} layers=${3:-256} width=${4:-256}
tmp=$(mktemp -d "${TMPDIR:-/dev/shm}/shrink.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
python3 test/shrink/make_pt2.py "$tmp/big.pt2" "$layers" "$width" || exit 1
size=$(stat -c %s "$tmp/big.pt2")
mkdir "$tmp/out"

# the untouched run's wall time, in microseconds, spreads the moments
cp "$tmp/big.pt2" "$tmp/in.pt2"
t0=$(date +%s%N)
"$bin" "$tmp/in.pt2" -o "$tmp/out/m.onnx" --quiet || { echo "shrink: the untouched model does not convert"; exit 1; }
span=$(( ($(date +%s%N) - t0) / 1000 ))
rm -f "$tmp/out/"*

crash=0 left=0 ok=0 named=0 other=0 k=0
while [ $k -lt "$n" ]; do
	k=$((k + 1))
	cp "$tmp/big.pt2" "$tmp/in.pt2"
	at=$((span * k / n))                       # microseconds after the start
	cut=$((size / 100 * ((k * 37) % 100)))     # spread over the file too
	"$bin" "$tmp/in.pt2" -o "$tmp/out/m.onnx" --quiet 2>"$tmp/err" &
	pid=$!
	sleep "$(printf '%d.%06d' $((at / 1000000)) $((at % 1000000)))"
	truncate -s "$cut" "$tmp/in.pt2"
	wait $pid
	rc=$?
	files=$(ls -A "$tmp/out")
	if [ $rc -gt 2 ]; then
		crash=$((crash + 1)); echo "shrink: run $k (at ${at}us, to $cut bytes): exit $rc"; cat "$tmp/err"
	elif [ $rc = 0 ]; then
		ok=$((ok + 1))
		case "$files" in *.tmp.*) left=$((left + 1)); echo "shrink: run $k: exit 0 left: $files";; esac
	else
		if grep -q 'changed or shrank while it was read' "$tmp/err"; then named=$((named + 1)); else other=$((other + 1)); fi
		[ -z "$files" ] || { left=$((left + 1)); echo "shrink: run $k (exit $rc) left: $files"; cat "$tmp/err"; }
	fi
	rm -f "$tmp/out/"* "$tmp/out/".[!.]* 2>/dev/null
done
echo "shrink: $n truncations over ${span}us: $ok converted, $named input-changed, $other other errors, $crash crashes, $left with leftovers"
[ $crash = 0 ] && [ $left = 0 ]
