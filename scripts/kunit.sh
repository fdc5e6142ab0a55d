#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# KUnit: for each arch in ARCHES, boot its test shape (arch/ARCH's
# TEST_SHAPE) with kunit.enable=1, parse the KTAP in the console log with
# the tree's kunit.py, print one result line per test case, tagged with the
# arch.  KUNIT_FILTER runs only the suites and cases its glob matches
# (kunit.filter_glob: "suite" or "suite.case", * and ? as in the shell).
set -u
. "$(dirname "$0")/lib.sh"
mkdir -p "$LOGS"
rc=0

# kunit ARCH: one boot of ARCH's test shape, its results.
kunit() {
	load_arch "$1"
	shape=$TEST_SHAPE
	log=$LOGS/kunit-$shape.log
	args="kunit.enable=1${KUNIT_FILTER:+ kunit.filter_glob=$KUNIT_FILTER}"
	say "# kunit: boot $shape: $args"
	NAME=kunit-$shape sh "$TOP/scripts/boot.sh" "$shape" "$args" true >/dev/null 2>"$log.why" || {
		echo "not ok - kunit: $1: boot failed ($log)"; sed 's/^/  /' "$log.why"; rc=1; return; }
	parsed=$LOGS/kunit-$shape.parsed
	# The calibration's kthread starts at late_initcall, as KUnit runs,
	# and its report lines can land inside the KTAP, where kunit.py takes
	# them for a broken test: they are left out of what it parses.
	grep -v '\] migration cost: ' "$log" > "$log.ktap"
	python3 "$SRC/tools/testing/kunit/kunit.py" parse "$log.ktap" > "$parsed" 2>&1 || rc=1
	sed -n "s/^.*Testing complete/$1: Testing complete/p" "$parsed"
	# One line per leaf test (a case, or each parameter of a parameterised
	# case) from the raw KTAP, a skip counting as a failure: a result line
	# is a leaf when the result line before it is not nested deeper.
	# Names are suite.case[.parameter].
	sed 's/^\[[ .0-9]*\] //' "$log" | tr -d '\r' | awk -v arch="$1" '
		{ match($0, /^ */); d = RLENGTH; line = substr($0, d + 1) }
		line ~ /^# Subtest: / { sub(/^# Subtest: /, "", line); name[d] = line; next }
		line ~ /^(not )?ok [0-9]+ / {
			if (d > 0 && (prev == "" || prev <= d)) {
				res = (line ~ /^not /) ? "not ok" : "ok"
				if (line ~ /# SKIP/) res = "not ok"
				sub(/^(not )?ok [0-9]+ /, "", line); sub(/ # SKIP.*/, "", line)
				path = ""
				for (i = 4; i <= d; i += 4) path = path name[i] "."
				print res " - kunit: " arch ": " path line
			}
			prev = d
		}'
	grep -q 'Testing complete' "$parsed" || { echo "not ok - kunit: $1: no KTAP in $log"; rc=1; }
}

for arch in $ARCHES; do
	kunit "$arch"
done
exit $rc
