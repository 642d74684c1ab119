#!/bin/sh
# The stream set up as the command sets its own (issue 32, stage 3):
# harness/stream-settings opens the input itself, reads its header
# before the run, writes the output in the input's format and the
# chains into a descriptor, with --no-demangle, --truncate-stack,
# --no-counters, --counters-interval and --no-host-files's settings;
# its files must be the command's, byte for byte.  Then a check
# function that stops the run, frames put first into the output, and
# an output that is the input, refused with the input left whole.
. "$TESTS_SRCDIR/lib/test-lib.sh"

need_stacktrace
fx=$TESTS_DATA/fixture
prog=$TESTS_BUILDDIR/harness/stream-settings
[ -x "$prog" ] || die "no $prog"

# Key=value lines of the harness's report.
value() {
  sed -n "s/^$1=//p" "$2"
}

compare() {
  name=$1
  shift
  "$STACKTRACE" -q -i "$input" --symfs "$fx" -o "$tmp/cmd.out" \
    --chains "$tmp/cmd.chains" "$@" 2> "$tmp/cmd.err" \
    || fail "$name: stacktrace failed: $(cat "$tmp/cmd.err")"
  "$prog" --symfs "$fx" "$@" "$input" "$tmp/lib.out" "$tmp/lib.chains" \
    > "$tmp/lib.report" 2> "$tmp/lib.err" \
    || fail "$name: stream-settings failed: $(cat "$tmp/lib.err")"
  [ "$(value result "$tmp/lib.report")" = success ] \
    || fail "$name: $(cat "$tmp/lib.report")"
  [ "$(value output_whole "$tmp/lib.report")" = 1 ] \
    || fail "$name: output not whole"
  [ "$(value stopped "$tmp/lib.report")" = 0 ] || fail "$name: stopped"
  [ "$(value started "$tmp/lib.report")" = 1 ] || fail "$name: not started"
  [ "$(value failed "$tmp/lib.report")" = 0 ] || fail "$name: failed"
  [ -s "$tmp/lib.chains" ] || fail "$name: no chains"
  cmp -s "$tmp/cmd.out" "$tmp/lib.out" \
    || fail "$name: the stream's output differs from the command's"
  cmp -s "$tmp/cmd.chains" "$tmp/lib.chains" \
    || fail "$name: the stream's chains differ from the command's"
}

for input_name in fixture.data fixture.syscap; do
  input=$fx/$input_name
  compare "$input_name"
  case $input_name in
    *.data) want=perf ;;
    *) want=capture ;;
  esac
  [ "$(value input "$tmp/lib.report")" = "$want" ] \
    || fail "$input_name: input format $(value input "$tmp/lib.report")"
  compare "$input_name, settings" --no-demangle --truncate-stack 2048 \
    --no-counters --no-host-files
  compare "$input_name, counters" --counters-interval 1
  echo "$input_name: output and chains as the command's"
done

# The input pulled through a read function (st_stream_set_input_pull),
# as the command's live modes give their rings: the same output and
# chains as the command reading the file.
for input_name in fixture.data fixture.syscap; do
  input=$fx/$input_name
  "$STACKTRACE" -q -i "$input" --symfs "$fx" -o "$tmp/cmd.out" \
    --chains "$tmp/cmd.chains" 2> "$tmp/cmd.err" \
    || fail "$input_name, pulled: stacktrace failed: $(cat "$tmp/cmd.err")"
  "$prog" --symfs "$fx" --pull "$input" "$tmp/pull.out" "$tmp/pull.chains" \
    > "$tmp/pull.report" 2> "$tmp/pull.err" \
    || fail "$input_name, pulled: stream-settings failed: $(cat "$tmp/pull.err")"
  [ "$(value result "$tmp/pull.report")" = success ] \
    || fail "$input_name, pulled: $(cat "$tmp/pull.report")"
  [ "$(value pull_calls "$tmp/pull.report")" -ge 1 ] \
    || fail "$input_name, pulled: the read function was not used"
  cmp -s "$tmp/cmd.out" "$tmp/pull.out" \
    || fail "$input_name, pulled: the output differs from the command's"
  cmp -s "$tmp/cmd.chains" "$tmp/pull.chains" \
    || fail "$input_name, pulled: the chains differ from the command's"
  echo "$input_name: pulled through a read function, as the command's"
done

# A check function that stops the run at its first call after the
# header: cancelled, what was read written whole.
input=$fx/fixture.syscap
"$prog" --symfs "$fx" --stop-after 1 "$input" "$tmp/stop.out" \
  "$tmp/stop.chains" > "$tmp/stop.report" 2> "$tmp/stop.err" \
  || fail "stop: stream-settings failed: $(cat "$tmp/stop.err")"
[ "$(value result "$tmp/stop.report")" = cancelled ] \
  || fail "stop: $(cat "$tmp/stop.report")"
[ "$(value stopped "$tmp/stop.report")" = 1 ] || fail "stop: not stopped"
[ "$(value output_whole "$tmp/stop.report")" = 1 ] \
  || fail "stop: output not whole"
"$STACKTRACE" -q -m none -i "$tmp/stop.out" 2> "$tmp/stop.check" \
  || fail "stop: the output does not read back: $(cat "$tmp/stop.check")"

# Frames put first: a FILE_CHUNK with a text of ours, in the capture.
"$prog" --symfs "$fx" --frame stream-settings-frame-7f3a "$input" \
  "$tmp/frame.out" "$tmp/frame.chains" > "$tmp/frame.report" \
  2> "$tmp/frame.err" \
  || fail "frame: stream-settings failed: $(cat "$tmp/frame.err")"
grep -F -q stream-settings-frame-7f3a "$tmp/frame.out" \
  || fail "frame: the frame is not in the output"
grep -F -q stream-settings-frame-7f3a "$tmp/lib.out" \
  && fail "frame: the text is in an output without the frame"
"$STACKTRACE" -q -m none -i "$tmp/frame.out" 2> "$tmp/frame.check" \
  || fail "frame: the output does not read back: $(cat "$tmp/frame.check")"

# The output is the input: refused, the input unchanged.
cp "$input" "$tmp/same.syscap"
if "$prog" --symfs "$fx" "$tmp/same.syscap" "$tmp/same.syscap" \
     "$tmp/same.chains" > "$tmp/same.report" 2> "$tmp/same.err"; then
  fail "same: the output over the input was not refused"
fi
grep -F -q 'it is the input file' "$tmp/same.err" \
  || fail "same: no reason given: $(cat "$tmp/same.err")"
cmp -s "$input" "$tmp/same.syscap" || fail "same: the input was changed"
echo "stop, frames and the output over the input checked"

finish
