/* Per-thread stitching: what each thread's stack was last seen to hold,
   and the completion of chains cut by the end of their stack copy.

   The knowledge of a thread is a set of frames keyed by stack address
   (each frame's stack pointer, the CFA of its callee), learnt from every
   unwound chain: the most recent chain wins where it reaches, the frames
   below its leaf's stack pointer are dropped (the thread has left them),
   the frames above its outermost frame stay.  Each frame records whether
   its caller is the next frame up (the chain that taught it went on) and
   whether it is the root, and the first words of its stack memory.

   A cut chain borrows the callers of its outermost frame when the
   knowledge holds a frame with the same PC at the same stack address,
   the frames from there up are linked to a root, and what both have in
   common agrees: the remembered words of the joined frame and of the
   frames below it known with the same PC at the same place, compared
   with the sample's copy where either holds a code address (a return
   address or function pointer of another call path; locals that differ
   only tell activations of the same path apart).

   Bounded: at most MAX_THREADS threads and MAX_FRAMES frames in all (the
   memory of the waiting chains counted as frames), the least recently
   used threads evicted; ST_STITCH_THREAD_FRAMES per thread.  */
#ifndef ST_STITCHER_H
#define ST_STITCHER_H

#include <glib.h>
#include <stdint.h>

#include "model/address-space.h"

typedef struct StStitcher StStitcher;

/* The user stack copy of a sample: SIZE bytes from address SP.  */
typedef struct
{
  uint64_t sp;
  const uint8_t *bytes;
  uint64_t size;
} StStackCopy;

/* What st_stitcher_stitch did.  */
typedef enum
{
  ST_STITCH_DONE,       /* the chain now ends at the thread's root */
  ST_STITCH_UNKNOWN,    /* nothing known at the chain's outermost frame */
  ST_STITCH_UNROOTED,   /* known, but not linked up to a root */
  ST_STITCH_REFUSED,    /* known, but the frames or words below differ */
  ST_STITCH_TOO_DEEP,   /* the borrowed frames would not fit */
} StStitchOutcome;

/* Per thread: more frames than a chain can have (ST_UNWIND_MAX_FRAMES),
   for the frames kept above a shorter chain.  */
#define ST_STITCH_THREAD_FRAMES 512

StStitcher *st_stitcher_new (guint max_threads, guint max_frames);
void st_stitcher_free (StStitcher *s);

/* Learns chain (IPS, SPS, N) of a sample of thread TID (leaf first; SPS
   each frame's stack pointer, ascending; give only the frames whose
   stack pointer is known: an unknown one (0) at either end makes the
   frames from the first such not learnt).  ROOTED: its outermost frame is the root.
   EXEC_COUNT tells apart the images of a process (knowledge never
   outlives an exec).  COPY: the sample's stack copy, or NULL.  */
void st_stitcher_learn (StStitcher *s, int32_t pid, int32_t tid,
                        uint32_t exec_count, const StStackCopy *copy,
                        const uint64_t *ips, const uint64_t *sps,
                        uint32_t n, gboolean rooted);

/* Chains whose arrays st_stitcher_learn_lent may keep.  */
#define ST_STITCH_LENT_CHAINS 3

/* The same, but IPS and SPS stay the caller's: they must not change
   until ST_STITCH_LENT_CHAINS more calls of st_stitcher_learn_lent
   have returned or another function is called on S (so that the
   chains later ones replace need not be copied).  */
void st_stitcher_learn_lent (StStitcher *s, int32_t pid, int32_t tid,
                             uint32_t exec_count, const StStackCopy *copy,
                             const uint64_t *ips, const uint64_t *sps,
                             uint32_t n, gboolean rooted);

/* Appends to the cut chain (IPS, SPS, *N) the known callers of its
   outermost frame, up to the root, if all of them fit in MAX frames.
   MAPS: the process's mappings, to tell code addresses (NULL: every word
   must agree).  */
StStitchOutcome st_stitcher_stitch (StStitcher *s, int32_t pid, int32_t tid,
                                    uint32_t exec_count,
                                    const StStackCopy *copy,
                                    const StAddressSpace *maps,
                                    uint64_t *ips, uint64_t *sps,
                                    uint32_t *n, uint32_t max);

void st_stitcher_forget_thread (StStitcher *s, int32_t tid);
/* Threads known, and frames held in all (complete chains waiting to be
   learnt count by the room they take).  */
guint st_stitcher_size (const StStitcher *s);
guint st_stitcher_frames (const StStitcher *s);

#endif /* ST_STITCHER_H */
