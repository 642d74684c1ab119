/* JIT-style priming: a module is prepared off the hot path, on worker
   threads, from the moment the stream first shows it.

   Preparing a module (module-cache.h) is everything slow about it:
   finding its file (maybe a debuginfod download), checking its build-id,
   reading its headers, building its CFI tables.  With priming, the
   first sight of a module -- the MAP/MMAP2 record of a code mapping, as
   it is read (before perf.data's time order holds it back; with defer,
   only in a process that began in the stream or was sampled), or a
   sample of a process whose modules were never seen -- queues its
   preparation
   to the module cache's workers, and the main thread goes on.  What a
   sample does when a module of its process is not ready yet is the
   mode:

   sync   no workers: a module is prepared inline when a sample first
          needs it (the batch default; the stream waits meanwhile).
   drop   never wait: the sample is unwound with the modules that are
          ready (at least its IP is written; the chain usually stops at
          the first frame in a module not ready) and counted unprimed.
   defer  the sample waits, and so does everything after it in time
          order (the process model must not run ahead of it) and in
          output order (nothing is reordered), until its modules are
          ready; then it is unwound exactly as with sync.  What waits is
          bounded (CAP bytes of held events): past it, the oldest waiting
          sample is unwound as it is and counted unprimed, as with drop,
          rather than stalling the recorder (a download can take
          DEBUGINFOD_TIMEOUT).  At the end of the input (or a stop),
          whatever waits is completed: the modules are waited for.

   The policy is an object, StPriming, that the filter loop asks at a
   few points and tells of a few happenings; the loop keeps the events
   and their order (the reorder window, reorder.h), the policy decides
   who waits:

   - st_priming_see: every event as read (a module's first sight);
   - st_priming_sample_waits: whether a raw-stack sample, in time order,
     must wait for its modules (defer only; the loop then answers
     ST_REORDER_LATER) -- or, at the end or at the cap, waits here;
   - st_priming_progress: between events and while the input stalls,
     collects what the workers prepared and resumes the window's
     waiting samples whose modules became ready, or that the cap sends
     on;
   - st_priming_finish: the input ended; from now on nothing waits
     in the window, modules are waited for instead.

   Its figures (StPrimingStats) are for the statistics.  Main thread
   only.  */
#ifndef ST_PRIMING_H
#define ST_PRIMING_H

#include <glib.h>

#include "model/event.h"
#include "model/module-cache.h"
#include "reorder.h"
#include "stats.h"
#include "unwind/process-modules.h"

typedef enum
{
  ST_PRIMING_SYNC,
  ST_PRIMING_DROP,
  ST_PRIMING_DEFER,
} StPrimingMode;

/* What defer may hold while samples wait, by default (the live default):
   small enough to cost little memory, big enough for some seconds of a
   typical recording at 1 kHz with 8 KiB stack copies.  */
#define ST_PRIMING_DEFAULT_CAP ((size_t) 16 << 20)

/* Defer: processes remembered as begun in the stream or sampled, at
   most (a lost EXIT never forgets one); past it the set starts again,
   and those processes' modules wait for their next sample instead.  */
#define ST_PRIMING_ACTIVE_MAX 16384

/* Worker threads by default: one per processor, at most this many.  */
#define ST_PRIMING_MAX_THREADS 8

const char *st_priming_mode_name (StPrimingMode mode);

/* THREADS, or the default for 0.  */
guint st_priming_threads (guint threads);

typedef struct StPriming StPriming;

/* The policy for MODULES.  Workers prepare modules when UNWINDING and
   MODE is not sync (THREADS of them, 0: st_priming_threads' default);
   else every verb below but the figures does nothing.  CAP: what defer
   may hold while samples wait (0: ST_PRIMING_DEFAULT_CAP), at most
   MAX_HELD.  Call after the module cache's finder is set: the workers
   use it.  */
StPriming *st_priming_new (StModuleCache *modules, gboolean unwinding,
                           StPrimingMode mode, guint threads, size_t cap,
                           size_t max_held);
void st_priming_free (StPriming *pr);

/* Whether modules are prepared by workers.  */
gboolean st_priming_on_workers (const StPriming *pr);
/* Whether samples may wait for their modules (defer on workers).  */
gboolean st_priming_defers (const StPriming *pr);

/* Every event as read.  A module's first sight: EV maps code of a file;
   queues the preparation of its module (with defer, only when EV's
   process began in the stream or was sampled: the other events tell
   which).  */
void st_priming_see (StPriming *pr, const StEvent *ev);

/* Whether a sample's process has every module ready, or what keeps
   them; USER as given.  */
typedef StModulesReadiness (*StReadinessFunc) (const StEvent *ev,
                                               void *user);

/* Defer: whether raw-stack event EV must wait for its modules (counted
   once per sample), asking READINESS.  After st_priming_finish it does
   not: its modules are waited for here.  FORCE: the cap was reached;
   this blocks while its modules are prepared from local files, but a
   download is not waited for: EV then goes as it is (unprimed).  */
gboolean st_priming_sample_waits (StPriming *pr, const StEvent *ev,
                                  gboolean force, StReadinessFunc readiness,
                                  void *user);
/* EV waits for a file being fetched for it (counted once per sample).  */
void st_priming_sample_waited (StPriming *pr, const StEvent *ev);
/* Whether the samples processed now are ones that waited.  */
gboolean st_priming_resuming (const StPriming *pr);
void st_priming_set_resuming (StPriming *pr, gboolean resuming);
/* A sample was unwound; RESUMED: after waiting for its modules.  */
void st_priming_sample_unwound (StPriming *pr, gboolean resumed);
/* A sample went on without a file being fetched for it on a worker
   (drop, or defer's cap).  */
void st_priming_sample_unprimed (StPriming *pr);

/* Collects what the workers prepared; resumes WINDOW's waiting samples
   (may be NULL) when modules became ready, and the oldest ones while
   it holds more than the cap.  */
void st_priming_progress (StPriming *pr, StReorder *window);

/* The input ended (or a stop): samples wait for their modules now.  */
void st_priming_finish (StPriming *pr);
gboolean st_priming_finishing (const StPriming *pr);

const StPrimingStats *st_priming_stats (const StPriming *pr);

#endif /* ST_PRIMING_H */
