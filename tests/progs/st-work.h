/* Helpers shared by the test programs with known call paths.
   Everything here is inlined into its caller so it adds no frame.  */
#ifndef ST_WORK_H
#define ST_WORK_H

/* For sched_setaffinity; include this header first.  */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Keep every st_ frame: no inlining, cloning (no .isra/.constprop
   names) or sibling calls, so each function keeps its own frame and
   symbol.  */
#define ST_FRAME __attribute__ ((noipa, optimize ("no-optimize-sibling-calls")))

/* Iterations of the busy loop per leaf call: roughly 0.1-0.3 ms.  */
#define ST_SPIN_ITERATIONS 200000UL

/* Default CPU time of a run (of each thread), in milliseconds; argv[1]
   overrides it.  */
#define ST_DEFAULT_MS 500

/* Busy loop; the volatile counter keeps gcc from removing it.  */
static inline __attribute__ ((always_inline)) unsigned long
st_spin (unsigned long n)
{
  volatile unsigned long acc = 0;
  unsigned long i;

  for (i = 0; i < n; i++)
    acc += i ^ (acc >> 3);
  return acc;
}

/* CPU time of the calling thread, in ms.  The programs run for an
   amount of CPU time, not of wall time: perf's cpu-clock samples CPU
   time, so a run yields the same number of samples however loaded the
   machine is (two busy processes beside it halve the CPU a wall-time
   run gets, and the samples with it).  Each thread counts its own.  */
static inline long long
st_cpu_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Start of main: returns the CPU time to run in ms from argv[1], or
   the default.  With ST_MIGRATE_CPU=N in the environment, first moves to CPU
   N: started under `taskset -c M`, the exec and the loader's mmaps are
   then recorded on CPU M and the samples on CPU N, and perf writes its
   per-CPU buffers out of time order (samples before their maps).  */
static inline long long
st_start (int argc, char **argv)
{
  const char *cpu = getenv ("ST_MIGRATE_CPU");
  long long ms = ST_DEFAULT_MS;

  if (cpu != NULL && *cpu != '\0')
    {
      cpu_set_t set;

      CPU_ZERO (&set);
      CPU_SET (atoi (cpu), &set);
      sched_setaffinity (0, sizeof set, &set);
    }
  /* ST_READY_FD=N: one byte to fd N once main runs (every library is
     mapped by then), for a test that inspects the running process.  */
  const char *ready = getenv ("ST_READY_FD");
  if (ready != NULL && *ready != '\0')
    {
      int fd = atoi (ready);
      if (write (fd, "r", 1) != 1)
        abort ();
      close (fd);
    }
  if (argc > 1)
    ms = atoll (argv[1]);
  return ms > 0 ? ms : ST_DEFAULT_MS;
}

#endif /* ST_WORK_H */
