#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build every arch in ARCHES (default: all of arch/): install its
# dependencies, then its kernel and initramfs; one result line per arch,
# which fails on a compiler warning as on an error.  The tree is prepared
# once, first.
set -u
. "$(dirname "$0")/lib.sh"
mkdir -p "$BUILD/logs"
sh "$TOP/scripts/deps.sh" x86_64 && sh "$TOP/scripts/tree.sh" ||
	{ echo "not ok - build: the tree (make tree)"; exit 1; }
rc=0
for arch in $ARCHES; do
	build_guest "kernel and initramfs" "$BUILD/logs/build-$arch.log" "$arch" || rc=1
done
exit $rc
