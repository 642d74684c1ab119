#!/bin/sh
# Differential test of the two unwinding engines: --engine fast (cached
# CFI rules) and --engine dwfl (libdwfl for every sample) must give
# identical chains (--chains files byte for byte: addresses and symbols,
# in the same order) and identical statistics (totals and causes) on
# every capture the suite has: the committed fixture, and perf
# recordings of the test programs (each program, a frame-pointer-only
# program without any CFI, deep stacks cut to 2 and 8 KiB, with and
# without stitching).  Any difference is a bug in one of the engines.
# Also requires the fast engine to have done its work itself (cached
# rules, frame pointers where there is no CFI) rather than hand it all
# to libdwfl.  The perf part skips (the fixture part still runs) when
# perf cannot record here.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace

# compare LABEL ARGS...: run both engines on the same input, compare.
compare ()
{
  label=$1
  shift
  if ! run_st "$label-fast" --engine fast "$@" -o "$tmp/$label-fast.out" \
         --chains "$tmp/$label-fast.chains" >/dev/null \
     || ! run_st "$label-dwfl" --engine dwfl "$@" -o "$tmp/$label-dwfl.out" \
         --chains "$tmp/$label-dwfl.chains" >/dev/null; then
    fail "$label: stacktrace failed"
    return
  fi
  samples=$(wc -l <"$tmp/$label-fast.chains")
  if ! cmp -s "$tmp/$label-fast.chains" "$tmp/$label-dwfl.chains"; then
    fail "$label: the engines' chains differ"
    diff "$tmp/$label-fast.chains" "$tmp/$label-dwfl.chains" | head -n 6
  fi
  # Everything but the fast engine's own line must be the same.
  for e in fast dwfl; do
    grep -v '^stacktrace: fast engine:' "$tmp/$label-$e.err" \
      >"$tmp/$label-$e.stats"
  done
  if ! cmp -s "$tmp/$label-fast.stats" "$tmp/$label-dwfl.stats"; then
    fail "$label: the engines' statistics differ"
    diff "$tmp/$label-fast.stats" "$tmp/$label-dwfl.stats"
  fi
  engine=$(grep '^stacktrace: fast engine:' "$tmp/$label-fast.err")
  echo "$label: $samples samples, identical; $engine"
  by_rules=$(echo "$engine" | sed -n 's/.*: \([0-9]*\) samples by cached.*/\1/p')
  if [ "$samples" -gt 0 ] && [ "${by_rules:-0}" -eq 0 ]; then
    fail "$label: the fast engine unwound no sample itself"
  fi
}

echo "== fixture"
fx=$TESTS_DATA/fixture
if [ -f "$fx/fixture.syscap" ] && [ -f "$fx/st-fixture" ]; then
  compare fixture-capture -i "$fx/fixture.syscap" --symfs "$fx"
  [ -f "$fx/fixture.data" ] \
    && compare fixture-perf -i "$fx/fixture.data" --symfs "$fx"
else
  fail "fixture missing"
fi

if ! perf_can_record; then
  echo "perf cannot record here: only the fixture was compared"
  finish
fi

need_progs
for p in $ST_PROGS fp-prog; do
  echo "== $p"
  [ -x "$(prog_path "$p")" ] || die "test program $(prog_path "$p") not built"
  if ! record_file "$p" "$tmp/$p.data"; then
    cat "$tmp/$p.data.record.log"
    fail "$p: perf record failed"
    continue
  fi
  compare "$p" -i "$tmp/$p.data"
  if [ "$p" = fp-prog ]; then
    fp=$(sed -n 's/.*, \([0-9]*\) frame(s) by the frame-pointer step.*/\1/p' \
           "$tmp/$p-fast.err")
    [ "${fp:-0}" -gt 0 ] \
      || fail "fp-prog: no frame was unwound by frame pointer"
  fi
done

echo "== deep-stack, cut stacks"
prog=$(prog_path deep-stack)
[ -x "$prog" ] || die "test program $prog not built"
if perf record -q -N -e cpu-clock -c 2000000 --call-graph=dwarf,16384 \
     -o "$tmp/deep.data" -- "$prog" "${ST_PROG_MS:-500}" \
     >"$tmp/deep.record.log" 2>&1; then
  compare deep -i "$tmp/deep.data"
  compare deep-cut2k -i "$tmp/deep.data" --truncate-stack 2048
  compare deep-cut8k-nostitch -i "$tmp/deep.data" --truncate-stack 8192 \
    --no-stitch
else
  cat "$tmp/deep.record.log"
  fail "deep-stack: perf record failed"
fi

finish
