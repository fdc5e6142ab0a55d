#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The cover letter's subject and text, kept in the work tree's branch
# description (git format-patch --cover-from-description=subject).
#   cover.sh load   patches/0000-cover-letter.patch -> branch description
#   cover.sh edit   edit the branch description
set -eu
. "$(dirname "$0")/lib.sh"
cd "$SRC"
branch=$(git symbolic-ref --short HEAD)
cover=$TOP/patches/0000-cover-letter.patch

case "${1:-}" in
load)
	[ -f "$cover" ] || exit 0
	# Subject without "[PATCH n/m] ", a blank line, then the text up to
	# the shortlog ("Author Name (N):").
	desc=$(awk '
		/^Subject: / && !subj { sub(/^Subject: (\[[^]]*\] )?/, ""); print; print ""; subj = 1; next }
		subj && !body && /^$/ { body = 1; next }
		body && /^[^ ].* \([0-9]+\):$/ { exit }
		body { print }' "$cover")
	git config "branch.$branch.description" "$desc"
	;;
edit)
	git branch --edit-description
	;;
*)
	die "usage: cover.sh load|edit"
	;;
esac
