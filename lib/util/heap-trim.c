/* Heap trimming: glibc's malloc_trim, which releases free pages in the
   middle of the arenas too (madvise), not only the heap's top.  */
#include "config.h"

/* (A C library header first: it is what defines __GLIBC__.  Without it
   this file compiled to nothing and no heap was ever trimmed.)  */
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "util/heap-trim.h"

void
st_heap_trim (void)
{
#ifdef __GLIBC__
  malloc_trim (0);
#endif
}
