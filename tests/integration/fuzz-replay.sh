#!/bin/sh
# Replays every fuzz target's entry point, built with the normal compiler
# (and sanitizers under ./run-tests.sh --sanitize), over its committed
# seeds (tests/fuzz/seeds/TARGET) and the inputs that once crashed it
# (tests/data/fuzz-regressions/TARGET).
. "$TESTS_SRCDIR/lib/test-lib.sh"

for t in capture-reader perf-file perf-pipe registers unwind eh-frame filter; do
  regressions=$TESTS_DATA/fuzz-regressions/$t
  [ -d "$regressions" ] || regressions=
  if "$TESTS_BUILDDIR/fuzz/replay-$t" "$TESTS_SRCDIR/fuzz/seeds/$t" \
       $regressions >"$tmp/$t.out" 2>&1; then
    echo "$t: $(tail -n 1 "$tmp/$t.out")"
  else
    fail "replay of $t:"
    tail -n 30 "$tmp/$t.out"
  fi
done
finish
