#!/bin/sh
# Hostile paths in MAP frames: devices, a FIFO nobody writes to, /proc
# and /sys files, a symlink loop, a directory, a huge sparse file, non-ELF
# and truncated or damaged ELF files, odd names (not /proc/kmsg: even
# opening it is not ours to do).  Each process of a
# synthetic capture maps one of them where its samples' code lies.
# stacktrace must finish promptly (no open that blocks, no unbounded
# read), count every sample, and unwind none through those files.  Then
# a debug link naming a FIFO: the separate-debug-file lookup must not
# wait on it either.
. "$TESTS_SRCDIR/lib/test-lib.sh"
need_stacktrace
command -v timeout >/dev/null 2>&1 || skip "no timeout command"

gen=$TESTS_BUILDDIR/harness/gen-many-pids
fixture=$TESTS_DATA/fixture
[ -x "$gen" ] || die "$gen not built"

mkfifo "$tmp/fifo" || die "mkfifo failed"
ln -s loop-b "$tmp/loop-a" && ln -s loop-a "$tmp/loop-b" || die "ln failed"
mkdir "$tmp/dir"
truncate -s 64G "$tmp/sparse" 2>/dev/null || : >"$tmp/sparse"
echo "not an ELF file" >"$tmp/text"
head -c 100 "$fixture/st-fixture" >"$tmp/elf-100-bytes"
head -c 8192 "$fixture/st-fixture" >"$tmp/elf-8k"
cp "$fixture/st-fixture" "$tmp/elf-bad-phdrs"
# e_phoff (offset 32) far beyond the file, e_phnum (offset 56) 0xffff.
printf '\377\377\377\377\377\377\000\000' \
  | dd of="$tmp/elf-bad-phdrs" bs=1 seek=32 conv=notrunc 2>/dev/null
printf '\377\377' | dd of="$tmp/elf-bad-phdrs" bs=1 seek=56 conv=notrunc 2>/dev/null
long=$(printf '/x%.0s' $(seq 1 1500))

set -- /dev/zero /dev/urandom /dev/null /dev/tty /dev/stdin /dev/fd/0 \
  /proc/self/mem /proc/self/maps /proc/self/status \
  /sys/kernel/mm/transparent_hugepage/enabled \
  "$tmp/fifo" "$tmp/loop-a" "$tmp/dir" "$tmp/sparse" "$tmp/text" \
  "$tmp/elf-100-bytes" "$tmp/elf-8k" "$tmp/elf-bad-phdrs" \
  "$tmp/missing" "$tmp/fifo (deleted)" relative/path "" "$long" "[heap]"
n=$#

"$gen" "$fixture/fixture.syscap" "$n" 2 "$@" >"$tmp/hostile.syscap" \
  || die "gen-many-pids failed"
timeout 60 "$STACKTRACE" -v -i "$tmp/hostile.syscap" -o "$tmp/out.syscap" \
  --chains "$tmp/chains" </dev/null 2>"$tmp/err"
status=$?
grep -v '^stacktrace: pid ' "$tmp/err" | tail -n 6
if [ $status -eq 124 ]; then
  fail "stacktrace hung on a hostile path (killed after 60 s)"
elif [ $status -ne 0 ]; then
  fail "stacktrace exited with $status"
fi
samples=$((n * 2))
grep -q "^stacktrace: total: $samples samples, 0 unwound to the root" "$tmp/err" \
  || fail "expected $samples samples, none unwound"

# The separate debug file lookup: a stripped copy of the fixture binary
# whose .gnu_debuglink names a FIFO beside it.
mkdir "$tmp/symfs"
# (With the fixture's [vdso] in its build-id cache layout.)
cp -R "$fixture/.build-id" "$fixture/[vdso]" "$tmp/symfs/"
objcopy --strip-all --add-gnu-debuglink="$fixture/st-fixture.c" \
  "$fixture/st-fixture" "$tmp/symfs/st-fixture" 2>/dev/null \
  || skip "objcopy cannot make a stripped copy"
mkfifo "$tmp/symfs/st-fixture.c"
timeout 60 "$STACKTRACE" -i "$fixture/fixture.syscap" --symfs "$tmp/symfs" \
  -o "$tmp/out2.syscap" --chains "$tmp/chains2" 2>"$tmp/err2"
status=$?
tail -n 1 "$tmp/err2"
if [ $status -eq 124 ]; then
  fail "stacktrace hung on a debug link naming a FIFO (killed after 60 s)"
elif [ $status -ne 0 ]; then
  fail "stacktrace exited with $status on a debug link naming a FIFO"
fi
"$STACKTRACE" -i "$fixture/fixture.syscap" --symfs "$fixture" -o /dev/null \
  2>"$tmp/err-original"
total=$(grep '^stacktrace: total:' "$tmp/err-original")
[ -n "$total" ] || die "the original fixture binary gave no statistics"
grep -qxF "$total" "$tmp/err2" \
  || fail "the stripped fixture binary did not unwind as the original"
finish
