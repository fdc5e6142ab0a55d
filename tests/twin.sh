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
check "csv: the exit status says whether a level was measured" \
	sh -c '[ "$1" = "$(awk -F, "\$1 == \"summary\" && \$15 > 0 { m = 1 } END { print m ? 0 : 4 }" "$2")" ]' - "$rc" "$D/repeat.csv"

"$TWIN" --format=json --budget-ms=10000 > "$D/one.json" && rc=0 || rc=$?
check "json: one run parses and agrees with itself (status $rc)" json_ok "$D/one.json"
sed 's/"migration_cost": "\([A-Z]*\):/"migration_cost": "\1:9/' "$D/one.json" > "$D/doctored.json"
check "json: the checker rejects a migration_cost= that is not the summary's" \
	fails json_ok "$D/doctored.json"

# ---- --matrix and --pairs
# CPUs: the CPUs this shell may run on, as the twin uses them.
CPUS=$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' |
	awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) printf "%d ", c }')

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
# (--format=csv) has, in the --matrix CSV MATRIX, that level and cache.
pairs_match_levels() {
	awk -F, 'FNR == 1 { f++ } f == 1 && $1 == "summary" { want[($4 < $5 ? $4 "-" $5 : $5 "-" $4)] = $3 " L" $7 " " $8 }
		f == 2 && $1 == "cell" { got[($4 < $5 ? $4 "-" $5 : $5 "-" $4)] = $3 " L" $7 " " $8 }
		END { for (k in want) if (got[k] != want[k]) { print k ": " got[k] ", the levels say " want[k]; bad++ }
			if (!length(want)) { print "no level"; bad++ }
			exit bad > 0 }' "$2" "$1"
}

