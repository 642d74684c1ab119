#!/bin/sh
# debuginfod fallback, against Debian's debuginfod server on 127.0.0.1
# (its own database in the scratch directory, -F scanning a directory of
# copies of the test binaries), with DEBUGINFOD_URLS naming only it and a
# fresh client cache per case:
#  - the committed fixture, whose recorded path does not exist: found by
#    build-id when the file is missing, when --symfs holds another build
#    under its name, and when a FIFO stands there; not found with
#    --no-debuginfod or without DEBUGINFOD_URLS; found again from the
#    client's cache once the server is stopped;
#  - with perf: uses-lib recorded from a scratch copy, then the program
#    deleted and its library replaced by another build;
#  - with perf: dbgframe-prog (its CFI in .debug_frame only) stripped, the
#    debug file only on the server: unwound through the fetched
#    .debug_frame, and not without debuginfod.
# Skips (77) without the debuginfod server; the perf cases are left out
# (and logged) without a working perf.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
command -v debuginfod >/dev/null 2>&1 \
  || skip "the debuginfod server is not installed (Debian package debuginfod)"
command -v debuginfod-find >/dev/null 2>&1 || skip "debuginfod-find not installed"
command -v eu-readelf >/dev/null 2>&1 || skip "eu-readelf not installed"
fx=$TESTS_DATA/fixture
[ -f "$fx/fixture.syscap" ] || skip "fixture not generated yet"
# The fixture has ~296 known-leaf samples; the perf runs are timed by the
# wall clock, so a busy machine gives them fewer.
fixture_min=${ST_MIN_LEAF_SAMPLES:-250}
perf_min=${ST_MIN_LEAF_SAMPLES:-50}
ST_MIN_LEAF_SAMPLES=$fixture_min

server_pid=
stop_server ()
{
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null
    server_pid=
  fi
}
trap 'stop_server; st_cleanup' EXIT

build_id ()
{
  eu-readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'
}

srv=$tmp/served
bin=$tmp/bin
mkdir -p "$srv" "$bin" || die "mkdir failed"
cp "$fx/st-fixture" "$srv/" || die "cannot copy the fixture binary"
# What the server must have indexed before the cases run: TYPE BUILD-ID.
wanted="executable $(build_id "$fx/st-fixture")"

have_perf=no
if ( need_perf ) >"$tmp/need-perf.out" 2>&1; then
  have_perf=yes
else
  echo "perf cases left out: $(tail -n 1 "$tmp/need-perf.out")"
fi

if [ $have_perf = yes ]; then
  need_progs
  [ -x progs/dbgframe-prog ] || die "progs/dbgframe-prog not built"
  # Recorded from scratch copies, which the cases then delete or replace.
  cp progs/uses-lib progs/libstcallee.so "$bin/" || die "cp failed"
  cp progs/uses-lib progs/libstcallee.so "$srv/" || die "cp failed"
  # Stripped: the debug sections (.debug_frame with them) go to a file
  # that only the server has; the program keeps a .gnu_debuglink to it.
  eu-strip -g -f "$srv/dbgframe-prog.debug" -o "$bin/dbgframe-prog" \
    progs/dbgframe-prog || die "eu-strip failed"
  wanted="$wanted
executable $(build_id "$bin/uses-lib")
executable $(build_id "$bin/libstcallee.so")
debuginfo $(build_id "$bin/dbgframe-prog")"
  # --buildid-all: perf's build-ID table lists only files hit by a
  # sampled IP otherwise, and uses-lib's samples are all in its library.
  for p in uses-lib dbgframe-prog; do
    # shellcheck disable=SC2086
    $ST_PERF_RECORD --buildid-all -o "$tmp/$p.data" -- "$bin/$p" 300 \
      >"$tmp/$p.record.log" 2>&1 || die "perf record $p failed"
  done
fi

# Start the server on a free port (a taken one makes it exit at once) and
# wait until it serves every wanted file: its scan runs in the
# background.  Each try uses its own client cache, as the client caches
# misses too.
export DEBUGINFOD_TIMEOUT=10
start_server ()
{
  try=0
  while [ $try -lt 8 ]; do
    try=$((try + 1))
    port=$((20000 + ($$ * 7 + try * 3331) % 40000))
    rm -f "$tmp"/debuginfod.sqlite*
    debuginfod -p "$port" -d "$tmp/debuginfod.sqlite" -F -t 0 -g 0 -c 1 \
      --disable-source-scan "$srv" >"$tmp/debuginfod.log" 2>&1 &
    server_pid=$!
    polls=0
    while [ $polls -lt 150 ]; do
      polls=$((polls + 1))
      if ! kill -0 "$server_pid" 2>/dev/null; then
        wait "$server_pid" 2>/dev/null
        server_pid=
        break
      fi
      missing=$(echo "$wanted" | while read -r type id; do
          DEBUGINFOD_URLS=http://127.0.0.1:$port \
          DEBUGINFOD_CACHE_PATH=$tmp/poll-cache.$try.$polls \
            debuginfod-find "$type" "$id" >/dev/null 2>&1 || echo "$type $id"
        done)
      if [ -z "$missing" ]; then
        echo "debuginfod serving on 127.0.0.1:$port after $polls poll(s)"
        return 0
      fi
      sleep 0.2
    done
    [ -n "$server_pid" ] && die "debuginfod did not index $missing in 30 s"
  done
  tail -n 5 "$tmp/debuginfod.log"
  die "cannot start debuginfod on a free port"
}
start_server
urls=http://127.0.0.1:$port

