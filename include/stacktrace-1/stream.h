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
   and st_stream_get_counters (and only those).  Message, check and idle
   functions are called on the running thread (st_stream_get_statistics
   may be called from them).  */
#if !defined(STACKTRACE_1_INSIDE) && !defined(STACKTRACE_1_COMPILATION)
#error "Only <stacktrace-1/stacktrace.h> can be included directly."
#endif

#ifndef STACKTRACE_1_STREAM_H
#define STACKTRACE_1_STREAM_H

#include <sys/types.h>

#include <stacktrace-1/common.h>
#include <stacktrace-1/counters.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct StStream StStream;

/* When module files are read and indexed: inline when first needed;
   on worker threads, samples unwound as they come (drop) or held until
   their modules are ready (defer: the modules of a process the stream
   only describes, one that ran before the recording, are prepared at
   its first sample; those of a process begun in the stream as soon as
   it maps them).  */
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

/* The input: FD (not closed by the stream) or PATH.  A pipe's buffer is
   grown to 1 MiB when the system allows (F_SETPIPE_SZ): fewer, larger
   reads, and a writer that blocks less.  */
ST_PUBLIC int st_stream_set_input_fd (StStream *stream, int fd,
                                      StFileFormat format);
ST_PUBLIC int st_stream_set_input_path (StStream *stream, const char *path,
                                        StFileFormat format);
/* The input read through FUNC, as read(2) reads a pipe: FUNC waits for
   data, returns 0 at the end and -1 with errno set.  POLL_FD (not
   closed by the stream) is readable whenever FUNC would not wait: the
   stream waits on it in poll(), so that a cancel and the check function
   are seen while no data comes.  For a transport of the caller's own,
   such as a queue filled by another thread (the command's live modes
   read their perf rings so).  */
typedef ssize_t (*StReadFunc) (void *data, void *buf, size_t len);
ST_PUBLIC int st_stream_set_input_pull (StStream *stream, int poll_fd,
                                        StReadFunc func, void *data,
                                        StFileFormat format);
/* The output (FORMAT: CAPTURE, PERF, or AUTO: the input's); without
   one, the input is only read and unwound (counters, chains).  An
   output that is the input's regular file (the same inode) is refused
   (ST_E_INVALID from st_stream_run) before anything is written.  */
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
   per processor; at most ST_STREAM_MAX_JOBS).  The output is the same
   for any number.  */
#define ST_STREAM_MAX_JOBS 64
ST_PUBLIC int st_stream_set_jobs (StStream *stream, int jobs);
/* Each unwound sample's chain as a text line, as the command's --chains
   (PID TID TIME ADDRS SYMBOLS, tab-separated), into PATH.  */
ST_PUBLIC int st_stream_set_chains_path (StStream *stream, const char *path);
ST_PUBLIC int st_stream_set_message_func (StStream *stream,
                                          StMessageFunc func,
                                          void *user_data);
ST_PUBLIC int st_stream_set_debug (StStream *stream, int debug);

/* HOST_FILES 0: only the files under the symfs and the build-id
   directories are used, none of this machine's and no debuginfod (the
   command's --no-host-files); 1, the default: the host's too.  */
ST_PUBLIC int st_stream_set_host_files (StStream *stream, int host_files);
/* At most BYTES of each raw stack are used (0, the default: all).  */
ST_PUBLIC int st_stream_set_truncate_stack (StStream *stream,
                                            uint64_t bytes);
/* C++ and Rust names demangled in the chains and the call graph (on by
   default).  */
ST_PUBLIC int st_stream_set_demangle (StStream *stream, int demangle);
/* The unwinding counters written into an output whose format has
   counters (a capture), once per INTERVAL_MS of sample time (0: 1000);
   ENABLED 0: none.  On by default.  */
ST_PUBLIC int st_stream_set_counters (StStream *stream, int enabled,
                                      unsigned interval_ms);
/* With ST_PRIME_DEFER, the bytes of samples held while they wait for
   their modules (0: the library's default).  */
ST_PUBLIC int st_stream_set_priming_cap (StStream *stream, uint64_t bytes);

