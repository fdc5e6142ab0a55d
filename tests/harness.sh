#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The harness as a user meets it: make boot with a RUN and an APPEND full
# of $ and quotes, RUN's exit status through make and scripts/boot.sh,
# the statuses of a timeout and of a kernel report, kernel messages that
# a hang during RUN still leaves in the log, RUN printing "WARNING:"
# (its output, not the kernel's), QEMU_EXTRA, KCONFIG_EXTRA, KUNIT_FILTER,
# make shell staying after RUN, the tree check against a changed patches/
# (on a scratch copy of the harness), and make check's streaming and KTAP
# (on a scratch stage).
. "$(dirname "$0")/lib.sh"
cd "$TOP"
# A user's shell, not the variables make check exports to its stages.
unset ARCH SHAPE APPEND APPEND_GIVEN RUN MAKEFLAGS MAKELEVEL MFLAGS CHECK_TIMES

# make boot: $ and quotes reach the guest; RUN's output on stdout as it
# comes, its status said on stderr (make's own is 2).
out=$(make -s boot SHAPE=up APPEND='harness.a="x y" harness.b=$HOME' \
	RUN='for c in /sys/devices/system/cpu/cpu[0-9]*; do echo "online ${c##*/}: $(cat $c/online 2>/dev/null || echo 1)"; done
cat /proc/cmdline; exit 3' 2>"$LOGS/.harness-err")
rc=$?
check "make boot: RUN's loop ran in the guest with its \$c (online cpu0: 1)" \
	sh -c 'echo "$1" | grep -qx "online cpu0: 1"' - "$out"
check "make boot: APPEND's \$HOME and quotes reached the kernel as typed" \
	sh -c 'echo "$1" | grep -qF "harness.a=\"x y\" harness.b=\$HOME"' - "$out"
check "make boot: RUN's exit 3 fails make (status $rc) and stderr says so" \
	sh -c '[ "$1" = 2 ] && grep -q "^boot: RUN exited with 3" "$2"' - "$rc" "$LOGS/.harness-err"

# scripts/boot.sh: RUN's status, and the others.
bootsh() { NAME=harness-$1 sh scripts/boot.sh up "$2" "$3" >"$LOGS/.harness-out" 2>"$LOGS/.harness-err"; }
bootsh status "" "echo harness; exit 7"
check "boot.sh: exits with RUN's status (7)" [ $? = 7 ]
check "boot.sh: RUN's output on stdout" grep -qx harness "$LOGS/.harness-out"
check "boot.sh: the log's path on stderr" grep -q "log ${LOGS#$TOP/}/harness-status.log" "$LOGS/.harness-err"

bootsh warning-out "" 'echo "WARNING: printed by RUN, not by the kernel"'
check "boot.sh: RUN printing WARNING: is RUN's business, the boot passes" [ $? = 0 ]

bootsh report "" 'echo "WARNING: CPU: 0 PID: 1 at harness" > /dev/kmsg; true'
rc=$?
check "boot.sh: a kernel report ends with 125 (got $rc), said on stderr" \
	sh -c '[ "$1" = 125 ] && grep -q "^boot: kernel report" "$2"' - "$rc" "$LOGS/.harness-err"

# A hang during RUN: the kernel's messages printed meanwhile are in the log.
# The up shape reaches RUN 1 s into the guest's clock (0.9 s here, 3 s of
# the host's with the firmware); 15 s leave room for a loaded machine.
(TIMEOUT=15 HANG_GRACE=5 bootsh hang "" 'echo "harness: before the hang" > /dev/kmsg; sleep 600')
rc=$?
check "boot.sh: a timeout ends with 124 (got $rc), said on stderr" \
	sh -c '[ "$1" = 124 ] && grep -q "^boot: timeout after 15 s" "$2"' - "$rc" "$LOGS/.harness-err"
check "boot.sh: the kernel's message during the hung RUN is in the log" \
	sh -c 'sed -n "/@@@ run begin/,\$p" "$1" | grep -q "harness: before the hang"' - "$LOGS/harness-hang.log"

# The knobs of a vng or kunit.py user.  QEMU_EXTRA: options after the shape's.
out=$(make -s boot SHAPE=up QEMU_EXTRA='-smp 2' RUN='cat /sys/devices/system/cpu/online' 2>/dev/null)
check "QEMU_EXTRA='-smp 2': the up shape boots with CPUs 0-1 (got ${out:-nothing})" [ "$out" = 0-1 ]

# KCONFIG_EXTRA: a fragment's option in the kernel make boot rebuilds, and
# gone from the next build without it.
out=$(make -s boot SHAPE=up KCONFIG_EXTRA=tests/harness-extra.config RUN='uname -r' 2>"$LOGS/.harness-err")
check "KCONFIG_EXTRA: make boot rebuilt the kernel with the fragment (uname -r: ${out:-nothing})" \
	sh -c 'echo "$1" | grep -q -- "-harness-extra"' - "$out"
out=$(make -s boot SHAPE=up RUN='uname -r' 2>>"$LOGS/.harness-err")
check "KCONFIG_EXTRA: without it, the next boot's kernel is rebuilt without ($out)" \
	sh -c '[ -n "$1" ] && ! echo "$1" | grep -q -- "-harness-extra"' - "$out"
check "KCONFIG_EXTRA: a fragment that is not there is refused, by name" \
	sh -c 'make -s kernel KCONFIG_EXTRA=tests/no-such.config 2>&1 |
		grep -q "KCONFIG_EXTRA: no fragment .*/tests/no-such.config"'

# KUNIT_FILTER: only the cases its glob names run.
LOGS=$LOGS/harness make -s kunit ARCHES=x86_64 KUNIT_FILTER='sched_smt_capacity.ht_*' > "$LOGS/.harness-out" 2>&1
check "KUNIT_FILTER: only sched_smt_capacity.ht_* ran, and passed" \
	sh -c 'grep -q "^ok - kunit: x86_64: sched_smt_capacity.ht_" "$1" &&
		! grep -E "^(not )?ok - kunit: " "$1" | grep -qv "^ok - kunit: x86_64: sched_smt_capacity.ht_"' \
	- "$LOGS/.harness-out"

# make shell RUN=...: RUN, then the shell, which reads what is typed (here
# once RUN's line is out: what comes before the console is open is lost).
typed_shell "$TOP" "$LOGS/.harness-tty" '^harness: RUN done' 'echo "harness: the shell says $((6 * 7))"
poweroff -f' \
	"make -s shell SHAPE=up RUN='echo \"harness: RUN done on CPUs \$(cat /sys/devices/system/cpu/online)\"'"
rc=$?
# A terminal's lines end with \r\n.
tr -d '\r' < "$LOGS/.harness-tty" > "$LOGS/.harness-out"
check "make shell RUN=...: RUN's output, then a shell that ran what was typed (status $rc)" \
	sh -c '[ "$1" = 0 ] && grep -q "^harness: RUN done on CPUs 0$" "$2" &&
		grep -q "^harness: the shell says 42" "$2"' - "$rc" "$LOGS/.harness-out"

# The tree check, on a scratch copy of the harness whose tree is a small
# git repository: what check_tree says of each state.
h=$(mktemp -d)
mkdir -p "$h/scripts" "$h/patches" "$h/build/linux" "$h/arch"
cp scripts/lib.sh "$h/scripts/"; cp BASE "$h/"
echo 0001-a.patch > "$h/patches/series"; echo a > "$h/patches/0001-a.patch"
git -C "$h/build/linux" init -q -b series
git -C "$h/build/linux" -c user.name=h -c user.email=h@h commit -q --allow-empty -m a
printf '%s\n' '#!/bin/sh' '. "$(dirname "$0")/lib.sh"' 'stamp_tree' > "$h/scripts/stamp.sh"
printf '%s\n' '#!/bin/sh' '. "$(dirname "$0")/lib.sh"' 'check_tree && echo fine' > "$h/scripts/tree-check.sh"
check_says() { sh "$h/scripts/tree-check.sh" 2>&1 | grep -q -- "$1"; }
check "tree: one that records nothing (an older harness) is refused" \
	check_says "does not record the patches/ it was made from"
mkdir "$h/build/linux/.git/rebase-apply"
check "tree: one a failed git am left is refused, FORCE=2 make tree said" \
	check_says "a git am stopped in build/linux.*FORCE=2 make tree"
rmdir "$h/build/linux/.git/rebase-apply"
sh "$h/scripts/stamp.sh"
check "tree: as made, fine" check_says "^fine$"
echo b >> "$h/patches/0001-a.patch"
check "tree: patches/ changed (git pull) is refused, FORCE=1 make tree said" \
	check_says "patches/ changed since build/linux was made (git pull?): FORCE=1 make tree"
git -C "$h/build/linux" -c user.name=h -c user.email=h@h commit -q --allow-empty -m b
check "tree: both changed is refused" check_says "both changed"
sh "$h/scripts/stamp.sh"
git -C "$h/build/linux" -c user.name=h -c user.email=h@h commit -q --allow-empty -m c
check "tree: commits not exported warn, and build" \
	sh -c 'out=$(sh "$1" 2>&1); echo "$out" | grep -q "commits that patches/ does not: make export" &&
		echo "$out" | grep -qx fine' - "$h/scripts/tree-check.sh"
git -C "$h/build/linux" checkout -q --detach
check "tree: detached (an interrupted lint) is refused" check_says "detached"

# make check's stages stream: a scratch stage that prints a result, waits,
# prints another; the first must come out before the second is printed.
cp scripts/check.sh "$h/scripts/"
echo 'echo "ok - build: scratch"' > "$h/scripts/build.sh"
echo 'echo "ok - scratch: first"; sleep 3; echo "not ok - scratch: second"' > "$h/scripts/scratch.sh"
CHECK_STAGES="build scratch" sh "$h/scripts/check.sh" 2>&1 | while IFS= read -r l; do
	echo "$(date +%s) $l"; done > "$h/check.out"
first=$(sed -n 's/ ok - scratch: first$//p' "$h/check.out")
second=$(sed -n 's/ not ok - scratch: second$//p' "$h/check.out")
second=$(echo "$second" | head -n 1)
check "make check: a stage's result lines come as they are printed (${first:-?} < ${second:-?})" \
	sh -c '[ -n "$1" ] && [ -n "$2" ] && [ "$1" -lt "$2" ]' - "$first" "$second"
check "make check: its last line counts them" \
	sh -c 'tail -n 1 "$1" | grep -q " 2 passed, 1 failed$"' - "$h/check.out"
check "make check: the results as KTAP, which kunit.py parse reads" \
	sh -c 'python3 "$1/tools/testing/kunit/kunit.py" parse "$2" | grep -q "Ran 3 tests: passed: 2, failed: 1"' \
	- "$SRC" "$h/build/logs/check.ktap"
rm -rf "$h"
finish
