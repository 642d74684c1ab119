#!/bin/sh
# --jobs: the output is the same byte for byte at --jobs 1, 2 and 8,
# into perf.data and into a capture, the --chains file, the statistics
# file (but for its clock lines), the final statistics and --summary:
# for the committed fixture (perf.data and capture input, the two
# engines, stitching with --truncate-stack), a damaged and a cut
# perf.data, and a fresh multi-threaded recording (skipped, 77, when
# perf cannot record here; the rest has run by then) -- each read from
# the file (--priming sync) and through a pipe (a live input: --priming
# defer, the roots of its processes held; the statistics file but for
# the priming figures that tell how long samples waited, which vary
# from run to run at any --jobs).  Nothing timed: speed is make bench's.
. "$TESTS_SRCDIR/lib/test-lib.sh"
need_stacktrace
fx=$TESTS_DATA/fixture

# run LABEL JOBS INPUT ARGS...: every output of one run into
# $tmp/LABEL-jJOBS.*; the exit status in $tmp/LABEL-jJOBS.status.
# INPUT read from the file, or through a pipe when VIA is pipe.
run ()
{
  r_label=$1 r_jobs=$2 r_input=$3
  shift 3
  r_out=$tmp/$r_label-j$r_jobs
  for r_format in perf sysprof; do
    # No debuginfod (DEBUGINFOD_URLS may be set here): no server is
    # asked from a test.  (debuginfod-fallback.sh compares --jobs with
    # a server of its own.)
    # (From a file, the pipe on standard input is left unread.)
    r_from=$r_input
    [ "$via" = pipe ] && r_from=-
    { [ "$via" != pipe ] || cat "$r_input"; } \
      | "$STACKTRACE" --jobs "$r_jobs" -i "$r_from" --force --no-debuginfod \
          --output-format $r_format -o "$r_out.$r_format" \
          --chains "$r_out.$r_format.chains" \
          --stats-file "$r_out.$r_format.stats" --summary "$@" \
          >"$r_out.$r_format.summary" 2>"$r_out.$r_format.err"
    echo $? >"$r_out.$r_format.status"
    # A capture made from a perf.data stream without perf's clock is
    # dated when it is written (the header's capture_time, bytes 8 to
    # 71; from a file, by the file's time).
    if [ "$via" = pipe ] && [ $r_format = sysprof ]; then
      tail -c +73 "$r_out.$r_format" >"$r_out.$r_format.undated" \
        && mv "$r_out.$r_format.undated" "$r_out.$r_format"
    fi
    # The clock at the end of the run differs from run to run, and so,
    # through a pipe (defer), do the waits for modules.
    if [ "$via" = pipe ]; then
      stats_untimed "$r_out.$r_format.stats"
    else
      stats_unclocked "$r_out.$r_format.stats"
    fi >"$r_out.$r_format.stats-noclock"
  done
}

# same LABEL INPUT ARGS...: runs at 1, 2 and 8 jobs compared, reading
# INPUT from the file and through a pipe (LABEL-pipe).
same ()
{
  via=file
  same_via "$@"
  s_label=$1
  shift
  via=pipe
  same_via "$s_label-pipe" "$@"
}

# same_via LABEL INPUT ARGS...: runs at 1, 2 and 8 jobs compared.
same_via ()
{
  s_label=$1
  shift
  for s_jobs in 1 2 8; do
    run "$s_label" $s_jobs "$@"
  done
  for s_format in perf sysprof; do
    for s_jobs in 2 8; do
      for s_what in "" .chains .stats-noclock .summary .err .status; do
        cmp "$tmp/$s_label-j1.$s_format$s_what" \
          "$tmp/$s_label-j$s_jobs.$s_format$s_what" >/dev/null \
          || fail "$s_label: --jobs $s_jobs differs from --jobs 1 in" \
                  "the $s_format output${s_what:+ ($s_what)}"
      done
    done
  done
  # Something was unwound, so that the comparison says something.
  [ -s "$tmp/$s_label-j1.perf.chains" ] \
    || fail "$s_label: no --chains line at --jobs 1"
  echo "$s_label: $(wc -l <"$tmp/$s_label-j1.perf.chains") chains," \
       "the same at --jobs 1, 2 and 8"
}

# Where workers cannot give one thread's result (drop: what is ready on
# the main thread at that moment), the run says it goes on one thread.
"$STACKTRACE" --jobs 2 --priming drop -i "$fx/fixture.data" \
  --symfs "$fx" -o "$tmp/drop.data" --force 2>"$tmp/drop.err" \
  || fail "--jobs 2 --priming drop failed: $(cat "$tmp/drop.err")"
grep -F -q -e "--jobs 2: unwinding on one thread: workers are not used with --priming drop" \
  "$tmp/drop.err" || fail "--jobs 2 with --priming drop did not say it used one thread: $(cat "$tmp/drop.err")"

# Bad values are refused.
for bad in -1 65 x; do
  "$STACKTRACE" --jobs $bad -m none -i "$fx/fixture.data" 2>"$tmp/bad.err"
  [ $? -eq 2 ] || fail "--jobs $bad was not refused as a usage error"
done

same fixture-perf "$fx/fixture.data" --symfs "$fx"
same fixture-capture "$fx/fixture.syscap" --symfs "$fx"
same fixture-dwfl "$fx/fixture.data" --symfs "$fx" --engine dwfl
same fixture-stitch "$fx/fixture.data" --symfs "$fx" --truncate-stack 1024

# Damaged: a record size of 4 (10th sample), a stack dyn_size past the
# copy (20th), and the input cut inside the last sample.
perf_records "$fx/fixture.data" >"$tmp/records"
set -- $(awk '$2 == 9 { if (++k == 10) print $1 }' "$tmp/records")
bad_size_at=$1
set -- $(awk '$2 == 9 { if (++k == 20) print $1, $3 }' "$tmp/records")
bad_dyn_at=$1 bad_dyn_size=$2
set -- $(awk '$2 == 9 { at = $1 } END { print at }' "$tmp/records")
cut_at=$1
[ -n "$bad_size_at" ] && [ -n "$bad_dyn_at" ] && [ -n "$cut_at" ] \
  || die "the fixture perf.data has too few samples"
cp "$fx/fixture.data" "$tmp/damaged.data"
patch_bytes "$tmp/damaged.data" $((bad_size_at + 6)) '\004\000'
patch_bytes "$tmp/damaged.data" $((bad_dyn_at + bad_dyn_size - 16)) '\000\020'
head -c $((cut_at + 1232)) "$tmp/damaged.data" >"$tmp/cut.data"
same damaged "$tmp/damaged.data" --symfs "$fx"
same cut "$tmp/cut.data" --symfs "$fx"
[ "$(cat "$tmp/cut-j8.perf.status")" = 1 ] \
  || fail "cut: exit status $(cat "$tmp/cut-j8.perf.status"), expected 1"

# A multi-threaded program recorded now (several threads sampled in one
# perf round: the samples of a batch are walked by several workers).
need_progs
if ! perf_can_record; then
  [ "$st_failed" -eq 0 ] || finish
  skip "perf cannot record here"
fi
record_file threads "$tmp/threads.data" \
  || { cat "$tmp/threads.data.record.log"; die "perf record failed"; }
same threads "$tmp/threads.data"
finish
