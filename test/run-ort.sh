#!/bin/sh
# run-ort.sh [BINARY]: numerical truth from onnxruntime, run from the repo root.
#
# Converts every fixture test/models/torch-*/NAME.pt2 that has a NAME.io
# folder (torch's inputs and outputs) into $(dirname BINARY)/out/VER-NAME.onnx
# and runs it with test/ort/run.mjs (onnxruntime-node; `npm ci
# --ignore-scripts` at the repo root installs it).
#  - a fixture listed in EXPECTED must convert and match torch, else it fails;
#  - any other fixture is reported "not yet supported" with the converter's
#    first message (or "passes" when it does, as a hint to list it).
# Each fixture is also converted with `patterns: none` (VER-NAME-none.onnx)
# and run on the same cases: the lowering alone must match torch too, so an
# optimizer rewrite can never hide a lowering bug (nor cause a regression).
# Each default conversion is then read back as an ONNX input and optimized
# again (re/VER-NAME.onnx, the `.onnx` input path): it must not be larger
# (with its .data) and must match torch on the same cases.
# The fixtures listed in test/ort/opsets/NN.txt are converted at `opset: NN`
# too (VER-NAME-oNN.onnx, same cases, same node process): the rows and
# patterns that change with the opset (Attention with is_causal and
# grouped-query heads and RMSNormalization from 23; Swish, TensorScatter
# and Attention's nonpad_kv_seqlen from 24; CumProd and BitCast from 26) must
# match torch at each. The default conversion is the default opset (18);
# an entry written +ID in NN.txt is a fixture that needs opset NN (view.dtype:
# BitCast, 26), whose default and `patterns: none` conversions are made at
# `opset: NN` instead.
# The default conversion also writes the model's signature (--signature); for
# torch-2.14 it must be test/golden/signature/NAME.json byte for byte, so any
# change of a fixture's interface shows in review (UPDATE_GOLDEN=1 rewrites
# them).
# Ends with the line "ort: N passed, N failed"; exits 1 when something failed.
#
# Speed: starting node and loading onnxruntime costs more than running most
# fixtures, and the conversions are independent. So the fixtures are first
# all converted, $JOBS at a time (default 2), then checked by $JOBS node
# processes running `run.mjs --batch` over one shared job list (each takes
# the next unclaimed fixture). A job its batch process did not finish (the
# process died) is run again alone, as it was run before batching. The
# results are printed afterwards in fixture order, so the output does not
# depend on which process ran what. Starting a process is slow here (tens
# of ms on a loaded VM), so the loops over fixtures use the shell's own
# string operations and read files with `read`, and one awk sums up the
# onnxruntime outputs.
bin=${1:-build/yobx-export}
out=$(dirname "$bin")/out
jobs=${JOBS:-2}
pass=0 fail=0

