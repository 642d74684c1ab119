/* The sampled frame where no CFI covers its PC, unwound by its code
   (fast-arch.h, leaf_rule) when the code tells where the return address
   is -- a function's entry, prologue or exit -- rather than by the
   frame-pointer step, which there gives the caller's caller.  Both
   engines do it with these functions, so that they agree; only the
   sampled frame: a caller's PC is after a call, in its function's body.  */
#ifndef ST_LEAF_CODE_H
#define ST_LEAF_CODE_H

#include <elfutils/libdwfl.h>
#include <glib.h>
#include <stdint.h>

#include "unwind/cfi-rules.h"
#include "unwind/fast-arch.h"
#include "unwind/process-modules.h"
#include "unwind/return-check.h"
#include "unwind/sample-memory.h"

/* Where the function holding ADDR starts, by MOD's symbol table (ADDR
   and *START are addresses of MOD's Dwfl): TRUE when a function symbol
   whose size covers ADDR was found.  */
gboolean st_function_start (Dwfl_Module *mod, uint64_t addr, uint64_t *start);

/* The rule for the sampled PC in process module M, read from its file;
   START_KNOWN: the function starts at runtime address START.  FALSE:
   the code tells nothing, the frame-pointer step applies.  */
gboolean st_leaf_code_rule (const StFastArch *arch, const StProcessModule *m,
                            uint64_t pc, gboolean start_known,
                            uint64_t start, StLeafRule *rule);

typedef enum
{
  ST_LEAF_NOT_TAKEN,    /* a guess whose return address follows no
                           call: use the frame-pointer step */
  ST_LEAF_CALLER,       /* NEXT and *NEXT_PC are the caller's */
  ST_LEAF_OUTERMOST,    /* the return address is 0 */
  ST_LEAF_FAILED,       /* it could not be read */
} StLeafStep;

/* Applies RULE to the sampled frame's registers CUR (reads through MEM,
   which records failures): the caller has CUR's registers but for the
   stack and frame pointers and the return address column the rule
   gives.  A guessed rule's return address must follow a call in PM.  */
StLeafStep st_leaf_rule_step (const StFastArch *arch, const StLeafRule *rule,
                              const StFrameRegs *cur, StSampleMemory *mem,
                              StProcessModules *pm, StFrameRegs *next,
                              uint64_t *next_pc);

#endif /* ST_LEAF_CODE_H */
