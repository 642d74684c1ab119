/* Recursion of varying depth for the stitching measurements
   (stitch-ground-truth.sh): main -> st_run -> st_descend x (depth + 1)
   -> st_depth_leaf, the target depth of each round drawn from 20..140
   (a fixed pseudo-random sequence), each st_descend frame 128 bytes.
   The work happens in the leaf, so neighbouring samples may differ by
   up to 120 frames; the stack spans ~2.6-18 KiB: a 2 KiB copy never
   reaches main, a 4 KiB copy does for depths up to ~30.
   Usage: stitch-depth [MILLISECONDS]  */
#include "st-work.h"

volatile unsigned long st_sink;

ST_FRAME unsigned long st_depth_leaf (unsigned long n);
ST_FRAME unsigned long st_descend (int depth, unsigned long n);
ST_FRAME unsigned long st_run (long long ms);

unsigned long
st_depth_leaf (unsigned long n)
{
  return st_spin (n);
}

unsigned long
st_descend (int depth, unsigned long n)
{
  /* A local array the compiler must keep: stack per frame.  */
  volatile unsigned char pad[72];
  unsigned long r;

  pad[depth % sizeof pad] = (unsigned char) depth;
  if (depth == 0)
    r = st_depth_leaf (n);
  else
    r = st_descend (depth - 1, n);
  st_sink = r + pad[depth % sizeof pad];
  return r + (unsigned long) depth;
}

unsigned long
st_run (long long ms)
{
  long long end = st_now_ms () + ms;
  unsigned long total = 0;
  unsigned int seed = 1;

  do
    {
      seed = seed * 1103515245u + 12345u;
      int depth = 20 + (int) ((seed >> 16) % 121);

      total += st_descend (depth - 3, ST_SPIN_ITERATIONS);
      st_sink = total;
    }
  while (st_now_ms () < end);
  return total;
}

int
main (int argc, char **argv)
{
  unsigned long r = st_run (st_start (argc, argv));

  st_sink = r;
  return 0;
}
