#!/bin/sh
# A perf user's first hour (issue 31), on the committed fixtures:
#   - the output format: --output-format, else the -o suffix (.data,
#     .syscap), else the input's; -v says which and why;
#   - nothing of an existing output is lost on a bad argument, a bad
#     output path (-o, --chains, --stats-file), an unknown or missing
#     input: the old bytes are compared with cmp;
#   - an existing output is kept as NAME.old, not with --force; no
#     temporary file is left; a stop by SIGTERM renames the output into
#     place;
#   - outputs (-o, --chains, --stats-file) are created 0600, narrowed by
#     the umask, never widened;
#   - perf's defaults: ./perf.data when standard input is a terminal
#     (under script(1), skipped without it), a single argument is the
#     input; quickstart.sh prints a command with -o;
#   - the success rate as LOG lines in a capture (Sysprof 48's Logs);
#   - messages: -m none, an unwound capture, the priming line, a
#     truncated perf.data, random bytes, a directory;
#   - names (with perf): a threaded program's samples, through a capture
#     and back, all carry its comm (not ":TID", not a command line).
# Waits on events (files, process states), never on sleeps.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
fx=$TESTS_DATA/fixture
[ -f "$fx/fixture.data" ] && [ -f "$fx/fixture.syscap" ] || die "fixture missing"

# magic FILE: perf, capture or other, by the first bytes.
magic ()
{
  m=$(od -An -c -N8 "$1" | tr -d ' ')
  case $m in
    PERFILE2) echo perf ;;
    *) if [ "$(od -An -tx4 -N4 "$1" | tr -d ' ')" = fdca975e ]; then
         echo capture
       else
         echo other
       fi ;;
  esac
}

# mode_of FILE: its permission bits as ls shows them (-rw-------).
mode_of ()
{
  ls -l "$1" | cut -c1-10
}

cd "$tmp" || die "cannot enter $tmp"

echo "== the output format"
check_format ()
{
  cf_want=$1
  cf_why=$2
  cf_out=$3
  shift 3
  rm -f "$cf_out"
  "$STACKTRACE" -v --symfs "$fx" "$@" -o "$cf_out" 2>fmt.err
  cf_status=$?
  [ $cf_status -eq 0 ] || { cat fmt.err; fail "format $cf_out: exit $cf_status"; }
  [ "$(magic "$cf_out")" = "$cf_want" ] \
    || fail "format $*: -o $cf_out is $(magic "$cf_out"), expected $cf_want"
  grep -F "stacktrace: writing " fmt.err | grep -F -q "($cf_why)" \
    || { grep -F "writing" fmt.err; fail "format $cf_out: -v does not say '$cf_why'"; }
}
check_format perf "the -o name ends in .data" a.data -i "$fx/fixture.data"
check_format capture "the -o name ends in .syscap" a.syscap -i "$fx/fixture.data"
check_format perf "the -o name ends in .data" b.data -i "$fx/fixture.syscap"
check_format perf "the input's format" a.out -i "$fx/fixture.data"
check_format capture "the input's format" b.out -i "$fx/fixture.syscap"
check_format capture "--output-format" c.data -i "$fx/fixture.data" \
  --output-format sysprof
check_format perf "--output-format" c.syscap -i "$fx/fixture.syscap" \
  --output-format perf
# Standard output: the input's format.
"$STACKTRACE" -q -i "$fx/fixture.data" --symfs "$fx" > stdout.out \
  || fail "perf.data to standard output failed"
[ "$(magic stdout.out)" = perf ] || fail "perf.data to stdout is not perf.data"
if command -v perf >/dev/null 2>&1; then
  n=$(perf script -i a.data 2>/dev/null | grep -c -F "cpu-clock")
  echo "perf script reads $n samples of a.data"
  [ "$n" -gt 0 ] || fail "perf script reads no sample of a.data (-o *.data)"
fi

