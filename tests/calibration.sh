#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Migration-cost calibration: skipped under QEMU by default; forced, off the
# boot path, with the cache each level loses from cacheinfo, a state for
# each level, noise that never becomes a value, the 2004 matrix and the
# named migration_cost= line; its budget, its parameters, a run stopped by
# a signal, and its values across hotplug and isolcpus.
. "$(dirname "$0")/lib.sh"
FORCE="migration_calibrate=force"
# A calibration of ~0.2 s under TCG, with a budget that a starved host
# cannot run out of (500 ms did once, before NUMA); the budget has its test.
SMALL="max_cache_size=131072 migration_budget_ms=10000"
ROW=' [ 0-9]{4}[0-9]\.[0-9]'	# a matrix cell: us, one decimal, 8 wide
US='[0-9]+\.[0-9] us'		# a cost in the per-level lines
CACHES='for i in /sys/devices/system/cpu/cpu0/cache/index*; do
	echo "cache L$(cat $i/level) $(cat $i/type) $(cat $i/size)"; done'

# row_is_levels: the matrix has, in the row and column of each timed
# level's pair, that level's cost if it was measured, else 0.0.
row_is_levels() {
	klog | sed -n 's/^\[[ .0-9]*\] \[\([0-9]*\)\]: /row \1 /p
		s/^\[[ .0-9]*\] migration cost: [A-Z0-9_]* \([0-9.]*\) us (CPU \([0-9]*\) <-> \([0-9]*\),.*: \(measured\|noise\), 90% in .*/level \1 \2 \3 \4/p' |
		awk '$1 == "row" { r = $2 + 0; for (i = 3; i <= NF; i++) cell[r, i - 3] = $i; next }
			{ n++; want = $5 == "measured" ? $2 : "0.0"
			  if (cell[$3, $4] != want) { print "CPU " $3 " <-> " $4 ": cell " cell[$3, $4] ", want " want; bad++ } }
			END { if (!n) print "no timed level"; exit bad || !n }'
}

# The report in debugfs ($OUT after "-- matrix") is the one in the log: its
# lines are log lines, in order (the kthread's lines can have other boot
# messages between them).
debugfs_is_log() {
	echo "$OUT" | sed '1,/^-- matrix/d' > "$BUILD/logs/.report"
	klog | sed 's/^\[[ .0-9]*\] //' | awk 'NR == FNR { want[++n] = $0; next }
		i < n && $0 == want[i + 1] { i++ } END { exit !(n && i == n) }' "$BUILD/logs/.report" -
}

# guest_cache LEVEL: the guest's sysfs size of CPU 0's unified cache LEVEL,
# as the report prints it ("1 MiB", "512 KiB").
guest_cache() {
	echo "$OUT" | awk -v l="L$1" '$1 == "cache" && $2 == l && $3 == "Unified" {
		s = $4; sub(/K$/, "", s); s += 0
		print (s % 1024 ? s " KiB" : s / 1024 " MiB") }'
}

# Under QEMU, a hypervisor: not calibrated, said once, defaults kept.
if boot default numa "sched_verbose" 'mc-wait; sched-domains'; then
	check "default: skipped under a hypervisor, said once" \
		[ "$(count 'migration cost: not calibrated: the CPUs may be virtual')" = 1 ]
	check "default: the state says why" \
		out_has 'not calibrated: the CPUs may be virtual (migration_calibrate=force calibrates)'
	check "default: no matrix" [ "$(count 'migration cost matrix')" = 0 ]
	check "default: every level follows migration_cost_ns" \
		domains_are "SMT=0 MC=0 PKG=0 NUMA=0"
fi

