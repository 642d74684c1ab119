#!/usr/bin/env bash
# Unwinding benchmark (make bench; not part of make check).  Records real
# captures with perf --call-graph=dwarf (8 KiB stack copies), or reuses
# them from a cache directory, and prints for each, in one run:
# samples/s, frames/s and peak RSS of stacktrace --engine fast (--jobs 1),
# of --engine dwfl and of `perf script --no-inline -F ip,sym` on the same
# capture, the ratios, and the targets of issue 4; then samples/s and
# peak RSS at --jobs 0 (one per processor) and the scaling
# from --jobs 1 (issue 33), and the same read through a pipe (cat |:
# not mapped, --priming defer); then the per-sample level of the library
# (tests/bench/session-bench.c: st_records_* into one StSession) against
# the command, whole run and steady state (issue 32).
#
#   unwind-bench.sh [--stacktrace PATH] [--cache DIR] [--rerecord]
#                   [--runs N] [--callgrind] [--only NAME...]
#
# Captures (NAME: what is recorded):
#   cc1      gcc -O2 -c of a large generated C file (gen-large-c.awk):
#            the single-process compile, cc1 is the process that matters
#   python   a CPU-bound python3 run
#   multi    400 short-lived processes (sort, gzip, md5sum, sed: ~20 ms
#            each), for the rate of a multi-process capture
#   procs1k  1,000 shorter-lived processes, for the peak RSS target
#
# Times are wall-clock seconds of the whole command (reading the
# capture, unwinding, writing a capture to /dev/null); fast is the best
# of --runs runs (default 3), dwfl and perf script run once.  A whole run
# includes one-time costs (start-up, opening modules, reading CFI rows
# for the first time, loading separate debug files); the "steady" column
# leaves them out: the capture is converted to a Sysprof capture holding
# its samples once and four times over, and steady = 3 x samples / (time
# of the four - time of the one).  The machine may be busy: --callgrind
# adds instructions per sample of the fast engine (valgrind, whole run),
# which do not depend on the load.
#
# Environment: ST_BENCH_CACHE (default ~/.cache/stacktrace-bench).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
stacktrace=${STACKTRACE:-$here/../../build/src/stacktrace}
cache=${ST_BENCH_CACHE:-$HOME/.cache/stacktrace-bench}
rerecord=no
runs=3
callgrind=no
only=()

while [ $# -gt 0 ]; do
  case $1 in
    --stacktrace) stacktrace=$2; shift ;;
    --cache) cache=$2; shift ;;
    --rerecord) rerecord=yes ;;
    --runs) runs=$2; shift ;;
    --callgrind) callgrind=yes ;;
    --only) shift; while [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; do only+=("$1"); shift; done; continue ;;
    -h|--help) sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    *) echo "unwind-bench: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done

# shellcheck source=bench-need.sh
. "$here/bench-need.sh"
bench_need unwind-bench

# perf record options: 4 kHz of CPU time (-c: not subject to a lowered
# perf_event_max_sample_rate), 8 KiB stack copies (perf's default).
record=(perf record -q -N -e cpu-clock -c 250000 --call-graph=dwarf,8192)

record_cc1 ()
{
  awk -v n=1500 -f "$here/gen-large-c.awk" >"$cache/large.c" || return 1
  (cd "$cache" && "${record[@]}" -o "$1" -- gcc -O2 -c large.c -o large.o)
}

record_python ()
{
  "${record[@]}" -o "$1" -- python3 -c '
import json, re, random
random.seed(1)
words = ["w%d" % i for i in range(5000)]
total = 0
for r in range(60):
    doc = {w: [random.random() for _ in range(5)] for w in words}
    s = json.dumps(doc, sort_keys=True)
    total += len(re.findall(r"w[0-9]+7", s))
    total += sum(sorted(len(x) for x in json.loads(s)))
print(total)' >/dev/null
}

# N short-lived processes, each working on BYTES of text (150 kB: a few
# milliseconds; 1 MB: some 20 ms).
record_procs ()
{
  local n=$2
  head -c "$3" /dev/urandom | base64 >"$cache/input.txt"
  "${record[@]}" -o "$1" -- sh -c '
    i=0
    while [ $i -lt '"$n"' ]; do
      case $((i % 4)) in
        0) sort "$0" >/dev/null ;;
        1) gzip -1 -c "$0" >/dev/null ;;
        2) md5sum "$0" >/dev/null ;;
        3) sed -n "s/[0-9]/x/gp" "$0" >/dev/null ;;
      esac
      i=$((i + 1))
    done' "$cache/input.txt"
}

