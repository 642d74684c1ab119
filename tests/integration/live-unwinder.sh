#!/bin/sh
# stacktrace in the place of Sysprof 48's live unwinder (issue 22), with
# tests/harness/live-client: perf events opened per CPU as Sysprof
# opens them, an eventfd, a capture pipe, stacktrace spawned with
# Sysprof's argv (fds 3..), uses-lib run, stopped by the eventfd, the
# capture read with libsysprof-capture.
#  1. Called sysprof-live-unwinder, events on the workload only: every
#     sample in st_lib_leaf with the whole path to _start, the samples
#     and lost events make up the workload's CPU time, every event the
#     kernel's LOST records count is in a LOG frame, every sample has
#     its ring's CPU (not -1), exit 0.
#  2. Called stacktrace, system-wide: the same.
#  3. The client closes the capture early: exit 0, not by SIGPIPE.
#  5. The client reads as Sysprof 48's does (one frame per wake-up, what
#     it holds dropped at the stop): the same checks of what arrives.
#  6. The workload execs after the unwinder's walk of /proc and before
#     the events are enabled (system-wide, as root): its samples still
#     have the whole path, its process read from /proc at its first
#     sample.
#  4. Usage errors: exit 2 (1 for an fd that is no perf event), a
#     message naming the option.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
client="$TESTS_BUILDDIR/harness/live-client"
prog="$TESTS_BUILDDIR/progs/uses-lib"
[ -x "$client" ] || skip "live-client not built (no libsysprof-capture)"
[ -x "$prog" ] || die "test program $prog not built"
ms=${ST_PROG_MS:-1000}

run_client () {
  name=$1; shift
  "$client" --stacktrace "$STACKTRACE" --capture "$tmp/$name.syscap" "$@" \
    >"$tmp/$name.out" 2>"$tmp/$name.err"
  status=$?
  cat "$tmp/$name.out"
  [ $status -eq 77 ] && { cat "$tmp/$name.err"; skip "perf events not allowed here"; }
  [ $status -eq 0 ] || { tail -n 20 "$tmp/$name.err"; fail "$name: the run failed"; }
  grep -E '^stacktrace: (total|perf rings)' "$tmp/$name.err"
  # Every event the kernel said it lost is in the capture's LOG frames.
  ring_lost=$(sed -n 's/^stacktrace: perf rings:.* LOST records for \([0-9]*\) events;.*/\1/p' "$tmp/$name.err")
  log_lost=$(sed -n 's/^live-client:.*; \([0-9]*\) events lost (LOG frames).*/\1/p' "$tmp/$name.out")
  [ -n "$ring_lost" ] && [ "$ring_lost" = "$log_lost" ] \
    || fail "$name: the rings lost ${ring_lost:-?} events, the capture's LOG frames say ${log_lost:-?}"
  # Every sample carries the CPU of its ring (--perf-fd=FD:CPU), not -1.
  cpus=$(sample_cpus "$tmp/$name.syscap")
  echo "$name: samples by CPU: $cpus"
  case " $cpus " in
    *" -1:"*|"  ") fail "$name: samples without their CPU ($cpus)" ;;
  esac
}

# sample_cpus CAPTURE: "CPU:COUNT ..." of the SAMPLE frames (type 2).
sample_cpus ()
{
  capture_frames "$1" | awk '$2 == 2 { c[$4]++ }
    END { for (k in c) printf "%s:%d ", k, c[k] }'
}

# 1.
run_client task --argv0 /usr/libexec/sysprof-live-unwinder -- "$prog" "$ms"
# 2.
if [ "$(id -u)" -eq 0 ]; then
  run_client system --system-wide -- "$prog" "$ms"
else
  echo "not root: no system-wide run"
fi
# 3.
"$client" --hang-up --stacktrace "$STACKTRACE" --capture "$tmp/hang.syscap" \
  -- "$prog" 200 >"$tmp/hang.out" 2>"$tmp/hang.err" \
  || { cat "$tmp/hang.out"; tail -n 20 "$tmp/hang.err"; fail "hang-up: the unwinder did not exit 0"; }
cat "$tmp/hang.out"
grep -q "the capture's reader went away" "$tmp/hang.err" \
  || { cat "$tmp/hang.err"; fail "hang-up: no word of the reader going away"; }

# 5.
"$client" --sysprof48-reader --stacktrace "$STACKTRACE" \
  --capture "$tmp/muxer.syscap" -- "$prog" "$ms" \
  >"$tmp/muxer.out" 2>"$tmp/muxer.err" \
  || { cat "$tmp/muxer.out"; tail -n 20 "$tmp/muxer.err"; fail "sysprof48-reader: the run failed"; }
cat "$tmp/muxer.out"
grep -E "^stacktrace: capture" "$tmp/muxer.err"

# 6.
if [ "$(id -u)" -eq 0 ]; then
  run_client late --system-wide --late-workload -- "$prog" "$ms"
  grep -E "^stacktrace: [1-9][0-9]* process\(es\) that started before the events were enabled read from /proc at their first sample or mapping \([1-9][0-9]* mappings; [1-9][0-9]* of them" "$tmp/late.err" \
    || { grep "^stacktrace:" "$tmp/late.err"; fail "late: the workload exec'd before the enabling was not read from /proc"; }
fi

# 4.
ln -s "$STACKTRACE" "$tmp/sysprof-live-unwinder"
expect_usage () {
  want=$1; what=$2; shift 2
  "$@" >"$tmp/usage.out" 2>&1 3</dev/null
  status=$?
  [ $status -eq "$want" ] || { cat "$tmp/usage.out"; fail "$* exited $status, not $want"; }
  grep -q -e "$what" "$tmp/usage.out" || { cat "$tmp/usage.out"; fail "$*: no word of $what"; }
}
expect_usage 2 "--stack-size" "$tmp/sysprof-live-unwinder" --capture-fd=1
expect_usage 2 "--capture-fd=FD is needed" "$tmp/sysprof-live-unwinder" --stack-size=8192
expect_usage 2 "--perf-fd needs FD:CPU" "$STACKTRACE" --stack-size=8192 --capture-fd=1 --perf-fd=3
expect_usage 2 "not an open file descriptor" "$STACKTRACE" --stack-size=8192 --capture-fd=1 --perf-fd=99:0
expect_usage 1 "is not a perf event" "$STACKTRACE" --stack-size=8192 --capture-fd=1 --perf-fd=3:0
expect_usage 2 "no other input or output" "$STACKTRACE" --stack-size=8192 --capture-fd=1 -o "$tmp/x"

finish