# torch-VERSION/NAME of every fixture that must pass.
EXPECTED="
torch-2.14/mlp torch-2.14/mlp_decomp torch-2.14/cnn torch-2.14/cnn_decomp
torch-2.14/attention torch-2.14/attention_decomp torch-2.14/inplace torch-2.14/dtypes
torch-2.14/mlp_dyn torch-2.14/attention_dyn torch-2.14/derived_dyn torch-2.14/tiny_bert
torch-2.14/cond torch-2.14/while_loop torch-2.14/scan torch-2.14/tiny_llama
torch-2.6/mlp torch-2.6/mlp_decomp torch-2.6/cnn torch-2.6/cnn_decomp
torch-2.6/attention torch-2.6/attention_decomp torch-2.6/inplace torch-2.6/dtypes
torch-2.6/mlp_dyn torch-2.6/attention_dyn torch-2.6/derived_dyn
torch-2.6/cond torch-2.6/while_loop torch-2.6/scan
torch-2.8/mlp torch-2.8/cnn torch-2.8/attention torch-2.8/inplace
torch-2.14/tv_resnet torch-2.14/tv_mobilenet_v2 torch-2.14/tv_mobilenet_v3 torch-2.14/tv_efficientnet
torch-2.14/tv_regnet torch-2.14/tv_squeezenet torch-2.14/tv_densenet torch-2.14/tv_googlenet
torch-2.14/tv_convnext torch-2.14/tv_resnet18
torch-2.14/op_rnn torch-2.14/op_convtranspose torch-2.14/op_pool torch-2.14/op_pool_decomp
torch-2.14/op_embedding torch-2.14/op_embedding_decomp
torch-2.6/op_rnn torch-2.6/op_convtranspose torch-2.6/op_pool torch-2.6/op_embedding
torch-2.14/tv_shufflenet torch-2.14/tv_vit torch-2.14/tv_swin torch-2.14/tv_swin_v2 torch-2.14/tv_seghead
torch-2.14/op_conv_variants torch-2.14/op_norms torch-2.14/op_norms_decomp
torch-2.14/op_activations torch-2.14/op_activations_decomp
torch-2.6/op_conv_variants torch-2.6/op_norms torch-2.6/op_norms_decomp torch-2.6/op_activations
torch-2.14/hf_distilbert torch-2.14/hf_roberta torch-2.14/hf_gpt2 torch-2.14/hf_mistral
torch-2.14/hf_qwen2 torch-2.14/hf_phi3 torch-2.14/hf_t5_encoder torch-2.14/hf_t5_decoder
torch-2.14/hf_whisper_encoder torch-2.14/hf_llama_dyn
torch-2.14/op_elementwise torch-2.14/op_reduce torch-2.14/op_shape torch-2.14/op_index
torch-2.14/op_index_decomp torch-2.14/op_creation torch-2.14/op_creation_decomp torch-2.14/op_math
torch-2.14/op_inplace torch-2.14/op_inplace_decomp torch-2.14/op_dtypes
torch-2.6/op_elementwise torch-2.6/op_reduce torch-2.6/op_shape torch-2.6/op_index
torch-2.6/op_creation torch-2.6/op_math torch-2.6/op_inplace
torch-2.14/sym_ops torch-2.14/sym_bools torch-2.14/sym_sum torch-2.14/sym_index torch-2.14/sym_arith
torch-2.14/nonzero torch-2.14/item torch-2.14/cond_dyn torch-2.14/cond_nested torch-2.14/grad_wrap
torch-2.14/autocast_wrap torch-2.14/while_dyn torch-2.14/scan_rev
torch-2.6/sym_ops torch-2.6/sym_bools torch-2.6/sym_sum torch-2.6/sym_index torch-2.6/sym_arith
torch-2.6/nonzero torch-2.6/item torch-2.6/cond_dyn torch-2.6/cond_nested torch-2.6/grad_wrap
torch-2.6/autocast_wrap torch-2.6/while_dyn torch-2.6/scan_rev torch-2.6/hf_llama_dyn
torch-2.14/op_overloads torch-2.14/op_overloads_decomp torch-2.6/op_overloads torch-2.6/op_overloads_decomp
torch-2.14/hf_mistral_decomp torch-2.14/hf_t5_encoder_decomp torch-2.14/tv_swin_decomp
"

# Further fixtures that must pass, one list a file (a family's or a feature's;
# "#" starts a comment): test/ort/expected/*.txt.
for f in test/ort/expected/*.txt; do
	[ -f "$f" ] || continue
	while read -r l; do
		EXPECTED="$EXPECTED ${l%%#*}"
	done <"$f"
done

# The further opsets: test/ort/opsets/NN.txt lists the torch-VERSION/NAME
# converted at `opset: NN` too ("#" starts a comment; +ID: converted at NN
# only). opsets holds the NNs, opset_ids " ID@NN " for each listed fixture,
# base_ids " ID@NN " for the +ID ones.
opsets= opset_ids= base_ids=
for f in test/ort/opsets/*.txt; do
	[ -f "$f" ] || continue
	o=${f##*/} o=${o%.txt}
	opsets="$opsets $o"
	while read -r l; do
		for id in ${l%%#*}; do
			case $id in
			+*) base_ids="$base_ids ${id#+}@$o" ;;
			*) opset_ids="$opset_ids $id@$o" ;;
			esac
		done
	done <"$f"
done

# One line list of each, to match " ID " against.
expected_ids=" $(echo $EXPECTED) " opset_ids="$opset_ids " base_ids="$base_ids "

