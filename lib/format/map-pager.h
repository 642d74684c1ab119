/* The page tables of a mapped input filled ahead of its reader, and its
   pages given back behind it, on a thread of their own (input.c, when
   the caller has threads to spare: st_input_page_on_thread).  On the
   reader's thread, at --jobs 2 on a 6.3 GB recording, the kernel had a
   quarter of its time, most of it in these calls (MADV_POPULATE_READ
   of 4 MiB, MADV_DONTNEED of 8 MiB: 0.1 to 0.5 ms each), time in which
   the workers ran out of samples.  The thread runs at SCHED_IDLE.  Here
   the reader only asks: a page not filled yet when it is read is
   faulted in as without the pager; it waits only while the pages asked
   to be given back lag more than 16 MiB behind, so that what stays
   resident is bounded whatever the machine's load.

   Threads: every function from the reader's thread.  */
#ifndef ST_MAP_PAGER_H
#define ST_MAP_PAGER_H

#include <glib.h>
#include <stdint.h>

typedef struct StMapPager StMapPager;

/* A pager of MAP (LEN bytes, not owned: it outlives the pager), whose
   page tables are filled below POPULATED and whose pages below RELEASED
   are given back already.  NULL when the thread cannot be started.  */
StMapPager *st_map_pager_new (uint8_t *map, size_t len, uint64_t populated,
                              uint64_t released);
/* Ends the thread (its current system call first).  */
void st_map_pager_free (StMapPager *p);

/* Asks for the page tables filled up to offset UPTO.  */
void st_map_pager_populate (StMapPager *p, uint64_t upto);
/* Asks for the pages below OFFSET (page-aligned) given back; waits
   while more than 16 MiB asked for are not yet.  */
void st_map_pager_release (StMapPager *p, uint64_t offset);
/* Whether filling the page tables failed past the file's end (EFAULT:
   the file shrank since it was mapped).  */
gboolean st_map_pager_met_end (StMapPager *p);

#endif /* ST_MAP_PAGER_H */
