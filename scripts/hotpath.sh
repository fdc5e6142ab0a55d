#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make hotpath: what the SMT capacity costs the scheduler's hot paths when
# its static key is off, on x86_64:
#   - each jump-label site of sched_smt_capacity_key in the series' fair.o,
#     the function it is in and the instruction there: a NOP while the key
#     is off, the only thing the wakeup and balance paths execute of it.
#     The kernel read is the tests' x86_64 kernel built with jump labels
#     (kconfig/jump-label.config), as distributions build, which x86 guests
#     under TCG cannot boot (kconfig/x86_64.config), in build/x86_64-jl;
#   - the size of the wakeup and load-balance functions in the series and
#     in the base, the tests' kernels (build/x86_64, build/x86_64-base): the
#     code behind the key's branches, which runs only with the key on.
set -eu
. "$(dirname "$0")/lib.sh"
load_arch x86_64
series=$OBJ
jl=$BUILD/x86_64-jl
sh "$TOP/scripts/kernel.sh" x86_64 >/dev/null
sh "$TOP/scripts/kernel.sh" x86_64 "$SRC" "$jl" "common x86_64 series jump-label" >/dev/null
base_kernel x86_64 >/dev/null
base=$BUILD/x86_64-base
key=sched_smt_capacity_key

# Each __jump_table entry is three relocations: the code, the target and
# the key (+1 for a branch that is likely taken).  The code site of each
# entry whose key is $key, as "SECTION OFFSET".
sites=$(objdump -r -j __jump_table "$jl/kernel/sched/fair.o" | awk -v key="$key" '
	$2 ~ /R_X86_64/ { n++; sym[n % 3] = $3
		if (n % 3 == 0 && sym[0] ~ "^" key "([+-]|$)") {
			split(sym[1], a, "+"); print a[1], (a[2] == "" ? "0x0" : a[2]) } }')
[ -n "$sites" ] || die "no jump-label site of $key in ${jl#$TOP/}/kernel/sched/fair.o"

say "# jump-label sites of $key in kernel/sched/fair.o (key off: the instruction shown)"
echo "$sites" | while read -r sec off; do
	objdump -d --no-show-raw-insn -j "$sec" "$jl/kernel/sched/fair.o" |
		awk -v off="$(printf '%x' "$off")" '
			/^[0-9a-f]+ <.*>:$/ { fn = $2 }
			$1 == off ":" { sub(/^[ \t]*[0-9a-f]+:[ \t]*/, ""); print "  " fn " +0x" off ": " $0; exit }'
done

# size DIR FUNCTION: bytes of FUNCTION and of its compiler clones
# (FUNCTION.constprop.0, ...) in DIR's vmlinux, 0 if inlined.
size() {
	nm -S "$1/vmlinux" | awk -v f="$2" '$4 == f || index($4, f ".") == 1 { print $2 }' |
		while read -r h; do echo $((0x$h)); done | awk '{ s += $1 } END { print s + 0 }'
}

say "# function sizes in vmlinux, bytes: base, series, difference (0 0: inlined)"
for fn in select_task_rq_fair select_idle_sibling select_idle_capacity asym_fits_cpu \
	  sched_balance_rq sched_balance_find_src_rq need_active_balance \
	  nohz_balancer_kick update_sd_lb_stats sched_balance_domains; do
	b=$(size "$base" $fn)
	s=$(size "$series" $fn)
	say "  $fn: $b $s $((s - b))"
done
