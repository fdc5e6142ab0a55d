#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench-shared: throughput where SMT siblings really share a core and
# small cores are really small (shapes hybrid-shared and smt4-shared: vCPU
# threads bound to one host CPU per core, small cores capped by CPU
# bandwidth; scripts/boot.sh).  Total work per second of guest/ebizzy.c
# (records/s) and guest/run-sleep.c (threads that compute 20 ms and sleep
# 1 ms) for N = 1 .. vCPUs, three kernels booted in turn, round by round:
#   base:     6.12, the base commit with the same fragments;
#   measured: the series with the smt_capacity= table guest/smt-capacity
#             measures on the shape (one boot of the series first);
#   default:  the series without smt_capacity=: arm64 has no table, so a
#             busy sibling's thread adds nothing, the rule of preferring
#             a fully idle core (the series' default).
# Per shape, workload and N: the base's median, and each series kernel's
# median ratio to the base of the same round, with the lowest and highest.
# Environment: SHAPES (default: hybrid-shared hybrid-gain60 hybrid-gain15
# smt4-shared), ROUNDS (default 5), SECONDS_PER_N (default 3).
set -eu
. "$(dirname "$0")/lib.sh"
shapes=${SHAPES:-hybrid-shared hybrid-gain60 hybrid-gain15 smt4-shared}
rounds=${ROUNDS:-5}
secs=${SECONDS_PER_N:-3}
bench_dir bench-shared
base_kernel arm64
series=$OBJ/$KIMAGE

: > "$out/results"
for shape in $shapes; do
	# The table of this shape's cores, as the series boots on it.
	bench_boot "bench-shared-$shape-table" "$shape" "$series" "" "smt-capacity -S 1 -r 5" 900
	table=$out/bench-shared-$shape-table
	measured=$(sed -n 's/^smt_capacity=//p' "$table")
	[ -n "$measured" ] || die "bench-shared: smt-capacity printed no table on $shape: $table"
	say "bench-shared: $shape: $(grep -v '^smt_capacity=' "$table" | tr '\n' ';')"
	say "bench-shared: $shape: measured smt_capacity=$measured"
	run="v=\$(grep -c ^processor /proc/cpuinfo); n=1; while [ \$n -le \$v ]; do
		ebizzy -t \$n -S $secs; run-sleep -t \$n -S $secs; n=\$((n + 1)); done"
	# SHAPE KERNEL ROUND WORKLOAD N WORK_PER_S
	bench_rounds bench-shared "$shape" "base:$BASE_IMAGE:
measured:$series:smt_capacity=$measured
default:$series:" "$run" 1800 '
		/^(ebizzy|run-sleep) threads=[0-9]+ [a-z_]+=[0-9.]+/ {
			split($2, t, "="); split($3, w, "="); print p, $1, t[2], w[2] }'
done

say ""
say "== bench-shared: work per second, $rounds round(s) of ${secs}s per N, kernels booted in turn;"
say "== base: its median; measured, default: median ratio to the base of the same round [lowest, highest]"
awk "$AWK_RATIOS"'
	{ k = $1 " " $4 " " $5; val[k, $2, $3] = $6; if (!(k in seen)) { seen[k]; order[++nk] = k }
	  if ($2 == "base") base[k] = base[k] " " $6 }
	END {
		printf "%-14s %-9s %3s %12s %22s %22s\n", "shape", "workload", "N", "base", "measured", "default"
		for (i = 1; i <= nk; i++) { k = order[i]; split(k, f, " ")
			printf "%-14s %-9s %3d %12.0f%s%s\n", f[1], f[2], f[3], median(base[k]),
				ratios(k, "measured"), ratios(k, "default") } }' "$out/results" | tee "$out/table"
