/* The unwinding engine the pipeline uses, chosen at start (--engine):
   fast (cached CFI rules, libdwfl as fallback) or dwfl (libdwfl for
   every sample, the reference).  Both give the same chains.  */
#ifndef ST_UNWINDER_H
#define ST_UNWINDER_H

#include <elfutils/libdwfl.h>

#include "model/event.h"
#include "model/module-cache.h"
#include "model/process-table.h"
#include "unwind/process-modules.h"
#include "unwind/sample-context.h"
#include "unwind/unwind-result.h"

typedef enum
{
  ST_ENGINE_FAST,
  ST_ENGINE_DWFL,
} StEngine;

typedef struct StUnwinder StUnwinder;

/* Takes no ownership of MODULES.  */
StUnwinder *st_unwinder_new (StEngine engine, StModuleCache *modules);
void st_unwinder_free (StUnwinder *u);

/* Unwinds raw-stack event EV of process P into IPS (leaf first; the leaf
   is the sampled IP, callers are return address - 1) and SPS (each
   frame's stack pointer, 0 when unknown), both of MAX_IPS entries.  With
   modules of P not ready yet, it unwinds with the ready ones and RESULT
   is unprimed.  Whatever the walk gave, RESULT has at least the sampled
   IP when the registers have it (also when no module of P is usable).  */
void st_unwinder_unwind (StUnwinder *u, StProcess *p, const StEvent *ev,
                         uint64_t *ips, uint64_t *sps, uint32_t max_ips,
                         StUnwindResult *result);

/* The same in two steps, for a caller that walks one sample more than
   once (after fetching a file) or reads its registers after: sets C up
   for EV of P (nothing decoded yet; C uses U's table of register maps:
   one thread at a time per unwinder), then unwinds it, every time with
   the registers decoded and the memory set up at most once.  */
void st_unwinder_sample_init (StUnwinder *u, StSampleContext *c,
                              StProcess *p, const StEvent *ev);
void st_unwinder_unwind_sample (StUnwinder *u, StSampleContext *c,
                                uint64_t *ips, uint64_t *sps,
                                uint32_t max_ips, StUnwindResult *result);

/* Whether every code module of P is ready (module-cache.h), so that a
   sample of P unwound now gets the same chain as when modules are
   prepared inline; if not, whether one is being fetched (maybe a
   download).  Brings P's module list up to date (and queues the
   preparation of modules met for the first time).  */
StModulesReadiness st_unwinder_readiness (StUnwinder *u, StProcess *p);

/* The process's Dwfl with its modules reported, for symbols.  */
Dwfl *st_unwinder_dwfl (StUnwinder *u, StProcess *p);

const char *st_engine_name (StEngine engine);

#endif /* ST_UNWINDER_H */
