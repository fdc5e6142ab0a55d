#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make check-flakes: the flake audit.  Reruns, RUNS times (default 20),
# the boots of make check whose verdicts depend on timing, load or
# sampling (tests/README.md, "Checks that depend on time"), a round of
# every group after the other, so that a burst of load hits each alike,
# while FLAKE_LOAD busy loops (default 1, half of a 2-core machine) load
# the host as a neighbour on a shared CI machine would.  Then, per check:
# the runs it had, how many failed, and the values of the failed runs
# (what its result line and the first lines of its reason say).  FLAKES
# names the groups to audit (default: every group of AUDIT).  Each run's
# outputs and boot logs: build/logs/flakes/run-N/.  FLAKES_ADD=1 adds
# RUNS runs to those already there (RUNS=0: only the table), for an
# audit longer than one sitting; each run records the commit it ran, and
# one that did not end (interrupted) is left out of the table.
set -u
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-20}

# The groups: NAME, then the command (run from the top directory) that
# boots what is audited; CASES picks boots of a scenario (tests/lib.sh).
AUDIT="host sh tests/host.sh
calibration sh tests/calibration.sh
kselftest sh scripts/kselftest.sh
asym-smt sh tests/asym-smt.sh
capacity sh tests/capacity.sh
biglittle sh tests/biglittle.sh
pseries sh tests/pseries.sh
upstream sh tests/upstream.sh
harness sh tests/harness.sh
readme sh tests/readme.sh
debug DEBUG_SUITES=kselftest REPORTS=all CASES='debug-reports:clean debug-reports:kasan debug-reports:kfence debug-reports:kmemleak debug-reports:rcu-stall debugfs-race:* debug-fault-injection:* debug-torture:*' sh scripts/debug.sh"
groups=${FLAKES:-$(echo "$AUDIT" | cut -d' ' -f1)}
for g in $groups; do
	echo "$AUDIT" | grep -q "^$g " ||
		die "FLAKES: no group '$g' (have: $(echo "$AUDIT" | cut -d' ' -f1 | tr '\n' ' '))"
done

FLAKES_DIR=$BUILD/logs/flakes
[ "${FLAKES_ADD:-0}" = 1 ] || [ "$RUNS" = 0 ] || rm -rf "$FLAKES_DIR"
mkdir -p "$FLAKES_DIR"
last=$(ls -d "$FLAKES_DIR"/run-* 2>/dev/null | sed 's/.*run-//' | sort -n | tail -n 1)
run=$((${last:-0} + 1))
end=$((run + RUNS - 1))
# What make check builds, first: the audit times boots, not builds.
[ "$RUNS" = 0 ] || sh "$TOP/scripts/build.sh" > "$FLAKES_DIR/build.out" 2>&1 ||
	{ cat "$FLAKES_DIR/build.out"; die "the build failed"; }

load=
trap 'kill $load 2>/dev/null' EXIT
trap 'exit 130' INT TERM HUP
i=0
while [ "$RUNS" != 0 ] && [ "$i" -lt "${FLAKE_LOAD:-1}" ]; do
	sh -c 'while :; do :; done' &
	load="$load $!"
	i=$((i + 1))
done
[ "$RUNS" = 0 ] ||
	say "# flakes: runs $run to $end of: $(echo $groups); load: ${FLAKE_LOAD:-1} busy loop(s)"

while [ "$run" -le "$end" ]; do
	mkdir -p "$FLAKES_DIR/run-$run"
	git -C "$TOP" describe --always --dirty > "$FLAKES_DIR/run-$run/commit"
	for g in $groups; do
		cmd=$(echo "$AUDIT" | sed -n "s/^$g //p")
		t0=$(date +%s)
		out=$FLAKES_DIR/run-$run/$g.out
		# A group that ends without a result line of its own fails too.
		(cd "$TOP" && export LOGS="$FLAKES_DIR/run-$run" CHECK_TIMES="$FLAKES_DIR/run-$run/times.txt" &&
			eval "$cmd") > "$out" 2>&1 ||
			grep -q '^not ok - ' "$out" || echo "not ok - flakes: $g exited with a failure" >> "$out"
		grep -qE '^(not )?ok - ' "$out" || echo "not ok - flakes: $g gave no result" >> "$out"
		say "# flakes: run $run, $g: $(grep -c '^ok - ' "$out") passed," \
			"$(grep -c '^not ok - ' "$out") failed, $(($(date +%s) - t0)) s"
	done
	: > "$FLAKES_DIR/run-$run/ended"
	run=$((run + 1))
done
runs=$(ls -d "$FLAKES_DIR"/run-*/ended 2>/dev/null | sed 's|/ended$||')
cut=$(ls -d "$FLAKES_DIR"/run-* 2>/dev/null | grep -vxF "$runs" | sed 's|.*/||' | tr '\n' ' ')
[ -z "$cut" ] || say "# flakes: left out, did not end: $cut"

