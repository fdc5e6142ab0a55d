#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages the harness needs, if any is missing.
# Usage: deps.sh ARCH
set -eu
. "$(dirname "$0")/lib.sh"
load_arch "${1:-x86_64}"

pkgs="bc bison flex make gcc libc6-dev libelf-dev libssl-dev kmod ccache python3 perl
      git xz-utils rsync busybox-static rt-tests python3-ply python3-git
      $ARCH_PACKAGES"

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

say "deps: installing$missing"
[ "$(id -u)" = 0 ] || die "need root to install:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# Recommends would pull in hundreds of MB of firmware for qemu-system-*.
apt-get install -y -qq --no-install-recommends $missing >/dev/null
