#!/bin/sh
# A workload of many short-lived processes (a shell loop running the test
# programs and coreutils, some hundreds of processes), recorded with
# perf --call-graph=dwarf in pipe mode and unwound live through a pipe,
# with --stats-file and the counters in the output capture.  Logs the
# success rate over sample time (from the CTRSET frames: in total and
# per interval) and the final rate; asserts only sane things: counters
# that never decrease, a final rate above a generous floor, the stats
# file agreeing with the last counters.  Every new process needs its
# modules reported anew, so this is where unprimed samples will show once
# priming exists.  Skips (77) without a working perf.
. "$(dirname "$0")/test-lib.sh"

need_stacktrace
need_perf
need_progs
counters_tool=$TESTS_BUILDDIR/harness/capture-counters
[ -x "$counters_tool" ] || die "harness/capture-counters not built"

: "${ST_MANY_ROUNDS:=120}"
# Fewest processes with samples, and the floor of the final rate (%).
: "${ST_MANY_MIN_PROCESSES:=100}"
: "${ST_MANY_MIN_RATE:=60}"

head -c 400000 /dev/urandom >"$tmp/data.bin" 2>/dev/null \
  || die "cannot make the input data"
cat >"$tmp/workload.sh" <<EOF
i=0
while [ \$i -lt $ST_MANY_ROUNDS ]; do
  i=\$((i + 1))
  progs/deep-recursion 3
  progs/uses-lib 2
  sha256sum "$tmp/data.bin"
  sort "$tmp/data.bin" | cksum
  ls -R /usr/lib/x86_64-linux-gnu/gconv >/dev/null 2>&1
done
EOF

echo "== $ST_MANY_ROUNDS rounds of 6 short-lived processes, unwound live"
# perf writes pipe-mode perf.data into stacktrace; the programs' own
# output must not reach perf's standard output, the pipe.
# shellcheck disable=SC2086
{ $ST_PERF_RECORD -o - -- sh -c "exec sh '$tmp/workload.sh' >/dev/null" \
    2>"$tmp/record.log"; } \
  | "$STACKTRACE" -o "$tmp/out.syscap" --stats-file "$tmp/run.stats" \
      2>"$tmp/st.err"
st_status=$?
cat "$tmp/st.err"
[ "$st_status" -eq 0 ] || fail "stacktrace exited with $st_status"

"$counters_tool" "$tmp/out.syscap" >"$tmp/counters.txt" \
  || fail "cannot read the counters of the output"
awk '
  # TIME_NS SAMPLES UNWOUND RATE TRUNCATED FAILED STITCHED UNPRIMED
  NR == 1 { t0 = $1 }
  {
    d_samples = $2 - p_samples
    d_unwound = $3 - p_unwound
    printf "t=%6.2fs samples=%6d unwound=%6d rate=%6.2f%%  this interval: %5d samples, %6.2f%%\n",
           ($1 - t0) / 1e9, $2, $3, $4, d_samples,
           d_samples ? 100 * d_unwound / d_samples : 0
    for (k = 2; k <= 8; k++)
      if (k != 4 && NR > 1 && $k < prev[k])
        printf "FAIL: counter %d decreased at t=%.2fs\n", k, ($1 - t0) / 1e9
    for (k = 2; k <= 8; k++)
      prev[k] = $k
    p_samples = $2
    p_unwound = $3
  }
  END { if (NR < 2) print "FAIL: fewer than 2 counter frames" }
' "$tmp/counters.txt" >"$tmp/rate-over-time.txt"
echo "success rate over sample time (from the CTRSET frames):"
cat "$tmp/rate-over-time.txt"
grep -q '^FAIL' "$tmp/rate-over-time.txt" && fail "counters over time"

stat_of ()
{
  sed -n "s/^$1=//p" "$tmp/run.stats"
}
last=$(tail -n 1 "$tmp/counters.txt")
samples=$(stat_of samples)
processes=$(stat_of sampled_processes)
rate=$(stat_of success_rate_percent)
echo "final: $samples samples from $processes processes, $(stat_of unwound_to_root) unwound to the root, success rate $rate%"
echo "stats file: state=$(stat_of state) truncated=$(stat_of truncated) failed=$(stat_of failed) unprimed=$(stat_of unprimed)"
awk -F '=' '
  /^cause\./ && $2 > 0 { sub(/^cause\./, "", $1); causes = causes " " $1 "=" $2 }
  /^top\.[0-9]+\./ { split($1, k, "."); top[k[2], k[3]] = $2; if (k[2] > n) n = k[2] }
  END {
    print "not unwound to the root, by cause:" causes
    for (i = 1; i <= n; i++)
      printf "top offender %d: pid %s (%s): %s of %s samples not unwound to the root\n",
             i, top[i, "pid"], top[i, "comm"] == "" ? "?" : top[i, "comm"],
             top[i, "not_unwound"], top[i, "samples"]
  }' "$tmp/run.stats"

[ "$(stat_of state)" = finished ] || fail "stats file state is not 'finished'"
[ "$(echo "$last" | awk '{ print $2 }')" = "$samples" ] \
  || fail "the last counters ($last) disagree with the stats file ($samples samples)"
[ "${processes:-0}" -ge "$ST_MANY_MIN_PROCESSES" ] \
  || fail "only ${processes:-0} processes had samples (expected >= $ST_MANY_MIN_PROCESSES)"
awk -v r="${rate:-0}" -v min="$ST_MANY_MIN_RATE" 'BEGIN { exit !(r >= min) }' \
  || fail "final success rate $rate% below the floor of $ST_MANY_MIN_RATE%"

finish
