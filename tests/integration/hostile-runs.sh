#!/bin/sh
# Hostile runs of the whole command (issue 13), each staged for real:
#   - the output is the input, in every spelling (same path, symbolic
#     link, hard link, /proc/self/fd/N, inherited descriptors, standard
#     output): refused before anything is truncated;
#   - usage errors (negative descriptors) exit 2;
#   - SIGINT while blocked opening a FIFO nobody writes: exit 0;
#   - a process name with a newline and ESC, printed by -v and --summary;
#   - garbage after a valid stream, finite and endless: damage, exit 1;
#   - a large input file truncated by another process during the read;
#   - a module file truncated in place between two parts of a stream fed
#     through a FIFO;
#   - the same for a separate debug file, which libelf maps for libdwfl
#     where we never see the address (with perf);
#   - Ctrl-C on `perf record -o - | tee -i | stacktrace` in its own
#     process group (setsid): every sample perf wrote is written;
#   - ENOSPC on perf.data output (a small tmpfs, when mounting works).
# Waits on events (files, output, process states), never on sleeps.
. "$TESTS_SRCDIR/lib/test-lib.sh"
need_stacktrace
fx=$TESTS_DATA/fixture
gen=$TESTS_BUILDDIR/harness/gen-many-pids
[ -x "$gen" ] || die "gen-many-pids not built"

# `perl -e "$sigint_default" CMD...` runs CMD with SIGINT at its default
# (in the same process: $! is CMD's pid): a background job of a script
# starts with SIGINT ignored, which stacktrace keeps (as it should).
# shellcheck disable=SC2016
sigint_default='$SIG{INT} = "DEFAULT"; exec { $ARGV[0] } @ARGV or exit 127'

# wait_for WHAT COMMAND...: polls COMMAND until it succeeds (an event,
# not a delay); a generous bound only against hanging forever.
wait_for ()
{
  wf_what=$1
  shift
  wf_i=0
  until "$@"; do
    wf_i=$((wf_i + 1))
    if [ $wf_i -gt 3000 ]; then
      fail "timed out waiting for $wf_what"
      return 1
    fi
    sleep 0.02
  done
  return 0
}


# --- the output is the input ---------------------------------------------
cp "$fx/fixture.syscap" "$tmp/in.syscap"
ln -s in.syscap "$tmp/link.syscap"
ln "$tmp/in.syscap" "$tmp/hard.syscap"
same_file_case ()
{
  label=$1
  shift
  "$@" 2>"$tmp/same.err"
  status=$?
  cat "$tmp/same.err"
  [ $status -eq 1 ] || fail "same file ($label): exit status $status, expected 1"
  grep -q "it is the input file" "$tmp/same.err" \
    || fail "same file ($label): no message"
  cmp -s "$fx/fixture.syscap" "$tmp/in.syscap" \
    || { fail "same file ($label): the input was changed";
         cp "$fx/fixture.syscap" "$tmp/in.syscap"; }
}
same_file_case path "$STACKTRACE" -q -i "$tmp/in.syscap" -o "$tmp/in.syscap"
same_file_case symlink "$STACKTRACE" -q -i "$tmp/in.syscap" -o "$tmp/link.syscap"
same_file_case hardlink "$STACKTRACE" -q -i "$tmp/hard.syscap" -o "$tmp/in.syscap"
same_file_case proc-fd "$STACKTRACE" -q -i "$tmp/in.syscap" -o /proc/self/fd/5 \
  5<"$tmp/in.syscap"
same_file_case fds "$STACKTRACE" -q --input-fd 3 --output-fd 4 \
  3<"$tmp/in.syscap" 4>>"$tmp/in.syscap"
# shellcheck disable=SC2016
same_file_case stdout sh -c 'exec "$0" -q -i "$1" >>"$1"' "$STACKTRACE" \
  "$tmp/in.syscap"

# --- usage errors ----------------------------------------------------------
for opt in --input-fd=-1 --output-fd=-3; do
  "$STACKTRACE" "$opt" </dev/null >/dev/null 2>"$tmp/usage.err"
  status=$?
  [ $status -eq 2 ] || { cat "$tmp/usage.err"; fail "$opt: exit status $status, expected 2"; }
done

