#!/bin/sh
# stacktrace --record (issue 35): the perf events opened by stacktrace
# itself, the output checked with the real perf (perf script, perf
# report), not only with our own reader.
#  1. -- CMD: deep-recursion's samples in st_leaf_work have the whole
#     path to _start in perf script; as many samples in perf.data as the
#     statistics say; the command's stdin and stdout are its own.
#  2. -p of a running multi-threaded process (harness/fork-later) that
#     forks and execs deep-recursion after the recording began: both
#     threads' samples, and the child's with the whole path.
#  3. -a, bounded by a command: the command's samples with the whole
#     path, and those of a process that ran before (read from /proc).
#  4. SIGINT during -p, once samples arrived (the stats file says so):
#     exit 0, everything written, perf report reads it.
#  5. A forced ring overflow (rings too small for one sample): the
#     kernel's losses in the summary and as LOST records perf reads.
#  6. Usage errors: exit 2; a command that does not exist: exit 1.
# Skips (77) where perf_event_open is not allowed or perf is missing.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
command -v perf >/dev/null 2>&1 || skip "perf not installed"
progs=$TESTS_BUILDDIR/progs
prog=$progs/deep-recursion
threads=$progs/threads
later=$TESTS_BUILDDIR/harness/fork-later
for p in "$prog" "$threads" "$later"; do
  [ -x "$p" ] || die "test program $p not built"
done
min=${ST_MIN_LEAF_SAMPLES:-50}
# stacktrace started from here has SIGINT ignored (a background job of
# a non-interactive shell); this gives it back its default first.
sigint_default='$SIG{INT} = "DEFAULT"; exec { $ARGV[0] } @ARGV or exit 127'

# The probe: a recording of `true`.
"$STACKTRACE" --record -q -o "$tmp/probe.data" -- true 2>"$tmp/probe.err"
if [ $? -ne 0 ]; then
  cat "$tmp/probe.err"
  grep -q -F -e "not allowed to open the perf event" \
    -e "cannot open the perf event" "$tmp/probe.err" \
    && skip "perf events cannot be opened here"
  die "the probe recording failed"
fi

# whole_paths FILE COMM LEAF CALLERS...: "N M", the samples of COMM
# (perf script) whose first frame is LEAF, and how many of them go on
# with CALLERS in order (a frame may repeat: st_recurse) to the last.
whole_paths () {
  file=$1; comm=$2; shift 2
  perf script -i "$file" -F comm,tid,ip,sym 2>/dev/null | awk -v comm="$comm" -v path="$*" '
    BEGIN { n_path = split(path, want, " ") }
    function flush() {
      if (take && first == want[1]) { n++; if (at == n_path) ok++ }
      take = 0; first = ""
    }
    /^[^ \t]/ { flush(); take = ($1 == comm); at = 0; next }
    NF == 0 { flush(); next }
    take {
      sym = $2
      if (first == "") { first = sym; if (sym == want[1]) at = 1; next }
      if (at > 0 && at < n_path && sym == want[at + 1]) at++
      else if (at > 0 && sym != want[at]) at = -1
    }
    END { flush(); printf "%d %d\n", n, ok }'
}

# check_paths NAME FILE COMM LEAF CALLERS...: at least $min such samples,
# 99 % of them whole.
check_paths () {
  name=$1; shift
  set -- $(whole_paths "$@")
  echo "$name: $1 samples in the leaf, $2 with the whole path (perf script)"
  [ "$1" -ge "$min" ] || fail "$name: only $1 samples in the leaf (want $min)"
  [ $(($2 * 100)) -ge $(($1 * 99)) ] || fail "$name: only $2 of $1 samples with the whole path"
}

recurse_path="st_leaf_work st_recurse st_run main __libc_start_call_main __libc_start_main@@GLIBC_2.34 _start"

# 1. -- CMD
echo hello | "$STACKTRACE" --record -o "$tmp/cmd.data" --stats-file "$tmp/cmd.stats" \
  -- sh -c 'read line; echo "got $line"; exec "$0" 300' "$prog" \
  >"$tmp/cmd.out" 2>"$tmp/cmd.err"
