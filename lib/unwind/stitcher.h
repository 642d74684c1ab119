/* Per-thread stitching: a sample whose stack copy ended before the root
   borrows the callers from the thread's last complete chain, joined at a
   frame with the same PC and the same stack pointer (the same activation
   still on the stack).  */
#ifndef ST_STITCHER_H
#define ST_STITCHER_H

#include <glib.h>
#include <stdint.h>

typedef struct StStitcher StStitcher;

/* At most MAX_THREADS chains are kept, least recently used evicted.  */
StStitcher *st_stitcher_new (guint max_threads);
void st_stitcher_free (StStitcher *s);

/* Remembers a chain that reached the root.  EXEC_COUNT tells apart the
   images of a process (a chain never outlives an exec).  SPS: each
   frame's stack pointer.  */
void st_stitcher_remember (StStitcher *s, int32_t pid, int32_t tid,
                           uint32_t exec_count, const uint64_t *ips,
                           const uint64_t *sps, uint32_t n);

/* Appends to the truncated chain (IPS, SPS, *N) the cached frames beyond
   the one matching its last frame, up to MAX frames.  Returns the number
   of frames appended (0: no match).  */
uint32_t st_stitcher_stitch (StStitcher *s, int32_t pid, int32_t tid,
                             uint32_t exec_count, uint64_t *ips,
                             uint64_t *sps, uint32_t *n, uint32_t max);

void st_stitcher_forget_thread (StStitcher *s, int32_t tid);
guint st_stitcher_size (const StStitcher *s);

#endif /* ST_STITCHER_H */