echo "== nothing lost on a bad argument"
mkdir out adir
cp "$fx/fixture.syscap" out/keep.data
cp out/keep.data keep.orig
# bad_case STATUS TEXT ARGS...: exit STATUS, TEXT said, out/keep.data
# intact, nothing new in its directory.
bad_case ()
{
  bc_want=$1
  bc_text=$2
  shift 2
  ls -a out > before.ls
  "$STACKTRACE" "$@" 2>bad.err </dev/null
  bc_status=$?
  [ $bc_status -eq "$bc_want" ] \
    || { cat bad.err; fail "$*: exit status $bc_status, expected $bc_want"; }
  grep -F -q -- "$bc_text" bad.err \
    || { cat bad.err; fail "$*: no message '$bc_text'"; }
  cmp -s out/keep.data keep.orig \
    || { fail "$*: the existing output was changed"; cp keep.orig out/keep.data; }
  ls -a out > after.ls
  cmp -s before.ls after.ls \
    || { diff before.ls after.ls; fail "$*: files appeared or went"; }
}
in=$fx/fixture.data
bad_case 1 "chains file /nonexistent/x.chains: its directory /nonexistent" \
  -i "$in" -o out/keep.data --chains /nonexistent/x.chains
bad_case 1 "stats file /nonexistent/x.stats" \
  -i "$in" -o out/keep.data --stats-file /nonexistent/x.stats
bad_case 1 "the chains file adir is a directory" \
  -i "$in" -o out/keep.data --chains adir
bad_case 1 "the output adir is a directory" -i "$in" -o adir --chains out/c.chains
bad_case 1 "its directory /nonexistent" -i "$in" -o /nonexistent/out.data
bad_case 2 "unknown mode 'fast'" -i "$in" -o out/keep.data -m fast
bad_case 2 "unknown format 'perff'" -i "$in" -o out/keep.data --output-format perff
bad_case 2 "unexpected argument" "$in" other.data -o out/keep.data
bad_case 1 "cannot open input" -i missing.data -o out/keep.data
head -c 4096 /dev/zero | tr '\0' 'x' > text.in
bad_case 1 "first bytes are 78 78 78 78" -i text.in -o out/keep.data
bad_case 1 "the input adir is a directory" -i adir -o out/keep.data
# Refused with the input as output, also under the new rules.
cp keep.orig self.data
"$STACKTRACE" -q -i self.data -o self.data 2>self.err
[ $? -eq 1 ] || fail "-o equal to -i was not refused"
cmp -s self.data keep.orig || fail "-o equal to -i changed the input"

echo "== NAME.old, --force, no temporary left"
cp keep.orig keep.data
"$STACKTRACE" -q -i "$fx/fixture.syscap" --symfs "$fx" -o keep.data \
  || fail "writing over keep.data failed"
cmp -s keep.data.old keep.orig || fail "the old keep.data was not kept as keep.data.old"
[ "$(magic keep.data)" = perf ] || fail "keep.data was not replaced by perf.data"
cp keep.data second.orig
"$STACKTRACE" -q -i "$fx/fixture.syscap" --symfs "$fx" -o keep.data --force \
  || fail "--force failed"
cmp -s keep.data.old keep.orig || fail "--force touched keep.data.old"
ls -a | grep -F -q ".keep.data." && fail "a temporary file was left behind"
# A symbolic link: the file it names is replaced, the link stays.
ln -s keep.data link.data
"$STACKTRACE" -q -i "$fx/fixture.syscap" --symfs "$fx" -o link.data --force \
  || fail "writing through a symbolic link failed"
[ -L link.data ] || fail "the symbolic link was replaced by a file"

# A FIFO is written in place (no temporary file, the FIFO stays).
mkfifo out.fifo
cat out.fifo > fifo.copy &
cat_pid=$!
"$STACKTRACE" -q -i "$fx/fixture.syscap" --symfs "$fx" -o out.fifo \
  || fail "writing to a FIFO failed"
wait $cat_pid
[ -p out.fifo ] || fail "the FIFO output was replaced by a file"
[ "$(magic fifo.copy)" = capture ] || fail "nothing came through the FIFO"
ls -a | grep -F -q ".out.fifo." && fail "a temporary file for a FIFO output"

