/* CFA programs run with libdw 0.188's semantics (cfa-program.h).  */
#include "config.h"

#include <dwarf.h>
#include <string.h>

#include "unwind/cfa-program.h"
#include "unwind/dwarf-bytes.h"

#define MAX_REGNO 128           /* larger register numbers: libdw's */
#define MAX_REMEMBERED 16       /* deeper remember_state: libdw's */

enum { CFA_UNDEFINED, CFA_OFFSET, CFA_INVALID };

/* ARCH's ABI CFI, as libdw 0.188 runs it before every CIE.  */
static void
abi_state (StCfaState *s, const StFastArch *arch)
{
  memset (s, 0, sizeof *s);
  s->cfa = CFA_UNDEFINED;
  for (unsigned i = 0; i < arch->n_abi_same_value; i++)
    s->regs[arch->abi_same_value[i]].kind = ST_CFI_SAME;
  s->regs[arch->sp].kind = ST_CFI_VAL_OFFSET;  /* sp = CFA + 0 */
}

/* Sets register REGNO's rule; FALSE for a number beyond MAX_REGNO (left
   to libdw, which fails on huge ones).  */
static inline gboolean
set_reg (StCfaState *s, uint64_t regno, uint8_t kind, uint64_t value)
{
  if (regno >= MAX_REGNO)
    return FALSE;
  if (regno < ST_FRAME_MAX_REGS)
    {
      s->regs[regno].kind = kind;
      s->regs[regno].value = value;
    }
  return TRUE;
}

/* The row of state S, in libdw's terms.  */
static void
make_row (const StCfaCie *cie, const StCfaState *s, StCfiRow *row)
{
  memset (row, 0, sizeof *row);
  row->signal = cie->signal;
  row->ra = cie->ra;
  if (s->cfa == CFA_OFFSET)
    {
      row->cfa = ST_CFI_CFA_REG;
      row->cfa_reg = s->cfa_reg;
      row->cfa_offset = s->cfa_offset;
    }
  else
    row->cfa = ST_CFI_CFA_NONE;
  memcpy (row->regs, s->regs, cie->n_regs * sizeof row->regs[0]);
}

/* Where a program runs: a CIE's initial instructions (no rows, no
   restore), or an FDE's, whose rows (all, or only the one holding
   address FIND) go to FUNC.  */
typedef struct
{
  const StCfaCie *cie;
  gboolean in_cie;
  gboolean all;
  uint64_t find;
  uint64_t loc;         /* the current row's start */
  uint64_t end;         /* the FDE's end */
  StCfiRowFunc func;
  void *user;
} Run;

/* Ends the current row at NEW_LOC: hands it to FUNC if wanted.  */
static void
end_row (Run *r, const StCfaState *s, uint64_t new_loc, gboolean *done)
{
  uint64_t row_end = MIN (new_loc, r->end);

  if (row_end > r->loc
      && (r->all || (r->find >= r->loc && r->find < row_end)))
    {
      StCfiRow row;
      make_row (r->cie, s, &row);
      r->func (r->loc, row_end, &row, r->user);
      *done = !r->all;
    }
  *done = *done || new_loc >= r->end;
}

/* Moves the current location to NEW_LOC, ending the current row.
   *DONE when the rows wanted are out: libdw, too, runs no further for
   an address of the row just ended (or any in the FDE, once it is
   covered).  */
static inline gboolean
advance (Run *r, const StCfaState *s, uint64_t new_loc, gboolean *done)
{
  if (G_UNLIKELY (r->in_cie || new_loc < r->loc))
    return FALSE;
  /* Most advances end a row nobody asked for.  */
  if (r->all || new_loc > r->find || new_loc >= r->end)
    end_row (r, s, new_loc, done);
  r->loc = new_loc;
  return TRUE;
}

/* Runs the program [P, END) on *S.  FALSE for anything this reader
   leaves to libdw.  */
