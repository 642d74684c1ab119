#include "config.h"

#include "unwind/code-bytes.h"
#include "unwind/leaf-code.h"

/* How far the code is read around the PC: the prologue rules look at
   most this far back to the function's start, the exit rules this far
   ahead (eight pops of r8-r15 and `rep ret`).  */
#define BEFORE 32
#define AFTER 32

gboolean
st_function_start (Dwfl_Module *mod, uint64_t addr, uint64_t *start)
{
  GElf_Off off;
  GElf_Sym sym;

  if (mod == NULL
      || dwfl_module_addrinfo (mod, addr, &off, &sym, NULL, NULL, NULL)
         == NULL
      || GELF_ST_TYPE (sym.st_info) != STT_FUNC || off >= sym.st_size)
    return FALSE;
  *start = addr - off;
  return TRUE;
}

gboolean
st_leaf_code_rule (const StFastArch *arch, const StProcessModule *m,
                   uint64_t pc, gboolean start_known, uint64_t start,
                   StLeafRule *rule)
{
  uint8_t buf[BEFORE + AFTER];
  StLeafCode code = { .start = ST_CODE_NO_SYMBOL };

  if (arch->leaf_rule == NULL)
    return FALSE;
  size_t before = 0;
  if (start_known && pc - start <= BEFORE)
    {
      code.start = ST_CODE_FUNCTION_START;
      before = pc - start;
    }
  else
    {
      code.start = start_known ? ST_CODE_IN_FUNCTION : ST_CODE_NO_SYMBOL;
      /* A few bytes before the PC, where the segment has them.  */
      before = pc >= m->start ? MIN (pc - m->start, (uint64_t) 16) : 0;
    }
  size_t got = 0;
  if (before > 0)
    {
      got = st_code_bytes_before (m, pc, buf, before);
      if (got < before && code.start == ST_CODE_FUNCTION_START)
        return FALSE;
      before = got;
    }
  size_t after = st_code_bytes (m, pc, buf + before, AFTER);
  if (after == 0)
    return FALSE;
  code.code = buf;
  code.len = before + after;
  code.pc_off = before;
  return arch->leaf_rule (&code, rule);
}

StLeafStep
st_leaf_rule_step (const StFastArch *arch, const StLeafRule *rule,
                   const StFrameRegs *cur, StSampleMemory *mem,
                   StProcessModules *pm, StFrameRegs *next, uint64_t *next_pc)
{
  if (!(cur->set & (1u << arch->sp)))
    return ST_LEAF_NOT_TAKEN;
  uint64_t sp = cur->regs[arch->sp], ra, fp;

  if (rule->ra_reg >= 0)
    {
      if (!(cur->set & (1u << rule->ra_reg)))
        return ST_LEAF_NOT_TAKEN;
      ra = cur->regs[rule->ra_reg];
    }
  else if (!st_sample_memory_read (mem, sp + rule->ra_at, &ra))
    return rule->guessed ? ST_LEAF_NOT_TAKEN : ST_LEAF_FAILED;
  if (rule->guessed && (ra == 0 || !st_return_follows_call (arch, pm, ra)
                        || st_process_modules_find (pm, ra - 1) == NULL))
    return ST_LEAF_NOT_TAKEN;
  if (ra == 0)
    return ST_LEAF_OUTERMOST;

  *next = *cur;
  next->regs[arch->sp] = sp + rule->sp_after;
  next->set |= 1u << arch->sp;
  if (rule->fp_at != ST_LEAF_FP_SAME)
    {
      if (st_sample_memory_read (mem, sp + rule->fp_at, &fp))
        {
          next->regs[arch->fp] = fp;
          next->set |= 1u << arch->fp;
        }
      else
        next->set &= ~(1u << arch->fp);
    }
  next->regs[arch->ra] = ra;
  next->set |= 1u << arch->ra;
  *next_pc = ra;
  return ST_LEAF_CALLER;
}
