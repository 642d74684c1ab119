#!/bin/sh
# Writes abi/stacktrace-1.abi, the ABI baseline tests/integration/
# library-abi.sh checks libstacktrace-1.so against, from the library
# built in BUILDDIR (default: build/).  Run it on purpose only: when the
# API grew (a release) or after an incompatible change that came with a
# new soname.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${1:-$top/build}
abidw --headers-dir "$top/include/stacktrace-1" --drop-private-types \
  --drop-undefined-syms --no-corpus-path --no-comp-dir-path \
  --out-file "$top/abi/stacktrace-1.abi" "$builddir/lib/.libs/libstacktrace-1.so"
echo "abi/stacktrace-1.abi written"
