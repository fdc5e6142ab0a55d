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

# fails_with WHY COMMAND...: COMMAND failed, saying WHY and nothing else
# (not a crash or a missing file).
fails_with() {
	why=$1; shift
	! out=$("$@" 2>&1) && [ "$out" = "$why" ] || { echo "$out"; return 1; }
}

# csv_ok FILE RUNS [pairs]: the CSV of --repeat RUNS holds a header, per
# run one level record per level (the same levels each run) and a size
# record per size it timed (1 to 3, only for timed levels), then a summary
# per level whose counts are those of its level records, whose median cost
# is that of their costs, and whose value follows the rule: measured in
# more than half of the runs, the median of their cache-hot times rounded
# up to 10 us (an even count's two middle values averaged), else 0.  With
# "pairs", the CSV of --matrix: pair records per run and a cell per pair,
# keyed by the pair, and no size records.
csv_ok() {
	# A comma inside a quoted field ("undecided, noise") is not a separator.
	sed 's/"\([^",]*\), \([^"]*\)"/"\1; \2"/g' "$1" | awk -F, -v runs="$2" -v mode="${3:-levels}" '
	function median(list, n,   a, i, j, t) {
		split(list, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : int((a[n / 2] + a[n / 2 + 1]) / 2)
	}
	BEGIN { rec = mode == "pairs" ? "pair" : "level"; sum = mode == "pairs" ? "cell" : "summary" }
	NR == 1 { if ($0 != "record,run,level,src,dst,state,cache_level,cache_bytes,buffer_bytes,cost_ns,retouch_ns,lo_ns,hi_ns,rounds,hot_ns,measured_runs,timed_runs,cost_cv_pct") { print "bad header"; bad++ } next }
	NF != 18 { print "line " NR ": " NF " fields"; bad++; next }
	{ key = mode == "pairs" ? $4 "-" $5 : $3 }
	$1 == "size" && mode != "pairs" { sizes[$2 "," key]++; next }
	$1 == rec {
		levels[$2]++; names[key] = 1
		if (mode == "pairs" && lv[key] != "" && lv[key] != $3) { print key ": level " $3 " after " lv[key]; bad++ }
		lv[key] = $3
		timed = $6 == "\"measured\"" || $6 == "\"noise\""
		if (mode != "pairs" && timed != (sizes[$2 "," key] >= 1 && sizes[$2 "," key] <= 3)) { print "run " $2 " " key ": " sizes[$2 "," key] + 0 " size records, state " $6; bad++ }
		if (timed) { nt[key]++; cost[key] = cost[key] " " $10 }
		if ($6 == "\"measured\"") { nm[key]++; hot[key] = hot[key] " " $15 }
		next }
	$1 == sum {
		s++
		if ($3 != lv[key]) { print key ": " sum " at level " $3 ", its records at " lv[key]; bad++ }
		want = 2 * nm[key] > runs ? int((median(hot[key], nm[key]) + 9999) / 10000) * 10000 : 0
		if ($16 != nm[key] + 0 || $17 != nt[key] + 0 || $15 != want) {
			print key ": " sum " " $15 " (" $16 " measured, " $17 " timed), want " want " (" nm[key] + 0 ", " nt[key] + 0 ")"; bad++ }
		mc = nt[key] ? median(cost[key], nt[key]) : ""
		if ($10 != mc) { print key ": median cost " $10 ", want " mc; bad++ }
		next }
	{ print "line " NR ": record " $1; bad++ }
	END {
		for (r = 1; r <= runs; r++) if (levels[r] != length(names)) { print "run " r ": " levels[r] + 0 " " rec "s"; bad++ }
		if (s != length(names) || !s) { print s + 0 " " sum "s"; bad++ }
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
# status_ok STATUS FILE: STATUS is 0 when a level record of the CSV FILE
# says "measured", else 4 (--help: a level measured in any run, which is
# not the summary's rule, where one run of three gives the value 0).
status_ok() {
	[ "$1" = "$(awk -F, '$1 == "level" && $6 == "\"measured\"" { m = 1 }
		END { print m ? 0 : 4 }' "$2")" ]
}
check "csv: the exit status says whether a level was measured in any run" \
	status_ok "$rc" "$D/repeat.csv"
check "csv: and the checker rejects the other status" \
	fails status_ok "$((4 - rc))" "$D/repeat.csv"

"$TWIN" --format=json --budget-ms=10000 > "$D/one.json" && rc=0 || rc=$?
check "json: one run parses and agrees with itself (status $rc)" json_ok "$D/one.json"
sed 's/"migration_cost": "\([A-Z]*\):/"migration_cost": "\1:9/' "$D/one.json" > "$D/doctored.json"
check "json: the checker rejects a migration_cost= that is not the summary's" \
	fails json_ok "$D/doctored.json"

# ---- --matrix and --pairs, on up to 4 of the CPUs this shell may use
CPUS=$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' |
	awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) if (n++ < 4) printf "%d ", c }')
MX="taskset -c $(echo $CPUS | tr ' ' ,) $TWIN --max-cache-size=65536 --budget-ms=10000"

# pairs_cover FILE RUNS CPUS: the --matrix CSV has, in each run, one pair
# record for each pair of CPUS (a < b), and no other.
pairs_cover() {
	awk -F, -v runs="$2" -v cpus="$3" '
	BEGIN { n = split(cpus, c, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) want[c[i] "-" c[j]] = 1 }
	$1 == "pair" { k = $4 "-" $5; if (!(k in want)) { print "pair " k " not asked"; bad++ } seen[k, $2]++ }
	END { for (k in want) for (r = 1; r <= runs; r++) if (seen[k, r] != 1) {
			print "pair " k ", run " r ": " seen[k, r] + 0 " records"; bad++ }
		exit bad > 0 }' "$1"
}

# pairs_match_levels MATRIX LEVELS: each level's pair in the CSV LEVELS
# (--format=csv) has, in the --matrix CSV MATRIX, that level and cache:
# the pairs of the calibration (mc_choose_pair()) and of the matrix
# (tw_pair_level()) are found by two different paths.
pairs_match_levels() {
	awk -F, 'FNR == 1 { f++ } f == 1 && $1 == "summary" { want[($4 < $5 ? $4 "-" $5 : $5 "-" $4)] = $3 " L" $7 " " $8 }
		f == 2 && $1 == "cell" { got[($4 < $5 ? $4 "-" $5 : $5 "-" $4)] = $3 " L" $7 " " $8 }
		END { for (k in want) if (got[k] != want[k]) { print k ": " got[k] ", the levels say " want[k]; bad++ }
			if (!length(want)) { print "no level"; bad++ }
			exit bad > 0 }' "$2" "$1"
}

# duration_said ERR CSV RUNS BUDGET_MS: the twin's first line on stderr
# says how many pairs the CSV has, how many of them lose a cache (those
# timed or cut short), and RUNS x that x BUDGET_MS as hours, minutes and
# seconds.
duration_said() {
	want=$(awk -F, -v runs="$3" -v ms="$4" '$1 == "pair" && $2 == 1 { n++
			if ($6 ~ /^"(measured|noise|budget spent|a CPU went offline|buffer allocation failed)"$/) t++ }
		END { s = int((t * runs * ms + 999) / 1000)
			printf "migration_cost: %d CPU pairs, %d to time, %d runs: at most %dh%02dm%02ds\n", n, t, runs, s / 3600, s / 60 % 60, s % 60 }' "$2")
	[ "$(head -n 1 "$1")" = "$want" ] || { echo "said: $(head -n 1 "$1")"; echo "want: $want"; return 1; }
}

# grid_ok FILE: the text of --matrix (one run) has a row and a column per
# CPU of its pairs, symmetric, each off-diagonal cell the cost of its
# pair's line ("-" for a pair not timed).
grid_ok() {
	awk '
	/^ +( +\[[0-9]+\])+$/ { n = split($0, h, /[][ ]+/); for (i = 2; i < n; i++) col[i - 1] = h[i] + 0; ncol = n - 2; next }
	/^\[[0-9]+\]: / { r = substr($1, 2) + 0; rows++; for (i = 2; i <= NF; i++) cell[r, col[i - 1]] = $i
		if (NF - 1 != ncol) { print "row " r ": " NF - 1 " cells of " ncol; bad++ } next }
	/^migration cost: [A-Z0-9_]+ .*\(CPU [0-9]+ <-> [0-9]+/ {
		l = $0; sub(/.*\(CPU /, "", l); split(l, p, /[ <>,):-]+/)
		c = $5 == "us" ? $4 : "-"; line[p[1], p[2]] = c; pairs++ }
	END {
		if (!rows || rows != ncol) { print rows + 0 " rows, " ncol + 0 " columns"; bad++ }
		for (k in line) { split(k, p, SUBSEP)
			if (cell[p[1], p[2]] != line[k] || cell[p[2], p[1]] != line[k]) {
				print "CPU " p[1] " <-> " p[2] ": cells " cell[p[1], p[2]] " and " cell[p[2], p[1]] ", line " line[k]; bad++ } }
		if (pairs != ncol * (ncol - 1) / 2) { print pairs + 0 " pair lines for " ncol " CPUs"; bad++ }
		exit bad > 0 }' "$1"
}

# matrix_json_ok FILE RUNS: the JSON of --matrix parses with no key twice
# in an object, each pair has RUNS runs, and its counts and median cost
# are those of its runs.
matrix_json_ok() {
	python3 -c '
import json, sys
def once(pairs):
    keys = [k for k, v in pairs]
    assert len(keys) == len(set(keys)), "a key twice: " + ",".join(keys)
    return dict(pairs)
j = json.load(open(sys.argv[1]), object_pairs_hook=once)
runs = int(sys.argv[2])
assert j["pairs"], "no pair"
for p in j["pairs"]:
    name = "%d-%d" % (p["src"], p["dst"])
    r = p["by_run"]
    assert len(r) == runs == p["runs"], name + ": runs"
    assert p["measured_runs"] == sum(x["state"] == "measured" for x in r), name + ": measured"
    timed = sorted(x["cost_ns"] for x in r if x["state"] in ("measured", "noise"))
    assert p["timed_runs"] == len(timed), name + ": timed"
    if timed:
        n = len(timed)
        med = timed[n // 2] if n % 2 else (timed[n // 2 - 1] + timed[n // 2]) // 2
        assert p["median_cost_ns"] == med, name + ": median"
' "$1" "$2"
}

$MX --matrix --repeat=2 --format=csv > "$D/matrix.csv" 2> "$D/matrix.err" && rc=0 || rc=$?
check "matrix: --matrix --repeat=2 on CPUs $CPUS exits 0 or 4 (status $rc)" \
	sh -c '[ "$1" = 0 ] || [ "$1" = 4 ]' - "$rc"
check "matrix: says first how many pairs it times and how long they may take" \
	duration_said "$D/matrix.err" "$D/matrix.csv" 2 10000
check "matrix: a record per pair and run" pairs_cover "$D/matrix.csv" 2 "$CPUS"
check "matrix: cells by the stated rule, as csv's summaries" csv_ok "$D/matrix.csv" 2 pairs
$MX --format=csv > "$D/levels.csv" 2>/dev/null || true
check "matrix: each level's pair has that level and its lost cache" \
	pairs_match_levels "$D/matrix.csv" "$D/levels.csv"
awk -F, 'BEGIN { OFS = "," } $1 == "pair" && $2 == 2 && !n++ { $2 = 1 } 1' "$D/matrix.csv" > "$D/doctored-matrix.csv"
check "matrix: the checkers reject a run without a pair" fails pairs_cover "$D/doctored-matrix.csv" 2 "$CPUS"
check "matrix: and a duration said for other pairs" \
	fails duration_said "$D/matrix.err" "$D/doctored-matrix.csv" 2 10000
awk -F, 'BEGIN { OFS = "," } $1 == "cell" && !n++ { $3 = "NUMA9" } 1' "$D/matrix.csv" > "$D/doctored-matrix.csv"
check "matrix: and a pair at another level" fails pairs_match_levels "$D/doctored-matrix.csv" "$D/levels.csv"
awk -F, 'BEGIN { OFS = "," } $1 == "cell" && !n++ { $10 = $10 + 1000 } 1' "$D/matrix.csv" > "$D/doctored-matrix.csv"
check "matrix: and a cell that is not its pairs' median" fails csv_ok "$D/doctored-matrix.csv" 2 pairs

$MX --matrix --repeat=2 --format=json > "$D/matrix.json" 2>/dev/null || true
check "matrix: the JSON parses, no key twice, each pair's counts and median from its runs" \
	matrix_json_ok "$D/matrix.json" 2
sed '0,/"measured_runs": [0-9]*/s//"measured_runs": 7/' "$D/matrix.json" > "$D/doctored-matrix.json"
check "matrix: matrix_json_ok rejects a count that is not its runs'" \
	fails matrix_json_ok "$D/doctored-matrix.json" 2

$MX --matrix > "$D/matrix.txt" 2>/dev/null || true
check "matrix: the text's grid holds each pair's cost, both ways" grid_ok "$D/matrix.txt"
check "matrix: the grid is the 2004 layout's, in us" \
	sh -c 'grep -q "^migration cost matrix (cache_size: [0-9]*, cpu: -\{0,1\}[0-9]* MHz, cost: us):$" "$1" &&
		grep -q "^min_delta: [0-9]*\.[0-9] us$" "$1" && grep -q "^matrix delay: [0-9]* msec$" "$1"' - "$D/matrix.txt"
sed '/^\[[0-9]*\]: /{s/\(\[[0-9]*\]: *[0-9.-]* *\)[0-9.-]*/\1999.9/;}' "$D/matrix.txt" > "$D/doctored-matrix.txt"
check "matrix: grid_ok rejects a cell that is not its pair's cost" fails grid_ok "$D/doctored-matrix.txt"

set -- $CPUS
if [ $# -ge 2 ]; then
	$MX --pairs="$2:$1,$1:$2" --format=csv > "$D/pairs.csv" 2>/dev/null || true
	check "pairs: --pairs=$2:$1,$1:$2 is the one pair $1-$2" \
		sh -c '[ "$(awk -F, "\$1 == \"pair\" { print \$4 \"-\" \$5 }" "$1")" = "$2" ]' - "$D/pairs.csv" "$1-$2"
fi
check "pairs: a CPU with itself, one it may not use, beyond int, a bad or empty list, --matrix=all, both: exit 1" sh -c '
	for a in --pairs=0:0 --pairs=0:8191 --pairs=4294967296:1 --pairs=0-1 --pairs= --matrix=all "--matrix --pairs=0:1"; do
		"$1" $a >/dev/null 2>&1; [ $? = 1 ] || { echo "$a"; exit 1; }; done' - "$TWIN"

# ---- the kernel's table of each arch (--arch), on sysfs trees (--sysfs),
# whose CPUs the twin takes from cpu/online: the levels, pairs and caches
# are chosen before it measures, which fails where this host has no such
# CPU.  span_of CPU SIZE: the block of SIZE CPUs that holds CPU.
span_of() { echo "$(($1 / $2 * $2))-$(($1 / $2 * $2 + $2 - 1))"; }

# cache DIR CPU INDEX TYPE LEVEL SIZE SHARED: a cacheinfo leaf, 128-byte
# lines (POWER's and s390's are 128 and 256).
cache() {
	x=$1/cpu/cpu$2/cache/index$3
	mkdir -p "$x"
	echo "$4" > "$x/type"; echo "$5" > "$x/level"; echo "$6" > "$x/size"
	echo "$7" > "$x/shared_cpu_list"; echo 128 > "$x/coherency_line_size"
}

# arch_tree DIR KIND: 16 CPUs without NUMA, of
#  s390: SMT pairs, sockets of 4 (MC), books of 8, a drawer; L1 and L2
#   per core, the shared caches hidden as s390's sysfs hides them;
#  power9: big cores of 8 threads, whose even and odd threads are two
#   small cores sharing an L1 each (ibm,thread-groups); L2 and L3 per big
#   core;
#  x86: the same CPUs in 2 packages of 8 and no node directory.
arch_tree() {
	rm -rf "$1" && mkdir -p "$1/cpu" && echo 0-15 > "$1/cpu/online"
	c=0
	while [ $c -lt 16 ]; do
		t=$1/cpu/cpu$c/topology
		mkdir -p "$t"
		echo 0-15 > "$t/package_cpus_list"
		case $2 in
		s390)
			span_of $c 2 > "$t/thread_siblings_list"
			span_of $c 4 > "$t/core_siblings_list"
			span_of $c 8 > "$t/book_siblings_list"
			echo 0-15 > "$t/drawer_siblings_list"
			l1=$(span_of $c 2) l2=$l1 l3= ;;
		power9|x86)
			span_of $c 8 > "$t/thread_siblings_list"
			b=$((c / 8 * 8 + c % 2))
			l1=$b,$((b + 2)),$((b + 4)),$((b + 6)) l2=$(span_of $c 8) l3=$l2
			[ "$2" = power9 ] || { echo "$l2" > "$t/package_cpus_list"; l1=$l2; } ;;
		esac
		cache "$1" $c 0 Data 1 32K "$l1"
		cache "$1" $c 1 Unified 2 512K "$l2"
		[ -z "$l3" ] || cache "$1" $c 2 Unified 3 10240K "$l3"
		c=$((c + 1))
	done
}

# levels_are DIR ARCH WANT: the twin's levels on the tree DIR as ARCH's
# kernel builds them, "LEVEL A-B LN BYTES" each, are WANT.
levels_are() {
	got=$("$TWIN" --sysfs="$1" --arch="$2" --format=csv --budget-ms=1 --max-cache-size=65536 2>/dev/null |
		awk -F, '$1 == "summary" { printf "%s%s %s-%s L%s %s", n++ ? ", " : "", $3, $4, $5, $7, $8 }')
	[ "$got" = "$3" ] || { echo "got: $got"; return 1; }
}

# The pairs leave the boot CPU's core (0-1 on s390, 0-7 on power9) where
# the level has another pair.  s390: SMT, MC, BOOK and DRAWER, the L2
# lost beyond the core; the generic table has no MC (its LLC, the L2, is
# the core's), no BOOK or DRAWER, and a PKG of every CPU.
arch_tree "$D/s390" s390
want="SMT 2-3 L0 0, MC 4-6 L2 524288, BOOK 2-4 L2 524288, DRAWER 2-8 L2 524288"
check "arch: s390's table: $want" levels_are "$D/s390" s390 "$want"
check "arch: the generic table on it: SMT and PKG only (the check can fail)" \
	fails_with "got: SMT 2-3 L0 0, PKG 2-4 L2 524288" levels_are "$D/s390" generic "$want"
# power9: SMT is the small core (the threads sharing the L1), CACHE the
# big core (its L2); the generic table takes the big core for SMT.
arch_tree "$D/power9" power9
want="SMT 8-10 L0 0, CACHE 8-9 L1 32768, PKG 0-8 L3 10485760"
check "arch: powerpc's table on a POWER9 big core: $want" levels_are "$D/power9" powerpc "$want"
check "arch: the generic table on it: the big core for SMT (the check can fail)" \
	fails_with "got: SMT 8-9 L0 0, PKG 0-8 L3 10485760" levels_are "$D/power9" generic "$want"
check "arch: the tree's 128-byte lines are said on stderr, 64 walked (L1_CACHE_BYTES)" sh -c '
	"$1" --sysfs="$2" --budget-ms=1 2>&1 >/dev/null |
		grep -qx "migration_cost: 64-byte lines (L1_CACHE_BYTES), sysfs says 128"' - "$TWIN" "$D/power9"
# x86 without NUMA: PKG spans both packages, as cpu_cpu_mask().
arch_tree "$D/x86" x86
check "arch: x86 without NUMA: a PKG of both packages" \
	levels_are "$D/x86" x86 "SMT 8-9 L0 0, PKG 0-8 L3 10485760"
# CPU numbers of 3 digits: the columns stay aligned, 8 characters each.
rm -rf "$D/wide" && mkdir -p "$D/wide/cpu" && echo 98-101 > "$D/wide/cpu/online"
for c in 98 99 100 101; do
	mkdir -p "$D/wide/cpu/cpu$c/topology"
	echo $c > "$D/wide/cpu/cpu$c/topology/thread_siblings_list"
	echo 98-101 > "$D/wide/cpu/cpu$c/topology/package_cpus_list"
done
"$TWIN" --sysfs="$D/wide" --matrix --budget-ms=1 > "$D/wide.txt" 2>/dev/null || true
check "matrix: CPUs 98 to 101 in aligned columns of 8, '-' where not timed" sh -c '
	grep -qx "       \(   \[[0-9][0-9][0-9]\]\)\{4\}" "$1" &&
	[ "$(grep -c "^\[[0-9][0-9][0-9]\]: \(       -\)\{4\}$" "$1")" = 4 ]' - "$D/wide.txt"
check "matrix: and their cells are their pairs'" grid_ok "$D/wide.txt"
check "arch: --arch=vax exits 1" sh -c '"$1" --arch=vax 2>/dev/null; [ $? = 1 ]' - "$TWIN"

# big_tree DIR: 1152 CPUs (more than a cpu_set_t holds) in 72 nodes of 16
# (more than 64), each CPU its own core and the node its package; nodes
# at distance 20 within groups of 8, 30 between the groups of the first
# 64 and 40 from the last 8, so the top level's pair crosses CPU 1023.
big_tree() {
	rm -rf "$1" && mkdir -p "$1/cpu" "$1/node" && echo 0-1151 > "$1/cpu/online"
	echo 0-71 > "$1/node/online"
	awk -v d="$1" 'BEGIN {
		for (c = 0; c < 1152; c++) { t = d "/cpu/cpu" c "/topology"; system("mkdir -p " t)
			print c > (t "/thread_siblings_list")
			printf "%d-%d\n", int(c / 16) * 16, int(c / 16) * 16 + 15 > (t "/package_cpus_list")
			close(t "/thread_siblings_list"); close(t "/package_cpus_list") }
		for (n = 0; n < 72; n++) { x = d "/node/node" n; system("mkdir -p " x)
			printf "%d-%d\n", n * 16, n * 16 + 15 > (x "/cpulist")
			for (m = 0; m < 72; m++) {
				dist = 40
				if (n == m) dist = 10
				else if (int(n / 8) == int(m / 8)) dist = 20
				else if ((n < 64) == (m < 64)) dist = 30
				printf "%d%s", dist, (m < 71 ? " " : "\n") > (x "/distance")
			}
			close(x "/cpulist"); close(x "/distance") } }'
}
big_tree "$D/big"
check "arch: 1152 CPUs in 72 nodes: NUMA3's pair crosses to CPU 1024" \
	levels_are "$D/big" x86 "MC 1-2 L0 0, NUMA 1-16 L0 0, NUMA2 1-128 L0 0, NUMA3 1-1024 L0 0"
# 20 nodes at distances 10 + 10 x hops in a line: 23 entries (SMT, MC,
# PKG, NODE, 19 NUMA), the first 16 kept, as the calibration keeps them.
rm -rf "$D/line" && mkdir -p "$D/line/cpu" "$D/line/node" && echo 0-19 > "$D/line/cpu/online"
echo 0-19 > "$D/line/node/online"
awk -v d="$D/line" 'BEGIN { for (n = 0; n < 20; n++) { t = d "/cpu/cpu" n "/topology"; x = d "/node/node" n
	system("mkdir -p " t " " x); print n > (t "/thread_siblings_list"); print n > (t "/package_cpus_list")
	print n > (x "/cpulist"); for (m = 0; m < 20; m++) printf "%d%s", 10 + 10 * (n > m ? n - m : m - n), m < 19 ? " " : "\n" > (x "/distance")
	close(t "/thread_siblings_list"); close(t "/package_cpus_list"); close(x "/cpulist"); close(x "/distance") } }'
