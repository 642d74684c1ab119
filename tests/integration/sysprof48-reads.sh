#!/bin/sh
# Sysprof 48 reads the captures stacktrace writes.  Sysprof 48 (its
# window and sysprof-cat) crashes on the first MAP, PROCESS, SAMPLE or
# EXIT frame whose pid is negative; every perf.data -> capture
# conversion used to write one for perf's kernel map (pid -1).
#  1. Everywhere: the captures made from the fixture's perf.data and
#     from its capture (which holds such a frame, as an older converter
#     wrote it) have no frame of those types with a negative pid.
#  2. Where the Debian trixie chroot of make check-sysprof48 exists
#     (ST_SP48_ROOT, default /var/cache/stacktrace/trixie) and we are
#     root: the real sysprof-cat of Sysprof 48 copies both (exit 0, a
#     capture out), in a mount namespace of its own; skipped otherwise.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
fx=$TESTS_DATA/fixture

"$STACKTRACE" -q -i "$fx/fixture.data" --symfs "$fx" \
  --output-format sysprof -o "$tmp/from-perf.syscap" \
  || fail "fixture.data -> capture failed"
"$STACKTRACE" -q -i "$fx/fixture.syscap" --symfs "$fx" \
  -o "$tmp/from-capture.syscap" || fail "fixture.syscap -> capture failed"

# negative_pids FILE: "TYPE PID" for each frame of type SAMPLE (2), MAP
# (3), PROCESS (4), FORK (5) or EXIT (6) whose pid is negative.
negative_pids ()
{
  capture_frames "$1" | awk '$2 >= 2 && $2 <= 6 && $5 < 0 { print $2, $5 }'
}

echo "== frames of a negative pid"
# (The input capture has one, so the check can see one.)
[ -n "$(negative_pids "$fx/fixture.syscap")" ] \
  || fail "the check finds no negative pid in fixture.syscap's MAP frame"
for f in from-perf from-capture; do
  negative_pids "$tmp/$f.syscap" > "$tmp/$f.neg"
  [ -s "$tmp/$f.neg" ] && fail "$f.syscap: frames of a negative pid: $(head -n 3 "$tmp/$f.neg")"
done

echo "== Sysprof 48's sysprof-cat"
root=${ST_SP48_ROOT:-/var/cache/stacktrace/trixie}
if [ ! -x "$root/usr/bin/sysprof-cat" ]; then
  echo "(no Sysprof 48 chroot at $root: make check-sysprof48 makes it)"
elif [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null 2>&1; then
  echo "(not root, or no unshare: the chroot is not used)"
else
  for f in from-perf from-capture; do
    # The scratch directory bound on the chroot's /mnt in a mount
    # namespace of its own: nothing stays behind.
    unshare -m sh -c 'mount --bind "$1" "$2/mnt" && exec chroot "$2" \
      sysprof-cat "/mnt/$3.syscap"' sh "$tmp" "$root" "$f" \
      > "$tmp/$f.cat" 2> "$tmp/$f.cat.err"
    rc=$?
    [ $rc -eq 0 ] || fail "sysprof-cat of $f.syscap: exit status $rc ($(tail -n 2 "$tmp/$f.cat.err"))"
    [ -s "$tmp/$f.cat" ] || fail "sysprof-cat of $f.syscap wrote nothing"
    echo "sysprof-cat $f.syscap: exit status $rc, $(wc -c < "$tmp/$f.cat") bytes"
  done
fi
finish
