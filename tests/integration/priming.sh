#!/bin/sh
# JIT-style priming end to end: captures and perf.data streamed through
# a pipe (the live case) with --priming defer must give exactly what
# --priming sync gives (the --chains file and the output, byte for
# byte), with both engines; --priming drop must give every sample with
# at least its sampled IP as leaf, the same leaf as sync, in the same
# order, and count unprimed samples consistently in the summary and the
# stats file.  Also the defaults (a pipe: defer, a regular file: sync)
# and bad option values.  The perf part skips when perf cannot record.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace

# leaves CHAINS: pid, tid, time and the leaf address of every sample.
leaves ()
{
  awk -F '\t' '{ split($4, a, ","); print $1, $2, $3, a[1] }' "$1"
}

# modes LABEL INPUT ARGS...: INPUT through a pipe with each priming mode
# and each engine; defer must equal sync, drop must keep every leaf.
modes ()
{
  label=$1
  input=$2
  shift 2
  for e in fast dwfl; do
    for m in sync defer drop; do
      l=$label-$e-$m
      if ! cat "$input" | run_st "$l" -v --engine "$e" --priming "$m" "$@" \
             -o "$tmp/$l.out" --chains "$tmp/$l.chains" \
             --stats-file "$tmp/$l.stats" >/dev/null; then
        fail "$l: stacktrace failed"
        return
      fi
    done
    s=$tmp/$label-$e-sync
    d=$tmp/$label-$e-defer
    r=$tmp/$label-$e-drop
    samples=$(wc -l <"$s.chains")
    [ "$samples" -gt 0 ] || fail "$label-$e: no samples"
    cmp -s "$s.chains" "$d.chains" \
      || fail "$label-$e: defer's chains differ from sync's"
    # A capture's header is the input's; perf.data gets a fresh one
    # (with the time of the run): compare what follows it.
    cmp -s -i 256 "$s.out" "$d.out" \
      || fail "$label-$e: defer's output differs from sync's"
    grep -q '^unprimed=0$' "$d.stats" \
      || fail "$label-$e: defer counted unprimed samples without a cap"
    grep -q '^stacktrace: priming (defer)' "$d.err" \
      || fail "$label-$e: no priming line in defer's summary"

    leaves "$s.chains" >"$s.leaves"
    leaves "$r.chains" >"$r.leaves"
    cmp -s "$s.leaves" "$r.leaves" \
      || fail "$label-$e: drop's samples or leaves differ from sync's"
    awk -F '\t' '$4 == "" { n++ } END { exit n > 0 }' "$r.chains" \
      || fail "$label-$e: drop wrote samples without any address"
    unprimed=$(sed -n 's/^unprimed=//p' "$r.stats")
    said=$(sed -n 's/.*; \([0-9]*\) sample(s) unprimed.*/\1/p' "$r.err")
    [ "$unprimed" = "$said" ] \
      || fail "$label-$e: drop: stats file unprimed=$unprimed, summary $said"
    waits=$(sed -n 's/.*; \([0-9]*\) wait(s) for modules.*/\1/p' "$d.err")
    echo "$label-$e: $samples samples; defer identical to sync" \
         "(${waits:-?} wait(s)); drop: ${unprimed:-?} unprimed," \
         "$(sed -n 's/^success_rate_percent=//p' "$r.stats")% to the root" \
         "(sync $(sed -n 's/^success_rate_percent=//p' "$s.stats")%)"
  done
}

echo "== options"
if "$STACKTRACE" --priming sometimes -m none </dev/null >/dev/null 2>&1; then
  fail "--priming sometimes was accepted"
fi
for cap in 0 12X -3 ''; do
  "$STACKTRACE" --priming-cap "$cap" -m none </dev/null >/dev/null 2>&1
  [ $? -eq 2 ] || fail "--priming-cap '$cap' was not a usage error"
done

echo "== fixture"
fx=$TESTS_DATA/fixture
[ -f "$fx/fixture.syscap" ] || die "fixture missing"
modes fixture "$fx/fixture.syscap" --symfs "$fx"
# Defaults: a pipe is live (defer), a regular file is batch (sync).
cat "$fx/fixture.syscap" | run_st default-pipe -v --symfs "$fx" \
  -o "$tmp/default-pipe.out" >/dev/null || fail "default-pipe: failed"
