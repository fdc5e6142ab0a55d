#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Negative controls for scripts/boot.sh on the debug kernel: each class of
# report the debug options can print is provoked on purpose, through LKDTM,
# rcutorture or tests/report-control, and the boot must fail, with the
# report in its log; a clean boot of the same kernel must pass.  REPORTS
# names the classes provoked (default all; make check's debug stage only
# kasan, scripts/debug.sh).
. "$(dirname "$0")/lib.sh"
# x86_64's one-CPU shape boots fastest; the other arches' test shapes.
[ "${ARCH:-x86_64}" = x86_64 ] && SHAPE=up || SHAPE=$(load_arch "$ARCH" && echo "$TEST_SHAPE")
SHAPE=${REPORTS_SHAPE:-$SHAPE}
# enabled OPTION: the kernel under test has it (DEBUG_CONFIG: its .config).
enabled() { grep -q "^$1=y" "${DEBUG_CONFIG:?the debug stage sets DEBUG_CONFIG}"; }
LKDTM=/sys/kernel/debug/provoke-crash/DIRECT

# provoked NAME REPORT APPEND RUN [SHAPE]: a boot with APPEND that runs RUN
# (whose own status does not count) fails on a kernel report (status 125),
# not a timeout, and its kernel log has a line matching REPORT.
provoked() {
	name=$1 report=$2
	case " ${REPORTS:-all} " in *" all "*|*" $name "*) ;; *) return 0 ;; esac
	selected "$name" || return 0
	boot_only "$name" "${5:-$SHAPE}" "$3" "$4; true"
	rc=$boot_rc
	if [ "$rc" = 125 ] && has "$report"; then
		ok "$name: the boot fails with its report /$report/"
		klog | grep -m1 -oE -- "$report" | sed 's/^/  /'
		return
	fi
	not_ok "$name: the boot fails with its report /$report/ (status $rc, want 125; the report $(has "$report" && echo found || echo missing); ${LOG#$TOP/})"
	klog | grep -m 3 -E -- "$KERNEL_REPORTS" | sed 's/^/  /'
}

if boot clean "$SHAPE" "" "true"; then ok "clean: a boot that provokes nothing passes"; fi
provoked ubsan 'UBSAN: array-index-out-of-bounds' "" "echo ARRAY_BOUNDS > $LKDTM"
# ppc64le's debug kernel has no KASAN (kconfig/debug-powerpc.config).
# KFENCE samples one allocation in many and, when it took LKDTM's, reports
# the read itself (1 boot in CI): kfence.sample_interval=0 leaves it to KASAN.
! enabled CONFIG_KASAN ||
	provoked kasan 'BUG: KASAN: slab-use-after-free' "kfence.sample_interval=0" "echo READ_AFTER_FREE > $LKDTM"
provoked kfence 'BUG: KFENCE: use-after-free read' "" "echo KFENCE_READ_AFTER_FREE > $LKDTM"
provoked list 'list_add corruption' "" "echo CORRUPT_LIST_ADD > $LKDTM"
provoked lockdep 'WARNING: possible circular locking dependency detected' "" \
	"modprobe report_control report=lockdep"
provoked atomic-sleep 'BUG: sleeping function called from invalid context' "" \
	"modprobe report_control report=atomic-sleep"
provoked kmemleak 'kmemleak: [0-9]+ new suspected memory leaks' "" \
	"modprobe report_control report=leak; sleep 6; echo scan > /sys/kernel/debug/kmemleak; sleep 1; echo scan > /sys/kernel/debug/kmemleak"
# A CPU that stalls in an RCU reader with preemption off, which its own
# tick and the other CPUs see; not on a single CPU.  Not with interrupts
# off (stall_cpu_irqsoff=1): on the CPU that keeps time (CPU 0, with
# HZ_PERIODIC) that stops the clock the stall waits on (ktime_get_seconds())
# and the jiffies the stall warning counts, and the boot hung until its
# timeout with nothing reported (both boots of 1 run in 9 of make
# check-flakes, 1 boot in 7 before).  Only a grace period in progress can
# stall, and rcutorture's writers pause 5 s in 10 (stutter): stutter=0
# keeps them asking for grace periods.  The other CPUs stay idle, so that
# the grace-period kthread has somewhere to run (with a busy loop on each,
# the stall went unreported three times in three).  With PROVE_RCU the
# warning comes 5 s after rcu_cpu_stall_timeout (3 s) from the start of
# the grace period, which can start a while after the stall: the stall
# lasts 15 s (below the soft-lockup detector's 20 s).
[ "$SHAPE" != up ] && smp=$SHAPE || smp=ht
provoked rcu-stall 'rcu: INFO: .*stall' "rcupdate.rcu_cpu_stall_timeout=3" \
	"modprobe rcutorture stall_cpu=15 stall_cpu_irqsoff=0 stall_cpu_holdoff=1 stutter=0 fwd_progress=0 nreaders=1; sleep 20; rmmod rcutorture" \
	"$smp"
finish
