#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Values keyed by what they mean across a rebuild of the NUMA table: on
# numa3, CPU 0 has NUMA (distance 21, node 1) and NUMA2 (distance 31, node
# 2).  Node 1's CPUs going offline take the distance 21 out of the table
# (sched_update_numa()), and CPU 0's NUMA level is then the distance 31:
# it must keep the value of the distance 31, not take the one of the
# entry's old distance; back online, each distance its own again.  Both
# forms of migration_cost=, positional and named.
. "$(dirname "$0")/lib.sh"

RUN='sched-domains 0 | sed "s/^/before: /"
echo 0 > /sys/devices/system/cpu/cpu2/online; echo 0 > /sys/devices/system/cpu/cpu3/online
sched-domains 0 | sed "s/^/offline: /"
echo 1 > /sys/devices/system/cpu/cpu2/online; echo 1 > /sys/devices/system/cpu/cpu3/online
sched-domains 0 | sed "s/^/online: /"'

# phase_is PHASE WANT: CPU 0's domains of PHASE, as "NAME=VALUE ..." (both
# NUMA entries are named NUMA in debugfs; migration_cost= calls the second
# NUMA2).
phase_is() {
	got=$(echo "$OUT" | sed -n "s/^$1: \\(cpu0 .*\\)/\\1/p" |
		awk '{ printf "%s%s=%s", n++ ? " " : "", $4, $5 }')
	[ "$got" = "$2" ] || { echo "$1: $got, want $2"; return 1; }
}

for form in "positional 100,200,300" "named MC:100,NUMA:200,NUMA2:300"; do
	set -- $form
	boot "$1" numa3 "sched_verbose migration_cost=$2" "$RUN" || continue
	check "$1: CPU 0 has MC, NUMA (21) and NUMA2 (31) with their values" \
		phase_is before "MC=100000 NUMA=200000 NUMA=300000"
	check "$1: node 1 offline, CPU 0's NUMA is the distance 31, with its value" \
		phase_is offline "MC=100000 NUMA=300000"
	check "$1: node 1 back, each distance its own value" \
		phase_is online "MC=100000 NUMA=200000 NUMA=300000"
done
finish
