#!/bin/sh
# Compressed perf.data (perf record -z: PERF_RECORD_COMPRESSED, zstd)
# recorded from the test programs, unwound by stacktrace:
#   z-file   the -z recording read from its file
#   z-cat    the same file through a pipe (the HEADER_COMPRESSED feature
#            comes after the data: the default memory bound applies);
#            chains identical to z-file
#   z-inject perf inject's copy of it, the "decompressed twin" of
#            perf's own tests (perf 6.1 copies the compressed records
#            as they are, in another file layout); chains identical to
#            z-file
#   z-pipe   perf record -z -o - | stacktrace -f perf, live
#   plain    the same program recorded without -z
# all with >= 99% whole known paths (check_chains), and perf itself
# agreeing with our decompression: a passthru perf.data copy of the -z
# recording is uncompressed (no COMPRESSED record, no compressed
# feature) and perf script shows exactly what it shows on the original.
# Skips (77) when perf cannot record.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
need_progs
need_perf

# perf record -z into a file works (it needs zstd support in perf).
if ! $ST_PERF_RECORD -z -o "$tmp/need-z.data" -- true \
     >"$tmp/need-z.log" 2>&1; then
  cat "$tmp/need-z.log"
  skip "perf record -z does not work here"
fi

# record_types DATA: the record types in the data section of the
# file-mode perf.data DATA, one a line.
record_types ()
{
  python3 - "$1" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off, size = struct.unpack_from('<QQ', d, 40)
pos, end = off, off + size
while pos + 8 <= end:
    t, _m, s = struct.unpack_from('<IHH', d, pos)
    print(t)
    if s < 8:
        break
    pos += s
EOF
}

for p in ${ST_COMPRESSED_PROGS:-deep-recursion threads uses-lib}; do
  echo "== $p"
  z=$tmp/$p-z.data
  # shellcheck disable=SC2086
  if ! $ST_PERF_RECORD -z -o "$z" -- "$(prog_path "$p")" \
       ${ST_PROG_MS:+"$ST_PROG_MS"} >"$z.record.log" 2>&1; then
    cat "$z.record.log"
    fail "$p: perf record -z failed"
    continue
  fi
  if command -v python3 >/dev/null 2>&1; then
    record_types "$z" | grep -qx 81 \
      || fail "$p: perf record -z wrote no PERF_RECORD_COMPRESSED"
  fi

  if run_st "$p-z-file" -i "$z" -o "$tmp/$p-z-file.syscap" \
       --chains "$tmp/$p-z-file.chains"; then
    check_chains "$p-z-file" "$p" "$tmp/$p-z-file.chains" \
      || fail "$p-z-file"
  else
    fail "$p-z-file: stacktrace failed"
  fi

  # shellcheck disable=SC2002
  if cat "$z" | run_st "$p-z-cat" -f perf -o "$tmp/$p-z-cat.syscap" \
       --chains "$tmp/$p-z-cat.chains"; then
    cmp -s "$tmp/$p-z-file.chains" "$tmp/$p-z-cat.chains" \
      || fail "$p-z-cat: chains differ from those read from the file"
  else
    fail "$p-z-cat: stacktrace failed"
  fi

  if perf inject -i "$z" -o "$tmp/$p-inject.data" \
       >"$tmp/$p-inject.log" 2>&1; then
    if run_st "$p-z-inject" -i "$tmp/$p-inject.data" \
         -o "$tmp/$p-z-inject.syscap" --chains "$tmp/$p-z-inject.chains"; then
      cmp -s "$tmp/$p-z-file.chains" "$tmp/$p-z-inject.chains" \
        && echo "$p-z-inject: chains identical" \
        || fail "$p-z-inject: chains differ from the -z recording's"
    else
      fail "$p-z-inject: stacktrace failed"
    fi
  else
    cat "$tmp/$p-inject.log"
    fail "$p: perf inject failed"
  fi

  # shellcheck disable=SC2086
  if $ST_PERF_RECORD -z -o - -- "$(prog_path "$p")" \
       ${ST_PROG_MS:+"$ST_PROG_MS"} 2>"$tmp/$p-z-pipe.record.log" \
     | run_st "$p-z-pipe" -f perf -o "$tmp/$p-z-pipe.syscap" \
         --chains "$tmp/$p-z-pipe.chains"; then
    check_chains "$p-z-pipe" "$p" "$tmp/$p-z-pipe.chains" \
      || fail "$p-z-pipe"
  else
    cat "$tmp/$p-z-pipe.record.log"
    fail "$p-z-pipe: perf record -z -o - | stacktrace failed"
  fi

  plain=$tmp/$p-plain.data
  if record_file "$p" "$plain" \
     && run_st "$p-plain" -i "$plain" -o "$tmp/$p-plain.syscap" \
          --chains "$tmp/$p-plain.chains"; then
    check_chains "$p-plain" "$p" "$tmp/$p-plain.chains" || fail "$p-plain"
  else
    fail "$p-plain: perf record or stacktrace failed"
  fi

  # perf's decompression against ours: the passthru copy is uncompressed
  # and perf script sees the same samples in it.
  copy=$tmp/$p-copy.data
  if run_st "$p-copy" -m passthru -i "$z" --output-format perf -o "$copy" \
     && perf_script "$z" "$z.script" && perf_script "$copy" "$copy.script"
  then
    [ -s "$z.script" ] || fail "$p-copy: perf script shows nothing"
    cmp -s "$z.script" "$copy.script" \
      && echo "$p-copy: perf script output identical" \
      || fail "$p-copy: perf script shows something else on the copy"
    if command -v python3 >/dev/null 2>&1; then
      ! record_types "$copy" | grep -qx -e 81 -e 83 \
        || fail "$p-copy: compressed records in the uncompressed output"
    fi
    perf report -i "$copy" --header-only 2>/dev/null \
      | grep -q '^# compressed' \
      && fail "$p-copy: the output still has the compressed feature"
  else
    tail -n 5 "$z.script.err" "$copy.script.err" 2>/dev/null
    fail "$p-copy: stacktrace or perf script failed"
  fi
done

finish
