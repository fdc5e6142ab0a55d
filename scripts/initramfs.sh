#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build build/ARCH/initramfs.cpio: the arch's static busybox, guest/ (its C
# programs built static with the arch's compiler), the host binaries that
# arch/ARCH lists in GUEST_BINARIES (x86_64 benchmarks) with their
# libraries, and the kselftests of the tree's tools/testing/selftests/sched
# (static, with run_kselftest.sh) and the tree's tools/sched/migration_cost,
# packed by the tree's usr/gen_init_cpio.  For a kernel with modules built
# in an OBJDIR of its own (a debug kernel): the arch's archive, followed
# by one of the modules, and initramfs-stress.cpio, that archive followed by
# one of the host binaries arch/ARCH lists in STRESS_BINARIES (stress-ng).
# Usage: initramfs.sh ARCH [SRCDIR OBJDIR]
set -eu
. "$(dirname "$0")/lib.sh"
build_args "$@"
[ "$src" != "$(cd "$SRC" && pwd)" ] || [ -n "${TREE_CHECKED:-}" ] || check_tree

gen=$BUILD/gen_init_cpio
[ -x "$gen" ] || gcc -O2 -o "$gen" "$src/usr/gen_init_cpio.c"

# modules_spec: the gen_init_cpio lines of the kernel's modules, where it
# has them (the debug kernels).
modules_spec() {
	for t in d f; do
		[ -d "$obj/modules/lib" ] || break
		(cd "$obj/modules" && find lib -type $t | sort) | while read -r p; do
			[ $t = d ] && echo "dir /$p 0755 0 0" || echo "file /$p $obj/modules/$p 0644 0 0"
		done
	done
}

# guest_libs BINARY: "GUEST_PATH HOST_PATH" of each shared library BINARY
# loads: ldd's answer for the host's binaries; for a foreign arch's, its
# interpreter and the libraries it names, from the cross compiler's libc
# (libc6-dev-*-cross), in /lib, where the loader looks without a cache.
guest_libs() {
	if [ -z "${DEBIAN_ARCH:-}" ]; then
		ldd "$1" | sed -n 's|.*=> \(/[^ ]*\) .*|\1 \1|p; s|^\t\(/[^ ]*\) .*|\1 \1|p'
		return
	fi
	sysroot=/usr/${CROSS_COMPILE%-}/lib
	interp=$("${CROSS_COMPILE}readelf" -l "$1" | sed -n 's|.*interpreter: \(/[^]]*\)\]|\1|p')
	[ -z "$interp" ] || echo "$interp $sysroot/${interp##*/}"
	"${CROSS_COMPILE}readelf" -d "$1" | sed -n 's|.*(NEEDED).*\[\(.*\)\]|\1|p' |
		while read -r lib; do
			[ -f "$sysroot/$lib" ] || die "initramfs: $1 needs $lib, not in $sysroot"
			echo "/lib/$lib $sysroot/$lib"
		done
}

# binaries_spec BINARY...: the gen_init_cpio lines of each BINARY, in
# /usr/bin, and of the shared libraries it loads.
binaries_spec() {
	for f in "$@"; do
		echo "file /usr/bin/${f##*/} $f 0755 0 0"
		guest_libs "$f" | while read -r lib host; do
			d=
			for part in $(echo "${lib%/*}" | tr / ' '); do
				d=$d/$part
				echo "dir $d 0755 0 0"
			done
			echo "file $lib $(readlink -f "$host") 0755 0 0"
		done
	done | awk '!seen[$0]++'
}

# A kernel of the series' tree with modules in a directory of its own (a
# debug kernel): the arch's initramfs, made if need be, then an archive of
# the modules, which the kernel unpacks after the first: the userspace is
# built once.
if [ -d "$obj/modules/lib" ] && [ "$obj" != "$(cd "$OBJ" && pwd)" ] &&
   [ "$src" = "$(cd "$SRC" && pwd)" ]; then
	sh "$0" "$arch" "$src"
	modules_spec > "$obj/modules.spec"
	"$gen" "$obj/modules.spec" > "$obj/modules.cpio"
	cat "$OBJ/initramfs.cpio" "$obj/modules.cpio" > "$obj/initramfs.cpio"
	say "initramfs: ${obj#$TOP/}/initramfs.cpio, ${OBJ#$TOP/}'s with the modules ($(du -k "$obj/initramfs.cpio" | cut -f1) KiB)"
	# The stress tests' archive: that one, then the outside stressors
	# (STRESS_BINARIES), which only they boot with.
	if [ -n "${STRESS_BINARIES:-}" ]; then
		binaries_spec $STRESS_BINARIES > "$obj/stress.spec"
		"$gen" "$obj/stress.spec" > "$obj/stress.cpio"
		cat "$obj/initramfs.cpio" "$obj/stress.cpio" > "$obj/initramfs-stress.cpio"
		say "initramfs: ${obj#$TOP/}/initramfs-stress.cpio, with $STRESS_BINARIES ($(du -k "$obj/initramfs-stress.cpio" | cut -f1) KiB)"
	fi
	exit 0
