#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make check: build every arch, then the KUnit, kselftest, boot-scenario,
# debug (x86_64's debug kernel: scripts/debug.sh) and lint stages.  Every
# stage prints "ok - ..." / "not ok - ..." lines; the last line of the
# output is "N passed, N failed".  Exit status 1 on any failure.
# make check-debug runs the stages CHECK_STAGES names instead: build, then
# debug, upstream and asym-smt with the settings the Makefile gives them.
set -u
. "$(dirname "$0")/lib.sh"
mkdir -p "$BUILD/logs"
results=$BUILD/logs/check-results.txt
: > "$results"

# stage NAME COMMAND...: run, show, keep its result lines; a stage that
# fails without a "not ok" line of its own counts as one failure.
stage() {
	name=$1; shift
	start=$(date +%s)
	say "=== $name"
	out=$BUILD/logs/check-$name.out
	"$@" > "$out" 2>&1
	rc=$?
	cat "$out"
	grep -E '^(not )?ok - ' "$out" >> "$results"
	if [ "$rc" != 0 ] && ! grep -q '^not ok - ' "$out"; then
		echo "not ok - $name: exited with $rc" | tee -a "$results"
	fi
	say "=== $name: $(grep -c '^ok - ' "$out") passed, $(grep -c '^not ok - ' "$out") failed," \
	    "$(($(date +%s) - start)) s"
	return $rc
}

stages=${CHECK_STAGES:-build kunit kselftest scenarios debug lint}
built=1
for s in $stages; do
	case $s in
	build) stage build sh "$TOP/scripts/build.sh" || built=0 ;;
	lint) stage lint sh "$TOP/scripts/lint.sh" ;;
	upstream|asym-smt) [ $built = 0 ] ||
		stage "$s" env TESTS="$TOP/tests/$s.sh" sh "$TOP/scripts/scenarios.sh" ;;
	*) [ $built = 0 ] || stage "$s" sh "$TOP/scripts/$s.sh" ;;
	esac
done

passed=$(grep -c '^ok - ' "$results")
failed=$(grep -c '^not ok - ' "$results")
if [ "$failed" != 0 ]; then
	# Each failure with the indented lines that say why (at most 20).
	say "=== failed:"
	for f in "$BUILD"/logs/check-*.out; do
		awk '/^not ok - / { n = 20; print; next }
		     n && /^  / { n--; print; next } { n = 0 }' "$f"
	done
fi
say "$passed passed, $failed failed"
[ "$failed" = 0 ]
