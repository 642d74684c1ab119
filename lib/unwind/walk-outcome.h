/* From what a walk produced to its status and cause: the one place that
   decides, so that both engines report the same result for the same
   frames.  */
#ifndef ST_WALK_OUTCOME_H
#define ST_WALK_OUTCOME_H

#include <glib.h>
#include <stdint.h>

#include "util/mapping-guard.h"
#include "unwind/process-modules.h"
#include "unwind/sample-memory.h"
#include "unwind/unwind-result.h"

/* Starts RES for a sample of process P, whose modules are PM, unwound
   along PATH: FALSE (RES failed, with its cause) when nothing can be
   unwound in P, because nothing is known of its mappings or none of its
   modules is usable and of a supported architecture.  RES is unprimed
   when PM left modules out that were not ready.  */
gboolean st_walk_start (StUnwindResult *res, StUnwindPath path,
                        const StProcess *p, const StProcessModules *pm);

/* What the engine answers about addresses of the sampled process.  */
typedef struct
{
  gboolean (*in_module) (void *user, uint64_t pc);
  /* Whether PC lies in the function at its module's ELF entry point
     (_start): the outermost frame even where it has no CFI saying so.  */
  gboolean (*at_entry_point) (void *user, uint64_t pc);
  /* The engine's message for a walk that stopped, or NULL.  */
  const char *(*detail) (void *user);
  /* Whether PC lies in a function no frame is above (Go's stack roots,
     stack-roots.h): the walk ends there, complete.  */
  gboolean (*stack_root) (void *user, uint64_t pc);
  void *user;
  /* The process's modules (their files still to be fetched, for
     StUnwindResult.deferred_pc).  */
  const StProcessModules *modules;
} StWalkOracle;

/* Cuts RES's chain IPS at the first frame in a module whose file shrank
   while in use (see mapping-guard.h): what was read there since is
   zeros.  Costs one atomic load unless some mapped file ever shrank.  */
void st_walk_drop_shrunk_slow (StUnwindResult *res, const uint64_t *ips,
                               StProcessModules *pm);
static inline void
st_walk_drop_shrunk (StUnwindResult *res, const uint64_t *ips,
                     StProcessModules *pm)
{
  if (G_UNLIKELY (st_mapping_guard_faults () != 0))
    st_walk_drop_shrunk_slow (res, ips, pm);
}

/* Before frame (PC, SP) is added after IPS/SPS[0..N): why the walk is
   looping on bad data, or NULL.  Callers live at higher addresses, so a
   stack pointer that goes down, or a frame seen before (same PC and SP),
   means the walk would go round forever or wander off.  An SP of 0 is
   unknown and not checked.  */
const char *st_walk_loops_slow (const uint64_t *ips, const uint64_t *sps,
                                uint32_t n, uint64_t pc, uint64_t sp);

/* Every frame of the fast engine asks: the usual answer (the stack
   pointer went up) inline.  */
static inline const char *
st_walk_loops (const uint64_t *ips, const uint64_t *sps, uint32_t n,
               uint64_t pc, uint64_t sp)
{
  if (n == 0 || sp == 0 || sp > sps[n - 1])
    return NULL;
  return st_walk_loops_slow (ips, sps, n, pc, sp);
}

/* IPS[0..N) are the frames delivered (leaf first); OUTERMOST says
   whether the walk ended because the last frame had no caller (rather
   than on an error or the frame limit MAX); LOOP, when not NULL, that it
   was stopped by st_walk_loops; NOT_AFTER_CALL, that it was stopped on
   a return address that follows no call (return-check.h).  A frame in a
   stack root ends the chain there, complete.  Frames after the last one
   in a known module are dropped from *N (RES's deferred_pc is the
   first frame, kept or dropped, in a module whose file is still to be
   fetched).  MEM holds the failed reads (one of a module not ready
   makes RES unprimed).  */
void st_walk_outcome (const uint64_t *ips, uint32_t *n, uint32_t max,
                      gboolean outermost, const char *loop,
                      gboolean not_after_call,
                      const StSampleMemory *mem, const StWalkOracle *oracle,
                      StUnwindResult *res);

#endif /* ST_WALK_OUTCOME_H */
