#!/bin/sh
# Bounded resources with many processes: a synthetic capture of 10,000
# processes (each with its mapping of the fixture binary and a few
# raw-stack samples; gen-many-pids) through stacktrace with at most
# 64 file descriptors.  Every sample must unwind as in the fixture, the
# peak RSS must stay under 300 MiB (1 GiB under AddressSanitizer), and the
# descriptors open at the end
# must be few: neither per process nor per module and process.
. "$TESTS_SRCDIR/lib/test-lib.sh"
need_stacktrace

n=${ST_MANY_PROCESSES:-10000}
per=2
gen=$TESTS_BUILDDIR/harness/gen-many-pids
[ -x "$gen" ] || die "$gen not built"

# Through a pipe: 10,000 processes need no disk space.
(
  ulimit -n 64 || exit 99
  "$gen" "$TESTS_DATA/fixture/fixture.syscap" "$n" "$per" \
    | "$STACKTRACE" -v --symfs "$TESTS_DATA/fixture" -o "$tmp/out.syscap" \
        --chains "$tmp/chains" 2>"$tmp/err"
) || { tail -n 20 "$tmp/err"; fail "stacktrace failed (exit status $?)"; }

grep -v '^stacktrace: pid ' "$tmp/err" | tail -n 8
samples=$((n * per))
grep -q "^stacktrace: total: $samples samples, $samples unwound to the root" "$tmp/err" \
  || fail "not all $samples samples of $n processes unwound to the root"
lines=$(wc -l <"$tmp/chains")
[ "$lines" -eq "$samples" ] || fail "$lines chains lines, expected $samples"

rss=$(sed -n 's/^stacktrace: resources: peak RSS \([0-9]*\) MiB.*/\1/p' "$tmp/err")
fds=$(sed -n 's/^stacktrace: resources: .*, \([0-9]*\) file descriptors open.*/\1/p' "$tmp/err")
echo "peak RSS ${rss:-?} MiB, ${fds:-?} file descriptors open at the end"
# AddressSanitizer's shadow memory and quarantine (256 MiB) come on top:
# the 300 MiB bound is checked in the normal build.
bound=300
[ "${ST_SANITIZED:-0}" = 1 ] && bound=1024
[ -n "$rss" ] && [ "$rss" -lt $bound ] || fail "peak RSS ${rss:-unknown} MiB (bound $bound)"
# stdin, stdout, stderr, the output, the chains file: a handful, whatever
# the process count (the module cache keeps a descriptor open only for a
# few files with much code, a sixteenth of the limit: 4 here).
[ -n "$fds" ] && [ "$fds" -le 16 ] || fail "${fds:-unknown} file descriptors open"

# Many distinct files (hard links: one path each), 1,000 processes, 64
# descriptors: the module cache keeps at most 4 descriptors open, so
# every one of the 200 files can be used.
mkdir "$tmp/links"
i=0
while [ $i -lt 200 ]; do
  i=$((i + 1))
  ln "$TESTS_DATA/fixture/st-fixture" "$tmp/links/st-fixture-$i" 2>/dev/null \
    || cp "$TESTS_DATA/fixture/st-fixture" "$tmp/links/st-fixture-$i"
done
(
  ulimit -n 64 || exit 99
  "$gen" "$TESTS_DATA/fixture/fixture.syscap" 1000 2 "$tmp/links"/* \
    | "$STACKTRACE" -v -o /dev/null 2>"$tmp/err-links"
) || { tail -n 5 "$tmp/err-links"; fail "stacktrace failed on 200 distinct files"; }
grep '^stacktrace: total:' "$tmp/err-links"
grep -q "^stacktrace: total: 2000 samples, 2000 unwound to the root" "$tmp/err-links" \
  || fail "not all samples over 200 distinct files unwound with 64 descriptors"
finish
