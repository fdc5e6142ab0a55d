#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The postings' cover letters, kept in the work tree as the descriptions of
# the branches that end them (POSTINGS in scripts/lib.sh), with their
# version in branch.BRANCH.version (git format-patch
# --cover-from-description=subject, --subject-prefix="PATCH vN").
#   cover.sh load           patches/DIR/0000-cover-letter.patch -> branches
#   cover.sh edit BRANCH    edit BRANCH's description
#   cover.sh version BRANCH N   the next export's version of its posting
set -eu
. "$(dirname "$0")/lib.sh"
cd "$SRC"

# load COVER BRANCH: the subject without "[PATCH vN n/m] ", a blank line,
# then the text up to the shortlog ("Author Name (N):").
load() {
	[ -f "$1" ] || return 0
	desc=$(awk '
		/^Subject: / && !subj { sub(/^Subject: (\[[^]]*\] )?/, ""); print; print ""; subj = 1; next }
		subj && !body && /^$/ { body = 1; next }
		body && /^[^ ].* \([0-9]+\):$/ { exit }
		body { print }' "$1")
	git config "branch.$2.description" "$desc"
	v=$(sed -n 's/^Subject: \[PATCH v\([0-9]*\) .*/\1/p' "$1" | head -n 1)
	[ -z "$v" ] || git config "branch.$2.version" "$v"
}

case "${1:-}" in
load)
	# A flat patches/ (one posting) is the current branch's.
	load "$TOP/patches/0000-cover-letter.patch" "$(git symbolic-ref --short HEAD)"
	for posting in $POSTINGS; do
		b=${posting#*:}
		load "$TOP/patches/${posting%%:*}/0000-cover-letter.patch" "${b%%:*}"
	done
	;;
edit)
	git branch --edit-description "${2:?usage: cover.sh edit BRANCH}"
	;;
version)
	git config "branch.${2:?usage: cover.sh version BRANCH N}.version" "${3:?}"
	;;
*)
	die "usage: cover.sh load | edit BRANCH | version BRANCH N"
	;;
esac
