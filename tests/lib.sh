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

# check DESCRIPTION COMMAND...: one result line from COMMAND's exit status,
# followed by what COMMAND printed (why it failed), indented.
check() {
	desc=$1; shift
	if why=$("$@" 2>&1); then ok "$desc"; else not_ok "$desc"; fi
	[ -z "$why" ] || echo "$why" | sed 's/^/  /'
}

# boot_only NAME SHAPE APPEND RUN: the boot without a verdict: sets $LOG
# and boot_rc (scripts/boot.sh's status); boot.sh's stderr is in
# $LOGS/.boot-why.
boot_only() {
	boot_rc=0
	LOG=$LOGS/test-$T-$1.log
	say "# $T: boot $1: $2${3:+, $3}"
	NAME="test-$T-$1" sh "$TOP/scripts/boot.sh" "$2" "$3" "$4" >/dev/null 2>"$LOGS/.boot-why" ||
		boot_rc=$?
}

# selected NAME: the boot NAME of this test is to run: CASES is unset, or
# one of its space-separated globs matches "TEST:NAME" (make check-flakes
# reruns some boots of a test: CASES="host:pinned calibration:budget").
selected() {
	[ -n "${CASES:-}" ] || return 0
	set -f
	for c in $CASES; do
		case $T:$1 in $c) set +f; cases_run=$((cases_run + 1)); return 0 ;; esac
	done
	set +f
	return 1
}
cases_run=0

# boot NAME SHAPE APPEND RUN: boot, set $LOG and $OUT (the RUN output);
# a failed boot is itself a failed check, followed by boot.sh's reason
# (with the end of the kernel's log) and the end of RUN's output.  With
# HANG_IS_RESULT=1 a timeout is not: it sets HUNG=1 (else 0), and $OUT is
# what RUN printed before it.  A boot CASES leaves out returns 1, silently.
boot() {
	HUNG=0
	OUT=
	selected "$1" || return 1
	boot_only "$@"
	[ "$boot_rc" != 124 ] || [ "${HANG_IS_RESULT:-0}" != 1 ] || HUNG=1
	if [ "$boot_rc" = 0 ] || [ "$HUNG" = 1 ]; then
		OUT=$(guest_output "$LOG")
		return 0
	fi
	not_ok "$1: boot failed, status $boot_rc (${LOG#$TOP/})"
	{ grep -v '^boot: [^ ]*, log ' "$LOGS/.boot-why"
	  [ ! -f "$LOG.run" ] || guest_output "$LOG" | tail -n 10; } | sed 's/^/  /'
	OUT=
	return 1
}

# typed_shell DIR LOG PATTERN INPUT COMMAND: run the shell command COMMAND
# (a make shell) in DIR, its output in LOG, and type INPUT (lines) once
# LOG matches the ERE PATTERN: what comes before the guest's console is
# open is lost.  COMMAND's status; a COMMAND that ended first is typed
# nothing (SIGPIPE ignored), and one still running after 300 s is killed.
typed_shell() {
	typed_fifo=$(mktemp -u)
	mkfifo "$typed_fifo"
	: > "$2"
	(cd "$1" && exec timeout 300 sh -c "$5" < "$typed_fifo" > "$2" 2>&1) &
	typed_pid=$!
	exec 3> "$typed_fifo"
	typed_n=0
	until grep -qE -- "$3" "$2" || ! kill -0 "$typed_pid" 2>/dev/null || [ "$typed_n" -ge 240 ]; do
		sleep 1; typed_n=$((typed_n + 1))
	done
	(trap '' PIPE; printf '%s\n' "$4" >&3) 2>/dev/null
	wait "$typed_pid"
	set -- $?
	exec 3>&-
	rm -f "$typed_fifo"
	return "$1"
}

# The kernel's own lines of $LOG (kernel_lines).  With KLOG_LAST=1, only
# from the line after the next-to-last calibration delay: the lines of the
# last calibration of a log that has several.
klog() {
	kernel_lines "$LOG" |
		awk -v last="${KLOG_LAST:-0}" '{ l[NR] = $0 } /\] calibration delay: / { prev = cur; cur = NR }
			END { for (i = last == 1 ? prev + 1 : 1; i <= NR; i++) print l[i] }'
}

# has PATTERN: the kernel log has a line matching the ERE PATTERN.
has() { klog | grep -qE -- "$1"; }

# out_has LINE: the guest's output ($OUT) has this line.
out_has() { echo "$OUT" | grep -qx -- "$1"; }

