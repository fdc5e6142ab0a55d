#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot scenarios: run every tests/*.sh but lib.sh and the debug kernel's
# (tests/debug-*.sh and debugfs-race.sh, which scripts/debug.sh runs on the
# KASAN kernel: on this one a use-after-free would pass unseen), or those
# TESTS names.
set -eu
. "$(dirname "$0")/lib.sh"
rc=0
for t in ${TESTS:-$(ls "$TOP"/tests/*.sh | grep -vE '/(lib|debug-.*|debugfs-race)\.sh$')}; do
	t0=$(date +%s)
	sh "$t" || rc=1
	say "# ${t#$TOP/}: $(($(date +%s) - t0)) s"
done
exit $rc
