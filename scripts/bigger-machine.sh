#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Prepare the userspace twin's run on a bigger machine, where one is lent
# (DEVELOPERS.md: the device machine), as one short script that needs
# nothing there but a shell: a static twin and build/device/run.sh, which
# writes into $OUT (default: build/device/out here):
#   lscpu.txt     lscpu, and lscpu -e
#   caches.txt    each CPU's cacheinfo leaves: level, type, size, shared
#   repeat.json   --repeat=10 --format=json
#   matrix.csv    --matrix=cores --repeat=3 --format=csv (every CPU with
#                 MATRIX=all), and matrix.txt, one run of it in text
# Usage: sh scripts/bigger-machine.sh; then, there, sh build/device/run.sh
# (the device tool carries build/device: run with carry=["build/device"]).
set -eu
. "$(dirname "$0")/lib.sh"
dev=$BUILD/device
mkdir -p "$dev"
make -s -C "$SRC/tools/sched/migration_cost" O="$dev" LDFLAGS=-static
cat > "$dev/run.sh" <<'RUN'
#!/bin/sh
# The twin on this machine: see scripts/bigger-machine.sh.
cd "$(dirname "$0")"
out=${OUT:-$PWD/out}
mkdir -p "$out"
{ lscpu; echo; lscpu -e; } > "$out/lscpu.txt" 2>&1 || true
for d in /sys/devices/system/cpu/cpu[0-9]*/cache/index*; do
	echo "${d#/sys/devices/system/cpu/} L$(cat "$d/level") $(cat "$d/type") $(cat "$d/size") $(cat "$d/shared_cpu_list")"
done > "$out/caches.txt" 2>&1 || true
./migration_cost --self-test | tail -n 1
./migration_cost --repeat=10 --format=json > "$out/repeat.json" || echo "repeat: exit $?"
m=--matrix=cores
[ "${MATRIX:-}" != all ] || m=--matrix
./migration_cost $m --repeat=3 --format=csv > "$out/matrix.csv" || echo "matrix: exit $?"
./migration_cost $m > "$out/matrix.txt" || echo "matrix text: exit $?"
RUN
say "bigger machine: $(ls "$dev/migration_cost") (static) and $dev/run.sh"
