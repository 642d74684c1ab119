#!/bin/sh
# A JVM's JIT frames are unwound by frame pointer, which its compiled
# code keeps only with -XX:+PreserveFramePointer: a recording of java
# must give exactly one warning that says so for the java process, and
# no message may call its JIT code (anonymous memory) a file; --debug
# names the code where a walk found no module as JIT code.  Skips
# without perf, java or javac.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
need_perf
command -v java >/dev/null 2>&1 || skip "no java"
command -v javac >/dev/null 2>&1 || skip "no javac"

# Compiled (C1) code from the first rounds on: JIT frames in the chains.
cat >"$tmp/Bench.java" <<'JAVA'
public class Bench {
  static long leaf(long n) {
    long x = 0;
    for (long i = 0; i < n; i++) x += i * 2654435761L;
    return x;
  }
  static long mid(long n) { return leaf(n) ^ 1; }
  public static void main(String[] args) {
    long s = 0;
    for (int k = 0; k < 600; k++) s += mid(200000 + k);
    if (s == 42) System.out.println(s);
  }
}
JAVA
(cd "$tmp" && javac Bench.java) || die "javac failed"
# shellcheck disable=SC2086
(cd "$tmp" && perf record -q -N -e cpu-clock -c 500000 \
   --call-graph=dwarf,4096 -o "$tmp/java.data" -- java -XX:+UseSerialGC \
   -XX:TieredStopAtLevel=1 Bench >"$tmp/record.log" 2>&1) \
  || die "perf record of java failed"

if run_st java -i "$tmp/java.data" -o /dev/null -v --summary; then
  n=$(grep -c 'runs a JVM: .*-XX:+PreserveFramePointer' "$tmp/java.err")
  echo "java: $n warning(s) about -XX:+PreserveFramePointer"
  [ "$n" -eq 1 ] || fail "java: $n warnings about frame pointers, not 1"
  if grep -E 'missing|//anon|\[stack\]|\[heap\]' "$tmp/java.err"; then
    fail "java: JIT code or anonymous memory reported as a file"
  fi
  grep -q '  \[JIT\]$' "$tmp/java.err" \
    || fail "java: no JIT frame named [JIT] in --summary"
else
  fail "java: stacktrace failed"
fi
# --debug: a walk that stopped in JIT code says so.
"$STACKTRACE" -i "$tmp/java.data" -o /dev/null --debug 2>"$tmp/debug.err" \
  || fail "java --debug: stacktrace failed"
n=$(grep -c '(no-module)' "$tmp/debug.err")
jit=$(grep -c '(no-module): 0x[0-9a-f]* is JIT or other anonymous code' \
        "$tmp/debug.err")
echo "java --debug: $n no-module walk(s), $jit of them in JIT code"
[ "$jit" -gt 0 ] || [ "$n" -eq 0 ] \
  || fail "java --debug: no no-module walk named JIT code"
finish
