#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# rcutorture and scftorture, one module at a time, with CPU hotplug
# (onoff_interval) and, for rcutorture, task shuffling (scftorture has no
# shuffle_interval), on the debug kernel with the
# calibration forced at boot and rerun through debugfs while they run: each
# must end with "End of test: SUCCESS".  TORTURE_SECONDS per module (30;
# make check-debug runs 120).
. "$(dirname "$0")/lib.sh"
S=${TORTURE_SECONDS:-30}
SHAPE=${TORTURE_SHAPE:-$(load_arch "${ARCH:-x86_64}" && echo "$TEST_SHAPE")}

# torture MODULE ARGS: load it, rerun the calibration every 10 s meanwhile,
# unload it after S seconds (which prints its verdict).
RUN="torture() { m=\$1; shift; modprobe \$m \"\$@\" || return 1
	end=\$((\$(date +%s) + $S))
	while [ \$(date +%s) -lt \$end ]; do
		echo 1 2>/dev/null > /sys/kernel/debug/sched/migration_cost/calibrate; sleep 10
	done
	rmmod \$m; echo \"torture: \$m done\"
}
mc-wait 600 >/dev/null
torture rcutorture onoff_interval=3000 onoff_holdoff=5 shuffle_interval=3 stat_interval=30
torture scftorture onoff_interval=1000 onoff_holdoff=5 stat_interval=30"

# A WARNING still fails the boot, but does not panic: what the kernel
# prints after one (sched_cpu_dying()'s list of the tasks left on a dying
# CPU) reaches the log.
BOOT_APPEND=$(echo "${BOOT_APPEND:-}" | sed 's/panic_on_warn=1//')
export BOOT_APPEND
if TIMEOUT=$((S * 2 * 3 + 600)) boot torture "$SHAPE" \
	"migration_calibrate=force max_cache_size=65536" "$RUN"; then
	check "rcutorture: End of test: SUCCESS after $S s of hotplug and shuffling ($SHAPE)" \
		has "rcu-torture:.*End of test: SUCCESS"
	check "scftorture: End of test: SUCCESS after $S s of hotplug ($SHAPE)" \
		has "scftorture:.*End of test: SUCCESS"
	check "torture: both modules ran to their end" \
		sh -c 'echo "$1" | grep -c "^torture: .* done$" | grep -qx 2' - "$OUT"
fi
finish
