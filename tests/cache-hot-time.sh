#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# migration_cost=: per-level cache_hot_time on every CPU, at boot and after
# the domains are rebuilt by CPU hotplug, cpusets and isolcpus.
. "$(dirname "$0")/lib.sh"
PINNED="migration_cost=1000,2000,4000,8000"
WANT="SMT=1000000 MC=2000000 PKG=4000000 NUMA=8000000"

# No parameter: every domain follows migration_cost_ns (0), nothing printed.
if boot default numa "sched_verbose" 'sched-domains'; then
	check "default: every domain's cache_hot_time is 0 (follows migration_cost_ns)" \
		domains_are "SMT=0 MC=0 PKG=0 NUMA=0"
	check "default: effective value is migration_cost_ns=500000" \
		sh -c "echo \"\$1\" | awk '/^cpu[0-9]/ && \$6 != 500000 { exit 1 }'" - "$OUT"
	check "default: no migration_cost line in dmesg" [ "$(count 'migration_cost')" = 0 ]
fi

if boot pinned numa "sched_verbose $PINNED" 'sched-domains'; then
	check "pinned: SMT, MC, PKG, NUMA = 1, 2, 4, 8 ms on every CPU" domains_are "$WANT"
	check "pinned: dmesg names the levels" \
		has 'migration_cost: SMT 1000 us, MC 2000 us, PKG 4000 us, NUMA 8000 us$'
	check "pinned: all 16 CPUs x 4 levels listed" \
		[ "$(echo "$OUT" | grep -c '^cpu[0-9]')" = 64 ]
fi

# One value for all levels; fewer values than levels inherit the last.
if boot fewer numa "sched_verbose migration_cost=1000,2000" 'sched-domains'; then
	check "fewer values: higher levels inherit the last" \
		domains_are "SMT=1000000 MC=2000000 PKG=2000000 NUMA=2000000"
fi
# 0 follows migration_cost_ns: only PKG and above are pinned.
if boot zero numa "sched_verbose migration_cost=0,0,5000" 'sched-domains'; then
	check "zeros: SMT and MC follow migration_cost_ns, PKG and NUMA 5 ms" \
		domains_are "SMT=0 MC=0 PKG=5000000 NUMA=5000000"
	check "zeros: dmesg says default" \
		has 'migration_cost: SMT default, MC default, PKG 5000 us, NUMA 5000 us$'
fi
if boot more ht "sched_verbose migration_cost=1,2,3,4" 'sched-domains'; then
	check "more values than levels: SMT, MC = 1, 2 us" domains_are "SMT=1000 MC=2000"
	check "more values than levels: a warning says which are unused" \
		has 'migration_cost=: 2 topology levels, 2 of the 4 values unused'
fi

# Named levels, in any order; the levels not named keep the default.
if boot named numa "sched_verbose migration_cost=NUMA:2000,MC:200,PKG:800" 'sched-domains'; then
	check "named: MC, PKG, NUMA = 200, 800, 2000 us, SMT default" \
		domains_are "SMT=0 MC=200000 PKG=800000 NUMA=2000000"
	check "named: dmesg names the levels" \
		has 'migration_cost: SMT default, MC 200 us, PKG 800 us, NUMA 2000 us$'
fi
if boot unknown ht "sched_verbose migration_cost=LLC:300,MC:200" 'sched-domains'; then
	check "unknown name: one warning" \
		[ "$(count 'migration_cost=: no topology level is named LLC at boot; LLC:300 is unused until one is$')" = 1 ]
	check "unknown name: MC is set all the same" domains_are "SMT=0 MC=200000"
fi

# values_are NAME ARGS WANT DESCRIPTION: a numa boot with ARGS gives every
# domain the value WANT gives its level.
values_are() {
	boot "$1" numa "sched_verbose $2" 'sched-domains' && check "$1: $4" domains_are "$3"
}

# nosmt takes the SMT level away: names still land on their levels, the
# positional form moves every value one level down (why names exist).
values_are nosmt "nosmt migration_cost=MC:200,PKG:800,NUMA:2000" \
	"MC=200000 PKG=800000 NUMA=2000000" "named: no SMT domain, MC, PKG, NUMA keep their values"
values_are nosmt_positional "nosmt migration_cost=0,200,800,2000" \
	"MC=0 PKG=200000 NUMA=800000" "positional: the first value goes to MC"

