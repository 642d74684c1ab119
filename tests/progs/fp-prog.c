/* Known call path through code without any CFI, only frame pointers:
   main -> st_fp_a -> st_fp_b -> st_fp_leaf.  Built with
   -fno-omit-frame-pointer -fno-asynchronous-unwind-tables
   -fno-unwind-tables and no -g (tests/Makefile.am), so neither
   .eh_frame nor .debug_frame covers these functions and both engines
   must walk them by frame pointer (engine-agreement.sh).
   Usage: fp-prog [MILLISECONDS]  */
#include "st-work.h"

volatile unsigned long st_sink;

ST_FRAME unsigned long st_fp_leaf (unsigned long n);
ST_FRAME unsigned long st_fp_b (unsigned long n);
ST_FRAME unsigned long st_fp_a (unsigned long n);

unsigned long
st_fp_leaf (unsigned long n)
{
  return st_spin (n);
}

unsigned long
st_fp_b (unsigned long n)
{
  unsigned long r = st_fp_leaf (n);

  st_sink = r;
  return r + 1;
}

unsigned long
st_fp_a (unsigned long n)
{
  unsigned long r = st_fp_b (n);

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
    total += st_fp_a (ST_SPIN_ITERATIONS);
  while (st_cpu_ms () < end);
  st_sink = total;
  return 0;
}
