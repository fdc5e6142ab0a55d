#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# boot.sh SHAPE "APPEND" "RUN": boot build/ARCH's kernel under QEMU (TCG) with
# the topology of shapes/SHAPE and kernel arguments APPEND, run the shell
# command RUN in the guest, and print what RUN prints, as it prints it.
# RUN's output comes on a serial port of its own, the kernel's messages on
# the console: the log LOG (build/logs/NAME.log, named on stderr) has the
# kernel's, LOG.run RUN's.  Exit status:
#   RUN's own, if the kernel printed no report (KERNEL_REPORTS: panic, Oops,
#       BUG, WARNING, KASAN, KFENCE, UBSAN, lockdep, RCU stall, ...);
#   124 when the boot timed out (TIMEOUT), 125 on a kernel report, 126 when
#   QEMU failed or RUN never ended; each says so on stderr in one line,
#   followed by the last lines of the kernel's log.  RUN's own 124 to 126
#   become 1 (stderr says what RUN returned).
# Environment: KERNEL and INITRAMFS override the images, NAME names the log,
# TIMEOUT (seconds, default 300; then an NMI, see hang_nmi), INTERACTIVE=1
# attaches the terminal (RUN and the kernel then share the console; no
# log, no timeout, no pinning),
# BOOT_APPEND adds kernel arguments to every boot (the debug stage's),
# QEMU_EXTRA adds QEMU options after the shape's (a later -cpu wins),
# UNPINNED=1 lets the vCPUs of a shape with SHAPE_PIN float, PIN="0 0 ..."
# binds them to those host CPUs instead.
#
# A shape's SHAPE_PIN lists a host CPU per vCPU: QEMU starts paused, each
# vCPU thread ("CPU n/TCG") is bound to its host CPU, then the guest runs,
# so that a migration in the guest is a migration on the host, with its
# real cache misses.  The binding, as the host reports it afterwards, is
# kept in the log's .pins file.  QEMU's other threads (main loop, I/O)
# stay where the host puts them.  A shape's SHAPE_CAP lists a share of its
# host CPU per vCPU, in percent: each vCPU thread under 100 gets a cgroup
# of its own whose CPU bandwidth (cgroup v1 cpu.cfs_quota_us over a 20 ms
# cpu.cfs_period_us) is that share, a core that is really that small.
# SHAPE_CAP_CORES, "VCPU,VCPU,...:SHARE ...", puts the cgroups of a core's
# vCPU threads into one capped at SHARE percent of a CPU (over 100 where
# they run on several host CPUs): what a second busy thread adds to the
# core is what SHARE leaves beyond one thread's own cap, as SMT threads
# share a core's execution units.  The .pins lines say what the cgroups
# hold.  The cgroups go with the boot.
set -eu
. "$(dirname "$0")/lib.sh"
shape=${1:?usage: boot.sh SHAPE APPEND RUN}
append=${2:-}
run=${3:-true}
load_shape "$shape"
load_arch "$SHAPE_ARCH"
kernel=${KERNEL:-$OBJ/$KIMAGE}
initramfs=${INITRAMFS:-$OBJ/initramfs.cpio}
[ -f "$kernel" ] || die "no kernel $kernel: run make kernel ARCH=$SHAPE_ARCH"
[ -f "$initramfs" ] || die "no initramfs $initramfs: run make initramfs ARCH=$SHAPE_ARCH"

logs=$LOGS
mkdir -p "$logs"
name=${NAME:-$shape-$(date +%Y%m%d-%H%M%S)-$$}
log=$logs/$name.log
work=$(mktemp -d "$logs/.boot.XXXXXX")
started=$(date +%s)
trap '[ -z "${caps:-}" ] || rmdir "$caps"-core*/vcpu* "$caps"-* 2>/dev/null || :; rm -rf "$work"; time_note $(($(date +%s) - started)) "boot: $name ($shape, timeout ${TIMEOUT:-300} s)"' EXIT

if [ "${INTERACTIVE:-0}" = 1 ]; then
	say "boot: $shape, on this terminal (no log; Ctrl-a x quits QEMU)" >&2
else
	say "boot: $shape, log ${log#$TOP/}" >&2
fi

# The RUN command travels as a second cpio archive appended to the first.
printf '%s\n' "$run" > "$work/run.sh"
echo "file /run.sh $work/run.sh 0755 0 0" > "$work/run.spec"
"$BUILD/gen_init_cpio" "$work/run.spec" > "$work/run.cpio"
cat "$initramfs" "$work/run.cpio" > "$work/initrd"

