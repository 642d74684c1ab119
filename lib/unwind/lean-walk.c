#include "config.h"

#include <string.h>

#include "unwind/lean-rule.h"
#include "unwind/lean-walk.h"
#include "unwind/rule-cache.h"

typedef struct
{
  uint64_t sp;
  uint64_t fp;
  gboolean fp_known;
} LeanRegs;

typedef enum
{
  LEAN_CALLER,
  LEAN_OUTERMOST,
  LEAN_FAILED,          /* no CFI and no usable frame pointer */
  LEAN_NOT_CALL,        /* the frame's PC, a return address, follows no
                           call (return-check.h) */
  LEAN_BAIL,
} LeanStep;

static void
to_frame_regs (const StFastArch *arch, const LeanRegs *cur, uint64_t pc,
               StFrameRegs *regs)
{
  regs->set = (1u << arch->sp) | (1u << arch->ra);
  regs->regs[arch->sp] = cur->sp;
  regs->regs[arch->ra] = pc;
  regs->regs[arch->fp] = cur->fp;
  if (cur->fp_known)
    regs->set |= 1u << arch->fp;
}

static void
from_frame_regs (const StFastArch *arch, const StFrameRegs *regs,
                 LeanRegs *next)
{
  /* Both ways of unwinding give the stack pointer (a lean rule says
     CFA + offset; the frame-pointer step, frame pointer + 16).  */
  next->sp = regs->regs[arch->sp];
  next->fp = regs->regs[arch->fp];
  next->fp_known = (regs->set >> arch->fp) & 1;
}

/* A rule whose reads leave the stack copy, applied by the full walk's
   code (which records the failed reads) to the three registers.  */
static LeanStep
apply_full (const StUnwindRule *rule, const StFastArch *arch,
            StSampleMemory *mem, const LeanRegs *cur, uint64_t pc,
            LeanRegs *next, uint64_t *next_pc)
{
  StFrameRegs in, out;

  to_frame_regs (arch, cur, pc, &in);
  gboolean caller = st_cfi_rule_apply (rule, &in, &out, arch->ra, mem,
                                       next_pc);
  from_frame_regs (arch, &out, next);
  *next_pc &= arch->ra_mask;
  return caller ? LEAN_CALLER : LEAN_OUTERMOST;
}

/* No CFI at the PC: the full walk's frame-pointer step, on the three
   registers (all it reads).  */
static LeanStep
frame_pointer_step (const StFastArch *arch, StSampleMemory *mem,
                    const LeanRegs *cur, uint64_t pc, uint64_t lookup,
                    LeanRegs *next, uint64_t *next_pc)
{
  StFrameRegs in, out;

  if (!arch->lean_no_cfi)
    return LEAN_BAIL;
  to_frame_regs (arch, cur, pc, &in);
  StNoCfiFrame frame = { pc, lookup == pc, NULL, NULL };
  gboolean caller = arch->no_cfi_step (&in, &frame, &out, mem, next_pc);
  from_frame_regs (arch, &out, next);
  *next_pc &= arch->ra_mask;
  return caller ? LEAN_CALLER : LEAN_FAILED;
}

/* lean_step_any without the check of a caller's PC.  */
static LeanStep
lean_step_any_unchecked (StProcessModules *pm, const StFastArch *arch,
                         StSampleMemory *mem, const LeanRegs *cur, uint64_t pc,
                         uint64_t lookup, LeanRegs *next, uint64_t *next_pc,
                         gboolean *by_fp)
{
  const StProcessModule *m = st_process_modules_find (pm, lookup);
  *by_fp = FALSE;
  if (m == NULL)
    {
      *by_fp = TRUE;
      return frame_pointer_step (arch, mem, cur, pc, lookup, next, next_pc);
    }
  StRuleCache *c = m->module->tables;
  uint32_t id = st_rule_cache_lookup_index (c, lookup - m->bias);
  const StLeanRule *l = st_rule_cache_lean (c, id);

  if (l->cfa == ST_LEAN_SP || (l->cfa == ST_LEAN_FP && cur->fp_known))
    return apply_full (st_rule_cache_rule (c, id), arch, mem, cur, pc, next,
                       next_pc);
  if (st_rule_cache_rule (c, id)->kind == ST_RULE_NO_CFI)
    {
      StLeafRule leaf;
      if (lookup == pc && arch->leaf_rule != NULL
          && st_rule_cache_leaf_rule (c, m, pc, &leaf))
        return LEAN_BAIL;
      *by_fp = TRUE;
      return frame_pointer_step (arch, mem, cur, pc, lookup, next, next_pc);
    }
  return LEAN_BAIL;
}

