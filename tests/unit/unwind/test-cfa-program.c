/* The CFA program interpreter (unwind/cfa-program.h), DW_CFA_* opcode
   by opcode, on programs written here:

   - each program's rows (their ranges and every tracked register's
     rule) against rows computed by hand from the DWARF 5 standard
     (section 6.4) and the x86_64 ABI's initial rules as libdw 0.188
     runs them (rax, rbp, r12-r15, rip same_value, rsp the CFA, the rest
     undefined);
   - the same bytes, put in an in-memory ELF's .eh_frame, through libdw:
     at every address of the FDE, dwarf_cfi_addrframe's row must be the
     interpreter's, both for the whole program and run only as far as
     the row asked for;
   - what the interpreter leaves to libdw (expressions, window_save,
     unknown opcodes, register 128, states remembered 17 deep, an
     unbalanced restore_state, a location going backwards, advance or
     restore in a CIE): refused, while rows before it are still given
     when only they are asked for;
   - every program cut at every byte: an operand cut short is refused,
     nothing is read past the end (ASan).  */
#include "config.h"

#include <dwarf.h>
#include <elf.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "one-fde-image.h"
#include "unwind/cfa-program.h"

#define START 0x10000u
#define N_REGS 17       /* x86_64's tracked registers: rax..r15, rip */
#define RIP 16
#define RSP 7
#define RBP 6
#define RBX 3

#define ADV(n) (DW_CFA_advance_loc | (n))

/* --- rows expected, by hand ------------------------------------------------ */

/* A register's rule other than the base's; REG + 1 (0 ends a list).  */
typedef struct
{
  int reg1;
  uint8_t kind;
  int64_t value;
} Change;

#define R(reg, kind, value) { (reg) + 1, ST_CFI_##kind, (value) }

#define NO_CFA (-1)

typedef struct
{
  uint64_t start, end;          /* offsets from START */
  int cfa_reg;                  /* NO_CFA: undefined or invalid */
  int64_t cfa_offset;
  Change changes[10];
} ExpRow;

/* The row every program below starts from: x86_64's ABI rules as libdw
   0.188 runs them, then the usual CIE: CFA = rsp + 8, the return
   address at CFA - 8 (unless BARE: no CIE instructions).  */
static void
base_row (gboolean bare, StCfiRow *row)
{
  static const int same[] = { 0, 6, 12, 13, 14, 15, 16 };

  memset (row, 0, sizeof *row);
  row->ra = RIP;
  for (guint i = 0; i < G_N_ELEMENTS (same); i++)
    row->regs[same[i]].kind = ST_CFI_SAME;
  row->regs[RSP].kind = ST_CFI_VAL_OFFSET;
  if (bare)
    return;
  row->cfa = ST_CFI_CFA_REG;
  row->cfa_reg = RSP;
  row->cfa_offset = 8;
  row->regs[RIP].kind = ST_CFI_OFFSET;
  row->regs[RIP].value = (uint64_t) -8;
}

static void
expected_row (gboolean bare, const ExpRow *e, StCfiRow *row)
{
  base_row (bare, row);
  if (e->cfa_reg == NO_CFA)
    {
      row->cfa = ST_CFI_CFA_NONE;
      row->cfa_reg = 0;
      row->cfa_offset = 0;
    }
  else
    {
      row->cfa = ST_CFI_CFA_REG;
      row->cfa_reg = e->cfa_reg;
      row->cfa_offset = (uint64_t) e->cfa_offset;
    }
  for (const Change *c = e->changes; c->reg1 != 0; c++)
    {
      row->regs[c->reg1 - 1].kind = c->kind;
      row->regs[c->reg1 - 1].value = (uint64_t) c->value;
    }
}

/* --- running a program both ways ------------------------------------------- */

typedef struct
{
  const char *name;
  uint64_t code_align;
  int64_t data_align;
  gboolean bare;                /* the CIE has no instructions */
  uint64_t len;                 /* of the FDE */
  const uint8_t *insn;
  size_t n_insn;
  const ExpRow *rows;           /* NULL: refused */
  guint n_rows;
} Program;

