#!/bin/sh
# End-to-end run with the real Sysprof 48 (issue 22, part 6b): in a
# Debian trixie chroot (debootstrap, cached), start the system D-Bus,
# polkitd and sysprofd, and record the workload (tools/sysprof48/
# workload.c: main -> sp48_a -> sp48_b -> sp48_c -> sp48_leaf, the last
# two in a shared library, -O2 -fomit-frame-pointer, 3 s of CPU) with
# `sysprof-cli --stack-size=16384 -- workload`, once with the real
# /usr/libexec/sysprof-live-unwinder and once with stacktrace (built in
# the chroot from this tree) diverted into its place.  Prints, for each:
# workload samples delivered, those with a known leaf and with the whole
# path to main, records lost, the unwinder's CPU time, peak RSS,
# descriptors, exit status and how long after the workload's end it
# exited.  Exits 77 (skip) without root, debootstrap or the mirror.
#
# Usage: tools/sysprof48-e2e.sh [UNWINDER...]   (real, stacktrace; both
#        by default)   --- make check-sysprof48
# Environment: ST_TRIXIE_ROOT (the chroot, default
# /var/cache/stacktrace/trixie), ST_DEBIAN_MIRROR, ST_SP48_SECONDS (the
# workload's CPU seconds, 3), ST_SP48_SRCDIR (the stacktrace tree to
# build, default this one), ST_SP48_SYSTEM_WIDE (seconds: also record
# the whole system that long, with the workload running in a loop; 0),
# ST_SP48_RUNS (recordings per unwinder, taken in turns: sp48-NAME-K
# from the second on; 1).
# The chroot's sysprof-live-unwinder is diverted only during a run and
# put back at the end (dpkg-divert --remove), also on failure.
set -u

srcdir=$(cd "${ST_SP48_SRCDIR:-$(dirname "$0")/..}" && pwd)
root=${ST_TRIXIE_ROOT:-/var/cache/stacktrace/trixie}
mirror=${ST_DEBIAN_MIRROR:-http://deb.debian.org/debian}
seconds=${ST_SP48_SECONDS:-3}
system_wide=${ST_SP48_SYSTEM_WIDE:-0}
runs=${ST_SP48_RUNS:-1}
tree=$(basename "$srcdir")
unwinder=/usr/libexec/sysprof-live-unwinder
packages="sysprof dbus polkitd time procps binutils build-essential
  autoconf automake libtool pkg-config libglib2.0-dev libdw-dev libelf-dev
  libzstd-dev libdebuginfod-dev libiberty-dev libsysprof-capture-4-dev
  libsysprof-6-dev"

skip () { echo "SKIP: $*"; exit 77; }
die () { echo "ERROR: $*" >&2; exit 99; }
log () { echo "sysprof48: $*"; }

[ "$(id -u)" = 0 ] || skip "needs root (chroot, sysprofd)"
command -v unshare >/dev/null 2>&1 || skip "no unshare"

# --- the chroot, made once ------------------------------------------------
make_chroot ()
{
  command -v debootstrap >/dev/null 2>&1 \
    || skip "no debootstrap (apt-get install debootstrap)"
  mkdir -p "$(dirname "$root")" || die "cannot make $(dirname "$root")"
  if [ ! -x "$root/usr/bin/apt-get" ]; then
    rm -rf "$root.tmp"
    log "debootstrap trixie into $root (once; a few minutes)"
    debootstrap --variant=minbase trixie "$root.tmp" "$mirror" \
      >"$(dirname "$root")/debootstrap.log" 2>&1 \
      || skip "debootstrap failed (no mirror?): $(dirname "$root")/debootstrap.log"
    mv "$root.tmp" "$root" || die "cannot move the chroot in place"
  fi
  log "installing sysprof 48 and the build tools in the chroot"
  # shellcheck disable=SC2086
  chroot "$root" sh -c "export DEBIAN_FRONTEND=noninteractive;
      apt-get update && apt-get install -y $(echo $packages)" \
    >"$(dirname "$root")/apt.log" 2>&1 \
    || skip "apt-get in the chroot failed: $(dirname "$root")/apt.log"
  echo $packages >"$root/.st-sysprof48-ready"
}
# Ready when it has every package of this list (the list grows with the
# build's dependencies).
# shellcheck disable=SC2086
[ "$(cat "$root/.st-sysprof48-ready" 2>/dev/null)" = "$(echo $packages)" ] \
  || make_chroot
version=$(chroot "$root" dpkg-query -W -f '${Version}' sysprof 2>/dev/null)
case $version in 48.*) ;; *) skip "the chroot's sysprof is '$version', not 48" ;; esac

