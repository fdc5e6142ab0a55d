#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# KUnit: for each arch in ARCHES, boot its test shape (arch/ARCH's
# TEST_SHAPE) with kunit.enable=1, parse the KTAP in the console log with
# the tree's kunit.py, print one result line per test case, tagged with the
# arch; then each of SHAPE_SUITES of the arch on its own boot.  KUNIT_FILTER
# runs only the suites and cases its glob matches (kunit.filter_glob:
# "suite" or "suite.case", * and ? as in the shell).
set -u
. "$(dirname "$0")/lib.sh"
mkdir -p "$LOGS"
rc=0

# Suites that test the running kernel's decisions on a machine the arch's
# test shape is not: "ARCH SHAPE SUITE [ARGS]", each booted on SHAPE with
# ARGS after the arch's test shape.  Elsewhere they skip, and the other
# boots leave them out.
SHAPE_SUITES="arm64 asym-smt-hybrid sched_smt_capacity_hybrid
arm64 asym-smt-hybrid sched_smt_capacity_hybrid_power8 smt_capacity=1024,1638,1946,2150,2304,2406,2478,2520"
SHAPE_SUITE_NAMES=$(echo "$SHAPE_SUITES" | awk '{ print $3 }')

# kunit ARCH SHAPE NAME TAG FILTER ARGS DROP: one boot of SHAPE with ARGS,
# logged in NAME.log, the results of the suites FILTER matches but those
# named in DROP; TAG names the boot in its summary.
kunit() {
	load_arch "$1"
	shape=$2
	log=$LOGS/$3.log
	set -- "$1" "$2" "$4" "$5" "$6" "${7:-}"
	args="kunit.enable=1${4:+ kunit.filter_glob=$4}${5:+ $5}"
	say "# kunit: boot $shape: $args"
	NAME=$(basename "$log" .log) sh "$TOP/scripts/boot.sh" "$shape" "$args" true >/dev/null 2>"$log.why" || {
		echo "not ok - kunit: $3: boot failed ($log)"; sed 's/^/  /' "$log.why"; rc=1; return; }
	parsed=${log%.log}.parsed
	# The calibration's kthread starts at late_initcall, as KUnit runs,
	# and its report lines can land inside the KTAP, where kunit.py takes
	# them for a broken test: they are left out of what it parses.
	grep -v '\] migration cost: ' "$log" > "$log.ktap"
	parsed_ok=1
	python3 "$SRC/tools/testing/kunit/kunit.py" parse "$log.ktap" > "$parsed" 2>&1 || parsed_ok=0
	sed -n "s/^.*Testing complete/$3: Testing complete/p" "$parsed"
	# One line per leaf test (a case, or each parameter of a parameterised
	# case) from the raw KTAP, a skip counting as a failure: a result line
	# is a leaf when the result line before it is not nested deeper.
	# Names are suite.case[.parameter].
	# A "not ok" line fails the stage; so does kunit.py's verdict, unless
	# every result was left out (it fails a boot whose tests all skip).
	sed 's/^\[[ .0-9]*\] //' "$log" | tr -d '\r' | awk -v arch="$1" -v drop=" $6 " '
		{ match($0, /^ */); d = RLENGTH; line = substr($0, d + 1) }
		line ~ /^# Subtest: / { sub(/^# Subtest: /, "", line); name[d] = line; next }
		line ~ /^(not )?ok [0-9]+ / {
			if (d > 0 && (prev == "" || prev <= d) && index(drop, " " name[4] " ") == 0) {
				res = (line ~ /^not /) ? "not ok" : "ok"
				if (line ~ /# SKIP/) res = "not ok"
				if (res != "ok") bad = 1
				shown++
				sub(/^(not )?ok [0-9]+ /, "", line); sub(/ # SKIP.*/, "", line)
				path = ""
				for (i = 4; i <= d; i += 4) path = path name[i] "."
				print res " - kunit: " arch ": " path line
			}
			prev = d
		}
		END { exit bad ? 1 : shown ? 0 : 2 }'
	case $?/$parsed_ok in 1/*|0/0) rc=1 ;; esac
	grep -q 'Testing complete' "$parsed" || { echo "not ok - kunit: $3: no KTAP in $log"; rc=1; }
}

for arch in $ARCHES; do
	load_arch "$arch"
	kunit "$arch" "$TEST_SHAPE" "kunit-$TEST_SHAPE" "$arch" "${KUNIT_FILTER:-}" "" \
		"$(echo $SHAPE_SUITE_NAMES)"
	while read -r for shape suite args; do
		[ "$for" = "$arch" ] || continue
		# With KUNIT_FILTER, only where its suite part matches, and
		# only that suite: the others need boots of their own.
		filter=$suite
		if [ -n "${KUNIT_FILTER:-}" ]; then
			case $suite in ${KUNIT_FILTER%%.*}) ;; *) continue ;; esac
			case $KUNIT_FILTER in *.*) filter=$suite.${KUNIT_FILTER#*.} ;; esac
		fi
		kunit "$arch" "$shape" "kunit-$shape-$suite" "$arch ($suite)" "$filter" "$args"
	done <<EOF
$SHAPE_SUITES
EOF
done
exit $rc
