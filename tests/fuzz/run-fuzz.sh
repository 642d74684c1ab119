#!/usr/bin/env bash
# make fuzz: builds the library and each fuzz target with clang's libFuzzer,
# AddressSanitizer and UBSan (in $builddir/fuzz-work), then runs each
# target for FUZZ_SECONDS on its corpus: the committed seeds, the
# committed regression inputs and what earlier runs found.  Crashes are
# left in fuzz-work/artifacts/TARGET/; copy them to
# tests/data/fuzz-regressions/TARGET/ once fixed, so that make check
# replays them.
#
# Environment: FUZZ_CC (clang), FUZZ_SECONDS (per target, default 60),
# FUZZ_TARGETS (default: all), FUZZ_JOBS (parallel targets, default 1),
# srcdir and builddir (absolute, set by make).
set -uo pipefail

: "${FUZZ_CC:?no fuzzing compiler: configure found no clang with -fsanitize=fuzzer (Debian: clang)}"
: "${srcdir:?}" "${builddir:?}"
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_TARGETS=${FUZZ_TARGETS:-capture-reader perf-file perf-pipe registers unwind eh-frame filter}
top_srcdir=$(cd "$srcdir/.." && pwd)
work=$builddir/fuzz-work
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
cflags="-g -O1 -fno-omit-frame-pointer $san"

mkdir -p "$work/build" || exit 1
if [ ! -f "$work/build/config.status" ]; then
  (cd "$work/build" && "$top_srcdir/configure" -q CC="$FUZZ_CC" \
     CFLAGS="$cflags -fsanitize=fuzzer-no-link") || exit 1
fi
make -s -C "$work/build/lib" -j2 || exit 1

pkgs="glib-2.0 libdw libelf libdebuginfod libzstd"
for t in $FUZZ_TARGETS; do
  # shellcheck disable=SC2046
  $FUZZ_CC $cflags -fsanitize=fuzzer -I"$top_srcdir/lib" -I"$work/build" \
    -DST_FIXTURE_DIR="\"$srcdir/data/fixture\"" $(pkg-config --cflags $pkgs) \
    "$srcdir/fuzz/fuzz-common.c" "$srcdir/fuzz/fuzz-$t.c" \
    "$work/build/lib/.libs/libstacktrace-internal.a" $(pkg-config --libs $pkgs) -liberty \
    -o "$work/fuzz-$t" || exit 1
done

run_one () {
  local t=$1 corpus=$work/corpus/$1 artifacts=$work/artifacts/$1/
  mkdir -p "$corpus" "$artifacts"
  local dirs=("$corpus" "$srcdir/fuzz/seeds/$t")
  [ -d "$srcdir/data/fuzz-regressions/$t" ] && dirs+=("$srcdir/data/fuzz-regressions/$t")
  echo "fuzz: $t for ${FUZZ_SECONDS}s"
  "$work/fuzz-$t" -max_total_time="$FUZZ_SECONDS" -max_len=65536 \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts" "${dirs[@]}" > "$work/$t.txt" 2>&1
  local rc=$?
  tail -n 12 "$work/$t.txt" | grep -E '^(stat::|Done|==|SUMMARY|artifact_prefix|Test unit)' || true
  echo "fuzz: $t exit status $rc, log $work/$t.txt"
  return $rc
}

failed=0
jobs=${FUZZ_JOBS:-1}
pids=()
for t in $FUZZ_TARGETS; do
  run_one "$t" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" || failed=$((failed + 1))
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do
  wait "$p" || failed=$((failed + 1))
done
found=$(find "$work/artifacts" -type f | wc -l)
echo "fuzz: $failed target(s) failed; $found input(s) in $work/artifacts"
[ "$failed" -eq 0 ]
