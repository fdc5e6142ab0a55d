#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Lint the series: checkpatch --strict on every patch (no error, warning or
# check), every patch compiles on its own (one commit at a time: the
# objects it changes, the kselftests and tools/sched/migration_cost, for
# x86_64 and for the other arches whose code it changes), and no new W=1
# or sparse (C=2) warnings in the objects built from the files the series
# touches; and a posting that needs fewer postings than those before it
# applies and builds without them.  LINT names the parts run, of
# "checkpatch builds alone warnings" (default: all four; make check leaves
# out builds and alone, which make check-debug runs).
set -eu
. "$(dirname "$0")/lib.sh"
check_tree
cd "$SRC"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	die "build/linux has uncommitted changes: commit them first"
export TREE_CHECKED=1
rc=0
parts=${LINT:-checkpatch builds alone warnings}
# part NAME: LINT asks for NAME.
part() { case " $parts " in *" $1 "*) ;; *) return 1 ;; esac; }

# The tree is Debian's source package in a repository of its own, without
# the upstream history a Fixes: tag names: checkpatch cannot look the
# commit up (UNKNOWN_COMMIT_ID), which says nothing about the patch.  A
# posting changes MAINTAINERS once at most, not in each patch that adds a
# file, so checkpatch's question whether MAINTAINERS needs updating
# (FILE_PATH_CHANGES) is not asked of each patch.
part checkpatch && for p in $(grep -v '^#' "$TOP/patches/series"); do
	out=$(./scripts/checkpatch.pl --strict --quiet --no-summary \
		--ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES "$TOP/patches/$p" 2>&1) || true
	if [ -z "$out" ]; then
		echo "ok - lint: checkpatch --strict $p"
	else
		echo "$out" | sed 's/^/  /'
		echo "not ok - lint: checkpatch --strict $p"; rc=1
	fi
done

# Each commit in turn, in the same tree and object directories: the
# objects of the C files it changes (kernel/sched is a unity build: the
# object that includes the file), the four scheduler objects when it
# changes a header or a Kconfig file, and the static kselftests when it
# changes tools/testing, for x86_64; and for each other arch whose code it
# changes, that code and the scheduler objects, which use the arch's hooks.
# The tip's full builds, for every arch, are the build stage; a full
# rebuild at each patch that changes a widely included header would not
# fit CI's time.
sched_objs="kernel/sched/build_utility.o kernel/sched/build_policy.o
	    kernel/sched/core.o kernel/sched/fair.o"
