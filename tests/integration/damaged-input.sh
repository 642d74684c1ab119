#!/bin/sh
# Damaged input through the whole command: copies of the committed
# fixture capture and perf.data with a broken frame length, an
# inconsistent raw-stack frame or record, and a cut-off end.  Each damage
# must be reported once with its offset, the exit status must be 1, and
# every other frame or record must still be written (and unwound).
# The frames and records damaged are found in the committed fixture
# files (capture_frames, perf_records), not written down.
. "$TESTS_SRCDIR/lib/test-lib.sh"
need_stacktrace
fx=$TESTS_DATA/fixture

expect_message ()
{
  grep -q -- "$2" "$tmp/$1.err" || fail "$1: no message '$2'"
}

# --- capture: a frame length, a raw-stack frame, the end -----------------
# The offsets are found in the fixture: the 10th and 20th STACK_USER
# frames, the last frame.
capture_frames "$fx/fixture.syscap" >"$tmp/frames"
n_frames=$(wc -l <"$tmp/frames")
n_stacks=$(awk '$2 == 18' "$tmp/frames" | wc -l)
set -- $(awk '$2 == 18 { if (++k == 10) print $1, $3 }' "$tmp/frames")
bad_len_at=$1 bad_len_size=$2
set -- $(awk '$2 == 18 { if (++k == 20) print $1, $3 }' "$tmp/frames")
bad_regs_at=$1
set -- $(tail -n 1 "$tmp/frames")
last_at=$1
[ -n "$bad_len_at" ] && [ -n "$bad_regs_at" ] && [ -n "$last_at" ] \
  || die "the fixture capture has too few frames"
# n_regs of a STACK_USER frame: after its header (24), size (8), tid and
# padding (8) and the stack bytes.
regs_at=$((bad_regs_at + 40 + $(u64_at "$fx/fixture.syscap" $((bad_regs_at + 24)))))

cp "$fx/fixture.syscap" "$tmp/damaged.syscap"
patch_bytes "$tmp/damaged.syscap" "$bad_len_at" '\014\000'      # a frame length of 12
patch_bytes "$tmp/damaged.syscap" "$regs_at" '\005\000\000\000'  # n_regs 5
# Cut 12 bytes into the last frame.
head -c $((last_at + 12)) "$tmp/damaged.syscap" >"$tmp/cut.syscap"

for mode in passthru naive; do
  "$STACKTRACE" -m $mode -i "$tmp/cut.syscap" --symfs "$fx" \
    -o "$tmp/out-$mode.syscap" 2>"$tmp/capture-$mode.err"
  status=$?
  cat "$tmp/capture-$mode.err"
  [ $status -eq 1 ] || fail "capture $mode: exit status $status, expected 1"
  expect_message capture-$mode "offset $bad_len_at: bad capture frame: length 12 is shorter than the 24-byte frame header; skipped $bad_len_size bytes from offset $bad_len_at to offset $((bad_len_at + bad_len_size))"
  expect_message capture-$mode "offset $bad_regs_at: bad capture frame (type 18): register count is neither 17 (x86_64), 9 (i386) nor 33 (aarch64); frame passed on unchanged"
  expect_message capture-$mode "offset $last_at: input ended inside a capture frame header (12 of 24 bytes)"
  expect_message capture-$mode "damaged input (first at offset $bad_len_at): 1 passed on unchanged ($bad_len_size bytes), 1 skipped ($bad_len_size bytes), 1 cut off (12 bytes)"
  expect_message capture-$mode "^stacktrace: $((n_frames - 2)) events read"
  # The output holds the inconsistent frame, passed on unchanged, and
  # nothing else damaged.
  "$STACKTRACE" -m none -i "$tmp/out-$mode.syscap" 2>"$tmp/check-$mode.err"
  expect_message check-$mode 'register count is neither 17'
  expect_message check-$mode 'the input was damaged in 1 place(s)'
done
expect_message capture-naive "total: $((n_stacks - 2)) samples, $((n_stacks - 2)) unwound to the root"

# --- perf.data: a record size, a stack size, the end ----------------------
# The 10th and 20th samples, and 1232 bytes into the last one.
perf_records "$fx/fixture.data" >"$tmp/records"
n_samples=$(awk '$2 == 9' "$tmp/records" | wc -l)
set -- $(awk '$2 == 9 { if (++k == 10) print $1, $3 }' "$tmp/records")
bad_size_at=$1 bad_size_size=$2
set -- $(awk '$2 == 9 { if (++k == 20) print $1, $3 }' "$tmp/records")
bad_dyn_at=$1 bad_dyn_size=$2
set -- $(awk '$2 == 9 { at = $1; size = $3 } END { print at, size }' "$tmp/records")
cut_at=$1 cut_size=$2
[ -n "$bad_size_at" ] && [ -n "$bad_dyn_at" ] && [ -n "$cut_at" ] \
  || die "the fixture perf.data has too few samples"

cp "$fx/fixture.data" "$tmp/damaged.data"
patch_bytes "$tmp/damaged.data" $((bad_size_at + 6)) '\004\000'    # record size 4
# dyn_size, the last u64 of the stack before DATA_SRC: 4096 > 2048.
patch_bytes "$tmp/damaged.data" $((bad_dyn_at + bad_dyn_size - 16)) '\000\020'
head -c $((cut_at + 1232)) "$tmp/damaged.data" >"$tmp/cut.data"

for input in damaged cut; do
  "$STACKTRACE" -i "$tmp/$input.data" --symfs "$fx" -o "$tmp/out-$input.syscap" \
    2>"$tmp/perf-$input.err"
  status=$?
  cat "$tmp/perf-$input.err"
  [ $status -eq 1 ] || fail "perf $input: exit status $status, expected 1"
  expect_message perf-$input "offset $bad_size_at: bad perf record (type 9, size 4): smaller than its 8-byte header; skipped $bad_size_size bytes from offset $bad_size_at to offset $((bad_size_at + bad_size_size))"
  expect_message perf-$input "offset $bad_dyn_at: bad perf record (type 9, size $bad_dyn_size): stack dyn_size 4096 exceeds the copied size 2048; record passed on unchanged"
  "$STACKTRACE" -m none -i "$tmp/out-$input.syscap" 2>/dev/null \
    || fail "perf $input: the output is not a clean capture"
done
expect_message perf-damaged "total: $((n_samples - 2)) samples, $((n_samples - 2)) unwound to the root"
expect_message perf-cut "offset $cut_at: input ended inside a perf record (1232 of $cut_size bytes)"
expect_message perf-cut 'the feature sections are ignored'
expect_message perf-cut "total: $((n_samples - 3)) samples, $((n_samples - 3)) unwound to the root"
finish
