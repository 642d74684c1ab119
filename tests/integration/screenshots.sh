#!/bin/sh
# Opens stacktrace's outputs in the real profilers, as a person would, and
# saves screenshots to look at (not part of make check: it needs X and
# judging the pictures is a person's job).
#
#   tests/integration/screenshots.sh [OUTDIR]     (run from anywhere, as root for perf)
#
# Records `perf record --call-graph=dwarf -e cpu-clock -- deep-recursion
# 2000` (2 s), unwinds it with the build's stacktrace into a Sysprof
# capture (file output, and through a pipe) and a perf.data, then under
# Xvfb opens
#   sysprof-file.png   the capture written to a file, in Sysprof
#   sysprof-file-info.png   its capture information (Recorded At,
#                      Duration, Processes)
#   sysprof-pipe.png, sysprof-pipe-info.png   the same for the capture
#                      written through a pipe
#   hotspot.png        the unwound perf.data, in hotspot
# in OUTDIR (default ./screenshots).  What to look for: Sysprof's
# Duration is about 2 s and the samples fill its timeline at the default
# zoom (Sysprof draws 20 pixels per second there), 1 process, named by
# deep-recursion's command line (not [perf-exec]), Recorded At the time
# of the recording; hotspot's summary shows the same samples and its
# flame graph the call paths.
# Needs: perf, xvfb, x11-utils, xdotool, imagemagick, sysprof, hotspot
# (Debian packages).
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${STACKTRACE_BUILD:-$top/build}
st=$build/src/stacktrace
prog=$build/tests/progs/deep-recursion
out=${1:-screenshots}
# Time for a program to read its file and draw, once its window is up.
settle=${SCREENSHOT_SETTLE:-8}

for tool in perf Xvfb xwininfo xdotool import sysprof hotspot; do
  command -v $tool >/dev/null 2>&1 || { echo "screenshots: no $tool" >&2; exit 1; }
done
[ -x "$st" ] && [ -x "$prog" ] \
  || { echo "screenshots: build first (make check builds $prog)" >&2; exit 1; }
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/st-shots.XXXXXX") || exit 1
xvfb_pid= bus_pid=

cleanup ()
{
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null
  [ -n "$bus_pid" ] && kill "$bus_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

perf record -q -e cpu-clock --call-graph=dwarf -o "$work/rec.data" \
  -- "$prog" 2000 >/dev/null 2>&1 || { echo "screenshots: perf record failed" >&2; exit 1; }
"$st" -i "$work/rec.data" -o "$work/file.syscap" || exit 1
"$st" -q -i "$work/rec.data" -o - | cat >"$work/pipe.syscap" || exit 1
"$st" -q -i "$work/rec.data" --output-format perf -o "$work/unwound.data" || exit 1

# A display of our own: the first free number from 90.
n=90
while [ -e /tmp/.X11-unix/X$n ] || [ -e /tmp/.X$n-lock ]; do
  n=$((n + 1))
done
export DISPLAY=:$n
Xvfb ":$n" -screen 0 1600x1000x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
xvfb_pid=$!
i=0
until xwininfo -root >/dev/null 2>&1; do
  i=$((i + 1))
  [ $i -gt 100 ] && { cat "$work/xvfb.log"; echo "screenshots: Xvfb did not start" >&2; exit 1; }
  sleep 0.1
done

# A session bus of our own for the desktop programs, ended by its pid.
dbus-daemon --session --fork --print-address=3 --print-pid=4 \
  3>"$work/bus.address" 4>"$work/bus.pid" || exit 1
bus_pid=$(cat "$work/bus.pid")
DBUS_SESSION_BUS_ADDRESS=$(cat "$work/bus.address")
export DBUS_SESSION_BUS_ADDRESS

# shot NAME CLASS COMMAND...: runs COMMAND, waits for a visible window of
# X class CLASS, makes it fill the screen, lets it draw, saves the screen
# as NAME.png.  With INFO_AT="X Y", then clicks there (Sysprof's capture
# information button) and saves NAME-info.png too.
shot ()
{
  name=$1 class=$2
  shift 2
  "$@" >"$work/$name.log" 2>&1 &
  app=$!
  i=0
  until windows=$(xdotool search --onlyvisible --class "$class" 2>/dev/null); do
    i=$((i + 1))
    if [ $i -gt 300 ] || ! kill -0 "$app" 2>/dev/null; then
      cat "$work/$name.log"
      echo "screenshots: no $class window for $name" >&2
      kill "$app" 2>/dev/null
      return 1
    fi
    sleep 0.1
  done
  # No window manager: fill the screen ourselves.
  for w in $windows; do
    xdotool windowmove "$w" 0 0 windowsize "$w" 1600 1000 2>/dev/null
  done
  sleep "$settle"
  import -window root "$out/$name.png"
  echo "screenshots: $out/$name.png"
  if [ -n "${INFO_AT:-}" ]; then
    # shellcheck disable=SC2086
    xdotool mousemove $INFO_AT click 1
    sleep 2
    import -window root "$out/$name-info.png"
    echo "screenshots: $out/$name-info.png"
  fi
  kill "$app" 2>/dev/null
  wait "$app" 2>/dev/null
}

# GTK 4 without a GPU: the cairo renderer; no accessibility bus.
# Sysprof 3.46's capture information button ("Recorded At", "Duration",
# the process count) sits at 224,67 of a window at 0,0.
GDK_BACKEND=x11 GSK_RENDERER=cairo GTK_A11Y=none NO_AT_BRIDGE=1 INFO_AT="224 67" \
  shot sysprof-file sysprof sysprof "$work/file.syscap"
GDK_BACKEND=x11 GSK_RENDERER=cairo GTK_A11Y=none NO_AT_BRIDGE=1 INFO_AT="224 67" \
  shot sysprof-pipe sysprof sysprof "$work/pipe.syscap"
QT_QPA_PLATFORM=xcb NO_AT_BRIDGE=1 \
  shot hotspot hotspot hotspot "$work/unwound.data"
