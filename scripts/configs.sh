#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make check-configs: build the series in each configuration of
# kconfig/matrix (CONFIGS names some; default: all) as a 0-day build bot
# would.  vmlinux must build with no warning at all; then W=1 over the
# objects built from the C files the series touches must warn of nothing
# that the base, built in the same configuration without the series'
# options, does not warn of.  A configuration that did not get an option
# it asks for (olddefconfig dropped it) fails; each result line lists the
# series' options it got.  Objects in build/cfg-NAME and build/cfg-NAME-base,
# logs in build/logs/configs.  make check-debug runs it.
set -u
. "$(dirname "$0")/lib.sh"
check_tree
base_tree
export TREE_CHECKED=1
LOGS=$LOGS/configs
mkdir -p "$LOGS"
# kernel.sh leaves out the series' options that a tree lacks (the base's):
# the series' own tree must have every one, or a configuration would
# silently build without it.
missing=$(series_options_missing "$SRC")
[ -z "$missing" ] || die "the tree has no $(echo $missing), which kconfig/series.config lists"
matrix=$TOP/kconfig/matrix
table=$(grep -v '^#' "$matrix" | awk 'NF')
for name in ${CONFIGS:-}; do
	echo "$table" | grep -q "^$name " ||
		die "CONFIGS: no configuration '$name' in kconfig/matrix"
done
touched=$(git -C "$SRC" diff --name-only base..HEAD -- '*.c')

# w1_objects OBJDIR: the objects OBJDIR has of the C files the series
# touches (kernel/sched is a unity build: the objects that include them).
w1_objects() {
	for f in $touched; do
		case $f in
		kernel/sched/*) echo kernel/sched/build_utility.o kernel/sched/build_policy.o \
				     kernel/sched/core.o kernel/sched/fair.o ;;
		*) echo "${f%.c}.o" ;;
		esac
	done | tr ' ' '\n' | sort -u | while read -r o; do
		[ ! -f "$1/$o" ] || echo "$o"
	done | tr '\n' ' '
}

# w1 SRCDIR OBJDIR OBJECTS LOG: the W=1 warnings of OBJECTS without their
# line numbers, sorted, in LOG.txt.  Every object is compiled again (ccache
# gives the warnings of a hit again), on both sides alike, not found up to
# date.
w1() {
	[ ! -d "$2/" ] || find "$2/" -name '*.o' -delete
	KERNEL_MAKEFLAGS=W=1 KERNEL_TARGETS=$3 KCONFIG_EXTRA=$fragment \
		sh "$TOP/scripts/kernel.sh" "$arch" "$1" "$2" "$frags" > "$4.log" 2>&1 < /dev/null ||
		return 1
	grep -E 'warning:|error:' "$4.log" | sed -E 's/:[0-9]+:[0-9]+:/:/' | sort -u > "$4.txt"
}

rc=0
# failed WHY LOG: the result line of a configuration that failed.
failed() {
	grep -iE 'warning:|error:|not applied|CONFIG_' "$2" | head -n 20 | sed 's/^/  /'
	echo "not ok - configs: $name ($arch): $1 (${2#$TOP/}, $(($(date +%s) - t0)) s)"
	rc=1
}

# The loop runs in a subshell of the pipe: its exit status is the script's.
echo "$table" | { while read -r name arch words; do
	case " ${CONFIGS:-$name} " in *" $name "*) ;; *) continue ;; esac
	t0=$(date +%s)
	say "# configs: $name: $arch tinyconfig $words"
	fragment=$LOGS/$name.config
	frags=
	for w in $words; do
		case $w in
		[a-z]*) frags="$frags $w" ;;
		!*) echo "# CONFIG_${w#!} is not set" ;;
		*=*) echo "CONFIG_$w" ;;
		*) echo "CONFIG_$w=y" ;;
		esac
	done > "$fragment"
	obj=$BUILD/cfg-$name log=$LOGS/$name
	rm -f "$log.log" "$log"-w1*
	# Every object compiled again, which ccache makes quick: a warning
	# must not hide in an object an earlier run left up to date.
	[ ! -d "$obj/" ] || find "$obj/" -name '*.o' -delete
	if ! KERNEL_TARGETS=vmlinux KCONFIG_EXTRA=$fragment \
	     sh "$TOP/scripts/kernel.sh" "$arch" "$SRC" "$obj" "$frags" > "$log.log" 2>&1 < /dev/null; then
		why="vmlinux does not build"
		! grep -q 'options not applied' "$log.log" || why="it did not get options it asks for"
		failed "$why" "$log.log"; continue
	fi
	# Compiler warnings, and modpost's and Kconfig's WARNING.
	if grep -qi 'warning:' "$log.log"; then
		failed "vmlinux builds with warnings" "$log.log"; continue
	fi
	got=$(grep -o '^CONFIG_[A-Z0-9_]*' "$TOP/kconfig/series.config" | while read -r sym; do
		grep -q "^$sym=y" "$obj/.config" && echo "${sym#CONFIG_}" || echo "!${sym#CONFIG_}"
	done | tr '\n' ' ')
	objs=$(w1_objects "$obj")
	[ -n "$objs" ] || { failed "no object of the files the series touches" "$log.log"; continue; }
	w1 "$SRC" "$obj" "$objs" "$log-w1" || { failed "W=1 build failed" "$log-w1.log"; continue; }
	base_objs=$(for o in $objs; do [ ! -f "$BUILD/linux-base/${o%.o}.c" ] || echo "$o"; done)
	w1 "$BUILD/linux-base" "$obj-base" "$(echo $base_objs)" "$log-w1-base" ||
		{ failed "W=1 build of the base failed" "$log-w1-base.log"; continue; }
	new=$(comm -13 "$log-w1-base.txt" "$log-w1.txt")
	if [ -n "$new" ]; then
		echo "$new" > "$log-w1-new.txt"
		failed "new W=1 warnings" "$log-w1-new.txt"; continue
	fi
	time_note $(($(date +%s) - t0)) "configs: $name"
	echo "ok - configs: $name ($arch): no warning, no new W=1 warning in $(echo $objs);" \
	     "got ${got% } ($(($(date +%s) - t0)) s)"
done; exit $rc; }
