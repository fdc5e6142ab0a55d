#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# List the QEMU shapes: name, arch, CPUs and the sched-domain levels CPU0
# gets (tests/shapes.sh boots each one and checks them).
set -eu
. "$(dirname "$0")/lib.sh"
printf '%-15s %-8s %5s  %-18s %s\n' shape arch cpus levels description
for f in "$TOP"/shapes/*; do
	# A shape that does not load here (too few host cores) says why.
	(
	SHAPE_LEVELS=
	load_shape "${f##*/}"
	cpus=$(echo $SHAPE_QEMU | sed -n 's/.*-smp \([0-9]*\).*/\1/p')
	desc=$(sed -n '2s/^# //p' "$f")
	printf '%-15s %-8s %5s  %-18s %s\n' "${f##*/}" "$SHAPE_ARCH" "$cpus" \
		"${SHAPE_LEVELS:-(none)}" "$desc"
	) || :
done
