/* The page tables of a mapped input filled ahead of its reader, and its
   pages given back behind it, on a thread of their own (input.c, when
   the caller has threads to spare: st_input_page_on_thread).  On the
   reader's thread, at --jobs 2 on a 6.3 GB recording, the kernel had a
   quarter of its time, most of it in these calls (MADV_POPULATE_READ
   of 4 MiB, MADV_DONTNEED of 8 MiB: 0.1 to 0.5 ms each), time in which
   the workers ran out of samples.  The thread runs at SCHED_IDLE, so
   that it takes only a processor nobody else wants; the reader does
   what the thread is late for itself (a range it needs now filled,
   pages given back past a lag of 16 MiB), so it never waits for the
   thread, and what stays resident is bounded whatever the load.

   Threads: every function from the reader's thread.  */
#ifndef ST_MAP_PAGER_H
#define ST_MAP_PAGER_H

#include <glib.h>
#include <stdint.h>
#include <sys/mman.h>

/* Linux 5.14's advice, for older headers (input.c fills page tables
   with it too, without a pager).  */
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

typedef struct StMapPager StMapPager;

/* A pager of MAP (LEN bytes, not owned: it outlives the pager), whose
   page tables are filled below POPULATED and whose pages below RELEASED
   are given back already.  NULL when the thread cannot be started.  */
StMapPager *st_map_pager_new (uint8_t *map, size_t len, uint64_t populated,
                              uint64_t released);
/* Ends the thread (its current system call first).  */
void st_map_pager_free (StMapPager *p);

/* The page tables are needed up to offset UPTO now (filled here if the
   thread has not yet), and are asked for up to UPTO + AHEAD.  */
void st_map_pager_populate (StMapPager *p, uint64_t upto, uint64_t ahead);
/* Asks for the pages below OFFSET (page-aligned) given back (here, when
   more than 16 MiB asked for are not yet).  */
void st_map_pager_release (StMapPager *p, uint64_t offset);
/* Tests: HELD, the thread does nothing (as if it never got a
   processor) until released.  */
void st_map_pager_set_held (StMapPager *p, gboolean held);
/* Whether filling the page tables failed past the file's end (EFAULT:
   the file shrank since it was mapped).  */
gboolean st_map_pager_met_end (StMapPager *p);

#endif /* ST_MAP_PAGER_H */
