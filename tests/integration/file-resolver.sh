#!/bin/sh
# The file resolver (lib/model/file-resolver.h) on real recordings:
# - a container made here: a root directory holding uses-lib and its
#   library at paths where the host holds other builds of them (decoys),
#   run with chroot and recorded through a pipe with --buildid-mmap:
#   unwound live from the process's own root, >= 99% along the known
#   path; offline, after it ended, the decoys are refused and named, and
#   with the saved root as --symfs the chains are right again; the same
#   without build-ids (verified by inode, decoys refused as replaced);
# - a perf archive round trip: record, perf archive, the binaries moved
#   away, the archive unpacked into a directory given as --buildid-dir:
#   the same chains as before;
# - a missing library, a rebuilt one (file mode, pipe mode with
#   --buildid-mmap, pipe mode by inode) and a FIFO in its place: each named
#   with its cause and the samples it cost, and a rebuilt file never
#   unwinds; a library without CFI named as "no unwind data";
# - a stripped program built without unwind tables (dbgframe-prog, its
#   CFI only in .debug_frame): named as "no unwind data" without its
#   debug file, as "debug file without unwind data" with a debug file
#   lacking .debug_frame, and unwound whole with the real debug file.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
need_perf
need_progs
[ -x progs/decoy/uses-lib ] || die "progs/decoy/uses-lib not built"
perf record -q -N -e cpu-clock --buildid-mmap -o "$tmp/bid.data" -- true \
  >/dev/null 2>&1 || skip "perf record --buildid-mmap does not work here"

# Nothing of the user's build-id cache: this test makes its own.
export HOME="$tmp/home"
unset PERF_BUILDID_DIR DEBUGINFOD_URLS
mkdir -p "$HOME"

# --- the container ---------------------------------------------------------
app=$tmp/app
root=$tmp/root
mkdir -p "$app" "$root$app" || die "mkdir failed"
cp progs/uses-lib "$root$app/prog" && cp progs/libstcallee.so "$root$app/" \
  && cp progs/decoy/uses-lib "$app/prog" \
  && cp progs/decoy/libstcallee.so "$app/" || die "cannot copy the programs"
# What the program needs to run in the root (ldd: the C library, ld.so).
for f in $(ldd progs/uses-lib | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
  case $f in */libstcallee.so) continue ;; esac
  mkdir -p "$root$(dirname "$f")" && cp -L "$f" "$root$f" \
    || die "cannot copy $f into the root"
done
# $ORIGIN needs /proc in the root; the library path does not.
if ! command -v chroot >/dev/null 2>&1 \
   || ! LD_LIBRARY_PATH=$app chroot "$root" "$app/prog" 1 >"$tmp/chroot.log" 2>&1; then
  cat "$tmp/chroot.log" 2>/dev/null
  echo "container: cannot run a program in a chroot here; part skipped"
  container=no
else
  container=yes
fi