typedef struct
{
  uint64_t start, end;
  StCfiRow row;
} Row;

static void
collect (uint64_t start, uint64_t end, const StCfiRow *row, void *user)
{
  Row r = { start, end, *row };
  g_array_append_val ((GArray *) user, r);
}

static const uint8_t usual_cie[] = { DW_CFA_def_cfa, RSP, 8,
                                     DW_CFA_offset | RIP, 1 };

static void
open_program (const Program *p, OneFde *o)
{
  OneFdeSpec spec = {
    .augmentation = "zR", .code_align = p->code_align,
    .data_align = p->data_align, .ra = RIP,
    .cie_insn = usual_cie, .n_cie_insn = p->bare ? 0 : sizeof usual_cie,
    .start = START, .len = p->len, .fde_insn = p->insn,
    .n_fde_insn = p->n_insn,
  };

  one_fde_open (o, &spec);
}

static void
cie_of (const Program *p, const OneFde *o, StCfaCie *cie)
{
  memset (cie, 0, sizeof *cie);
  cie->code_align = p->code_align;
  cie->data_align = (uint64_t) p->data_align;
  cie->fde_encoding = DW_EH_PE_pcrel | DW_EH_PE_sdata4;
  cie->ra = RIP;
  g_assert_true (st_cfa_run_cie (cie, st_fast_arch (EM_X86_64), o->cie_insn,
                                 o->cie_insn_end));
}

static gboolean
run (const StCfaCie *cie, const OneFde *o, const Program *p, gboolean all,
     uint64_t find, GArray *rows)
{
  g_array_set_size (rows, 0);
  return st_cfa_run_fde (cie, o->fde_insn, o->fde_insn_end,
                         o->fde_insn_vaddr, START, START + p->len, all,
                         find, collect, rows);
}

static void
report_rows (const char *what, const StCfiRow *a, const StCfiRow *b)
{
  g_test_message ("%s: cfa %u %" G_GINT64_MODIFIER "u%+" G_GINT64_MODIFIER
                  "d / %u %" G_GINT64_MODIFIER "u%+" G_GINT64_MODIFIER "d",
                  what, a->cfa, a->cfa_reg, (int64_t) a->cfa_offset, b->cfa,
                  b->cfa_reg, (int64_t) b->cfa_offset);
  for (guint r = 0; r < N_REGS; r++)
    if (a->regs[r].kind != b->regs[r].kind
        || a->regs[r].value != b->regs[r].value)
      g_test_message ("  reg %u: kind %u value %" G_GINT64_MODIFIER "d / "
                      "kind %u value %" G_GINT64_MODIFIER "d", r,
                      a->regs[r].kind, (int64_t) a->regs[r].value,
                      b->regs[r].kind, (int64_t) b->regs[r].value);
}

static void
assert_same_row (const char *what, uint64_t addr, const StCfiRow *got,
                 const StCfiRow *want)
{
  if (memcmp (got, want, sizeof *got) != 0)
    {
      report_rows (what, got, want);
      g_error ("%s: rows differ at %#" G_GINT64_MODIFIER "x", what, addr);
    }
}

/* Runs P: its rows against the hand-computed ones and, address by
   address, against libdw; run for one address, the row holding it.  */
