#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make check: build every arch, then the KUnit, kselftest, boot-scenario,
# debug (x86_64's debug kernel: scripts/debug.sh) and lint stages.  Every
# stage prints "ok - ..." / "not ok - ..." lines as they come, and "# ..."
# lines for each build and boot as it starts; the stages' times come at the
# end, then the last line, "N passed, N failed".  The results are also in
# build/logs/check.ktap, as KTAP (kunit.py parse reads it).  Exit status 1
# on any failure.
# make check-debug runs the stages CHECK_STAGES names instead: build, then
# debug, upstream, asym-smt, lint and configs (scripts/configs.sh) with the
# settings the Makefile gives them.
set -u
. "$(dirname "$0")/lib.sh"
mkdir -p "$BUILD/logs"
results=$BUILD/logs/check-results.txt
: > "$results"
# Earlier runs' stage outputs would mix into "=== failed:".
rm -f "$BUILD"/logs/check-*.out
# Every boot and build notes its time here (time_note), for the list of
# the slowest at the end.
export CHECK_TIMES="$BUILD/logs/check-times.txt"
: > "$CHECK_TIMES"
times=

keep_out() { tee "$out"; }

# stage NAME COMMAND...: run, show its output as it comes, keep its result
# lines; a stage that fails without a "not ok" line of its own counts as
# one failure.
stage() {
	name=$1; shift
	start=$(date +%s)
	say "=== $name"
	out=$BUILD/logs/check-$name.out
	through keep_out "$@"
	rc=$?
	grep -E '^(not )?ok - ' "$out" >> "$results"
	if [ "$rc" != 0 ] && ! grep -q '^not ok - ' "$out"; then
		echo "not ok - $name: exited with $rc" | tee -a "$out" "$results"
	fi
	t=$(($(date +%s) - start))
	times="$times${times:+, }$name $t s"
	say "=== $name: $(grep -c '^ok - ' "$out") passed, $(grep -c '^not ok - ' "$out") failed, $t s"
	return $rc
}

stages=${CHECK_STAGES:-build kunit kselftest scenarios debug lint}
built=1
for s in $stages; do
	case $s in
	build) stage build sh "$TOP/scripts/build.sh" || built=0 ;;
	# Each patch's own build (about 9 min cold) is make check-debug's.
	lint) stage lint env LINT="${LINT:-checkpatch warnings}" sh "$TOP/scripts/lint.sh" ;;
	*) if [ $built = 0 ]; then
		say "=== $s: skipped, the build failed"
	   elif [ "$s" = upstream ] || [ "$s" = asym-smt ]; then
		stage "$s" env TESTS="$TOP/tests/$s.sh" sh "$TOP/scripts/scenarios.sh"
	   else
		stage "$s" sh "$TOP/scripts/$s.sh"
	   fi ;;
	esac
done

# The results as KTAP, one test per result line.
awk 'BEGIN { print "KTAP version 1" } { l[NR] = $0 } END { print "1.." NR
	for (i = 1; i <= NR; i++) { r = l[i]; sub(/^ok - /, "ok " i " ", r); sub(/^not ok - /, "not ok " i " ", r); print r } }' \
	"$results" > "$BUILD/logs/check.ktap"

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
say "=== the five slowest steps:"
sort -rn "$CHECK_TIMES" | head -n 5 | sed 's/^\([0-9]*\) /  \1 s: /'
say "=== times: $times"
say "$passed passed, $failed failed"
[ "$failed" = 0 ]
