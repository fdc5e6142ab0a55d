#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench-calibration: how repeatable the migration-cost calibration is
# on real caches, in one run:
#   - BOOTS boots of the pinned host shape (each vCPU thread bound to its
#     host CPU), calibration forced: per level, the median cost, its
#     coefficient of variation over the boots and how many boots measured
#     it (passed the confidence rule), for the boot's calibration (which
#     runs while init starts) and for one rerun through debugfs once the
#     guest is idle;
#   - the userspace twin (tools/sched/migration_cost) in the same guests:
#     the kernel/twin ratio per level;
#   - the twin natively on the host: the guest/native ratio of the cost and
#     of the re-touch time (the TCG inflation);
#   - BOOTS boots co-pinned (every vCPU thread on the first host CPU), the
#     negative control: a migration in the guest moves nothing on the host,
#     so every level must be noise;
#   - BOOTS boots unpinned, for contrast (where the host has as many CPUs as
#     the guest, the host keeps busy vCPU threads apart, so these measure
#     much what pinned boots do);
#   - the calibration delay, and the bytes each level touches.
#   - the twin's sweep (--cache-size= from 64 KiB to 64 MiB) natively and in
#     the first pinned guest: the cost and re-touch time of each level for
#     buffers below and beyond the cache it loses.
# It writes build/logs/bench/bench-calibration-DATE/calibration.png (cost and re-touch
# time against buffer size, per level and source) and, for hosts of more
# than 8 CPUs, matrix.png (the kernel's matrix of the first pinned boot).
# Environment: BOOTS (default 5), SHAPE (default host).
set -eu
. "$(dirname "$0")/lib.sh"
boots=${BOOTS:-5}
shape=${SHAPE:-host}
bench_dir bench-calibration
native_twin
load_shape "$shape"

# Generous budgets: the bench wants every level timed, not the default's
# 500 ms; migration_debug=1 and --debug=1 print the per-size lines.
append="migration_calibrate=force migration_debug=1 migration_budget_ms=20000"
twin="migration_cost --debug=1 --budget-ms=20000"
run="mc-wait >/dev/null; echo 1 > /sys/kernel/debug/sched/migration_cost/calibrate
	$twin | sed 's/^/twin: /'"
sizes="65536 131072 262144 524288 1048576 2097152 4194304 8388608 16777216 33554432 67108864"
sweep="for c in $sizes; do
	migration_cost --debug=1 --budget-ms=20000 --max-cache-size=1073741824 --cache-size=\$c || [ \$? = 4 ]
done"

# records SOURCE RUN PREFIX [FIRST]: the records of CALIBRATION_LINES from
# stdin, those of the first calibration for source FIRST if given.
records() { awk -v src="$1" -v run="$2" -v pfx="$3" -v first="${4:-}" "$CALIBRATION_LINES"; }

: > "$out/records"
b=1
while [ "$b" -le "$boots" ]; do
	for pin in pinned copinned unpinned; do
		u=0 p=
		[ "$pin" = unpinned ] && u=1
		[ "$pin" = copinned ] && p=$(copinned_pins)
		r=$run
		[ "$pin$b" != pinned1 ] || r="$run; ($sweep) | sed 's/^/sweep: /'"
		log=$LOGS/bench-calibration-$pin-$b.log
		UNPINNED=$u PIN=$p NAME="bench-calibration-$pin-$b" TIMEOUT=900 \
			sh "$TOP/scripts/boot.sh" "$shape" "$append" "$r" >/dev/null ||
			die "bench-calibration: $pin boot $b failed: $log"
		kernel_lines "$log" | records "kernel-$pin" "$b" '\\] ' "boot-$pin" >> "$out/records"
		guest_output "$log" | records "twin-$pin" "$b" '^twin: ' >> "$out/records"
		guest_output "$log" | records sweep-guest 1 '^sweep: ' >> "$out/records"
		[ "$pin$b" != pinned1 ] || cp "$log" "$out/first-pinned.log"
	done
	"$TWIN" --debug=1 --budget-ms=20000 | records twin-native "$b" '^' >> "$out/records"
	if [ "$b" = 1 ]; then
		for c in $sizes; do
			"$TWIN" --debug=1 --budget-ms=20000 --max-cache-size=1073741824 --cache-size=$c || [ $? = 4 ]
		done | records sweep-native 1 '^' >> "$out/records"
	fi
	say "bench-calibration: boot $b of $boots done"
	b=$((b + 1))
done

# The summary, from the records: one table per level.
awk "$AWK_MEDIAN"'
function cv(list,   n, a, i, s, ss, m) {
	n = split(list, a, " "); if (n < 2) return ""
	for (i = 1; i <= n; i++) s += a[i]; m = s / n; if (m <= 0) return ""
	for (i = 1; i <= n; i++) ss += (a[i] - m) ^ 2
	return sprintf("%.0f%%", 100 * sqrt(ss / (n - 1)) / m)
}
function ratio(a, b) { return (a != "" && b != "" && b > 0) ? sprintf("%.2f", a / b) : "-" }
$3 == "level" { k = $1 SUBSEP $4; cost[k] = cost[k] " " $5; n[k]++; meas[k] += ($6 == "measured")
	if (!($4 in levels)) order_l[++nl] = $4; levels[$4] = 1 }
$3 == "size" { k = $1 SUBSEP $4; if ($5 + 0 > big[k] + 0) big[k] = $5
	rt[k, $5] = rt[k, $5] " " $7 / 1000; touched[$1, $2, $4] += 48 * $5 }
