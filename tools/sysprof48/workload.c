/* The workload of sysprof48-e2e.sh: a known call path, main -> sp48_a
   -> sp48_b (here) -> sp48_c -> sp48_leaf (libsp48work.so), CPU-bound
   for SECONDS of CPU time (default 3), built -O2 -fomit-frame-pointer
   so that only unwinding from the copied stack finds the path.  Writes
   the wall-clock time it ends (seconds, CLOCK_REALTIME) to END_FILE.
   Usage: sp48-workload [SECONDS [END_FILE]]  */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

unsigned long sp48_c (unsigned long n);

volatile unsigned long sp48_sink;

/* Not inlined, and work after each call: no tail call either.  */
__attribute__ ((noinline)) unsigned long
sp48_b (unsigned long n)
{
  unsigned long r = sp48_c (n);

  sp48_sink = r;
  return r + 1;
}

__attribute__ ((noinline)) unsigned long
sp48_a (unsigned long n)
{
  unsigned long r = sp48_b (n);

  sp48_sink = r;
  return r + 2;
}

static double
cpu_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main (int argc, char **argv)
{
  double seconds = argc > 1 ? atof (argv[1]) : 3.0;
  unsigned long total = 0;
  struct timespec end;

  while (cpu_seconds () < seconds)
    total += sp48_a (200000);
  sp48_sink = total;
  clock_gettime (CLOCK_REALTIME, &end);
  if (argc > 2)
    {
      FILE *f = fopen (argv[2], "w");
      if (f != NULL)
        {
          fprintf (f, "%ld.%09ld\n", (long) end.tv_sec, end.tv_nsec);
          fclose (f);
        }
    }
  return 0;
}
