# test/batch/convert.sh: many conversions in a few processes, for the suites
# that convert thousands of small models (test/conformance/run.sh,
# test/onnx-node/run.sh), where starting yobx-export once per model costs
# more than converting it.  Sourced from the repo root:
#   . test/batch/convert.sh
#   convert_batch LIST JOBS BINARY
# LIST holds one conversion a line, INPUT<TAB>OPTIONS.yaml<TAB>OUT.onnx.  It
# is split into JOBS shares, each converted by one build/test/convert_many
# process (the pipeline of BINARY, the same exit status), which leaves
# OUT.onnx.rc (the exit status) and OUT.onnx.err (the diagnostics).  A
# conversion a process did not finish (it crashed) is run alone with BINARY
# itself, which gives its exit status, and the process resumed after it.
convert_batch() {
	_list=$1 _jobs=$2 _bin=$3
	_many=$(dirname "$_bin")/test/convert_many
	_tab=$(printf '\t')
	rm -f "$_list".[0-9]*
	awk -v l="$_list" -v j="$_jobs" '{ print > (l "." (NR % j)) }' "$_list"
	_i=0
	while [ $_i -lt "$_jobs" ]; do
		[ -f "$_list.$_i" ] && (
			while :; do
				"$_many" "$_list.$_i" 2>/dev/null && break
				# The first conversion without a .rc crashed the process.
				# None left: convert_many itself fails (not built), stop.
				_ran=0
				while IFS=$_tab read -r _g _o _x; do
					[ -f "$_x.rc" ] && continue
					"$_bin" "$_g" -c "$_o" -o "$_x" >"$_x.err" 2>&1 </dev/null; echo $? >"$_x.rc"
					_ran=1
					break
				done <"$_list.$_i"
				[ $_ran = 1 ] || break
			done) &
		_i=$((_i + 1))
	done
	wait
}
