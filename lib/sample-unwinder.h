/* The per-sample unwinding service: one raw-stack sample of a recorded
   machine in, its chain out, with everything the pipeline does around
   the engine's walk: the process model fed (maps, forks, exits), the
   fetch of a file the walk stopped for and the retry, stitching with
   its ring of lent chains, the charge of a file without CFI, the JVM
   advice, the statistics, the --chains line and the call graph.  The
   pipeline (pipeline.c) is its main user, the public per-sample API
   (api/session.c) the other.

   One entry point per event: st_sample_unwinder_apply for every event
   in time order, st_sample_unwinder_unwind for a raw-stack sample.
   Results come from free lists of a few capacities: no allocation per
   sample once warm.

   Threads: one thread at a time per service, and per process table and
   module cache it is given (module-cache.h).  With --jobs each worker
   has a service of its own, on a replica of the model, that only walks
   (st_sample_unwinder_walk); the pipeline's service concludes
   (parallel-unwind.h).  */
#ifndef ST_SAMPLE_UNWINDER_H
#define ST_SAMPLE_UNWINDER_H

#include <stdbool.h>

#include "model/file-report.h"
#include "model/module-cache.h"
#include "model/process-table.h"
#include "priming.h"
#include "report/sample-report.h"
#include "stats.h"
#include "unwind/unwinder.h"

/* What a message the library reports is about.  */
typedef enum
{
  ST_REPORT_DAMAGE,   /* damaged input (the first ST_DAMAGE_MESSAGES_MAX) */
  ST_REPORT_WARNING,  /* the run went on, differently than asked */
  ST_REPORT_DEBUG,    /* per-sample diagnostics (the debug option) */
} StReportKind;

/* The one way the library speaks to the user: MESSAGE is one line,
   without the program's name and without a newline; the function adds
   what its program wants (the command prints "stacktrace: MESSAGE" on
   standard error).  Called from the thread that runs the pipeline.  The
   library never writes to standard error itself.  */
typedef void (*StReportFunc) (StReportKind kind, const char *message,
                              void *user);

typedef struct
{
  StEngine engine;
  gboolean stitch;            /* per-thread stitching of truncated stacks */
  uint64_t truncate_stack;    /* if not 0, use at most this many stack
                                 bytes */
  gboolean debug;             /* report per-sample diagnostics */
  StReportFunc report;        /* may be NULL */
  void *report_data;
} StSampleUnwinderOptions;

/* One unwound sample, what its emission needs.  */
typedef struct StUnwound StUnwound;
struct StUnwound
{
  char *chain_line;     /* the --chains line, symbolized at its time */
  StUnwindStatus status;
  StUnwindCause cause;
  bool stitched;
  bool unprimed;
  uint32_t n_stitched;  /* frames that came from stitching */
  uint32_t n_ips;
  uint32_t size_class;  /* capacity 16 << size_class */
  StUnwound *next_free;
  uint64_t ips[];
};

typedef struct StSampleUnwinder StSampleUnwinder;

/* Takes no ownership of PROCESSES, MODULES, STATS (counts every sample),
   PRIMING (may be NULL: modules prepared inline, fetches waited for) or
   REPORT (may be NULL: no --chains line, no call graph).  */
StSampleUnwinder *st_sample_unwinder_new (StProcessTable *processes,
                                          StModuleCache *modules,
                                          StStats *stats,
                                          StPriming *priming,
                                          StSampleReport *report,
                                          StJitNames *jit_names,
                                          const StSampleUnwinderOptions *o);
void st_sample_unwinder_free (StSampleUnwinder *su);

/* EV's effect on the model (in time order): the process table, the JIT
   names and JVMs a mapping tells of, the stitcher's threads.  */
void st_sample_unwinder_apply (StSampleUnwinder *su, const StEvent *ev);

/* Unwinds raw-stack event EV (applied before); NULL when it must wait
   for a file being fetched (MAY_WAIT).  Give the result back with
   st_sample_unwinder_release.  */
StUnwound *st_sample_unwinder_unwind (StSampleUnwinder *su,
                                      const StEvent *ev, gboolean may_wait);
void st_sample_unwinder_release (StSampleUnwinder *su, StUnwound *u);

/* --jobs: the walk apart from what depends on the order of the samples.
   A worker's own service (its own process table and module cache, fed
   the same events: nothing of it is shared) walks a sample into an
   StWalk; the pipeline's service concludes it, in the samples' order,
   as st_sample_unwinder_unwind would have after its walk.  The walk
   depends only on the model and the files (every cache is memoization),
   so the result is the same whichever thread walked.  */
typedef struct
{
  StUnwindResult result;  /* its detail: DETAIL */
  char *detail;           /* owned copies: */
  char *cost_key;         /* a module whose file could not be had */
  char *no_cfi_key;       /* a module without CFI that stopped the walk */
  StNoCfiReason no_cfi_why;
  /* The PCs where the walk met a module whose file was still to be
     fetched, or had been tried in vain: the conclusion asks the
     pipeline's own cache for the same files there, in the samples'
     order, as a walk on it would have.  */
  uint64_t *fetch_pcs;
  guint n_fetch_pcs;
  guint fetch_pcs_cap;
  gboolean as_is;         /* walked AS_IS (st_sample_unwinder_walk) */
  uint64_t ips[ST_UNWIND_MAX_FRAMES];
  uint64_t sps[ST_UNWIND_MAX_FRAMES];
} StWalk;

/* Walks EV (applied before to SU's model) into W.  A file the walk
   wants fetched is fetched, inline or (SU priming on workers) waited
   for, so that the walk is the same on any thread -- unless AS_IS (the
   pipeline's service only, defer's cap): then, as st_sample_unwinder_unwind
   without waiting, a file being fetched is not waited for and the sample
   goes unprimed.  */
void st_sample_unwinder_walk (StSampleUnwinder *su, const StEvent *ev,
                              StWalk *w, gboolean as_is);
/* EV's result from W, walked on a replica of SU's model as of EV's
   time (W's arrays are reused afterwards).  The files W's walk fetched
   are fetched on SU's cache too, and waited for unless W was walked
   AS_IS, so that names and the file report are those of a walk here.  */
StUnwound *st_sample_unwinder_conclude (StSampleUnwinder *su,
                                        const StEvent *ev, StWalk *w);
/* Frees what W owns (not W).  */
void st_walk_clear (StWalk *w);

/* Whether EV's process has every module ready, or what keeps them.  */
StModulesReadiness st_sample_unwinder_readiness (StSampleUnwinder *su,
                                                 const StEvent *ev);

/* The engine, and the Dwfl of process PID (for names; NULL when the
   process is unknown).  */
StUnwinder *st_sample_unwinder_engine (StSampleUnwinder *su);
Dwfl *st_sample_unwinder_dwfl (StSampleUnwinder *su, int32_t pid);

#endif /* ST_SAMPLE_UNWINDER_H */
