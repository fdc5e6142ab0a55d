#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dtb.sh SHAPE OUT: the device tree QEMU generates for SHAPE's machine
# (dumpdtb, with the shape's own -M/-smp/-m), with what the shape adds:
#   SHAPE_DT_CAPACITY  capacity-dmips-mhz of CPU 0, 1, ... (all of them);
#   SHAPE_DT_L2_SIZE   one unified L2 of this many bytes per cpu-map cluster,
#                      the next-level-cache of its CPUs (the MC level);
#   SHAPE_DT_THREADS   threads of core 0, 1, ...: a cpu-map of one cluster in
#                      place of QEMU's, for cores with different numbers of
#                      threads, which -smp cannot describe (CPUs in order).
# QEMU fills in /chosen (command line, initrd) itself when it boots a -dtb.
set -eu
. "$(dirname "$0")/lib.sh"
shape=${1:?usage: dtb.sh SHAPE OUT}
out=${2:?usage: dtb.sh SHAPE OUT}
load_shape "$shape"
load_arch "$SHAPE_ARCH"

$QEMU $SHAPE_QEMU -display none -machine dumpdtb="$out.qemu" >/dev/null 2>&1 ||
	die "qemu could not dump the device tree of $shape"
dtc -q -I dtb -O dts -o "$out.qemu.dts" "$out.qemu"
# Two passes: the first learns each CPU's phandle, for a new cpu-map.
awk -v caps="${SHAPE_DT_CAPACITY:-}" -v l2="${SHAPE_DT_L2_SIZE:-}" \
    -v threads="${SHAPE_DT_THREADS:-}" '
	function hex(s,   i, n) {
		n = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++)
			n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return n
	}
	BEGIN { ncap = split(caps, cap, " "); ncores = split(threads, nthr, " ") }
	FNR == 1 { pass++ }
	pass == 1 && /^\t\tcpu@[0-9a-f]+ \{$/ { c = $1; sub(/cpu@/, "", c); c = hex(c) }
	pass == 1 && /^\t\t\tphandle = / { ph = $3; gsub(/[<>;]/, "", ph); cpuph[c] = ph }
	pass == 1 { next }
	# The cpu-map of SHAPE_DT_THREADS, in place of QEMU'"'"'s.
	ncores && /^\t\tcpu-map \{$/ { skip = 1; nclusters = 1
		print "\t\tcpu-map {\n\t\t\tsocket0 {\n\t\t\t\tcluster0 {"
		for (k = 1; k <= ncores; k++) {
			printf "\t\t\t\t\tcore%d {\n", k - 1
			if (nthr[k] == 1)
				printf "\t\t\t\t\t\tcpu = <%s>;\n", cpuph[n++]
			else for (t = 0; t < nthr[k]; t++)
				printf "\t\t\t\t\t\tthread%d {\n\t\t\t\t\t\t\tcpu = <%s>;\n" \
				       "\t\t\t\t\t\t};\n", t, cpuph[n++]
			print "\t\t\t\t\t};"
		}
		print "\t\t\t\t};\n\t\t\t};\n\t\t};"
		if (!(n - 1 in cpuph) || n in cpuph) {
			print "dtb.sh: SHAPE_DT_THREADS has " n " CPUs, not as many as the machine" > "/dev/stderr"
			exit 1
		}
	}
	skip { if (/^\t\t};$/) skip = 0; next }
	# In cpu-map, the cluster of each CPU phandle.
	/^\t+cluster[0-9]+ \{$/ { c = $1; sub(/cluster/, "", c); cluster = c; nclusters = c + 1 }
	/^\t+cpu = <0x[0-9a-f]+>;$/ { ph = $3; gsub(/[<>;]/, "", ph); cl[hex(ph)] = cluster }
	/^\t\tcpu@[0-9a-f]+ \{$/ { cpu = $1; sub(/cpu@/, "", cpu); cpu = hex(cpu); incpu = 1 }
	incpu && /^\t\t\tphandle = / {
		print
		ph = $3; gsub(/[<>;]/, "", ph)
		if (ncap) {
			if (cpu >= ncap) { print "dtb.sh: no capacity for cpu " cpu > "/dev/stderr"; exit 1 }
			printf "\t\t\tcapacity-dmips-mhz = <%d>;\n", cap[cpu + 1]
		}
		if (l2 != "")
			printf "\t\t\tnext-level-cache = <0x%x>;\n", 36864 + cl[hex(ph)]
		next
	}
	incpu && /^\t\t};$/ { incpu = 0 }
	/^\tcpus \{$/ { incpus = 1 }
	incpus && /^\t};$/ {
		for (c = 0; l2 != "" && c < nclusters; c++)
			printf "\n\t\tl2-cache%d {\n\t\t\tcompatible = \"cache\";\n" \
			       "\t\t\tcache-level = <2>;\n\t\t\tcache-unified;\n" \
			       "\t\t\tcache-size = <%d>;\n\t\t\tcache-line-size = <64>;\n" \
			       "\t\t\tphandle = <0x%x>;\n\t\t};\n", c, l2, 36864 + c
		incpus = 0
	}
	{ print }' "$out.qemu.dts" "$out.qemu.dts" > "$out.dts"
dtc -q -I dts -O dtb -o "$out" "$out.dts"
rm -f "$out.qemu" "$out.qemu.dts"