# RUN's port: the arch's RUN_PORT options, after the console's -serial,
# with chardev "run"; the guest's init finds its device in run_console=.
run_port=
[ "${INTERACTIVE:-0}" = 1 ] ||
	run_port="-chardev file,id=run,path=$log.run $RUN_PORT"
set -- $QEMU $SHAPE_QEMU ${QEMU_EXTRA:-} -kernel "$kernel" -initrd "$work/initrd" -no-reboot \
	-append "console=$CONSOLE panic=-1 ${BOOT_APPEND:-} $append${run_port:+ run_console=$RUN_TTY}"
# A shape that describes more than QEMU's device tree does boots its own.
if [ -n "${SHAPE_DT_CAPACITY:-}${SHAPE_DT_L2_SIZE:-}${SHAPE_DT_THREADS:-}" ]; then
	sh "$TOP/scripts/dtb.sh" "$shape" "$work/shape.dtb"
	set -- "$@" -dtb "$work/shape.dtb"
fi
if [ "${INTERACTIVE:-0}" = 1 ]; then
	"$@" -nographic -serial mon:stdio
	exit
fi

# The monitor, on two FIFOs: the pinning below, and the NMI of a boot
# that times out.  QEMU opens both FIFOs read-write, so opening them
# read-write here never blocks, even if QEMU is gone; the monitor's few
# lines of output fit in the pipe.
mkfifo "$work/mon.in" "$work/mon.out"
set -- "$@" -chardev "pipe,id=mon,path=$work/mon" -mon chardev=mon
monitor() { printf '%s\n' "$1" 1<>"$work/mon.in"; }

pin=${PIN:-${SHAPE_PIN:-}}
[ "${UNPINNED:-0}" = 1 ] && pin=
rm -f "$log.pins"
if [ -n "$pin" ]; then
	for c in $pin; do
		[ -d "/sys/devices/system/cpu/cpu$c" ] && [ "$(cat "/sys/devices/system/cpu/cpu$c/online" 2>/dev/null || echo 1)" = 1 ] ||
			die "shape $shape pins a vCPU to host CPU $c, which is not online"
	done
	set -- "$@" -S -name "$shape,debug-threads=on" -pidfile "$work/qemu.pid"
fi

# cap_cgroup DIR SHARE: make the cgroup DIR, capped at SHARE percent of a
# CPU (none for 0) over a period of 20 ms: the host hands a cgroup's quota
# to its CPUs in slices of 5 ms (sched_cfs_bandwidth_slice_us), which in a
# 10 ms period leave part of a core's quota unused (its two threads, each
# capped at 4 ms of 10, did 5.7 ms together where 6.4 were allowed).
cap_cgroup() {
	mkdir "$1" && echo 20000 > "$1/cpu.cfs_period_us" || return 1
	[ "$2" = 0 ] || echo $(($2 * 200)) > "$1/cpu.cfs_quota_us"
}

# quota DIR: a cgroup's CPU bandwidth, "QUOTA/PERIOD" in microseconds.
quota() { echo "$(cat "$1/cpu.cfs_quota_us")/$(cat "$1/cpu.cfs_period_us")"; }

