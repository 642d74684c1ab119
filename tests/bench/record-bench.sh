#!/usr/bin/env bash
# stacktrace --record against perf record piped into stacktrace, not a
# test (not in make check): CPU per sample of the whole recording side,
# on the same workload, at the same rate and stack size, in paired runs
# (the order alternating from one round to the next).
#
#   record-bench.sh [--rounds N] [--ms MS] [--freq HZ] [--stack N]
#                   [--stacktrace PATH]
#
#   ours:    stacktrace --record -F HZ --stack-size N -o out.data -- W
#   theirs:  perf record --call-graph=dwarf,N -e cpu-clock -F HZ -o - -- W
#              | stacktrace -f perf --output-format perf -o out2.data
#
# W is tests/progs/deep-recursion MS (-O2 -fomit-frame-pointer, MS ms
# of its own CPU; default 3000) under /usr/bin/time, which reports its
# CPU (the kernel's work of taking the samples included; to 10 ms).  The CPU of a side is that of
# its whole process tree (wait4) minus the workload's; per sample, over
# the samples stacktrace unwound.  Needs root (or a paranoid that lets
# perf record), perf, python3 and GNU time.  Prints one line per run and the
# medians; says whether other processes used the CPU meanwhile (a
# shared machine: the figures are then rougher).
set -u

rounds=5
ms=3000
freq=999
stack=8192
here=$(cd "$(dirname "$0")" && pwd)
stacktrace=${STACKTRACE:-$here/../../build/src/stacktrace}
prog=${BUILDDIR:-$here/../../build}/tests/progs/deep-recursion
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift ;;
    --ms) ms=$2; shift ;;
    --freq) freq=$2; shift ;;
    --stack) stack=$2; shift ;;
    --stacktrace) stacktrace=$2; shift ;;
    -h|--help) sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    *) echo "record-bench: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done
die () { echo "record-bench: $*" >&2; exit 1; }
[ -x "$stacktrace" ] || die "no stacktrace at $stacktrace"
[ -x "$prog" ] || die "no $prog (make check builds it)"
command -v perf >/dev/null || die "perf is needed (linux-perf)"
command -v python3 >/dev/null || die "python3 is needed"
[ -x /usr/bin/time ] || die "/usr/bin/time is needed (package time)"
export LC_ALL=C