# --- SIGINT while waiting to open a FIFO -----------------------------------
mkfifo "$tmp/nowriter"
perl -e "$sigint_default" "$STACKTRACE" -i "$tmp/nowriter" -o /dev/null \
  2>"$tmp/fifo-open.err" &
pid=$!
# Blocked in the open of the FIFO: in openat (syscall 257 on x86_64) or
# open, with stacktrace's SIGINT handler installed (bit 2 of SigCgt), and
# waiting for a writer where the kernel names the wait.  An openat seen
# earlier may be perl's or the dynamic loader's, and SIGINT then kills.
blocked_in_open ()
{
  read -r nr _ <"/proc/$pid/syscall" 2>/dev/null || return 1
  [ "$nr" = 257 ] || [ "$nr" = 2 ] || return 1
  caught=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)
  [ -n "$caught" ] || return 1
  case $caught in
    *[2367abefABEF]) ;;
    *) return 1 ;;
  esac
  wchan=$(cat "/proc/$pid/wchan" 2>/dev/null)
  case $wchan in
    ""|0|*partner*|*fifo*|*pipe*) return 0 ;;
  esac
  return 1
}
# (After a time-out too: the run must end.)
wait_for "stacktrace to block opening the FIFO" blocked_in_open
kill -INT $pid
wait $pid
status=$?
cat "$tmp/fifo-open.err"
[ $status -eq 0 ] || fail "SIGINT while opening a FIFO: exit status $status, expected 0"
grep -q "stopped by SIGINT while waiting to open the input" "$tmp/fifo-open.err" \
  || fail "SIGINT while opening a FIFO: no message"

# --- names from the input, escaped -----------------------------------------
# The last PROCESS frame of the fixture before its first raw stack names
# the sampled process: its name (at 24 into the frame) gets a newline
# and an escape sequence.
capture_frames "$fx/fixture.syscap" >"$tmp/frames"
process_at=$(awk '$2 == 18 { exit } $2 == 4 { at = $1 } END { print at }' \
               "$tmp/frames")
[ -n "$process_at" ] || die "no PROCESS frame before the fixture's samples"
cp "$fx/fixture.syscap" "$tmp/names.syscap"
printf 'st\n\033[31mfix\000' | dd of="$tmp/names.syscap" bs=1 \
  seek=$((process_at + 24)) \
  conv=notrunc 2>/dev/null || die "cannot patch the capture"
"$STACKTRACE" -v --summary -i "$tmp/names.syscap" --symfs "$fx" -o /dev/null \
  2>"$tmp/names.err"
[ "$(grep -c 'st\\n\\x1b\[31mfix' "$tmp/names.err")" -eq 2 ] \
  || { cat "$tmp/names.err"; fail "names: the escaped name is not in -v and --summary"; }
if grep -q "$(printf '\033')" "$tmp/names.err"; then
  fail "names: a raw ESC reached the terminal"
fi
if grep -q '^\[31mfix' "$tmp/names.err"; then
  fail "names: a newline from the input started a line"
fi

# --- garbage after a valid stream ------------------------------------------
# Garbage that holds no frame header anywhere: a frame's first byte (the
# low byte of its length) is a multiple of 8, and none of these bytes
# is.  (Random bytes were: 1 run in some 400 ended in a header that
# claimed more bytes than were left, rightly reported as a frame cut
# off, not as garbage.)
garbage_bytes='\001\202\113\304\075\346\227\321\153\034\255\376\167'
cp "$fx/fixture.syscap" "$tmp/garbage.syscap"
i=0
while [ $i -lt 7700 ]; do
  # shellcheck disable=SC2059 # (the escapes are the format's)
  printf "$garbage_bytes"
  i=$((i + 1))
done >>"$tmp/garbage.syscap"
"$STACKTRACE" -i "$tmp/garbage.syscap" --symfs "$fx" -o /dev/null \
  --stats-file "$tmp/garbage.stats" 2>"$tmp/garbage.err"
status=$?
[ $status -eq 1 ] || fail "garbage: exit status $status, expected 1"
grep -q "garbage after the last valid frame" "$tmp/garbage.err" \
  || fail "garbage: not named"
grep -q '^damage.skipped=1$' "$tmp/garbage.stats" \
  || fail "garbage: not counted in the stats file"

