/* stacktrace-1, level 1: a whole recording converted, as the stacktrace
   command does.  Part of <stacktrace-1/stacktrace.h>.

       StStream *s = st_stream_new ();
       st_stream_set_input_path (s, "perf.data", ST_FILE_FORMAT_AUTO);
       st_stream_set_output_path (s, "unwound.data", ST_FILE_FORMAT_PERF);
       if (st_stream_run (s) != ST_OK)
         fprintf (stderr, "%s\n", st_stream_error (s));
       st_stream_free (s);

   Settings are made before st_stream_run (ST_E_INVALID after).  The
   input is read forward only (a pipe, a FIFO or a file); the output
   holds whole frames or records only, also after an error or a cancel.

   Threads: one thread makes the stream, sets it, runs it and frees it.
   While st_stream_run runs, any other thread may call st_stream_cancel
   and st_stream_get_counters (and only those).  Message functions are
   called on the running thread.  */
#if !defined(STACKTRACE_1_INSIDE) && !defined(STACKTRACE_1_COMPILATION)
#error "Only <stacktrace-1/stacktrace.h> can be included directly."
#endif

#ifndef STACKTRACE_1_STREAM_H
#define STACKTRACE_1_STREAM_H

#include <stacktrace-1/common.h>
#include <stacktrace-1/counters.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct StStream StStream;

/* When module files are read and indexed: inline when first needed;
   on worker threads, samples unwound as they come (drop) or held until
   their modules are ready (defer).  */
typedef enum
{
  ST_PRIME_INLINE = 0,
  ST_PRIME_DROP = 1,
  ST_PRIME_DEFER = 2,
} StPrimePolicy;

typedef enum
{
  ST_MESSAGE_DAMAGE = 0,     /* damaged input: what was done about it */
  ST_MESSAGE_WARNING = 1,    /* the run went on, differently than asked */
  ST_MESSAGE_DEBUG = 2,      /* per-sample diagnostics (st_stream_set_debug) */
} StMessageKind;

/* MESSAGE: one line without a newline, valid during the call.  */
typedef void (*StMessageFunc) (StMessageKind kind, const char *message,
                               void *user_data);

ST_PUBLIC StStream *st_stream_new (void);
ST_PUBLIC void st_stream_free (StStream *stream);

/* The input: FD (not closed by the stream) or PATH.  */
ST_PUBLIC int st_stream_set_input_fd (StStream *stream, int fd,
                                      StFileFormat format);
ST_PUBLIC int st_stream_set_input_path (StStream *stream, const char *path,
                                        StFileFormat format);
/* The output (FORMAT: CAPTURE or PERF); without one, the input is only
   read and unwound (counters, chains).  */
ST_PUBLIC int st_stream_set_output_fd (StStream *stream, int fd,
                                       StFileFormat format);
ST_PUBLIC int st_stream_set_output_path (StStream *stream, const char *path,
                                         StFileFormat format);
/* UNWIND 0: raw stacks are copied as they are (a format conversion).  */
ST_PUBLIC int st_stream_set_unwind (StStream *stream, int unwind);
ST_PUBLIC int st_stream_set_engine (StStream *stream, StUnwindEngine engine);
/* Where the recorded files are looked for first (a copy of the recorded
   system's root), NULL: the root.  */
ST_PUBLIC int st_stream_set_symfs (StStream *stream, const char *dir);
/* An unpacked perf archive (DIR/.build-id/), and perf's own build-id
   cache (the command passes $PERF_BUILDID_DIR or ~/.debug); NULL:
   none.  */
ST_PUBLIC int st_stream_set_buildid_dirs (StStream *stream,
                                          const char *archive_dir,
                                          const char *perf_cache_dir);
/* Missing files fetched by build-id from the debuginfod servers URLS
   (the command passes $DEBUGINFOD_URLS; libdebuginfod reads its other
   variables itself); NULL or blank: off, the default.  */
ST_PUBLIC int st_stream_set_debuginfod (StStream *stream, const char *urls);
/* Per-thread stitching of stacks cut by the stack copy's end (on by
   default).  */
ST_PUBLIC int st_stream_set_stitching (StStream *stream, int stitch);
ST_PUBLIC int st_stream_set_priming (StStream *stream, StPrimePolicy policy);
/* Threads that unwind (1, the default: the calling thread only; 0: one
   per processor; at most 64).  The output is the same for any number.  */
ST_PUBLIC int st_stream_set_jobs (StStream *stream, int jobs);
/* Each unwound sample's chain as a text line, as the command's --chains
   (PID TID TIME ADDRS SYMBOLS, tab-separated), into PATH.  */
ST_PUBLIC int st_stream_set_chains_path (StStream *stream, const char *path);
ST_PUBLIC int st_stream_set_message_func (StStream *stream,
                                          StMessageFunc func,
                                          void *user_data);
ST_PUBLIC int st_stream_set_debug (StStream *stream, int debug);

/* Runs to the end of the input, a cancel, or an error: ST_OK,
   ST_E_CANCELLED (what was read until then is written), ST_E_IO,
   ST_E_FORMAT (st_stream_error says what).  Damaged input is not an
   error: it is reported (ST_MESSAGE_DAMAGE), counted (damaged) and
   skipped.  Once per stream.  */
ST_PUBLIC int st_stream_run (StStream *stream);

/* Asks st_stream_run to stop at the next whole frame (within the
   input's wait, about 100 ms, when it stalls).  Any thread; also from a
   signal handler.  */
ST_PUBLIC void st_stream_cancel (StStream *stream);

/* The counters: as of the last few thousand records while running (any
   thread), exact after st_stream_run.  */
ST_PUBLIC int st_stream_get_counters (StStream *stream, StCounters *out);

/* The last error's message ("" when none), valid until the next call on
   STREAM.  */
ST_PUBLIC const char *st_stream_error (const StStream *stream);

#ifdef __cplusplus
}
#endif

#endif /* STACKTRACE_1_STREAM_H */