status=$?
grep "^stacktrace: \(total\|recorded\)" "$tmp/cmd.err"
[ $status -eq 0 ] || { tail -n 20 "$tmp/cmd.err"; fail "command: exit status $status"; }
grep -q -x "got hello" "$tmp/cmd.out" \
  || fail "command: its stdin and stdout were not its own ($(cat "$tmp/cmd.out"))"
check_paths command "$tmp/cmd.data" deep-recursion $recurse_path
# Nothing dropped on the way: every event read was written, and perf
# finds at least the raw-stack samples unwound (a sample without user
# registers, taken in the kernel at the exec, passes as it is).
ours=$(sed -n 's/^samples=//p' "$tmp/cmd.stats")
read_in=$(sed -n 's/^events_in=//p' "$tmp/cmd.stats")
written=$(sed -n 's/^events_out=//p' "$tmp/cmd.stats")
perfs=$(perf script -i "$tmp/cmd.data" -F comm 2>/dev/null | grep -c .)
echo "command: $ours samples unwound, $perfs in perf script; $read_in events read, $written written"
[ -n "$ours" ] && [ "$perfs" -ge "$ours" ] || fail "command: $ours samples unwound but $perfs in perf.data"
[ -n "$read_in" ] && [ "$read_in" = "$written" ] || fail "command: $read_in events read but $written written"
grep -q -F "state=finished" "$tmp/cmd.stats" || fail "command: the stats file does not say finished"

# Waits (at most about a minute) until FILE exists and holds PATTERN
# (grep -E): events, not a guess at how long it takes.
wait_for () {
  i=0
  while [ $i -lt 600 ]; do
    [ -f "$1" ] && grep -q -E "$2" "$1" && return 0
    i=$((i + 1))
    sleep 0.1
  done
  return 1
}

# 2. -p of a multi-threaded process that forks later.
mkfifo "$tmp/go" || die "mkfifo failed"
"$later" "$tmp/later.pid" "$tmp/go" "$prog" 300 &
later_pid=$!
wait_for "$tmp/later.pid" . || die "fork-later did not start"
"$STACKTRACE" --record -p "$later_pid" -o "$tmp/p.data" \
  --stats-file "$tmp/p.stats" 2>"$tmp/p.err" &
