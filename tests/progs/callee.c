/* The shared-library half of uses-lib: st_lib_outer -> st_lib_inner
   -> st_lib_leaf.  */
#include "callee.h"
#include "st-work.h"

volatile unsigned long st_lib_sink;

ST_FRAME unsigned long
st_lib_leaf (unsigned long n)
{
  return st_spin (n);
}

ST_FRAME unsigned long
st_lib_inner (unsigned long n)
{
  unsigned long r = st_lib_leaf (n);

  st_lib_sink = r;
  return r + 1;
}

/* Called through the PLT in a tight loop by plt-calls.  */
ST_FRAME unsigned long
st_lib_tiny (unsigned long x)
{
  return x * 3 + 1;
}

ST_FRAME unsigned long
st_lib_outer (unsigned long n)
{
  unsigned long r = st_lib_inner (n);

  st_lib_sink = r;
  return r + 1;
}
