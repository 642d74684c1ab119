#!/bin/sh
# The sandbox (issue 34, src/sandbox.c, doc/ROBUSTNESS "Privileges"):
#  1. harness/sandbox-probe, linked with the command's sandbox: in
#     sandboxed children, exec, fork, ptrace, a socket, executable
#     memory, files created, written, truncated, renamed, removed are
#     killed by SIGSYS (seccomp) or refused (Landlock, through openat2);
#     reading, pipes and plain memory work.  With debuginfod's policy:
#     an inet socket and a file in the cache work, a file outside it is
#     refused, exec still kills.  With a live run's (no Landlock, which
#     would deny /proc/PID/root): the same kills, openat2 gets ENOSYS.
#  2. As root, stacktrace started as Sysprof's live unwinder by
#     harness/live-client: its /proc/PID/status shows NoNewPrivs 1,
#     Seccomp 2, CapEff = CapPrm = CapBnd = CAP_DAC_READ_SEARCH (2) |
#     CAP_SYS_PTRACE (19), nothing inheritable or ambient; the run
#     passes its checks, and the stats file is kept up to date.
#     The same with the workload in a chroot: its files are read
#     through /proc/PID/root in the sandbox.
#  3. File runs (the fixture capture and perf.data) with --sandbox give
#     the same output, chains and statistics as with --no-sandbox; the
#     stats file is written in the sandbox too.
# Skips (77) where the kernel lacks seccomp or Landlock ABI 3.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
probe="$TESTS_BUILDDIR/harness/sandbox-probe"
[ -x "$probe" ] || die "harness/sandbox-probe not built"
fx=$TESTS_DATA/fixture

# 1.
mkdir "$tmp/probe" "$tmp/probe-net" "$tmp/probe-live" || die "mkdir failed"
"$probe" "$tmp/probe" >"$tmp/probe.out" 2>&1
status=$?
cat "$tmp/probe.out"
[ $status -eq 77 ] && skip "no seccomp or no Landlock ABI 3 here"
[ $status -eq 0 ] || fail "probe: an attempt was not stopped as expected"
"$probe" --network "$tmp/probe-net" >"$tmp/probe-net.out" 2>&1 \
  || { cat "$tmp/probe-net.out"; fail "probe --network: unexpected"; }
cat "$tmp/probe-net.out"
"$probe" --live "$tmp/probe-live" >"$tmp/probe-live.out" 2>&1 \
  || { cat "$tmp/probe-live.out"; fail "probe --live: unexpected"; }
cat "$tmp/probe-live.out"

# 2.
client="$TESTS_BUILDDIR/harness/live-client"
prog="$TESTS_BUILDDIR/progs/uses-lib"
if [ "$(id -u)" -ne 0 ]; then
  echo "not root: no live unwinder run"
elif [ ! -x "$client" ]; then
  echo "live-client not built (no libsysprof-capture): no live unwinder run"
else
  "$client" --status "$tmp/live.status" --stacktrace "$STACKTRACE" \
    --capture "$tmp/live.syscap" --st-arg "--stats-file=$tmp/live.stats" \
    -- "$prog" "${ST_PROG_MS:-500}" >"$tmp/live.out" 2>"$tmp/live.err"
  status=$?
  cat "$tmp/live.out"
  [ $status -eq 77 ] && skip "perf events not allowed here"
  [ $status -eq 0 ] || { tail -n 20 "$tmp/live.err"; fail "live: the run failed"; }
  grep -F "stacktrace: sandbox:" "$tmp/live.err"
  grep -E '^(NoNewPrivs|Seccomp|Cap[A-Za-z]*):' "$tmp/live.status"
  for want in "NoNewPrivs:	1" "Seccomp:	2" "CapEff:	0000000000080004" \
              "CapPrm:	0000000000080004" "CapBnd:	0000000000080004" \
              "CapInh:	0000000000000000" "CapAmb:	0000000000000000"; do
    grep -qxF "$want" "$tmp/live.status" || fail "live: no '$want' in its status"
  done
  grep -qxF "state=finished" "$tmp/live.stats" \
    || grep -qxF "state=stopped" "$tmp/live.stats" \
    || { cat "$tmp/live.stats"; fail "live: the stats file has no final state"; }
  grep -q '^samples=[1-9]' "$tmp/live.stats" \
    || { cat "$tmp/live.stats"; fail "live: the stats file counts no sample"; }
fi

