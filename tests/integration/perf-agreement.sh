#!/bin/sh
# Compare stacktrace's user callchains with perf's own DWARF unwinding
# (perf script) of the same recordings, sample by sample (tid + time):
# >= 98% of the samples where both have a chain must be identical by
# address; the share identical by symbol is logged.  Samples where perf's
# own unwinding stopped early are counted but not compared (see
# compare_perf in test-lib.sh).  Skips (77) when perf cannot record.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
need_progs
need_perf

for p in $ST_PROGS; do
  echo "== $p"
  data=$tmp/$p.data
  pipe_data=$tmp/$p.pipe-data
  if ! record_file "$p" "$data"; then
    cat "$data.record.log"
    fail "$p: perf record failed"
    continue
  fi
  # shellcheck disable=SC2086
  if ! $ST_PERF_RECORD -o - -- "$(prog_path "$p")" ${ST_PROG_MS:+"$ST_PROG_MS"} \
       >"$pipe_data" 2>"$pipe_data.record.log"; then
    cat "$pipe_data.record.log"
    fail "$p: perf record -o - failed"
    continue
  fi
  for d in "$data" "$pipe_data"; do
    if ! perf_script "$d" "$d.script" || ! [ -s "$d.script" ]; then
      tail -n 5 "$d.script.err"
      fail "$p: perf script failed on $d"
      continue 2
    fi
  done

  # perf.data file, the same through a pipe, a pipe-mode recording, the
  # capture converted from the file, and a file out of time order.
  if run_st "$p-file" -i "$data" -o "$tmp/$p-file.syscap" \
       --chains "$tmp/$p-file.chains"; then
    compare_perf "$p-file" "$data.script" "$tmp/$p-file.chains" \
      || fail "$p-file"
  else
    fail "$p-file: stacktrace failed"
  fi
  # cat: a real pipe, not a seekable redirected file.
  # shellcheck disable=SC2002
  if cat "$data" | run_st "$p-cat" -f perf -o "$tmp/$p-cat.syscap" \
       --chains "$tmp/$p-cat.chains"; then
    compare_perf "$p-cat" "$data.script" "$tmp/$p-cat.chains" \
      || fail "$p-cat"
  else
    fail "$p-cat: stacktrace failed"
  fi
  # shellcheck disable=SC2002
  if cat "$pipe_data" | run_st "$p-pipe" -f perf -o "$tmp/$p-pipe.syscap" \
       --chains "$tmp/$p-pipe.chains"; then
    compare_perf "$p-pipe" "$pipe_data.script" "$tmp/$p-pipe.chains" \
      || fail "$p-pipe"
  else
    fail "$p-pipe: stacktrace failed"
  fi
  if run_st "$p-passthru" -m passthru -f perf -i "$data" \
       -o "$tmp/$p-raw.syscap" \
     && run_st "$p-capture" -i "$tmp/$p-raw.syscap" \
          -o "$tmp/$p-capture.syscap" --chains "$tmp/$p-capture.chains"; then
    compare_perf "$p-capture" "$data.script" "$tmp/$p-capture.chains" \
      || fail "$p-capture"
  else
    fail "$p-capture: stacktrace failed"
  fi
  mdata=$tmp/$p-migrated.data
  record_migrated "$p" "$mdata"
  case $? in
    0)
      if ! perf_script "$mdata" "$mdata.script" || ! [ -s "$mdata.script" ]; then
        tail -n 5 "$mdata.script.err"
        fail "$p: perf script failed on $mdata"
      elif run_st "$p-migrated" -i "$mdata" -o "$tmp/$p-migrated.syscap" \
             --chains "$tmp/$p-migrated.chains"; then
        compare_perf "$p-migrated" "$mdata.script" "$tmp/$p-migrated.chains" \
          || fail "$p-migrated"
      else
        fail "$p-migrated: stacktrace failed"
      fi
      ;;
    77)
      echo "$p-migrated: skipped (needs 2 CPUs and taskset)"
      ;;
    *)
      cat "$mdata.record.log"
      fail "$p-migrated: perf record failed"
      ;;
  esac
done

finish