# out_match ERE: a line of the guest's output matches.
out_match() { echo "$OUT" | grep -qE -- "$1"; }

# group_lines TAG: the group_capacity lines RUN printed prefixed "TAG: ".
group_lines() { echo "$OUT" | sed -n "s/^$1: //p"; }

# AWK_KV: an awk function for programs reading such lines: kv() fills v[]
# with the line's key=value fields (v["arch_capacity"], ...).
AWK_KV='function kv(  i, f) { delete v; for (i = 1; i <= NF; i++) if (split($i, f, "=") == 2) v[f[1]] = f[2] }'

# tap_results NAME FIXTURE N: one result per TAP line of a kselftest_harness
# program's FIXTURE in $OUT (a skip fails), and a failure unless N came.
tap_results() {
	echo "$OUT" | awk -v t="$T" -v name="$1" -v f="$2" -v n="$3" '
		$0 ~ "^(not )?ok [0-9]+ " f "\\." { seen++; res = ($1 == "ok" && !/# SKIP/) ? "ok" : "not ok"
			if (res != "ok") bad = 1
			sub(/^(not )?ok [0-9]+ /, ""); print res " - " t ": " name ": " $0 }
		END { if (seen != n) { print "not ok - " t ": " name ": " seen + 0 " of " n " results"; bad = 1 }
			exit bad }' || failed=1
}

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

# The report's migration_cost= line, named: "LEVEL:us,LEVEL:us...".
cost_line() { klog | sed -n 's/^\[[ .0-9]*\] migration_cost=\([A-Z0-9_:,]*\)$/\1/p'; }

# line_is_domains: every domain in $OUT has the value that the report's
# migration_cost= line gives its level, and the line names every level.
line_is_domains() {
	domains_are "$(cost_line | awk -F, '{ for (i = 1; i <= NF; i++) {
		split($i, f, ":"); printf "%s=%d ", f[1], f[2] * 1000 } }')"
}

# level_line LEVEL: the report's line for LEVEL, without the prefixes.
level_line() { klog | sed -n "s/^\[[ .0-9]*\] migration cost: $1 /$1 /p"; }

# The sched-domains lines of $OUT, without kernel messages.
domains() { echo "$OUT" | grep -E '^cpu[0-9]+ '; }

# timed_levels_ok: every measured or noise level line is well formed, took
# 5 to 15 rounds, and a measured one has its cost inside its 90% interval,
# which is above 0, as the confidence rule says.
timed_levels_ok() {
	klog | sed -n 's/^\[[ .0-9]*\] migration cost: //p' | awk '
		/^[A-Z0-9_]+ [^:]*\): (measured|noise)(,|$)/ { n++
			if ($0 !~ /^[A-Z]+ [0-9]+\.[0-9] us \(CPU [0-9]+ <-> [0-9]+, L[0-9] [0-9]+ [KM]iB, buffer [0-9]+ [KM]iB\): (measured|noise), 90% in -?[0-9]+\.[0-9] to -?[0-9]+\.[0-9] us, [0-9]+ rounds$/) {
				print "malformed: " $0; bad++ }
			lo = $(NF - 5); hi = $(NF - 3); r = $(NF - 1)
			if (r < 5 || r > 15 || lo > hi) { print "bad interval or rounds: " $0; bad++ }
			if (/: measured,/ && !(lo > 0 && lo <= $2 && $2 <= hi)) { print "measured within noise: " $0; bad++ } }
		END { exit bad }'
}

# unmeasured_zero: every level the report does not call measured has 0 on
# every domain (noise never becomes a value), unless migration_cost= pins it.
unmeasured_zero() {
	for l in $(klog | sed -n 's/^\[[ .0-9]*\] migration cost: \([A-Z0-9_]*\) .*: \(noise, 90% in .*\|budget spent\|skipped.*\|no .*\|buffer .*\|a CPU .*\)$/\1/p'); do
		domains | awk -v l="$l" '$4 == l && $5 != 0 { print "  " $0; bad++ } END { exit bad }' || return 1
	done
}

# finish: the test's status; a CASES that names this test but none of its
# boots (a misspelt name) fails it.
finish() {
	if [ -n "${CASES:-}" ] && [ "$cases_run" = 0 ]; then
		set -f
		for c in $CASES; do
			case $T in ${c%%:*}) not_ok "CASES: '$c' names no boot of $T"; break ;; esac
		done
		set +f
	fi
	exit "$failed"
}
