/* The C library's free heap memory given back to the system.  A long
   live session frees as much as it allocates (rule tables cooled,
   processes forgotten, records out of the reordering window), but glibc
   keeps the free pages of its arenas resident unless they are at the
   top of the heap: 22 of the 60 MB a 9-minute live soak held were free
   chunks.  */
#ifndef ST_HEAP_TRIM_H
#define ST_HEAP_TRIM_H

/* Gives back the whole free pages of every arena (glibc's malloc_trim;
   nothing elsewhere).  Costs a walk of the free chunks: call it when
   idle, not per event.  */
void st_heap_trim (void);

#endif /* ST_HEAP_TRIM_H */
