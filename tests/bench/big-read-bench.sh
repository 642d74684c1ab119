#!/usr/bin/env bash
# Reading benchmark (make bench; not part of make check): a recording of
# more than 4 GB against dd, in one run.  The recording is made once and
# kept in the cache directory with the other benchmark recordings:
# `perf record -e cpu-clock -F 20000 --call-graph=dwarf,8192` of two
# `gcc -O2 -c` of the file gen-large-c.awk writes for the cc1 benchmark
# (some 600,000 samples, 5.2 GB).  Then, each --runs times (default 3),
# interleaved so that a change of load hits them alike: `dd bs=1M` of the
# file to /dev/null, stacktrace's whole run (a capture to /dev/null) at
# --jobs 1 and at --jobs 0 (one thread per processor) and `stacktrace -m
# none` (reading and decoding only); it prints the medians, their ratios
# to dd, the CPU time (user + system) and the peak RSS of each, the
# targets of issue 25 (whole <= 1.5x dd, -m none <= 1.2x dd, peak RSS <=
# 64 MB) and of issue 33 (--jobs 0 <= 1.2x dd, -m none <= 1.1x dd,
# --jobs 0 1.5x faster than --jobs 1).  The file is read before each
# run, so that every run finds it in the page cache (when it fits).
#
#   big-read-bench.sh [--stacktrace PATH] [--cache DIR] [--rerecord]
#                     [--runs N]
#
# Environment: ST_BENCH_CACHE (default ~/.cache/stacktrace-bench).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
stacktrace=${STACKTRACE:-$here/../../build/src/stacktrace}
cache=${ST_BENCH_CACHE:-$HOME/.cache/stacktrace-bench}
rerecord=no
runs=3
while [ $# -gt 0 ]; do
  case $1 in
    --stacktrace) stacktrace=$2; shift ;;
    --cache) cache=$2; shift ;;
    --rerecord) rerecord=yes ;;
    --runs) runs=$2; shift ;;
    -h|--help) sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    *) echo "big-read-bench: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done

# shellcheck source=bench-need.sh
. "$here/bench-need.sh"
bench_need big-read-bench

data=$cache/big.data
if [ $rerecord = yes ] || [ ! -s "$data" ]; then
  echo "recording big into $data (about 5 GB, a few minutes) ..." >&2
  awk -v n=1500 -f "$here/gen-large-c.awk" >"$cache/big.c" \
    || die "gen-large-c.awk failed"
  (cd "$cache" && perf record -q -N -e cpu-clock -F 20000 \
     --call-graph=dwarf,8192 -o "$data" -- \
     sh -c 'for i in 1 2; do gcc -O2 -c big.c -o big.o; done') \
    >"$cache/big.record.log" 2>&1 \
    || { cat "$cache/big.record.log" >&2; die "recording failed"; }
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/st-bigread.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$work"' EXIT

# timed NAME CMD...: appends "wall cpu rss_kb" to $work/NAME.  The
# recording is read into the page cache first, every time: a machine
# may page out cold page cache behind our back (DAMON's proactive
# reclaim, kdamond, on the development VM), and then a run times the
# disk.
timed ()
{
  local name=$1 t0 t1
  shift
  cat "$data" >/dev/null
  t0=$EPOCHREALTIME
  /usr/bin/time -o "$work/time" -f "%U %S %M" "$@" >/dev/null 2>"$work/err" \
    || { tail -5 "$work/err" >&2; die "$name failed"; }
  t1=$EPOCHREALTIME
  read -r u s m <"$work/time"
  awk -v a="$t0" -v b="$t1" -v u="$u" -v s="$s" -v m="$m" \
    'BEGIN { printf "%.3f %.2f %d\n", b - a, u + s, m }' >>"$work/$name"
}
median () { sort -n -k"$2" "$work/$1" | awk -v k="$2" '{ v[NR] = $k } END { print v[int((NR + 1) / 2)] }'; }
peak () { sort -n -k3 "$work/$1" | tail -1 | awk '{ printf "%.0f", $3 / 1024 }'; }

size=$(stat -c %s "$data")
echo "big: $data, $size bytes; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((i = 0; i < runs; i++)); do
  timed dd dd if="$data" of=/dev/null bs=1M
  timed whole "$stacktrace" -q -i "$data" -o /dev/null
  timed jobs "$stacktrace" -q --jobs 0 -i "$data" -o /dev/null
  timed none "$stacktrace" -q -m none -i "$data" -o /dev/null
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

dd_wall=$(median dd 1)
printf '%-22s %9s %8s %9s %8s\n' "median of $runs" "wall s" "x dd" "cpu s" "RSS MB"
for name in dd whole jobs none; do
  w=$(median $name 1)
  label=$name
  [ $name = whole ] && label="stacktrace (whole)"
  [ $name = jobs ] && label="--jobs 0 ($(getconf _NPROCESSORS_ONLN) CPUs)"
  [ $name = none ] && label="stacktrace -m none"
  printf '%-22s %9s %8s %9s %8s\n' "$label" "$w" \
    "$(awk -v a="$w" -v b="$dd_wall" 'BEGIN { printf "%.2f", a / b }')" \
    "$(median $name 2)" "$(peak $name)"
done
whole_x=$(awk -v a="$(median whole 1)" -v b="$dd_wall" 'BEGIN { printf "%.2f", a / b }')
none_x=$(awk -v a="$(median none 1)" -v b="$dd_wall" 'BEGIN { printf "%.2f", a / b }')
rss=$(( $(peak whole) > $(peak none) ? $(peak whole) : $(peak none) ))
check () { awk -v v="$2" -v t="$3" 'BEGIN { exit !(v <= t) }' && r=met || r=MISSED; echo "target $1 <= $3: $2 ($r)"; }
check "whole run x dd" "$whole_x" 1.5
check "-m none x dd" "$none_x" 1.2
check "peak RSS MB" "$rss" 64
# Issue 33's ("every core"): the whole run at one thread per processor.
jobs_x=$(awk -v a="$(median jobs 1)" -v b="$dd_wall" 'BEGIN { printf "%.2f", a / b }')
jobs_up=$(awk -v a="$(median whole 1)" -v b="$(median jobs 1)" 'BEGIN { printf "%.2f", a / b }')
check "--jobs 0 x dd (issue 33)" "$jobs_x" 1.2
check "-m none x dd (issue 33)" "$none_x" 1.1
awk -v v="$jobs_up" 'BEGIN { exit !(v >= 1.5) }' && r=met || r=MISSED
echo "target --jobs 0 speed-up over --jobs 1 >= 1.5 (issue 33): $jobs_up ($r)"
