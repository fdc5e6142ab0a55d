#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ppc64le pseries (shape pseries, 8 POWER8 CPUs in 2 NUMA nodes, no SMT:
# QEMU 7.2's TCG has none on pseries): the calibration takes its cache
# sizes from ppc64_caches, which the kernel also gives every process in its
# auxiliary vector, and the log shows them; every CPU is a core of 1024.
. "$(dirname "$0")/lib.sh"
D=/sys/kernel/debug/sched/domains

# AT_L2_CACHESIZE (44) and AT_L3_CACHESIZE (46) of /proc/self/auxv: the
# ppc64_caches sizes, as "auxv L2 BYTES" and "auxv L3 BYTES".
auxv='od -An -tu8 -w16 -v /proc/self/auxv | awk '\''$1 == 44 { print "auxv L2", $2 } $1 == 46 { print "auxv L3", $2 }'\'''
groups='for d in '$D'/cpu0/domain*; do sed "s/^/$(cat $d/name): /" $d/group_capacity; done'

# level_caches: the cache each timed level loses, from the report's
# per-level lines, as "LEVEL L<n> <size>".
level_caches() {
	klog | sed -n 's/^.*\] migration cost: \([A-Z]*\) [0-9.]* us (CPU [0-9]* <-> [0-9]*, \(L[0-9]\) \([0-9]* [KM]iB\), .*/\1 \2 \3/p'
}

# A budget that TCG on a busy host cannot exhaust: every level is measured.
if boot calibrated pseries "sched_verbose migration_calibrate=force migration_debug=1 max_cache_size=65536 migration_budget_ms=10000" \
	"$auxv; mc-wait; sched-domains; $groups
	migration_cost --self-test | tail -n 1 | sed 's/^/twin-test /'
	migration_cost --debug=1 --max-cache-size=65536 --budget-ms=10000 | sed 's/^/twin: /'"; then
	l3=$(echo "$OUT" | sed -n 's/^auxv L3 //p')
	check "ppc64_caches has an L3 (POWER8: 8 MiB)" [ "${l3:-0}" -gt 0 ]
	l3mib=$((${l3:-0} / 1048576))
	check "the report names each timed level's cache: PKG and NUMA" \
		[ "$(level_caches | cut -d' ' -f1 | tr '\n' ' ')" = "PKG NUMA " ]
	check "PKG and NUMA, across L2s, lose ppc64_caches' L3 ($l3mib MiB)" \
		[ "$(level_caches | awk -v l3="$l3mib MiB" '$2 == "L3" && $3 " " $4 == l3' | wc -l)" -eq 2 ]
	check "the matrix names the buffer size, max_cache_size= capped" \
		has 'migration cost matrix \(cache_size: 65536, cpu: [0-9]+ MHz, cost: us\):$'
	check "every domain has the value of the migration_cost= line" line_is_domains
	check "the userspace twin passes the kernel's test vectors here (128-byte lines)" \
		out_match '^twin-test # [0-9]+ passed, 0 failed$'
	check "the twin finds the same levels and caches as the kernel (from the auxv)" \
		[ "$(level_caches | tr '\n' ' ')" = "$(echo "$OUT" | sed -n 's/^twin: migration cost: \([A-Z]*\) [0-9.]* us (CPU [0-9]* <-> [0-9]*, \(L[0-9]\) \([0-9]* [KM]iB\), .*/\1 \2 \3/p' | tr '\n' ' ')" ]
	check "PKG groups: 4 CPUs, each a core of 1024" \
		[ "$(group_lines PKG | grep -c '^span=[0-9] cores=1 capacity=1024 arch_capacity=1024 smt_throughput=1024$')" -eq 4 ]
	check "NUMA groups: the 2 nodes, 4 cores of 1024 each" \
		[ "$(group_lines NUMA | grep -cE '^span=(0-3|4-7) cores=4 capacity=4096 arch_capacity=4096 smt_throughput=4096$')" -eq 2 ]
fi
finish
