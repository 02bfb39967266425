#!/bin/sh
# size.sh: the fixture set stays under its budget of 16,000,000 bytes.
#
# Counts the bytes of every file under test/models (what a clone carries),
# not disk blocks: `du` without --apparent-size also counts the unused tail
# of each 4 KiB block, which depends on the file system, not on the set.
# Prints "fixtures: N bytes of 16000000" and exits 1 over budget.
dir=${1:-test/models}
limit=16000000
bytes=$(find "$dir" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
echo "fixtures: $bytes bytes of $limit"
[ "$bytes" -le "$limit" ] || { echo "fixtures: over budget by $((bytes - limit)) bytes"; exit 1; }
