/* Known call path: main -> st_run -> st_recurse x (depth + 1)
   -> st_leaf_work, the depth cycling through 5..60.
   Usage: [ST_MIGRATE_CPU=N] deep-recursion [MILLISECONDS]  */
#include "st-work.h"

/* Stores after each call keep the callers' frames live.  */
volatile unsigned long st_sink;

ST_FRAME unsigned long st_leaf_work (unsigned long n);
ST_FRAME unsigned long st_recurse (int depth, unsigned long n);
ST_FRAME unsigned long st_run (long long ms);

unsigned long
st_leaf_work (unsigned long n)
{
  return st_spin (n);
}

unsigned long
st_recurse (int depth, unsigned long n)
{
  unsigned long r;

  if (depth == 0)
    r = st_leaf_work (n);
  else
    r = st_recurse (depth - 1, n);
  st_sink = r;
  return r + (unsigned long) depth;
}

unsigned long
st_run (long long ms)
{
  long long end = st_cpu_ms () + ms;
  unsigned long total = 0;
  unsigned int round = 0;

  do
    {
      /* Every depth in 5..60 (11 and 56 are coprime).  */
      int depth = 5 + (int) ((round * 11) % 56);

      total += st_recurse (depth, ST_SPIN_ITERATIONS);
      st_sink = total;
      round++;
    }
  while (st_cpu_ms () < end);
  return total;
}

int
main (int argc, char **argv)
{
  unsigned long r = st_run (st_start (argc, argv));

  st_sink = r;
  return 0;
}
