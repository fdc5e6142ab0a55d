#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A stressor nobody here wrote against the calibration: Debian's stress-ng
# (its affinity, context-switch, yield and scheduling-policy stressors) for
# STRESS_SECONDS (60) on the debug kernel, with the calibration forced at
# boot and rerun through debugfs every 2 s, while a loop reads every
# per-domain group_capacity and cache_hot_time and the calibration's state
# and matrix, and writes each domain1's cache_hot_time.  Any report, an
# RCU stall or a hung task among them, fails the boot (scripts/boot.sh);
# stress-ng must finish its run, and the reruns must have run.
# STRESS_SHAPE (the arch's test shape) and STRESS_ROUNDS (1) boot it again;
# STRESS_HOST_HOGS=N runs N busy loops on the host meanwhile, a loaded host.
. "$(dirname "$0")/lib.sh"
S=${STRESS_SECONDS:-60}
SHAPE=${STRESS_SHAPE:-$(load_arch "${ARCH:-x86_64}" && echo "$TEST_SHAPE")}
# The debug kernel's archive with stress-ng (scripts/initramfs.sh).
STRESS_INITRAMFS=${INITRAMFS:+${INITRAMFS%/*}/initramfs-stress.cpio}

RUN="D=/sys/kernel/debug/sched
mc-wait 600 >/dev/null
( n=0; while :; do echo 1 2>/dev/null > \$D/migration_cost/calibrate && n=\$((n + 1))
	echo \$n > /tmp/reruns; sleep 2; done ) & rerun=\$!
( while :; do
	cat \$D/domains/cpu*/domain*/group_capacity \$D/domains/cpu*/domain*/cache_hot_time \\
		\$D/migration_cost/state \$D/migration_cost/matrix >/dev/null 2>&1
	for f in \$D/domains/cpu*/domain1/cache_hot_time; do echo 0 2>/dev/null > \$f; done
done ) & rw=\$!
stress-ng --affinity 2 --switch 2 --yield 2 --schedpolicy 1 --timeout ${S}s > /tmp/stress 2>&1
echo \"stress: stress-ng exit \$?\"
kill \$rerun \$rw; wait \$rerun \$rw 2>/dev/null
sed 's/^/stress: /' /tmp/stress
echo \"stress: reruns \$(cat /tmp/reruns)\"
mc-wait 600 >/dev/null && echo 'stress: calibration idle after'"

[ -f "${STRESS_INITRAMFS:-}" ] || {
	not_ok "stress: no archive with stress-ng (${STRESS_INITRAMFS:-INITRAMFS unset}): scripts/debug.sh runs this test"
	finish; }
hogs=
i=0
while [ "$i" -lt "${STRESS_HOST_HOGS:-0}" ]; do
	sh -c 'while :; do :; done' & hogs="$hogs $!"
	i=$((i + 1))
done
trap '[ -z "$hogs" ] || kill $hogs' EXIT
round=1
while [ "$round" -le "${STRESS_ROUNDS:-1}" ]; do
	name=stress
	[ "$round" = 1 ] || name=stress-$round
	if INITRAMFS=$STRESS_INITRAMFS TIMEOUT=$((S * 4 + 600)) boot "$name" "$SHAPE" \
		"migration_calibrate=force max_cache_size=131072" "$RUN"; then
		check "stress: stress-ng ran ${S} s and passed, no report ($SHAPE, round $round)" \
			sh -c 'echo "$1" | grep -qx "stress: stress-ng exit 0" &&
				echo "$1" | grep -q "stress: .*successful run completed"' - "$OUT"
		reruns=$(echo "$OUT" | sed -n 's/^stress: reruns \([0-9]*\)$/\1/p')
		check "stress: the calibration reran meanwhile (${reruns:-0} times)" \
			[ "${reruns:-0}" -ge $((S / 10)) ]
		check "stress: and ended" out_has 'stress: calibration idle after'
	fi
	round=$((round + 1))
done
finish
