# SPDX-License-Identifier: GPL-2.0
# Helpers for the boot scenarios in tests/*.sh: sourced, never run.
# Each scenario boots shapes and prints one "ok - ..." or "not ok - ..."
# line per check; scripts/scenarios.sh counts them.

. "$(dirname "$0")/../scripts/lib.sh"
T=${0##*/}
T=${T%.sh}
failed=0

ok() { echo "ok - $T: $*"; }
not_ok() { echo "not ok - $T: $*"; failed=1; }

# check DESCRIPTION COMMAND...: one result line from COMMAND's exit status.
check() {
	desc=$1; shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

# boot NAME SHAPE APPEND RUN: boot, set $LOG and $OUT (the RUN output);
# a failed boot is itself a failed check.
boot() {
	LOG=$(NAME="test-$T-$1" sh "$TOP/scripts/boot.sh" "$2" "$3" "$4") ||
		{ not_ok "$1: boot failed ($LOG)"; OUT=; return 1; }
	OUT=$(guest_output "$LOG")
}

# The kernel's own lines: the console log up to the guest's output.
klog() { sed -n '/@@@ run begin @@@/q;p' "$LOG" | tr -d '\r'; }

# has PATTERN: the kernel log has a line matching the ERE PATTERN.
has() { klog | grep -qE -- "$1"; }

# out_has LINE: the guest's output ($OUT) has this line.
out_has() { echo "$OUT" | grep -qx -- "$1"; }

# out_match ERE: a line of the guest's output matches.
out_match() { echo "$OUT" | grep -qE -- "$1"; }

# count PATTERN: how many kernel log lines match.
count() { klog | grep -cE -- "$1"; }

# domains_are WANT: every line of sched-domains output ($OUT) has, for its
# level name, the cache_hot_time WANT gives as "NAME=VALUE ...".
domains_are() {
	echo "$OUT" | awk -v want="$1" '
		BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) { split(w[i], kv, "="); v[kv[1]] = kv[2] } }
		$1 ~ /^cpu[0-9]+$/ { seen++; if (!($4 in v) || $5 != v[$4]) { print "  " $0 " (want " v[$4] ")"; bad++ } }
		END { exit !(seen && !bad) }'
}

finish() { exit "$failed"; }
