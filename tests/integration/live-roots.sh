#!/bin/sh
# Live file resolution for short-lived processes in a chroot
# (lib/model/process-roots.h), in a system-wide recording:
# - a root directory holding uses-lib, its library, the C library,
#   ld.so and cat, where the host holds other files at the same paths;
#   a long-lived process (cat) runs in it;
# - live: perf record -a -o - | stacktrace while uses-lib runs ten times
#   for 50 ms in the chroot: >= 99 % of its samples along the known path
#   to main, and no file of the chroot refused (stacktrace sandboxed,
#   as it is as root);
# - late: the same stream read again after every uses-lib ended (a
#   stream read late, as when stacktrace falls behind): their files are
#   found in the root held for the cat still running, verified by
#   inode, and the samples unwound as live;
# - gone: read again after the cat ended too: the chroot's files of the
#   ended processes are named as "its process ended before it was
#   found", never "replaced since recorded";
# - each also at --jobs 2 (workers walking with the roots and
#   first-sight pins of the main thread): live, the same criteria (the
#   same stream read by a second stacktrace through tee); late and gone,
#   our processes' chains and the report of the chroot's files byte for
#   byte --jobs 1's.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
[ "$(id -u)" = 0 ] || skip "needs root (chroot, system-wide perf record)"
need_perf
need_progs
command -v chroot >/dev/null 2>&1 || skip "no chroot command"
command -v ldd >/dev/null 2>&1 || skip "no ldd"
perf record -q -a -N -e cpu-clock -o "$tmp/a.data" -- true \
  >"$tmp/a.log" 2>&1 || skip "system-wide perf record does not work here"

# --- the chroot ------------------------------------------------------------
root=$tmp/root
mkdir -p "$root/app" "$root/usr/bin" || die "mkdir failed"
cp progs/uses-lib progs/libstcallee.so "$root/app/" \
  && cp "$(command -v cat)" "$root/usr/bin/cat" || die "cannot copy programs"
for f in $(ldd progs/uses-lib "$(command -v cat)" \
             | awk '$1 ~ /:$/ { next } $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u); do
  case $f in */libstcallee.so) continue ;; esac
  mkdir -p "$root$(dirname "$f")" && cp -L "$f" "$root$f" \
    || die "cannot copy $f into the root"
done
LD_LIBRARY_PATH=/app chroot "$root" /app/uses-lib 1 >"$tmp/chroot.log" 2>&1 \
  || { cat "$tmp/chroot.log"; skip "cannot run a program in a chroot here"; }

# The long-lived process of the chroot: cat reading a FIFO we hold open.
mkfifo "$tmp/anchor" || die "mkfifo failed"
chroot "$root" /usr/bin/cat <"$tmp/anchor" >/dev/null &
anchor=$!
exec 9>"$tmp/anchor"

# --- live ------------------------------------------------------------------
# The file exists before tail looks for it (the background job may not
# have opened it yet on a loaded machine).
: >"$tmp/live.data"
# shellcheck disable=SC2086
perf record -q -a -N -e cpu-clock -c 500000 --call-graph=dwarf -o - -- \
  sh -c "for i in 1 2 3 4 5 6 7 8 9 10; do
           LD_LIBRARY_PATH=/app chroot '$root' /app/uses-lib 50 || exit 1
         done" 2>"$tmp/live.record.log" >"$tmp/live.data" &
recorder=$!
# The stream as it is written (tail follows the file), read by stacktrace
# at once: a live pipe that perf itself never waits for.
# The same stream, as it comes, to a second stacktrace at --jobs 2.
mkfifo "$tmp/jobs2.fifo" || die "mkfifo failed"
"$STACKTRACE" --jobs 2 -f perf -v -i "$tmp/jobs2.fifo" \
  --chains "$tmp/live2.chains" -o /dev/null 2>"$tmp/live2.err" &
jobs2=$!
tail -c +1 --pid=$recorder -f "$tmp/live.data" | tee "$tmp/jobs2.fifo" \
  | "$STACKTRACE" -f perf -v --chains "$tmp/live.chains" -o /dev/null \
      2>"$tmp/live.err" || fail "live: stacktrace failed"
wait $jobs2 || fail "live --jobs 2: stacktrace failed: $(cat "$tmp/live2.err")"
wait $recorder || { cat "$tmp/live.record.log"; fail "live: perf record failed"; }
grep '^stacktrace: total:' "$tmp/live.err" | sed 's/^/live: /'
# As root, the run is sandboxed (doc/ROBUSTNESS, "Privileges"): the
# chroot's files are found all the same.
grep -F 'stacktrace: sandbox:' "$tmp/live.err" | sed 's/^/live: /'
grep -qF 'stacktrace: sandbox: no new privileges' "$tmp/live.err" \
  || fail "live: stacktrace was not sandboxed"
# Our uses-lib processes (the chroot's path): the recording is of the
# whole machine, where other programs may share its library's names.
perf script -i "$tmp/live.data" --show-mmap-events 2>/dev/null \
  | awk -v a="/app/uses-lib" -v b="$root/app/uses-lib" '
      $NF == a || $NF == b {
        for (i = 1; i < NF; i++)
          if ($i == "PERF_RECORD_MMAP2") { split($(i + 1), p, "/"); print p[1] }
      }' | sort -u >"$tmp/pids"
