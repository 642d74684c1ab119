#!/bin/sh
# --no-host-files: only the files under --symfs (and --buildid-dir) are
# used, never this machine's.  The committed fixture's program is put at
# the path it was recorded at: found there without the option, not with
# it; under --symfs the chains are those of a run without the option.
# Needs no perf.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
fx=$TESTS_DATA/fixture
ST_MIN_LEAF_SAMPLES=${ST_MIN_LEAF_SAMPLES:-250}
mkdir "$tmp/empty"

echo "== under --symfs: the same chains"
run_st symfs -i "$fx/fixture.syscap" --symfs "$fx" -o /dev/null \
  --chains "$tmp/symfs.chains" || fail "stacktrace --symfs failed"
run_st given -i "$fx/fixture.syscap" --symfs "$fx" --no-host-files \
  -o /dev/null --chains "$tmp/given.chains" \
  || fail "stacktrace --symfs --no-host-files failed"
check_chains given fixture "$tmp/given.chains" || fail "given: known path"
cmp -s "$tmp/symfs.chains" "$tmp/given.chains" \
  || fail "--no-host-files changed the chains under --symfs"

# The recorded path, from the capture's MAP frames.
recorded=$(tr '\000' '\n' <"$fx/fixture.syscap" | grep -m 1 '^/tmp/st-fixture\.[A-Za-z0-9]*/st-fixture$')
[ -n "$recorded" ] || fail "no recorded path of st-fixture in the capture"
dir=${recorded%/*}
if [ -n "$recorded" ] && mkdir "$dir" 2>/dev/null; then
  cp "$fx/st-fixture" "$recorded"
  echo "== the program at its recorded path $recorded"
  run_st host -i "$fx/fixture.syscap" --symfs "$tmp/empty" -o /dev/null \
    --chains "$tmp/host.chains" || fail "stacktrace failed"
  check_chains host fixture "$tmp/host.chains" \
    || fail "the recorded path was not used without --no-host-files"
  run_st no-host -i "$fx/fixture.syscap" --symfs "$tmp/empty" \
    --no-host-files -o /dev/null --chains "$tmp/no-host.chains" \
    || fail "stacktrace --no-host-files failed"
  grep -F -q " samples, 0 unwound to the root," "$tmp/no-host.err" \
    || fail "--no-host-files used a file of this machine"
  rm -rf "$dir"
else
  echo "$dir exists already: the recorded-path part is left out"
fi
finish