if boot forced numa "sched_verbose $FORCE $SMALL" "$CACHES; mc-wait; sched-domains
	echo '-- matrix'; cat /sys/kernel/debug/sched/migration_cost/matrix"; then
	check "forced: the state is done" out_has 'done'
	check "forced: the matrix header, once" \
		[ "$(count '\] migration cost matrix \(cache_size: 131072, cpu: [0-9]+ MHz, cost: us\):$')" = 1 ]
	check "forced: a row of 16 column headers" \
		has '\]       (    \[[0-9][0-9]\]){16}$'
	check "forced: 16 rows of 16 cells" \
		[ "$(count "\] \[[0-9][0-9]\]: ($ROW){16}$")" = 16 ]
	check "forced: min_delta line, in us" has '\] min_delta: [0-9]+\.[0-9] us$'
	check "forced: the closing line names the per-level values" \
		has '\] using cache_hot_time per level: the lines below$'
	check "forced: the matrix has each level's cost at its pair, 0.0 unless measured" \
		row_is_levels
	# Pairs away from the boot CPU's core, 0-1, where init runs.
	check "forced: SMT (CPU 2 <-> 3) skipped" \
		[ "$(level_line SMT)" = 'SMT (CPU 2 <-> 3): skipped: SMT siblings share their caches' ]
	l2=$(guest_cache 2) l3=$(guest_cache 3)
	check "forced: MC (CPU 4 <-> 6) loses the L2 of cacheinfo ($l2), measured or noise" \
		sh -c "echo \"\$1\" | grep -qE '^MC $US \(CPU 4 <-> 6, L2 $l2, buffer [0-9]+ KiB\): (measured|noise), '" - "$(level_line MC)"
	check "forced: PKG (CPU 2 <-> 4) loses the L3 ($l3)" \
		sh -c "echo \"\$1\" | grep -qE '^PKG $US \(CPU 2 <-> 4, L3 $l3, buffer [0-9]+ KiB\): (measured|noise), '" - "$(level_line PKG)"
	check "forced: NUMA (CPU 2 <-> 8) loses the L3 ($l3)" \
		sh -c "echo \"\$1\" | grep -qE '^NUMA $US \(CPU 2 <-> 8, L3 $l3, buffer [0-9]+ KiB\): (measured|noise), '" - "$(level_line NUMA)"
	check "forced: measured levels are above noise" timed_levels_ok
	check "forced: a named migration_cost= line with the 4 levels" \
		sh -c "echo \"\$1\" | grep -qxE 'SMT:0,MC:[0-9]+,PKG:[0-9]+,NUMA:[0-9]+'" - "$(cost_line)"
	check "forced: calibration delay printed" has '\] calibration delay: [0-9]+ msec$'
	check "forced: every domain has the value of the line" line_is_domains
	check "forced: levels not measured keep 0 (migration_cost_ns)" unmeasured_zero
	check "forced: debugfs matrix is the boot report" debugfs_is_log
	LINE=$(cost_line)
	FORCED_DOMAINS=$(domains)
fi

# AMD Zen: x86_cache_size (/proc/cpuinfo's "cache size") is the L2; the
# level across CCXs must lose the L3 of cacheinfo.
if boot epyc epyc "sched_verbose $FORCE $SMALL" "$CACHES
	sed -n 's/^cache size\t*: \([0-9]*\) KB$/cpuinfo \1K/p' /proc/cpuinfo | sed -n 1p
	mc-wait; sched-domains"; then
	l2=$(guest_cache 2) l3=$(guest_cache 3)
	check "epyc: /proc/cpuinfo's cache size is the L2 ($l2), not the L3 ($l3)" \
		[ "$(echo "$OUT" | sed -n 's/^cpuinfo //p')" = "$(echo "$OUT" | awk '$1 == "cache" && $2 == "L2" { print $4 }')" ]
	check "epyc: MC (CPU 4 <-> 6) loses the L2 ($l2)" \
		sh -c "echo \"\$1\" | grep -qE '^MC $US \(CPU 4 <-> 6, L2 $l2, '" - "$(level_line MC)"
	check "epyc: PKG (CPU 2 <-> 4) loses the L3 ($l3)" \
		sh -c "echo \"\$1\" | grep -qE '^PKG $US \(CPU 2 <-> 4, L3 $l3, '" - "$(level_line PKG)"
	check "epyc: every domain has the value of the line" line_is_domains
