/* From libdw's view of a CFI row to an StUnwindRule, and back to
   registers.  The shapes recognised are those dwarf_frame_cfa and
   dwarf_frame_register (elfutils 0.188) produce for the plain rules:
   CFA = DW_OP_bregx REG OFF; offset(N) = call_frame_cfa [plus_uconst N];
   val_offset(N) = the same + stack_value; register(R) = regx R; and the
   PLT's CFA expression (StCfaKind).  */
#include "config.h"

#include <dwarf.h>
#include <string.h>

#include "unwind/cfi-rules.h"

static void
fallback (StUnwindRule *rule, StFallbackReason why)
{
  rule->kind = ST_RULE_FALLBACK;
  rule->fallback = why;
  rule->n_regs = 0;
}

/* An offset libdw gives as an unsigned word, if it fits.  */
static gboolean
small_offset (Dwarf_Word value, int32_t *out)
{
  int64_t v = (int64_t) value;

  if (v < INT32_MIN || v > INT32_MAX)
    return FALSE;
  *out = (int32_t) v;
  return TRUE;
}

/* The register of DW_OP_bregN or DW_OP_bregx OP, or -1.  */
static int
breg (const Dwarf_Op *op)
{
  if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31)
    return op->atom - DW_OP_breg0;
  if (op->atom == DW_OP_bregx && op->number <= G_MAXUINT8)
    return (int) op->number;
  return -1;
}

/* Classifies the rule libdw gives register REGNO of FRAME.  */
static void
read_register (Dwarf_Frame *frame, unsigned regno, StCfiReg *out)
{
  Dwarf_Op mem[3], *ops;
  size_t nops;

  out->kind = ST_CFI_UNDEFINED;
  out->value = 0;
  /* libdwfl skips a register whose rule libdw cannot give.  */
  if (dwarf_frame_register (frame, regno, mem, &ops, &nops) != 0)
    return;
  if (nops == 0)
    {
      if (ops == NULL)
        out->kind = ST_CFI_SAME;
      return;   /* undefined (or an invalid rule, also skipped) */
    }
  if (ops[0].atom == DW_OP_regx && nops == 1)
    {
      out->kind = ST_CFI_REGISTER;
      out->value = ops[0].number;
      return;
    }
  out->kind = ST_CFI_EXPRESSION;
  /* DW_CFA_expression (libdw pushes the CFA first): DW_OP_bregN off.  */
  size_t first = ops[0].atom == DW_OP_call_frame_cfa ? 1 : 0;
  if (nops == first + 1 && breg (&ops[first]) >= 0)
    {
      out->kind = ST_CFI_AT_REG;
      out->reg = (uint8_t) breg (&ops[first]);
      out->value = ops[first].atom == DW_OP_bregx ? ops[first].number2
                                                  : ops[first].number;
      return;
    }
  if (ops[0].atom != DW_OP_call_frame_cfa)
    return;
  size_t i = 1;
  uint64_t offset = 0;
  if (i < nops && ops[i].atom == DW_OP_plus_uconst)
    offset = ops[i++].number;
  uint8_t kind = ST_CFI_OFFSET;
  if (i < nops && ops[i].atom == DW_OP_stack_value)
    {
      kind = ST_CFI_VAL_OFFSET;
      i++;
    }
  if (i != nops)
    return;
  out->kind = kind;
  out->value = offset;
}

/* The literal of DW_OP_litN OP, or -1.  */
static int
lit (const Dwarf_Op *op)
{
  return op->atom >= DW_OP_lit0 && op->atom <= DW_OP_lit31
         ? op->atom - DW_OP_lit0 : -1;
}

/* Whether OPS is the PLT's CFA expression (StCfaKind); if so, puts
   its operands in ROW.  */
