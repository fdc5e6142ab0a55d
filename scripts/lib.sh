# SPDX-License-Identifier: GPL-2.0
# Shared settings for the harness scripts: sourced, never run.

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$TOP/build
SRC=$BUILD/linux
# Where boots keep their console logs (the debug stage keeps its own).
LOGS=${LOGS:-$BUILD/logs}
. "$TOP/BASE"

# Identity used for commits made in the work tree.
SERIES_NAME="Sched Series Team"
SERIES_EMAIL="sched-series@kernel-dev.invalid"

# Debian's python3, which has the modules checkpatch and kunit.py use,
# first in PATH whatever else the machine has.
PATH=/usr/bin:$PATH

# The arches built and tested: every one arch/ describes, unless ARCHES
# names some.
ARCHES=${ARCHES:-$(ls "$TOP/arch" | tr '\n' ' ')}

say() { printf '%s\n' "$*"; }
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# load_arch ARCH: read arch/<ARCH> (KARCH, CROSS_COMPILE, QEMU, ...).
load_arch() {
	[ -f "$TOP/arch/$1" ] || die "unknown ARCH '$1' (have: $(ls "$TOP/arch" | tr '\n' ' '))"
	# What an arch file may leave out.
	DEBIAN_ARCH= GUEST_BINARIES= STRESS_BINARIES= KSELFTEST_SKIPS=
	. "$TOP/arch/$1"
	OBJ=$BUILD/$1
	# Debian's bash-static: the host's, or the one deps.sh unpacks.
	BASH_STATIC=${DEBIAN_ARCH:+$BUILD/dl/bash-$DEBIAN_ARCH}/bin/bash-static
	RT_TESTS=${DEBIAN_ARCH:+$BUILD/dl/rt-tests-$DEBIAN_ARCH}
}

# load_shape SHAPE: read shapes/<SHAPE> (SHAPE_ARCH, SHAPE_QEMU, SHAPE_LEVELS).
load_shape() {
	[ -f "$TOP/shapes/$1" ] || die "unknown SHAPE '$1' (have: $(ls "$TOP/shapes" | tr '\n' ' '))"
	. "$TOP/shapes/$1"
}

# copinned_pins: a PIN= for the loaded shape that binds every vCPU thread
# to the host CPU of its first vCPU, where a guest migration crosses no
# host cache.
copinned_pins() { echo "$SHAPE_PIN" | awk '{ for (i = 1; i <= NF; i++) printf "%s ", $1 }'; }

# host_cpus: the host CPUs this harness may use (online and in its
# affinity, as cpusets leave it), one line each: package, core (the first
# CPU of core_cpus_list: unique where core_id is not, as on arm64), CPU;
# in that order.
host_cpus() {
	_allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | tr ',' '\n' |
		awk -F- '{ for (i = $1; i <= ($2 == "" ? $1 : $2); i++) print i }')
	for _c in /sys/devices/system/cpu/cpu[0-9]*; do
		[ "$(cat "$_c/online" 2>/dev/null || echo 1)" = 1 ] || continue
		echo "$_allowed" | grep -qx "${_c##*cpu}" || continue
		_core=$(cat "$_c/topology/core_cpus_list" 2>/dev/null ||
			cat "$_c/topology/thread_siblings_list")
		echo "$(cat "$_c/topology/physical_package_id") ${_core%%[-,]*} ${_c##*cpu}"
	done | sort -n -k1,1 -k2,2 -k3,3
	unset _allowed _c _core
}

# host_core_cpus: one CPU of each host core host_cpus lists, the first, so
# that vCPUs bound to different ones share no execution units.
host_core_cpus() {
	host_cpus | awk '!seen[$1 " " $2]++ { print $3 }'
}