# maxcpus=3 (CPUs 0, 2 and 4: primary threads first) on node 0: no NUMA
# level at boot, not even in the topology table; it appears with CPU 8, the
# first of node 1, and gets its named value then.
if boot maxcpus numa "sched_verbose maxcpus=3 migration_cost=MC:200,PKG:800,NUMA:2000" '
	sched-domains
	echo 1 > /sys/devices/system/cpu/cpu8/online
	echo "-- online"
	sched-domains'; then
	before=$(echo "$OUT" | sed '/^-- online/,$d')
	after=$(echo "$OUT" | sed '1,/^-- online/d')
	check "maxcpus=3: no NUMA domain at boot" \
		sh -c "! echo \"\$1\" | grep -q ' NUMA '" - "$before"
	check "maxcpus=3: the boot says NUMA:2000 waits for a NUMA level" \
		has 'migration_cost=: no topology level is named NUMA at boot; NUMA:2000 is unused until one is$'
	check "maxcpus=3: CPU 0 has a NUMA domain once CPU 8 is online" \
		sh -c "echo \"\$1\" | grep -qE '^cpu0 .* NUMA '" - "$after"
	OUT=$after check "maxcpus=3: every level with its named value" \
		domains_are "MC=200000 PKG=800000 NUMA=2000000"
fi

# One CPU: no sched domains, nothing to map, and no crash.
if boot up up "sched_verbose migration_cost=1000" 'true'; then
	check "up: no topology levels, the value is unused" \
		has 'migration_cost=: 0 topology levels, 1 of the 1 values unused'
fi

# Hotplug: CPU0 loses its SMT sibling, so its SMT level degenerates and its
# domain0 becomes MC; MC keeps the MC value.  Then the sibling comes back.
if boot hotplug numa "sched_verbose $PINNED" '
	echo 0 > /sys/devices/system/cpu/cpu1/online
	echo 0 > /sys/devices/system/cpu/cpu9/online
	sched-domains
	echo 1 > /sys/devices/system/cpu/cpu1/online
	echo 1 > /sys/devices/system/cpu/cpu9/online
	echo "-- online again"
	sched-domains'; then
	before=$(echo "$OUT" | sed '/^-- online again/,$d')
	after=$(echo "$OUT" | sed '1,/^-- online again/d')
	check "hotplug: CPU0's domain0 is MC with 2 ms after its sibling goes offline" \
		sh -c "echo \"\$1\" | grep -qE '^cpu0 +domain0 +[0-9]+ +MC +2000000 '" - "$before"
	OUT=$before check "hotplug: values stay per level with CPUs offline" domains_are "$WANT"
	OUT=$after check "hotplug: values per level once the CPUs are back" domains_are "$WANT"
	check "hotplug: the values are printed once" [ "$(count 'migration_cost: SMT')" = 1 ]
fi

# cpusets: a partition for the second socket splits the domains in two and
# drops the NUMA level; the other levels keep their values.
if boot cpuset numa "sched_verbose $PINNED" '
	cg=/sys/fs/cgroup
	mount -t cgroup2 cgroup2 $cg && echo +cpuset > $cg/cgroup.subtree_control &&
	mkdir $cg/socket1 && echo 8-15 > $cg/socket1/cpuset.cpus &&
	echo root > $cg/socket1/cpuset.cpus.partition &&
	grep -qx root $cg/socket1/cpuset.cpus.partition && sched-domains'; then
	check "cpusets: two partitions, no NUMA level" \
		sh -c "! echo \"\$1\" | grep -q NUMA" - "$OUT"
	check "cpusets: CPU 8 is in a PKG domain of the partition" \
		sh -c "echo \"\$1\" | grep -qE '^cpu8 +domain2 +3 +PKG +4000000 '" - "$OUT"
	check "cpusets: SMT, MC, PKG keep their values" domains_are "$WANT"
fi

# isolcpus: the isolated socket has no domains, the other keeps its values.
if boot isolcpus numa "sched_verbose isolcpus=8-15 $PINNED" 'sched-domains'; then
	check "isolcpus: only CPUs 0-7 have domains" \
		sh -c "[ \"\$(echo \"\$1\" | awk '/^cpu[0-9]/ { print \$1 }' | sort -u | wc -l)\" = 8 ]" - "$OUT"
	check "isolcpus: SMT, MC, PKG keep their values" domains_are "$WANT"
fi
finish
