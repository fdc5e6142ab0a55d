#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make run: boot SHAPE (default host: the machine it runs on, each vCPU
# thread pinned to its own host CPU) with the migration-cost calibration
# forced (QEMU is a hypervisor, where it does not run by default), and show
# what the series adds:
#   - the kernel's calibration report, from a rerun through debugfs once the
#     guest is idle (the boot's own run overlaps init), with migration_debug=1
#     lines per buffer size;
#   - the userspace twin's report (tools/sched/migration_cost) in the same
#     guest, and natively on this host, then one line per level side by side;
#   - CPU0's sched domains with their cache_hot_time, and the capacities of
#     the groups of CPU0's domains (current, maximum, SMT).
# APPEND replaces the default arguments; the budget is 10 s so that TCG's
# slow touches time every level.
set -eu
. "$(dirname "$0")/lib.sh"
shape=${SHAPE:-host}
# APPEND given, even empty (APPEND_GIVEN=1, from the Makefile), is used as is.
append="migration_calibrate=force migration_debug=1 migration_budget_ms=10000"
[ -z "${APPEND_GIVEN:-}" ] || append=${APPEND:-}
load_shape "$shape"
native_twin

say "== $(cd "$SRC" && git log --oneline base..HEAD | wc -l) patches on $(cd "$SRC" && make -s kernelversion)," \
    "shape $shape (${SHAPE_LEVELS:-no sched domains})"
say "== kernel arguments: sched_verbose $append"
name=run-$shape-$(date +%Y%m%d-%H%M%S)
log=$LOGS/$name.log
# What the guest prints comes as it prints it.
NAME=$name sh "$TOP/scripts/boot.sh" "$shape" "sched_verbose $append" \
	'echo "-- boot calibration: $(mc-wait)"
	 n=$(dmesg | wc -l)
	 echo 1 > /sys/kernel/debug/sched/migration_cost/calibrate
	 echo "-- kernel: calibration report, rerun on the idle guest (dmesg)"
	 dmesg | tail -n +$((n + 1)) | sed -n "s/^\[ *[0-9.]*\] //; /^migration cost/p; /^migration_cost/p
		/^using cache_hot_time/p; /^min_delta/p; /^calibration delay/p; /^ *\[[0-9]*\]/p"
	 echo "-- twin: tools/sched/migration_cost --debug=1 in the same guest"
	 migration_cost --debug=1 --budget-ms=10000 | sed "s/^/twin: /"
	 echo "-- CPU0 sched domains"; sched-domains 0
	 echo "-- CPU0 sched groups: capacity now, at most (arch_capacity), by the SMT table (smt_throughput)"
	 for d in /sys/kernel/debug/sched/domains/cpu0/domain*; do
		sed "s/^/$(cat $d/name) /" $d/group_capacity
	 done' || {
	rc=$?; say "== boot failed, log: $log"; exit $rc; }
if [ -f "$log.pins" ]; then
	say "== vCPU threads pinned: $(sed 's/vCPU \([0-9]*\) thread [0-9]* host CPU \([0-9]*\)/\1->\2/' "$log.pins" | tr '\n' ' ')"
fi
say "== twin natively on this host: ${TWIN#$TOP/} --debug=1"
# Exit status 4: no level measured, which is a result too.
"$TWIN" --debug=1 --budget-ms=10000 > "$log.native" || [ $? = 4 ]
cat "$log.native"
say ""
say "== side by side: cost, state and re-touch time (largest buffer) per level"
{
	guest_output "$log" | awk -v src=kernel -v run=1 -v pfx='^' "$CALIBRATION_LINES"
	guest_output "$log" | awk -v src=twin-guest -v run=1 -v pfx='^twin: ' "$CALIBRATION_LINES"
	awk -v src=twin-host -v run=1 -v pfx='^' "$CALIBRATION_LINES" "$log.native"
} | awk '
$3 == "size" { rt[$1, $4] = sprintf("%.1f", $7 / 1000) }
$3 == "level" { c[$1, $4] = $5 " us " $6; if (!($4 in lv)) o[++n] = $4; lv[$4] = 1 }
$3 == "line" { line[$1] = $4 }
# cell SOURCE LEVEL: cost and state, re-touch time; "-" for a level the
# source did not measure (a host whose sysfs has no cache information).
function cell(s, l) { return (s, l) in c ? c[s, l] ", " rt[s, l] " us" : "-" }
END {
	printf "%-6s %-28s %-28s %-28s\n", "level", "kernel (guest)", "twin (same guest)", "twin (host)"
	for (i = 1; i <= n; i++) {
		l = o[i]
		printf "%-6s %-28s %-28s %-28s\n", l, cell("kernel", l), cell("twin-guest", l), cell("twin-host", l)
	}
	printf "%-6s %-28s %-28s %-28s\n", "line", line["kernel"], line["twin-guest"], line["twin-host"]
}'
say "== log: ${log#$TOP/}"
