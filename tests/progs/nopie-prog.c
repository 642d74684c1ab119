/* Known call path in a non-PIE executable: main -> st_np_a -> st_np_b
   -> st_np_leaf.
   Usage: [ST_MIGRATE_CPU=N] nopie-prog [MILLISECONDS]  */
#include "st-work.h"

volatile unsigned long st_sink;

ST_FRAME unsigned long st_np_leaf (unsigned long n);
ST_FRAME unsigned long st_np_b (unsigned long n);
ST_FRAME unsigned long st_np_a (unsigned long n);

unsigned long
st_np_leaf (unsigned long n)
{
  return st_spin (n);
}

unsigned long
st_np_b (unsigned long n)
{
  unsigned long r = st_np_leaf (n);

  st_sink = r;
  return r + 1;
}

unsigned long
st_np_a (unsigned long n)
{
  unsigned long r = st_np_b (n);

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
    total += st_np_a (ST_SPIN_ITERATIONS);
  while (st_cpu_ms () < end);
  st_sink = total;
  return 0;
}
