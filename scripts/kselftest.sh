#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kselftests: for each arch in ARCHES, boot its test shape (arch/ARCH's
# TEST_SHAPE) as it comes (calibration skipped under QEMU), with every level
# pinned by migration_cost=, and with the calibration forced; run the tree's
# tools/testing/selftests/sched with run_kselftest.sh, one result line per
# test (the TAP subtests of each program included), tagged with the arch;
# a skip counts as a failure, since the guests provide everything the
# tests need.  CACHE_HOT_TIME_RECALIBRATE=1 lets cache_hot_time_test run the
# calibration again (its values stay until the guest powers off).
set -eu
. "$(dirname "$0")/lib.sh"
mkdir -p "$LOGS"
rc=0

# kselftest ARCH NAME [ARGS...]: one boot, its results tagged with ARGS.
kselftest() {
	arch=$1 name=$2; shift 2
	load_arch "$arch"
	tag=${*:+ [$*]}
	log=$LOGS/kselftest-$TEST_SHAPE-$name.log
	say "# kselftest: boot $TEST_SHAPE: sched_verbose $*"
	NAME="kselftest-$TEST_SHAPE-$name" sh "$TOP/scripts/boot.sh" "$TEST_SHAPE" \
		"sched_verbose $*" 'cd /kselftest && CACHE_HOT_TIME_RECALIBRATE=1 ./run_kselftest.sh -c sched' >/dev/null 2>"$log.why" || {
		echo "not ok - kselftest: $arch: boot failed$tag ($log)"; sed 's/^/  /' "$log.why"
		rc=1; return; }
	# run_kselftest.sh prefixes a program's own TAP with "# "; its own
	# result line for a program may follow output without a newline.
	guest_output "$log" | awk -v tag="$tag" -v arch="$arch" -v skips=" ${KSELFTEST_SKIPS:-} " '
		/^# selftests: / { prog = $NF; started[prog] = 1; order[++n] = prog }
		/^# #  RUN / { next }
		/^# (not )?ok [0-9]+ / { line = $0; sub(/^# /, "", line)
			res = (line ~ /^not/) ? "not ok" : "ok"
			# Every test can run in our guests: a skip is a failure.
			if (line ~ /# SKIP/) res = "not ok"
			sub(/^(not )?ok [0-9]+ /, "", line)
			print res " - kselftest: " arch ": " prog "." line tag; sub_seen[prog] = 1; next }
		match($0, /(not )?ok [0-9]+ selftests: [^:]*: [^ ]+/) {
			line = substr($0, RSTART); p = line
			sub(/^(not )?ok [0-9]+ selftests: [^:]*: /, "", p); sub(/ .*/, "", p)
			done[p] = 1
			res = (line ~ /^not/ || line ~ / # SKIP/) ? "not ok" : "ok"
			# A program the arch expects to skip must skip, not fail.
			if (index(skips, " " p " ")) {
				res = (line ~ /^ok .* # SKIP/) ? "ok" : "not ok"
				print res " - kselftest: " arch ": " p " skips (expected here)" tag
			} else if (!sub_seen[p])
				print res " - kselftest: " arch ": " p tag }
		END { for (i = 1; i <= n; i++) if (!done[order[i]])
			print "not ok - kselftest: " arch ": " order[i] ": no result" tag }'
	guest_output "$log" | grep -q '^ok [0-9]* selftests: sched: cache_hot_time_test' || rc=1
}

# KSELFTEST_BOOTS: which of the boots (default all four; the debug stage
# runs "default named", the named one forcing the calibration too).
boots=${KSELFTEST_BOOTS:-default pinned calibrated named}
for arch in $ARCHES; do
	for b in $boots; do
		case $b in
		default) kselftest "$arch" default ;;
		pinned) kselftest "$arch" pinned migration_cost=1000,2000,4000,8000 ;;
		calibrated) kselftest "$arch" calibrated migration_calibrate=force max_cache_size=131072 ;;
		named) kselftest "$arch" named migration_cost=MC:300,NUMA:2000 migration_calibrate=force max_cache_size=131072 ;;
		*) echo "not ok - kselftest: no boot '$b' in KSELFTEST_BOOTS"; rc=1 ;;
		esac
	done
done
exit $rc
