/* mixed-frames' leaf, built without unwind tables (see mixed-frames.c).  */
#include "st-work.h"

ST_FRAME unsigned long st_mx_leaf (unsigned long n);

unsigned long
st_mx_leaf (unsigned long n)
{
  return st_spin (n);
}
