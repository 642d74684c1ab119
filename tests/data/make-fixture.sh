#!/bin/sh
# Regenerate the committed fixture in tests/data/fixture/ (see
# tests/data/README): build st-fixture.c statically, record it with perf
# in a scratch directory that is deleted afterwards (so the recorded path
# exists nowhere and the tests must find the binary through --symfs),
# convert the perf.data to a capture with raw stacks, and check both.
# Usage: tests/data/make-fixture.sh [--lld] [PATH-TO-STACKTRACE]
#   (default: $STACKTRACE, else build/src/stacktrace, else src/stacktrace)
#   --lld: the lld fixture instead (data/fixture-lld: the same program
#   linked by lld as a static PIE, whose code segment starts in the file
#   page where the read-only one ends)
# Needs gcc with a static glibc (libc6-dev) and a working perf (and lld).
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)   # tests/
top=$(dirname "$here")
dest=$here/data/fixture
name=st-fixture
link="-static"
if [ "${1:-}" = --lld ]; then
  shift
  dest=$here/data/fixture-lld
  name=st-fixture-lld
  link="-static-pie -fuse-ld=lld"
fi
mkdir -p "$dest"
st=${1:-${STACKTRACE:-}}
if [ -z "$st" ]; then
  for c in "$top/build/src/stacktrace" "$top/src/stacktrace"; do
    if [ -x "$c" ]; then st=$c; break; fi
  done
fi
if [ -z "$st" ] || ! [ -x "$st" ]; then
  echo "make-fixture: no stacktrace command" >&2
  exit 1
fi
st=$(cd "$(dirname "$st")" && pwd)/$(basename "$st")

work=$(mktemp -d /tmp/st-fixture.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Static and small (< 1 MB with -g for our code; glibc's libc.a has
# symbols but no DWARF), no frame pointers: unwinding needs the CFI.
# shellcheck disable=SC2086
gcc $link -O2 -g -fomit-frame-pointer -fasynchronous-unwind-tables \
  -ffunction-sections -fdata-sections -Wl,--gc-sections \
  -ffile-prefix-map="$here/data/fixture"=. \
  -o "$work/$name" "$here/data/fixture/st-fixture.c"

# ~300 samples: 150 ms at one sample per 0.5 ms of CPU.  A 2048-byte
# stack copy covers the deepest path (about 1.5 KB from the leaf to
# __libc_start_main's return address) and keeps both files < 1 MB.
# perf's build-id cache goes to a scratch HOME's .debug: we
# keep the kernel's [vdso] from it (some samples are in it; the tests
# must not need the vDSO of the kernel they run on).  On one CPU, so
# every record is in time order (perf writes its per-CPU buffers one
# after the other).
pin=
if command -v taskset >/dev/null 2>&1; then
  pin="taskset -c 0"
fi
mkdir -p "$work/home"
HOME=$work/home $pin perf record -q -e cpu-clock -c 500000 \
  --call-graph=dwarf,2048 -o "$work/fixture.data" -- "$work/$name" 150

"$st" -q -m passthru -f perf -i "$work/fixture.data" -o "$work/fixture.syscap"

cp "$work/$name" "$work/fixture.data" "$work/fixture.syscap" "$dest/"
chmod 644 "$dest/fixture.data" "$dest/fixture.syscap"

# The recording kernel's [vdso], laid out as perf's cache has it
# (.build-id/NN/REST -> ../../[vdso]/BUILD-ID holding vdso): the tests
# give the fixture directory as --symfs, which is searched as a build-id
# cache too.
vdso_id=$(perf buildid-list -i "$work/fixture.data" | awk '$2 == "[vdso]" { print $1 }')
if [ -z "$vdso_id" ] || ! [ -f "$work/home/.debug/[vdso]/$vdso_id/vdso" ]; then
  echo "make-fixture: perf kept no [vdso] in its build-id cache" >&2
  exit 1
fi
rm -rf "$dest/.build-id" "$dest/[vdso]"
mkdir -p "$dest/[vdso]/$vdso_id" "$dest/.build-id/$(echo "$vdso_id" | cut -c1-2)"
cp "$work/home/.debug/[vdso]/$vdso_id/vdso" "$dest/[vdso]/$vdso_id/vdso"
chmod 644 "$dest/[vdso]/$vdso_id/vdso"
ln -s "../../[vdso]/$vdso_id" \
  "$dest/.build-id/$(echo "$vdso_id" | cut -c1-2)/$(echo "$vdso_id" | cut -c3-)"
ls -lR "$dest"

# The recorded directory is gone once we exit; check the fixture now.
trap - EXIT
rm -rf "$work"
STACKTRACE=$st TESTS_DATA=$here/data "$here/integration/fixture-unwind.sh"