# --- the rest runs in its own mount namespace -----------------------------
if [ "${ST_SP48_INSIDE:-}" != 1 ]; then
  ST_SP48_INSIDE=1 exec unshare --mount --propagation private -- "$0" "$@"
fi

daemons=""
cleanup ()
{
  for pid in $daemons; do
    kill "$pid" 2>/dev/null
  done
  if [ -e "$root$unwinder.distrib" ]; then
    rm -f "$root$unwinder"
    chroot "$root" dpkg-divert --quiet --local --rename \
      --divert "$unwinder.distrib" --remove "$unwinder"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mount -t proc proc "$root/proc" && mount -t sysfs sys "$root/sys" \
  && mount --bind /dev "$root/dev" && mount -t tmpfs run "$root/run" \
  && mount -t tmpfs tmp "$root/tmp" || die "cannot mount in the chroot"
mkdir -p "$root/run/dbus"

# --- what we build there: stacktrace from this tree, the workload, the
# preload, the capture reader ---------------------------------------------
[ $# -gt 0 ] || set -- real stacktrace
case " $* " in *" stacktrace "*) build_stacktrace=yes ;; *) build_stacktrace=no ;; esac
if [ $build_stacktrace = yes ]; then
log "building stacktrace in the chroot (from $srcdir)"
mkdir -p "$root/opt/stacktrace-src/$tree" "$root/opt/sp48" \
  || die "cannot make the build directories"
# The sources only (configure made there by trixie's autotools);
# modification times kept: make rebuilds only what changed.
if [ -e "$srcdir/.git" ]; then
  (cd "$srcdir" && git ls-files -co --exclude-standard -z \
     | tar --null -T - -cf -)
else
  tar -C "$srcdir" --exclude=./build --exclude=./build-asan \
    --exclude=./autom4te.cache --exclude=./configure -cf - .
fi | tar -C "$root/opt/stacktrace-src/$tree" -xf - || die "cannot copy the tree"
chroot "$root" sh -c "cd '/opt/stacktrace-src/$tree' && { [ -x configure ] && [ -f tests/Makefile.in ] || ./autogen.sh; } \
    && mkdir -p build && cd build && { [ -f Makefile ] || ../configure; } \
    && make -j2" >"$root/opt/sp48/build.log" 2>&1 \
  || { tail -20 "$root/opt/sp48/build.log"; die "stacktrace does not build in the chroot"; }
