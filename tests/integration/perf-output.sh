#!/bin/sh
# perf.data output checked by perf itself: perf script and perf report on
# what stacktrace writes must show, for >= 98% of the samples, the user
# call paths perf computes by its own DWARF unwinding of the raw
# recording (compare_perf_scripts, compare_perf_reports in test-lib.sh).
#   file    perf.data file -> --output-format perf file
#   pipe    the same into a pipe, read by perf report -i - / script -i -
#   stream  perf record -o - | stacktrace | perf report -i -, all pipes
#   c-unw   perf.data -> unwound capture -> perf.data (passthru)
#   c-raw   perf.data -> raw capture -> perf.data with raw stacks, which
#           perf unwinds itself
#   c-st    perf.data -> raw capture -> perf.data unwound by stacktrace
#   c-pipe  the raw capture -> perf.data with raw stacks, into a pipe
# and, in passthru mode, perf.data -> perf.data changes nothing perf
# script shows (file mode) and is byte-identical (pipe mode).
# Skips (77) when perf cannot record.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
need_progs
need_perf

# perf_checks LABEL OUT REF: perf script and perf report on OUT (a file,
# or a pipe-mode stream saved in a file and read from standard input)
# against those on the raw recording REF.
perf_checks ()
{
  if [ "$2" = "${2%.pipe-data}" ]; then
    perf_script "$2" "$2.script" && perf_report_folded "$2" "$2.folded"
  else
    perf_script - "$2.script" <"$2" && perf_report_folded - "$2.folded" <"$2"
  fi || {
    tail -n 5 "$2.script.err" "$2.folded.err" 2>/dev/null
    fail "$1: perf script or perf report failed on $2"
    return
  }
  compare_perf_scripts "$1" "$3.script" "$2.script" || fail "$1 (perf script)"
  compare_perf_reports "$1" "$3.folded" "$2.folded" "$3.script" \
    || fail "$1 (perf report)"
}

# reference DATA: perf's own view of the raw recording DATA.
reference ()
{
  perf_script "$1" "$1.script" && [ -s "$1.script" ] \
    && perf_report_folded "$1" "$1.folded" && [ -s "$1.folded" ]
}

for p in ${ST_OUTPUT_PROGS:-threads uses-lib deep-recursion}; do
  echo "== $p"
  data=$tmp/$p.data
  if ! record_file "$p" "$data"; then
    cat "$data.record.log"
    fail "$p: perf record failed"
    continue
  fi
  if ! reference "$data"; then
    tail -n 5 "$data.script.err" "$data.folded.err"
    fail "$p: perf script or report failed on the raw recording"
    continue
  fi

  if run_st "$p-file" -i "$data" --output-format perf -o "$tmp/$p-file.data"
  then
    perf_checks "$p-file" "$tmp/$p-file.data" "$data"
  else
    fail "$p-file: stacktrace failed"
  fi

  # Into a pipe (pipe mode), consumed by perf report at once.
  out=$tmp/$p-pipe.pipe-data
  "$STACKTRACE" -q -i "$data" --output-format perf 2>"$out.err" \
    | tee "$out" | perf_report_folded - "$out.folded-live" \
    || fail "$p-pipe: stacktrace | perf report -i - failed"
  cat "$out.err"
  perf_checks "$p-pipe" "$out" "$data"
  cmp -s "$out.folded" "$out.folded-live" \
    || fail "$p-pipe: perf report differs between the pipe and the saved stream"

  # The whole chain in pipes: perf record -o - | stacktrace | perf report.
  raw=$tmp/$p-stream-raw.pipe-data
  out=$tmp/$p-stream.pipe-data
  # shellcheck disable=SC2086
  $ST_PERF_RECORD -o - -- "$(prog_path "$p")" ${ST_PROG_MS:+"$ST_PROG_MS"} \
      2>"$raw.record.log" | tee "$raw" \
    | "$STACKTRACE" -q -f perf --output-format perf 2>"$out.err" \
    | tee "$out" | perf_report_folded - "$out.folded-live" \
    || fail "$p-stream: perf record -o - | stacktrace | perf report -i - failed"
  cat "$out.err"
  if perf_script - "$raw.script" <"$raw" \
     && perf_report_folded - "$raw.folded" <"$raw"; then
    perf_checks "$p-stream" "$out" "$raw"
  else
    fail "$p-stream: perf script or report failed on the raw stream"
  fi

  # Conversions through a Sysprof capture.
  if run_st "$p-c-unw-1" -i "$data" -o "$tmp/$p-unw.syscap" \
     && run_st "$p-c-unw" -m passthru -i "$tmp/$p-unw.syscap" \
          --output-format perf -o "$tmp/$p-c-unw.data"; then
    perf_checks "$p-c-unw" "$tmp/$p-c-unw.data" "$data"
  else
    fail "$p-c-unw: stacktrace failed"
  fi
  if run_st "$p-c-raw-1" -m passthru -i "$data" -o "$tmp/$p-raw.syscap" \
     && run_st "$p-c-raw" -m passthru -i "$tmp/$p-raw.syscap" \
          --output-format perf -o "$tmp/$p-c-raw.data"; then
    perf_checks "$p-c-raw" "$tmp/$p-c-raw.data" "$data"
  else
    fail "$p-c-raw: stacktrace failed"
  fi
  if run_st "$p-c-st" -i "$tmp/$p-raw.syscap" --output-format perf \
       -o "$tmp/$p-c-st.data"; then
    perf_checks "$p-c-st" "$tmp/$p-c-st.data" "$data"
  else
    fail "$p-c-st: stacktrace failed"
  fi
  out=$tmp/$p-c-pipe.pipe-data
  "$STACKTRACE" -q -m passthru -i "$tmp/$p-raw.syscap" --output-format perf \
    2>"$out.err" | cat >"$out" || fail "$p-c-pipe: stacktrace failed"
  cat "$out.err"
  perf_checks "$p-c-pipe" "$out" "$data"

  # Passthru: nothing perf script shows changes; a pipe-mode stream is
  # copied byte for byte.
  if run_st "$p-copy" -m passthru -i "$data" --output-format perf \
       -o "$tmp/$p-copy.data" \
     && perf_script "$tmp/$p-copy.data" "$tmp/$p-copy.script"; then
    cmp -s "$data.script" "$tmp/$p-copy.script" \
      && echo "$p-copy: perf script output identical" \
      || fail "$p-copy: perf script shows something else on the copy"
  else
    fail "$p-copy: stacktrace or perf script failed"
  fi
  "$STACKTRACE" -q -m passthru -f perf --output-format perf <"$raw" \
      2>"$tmp/$p-copy-pipe.err" | cmp -s - "$raw" \
    && echo "$p-copy-pipe: byte-identical" \
    || fail "$p-copy-pipe: the pipe-mode copy differs from its input"
done

finish