/* The caller of the frame at PC (looked up at LOOKUP) with registers
   CUR, in any case: no module, no CFI, a rule whose reads may fail; but
   a sampled frame without CFI whose code tells where its return address
   is (leaf-code.h) is the full walk's.  *BY_FP: it was unwound by frame
   pointer.  CALLER: PC is a return address, to be checked.  */
static G_GNUC_NO_INLINE LeanStep
lean_step_any (StProcessModules *pm, const StFastArch *arch,
               StSampleMemory *mem, const LeanRegs *cur, uint64_t pc,
               uint64_t lookup, gboolean caller, LeanRegs *next,
               uint64_t *next_pc, gboolean *by_fp)
{
  LeanStep st = lean_step_any_unchecked (pm, arch, mem, cur, pc, lookup, next,
                                         next_pc, by_fp);
  if (st != LEAN_BAIL && caller
      && !st_rule_cache_return_ok (pm, arch, pc))
    return LEAN_NOT_CALL;
  return st;
}

/* The common case of lean_step_any, inline: a lean rule whose reads all
   lie in the stack copy.  LEAN_BAIL here means "not that case".  */
G_ALWAYS_INLINE static inline LeanStep
lean_step (StProcessModules *pm, const StFastArch *arch, StSampleMemory *mem,
           const LeanRegs *cur, uint64_t lookup, gboolean caller,
           gboolean mask_ra, LeanRegs *next, uint64_t *next_pc)
{
  const StProcessModule *m = st_process_modules_find (pm, lookup);
  if (G_UNLIKELY (m == NULL))
    return LEAN_BAIL;
  StRuleCache *c = m->module->tables;
  uint64_t addr = lookup - m->bias;
  StRuleHot *h = st_rule_cache_hot (c, addr);
  /* A caller's PC is a return address: it must follow a call (LOOKUP's
     module is its call's; st_rule_cache_return_ok without the second
     lookup).  One that does not is lean_step_any's to report.  Asked
     here, while H is at hand: a repeated one costs a compare.  */
  if (caller
      && !st_rule_cache_hot_follows_call (c, h, addr, arch, pm, lookup + 1))
    return LEAN_BAIL;
  const StLeanRule *l = st_rule_cache_lean (c, h->rule);

  uint64_t cfa;
  if (G_LIKELY (l->cfa == ST_LEAN_SP))
    cfa = cur->sp + (int64_t) l->cfa_offset;
  else if (l->cfa == ST_LEAN_FP && cur->fp_known)
    cfa = cur->fp + (int64_t) l->cfa_offset;
  else
    return LEAN_BAIL;

  /* Every read in the stack copy, so that none can fail.  (Below the
     copy's start the offset wraps to a huge value.)  */
  uint64_t lo = cfa + (int64_t) l->read_lo - mem->sp;
  if (G_UNLIKELY (lo >= mem->fast_end
                  || (uint64_t) (l->read_hi - l->read_lo)
                     >= mem->fast_end - lo))
    return LEAN_BAIL;
  if (l->outermost)
    return LEAN_OUTERMOST;

  const uint8_t *at = mem->stack + (cfa - mem->sp);
  uint64_t ra;
  memcpy (&ra, at + l->ra_offset, 8);
  if (mask_ra)
    ra &= arch->ra_mask;
  if (ra == 0)
    return LEAN_OUTERMOST;
  next->fp = cur->fp;
  next->fp_known = cur->fp_known;
  if (l->fp == ST_LEAN_FP_AT_CFA)
    {
      memcpy (&next->fp, at + l->fp_offset, 8);
      next->fp_known = TRUE;
    }
  else if (l->fp == ST_LEAN_FP_UNDEFINED)
    next->fp_known = FALSE;
  next->sp = cfa + (int64_t) l->sp_offset;
  *next_pc = ra;
  return LEAN_CALLER;
}