# bandwidth_hybrid GAIN: the CPUs of an arm64 shape (SHAPE_QEMU, SHAPE_PIN,
# SHAPE_CAP, SHAPE_CAP_CORES, SHAPE_DT_*) for a hybrid made of CPU
# bandwidth (scripts/boot.sh), per pair of host cores: one big core of 2
# threads, one on each host CPU, each capped at 40% of it and the two
# together at 40% * (100 + GAIN) / 100, so that a second busy thread adds
# GAIN% to its core, as SMT threads add what the units the first leaves
# idle give; and 2 single-thread small cores, one on each host CPU,
# capped at 18%, 0.45 of a big thread (capacity 460).  A host CPU then
# gives the guest 58% of its time at most: room for QEMU's own threads.
# The host's bandwidth control falls a little short of a core's cap when
# both threads run (the quota goes out in 5 ms slices): smt-capacity finds
# a second thread adding 53% for GAIN 60 and 8 to 11% for GAIN 15 here.
bandwidth_hybrid() {
	_host=$(host_core_cpus)
	_pairs=$(($(echo "$_host" | wc -l) / 2))
	[ "$_pairs" -ge 1 ] || die "a hybrid of CPU bandwidth needs 2 host cores, this host lets the harness use $(echo "$_host" | wc -l)"
	_host=$(echo "$_host" | head -n $((2 * _pairs)) | tr '\n' ' ')
	SHAPE_PIN="$_host$_host"
	SHAPE_CAP=$(echo "$_host" | awk '{ for (i = 1; i <= NF; i++) printf "40 "; for (i = 1; i <= NF; i++) printf "18 " }')
	SHAPE_CAP_CORES=$(awk -v p="$_pairs" -v g="$1" 'BEGIN { for (i = 0; i < p; i++) printf "%d,%d:%d ", 2 * i, 2 * i + 1, 40 * (100 + g) / 100 }')
	SHAPE_DT_THREADS=$(awk -v p="$_pairs" 'BEGIN { for (i = 0; i < p; i++) printf "2 "; for (i = 0; i < 2 * p; i++) printf "1 " }')
	SHAPE_DT_CAPACITY=$(awk -v p="$_pairs" 'BEGIN { for (i = 0; i < 2 * p; i++) printf "1024 "; for (i = 0; i < 2 * p; i++) printf "%d ", 1024 * 18 / 40 }')
	SHAPE_DT_L2_SIZE=1048576
	# QEMU's GICv2 takes 8 CPUs at most.
	SHAPE_QEMU="-cpu cortex-a57 $([ "$_pairs" -le 2 ] || echo "-M gic-version=3") -smp $((4 * _pairs)),clusters=1,cores=$((4 * _pairs)),threads=1 -m 1G"
	unset _host _pairs
}

# series_options_missing TREE: the options kconfig/series.config lists (the
# series adds them) that no Kconfig file of TREE defines, one per line.
series_options_missing() {
	grep -o '^CONFIG_[A-Z0-9_]*' "$TOP/kconfig/series.config" | while read -r _sym; do
		grep -rqs --include='Kconfig*' "^config ${_sym#CONFIG_}\$" "$1" || echo "$_sym"
	done
}

# build_args ARCH [SRCDIR OBJDIR]: set arch, src and obj (absolute paths)
# for a build step; the defaults are build/linux and build/ARCH.
# A new OBJDIR is a link to SRCDIR/obj-NAME: with its objects in a
# directory of the source tree, Kbuild names the sources relative to it
# (srctree is ".."), so that the series and the base (build/linux-base)
# give the compiler the same commands for the files they share and ccache
# serves one build from the other's objects.
build_args() {
	arch=${1:-x86_64}
	load_arch "$arch"
	src=$(cd "${2:-$SRC}" && pwd)
	o=${3:-$OBJ}
	if [ ! -e "$o" ]; then
		mkdir -p "$src/obj-${o##*/}"
		rm -f "$o"
		ln -s "$src/obj-${o##*/}" "$o"
	fi
	obj=$(cd "$o" && pwd)
}

# kernel_lines LOG: the kernel's own lines of a boot's log, the console's,
# without the guest init's markers around RUN (whose output is in LOG.run).
kernel_lines() {
	tr -d '\r' < "$1" | sed '/@@@ run /d'
}