# The table.  A check is its result line without its values: what is in
# parentheses with a digit, the numbers standing alone and NAME=numbers,
# which go to the values; a failure's values are followed by the first two
# lines of its reason.  A check missing from runs of its group (cut off by
# a crash) fails in those runs; only in runs of the commits it ran under,
# so that a check added or renamed by a later commit is not a failure of
# the runs before it (a crash there fails its group's exit line anyway).
# Every run's values of each check: values.txt.
say "# flakes: $(echo $runs | wc -w) runs; their commits: $(for r in $runs; do cat "$r/commit" 2>/dev/null || echo unrecorded; done | sort | uniq -c | tr -s ' \n' ' ')"
say "# flakes: runs, failures, check: the values of the failed runs"
for f in $(for r in $runs; do ls "$r"/*.out; done); do
	g=${f##*/}
	awk -v grp="${g%.out}" -v run="${f%/*}" -v commit="$(cat "${f%/*}/commit" 2>/dev/null)" '/^(not )?ok - / { res = /^ok/ ? "ok" : "fail"; line = $0; sub(/^(not )?ok - /, "", line)
		# Each outermost (...) with a digit in it goes to the values.
		key = ""; val = ""; d = 0
		for (i = 1; i <= length(line); i++) { c = substr(line, i, 1)
			if (c == "(" && !d++) { start = i; continue }
			if (d && c == ")" && !--d) { g = substr(line, start, i - start + 1)
				if (g ~ /[0-9]/) val = val " " g; else key = key g; continue }
			if (!d) key = key c }
		if (d) key = key substr(line, start)
		n = split(key, w, " "); key = ""
		for (i = 1; i <= n; i++) {
			# and NAME=VALUE words whose value is a number or LEVEL:number list.
			if (w[i] ~ /^[0-9][0-9.]*[,;:]?$/ || w[i] ~ /^[a-z_]+=([A-Z]+:)?[0-9]/) {
				val = val " " w[i]; gsub(/[0-9.]+/, "#", w[i]) }
			key = key (i > 1 ? " " : "") w[i] }
		gsub(/ +,/, ",", key); sub(/ +$/, "", key); why = 2
		print res "\t" key "\t" val "\t" grp "\t" run "\t" commit; next }
	/^  / && res == "fail" && why-- > 0 { sub(/^ +/, ""); print "why\t\t" $0; next }
	{ res = "" }' "$f"
done | awk -F '\t' -v all="$FLAKES_DIR/values.txt" '
	$1 == "why" { if (last != "") vals[last] = vals[last] " | " $3; next }
	{ k = $2; if (!(k in runs)) order[++n] = k; runs[k]++; last = ""; grp[k] = $4
	  if (!(($4, $5) in grun)) { grun[$4, $5]; gruns[$4, $6]++ }
	  if (!((k, $5) in krun)) { krun[k, $5]; kruns[k, $6]++ }
	  if (!((k, $6) in kcommit)) { kcommit[k, $6]; commits[k] = commits[k] SUBSEP $6 }
	  if ($3 != "") seen[k] = seen[k] (seen[k] == "" ? "" : ";") $3
	  if ($1 == "fail") { fails[k]++; last = k; vals[k] = vals[k] (vals[k] == "" ? "" : "; ") "[" $3 "]" } }
	END { for (i = 1; i <= n; i++) { k = order[i]; miss = 0
		nc = split(substr(commits[k], 2), c, SUBSEP)
		for (j = 1; j <= nc; j++) miss += gruns[grp[k], c[j]] - kruns[k, c[j]]
		if (miss) fails[k] += miss
		printf "%3d %3d  %s%s%s\n", runs[k], fails[k], k, miss ? " (missing from " miss " runs of " grp[k] ")" : "",
			fails[k] - miss ? ": " substr(vals[k], 1, 600) : ""
		if (k in seen) print k ":" seen[k] > all }
		bad = 0; for (k in fails) bad += fails[k] > 0; exit bad > 0 }'
rc=$?

# The boots with the least room under their timeout: the longest of each
# boot's runs, and its timeout.
say "# flakes: the boots closest to their timeout: the longest of their runs, the timeout"
# harness.sh's hang runs into its timeout on purpose.
for r in $runs; do cat "$r/times.txt" 2>/dev/null; done | grep -v ' boot: harness-hang ' | sed -n 's/^\([0-9]*\) boot: \([^ ]*\) .*timeout \([0-9]*\) s)$/\1 \2 \3/p' |
	awk '{ if ($1 > max[$2]) max[$2] = $1; limit[$2] = $3 }
	END { for (b in max) printf "%6.2f %4d s of %4d s  %s\n", max[b] / limit[b], max[b], limit[b], b }' |
	sort -rn | head -n 10 | cut -c 8-
exit $rc
