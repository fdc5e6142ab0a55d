#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build the guest kernel out of tree: kernel.sh ARCH [SRCDIR OBJDIR [FRAGMENTS]]
# Default: build/linux into build/ARCH, with kconfig/{common,ARCH,series}.config
# (FRAGMENTS given, even empty: kconfig/NAME.config for each NAME) merged
# onto tinyconfig, then the fragments KCONFIG_EXTRA names (paths, relative
# to the top directory or absolute).  The .config is only replaced when its
# content changes, so a rebuild with nothing changed compiles nothing.
set -eu
. "$(dirname "$0")/lib.sh"
build_args "$@"
frags=${4-"common $arch series"}
extra=
for f in ${KCONFIG_EXTRA:-}; do
	case $f in /*) ;; *) f=$TOP/$f ;; esac
	[ -f "$f" ] || die "KCONFIG_EXTRA: no fragment $f"
	extra="$extra $f"
done
[ -f "$src/Makefile" ] || die "no kernel tree at $src: run make tree first"
# The series' tree must be what patches/ says (make lint, which builds each
# commit, checked it before).
[ "$src" != "$(cd "$SRC" && pwd)" ] || [ -n "${TREE_CHECKED:-}" ] || check_tree

export CCACHE_DIR=${CCACHE_DIR:-$BUILD/ccache}
# Depend mode: a miss compiles once and takes the headers from the
# compiler's -MMD file.  In its default mode ccache runs the preprocessor
# first on a miss, which made a cold build of drivers/acpi take 101 s where
# gcc alone takes 54 s (61 s in depend mode); hits are direct either way.
export CCACHE_DEPEND=1
export KBUILD_BUILD_TIMESTAMP="2000-01-01" KBUILD_BUILD_USER=sched KBUILD_BUILD_HOST=series
kmake() {
	make -s -C "$src" ARCH="$KARCH" CROSS_COMPILE="$CROSS_COMPILE" \
		CC="ccache ${CROSS_COMPILE}gcc" HOSTCC="ccache gcc" "$@"
}

# assemble_config: tinyconfig with the fragments merged, in $cfg.
assemble_config() {
	kmake O="$cfg" tinyconfig >/dev/null
	# series.config lists the options the series adds: a tree without
	# one (the base, or a patch of the series before the one adding it)
	# is built without it, whichever fragment asks for it.
	missing=$(series_options_missing "$src")
	files= n=0
	for f in $(for f in $frags; do echo "$TOP/kconfig/$f.config"; done)$extra; do
		n=$((n + 1))
		awk -v missing="$(echo $missing)" 'BEGIN { n = split(missing, m); for (i = 1; i <= n; i++) drop[m[i]] }
			{ sym = $0; sub(/^# /, "", sym); sub(/[= ].*/, "", sym) } !(sym in drop)' \
			"$f" > "$cfg/fragment-$n.config"
		files="$files $cfg/fragment-$n.config"
	done
	(cd "$cfg" && "$src/scripts/kconfig/merge_config.sh" -m -O "$cfg" "$cfg/.config" $files >/dev/null)
	kmake O="$cfg" olddefconfig >/dev/null

	# Every option a fragment asks for must have made it (a later
	# fragment's word on an option is the one that counts).
	bad=$(cat $files | grep -E '^(# )?CONFIG_' | sed 's/^# \(CONFIG_[A-Z0-9_]*\) is not set/\1=n/' |
		tac | awk -F= '!seen[$1]++' | tac |
		while IFS= read -r line; do
			sym=${line%%=*}; want=${line#*=}
			have=$(grep -E "^$sym=|^# $sym is not set" "$cfg/.config" |
				sed 's/^# .* is not set/n/; s/^[^=]*=//')
			[ "${have:-n}" = "$want" ] || echo "$sym=$want (got ${have:-n})"
		done)
	[ -z "$bad" ] || die "config options not applied:
$bad"
}

# kconfig_state: the tree's Kconfig files and config fragments (as
# tiny.config), committed and changed, as a number; the time for a tree
# that is no git tree, whose config is then assembled every time.
kconfig_state() {
	if git -C "$src" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		{ git -C "$src" ls-files -s -- '*Kconfig*' '*/configs/*.config'
		  git -C "$src" diff HEAD -- '*Kconfig*' '*/configs/*.config'; } | cksum | cut -d' ' -f1
	else
		date +%s%N
	fi
}