echo "== stopped by SIGTERM: the output goes into place"
mkfifo in.fifo
"$STACKTRACE" -q -i in.fifo -o term.syscap --symfs "$fx" &
pid=$!
exec 7>in.fifo
# Whole frames only: a frame cut by the stop would be damage (exit 1).
cut=$(capture_frames "$fx/fixture.syscap" | awk '$1 >= 65536 { print $1; exit }')
head -c "$cut" "$fx/fixture.syscap" >&7
i=0
until ls -a | grep -F -q ".term.syscap."; do
  i=$((i + 1))
  [ $i -lt 3000 ] || { fail "no temporary file appeared"; break; }
  sleep 0.02
done
[ -e term.syscap ] && fail "term.syscap exists before the end"
kill -TERM $pid
exec 7>&-
wait $pid
status=$?
[ $status -eq 0 ] || fail "SIGTERM: exit status $status, expected 0"
[ "$(magic term.syscap)" = capture ] || fail "SIGTERM: term.syscap not in place"
ls -a | grep -F -q ".term.syscap." && fail "SIGTERM: the temporary file stayed"

echo "== modes 0600"
for u in 022 077 000; do
  rm -f m.syscap m.chains m.stats
  (umask $u && "$STACKTRACE" -q -i "$fx/fixture.syscap" --symfs "$fx" \
     -o m.syscap --chains m.chains --stats-file m.stats) \
    || fail "umask $u: failed"
  for f in m.syscap m.chains m.stats; do
    [ "$(mode_of $f)" = "-rw-------" ] \
      || fail "umask $u: $f is $(mode_of $f), expected -rw-------"
  done
done
rm -f m.syscap
(umask 277 && "$STACKTRACE" -q -i "$fx/fixture.syscap" -o m.syscap) \
  || fail "umask 277: failed"
[ "$(mode_of m.syscap)" = "-r--------" ] \
  || fail "umask 277: m.syscap is $(mode_of m.syscap), expected -r--------"

echo "== perf's defaults"
cp "$fx/fixture.data" perf.data
"$STACKTRACE" -m none perf.data 2>pos.err || fail "a single argument is not the input"
grep -F -q "299 raw-stack samples read" pos.err || { cat pos.err; fail "positional input not read"; }
if script -qec true /dev/null >/dev/null 2>&1; then
  # Under script(1) standard input is a terminal.
  script -qec "$STACKTRACE -m none" /dev/null </dev/null >tty.out 2>&1
  grep -F -q "reading ./perf.data" tty.out \
    || { cat tty.out; fail "a terminal on stdin: ./perf.data is not read"; }
  grep -F -q "299 raw-stack samples read" tty.out \
    || fail "a terminal on stdin: perf.data's samples not read"
else
  echo "script(1) cannot give a terminal: terminal default not checked"
fi
qs=$TESTS_SRCDIR/../quickstart.sh
grep -F 'cmd="$top/build/src/stacktrace -i' "$qs" | grep -F -q -- " -o " \
  || fail "quickstart.sh prints a command without -o"

echo "== messages"
"$STACKTRACE" -m none -i "$fx/fixture.syscap" 2>none.err
grep -F -q "passed through" none.err && fail "-m none says passed through"
grep -F -q "nothing written (-m none)" none.err || { cat none.err; fail "-m none: no message"; }
"$STACKTRACE" -q -i "$fx/fixture.syscap" --symfs "$fx" -o unwound.syscap \
  || fail "unwinding the fixture failed"
"$STACKTRACE" -m none -i unwound.syscap 2>unwound.err
grep -F -q -- "--call-graph=dwarf" unwound.err \
  && { cat unwound.err; fail "an unwound capture is told to record with --call-graph=dwarf"; }
grep -F -q "already unwound" unwound.err || { cat unwound.err; fail "an unwound capture: no message"; }
# The success rate where Sysprof 48 shows it: a LOG line, the last one
# the total.
grep -a -F -q "Unwinding: 299 of 299 samples unwound to the root (100.0% success), 0 truncated, 0 failed" unwound.syscap \
  || fail "the unwound capture has no LOG line with the total"
"$STACKTRACE" -q -i "$fx/fixture.syscap" --symfs "$fx" --truncate-stack 64 \
  -o cut.syscap || fail "unwinding cut stacks failed"