# sched_unit FILE: the object that compiles the kernel/sched C file FILE,
# following #include "file.c" up to core.c, fair.c or a build_*.c.
sched_unit() {
	f=$1
	while :; do
		case $f in
		kernel/sched/core.c|kernel/sched/fair.c|kernel/sched/build_*.c)
			echo "${f%.c}.o"; return ;;
		esac
		inc=$(grep -lE "^# *include \"${f#kernel/sched/}\"" kernel/sched/*.c | head -n 1)
		[ -n "$inc" ] || { echo $sched_objs; return; }
		f=$inc
	done
}
# arch_objs ARCH FILE...: the objects to build for ARCH for these FILEs.
arch_objs() {
	arch=$1; shift
	load_arch "$arch"
	for f in "$@"; do
		case $arch:$f in
		x86_64:kernel/sched/*.c) sched_unit "$f" ;;
		x86_64:*.h|x86_64:*Kconfig*) echo $sched_objs ;;
		x86_64:arch/x86/*.c|x86_64:kernel/*.c|x86_64:init/*.c|x86_64:lib/*.c|x86_64:drivers/*.c)
			echo "${f%.c}.o" ;;
		x86_64:*) ;;
		*:arch/$KARCH/*.c) echo "${f%.c}.o" $sched_objs ;;
		*:arch/$KARCH/*) echo $sched_objs ;;
		esac
	done | tr ' ' '\n' | sort -u | tr '\n' ' '
}
# build_commit FILE...: build what the commit checked out changes.
build_commit() {
	for a in $ARCHES; do
		objs=$(arch_objs "$a" "$@")
		[ -z "$objs" ] || KERNEL_TARGETS="$objs" sh "$TOP/scripts/kernel.sh" "$a" || return 1
	done
	! echo "$*" | tr ' ' '\n' | grep -q '^tools/testing/' ||
		sh "$TOP/scripts/initramfs.sh" x86_64 || return 1
	# The userspace twin, whose code is partly the kernel's.
	! echo "$*" | tr ' ' '\n' | grep -qE '^(tools/sched/|kernel/sched/migration_cost|kernel/sched/tests/migration_cost)' ||
		! [ -f tools/sched/migration_cost/Makefile ] ||
		{ mkdir -p "$BUILD/host" &&
		  make -s -C tools/sched/migration_cost O="$BUILD/host" CFLAGS="-O2 -Werror"; }
}
# Whatever ends this script, Ctrl-C included (dash runs no EXIT trap on a
# signal), leaves the tree on its branch.
tip=$(git symbolic-ref --short HEAD)
trap 'git checkout -q "$tip"' EXIT
trap 'exit 130' INT TERM HUP
part builds || say "# lint: each patch's own build is left to make lint and make check-debug"
part builds && for c in $(git rev-list --reverse base..HEAD); do
	subject=$(git log -1 --format=%s "$c")
	files=$(git diff-tree --no-commit-id --name-only -r "$c")
	git checkout -q --detach "$c"
	if build_commit $files >"$BUILD/logs/lint-build.log" 2>&1; then
		echo "ok - lint: builds: $subject"
	else
		tail -n 20 "$BUILD/logs/lint-build.log" | sed 's/^/  /'
		echo "not ok - lint: builds: $subject"; rc=1
	fi
done
git checkout -q "$tip"

# A posting that needs fewer postings than those before it (POSTINGS: the
# SMT capacity needs the fixes, not the calibration) applies with git am on
# the branch that ends what it needs, in a worktree of its own, and its
# kernel builds there for x86_64 and each arch whose code it changes.
prev=base
part alone && for p in $POSTINGS; do
	dir=${p%%:*} needs=${p##*:} branch=${p#*:}
	branch=${branch%%:*} from=$prev prev=$branch
	[ "$needs" != "$from" ] || continue
	wt=$BUILD/linux-alone
	[ -d "$wt" ] || git worktree add -q --detach "$wt" "$needs"
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	git -C "$wt" checkout -q -f --detach "$needs"
	applied=1
	for f in $(grep "^$dir/" "$TOP/patches/series"); do
		git -C "$wt" am -q "$TOP/patches/$f" >"$BUILD/logs/lint-alone.log" 2>&1 ||
			{ applied=0; break; }
	done
	if [ "$applied" = 0 ]; then
		sed 's/^/  /' "$BUILD/logs/lint-alone.log"
		git -C "$wt" am --abort >/dev/null 2>&1 || true
		echo "not ok - lint: $dir applies on $needs without the postings between"; rc=1
		continue
	fi
	echo "ok - lint: $dir applies on $needs without the postings between"
	files=$(git diff --name-only "$from..$branch")
	for a in $ARCHES; do
		load_arch "$a"
		[ "$a" = x86_64 ] || echo "$files" | grep -q "^arch/$KARCH/" || continue
		if sh "$TOP/scripts/kernel.sh" "$a" "$wt" "$BUILD/$a-alone" >"$BUILD/logs/lint-alone-$a.log" 2>&1; then
			echo "ok - lint: $dir builds on $needs alone ($a)"
		else
			tail -n 20 "$BUILD/logs/lint-alone-$a.log" | sed 's/^/  /'
			echo "not ok - lint: $dir builds on $needs alone ($a)"; rc=1
		fi
	done
done

# W=1 and sparse over the objects built from the C files the series
# touches, at the base and at the tip: a warning is new if the base does not
# have it.
# kernel/sched is a unity build: its files are compiled through these.
objs=
for f in $(git diff --name-only base..HEAD -- '*.c'); do
	case $f in
	kernel/sched/*) objs="$objs kernel/sched/build_utility.o kernel/sched/build_policy.o
			     kernel/sched/core.o kernel/sched/fair.o" ;;
	*) [ -f "$BUILD/x86_64/${f%.c}.o" ] && objs="$objs ${f%.c}.o" ;;
	esac
done
objs=$(echo $objs | tr ' ' '\n' | sort -u | tr '\n' ' ')
part warnings || objs=
# w1 NAME: the W=1 and sparse warnings (and sparse errors) of $objs,
# without line numbers, in NAME.txt.
w1() {
	KERNEL_MAKEFLAGS="W=1 C=2" KERNEL_TARGETS="$objs" sh "$TOP/scripts/kernel.sh" x86_64 \
		> "$BUILD/logs/$1.log" 2>&1 || return 1
	grep -E 'warning:|error:' "$BUILD/logs/$1.log" | sed -E 's/:[0-9]+:[0-9]+:/:/' |
		sort -u > "$BUILD/logs/$1.txt"
}
if [ -n "$objs" ]; then
	git checkout -q --detach base
	if w1 lint-w1-base && git checkout -q "$tip" && w1 lint-w1-tip; then
		new=$(comm -13 "$BUILD/logs/lint-w1-base.txt" "$BUILD/logs/lint-w1-tip.txt")
		if [ -z "$new" ]; then
			echo "ok - lint: no new W=1 or sparse warnings in $objs" \
			     "(base has $(wc -l < "$BUILD/logs/lint-w1-base.txt"))"
		else
			echo "$new" | sed 's/^/  /'
			echo "not ok - lint: new W=1 or sparse warnings"; rc=1
		fi
	else
		echo "not ok - lint: W=1 and sparse build failed (build/logs/lint-w1-*.log)"; rc=1
	fi
	git checkout -q "$tip"
fi

exit $rc