# modules: the kernel has modules (the debug kernels).
modules() { grep -q '^CONFIG_MODULES=y' "$obj/.config"; }

# tree_state: what a full build is made from: the tree's commit and its
# changes (tracked files, and the untracked ones git does not ignore),
# this script and lib.sh, the .config, the compiler's version (kbuild
# rebuilds everything for a new one) and, for a kernel with modules, the
# module of tests/report-control; nothing for a tree that is no git tree,
# which make always looks at.
tree_state() {
	git -C "$src" rev-parse -q --verify HEAD 2>/dev/null || return 0
	{ git -C "$src" diff HEAD
	  git -C "$src" ls-files -z -o --exclude-standard | (cd "$src" && xargs -0r cat)
	  cat "$0" "$TOP/scripts/lib.sh" "$obj/.config"
	  ! modules || cat "$TOP"/tests/report-control/*
	  "${CROSS_COMPILE}gcc" --version; } | cksum
}

# The config is assembled next to the build directory and kept there, one
# per set of inputs: the fragments (KCONFIG_EXTRA's included) and the
# tree's Kconfig files.  Assembling takes about 30 s, most of it
# tinyconfig, which each of make lint's per-commit builds, and each build
# with or without KCONFIG_EXTRA, would pay again.
cfg=$obj.config
mkdir -p "$obj" "$cfg"
inputs="$arch $frags$extra $(for f in $frags; do cat "$TOP/kconfig/$f.config"; done | cat - $extra | cksum)"
saved=$cfg/assembled-$(echo "$inputs $(kconfig_state)" | cksum | cut -d' ' -f1).config
if [ ! -f "$saved" ]; then
	assemble_config
	cp "$cfg/.config" "$saved"
fi

if ! cmp -s "$saved" "$obj/.config"; then
	cp "$saved" "$obj/.config"
	kmake O="$obj" olddefconfig >/dev/null
fi
# What the last full build was made from (.built-from, moved into place
# when it succeeded, modules installed) is what this one would be: make
# would walk a thousand objects to find nothing to do (and, for a kernel
# with modules, install them again: a minute of the debug stage).
full=
[ -n "${KERNEL_TARGETS:-}${KERNEL_MAKEFLAGS:-}" ] || full=1
state=
[ -z "$full" ] || state=$(tree_state)
if [ -n "$state" ] && [ -f "$obj/$KIMAGE" ] && { ! modules || [ -d "$obj/modules" ]; } &&
   [ "$(cat "$obj/.built-from" 2>/dev/null)" = "$state" ]; then
	say "kernel: ${obj#$TOP/}/$KIMAGE is up to date"
	exit 0
fi
# A full build that stops half-way leaves no state said to be built.
[ -z "$state" ] || { rm -f "$obj/.built-from"; echo "$state" > "$obj/.building-from"; }
# KERNEL_MAKEFLAGS (W=1, ...) and KERNEL_TARGETS (objects) serve make lint.
say "kernel: building $arch in ${obj#$TOP/}"
kmake O="$obj" -j"$(nproc)" ${KERNEL_MAKEFLAGS:-} ${KERNEL_TARGETS:-${KIMAGE##*/}}
[ -z "${KERNEL_TARGETS:-}" ] || exit 0
say "kernel: ${obj#$TOP/}/$KIMAGE"
# built: record what the build was made from, now that it succeeded.
built() { [ -z "$state" ] || mv "$obj/.building-from" "$obj/.built-from"; }

# A kernel with modules (the debug kernels): its modules and the negative
# control module of tests/report-control, installed under OBJ/modules for
# the initramfs.
modules || { rm -rf "$obj/modules"; built; exit 0; }
kmake O="$obj" -j"$(nproc)" modules
rm -rf "$obj/modules" "$obj/report-control"
cp -r "$TOP/tests/report-control" "$obj/report-control"
kmake O="$obj" M="$obj/report-control" modules
kmake O="$obj" INSTALL_MOD_PATH="$obj/modules" INSTALL_MOD_STRIP=1 modules_install >/dev/null
kmake O="$obj" M="$obj/report-control" INSTALL_MOD_PATH="$obj/modules" INSTALL_MOD_STRIP=1 \
	modules_install >/dev/null
built
say "kernel: modules in ${obj#$TOP/}/modules"
