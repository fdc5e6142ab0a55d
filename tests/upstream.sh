#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kernel's own cpuset partition and CPU hotplug tests, unmodified
# (tools/testing/selftests/cgroup/test_cpuset_prs.sh and
# cpu-hotplug/cpu-on-off-test.sh -a, under Debian's bash-static), on the
# series' kernel and on the base kernel, shape by shape: the series must
# pass every case the base passes.  test_cpuset_prs.sh stops at its first
# failing case, so a run is "all passed", "failed at case X" or, when the
# guest hangs (scripts/boot.sh's NMI then leaves every CPU's stack in the
# log), "hung in case X"; a case that fails or hangs on both kernels is
# shown on the result line, not hidden.
# UPSTREAM_SHAPES: the shapes (default numa and ht: x86_64 only; make
# check-debug adds biglittle and pseries).
# UPSTREAM_BASE: "recorded" (the default, make check's) compares the series
# with the base's results recorded in tests/upstream.base, which saves
# building a base kernel for x86_64 (10 minutes on 2 cores); "boot" (make
# check-debug's) boots the base kernel, compares with it, and checks that
# the record, where there is one, is still what the base does.
. "$(dirname "$0")/lib.sh"
# A hang is a result here (prs_result, hang_note), not a failed boot.
HANG_IS_RESULT=1

# As a systemd machine has it: cgroup2 with cpuset enabled below the root,
# whose cpuset files the test reads before it enables cpuset itself.
RUN='mount -t cgroup2 none /sys/fs/cgroup && echo +cpuset > /sys/fs/cgroup/cgroup.subtree_control || exit 1
(cd /kselftest/cgroup && ./test_cpuset_prs.sh); echo "cpuset_prs: exit $?"
(cd /kselftest/cpu-hotplug && ./cpu-on-off-test.sh -a); echo "cpu_on_off: exit $?"'

# prs_result: how far test_cpuset_prs.sh got: its results in $OUT, its
# progress ("Running test N ...", which it writes to /dev/console) in the
# console log, first.
prs_result() {
	{ kernel_lines "$LOG" | grep '^Running ' || :; echo "$OUT"; } | awk -v hung="$HUNG" '
		/^All [0-9]+ tests of .* PASSED\.$/ { all += $2 }
		/^Inotify test PASSED$/ { all++ }
		# The matrix cases before the one that failed or hung passed.
		/^Running test [0-9]+ / { started++ }
		/^Running / { last = $0; sub(/^Running /, "", last); sub(/ \.\.\.$/, "", last) }
		/^Test .* failed .* check!$/ || /^FAILED: / { fail = $0 }
		/^cpuset_prs: exit / { rc = $3 }
		END {
			n = started > 0 ? started - 1 : 0
			if (hung) print "hung in " last " after " n " cases passed"
			else if (rc == 0 && fail == "") print "all " all " cases passed"
			else print (fail == "" ? "exit " rc : fail) " after " n " cases passed"
		}'
}
# hotplug_result: cpu-on-off-test.sh's exit status and its failed steps.
hotplug_result() {
	echo "$OUT" | grep -q '^cpu_on_off: exit ' || { echo "not run"; return; }
	f=$(echo "$OUT" | grep -cE 'unexpected (fail|success)|expect(ed)? .*fail')
	echo "exit $(echo "$OUT" | sed -n 's/^cpu_on_off: exit //p'), $f failed steps"
}
# passed RESULT: the number of cases a prs_result passed ("all": a lot).
passed() { case $1 in "all "*) echo 1000000 ;; *) echo "$1" | sed 's/.* after \([0-9]*\) cases passed$/\1/' ;; esac; }

# hang_note: where the NMI found the CPUs of a hung boot ($LOG): the most
# common place, as the function a CPU was in and its first caller that is
# not a lock function.
hang_note() {
	[ "$HUNG" = 1 ] || return 0
	# (A panic with panic_print bit 5 would print the log twice.)
	f=$(tr -d '\r' < "$LOG" | awk '!seen[$0]++' | awk '
		function flush() { if (rip != "") print rip (caller == "" ? "" : " in " caller); rip = caller = "" }
		/NMI backtrace for cpu [0-9]+$/ { flush(); want = 1; next }
		want && rip == "" && /RIP: [0-9a-f]+:[a-z_]/ { rip = $0; sub(/.*RIP: [0-9a-f]+:/, "", rip); sub(/\+0x.*/, "", rip); next }
		want && rip != "" && caller == "" && /\]  [a-z_][a-z0-9_.]*\+0x/ && !/lock|nmi|backtrace|panic/ {
			caller = $0; sub(/.*\]  /, "", caller); sub(/\+0x.*/, "", caller) }
		END { flush() }' | sort | uniq -c | sort -rn | awk 'NR == 1 { $1 = $1 " CPUs:"; print }')
	echo " [hung: ${f:-no NMI stacks}; ${LOG#$TOP/}]"
}

# recorded SHAPE TEST: the base's recorded result of TEST (prs, hotplug).
recorded() { sed -n "s/^$1 $2 //p" "$TOP/tests/upstream.base"; }

for shape in ${UPSTREAM_SHAPES:-numa ht}; do
	load_shape "$shape"
	if [ "${UPSTREAM_BASE:-recorded}" = recorded ]; then
		base_prs=$(recorded $shape prs) base_hp=$(recorded $shape hotplug)
		[ -n "$base_prs" ] && [ -n "$base_hp" ] ||
			{ not_ok "$shape: no base result in tests/upstream.base (UPSTREAM_BASE=boot)"; continue; }
		boot "$shape-series" "$shape" "" "$RUN" || continue
		series_prs="$(prs_result)$(hang_note)" series_hp=$(hotplug_result)
		base_prs="$base_prs (recorded)"
	else
		base_kernel "$SHAPE_ARCH" >/dev/null 2>&1 || { not_ok "$shape: the base kernel does not build"; continue; }
		boot "$shape-series" "$shape" "" "$RUN" || continue
		series_prs="$(prs_result)$(hang_note)" series_hp=$(hotplug_result)
		export KERNEL=$BASE_IMAGE
		boot "$shape-base" "$shape" "" "$RUN" || { unset KERNEL; continue; }
		unset KERNEL
		base_prs="$(prs_result)$(hang_note)" base_hp=$(hotplug_result)
		rec=$(recorded $shape prs)
		[ -z "$rec" ] || check "$shape: the base does what tests/upstream.base records" \
			[ "$rec:$(recorded $shape hotplug)" = "$base_prs:$base_hp" ]
	fi
	# The series passes as many cases as the base, at least.
	[ "$(passed "${series_prs%% \[*}")" -ge "$(passed "${base_prs%% [[(]*}")" ] && r=ok || r=not_ok
	$r "$shape: test_cpuset_prs.sh: the series passes as many cases as the base (series: $series_prs; base: $base_prs)"
	case $series_hp:$base_hp in
	"exit 0, 0 failed steps":*|"$base_hp:$base_hp") r=ok ;;
	*) r=not_ok ;;
	esac
	$r "$shape: cpu-on-off-test.sh -a: the series passes as the base does (series: $series_hp; base: $base_hp)"
done
finish
