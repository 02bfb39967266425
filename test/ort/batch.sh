# test/ort/batch.sh: the onnxruntime half of test/run-ort.sh and test/jit/run.sh,
# sourced by both (". test/ort/batch.sh", from the repo root).
#
# Starting node and loading onnxruntime costs more than running most models, so
# the checks run in a few `run.mjs --batch JOBS` processes sharing one job list
# (each claims the next unclaimed job; see run.mjs's header for JOBS).
#   ort_batch_start JOBS N   starts N of them (their logs JOBS-without-.jobs.batchI.log)
#   ort_batch_wait JOBS WHO  waits for them; a process that failed or said anything
#                            is shown (WHO names the caller), and a job its process
#                            did not finish (it died) is run again alone, as it was
#                            before batching, so that every job gets OUT and OUT.rc.

ort_batch_start() {
	_i=0 ort_pids=
	while [ $_i -lt "$2" ]; do
		node test/ort/run.mjs --batch "$1" >"${1%.jobs}.batch$_i.log" 2>&1 &
		ort_pids="$ort_pids $!" _i=$((_i + 1))
	done
}

ort_batch_wait() {
	_i=0
	for _pid in $ort_pids; do
		wait "$_pid"; _rc=$?
		# Silent and 0 when all went well; anything else is worth a look.
		if [ $_rc != 0 ] || [ -s "${1%.jobs}.batch$_i.log" ]; then
			echo "$2: batch process $_i exited with status $_rc:"; sed 's/^/  /' "${1%.jobs}.batch$_i.log"
		fi
		_i=$((_i + 1))
	done
	_tab=$(printf '\t')
	while IFS=$_tab read -r _job _rest; do
		[ -f "$_job.rc" ] && continue
		echo "$2: rerunning alone what a batch process left unfinished: $_job"
		# shellcheck disable=SC2086 # the models and IODIR, split at the tabs
		(IFS=$_tab; node test/ort/run.mjs $_rest >"$_job" 2>&1; echo $? >"$_job.rc")
	done <"$1"
}
