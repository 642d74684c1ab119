/* The perf ring buffers a live recorder hands over (Sysprof 48's
   --perf-fd=FD:CPU), turned into a perf.data stream (pipe mode) that
   the ordinary perf reader, pipeline and writers take as input.

   At _new every ring is mapped (1 + 2^n pages, the largest the kernel
   grants within ST_RING_SOURCE_PAGES and ST_RING_SOURCE_BUDGET) and
   each fd's sample id asked (PERF_EVENT_IOC_ID); the stream's header and HEADER_ATTR (the layout
   of sysprof-layout.h) are written, held in memory together with
   whatever the owner adds before _start (the processes that exist).

   _start runs a thread that, every pass, reads every ring up to its
   head (perf-ring.h: records copied out, the room handed back at once),
   checks each record against the layout (what does not fit is counted,
   named and left out), queues the records and then FINISHED_ROUND for
   the stream (an in-process queue, record-queue.h, it never blocks on;
   it reads no more while the queue holds 256 MiB the reader has not
   taken), so
   that the reader's reorder window merges the CPUs in time order under
   the same rules as `perf record -o -`.  It waits for the next pass in
   poll() on the rings, the stop eventfd and a short timer.  When the
   eventfd (or STOPPING) says stop, it reads every ring once more to its
   head and closes the stream: the reader sees its end.  The kernel's
   LOST records pass through (the writer makes them LOG frames) and are
   summed in the counts.  The thread blocks no signals' delivery to the
   main thread (it blocks all of them itself).  */
#ifndef ST_RING_SOURCE_H
#define ST_RING_SOURCE_H

#include <glib.h>
#include <stdint.h>
#include <sys/types.h>

#include "format/perf-writer.h"

/* Data pages per ring at most (4 MiB with 4 KiB pages: a quarter second
   of Sysprof's 1 kHz of 16 KiB stacks), and all rings together at most
   ST_RING_SOURCE_BUDGET bytes: the rings must ride out the times the
   reader thread does not get a CPU (a loaded machine); the main
   thread's bursts of work are the queue's (it reads the rings on a
   thread of its own).  The kernel allocates and clears every page at
   the mapping, and frees them at the end: 8 MiB rings cost the live
   unwinder some 12 ms of a 3 s Sysprof session's 0.16 s of CPU.  */
#define ST_RING_SOURCE_PAGES 1024
#define ST_RING_SOURCE_BUDGET (64u << 20)
/* The timer between passes when poll() reports nothing.  */
#define ST_RING_SOURCE_POLL_MS 10
/* Passes start at least this far apart (but at once at the stop).  */
#define ST_RING_SOURCE_MIN_PASS_MS 20

typedef struct StRingSource StRingSource;

typedef struct
{
  int fd;
  int cpu;
} StRingFd;

typedef struct
{
  uint64_t passes;
  uint64_t records;            /* read from the rings */
  uint64_t samples;
  uint64_t stack_bytes;        /* the samples' bytes as read ... */
  uint64_t stack_bytes_kept;   /* ... and with their stack copies cut */
  uint64_t lost_records;       /* the kernel's LOST records */
  uint64_t lost_events;        /* the events they say were lost */
  uint64_t misfits;            /* records that do not fit the layout */
  uint64_t ring_problems;      /* passes given up (perf-ring.h) */
  uint64_t dropped_bytes;
  uint32_t ring_pages;         /* data pages per ring */
  uint64_t queue_peak;         /* bytes read and waiting for the reader */
  uint64_t late_scans;         /* processes found through a sample */
  uint64_t late_maps;          /* ... and their mappings */
  uint64_t late_replaced;      /* ... of them not what the walk saw in
                                  their pid (another process, an exec) */
  uint64_t stop_dropped;       /* samples past the stop's budget (also in
                                  lost_records/lost_events: one LOST
                                  record) */
} StRingSourceCounts;

/* Takes no ownership of the fds.  STACK_SIZE is --stack-size.  */
StRingSource *st_ring_source_new (const StRingFd *fds, guint n_fds,
                                  int event_fd, uint32_t stack_size,
                                  GError **error);