static gboolean
plt_cfa (const Dwarf_Op *ops, size_t nops, StCfiRow *row)
{
  static const uint8_t shape[] = {
    0, 0, 0, DW_OP_and, 0, DW_OP_ge, 0, DW_OP_shl, DW_OP_plus
  };
  int base, pc, mask, min, shift;
  int32_t offset;

  if (nops != G_N_ELEMENTS (shape))
    return FALSE;
  for (size_t i = 0; i < nops; i++)
    if (shape[i] != 0 && ops[i].atom != shape[i])
      return FALSE;
  base = breg (&ops[0]);
  pc = breg (&ops[1]);
  mask = lit (&ops[2]);
  min = lit (&ops[4]);
  shift = lit (&ops[6]);
  if (base < 0 || pc < 0 || ops[1].number != 0 || mask < 0 || min < 0
      || shift < 0 || !small_offset (ops[0].number, &offset))
    return FALSE;
  row->cfa = ST_CFI_CFA_PLT;
  row->cfa_reg = base;
  row->cfa_offset = (uint64_t) (int64_t) offset;
  row->plt_reg = pc;
  row->plt_mask = mask;
  row->plt_min = min;
  row->plt_shift = shift;
  return TRUE;
}

void
st_cfi_row_from_frame (Dwarf_Frame *frame, unsigned n_regs, StCfiRow *row,
                       Dwarf_Addr *start, Dwarf_Addr *end)
{
  bool signal = false;
  Dwarf_Op *ops;
  size_t nops;

  memset (row, 0, sizeof *row);
  row->ra = dwarf_frame_info (frame, start, end, &signal);
  row->signal = signal;
  row->cfa = ST_CFI_CFA_NONE;
  if (dwarf_frame_cfa (frame, &ops, &nops) == 0 && nops > 0
      && !plt_cfa (ops, nops, row))
    {
      if (nops == 1 && ops[0].atom == DW_OP_bregx)
        {
          row->cfa = ST_CFI_CFA_REG;
          row->cfa_reg = ops[0].number;
          row->cfa_offset = ops[0].number2;
        }
      else if (nops == 2 && breg (&ops[0]) >= 0 && ops[1].atom == DW_OP_deref)
        {
          row->cfa = ST_CFI_CFA_DEREF;
          row->cfa_reg = (uint64_t) breg (&ops[0]);
          row->cfa_offset = ops[0].atom == DW_OP_bregx ? ops[0].number2
                                                       : ops[0].number;
        }
      else
        row->cfa = ST_CFI_CFA_EXPRESSION;
    }
  /* Else the CFA is undefined or invalid: libdwfl cannot compute it and
     every register relative to it stays unknown.  */
  for (unsigned regno = 0; regno < n_regs; regno++)
    read_register (frame, regno, &row->regs[regno]);
}