static void
check_program (const Program *p)
{
  OneFde o;
  StCfaCie cie;
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (Row));

  open_program (p, &o);
  cie_of (p, &o, &cie);
  g_assert_true (run (&cie, &o, p, TRUE, 0, rows));
  if (rows->len != p->n_rows)
    g_error ("%s: %u rows, want %u", p->name, rows->len, p->n_rows);
  for (guint i = 0; i < rows->len; i++)
    {
      const Row *r = &g_array_index (rows, Row, i);
      StCfiRow want;
      expected_row (p->bare, &p->rows[i], &want);
      g_assert_cmphex (r->start, ==, START + p->rows[i].start);
      g_assert_cmphex (r->end, ==, START + p->rows[i].end);
      assert_same_row (p->name, r->start, &r->row, &want);
    }

  GArray *one = g_array_new (FALSE, FALSE, sizeof (Row));
  for (uint64_t a = START; a < START + p->len; a++)
    {
      const Row *r = NULL;
      for (guint i = 0; i < rows->len; i++)
        if (a >= g_array_index (rows, Row, i).start
            && a < g_array_index (rows, Row, i).end)
          r = &g_array_index (rows, Row, i);
      g_assert_nonnull (r);

      /* libdw on the same bytes.  */
      Dwarf_Frame *frame;
      Dwarf_Addr start, end;
      StCfiRow theirs;
      if (dwarf_cfi_addrframe (o.cfi, a, &frame) != 0)
        g_error ("%s: %#" G_GINT64_MODIFIER "x: libdw: %s", p->name, a,
                 dwarf_errmsg (-1));
      st_cfi_row_from_frame (frame, N_REGS, &theirs, &start, &end);
      free (frame);
      assert_same_row (p->name, a, &r->row, &theirs);
      /* libdw's row ends where the next begins (which may be past the
         FDE).  */
      g_assert_cmphex (MIN (end, START + p->len), ==, r->end);

      /* Only as far as the row of A.  */
      g_assert_true (run (&cie, &o, p, FALSE, a, one));
      g_assert_cmpuint (one->len, ==, 1);
      g_assert_true (memcmp (&g_array_index (one, Row, 0), r, sizeof *r)
                     == 0);
    }
  g_array_free (one, TRUE);
  g_array_free (rows, TRUE);
  one_fde_close (&o);
}

#define PROGRAM(name_, code_, data_, bare_, len_, insn_, rows_) \
  { name_, code_, data_, bare_, len_, insn_, sizeof insn_, rows_, \
    G_N_ELEMENTS (rows_) }

/* --- the programs ---------------------------------------------------------- */

/* DW_CFA_advance_loc and DW_CFA_def_cfa_offset.  */
static const uint8_t p_advance[] = {
  ADV (1), DW_CFA_def_cfa_offset, 16, ADV (3), DW_CFA_def_cfa_offset, 24,
};
static const ExpRow r_advance[] = {
  { 0, 1, RSP, 8, { { 0 } } },
  { 1, 4, RSP, 16, { { 0 } } },
  { 4, 16, RSP, 24, { { 0 } } },
};

/* advance_loc, advance_loc1, 2 and 4, factored by a code alignment of
   4; data alignment -4.  */
static const uint8_t p_advance_sizes[] = {
  ADV (1), DW_CFA_def_cfa_offset, 16,
  DW_CFA_advance_loc1, 2, DW_CFA_def_cfa_offset, 24,
  DW_CFA_advance_loc2, 3, 0, DW_CFA_def_cfa_offset, 32,
  DW_CFA_advance_loc4, 1, 0, 0, 0, DW_CFA_offset | RBX, 3,
};
static const ExpRow r_advance_sizes[] = {
  { 0, 4, RSP, 8, { R (RIP, OFFSET, -4) } },
  { 4, 12, RSP, 16, { R (RIP, OFFSET, -4) } },
  { 12, 24, RSP, 24, { R (RIP, OFFSET, -4) } },
  { 24, 28, RSP, 32, { R (RIP, OFFSET, -4) } },
  { 28, 64, RSP, 32, { R (RIP, OFFSET, -4), R (RBX, OFFSET, -12) } },
};

/* DW_CFA_offset (factored by -8), DW_CFA_restore: back to the CIE's
   rule (rip), or the ABI's (rbx undefined, rbp same_value).  */
static const uint8_t p_restore[] = {
  ADV (2), DW_CFA_offset | RBX, 2, DW_CFA_offset | RBP, 3,
  DW_CFA_offset | RIP, 3, ADV (2), DW_CFA_restore | RBX,
  DW_CFA_restore | RBP, DW_CFA_restore | RIP,
};
static const ExpRow r_restore[] = {
  { 0, 2, RSP, 8, { { 0 } } },
  { 2, 4, RSP, 8, { R (RBX, OFFSET, -16), R (RBP, OFFSET, -24),
                    R (RIP, OFFSET, -24) } },
  { 4, 16, RSP, 8, { { 0 } } },
};

