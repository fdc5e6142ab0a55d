#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench: the series against its base on the same QEMU shape, in one run,
# alternating kernels round by round.  For each kernel configuration:
#   - boot: seconds from kernel start to the first line of RUN (/proc/uptime),
#     also against the series with the calibration off: the calibration runs
#     in the background and must not delay it;
#   - calibration: its delay and its migration_cost= line, and how much the
#     values vary from boot to boot (coefficient of variation per level);
#   - hackbench (rt-tests, pipe mode): seconds, median of ROUNDS boots.
# Figures are reported as ratios to the base: TCG absolute times say little.
# Environment: ROUNDS (default 5), SHAPE (default numa), HACKBENCH (arguments).
set -eu
. "$(dirname "$0")/lib.sh"
rounds=${ROUNDS:-5}
shape=${SHAPE:-numa}
hackbench=${HACKBENCH:--p -g 2 -l 50 -s 4096}
bench_dir bench
load_shape "$shape"
[ "$SHAPE_ARCH" = x86_64 ] ||
	die "shape $shape is $SHAPE_ARCH: hackbench comes with the x86_64 guests only (arch/x86_64's GUEST_BINARIES)"
base_kernel x86_64

# Kernel configurations: NAME KERNEL ARGS (ARGS with "+" for spaces).
configs="base:$BASE_IMAGE:
patched:$OBJ/$KIMAGE:
off:$OBJ/$KIMAGE:migration_calibrate=off
forced:$OBJ/$KIMAGE:migration_calibrate=force
forced-small:$OBJ/$KIMAGE:migration_calibrate=force+max_cache_size=262144"

run="up=\$(cut -d' ' -f1 /proc/uptime); echo \"bench boot \$up\"
for i in 1 2; do hackbench $hackbench | sed -n 's/^Time: /bench hackbench /p'; done"

: > "$out/results"
r=1
while [ "$r" -le "$rounds" ]; do
	echo "$configs" | while IFS=: read -r name kernel args; do
		args=$(echo "$args" | tr + ' ')
		log=$LOGS/bench-$name-$r.log
		KERNEL=$kernel NAME="bench-$name-$r" sh "$TOP/scripts/boot.sh" \
			"$shape" "$args" "$run" >/dev/null || die "bench: $name boot $r failed: $log"
		{ guest_output "$log"; kernel_lines "$log"; } | awk -v name="$name" '
			/^bench boot / { print name, "boot", $3 }
			/^bench hackbench / { print name, "hackbench", $3 }
			/\] calibration delay: / { print name, "delay", $(NF - 1) / 1000 }
			/\] migration_cost=[A-Z0-9_:,]+$/ { sub(/.*migration_cost=/, ""); print name, "line", $0 }'
	done >> "$out/results"
	say "bench: round $r of $rounds done"
	r=$((r + 1))
done

# median NAME KEY: the median of the values of NAME's KEY lines.
median() {
	awk -v n="$1" -v k="$2" '$1 == n && $2 == k { print $3 }' "$out/results" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# The table: printed, and kept in $out/table.
{
	say ""
	say "== $rounds rounds on shape $shape; hackbench $hackbench (2 runs per boot)"
	say "== boot: to the first user command; vs_off: against the series with migration_calibrate=off"
	printf '%-13s %9s %7s %7s %11s %7s %10s\n' kernel boot_s ratio vs_off hackbench_s ratio calib_s
	b_boot=$(median base boot)
	b_hb=$(median base hackbench)
	o_boot=$(median off boot)
	for name in base patched off forced forced-small; do
		boot=$(median $name boot)
		hb=$(median $name hackbench)
		delay=$(median $name delay)
		printf '%-13s %9.3f %7.3f %7.3f %11.3f %7.3f %10s\n' "$name" "$boot" \
			"$(echo "$boot / $b_boot" | bc -l)" "$(echo "$boot / $o_boot" | bc -l)" \
			"$hb" "$(echo "$hb / $b_hb" | bc -l)" "${delay:--}"
	done
	say ""
	say "== migration_cost= lines of the calibrated boots, and their spread per level"
	for name in forced forced-small; do
		awk -v n="$name" '$1 == n && $2 == "line" { print $3 }' "$out/results" |
			awk -F, -v n="$name" '
			{ lines[NR] = $0
			  for (i = 1; i <= NF; i++) { split($i, f, ":"); lv[i] = f[1]; s[i] += f[2]; q[i] += f[2] * f[2] }
			  nf = NF }
			END {
				printf "%-13s", n; for (l = 1; l <= NR; l++) printf " %s", lines[l]; print ""
				printf "%-13s CV per level:", ""
				for (i = 1; i <= nf; i++) { m = s[i] / NR; sd = sqrt(q[i] / NR - m * m)
					printf " %s:%s", lv[i], m ? sprintf("%.2f", sd / m) : "-" }
				print "" }'
	done
} | tee "$out/table"
say "== raw results: ${out#$TOP/}/results"
