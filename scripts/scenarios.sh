#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot scenarios: run every tests/*.sh (all but lib.sh), or those named.
set -eu
. "$(dirname "$0")/lib.sh"
rc=0
for t in ${TESTS:-$(ls "$TOP"/tests/*.sh | grep -v '/lib\.sh$')}; do
	sh "$t" || rc=1
done
exit $rc
