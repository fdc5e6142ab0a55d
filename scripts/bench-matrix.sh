#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench-matrix: the migration cost of every pair of CPUs, measured by
# the userspace twin's --matrix (tools/sched/migration_cost) natively on
# this host and in a guest of SHAPE whose vCPU threads are pinned one per
# host CPU, so that a pair of vCPUs is a pair of host CPUs and its caches.
# Each writes, in build/logs/bench/bench-matrix-DATE/:
#   SOURCE.csv   the twin's --format=csv: a record per pair and run, and a
#                cell per pair (the median cost of its runs)
#   SOURCE.png   the cells as a heatmap, in us: blank where a pair was not
#                measured (above noise) in most runs, and on the diagonal
#   SOURCE.txt   one run more, in text: the 2004 matrix, a line per pair
# for SOURCE native and guest.  The twin says first how long the pairs
# may take (pairs that lose a cache x REPEAT x BUDGET_MS at most; tens of
# ms each natively for an L2).
# Environment: SHAPE (default host), REPEAT (3), BUDGET_MS (2000), CORES=1
# for one CPU per core.
set -eu
. "$(dirname "$0")/lib.sh"
shape=${SHAPE:-host}
repeat=${REPEAT:-3}
budget=${BUDGET_MS:-2000}
opts="--matrix${CORES:+=cores} --budget-ms=$budget"
bench_dir bench-matrix
native_twin
load_shape "$shape"

# heatmap SOURCE TITLE: SOURCE.png from the cell records of SOURCE.csv,
# CPUs by their rank, labelled with their numbers, so that a sparse set
# (taskset, isolcpus, --matrix=cores) keeps its cells in place.
heatmap() {
	awk -F, -v cpus="$out/$1.cpus" '$1 == "cell" { c[$4]; c[$5]
			us = 2 * $16 > $17 + 0 && $17 > 0 ? $10 / 1000 : "NaN"
			v[$4, $5] = v[$5, $4] = us }
		END { n = asort_cpus(c, cpu)
			for (i = 1; i <= n; i++) printf "%s%d", (i > 1 ? " " : ""), cpu[i] > cpus
			print "" > cpus
			for (i = 1; i <= n; i++) for (j = 1; j <= n; j++)
				print i - 1, j - 1, i == j || !((cpu[i], cpu[j]) in v) ? "NaN" : v[cpu[i], cpu[j]] }
		function asort_cpus(set, out,   k, n, i, j, t) {
			for (k in set) out[++n] = k + 0
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (out[j] < out[i]) { t = out[i]; out[i] = out[j]; out[j] = t }
			return n }' "$out/$1.csv" > "$out/$1.dat"
	command -v gnuplot >/dev/null || { say "no gnuplot: no $1.png"; return 0; }
	# A labelled tic per CPU up to 32 CPUs, else every 8th.
	tics=$(awk '{ for (i = 1; i <= NF; i += (NF > 32 ? 8 : 1)) printf "%s\"%d\" %d", (i > 1 ? ", " : ""), $i, i - 1 }' "$out/$1.cpus")
	gnuplot <<-PLOT
	set terminal png size 800,700
	set output '$out/$1.png'
	set title "$2"
	set xlabel 'CPU'
	set ylabel 'CPU'
	set xtics ($tics)
	set ytics ($tics)
	set cblabel 'migration cost (us)'
	set yrange [] reverse
	set palette rgbformulae 22,13,-31
	set cbrange [0:*]
	plot '$out/$1.dat' using 1:2:3 with image notitle
	PLOT
	say "== heatmap: ${out#$TOP/}/$1.png"
}

"$TWIN" $opts --repeat="$repeat" --format=csv > "$out/native.csv" 2> "$out/native.err" && rc=0 || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 4 ] || die "native: the twin failed ($rc): $(cat "$out/native.err")"
cat "$out/native.err"
"$TWIN" $opts > "$out/native.txt" 2>/dev/null || [ $? = 4 ] || die "native: the twin's text run failed"
heatmap native "migration cost of each pair of CPUs, this host ($repeat runs)"

# The guest's limit: the pairs' budgets, with TCG's boot and slower pairs.
pairs=$(awk -F, '$1 == "cell"' "$out/native.csv" | wc -l)
load_arch "$SHAPE_ARCH"
bench_boot guest "$shape" "$OBJ/$KIMAGE" "" \
	"migration_cost $opts --repeat=$repeat --format=csv; echo '-- text'; migration_cost $opts || [ \$? = 4 ]" \
	$((600 + 2 * pairs * (repeat + 1) * budget / 1000))
tr -d '\r' < "$out/guest" | sed -n '/^record,/,/^-- text$/p' | sed '$d' > "$out/guest.csv"
tr -d '\r' < "$out/guest" | sed '1,/^-- text$/d' > "$out/guest.txt"
[ -s "$out/guest.csv" ] || die "guest: no matrix in $out/guest"
heatmap guest "migration cost of each pair of vCPUs, $shape shape pinned, TCG ($repeat runs)"
for f in native guest; do
	echo "== $f (text: one more run)"
	sed -n '/^migration cost matrix/,/^min_delta/p' "$out/$f.txt"
	echo "== $f: cells (median of $repeat runs): CPU CPU LEVEL median-ns measured-in"
	awk -F, '$1 == "cell" { print $4, $5, $3, $10, $16 "/" $17 }' "$out/$f.csv"
done