work=$(mktemp -d "${TMPDIR:-/tmp}/st-record-bench.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$work"' EXIT

# tree.py OUT CMD...: runs CMD, writes the CPU seconds of its whole tree
# (wait4: it and every descendant waited for) to OUT.
cat > "$work/tree.py" <<'EOF'
import os, resource, sys
out, cmd = sys.argv[1], sys.argv[2:]
pid = os.fork()
if pid == 0:
    os.execvp(cmd[0], cmd)
_, status, ru = os.wait4(pid, 0)
with open(out, "w") as f:
    f.write("%.6f\n" % (ru.ru_utime + ru.ru_stime))
sys.exit(os.waitstatus_to_exitcode(status))
EOF

busy_before () { awk '/^cpu /{ print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }

run_ours () {
  python3 "$work/tree.py" "$work/ours.tree" \
    "$stacktrace" --record -F "$freq" --stack-size "$stack" -q \
    --stats-file "$work/ours.stats" -o "$work/out.data" \
    -- /usr/bin/time -f "%U %S" -o "$work/ours.wl" "$prog" "$ms" \
    2>"$work/ours.err" || { cat "$work/ours.err"; die "the --record run failed"; }
}

run_theirs () {
  python3 "$work/tree.py" "$work/theirs.tree" sh -c '
    perf record -q --call-graph=dwarf,"$1" -e cpu-clock -F "$2" -o - \
      -- /usr/bin/time -f "%U %S" -o "$3/theirs.wl" "$4" "$5" 2>"$3/perf.err" \
    | "$6" -f perf --output-format perf -q --stats-file "$3/theirs.stats" \
        -o "$3/out2.data"' sh "$stack" "$freq" "$work" "$prog" "$ms" "$stacktrace" \
    2>"$work/theirs.err" || { cat "$work/theirs.err" "$work/perf.err"; die "the perf run failed"; }
}

# received SIDE: samples per ms of the workload's CPU.
received () {
  wl=$(awk '{ print $1 + $2 }' "$work/$1.wl")
  samples=$(sed -n 's/^samples=//p' "$work/$1.stats")
  awk -v w="$wl" -v n="$samples" 'BEGIN { printf "%.3f", (w > 0 ? n / (w * 1000) : 0) }'
}

# whole_path FILE: "WHOLE SAMPLES" by perf script: samples of the
# workload whose chain reaches _start.
whole_path () {
  perf script -i "$1" -F comm,ip,sym 2>/dev/null | awk '
    function flush() { if (take) { n++; if (start) ok++ } take = 0; start = 0 }
    /^[^ \t]/ { flush(); take = ($1 == "deep-recursion"); next }
    NF == 0 { flush(); next }
    $2 == "_start" { start = 1 }
    END { flush(); print ok + 0, n + 0 }'
}

# per_sample SIDE: "CPU_MS SAMPLES US_PER_SAMPLE"
per_sample () {
  tree=$(cat "$work/$1.tree"); wl=$(awk '{ print $1 + $2 }' "$work/$1.wl")
  samples=$(sed -n 's/^samples=//p' "$work/$1.stats")
  awk -v t="$tree" -v w="$wl" -v n="$samples" \
    'BEGIN { c = t - w; printf "%.1f %d %.2f\n", c * 1000, n, (n > 0 ? c * 1e6 / n : 0) }'
}

hz=$(getconf CLK_TCK)
echo "record-bench: $rounds rounds, deep-recursion $ms ms, -F $freq, $stack-byte stacks, $(nproc) CPUs"
: > "$work/ours.list"; : > "$work/theirs.list"
for r in $(seq 1 "$rounds"); do
  t0=$(busy_before); s0=$(date +%s.%N)
  if [ $((r % 2)) -eq 1 ]; then run_ours; run_theirs; else run_theirs; run_ours; fi
  t1=$(busy_before); s1=$(date +%s.%N)
  set -- $(per_sample ours); o_cpu=$1 o_n=$2 o_us=$3
  set -- $(per_sample theirs); p_cpu=$1 p_n=$2 p_us=$3
  echo "$o_us" >> "$work/ours.list"; echo "$p_us" >> "$work/theirs.list"
  received ours >> "$work/ours.rx"; echo >> "$work/ours.rx"
  received theirs >> "$work/theirs.rx"; echo >> "$work/theirs.rx"
  # Every CPU's busy time in the round against what the two runs used.
  busy=$(awk -v a="$t0" -v b="$t1" -v hz="$hz" 'BEGIN { printf "%.1f", (b - a) / hz }')
  echo "round $r: --record $o_cpu ms for $o_n samples ($o_us us/sample); perf | stacktrace $p_cpu ms for $p_n samples ($p_us us/sample); machine busy ${busy} s in $(awk -v a="$s0" -v b="$s1" 'BEGIN { printf "%.1f", b - a }') s"
done
median () { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
o=$(median "$work/ours.list"); p=$(median "$work/theirs.list")
echo "median: --record $o us/sample, perf record | stacktrace $p us/sample, ratio $(awk -v o="$o" -v p="$p" 'BEGIN { printf "%.3f", (p > 0 ? o / p : 0) }')"
echo "samples per ms of the workload's CPU (median): --record $(median "$work/ours.rx"), perf record $(median "$work/theirs.rx")"
set -- $(whole_path "$work/out.data"); o_ok=$1 o_all=$2
set -- $(whole_path "$work/out2.data"); p_ok=$1 p_all=$2
echo "whole path to _start (perf script, last round): --record $o_ok of $o_all ($(awk -v a="$o_ok" -v b="$o_all" 'BEGIN { printf "%.2f", (b > 0 ? 100 * a / b : 0) }')%), perf record | stacktrace $p_ok of $p_all ($(awk -v a="$p_ok" -v b="$p_all" 'BEGIN { printf "%.2f", (b > 0 ? 100 * a / b : 0) }')%)"
echo "(the machine's busy time above the two runs' own CPU and workloads is other load: a shared machine)"