capture ()
{
  local name=$1 data=$cache/$1.data
  if [ $rerecord = yes ] || [ ! -s "$data" ]; then
    echo "recording $name into $data ..." >&2
    case $name in
      cc1) record_cc1 "$data" ;;
      python) record_python "$data" ;;
      multi) record_procs "$data" 400 1000000 ;;
      procs1k) record_procs "$data" 1000 150000 ;;
    esac >"$cache/$name.record.log" 2>&1 || { cat "$cache/$name.record.log" >&2; die "recording $name failed"; }
  fi
  echo "$data"
}

# best_of LABEL CMD...: the fastest of RUNS runs of CMD (sets best, best_rss).
best_of ()
{
  local label=$1 i
  shift
  best=""
  for ((i = 0; i < runs; i++)); do
    timed "$label" "$@" || return 1
    if [ -z "$best" ] || awk -v a="$t_wall" -v b="$best" 'BEGIN { exit !(a < b) }'; then
      best=$t_wall
      best_rss=$t_rss
    fi
  done
}

# steady DATA SAMPLES: the fast engine's rate without one-time costs:
# the samples once, then four times over (a capture's frames after its
# 256-byte header repeated), samples x 3 / the difference.
steady ()
{
  local once=$work/once.syscap many=$work/many.syscap t1
  "$stacktrace" -m passthru -i "$1" -o "$once" -q || return 1
  { cat "$once"; for i in 1 2 3; do tail -c +257 "$once"; done; } >"$many"
  # Written back now, not while the runs are timed.
  sync "$once" "$many" 2>/dev/null || sync
  best_of once "$stacktrace" -i "$once" -o /dev/null || return 1
  t1=$best
  best_of many "$stacktrace" -i "$many" -o /dev/null || return 1
  awk -v n="$2" -v a="$t1" -v b="$best" 'BEGIN { printf "%.0f", (b > a ? 3 * n / (b - a) : 0) }'
  rm -f "$once" "$many"
}

# timed LABEL CMD...: runs CMD under /usr/bin/time (for the peak RSS);
# sets t_wall (seconds, to the microsecond: /usr/bin/time's own are
# hundredths) and t_rss (KB), and keeps CMD's stderr in $work/LABEL.err.
timed ()
{
  local label=$1 t0 t1
  shift
  warm_input "$@"
  t0=$EPOCHREALTIME
  /usr/bin/time -o "$work/$label.time" -f "%M" "$@" \
    >/dev/null 2>"$work/$label.err" || { tail -5 "$work/$label.err" >&2; return 1; }
  t1=$EPOCHREALTIME
  read -r t_rss <"$work/$label.time"
  t_wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
}

# The file after -i in CMD... read into the page cache: a machine may
# page out cold page cache behind our back (DAMON's proactive reclaim,
# kdamond, on the development VM), and then a run times the disk.
warm_input ()
{
  local prev=""
  for a in "$@"; do
    if [ "$prev" = -i ] && [ -f "$a" ]; then
      cat "$a" >/dev/null
    fi
    prev=$a
  done
}

