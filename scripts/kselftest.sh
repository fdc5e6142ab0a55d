#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kselftests: boot numa as it comes (calibration skipped under QEMU), with
# every level pinned by migration_cost=, and with the calibration forced;
# run the tree's tools/testing/selftests/sched with run_kselftest.sh, one
# result line per test (the TAP subtests of each program included); a skip
# counts as a failure, since the guests provide everything the tests need.
set -eu
. "$(dirname "$0")/lib.sh"
rc=0

# kselftest NAME [ARGS...]: one boot, its results tagged with ARGS.
kselftest() {
	name=$1; shift
	tag=${*:+ [$*]}
	log=$(NAME="kselftest-numa-$name" sh "$TOP/scripts/boot.sh" numa \
		"sched_verbose $*" 'cd /kselftest && ./run_kselftest.sh -c sched') || {
		echo "not ok - kselftest$tag: boot failed ($log)"; rc=1; return; }
	# run_kselftest.sh prefixes a program's own TAP with "# ".
	tr -d '\r' < "$log" | awk -v tag="$tag" '
		/^# selftests: / { prog = $NF }
		/^# #  RUN / { next }
		/^# (not )?ok [0-9]+ / { line = $0; sub(/^# /, "", line)
			res = (line ~ /^not/) ? "not ok" : "ok"
			# Every test can run in our guests: a skip is a failure.
			if (line ~ /# SKIP/) res = "not ok"
			sub(/^(not )?ok [0-9]+ /, "", line)
			print res " - kselftest: " prog "." line tag; sub_seen[prog] = 1 }
		/^(not )?ok [0-9]+ selftests: / { p = $0
			sub(/^(not )?ok [0-9]+ selftests: [^:]*: /, "", p); sub(/ .*/, "", p)
			res = ($1 == "not" || / # SKIP/) ? "not ok" : "ok"
			if (!sub_seen[p]) print res " - kselftest: " p tag }'
	grep -q '^ok [0-9]* selftests: sched: cache_hot_time_test' "$log" || rc=1
}

kselftest default
kselftest pinned migration_cost=1000,2000,4000,8000
kselftest calibrated migration_calibrate=force max_cache_size=131072
exit $rc
