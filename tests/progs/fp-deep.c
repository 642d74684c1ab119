/* Frame pointers, and one library without: main -> st_fpd_run ->
   st_fpd_rec x (depth + 1) -> st_lib_outer -> st_lib_inner ->
   st_lib_leaf (libstcallee.so, built without frame pointers).  The
   program is built with -fno-omit-frame-pointer (and unwind tables), the
   depth drawn from 10..60 each round, each st_fpd_rec frame ~112 bytes:
   a 2 KiB stack copy rarely reaches main, the kernel's frame-pointer
   chain always does (it skips the library's frames).
   Usage: fp-deep [MILLISECONDS of CPU time]  */
#include "st-work.h"
#include "callee.h"

volatile unsigned long st_sink;

ST_FRAME unsigned long st_fpd_rec (int depth, unsigned long n);
ST_FRAME unsigned long st_fpd_run (long long ms);

unsigned long
st_fpd_rec (int depth, unsigned long n)
{
  volatile unsigned char pad[72];
  unsigned long r;

  pad[depth % sizeof pad] = (unsigned char) depth;
  if (depth == 0)
    r = st_lib_outer (n);
  else
    r = st_fpd_rec (depth - 1, n);
  st_sink = r + pad[depth % sizeof pad];
  return r + (unsigned long) depth;
}

unsigned long
st_fpd_run (long long ms)
{
  long long end = st_cpu_ms () + ms;
  unsigned long total = 0;
  unsigned int seed = 7;

  do
    {
      seed = seed * 1103515245u + 12345u;
      total += st_fpd_rec (10 + (int) ((seed >> 16) % 51), ST_SPIN_ITERATIONS);
      st_sink = total;
    }
  while (st_cpu_ms () < end);
  return total;
}

int
main (int argc, char **argv)
{
  unsigned long r = st_fpd_run (st_start (argc, argv));

  st_sink = r;
  return 0;
}