rate () { awk -v n="$1" -v t="$2" 'BEGIN { printf "%.0f", (t > 0 ? n / t : 0) }'; }
ratio () { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'; }

work=$(mktemp -d "${TMPDIR:-/tmp}/st-bench.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$work"' EXIT

names=(cc1 python multi procs1k)
[ ${#only[@]} -gt 0 ] && names=("${only[@]}")

printf '%-8s %7s %5s | %9s %9s %9s %6s | %8s %6s | %8s %6s | %6s %6s\n' \
  capture samples fr/sm "fast s/s" "steady" "frames/s" "RSS MB" "dwfl s/s" \
  "RSS MB" "perf s/s" "RSS MB" "x dwfl" "x perf"
declare -A fast_rate fast_steady fast_rss jobs_rate jobs_rss jobs_scale
declare -A dwfl_scale api_rate api_steady pipe_rate pipe_jobs_rate
# The per-sample level, built on the public header against this build's
# library (skipped when either is missing).
api_bench=
libdir=$(dirname "$stacktrace")/../lib/.libs
if [ -f "$libdir/libstacktrace-1.so" ] \
   && ${CC:-cc} -O2 -std=c11 -I"$here/../../include" "$here/session-bench.c" \
        -L"$libdir" -lstacktrace-1 -Wl,-rpath,"$libdir" \
        -o "$work/session-bench" 2>"$work/session-bench.err"; then
  api_bench=$work/session-bench
fi
for name in "${names[@]}"; do
  data=$(capture "$name") || exit 1
  best_of fast "$stacktrace" --engine fast --jobs 1 -i "$data" -o /dev/null \
    || die "$name: fast failed"
  fast_wall=$best fast_mem=$best_rss
  samples=$(sed -n 's/^stacktrace: total: \([0-9]*\) samples.*/\1/p' "$work/fast.err")
  frames=$(sed -n 's/^stacktrace: \([0-9]*\) user frames.*/\1/p' "$work/fast.err")
  st=$(steady "$data" "$samples") || die "$name: steady-state run failed"
  timed dwfl "$stacktrace" --engine dwfl --jobs 1 -i "$data" -o /dev/null || die "$name: dwfl failed"
  dwfl_wall=$t_wall dwfl_rss=$t_rss
  # The libdwfl engine is unwinding-bound (the walk is nearly all of
  # it): the scaling of the walk itself.
  timed dwfl_jobs "$stacktrace" --engine dwfl --jobs 0 -i "$data" -o /dev/null \
    || die "$name: dwfl at --jobs 0 failed"
  dwfl_scale[$name]=$(ratio "$dwfl_wall" "$t_wall")
  timed perf perf script -i "$data" --no-inline -F ip,sym || die "$name: perf script failed"
  perf_wall=$t_wall perf_rss=$t_rss

  f=$(rate "$samples" "$fast_wall")
  fast_rate[$name]=$f
  fast_steady[$name]=$st
  fast_rss[$name]=$fast_mem
  best_of jobs "$stacktrace" --engine fast --jobs 0 -i "$data" -o /dev/null \
    || die "$name: --jobs 0 failed"
  jobs_rate[$name]=$(rate "$samples" "$best")
  jobs_rss[$name]=$best_rss
  jobs_scale[$name]=$(ratio "$fast_wall" "$best")
  # Through a pipe: the whole of `cat | stacktrace` (the "-i FILE" pair
  # is for warm_input).
  for j in 1 0; do
    best_of pipe sh -c 'cat "$2" | "$3" --jobs "$4" -i - -o /dev/null' _ \
      -i "$data" "$stacktrace" "$j" || die "$name: through a pipe failed"
    if [ "$j" = 1 ]; then
      pipe_rate[$name]=$(rate "$samples" "$best")
    else
      pipe_jobs_rate[$name]=$(rate "$samples" "$best")
    fi
  done
  if [ -n "$api_bench" ]; then
    # Best of RUNS, each pass on its own.
    read -r api_n api_whole api_warm < <(
      for _ in $(seq "$runs"); do "$api_bench" "$data" || exit 1; done \
        | awk 'NR == 1 || $2 < w { w = $2 } NR == 1 || $3 < s { s = $3 }
               { n = $1 } END { print n, w, s }') || die "$name: session-bench failed"
    api_rate[$name]=$(rate "$api_n" "$api_whole")
    api_steady[$name]=$(rate "$api_n" "$api_warm")
  fi
  printf '%-8s %7d %5s | %9s %9s %9s %6d | %8s %6d | %8s %6d | %6s %6s\n' \
    "$name" "$samples" "$(ratio "$frames" "$samples")" "$f" "$st" \
    "$(rate "$frames" "$fast_wall")" $((fast_mem / 1024)) \
    "$(rate "$samples" "$dwfl_wall")" $((dwfl_rss / 1024)) \
    "$(rate "$samples" "$perf_wall")" $((perf_rss / 1024)) \
    "$(ratio "$dwfl_wall" "$fast_wall")" "$(ratio "$perf_wall" "$fast_wall")"
  if [ $callgrind = yes ] && command -v valgrind >/dev/null; then
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
      "$stacktrace" --jobs 1 -i "$data" -o /dev/null -q 2>"$work/cg.err"
    ir=$(sed -n 's/.*refs: *\([0-9,]*\).*/\1/p' "$work/cg.err" | tr -d ,)
    echo "         callgrind: $(ratio "${ir:-0}" "$samples") instructions per sample (fast, whole run)"
  fi
done

echo
echo "--jobs (issue 33): fast engine, whole run, --jobs 0" \
  "($(getconf _NPROCESSORS_ONLN) processors) against --jobs 1:"
printf '%-8s %9s %9s %6s %6s %6s | %7s\n' capture "j1 s/s" "jN s/s" "x j1" \
  "RSS j1" "RSS jN" "dwfl x"
for name in "${names[@]}"; do
  printf '%-8s %9s %9s %6s %6d %6d | %7s\n' "$name" "${fast_rate[$name]}" \
    "${jobs_rate[$name]}" "${jobs_scale[$name]}" \
    $((fast_rss[$name] / 1024)) $((jobs_rss[$name] / 1024)) \
    "${dwfl_scale[$name]}"
done
echo "  (dwfl x: the libdwfl engine, unwinding-bound, at --jobs 0" \
     "--jobs against --jobs 1, one run each)"
echo
echo "Through a pipe (cat FILE | stacktrace -i -: read, not mapped," \
     "--priming defer), whole run:"
printf '%-8s %9s %9s %9s\n' capture "j1 s/s" "jN s/s" "x file"
for name in "${names[@]}"; do
  printf '%-8s %9s %9s %9s\n' "$name" "${pipe_rate[$name]}" \
    "${pipe_jobs_rate[$name]}" "$(ratio "${pipe_rate[$name]}" "${fast_rate[$name]}")"
done
echo "  (x file: --jobs 1 through the pipe against --jobs 1 from the file)"

if [ -n "$api_bench" ]; then
  echo
  echo "The per-sample level (issue 32): session-bench (st_records_* into" \
       "one StSession, nothing written) against the command (--jobs 1):"
  printf '%-8s %9s %9s %6s | %9s %9s %6s\n' capture "cmd s/s" "api s/s" \
    "x cmd" "cmd stdy" "api stdy" "x cmd"
  for name in "${names[@]}"; do
    printf '%-8s %9s %9s %6s | %9s %9s %6s\n' "$name" "${fast_rate[$name]}" \
      "${api_rate[$name]}" "$(ratio "${api_rate[$name]}" "${fast_rate[$name]}")" \
      "${fast_steady[$name]}" "${api_steady[$name]}" \
      "$(ratio "${api_steady[$name]}" "${fast_steady[$name]}")"
  done
  echo "  (api stdy: a second pass, a new session on the warm cache;" \
       "cmd stdy: the steady column above)"
fi

echo
echo "Targets (issue 4), this run:"
check ()
{
  if awk "BEGIN { exit !($2) }"; then echo "  met:     $1"; else echo "  not met: $1"; fi
}
if [ -n "${fast_rate[cc1]:-}" ]; then
  check "cc1 >= 500000 samples/s, whole run (${fast_rate[cc1]})" "${fast_rate[cc1]} >= 500000"
  check "cc1 >= 500000 samples/s, steady (${fast_steady[cc1]})" "${fast_steady[cc1]} >= 500000"
fi
if [ -n "${fast_rate[cc1]:-}" ] && [ -n "${fast_rate[multi]:-}" ]; then
  check "multi-process within 2x of cc1 per sample (${fast_rate[multi]} vs ${fast_rate[cc1]})" \
    "${fast_rate[multi]} * 2 >= ${fast_rate[cc1]}"
fi
if [ -n "${fast_rss[procs1k]:-}" ]; then
  check "peak RSS < 300 MB on 1,000 processes ($((fast_rss[procs1k] / 1024)) MB)" \
    "${fast_rss[procs1k]} < 300 * 1024"
fi
for name in "${names[@]}"; do
  [ -n "${api_rate[$name]:-}" ] || continue
  check "$name: the per-sample level at least the command's samples/s, steady (${api_steady[$name]} vs ${fast_steady[$name]}; issue 32)" \
    "${api_steady[$name]} >= ${fast_steady[$name]}"
done
echo "  (>= 10x dwfl and >= 40x perf script: the x dwfl and x perf columns)"
