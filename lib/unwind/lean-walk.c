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
  return caller ? LEAN_CALLER : LEAN_OUTERMOST;
}

/* No CFI at the PC: the full walk's frame-pointer step, on the three
   registers (all it reads).  */
static LeanStep
frame_pointer_step (const StFastArch *arch, StSampleMemory *mem,
                    const LeanRegs *cur, uint64_t pc, LeanRegs *next,
                    uint64_t *next_pc)
{
  StFrameRegs in, out;

  to_frame_regs (arch, cur, pc, &in);
  gboolean caller = arch->no_cfi_step (&in, &out, mem, next_pc);
  from_frame_regs (arch, &out, next);
  return caller ? LEAN_CALLER : LEAN_FAILED;
}

/* The caller of the frame at PC (looked up at LOOKUP) with registers
   CUR.  *BY_FP: it was unwound by frame pointer.  */
static inline LeanStep
lean_step (StProcessModules *pm, const StFastArch *arch, StSampleMemory *mem,
           const LeanRegs *cur, uint64_t pc, uint64_t lookup, LeanRegs *next,
           uint64_t *next_pc, gboolean *by_fp)
{
  const StProcessModule *m = st_process_modules_find (pm, lookup);
  *by_fp = FALSE;
  if (G_UNLIKELY (m == NULL))
    {
      *by_fp = TRUE;
      return frame_pointer_step (arch, mem, cur, pc, next, next_pc);
    }
  StRuleCache *c = m->module->tables;
  uint32_t id = st_rule_cache_lookup_index (c, lookup - m->bias);
  const StLeanRule *l = st_rule_cache_lean (c, id);

  uint64_t cfa;
  if (G_LIKELY (l->cfa == ST_LEAN_SP))
    cfa = cur->sp + (int64_t) l->cfa_offset;
  else if (l->cfa == ST_LEAN_FP && cur->fp_known)
    cfa = cur->fp + (int64_t) l->cfa_offset;
  else if (st_rule_cache_rule (c, id)->kind == ST_RULE_NO_CFI)
    {
      *by_fp = TRUE;
      return frame_pointer_step (arch, mem, cur, pc, next, next_pc);
    }
  else
    return LEAN_BAIL;

  if (l->has_reads)
    {
      /* All reads in the stack copy (below its start, the offset wraps
         to a huge value): none can fail.  */
      uint64_t lo = cfa + (int64_t) l->read_lo - mem->sp;
      uint64_t span = (uint64_t) (l->read_hi - l->read_lo);
      if (G_UNLIKELY (lo >= mem->fast_end || span >= mem->fast_end - lo))
        return apply_full (st_rule_cache_rule (c, id), arch, mem, cur, pc,
                           next, next_pc);
    }
  if (l->outermost)
    return LEAN_OUTERMOST;

  /* Offsets in the stack copy (checked above).  */
  uint64_t at = cfa - mem->sp;
  uint64_t ra;
  memcpy (&ra, mem->stack + at + (int64_t) l->ra_offset, 8);
  if (ra == 0)
    return LEAN_OUTERMOST;
  switch (l->fp)
    {
    case ST_LEAN_FP_SAME:
      next->fp = cur->fp;
      next->fp_known = cur->fp_known;
      break;
    case ST_LEAN_FP_AT_CFA:
      memcpy (&next->fp, mem->stack + at + (int64_t) l->fp_offset, 8);
      next->fp_known = TRUE;
      break;
    default:
      next->fp_known = FALSE;
      break;
    }
  next->sp = cfa + (int64_t) l->sp_offset;
  *next_pc = ra;
  return LEAN_CALLER;
}

StLeanEnd
st_lean_walk (StProcessModules *pm, const StFastArch *arch,
              StSampleMemory *mem, uint64_t pc, uint64_t fp,
              gboolean fp_known, uint64_t *ips, uint64_t *sps, uint32_t max,
              uint32_t *n_out, uint32_t *n_fp)
{
  LeanRegs regs[2] = { { mem->sp, fp, fp_known } };
  LeanRegs *cur = &regs[0], *next = &regs[1];
  gboolean initial = TRUE, by_fp = FALSE;
  uint64_t next_pc = 0;
  uint32_t n = 0;
  LeanStep st = LEAN_FAILED;

  /* The full walk's loop (fast-unwinder.c), on three registers.  */
  for (;;)
    {
      if (!initial)
        {
          /* A caller is unwound before it is delivered.  */
          st = lean_step (pm, arch, mem, cur, pc, pc - 1, next, &next_pc,
                          &by_fp);
          if (st == LEAN_BAIL)
            return ST_LEAN_BAILED;
        }
      uint64_t ip = initial || pc == 0 ? pc : pc - 1;
      uint64_t sp = initial ? mem->sp : cur->sp;
      /* The loop guard's usual answer; anything else is for the full
         walk to decide.  */
      if (n > 0 && sp <= sps[n - 1])
        return ST_LEAN_BAILED;
      ips[n] = ip;
      sps[n] = sp;
      mem->frame = ++n;
      if (n >= max)
        return ST_LEAN_BAILED;
      if (initial || st == LEAN_FAILED)
        {
          /* The leaf's unwind, or the retry of a failed one.  */
          st = lean_step (pm, arch, mem, cur, pc, initial ? pc : pc - 1,
                          next, &next_pc, &by_fp);
          if (st == LEAN_BAIL)
            return ST_LEAN_BAILED;
        }
      if (st != LEAN_CALLER)
        break;
      *n_fp += by_fp;
      LeanRegs *t = cur;
      cur = next;
      next = t;
      pc = next_pc;
      initial = FALSE;
    }
  *n_out = n;
  return st == LEAN_OUTERMOST ? ST_LEAN_OUTERMOST : ST_LEAN_STOPPED;
}