# Endless: a pipe of the fixture then that garbage (and newlines, 10:
# no multiple of 8 either) without end, stopped by SIGTERM twice (the
# first reads on, the second stops).  The garbage is read within one
# event's read: the memory the run has past 64 MB it still has past
# 256 MB (a pipe's buffers are kept only while they may hold events).
# shellcheck disable=SC2059
(cat "$fx/fixture.syscap"; exec yes "$(printf "$garbage_bytes")") \
  | "$STACKTRACE" --symfs "$fx" -o /dev/null --stats-file "$tmp/endless.stats" \
      2>"$tmp/endless.err" &
st_pid=$!   # the last command of the pipeline
# past BYTES: the run has read more than BYTES.
past ()
{
  n=$(sed -n 's/^input_bytes=//p' "$tmp/endless.stats" 2>/dev/null)
  [ -n "$n" ] && [ "$n" -gt "$1" ]
}
# peak_kib: the run's peak resident memory so far.
peak_kib ()
{
  sed -n 's/^VmHWM:[^0-9]*\([0-9]*\) kB$/\1/p' "/proc/$st_pid/status"
}
if wait_for "the garbage to be read" past 700000; then
  if wait_for "64 MB of garbage to be read" past 67108864; then
    peak_before=$(peak_kib)
    wait_for "256 MB of garbage to be read" past 268435456
    peak_after=$(peak_kib)
    echo "endless garbage: peak RSS ${peak_before:-?} KiB past 64 MB read," \
         "${peak_after:-?} KiB past 256 MB"
    [ -n "$peak_before" ] && [ -n "$peak_after" ] \
      && [ "$peak_after" -le $((peak_before + 16384)) ] \
      || fail "endless garbage: memory grew with the garbage read"
  fi
  kill -TERM "$st_pid"
  wait_for "the drain message" grep -q "reading the input to its end" \
    "$tmp/endless.err" && kill -TERM "$st_pid"
fi
wait
status=$(sed -n 's/^state=//p' "$tmp/endless.stats")
cat "$tmp/endless.err"
grep -q "where the run was stopped" "$tmp/endless.err" \
  || fail "endless garbage: the skipped bytes were not reported"
grep -q '^damage.skipped=1$' "$tmp/endless.stats" \
  || fail "endless garbage: not counted in the stats file"
[ "$status" = failed ] || fail "endless garbage: state $status, expected failed (exit status 1)"

# --- the input file truncated while it is read ------------------------------
# A 100 MB capture; stacktrace writes into a FIFO we read, so it stalls
# (mid-read) until we read on: truncate the input then.  Passed through,
# and unwound at --jobs 2 (the mapped input's pages filled and given
# back on a thread of their own: format/map-pager.c).
"$gen" "$fx/fixture.syscap" 3000 16 >"$tmp/big.syscap.orig" \
  || die "gen-many-pids failed"
# shrink_case LABEL ARGS...: the run, and ARGS on the file as cut for
# the reference.
shrink_case ()
{
  sc_label=$1
  shift
  cp "$tmp/big.syscap.orig" "$tmp/big.syscap" || die "cp failed"
  rm -f "$tmp/big-out"
  mkfifo "$tmp/big-out"
  "$STACKTRACE" "$@" -i "$tmp/big.syscap" -o "$tmp/big-out" \
    2>"$tmp/big.err" &
  sc_pid=$!
  exec 3<"$tmp/big-out"
  head -c 1000000 <&3 >"$tmp/big-part1"
  truncate -s 30000000 "$tmp/big.syscap"
  cat <&3 >"$tmp/big-part2"
  exec 3<&-
  wait $sc_pid
  sc_status=$?
  cat "$tmp/big.err"
  [ $sc_status -eq 1 ] \
    || fail "shrinking input ($sc_label): exit status $sc_status, expected 1 (no signal)"
  grep -q "offset [0-9]*: the input file shrank while it was read" "$tmp/big.err" \
    || fail "shrinking input ($sc_label): no message naming the offset"
  cat "$tmp/big-part1" "$tmp/big-part2" >"$tmp/big-out.syscap"
  # Every whole frame before the cut was written, and nothing else.
  "$STACKTRACE" "$@" -i "$tmp/big.syscap" -o "$tmp/big-ref.syscap" 2>/dev/null
  cmp -s "$tmp/big-ref.syscap" "$tmp/big-out.syscap" \
    || fail "shrinking input ($sc_label): the output is not the frames before the cut"
}
shrink_case passthru -m passthru
shrink_case "--jobs 2" --jobs 2 --symfs "$fx"

