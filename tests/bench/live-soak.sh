#!/usr/bin/env bash
# Live soak, not a test (not in make check): N minutes of a system-wide
# recording piped into stacktrace while short-lived processes start all
# the time, printing stacktrace's anonymous and whole RSS once a minute.
# Whatever stacktrace keeps per process, thread, module or name must stay
# bounded, so the anonymous RSS must level off (issue 25: within 10% of
# its value after 2 minutes, and at most 64 MB, after 30 minutes).
#
#   live-soak.sh [--minutes N] [--stacktrace PATH] [--freq HZ]
#
# The recording: perf record -a -e cpu-clock -F HZ (default 4000)
# --call-graph=dwarf,8192 -o - | stacktrace -f perf -o /dev/null.  The
# churn: a loop of sort, gzip, md5sum, sed and python3 runs (a few ms to
# some 50 ms each, a new pid every time), some through a copy of the
# program under a new name (a module never seen before) and some in a
# chroot (/ as the root: other paths in /proc/PID/root).  Needs root and
# perf.  Prints one line per minute: minute, RssAnon and VmRSS in KB,
# input bytes read so far; at the end the first and last values.
set -u

minutes=10
freq=4000
here=$(cd "$(dirname "$0")" && pwd)
stacktrace=${STACKTRACE:-$here/../../build/src/stacktrace}
while [ $# -gt 0 ]; do
  case $1 in
    --minutes) minutes=$2; shift ;;
    --stacktrace) stacktrace=$2; shift ;;
    --freq) freq=$2; shift ;;
    -h|--help) sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    *) echo "live-soak: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done
die () { echo "live-soak: $*" >&2; exit 1; }
[ -x "$stacktrace" ] || die "no stacktrace at $stacktrace"
command -v perf >/dev/null || die "perf is needed (linux-perf)"
[ "$(id -u)" = 0 ] || die "needs root (system-wide recording)"

work=$(mktemp -d "${TMPDIR:-/tmp}/st-soak.XXXXXX") || die "mktemp failed"
churn_pid=
perf_pid=
cleanup ()
{
  [ -n "$churn_pid" ] && kill "$churn_pid" 2>/dev/null
  [ -n "$perf_pid" ] && kill -INT "$perf_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

head -c 300000 /dev/urandom | base64 >"$work/input.txt"
cat >"$work/churn.sh" <<'EOF'
# The churn: runs until killed (by its pid, from the script).
in=$1 work=$2
i=0
while :; do
  case $((i % 8)) in
    0) sort "$in" >/dev/null ;;
    1) gzip -1 -c "$in" >/dev/null ;;
    2) md5sum "$in" >/dev/null ;;
    3) sed -n 's/[0-9]/x/gp' "$in" >/dev/null ;;
    4) python3 -c 'import json; json.dumps(list(range(20000)))' ;;
    5) cp /usr/bin/md5sum "$work/md5-$((i % 50))" \
         && "$work/md5-$((i % 50))" "$in" >/dev/null ;;
    6) chroot / sort -r "$in" >/dev/null ;;
    7) sh -c 'true' ;;
  esac
  i=$((i + 1))
done
EOF

perf record -a -q -e cpu-clock -F "$freq" --call-graph=dwarf,8192 -o - \
  2>"$work/perf.err" \
  | "$stacktrace" -f perf -v -o /dev/null 2>"$work/stacktrace.err" &
# $! is stacktrace (the last command of the pipeline); perf is its
# sibling, found by its parent and name.
st_pid=$!
sleep 1
perf_pid=$(pgrep -P $$ -x perf | head -1)
bash "$work/churn.sh" "$work/input.txt" "$work" &
churn_pid=$!

rss_of () { sed -n "s/^$2:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$1/status"; }
echo "live soak: $minutes minute(s), perf -a -F $freq, churn of short-lived processes; load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%6s %12s %12s %14s\n' minute 'RssAnon KB' 'VmRSS KB' 'input bytes'
first_anon= last_anon=
for ((m = 1; m <= minutes; m++)); do
  sleep 60
  kill -0 "$st_pid" 2>/dev/null || die "stacktrace ended early: $(tail -3 "$work/stacktrace.err")"
  anon=$(rss_of "$st_pid" RssAnon) rss=$(rss_of "$st_pid" VmRSS)
  read_bytes=$(sed -n 's/^rchar: //p' "/proc/$st_pid/io" 2>/dev/null)
  printf '%6d %12s %12s %14s\n' "$m" "$anon" "$rss" "$read_bytes"
  [ "$m" = 2 ] && first_anon=$anon
  last_anon=$anon
done
kill "$churn_pid" 2>/dev/null
wait "$churn_pid" 2>/dev/null
churn_pid=
kill -INT "$perf_pid" 2>/dev/null
perf_pid=
wait "$st_pid"
status=$?
echo "stacktrace exit status $status; load: $(cut -d' ' -f1-3 /proc/loadavg)"
tail -25 "$work/stacktrace.err"
[ -n "$first_anon" ] && awk -v a="$first_anon" -v b="$last_anon" \
  'BEGIN { printf "RssAnon after 2 minutes %d KB, at the end %d KB (%+.1f%%)\n", a, b, (a > 0 ? 100 * (b - a) / a : 0) }'
exit 0