/* The extended forms, signed and unsigned, val_offset, the GNU negative
   offset, register, undefined, same_value, restore_extended, and a
   register the fast engine does not track (20: no visible change).  */
static const uint8_t p_extended[] = {
  DW_CFA_offset_extended, RBX, 2,
  DW_CFA_offset_extended_sf, 12, 0x7d,          /* -3 * -8 = 24 */
  DW_CFA_val_offset, 13, 1,
  DW_CFA_val_offset_sf, 14, 0x7f,               /* -1 * -8 = 8 */
  DW_CFA_GNU_negative_offset_extended, 15, 2,   /* -2 * -8 = 16 */
  DW_CFA_register, 1, 5,
  DW_CFA_undefined, RBP,
  DW_CFA_same_value, 2,
  DW_CFA_offset_extended, 20, 1,
  ADV (4), DW_CFA_restore_extended, 12, DW_CFA_restore_extended, 1,
  DW_CFA_restore_extended, 20,
};
static const ExpRow r_extended[] = {
  { 0, 4, RSP, 8, { R (RBX, OFFSET, -16), R (12, OFFSET, 24),
                    R (13, VAL_OFFSET, -8), R (14, VAL_OFFSET, 8),
                    R (15, OFFSET, 16), R (1, REGISTER, 5),
                    R (RBP, UNDEFINED, 0), R (2, SAME, 0) } },
  { 4, 16, RSP, 8, { R (RBX, OFFSET, -16), R (13, VAL_OFFSET, -8),
                     R (14, VAL_OFFSET, 8), R (15, OFFSET, 16),
                     R (RBP, UNDEFINED, 0), R (2, SAME, 0) } },
};

/* remember_state saves the whole row, CFA included; restore_state
   brings it back; nested two deep.  */
static const uint8_t p_remember[] = {
  ADV (1), DW_CFA_def_cfa_offset, 16, DW_CFA_offset | RBP, 2,
  DW_CFA_remember_state,
  ADV (1), DW_CFA_def_cfa, RBP, 16, DW_CFA_undefined, RBP,
  DW_CFA_remember_state,
  ADV (1), DW_CFA_def_cfa_offset, 32, DW_CFA_offset | RBX, 4,
  ADV (1), DW_CFA_restore_state,
  ADV (1), DW_CFA_restore_state,
  ADV (1), DW_CFA_def_cfa_offset, 8,
};
static const ExpRow r_remember[] = {
  { 0, 1, RSP, 8, { { 0 } } },
  { 1, 2, RSP, 16, { R (RBP, OFFSET, -16) } },
  { 2, 3, RBP, 16, { R (RBP, UNDEFINED, 0) } },
  { 3, 4, RBP, 32, { R (RBP, UNDEFINED, 0), R (RBX, OFFSET, -32) } },
  { 4, 5, RBP, 16, { R (RBP, UNDEFINED, 0) } },
  { 5, 6, RSP, 16, { R (RBP, OFFSET, -16) } },
  { 6, 16, RSP, 8, { R (RBP, OFFSET, -16) } },
};

/* The CFA's definitions: def_cfa_sf and def_cfa_offset_sf (factored),
   def_cfa_register keeping the offset, def_cfa (not factored), an
   offset beyond 32 bits, a negative one (modulo 2^64).  */
