#!/usr/bin/env bash
# Builds stacktrace and runs its test suite: a normal build (in build/),
# one with AddressSanitizer and UBSan (gcc, in build-asan/), and, where
# clang is installed, the tests that do not hang on gcc's code layout
# with clang's AddressSanitizer and UBSan (in build-clang/: clang sees
# undefined behaviour that gcc's does not, such as arithmetic on a null
# pointer), and the threaded parts under clang's ThreadSanitizer (in
# build-tsan/; skipped where ThreadSanitizer cannot run).  The last line
# of the output is always "N passed, N failed, N skipped" over all runs;
# the exit status is 0 only when the builds succeeded and nothing failed.
#
#   ./run-tests.sh                all suites
#   ./run-tests.sh --normal       only the normal build, in build/
#   ./run-tests.sh --sanitize     only the ASan+UBSan build, in build-asan/
#   ./run-tests.sh --clang        only the clang ASan+UBSan build
#   ./run-tests.sh --tsan         only the clang ThreadSanitizer build
#   ./run-tests.sh --build-only   build (as selected), no tests, no summary
#
# STACKTRACE_CHECK_ARGS is added to the make check command line, with shell
# quoting, e.g. STACKTRACE_CHECK_ARGS="TESTS='unit/format/test-capture-reader'".
set -uo pipefail

top=$(cd "$(dirname "$0")" && pwd)
check=yes
total_passed=0 total_failed=0 total_skipped=0

suites="normal sanitize"
command -v clang >/dev/null 2>&1 && suites="$suites clang tsan"
for arg in "$@"; do
  case $arg in
    --sanitize)
      suites=sanitize ;;
    --normal)
      suites=normal ;;
    --clang)
      suites=clang ;;
    --tsan)
      suites=tsan ;;
    --build-only)
      check=no ;;
    -h|--help)
      sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "$0"
      exit 0 ;;
    *)
      echo "run-tests: unknown option '$arg' (try --help)" >&2
      exit 2 ;;
  esac
done

build_failed () {
  echo "run-tests: $1" >&2
  [ $check = yes ] && echo "$total_passed passed, $((total_failed + 1)) failed, $total_skipped skipped"
  exit 1
}

# Builds only what is missing: configure and config.status are reused, and
# the generated Makefiles regenerate themselves when their inputs change.
build () {
  bash "$top/tools/install-deps.sh" || build_failed "missing packages"
  cd "$top" || build_failed "cannot enter $top"
  if [ ! -x configure ]; then
    ./autogen.sh || build_failed "autogen.sh failed"
  fi
  if [ -f config.status ]; then
    build_failed "the source tree is configured in place; run 'make distclean' there first"
  fi
  mkdir -p "$builddir" || build_failed "cannot create $builddir"
  cd "$builddir" || build_failed "cannot enter $builddir"
  if [ ! -f config.status ]; then
    "$top/configure" "${configure_args[@]}" || build_failed "configure failed (see $builddir/config.log)"
  fi
  make -j2 || build_failed "make failed"
}

# Prints "RESULT: name" for every test result in the .trs files under
# tests/ and sets passed/failed/skipped; failed_logs lists the logs to show.
collect_results () {
  local trs name result trs_failed
  passed=0 failed=0 skipped=0 failed_logs=()
  while IFS= read -r trs; do
    name=${trs#./}
    name=${name%.trs}
    trs_failed=no
    while IFS= read -r result; do
      echo "$result: $name"
      case $result in
        PASS|XFAIL) passed=$((passed + 1)) ;;
        SKIP) skipped=$((skipped + 1)) ;;
        *) failed=$((failed + 1)); trs_failed=yes ;;
      esac
    done < <(sed -n 's/^:test-result: *\([A-Z]*\).*/\1/p' "$builddir/tests/$trs")
    [ $trs_failed = no ] || failed_logs+=("${trs%.trs}.log")
  done < <(cd "$builddir/tests" && find . -name '*.trs' | sort)
}

# Whether a program built with clang's ThreadSanitizer runs here (not on
# every kernel: its shadow memory needs a known address layout).
tsan_works () {
  local d
  d=$(mktemp -d "${TMPDIR:-/tmp}/st-tsan.XXXXXX") || { tsan_why="mktemp"; return 1; }
  printf '#include <pthread.h>\nstatic void *f (void *a) { return a; }\nint main (void) { pthread_t t; pthread_create (&t, 0, f, 0); return pthread_join (t, 0); }\n' >"$d/probe.c"
  if ! clang -fsanitize=thread -o "$d/probe" "$d/probe.c" -pthread >"$d/log" 2>&1; then
    tsan_why="clang -fsanitize=thread cannot build: $(head -n 1 "$d/log")"
  elif ! "$d/probe" >"$d/log" 2>&1; then
    tsan_why="$(head -n 1 "$d/log")"
  else
    rm -rf "$d"
    return 0
  fi
  rm -rf "$d"
  return 1
}

# run_suite NAME: builds in its directory and runs make check there,
# adding its results to the totals.
run_suite () {
  case $1 in
    normal) builddir=$top/build; configure_args=() ;;
    sanitize) builddir=$top/build-asan; configure_args=(--enable-sanitizers) ;;
    clang) builddir=$top/build-clang
      configure_args=(--enable-sanitizers CC=clang) ;;
    tsan) builddir=$top/build-tsan
      configure_args=(--enable-sanitizers=thread CC=clang) ;;
  esac
  if [ "$1" = tsan ] && [ $check = yes ] && ! tsan_works; then
    echo "tsan: skipped: ThreadSanitizer does not run here ($tsan_why)"
    total_skipped=$((total_skipped + 1))
    return 0
  fi
  echo "=== $1 build in $builddir ==="
  build
  [ $check = yes ] || return 0

  local check_args=()
  eval "check_args=(${STACKTRACE_CHECK_ARGS:-})"

  # Results of an earlier run must not be counted again.
  find "$builddir/tests" \( -name '*.trs' -o -name '*.log' \) -delete

  local target=check
  [ "$1" = clang ] && target=check-clang
  [ "$1" = tsan ] && target=check-tsan
  make -j2 "$target" "${check_args[@]}"
  local check_status=$?

  echo
  echo "=== test results ($1) ==="
  collect_results

  # make check can fail before any test runs, e.g. when a test does not build.
  if [ $check_status -ne 0 ] && [ $failed -eq 0 ]; then
    echo "ERROR: make check (exit status $check_status, no failed test result)"
    failed=$((failed + 1))
  fi

  # The failed checks first: a tail can end far from the check that
  # failed, and a reader of a shortened CI log sees only its top.
  for log in "${failed_logs[@]}"; do
    echo
    echo "=== failed checks in tests/${log#./} ($1) ==="
    grep -E '^(FAIL|ERROR|SKIP):|runtime error|AddressSanitizer' \
      "$builddir/tests/$log" | head -n 20
    echo "=== tail of tests/${log#./} ($1) ==="
    tail -n 40 "$builddir/tests/$log"
  done
  echo "$1: $passed passed, $failed failed, $skipped skipped"
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  total_skipped=$((total_skipped + skipped))
}

# Fail loudly, before building, when a committed fixture is missing.
if ! bash "$top/tools/check-fixtures.sh"; then
  [ $check = yes ] && echo "0 passed, 1 failed, 0 skipped"
  exit 1
fi

for suite in $suites; do
  run_suite "$suite"
done
[ $check = yes ] || exit 0
echo "$total_passed passed, $total_failed failed, $total_skipped skipped"
[ $total_failed -eq 0 ]
