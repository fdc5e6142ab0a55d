#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Churn of each posting: the lines a patch removes that an earlier patch of
# the same posting added (blank lines left out), per patch and in all, from
# the tree make tree built (build/linux).  A reviewer reads such lines
# twice; each should be what the later step needs, and the cover letter
# names them.
set -eu
. "$(dirname "$0")/lib.sh"
[ -d "$SRC/.git" ] || die "no tree: run make tree first"
cd "$SRC"

prev=base
for p in $POSTINGS; do
	dir=${p%%:*}
	rest=${p#*:}
	branch=${rest%%:*}
	for c in $(git rev-list --reverse "$prev..$branch"); do
		echo "commit $(git log -1 --format=%s "$c")"
		git show --format= --no-renames -U0 "$c"
	done | awk -v posting="$dir" '
	# Removals first, against what earlier patches added; then additions.
	function flush(   i, n) {
		n = 0
		for (i = 1; i <= nrem; i++)
			if (added[rem[i]] > 0) { added[rem[i]]--; n++ }
		for (i = 1; i <= nadd; i++)
			added[add[i]]++
		if (n) lines = lines sprintf("  %4d %s\n", n, subject)
		total += n; nrem = nadd = 0
	}
	/^commit / { if (subject != "") flush(); subject = substr($0, 8); file = ""; next }
	/^\+\+\+ / { file = substr($0, 1, 6) == "+++ b/" ? substr($0, 7) : ""; next }
	/^--- / || file == "" { next }
	/^-/ { line = substr($0, 2); if (line ~ /[^ \t]/) rem[++nrem] = file SUBSEP line; next }
	/^\+/ { add[++nadd] = file SUBSEP substr($0, 2); next }
	END {
		if (subject != "") flush()
		printf "%s: %d lines rewritten by later patches\n%s", posting, total, lines
	}'
	prev=$branch
done