/* Called on the running thread after every frame or record and, while
   the input stalls, every INTERVAL_MS (0: 100): a profiler's own
   schedule (a statistics file, a signal's request).  Returns 0 to stop
   the run as a cancel does (ST_E_CANCELLED, StStreamOutcome.stopped),
   nonzero to go on; it is also asked while st_stream_open_input waits
   for the header.
   st_stream_get_statistics, st_stream_get_call_graph,
   st_stream_get_input_offset and st_stream_abandon_output may be
   called from it.  */
typedef int (*StCheckFunc) (void *user_data);
ST_PUBLIC int st_stream_set_check_func (StStream *stream, StCheckFunc func,
                                        void *user_data,
                                        unsigned interval_ms);
/* Called on the running thread when the stream is idle (the input
   stalls; at most once a second) and every some 100,000 records: the
   moment for process-wide housekeeping the library does not do itself,
   such as giving the C library's free heap back (malloc_trim).  */
typedef void (*StIdleFunc) (void *user_data);
ST_PUBLIC int st_stream_set_idle_func (StStream *stream, StIdleFunc func,
                                       void *user_data);
/* From the check function: the output's reader is gone for good;
   nothing held is unwound or written any more.  The check function
   should then return 0.  */
ST_PUBLIC int st_stream_abandon_output (StStream *stream);

/* The chains (st_stream_set_chains_path) into FD instead, a descriptor
   the caller opened (not closed by the stream).  */
ST_PUBLIC int st_stream_set_chains_fd (StStream *stream, int fd);

/* Frames put first into a capture output, before any of the input's
   (e.g. the mount tables of the recorded system, FILE_CHUNK frames):
   whole Sysprof capture frames, LEN bytes, copied.  ST_E_INVALID when
   they do not hold whole frames.  May be called more than once; the
   frames keep their order.  */
ST_PUBLIC int st_stream_add_output_frames (StStream *stream,
                                           const void *frames, size_t len);

/* Opens the input and reads its header now, before st_stream_run (which
   does it otherwise): its format is then known
   (st_stream_get_input_format), and an output format set to
   ST_FILE_FORMAT_AUTO becomes it.  A profiler that drops privileges
   after opening its files calls it before.  ST_E_CANCELLED when the
   check function or a cancel stopped the wait for the header; ST_E_IO,
   ST_E_FORMAT.  At most once.  */
ST_PUBLIC int st_stream_open_input (StStream *stream);
/* The input's format once known (ST_FILE_FORMAT_AUTO before).  */
ST_PUBLIC StFileFormat st_stream_get_input_format (const StStream *stream);
/* Bytes of input read so far: on the running thread (from the check or
   a message function) or after the run.  */
ST_PUBLIC uint64_t st_stream_get_input_offset (const StStream *stream);

/* How a run ended, after st_stream_run.  */
typedef struct
{
  int output_whole;        /* no write of the output failed (1 also
                              without an output) */
  int broken_pipe;         /* ... it failed because its reader went
                              away (EPIPE) */
  int abandoned;           /* st_stream_abandon_output was called */
  int stopped;             /* the check function or a cancel stopped it */
  int chains_whole;        /* the chains were written whole */
  int started;             /* the records were read: everything was
                              opened and the output's header written */
  int failed;              /* reading or writing the records failed
                              (st_stream_error says why) */
  int reserved_int;
  uint64_t input_bytes;    /* the input read */
  uint64_t reserved[7];
} StStreamOutcome;
ST_PUBLIC int st_stream_get_outcome (const StStream *stream,
                                     StStreamOutcome *out);

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

/* Statistics: a snapshot of everything a run counted -- the counters,
   the damaged input, priming, the module files and each process -- for
   a profiler's own report (the stacktrace command's statistics file
   and final summary are made of it).  Taken on the thread that runs
   the stream: during st_stream_run from a message function, or after
   it (the final figures).  The snapshot does not change; it may be
   read on any thread and is freed with st_statistics_free.  */
typedef struct StStatistics StStatistics;

/* What was done about a damaged place of the input.  */
typedef enum
{
  ST_DAMAGE_OUTCOME_PASSED = 0,   /* passed on unchanged */
  ST_DAMAGE_OUTCOME_DROPPED = 1,  /* the frame or record dropped */
  ST_DAMAGE_OUTCOME_SKIPPED = 2,  /* bytes skipped to the next valid one */
  ST_DAMAGE_OUTCOME_CUT_OFF = 3,  /* the input ended there */
  ST_DAMAGE_OUTCOMES = 8          /* room in StDamageCounters */
} StDamageOutcome;

