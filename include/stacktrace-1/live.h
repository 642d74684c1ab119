/* stacktrace-1, the live level: a recording made now, from perf
   events, unwound as it comes.  Part of <stacktrace-1/stacktrace.h>.

   A StLiveSource reads the perf ring buffers of per-CPU events (handed
   over by a recorder such as Sysprof 48, which opened them, or opened
   by the library through StLiveEvents, as `perf record
   --call-graph=dwarf` would) and turns them into a perf.data stream
   (pipe mode) that a StStream reads through st_stream_set_input_pull:

       StLiveSource *src = st_live_source_new ();
       int poll_fd;
       if (st_live_source_open (src, rings, n_rings, stop_fd, 8192) != ST_OK
           || st_live_source_scan_all (src) != ST_OK
           || st_live_source_start (src, NULL, &poll_fd) != ST_OK)
         fprintf (stderr, "%s\n", st_live_source_error (src));
       st_stream_set_input_pull (stream, poll_fd, st_live_source_read, src,
                                 ST_FILE_FORMAT_PERF);
       ... st_stream_run (stream) ...
       st_live_source_stop (src);
       st_live_source_free (src);

   Before st_live_source_start, the source is told about the processes
   that exist (the kernel reports only what happens later): the walk of
   /proc (st_live_source_scan_all) or of chosen processes.  A StLivePacer
   sits between a StStream's capture output and a recorder's pipe that
   must get one frame per write (Sysprof 48's reader).

   Threads: the source and the pacer each run a thread of their own,
   which blocks every signal.  Their owner uses them from one thread,
   except st_live_source_read (the stream's reading thread) and
   st_live_pacer_reader_gone (any thread).  */
#if !defined(STACKTRACE_1_INSIDE) && !defined(STACKTRACE_1_COMPILATION)
#error "Only <stacktrace-1/stacktrace.h> can be included directly."
#endif

#ifndef STACKTRACE_1_LIVE_H
#define STACKTRACE_1_LIVE_H

#include <sys/types.h>

#include <stacktrace-1/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest user stack copy the kernel makes per sample, in bytes.  */
#define ST_LIVE_STACK_SIZE_MAX 65528
/* perf record's defaults: samples per second, bytes of stack.  */
#define ST_LIVE_DEFAULT_FREQ 999
#define ST_LIVE_DEFAULT_STACK_SIZE 8192
/* All rings of a source together take at most this many bytes.  */
#define ST_LIVE_RING_BUDGET (64u << 20)
/* After a recorder's stop, how long (ms) a pacer waits for a reader
   that takes nothing before it gives the rest of the capture up.  */
#define ST_LIVE_PACER_STOP_GRACE_MS 50
/* The stop's budget a live unwinder gives itself
   (st_live_source_set_stop_budget): what it unwinds after a recorder's
   stop, so that it ends within a few hundred ms of it even when far
   behind.  */
#define ST_LIVE_STOP_BUDGET_MS 150

/* One perf event's ring: its fd (not closed by the library) and its
   CPU.  */
typedef struct
{
  int fd;
  int cpu;
} StLiveRing;

/* ---- Events the library opens ---- */

typedef struct StLiveEvents StLiveEvents;

/* What to sample.  EVENT: "cpu-clock" (NULL), "task-clock", "cycles",
   "instructions"; FREQ samples per second, or (FREQ 0) one sample
   every PERIOD events; STACK_SIZE bytes of user stack per sample (a
   multiple of 8, at most ST_LIVE_STACK_SIZE_MAX); INHERIT: children
   are followed; ENABLE_ON_EXEC: the events start at the exec of the
   process they follow (a command the caller starts).  */
typedef struct
{
  const char *event;
  uint64_t freq;
  uint64_t period;
  uint32_t stack_size;
  int inherit;
  int enable_on_exec;
  uint64_t reserved[4];
} StLiveEventSpec;

/* What st_live_events_open gave up because the kernel refused it:  */
#define ST_LIVE_FALLBACK_BUILD_ID 0x1u  /* build-ids in MMAP2 (< 5.12) */
#define ST_LIVE_FALLBACK_KERNEL   0x2u  /* the kernel's side (paranoid) */

ST_PUBLIC StLiveEvents *st_live_events_new (void);
ST_PUBLIC void st_live_events_free (StLiveEvents *events);
/* The events' settings: ST_E_INVALID for an unknown event name.  */
ST_PUBLIC int st_live_events_set_spec (StLiveEvents *events,
                                       const StLiveEventSpec *spec);
/* Opens one event (perf_event_open, close-on-exec) for PID (-1: every
   process) on CPU into *FD.  Where the kernel refuses a part perf would
   drop too, it is dropped for this event and the later ones (see
   st_live_events_fallbacks).  ST_E_IO (not allowed, no such process,
   too many files...) or ST_E_UNSUPPORTED (no such event on this
   machine, no perf_event_open), with a message saying what to change.  */
