/* The lean form of unwind rules (unwind/lean-rule.h), for x86_64, on
   CFI rows written here (as libdw describes them, made rules by
   st_cfi_rule_from_row):

   - known answers: the rows of a function's prologue, body and
     epilogue, frame-pointer based code, the outermost frame (return
     address undefined), other registers saved or copied, each with its
     lean form worked out by hand;
   - what is not of the common shape and must go to the full walk: a
     CFA from another register or an expression, no CFI, a fallback, the
     return address or stack pointer kept or taken from a register, the
     frame pointer the CFA itself, offsets beyond 16 bits;
   - against the full rule: for every lean rule, st_cfi_rule_apply on a
     stack copy holding exactly [CFA + READ_LO, CFA + READ_HI + 8) reads
     nothing outside it and gives the stack pointer, frame pointer and
     return address the lean form says.  */
#include "config.h"

#include <elf.h>
#include <glib.h>
#include <string.h>

#include "model/process-table.h"
#include "unwind/lean-rule.h"

#define RBX 3
#define RBP 6
#define RSP 7
#define RIP 16

/* A row: CFA = CFA_REG + CFA_OFFSET (-1: an expression), then register
   rules as (reg + 1, kind, value), 0 ending them; rsp is the CFA (val
   offset 0) unless listed; everything else undefined.  */
typedef struct
{
  int reg1;
  uint8_t kind;
  int64_t value;
} Reg;

#define R(reg, kind, value) { (reg) + 1, ST_CFI_##kind, (value) }

typedef struct
{
  const char *name;
  int cfa_reg;
  int64_t cfa_offset;
  Reg regs[8];
  /* The lean form expected.  */
  uint8_t cfa;
  uint8_t fp;
  uint8_t outermost;
  int32_t ra_offset, fp_offset, sp_offset;
  gboolean has_reads;
  int32_t read_lo, read_hi;
} Case;

static void
rule_of (const Case *c, StUnwindRule *rule)
{
  StCfiRow row;

  memset (&row, 0, sizeof row);
  row.ra = RIP;
  if (c->cfa_reg < 0)
    row.cfa = ST_CFI_CFA_EXPRESSION;
  else
    {
      row.cfa = ST_CFI_CFA_REG;
      row.cfa_reg = c->cfa_reg;
      row.cfa_offset = (uint64_t) c->cfa_offset;
    }
  row.regs[RSP].kind = ST_CFI_VAL_OFFSET;
  for (const Reg *r = c->regs; r->reg1 != 0; r++)
    {
      row.regs[r->reg1 - 1].kind = r->kind;
      row.regs[r->reg1 - 1].value = (uint64_t) r->value;
    }
  st_cfi_rule_from_row (&row, 17, RIP, rule);
}

#define NONE_FORM ST_LEAN_NONE, 0, 0, 0, 0, 0, FALSE, 0, 0

