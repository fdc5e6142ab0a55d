#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make run: boot SHAPE (default numa) and show what the series adds: CPU0's
# sched domains with their cache_hot_time, and the series' dmesg lines.
# APPEND defaults to pinned per-level values.
set -eu
. "$(dirname "$0")/lib.sh"
shape=${SHAPE:-numa}
append=${APPEND:-migration_cost=1000,2000,4000,8000}
load_shape "$shape"

say "== $(cd "$SRC" && git log --oneline base..HEAD | wc -l) patches on $(cd "$SRC" && make -s kernelversion)," \
    "shape $shape (${SHAPE_LEVELS:-no sched domains})"
say "== kernel arguments: sched_verbose $append"
log=$(sh "$TOP/scripts/boot.sh" "$shape" "sched_verbose $append" \
	'echo "-- CPU0 sched domains"; sched-domains 0
	 echo "-- series dmesg lines"; dmesg | grep -E "^\[[ 0-9.]+\] migration_cost"') || {
	rc=$?; say "== boot failed, log: $log"; exit $rc; }
guest_output "$log"
say "== log: ${log#$TOP/}"
