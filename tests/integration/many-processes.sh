#!/bin/sh
# A workload of many short-lived processes (a shell loop running the test
# programs and coreutils, some hundreds of processes), recorded with
# perf --call-graph=dwarf in pipe mode and unwound live through a pipe,
# with --stats-file and the counters in the output capture, twice: with
# --priming drop (a sample whose modules are not prepared yet is unwound
# with what is ready and counted unprimed) and --priming defer (the live
# default: such a sample waits).  Logs the success rate over sample time
# (from the CTRSET frames, every 100 ms of sample time: in total and per
# interval, with the unprimed samples of each interval) and the final
# rates.  With drop, the rate starts lower while the modules of the
# first processes are being prepared and rises once they are ready --
# when this machine is slow enough for samples to overtake the workers,
# which depends on its load: so that is logged, not asserted.  Asserts
# only sane things: counters that never decrease, a final rate above a
# generous floor, the stats file agreeing with the last counters, and
# defer counting no unprimed sample unless its cap was reached.  Skips
# (77) without a working perf.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
need_perf
need_progs
counters_tool=$TESTS_BUILDDIR/harness/capture-counters
[ -x "$counters_tool" ] || die "harness/capture-counters not built"

: "${ST_MANY_ROUNDS:=120}"
# Fewest processes with samples, and the floor of the final rate (%).
: "${ST_MANY_MIN_PROCESSES:=100}"
: "${ST_MANY_MIN_RATE:=60}"

many_processes_workload "$tmp/workload.sh" "$ST_MANY_ROUNDS"

# workload MODE: records the loop, unwinds it live with --priming MODE,
# logs the rate over time, checks what is checked for every mode.
workload ()
{
  mode=$1
  out=$tmp/$mode
  echo "== $ST_MANY_ROUNDS rounds of 6 short-lived processes, unwound live with --priming $mode"
  # perf writes pipe-mode perf.data into stacktrace; the programs' own
  # output must not reach perf's standard output, the pipe.
  # shellcheck disable=SC2086
  { $ST_PERF_RECORD -o - -- sh -c "exec sh '$tmp/workload.sh' >/dev/null" \
      2>"$out.record.log"; } \
    | "$STACKTRACE" --priming "$mode" --counters-interval 100 \
        -o "$out.syscap" --stats-file "$out.stats" 2>"$out.err"
  st_status=$?
  cat "$out.err"
  [ "$st_status" -eq 0 ] || fail "$mode: stacktrace exited with $st_status"

  "$counters_tool" "$out.syscap" >"$out.counters" \
    || fail "$mode: cannot read the counters of the output"
  awk '
    # TIME_NS SAMPLES UNWOUND RATE TRUNCATED FAILED STITCHED UNPRIMED
    NR == 1 { t0 = $1 }
    {
      d_samples = $2 - p_samples
      d_unwound = $3 - p_unwound
      printf "t=%6.2fs samples=%6d unwound=%6d rate=%6.2f%%  this interval: %5d samples, %6.2f%%, %4d unprimed\n",
             ($1 - t0) / 1e9, $2, $3, $4, d_samples,
             d_samples ? 100 * d_unwound / d_samples : 0, $8 - p_unprimed
      for (k = 2; k <= 8; k++)
        if (k != 4 && NR > 1 && $k < prev[k])
          printf "FAIL: counter %d decreased at t=%.2fs\n", k, ($1 - t0) / 1e9
      for (k = 2; k <= 8; k++)
        prev[k] = $k
      p_samples = $2
      p_unwound = $3
      p_unprimed = $8
    }
    END { if (NR < 2) print "FAIL: fewer than 2 counter frames" }
  ' "$out.counters" >"$out.rate"
  echo "success rate over sample time (from the CTRSET frames):"
  cat "$out.rate"
  grep -q '^FAIL' "$out.rate" && fail "$mode: counters over time"

  last=$(tail -n 1 "$out.counters")
  samples=$(stat_of "$out" samples)
  processes=$(stat_of "$out" sampled_processes)
  rate=$(stat_of "$out" success_rate_percent)
  unprimed=$(stat_of "$out" unprimed)
  echo "final ($mode): $samples samples from $processes processes, $(stat_of "$out" unwound_to_root) unwound to the root, success rate $rate%, $unprimed unprimed"
  echo "stats file: state=$(stat_of "$out" state) truncated=$(stat_of "$out" truncated) failed=$(stat_of "$out" failed) unprimed=$unprimed"
  awk -F '=' '
    /^cause\./ && $2 > 0 { sub(/^cause\./, "", $1); causes = causes " " $1 "=" $2 }
    /^top\.[0-9]+\./ { split($1, k, "."); top[k[2], k[3]] = $2; if (k[2] > n) n = k[2] }
    END {
      print "not unwound to the root, by cause:" causes
      for (i = 1; i <= n && i <= 3; i++)
        printf "top offender %d: pid %s (%s): %s of %s samples not unwound to the root\n",
               i, top[i, "pid"], top[i, "comm"] == "" ? "?" : top[i, "comm"],
               top[i, "not_unwound"], top[i, "samples"]
    }' "$out.stats"

  [ "$(stat_of "$out" state)" = finished ] \
    || fail "$mode: stats file state is not 'finished'"
  [ "$(echo "$last" | awk '{ print $2 }')" = "$samples" ] \
    || fail "$mode: the last counters ($last) disagree with the stats file ($samples samples)"
  [ "$(echo "$last" | awk '{ print $8 }')" = "$unprimed" ] \
    || fail "$mode: the last counters ($last) disagree with the stats file ($unprimed unprimed)"
  [ "${processes:-0}" -ge "$ST_MANY_MIN_PROCESSES" ] \
    || fail "$mode: only ${processes:-0} processes had samples (expected >= $ST_MANY_MIN_PROCESSES)"
  awk -v r="${rate:-0}" -v min="$ST_MANY_MIN_RATE" 'BEGIN { exit !(r >= min) }' \
    || fail "$mode: final success rate $rate% below the floor of $ST_MANY_MIN_RATE%"
}

