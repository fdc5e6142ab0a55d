#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot-time migration-cost calibration: skipped under QEMU by default,
# forced, bounded by its budget, its parameters, the 2004 matrix and the
# migration_cost= line, and its values across hotplug and isolcpus.
. "$(dirname "$0")/lib.sh"
FORCE="migration_calibrate=force"
# A calibration of ~0.2 s under TCG, with a budget that a starved host
# cannot run out of (500 ms did once, before NUMA); the budget has its test.
SMALL="max_cache_size=131072 migration_budget_ms=10000"
ROW=' *[0-9]+\.[0-9]'		# a matrix cell: ns >> 20, one decimal

# The sched-domains lines of $OUT, without kernel messages.
domains() { echo "$OUT" | grep -E '^cpu[0-9]+ '; }

# positive NAME...: the domains of these levels in $OUT have a value > 0.
positive() {
	domains | awk -v names=" $* " 'index(names, " " $4 " ") { seen++; if ($5 <= 0) bad++ }
		END { exit !(seen && !bad) }'
}

# zero NAME...: the domains of these levels in $OUT have 0 (the default).
zero() {
	domains | awk -v names=" $* " 'index(names, " " $4 " ") && $5 != 0 { bad++ }
		END { exit bad }'
}

# The report in debugfs ($OUT after "-- matrix") is the one in the log.
debugfs_is_log() {
	[ "$(echo "$OUT" | sed '1,/^-- matrix/d; /^\[ *[0-9]*\.[0-9]*\] /d')" = \
	  "$(klog | sed -n '/\] migration cost matrix/,/\] calibration delay/p' |
		sed 's/^\[[ .0-9]*\] //')" ]
}

# Under QEMU, a hypervisor: not calibrated, said once, defaults kept.
if boot default numa "sched_verbose" 'sched-domains'; then
	check "default: skipped under a hypervisor, said once" \
		[ "$(count 'migration cost: not calibrated: running under a hypervisor')" = 1 ]
	check "default: no matrix" [ "$(count 'migration cost matrix')" = 0 ]
	check "default: every level follows migration_cost_ns" \
		domains_are "SMT=0 MC=0 PKG=0 NUMA=0"
fi

if boot forced numa "sched_verbose $FORCE $SMALL" 'sched-domains
	echo "-- matrix"; cat /sys/kernel/debug/sched/migration_cost/matrix'; then
	check "forced: the matrix header, once" \
		[ "$(count '\] migration cost matrix \(cache_size: 131072, cpu: [0-9]+ MHz\):$')" = 1 ]
	check "forced: a row of 16 column headers" \
		has '\]       (  \[[0-9][0-9]\]){16}$'
	check "forced: 16 rows of 16 cells" \
		[ "$(count "\] \[[0-9][0-9]\]: ($ROW){16}$")" = 16 ]
	check "forced: min_delta line" has '\] min_delta: [0-9]+$'
	check "forced: cache_decay line" has '\] using cache_decay nsec: [0-9]+ \([0-9]+ msec\)$'
	check "forced: a migration_cost= line with the 4 levels" \
		[ "$(cost_line | grep -cE '^[0-9]+,[0-9]+,[0-9]+,[0-9]+$')" = 1 ]
	check "forced: calibration delay printed" has '\] calibration delay: [0-9]+ msec$'
	check "forced: every domain has the value of the line" \
		line_is_domains "SMT MC PKG NUMA"
	check "forced: MC, PKG, NUMA measured (positive)" positive MC PKG NUMA
	check "forced: SMT not measured (0)" zero SMT
	check "forced: debugfs matrix is the boot report" debugfs_is_log
	LINE=$(cost_line)
	FORCED_DOMAINS=$(domains)
fi

# The printed line, given back: same values, nothing measured.
if [ -n "${LINE:-}" ] && boot reproduce numa "sched_verbose $FORCE migration_cost=$LINE" 'sched-domains'; then
	check "reproduce: migration_cost=$LINE gives the same values on every domain" \
		[ "$(domains)" = "$FORCED_DOMAINS" ]
	check "reproduce: nothing measured" \
		has 'migration cost: not calibrated: every level is set by migration_cost='
fi

# The budget (here 20 ms) stops it before the next run; the rest keep defaults.
if boot budget numa "sched_verbose $FORCE migration_budget_ms=20" 'sched-domains'; then
	check "budget: the levels not measured are named" \
		has '\] migration cost: budget of 20 ms spent; not measured: [A-Z]+(, [A-Z]+)*$'
	named=$(klog | sed -n 's/.*spent; not measured: //p' | tr -d ,)
	delay=$(klog | sed -n 's/.*calibration delay: \([0-9]*\) msec$/\1/p')
	check "budget: stopped in time (${delay:-?} ms, one run of slack)" \
		[ "${delay:-999999}" -lt 200 ]
	check "budget: levels named (${named# }) keep the default" zero $named
fi

if boot cache_size numa "$FORCE max_cache_size=65536 migration_debug=1" 'true'; then
	check "max_cache_size: in the header" has 'migration cost matrix \(cache_size: 65536,'
	check "max_cache_size: buffers of 1/2, 3/4, 1 x 65536 bytes" \
		[ "$(klog | sed -n 's/.*<-> [0-9]*, \([0-9]*\) bytes: cost.*/\1/p' |
			sort -un | tr '\n' ' ')" = '32768 49152 65536 ' ]