void
st_cfi_rule_from_row (const StCfiRow *row, unsigned n_regs, unsigned ra,
                      StUnwindRule *rule)
{
  memset (rule, 0, sizeof *rule);
  rule->kind = ST_RULE_OK;
  if (row->signal)
    {
      fallback (rule, ST_FALLBACK_SIGNAL);
      return;
    }
  if (row->ra < 0 || (unsigned) row->ra != ra)
    {
      fallback (rule, ST_FALLBACK_OTHER);
      return;
    }

  rule->cfa_reg = ST_RULE_NO_CFA;
  switch (row->cfa)
    {
    case ST_CFI_CFA_PLT:
      rule->cfa_kind = ST_CFA_PLT;
      rule->cfa_offset = (int32_t) row->cfa_offset;
      rule->plt_mask = row->plt_mask;
      rule->plt_min = row->plt_min;
      rule->plt_shift = row->plt_shift;
      /* An untracked register: libdwfl cannot read it either.  */
      if (row->cfa_reg < n_regs && row->plt_reg < n_regs)
        {
          rule->cfa_reg = row->cfa_reg;
          rule->plt_reg = row->plt_reg;
        }
      break;
    case ST_CFI_CFA_DEREF:
    case ST_CFI_CFA_REG:
      rule->cfa_kind = row->cfa == ST_CFI_CFA_DEREF ? ST_CFA_DEREF : ST_CFA_REG;
      if (!small_offset (row->cfa_offset, &rule->cfa_offset))
        {
          fallback (rule, ST_FALLBACK_OTHER);
          return;
        }
      if (row->cfa_reg < n_regs)
        rule->cfa_reg = row->cfa_reg;
      break;
    case ST_CFI_CFA_EXPRESSION:
      fallback (rule, ST_FALLBACK_EXPRESSION);
      return;
    default:
      break;
    }

  for (unsigned regno = 0; regno < n_regs; regno++)
    {
      const StCfiReg *r = &row->regs[regno];
      StRegRule out = { .reg = regno };

      switch (r->kind)
        {
        case ST_CFI_SAME:
          rule->same |= 1u << regno;
          continue;
        case ST_CFI_REGISTER:
          /* A register libdwfl does not track is never known.  */
          if (r->value >= n_regs)
            continue;
          out.kind = ST_REG_IN_REG;
          out.src = r->value;
          break;
        case ST_CFI_AT_REG:
          if (r->reg >= n_regs)
            continue;
          if (!small_offset (r->value, &out.offset))
            {
              fallback (rule, ST_FALLBACK_EXPRESSION);
              return;
            }
          out.kind = ST_REG_AT_REG;
          out.src = r->reg;
          break;
        case ST_CFI_OFFSET:
        case ST_CFI_VAL_OFFSET:
          if (!small_offset (r->value, &out.offset))
            {
              fallback (rule, ST_FALLBACK_EXPRESSION);
              return;
            }
          out.kind = r->kind == ST_CFI_OFFSET ? ST_REG_AT_CFA
                                              : ST_REG_IS_CFA;
          break;
        case ST_CFI_EXPRESSION:
          fallback (rule, ST_FALLBACK_EXPRESSION);
          return;
        default:
          continue;     /* undefined */
        }
      if (rule->n_regs == ST_RULE_MAX_REGS)
        {
          fallback (rule, ST_FALLBACK_OTHER);
          return;
        }
      rule->regs[rule->n_regs++] = out;
    }

  /* Grouped by kind, so applying the rule needs no switch; the order of
     registers does not matter (each rule reads only the callee's).  */
  StRegRule sorted[ST_RULE_MAX_REGS];
  unsigned n = 0;
  for (int kind = ST_REG_AT_CFA; kind <= ST_REG_AT_REG; kind++)
    for (unsigned i = 0; i < rule->n_regs; i++)
      if (rule->regs[i].kind == kind)
        sorted[n++] = rule->regs[i];
  for (unsigned i = 0; i < n; i++)
    {
      rule->n_at_cfa += sorted[i].kind == ST_REG_AT_CFA;
      rule->n_is_cfa += sorted[i].kind == ST_REG_IS_CFA;
      rule->n_in_reg += sorted[i].kind == ST_REG_IN_REG;
    }
  memcpy (rule->regs, sorted, n * sizeof *sorted);
}

void
st_cfi_rule_from_frame (Dwarf_Frame *frame, unsigned n_regs, unsigned ra,
                        StUnwindRule *rule, Dwarf_Addr *start,
                        Dwarf_Addr *end)
{
  StCfiRow row;

  st_cfi_row_from_frame (frame, n_regs, &row, start, end);
  st_cfi_rule_from_row (&row, n_regs, ra, rule);
}

