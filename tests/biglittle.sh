#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# arm64 big.LITTLE (shape biglittle, 4 CPUs of capacity-dmips-mhz 1024 and 4
# of 446): the device tree's capacities in sysfs and in every group's
# capacity, the asymmetric-capacity flags in the domain tree, and I4:
# spinning tasks fill the big CPUs first, as 6.12 places them
# (asym_capacity_test), which isolating two big CPUs must break.
. "$(dirname "$0")/lib.sh"
D=/sys/kernel/debug/sched/domains
# Its results are parsed, its exit status is not RUN's.
ASYM="/kselftest/sched/asym_capacity_test; echo asym_capacity_test: \$?"

# Domains of CPUs 0 (big) and 4 (LITTLE): "cpuC NAME flags: ..." and their
# groups as "cpuC NAME: span=...".
show='for c in 0 4; do for d in '$D'/cpu$c/domain*; do n=$(cat $d/name)
	echo "cpu$c $n flags: $(cat $d/flags)"; sed "s/^/cpu$c $n: /" $d/group_capacity
done; done; echo "cpu_capacity:" $(cat /sys/devices/system/cpu/cpu*/cpu_capacity)'

# groups_are TAG CAPACITY_ORIG...: the groups of TAG, one per value, in
# order, each with that arch_capacity, the same smt_throughput (no SMT), and
# a current capacity no larger.
groups_are() {
	tag=$1; shift
	group_lines "$tag" | awk -v want="$*" "$AWK_KV"'
		BEGIN { n = split(want, w, " ") }
		{ seen++; kv()
		  if (v["arch_capacity"] != w[seen] || v["smt_throughput"] != w[seen] ||
		      v["capacity"] > w[seen]) { bad++; print "  " $0 " (want " w[seen] ")" } }
		END { exit !(seen == n && !bad) }'
}

# flags_have TAG FLAG: the domain TAG's flags include FLAG.
flags_have() { out_match "^$1 flags: (.* )?$2( |\$)"; }

if boot topology biglittle "sched_verbose" "mc-wait; $show
	migration_cost --self-test | tail -n 1 | sed 's/^/twin-test /'"; then
	check "the userspace twin passes the kernel's test vectors on arm64" \
		out_match '^twin-test # [0-9]+ passed, 0 failed$'
	check "arm64 cannot tell virtual CPUs: the calibration does not run by default" \
		out_has 'not calibrated: the CPUs may be virtual (migration_calibrate=force calibrates)'
	check "sysfs cpu_capacity: 4 x 1024, 4 x 446 from capacity-dmips-mhz" \
		out_has "cpu_capacity: 1024 1024 1024 1024 446 446 446 446"
	check "MC of a big CPU: 4 groups of 1024" groups_are "cpu0 MC" 1024 1024 1024 1024
	check "MC of a LITTLE CPU: 4 groups of 446" groups_are "cpu4 MC" 446 446 446 446
	check "PKG: the big cluster 4096 (4 x 1024), the LITTLE one 1784 (4 x 446)" \
		groups_are "cpu0 PKG" 4096 1784
	check "PKG from a LITTLE CPU: its cluster first" groups_are "cpu4 PKG" 1784 4096
	for f in SD_ASYM_CPUCAPACITY SD_ASYM_CPUCAPACITY_FULL; do
		check "PKG has $f" flags_have "cpu0 PKG" $f
		check "MC (one capacity) has no $f" sh -c "! echo \"\$1\" | grep -q '^cpu0 MC flags: .*$f\\( \\|\$\\)'" - "$OUT"
	done
	check "sched_verbose prints each domain's groups once (4 + 4 + 2)" \
		[ "$(count ' group_capacity: span=')" -eq 10 ]
	check "sched_verbose prints the LITTLE cluster as debugfs does" \
		[ "$(klog | sed -n 's/^.*\] PKG domain 0-7 group_capacity: \(span=4-7 .*\)$/\1/p')" = \
			"$(group_lines 'cpu0 PKG' | tail -n 1)" ]
fi

# I4: where spinning tasks run, one result per N.
TIMEOUT=600 boot placement biglittle "" "$ASYM" &&
	tap_results "tasks fill the big CPUs first" asym 4

# The test takes the online CPUs, whichever they are: with CPUs 1 and 5
# offline (3 big, 3 LITTLE) it runs, and holds.
OFFLINE='for c in 1 5; do echo 0 > /sys/devices/system/cpu/cpu$c/online; done'
TIMEOUT=600 boot offline biglittle "" "$OFFLINE; ${ASYM%%;*} -v largest -v cpus_minus_1; true" &&
	tap_results "CPUs 1 and 5 offline: tasks fill the big CPUs first" asym 2

# The test can fail: with big CPUs 0-1 isolated, 4 tasks run on LITTLE
# CPUs while those are idle.
TIMEOUT=600 boot isolated biglittle "isolcpus=0-1" "${ASYM%%;*} -v largest; true" &&
	check "with isolcpus=0-1, asym_capacity_test fails for N = 4" \
		out_match '^not ok 1 asym\.largest\.largest_cpus_first'
finish
