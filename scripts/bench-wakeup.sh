#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench-wakeup: what the SMT capacity costs the wakeup path, on the
# shapes whose SMT siblings really share a core and whose small core is
# really small (hybrid-shared), and on the larger asym-smt-hybrid (8 vCPUs,
# TCG: its siblings share nothing, so only its scan counts mean anything).
# Wakeup-heavy loads: hackbench (rt-tests) with pipes and with Unix
# sockets (-g 2 -f 4 -l 1000, its time), and guest/pingpong (one pair
# passing a byte back and forth, round trips per second), three kernels
# booted in turn, round by round:
#   base: 6.12, the base commit with the same fragments;
#   off:  the series with smt_capacity=1024,2048, every thread a whole
#         CPU as 6.12 counts it: the key stays off;
#   on:   the series without a table, its default (a busy sibling's
#         thread adds nothing): key on; with schedstats, the scans
#         select_idle_capacity() made and the CPUs they walked (debugfs
#         sched/smt_capacity), and the wakeups (/proc/schedstat's
#         ttwu_count), per load.
# Per shape and load: the base's median, each series kernel's median ratio
# to the base of the same round with the lowest and highest (hackbench:
# time, lower is better; pingpong: round trips, higher is better), and the
# key-on kernel's CPUs walked per scan and scans per wakeup (medians).
# Environment: SHAPES (default: hybrid-shared asym-smt-hybrid), ROUNDS
# (default 5), SERIES_IMAGE (default the tree's arm64 kernel: another
# series kernel to measure, such as an earlier version of the series).
set -eu
. "$(dirname "$0")/lib.sh"
shapes=${SHAPES:-hybrid-shared asym-smt-hybrid}
rounds=${ROUNDS:-5}
bench_dir bench-wakeup
base_kernel arm64
series=${SERIES_IMAGE:-$OBJ/$KIMAGE}

# One load, its result line and, where the key is on, the counters around
# it: "LOAD VALUE scans walked wakeups".
run='F=/sys/kernel/debug/sched/smt_capacity
	count() { sed -n "s/^wakeup scans: \([0-9]*\), CPUs walked: \([0-9]*\)$/\1 \2/p" $F 2>/dev/null
		awk "/^cpu[0-9]/ { n += \$6 } END { print n }" /proc/schedstat; }
	load() { name=$1; shift; a=$(count | tr "\n" " "); v=$("$@" 2>&1 |
		sed -n "s/^Time: \([0-9.]*\)$/\1/p; s/.*round_trips_per_s=\([0-9]*\)$/\1/p")
		b=$(count | tr "\n" " "); echo "load $name ${v:-?} $a$b"; }
	load pipe hackbench -p -g 2 -f 4 -l 1000
	load socket hackbench -g 2 -f 4 -l 1000
	load pingpong pingpong -p 1 -S 3'

: > "$out/results"
for shape in $shapes; do
	# SHAPE KERNEL ROUND LOAD VALUE SCANS WALKED WAKEUPS
	bench_rounds bench-wakeup "$shape" "base:$BASE_IMAGE:
off:$series:schedstats=enable smt_capacity=1024,2048
on:$series:schedstats=enable" "$run" 900 '/^load / {
		if (NF == 9) print p, $2, $3, $7 - $4, $8 - $5, $9 - $6
		else print p, $2, $3, "-", "-", ($5 == "" ? "-" : $5 - $4) }'
done

say ""
say "== bench-wakeup: $rounds round(s), kernels booted in turn; base: its median;"
say "== off, on: median ratio to the base of the same round [lowest, highest];"
say "== hackbench in s (lower is better), pingpong in round trips/s (higher is better);"
say "== on: CPUs walked per select_idle_capacity() scan, scans per wakeup (medians)"
awk "$AWK_RATIOS"'
	$5 == "?" { next }
	{ k = $1 " " $4; val[k, $2, $3] = $5; if (!(k in seen)) { seen[k]; order[++nk] = k }
	  if ($2 == "base") base[k] = base[k] " " $5
	  if ($2 == "on" && $6 != "-" && $6 > 0) { walk[k] = walk[k] " " $7 / $6
		if ($8 > 0) per[k] = per[k] " " $6 / $8 } }
	END {
		printf "%-16s %-9s %10s %22s %22s %8s %8s\n", "shape", "load", "base", "off", "on", "walked", "scans"
		for (i = 1; i <= nk; i++) { k = order[i]; split(k, f, " ")
			printf "%-16s %-9s %10.3f%s%s", f[1], f[2], median(base[k]), ratios(k, "off"), ratios(k, "on")
			printf " %8s %8s\n", walk[k] == "" ? "-" : sprintf("%.2f", median(walk[k])),
				per[k] == "" ? "-" : sprintf("%.3f", median(per[k])) } }' "$out/results" | tee "$out/table"