# Also run under the live unwinder's name (argv[0]).
ln -sf stacktrace "$root/opt/stacktrace-src/$tree/build/src/sysprof-live-unwinder"
fi
tools=$(cd "$(dirname "$0")" && pwd)/sysprof48
cp "$tools"/*.c "$root/opt/sp48/" || die "cannot copy tools"
chroot "$root" sh -c 'cd /opt/sp48 \
  && cc -O2 -fomit-frame-pointer -fPIC -shared -o libsp48work.so worklib.c \
  && cc -O2 -fomit-frame-pointer -o sp48-workload workload.c -L. -lsp48work \
       -Wl,-rpath,/opt/sp48 \
  && cc -O2 -fPIC -shared -o fdlist-fix.so fdlist-fix.c \
       $(pkg-config --cflags --libs gio-unix-2.0) -ldl \
  && cc -O2 -o eventfd-watch eventfd-watch.c \
  && cc -O2 -o rusage-run rusage-run.c \
  && cc -O2 -o capture-figures capture-figures.c \
       $(pkg-config --cflags --libs sysprof-capture-4 glib-2.0) \
  && { nm -S --defined-only sp48-workload | awk "\$4 ~ /^(main|sp48_a|sp48_b)\$/ { print \"sp48-workload\", \$4, \$1, \$2 }"; \
       nm -S --defined-only libsp48work.so | awk "\$4 ~ /^(sp48_c|sp48_leaf)\$/ { print \"libsp48work.so\", \$4, \$1, \$2 }"; } >symbols' \
  >"$root/opt/sp48/tools.log" 2>&1 \
  || { cat "$root/opt/sp48/tools.log"; die "the workload or tools do not build"; }
[ "$(wc -l <"$root/opt/sp48/symbols")" = 5 ] \
  || die "the workload's symbols: $(cat "$root/opt/sp48/symbols")"

# --- D-Bus, polkitd, sysprofd ---------------------------------------------
chroot "$root" dbus-uuidgen --ensure >/dev/null 2>&1
pid=$(chroot "$root" dbus-daemon --system --fork --print-pid) \
  || die "the system D-Bus does not start"
daemons="$daemons $pid"
mkdir -p "$root/var/tmp"
chroot "$root" /usr/lib/polkit-1/polkitd --no-debug >"$root/var/tmp/polkitd.log" 2>&1 &
daemons="$daemons $!"
chroot "$root" /usr/libexec/sysprofd >"$root/var/tmp/sysprofd.log" 2>&1 &
daemons="$daemons $!"
# Up when they own their names (a bounded wait: they may not start).
has_owner ()
{
  chroot "$root" dbus-send --system --print-reply --dest=org.freedesktop.DBus \
    / org.freedesktop.DBus.NameHasOwner "string:$1" 2>/dev/null \
    | grep -q 'boolean true'
}
for name in org.freedesktop.PolicyKit1 org.gnome.Sysprof3; do
  tries=0
  until has_owner "$name"; do
    tries=$((tries + 1))
    [ $tries -lt 100 ] || die "$name did not appear on the system bus"
    sleep 0.1
  done
done
log "system D-Bus, polkitd and sysprofd up"

# --- one recording ----------------------------------------------------------
# run NAME REAL [WORKLOAD...]: records the workload with REAL as the live
# unwinder; results in $root/var/tmp/sp48-NAME.
run ()
{
  name=$1 real=$2
  shift 2
  out=/var/tmp/sp48-$name
  rm -rf "$root$out" && mkdir -p "$root$out"
  if [ ! -e "$root$unwinder.distrib" ]; then
    chroot "$root" dpkg-divert --quiet --local --rename \
      --divert "$unwinder.distrib" --add "$unwinder" \
      || die "dpkg-divert failed"
  fi
  cp "$tools/unwinder-wrapper.sh" "$root$unwinder" \
    && chmod 755 "$root$unwinder" || die "cannot put the wrapper in place"
  printf 'REAL=%s\nOUT=%s\n' "$real" "$out" >"$root/etc/sp48-unwinder"
  start=$(date +%s.%N)
  chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
      LD_PRELOAD=/opt/sp48/fdlist-fix.so \
      sysprof-cli --force --stack-size=16384 "$out/capture.syscap" -- "$@" \
      >"$root$out/cli.log" 2>&1
  cli_status=$?
  cli_end=$(date +%s.%N)
  # The unwinder ends after the client: wait for its notes (bounded).
  tries=0
  while [ ! -e "$root$out/unwinder.status" ] && [ $tries -lt 100 ]; do
    tries=$((tries + 1))
    sleep 0.1
  done
  chroot "$root" /opt/sp48/capture-figures "$out/capture.syscap" \
    sp48-workload libsp48work.so /opt/sp48/symbols >"$root$out/figures" 2>&1
  report "$name" "$root$out" "$cli_status" "$start" "$cli_end"
}

# report NAME DIR CLI_STATUS START CLI_END: one block of "NAME key value".
report ()
{
  dir=$2
  fig () { awk -v k="$1" '$1 == k { print $2 }' "$dir/figures"; }
  set -- "$1" "$2" "$3" "$4" "$5" $(cat "$dir/unwinder.time" 2>/dev/null | tail -n 1)
  user=${6:-?} sys=${7:-?} rss=${8:-?} status=${9:-?}
  if grep -q 'terminated by signal' "$dir/unwinder.time" 2>/dev/null; then
    status="signal $(sed -n 's/.*terminated by signal \([0-9]*\).*/\1/p' "$dir/unwinder.time")"
  fi
  after_stop=?
  if [ -s "$dir/unwinder.end" ] && [ -s "$dir/workload.end" ]; then
    after_stop=$(awk -v a="$(cat "$dir/workload.end")" -v b="$(cat "$dir/unwinder.end")" \
                   'BEGIN { printf "%.3f", b - a }')
  fi
  stop_to_exit=?
  if [ -s "$dir/unwinder.end" ] && [ -s "$dir/stop.time" ]; then
    stop_to_exit=$(awk -v a="$(cat "$dir/stop.time")" -v b="$(cat "$dir/unwinder.end")" \
                     'BEGIN { printf "%.3f", b - a }')
  fi
  cpu=?
  [ "$user" != ? ] && cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.4f", u + s }')
  per_sample=?
  ws=$(fig workload_samples)
  [ "$cpu" != ? ] && [ "${ws:-0}" -gt 0 ] \
    && per_sample=$(awk -v c="$cpu" -v n="$(fig samples)" 'BEGIN { printf "%.1f", n ? c * 1e6 / n : 0 }')
  cat <<EOT
