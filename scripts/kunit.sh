#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# KUnit: boot SHAPE (default numa) with kunit.enable=1, parse the KTAP in the
# console log with the tree's kunit.py, print one result line per test case.
set -eu
. "$(dirname "$0")/lib.sh"
shape=${KUNIT_SHAPE:-numa}
log=$(NAME=kunit-$shape sh "$TOP/scripts/boot.sh" "$shape" "kunit.enable=1" true) || {
	echo "not ok - kunit: boot failed ($log)"; exit 1; }
parsed=$BUILD/logs/kunit-$shape.parsed
rc=0
python3 "$SRC/tools/testing/kunit/kunit.py" parse "$log" > "$parsed" 2>&1 || rc=$?
sed -n '/Testing complete/p' "$parsed"
# One line per case from the raw KTAP: "    ok 1 name" inside a suite.
awk '/# Subtest: / { suite = $NF }
     /^ *(\[[ .0-9]*\] )?    (not )?ok [0-9]+ / {
	sub(/^ *(\[[ .0-9]*\] )? */, ""); res = ($1 == "not") ? "not ok" : "ok"
	name = $0; sub(/^(not )?ok [0-9]+ /, "", name)
	print res " - kunit: " suite "." name }' "$log"
grep -q 'Testing complete' "$parsed" || { echo "not ok - kunit: no KTAP in $log"; exit 1; }
exit $rc