# grid_ok FILE: the text of --matrix (one run) has a row and a column per
# CPU of its pairs, symmetric, each off-diagonal cell the cost of its
# pair's line (0.0 for a pair not timed).
grid_ok() {
	awk '
	/^      (    \[[0-9]+\])+$/ { n = split($0, h, /[][ ]+/); for (i = 2; i < n; i++) col[i - 1] = h[i] + 0; ncol = n - 2; next }
	/^\[[0-9]+\]: / { r = substr($1, 2) + 0; rows++; for (i = 2; i <= NF; i++) cell[r, col[i - 1]] = $i
		if (NF - 1 != ncol) { print "row " r ": " NF - 1 " cells of " ncol; bad++ } next }
	/^migration cost: [A-Z0-9_]+ .*\(CPU [0-9]+ <-> [0-9]+/ {
		l = $0; sub(/.*\(CPU /, "", l); split(l, p, /[ <>,-]+/)
		c = $5 == "us" ? $4 : "0.0"; line[p[1], p[2]] = c; pairs++ }
	END {
		if (!rows || rows != ncol) { print rows + 0 " rows, " ncol + 0 " columns"; bad++ }
		for (k in line) { split(k, p, SUBSEP)
			if (cell[p[1], p[2]] != line[k] || cell[p[2], p[1]] != line[k]) {
				print "CPU " p[1] " <-> " p[2] ": cells " cell[p[1], p[2]] " and " cell[p[2], p[1]] ", line " line[k]; bad++ } }
		if (pairs != ncol * (ncol - 1) / 2) { print pairs + 0 " pair lines for " ncol " CPUs"; bad++ }
		exit bad > 0 }' "$1"
}

"$TWIN" --matrix --repeat=2 --format=csv --budget-ms=10000 > "$D/matrix.csv" 2> "$D/matrix.err" && rc=0 || rc=$?
check "matrix: --matrix --repeat=2 exits 0 or 4 (status $rc), says how long it may take" \
	sh -c '{ [ "$1" = 0 ] || [ "$1" = 4 ]; } &&
		grep -q "^migration_cost: [0-9]* CPU pairs x 2 runs, at most [0-9]* s$" "$2"' - "$rc" "$D/matrix.err"
check "matrix: a record per pair of CPUs $CPUS and run" pairs_cover "$D/matrix.csv" 2 "$CPUS"
check "matrix: cells by the stated rule, as csv's summaries" csv_ok "$D/matrix.csv" 2 pairs
"$TWIN" --format=csv --budget-ms=10000 > "$D/levels.csv" || true
check "matrix: each level's pair has that level and its lost cache" \
	pairs_match_levels "$D/matrix.csv" "$D/levels.csv"
awk -F, 'BEGIN { OFS = "," } $1 == "pair" && $2 == 2 && !n++ { $2 = 1 } 1' "$D/matrix.csv" > "$D/doctored-matrix.csv"
check "matrix: the checkers reject a run without a pair" fails pairs_cover "$D/doctored-matrix.csv" 2 "$CPUS"
awk -F, 'BEGIN { OFS = "," } $1 == "cell" && !n++ { $3 = "NUMA9" } 1' "$D/matrix.csv" > "$D/doctored-matrix.csv"
check "matrix: and a pair at another level" fails pairs_match_levels "$D/doctored-matrix.csv" "$D/levels.csv"
awk -F, 'BEGIN { OFS = "," } $1 == "cell" && !n++ { $10 = $10 + 1000 } 1' "$D/matrix.csv" > "$D/doctored-matrix.csv"
check "matrix: and a cell that is not its pairs' median" fails csv_ok "$D/doctored-matrix.csv" 2 pairs

"$TWIN" --matrix --budget-ms=10000 > "$D/matrix.txt" 2>/dev/null || true
check "matrix: the text's grid holds each pair's cost, both ways" grid_ok "$D/matrix.txt"
check "matrix: the grid is the 2004 layout's, in us" \
	sh -c 'grep -q "^migration cost matrix (cache_size: [0-9]*, cpu: -\{0,1\}[0-9]* MHz, cost: us):$" "$1" &&
		grep -q "^min_delta: [0-9]*\.[0-9] us$" "$1" && grep -q "^matrix delay: [0-9]* msec$" "$1"' - "$D/matrix.txt"
sed '/^\[[0-9]*\]: /{s/\(\[[0-9]*\]: *[0-9.]* *\)[0-9]*\.[0-9]/\1999.9/;}' "$D/matrix.txt" > "$D/doctored-matrix.txt"
check "matrix: grid_ok rejects a cell that is not its pair's cost" fails grid_ok "$D/doctored-matrix.txt"

set -- $CPUS
if [ $# -ge 2 ]; then
	"$TWIN" --pairs="$2:$1,$1:$2" --format=csv --budget-ms=10000 > "$D/pairs.csv" 2>/dev/null || true
	check "pairs: --pairs=$2:$1,$1:$2 is the one pair $1-$2" \
		sh -c '[ "$(awk -F, "\$1 == \"pair\" { print \$4 \"-\" \$5 }" "$1")" = "$2" ]' - "$D/pairs.csv" "$1-$2"
fi
check "pairs: a CPU paired with itself, a CPU it may not use, a bad list, --matrix=all, both options: exit 1" sh -c '
	for a in --pairs=0:0 --pairs=0:8191 --pairs=0-1 --matrix=all "--matrix --pairs=0:1"; do
		"$1" $a >/dev/null 2>&1; [ $? = 1 ] || { echo "$a"; exit 1; }; done' - "$TWIN"

# ---- --arch: the kernel's table of another architecture, on a sysfs tree
# tree DIR SHARED...: two CPUs, each its own core, without SMT, in
# packages of their own and no node directory (!CONFIG_NUMA); caches L1d
# 32K, L2 1M, L3 16M, private unless named in SHARED (L2, L3); with
# "book", the CPUs share a drawer but not a book (s390).
tree() {
	dir=$1; shift
	shared=" $* "
	rm -rf "$dir"
	for c in 0 1; do
		t=$dir/cpu/cpu$c/topology
		mkdir -p "$t"
		for f in thread_siblings_list core_cpus_list cluster_cpus_list package_cpus_list \
			core_siblings_list book_siblings_list; do echo $c > "$t/$f"; done
		case $shared in *" book "*) echo 0-1 > "$t/drawer_siblings_list" ;; esac
		i=0
		for cache in "Data 1 32K" "Unified 2 1024K" "Unified 3 16384K"; do
			x=$dir/cpu/cpu$c/cache/index$i
			mkdir -p "$x"
			echo "$cache" | { read -r type level size
				echo "$type" > "$x/type"; echo "$level" > "$x/level"; echo "$size" > "$x/size"
				case $shared in *" L$level "*) echo 0-1 ;; *) echo $c ;; esac > "$x/shared_cpu_list"; }
			i=$((i + 1))
		done
	done
}

