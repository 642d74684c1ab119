#!/bin/sh
# Record the test programs with perf --call-graph=dwarf and unwind the
# raw stacks with stacktrace, from a perf.data file, the same file through
# a pipe, a pipe-mode recording streamed straight in, a Sysprof capture
# converted from the perf.data, and a perf.data whose records are out of
# time order (the program changes CPU right after exec).  Of the samples whose leaf is a known leaf
# function, >= 99% must have exactly the expected call path (see
# check_chains in test-lib.sh).  Skips (77) when perf cannot record.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
need_progs
need_perf

for p in $ST_PROGS; do
  echo "== $p"
  data=$tmp/$p.data
  if ! record_file "$p" "$data"; then
    cat "$data.record.log"
    fail "$p: perf record failed"
    continue
  fi

  # 1. perf.data read from the file.
  if run_st "$p-file" -i "$data" -o "$tmp/$p-file.syscap" \
       --chains "$tmp/$p-file.chains"; then
    check_chains "$p-file" "$p" "$tmp/$p-file.chains" || fail "$p-file"
  else
    fail "$p-file: stacktrace failed"
  fi

  # 2. The same perf.data through a pipe (no seeking, no feature sections).
  # shellcheck disable=SC2002
  if cat "$data" | run_st "$p-cat" -f perf -o "$tmp/$p-cat.syscap" \
       --chains "$tmp/$p-cat.chains"; then
    check_chains "$p-cat" "$p" "$tmp/$p-cat.chains" || fail "$p-cat"
  else
    fail "$p-cat: stacktrace failed"
  fi

  # 3. A pipe-mode recording streamed into stacktrace.
  # shellcheck disable=SC2086
  if $ST_PERF_RECORD -o - -- "$(prog_path "$p")" ${ST_PROG_MS:+"$ST_PROG_MS"} \
       2>"$tmp/$p-pipe.record.log" \
     | run_st "$p-pipe" -f perf -o "$tmp/$p-pipe.syscap" \
         --chains "$tmp/$p-pipe.chains"; then
    check_chains "$p-pipe" "$p" "$tmp/$p-pipe.chains" || fail "$p-pipe"
  else
    cat "$tmp/$p-pipe.record.log"
    fail "$p-pipe: stacktrace failed"
  fi

  # 4. perf.data -> capture with raw stacks (passthru), then unwound.
  if run_st "$p-passthru" -m passthru -f perf -i "$data" \
       -o "$tmp/$p-raw.syscap" \
     && run_st "$p-capture" -i "$tmp/$p-raw.syscap" \
          -o "$tmp/$p-capture.syscap" --chains "$tmp/$p-capture.chains"; then
    check_chains "$p-capture" "$p" "$tmp/$p-capture.chains" \
      || fail "$p-capture"
  else
    fail "$p-capture: stacktrace failed"
  fi

  # 5. Samples ahead of their exec/mmap records in the file.
  record_migrated "$p" "$tmp/$p-migrated.data"
  case $? in
    0)
      if run_st "$p-migrated" -i "$tmp/$p-migrated.data" \
           -o "$tmp/$p-migrated.syscap" --chains "$tmp/$p-migrated.chains"; then
        check_chains "$p-migrated" "$p" "$tmp/$p-migrated.chains" \
          || fail "$p-migrated"
      else
        fail "$p-migrated: stacktrace failed"
      fi
      ;;
    77)
      echo "$p-migrated: skipped (needs 2 CPUs and taskset)"
      ;;
    *)
      cat "$tmp/$p-migrated.data.record.log"
      fail "$p-migrated: perf record failed"
      ;;
  esac

  # The same samples must unwind the same whichever way they came in.
  for v in cat capture; do
    [ -s "$tmp/$p-$v.chains" ] || continue
    if ! cmp -s "$tmp/$p-file.chains" "$tmp/$p-$v.chains"; then
      diff "$tmp/$p-file.chains" "$tmp/$p-$v.chains" | head -n 6
      fail "$p: chains from $v differ from the perf.data file's"
    fi
  done
done

finish