static const Case cases[] = {
  /* At a function's entry: CFA = rsp + 8, return address at CFA - 8,
     rbp untouched (same_value).  */
  { "entry", RSP, 8, { R (RIP, OFFSET, -8), R (RBP, SAME, 0) },
    ST_LEAN_SP, ST_LEAN_FP_SAME, 0, -8, 0, 0, TRUE, -8, -8 },
  /* After push rbp: rbp saved at CFA - 16.  */
  { "push-rbp", RSP, 16, { R (RIP, OFFSET, -8), R (RBP, OFFSET, -16) },
    ST_LEAN_SP, ST_LEAN_FP_AT_CFA, 0, -8, -16, 0, TRUE, -16, -8 },
  /* mov rsp, rbp: CFA = rbp + 16.  */
  { "frame-pointer", RBP, 16, { R (RIP, OFFSET, -8), R (RBP, OFFSET, -16) },
    ST_LEAN_FP, ST_LEAN_FP_AT_CFA, 0, -8, -16, 0, TRUE, -16, -8 },
  /* Callee-saved registers further down: reads from CFA - 56.  */
  { "saved-regs", RSP, 64, { R (RIP, OFFSET, -8), R (RBP, SAME, 0),
                             R (RBX, OFFSET, -56), R (12, OFFSET, -48),
                             R (13, OFFSET, -16) },
    ST_LEAN_SP, ST_LEAN_FP_SAME, 0, -8, 0, 0, TRUE, -56, -8 },
  /* Another register copied, or the CFA: no bearing on the three.  */
  { "other-regs", RSP, 16, { R (RIP, OFFSET, -8), R (RBX, REGISTER, 0),
                             R (12, VAL_OFFSET, 8) },
    ST_LEAN_SP, ST_LEAN_FP_UNDEFINED, 0, -8, 0, 0, TRUE, -8, -8 },
  /* _start: the return address undefined, the outermost frame; nothing
     read.  */
  { "outermost", RSP, 8, { R (RBP, SAME, 0) },
    ST_LEAN_SP, ST_LEAN_FP_SAME, 1, 0, 0, 0, FALSE, 0, 0 },
  /* A caller's stack pointer other than the CFA (val_offset 8).  */
  { "sp-offset", RSP, 16, { R (RIP, OFFSET, -8), R (RSP, VAL_OFFSET, 8) },
    ST_LEAN_SP, ST_LEAN_FP_UNDEFINED, 0, -8, 0, 8, TRUE, -8, -8 },
  /* The extremes of 16 bits; a CFA offset needs 32.  */
  { "wide", RSP, 100000, { R (RIP, OFFSET, -32768), R (RBX, OFFSET, 32767),
                           R (RSP, VAL_OFFSET, 32767) },
    ST_LEAN_SP, ST_LEAN_FP_UNDEFINED, 0, -32768, 0, 32767, TRUE, -32768,
    32767 },

  /* Not of the common shape.  */
  { "cfa-rbx", RBX, 16, { R (RIP, OFFSET, -8) }, NONE_FORM },
  { "cfa-expression", -1, 0, { R (RIP, OFFSET, -8) }, NONE_FORM },
  { "ra-same", RSP, 8, { R (RIP, SAME, 0) }, NONE_FORM },
  { "ra-in-register", RSP, 8, { R (RIP, REGISTER, 0) }, NONE_FORM },
  { "ra-is-cfa", RSP, 8, { R (RIP, VAL_OFFSET, 0) }, NONE_FORM },
  { "sp-same", RSP, 8, { R (RIP, OFFSET, -8), R (RSP, SAME, 0) },
    NONE_FORM },
  { "sp-undefined", RSP, 8, { R (RIP, OFFSET, -8), R (RSP, UNDEFINED, 0) },
    NONE_FORM },
  { "sp-saved", RSP, 8, { R (RIP, OFFSET, -8), R (RSP, OFFSET, -16) },
    NONE_FORM },
  { "sp-in-register", RSP, 8, { R (RIP, OFFSET, -8), R (RSP, REGISTER, 6) },
    NONE_FORM },
  { "fp-in-register", RSP, 8, { R (RIP, OFFSET, -8), R (RBP, REGISTER, 3) },
    NONE_FORM },
  { "fp-is-cfa", RSP, 8, { R (RIP, OFFSET, -8), R (RBP, VAL_OFFSET, 0) },
    NONE_FORM },
  { "ra-far", RSP, 8, { R (RIP, OFFSET, -32769) }, NONE_FORM },
  { "fp-far", RSP, 8, { R (RIP, OFFSET, -8), R (RBP, OFFSET, 32768) },
    NONE_FORM },
  { "other-far", RSP, 8, { R (RIP, OFFSET, -8), R (RBX, OFFSET, -40000) },
    NONE_FORM },
  { "sp-far", RSP, 8, { R (RIP, OFFSET, -8), R (RSP, VAL_OFFSET, 32768) },
    NONE_FORM },
  { "register-expression", RSP, 8, { R (RIP, OFFSET, -8),
                                     R (RBX, EXPRESSION, 0) }, NONE_FORM },
};

/* The full rule applied where every read the lean form announces is in
   the copy and nothing else is: no failed read, and the lean form's
   values.  */
