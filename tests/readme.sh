#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The README's commands, as a reader types them: every line of its ```sh
# blocks, in order, each of which must exit 0, or with the status its
# comment names ("# exit status N").  The ```sh scratch block (a change to
# a patch, then make export) runs in a scratch copy of the harness whose
# build/linux is a clone of the tree, with an editor that adds a comment
# to the function patch 28 adds; there make export must put it in that
# patch and in no other.  What takes longer than make check can give (make
# check itself, check-debug, lint, the benchmarks, a base kernel, or a
# KERNEL= not built) runs as make -n, and the scripts it would run must
# exist.  make shell gets "poweroff -f" typed once the guest's init runs.
# The commands run with the environment of a reader's shell, not with the
# variables make check exports, and write their logs to build/logs/readme.
. "$(dirname "$0")/lib.sh"
cd "$TOP"
unset ARCH SHAPE APPEND APPEND_GIVEN RUN MAKEFLAGS MAKELEVEL MFLAGS CHECK_TIMES
export LOGS=$LOGS/readme
mkdir -p "$LOGS"
LONG='check|check-debug|check-configs|check-flakes|lint|bench|bench-smt|bench-shared|bench-wakeup|bench-calibration|bench-matrix|bench-schedstats|hotpath|base-kernel|debug|kselftest'
h=$(mktemp -d)
trap 'rm -rf "$h"' EXIT
trap 'exit 130' INT TERM HUP

