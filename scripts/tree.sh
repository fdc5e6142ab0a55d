#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Prepare build/linux: the pinned Debian kernel source as a git repository
# (base commit tagged "base"), with patches/series applied by git am, one
# commit per patch, on branch series; a branch named in POSTINGS ends each
# posting but the last; the tree records what it was made from once the
# last patch applied (stamp_tree).  An existing tree is left alone unless
# FORCE=1, which recreates it, but not over commits or changes that
# patches/ does not have: those take FORCE=2.
set -eu
. "$(dirname "$0")/lib.sh"

if [ -d "$SRC/.git" ]; then
	if [ "${FORCE:-0}" = 0 ]; then
		check_tree
		say "tree: $SRC is patches/ (FORCE=1 make tree recreates it)"
		exit 0
	fi
	# Changed files, and the commits since the record (all of them
	# without one).
	lost=$(git -C "$SRC" status --porcelain --untracked-files=no | wc -l)
	tip=$(git -C "$SRC" config series.tip) || tip=base
	lost=$((lost + $(git -C "$SRC" rev-list --count "$tip..series" 2>/dev/null || echo 1)))
	[ "$lost" = 0 ] || [ "${FORCE:-0}" = 2 ] ||
		die "build/linux has $lost commits or changed files that patches/ does not: make export keeps them, FORCE=2 make tree drops them"
fi

dl=$BUILD/dl
mkdir -p "$dl"

# fetch_deb VERSION [APT_OPTION...]: download the source package into $dl.
fetch_deb() {
	v=$1
	shift
	(cd "$dl" && apt-get "$@" download -q "$BASE_PACKAGE=$v" >/dev/null 2>&1)
}

# Debian 12 serves linux-source-6.12 from bookworm-security, a suite that
# a system made by debootstrap does not list: fetch_security VERSION reads
# that suite through a list of our own in $dl, and leaves the system's apt
# configuration and caches as they are.
fetch_security() {
	security_version=$1
	mkdir -p "$dl/apt/lists/partial"
	echo "deb http://deb.debian.org/debian-security bookworm-security main" > "$dl/apt/sources.list"
	set -- -o Dir::Etc::SourceList="$dl/apt/sources.list" \
		-o Dir::Etc::SourceParts=/nonexistent -o Dir::State::Lists="$dl/apt/lists" \
		-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
	[ "$(id -u)" != 0 ] || set -- "$@" -o APT::Sandbox::User=root
	apt-get "$@" update -qq && fetch_deb "$security_version" "$@" &&
		say "tree: $BASE_PACKAGE $security_version from bookworm-security, which apt's sources do not list"
}

version=$BASE_VERSION
deb=$dl/${BASE_PACKAGE}_$(echo "$version" | sed 's/:/%3a/')_all.deb
if [ ! -f "$deb" ]; then
	fetch_deb "$version" || { apt-get update -qq; fetch_deb "$version"; } ||
		fetch_security "$version" || {
		version=$(apt-cache policy "$BASE_PACKAGE" | sed -n 's/^ *Candidate: //p')
		[ -n "$version" ] && [ "$version" != "(none)" ] ||
			die "no $BASE_PACKAGE package available (Debian 12 serves it from bookworm-security)"
		say "tree: WARNING: $BASE_PACKAGE $BASE_VERSION is no longer served;" \
		    "falling back to the newest, $version"
		fetch_deb "$version"
		deb=$(ls "$dl/${BASE_PACKAGE}_"*.deb | tail -n 1)
	}
fi

say "tree: extracting $(basename "$deb")"
rm -rf "$SRC" "$dl/pkg"
dpkg-deb -x "$deb" "$dl/pkg"
tar -C "$BUILD" -xf "$dl/pkg/usr/src/$BASE_PACKAGE.tar.xz"
mv "$BUILD/$BASE_PACKAGE" "$SRC"
rm -rf "$dl/pkg"

cd "$SRC"
git init -q -b series
git config user.name "$SERIES_NAME"
git config user.email "$SERIES_EMAIL"
git config core.abbrev 12
git add -A -f .
# Fixed identity and dates: the base commit id is the same on every machine,
# so the cover letter's base-commit line is stable.
kver=$(make -s kernelversion)
GIT_AUTHOR_NAME="$SERIES_NAME" GIT_AUTHOR_EMAIL="$SERIES_EMAIL" \
GIT_COMMITTER_NAME="$SERIES_NAME" GIT_COMMITTER_EMAIL="$SERIES_EMAIL" \
GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
	git commit -q -m "Linux $kver (Debian $BASE_PACKAGE $version)"
git tag base

# A rebase keeps the branches that end each posting on their commits.
git config rebase.updateRefs true

# mark_posting DIR: the branch that ends posting DIR (POSTINGS) is HEAD.
mark_posting() {
	for posting in $POSTINGS; do
		b=${posting#*:}
		[ "${posting%%:*}" != "$1" ] || [ "${b%%:*}" = series ] || git branch -f "${b%%:*}" HEAD
	done
}

n=0
dir=
if [ -f "$TOP/patches/series" ]; then
	for p in $(grep -v '^#' "$TOP/patches/series"); do
		case $p in */*) [ "${p%%/*}" = "$dir" ] || { [ -z "$dir" ] || mark_posting "$dir"; dir=${p%%/*}; } ;; esac
		git am -q --committer-date-is-author-date "$TOP/patches/$p" ||
			die "patches/$p does not apply"
		n=$((n + 1))
	done
fi
[ -z "$dir" ] || mark_posting "$dir"

# The cover letters' texts live in the branch descriptions while we work.
"$TOP/scripts/cover.sh" load
stamp_tree
say "tree: $SRC at $(git describe --tags --always) ($n patches on base)"
