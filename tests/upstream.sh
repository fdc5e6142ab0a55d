#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kernel's own cpuset partition and CPU hotplug tests, unmodified
# (tools/testing/selftests/cgroup/test_cpuset_prs.sh and
# cpu-hotplug/cpu-on-off-test.sh -a, under Debian's bash-static), on the
# series' kernel and on the base kernel, shape by shape: the series must
# pass every case the base passes.  test_cpuset_prs.sh stops at its first
# failing case, so a run is "all passed" or "failed at case X"; a case that
# fails on both kernels is shown on the result line, not hidden.
# UPSTREAM_SHAPES: the shapes (default numa and ht: x86_64 only).
. "$(dirname "$0")/lib.sh"

# As a systemd machine has it: cgroup2 with cpuset enabled below the root,
# whose cpuset files the test reads before it enables cpuset itself.
RUN='mount -t cgroup2 none /sys/fs/cgroup && echo +cpuset > /sys/fs/cgroup/cgroup.subtree_control || exit 1
(cd /kselftest/cgroup && ./test_cpuset_prs.sh); echo "cpuset_prs: exit $?"
(cd /kselftest/cpu-hotplug && ./cpu-on-off-test.sh -a); echo "cpu_on_off: exit $?"'

# prs_result: how far test_cpuset_prs.sh got in $OUT.
prs_result() {
	echo "$OUT" | awk '
		/^All [0-9]+ tests of .* PASSED\.$/ { n += $2 }
		/^Inotify test PASSED$/ { n++ }
		/^Test .* failed .* check!$/ || /^FAILED: / { fail = $0 }
		/^cpuset_prs: exit / { rc = $3 }
		END {
			if (rc == 0 && fail == "") print "all " n " cases passed"
			else print (fail == "" ? "exit " rc : fail) " after " n + 0 " cases passed"
		}'
}
# hotplug_result: cpu-on-off-test.sh's exit status and its failed steps.
hotplug_result() {
	f=$(echo "$OUT" | grep -cE 'unexpected (fail|success)|expect(ed)? .*fail')
	echo "exit $(echo "$OUT" | sed -n 's/^cpu_on_off: exit //p'), $f failed steps"
}

for shape in ${UPSTREAM_SHAPES:-numa ht}; do
	load_shape "$shape"
	base_kernel "$SHAPE_ARCH" >/dev/null 2>&1 || { not_ok "$shape: the base kernel does not build"; continue; }
	boot "$shape-series" "$shape" "" "$RUN" || continue
	series_prs=$(prs_result) series_hp=$(hotplug_result)
	export KERNEL=$BASE_IMAGE
	boot "$shape-base" "$shape" "" "$RUN" || { unset KERNEL; continue; }
	unset KERNEL
	base_prs=$(prs_result) base_hp=$(hotplug_result)
	# Each passes as far as the base does, at least.
	case $series_prs:$base_prs in
	"all "*:*|"$base_prs:$base_prs") r=ok ;;
	*) r=not_ok ;;
	esac
	$r "$shape: test_cpuset_prs.sh: series $series_prs; base $base_prs"
	case $series_hp:$base_hp in
	"exit 0, 0 failed steps":*|"$base_hp:$base_hp") r=ok ;;
	*) r=not_ok ;;
	esac
	$r "$shape: cpu-on-off-test.sh -a: series $series_hp; base $base_hp"
done
finish
