#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The README's commands, as a reader types them: every line of its ```sh
# blocks, in order, each of which must exit 0.  The ```sh scratch block (a
# change to a patch, then make export) runs in a scratch copy of the
# harness whose build/linux is a clone of the tree, with an editor that
# makes a change to the function patch 27 adds; there make export must
# change that patch and the cover letter only.  What takes longer than
# make check can give (make check itself, check-debug, lint, the
# benchmarks, a base kernel, or a KERNEL= not built) runs as make -n,
# which still fails on a target, a variable's use or a file that is gone.
# make shell gets "poweroff -f" typed once the guest runs its init.
. "$(dirname "$0")/lib.sh"
cd "$TOP"
LONG='check|check-debug|lint|bench|bench-smt|bench-calibration|bench-schedstats|hotpath|base-kernel|debug|kselftest'

# The commands: "MODE<tab>COMMAND" with a command's continuation lines
# joined by "\n" (MODE top or scratch).
commands=$(awk '
	/^```sh( scratch)?$/ { mode = $2 == "scratch" ? "scratch" : "top"; next }
	/^```/ { mode = ""; next }
	mode == "" || /^[[:space:]]*(#|$)/ { next }
	{ cmd = cmd (cmd == "" ? "" : "\\n") $0 }
	!/\\$/ { print mode "\t" cmd; cmd = "" }' README.md)
check "the README has commands, the scratch block among them" \
	sh -c 'echo "$1" | grep -q "^top	make check" && echo "$1" | grep -q "^scratch	make export"' - "$commands"

# The editor of the scratch block: a comment before lb_smt_gains() in
# kernel/sched/fair.c; other files (the cover letter's text) unchanged.
h=$(mktemp -d)
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
git ls-files -z | xargs -0 cp --parents -t "$h" 2>/dev/null
mkdir -p "$h/build"
git -C "$h" init -q && git -C "$h" add -A && git -C "$h" -c user.name=r -c user.email=r@r commit -qm scratch
git clone -q --shared -b series "$SRC" "$h/build/linux"
for k in series.patches series.tip branch.series.description user.name user.email; do
	v=$(git -C "$SRC" config "$k") && git -C "$h/build/linux" config "$k" "$v"
done
git -C "$h/build/linux" config user.name >/dev/null || git -C "$h/build/linux" config user.name "$SERIES_NAME"
git -C "$h/build/linux" config user.email >/dev/null || git -C "$h/build/linux" config user.email "$SERIES_EMAIL"

# run MODE COMMAND: run it where a reader would be, as make -n if it is
# long; one result line.
scratch_dir=$h
run() {
	cmd=$(printf '%b' "$2")
	dir=$TOP
	[ "$1" = top ] || dir=$scratch_dir
	first=$(echo "$cmd" | head -n 1 | cut -c 1-72)
	how=
	if echo "$cmd" | grep -qE "^([A-Z_]+=[^ ]+ )*make ($LONG)( |\$)"; then
		how=" (make -n)"
	fi
	k=$(echo "$cmd" | sed -n 's/^KERNEL=\([^ ]*\) .*/\1/p')
	[ -z "$k" ] || [ -f "$k" ] || how=" (make -n: $k not built)"
	[ -z "$how" ] || cmd=$(echo "$cmd" | sed -E '1s/(^|[ ;])make /\1make -n /')
	case $cmd in
	cd\ *)
		d=${cmd#cd }
		d=${d%%#*}
		d=$(echo $d)
		check "$first" test -d "$dir/$d"
		scratch_dir=$(cd "$dir/$d" && pwd)
		return ;;
	esac
	t0=$(date +%s)
	log=$LOGS/readme.out
	if echo "$cmd" | grep -q '^make shell'; then
		# Typed once the guest's init has the console.
		rm -f "$h/tty"; mkfifo "$h/tty"
		(cd "$dir" && timeout 300 sh -c "$cmd" < "$h/tty" > "$log" 2>&1) &
		p=$!
		exec 3> "$h/tty"
		n=0
		until grep -q '@@@ run begin' "$log" 2>/dev/null || [ "$n" -ge 240 ]; do sleep 1; n=$((n + 1)); done
		echo 'poweroff -f' >&3
		wait "$p"
		rc=$?
		exec 3>&-
	else
		(cd "$dir" && EDITOR=$h/editor GIT_EDITOR=$h/editor timeout 900 sh -c "$cmd") > "$log" 2>&1 < /dev/null
		rc=$?
	fi
	if [ "$rc" = 0 ]; then
		ok "$first$how ($(($(date +%s) - t0)) s)"
	else
		not_ok "$first$how: status $rc"
		tail -n 15 "$log" | sed 's/^/  /'
	fi
}

echo "$commands" | while IFS='	' read -r mode cmd; do
	run "$mode" "$cmd"
	[ "$failed" = 0 ] || echo 1 > "$h/failed"
done
[ ! -f "$h/failed" ] || failed=1

# What the scratch block's make export changed: patch 27 gained the edit,
# no other patch did (the later ones may only see their fair.c hunks
# move), and no patch before 27 changed.
changed=$(git -C "$h" diff --name-only | sed 's|^patches/||; s|-.*||' | tr '\n' ' ')
check "the scratch block's edit went into patch 27, and no patch before it changed ($changed)" \
	sh -c 'git -C "$1" diff patches/ | grep "^[+-][+-]" | grep -v "^+++ \|^--- " > "$1/edits"
		[ "$(cat "$1/edits")" = "++/* readme.sh: an edit */" ] &&
		git -C "$1" diff patches/0027-* | grep -q "^++/\* readme.sh: an edit \*/" &&
		! echo "$2" | grep -qE "(^| )00(0[1-9]|1[0-9]|2[0-6]) "' - "$h" "$changed"
rm -rf "$h"
finish
