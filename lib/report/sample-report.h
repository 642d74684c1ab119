/* What an unwound sample means to the reports: its --chains line
   (chain-dump.h) and its path in the call graph summary
   (callgraph-summary.h), both with the names of one symbolizer
   (symbolizer.h) that this unit owns.

   Names are taken when the sample is unwound, from its process's Dwfl
   of then: the process's mappings may change before the sample is
   written (the reorder window holds it), so the line is made now and
   written by the owner in output order.  */
#ifndef ST_SAMPLE_REPORT_H
#define ST_SAMPLE_REPORT_H

#include <elfutils/libdwfl.h>
#include <glib.h>

#include "model/address-space.h"
#include "model/event.h"
#include "report/callgraph-summary.h"
#include "report/jit-names.h"

typedef struct StSampleReport StSampleReport;

/* CHAINS: make each sample's --chains line; CALLGRAPH: collect the call
   graph summary; DEMANGLE: C++ and Rust names demangled; JIT: names of
   JIT code (not owned, may be NULL).  */
StSampleReport *st_sample_report_new (gboolean chains, gboolean callgraph,
                                      gboolean demangle, StJitNames *jit);
void st_sample_report_free (StSampleReport *r);

/* Raw-stack sample EV of process COMM (may be NULL), unwound into IPS
   (leaf first), named from DWFL (may be NULL) and, outside its modules,
   from the process's mappings MAPS (may be NULL) and JIT names: added
   to the call graph; returns its --chains line (newly allocated, with
   its newline), or NULL without CHAINS.  */
char *st_sample_report_add (StSampleReport *r, Dwfl *dwfl,
                            const StAddressSpace *maps, const StEvent *ev,
                            const char *comm, const uint64_t *ips,
                            uint32_t n_ips);

/* The call graph so far; NULL without CALLGRAPH.  */
const StCallgraph *st_sample_report_callgraph (const StSampleReport *r);

#endif /* ST_SAMPLE_REPORT_H */
