#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages the harness needs, if any is missing.
# Usage: deps.sh ARCH
set -eu
. "$(dirname "$0")/lib.sh"
load_arch "${1:-x86_64}"

pkgs="bc bison flex make gcc libc6-dev libelf-dev libssl-dev kmod ccache python3 perl
      git xz-utils rsync busybox-static rt-tests stress-ng bash-static sparse python3-ply python3-git gnuplot-nox
      hwloc-nox $ARCH_PACKAGES"

export DEBIAN_FRONTEND=noninteractive
# One dpkg-query for all (every make boot asks): the packages not
# installed, in the order asked.
installed=$(dpkg-query -W -f='${Package} ${Status}\n' $pkgs 2>/dev/null |
	awk '/ ok installed$/ { print $1 }')
missing=
for p in $pkgs; do
	echo "$installed" | grep -qx "$p" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	say "deps: installing$missing"
	[ "$(id -u)" = 0 ] || die "need root to install:$missing"
	# An index that fails to download (a mirror in sync) need not stop
	# us: apt-get install says if it mattered.
	apt-get update -qq || say "deps: apt-get update had errors, going on"
	# Recommends would pull in hundreds of MB of firmware for qemu-system-*.
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# A foreign arch's guest userspace: its Debian busybox-static and
# bash-static packages (bash for the kernel's own cpuset and hotplug
# tests) and rt-tests (hackbench, for make bench-wakeup; its libraries
# come from the cross compiler's libc), downloaded through dpkg's
# multiarch support and unpacked, not installed.
[ -n "${DEBIAN_ARCH:-}" ] || exit 0
[ -x "$BUSYBOX" ] && [ -x "$BASH_STATIC" ] && [ -x "$RT_TESTS/usr/bin/hackbench" ] && exit 0
[ "$(id -u)" = 0 ] || die "need root to add the $DEBIAN_ARCH architecture"
if ! dpkg --print-foreign-architectures | grep -qx "$DEBIAN_ARCH"; then
	dpkg --add-architecture "$DEBIAN_ARCH"
	apt-get update -qq || say "deps: apt-get update had errors, going on"
fi
dl=$BUILD/dl
mkdir -p "$dl"
for pkg in busybox-static bash-static rt-tests; do
	say "deps: fetching $pkg:$DEBIAN_ARCH"
	rm -f "$dl/${pkg}_"*"_$DEBIAN_ARCH.deb"
	# As root, into a directory that apt's unprivileged _apt user cannot write.
	(cd "$dl" && apt-get download -qq -o APT::Sandbox::User=root "$pkg:$DEBIAN_ARCH")
	rm -rf "$dl/${pkg%-static}-$DEBIAN_ARCH"
	dpkg-deb -x "$dl/${pkg}_"*"_$DEBIAN_ARCH.deb" "$dl/${pkg%-static}-$DEBIAN_ARCH"
done
[ -x "$BUSYBOX" ] || die "no $BUSYBOX in busybox-static:$DEBIAN_ARCH"
[ -x "$BASH_STATIC" ] || die "no $BASH_STATIC in bash-static:$DEBIAN_ARCH"