st=$!
# The stats file appears once the events are enabled.
wait_for "$tmp/p.stats" "state=" || fail "-p: no stats file"
echo go > "$tmp/go"
wait $later_pid || fail "-p: fork-later failed"
wait $st
status=$?
grep "^stacktrace: \(total\|recorded\)" "$tmp/p.err"
[ $status -eq 0 ] || { tail -n 20 "$tmp/p.err"; fail "-p: exit status $status"; }
check_paths "-p child" "$tmp/p.data" deep-recursion $recurse_path
tids=$(perf script -i "$tmp/p.data" -F comm,tid,ip,sym 2>/dev/null | awk '
  /^[^ \t]/ { comm = $1; tid = $2; next }
  $2 == "st_later_spin" && comm == "fork-later" { seen[tid] = 1 }
  END { n = 0; for (t in seen) n++; print n }')
echo "-p: $tids thread(s) of fork-later in st_later_spin"
[ "$tids" -ge 2 ] || fail "-p: the samples of fork-later's two threads are missing"

# 3. -a, bounded by a command, with a process that ran before.
"$threads" 300 &
threads_pid=$!
wait_for "/proc/$threads_pid/comm" "^threads" || die "threads did not start"
"$STACKTRACE" --record -a -o "$tmp/a.data" -- "$prog" 300 2>"$tmp/a.err"
status=$?
wait $threads_pid
grep "^stacktrace: \(total\|recorded\)" "$tmp/a.err"
[ $status -eq 0 ] || { tail -n 20 "$tmp/a.err"; fail "-a: exit status $status"; }
check_paths "-a command" "$tmp/a.data" deep-recursion $recurse_path
grep -q "^stacktrace: recorded the system .* [1-9][0-9]* processes and [1-9][0-9]* mappings from /proc at start" "$tmp/a.err" \
  || fail "-a: no processes read from /proc at the start"
set -- $(whole_paths "$tmp/a.data" threads st_thread_leaf_3 st_thread_a st_thread_main main __libc_start_call_main __libc_start_main@@GLIBC_2.34 _start)
echo "-a: threads (running before): $1 samples in st_thread_leaf_3, $2 whole"
[ "$1" -gt 0 ] && [ "$2" -gt 0 ] || fail "-a: no whole path of the process that ran before"

# 4. SIGINT during -p, once samples arrived.
"$later" "$tmp/int.pid" "$tmp/go" true &
later_pid=$!
wait_for "$tmp/int.pid" . || die "fork-later did not start"
perl -e "$sigint_default" "$STACKTRACE" --record -p "$later_pid" \
  -o "$tmp/int.data" --stats-file "$tmp/int.stats" 2>"$tmp/int.err" &
st=$!
wait_for "$tmp/int.stats" "^samples=[1-9]" || fail "SIGINT: no samples came"
kill -INT $st
wait $st
status=$?
echo go > "$tmp/go"
wait $later_pid
grep "^stacktrace: \(total\|recorded\|stopped\)" "$tmp/int.err"
[ $status -eq 0 ] || { tail -n 20 "$tmp/int.err"; fail "SIGINT: exit status $status, expected 0"; }
grep -q "^stacktrace: stopped by SIGINT" "$tmp/int.err" || fail "SIGINT: no word of the stop"
grep -q -F "state=stopped" "$tmp/int.stats" || fail "SIGINT: the stats file does not say stopped"
ours=$(sed -n 's/^samples=//p' "$tmp/int.stats")
perfs=$(perf script -i "$tmp/int.data" -F comm,ip,sym 2>/dev/null | grep -c "st_later_spin")
echo "SIGINT: $ours samples unwound; $perfs frames of st_later_spin in perf script"
[ "$perfs" -gt 0 ] || fail "SIGINT: perf script finds no samples of the threads"
perf report -i "$tmp/int.data" --stdio >/dev/null 2>"$tmp/int.report" \
  || { cat "$tmp/int.report"; fail "SIGINT: perf report cannot read the output"; }

# 5. A forced ring overflow: 32 KiB rings, 64 KiB stack copies.
"$STACKTRACE" --record --stack-size 65528 --mmap-pages 8 -o "$tmp/lost.data" \
  -- "$prog" 200 2>"$tmp/lost.err"
status=$?
grep "^stacktrace: \(total\|the kernel\)" "$tmp/lost.err"
[ $status -eq 0 ] || { tail -n 20 "$tmp/lost.err"; fail "overflow: exit status $status"; }
said=$(sed -n 's/^stacktrace: the kernel dropped \([0-9]*\) sample.*give more --mmap-pages.*/\1/p' "$tmp/lost.err")
inperf=$(perf script -i "$tmp/lost.data" --show-lost-events 2>/dev/null \
  | awk 'index($0, "PERF_RECORD_LOST lost ") { n += $NF } END { print n + 0 }')
echo "overflow: the summary says ${said:-nothing} lost, perf script's LOST records $inperf"
[ -n "$said" ] && [ "$said" -gt 0 ] || fail "overflow: the loss was not reported"
[ "$inperf" = "${said:-x}" ] || fail "overflow: perf.data's LOST records say $inperf, the summary ${said:-nothing}"

# 6. Usage errors and a missing command.
expect_status () {
  want=$1; what=$2; shift 2
  "$STACKTRACE" "$@" >"$tmp/usage.out" 2>"$tmp/usage.err"
  got=$?
  [ $got -eq "$want" ] || { cat "$tmp/usage.err"; fail "$*: exit $got, expected $want"; }
  grep -q -F -e "$what" "$tmp/usage.err" || { cat "$tmp/usage.err"; fail "$*: no message naming $what"; }
}
expect_status 2 "needs what to record" --record -o "$tmp/u.data"
expect_status 2 "not both" --record -a -p 1 -o "$tmp/u.data"
expect_status 2 "multiple of 8" --record --stack-size 100 -o "$tmp/u.data" -- true
expect_status 2 "power of two" --record --mmap-pages 3 -o "$tmp/u.data" -- true
expect_status 2 "unknown event" --record -e bogus -o "$tmp/u.data" -- true
expect_status 2 "not both" --record -F 99 -c 1000 -o "$tmp/u.data" -- true
expect_status 2 "no input" --record -i "$tmp/probe.data" -o "$tmp/u.data" -- true
expect_status 1 "cannot run" --record -o "$tmp/u.data" -- "$tmp/no-such-command"

finish
