#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fault injection, on the debug kernel (its failslab, fail_page_alloc,
# kmemleak and CPU hotplug state control): a debugfs-triggered calibration
# whose allocations fail keeps the values it had, says so and leaks
# nothing; a CPU hotplug that fails at sched:active leaves the domains,
# their per-level values and their group capacities as they were.
# CASES="debug-fault-injection:alloc" runs one case (tests/lib.sh).
. "$(dirname "$0")/lib.sh"

# The guest's snapshot of every domain: name, cache_hot_time, groups; with
# shell builtins only, since a fork per file is slow on the debug kernel.
SNAP='D=/sys/kernel/debug/sched
snap() { for d in $D/domains/cpu*/domain*; do
	read n < $d/name; read t < $d/cache_hot_time; g=
	while read l; do g="$g$l;"; done < $d/group_capacity
	echo "${d#$D/domains/} $n $t $g"
done; }'

# inject FAULT ARGS: fail FAULT's allocations while the subshell that
# writes calibrate runs (task-filter, /proc/self/make-it-fail there) or,
# with ARGS task-filter=N and a stack filter, those of the calibration's
# own kthread that the filter names; the file is opened before, so that
# only the calibration's allocations fail.  ARGS are FAULT's knobs, as
# NAME=VALUE.
INJECT='inject() { F=$D/../$1; shift
	# The filter first: the probability last, once only the writer can fail.
	echo Y > $F/task-filter; echo ${FI_VERBOSE:-0} > $F/verbose; echo N > $F/ignore-gfp-wait
	# A bounded number of failures: the page faults of the writer after
	# the write, fail too, and would be retried for ever.
	echo 16 > $F/times
	for kv in "$@"; do echo ${kv#*=} > $F/${kv%%=*}; done
	echo 100 > $F/probability
	( exec 3> $D/migration_cost/calibrate; echo 1 > /proc/self/make-it-fail
	  echo 1 >&3; echo "write: $?" )
	echo 0 > $F/probability
}
# text_of FUNCTION: "START END", where the code of FUNCTION lies in
# /proc/kallsyms (END: where the next symbol starts), for the stack filter.
text_of() { awk -v f=$1 '"'"'$3 == f { s = $1 } { a[NR] = $1 }
	END { for (i in a) if (a[i] > s && (e == "" || a[i] < e)) e = a[i]; print "0x" s, "0x" e }'"'"' /proc/kallsyms; }
leaks() { sleep 6; echo scan > $D/../kmemleak; echo "kmemleak: $(grep -c "^unreferenced object" $D/../kmemleak)"; }'

RUN="$SNAP
$INJECT
snap > /tmp/before; grep '^migration_cost=' \$D/migration_cost/matrix > /tmp/line-before
# The slabs the calibration's kthread allocates (mc_request_thread() and
# what it calls: the calibration's state, its report, its CPU mask).
set -- \$(text_of mc_request_thread)
inject failslab task-filter=N require-start=\$1 require-end=\$2
echo \"failslab: \$(cat \$D/migration_cost/state)\"
snap | cmp -s - /tmp/before && echo 'failslab: domains unchanged'
grep '^migration_cost=' \$D/migration_cost/matrix | cmp -s - /tmp/line-before && echo 'failslab: report unchanged'
# Only the pages allocated under mc_measure() fail (the stack filter): the
# buffers', not the report's nor the page faults' of the writer, whichever
# of them the page allocator or the slabs happen to have at hand.
set -- \$(text_of mc_measure)
echo \"mc_measure: \$1 \$2\"
inject fail_page_alloc task-filter=N require-start=\$1 require-end=\$2 min-order=0 ignore-gfp-highmem=N
echo \"fail_page_alloc: \$(cat \$D/migration_cost/state)\"
snap > /tmp/after
for l in \$(sed -n 's/^migration cost: \\([A-Z0-9_]*\\) .*: buffer allocation failed.*/\\1/p' \$D/migration_cost/matrix); do
	[ \"\$(grep \" \$l \" /tmp/before)\" = \"\$(grep \" \$l \" /tmp/after)\" ] &&
		echo \"fail_page_alloc: \$l kept\" || echo \"fail_page_alloc: \$l changed\"
done
leaks"

# A pinned level and a calibrated one (force, small buffers): a failure must
# keep both, the calibrated value included.
if boot alloc numa "sched_verbose migration_cost=SMT:123 migration_calibrate=force max_cache_size=65536" \
	"mc-wait && $RUN"; then
	check "failslab: the write fails with ENOMEM" out_has "write: 1"
	check "failslab: state says the values were kept" \
		out_has "failslab: failed: out of memory, values kept"
	check "failslab: dmesg says so" has 'migration cost: calibration failed \(out of memory\); values kept$'
	check "failslab: every domain's value and groups unchanged" out_has "failslab: domains unchanged"
	check "failslab: the last report stands" out_has "failslab: report unchanged"
	check "fail_page_alloc: mc_measure() is in /proc/kallsyms, for the stack filter" \
		out_match '^mc_measure: 0x[0-9a-f]+ 0x[0-9a-f]+$'
	check "fail_page_alloc: the run ends (state done), with levels whose buffer failed" \
		sh -c 'echo "$1" | grep -qx "fail_page_alloc: done" &&
			echo "$1" | grep -qE "^fail_page_alloc: [A-Z0-9_]+ (kept|changed)$"' - "$OUT"
	check "fail_page_alloc: each of them keeps its value and groups on every domain" \
		sh -c '! echo "$1" | grep -qE "^fail_page_alloc: [A-Z0-9_]+ changed$"' - "$OUT"
	check "kmemleak: no unreferenced object after both" out_has "kmemleak: 0"
fi

# sched:active's number, then an offline and an online that fail there.
HOTPLUG="$SNAP
st=\$(sed -n 's/^ *\([0-9]*\): sched:active\$/\1/p' /sys/devices/system/cpu/hotplug/states)
echo \"state: \$st\"
C=/sys/devices/system/cpu/cpu3
snap > /tmp/before
echo \$st > \$C/hotplug/fail; echo 0 2>/dev/null > \$C/online; echo \"offline: \$? \$(cat \$C/online)\"
snap | cmp -s - /tmp/before && echo 'offline: domains unchanged'
echo 0 > \$C/online; snap > /tmp/offline
echo \$st > \$C/hotplug/fail; echo 1 2>/dev/null > \$C/online; echo \"online: \$? \$(cat \$C/online)\"
snap | cmp -s - /tmp/offline && echo 'online: domains unchanged'
echo 1 > \$C/online; snap | cmp -s - /tmp/before && echo 'again: domains as at first'"

if boot hotplug numa "sched_verbose migration_cost=1000,2000,4000,8000" "$HOTPLUG"; then
	check "hotplug: sched:active is a state" out_match '^state: [0-9]+$'
	check "hotplug: an offline failing at sched:active fails, CPU 3 stays online" \
		out_has "offline: 1 1"
	check "hotplug: ... and the failed offline leaves every domain, value and group as it was" \
		out_has "offline: domains unchanged"
	check "hotplug: an online failing at sched:active fails, CPU 3 stays offline" \
		out_has "online: 1 0"
	check "hotplug: ... and the failed online leaves every domain, value and group as it was" \
		out_has "online: domains unchanged"
	check "hotplug: once online again, the domains are those of the boot" \
		out_has "again: domains as at first"
fi
finish