# st_case LABEL CACHE ARGS...: stacktrace with our server and the client
# cache $tmp/cache.CACHE, chains in $tmp/LABEL.chains, statistics in
# $tmp/LABEL.stats.
st_case ()
{
  sc_label=$1
  sc_cache=$2
  shift 2
  DEBUGINFOD_URLS=$urls DEBUGINFOD_CACHE_PATH=$tmp/cache.$sc_cache \
    run_st "$sc_label" "$@" -o "$tmp/$sc_label.syscap" \
      --chains "$tmp/$sc_label.chains" --stats-file "$tmp/$sc_label.stats"
}

# stat_of LABEL KEY: a value from the stats file of case LABEL.
stat_of ()
{
  sed -n "s/^$2=//p" "$tmp/$1.stats"
}

# same_at_jobs LABEL ARGS...: case LABEL (run at --jobs 1 before) again
# at --jobs 2 and 8, each with a client cache of its own (so that the
# workers fetch), and at --jobs 8 with a copy of the --jobs 1 run's
# cache (every answer at once: the replicas fetch side by side, and a
# walk that met a module not yet fetched must still fetch it): the
# capture, the --chains file, the statistics (but for their clock
# lines) and the messages the same byte for byte; and so with --priming
# defer at --jobs 1, 2 and 8.
same_at_jobs ()
{
  sj_label=$1
  shift
  rm -rf "$tmp/cache.$sj_label-j8warm"
  cp -R "$tmp/cache.$sj_label" "$tmp/cache.$sj_label-j8warm" \
    || die "cannot copy the client cache of $sj_label"
  for sj_jobs in 2 8 8warm; do
    st_case "$sj_label-j$sj_jobs" "$sj_label-j$sj_jobs" "$@" \
      --jobs "${sj_jobs%warm}" \
      || { fail "$sj_label: --jobs $sj_jobs failed"; continue; }
    if grep -F -q "workers are not used" "$tmp/$sj_label-j$sj_jobs.err"; then
      fail "$sj_label: --jobs $sj_jobs went on one thread"
    fi
    for sj_l in "$sj_label" "$sj_label-j$sj_jobs"; do
      stats_unclocked "$tmp/$sj_l.stats" >"$tmp/$sj_l.stats-noclock"
      grep -v -F -e "--jobs" "$tmp/$sj_l.err" >"$tmp/$sj_l.err-nojobs"
    done
    for sj_what in syscap chains stats-noclock err-nojobs; do
      cmp "$tmp/$sj_label.$sj_what" "$tmp/$sj_label-j$sj_jobs.$sj_what" \
        >/dev/null \
        || fail "$sj_label: --jobs $sj_jobs differs from --jobs 1 ($sj_what)"
    done
  done
  echo "$sj_label: the same at --jobs 1, 2 and 8"
  # With --priming defer (a pipe's default): modules prepared and files
  # fetched on priming's threads, a sample walked on a worker once they
  # are ready, a file the walk wants fetched by the worker and waited
  # for by the main thread.  Compared with defer at --jobs 1, but for
  # how long samples waited (which varies at --jobs 1 too).
  for sj_jobs in 1 2 8; do
    sj_l=$sj_label-defer-j$sj_jobs
    st_case "$sj_l" "$sj_l" "$@" --priming defer --jobs $sj_jobs \
      || { fail "$sj_label: --priming defer --jobs $sj_jobs failed"; continue; }
    if grep -F -q "workers are not used" "$tmp/$sj_l.err"; then
      fail "$sj_label: --priming defer --jobs $sj_jobs went on one thread"
    fi
    stats_untimed "$tmp/$sj_l.stats" >"$tmp/$sj_l.stats-noclock"
    grep -v -F -e "--jobs" -e "priming" "$tmp/$sj_l.err" >"$tmp/$sj_l.err-nojobs"
    [ $sj_jobs = 1 ] && continue
    for sj_what in syscap chains stats-noclock err-nojobs; do
      cmp "$tmp/$sj_label-defer-j1.$sj_what" "$tmp/$sj_l.$sj_what" >/dev/null \
        || fail "$sj_label: --priming defer --jobs $sj_jobs differs from --jobs 1 ($sj_what)"
    done
  done
  # Defer waits for what sync fetches inline: the same chains.
  cmp "$tmp/$sj_label.chains" "$tmp/$sj_label-defer-j1.chains" >/dev/null \
    || fail "$sj_label: --priming defer's chains differ from sync's"
  echo "$sj_label: the same with --priming defer at --jobs 1, 2 and 8"
}