static const uint8_t p_def_cfa[] = {
  DW_CFA_def_cfa_sf, RBP, 0x7e,                 /* -2 * -8 = 16 */
  ADV (1), DW_CFA_def_cfa_register, RSP,
  ADV (1), DW_CFA_def_cfa_offset_sf, 0x7d,      /* -3 * -8 = 24 */
  ADV (1), DW_CFA_def_cfa, RBX, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20,
  ADV (1), DW_CFA_def_cfa_sf, RSP, 0x01,        /* 1 * -8 */
  ADV (1), DW_CFA_def_cfa, RSP, 0,
};
static const ExpRow r_def_cfa[] = {
  { 0, 1, RBP, 16, { { 0 } } },
  { 1, 2, RSP, 16, { { 0 } } },
  { 2, 3, RSP, 24, { { 0 } } },
  { 3, 4, RBX, (int64_t) 1 << 40, { { 0 } } },
  { 4, 5, RSP, -8, { { 0 } } },
  { 5, 16, RSP, 0, { { 0 } } },
};

/* A CIE without instructions: the CFA undefined; changing its register
   or offset alone leaves it invalid (libdw gives none); def_cfa defines
   it; restore of rip gives the ABI's same_value.  */
static const uint8_t p_invalid_cfa[] = {
  DW_CFA_def_cfa_register, RBP, ADV (1), DW_CFA_def_cfa_offset, 32,
  ADV (1), DW_CFA_def_cfa, RSP, 16, DW_CFA_offset | RIP, 1,
  ADV (1), DW_CFA_restore | RIP,
};
static const ExpRow r_invalid_cfa[] = {
  { 0, 1, NO_CFA, 0, { { 0 } } },
  { 1, 2, NO_CFA, 0, { { 0 } } },
  { 2, 3, RSP, 16, { R (RIP, OFFSET, -8) } },
  { 3, 16, RSP, 16, { { 0 } } },
};

/* DW_CFA_nop and DW_CFA_GNU_args_size change no rule.  */
static const uint8_t p_args_size[] = {
  DW_CFA_GNU_args_size, 16, DW_CFA_nop, ADV (2), DW_CFA_GNU_args_size, 0,
  DW_CFA_def_cfa_offset, 16, DW_CFA_nop,
};
static const ExpRow r_args_size[] = {
  { 0, 2, RSP, 8, { { 0 } } },
  { 2, 16, RSP, 16, { { 0 } } },
};

/* An advance past the FDE's end: the last row ends with the FDE, what
   follows is no row of it.  */
static const uint8_t p_past_end[] = {
  ADV (3), DW_CFA_def_cfa_offset, 16, DW_CFA_advance_loc1, 0x50,
  DW_CFA_def_cfa_offset, 32,
};
static const ExpRow r_past_end[] = {
  { 0, 3, RSP, 8, { { 0 } } },
  { 3, 16, RSP, 16, { { 0 } } },
};

static void
test_opcodes (void)
{
  static const Program programs[] = {
    PROGRAM ("advance", 1, -8, FALSE, 16, p_advance, r_advance),
    PROGRAM ("advance-sizes", 4, -4, FALSE, 64, p_advance_sizes,
             r_advance_sizes),
    PROGRAM ("restore", 1, -8, FALSE, 16, p_restore, r_restore),
    PROGRAM ("extended", 1, -8, FALSE, 16, p_extended, r_extended),
    PROGRAM ("remember", 1, -8, FALSE, 16, p_remember, r_remember),
    PROGRAM ("def-cfa", 1, -8, FALSE, 16, p_def_cfa, r_def_cfa),
    PROGRAM ("invalid-cfa", 1, -8, TRUE, 16, p_invalid_cfa, r_invalid_cfa),
    PROGRAM ("args-size", 1, -8, FALSE, 16, p_args_size, r_args_size),
    PROGRAM ("past-end", 1, -8, FALSE, 16, p_past_end, r_past_end),
  };

  for (guint i = 0; i < G_N_ELEMENTS (programs); i++)
    check_program (&programs[i]);
}

/* The x86_64 ABI's initial CFI through the usual CIE: CFA = rsp + 8,
   the return address at CFA - 8, rsp the CFA; in the CIE's state.  */