ST_PUBLIC int st_live_events_open (StLiveEvents *events, int pid, int cpu,
                                   int *fd);
/* The ST_LIVE_FALLBACK_* bits given up so far.  */
ST_PUBLIC unsigned st_live_events_fallbacks (const StLiveEvents *events);
/* Samples per second: the frequency, or for a clock event the period
   turned into a rate; 0 when unknown (a hardware event's period).  */
ST_PUBLIC uint64_t st_live_events_rate (const StLiveEvents *events);
/* The last error's message ("" if none).  */
ST_PUBLIC const char *st_live_events_error (const StLiveEvents *events);

/* The online CPUs: up to MAX of them in CPUS (may be NULL with MAX 0),
   their number in *N (may be more than MAX: call again).  ST_E_IO when
   they cannot be read (the message in st_live_events_error).  */
ST_PUBLIC int st_live_events_online_cpus (StLiveEvents *events, int *cpus,
                                          size_t max, size_t *n);

/* Data pages per ring (a power of two, 8 to 2048) that hold half a
   second of samples at RATE per second of STACK_SIZE bytes of stack;
   0 for RATE 0 (the source's default).  */
ST_PUBLIC unsigned st_live_ring_pages (uint64_t rate, uint32_t stack_size,
                                       long page_size);

/* ---- The source ---- */

typedef struct StLiveSource StLiveSource;

/* What a source did, after st_live_source_stop.  */
typedef struct
{
  uint64_t passes;
  uint64_t records;            /* read from the rings */
  uint64_t samples;
  uint64_t stack_bytes;        /* the samples' stack bytes as read ... */
  uint64_t stack_bytes_kept;   /* ... and cut to their filled part */
  uint64_t lost_records;       /* the kernel's LOST records */
  uint64_t lost_events;        /* the events they say were lost */
  uint64_t misfits;            /* records that did not fit the layout */
  uint64_t ring_problems;      /* passes given up */
  uint64_t dropped_bytes;
  uint64_t queue_peak;         /* bytes read and waiting for the reader */
  uint64_t late_scans;         /* processes read from /proc at their
                                  first sample (started before the
                                  events were enabled) ... */
  uint64_t late_maps;          /* ... their mappings ... */
  uint64_t late_replaced;      /* ... of them not the process the start
                                  saw in their pid */
  uint32_t ring_pages;         /* data pages per ring */
  uint32_t scan_processes;     /* the walk of /proc at the start */
  uint32_t scan_maps;
  uint32_t scan_mount_files;
  uint64_t stop_dropped;       /* samples past the stop's budget (one
                                  LOST record, counted in lost_records
                                  and lost_events too) */
  uint64_t reserved[7];
} StLiveCounts;

/* Asked by the source's thread every pass: nonzero ends the run as the
   stop fd does.  */
typedef int (*StLiveStopFunc) (void);

ST_PUBLIC StLiveSource *st_live_source_new (void);
/* Stops the source if it runs.  */
ST_PUBLIC void st_live_source_free (StLiveSource *source);

/* Maps the N_RINGS rings (events opened by a recorder with Sysprof's
   layout and STACK_SIZE bytes of stack).  STOP_FD: an eventfd that,
   readable, ends the run (-1: none).  The fds are not taken.  ST_E_IO
   or ST_E_FORMAT (an event of another layout).  Once only.  */
ST_PUBLIC int st_live_source_open (StLiveSource *source,
                                   const StLiveRing *rings, size_t n_rings,
                                   int stop_fd, uint32_t stack_size);
/* The same for rings of events opened by EVENTS, of PAGES data pages
   each (a power of two; 0: the largest within ST_LIVE_RING_BUDGET; a
   size the kernel refuses is halved down to 8 pages).  */
ST_PUBLIC int st_live_source_open_events (StLiveSource *source,
                                          const StLiveRing *rings,
                                          size_t n_rings, int stop_fd,
                                          const StLiveEvents *events,
                                          unsigned pages);

/* After _open, before _start: the processes that exist.  _scan_all
   walks /proc: every process's name and mappings, and the mount tables
   a capture's reader resolves paths with (st_live_source_mounts).
   _scan_process: process PID only (ST_E_IO when it is gone).
   _name_threads: a name for each thread of every process scanned (the
   main thread too with WITH_MAIN: perf.data output), as perf names
   them.  */
ST_PUBLIC int st_live_source_scan_all (StLiveSource *source);
ST_PUBLIC int st_live_source_scan_process (StLiveSource *source, int pid);
ST_PUBLIC int st_live_source_name_threads (StLiveSource *source,
                                           int with_main);
