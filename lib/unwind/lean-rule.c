#include "config.h"

#include <string.h>

#include "unwind/lean-rule.h"

static gboolean
fits16 (int32_t v)
{
  return v >= INT16_MIN && v <= INT16_MAX;
}

void
st_lean_rule_from_rule (const StUnwindRule *rule, const StFastArch *arch,
                        StLeanRule *lean)
{
  gboolean have_ra = FALSE, have_sp = FALSE;
  int32_t lo = INT32_MAX, hi = INT32_MIN;

  memset (lean, 0, sizeof *lean);
  lean->cfa = ST_LEAN_NONE;
  if (rule->kind != ST_RULE_OK || rule->cfa_kind != ST_CFA_REG)
    return;
  if (rule->cfa_reg == arch->sp)
    lean->cfa = ST_LEAN_SP;
  else if (rule->cfa_reg == arch->fp)
    lean->cfa = ST_LEAN_FP;
  else
    return;
  lean->cfa_offset = rule->cfa_offset;
  /* Undefined unless listed (a kept value would be a loop: not lean).  */
  lean->fp = ST_LEAN_FP_UNDEFINED;
  if (rule->same & (1u << arch->ra) || rule->same & (1u << arch->sp))
    goto none;
  if (rule->same & (1u << arch->fp))
    lean->fp = ST_LEAN_FP_SAME;

  for (unsigned i = 0; i < rule->n_regs; i++)
    {
      const StRegRule *r = &rule->regs[i];
      gboolean tracked = r->reg == arch->sp || r->reg == arch->fp
                         || r->reg == arch->ra;

      /* A read the bounds below cannot cover.  */
      if (r->kind == ST_REG_AT_REG)
        goto none;
      if (r->kind == ST_REG_AT_CFA)
        {
          lo = MIN (lo, r->offset);
          hi = MAX (hi, r->offset);
          if (!fits16 (r->offset))
            goto none;
          if (r->reg == arch->ra)
            {
              have_ra = TRUE;
              lean->ra_offset = r->offset;
            }
          else if (r->reg == arch->fp)
            {
              lean->fp = ST_LEAN_FP_AT_CFA;
              lean->fp_offset = r->offset;
            }
          else if (r->reg == arch->sp)
            goto none;
        }
      else if (r->kind == ST_REG_IS_CFA && r->reg == arch->sp)
        {
          if (!fits16 (r->offset))
            goto none;
          have_sp = TRUE;
          lean->sp_offset = r->offset;
        }
      else if (tracked)
        goto none;      /* from another register, or the CFA itself */
    }
  if (!have_sp)
    goto none;
  lean->outermost = !have_ra;
  if (lo <= hi)
    {
      lean->has_reads = TRUE;
      lean->read_lo = lo;
      lean->read_hi = hi;
    }
  return;

none:
  memset (lean, 0, sizeof *lean);
  lean->cfa = ST_LEAN_NONE;
}