[ -s "$tmp/pids" ] || fail "live: no uses-lib process of the chroot recorded"
# ours LABEL: LABEL's chains of our processes only.
ours ()
{
  awk -F '\t' 'NR == FNR { p[$1]; next } ($1 in p)' "$tmp/pids" \
    "$tmp/$1.chains" >"$tmp/$1.ours"
}
ours live
ST_MIN_LEAF_SAMPLES=100 check_chains live uses-lib "$tmp/live.ours" \
  || fail "live: uses-lib's samples did not unwind to main"
ours live2
ST_MIN_LEAF_SAMPLES=100 check_chains live-jobs2 uses-lib "$tmp/live2.ours" \
  || fail "live --jobs 2: uses-lib's samples did not unwind to main"
grep -qF -e "--jobs 2: unwinding on one thread" "$tmp/live2.err" \
  && fail "live --jobs 2: workers not used: $(cat "$tmp/live2.err")"
# (Not asserted: two readers of a live stream need not find the same
# files at the same moments.)
if cmp -s "$tmp/live.chains" "$tmp/live2.chains"; then
  echo "live: the same chains at --jobs 1 and 2"
else
  echo "live: the chains at --jobs 1 and 2 differ (not asserted)"
fi

# Refusals of the chroot's own files (/app: only the test's chroot has
# them; its copies of the system's libraries share their names with
# other roots on the machine, e.g. another job's container whose
# processes rightly ended before they were found, and their being found
# is checked by the whole paths to _start through libc).
refused ()
{
  grep -E "^stacktrace:   (/app/|$root/).*(replaced since recorded|ended before)" "$1"
}
if refused "$tmp/live.err"; then
  fail "live: files of the chroot refused"
fi
if refused "$tmp/live2.err"; then
  fail "live --jobs 2: files of the chroot refused"
fi

# same_at_jobs2 LABEL: the stream read again at --jobs 2: the chains of
# our processes and the file report's lines of the chroot's own files
# are LABEL's.  (Only ours: the recording is of the whole machine, and
# another process whose files were found while it lived may have ended
# between the two reads.)
same_at_jobs2 ()
{
  cat "$tmp/live.data" \
    | "$STACKTRACE" --jobs 2 -f perf -v --chains "$tmp/$1-j2.chains" \
        -o /dev/null 2>"$tmp/$1-j2.err" || fail "$1 --jobs 2: stacktrace failed"
  ours "$1"
  ours "$1-j2"
  cmp -s "$tmp/$1.ours" "$tmp/$1-j2.ours" \
    || fail "$1: our processes' chains differ at --jobs 2"
  grep -F -e "stacktrace:   /app/" -e "stacktrace:   $root/" "$tmp/$1.err" \
    >"$tmp/$1.files"
  grep -F -e "stacktrace:   /app/" -e "stacktrace:   $root/" "$tmp/$1-j2.err" \
    >"$tmp/$1-j2.files"
  cmp -s "$tmp/$1.files" "$tmp/$1-j2.files" \
    || fail "$1: the chroot's files are reported otherwise at --jobs 2: $(diff "$tmp/$1.files" "$tmp/$1-j2.files")"
}

# --- late: every uses-lib has ended, cat still runs ------------------------
# (A regular file is not live: read it through a pipe.)
cat "$tmp/live.data" \
  | "$STACKTRACE" -f perf -v --chains "$tmp/late.chains" -o /dev/null \
      2>"$tmp/late.err" || fail "late: stacktrace failed"
grep '^stacktrace: total:' "$tmp/late.err" | sed 's/^/late: /'
ours late
ST_MIN_LEAF_SAMPLES=100 check_chains late uses-lib "$tmp/late.ours" \
  || fail "late: uses-lib's samples did not unwind to main"
grep -E '^stacktrace:   [^ ]*libc\.so\.6: .*\((other-root|process-root), inode\)' \
  "$tmp/late.err" || fail "late: the chroot's libc not found in a held root"
if refused "$tmp/late.err"; then
  fail "late: files of the chroot refused"
fi
same_at_jobs2 late

# --- gone: the chroot's last process ended too -----------------------------
exec 9>&-
wait $anchor
cat "$tmp/live.data" \
  | "$STACKTRACE" -f perf -v --chains "$tmp/gone.chains" -o /dev/null \
      2>"$tmp/gone.err" || fail "gone: stacktrace failed"
grep '^stacktrace: total:' "$tmp/gone.err" | sed 's/^/gone: /'
same_at_jobs2 gone
if grep -E "^stacktrace:   (/app/|$root/|/lib|/usr/lib).*replaced since recorded" \
     "$tmp/gone.err"; then
  fail "gone: files of ended processes called replaced"
fi
# The host's C library at the chroot's path, on the same device: named.
libc=$(ldd progs/uses-lib | awk '$1 ~ /^libc\.so/ { print $3 }')
if [ -n "$libc" ] && [ "$(stat -c %d "$libc")" = "$(stat -c %d "$root$libc")" ]; then
  grep -E "^stacktrace:   [^ ]*libc\.so\.6: its process ended before it was found" \
    "$tmp/gone.err" || fail "gone: the chroot's libc not named as gone with its process"
fi

finish
