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
	start=$(date +%s)
	log=$BUILD/logs/build-$arch.log
	if { sh "$TOP/scripts/deps.sh" "$arch" && sh "$TOP/scripts/kernel.sh" "$arch" &&
	     sh "$TOP/scripts/initramfs.sh" "$arch"; } >"$log" 2>&1 &&
	   ! grep -q 'warning:' "$log"; then
		echo "ok - build: $arch kernel and initramfs, no warning ($(($(date +%s) - start)) s)"
	else
		grep -E 'warning:|error:|Error' "$log" | head -n 20 | sed 's/^/  /'
		echo "not ok - build: $arch kernel and initramfs (${log#$TOP/})"; rc=1
	fi
done
exit $rc
