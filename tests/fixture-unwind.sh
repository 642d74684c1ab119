#!/bin/sh
# Unwind the committed fixture (tests/data/fixture, see tests/data/README):
# a capture with raw stacks and the perf.data it came from, recorded from
# a static program at a path that no longer exists, so the binary must be
# found through --symfs (by basename).  >= 99% of the samples whose leaf
# is st_leaf_work must reach main and _start exactly.  Needs no perf.
. "$(dirname "$0")/test-lib.sh"

need_stacktrace
fx=$TESTS_DATA/fixture
if ! [ -f "$fx/fixture.syscap" ] || ! [ -f "$fx/st-fixture" ]; then
  skip "fixture not generated yet (tests/make-fixture.sh)"
fi

# The fixture has ~300 samples, ~296 of them in st_leaf_work.
ST_MIN_LEAF_SAMPLES=${ST_MIN_LEAF_SAMPLES:-250}

echo "== capture"
if run_st fixture-capture -i "$fx/fixture.syscap" --symfs "$fx" \
     -o "$tmp/capture-out.syscap" --chains "$tmp/capture.chains"; then
  check_chains fixture-capture fixture "$tmp/capture.chains" \
    || fail fixture-capture
else
  fail "fixture-capture: stacktrace failed"
fi

echo "== capture through a pipe"
# cat: a real pipe, not a seekable redirected file.
# shellcheck disable=SC2002
if cat "$fx/fixture.syscap" | run_st fixture-capture-pipe --symfs "$fx" \
     -o "$tmp/capture-pipe-out.syscap" --chains "$tmp/capture-pipe.chains"; then
  check_chains fixture-capture-pipe fixture "$tmp/capture-pipe.chains" \
    || fail fixture-capture-pipe
  cmp -s "$tmp/capture.chains" "$tmp/capture-pipe.chains" \
    || fail "fixture: chains differ between file and pipe input"
else
  fail "fixture-capture-pipe: stacktrace failed"
fi

if [ -f "$fx/fixture.data" ]; then
  echo "== perf.data"
  if run_st fixture-perf -i "$fx/fixture.data" --symfs "$fx" \
       -o "$tmp/perf-out.syscap" --chains "$tmp/perf.chains"; then
    check_chains fixture-perf fixture "$tmp/perf.chains" || fail fixture-perf
    cmp -s "$tmp/capture.chains" "$tmp/perf.chains" \
      || fail "fixture: chains differ between the perf.data and its capture"
  else
    fail "fixture-perf: stacktrace failed"
  fi
  echo "== perf.data through a pipe"
  # shellcheck disable=SC2002
  if cat "$fx/fixture.data" | run_st fixture-perf-pipe -f perf --symfs "$fx" \
       -o "$tmp/perf-pipe-out.syscap" --chains "$tmp/perf-pipe.chains"; then
    check_chains fixture-perf-pipe fixture "$tmp/perf-pipe.chains" \
      || fail fixture-perf-pipe
  else
    fail "fixture-perf-pipe: stacktrace failed"
  fi
fi

finish