# first_line FILE: sets $line to the first line of FILE, or empty.
first_line() {
	line=
	[ -f "$1" ] && read -r line <"$1"
}

if ! node -e "import('onnxruntime-node').then(() => 0, () => process.exit(1))" 2>/dev/null; then
	echo "run-ort.sh: onnxruntime-node is not installed (run 'npm ci --ignore-scripts' at the repo root)"
	echo "ort: 0 passed, 1 failed"
	exit 1
fi
mkdir -p "$out"
printf 'patterns: none\nreport: false\n' >"$out/none.yaml"
printf 'report: false\n' >"$out/re.yaml"
mkdir -p "$out/re"
for o in $opsets; do
	printf 'opset: %s\nreport: false\n' "$o" >"$out/o$o.yaml"
	printf 'opset: %s\npatterns: none\nreport: false\n' "$o" >"$out/none$o.yaml"
done

# The fixtures, one a line: ID PT2 IODIR MODEL NONE OPSETS BASE (OPSETS: the
# further opsets it is converted at, comma separated, or - for none; BASE:
# the opset of its first two conversions, - for the default), in glob order;
# what an earlier run left of theirs goes, so that nothing stale can pass
# for new.
list=$out/fixtures
set -- "$out"/ort.*
for f in test/models/torch-*/*.pt2; do
	[ -f "$f" ] || continue
	dir=${f%/*} name=${f##*/}
	name=${name%.pt2} ver=${dir##*/}
	io=$dir/$name.io
	[ -d "$io" ] || continue
	stem=$out/$ver-$name
	more= base=-
	for o in $opsets; do
		case $opset_ids in *" $ver/$name@$o "*) more=$more,$o ;; esac
		case $base_ids in *" $ver/$name@$o "*) base=$o ;; esac
	done
	more=${more#,}
	echo "$ver/$name $f $io $stem.onnx $stem-none.onnx ${more:--} $base"
	set -- "$@" "$stem".* "$stem"-none.* "$stem"-o[0-9]* "$out/re/${stem##*/}".*
done >"$list"
rm -f "$@"

# Conversions, 8 fixtures a shell and $jobs shells at a time: MODEL.log gets
# the converter's messages, MODEL.conv 0 when every conversion of the fixture
# succeeded, else 1.
# A fixture whose IODIR holds options.yaml (its own options, e.g. custom_ops:
# or functions:; it must not set patterns, report or opset) is converted with
# them each time: alone, then with the lines of none.yaml / oNN.yaml added
# (MODEL.yaml, MODEL-none.yaml, MODEL-oNN.yaml); a BASE opset's lines
# (oNN.yaml / noneNN.yaml) go to the first two.
while read -r id f io model none more base; do
	echo "$f $io $model $none $more $base"
done <"$list" | xargs -n 48 -P "$jobs" sh -c '
	bin=$0 out=$1
	shift
	while [ $# -ge 6 ]; do
		f=$1 io=$2 model=$3 none=$4 more=$5 base=$6
		shift 6
		c= cnone=$out/none.yaml
		[ "$base" = - ] || c=$out/o$base.yaml cnone=$out/none$base.yaml
		if [ -f "$io/options.yaml" ]; then
			cat "$io/options.yaml" ${c:+"$c"} >"${model%.onnx}.yaml"
			cat "$io/options.yaml" "$cnone" >"${none%.onnx}.yaml"
			c=${model%.onnx}.yaml cnone=${none%.onnx}.yaml
		fi
		ok=0
		"$bin" "$f" ${c:+-c "$c"} -o "$model" --signature "$model.sig.json" >"$model.log" 2>&1 && "$bin" "$f" -c "$cnone" -o "$none" >>"$model.log" 2>&1 || ok=1
		[ "$more" = - ] && more=
		while [ -n "$more" ] && [ $ok = 0 ]; do
			o=${more%%,*}
			case $more in *,*) more=${more#*,} ;; *) more= ;; esac
			co=$out/o$o.yaml
			if [ -f "$io/options.yaml" ]; then
				co=${model%.onnx}-o$o.yaml
				cat "$io/options.yaml" "$out/o$o.yaml" >"$co"
			fi
			"$bin" "$f" -c "$co" -o "${model%.onnx}-o$o.onnx" >>"$model.log" 2>&1 || ok=1
		done
		re=$out/re/${model##*/}   # the same base name: the same .data location in it
		if [ $ok = 0 ]; then
			size() { s=0; for x in "$@"; do [ -f "$x" ] && s=$((s + $(wc -c <"$x"))); done; echo $s; }
			"$bin" "$model" -c "$out/re.yaml" -o "$re" >>"$model.log" 2>&1 || ok=1
			[ $ok = 1 ] || [ "$(size "$re" "$re.data")" -le "$(size "$model" "$model.data")" ] ||
				{ echo "$re: optimized again, larger than $model" >>"$model.log"; ok=1; }
		fi
		echo $ok >"$model.conv"
	done' "$bin" "$out"

# onnxruntime runs of the converted fixtures: OUT<TAB>MODEL<TAB>NONE[<TAB>ONN...]<TAB>IODIR.
tab=$(printf '\t')
while read -r id f io model none more base; do
	first_line "$model.conv"
	[ "$line" = 0 ] || continue
	models=$model$tab$none
	[ "$more" = - ] && more=
	IFS=,
	for o in $more; do
		models=$models$tab${model%.onnx}-o$o.onnx
	done
	unset IFS
	models=$models$tab$out/re/${model##*/}
	echo "$model.ort$tab$models$tab$io"
done <"$list" >"$out/ort.jobs"
. test/ort/batch.sh
ort_batch_start "$out/ort.jobs" "$jobs"
ort_batch_wait "$out/ort.jobs" run-ort.sh

# For each fixture, in list order: the number of lines starting with "case"
# in MODEL.ort and the largest "err X" in it (0 for a missing file).
awk '{
	n = 0; m = 0; f = $4 ".ort"
	while ((getline l <f) > 0) {
		if (l ~ /^case/) n++
		if (match(l, /err [0-9.e+-]*/) && substr(l, RSTART + 4, RLENGTH - 4) + 0 > m) m = substr(l, RSTART + 4, RLENGTH - 4) + 0
	}
	close(f)
	printf "%d %.1e\n", n, m
}' "$list" >"$out/ort.stats"

# The results, in fixture order.
exec 3<"$out/ort.stats"
while read -r id f io model none more base; do
	read -r ncases err <&3
	case $expected_ids in *" $id "*) expected=1 ;; *) expected=0 ;; esac
	first_line "$model.conv"
	if [ "$line" != 0 ]; then
		if [ $expected = 1 ]; then
			fail=$((fail + 1)); echo "FAIL $id: conversion failed:"; sed 's/^/  /' "$model.log"
		else
			ops=$(grep -o "node '[^']*' ([^)]*)" "$model.log" | sed 's/.*(\(.*\))$/\1/' | sort -u | tr '\n' ' ')
			echo "$id: not yet supported: ${ops:-$(head -n 1 "$model.log" | cut -c1-200)}"
		fi
		continue
	fi
	case $id in torch-2.14/*)     # its interface, as reviewed: test/golden/signature/NAME.json
		gold=test/golden/signature/${id#*/}.json
		if [ -n "$UPDATE_GOLDEN" ]; then
			mkdir -p test/golden/signature && cp "$model.sig.json" "$gold"
		elif ! cmp -s "$model.sig.json" "$gold"; then
			fail=$((fail + 1)); echo "FAIL $id: its signature differs from $gold (UPDATE_GOLDEN=1 rewrites it):"
			diff -u "$gold" "$model.sig.json" 2>&1 | head -n 20 | sed 's/^/  /'
		fi
	esac
	first_line "$model.ort.rc"
	if [ "$line" = 0 ]; then
		pass=$((pass + 1)) hint=
		[ $expected = 1 ] || hint=' (passes; not in EXPECTED yet)'
		echo "$id: ok, $ncases cases, max abs err $err$hint"
	elif [ $expected = 1 ]; then
		fail=$((fail + 1)); echo "FAIL $id:"; sed 's/^/  /' "$model.ort"
	else
		echo "$id: not yet supported: $(grep FAIL "$model.ort" | head -n 1 | cut -c1-200)"
	fi
done <"$list"
exec 3<&-
echo "ort: $pass passed, $fail failed"
[ "$fail" = 0 ]
