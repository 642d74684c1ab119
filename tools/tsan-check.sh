#!/usr/bin/env bash
# ThreadSanitizer check of the worker threads (JIT-style priming, and
# --jobs' unwinding workers): not
# part of make check or CI (a third build, slow).  Builds stacktrace with
# -fsanitize=thread (configure --enable-sanitizers=thread) in build-tsan/
# (or DIR), then runs under it the unit
# tests of the threaded parts and integration scripts with stacktrace
# forced to --priming defer and to --priming drop, and counts the
# reports.  With drop the scripts' own checks fail (drop changes the
# results); only the reports count.  Exit status 0 when there is none.
#
#   tools/tsan-check.sh [DIR]
#
# G_SLICE=always-malloc: GSlice's per-thread magazines hand memory
# between threads behind GLib's back, which ThreadSanitizer reports as
# races on whatever is allocated there.  tools/tsan.supp says what else
# is left out and why.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${1:-$top/build-tsan}
logs=$builddir/tsan-logs

mkdir -p "$builddir" && cd "$builddir" || exit 2
if [ ! -f config.status ]; then
  "$top/configure" --enable-sanitizers=thread >configure.log 2>&1 \
    || { tail configure.log; exit 2; }
fi
make -j2 >make.log 2>&1 && make -j2 -C tests check TESTS= >>make.log 2>&1 \
  || { tail make.log; exit 2; }

rm -rf "$logs"
mkdir -p "$logs"
export G_SLICE=always-malloc
export TSAN_OPTIONS="halt_on_error=0 suppressions=$top/tools/tsan.supp log_path=$logs/tsan"

for t in util/test-worker-pool model/test-module-cache test-reorder \
         test-parallel-unwind \
         test-priming model/test-debuginfod-fetch api/test-session-threads; do
  echo "== unit/$t"
  log=$logs/$(basename "$t").out
  "$builddir/tests/unit/$t" >"$log" 2>&1
  grep -E '^(not )?ok' "$log"
done

# --no-sandbox: as root stacktrace sandboxes itself, and its system call
# filter kills the run when ThreadSanitizer forks its symbolizer to print
# a report (SIGSYS, exit status 159): the report is never written.
cat >"$builddir/st-primed" <<WRAP
#!/bin/sh
exec "$builddir/src/stacktrace" --no-sandbox --priming "\$ST_TSAN_PRIMING" "\$@"
WRAP
chmod +x "$builddir/st-primed"
cat >"$builddir/st-unsandboxed" <<WRAP
#!/bin/sh
exec "$builddir/src/stacktrace" --no-sandbox "\$@"
WRAP
chmod +x "$builddir/st-unsandboxed"
run_script ()
{
  STACKTRACE=$2 TESTS_SRCDIR=$top/tests TESTS_BUILDDIR=$builddir/tests \
    TESTS_DATA=$top/tests/data sh "$top/tests/integration/$1" \
    >"$logs/$1.$ST_TSAN_PRIMING.out" 2>&1
  echo "== $1 (--priming $ST_TSAN_PRIMING): exit status $?"
}
cd "$builddir/tests" || exit 2
for mode in defer drop; do
  export ST_TSAN_PRIMING=$mode
  for s in fixture-unwind.sh debuginfod-fallback.sh perf-record-unwind.sh; do
    run_script "$s" "$builddir/st-primed"
  done
done
export ST_TSAN_PRIMING=default
# (jobs-identical.sh runs everything at --jobs 2 and 8: the workers.)
for s in priming.sh many-processes.sh jobs-identical.sh; do
  run_script "$s" "$builddir/st-unsandboxed"
done

n=$(cat "$logs"/tsan.* 2>/dev/null | grep -c '^WARNING: ThreadSanitizer')
echo "ThreadSanitizer reports: $n (in $logs/tsan.*)"
cat "$logs"/tsan.* 2>/dev/null | grep '^SUMMARY' | sort | uniq -c
[ "$n" -eq 0 ]