$3 == "delay" { delay[$1] = delay[$1] " " $4 }
$3 == "line" { line[$1] = line[$1] "  " $4 }
END {
	nsrc = split("boot-pinned kernel-pinned twin-pinned twin-native boot-copinned kernel-copinned twin-copinned boot-unpinned kernel-unpinned twin-unpinned", order, " ")
	for (li = 1; li <= nl; li++) {
		l = order_l[li]; delete med; delete r
		printf "\n== level %s\n", l
		printf "%-16s %6s %9s %11s %6s %14s %13s\n", "source", "runs", "measured", "median_us", "CV", "re-touch_us", "bytes_touched"
		for (i = 1; i <= nsrc; i++) {
			s = order[i]; k = s SUBSEP l
			if (!n[k]) continue
			med[s] = median(cost[k]); r[s] = median(rt[k, big[k]])
			bt = touched[s, 1, l]
			printf "%-16s %6d %6d/%-2d %11s %6s %14s %13s\n", s, n[k], meas[k], n[k], med[s], cv(cost[k]), r[s], bt
		}
		printf "kernel/twin, same pinned guests: cost %s, re-touch %s\n", ratio(med["kernel-pinned"], med["twin-pinned"]), ratio(r["kernel-pinned"], r["twin-pinned"])
		printf "guest/native (TCG inflation), twin: cost %s, re-touch %s\n", ratio(med["twin-pinned"], med["twin-native"]), ratio(r["twin-pinned"], r["twin-native"])
		printf "pinned/co-pinned, kernel: cost %s; pinned/unpinned: %s\n", ratio(med["kernel-pinned"], med["kernel-copinned"]), ratio(med["kernel-pinned"], med["kernel-unpinned"])
	}
	printf "\n== calibration delay, msec (median): boot pinned %s, rerun pinned %s, co-pinned %s, unpinned %s; twin native %s\n", median(delay["boot-pinned"]), median(delay["kernel-pinned"]), median(delay["kernel-copinned"]), median(delay["kernel-unpinned"]), median(delay["twin-native"])
	printf "== migration_cost= lines\n"
	for (i = 1; i <= nsrc; i++) if (order[i] in line) printf "%-16s%s\n", order[i], line[order[i]]
}' "$out/records" | tee "$out/summary"

# The curve of each level: cost and re-touch time against buffer size, per
# source: every run of the calibrations as a point, the sweeps as lines.
awk '$3 == "size" { print $5 / 1024, $6 / 1000, $7 / 1000 > (dir "/" $1 "-" $4 ".dat") }' \
	dir="$out" "$out/records"
# plot SOURCE... : gnuplot plot clauses for the .dat files of SOURCEs,
# column 2 (cost) or 3 (re-touch) as $col.
plot() {
	p=
	for src in "$@"; do
		for f in "$out/$src"-*.dat; do
			[ -f "$f" ] || continue
			t=$(basename "$f" .dat)
			case $src in
			sweep-*) w="smooth unique with linespoints" ;;
			*) w="with points" ;;
			esac
			p="$p${p:+, }'$f' using 1:$col $w title '$t'"
		done
	done
	echo "$p"
}
if command -v gnuplot >/dev/null && [ -n "$(ls "$out"/*.dat 2>/dev/null)" ]; then
	col=2 cost=$(plot sweep-native sweep-guest kernel-pinned twin-pinned twin-native)
	col=2 contrast=$(plot kernel-pinned kernel-copinned kernel-unpinned twin-copinned twin-unpinned)
	col=3 retouch=$(plot sweep-native sweep-guest kernel-pinned twin-pinned)
	gnuplot <<-EOF
	set terminal png size 1800,560
	set output '$out/calibration.png'
	set multiplot layout 1,3 title 'migration cost on shape $shape ($boots boots each; sweeps: the twin with --cache-size=)'
	set logscale x 2; set format x '%.0f'; set xlabel 'buffer (KiB)'; set grid
	set key top left font ',9'
	set ylabel 'cost (us): re-touch after migrating minus without'
	set title 'pinned guest and host (log scale: costs of 0 not shown)'
	set logscale y; set yrange [0.1:*]
	plot $cost
	set title 'pinned, co-pinned (no host migration), unpinned'
	unset logscale y; set yrange [0:*]
	plot $contrast
	set title 'where the caches end'; set logscale y; set yrange [*:*]
	set ylabel 're-touch without migrating (us)'
	plot $retouch
	unset multiplot
	EOF
	say "== plot: ${out#$TOP/}/calibration.png"
fi
# The kernel's matrix as a heatmap, where it is large enough to be one.
# The rows of the last matrix of the kernel's log (the rerun's).
kernel_lines "$out/first-pinned.log" |
	awk '/\] migration cost matrix/ { n = 0 }
	/^\[[ 0-9.]*\] \[[0-9]+\]: / { sub(/^\[[ 0-9.]*\] \[[0-9]+\]: */, ""); m[++n] = $0 }
	END { for (i = 1; i <= n; i++) print m[i] }' > "$out/matrix.dat"
if [ "$(wc -l < "$out/matrix.dat")" -gt 8 ] && command -v gnuplot >/dev/null; then
	gnuplot <<-EOF
	set terminal png size 800,700
	set output '$out/matrix.png'
	set title 'migration cost matrix (2004 units), first pinned boot'
	plot '$out/matrix.dat' matrix with image notitle
	EOF
	say "== heatmap: ${out#$TOP/}/matrix.png"
fi