# levels_are DIR ARCH WANT: the twin's levels on the tree DIR as ARCH's
# kernel builds them, "LEVEL A-B LN BYTES" each, are WANT.
levels_are() {
	got=$(taskset -c 0,1 "$TWIN" --sysfs="$1" --arch="$2" --format=csv --budget-ms=1000 \
		--max-cache-size=65536 2>/dev/null | awk -F, '$1 == "summary" { printf "%s%s %s-%s L%s %s", n++ ? ", " : "", $3, $4, $5, $7, $8 }')
	[ "$got" = "$3" ] || { echo "got: $got"; return 1; }
}

if taskset -c 0,1 true 2>/dev/null; then
	tree "$D/s390" book L3
	check "arch: s390's CPUs in two books of a drawer cross DRAWER, lose the L2" \
		levels_are "$D/s390" s390 "DRAWER 0-1 L2 1048576"
	check "arch: x86's table makes the same tree an MC level (the check can fail)" \
		fails levels_are "$D/s390" x86 "DRAWER 0-1 L2 1048576"
	tree "$D/ppc" L2 L3
	check "arch: powerpc's CPUs sharing an L2 are its CACHE level, which loses the L1" \
		levels_are "$D/ppc" powerpc "CACHE 0-1 L1 32768"
	check "arch: the generic table names it MC (the check can fail)" \
		fails levels_are "$D/ppc" generic "CACHE 0-1 L1 32768"
	tree "$D/nonuma"
	check "arch: without NUMA, PKG spans both packages, as cpu_cpu_mask(), and loses the L3" \
		levels_are "$D/nonuma" x86 "PKG 0-1 L3 16777216"
fi
check "arch: --arch=vax exits 1" sh -c '"$1" --arch=vax 2>/dev/null; [ $? = 1 ]' - "$TWIN"

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
if boot matrix numa "" "migration_cost --matrix=cores --format=csv --budget-ms=200 --max-cache-size=65536"; then
	cells=$(cells_of "$OUT")
	check "guest: --matrix=cores measures the 28 pairs of the 8 cores, at the shape's levels and caches" \
		sh -c '[ "$(echo "$1" | sort)" = "$(echo "$2" | sort)" ]' - "$cells" "$(numa_pairs 4 8)"
	check "guest: which fails against LLCs of 8 CPUs" \
		fails sh -c '[ "$(echo "$1" | sort)" = "$(echo "$2" | sort)" ]' - "$cells" "$(numa_pairs 8 8)"
	check "guest: every pair timed" \
		sh -c '[ "$(echo "$1" | grep -c "^pair,1,.*,\"\(measured\|noise\)\",")" = 28 ]' - "$OUT"
fi

make -s -C "$SRC/tools/sched/migration_cost" O="$D" install DESTDIR="$D/root" prefix=/usr >/dev/null 2>&1
check "make install: DESTDIR and prefix honoured" [ -x "$D/root/usr/bin/migration_cost" ]
check "make: CC from the environment" \
	sh -c 'CC=my-cc make -n -B -C "$1" O="$2" | grep -q "^my-cc "' - "$SRC/tools/sched/migration_cost" "$D"
finish