# 2b. The workload in a chroot (a container's files, read through
# /proc/PID/root once the live unwinder is sandboxed): every sample in
# st_lib_leaf has the whole path, as live-unwinder.sh requires.
if [ "$(id -u)" -eq 0 ] && [ -x "$client" ] && command -v chroot >/dev/null 2>&1 \
   && command -v ldd >/dev/null 2>&1; then
  croot=$tmp/root
  mkdir -p "$croot/app" || die "mkdir failed"
  cp "$prog" "$TESTS_BUILDDIR/progs/libstcallee.so" "$croot/app/" \
    || die "cannot copy the programs"
  for f in $(ldd "$prog" | awk '$1 ~ /:$/ { next } $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u); do
    case $f in */libstcallee.so) continue ;; esac
    mkdir -p "$croot$(dirname "$f")" && cp -L "$f" "$croot$f" \
      || die "cannot copy $f into the root"
  done
  chroot_cmd=$(command -v chroot)
  if LD_LIBRARY_PATH=/app "$chroot_cmd" "$croot" /app/uses-lib 1 >"$tmp/chroot.log" 2>&1; then
    LD_LIBRARY_PATH=/app "$client" --stacktrace "$STACKTRACE" \
      --capture "$tmp/chroot.syscap" --st-arg -v \
      -- "$chroot_cmd" "$croot" /app/uses-lib "${ST_PROG_MS:-500}" \
      >"$tmp/chroot.out" 2>"$tmp/chroot.err"
    status=$?
    cat "$tmp/chroot.out"
    grep -F '/app/' "$tmp/chroot.err"
    grep -qF "stacktrace: sandbox:" "$tmp/chroot.err" \
      || fail "chroot: the live unwinder was not sandboxed"
    [ $status -eq 0 ] || { tail -n 20 "$tmp/chroot.err"; fail "chroot: the run failed"; }
  else
    cat "$tmp/chroot.log"
    echo "cannot run a program in a chroot here: no chroot run"
  fi
fi

# 3.
# The stats file without what differs from run to run (times).
stable_stats ()
{
  grep -v -e '^time' -e '_ms=' -e '^uptime' "$1"
}
for input in fixture.syscap fixture.data; do
  for run in sandbox no-sandbox; do
    "$STACKTRACE" "--$run" -i "$fx/$input" -o "$tmp/$run.out" \
      --chains "$tmp/$run.chains" --stats-file "$tmp/$run.stats" -v \
      2>"$tmp/$run.err" || { cat "$tmp/$run.err"; fail "$input --$run: exit status $?"; }
  done
  grep -F "stacktrace: sandbox:" "$tmp/sandbox.err" \
    || fail "$input --sandbox: no word of the sandbox"
  if grep -F "stacktrace: sandbox:" "$tmp/no-sandbox.err"; then
    fail "$input --no-sandbox: sandboxed"
  fi
  cmp "$tmp/sandbox.out" "$tmp/no-sandbox.out" \
    || fail "$input: the output differs with the sandbox"
  cmp "$tmp/sandbox.chains" "$tmp/no-sandbox.chains" \
    || fail "$input: the chains differ with the sandbox"
  stable_stats "$tmp/sandbox.stats" >"$tmp/a.stats"
  stable_stats "$tmp/no-sandbox.stats" >"$tmp/b.stats"
  diff "$tmp/a.stats" "$tmp/b.stats" \
    || fail "$input: the stats files differ with the sandbox"
  grep -qxF "state=finished" "$tmp/a.stats" \
    || fail "$input: the sandboxed stats file has no state=finished"
  echo "$input: the same output, chains and statistics in the sandbox"
done
"$STACKTRACE" --sandbox --no-sandbox -i "$fx/fixture.syscap" -o /dev/null \
  >"$tmp/both.err" 2>&1
[ $? -eq 2 ] || fail "--sandbox --no-sandbox: not a usage error"

# 4. The sandbox renames nothing: the outputs are renamed into place by
# the committer forked before it, and the old file kept as NAME.old.
cp "$fx/fixture.data" "$tmp/kept.data"
"$STACKTRACE" --sandbox -q -i "$fx/fixture.data" -o "$tmp/kept.data" \
  --chains "$tmp/kept.chains" 2>"$tmp/kept.err" \
  || { cat "$tmp/kept.err"; fail "--sandbox over an old output failed"; }
cmp -s "$fx/fixture.data" "$tmp/kept.data.old" \
  || fail "--sandbox: the old output was not kept as .old"
# (sandbox.out: the last of the runs above, from fixture.data too)
cmp -s "$tmp/sandbox.out" "$tmp/kept.data" \
  || fail "--sandbox: the new output is not in place"
[ -s "$tmp/kept.chains" ] || fail "--sandbox: no chains file in place"
# Killed while writing (a FIFO input held open): the committer removes
# the temporary file and the old output stays as it was.
mkfifo "$tmp/in.fifo"
cp "$fx/fixture.data" "$tmp/victim.data"
"$STACKTRACE" --sandbox -q -i "$tmp/in.fifo" -o "$tmp/victim.data" \
  2>"$tmp/victim.err" &
st_pid=$!
exec 7>"$tmp/in.fifo"
head -c 65536 "$fx/fixture.syscap" >&7
# The temporary output exists once the header was read.
n=0
while ! ls -a "$tmp" | grep -q '^\.victim\.data\.' && [ $n -lt 600 ]; do
  sleep 0.05; n=$((n + 1))
done
ls -a "$tmp" | grep -q '^\.victim\.data\.' \
  || fail "no temporary output while the input is read"
kill -9 "$st_pid"
wait "$st_pid" 2>/dev/null
exec 7>&-
n=0
while ls -a "$tmp" | grep -q '^\.victim\.data\.' && [ $n -lt 600 ]; do
  sleep 0.05; n=$((n + 1))
done
if ls -a "$tmp" | grep -q '^\.victim\.data\.'; then
  fail "the killed run's temporary output was left behind"
fi
cmp -s "$fx/fixture.data" "$tmp/victim.data" \
  || fail "a killed sandboxed run changed the old output"
echo "a killed sandboxed run: the old output kept, nothing left behind"

finish