grep -a -F "Unwinding: " cut.syscap >/dev/null \
  || fail "the capture of cut stacks has no LOG line"
grep -a -F -q "samples unwound to the root (100.0% success), 299 truncated" cut.syscap \
  && fail "100.0% success while samples were truncated"
# Through a pipe (priming defer) nothing held back by the cap and
# nothing unprimed: no priming line, but with -v.
cat "$fx/fixture.syscap" | "$STACKTRACE" --symfs "$fx" -o pipe.syscap 2>pipe.err \
  || fail "unwinding through a pipe failed"
grep -F -q "priming (" pipe.err && { cat pipe.err; fail "a priming line though nothing was held back"; }
cat "$fx/fixture.syscap" | "$STACKTRACE" -v --symfs "$fx" -o pipe.syscap 2>pipe-v.err \
  || fail "unwinding through a pipe (-v) failed"
grep -F -q "priming (defer)" pipe-v.err || fail "no priming line with -v"
# A perf.data cut in half: named truncated, with its path.
size=$(wc -c <"$fx/fixture.data")
head -c $((size / 2)) "$fx/fixture.data" > half.data
"$STACKTRACE" -i half.data --symfs "$fx" -o half.syscap 2>half.err
[ $? -eq 1 ] || fail "a truncated perf.data: exit status not 1"
grep -F -q "the file is truncated" half.err || { cat half.err; fail "truncated perf.data: not named truncated"; }
grep -F -q "of half.data" half.err || fail "truncated perf.data: no path"
[ "$(magic half.syscap)" = capture ] || fail "truncated perf.data: what it held was not written"
# Random bytes: what was seen, no useless advice.
head -c 3000 /dev/urandom > random.bin
"$STACKTRACE" -i random.bin -o random.syscap 2>random.err
grep -F -q "random.bin: offset 0: neither a Sysprof capture nor perf.data: the first bytes are" random.err \
  || { cat random.err; fail "random bytes: the message does not say what was seen"; }
grep -F -q -- "--format" random.err && fail "random bytes: --format suggested"
[ -e random.syscap ] && fail "random bytes: an output was created"

echo "== names: the comm, every thread named"
# Pipe mode: perf 6.1 in file mode reads build-ids back at the end, and
# aborts where the kernel marks MMAP2 records as carrying one they do
# not (while another session on the machine asks for build-ids).
prog=$(prog_path threads)
[ -x "$prog" ] || die "test program $prog not built"
if command -v perf >/dev/null 2>&1 \
   && perf record -q -e cpu-clock -c 500000 --call-graph=dwarf -o - \
        -- "$prog" 300 >threads.pipe 2>threads.record.log \
   && [ -s threads.pipe ]; then
  "$STACKTRACE" -m passthru -i threads.pipe -o threads.syscap 2>threads.err \
    || { cat threads.err; fail "perf.data to a capture failed"; }
  n_orig=$(sed -n 's/^stacktrace: \([0-9]*\) raw-stack samples passed through.*/\1/p' threads.err)
  "$STACKTRACE" -q -m passthru -i threads.syscap -o back.data \
    || fail "the capture back to perf.data failed"
  perf script -i back.data -F comm 2>/dev/null | sort | uniq -c > names.back
  echo "perf script -F comm, through a capture (of ${n_orig:-?} samples):"
  cat names.back
  # Every sample named as recorded ("threads"), none ":TID", no
  # command line (the argument 300 would be in it).
  grep -F -q ":" names.back && fail "threads lost their name (:TID)"
  awk '$2 != "threads" { bad++ } END { exit bad > 0 }' names.back \
    || fail "samples of the capture converted back are not all named threads"
  n_back=$(awk '{ n += $1 } END { print n + 0 }' names.back)
  # (perf script counts kernel-only samples too: at least as many.)
  [ "$n_back" -gt 0 ] && [ "$n_back" -ge "${n_orig:-0}" ] \
    || fail "$n_back of ${n_orig:-?} samples through the capture"
  grep -a -F -q "threads 300" threads.syscap \
    && fail "the capture names the process by its command line"
else
  echo "perf cannot record here: names through perf not checked"
fi

finish
