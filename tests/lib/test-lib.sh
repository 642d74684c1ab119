# Shared helpers for the integration scripts; source it, do not run it.
# Environment (set by tests/Makefile.am, defaults for running by hand):
#   STACKTRACE      the command under test
#   TESTS_SRCDIR    tests/ in the source tree
#   TESTS_BUILDDIR  tests/ in the build tree (progs/ holds the test programs)
#   TESTS_DATA      tests/data in the source tree
#   ST_PROG_MS      run time of each test program in ms (default: theirs)
#   ST_MIN_LEAF_SAMPLES, ST_MIN_COMPARED  fewest samples a check accepts
#                   (default 50: pipe mode under load loses many)
#   ST_KEEP_TMP=1   keep the scratch directory for inspection
# Portable sh and POSIX awk only (mawk: no interval expressions, %x is
# 32-bit), so the scripts run on a bare Debian.

: "${TESTS_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${TESTS_BUILDDIR:=$TESTS_SRCDIR}"
: "${TESTS_DATA:=$TESTS_SRCDIR/data}"
: "${STACKTRACE:=$TESTS_BUILDDIR/../src/stacktrace}"
export LC_ALL=C

st_failed=0

skip ()
{
  echo "SKIP: $*"
  exit 77
}

# Record a failure and carry on, so one run logs every problem.
fail ()
{
  echo "FAIL: $*"
  st_failed=1
}

# Hard error in the test set-up itself (automake: 99).
die ()
{
  echo "ERROR: $*"
  exit 99
}