# --- a module truncated in place during a live run -------------------------
mkdir "$tmp/symfs"
cp "$fx/st-fixture" "$tmp/symfs/st-fixture"
# Part 1: up to the first raw-stack sample and that sample.
set -- $(awk '$2 == 18 { print $1, $3; exit }' "$tmp/frames")
first_at=$1 len=$2
n_stacks=$(awk '$2 == 18' "$tmp/frames" | wc -l)
head -c $((first_at + len)) "$fx/fixture.syscap" >"$tmp/part1"
tail -c +$((first_at + len + 1)) "$fx/fixture.syscap" >"$tmp/part2"
mkfifo "$tmp/live-in"
"$STACKTRACE" -i "$tmp/live-in" -o "$tmp/live.syscap" --symfs "$tmp/symfs" \
  --priming sync --stats-file "$tmp/live.stats" 2>"$tmp/live.err" &
pid=$!
exec 4>"$tmp/live-in"
cat "$tmp/part1" >&4
if wait_for "the first sample" grep -q '^samples=1$' "$tmp/live.stats"; then
  truncate -s 0 "$tmp/symfs/st-fixture"
fi
cat "$tmp/part2" >&4
exec 4>&-
wait $pid
status=$?
cat "$tmp/live.err"
[ $status -eq 0 ] || fail "shrinking module: exit status $status, expected 0 (no signal)"
grep -q '^cause.file_shrank=[1-9]' "$tmp/live.stats" \
  || fail "shrinking module: no sample counted under file-shrank"
grep -q "^samples=$n_stacks\$" "$tmp/live.stats" \
  || fail "shrinking module: samples lost"

# --- a separate debug file truncated in place during a live run -------------
# dbgframe-prog's CFI is only in its debug file, found by its debuglink
# beside it; the libdwfl engine reads that file's mapping at every frame.
# A pipe-mode recording fed in two parts, the debug file truncated
# between them: no SIGBUS, the samples through it counted as file-shrank,
# none lost.
if perf_can_record && command -v eu-strip >/dev/null 2>&1; then
  need_progs
  mkdir "$tmp/dbg"
  eu-strip -g -f "$tmp/dbg/dbgframe-prog.debug" -o "$tmp/dbg/dbgframe-prog" \
    progs/dbgframe-prog || die "eu-strip failed"
  # shellcheck disable=SC2086
  $ST_PERF_RECORD -o - -- "$tmp/dbg/dbgframe-prog" 1000 >"$tmp/dbg.pdata" \
    2>"$tmp/dbg.record.log" || die "perf record dbgframe-prog failed"
  "$STACKTRACE" --engine dwfl -i "$tmp/dbg.pdata" -o /dev/null \
    --stats-file "$tmp/dbg-ref.stats" 2>/dev/null \
    || die "dbgframe-prog: the whole recording failed"
  ref=$(sed -n 's/^samples=//p' "$tmp/dbg-ref.stats")
  grep -q '^unwound_to_root=[1-9]' "$tmp/dbg-ref.stats" \
    || die "dbgframe-prog: nothing unwound through its debug file"
  size=$(wc -c <"$tmp/dbg.pdata")
  head -c $((size / 2)) "$tmp/dbg.pdata" >"$tmp/dbg.part1"
  tail -c +$((size / 2 + 1)) "$tmp/dbg.pdata" >"$tmp/dbg.part2"
  mkfifo "$tmp/dbg-in"
  "$STACKTRACE" --engine dwfl -i "$tmp/dbg-in" -o "$tmp/dbg.syscap" \
    --stats-file "$tmp/dbg.stats" 2>"$tmp/dbg.err" &
  pid=$!
  exec 5>"$tmp/dbg-in"
  cat "$tmp/dbg.part1" >&5
  if wait_for "samples unwound through the debug file" \
       grep -q '^unwound_to_root=[1-9]' "$tmp/dbg.stats"; then
    truncate -s 0 "$tmp/dbg/dbgframe-prog.debug"
  fi
  cat "$tmp/dbg.part2" >&5
  exec 5>&-
  wait $pid
  status=$?
  cat "$tmp/dbg.err"
  [ $status -eq 0 ] \
    || fail "shrinking debug file: exit status $status, expected 0 (no signal)"
  grep -q '^cause.file_shrank=[1-9]' "$tmp/dbg.stats" \
    || fail "shrinking debug file: no sample counted under file-shrank"
  grep -q "^samples=$ref\$" "$tmp/dbg.stats" \
    || fail "shrinking debug file: samples lost (expected $ref)"
