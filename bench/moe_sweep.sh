#!/bin/sh
# moe_sweep.sh: the mixture-of-experts sweep of issue 27.  Converts every
# DIR/NAME.pt2 made by bench/moe_sweep.py (every MoE causal LM of transformers,
# tiny; prefill and KV-cache decode step; training IR and core ATen) with our
# binary, runs each conversion in onnxruntime on all its cases (test/ort/run.mjs:
# every output, the example size and two other sizes of the dynamic dims) and
# prints one row a model:
#
#   arch  IR  step  converts?  max-abs-err  nodes  status
#
# status: ok (matches torch in every case), WRONG (converts, onnxruntime runs it,
# some output differs: the worst bug), ORT (onnxruntime refuses or fails to run
# it), refused (the converter's error: the ATen targets it names), or the
# export's failure (NAME.skip, written by moe_sweep.py).  The last line counts
# each status.
#
# Usage: sh bench/moe_sweep.sh [NAME...]   (from the repo root, after make)
#   first: ../shared/tools/torch-env.sh run sid python3 bench/moe_sweep.py bench/out/moe
#   BIN=build/yobx-export  DIR=bench/out/moe (where NAME.pt2 are)
bin=${BIN:-build/yobx-export}
dir=${DIR:-bench/out/moe}
out=$dir/onnx
mkdir -p "$out"
printf 'report: false\n' >"$out/opts.yaml"
if [ $# = 0 ]; then
	for f in "$dir"/*.pt2 "$dir"/*.skip; do
		[ -f "$f" ] || continue
		n=${f##*/}
		set -- "$@" "${n%.*}"
	done
fi
printf '%-22s %-5s %-8s %-8s %-9s %6s  %s\n' arch IR step converts max-err nodes status
nok=0 nwrong=0 nref=0 nort=0 nskip=0
for n; do
	case $n in *_decomp) ir=core base=${n%_decomp} ;; *) ir=train base=$n ;; esac
	step=${base##*_} arch=${base%_*}
	if [ -f "$dir/$n.skip" ]; then
		nskip=$((nskip + 1))
		printf '%-22s %-5s %-8s %-8s %-9s %6s  %s\n' "$arch" $ir "$step" - - - \
			"export fails: $(cut -c1-110 "$dir/$n.skip")"
		continue
	fi
	if [ ! -f "$dir/$n.io/manifest.json" ]; then
		printf '%-22s %-5s %-8s %-8s %-9s %6s  %s\n' "$arch" $ir "$step" - - - "being made"
		continue
	fi
	m=$out/$n.onnx
	rm -f "$m" "$m.data"
	if ! "$bin" "$dir/$n.pt2" -c "$out/opts.yaml" -o "$m" >"$out/$n.log" 2>&1; then
		nref=$((nref + 1))
		ops=$(grep -o "([a-z_]*\.[a-zA-Z0-9_.]*)" "$out/$n.log" | sort -u | tr -d '()' | tr '\n' ' ')
		printf '%-22s %-5s %-8s %-8s %-9s %6s  %s\n' "$arch" $ir "$step" no - - \
			"refused: ${ops:-$(head -n 1 "$out/$n.log" | cut -c1-100)}"
		continue
	fi
	nodes=$("$bin" "$m" --print 2>/dev/null | grep -c '^node ')
	node test/ort/run.mjs "$m" "$dir/$n.io" >"$out/$n.ort" 2>&1
	rc=$?
	err=$(grep -o 'err [0-9.e+-]*' "$out/$n.ort" | sed 's/err //' | sort -g | tail -n 1)
	if [ $rc = 0 ]; then
		st=ok nok=$((nok + 1))
	elif grep -q 'FAIL run:\|cannot load' "$out/$n.ort"; then
		st="ORT: $(grep -o 'FAIL run:.*\|cannot load.*' "$out/$n.ort" | head -n 1 | cut -c1-100)"
		nort=$((nort + 1))
	else
		st="WRONG: $(grep -m1 -o 'FAIL.*' "$out/$n.ort" | cut -c1-100)"
		nwrong=$((nwrong + 1))
	fi
	printf '%-22s %-5s %-8s %-8s %-9s %6s  %s\n' "$arch" $ir "$step" yes "${err:--}" "$nodes" "$st"
done
echo "moe sweep: $nok ok, $nwrong wrong, $nort onnxruntime fails, $nref refused, $nskip export fails"
