#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Each shape gives CPU0 the sched-domain levels its file declares.
. "$(dirname "$0")/lib.sh"
for f in "$TOP"/shapes/*; do
	shape=${f##*/}
	SHAPE_LEVELS=
	. "$f"
	boot "$shape" "$shape" "sched_verbose" \
		'echo "levels:" $(cat /sys/kernel/debug/sched/domains/cpu0/domain*/name 2>/dev/null)' ||
		continue
	got=$(echo "$OUT" | sed -n 's/^levels: *//p')
	check "$shape: CPU0 levels '$got', declared '$SHAPE_LEVELS'" [ "$got" = "$SHAPE_LEVELS" ]
done
finish
