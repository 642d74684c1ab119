/* The lean walk: the fast engine's first try at a sample, for the common
   case only, at a fraction of the full walk's cost per frame.

   It tracks three registers -- the stack pointer, the frame pointer and
   the PC (with whether the frame pointer is known) -- instead of the 17
   the full walk and libdwfl track, and applies each frame's rule in its
   lean form (lean-rule.h): a hot-table lookup, the CFA, one bounds check
   for all of the rule's reads, the return address and maybe the frame
   pointer read from the stack copy.  It gives up ("bails") as soon as
   the sample leaves the common case, and the fast engine then walks the
   sample again from scratch with the full walk (fast-unwinder.c), so
   that every decision outside the common case stays the full walk's.
   It bails on:

   - a rule handed to libdwfl, a rule not of the common shape
     (lean-rule.h), e.g. the PLT's CFA expression;
   - a CFA from the frame pointer while that is unknown;
   - a stack pointer that does not go up (the full walk's loop guard,
     st_walk_loops, decides), and the frame limit.

   Within the common case it decides exactly as the full walk: it runs
   the full walk's loop (the same frames: leaf first, PC - 1 for
   callers, the leaf's rule looked up at its PC and applied after it is
   delivered, a caller's before, a failed step retried once after its
   frame is delivered), with the same stack pointers, the same ends (a
   rule whose return address is undefined or zero: the outermost frame;
   a frame that can be unwound neither way), and the same failed reads:
   a rule whose reads do not all lie in the stack copy is applied by the
   full walk's own st_cfi_rule_apply on the three registers, which makes
   the very reads the full walk makes (the other registers' values do
   not matter to them: addresses depend on the CFA only); so is a frame
   without CFI (a PC in no module, or not covered by its module's CFI)
   given to the full walk's frame-pointer step, which reads only the
   stack and frame pointers; but a sampled frame whose code tells where
   its return address is (leaf-code.h) bails.  Each return address is
   checked as the full walk checks it (rule-cache.h,
   st_rule_cache_return_ok).  The outcome
   (frames past the last known module dropped, the ELF entry point as
   root, a cut by the end of the stack copy) is then decided by
   st_walk_outcome as for the full walk.  */
#ifndef ST_LEAN_WALK_H
#define ST_LEAN_WALK_H

#include <glib.h>
#include <stdint.h>

#include "unwind/fast-arch.h"
#include "unwind/process-modules.h"
#include "unwind/sample-memory.h"

typedef enum
{
  ST_LEAN_OUTERMOST,    /* the last frame had no caller */
  ST_LEAN_STOPPED,      /* a frame could be unwound neither way */
  ST_LEAN_NOT_AFTER_CALL,  /* on a return address that follows no call
                              (return-check.h) */
  ST_LEAN_BAILED,       /* not the common case: walk it in full */
} StLeanEnd;

/* Walks from the sampled frame (PC, the stack pointer MEM->sp, the frame
   pointer FP when FP_KNOWN) of a process whose modules are PM (every one
   with its rule tables, of architecture ARCH), filling IPS and SPS.
   Unless it bailed (IPS, SPS and MEM are then to be discarded), *N
   frames were delivered, *N_FP of them unwound by frame pointer, and MEM
   holds the failed reads.  */
StLeanEnd st_lean_walk (StProcessModules *pm, const StFastArch *arch,
                        StSampleMemory *mem, uint64_t pc, uint64_t fp,
                        gboolean fp_known, uint64_t *ips, uint64_t *sps,
                        uint32_t max, uint32_t *n, uint32_t *n_fp);

#endif /* ST_LEAN_WALK_H */