grep -q '^stacktrace: priming (defer)' "$tmp/default-pipe.err" \
  || fail "a pipe input is not primed with defer by default"
run_st default-file -v --symfs "$fx" -i "$fx/fixture.syscap" \
  -o "$tmp/default-file.out" >/dev/null || fail "default-file: failed"
grep -q '^stacktrace: priming' "$tmp/default-file.err" \
  && fail "a regular file input is primed on workers by default"
cmp -s "$tmp/default-pipe.out" "$tmp/default-file.out" \
  || fail "the defaults for a pipe and a file give different outputs"

# Live: a sample that waited for its module is written while the input
# stalls (a worker that finishes wakes the wait for input), not only when
# more input or its end comes.  The input, a FIFO kept open, stops right
# after the first raw-stack frame, which comes right after its mapping.
cut=$(head -c 262144 "$fx/fixture.syscap" | od -An -v -tu1 | awk '
  { for (i = 1; i <= NF; i++) b[n++] = $i }
  END {
    for (pos = 256; pos + 24 <= n; pos += len) {
      len = b[pos] + 256 * b[pos + 1]
      if (len < 24) exit 1
      if (b[pos + 16] == 18) { print pos + len; exit 0 }
    }
    exit 1
  }') || die "no STACK_USER frame near the start of the fixture"
mkfifo "$tmp/live.fifo" || die "mkfifo failed"
"$STACKTRACE" -v -i "$tmp/live.fifo" --symfs "$fx" -o "$tmp/live.out" \
  --chains "$tmp/live.chains" 2>"$tmp/live.err" &
live_pid=$!
exec 3>"$tmp/live.fifo"
head -c "$cut" "$fx/fixture.syscap" >&3
# The chains file is written under a temporary name until the end
# (.live.chains.XXXXXX, renamed then).
live_chains_now ()
{
  for f in "$tmp"/.live.chains.*; do
    [ -s "$f" ] && return 0
  done
  return 1
}
tries=0
while ! live_chains_now && [ "$tries" -lt 200 ]; do
  sleep 0.1
  tries=$((tries + 1))
done
live_chains_now \
  || fail "live: a sample that waited for its module was not written while the input stalled"
tail -c +"$((cut + 1))" "$fx/fixture.syscap" >&3
exec 3>&-
wait "$live_pid" || fail "live: stacktrace failed"
[ -s "$tmp/live.chains" ] || fail "live: the chains file was not renamed into place"
# Whether the sample waited depends on who was first, the worker
# preparing the module or the main thread reaching the sample (on a
# loaded machine either may be): at most one wait, and say which.
if grep -q '^stacktrace: priming (defer).* 1 wait(s)' "$tmp/live.err"; then
  echo "live: the first sample waited for its module"
elif grep -q '^stacktrace: priming (defer).* 0 wait(s)' "$tmp/live.err"; then
  echo "live: the worker was first this time: the sample did not wait"
else
  grep priming "$tmp/live.err"
  fail "live: more than one wait for one module"
fi
cmp -s "$tmp/live.chains" "$tmp/fixture-fast-sync.chains" \
  || fail "live: the chains differ from sync's"
echo "live: the first sample (input offset $cut) was written while the input stalled"

if ! perf_can_record; then
  echo "perf cannot record here: only the fixture was streamed"
  finish
fi

need_progs
echo "== perf.data in pipe mode: several programs, each a new process"
# shellcheck disable=SC2086
$ST_PERF_RECORD -o - -- sh -c "exec sh -c '
  for p in uses-lib threads nopie-prog deep-recursion; do progs/\$p 100; done
' >/dev/null" >"$tmp/progs.pipe" 2>"$tmp/progs.record.log" \
  || { cat "$tmp/progs.record.log"; fail "perf record failed"; finish; }
modes perf-pipe "$tmp/progs.pipe"
echo "== the same converted to a capture (raw stacks kept)"
"$STACKTRACE" -q -m passthru -i "$tmp/progs.pipe" -o "$tmp/progs.syscap" \
  || fail "conversion failed"
modes perf-capture "$tmp/progs.syscap"

finish
