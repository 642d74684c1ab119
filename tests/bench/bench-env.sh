# Sourced by the benchmarks that reuse the test scripts' helpers
# (perf-report-bench.sh, priming-bench.sh): the tree, the build, the
# stacktrace binary (BUILDDIR, STACKTRACE may be set), then test-lib.sh
# (BENCH_KEEP=1 keeps its scratch directory).  Needs bench_dir set.
top=$(cd "$bench_dir/../.." && pwd)
: "${BUILDDIR:=$top/build}"
: "${STACKTRACE:=$BUILDDIR/src/stacktrace}"
export STACKTRACE
TESTS_SRCDIR=$top/tests
TESTS_BUILDDIR=$BUILDDIR/tests
export TESTS_SRCDIR TESTS_BUILDDIR
ST_KEEP_TMP=${BENCH_KEEP:-0}
# shellcheck source=../lib/test-lib.sh
. "$top/tests/lib/test-lib.sh"