$1 unwinder_argv $(cut -d' ' -f2- "$dir/unwinder.argv" 2>/dev/null)
$1 sysprof_cli_status $3 ($(awk -v a="$4" -v b="$5" 'BEGIN { printf "%.1f s", b - a }'))
$1 samples_in_capture $(fig samples)
$1 workload_samples $ws
$1 workload_samples_without_user_frames $(fig no_user_frames) (kernel frames only: $(fig kernel_frames_only))
$1 workload_samples_leaf_outside_path $(fig leaf_outside_path), in main $(fig leaf_in_main)
$1 known_leaf $(fig known_leaf)
$1 whole_path $(fig whole_path) ($(fig whole_path_percent) %)
$1 workload_sample_span_s $(fig sample_span_s)
$1 lost_records $(fig lost_records) (in $(fig lost_logs) LOG frames)
$1 unwinder_cpu_s $cpu (user $user, system $sys; $per_sample us per sample in the capture)
$1 unwinder_peak_rss_kib $rss
$1 unwinder_fds_after_1s $(cat "$dir/unwinder.fds" 2>/dev/null)
$1 unwinder_exit $status
$1 unwinder_exit_after_stop_s $stop_to_exit (event fd written -> unwinder ended)
$1 unwinder_exit_after_workload_end_s $after_stop
EOT
}

turn=1
while [ $turn -le "$runs" ]; do
for which in "$@"; do
  case $which in
    real) real=$unwinder.distrib ;;
    stacktrace) real=/opt/stacktrace-src/$tree/build/src/sysprof-live-unwinder ;;
    *) die "unknown unwinder '$which' (real, stacktrace)" ;;
  esac
  name=$which
  [ $turn -gt 1 ] && name=$which-$turn
  turn_note=
  [ "$runs" -gt 1 ] && turn_note=" (turn $turn of $runs)"
  log "recording with the $which live unwinder$turn_note"
  run "$name" "$real" /opt/sp48/sp48-workload "$seconds" "/var/tmp/sp48-$name/workload.end"
  if [ "$system_wide" -gt 0 ]; then
    log "recording the whole system for $system_wide s with the $which live unwinder"
    run "$name-system" "$real" sh -c "end=\$((\$(date +%s) + $system_wide));
        while [ \$(date +%s) -lt \$end ]; do
          /opt/sp48/sp48-workload 1 /var/tmp/sp48-$name-system/workload.end
        done"
  fi
done
turn=$((turn + 1))
done
