#!/bin/sh
# Benchmark, not a test: the time perf report takes on a raw
# --call-graph=dwarf recording (perf unwinds every sample itself) against
# stacktrace --output-format perf on the same recording plus perf report
# on the converted file (callchains only), all in one run.
#
# Usage: tests/bench/perf-report-bench.sh [PERF.DATA]
#   PERF.DATA  a recording to reuse; by default one is made of
#              $BENCH_PROG (deep-recursion) running $BENCH_MS ms (5000)
#              of CPU time, or of sh -c "$BENCH_CMD" when that is set,
#              sampled every 0.5 ms of CPU time with 8 KiB stack copies
# Environment:
#   STACKTRACE  the command (default: BUILDDIR/src/stacktrace)
#   BUILDDIR    the build tree (default: build/ next to tests/)
#   BENCH_KEEP=1  keep the scratch directory
#
# Each step runs once, under /usr/bin/time when there is one (wall-clock
# seconds and peak RSS), in this order:
#   1. perf report --stdio on the raw recording (default options)
#   2. stacktrace --output-format perf, raw recording -> converted file
#   3. perf report --stdio on the converted file
#   4, 5. the same two reports as folded call paths without inlined
#   frames, whose agreement is printed (the share of samples on the same
#   user path, as tests/perf-output.sh measures it).
# Timings depend on the machine and its load: rerun on a quiet machine.
set -u

bench_dir=$(cd "$(dirname "$0")" && pwd)
: "${BENCH_PROG:=deep-recursion}"
: "${BENCH_MS:=5000}"
# shellcheck source=bench-env.sh
. "$bench_dir/bench-env.sh"

[ -x "$STACKTRACE" ] || die "no stacktrace at $STACKTRACE (build first: ./run-tests.sh --build-only)"
command -v perf >/dev/null 2>&1 || die "perf is not installed"

# run_timed LABEL OUTFILE CMD...: runs CMD with its output to OUTFILE,
# prints and remembers (as t_LABEL, m_LABEL) seconds and peak RSS in MiB.
run_timed ()
{
  rt_label=$1
  rt_out=$2
  shift 2
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "%e %M" -o "$tmp/$rt_label.time" "$@" >"$rt_out" \
      2>"$tmp/$rt_label.err" || { cat "$tmp/$rt_label.err"; die "$rt_label failed"; }
    read -r rt_s rt_kb <"$tmp/$rt_label.time"
    rt_mb=$(awk -v kb="$rt_kb" 'BEGIN { printf "%.0f", kb / 1024 }')
  else
    rt_start=$(date +%s.%N)
    "$@" >"$rt_out" 2>"$tmp/$rt_label.err" \
      || { cat "$tmp/$rt_label.err"; die "$rt_label failed"; }
    rt_s=$(awk -v a="$rt_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
    rt_mb="?"
  fi
  eval "t_$rt_label=\$rt_s; m_$rt_label=\$rt_mb"
  printf '%-46s %8.2f s   peak RSS %5s MiB\n' "$rt_label:" "$rt_s" "$rt_mb"
}

if [ $# -ge 1 ]; then
  raw=$1
  [ -r "$raw" ] || die "cannot read $raw"
elif [ -n "${BENCH_CMD:-}" ]; then
  raw=$tmp/raw.data
  echo "recording: sh -c '$BENCH_CMD'"
  $ST_PERF_RECORD -o "$raw" -- sh -c "$BENCH_CMD" >"$tmp/record.log" 2>&1 \
    || { cat "$tmp/record.log"; die "perf record failed"; }
else
  prog=$TESTS_BUILDDIR/progs/$BENCH_PROG
  if [ ! -x "$prog" ]; then
    make -C "$TESTS_BUILDDIR" "progs/$BENCH_PROG" >/dev/null \
      || die "cannot build $prog"
  fi
  raw=$tmp/raw.data
  echo "recording $BENCH_PROG for $BENCH_MS ms of CPU time..."
  (cd "$TESTS_BUILDDIR" && $ST_PERF_RECORD -o "$raw" -- "$prog" "$BENCH_MS") \
    >"$tmp/record.log" 2>&1 || { cat "$tmp/record.log"; die "perf record failed"; }
fi

conv=$tmp/converted.data
echo "machine: $(uname -m), $(getconf _NPROCESSORS_ONLN) CPUs, load average" \
     "$(cut -d' ' -f1-3 /proc/loadavg)"
echo "recording: $raw, $(du -k "$raw" | cut -f1) KiB"

run_timed perf_report_raw "$tmp/report-raw.txt" \
  perf report -i "$raw" --stdio
run_timed stacktrace "$tmp/stacktrace.out" \
  "$STACKTRACE" -i "$raw" --output-format perf -o "$conv"
run_timed perf_report_converted "$tmp/report-converted.txt" \
  perf report -i "$conv" --stdio
echo "converted: $(du -k "$conv" | cut -f1) KiB;" \
     "$(sed -n 's/^stacktrace: total: //p' "$tmp/stacktrace.err")"
awk -v raw="$t_perf_report_raw" -v st="$t_stacktrace" \
    -v conv="$t_perf_report_converted" 'BEGIN {
  sum = st + conv
  ratio = sum > 0 && raw > 0 ? (raw >= sum ? raw / sum : sum / raw) : 0
  printf("%-46s %8.2f s   (%.1fx %s than perf report on the raw " \
         "recording)\n", "stacktrace + perf report:", sum, ratio,
         raw >= sum ? "faster" : "slower")
}'

run_timed perf_report_raw_folded "$tmp/raw.folded.raw" \
  perf report -i "$raw" --stdio --no-children --no-inline --percent-limit 0 \
    -g folded,0,caller,count
run_timed perf_report_converted_folded "$tmp/conv.folded.raw" \
  perf report -i "$conv" --stdio --no-children --no-inline --percent-limit 0 \
    -g folded,0,caller,count
grep -E '^[0-9]+ ' "$tmp/raw.folded.raw" >"$tmp/raw.folded"
grep -E '^[0-9]+ ' "$tmp/conv.folded.raw" >"$tmp/conv.folded"
perf script -i "$raw" --ns --no-inline -F tid,time,ip,sym >"$tmp/raw.script" \
  2>/dev/null
# For information: perf's own unwinding can stop early or skip frames
# (tests/perf-output.sh is the checked comparison).
ST_MIN_COMPARED=1 compare_perf_reports agreement "$tmp/raw.folded" \
  "$tmp/conv.folded" "$tmp/raw.script" || true
