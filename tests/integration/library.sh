#!/bin/sh
# The public library as a user sees it, from the build tree: the shared
# object exports only versioned st_* symbols; every public header
# compiles alone as C11 and C++17 with -Wall -Wextra -Werror -pedantic
# (the sub-headers refuse to be included directly); the examples
# (examples/), built on the public header alone, give the chains and
# the output of the command on the fixture, capture and perf.data, and
# the chains of a fresh recording whose CPUs were written out of time
# order (when perf can record).
# (make installcheck does the same against the installed .pc.)
. "$TESTS_SRCDIR/lib/test-lib.sh"

top_src=$TESTS_SRCDIR/..
so=$TESTS_BUILDDIR/../lib/.libs/libstacktrace-1.so
inc=$top_src/include
fx=$TESTS_DATA/fixture
[ -f "$so" ] || die "no $so"
command -v nm >/dev/null 2>&1 || skip "no nm"

echo "== exported symbols"
nm -D --defined-only "$so" > "$tmp/syms" || die "nm failed"
[ -s "$tmp/syms" ] || fail "no symbol exported"
# Each line: ADDRESS TYPE NAME@@NODE; the nodes' own absolute symbols.
# Nodes STACKTRACE_1.0, 1.1, ... (a symbol added later gets a new one:
# lib/libstacktrace-1.map).
awk 'function is_node (v) { return v ~ /^STACKTRACE_1[.][0-9][0-9]*$/ }
     is_node($3) { next }
     { n = $3; i = index (n, "@@"); node = i ? substr (n, i + 2) : "";
       base = i ? substr (n, 1, i - 1) : n;
       if (substr (base, 1, 3) != "st_" || !is_node(node))
         print "unexpected export: " n }' "$tmp/syms" > "$tmp/bad"
[ -s "$tmp/bad" ] && fail "$(cat "$tmp/bad")"
grep -F ' st_stream_run@@STACKTRACE_1.0' "$tmp/syms" >/dev/null \
  || fail "st_stream_run not exported"

echo "== headers alone, C11 and C++17"
cc=${CC:-cc}
cxx=${CXX:-c++}
for h in "$inc"/stacktrace-1/*.h; do
  name=stacktrace-1/$(basename "$h")
  printf '#include <%s>\n' "$name" > "$tmp/one.c"
  if [ "$name" = stacktrace-1/stacktrace.h ]; then
    $cc -std=c11 -Wall -Wextra -Werror -pedantic -I"$inc" -c "$tmp/one.c" \
      -o "$tmp/one.o" 2> "$tmp/cc.err" || fail "$name as C11: $(cat "$tmp/cc.err")"
    if command -v "$cxx" >/dev/null 2>&1; then
      cp "$tmp/one.c" "$tmp/one.cc"
      $cxx -std=c++17 -Wall -Wextra -Werror -pedantic -I"$inc" \
        -c "$tmp/one.cc" -o "$tmp/one.o" 2> "$tmp/cc.err" \
        || fail "$name as C++17: $(cat "$tmp/cc.err")"
    fi
  else
    # Directly: refused.  Inside the library's build: whole by itself.
    $cc -std=c11 -I"$inc" -c "$tmp/one.c" -o "$tmp/one.o" 2>/dev/null \
      && fail "$name can be included directly"
    $cc -std=c11 -Wall -Wextra -Werror -pedantic -I"$inc" \
      -DSTACKTRACE_1_COMPILATION -c "$tmp/one.c" -o "$tmp/one.o" \
      2> "$tmp/cc.err" || fail "$name alone: $(cat "$tmp/cc.err")"
  fi
done

echo "== examples"
# A sanitized library needs sanitized programs.
flags="-std=c11 -Wall -Wextra -Werror -pedantic ${ST_SANITIZER_CFLAGS:-}"
for p in unwind-chains convert; do
  # shellcheck disable=SC2086
  $cc $flags -I"$inc" "$top_src/examples/$p.c" \
    -L"$(dirname "$so")" -lstacktrace-1 -o "$tmp/$p" 2> "$tmp/cc.err" \
    || fail "example $p does not build: $(cat "$tmp/cc.err")"
done
LD_LIBRARY_PATH=$(dirname "$so")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
for input in fixture.syscap fixture.data; do
  "$STACKTRACE" -q -i "$fx/$input" --symfs "$fx" -o "$tmp/cmd.out" \
    --output-format sysprof \
    --chains "$tmp/cmd.chains" || fail "$input: stacktrace failed"
  [ -s "$tmp/cmd.chains" ] || fail "$input: the command gave no chains"
  "$tmp/unwind-chains" --symfs "$fx" "$fx/$input" > "$tmp/ex.chains" \
    2> "$tmp/ex.err" || fail "$input: unwind-chains failed: $(cat "$tmp/ex.err")"
  cmp -s "$tmp/cmd.chains" "$tmp/ex.chains" \
    || fail "$input: unwind-chains differs from stacktrace --chains"
  "$tmp/convert" --symfs "$fx" --chains "$tmp/conv.chains" "$fx/$input" \
    "$tmp/conv.out" capture 2> "$tmp/conv.err" \
    || fail "$input: convert failed: $(cat "$tmp/conv.err")"
  cmp -s "$tmp/cmd.chains" "$tmp/conv.chains" \
    || fail "$input: convert's chains differ from stacktrace --chains"
  cmp -s "$tmp/cmd.out" "$tmp/conv.out" \
    || fail "$input: convert's output differs from the command's"
done

echo "== a fresh recording"
# perf writes its per-CPU buffers one after the other: the records level
# must hand samples out in time order, as the command processes them.
if command -v perf >/dev/null 2>&1 \
   && perf record -q -N -e cpu-clock --call-graph=dwarf -o "$tmp/probe.data" \
        -- true >/dev/null 2>&1; then
  need_progs
  p=$(echo $ST_PROGS | awk '{ print $1 }')
  record_migrated "$p" "$tmp/fresh.data"
  rc=$?
  [ $rc -eq 77 ] && { record_file "$p" "$tmp/fresh.data"; rc=$?; }
  if [ $rc -ne 0 ]; then
    cat "$tmp/fresh.data.record.log"
    fail "perf record failed"
  else
    "$STACKTRACE" -q -i "$tmp/fresh.data" -o /dev/null \
      --chains "$tmp/fresh-cmd.chains" || fail "fresh: stacktrace failed"
    "$tmp/unwind-chains" "$tmp/fresh.data" > "$tmp/fresh-ex.chains" \
      2> "$tmp/fresh-ex.err" || fail "fresh: unwind-chains failed"
    [ -s "$tmp/fresh-cmd.chains" ] || fail "fresh: no chains"
    # The same chains for the same samples, compared as sets: where the
    # per-CPU buffers of a recording overlap across perf's rounds, the
    # command's reorder window can write a few samples before earlier
    # ones (seen: 6 of 2,001), which the records level hands out in
    # time order.  The order alone is checked on the fixtures above.
    sort "$tmp/fresh-cmd.chains" > "$tmp/fresh-cmd.sorted"
    sort "$tmp/fresh-ex.chains" > "$tmp/fresh-ex.sorted"
    cmp -s "$tmp/fresh-cmd.sorted" "$tmp/fresh-ex.sorted" \
      || fail "fresh: unwind-chains differs from stacktrace --chains"
    echo "fresh recording of $p: $(wc -l < "$tmp/fresh-ex.chains") chains compared"
  fi
else
  echo "perf record does not work here: no fresh recording"
fi

finish