static void
check_against_full (const Case *c, const StUnwindRule *rule,
                    const StLeanRule *lean)
{
  const StFastArch *arch = st_fast_arch (EM_X86_64);
  StProcessTable *processes = st_process_table_new ();
  StModuleCache *modules = st_module_cache_new (NULL);
  StFrameRegs cur = { 0 }, next;
  StSampleMemory mem;
  StEvent ev = { 0 };
  const uint64_t rsp = 0x7ffc0000, rbp = 0x7ffc0800;
  uint64_t cfa = (lean->cfa == ST_LEAN_SP ? rsp : rbp) + lean->cfa_offset;
  uint64_t lo = cfa + lean->read_lo, len = 0;
  uint64_t *words = NULL;

  if (lean->has_reads)
    {
      len = (uint64_t) (lean->read_hi - lean->read_lo) + 8;
      words = g_malloc (len);
      /* Word at address A: A itself, so every read tells where it
         was.  */
      for (uint64_t off = 0; off + 8 <= len; off += 8)
        {
          uint64_t a = lo + off;
          memcpy ((uint8_t *) words + off, &a, 8);
        }
    }
  ev.kind = ST_EVENT_STACK_USER;
  ev.stack.abi = ST_REGS_ABI_64;
  ev.stack.stack = (const uint8_t *) words;
  ev.stack.stack_size = len;
  st_sample_memory_init (&mem, &ev, lo, st_process_table_get (processes, 1),
                         modules);
  for (unsigned r = 0; r < arch->n_regs; r++)
    {
      cur.regs[r] = 0x1000 * (r + 1);
      cur.set |= 1u << r;
    }
  cur.regs[RSP] = rsp;
  cur.regs[RBP] = rbp;

  uint64_t pc = 0;
  gboolean ok = st_cfi_rule_apply (rule, &cur, &next, arch->ra, &mem, &pc);
  if (mem.failed_read)
    g_error ("%s: the full rule read outside [CFA%+d, CFA%+d + 8)", c->name,
             lean->read_lo, lean->read_hi);
  /* Lean: SP = CFA + sp_offset, the return address at CFA + ra_offset
     (here: its own address), FP kept, loaded or unknown.  */
  g_assert_true (next.set & (1u << RSP));
  g_assert_cmphex (next.regs[RSP], ==, cfa + lean->sp_offset);
  if (lean->outermost)
    g_assert_false (ok);
  else
    {
      g_assert_true (ok);
      g_assert_cmphex (pc, ==, cfa + lean->ra_offset);
    }
  switch (lean->fp)
    {
    case ST_LEAN_FP_SAME:
      g_assert_true (next.set & (1u << RBP));
      g_assert_cmphex (next.regs[RBP], ==, rbp);
      break;
    case ST_LEAN_FP_AT_CFA:
      g_assert_true (next.set & (1u << RBP));
      g_assert_cmphex (next.regs[RBP], ==, cfa + lean->fp_offset);
      break;
    default:
      g_assert_false (next.set & (1u << RBP));
    }
  g_free (words);
  st_module_cache_free (modules);
  st_process_table_free (processes);
}

static void
test_cases (void)
{
  const StFastArch *arch = st_fast_arch (EM_X86_64);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const Case *c = &cases[i];
      StUnwindRule rule;
      StLeanRule lean, want = { 0 };

      rule_of (c, &rule);
      memset (&lean, 0x5a, sizeof lean);
      st_lean_rule_from_rule (&rule, arch, &lean);
      want.cfa = c->cfa;
      if (c->cfa != ST_LEAN_NONE)
        {
          want.fp = c->fp;
          want.outermost = c->outermost;
          want.has_reads = c->has_reads;
          want.cfa_offset = c->cfa_offset;
          want.ra_offset = c->ra_offset;
          want.fp_offset = c->fp_offset;
          want.sp_offset = c->sp_offset;
          want.read_lo = c->read_lo;
          want.read_hi = c->read_hi;
        }
      /* Byte for byte: the unused fields are zero.  */
      if (memcmp (&lean, &want, sizeof lean) != 0)
        g_error ("%s: lean form cfa %u fp %u outermost %u reads %u "
                 "cfa%+d ra%+d fp%+d sp%+d [%d, %d]", c->name, lean.cfa,
                 lean.fp, lean.outermost, lean.has_reads, lean.cfa_offset,
                 lean.ra_offset, lean.fp_offset, lean.sp_offset,
                 lean.read_lo, lean.read_hi);
      if (lean.cfa != ST_LEAN_NONE)
        check_against_full (c, &rule, &lean);
    }
}

/* Rules that are no CFI row at all.  */
static void
test_not_ok (void)
{
  const StFastArch *arch = st_fast_arch (EM_X86_64);
  StUnwindRule rule;
  StLeanRule lean, none = { .cfa = ST_LEAN_NONE };

  rule_of (&cases[0], &rule);
  rule.kind = ST_RULE_NO_CFI;
  st_lean_rule_from_rule (&rule, arch, &lean);
  g_assert_true (memcmp (&lean, &none, sizeof lean) == 0);
  rule_of (&cases[0], &rule);
  rule.kind = ST_RULE_FALLBACK;
  st_lean_rule_from_rule (&rule, arch, &lean);
  g_assert_true (memcmp (&lean, &none, sizeof lean) == 0);
  /* A PLT's CFA (an expression of the PC) is the full walk's.  */
  rule_of (&cases[0], &rule);
  rule.cfa_kind = ST_CFA_PLT;
  st_lean_rule_from_rule (&rule, arch, &lean);
  g_assert_true (memcmp (&lean, &none, sizeof lean) == 0);
  /* A signal frame: the row is a fallback.  */
  StCfiRow row = { .signal = TRUE, .ra = RIP, .cfa = ST_CFI_CFA_REG,
                   .cfa_reg = RSP, .cfa_offset = 8 };
  st_cfi_rule_from_row (&row, 17, RIP, &rule);
  st_lean_rule_from_rule (&rule, arch, &lean);
  g_assert_true (memcmp (&lean, &none, sizeof lean) == 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lean-rule/cases", test_cases);
  g_test_add_func ("/lean-rule/not-ok", test_not_ok);
  return g_test_run ();
}