# AWK_MEDIAN: an awk function for programs that reduce runs: median(list),
# the median of the numbers of a space-separated list, "" if none.
AWK_MEDIAN='function median(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n ? (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) : ""
}'

# KERNEL_REPORTS: an ERE for the lines that start a kernel report: panic,
# Oops, BUG (KASAN, KFENCE, sleeping in atomic), WARNING (lockdep, RCU
# usage, list corruption), UBSAN, RCU stalls, hung tasks, kmemleak.  A
# boot whose console has one fails.
KERNEL_REPORTS='Kernel panic|Oops|BUG:|WARNING:|UBSAN:|KASAN:|KFENCE:|general protection fault'
KERNEL_REPORTS="$KERNEL_REPORTS|rcu: INFO: .*stall|INFO: task .* blocked for more than"
KERNEL_REPORTS="$KERNEL_REPORTS|INFO: (possible|trying to register|lockdep)|kmemleak: [0-9]+ new suspected"

# guest_output LOG: what RUN printed, on its own port (LOG.run), without
# the guest init's markers.
guest_output() {
	tr -d '\r' < "$1.run" | sed '/@@@ run /d'
}

# through FILTER COMMAND...: run COMMAND, its stderr with its stdout,
# through FILTER (a command or function, no arguments) as it prints; the
# exit status is COMMAND's, which a pipeline would lose.
through() {
	through_filter=$1; shift
	through_rc=$(mktemp)
	{ "$@" 2>&1; echo $? > "$through_rc"; } | $through_filter
	set -- "$(cat "$through_rc")"
	rm -f "$through_rc"
	return "$1"
}

# bench_boot NAME SHAPE KERNEL ARGS RUN TIMEOUT: one benchmark boot of
# KERNEL on SHAPE with the command line ARGS, running RUN; its output in
# $out/NAME, its log in build/logs/NAME.log; dies if the boot fails.
bench_boot() {
	KERNEL=$3 NAME=$1 TIMEOUT=$6 sh "$TOP/scripts/boot.sh" "$2" "$4" "$5" > "$out/$1" ||
		die "$1: the boot failed: $LOGS/$1.log"
}

# bench_rounds BENCH SHAPE KERNELS RUN TIMEOUT PARSE: $rounds rounds on SHAPE,
# each booting the KERNELS in turn (lines NAME:IMAGE:APPEND) to run RUN, with
# the guest's output of each boot (BENCH-SHAPE-NAME-ROUND) read by the awk
# program PARSE, given p="SHAPE NAME ROUND", whose lines go to $out/results.
bench_rounds() {
	r=1
	while [ "$r" -le "$rounds" ]; do
		echo "$3" | while IFS=: read -r name kernel args; do
			bench_boot "$1-$2-$name-$r" "$2" "$kernel" "$args" "$4" "$5"
			awk -v p="$2 $name $r" "$6" "$out/$1-$2-$name-$r"
		done >> "$out/results"
		say "$1: $2, round $r of $rounds done"
		r=$((r + 1))
	done
}