finish ()
{
  if [ "$st_failed" -ne 0 ]; then
    echo "RESULT: FAIL"
    exit 1
  fi
  echo "RESULT: PASS"
  exit 0
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/st-test.XXXXXX") || die "mktemp failed"
# Each script has a HOME of its own, empty: what perf keeps in ~/.debug
# stays with the script that recorded it.
HOME=$tmp/home
export HOME
mkdir "$HOME" || die "cannot create $HOME"
st_cleanup ()
{
  if [ "${ST_KEEP_TMP:-0}" = 1 ]; then
    echo "kept $tmp"
  else
    rm -rf "$tmp"
  fi
}
trap st_cleanup EXIT
trap 'exit 130' INT TERM

need_stacktrace ()
{
  [ -x "$STACKTRACE" ] || die "stacktrace command not found at '$STACKTRACE'"
}

# patch_bytes FILE OFFSET BYTES: overwrites FILE at OFFSET with BYTES
# (printf escapes), to damage a copy of a fixture.
patch_bytes ()
{
  printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null \
    || die "cannot patch $1"
}

# capture_frames FILE: one line "OFFSET TYPE LENGTH CPU PID" per frame of
# the Sysprof capture FILE, read at the format's offsets (256-byte header;
# each frame's u16 length @0, i16 cpu @2, i32 pid @4, type @16), so that scripts that
# damage the committed fixtures find their frames however the fixture
# was recorded.
capture_frames ()
{
  od -An -v -tu1 "$1" | awk '
    { for (i = 1; i <= NF; i++) b[n++] = $i }
    END {
      off = 256
      while (off + 24 <= n) {
        len = b[off] + 256 * b[off + 1]
        if (len < 24 || off + len > n)
          break
        cpu = b[off + 2] + 256 * b[off + 3]
        if (cpu >= 32768)
          cpu -= 65536
        pid = b[off + 4] + 256 * (b[off + 5] + 256 * (b[off + 6] + 256 * b[off + 7]))
        if (pid >= 2147483648)
          pid -= 4294967296
        print off, b[off + 16], len, cpu, pid
        off += len
      }
    }'
}

# perf_records FILE: one line "OFFSET TYPE SIZE" per record of the data
# section of the perf.data FILE (file mode: the data section's offset and
# size at 40 and 48 of the header; each record's u32 type @0, u16 size
# @6).
perf_records ()
{
  od -An -v -tu1 "$1" | awk '
    function u32(o) { return b[o] + 256 * (b[o + 1] + 256 * (b[o + 2] + 256 * b[o + 3])) }
    { for (i = 1; i <= NF; i++) b[n++] = $i }
    END {
      off = u32(40)
      end = off + u32(48)
      while (off + 8 <= end) {
        size = b[off + 6] + 256 * b[off + 7]
        if (size < 8)
          break
        print off, u32(off), size
        off += size
      }
    }'
}

# u64_at FILE OFFSET: the little-endian u64 at OFFSET of FILE, in decimal.
u64_at ()
{
  od -An -tu8 -j "$2" -N8 "$1" | tr -d ' '
}

# Skip unless perf can record DWARF call graphs here (no perf, a
# restrictive perf_event_paranoid, a container without perf events...).
need_perf ()
{
  command -v perf >/dev/null 2>&1 || skip "perf not installed"
  if ! perf record -q -N -e cpu-clock --call-graph=dwarf -o "$tmp/need-perf.data" \
       -- true >"$tmp/need-perf.log" 2>&1; then
    cat "$tmp/need-perf.log"
    skip "perf record --call-graph=dwarf does not work here"
  fi
  perf script -i "$tmp/need-perf.data" >/dev/null 2>&1 \
    || skip "perf script does not work here"
  rm -f "$tmp/need-perf.data" "$tmp/need-perf.log"
}

# Whether perf can record DWARF call graphs here, for a script whose perf
# part is optional (need_perf skips the whole script).
perf_can_record ()
{
  command -v perf >/dev/null 2>&1 \
    && perf record -q -N -e cpu-clock --call-graph=dwarf \
         -o "$tmp/need-perf.data" -- true >/dev/null 2>&1
}

# many_processes_workload OUT ROUNDS [EXTRA]: writes to OUT a shell loop
# of ROUNDS rounds of short-lived processes (the test programs, sha256sum,
# sort | cksum, ls), EXTRA (a command line, \$i the round) in each, for
# tests/many-processes.sh and tests/bench/priming-bench.sh; run it from
# the build's tests/ directory.
many_processes_workload ()
{
  head -c 400000 /dev/urandom >"$tmp/data.bin" 2>/dev/null \
    || die "cannot make the input data"
  cat >"$1" <<EOF
i=0
while [ \$i -lt $2 ]; do
  i=\$((i + 1))
  progs/deep-recursion 3
  progs/uses-lib 2
  ${3:-:}
  sha256sum "$tmp/data.bin"
  sort "$tmp/data.bin" | cksum
  ls -R /usr/lib/x86_64-linux-gnu/gconv >/dev/null 2>&1
done
EOF
}

# The test programs with known call paths.
ST_PROGS="deep-recursion threads uses-lib plt-calls nopie-prog"

prog_path ()
{
  echo "$TESTS_BUILDDIR/progs/$1"
}

# Also moves to the build directory, like automake does: uses-lib finds
# its library there.
need_progs ()
{
  for p in $ST_PROGS; do
    [ -x "$(prog_path "$p")" ] || die "test program $(prog_path "$p") not built"
  done
  cd "$TESTS_BUILDDIR" || die "cannot cd to $TESTS_BUILDDIR"
}

# perf record options: cpu-clock every 0.5 ms of CPU time (-c, not -F,
# so a lowered perf_event_max_sample_rate cannot refuse it); -N: do not
# copy the test programs into ~/.debug.
ST_PERF_RECORD="perf record -q -N -e cpu-clock -c 500000 --call-graph=dwarf"

# record_file PROG OUT: file-mode perf.data of one run of PROG.
record_file ()
{
  # shellcheck disable=SC2086
  $ST_PERF_RECORD -o "$2" -- "$(prog_path "$1")" ${ST_PROG_MS:+"$ST_PROG_MS"} \
    >"$2.record.log" 2>&1
}

# record_migrated PROG OUT: like record_file, but perf and the program
# start on CPU 1 and the program moves to CPU 0 at the start of main
# (ST_MIGRATE_CPU, see progs/st-work.h), so perf.data holds samples ahead
# of the exec and mmap records they depend on: perf writes its per-CPU
# buffers one after the other, readers must order by time themselves.
# Returns 77 when that cannot be set up (one CPU, no taskset).
record_migrated ()
{
  command -v taskset >/dev/null 2>&1 || return 77
  [ "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)" -ge 2 ] || return 77
  # shellcheck disable=SC2086
  ST_MIGRATE_CPU=0 taskset -c 1 $ST_PERF_RECORD -o "$2" \
    -- "$(prog_path "$1")" ${ST_PROG_MS:+"$ST_PROG_MS"} >"$2.record.log" 2>&1
}

# run_st LABEL ARGS...: run stacktrace, keep its stderr in $tmp/LABEL.err,
# print its statistics line (the total, or with -m passthru the raw-stack
# samples passed through, with -m none those read, or that there were
# none); returns
# its exit status, or 1 when the statistics line is missing.
run_st ()
{
  rs_label=$1
  shift
  "$STACKTRACE" "$@" 2>"$tmp/$rs_label.err"
  rs_status=$?
  if [ "$rs_status" -ne 0 ]; then
    echo "$rs_label: stacktrace $* exited with $rs_status:"
    tail -n 20 "$tmp/$rs_label.err"
    return "$rs_status"
  fi
  if ! grep -E '^stacktrace: (total:|[0-9]+ raw-stack samples (passed through|read)|no raw-stack samples)' \
         "$tmp/$rs_label.err" | sed "s/^/$rs_label: /" | grep .; then
    echo "$rs_label: no 'stacktrace: total:' statistics line on stderr"
    return 1
  fi
  return 0
}

# check_chains LABEL PROG CHAINS: of the samples in the --chains file
# CHAINS whose leaf is a known leaf of PROG, require >= 99% (and at least
# ST_MIN_LEAF_SAMPLES) to have exactly the expected path up to main and
# the C start-up (or up to clone3 for threads).  Samples with an empty
# chain have no leaf to check, so they may be at most 1% of all.  PROG is
# one of $ST_PROGS or "fixture" (the static deep-recursion of tests/data).
# Logs the counts, the rate and a few mismatches.
# stats_unclocked STATS: the statistics file STATS without its clock
# lines, which differ from run to run.
stats_unclocked ()
{
  grep -v -e '^time' -e '^uptime_ms=' "$1"
}

# stats_untimed STATS: ... and without how often and how long samples
# waited for their modules (--priming defer), which differ too.
stats_untimed ()
{
  stats_unclocked "$1" | grep -v -e '^priming\.waits=' \
    -e '^priming\.deferred=' -e '^priming\.stalls=' -e '^priming\.held_bytes='
}

check_chains ()
{
  awk -F '\t' -v label="$1" -v prog="$2" -v min="${ST_MIN_LEAF_SAMPLES:-50}" '
    # Expected paths: space-separated tokens, one per frame, leaf first;
    # a token is an ERE for one symbol, "MIN-MAX:ERE" repeats it.
    # Without libc debug info libdwfl has no name for some libc frames,
    # so those positions also accept [libc.so.6+0xOFF].
    BEGIN {
      libc_off = "\\[libc\\.so\\.6\\+0x[0-9a-f]+\\]"
      start = "__libc_start_call_main|" libc_off " " \
              "__libc_start_main(@@GLIBC_[0-9.]+|_impl)? _start"
      static_start = "__libc_start_call_main __libc_start_main(_impl)? _start"
      thread_root = "start_thread|" libc_off " (__)?clone3|" libc_off
      n_leaves = 0
      if (prog == "deep-recursion") {
        expect("st_leaf_work", "st_leaf_work 6-61:st_recurse st_run main " start)
      } else if (prog == "fixture") {
        expect("st_leaf_work", "st_leaf_work 6-61:st_recurse st_run main " static_start)
        expect("(__vdso_)?clock_gettime",
               "(__vdso_)?clock_gettime (__)?clock_gettime st_read_clock st_run main " static_start)
      } else if (prog == "threads") {
        expect("st_thread_leaf_[012]",
               "st_thread_leaf_[012] st_thread_a st_thread_main " thread_root)
        expect("st_thread_leaf_3",
               "st_thread_leaf_3 st_thread_a st_thread_main main " start)
      } else if (prog == "uses-lib") {
        expect("st_lib_leaf",
               "st_lib_leaf st_lib_inner st_lib_outer st_call_lib main " start)
      } else if (prog == "uses-lib-static") {
        # uses-lib with the code of the library linked in (linker-matrix.sh).
        expect("st_lib_leaf",
               "st_lib_leaf st_lib_inner st_lib_outer st_call_lib main " static_start)
      } else if (prog == "plt-calls") {
        # The stub has no symbol: [plt-calls+0xOFF] (perf: st_lib_tiny@plt).
        expect("\\[plt-calls\\+0x[0-9a-f]+\\]",
               "\\[plt-calls\\+0x[0-9a-f]+\\] st_plt_loop main " start)
        expect("st_lib_tiny", "st_lib_tiny st_plt_loop main " start)
      } else if (prog == "nopie-prog") {
        expect("st_np_leaf", "st_np_leaf st_np_b st_np_a main " start)
      } else {
        print label ": unknown program " prog
        exit 2
      }
    }
    function expect(leaf, path) {
      n_leaves++
      leaf_re[n_leaves] = "^(" leaf ")$"
      leaf_path[n_leaves] = path
    }
    # Does sym[1..n] match the token list path exactly?
    function matches(path, n,    tok, ntok, t, i, lo, hi, re, c, p, range) {
      ntok = split(path, tok, " ")
      i = 1
      for (t = 1; t <= ntok; t++) {
        lo = 1; hi = 1; re = tok[t]
        if (re ~ /^[0-9]+-[0-9]+:/) {
          p = index(re, ":")
          split(substr(re, 1, p - 1), range, "-")
          lo = range[1] + 0; hi = range[2] + 0
          re = substr(re, p + 1)
        }
        re = "^(" re ")$"
        c = 0
        while (i <= n && c < hi && sym[i] ~ re) { i++; c++ }
        if (c < lo)
          return 0
      }
      return i == n + 1
    }
    {
      lines++
      if (NF != 5) { bad_lines++; next }
      if ($4 == "") { empty++; next }
      unwound++
      n = split($5, sym, ";")
      if (split($4, addr, ",") != n) { bad_lines++; next }
      for (l = 1; l <= n_leaves; l++)
        if (sym[1] ~ leaf_re[l])
          break
      if (l > n_leaves)
        next
      known++
      ok = matches(leaf_path[l], n)
      # Thread leaves 0..2 run in the created threads, 3 in the main one.
      if (ok && prog == "threads")
        ok = (sym[1] == "st_thread_leaf_3") == ($1 == $2)
      if (ok) {
        good++
      } else if (shown++ < 5) {
        print label ": unexpected path (pid " $1 " tid " $2 " time " $3 "): " $5
      }
    }
    END {
      if (lines == 0) {
        print label ": FAIL: empty chains file"
        exit 1
      }
      rate = known ? 100 * good / known : 0
      printf "%s: %d chains lines (%d with a chain, %d empty, %d malformed); " \
             "%d known-leaf samples, %d with the expected path (%.2f%%)\n",
             label, lines, unwound, empty, bad_lines, known, good, rate
      if (bad_lines > 0) {
        print label ": FAIL: malformed chains lines"
        exit 1
      }
      if (empty * 100 > lines) {
        print label ": FAIL: more than 1% of the samples have an empty chain"
        exit 1
      }
      if (known < min) {
        printf "%s: FAIL: fewer than %d known-leaf samples\n", label, min
        exit 1
      }
      if (good * 100 < known * 99) {
        print label ": FAIL: less than 99% of known-leaf samples reached the expected path"
        exit 1
      }
    }' "$3"
}

# Awk functions shared by the comparisons with perf below: hex numbers,
# symbol names, and reading perf_script output.  perf_script_line takes
# one line: MMAP2 events go to nmaps/mstart/mend/mpgoff (by pid), samples
# to pchain (user addresses as perf prints them, comma-separated; kernel
# frames left out), psyms (their symbols, normalized, ';'-separated) and
# plast (the last frame's symbol), keyed by "TID TIME"; dup marks keys seen
# twice.  Call perf_script_end after the last line.
ST_AWK_PERF_SCRIPT='
    function hex2num(s,    i, n) {
      s = tolower(s)
      sub(/^0x/, "", s)
      n = 0
      for (i = 1; i <= length(s); i++)
        n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
      return n
    }
    # Exact for integers below 2^53; mawk printf %x stops at 32 bits.
    function num2hex(n,    s, d) {
      if (n == 0)
        return "0"
      s = ""
      while (n > 0) {
        d = n % 16
        s = substr("0123456789abcdef", d + 1, 1) s
        n = (n - d) / 16
      }
      return s
    }
    function norm_sym(s) {
      sub(/@.*/, "", s)
      sub(/^__GI_/, "", s)
      sub(/^__/, "", s)
      return s
    }
    function is_root(s) {
      s = norm_sym(s)
      return s == "_start" || s == "clone3" || s == "clone"
    }
    function time_key(t) {
      sub(/^0+/, "", t)
      return t == "" ? "0" : t
    }
    function perf_script_end() {
      if (cur == "")
        return
      if (cur in pchain)
        dup[cur] = 1
      pchain[cur] = paddr
      psyms[cur] = psym
      plast[cur] = plast_sym
      cur = ""
    }
    function perf_script_line(line,    f, pid, rest, st, len, pg, k, t, ip, name) {
      if (line ~ /PERF_RECORD_MMAP2 /) {
        # "... PERF_RECORD_MMAP2 PID/TID: [0xSTART(0xLEN) @ PGOFF ...": PROT PATH"
        sub(/.*PERF_RECORD_MMAP2 /, "", line)
        pid = line; sub(/\/.*/, "", pid)
        rest = line; sub(/^[^[]*\[/, "", rest)
        st = rest; sub(/\(.*/, "", st)
        len = rest; sub(/^[^(]*\(/, "", len); sub(/\).*/, "", len)
        pg = rest; sub(/^[^@]*@ /, "", pg); sub(/ .*/, "", pg)
        k = ++nmaps[pid]
        mstart[pid, k] = hex2num(st)
        mend[pid, k] = hex2num(st) + hex2num(len)
        mpgoff[pid, k] = hex2num(pg)
        return
      }
      if (line ~ /^ *[0-9]+ +[0-9]+\.[0-9]+: *$/) {
        perf_script_end()
        split(line, f, " ")
        t = f[2]; sub(/:$/, "", t); sub(/\./, "", t)
        cur = f[1] " " time_key(t)
        paddr = ""; psym = ""; plast_sym = ""
        return
      }
      if (cur != "" && line ~ /^[ \t]+[0-9a-f]+ /) {
        split(line, f, " ")
        ip = f[1]
        # Kernel frames are not ours to compare.
        if (length(ip) == 16 && ip ~ /^ffff/)
          return
        name = line; sub(/^[ \t]+[0-9a-f]+ /, "", name)
        paddr = paddr (paddr == "" ? "" : ",") ip
        psym = psym (psym == "" ? "" : ";") norm_sym(name)
        plast_sym = name
        return
      }
      perf_script_end()
    }
    # Moves what perf_script_line collected into the arrays given.
    function perf_script_take(chain, syms, last, dups,    k) {
      perf_script_end()
      for (k in pchain) {
        chain[k] = pchain[k]; syms[k] = psyms[k]; last[k] = plast[k]
        delete pchain[k]; delete psyms[k]; delete plast[k]
      }
      for (k in dup) {
        dups[k] = 1
        delete dup[k]
      }
    }
'

# compare_perf LABEL SCRIPT CHAINS: compare the user part of the chains
# in the --chains file CHAINS with perf'"'"'s own unwinding, SCRIPT being the
# output of perf_script.  Samples are matched by tid and time; only those
# where both have a user chain count (our empty chains are logged, with
# how many of them perf did unwind).  perf prints user addresses as file
# offsets (address - map start + pgoff), so ours are converted with the
# MMAP2 records in SCRIPT.  A perf chain that does not end in a root
# (_start, clone3: perf'"'"'s unwinding stopped early) is logged but left out
# of the denominator.  Requires >= 98% identical by address; the share
# identical by symbol (ignoring symbol versions, leading "__GI_" and "__":
# glibc aliases) is logged.
compare_perf ()
{
  awk -v label="$1" -v min="${ST_MIN_COMPARED:-50}" "$ST_AWK_PERF_SCRIPT"'
    # File offset of absolute address a in process pid, as perf prints it.
    function to_offset(pid, a,    k, x) {
      x = hex2num(a)
      for (k = nmaps[pid]; k >= 1; k--)
        if (x >= mstart[pid, k] && x < mend[pid, k])
          return num2hex(x - mstart[pid, k] + mpgoff[pid, k])
      return num2hex(x)
    }
    # First file: perf script output.
    FNR == NR { perf_script_line($0); next }
    # Second file: our chains, PID TID TIME ADDRS SYMBOLS.
    FNR == 1 { perf_script_end(); FS = "\t"; $0 = $0 }
    {
      ours++
      key = $2 " " time_key($3)
      if ($4 == "") {
        empty++
        if ((key in pchain) && pchain[key] != "")
          empty_perf++
        next
      }
      if (!(key in pchain) || pchain[key] == "") {
        no_perf++
        next
      }
      if (key in dup) {
        ambiguous++
        next
      }
      if (!is_root(plast[key])) {
        perf_truncated++
        next
      }
      compared++
      n = split($4, a, ",")
      mine = ""
      for (i = 1; i <= n; i++)
        mine = mine (i > 1 ? "," : "") to_offset($1, a[i])
      mine_addr = mine
      if (mine == pchain[key]) {
        same_addr++
      } else if (shown++ < 5) {
        print label ": differs at tid " $2 " time " $3 ":"
        print label ":   ours: " mine " " $5
        print label ":   perf: " pchain[key] " " psyms[key]
      }
      n = split($5, names, ";")
      mine = ""
      for (i = 1; i <= n; i++)
        mine = mine (i > 1 ? ";" : "") norm_sym(names[i])
      if (mine == psyms[key]) {
        same_sym++
      } else if (mine_addr == pchain[key] && shown_sym++ < 3) {
        print label ": same addresses, other symbols at tid " $2 " time " $3 ":"
        print label ":   ours: " $5
        print label ":   perf: " psyms[key]
      }
    }
    END {
      printf "%s: %d chains lines; %d empty (%d of them unwound by perf), " \
             "%d with no perf chain, %d ambiguous, %d perf-truncated " \
             "(excluded); %d compared: %d identical by address (%.2f%%), " \
             "%d by symbol (%.2f%%)\n",
             label, ours, empty, empty_perf, no_perf, ambiguous,
             perf_truncated, compared,
             same_addr, compared ? 100 * same_addr / compared : 0,
             same_sym, compared ? 100 * same_sym / compared : 0
      if (compared < min) {
        printf "%s: FAIL: fewer than %d samples compared\n", label, min
        exit 1
      }
      if (same_addr * 100 < compared * 98) {
        print label ": FAIL: less than 98% of the chains identical to perf'"'"'s"
        exit 1
      }
    }' "$2" "$3"
}

# compare_perf_scripts LABEL REF OUT: perf script on a stacktrace output
# (OUT) against perf script on the raw recording (REF, perf'"'"'s own
# unwinding), both from perf_script: of the REF samples with a user chain
# that reaches a root, >= 98% must have the same user addresses in OUT
# (matched by tid and time; missing ones count as different).  REF samples
# without a user chain or cut short by perf are logged, not compared.
compare_perf_scripts ()
{
  awk -v label="$1" -v min="${ST_MIN_COMPARED:-50}" "$ST_AWK_PERF_SCRIPT"'
    FNR == NR { perf_script_line($0); next }
    FNR == 1 { perf_script_take(rchain, rsyms, rlast, rdup) }
    { perf_script_line($0) }
    END {
      perf_script_take(ochain, osyms, olast, odup)
      for (k in rchain) {
        total++
        if (rchain[k] == "") { no_user++; continue }
        if (k in rdup) { ambiguous++; continue }
        if (!is_root(rlast[k])) { perf_truncated++; continue }
        compared++
        if (!(k in ochain)) {
          missing++
        } else if (ochain[k] == rchain[k]) {
          same++
        } else if (shown++ < 5) {
          print label ": differs at tid/time " k ":"
          print label ":   out: " ochain[k] " " osyms[k]
          print label ":   ref: " rchain[k] " " rsyms[k]
        }
      }
      for (k in ochain)
        out_total++
      printf "%s: %d reference samples (%d without a user chain, %d " \
             "ambiguous, %d cut short by perf: not compared), %d in the " \
             "output; %d compared: %d missing, %d with the same user path " \
             "(%.2f%%)\n", label, total, no_user, ambiguous, perf_truncated,
             out_total, compared, missing, same,
             compared ? 100 * same / compared : 0
      if (compared < min) {
        printf "%s: FAIL: fewer than %d samples compared\n", label, min
        exit 1
      }
      if (same * 100 < compared * 98) {
        print label ": FAIL: less than 98% of the samples have perf'"'"'s user path"
        exit 1
      }
    }' "$2" "$3"
}

# perf_report_folded DATA OUT: perf report'"'"'s call paths of DATA (a
# file, or - for standard input), one "COUNT caller;...;callee" line per
# path (folded, root first, without inlined frames).
perf_report_folded ()
{
  perf report -i "$1" --stdio --no-children --no-inline --percent-limit 0 \
    -g folded,0,caller,count >"$2.raw" 2>"$2.err" || return 1
  grep -E '^[0-9]+ ' "$2.raw" >"$2"
}

# compare_perf_reports LABEL REF_FOLDED OUT_FOLDED REF_SCRIPT: the call
# paths perf report shows for a stacktrace output (OUT_FOLDED) against
# those it shows for the raw recording (REF_FOLDED), from
# perf_report_folded.  Only the user part of a path counts (trailing
# kernel frames removed: unresolved addresses, or the kernel symbols of
# REF_SCRIPT, since a converted capture has no kernel map).  Reference
# paths without a user part, or whose user part does not start at a root
# (perf's unwinding stopped early), are logged, not compared, as in
# compare_perf_scripts.  The others must agree for >= 98% of their
# samples (sum over paths of the smaller count).
compare_perf_reports ()
{
  awk -v label="$1" -v min="${ST_MIN_COMPARED:-50}" "$ST_AWK_PERF_SCRIPT"'
    function user_path(p,    n, f, i, out) {
      n = split(p, f, ";")
      while (n > 0 && (f[n] ~ /^0xffff/ || (f[n] in ksym)))
        n--
      out = ""
      for (i = 1; i <= n; i++)
        out = out (i > 1 ? ";" : "") f[i]
      return out
    }
    FILENAME == ARGV[1] {
      # perf script lines "\tffff... SYMBOL": kernel symbol names.
      if ($0 ~ /^[ \t]+ffff[0-9a-f]+ /) {
        name = $0; sub(/^[ \t]+[0-9a-f]+ /, "", name)
        ksym[name] = 1
      }
      next
    }
    {
      count = $1
      path = $0; sub(/^[0-9]+ /, "", path)
      path = user_path(path)
      if (FILENAME == ARGV[2]) {
        ref_total += count
        root = path; sub(/;.*/, "", root)
        if (path == "")
          no_user += count
        else if (!is_root(root))
          cut += count
        else
          ref[path] += count
      } else {
        out[path] += count
        out_total += count
      }
    }
    END {
      for (p in ref) {
        compared += ref[p]
        if (p in out)
          same += ref[p] < out[p] ? ref[p] : out[p]
      }
      printf "%s: perf report: %d reference samples (%d without a user " \
             "path, %d cut short by perf: not compared), %d in the " \
             "output; %d compared, %d on the same user path (%.2f%%)\n",
             label, ref_total, no_user, cut, out_total, compared, same,
             compared ? 100 * same / compared : 0
      if (compared < min) {
        printf "%s: FAIL: fewer than %d samples compared\n", label, min
        exit 1
      }
      if (same * 100 < compared * 98) {
        print label ": FAIL: perf report shows other user paths for more than 2% of the samples"
        for (p in ref)
          if (ref[p] != out[p] && shown++ < 5)
            print label ":   " ref[p] " ref / " out[p] " out: " p
        exit 1
      }
    }' "$4" "$2" "$3"
}

# perf_script DATA OUT: perf's own unwinding of DATA (file or pipe mode),
# with the mmap records compare_perf needs.  --no-inline: no extra
# frames for inlined functions, which we do not report.
perf_script ()
{
  perf script -i "$1" --ns --no-inline --show-mmap-events -F tid,time,ip,sym \
    >"$2" 2>"$2.err"
}

# check_names_path LABEL CHAINS LEAF_RE PATH_RE: of the samples of the
# --chains file CHAINS whose first symbol matches LEAF_RE, >= 99% (and
# >= ST_MIN_LEAF_SAMPLES) must have symbols starting with PATH_RE (awk
# regular expressions).  The patterns go through the environment, not
# -v: awk processes escapes in -v values, and gawk turns '\(' into '('
# (a group) where mawk keeps it.
check_names_path ()
{
  leaf=$3 path=$4 awk -F '\t' -v min="${ST_MIN_LEAF_SAMPLES:-50}" \
    -v label="$1" '
    BEGIN { leaf = ENVIRON["leaf"]; path = ENVIRON["path"] }
    { split ($5, s, ";") }
    s[1] ~ "^(" leaf ")$" {
      n++
      if ($5 ~ "^(" path ")") good++
      else if (bad++ < 3) print label ": unexpected path: " $5
    }
    END {
      printf "%s: %d of %d leaf samples on the known path\n", label, good, n
      exit !(n >= min && good * 100 >= n * 99)
    }' "$2"
}

# check_demangling DIR NAME LEAF_RE PATH_RE RAW_LEAF_RE RAW_PATH_RE
#   SUMMARY_NAME: unwinds DIR/NAME.data (the program DIR/NAME found
# through --symfs DIR); the known path must be named demangled in
# --chains and SUMMARY_NAME appear in --summary, and with --no-demangle
# the path be named raw and SUMMARY_NAME appear nowhere.
check_demangling ()
{
  fx=$1
  shift
  name=$1
  echo "== $name"
  if run_st "$name" -i "$fx/$name.data" --symfs "$fx" -o /dev/null \
       --chains "$tmp/$name.chains" --summary; then
    check_names_path "$name" "$tmp/$name.chains" "$2" "$3" \
      || fail "$name: demangled path"
    grep -F -q "$6" "$tmp/$name.err" \
      || fail "$name: --summary does not name $6"
  else
    fail "$name: stacktrace failed"
  fi
  if run_st "$name-raw" -i "$fx/$name.data" --symfs "$fx" -o /dev/null \
       --chains "$tmp/$name-raw.chains" --summary --no-demangle; then
    check_names_path "$name-raw" "$tmp/$name-raw.chains" "$4" "$5" \
      || fail "$name: raw path with --no-demangle"
    if grep -F -q "$6" "$tmp/$name-raw.err"; then
      fail "$name: --no-demangle still demangles"
    fi
  else
    fail "$name: stacktrace --no-demangle failed"
  fi
}

# check_cxx_names DIR NAME: check_demangling of tests/progs/cxx-names.cc
# built as DIR/NAME.  (awk regular expressions: brackets, parentheses,
# '*' and '&' escaped.)
check_cxx_names ()
{
  check_demangling "$1" "$2" 'work\(int\)' \
    'work\(int\);st_cxx::level2\(std::vector<int, std::allocator<int> > const&\);st_cxx::Runner::run\(\);main;' \
    '_Z4worki' \
    '_Z4worki;_ZN6st_cxx6level2ERKSt6vectorIiSaIiEE;_ZN6st_cxx6Runner3runEv;main;' \
    'work(int)'
}

# check_rust_names DIR NAME MANGLING: check_demangling of
# tests/progs/rust-names.rs built as the crate bench, DIR/NAME, with
# MANGLING legacy or v0.
check_rust_names ()
{
  if [ "$3" = v0 ]; then
    crn_pre='_RNvCs[0-9A-Za-z_]+_5bench'
    crn_post=''
  else
    crn_pre='_ZN5bench'
    crn_post='17h[0-9a-f]+E'
  fi
  check_demangling "$1" "$2" 'bench::level3' \
    'bench::level3;bench::level2;bench::level1;bench::main;' \
    "${crn_pre}6level3$crn_post" \
    "${crn_pre}6level3$crn_post;${crn_pre}6level2$crn_post;${crn_pre}6level1$crn_post;${crn_pre}4main$crn_post;" \
    'bench::level1'
}
