#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dtb.sh SHAPE OUT: the device tree QEMU generates for SHAPE's machine
# (dumpdtb, with the shape's own -M/-smp/-m), with what the shape adds:
#   SHAPE_DT_CAPACITY  capacity-dmips-mhz of CPU 0, 1, ... (all of them);
#   SHAPE_DT_L2_SIZE   one unified L2 of this many bytes per cpu-map cluster,
#                      the next-level-cache of its CPUs (the MC level).
# QEMU fills in /chosen (command line, initrd) itself when it boots a -dtb.
set -eu
. "$(dirname "$0")/lib.sh"
shape=${1:?usage: dtb.sh SHAPE OUT}
out=${2:?usage: dtb.sh SHAPE OUT}
load_shape "$shape"
load_arch "$SHAPE_ARCH"

$QEMU $SHAPE_QEMU -display none -machine dumpdtb="$out.qemu" >/dev/null 2>&1 ||
	die "qemu could not dump the device tree of $shape"
dtc -q -I dtb -O dts "$out.qemu" | awk -v caps="${SHAPE_DT_CAPACITY:-}" \
    -v l2="${SHAPE_DT_L2_SIZE:-}" '
	function hex(s,   i, n) {
		n = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++)
			n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return n
	}
	BEGIN { ncap = split(caps, cap, " ") }
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
	{ print }' > "$out.dts"
dtc -q -I dts -O dtb -o "$out" "$out.dts"
rm -f "$out.qemu"
