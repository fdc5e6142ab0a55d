#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The debug stage: for each arch of DEBUG_ARCHES (default x86_64), build
# the debug kernel (kconfig/debug.config, and debug-ARCH.config where there
# is one, over the arch's fragments and the series') in build/ARCH-debug,
# with its modules in its initramfs; then boot it through KUnit, the
# kselftests and the scenarios that reach the series' code (DEBUG_TESTS):
# negative controls for every report class, debugfs files against
# rebuilds, fault injection, torture, an outside stressor (stress-ng).
# Any report fails a boot (scripts/boot.sh).  Result lines are tagged
# "debug:"; logs go to build/logs/debug (LOGS/debug).  make check runs it
# for x86_64, make check-debug for every arch, with longer torture.
set -u
. "$(dirname "$0")/lib.sh"
export LOGS=$LOGS/debug
# A report ends the boot: an Oops or a warning (KASAN, KFENCE and UBSAN
# reports count as warnings) panics, and the panic prints the stacks of
# every CPU and of the blocked tasks (panic_print bits 6 and 7), instead of
# a guest that hangs until the timeout with them unseen.  On x86, the NMI
# that scripts/boot.sh sends a boot that times out panics too.
append="oops=panic panic_on_warn=1 panic_print=0xc0"
mkdir -p "$LOGS"
rc=0
# tagged COMMAND...: run it, print its output as it comes, with "debug: "
# in each result line; its exit status.
debug_tag() { sed -u 's/^\(not \)\{0,1\}ok - /&debug: /'; }
tagged() { through debug_tag "$@"; }

for arch in ${DEBUG_ARCHES:-x86_64}; do
	load_arch "$arch"
	obj=$BUILD/$arch-debug
	frags="common $arch series debug"
	[ ! -f "$TOP/kconfig/debug-$arch.config" ] || frags="$frags debug-$arch"
	[ ! -f "$TOP/kconfig/debug-$KARCH.config" ] || [ "$KARCH" = "$arch" ] ||
		frags="$frags debug-$KARCH"
	tagged build_guest "debug kernel ($frags)" "$LOGS/build-$arch.log" \
		"$arch" "$SRC" "$obj" "$frags" || { rc=1; continue; }
	export BOOT_APPEND="$append"
	[ "$arch" != x86_64 ] || BOOT_APPEND="$append unknown_nmi_panic"
	export KERNEL=$obj/$KIMAGE INITRAMFS=$obj/initramfs.cpio DEBUG_CONFIG=$obj/.config ARCH=$arch
	# Two of the four kselftest boots (CI's time): as booted, and with
	# the calibration forced and named levels.  DEBUG_SUITES set (even
	# empty: make check-flakes) chooses among kunit and kselftest.
	for s in ${DEBUG_SUITES-kunit kselftest}; do
		t0=$(date +%s)
		ARCHES=$arch KSELFTEST_BOOTS=${KSELFTEST_BOOTS:-default named} \
			tagged sh "$TOP/scripts/$s.sh" || rc=1
		say "debug: $arch $s: $(($(date +%s) - t0)) s"
	done
	# The negative controls: make check provokes one report class,
	# KASAN's, which debugfs-race relies on to see a use-after-free;
	# make check-debug (REPORTS=all) every class, the timed ones (an RCU
	# stall, a kmemleak scan) among them.
	export REPORTS="${REPORTS:-kasan}"
	# The race and fault-injection scenarios are written for numa's 16
	# CPUs and 2 nodes: x86_64 only; so is the stress-ng run, the host's.
	tests="debug-reports debug-torture"
	[ "$arch" != x86_64 ] || tests="debug-reports debugfs-race debugfs-stall debug-fault-injection debug-torture debug-stress"
	for t in ${DEBUG_TESTS:-$tests}; do
		[ -f "$TOP/tests/$t.sh" ] || { echo "not ok - debug: no test $t"; rc=1; continue; }
		t0=$(date +%s)
		tagged sh "$TOP/tests/$t.sh" || rc=1
		say "debug: $arch $t: $(($(date +%s) - t0)) s"
	done
	unset KERNEL INITRAMFS DEBUG_CONFIG
done
exit $rc