fi

# migration_debug=1: a line per level and per size; 2: also per run.
if boot debug1 numa "$FORCE $SMALL migration_debug=1" 'true'; then
	check "migration_debug=1: pair and cache of MC, PKG, NUMA" \
		[ "$(count '\] migration cost: (MC|PKG|NUMA): CPU [0-9]+ <-> [0-9]+, (L2|LLC) [0-9]+ bytes$')" = 3 ]
	check "migration_debug=1: 3 sizes x 3 levels" \
		[ "$(count '\] migration cost: [A-Z]+: CPU [0-9]+ <-> [0-9]+, [0-9]+ bytes: cost [0-9]+ ns')" = 9 ]
	check "migration_debug=1: no per-run lines" [ "$(count ', run [0-9]: ')" = 0 ]
fi
if boot debug2 numa "$FORCE $SMALL migration_debug=2" 'true'; then
	check "migration_debug=2: 3 levels x 3 sizes x 4 scenarios x 5 runs" \
		[ "$(count '\] migration cost: [A-Z]+: CPU [0-9]+ -> [0-9]+, [0-9]+ bytes, run [0-4]: [0-9]+ ns$')" = 180 ]
fi

# Malformed values: one warning each, naming the default, and the boot goes on.
if boot malformed numa "migration_factor=abc migration_debug=3 max_cache_size=1k migration_budget_ms=0 migration_calibrate=yes" 'true'; then
	for w in 'migration_factor=abc: not a decimal number from 0 to 1000; using 100' \
		 'migration_debug=3: not a decimal number from 0 to 2; using 0' \
		 'max_cache_size=1k: not a decimal number from 65536 to 1073741824; using the cache size' \
		 'migration_budget_ms=0: not a decimal number from 1 to 60000; using 500' \
		 'migration_calibrate=yes: not auto, off or force; using auto'; do
		check "malformed: '$w'" [ "$(count "\] $w\$")" = 1 ]
	done
	check "malformed: defaults kept (auto: skipped under a hypervisor)" \
		has 'migration cost: not calibrated: running under a hypervisor'
fi
if boot off numa "migration_calibrate=off" 'true'; then
	check "migration_calibrate=off: not calibrated" \
		has '\] migration cost: not calibrated: migration_calibrate=off$'
fi

if boot up up "$FORCE" 'true'; then
	check "up: nothing to calibrate, no crash" \
		has '\] migration cost: not calibrated: no topology level to cross$'
fi

# 48 CPUs: one row per level instead of a 48 x 48 matrix.
if boot smt8 smt8 "sched_verbose $FORCE $SMALL" 'sched-domains'; then
	check "smt8: one row per level" \
		[ "$(count "\] \[(SMT|MC)\]: $ROW  CPU [0-9]+ <-> [0-9]+$")" = 2 ]
	check "smt8: no 48-column matrix" [ "$(count '\] \[[0-9][0-9]\]: ')" = 0 ]
	check "smt8: SMT pair 0 <-> 1" has '\] \[SMT\]: .*CPU 0 <-> 1$'
	check "smt8: MC pair 0 <-> 8" has '\] \[MC\]: .*CPU 0 <-> 8$'
	check "smt8: every domain has the value of the line" line_is_domains "SMT MC"
	check "smt8: MC measured (positive)" positive MC
fi

# Hotplug after boot: the values stay, nothing is measured or printed again.
if boot hotplug numa "sched_verbose $FORCE $SMALL" '
	sched-domains > /tmp/before
	for c in 1 3 9 12; do echo 0 > /sys/devices/system/cpu/cpu$c/online; done
	echo "-- offline"; sched-domains
	for c in 1 3 9 12; do echo 1 > /sys/devices/system/cpu/cpu$c/online; done
	sched-domains > /tmp/after
	echo "-- back: $(cmp -s /tmp/before /tmp/after && echo same || echo changed)"
	echo "-- reports: $(dmesg | grep -c "migration cost matrix")"'; then
	check "hotplug: after offline and online, every domain has its value again" \
		out_has '-- back: same'
	OUT=$(echo "$OUT" | sed -n '/^-- offline/,/^-- back/p') check \
		"hotplug: with CPUs offline, values stay per level" line_is_domains "SMT MC PKG NUMA"
	check "hotplug: measured and printed once" out_has '-- reports: 1'
fi

# isolcpus: only housekeeping CPUs are measured and shown.
if boot isolcpus numa "sched_verbose isolcpus=8-15 $FORCE $SMALL migration_debug=1" 'sched-domains'; then
	check "isolcpus: the matrix has rows for CPUs 0-7" [ "$(count '\] \[0[0-7]\]: ')" = 8 ]
	check "isolcpus: and none for CPUs 8-15" [ "$(count '\] \[(0[89]|1[0-5])\]: ')" = 0 ]
	check "isolcpus: pairs among CPUs 0-7" \
		[ "$(count 'CPU [0-9]+ <-> ([89]|1[0-5]),|CPU ([89]|1[0-5]) <->')" = 0 ]
	check "isolcpus: every domain has the value of the line" line_is_domains "SMT MC PKG NUMA"
fi
finish
