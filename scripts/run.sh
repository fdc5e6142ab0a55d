#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make run: boot SHAPE (default numa) with the migration-cost calibration
# forced (QEMU is a hypervisor, where it does not run by default) and show
# what the series adds: the calibration report from dmesg, CPU0's sched
# domains with the cache_hot_time each level got, and the capacities of the
# groups of CPU0's domains (current, maximum, SMT).  APPEND replaces the
# default arguments; max_cache_size= keeps the run short under TCG, where
# even these buffers can spend the 500 ms default budget before the first
# level is done, so the budget is 10 s (the calibration runs in the
# background: the boot does not wait for it, the guest's mc-wait does).
set -eu
. "$(dirname "$0")/lib.sh"
shape=${SHAPE:-numa}
append=${APPEND:-migration_calibrate=force max_cache_size=262144 migration_budget_ms=10000}
load_shape "$shape"

say "== $(cd "$SRC" && git log --oneline base..HEAD | wc -l) patches on $(cd "$SRC" && make -s kernelversion)," \
    "shape $shape (${SHAPE_LEVELS:-no sched domains})"
say "== kernel arguments: sched_verbose $append"
log=$(sh "$TOP/scripts/boot.sh" "$shape" "sched_verbose $append" \
	'echo "-- calibration: $(mc-wait)"
	 echo "-- calibration report (dmesg)"
	 dmesg | sed -n "/\] migration cost matrix/,/\] calibration delay/p
		/\] migration cost: not calibrated/p; /\] migration cost: calibration/p
		/\] migration_cost: /p"
	 echo "-- CPU0 sched domains"; sched-domains 0
	 echo "-- CPU0 sched groups: capacity now, at most (orig), with SMT sharing (smt)"
	 for d in /sys/kernel/debug/sched/domains/cpu0/domain*; do
		sed "s/^/$(cat $d/name) /" $d/group_capacity
	 done') || {
	rc=$?; say "== boot failed, log: $log"; exit $rc; }
guest_output "$log"
say "== log: ${log#$TOP/}"
