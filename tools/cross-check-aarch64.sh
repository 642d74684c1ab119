#!/bin/sh
# stacktrace built for aarch64 and run under qemu-aarch64 (issue 24,
# part 4): a recording unwound on another architecture than its own.
#   1. configures and builds the tree for aarch64-linux-gnu in BUILDDIR
#      (Debian's cross compiler and the :arm64 -dev packages);
#   2. runs the unit tests there under qemu-aarch64 (among them
#      test-arch-samples: the aarch64 and i386 samples of tests/data/arch
#      against gdb's backtraces), but those that cannot run under
#      qemu-user or check x86_64 facts of the host (HOST_ONLY below);
#   3. unwinds the committed x86_64 recordings (tests/data/fixture and
#      fixture-lld, perf.data and capture, both engines) with the aarch64
#      build and with the native one (NATIVE), and requires the same
#      chains and the same output, byte for byte.
# Not part of make check (the cross build alone takes about a minute on
# two cores, the unit tests under qemu three more): make
# cross-check-aarch64.  Exits 77 (skip) without the cross tools.
#
# Usage: tools/cross-check-aarch64.sh [BUILDDIR]   (default: build-aarch64
#        in the source tree)
# Environment: NATIVE (the native stacktrace, default build/src/stacktrace
# in the source tree), ST_CROSS_UNIT=0 skips step 2.
# Packages (Debian 12): gcc-aarch64-linux-gnu qemu-user, and after
# dpkg --add-architecture arm64: libdw-dev:arm64 libelf-dev:arm64
# libglib2.0-dev:arm64 libzstd-dev:arm64 libdebuginfod-dev:arm64
# libiberty-dev:arm64 (doc/TESTING: what apt-get -s showed).
set -u

srcdir=$(cd "$(dirname "$0")/.." && pwd)
builddir=${1:-$srcdir/build-aarch64}
native=${NATIVE:-$srcdir/build/src/stacktrace}
host=aarch64-linux-gnu

# Tests that do not apply here, and why.
#  - start aarch64 programs of their own: qemu-user runs only the first
#    (a child needs binfmt_misc, which a container may not have);
#  - check the host's test programs against x86_64 facts (EM_X86_64,
#    x86_64's return address column, no ARM mapping symbols, which
#    libdwfl names frames after and stacktrace skips);
#  - sample or inspect live processes, which under qemu-user are the
#    emulator's (its /proc, its path translation).
HOST_ONLY="unit/model/test-debuginfod-library integration/test-live-filter
 unit/model/test-module-file unit/unwind/test-process-modules
 unit/unwind/test-rule-cache unit/unwind/test-eh-frame
 unit/report/test-symbolizer
 unit/model/test-load-bias unit/model/test-process-roots
 unit/unwind/test-dwfl-unwinder unit/unwind/test-fast-unwinder"

skip ()
{
  echo "cross-check-aarch64: $*, skipped" >&2
  exit 77
}

for tool in $host-gcc $host-pkg-config qemu-aarch64; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool is missing"
done
for pc in glib-2.0 libdw libelf libzstd libdebuginfod; do
  $host-pkg-config --exists "$pc" || skip "$pc for arm64 is missing"
done
[ -x "$native" ] || skip "no native stacktrace at $native (NATIVE)"
[ -f "$srcdir/configure" ] || skip "run ./autogen.sh first"

mkdir -p "$builddir" || exit 1
cd "$builddir" || exit 1
if [ ! -f Makefile ]; then
  "$srcdir/configure" --host=$host >configure.log 2>&1 || {
    tail -n 20 configure.log
    echo "cross-check-aarch64: configure failed ($builddir/configure.log)" >&2
    exit 1
  }
fi
make -j2 >make.log 2>&1 || {
  tail -n 20 make.log
  echo "cross-check-aarch64: the build failed ($builddir/make.log)" >&2
  exit 1
}
echo "== built $(file -b src/stacktrace | cut -d, -f1-2)"

failed=0
if [ "${ST_CROSS_UNIT:-1}" != 0 ]; then
  all=$(make -s -C tests -f Makefile -f - print-unit-tests <<'EOF'
print-unit-tests:
	@echo $(UNIT_TESTS)
EOF
)
  run=
  for t in $all; do
    case " $(echo $HOST_ONLY) " in
      *" $t "*) ;;
      *) run="$run $t" ;;
    esac
  done
  echo "== unit tests under qemu-aarch64 ($(echo $run | wc -w) of" \
       "$(echo $all | wc -w); not these: $(echo $HOST_ONLY))"
  # Through libtool: the tests of the shared library are wrapper scripts
  # that set the library path for the binary in .libs.
  make -j2 -C tests check TESTS="$run" \
    LOG_COMPILER="$(pwd)/libtool --mode=execute qemu-aarch64" \
    >unit-check.log 2>&1
  grep -E '^(FAIL|ERROR|XPASS)|^# (TOTAL|PASS|SKIP|FAIL|ERROR)' unit-check.log
  grep -qE '^# (FAIL|ERROR): +[1-9]' unit-check.log && failed=1
  grep -q '^# TOTAL' unit-check.log || failed=1
fi

echo "== x86_64 recordings unwound by the aarch64 build"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/home"
for fx in fixture fixture-lld; do
  dir=$srcdir/tests/data/$fx
  for input in fixture.data fixture.syscap; do
    for engine in fast dwfl; do
      label="$fx/$input --engine=$engine"
      for build in native aarch64; do
        if [ $build = native ]; then
          cmd=$native
        else
          cmd="qemu-aarch64 src/stacktrace"
        fi
        # shellcheck disable=SC2086
        HOME=$tmp/home $cmd -i "$dir/$input" --symfs "$dir" \
          --buildid-dir "$dir" --engine=$engine -o "$tmp/$build.out" \
          --chains "$tmp/$build.chains" 2>"$tmp/$build.err" || {
          echo "$label: the $build build failed:"
          tail -n 5 "$tmp/$build.err"
          failed=1
        }
      done
      if ! cmp -s "$tmp/native.chains" "$tmp/aarch64.chains"; then
        echo "$label: the chains differ"
        diff "$tmp/native.chains" "$tmp/aarch64.chains" | head -n 6
        failed=1
      elif ! cmp -s "$tmp/native.out" "$tmp/aarch64.out"; then
        echo "$label: the same chains, but the output differs"
        failed=1
      else
        echo "$label: $(wc -l <"$tmp/aarch64.chains") chains and the" \
             "output identical"
      fi
    done
  done
done
[ $failed = 0 ] && echo "cross-check-aarch64: passed"
exit $failed