typedef struct
{
  uint64_t places;                /* damaged places, all outcomes */
  uint64_t first_offset;          /* input offset of the first */
  uint64_t count[ST_DAMAGE_OUTCOMES];
  uint64_t bytes[ST_DAMAGE_OUTCOMES];
  uint64_t reserved[8];
} StDamageCounters;

/* Module preparation on worker threads (st_stream_set_priming).  */
typedef struct
{
  StPrimePolicy policy;
  uint32_t threads;               /* workers (0: inline) */
  uint64_t modules_prepared;      /* by the workers */
  uint64_t modules_pending;       /* queued or being prepared */
  uint64_t waits;                 /* times a sample waited for modules */
  uint64_t deferred;              /* samples unwound late because of it */
  uint64_t stalls;                /* times the cap held the input back */
  uint64_t forced;                /* samples unwound before a download */
  uint64_t cap_bytes;             /* what DEFER may hold */
  uint64_t held_bytes;            /* held now */
  uint64_t held_max_bytes;        /* the most ever held */
  uint64_t reserved[8];
} StPrimingCounters;

/* What became of the modules' files.  */
typedef struct
{
  uint64_t modules;               /* distinct files met */
  uint64_t verified_build_id;
  uint64_t verified_inode;
  uint64_t unverified;
  uint64_t unusable;
  uint64_t unusable_samples;      /* samples that stopped in them */
  uint64_t data_files;            /* mapped data (not ELF, never sampled) */
  uint64_t not_listed;            /* beyond the listed ones */
  uint64_t reserved[8];
} StFileCounters;

/* One module's file.  Strings belong to the snapshot; NULL when not
   known or not applying.  */
typedef struct
{
  const char *name;               /* as recorded (the recorded program's
                                     choice: any bytes) */
  const char *path;               /* the file used */
  const char *source;             /* where it was found ("host",
                                     "build-id cache"...) */
  const char *verification;       /* how it was matched ("build-id"...) */
  const char *problem;            /* why it is unusable; NULL: usable */
  const char *detail;             /* the problem's particulars */
  const char *advice;             /* what would make it usable */
  uint64_t samples;               /* unusable: samples that stopped in it */
  int data_file;                  /* mapped data, not a module */
  int reserved_int;
  const void *reserved[4];
} StModuleFile;

/* Why the fast engine handed a sample to libdwfl.  */
typedef enum
{
  ST_HANDOVER_NONE = 0,
  ST_HANDOVER_ARCH = 1,           /* an architecture it does not walk */
  ST_HANDOVER_EXPRESSION = 2,     /* a CFA or register given by a DWARF
                                     expression */
  ST_HANDOVER_SIGNAL_FRAME = 3,
  ST_HANDOVER_OTHER = 4,          /* an unusual register or return column */
  ST_HANDOVER_REASONS = 8         /* room in StEngineCounters */
} StHandoverReason;

/* A short name of REASON ("expression"...), "?" for none known.  */
ST_PUBLIC const char *st_handover_reason_name (int reason);

/* How the fast engine did its work (all 0 with ST_ENGINE_LIBDWFL).  */
typedef struct
{
  uint64_t by_rules;              /* samples by cached CFI rules */
  uint64_t by_lean_walk;          /* ... of those, by the lean walk alone */
  uint64_t handed_over;           /* samples handed to libdwfl */
  uint64_t handed_over_by_reason[ST_HANDOVER_REASONS];
  uint64_t by_fp_step;            /* frames unwound by the frame-pointer
                                     step (no CFI), as
                                     StCounters.fp_frames */
  uint64_t reserved[8];
} StEngineCounters;

/* The input's records beyond the samples unwound.  */
typedef struct
{
  uint64_t raw_stack_samples;     /* raw-stack samples read */
  uint64_t callchain_samples;     /* samples read with a call chain
                                     (unwound already) */
  uint64_t joined;                /* kernel parts written with their raw
                                     stack as one sample */
  uint64_t lost_records;          /* LOST records read */
  uint64_t lost_by_recorder;      /* records they say were lost */
  uint64_t not_converted;         /* records with no counterpart in the
                                     output format, not written */
  uint64_t not_converted_data;    /* ... of those, samples, mappings or
                                     process names (not bookkeeping) */
  uint64_t reserved[9];
} StRecordCounters;