# AWK_RATIOS: awk functions for a benchmark's table.  median(LIST) of a
# space-separated list; ratios(K, NAME): " MEDIAN [LOWEST,HIGHEST]" of
# val[K, NAME, r] / val[K, "base", r] over the rounds r = 1, 2, ... that
# the base has, or " -" padded where none.
AWK_RATIOS='
	function median(list,   v, n, i, j, t) {
		n = split(list, v, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	function ratios(k, name,   r, q, list, lo, hi) {
		for (r = 1; (k, "base", r) in val; r++) {
			if (!((k, name, r) in val) || !val[k, "base", r]) continue
			q = val[k, name, r] / val[k, "base", r]; list = list " " q
			if (lo == "" || q < lo) lo = q; if (hi == "" || q > hi) hi = q }
		return list == "" ? sprintf(" %22s", "-") : sprintf(" %6.3f [%6.3f,%6.3f]", median(list), lo, hi)
	}'

# bench_dir NAME: set out to a new directory for this run of benchmark
# NAME, build/logs/bench/NAME-DATE, which later runs leave alone; the link
# build/logs/bench/NAME-latest names the newest.
bench_dir() {
	out=$LOGS/bench/$1-$(date +%Y%m%d-%H%M%S)
	mkdir -p "$out"
	ln -sfn "${out##*/}" "$LOGS/bench/$1-latest"
	say "== $1: results in ${out#$TOP/}"
}

# The postings of the series, in the order make tree applies them, each
# DIR:BRANCH:NEEDS: patches/DIR holds it with its cover letter (the
# description of BRANCH in build/linux), BRANCH marks its last commit, and
# it applies on the postings up to NEEDS (make lint checks that it does
# without those between).  The fixes that stand alone, the per-level
# cache-hot time with its calibration, and the SMT capacity, which needs
# the fixes only (make export writes it against them).
POSTINGS="1-fixes:fixes:base 2-migration-cost:migration-cost:fixes 3-smt-capacity:series:fixes"

# patches_digest: a digest of patches/ (the series file and every patch).
patches_digest() {
	cat "$TOP/patches/series" "$TOP"/patches/*.patch "$TOP"/patches/*/*.patch 2>/dev/null |
		sha256sum | cut -c 1-16
}

# stamp_tree: record in build/linux's git config what it was made from:
# the digest of patches/ and the commit they gave (after make tree applied
# the last patch, or make export wrote them).
stamp_tree() {
	git -C "$SRC" config series.patches "$(patches_digest)"
	git -C "$SRC" config series.tip "$(git -C "$SRC" rev-parse HEAD)"
}

# check_tree: refuse to build a tree that is not what patches/ says, with
# the command that fixes it; warn about commits not exported yet, which is
# how work on the series goes (edit, commit, build, test, make export).
check_tree() {
	[ -d "$SRC/.git" ] || die "no tree: run make tree"
	[ ! -d "$SRC/.git/rebase-apply" ] ||
		die "a git am stopped in build/linux (a patch of patches/ does not apply?): FORCE=2 make tree remakes it"
	made=$(git -C "$SRC" config series.patches) ||
		die "build/linux does not record the patches/ it was made from (an older harness): make export if its commits are the series, else FORCE=2 make tree"
	git -C "$SRC" symbolic-ref -q HEAD >/dev/null ||
		die "build/linux is detached at $(git -C "$SRC" rev-parse --short HEAD) (an interrupted make lint?): git -C build/linux checkout series"
	moved=0
	[ "$(git -C "$SRC" rev-parse HEAD)" = "$(git -C "$SRC" config series.tip)" ] || moved=1
	if [ "$made" != "$(patches_digest)" ]; then
		[ "$moved" = 0 ] ||
			die "patches/ and build/linux both changed since make tree or make export: make export keeps the tree's commits, FORCE=2 make tree takes patches/"
		die "patches/ changed since build/linux was made (git pull?): FORCE=1 make tree"
	fi
	[ "$moved" = 0 ] ||
		say "note: build/linux has commits that patches/ does not: make export" >&2
}

# base_tree: build/linux-base, a worktree of the tree's "base" tag.
base_tree() {
	[ -d "$BUILD/linux-base" ] ||
		git -C "$SRC" worktree add -q --detach "$BUILD/linux-base" base
}

# base_kernel [ARCH]: build the base commit (a worktree of the tree's "base"
# tag) for ARCH (default x86_64) with the same fragments, the series'
# options left out, for comparisons against it; sets BASE_IMAGE.
base_kernel() {
	base_arch=${1:-x86_64}
	base_tree
	sh "$TOP/scripts/kernel.sh" "$base_arch" "$BUILD/linux-base" "$BUILD/$base_arch-base"
	load_arch "$base_arch"
	BASE_IMAGE=$BUILD/$base_arch-base/$KIMAGE
}

# time_note SECONDS WHAT: one timed step (a boot, a build) for the list of
# the slowest that make check prints at its end: a line in CHECK_TIMES,
# when that names a file.
time_note() {
	[ -z "${CHECK_TIMES:-}" ] || say "$1 $2" >> "$CHECK_TIMES" || :
}

# build_guest DESC LOG ARCH [SRCDIR OBJDIR FRAGMENTS]: ARCH's packages,
# kernel (scripts/kernel.sh ARCH ...) and initramfs, output in LOG; one
# result line "build: ARCH DESC", which fails on a warning as on an error.
build_guest() {
	desc=$1 blog=$2; shift 2
	bstart=$(date +%s)
	say "# build: $1 $desc"
	if { sh "$TOP/scripts/deps.sh" "$1" && sh "$TOP/scripts/kernel.sh" "$@" &&
	     sh "$TOP/scripts/initramfs.sh" "$1" "${2:-}" "${3:-}"; } >"$blog" 2>&1 &&
	   ! grep -q 'warning:' "$blog"; then
		echo "ok - build: $1 $desc, no warning ($(($(date +%s) - bstart)) s)"
		time_note $(($(date +%s) - bstart)) "build: $1 $desc"
	else
		grep -E 'warning:|error:|Error' "$blog" | head -n 20 | sed 's/^/  /'
		echo "not ok - build: $1 $desc (${blog#$TOP/})"
		return 1
	fi
}

# native_twin: build tools/sched/migration_cost of the tree for this host,
# the calibration in userspace, and set TWIN to it.
native_twin() {
	mkdir -p "$BUILD/host"
	make -s -C "$SRC/tools/sched/migration_cost" O="$BUILD/host"
	TWIN=$BUILD/host/migration_cost
}

# CALIBRATION_LINES: an awk program that turns the migration-cost lines of
# a log (the kernel's "[ t] migration cost: ...", or RUN's "twin: ..." for
# the userspace twin) into records for SOURCE and RUN, with awk variables
# src, run and pfx (the ERE before "migration cost:"); with first= set, the
# records of the first calibration of the log go to SOURCE "first":
#   SOURCE RUN size LEVEL BYTES COST_NS RETOUCH_NS LO_NS HI_NS ROUNDS  (per size)
#   SOURCE RUN level LEVEL COST_US STATE BUFFER_BYTES        (per level)
#   SOURCE RUN delay MSEC
#   SOURCE RUN line MIGRATION_COST=
CALIBRATION_LINES='
{ sub(/\r$/, ""); s = (first != "" && !done) ? first : src }
$0 ~ pfx "migration cost: [A-Z0-9_]+: CPU [0-9]+ <-> [0-9]+, [0-9]+ bytes: cost" {
	l = $0; sub(".*" pfx "migration cost: ", "", l); split(l, f, /[ :(),]+/)
	# f: LEVEL CPU a <-> b BYTES bytes cost N ns re-touch N ns 90% in LO to HI ns R rounds
	print s, run, "size", f[1], f[6], f[9], f[12], f[16], f[18], f[20]; next }
$0 ~ pfx "migration cost: [A-Z0-9_]+ [0-9.]+ us \\(" {
	l = $0; sub(".*" pfx "migration cost: ", "", l)
	state = l; sub(/.*\): /, "", state); sub(/,.*/, "", state); gsub(/ /, "_", state)
	buf = l; sub(/.*, buffer /, "", buf); sub(/\).*/, "", buf)
	split(buf, b, " "); buf = b[1] * (b[2] == "MiB" ? 1048576 : b[2] == "KiB" ? 1024 : 1)
	split(l, f, " "); print s, run, "level", f[1], f[2], state, buf; next }
$0 ~ pfx "migration_cost=[A-Z0-9_:,]+$" { l = $0; sub(/.*migration_cost=/, "", l); print s, run, "line", l; next }
$0 ~ pfx "calibration delay: " { print s, run, "delay", $(NF - 1); done = 1 }'
