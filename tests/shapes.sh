#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Each shape gives CPU0 the sched-domain levels its file declares, and the
# vCPU threads of a shape that binds them the host CPUs and CPU bandwidth
# it names.
. "$(dirname "$0")/lib.sh"
for f in "$TOP"/shapes/*; do
	shape=${f##*/}
	SHAPE_LEVELS= SHAPE_PIN= SHAPE_CAP= SHAPE_CAP_CORES=
	# A shape made of the host's cores refuses a host without enough.
	if ! why=$( (. "$f") 2>&1); then
		not_ok "$shape: does not load here: $why"
		continue
	fi
	. "$f"
	boot "$shape" "$shape" "sched_verbose" \
		'echo "levels:" $(cat /sys/kernel/debug/sched/domains/cpu0/domain*/name 2>/dev/null)' ||
		continue
	got=$(echo "$OUT" | sed -n 's/^levels: *//p')
	check "$shape: CPU0 levels '$got', declared '$SHAPE_LEVELS'" [ "$got" = "$SHAPE_LEVELS" ]
	[ -n "${SHAPE_PIN:-}" ] || continue
	# What the host says each vCPU thread was given: its host CPU, and
	# the CPU bandwidth of a capped one, as the .pins file has them.
	want=$(echo "$SHAPE_PIN" | awk -v cap="${SHAPE_CAP:-}" -v cores="${SHAPE_CAP_CORES:-}" '{
		split(cap, c, " "); n = split(cores, g, " ")
		for (i = 1; i <= n; i++) { split(g[i], f, ":"); m = split(f[1], v, ",")
			for (j = 1; j <= m; j++) core[v[j]] = f[2] * 200 "/20000" }
		for (i = 1; i <= NF; i++) { own = c[i] == "" || c[i] >= 100 ? "" : c[i] * 200 "/20000"
			if (i - 1 in core && own == "") own = "-1/20000"
			printf "%d %s%s%s;", i - 1, $i, own == "" ? "" : " cap " own, i - 1 in core ? " core " core[i - 1] : "" } }')
	got=$(awk '{ printf "%s %s", $2, $9; for (i = 10; i < NF; i++) printf " %s", $i; printf ";" }' "$LOG.pins" 2>/dev/null)
	check "$shape: vCPU threads bound and capped as the shape says ($got)" [ "$got" = "$want" ]
done
finish
