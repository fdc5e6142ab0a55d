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
mkdir -p "$LOGS"
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
	# A posting that needs fewer postings than those before it is written
	# against what it needs: its commits picked onto NEEDS in a worktree
	# of their own (the context lines of a file both postings change are
	# then NEEDS's), on a branch that carries its cover letter.
	repo=. range=$prev..$branch
	if [ "$needs" != "$prev" ]; then
		repo=$BUILD/linux-export range=$needs..HEAD
		[ -d "$repo" ] || git worktree add -q --detach "$repo" "$needs"
		git -C "$repo" cherry-pick --abort >/dev/null 2>&1 || true
		git -C "$repo" am --abort >/dev/null 2>&1 || true
		git -C "$repo" checkout -q -f -B "export-$branch" "$needs"
		git -C "$repo" cherry-pick "$prev..$branch" >"$LOGS/export.log" 2>&1 || {
			git -C "$repo" cherry-pick --abort >/dev/null 2>&1 || true
			sed 's/^/  /' "$LOGS/export.log"
			die "posting $dir does not apply on $needs without the postings between"
		}
		git config "branch.export-$branch.description" "$(git config "branch.$branch.description")"
	fi
	# core.abbrev as make tree sets it, whatever the tree's config says.
	git -C "$repo" -c core.abbrev=12 format-patch -q --cover-letter --cover-from-description=subject \
		--subject-prefix="PATCH v$version" --zero-commit --no-signature --base=base \
		-o "$out/$dir" "$range"
	if [ "$repo" != . ]; then
		# make tree applies it after the postings between: there it must
		# give the tree's commits.
		git -C "$repo" checkout -q -f --detach "$prev"
		for f in "$out/$dir"/[0-9]*.patch; do
			case $f in */0000-cover-letter.patch) continue ;; esac
			git -C "$repo" am -q "$f" >"$LOGS/export.log" 2>&1 || break
		done
		git -C "$repo" am --abort >/dev/null 2>&1 || true
		git -C "$repo" diff --quiet HEAD "$branch" ||
			die "posting $dir, written against $needs, does not give branch $branch on $prev"
		git -C "$repo" checkout -q --detach "$needs"
		git branch -q -D "export-$branch"
	fi
	cover=$out/$dir/0000-cover-letter.patch
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
