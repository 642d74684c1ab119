#!/bin/sh
# Go's stack roots (issue 23): a Go program (tests/progs/go-roots.go,
# built here with go; skipped without it) starting goroutines all the
# time and growing their stacks, recorded with perf --call-graph=dwarf.
# Go's own traceback stops at runtime.goexit (where every goroutine
# "returns" to, past a NOP: no call before it), runtime.mstart,
# runtime.rt0_go, runtime.sigtramp, and the switches to the thread's g0 stack
# (runtime.systemstack, morestack, mcall; nanotime1, walltime, time.now
# for the vDSO; asmcgocall), above which the g0 stack holds stale
# frames and data.  Checked, by the names Go's symbol table
# gives our frames: no chain goes on past one of them; >= 95% of the
# samples end in one and are counted unwound to the root; none stops
# on a return address that follows no call.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
command -v go >/dev/null 2>&1 || skip "go not installed"
need_perf

# The build must not depend on HOME (its module and build caches).
GOCACHE=$tmp/go-cache GOPATH=$tmp/go-path GOFLAGS= GO111MODULE=off \
  go build -o "$tmp/go-roots" "$TESTS_SRCDIR/progs/go-roots.go" \
  >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; die "go build failed"; }

# shellcheck disable=SC2086
$ST_PERF_RECORD -o "$tmp/go.data" -- "$tmp/go-roots" "${ST_PROG_MS:-1500}" \
  >"$tmp/record.log" 2>&1 || { cat "$tmp/record.log"; fail "perf record failed"; }
run_st go -i "$tmp/go.data" -o "$tmp/go.syscap" --chains "$tmp/go.chains" \
  || fail "stacktrace failed"
grep -E '^stacktrace: (total|not unwound)' "$tmp/go.err"

awk -F '\t' -v min="${ST_MIN_COMPARED:-50}" '
  function root(s) {
    sub(/\.abi0$/, "", s)
    return s == "runtime.goexit" || s == "runtime.mstart" \
      || s == "runtime.rt0_go" || s == "runtime.systemstack" \
      || s == "runtime.morestack" || s == "runtime.mcall" \
      || s == "runtime.nanotime1" || s == "runtime.walltime" \
      || s == "time.now" || s == "runtime.asmcgocall" \
      || s == "runtime.sigtramp"
  }
  { n++
    k = split($5, a, ";")
    for (i = 1; i < k; i++)
      if (root(a[i])) { past++; if (past <= 3) print "past a root: " $5; break }
    if (root(a[k])) ends++
  }
  END {
    printf "%d samples, %d end in a Go stack root (%.1f%%), %d go on past one\n",
           n, ends, n ? 100 * ends / n : 0, past
    if (n < min) { print "FAIL: fewer than " min " samples"; exit 1 }
    if (past > 0) { print "FAIL: frames past a stack root"; exit 1 }
    if (ends < 0.95 * n) { print "FAIL: < 95% end in a stack root"; exit 1 }
  }' "$tmp/go.chains" || fail "chains"
total=$(sed -n 's/^stacktrace: total: [0-9]* samples, \([0-9]*\) unwound to the root.*/\1/p' "$tmp/go.err")
ends=$(awk -F '\t' '{ k = split($5, a, ";"); s = a[k]; sub(/\.abi0$/, "", s)
         if (s ~ /^runtime\.(goexit|mstart|rt0_go|systemstack|morestack|mcall|nanotime1|walltime|asmcgocall|sigtramp)$/ || s == "time.now") e++ }
       END { print e + 0 }' "$tmp/go.chains")
[ "${total:-0}" -ge "$ends" ] || fail "$ends chains end in a root, only $total counted unwound to the root"
# Every caller frame in the program's code returns to just after a call
# (objdump's disassembly says where calls end), or into runtime.goexit.
command -v objdump >/dev/null 2>&1 || skip "objdump not installed"
objdump -d --no-show-raw-insn "$tmp/go-roots" >"$tmp/go.dis" 2>/dev/null \
  || die "objdump failed"
awk -F '\t' '
  function hex(s,  i, v) {
    s = tolower(s); sub(/^0x/, "", s); v = 0
    for (i = 1; i <= length(s); i++)
      v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
    return v
  }
  FNR == NR {
    # "  463a86:\tcall   463a60 <main.work>": the next address ends it.
    if (match($1, /^ *[0-9a-f]+:$/)) {
      a = $1; sub(/^ */, "", a); sub(/:$/, "", a)
      if (after_call) ends[hex(a)] = 1
      after_call = ($2 ~ /^call/)
    } else if ($0 ~ /<runtime\.goexit(\.abi0)?>:$/) goexit = 1
    else if (goexit && $0 ~ /^$/) goexit = 0
    if (goexit && match($1, /^ *[0-9a-f]+:$/)) {
      a = $1; sub(/^ */, "", a); sub(/:$/, "", a); ends[hex(a)] = 1
    }
    next
  }
  { k = split($4, ip, ",")
    for (i = 2; i <= k; i++) {
      ra = hex(ip[i]) + 1
      if (ra >= 4194304 && ra < 16777216) { frames++; if (!(ra in ends)) bad++ }
    }
  }
  END {
    printf "%d caller frames in the program, %d not after a call\n", frames, bad
    if (frames == 0 || bad > 0) exit 1
  }' "$tmp/go.dis" "$tmp/go.chains" || fail "caller frames not after a call"
# Where our check stopped a walk: a return address Go made without a
# call (runtime.asyncPreempt's, injected by a signal); rare.
stops=$(sed -n 's/.*not-after-call=\([0-9]*\).*/\1/p' "$tmp/go.err")
echo "walks stopped on a return address after no call: ${stops:-0}"
n=$(wc -l <"$tmp/go.chains")
[ "${stops:-0}" -le $((n / 100)) ] || fail "more than 1% of the walks stopped on a return address after no call"
finish
