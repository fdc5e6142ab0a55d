#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench-smt: our ebizzy-like benchmark (guest/ebizzy.c) on the smt8
# shape, 6 cores x 8 threads, for N = 1..48 threads, the base against the
# series, alternating kernels round by round:
#   - base: the base commit, same fragments;
#   - x86: the series as it comes, the x86 Hyper-Threading table;
#   - power8: the series with the POWER8 table (smt_capacity=).
# Per N: records/s (median of ROUNDS, and its ratio to the base), the
# placement excess (threads on the busiest core beyond ceil(N/6), mean of the
# samples) and the share of samples meeting I1 (N <= 6) or I2 (N > 6).
# Under TCG, emulated threads do not share execution units and the vCPUs
# share 2 host CPUs: records/s says little, the placement is the figure.
# Environment: ROUNDS (default 1), SECONDS_PER_N (default 3), MAX_N (48).
set -eu
. "$(dirname "$0")/lib.sh"
rounds=${ROUNDS:-1}
secs=${SECONDS_PER_N:-3}
max_n=${MAX_N:-48}
bench_dir bench-smt
base_kernel

configs="base:$BASE_IMAGE:
x86:$OBJ/$KIMAGE:
power8:$OBJ/$KIMAGE:smt_capacity=1024,1638,1946,2150,2304,2406,2478,2520"
run="n=1; while [ \$n -le $max_n ]; do ebizzy -t \$n -S $secs; n=\$((n + 1)); done"

: > "$out/results"
r=1
while [ "$r" -le "$rounds" ]; do
	echo "$configs" | while IFS=: read -r name kernel args; do
		log=$LOGS/bench-smt-$name-$r.log
		KERNEL=$kernel NAME="bench-smt-$name-$r" TIMEOUT=3600 \
			sh "$TOP/scripts/boot.sh" smt8 "$args" "$run" >/dev/null ||
			die "bench-smt: $name boot $r failed: $log"
		guest_output "$log" | sed -n 's/^ebizzy //p' | tr '=' ' ' |
			awk -v name="$name" '{ print name, $2, $4, $6, $8, $10 }'
	done >> "$out/results"
	say "bench-smt: round $r of $rounds done"
	r=$((r + 1))
done

# results: NAME N RECORDS EXCESS GOOD SAMPLES; medians over rounds per N.
say ""
say "== ebizzy on smt8 (6 x 8), $rounds round(s) of ${secs}s per N; records/s ratio to base"
say "== excess: threads on the busiest core beyond ceil(N/6); ok%: samples meeting I1/I2"
awk '
	{ k = $1 " " $2; rec[k] = rec[k] " " $3; ex[k] += $4; good[k] += $5; smp[k] += $6; nr[k]++ }
	# Share of samples meeting the invariant; "-" when no sample had
	# every thread running yet.
	function pct(k) { return smp[k] ? sprintf("%.0f", 100 * good[k] / smp[k]) : "-" }
	function median(list,   v, n, i, j, t) {
		n = split(list, v, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	END {
		printf "%3s %10s %11s %6s %6s %10s %6s %6s %10s %6s\n", "N", "base_rec/s",
			"base_excess", "ok%", "x86", "x86_excess", "ok%", "power8", "p8_excess", "ok%"
		for (n = 1; n <= '"$max_n"'; n++) {
			b = median(rec["base " n])
			printf "%3d %10.0f %11.2f %6s", n, b, ex["base " n] / nr["base " n], pct("base " n)
			split("x86 power8", names, " ")
			for (i = 1; i <= 2; i++) {
				k = names[i] " " n
				printf " %6.3f %10.2f %6s", b ? median(rec[k]) / b : 0, ex[k] / nr[k], pct(k)
			}
			print ""
		}
	}' "$out/results" | tee "$out/table"