static void
test_cie (void)
{
  static const uint8_t none[] = { DW_CFA_nop };
  static const Program p = { "cie", 1, -8, FALSE, 16, none, 0, NULL, 0 };
  OneFde o;
  StCfaCie cie;
  StCfiRow want;

  open_program (&p, &o);
  cie_of (&p, &o, &cie);
  base_row (FALSE, &want);
  g_assert_cmpuint (cie.initial.cfa_reg, ==, RSP);
  g_assert_cmpuint (cie.initial.cfa_offset, ==, 8);
  for (guint r = 0; r < N_REGS; r++)
    {
      g_assert_cmpuint (cie.initial.regs[r].kind, ==, want.regs[r].kind);
      g_assert_cmphex (cie.initial.regs[r].value, ==, want.regs[r].value);
    }
  one_fde_close (&o);

  /* A CIE's instructions may neither advance nor restore.  */
  static const uint8_t advance[] = { ADV (1) };
  static const uint8_t loc1[] = { DW_CFA_advance_loc1, 1 };
  static const uint8_t restore[] = { DW_CFA_restore | RBX };
  static const uint8_t restore_ext[] = { DW_CFA_restore_extended, RBX };
  static const uint8_t set_loc[] = { DW_CFA_set_loc, 0, 0, 0, 0 };
  static const struct { const uint8_t *p; size_t n; } bad[] = {
    { advance, sizeof advance }, { loc1, sizeof loc1 },
    { restore, sizeof restore }, { restore_ext, sizeof restore_ext },
    { set_loc, sizeof set_loc },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      memset (&cie, 0, sizeof cie);
      cie.code_align = 1;
      cie.data_align = (uint64_t) -8;
      cie.fde_encoding = DW_EH_PE_pcrel | DW_EH_PE_sdata4;
      cie.ra = RIP;
      g_assert_false (st_cfa_run_cie (&cie, st_fast_arch (EM_X86_64),
                                      bad[i].p, bad[i].p + bad[i].n));
    }
}

/* DW_CFA_set_loc, pc-relative as the CIE's 'R' says: its operand is
   relative to its own address.  The program is built twice: the first
   time to learn where its instructions lie.  */
static void
test_set_loc (void)
{
  uint8_t insn[] = {
    DW_CFA_def_cfa_offset, 16,
    DW_CFA_set_loc, 0, 0, 0, 0, DW_CFA_def_cfa_offset, 24,
    DW_CFA_set_loc, 0, 0, 0, 0, DW_CFA_offset | RBX, 2,
  };
  static const ExpRow rows[] = {
    { 0, 5, RSP, 16, { { 0 } } },
    { 5, 9, RSP, 24, { { 0 } } },
    { 9, 16, RSP, 24, { R (RBX, OFFSET, -16) } },
  };
  Program p = PROGRAM ("set-loc", 1, -8, FALSE, 16, insn, rows);
  OneFde o;

  open_program (&p, &o);
  uint64_t vaddr = o.fde_insn_vaddr;
  one_fde_close (&o);
  int32_t d = (int32_t) (START + 5 - (vaddr + 3));
  memcpy (insn + 3, &d, 4);
  d = (int32_t) (START + 9 - (vaddr + 10));
  memcpy (insn + 10, &d, 4);
  check_program (&p);

  /* Backwards: refused, left to libdw (whose rows then depend on the
     address asked for).  */
  d = (int32_t) (START + 2 - (vaddr + 10));
  memcpy (insn + 10, &d, 4);
  StCfaCie cie;
  GArray *got = g_array_new (FALSE, FALSE, sizeof (Row));
  open_program (&p, &o);
  cie_of (&p, &o, &cie);
  g_assert_false (run (&cie, &o, &p, TRUE, 0, got));
  g_assert_false (run (&cie, &o, &p, FALSE, START + 12, got));
  /* The rows before it are read alone.  */
  g_assert_true (run (&cie, &o, &p, FALSE, START + 3, got));
  g_assert_cmpuint (got->len, ==, 1);
  g_assert_cmphex (g_array_index (got, Row, 0).end, ==, START + 5);
  /* The row the backward move would end is not.  */
  g_assert_false (run (&cie, &o, &p, FALSE, START + 6, got));
  g_array_free (got, TRUE);
  one_fde_close (&o);
}

