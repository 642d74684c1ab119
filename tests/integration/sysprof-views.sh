#!/bin/sh
# What Sysprof shows of our captures, computed by Sysprof's own libraries
# (harness/sysprof-views: libsysprof-capture-4's reader, libsysprof-4's
# ELF symbol resolver): `perf record --call-graph=dwarf -e cpu-clock --
# deep-recursion`, as a perf.data file and as a pipe-mode stream, unwound
# into a capture written to a file and down a pipe.  For each capture:
#   - the timeline: the header's start and the reader's end time cover
#     the samples and lie within the recording as perf script reads it
#     (its first and last timed event), within 10 % of its span: not the
#     time since boot that perf's time-0 synthesized records would give.
#     (Not the samples' span alone: cpu-clock samples stop while the
#     program waits for a CPU, so on a loaded machine its exit can come
#     well after its last sample.)
#   - the process list: the program's pid has one PROCESS frame, naming
#     deep-recursion (not perf's "perf-exec" placeholder);
#   - the callgraph: of the samples whose leaf is st_leaf_work, >= 90 %
#     have st_leaf_work, st_recurse..., st_run, main as Sysprof names them.
# Skips (77) without perf or libsysprof-4.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
need_progs
views=$TESTS_BUILDDIR/harness/sysprof-views
[ -x "$views" ] || skip "harness/sysprof-views not built (no libsysprof-4-dev)"
# run_views ARGS...: the helper.  Under ASan its leak check would report
# libsysprof's own allocations (its symbol resolver keeps them to the
# end), not ours; stacktrace itself keeps the check.
run_views ()
{
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$views" "$@"
}
need_perf

prog=deep-recursion

# pipe_out LABEL ARGS...: run_st with its output down a pipe (a FIFO that
# cat empties into $tmp/LABEL.syscap).
pipe_out ()
{
  po_label=$1
  shift
  rm -f "$tmp/$po_label.fifo"
  mkfifo "$tmp/$po_label.fifo" || die "mkfifo failed"
  cat "$tmp/$po_label.fifo" >"$tmp/$po_label.syscap" &
  po_cat=$!
  # A FIFO has no suffix: the format is said (else the input's).
  run_st "$po_label" "$@" --output-format sysprof -o "$tmp/$po_label.fifo"
  po_status=$?
  wait "$po_cat" || po_status=1
  return "$po_status"
}

# recording_span DATA: the first and last time (ns) of the events perf
# script shows for DATA (samples, COMM, MMAP, FORK, EXIT), leaving out
# the time-0 synthesized records.
recording_span ()
{
  perf script -i "$1" --show-task-events --show-mmap-events -F time 2>/dev/null \
    | awk '$1 ~ /^[0-9]+[.][0-9]+:$/ { t = $1; sub (":", "", t); t = t * 1e9
             if (t > 0) { if (first == 0 || t < first) first = t; if (t > last) last = t } }
           END { printf "%.0f %.0f\n", first, last }'
}

# check_capture LABEL CAPTURE RECORDING_SPAN
check_capture ()
{
  run_views "$2" >"$tmp/$1.views" 2>"$tmp/$1.views.err" \
    || { cat "$tmp/$1.views.err"; fail "$1: sysprof-views failed"; return; }
  pid=$(awk -v p="$prog" '$1 == "process" {
          n = split ($3, parts, "/"); if (parts[n] == p) { print $2; exit } }' \
          "$tmp/$1.views")
  if [ -z "$pid" ]; then
    grep '^process' "$tmp/$1.views"
    fail "$1: no process named $prog (by its first PROCESS frame)"
    return
  fi
  grep "^process $pid " "$tmp/$1.views" | sed "s/^/$1: /"
  frames=$(awk -v pid="$pid" '$1 == "process-frames" && $2 == pid { print $3 }' \
             "$tmp/$1.views")
  [ "$frames" = 1 ] || fail "$1: pid $pid has $frames PROCESS frames (want 1)"

  # The timeline against the recording as perf itself reads it ($3: the
  # first and last event time, in ns).
  if ! awk -v label="$1" -v ref="$3" '
      $1 == "start" { start = $2 }
      $1 == "end" { end = $2 }
      $1 == "samples" { n = $2; first = $3; last = $4 }
      END {
        split (ref, r, " ")
        span = r[2] - r[1]
        printf "%s: timeline %.3f s (%.3f s before the first sample, %.3f s after the last, %d samples); perf: recording %.3f s, from %.3f s before the first sample\n", label, (end - start) / 1e9, (first - start) / 1e9, (end - last) / 1e9, n, span / 1e9, (first - r[1]) / 1e9
        if (n < 50 || span <= 0) { print label ": too few samples"; exit 1 }
        # Within 10 % of the recording at either end (perf script prints
        # an EXIT by its own time field, the capture by its sample_id
        # time: a microsecond apart).
        if (start < r[1] - span / 10 || start > first) exit 1
        if (end < last || end > r[2] + span / 10) exit 1
      }' "$tmp/$1.views"; then
    fail "$1: the capture's timeline is not the recording's span"
  fi

  # The callgraph, as Sysprof's resolver names the frames.
  run_views "$2" "$pid" >"$tmp/$1.chains" 2>>"$tmp/$1.views.err" \
    || { fail "$1: sysprof-views failed on the chains"; return; }
  if ! awk -v label="$1" '
      $1 == "chain" && $3 == "st_leaf_work" {
        leaf++
        i = 4; r = 0
        while ($i == "st_recurse") { i++; r++ }
        if (r > 0 && $i == "st_run" && $(i + 1) == "main") good++
        else if (bad++ < 3) print label ": unexpected: " $0
      }
      END {
        printf "%s: %d samples in st_leaf_work, %d with the expected path\n", label, leaf, good
        exit !(leaf >= 50 && good >= leaf * 0.9)
      }' "$tmp/$1.chains"; then
    fail "$1: Sysprof does not see the known call paths"
  fi
}

data=$tmp/$prog.data
if ! record_file "$prog" "$data"; then
  cat "$data.record.log"
  die "perf record failed"
fi

# perf.data file -> capture file.
span=$(recording_span "$data")
if run_st file -i "$data" -o "$tmp/file.syscap"; then
  check_capture file "$tmp/file.syscap" "$span"
else
  fail "file: stacktrace failed"
fi

# perf.data file -> capture down a pipe (no end_time in the header, and
# the header cannot be rewritten).
if pipe_out file-pipe -i "$data"; then
  check_capture file-pipe "$tmp/file-pipe.syscap" "$span"
else
  fail "file-pipe: stacktrace failed"
fi

# A pipe-mode recording streamed in (no SAMPLE_TIME feature), out through
# a pipe: the header waits for the first timed event.
# shellcheck disable=SC2086
$ST_PERF_RECORD -o - -- "$(prog_path "$prog")" ${ST_PROG_MS:+"$ST_PROG_MS"} \
  2>"$tmp/pipe.record.log" >"$tmp/pipe.data" \
  || { cat "$tmp/pipe.record.log"; die "perf record -o - failed"; }
if cat "$tmp/pipe.data" | pipe_out pipe -f perf; then
  check_capture pipe "$tmp/pipe.syscap" "$(recording_span "$tmp/pipe.data")"
else
  fail "pipe: stacktrace failed"
fi

finish
