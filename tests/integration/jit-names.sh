#!/bin/sh
# Names of JIT code from a real JIT: node records a JS workload under
# perf, once with --perf-basic-prof (V8 writes /tmp/perf-PID.map) and
# once with --perf-prof (V8 writes and maps a jitdump file, jit-PID.dump,
# in its working directory).  --summary must name the hot JS function
# (JS:*work ... bench.js) in both; no message may call JIT code a
# missing file, and -v must list no anonymous mapping ([stack], //anon)
# as a file.  The perf map moved under a --symfs directory's tmp/ is
# still found there; without it, the JIT code is "[JIT]".  Skips
# without perf or node.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
need_perf
node=$(command -v node || command -v nodejs) || skip "no node"

# A fixed amount of work, so the run takes the same number of samples
# on a loaded machine: sort arrays through a comparison function.
cat >"$tmp/bench.js" <<'JS'
function sorter(a) { return a.slice().sort((x, y) => x - y); }
function work() {
  let s = 0;
  for (let i = 0; i < 300; i++) {
    const a = [];
    for (let j = 0; j < 2000; j++) a.push((j * 7919) % 1009);
    s += sorter(a)[5];
  }
  return s;
}
let t = 0;
for (let k = 0; k < 6; k++) t += work();
if (t < 0) console.log(t);
JS

# check_js LABEL: the JS names in $tmp/LABEL.err (the --summary), no
# missing-file message, no anonymous mapping listed as a file.
check_js ()
{
  grep -E -q '^ .*%  +JS:\*work .*bench\.js' "$tmp/$1.err" \
    || fail "$1: --summary does not name JS:*work (bench.js)"
  if grep -E 'missing|//anon|\[stack\]|\[heap\]|jit-[0-9]+\.dump' \
       "$tmp/$1.err"; then
    fail "$1: JIT code or anonymous memory reported as a file"
  fi
  if grep 'runs a JVM' "$tmp/$1.err"; then
    fail "$1: node taken for a JVM"
  fi
}

echo "== perf map (--perf-basic-prof)"
# (In $tmp: node writes an isolate log in its working directory.)
# shellcheck disable=SC2086
(cd "$tmp" && $ST_PERF_RECORD -o "$tmp/map.data" -- "$node" \
   --perf-basic-prof "$tmp/bench.js" >"$tmp/map.record.log" 2>&1) \
  || die "perf record failed"
pid=$(perf script -i "$tmp/map.data" -F pid 2>/dev/null | head -n 1 \
      | tr -d ' ')
map=/tmp/perf-$pid.map
[ -n "$pid" ] && [ -f "$map" ] || die "node wrote no $map"
mkdir -p "$tmp/symfs/tmp"
mv "$map" "$tmp/symfs/tmp/" || die "cannot move $map"
if run_st map -i "$tmp/map.data" -o /dev/null --summary -v \
     --symfs "$tmp/symfs"; then
  check_js map
  grep -c 'JS:' "$tmp/map.err" | sed 's/^/map: summary lines naming JS code: /'
else
  fail "map: stacktrace failed"
fi
# Without the map: the JIT code is anonymous, still no missing file.
if run_st nomap -i "$tmp/map.data" -o /dev/null --summary -v; then
  grep -q '  \[JIT\]$' "$tmp/nomap.err" \
    || fail "nomap: JIT code not named [JIT] without its perf map"
  if grep -q 'JS:' "$tmp/nomap.err"; then
    fail "nomap: JS names without a perf map"
  fi
  if grep -E 'missing|//anon|\[stack\]' "$tmp/nomap.err"; then
    fail "nomap: JIT code or anonymous memory reported as a file"
  fi
else
  fail "nomap: stacktrace failed"
fi

echo "== jitdump (--perf-prof)"
mkdir "$tmp/run"
# shellcheck disable=SC2086
(cd "$tmp/run" && $ST_PERF_RECORD -o "$tmp/dump.data" -- "$node" \
   --perf-prof --interpreted-frames-native-stack "$tmp/bench.js" \
   >"$tmp/dump.record.log" 2>&1) || die "perf record failed"
ls "$tmp/run"/jit-*.dump >/dev/null 2>&1 || skip "this node wrote no jitdump"
pid=$(perf script -i "$tmp/dump.data" -F pid 2>/dev/null | head -n 1 \
      | tr -d ' ')
rm -f "/tmp/perf-$pid.map"
if run_st dump -i "$tmp/dump.data" -o /dev/null --summary -v; then
  check_js dump
else
  fail "dump: stacktrace failed"
fi
finish
