/* Samples in a PLT stub: main -> st_plt_loop -> st_lib_tiny (in
   libstcallee.so), called through the PLT a million times per round, so
   that about a quarter of the samples land in the stub itself.  The
   stub's CFI gives the CFA as a DWARF expression of RSP and RIP, which
   the unwinder must evaluate with the sampled RIP.
   Usage: [ST_MIGRATE_CPU=N] plt-calls [MILLISECONDS]  */
#include "callee.h"
#include "st-work.h"

volatile unsigned long st_sink;

ST_FRAME unsigned long st_plt_loop (unsigned long n);

unsigned long
st_plt_loop (unsigned long n)
{
  unsigned long x = n;

  for (unsigned long i = 0; i < 1000000; i++)
    x = st_lib_tiny (x);
  st_sink = x;
  return x;
}

int
main (int argc, char **argv)
{
  long long ms = st_start (argc, argv);
  long long end = st_cpu_ms () + ms;
  unsigned long total = 0;

  do
    total += st_plt_loop (total);
  while (st_cpu_ms () < end);
  st_sink = total;
  return 0;
}
