#!/bin/sh
# Unwind the committed fixtures (tests/data/fixture and fixture-lld, see
# tests/data/README): each a capture with raw stacks and the perf.data it
# came from, recorded from a static program at a path that no longer
# exists, so the binary must be found through --symfs (by basename).
# fixture/ was linked by bfd (ET_EXEC), fixture-lld/ by lld as a static
# PIE (its code segment shares a file page with the read-only one).
# >= 99% of the samples whose leaf is st_leaf_work must reach main and
# _start exactly.  Needs no perf.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace

# The fixtures have ~300 samples, ~296 of them in st_leaf_work.
ST_MIN_LEAF_SAMPLES=${ST_MIN_LEAF_SAMPLES:-250}

# unwind_fixture DIR: the capture and the perf.data of DIR, from a file
# and through a pipe.
unwind_fixture ()
{
  fx=$1
  f=$(basename "$fx")
  echo "== $f: capture"
  if run_st "$f-capture" -i "$fx/fixture.syscap" --symfs "$fx" \
       -o "$tmp/$f-capture-out.syscap" --chains "$tmp/$f-capture.chains"; then
    check_chains "$f-capture" fixture "$tmp/$f-capture.chains" \
      || fail "$f-capture"
  else
    fail "$f-capture: stacktrace failed"
  fi

  echo "== $f: capture through a pipe"
  # cat: a real pipe, not a seekable redirected file.
  # shellcheck disable=SC2002
  if cat "$fx/fixture.syscap" | run_st "$f-capture-pipe" --symfs "$fx" \
       -o "$tmp/$f-capture-pipe-out.syscap" --chains "$tmp/$f-capture-pipe.chains"; then
    check_chains "$f-capture-pipe" fixture "$tmp/$f-capture-pipe.chains" \
      || fail "$f-capture-pipe"
    cmp -s "$tmp/$f-capture.chains" "$tmp/$f-capture-pipe.chains" \
      || fail "$f: chains differ between file and pipe input"
  else
    fail "$f-capture-pipe: stacktrace failed"
  fi

  if [ -f "$fx/fixture.data" ]; then
    echo "== $f: perf.data"
    if run_st "$f-perf" -i "$fx/fixture.data" --symfs "$fx" \
         -o "$tmp/$f-perf-out.syscap" --chains "$tmp/$f-perf.chains"; then
      check_chains "$f-perf" fixture "$tmp/$f-perf.chains" || fail "$f-perf"
      cmp -s "$tmp/$f-capture.chains" "$tmp/$f-perf.chains" \
        || fail "$f: chains differ between the perf.data and its capture"
    else
      fail "$f-perf: stacktrace failed"
    fi
    echo "== $f: perf.data through a pipe"
    # shellcheck disable=SC2002
    if cat "$fx/fixture.data" | run_st "$f-perf-pipe" -f perf --symfs "$fx" \
         -o "$tmp/$f-perf-pipe-out.syscap" --chains "$tmp/$f-perf-pipe.chains"; then
      check_chains "$f-perf-pipe" fixture "$tmp/$f-perf-pipe.chains" \
        || fail "$f-perf-pipe"
    else
      fail "$f-perf-pipe: stacktrace failed"
    fi
  fi
}

checked=0
for fx in "$TESTS_DATA/fixture" "$TESTS_DATA/fixture-lld"; do
  if ! [ -f "$fx/fixture.syscap" ]; then
    echo "$(basename "$fx"): not generated yet (tests/data/make-fixture.sh)"
    continue
  fi
  unwind_fixture "$fx"
  checked=$((checked + 1))
done
[ $checked -gt 0 ] || skip "no fixture generated yet (tests/data/make-fixture.sh)"
finish