# expect_fetched LABEL N: N files asked for and found, no more: code
# with unwind tables (libc, ld.so, the fixture) must not make stacktrace
# ask for debuginfo.
expect_fetched ()
{
  found=$(stat_of "$1" debuginfod.found)
  queries=$(stat_of "$1" debuginfod.queries)
  [ "${found:-0}" = "$2" ] && [ "${queries:-0}" = "$2" ] \
    || fail "$1: $2 file(s) should have been asked of debuginfod and found, got ${queries:-none} asked, ${found:-none} found"
}

echo "== fixture: the recorded file is missing"
if st_case missing missing -i "$fx/fixture.syscap"; then
  check_chains missing fixture "$tmp/missing.chains" || fail missing
  expect_fetched missing 1
  same_at_jobs missing -i "$fx/fixture.syscap"
else
  fail "missing: stacktrace failed"
fi

echo "== fixture: another build under the name (--symfs)"
mkdir -p "$tmp/other-build"
cp "$TESTS_BUILDDIR/progs/deep-recursion" "$tmp/other-build/st-fixture" 2>/dev/null \
  || cp /bin/true "$tmp/other-build/st-fixture"
if st_case other-build other-build -i "$fx/fixture.syscap" \
     --symfs "$tmp/other-build"; then
  check_chains other-build fixture "$tmp/other-build.chains" || fail other-build
  expect_fetched other-build 1
else
  fail "other-build: stacktrace failed"
fi

echo "== fixture: a FIFO in its place (--symfs)"
mkdir -p "$tmp/fifo"
if mkfifo "$tmp/fifo/st-fixture"; then
  if st_case fifo fifo -i "$fx/fixture.syscap" --symfs "$tmp/fifo"; then
    check_chains fifo fixture "$tmp/fifo.chains" || fail fifo
    expect_fetched fifo 1
  else
    fail "fifo: stacktrace failed"
  fi
fi

echo "== fixture: --no-debuginfod, and no DEBUGINFOD_URLS"
if st_case off off -i "$fx/fixture.syscap" --no-debuginfod; then
  [ "$(stat_of off unwound_to_root)" = 0 ] \
    || fail "off: samples unwound although the binary is nowhere local"
  [ "$(stat_of off debuginfod.queries)" = 0 ] \
    || fail "off: debuginfod was asked despite --no-debuginfod"
else
  fail "off: stacktrace failed"
fi
if env -u DEBUGINFOD_URLS "$STACKTRACE" -i "$fx/fixture.syscap" \
     -o "$tmp/unset.syscap" --stats-file "$tmp/unset.stats" 2>"$tmp/unset.err"; then
  [ "$(stat_of unset unwound_to_root)" = 0 ] \
    || fail "unset: samples unwound without DEBUGINFOD_URLS"
else
  fail "unset: stacktrace failed"
fi

if [ $have_perf = yes ]; then
  ST_MIN_LEAF_SAMPLES=$perf_min
  echo "== uses-lib: program deleted, library replaced by another build"
  rm -f "$bin/uses-lib"
  cp "$TESTS_BUILDDIR/progs/deep-recursion" "$bin/libstcallee.so"
  if st_case uses-lib uses-lib -i "$tmp/uses-lib.data"; then
    check_chains uses-lib uses-lib "$tmp/uses-lib.chains" || fail uses-lib
    expect_fetched uses-lib 2
    same_at_jobs uses-lib -i "$tmp/uses-lib.data"
  else
    fail "uses-lib: stacktrace failed"
  fi

  echo "== dbgframe-prog: stripped, .debug_frame only in the served debug file"
  if st_case dbgframe dbgframe -i "$tmp/dbgframe-prog.data"; then
    check_chains dbgframe nopie-prog "$tmp/dbgframe.chains" || fail dbgframe
    expect_fetched dbgframe 1
    same_at_jobs dbgframe -i "$tmp/dbgframe-prog.data"
  else
    fail "dbgframe: stacktrace failed"
  fi
  if st_case dbgframe-off dbgframe-off -i "$tmp/dbgframe-prog.data" \
       --no-debuginfod; then
    samples=$(stat_of dbgframe-off samples)
    unwound=$(stat_of dbgframe-off unwound_to_root)
    echo "dbgframe-off: $unwound of $samples samples unwound to the root"
    [ $((unwound * 2)) -lt "$samples" ] \
      || fail "dbgframe-off: the stripped program unwound without its .debug_frame"
  else
    fail "dbgframe-off: stacktrace failed"
  fi
fi

echo "== the client's cache, with the server stopped"
ST_MIN_LEAF_SAMPLES=$fixture_min
stop_server
if st_case cached missing -i "$fx/fixture.syscap"; then
  check_chains cached fixture "$tmp/cached.chains" || fail cached
else
  fail "cached: stacktrace failed"
fi

finish
