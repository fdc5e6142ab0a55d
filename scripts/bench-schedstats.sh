#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench-schedstats (and the end of make bench): task_hot()'s effect in
# the scheduler's own counters, level by level.  The series' kernel on SHAPE
# (numa) with schedstats=enable runs the ebizzy-like load (guest/ebizzy.c,
# THREADS threads for LOAD_SECONDS s) under per-level values that differ in one
# level only: the default (every level follows migration_cost_ns, 0.5 ms),
# then NUMA and then MC at 1 us (nothing is hot) and at 50 ms (everything
# that ran lately is hot).  Per level it reports, over the load only and as
# medians of ROUNDS boots: lb_gained (tasks load balancing moved at that
# level), lb_hot_gained (moved although hot, after cache_nice_tries failed
# balances), and over the load's threads nr_failed_migrations_hot (moves
# task_hot() refused, any level) and se.nr_migrations.
# Environment: ROUNDS (3), SHAPE (numa), THREADS (24), LOAD_SECONDS (8).
set -eu
. "$(dirname "$0")/lib.sh"
rounds=${ROUNDS:-3}
shape=${SHAPE:-numa}
threads=${THREADS:-24}
secs=${LOAD_SECONDS:-8}
bench_dir bench-schedstats

configs="default:
NUMA-1us:migration_cost=NUMA:1
NUMA-50ms:migration_cost=NUMA:50000
MC-1us:migration_cost=MC:1
MC-50ms:migration_cost=MC:50000"

run="schedstat-levels | sed 's/^/before /'
ebizzy -t $threads -S $secs > /tmp/ebizzy & p=\$!
sleep $((secs - 1)); schedstat-levels \$p | sed 's/^/after /'
wait \$p; cat /tmp/ebizzy"

: > "$out/results"
r=1
while [ "$r" -le "$rounds" ]; do
	echo "$configs" | while IFS=: read -r name args; do
		log=$LOGS/bench-schedstats-$name-$r.log
		NAME="bench-schedstats-$name-$r" sh "$TOP/scripts/boot.sh" "$shape" \
			"sched_verbose schedstats=enable $args" "$run" >/dev/null ||
			die "bench-schedstats: $name boot $r failed: $log"
		guest_output "$log" | awk -v n="$name" '
			function kv(  i, f) { delete v; for (i = 3; i <= NF; i++) if (split($i, f, "=") == 2) v[f[1]] = f[2] }
			$2 == "level" { kv(); for (k in v) val[$1, $3, k] = v[k]; lv[$3] = 1 }
			$2 == "tasks" { kv(); print n, "tasks", "failed_hot", v["failed_hot"]; print n, "tasks", "migrations", v["migrations"] }
			END { for (l in lv) {
				print n, l, "lb_gained", val["after", l, "lb_gained"] - val["before", l, "lb_gained"]
				print n, l, "lb_hot_gained", val["after", l, "lb_hot_gained"] - val["before", l, "lb_hot_gained"] } }'
	done >> "$out/results"
	say "bench-schedstats: round $r of $rounds done"
	r=$((r + 1))
done

# The table: per configuration, each level's medians, then the threads'.
say ""
say "== task_hot per level: $rounds boots of $shape, ebizzy -t $threads for $secs s, schedstats over the load"
say "== LEVEL: lb_gained/lb_hot_gained (medians); threads: nr_failed_migrations_hot, se.nr_migrations"
awk "$AWK_MEDIAN"'
	{ key = $1 SUBSEP $2 SUBSEP $3; vals[key] = vals[key] " " $4; names[$1] = 1
	  if ($2 != "tasks" && !($2 in seenl)) { seenl[$2] = 1; levels[++nl] = $2 } }
	END {
		split("default NUMA-1us NUMA-50ms MC-1us MC-50ms", order, " ")
		printf "%-10s", "config"; for (i = 1; i <= nl; i++) printf " %16s", levels[i]; printf " %11s %11s\n", "failed_hot", "migrations"
		for (c = 1; c <= 5; c++) { n = order[c]; if (!(n in names)) continue
			printf "%-10s", n
			for (i = 1; i <= nl; i++) printf " %16s", median(vals[n SUBSEP levels[i] SUBSEP "lb_gained"]) "/" median(vals[n SUBSEP levels[i] SUBSEP "lb_hot_gained"])
			printf " %11s %11s\n", median(vals[n SUBSEP "tasks" SUBSEP "failed_hot"]), median(vals[n SUBSEP "tasks" SUBSEP "migrations"]) }
	}' "$out/results" | tee "$out/table"
say "== raw results: ${out#$TOP/}/results"
