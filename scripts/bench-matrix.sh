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
#   SOURCE.txt   one more run in text: the 2004 matrix, a line per pair
#   SOURCE.png   the cells as a heatmap, in us, the diagonal left blank
# for SOURCE native and guest.  It takes about pairs x REPEAT x the time
# one pair takes (tens of ms natively for an L2, more in TCG), at most
# pairs x REPEAT x BUDGET_MS; the twin says so first.
# Environment: SHAPE (default host), REPEAT (3), BUDGET_MS (2000), CORES=1
# for one CPU per core.
set -eu
. "$(dirname "$0")/lib.sh"
shape=${SHAPE:-host}
repeat=${REPEAT:-3}
opts="--matrix${CORES:+=cores} --budget-ms=${BUDGET_MS:-2000}"
bench_dir bench-matrix
native_twin
load_shape "$shape"

# heatmap SOURCE TITLE: SOURCE.png from the cell records of SOURCE.csv.
heatmap() {
	awk -F, '$1 == "cell" { us = $10 == "" ? "NaN" : $10 / 1000
		print $4, $5, us; print $5, $4, us; c[$4]; c[$5] }
		END { for (i in c) print i, i, "NaN" }' "$out/$1.csv" | sort -n -k1,1 -k2,2 > "$out/$1.dat"
	command -v gnuplot >/dev/null || { say "no gnuplot: no $1.png"; return 0; }
	gnuplot <<-PLOT
	set terminal png size 800,700
	set output '$out/$1.png'
	set title "$2"
	set xlabel 'CPU'
	set ylabel 'CPU'
	set cblabel 'migration cost (us)'
	set yrange [] reverse
	set palette rgbformulae 22,13,-31
	set cbrange [0:*]
	plot '$out/$1.dat' using 1:2:3 with image notitle
	PLOT
	say "== heatmap: ${out#$TOP/}/$1.png"
}

"$TWIN" $opts --repeat="$repeat" --format=csv > "$out/native.csv" 2> "$out/native.err" ||
	[ $? = 4 ] || die "native: the twin failed: $(cat "$out/native.err")"
"$TWIN" $opts > "$out/native.txt" 2>/dev/null || [ $? = 4 ]
heatmap native "migration cost of each pair of CPUs, this host ($(nproc) CPUs, $repeat runs)"

load_arch "$SHAPE_ARCH"
bench_boot guest "$shape" "$OBJ/$KIMAGE" "" \
	"migration_cost $opts --repeat=$repeat --format=csv; echo '-- text'; migration_cost $opts" 1800
tr -d '\r' < "$out/guest" | sed -n '/^record,/,/^-- text$/p' | sed '$d' > "$out/guest.csv"
tr -d '\r' < "$out/guest" | sed '1,/^-- text$/d' > "$out/guest.txt"
[ -s "$out/guest.csv" ] || die "guest: no matrix in $out/guest"
heatmap guest "migration cost of each pair of vCPUs, $shape shape pinned, TCG ($repeat runs)"
for f in native guest; do
	echo "== $f"
	sed -n '/^migration cost matrix/,/^min_delta/p' "$out/$f.txt"
done
