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
# The fixtures in OPSET23 are converted at `opset: 23` too (VER-NAME-o23.onnx,
# same cases, same node process): the patterns that need it (Attention with
# is_causal and grouped-query heads, RMSNormalization) must match torch.
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

# torch-VERSION/NAME of the attention models also checked at opset 23.
OPSET23="
torch-2.14/attention torch-2.14/attention_decomp torch-2.14/attention_dyn torch-2.14/op_sdpa
torch-2.14/tiny_llama torch-2.14/hf_qwen2 torch-2.14/hf_mistral torch-2.14/hf_mistral_decomp
torch-2.14/hf_phi3 torch-2.14/hf_llama_dyn torch-2.6/hf_llama_dyn torch-2.6/attention_dyn
torch-2.14/fn_llama torch-2.14/fn_qwen2
"

# Further fixtures that must pass, one list a file (a family's or a feature's;
# "#" starts a comment): test/ort/expected/*.txt.
for f in test/ort/expected/*.txt; do
	[ -f "$f" ] || continue
	while read -r l; do
		EXPECTED="$EXPECTED ${l%%#*}"
	done <"$f"
done

# One line list of each, to match " ID " against.
expected_ids=" $(echo $EXPECTED) " opset23_ids=" $(echo $OPSET23) "

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
printf 'opset: 23\nreport: false\n' >"$out/o23.yaml"

# The fixtures, one a line: ID PT2 IODIR MODEL NONE O23 (O23 is - when the
# fixture is not in OPSET23), in glob order; what an earlier run left of
# theirs goes, so that nothing stale can pass for new.
list=$out/fixtures
set -- "$out"/ort.*
for f in test/models/torch-*/*.pt2; do
	[ -f "$f" ] || continue
	dir=${f%/*} name=${f##*/}
	name=${name%.pt2} ver=${dir##*/}
	io=$dir/$name.io
	[ -d "$io" ] || continue
	stem=$out/$ver-$name
	case $opset23_ids in *" $ver/$name "*) o23=$stem-o23.onnx ;; *) o23=- ;; esac
	echo "$ver/$name $f $io $stem.onnx $stem-none.onnx $o23"
	set -- "$@" "$stem".* "$stem"-none.* "$stem"-o23.*
done >"$list"
rm -f "$@"

# Conversions, 8 fixtures a shell and $jobs shells at a time: MODEL.log gets
# the converter's messages, MODEL.conv 0 when every conversion of the fixture
# succeeded, else 1.
# A fixture whose IODIR holds options.yaml (its own options, e.g. custom_ops:
# or functions:; it must not set patterns, report or opset) is converted with
# them each time: alone, then with the lines of none.yaml / o23.yaml added
# (MODEL.yaml, MODEL-none.yaml, MODEL-o23.yaml).
while read -r id f io model none o23; do
	echo "$f $io $model $none $o23"
done <"$list" | xargs -n 40 -P "$jobs" sh -c '
	bin=$0 out=$1
	shift
	while [ $# -ge 5 ]; do
		f=$1 io=$2 model=$3 none=$4 o23=$5
		shift 5
		c= cnone=$out/none.yaml co23=$out/o23.yaml
		if [ -f "$io/options.yaml" ]; then
			c=${model%.onnx}.yaml cnone=${none%.onnx}.yaml co23=${model%.onnx}-o23.yaml
			cp "$io/options.yaml" "$c"
			cat "$io/options.yaml" "$out/none.yaml" >"$cnone"
			cat "$io/options.yaml" "$out/o23.yaml" >"$co23"
		fi
		if "$bin" "$f" ${c:+-c "$c"} -o "$model" >"$model.log" 2>&1 && "$bin" "$f" -c "$cnone" -o "$none" >>"$model.log" 2>&1 &&
			{ [ "$o23" = - ] || "$bin" "$f" -c "$co23" -o "$o23" >>"$model.log" 2>&1; }; then
			echo 0 >"$model.conv"
		else
			echo 1 >"$model.conv"
		fi
	done' "$bin" "$out"

# onnxruntime runs of the converted fixtures: OUT<TAB>MODEL<TAB>NONE[<TAB>O23]<TAB>IODIR.
tab=$(printf '\t')
while read -r id f io model none o23; do
	first_line "$model.conv"
	[ "$line" = 0 ] || continue
	if [ "$o23" = - ]; then models=$model$tab$none; else models=$model$tab$none$tab$o23; fi
	echo "$model.ort$tab$models$tab$io"
done <"$list" >"$out/ort.jobs"
i=0 pids=
while [ $i -lt "$jobs" ]; do
	node test/ort/run.mjs --batch "$out/ort.jobs" >"$out/ort.batch$i.log" 2>&1 &
	pids="$pids $!" i=$((i + 1))
done
i=0
for pid in $pids; do
	wait "$pid"; rc=$?
	# Silent and 0 when all went well; anything else is worth a look.
	if [ $rc != 0 ] || [ -s "$out/ort.batch$i.log" ]; then
		echo "run-ort.sh: batch process $i exited with status $rc:"; sed 's/^/  /' "$out/ort.batch$i.log"
	fi
	i=$((i + 1))
done
while IFS=$tab read -r job rest; do
	[ -f "$job.rc" ] && continue
	echo "run-ort.sh: rerunning alone what a batch process left unfinished: $job"
	# shellcheck disable=SC2086 # the models and IODIR, split at the tabs
	(IFS=$tab; node test/ort/run.mjs $rest >"$job" 2>&1; echo $? >"$job.rc")
done <"$out/ort.jobs"

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
while read -r id f io model none o23; do
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
