/* The fast engine (--engine fast, the default): unwinds with the cached
   CFI rules of each module (rule-cache.h), so a typical frame costs a
   table lookup and a few reads of the stack copy, and no libdw call.
   It reproduces the libdwfl engine's walk exactly (same CFI, same
   register rules, same frame-pointer step where a module has no CFI,
   same reads, same outcome); what it cannot express (a DWARF
   expression, a signal frame, an architecture other than x86_64) it
   hands to the libdwfl engine for the whole sample.  A sample is first
   tried by the lean walk (lean-walk.h), which covers the common case at
   a fraction of the cost and hands anything else to the full walk.  */
#ifndef ST_FAST_UNWINDER_H
#define ST_FAST_UNWINDER_H

#include <elfutils/libdwfl.h>

#include "model/event.h"
#include "model/module-cache.h"
#include "model/process-table.h"
#include "unwind/dwfl-unwinder.h"
#include "unwind/process-modules.h"
#include "unwind/sample-context.h"
#include "unwind/unwind-result.h"

typedef struct StFastUnwinder StFastUnwinder;

/* The bound of all modules' rule tables (rows read from the CFI, rules,
   memos, hot and return tables) is the module cache's
   (st_module_cache_table_budget, ST_MODULE_CACHE_TABLE_BYTES), shared
   by every unwinder on that cache: past it, the least recently used
   modules' tables are emptied between two walks, to be read again from
   the CFI when needed (util/byte-budget.h).  */

/* Installs the rule tables' prepare hook on MODULES (before any module
   is opened).  Takes no ownership of MODULES.  */
StFastUnwinder *st_fast_unwinder_new (StModuleCache *modules);
void st_fast_unwinder_free (StFastUnwinder *u);

/* As st_dwfl_unwinder_unwind_sample.  */
void st_fast_unwinder_unwind_sample (StFastUnwinder *u, StSampleContext *c,
                                     uint64_t *ips, uint64_t *sps,
                                     uint32_t max_ips,
                                     StUnwindResult *result);

/* The same for EV of P alone, with a context of its own (tests).  */
void st_fast_unwinder_unwind (StFastUnwinder *u, StProcess *p,
                              const StEvent *ev, uint64_t *ips,
                              uint64_t *sps, uint32_t max_ips,
                              StUnwindResult *result);

/* Whether every code module of P is ready (module-cache.h), so that a
   sample of P now would be unwound as without workers, or what keeps
   them; brings P's module list up to date.  */
/* The modules of P as this engine sees them.  */
StProcessModules *st_fast_unwinder_modules (StFastUnwinder *u,
                                            StProcess *p);
StModulesReadiness st_fast_unwinder_readiness (StFastUnwinder *u,
                                               StProcess *p);

/* Whether the lean walk (lean-walk.h) is tried first (the default), or
   every sample walked by the full walk (to compare the two).  */
void st_fast_unwinder_set_lean (StFastUnwinder *u, gboolean lean);

/* MAX_BYTES instead of ST_MODULE_CACHE_TABLE_BYTES (0: no bound), for
   every unwinder on U's module cache.  */
void st_fast_unwinder_set_rule_bytes (StFastUnwinder *u, size_t max_bytes);
/* Times a module's rule tables were emptied for the bound.  */
guint64 st_fast_unwinder_rule_coolings (const StFastUnwinder *u);

/* The libdwfl engine behind it (fallback, and symbols).  */
StDwflUnwinder *st_fast_unwinder_dwfl_engine (StFastUnwinder *u);

#endif /* ST_FAST_UNWINDER_H */