# cap_vcpu VCPU TID: put the thread TID of vCPU VCPU into a cgroup of its
# own, capped at its SHAPE_CAP share, inside its core's if it has one;
# prints what the cgroups now hold.
cap_vcpu() {
	share=$(echo ${cap:-0} | cut -d' ' -f$(($1 + 1)))
	core=$(echo "$core_of" | awk -v v="$1" '$1 == v { print $2 }')
	[ "${share:-100}" != 100 ] || share=0
	[ "$share" != 0 ] || [ -n "$core" ] || return 0
	g=$caps-vcpu$1
	[ -z "$core" ] || g=$caps-core$core/vcpu$1
	cap_cgroup "$g" "$share" && echo "$2" > "$g/tasks" && grep -qx "$2" "$g/tasks" || return 1
	echo " cap $(quota "$g")${core:+ core $(quota "${g%/*}")} us"
}

cap=${SHAPE_CAP:-}
cores=${SHAPE_CAP_CORES:-}
caps=
if [ -n "$cap$cores" ]; then
	[ -n "$pin" ] || die "shape $shape caps its vCPU threads (SHAPE_CAP, SHAPE_CAP_CORES), which UNPINNED=1 would let float"
	nvcpus=$(echo $pin | wc -w)
	[ -z "$cap" ] || [ "$(echo $cap | wc -w)" = "$nvcpus" ] ||
		die "shape $shape: SHAPE_CAP has $(echo $cap | wc -w) shares, SHAPE_PIN $nvcpus CPUs"
	for share in $cap $(echo "$cores" | tr ' ' '\n' | sed 's/.*://'); do
		case $share in [1-9] | [1-9][0-9] | [1-9][0-9][0-9] | [1-9][0-9][0-9][0-9]) ;;
		*) die "shape $shape: share '$share' of SHAPE_CAP or SHAPE_CAP_CORES is not a whole percentage from 1" ;; esac
	done
	# "VCPU CORE" per vCPU of a core of SHAPE_CAP_CORES, each vCPU in one.
	core_of=$(echo "$cores" | tr ' ' '\n' | awk -F: 'NF { n = split($1, v, ","); for (i = 1; i <= n; i++) print v[i], NR - 1 }')
	[ -z "$core_of" ] || [ -z "$(echo "$core_of" | awk -v n="$nvcpus" '$1 !~ /^[0-9]+$/ || $1 >= n || seen[$1]++')" ] ||
		die "shape $shape: SHAPE_CAP_CORES '$cores' names a vCPU twice or one that is not there"
	# The cgroup v1 hierarchy of the cpu controller, if it has bandwidth
	# control and this user may make cgroups in it.
	caps=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ { print $2; exit }' /proc/mounts)
	[ -n "$caps" ] && [ -f "$caps/cpu.cfs_quota_us" ] && [ -w "$caps" ] ||
		die "shape $shape caps vCPU threads by CPU bandwidth, which needs the cgroup v1 cpu controller with cpu.cfs_quota_us, writable by this user: $( [ -n "$caps" ] && echo "$caps is not" || echo "/proc/mounts has none") (cgroup v2's cpu.max is not supported)"
	caps=$caps/qemu-boot-$$
	i=0
	for c in $cores; do
		cap_cgroup "$caps-core$i" "${c#*:}" || die "shape $shape: could not make the cgroup $caps-core$i"
		i=$((i + 1))
	done
fi

# pin_vcpus: bind each vCPU thread of the paused QEMU to its host CPU, then
# let the guest run.  Fails if QEMU does not show every vCPU within 30 s.
pin_vcpus() {
	n=0
	while :; do
		kill -0 "$qemu" 2>/dev/null || return 1
		qpid=$(cat "$work/qemu.pid" 2>/dev/null) || qpid=
		[ -z "$qpid" ] || [ "$(grep -l '^CPU [0-9]*/' /proc/"$qpid"/task/*/comm 2>/dev/null | wc -l)" -lt "$(echo $pin | wc -w)" ] || break
		n=$((n + 1))
		[ "$n" -lt 300 ] || return 1
		sleep 0.1
	done
	for f in /proc/"$qpid"/task/*/comm; do
		v=$(sed -n 's|^CPU \([0-9]*\)/.*|\1|p' "$f")
		[ -n "$v" ] || continue
		tid=${f%/comm}
		tid=${tid##*/}
		c=$(echo $pin | cut -d' ' -f$((v + 1)))
		[ -n "$c" ] || return 1
		taskset -pc "$c" "$tid" >/dev/null || return 1
		capped=
		[ -z "$caps" ] || capped=$(cap_vcpu "$v" "$tid") || return 1
		# What the host scheduler now says, not what was asked.
		echo "vCPU $v thread $tid host CPU $c affinity $(taskset -pc "$tid" | sed 's/.*: //')$capped"
	done | sort -n -k2 > "$log.pins"
	[ "$(wc -l < "$log.pins")" = "$(echo $pin | wc -w)" ] || return 1
	monitor cont
}

# A boot still running after TIMEOUT gets an NMI, which a kernel booted
# with unknown_nmi_panic (the x86 debug kernels) turns into a panic that
# prints every CPU's stack: a hang with no report of its own still ends
# with one.  QEMU is killed HANG_GRACE (30) seconds later.
hang_nmi() {
	trap 'kill "$s" 2>/dev/null; exit 0' TERM
	sleep "${TIMEOUT:-300}" &
	s=$!
	wait "$s"
	kill -0 "$qemu" 2>/dev/null || return 0
	: > "$work/timeout"
	monitor nmi
}

