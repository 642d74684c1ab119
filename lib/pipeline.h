/* The filter: reader -> (unwinder) -> writer, in input order.  */
#ifndef ST_PIPELINE_H
#define ST_PIPELINE_H

#include <stdio.h>

#include "format/reader.h"
#include "format/writer.h"
#include "model/debuginfod-fetch.h"
#include "priming.h"
#include "report/callgraph-summary.h"
#include "stats.h"
#include "sample-unwinder.h"
#include "unwind/unwinder.h"

/* The most threads StPipelineOptions.jobs may ask for.  */
#define ST_PIPELINE_MAX_JOBS 64    /* = ST_STREAM_MAX_JOBS */

typedef enum
{
  ST_MODE_NONE,       /* read and check, write nothing */
  ST_MODE_PASSTHRU,   /* copy/convert, raw stacks kept */
  ST_MODE_UNWIND,     /* unwind raw stacks with the engine chosen
                         (StPipelineOptions.engine); -m naive */
} StMode;

/* StReportKind, StReportFunc: sample-unwinder.h.  */

typedef struct
{
  StMode mode;
  StEngine engine;            /* how raw stacks are unwound */
  const char *symfs;          /* may be NULL */
  const char *buildid_dir;    /* an unpacked perf archive, may be NULL */
  gboolean given_files_only;  /* only files under symfs and buildid_dir:
                                 none of this machine's, no debuginfod */
  const char *perf_cache_dir; /* the user's perf build-id cache
                                 ($PERF_BUILDID_DIR or ~/.debug: the
                                 caller reads the environment), may be
                                 NULL */
  FILE *chains;               /* --chains output, may be NULL */
  StReportFunc report;        /* messages for the user; NULL: damage is
                                 only counted, nothing is reported */
  void *report_data;
  gboolean debug;             /* report per-sample diagnostics */
  StFormat output_format;     /* what WRITER writes */
  gboolean callgraph;         /* collect the call graph summary */
  gboolean demangle;          /* C++ and Rust names demangled in the
                                 call graph and the --chains file */
  const char *jit_tmp_dir;    /* where perf maps are (perf-PID.map);
                                 NULL: /tmp */
  gboolean stitch;            /* per-thread stitching of truncated stacks */
  uint64_t truncate_stack;    /* if not 0, use at most this many stack bytes */
  gboolean debuginfod;        /* fetch missing files by build-id (when
                                 DEBUGINFOD_URLS names servers) */
  const char *debuginfod_urls;  /* the caller's $DEBUGINFOD_URLS: NULL
                                   or blank, debuginfod is off
                                   (libdebuginfod itself reads the
                                   servers from the environment) */
  StModuleFinder finder;      /* files not found locally: instead of
                                 debuginfod, when not NULL (called from
                                 worker threads with priming) */
  void *finder_data;
  gboolean counters;          /* unwinding counters in the output, once
                                 per COUNTERS_INTERVAL_MS of sample time,
                                 when its format has counters */
  unsigned counters_interval_ms;  /* 0: 1000 */
  gboolean live;              /* the input is being recorded now (a pipe,
                                 a ring): the roots of its processes are
                                 held from the moment they are read
                                 (model/process-roots.h) */
  StPrimingMode priming;      /* when modules are prepared (priming.h) */
  size_t priming_cap;         /* defer: bytes held while samples wait;
                                 0: ST_PRIMING_DEFAULT_CAP */
  guint priming_threads;      /* workers; 0: one per processor (at most
                                 ST_PRIMING_MAX_THREADS) */
  guint jobs;                 /* threads that unwind; 0 or 1: the
                                 pipeline's own thread only, else (at
                                 most ST_PIPELINE_MAX_JOBS) it and
                                 JOBS - 1 workers that walk the samples
                                 of a batch while it does what depends
                                 on their order: the output is the same
                                 for any number */
  guint max_processes;        /* processes remembered; 0: the process
                                 table's default (tests set fewer, to
                                 see them forgotten) */
  gboolean trim_heap;         /* give the C library's free heap pages
                                 back to the system (malloc_trim) when
                                 idle and every some 100,000 events: a
                                 process-wide act, so only when the
                                 caller owns the process (the command
                                 does) */
  /* Called where the heap would be trimmed (idle, and every some
     100,000 events), for a caller that trims it itself; may be NULL.  */
  void (*idle) (void *data);
  void *idle_data;
  /* Called after every event and, while the input stalls, every
     CHECK_MS (and when a signal interrupts the wait).  Returns FALSE to
     stop: the pipeline then ends as at the end of the input, after the
     last whole frame.  May be NULL.  */
  gboolean (*check) (void *user);
  void *check_data;
  unsigned check_ms;
} StPipelineOptions;

typedef struct StPipeline StPipeline;

/* WRITER may be NULL in ST_MODE_NONE.  Takes no ownership of READER or
   WRITER.  */
StPipeline *st_pipeline_new (StReader *reader, StWriter *writer,
                             const StPipelineOptions *options);
void st_pipeline_free (StPipeline *p);

/* Runs to the end of the input, or until the check function asks to
   stop or the output fails.  Damaged frames/records are reported
   through the options' report function and counted (st_stats_damaged), and the run goes on.
   On a read or write error, everything before it has been written and
   ERROR names the offset.  While the input stalls, samples whose
   modules became ready are unwound and what was written so far is
   flushed to the output.  At the end (or a stop), samples waiting for
   their modules (--priming defer) wait for them.  */
gboolean st_pipeline_run (StPipeline *p, GError **error);
/* Whether the run ended because the check function asked to.  */
gboolean st_pipeline_stopped (const StPipeline *p);
/* The output's reader is gone for good (a recorder that stopped reading
   at its stop): called from the check function before it asks to stop,
   so that what is still held is dropped, not unwound for nobody.  */
void st_pipeline_abandon_output (StPipeline *p);
/* Whether that happened.  */
gboolean st_pipeline_output_abandoned (const StPipeline *p);

const StStats *st_pipeline_stats (const StPipeline *p);
const StCallgraph *st_pipeline_callgraph (const StPipeline *p);
/* The debuginfod client, NULL when off.  */
StDebuginfod *st_pipeline_debuginfod (const StPipeline *p);

#endif /* ST_PIPELINE_H */
