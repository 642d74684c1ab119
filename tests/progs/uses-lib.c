/* Known call path across a shared library: main -> st_call_lib
   -> st_lib_outer -> st_lib_inner -> st_lib_leaf (the last three in
   libstcallee.so).
   Usage: [ST_MIGRATE_CPU=N] uses-lib [MILLISECONDS]  */
#include "callee.h"
#include "st-work.h"

volatile unsigned long st_sink;

ST_FRAME unsigned long st_call_lib (unsigned long n);

unsigned long
st_call_lib (unsigned long n)
{
  unsigned long r = st_lib_outer (n);

  st_sink = r;
  return r + 1;
}

int
main (int argc, char **argv)
{
  long long ms = st_start (argc, argv);
  long long end = st_cpu_ms () + ms;
  unsigned long total = 0;

  do
    total += st_call_lib (ST_SPIN_ITERATIONS);
  while (st_cpu_ms () < end);
  st_sink = total;
  return 0;
}
