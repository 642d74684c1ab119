#!/bin/sh
# Damaged input through the whole command: copies of the committed
# fixture capture and perf.data with a broken frame length, an
# inconsistent raw-stack frame or record, and a cut-off end.  Each damage
# must be reported once with its offset, the exit status must be 1, and
# every other frame or record must still be written (and unwound).
# The offsets below are those of the committed fixture files.
. "$TESTS_SRCDIR/lib/test-lib.sh"
need_stacktrace
fx=$TESTS_DATA/fixture

# patch FILE OFFSET BYTES: overwrite with printf-escaped BYTES.
patch ()
{
  printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null \
    || die "cannot patch $1"
}

expect_message ()
{
  grep -q -- "$2" "$tmp/$1.err" || fail "$1: no message '$2'"
}

# --- capture: 313 frames, 301 of them STACK_USER ------------------------
cp "$fx/fixture.syscap" "$tmp/damaged.syscap"
patch "$tmp/damaged.syscap" 23168 '\014\000'          # a frame length of 12
patch "$tmp/damaged.syscap" 47576 '\005\000\000\000'  # n_regs 5 (frame 45488)
# Cut 12 bytes into the last frame (an EXIT at 673040).
head -c 673052 "$tmp/damaged.syscap" >"$tmp/cut.syscap"

for mode in passthru naive; do
  "$STACKTRACE" -m $mode -i "$tmp/cut.syscap" --symfs "$fx" \
    -o "$tmp/out-$mode.syscap" 2>"$tmp/capture-$mode.err"
  status=$?
  cat "$tmp/capture-$mode.err"
  [ $status -eq 1 ] || fail "capture $mode: exit status $status, expected 1"
  expect_message capture-$mode 'offset 23168: bad capture frame: length 12 is shorter than the 24-byte frame header; skipped 2232 bytes from offset 23168 to offset 25400'
  expect_message capture-$mode 'offset 45488: bad capture frame (type 18): register count is neither 17 (x86_64), 9 (i386) nor 33 (aarch64); frame passed on unchanged'
  expect_message capture-$mode 'offset 673040: input ended inside a capture frame header (12 of 24 bytes)'
  expect_message capture-$mode 'damaged input (first at offset 23168): 1 passed on unchanged (2232 bytes), 1 skipped (2232 bytes), 1 cut off (12 bytes)'
  expect_message capture-$mode '^stacktrace: 311 events read'
  # The output holds the inconsistent frame, passed on unchanged, and
  # nothing else damaged.
  "$STACKTRACE" -m none -i "$tmp/out-$mode.syscap" 2>"$tmp/check-$mode.err"
  expect_message check-$mode 'register count is neither 17'
  expect_message check-$mode 'the input was damaged in 1 place(s)'
done
expect_message capture-naive 'total: 299 samples, 299 unwound to the root'

# --- perf.data: 326 records, 301 samples; data section 264..691112 -------
cp "$fx/fixture.data" "$tmp/damaged.data"
patch "$tmp/damaged.data" 25006 '\004\000'            # record size 4
patch "$tmp/damaged.data" 50152 '\000\020'            # dyn_size 4096 > 2048
head -c 690000 "$tmp/damaged.data" >"$tmp/cut.data"   # cut in a sample

for input in damaged cut; do
  "$STACKTRACE" -i "$tmp/$input.data" --symfs "$fx" -o "$tmp/out-$input.syscap" \
    2>"$tmp/perf-$input.err"
  status=$?
  cat "$tmp/perf-$input.err"
  [ $status -eq 1 ] || fail "perf $input: exit status $status, expected 1"
  expect_message perf-$input 'offset 25000: bad perf record (type 9, size 4): smaller than its 8-byte header; skipped 2288 bytes from offset 25000 to offset 27288'
  expect_message perf-$input 'offset 47880: bad perf record (type 9, size 2288): stack dyn_size 4096 exceeds the copied size 2048; record passed on unchanged'
  "$STACKTRACE" -m none -i "$tmp/out-$input.syscap" 2>/dev/null \
    || fail "perf $input: the output is not a clean capture"
done
expect_message perf-damaged 'total: 299 samples, 299 unwound to the root'
expect_message perf-cut 'offset 688768: input ended inside a perf record (1232 of 2288 bytes)'
expect_message perf-cut 'the feature sections are ignored'
expect_message perf-cut 'total: 298 samples, 298 unwound to the root'
finish
