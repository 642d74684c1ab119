#!/bin/sh
# Put in /usr/libexec/sysprof-live-unwinder by sysprof48-e2e.sh: runs the
# unwinder named in /etc/sp48-unwinder (REAL=, OUT=) with the arguments
# and descriptors sysprofd gave, and notes for the figures: its argv, the
# descriptors it has open after a second, its user and system CPU time
# (to the microsecond), peak RSS and exit status (rusage-run), its
# standard error, when the recorder wrote the event fd (the stop) and
# when the unwinder ended.
. /etc/sp48-unwinder
echo "$0 $*" >"$OUT/unwinder.argv"
/opt/sp48/rusage-run "$OUT/unwinder.time" "$REAL" "$@" \
  2>"$OUT/unwinder.err" &
timer=$!
watcher=
for a in "$@"; do
  case $a in
    --event-fd=*)
      /opt/sp48/eventfd-watch "${a#*=}" "$OUT/stop.time" &
      watcher=$! ;;
  esac
done
# Our copies of the unwinder's descriptors: closed, so that only the
# unwinder holds the capture pipe and the perf events.
for a in "$@"; do
  case $a in
    --event-fd=*|--capture-fd=*) fd=${a#*=} ;;
    --perf-fd=*) fd=${a#*=}; fd=${fd%%:*} ;;
    *) continue ;;
  esac
  case $fd in *[!0-9]*|'') continue ;; esac
  eval "exec $fd>&-"
done
(
  sleep 1
  child=$(pgrep -P $timer | head -n 1)
  [ -n "$child" ] && ls "/proc/$child/fd" 2>/dev/null | wc -l >"$OUT/unwinder.fds"
) &
wait $timer
status=$?
date +%s.%N >"$OUT/unwinder.end"
[ -n "$watcher" ] && kill "$watcher" 2>/dev/null
echo "$status" >"$OUT/unwinder.status"
exit $status
