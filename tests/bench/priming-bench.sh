#!/bin/sh
# Benchmark, not a test: JIT-style priming on a live workload of many
# short-lived processes (the loop of tests/many-processes.sh), recorded
# with perf --call-graph=dwarf in pipe mode straight into stacktrace, once
# per run and priming mode.  Prints, per run, the samples, the success
# rate, the unprimed samples, the rate in the first 100 ms of sample time
# (where modules are new) and after, and defer's waits; then the means.
#
# Usage: tests/bench/priming-bench.sh [--runs N] [--rounds N] [--fresh]
#                                      [--modes "sync drop defer"]
#   --runs N    runs per mode (default 5)
#   --rounds N  rounds of the loop (default 120, six processes each)
#   --fresh     every round runs a fresh copy of a test program (a new
#               file: a module never seen before), as a build-and-test
#               loop would, so that modules keep appearing
# Environment: STACKTRACE, BUILDDIR as for the other benchmarks;
#   BENCH_KEEP=1 keeps the scratch directory.
# The numbers depend on the machine and its load (how far samples can
# overtake the workers): rerun on a quiet machine.
set -u

bench_dir=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench-env.sh
. "$bench_dir/bench-env.sh"

runs=5
rounds=120
fresh=0
modes="sync drop defer"
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --fresh) fresh=1 ;;
    --modes) modes=$2; shift ;;
    *) die "unknown argument '$1' (see the comment at the top)" ;;
  esac
  shift
done

need_stacktrace
need_perf
need_progs
counters_tool=$TESTS_BUILDDIR/harness/capture-counters
[ -x "$counters_tool" ] || die "harness/capture-counters not built (make check builds it)"

fresh_line=
[ "$fresh" = 1 ] \
  && fresh_line="cp progs/deep-recursion \"$tmp/fresh-\$i\" && \"$tmp/fresh-\$i\" 3"
many_processes_workload "$tmp/workload.sh" "$rounds" "$fresh_line"

stat_of ()
{
  sed -n "s/^$2=//p" "$1"
}

echo "workload: $rounds rounds$( [ "$fresh" = 1 ] && echo ', a fresh program each round'), $runs run(s) per mode"
printf '%-6s %4s %8s %8s %9s %10s %10s %8s\n' mode run samples rate unprimed 'first .1s' 'after' waits
for mode in $modes; do
  r=0
  while [ "$r" -lt "$runs" ]; do
    r=$((r + 1))
    out=$tmp/$mode-$r
    # shellcheck disable=SC2086
    { $ST_PERF_RECORD -o - -- sh -c "exec sh '$tmp/workload.sh' >/dev/null" \
        2>"$out.record.log"; } \
      | "$STACKTRACE" --priming "$mode" --counters-interval 100 \
          -o "$out.syscap" --stats-file "$out.stats" 2>"$out.err" \
      || { cat "$out.err"; die "stacktrace failed"; }
    "$counters_tool" "$out.syscap" >"$out.counters" || die "no counters"
    # The rate in the first 100 ms of sample time (to the first set of
    # counters after the definition) and in the rest.
    first=$(awk 'NR == 2 { printf "%d %d", $2, $3 }' "$out.counters")
    awk -v mode="$mode" -v run="$r" -v firsts="$first" \
        -v samples="$(stat_of "$out.stats" samples)" \
        -v unwound="$(stat_of "$out.stats" unwound_to_root)" \
        -v unprimed="$(stat_of "$out.stats" unprimed)" \
        -v waits="$(stat_of "$out.stats" priming.waits)" 'BEGIN {
      split(firsts, f, " ")
      first = f[1] ? 100 * f[2] / f[1] : 100
      rest = samples > f[1] ? 100 * (unwound - f[2]) / (samples - f[1]) : 100
      printf "%-6s %4d %8d %7.2f%% %9d %9.2f%% %9.2f%% %8s\n", mode, run,
             samples, 100 * unwound / samples, unprimed, first, rest, waits
    }' | tee -a "$tmp/table"
  done
done
echo "means:"
awk '{ n[$1]++; s[$1] += $3; r[$1] += $4; u[$1] += $5; f[$1] += $6; a[$1] += $7 }
     END { for (m in n)
             printf "%-6s samples %7.0f  rate %6.2f%%  unprimed %6.1f  first .1s %6.2f%%  after %6.2f%%\n",
                    m, s[m] / n[m], r[m] / n[m], u[m] / n[m], f[m] / n[m], a[m] / n[m] }' \
  "$tmp/table"
