/* Unwind rules applied to frames, and the x86_64 frame-pointer step:
   the semantics libdwfl gives the same CFI row (see cfi-rules.h).  */
#include "config.h"

#include <elf.h>
#include <glib.h>
#include <string.h>

#include "unwind/cfi-rules.h"
#include "unwind/fast-arch.h"

enum { RBX = 3, RBP = 6, RSP = 7, RIP = 16 };

/* A stack copy of 64 words at SP = 0x1000, word I holding 0x100 + I.  */
typedef struct
{
  uint64_t words[64];
  StEvent ev;
  StProcess process;
  StSampleMemory mem;
} Fixture;

static void
fixture_init (Fixture *f)
{
  memset (f, 0, sizeof *f);
  for (int i = 0; i < 64; i++)
    f->words[i] = 0x100 + i;
  f->ev.kind = ST_EVENT_STACK_USER;
  f->ev.stack.abi = ST_REGS_ABI_64;
  f->ev.stack.stack = (const uint8_t *) f->words;
  f->ev.stack.stack_size = sizeof f->words;
  f->process.maps = st_address_space_new ();
  st_sample_memory_init (&f->mem, &f->ev, 0x1000, &f->process, NULL);
}

static void
fixture_clear (Fixture *f)
{
  st_address_space_free (f->process.maps);
}

static void
set (StFrameRegs *r, unsigned reg, uint64_t v)
{
  r->regs[reg] = v;
  r->set |= 1u << reg;
}

/* CFA = rsp + 16, rip at CFA - 8, rbp at CFA - 16, rbx unchanged,
   rsp = CFA.  */
static StUnwindRule
typical_rule (void)
{
  StUnwindRule rule = { 0 };

  rule.kind = ST_RULE_OK;
  rule.cfa_reg = RSP;
  rule.cfa_offset = 16;
  rule.same = 1u << RBX;
  /* Grouped by kind, as st_cfi_rule_from_frame leaves them.  */
  rule.regs[rule.n_regs++] = (StRegRule) { RBP, ST_REG_AT_CFA, 0, 0, -16 };
  rule.regs[rule.n_regs++] = (StRegRule) { RIP, ST_REG_AT_CFA, 0, 0, -8 };
  rule.regs[rule.n_regs++] = (StRegRule) { RSP, ST_REG_IS_CFA, 0, 0, 0 };
  rule.n_at_cfa = 2;
  rule.n_is_cfa = 1;
  return rule;
}

static void
test_apply (void)
{
  Fixture f;
  StFrameRegs cur = { 0 }, next;
  StUnwindRule rule = typical_rule ();
  uint64_t pc = 0;

  fixture_init (&f);
  set (&cur, RSP, 0x1000);
  set (&cur, RBX, 42);
  set (&cur, 0, 7);   /* rax: undefined in the caller */
  g_assert_true (st_cfi_rule_apply (&rule, &cur, &next, RIP, &f.mem, &pc));
  g_assert_cmphex (pc, ==, 0x101);                 /* word 1 */
  g_assert_cmphex (next.regs[RSP], ==, 0x1010);
  g_assert_cmphex (next.regs[RBP], ==, 0x100);     /* word 0 */
  g_assert_cmphex (next.regs[RBX], ==, 42);
  g_assert_cmphex (next.set, ==, (1u << RSP) | (1u << RBP) | (1u << RBX)
                                 | (1u << RIP));
  g_assert_false (f.mem.failed_read);

  /* The CFA's register unknown: nothing relative to it is known, and the
     return address is undefined (the walk ends).  */
  cur.set &= ~(1u << RSP);
  g_assert_false (st_cfi_rule_apply (&rule, &cur, &next, RIP, &f.mem, &pc));
  g_assert_cmphex (next.set, ==, 1u << RBX);

  /* A return address beyond the stack copy: unreadable, recorded.  */
  set (&cur, RSP, 0x1000 + sizeof f.words - 8);
  f.mem.frame = 3;
  g_assert_false (st_cfi_rule_apply (&rule, &cur, &next, RIP, &f.mem, &pc));
  g_assert_true (f.mem.failed_read);
  g_assert_true (f.mem.failed_past_stack);
  g_assert_cmpuint (f.mem.failed_at_frame, ==, 3);
  fixture_clear (&f);
}

static void
test_frame_pointer (void)
{
  const StFastArch *arch = st_fast_arch (EM_X86_64);
  Fixture f;
  StFrameRegs cur = { 0 }, next;
  StNoCfiFrame frame = { .pc = 0x4000, .leaf = FALSE };
  uint64_t pc = 0;

  g_assert_nonnull (arch);
  fixture_init (&f);
  /* rbp points at word 4: saved rbp there, return address after it.  */
  set (&cur, RSP, 0x1000);
  set (&cur, RBP, 0x1020);
  g_assert_true (arch->no_cfi_step (&cur, &frame, &next, &f.mem, &pc));
  g_assert_cmphex (pc, ==, 0x105);
  g_assert_cmphex (next.regs[RBP], ==, 0x104);
  g_assert_cmphex (next.regs[RSP], ==, 0x1030);
  g_assert_cmphex (next.set, ==, (1u << RBP) | (1u << RSP));

  /* rbp below rsp: no frame.  */
  set (&cur, RBP, 0x0f00);
  set (&cur, RSP, 0x1000);
  g_assert_false (arch->no_cfi_step (&cur, &frame, &next, &f.mem, &pc));
  /* rbp zero or unknown: no frame, and nothing read.  */
  f.mem.failed_read = FALSE;
  set (&cur, RBP, 0);
  g_assert_false (arch->no_cfi_step (&cur, &frame, &next, &f.mem, &pc));
  cur.set &= ~(1u << RBP);
  g_assert_false (arch->no_cfi_step (&cur, &frame, &next, &f.mem, &pc));
  g_assert_false (f.mem.failed_read);
  fixture_clear (&f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cfi-rules/apply", test_apply);
  g_test_add_func ("/cfi-rules/frame-pointer", test_frame_pointer);
  return g_test_run ();
}
