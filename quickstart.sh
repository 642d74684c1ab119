#!/usr/bin/env bash
# Installs what is needed (Debian 12, as root), builds stacktrace in build/
# and unwinds the committed fixture capture, printing the statistics and
# the call graph of the unwound samples.
set -euo pipefail

top=$(cd "$(dirname "$0")" && pwd)
fixture=$top/tests/data/fixture
out=${TMPDIR:-/tmp}/stacktrace-quickstart.syscap

"$top/run-tests.sh" --normal --build-only

echo
# The command as run, to be pasted as it is.
cmd="$top/build/src/stacktrace -i $fixture/fixture.syscap --symfs $fixture -o $out --force --summary"
echo "=== $cmd ==="
"$top/build/src/stacktrace" -i "$fixture/fixture.syscap" --symfs "$fixture" \
  -o "$out" --force --summary
echo
echo "The unwound capture is $out."
