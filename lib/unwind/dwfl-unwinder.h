/* Offline unwinding of raw-stack samples with libdwfl (elfutils 0.188
   public API): one Dwfl per process, reused across its samples, modules
   reported from the process's mappings, memory served from the stack
   copy or the mapped files.  The reference engine (--engine dwfl), and
   the fast engine's fallback and symbolizer.

   Threads: libdwfl keeps no lock; an engine, its Dwfls and the Elfs of
   its module cache are used from one thread at a time (--jobs: each
   worker has its own, parallel-unwind.h).  */
#ifndef ST_DWFL_UNWINDER_H
#define ST_DWFL_UNWINDER_H

#include <elfutils/libdwfl.h>
#include <glib.h>

#include "model/event.h"
#include "model/module-cache.h"
#include "model/process-table.h"
#include "unwind/process-modules.h"
#include "unwind/sample-context.h"
#include "unwind/unwind-result.h"

typedef struct StDwflUnwinder StDwflUnwinder;

/* Takes no ownership of MODULES; it must outlive the unwinder and every
   process state the unwinder attaches.  */
StDwflUnwinder *st_dwfl_unwinder_new (StModuleCache *modules);
void st_dwfl_unwinder_free (StDwflUnwinder *u);

/* Unwinds the raw-stack sample of context C (sample-context.h; started
   here by the process's register layout) into IPS (leaf first; the leaf
   is the sampled IP, callers are return address - 1) and SPS (each
   frame's stack pointer, 0 when unknown), both of MAX_IPS entries.  */
void st_dwfl_unwinder_unwind_sample (StDwflUnwinder *u, StSampleContext *c,
                                     uint64_t *ips, uint64_t *sps,
                                     uint32_t max_ips,
                                     StUnwindResult *result);

/* The same for event EV of process P alone, with a context of its own
   (tests).  */
void st_dwfl_unwinder_unwind (StDwflUnwinder *u, StProcess *p,
                              const StEvent *ev, uint64_t *ips,
                              uint64_t *sps, uint32_t max_ips,
                              StUnwindResult *result);

/* Whether every code module of P is ready (module-cache.h), or what
   keeps them; brings P's module list (and its Dwfl) up to date.  */
/* The modules of P as this engine sees them.  */
StProcessModules *st_dwfl_unwinder_modules (StDwflUnwinder *u,
                                            StProcess *p);
StModulesReadiness st_dwfl_unwinder_readiness (StDwflUnwinder *u,
                                               StProcess *p);

/* The process's Dwfl with its modules reported (for symbolizing), or NULL
   if it has none.  */
Dwfl *st_dwfl_unwinder_dwfl (StDwflUnwinder *u, StProcess *p);

#endif /* ST_DWFL_UNWINDER_H */
