#!/bin/sh
# hotspot's own perf.data parser (Debian's hotspot: hotspot-perfparser,
# what hotspot runs to open a perf.data) on our perf.data output:
# `perf record --call-graph=dwarf -e cpu-clock` of test programs with
# known call paths, unwound by stacktrace into a perf.data file and into
# a pipe-mode stream read from its stdin.  It must exit 0, report no
# error to hotspot, print no complaint it does not also print for perf's
# own recording, and give every sample exactly the user frames (leaf
# first) that stacktrace --chains gives it (a sample that had no raw stack
# has no user frames there either).  Skips (77) without perf or
# hotspot.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
need_progs
: "${HOTSPOT_PERFPARSER:=/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}"
[ -x "$HOTSPOT_PERFPARSER" ] || skip "no $HOTSPOT_PERFPARSER (Debian package hotspot)"
frames=$TESTS_BUILDDIR/harness/perfparser-frames
[ -x "$frames" ] || die "harness/perfparser-frames not built"
need_perf

# compare LABEL STREAM CHAINS REFERENCE_ERR
compare ()
{
  if ! "$frames" "$2" >"$tmp/$1.frames"; then
    fail "$1: cannot decode the parser's stream"
    return
  fi
  if grep '^error' "$tmp/$1.frames"; then
    fail "$1: hotspot's parser reported errors"
  fi
  # Its complaints about perf's own file (features it does not read, record
  # types it ignores) are no fault of ours; any other one is, except that
  # it ignores the build-ids of a pipe-mode stream (HEADER_BUILD_ID, 67:
  # we carry them over from the file; perf inject -b writes them too).
  if grep -vxF -f "$4" "$tmp/$1.err" \
     | grep -v '^unhandled event type 67 *PERF_RECORD_HEADER_BUILD_ID$' \
     | grep .; then
    fail "$1: hotspot's parser complained about our output"
  fi
  if ! awk -v label="$1" '
      FNR == NR { ours[$2 " " $3] = $4; n_ours++; next }
      $1 == "sample" {
        n++
        key = $3 " " $4
        if (key in ours) {
          compared++
          if (ours[key] == $5) same++
          else if (bad++ < 3) print label ": differs at " key ": hotspot " $5 " ours " ours[key]
        } else if ($5 == "") {
          # A sample without user registers and stack (taken in the
          # kernel, e.g. during the exec): nothing to unwind, no --chains
          # line, no user frames in either.
          kernel_only++
        } else if (unknown++ < 3) print label ": not ours: " $0
      }
      END {
        printf "%s: hotspot-perfparser: %d samples, %d of them with a --chains line (of %d), %d with the same user frames; %d kernel-only, %d unknown\n", label, n, compared, n_ours, same, kernel_only, unknown
        exit !(compared == n_ours && same == compared && unknown == 0 && n >= 50)
      }' "$3" "$tmp/$1.frames"; then
    fail "$1: hotspot's frames differ from ours"
  fi
}

for p in deep-recursion uses-lib threads; do
  echo "== $p"
  data=$tmp/$p.data
  if ! record_file "$p" "$data"; then
    cat "$data.record.log"
    fail "$p: perf record failed"
    continue
  fi
  # What the parser prints for perf's own recording.
  "$HOTSPOT_PERFPARSER" --input "$data" --output "$tmp/$p-raw.qt" \
    2>"$tmp/$p-raw.err" || fail "$p: hotspot-perfparser fails on perf's own recording"

  if run_st "$p-file" -i "$data" --output-format perf -o "$tmp/$p-unw.data" \
       --chains "$tmp/$p-file.chains"; then
    if "$HOTSPOT_PERFPARSER" --input "$tmp/$p-unw.data" \
         --output "$tmp/$p-file.qt" 2>"$tmp/$p-file.err"; then
      compare "$p-file" "$tmp/$p-file.qt" "$tmp/$p-file.chains" "$tmp/$p-raw.err"
    else
      cat "$tmp/$p-file.err"
      fail "$p-file: hotspot-perfparser failed"
    fi
  else
    fail "$p-file: stacktrace failed"
  fi

  # A pipe-mode perf.data, streamed into the parser's stdin; its
  # complaints compared with those about perf's own pipe-mode recording.
  # shellcheck disable=SC2086
  $ST_PERF_RECORD -o - -- "$(prog_path "$p")" ${ST_PROG_MS:+"$ST_PROG_MS"} \
      2>"$tmp/$p-raw-pipe.record.log" \
    | "$HOTSPOT_PERFPARSER" --output "$tmp/$p-raw-pipe.qt" \
        2>"$tmp/$p-raw-pipe.err" \
    || fail "$p: hotspot-perfparser fails on perf's own pipe-mode recording"
  "$STACKTRACE" -q -i "$data" --output-format perf -o - \
      --chains "$tmp/$p-pipe.chains" 2>"$tmp/$p-pipe.st.err" \
    | "$HOTSPOT_PERFPARSER" --output "$tmp/$p-pipe.qt" 2>"$tmp/$p-pipe.err"
  status=$?
  if [ -s "$tmp/$p-pipe.st.err" ]; then
    cat "$tmp/$p-pipe.st.err"
    fail "$p-pipe: stacktrace failed"
  elif [ $status -ne 0 ]; then
    cat "$tmp/$p-pipe.err"
    fail "$p-pipe: hotspot-perfparser failed on the stream"
  else
    compare "$p-pipe" "$tmp/$p-pipe.qt" "$tmp/$p-pipe.chains" \
      "$tmp/$p-raw-pipe.err"
  fi
done

finish
