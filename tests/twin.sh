#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The userspace twin as a tool, on this host: --format=csv and json hold
# the records the text report holds, --repeat applies its stated rule to
# its own runs, the exit status tells measured from noise, bad options are
# refused, a refused SCHED_FIFO is said once, and make install puts it
# where DESTDIR and prefix say.  Each
# checker is also run on a doctored copy of the output, which it must
# reject.
. "$(dirname "$0")/lib.sh"
native_twin
D=$BUILD/logs/twin
rm -rf "$D" && mkdir -p "$D"

# fails COMMAND...: COMMAND (a checker, a function of this file) failed.
fails() { ! "$@" >/dev/null 2>&1; }

# csv_ok FILE RUNS: the CSV of --repeat RUNS holds a header, per run one
# level record per level (the same levels each run) and a size record per
# size it timed (1 to 3, only for timed levels), then a summary per level
# whose counts are those of its level records, whose median cost is that
# of their costs, and whose value follows the rule: measured in more than
# half of the runs, the median of their cache-hot times rounded up to
# 10 us (an even count's two middle values averaged), else 0.
csv_ok() {
	# A comma inside a quoted field ("undecided, noise") is not a separator.
	sed 's/"\([^",]*\), \([^"]*\)"/"\1; \2"/g' "$1" | awk -F, -v runs="$2" '
	function median(list, n,   a, i, j, t) {
		split(list, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : int((a[n / 2] + a[n / 2 + 1]) / 2)
	}
	NR == 1 { if ($0 != "record,run,level,src,dst,state,cache_level,cache_bytes,buffer_bytes,cost_ns,retouch_ns,lo_ns,hi_ns,rounds,hot_ns,measured_runs,timed_runs,cost_cv_pct") { print "bad header"; bad++ } next }
	NF != 18 { print "line " NR ": " NF " fields"; bad++; next }
	$1 == "size" { sizes[$2 "," $3]++; next }
	$1 == "level" {
		levels[$2]++; names[$3] = 1
		timed = $6 == "\"measured\"" || $6 == "\"noise\""
		if (timed != (sizes[$2 "," $3] >= 1 && sizes[$2 "," $3] <= 3)) { print "run " $2 " " $3 ": " sizes[$2 "," $3] + 0 " size records, state " $6; bad++ }
		if (timed) { nt[$3]++; cost[$3] = cost[$3] " " $10 }
		if ($6 == "\"measured\"") { nm[$3]++; hot[$3] = hot[$3] " " $15 }
		next }
	$1 == "summary" {
		s++
		want = 2 * nm[$3] > runs ? int((median(hot[$3], nm[$3]) + 9999) / 10000) * 10000 : 0
		if ($16 != nm[$3] + 0 || $17 != nt[$3] + 0 || $15 != want) {
			print $3 ": summary " $15 " (" $16 " measured, " $17 " timed), want " want " (" nm[$3] + 0 ", " nt[$3] + 0 ")"; bad++ }
		mc = nt[$3] ? median(cost[$3], nt[$3]) : ""
		if ($10 != mc) { print $3 ": median cost " $10 ", want " mc; bad++ }
		next }
	{ print "line " NR ": record " $1; bad++ }
	END {
		for (r = 1; r <= runs; r++) if (levels[r] != length(names)) { print "run " r ": " levels[r] + 0 " levels"; bad++ }
		if (s != length(names) || !s) { print s + 0 " summaries"; bad++ }
		exit bad > 0 }'
}

# json_ok FILE: the JSON of one run parses and agrees with itself: the
# summary has the run's levels and values, timed levels have their cost
# and sizes, and migration_cost= is the summary's.
json_ok() {
	python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
runs, summary = j["runs"], j["summary"]
assert len(runs) == 1, "runs"
levels = runs[0]["levels"]
assert [l["level"] for l in levels] == [s["level"] for s in summary], "levels"
for l, s in zip(levels, summary):
    assert s["hot_ns"] == (l["hot_ns"] if l["state"] == "measured" else 0), l["level"] + " value"
    assert ("cost_ns" in l) == (l["state"] in ("measured", "noise")), l["level"] + " cost"
    assert (len(l["sizes"]) > 0) == ("cost_ns" in l), l["level"] + " sizes"
line = ",".join("%s:%d" % (s["level"], s["hot_ns"] // 1000) for s in summary)
assert j["migration_cost"] == line, "migration_cost"
' "$1"
}

"$TWIN" --format=csv --repeat=3 --budget-ms=10000 > "$D/repeat.csv" && rc=0 || rc=$?
check "csv: --repeat=3 exits 0 or 4 (status $rc)" sh -c '[ "$1" = 0 ] || [ "$1" = 4 ]' - "$rc"
check "csv: records per size, level and run, summaries by the stated rule" csv_ok "$D/repeat.csv" 3
sed '$s/,[0-9]*,\([0-9]*\),\([0-9]*\),\([0-9]*\)$/,12340000,\1,\2,\3/' "$D/repeat.csv" > "$D/doctored.csv"
check "csv: the checker rejects a summary value the rule does not give" \
	fails csv_ok "$D/doctored.csv" 3
awk -F, '$1 == "level" && !n++ { next } 1' "$D/repeat.csv" > "$D/doctored-level.csv"
check "csv: and a run that lost a level record" fails csv_ok "$D/doctored-level.csv" 3
check "csv: the exit status says whether a level was measured" \
	sh -c '[ "$1" = "$(awk -F, "\$1 == \"summary\" && \$15 > 0 { m = 1 } END { print m ? 0 : 4 }" "$2")" ]' - "$rc" "$D/repeat.csv"

"$TWIN" --format=json --budget-ms=10000 > "$D/one.json" && rc=0 || rc=$?
check "json: one run parses and agrees with itself (status $rc)" json_ok "$D/one.json"
sed 's/"migration_cost": "\([A-Z]*\):/"migration_cost": "\1:9/' "$D/one.json" > "$D/doctored.json"
check "json: the checker rejects a migration_cost= that is not the summary's" \
	fails json_ok "$D/doctored.json"

"$TWIN" --repeat=3 --budget-ms=10000 > "$D/repeat.txt" && rc=0 || rc=$?
check "text: --repeat=3 prints 3 runs of level lines, a summary per level, the rule and the line" \
	sh -c 'n=$(grep -c "^run [123]: migration cost: " "$1"); l=$(grep -c "^[A-Z0-9_]*: measured in [0-9] of 3 runs, timed in [0-9], median cost -\{0,1\}[0-9.]* us, CV [0-9]*%, cache_hot_time [0-9]* us$" "$1")
		[ "$n" -ge 3 ] && [ "$n" = $((3 * l)) ] && grep -q "^rule: a level measured in more than half" "$1" &&
		grep -qE "^migration_cost=[A-Z0-9_]+:[0-9]+(,[A-Z0-9_]+:[0-9]+)*$" "$1"' - "$D/repeat.txt"

check "usage: --format=xml, --repeat=0 and --repeat=1001 exit 1" sh -c '
	for a in --format=xml --repeat=0 --repeat=1001; do "$1" "$a" 2>/dev/null; [ $? = 1 ] || exit 1; done' - "$TWIN"
check "usage: --help documents exit status 4" sh -c '"$1" --help | grep -q "4 results printed but no level measured"' - "$TWIN"

# Unprivileged (root can take SCHED_FIFO): refused, said once, and it runs.
# A copy in /tmp, which nobody can reach wherever the clone is.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	nobody_dir=$(mktemp -d /tmp/twin.XXXXXX)
	cp "$TWIN" "$nobody_dir/migration_cost" && chmod 755 "$nobody_dir" "$nobody_dir/migration_cost"
	check "SCHED_FIFO refused: said once on stderr, the report still printed" sh -c '
		err=$(su nobody -s /bin/sh -c "$1 --repeat=2 --budget-ms=2000" 2>&1 >/dev/null)
		[ "$(echo "$err" | grep -c "^migration_cost: SCHED_FIFO refused")" = 1 ] &&
		su nobody -s /bin/sh -c "$1 --budget-ms=2000" 2>/dev/null | grep -q "^migration_cost="' - "$nobody_dir/migration_cost"
	rm -rf "$nobody_dir"
fi

make -s -C "$SRC/tools/sched/migration_cost" O="$D" install DESTDIR="$D/root" prefix=/usr >/dev/null 2>&1
check "make install: DESTDIR and prefix honoured" [ -x "$D/root/usr/bin/migration_cost" ]
check "make: CC from the environment" \
	sh -c 'CC=my-cc make -n -B -C "$1" O="$2" | grep -q "^my-cc "' - "$SRC/tools/sched/migration_cost" "$D"
finish