# QEMU 7.2's TCG has been seen to crash (SIGSEGV) while the guest probes
# PCI: a QEMU killed by a signal gets one more try, its log kept aside.
for try in 1 2; do
	rc=0
	rm -f "$work/qemu.pid" "$work/timeout"
	rm -f "$log.run"
	timeout "$((${TIMEOUT:-300} + ${HANG_GRACE:-30}))" "$@" -display none -serial stdio $run_port \
		</dev/null >"$log" 2>&1 &
	qemu=$!
	hang_nmi </dev/null >/dev/null 2>&1 &
	nmi=$!
	# RUN's output as it comes, until QEMU is gone.
	follow=
	if [ -n "$run_port" ]; then
		# Without the markers, and without the newline the guest's init
		# adds before the end marker (RUN's last line may have none).
		tail -n +1 -s 0.2 -F --pid="$qemu" "$log.run" 2>/dev/null |
			sed -u 's/\r$//; /^$/{N; s/\r$//; /\n@@@ run end/d}; /^@@@ run \(begin\|end\)/d' &
		follow=$!
	fi
	if [ -n "$pin" ] && ! pin_vcpus; then
		kill "$qemu" "$nmi" 2>/dev/null || :
		wait "$qemu" || :
		die "could not pin the vCPUs of $shape to host CPUs $pin (log: ${log#$TOP/})"
	fi
	wait "$qemu" || rc=$?
	kill "$nmi" 2>/dev/null || :
	wait "$nmi" 2>/dev/null || :
	[ -z "$follow" ] || wait "$follow" || :
	[ ! -f "$work/timeout" ] || rc=124
	[ "$rc" -gt 128 ] && [ "$try" = 1 ] || break
	mv "$log" "$log.qemu-crash"
	[ ! -f "$log.run" ] || mv "$log.run" "$log.qemu-crash.run"
	say "boot: qemu died with status $rc, booting again (${log#$TOP/}.qemu-crash); RUN's output starts again" >&2
done
# fail STATUS WHY: end with STATUS, saying WHY on stderr, with the last
# lines of the kernel's log.
fail() {
	say "boot: $2" >&2
	tr -d '\r' < "$log" | grep -v '@@@ run ' | tail -n 8 | sed 's/^/boot:   /' >&2
	exit "$1"
}
if [ "$rc" = 124 ]; then
	grep -m 3 -E "$KERNEL_REPORTS" "$log" | sed 's/^/boot: /' >&2
	# What the NMI printed: the stacks of the CPUs, from the panic on.
	sed -n '/Kernel panic - not syncing: NMI/,$p' "$log" | grep -E '^\[ *[0-9.]+\]  [a-z_?]|NMI backtrace|CPU: [0-9]+ ' |
		head -n 60 | sed 's/^/boot: /' >&2
	fail 124 "timeout after ${TIMEOUT:-300} s (TIMEOUT=seconds waits longer); log ${log#$TOP/}"
fi
report=$(grep -m 1 -E "$KERNEL_REPORTS" "$log" | tr -d '\r') || :
[ -z "$report" ] || fail 125 "kernel report, which fails any boot: $report; log ${log#$TOP/}"
end=$(sed -n 's/.*@@@ run end: rc=\([0-9]*\) @@@.*/\1/p' "$log.run" 2>/dev/null) || :
# A kernel without RUN's port (one built before the port, as an old base
# kernel): the guest's init wrote RUN's output to the console.
if [ -z "$end" ] && [ -n "$run_port" ] && grep -q "init: no /dev/$RUN_TTY for RUN's output" "$log"; then
	say "boot: the kernel has no /dev/$RUN_TTY (RUN's port): RUN's output came on the console" >&2
	tr -d '\r' < "$log" | sed -n '/@@@ run begin/,/@@@ run end/p' | grep -v '^\[ *[0-9.]*\] '
	end=$(tr -d '\r' < "$log" | sed -n 's/.*@@@ run end: rc=\([0-9]*\) @@@.*/\1/p')
fi
[ -n "$end" ] || fail 126 "RUN did not end: QEMU exited with status $rc; log ${log#$TOP/}"
[ "$end" = 0 ] || say "boot: RUN exited with $end; its output in ${log#$TOP/}.run" >&2
# RUN's own 124 to 126 would read as a timeout, a report or a QEMU failure.
[ "$end" -lt 124 ] || [ "$end" -gt 126 ] || exit 1
exit "$end"
