#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The series' per-domain debugfs files (cache_hot_time, group_capacity)
# read and written in loops while CPUs go off and on line, a cpuset
# partition flips between root and member and the calibration reruns: every
# rebuild frees the old domains under the files.  Run on the KASAN kernel by
# the debug stage; the series before its fix Oopsed here within seconds.
. "$(dirname "$0")/lib.sh"
SECONDS_RUN=${RACE_SECONDS:-40}

# Each loop prints how often it went round; the files must work afterwards.
RACE='D=/sys/kernel/debug/sched
C=/sys/fs/cgroup
mount -t cgroup2 none $C && echo +cpuset > $C/cgroup.subtree_control && mkdir $C/p &&
	echo 10-11 > $C/p/cpuset.cpus || exit 1
end=$(($(date +%s) + '$SECONDS_RUN'))
loop() {
	name=$1; shift; n=0
	while [ $(date +%s) -lt $end ]; do "$@"; n=$((n + 1)); done
	echo "race: $name $n"
}
read_all() { cat $D/domains/cpu*/domain*/group_capacity $D/domains/cpu*/domain*/cache_hot_time > /dev/null 2>&1; }
write_all() { for f in $D/domains/cpu*/domain*/cache_hot_time; do echo 250000 2>/dev/null > $f; done; }
hotplug() { for c in 3 5 9 13; do echo 0 > /sys/devices/system/cpu/cpu$c/online; done
	for c in 3 5 9 13; do echo 1 > /sys/devices/system/cpu/cpu$c/online; done; }
partition() { echo root > $C/p/cpuset.cpus.partition; echo member > $C/p/cpuset.cpus.partition; }
calibrate() { echo 1 > $D/migration_cost/calibrate; }
loop read1 read_all & loop read2 read_all & loop write write_all &
loop hotplug hotplug & loop partition partition & loop calibrate calibrate &
wait
echo "race: online $(cat /sys/devices/system/cpu/online)"
for f in $D/domains/cpu*/domain*/group_capacity; do
	grep -q "^span=.* capacity=[0-9]" $f || echo "race: unreadable $f"
done
echo "race: calibration $(cat $D/migration_cost/state)"'

# loops_ran NAME MIN ...: each loop NAME went round at least MIN times.
loops_ran() {
	while [ $# -ge 2 ]; do
		n=$(echo "$OUT" | sed -n "s/^race: $1 //p")
		[ "${n:-0}" -ge "$2" ] || { echo "$1 went round ${n:-0} times"; return 1; }
		shift 2
	done
}

if TIMEOUT=$((SECONDS_RUN * 6 + 240)) boot race numa \
	"sched_verbose migration_calibrate=force max_cache_size=65536" "$RACE"; then
	ok "race: no report while the files were used across ${SECONDS_RUN} s of rebuilds"
	check "race: reads, writes, hotplug, partitions and calibrations all ran" \
		loops_ran read1 2 read2 2 write 2 hotplug 1 partition 1 calibrate 1
	check "race: every CPU back online, every group_capacity file readable" \
		sh -c 'echo "$1" | grep -qx "race: online 0-15" && ! echo "$1" | grep -q "race: unreadable"' - "$OUT"
	check "race: the last calibration finished" out_has "race: calibration done"
fi
finish
