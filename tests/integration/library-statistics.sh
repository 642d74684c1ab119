#!/bin/sh
# The public statistics (st_stream_get_statistics) against the command:
# a stream run on the fixtures through libstacktrace-1.so gives, key for
# key, the figures of the stacktrace command's --stats-file for the same
# run (harness/stream-statistics prints them in the file's spelling and
# checks that the snapshot holds together).
. "$TESTS_SRCDIR/lib/test-lib.sh"

need_stacktrace
fx=$TESTS_DATA/fixture
prog=$TESTS_BUILDDIR/harness/stream-statistics
[ -x "$prog" ] || die "no $prog"

for input in fixture.data fixture.syscap; do
  "$STACKTRACE" -q -i "$fx/$input" --symfs "$fx" -o "$tmp/cmd.out" \
    --output-format sysprof --stats-file "$tmp/cmd.stats" \
    || fail "$input: stacktrace failed"
  "$prog" --symfs "$fx" "$fx/$input" "$tmp/lib.out" > "$tmp/lib.stats" \
    2> "$tmp/lib.err" || fail "$input: stream-statistics failed: $(cat "$tmp/lib.err")"
  [ -s "$tmp/lib.stats" ] || fail "$input: no statistics from the library"
  grep -F 'samples=0' "$tmp/lib.stats" | grep -Fx 'samples=0' >/dev/null \
    && fail "$input: no samples counted"
  while IFS= read -r line; do
    grep -Fx -e "$line" "$tmp/cmd.stats" >/dev/null \
      || fail "$input: library $line, command $(grep -F -e "${line%%=*}=" "$tmp/cmd.stats" | head -n 1)"
  done < "$tmp/lib.stats"
  cmp -s "$tmp/cmd.out" "$tmp/lib.out" \
    || fail "$input: the stream's output differs from the command's"
  echo "$input: $(wc -l < "$tmp/lib.stats") figures compared"
done

finish