static gboolean
run_program (Run *r, StCfaState *s, const uint8_t *p, const uint8_t *end,
             uint64_t insn_vaddr, const uint8_t *insn_start)
{
  StCfaState stack[MAX_REMEMBERED];
  unsigned depth = 0;
  const StCfaCie *cie = r->cie;
  uint64_t reg, off, delta, loc;
  gboolean done = FALSE;

  while (p < end && !done)
    {
      uint8_t op = *p++;
      uint8_t low = op & 0x3f;

      switch (op >> 6)
        {
        case 1:         /* DW_CFA_advance_loc */
          if (!advance (r, s, r->loc + low * cie->code_align, &done))
            return FALSE;
          continue;
        case 2:         /* DW_CFA_offset */
          if (!st_read_uleb (&p, end, &off)
              || !set_reg (s, low, ST_CFI_OFFSET, off * cie->data_align))
            return FALSE;
          continue;
        case 3:         /* DW_CFA_restore */
          if (r->in_cie)
            return FALSE;
          if (low < ST_FRAME_MAX_REGS)
            s->regs[low] = cie->initial.regs[low];
          continue;
        default:
          break;
        }

      switch (op)
        {
        case DW_CFA_nop:
          break;
        case DW_CFA_set_loc:
          {
            uint64_t at = insn_vaddr + (uint64_t) (p - insn_start);
            if (!st_read_encoded (&p, end, cie->fde_encoding, at, 0, &loc)
                || !advance (r, s, loc, &done))
              return FALSE;
          }
          break;
        case DW_CFA_advance_loc1:
        case DW_CFA_advance_loc2:
        case DW_CFA_advance_loc4:
          {
            unsigned n = op == DW_CFA_advance_loc1 ? 1
                         : op == DW_CFA_advance_loc2 ? 2 : 4;
            if (!st_read_fixed (&p, end, n, &delta))
              return FALSE;
            loc = r->loc + delta * cie->code_align;
            if (loc < r->loc || !advance (r, s, loc, &done))
              return FALSE;
          }
          break;
        case DW_CFA_offset_extended:
        case DW_CFA_val_offset:
        case DW_CFA_offset_extended_sf:
        case DW_CFA_val_offset_sf:
          {
            gboolean sf = op == DW_CFA_offset_extended_sf
                          || op == DW_CFA_val_offset_sf;
            uint8_t kind = op == DW_CFA_val_offset || op == DW_CFA_val_offset_sf
                           ? ST_CFI_VAL_OFFSET : ST_CFI_OFFSET;
            if (!st_read_uleb (&p, end, &reg)
                || !(sf ? st_read_sleb (&p, end, &off)
                        : st_read_uleb (&p, end, &off))
                || !set_reg (s, reg, kind, off * cie->data_align))
              return FALSE;
          }
          break;
        case DW_CFA_GNU_negative_offset_extended:
          if (!st_read_uleb (&p, end, &reg) || !st_read_uleb (&p, end, &off)
              || !set_reg (s, reg, ST_CFI_OFFSET, -off * cie->data_align))
            return FALSE;
          break;
        case DW_CFA_restore_extended:
          if (r->in_cie || !st_read_uleb (&p, end, &reg) || reg >= MAX_REGNO)
            return FALSE;
          if (reg < ST_FRAME_MAX_REGS)
            s->regs[reg] = cie->initial.regs[reg];
          break;
        case DW_CFA_undefined:
        case DW_CFA_same_value:
          if (!st_read_uleb (&p, end, &reg)
              || !set_reg (s, reg, op == DW_CFA_undefined
                                   ? ST_CFI_UNDEFINED : ST_CFI_SAME, 0))
            return FALSE;
          break;
        case DW_CFA_register:
          if (!st_read_uleb (&p, end, &reg) || !st_read_uleb (&p, end, &off)
              || !set_reg (s, reg, ST_CFI_REGISTER, off))
            return FALSE;
          break;
        case DW_CFA_remember_state:
          if (depth == MAX_REMEMBERED)
            return FALSE;
          stack[depth++] = *s;
          break;
        case DW_CFA_restore_state:
          if (depth == 0)
            return FALSE;
          *s = stack[--depth];
          break;
        case DW_CFA_def_cfa:
        case DW_CFA_def_cfa_sf:
          if (!st_read_uleb (&p, end, &reg))
            return FALSE;
          if (op == DW_CFA_def_cfa ? !st_read_uleb (&p, end, &off)
                                   : !st_read_sleb (&p, end, &off))
            return FALSE;
          s->cfa = CFA_OFFSET;
          s->cfa_reg = reg;
          s->cfa_offset = op == DW_CFA_def_cfa ? off : off * cie->data_align;
          break;
        case DW_CFA_def_cfa_register:
          if (!st_read_uleb (&p, end, &reg))
            return FALSE;
          if (s->cfa != CFA_OFFSET)
            s->cfa = CFA_INVALID;
          s->cfa_reg = reg;
          break;
        case DW_CFA_def_cfa_offset:
        case DW_CFA_def_cfa_offset_sf:
          if (op == DW_CFA_def_cfa_offset ? !st_read_uleb (&p, end, &off)
                                          : !st_read_sleb (&p, end, &off))
            return FALSE;
          if (s->cfa != CFA_OFFSET)
            s->cfa = CFA_INVALID;
          s->cfa_offset = op == DW_CFA_def_cfa_offset
                          ? off : off * cie->data_align;
          break;
        case DW_CFA_GNU_args_size:
          if (!st_read_uleb (&p, end, &off))
            return FALSE;
          break;
        default:
          /* Expressions, DW_CFA_GNU_window_save, MIPS advance_loc8,
             unknown opcodes.  */
          return FALSE;
        }
    }
  if (!done && !r->in_cie)
    advance (r, s, r->end, &done);
  return TRUE;
}

gboolean
st_cfa_run_cie (StCfaCie *cie, const StFastArch *arch, const uint8_t *p,
                const uint8_t *end)
{
  Run r = { .cie = cie, .in_cie = TRUE };

  cie->n_regs = MIN (arch->n_regs, ST_FRAME_MAX_REGS);
  abi_state (&cie->initial, arch);
  return run_program (&r, &cie->initial, p, end, 0, p);
}

gboolean
st_cfa_run_fde (const StCfaCie *cie, const uint8_t *p, const uint8_t *end,
                uint64_t p_vaddr, uint64_t start, uint64_t fde_end,
                gboolean all, uint64_t find, StCfiRowFunc func, void *user)
{
  Run r = {
    .cie = cie, .all = all, .find = find, .loc = start, .end = fde_end,
    .func = func, .user = user,
  };
  StCfaState s = cie->initial;

  return run_program (&r, &s, p, end, p_vaddr, p);
}