/* The same for rings whose events were opened with ATTR (a layout
   sysprof-layout.h accepts: Sysprof's, or with PERIOD too, as
   stacktrace --record opens them), of PAGES data pages each (a power
   of two; 0: the bounds above).  A ring the kernel refuses at that size
   is tried at half, down to 8 pages.  */
StRingSource *st_ring_source_new_full (const StRingFd *fds, guint n_fds,
                                       int event_fd,
                                       const StPerfEventAttr *attr,
                                       guint pages, GError **error);
void st_ring_source_free (StRingSource *s);

/* Before _start: the stream's writer (records added now come right
   after the attribute) and the sample id to put in their trailers.  */
StPerfWriter *st_ring_source_writer (StRingSource *s);
uint64_t st_ring_source_id (const StRingSource *s);
/* Before _start: the pids whose mappings the stream has, for the walk
   of /proc to fill (st_proc_scan's PIDS: pid -> start time).  From
   _start on, the thread keeps it (a FORK or the main thread's COMM, an
   exec, adds a pid; a process's EXIT removes it).  Between the walk and
   the enabling of the events the kernel reports nothing, so a sample,
   MMAP or thread's COMM of a pid not in it (a process started in
   between: ld.so's MMAPs may come after the enabling, its exec not), or
   of a pid of the walk whose identity has changed (the process ended
   in between and another took its pid, or it exec'd), makes the thread read that
   process's /proc/PID once (proc-scan.h: st_proc_scan_one) and put its
   COMM and mappings (after an EXIT of the old one) before that record.  */
GHashTable *st_ring_source_known_pids (StRingSource *s);

/* CLOCK_MONOTONIC (the events' clock) in ns, taken before the first
   ring was mapped: every record the rings give is newer.  The time for
   what the owner writes before _start (the walk of /proc): timed later,
   it would come after records of the same processes in time order --
   a sample of a process the walk describes, taken between the mapping
   and then, would be unwound without the walk's mappings.  */
int64_t st_ring_source_opened_at (const StRingSource *s);

/* Before _start: the timer between passes, ST_RING_SOURCE_POLL_MS by
   default.  A longer one costs less CPU per second (every pass wakes
   both threads) where rings that hold longer allow it.  */
void st_ring_source_set_poll_ms (StRingSource *s, int ms);

/* The stop's budget: once MS milliseconds have passed since the thread
   saw the stop, the reader is handed no more samples, only the other
   records (the processes' mappings and ends); those samples are counted
   and, at the end of the stream, one LOST record says how many (the
   writers make it what they make the kernel's: a LOST record, a LOG
   frame).  So a reader that fell behind (a loaded machine: up to the
   queue's 256 MiB) does not hold the stop for seconds.  0 (the
   default): every sample is handed out.  Before _start, or from the
   reader's thread.  */
void st_ring_source_set_stop_budget (StRingSource *s, int ms);

/* Starts the thread.  Returns the fd to poll for the stream (owned by
   the source: a pipe's read end, readable while st_ring_source_read
   would not wait), or -1 with ERROR set.  STOPPING (may be NULL) is
   asked every pass from the thread: TRUE ends the run as the eventfd
   does.  */
int st_ring_source_start (StRingSource *s, gboolean (*stopping) (void),
                          GError **error);
/* The stream, read as read(2) reads a pipe (an StInputReadFunc; SOURCE
   is the StRingSource): waits for data, 0 at its end.  */
ssize_t st_ring_source_read (void *source, void *buf, size_t len);

/* Ends the thread if it still runs (the stream's reader is gone: what
   is left in the rings is not read) and waits for it.  Idempotent.  */
void st_ring_source_stop (StRingSource *s);

/* After _stop: what happened; the first misfit or ring problem, named
   with its CPU (NULL if none).  */
void st_ring_source_counts (const StRingSource *s, StRingSourceCounts *c);
const char *st_ring_source_first_problem (const StRingSource *s);

#endif /* ST_RING_SOURCE_H */
