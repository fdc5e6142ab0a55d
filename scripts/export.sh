#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Regenerate patches/ from build/linux: one patch per commit on top of the
# base tag, a cover letter from the branch description, and patches/series.
# The output depends only on the commits: exporting twice gives no diff.
set -eu
. "$(dirname "$0")/lib.sh"
[ -d "$SRC/.git" ] || die "no tree: run make tree first"
# patches/ that changed since the tree was made (git pull) are not the
# tree's to overwrite.
made=$(git -C "$SRC" config series.patches) || made=
[ -z "$made" ] || [ "$made" = "$(patches_digest)" ] || [ "${FORCE:-0}" != 0 ] ||
	die "patches/ changed since build/linux was made (git pull?): FORCE=1 make export overwrites it, FORCE=1 make tree takes it"
cd "$SRC"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	die "build/linux has uncommitted changes: commit them first"
git config "branch.$(git symbolic-ref --short HEAD).description" >/dev/null ||
	die "no cover letter text: run scripts/cover.sh edit"

out=$TOP/patches
rm -f "$out"/*.patch
# core.abbrev as make tree sets it, whatever the tree's config says.
git -c core.abbrev=12 format-patch -q --cover-letter --cover-from-description=subject \
	--zero-commit --no-signature --base=base -o "$out" base..HEAD

# format-patch dates the cover letter "now"; date it like the last patch.
last=$(ls "$out"/*.patch | tail -n 1)
date=$(sed -n 's/^Date: //p' "$last" | head -n 1)
sed -i "1,/^\$/s/^Date: .*/Date: $date/" "$out/0000-cover-letter.patch"

{
	echo "# SPDX-License-Identifier: GPL-2.0"
	echo "# The series, in order; make tree applies it with git am."
	ls "$out" | grep -v '^0000-' | grep '\.patch$'
} > "$out/series"
stamp_tree
say "export: $(($(ls "$out"/*.patch | wc -l) - 1)) patches in patches/"
