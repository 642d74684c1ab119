/* Known call path main -> st_mx_a -> st_mx_leaf, where st_mx_leaf
   (mixed-frames-leaf.c) is built without unwind tables: its CFI is in
   .debug_frame only, while .eh_frame covers the rest of the program.
   Stripped into a separate debug file (tests/Makefile.am), it is the
   case where libdwfl finds a .debug_frame in the debug file for the few
   addresses .eh_frame leaves uncovered.
   Usage: mixed-frames [N]  (N turns of the leaf's loop)  */
#include <stdlib.h>

#include "st-work.h"

volatile unsigned long st_sink;

ST_FRAME unsigned long st_mx_leaf (unsigned long n);
ST_FRAME unsigned long st_mx_a (unsigned long n);

unsigned long
st_mx_a (unsigned long n)
{
  unsigned long r = st_mx_leaf (n);

  st_sink = r;
  return r + 1;
}

int
main (int argc, char **argv)
{
  unsigned long n = argc > 1 ? strtoul (argv[1], NULL, 10) : 100000000;

  st_sink = st_mx_a (n);
  return 0;
}