if [ $container = yes ]; then
  # shellcheck disable=SC2086
  LD_LIBRARY_PATH=$app $ST_PERF_RECORD --buildid-mmap -o - -- \
    chroot "$root" "$app/prog" ${ST_PROG_MS:+"$ST_PROG_MS"} \
    2>"$tmp/live.record.log" | tee "$tmp/live.data" \
    | "$STACKTRACE" -f perf -m naive --chains "$tmp/live.chains" \
        -o /dev/null 2>"$tmp/live.err" || fail "live: stacktrace failed"
  grep '^stacktrace: total:' "$tmp/live.err" | sed 's/^/live: /'
  check_chains live uses-lib "$tmp/live.chains" \
    || fail "live: the container's files were not used"

  # Offline, the process gone: the host's files at those paths are others.
  run_st offline -f perf -i "$tmp/live.data" -m naive -v \
    --chains "$tmp/offline.chains" -o /dev/null \
    || fail "offline: stacktrace failed"
  for f in "$app/prog" "$app/libstcallee.so"; do
    grep -q "^stacktrace:   $f: unusable (build-id mismatch)" "$tmp/offline.err" \
      || fail "offline: the decoy $f was not named"
  done
  grep -E "^stacktrace:   $app/libstcallee.so: build-id mismatch, [1-9][0-9]* sample" \
    "$tmp/offline.err" || fail "offline: no sample count for the decoy library"
  grep "^stacktrace:     $app/libstcallee.so: build-id mismatch: recorded [0-9a-f]*, found [0-9a-f]*" \
    "$tmp/offline.err" || fail "offline: no build-ids for the decoy library"
  grep -q -- '--symfs' "$tmp/offline.err" || fail "offline: no advice"
  if grep -q 'st_lib_leaf' "$tmp/offline.chains"; then
    fail "offline: a decoy was used to unwind"
  fi
  run_st symfs -f perf -i "$tmp/live.data" -m naive --symfs "$root" \
    --chains "$tmp/symfs.chains" -o /dev/null || fail "symfs: stacktrace failed"
  check_chains symfs uses-lib "$tmp/symfs.chains" \
    || fail "symfs: the saved root was not used"

  # Without build-ids (no --buildid-mmap): live, the container's files are
  # found through the process's root and verified by inode; offline, the
  # decoys on the same device are refused as replaced.
  # shellcheck disable=SC2086
  LD_LIBRARY_PATH=$app $ST_PERF_RECORD -o - -- \
    chroot "$root" "$app/prog" ${ST_PROG_MS:+"$ST_PROG_MS"} \
    2>"$tmp/live-ino.record.log" | tee "$tmp/live-ino.data" \
    | "$STACKTRACE" -f perf -m naive -v --chains "$tmp/live-ino.chains" \
        -o /dev/null 2>"$tmp/live-ino.err" || fail "live-ino: stacktrace failed"
  grep '^stacktrace: total:' "$tmp/live-ino.err" | sed 's/^/live-ino: /'
  check_chains live-ino uses-lib "$tmp/live-ino.chains" \
    || fail "live-ino: the container's files were not used"
  if grep -q "^stacktrace:   $app/libstcallee.so: .*(process-root, inode)" \
       "$tmp/live-ino.err"; then
    run_st offline-ino -f perf -i "$tmp/live-ino.data" -m naive \
      --chains "$tmp/offline-ino.chains" -o /dev/null \
      || fail "offline-ino: stacktrace failed"
    grep -E "^stacktrace:   $app/libstcallee.so: replaced since recorded, [1-9][0-9]* sample" \
      "$tmp/offline-ino.err" || fail "offline-ino: the decoy library was not named"
    if grep -q 'st_lib_leaf' "$tmp/offline-ino.chains"; then
      fail "offline-ino: a decoy was used to unwind"
    fi
  else
    echo "live-ino: the file system does not show the recorded device; offline part skipped"
  fi
fi


# --- perf archive ----------------------------------------------------------
# perf archive packs the files that sampled IPs hit (perf buildid-list
# --with-hits): deep-recursion, whose own code has the samples; libc
# stays where it was recorded.
arch=$tmp/arch
mkdir -p "$arch" && cp progs/deep-recursion "$arch/" \
  || die "cannot copy the program"
# Without -N: perf keeps the files in its build-id cache ($HOME/.debug).
perf record -q -e cpu-clock -c 500000 --call-graph=dwarf -o "$tmp/arch.data" \
  -- "$arch/deep-recursion" ${ST_PROG_MS:+"$ST_PROG_MS"} \
  >"$tmp/arch.record.log" 2>&1 || die "perf record failed"
run_st before -i "$tmp/arch.data" -m naive --chains "$tmp/before.chains" \
  -o /dev/null || fail "archive: stacktrace failed"
check_chains before deep-recursion "$tmp/before.chains" \
  || fail "archive: bad chains"
if (cd "$tmp" && perf archive arch.data) >"$tmp/archive.log" 2>&1 \
   && [ -f "$tmp/arch.data.tar.bz2" ]; then
  mv "$arch" "$tmp/arch.away" && rm -rf "$HOME/.debug" && mkdir -p "$tmp/unpacked" \
    && tar xjf "$tmp/arch.data.tar.bz2" -C "$tmp/unpacked" \
    || die "cannot unpack the archive"
  run_st moved -i "$tmp/arch.data" -m naive -o /dev/null || fail "moved: failed"
  grep -E "^stacktrace:   $arch/deep-recursion: missing, [1-9][0-9]* sample" \
    "$tmp/moved.err" || fail "moved: the missing program was not named"
  grep -q -- '--buildid-dir' "$tmp/moved.err" || fail "moved: no advice"
  run_st unpacked -i "$tmp/arch.data" -m naive --buildid-dir "$tmp/unpacked" \
    --chains "$tmp/after.chains" -o /dev/null || fail "unpacked: failed"
  if cmp "$tmp/before.chains" "$tmp/after.chains"; then
    echo "archive: the same chains from the unpacked archive"
  else
    fail "archive: other chains from the unpacked archive"
  fi