/* The mount tables of _scan_all as capture FILE_CHUNK frames (for
   st_stream_add_output_frames), *LEN bytes; NULL with 0 if none.  Valid
   until the source is freed.  */
ST_PUBLIC const void *st_live_source_mounts (const StLiveSource *source,
                                             size_t *len);

/* Before _start: the timer between passes when the rings are quiet
   (10 ms by default).  */
ST_PUBLIC int st_live_source_set_poll_ms (StLiveSource *source, int ms);

/* Before _start, or from the thread that reads the stream: the stop's
   budget.  Once MS milliseconds have passed since the source's thread
   saw the stop (the stop fd, STOPPING), st_live_source_read hands out
   no more samples, only the other records; the samples are counted
   (StLiveCounts.stop_dropped) and one LOST record at the stream's end
   says how many.  A reader far behind (a loaded machine) then ends
   within about MS of the stop.  0 (the default): every sample.  */
ST_PUBLIC int st_live_source_set_stop_budget (StLiveSource *source, int ms);

/* Starts the thread; *POLL_FD (owned by the source) is readable
   whenever st_live_source_read would not wait.  STOPPING may be NULL.  */
ST_PUBLIC int st_live_source_start (StLiveSource *source,
                                    StLiveStopFunc stopping, int *poll_fd);
/* The stream, read as read(2) reads a pipe (a StReadFunc; SOURCE is the
   StLiveSource): waits for data, 0 at its end.  */
ST_PUBLIC ssize_t st_live_source_read (void *source, void *buf, size_t len);
/* Ends the thread if it still runs and waits for it.  Idempotent.  */
ST_PUBLIC void st_live_source_stop (StLiveSource *source);

/* The counts (final after _stop); ST_E_INVALID before _open.  */
ST_PUBLIC int st_live_source_get_counts (const StLiveSource *source,
                                         StLiveCounts *counts);
/* The first record that did not fit or ring pass given up, named with
   its CPU; NULL if none.  */
ST_PUBLIC const char *st_live_source_first_problem (const StLiveSource *source);
/* The last error's message ("" if none).  */
ST_PUBLIC const char *st_live_source_error (const StLiveSource *source);

/* ---- The capture pacer ---- */

typedef struct StLivePacer StLivePacer;

/* How the pacer writes: as it comes (a file, a socket), one frame per
   packet (a pipe in packet mode), or polled (a pipe: each write waits
   until the reader took the last).  */
typedef enum
{
  ST_LIVE_PACER_UNPACED = 0,
  ST_LIVE_PACER_PACKETS = 1,
  ST_LIVE_PACER_POLLED = 2,
} StLivePacerMode;

typedef struct
{
  StLivePacerMode mode;
  uint64_t frames;             /* whole frames copied */
  uint64_t writes;             /* write() calls */
  uint64_t waits_given_up;     /* writes not taken within the limit */
  uint64_t bulk_writes;        /* writes of several frames */
  uint64_t backlog_max;        /* frames the reader held, at most (est.) */
  uint64_t backlog_end;        /* ... at the end (est.) */
  uint64_t abandoned_bytes;    /* not taken within the stop's grace */
  uint64_t reserved[8];
} StLivePacerCounts;

ST_PUBLIC StLivePacer *st_live_pacer_new (void);
/* Finishes the pacer if it runs.  */
ST_PUBLIC void st_live_pacer_free (StLivePacer *pacer);
/* Starts the thread copying what is written to its input fd to
   CAPTURE_FD one frame per write.  STOP_FD: the recorder's stop eventfd
   (only polled), or -1.  The fds are not taken.  The thread inherits
   the caller's timer slack.  ST_E_IO.  */
ST_PUBLIC int st_live_pacer_start (StLivePacer *pacer, int capture_fd,
                                   int stop_fd);
/* Where the capture stream is written (a StStream's output fd); -1
   before _start.  */
ST_PUBLIC int st_live_pacer_input_fd (const StLivePacer *pacer);
/* Closes the input fd and waits for the thread to write what is left;
   the counts are final after it.  */
ST_PUBLIC void st_live_pacer_finish (StLivePacer *pacer);
ST_PUBLIC int st_live_pacer_get_counts (const StLivePacer *pacer,
                                        StLivePacerCounts *counts);
/* Nonzero when CAPTURE_FD's reader went away.  */
ST_PUBLIC int st_live_pacer_reader_gone (const StLivePacer *pacer);
/* "packets", "polled", "unpaced".  */
ST_PUBLIC const char *st_live_pacer_mode_name (StLivePacerMode mode);
/* The last error's message ("" if none).  */
ST_PUBLIC const char *st_live_pacer_error (const StLivePacer *pacer);

#ifdef __cplusplus
}
#endif

#endif /* STACKTRACE_1_LIVE_H */
