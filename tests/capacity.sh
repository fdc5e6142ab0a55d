#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# SMT capacity: each group's capacities in debugfs and under sched_verbose,
# the Intel Hyper-Threading table (and none on an AMD CPU), the POWER8 table
# given by smt_capacity= to the 6 x 8-thread smt8 shape, a malformed
# smt_capacity=, and where spinning tasks run on smt8 and ht (I1, I2 of
# smt_spread_test, one result per N), also while RT pressure lowers the
# capacity of one core's thread.
. "$(dirname "$0")/lib.sh"
POWER8=1024,1638,1946,2150,2304,2406,2478,2520
GC=/sys/kernel/debug/sched/domains/cpu0
# Its results are parsed, its exit status is not RUN's.
SPREAD="/kselftest/sched/smt_spread_test; echo smt_spread_test: \$?"

# groups_are DOMAIN N SMT: N groups, each one core with smt_throughput SMT.
groups_are() {
	group_lines "$1" | awk -v n="$2" -v smt="$3" '
		{ seen++ } !/ cores=1 / || $NF != "smt_throughput=" smt { bad++; print "  " $0 }
		END { exit !(seen == n && !bad) }'
}

# show_groups: CPU0's group_capacity of domains 0 and 1, tagged.
show_groups="for d in 0 1; do sed \"s/^/\$d: /\" $GC/domain\$d/group_capacity; done"

TIMEOUT=900 boot power8 smt8 "sched_verbose smt_capacity=$POWER8" \
	"$show_groups; ls -l $GC/domain1/group_capacity; $SPREAD" && {
	check "power8: smt_capacity= line" \
		has "smt_capacity: core throughput with 1 to 8 busy threads: $(echo $POWER8 | tr , ' ')\$"
	check "power8: 6 cores of SMT capacity 2520 at MC" groups_are 1 6 2520
	check "power8: 8 threads of SMT capacity 1024 at SMT" groups_are 0 8 1024
	check "power8: MC groups keep 8 CPUs of capacity" \
		[ "$(group_lines 1 | grep -c ' arch_capacity=8192 ')" -eq 6 ]
	check "power8: group_capacity readable by root only" out_match '^-r-------- .*group_capacity$'
	check "power8: sched_verbose prints each domain's groups once (6 x 8 + 6)" \
		[ "$(count ' group_capacity: span=')" -eq 54 ]
	check "power8: sched_verbose prints the debugfs lines" \
		[ "$(klog | sed -n 's/^.*\] MC domain 0-47 group_capacity: \(span=0-7 .*\)$/\1/p')" = \
			"$(group_lines 1 | head -1)" ]
	tap_results "smt8 with the POWER8 table" spread 7
}

TIMEOUT=600 boot ht ht "sched_verbose" "$show_groups; $SPREAD" && {
	check "ht: 4 cores of SMT throughput 1178 (Intel table)" groups_are 1 4 1178
	tap_results "ht with the Intel table" spread 7
}
# smt_spread_test takes the online CPUs, whichever they are: with CPU 3
# offline (core 1 has one thread) it runs, and holds.
TIMEOUT=600 boot offline ht "" \
	"echo 0 > /sys/devices/system/cpu/cpu3/online; ${SPREAD%%;*} -v cores -v cores_plus_2; true" &&
	tap_results "ht, CPU 3 offline" spread 2

# The Intel table is Intel's: the same cores as an AMD EPYC have none, and
# a busy sibling's thread adds nothing.
QEMU_EXTRA="-cpu EPYC" boot amd ht "sched_verbose" "$show_groups; grep -m1 vendor_id /proc/cpuinfo" && {
	check "amd: the guest's CPU is AMD's" out_match 'vendor_id.*AuthenticAMD'
	check "amd: 4 cores of SMT throughput 1024 (no table: a sibling adds nothing)" groups_are 1 4 1024
}

# pressured SPAN PERCENT: the MC group SPAN (printed after the test) has a
# current capacity of at most PERCENT of its maximum.
pressured() {
	group_lines 1 | awk -v span="$1" -v pct="$2" "$AWK_KV"'
		$1 == "span=" span { kv(); print "  " $0; ok = v["capacity"] * 100 <= v["arch_capacity"] * pct }
		END { exit !ok }'
}

# An RT task busy 25% of the time on CPU 1 takes about a quarter of its
# capacity; the core 0-1, whose threads are idle most of the time, must
# still take its share of the spinning tasks.
TIMEOUT=600 boot rt-pressure ht "sched_verbose" \
	"rt_pressure 1 25 & sleep 2; $SPREAD; $show_groups" && {
	check "rt-pressure: core 0-1 at most 95% of its capacity after the test" pressured 0-1 95
	tap_results "ht with RT pressure on CPU 1" spread 7
}

boot malformed ht "sched_verbose smt_capacity=1024,2049" "$show_groups" && {
	check "malformed: one warning naming the parameter" \
		[ "$(count "smt_capacity=1024,2049: a thread lowers the throughput or adds more than the one before; using the architecture's SMT capacity")" -eq 1 ]
	check "malformed: the Intel table is kept" groups_are 1 4 1178
}
finish