# stat_of RUN KEY: KEY's value in RUN's stats file.
stat_of ()
{
  sed -n "s/^$2=//p" "$1.stats"
}

workload drop
# The rate where samples were unprimed, and elsewhere: the rise.
awk '
  NR == 1 { t0 = $1 }
  { d = $2 - ps; u = $3 - pu; np = $8 - pp; ps = $2; pu = $3; pp = $8 }
  np > 0 { a += d; au += u; n++; last = ($1 - t0) / 1e9 }
  np == 0 { b += d; bu += u }
  END {
    if (n == 0)
      print "drop: no sample was unprimed (the workers kept ahead of the samples on this machine)"
    else
      printf "drop: %d interval(s) had unprimed samples, the last at t=%.2fs: %.2f%% to the root there, %.2f%% in the other intervals\n",
             n, last, a ? 100 * au / a : 0, b ? 100 * bu / b : 0
  }' "$tmp/drop.counters"

workload defer
# defer unwinds every sample with its modules, unless the cap was reached
# while a module was being downloaded (no debuginfod here: never).
[ "$(stat_of "$tmp/defer" priming.mode)" = defer ] \
  || fail "defer: the stats file says priming.mode=$(stat_of "$tmp/defer" priming.mode)"
forced=$(stat_of "$tmp/defer" priming.forced)
[ "$(stat_of "$tmp/defer" unprimed)" = "${forced:-x}" ] \
  || fail "defer: $(stat_of "$tmp/defer" unprimed) unprimed samples, but ${forced:-?} unwound before a download"
echo "defer: $(stat_of "$tmp/defer" priming.waits) wait(s) for modules, $(stat_of "$tmp/defer" priming.deferred) sample(s) unwound late, the cap reached $(stat_of "$tmp/defer" priming.stalls) time(s)"
echo "final rates: drop $(stat_of "$tmp/drop" success_rate_percent)% ($(stat_of "$tmp/drop" unprimed) unprimed), defer $(stat_of "$tmp/defer" success_rate_percent)% ($(stat_of "$tmp/defer" unprimed) unprimed)"

finish