else
  echo "separate debug file case left out: perf cannot record here"
fi

# --- Ctrl-C on a recording pipeline -----------------------------------------
if perf_can_record && command -v setsid >/dev/null 2>&1; then
  need_progs
  # The whole pipeline in its own session and process group, as a
  # terminal's Ctrl-C signals a foreground job: perf, its program, tee
  # (-i: ignores it) and stacktrace all get SIGINT.
  perl -e "$sigint_default" setsid sh -c '
    trap : INT   # this shell lives on to tell the status; not inherited
    '"$ST_PERF_RECORD"' -o - -- "$1" 30000 2>"$2/ctrlc.record.log" \
      | tee -i "$2/ctrlc-raw.data" \
      | "$3" -f perf -o "$2/ctrlc.syscap" --chains "$2/ctrlc.chains" \
          2>"$2/ctrlc.err"
    echo $? >"$2/ctrlc.status"' sh "$(prog_path deep-recursion)" "$tmp" \
    "$STACKTRACE" &
  leader=$!
  has_samples ()
  {
    [ -f "$tmp/ctrlc-raw.data" ] \
      && [ "$(wc -c <"$tmp/ctrlc-raw.data")" -gt 2000000 ]
  }
  # setsid made the leader (same pid) a process group: signal it whole.
  if wait_for "perf to record" has_samples; then
    kill -INT -"$leader"
  fi
  wait $leader
  cat "$tmp/ctrlc.err"
  status=$(cat "$tmp/ctrlc.status" 2>/dev/null)
  [ "$status" = 0 ] || fail "Ctrl-C: exit status $status, expected 0"
  # The samples perf wrote, unwound from tee's copy: one chain each.
  "$STACKTRACE" -i "$tmp/ctrlc-raw.data" -o /dev/null \
    --chains "$tmp/ctrlc-ref.chains" 2>"$tmp/ctrlc-ref.err"
  raw=$(wc -l <"$tmp/ctrlc-ref.chains")
  out=$(wc -l <"$tmp/ctrlc.chains")
  echo "Ctrl-C: perf wrote $raw samples, stacktrace wrote $out"
  [ -n "$raw" ] && [ "$raw" -gt 0 ] && [ "$raw" = "$out" ] \
    || fail "Ctrl-C: samples perf wrote ($raw) != samples written ($out)"
else
  echo "Ctrl-C pipeline: skipped (perf cannot record here, or no setsid)"
fi

# --- ENOSPC on perf.data output ----------------------------------------------
mkdir "$tmp/small"
if mount -t tmpfs -o size=64k tmpfs "$tmp/small" 2>/dev/null; then
  "$STACKTRACE" -i "$fx/fixture.data" --symfs "$fx" --output-format perf \
    -o "$tmp/small/out.data" 2>"$tmp/enospc.err"
  status=$?
  cat "$tmp/enospc.err"
  [ $status -eq 1 ] || fail "ENOSPC: exit status $status, expected 1"
  grep -q "perf.data header rewritten to hold the [1-9][0-9]* bytes" "$tmp/enospc.err" \
    || fail "ENOSPC: the header was not rewritten"
  # What was written reads back whole (no damage: exit status 0) ...
  "$STACKTRACE" -m none -i "$tmp/small/out.data" 2>"$tmp/enospc-read.err" \
    || { cat "$tmp/enospc-read.err"; fail "ENOSPC: the output does not read back whole"; }
  # ... and perf sees its samples.
  if command -v perf >/dev/null 2>&1; then
    p=$(perf script -i "$tmp/small/out.data" 2>/dev/null | grep -c cpu-clock)
    echo "ENOSPC: perf script shows $p samples"
    [ "$p" -gt 0 ] || fail "ENOSPC: perf script shows no sample"
  fi
  umount "$tmp/small"
else
  echo "ENOSPC: skipped (cannot mount a tmpfs here)"
fi

finish
