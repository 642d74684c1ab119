/* Deep stacks for the stitching test: main -> st_run -> st_deep x
   (depth + 1) -> st_deep_leaf.
   deep-stack: each st_deep frame holds ~160 bytes.  A round of 240
   calls first stays at depth 2 for 40 calls (a shallow phase: even a
   2 KiB copy then reaches main, so every cut size has complete chains
   to stitch from), then sweeps the depth up and down through 2..101, so
   the stack spans ~0.5-17 KiB and a 2/4/8 KiB copy often ends before
   main.
   stitch-depth (built with -DST_RANDOM_DEPTH): 128-byte frames, the
   depth of each round drawn from 17..137 (a fixed pseudo-random
   sequence: 20 to 140 frames in all), so neighbouring samples may
   differ by 120 frames and the stack spans ~2.6-18 KiB: a 2 KiB copy
   never reaches main, a 4 KiB copy does up to ~30 frames.
   Usage: deep-stack [MILLISECONDS]  */
#include "st-work.h"

volatile unsigned long st_sink;

ST_FRAME unsigned long st_deep_leaf (unsigned long n);
ST_FRAME unsigned long st_deep (int depth, unsigned long n);
ST_FRAME unsigned long st_run (long long ms);

unsigned long
st_deep_leaf (unsigned long n)
{
  return st_spin (n);
}

unsigned long
st_deep (int depth, unsigned long n)
{
  /* A local array the compiler must keep: stack per frame.  */
#ifdef ST_RANDOM_DEPTH
  volatile unsigned char pad[88];
#else
  volatile unsigned char pad[144];
#endif
  unsigned long r;

  pad[depth % sizeof pad] = (unsigned char) depth;
  if (depth == 0)
    r = st_deep_leaf (n);
  else
    r = st_deep (depth - 1, n);
  st_sink = r + pad[depth % sizeof pad];
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
#ifdef ST_RANDOM_DEPTH
      round = round * 1103515245u + 12345u;
      int depth = 17 + (int) ((round >> 16) % 121);
#else
      /* A shallow plateau, then a triangle wave: neighbouring samples
         share most of their stack.  */
      unsigned int phase = round % 240;
      int depth;

      if (phase < 40)
        depth = 2;
      else
        {
          phase -= 40;
          depth = 2 + (int) (phase < 100 ? phase : 199 - phase);
        }
#endif

      total += st_deep (depth, ST_SPIN_ITERATIONS / 4);
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