/* One sampled process's unwinding counters (the records, damage and
   debuginfod fields are 0).  */
typedef struct
{
  int32_t pid;
  const char *comm;               /* NULL: not known */
  StCounters counters;
} StProcessCounters;

ST_PUBLIC int st_stream_get_statistics (StStream *stream,
                                        StStatistics **out);
ST_PUBLIC void st_statistics_free (StStatistics *statistics);
/* The totals (as st_stream_get_counters, exact at the snapshot).  */
ST_PUBLIC int st_statistics_get_counters (const StStatistics *statistics,
                                          StCounters *out);
ST_PUBLIC int st_statistics_get_damage (const StStatistics *statistics,
                                        StDamageCounters *out);
ST_PUBLIC int st_statistics_get_priming (const StStatistics *statistics,
                                         StPrimingCounters *out);
ST_PUBLIC int st_statistics_get_engine (const StStatistics *statistics,
                                        StEngineCounters *out);
ST_PUBLIC int st_statistics_get_records (const StStatistics *statistics,
                                         StRecordCounters *out);
/* The kinds of records not converted (StRecordCounters.not_converted),
   by their format's name ("FINISHED_ROUND"...), in name order.  */
ST_PUBLIC size_t st_statistics_n_not_converted
  (const StStatistics *statistics);
ST_PUBLIC int st_statistics_get_not_converted
  (const StStatistics *statistics, size_t index, const char **name,
   uint64_t *count);
ST_PUBLIC int st_statistics_get_files (const StStatistics *statistics,
                                       StFileCounters *out);
/* Every module's file, by name (INDEX < n).  */
ST_PUBLIC size_t st_statistics_n_files (const StStatistics *statistics);
ST_PUBLIC int st_statistics_get_file (const StStatistics *statistics,
                                      size_t index, StModuleFile *out);
/* The unusable files only (not the data files), most samples lost
   first, then by name.  */
ST_PUBLIC size_t st_statistics_n_unusable_files
  (const StStatistics *statistics);
ST_PUBLIC int st_statistics_get_unusable_file
  (const StStatistics *statistics, size_t index, StModuleFile *out);
/* The processes counted one by one, most samples first, then by pid.
   Past some thousands, the least recently active are folded into one
   group: its counters are st_statistics_get_other_processes's.  */
ST_PUBLIC size_t st_statistics_n_processes (const StStatistics *statistics);
ST_PUBLIC int st_statistics_get_process (const StStatistics *statistics,
                                         size_t index,
                                         StProcessCounters *out);
ST_PUBLIC int st_statistics_get_other_processes
  (const StStatistics *statistics, StCounters *out);

/* The call graph of the unwound samples, top-down by function name
   (a function calling itself directly is one node), collected when
   asked for before the run; the command's --summary prints it.  */
ST_PUBLIC int st_stream_set_call_graph (StStream *stream, int collect);

typedef struct StCallGraph StCallGraph;

/* One node: the process (DEPTH 0), then the functions from the
   outermost one.  NAME belongs to the graph.  */
typedef struct
{
  const char *name;
  uint32_t depth;
  uint32_t reserved_int;
  uint64_t total;                 /* samples through the node */
  uint64_t self;                  /* samples that end in it */
  uint64_t reserved[4];
} StCallGraphNode;

/* A copy of the call graph, taken as st_stream_get_statistics is (on
   the running thread, or after the run); ST_E_INVALID when it was not
   collected.  Free it with st_call_graph_free.  */
ST_PUBLIC int st_stream_get_call_graph (StStream *stream, StCallGraph **out);
ST_PUBLIC void st_call_graph_free (StCallGraph *graph);
/* The samples in the graph.  */
ST_PUBLIC uint64_t st_call_graph_samples (const StCallGraph *graph);
/* The nodes depth first, each node's children by most samples, then by
   name (so a child never has more samples than its parent).  */
ST_PUBLIC size_t st_call_graph_n_nodes (const StCallGraph *graph);
ST_PUBLIC int st_call_graph_get_node (const StCallGraph *graph,
                                      size_t index, StCallGraphNode *out);

/* The last error's message ("" when none), valid until the next call on
   STREAM.  */
ST_PUBLIC const char *st_stream_error (const StStream *stream);

#ifdef __cplusplus
}
#endif

#endif /* STACKTRACE_1_STREAM_H */