/* What the interpreter leaves to libdw, after a first row of its own
   (CFA = rsp + 16 from offset 2): the whole program is refused; the
   first row, asked for alone, is still read, and is libdw's.  */
static void
test_left_to_libdw (void)
{
#define PRE ADV (2), DW_CFA_def_cfa_offset, 16, ADV (2)
  static const uint8_t def_cfa_expr[] = {
    PRE, DW_CFA_def_cfa_expression, 2, DW_OP_breg7, 8,
  };
  static const uint8_t expr[] = {
    PRE, DW_CFA_expression, RBX, 2, DW_OP_breg7, 8,
  };
  static const uint8_t val_expr[] = {
    PRE, DW_CFA_val_expression, RBX, 2, DW_OP_breg7, 8,
  };
  static const uint8_t window_save[] = { PRE, DW_CFA_GNU_window_save };
  static const uint8_t mips_loc8[] = {
    PRE, DW_CFA_MIPS_advance_loc8, 1, 0, 0, 0, 0, 0, 0, 0,
  };
  static const uint8_t unknown[] = { PRE, 0x3c };
  static const uint8_t reg128[] = {
    PRE, DW_CFA_offset_extended, 0x80, 0x01, 1,
  };
  static const uint8_t restore128[] = {
    PRE, DW_CFA_restore_extended, 0x80, 0x01,
  };
  static const uint8_t unbalanced[] = { PRE, DW_CFA_restore_state };
  static const uint8_t deep[] = {
    PRE, DW_CFA_remember_state, DW_CFA_remember_state, DW_CFA_remember_state,
    DW_CFA_remember_state, DW_CFA_remember_state, DW_CFA_remember_state,
    DW_CFA_remember_state, DW_CFA_remember_state, DW_CFA_remember_state,
    DW_CFA_remember_state, DW_CFA_remember_state, DW_CFA_remember_state,
    DW_CFA_remember_state, DW_CFA_remember_state, DW_CFA_remember_state,
    DW_CFA_remember_state, DW_CFA_remember_state,
  };
  static const struct { const char *name; const uint8_t *p; size_t n;
                        gboolean libdw_reads; } cases[] = {
    { "def_cfa_expression", def_cfa_expr, sizeof def_cfa_expr, TRUE },
    { "expression", expr, sizeof expr, TRUE },
    { "val_expression", val_expr, sizeof val_expr, TRUE },
    { "GNU_window_save", window_save, sizeof window_save, TRUE },
    { "MIPS_advance_loc8", mips_loc8, sizeof mips_loc8, TRUE },
    { "unknown", unknown, sizeof unknown, FALSE },
    { "register 128", reg128, sizeof reg128, TRUE },
    { "restore 128", restore128, sizeof restore128, TRUE },
    { "unbalanced restore_state", unbalanced, sizeof unbalanced, FALSE },
    { "17 deep", deep, sizeof deep, TRUE },
  };
#undef PRE

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Program p = { cases[i].name, 1, -8, FALSE, 16, cases[i].p,
                    cases[i].n, NULL, 0 };
      OneFde o;
      StCfaCie cie;
      GArray *got = g_array_new (FALSE, FALSE, sizeof (Row));
      Dwarf_Frame *frame;
      Dwarf_Addr start, end;
      StCfiRow theirs;

      open_program (&p, &o);
      cie_of (&p, &o, &cie);
      if (run (&cie, &o, &p, TRUE, 0, got))
        g_error ("%s: read", cases[i].name);
      /* The rows before it, alone, are read: libdw's.  */
      for (uint64_t a = START; a < START + 4; a++)
        {
          g_assert_true (run (&cie, &o, &p, FALSE, a, got));
          g_assert_cmpuint (got->len, ==, 1);
          const Row *r = &g_array_index (got, Row, 0);
          g_assert_cmphex (r->end, ==, a < START + 2 ? START + 2 : START + 4);
          g_assert_cmpint (dwarf_cfi_addrframe (o.cfi, a, &frame), ==, 0);
          st_cfi_row_from_frame (frame, N_REGS, &theirs, &start, &end);
          free (frame);
          assert_same_row (cases[i].name, a, &r->row, &theirs);
        }
      /* The row of the part left to libdw is not given.  */
      g_assert_false (run (&cie, &o, &p, FALSE, START + 4, got));
      /* libdw reads all but an unknown opcode and an unbalanced
         restore_state (0.188).  */
      int libdw = dwarf_cfi_addrframe (o.cfi, START + 4, &frame);
      if (libdw == 0)
        free (frame);
      g_assert_cmpint (libdw == 0, ==, cases[i].libdw_reads);

      g_array_free (got, TRUE);
      one_fde_close (&o);
    }

  /* 16 deep is still the interpreter's.  */
  static const uint8_t deep16[] = {
    DW_CFA_remember_state, DW_CFA_remember_state, DW_CFA_remember_state,
    DW_CFA_remember_state, DW_CFA_remember_state, DW_CFA_remember_state,
    DW_CFA_remember_state, DW_CFA_remember_state, DW_CFA_remember_state,
    DW_CFA_remember_state, DW_CFA_remember_state, DW_CFA_remember_state,
    DW_CFA_remember_state, DW_CFA_remember_state, DW_CFA_remember_state,
    DW_CFA_remember_state, DW_CFA_def_cfa_offset, 16, ADV (4),
    DW_CFA_restore_state,
  };
  static const ExpRow r_deep16[] = {
    { 0, 4, RSP, 16, { { 0 } } },
    { 4, 16, RSP, 8, { { 0 } } },
  };
  Program p16 = PROGRAM ("16 deep", 1, -8, FALSE, 16, deep16, r_deep16);
  check_program (&p16);
}