void
st_cfi_rule_default_sp (StUnwindRule *rule, unsigned sp)
{
  if (rule->kind != ST_RULE_OK || rule->same & (1u << sp))
    return;
  /* The caller's stack lies above whatever the callee saved above the
     CFA: aarch64's lazy-binding trampoline (glibc's _dl_runtime_resolve)
     finds the return address the PLT pushed at CFA + 8, and its caller's
     sp is CFA + 16.  (The stack pointer stays 16-byte aligned.)  */
  int64_t above = 0;
  for (unsigned i = 0; i < rule->n_regs; i++)
    if (rule->regs[i].kind == ST_REG_AT_CFA && rule->regs[i].offset >= 0)
      above = MAX (above, ((int64_t) rule->regs[i].offset + 8 + 15) & ~15);
  if (above > INT32_MAX)
    {
      fallback (rule, ST_FALLBACK_OTHER);
      return;
    }
  for (unsigned i = 0; i < rule->n_regs; i++)
    if (rule->regs[i].reg == sp)
      {
        /* The ABI's sp = CFA, below what was saved: moved up.  */
        if (rule->regs[i].kind == ST_REG_IS_CFA && rule->regs[i].offset == 0)
          rule->regs[i].offset = (int32_t) above;
        return;
      }
  if (rule->n_regs == ST_RULE_MAX_REGS)
    {
      fallback (rule, ST_FALLBACK_OTHER);
      return;
    }
  /* Among the IS_CFA entries, before the IN_REG ones.  */
  unsigned at = rule->n_at_cfa + rule->n_is_cfa;
  memmove (&rule->regs[at + 1], &rule->regs[at],
           (rule->n_regs - at) * sizeof rule->regs[0]);
  rule->regs[at] = (StRegRule) { .reg = sp, .kind = ST_REG_IS_CFA,
                                 .offset = (int32_t) above };
  rule->n_regs++;
  rule->n_is_cfa++;
}

gboolean
st_cfi_rule_cfa (const StUnwindRule *rule, const StFrameRegs *cur,
                 StSampleMemory *mem, uint64_t *cfa)
{
  if (rule->cfa_reg == ST_RULE_NO_CFA || !(cur->set & (1u << rule->cfa_reg)))
    return FALSE;
  *cfa = cur->regs[rule->cfa_reg] + (int64_t) rule->cfa_offset;
  if (rule->cfa_kind == ST_CFA_DEREF)
    return st_sample_memory_read (mem, *cfa, cfa);
  if (rule->cfa_kind == ST_CFA_PLT)
    {
      if (!(cur->set & (1u << rule->plt_reg)))
        return FALSE;
      int64_t low = (int64_t) (cur->regs[rule->plt_reg] & rule->plt_mask);
      *cfa += (uint64_t) (low >= rule->plt_min) << rule->plt_shift;
    }
  return TRUE;
}

gboolean
st_cfi_rule_apply (const StUnwindRule *rule, const StFrameRegs *cur,
                   StFrameRegs *next, unsigned ra, StSampleMemory *mem,
                   uint64_t *pc)
{
  const StRegRule *r = rule->regs;
  const StRegRule *at_end = r + rule->n_at_cfa;
  const StRegRule *is_end = at_end + rule->n_is_cfa;
  const StRegRule *in_end = is_end + rule->n_in_reg;
  const StRegRule *end = r + rule->n_regs;

  /* Unchanged registers in one go: copying them all costs less than
     picking them out.  */
  memcpy (next->regs, cur->regs, sizeof next->regs);
  next->set = cur->set & rule->same;
  uint64_t cfa;
  if (st_cfi_rule_cfa (rule, cur, mem, &cfa))
    {
      for (; r < at_end; r++)
        if (st_sample_memory_read (mem, cfa + (int64_t) r->offset,
                                   &next->regs[r->reg]))
          next->set |= 1u << r->reg;
      for (; r < is_end; r++)
        {
          next->regs[r->reg] = cfa + (int64_t) r->offset;
          next->set |= 1u << r->reg;
        }
    }
  else
    r = is_end;   /* nothing relative to an unknown CFA is known */
  for (; r < in_end; r++)
    if (cur->set & (1u << r->src))
      {
        next->regs[r->reg] = cur->regs[r->src];
        next->set |= 1u << r->reg;
      }
  for (; r < end; r++)
    if (cur->set & (1u << r->src)
        && st_sample_memory_read (mem, cur->regs[r->src] + (int64_t) r->offset,
                                  &next->regs[r->reg]))
      next->set |= 1u << r->reg;
  if (!(next->set & (1u << ra)) || next->regs[ra] == 0)
    return FALSE;
  *pc = next->regs[ra];
  return TRUE;
}