# The commands, one file each, in order: $h/cmd/NNN.top or NNN.scratch.
mkdir "$h/cmd"
awk -v dir="$h/cmd" '
	/^```sh( scratch)?$/ { mode = $2 == "scratch" ? "scratch" : "top"; next }
	/^```/ { mode = ""; next }
	mode == "" || (cmd == "" && /^[[:space:]]*(#|$)/) { next }
	{ cmd = cmd $0 "\n" }
	!/\\$/ { f = sprintf("%s/%03d.%s", dir, ++n, mode); printf "%s", cmd > f; close(f); cmd = "" }' README.md
check "the README has commands, the scratch block among them ($(ls "$h/cmd" | wc -l))" \
	sh -c 'grep -qx "make check .*" "$1"/*.top && grep -qx "make export .*" "$1"/*.scratch' - "$h/cmd"

# The editor of the scratch block: a comment before lb_smt_gains() in
# kernel/sched/fair.c; other files (the cover letter's text) unchanged.
cat > "$h/editor" <<'EOF'
#!/bin/sh
case $1 in
*kernel/sched/fair.c)
	sed -i 's|^static bool lb_smt_gains(|/* readme.sh: an edit */\n&|' "$1" ;;
esac
EOF
chmod +x "$h/editor"

# The scratch copy: the harness's files as they are, a git repository to
# diff against, and build/linux cloned with what the tree records.
mkdir "$h/top"
git ls-files -z | xargs -0 cp --parents -t "$h/top"
git -C "$h/top" init -q && git -C "$h/top" add -A &&
	git -C "$h/top" -c user.name=r -c user.email=r@r commit -qm scratch
mkdir -p "$h/top/build"
git clone -q --shared -b series "$SRC" "$h/top/build/linux"
for k in series.patches series.tip core.abbrev rebase.updateRefs; do
	v=$(git -C "$SRC" config "$k") && git -C "$h/top/build/linux" config "$k" "$v"
done
# The branches that end the postings, with their cover letters.
for p in $POSTINGS; do
	b=${p#*:} b=${b%%:*}
	[ "$b" = series ] || git -C "$h/top/build/linux" branch -q "$b" "origin/$b"
	for k in description version; do
		v=$(git -C "$SRC" config "branch.$b.$k") &&
			git -C "$h/top/build/linux" config "branch.$b.$k" "$v"
	done
done
git -C "$h/top/build/linux" config user.name "$SERIES_NAME"
git -C "$h/top/build/linux" config user.email "$SERIES_EMAIL"

# run FILE: the command in FILE, where a reader would be (the top
# directory, or the scratch copy for NNN.scratch); one result line.
scratch_dir=$h/top
run() {
	cmd=$(cat "$1")
	dir=$TOP
	case $1 in *.scratch) dir=$scratch_dir ;; esac
	first=$(printf '%s\n' "$cmd" | head -n 1 | sed 's/ *#.*//' | cut -c 1-72)
	want=$(printf '%s\n' "$cmd" | sed -n 's/.*# exit status \([0-9]*\).*/\1/p' | tail -n 1)
	how=
	printf '%s\n' "$cmd" | grep -qE "^([A-Z_]+=[^ ]+ )*make ($LONG)( |\$)" && how=" (make -n)"
	k=$(printf '%s\n' "$cmd" | sed -n 's/^KERNEL=\([^ ]*\) .*/\1/p')
	[ -z "$k" ] || [ -f "$k" ] || how=" (make -n: $k not built)"
	[ -z "$how" ] || cmd=$(printf '%s\n' "$cmd" | sed -E '1s/(^|[ ;])make /\1make -n /')
	case $cmd in
	cd\ *)
		d=$(echo ${cmd#cd } | sed 's/ *#.*//')
		check "$first" test -d "$dir/$d"
		scratch_dir=$(cd "$dir/$d" && pwd)
		return ;;
	esac
	t0=$(date +%s)
	log=$LOGS/readme.out
	: > "$log"
	case $cmd in
	make\ shell*)
		# Typed once the guest's init has the console.
		typed_shell "$dir" "$log" '@@@ run begin' 'poweroff -f' "$cmd"
		rc=$?
		;;
	*)
		(cd "$dir" && EDITOR=$h/editor GIT_EDITOR=$h/editor exec timeout 900 sh -c "$cmd") \
			> "$log" 2>&1 < /dev/null
		rc=$?
		;;
	esac
	# make -n: the scripts the recipe would run are there.
	missing=
	if [ -n "$how" ]; then
		for s in $(grep -o 'scripts/[a-z-]*\.sh' "$log" | sort -u); do
			[ -f "$dir/$s" ] || missing="$missing $s"
		done
	fi
	if [ "$rc" = "${want:-0}" ] && [ -z "$missing" ]; then
		ok "$first$how, status $rc ($(($(date +%s) - t0)) s)"
	else
		not_ok "$first$how: status $rc${want:+ (want $want)}${missing:+; no$missing}"
		tail -n 15 "$log" | sed 's/^/  /'
	fi
}

for f in "$h"/cmd/*; do
	run "$f"
done

# What the scratch block's make export changed: the patch that adds the
# function it edits (lb_smt_gains(), in the SMT capacity's posting)
# gained the edit, no other patch did (the later ones may only see their
# fair.c hunks move, the cover letters their diffstats), and no patch
# before it changed: "POSTING/NNNN" each.
target=$(cd "$h/top/patches" && grep -l '^+static bool lb_smt_gains(' */[0-9]*.patch | sed 's|\(/[0-9]*\)-.*|\1|')
changed=$(git -C "$h/top" diff --name-only -- patches | sed 's|^patches/||; s|\(/[0-9]*\)-.*|\1|' | tr '\n' ' ')
check "the scratch block's edit went into patch $target, and no patch before it changed ($changed)" \
	sh -c 'git -C "$1" diff patches/ | grep "^[+-][+-]" | grep -v "^+++ \|^--- " > "$1/../edits"
		[ "$(cat "$1/../edits")" = "++/* readme.sh: an edit */" ] &&
		git -C "$1" diff patches/$3-* | grep -q "^++/\* readme.sh: an edit \*/" &&
		for n in $2; do
			[ "${n#*/}" = 0000 ] || { [ "${n%/*}" = "${3%/*}" ] && [ "${n#*/}" -ge "${3#*/}" ]; } || exit 1
		done' - "$h/top" "$changed" "$target"
finish