fi

# The printed line, given back: same values, nothing measured.
if [ -n "${LINE:-}" ] && boot reproduce numa "sched_verbose $FORCE migration_cost=$LINE" 'mc-wait; sched-domains'; then
	check "reproduce: migration_cost=$LINE gives the same values on every domain" \
		[ "$(domains)" = "$FORCED_DOMAINS" ]
	check "reproduce: nothing measured" \
		has 'migration cost: not calibrated: every level is set by migration_cost='
fi

# Named levels are pinned, the others measured.
if boot named numa "sched_verbose $FORCE $SMALL migration_cost=NUMA:2000,MC:300" 'mc-wait; sched-domains'; then
	check "named: MC and NUMA pinned" \
		[ "$(level_line MC; level_line NUMA)" = 'MC (CPU 4 <-> 6): pinned by migration_cost=
NUMA (CPU 2 <-> 8): pinned by migration_cost=' ]
	check "named: PKG measured or noise" \
		sh -c "echo \"\$1\" | grep -qE '^PKG $US .*: (measured|noise), '" - "$(level_line PKG)"
	check "named: the line keeps the pinned values" \
		sh -c "echo \"\$1\" | grep -qxE 'SMT:0,MC:300,PKG:[0-9]+,NUMA:2000'" - "$(cost_line)"
	check "named: every domain has the value of the line" line_is_domains
fi

# The budget (here 20 ms) stops the calibration within a step of 64 KiB; the
# levels it did not reach say so and keep the default.  How long it took is
# asserted on a rerun from debugfs, in an idle guest: at boot the delay also
# counts the waits for the CPUs it moves to, which boot work can hold
# without yielding (PREEMPT_NONE): when the pairs began at CPU 0, where init
# frees init memory, 356 and 398 ms in 2 boots of 9 here, 309 ms once on CI.
if boot budget numa "sched_verbose $FORCE migration_budget_ms=20" '
	mc-wait >/dev/null; echo 1 > /sys/kernel/debug/sched/migration_cost/calibrate
	sched-domains'; then
	spent_re='\] migration cost: [A-Z]+ \(CPU [0-9]+ <-> [0-9]+, L[0-9] [0-9]+ [KM]iB\): budget spent$'
	delays=$(klog | sed -n 's/.*calibration delay: \([0-9]*\) msec$/\1/p' | tr '\n' ' ')
	set -- $delays
	all=$(count "$spent_re")
	KLOG_LAST=1
	rerun=$(count "$spent_re")
	check "budget: two calibrations, boot and rerun (delays, ms: ${delays:-none})" [ $# = 2 ]
	check "budget: at boot, $((all - rerun)) level(s) say the budget was spent" [ $((all - rerun)) -ge 1 ]
	check "budget: rerun, $rerun level(s) say the budget was spent" [ "$rerun" -ge 1 ]
	check "budget: the rerun stopped in time (${2:-?} ms)" [ "${2:-999999}" -lt 200 ]
	check "budget: those levels keep the default" unmeasured_zero
	KLOG_LAST=
fi

if boot cache_size numa "$FORCE max_cache_size=64K migration_budget_ms=10000 migration_debug=1" 'mc-wait'; then
	check "max_cache_size: in the header" has 'migration cost matrix \(cache_size: 65536,'
	check "max_cache_size: buffers of 1/2, 3/4, 1 x 65536 bytes" \
		[ "$(klog | sed -n 's/.*<-> [0-9]*, \([0-9]*\) bytes: cost.*/\1/p' |
			sort -un | tr '\n' ' ')" = '32768 49152 65536 ' ]
fi

# migration_debug=1: a line per level and per size; 2: also per run.
if boot debug1 numa "$FORCE $SMALL migration_debug=1" 'mc-wait'; then
	check "migration_debug=1: 3 sizes x 3 levels, each with its verdict" \
		[ "$(count '\] migration cost: [A-Z]+: CPU [0-9]+ <-> [0-9]+, [0-9]+ bytes: cost [0-9]+ ns \(re-touch [0-9]+ ns, 90% in -?[0-9]+ to -?[0-9]+ ns, [0-9]+ rounds\): (above noise|noise|undecided, noise)$')" = 9 ]
	check "migration_debug=1: no per-run lines" [ "$(count ', run [0-9]: ')" = 0 ]
fi
if boot debug2 numa "$FORCE $SMALL migration_debug=2" 'mc-wait'; then
	runs=$(count '\] migration cost: [A-Z]+: CPU [0-9]+ -> [0-9]+, [0-9]+ bytes, run [0-9]+: [0-9]+ ns( \(return trip\))?$')
	returns=$(count ', run [0-9]+: [0-9]+ ns \(return trip\)$')
	rounds=$(klog | sed -n 's/.* bytes: cost .*, \([0-9]*\) rounds): .*/\1/p' | awk '{ n += $1 } END { print n + 0 }')
	check "migration_debug=2: 4 runs per timed round of 3 sizes x 3 levels ($rounds rounds, got $runs)" \
		[ "$runs" = $((4 * rounds)) ]
	check "migration_debug=2: half of them return trips ($returns)" [ "$returns" = $((2 * rounds)) ]
	check "migration_debug=2: 5 to 15 rounds per size" [ "$rounds" -ge 45 ] && [ "$rounds" -le 135 ]
fi

# Malformed values: one warning each, naming the default, and the boot goes on.
if boot malformed numa "migration_factor=0 migration_debug=3 max_cache_size=1k migration_budget_ms=0 migration_calibrate=yes" 'mc-wait'; then
	for w in 'migration_factor=0: not a decimal number from 1 to 1000; using 100' \
		 'migration_debug=3: not a decimal number from 0 to 2; using 0' \
		 'max_cache_size=1k: not a size \(K, M, G\) from 65536 to 1073741824; using the cache size, up to 32 MiB' \
		 'migration_budget_ms=0: not a decimal number from 1 to 60000; using 500' \
		 'migration_calibrate=yes: not auto, off or force; using auto'; do
		check "malformed: '$w'" [ "$(count "\] $w\$")" = 1 ]
	done
	check "malformed: defaults kept (auto: skipped under a hypervisor)" \
		has 'migration cost: not calibrated: the CPUs may be virtual'
fi
# A calibration whose CPU a SCHED_FIFO task holds (RT throttling off,
# sched_rt_runtime_us -1, and CPU 4's fair server too: nothing else runs
# there) must not hold up CPU hotplug: MC's pair on numa is 4 <-> 6, CPU 4
# spins, CPU 13 (in no pair) goes offline meanwhile and must be done within
# 5 s; the writer, killed then, returns within 5 s (while the old code held
# it until the task ended), and the calibration stops with the values kept
# once the task ends.
HOG='D=/sys/kernel/debug/sched/migration_cost
echo -1 > /proc/sys/kernel/sched_rt_runtime_us
echo 0 > /sys/kernel/debug/sched/fair_server/cpu4/runtime
rt_pressure 4 100 & hog=$!
sleep 1
echo 1 > $D/calibrate & cal=$!
sleep 2
t0=$(cut -d" " -f1 /proc/uptime)
echo 0 > /sys/devices/system/cpu/cpu13/online & off=$!
i=0; while kill -0 $off 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
t1=$(cut -d" " -f1 /proc/uptime)
kill -0 $off 2>/dev/null && echo "hog: offline blocked" || echo "hog: offline done"
echo "hog: offline took $t0 $t1" | awk "{ printf \"hog: offline took %d ms\\n\", (\$5 - \$4) * 1000 }"
echo "hog: state while CPU 4 spins: $(cat $D/state)"
kill -9 $cal
i=0; while kill -0 $cal 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 $cal 2>/dev/null && echo "hog: the killed writer waits" || echo "hog: the killed writer returned"
kill $hog; wait $off
mc-wait >/dev/null
echo "hog: state after: $(cat $D/state)"
echo 1 > /sys/devices/system/cpu/cpu13/online
echo "hog: online $(cat /sys/devices/system/cpu/online)"'
if boot fifo_hog numa "sched_verbose migration_calibrate=off $SMALL" "$HOG"; then
	echo "$OUT" | grep '^hog: offline took' | sed 's/^/  /'
	check "fifo_hog: CPU 13 went offline while CPU 4 spun, within 5 s" \
		sh -c 'echo "$1" | grep -qx "hog: offline done" &&
			[ "$(echo "$1" | sed -n "s/^hog: offline took \([0-9]*\) ms$/\1/p")" -le 5000 ]' - "$OUT"
	check "fifo_hog: the calibration waited for CPU 4; its killed writer returned within 5 s" \
		sh -c 'echo "$1" | grep -qx "hog: state while CPU 4 spins: running" &&
			echo "$1" | grep -qx "hog: the killed writer returned"' - "$OUT"
	check "fifo_hog: then the calibration stopped, values kept" \
		out_has 'hog: state after: interrupted: values kept'
	check "fifo_hog: every CPU back online" out_has 'hog: online 0-15'
fi

# The kselftest where it must skip, not fail: the boot's report gone from
# a kernel log that has wrapped (/dev/kmsg unlimited: printk.devkmsg=on),
# and the two tests that run the calibration again, which a user must ask
# for (scripts/kselftest.sh does) since their values stay.
FILLER=$(printf '%0100d' 0)
if boot selftest_skips ht "sched_verbose printk.devkmsg=on $FORCE $SMALL" "mc-wait
	i=0; while [ \$i -lt 4000 ]; do echo \"filler \$i $FILLER\" > /dev/kmsg; i=\$((i + 1)); done
	dmesg | grep -c 'migration cost matrix' | sed 's/^/reports in the log: /'
	cd /kselftest/sched && ./cache_hot_time_test | grep -E '^(not )?ok [0-9]+ '"; then
	check "selftest: the report has left the wrapped log" out_has 'reports in the log: 0'
	check "selftest: report_in_kernel_log skips, the log wrapped" \
		out_match '^ok [0-9]+ global\.report_in_kernel_log # SKIP the kernel log has wrapped'
	check "selftest: recalibrate skips unless asked" \
		out_match '^ok [0-9]+ global\.recalibrate # SKIP runs the calibration again'
	check "selftest: concurrent_calibrations_refused skips unless asked" \
		out_match '^ok [0-9]+ global\.concurrent_calibrations_refused # SKIP runs the calibration again'
	check "selftest: no other test skips or fails" \
		sh -c '! echo "$1" | grep -E "^(not ok|ok [0-9]+ .*# SKIP)" |
			grep -vE "global\.(report_in_kernel_log|recalibrate|concurrent_calibrations_refused) "' - "$OUT"
fi

if boot off numa "migration_calibrate=off" 'mc-wait'; then
	check "migration_calibrate=off: not calibrated" \
		has '\] migration cost: not calibrated: migration_calibrate=off$'
	check "migration_calibrate=off: the state says so" \
		out_has 'not calibrated: migration_calibrate=off'
fi

if boot up up "$FORCE" 'mc-wait'; then
	check "up: nothing to calibrate, no crash" \
		has '\] migration cost: not calibrated: no topology level to cross$'
fi

# A recalibration killed by a signal keeps every value and says so: killed
# half a second after the state says it runs (a kill before the write
# began, under load, would interrupt nothing).
if boot signal numa "sched_verbose migration_cost=MC:300 migration_budget_ms=60000" '
	mc-wait >/dev/null; sched-domains > /tmp/before
	sh -c "echo 1 > /sys/kernel/debug/sched/migration_cost/calibrate" & pid=$!
	n=0; until [ "$(cat /sys/kernel/debug/sched/migration_cost/state)" = running ] || [ $n = 100 ]; do
		sleep 0.1; n=$((n + 1)); done
	sleep 0.5; kill -9 $pid; wait $pid
	mc-wait; sched-domains > /tmp/after
	echo "-- values: $(cmp -s /tmp/before /tmp/after && echo same || echo changed)"'; then
	check "signal: the state says interrupted" out_has 'interrupted: values kept'
	check "signal: the log says so" has '\] migration cost: calibration interrupted \(fatal signal\); values kept$'
	check "signal: every value kept" out_has '-- values: same'
fi

# 48 CPUs: one row per level instead of a 48 x 48 matrix.
if boot smt8 smt8 "sched_verbose $FORCE $SMALL" 'mc-wait; sched-domains'; then
	check "smt8: one row per level" \
		[ "$(count "\] \[(SMT|MC)\]: $ROW  CPU [0-9]+ <-> [0-9]+$")" = 2 ]
	check "smt8: no 48-column matrix" [ "$(count '\] \[[0-9][0-9]\]: ')" = 0 ]
	check "smt8: SMT pair 8 <-> 9, off the boot core" has '\] \[SMT\]: .*CPU 8 <-> 9$'
	check "smt8: MC pair 8 <-> 16" has '\] \[MC\]: .*CPU 8 <-> 16$'
	check "smt8: every domain has the value of the line" line_is_domains
	check "smt8: levels not measured keep 0" unmeasured_zero
