// A C++ program with a known call path, for the demangling tests
// (tests/progs/README): main -> st_cxx::Runner::run()
// -> st_cxx::level2(std::vector<int> const&) -> work(int), where the
// time goes.  It runs for 0.5 s of CPU time, or the ms of its argument.
#include <cstdlib>
#include <ctime>
#include <vector>

#define ST_FRAME __attribute__ ((noinline, noclone, optimize ("no-optimize-sibling-calls")))

static volatile unsigned long sink;

static double
cpu_ms ()
{
  struct timespec ts;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

ST_FRAME int
work (int n)
{
  unsigned long x = 0;
  for (int i = 0; i < n; i++)
    x += (unsigned long) i * 2654435761u;
  sink = x;
  return (int) (x & 1);
}

namespace st_cxx
{
ST_FRAME int
level2 (const std::vector<int> &v)
{
  int r = 0;
  for (int n : v)
    r += work (n);
  sink = sink + 1;
  return r;
}

struct Runner
{
  double ms;
  ST_FRAME int run ();
};

ST_FRAME int
Runner::run ()
{
  std::vector<int> v (8, 100000);
  double end = cpu_ms () + ms;
  int r = 0;
  while (cpu_ms () < end)
    r += level2 (v);
  sink = sink + 1;
  return r;
}
}

int
main (int argc, char **argv)
{
  st_cxx::Runner runner{ argc > 1 ? atof (argv[1]) : 500.0 };
  int r = runner.run ();
  sink = sink + 1;
  return r < 0;
}