/* st_lean_walk, for return addresses masked (MASK_RA) or not.  */
G_ALWAYS_INLINE static inline StLeanEnd
lean_walk (StProcessModules *pm, const StFastArch *arch, StSampleMemory *mem,
           uint64_t pc, uint64_t fp, gboolean fp_known, uint64_t *ips,
           uint64_t *sps, uint32_t max, uint32_t *n_out, uint32_t *n_fp,
           gboolean mask_ra)
{
  LeanRegs regs[2] = { { mem->sp, fp, fp_known } };
  LeanRegs *cur = &regs[0], *next = &regs[1];
  gboolean by_fp = FALSE;
  uint64_t next_pc = 0;
  uint32_t n;
  LeanStep st;

  /* The full walk's loop (fast-unwinder.c) on three registers.  The
     leaf: delivered, then unwound with the rule at its PC; a failed
     unwind ends the walk.  */
  /* The walk is a chain of dependent reads (each frame's CFA comes from
     the previous one's), and the stack copy was just mapped, not read:
     ask for its first cache lines at once rather than one miss at a
     time.  (Every other line: the hardware fetches lines in pairs.)  */
  for (uint64_t off = 0; off < mem->stack_size && off < 4096; off += 128)
    __builtin_prefetch (mem->stack + off);
  ips[0] = pc;
  sps[0] = mem->sp;
  mem->frame = n = 1;
  if (n >= max)
    return ST_LEAN_BAILED;
  st = lean_step (pm, arch, mem, cur, pc, FALSE, mask_ra, next, &next_pc);
  if (st == LEAN_BAIL)
    st = lean_step_any (pm, arch, mem, cur, pc, pc, FALSE, next, &next_pc,
                        &by_fp);
  if (st == LEAN_BAIL)
    return ST_LEAN_BAILED;

  while (st == LEAN_CALLER)
    {
      /* A caller: unwound with the rule at its PC - 1, LOOKUP, then
         delivered.  (Only LOOKUP is kept: one register less.)  */
      *n_fp += by_fp;
      by_fp = FALSE;
      LeanRegs *t = cur;
      cur = next;
      next = t;
      uint64_t lookup = next_pc - 1;
      st = lean_step (pm, arch, mem, cur, lookup, TRUE, mask_ra, next,
                      &next_pc);
      if (G_UNLIKELY (st == LEAN_BAIL))
        {
          st = lean_step_any (pm, arch, mem, cur, lookup + 1, lookup, TRUE,
                              next, &next_pc, &by_fp);
          if (st == LEAN_BAIL)
            return ST_LEAN_BAILED;
          if (st == LEAN_NOT_CALL)
            {
              *n_out = n;
              return ST_LEAN_NOT_AFTER_CALL;
            }
        }
      /* The loop guard's usual answer; anything else is for the full
         walk to decide.  */
      if (G_UNLIKELY (cur->sp <= sps[n - 1]))
        return ST_LEAN_BAILED;
      ips[n] = lookup == G_MAXUINT64 ? 0 : lookup;     /* a PC of 0 as 0 */
      sps[n] = cur->sp;
      mem->frame = ++n;
      if (G_UNLIKELY (n >= max))
        return ST_LEAN_BAILED;
      /* A failed unwind is discarded and tried once more now that the
         frame is delivered (the reads it fails on then count for it).  */
      if (st == LEAN_FAILED)
        st = lean_step_any (pm, arch, mem, cur, lookup + 1, lookup, FALSE,
                            next, &next_pc, &by_fp);
      if (st == LEAN_BAIL)
        return ST_LEAN_BAILED;
    }
  *n_out = n;
  return st == LEAN_OUTERMOST ? ST_LEAN_OUTERMOST : ST_LEAN_STOPPED;
}

StLeanEnd
st_lean_walk (StProcessModules *pm, const StFastArch *arch,
              StSampleMemory *mem, uint64_t pc, uint64_t fp,
              gboolean fp_known, uint64_t *ips, uint64_t *sps, uint32_t max,
              uint32_t *n_out, uint32_t *n_fp)
{
  /* Without the mask where it keeps every bit (x86_64): one load and
     one register less in the loop.  */
  if (arch->ra_mask == G_MAXUINT64)
    return lean_walk (pm, arch, mem, pc, fp, fp_known, ips, sps, max, n_out,
                      n_fp, FALSE);
  return lean_walk (pm, arch, mem, pc, fp, fp_known, ips, sps, max, n_out,
                    n_fp, TRUE);
}
