#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench-stability: does the calibration give one value per machine, or
# a coin toss?  Per level, over BOOTS runs of each, alternating:
#   - the kernel's boot calibration (migration_calibrate=force, default
#     budget) on the host shape, vCPU threads pinned to their own host CPUs
#     ("pinned": real caches are crossed) and co-pinned, all on one host CPU
#     ("copinned": a move crosses nothing, so a "measured" level is a false
#     positive), with the host idle ("idle") and under a synthetic host load
#     burst ("burst": a busy loop per host CPU, BURST_MS on, BURST_MS off);
#   - the userspace twin natively on the host, idle and under the burst.
# For each, the value each level gets (the migration_cost= line; 0, "follow
# migration_cost_ns", counts as its 500 us), how many runs measured it, and
# the flip rate: how many runs' values are more than 2x from the run
# before.  Writes build/logs/bench/bench-stability-DATE/{records,summary}.
# Environment: BOOTS (default 10), KERNELS ("NAME:bzImage ...", default the
# series' kernel as "series"), TWINS ("NAME:binary ...", default the
# series' twin), LOADS (default "idle burst"), PINS (default "pinned
# copinned"; empty: the twins alone), GAP (seconds between rounds, default
# 0: a host that is itself a virtual machine changes where its vCPUs run
# over minutes), BURST_MS (default 30), APPEND (kernel arguments for every
# boot, e.g. migration_budget_ms=5000: TCG runs the touches about 20 times
# slower than the host, and two vCPUs on one host CPU twice slower again).
set -eu
. "$(dirname "$0")/lib.sh"
boots=${BOOTS:-10}
load_shape host
load_arch "$SHAPE_ARCH"
native_twin
kernels=${KERNELS:-series:$OBJ/$KIMAGE}
twins=${TWINS:-series:$TWIN}
loads=${LOADS:-idle burst}
pins=${PINS-pinned copinned}
burst_ms=${BURST_MS:-30}
burst_s=$(awk "BEGIN { print $burst_ms / 1000 }")
bench_dir bench-stability

# burst_start / burst_stop: a busy loop per host CPU of SHAPE_PIN, busy
# BURST_MS, then idle as long, so that some runs are hit and others not.
burst_pids=
burst_start() {
	for c in $(echo "$SHAPE_PIN" | tr ' ' '\n' | sort -u); do
		taskset -c "$c" sh -c "while :; do timeout $burst_s sh -c 'while :; do :; done'; sleep $burst_s; done" &
		burst_pids="$burst_pids $!"
	done
}
burst_stop() {
	[ -z "$burst_pids" ] || kill $burst_pids 2>/dev/null || :
	wait 2>/dev/null || :
	burst_pids=
}
trap burst_stop EXIT

# values SOURCE LOAD PIN RUN: "SOURCE LOAD PIN RUN LEVEL STATE US COST_US"
# records from a report on stdin (its level lines and its migration_cost=
# line); COST_US is "-" for a level that was not timed.
values() {
	awk -v src="$1" -v load="$2" -v pin="$3" -v run="$4" '
	{ sub(/\r$/, "") }
	/migration cost: [A-Z0-9_]+ .*\): / { l = $0; sub(/.*migration cost: /, "", l)
		split(l, f, " "); s = l; sub(/.*\): /, "", s); sub(/,.*/, "", s); gsub(/ /, "_", s)
		state[f[1]] = s; cost[f[1]] = f[3] == "us" ? f[2] : "-" }
	/migration_cost=[A-Z0-9_:,]+$/ { l = $0; sub(/.*migration_cost=/, "", l)
		n = split(l, v, ","); for (i = 1; i <= n; i++) { split(v[i], kv, ":")
			print src, load, pin, run, kv[1], state[kv[1]] == "" ? "-" : state[kv[1]], kv[2],
				cost[kv[1]] == "" ? "-" : cost[kv[1]] } }'
}

: > "$out/records"
b=1
while [ "$b" -le "$boots" ]; do
	for load in $loads; do
		[ "$load" = idle ] || burst_start
		for pin in $pins; do
			p=
			[ "$pin" = copinned ] && p=$(copinned_pins)
			for k in $kernels; do
				name=${k%%:*}
				log=$LOGS/bench-stability-$name-$load-$pin-$b.log
				KERNEL=${k#*:} PIN=$p NAME=bench-stability-$name-$load-$pin-$b TIMEOUT=300 \
					sh "$TOP/scripts/boot.sh" host "migration_calibrate=force ${APPEND:-}" mc-wait >/dev/null ||
					die "bench-stability: boot failed: $log"
				kernel_lines "$log" | values "kernel-$name" "$load" "$pin" "$b" >> "$out/records"
			done
		done
		for t in $twins; do
			"${t#*:}" | values "twin-${t%%:*}" "$load" native "$b" >> "$out/records"
		done
		burst_stop
	done
	say "bench-stability: round $b of $boots done"
	b=$((b + 1))
	[ "$b" -gt "$boots" ] || sleep "${GAP:-0}"
done

# One line per source, load, placement and level.
{
printf '%-16s %-6s %-9s %-6s %5s %9s %7s %11s  %s\n' source load placement level \
	runs measured flips 'us [lo,hi]' 'values (us, - = migration_cost_ns)'
awk -v base_us=500 '
{ k = $1 " " $2 " " $3 " " $5; if (!(k in n)) order[++nk] = k
  v = $7 ? $7 : base_us; n[k]++; meas[k] += ($6 == "measured")
  vals[k] = vals[k] (vals[k] == "" ? "" : ",") ($7 ? $7 : "-")
  costs[k] = costs[k] (costs[k] == "" ? "" : ",") $8
  if (n[k] > 1 && (v > 2 * last[k] || last[k] > 2 * v)) flips[k]++
  last[k] = v; lo[k] = (n[k] == 1 || v < lo[k]) ? v : lo[k]; hi[k] = v > hi[k] ? v : hi[k] }
END {
	for (i = 1; i <= nk; i++) { k = order[i]; split(k, f, " ")
		printf "%-16s %-6s %-9s %-6s %5d %5d/%-3d %3d/%-3d %11s  %s  costs (us): %s\n", f[1], f[2], f[3], f[4], n[k],
			meas[k], n[k], flips[k], n[k] - 1, "[" lo[k] "," hi[k] "]", vals[k], costs[k] }
}' "$out/records" | sort -s -k4,4 -k3,3 -k2,2
} | tee "$out/summary"