else
  cat "$tmp/archive.log"
  echo "archive: perf archive does not work here; part skipped"
fi

# --- a capture's mount tables ------------------------------------------------
# The process ran from $mnt/real, a mount (its mountinfo says) of
# /payload of a filesystem the recorder had mounted at $mnt/fsroot
# (its /proc/mounts says); the files are now only there.
mnt=$tmp/mnt
mkdir -p "$mnt/real" "$mnt/fsroot/payload" \
  && cp progs/uses-lib progs/libstcallee.so "$mnt/real/" \
  || die "cannot copy the programs"
# shellcheck disable=SC2086
$ST_PERF_RECORD -o "$tmp/mnt.data" -- "$mnt/real/uses-lib" \
  ${ST_PROG_MS:+"$ST_PROG_MS"} >"$tmp/mnt.record.log" 2>&1 \
  || die "perf record failed"
"$STACKTRACE" -q -m passthru -i "$tmp/mnt.data" -o "$tmp/mnt-raw.syscap" \
  || die "cannot convert to a capture"
run_st mnt-first -i "$tmp/mnt-raw.syscap" --chains "$tmp/mnt-first.chains" \
  -o /dev/null || fail "mounts: stacktrace failed"
pid=$(awk -F '\t' 'NR == 1 { print $1 }' "$tmp/mnt-first.chains")
mv "$mnt/real/uses-lib" "$mnt/real/libstcallee.so" "$mnt/fsroot/payload/" \
  || die "mv failed"
printf '22 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n36 22 254:16 /payload %s rw,relatime - ext4 /dev/stfake rw\n' \
  "$mnt/real" >"$tmp/mountinfo"
printf '/dev/vda / ext4 rw 0 0\n/dev/stfake %s ext4 rw 0 0\n' "$mnt/fsroot" \
  >"$tmp/mounts"
harness/capture-add-files "$tmp/mnt-raw.syscap" "$tmp/mnt.syscap" \
  "$pid:/proc/$pid/mountinfo=$tmp/mountinfo" "$pid:/proc/mounts=$tmp/mounts" \
  || die "cannot add the mount tables"
run_st mounts -i "$tmp/mnt.syscap" -v --chains "$tmp/mounts.chains" -o /dev/null \
  || fail "mounts: stacktrace failed"
check_chains mounts uses-lib "$tmp/mounts.chains" \
  || fail "mounts: the mount tables did not find the files"
grep -q "^stacktrace:   $mnt/real/uses-lib: $mnt/fsroot/payload/uses-lib (mount-table" \
  "$tmp/mounts.err" || fail "mounts: -v does not say where the file came from"

# --- missing, rebuilt, not regular ---------------------------------------
bad=$tmp/bad
mkdir -p "$bad" && cp progs/uses-lib progs/libstcallee.so "$bad/" \
  || die "cannot copy the programs"
# shellcheck disable=SC2086
$ST_PERF_RECORD -o "$tmp/bad.data" -- "$bad/uses-lib" ${ST_PROG_MS:+"$ST_PROG_MS"} \
  >"$tmp/bad.record.log" 2>&1 || die "perf record failed"
# shellcheck disable=SC2086
$ST_PERF_RECORD --buildid-mmap -o - -- "$bad/uses-lib" ${ST_PROG_MS:+"$ST_PROG_MS"} \
  >"$tmp/bad-bid.data" 2>"$tmp/bad-bid.record.log" || die "perf record failed"
# shellcheck disable=SC2086
$ST_PERF_RECORD -o - -- "$bad/uses-lib" ${ST_PROG_MS:+"$ST_PROG_MS"} \
  >"$tmp/bad-ino.data" 2>"$tmp/bad-ino.record.log" || die "perf record failed"
run_st ino-before -f perf -i "$tmp/bad-ino.data" -m naive -v -o /dev/null \
  || fail "inode: stacktrace failed"
by_inode=no
grep -q "^stacktrace:   $bad/libstcallee.so: .*(recorded-path, inode)" \
  "$tmp/ino-before.err" && by_inode=yes

