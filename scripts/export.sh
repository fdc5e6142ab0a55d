#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Regenerate patches/ from build/linux: each posting of POSTINGS
# (scripts/lib.sh) in patches/DIR, one patch per commit after the branch
# that ends the posting before it, up to its own branch, with a cover
# letter from that branch's description; patches/series lists them all in
# the order make tree applies them.  The output depends only on the
# commits: exporting twice gives no diff.
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
[ "$(git symbolic-ref --short HEAD)" = series ] || die "build/linux is not on its branch series"

out=$TOP/patches
rm -rf "$out"/*.patch "$out"/[0-9]-*/
{
	echo "# SPDX-License-Identifier: GPL-2.0"
	echo "# The postings, in order, a patch a line; make tree applies them with git am."
} > "$out/series.new"
prev=base
for p in $POSTINGS; do
	dir=${p%%:*} branch=${p#*:} needs=${p##*:}
	branch=${branch%%:*}
	git rev-parse -q --verify "refs/heads/$branch" >/dev/null ||
		die "no branch $branch ends posting $dir: git -C build/linux branch $branch COMMIT"
	git merge-base --is-ancestor "$prev" "$branch" && [ "$(git rev-parse "$prev")" != "$(git rev-parse "$branch")" ] ||
		die "branch $branch does not follow $prev: posting $dir would be empty or out of order"
	git config "branch.$branch.description" >/dev/null ||
		die "no cover letter for $dir: scripts/cover.sh edit $branch"
	version=$(git config "branch.$branch.version") || version=1
	# core.abbrev as make tree sets it, whatever the tree's config says.
	git -c core.abbrev=12 format-patch -q --cover-letter --cover-from-description=subject \
		--subject-prefix="PATCH v$version" --zero-commit --no-signature --base=base \
		-o "$out/$dir" "$prev..$branch"
	cover=$out/$dir/0000-cover-letter.patch
	# Its prerequisites are the postings up to NEEDS: not those between.
	# format-patch lists one prerequisite-patch-id for each commit from
	# base to the posting; the ids of NEEDS's commits are those it lists
	# for NEEDS's next commit.
	if [ "$needs" != "$prev" ]; then
		next=$(git rev-list --reverse "$needs..$prev" | head -n 1)
		git format-patch --stdout --base=base -1 "$next" | sed -n 's/^prerequisite-patch-id: //p' > "$out/.keep"
		awk 'FNR == NR { keep[$1]; next }
			/^prerequisite-patch-id: / && !($2 in keep) { next } 1' "$out/.keep" "$cover" > "$cover.new"
		mv "$cover.new" "$cover"
		rm -f "$out/.keep"
	fi
	# format-patch dates the cover letter "now"; date it like its last patch.
	last=$(ls "$out/$dir"/*.patch | tail -n 1)
	date=$(sed -n 's/^Date: //p' "$last" | head -n 1)
	sed -i "1,/^\$/s/^Date: .*/Date: $date/" "$cover"
	ls "$out/$dir" | grep -v '^0000-' | grep '\.patch$' | sed "s|^|$dir/|" >> "$out/series.new"
	say "export: $dir: $(($(ls "$out/$dir"/*.patch | wc -l) - 1)) patches, v$version"
	prev=$branch
done
mv "$out/series.new" "$out/series"
stamp_tree