fi

# Hotplug after boot: the values stay, nothing is measured or printed again.
if boot hotplug numa "sched_verbose $FORCE $SMALL" '
	mc-wait >/dev/null; sched-domains > /tmp/before
	for c in 1 3 9 12; do echo 0 > /sys/devices/system/cpu/cpu$c/online; done
	echo "-- offline"; sched-domains
	for c in 1 3 9 12; do echo 1 > /sys/devices/system/cpu/cpu$c/online; done
	sched-domains > /tmp/after
	echo "-- back: $(cmp -s /tmp/before /tmp/after && echo same || echo changed)"
	echo "-- reports: $(dmesg | grep -c "migration cost matrix")"'; then
	check "hotplug: after offline and online, every domain has its value again" \
		out_has '-- back: same'
	OUT=$(echo "$OUT" | sed -n '/^-- offline/,/^-- back/p') check \
		"hotplug: with CPUs offline, values stay per level" line_is_domains
	check "hotplug: measured and printed once" out_has '-- reports: 1'
fi

# isolcpus: only housekeeping CPUs are measured and shown; the NUMA level,
# whose other node is isolated, has no pair and keeps the default.
if boot isolcpus numa "sched_verbose isolcpus=8-15 $FORCE $SMALL migration_debug=1" 'mc-wait; sched-domains'; then
	check "isolcpus: the matrix has rows for CPUs 0-7" [ "$(count '\] \[0[0-7]\]: ')" = 8 ]
	check "isolcpus: and none for CPUs 8-15" [ "$(count '\] \[(0[89]|1[0-5])\]: ')" = 0 ]
	check "isolcpus: pairs among CPUs 0-7" \
		[ "$(count 'CPU [0-9]+ <-> ([89]|1[0-5])[,)]|CPU ([89]|1[0-5]) <->')" = 0 ]
	check "isolcpus: NUMA has no pair" \
		[ "$(level_line NUMA)" = 'NUMA (no CPU pair): no CPU pair to measure' ]
	check "isolcpus: every domain has the value of the line" line_is_domains
fi
finish
