#!/bin/sh
# run.sh: the capture helper's own tests (test_helper.py) in the torch
# chroots of ../shared/tools/torch-env.sh, torch 2.14 (sid) and 2.6 (trixie).
# Not part of `make check` (CI has no torch); run it from the repo root.
# make_bundles.py, run the same way, rewrites the committed bundles.
rc=0 log=$(mktemp)
for suite in sid trixie; do
	bash ../shared/tools/torch-env.sh run $suite python3 /src/test/capture/test_helper.py >"$log" 2>&1 || rc=1
	grep -v 'Warning\|warn(' "$log"
done
rm -f "$log"
exit $rc