# expect LABEL CAUSE DATA: the library named with CAUSE and a sample count,
# and never used to unwind.
expect ()
{
  run_st "$1" -f perf -i "$3" -m naive --chains "$tmp/$1.chains" -o /dev/null \
    || fail "$1: stacktrace failed"
  grep -E "^stacktrace:   $bad/libstcallee.so: $2, [1-9][0-9]* sample" \
    "$tmp/$1.err" || fail "$1: the library was not named with '$2'"
  if grep -q 'st_lib_leaf' "$tmp/$1.chains"; then
    fail "$1: the library was used to unwind"
  fi
}

mv "$bad/libstcallee.so" "$tmp/libstcallee.so.real" || die "mv failed"
expect missing missing "$tmp/bad.data"
cp progs/decoy/libstcallee.so "$bad/libstcallee.so" || die "cp failed"
expect rebuilt-file 'build-id mismatch' "$tmp/bad.data"
expect rebuilt-pipe 'build-id mismatch' "$tmp/bad-bid.data"
if [ $by_inode = yes ]; then
  expect rebuilt-inode 'replaced since recorded' "$tmp/bad-ino.data"
else
  echo "inode: the file system does not show the recorded device; part skipped"
fi
rm -f "$bad/libstcallee.so" && mkfifo "$bad/libstcallee.so" || die "mkfifo failed"
expect fifo 'not a regular file' "$tmp/bad.data"

# A library without any CFI (progs/nocfi): used, but walks stop there.
nocfi=$tmp/nocfi
mkdir -p "$nocfi" && cp progs/uses-lib progs/nocfi/libstcallee.so "$nocfi/" \
  || die "cannot copy the programs"
# shellcheck disable=SC2086
$ST_PERF_RECORD -o "$tmp/nocfi.data" -- "$nocfi/uses-lib" \
  ${ST_PROG_MS:+"$ST_PROG_MS"} >"$tmp/nocfi.record.log" 2>&1 \
  || die "perf record failed"
run_st nocfi -i "$tmp/nocfi.data" -m naive -o /dev/null || fail "nocfi: failed"
grep -E "^stacktrace:   $nocfi/libstcallee.so: no unwind data, [1-9][0-9]* sample" \
  "$tmp/nocfi.err" || fail "nocfi: the library was not named"

# Code built without unwind tables, stripped: its CFI is only in the
# debug file its debuglink names (found beside it).
nut=$tmp/no-tables
mkdir -p "$nut/hide" && eu-strip -g -f "$nut/hide/dbgframe-prog.debug" \
  -o "$nut/dbgframe-prog" progs/dbgframe-prog || die "eu-strip failed"
# shellcheck disable=SC2086
$ST_PERF_RECORD -o "$tmp/nut.data" -- "$nut/dbgframe-prog" \
  ${ST_PROG_MS:+"$ST_PROG_MS"} >"$tmp/nut.record.log" 2>&1 \
  || die "perf record failed"
run_st nut-none -i "$tmp/nut.data" -o /dev/null || fail "nut-none: failed"
grep -E "^stacktrace:   $nut/dbgframe-prog: no unwind data, [1-9][0-9]* sample" \
  "$tmp/nut-none.err" || fail "no tables, no debug file: not named"
grep -q "built without unwind tables .*no debug file was found" \
  "$tmp/nut-none.err" || fail "no tables, no debug file: no reason given"
objcopy --remove-section .debug_frame "$nut/hide/dbgframe-prog.debug" \
  "$nut/dbgframe-prog.debug" 2>/dev/null || die "objcopy failed"
run_st nut-nodf -i "$tmp/nut.data" -o /dev/null || fail "nut-nodf: failed"
grep -E "^stacktrace:   $nut/dbgframe-prog: debug file without unwind data, [1-9][0-9]* sample" \
  "$tmp/nut-nodf.err" || fail "no tables, debug file without .debug_frame: not named"
grep -q "advice: build it with unwind tables" "$tmp/nut-nodf.err" \
  || fail "no tables, debug file without .debug_frame: no advice"
cp "$nut/hide/dbgframe-prog.debug" "$nut/dbgframe-prog.debug" || die "cp failed"
run_st nut-debug -i "$tmp/nut.data" -o /dev/null --chains "$tmp/nut.chains" \
  || fail "nut-debug: failed"
grep -q "could not be used" "$tmp/nut-debug.err" \
  && fail "no tables, with its debug file: still named"
check_chains nut nopie-prog "$tmp/nut.chains" || fail "nut-debug: chains"

# The rest ran; without the container the test as a whole is skipped.
if [ $container = no ] && [ "$st_failed" -eq 0 ]; then
  skip "the container part could not run (chroot)"
fi
finish