fi

# Only when what goes in changed: this script, the arch, guest/, the
# tree's tools/, UAPI headers and kernel/sched (whose headers the userspace
# twin includes), committed or not, the kernel's modules
# and the host files copied in.  A build with nothing changed takes a
# second, not the minute that compiling everything again takes.
inputs="tools include/uapi arch/$KARCH/include/uapi kernel/sched scripts/subarch.include"
key=$({ cat "$0" "$TOP/arch/$arch" "$TOP"/guest/*
	(cd "$src" && git ls-files -s -- $inputs && git diff HEAD -- $inputs)
	ls -lR --time-style=+%s "$obj/modules" 2>/dev/null || :
	ls -lL --time-style=+%s "$BUSYBOX" "$BASH_STATIC" ${GUEST_BINARIES:-}; } | cksum)
if [ -f "$obj/initramfs.cpio" ] && [ "$(cat "$obj/initramfs.key" 2>/dev/null)" = "$key" ]; then
	say "initramfs: ${obj#$TOP/}/initramfs.cpio is up to date"
	exit 0
fi
rm -f "$obj/initramfs.key"

# kselftests, built static for the guest.
ks=$obj/kselftest
rm -rf "$ks"
make -s -C "$src/tools/testing/selftests" TARGETS=sched O="$obj/kselftest-build" \
	ARCH="$KARCH" CROSS_COMPILE="$CROSS_COMPILE" CC="${CROSS_COMPILE}gcc" \
	LDFLAGS=-static INSTALL_PATH="$ks" install >/dev/null

# Guest programs of our own (guest/*.c), static.
mkdir -p "$obj/guest"
for f in "$TOP"/guest/*.c; do
	"${CROSS_COMPILE}gcc" -O2 -Wall -static -pthread -o "$obj/guest/$(basename "$f" .c)" "$f"
done

# The kernel's own cpuset and CPU hotplug tests, unmodified, with the
# cpuset test's helper built static; they run under Debian's bash-static.
up=$obj/upstream-tests
rm -rf "$up" && mkdir -p "$up/cgroup" "$up/cpu-hotplug"
cp "$src/tools/testing/selftests/cgroup/test_cpuset_prs.sh" "$up/cgroup/"
"${CROSS_COMPILE}gcc" -O2 -static -o "$up/cgroup/wait_inotify" \
	"$src/tools/testing/selftests/cgroup/wait_inotify.c"
cp "$src/tools/testing/selftests/cpu-hotplug/cpu-on-off-test.sh" "$up/cpu-hotplug/"

# The userspace twin of the calibration, from the tree, static (lint also
# builds commits that come before it).
twin=
if [ -f "$src/tools/sched/migration_cost/Makefile" ]; then
	make -s -C "$src/tools/sched/migration_cost" CC="${CROSS_COMPILE}gcc" \
		CFLAGS="-O2 -Werror" LDFLAGS=-static O="$obj/guest"
	twin=$obj/guest/migration_cost
fi

spec=$obj/initramfs.spec
{
	for d in bin sbin usr usr/bin proc sys dev tmp root; do
		echo "dir /$d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "file /init $TOP/guest/init 0755 0 0"
	echo "file /bin/busybox $BUSYBOX 0755 0 0"
	for f in "$TOP"/guest/*; do
		case ${f##*/} in
		init) ;;
		*.c) echo "file /bin/$(basename "$f" .c) $obj/guest/$(basename "$f" .c) 0755 0 0" ;;
		*) echo "file /bin/${f##*/} $f 0755 0 0" ;;
		esac
	done
	[ -z "$twin" ] || echo "file /bin/migration_cost $twin 0755 0 0"
	echo "file /bin/bash $BASH_STATIC 0755 0 0"
	modules_spec
	# Binaries that run in this guest (the host's, or a foreign arch's
	# from Debian), with their shared libraries.
	binaries_spec ${GUEST_BINARIES:-}
	(cd "$ks" && find . -mindepth 1 | sort) | while read -r p; do
		if [ -d "$ks/$p" ]; then
			echo "dir /kselftest/${p#./} 0755 0 0"
		else
			echo "file /kselftest/${p#./} $ks/${p#./} $(stat -c %a "$ks/$p") 0 0"
		fi
	done | sed '1i dir /kselftest 0755 0 0'
	for d in cgroup cpu-hotplug; do
		echo "dir /kselftest/$d 0755 0 0"
		for f in "$up/$d"/*; do
			echo "file /kselftest/$d/${f##*/} $f 0755 0 0"
		done
	done
} > "$spec"
"$gen" "$spec" > "$obj/initramfs.cpio"
echo "$key" > "$obj/initramfs.key"
say "initramfs: ${obj#$TOP/}/initramfs.cpio ($(du -k "$obj/initramfs.cpio" | cut -f1) KiB)"