check "arch: 23 topology entries: 7 left out, said on stderr, the first 16 kept" sh -c '
	err=$("$1" --sysfs="$2" --budget-ms=1 --format=csv 2>&1 >/dev/null)
	[ "$err" = "$3" ] &&
	[ "$("$1" --sysfs="$2" --budget-ms=1 --format=csv 2>/dev/null | grep -c "^summary,")" = 12 ]' - \
	"$TWIN" "$D/line" "migration_cost: 7 levels past the kernel's first 16: left out"

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

# ---- --matrix=cores in the numa shape's guest: 16 CPUs, SMT pairs, an
# LLC of 4 CPUs (2 cores, each with its L2), packages of 8, a node per
# package.  One CPU per core: the 8 even CPUs, 28 pairs, whose levels and
# lost caches follow from the shape, not from the twin's own tables.
# numa_pairs MC PKG: "A-B LEVEL LN" for the even CPUs of 16, with LLCs of
# MC CPUs and packages of PKG CPUs.
numa_pairs() {
	awk -v mc="$1" -v pkg="$2" 'BEGIN { for (a = 0; a < 16; a += 2) for (b = a + 2; b < 16; b += 2)
		print a "-" b, (int(a / mc) == int(b / mc) ? "MC L2" : int(a / pkg) == int(b / pkg) ? "PKG L3" : "NUMA L3") }'
}
cells_of() { echo "$1" | awk -F, '$1 == "cell" { print $4 "-" $5, $3, "L" $7 }'; }
if boot matrix numa "" "migration_cost --matrix=cores --format=csv --budget-ms=2000 --max-cache-size=65536"; then
	cells=$(cells_of "$OUT")
	check "guest: --matrix=cores measures the 28 pairs of the 8 cores, at the shape's levels and caches" \
		sh -c '[ "$(echo "$1" | sort)" = "$(echo "$2" | sort)" ]' - "$cells" "$(numa_pairs 4 8)"
	check "guest: which fails against LLCs of 8 CPUs" \
		fails sh -c '[ "$(echo "$1" | sort)" = "$(echo "$2" | sort)" ]' - "$cells" "$(numa_pairs 8 8)"
	check "guest: every pair timed" \
		sh -c '[ "$(echo "$1" | grep -c "^pair,1,.*,\"\(measured\|noise\)\",")" = 28 ]' - "$OUT"
fi

mkdir -p "$D/tools"
check "make -C tools: help lists migration_cost, which builds in O=DIR/sched/migration_cost and installs" sh -c '
	[ "$(make -s -C "$1/tools" help | grep -c "^  migration_cost ")" = 1 ] &&
	make -s -C "$1/tools" O="$2" migration_cost >/dev/null 2>&1 &&
	"$2/sched/migration_cost/migration_cost" --help >/dev/null &&
	make -s -C "$1/tools" migration_cost_install O="$2" DESTDIR="$2/root" prefix=/usr >/dev/null 2>&1 &&
	[ -x "$2/root/usr/bin/migration_cost" ]' - "$SRC" "$D/tools"
make -s -C "$SRC/tools/sched/migration_cost" O="$D" install DESTDIR="$D/root" prefix=/usr >/dev/null 2>&1
check "make install: DESTDIR and prefix honoured" [ -x "$D/root/usr/bin/migration_cost" ]
check "make: CC from the environment" \
	sh -c 'CC=my-cc make -n -B -C "$1" O="$2" 2>/dev/null | grep -q "^my-cc "' - "$SRC/tools/sched/migration_cost" "$D"
finish