/* Every program cut at every byte, in a buffer of exactly that size:
   an operand cut short is refused, and nothing past the end is read
   (ASan); a cut between instructions leaves a shorter program, read.  */
static void
test_truncated (void)
{
  static const uint8_t program[] = {
    DW_CFA_def_cfa_offset, 0x90, 0x01,          /* 144 */
    DW_CFA_offset_extended_sf, RBX, 0x7e,
    DW_CFA_advance_loc2, 4, 0,
    DW_CFA_def_cfa, RSP, 0x10,
    DW_CFA_advance_loc4, 2, 0, 0, 0,
    DW_CFA_register, 1, 5,
    DW_CFA_set_loc, 0x10, 0, 0, 0,
  };
  /* Where each instruction ends.  */
  static const size_t boundaries[] = { 0, 3, 6, 9, 12, 17, 20, 25 };
  OneFde o;
  StCfaCie cie;
  Program p = { "cut", 1, -8, FALSE, 32, program, sizeof program, NULL, 0 };
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (Row));

  open_program (&p, &o);
  cie_of (&p, &o, &cie);
  for (size_t len = 0; len <= sizeof program; len++)
    {
      uint8_t *copy = g_memdup2 (program, len == 0 ? 1 : len);
      gboolean boundary = FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (boundaries); i++)
        boundary = boundary || boundaries[i] == len;
      g_array_set_size (rows, 0);
      gboolean ok = st_cfa_run_fde (&cie, copy, copy + len, 0x20000, START,
                                    START + 32, TRUE, 0, collect, rows);
      if (ok != boundary)
        g_error ("cut at %zu: %s", len, ok ? "read" : "refused");
      g_free (copy);
    }
  g_array_free (rows, TRUE);
  one_fde_close (&o);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  elf_version (EV_CURRENT);
  g_test_add_func ("/cfa-program/opcodes", test_opcodes);
  g_test_add_func ("/cfa-program/cie", test_cie);
  g_test_add_func ("/cfa-program/set-loc", test_set_loc);
  g_test_add_func ("/cfa-program/left-to-libdw", test_left_to_libdw);
  g_test_add_func ("/cfa-program/truncated", test_truncated);
  return g_test_run ();
}
