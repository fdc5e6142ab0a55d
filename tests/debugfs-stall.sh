#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A write to a per-domain debugfs file held in copy_from_user() by a
# userfaultfd page (guest/sd-write-stall) while a CPU goes offline: the
# rebuild frees the old domains, then waits for the write to leave the
# file.  6.12 keeps the domain's address in each file and writes into the
# freed domain (KASAN reports it in the debug stage, and the value is lost);
# the series looks the domain up by CPU and index when the write arrives:
# the value lands in the domain the file names now, or the write fails with
# ENODEV where the CPU has no domains left.
. "$(dirname "$0")/lib.sh"

FILES="min_interval busy_factor"
RUN='D=/sys/kernel/debug/sched/domains
for f in '$FILES'; do
	sd-write-stall $D/cpu0/domain0/$f 37 3 | sed "s/^stall:/stall $f:/"
	echo "stall $f: now $(cat $D/cpu0/domain0/$f)"
	echo 1 > /sys/devices/system/cpu/cpu3/online
done
sd-write-stall $D/cpu5/domain0/min_interval 37 5 | sed "s/^stall:/stall gone:/"
echo 1 > /sys/devices/system/cpu/cpu5/online
echo "stall: online $(cat /sys/devices/system/cpu/online)"'

if boot stall numa "sched_verbose" "$RUN"; then
	for f in $FILES; do
		check "$f: the offline waited for the stalled write" \
			out_has "stall $f: offline blocked while the write waited: yes"
		check "$f: the write landed in CPU 0's new domain0" \
			sh -c 'echo "$1" | grep -qx "stall $2: write returned 2" &&
				echo "$1" | grep -qx "stall $2: now 37"' - "$OUT" "$f"
		check "$f: the offline completed" \
			out_has "stall $f: offline returned 1 after [0-9]* ms"
	done
	check "a write to a CPU that went offline fails with ENODEV" \
		sh -c 'echo "$1" | grep -qx "stall gone: offline blocked while the write waited: yes" &&
			echo "$1" | grep -qx "stall gone: write failed: No such device"' - "$OUT"
	check "every CPU back online" out_has "stall: online 0-15"
fi
finish
