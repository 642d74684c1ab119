#!/bin/sh
# The ABI of libstacktrace-1.so against the committed baseline
# (abi/stacktrace-1.abi, made by abidw): an incompatible change (a
# function or variable removed, a type changed in a way callers see)
# fails until the baseline is bumped on purpose (a new soname, then
# tools/abi-baseline.sh).  Additions are reported and pass.  Needs
# abidiff (Debian: abigail-tools); skipped in the sanitized builds,
# whose objects carry the sanitizers' instrumentation.
. "$TESTS_SRCDIR/lib/test-lib.sh"

command -v abidiff >/dev/null 2>&1 || skip "no abidiff (abigail-tools)"
[ "${ST_SANITIZED:-0}" = 1 ] && skip "sanitized build"
so=$TESTS_BUILDDIR/../lib/.libs/libstacktrace-1.so
base=$TESTS_SRCDIR/../abi/stacktrace-1.abi
[ -f "$so" ] || die "no $so"
[ -f "$base" ] || die "no $base"

abidiff --headers-dir2 "$TESTS_SRCDIR/../include/stacktrace-1" \
  --drop-private-types "$base" "$so" > "$tmp/abidiff.out" 2>&1
status=$?
cat "$tmp/abidiff.out"
# abidiff's status is a bit field: 1 error, 2 usage, 4 a change,
# 8 an incompatible change.
[ $((status & 3)) -eq 0 ] || die "abidiff failed (status $status)"
[ $((status & 8)) -eq 0 ] || fail "incompatible ABI change against $base"
[ $((status & 4)) -eq 0 ] || echo "compatible ABI change (additions): bump the baseline when released"
finish
