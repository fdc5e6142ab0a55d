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

# ---- fake sysfs trees, for the userspace twin (--sysfs=DIR reads DIR/cpu
# and DIR/node, and takes its CPUs from DIR/cpu/online, which each tree
# has) and for hwloc (HWLOC_FSROOT=ROOT reads ROOT/sys/devices/system):
# each CPU set is written as the list the twin reads and as the mask hwloc
# reads.

# fake_sysfs DIR PACKAGE_OF_CPU1: a two-CPU machine (cpu/online 0-1) in
# DIR/cpu and DIR/node, each CPU with private L1, L2 (1 MiB) and L3
# (16 MiB) and a node of its own at distance 21, CPU 1 in package
# PACKAGE_OF_CPU1 (0: one package over both nodes, as SNC or NPS make it),
# and a node of memory only (CXL) at distance 17 from both.
fake_sysfs() {
	rm -rf "$1"
	for c in 0 1; do
		d=$1/cpu/cpu$c
		mkdir -p "$d/topology"
		fake_set "$d/topology/thread_siblings" $c 1
		fake_set "$d/topology/core_cpus" $c 1
		fake_set "$d/topology/package_cpus" $((c && $2 ? c : 0)) $(($2 ? 1 : 2))
		echo $(( c ? $2 : 0 )) > "$d/topology/physical_package_id"
		fake_cache "$d/cache/index0" Data 1 32K $c 1
		fake_cache "$d/cache/index1" Unified 2 1024K $c 1
		fake_cache "$d/cache/index2" Unified 3 16384K $c 1
	done
	echo 0-1 > "$1/cpu/online"
	for n in 0 1 2; do mkdir -p "$1/node/node$n"; done
	echo 0-2 > "$1/node/online"
	fake_set "$1/node/node0/cpu" 0 1
	fake_set "$1/node/node1/cpu" 1 1
	fake_set "$1/node/node2/cpu" 0 0
	echo "10 21 17" > "$1/node/node0/distance"
	echo "21 10 17" > "$1/node/node1/distance"
	echo "17 17 10" > "$1/node/node2/distance"
}

# fake_topo DIR CPUS SMT CLS L2 LLC PKG NODE DIST: CPUS CPUs (cpu/online
# 0 to CPUS - 1), in groups of consecutive CPUs: SMT threads a core, CLS a
# cluster (0: no cluster_* files), L2 sharing an L2 (1 MiB), LLC an L3
# (2 MiB a CPU), PKG a package, NODE a node.  Each core has its L1d and
# L1i (32 KiB).  DIST is the distance between nodes a and b, an
# arithmetic expression of a and b.
fake_topo() {
	rm -rf "$1"
	ft_smt=$3 ft_cls=$4 ft_l2=$5 ft_llc=$6 ft_pkg=$7 ft_node=$8
	c=0
	while [ $c -lt "$2" ]; do
		d=$1/cpu/cpu$c
		mkdir -p "$d/topology"
		fake_set "$d/topology/thread_siblings" $((c / ft_smt * ft_smt)) "$ft_smt"
		fake_set "$d/topology/core_cpus" $((c / ft_smt * ft_smt)) "$ft_smt"
		[ "$ft_cls" = 0 ] ||
			fake_set "$d/topology/cluster_cpus" $((c / ft_cls * ft_cls)) "$ft_cls"
		fake_set "$d/topology/package_cpus" $((c / ft_pkg * ft_pkg)) "$ft_pkg"
		fake_cache "$d/cache/index0" Data 1 32K $((c / ft_smt * ft_smt)) "$ft_smt"
		fake_cache "$d/cache/index1" Instruction 1 32K $((c / ft_smt * ft_smt)) "$ft_smt"
		fake_cache "$d/cache/index2" Unified 2 1024K $((c / ft_l2 * ft_l2)) "$ft_l2"
		fake_cache "$d/cache/index3" Unified 3 $((2048 * ft_llc))K \
			$((c / ft_llc * ft_llc)) "$ft_llc"
		c=$((c + 1))
	done
	echo 0-$(($2 - 1)) > "$1/cpu/online"
	a=0
	while [ $a -lt $(($2 / ft_node)) ]; do
		mkdir -p "$1/node/node$a"
		fake_set "$1/node/node$a/cpu" $((a * ft_node)) "$ft_node"
		b=0
		while [ $b -lt $(($2 / ft_node)) ]; do
			echo $((a == b ? 10 : ($9)))
			b=$((b + 1))
		done | paste -sd' ' > "$1/node/node$a/distance"
		a=$((a + 1))
	done
	echo 0-$((a - 1)) > "$1/node/online"
}

# fake_set PATH FIRST N: the N CPUs from FIRST, as PATH_list (4-7) and
# PATH (the mask, two 32-bit words, the high one first); a node's are
# PATHlist and PATHmap (PATH .../cpu), a cache's PATH_list and PATH_map.
fake_set() {
	case $1 in
	*/cpu) set -- "$@" "${1}list" "${1}map" ;;
	*/shared_cpu) set -- "$@" "${1}_list" "${1}_map" ;;
	*) set -- "$@" "${1}_list" "$1" ;;
	esac
	case $3 in 0) echo ;; 1) echo "$2" ;; *) echo "$2-$(($2 + $3 - 1))" ;; esac > "$4"
	awk -v lo="$2" -v n="$3" 'BEGIN { for (w = 1; w >= 0; w--) { v = 0
		for (i = 0; i < 32; i++) if (w * 32 + i >= lo && w * 32 + i < lo + n) v += 2 ^ i
		printf "%08x%s", v, w ? "," : "\n" } }' > "$5"
}

# fake_cache DIR TYPE LEVEL SIZE FIRST N: a cacheinfo leaf shared by the N
# CPUs from FIRST.
fake_cache() {
	mkdir -p "$1"
	echo "$2" > "$1/type"
	echo "$3" > "$1/level"
	echo "$4" > "$1/size"
	fake_set "$1/shared_cpu" "$5" "$6"
}
