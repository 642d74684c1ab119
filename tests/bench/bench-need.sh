# Sourced by the benchmarks that record their own captures (unwind-bench.sh,
# big-read-bench.sh), after their options: `bench_need NAME` stops with
# NAME's message unless $stacktrace, perf and GNU time are there, makes
# the cache directory $cache and sets the C locale.
die () { echo "$bench_name: $*" >&2; exit 1; }

bench_need ()
{
  bench_name=$1
  [ -x "$stacktrace" ] || die "no stacktrace at $stacktrace (build first, or --stacktrace)"
  command -v perf >/dev/null || die "perf is needed (linux-perf)"
  [ -x /usr/bin/time ] || die "/usr/bin/time is needed (package time)"
  mkdir -p "$cache" || die "cannot create $cache"
  export LC_ALL=C
}
