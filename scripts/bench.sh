#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench: the series against its base on the same QEMU shape, in one run,
# alternating kernels round by round.  For each kernel configuration:
#   - init: the kernel's time at "Run /init as init process", and boot:
#     seconds from kernel start to the first line of RUN (/proc/uptime),
#     also against the series with the calibration off: the calibration runs
#     in the background and must delay neither;
#   - calibration: its delay and its migration_cost= line, and how much the
#     values vary from boot to boot (coefficient of variation per level);
#   - hackbench (rt-tests, pipe mode): seconds, median of ROUNDS boots.
# Figures are reported as ratios to the base: TCG absolute times say little.
# Environment: ROUNDS (default 5), SHAPE (default numa), HACKBENCH (arguments,
# or "none": no hackbench), BENCH_CONFIGS (the configurations to run,
# default all: base patched off forced forced-small), BENCH_EXTRA (more
# configurations, one "NAME:KERNEL:ARGS" per line, named in BENCH_CONFIGS
# too: an older build of the series, say, booted alternately with these).
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
forced-small:$OBJ/$KIMAGE:migration_calibrate=force+max_cache_size=262144
${BENCH_EXTRA:-}"
names=${BENCH_CONFIGS:-base patched off forced forced-small}
configs=$(echo "$configs" | while IFS=: read -r name rest; do
	case " $names " in *" $name "*) echo "$name:$rest" ;; esac; done)
[ -n "$configs" ] || die "BENCH_CONFIGS=$names names no configuration"
[ "$hackbench" != none ] || hackbench=

run="up=\$(cut -d' ' -f1 /proc/uptime); echo \"bench boot \$up\"
[ -z \"$hackbench\" ] || for i in 1 2; do hackbench $hackbench | sed -n 's/^Time: /bench hackbench /p'; done"

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
			/^\[ *[0-9.]+\] Run \/init as init process$/ { t = $0; sub(/^\[ */, "", t); sub(/\].*/, "", t); print name, "init", t }
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

# spread NAME KEY: the lowest and highest of NAME's KEY values, "[lo, hi]".
spread() {
	awk -v n="$1" -v k="$2" '$1 == n && $2 == k { print $3 }' "$out/results" | sort -g |
		awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR) printf "[%.3f, %.3f]", lo, hi }'
}

# ratio A B: A / B with 3 decimals, "-" when either is missing.
ratio() { if [ -n "$1" ] && [ -n "$2" ]; then printf '%.3f' "$(echo "$1 / $2" | bc -l)"; else echo -; fi; }

# The table: printed, and kept in $out/table.
{
	say ""
	say "== $rounds rounds on shape $shape; hackbench ${hackbench:-not run} (2 runs per boot)"
	say "== init: kernel time at \"Run /init\"; boot: to the first user command (median"
	say "== [lowest, highest]); vs_off: against the series with migration_calibrate=off"
	printf '%-13s %24s %7s %24s %7s %7s %11s %7s %10s\n' kernel init_s vs_off boot_s ratio \
		vs_off hackbench_s ratio calib_s
	b_boot=$(median base boot)
	b_hb=$(median base hackbench)
	o_boot=$(median off boot)
	o_init=$(median off init)
	for name in $names; do
		boot=$(median $name boot)
		init=$(median $name init)
		hb=$(median $name hackbench)
		delay=$(median $name delay)
		printf '%-13s %24s %7s %24s %7s %7s %11s %7s %10s\n' "$name" \
			"${init:--} $(spread $name init)" "$(ratio "$init" "$o_init")" \
			"$boot $(spread $name boot)" "$(ratio "$boot" "$b_boot")" "$(ratio "$boot" "$o_boot")" \
			"${hb:--}" "$(ratio "$hb" "$b_hb")" "${delay:--}"
	done
	say ""
	say "== migration_cost= lines of the calibrated boots, and their spread per level"
	for name in $names; do
		case $name in forced*) ;; *) continue ;; esac
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
