#!/bin/sh
# stacktrace under valgrind's memcheck on the committed fixtures: the
# capture and the perf.data unwound (with --chains, so symbolizing runs
# too), and a damaged copy of the capture (recovery paths).  Any memory
# error or definite leak fails.  Skipped without valgrind, and in the
# sanitizer build (valgrind cannot run AddressSanitizer binaries).
. "$TESTS_SRCDIR/lib/test-lib.sh"
need_stacktrace
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed"
[ "${ST_SANITIZED:-0}" = 1 ] && skip "sanitizer build (checked by ASan instead)"
fx=$TESTS_DATA/fixture

# --no-sandbox: valgrind's translations are executable memory, which
# the sandbox (on as root) forbids.
vg ()
{
  label=$1
  shift
  valgrind -q --error-exitcode=42 --leak-check=full \
    --errors-for-leak-kinds=definite --log-file="$tmp/$label.vg" \
    "$STACKTRACE" --no-sandbox "$@" 2>"$tmp/$label.err"
  status=$?
  tail -n 1 "$tmp/$label.err" | sed "s/^/$label: /"
  if [ $status -eq 42 ] || [ -s "$tmp/$label.vg" ]; then
    cat "$tmp/$label.vg"
    fail "$label: valgrind reported errors"
  fi
  return $status
}

vg capture -i "$fx/fixture.syscap" --symfs "$fx" -o "$tmp/c.syscap" \
  --chains "$tmp/c.chains" || fail "capture: stacktrace failed"
vg perf -i "$fx/fixture.data" --symfs "$fx" -o "$tmp/p.syscap" \
  --chains "$tmp/p.chains" || fail "perf: stacktrace failed"

# Damaged: a frame length of 12 at 23168, the end cut off.
head -c 600000 "$fx/fixture.syscap" >"$tmp/damaged.syscap"
printf '\014\000' | dd of="$tmp/damaged.syscap" bs=1 seek=23168 conv=notrunc 2>/dev/null
vg damaged -m passthru -i "$tmp/damaged.syscap" -o "$tmp/d.syscap"
[ $? -eq 1 ] || fail "damaged: exit status other than 1"
finish
