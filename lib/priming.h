/* JIT-style priming: a module is prepared off the hot path, on worker
   threads, from the moment the stream first shows it.

   Preparing a module (module-cache.h) is everything slow about it:
   finding its file (maybe a debuginfod download), checking its build-id,
   reading its headers, building its CFI tables.  With priming, the
   first sight of a module -- the MAP/MMAP2 record of a code mapping, as
   it is read (before perf.data's time order holds it back), or a sample
   of a process whose modules were never seen -- queues its preparation
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
          whatever waits is completed: the modules are waited for.  */
#ifndef ST_PRIMING_H
#define ST_PRIMING_H

#include <glib.h>

#include "model/event.h"
#include "model/module-cache.h"

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

/* Worker threads by default: one per processor, at most this many.  */
#define ST_PRIMING_MAX_THREADS 8

const char *st_priming_mode_name (StPrimingMode mode);

/* THREADS, or the default for 0.  */
guint st_priming_threads (guint threads);

/* A module's first sight: EV (as read) maps code of a file; queues the
   preparation of its module.  Other events are ignored.  */
void st_priming_see (StModuleCache *modules, const StEvent *ev);

#endif /* ST_PRIMING_H */
